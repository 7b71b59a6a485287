/**
 * The baseline server (a child process of the server bench): plain `node:http`
 * answering from memory with the same bytes and the same response headers svc
 * sent (captured by the parent): identity, br or gzip by Accept-Encoding, and 304
 * when If-None-Match carries the ETag. The minimum any Node server must spend on
 * these responses; svc is measured as a ratio to it.
 *
 * Its event stream (`GET /api/v6/solver-feed/events`) keeps every response open
 * and, on `broadcast`, writes one shared Buffer (svc's own frame bytes) to all of
 * them: the fan-out baseline. With `streamEncoding` gzip or zstd (set by the
 * parent to the coding svc chose for its stream) and a request that accepts it,
 * the stream is compressed the way a server compresses a frame once for all
 * subscribers: zstd, one Zstandard frame per write (level 3, 8 MiB window);
 * gzip, the 10-byte gzip header at connect then each write as raw deflate from a
 * fresh compressor ended by a sync flush (level 6). A broadcast compresses the
 * frame once (off the event loop, zlib's thread pool), inside its timing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import * as zlib from "node:zlib"
import { gc, serveParent } from "./util.ts"

type StreamEncoding = "identity" | "gzip" | "zstd"

const ZSTD_PARAMS = {
  [zlib.constants.ZSTD_c_compressionLevel]: 3,
  [zlib.constants.ZSTD_c_windowLog]: 23,
  [zlib.constants.ZSTD_c_checksumFlag]: 1
}
const DEFLATE_OPTIONS: zlib.ZlibOptions = { level: 6, finishFlush: zlib.constants.Z_SYNC_FLUSH }
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])
const RETRY = Buffer.from("retry: 3000\n\n")

const encodeSync = (bytes: Uint8Array, coding: StreamEncoding): Buffer =>
  coding === "zstd"
    ? zlib.zstdCompressSync(bytes, { params: ZSTD_PARAMS })
    : coding === "gzip"
    ? zlib.deflateRawSync(bytes, DEFLATE_OPTIONS)
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

const encodeAsync = (bytes: Uint8Array, coding: StreamEncoding): Promise<Buffer> =>
  coding === "identity" ? Promise.resolve(encodeSync(bytes, coding)) : new Promise((resolve, reject) => {
    const done = (error: Error | null, out: Buffer) => (error === null ? resolve(out) : reject(error))
    if (coding === "zstd") zlib.zstdCompress(bytes, { params: ZSTD_PARAMS }, done)
    else zlib.deflateRaw(bytes, DEFLATE_OPTIONS, done)
  })

let streamEncoding: StreamEncoding = "identity"
/** Every open stream and its coding. */

const EVENTS_PATH = "/api/v6/solver-feed/events"
const streams = new Map<ServerResponse, StreamEncoding>()

interface Variant {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: Uint8Array
}

interface Resource {
  readonly path: string
  readonly etag: string
  readonly identity: Variant
  readonly br?: Variant | undefined
  readonly gzip?: Variant | undefined
  readonly notModified: Variant
}

let resources = new Map<string, Resource>()
let counter = 0
const tag = Math.random().toString(16).slice(2, 10)

const handle = (req: IncomingMessage, res: ServerResponse) => {
  const q = req.url!.indexOf("?")
  const path = q === -1 ? req.url! : req.url!.slice(0, q)
  if (path === EVENTS_PATH) {
    const coding = streamEncoding !== "identity" && (req.headers["accept-encoding"] ?? "").includes(streamEncoding)
      ? streamEncoding
      : "identity"
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "access-control-allow-origin": "*",
      "x-accel-buffering": "no",
      ...(coding === "identity" ? {} : { "content-encoding": coding, vary: "Accept-Encoding" })
    })
    if (coding === "gzip") res.write(GZIP_HEADER)
    res.write(encodeSync(RETRY, coding))
    streams.set(res, coding)
    res.on("close", () => streams.delete(res))
    return
  }
  const resource = resources.get(path)
  if (resource === undefined) {
    res.writeHead(404, { "content-type": "application/json; charset=utf-8" })
    res.end("{\"ok\":false,\"error\":\"NOT_FOUND\"}")
    return
  }
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER
  const requestId = `${tag}-${counter.toString(36)}`
  const inm = req.headers["if-none-match"]
  let variant: Variant
  if (inm !== undefined && inm.replace(/^W\//, "") === resource.etag.replace(/^W\//, "")) variant = resource.notModified
  else {
    const ae = req.headers["accept-encoding"] ?? ""
    variant = ae.includes("br") && resource.br !== undefined
      ? resource.br
      : ae.includes("gzip") && resource.gzip !== undefined
      ? resource.gzip
      : resource.identity
  }
  res.writeHead(variant.status, { ...variant.headers, "x-request-id": requestId })
  if (variant.body.length > 0) res.end(variant.body)
  else res.end()
}

const server = createServer(handle)

serveParent(async (message) => {
  switch (message.type) {
    case "listen":
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return { port: (server.address() as { port: number }).port }
    case "resources":
      resources = new Map((message.resources as ReadonlyArray<Resource>).map((r) => [r.path, r]))
      return { count: resources.size }
    case "streamEncoding":
      streamEncoding = message.encoding as StreamEncoding
      return { encoding: streamEncoding }
    case "broadcast": {
      const frame = message.frame as Uint8Array
      const t0 = process.hrtime.bigint()
      const codings = new Set(streams.values())
      const encoded = new Map<StreamEncoding, Buffer>()
      for (const coding of codings) encoded.set(coding, await encodeAsync(frame, coding))
      const t1 = process.hrtime.bigint()
      for (const [res, coding] of streams) res.write(encoded.get(coding)!)
      const loopMs = Number(process.hrtime.bigint() - t1) / 1e6
      return {
        t0,
        loopMs,
        encodeMs: Number(t1 - t0) / 1e6,
        subscribers: streams.size,
        wireBytes: Object.fromEntries([...encoded].map(([k, v]) => [k, v.length]))
      }
    }
    case "streams":
      return { open: streams.size }
    case "memory": {
      gc()
      const m = process.memoryUsage()
      return { rss: m.rss, heapUsed: m.heapUsed }
    }
    case "cpu": {
      const u = process.cpuUsage()
      return { micros: u.user + u.system }
    }
    default:
      throw new Error(`unknown message ${message.type}`)
  }
})
