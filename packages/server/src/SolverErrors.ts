/**
 * The solver interface's errors on the wire: the `ErrorResponse` of every refusal,
 * with the code and status of `@svc/protocol`'s ErrorCodes table. The core's
 * typed errors (a `PermitError` reason, an unavailable publication) become wire
 * failures here, and only here: the core knows no HTTP status.
 *
 * @since 0.1.0
 */
import type { PermitError, Publisher } from "@svc/core"
import { type CodeTable, DEPENDENCIES, type PermitErrorReason, REASON_CODES } from "@svc/core/PermitError"
import { SOLVER_ERRORS, type SolverErrorCode } from "@svc/protocol/ErrorCodes"
import { describeSchemaError } from "@svc/protocol/schema/index"
import type { Schema } from "effect"
import type { BodyRefusal } from "./RequestBody.ts"

/**
 * A refusal as the wire carries it: `{ ok: false, error: code, reasonCodes?,
 * diagnostics? }` with the code's status, and `Retry-After` when a delay is known.
 *
 * @category models
 * @since 0.1.0
 */
export interface SolverFailure {
  readonly code: SolverErrorCode
  readonly reasonCodes: ReadonlyArray<string>
  /** Shown as `diagnostics.detail` when there are no diagnostics. */
  readonly detail?: string | undefined
  readonly diagnostics?: Record<string, unknown> | undefined
  readonly retryAfterSeconds?: number | undefined
}

/**
 * A failure of a code.
 *
 * @category constructors
 * @since 0.1.0
 */
export const failure = (
  code: SolverErrorCode,
  reasonCodes: ReadonlyArray<string> = [],
  extra?: {
    readonly detail?: string | undefined
    readonly diagnostics?: Record<string, unknown> | undefined
    readonly retryAfterSeconds?: number | undefined
  }
): SolverFailure => ({
  code,
  reasonCodes,
  ...(extra?.detail === undefined ? {} : { detail: extra.detail }),
  ...(extra?.diagnostics === undefined ? {} : { diagnostics: extra.diagnostics }),
  ...(extra?.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: extra.retryAfterSeconds })
})

/**
 * The documented status of a failure.
 *
 * @category http
 * @since 0.1.0
 */
export const statusOf = (f: SolverFailure): number => SOLVER_ERRORS[f.code].status

/**
 * The wire code of each reason of a `PermitError`.
 *
 * @category errors
 * @since 0.1.0
 */
export const WIRE_CODES = {
  RequestInvalid: "INVALID_REQUEST",
  IdempotencyKeyMismatch: "IDEMPOTENCY_KEY_MISMATCH",
  UnsupportedStandard: "UNSUPPORTED_STANDARD",
  AmountInvalid: "AMOUNT_INVALID",
  AmountTooLow: "AMOUNT_TOO_LOW",
  IdentityInvalid: "IDENTITY_INVALID",
  SignatureInvalid: "SIGNATURE_INVALID",
  PermitNotFound: "PERMIT_NOT_FOUND",
  IdempotencyConflict: "IDEMPOTENCY_CONFLICT",
  IdempotencyInProgress: "IDEMPOTENCY_IN_PROGRESS",
  InsufficientCapacity: "INSUFFICIENT_CAPACITY",
  QuoteChanged: "QUOTE_CHANGED",
  QuoteNotOpen: "QUOTE_NOT_OPEN",
  RateLimited: "RATE_LIMITED",
  PublicationClosed: "PUBLICATION_CLOSED",
  Unavailable: "AUTHORITY_UNAVAILABLE"
} as const satisfies { readonly [Tag in PermitErrorReason["_tag"]]: SolverErrorCode }

/**
 * The reason codes the HTTP layer itself answers (requests that never reach the
 * core, paths, methods, bodies, the stream), by wire code.
 *
 * @category errors
 * @since 0.1.0
 */
export const TRANSPORT_REASON_CODES = {
  INVALID_REQUEST: {
    UNKNOWN_FIELD: "a property the schema does not list (bodies are never stripped); `diagnostics.issues` names it",
    "BODY_NOT_JSON, BODY_UNREADABLE, BODY_INVALID": "the body is not JSON, cannot be read, or is not an object",
    "CONTENT_TYPE_MISSING, CONTENT_TYPE_NOT_JSON":
      "a body sent without `Content-Type`, or as another media type than `application/json` (such as `text/plain`); refused before it is read",
    "UNKNOWN_QUERY_PARAMETER, REPEATED_QUERY_PARAMETER":
      "a query parameter the operation does not take, or one given twice",
    "SOURCE_CHAIN_ID_INVALID, SOURCE_NETWORK_ID_INVALID": "a feed filter that does not match its pattern",
    IDEMPOTENCY_KEY_HEADER_INVALID: "the Idempotency-Key header does not match `^[a-zA-Z0-9._:-]{8,128}$`",
    HOST_HEADER_REPEATED:
      "the request has more than one `Host` header (RFC 9112 section 3.2, on every path); the connection is closed after the answer"
  },
  NOT_FOUND: { PATH_NOT_FOUND: "no such path" },
  ROUTE_NOT_FOUND: {
    ROUTE_NOT_FOUND: "no route with this routeId in the active feed; a malformed routeId answers the same"
  },
  METHOD_NOT_ALLOWED: { "ALLOWED_<METHODS>": "the methods of the path, also in the `Allow` header" },
  BODY_TOO_LARGE: { BODY_TOO_LARGE: "above 32,768 bytes; answered before parsing" },
  INTERNAL_ERROR: {
    INTERNAL_ERROR: "a failure inside svc (logged with the request id); also a store failure on permit status"
  },
  PUBLICATION_CLOSED: { SHUTTING_DOWN: "the server is stopping" },
  AUTHORITY_UNAVAILABLE: {
    PUBLICATION_UNAVAILABLE: "no valid publication (not published yet, or the last one expired)",
    TOO_MANY_SUBSCRIBERS: "the event stream is at its subscriber cap",
    TOO_MANY_CLIENT_SUBSCRIBERS: "the client address holds `SVC_SSE_MAX_SUBSCRIBERS_PER_CLIENT` event streams",
    FEED_RATE_LIMITED:
      "the client made more than `SVC_FEED_RATE_LIMIT` feed requests in `SVC_FEED_RATE_WINDOW_SECONDS` (`Retry-After`, `RateLimit`, `RateLimit-Policy`); the event stream is the way to follow the feed",
    TOO_MANY_CLIENT_CONNECTIONS:
      "the client address holds `SVC_MAX_CONNECTIONS_PER_CLIENT` connections (the connection is closed after the answer)",
    SHUTTING_DOWN:
      "the server stopped while the request body was still arriving; the connection is closed after the answer, retry"
  }
} as const satisfies Partial<Record<SolverErrorCode, CodeTable>>

/**
 * Every reason code a wire code can carry, with its meaning: the core's reason
 * tables under their wire code, then the HTTP layer's own.
 *
 * @category errors
 * @since 0.1.0
 */
export const reasonCodesByWireCode = (): ReadonlyArray<readonly [SolverErrorCode, string, string]> => {
  const rows: Array<readonly [SolverErrorCode, string, string]> = []
  for (const code of Object.keys(SOLVER_ERRORS) as Array<SolverErrorCode>) {
    for (const [tag, wire] of Object.entries(WIRE_CODES)) {
      if (wire !== code) continue
      for (const [reason, meaning] of Object.entries(REASON_CODES[tag as keyof typeof REASON_CODES])) {
        rows.push([code, reason, meaning])
      }
    }
    const own = (TRANSPORT_REASON_CODES as Partial<Record<SolverErrorCode, CodeTable>>)[code]
    for (const [reason, meaning] of Object.entries(own ?? {})) rows.push([code, reason, meaning])
  }
  return rows
}

/**
 * The wire code, diagnostics and retry delay of each reason of a `PermitError`.
 *
 * @category errors
 * @since 0.1.0
 */
export const fromPermitReason = (reason: PermitErrorReason): SolverFailure =>
  failure(WIRE_CODES[reason._tag], reason.reasonCodes, extrasOf(reason))

/** The diagnostics, detail and retry delay a reason shows on the wire. */
const extrasOf = (reason: PermitErrorReason): Parameters<typeof failure>[2] => {
  switch (reason._tag) {
    case "UnsupportedStandard":
      return { detail: `supported: ${reason.supported.join(", ")}` }
    case "AmountInvalid":
    case "PermitNotFound":
      return undefined
    case "AmountTooLow":
      return {
        diagnostics: reason.minimumFillInRaw === undefined ? undefined : { minimumFillInRaw: reason.minimumFillInRaw }
      }
    case "IdentityInvalid":
      return {
        detail: reason.detail,
        diagnostics: reason.canonicalLocator === undefined ? undefined : { canonicalLocator: reason.canonicalLocator }
      }
    case "InsufficientCapacity":
      return { diagnostics: reason.diagnostics }
    case "QuoteChanged":
      return {
        diagnostics: { boundAmountOutRaw: reason.boundAmountOutRaw, freshAmountOutRaw: reason.freshAmountOutRaw }
      }
    case "RateLimited":
      return {
        retryAfterSeconds: reason.retryAfterSeconds,
        diagnostics: { limit: reason.limit, windowSeconds: reason.windowSeconds }
      }
    case "IdempotencyInProgress":
    case "PublicationClosed":
      return { detail: reason.detail, retryAfterSeconds: reason.retryAfterSeconds }
    case "Unavailable":
      // what failed inside (a driver message, an RPC URL) stays in the log, under the request id
      return {
        detail: `${DEPENDENCIES[reason.dependency]} is unavailable; retry after ${reason.retryAfterSeconds} s`,
        retryAfterSeconds: reason.retryAfterSeconds
      }
    case "RequestInvalid":
    case "IdempotencyKeyMismatch":
    case "SignatureInvalid":
    case "IdempotencyConflict":
    case "QuoteNotOpen":
      return { detail: reason.detail }
  }
}

/**
 * The wire failure of a `PermitError`.
 *
 * @category errors
 * @since 0.1.0
 */
export const fromPermitError = (e: PermitError.PermitError): SolverFailure => fromPermitReason(e.reason)

/**
 * The answer when no publication can be served: 503 PUBLICATION_CLOSED while the
 * operator paused publication, else 503 AUTHORITY_UNAVAILABLE.
 *
 * @category errors
 * @since 0.1.0
 */
export const fromPublicationUnavailable = (e: Publisher.PublicationUnavailable): SolverFailure =>
  e.closed
    ? failure("PUBLICATION_CLOSED", ["PUBLICATION_CLOSED"], { detail: e.reason, retryAfterSeconds: 30 })
    : failure("AUTHORITY_UNAVAILABLE", ["PUBLICATION_UNAVAILABLE"], { detail: e.reason, retryAfterSeconds: 5 })

/**
 * The failure of a refused body: 413 (the connection is closed after it) or 400.
 *
 * @category errors
 * @since 0.1.0
 */
export const bodyRefused = (refusal: BodyRefusal): SolverFailure =>
  refusal === "BODY_TOO_LARGE"
    ? failure("BODY_TOO_LARGE", ["BODY_TOO_LARGE"])
    : refusal === "CONTENT_TYPE_MISSING" || refusal === "CONTENT_TYPE_NOT_JSON"
    ? failure("INVALID_REQUEST", [refusal], { detail: "send the body as JSON with Content-Type: application/json" })
    : failure("INVALID_REQUEST", [refusal])

/**
 * The failure of a body that fails its schema: one reason code per issue kind,
 * and the first 20 issues as diagnostics.
 *
 * @category errors
 * @since 0.1.0
 */
export const schemaFailure = (error: Schema.SchemaError): SolverFailure => {
  const issues = describeSchemaError(error)
  const codes = [...new Set(issues.map((i) => i.code))]
  return failure("INVALID_REQUEST", codes.length > 0 ? codes : ["BODY_INVALID"], {
    diagnostics: { issues: issues.slice(0, 20).map((i) => ({ path: i.path, message: i.message })) }
  })
}
