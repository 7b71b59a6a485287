/**
 * The error codes of the wire: every `error` a solver operation can answer in its
 * ErrorResponse, with its documented HTTP status and meaning, and (re-exported)
 * the aggregator's codes. Clients handle codes and reasonCodes, never message
 * text. These tables, with the reason tables of `@svc/core`'s errors, are the
 * source of docs/errors.md.
 *
 * @since 0.1.0
 */

/**
 * Every solver error code with its HTTP status and meaning.
 *
 * @category errors
 * @since 0.1.0
 */
export const SOLVER_ERRORS = {
  INVALID_REQUEST: {
    status: 400,
    meaning: "the request or a filter does not match the schema (reasonCodes name the fields)"
  },
  IDEMPOTENCY_KEY_MISMATCH: { status: 400, meaning: "the Idempotency-Key header differs from the body idempotencyKey" },
  UNSUPPORTED_STANDARD: { status: 400, meaning: "standard is well formed but not DIRECT or ERC-7683" },
  AMOUNT_INVALID: { status: 400, meaning: "requestedAmountInRaw is 0 or not below 2^128" },
  AMOUNT_TOO_LOW: {
    status: 400,
    meaning: "requestedAmountInRaw is below the route's minimumFillInRaw (or prices to 0)"
  },
  IDENTITY_INVALID: { status: 400, meaning: "a payer or recipient identity is not valid for the route's networks" },
  SIGNATURE_INVALID: { status: 400, meaning: "requestSignature is not a valid ownership proof by the payer" },
  NOT_FOUND: { status: 404, meaning: "no such path, route or permit" },
  ROUTE_NOT_FOUND: { status: 404, meaning: "no route with this routeId in the active signed feed" },
  PERMIT_NOT_FOUND: { status: 404, meaning: "no permit with this fillId" },
  METHOD_NOT_ALLOWED: { status: 405, meaning: "the path exists but not for this method (see Allow)" },
  IDEMPOTENCY_CONFLICT: { status: 409, meaning: "the idempotency key is bound to a different request" },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, meaning: "a request with this key is still being processed; retry it" },
  INSUFFICIENT_CAPACITY: {
    status: 409,
    meaning: "the amount is above maxAvailableInRaw or the destination inventory is short"
  },
  QUOTE_CHANGED: { status: 409, meaning: "the fresh price no longer covers the bound amountOut of the quote" },
  QUOTE_NOT_OPEN: { status: 410, meaning: "the quote is unknown, no longer open or expired; fetch the feed again" },
  BODY_TOO_LARGE: { status: 413, meaning: "the request body exceeds 32 KiB" },
  RATE_LIMITED: { status: 429, meaning: "too many permit requests; retry after Retry-After seconds" },
  INTERNAL_ERROR: { status: 500, meaning: "an internal runtime error" },
  PUBLICATION_CLOSED: { status: 503, meaning: "the operator has paused publication" },
  AUTHORITY_UNAVAILABLE: {
    status: 503,
    meaning: "the signer, store, pricing or connector (e.g. its RPC endpoint) needed for this operation is unavailable"
  }
} as const satisfies Record<string, { readonly status: number; readonly meaning: string }>

/**
 * A solver error code.
 *
 * @category errors
 * @since 0.1.0
 */
export type SolverErrorCode = keyof typeof SOLVER_ERRORS

/**
 * The documented HTTP status of a code.
 *
 * @category errors
 * @since 0.1.0
 */
export const statusOf = (code: SolverErrorCode): number => SOLVER_ERRORS[code].status

/** @since 0.1.0 */
export { AGGREGATOR_ERRORS, type AggregatorErrorCode } from "./schema/Aggregator.ts"
