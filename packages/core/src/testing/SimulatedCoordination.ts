/**
 * Coordination of simulated replicas (see `Coordination`), with the contract of
 * `@svc/store`'s `PgCoordination` in virtual time, for the simulation
 * (`@svc/core/testing/Simulation`) and for tests of replicas without a
 * database:
 *
 * - **Leadership is a lease**: one row (holder, fencing token, expiry on the
 *   database's clock). Each replica tries every `checkMillis` to take it or
 *   renew it for `leaseMillis`; a follower takes it only once it expired, and a
 *   new holder gets the next token. The leader counts its lease from before each
 *   renewal was sent, on its own clock, minus a margin: `isLeader` turns false
 *   when that runs out, before the database lets anyone else take over, so a
 *   replica resumed after a freeze sees at once that it lost the lease. A leader
 *   that stops releases the lease (not one that crashes).
 * - **Announcements** reach every live replica (this one too) and are best
 *   effort: the store is the truth, and a replica that missed one catches up on
 *   its periodic check.
 *
 * Every exchange with the database goes through `via`, where a simulation puts
 * its faults (a replica frozen, crashed, or cut off from the database).
 * PostgreSQL itself, and `PgCoordination` over it, are tested by their own
 * suites; this model keeps the same rules so that the engine above it sees the
 * same behaviour.
 *
 * @since 0.1.0
 */
import { Deferred, Duration, Effect, PubSub, type Scope, Stream, SubscriptionRef } from "effect"
import { type Announcement, Coordination } from "../Coordination.ts"

/**
 * The lease row and the announcement channel, shared by the replicas of one
 * simulated deployment.
 *
 * @category models
 * @since 0.1.0
 */
export interface Database {
  /** The database's clock, milliseconds. */
  readonly now: () => number
  /** The lease: its holder (null when released), fencing token and expiry (database clock). */
  readonly lease: { holder: string | null; token: number; expiresAt: number }
  /** The announcement subscribers of the live replicas. */
  readonly listeners: Set<PubSub.PubSub<Announcement>>
}

/**
 * A database for replicas that share it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeDatabase = (now: () => number): Database => ({
  now,
  lease: { holder: null, token: 0, expiresAt: 0 },
  listeners: new Set()
})

/**
 * Whether `holder` holds the lease at the database's clock now.
 *
 * @category operations
 * @since 0.1.0
 */
export const holds = (database: Database, holder: string): boolean =>
  database.lease.holder === holder && database.lease.expiresAt > database.now()

/**
 * Options of {@link make}.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReplicaOptions {
  /** This replica's name in the lease row (unique per process). */
  readonly holder: string
  /** How often the replica renews or tries to take the lease, ms. Default 1000. */
  readonly checkMillis?: number | undefined
  /** How long a lease lasts unless renewed, ms. Default 5 × checkMillis. */
  readonly leaseMillis?: number | undefined
  /** The replica's monotonic clock, ms (default: the database's clock). */
  readonly monotonic?: (() => number) | undefined
  /** Every exchange with the database passes here: a failure is a lost exchange. */
  readonly via?: (<A>(what: string, exchange: Effect.Effect<A>) => Effect.Effect<A, unknown>) | undefined
  /** True when the process died: its scope closes without releasing the lease. */
  readonly crashed?: (() => boolean) | undefined
}

/**
 * The coordination of one replica; its loops stop, and the lease is released,
 * with the scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  database: Database,
  options: ReplicaOptions
): Effect.Effect<Coordination["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const checkMillis = Math.max(1, options.checkMillis ?? 1000)
    const leaseMillis = Math.max(checkMillis * 2, options.leaseMillis ?? checkMillis * 5)
    const margin = Math.max(checkMillis, Math.floor(leaseMillis / 5))
    const monotonic = options.monotonic ?? database.now
    const via = options.via ?? (<A>(_: string, exchange: Effect.Effect<A>) => exchange)
    const holder = options.holder
    const leading = yield* SubscriptionRef.make(false)
    const decided = yield* Deferred.make<void>()
    const hub = yield* PubSub.unbounded<Announcement>()
    let deadline = 0
    const leadsNow = () => monotonic() < deadline

    /** The lease query: taken or renewed when free, expired or ours; the token moves with the holder. */
    const acquire = Effect.gen(function*() {
      const sentAt = monotonic()
      const held = yield* via(
        "lease",
        Effect.sync(() => {
          const row = database.lease
          const now = database.now()
          if (row.holder !== holder && row.holder !== null && row.expiresAt >= now) return false
          if (row.holder !== holder) row.token++
          row.holder = holder
          row.expiresAt = now + leaseMillis
          return true
        })
      )
      if (held) deadline = sentAt + leaseMillis - margin
      return held
    })

    const step = Effect.gen(function*() {
      const was = yield* SubscriptionRef.get(leading)
      const held = yield* acquire.pipe(Effect.catchCause(() => Effect.succeed(false)))
      const now = held && leadsNow()
      if (now !== was) {
        yield* SubscriptionRef.set(leading, now)
        yield* now
          ? Effect.logInfo("this replica leads: it publishes and settles", { holder, token: database.lease.token })
          : Effect.logWarning("this replica no longer leads (its lease ran out or was taken)", { holder })
      }
      yield* Deferred.succeed(decided, undefined)
    })
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(step, Effect.sleep(Duration.millis(checkMillis)))))
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      yield* Effect.sleep(Duration.millis(Math.max(1, Math.floor(checkMillis / 4))))
      if ((yield* SubscriptionRef.get(leading)) && !leadsNow()) {
        yield* SubscriptionRef.set(leading, false)
        yield* Effect.logWarning("this replica no longer leads: its lease ran out before it was renewed", { holder })
      }
    })))
    database.listeners.add(hub)
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        database.listeners.delete(hub)
        const held = leadsNow()
        deadline = 0
        yield* SubscriptionRef.set(leading, false)
        // a process that stops releases the lease; a crashed one cannot
        if (held && options.crashed?.() !== true && database.lease.holder === holder) {
          database.lease.holder = null
          database.lease.expiresAt = 0
        }
      })
    )
    yield* Deferred.await(decided).pipe(Effect.timeout(Duration.millis(checkMillis * 5)), Effect.ignore)

    return Coordination.of({
      isLeader: Effect.map(SubscriptionRef.get(leading), (l) => l && leadsNow()),
      leadership: SubscriptionRef.changes(leading),
      announce: (topic, payload) =>
        via(
          "announce",
          Effect.forEach([...database.listeners], (listener) => PubSub.publish(listener, { topic, payload }), {
            discard: true
          })
        ).pipe(Effect.catchCause(() => Effect.logWarning("announcement lost", { topic }))),
      announcements: Effect.map(PubSub.subscribe(hub), (sub) => Stream.fromSubscription(sub)),
      description: `simulated database (lease of ${leaseMillis} ms, holder ${holder})`
    })
  })
