/**
 * The verified feed stream: a fetch-based reader of `GET /api/v6/solver-feed/events`
 * (`streamSolverFeed`; works in browsers and Node) that yields only verified
 * feeds, in strictly increasing dataVersion order. The method, the success
 * status and the error body come from the operation's declaration in the HTTP
 * contract; the URL from the solver manifest.
 *
 * - Every `feed` event is verified like an HTTP feed (signed payload, signer,
 *   validity window). An event that fails is dropped, reported as `Rejected`,
 *   and the connection is dropped (it can no longer be trusted); an event cut
 *   off by a broken connection is never dispatched.
 * - A verified feed whose dataVersion is not above the last one yielded is
 *   reported as `Skipped`, never yielded.
 * - Reconnection sends `Last-Event-ID` = the last yielded dataVersion, with
 *   exponential backoff and jitter from the server's `retry:` value (capped by
 *   `maxDelayMs`). A stream the server ends cleanly (its maximum lifetime, a
 *   restart) is reopened after the `retry:` delay alone, as `EventSource` does,
 *   and is not a failure.
 * - When recovery through the stream is not possible (the server answers 503,
 *   an event was rejected, or `fallbackAfter` consecutive attempts failed), a
 *   fresh verified HTTP snapshot of the feed is taken and yielded if newer; then
 *   the stream is tried again (spec part 6 rule 7).
 * - A connection that is silent for `idleTimeoutMs` (the server sends a
 *   heartbeat at least every 15 s) is treated as broken.
 * - Interrupting the stream (or closing the async iterator) aborts the request.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import {
  type DiscoveryInvalid,
  FeedInvalid,
  type InvalidInput,
  NetworkError,
  ResponseInvalid,
  type SvcClientError,
  Timeout
} from "./Errors.ts"
import { type FeedFilter, type NormalizedFilter, normalizeFilter, type VerifiedFeed, verifyFeed } from "./Feed.ts"
import * as Operations from "./internal/declared.ts"
import { backoffDelay, type FetchFunction, sleepMillis } from "./internal/http.ts"
import { refusal } from "./internal/operations.ts"
import type * as Manifests from "./Manifests.ts"
import { SseParser } from "./Sse.ts"

/**
 * Options of the feed stream.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedStreamOptions extends FeedFilter {
  /** Resume after this dataVersion (sent as Last-Event-ID; older or equal feeds are never yielded). */
  readonly lastEventId?: string | undefined
  /** First reconnection delay before the server sends `retry:`, ms (default 1000). */
  readonly initialDelayMs?: number | undefined
  /** Cap of every reconnection delay, including the server's `retry:`, ms (default 30000). */
  readonly maxDelayMs?: number | undefined
  /** Consecutive failed attempts after which an HTTP snapshot is taken (default 3). */
  readonly fallbackAfter?: number | undefined
  /** A connection silent for this long is dropped, ms (default 45000). */
  readonly idleTimeoutMs?: number | undefined
  /** Give up (fail the stream) after this many consecutive failures (default: never). */
  readonly maxConsecutiveFailures?: number | undefined
}

/**
 * What happens on the stream: verified feeds and diagnostics.
 *
 * @category models
 * @since 0.1.0
 */
export type FeedStreamEvent =
  | { readonly _tag: "Feed"; readonly feed: VerifiedFeed; readonly source: "stream" | "snapshot" }
  | { readonly _tag: "Connected"; readonly url: string; readonly lastEventId: string | undefined }
  | { readonly _tag: "Disconnected"; readonly reason: string }
  | { readonly _tag: "ConnectFailed"; readonly error: SvcClientError }
  | { readonly _tag: "Reconnecting"; readonly failures: number; readonly delayMs: number }
  | { readonly _tag: "Rejected"; readonly error: SvcClientError; readonly eventId: string }
  | { readonly _tag: "Skipped"; readonly dataVersion: string; readonly lastDataVersion: string }
  | { readonly _tag: "ServerEvent"; readonly event: string; readonly data: string }
  | { readonly _tag: "SnapshotFailed"; readonly error: SvcClientError }

/**
 * Errors that end the stream: an unusable manifest or filter, or
 * `maxConsecutiveFailures` reached (the last failure, or a Timeout).
 *
 * @category errors
 * @since 0.1.0
 */
export type FeedStreamError = DiscoveryInvalid | InvalidInput | SvcClientError

/**
 * What the stream needs from the client.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedStreamContext {
  readonly fetch: FetchFunction
  readonly discover: Effect.Effect<Manifests.Solver, SvcClientError>
  /** A verified HTTP snapshot of the feed. */
  readonly snapshot: (filter: NormalizedFilter) => Effect.Effect<VerifiedFeed, SvcClientError>
}

/** How a connection ended: why, with which error, and whether an HTTP snapshot should follow. */
interface Outcome {
  readonly _tag: "Ended"
  readonly reason: string
  readonly error?: SvcClientError | undefined
  readonly snapshot: boolean
  /** The server ended an open stream (its lifetime, a restart): a reconnection, not a failure. */
  readonly clean?: true | undefined
}

/** The operation of the contract the stream reads: its method, success status and error body. */
const operation = Operations.streamSolverFeed

const isPermanent = (error: SvcClientError): boolean =>
  error._tag === "DiscoveryInvalid" || error._tag === "InvalidInput"

/**
 * The stream of feeds and diagnostics.
 *
 * @category http
 * @since 0.1.0
 */
export const feedEvents = (
  context: FeedStreamContext,
  options?: FeedStreamOptions
): Stream.Stream<FeedStreamEvent, FeedStreamError> =>
  Stream.callback<FeedStreamEvent, FeedStreamError>((queue) =>
    Effect.gen(function*() {
      const filter = yield* Effect.fromResult(normalizeFilter(options))
      const maxDelayMs = Math.max(0, options?.maxDelayMs ?? 30_000)
      const fallbackAfter = Math.max(1, options?.fallbackAfter ?? 3)
      const idleTimeoutMs = Math.max(1, options?.idleTimeoutMs ?? 45_000)
      const maxFailures = options?.maxConsecutiveFailures ?? Number.POSITIVE_INFINITY
      const emit = (event: FeedStreamEvent) => Queue.offer(queue, event)

      let retryMs = Math.max(0, options?.initialDelayMs ?? 1000)
      let lastVersion: bigint | undefined =
        options?.lastEventId !== undefined && /^(?:0|[1-9][0-9]*)$/.test(options.lastEventId)
          ? BigInt(options.lastEventId)
          : undefined
      let failures = 0
      let needSnapshot = false
      let lastError: SvcClientError | undefined

      const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

      /** Yields a verified feed if it is newer than the last one; true when it was yielded. */
      const offerFeed = (feed: VerifiedFeed, source: "stream" | "snapshot") =>
        Effect.gen(function*() {
          const version = BigInt(feed.dataVersion)
          if (lastVersion !== undefined && version <= lastVersion) {
            yield* emit({ _tag: "Skipped", dataVersion: feed.dataVersion, lastDataVersion: lastVersion.toString() })
            return false
          }
          lastVersion = version
          yield* emit({ _tag: "Feed", feed, source })
          return true
        })

      const snapshot = Effect.gen(function*() {
        const result = yield* Effect.result(context.snapshot(filter))
        if (Result.isFailure(result)) {
          lastError = result.failure
          yield* emit({ _tag: "SnapshotFailed", error: result.failure })
          if (isPermanent(result.failure)) return yield* Effect.fail(result.failure)
          return
        }
        yield* offerFeed(result.success, "snapshot")
      })

      /** One connection, until it ends; resources are released when it does. */
      const connect = (discovery: Manifests.Solver) =>
        Effect.scoped(Effect.gen(function*() {
          const url = discovery.manifest.endpoints.solverFeedEvents
          const lastEventId = lastVersion?.toString()
          const controller = yield* Effect.acquireRelease(
            Effect.sync(() => new AbortController()),
            (c) => Effect.sync(() => c.abort())
          )
          // only headers a browser sends without a CORS preflight, or that svc allows (Last-Event-ID)
          const headers: Record<string, string> = { accept: "text/event-stream" }
          if (lastEventId !== undefined) headers["last-event-id"] = lastEventId
          const response = yield* Effect.tryPromise({
            try: () => context.fetch(url, { method: operation.method, headers, signal: controller.signal }),
            catch: (cause) =>
              new NetworkError({
                method: operation.method,
                url,
                reason: String((cause as Error)?.message ?? cause),
                cause
              })
          }).pipe(Effect.result)
          if (Result.isFailure(response)) {
            return {
              _tag: "Ended",
              reason: "connection failed",
              error: response.failure,
              snapshot: false
            } satisfies Outcome
          }
          const res = response.success
          if (!operation.successes.has(res.status)) {
            const text = yield* Effect.promise(() => res.text().catch(() => "")).pipe(
              Effect.timeoutOption(idleTimeoutMs),
              Effect.map((body) => body._tag === "Some" ? body.value : "")
            )
            const error = refusal(operation, {
              method: operation.method,
              url,
              status: res.status,
              headers: res.headers,
              text
            })
            return {
              _tag: "Ended",
              reason: `status ${res.status}`,
              error,
              snapshot: res.status === 503
            } satisfies Outcome
          }
          const type = res.headers.get("content-type") ?? ""
          if (!/^text\/event-stream/i.test(type) || res.body === null) {
            const error = new ResponseInvalid({
              method: operation.method,
              url,
              status: res.status,
              reason: `not an event stream (${type})`
            })
            return { _tag: "Ended", reason: "not an event stream", error, snapshot: false } satisfies Outcome
          }
          const reader = res.body.getReader()
          // abort first, then cancel without waiting: releasing a connection never blocks
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              controller.abort()
              reader.cancel().catch(() => undefined)
            })
          )
          yield* emit({ _tag: "Connected", url, lastEventId })
          const parser = new SseParser()
          const decoder = new TextDecoder()
          while (true) {
            const read = yield* Effect.tryPromise({
              try: () => reader.read(),
              catch: (cause) =>
                new NetworkError({
                  method: operation.method,
                  url,
                  reason: String((cause as Error)?.message ?? cause),
                  cause
                })
            }).pipe(Effect.timeoutOption(idleTimeoutMs), Effect.result)
            if (Result.isFailure(read)) {
              return {
                _tag: "Ended",
                reason: "connection broken",
                error: read.failure,
                snapshot: false
              } satisfies Outcome
            }
            if (read.success._tag === "None") {
              return { _tag: "Ended", reason: `no data for ${idleTimeoutMs} ms`, snapshot: false } satisfies Outcome
            }
            const chunk = read.success.value
            if (chunk.done) {
              return { _tag: "Ended", reason: "closed by the server", snapshot: false, clean: true } satisfies Outcome
            }
            for (const item of parser.push(decoder.decode(chunk.value, { stream: true }))) {
              if (item._tag === "Retry") {
                retryMs = item.millis
              } else if (item._tag === "Comment") {
                failures = 0 // a heartbeat: the connection is healthy
              } else if (item.event === "feed") {
                const now = yield* nowSeconds
                let data: unknown
                try {
                  data = JSON.parse(item.data)
                } catch {
                  data = undefined
                }
                const verified = data === undefined
                  ? Result.fail(new FeedInvalid({ reason: "event data is not JSON" }))
                  : verifyFeed(data, { now, expectedSigner: discovery.expectedSigner, filter })
                if (Result.isFailure(verified)) {
                  lastError = verified.failure
                  yield* emit({ _tag: "Rejected", error: verified.failure, eventId: item.lastEventId })
                  return {
                    _tag: "Ended",
                    reason: "a feed event failed verification",
                    error: verified.failure,
                    snapshot: true
                  } satisfies Outcome
                }
                failures = 0
                yield* offerFeed(verified.success, "stream")
              } else {
                yield* emit({ _tag: "ServerEvent", event: item.event, data: item.data })
              }
            }
          }
        }))

      while (true) {
        if (failures > 0) {
          if (failures >= maxFailures) {
            return yield* Effect.fail(lastError ?? new Timeout({ operation: "feed stream", afterMs: 0 }))
          }
          if (needSnapshot || failures % fallbackAfter === 0) {
            needSnapshot = false
            yield* snapshot
          }
          // at least 1 ms, doubling: a server's `retry: 0` never makes a tight reconnection loop
          const delayMs = yield* backoffDelay({
            initialDelayMs: Math.min(Math.max(retryMs, 1), maxDelayMs),
            maxDelayMs
          }, failures)
          yield* emit({ _tag: "Reconnecting", failures, delayMs })
          yield* sleepMillis(delayMs)
        }
        const discovery = yield* Effect.result(context.discover)
        if (Result.isFailure(discovery)) {
          if (isPermanent(discovery.failure)) return yield* Effect.fail(discovery.failure)
          lastError = discovery.failure
          failures++
          yield* emit({ _tag: "ConnectFailed", error: discovery.failure })
          continue
        }
        const outcome = yield* connect(discovery.success)
        if (outcome.error !== undefined) {
          lastError = outcome.error
          if (outcome.reason !== "a feed event failed verification") {
            yield* emit({ _tag: "ConnectFailed", error: outcome.error })
          }
        }
        yield* emit({ _tag: "Disconnected", reason: outcome.reason })
        if (outcome.clean === true) {
          // like EventSource: a stream the server ended cleanly is reopened after the server's retry
          // delay (jittered), without backoff, and does not count toward maxConsecutiveFailures
          failures = 0
          const delayMs = yield* backoffDelay({
            initialDelayMs: Math.min(Math.max(retryMs, 1), maxDelayMs),
            maxDelayMs
          }, 1)
          yield* emit({ _tag: "Reconnecting", failures: 0, delayMs })
          yield* sleepMillis(delayMs)
          continue
        }
        if (outcome.snapshot) {
          needSnapshot = true
        }
        failures++
      }
    }), { bufferSize: 16 })

/**
 * Only the verified feeds of {@link feedEvents}.
 *
 * @category http
 * @since 0.1.0
 */
export const feeds = (
  context: FeedStreamContext,
  options?: FeedStreamOptions
): Stream.Stream<VerifiedFeed, FeedStreamError> =>
  feedEvents(context, options).pipe(
    Stream.filter((event): event is Extract<FeedStreamEvent, { _tag: "Feed" }> => event._tag === "Feed"),
    Stream.map((event) => event.feed)
  )
