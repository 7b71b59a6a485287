/**
 * Event-stream subscribers (a child process of the server bench): N raw TCP
 * sockets to `GET /api/v6/solver-feed/events` on 127.0.0.1, opened in batches.
 * Each sends `Last-Event-ID: <current dataVersion>` so that the connect does not
 * carry the current feed (svc suppresses an equal id), then counts bytes.
 *
 * After `arm`, a socket has the next feed event once at least `minBytes` arrived
 * and the event terminator (an empty line) follows; it records
 * `process.hrtime.bigint()` then (CLOCK_MONOTONIC: the same clock as the server
 * process on Linux), so the parent computes delays from its own publish mark.
 */
import { connect, type Socket } from "node:net"
import { serveParent } from "./util.ts"

interface Subscriber {
  readonly socket: Socket
  /** Bytes since arm. */
  count: number
  /** Last 3 bytes seen (the terminator may straddle chunks). */
  tail: Buffer
  doneAt: bigint
  headersSeen: boolean
}

const TERMINATOR = Buffer.from("\n\n")
let subscribers: Array<Subscriber> = []
let armed = false
let minBytes = 0
let done = 0
let onAllDone: (() => void) | undefined
let closedUnexpectedly = 0

const onData = (s: Subscriber, chunk: Buffer) => {
  if (!s.headersSeen) {
    s.headersSeen = true
  }
  if (!armed || s.doneAt !== 0n) return
  const before = s.count
  s.count += chunk.length
  if (s.count >= minBytes) {
    // search from where minBytes was crossed (minus the carried tail)
    const from = Math.max(0, minBytes - before)
    const window = from === 0 ? Buffer.concat([s.tail, chunk]) : chunk.subarray(from)
    if (window.indexOf(TERMINATOR) !== -1) {
      s.doneAt = process.hrtime.bigint()
      done++
      if (done === subscribers.length) onAllDone?.()
      return
    }
  }
  s.tail = chunk.length >= 3 ? chunk.subarray(chunk.length - 3) : Buffer.concat([s.tail, chunk]).subarray(-3)
}

const open = (port: number, lastEventId: string) =>
  new Promise<Subscriber>((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, noDelay: true })
    const s: Subscriber = { socket, count: 0, tail: Buffer.alloc(0), doneAt: 0n, headersSeen: false }
    let settled = false
    socket.once("connect", () => {
      socket.write(
        `GET /api/v6/solver-feed/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\nLast-Event-ID: ${lastEventId}\r\n\r\n`
      )
    })
    socket.on("data", (chunk: Buffer) => {
      if (!settled) {
        settled = true
        const head = chunk.toString("latin1", 0, Math.min(chunk.length, 64))
        if (!head.startsWith("HTTP/1.1 200")) {
          socket.destroy()
          reject(new Error(`subscriber refused: ${head.split("\r\n")[0]}`))
          return
        }
        resolve(s)
        return
      }
      onData(s, chunk)
    })
    socket.on("error", (e) => {
      if (!settled) {
        settled = true
        reject(e)
      }
    })
    socket.on("close", () => {
      if (settled && subscribers.includes(s)) closedUnexpectedly++
    })
  })

const connectAll = async (port: number, n: number, lastEventId: string, batch: number) => {
  const t0 = process.hrtime.bigint()
  const failures: Array<string> = []
  for (let i = 0; i < n; i += batch) {
    const size = Math.min(batch, n - i)
    const results = await Promise.allSettled(Array.from({ length: size }, () => open(port, lastEventId)))
    for (const r of results) {
      if (r.status === "fulfilled") subscribers.push(r.value)
      else failures.push(String((r.reason as Error)?.message ?? r.reason))
    }
  }
  return {
    connected: subscribers.length,
    failed: failures.length,
    firstFailure: failures[0] ?? null,
    connectMs: Number(process.hrtime.bigint() - t0) / 1e6
  }
}

serveParent(async (message) => {
  switch (message.type) {
    case "connect":
      return connectAll(
        message.port as number,
        message.n as number,
        message.lastEventId as string,
        (message.batch as number | undefined) ?? 250
      )
    case "arm": {
      armed = true
      minBytes = message.minBytes as number
      done = 0
      for (const s of subscribers) {
        s.count = 0
        s.doneAt = 0n
        s.tail = Buffer.alloc(0)
      }
      return { armed: subscribers.length }
    }
    case "wait": {
      // resolves when every subscriber has the event, or after timeoutMs
      const timeoutMs = message.timeoutMs as number
      await new Promise<void>((resolve) => {
        if (done === subscribers.length) return resolve()
        const timer = setTimeout(resolve, timeoutMs)
        onAllDone = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      onAllDone = undefined
      armed = false
      const times = subscribers.filter((s) => s.doneAt !== 0n).map((s) => s.doneAt).sort((
        a,
        b
      ) => (a < b ? -1 : a > b ? 1 : 0))
      const at = (q: number) =>
        times.length === 0 ? null : times[Math.min(times.length - 1, Math.max(0, Math.ceil(q * times.length) - 1))]!
      return {
        received: times.length,
        missing: subscribers.length - times.length,
        first: at(0),
        p50: at(0.5),
        p99: at(0.99),
        last: at(1),
        closedUnexpectedly
      }
    }
    case "close": {
      const all = subscribers
      subscribers = []
      for (const s of all) s.socket.destroy()
      closedUnexpectedly = 0
      return { closed: all.length }
    }
    default:
      throw new Error(`unknown message ${message.type}`)
  }
})
