/**
 * The baseline server (a child process of the server bench): plain `node:http`
 * answering from memory with the same bytes and the same response headers svc
 * sent (captured by the parent): identity, br or gzip by Accept-Encoding, and 304
 * when If-None-Match carries the ETag. The minimum any Node server must spend on
 * these responses; svc is measured as a ratio to it.
 *
 * Its event stream (`GET /api/v6/solver-feed/events`) keeps every response open
 * and, on `broadcast`, writes one shared Buffer (svc's own frame bytes) to all of
 * them: the fan-out baseline.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { gc, serveParent } from "./util.ts"

const EVENTS_PATH = "/api/v6/solver-feed/events"
const streams = new Set<ServerResponse>()

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
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "access-control-allow-origin": "*",
      "x-accel-buffering": "no"
    })
    res.write("retry: 3000\n\n")
    streams.add(res)
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
    case "broadcast": {
      const frame = message.frame as Uint8Array
      const buffer = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength)
      const t0 = process.hrtime.bigint()
      for (const res of streams) res.write(buffer)
      const loopMs = Number(process.hrtime.bigint() - t0) / 1e6
      return { t0, loopMs, subscribers: streams.size }
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
