/**
 * The golden fixtures of fixtures/protocol:
 *
 * (a) the generator's output is deterministic and well formed (that the committed
 *     files equal it byte for byte is the drift test's, test/codegen.test.ts);
 * (b) every case read from disk is re-verified against the library and, where the
 *     computation is small, against an independent re-implementation in this file
 *     (keccak / secp256k1 from @noble, hand-written ABI words, EIP-712, EIP-191,
 *     the upstream canonical JSON algorithm, base58).
 */
import { assert, describe, it } from "@effect/vitest"
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { keccak_256 } from "@noble/hashes/sha3.js"
import { Result } from "effect"
import { readFileSync } from "node:fs"
import { buildFixtures } from "../../../scripts/fixtures.ts"
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
  Signature,
  SignedFeedPayload
} from "../src/index.ts"

type Hex = `0x${string}`
/** Fixture cases are untyped JSON. */
type Any = any

const fixturesDir = new URL("../../../fixtures/", import.meta.url)
const read = (rel: string): string => readFileSync(new URL(rel, fixturesDir), "utf8")
const load = (folder: string): { generator: string; description: string; cases: Array<Any> } =>
  JSON.parse(read(`protocol/${folder}/vectors.json`))

// ---------------------------------------------------------------------------
// Independent helpers
// ---------------------------------------------------------------------------

const bytes = (hex: string): Uint8Array =>
  Uint8Array.from(Buffer.from(hex.startsWith("0x") ? hex.slice(2) : hex, "hex"))
const hexOf = (b: Uint8Array): Hex => `0x${Buffer.from(b).toString("hex")}`
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)
const keccakHex = (data: Uint8Array | string): Hex => hexOf(keccak_256(typeof data === "string" ? bytes(data) : data))
const keccakText = (text: string): Hex => keccakHex(utf8(text))
const word = (n: bigint): string => n.toString(16).padStart(64, "0")
const concat = (...hexes: Array<string>): string =>
  `0x${hexes.map((h) => (h.startsWith("0x") ? h.slice(2) : h)).join("")}`

const SECP_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** Lowercase address of a private key. */
const addressOfKey = (key: string): string =>
  hexOf(keccak_256(secp256k1.getPublicKey(bytes(key), false).subarray(1)).subarray(12))

/** Lenient recovery (accepts high-s), lowercase address, or null. */
const recoverLenient = (digest: string, sig: string): string | null => {
  if (!/^0x[0-9a-fA-F]{130}$/.test(sig)) return null
  const r = BigInt(`0x${sig.slice(2, 66)}`)
  const s = BigInt(`0x${sig.slice(66, 130)}`)
  const v = Number.parseInt(sig.slice(130), 16)
  if (![0, 1, 27, 28].includes(v)) return null
  try {
    const point = new secp256k1.Signature(r, s).addRecoveryBit(v >= 27 ? v - 27 : v).recoverPublicKey(bytes(digest))
    return hexOf(keccak_256(point.toRawBytes(false).subarray(1)).subarray(12))
  } catch {
    return null
  }
}

/** Recovery as svc specifies it: low-s only, r and s in range. */
const recoverStrict = (digest: string, sig: string): string | null => {
  if (!/^0x[0-9a-fA-F]{130}$/.test(sig)) return null
  const r = BigInt(`0x${sig.slice(2, 66)}`)
  const s = BigInt(`0x${sig.slice(66, 130)}`)
  if (r === 0n || r >= SECP_N || s === 0n || s > SECP_N >> 1n) return null
  return recoverLenient(digest, sig)
}

const lower = (value: unknown): string | null => (typeof value === "string" ? value.toLowerCase() : null)

/** The upstream reference algorithm (sdks/typescript canonicalJson), written out again. */
const upstreamCanonical = (value: Any): string => {
  if (typeof value === "bigint") return `"${value.toString()}"`
  if (Array.isArray(value)) return `[${value.map(upstreamCanonical).join(",")}]`
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${upstreamCanonical(value[k])}`).join(",")}}`
  }
  return JSON.stringify(value)
}

const personalDigest = (message: string): Hex => {
  const body = utf8(message)
  return keccakHex(new Uint8Array([...utf8(`\x19Ethereum Signed Message:\n${body.length}`), ...body]))
}

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
/** base58 -> 32 bytes (byte-wise long multiplication). */
const base58Decode32 = (text: string): Hex => {
  const out: Array<number> = []
  for (const c of text) {
    let carry = B58.indexOf(c)
    assert.isAtLeast(carry, 0)
    for (let i = 0; i < out.length; i++) {
      carry += out[i]! * 58
      out[i] = carry & 0xff
      carry >>= 8
    }
    while (carry > 0) {
      out.push(carry & 0xff)
      carry >>= 8
    }
  }
  for (const c of text) {
    if (c !== "1") break
    out.push(0)
  }
  assert.isAtMost(out.length, 32)
  return `0x${Buffer.from(out.reverse()).toString("hex").padStart(64, "0")}`
}

/** One ABI word of a tuple field. */
const abiWord = (type: string, value: unknown): string => {
  if (type === "address") return word(BigInt(String(value)))
  if (type === "bytes32") {
    assert.match(String(value), /^0x[0-9a-fA-F]{64}$/)
    return String(value).slice(2).toLowerCase()
  }
  return word(BigInt(String(value)))
}

const tupleWords = (permit: Any): string =>
  concat(...PermitAbi.PERMIT_TUPLE_FIELDS.map((f) => abiWord(f.type, permit[f.name])))

const isValid = (schema: Parameters<typeof decodeStrict>[0], value: unknown): boolean =>
  Result.isSuccess(decodeStrict(schema)(value))

const thrown = (f: () => unknown): Any => {
  try {
    f()
  } catch (error) {
    return error
  }
  return assert.fail("expected an error")
}

// ---------------------------------------------------------------------------
// (a) the generator's output
// ---------------------------------------------------------------------------

describe("fixtures/protocol is what scripts/fixtures.ts generates", () => {
  const built = buildFixtures()

  it("builds every folder with a vectors.json and a README.md", () => {
    for (const folder of ["canonical-json", "feed", "permit-message", "permit-digest", "abi", "ids"]) {
      assert.isString(built[`protocol/${folder}/vectors.json`])
      assert.isString(built[`protocol/${folder}/README.md`])
    }
    for (const rel of Object.keys(built)) {
      assert.isTrue(rel.startsWith("protocol/"), `${rel} is outside fixtures/protocol`)
    }
  })

  it("is deterministic", () => {
    assert.deepStrictEqual(buildFixtures(), built)
  })

  it("files are 2-space JSON with a trailing newline and the common header", () => {
    for (const [rel, text] of Object.entries(built)) {
      if (!rel.endsWith(".json")) continue
      const doc = JSON.parse(text)
      assert.deepStrictEqual(Object.keys(doc), ["generator", "description", "cases"])
      assert.strictEqual(doc.generator, "scripts/fixtures.ts")
      assert.strictEqual(text, `${JSON.stringify(doc, null, 2)}\n`)
      const ids = doc.cases.map((c: Any) => c.id)
      assert.strictEqual(new Set(ids).size, ids.length, `${rel}: duplicate case ids`)
      for (const c of doc.cases) assert.isString(c.description)
    }
  })
})

// ---------------------------------------------------------------------------
// (b) canonical JSON
// ---------------------------------------------------------------------------

/** The JavaScript values named by `inputJs` (kept apart from the generator's table on purpose). */
const jsInputs: Record<string, () => unknown> = {
  "-0": () => -0,
  "[-0, 0, -1]": () => [-0, 0, -1],
  "Object.assign(Object.create(null), { b: 1, a: 2 })": () => Object.assign(Object.create(null), { b: 1, a: 2 }),
  "undefined": () => undefined,
  "{ a: undefined }": () => ({ a: undefined }),
  // oxlint-disable-next-line no-sparse-arrays -- a sparse array, on purpose
  "[1, , 3]": () => [1, , 3],
  "NaN": () => Number.NaN,
  "Infinity": () => Number.POSITIVE_INFINITY,
  "-Infinity": () => Number.NEGATIVE_INFINITY,
  "() => 1": () => () => 1,
  "Symbol(\"s\")": () => Symbol("s"),
  "new Date(0)": () => new Date(0),
  "new Map([[\"a\", 1]])": () => new Map([["a", 1]]),
  "{ n: 0.1 + 0.2 }": () => ({ n: 0.1 + 0.2 })
}

const canonicalInput = (c: Any): unknown => {
  if (c.inputJs !== undefined) {
    const make = jsInputs[c.inputJs]
    assert.isDefined(make, `unknown inputJs ${c.inputJs}: add it to the table of fixtures.test.ts`)
    return make!()
  }
  // a JSON round trip keeps lone surrogates and own "__proto__" keys
  let root: Any = JSON.parse(JSON.stringify(c.input))
  for (const path of c.inputBigintPaths ?? []) {
    if (path.length === 0) {
      root = BigInt(root)
      continue
    }
    let parent = root
    for (const key of path.slice(0, -1)) parent = parent[key]
    parent[path.at(-1)] = BigInt(parent[path.at(-1)])
  }
  return root
}

describe("fixtures: canonical JSON", () => {
  const { cases } = load("canonical-json")

  it("has positive and negative cases", () => {
    assert.isAtLeast(cases.filter((c) => "output" in c).length, 20)
    assert.isAtLeast(cases.filter((c) => "error" in c).length, 10)
  })

  for (const c of cases) {
    it(`${c.id}`, () => {
      const value = canonicalInput(c)
      if ("output" in c) {
        assert.strictEqual(CanonicalJson.stringify(value), c.output)
        assert.strictEqual(upstreamCanonical(value), c.output, "the upstream reference algorithm agrees")
        assert.deepStrictEqual(CanonicalJson.toBytes(value), utf8(c.output))
      } else {
        const result = CanonicalJson.stringifyResult(value)
        assert.isTrue(Result.isFailure(result), "expected no canonical form")
        if (Result.isFailure(result)) {
          assert.strictEqual(result.failure.path, c.error.path)
          assert.include(result.failure.reason, c.error.reasonIncludes)
        }
      }
    })
  }

  it("__proto__ read from JSON text is an own key", () => {
    const c = cases.find((x) => x.id === "proto-key")
    const parsed = JSON.parse(read("protocol/canonical-json/vectors.json")).cases.find((x: Any) => x.id === "proto-key")
    assert.isTrue(Object.hasOwn(parsed.input, "__proto__"))
    assert.strictEqual(CanonicalJson.stringify(parsed.input), c.output)
  })

  it("the Appendix A vector agrees with fixtures/upstream", () => {
    const upstream = JSON.parse(read("upstream/appendix-a.json"))
    const c = cases.find((x) => x.id === "appendix-a")
    assert.deepStrictEqual(c.input, upstream.canonicalJson.input)
    assert.strictEqual(c.output, upstream.canonicalJson.output)
  })
})

// ---------------------------------------------------------------------------
// (b) feed
// ---------------------------------------------------------------------------

const transformSignature = (sig: string, how: string): string => {
  switch (how) {
    case "none":
      return sig
    case "highSTwin": {
      const s = BigInt(`0x${sig.slice(66, 130)}`)
      const v = sig.slice(130) === "1b" ? "1c" : "1b"
      return `${sig.slice(0, 66)}${word(SECP_N - s)}${v}`
    }
    case "v0or1":
      return `${sig.slice(0, 130)}${sig.slice(130) === "1b" ? "00" : "01"}`
    case "truncated":
      return sig.slice(0, 130)
    default:
      return assert.fail(`unknown signatureTransform ${how}`)
  }
}

describe("fixtures: feed", () => {
  const { cases } = load("feed")

  it("covers valid feeds and every failure code", () => {
    const codes = new Set(cases.map((c) => c.failureCode))
    for (const code of [null, "SVC_SDK_FEED_HASH_MISMATCH", "SVC_SDK_FEED_EXPIRED", "SVC_SDK_FEED_SIGNER_MISMATCH"]) {
      assert.isTrue(codes.has(code), `no case with failureCode ${code}`)
    }
    assert.isTrue(cases.some((c) => c.signedPayload.routes.length === 0))
    assert.isTrue(cases.some((c) => c.signedPayload.routes.length === 3))
  })

  for (const c of cases) {
    it(`${c.id}`, () => {
      // canonical payload, preimage, hash
      assert.strictEqual(CanonicalJson.stringify(c.signedPayload), c.canonicalPayload)
      assert.strictEqual(upstreamCanonical(c.signedPayload), c.canonicalPayload)
      assert.strictEqual(c.preimage, `SVC_MAINNET_V6_SIGNED_FEED_V1\n${c.canonicalPayload}`)
      assert.strictEqual(FeedSignature.preimageText(c.signedPayload), c.preimage)
      const computedHash = keccakText(c.preimage)
      assert.strictEqual(FeedSignature.hash(c.signedPayload), computedHash)
      assert.strictEqual(c.verification.computedHash, computedHash)
      assert.strictEqual(c.verification.expectedHash, c.feedHash)
      assert.strictEqual(isValid(SignedFeedPayload, c.signedPayload), c.payloadSchemaValid)

      // the signature is reproducible from its recipe
      const signed = Signature.signDigest(c.signedDigest, c.signingKey)
      const raw = secp256k1.sign(bytes(c.signedDigest), bytes(c.signingKey), { prehash: false, lowS: true })
      assert.strictEqual(
        signed,
        `${hexOf(raw.toCompactRawBytes())}${raw.recovery === 0 ? "1b" : "1c"}`,
        "RFC 6979 signature matches @noble directly"
      )
      assert.strictEqual(transformSignature(signed, c.signatureTransform), c.feedSignature)
      if (c.signatureTransform !== "truncated") {
        assert.strictEqual(recoverLenient(c.signedDigest, c.feedSignature), addressOfKey(c.signingKey))
      }

      // the library's verification
      const feed = {
        signedPayload: c.signedPayload,
        feedHash: c.feedHash,
        feedSignature: c.feedSignature,
        feedSigner: c.feedSigner
      }
      const options = c.expectedSigner === undefined ? { now: c.now } : { now: c.now, expectedSigner: c.expectedSigner }
      const result = FeedSignature.verify(feed, options)
      assert.isTrue(Result.isSuccess(result))
      if (Result.isSuccess(result)) {
        assert.deepStrictEqual(result.success, c.verification)
        assert.strictEqual(FeedSignature.failureCode(result.success) ?? null, c.failureCode)
      }

      // the same verdict, derived independently
      const recovered = recoverStrict(computedHash, c.feedSignature)
      assert.strictEqual(lower(c.verification.recoveredSigner), recovered)
      const declared = lower(c.feedSigner)
      const expected = lower(c.expectedSigner ?? c.feedSigner)
      assert.strictEqual(lower(c.verification.declaredSigner), declared)
      assert.strictEqual(lower(c.verification.expectedSigner), expected)
      const expired = !(c.signedPayload.validUntil > c.now)
      assert.strictEqual(c.verification.expired, expired)
      const valid = computedHash === c.feedHash.toLowerCase() && recovered !== null && recovered === declared &&
        declared === expected && c.signedPayload.generatedAt <= c.now && !expired
      assert.strictEqual(c.verification.valid, valid)
      assert.strictEqual(c.failureCode === null, valid)
      if (valid) assert.strictEqual(recovered, addressOfKey(c.signingKey))
    })
  }

  it("a high-s twin recovers to the signer leniently but svc refuses it", () => {
    const c = cases.find((x) => x.id === "high-s-twin")
    assert.strictEqual(recoverLenient(c.feedHash, c.feedSignature), addressOfKey(c.signingKey))
    assert.isNull(c.verification.recoveredSigner)
  })

  it("every route is schema-valid and carries ids derived with the svc rules", () => {
    for (const c of cases) {
      for (const route of c.signedPayload.routes) {
        assert.strictEqual(Object.keys(route).length, 42)
        assert.strictEqual(
          route.routeId,
          Ids.routeId({ ...route, releaseId: c.signedPayload.releaseId })
        )
        assert.strictEqual(route.quoteId, Ids.quoteId(route))
      }
    }
  })
})

// ---------------------------------------------------------------------------
// (b) permit request message
// ---------------------------------------------------------------------------

/** The message of a normalized request, written out again from docs/protocol.md, Permit request message (Lines). */
const independentMessage = (n: Any): string => {
  const lines = [
    "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1",
    `quoteId=${n.quoteId.toLowerCase()}`,
    `requestedAmountInRaw=${n.requestedAmountInRaw}`,
    `standard=${n.standard.toUpperCase()}`
  ]
  for (const side of ["payer", "recipient"]) {
    if (n[side] !== null) lines.push(`${side}=${n[side].toLowerCase()}`)
    else {lines.push(
        `${side}AccountId=${n[`${side}AccountId`].toLowerCase()}`,
        `${side}Locator=${upstreamCanonical(n[`${side}Locator`])}`
      )}
  }
  lines.push(`idempotencyKey=${n.idempotencyKey}`)
  return lines.join("\n")
}

/** Every PermitRequestInvalid code that PermitMessage.ts can raise, read from its source. */
const permitRequestCodes = (): Array<string> => {
  const source = readFileSync(new URL("../src/PermitMessage.ts", import.meta.url), "utf8")
  const codes = new Set<string>()
  for (const m of source.matchAll(/invalid\(\s*(?:"([A-Z_]+)"|`\$\{(?:S|sideCode\(side\))\}(_[A-Z_]+)`)/g)) {
    if (m[1] !== undefined) codes.add(m[1])
    else for (const side of ["PAYER", "RECIPIENT"]) codes.add(`${side}${m[2]}`)
  }
  return [...codes].sort()
}

describe("fixtures: permit request message", () => {
  const { cases } = load("permit-message")
  const positive = cases.filter((c) => !("error" in c))
  const negative = cases.filter((c) => "error" in c)

  it("negative cases cover every PermitRequestInvalid code of PermitMessage.ts", () => {
    const codes = permitRequestCodes()
    assert.isAtLeast(codes.length, 20)
    const covered = new Set(negative.map((c) => c.error.code))
    for (const code of codes) assert.isTrue(covered.has(code), `no negative case for ${code}`)
  })

  it("covers 7-, 8- and 9-line messages", () => {
    assert.deepStrictEqual([...new Set(positive.map((c) => c.messageLineCount))].sort(), [7, 8, 9])
  })

  for (const c of positive) {
    it(`${c.id}`, () => {
      const message = PermitMessage.build(c.request)
      assert.strictEqual(message, c.message)
      assert.deepStrictEqual(PermitMessage.normalize(c.request), c.normalized)
      assert.strictEqual(independentMessage(c.normalized), c.message)
      assert.strictEqual(message.split("\n").length, c.messageLineCount)
      assert.strictEqual(utf8(message).length, c.messageByteLength)
      assert.notInclude(message, "\r")
      assert.isFalse(message.endsWith("\n"))
      assert.strictEqual(Signature.personalMessageDigest(message), c.eip191Digest)
      assert.strictEqual(personalDigest(message), c.eip191Digest)
      assert.strictEqual(PermitMessage.sign(message, c.signingKey), c.requestSignature)
      assert.deepStrictEqual(PermitMessage.recoverSigner(message, c.requestSignature), Result.succeed(c.signer))
      assert.strictEqual(recoverStrict(c.eip191Digest, c.requestSignature), c.signer.toLowerCase())
      assert.strictEqual(addressOfKey(c.signingKey), c.signer.toLowerCase())
      assert.strictEqual(isValid(PermitRequest, c.request), c.httpBodyValid)
    })
  }

  for (const c of negative) {
    it(`${c.id} -> ${c.error.code}`, () => {
      const result = PermitMessage.normalizeResult(c.request)
      assert.isTrue(Result.isFailure(result), "expected PermitRequestInvalid")
      if (Result.isFailure(result)) {
        assert.strictEqual(result.failure._tag, "PermitRequestInvalid")
        assert.strictEqual(result.failure.code, c.error.code)
        assert.strictEqual(result.failure.field, c.error.field)
      }
    })
  }

  it("the Appendix A requests agree with fixtures/upstream", () => {
    const upstream = JSON.parse(read("upstream/appendix-a.json"))
    for (
      const [id, name] of [["evm-appendix-a", "permitRequestEvm"], [
        "locator-appendix-a",
        "permitRequestLocator"
      ]] as const
    ) {
      const c = positive.find((x) => x.id === id)
      assert.deepStrictEqual(c.request, upstream[name].request)
      assert.strictEqual(c.message, upstream[name].message)
      assert.strictEqual(c.eip191Digest, upstream[name].eip191Digest)
      assert.strictEqual(c.requestSignature, upstream[name].requestSignature)
      assert.strictEqual(c.signingKey, upstream.testKey.privateKey)
    }
  })

  it("string and object locators give the same message", () => {
    const a = positive.find((x) => x.id === "locator-appendix-a")
    const b = positive.find((x) => x.id === "locator-object-native")
    assert.strictEqual(a.message, b.message)
  })
})

// ---------------------------------------------------------------------------
// (b) permitDigest
// ---------------------------------------------------------------------------

const EIP712_DOMAIN = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"

describe("fixtures: permitDigest", () => {
  const { cases } = load("permit-digest")
  const type = cases.find((c) => c.id === "type")
  const permits = cases.filter((c) => "permitDigest" in c)
  const negative = cases.filter((c) => "error" in c)

  it("type: encodeType, typehash, domain type", () => {
    assert.deepStrictEqual(type.fields, PermitAbi.PERMIT_TUPLE_FIELDS.map((f) => ({ name: f.name, type: f.type })))
    assert.strictEqual(type.fields.length, 31)
    assert.strictEqual(
      type.encodeType,
      `ExecutionPermit(${type.fields.map((f: Any) => `${f.type} ${f.name}`).join(",")})`
    )
    assert.strictEqual(type.encodeType, PermitDigest.ENCODE_TYPE)
    assert.strictEqual(type.typehash, keccakText(type.encodeType))
    assert.strictEqual(type.typehash, PermitDigest.TYPEHASH)
    assert.strictEqual(type.domainType, EIP712_DOMAIN)
    assert.strictEqual(type.domainTypehash, keccakText(EIP712_DOMAIN))
    assert.strictEqual(type.domainName, "Svc V6 Router")
    assert.strictEqual(type.domainVersion, "6")
  })

  for (const c of permits) {
    it(`${c.id}`, () => {
      const p = c.permit
      assert.isTrue(isValid(ExecutionPermit, p), "the permit is a schema-valid ExecutionPermit")
      assert.deepStrictEqual(c.domain, {
        name: "Svc V6 Router",
        version: "6",
        chainId: p.sourceChainId,
        verifyingContract: p.sourceRouter
      })
      const domainSeparator = keccakHex(concat(
        keccakText(EIP712_DOMAIN),
        keccakText(c.domain.name),
        keccakText(c.domain.version),
        word(BigInt(c.domain.chainId)),
        word(BigInt(c.domain.verifyingContract))
      ))
      const structHash = keccakHex(concat(type.typehash, tupleWords(p)))
      const digest = keccakHex(concat("1901", domainSeparator, structHash))
      assert.strictEqual(c.domainSeparator, domainSeparator)
      assert.strictEqual(c.structHash, structHash)
      assert.strictEqual(c.permitDigest, digest)
      assert.strictEqual(PermitDigest.digest(p), digest)
      const recovered = PermitDigest.recoverSigner(p, c.permitSignature)
      assert.deepStrictEqual(recovered, Result.succeed(c.recoveredSigner))
      assert.strictEqual(recoverStrict(digest, c.permitSignature), c.recoveredSigner.toLowerCase())
      assert.strictEqual(addressOfKey(c.signingKey), c.authority.toLowerCase())
      assert.strictEqual(c.valid, c.recoveredSigner === c.authority)
      if (c.valid) assert.strictEqual(PermitDigest.sign(p, c.signingKey).permitSignature, c.permitSignature)
    })
  }

  it("the JSON-only fields and hex case are not covered; a tuple field is", () => {
    const base = permits.find((c) => c.id === "base-bsc")
    const jsonOnly = permits.find((c) => c.id === "json-only-fields-not-covered")
    const hexCase = permits.find((c) => c.id === "hex-case-not-covered")
    const tuple = permits.find((c) => c.id === "tuple-field-covered")
    for (const key of ["publicationLane", "serviceCategory", "feeMode", "serviceFeeBps"]) {
      assert.notDeepEqual(jsonOnly.permit[key], base.permit[key], key)
    }
    assert.strictEqual(jsonOnly.permitDigest, base.permitDigest)
    assert.strictEqual(jsonOnly.permitSignature, base.permitSignature)
    assert.isTrue(jsonOnly.valid)
    assert.strictEqual(hexCase.permitDigest, base.permitDigest)
    assert.isTrue(hexCase.valid)
    assert.notStrictEqual(tuple.permitDigest, base.permitDigest)
    assert.strictEqual(tuple.permitSignature, base.permitSignature)
    assert.isFalse(tuple.valid)
  })

  for (const c of negative) {
    it(`${c.id} (negative)`, () => {
      const error = thrown(() => PermitDigest.digest(c.permit))
      assert.strictEqual(error._tag, "PermitAbiError")
      assert.include(error.reason, c.error.reasonIncludes)
    })
  }
})

// ---------------------------------------------------------------------------
// (b) ABI
// ---------------------------------------------------------------------------

const selector = (signature: string): string => keccakText(signature).slice(0, 10)

describe("fixtures: permit ABI", () => {
  const { cases } = load("abi")
  const constants = cases.find((c) => c.id === "constants")
  const positive = cases.filter((c) => "payload" in c)
  const negative = cases.filter((c) => "error" in c)
  const digests = load("permit-digest").cases

  it("constants", () => {
    const tuple = `(${constants.fields.map((f: Any) => f.type).join(",")})`
    assert.strictEqual(constants.fillDirectSignature, `fillDirect(${tuple},bytes)`)
    assert.strictEqual(constants.fillDirectSignature, PermitAbi.FILL_DIRECT_SIGNATURE)
    assert.strictEqual(constants.fillDirectSelector, "0xeeff9007")
    assert.strictEqual(selector(constants.fillDirectSignature), constants.fillDirectSelector)
    assert.strictEqual(PermitAbi.FILL_DIRECT_SELECTOR, constants.fillDirectSelector)
    assert.strictEqual(constants.previewFillDirectSelector, "0xff5da6a9")
    assert.strictEqual(selector(`previewFillDirect(${tuple},bytes)`), constants.previewFillDirectSelector)
    assert.strictEqual(PermitAbi.PREVIEW_FILL_DIRECT_SELECTOR, constants.previewFillDirectSelector)
    assert.deepStrictEqual(constants.fields, PermitAbi.PERMIT_TUPLE_FIELDS.map((f) => ({ name: f.name, type: f.type })))
  })

  for (const c of positive) {
    it(`${c.id}`, () => {
      const p = c.permit
      const sig = c.permitSignature
      // the signature is the permit's real permitSignature
      const digestCase = digests.find((d: Any) => d.id === c.id)
      assert.strictEqual(sig, digestCase.permitSignature)
      assert.strictEqual(recoverStrict(PermitDigest.digest(p), sig), digestCase.authority.toLowerCase())

      const words = tupleWords(p)
      assert.strictEqual(c.encodeTuple, words)
      assert.strictEqual(PermitAbi.encodeTuple(p), words)
      const sigBody = sig.slice(2)
      const payload = concat(words, word(0x400n), word(BigInt(sigBody.length / 2)), sigBody.padEnd(192, "0"))
      assert.strictEqual(c.payload, payload)
      assert.strictEqual(PermitAbi.encodePayload(p, sig), payload)
      assert.strictEqual(c.payloadByteLength, 1152)
      assert.strictEqual((payload.length - 2) / 2, c.payloadByteLength)
      assert.strictEqual(c.payloadKeccak256, keccakHex(payload))
      assert.strictEqual(c.fillDirectCalldata, concat(constants.fillDirectSelector, payload))
      assert.strictEqual(PermitAbi.encodeFillDirect(p, sig), c.fillDirectCalldata)
      assert.strictEqual(c.previewFillDirectCalldata, concat(constants.previewFillDirectSelector, payload))

      assert.deepStrictEqual(PermitAbi.decodePayload(c.payload), c.decoded)
      assert.deepStrictEqual(PermitAbi.decodeFillDirect(c.fillDirectCalldata), c.decoded)
      assert.strictEqual(c.decoded.signature, sig)
      assert.deepStrictEqual(Object.keys(c.decoded.permit), PermitAbi.PERMIT_TUPLE_FIELDS.map((f) => f.name))
      for (const { name, type } of PermitAbi.PERMIT_TUPLE_FIELDS) {
        const decoded = c.decoded.permit[name]
        if (type === "address") assert.strictEqual(decoded.toLowerCase(), p[name].toLowerCase(), name)
        else if (type === "uint32") assert.strictEqual(decoded, p[name], name)
        else if (type.startsWith("uint")) assert.strictEqual(decoded, String(p[name]), name)
        else assert.strictEqual(decoded, p[name].toLowerCase(), name)
      }
    })
  }

  for (const c of negative) {
    it(`${c.id} (negative)`, () => {
      const run = c.operation === "encodePayload"
        ? () => PermitAbi.encodePayload(c.permit, c.permitSignature)
        : c.operation === "decodeFillDirect"
        ? () => PermitAbi.decodeFillDirect(c.input)
        : c.operation === "decodePayload"
        ? () => PermitAbi.decodePayload(c.input)
        : () => assert.fail(`unknown operation ${c.operation}`)
      const error = thrown(run)
      assert.strictEqual(error._tag, "PermitAbiError")
      assert.include(error.reason, c.error.reasonIncludes)
    })
  }
})

// ---------------------------------------------------------------------------
// (b) identifiers
// ---------------------------------------------------------------------------

const callId = (fn: string, input: Any): string => {
  switch (fn) {
    case "vmType":
      return Ids.vmType(input.name)
    case "label":
      return Ids.label(input.text)
    case "evmNetworkId":
      return Ids.evmNetworkId(input.chainId)
    case "solanaNetworkId":
      return Ids.solanaNetworkId(input.genesisHash)
    case "networkId":
      return Ids.networkId(input.vmType, input.networkReference)
    case "evmReference":
      return Ids.evmReference(input.address)
    case "accountId":
      return Ids.accountId(input.networkId, input.nativeReference)
    case "evmAccountId":
      return Ids.evmAccountId(input.networkId, input.address)
    case "assetId":
      return Ids.assetId(input.networkId, input.nativeReference)
    case "evmAssetId":
      return Ids.evmAssetId(input.networkId, input.tokenAddress)
    case "routeId":
      return Ids.routeId(input)
    case "quoteId":
      return Ids.quoteId(input)
    default:
      return assert.fail(`unknown function ${fn}`)
  }
}

const padAddress = (address: string): string => word(BigInt(address))

/** The derivations of docs/protocol.md, Identifiers, written out again. */
const independentId = (fn: string, input: Any): string => {
  const EVM = keccakText("EVM")
  switch (fn) {
    case "vmType":
      return keccakText(input.name)
    case "label":
      return keccakText(input.text)
    case "evmNetworkId":
      return keccakHex(concat(EVM, word(BigInt(input.chainId))))
    case "solanaNetworkId":
      return keccakHex(concat(keccakText("SVM"), keccakText(input.genesisHash)))
    case "networkId":
      return keccakHex(concat(input.vmType, input.networkReference))
    case "evmReference":
      return `0x${padAddress(input.address)}`
    case "accountId":
    case "assetId":
      return keccakHex(concat(input.networkId, input.nativeReference))
    case "evmAccountId":
      return keccakHex(concat(input.networkId, padAddress(input.address)))
    case "evmAssetId":
      return keccakHex(concat(input.networkId, padAddress(input.tokenAddress)))
    case "routeId":
      return keccakHex(
        concat(
          input.sourceNetworkId,
          input.sourceAssetId,
          input.destinationNetworkId,
          input.destinationAssetId,
          input.releaseId
        )
      )
    case "quoteId":
      return keccakHex(concat(
        input.routeId,
        input.pricingReferenceId,
        word(BigInt(input.validAfter)),
        word(BigInt(input.validUntil)),
        input.executionGeneration,
        input.policyHash
      ))
    default:
      return assert.fail(`unknown function ${fn}`)
  }
}

describe("fixtures: identifiers", () => {
  const { cases } = load("ids")
  const positive = cases.filter((c) => "output" in c)
  const negative = cases.filter((c) => "error" in c)

  for (const c of positive) {
    it(`${c.id}`, () => {
      assert.strictEqual(callId(c.function, c.input), c.output)
      assert.strictEqual(independentId(c.function, c.input), c.output)
      if (c.nativeReferenceBase58 !== undefined) {
        assert.strictEqual(base58Decode32(c.nativeReferenceBase58), c.input.nativeReference)
      }
    })
  }

  for (const c of negative) {
    it(`${c.id} (negative)`, () => {
      const error = thrown(() => callId(c.function, c.input))
      assert.strictEqual(error._tag, "IdInputInvalid")
      assert.strictEqual(error.field, c.error.field)
      assert.include(error.reason, c.error.reasonIncludes)
    })
  }

  it("agrees with the upstream values and with the other fixture files", () => {
    const byId = (id: string) => positive.find((c) => c.id === id)!.output
    const upstream = JSON.parse(read("upstream/appendix-a.json"))
    assert.strictEqual(byId("vm-type-evm"), "0x9c73caa427dcc7a3ba321dd9ec93943758502b982786658421fd1e094bf2b5f3")
    assert.strictEqual(byId("release-id"), upstream.releaseId.value)
    assert.strictEqual(byId("evm-network-number-input"), byId("evm-network-base"))
    assert.strictEqual(byId("network-id-generic"), byId("evm-network-base"))
    assert.strictEqual(byId("account-evm-base-lowercase"), byId("account-evm-base"))
    assert.strictEqual(byId("account-generic-evm"), byId("account-evm-base"))
    const threeRoutes = load("feed").cases.find((c) => c.id === "three-routes").signedPayload.routes
    assert.strictEqual(byId("route-base-bsc"), threeRoutes[0].routeId)
    assert.strictEqual(byId("route-base-solana"), threeRoutes[1].routeId)
    assert.strictEqual(byId("quote-base-bsc"), threeRoutes[0].quoteId)
    assert.strictEqual(byId("evm-network-base"), threeRoutes[0].sourceNetworkId)
    assert.strictEqual(byId("evm-network-bsc"), threeRoutes[0].destinationNetworkId)
    assert.strictEqual(byId("solana-network-mainnet-beta"), threeRoutes[1].destinationNetworkId)
    assert.strictEqual(byId("asset-solana-usdc"), threeRoutes[1].destinationAssetId)
    assert.strictEqual(byId("asset-native-bsc"), threeRoutes[2].sourceAssetId)
  })
})
