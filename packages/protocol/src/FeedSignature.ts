/**
 * Feed hashing, signing and verification.
 *
 * - preimage = UTF-8(`SVC_MAINNET_V6_SIGNED_FEED_V1` + LF + canonicalJson(signedPayload));
 * - feedHash = keccak256(preimage), lowercase hex;
 * - feedSignature = secp256k1 over feedHash itself (no EIP-191 prefix), low-s, v = 27/28.
 *
 * Verification returns the upstream result fields (valid, computedHash,
 * expectedHash, recoveredSigner, declaredSigner, expectedSigner, expired) and
 * checks, in this order: the hash, the recovered signer against feedSigner,
 * feedSigner against the expected signer, and `generatedAt <= now < validUntil`.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"
import { checksumAddress, type Hex, keccak, utf8 } from "./Bytes.ts"
import * as CanonicalJson from "./CanonicalJson.ts"
import { ADDRESS } from "./Patterns.ts"
import * as Signature from "./Signature.ts"

/**
 * Domain line of the feed preimage, and the feed's schema constant
 * (`schema/Feed` FEED_SCHEMA is this value): defined here so that hashing a
 * feed does not load the schemas.
 *
 * @category constants
 * @since 0.1.0
 */
export const FEED_DOMAIN = "SVC_MAINNET_V6_SIGNED_FEED_V1" as const

/**
 * The feed (or payload) is not a feed: no signed payload with the schema
 * constant and a routes array, or a payload without canonical JSON form.
 *
 * @category errors
 * @since 0.1.0
 */
export class FeedInvalid extends Data.TaggedError("FeedInvalid")<{ readonly reason: string }> {
  override get message(): string {
    return `not a signed feed: ${this.reason}`
  }
}

/**
 * The preimage text: domain line, LF, canonical JSON of the payload.
 *
 * @category crypto
 * @since 0.1.0
 */
export const preimageText = (signedPayload: unknown): string =>
  `${FEED_DOMAIN}\n${CanonicalJson.stringify(signedPayload)}`

/**
 * The feed hash of a payload's canonical JSON text (when the caller already has it).
 *
 * @category crypto
 * @since 0.1.0
 */
export const hashCanonical = (canonicalPayload: string): Hex => keccak(utf8(`${FEED_DOMAIN}\n${canonicalPayload}`))

/**
 * The feed hash of a signed payload.
 *
 * @throws {CanonicalJson.CanonicalJsonError} when the payload has no canonical form.
 * @category crypto
 * @since 0.1.0
 */
export const hash = (signedPayload: unknown): Hex => keccak(utf8(preimageText(signedPayload)))

/**
 * Signs a feed hash with the authority key.
 *
 * @category crypto
 * @since 0.1.0
 */
export const signHash = (feedHash: Hex, privateKey: Hex): Hex => Signature.signDigest(feedHash, privateKey)

/**
 * The upstream verification result.
 *
 * @category models
 * @since 0.1.0
 */
export interface VerificationResult {
  readonly valid: boolean
  readonly computedHash: Hex
  readonly expectedHash: string
  readonly recoveredSigner: string | null
  readonly declaredSigner: string | null
  readonly expectedSigner: string | null
  readonly expired: boolean
}

/**
 * Options of {@link verify}.
 *
 * @category models
 * @since 0.1.0
 */
export interface VerifyOptions {
  /** Current Unix time in seconds. */
  readonly now: number
  /** The signer to expect (a pinned value or the manifest's feedSigner); defaults to feed.feedSigner. */
  readonly expectedSigner?: string | undefined
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const checksumOrNull = (value: unknown): string | null =>
  typeof value === "string" && ADDRESS.test(value) ? checksumAddress(value) : null

/**
 * Picks the signed payload of a feed object the way the upstream SDKs do:
 * `feed.signedPayload`, else `feed.payload`, else the object itself; it must carry
 * the schema constant and a routes array.
 *
 * @category crypto
 * @since 0.1.0
 */
export const signedPayloadOf = (feed: unknown): Result.Result<Record<string, unknown>, FeedInvalid> => {
  if (!isRecord(feed)) return Result.fail(new FeedInvalid({ reason: "expected a JSON object" }))
  const payload = isRecord(feed.signedPayload) ? feed.signedPayload : isRecord(feed.payload) ? feed.payload : feed
  if (payload.schema !== FEED_DOMAIN) {
    return Result.fail(new FeedInvalid({ reason: `signedPayload.schema must be ${FEED_DOMAIN}` }))
  }
  if (!Array.isArray(payload.routes)) {
    return Result.fail(new FeedInvalid({ reason: "signedPayload.routes must be an array" }))
  }
  return Result.succeed(payload)
}

/**
 * Verifies a signed feed (the `feed` object of the feed response or stream
 * event). Only the signed payload is hashed; filtered views never count.
 *
 * @category crypto
 * @since 0.1.0
 */
export const verify = (feed: unknown, options: VerifyOptions): Result.Result<VerificationResult, FeedInvalid> =>
  Result.flatMap(signedPayloadOf(feed), (payload) => {
    const canonical = CanonicalJson.stringifyResult(payload)
    if (Result.isFailure(canonical)) return Result.fail(new FeedInvalid({ reason: canonical.failure.message }))
    const outer = feed as Record<string, unknown>
    const computedHash = hashCanonical(canonical.success)
    const expectedHash = typeof outer.feedHash === "string" ? outer.feedHash : ""
    const declaredSigner = checksumOrNull(outer.feedSigner)
    const expectedSigner = checksumOrNull(options.expectedSigner ?? outer.feedSigner)
    const recovered = typeof outer.feedSignature === "string"
      ? Signature.recoverDigestSigner(computedHash, outer.feedSignature)
      : Result.fail(new Signature.SignatureError({ problem: "MALFORMED", detail: "no signature" }))
    const recoveredSigner = Result.isSuccess(recovered) ? recovered.success : null
    const generatedAt = Number(payload.generatedAt)
    const validUntil = Number(payload.validUntil)
    const expired = !(validUntil > options.now)
    const valid = computedHash === expectedHash.toLowerCase() &&
      recoveredSigner !== null &&
      recoveredSigner === declaredSigner &&
      declaredSigner === expectedSigner &&
      generatedAt <= options.now &&
      !expired
    return Result.succeed({
      valid,
      computedHash,
      expectedHash,
      recoveredSigner,
      declaredSigner,
      expectedSigner,
      expired
    })
  })

/**
 * The first failed check of a verification, with the upstream SDK error codes:
 * the hash first, then expiry, then the signer. `undefined` when valid.
 *
 * @category crypto
 * @since 0.1.0
 */
export const failureCode = (
  result: VerificationResult
): "SVC_SDK_FEED_HASH_MISMATCH" | "SVC_SDK_FEED_EXPIRED" | "SVC_SDK_FEED_SIGNER_MISMATCH" | undefined => {
  if (result.valid) return undefined
  if (result.computedHash !== result.expectedHash.toLowerCase()) return "SVC_SDK_FEED_HASH_MISMATCH"
  if (result.expired) return "SVC_SDK_FEED_EXPIRED"
  if (
    result.recoveredSigner === null || result.recoveredSigner !== result.declaredSigner ||
    result.declaredSigner !== result.expectedSigner
  ) return "SVC_SDK_FEED_SIGNER_MISMATCH"
  return "SVC_SDK_FEED_EXPIRED" // generatedAt in the future: not yet valid
}
