/**
 * Golden protocol fixtures: language-neutral JSON vectors for canonical JSON, the
 * signed feed, the permit request message, permitDigest, the permit ABI and the
 * identifiers, built with the svc core library.
 *
 *   node scripts/fixtures.ts           rewrite fixtures/protocol/**
 *   node scripts/fixtures.ts --check   exit 1 and list the files that differ (writes nothing)
 *
 * Deterministic: fixed keys (public test material, never fund them), fixed
 * timestamps, RFC 6979 signatures; no randomness, no clock. `buildFixtures()` returns
 * the exact text of every file; test/codegen.test.ts (the drift test of `npm run codegen`)
 * fails when the committed files differ from it.
 *
 * fixtures/upstream is hand-transcribed and is never written here.
 */
import { Result } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { fromHex, keccak } from "../packages/protocol/src/Bytes.ts"
import {
  CanonicalJson,
  decodeStrict,
  ExecutionPermit,
  FeedSignature,
  Ids,
  PermitAbi,
  PermitDigest,
  PermitMessage,
  PermitRequest,
  Route,
  Signature,
  SignedFeedPayload
} from "../packages/protocol/src/index.ts"

type Hex = `0x${string}`
type Case = Record<string, unknown>

const GENERATOR = "scripts/fixtures.ts"
const REBUILD = "npm run fixtures"

// ---------------------------------------------------------------------------
// Fixed material
// ---------------------------------------------------------------------------

const KEY1_LABEL = "SVC V6 SDK PUBLIC TEST VECTOR KEY - NEVER FUND"
const KEY2_LABEL = "SVC FIXTURE KEY 2 - NEVER FUND"
/** Appendix A test key (public test material, never fund). */
const KEY1 = Ids.label(KEY1_LABEL)
const ADDR1 = Signature.addressOf(KEY1)
/** Second fixed key (public test material, never fund). */
const KEY2 = Ids.label(KEY2_LABEL)
const ADDR2 = Signature.addressOf(KEY2)

const RELEASE_ID = Ids.DEFAULT_RELEASE_ID
const ZERO_ADDRESS: Hex = "0x0000000000000000000000000000000000000000"
const UINT64_MAX = ((1n << 64n) - 1n).toString()
const UINT128_MAX = ((1n << 128n) - 1n).toString()
const UINT256_MAX = ((1n << 256n) - 1n).toString()

/** `0x` + one byte (two hex digits) repeated 32 times. */
const hex32 = (byte: string): Hex => `0x${byte.repeat(32)}`
/** A fixed bytes32 derived from a readable label. */
const fixed = (name: string): Hex => Ids.label(`svc fixture ${name}`)

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

/** A base58 Solana key (32 bytes) as bytes32 hex. */
const base58ToBytes32 = (text: string): Hex => {
  let n = 0n
  for (const c of text) {
    const i = B58.indexOf(c)
    if (i < 0) throw new Error(`not base58: ${text}`)
    n = n * 58n + BigInt(i)
  }
  const hex = n.toString(16).padStart(64, "0")
  if (hex.length > 64) throw new Error(`more than 32 bytes: ${text}`)
  return `0x${hex}`
}

/** bytes32 hex as a base58 Solana key. */
const bytes32ToBase58 = (hex: Hex): string => {
  let n = BigInt(hex)
  let out = ""
  while (n > 0n) {
    out = B58[Number(n % 58n)]! + out
    n /= 58n
  }
  const body = hex.slice(2)
  let zeros = 0
  while (zeros < 32 && body.slice(zeros * 2, zeros * 2 + 2) === "00") zeros++
  return "1".repeat(zeros) + out
}

// Networks and contracts (digit-only addresses: no EIP-55 letters to get wrong)
const BASE = { chainId: "8453", networkId: Ids.evmNetworkId(8453) }
const BSC = { chainId: "56", networkId: Ids.evmNetworkId(56) }
const HYPEREVM = { chainId: "999", networkId: Ids.evmNetworkId(999) }
const SOLANA = { networkId: Ids.solanaNetworkId(Ids.SOLANA_MAINNET_GENESIS) }

const BASE_TOKEN: Hex = "0x8453000000000000000000000000000000000001"
const BASE_VAULT: Hex = "0x8453000000000000000000000000000000000002"
const BASE_ROUTER: Hex = "0x8453000000000000000000000000000000000003"
const BSC_TOKEN: Hex = "0x0056000000000000000000000000000000000001"
const BSC_VAULT: Hex = "0x0056000000000000000000000000000000000002"
const BSC_ROUTER: Hex = "0x0056000000000000000000000000000000000003"
const HYPER_VAULT: Hex = "0x0999000000000000000000000000000000000002"
const RECIPIENT: Hex = "0x2222222222222222222222222222222222222222"

const USDC_SOLANA_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
const SOLANA_RECIPIENT_HEX = fixed("solana recipient public key")
const SOLANA_RECIPIENT = bytes32ToBase58(SOLANA_RECIPIENT_HEX)
const SOLANA_VAULT_HEX = fixed("solana vault public key")
const SOLANA_VAULT = bytes32ToBase58(SOLANA_VAULT_HEX)

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** Refuses anything JSON.stringify would drop or change silently. */
const checkJson = (value: unknown, path: string): void => {
  if (value === null || typeof value === "string" || typeof value === "boolean") return
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`${path}: non-finite number`)
    if (Object.is(value, -0)) throw new Error(`${path}: -0 does not survive JSON.stringify`)
    return
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkJson(v, `${path}[${i}]`))
    return
  }
  if (typeof value === "object") {
    for (const [k, v] of Object.entries(value)) checkJson(v, `${path}.${k}`)
    return
  }
  throw new Error(`${path}: ${typeof value} is not JSON`)
}

const document = (description: string, cases: ReadonlyArray<Case>): string => {
  const ids = new Set<string>()
  for (const c of cases) {
    if (typeof c.id !== "string" || ids.has(c.id)) throw new Error(`duplicate or missing case id ${String(c.id)}`)
    ids.add(c.id)
  }
  const doc = { generator: GENERATOR, description, cases }
  checkJson(doc, "$")
  return `${JSON.stringify(doc, null, 2)}\n`
}

const ok = <A, E>(result: Result.Result<A, E>, what: string): A => {
  if (Result.isFailure(result)) throw new Error(`${what}: ${String(result.failure)}`)
  return result.success
}

const schemaValid = (schema: Parameters<typeof decodeStrict>[0], value: unknown): boolean =>
  Result.isSuccess(decodeStrict(schema)(value))

const caught = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  throw new Error("expected an error")
}

const errorCase = (error: unknown, tag: string): Record<string, unknown> => {
  if (typeof error !== "object" || error === null || (error as { _tag?: unknown })._tag !== tag) {
    throw new Error(`expected ${tag}, got ${String(error)}`)
  }
  return error as Record<string, unknown>
}

const json = <A>(value: A): A => JSON.parse(JSON.stringify(value)) as A

// ---------------------------------------------------------------------------
// 1. Canonical JSON
// ---------------------------------------------------------------------------

/**
 * Inputs that JSON text cannot hold, by the JavaScript expression that makes them.
 * The tests keep their own copy of this table.
 */
const JS_INPUTS: Record<string, () => unknown> = {
  "-0": () => -0,
  "[-0, 0, -1]": () => [-0, 0, -1],
  "Object.assign(Object.create(null), { b: 1, a: 2 })": () => Object.assign(Object.create(null), { b: 1, a: 2 }),
  "undefined": () => undefined,
  "{ a: undefined }": () => ({ a: undefined }),
  "[1, , 3]": () => {
    const a: Array<number> = [1]
    a[2] = 3
    return a
  },
  "NaN": () => Number.NaN,
  "Infinity": () => Number.POSITIVE_INFINITY,
  "-Infinity": () => Number.NEGATIVE_INFINITY,
  "() => 1": () => () => 1,
  "Symbol(\"s\")": () => Symbol("s"),
  "new Date(0)": () => new Date(0),
  "new Map([[\"a\", 1]])": () => new Map([["a", 1]]),
  "{ n: 0.1 + 0.2 }": () => ({ n: 0.1 + 0.2 })
}

interface CanonicalSpec {
  readonly id: string
  readonly description: string
  readonly input?: unknown
  readonly inputText?: string
  readonly inputJs?: string
  readonly inputBigintPaths?: ReadonlyArray<ReadonlyArray<string | number>>
}

const withBigints = (value: unknown, paths: ReadonlyArray<ReadonlyArray<string | number>>): unknown => {
  let root = value
  for (const path of paths) {
    if (path.length === 0) {
      root = BigInt(root as string)
      continue
    }
    let parent = root as Record<string | number, unknown>
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
    const last = path[path.length - 1]!
    parent[last] = BigInt(parent[last] as string)
  }
  return root
}

/** The value an implementation reads from the case (JSON text parsed, bigint paths applied, or the JS table). */
const canonicalInputOf = (spec: CanonicalSpec): unknown => {
  if (spec.inputJs !== undefined) {
    const make = JS_INPUTS[spec.inputJs]
    if (make === undefined) throw new Error(`unknown inputJs ${spec.inputJs}`)
    return make()
  }
  const parsed = spec.inputText !== undefined ? JSON.parse(spec.inputText) : json(spec.input)
  return withBigints(parsed, spec.inputBigintPaths ?? [])
}

const specFields = (spec: CanonicalSpec): Case => {
  const out: Case = { id: spec.id, description: spec.description }
  if (spec.inputJs !== undefined) out.inputJs = spec.inputJs
  else out.input = spec.inputText !== undefined ? JSON.parse(spec.inputText) : spec.input
  if (spec.inputBigintPaths !== undefined) out.inputBigintPaths = spec.inputBigintPaths
  return out
}

const CONTROL_CHARS = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join("") + "\u007f"

const canonicalPositive: ReadonlyArray<CanonicalSpec> = [
  {
    id: "appendix-a",
    description: "Appendix A canonical JSON vector: recursive key sort, array order kept, raw Persian text.",
    input: { z: [3, { b: true, a: "Svc" }], a: null, unicode: "Svc-شبکه" }
  },
  {
    id: "persian-zwnj",
    description:
      "Persian text with ZERO WIDTH NON-JOINER (U+200C) and Persian digits: emitted raw (UTF-8), never \\u-escaped.",
    input: { text: "شبکه‌ی پرداخت ۱۲۳", کلید: "مقدار" }
  },
  {
    id: "astral-emoji",
    description:
      "Astral-plane characters (surrogate pairs in UTF-16: emoji, musical symbol, flag sequence): emitted raw as 4-byte UTF-8.",
    input: { emoji: "😀 𝄞 🇮🇷 👩‍💻" }
  },
  {
    id: "line-separators",
    description:
      "U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR are emitted raw (JSON.stringify semantics; Go's encoder would escape them).",
    input: { ls: "a\u2028b", ps: "c\u2029d" }
  },
  {
    id: "combining-marks",
    description:
      "No Unicode normalisation: precomposed é (U+00E9) and decomposed e + U+0301 are different keys and values; keys sort by UTF-16 code units, so the decomposed form (starts with 'e', 0x65) comes first.",
    input: { "é": "precomposed é", "e\u0301": "decomposed e\u0301", "n\u0303": "ñ" }
  },
  {
    id: "lone-surrogates",
    description:
      "Lone surrogates (from \\ud800 / \\udfff escapes in the JSON text) are written as lowercase \\udxxx escapes; a reversed pair is two lone surrogates; a proper surrogate pair is one astral character, written raw.",
    input: ["\ud800", "\udfff", "\ude00\ud83d", "x\ud83dy", "\ud83d\ude00"]
  },
  {
    id: "control-characters",
    description:
      "U+0000..U+001F use the short escapes \\b \\t \\n \\f \\r and otherwise \\u00xx with lowercase hex; U+007F (DEL) is emitted raw.",
    input: { controls: CONTROL_CHARS }
  },
  {
    id: "quote-backslash-slash",
    description:
      "Only \" and \\ are escaped among printable ASCII; / is not escaped; HTML-sensitive characters < > & ' are raw.",
    input: { s: "\"quoted\" back\\slash /path <b>&amp;</b> it's" }
  },
  {
    id: "key-order-ascii",
    description:
      "ASCII key order by code unit: space < digits < uppercase < _ < lowercase < ~; the empty key sorts first.",
    input: { z: 1, a: 2, Z: 3, A: 4, _: 5, "1": 6, "~": 7, " ": 8, "": 9, a0: 10, aa: 11, "a-": 12 }
  },
  {
    id: "key-order-utf16",
    description:
      "Non-ASCII keys sort by UTF-16 code units (JavaScript sort), not code points: U+1F600 (surrogates 0xD83D 0xDE00) sorts BEFORE U+FF21 FULLWIDTH A (0xFF21), although its code point is larger. Code-point sorting (Python, Rust) would differ here; keep signed keys ASCII.",
    input: { "é": 1, z: 2, Z: 3, _: 4, "1": 5, "😀": 6, "Ａ": 7, "中": 8 }
  },
  {
    id: "key-order-integer-like",
    description:
      "Integer-like keys sort as strings (\"10\" < \"2\" < \"9\"), not numerically, even though JavaScript enumerates them first in numeric order.",
    input: { "9": "nine", "10": "ten", "2": "two", "-1": "minus one", "01": "zero one", b: "b" }
  },
  {
    id: "key-escapes",
    description:
      "Keys are written with JSON.stringify: quote, backslash, newline and non-ASCII in keys are escaped/raw exactly as in values.",
    input: { "a\"b": 1, "c\\d": 2, "e\nf": 3, "ü": 4 }
  },
  {
    id: "proto-key",
    description:
      "A \"__proto__\" key read from JSON text is an ordinary own key (parse the case with JSON.parse, not an object literal).",
    inputText: "{\"__proto__\":{\"b\":1,\"a\":2},\"constructor\":\"c\"}"
  },
  {
    id: "nested",
    description:
      "Nested objects are sorted recursively at every depth; arrays keep their order (also arrays of objects and arrays of arrays).",
    input: {
      b: { d: [{ z: 1, y: [{ k: 2, j: 1 }] }, [3, [2, [1]]]], c: { f: { h: null, g: false } } },
      a: [true, false, null]
    }
  },
  {
    id: "empty-containers",
    description: "Empty object and empty array, alone and nested.",
    input: { object: {}, array: [], nested: [{}, [], [[]], { e: {} }] }
  },
  { id: "empty-object", description: "Top-level empty object.", input: {} },
  { id: "empty-array", description: "Top-level empty array.", input: [] },
  {
    id: "scalars",
    description: "Scalars: null, true, false, empty string, zero, and a top-level string.",
    input: [null, true, false, "", 0, "text"]
  },
  { id: "top-level-string", description: "A top-level string is its JSON.stringify form.", input: "Svc" },
  { id: "top-level-null", description: "A top-level null.", input: null },
  {
    id: "safe-integer-bounds",
    description: "Integers up to ±(2^53 - 1) are written as JSON numbers in shortest form.",
    input: { max: 9007199254740991, min: -9007199254740991, one: 1, minusOne: -1, big: 1000000000000000 }
  },
  { id: "negative-zero", description: "-0 (JSON text \"-0\" parses to -0) is written as 0.", inputJs: "-0" },
  { id: "negative-zero-array", description: "-0 inside an array is written as 0.", inputJs: "[-0, 0, -1]" },
  {
    id: "null-prototype-object",
    description: "An object without prototype is a plain object (keys sorted).",
    inputJs: "Object.assign(Object.create(null), { b: 1, a: 2 })"
  },
  {
    id: "bigint-member",
    description:
      "A bigint (inputBigintPaths: turn the string at that path into a bigint before canonicalising) is written as a quoted decimal string, identical to the string form: here 2^128.",
    input: { amount: "340282366920938463463374607431768211456", plain: "340282366920938463463374607431768211456" },
    inputBigintPaths: [["amount"]]
  },
  {
    id: "bigint-array",
    description: "Bigints inside an array, including a negative one and 2^64: quoted decimal strings.",
    input: ["-1", "0", "18446744073709551616"],
    inputBigintPaths: [[0], [1], [2]]
  },
  {
    id: "bigint-top-level",
    description: "A top-level bigint 10n is written \"10\".",
    input: "10",
    inputBigintPaths: [[]]
  }
]

const canonicalNegative: ReadonlyArray<CanonicalSpec> = [
  { id: "fraction", description: "A fraction has no canonical form.", input: 1.5 },
  {
    id: "fraction-nested-path",
    description: "The error path uses .key for identifier keys, [\"key\"] otherwise, [i] for array items.",
    input: { "a-b": [1.5] }
  },
  {
    id: "fraction-service-fee",
    description:
      "A fractional serviceFeeBps in a route: the publisher refuses it (every signed number must be an integer).",
    input: { routes: [{ serviceFeeBps: 2.5 }] }
  },
  { id: "exponent-1e21", description: "1e21 (JSON.stringify would print 1e+21) is beyond 2^53 - 1.", input: 1e21 },
  {
    id: "two-pow-53",
    description: "2^53 = 9007199254740992 is not a safe integer (2^53 - 1 is the largest).",
    input: 9007199254740992
  },
  { id: "minus-two-pow-53", description: "-2^53 is not a safe integer.", input: { n: -9007199254740992 } },
  { id: "float-sum", description: "0.1 + 0.2 is not an integer.", inputJs: "{ n: 0.1 + 0.2 }" },
  { id: "nan", description: "NaN has no JSON form.", inputJs: "NaN" },
  { id: "infinity", description: "Infinity has no JSON form.", inputJs: "Infinity" },
  { id: "minus-infinity", description: "-Infinity has no JSON form.", inputJs: "-Infinity" },
  {
    id: "undefined",
    description: "undefined is refused (the upstream SDK throws; an old upstream verifier wrote the text undefined).",
    inputJs: "undefined"
  },
  {
    id: "undefined-member",
    description: "A member whose value is undefined is refused, not skipped.",
    inputJs: "{ a: undefined }"
  },
  {
    id: "sparse-array",
    description: "A sparse array hole is refused (JSON.stringify would write null).",
    inputJs: "[1, , 3]"
  },
  { id: "function", description: "A function has no JSON form.", inputJs: "() => 1" },
  { id: "symbol", description: "A symbol has no JSON form.", inputJs: "Symbol(\"s\")" },
  { id: "date", description: "A Date is not a plain object (no toJSON conversion).", inputJs: "new Date(0)" },
  { id: "map", description: "A Map is not a plain object.", inputJs: "new Map([[\"a\", 1]])" }
]

const buildCanonical = (): string => {
  const cases: Array<Case> = []
  for (const spec of canonicalPositive) {
    cases.push({ ...specFields(spec), output: CanonicalJson.stringify(canonicalInputOf(spec)) })
  }
  for (const spec of canonicalNegative) {
    const result = CanonicalJson.stringifyResult(canonicalInputOf(spec))
    if (Result.isSuccess(result)) throw new Error(`canonical ${spec.id}: expected a failure`)
    const reason = result.failure.reason
    const reasonIncludes = reason.includes("beyond 2^53 - 1")
      ? "beyond 2^53 - 1"
      : reason.includes("is not an integer")
      ? "is not an integer"
      : reason
    cases.push({ ...specFields(spec), error: { path: result.failure.path, reasonIncludes } })
  }
  return document(
    "Canonical JSON (docs/protocol.md, Canonical JSON): recursively sorted keys by UTF-16 code units, compact, " +
      "JSON.stringify escaping, integers within ±(2^53 - 1), bigints as quoted decimals. Cases with `output` are " +
      "positive (canonical text of the input); cases with `error` are negative (no canonical form: `path` is " +
      "exact, `reasonIncludes` is a substring of the reason). `inputJs` names a JavaScript value JSON text cannot " +
      "hold; `inputBigintPaths` lists paths whose string becomes a bigint first.",
    cases
  )
}

// ---------------------------------------------------------------------------
// 2. Feed
// ---------------------------------------------------------------------------

interface RouteSpec {
  readonly dataVersion: string
  readonly source: {
    readonly networkId: Hex
    readonly assetId: Hex
    readonly chainId: string | null
    readonly asset: Hex | null
    readonly vault: Hex | null
    readonly router: Hex | null
    readonly locator: Record<string, unknown>
    readonly decimals: number
  }
  readonly destination: {
    readonly networkId: Hex
    readonly assetId: Hex
    readonly chainId: string | null
    readonly asset: Hex | null
    readonly vault: Hex | null
    readonly locator: Record<string, unknown>
    readonly decimals: number
  }
  readonly name: string
  readonly lane: "L1" | "L2" | "L3" | "L4"
  readonly rank: number
  readonly executionStatus: "OPEN" | "PAUSED" | "TEMP_UNAVAILABLE"
  readonly dailyStatus: "OPEN" | "CLOSED"
  readonly permitAvailable: boolean
  readonly serviceFeeBps: number | null
  readonly validAfter: number
  readonly validUntil: number
  readonly numerator: string
  readonly denominator: string
  readonly minimumFillInRaw: string
  readonly maxAvailableInRaw: string
  readonly assumptions: boolean
}

const makeRoute = (s: RouteSpec): Route => {
  const routeId = Ids.routeId({
    sourceNetworkId: s.source.networkId,
    sourceAssetId: s.source.assetId,
    destinationNetworkId: s.destination.networkId,
    destinationAssetId: s.destination.assetId,
    releaseId: RELEASE_ID
  })
  const pricingReferenceId = fixed(`${s.name} pricing reference`)
  const executionGeneration = fixed(`${s.name} execution generation`)
  const policyHash = fixed(`${s.name} policy`)
  const quoteId = Ids.quoteId({
    routeId,
    pricingReferenceId,
    validAfter: s.validAfter,
    validUntil: s.validUntil,
    executionGeneration,
    policyHash
  })
  const open = s.executionStatus === "OPEN" && s.dailyStatus === "OPEN" && s.permitAvailable &&
    BigInt(s.maxAvailableInRaw) >= BigInt(s.minimumFillInRaw)
  const route: Route = {
    dataVersion: s.dataVersion,
    routeId,
    quoteId,
    sourceNetworkId: s.source.networkId,
    sourceAssetId: s.source.assetId,
    destinationNetworkId: s.destination.networkId,
    destinationAssetId: s.destination.assetId,
    sourceChainId: s.source.chainId,
    destinationChainId: s.destination.chainId,
    sourceAsset: s.source.asset,
    destinationAsset: s.destination.asset,
    sourceVault: s.source.vault,
    destinationVault: s.destination.vault,
    sourceRouter: s.source.router,
    sourceLocator: s.source.locator as Route["sourceLocator"],
    destinationLocator: s.destination.locator as Route["destinationLocator"],
    discoveryStatus: "DISCOVERABLE",
    executionStatus: s.executionStatus,
    permitAvailable: s.permitAvailable,
    publicationLane: s.lane,
    publicationRank: s.rank,
    serviceCategory: "STABLE_TRANSFER",
    feeMode: "SPREAD_IN_PRICE",
    serviceFeeBps: s.serviceFeeBps,
    sourceTokenDecimals: s.source.decimals,
    destinationTokenDecimals: s.destination.decimals,
    pricingReferenceId,
    executionGeneration,
    sourceFinalityBlocks: 2,
    settlementWindowSeconds: 900,
    validAfter: s.validAfter,
    validUntil: s.validUntil,
    policyHash,
    assumptionsHash: s.assumptions ? fixed(`${s.name} assumptions`) : null,
    legacyRouteId: null,
    dailyStatus: s.dailyStatus,
    open,
    pricingMode: "INDICATIVE_ENVELOPE_REPRICE_AT_PERMIT",
    indicativePriceNumeratorRaw: s.numerator,
    indicativePriceDenominatorRaw: s.denominator,
    minimumFillInRaw: s.minimumFillInRaw,
    maxAvailableInRaw: s.maxAvailableInRaw
  }
  if (Object.keys(route).length !== 42) throw new Error("a Route has 42 fields")
  if (!schemaValid(Route, route)) throw new Error(`route ${s.name} is not schema-valid`)
  return route
}

const baseSide = {
  networkId: BASE.networkId,
  assetId: Ids.evmAssetId(BASE.networkId, BASE_TOKEN),
  chainId: BASE.chainId,
  asset: BASE_TOKEN,
  vault: BASE_VAULT,
  router: BASE_ROUTER,
  locator: { chainId: BASE.chainId, kind: "evm", token: BASE_TOKEN },
  decimals: 6
}
const bscTokenSide = {
  networkId: BSC.networkId,
  assetId: Ids.evmAssetId(BSC.networkId, BSC_TOKEN),
  chainId: BSC.chainId,
  asset: BSC_TOKEN,
  vault: BSC_VAULT,
  locator: { chainId: BSC.chainId, kind: "evm", token: BSC_TOKEN },
  decimals: 18
}
const bscNativeSide = {
  networkId: BSC.networkId,
  assetId: Ids.evmAssetId(BSC.networkId, ZERO_ADDRESS),
  chainId: BSC.chainId,
  asset: ZERO_ADDRESS,
  vault: BSC_VAULT,
  router: BSC_ROUTER,
  locator: { chainId: BSC.chainId, kind: "evm", token: ZERO_ADDRESS },
  decimals: 18
}
const hyperNativeSide = {
  networkId: HYPEREVM.networkId,
  assetId: Ids.evmAssetId(HYPEREVM.networkId, ZERO_ADDRESS),
  chainId: HYPEREVM.chainId,
  asset: ZERO_ADDRESS,
  vault: HYPER_VAULT,
  locator: { chainId: HYPEREVM.chainId, kind: "evm", token: ZERO_ADDRESS },
  decimals: 18
}
const solanaUsdcSide = {
  networkId: SOLANA.networkId,
  assetId: Ids.assetId(SOLANA.networkId, base58ToBytes32(USDC_SOLANA_MINT)),
  chainId: null,
  asset: null,
  vault: null,
  locator: { cluster: "mainnet-beta", kind: "svm", mint: USDC_SOLANA_MINT, vault: SOLANA_VAULT },
  decimals: 6
}

const ROUTE_VALID_AFTER = 1999990000
const ROUTE_VALID_UNTIL = 2000076400

const routeBaseBsc = makeRoute({
  dataVersion: "7",
  source: baseSide,
  destination: bscTokenSide,
  name: "route base-bsc",
  lane: "L1",
  rank: 0,
  executionStatus: "OPEN",
  dailyStatus: "OPEN",
  permitAvailable: true,
  serviceFeeBps: 5,
  validAfter: ROUTE_VALID_AFTER,
  validUntil: ROUTE_VALID_UNTIL,
  numerator: "999000000000000000",
  denominator: "1000000",
  minimumFillInRaw: "1000000",
  maxAvailableInRaw: "250000000000",
  assumptions: true
})
const routeBaseSolana = makeRoute({
  dataVersion: "7",
  source: baseSide,
  destination: solanaUsdcSide,
  name: "route base-solana",
  lane: "L1",
  rank: 1,
  executionStatus: "OPEN",
  dailyStatus: "OPEN",
  permitAvailable: true,
  serviceFeeBps: 0,
  validAfter: ROUTE_VALID_AFTER,
  validUntil: ROUTE_VALID_UNTIL,
  numerator: "998",
  denominator: "1000",
  minimumFillInRaw: "5000000",
  maxAvailableInRaw: "100000000000",
  assumptions: false
})
const routeBscHyper = makeRoute({
  dataVersion: "7",
  source: bscNativeSide,
  destination: hyperNativeSide,
  name: "route bsc-hyperevm native",
  lane: "L2",
  rank: 0,
  executionStatus: "OPEN",
  dailyStatus: "CLOSED",
  permitAvailable: false,
  serviceFeeBps: null,
  validAfter: ROUTE_VALID_AFTER,
  validUntil: ROUTE_VALID_UNTIL,
  numerator: "21000000000000000000",
  denominator: "1000000000000000000",
  minimumFillInRaw: "10000000000000000",
  maxAvailableInRaw: "5000000000000000000",
  assumptions: false
})
const routeLarge = makeRoute({
  dataVersion: "18446744073709551617",
  source: baseSide,
  destination: bscTokenSide,
  name: "route large values",
  lane: "L3",
  rank: 4294967296,
  executionStatus: "OPEN",
  dailyStatus: "OPEN",
  permitAvailable: true,
  serviceFeeBps: 10000,
  validAfter: ROUTE_VALID_AFTER,
  validUntil: 9007199254740991,
  numerator: UINT256_MAX,
  denominator: "18446744073709551617",
  minimumFillInRaw: "18446744073709551616",
  maxAvailableInRaw: UINT128_MAX,
  assumptions: true
})

const GENERATED_AT = 2000000000
const FEED_VALID_UNTIL = 2000000300

const payload = (dataVersion: string, routes: ReadonlyArray<Route>) => ({
  schema: FeedSignature.FEED_DOMAIN,
  releaseId: RELEASE_ID,
  dataVersion,
  generatedAt: GENERATED_AT,
  validUntil: FEED_VALID_UNTIL,
  routes
})

type SignatureTransform = "none" | "highSTwin" | "v0or1" | "truncated"

const transform = (signature: Hex, how: SignatureTransform): Hex => {
  switch (how) {
    case "none":
      return signature
    case "highSTwin":
      return Signature.highSTwin(signature)
    case "v0or1":
      return `${signature.slice(0, 130)}${signature.endsWith("1b") ? "00" : "01"}` as Hex
    case "truncated":
      return signature.slice(0, 130) as Hex
  }
}

interface FeedSpec {
  readonly id: string
  readonly description: string
  readonly signedPayload: ReturnType<typeof payload>
  /** The payload whose hash was signed (defaults to signedPayload). */
  readonly signedOver?: ReturnType<typeof payload>
  readonly signingKey: Hex
  readonly eip191?: boolean
  readonly signatureTransform?: SignatureTransform
  readonly feedHash?: (hash: Hex) => Hex
  readonly feedSigner: Hex
  readonly expectedSigner?: string
  readonly now: number
}

const buildFeedCase = (spec: FeedSpec): Case => {
  const originalHash = FeedSignature.hash(spec.signedOver ?? spec.signedPayload)
  const signedDigest = spec.eip191 === true ? Signature.personalMessageDigest(fromHex(originalHash)) : originalHash
  const signatureTransform = spec.signatureTransform ?? "none"
  const feedSignature = transform(FeedSignature.signHash(signedDigest, spec.signingKey), signatureTransform)
  const feedHash = spec.feedHash ? spec.feedHash(originalHash) : originalHash
  const canonicalPayload = CanonicalJson.stringify(spec.signedPayload)
  const feed = { signedPayload: spec.signedPayload, feedHash, feedSignature, feedSigner: spec.feedSigner }
  const verification = ok(
    FeedSignature.verify(
      feed,
      spec.expectedSigner === undefined ? { now: spec.now } : { now: spec.now, expectedSigner: spec.expectedSigner }
    ),
    spec.id
  )
  const out: Case = {
    id: spec.id,
    description: spec.description,
    signedPayload: spec.signedPayload,
    payloadSchemaValid: schemaValid(SignedFeedPayload, spec.signedPayload),
    canonicalPayload,
    preimage: FeedSignature.preimageText(spec.signedPayload),
    feedHash,
    signingKey: spec.signingKey,
    signedDigest,
    signatureTransform,
    feedSignature,
    feedSigner: spec.feedSigner,
    now: spec.now
  }
  if (spec.expectedSigner !== undefined) out.expectedSigner = spec.expectedSigner
  out.verification = { ...verification }
  out.failureCode = FeedSignature.failureCode(verification) ?? null
  return out
}

const buildFeed = (): string => {
  const empty = payload("7", [])
  const one = payload("7", [routeBaseBsc])
  const three = payload("7", [routeBaseBsc, routeBaseSolana, routeBscHyper])
  const large = payload("18446744073709551617", [routeLarge])
  const tampered = payload("7", [{ ...routeBaseBsc, maxAvailableInRaw: "250000000001" }])
  const flipLastNibble = (h: Hex): Hex => `${h.slice(0, 65)}${h.endsWith("0") ? "1" : "0"}` as Hex
  const specs: ReadonlyArray<FeedSpec> = [
    {
      id: "empty-routes",
      description:
        "Valid: a payload with no routes, signed with the Appendix A test key; now = generatedAt (generatedAt <= now is inclusive).",
      signedPayload: empty,
      signingKey: KEY1,
      feedSigner: ADDR1,
      now: GENERATED_AT
    },
    {
      id: "one-full-route",
      description:
        "Valid: one schema-valid 42-field Route (Base -> BSC, ids derived with the svc rules) signed with the test key.",
      signedPayload: one,
      signingKey: KEY1,
      feedSigner: ADDR1,
      now: GENERATED_AT + 1
    },
    {
      id: "three-routes",
      description:
        "Valid: three routes ordered by (publicationLane, publicationRank, routeId): Base -> BSC, Base -> Solana (null EVM bindings on the Solana side), BSC native -> HyperEVM native (closed: dailyStatus CLOSED, permitAvailable false).",
      signedPayload: three,
      signingKey: KEY1,
      feedSigner: ADDR1,
      now: GENERATED_AT + 150
    },
    {
      id: "large-uint-strings",
      description:
        "Valid: UintStr values beyond 2^64 and up to 2^256 - 1 (dataVersion 2^64 + 1, maxAvailableInRaw 2^128 - 1, numerator 2^256 - 1) stay strings; integers up to 2^53 - 1 stay numbers (route validUntil, publicationRank 2^32).",
      signedPayload: large,
      signingKey: KEY1,
      feedSigner: ADDR1,
      now: FEED_VALID_UNTIL - 1
    },
    {
      id: "second-key",
      description:
        "Valid: signed and declared by the second fixture key; without expectedSigner the declared feedSigner is expected.",
      signedPayload: one,
      signingKey: KEY2,
      feedSigner: ADDR2,
      now: GENERATED_AT + 1
    },
    {
      id: "second-key-pinned-lowercase",
      description:
        "Valid: expectedSigner pinned in lowercase; signer comparison is on EIP-55 forms, so case does not matter.",
      signedPayload: one,
      signingKey: KEY2,
      feedSigner: ADDR2,
      expectedSigner: ADDR2.toLowerCase(),
      now: GENERATED_AT + 1
    },
    {
      id: "v-zero-one",
      description:
        "Valid: the same signature with v = 0/1 instead of 27/28 is accepted by verifiers (svc emits 27/28).",
      signedPayload: one,
      signingKey: KEY1,
      signatureTransform: "v0or1",
      feedSigner: ADDR1,
      now: GENERATED_AT + 1
    },
    {
      id: "tampered-payload",
      description:
        "Negative: the payload was changed after signing (maxAvailableInRaw + 1): the computed hash differs from feedHash, and recovery over the computed hash gives an unrelated address.",
      signedPayload: tampered,
      signedOver: one,
      signingKey: KEY1,
      feedSigner: ADDR1,
      now: GENERATED_AT + 1
    },
    {
      id: "tampered-hash",
      description:
        "Negative: feedHash was changed (last hex digit) while payload and signature are intact: hash mismatch even though the signature recovers to the signer over the computed hash.",
      signedPayload: one,
      signingKey: KEY1,
      feedHash: flipLastNibble,
      feedSigner: ADDR1,
      now: GENERATED_AT + 1
    },
    {
      id: "wrong-signer",
      description: "Negative: signed by the second key but feedSigner declares the test key: recovered != declared.",
      signedPayload: one,
      signingKey: KEY2,
      feedSigner: ADDR1,
      now: GENERATED_AT + 1
    },
    {
      id: "unexpected-signer",
      description:
        "Negative: signed and declared by the second key, but the client pins the test key as expectedSigner: declared != expected.",
      signedPayload: one,
      signingKey: KEY2,
      feedSigner: ADDR2,
      expectedSigner: ADDR1,
      now: GENERATED_AT + 1
    },
    {
      id: "eip191-prefixed-signature",
      description:
        "Negative: signed over the EIP-191 personal digest of feedHash instead of the raw digest: recovery over the raw hash gives another address.",
      signedPayload: one,
      signingKey: KEY1,
      eip191: true,
      feedSigner: ADDR1,
      now: GENERATED_AT + 1
    },
    {
      id: "expired-boundary",
      description: "Negative: now = validUntil: expired (validUntil > now is strict).",
      signedPayload: one,
      signingKey: KEY1,
      feedSigner: ADDR1,
      now: FEED_VALID_UNTIL
    },
    {
      id: "expired-later",
      description: "Negative: now long after validUntil.",
      signedPayload: one,
      signingKey: KEY1,
      feedSigner: ADDR1,
      now: FEED_VALID_UNTIL + 86400
    },
    {
      id: "not-yet-valid",
      description:
        "Negative: now = generatedAt - 1: not valid, expired false. svc's failureCode reports SVC_SDK_FEED_EXPIRED for a future generatedAt (the upstream TS SDK would fall through to SVC_SDK_FEED_SIGNER_MISMATCH).",
      signedPayload: one,
      signingKey: KEY1,
      feedSigner: ADDR1,
      now: GENERATED_AT - 1
    },
    {
      id: "high-s-twin",
      description:
        "Negative: the high-s twin (s' = n - s, v flipped) of a valid signature: lenient recovery gives the signer, but svc refuses high-s, so recoveredSigner is null.",
      signedPayload: one,
      signingKey: KEY1,
      signatureTransform: "highSTwin",
      feedSigner: ADDR1,
      now: GENERATED_AT + 1
    },
    {
      id: "truncated-signature",
      description: "Negative: a 64-byte signature (v missing) is malformed: recoveredSigner is null.",
      signedPayload: one,
      signingKey: KEY1,
      signatureTransform: "truncated",
      feedSigner: ADDR1,
      now: GENERATED_AT + 1
    },
    {
      id: "hash-mismatch-and-expired",
      description: "Negative: tampered payload and expired at once: the hash mismatch is reported first.",
      signedPayload: tampered,
      signedOver: one,
      signingKey: KEY1,
      feedSigner: ADDR1,
      now: FEED_VALID_UNTIL + 1
    }
  ]
  return document(
    "Signed feed (docs/protocol.md, Feed hash and signature): preimage = \"SVC_MAINNET_V6_SIGNED_FEED_V1\" + LF + canonical JSON " +
      "of signedPayload; feedHash = keccak256(UTF-8 preimage); feedSignature = secp256k1 over feedHash itself (no " +
      "EIP-191 prefix), RFC 6979, low-s, v = 27/28. Keys (public test material, never fund): keccak256(\"" +
      KEY1_LABEL +
      "\") = " + KEY1 + " (" + ADDR1 + ") and keccak256(\"" + KEY2_LABEL + "\") = " + KEY2 + " (" + ADDR2 + "). " +
      "Each case: feedSignature = signatureTransform(sign(signedDigest, signingKey)); verification is the result of " +
      "verifying {signedPayload, feedHash, feedSignature, feedSigner} at `now` (with expectedSigner when given); " +
      "failureCode is null when valid.",
    specs.map(buildFeedCase)
  )
}

// ---------------------------------------------------------------------------
// 3. Permit request message
// ---------------------------------------------------------------------------

const QUOTE = hex32("20")
const PAYER_ACCOUNT = hex32("ab")
const RECIPIENT_ACCOUNT = hex32("cd")
/** The test address with the case of one letter flipped: a wrong EIP-55 checksum. */
const BAD_CHECKSUM = (() => {
  const i = 2 + ADDR1.slice(2).search(/[a-f]/u)
  const flipped = `${ADDR1.slice(0, i)}${ADDR1[i]!.toUpperCase()}${ADDR1.slice(i + 1)}`
  if (!/[a-f]/u.test(flipped.slice(2)) || !/[A-F]/u.test(flipped.slice(2))) throw new Error("not mixed case")
  return flipped
})()

interface MessageSpec {
  readonly id: string
  readonly description: string
  readonly request: Record<string, unknown> | null
  readonly signingKey?: Hex
}

const buildMessageCase = (spec: MessageSpec): Case => {
  const request = spec.request as unknown as PermitMessage.PermitRequestInput
  const normalized = ok(PermitMessage.normalizeResult(request), spec.id)
  const message = PermitMessage.message(normalized)
  const key = spec.signingKey ?? KEY1
  const requestSignature = PermitMessage.sign(message, key)
  const signer = ok(PermitMessage.recoverSigner(message, requestSignature), spec.id)
  if (signer !== Signature.addressOf(key)) throw new Error(`${spec.id}: signer mismatch`)
  return {
    id: spec.id,
    description: spec.description,
    request: spec.request,
    httpBodyValid: schemaValid(PermitRequest, spec.request),
    normalized,
    message,
    messageLineCount: message.split("\n").length,
    messageByteLength: new TextEncoder().encode(message).length,
    eip191Digest: Signature.personalMessageDigest(message),
    signingKey: key,
    signer,
    requestSignature
  }
}

const buildMessageNegative = (spec: MessageSpec): Case => {
  const result = PermitMessage.normalizeResult(spec.request as unknown as PermitMessage.PermitRequestInput)
  if (Result.isSuccess(result)) throw new Error(`${spec.id}: expected PermitRequestInvalid`)
  return {
    id: spec.id,
    description: spec.description,
    request: spec.request,
    error: { code: result.failure.code, field: result.failure.field }
  }
}

const evm = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  quoteId: QUOTE,
  requestedAmountInRaw: "2500000",
  standard: "ERC-7683",
  payer: ADDR1,
  recipient: RECIPIENT,
  idempotencyKey: "sdk-vector-0001",
  ...extra
})

const locatorForm = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  quoteId: QUOTE,
  requestedAmountInRaw: "1",
  payerAccountId: PAYER_ACCOUNT,
  payerLocator: "So1anaPubKeyExample",
  recipientAccountId: RECIPIENT_ACCOUNT,
  recipientLocator: { z: 1, address: "T-addr", chain: "tron" },
  idempotencyKey: "locator-vector-01",
  ...extra
})

/** Removes keys (for negative cases built from a valid request). */
const without = (request: Record<string, unknown>, ...keys: Array<string>): Record<string, unknown> => {
  const out = { ...request }
  for (const k of keys) delete out[k]
  return out
}

const SOLANA_RECIPIENT_ACCOUNT = Ids.accountId(SOLANA.networkId, SOLANA_RECIPIENT_HEX)

const messagePositive: ReadonlyArray<MessageSpec> = [
  {
    id: "evm-appendix-a",
    description:
      "EVM form (Appendix A permitRequestEvm): 7 lines, 297 bytes; payer given in EIP-55, written lowercase; standard ERC-7683.",
    request: evm()
  },
  {
    id: "locator-appendix-a",
    description:
      "Account/locator form (Appendix A permitRequestLocator): 9 lines; standard omitted -> DIRECT; string locator -> {\"native\": ...}; object locator keys sorted.",
    request: locatorForm()
  },
  {
    id: "mixed-evm-payer-locator-recipient",
    description:
      "Mixed: EVM payer + account/locator recipient on Solana (8 lines; recipient lines are recipientAccountId then recipientLocator).",
    request: {
      quoteId: QUOTE,
      requestedAmountInRaw: "5000000",
      standard: "DIRECT",
      payer: ADDR1,
      recipientAccountId: SOLANA_RECIPIENT_ACCOUNT,
      recipientLocator: { cluster: "mainnet-beta", owner: SOLANA_RECIPIENT },
      idempotencyKey: "mixed-evm-to-solana-01"
    }
  },
  {
    id: "mixed-locator-payer-evm-recipient",
    description:
      "Mixed: account/locator payer + EVM recipient (8 lines; payer lines come before the recipient line). Signed with the second key.",
    request: {
      quoteId: QUOTE,
      requestedAmountInRaw: "5000000",
      payerAccountId: PAYER_ACCOUNT,
      payerLocator: { owner: SOLANA_RECIPIENT, cluster: "mainnet-beta" },
      recipient: ADDR2,
      idempotencyKey: "mixed-solana-to-evm-01"
    },
    signingKey: KEY2
  },
  {
    id: "hex-case",
    description:
      "Hex case: quoteId in uppercase hex, payer all-lowercase, recipient with an all-uppercase body (both carry no checksum and pass): the message is lowercase, normalized quoteId lowercase and addresses EIP-55.",
    request: evm({
      quoteId: `0x${"AB".repeat(32)}`,
      payer: ADDR1.toLowerCase(),
      recipient: `0x${ADDR2.slice(2).toUpperCase()}`
    })
  },
  {
    id: "account-id-uppercase",
    description: "Account ids in uppercase hex are lowercased in the message and in the normalized request.",
    request: locatorForm({ payerAccountId: `0x${"AB".repeat(32)}`, recipientAccountId: `0x${"CD".repeat(32)}` })
  },
  {
    id: "trimmed-key",
    description:
      "The idempotency key is trimmed (String.prototype.trim: spaces, tabs, newlines) before validation and in the message.",
    request: evm({ idempotencyKey: "  \t sdk-vector-0001 \n" })
  },
  {
    id: "trimmed-key-unicode-space",
    description:
      "Trimming follows JavaScript String.prototype.trim, which also removes U+00A0 NO-BREAK SPACE and U+FEFF (BOM) at both ends.",
    request: evm({ idempotencyKey: "\u00a0\ufeffsdk-vector-0001\u2003" })
  },
  {
    id: "standard-lowercase",
    description: "The standard is uppercased: erc-7683 -> ERC-7683.",
    request: evm({ standard: "erc-7683" })
  },
  {
    id: "standard-default-null",
    description: "standard null (like omitted) defaults to DIRECT.",
    request: evm({ standard: null })
  },
  {
    id: "standard-punctuation",
    description:
      "Any standard matching ^[A-Z0-9][A-Z0-9._:-]{0,63}$ after uppercasing builds a message (a server may still answer UNSUPPORTED_STANDARD).",
    request: evm({ standard: "oif:v1.0_x" })
  },
  {
    id: "locator-object-native",
    description:
      "The object locator {\"native\": ...} gives the same message as the string form of locator-appendix-a.",
    request: locatorForm({ payerLocator: { native: "So1anaPubKeyExample" } })
  },
  {
    id: "locator-key-order",
    description:
      "Locator key order does not matter: nested keys are sorted recursively (canonical JSON) in the message; the normalized request keeps the object as given.",
    request: locatorForm({ recipientLocator: { z: { y: 1, b: [{ d: 2, c: 1 }] }, address: "T-addr", a: null } })
  },
  {
    id: "locator-unicode-newline",
    description:
      "A locator with non-ASCII text and a newline in a value: canonical JSON escapes the newline (no extra message line) and writes the Persian text raw, so the byte length exceeds the character count.",
    request: locatorForm({ recipientLocator: { memo: "line1\nline2", name: "شبکه" } })
  },
  {
    id: "null-identity-fields-evm",
    description:
      "EVM form with explicit null for every unused identity field (as upstream SDKs send): accepted as absent.",
    request: evm({ payerAccountId: null, payerLocator: null, recipientAccountId: null, recipientLocator: null })
  },
  {
    id: "null-identity-fields-locator",
    description: "Account/locator form with payer and recipient explicitly null: accepted as absent.",
    request: locatorForm({ payer: null, recipient: null })
  },
  {
    id: "amount-number",
    description:
      "A safe-integer JSON number amount is written in decimal (library convenience; the HTTP body requires a string).",
    request: evm({ requestedAmountInRaw: 2500000 })
  },
  {
    id: "amount-max",
    description: "The largest amount, 2^128 - 1, is accepted.",
    request: evm({ requestedAmountInRaw: UINT128_MAX })
  },
  {
    id: "key-length-bounds",
    description: "Idempotency key of exactly 8 characters with every allowed punctuation mark (. _ : -).",
    request: evm({ idempotencyKey: "a.b_c:d-" })
  },
  {
    id: "key-max-length",
    description: "Idempotency key of exactly 128 characters.",
    request: evm({ idempotencyKey: "k".repeat(128) })
  },
  {
    id: "request-signature-ignored",
    description: "A requestSignature member in the request is not part of the normalized request or the message.",
    request: evm({ requestSignature: `0x${"55".repeat(65)}` })
  }
]

const messageNegative: ReadonlyArray<MessageSpec> = [
  { id: "request-null", description: "The request is not an object.", request: null },
  {
    id: "quote-id-short",
    description: "quoteId with 63 hex digits.",
    request: evm({ quoteId: `0x${"2".repeat(63)}` })
  },
  { id: "quote-id-no-prefix", description: "quoteId without 0x.", request: evm({ quoteId: "20".repeat(32) }) },
  { id: "quote-id-missing", description: "quoteId missing.", request: without(evm(), "quoteId") },
  {
    id: "order-quote-before-amount",
    description: "Check order: quoteId is checked before the amount.",
    request: evm({ quoteId: "0x20", requestedAmountInRaw: "-1" })
  },
  {
    id: "amount-hex",
    description:
      "Amount in hex (\"0x10\"): refused (the upstream TS SDK's BigInt() would accept it; the HTTP pattern does not).",
    request: evm({ requestedAmountInRaw: "0x10" })
  },
  {
    id: "amount-leading-zero",
    description: "Amount with a leading zero.",
    request: evm({ requestedAmountInRaw: "0100" })
  },
  { id: "amount-negative", description: "Negative amount string.", request: evm({ requestedAmountInRaw: "-1" }) },
  {
    id: "amount-decimal-point",
    description: "Amount with a decimal point.",
    request: evm({ requestedAmountInRaw: "1.5" })
  },
  { id: "amount-empty", description: "Empty amount.", request: evm({ requestedAmountInRaw: "" }) },
  {
    id: "amount-number-fraction",
    description: "Fractional JSON number amount.",
    request: evm({ requestedAmountInRaw: 1.5 })
  },
  {
    id: "amount-number-unsafe",
    description: "JSON number amount beyond 2^53 - 1.",
    request: evm({ requestedAmountInRaw: 1e21 })
  },
  { id: "amount-zero", description: "Amount 0.", request: evm({ requestedAmountInRaw: "0" }) },
  {
    id: "amount-too-large",
    description: "Amount 2^128.",
    request: evm({ requestedAmountInRaw: (1n << 128n).toString() })
  },
  {
    id: "order-identity-before-amount-range",
    description:
      "Check order: the identities are checked before the amount range (amount 0 and no payer -> PAYER_IDENTITY_MISSING).",
    request: without(evm({ requestedAmountInRaw: "0" }), "payer")
  },
  {
    id: "standard-empty",
    description: "Empty standard (not defaulted: only null/absent default to DIRECT).",
    request: evm({ standard: "" })
  },
  { id: "standard-leading-dash", description: "Standard starting with '-'.", request: evm({ standard: "-DIRECT" }) },
  { id: "standard-space", description: "Standard with a space.", request: evm({ standard: "ERC 7683" }) },
  { id: "standard-too-long", description: "Standard of 65 characters.", request: evm({ standard: "S".repeat(65) }) },
  { id: "standard-number", description: "Standard given as a number.", request: evm({ standard: 7683 }) },
  { id: "key-too-short", description: "Idempotency key of 7 characters.", request: evm({ idempotencyKey: "short-7" }) },
  {
    id: "key-too-long",
    description: "Idempotency key of 129 characters.",
    request: evm({ idempotencyKey: "k".repeat(129) })
  },
  {
    id: "key-inner-space",
    description: "Idempotency key with an inner space (only the ends are trimmed).",
    request: evm({ idempotencyKey: "sdk vector 0001" })
  },
  {
    id: "key-whitespace-only",
    description: "Idempotency key of whitespace only (empty after trimming).",
    request: evm({ idempotencyKey: "           " })
  },
  {
    id: "key-non-ascii",
    description: "Idempotency key with non-ASCII letters.",
    request: evm({ idempotencyKey: "ключ-0000001" })
  },
  {
    id: "payer-ambiguous",
    description: "Payer given both as an address and as an account id.",
    request: evm({ payerAccountId: PAYER_ACCOUNT })
  },
  { id: "payer-invalid-short", description: "Payer address with 4 hex digits.", request: evm({ payer: "0x1234" }) },
  {
    id: "payer-invalid-prefix",
    description: "Payer address with an uppercase 0X prefix.",
    request: evm({ payer: `0X${ADDR1.slice(2)}` })
  },
  {
    id: "payer-checksum",
    description: "Mixed-case payer address with a wrong EIP-55 checksum (one letter's case flipped).",
    request: evm({ payer: BAD_CHECKSUM })
  },
  { id: "payer-missing", description: "No payer identity at all.", request: without(evm(), "payer") },
  {
    id: "payer-account-id-missing",
    description: "payerLocator without payerAccountId.",
    request: without(locatorForm(), "payerAccountId")
  },
  {
    id: "payer-locator-missing",
    description: "payerAccountId without payerLocator.",
    request: without(locatorForm(), "payerLocator")
  },
  {
    id: "payer-account-id-invalid",
    description: "payerAccountId that is not bytes32.",
    request: locatorForm({ payerAccountId: "0xabab" })
  },
  {
    id: "payer-locator-array",
    description: "payerLocator given as an array.",
    request: locatorForm({ payerLocator: ["So1anaPubKeyExample"] })
  },
  {
    id: "payer-locator-number",
    description: "payerLocator given as a number.",
    request: locatorForm({ payerLocator: 42 })
  },
  {
    id: "payer-locator-fraction",
    description: "payerLocator whose canonical JSON fails (a fractional number inside).",
    request: locatorForm({ payerLocator: { amount: 1.5 } })
  },
  {
    id: "recipient-ambiguous",
    description: "Recipient given both as an address and with a locator.",
    request: evm({ recipientLocator: { native: "x" } })
  },
  {
    id: "recipient-invalid",
    description: "Recipient address with 41 hex digits.",
    request: evm({ recipient: `0x${"2".repeat(41)}` })
  },
  {
    id: "recipient-checksum",
    description: "Mixed-case recipient address with a wrong EIP-55 checksum.",
    request: evm({ recipient: BAD_CHECKSUM })
  },
  { id: "recipient-missing", description: "No recipient identity at all.", request: without(evm(), "recipient") },
  {
    id: "recipient-account-id-missing",
    description: "recipientLocator without recipientAccountId.",
    request: without(locatorForm(), "recipientAccountId")
  },
  {
    id: "recipient-locator-missing",
    description: "recipientAccountId without recipientLocator (recipientLocator null counts as absent).",
    request: locatorForm({ recipientLocator: null })
  },
  {
    id: "recipient-account-id-invalid",
    description: "recipientAccountId with a non-hex digit.",
    request: locatorForm({ recipientAccountId: `0x${"cd".repeat(31)}zz` })
  },
  {
    id: "recipient-locator-boolean",
    description: "recipientLocator given as a boolean.",
    request: locatorForm({ recipientLocator: true })
  }
]

const buildMessages = (): string => {
  const cases = [...messagePositive.map(buildMessageCase), ...messageNegative.map(buildMessageNegative)]
  return document(
    "Permit request message (docs/protocol.md, Permit request message): the normalized request and the exact UTF-8 message " +
      "(LF-separated, no trailing LF), its EIP-191 personal_sign digest and the requestSignature by signingKey " +
      "(RFC 6979, low-s, v = 27/28; the test keys of feed/vectors.json). Cases with `message` are positive; " +
      "`httpBodyValid` says whether the request is also a valid PermitRequest HTTP body (string locators, number " +
      "amounts and untrimmed keys are library conveniences). Cases with `error` are negative: normalisation fails " +
      "with PermitRequestInvalid {code, field}.",
    cases
  )
}

// ---------------------------------------------------------------------------
// 4. Permits: permitDigest and ABI
// ---------------------------------------------------------------------------

interface PermitSpec {
  readonly route: Route
  readonly name: string
  readonly payer: Hex
  readonly payerAccountId: Hex
  readonly recipient: Hex
  readonly recipientAccountId: Hex
  readonly destinationChainId: string
  readonly destinationAsset: Hex
  readonly destinationVault: Hex
  readonly destinationVaultAccountId: Hex
  readonly validAfter: string
  readonly validUntil: string
  readonly sourceFinalityBlocks: number
  readonly settlementWindowSeconds: number
  readonly amountInRaw: string
  readonly amountOutRaw: string
}

const makePermit = (s: PermitSpec): ExecutionPermit => {
  const r = s.route
  const sourceVault = r.sourceVault!
  const permit: ExecutionPermit = {
    releaseId: RELEASE_ID,
    fillId: fixed(`${s.name} fillId`),
    permitNonce: fixed(`${s.name} permitNonce`),
    sourceNetworkId: r.sourceNetworkId,
    sourceAssetId: r.sourceAssetId,
    destinationNetworkId: r.destinationNetworkId,
    destinationAssetId: r.destinationAssetId,
    sourceVaultAccountId: Ids.evmAccountId(r.sourceNetworkId, sourceVault),
    destinationVaultAccountId: s.destinationVaultAccountId,
    payerAccountId: s.payerAccountId,
    recipientAccountId: s.recipientAccountId,
    routeId: r.routeId,
    quoteId: r.quoteId,
    policyHash: r.policyHash,
    executionGeneration: r.executionGeneration,
    dataVersion: r.dataVersion,
    validAfter: s.validAfter,
    validUntil: s.validUntil,
    sourceFinalityBlocks: s.sourceFinalityBlocks,
    settlementWindowSeconds: s.settlementWindowSeconds,
    sourceChainId: r.sourceChainId!,
    destinationChainId: s.destinationChainId,
    sourceAsset: r.sourceAsset!,
    destinationAsset: s.destinationAsset,
    sourceVault,
    destinationVault: s.destinationVault,
    sourceRouter: r.sourceRouter!,
    payer: s.payer,
    recipient: s.recipient,
    amountInRaw: s.amountInRaw,
    amountOutRaw: s.amountOutRaw,
    publicationLane: r.publicationLane,
    serviceCategory: r.serviceCategory,
    feeMode: r.feeMode,
    serviceFeeBps: r.serviceFeeBps
  }
  if (!schemaValid(ExecutionPermit, permit)) throw new Error(`permit ${s.name} is not schema-valid`)
  return permit
}

const permitBaseBsc = makePermit({
  route: routeBaseBsc,
  name: "permit base-bsc",
  payer: ADDR1,
  payerAccountId: Ids.evmAccountId(BASE.networkId, ADDR1),
  recipient: RECIPIENT,
  recipientAccountId: Ids.evmAccountId(BSC.networkId, RECIPIENT),
  destinationChainId: BSC.chainId,
  destinationAsset: BSC_TOKEN,
  destinationVault: BSC_VAULT,
  destinationVaultAccountId: Ids.evmAccountId(BSC.networkId, BSC_VAULT),
  validAfter: String(GENERATED_AT),
  validUntil: String(GENERATED_AT + 120),
  sourceFinalityBlocks: 2,
  settlementWindowSeconds: 900,
  amountInRaw: "2500000",
  amountOutRaw: "2497500000000000000"
})

const permitBscHyperMax = makePermit({
  route: { ...routeBscHyper, dataVersion: UINT64_MAX },
  name: "permit bsc-hyperevm native extremes",
  payer: ADDR2,
  payerAccountId: Ids.evmAccountId(BSC.networkId, ADDR2),
  recipient: ADDR2,
  recipientAccountId: Ids.evmAccountId(HYPEREVM.networkId, ADDR2),
  destinationChainId: HYPEREVM.chainId,
  destinationAsset: ZERO_ADDRESS,
  destinationVault: HYPER_VAULT,
  destinationVaultAccountId: Ids.evmAccountId(HYPEREVM.networkId, HYPER_VAULT),
  validAfter: "0",
  validUntil: UINT64_MAX,
  sourceFinalityBlocks: 4294967295,
  settlementWindowSeconds: 1,
  amountInRaw: UINT128_MAX,
  amountOutRaw: "1"
})

const permitBaseSolana = makePermit({
  route: routeBaseSolana,
  name: "permit base-solana",
  payer: ADDR1,
  payerAccountId: Ids.evmAccountId(BASE.networkId, ADDR1),
  recipient: ZERO_ADDRESS,
  recipientAccountId: SOLANA_RECIPIENT_ACCOUNT,
  destinationChainId: "0",
  destinationAsset: ZERO_ADDRESS,
  destinationVault: ZERO_ADDRESS,
  destinationVaultAccountId: Ids.accountId(SOLANA.networkId, SOLANA_VAULT_HEX),
  validAfter: String(GENERATED_AT),
  validUntil: String(GENERATED_AT + 120),
  sourceFinalityBlocks: 2,
  settlementWindowSeconds: 900,
  amountInRaw: "5000000",
  amountOutRaw: "4990000"
})

const PERMITS: ReadonlyArray<{ readonly id: string; readonly description: string; readonly permit: ExecutionPermit }> =
  [
    {
      id: "base-bsc",
      description:
        "Base USDC-like token -> BSC token, EVM payer and recipient; ids derived with the svc rules from route three-routes[0] of feed/vectors.json.",
      permit: permitBaseBsc
    },
    {
      id: "bsc-hyperevm-native-extremes",
      description:
        "BSC native coin (zero address) -> HyperEVM native coin, with range extremes: validAfter 0, validUntil and dataVersion 2^64 - 1, sourceFinalityBlocks 2^32 - 1, amountInRaw 2^128 - 1, serviceFeeBps null; signed by the same authority (test key).",
      permit: permitBscHyperMax
    },
    {
      id: "base-solana",
      description:
        "Base -> Solana: the non-EVM destination has zero EVM bindings (destinationChainId \"0\", zero destinationAsset, destinationVault and recipient); the Solana account ids carry the identity.",
      permit: permitBaseSolana
    }
  ]

const AUTHORITY_KEY = KEY1
const AUTHORITY = ADDR1

const EIP712_DOMAIN_TYPE = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"

const word = (value: bigint): string => value.toString(16).padStart(64, "0")

const domainSeparatorOf = (permit: ExecutionPermit): Hex =>
  keccak(fromHex(
    Ids.label(EIP712_DOMAIN_TYPE).slice(2) +
      Ids.label(PermitDigest.DOMAIN_NAME).slice(2) +
      Ids.label(PermitDigest.DOMAIN_VERSION).slice(2) +
      word(BigInt(permit.sourceChainId)) +
      word(BigInt(permit.sourceRouter))
  ))

const structHashOf = (permit: ExecutionPermit): Hex =>
  keccak(fromHex(PermitDigest.TYPEHASH.slice(2) + PermitAbi.encodeTuple(permit).slice(2)))

const digestCase = (id: string, description: string, permit: ExecutionPermit, signature?: Hex): Case => {
  const { permitDigest, permitSignature } = PermitDigest.sign(permit, AUTHORITY_KEY)
  const used = signature ?? permitSignature
  const recovered = ok(PermitDigest.recoverSigner(permit, used), id)
  const domainSeparator = domainSeparatorOf(permit)
  const structHash = structHashOf(permit)
  if (keccak(fromHex(`1901${domainSeparator.slice(2)}${structHash.slice(2)}`)) !== permitDigest) {
    throw new Error(`${id}: EIP-712 parts do not give the digest`)
  }
  const domain = PermitDigest.domainOf(permit)
  return {
    id,
    description,
    permit,
    domain: {
      name: domain.name,
      version: domain.version,
      chainId: domain.chainId.toString(),
      verifyingContract: permit.sourceRouter
    },
    domainSeparator,
    structHash,
    permitDigest,
    signingKey: AUTHORITY_KEY,
    permitSignature: used,
    recoveredSigner: recovered,
    authority: AUTHORITY,
    valid: recovered === AUTHORITY
  }
}

const buildDigest = (): string => {
  const first = PERMITS[0]!.permit
  const firstSignature = PermitDigest.sign(first, AUTHORITY_KEY).permitSignature
  const jsonOnlyChanged: ExecutionPermit = {
    ...first,
    publicationLane: "L4",
    serviceCategory: "SOMETHING_ELSE",
    feeMode: "OTHER_FEE_MODE",
    serviceFeeBps: 9999
  }
  const tupleChanged: ExecutionPermit = { ...first, amountOutRaw: (BigInt(first.amountOutRaw) + 1n).toString() }
  const upperCase: ExecutionPermit = {
    ...first,
    payer: `0x${first.payer.slice(2).toUpperCase()}`,
    sourceRouter: `0x${first.sourceRouter.slice(2).toUpperCase()}`,
    fillId: `0x${first.fillId.slice(2).toUpperCase()}`
  }
  const cases: Array<Case> = [
    {
      id: "type",
      description:
        "The EIP-712 type of ExecutionPermit: the 31 tuple fields in ABI order with their Solidity types, and its typehash; the domain type and its typehash.",
      encodeType: PermitDigest.ENCODE_TYPE,
      typehash: PermitDigest.TYPEHASH,
      domainType: EIP712_DOMAIN_TYPE,
      domainTypehash: Ids.label(EIP712_DOMAIN_TYPE),
      domainName: PermitDigest.DOMAIN_NAME,
      domainVersion: PermitDigest.DOMAIN_VERSION,
      primaryType: "ExecutionPermit",
      fields: PermitAbi.PERMIT_TUPLE_FIELDS.map((f) => ({ name: f.name, type: f.type }))
    },
    ...PERMITS.map((p) => digestCase(p.id, p.description, p.permit)),
    digestCase(
      "json-only-fields-not-covered",
      "base-bsc with the four JSON-only fields changed (publicationLane, serviceCategory, feeMode, serviceFeeBps): same permitDigest, and base-bsc's permitSignature still verifies.",
      jsonOnlyChanged,
      firstSignature
    ),
    digestCase(
      "hex-case-not-covered",
      "base-bsc with payer, sourceRouter (the verifyingContract) and fillId in uppercase hex: EIP-712 hashes bytes, so the digest and the signature are unchanged.",
      upperCase,
      firstSignature
    ),
    digestCase(
      "tuple-field-covered",
      "Negative: base-bsc with amountOutRaw + 1 and base-bsc's signature: the digest changes, so the signature recovers to an unrelated address (valid false).",
      tupleChanged,
      firstSignature
    )
  ]
  const negative = (id: string, description: string, permit: unknown, reasonIncludes: string): Case => {
    const error = errorCase(caught(() => PermitDigest.digest(permit as PermitAbi.AbiPermit)), "PermitAbiError")
    if (!String(error.reason).includes(reasonIncludes)) throw new Error(`${id}: reason ${String(error.reason)}`)
    return { id, description, permit, error: { reasonIncludes } }
  }
  cases.push(
    negative("uint64-overflow", "Negative: validUntil = 2^64 does not fit uint64.", {
      ...first,
      validUntil: (1n << 64n).toString()
    }, "validUntil does not fit uint64"),
    negative(
      "missing-field",
      "Negative: a permit without permitNonce has no digest.",
      without(first as never, "permitNonce"),
      "permitNonce is missing"
    ),
    negative(
      "uint-not-decimal",
      "Negative: amountInRaw \"0x10\" is not a base-10 unsigned integer (the ABI encoding refuses it too).",
      { ...first, amountInRaw: "0x10" },
      "amountInRaw is not an unsigned integer"
    ),
    negative("bad-address", "Negative: sourceRouter \"0x1234\" is not an address.", {
      ...first,
      sourceRouter: "0x1234"
    }, "sourceRouter is not an address")
  )
  return document(
    "permitDigest (svc's decision, docs/protocol.md, permitDigest and permitSignature): EIP-712 hash with primaryType ExecutionPermit (31 tuple fields " +
      "in ABI order) under the domain {name \"Svc V6 Router\", version \"6\", chainId = sourceChainId, " +
      "verifyingContract = sourceRouter}; digest = keccak256(0x1901 || domainSeparator || structHash), structHash = " +
      "keccak256(typehash || the 31 ABI words). permitSignature = secp256k1 over permitDigest by the authority (the " +
      "feed signer; here the Appendix A test key), RFC 6979, low-s, v = 27/28. The JSON-only fields " +
      "publicationLane, serviceCategory, feeMode and serviceFeeBps are not covered. Negative cases carry `error`.",
    cases
  )
}

const abiCase = (id: string, description: string, permit: ExecutionPermit): Case => {
  const permitSignature = PermitDigest.sign(permit, AUTHORITY_KEY).permitSignature
  const payload = PermitAbi.encodePayload(permit, permitSignature)
  const calldata = PermitAbi.encodeFillDirect(permit, permitSignature)
  const decoded = PermitAbi.decodePayload(payload)
  return {
    id,
    description,
    permit,
    permitSignature,
    encodeTuple: PermitAbi.encodeTuple(permit),
    payload,
    payloadByteLength: (payload.length - 2) / 2,
    payloadKeccak256: keccak(fromHex(payload)),
    fillDirectCalldata: calldata,
    previewFillDirectCalldata: `${PermitAbi.PREVIEW_FILL_DIRECT_SELECTOR}${payload.slice(2)}`,
    decoded: { permit: decoded.permit, signature: decoded.signature }
  }
}

const buildAbi = (): string => {
  const first = PERMITS[0]!.permit
  const sig = PermitDigest.sign(first, AUTHORITY_KEY).permitSignature
  const cases: Array<Case> = [
    {
      id: "constants",
      description:
        "The fillDirect signature and selectors (fillDirect 0xeeff9007, previewFillDirect 0xff5da6a9) and the tuple fields in ABI order.",
      fillDirectSignature: PermitAbi.FILL_DIRECT_SIGNATURE,
      fillDirectSelector: PermitAbi.FILL_DIRECT_SELECTOR,
      previewFillDirectSelector: PermitAbi.PREVIEW_FILL_DIRECT_SELECTOR,
      payloadTuple: ["SvcMainnetV6Types.ExecutionPermit permit", "bytes permitSignature"],
      mediaType: "application/vnd.svc.execution-permit-v6+abi",
      fields: PermitAbi.PERMIT_TUPLE_FIELDS.map((f) => ({ name: f.name, type: f.type }))
    },
    ...PERMITS.map((p) =>
      abiCase(
        p.id,
        `${p.description} Tuple (31 words), standard payload (tuple + offset 0x400 + length 0x41 + padded signature = 1152 bytes), calldata (selector + payload) and decoding back (addresses EIP-55, uint32 as numbers, other integers as strings, JSON-only fields absent).`,
        p.permit
      )
    )
  ]
  const negative = (id: string, description: string, permit: unknown, signature: string = sig): Case => {
    const error = errorCase(
      caught(() => PermitAbi.encodePayload(permit as PermitAbi.AbiPermit, signature)),
      "PermitAbiError"
    )
    return {
      id,
      description,
      operation: "encodePayload",
      permit,
      permitSignature: signature,
      error: { reasonIncludes: String(error.reason) }
    }
  }
  const decodeNegative = (
    id: string,
    description: string,
    operation: "decodeFillDirect" | "decodePayload",
    input: string
  ): Case => {
    const f = operation === "decodeFillDirect" ? PermitAbi.decodeFillDirect : PermitAbi.decodePayload
    const error = errorCase(caught(() => f(input)), "PermitAbiError")
    const reason = String(error.reason)
    return {
      id,
      description,
      operation,
      input,
      error: { reasonIncludes: reason.startsWith("not a permit payload") ? "not a permit payload" : reason }
    }
  }
  const calldata = PermitAbi.encodeFillDirect(first, sig)
  cases.push(
    negative("uint64-overflow", "Negative: validUntil = 2^64 does not fit uint64.", {
      ...first,
      validUntil: (1n << 64n).toString()
    }),
    negative("uint32-overflow", "Negative: sourceFinalityBlocks = 2^32 does not fit uint32.", {
      ...first,
      sourceFinalityBlocks: 4294967296
    }),
    negative("uint128-overflow", "Negative: amountInRaw = 2^128 does not fit uint128.", {
      ...first,
      amountInRaw: (1n << 128n).toString()
    }),
    negative("uint-not-decimal", "Negative: amountOutRaw \"1.5\" is not an unsigned integer.", {
      ...first,
      amountOutRaw: "1.5"
    }),
    negative("bad-address", "Negative: sourceRouter \"0x1234\" is not an address.", {
      ...first,
      sourceRouter: "0x1234"
    }),
    negative("bad-bytes32", "Negative: fillId \"0x12\" is not bytes32.", { ...first, fillId: "0x12" }),
    negative("missing-field", "Negative: a permit without recipient.", without(first as never, "recipient")),
    negative("signature-not-hex", "Negative: a permitSignature that is not hex bytes (odd length).", first, "0x123"),
    decodeNegative(
      "wrong-selector",
      "Negative: calldata with another selector.",
      "decodeFillDirect",
      `0x12345678${calldata.slice(10)}`
    ),
    decodeNegative(
      "truncated-payload",
      "Negative: a payload cut to 33 words (tuple, offset and length, but no signature bytes) does not decode.",
      "decodePayload",
      `0x${calldata.slice(10, 10 + 64 * 33)}`
    )
  )
  return document(
    "ExecutionPermit ABI (docs/protocol.md, ExecutionPermit encoding): the 31-field static tuple in ABI order, the standard " +
      "payload abi.encode(ExecutionPermit, bytes) and fillDirect(permit, signature) calldata = selector 0xeeff9007 " +
      "+ payload, for the permits of permit-digest/vectors.json with their real permitSignature. Negative cases " +
      "carry `operation` and `error.reasonIncludes` (PermitAbiError).",
    cases
  )
}

// ---------------------------------------------------------------------------
// 5. Identifiers
// ---------------------------------------------------------------------------

type IdFunction =
  | "vmType"
  | "label"
  | "evmNetworkId"
  | "solanaNetworkId"
  | "networkId"
  | "evmReference"
  | "accountId"
  | "evmAccountId"
  | "assetId"
  | "evmAssetId"
  | "routeId"
  | "quoteId"

const callId = (fn: IdFunction, input: Record<string, unknown>): Hex => {
  const s = (k: string) => input[k] as string
  switch (fn) {
    case "vmType":
      return Ids.vmType(s("name"))
    case "label":
      return Ids.label(s("text"))
    case "evmNetworkId":
      return Ids.evmNetworkId(input.chainId as string)
    case "solanaNetworkId":
      return Ids.solanaNetworkId(s("genesisHash"))
    case "networkId":
      return Ids.networkId(s("vmType"), s("networkReference"))
    case "evmReference":
      return Ids.evmReference(s("address"))
    case "accountId":
      return Ids.accountId(s("networkId"), s("nativeReference"))
    case "evmAccountId":
      return Ids.evmAccountId(s("networkId"), s("address"))
    case "assetId":
      return Ids.assetId(s("networkId"), s("nativeReference"))
    case "evmAssetId":
      return Ids.evmAssetId(s("networkId"), s("tokenAddress"))
    case "routeId":
      return Ids.routeId(input as unknown as Ids.RouteIdInput)
    case "quoteId":
      return Ids.quoteId(input as unknown as Ids.QuoteIdInput)
  }
}

interface IdSpec {
  readonly id: string
  readonly description: string
  readonly function: IdFunction
  readonly input: Record<string, unknown>
  readonly derivation?: string
  readonly extra?: Record<string, unknown>
}

const idCase = (spec: IdSpec): Case => ({
  id: spec.id,
  description: spec.description,
  function: spec.function,
  input: spec.input,
  ...(spec.derivation !== undefined ? { derivation: spec.derivation } : {}),
  ...spec.extra,
  output: callId(spec.function, spec.input)
})

const idNegative = (spec: IdSpec): Case => {
  const error = errorCase(caught(() => callId(spec.function, spec.input)), "IdInputInvalid")
  return {
    id: spec.id,
    description: spec.description,
    function: spec.function,
    input: spec.input,
    error: { field: error.field, reasonIncludes: error.reason }
  }
}

const buildIds = (): string => {
  const USDC_MINT_HEX = base58ToBytes32(USDC_SOLANA_MINT)
  const positive: ReadonlyArray<IdSpec> = [
    {
      id: "vm-type-evm",
      description: "vmType of EVM networks (upstream value).",
      function: "vmType",
      input: { name: "EVM" },
      derivation: "keccak256(utf8(\"EVM\"))"
    },
    {
      id: "vm-type-svm",
      description: "vmType of Solana (SVM) networks.",
      function: "vmType",
      input: { name: "SVM" },
      derivation: "keccak256(utf8(\"SVM\"))"
    },
    {
      id: "release-id",
      description: "The demo releaseId (Appendix A).",
      function: "label",
      input: { text: "SVC_MAINNET_V6" },
      derivation: "keccak256(utf8(\"SVC_MAINNET_V6\"))"
    },
    {
      id: "label-erc7683",
      description: "A label hash (standard ids, salts): keccak256 of the UTF-8 text.",
      function: "label",
      input: { text: "ERC-7683" },
      derivation: "keccak256(utf8(\"ERC-7683\"))"
    },
    ...[["base", "8453"], ["bsc", "56"], ["hyperevm", "999"], ["ethereum", "1"]].map(([name, chainId]): IdSpec => ({
      id: `evm-network-${name}`,
      description: `EVM networkId of chain ${chainId} (svc's derivation; does not equal the upstream published id).`,
      function: "evmNetworkId",
      input: { chainId },
      derivation: `keccak256(abi.encode(bytes32 keccak256("EVM"), uint256 ${chainId}))`
    })),
    {
      id: "evm-network-number-input",
      description: "The chain id may be given as a number: same id as the string \"8453\".",
      function: "evmNetworkId",
      input: { chainId: 8453 },
      derivation: "keccak256(abi.encode(bytes32 keccak256(\"EVM\"), uint256 8453))"
    },
    {
      id: "solana-network-mainnet-beta",
      description: "Solana mainnet-beta networkId from its base58 genesis hash.",
      function: "solanaNetworkId",
      input: { genesisHash: Ids.SOLANA_MAINNET_GENESIS },
      derivation: "keccak256(abi.encode(bytes32 keccak256(\"SVM\"), bytes32 keccak256(utf8(genesisHash))))"
    },
    {
      id: "network-id-generic",
      description:
        "The generic form networkId(vmType, networkReference) with the chain id as a 32-byte word equals evmNetworkId(8453).",
      function: "networkId",
      input: { vmType: Ids.EVM_VM_TYPE, networkReference: `0x${word(8453n)}` },
      derivation: "keccak256(abi.encode(bytes32 vmType, bytes32 networkReference))"
    },
    {
      id: "evm-reference",
      description: "An EVM reference: the address left-padded to 32 bytes, lowercased.",
      function: "evmReference",
      input: { address: ADDR1 },
      derivation: "bytes32(uint256(uint160(address)))"
    },
    {
      id: "evm-reference-zero",
      description: "The zero address (the native coin) as a reference: 32 zero bytes.",
      function: "evmReference",
      input: { address: ZERO_ADDRESS }
    },
    {
      id: "account-evm-base",
      description: "accountId of the test address on Base.",
      function: "evmAccountId",
      input: { networkId: BASE.networkId, address: ADDR1 },
      derivation: "keccak256(abi.encode(bytes32 networkId, bytes32 evmReference(address)))"
    },
    {
      id: "account-evm-base-lowercase",
      description: "Address case does not change the accountId (same as account-evm-base).",
      function: "evmAccountId",
      input: { networkId: BASE.networkId, address: ADDR1.toLowerCase() }
    },
    {
      id: "account-generic-evm",
      description: "The generic accountId with the padded reference equals evmAccountId.",
      function: "accountId",
      input: { networkId: BASE.networkId, nativeReference: Ids.evmReference(ADDR1) },
      derivation: "keccak256(abi.encode(bytes32 networkId, bytes32 nativeAccountReference))"
    },
    {
      id: "account-solana",
      description:
        "accountId of a Solana account: the reference is the 32-byte public key (nativeReferenceBase58 is its base58 form).",
      function: "accountId",
      input: { networkId: SOLANA.networkId, nativeReference: SOLANA_RECIPIENT_HEX },
      derivation: "keccak256(abi.encode(bytes32 networkId, bytes32 publicKey))",
      extra: { nativeReferenceBase58: SOLANA_RECIPIENT }
    },
    {
      id: "asset-native-base",
      description: "assetId of the native coin on Base (zero address).",
      function: "evmAssetId",
      input: { networkId: BASE.networkId, tokenAddress: ZERO_ADDRESS },
      derivation: "keccak256(abi.encode(bytes32 networkId, bytes32 0))"
    },
    {
      id: "asset-native-bsc",
      description: "assetId of the native coin on BSC (zero address).",
      function: "evmAssetId",
      input: { networkId: BSC.networkId, tokenAddress: ZERO_ADDRESS }
    },
    {
      id: "asset-token-base",
      description: "assetId of an ERC-20 token on Base.",
      function: "evmAssetId",
      input: { networkId: BASE.networkId, tokenAddress: BASE_TOKEN },
      derivation: "keccak256(abi.encode(bytes32 networkId, bytes32 evmReference(tokenAddress)))"
    },
    {
      id: "asset-solana-usdc",
      description: "assetId of the USDC mint on Solana: the reference is the mint's 32 bytes (nativeReferenceBase58).",
      function: "assetId",
      input: { networkId: SOLANA.networkId, nativeReference: USDC_MINT_HEX },
      derivation: "keccak256(abi.encode(bytes32 networkId, bytes32 mint))",
      extra: { nativeReferenceBase58: USDC_SOLANA_MINT }
    },
    {
      id: "route-base-bsc",
      description: "routeId of the Base -> BSC route of feed/vectors.json.",
      function: "routeId",
      input: {
        sourceNetworkId: routeBaseBsc.sourceNetworkId,
        sourceAssetId: routeBaseBsc.sourceAssetId,
        destinationNetworkId: routeBaseBsc.destinationNetworkId,
        destinationAssetId: routeBaseBsc.destinationAssetId,
        releaseId: RELEASE_ID
      },
      derivation:
        "keccak256(abi.encode(bytes32 sourceNetworkId, bytes32 sourceAssetId, bytes32 destinationNetworkId, bytes32 destinationAssetId, bytes32 releaseId))"
    },
    {
      id: "route-base-solana",
      description: "routeId of the Base -> Solana route of feed/vectors.json.",
      function: "routeId",
      input: {
        sourceNetworkId: routeBaseSolana.sourceNetworkId,
        sourceAssetId: routeBaseSolana.sourceAssetId,
        destinationNetworkId: routeBaseSolana.destinationNetworkId,
        destinationAssetId: routeBaseSolana.destinationAssetId,
        releaseId: RELEASE_ID
      }
    },
    {
      id: "quote-base-bsc",
      description: "quoteId of the Base -> BSC route of feed/vectors.json (validAfter/validUntil as numbers).",
      function: "quoteId",
      input: {
        routeId: routeBaseBsc.routeId,
        pricingReferenceId: routeBaseBsc.pricingReferenceId,
        validAfter: routeBaseBsc.validAfter,
        validUntil: routeBaseBsc.validUntil,
        executionGeneration: routeBaseBsc.executionGeneration,
        policyHash: routeBaseBsc.policyHash
      },
      derivation:
        "keccak256(abi.encode(bytes32 routeId, bytes32 pricingReferenceId, uint64 validAfter, uint64 validUntil, bytes32 executionGeneration, bytes32 policyHash))"
    },
    {
      id: "quote-max-window",
      description: "quoteId with validAfter 0 and validUntil 2^64 - 1 given as strings.",
      function: "quoteId",
      input: {
        routeId: routeBaseBsc.routeId,
        pricingReferenceId: routeBaseBsc.pricingReferenceId,
        validAfter: "0",
        validUntil: UINT64_MAX,
        executionGeneration: routeBaseBsc.executionGeneration,
        policyHash: routeBaseBsc.policyHash
      }
    }
  ]
  const routeInput = positive.find((c) => c.id === "route-base-bsc")!.input
  const quoteInput = positive.find((c) => c.id === "quote-base-bsc")!.input
  const negative: ReadonlyArray<IdSpec> = [
    {
      id: "chain-id-negative",
      description: "A negative chain id.",
      function: "evmNetworkId",
      input: { chainId: "-1" }
    },
    { id: "chain-id-hex", description: "A chain id in hex.", function: "evmNetworkId", input: { chainId: "0x2105" } },
    {
      id: "chain-id-leading-zero",
      description: "A chain id with a leading zero.",
      function: "evmNetworkId",
      input: { chainId: "08453" }
    },
    {
      id: "chain-id-fraction",
      description: "A fractional chain id.",
      function: "evmNetworkId",
      input: { chainId: 1.5 }
    },
    {
      id: "chain-id-too-large",
      description: "Chain id 2^256 does not fit uint256.",
      function: "evmNetworkId",
      input: { chainId: (1n << 256n).toString() }
    },
    {
      id: "genesis-not-base58",
      description: "A genesis hash with characters outside base58 (0, O, I, l).",
      function: "solanaNetworkId",
      input: { genesisHash: "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl" }
    },
    {
      id: "genesis-too-short",
      description: "A genesis hash shorter than 32 characters.",
      function: "solanaNetworkId",
      input: { genesisHash: "5eykt4UsFv8P8NJd" }
    },
    {
      id: "vm-type-not-bytes32",
      description: "networkId with a vmType that is not bytes32.",
      function: "networkId",
      input: { vmType: "EVM", networkReference: `0x${word(1n)}` }
    },
    {
      id: "network-reference-not-bytes32",
      description: "networkId with a 20-byte network reference.",
      function: "networkId",
      input: { vmType: Ids.EVM_VM_TYPE, networkReference: ADDR1 }
    },
    {
      id: "address-short",
      description: "evmReference of a short address.",
      function: "evmReference",
      input: { address: "0x1234" }
    },
    {
      id: "address-no-prefix",
      description: "evmReference of an address without 0x.",
      function: "evmReference",
      input: { address: ADDR1.slice(2) }
    },
    {
      id: "account-network-invalid",
      description: "evmAccountId with a network id that is not bytes32.",
      function: "evmAccountId",
      input: { networkId: "0x2105", address: ADDR1 }
    },
    {
      id: "account-address-invalid",
      description: "evmAccountId with a 21-byte address.",
      function: "evmAccountId",
      input: { networkId: BASE.networkId, address: `${ADDR1}00` }
    },
    {
      id: "asset-reference-invalid",
      description: "assetId with a reference that is not bytes32.",
      function: "assetId",
      input: { networkId: SOLANA.networkId, nativeReference: USDC_SOLANA_MINT }
    },
    {
      id: "route-release-invalid",
      description: "routeId with a releaseId that is not bytes32.",
      function: "routeId",
      input: { ...routeInput, releaseId: "SVC_MAINNET_V6" }
    },
    {
      id: "route-missing-field",
      description: "routeId without destinationAssetId.",
      function: "routeId",
      input: without(routeInput, "destinationAssetId")
    },
    {
      id: "quote-valid-until-overflow",
      description: "quoteId with validUntil = 2^64.",
      function: "quoteId",
      input: { ...quoteInput, validUntil: (1n << 64n).toString() }
    },
    {
      id: "quote-valid-after-negative",
      description: "quoteId with a negative validAfter.",
      function: "quoteId",
      input: { ...quoteInput, validAfter: -5 }
    },
    {
      id: "quote-policy-invalid",
      description: "quoteId with a policyHash of 63 hex digits.",
      function: "quoteId",
      input: { ...quoteInput, policyHash: `0x${"1".repeat(63)}` }
    }
  ]
  return document(
    "Identifiers (svc's decisions, docs/protocol.md, Identifiers): vmType = keccak256(name); EVM networkId = " +
      "keccak256(abi.encode(bytes32 vmType, uint256 chainId)); Solana networkId = keccak256(abi.encode(bytes32 " +
      "vmType, bytes32 keccak256(utf8(genesisHash)))); accountId / assetId = keccak256(abi.encode(bytes32 networkId, " +
      "bytes32 nativeReference)), EVM references are the address left-padded to 32 bytes (zero address = native " +
      "coin); routeId and quoteId as in `derivation`. Each case names the library `function` and its named " +
      "`input`; positive cases give `output`, negative cases `error` (IdInputInvalid: exact `field`, " +
      "`reasonIncludes` substring).",
    [...positive.map(idCase), ...negative.map(idNegative)]
  )
}

// ---------------------------------------------------------------------------
// READMEs
// ---------------------------------------------------------------------------

interface Folder {
  readonly name: string
  readonly title: string
  readonly build: () => string
  readonly intro: string
  /** Whether a case is negative. */
  readonly negative: (c: Case) => boolean
}

const hasError = (c: Case): boolean => "error" in c

const FOLDERS: ReadonlyArray<Folder> = [
  {
    name: "canonical-json",
    title: "Canonical JSON vectors",
    build: buildCanonical,
    negative: hasError,
    intro: [
      "Canonical JSON is the byte format of the feed hash and of the locators in the permit request message",
      "(docs/protocol.md, Canonical JSON): object keys sorted by UTF-16 code units (JavaScript `sort()`), compact, strings",
      "escaped exactly like `JSON.stringify` (only `\"`, `\\`, U+0000..U+001F and lone surrogates; everything else raw,",
      "then UTF-8), integers only within ±(2^53 - 1), bigints as quoted decimal strings.",
      "",
      "Case fields: `input` (a JSON value; parse it with a JSON parser, never as a JS object literal: see `proto-key`),",
      "or `inputJs` (a JavaScript value JSON text cannot hold, such as `-0`, `undefined`, `NaN`, a sparse array);",
      "`inputBigintPaths` (paths whose string value becomes a bigint before canonicalisation; `[]` is the root);",
      "`output` (the canonical text, positive cases) or `error` `{path, reasonIncludes}` (negative cases: the exact",
      "path of the offending value and a substring of the reason).",
      "",
      "Other languages: `key-order-utf16` is where UTF-16 and code-point key order differ; `line-separators` is where",
      "Go's encoder differs; JSON text `1.0` parses to the integer 1 in JavaScript (and is accepted) but to a float",
      "elsewhere. Signed svc objects avoid all of these (ASCII keys, integers only)."
    ].join("\n")
  },
  {
    name: "feed",
    title: "Signed feed vectors",
    build: buildFeed,
    negative: (c) => c.failureCode !== null,
    intro: [
      "Feed hash and signature (docs/protocol.md, Feed hash and signature): `preimage` = `SVC_MAINNET_V6_SIGNED_FEED_V1` + LF +",
      "`canonicalPayload`; `feedHash` = keccak256(UTF-8 preimage); `feedSignature` = 65-byte secp256k1 `r || s || v`",
      "over feedHash itself (no EIP-191 prefix), RFC 6979, low-s, v = 27/28.",
      "",
      "Keys (public test material, never fund): the Appendix A test key",
      "`keccak256(\"SVC V6 SDK PUBLIC TEST VECTOR KEY - NEVER FUND\")` and a second fixture key",
      "`keccak256(\"SVC FIXTURE KEY 2 - NEVER FUND\")`; each case names its `signingKey`.",
      "",
      "Each case: `feedSignature` = `signatureTransform`(sign(`signedDigest`, `signingKey`)) with the transforms `none`,",
      "`highSTwin` (s' = n - s, v flipped), `v0or1` (v 27/28 written as 0/1), `truncated` (64 bytes);",
      "`verification` = the seven upstream result fields of verifying `{signedPayload, feedHash, feedSignature,",
      "feedSigner}` at `now` (with `expectedSigner` when present); `failureCode` = the first failed check",
      "(hash, then expiry, then signer) or null. `payloadSchemaValid` says the payload decodes strictly as",
      "SignedFeedPayload (every route has the 42 Route fields)."
    ].join("\n")
  },
  {
    name: "permit-message",
    title: "Permit request message vectors",
    build: buildMessages,
    negative: hasError,
    intro: [
      "The permit request message (docs/protocol.md, Permit request message): 7 to 9 lines joined by LF, no trailing LF, UTF-8;",
      "requestSignature = EIP-191 personal_sign over the message bytes.",
      "",
      "Positive cases: `request` (as a client gives it), `normalized` (the library's normalized request in upstream",
      "field order, with null for the unused identity fields and EIP-55 addresses), `message`, `messageLineCount`,",
      "`messageByteLength`, `eip191Digest`, `requestSignature` by `signingKey` (RFC 6979, low-s, v = 27/28) and its",
      "recovered `signer`; `httpBodyValid` says whether `request` is also a valid PermitRequest HTTP body (string",
      "locators, number amounts and keys with surrounding whitespace are library conveniences only).",
      "",
      "Negative cases: `error` `{code, field}` of the PermitRequestInvalid raised by normalisation. Every code is",
      "covered: REQUEST_INVALID, QUOTE_ID_INVALID, AMOUNT_INVALID, AMOUNT_ZERO, AMOUNT_TOO_LARGE, STANDARD_INVALID,",
      "IDEMPOTENCY_KEY_INVALID and, for PAYER_ and RECIPIENT_: IDENTITY_AMBIGUOUS, INVALID, CHECKSUM_INVALID,",
      "IDENTITY_MISSING, ACCOUNT_ID_MISSING, LOCATOR_MISSING, ACCOUNT_ID_INVALID, LOCATOR_INVALID. Check order:",
      "quoteId, amount format, standard, idempotency key, payer, recipient, amount range."
    ].join("\n")
  },
  {
    name: "permit-digest",
    title: "permitDigest and permitSignature vectors",
    build: buildDigest,
    negative: (c) => hasError(c) || c.valid === false,
    intro: [
      "permitDigest is svc's decision (docs/protocol.md, permitDigest and permitSignature; upstream publishes none): EIP-712 with primaryType",
      "`ExecutionPermit` (the 31 tuple fields in ABI order with their Solidity types) under the domain",
      "`{name: \"Svc V6 Router\", version: \"6\", chainId: sourceChainId, verifyingContract: sourceRouter}`.",
      "permitSignature is the authority's (feed signer's) 65-byte signature of permitDigest; here the authority is",
      "the Appendix A test key.",
      "",
      "Case `type` gives encodeType and typehash. Permit cases give the full JSON `permit` (including the four",
      "JSON-only fields), the `domain`, `domainSeparator`, `structHash`, `permitDigest`, `permitSignature`, the",
      "`recoveredSigner`, the `authority` and `valid` (recoveredSigner = authority). Negative cases give `error`",
      "(PermitAbiError reason substring) or `valid: false`."
    ].join("\n")
  },
  {
    name: "abi",
    title: "ExecutionPermit ABI vectors",
    build: buildAbi,
    negative: hasError,
    intro: [
      "The on-chain form of the permits of `../permit-digest/` (docs/protocol.md, ExecutionPermit encoding): `encodeTuple` (31",
      "static words), the standard `payload` = abi.encode(ExecutionPermit, bytes) (1152 bytes for a 65-byte",
      "signature), its `payloadKeccak256`, `fillDirectCalldata` = 0xeeff9007 + payload,",
      "`previewFillDirectCalldata` = 0xff5da6a9 + payload, and `decoded` = decoding the payload back (addresses",
      "EIP-55, uint32 fields as numbers, other integers as decimal strings, JSON-only fields absent).",
      "",
      "Negative cases: `operation` (encodePayload, decodeFillDirect, decodePayload), its input and `error`",
      "`{reasonIncludes}` (PermitAbiError)."
    ].join("\n")
  },
  {
    name: "ids",
    title: "Identifier vectors",
    build: buildIds,
    negative: hasError,
    intro: [
      "Identifier derivations (docs/protocol.md, Identifiers; svc's own, they do not equal the upstream deployment's",
      "published network ids). Each case names the library `function` (Ids module) and its named `input`, a",
      "`derivation` in Solidity terms where useful, and the `output`; Solana references carry their base58 form in",
      "`nativeReferenceBase58`. Negative cases give `error` `{field, reasonIncludes}` (IdInputInvalid)."
    ].join("\n")
  }
]

const cell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ")

const readme = (folder: Folder, text: string): string => {
  const cases = (JSON.parse(text) as { cases: Array<Case> }).cases
  const negatives = cases.filter(folder.negative).length
  const rows = cases.map((c) =>
    `| \`${String(c.id)}\` | ${folder.negative(c) ? "negative" : "positive"} | ${cell(String(c.description))} |`
  )
  return [
    `# ${folder.title}`,
    "",
    `Generated by \`${GENERATOR}\` from the svc core library: do not edit by hand. Rebuild with \`${REBUILD}\``,
    "(`node_modules/.bin/node scripts/fixtures.ts`; `--check` only compares). `packages/protocol/test/fixtures.test.ts`",
    "fails when this folder differs from the generator's output, and re-verifies every case against the library.",
    "",
    folder.intro,
    "",
    `\`vectors.json\`: \`{generator, description, cases}\`, ${cases.length} cases (${
      cases.length - negatives
    } positive, ${negatives} negative).`,
    "",
    "| id | kind | what it proves |",
    "| --- | --- | --- |",
    ...rows,
    ""
  ].join("\n")
}

/**
 * Every generated file: path relative to `fixtures/` -> exact text.
 */
export const buildFixtures = (): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const folder of FOLDERS) {
    const text = folder.build()
    out[`protocol/${folder.name}/vectors.json`] = text
    out[`protocol/${folder.name}/README.md`] = readme(folder, text)
  }
  return out
}

// ---------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------

/** The fixtures folder of the repository. */
export const FIXTURES_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures")

const listFiles = (dir: string, prefix: string): Array<string> => {
  if (!existsSync(dir)) return []
  const out: Array<string> = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = `${prefix}${entry.name}`
    if (entry.isDirectory()) out.push(...listFiles(join(dir, entry.name), `${rel}/`))
    else out.push(rel)
  }
  return out
}

/**
 * Files under fixtures/protocol that differ from the generator's output: changed,
 * missing, or not produced by the generator (stale).
 */
export const differingFiles = (built: Record<string, string> = buildFixtures()): Array<string> => {
  const differing: Array<string> = []
  for (const [rel, text] of Object.entries(built)) {
    const path = join(FIXTURES_DIR, rel)
    if (!existsSync(path)) differing.push(`${rel} (missing)`)
    else if (readFileSync(path, "utf8") !== text) differing.push(`${rel} (differs)`)
  }
  for (const rel of listFiles(join(FIXTURES_DIR, "protocol"), "protocol/")) {
    if (!(rel in built)) differing.push(`${rel} (not produced by the generator)`)
  }
  return differing
}

if (import.meta.main) {
  const built = buildFixtures()
  if (process.argv.includes("--check")) {
    const differing = differingFiles(built)
    if (differing.length > 0) {
      console.error(
        `fixtures differ from ${GENERATOR}; run \`${REBUILD}\`:\n${differing.map((f) => `  ${f}`).join("\n")}`
      )
      process.exit(1)
    }
    console.log(`fixtures up to date (${Object.keys(built).length} files)`)
  } else {
    for (const [rel, text] of Object.entries(built)) {
      const path = join(FIXTURES_DIR, rel)
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, text)
    }
    const stale = differingFiles(built)
    for (const f of stale) console.error(`warning: ${f}`)
    console.log(`wrote ${Object.keys(built).length} files under fixtures/protocol`)
  }
}
