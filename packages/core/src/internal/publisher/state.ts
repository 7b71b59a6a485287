/**
 * The publisher's state cell: the current {@link PublisherState}, the events
 * subscribers hear, the one way to change both ({@link StateCell.set}), and the
 * current publication as the feed, route and permit requests read it. Internal
 * to the publisher.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option, PubSub, Ref } from "effect"
import type { Publication, PublicationEvent, PublisherState } from "../../Publisher.ts"
import { PublicationUnavailable } from "./errors.ts"

/** Publications a subscriber's queue holds at most (older ones are dropped for it). */
const EVENT_BUFFER = 4

/**
 * The state of one publisher and its subscribers' events.
 *
 * @category models
 * @since 0.1.0
 */
export interface StateCell {
  readonly ref: Ref.Ref<PublisherState>
  readonly events: PubSub.PubSub<PublicationEvent>
  /** Sets the state, then tells subscribers `event` (when given). */
  readonly set: (next: PublisherState, event?: PublicationEvent) => Effect.Effect<void>
}

/**
 * A new state cell: `Unavailable` (not published yet), with no subscriber.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeState: Effect.Effect<StateCell> = Effect.gen(function*() {
  const ref = yield* Ref.make<PublisherState>({
    _tag: "Unavailable",
    reason: "not published yet",
    last: Option.none()
  })
  // every event is the full current state: a subscriber more than a few events behind is
  // disconnected by its reader, so a bounded sliding buffer keeps memory bounded even for a
  // subscriber that stopped reading (it never holds more than EVENT_BUFFER publications)
  const events = yield* PubSub.sliding<PublicationEvent>(EVENT_BUFFER)
  const set = (next: PublisherState, event?: PublicationEvent) =>
    Effect.flatMap(
      Ref.set(ref, next),
      () => event === undefined ? Effect.void : PubSub.publish(events, event).pipe(Effect.asVoid)
    )
  return { ref, events, set }
})

/**
 * The last publication of a state: the current one when open.
 *
 * @category operations
 * @since 0.1.0
 */
export const lastOf = (s: PublisherState): Option.Option<Publication> =>
  s._tag === "Open" ? Option.some(s.publication) : s.last

/**
 * The current publication of a state cell, or why there is none (closed,
 * unavailable, or expired).
 *
 * @category operations
 * @since 0.1.0
 */
export const currentOf = (stateRef: Ref.Ref<PublisherState>): Effect.Effect<Publication, PublicationUnavailable> =>
  // plain composition: this runs for every feed, route and permit request
  Effect.flatMap(Ref.get(stateRef), (state) => {
    if (state._tag === "Closed") {
      return Effect.fail(new PublicationUnavailable({ closed: true, reason: state.reason }))
    }
    if (state._tag === "Unavailable") {
      return Effect.fail(new PublicationUnavailable({ closed: false, reason: state.reason }))
    }
    return Effect.flatMap(
      Clock.currentTimeMillis,
      (nowMs) =>
        state.publication.validUntil <= Math.floor(nowMs / 1000)
          ? Effect.fail(
            new PublicationUnavailable({ closed: false, reason: "the current publication has expired" })
          )
          : Effect.succeed(state.publication)
    )
  })
