/**
 * A recorded HTTP exchange: the request exactly as sent and the response as
 * received. Every check works on exchanges; run-wide checks read all of them
 * after the run; failures carry the exchange that shows them.
 *
 * @since 0.1.0
 */
import * as Curl from "./Curl.ts"
import type { SseEvent } from "./Sse.ts"

/**
 * A request as sent.
 *
 * @category models
 * @since 0.1.0
 */
export interface RecordedRequest {
  readonly method: string
  /** Absolute URL. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
}

/**
 * A response as received (header names lowercase; body decoded as UTF-8).
 *
 * @category models
 * @since 0.1.0
 */
export interface RecordedResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * What was read from an event stream.
 *
 * @category models
 * @since 0.1.0
 */
export interface RecordedStream {
  readonly events: ReadonlyArray<SseEvent>
  readonly comments: number
  readonly retries: ReadonlyArray<number>
}

/**
 * One exchange.
 *
 * @category models
 * @since 0.1.0
 */
export interface Exchange {
  readonly id: number
  /** The spec operationId the request matched, when any. */
  readonly operation: string | undefined
  readonly request: RecordedRequest
  readonly response: RecordedResponse
  /** Set for event streams: the events read (the body is then empty). */
  readonly stream?: RecordedStream | undefined
  /** Unix ms when the request was sent. */
  readonly startedAt: number
  readonly durationMs: number
  /** Notes of the transport (a 429 waited out, ...). */
  readonly notes: ReadonlyArray<string>
}

const parsed = new WeakMap<Exchange, { readonly ok: boolean; readonly value: unknown }>()

/**
 * The response body parsed as JSON, or undefined when it is not JSON.
 *
 * @category operations
 * @since 0.1.0
 */
export const json = (exchange: Exchange): unknown => {
  let hit = parsed.get(exchange)
  if (hit === undefined) {
    try {
      hit = { ok: true, value: JSON.parse(exchange.response.body) as unknown }
    } catch {
      hit = { ok: false, value: undefined }
    }
    parsed.set(exchange, hit)
  }
  return hit.value
}

/**
 * Whether the body parses as JSON.
 *
 * @category operations
 * @since 0.1.0
 */
export const isJson = (exchange: Exchange): boolean => {
  json(exchange)
  return parsed.get(exchange)!.ok
}

/**
 * The curl command reproducing the request.
 *
 * @category encoding
 * @since 0.1.0
 */
export const curl = (exchange: Exchange): string =>
  Curl.command({
    method: exchange.request.method,
    url: exchange.request.url,
    headers: exchange.request.headers,
    body: exchange.request.body,
    ...(exchange.stream === undefined ? {} : { stream: true, maxTimeSeconds: 10 })
  })

/**
 * A short description: `GET /api/v6/solver-feed -> 200`.
 *
 * @category encoding
 * @since 0.1.0
 */
export const describe = (exchange: Exchange): string => {
  const url = new URL(exchange.request.url)
  return `${exchange.request.method} ${url.pathname}${url.search} -> ${exchange.response.status}`
}

/**
 * The response as a short text for reports: status, the headers that matter,
 * and the body (truncated).
 *
 * @category encoding
 * @since 0.1.0
 */
export const responseSummary = (exchange: Exchange, maxBody = 600): string => {
  const r = exchange.response
  const body = exchange.stream !== undefined
    ? exchange.stream.events.map((e) => `event: ${e.event} id: ${e.idInBlock ? e.lastEventId : "(none)"}`).join("; ")
    : r.body
  return `${r.status} ${r.headers["content-type"] ?? ""} ${body.length > maxBody ? `${body.slice(0, maxBody)}…` : body}`
    .trim()
}
