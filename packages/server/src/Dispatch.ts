/**
 * What happens to every request around the contract's router, in one place:
 *
 * - a request id: a well-formed `X-Request-Id` is kept, else one is made; it is
 *   provided to handlers ({@link RequestId}) and sent back on every response;
 * - a path with a malformed percent-escape is a 404 in the path's error family
 *   (never an empty answer);
 * - `OPTIONS` on a declared path answers the CORS preflight (204, with `Allow`;
 *   the allowed request headers per `Http.preflightHeaders`);
 * - a declared path with another method answers 405 `METHOD_NOT_ALLOWED` with
 *   `Allow`; an undeclared path 404 `NOT_FOUND`, each in the path's family;
 *   `HEAD` is served by the GET operation (the router's own rule);
 * - an internal failure is logged with the request id and answered 500
 *   `INTERNAL_ERROR` (solver) or 503 `SERVICE_UNAVAILABLE` (aggregator, which
 *   documents no 500): no input produces a crash or an unstructured answer;
 * - a request whose client went away before the answer (it closed the
 *   connection) is no failure of svc: it is counted and logged with status 499,
 *   as any request is, without an error line or a trace;
 * - writes (POST) are logged with their status and duration; reads only when
 *   they fail with a 5xx (the hot GET paths are not logged).
 *
 * @since 0.1.0
 */
import { Cause, Clock, Context, Effect } from "effect"
import { HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as AggregatorErrors from "./AggregatorErrors.ts"
import * as Http from "./Http.ts"
import * as HttpMetrics from "./HttpMetrics.ts"
import type { Family, PathTable } from "./Paths.ts"
import * as SolverErrors from "./SolverErrors.ts"

/**
 * The id of the current request.
 *
 * @category services
 * @since 0.1.0
 */
export class RequestId extends Context.Service<RequestId, string>()("@svc/server/RequestId") {}

/**
 * Makes request ids for one server: a random process tag and a counter.
 *
 * @category identifiers
 * @since 0.1.0
 */
export interface RequestIds {
  /** The id of a request: its own `X-Request-Id` when well formed, else a new one. */
  readonly of: (given: string | ReadonlyArray<string> | undefined) => string
}

const GIVEN_ID = /^[A-Za-z0-9._:-]{1,64}$/

/**
 * A request id generator.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const makeRequestIds = (): RequestIds => {
  const bytes = new Uint8Array(4)
  globalThis.crypto.getRandomValues(bytes)
  const tag = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
  let counter = 0
  return {
    of: (given) => {
      if (typeof given === "string" && GIVEN_ID.test(given)) return given
      counter = (counter + 1) % Number.MAX_SAFE_INTEGER
      return `${tag}-${counter.toString(36)}`
    }
  }
}

/**
 * The path of a request URL (without the query).
 *
 * @category http
 * @since 0.1.0
 */
export const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/**
 * Whether every percent-escape of a path decodes.
 *
 * @category http
 * @since 0.1.0
 */
export const decodablePath = (path: string): boolean => {
  if (!path.includes("%")) return true
  try {
    decodeURIComponent(path)
    return true
  } catch {
    return false
  }
}

/**
 * The 404 of a family.
 *
 * @category http
 * @since 0.1.0
 */
export const notFound = (family: Family): HttpServerResponse.HttpServerResponse =>
  family === "aggregator"
    ? AggregatorErrors.fail("NOT_FOUND", ["PATH_NOT_FOUND"])
    : Http.errorResponse(SolverErrors.failure("NOT_FOUND", ["PATH_NOT_FOUND"]))

/**
 * The 405 of a family for a path's `Allow` and methods.
 *
 * @category http
 * @since 0.1.0
 */
export const methodNotAllowed = (
  family: Family,
  allow: string,
  methods: ReadonlyArray<string>
): HttpServerResponse.HttpServerResponse =>
  family === "aggregator"
    ? AggregatorErrors.fail("METHOD_NOT_ALLOWED", [`ALLOWED_${allow.replace(/,\s*/g, "_")}`], { headers: { allow } })
    : Http.errorResponse(SolverErrors.failure("METHOD_NOT_ALLOWED", [`ALLOWED_${methods.join("_")}`]), { allow })

/**
 * The answer of an internal failure of a family.
 *
 * @category http
 * @since 0.1.0
 */
export const internalError = (family: Family): HttpServerResponse.HttpServerResponse =>
  family === "aggregator"
    ? AggregatorErrors.fail("SERVICE_UNAVAILABLE", ["INTERNAL_ERROR"], {
      detail: "an internal error; retry later",
      retryAfterSeconds: 5
    })
    : Http.errorResponse(SolverErrors.failure("INTERNAL_ERROR", ["INTERNAL_ERROR"]))

/** The client closed the connection before the answer: every reason is an interruption by the server for it. */
const isClientAbort = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.length > 0 &&
  cause.reasons.every((r) => r._tag === "Interrupt" && r.annotations.has(HttpServerError.ClientAbort.key))

/** The status recorded for a request whose client went away (nginx's "client closed request"); never sent. */
const CLIENT_CLOSED = HttpServerResponse.empty({ status: 499 })

const isRouteNotFound = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((r) =>
    r._tag === "Fail" && HttpServerError.isHttpServerError(r.error) && r.error.reason._tag === "RouteNotFound"
  )

/**
 * Wraps the router's HTTP effect with the behaviour above.
 *
 * @category http
 * @since 0.1.0
 */
export const wrap = <E, R>(
  table: PathTable,
  ids: RequestIds,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  Exclude<R, RequestId> | HttpServerRequest.HttpServerRequest
> =>
  Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) => {
    // plain composition (no generator): this runs for every request
    const requestId = ids.of(request.headers["x-request-id"])
    const path = pathOf(request.url)
    const method = request.method
    const tagged = (response: HttpServerResponse.HttpServerResponse) =>
      HttpServerResponse.setHeader(response, "x-request-id", requestId)
    if (!decodablePath(path)) return Effect.succeed(tagged(notFound(table.familyOf(path))))
    if (method === "OPTIONS") {
      const info = table.lookup(path)
      return Effect.succeed(tagged(
        info === undefined
          ? notFound(table.familyOf(path))
          : Http.empty(204, {
            ...Http.preflightHeaders(request.headers["access-control-request-headers"]),
            allow: table.allowOf(info)
          })
      ))
    }
    const handled = app.pipe(
      Effect.provideService(RequestId, requestId),
      Effect.catchCause((cause) => {
        if (isRouteNotFound(cause)) {
          const info = table.lookup(path)
          return Effect.succeed(
            info === undefined
              ? notFound(table.familyOf(path))
              : methodNotAllowed(info.family, table.allowOf(info), info.methods)
          )
        }
        if (isClientAbort(cause)) return Effect.succeed(CLIENT_CLOSED)
        return Effect.as(
          Effect.logError("request failed", Cause.pretty(cause)).pipe(Effect.annotateLogs({ requestId, method, path })),
          internalError(table.familyOf(path))
        )
      })
    ) as Effect.Effect<HttpServerResponse.HttpServerResponse, never, Exclude<R, RequestId>>
    const operation = table.lookup(path) === undefined ? "unknown" : HttpMetrics.operationOf(method, path)
    return Effect.flatMap(Clock.currentTimeMillis, (started) =>
      Effect.flatMap(handled, (response) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const measured = HttpMetrics.record(operation, response.status, now - started)
          if (method !== "POST" && response.status < 500) {
            return Effect.as(measured, tagged(response))
          }
          const log = method === "POST"
            ? Effect.logInfo("request").pipe(
              Effect.annotateLogs({ requestId, method, path, status: response.status, ms: now - started })
            )
            : Effect.logWarning("request").pipe(
              Effect.annotateLogs({ requestId, method, path, status: response.status })
            )
          return Effect.as(Effect.andThen(measured, log), tagged(response))
        })))
  })
