/**
 * The aggregator interface over HTTP: `POST /v1/quote`, `POST /v1/build`,
 * `GET /v1/status`, `GET /v1/chains`, `GET /v1/tokens`, `GET /v1/health` and
 * `GET /.well-known/svc-aggregator.json`, as routes of the shared router.
 *
 * Every failure is an `AggregatorError` body with its documented status
 * (`AGGREGATOR_ERRORS`), `Cache-Control: no-store` and, with a delay,
 * `Retry-After`. What each request goes through, in order:
 *
 * 1. Origin allow-list (only when one is configured; requests without an Origin
 *    header pass): 403 ORIGIN_NOT_ALLOWED;
 * 2. per-client rate limits (client = remote address): every `/v1` request counts
 *    against `requestsPerWindow`, quote and build POSTs also against
 *    `quoteAndBuildPerWindow` (each build stage counts): 429 RATE_LIMITED with
 *    `Retry-After`, `RateLimit` and `RateLimit-Policy`; admitted responses carry
 *    `RateLimit` and `RateLimit-Policy` too;
 * 3. query parameters: unknown or repeated ones 400;
 * 4. POST bodies: above 32 KiB 413 (before parsing), not JSON 400, strict schema
 *    decoding (unknown keys, fee or execution-field overrides) 400;
 * 5. the operation (core `Aggregator` service).
 *
 * An internal failure is answered 503 SERVICE_UNAVAILABLE (the aggregator
 * interface documents no 500); no input produces a 5xx. 404 and 405 under `/v1`
 * are `AggregatorError` bodies too (see {@link errorBodies}).
 *
 * Chains and tokens carry a weak ETag (`W/"<dataVersion>-<first 16 hex of
 * feedHash>-chains"`, `...-tokens-<chainId|all>`), `Cache-Control: no-cache`, and
 * answer 304 on a matching If-None-Match.
 *
 * @since 0.1.0
 */
import { Aggregator, RateLimit } from "@svc/core"
import {
  AGGREGATOR_ERRORS,
  AggregatorBuildRequest,
  type AggregatorError,
  AggregatorQuoteRequest,
  describeSchemaError,
  strictParseOptions
} from "@svc/protocol"
import { ByteSize, Cause, Effect, Result, Schema } from "effect"
import { HttpIncomingMessage, HttpServerResponse } from "effect/http"
import * as Http from "./Http.ts"
import type { ErrorBodies, Request, Route } from "./Router.ts"
import { MAX_BODY_BYTES, parseQuery } from "./SolverRoutes.ts"

/**
 * Options of the aggregator routes.
 *
 * @category models
 * @since 0.1.0
 */
export interface AggregatorRoutesOptions {
  /** Per-client limits (default: 120 requests per 60 s, of which 20 quote/build POSTs). */
  readonly rateLimits?: Aggregator.RateLimits | undefined
  /**
   * Browser Origins allowed to call `/v1` (`https://wallet.example`). Absent or
   * empty: every Origin is allowed. Requests without an Origin header always pass.
   */
  readonly origins?: ReadonlyArray<string> | undefined
}

type Failure = Aggregator.AggregatorFailure

/**
 * The response of an aggregator failure.
 *
 * @category responses
 * @since 0.1.0
 */
export const failureResponse = (
  f: Failure,
  headers: Readonly<Record<string, string>> = {}
): HttpServerResponse.HttpServerResponse => {
  const body = errorBody(f)
  const extra: Record<string, string> = { ...headers }
  if (body.retryAfterSeconds !== undefined) extra["retry-after"] = String(body.retryAfterSeconds)
  return Http.json(AGGREGATOR_ERRORS[f.code].status, body, extra)
}

/**
 * The `AggregatorError` body of a failure: code, safe message, whether and how to
 * retry (`action`), reason codes and the retry delay.
 *
 * @category responses
 * @since 0.1.0
 */
export const errorBody = (f: Failure): AggregatorError => {
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

const fail = (
  code: Parameters<typeof Aggregator.failure>[0],
  reasonCodes: ReadonlyArray<string> = [],
  extra?: { readonly detail?: string; readonly retryAfterSeconds?: number; readonly headers?: Readonly<Record<string, string>> }
) => failureResponse(Aggregator.failure(code, reasonCodes, extra), extra?.headers)

/**
 * 404 and 405 for `/v1` paths and the aggregator manifest, as `AggregatorError`.
 *
 * @category routes
 * @since 0.1.0
 */
export const errorBodies: ErrorBodies = {
  matches: (path) => path === "/v1" || path.startsWith("/v1/") || path === "/.well-known/svc-aggregator.json",
  respond: (code, headers) =>
    code === "NOT_FOUND"
      ? fail("NOT_FOUND", ["PATH_NOT_FOUND"], { headers })
      : fail("METHOD_NOT_ALLOWED", [`ALLOWED_${(headers.allow ?? "").replace(/,\s*/g, "_")}`], { headers })
}

const schemaFailure = (error: Schema.SchemaError) => {
  const issues = describeSchemaError(error)
  const codes = [...new Set(issues.map((i) => i.code))]
  const first = issues[0]
  return fail("INVALID_REQUEST", codes.length > 0 ? codes : ["BODY_INVALID"], {
    detail: first === undefined
      ? "the body does not match the schema"
      : `${first.path.length > 0 ? `${first.path.join(".")}: ` : ""}${first.message}`.slice(0, 300)
  })
}

/** Reads a JSON body of at most 32 KiB: 413 before parsing above it, 400 when not JSON. */
const readJsonBody = (request: Request): Effect.Effect<Result.Result<unknown, HttpServerResponse.HttpServerResponse>> =>
  Effect.gen(function*() {
    const tooLarge = () =>
      fail("BODY_TOO_LARGE", ["BODY_TOO_LARGE"], { detail: `the body exceeds ${MAX_BODY_BYTES} bytes`, headers: { connection: "close" } })
    const length = request.header("content-length")
    if (length !== undefined && /^[0-9]+$/.test(length) && Number(length) > MAX_BODY_BYTES) return Result.fail(tooLarge())
    const text = yield* request.raw.text.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES)),
      Effect.result
    )
    if (Result.isFailure(text)) {
      const reason = text.failure.reason
      return Result.fail(
        reason._tag === "RequestParseError" && reason.reason === "BodyTooLarge"
          ? tooLarge()
          : fail("INVALID_REQUEST", ["BODY_UNREADABLE"])
      )
    }
    try {
      return Result.succeed(JSON.parse(text.success) as unknown)
    } catch {
      return Result.fail(fail("INVALID_REQUEST", ["BODY_NOT_JSON"], { detail: "the body is not JSON" }))
    }
  })

const decodeQuote = Schema.decodeUnknownResult(AggregatorQuoteRequest)
const decodeBuild = Schema.decodeUnknownResult(AggregatorBuildRequest)

const CHAIN_ID = /^[1-9][0-9]{0,15}$/

const normalizeOrigin = (origin: string) => origin.trim().toLowerCase().replace(/\/+$/, "")

interface Cached {
  readonly etag: string
  readonly body: Uint8Array
}

const encoder = new TextEncoder()

/**
 * The aggregator routes over the `Aggregator` service in context.
 *
 * @category routes
 * @since 0.1.0
 */
export const make = (options?: AggregatorRoutesOptions) =>
  Effect.gen(function*() {
    const aggregator = yield* Aggregator.Aggregator
    const limits = options?.rateLimits ?? Aggregator.DEFAULT_RATE_LIMITS
    const all = RateLimit.makeMemory({ limit: limits.requestsPerWindow, windowSeconds: limits.windowSeconds })
    const writes = RateLimit.makeMemory({ limit: limits.quoteAndBuildPerWindow, windowSeconds: limits.windowSeconds })
    const policy = `"requests";q=${limits.requestsPerWindow};w=${limits.windowSeconds}, "quote-build";q=${limits.quoteAndBuildPerWindow};w=${limits.windowSeconds}`
    const origins = new Set((options?.origins ?? []).map(normalizeOrigin).filter((o) => o.length > 0))
    const manifest = encoder.encode(JSON.stringify(aggregator.manifest))

    /** Origin and rate limits: a refusal, or the RateLimit headers of the admission. */
    const admit = (request: Request, write: boolean) =>
      Effect.gen(function*() {
        if (origins.size > 0) {
          const origin = request.header("origin")
          if (origin !== undefined && !origins.has(normalizeOrigin(origin))) {
            return Result.fail(fail("ORIGIN_NOT_ALLOWED", ["ORIGIN_NOT_ALLOWED"], {
              detail: "this browser Origin is not on the allow-list"
            }))
          }
        }
        const client = request.raw.remoteAddress._tag === "Some" ? request.raw.remoteAddress.value : "unknown"
        const limited = (name: string, l: RateLimit.Limited) =>
          Result.fail(fail("RATE_LIMITED", [name === "requests" ? "REQUEST_RATE_LIMITED" : "QUOTE_BUILD_RATE_LIMITED"], {
            detail: `at most ${l.limit} ${name === "requests" ? "requests" : "quote and build requests"} per ${l.windowSeconds} s per client`,
            retryAfterSeconds: l.retryAfterSeconds,
            headers: { "ratelimit-policy": policy, ratelimit: `"${name}";r=0;t=${l.retryAfterSeconds}` }
          }))
        const admitted = yield* Effect.result(all.consume(client))
        if (Result.isFailure(admitted)) return limited("requests", admitted.failure)
        let tightest: { name: string; admitted: RateLimit.Admitted } = { name: "requests", admitted: admitted.success }
        if (write) {
          const w = yield* Effect.result(writes.consume(client))
          if (Result.isFailure(w)) return limited("quote-build", w.failure)
          if (w.success.remaining < tightest.admitted.remaining) tightest = { name: "quote-build", admitted: w.success }
        }
        return Result.succeed({
          "ratelimit-policy": policy,
          ratelimit: `"${tightest.name}";r=${tightest.admitted.remaining};t=${tightest.admitted.resetSeconds}`
        })
      })

    /** Wraps a handler: admission, headers, and a 503 for any internal failure. */
    const guarded = (
      write: boolean,
      handler: (request: Request) => Effect.Effect<HttpServerResponse.HttpServerResponse>
    ) =>
    (request: Request) =>
      Effect.gen(function*() {
        const admission = yield* admit(request, write)
        if (Result.isFailure(admission)) return admission.failure
        const response = yield* handler(request)
        return HttpServerResponse.setHeaders(response, admission.success)
      }).pipe(
        Effect.catchCause((cause) =>
          Effect.as(
            Effect.logError("aggregator request failed", Cause.pretty(cause)).pipe(
              Effect.annotateLogs({ requestId: request.requestId, path: request.path })
            ),
            fail("SERVICE_UNAVAILABLE", ["INTERNAL_ERROR"], { detail: "an internal error; retry later", retryAfterSeconds: 5 })
          )
        )
      )

    const noQuery = (request: Request) => {
      const q = parseQuery(request.query, [])
      return Result.isFailure(q) ? fail("INVALID_REQUEST", q.failure.reasonCodes, { detail: "this operation takes no query parameters" }) : undefined
    }

    const answer = <A>(effect: Effect.Effect<A, Failure>) =>
      Effect.map(Effect.result(effect), (r) => Result.isFailure(r) ? failureResponse(r.failure) : Http.json(200, r.success))

    const postQuote = (request: Request) =>
      Effect.gen(function*() {
        const bad = noQuery(request)
        if (bad !== undefined) return bad
        const body = yield* readJsonBody(request)
        if (Result.isFailure(body)) return body.failure
        const decoded = decodeQuote(body.success, strictParseOptions)
        if (Result.isFailure(decoded)) return schemaFailure(decoded.failure)
        return yield* answer(aggregator.quote(decoded.success))
      })

    const postBuild = (request: Request) =>
      Effect.gen(function*() {
        const bad = noQuery(request)
        if (bad !== undefined) return bad
        const body = yield* readJsonBody(request)
        if (Result.isFailure(body)) return body.failure
        const decoded = decodeBuild(body.success, strictParseOptions)
        if (Result.isFailure(decoded)) return schemaFailure(decoded.failure)
        return yield* answer(aggregator.build(decoded.success))
      })

    const getStatus = (request: Request) =>
      Effect.gen(function*() {
        const query = parseQuery(request.query, ["fillId", "sourceTxHash", "quoteId", "userAddress", "quoteToken"])
        if (Result.isFailure(query)) {
          return fail("INVALID_REQUEST", query.failure.reasonCodes, {
            detail: "give exactly one of fillId, sourceTxHash, quoteId, userAddress, quoteToken"
          })
        }
        const lookup = Aggregator.statusLookupOf(query.success)
        if (Result.isFailure(lookup)) return failureResponse(lookup.failure)
        return yield* answer(aggregator.status(lookup.success))
      })

    /** A cached, prepared body with its ETag; 304 on a matching If-None-Match. */
    let cacheVersion = ""
    const cache = new Map<string, Cached>()
    const revalidated = (request: Request, version: string, key: string, value: () => unknown) => {
      if (version !== cacheVersion) {
        cache.clear()
        cacheVersion = version
      }
      let entry = cache.get(key)
      if (entry === undefined) {
        entry = { etag: `W/"${version}-${key}"`, body: encoder.encode(JSON.stringify(value())) }
        cache.set(key, entry)
      }
      if (Http.ifNoneMatch(request.header("if-none-match"), entry.etag)) {
        return Http.empty(304, { etag: entry.etag, "cache-control": Http.CacheControl.revalidate })
      }
      return Http.jsonBytes(200, entry.body, { etag: entry.etag }, Http.CacheControl.revalidate)
    }

    const getChains = (request: Request) =>
      Effect.gen(function*() {
        const bad = noQuery(request)
        if (bad !== undefined) return bad
        const chains = yield* Effect.result(aggregator.chains)
        if (Result.isFailure(chains)) return failureResponse(chains.failure)
        const { value, version } = chains.success
        return revalidated(request, version, "chains", () => value)
      })

    const getTokens = (request: Request) =>
      Effect.gen(function*() {
        const query = parseQuery(request.query, ["chainId"])
        if (Result.isFailure(query)) {
          return fail("INVALID_REQUEST", query.failure.reasonCodes, { detail: "the only query parameter is chainId" })
        }
        const raw = query.success.chainId
        if (raw !== undefined && !(CHAIN_ID.test(raw) && Number.isSafeInteger(Number(raw)))) {
          return fail("INVALID_REQUEST", ["CHAIN_ID_INVALID"], { detail: "chainId: an integer >= 1" })
        }
        const chainId = raw === undefined ? undefined : Number(raw)
        const tokens = yield* Effect.result(aggregator.tokens(chainId))
        if (Result.isFailure(tokens)) return failureResponse(tokens.failure)
        const { value, version } = tokens.success
        return revalidated(request, version, `tokens-${chainId ?? "all"}`, () => value)
      })

    const getHealth = (request: Request) =>
      Effect.gen(function*() {
        const bad = noQuery(request)
        if (bad !== undefined) return bad
        return Http.json(200, yield* aggregator.health)
      })

    const routes: ReadonlyArray<Route> = [
      {
        method: "GET",
        path: "/.well-known/svc-aggregator.json",
        handler: () =>
          Effect.succeed(Http.jsonBytes(200, manifest, { link: `</.well-known/svc-aggregator.json>; rel="canonical"` }, Http.CacheControl.manifest))
      },
      { method: "POST", path: "/v1/quote", handler: guarded(true, postQuote) },
      { method: "POST", path: "/v1/build", handler: guarded(true, postBuild) },
      { method: "GET", path: "/v1/status", handler: guarded(false, getStatus) },
      { method: "GET", path: "/v1/chains", handler: guarded(false, getChains) },
      { method: "GET", path: "/v1/tokens", handler: guarded(false, getTokens) },
      { method: "GET", path: "/v1/health", handler: guarded(false, getHealth) }
    ]
    return { routes, errorBodies }
  })
