/**
 * The aggregator interface's errors on the wire: every refusal under `/v1` (and
 * the aggregator manifest) is an `AggregatorError` body with the status of its
 * code (`AGGREGATOR_ERRORS`), `Cache-Control: no-store` and, with a delay,
 * `Retry-After`.
 *
 * @since 0.1.0
 */
import { Aggregator } from "@svc/core"
import { AGGREGATOR_ERRORS, type AggregatorErrorCode } from "@svc/protocol/ErrorCodes"
import type { AggregatorError } from "@svc/protocol/schema/Aggregator"
import { describeSchemaError } from "@svc/protocol/schema/index"
import type { Schema } from "effect"
import type { HttpServerResponse } from "effect/http"
import * as Http from "./Http.ts"
import { type BodyRefusal, MAX_BODY_BYTES } from "./RequestBody.ts"

/**
 * The `AggregatorError` body of a failure: code, safe message, whether and how to
 * retry (`action`), reason codes and the retry delay.
 *
 * @category http
 * @since 0.1.0
 */
export const errorBody = (f: Aggregator.AggregatorFailure): AggregatorError => {
  const entry = AGGREGATOR_ERRORS[f.code]
  const body: { -readonly [K in keyof AggregatorError]: AggregatorError[K] } = {
    ok: false,
    error: f.code,
    message: f.message,
    retryable: entry.retryable,
    action: entry.action
  }
  if (f.reasonCodes !== undefined && f.reasonCodes.length > 0) body.reasonCodes = [...f.reasonCodes]
  if (f.retryAfterSeconds !== undefined) body.retryAfterSeconds = Math.max(1, Math.ceil(f.retryAfterSeconds))
  return body
}

/**
 * The response of a failure.
 *
 * @category http
 * @since 0.1.0
 */
export const response = (
  f: Aggregator.AggregatorFailure,
  headers: Readonly<Record<string, string>> = {}
): HttpServerResponse.HttpServerResponse => {
  const body = errorBody(f)
  const extra: Record<string, string> = { ...headers }
  if (body.retryAfterSeconds !== undefined) extra["retry-after"] = String(body.retryAfterSeconds)
  return Http.json(AGGREGATOR_ERRORS[f.code].status, body, extra)
}

/**
 * The response of a code.
 *
 * @category http
 * @since 0.1.0
 */
export const fail = (
  code: AggregatorErrorCode,
  reasonCodes: ReadonlyArray<string> = [],
  extra?: {
    readonly detail?: string
    readonly retryAfterSeconds?: number
    readonly headers?: Readonly<Record<string, string>>
  }
): HttpServerResponse.HttpServerResponse => response(Aggregator.failure(code, reasonCodes, extra), extra?.headers)

/**
 * The response of a refused body.
 *
 * @category http
 * @since 0.1.0
 */
export const bodyRefused = (refusal: BodyRefusal): HttpServerResponse.HttpServerResponse =>
  refusal === "BODY_TOO_LARGE"
    ? fail("BODY_TOO_LARGE", ["BODY_TOO_LARGE"], {
      detail: `the body exceeds ${MAX_BODY_BYTES} bytes`,
      headers: { connection: "close" }
    })
    : refusal === "BODY_NOT_JSON"
    ? fail("INVALID_REQUEST", ["BODY_NOT_JSON"], { detail: "the body is not JSON" })
    : refusal === "CONTENT_TYPE_MISSING" || refusal === "CONTENT_TYPE_NOT_JSON"
    ? fail("INVALID_REQUEST", [refusal], { detail: CONTENT_TYPE_DETAIL })
    : fail("INVALID_REQUEST", ["BODY_UNREADABLE"])

const CONTENT_TYPE_DETAIL = "send the body as JSON with Content-Type: application/json"

/**
 * The response of a body that fails its schema: the issues' reason codes and the
 * first issue as the message.
 *
 * @category http
 * @since 0.1.0
 */
export const schemaFailure = (error: Schema.SchemaError): HttpServerResponse.HttpServerResponse => {
  const issues = describeSchemaError(error)
  const codes = [...new Set(issues.map((i) => i.code))]
  const first = issues[0]
  return fail("INVALID_REQUEST", codes.length > 0 ? codes : ["BODY_INVALID"], {
    detail: first === undefined
      ? "the body does not match the schema"
      : `${first.path.length > 0 ? `${first.path.join(".")}: ` : ""}${first.message}`.slice(0, 300)
  })
}
