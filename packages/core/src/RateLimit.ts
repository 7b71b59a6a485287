/**
 * Rate limiting of permit creation, per client key (the server passes the
 * client's address). A sliding-window counter: at most `limit` requests in any
 * `windowSeconds`. The permit service consults it after the idempotency lookup
 * (a completed replay is never limited) and before the quote and signature
 * checks, so that the expensive work of a limited client is not done.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer } from "effect"

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
 * The permit rate limiter service.
 *
 * @category services
 * @since 0.1.0
 */
export class PermitRateLimiter extends Context.Service<PermitRateLimiter, {
  readonly limit: number
  readonly windowSeconds: number
  readonly consume: (clientKey: string) => Effect.Effect<Admitted, Limited>
}>()("@svc/core/PermitRateLimiter") {}

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
