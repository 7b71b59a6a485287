/**
 * Following the leader: a replica that does not lead serves what the leader
 * stored. It looks again when told (an announcement) and every `followMillis`
 * in case it was not told; each look is the span `Publisher.follow`. Internal
 * to the publisher.
 *
 * @since 0.1.0
 */
import { Effect, Option, Ref, type Semaphore } from "effect"
import type { Store } from "../../Store.ts"
import type { Documents } from "./documents.ts"
import { lastOf, type StateCell } from "./state.ts"

/**
 * What following needs: the publisher's lock, its state, the store the leader
 * writes to, and the publisher's documents (to adopt the leader's).
 *
 * @category models
 * @since 0.1.0
 */
export interface FollowContext {
  readonly lock: Semaphore.Semaphore
  readonly state: StateCell
  readonly store: Store["Service"]
  readonly documents: Documents
}

/**
 * One look at the leader's newest publication: serves it (checked) when it is
 * newer than the current one, follows the operator's pause; a failure is
 * logged, never raised.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeFollow = ({ documents, lock, state: cell, store }: FollowContext): Effect.Effect<void> =>
  lock.withPermit(Effect.gen(function*() {
    const state = yield* Ref.get(cell.ref)
    const operator = yield* store.operatorState
    if (operator.paused) {
      const reason = operator.pauseReason ?? "publication paused by the operator"
      if (state._tag !== "Closed") {
        yield* cell.set({ _tag: "Closed", reason, last: lastOf(state) }, { _tag: "Closed", reason })
      }
      return
    }
    const stored = yield* store.latestPublicationDocument
    if (stored === undefined) return
    const last = lastOf(state)
    if (state._tag === "Open" && Option.isSome(last) && last.value.dataVersion >= stored.dataVersion) return
    if (state._tag !== "Open" && Option.isSome(last) && last.value.dataVersion === stored.dataVersion) {
      // resumed, the leader has not republished yet: serve the last one again
      yield* cell.set({ _tag: "Open", publication: last.value }, { _tag: "Published", publication: last.value })
      return
    }
    if (Option.isSome(last) && last.value.dataVersion > stored.dataVersion) return
    const publication = yield* documents.adopt(stored)
    yield* cell.set({ _tag: "Open", publication }, { _tag: "Published", publication })
  })).pipe(
    Effect.catchCause((cause) => Effect.logWarning("following the leader's publication failed", cause)),
    // a replica that does not lead: each look at what the leader stored (announced, or every followMillis)
    Effect.withSpan("Publisher.follow")
  )
