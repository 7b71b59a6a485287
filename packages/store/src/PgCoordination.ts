/**
 * Coordination of replicas on one PostgreSQL database (see `@svc/core/Coordination`).
 *
 * - **Leadership**: a session-level advisory lock, keyed by the store's schema,
 *   held on one reserved connection. A follower tries to take it every
 *   `checkMillis`; the leader checks its session every `checkMillis` (a query with
 *   a timeout) and steps down when the check fails. When a leader process dies,
 *   its connection closes and PostgreSQL releases the lock at once, so another
 *   replica leads within about `checkMillis`. A leader that shuts down releases
 *   the lock before it returns its connection to the pool (a pooled session keeps
 *   its advisory locks).
 * - **Announcements**: `NOTIFY svc_<schema>, '<topic>:<payload>'`, received by every
 *   replica's `LISTEN` (this one's too). A listener whose connection drops listens
 *   again and announces `resync` to its own subscribers, which then read the
 *   store: a notification missed meanwhile is never a version missed.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import type { Announcement, Topic } from "@svc/core/Coordination"
import { Coordination } from "@svc/core/Coordination"
import { StoreError } from "@svc/core/Store"
import {
  Deferred,
  Duration,
  Effect,
  Layer,
  PubSub,
  Queue,
  type Redacted,
  Schedule,
  type Scope,
  Stream,
  SubscriptionRef
} from "effect"
import { Reactivity } from "effect/reactivity"
import { hostname } from "node:os"

/**
 * Options of {@link layer}.
 *
 * @category models
 * @since 0.1.0
 */
export interface PgCoordinationOptions {
  /** A postgres:// connection URL (the store's). */
  readonly url: Redacted.Redacted<string>
  /** The store's schema, when it has one: replicas of different schemas never coordinate. */
  readonly schema?: string | undefined
  /** How often a follower tries to lead and the leader checks its session, milliseconds. Default 1000. */
  readonly checkMillis?: number | undefined
}

const TOPICS: ReadonlySet<string> = new Set<Topic>(["publication", "operator", "resync"])

/**
 * Parses a notification payload `<topic>:<payload>`; undefined for anything else.
 *
 * @category encoding
 * @since 0.1.0
 */
export const parseAnnouncement = (text: string): Announcement | undefined => {
  const colon = text.indexOf(":")
  const topic = colon < 0 ? text : text.slice(0, colon)
  return TOPICS.has(topic) ? { topic: topic as Topic, payload: colon < 0 ? "" : text.slice(colon + 1) } : undefined
}

interface RawConnection {
  readonly executeRaw: (sql: string, params: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>
}

const firstRow = (result: unknown): Record<string, unknown> =>
  ((result as { rows?: ReadonlyArray<Record<string, unknown>> }).rows ?? [])[0] ?? {}

/**
 * Connects and starts the leadership and listening loops; they stop (and the
 * lock is released) with the scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  options: PgCoordinationOptions
): Effect.Effect<Coordination["Service"], StoreError, Scope.Scope> =>
  Effect.gen(function*() {
    const checkMillis = Math.max(50, options.checkMillis ?? 1000)
    const namespace = options.schema ?? "public"
    const channel = `svc_${namespace}`
    const lockKey = `svc_leader:${namespace}`
    // each session gets a client of its own: one that broke is dropped with its client,
    // never handed out again by a pool
    const connect = (role: string) =>
      PgClient.make({
        url: options.url,
        maxConnections: 1,
        // which replica holds which session: `SELECT application_name FROM pg_stat_activity`
        applicationName: `svc-${role} ${hostname()}:${process.pid}`.slice(0, 63),
        ...(options.schema === undefined ? {} : { startupParameters: { search_path: options.schema } })
      }).pipe(Effect.provide(Reactivity.layer))
    const pg = yield* connect("notify").pipe(
      Effect.mapError((cause) => new StoreError({ operation: "coordination", cause }))
    )
    const timeout = Duration.millis(checkMillis * 5)

    const leading = yield* SubscriptionRef.make(false)
    // the first attempt to lead is decided before this replica starts serving
    const decided = yield* Deferred.make<void>()
    const hub = yield* PubSub.unbounded<Announcement>()

    // -------------------------------------------------------------- leadership
    const tryLock = (conn: RawConnection) =>
      Effect.map(
        conn.executeRaw("SELECT pg_try_advisory_lock(hashtext($1)) AS ok", [lockKey]),
        (r) => firstRow(r)["ok"] === true
      )
    const unlock = (conn: RawConnection) =>
      conn.executeRaw("SELECT pg_advisory_unlock(hashtext($1)) AS ok", [lockKey]).pipe(Effect.ignore)

    const term = Effect.scoped(Effect.gen(function*() {
      const session = yield* connect("leader")
      const conn: RawConnection = yield* session.reserve
      while (!(yield* Effect.timeout(tryLock(conn), timeout))) {
        yield* Deferred.succeed(decided, undefined)
        yield* Effect.sleep(Duration.millis(checkMillis))
      }
      // from here the session holds the lock: release it before the connection goes back to the pool
      yield* Effect.addFinalizer(() => Effect.andThen(SubscriptionRef.set(leading, false), unlock(conn)))
      yield* SubscriptionRef.set(leading, true)
      yield* Deferred.succeed(decided, undefined)
      yield* Effect.logInfo("this replica leads: it publishes and settles")
      // the leader's check: its session answers in time, else it steps down
      for (;;) {
        yield* Effect.sleep(Duration.millis(checkMillis))
        yield* conn.executeRaw("SELECT 1", []).pipe(
          Effect.timeoutOrElse({
            duration: Duration.millis(checkMillis * 3),
            orElse: () => Effect.fail(new Error("the leader's session did not answer in time"))
          })
        )
      }
    }))
    yield* Effect.forkScoped(
      term.pipe(
        Effect.catchCause((cause) =>
          Effect.andThen(
            Deferred.succeed(decided, undefined),
            Effect.logWarning("leadership lost or not reachable; trying again", cause)
          )
        ),
        Effect.andThen(Effect.sleep(Duration.millis(checkMillis))),
        Effect.forever
      )
    )

    yield* Deferred.await(decided).pipe(Effect.timeout(timeout), Effect.ignore)

    // ----------------------------------------------------------- announcements
    const listenOnce = Effect.scoped(Effect.gen(function*() {
      const session = yield* connect("listener")
      const inbox = yield* Effect.timeout(session.listen(channel), timeout)
      // anything announced while no listener ran is in the store: tell subscribers to look
      yield* PubSub.publish(hub, { topic: "resync", payload: "" } satisfies Announcement)
      for (;;) {
        const message = yield* Queue.take(inbox)
        const announcement = parseAnnouncement(message.payload)
        if (announcement !== undefined) yield* PubSub.publish(hub, announcement)
      }
    }))
    yield* Effect.forkScoped(
      listenOnce.pipe(
        Effect.catchCause((cause) => Effect.logWarning(`LISTEN ${channel} dropped; listening again`, cause)),
        Effect.andThen(Effect.sleep(Duration.millis(checkMillis))),
        Effect.forever
      )
    )

    return Coordination.of({
      isLeader: SubscriptionRef.get(leading),
      leadership: SubscriptionRef.changes(leading),
      announce: (topic, payload) =>
        pg.notify(channel, `${topic}:${payload}`).pipe(
          Effect.timeout(timeout),
          Effect.retry(Schedule.recurs(2)),
          Effect.catchCause((cause) => Effect.logWarning(`NOTIFY ${channel} failed`, cause))
        ),
      announcements: Effect.map(PubSub.subscribe(hub), (sub) => Stream.fromSubscription(sub)),
      description: `PostgreSQL (advisory lock ${lockKey}, channel ${channel})`
    })
  })

/**
 * Announces once to every replica of a database, without taking part in the
 * election (`svc admin` after an operator change, so that the leader acts now
 * rather than at its next tick).
 *
 * @category operations
 * @since 0.1.0
 */
export const announceOnce = (
  options: Pick<PgCoordinationOptions, "url" | "schema">,
  topic: Topic,
  payload: string
): Effect.Effect<void, StoreError> =>
  Effect.scoped(Effect.gen(function*() {
    const pg = yield* PgClient.make({
      url: options.url,
      maxConnections: 1,
      applicationName: `svc-announce ${hostname()}:${process.pid}`.slice(0, 63)
    }).pipe(Effect.provide(Reactivity.layer))
    yield* pg.notify(`svc_${options.schema ?? "public"}`, `${topic}:${payload}`)
  })).pipe(Effect.mapError((cause) => new StoreError({ operation: "announce", cause })))

/**
 * Coordination of replicas on one PostgreSQL database.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: PgCoordinationOptions): Layer.Layer<Coordination, StoreError> =>
  Layer.effect(Coordination, make(options))
