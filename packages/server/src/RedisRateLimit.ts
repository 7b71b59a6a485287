/**
 * Rate limits shared by the replicas of a deployment: effect's `RateLimiter`
 * (`effect/persistence`) with its Redis store, over `@effect/platform-node`'s
 * `NodeRedis` (the `redis` client). With `REDIS_URL` set, the server counts the
 * permit limit and the `/v1` limits there (App option `sharedRateLimiter`), so
 * that N replicas behind a load balancer give each client one budget, not N.
 * `@svc/core` only sees effect's `RateLimiter` service (`RateLimit.makeShared`);
 * the Redis client lives here.
 *
 * Keys are `<prefix>ratelimit:<budget>:<client>` with the budgets `permits`,
 * `v1-requests` and `v1-quote-build`; `prefix` is `SVC_REDIS_PREFIX` (default
 * `svc:`), so that deployments and tests sharing a Redis do not collide. Every
 * key carries an expiry: nothing needs cleaning up.
 *
 * Failures:
 *
 * - at start, a Redis that cannot be reached (or refuses the credentials)
 *   fails the layer with `RateLimit.StoreUnavailable`, whose message names
 *   `REDIS_URL` and the host (never the password): the server does not start;
 * - after start, the client reconnects forever (exponential backoff, at most
 *   about 2 s between attempts). Meanwhile commands fail at once (no offline
 *   queue) and a command without an answer is abandoned after the limiter's
 *   timeout (1 s): the limited operations answer 503 with `Retry-After`, never
 *   unlimited, and recover by themselves when Redis is back.
 *
 * @since 0.1.0
 */
import { NodeRedis } from "@effect/platform-node"
import { RateLimit } from "@svc/core"
import { Context, Effect, Layer, Redacted } from "effect"
import { RateLimiter } from "effect/persistence"

/**
 * Options of the Redis limiter.
 *
 * @category models
 * @since 0.1.0
 */
export interface RedisRateLimitOptions {
  /** `redis://` or `rediss://` URL (REDIS_URL); may hold credentials. */
  readonly url: Redacted.Redacted<string>
  /** Key prefix of the deployment (SVC_REDIS_PREFIX); `ratelimit:` follows it. Default `svc:`. */
  readonly prefix?: string | undefined
  /** Longest wait for a connection, milliseconds. Default 5000. */
  readonly connectTimeoutMillis?: number | undefined
}

/**
 * A Redis URL without its credentials, for messages and logs.
 *
 * @category encoding
 * @since 0.1.0
 */
export const describeUrl = (url: string): string => {
  if (!URL.canParse(url)) return "(an unparsable URL)"
  const parsed = new URL(url)
  const path = parsed.pathname === "/" ? "" : parsed.pathname
  return `${parsed.protocol}//${parsed.host}${path}`
}

/** The cause of a failed connection in one line, without the URL's password. */
const causeText = (cause: unknown, url: string): string => {
  const text = String((cause as Error | undefined)?.message ?? cause).replace(/\s*\n\s*/g, " ")
  const password = URL.canParse(url) ? decodeURIComponent(new URL(url).password) : ""
  return password.length > 0 ? text.split(password).join("***") : text
}

/** Backoff between reconnection attempts once connected: 50 ms doubling up to 2 s, plus jitter. */
const backoff = (retries: number) => Math.min(2 ** retries * 50, 2000) + Math.floor(Math.random() * 200)

/**
 * Effect's `RateLimiter` on Redis: connects when built (failing with
 * `RateLimit.StoreUnavailable` when Redis cannot be reached), closes the
 * connection with the layer's scope.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  options: RedisRateLimitOptions
): Layer.Layer<RateLimiter.RateLimiter, RateLimit.StoreUnavailable> =>
  Layer.effect(
    RateLimiter.RateLimiter,
    Effect.gen(function*() {
      const url = Redacted.value(options.url)
      let connected = false
      const context = yield* Layer.build(NodeRedis.layer({
        url,
        // while disconnected, a command fails at once instead of waiting in a queue
        disableOfflineQueue: true,
        socket: {
          connectTimeout: options.connectTimeoutMillis ?? 5000,
          // the first connection decides the start; afterwards reconnect forever
          reconnectStrategy: (retries, cause) => connected ? backoff(retries) : cause
        }
      })).pipe(
        Effect.mapError((e) =>
          new RateLimit.StoreUnavailable({
            message: `REDIS_URL: cannot connect to ${describeUrl(url)}: ${causeText(e.cause, url)}`,
            retryAfterSeconds: 5,
            cause: e
          })
        )
      )
      connected = true
      // runs before the client's own close, which waits for commands in flight: a Redis that stopped
      // answering would hold the shutdown forever, so the connection is destroyed after 2 s
      const { client } = Context.get(context, NodeRedis.NodeRedis)
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          // destroy() ends a close() still draining; a finished close emits `end`
          const timer = setTimeout(() => client.destroy(), 2000).unref()
          client.once("end", () => clearTimeout(timer))
        })
      )
      const store = yield* RateLimiter.makeStoreRedis({ prefix: `${options.prefix ?? "svc:"}ratelimit:` }).pipe(
        Effect.provideContext(context)
      )
      return yield* RateLimiter.make.pipe(Effect.provideService(RateLimiter.RateLimiterStore, store))
    })
  )
