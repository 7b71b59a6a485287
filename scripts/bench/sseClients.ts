/**
 * Event-stream subscribers (a child process of the server bench): N raw TCP
 * sockets to `GET /api/v6/solver-feed/events`, opened in batches from one
 * loopback source address (the parent gives each child its own, 127.0.0.x, so
 * that the server's per-client caps see one client per child). Each sends
 * `Last-Event-ID: <current dataVersion>` so that the connect does not carry the
 * current feed (svc suppresses an equal id), and `Accept-Encoding` as a browser
 * does (`gzip, deflate, br, zstd` unless the parent says otherwise). The response head
 * is parsed (status, Content-Encoding, Transfer-Encoding); the body is de-chunked
 * as it arrives, without copying (one shared read buffer per process).
 *
 * When is a subscriber's event complete? After `arm`, by encoding:
 *
 * - identity: once at least `minBytes` body bytes arrived and the event
 *   terminator (an empty line) follows;
 * - compressed (gzip, deflate, br, zstd), `decodeAll`: every subscriber decodes
 *   its stream incrementally (zlib) and the same rule applies to the decoded
 *   bytes;
 * - compressed, not `decodeAll` (large events × many subscribers: decoding all of
 *   them would be more inflate work than the delivery itself, e.g. 10,000 × 11 MiB
 *   ≈ 110 GiB): one reference subscriber per process decodes its stream; the
 *   compressed body bytes it had received since `arm` when its decoded bytes held
 *   the complete event are K; every other subscriber's event is complete when it
 *   has received K compressed body bytes since `arm` (its time is looked up in a
 *   short log of its last reads, so it does not matter whether it got there before
 *   or after the reference). This is exact when the server sends each event's
 *   compressed bytes identically to every subscriber (svc compresses each frame
 *   once for all); the answer reports how many subscribers ended with another
 *   compressed byte count than the reference (`countMismatch`): not 0 means the
 *   assumption did not hold.
 *
 * In every mode the reference subscriber (the first of the process) keeps its
 * decoded bytes since `arm`; `wait` returns the SHA-256 and length of the event
 * found there (leading comment blocks such as heartbeats skipped), which the
 * parent checks against the frame the server wrote.
 *
 * Times are `process.hrtime.bigint()` (CLOCK_MONOTONIC: the same clock as the
 * server process on Linux), so the parent computes delays from its own publish
 * mark.
 */
import { createHash } from "node:crypto"
import { connect, type Socket } from "node:net"
import type { Transform } from "node:stream"
import * as zlib from "node:zlib"
import { serveParent } from "./util.ts"

type Coding = "identity" | "gzip" | "deflate" | "br" | "zstd"

const TERMINATOR = Buffer.from("\n\n")
const CRLFCRLF = Buffer.from("\r\n\r\n")
/** Reads of all sockets land here (callbacks are synchronous; whatever is kept is copied). */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024)
/** Entries of a subscriber's read log (compressed, not decodeAll). */
const LOG = 8

/** Where a response's body framing is. */
const Body = { ChunkSize: 0, ChunkData: 1, ChunkDataEnd: 2, Raw: 3, Ended: 4 } as const
type Body = (typeof Body)[keyof typeof Body]

interface Subscriber {
  readonly index: number
  readonly socket: Socket
  readonly reference: boolean
  // --- response head and body framing
  head: Buffer | undefined
  coding: Coding
  state: Body
  size: number
  sizeDone: boolean
  chunkLeft: number
  // --- completion by plain (identity or decoded) bytes
  /** Plain bytes since arm. */
  count: number
  /** Last bytes seen (the terminator may straddle chunks). */
  tail: Buffer
  doneAt: bigint
  // --- compressed streams
  decoder: Transform | undefined
  /** Compressed body bytes since connect, and at arm. */
  wire: number
  wireAtArm: number
  /** Totals (`wire`) after each write to the decoder whose output is not all out yet. */
  pendingWrites: Array<number>
  /** The last reads: compressed count since arm and time. */
  logCount: Array<number>
  logTime: Array<bigint>
  logNext: number
  /** Compressed bytes since arm at the end of the read that completed the event (reference mode). */
  doneWire: number
  // --- the reference's decoded bytes since arm
  kept: Array<Buffer>
  closed: boolean
}

let subscribers: Array<Subscriber> = []
let armed = false
let minBytes = 0
let decodeAll = true
/** Compressed bytes of the event (reference mode), known once the reference has it. */
let eventWireBytes: number | null = null
let done = 0
let closedBeforeDone = 0
let fromLog = 0
let onAllDone: (() => void) | undefined
let closedUnexpectedly = 0

const finished = () => done + closedBeforeDone === subscribers.length

const markDone = (s: Subscriber, at: bigint) => {
  if (s.doneAt !== 0n) return
  s.doneAt = at
  done++
  if (finished()) onAllDone?.()
}

/** Plain bytes (identity body or decoded): the complete-event rule. */
const onPlain = (s: Subscriber, chunk: Buffer) => {
  if (!armed || s.doneAt !== 0n) return
  if (s.reference) s.kept.push(Buffer.from(chunk))
  const before = s.count
  s.count += chunk.length
  if (s.count >= minBytes) {
    // search from where minBytes was crossed (minus the carried tail)
    const from = Math.max(0, minBytes - before)
    const window = from === 0 ? Buffer.concat([s.tail, chunk]) : chunk.subarray(from)
    if (window.indexOf(TERMINATOR) !== -1) {
      if (s.reference && s.coding !== "identity") {
        // the compressed bytes of the event: those written to the decoder up to the write being decoded
        eventWireBytes = (s.pendingWrites[0] ?? s.wire) - s.wireAtArm
      }
      if (s.coding === "identity" || decodeAll) markDone(s, process.hrtime.bigint())
      else if (s.reference) referenceComplete()
      return
    }
  }
  s.tail = chunk.length >= 3
    ? Buffer.from(chunk.subarray(chunk.length - 3))
    : Buffer.concat([s.tail, chunk]).subarray(-3)
}

/** The event in a reference's decoded bytes: leading comment blocks skipped, up to its empty line. */
const extractEvent = (kept: ReadonlyArray<Buffer>): Buffer | undefined => {
  let all = Buffer.concat(kept)
  while (all.length > 0 && all[0] === 0x3a /* ":" */) {
    const end = all.indexOf(TERMINATOR)
    if (end === -1) return undefined
    all = all.subarray(end + 2)
  }
  const end = all.indexOf(TERMINATOR)
  return end === -1 ? undefined : all.subarray(0, end + 2)
}

/** Reference mode: the reference decoded the complete event; K is known, every subscriber's time follows. */
const referenceComplete = () => {
  const k = eventWireBytes!
  for (const s of subscribers) {
    if (s.doneAt !== 0n || s.closed) continue
    const since = s.wire - s.wireAtArm
    if (since < k) continue
    // the earliest logged read at or past K; older than the log: its oldest entry (an upper bound)
    let at: bigint | undefined
    let atCount = -1
    let oldest: bigint | undefined
    let oldestCount = Number.POSITIVE_INFINITY
    let entries = 0
    for (let i = 0; i < LOG; i++) {
      const c = s.logCount[i]!
      if (c < 0) continue
      entries++
      if (c < oldestCount) {
        oldestCount = c
        oldest = s.logTime[i]
      }
      if (c >= k && (at === undefined || s.logTime[i]! < at)) {
        at = s.logTime[i]!
        atCount = c
      }
    }
    // a full log whose oldest read is already past K: the crossing read was overwritten
    if (entries === LOG && oldestCount >= k) fromLog++
    s.doneWire = atCount
    markDone(s, at ?? oldest ?? process.hrtime.bigint())
  }
}

/** Compressed body bytes (in the shared read buffer: copied before any asynchronous use). */
const onCompressed = (s: Subscriber, buffer: Buffer, start: number, end: number) => {
  s.wire += end - start
  if (armed && !decodeAll && s.doneAt === 0n) {
    const since = s.wire - s.wireAtArm
    const now = process.hrtime.bigint()
    s.logCount[s.logNext] = since
    s.logTime[s.logNext] = now
    s.logNext = (s.logNext + 1) % LOG
    if (eventWireBytes !== null && since >= eventWireBytes) {
      s.doneWire = since
      markDone(s, now)
    }
  }
  if (s.decoder !== undefined) {
    const total = s.wire
    s.pendingWrites.push(total)
    s.decoder.write(Buffer.from(buffer.subarray(start, end)), () => {
      s.pendingWrites.shift()
    })
  }
}

const decoderFor = (coding: Coding, first: number): Subscriber["decoder"] => {
  switch (coding) {
    case "gzip":
      return zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH })
    case "deflate":
      // HTTP's deflate is zlib-wrapped; some servers send raw deflate
      return (first & 0x0f) === 8
        ? zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH })
        : zlib.createInflateRaw({ flush: zlib.constants.Z_SYNC_FLUSH })
    case "br":
      return zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH })
    case "zstd":
      return zlib.createZstdDecompress()
    default:
      return undefined
  }
}

/** Body bytes, after de-chunking. */
const onBody = (s: Subscriber, buffer: Buffer, start: number, end: number) => {
  if (end <= start) return
  if (s.coding === "identity") return onPlain(s, buffer.subarray(start, end))
  if (s.decoder === undefined && (decodeAll || s.reference) && s.wire === 0) {
    s.decoder = decoderFor(s.coding, buffer[start]!)
    s.decoder!.on("data", (out: Buffer) => onPlain(s, out))
    s.decoder!.on("error", () => {
      // a corrupt stream: this subscriber never completes (reported as missing)
      s.decoder = undefined
    })
  }
  onCompressed(s, buffer, start, end)
}

/** Response bytes after the head: chunked framing removed. */
const onResponseBytes = (s: Subscriber, buffer: Buffer, start: number, end: number) => {
  let i = start
  while (i < end) {
    switch (s.state) {
      case Body.Raw:
        onBody(s, buffer, i, end)
        return
      case Body.ChunkData: {
        const take = Math.min(s.chunkLeft, end - i)
        onBody(s, buffer, i, i + take)
        i += take
        s.chunkLeft -= take
        if (s.chunkLeft === 0) s.state = Body.ChunkDataEnd
        break
      }
      case Body.ChunkDataEnd:
        if (buffer[i++] === 0x0a) s.state = Body.ChunkSize
        break
      case Body.ChunkSize: {
        const b = buffer[i++]!
        if (b === 0x0a) {
          s.chunkLeft = s.size
          s.size = 0
          s.sizeDone = false
          s.state = s.chunkLeft === 0 ? Body.Ended : Body.ChunkData
        } else if (!s.sizeDone) {
          const digit = b >= 0x30 && b <= 0x39
            ? b - 0x30
            : b >= 0x61 && b <= 0x66
            ? b - 87
            : b >= 0x41 && b <= 0x46
            ? b - 55
            : -1
          if (digit === -1) s.sizeDone = true
          else s.size = s.size * 16 + digit
        }
        break
      }
      case Body.Ended:
        return
    }
  }
}

const open = (port: number, lastEventId: string, localAddress: string, acceptEncoding: string, index: number) =>
  new Promise<Subscriber>((resolve, reject) => {
    let settled = false
    const s: Subscriber = {
      index,
      reference: index === 0,
      socket: undefined as unknown as Socket,
      head: Buffer.alloc(0),
      coding: "identity",
      state: Body.Raw,
      size: 0,
      sizeDone: false,
      chunkLeft: 0,
      count: 0,
      tail: Buffer.alloc(0),
      doneAt: 0n,
      decoder: undefined,
      wire: 0,
      wireAtArm: 0,
      pendingWrites: [],
      logCount: Array.from({ length: LOG }, () => -1),
      logTime: Array.from({ length: LOG }, () => 0n),
      logNext: 0,
      doneWire: -1,
      kept: [],
      closed: false
    }
    const onHead = (buffer: Buffer, start: number, end: number) => {
      const head = Buffer.concat([s.head!, buffer.subarray(start, end)])
      const at = head.indexOf(CRLFCRLF)
      if (at === -1) {
        if (head.length > 16_384) {
          socket.destroy()
          if (!settled) {
            settled = true
            reject(new Error("response head over 16 KiB"))
          }
        }
        s.head = head
        return
      }
      s.head = undefined
      const text = head.toString("latin1", 0, at)
      const [statusLine, ...lines] = text.split("\r\n")
      if (!/^HTTP\/1\.[01] 200/.test(statusLine!)) {
        socket.destroy()
        settled = true
        reject(new Error(`subscriber refused: ${statusLine}`))
        return
      }
      const header = (name: string) =>
        lines.find((l) => l.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim().toLowerCase()
      const coding = header("content-encoding") ?? "identity"
      if (!["identity", "gzip", "deflate", "br", "zstd"].includes(coding)) {
        socket.destroy()
        settled = true
        reject(new Error(`unsupported Content-Encoding: ${coding}`))
        return
      }
      s.coding = coding as Coding
      s.state = header("transfer-encoding")?.includes("chunked") === true ? Body.ChunkSize : Body.Raw
      settled = true
      resolve(s)
      // the rest of this read is body (retry:, or the first event)
      const rest = head.subarray(at + 4)
      if (rest.length > 0) onResponseBytes(s, rest, 0, rest.length)
    }
    const socket = connect({
      host: "127.0.0.1",
      port,
      localAddress,
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (n: number, buffer: Uint8Array) => {
          const b = buffer as Buffer
          if (s.head !== undefined) onHead(b, 0, n)
          else onResponseBytes(s, b, 0, n)
          return true
        }
      }
    })
    ;(s as { socket: Socket }).socket = socket
    socket.once("connect", () => {
      socket.write(
        `GET /api/v6/solver-feed/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\nAccept-Encoding: ${acceptEncoding}\r\nLast-Event-ID: ${lastEventId}\r\n\r\n`
      )
    })
    socket.on("error", (e) => {
      if (!settled) {
        settled = true
        reject(e)
      }
    })
    socket.on("close", () => {
      s.closed = true
      if (settled && subscribers.includes(s)) {
        closedUnexpectedly++
        if (armed && s.doneAt === 0n) {
          closedBeforeDone++
          if (finished()) onAllDone?.()
        }
      }
    })
  })

const connectAll = async (
  port: number,
  n: number,
  lastEventId: string,
  batch: number,
  localAddress: string,
  acceptEncoding: string
) => {
  const t0 = process.hrtime.bigint()
  const failures: Array<string> = []
  for (let i = 0; i < n; i += batch) {
    const size = Math.min(batch, n - i)
    const results = await Promise.allSettled(
      Array.from({ length: size }, (_, j) => open(port, lastEventId, localAddress, acceptEncoding, i + j))
    )
    for (const r of results) {
      if (r.status === "fulfilled") subscribers.push(r.value)
      else failures.push(String((r.reason as Error)?.message ?? r.reason))
    }
  }
  const encodings: Record<string, number> = {}
  for (const s of subscribers) encodings[s.coding] = (encodings[s.coding] ?? 0) + 1
  return {
    connected: subscribers.length,
    failed: failures.length,
    firstFailure: failures[0] ?? null,
    connectMs: Number(process.hrtime.bigint() - t0) / 1e6,
    encodings
  }
}

serveParent(async (message) => {
  switch (message.type) {
    case "connect":
      decodeAll = (message.decodeAll as boolean | undefined) ?? true
      return connectAll(
        message.port as number,
        message.n as number,
        message.lastEventId as string,
        (message.batch as number | undefined) ?? 250,
        (message.localAddress as string | undefined) ?? "127.0.0.1",
        (message.acceptEncoding as string | undefined) ?? "gzip, deflate, br, zstd"
      )
    case "arm": {
      armed = true
      minBytes = message.minBytes as number
      done = 0
      closedBeforeDone = 0
      fromLog = 0
      eventWireBytes = null
      for (const s of subscribers) {
        s.count = 0
        s.doneAt = 0n
        s.tail = Buffer.alloc(0)
        s.wireAtArm = s.wire
        s.logCount.fill(-1)
        s.doneWire = -1
        s.kept = []
        if (s.closed) closedBeforeDone++
      }
      return { armed: subscribers.length }
    }
    case "wait": {
      // resolves when every subscriber has the event (or was closed), or after timeoutMs
      const timeoutMs = message.timeoutMs as number
      await new Promise<void>((resolve) => {
        if (finished()) return resolve()
        const timer = setTimeout(resolve, timeoutMs)
        onAllDone = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      onAllDone = undefined
      // let the reference's decoder finish what it has (its kept bytes are checked below)
      await new Promise((resolve) => setTimeout(resolve, 20))
      armed = false
      const times = subscribers.filter((s) => s.doneAt !== 0n).map((s) => s.doneAt)
      const reference = subscribers[0]
      const event = reference === undefined ? undefined : extractEvent(reference.kept)
      const countMismatch = eventWireBytes === null || decodeAll
        ? 0
        : subscribers.filter((s) => s.doneAt !== 0n && s.doneWire !== eventWireBytes).length
      for (const s of subscribers) s.kept = []
      return {
        times,
        received: times.length,
        missing: subscribers.length - times.length,
        closedUnexpectedly,
        coding: reference?.coding ?? null,
        mode: reference === undefined || reference.coding === "identity"
          ? "identity"
          : decodeAll
          ? "decode-all"
          : "reference",
        /** The reference's event: SHA-256 (hex) and length, or null when it has no complete event. */
        eventSha256: event === undefined ? null : createHash("sha256").update(event).digest("hex"),
        eventLength: event?.length ?? null,
        /** Body bytes of the event on the wire (compressed for a compressed stream; de-chunked). */
        eventWireBytes: reference?.coding === "identity" ? event?.length ?? null : eventWireBytes,
        /** Subscribers whose time is the oldest entry of a full read log (an upper bound, not exact). */
        fromLog,
        countMismatch
      }
    }
    case "status":
      return { done, closedBeforeDone, total: subscribers.length }
    case "close": {
      const all = subscribers
      subscribers = []
      armed = false
      for (const s of all) {
        s.socket.destroy()
        s.decoder?.destroy()
      }
      closedUnexpectedly = 0
      return { closed: all.length }
    }
    default:
      throw new Error(`unknown message ${message.type}`)
  }
})
