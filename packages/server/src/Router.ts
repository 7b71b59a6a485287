/**
 * Request dispatch of the svc server. One table of routes (method + exact path or
 * pattern); everything the interface promises about paths and methods lives
 * here, in one place:
 *
 * - an unknown path answers 404 `NOT_FOUND`;
 * - a known path with another method answers 405 `METHOD_NOT_ALLOWED` with `Allow`;
 * - `OPTIONS` on a known path answers the CORS preflight (204);
 * - `HEAD` is served by the GET handler (Node sends no body for HEAD);
 * - no per-request work happens before dispatch beyond parsing the path;
 * - a path family with an error body of its own (the aggregator's `/v1`) gets its
 *   404 and 405 from {@link DispatchOptions.errorBodies}.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Http from "./Http.ts"

/**
 * A request as handlers see it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Request {
  readonly raw: HttpServerRequest.HttpServerRequest
  readonly method: string
  readonly path: string
  /** The raw query string, without `?`. */
  readonly query: string
  /** Pattern captures of the path. */
  readonly params: ReadonlyArray<string>
  /** Lowercase header lookup. */
  readonly header: (name: string) => string | undefined
  readonly requestId: string
}

/**
 * A handler.
 *
 * @category models
 * @since 0.1.0
 */
export type Handler<R = never> = (request: Request) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>

/**
 * One entry of the table.
 *
 * @category models
 * @since 0.1.0
 */
export interface Route<R = never> {
  readonly method: "GET" | "POST"
  /** An exact path, or a pattern whose groups become `params`. */
  readonly path: string | RegExp
  readonly handler: Handler<R>
}

const match = (route: Route<unknown>, path: string): ReadonlyArray<string> | undefined => {
  if (typeof route.path === "string") return route.path === path ? [] : undefined
  const m = route.path.exec(path)
  return m === null ? undefined : m.slice(1)
}

const processTag = (() => {
  const bytes = new Uint8Array(4)
  globalThis.crypto.getRandomValues(bytes)
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
})()
let counter = 0
const requestIdOf = (raw: HttpServerRequest.HttpServerRequest): string => {
  const given = raw.headers["x-request-id"]
  if (typeof given === "string" && /^[A-Za-z0-9._:-]{1,64}$/.test(given)) return given
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER
  return `${processTag}-${counter.toString(36)}`
}

/**
 * The 404 / 405 answer of a path family whose error body is not the solver's
 * ErrorResponse. `headers` carries `allow` (405) and `x-request-id`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ErrorBodies {
  /** Whether a path belongs to the family. */
  readonly matches: (path: string) => boolean
  readonly respond: (
    code: "NOT_FOUND" | "METHOD_NOT_ALLOWED",
    headers: Readonly<Record<string, string>>
  ) => HttpServerResponse.HttpServerResponse
}

/**
 * Options of {@link dispatch}.
 *
 * @category models
 * @since 0.1.0
 */
export interface DispatchOptions {
  /** Error bodies by path family (first match wins); other paths get the solver ErrorResponse. */
  readonly errorBodies?: ReadonlyArray<ErrorBodies> | undefined
}

/**
 * The dispatching handler of a route table.
 *
 * @category dispatch
 * @since 0.1.0
 */
export const dispatch = <R>(routes: ReadonlyArray<Route<R>>, options?: DispatchOptions) =>
  Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (raw) => {
    // plain composition (no generator) on this path: it runs for every request
    const url = raw.url
    const q = url.indexOf("?")
    const path = q === -1 ? url : url.slice(0, q)
    const query = q === -1 ? "" : url.slice(q + 1)
    const method = raw.method.toUpperCase()
    const requestId = requestIdOf(raw)
    const methods: Array<string> = []
    let found: { route: Route<R>; params: ReadonlyArray<string> } | undefined
    const wanted = method === "HEAD" ? "GET" : method
    for (const route of routes) {
      const params = match(route as Route<unknown>, path)
      if (params === undefined) continue
      if (!methods.includes(route.method)) methods.push(route.method)
      if (found === undefined && route.method === wanted) found = { route, params }
    }
    if (methods.length === 0) {
      const family = options?.errorBodies?.find((f) => f.matches(path))
      return Effect.succeed(
        family !== undefined
          ? family.respond("NOT_FOUND", { "x-request-id": requestId })
          : Http.fail("NOT_FOUND", ["PATH_NOT_FOUND"], { headers: { "x-request-id": requestId } })
      )
    }
    const allow = [...methods, ...(methods.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ")
    if (method === "OPTIONS") return Effect.succeed(Http.empty(204, { ...Http.PREFLIGHT_HEADERS, allow }))
    if (found === undefined) {
      const family = options?.errorBodies?.find((f) => f.matches(path))
      return Effect.succeed(
        family !== undefined
          ? family.respond("METHOD_NOT_ALLOWED", { allow, "x-request-id": requestId })
          : Http.fail("METHOD_NOT_ALLOWED", [`ALLOWED_${methods.join("_")}`], { headers: { allow, "x-request-id": requestId } })
      )
    }
    const request: Request = {
      raw,
      method,
      path,
      query,
      params: found.params,
      header: (name) => {
        const value = raw.headers[name]
        return typeof value === "string" ? value : undefined
      },
      requestId
    }
    const handled = found.route.handler(request).pipe(
      Effect.catchCause((cause) =>
        Effect.as(
          Effect.logError("request failed", Cause.pretty(cause)).pipe(
            Effect.annotateLogs({ requestId, method, path })
          ),
          Http.fail("INTERNAL_ERROR", ["INTERNAL_ERROR"])
        )
      )
    )
    if (method !== "POST") {
      return Effect.flatMap(handled, (response) => {
        const tagged = HttpServerResponse.setHeader(response, "x-request-id", requestId)
        return response.status < 500
          ? Effect.succeed(tagged)
          : Effect.as(Effect.logWarning("request").pipe(Effect.annotateLogs({ requestId, method, path, status: response.status })), tagged)
      })
    }
    // per-request logging: writes (and failures, see the handler's catch); the hot GET paths are not logged
    return Effect.flatMap(Clock.currentTimeMillis, (started) =>
      Effect.flatMap(handled, (response) =>
        Effect.map(Clock.currentTimeMillis, (now) => now - started).pipe(
          Effect.flatMap((ms) =>
            Effect.logInfo("request").pipe(Effect.annotateLogs({ requestId, method, path, status: response.status, ms }))
          ),
          Effect.as(HttpServerResponse.setHeader(response, "x-request-id", requestId))
        )))
  })
