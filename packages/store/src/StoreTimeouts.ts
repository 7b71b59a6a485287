/**
 * Time limits on every store call, so that a database that stops answering
 * (its connections held open but silent: a frozen host, a partition) cannot
 * hang a request.
 *
 * A call a request waits for ({@link REQUEST_OPERATIONS}) fails once it has
 * waited `requestMillis` while the database answered nothing: no call of this
 * store completed in that time. A database that answers slowly because it is
 * busy (requests queued behind one row lock, a full pool) keeps completing
 * calls, so its callers keep waiting, up to `requestHardMillis`; a silent one
 * fails every waiting call within `requestMillis`. The limit covers the whole
 * call: waiting for a free connection of the pool, every statement and their
 * answers. Every other operation (publication, settlement, retention,
 * operator changes) fails after `backgroundMillis`, whatever happens.
 *
 * A failed call fails with a `StoreError` whose cause is a
 * {@link StoreTimeout} (the permit operations answer 503 `STORE_UNAVAILABLE`
 * with `Retry-After`). The call itself is interrupted in the background (a
 * driver may take seconds to give up a silent connection: it waits for the
 * cancel it sends), so the caller never waits for that clean-up.
 *
 * @since 0.1.0
 */
import { StoreError, type StoreShape } from "@svc/core/Store"
import { Clock, Data, Effect, Fiber } from "effect"

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
  /**
   * How long a call a request waits for may go on while the database answers
   * nothing, milliseconds. Default {@link DEFAULT_REQUEST_TIMEOUT_MILLIS}.
   */
  readonly requestMillis?: number | undefined
  /** The longest a call a request waits for may take, milliseconds. Default {@link DEFAULT_REQUEST_HARD_TIMEOUT_MILLIS}. */
  readonly requestHardMillis?: number | undefined
  /** Limit of every other operation, milliseconds. Default {@link DEFAULT_BACKGROUND_TIMEOUT_MILLIS}. */
  readonly backgroundMillis?: number | undefined
}

/**
 * Default of {@link StoreTimeoutOptions.requestMillis}: a stalled database
 * answers a permit request 503 well within 2 s.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_REQUEST_TIMEOUT_MILLIS = 1000

/**
 * Default of {@link StoreTimeoutOptions.requestHardMillis}.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_REQUEST_HARD_TIMEOUT_MILLIS = 10_000

/**
 * Default limit of the other store calls.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_BACKGROUND_TIMEOUT_MILLIS = 30_000

/**
 * An effect with a limit: once `expired` says so, fails with a `StoreError` at
 * once and leaves the interruption of the effect to the background.
 *
 * @category operations
 * @since 0.1.0
 */
export const withLimit = <A, R>(
  operation: string,
  effect: Effect.Effect<A, StoreError, R>,
  limit: {
    /** The millis to report. */
    readonly millis: number
    /** Given when the call started, how long to wait before asking again; 0: the call is over its limit. */
    readonly remaining: (started: number, now: number) => number
  }
): Effect.Effect<A, StoreError, R> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.forkDetach(effect, { startImmediately: true })
    const expired = Effect.gen(function*(): Effect.fn.Return<typeof EXPIRED> {
      while (true) {
        const wait = limit.remaining(started, yield* Clock.currentTimeMillis)
        if (wait <= 0) return EXPIRED
        yield* Effect.sleep(wait)
      }
    })
    const outcome = yield* Effect.raceFirst(Effect.map(Fiber.join(fiber), (value) => ({ value })), expired).pipe(
      // a caller that gives up (its client went away) does not leave the call running
      Effect.onInterrupt(() => Effect.sync(() => fiber.interruptUnsafe()))
    )
    if (typeof outcome === "object") return outcome.value
    fiber.interruptUnsafe()
    return yield* Effect.fail(
      new StoreError({ operation, cause: new StoreTimeout({ operation, millis: limit.millis }) })
    )
  })

const EXPIRED: unique symbol = Symbol("svc/store/StoreTimeouts/expired")

/**
 * An effect with a fixed limit.
 *
 * @category operations
 * @since 0.1.0
 */
export const withTimeout = <A, R>(
  operation: string,
  millis: number,
  effect: Effect.Effect<A, StoreError, R>
): Effect.Effect<A, StoreError, R> =>
  withLimit(operation, effect, { millis, remaining: (started, now) => started + millis - now })

/**
 * A store whose every operation has a limit (see the module description).
 *
 * @category constructors
 * @since 0.1.0
 */
export const bounded = (store: StoreShape, options?: StoreTimeoutOptions): StoreShape => {
  const quiet = Math.max(1, options?.requestMillis ?? DEFAULT_REQUEST_TIMEOUT_MILLIS)
  const hard = Math.max(quiet, options?.requestHardMillis ?? DEFAULT_REQUEST_HARD_TIMEOUT_MILLIS)
  const background = Math.max(1, options?.backgroundMillis ?? DEFAULT_BACKGROUND_TIMEOUT_MILLIS)
  // when a call of this store last completed: the database answered then
  let answeredAt = Number.NEGATIVE_INFINITY
  const request = {
    millis: quiet,
    remaining: (started: number, now: number) => Math.min(Math.max(started, answeredAt) + quiet, started + hard) - now
  }
  const limited = (name: string, effect: Effect.Effect<unknown, StoreError>) => {
    const counted = Effect.tap(effect, () =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        answeredAt = Math.max(answeredAt, now)
      }))
    return REQUEST_OPERATIONS.has(name) ? withLimit(name, counted, request) : withTimeout(name, background, counted)
  }
  const wrapped: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(store)) {
    wrapped[name] = Effect.isEffect(value)
      ? limited(name, value as Effect.Effect<unknown, StoreError>)
      : typeof value === "function"
      ? (...args: Array<unknown>) =>
        limited(name, (value as (...a: Array<unknown>) => Effect.Effect<unknown, StoreError>)(...args))
      : value
  }
  return wrapped as unknown as StoreShape
}
