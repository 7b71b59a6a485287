/**
 * The second derivation (src/Independent.ts): it reproduces every Appendix A
 * value and every golden vector of fixtures/protocol/, it agrees with
 * @svc/protocol on random inputs (including what both refuse), and it imports
 * nothing but viem.
 */
import { describe, expect, it } from "@effect/vitest"
import { fc, test } from "@fast-check/vitest"
import { CanonicalJson, Ids, PermitAbi, PermitDigest, PermitMessage, Signature } from "@svc/protocol"
import { Result } from "effect"
import { readFileSync } from "node:fs"
import { getAddress, recoverAddress } from "viem"
import { extractImports } from "../../scripts/module-graph.ts"
import * as I from "../src/Independent.ts"

const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 200)
// signing and recovering cost milliseconds each
const SLOW_RUNS = Math.max(10, Math.floor(NUM_RUNS / 4))

type Hex = `0x${string}`

const root = new URL("../../", import.meta.url)
const readJson = (path: string): any => JSON.parse(readFileSync(new URL(path, root), "utf8"))
const A = readJson("fixtures/upstream/appendix-a.json")
const cases = (folder: string): ReadonlyArray<any> => readJson(`fixtures/protocol/${folder}/vectors.json`).cases

/** The outcome of a derivation: its value, or the code it refused with ("refused" when it has none). */
const outcome = (f: () => unknown): { readonly value: unknown } | { readonly refused: string } => {
  try {
    return { value: f() }
  } catch (error) {
    const code = (error as { code?: unknown }).code
    return { refused: typeof code === "string" ? code : "refused" }
  }
}

/** Both refuse (any reason) or both give the same value. */
const sameOutcome = (a: () => unknown, b: () => unknown) => {
  const x = outcome(a)
  const y = outcome(b)
  if ("refused" in x || "refused" in y) {
    expect({ harness: "refused" in x, second: "refused" in y }).toEqual({ harness: true, second: true })
  } else {
    expect(y.value).toEqual(x.value)
  }
}

const unwrap = <A, E>(r: Result.Result<A, E>): A => {
  if (Result.isFailure(r)) throw r.failure
  return r.success
}

describe("Independent imports", () => {
  it("imports nothing but viem (never @svc/*)", () => {
    const source = readFileSync(new URL("../src/Independent.ts", import.meta.url), "utf8")
    const found = extractImports(source)
    const specifiers = [...found.imports, ...found.typeOnly].map((i) => i.specifier)
    expect(found.dynamicComputed).toEqual([])
    expect(specifiers.filter((s) => s.startsWith("@svc/"))).toEqual([])
    expect([...new Set(specifiers)]).toEqual(["viem"])
    // and no textual escape hatch (the module comment may name the package it stands beside)
    expect(source).not.toMatch(/(?:from|import\()\s*["'`]@svc\//)
    expect(source).not.toMatch(/\brequire\(|createRequire/)
  })
})

describe("Appendix A (fixtures/upstream/appendix-a.json)", () => {
  it("test key and releaseId", () => {
    const text = JSON.parse(/^keccak256\(utf8\((".*")\)\)$/.exec(A.testKey.derivation)![1]!) as string
    expect(I.label(text)).toBe(A.testKey.privateKey)
    expect(I.addressOfPrivateKey(A.testKey.privateKey)).toBe(A.testKey.address)
    expect(I.releaseId("SVC_MAINNET_V6")).toBe(A.releaseId.value)
    expect(I.releaseId()).toBe(A.releaseId.value)
    expect(I.labels.demoReleaseId).toBe(A.releaseId.value)
  })

  it("canonical JSON", () => {
    expect(I.canonicalJson(A.canonicalJson.input)).toBe(A.canonicalJson.output)
    expect(new TextEncoder().encode(I.canonicalJson(A.canonicalJson.input)).length).toBe(64)
  })

  it("feed: canonical payload, preimage, feedHash, raw-digest signer", () => {
    expect(I.canonicalJson(A.feed.signedPayload)).toBe(A.feed.canonicalPayload)
    expect(I.feedPreimage(A.feed.signedPayload)).toBe(`SVC_MAINNET_V6_SIGNED_FEED_V1\n${A.feed.canonicalPayload}`)
    expect(I.feedHash(A.feed.signedPayload)).toBe(A.feed.feedHash)
    expect(I.recoverFeedSigner(A.feed.feedHash, A.feed.feedSignature)).toBe(A.feed.feedSigner)
    // over the EIP-191 digest of the hash the same signature names someone else
    expect(I.recoverRequestSigner(A.feed.feedHash, A.feed.feedSignature)).not.toBe(A.feed.feedSigner)
  })

  it.each(["permitRequestEvm", "permitRequestLocator"])("%s: message, EIP-191 digest, signer", (name) => {
    const v = A[name]
    const message = I.permitRequestMessage(v.request)
    expect(message).toBe(v.message)
    expect(I.eip191Digest(message)).toBe(v.eip191Digest)
    expect(I.recoverRequestSigner(message, v.requestSignature)).toBe(A.testKey.address)
    if (v.messageBytes !== undefined) expect(new TextEncoder().encode(message).length).toBe(v.messageBytes)
    expect(message.split("\n")).toHaveLength(name === "permitRequestEvm" ? 7 : 9)
  })

  it("abi: selectors and the calldata layout words", async () => {
    expect(I.selectors.fillDirect).toBe(A.abi.fillDirectSelector)
    expect(I.selectors.previewFillDirect).toBe(A.abi.previewFillDirectSelector)
    expect(I.selectors.resolveExecution).toBe(A.abi.resolveExecutionSelector)
    const permit = cases("abi").find((c) => c.id === "base-bsc")!
    const calldata = I.fillDirectCalldata(permit.permit, permit.permitSignature)
    const word = (i: number) => `0x${BigInt(`0x${calldata.slice(10 + 64 * i, 10 + 64 * (i + 1))}`).toString(16)}`
    expect(word(31)).toBe(A.abi.signatureOffsetWord)
    expect(word(32)).toBe(A.abi.signatureLengthWord)
    expect((calldata.length - 2) / 2).toBe(4 + 1152)
  })
})

describe("the golden vectors of fixtures/protocol/", () => {
  const setPath = (value: any, path: ReadonlyArray<string | number>, f: (x: any) => any): any => {
    if (path.length === 0) return f(value)
    let node = value
    for (const key of path.slice(0, -1)) node = node[key]
    node[path.at(-1)!] = f(node[path.at(-1)!])
    return value
  }

  it.each(cases("canonical-json").map((c) => [c.id, c] as const))("canonical-json/%s", (_, c) => {
    // oxlint-disable-next-line no-eval
    let input = c.inputJs !== undefined ? (0, eval)(`(${c.inputJs})`) : structuredClone(c.input)
    for (const path of c.inputBigintPaths ?? []) input = setPath(input, path, (s) => BigInt(s))
    if (c.error !== undefined) {
      expect(() => I.canonicalJson(input)).toThrow(expect.objectContaining({ field: c.error.path }))
    } else {
      expect(I.canonicalJson(input)).toBe(c.output)
    }
  })

  it.each(cases("feed").map((c) => [c.id, c] as const))("feed/%s", (_, c) => {
    expect(I.canonicalJson(c.signedPayload)).toBe(c.canonicalPayload)
    expect(I.feedPreimage(c.signedPayload)).toBe(c.preimage)
    const hash = I.feedHash(c.signedPayload)
    expect(hash).toBe(c.verification.computedHash)
    const recovered = outcome(() => I.recoverFeedSigner(hash, c.feedSignature))
    expect("value" in recovered ? recovered.value : null).toBe(c.verification.recoveredSigner)
  })

  it.each(cases("permit-message").map((c) => [c.id, c] as const))("permit-message/%s", (_, c) => {
    if (c.error !== undefined) {
      expect(() => I.permitRequestMessage(c.request)).toThrow(
        expect.objectContaining({ code: c.error.code, field: c.error.field })
      )
      return
    }
    expect(I.normalizePermitRequest(c.request)).toEqual(c.normalized)
    expect(I.permitRequestMessage(c.request)).toBe(c.message)
    if (c.eip191Digest !== undefined) expect(I.eip191Digest(c.message)).toBe(c.eip191Digest)
    if (c.requestSignature !== undefined) expect(I.recoverRequestSigner(c.message, c.requestSignature)).toBe(c.signer)
  })

  it.each(cases("ids").map((c) => [c.id, c] as const))("ids/%s", (_, c) => {
    const fn = (I as unknown as Record<string, (...args: Array<unknown>) => unknown>)[c.function]!
    const call = () =>
      c.function === "routeId" || c.function === "quoteId"
        ? fn(c.input)
        : c.function === "label"
        ? I.label(c.input.text)
        : fn(...Object.values(c.input))
    if (c.error !== undefined) {
      expect(call).toThrow(expect.objectContaining({ code: "ID_INPUT_INVALID", field: c.error.field }))
    } else {
      expect(call()).toBe(c.output)
    }
  })

  it.each(cases("permit-digest").map((c) => [c.id, c] as const))("permit-digest/%s", (_, c) => {
    if (c.id === "type") {
      expect(I.PERMIT_ENCODE_TYPE).toBe(c.encodeType)
      expect(I.PERMIT_TYPEHASH).toBe(c.typehash)
      expect(I.EIP712_DOMAIN_TYPEHASH).toBe(c.domainTypehash)
      return
    }
    if (c.error !== undefined) {
      expect(() => I.permitDigest(c.permit)).toThrow(I.IndependentError)
      return
    }
    expect(I.permitDigest(c.permit)).toBe(c.permitDigest)
    const domain = I.permitDomain(c.permit)
    expect({ ...domain, chainId: String(domain.chainId) }).toEqual({
      ...c.domain,
      verifyingContract: c.domain.verifyingContract.toLowerCase()
    })
    expect(I.recoverPermitSigner(c.permit, c.permitSignature)).toBe(c.recoveredSigner)
  })

  it.each(cases("abi").map((c) => [c.id, c] as const))("abi/%s", (_, c) => {
    if (c.id === "constants") {
      expect(I.functionSignatures.fillDirect).toBe(c.fillDirectSignature)
      expect(I.selectors.fillDirect).toBe(c.fillDirectSelector)
      expect(I.selectors.previewFillDirect).toBe(c.previewFillDirectSelector)
      expect(I.PERMIT_FIELDS).toEqual(c.fields)
      return
    }
    if (c.error !== undefined) {
      const run: Record<string, () => unknown> = {
        encodePayload: () => I.permitPayload(c.permit, c.permitSignature),
        encodeTuple: () => I.permitTuple(c.permit),
        decodePayload: () => I.decodePermitPayload(c.input),
        decodeFillDirect: () => I.decodeFillDirect(c.input)
      }
      expect(run[c.operation]).toBeDefined()
      expect(run[c.operation]!).toThrow(I.IndependentError)
      return
    }
    expect(I.permitTuple(c.permit)).toBe(c.encodeTuple)
    expect(I.permitPayload(c.permit, c.permitSignature)).toBe(c.payload)
    expect(I.fillDirectCalldata(c.permit, c.permitSignature)).toBe(c.fillDirectCalldata)
    expect(`${I.selectors.previewFillDirect}${c.payload.slice(2)}`).toBe(c.previewFillDirectCalldata)
    expect(I.decodePermitPayload(c.payload)).toEqual(c.decoded)
    expect(I.decodeFillDirect(c.fillDirectCalldata)).toEqual(c.decoded)
  })
})

describe("constants derived from text", () => {
  it("equal the values docs/protocol.md and the upstream material state", () => {
    expect(I.selectors).toMatchObject({
      fillDirect: "0xeeff9007",
      previewFillDirect: "0xff5da6a9",
      resolveExecution: "0xe55814c5",
      resolve: "0xe4056186",
      standardId: "0x6838c23c",
      supportsInterface: "0x01ffc9a7",
      router: "0xf887ea40",
      compatibilityLevel: "0x4658e14b",
      describeMandate: "0xd3528a0f",
      discoveryURI: "0x5b9b12c1",
      isLive: "0xb8f7a665",
      systemState: "0x991292e3",
      routeCount: "0xbf539cb4",
      routeAt: "0xd7194164",
      route: "0x95bc81be"
    })
    expect(I.topics.SourceFillV6).toBe("0x77d880254b141dedc64867f6d2d253eedfc609837b892c4ddfe154a43ea80561")
    expect(I.interfaceIds).toEqual({ erc165: "0x01ffc9a7", standardModule: "0x8d60d6f9" })
    expect(I.labels).toEqual({
      erc7683StandardId: "0x27ecffeeec898dbaf864fc095016ad6212d7a27e32a3069234a4a1da23f50993",
      oifStandardId: "0x3de00a2eccd5b86df839b3747bda483b2de2a855d640eb3d4938d6d43cb162c0",
      oifCompatibilityLevelId: "0x733ae58d730378b55d837e45d20e05882481ab7715890fd971ee75f1cd63643c",
      facadeSalt: "0x1ef1dfed1bcc3525e588ba9054fcd502b8b69ae550ac3e2aa6c0f206ddf3e0ca",
      evmVmType: "0x9c73caa427dcc7a3ba321dd9ec93943758502b982786658421fd1e094bf2b5f3",
      demoReleaseId: "0xb5115358e9045400030f2f70150cdb65f2fa9bbb8def79319cf4caac9c3490da"
    })
    expect(I.PERMIT_TYPEHASH).toBe("0x3c56605fd6ff9654c2b2f2d45652c34594e5ccd621bef0f8eda9352aff52f499")
    expect(I.EIP712_DOMAIN_TYPEHASH).toBe("0x8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f")
    expect([I.EIP712_DOMAIN_NAME, I.EIP712_DOMAIN_VERSION]).toEqual(["Svc V6 Router", "6"])
  })
})

describe("refusals of the second path", () => {
  const feedHash = A.feed.feedHash as Hex
  const signature = A.feed.feedSignature as Hex

  it("signatures: high-s twin, bad v, out of range, malformed, not a curve point", () => {
    const code = (f: () => unknown) => (outcome(f) as { refused: string }).refused
    expect(code(() => I.recoverFeedSigner(feedHash, Signature.highSTwin(signature)))).toBe("SIGNATURE_HIGH_S")
    expect(code(() => I.recoverFeedSigner(feedHash, `${signature.slice(0, 130)}1d`))).toBe("SIGNATURE_BAD_V")
    expect(code(() => I.recoverFeedSigner(feedHash, `0x${"00".repeat(32)}${signature.slice(66)}`))).toBe(
      "SIGNATURE_OUT_OF_RANGE"
    )
    expect(code(() => I.recoverFeedSigner(feedHash, signature.slice(0, -2)))).toBe("SIGNATURE_MALFORMED")
    expect(code(() => I.recoverFeedSigner("0x1234", signature))).toBe("DIGEST_INVALID")
    // r = 5 is not the x coordinate of a point of secp256k1 (5^3 + 7 = 132 is not a square mod p)
    expect(code(() => I.recoverFeedSigner(feedHash, `0x${"5".padStart(64, "0")}${signature.slice(66)}`))).toBe(
      "SIGNATURE_UNRECOVERABLE"
    )
    // v = 0/1 is v = 27/28
    expect(I.recoverFeedSigner(feedHash, `${signature.slice(0, 130)}00`)).toBe(A.feed.feedSigner)
  })

  it("a feed without the schema constant or a routes array", () => {
    expect(() => I.feedHash({ ...A.feed.signedPayload, schema: "X" })).toThrow(
      expect.objectContaining({ code: "FEED_INVALID" })
    )
    expect(() => I.feedHash({ ...A.feed.signedPayload, routes: {} })).toThrow(
      expect.objectContaining({ code: "FEED_INVALID" })
    )
    expect(() => I.feedHash([])).toThrow(expect.objectContaining({ code: "FEED_INVALID" }))
  })

  it("a standard outside the spec's pattern, even when uppercasing would make it ASCII", () => {
    const request = { ...A.permitRequestEvm.request }
    // U+0131 (dotless i) uppercases to "I": the spec pattern is ASCII-only
    expect(() => I.permitRequestMessage({ ...request, standard: "d\u0131rect" })).toThrow(
      expect.objectContaining({ code: "STANDARD_INVALID" })
    )
    expect(I.permitRequestMessage({ ...request, standard: "direct" })).toContain("\nstandard=DIRECT\n")
  })

  it("a payload that is not the canonical abi.encode (trailing bytes, other offset)", () => {
    const c = cases("abi").find((x) => x.id === "base-bsc")!
    expect(() => I.decodePermitPayload(`${c.payload}00`)).toThrow(expect.objectContaining({ code: "PAYLOAD_INVALID" }))
    expect(() => I.decodePermitPayload(`${c.payload}${"00".repeat(32)}`)).toThrow(
      expect.objectContaining({ code: "PAYLOAD_INVALID" })
    )
    const words = c.payload.slice(2).match(/.{64}/g) as Array<string>
    // offset 0x420 pointing at a copy of the length word one word later
    const moved = [...words.slice(0, 31), "420".padStart(64, "0"), "0".repeat(64), ...words.slice(32)]
    expect(() => I.decodePermitPayload(`0x${moved.join("")}`)).toThrow(
      expect.objectContaining({ code: "PAYLOAD_INVALID" })
    )
    // a dirty word inside the tuple (uint32 sourceFinalityBlocks, word 18)
    const dirty = [...words]
    dirty[18] = `01${dirty[18]!.slice(2)}`
    expect(() => I.decodePermitPayload(`0x${dirty.join("")}`)).toThrow(
      expect.objectContaining({ code: "PAYLOAD_INVALID" })
    )
    expect(() => I.decodeFillDirect(`0x12345678${c.payload.slice(2)}`)).toThrow(
      expect.objectContaining({ code: "CALLDATA_INVALID" })
    )
  })

  it("canonical JSON: cycles", () => {
    const a: Record<string, unknown> = {}
    a.self = a
    expect(() => I.canonicalJson(a)).toThrow(expect.objectContaining({ code: "NO_CANONICAL_FORM", field: "$.self" }))
    const shared = { x: 1 }
    expect(I.canonicalJson({ a: shared, b: [shared] })).toBe("{\"a\":{\"x\":1},\"b\":[{\"x\":1}]}")
  })
})

// ---------------------------------------------------------------------------
// Agreement with @svc/protocol on random inputs
// ---------------------------------------------------------------------------

const hexBytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => Buffer.from(b).toString("hex"))
/** Hex in a random case: all lowercase, all uppercase or mixed. */
const anyCase = (hex: string) =>
  fc.constantFrom("lower", "upper", "mixed").map((c) =>
    c === "lower"
      ? hex
      : c === "upper"
      ? hex.toUpperCase()
      : [...hex].map((d, i) => i % 3 ? d : d.toUpperCase()).join("")
  )
const bytes32 = hexBytes(32).chain(anyCase).map((h) => `0x${h}` as Hex)
const rawAddress = hexBytes(20).map((h) => `0x${h}` as Hex)
/** An address that passes EIP-55 (lowercase, uppercase body or checksummed). */
const goodAddress = rawAddress.chain((a) =>
  fc.constantFrom(a, `0x${a.slice(2).toUpperCase()}` as Hex, getAddress(a) as Hex)
)
const uintBelow = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n })
const edgeUint = (bits: number) =>
  fc.oneof(uintBelow(bits), fc.constantFrom(0n, 1n, (1n << BigInt(bits)) - 1n), fc.bigInt({ min: 0n, max: 1000n }))

const specialChars = fc.constantFrom(
  "\u0000",
  "\u001f",
  "\b",
  "\n",
  "\u007f",
  "\"",
  "\\",
  "/",
  "\u2028",
  "\ud800",
  "\udfff",
  "\u{1F600}",
  "\uFF21",
  "\uFEFF",
  "e\u0301",
  "ش"
)
const text = fc.string({
  unit: fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), specialChars),
  maxLength: 12
})
const safeInt = fc.oneof(
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.constantFrom(0, -0, 1, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER)
)
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    safeInt,
    text,
    fc.bigInt({ min: 0n, max: 1n << 256n }),
    fc.array(tie("json"), { maxLength: 4 }),
    fc.dictionary(text, tie("json"), { maxKeys: 5 })
  )
}))

describe("agreement with @svc/protocol", () => {
  test.prop([json], { numRuns: NUM_RUNS })("canonical JSON of random JSON values", (value) => {
    expect(I.canonicalJson(value)).toBe(unwrap(CanonicalJson.stringifyResult(value)))
  })

  test.prop([
    fc.anything({
      withBigInt: true,
      withNullPrototype: true,
      withSparseArray: true,
      withDate: true,
      withMap: true,
      withBoxedValues: true,
      withObjectString: true,
      withTypedArray: true
    })
  ], { numRuns: NUM_RUNS })(
    "canonical JSON (or its refusal) of anything",
    (value) => {
      sameOutcome(() => unwrap(CanonicalJson.stringifyResult(value)), () => I.canonicalJson(value))
    }
  )

  const locator = fc.oneof(text, fc.dictionary(text, json, { maxKeys: 4 }))
  const identity = (name: "payer" | "recipient") =>
    fc.oneof(
      fc.record({ [name]: goodAddress }),
      fc.record({ [`${name}AccountId`]: bytes32, [`${name}Locator`]: locator }),
      // explicit nulls for the unused fields, as the upstream SDKs send them
      goodAddress.map((a) => ({ [name]: a, [`${name}AccountId`]: null, [`${name}Locator`]: null })),
      fc.tuple(bytes32, locator).map(([id, l]) => ({ [name]: null, [`${name}AccountId`]: id, [`${name}Locator`]: l }))
    )
  const validRequest = fc.tuple(
    bytes32,
    fc.oneof(
      fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }).map(String),
      fc.constantFrom("1", "340282366920938463463374607431768211455")
    ),
    fc.option(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/), { nil: undefined }),
    fc.tuple(
      fc.constantFrom("", " ", "\t", "\u00a0", "\ufeff"),
      fc.stringMatching(/^[a-zA-Z0-9._:-]{8,128}$/),
      fc.constantFrom("", " ", "\n")
    ).map(([a, k, b]) => `${a}${k}${b}`),
    identity("payer"),
    identity("recipient")
  ).map(([quoteId, requestedAmountInRaw, standard, idempotencyKey, payer, recipient]) => ({
    quoteId,
    requestedAmountInRaw,
    ...(standard === undefined ? {} : { standard }),
    idempotencyKey,
    ...payer,
    ...recipient
  }))

  test.prop([validRequest], { numRuns: NUM_RUNS })(
    "permit request message and normalisation of random valid requests (both forms)",
    (request) => {
      const harness = PermitMessage.build(request as unknown as PermitMessage.PermitRequestInput)
      expect(I.permitRequestMessage(request)).toBe(harness)
      expect(I.normalizePermitRequest(request)).toEqual(
        PermitMessage.normalize(request as unknown as PermitMessage.PermitRequestInput)
      )
      const lines = harness.split("\n").length
      const accounts = ["payer", "recipient"].filter((s) => (request as Record<string, unknown>)[s] == null).length
      expect(lines).toBe(7 + accounts)
    }
  )

  // one field replaced by something possibly invalid: both refuse with the same code, or agree on the message
  const junk = fc.oneof(
    fc.constantFrom(undefined, null, "", "0", "0x10", "01", "-1", " ", [], {}, 1.5, 0, true),
    fc.constantFrom("0xCC2EC811171Ff13A707963157d0F4166594bFa73", "0x2020", `0X${"20".repeat(32)}`),
    fc.constantFrom("340282366920938463463374607431768211456", "erc-7683", "a".repeat(65), "short", "-lead"),
    text
  )
  const field = fc.constantFrom(
    "quoteId",
    "requestedAmountInRaw",
    "standard",
    "idempotencyKey",
    "payer",
    "recipient",
    "payerAccountId",
    "payerLocator",
    "recipientAccountId",
    "recipientLocator"
  )
  test.prop([validRequest, field, junk], { numRuns: NUM_RUNS })(
    "permit requests with one field spoiled: same message or same refusal code",
    (request, name, value) => {
      const spoiled = { ...request, [name]: value }
      const a = outcome(() => PermitMessage.build(spoiled as unknown as PermitMessage.PermitRequestInput))
      const b = outcome(() => I.permitRequestMessage(spoiled))
      expect(b).toEqual(a)
    }
  )

  const permit = fc.record({
    ...Object.fromEntries(
      I.PERMIT_FIELDS.filter((f) => f.type === "bytes32").map((f) => [f.name, bytes32])
    ),
    ...Object.fromEntries(I.PERMIT_FIELDS.filter((f) => f.type === "address").map((f) => [f.name, goodAddress])),
    ...Object.fromEntries(
      I.PERMIT_FIELDS.filter((f) => f.type === "uint64" || f.type === "uint128" || f.type === "uint256").map((
        f
      ) => [f.name, edgeUint(Number(f.type.slice(4))).map(String)])
    ),
    sourceFinalityBlocks: edgeUint(32).map(Number),
    settlementWindowSeconds: edgeUint(32).map(Number),
    publicationLane: fc.constantFrom("L1", "L2", "L3", "L4"),
    serviceCategory: fc.string(),
    feeMode: fc.string(),
    serviceFeeBps: fc.option(fc.integer({ min: 0, max: 10000 }), { nil: null })
  }) as unknown as fc.Arbitrary<PermitAbi.AbiPermit & Record<string, unknown>>

  test.prop([permit], { numRuns: NUM_RUNS })("EIP-712 permitDigest of random permits", (p) => {
    expect(I.permitDigest(p)).toBe(PermitDigest.digest(p))
  })

  const privateKey = fc.bigInt({ min: 1n, max: Signature.SECP256K1_N - 1n }).map((k) =>
    `0x${k.toString(16).padStart(64, "0")}` as Hex
  )

  test.prop([permit, privateKey], { numRuns: SLOW_RUNS })(
    "permitSignature signer of random signed permits",
    (p, key) => {
      const { permitSignature } = PermitDigest.sign(p, key)
      expect(I.recoverPermitSigner(p, permitSignature)).toBe(unwrap(PermitDigest.recoverSigner(p, permitSignature)))
      expect(I.recoverPermitSigner(p, permitSignature)).toBe(Signature.addressOf(key))
    }
  )

  const signatureBytes = fc.integer({ min: 0, max: 80 }).chain(hexBytes).map((h) => `0x${h}`)

  test.prop([permit, signatureBytes], { numRuns: NUM_RUNS })(
    "ABI tuple, payload and calldata of random permits, and decoding them back",
    (p, sig) => {
      const payload = PermitAbi.encodePayload(p, sig)
      expect(I.permitTuple(p)).toBe(PermitAbi.encodeTuple(p))
      expect(I.permitPayload(p, sig)).toBe(payload)
      expect(I.fillDirectCalldata(p, sig)).toBe(PermitAbi.encodeFillDirect(p, sig))
      expect(I.decodePermitPayload(payload)).toEqual(PermitAbi.decodePayload(payload))
      expect(I.decodeFillDirect(PermitAbi.encodeFillDirect(p, sig))).toEqual(
        PermitAbi.decodeFillDirect(PermitAbi.encodeFillDirect(p, sig))
      )
    }
  )

  test.prop([permit, fc.integer({ min: 0, max: 31 * 32 - 1 }), fc.integer({ min: 1, max: 255 })], {
    numRuns: NUM_RUNS
  })("random payloads with one byte of the tuple changed: same decoding or both refuse", (p, at, delta) => {
    const payload = PermitAbi.encodePayload(p, `0x${"11".repeat(65)}`)
    const i = 2 + 2 * at
    const byte = ((Number.parseInt(payload.slice(i, i + 2), 16) + delta) & 0xff).toString(16).padStart(2, "0")
    const changed = `${payload.slice(0, i)}${byte}${payload.slice(i + 2)}`
    sameOutcome(() => PermitAbi.decodePayload(changed), () => I.decodePermitPayload(changed))
  })

  test.prop([privateKey, hexBytes(32)], { numRuns: SLOW_RUNS })(
    "raw-digest and EIP-191 signers of random keys and digests",
    (key, digestHex) => {
      const digest = `0x${digestHex}` as Hex
      const sig = Signature.signDigest(digest, key)
      expect(I.addressOfPrivateKey(key)).toBe(Signature.addressOf(key))
      expect(I.recoverDigestSigner(digest, sig)).toBe(unwrap(Signature.recoverDigestSigner(digest, sig)))
      expect(() => I.recoverDigestSigner(digest, Signature.highSTwin(sig))).toThrow(
        expect.objectContaining({ code: "SIGNATURE_HIGH_S" })
      )
      const message = `svc self-check ${digestHex}`
      expect(I.recoverRequestSigner(message, PermitMessage.sign(message, key))).toBe(Signature.addressOf(key))
    }
  )

  test.prop([hexBytes(32), hexBytes(32), hexBytes(32), fc.constantFrom("00", "01", "1b", "1c", "1d", "ff")], {
    numRuns: SLOW_RUNS
  })("recovery from arbitrary 65 bytes: same signer or both refuse", (digest, r, s, v) => {
    const sig = `0x${r}${s}${v}`
    sameOutcome(
      () => unwrap(Signature.recoverDigestSigner(`0x${digest}`, sig)),
      () => I.recoverDigestSigner(`0x${digest}`, sig)
    )
  })

  it("recovery agrees with viem's (asynchronous) recoverAddress", async () => {
    for (const name of ["permitRequestEvm", "permitRequestLocator"]) {
      const v = A[name]
      expect(await recoverAddress({ hash: v.eip191Digest, signature: v.requestSignature })).toBe(
        I.recoverDigestSigner(v.eip191Digest, v.requestSignature)
      )
    }
    expect(await recoverAddress({ hash: A.feed.feedHash, signature: A.feed.feedSignature })).toBe(
      I.recoverFeedSigner(A.feed.feedHash, A.feed.feedSignature)
    )
  })

  const chainId = fc.oneof(
    fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }).map(String),
    fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    fc.constantFrom("8453", "56", "999", "1", 8453)
  )

  test.prop([chainId, goodAddress, goodAddress, bytes32, bytes32], { numRuns: NUM_RUNS })(
    "network, asset and account ids",
    (chain, token, account, vm, reference) => {
      const network = Ids.evmNetworkId(chain)
      expect(I.evmNetworkId(chain)).toBe(network)
      expect(I.evmAssetId(network, token)).toBe(Ids.evmAssetId(network, token))
      expect(I.evmAccountId(network, account)).toBe(Ids.evmAccountId(network, account))
      expect(I.evmReference(token)).toBe(Ids.evmReference(token))
      expect(I.networkId(vm, reference)).toBe(Ids.networkId(vm, reference))
      expect(I.accountId(vm, reference)).toBe(Ids.accountId(vm, reference))
      expect(I.assetId(vm, reference)).toBe(Ids.assetId(vm, reference))
    }
  )

  test.prop([
    fc.record({
      sourceNetworkId: bytes32,
      sourceAssetId: bytes32,
      destinationNetworkId: bytes32,
      destinationAssetId: bytes32,
      releaseId: bytes32,
      routeId: bytes32,
      pricingReferenceId: bytes32,
      validAfter: fc.oneof(edgeUint(64).map(String), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
      validUntil: edgeUint(64).map(String),
      executionGeneration: bytes32,
      policyHash: bytes32
    })
  ], { numRuns: NUM_RUNS })("route and quote ids", (route) => {
    expect(I.routeId(route)).toBe(Ids.routeId(route))
    expect(I.quoteId(route)).toBe(Ids.quoteId(route))
  })

  test.prop([fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/), text], { numRuns: NUM_RUNS })(
    "Solana network ids and labels",
    (genesis, label) => {
      expect(I.solanaNetworkId(genesis)).toBe(Ids.solanaNetworkId(genesis))
      expect(I.label(label)).toBe(Ids.label(label))
      expect(I.vmType(label)).toBe(Ids.vmType(label))
    }
  )

  test.prop([fc.oneof(chainId, junkId()), fc.oneof(goodAddress, junkId())], { numRuns: NUM_RUNS })(
    "ids of spoiled inputs: same id or both refuse",
    (chain, address) => {
      sameOutcome(() => Ids.evmNetworkId(chain as string), () => I.evmNetworkId(chain as string))
      sameOutcome(
        () => Ids.evmAssetId(Ids.evmNetworkId(8453), address as string),
        () => I.evmAssetId(I.evmNetworkId(8453), address as string)
      )
    }
  )
})

function junkId() {
  return fc.constantFrom<unknown>(
    "0x10",
    "-1",
    "01",
    "1.5",
    1.5,
    -1,
    "",
    null,
    undefined,
    "0x1234",
    `0x${"g".repeat(40)}`
  )
}
