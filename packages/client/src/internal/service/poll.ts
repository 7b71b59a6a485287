/**
 * Status polling: exponential backoff (factor 1.5, jitter) until a terminal
 * state or a timeout, polling through transient failures. Internal.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { HttpError, NetworkError, Timeout } from "../../Errors.ts"
import type { PollOptions } from "../../SvcClient.ts"
import { backoffDelay, sleepMillis } from "../http.ts"

/**
 * Failures a poll tolerates (and keeps polling through): no response, 429,
 * 502, 503, 504.
 *
 * @category running
 * @since 0.1.0
 */
export const isTransientRead = (error: unknown): boolean =>
  error instanceof NetworkError ||
  (error instanceof HttpError &&
    (error.status === 429 || error.status === 502 || error.status === 503 || error.status === 504))

/**
 * Reads until `terminal` holds; `onUpdate` sees every new value (`same`
 * decides what is new). Fails with Timeout (holding the last value) after
 * `timeoutMs`.
 *
 * @category running
 * @since 0.1.0
 */
export const poll = <A, E>(
  operation: string,
  read: Effect.Effect<A, E>,
  terminal: (a: A) => boolean,
  same: (a: A, b: A) => boolean,
  options: PollOptions<A> | undefined
): Effect.Effect<A, E | Timeout> =>
  Effect.gen(function*() {
    const timeoutMs = options?.timeoutMs ?? 600_000
    const initial = Math.max(1, options?.initialDelayMs ?? 1000)
    const cap = Math.max(initial, options?.maxDelayMs ?? 15_000)
    const start = yield* Clock.currentTimeMillis
    let last: A | undefined
    let attempt = 0
    while (true) {
      const result = yield* Effect.result(read)
      if (Result.isSuccess(result)) {
        if (last === undefined || !same(last, result.success)) options?.onUpdate?.(result.success)
        last = result.success
        if (terminal(result.success)) return result.success
      } else if (!isTransientRead(result.failure)) {
        return yield* Effect.fail(result.failure)
      }
      const elapsed = (yield* Clock.currentTimeMillis) - start
      if (elapsed >= timeoutMs) return yield* new Timeout({ operation, afterMs: timeoutMs, last })
      attempt++
      const delay = yield* backoffDelay({
        initialDelayMs: Math.min(cap, initial * 1.5 ** (attempt - 1)),
        maxDelayMs: cap
      }, 1)
      yield* sleepMillis(Math.min(delay, timeoutMs - elapsed))
    }
  })
