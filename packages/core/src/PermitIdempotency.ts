/**
 * Idempotency of permit creation inside one process: keys are scoped per payer
 * identity; a request whose key is already in flight waits for it (bounded) and
 * then replays its stored result. The claim itself is durable and atomic in the
 * store (`Store.issuePermit` inserts the permit under a unique (scope, key)), so
 * two processes on one database still issue one permit; this module only saves a
 * duplicate the work of a request that is already running here.
 *
 * @since 0.1.0
 */
import type * as PermitMessage from "@svc/protocol/PermitMessage"
import { Deferred, Effect, Option } from "effect"
import { IdempotencyInProgress } from "./PermitError.ts"

/**
 * The idempotency scope of a request: its payer identity.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const scopeOf = (request: PermitMessage.NormalizedPermitRequest): string =>
  request.payer !== null ? `address:${request.payer.toLowerCase()}` : `account:${request.payerAccountId}`

/**
 * The requests in flight of one process, by (scope, key).
 *
 * @category models
 * @since 0.1.0
 */
export interface InFlight {
  /** Waits (at most the bounded wait) for a request in flight with this key; IdempotencyInProgress past it. */
  readonly settle: (scope: string, key: string) => Effect.Effect<void, IdempotencyInProgress>
  /** Runs `effect` as the request in flight for this key, or returns None when another one claimed it first. */
  readonly run: <A, E, R>(
    scope: string,
    key: string,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<Option.Option<A>, E, R>
}

/**
 * The requests in flight of one permit service.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeInFlight = (waitMillis: number): InFlight => {
  const pending = new Map<string, Deferred.Deferred<void>>()
  const slotOf = (scope: string, key: string) => `${scope}\u0000${key}`
  return {
    settle: (scope, key) =>
      Effect.suspend(() => {
        const waiting = pending.get(slotOf(scope, key))
        if (waiting === undefined) return Effect.void
        return Deferred.await(waiting).pipe(
          Effect.timeoutOption(waitMillis),
          Effect.flatMap((done) =>
            Option.isSome(done)
              ? Effect.void
              : Effect.fail(
                new IdempotencyInProgress({
                  detail: "a request with this key is still being processed; retry the identical request"
                })
              )
          )
        )
      }),
    run: (scope, key, effect) =>
      Effect.suspend(() => {
        const slot = slotOf(scope, key)
        if (pending.has(slot)) return Effect.succeed(Option.none())
        const done = Deferred.makeUnsafe<void>()
        pending.set(slot, done)
        return effect.pipe(
          Effect.map(Option.some),
          Effect.ensuring(Effect.suspend(() => {
            pending.delete(slot)
            return Deferred.succeed(done, undefined)
          }))
        )
      })
  }
}
