/**
 * The solver operations of `/api/v6` (except the event stream, see Events.ts):
 * the signed feed, route detail, the two permit POSTs and permit status.
 *
 * @since 0.1.0
 */
import { type Permits, Publisher, type RouteMetrics } from "@svc/core"
import {
  describeSchemaError,
  PermitCreateRequest,
  PermitRequest,
  strictParseOptions
} from "@svc/protocol"
import { ByteSize, Effect, Result, Schema } from "effect"
import { HttpIncomingMessage, type HttpServerResponse } from "effect/http"
import * as Compression from "./Compression.ts"
import * as Http from "./Http.ts"
import type { Request, Route } from "./Router.ts"
import * as SolverErrors from "./SolverErrors.ts"
import { BYTES32, IDEMPOTENCY_KEY } from "@svc/protocol/Patterns"

/** Largest request body, bytes (32 KiB). */
export const MAX_BODY_BYTES = 32 * 1024

const KEY = IDEMPOTENCY_KEY

/**
 * Parses a query string, refusing repeated and unknown parameters.
 *
 * @category requests
 * @since 0.1.0
 */
export const parseQuery = (
  query: string,
  allowed: ReadonlyArray<string>
): Result.Result<Record<string, string>, SolverErrors.SolverFailure> => {
  const out: Record<string, string> = {}
  if (query.length === 0) return Result.succeed(out)
  const seen = new Set<string>()
  for (const [key, value] of new URLSearchParams(query)) {
    if (!allowed.includes(key)) {
      return Result.fail(SolverErrors.failure("INVALID_REQUEST", ["UNKNOWN_QUERY_PARAMETER"], { diagnostics: { parameter: key } }))
    }
    if (seen.has(key)) {
      return Result.fail(SolverErrors.failure("INVALID_REQUEST", ["REPEATED_QUERY_PARAMETER"], { diagnostics: { parameter: key } }))
    }
    seen.add(key)
    out[key] = value
  }
  return Result.succeed(out)
}

/**
 * The answer when no publication can be served.
 *
 * @category responses
 * @since 0.1.0
 */
export const unavailable = (e: Publisher.PublicationUnavailable) =>
  Http.errorResponse(SolverErrors.fromPublicationUnavailable(e))

const FEED_VARY = "Accept-Encoding"

const viewRouteIds = new WeakMap<Publisher.FeedView, ReadonlyArray<string>>()

/** The route ids of a view, computed once per view (metrics count exposures per view). */
const routeIdsOf = (view: Publisher.FeedView, routes: ReadonlyArray<{ readonly routeId: string }>) => {
  let ids = viewRouteIds.get(view)
  if (ids === undefined) {
    ids = view.routeIndexes.map((i) => routes[i]!.routeId)
    viewRouteIds.set(view, ids)
  }
  return ids
}

/**
 * What the solver routes work with, resolved once when the routes are built (no
 * per-request service lookups on the hot paths).
 *
 * @category models
 * @since 0.1.0
 */
export interface Services {
  readonly publisher: Publisher.Publisher["Service"]
  readonly permits: Permits.Permits["Service"]
  readonly metrics: RouteMetrics.RouteMetrics["Service"]
}

const ALL: Publisher.FeedFilter = {}
const FEED_PARAMETERS = ["sourceChainId", "sourceNetworkId"]

/** GET /api/v6/solver-feed: plain composition, prepared bytes, no per-request serialization. */
const getFeed = (services: Services) => (request: Request): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  let filter = ALL
  if (request.query.length > 0) {
    const query = parseQuery(request.query, FEED_PARAMETERS)
    if (Result.isFailure(query)) return Effect.succeed(Http.errorResponse(query.failure))
    filter = { sourceChainId: query.success.sourceChainId, sourceNetworkId: query.success.sourceNetworkId }
    const issues = Publisher.filterIssues(filter)
    if (issues.length > 0) return Effect.succeed(Http.fail("INVALID_REQUEST", issues))
  }
  return Effect.matchEffect(services.publisher.current, {
    onFailure: (e) => Effect.succeed(unavailable(e)),
    onSuccess: (publication) => {
      const view = publication.view(filter)
      const headers = { etag: view.etag, vary: FEED_VARY }
      if (Http.ifNoneMatch(request.header("if-none-match"), view.etag)) {
        return Effect.succeed(Http.empty(304, { ...headers, "cache-control": Http.CacheControl.revalidate }))
      }
      services.metrics.exposed(routeIdsOf(view, publication.routes))
      const coding = Compression.negotiate(request.header("accept-encoding"))
      if (coding === "identity") return Effect.succeed(Http.jsonBytes(200, view.body, headers, Http.CacheControl.revalidate))
      return Effect.map(Compression.encoded(view.body, coding), ({ body, coding }) =>
        Http.jsonBytes(
          200,
          body,
          coding === "identity" ? headers : { ...headers, "content-encoding": coding },
          Http.CacheControl.revalidate
        ))
    }
  })
}

const encoder = new TextEncoder()

/** GET /api/v6/routes/{routeId} */
const getRoute = (services: Services) => (request: Request) =>
  Effect.gen(function*() {
    if (request.query.length > 0) {
      const q = parseQuery(request.query, [])
      if (Result.isFailure(q)) return Http.errorResponse(q.failure)
    }
    const routeId = request.params[0] ?? ""
    const current = yield* Effect.result(services.publisher.current)
    if (Result.isFailure(current)) return unavailable(current.failure)
    const index = BYTES32.test(routeId) ? current.success.routeIndexById.get(routeId.toLowerCase()) : undefined
    if (index === undefined) return Http.fail("ROUTE_NOT_FOUND", ["ROUTE_NOT_FOUND"])
    const metrics = yield* services.metrics.metrics(current.success.routes[index]!.routeId)
    const body = `{"ok":true,"route":${current.success.routeTexts[index]},"metrics":${JSON.stringify(metrics)}}`
    return Http.jsonBytes(200, encoder.encode(body))
  })

/**
 * Reads a JSON body of at most 32 KiB: 413 before parsing above it (by
 * Content-Length, or while reading a body without one), 400 when it is not JSON.
 *
 * @category requests
 * @since 0.1.0
 */
export const readJsonBody = (request: Request): Effect.Effect<Result.Result<unknown, HttpServerResponse.HttpServerResponse>> =>
  Effect.gen(function*() {
    const length = request.header("content-length")
    if (length !== undefined && /^[0-9]+$/.test(length) && Number(length) > MAX_BODY_BYTES) {
      return Result.fail(Http.fail("BODY_TOO_LARGE", ["BODY_TOO_LARGE"], { headers: { connection: "close" } }))
    }
    const text = yield* request.raw.text.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES)),
      Effect.result
    )
    if (Result.isFailure(text)) {
      const reason = text.failure.reason
      return Result.fail(
        reason._tag === "RequestParseError" && reason.reason === "BodyTooLarge"
          ? Http.fail("BODY_TOO_LARGE", ["BODY_TOO_LARGE"], { headers: { connection: "close" } })
          : Http.fail("INVALID_REQUEST", ["BODY_UNREADABLE"])
      )
    }
    try {
      return Result.succeed(JSON.parse(text.success) as unknown)
    } catch {
      return Result.fail(Http.fail("INVALID_REQUEST", ["BODY_NOT_JSON"]))
    }
  })

const schemaFailure = (error: Schema.SchemaError) => {
  const issues = describeSchemaError(error)
  const codes = [...new Set(issues.map((i) => i.code))]
  return Http.errorResponse(
    SolverErrors.failure("INVALID_REQUEST", codes.length > 0 ? codes : ["BODY_INVALID"], {
      diagnostics: { issues: issues.slice(0, 20).map((i) => ({ path: i.path, message: i.message })) }
    })
  )
}

const headerKey = (request: Request): Result.Result<string | undefined, HttpServerResponse.HttpServerResponse> => {
  const key = request.header("idempotency-key")
  if (key === undefined) return Result.succeed(undefined)
  return KEY.test(key) ? Result.succeed(key) : Result.fail(Http.fail("INVALID_REQUEST", ["IDEMPOTENCY_KEY_HEADER_INVALID"]))
}

const decodeRequest = Schema.decodeUnknownResult(PermitRequest)
const decodeCreate = Schema.decodeUnknownResult(PermitCreateRequest)

const rateLimitHeaders = (error: SolverErrors.SolverFailure): Record<string, string> => {
  const d = error.diagnostics as { limit?: number; windowSeconds?: number } | undefined
  if (error.code !== "RATE_LIMITED" || d?.limit === undefined) return {}
  return {
    "ratelimit-policy": `"permits";q=${d.limit};w=${d.windowSeconds}`,
    ratelimit: `"permits";r=0;t=${Math.max(1, Math.ceil(error.retryAfterSeconds ?? 1))}`
  }
}

/** POST /api/v6/execution-permits/request-message */
const postRequestMessage = (services: Services) => (request: Request) =>
  Effect.gen(function*() {
    const body = yield* readJsonBody(request)
    if (Result.isFailure(body)) return body.failure
    const decoded = decodeRequest(body.success, strictParseOptions)
    if (Result.isFailure(decoded)) return schemaFailure(decoded.failure)
    const key = headerKey(request)
    if (Result.isFailure(key)) return key.failure
    const permits = services.permits
    const message = yield* Effect.result(permits.requestMessage(decoded.success, { headerIdempotencyKey: key.success }))
    if (Result.isFailure(message)) return Http.errorResponse(SolverErrors.fromPermitError(message.failure))
    return Http.json(200, { ok: true, message: message.success })
  })

/** POST /api/v6/execution-permits */
const postPermit = (services: Services) => (request: Request) =>
  Effect.gen(function*() {
    const body = yield* readJsonBody(request)
    if (Result.isFailure(body)) return body.failure
    const decoded = decodeCreate(body.success, strictParseOptions)
    if (Result.isFailure(decoded)) return schemaFailure(decoded.failure)
    const key = headerKey(request)
    if (Result.isFailure(key)) return key.failure
    const permits = services.permits
    const clientKey = request.raw.remoteAddress._tag === "Some" ? request.raw.remoteAddress.value : "unknown"
    const result = yield* Effect.result(permits.create(decoded.success, { headerIdempotencyKey: key.success, clientKey }))
    if (Result.isFailure(result)) {
      const failed = SolverErrors.fromPermitError(result.failure)
      return Http.errorResponse(failed, rateLimitHeaders(failed))
    }
    const { created, envelope } = result.success
    return Http.json(created ? 201 : 200, { ok: true, idempotent: !created, permit: envelope })
  })

/** GET /api/v6/execution-permits/{fillId} */
const getPermit = (services: Services) => (request: Request) =>
  Effect.gen(function*() {
    if (request.query.length > 0) {
      const q = parseQuery(request.query, [])
      if (Result.isFailure(q)) return Http.errorResponse(q.failure)
    }
    const permits = services.permits
    const envelope = yield* Effect.result(permits.get(request.params[0] ?? ""))
    if (Result.isFailure(envelope)) {
      // the spec gives this operation 200, 404 and 500 only: an unavailable store is a 500 here
      const e = SolverErrors.fromPermitError(envelope.failure)
      return Http.errorResponse(
        e.code === "AUTHORITY_UNAVAILABLE" ? SolverErrors.failure("INTERNAL_ERROR", e.reasonCodes, { detail: e.detail ?? e.code }) : e
      )
    }
    return Http.json(200, { ok: true, permit: envelope.success })
  })

/**
 * The solver routes over their services.
 *
 * @category routes
 * @since 0.1.0
 */
export const make = (services: Services): ReadonlyArray<Route> => [
  { method: "GET", path: "/api/v6/solver-feed", handler: getFeed(services) },
  { method: "GET", path: /^\/api\/v6\/routes\/([^/]+)$/, handler: getRoute(services) },
  { method: "POST", path: "/api/v6/execution-permits/request-message", handler: postRequestMessage(services) },
  { method: "POST", path: "/api/v6/execution-permits", handler: postPermit(services) },
  { method: "GET", path: /^\/api\/v6\/execution-permits\/(?!request-message$)([^/]+)$/, handler: getPermit(services) }
]
