import { assert, describe, it } from "@effect/vitest"
import { fc, test as fcTest } from "@fast-check/vitest"
import { Result } from "effect"
import { getAddress } from "viem"
import { CanonicalJson, FeedSignature, Signature } from "../src/index.ts"
import {
  address,
  bytes32,
  changeHexDigit,
  jsonObject,
  jsonString,
  privateKey,
  prng,
  randomCase,
  shuffleKeysDeep,
  uintString
} from "./arbitraries.ts"
import { FEED_VALID_AT, signedFeed, TEST_KEY } from "./samples.ts"

type Hex = `0x${string}`

const SCHEMA = FeedSignature.FEED_DOMAIN

/** A simple route object (not a schema-valid Route: the feed hash covers any JSON). */
const simpleRoute = fc.record({
  routeId: bytes32,
  quoteId: bytes32,
  sourceChainId: fc.nat({ max: 1_000_000 }),
  destinationChainId: fc.oneof(fc.nat({ max: 1_000_000 }).map(String), fc.constant(null)),
  minimumFillInRaw: uintString(128),
  maxAvailableInRaw: uintString(256),
  executionStatus: fc.constantFrom("OPEN", "PAUSED", "TEMP_UNAVAILABLE"),
  permitAvailable: fc.boolean(),
  serviceCategory: jsonString,
  sourceLocator: jsonObject
})

const payloadArb = fc
  .record({
    releaseId: bytes32,
    dataVersion: uintString(64),
    generatedAt: fc.integer({ min: 0, max: 4_000_000_000 }),
    lifetime: fc.integer({ min: 1, max: 100_000 }),
    routes: fc.array(simpleRoute, { minLength: 1, maxLength: 4 })
  })
  .map(({ lifetime, ...rest }) => ({
    schema: SCHEMA,
    ...rest,
    validUntil: rest.generatedAt + lifetime
  }))

type Payload = typeof payloadArb extends fc.Arbitrary<infer A> ? A : never

interface Feed {
  readonly signedPayload: unknown
  readonly feedHash: string
  readonly feedSignature: string
  readonly feedSigner: string
}

const signFeed = (payload: Payload, key: Hex): Feed => {
  const feedHash = FeedSignature.hash(payload)
  return {
    signedPayload: payload,
    feedHash,
    feedSignature: FeedSignature.signHash(feedHash, key),
    feedSigner: Signature.addressOf(key)
  }
}

const verifyOk = (feed: unknown, options: FeedSignature.VerifyOptions): FeedSignature.VerificationResult => {
  const result = FeedSignature.verify(feed, options)
  assert.isTrue(Result.isSuccess(result), "verify must not refuse a well-formed feed")
  return (result as Result.Success<FeedSignature.VerificationResult, never>).success
}

const SIG_RUNS = { numRuns: 25 }
const RUNS = { numRuns: 100 }

describe("FeedSignature: sign then verify", () => {
  fcTest.prop([payloadArb, privateKey], SIG_RUNS)("a signed feed verifies, with all result fields", (payload, key) => {
    const feed = signFeed(payload, key)
    const signer = Signature.addressOf(key)
    const result = verifyOk(feed, { now: payload.generatedAt })
    assert.deepStrictEqual(result, {
      valid: true,
      computedHash: feed.feedHash as Hex,
      expectedHash: feed.feedHash,
      recoveredSigner: signer,
      declaredSigner: signer,
      expectedSigner: signer,
      expired: false
    })
    assert.strictEqual(FeedSignature.failureCode(result), undefined)
    // the hash is keccak256(domain LF canonical) in lowercase hex, the signature low-s v 27/28
    assert.match(feed.feedHash, /^0x[0-9a-f]{64}$/)
    assert.strictEqual(FeedSignature.hashCanonical(CanonicalJson.stringify(payload)), feed.feedHash)
    assert.strictEqual(FeedSignature.preimageText(payload), `${SCHEMA}\n${CanonicalJson.stringify(payload)}`)
    assert.isTrue(Result.isSuccess(Signature.parse(feed.feedSignature)))
    assert.include(["1b", "1c"], feed.feedSignature.slice(130))
  })

  fcTest.prop([payloadArb, privateKey, fc.integer(), fc.integer({ min: 0, max: 99_999 })], SIG_RUNS)(
    "stays valid for any key order of the payload, any hex case of feedHash / feedSigner / expectedSigner, and any now in [generatedAt, validUntil)",
    (payload, key, seed, offset) => {
      const feed = signFeed(payload, key)
      const random = prng(seed)
      const variant = {
        routes: [],
        openRoutes: [],
        signedPayload: shuffleKeysDeep(payload, random),
        feedHash: randomCase(feed.feedHash, random),
        feedSignature: feed.feedSignature,
        feedSigner: randomCase(feed.feedSigner, random)
      }
      const now = payload.generatedAt + (offset % (payload.validUntil - payload.generatedAt))
      const result = verifyOk(variant, { now, expectedSigner: randomCase(feed.feedSigner, random) })
      assert.isTrue(result.valid)
      assert.strictEqual(result.declaredSigner, Signature.addressOf(key))
    }
  )

  fcTest.prop([payloadArb, privateKey], SIG_RUNS)(
    "the payload may also sit under `payload` or be the object itself",
    (payload, key) => {
      const feed = signFeed(payload, key)
      const outer = { feedHash: feed.feedHash, feedSignature: feed.feedSignature, feedSigner: feed.feedSigner }
      assert.isTrue(verifyOk({ ...outer, payload }, { now: payload.generatedAt }).valid)
      // the flat form hashes the object itself, which then also carries the outer keys
      const flat = { ...payload, ...outer }
      const result = verifyOk(flat, { now: payload.generatedAt })
      assert.strictEqual(result.computedHash, FeedSignature.hash(flat))
      assert.isFalse(result.valid)
    }
  )
})

// ---------------------------------------------------------------------------
// Tampering
// ---------------------------------------------------------------------------

const mutateString = (s: string, position: number, replacement: string): string => {
  if (s.length === 0) return replacement
  const i = position % s.length
  const current = s[i]!
  const next = current === replacement ? `${replacement}x` : replacement
  return `${s.slice(0, i)}${next}${s.slice(i + 1)}`
}

type Mutation =
  | { readonly kind: "string"; readonly route: number; readonly position: number; readonly replacement: string }
  | { readonly kind: "integer"; readonly route: number; readonly delta: number }
  | { readonly kind: "dataVersion" }
  | { readonly kind: "releaseId"; readonly digit: number; readonly delta: number }
  | { readonly kind: "dropRoute"; readonly route: number }
  | { readonly kind: "flag"; readonly route: number }

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant("string" as const),
    route: fc.nat(),
    position: fc.nat(),
    replacement: fc.string({ minLength: 1, maxLength: 1 })
  }),
  fc.record({ kind: fc.constant("integer" as const), route: fc.nat(), delta: fc.integer({ min: 1, max: 1000 }) }),
  fc.record({ kind: fc.constant("dataVersion" as const) }),
  fc.record({ kind: fc.constant("releaseId" as const), digit: fc.nat({ max: 63 }), delta: fc.nat() }),
  fc.record({ kind: fc.constant("dropRoute" as const), route: fc.nat() }),
  fc.record({ kind: fc.constant("flag" as const), route: fc.nat() })
)

const applyMutation = (payload: Payload, m: Mutation): Payload => {
  const routes = payload.routes.map((r) => ({ ...r }))
  switch (m.kind) {
    case "string": {
      const r = routes[m.route % routes.length]!
      r.serviceCategory = mutateString(r.serviceCategory, m.position, m.replacement)
      return { ...payload, routes }
    }
    case "integer": {
      const r = routes[m.route % routes.length]!
      r.sourceChainId = r.sourceChainId + m.delta
      return { ...payload, routes }
    }
    case "dataVersion":
      return { ...payload, dataVersion: (BigInt(payload.dataVersion) + 1n).toString() }
    case "releaseId":
      return { ...payload, releaseId: changeHexDigit(payload.releaseId, m.digit, m.delta) as Hex }
    case "dropRoute":
      routes.splice(m.route % routes.length, 1)
      return { ...payload, routes }
    case "flag": {
      const r = routes[m.route % routes.length]!
      r.permitAvailable = !r.permitAvailable
      return { ...payload, routes }
    }
  }
}

describe("FeedSignature: tampering fails verification", () => {
  fcTest.prop([payloadArb, privateKey, mutation], SIG_RUNS)(
    "a changed payload field gives a hash mismatch",
    (payload, key, m) => {
      const feed = signFeed(payload, key)
      const tampered = applyMutation(payload, m)
      assert.notStrictEqual(CanonicalJson.stringify(tampered), CanonicalJson.stringify(payload))
      const result = verifyOk({ ...feed, signedPayload: tampered }, { now: payload.generatedAt })
      assert.isFalse(result.valid)
      assert.notStrictEqual(result.computedHash, feed.feedHash)
      assert.strictEqual(FeedSignature.failureCode(result), "SVC_SDK_FEED_HASH_MISMATCH")
    }
  )

  fcTest.prop([payloadArb, fc.nat(), fc.integer({ min: 32, max: 126 })], RUNS)(
    "the hash covers every byte of the canonical text",
    (payload, position, code) => {
      const text = CanonicalJson.stringify(payload)
      const i = position % text.length
      const replacement = String.fromCharCode(code === text.charCodeAt(i) ? (code === 126 ? 32 : code + 1) : code)
      const changed = `${text.slice(0, i)}${replacement}${text.slice(i + 1)}`
      assert.notStrictEqual(FeedSignature.hashCanonical(changed), FeedSignature.hash(payload))
      // and the domain line is part of the preimage
      assert.notStrictEqual(FeedSignature.hashCanonical(text), Signature.personalMessageDigest(text))
    }
  )

  fcTest.prop([payloadArb, privateKey, fc.nat({ max: 63 }), fc.nat()], SIG_RUNS)(
    "a feedHash with one hex digit changed fails as a hash mismatch",
    (payload, key, digit, delta) => {
      const feed = signFeed(payload, key)
      const result = verifyOk({ ...feed, feedHash: changeHexDigit(feed.feedHash, digit, delta) }, {
        now: payload.generatedAt
      })
      assert.isFalse(result.valid)
      assert.strictEqual(FeedSignature.failureCode(result), "SVC_SDK_FEED_HASH_MISMATCH")
    }
  )

  fcTest.prop([payloadArb, privateKey, fc.nat({ max: 129 }), fc.nat()], SIG_RUNS)(
    "a feedSignature with one hex digit changed fails (signer mismatch or refused)",
    (payload, key, digit, delta) => {
      const feed = signFeed(payload, key)
      const changed = changeHexDigit(feed.feedSignature, digit, delta)
      const result = verifyOk({ ...feed, feedSignature: changed }, { now: payload.generatedAt })
      assert.isFalse(result.valid)
      assert.notStrictEqual(result.recoveredSigner, feed.feedSigner)
      assert.strictEqual(FeedSignature.failureCode(result), "SVC_SDK_FEED_SIGNER_MISMATCH")
    }
  )

  fcTest.prop([payloadArb, privateKey], SIG_RUNS)(
    "the other recovery id (v 27 <-> 28) and the high-s twin fail",
    (payload, key) => {
      const feed = signFeed(payload, key)
      const v = feed.feedSignature.slice(130)
      const flipped = `${feed.feedSignature.slice(0, 130)}${v === "1b" ? "1c" : "1b"}`
      const other = verifyOk({ ...feed, feedSignature: flipped }, { now: payload.generatedAt })
      assert.isFalse(other.valid)
      assert.notStrictEqual(other.recoveredSigner, feed.feedSigner)
      const twin = Signature.highSTwin(feed.feedSignature as Hex)
      const twinResult = verifyOk({ ...feed, feedSignature: twin }, { now: payload.generatedAt })
      assert.isFalse(twinResult.valid)
      assert.isNull(twinResult.recoveredSigner)
      assert.strictEqual(FeedSignature.failureCode(twinResult), "SVC_SDK_FEED_SIGNER_MISMATCH")
    }
  )

  fcTest.prop([payloadArb, privateKey, address], SIG_RUNS)(
    "signer mismatch: another expected signer, or another declared feedSigner",
    (payload, key, other) => {
      fc.pre(other.toLowerCase() !== Signature.addressOf(key).toLowerCase())
      const feed = signFeed(payload, key)
      const pinned = verifyOk(feed, { now: payload.generatedAt, expectedSigner: other.toLowerCase() })
      assert.isFalse(pinned.valid)
      assert.strictEqual(pinned.expectedSigner, getAddress(other))
      assert.strictEqual(pinned.recoveredSigner, feed.feedSigner)
      assert.strictEqual(FeedSignature.failureCode(pinned), "SVC_SDK_FEED_SIGNER_MISMATCH")
      const declared = verifyOk({ ...feed, feedSigner: other }, { now: payload.generatedAt })
      assert.isFalse(declared.valid)
      assert.strictEqual(declared.declaredSigner, getAddress(other))
      assert.strictEqual(FeedSignature.failureCode(declared), "SVC_SDK_FEED_SIGNER_MISMATCH")
      // declaring the other address and expecting it does not help: the recovered signer differs
      const both = verifyOk({ ...feed, feedSigner: other }, { now: payload.generatedAt, expectedSigner: other })
      assert.isFalse(both.valid)
    }
  )

  fcTest.prop(
    [payloadArb, privateKey, fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000 })],
    SIG_RUNS
  )(
    "time: expired at and after validUntil, not yet valid before generatedAt",
    (payload, key, late, early) => {
      const feed = signFeed(payload, key)
      const expired = verifyOk(feed, { now: payload.validUntil + late })
      assert.isTrue(expired.expired)
      assert.isFalse(expired.valid)
      assert.strictEqual(FeedSignature.failureCode(expired), "SVC_SDK_FEED_EXPIRED")
      const lastValid = verifyOk(feed, { now: payload.validUntil - 1 })
      assert.isTrue(lastValid.valid)
      const notYet = verifyOk(feed, { now: payload.generatedAt - early })
      assert.isFalse(notYet.valid)
      assert.isFalse(notYet.expired)
      assert.isDefined(FeedSignature.failureCode(notYet))
    }
  )
})

describe("FeedSignature: failure code order", () => {
  const feed = signedFeed
  const now = FEED_VALID_AT
  const later = feed.signedPayload.validUntil + 10
  const other = "0x2222222222222222222222222222222222222222"

  it("hash mismatch wins over expiry and signer", () => {
    const result = verifyOk({ ...feed, feedHash: changeHexDigit(feed.feedHash, 0, 0), feedSigner: other }, {
      now: later
    })
    assert.isTrue(result.expired)
    assert.strictEqual(FeedSignature.failureCode(result), "SVC_SDK_FEED_HASH_MISMATCH")
  })

  it("expiry wins over signer", () => {
    const result = verifyOk({ ...feed, feedSigner: other }, { now: later })
    assert.strictEqual(FeedSignature.failureCode(result), "SVC_SDK_FEED_EXPIRED")
    const pinned = verifyOk(feed, { now: later, expectedSigner: other })
    assert.strictEqual(FeedSignature.failureCode(pinned), "SVC_SDK_FEED_EXPIRED")
  })

  it("signer mismatch when hash and time are fine", () => {
    const result = verifyOk(feed, { now, expectedSigner: other })
    assert.strictEqual(FeedSignature.failureCode(result), "SVC_SDK_FEED_SIGNER_MISMATCH")
  })

  it("the sample feed is valid and the filtered views do not count", () => {
    assert.isTrue(verifyOk(feed, { now }).valid)
    assert.isTrue(verifyOk({ ...feed, routes: [], openRoutes: [], actionableRoutes: [] }, { now }).valid)
  })

  it("a missing or non-string signature gives no recovered signer", () => {
    const { feedSignature: _, ...unsigned } = feed
    void _
    const result = verifyOk(unsigned, { now })
    assert.isNull(result.recoveredSigner)
    assert.isFalse(result.valid)
    assert.isNull(verifyOk({ ...feed, feedSignature: 42 }, { now }).recoveredSigner)
  })

  it("an invalid feedSigner or expectedSigner is reported as null and fails", () => {
    const badDeclared = verifyOk({ ...feed, feedSigner: "0x1234" }, { now })
    assert.isNull(badDeclared.declaredSigner)
    assert.isFalse(badDeclared.valid)
    const badExpected = verifyOk(feed, { now, expectedSigner: "not an address" })
    assert.isNull(badExpected.expectedSigner)
    assert.isFalse(badExpected.valid)
  })

  it("signs with the test key deterministically", () => {
    assert.strictEqual(FeedSignature.signHash(feed.feedHash as Hex, TEST_KEY), feed.feedSignature)
  })
})

describe("FeedSignature.signedPayloadOf", () => {
  const payload = signedFeed.signedPayload

  it("rejects non-objects", () => {
    for (const value of [null, undefined, 1, "feed", true, [], [payload]]) {
      const result = FeedSignature.signedPayloadOf(value)
      assert.isTrue(Result.isFailure(result), `accepted ${JSON.stringify(value)}`)
      if (Result.isFailure(result)) assert.strictEqual(result.failure._tag, "FeedInvalid")
      assert.isTrue(Result.isFailure(FeedSignature.verify(value, { now: FEED_VALID_AT })))
    }
  })

  it("rejects a wrong or missing schema", () => {
    for (const schema of [undefined, "SVC_MAINNET_V6_SIGNED_FEED_V2", "svc_mainnet_v6_signed_feed_v1", 1]) {
      const result = FeedSignature.signedPayloadOf({ signedPayload: { ...payload, schema } })
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) assert.include(result.failure.reason, "schema")
    }
  })

  it("rejects routes that are not an array", () => {
    for (const routes of [undefined, null, {}, "[]", 0, { 0: {} }]) {
      const result = FeedSignature.signedPayloadOf({ signedPayload: { ...payload, routes } })
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) assert.include(result.failure.reason, "routes")
    }
  })

  it("picks signedPayload, then payload, then the object itself", () => {
    assert.deepStrictEqual(FeedSignature.signedPayloadOf(signedFeed), Result.succeed(payload))
    assert.deepStrictEqual(FeedSignature.signedPayloadOf({ payload }), Result.succeed(payload))
    assert.deepStrictEqual(FeedSignature.signedPayloadOf(payload), Result.succeed(payload))
    assert.deepStrictEqual(
      FeedSignature.signedPayloadOf({ signedPayload: payload, payload: { other: 1 } }),
      Result.succeed(payload)
    )
  })

  it("verify refuses a payload without canonical form", () => {
    const result = FeedSignature.verify({ ...signedFeed, signedPayload: { ...payload, extra: 1.5 } }, {
      now: FEED_VALID_AT
    })
    assert.isTrue(Result.isFailure(result))
    if (Result.isFailure(result)) assert.strictEqual(result.failure._tag, "FeedInvalid")
  })
})
