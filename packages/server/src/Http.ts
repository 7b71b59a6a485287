/**
 * HTTP helpers of the svc server: JSON bodies from prepared bytes, success bodies
 * typed by the contract's declaration of their operation (`success`), the error body
 * (`{ ok: false, error, reasonCodes?, diagnostics? }`) with its documented status,
 * and the caching, CORS and security headers of every response.
 *
 * @since 0.1.0
 */
import { type Api, CACHE_CONTROL, type OperationId } from "@svc/protocol/Api"
import type { SolverErrorCode } from "@svc/protocol/ErrorCodes"
import { HttpServerResponse } from "effect/http"
import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { failure, type SolverFailure, statusOf } from "./SolverErrors.ts"

/** `application/json; charset=utf-8`. */
export const JSON_TYPE = "application/json; charset=utf-8"

/**
 * Cache-Control values of the caching classes the contract declares
 * (`@svc/protocol` Api `CACHE_CONTROL`).
 *
 * @category http
 * @since 0.1.0
 */
export const CacheControl = CACHE_CONTROL

/**
 * The request headers every CORS preflight allows: the ones the interface
 * documents (`Content-Type`, `Idempotency-Key`, `If-None-Match`,
 * `Last-Event-ID`), `X-Request-Id` (kept as the request id when well formed) and
 * `X-Svc-Sdk` (`<language>/<version>`, sent by SDKs on every call).
 *
 * @category http
 * @since 0.1.0
 */
export const CORS_REQUEST_HEADERS: ReadonlyArray<string> = [
  "Content-Type",
  "Idempotency-Key",
  "If-None-Match",
  "Last-Event-ID",
  "X-Request-Id",
  "X-Svc-Sdk"
]

/**
 * The response headers browsers may read (beyond the CORS-safelisted ones such
 * as `Cache-Control`, `Content-Type`, `Content-Length`).
 *
 * @category http
 * @since 0.1.0
 */
export const CORS_EXPOSED_HEADERS: ReadonlyArray<string> = [
  "ETag",
  "Retry-After",
  "RateLimit",
  "RateLimit-Policy",
  "X-Request-Id",
  "Allow",
  "Link"
]

/**
 * CORS headers sent on every response: any origin (`*`, no credentials: svc
 * authenticates with signatures in bodies, never with cookies or
 * `Authorization`) and the exposed headers.
 *
 * @category http
 * @since 0.1.0
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": CORS_EXPOSED_HEADERS.join(", ")
}

/**
 * Headers of a CORS preflight answer (204) that names no extra request header.
 *
 * @category http
 * @since 0.1.0
 */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  ...CORS_HEADERS,
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": CORS_REQUEST_HEADERS.join(", "),
  "access-control-max-age": "86400",
  // the allowed headers echo the request's (see preflightHeaders): caches keep one answer per list
  vary: "Access-Control-Request-Headers"
}

/** A header name a preflight may echo: a plain token (letters, digits, `-`, `_`), at most 64 characters. */
const ECHOABLE = /^[a-z0-9][a-z0-9_-]{0,63}$/

/**
 * Whether a preflight may allow a request header it does not document: a plain
 * token that neither carries credentials (`Authorization`, `Cookie`,
 * `Proxy-*`), nor is reserved to the browser (`Sec-*`), nor names the client to
 * svc or a proxy (`Forwarded`, `X-Forwarded-*`, `X-Real-IP`).
 *
 * @category http
 * @since 0.1.0
 */
export const echoableHeader = (name: string): boolean => {
  const lower = name.toLowerCase()
  return ECHOABLE.test(lower) && lower !== "authorization" && lower !== "cookie" && lower !== "cookie2" &&
    !lower.startsWith("proxy-") && !lower.startsWith("sec-") && lower !== "forwarded" &&
    !lower.startsWith("x-forwarded-") && lower !== "x-real-ip"
}

/** At most this many undocumented request headers are echoed by one preflight. */
const MAX_ECHOED = 16

/**
 * The headers of a CORS preflight answer for its `Access-Control-Request-Headers`:
 * the documented request headers ({@link CORS_REQUEST_HEADERS}) plus every
 * requested header {@link echoableHeader} allows (at most 16); a requested header
 * it refuses is simply not listed, and the browser does not send the request.
 *
 * @category http
 * @since 0.1.0
 */
export const preflightHeaders = (requested: string | ReadonlyArray<string> | undefined): Record<string, string> => {
  const listed = typeof requested === "string" ? requested : requested?.join(",")
  if (listed === undefined || listed.trim().length === 0) return { ...PREFLIGHT_HEADERS }
  const allowed = [...CORS_REQUEST_HEADERS]
  const known = new Set(allowed.map((h) => h.toLowerCase()))
  let echoed = 0
  for (const raw of listed.split(",")) {
    const name = raw.trim().toLowerCase()
    if (name.length === 0 || known.has(name) || !echoableHeader(name)) continue
    if (echoed++ >= MAX_ECHOED) break
    known.add(name)
    allowed.push(name)
  }
  return { ...PREFLIGHT_HEADERS, "access-control-allow-headers": allowed.join(", ") }
}

const BASE_HEADERS: Readonly<Record<string, string>> = {
  ...CORS_HEADERS,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
}

const encoder = new TextEncoder()

/**
 * A JSON response from prepared bytes.
 *
 * @category http
 * @since 0.1.0
 */
export const jsonBytes = (
  status: number,
  body: Uint8Array,
  headers: Readonly<Record<string, string>> = {},
  cacheControl: string = CacheControl.noStore
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.uint8Array(body, {
    status,
    contentType: JSON_TYPE,
    headers: { ...BASE_HEADERS, "cache-control": cacheControl, ...headers }
  })

/**
 * An HTML response from prepared bytes.
 *
 * @category http
 * @since 0.1.0
 */
export const htmlBytes = (
  body: Uint8Array,
  cacheControl: string,
  headers: Readonly<Record<string, string>> = {}
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.uint8Array(body, {
    status: 200,
    contentType: "text/html; charset=utf-8",
    headers: { ...BASE_HEADERS, "cache-control": cacheControl, ...headers }
  })

/**
 * A JSON response of a value (serialized here: for small, per-request bodies only).
 *
 * @category http
 * @since 0.1.0
 */
export const json = (
  status: number,
  value: unknown,
  headers: Readonly<Record<string, string>> = {},
  cacheControl: string = CacheControl.noStore
): HttpServerResponse.HttpServerResponse =>
  jsonBytes(status, encoder.encode(JSON.stringify(value)), headers, cacheControl)

/**
 * Every endpoint the contract (`@svc/protocol/Api`) declares.
 *
 * @category http
 * @since 0.1.0
 */
export type ContractEndpoint = typeof Api extends HttpApi.HttpApi<infer _Id, infer Groups> ?
  HttpApiGroup.Endpoints<Groups>
  : never

/**
 * The success body an endpoint declares: the type of its success schema (of
 * any of them when it declares several statuses; not an empty 304), the value `handle` would
 * encode. The contract's body schemas are plain JSON shapes without
 * transformations (the client's contract generator refuses one), so this value
 * serialized as it is ({@link json}) is the declared body.
 *
 * @category http
 * @since 0.1.0
 */
export type SuccessBody<Endpoint extends HttpApiEndpoint.Constraint> = Exclude<
  HttpApiEndpoint.Success<Endpoint>["Type"],
  void
>

/**
 * The success body of the operation with this operationId ({@link SuccessBody}).
 *
 * @category http
 * @since 0.1.0
 */
export type OperationBody<Id extends OperationId> = SuccessBody<HttpApiEndpoint.WithIdentifier<ContractEndpoint, Id>>

/**
 * A JSON response of a success body of the endpoint a `handleRaw` handler
 * serves (its `endpoint`): the compiler checks the body against the
 * endpoint's declared success schema, and the answer is {@link json}'s, byte for
 * byte (the endpoint is only a type here: nothing more is encoded or checked
 * at run time).
 *
 * @category http
 * @since 0.1.0
 */
export const success = <Endpoint extends HttpApiEndpoint.Constraint>(
  _endpoint: Endpoint,
  status: number,
  body: SuccessBody<Endpoint>,
  headers: Readonly<Record<string, string>> = {},
  cacheControl: string = CacheControl.noStore
): HttpServerResponse.HttpServerResponse => json(status, body, headers, cacheControl)

/**
 * The JSON bytes of a success body of an operation, for a body prepared once
 * and answered many times with {@link jsonBytes}: the compiler checks the body
 * against the operation's declared success schema.
 *
 * @category http
 * @since 0.1.0
 */
export const successBytes = <Id extends OperationId>(_operation: Id, body: OperationBody<Id>): Uint8Array =>
  encoder.encode(JSON.stringify(body))

/**
 * An empty response (304, 204) with headers.
 *
 * @category http
 * @since 0.1.0
 */
export const empty = (
  status: number,
  headers: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.empty({ status, headers: { ...BASE_HEADERS, ...headers } })

/**
 * The error response of a solver failure: documented status, `no-store`,
 * `Retry-After` when the error carries a delay.
 *
 * @category http
 * @since 0.1.0
 */
export const errorResponse = (
  error: SolverFailure,
  extraHeaders: Readonly<Record<string, string>> = {}
): HttpServerResponse.HttpServerResponse => {
  const body: Record<string, unknown> = { ok: false, error: error.code }
  if (error.reasonCodes.length > 0) body.reasonCodes = error.reasonCodes
  if (error.diagnostics !== undefined) body.diagnostics = error.diagnostics
  else if (error.detail !== undefined) body.diagnostics = { detail: error.detail }
  const headers: Record<string, string> = { ...extraHeaders }
  if (error.retryAfterSeconds !== undefined) {
    headers["retry-after"] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)))
  }
  return json(statusOf(error), body, headers)
}

/**
 * Shorthand: the error response of a code.
 *
 * @category http
 * @since 0.1.0
 */
export const fail = (
  code: SolverErrorCode,
  reasonCodes: ReadonlyArray<string> = [],
  extra?: {
    readonly detail?: string
    readonly headers?: Readonly<Record<string, string>>
    readonly retryAfterSeconds?: number
  }
): HttpServerResponse.HttpServerResponse =>
  errorResponse(
    failure(code, reasonCodes, { detail: extra?.detail, retryAfterSeconds: extra?.retryAfterSeconds }),
    extra?.headers
  )

/**
 * Whether an If-None-Match header matches an ETag under the weak comparison
 * (RFC 9110 §13.1.2): `*`, or any listed tag equal once `W/` is ignored.
 *
 * @category http
 * @since 0.1.0
 */
export const ifNoneMatch = (header: string | undefined, etag: string): boolean => {
  if (header === undefined) return false
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "")
  const target = opaque(etag)
  for (const part of header.split(",")) {
    const tag = part.trim()
    if (tag === "*") return true
    if (tag.length > 0 && opaque(tag) === target) return true
  }
  return false
}
