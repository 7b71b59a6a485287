/**
 * The protocol modules the fast start of the protocol commands loads no longer
 * import viem (nor effect's index, nor the schemas): EIP-55, the identifier
 * words, the selectors, the type hash and the ABI coding of the permit payload
 * are written out in @svc/protocol. These properties check them against viem,
 * output and refusal alike.
 */
import { assert, describe, it } from "@effect/vitest"
import { fc, test as fcTest } from "@fast-check/vitest"
import * as Bytes from "@svc/protocol/Bytes"
import * as FeedSignature from "@svc/protocol/FeedSignature"
import * as Ids from "@svc/protocol/Ids"
import * as PermitAbi from "@svc/protocol/PermitAbi"
import * as PermitDigest from "@svc/protocol/PermitDigest"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import * as Signature from "@svc/protocol/Signature"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import {
  decodeAbiParameters,
  encodeAbiParameters,
  getAddress,
  isAddress,
  keccak256,
  stringToBytes,
  toFunctionSelector
} from "viem"
import { privateKeyToAddress } from "viem/accounts"
import { abiPermitArb } from "../../protocol/test/arbitraries.ts"
import { ROOT } from "./support/svc.ts"

const RUNS = { numRuns: 300 }

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString("hex")}` as const
/** Hex digits in a random case. */
const anyCase = (arb: fc.Arbitrary<string>) =>
  fc.tuple(arb, fc.array(fc.boolean(), { minLength: 200, maxLength: 200 })).map(([text, upper]) =>
    `0x${Array.from(text.slice(2), (c, i) => upper[i] ? c.toUpperCase() : c).join("")}`
  )
const address = anyCase(fc.uint8Array({ minLength: 20, maxLength: 20 }).map(hex))
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hex)
const uint = (bits: number) =>
  fc.oneof(
    fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }),
    fc.constantFrom(0n, 1n, (1n << BigInt(bits)) - 1n)
  )

const thrown = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  return undefined
}

describe("EIP-55 without viem", () => {
  fcTest.prop([address], RUNS)("checksumAddress is viem's getAddress", (a) => {
    assert.strictEqual(Bytes.checksumAddress(a), getAddress(a))
    // mixed case: valid exactly when viem's strict isAddress says so
    const body = a.slice(2)
    if (body !== body.toLowerCase() && body !== body.toUpperCase()) {
      assert.strictEqual(PermitMessage.hasValidChecksum(a), isAddress(a))
    }
  })

  it("refuses what getAddress refuses, with its first line", () => {
    for (const bad of ["", "0x", "0x12", `0x${"g".repeat(40)}`, `${"0".repeat(42)}`, `0x${"0".repeat(41)}`]) {
      const ours = thrown(() => Bytes.checksumAddress(bad)) as Error
      const theirs = thrown(() => getAddress(bad)) as Error
      assert.instanceOf(ours, Error, bad)
      assert.strictEqual(ours.message, theirs.message.split("\n")[0], bad)
    }
  })

  fcTest.prop([fc.uint8Array({ minLength: 32, maxLength: 32 })], { numRuns: 25 })(
    "the address of a key is viem's",
    (seed) => {
      const key = hex(seed)
      fc.pre(BigInt(key) > 0n && BigInt(key) < Signature.SECP256K1_N)
      assert.strictEqual(Signature.addressOf(key), privateKeyToAddress(key))
    }
  )
})

describe("identifiers without viem", () => {
  const words = (types: ReadonlyArray<string>, values: ReadonlyArray<unknown>) =>
    keccak256(encodeAbiParameters(types.map((type) => ({ type })), values as never))

  fcTest.prop([uint(256)], RUNS)("evmNetworkId", (chainId) => {
    assert.strictEqual(Ids.evmNetworkId(chainId), words(["bytes32", "uint256"], [Ids.EVM_VM_TYPE, chainId]))
  })

  fcTest.prop([bytes32, bytes32, uint(64), uint(64), bytes32, bytes32], RUNS)(
    "quoteId, routeId, accountId",
    (a, b, after, until, c, d) => {
      assert.strictEqual(
        Ids.quoteId({
          routeId: a.toUpperCase().replace("0X", "0x"),
          pricingReferenceId: b,
          validAfter: after,
          validUntil: String(until),
          executionGeneration: c,
          policyHash: d
        }),
        words(["bytes32", "bytes32", "uint64", "uint64", "bytes32", "bytes32"], [a, b, after, until, c, d])
      )
      assert.strictEqual(
        Ids.routeId({
          sourceNetworkId: a,
          sourceAssetId: b,
          destinationNetworkId: c,
          destinationAssetId: d,
          releaseId: a
        }),
        words(["bytes32", "bytes32", "bytes32", "bytes32", "bytes32"], [a, b, c, d, a])
      )
      assert.strictEqual(Ids.accountId(a, b), words(["bytes32", "bytes32"], [a, b]))
    }
  )
})

describe("permit constants without viem", () => {
  it("selectors, type hash and feed domain", () => {
    assert.strictEqual(PermitAbi.FILL_DIRECT_SELECTOR, toFunctionSelector(PermitAbi.FILL_DIRECT_SIGNATURE))
    assert.strictEqual(PermitAbi.FILL_DIRECT_SELECTOR, "0xeeff9007")
    assert.strictEqual(PermitAbi.PREVIEW_FILL_DIRECT_SELECTOR, "0xff5da6a9")
    assert.strictEqual(PermitDigest.TYPEHASH, keccak256(stringToBytes(PermitDigest.ENCODE_TYPE)))
    assert.strictEqual(FeedSignature.FEED_DOMAIN, "SVC_MAINNET_V6_SIGNED_FEED_V1")
  })
})

const PAYLOAD_PARAMS = [
  { type: "tuple", components: PermitAbi.PERMIT_TUPLE_FIELDS },
  { type: "bytes" }
] as const

/** What viem encodes for a permit the encoder accepts (addresses and bytes32 lowercased, uints as bigints). */
const viemPayload = (permit: PermitAbi.AbiPermit, signature: string) => {
  const values: Record<string, unknown> = {}
  for (const { name, type } of PermitAbi.PERMIT_TUPLE_FIELDS) {
    const value = permit[name]
    values[name] = type.startsWith("uint") ? BigInt(value) : String(value).toLowerCase()
  }
  return encodeAbiParameters(PAYLOAD_PARAMS, [values as never, signature as `0x${string}`])
}

/** What viem decodes, in the form decodePayload gives (uint32 numbers, other uints base-10 strings). */
const viemDecoded = (payload: string) => {
  const [tuple, signature] = decodeAbiParameters(PAYLOAD_PARAMS, payload as `0x${string}`)
  const permit: Record<string, unknown> = {}
  for (const { name, type } of PermitAbi.PERMIT_TUPLE_FIELDS) {
    const value = (tuple as Record<string, unknown>)[name]
    permit[name] = type === "uint32" ? Number(value) : type.startsWith("uint") ? String(value) : value
  }
  return { permit, signature }
}

const signatureBytes = anyCase(fc.uint8Array({ maxLength: 100 }).map(hex))

const abiVectors = JSON.parse(readFileSync(join(ROOT, "fixtures/protocol/abi/vectors.json"), "utf8"))
const vectorPayload: string = (abiVectors.cases as Array<any>).find((c) => typeof c.payload === "string").payload

/** The outcome of decodePayload and of viem on one input agree (the refusals that come before decoding aside). */
const sameDecoding = (payload: string) => {
  let ours: unknown
  const error = thrown(() => {
    ours = PermitAbi.decodePayload(payload)
  })
  if (error === undefined) {
    assert.deepStrictEqual(ours, viemDecoded(payload))
    return
  }
  assert.instanceOf(error, PermitAbi.PermitAbiError)
  const reason = (error as PermitAbi.PermitAbiError).reason
  const prefix = "not a permit payload: "
  if (!reason.startsWith(prefix)) return // not hex, or a word with bits above its type: refused before decoding
  const theirs = thrown(() => viemDecoded(payload)) as Error
  assert.instanceOf(theirs, Error, `viem decodes what decodePayload refuses: ${reason}`)
  assert.strictEqual(reason.slice(prefix.length), theirs.message.split("\n")[0])
}

const setWord = (payload: string, i: number, word: string) =>
  `${payload.slice(0, 2 + 64 * i)}${word}${payload.slice(2 + 64 * (i + 1))}`
const wordOf = (n: bigint) => n.toString(16).padStart(64, "0")

describe("permit payload without viem", () => {
  fcTest.prop([abiPermitArb, signatureBytes], RUNS)("encodePayload is viem's abi.encode", (permit, signature) => {
    const payload = PermitAbi.encodePayload(permit, signature)
    assert.strictEqual(payload, viemPayload(permit, signature))
    assert.strictEqual(PermitAbi.encodeTuple(permit), `0x${payload.slice(2, 2 + 64 * 31)}`)
    sameDecoding(payload)
  })

  fcTest.prop(
    [
      fc.oneof(
        fc.bigInt({ min: 0n, max: 2000n }),
        fc.constantFrom(0n, 32n, 992n, 1024n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 256n - 1n)
      ),
      fc.oneof(
        fc.bigInt({ min: 0n, max: 200n }),
        fc.constantFrom(0n, 65n, 128n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 255n)
      ),
      fc.nat({ max: 1400 })
    ],
    RUNS
  )("offset, length and size: the same permit or the same refusal", (offset, length, cut) => {
    const changed = setWord(setWord(vectorPayload, 31, wordOf(offset)), 32, wordOf(length))
    for (
      const payload of [
        changed,
        changed.slice(0, 2 + 2 * Math.min(cut, (changed.length - 2) / 2)),
        `${changed}${"00".repeat(cut % 97)}`
      ]
    ) {
      sameDecoding(payload)
    }
  })

  fcTest.prop([fc.uint8Array({ maxLength: 1300 })], RUNS)("random bytes: the same permit or the same refusal", (b) => {
    sameDecoding(hex(b))
  })

  it("the edges: empty, short, one word, the head only, a zero-length signature", () => {
    const empty = setWord(vectorPayload, 32, wordOf(0n)).slice(0, 2 + 64 * 33)
    for (
      const payload of [
        "0x",
        "0x00",
        `0x${"00".repeat(31)}`,
        `0x${"00".repeat(32)}`,
        vectorPayload.slice(0, 2 + 64 * 31),
        vectorPayload.slice(0, 2 + 64 * 32),
        empty
      ]
    ) {
      sameDecoding(payload)
    }
    assert.strictEqual(PermitAbi.decodePayload(empty).signature, "0x")
  })
})
