/**
 * Coordination of replicas on one PostgreSQL database (see `@svc/core/Coordination`).
 *
 * - **Leadership**: a lease, a row of `svc_leases` in the store's schema (holder,
 *   fencing token, expiry on the database's clock). The leader renews it every
 *   `checkMillis` for `leaseMillis`; a follower tries to take it every
 *   `checkMillis` and succeeds only once it expired (a new holder gets the next
 *   token). So another replica settles within `leaseMillis` + `checkMillis` of
 *   the leader's last renewal, whatever became of the leader: dead, cut off, or
 *   frozen (a process stopped with SIGSTOP keeps its sessions and any lock it
 *   holds, which is why leadership is not a lock). The leader counts its lease
 *   from before each renewal was sent, on its own monotonic clock, minus a
 *   margin: `isLeader` turns false when that runs out, before the database lets
 *   anyone else take over, so a process resumed after a freeze sees at once
 *   that it lost the lease and sends nothing more (settlement checks `isLeader`
 *   right before it signs and before it sends). A leader that shuts down
 *   releases the lease, so the next one takes over at its next check.
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
import { randomBytes } from "node:crypto"
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
  /** How often a follower tries to lead and the leader renews its lease, milliseconds. Default 1000. */
  readonly checkMillis?: number | undefined
  /** How long a lease lasts unless renewed, milliseconds. Default 5 × checkMillis. */
  readonly leaseMillis?: number | undefined
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
    const leaseMillis = Math.max(checkMillis * 2, options.leaseMillis ?? checkMillis * 5)
    // the local deadline runs out this much before the database's expiry
    const margin = Math.max(checkMillis, Math.floor(leaseMillis / 5))
    const holder = `${hostname()}:${process.pid}:${randomBytes(6).toString("hex")}`
    const leaseName = `svc_leader:${namespace}`
    let deadline = 0
    let token: string | undefined
    const leadsNow = () => performance.now() < deadline

    const table = `CREATE TABLE IF NOT EXISTS svc_leases (
      name TEXT PRIMARY KEY,
      holder TEXT NOT NULL,
      token BIGINT NOT NULL,
      expires_at TIMESTAMPTZ NOT NULL
    )`
    // a row back means this replica holds the lease until expires_at; a new holder gets the next token
    const ACQUIRE = `INSERT INTO svc_leases (name, holder, token, expires_at)
        VALUES ($1, $2, 1, clock_timestamp() + $3::int * interval '1 millisecond')
      ON CONFLICT (name) DO UPDATE SET
        holder = excluded.holder,
        expires_at = excluded.expires_at,
        token = svc_leases.token + CASE WHEN svc_leases.holder = excluded.holder THEN 0 ELSE 1 END
      WHERE svc_leases.holder = excluded.holder OR svc_leases.expires_at < clock_timestamp()
      RETURNING token`

    const session = yield* connect("leader").pipe(
      Effect.mapError((cause) => new StoreError({ operation: "coordination", cause }))
    )
    if (options.schema !== undefined) {
      yield* session.unsafe(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`).pipe(Effect.ignore)
    }
    const ensureTable = session.unsafe(table).pipe(Effect.ignore)
    yield* ensureTable

    /** One attempt to take or renew the lease; true when this replica holds it now. */
    const acquire = Effect.gen(function*() {
      const sentAt = performance.now()
      const rows = yield* session.unsafe<{ readonly token: unknown }>(ACQUIRE, [leaseName, holder, leaseMillis]).pipe(
        Effect.timeoutOrElse({
          duration: Duration.millis(checkMillis * 2),
          orElse: () => Effect.fail(new Error("the lease query did not answer in time"))
        }),
        Effect.tapError(() => ensureTable)
      )
      const row = rows[0]
      if (row === undefined) return false
      deadline = sentAt + leaseMillis - margin
      token = String(row.token)
      return true
    })

    const step = Effect.gen(function*() {
      const was = yield* SubscriptionRef.get(leading)
      const holds = yield* acquire.pipe(
        Effect.catchCause((cause) =>
          Effect.as(
            was
              ? Effect.logWarning("the leader could not renew its lease; it steps down when it runs out", cause)
              : Effect.void,
            false
          )
        )
      )
      const leadsNowValue = holds && leadsNow()
      if (leadsNowValue !== was) {
        yield* SubscriptionRef.set(leading, leadsNowValue)
        yield* leadsNowValue
          ? Effect.logInfo("this replica leads: it publishes and settles", { lease: leaseName, token })
          : Effect.logWarning("this replica no longer leads (its lease ran out or was taken)", { lease: leaseName })
      }
      yield* Deferred.succeed(decided, undefined)
    })
    // renew (or try to take) every checkMillis; a watchdog ends leadership when the lease runs out unrenewed
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(step, Effect.sleep(Duration.millis(checkMillis)))))
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      yield* Effect.sleep(Duration.millis(Math.max(10, Math.floor(checkMillis / 4))))
      if ((yield* SubscriptionRef.get(leading)) && !leadsNow()) {
        yield* SubscriptionRef.set(leading, false)
        yield* Effect.logWarning("this replica no longer leads: its lease ran out before it was renewed", {
          lease: leaseName
        })
      }
    })))
    // a leader that stops hands the lease over at once
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        const held = leadsNow()
        deadline = 0
        yield* SubscriptionRef.set(leading, false)
        if (held) {
          yield* session.unsafe(`DELETE FROM svc_leases WHERE name = $1 AND holder = $2`, [leaseName, holder]).pipe(
            Effect.timeout(Duration.millis(checkMillis * 2)),
            Effect.ignore
          )
        }
      })
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
      // the local deadline, not the last known state: a process resumed after a freeze sees it ran out
      isLeader: Effect.map(SubscriptionRef.get(leading), (l) => l && leadsNow()),
      leadership: SubscriptionRef.changes(leading),
      announce: (topic, payload) =>
        pg.notify(channel, `${topic}:${payload}`).pipe(
          Effect.timeout(timeout),
          Effect.retry(Schedule.recurs(2)),
          Effect.catchCause((cause) => Effect.logWarning(`NOTIFY ${channel} failed`, cause))
        ),
      announcements: Effect.map(PubSub.subscribe(hub), (sub) => Stream.fromSubscription(sub)),
      description: `PostgreSQL (lease ${leaseName} of ${leaseMillis} ms, channel ${channel})`
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
