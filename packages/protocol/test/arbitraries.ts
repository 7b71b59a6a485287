/**
 * fast-check arbitraries shared by the core property tests.
 */
import { fc } from "@fast-check/vitest"
import { getAddress } from "viem"
import type { AbiPermit } from "../src/PermitAbi.ts"
import { SECP256K1_N } from "../src/Signature.ts"

type Hex = `0x${string}`

// ---------------------------------------------------------------------------
// JSON values (the canonical JSON domain)
// ---------------------------------------------------------------------------

/** A JSON value with only safe integers as numbers. */
export type JsonValue = null | boolean | number | string | ReadonlyArray<JsonValue> | {
  readonly [key: string]: JsonValue
}

/** Characters that stress JSON escaping and UTF-16 ordering. */
const specialChars = fc.constantFrom(
  "\u0000",
  "\u0001",
  "\u001f",
  "\b",
  "\n",
  "\t",
  "\u007f",
  "\"",
  "\\",
  "/",
  "\u2028",
  "\u2029",
  "\ud800", // lone high surrogate
  "\udfff", // lone low surrogate
  "\u{1F600}",
  "\u{10FFFF}",
  "\uFF61",
  "\uFEFF",
  "é",
  "e\u0301",
  "ش"
)

/** One unit of a generated string: any code point, ASCII, or a special character. */
const charUnit = fc.oneof(
  { arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), weight: 3 },
  { arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }), weight: 3 },
  { arbitrary: specialChars, weight: 2 }
)

/** Strings with unicode, astral characters, controls, lone surrogates and U+2028. */
export const jsonString = fc.string({ unit: charUnit, maxLength: 10 })

/** Safe integers, biased to the edges. */
export const safeInteger = fc.oneof(
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.integer({ min: -1000, max: 1000 }),
  fc.constantFrom(0, 1, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER)
)

const jsonLeaf: fc.Arbitrary<JsonValue> = fc.oneof(safeInteger, jsonString, fc.boolean(), fc.constant(null))

/** Object keys: arbitrary strings, array-index-like keys and prototype-ish names. */
export const objectKey = fc.oneof(
  { arbitrary: jsonString, weight: 4 },
  { arbitrary: fc.nat({ max: 30 }).map(String), weight: 1 },
  { arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "a", "A", "_", "$", "a b", ""), weight: 1 }
)

/** Keys that are not array indices (JSON.stringify enumerates those first, numerically). */
export const nonIndexKey = objectKey.filter((k) => !/^(?:0|[1-9][0-9]*)$/.test(k))

/** Objects of up to `maxKeys` members with the given keys and values. */
export const objectOf = (key: fc.Arbitrary<string>, value: fc.Arbitrary<JsonValue>, maxKeys: number) =>
  fc.uniqueArray(fc.tuple(key, value), { maxLength: maxKeys, selector: ([k]) => k })
    // Object.fromEntries defines own properties, so "__proto__" stays an ordinary key
    .map((entries): { readonly [key: string]: JsonValue } => Object.fromEntries(entries))

/** Nested JSON values (arrays and objects up to a small depth). */
export const jsonValueWith = (key: fc.Arbitrary<string>): fc.Arbitrary<JsonValue> =>
  fc.letrec<{ value: JsonValue; array: ReadonlyArray<JsonValue>; object: { readonly [key: string]: JsonValue } }>((
    tie
  ) => ({
    value: fc.oneof({ depthSize: "small", withCrossShrink: true }, jsonLeaf, tie("array"), tie("object")),
    array: fc.array(tie("value"), { maxLength: 5 }),
    object: objectOf(key, tie("value"), 6)
  })).value

export const jsonValue = jsonValueWith(objectKey)

/** A JSON object at the top (the shape of a signed payload or a locator). */
export const jsonObject = objectOf(objectKey, jsonValue, 8)

/** A small deterministic PRNG (mulberry32) for shuffles driven by a generated seed. */
export const prng = (seed: number): () => number => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const shuffle = <A>(items: ReadonlyArray<A>, random: () => number): Array<A> => {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** A deep copy with every object's keys inserted in a random order (arrays keep their order). */
export const shuffleKeysDeep = (value: unknown, random: () => number): unknown => {
  if (Array.isArray(value)) return value.map((v) => shuffleKeysDeep(v, random))
  if (typeof value === "object" && value !== null) {
    const entries = shuffle(Object.entries(value), random).map(([k, v]) => [k, shuffleKeysDeep(v, random)] as const)
    return Object.fromEntries(entries)
  }
  return value
}

/** Compares two strings by UTF-16 code units, written out (independent of Array.prototype.sort). */
export const compareCodeUnits = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i)
    if (d !== 0) return d
  }
  return a.length - b.length
}

// ---------------------------------------------------------------------------
// Hex, addresses, keys
// ---------------------------------------------------------------------------

const HEX = "0123456789abcdef"

export const bytesToHex = (bytes: Uint8Array): Hex => {
  let out = "0x"
  for (const b of bytes) out += HEX[b >> 4]! + HEX[b & 15]!
  return out as Hex
}

/** Lowercase 0x + 64 hex digits. */
export const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(bytesToHex)

/** A lowercase address. */
export const addressLower = fc.uint8Array({ minLength: 20, maxLength: 20 }).map(bytesToHex)

/** An EIP-55 checksummed address. */
export const address = addressLower.map((a) => getAddress(a) as Hex)

/** Flips the case of the hex letters of a 0x string at random positions (same value, other spelling). */
export const randomCase = (hex: string, random: () => number): string =>
  // oxlint-disable-next-line unicorn/no-useless-spread -- the characters of a string
  `0x${[...hex.slice(2)].map((c) => (random() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join("")}`

/** A 0x hex string in a random letter case. */
export const anyCase = (hex: fc.Arbitrary<string>) =>
  fc.tuple(hex, fc.integer()).map(([h, seed]) => randomCase(h, prng(seed)))

const keyHex = (k: bigint): Hex => `0x${k.toString(16).padStart(64, "0")}`

/**
 * A valid secp256k1 private key: 32 random bytes, rejecting 0 and values at or
 * above n (not keys), plus the edge keys 1, 2 and n - 1.
 */
export const privateKey: fc.Arbitrary<Hex> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => BigInt(bytesToHex(bytes))).filter((k) =>
      k !== 0n && k < SECP256K1_N
    ).map(keyHex)
  },
  { weight: 1, arbitrary: fc.constantFrom(1n, 2n, SECP256K1_N - 1n).map(keyHex) }
)

/** Unsigned integers below 2^bits as decimal strings, biased to the edges. */
export const uintString = (bits: number) => {
  const max = (1n << BigInt(bits)) - 1n
  return fc.oneof(
    fc.bigInt({ min: 0n, max }),
    fc.bigInt({ min: 0n, max: 1000n }),
    fc.constantFrom(0n, 1n, max, max - 1n)
  ).map((n) => n.toString())
}

/** Replaces the hex digit at `index` (0-based, after 0x) with another hex digit. */
export const changeHexDigit = (hex: string, index: number, delta: number): string => {
  const i = 2 + index
  const current = Number.parseInt(hex[i]!, 16)
  const next = (current + 1 + (delta % 15)) % 16
  return `${hex.slice(0, i)}${next.toString(16)}${hex.slice(i + 1)}`
}

// ---------------------------------------------------------------------------
// Permits
// ---------------------------------------------------------------------------

/** A permit's ABI fields as a client may give them: hex in any case, uints as decimal strings, uint32 as numbers. */
export const abiPermitArb: fc.Arbitrary<AbiPermit> = fc.record({
  releaseId: anyCase(bytes32),
  fillId: anyCase(bytes32),
  routeId: anyCase(bytes32),
  quoteId: anyCase(bytes32),
  policyHash: anyCase(bytes32),
  permitNonce: anyCase(bytes32),
  sourceNetworkId: anyCase(bytes32),
  sourceAssetId: anyCase(bytes32),
  destinationNetworkId: anyCase(bytes32),
  destinationAssetId: anyCase(bytes32),
  sourceVaultAccountId: anyCase(bytes32),
  destinationVaultAccountId: anyCase(bytes32),
  payerAccountId: anyCase(bytes32),
  recipientAccountId: anyCase(bytes32),
  dataVersion: uintString(64),
  executionGeneration: anyCase(bytes32),
  validAfter: uintString(64),
  validUntil: uintString(64),
  sourceFinalityBlocks: fc.oneof(fc.integer({ min: 1, max: 0xffffffff }), fc.constantFrom(1, 0xffffffff)),
  settlementWindowSeconds: fc.oneof(fc.integer({ min: 1, max: 0xffffffff }), fc.constantFrom(1, 0xffffffff)),
  sourceChainId: uintString(256),
  destinationChainId: uintString(256),
  sourceAsset: fc.oneof(address, anyCase(addressLower)),
  destinationAsset: fc.oneof(address, anyCase(addressLower)),
  sourceVault: address,
  destinationVault: address,
  sourceRouter: address,
  payer: fc.oneof(address, anyCase(addressLower)),
  recipient: address,
  amountInRaw: uintString(128),
  amountOutRaw: uintString(128)
})

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

const nullable = <A>(arb: fc.Arbitrary<A>) => fc.oneof(fc.constant(null), arb)

/** A schema-valid Route (wire form): any hex case, uints up to 2^256 - 1, free-form locators. */
export const routeArb = fc.record({
  dataVersion: uintString(256),
  routeId: anyCase(bytes32),
  quoteId: anyCase(bytes32),
  sourceNetworkId: anyCase(bytes32),
  sourceAssetId: anyCase(bytes32),
  destinationNetworkId: anyCase(bytes32),
  destinationAssetId: anyCase(bytes32),
  sourceChainId: nullable(uintString(256)),
  destinationChainId: nullable(uintString(256)),
  sourceAsset: nullable(anyCase(addressLower)),
  destinationAsset: nullable(anyCase(addressLower)),
  sourceVault: nullable(anyCase(addressLower)),
  destinationVault: nullable(anyCase(addressLower)),
  sourceRouter: nullable(address),
  sourceLocator: jsonObject,
  destinationLocator: jsonObject,
  discoveryStatus: fc.constant("DISCOVERABLE" as const),
  executionStatus: fc.constantFrom("OPEN" as const, "PAUSED" as const, "TEMP_UNAVAILABLE" as const),
  permitAvailable: fc.boolean(),
  publicationLane: fc.constantFrom("L1" as const, "L2" as const, "L3" as const, "L4" as const),
  publicationRank: fc.oneof(fc.nat({ max: 100 }), fc.constant(Number.MAX_SAFE_INTEGER)),
  serviceCategory: fc.string({ maxLength: 20 }),
  feeMode: fc.string({ maxLength: 20 }),
  serviceFeeBps: fc.oneof(
    fc.constant(null),
    fc.integer({ min: 0, max: 10000 }),
    fc.double({ min: 0, max: 10000, noNaN: true }).filter((d) => !Object.is(d, -0))
  ),
  sourceTokenDecimals: fc.integer({ min: 0, max: 78 }),
  destinationTokenDecimals: fc.integer({ min: 0, max: 78 }),
  pricingReferenceId: anyCase(bytes32),
  executionGeneration: anyCase(bytes32),
  sourceFinalityBlocks: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  settlementWindowSeconds: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  validAfter: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  validUntil: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  policyHash: anyCase(bytes32),
  assumptionsHash: nullable(anyCase(bytes32)),
  legacyRouteId: nullable(anyCase(bytes32)),
  dailyStatus: fc.constantFrom("OPEN" as const, "CLOSED" as const),
  open: fc.boolean(),
  pricingMode: fc.constant("INDICATIVE_ENVELOPE_REPRICE_AT_PERMIT" as const),
  indicativePriceNumeratorRaw: uintString(256),
  indicativePriceDenominatorRaw: uintString(256),
  minimumFillInRaw: uintString(256),
  maxAvailableInRaw: uintString(256)
})
