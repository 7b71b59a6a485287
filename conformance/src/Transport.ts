/**
 * How requests reach a deployment: over HTTP with `fetch` (a live URL, or an
 * in-process server on an ephemeral port in our own tests). Sending is
 * decoupled from the checks: a check builds a request, the transport sends it,
 * records the exchange, applies the request rate (`--rate`), the per-request
 * timeout, and waits out `429` answers.
 *
 * Event streams are read incrementally: `stream` returns as soon as the
 * response head has arrived, and `next` yields each event when its blank line
 * arrives, within a time budget. A stream is never read "whole".
 *
 * @since 0.1.0
 */
import { Clock, Context, Data, Effect, Layer, Option, Scope, Semaphore } from "effect"
import type { Exchange, RecordedRequest, RecordedResponse, RecordedStream } from "./Exchange.ts"
import * as Operations from "./Operations.ts"
import * as Sse from "./Sse.ts"

/**
 * A request a check sends.
 *
 * @category models
 * @since 0.1.0
 */
export interface Request {
  readonly method?: string | undefined
  /** An absolute URL, or a path resolved against the base URL. */
  readonly path: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** The body text, sent as is. */
  readonly body?: string | undefined
  /** A value sent as its JSON text with `content-type: application/json`. */
  readonly json?: unknown
}

/**
 * No response (connection refused, reset, timeout).
 *
 * @category errors
 * @since 0.1.0
 */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly request: RecordedRequest
  readonly reason: string
}> {
  override get message(): string {
    return `${this.request.method} ${this.request.url}: ${this.reason}`
  }
}

/**
 * The deployment kept answering 429 beyond the time the run may wait.
 *
 * @category errors
 * @since 0.1.0
 */
export class RateLimited extends Data.TaggedError("RateLimited")<{ readonly reason: string }> {}

/**
 * An open event stream.
 *
 * @category models
 * @since 0.1.0
 */
export interface StreamHandle {
  /** The response head (for a non-stream answer such as a 503, also its body). */
  readonly exchange: Exchange
  /** True when the response is a 200 event stream being read. */
  readonly streaming: boolean
  /** The next event, or undefined when none arrived within `timeoutMs` or the stream ended. */
  readonly next: (timeoutMs: number) => Effect.Effect<Sse.SseEvent | undefined>
  /** Whether the server has ended the stream. */
  readonly ended: () => boolean
  /** The events read so far. */
  readonly events: () => ReadonlyArray<Sse.SseEvent>
  /** Comments (heartbeats) and retry values read so far. */
  readonly parser: Sse.SseParser
}

/**
 * The transport service.
 *
 * @category services
 * @since 0.1.0
 */
export class Transport extends Context.Service<Transport, {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string
  readonly send: (request: Request) => Effect.Effect<Exchange, TransportError | RateLimited>
  /** Opens an event stream; it is closed when the scope closes. */
  readonly stream: (request: Request) => Effect.Effect<StreamHandle, TransportError | RateLimited, Scope.Scope>
  /** Every exchange so far, in order. */
  readonly exchanges: Effect.Effect<ReadonlyArray<Exchange>>
}>()("@svc/conformance/Transport") {}

/**
 * Options of the fetch transport.
 *
 * @category models
 * @since 0.1.0
 */
export interface FetchOptions {
  readonly baseUrl: string
  /** Per request: no response head within this time is a TransportError. */
  readonly timeoutMs: number
  /** Requests per second (undefined or 0: unlimited). */
  readonly rate?: number | undefined
  /** The longest total wait for 429 answers of one request before it is inconclusive. */
  readonly maxRateLimitWaitMs?: number | undefined
  /**
   * The longest total wait, over the whole run, for 503 answers that carry
   * Retry-After (default 60 s): past it a 503 is returned at once, so that a
   * deployment that is down does not make every request wait.
   */
  readonly maxUnavailableWaitMs?: number | undefined
  /** The fetch implementation (default: the global one). */
  readonly fetch?: typeof globalThis.fetch | undefined
  /** Sent on every request. */
  readonly userAgent?: string | undefined
}

const lowerHeaders = (headers: Headers): Record<string, string> => {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value
  })
  return out
}

/**
 * Seconds to wait for a Retry-After value (delta-seconds or an HTTP date).
 *
 * @category http
 * @since 0.1.0
 */
export const retryAfterSeconds = (value: string | undefined, nowMs: number): number | undefined => {
  if (value === undefined) return undefined
  const v = value.trim()
  if (/^[0-9]+$/.test(v)) return Number(v)
  const date = Date.parse(v)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - nowMs) / 1000))
}

/**
 * The fetch transport.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: FetchOptions) =>
  Effect.gen(function*() {
    const baseUrl = options.baseUrl.replace(/\/+$/, "")
    const doFetch = options.fetch ?? globalThis.fetch
    const userAgent = options.userAgent ?? "svc-conformance/0.1.0"
    const interval = options.rate !== undefined && options.rate > 0 ? 1000 / options.rate : 0
    const maxWait = options.maxRateLimitWaitMs ?? Math.max(options.timeoutMs, 10_000)
    let unavailableBudget = options.maxUnavailableWaitMs ?? 60_000
    const slot = yield* Semaphore.make(1)
    let nextSlot = 0
    let counter = 0
    const recorded: Array<Exchange> = []

    const pace = interval === 0 ? Effect.void : slot.withPermit(Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const at = Math.max(now, nextSlot)
      nextSlot = at + interval
      if (at > now) yield* Effect.sleep(at - now)
    }))

    const prepare = (request: Request, accept: string): RecordedRequest => {
      const url = /^https?:\/\//.test(request.path) ? request.path : `${baseUrl}${request.path}`
      const headers: Record<string, string> = { accept, "accept-encoding": "identity", "user-agent": userAgent }
      let body = request.body
      if (request.json !== undefined) {
        body = JSON.stringify(request.json)
        headers["content-type"] = "application/json"
      }
      for (const [k, v] of Object.entries(request.headers ?? {})) headers[k.toLowerCase()] = v
      return {
        method: (request.method ?? (body === undefined ? "GET" : "POST")).toUpperCase(),
        url,
        headers,
        ...(body === undefined ? {} : { body })
      }
    }

    const operationOf = (r: RecordedRequest) => {
      try {
        return Operations.find(r.method, new URL(r.url).pathname)?.operationId
      } catch {
        return undefined
      }
    }

    /** One fetch: the response head within the timeout. */
    const fetchHead = (r: RecordedRequest, signal: AbortSignal) =>
      Effect.tryPromise({
        try: (s) => {
          const both = AbortSignal.any([s, signal])
          // a string body would get fetch's text/plain type: a body sent without one goes as bytes
          const typed = Object.keys(r.headers).some((h) => h.toLowerCase() === "content-type")
          return doFetch(r.url, {
            method: r.method,
            headers: r.headers,
            ...(r.body === undefined ? {} : { body: typed ? r.body : new TextEncoder().encode(r.body) }),
            signal: both,
            redirect: "manual"
          })
        },
        catch: (e) => new TransportError({ request: r, reason: describeError(e) })
      }).pipe(
        Effect.timeoutOption(options.timeoutMs),
        Effect.flatMap(Option.match({
          onNone: () =>
            Effect.fail(new TransportError({ request: r, reason: `no response within ${options.timeoutMs} ms` })),
          onSome: Effect.succeed
        }))
      )

    const readBody = (r: RecordedRequest, response: Response) =>
      Effect.tryPromise({
        try: () => response.arrayBuffer(),
        catch: (e) => new TransportError({ request: r, reason: `body could not be read: ${describeError(e)}` })
      }).pipe(
        Effect.timeoutOption(options.timeoutMs),
        Effect.flatMap(Option.match({
          onNone: () =>
            Effect.fail(new TransportError({ request: r, reason: `body not complete within ${options.timeoutMs} ms` })),
          onSome: (buffer) => Effect.succeed(new TextDecoder().decode(buffer))
        }))
      )

    /**
     * Sends with pacing, waiting out 429 answers (Retry-After, else 1 s) and 503
     * answers that carry Retry-After (the spec lets a client retry the identical
     * request, with the same idempotency key); returns the final response head.
     */
    const sendHead = (r: RecordedRequest, signal: AbortSignal, notes: Array<string>) =>
      Effect.gen(function*() {
        let waited = 0
        for (let attempt = 0;; attempt++) {
          yield* pace
          const startedAt = yield* Clock.currentTimeMillis
          const response = yield* fetchHead(r, signal)
          if (response.status === 503) {
            const retryAfter = response.headers.get("retry-after") ?? undefined
            const now = yield* Clock.currentTimeMillis
            const after = retryAfterSeconds(retryAfter, now)
            // without Retry-After a 503 is an answer (the check judges it); with it, waited out within the budget
            if (after === undefined || attempt >= 2 || after * 1000 > unavailableBudget || after > 30) {
              return { response, startedAt }
            }
            const headers = lowerHeaders(response.headers)
            const body = yield* readBody(r, response).pipe(Effect.orElseSucceed(() => ""))
            record({
              id: ++counter,
              operation: operationOf(r),
              request: r,
              response: { status: 503, headers, body },
              startedAt,
              durationMs: (yield* Clock.currentTimeMillis) - startedAt,
              notes: ["unavailable (503) with Retry-After; waited out and retried"]
            })
            notes.push(`503 from ${r.method} ${new URL(r.url).pathname}: waited Retry-After ${after} s`)
            unavailableBudget -= Math.max(after, 1) * 1000
            yield* Effect.sleep(Math.max(after, 1) * 1000)
            continue
          }
          if (response.status !== 429) return { response, startedAt }
          const headers = lowerHeaders(response.headers)
          const body = yield* readBody(r, response).pipe(Effect.orElseSucceed(() => ""))
          const now = yield* Clock.currentTimeMillis
          record({
            id: ++counter,
            operation: operationOf(r),
            request: r,
            response: { status: 429, headers, body },
            startedAt,
            durationMs: now - startedAt,
            notes: ["rate limited (429); waited out and retried"]
          })
          const after = retryAfterSeconds(headers["retry-after"], now)
          const seconds = after ?? 1
          notes.push(
            `429 from ${r.method} ${new URL(r.url).pathname}: ${
              after === undefined ? "no Retry-After, waited 1 s" : `waited Retry-After ${after} s`
            }`
          )
          if (waited + seconds * 1000 > maxWait || attempt >= 4) {
            return yield* new RateLimited({
              reason: `${r.method} ${new URL(r.url).pathname} answered 429 (Retry-After ${
                headers["retry-after"] ?? "absent"
              }) beyond the ${Math.round(maxWait / 1000)} s the run may wait`
            })
          }
          waited += seconds * 1000
          yield* Effect.sleep(seconds * 1000)
        }
      })

    const record = (exchange: Exchange) => {
      recorded.push(exchange)
      return exchange
    }

    const send = (request: Request) =>
      Effect.gen(function*() {
        const r = prepare(request, "application/json")
        const notes: Array<string> = []
        const controller = new AbortController()
        const { response, startedAt } = yield* sendHead(r, controller.signal, notes)
        const body = yield* readBody(r, response)
        const finished = yield* Clock.currentTimeMillis
        const recordedResponse: RecordedResponse = {
          status: response.status,
          headers: lowerHeaders(response.headers),
          body
        }
        return record({
          id: ++counter,
          operation: operationOf(r),
          request: r,
          response: recordedResponse,
          startedAt,
          durationMs: finished - startedAt,
          notes
        })
      })

    const stream = (request: Request) =>
      Effect.gen(function*() {
        const r = prepare(request, "text/event-stream")
        const notes: Array<string> = []
        const controller = new AbortController()
        yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
        const { response, startedAt } = yield* sendHead(r, controller.signal, notes)
        const headers = lowerHeaders(response.headers)
        const parser = Sse.makeParser()
        const events: Array<Sse.SseEvent> = []
        const streamRecord: { events: Array<Sse.SseEvent>; comments: number; retries: ReadonlyArray<number> } = {
          events,
          comments: 0,
          retries: []
        }
        const isStream = response.status === 200 && /^text\/event-stream/i.test(headers["content-type"] ?? "")
        const body = isStream ? "" : yield* readBody(r, response)
        const finished = yield* Clock.currentTimeMillis
        const exchange = record({
          id: ++counter,
          operation: operationOf(r),
          request: r,
          response: { status: response.status, headers, body },
          ...(isStream ? { stream: streamRecord as RecordedStream } : {}),
          startedAt,
          durationMs: finished - startedAt,
          notes
        })
        if (!isStream || response.body === null) {
          return {
            exchange,
            streaming: false,
            next: () => Effect.succeed(undefined),
            ended: () => true,
            events: () => events,
            parser
          } satisfies StreamHandle
        }
        const reader = response.body.getReader()
        yield* Effect.addFinalizer(() => Effect.promise(() => reader.cancel().catch(() => undefined)))
        const queue: Array<Sse.SseEvent> = []
        let ended = false
        let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined
        const take = (chunk: Uint8Array | undefined) => {
          const out = chunk === undefined ? parser.end() : parser.push(chunk)
          for (const e of out) {
            events.push(e)
            queue.push(e)
          }
          streamRecord.comments = parser.comments().length
          streamRecord.retries = parser.retries()
        }
        const readChunk = Effect.suspend(() => {
          if (pending === undefined) pending = reader.read()
          const current = pending
          return Effect.promise(() => current.then((v) => v, () => ({ done: true as const, value: undefined }))).pipe(
            Effect.tap(() =>
              Effect.sync(() => {
                pending = undefined
              })
            )
          )
        })
        const next = (timeoutMs: number): Effect.Effect<Sse.SseEvent | undefined> =>
          Effect.gen(function*() {
            const deadline = (yield* Clock.currentTimeMillis) + timeoutMs
            while (true) {
              const queued = queue.shift()
              if (queued !== undefined) return queued
              if (ended) return undefined
              const left = deadline - (yield* Clock.currentTimeMillis)
              if (left <= 0) return undefined
              const chunk = yield* readChunk.pipe(Effect.timeoutOption(left))
              if (Option.isNone(chunk)) return undefined
              if (chunk.value.done) {
                ended = true
                take(undefined)
              } else {
                take(chunk.value.value)
              }
            }
          })
        return {
          exchange,
          streaming: true,
          next,
          ended: () => ended && queue.length === 0,
          events: () => events,
          parser
        } satisfies StreamHandle
      })

    return Transport.of({
      baseUrl,
      send,
      stream,
      exchanges: Effect.sync(() => [...recorded])
    })
  })

/**
 * The fetch transport as a layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: FetchOptions): Layer.Layer<Transport> => Layer.effect(Transport, make(options))

const describeError = (e: unknown): string => {
  const error = e as { message?: string; cause?: { code?: string; message?: string } }
  const cause = error?.cause
  if (cause?.code !== undefined) return `${cause.code}${cause.message ? `: ${cause.message}` : ""}`
  return String(error?.message ?? e)
}
