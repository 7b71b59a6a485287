/**
 * The publication observer: one event-stream connection opened when the run
 * starts and read in the background for the whole run. Checks that need a new
 * publication (a 304 turning into a 200, a later `feed` event on a connection
 * opened before it) wait on it; on a live URL the observation window is the
 * whole run, bounded by `--timeout` from the start.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer } from "effect"
import type { Exchange } from "./Exchange.ts"
import type { SseEvent } from "./Sse.ts"
import { Transport } from "./Transport.ts"

/**
 * The observer service.
 *
 * @category services
 * @since 0.1.0
 */
export class Observer extends Context.Service<Observer, {
  /** Opens the stream (once); later calls do nothing. */
  readonly start: Effect.Effect<void>
  /** When the observation started (Unix ms), if it did. */
  readonly startedAt: () => number | undefined
  /** The first feed event with an id greater than `than`, waiting at most until `deadline` (Unix ms). */
  readonly newer: (than: bigint, deadline: number) => Effect.Effect<SseEvent | undefined>
  /** Every event read so far. */
  readonly events: () => ReadonlyArray<SseEvent>
  /** The stream's exchange, once opened. */
  readonly exchange: () => Exchange | undefined
  /** Why the observer is not streaming, when it is not. */
  readonly problem: () => string | undefined
}>()("@svc/conformance/Observer") {}

const UINT = /^(?:0|[1-9][0-9]*)$/

/**
 * The observer layer (the stream is opened by `start`, closed with the layer).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Observer, never, Transport> = Layer.effect(
  Observer,
  Effect.gen(function*() {
    const transport = yield* Transport
    const scope = yield* Effect.scope
    let started: number | undefined
    let exchange: Exchange | undefined
    let problem: string | undefined
    const events: Array<SseEvent> = []

    const loop = Effect.gen(function*() {
      const handle = yield* transport.stream({ path: "/api/v6/solver-feed/events" }).pipe(
        Effect.catch((e) =>
          Effect.sync(() => {
            problem = e.reason
          }).pipe(Effect.as(undefined))
        )
      )
      if (handle === undefined) return
      exchange = handle.exchange
      if (!handle.streaming) {
        problem = `the event stream answered ${handle.exchange.response.status}`
        return
      }
      while (!handle.ended()) {
        const event = yield* handle.next(1000)
        if (event !== undefined) events.push(event)
      }
      problem = "the server ended the event stream"
    })

    const start = Effect.suspend(() => {
      if (started !== undefined) return Effect.void
      return Effect.gen(function*() {
        started = yield* Clock.currentTimeMillis
        yield* Effect.forkIn(Effect.scoped(loop), scope)
      })
    })

    const newer = (than: bigint, deadline: number) =>
      Effect.gen(function*() {
        while (true) {
          const hit = events.find((e) =>
            e.event === "feed" && e.idInBlock && UINT.test(e.lastEventId) && BigInt(e.lastEventId) > than
          )
          if (hit !== undefined) return hit
          const now = yield* Clock.currentTimeMillis
          if (now >= deadline || problem !== undefined) return undefined
          yield* Effect.sleep(Math.min(50, deadline - now))
        }
      })

    return Observer.of({
      start,
      startedAt: () => started,
      newer,
      events: () => events,
      exchange: () => exchange,
      problem: () => problem
    })
  })
)
