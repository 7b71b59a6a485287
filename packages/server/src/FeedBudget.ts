/**
 * A per-client budget of feed requests (`GET /api/v6/solver-feed`): a token
 * bucket per client address (the forwarded client behind a trusted proxy) that
 * holds `limit` requests and refills at `limit` per `windowSeconds`. A request
 * beyond it is answered 503 `AUTHORITY_UNAVAILABLE` with `FEED_RATE_LIMITED`,
 * `Retry-After` (the time until one request fits again) and the IETF
 * `RateLimit` / `RateLimit-Policy` fields: the interface lists no 429 for the
 * feed. Every feed request counts, a 304 included, on the fast path and on the
 * contract's handler alike.
 *
 * The budget is counted in process memory, synchronously (the feed's fast path
 * runs outside the Effect runtime); at most `maxClients` clients are tracked,
 * the least recently seen forgotten first.
 *
 * @since 0.1.0
 */
import type { HttpServerResponse } from "effect/http"
import * as Http from "./Http.ts"
import * as SolverErrors from "./SolverErrors.ts"

/**
 * Options of a feed budget.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedBudgetOptions {
  /** Requests a client may make at once, and per window. */
  readonly limit: number
  /** The window, seconds. */
  readonly windowSeconds: number
  /** Most clients tracked at once. Default 100000. */
  readonly maxClients?: number | undefined
  /** The clock, milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined
}

/**
 * A feed budget.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedBudget {
  readonly limit: number
  readonly windowSeconds: number
  /** Takes one request from a client's budget: undefined when admitted, else the refusal to send. */
  readonly take: (client: string) => HttpServerResponse.HttpServerResponse | undefined
}

/**
 * The reason code of a refusal.
 *
 * @category constants
 * @since 0.1.0
 */
export const REASON = "FEED_RATE_LIMITED"

/**
 * A budget.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: FeedBudgetOptions): FeedBudget => {
  const limit = Math.max(1, Math.floor(options.limit))
  const windowSeconds = Math.max(1, Math.floor(options.windowSeconds))
  const maxClients = Math.max(1, options.maxClients ?? 100_000)
  const now = options.now ?? Date.now
  // requests per millisecond
  const rate = limit / (windowSeconds * 1000)
  const clients = new Map<string, { tokens: number; at: number }>()
  const policy = `"feed";q=${limit};w=${windowSeconds}`
  const refusals = new Map<number, HttpServerResponse.HttpServerResponse>()
  const refusal = (retryAfterSeconds: number) => {
    let response = refusals.get(retryAfterSeconds)
    if (response === undefined) {
      response = Http.errorResponse(
        SolverErrors.failure("AUTHORITY_UNAVAILABLE", [REASON], {
          detail: `more than ${limit} feed requests in ${windowSeconds} s from this client; use the event stream`,
          retryAfterSeconds
        }),
        { "ratelimit-policy": policy, ratelimit: `"feed";r=0;t=${retryAfterSeconds}` }
      )
      // a few distinct delays at most (1 to windowSeconds): kept
      if (refusals.size < 1024) refusals.set(retryAfterSeconds, response)
    }
    return response
  }
  return {
    limit,
    windowSeconds,
    take: (client) => {
      const t = now()
      let entry = clients.get(client)
      if (entry === undefined) {
        entry = { tokens: limit, at: t }
        if (clients.size >= maxClients) {
          const oldest = clients.keys().next().value
          if (oldest !== undefined) clients.delete(oldest)
        }
      } else {
        clients.delete(client)
        entry.tokens = Math.min(limit, entry.tokens + (t - entry.at) * rate)
        entry.at = t
      }
      clients.set(client, entry)
      if (entry.tokens >= 1) {
        entry.tokens -= 1
        return undefined
      }
      return refusal(Math.max(1, Math.ceil((1 - entry.tokens) / rate / 1000)))
    }
  }
}
