/**
 * What the proxy hands its judge: complete exchanges (their bytes as
 * forwarded) and the chunks of event streams. The sink decodes the bytes
 * (content codings brotli, gzip, deflate, zstd), parses streams incrementally
 * and feeds the {@link TrafficJudge}. It runs in the proxy's worker thread, or
 * in the proxy's own thread where a worker is not wanted.
 *
 * @since 0.1.0
 */
import {
  brotliDecompressSync,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createZstdDecompress,
  gunzipSync,
  inflateSync,
  zstdDecompressSync
} from "node:zlib"
import type { Finding } from "./checks/responses.ts"
import type { Exchange, RecordedRequest } from "./Exchange.ts"
import * as Operations from "./Operations.ts"
import * as Sse from "./Sse.ts"
import { TRAFFIC_CHECKS, type TrafficCheck, TrafficJudge, type Verdicts } from "./Traffic.ts"

/**
 * A message to the sink.
 *
 * @category models
 * @since 0.1.0
 */
export type Message =
  | {
    readonly t: "exchange"
    readonly id: number
    readonly request: RecordedRequest
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly body: Uint8Array
    readonly startedAt: number
    readonly durationMs: number
  }
  | {
    readonly t: "open"
    readonly id: number
    readonly request: RecordedRequest
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly startedAt: number
    readonly durationMs: number
  }
  | { readonly t: "chunk"; readonly id: number; readonly bytes: Uint8Array }
  | { readonly t: "end"; readonly id: number }
  | { readonly t: "finish" }

/**
 * The results of a proxy run, as plain data.
 *
 * @category models
 * @since 0.1.0
 */
export type Results = ReadonlyArray<readonly [TrafficCheck, Verdicts]>

/** Bodies in a finding are cut to this (a report shows 4 KiB). */
const MAX_FINDING_BODY = 16 * 1024

/**
 * A finding fit to cross a thread and to land in a report: its exchange's
 * bodies cut.
 *
 * @category constructors
 * @since 0.1.0
 */
export const portable = (finding: Finding): Finding => {
  const e = finding.failure.exchange
  if (e === undefined) return finding
  const cut = (s: string) => (s.length > MAX_FINDING_BODY ? `${s.slice(0, MAX_FINDING_BODY)}…` : s)
  return {
    ...finding,
    failure: {
      ...finding.failure,
      exchange: {
        ...e,
        request: { ...e.request, ...(e.request.body === undefined ? {} : { body: cut(e.request.body) }) },
        response: { ...e.response, body: cut(e.response.body) },
        ...(e.stream === undefined
          ? {}
          : { stream: { ...e.stream, events: e.stream.events.slice(0, 5).map((x) => ({ ...x, data: cut(x.data) })) } })
      }
    }
  }
}

const decode = (bytes: Uint8Array, coding: string | undefined): string => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  try {
    switch ((coding ?? "").trim().toLowerCase()) {
      case "br":
        return brotliDecompressSync(buffer).toString("utf8")
      case "gzip":
      case "x-gzip":
        return gunzipSync(buffer).toString("utf8")
      case "deflate":
        return inflateSync(buffer).toString("utf8")
      case "zstd":
        return zstdDecompressSync(buffer).toString("utf8")
      default:
        return buffer.toString("utf8")
    }
  } catch {
    return buffer.toString("utf8")
  }
}

const exchangeOf = (
  m: { id: number; request: RecordedRequest; status: number; headers: Readonly<Record<string, string>> } & {
    startedAt: number
    durationMs: number
  },
  body: string
): Exchange => {
  let operation: string | undefined
  try {
    operation = Operations.find(m.request.method, new URL(m.request.url).pathname)?.operationId
  } catch {
    operation = undefined
  }
  return {
    id: m.id,
    operation,
    request: m.request,
    response: { status: m.status, headers: m.headers, body },
    startedAt: m.startedAt,
    durationMs: m.durationMs,
    notes: []
  }
}

/**
 * Makes a sink around a new judge.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: {
  readonly authority?: string | undefined
  readonly onFinding?: ((check: TrafficCheck, finding: Finding) => void) | undefined
}) => {
  const judge = new TrafficJudge({ authority: options.authority, onFinding: options.onFinding })
  const streams = new Map<number, { readonly parser: Sse.SseParser; readonly inflate?: NodeJS.ReadWriteStream }>()
  const handle = (m: Message): void => {
    switch (m.t) {
      case "exchange":
        judge.exchange(exchangeOf(m, decode(m.body, m.headers["content-encoding"])))
        return
      case "open": {
        const head = exchangeOf(m, "")
        const stream = { events: [] as Array<Sse.SseEvent>, comments: 0, retries: [] as ReadonlyArray<number> }
        judge.streamOpen(m.id, { ...head, stream })
        const parser = Sse.makeParser()
        const coding = (m.headers["content-encoding"] ?? "").toLowerCase()
        const inflate = coding === "gzip"
          ? createGunzip()
          : coding === "zstd"
          ? createZstdDecompress()
          : coding === "br"
          ? createBrotliDecompress()
          : coding === "deflate"
          ? createInflate()
          : undefined
        if (inflate !== undefined) {
          inflate.on("data", (chunk: Buffer) => {
            for (const event of parser.push(chunk)) judge.streamEvent(m.id, event)
          })
          inflate.on("error", () => undefined)
        }
        streams.set(m.id, { parser, ...(inflate === undefined ? {} : { inflate }) })
        return
      }
      case "chunk": {
        const s = streams.get(m.id)
        if (s === undefined) return
        if (s.inflate !== undefined) {
          s.inflate.write(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength))
        } else for (const event of s.parser.push(m.bytes)) judge.streamEvent(m.id, event)
        return
      }
      case "end": {
        const s = streams.get(m.id)
        if (s === undefined) return
        streams.delete(m.id)
        const done = () => {
          for (const event of s.parser.end()) judge.streamEvent(m.id, event)
          judge.streamEnd(m.id)
        }
        if (s.inflate !== undefined) {
          s.inflate.on("end", done)
          s.inflate.end()
        } else {
          done()
        }
        return
      }
      case "finish":
        return
    }
  }
  return {
    handle,
    results: (): Results =>
      TRAFFIC_CHECKS.map((name) => {
        const v = judge.results().get(name)!
        return [name, { judged: v.judged, findings: v.findings.map(portable) }] as const
      })
  }
}
