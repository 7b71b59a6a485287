/**
 * The client's typed errors. Every failure of the client is one of these
 * classes; nothing else is thrown or rejected. Each carries a stable `code`:
 *
 * - client-side failures use the upstream SDK codes (`SVC_SDK_FEED_HASH_MISMATCH`,
 *   `SVC_SDK_DISCOVERY_INVALID`, ...);
 * - a refusal by the server is an {@link HttpError} (`SVC_SDK_HTTP_ERROR`) that keeps
 *   the server's `error` code as `serverCode` and its `reasonCodes`, or a
 *   {@link RefreshQuote} (`SVC_SDK_REFRESH_QUOTE`) when the aggregator asks for a
 *   new quote (`action: REFRESH_QUOTE`: QUOTE_EXPIRED, ROUTE_CLOSED, QUOTE_CHANGED).
 *
 * Handle `code` / `serverCode` / `reasonCodes`, never message text.
 *
 * @since 0.1.0
 */
import type * as FeedSignature from "@svc/protocol/FeedSignature"
import * as Data from "effect/Data"

/**
 * The solver manifest (or the aggregator manifest) could not be used: not a
 * valid document, or its feedSigner is not the pinned signer.
 *
 * @category errors
 * @since 0.1.0
 */
export class DiscoveryInvalid extends Data.TaggedError("DiscoveryInvalid")<{
  readonly url: string
  readonly reason: string
}> {
  readonly code = "SVC_SDK_DISCOVERY_INVALID" as const
  override get message(): string {
    return `discovery document ${this.url} is not usable: ${this.reason}`
  }
}

/**
 * A feed response or stream event is not a signed feed (no signed payload, not
 * JSON, or not matching the SignedFeed schema).
 *
 * @category errors
 * @since 0.1.0
 */
export class FeedInvalid extends Data.TaggedError("FeedInvalid")<{
  readonly reason: string
}> {
  readonly code = "SVC_SDK_FEED_INVALID" as const
  override get message(): string {
    return `not a signed feed: ${this.reason}`
  }
}

/**
 * The feed hash recomputed from `signedPayload` differs from `feedHash`: the
 * signed payload was changed after signing.
 *
 * @category errors
 * @since 0.1.0
 */
export class FeedHashMismatch extends Data.TaggedError("FeedHashMismatch")<{
  readonly verification: FeedSignature.VerificationResult
}> {
  readonly code = "SVC_SDK_FEED_HASH_MISMATCH" as const
  override get message(): string {
    return `feed hash mismatch: computed ${this.verification.computedHash}, feed says ${this.verification.expectedHash}`
  }
}

/**
 * The feed signature does not recover to `feedSigner`, or `feedSigner` is not
 * the expected signer (the manifest's feedSigner or the pinned signer).
 *
 * @category errors
 * @since 0.1.0
 */
export class FeedSignerMismatch extends Data.TaggedError("FeedSignerMismatch")<{
  readonly verification: FeedSignature.VerificationResult
}> {
  readonly code = "SVC_SDK_FEED_SIGNER_MISMATCH" as const
  override get message(): string {
    const v = this.verification
    return `feed signer mismatch: recovered ${v.recoveredSigner ?? "nothing"}, declared ${
      v.declaredSigner ?? "nothing"
    }, ` +
      `expected ${v.expectedSigner ?? "nothing"}`
  }
}

/**
 * The feed is outside its validity window (`generatedAt <= now < validUntil`).
 *
 * @category errors
 * @since 0.1.0
 */
export class FeedExpired extends Data.TaggedError("FeedExpired")<{
  readonly verification: FeedSignature.VerificationResult
  readonly now: number
}> {
  readonly code = "SVC_SDK_FEED_EXPIRED" as const
  override get message(): string {
    return this.verification.expired
      ? `the feed expired (now ${this.now})`
      : `the feed is not yet valid (now ${this.now}; check the clock)`
  }
}

/**
 * No route (or quote) with this id in the current verified feed.
 *
 * @category errors
 * @since 0.1.0
 */
export class RouteNotFound extends Data.TaggedError("RouteNotFound")<{
  readonly routeId?: string | undefined
  readonly quoteId?: string | undefined
  readonly reason: string
}> {
  readonly code = "SVC_SDK_ROUTE_NOT_FOUND" as const
  override get message(): string {
    return this.reason
  }
}

/**
 * A permit request that cannot be normalised locally (`reasonCode` is the core's
 * code: QUOTE_ID_INVALID, AMOUNT_ZERO, PAYER_CHECKSUM_INVALID, ...), or whose
 * signature does not recover to the payer.
 *
 * @category errors
 * @since 0.1.0
 */
export class PermitRequestInvalid extends Data.TaggedError("PermitRequestInvalid")<{
  readonly reasonCode: string
  readonly field: string
  readonly reason: string
}> {
  readonly code = "SVC_SDK_PERMIT_REQUEST_INVALID" as const
  override get message(): string {
    return `${this.field}: ${this.reason} (${this.reasonCode})`
  }
}

/**
 * A permit returned by the server failed verification: permitDigest not
 * recomputable or different, signer not the authority, or amounts, identities,
 * route terms or the transaction not what was requested. `reasons` lists every
 * failed check (PERMIT_DIGEST_MISMATCH, PERMIT_SIGNER_MISMATCH, AMOUNT_IN_MISMATCH, ...).
 *
 * @category errors
 * @since 0.1.0
 */
export class PermitInvalid extends Data.TaggedError("PermitInvalid")<{
  readonly fillId: string | null
  readonly reasons: ReadonlyArray<string>
}> {
  readonly code = "SVC_SDK_PERMIT_INVALID" as const
  override get message(): string {
    return `the permit ${this.fillId ?? "(no fillId)"} failed verification: ${this.reasons.join(", ")}`
  }
}

/**
 * The aggregator asked to sign a message other than the one the client built
 * from the quote: nothing was signed.
 *
 * @category errors
 * @since 0.1.0
 */
export class SigningPayloadMismatch extends Data.TaggedError("SigningPayloadMismatch")<{
  readonly expected: string
  readonly received: string
}> {
  readonly code = "SVC_SDK_SIGNING_PAYLOAD_MISMATCH" as const
  override get message(): string {
    return "the server's signing payload is not the message built locally from the quote; refusing to sign"
  }
}

/**
 * The signer function (or account) failed, or returned something that is not a
 * 65-byte signature.
 *
 * @category errors
 * @since 0.1.0
 */
export class SigningFailed extends Data.TaggedError("SigningFailed")<{
  readonly reason: string
  readonly cause?: unknown
}> {
  readonly code = "SVC_SDK_SIGNING_FAILED" as const
  override get message(): string {
    return `signing failed: ${this.reason}`
  }
}

/**
 * An argument given to the client is malformed (a routeId, fillId or filter).
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidInput extends Data.TaggedError("InvalidInput")<{
  readonly field: string
  readonly reason: string
}> {
  readonly code = "SVC_SDK_INVALID_INPUT" as const
  override get message(): string {
    return `${this.field}: ${this.reason}`
  }
}

/**
 * Fields of a server refusal, shared by {@link HttpError} and {@link RefreshQuote}.
 *
 * @category models
 * @since 0.1.0
 */
export interface ServerRefusal {
  readonly method: string
  readonly url: string
  /** HTTP status. */
  readonly status: number
  /** The server's `error` code (null when the body was not an error body). */
  readonly serverCode: string | null
  readonly reasonCodes: ReadonlyArray<string>
  /** Seconds to wait before retrying (Retry-After header or body), when given. */
  readonly retryAfterSeconds: number | null
  /** Aggregator errors: what to do next (REFRESH_QUOTE, FIX_REQUEST, RETRY_LATER, NONE). */
  readonly action: string | null
  /** Aggregator errors: whether a retry (after the action) can succeed. */
  readonly retryable: boolean | null
  /** The server's human-readable text, when it sent one (never parse it). */
  readonly serverMessage: string | null
  /** Solver errors: the diagnostics object, when sent. */
  readonly diagnostics: Readonly<Record<string, unknown>> | null
}

/**
 * The server refused the request (status >= 400, or an unexpected status). The
 * server's `error` code is `serverCode`; its `reasonCodes` are kept.
 *
 * @category errors
 * @since 0.1.0
 */
export class HttpError extends Data.TaggedError("HttpError")<ServerRefusal> {
  readonly code = "SVC_SDK_HTTP_ERROR" as const
  override get message(): string {
    const reasons = this.reasonCodes.length > 0 ? ` [${this.reasonCodes.join(", ")}]` : ""
    return `${this.method} ${this.url} answered ${this.status} ${this.serverCode ?? "(no error code)"}${reasons}`
  }
}

/**
 * The aggregator refused with `action: REFRESH_QUOTE` (QUOTE_EXPIRED,
 * ROUTE_CLOSED, QUOTE_CHANGED): obtain a new quote, show it, and build again.
 *
 * @category errors
 * @since 0.1.0
 */
export class RefreshQuote extends Data.TaggedError("RefreshQuote")<ServerRefusal> {
  readonly code = "SVC_SDK_REFRESH_QUOTE" as const
  override get message(): string {
    return `the quote must be refreshed: ${this.serverCode ?? "REFRESH_QUOTE"}`
  }
}

/**
 * The request did not get an HTTP response (connection refused or reset, DNS,
 * CORS in a browser, the body cut off).
 *
 * @category errors
 * @since 0.1.0
 */
export class NetworkError extends Data.TaggedError("NetworkError")<{
  readonly method: string
  readonly url: string
  readonly reason: string
  readonly cause?: unknown
}> {
  readonly code = "SVC_SDK_NETWORK_ERROR" as const
  override get message(): string {
    return `${this.method} ${this.url}: ${this.reason}`
  }
}

/**
 * A successful response whose body is not what the operation answers (not JSON,
 * or not matching the resource schema).
 *
 * @category errors
 * @since 0.1.0
 */
export class ResponseInvalid extends Data.TaggedError("ResponseInvalid")<{
  readonly method: string
  readonly url: string
  readonly status: number
  readonly reason: string
}> {
  readonly code = "SVC_SDK_RESPONSE_INVALID" as const
  override get message(): string {
    return `${this.method} ${this.url} answered ${this.status} with an invalid body: ${this.reason}`
  }
}

/**
 * Waiting (for a terminal permit or fill state, or for the stream to recover)
 * took longer than allowed. `last` is the last state seen, if any.
 *
 * @category errors
 * @since 0.1.0
 */
export class Timeout extends Data.TaggedError("Timeout")<{
  readonly operation: string
  readonly afterMs: number
  readonly last?: unknown
}> {
  readonly code = "SVC_SDK_TIMEOUT" as const
  override get message(): string {
    return `${this.operation} did not finish within ${this.afterMs} ms`
  }
}

/**
 * A Promise-API call was cancelled through its AbortSignal.
 *
 * @category errors
 * @since 0.1.0
 */
export class Aborted extends Data.TaggedError("Aborted")<{
  readonly operation: string
}> {
  readonly code = "SVC_SDK_ABORTED" as const
  override get message(): string {
    return `${this.operation} was aborted`
  }
}

/**
 * A bug: an unexpected exception inside the client (reported instead of an
 * untyped throw). Please report it with `cause`.
 *
 * @category errors
 * @since 0.1.0
 */
export class UnexpectedError extends Data.TaggedError("UnexpectedError")<{
  readonly cause: unknown
}> {
  readonly code = "SVC_SDK_UNEXPECTED" as const
  override get message(): string {
    return `unexpected client failure: ${String((this.cause as Error | undefined)?.message ?? this.cause)}`
  }
}

/**
 * Every error the client produces.
 *
 * @category errors
 * @since 0.1.0
 */
export type SvcClientError =
  | DiscoveryInvalid
  | FeedInvalid
  | FeedHashMismatch
  | FeedSignerMismatch
  | FeedExpired
  | RouteNotFound
  | PermitRequestInvalid
  | PermitInvalid
  | SigningPayloadMismatch
  | SigningFailed
  | InvalidInput
  | HttpError
  | RefreshQuote
  | NetworkError
  | ResponseInvalid
  | Timeout
  | Aborted
  | UnexpectedError

/**
 * The code of every client error.
 *
 * @category errors
 * @since 0.1.0
 */
export type SvcClientErrorCode = SvcClientError["code"]

const TAGS: ReadonlySet<string> = new Set([
  "DiscoveryInvalid",
  "FeedInvalid",
  "FeedHashMismatch",
  "FeedSignerMismatch",
  "FeedExpired",
  "RouteNotFound",
  "PermitRequestInvalid",
  "PermitInvalid",
  "SigningPayloadMismatch",
  "SigningFailed",
  "InvalidInput",
  "HttpError",
  "RefreshQuote",
  "NetworkError",
  "ResponseInvalid",
  "Timeout",
  "Aborted",
  "UnexpectedError"
])

/**
 * Whether a value is one of the client's errors.
 *
 * @category errors
 * @since 0.1.0
 */
export const isSvcClientError = (u: unknown): u is SvcClientError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && TAGS.has(u._tag) &&
  "code" in u && typeof u.code === "string" && u.code.startsWith("SVC_SDK_")

/**
 * Errors of a feed read that concern the feed itself (its signature, hash, time
 * window or shape).
 *
 * @category errors
 * @since 0.1.0
 */
export type FeedVerificationError = FeedInvalid | FeedHashMismatch | FeedSignerMismatch | FeedExpired

/**
 * Transport-level errors of any request.
 *
 * @category errors
 * @since 0.1.0
 */
export type RequestError = HttpError | NetworkError | ResponseInvalid
