/**
 * The failures of the aggregator: {@link AggregatorFailure}, its shorthand, the
 * mapping of a refused permit operation, and the failures of the services the
 * aggregator depends on (publication, store, pricing). Internal: the public
 * names are re-exported by `Aggregator`.
 *
 * @since 0.1.0
 */
import { AGGREGATOR_ERRORS, type AggregatorErrorCode } from "@svc/protocol/schema/Aggregator"
import { Data, Effect } from "effect"
import type { PermitError, PermitErrorReason } from "../../PermitError.ts"
import type { Publication, PublicationUnavailable, Publisher } from "../../Publisher.ts"

/**
 * A refused aggregator operation: a code of `AGGREGATOR_ERRORS`, a safe message
 * (never internal details), reason codes that refine the code, and a retry delay
 * for rate limits and unavailability. The HTTP status and the `AggregatorError`
 * body are the server's business (`@svc/server`).
 *
 * @category errors
 * @since 0.1.0
 */
export class AggregatorFailure extends Data.TaggedError("AggregatorFailure")<{
  readonly code: AggregatorErrorCode
  readonly detail?: string | undefined
  readonly reasonCodes?: ReadonlyArray<string> | undefined
  readonly retryAfterSeconds?: number | undefined
}> {
  override get message(): string {
    return this.detail ?? AGGREGATOR_ERRORS[this.code].meaning
  }
}

/**
 * Shorthand constructor.
 *
 * @category errors
 * @since 0.1.0
 */
export const failure = (
  code: AggregatorErrorCode,
  reasonCodes: ReadonlyArray<string> = [],
  extra?: { readonly detail?: string | undefined; readonly retryAfterSeconds?: number | undefined }
): AggregatorFailure =>
  new AggregatorFailure({
    code,
    reasonCodes,
    ...(extra?.detail === undefined ? {} : { detail: extra.detail }),
    ...(extra?.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: extra.retryAfterSeconds })
  })

/**
 * The safe detail of a permit refusal reason, when it has one.
 *
 * @category errors
 * @since 0.1.0
 */
export const detailOf = (reason: PermitErrorReason): string | undefined =>
  reason._tag === "UnsupportedStandard"
    ? `supported: ${reason.supported.join(", ")}`
    : "detail" in reason && typeof reason.detail === "string"
    ? reason.detail
    : undefined

/**
 * The aggregator failure of a refused permit operation, by its typed reason.
 *
 * @category errors
 * @since 0.1.0
 */
export const fromPermitError = (e: PermitError): AggregatorFailure => {
  const reason = e.reason
  const codes = reason.reasonCodes
  switch (reason._tag) {
    case "RequestInvalid":
    case "IdempotencyKeyMismatch":
    case "UnsupportedStandard":
    case "AmountInvalid":
    case "IdentityInvalid":
      return failure("INVALID_REQUEST", codes, { detail: detailOf(reason) })
    case "AmountTooLow":
      return failure("AMOUNT_TOO_LOW", codes)
    case "SignatureInvalid":
      return failure("SIGNATURE_INVALID", codes)
    case "IdempotencyConflict":
      return failure("IDEMPOTENCY_CONFLICT", codes)
    case "IdempotencyInProgress":
      return failure("IDEMPOTENCY_IN_PROGRESS", codes, { retryAfterSeconds: reason.retryAfterSeconds })
    case "InsufficientCapacity":
      return failure("INSUFFICIENT_CAPACITY", codes, { retryAfterSeconds: 30 })
    case "QuoteChanged":
      return failure("QUOTE_CHANGED", codes)
    case "QuoteNotOpen":
      return reason.codes.includes("QUOTE_EXPIRED") ? failure("QUOTE_EXPIRED", codes) : failure("ROUTE_CLOSED", codes)
    case "RateLimited":
      return failure("RATE_LIMITED", codes, { retryAfterSeconds: reason.retryAfterSeconds })
    case "PermitNotFound":
      return failure("FILL_NOT_FOUND", codes)
    case "PublicationClosed":
      return failure("SERVICE_UNAVAILABLE", codes, { retryAfterSeconds: reason.retryAfterSeconds })
    case "Unavailable":
      return failure("SERVICE_UNAVAILABLE", codes, { retryAfterSeconds: reason.retryAfterSeconds })
  }
}

/**
 * 503 of a publication that cannot be served: closed by the operator (retry in
 * 30 s) or not valid now (retry in 5 s).
 *
 * @category errors
 * @since 0.1.0
 */
export const publicationFailure = (e: PublicationUnavailable): AggregatorFailure =>
  e.closed
    ? failure("SERVICE_UNAVAILABLE", ["PUBLICATION_CLOSED"], { detail: "publication is closed", retryAfterSeconds: 30 })
    : failure("SERVICE_UNAVAILABLE", ["PUBLICATION_UNAVAILABLE"], {
      detail: "no valid publication now",
      retryAfterSeconds: 5
    })

/**
 * 503 of a failing store (retry in 1 s).
 *
 * @category errors
 * @since 0.1.0
 */
export const storeFailure = (): AggregatorFailure =>
  failure("SERVICE_UNAVAILABLE", ["STORE_UNAVAILABLE"], { detail: "storage is unavailable", retryAfterSeconds: 1 })

/**
 * 503 of a failing pricing (retry in 5 s).
 *
 * @category errors
 * @since 0.1.0
 */
export const pricingFailure = (): AggregatorFailure =>
  failure("SERVICE_UNAVAILABLE", ["PRICING_UNAVAILABLE"], { detail: "pricing is unavailable", retryAfterSeconds: 5 })

/**
 * The current publication of a publisher, its unavailability as an aggregator failure.
 *
 * @category errors
 * @since 0.1.0
 */
export const currentPublication = (
  publisher: Pick<Publisher["Service"], "current">
): Effect.Effect<Publication, AggregatorFailure> => publisher.current.pipe(Effect.mapError(publicationFailure))
