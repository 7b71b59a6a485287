/**
 * Rate limiting of permit creation, per client key (the server passes the
 * client's address). The permit service consults it after the idempotency lookup
 * (a completed replay is never limited) and before the quote and signature
 * checks, so that the expensive work of a limited client is not done.
 *
 * Two implementations:
 *
 * - {@link makeMemory} (the default): one process. A sliding-window counter: at
 *   most about `limit` requests in any `windowSeconds`; a spent budget comes
 *   back gradually over the next window.
 * - {@link makeShared}: over Effect's `RateLimiter` (`effect/persistence`), whose
 *   store may be shared by several processes (the server uses its Redis store
 *   when `REDIS_URL` is set), so that replicas behind one load balancer share one
 *   budget per client. Its algorithm is the store's fixed window: a client's
 *   window opens with its first admitted request, each admitted request extends
 *   the window's expiry by `windowSeconds / limit`, so at most `limit` requests
 *   are admitted before the window closes, and the whole budget comes back at
 *   once when it expires (`Retry-After` is the time until then). Both
 *   algorithms may admit up to about twice the limit across a window boundary.
 *   When the store fails or does not answer in time, `consume` fails with
 *   {@link StoreUnavailable} (the permit service answers 503, never unlimited).
 *
 * @since 0.1.0
 */
import { Clock, Context, Data, Duration, Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"

/**
 * A refusal, with what the `RateLimit` / `RateLimit-Policy` headers report.
 *
 * @category models
 * @since 0.1.0
 */
export interface Limited {
  readonly retryAfterSeconds: number
  readonly limit: number
  readonly windowSeconds: number
}

/**
 * An admission, with what remains.
 *
 * @category models
 * @since 0.1.0
 */
export interface Admitted {
  readonly remaining: number
  readonly resetSeconds: number
  readonly limit: number
  readonly windowSeconds: number
}

/**
 * The store of a shared limiter failed or did not answer in time. The request
 * is neither admitted nor refused for its quota: callers answer 503 with
 * `Retry-After` (never unlimited). A shared limiter's layer also fails with it
 * when its store cannot be reached at start.
 *
 * @category errors
 * @since 0.1.0
 */
export class StoreUnavailable extends Data.TaggedError("RateLimitStoreUnavailable")<{
  readonly message: string
  /** When to try again, seconds. */
  readonly retryAfterSeconds: number
  readonly cause?: unknown
}> {}

/**
 * The permit rate limiter service. `consume` admits (with what remains) or
 * refuses (`Limited`, with when to retry); a limiter over a shared store may
 * also fail with {@link StoreUnavailable}.
 *
 * @category services
 * @since 0.1.0
 */
export class PermitRateLimiter extends Context.Service<PermitRateLimiter, {
  readonly limit: number
  readonly windowSeconds: number
  readonly consume: (clientKey: string) => Effect.Effect<Admitted, Limited | StoreUnavailable>
}>()("@svc/core/PermitRateLimiter") {}

/**
 * Whether a refusal of `consume` is a store failure (not a quota refusal).
 *
 * @category validation
 * @since 0.1.0
 */
export const isStoreUnavailable = (refusal: Limited | StoreUnavailable): refusal is StoreUnavailable =>
  refusal instanceof StoreUnavailable

/**
 * Options of the in-memory limiter.
 *
 * @category models
 * @since 0.1.0
 */
export interface RateLimitOptions {
  /** Requests allowed per window and client. Default 600. */
  readonly limit?: number | undefined
  /** Window length, seconds. Default 60. */
  readonly windowSeconds?: number | undefined
  /** Most clients tracked at once (oldest forgotten first). Default 100000. */
  readonly maxClients?: number | undefined
}

/**
 * An in-memory sliding-window limiter (one process).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = (options?: RateLimitOptions): PermitRateLimiter["Service"] => {
  const limit = Math.max(1, Math.floor(options?.limit ?? 600))
  const windowSeconds = Math.max(1, Math.floor(options?.windowSeconds ?? 60))
  const maxClients = Math.max(1, options?.maxClients ?? 100_000)
  const windowMs = windowSeconds * 1000
  // per client: start of the current fixed window and counts of this and the previous window
  const clients = new Map<string, { start: number; current: number; previous: number }>()
  return {
    limit,
    windowSeconds,
    consume: (clientKey) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const start = Math.floor(now / windowMs) * windowMs
        let entry = clients.get(clientKey)
        if (entry === undefined) {
          entry = { start, current: 0, previous: 0 }
          if (clients.size >= maxClients) {
            const oldest = clients.keys().next().value
            if (oldest !== undefined) clients.delete(oldest)
          }
        } else {
          clients.delete(clientKey)
          if (entry.start !== start) {
            entry = { start, current: 0, previous: entry.start === start - windowMs ? entry.current : 0 }
          }
        }
        clients.set(clientKey, entry)
        const weight = 1 - (now - start) / windowMs
        const estimate = entry.previous * weight + entry.current
        if (estimate + 1 > limit) {
          // when the estimate drops below the limit again
          const needed = entry.previous === 0 ? start + windowMs - now : Math.max(
            0,
            ((entry.previous + entry.current + 1 - limit) / entry.previous) * windowMs - (now - start)
          )
          const retryAfterSeconds = Math.max(1, Math.ceil(Math.min(needed, start + 2 * windowMs - now) / 1000))
          return Effect.fail({ retryAfterSeconds, limit, windowSeconds })
        }
        entry.current += 1
        return Effect.succeed({
          remaining: Math.max(0, Math.floor(limit - estimate - 1)),
          resetSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)),
          limit,
          windowSeconds
        })
      })
  }
}

/**
 * The in-memory limiter layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory = (options?: RateLimitOptions): Layer.Layer<PermitRateLimiter> =>
  Layer.sync(PermitRateLimiter, () => makeMemory(options))

/**
 * Options of a limiter over a shared store.
 *
 * @category models
 * @since 0.1.0
 */
export interface SharedOptions {
  /** Requests allowed per window and client. Default 600. */
  readonly limit?: number | undefined
  /** Window length, seconds. Default 60. */
  readonly windowSeconds?: number | undefined
  /**
   * Name of the budget: a client's count is stored under `<name>:<clientKey>`
   * (after the store's own key prefix), so that several budgets share one
   * store. Default `permits`.
   */
  readonly name?: string | undefined
  /** Longest wait for the store, milliseconds; longer is {@link StoreUnavailable}. Default 1000. */
  readonly timeoutMillis?: number | undefined
  /** The `retryAfterSeconds` of a {@link StoreUnavailable}. Default 5. */
  readonly unavailableRetryAfterSeconds?: number | undefined
}

/** Store failures are logged at most this often per limiter. */
const WARN_EVERY_MILLIS = 10_000

/**
 * A limiter over Effect's `RateLimiter` (`effect/persistence`, fixed-window
 * algorithm): with a store shared by several processes (Redis), every process
 * consumes from one budget per client. See the module documentation for the
 * window semantics. A store failure, or no answer within `timeoutMillis`, fails
 * with {@link StoreUnavailable} and is logged (at most every 10 s).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeShared = (
  limiter: RateLimiter.RateLimiter,
  options?: SharedOptions
): PermitRateLimiter["Service"] => {
  const limit = Math.max(1, Math.floor(options?.limit ?? 600))
  const windowSeconds = Math.max(1, Math.floor(options?.windowSeconds ?? 60))
  const window = Duration.seconds(windowSeconds)
  const name = options?.name ?? "permits"
  const timeoutMillis = Math.max(1, options?.timeoutMillis ?? 1000)
  const retryAfterSeconds = Math.max(1, Math.ceil(options?.unavailableRetryAfterSeconds ?? 5))
  const seconds = (d: Duration.Duration) => Math.max(1, Math.ceil(Duration.toMillis(d) / 1000))
  let warnedAt = Number.NEGATIVE_INFINITY
  const unavailable = (message: string, cause?: unknown): Effect.Effect<never, StoreUnavailable> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const error = new StoreUnavailable({ message, retryAfterSeconds, cause })
      if (now - warnedAt < WARN_EVERY_MILLIS) return Effect.fail(error)
      warnedAt = now
      return Effect.andThen(
        Effect.logWarning("rate-limit store unavailable: requests it limits answer 503").pipe(
          Effect.annotateLogs({ budget: name, reason: message })
        ),
        Effect.fail(error)
      )
    })
  const refused = (e: RateLimiter.RateLimiterError): Effect.Effect<never, Limited | StoreUnavailable> =>
    e.reason._tag === "RateLimitExceeded"
      ? Effect.fail({ retryAfterSeconds: seconds(e.reason.retryAfter), limit, windowSeconds })
      : unavailable(e.reason.message, e.reason.cause)
  return {
    limit,
    windowSeconds,
    consume: (clientKey) =>
      limiter.consume({ key: `${name}:${clientKey}`, limit, window, algorithm: "fixed-window", onExceeded: "fail" })
        .pipe(
          Effect.timeoutOrElse({
            duration: Duration.millis(timeoutMillis),
            orElse: () => unavailable(`no answer within ${timeoutMillis} ms`)
          }),
          Effect.catchTag("RateLimiterError", refused),
          Effect.map((result): Admitted => ({
            remaining: Math.max(0, Math.floor(result.remaining)),
            resetSeconds: seconds(result.resetAfter),
            limit,
            windowSeconds
          }))
        )
  }
}

/**
 * The limiter over the `RateLimiter` in context (see {@link makeShared}).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerShared = (
  options?: SharedOptions
): Layer.Layer<PermitRateLimiter, never, RateLimiter.RateLimiter> =>
  Layer.effect(
    PermitRateLimiter,
    Effect.map(Effect.service(RateLimiter.RateLimiter), (limiter) => makeShared(limiter, options))
  )

/**
 * No limit (for embedding behind a gateway that limits).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerUnlimited: Layer.Layer<PermitRateLimiter> = Layer.succeed(PermitRateLimiter, {
  limit: Number.MAX_SAFE_INTEGER,
  windowSeconds: 60,
  consume: () =>
    Effect.succeed({
      remaining: Number.MAX_SAFE_INTEGER,
      resetSeconds: 60,
      limit: Number.MAX_SAFE_INTEGER,
      windowSeconds: 60
    })
})
