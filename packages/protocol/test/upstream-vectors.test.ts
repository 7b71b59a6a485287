import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { readFileSync } from "node:fs"
import { CanonicalJson, FeedSignature, Ids, PermitAbi, PermitMessage, Signature } from "../src/index.ts"

const vectors = JSON.parse(readFileSync(new URL("../../../fixtures/upstream/appendix-a.json", import.meta.url), "utf8"))
const key = vectors.testKey.privateKey

describe("upstream Appendix A vectors", () => {
  it("test key and releaseId", () => {
    assert.strictEqual(Signature.addressOf(key), vectors.testKey.address)
    assert.strictEqual(Ids.label("SVC V6 SDK PUBLIC TEST VECTOR KEY - NEVER FUND"), key)
    assert.strictEqual(Ids.DEFAULT_RELEASE_ID, vectors.releaseId.value)
  })

  it("canonical JSON", () => {
    assert.strictEqual(CanonicalJson.stringify(vectors.canonicalJson.input), vectors.canonicalJson.output)
  })

  it("feed canonical payload, hash, signature and verification", () => {
    const feed = vectors.feed
    assert.strictEqual(CanonicalJson.stringify(feed.signedPayload), feed.canonicalPayload)
    assert.strictEqual(FeedSignature.hash(feed.signedPayload), feed.feedHash)
    assert.strictEqual(FeedSignature.signHash(feed.feedHash, key), feed.feedSignature)
    const result = FeedSignature.verify(
      {
        signedPayload: feed.signedPayload,
        feedHash: feed.feedHash,
        feedSignature: feed.feedSignature,
        feedSigner: feed.feedSigner
      },
      { now: feed.validAt }
    )
    assert.isTrue(Result.isSuccess(result))
    if (Result.isSuccess(result)) {
      assert.deepStrictEqual(result.success, {
        valid: true,
        computedHash: feed.feedHash,
        expectedHash: feed.feedHash,
        recoveredSigner: feed.feedSigner,
        declaredSigner: feed.feedSigner,
        expectedSigner: feed.feedSigner,
        expired: false
      })
    }
  })

  for (const name of ["permitRequestEvm", "permitRequestLocator"] as const) {
    it(`${name}: message, digest, signature, recovery`, () => {
      const v = vectors[name]
      const message = PermitMessage.build(v.request)
      assert.strictEqual(message, v.message)
      if (v.messageBytes !== undefined) assert.strictEqual(new TextEncoder().encode(message).length, v.messageBytes)
      assert.strictEqual(Signature.personalMessageDigest(message), v.eip191Digest)
      assert.strictEqual(PermitMessage.sign(message, key), v.requestSignature)
      const recovered = PermitMessage.recoverSigner(message, v.requestSignature)
      assert.deepStrictEqual(recovered, Result.succeed(vectors.testKey.address))
    })
  }

  it("ABI selectors", () => {
    assert.strictEqual(PermitAbi.FILL_DIRECT_SELECTOR, vectors.abi.fillDirectSelector)
    assert.strictEqual(PermitAbi.PREVIEW_FILL_DIRECT_SELECTOR, vectors.abi.previewFillDirectSelector)
  })
})
