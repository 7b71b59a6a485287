/**
 * Coordination between the replicas of one deployment: which process leads (it
 * alone publishes the feed and settles on chain), and announcements that reach
 * every replica (a new publication, an operator change).
 *
 * One process with its own database needs no coordination:
 * {@link layerSingle} leads from the start and announces to itself. Replicas on
 * one PostgreSQL database use `@svc/store`'s `PgCoordination` (an advisory lock
 * held by one session, LISTEN/NOTIFY); the store stays the source of truth, so an
 * announcement only says "look again", and a replica that missed one catches up
 * on the next (or on its periodic check).
 *
 * @since 0.1.0
 */
import { Context, Effect, Fiber, Layer, PubSub, type Scope, Stream, SubscriptionRef } from "effect"

/**
 * What an announcement is about.
 *
 * - `publication`: the leader published (payload: the dataVersion) or closed the feed;
 * - `operator`: the operator state changed (pause, resume, route overrides);
 * - `resync`: this replica may have missed announcements (it reconnected): look again.
 *
 * @category models
 * @since 0.1.0
 */
export type Topic = "publication" | "operator" | "resync"

/**
 * An announcement from some replica.
 *
 * @category models
 * @since 0.1.0
 */
export interface Announcement {
  readonly topic: Topic
  readonly payload: string
}

/**
 * The coordination service.
 *
 * @category services
 * @since 0.1.0
 */
export class Coordination extends Context.Service<Coordination, {
  /** Whether this process leads now. */
  readonly isLeader: Effect.Effect<boolean>
  /** Leadership: the current value first, then every change. */
  readonly leadership: Stream.Stream<boolean>
  /** Tells every replica, this one included. Best effort: the store is the truth. */
  readonly announce: (topic: Topic, payload: string) => Effect.Effect<void>
  /** Announcements from every replica, from the moment of subscription. */
  readonly announcements: Effect.Effect<Stream.Stream<Announcement>, never, Scope.Scope>
  /** How this deployment coordinates, for logs and the admin status. */
  readonly description: string
}>()("@svc/core/Coordination") {}

/**
 * Runs `work` whenever this process leads and interrupts it when leadership is
 * lost; started again when leadership comes back. Never returns (fork it).
 *
 * @category operations
 * @since 0.1.0
 */
export const whileLeader = <E, R>(
  coordination: Coordination["Service"],
  work: Effect.Effect<unknown, E, R>
): Effect.Effect<void, never, R> =>
  Effect.gen(function*() {
    let running: Fiber.Fiber<unknown, E> | undefined
    yield* Stream.runForEach(Stream.changes(coordination.leadership), (leading) =>
      Effect.gen(function*() {
        if (leading && running === undefined) {
          running = yield* Effect.forkChild(
            Effect.catchCause(work, (cause) => Effect.logError("leader work failed", cause))
          )
        } else if (!leading && running !== undefined) {
          const fiber = running
          running = undefined
          yield* Fiber.interrupt(fiber)
        }
      }))
  })

/**
 * One process, one database: this process leads from the start, and its
 * announcements reach its own subscribers.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeSingle: Effect.Effect<Coordination["Service"]> = Effect.gen(function*() {
  const leading = yield* SubscriptionRef.make(true)
  const hub = yield* PubSub.unbounded<Announcement>()
  return Coordination.of({
    isLeader: SubscriptionRef.get(leading),
    leadership: SubscriptionRef.changes(leading),
    announce: (topic, payload) => PubSub.publish(hub, { topic, payload }).pipe(Effect.asVoid),
    announcements: Effect.map(PubSub.subscribe(hub), (sub) => Stream.fromSubscription(sub)),
    description: "single process"
  })
})

/**
 * The single-process coordination (see {@link makeSingle}).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerSingle: Layer.Layer<Coordination> = Layer.effect(Coordination, makeSingle)
