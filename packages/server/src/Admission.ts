/**
 * The `Admission` middleware of the contract's aggregator operations, checked
 * before anything else of a request:
 *
 * 1. on `/v1` operations, the browser Origin allow-list (only when one is
 *    configured; a request without an Origin header passes): 403
 *    ORIGIN_NOT_ALLOWED (the aggregator manifest is a public discovery document);
 * 2. the per-client rate limits, by the operation's `RateLimitClass`: `read` and
 *    `write` requests count against `requestsPerWindow`, `write` ones (quote and
 *    both build stages) also against `quoteAndBuildPerWindow`; `none` (the
 *    manifest, health) count against nothing. A refusal is 429 RATE_LIMITED with
 *    `Retry-After`, `RateLimit` and `RateLimit-Policy`; admitted responses carry
 *    `RateLimit` and `RateLimit-Policy` too. The limits count in process
 *    memory, or in effect's `RateLimiter` when one is given (`rateLimiter`: the
 *    server's Redis with `REDIS_URL`, shared by every replica); when its store
 *    is down, the request answers 503 SERVICE_UNAVAILABLE
 *    (`RATE_LIMITER_UNAVAILABLE`, with `Retry-After`), never unlimited.
 *
 * @since 0.1.0
 */
import { Aggregator, Metrics, RateLimit } from "@svc/core"
import * as Api from "@svc/protocol/Api"
import { Context, Effect, Layer, Metric, Result } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { RateLimiter } from "effect/persistence"
import * as AggregatorErrors from "./AggregatorErrors.ts"
import * as ClientAddress from "./ClientAddress.ts"

/**
 * Options of the admission.
 *
 * @category models
 * @since 0.1.0
 */
export interface AdmissionOptions {
  /** Per-client limits (default: 120 requests per 60 s, of which 20 quote/build POSTs). */
  readonly rateLimits?: Aggregator.RateLimits | undefined
  /** Browser Origins allowed on `/v1`; empty or absent: every Origin. */
  readonly origins?: ReadonlyArray<string> | undefined
  /**
   * Where the limits count: effect's `RateLimiter` (budgets `v1-requests` and
   * `v1-quote-build`, see `RateLimit.makeShared`); absent: process memory.
   */
  readonly rateLimiter?: RateLimiter.RateLimiter | undefined
}

const normalizeOrigin = (origin: string) => origin.trim().toLowerCase().replace(/\/+$/, "")

/**
 * The admission layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: AdmissionOptions): Layer.Layer<Api.Admission, never, ClientAddress.ClientAddress> =>
  Layer.effect(
    Api.Admission,
    Effect.gen(function*() {
      const clients = yield* ClientAddress.ClientAddress
      const limits = options?.rateLimits ?? Aggregator.DEFAULT_RATE_LIMITS
      const limiter = (name: string, limit: number) =>
        options?.rateLimiter === undefined
          ? RateLimit.makeMemory({ limit, windowSeconds: limits.windowSeconds })
          : RateLimit.makeShared(options.rateLimiter, { name, limit, windowSeconds: limits.windowSeconds })
      const all = limiter("v1-requests", limits.requestsPerWindow)
      const writes = limiter("v1-quote-build", limits.quoteAndBuildPerWindow)
      const policy =
        `"requests";q=${limits.requestsPerWindow};w=${limits.windowSeconds}, "quote-build";q=${limits.quoteAndBuildPerWindow};w=${limits.windowSeconds}`
      const origins = new Set((options?.origins ?? []).map(normalizeOrigin).filter((o) => o.length > 0))

      /** A quota refusal counts in `svc_rate_limit_refusals_total` (a store failure does not). */
      const countRefusal = (limit: string, l: RateLimit.Limited | RateLimit.StoreUnavailable) =>
        RateLimit.isStoreUnavailable(l)
          ? Effect.void
          : Metric.update(Metric.withAttributes(Metrics.rateLimitRefusals, { limit }), 1)

      /** 429 over a quota; 503 when the shared store is down. */
      const refused = (name: "requests" | "quote-build", l: RateLimit.Limited | RateLimit.StoreUnavailable) =>
        RateLimit.isStoreUnavailable(l)
          ? AggregatorErrors.fail("SERVICE_UNAVAILABLE", ["RATE_LIMITER_UNAVAILABLE"], {
            detail: "the rate-limit store is unavailable",
            retryAfterSeconds: l.retryAfterSeconds
          })
          : AggregatorErrors.fail("RATE_LIMITED", [
            name === "requests" ? "REQUEST_RATE_LIMITED" : "QUOTE_BUILD_RATE_LIMITED"
          ], {
            detail: `at most ${l.limit} ${
              name === "requests" ? "requests" : "quote and build requests"
            } per ${l.windowSeconds} s per client`,
            retryAfterSeconds: l.retryAfterSeconds,
            headers: { "ratelimit-policy": policy, ratelimit: `"${name}";r=0;t=${l.retryAfterSeconds}` }
          })

      /** A refusal, or the RateLimit headers of the admission (none for a free operation). */
      const admit = (
        request: HttpServerRequest.HttpServerRequest,
        kind: "write" | "read" | "none",
        checkOrigin: boolean
      ) =>
        Effect.gen(function*() {
          if (checkOrigin && origins.size > 0) {
            const origin = request.headers["origin"]
            if (origin !== undefined && !origins.has(normalizeOrigin(origin))) {
              return Result.fail(AggregatorErrors.fail("ORIGIN_NOT_ALLOWED", ["ORIGIN_NOT_ALLOWED"], {
                detail: "this browser Origin is not on the allow-list"
              }))
            }
          }
          if (kind === "none") return Result.succeed({})
          const client = clients.of(request)
          const admitted = yield* Effect.result(all.consume(client))
          if (Result.isFailure(admitted)) {
            yield* countRefusal("v1-requests", admitted.failure)
            return Result.fail(refused("requests", admitted.failure))
          }
          let tightest: { name: string; admitted: RateLimit.Admitted } = {
            name: "requests",
            admitted: admitted.success
          }
          if (kind === "write") {
            const w = yield* Effect.result(writes.consume(client))
            if (Result.isFailure(w)) {
              yield* countRefusal("v1-quote-build", w.failure)
              return Result.fail(refused("quote-build", w.failure))
            }
            if (w.success.remaining < tightest.admitted.remaining) {
              tightest = { name: "quote-build", admitted: w.success }
            }
          }
          return Result.succeed({
            "ratelimit-policy": policy,
            ratelimit: `"${tightest.name}";r=${tightest.admitted.remaining};t=${tightest.admitted.resetSeconds}`
          })
        })

      return Api.Admission.of((httpEffect, { endpoint }) => {
        const kind = Context.getOrElse(endpoint.annotations, Api.RateLimitClass, () => "read" as const)
        const checkOrigin = endpoint.path.startsWith("/v1/")
        if (kind === "none" && !checkOrigin) return httpEffect
        return Effect.flatMap(
          Effect.service(HttpServerRequest.HttpServerRequest),
          (request) =>
            Effect.flatMap(admit(request, kind, checkOrigin), (admission) =>
              Result.isFailure(admission)
                ? Effect.succeed(admission.failure)
                : Effect.map(httpEffect, (response) => HttpServerResponse.setHeaders(response, admission.success)))
        )
      })
    })
  )
