/**
 * Time limits on every store call, so that a database that stops answering
 * (its connections held open but silent: a frozen host, a partition) cannot
 * hang a request.
 *
 * A call that has not finished within its limit fails with a
 * `StoreError` whose cause is a {@link StoreTimeout}: the permit operations
 * answer 503 `STORE_UNAVAILABLE` with `Retry-After`. The limit covers the
 * whole call: waiting for a free connection of the pool, every statement and
 * their answers. The call itself is interrupted in the background (a driver
 * may take seconds to give up a silent connection: it waits for the cancel it
 * sends), so the caller never waits for that clean-up.
 *
 * The operations a request waits for ({@link REQUEST_OPERATIONS}) have a short
 * limit; the others (publication, settlement, retention, operator changes)
 * a long one, so that a slow batch is not cut while nothing is waiting.
 *
 * @since 0.1.0
 */
import { StoreError, type StoreShape } from "@svc/core/Store"
import { Data, Effect, Fiber } from "effect"

/**
 * A store call did not finish within its limit.
 *
 * @category errors
 * @since 0.1.0
 */
export class StoreTimeout extends Data.TaggedError("StoreTimeout")<{
  readonly operation: string
  readonly millis: number
}> {
  override get message(): string {
    return `no answer from the database within ${this.millis} ms`
  }
}

/**
 * The store operations a request (a permit, an aggregator call, a health probe)
 * waits for.
 *
 * @category constants
 * @since 0.1.0
 */
export const REQUEST_OPERATIONS: ReadonlySet<string> = new Set([
  "findByIdempotencyKey",
  "issuePermit",
  "getPermit",
  "findBySourceTx",
  "listPermits",
  "inventory",
  "saveQuote",
  "getQuote",
  "routeCounters",
  "operatorState"
])

/**
 * Limits of {@link bounded}.
 *
 * @category models
 * @since 0.1.0
 */
export interface StoreTimeoutOptions {
  /** Limit of the operations a request waits for, milliseconds. Default {@link DEFAULT_REQUEST_TIMEOUT_MILLIS}. */
  readonly requestMillis?: number | undefined
  /** Limit of every other operation, milliseconds. Default {@link DEFAULT_BACKGROUND_TIMEOUT_MILLIS}. */
  readonly backgroundMillis?: number | undefined
}

/**
 * Default limit of a store call a request waits for: a stalled database answers
 * 503 well within 2 s.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_REQUEST_TIMEOUT_MILLIS = 1000

/**
 * Default limit of the other store calls.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_BACKGROUND_TIMEOUT_MILLIS = 30_000

/**
 * An effect with a limit: past it, fails with a `StoreError` at once and leaves
 * the interruption of the effect to the background.
 *
 * @category combinators
 * @since 0.1.0
 */
export const withTimeout = <A, R>(
  operation: string,
  millis: number,
  effect: Effect.Effect<A, StoreError, R>
): Effect.Effect<A, StoreError, R> =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkDetach(effect, { startImmediately: true })
    return yield* Fiber.join(fiber).pipe(
      Effect.timeoutOrElse({
        duration: millis,
        orElse: () => {
          fiber.interruptUnsafe()
          return Effect.fail(new StoreError({ operation, cause: new StoreTimeout({ operation, millis }) }))
        }
      }),
      // a caller that gives up (its client went away) does not leave the call running
      Effect.onInterrupt(() => Effect.sync(() => fiber.interruptUnsafe()))
    )
  })

/**
 * A store whose every operation has a limit (see the module description).
 *
 * @category constructors
 * @since 0.1.0
 */
export const bounded = (store: StoreShape, options?: StoreTimeoutOptions): StoreShape => {
  const request = Math.max(1, options?.requestMillis ?? DEFAULT_REQUEST_TIMEOUT_MILLIS)
  const background = Math.max(1, options?.backgroundMillis ?? DEFAULT_BACKGROUND_TIMEOUT_MILLIS)
  const wrapped: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(store)) {
    const millis = REQUEST_OPERATIONS.has(name) ? request : background
    wrapped[name] = Effect.isEffect(value)
      ? withTimeout(name, millis, value as Effect.Effect<unknown, StoreError>)
      : typeof value === "function"
      ? (...args: Array<unknown>) =>
        withTimeout(name, millis, (value as (...a: Array<unknown>) => Effect.Effect<unknown, StoreError>)(...args))
      : value
  }
  return wrapped as unknown as StoreShape
}
