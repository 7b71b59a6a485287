/**
 * Handlers of the contract's Feed group: the signed feed (prepared bytes,
 * `FeedServing`) and the event stream (the server's `Broadcaster`, here through
 * an Effect stream). With the `node:http` fast path installed, the fast path
 * answers these two operations first (the same code underneath); these handlers
 * answer what it leaves (and every request when a host serves the app without it).
 *
 * @since 0.1.0
 */
import type { Publisher } from "@svc/core"
import * as Api from "@svc/protocol/Api"
import { Effect, Queue, Result, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type * as Broadcaster from "../Broadcaster.ts"
import * as ClientAddress from "../ClientAddress.ts"
import type * as FeedBudget from "../FeedBudget.ts"
import type * as FeedServing from "../FeedServing.ts"
import * as Http from "../Http.ts"
import * as SolverErrors from "../SolverErrors.ts"
import * as StreamEncoding from "../StreamEncoding.ts"

/**
 * What the Feed handlers work with, resolved when the server is built.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedContext {
  readonly publisher: Publisher.Publisher["Service"]
  readonly feed: FeedServing.FeedServing
  readonly broadcaster: Broadcaster.Broadcaster
  /** The per-client budget of feed requests; none: unlimited. */
  readonly feedBudget?: FeedBudget.FeedBudget | undefined
}

/**
 * The headers of an event stream response.
 *
 * @category http
 * @since 0.1.0
 */
export const STREAM_HEADERS: Readonly<Record<string, string>> = {
  ...Http.CORS_HEADERS,
  "cache-control": Http.CacheControl.noStore,
  "x-accel-buffering": "no",
  "x-content-type-options": "nosniff"
}

/**
 * The content type of an event stream response.
 *
 * @category http
 * @since 0.1.0
 */
export const STREAM_CONTENT_TYPE = "text/event-stream; charset=utf-8"

/**
 * Why a stream is refused before it starts, or nothing: no publication (503),
 * shutting down or at a subscriber cap (503).
 *
 * @category http
 * @since 0.1.0
 */
export const streamRefusal = (
  context: FeedContext,
  current: Result.Result<Publisher.Publication, Publisher.PublicationUnavailable>,
  client: string
): SolverErrors.SolverFailure | undefined => {
  if (Result.isFailure(current)) return SolverErrors.fromPublicationUnavailable(current.failure)
  const refusal = context.broadcaster.admit(client)
  if (refusal === undefined) return undefined
  return refusal === "CLOSING"
    ? SolverErrors.failure("PUBLICATION_CLOSED", ["SHUTTING_DOWN"], { retryAfterSeconds: 5 })
    : SolverErrors.failure("AUTHORITY_UNAVAILABLE", [refusal], { retryAfterSeconds: 10 })
}

/**
 * The headers of an event stream response in a coding.
 *
 * @category http
 * @since 0.1.0
 */
export const streamHeaders = (encoding: StreamEncoding.StreamEncoding): Readonly<Record<string, string>> => {
  const contentEncoding = StreamEncoding.contentEncoding(encoding)
  return {
    ...STREAM_HEADERS,
    "content-type": STREAM_CONTENT_TYPE,
    vary: "Accept-Encoding",
    ...(contentEncoding === undefined ? {} : { "content-encoding": contentEncoding })
  }
}

const MAX_QUEUED = 4

/** A subscriber's stream as an Effect stream (the sink buffers in a queue). */
const eventStream = (
  broadcaster: Broadcaster.Broadcaster,
  client: string,
  lastEventId: string | undefined,
  encoding: StreamEncoding.StreamEncoding
) =>
  Stream.callback<Uint8Array>((queue) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const sink: Broadcaster.Sink = {
          client,
          encoding,
          write: (bytes) => void Queue.offerUnsafe(queue, bytes),
          // a consumer more than a few frames behind is too slow (the queue never holds more)
          buffered: () => (Queue.sizeUnsafe(queue) > MAX_QUEUED ? Number.MAX_SAFE_INTEGER : 0),
          end: (bytes) => {
            if (bytes !== undefined) Queue.offerUnsafe(queue, bytes)
            Queue.endUnsafe(queue)
          },
          destroy: () => Queue.endUnsafe(queue)
        }
        return broadcaster.subscribe(sink, lastEventId)
      }),
      (unsubscribe) => Effect.sync(unsubscribe)
    ).pipe(Effect.andThen(Effect.never)), { bufferSize: 2 * MAX_QUEUED })

/**
 * The Feed group's handlers.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (context: FeedContext) => {
  const feedAnswer = (
    headers: { readonly "if-none-match"?: string | undefined },
    query: { readonly sourceChainId?: string | undefined; readonly sourceNetworkId?: string | undefined },
    request: { readonly headers: Readonly<Record<string, string | undefined>> }
  ) =>
    Effect.matchEffect(context.publisher.current, {
      onFailure: (e) => Effect.succeed(Http.errorResponse(SolverErrors.fromPublicationUnavailable(e))),
      onSuccess: (publication) => {
        const answer = context.feed.respond(
          publication,
          { sourceChainId: query.sourceChainId, sourceNetworkId: query.sourceNetworkId },
          headers["if-none-match"],
          request.headers["accept-encoding"]
        )
        return answer instanceof Promise ? Effect.promise(() => answer) : Effect.succeed(answer)
      }
    })
  return HttpApiBuilder.group(Api.Api, "Feed", (handlers) =>
    Effect.succeed(
      handlers
        .handleRaw("getSolverFeed", ({ headers, query, request }) =>
          Effect.flatMap(ClientAddress.current, (client) => {
            const overBudget = context.feedBudget?.take(client)
            return overBudget !== undefined ? Effect.succeed(overBudget) : feedAnswer(headers, query, request)
          }))
        .handleRaw("streamSolverFeed", ({ headers, request }) =>
          Effect.gen(function*() {
            const client = yield* ClientAddress.current
            const current = yield* Effect.result(context.publisher.current)
            const refused = streamRefusal(context, current, client)
            if (refused !== undefined) return Http.errorResponse(refused)
            const encoding = StreamEncoding.negotiate(request.headers["accept-encoding"])
            if (request.method === "HEAD") {
              return HttpServerResponse.empty({ status: 200, headers: streamHeaders(encoding) })
            }
            return HttpServerResponse.stream(
              eventStream(context.broadcaster, client, headers["last-event-id"], encoding),
              { contentType: STREAM_CONTENT_TYPE, headers: streamHeaders(encoding) }
            )
          }))
    ))
}
