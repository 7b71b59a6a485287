/**
 * HTTP helpers of the svc server: JSON bodies from prepared bytes, the error body
 * (`{ ok: false, error, reasonCodes?, diagnostics? }`) with its documented status,
 * and the caching, CORS and security headers of every response.
 *
 * @since 0.1.0
 */
import { CACHE_CONTROL } from "@svc/protocol/Api"
import type { SolverErrorCode } from "@svc/protocol/ErrorCodes"
import { HttpServerResponse } from "effect/http"
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
 * CORS headers sent on every response.
 *
 * @category http
 * @since 0.1.0
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "ETag, Retry-After, RateLimit, RateLimit-Policy"
}

/**
 * Headers of a CORS preflight answer (204).
 *
 * @category http
 * @since 0.1.0
 */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  ...CORS_HEADERS,
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "Content-Type, Idempotency-Key, If-None-Match, Last-Event-ID",
  "access-control-max-age": "86400"
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
export const htmlBytes = (body: Uint8Array, cacheControl: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.uint8Array(body, {
    status: 200,
    contentType: "text/html; charset=utf-8",
    headers: { ...BASE_HEADERS, "cache-control": cacheControl }
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
