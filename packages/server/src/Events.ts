/**
 * The event stream `GET /api/v6/solver-feed/events`: a current-state stream of
 * the confirmed active set, push-driven, with no replay.
 *
 * - On connect: `retry: 3000`, then the current feed as a `feed` event (id =
 *   dataVersion), unless Last-Event-ID equals the current dataVersion. A
 *   Last-Event-ID that is older, newer or not a UintStr gets the current feed.
 * - Every later publication is a `feed` event; an operator pause or a shutdown
 *   sends `publication-closed` and ends the stream (reconnects get 503 while
 *   paused); an internal failure sends `error` and ends it.
 * - A comment heartbeat at least every 15 s.
 * - Each publication is framed and encoded once; every subscriber writes the
 *   same bytes.
 * - Bounded memory: at most `maxSubscribers` streams (503 beyond); a subscriber
 *   that falls behind by more than `maxBacklog` publications (one frame in the
 *   socket, one queued) is disconnected — it reconnects with Last-Event-ID and
 *   receives the current state.
 *
 * @since 0.1.0
 */
import { Publisher } from "@svc/core"
import { Deferred, Effect, Fiber, PubSub, Queue, Schedule, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import * as Http from "./Http.ts"
import type { Request, Route } from "./Router.ts"
import { unavailable } from "./SolverRoutes.ts"
import { UINT } from "@svc/protocol/Patterns"

/**
 * Options of the stream.
 *
 * @category models
 * @since 0.1.0
 */
export interface EventsOptions {
  /** Comment heartbeat period, ms. Default 15000. */
  readonly heartbeatMillis?: number | undefined
  /** `retry:` sent on connect, ms. Default 3000. */
  readonly retryMillis?: number | undefined
  /** Most concurrent subscribers (503 beyond). Default 10000. */
  readonly maxSubscribers?: number | undefined
  /** Publications a subscriber may fall behind before it is disconnected. Default 1. */
  readonly maxBacklog?: number | undefined
}

const encoder = new TextEncoder()
const frames = new WeakMap<Publisher.Publication, Uint8Array>()

/**
 * The `feed` event frame of a publication (computed once per publication):
 * `id: <dataVersion>\nevent: feed\ndata: <SignedFeed>\n\n`.
 *
 * @category frames
 * @since 0.1.0
 */
export const feedFrame = (publication: Publisher.Publication): Uint8Array => {
  let frame = frames.get(publication)
  if (frame === undefined) {
    // the full view's body is {"ok":true,"feed":<SignedFeed>}: the SignedFeed is its inner bytes
    const body = publication.fullView.body
    const prefix = encoder.encode(`id: ${publication.dataVersion}\nevent: feed\ndata: `)
    const suffix = encoder.encode("\n\n")
    const inner = body.subarray(18, body.length - 1)
    frame = new Uint8Array(prefix.length + inner.length + suffix.length)
    frame.set(prefix, 0)
    frame.set(inner, prefix.length)
    frame.set(suffix, prefix.length + inner.length)
    frames.set(publication, frame)
  }
  return frame
}

// the data is an SseErrorEvent: `{ error }` only
const closedFrame = encoder.encode(`event: publication-closed\ndata: ${JSON.stringify({ error: "PUBLICATION_CLOSED" })}\n\n`)
const errorFrame = encoder.encode(`event: error\ndata: ${JSON.stringify({ error: "INTERNAL_ERROR" })}\n\n`)
const heartbeatFrame = encoder.encode(": keep-alive\n\n")


/**
 * The event stream: its route, the count of open streams, and `closeAll`, which
 * sends `publication-closed` to every stream and ends them (used at shutdown,
 * before the HTTP server drains).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (publisher: Publisher.Publisher["Service"], options?: EventsOptions) =>
  Effect.gen(function*() {
    const heartbeatMillis = Math.max(10, options?.heartbeatMillis ?? 15_000)
    const retryFrame = encoder.encode(`retry: ${Math.max(0, options?.retryMillis ?? 3000)}\n\n`)
    const maxSubscribers = Math.max(1, options?.maxSubscribers ?? 10_000)
    const maxBacklog = Math.max(0, options?.maxBacklog ?? 1)
    const closing = yield* Deferred.make<string>()
    let open = 0

    const stream = (lastEventId: string | undefined) =>
      Stream.callback<Uint8Array>((queue) =>
        Effect.gen(function*() {
          open++
          yield* Effect.addFinalizer(() => Effect.sync(() => void open--))
          const { events, state } = yield* publisher.subscribe
          const offer = (frame: Uint8Array) => Queue.offer(queue, frame)
          const end = (frame?: Uint8Array) =>
            (frame === undefined ? Effect.void : offer(frame)).pipe(Effect.andThen(Queue.end(queue)), Effect.asVoid)
          yield* offer(retryFrame)
          if (state._tag !== "Open") {
            return yield* end(closedFrame)
          }
          const current = state.publication
          const known = lastEventId !== undefined && UINT.test(lastEventId) ? lastEventId : undefined
          if (known !== current.dataVersion.toString()) yield* offer(feedFrame(current))
          let lastSent = current.dataVersion
          const heartbeat = yield* Effect.forkScoped(
            Effect.repeat(offer(heartbeatFrame), Schedule.spaced(heartbeatMillis))
          )
          const loop = Effect.gen(function*() {
            while (true) {
              const event = yield* PubSub.take(events)
              if (event._tag === "Closed") return yield* end(closedFrame)
              if (event.publication.dataVersion <= lastSent) continue
              const backlog = yield* PubSub.remaining(events)
              if (backlog > maxBacklog) {
                // too slow: end the stream; the client reconnects and gets the current state
                return yield* end()
              }
              lastSent = event.publication.dataVersion
              yield* offer(feedFrame(event.publication))
            }
          })
          yield* Effect.raceFirst(
            loop,
            Effect.flatMap(Deferred.await(closing), () => end(closedFrame))
          ).pipe(
            Effect.catchCause(() => end(errorFrame)),
            Effect.ensuring(Fiber.interrupt(heartbeat))
          )
        }), { bufferSize: 1 })

    const handler = (request: Request) =>
      Effect.gen(function*() {
        if (request.query.length > 0) return Http.fail("INVALID_REQUEST", ["UNKNOWN_QUERY_PARAMETER"])
        const current = yield* Effect.result(publisher.current)
        if (current._tag === "Failure") return unavailable(current.failure)
        if (yield* Deferred.isDone(closing)) return Http.fail("PUBLICATION_CLOSED", ["SHUTTING_DOWN"], { retryAfterSeconds: 5 })
        if (open >= maxSubscribers) {
          return Http.fail("AUTHORITY_UNAVAILABLE", ["TOO_MANY_SUBSCRIBERS"], { retryAfterSeconds: 10 })
        }
        const headers = {
          ...Http.CORS_HEADERS,
          "cache-control": Http.CacheControl.noStore,
          "x-accel-buffering": "no",
          "x-content-type-options": "nosniff"
        }
        if (request.method === "HEAD") {
          return HttpServerResponse.empty({ status: 200, headers: { ...headers, "content-type": "text/event-stream; charset=utf-8" } })
        }
        return HttpServerResponse.stream(stream(request.header("last-event-id")), {
          contentType: "text/event-stream; charset=utf-8",
          headers
        })
      })

    const route: Route = { method: "GET", path: "/api/v6/solver-feed/events", handler }
    return {
      route,
      subscribers: () => open,
      closeAll: (reason: string) => Deferred.succeed(closing, reason).pipe(Effect.asVoid)
    }
  })
