/**
 * Handlers of the contract's Permits group: the request message, permit creation
 * and permit status, over the core's `Permits` service. Bodies are read here
 * (32 KiB before parsing) and decoded strictly with the declared schemas; the
 * core's typed refusals become wire errors through `SolverErrors`.
 *
 * Order of checks of a POST: 413 size, 400 not JSON, 400 schema, 400 a malformed
 * Idempotency-Key header, then the core's own order (see `@svc/core` Permits).
 *
 * @since 0.1.0
 */
import type { PermitError, Permits } from "@svc/core"
import * as Api from "@svc/protocol/Api"
import { IDEMPOTENCY_KEY } from "@svc/protocol/Patterns"
import { strictParseOptions } from "@svc/protocol/schema/index"
import { PermitCreateRequest, PermitRequest } from "@svc/protocol/schema/Permit"
import { Effect, Result, Schema } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import * as ClientAddress from "../ClientAddress.ts"
import * as Dispatch from "../Dispatch.ts"
import * as Http from "../Http.ts"
import * as RequestBody from "../RequestBody.ts"
import * as SolverErrors from "../SolverErrors.ts"

const decodeRequest = Schema.decodeUnknownResult(PermitRequest)
const decodeCreate = Schema.decodeUnknownResult(PermitCreateRequest)

/**
 * A body decoded with a schema, or the refusal to answer.
 *
 * @category http
 * @since 0.1.0
 */
export const decodedBody = <A>(
  request: HttpServerRequest.HttpServerRequest,
  decode: (input: unknown) => Result.Result<A, Schema.SchemaError>
): Effect.Effect<Result.Result<A, HttpServerResponse.HttpServerResponse>> =>
  Effect.map(RequestBody.readJson(request), (body) => {
    if (Result.isFailure(body)) {
      const refused = SolverErrors.bodyRefused(body.failure)
      return Result.fail(Http.errorResponse(refused, refused.code === "BODY_TOO_LARGE" ? { connection: "close" } : {}))
    }
    const decoded = decode(body.success)
    return Result.isFailure(decoded)
      ? Result.fail(Http.errorResponse(SolverErrors.schemaFailure(decoded.failure)))
      : Result.succeed(decoded.success)
  })

/** The Idempotency-Key header, when well formed. */
const headerKey = (
  value: string | undefined
): Result.Result<string | undefined, HttpServerResponse.HttpServerResponse> =>
  value === undefined || IDEMPOTENCY_KEY.test(value)
    ? Result.succeed(value)
    : Result.fail(Http.errorResponse(SolverErrors.failure("INVALID_REQUEST", ["IDEMPOTENCY_KEY_HEADER_INVALID"])))

const rateLimitHeaders = (failure: SolverErrors.SolverFailure): Record<string, string> => {
  const d = failure.diagnostics as { limit?: number; windowSeconds?: number } | undefined
  if (failure.code !== "RATE_LIMITED" || d?.limit === undefined) return {}
  return {
    "ratelimit-policy": `"permits";q=${d.limit};w=${d.windowSeconds}`,
    ratelimit: `"permits";r=0;t=${Math.max(1, Math.ceil(failure.retryAfterSeconds ?? 1))}`
  }
}

/**
 * Logs what failed inside when a permit operation answers 503 (the answer says
 * only which dependency, and the request id ties the two together).
 */
const logInternal = (failure: PermitError.PermitError) =>
  failure.reason._tag === "Unavailable"
    ? Effect.flatMap(Effect.serviceOption(Dispatch.RequestId), (requestId) =>
      Effect.logWarning("permit operation: dependency unavailable").pipe(
        Effect.annotateLogs({
          requestId: requestId._tag === "Some" ? requestId.value : null,
          dependency: failure.reason._tag === "Unavailable" ? failure.reason.dependency : null,
          detail: failure.reason._tag === "Unavailable" ? failure.reason.detail ?? null : null
        })
      ))
    : Effect.void

/**
 * The Permits group's handlers.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (permits: Permits.Permits["Service"]) =>
  HttpApiBuilder.group(Api.Api, "Permits", (handlers) =>
    Effect.succeed(
      handlers
        .handleRaw("buildPermitRequestMessage", ({ endpoint, headers, request }) =>
          Effect.gen(function*() {
            const decoded = yield* decodedBody(request, (u) => decodeRequest(u, strictParseOptions))
            if (Result.isFailure(decoded)) return decoded.failure
            const key = headerKey(headers["idempotency-key"])
            if (Result.isFailure(key)) return key.failure
            const message = yield* Effect.result(
              permits.requestMessage(decoded.success, { headerIdempotencyKey: key.success })
            )
            if (Result.isFailure(message)) {
              yield* logInternal(message.failure)
              return Http.errorResponse(SolverErrors.fromPermitError(message.failure))
            }
            return Http.success(endpoint, 200, { ok: true, message: message.success })
          }))
        .handleRaw("createExecutionPermit", ({ endpoint, headers, request }) =>
          Effect.gen(function*() {
            const decoded = yield* decodedBody(request, (u) => decodeCreate(u, strictParseOptions))
            if (Result.isFailure(decoded)) return decoded.failure
            const key = headerKey(headers["idempotency-key"])
            if (Result.isFailure(key)) return key.failure
            const clientKey = yield* ClientAddress.current
            const result = yield* Effect.result(
              permits.create(decoded.success, { headerIdempotencyKey: key.success, clientKey })
            )
            if (Result.isFailure(result)) {
              yield* logInternal(result.failure)
              const failed = SolverErrors.fromPermitError(result.failure)
              return Http.errorResponse(failed, rateLimitHeaders(failed))
            }
            const { created, envelope } = result.success
            return Http.success(endpoint, created ? 201 : 200, { ok: true, idempotent: !created, permit: envelope })
          }))
        .handleRaw("getExecutionPermit", ({ endpoint, params }) =>
          Effect.gen(function*() {
            const envelope = yield* Effect.result(permits.get(params.fillId))
            if (Result.isSuccess(envelope)) {
              return Http.success(endpoint, 200, { ok: true, permit: envelope.success })
            }
            yield* logInternal(envelope.failure)
            // the spec gives this operation 200, 404 and 500 only: an unavailable store is a 500 here
            const e = SolverErrors.fromPermitError(envelope.failure)
            return Http.errorResponse(
              e.code === "AUTHORITY_UNAVAILABLE" ? SolverErrors.failure("INTERNAL_ERROR", e.reasonCodes) : e
            )
          }))
    ))
