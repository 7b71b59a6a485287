/**
 * The live-traffic proxy (`svc conformance proxy --upstream URL --listen
 * HOST:PORT`): a reverse proxy that forwards every request to the upstream
 * deployment and every response back byte for byte (status, headers, body,
 * streams as they come; it never changes a body), while a copy of each
 * exchange goes to the judge ({@link TrafficJudge}) in a worker thread. The
 * forwarding path only copies bytes and posts them: decoding, parsing and
 * verifying (an 11 MB feed costs tens of milliseconds) happen off it.
 *
 * Optionally it adds one forwarding header (`--forward-header`), so that an
 * upstream that trusts the proxy tells its clients apart (svc:
 * `SVC_TRUSTED_PROXIES` and `SVC_CLIENT_ADDRESS_HEADER`).
 *
 * @since 0.1.0
 */
import { Agent as HttpAgent, createServer, type IncomingMessage, request as httpRequest, type Server } from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import type { AddressInfo, Socket } from "node:net"
import { Worker } from "node:worker_threads"
import type { Finding } from "./checks/responses.ts"
import type { RecordedRequest } from "./Exchange.ts"
import type { TrafficCheck } from "./Traffic.ts"
import * as TrafficSink from "./TrafficSink.ts"

/**
 * Options of the proxy.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProxyOptions {
  /** The deployment's base URL (http or https). */
  readonly upstream: string
  readonly host: string
  /** 0: a free port. */
  readonly port: number
  /**
   * A forwarding header to add (off by default): `x-forwarded-for` and
   * `forwarded` are appended to, any other (`x-real-ip`) is set to the client's
   * address.
   */
  readonly forwardHeader?: string | undefined
  /** The authority the feeds and permits must be signed by (default: the upstream manifest's feedSigner). */
  readonly authority?: string | undefined
  /** Judge in this thread instead of a worker (tests). */
  readonly inline?: boolean | undefined
  /** Each finding as the judge makes it. */
  readonly onFinding?: ((check: TrafficCheck, finding: Finding) => void) | undefined
  /** Each exchange forwarded (a stream when it ends). */
  readonly onExchange?: ((count: number) => void) | undefined
}

/**
 * A running proxy.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunningProxy {
  /** Where it listens, as a base URL. */
  readonly url: string
  /** Exchanges forwarded so far (streams counted when they end). */
  readonly exchanges: () => number
  /** The authority the judge uses (undefined: learned from the traffic). */
  readonly authority: string | undefined
  /**
   * Stops accepting, ends open streams, waits for the judge, and returns its
   * results.
   */
  readonly close: () => Promise<TrafficSink.Results>
}

const HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "host"
])

/** Request bodies beyond this are forwarded whole but judged as absent (the interface's are at most 32 KiB). */
const MAX_JUDGED_REQUEST = 64 * 1024
/** Response bodies beyond this are forwarded whole but not judged. */
const MAX_JUDGED_RESPONSE = 64 * 1024 * 1024

const flat = (headers: IncomingMessage["headers"]): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v
  }
  return out
}

const own = (chunks: ReadonlyArray<Buffer>, total: number): Uint8Array => {
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.length
  }
  return out
}

const forwarded = (name: string, existing: string | undefined, client: string): string => {
  const lower = name.toLowerCase()
  if (lower === "x-forwarded-for") return existing === undefined ? client : `${existing}, ${client}`
  if (lower === "forwarded") {
    const value = `for=${client.includes(":") ? `"[${client}]"` : client}`
    return existing === undefined ? value : `${existing}, ${value}`
  }
  return client
}

/** The upstream manifest's feedSigner, or undefined (the judge then learns it from the traffic). */
const authorityOf = async (upstream: string): Promise<string | undefined> => {
  try {
    const response = await fetch(`${upstream.replace(/\/+$/, "")}/.well-known/svc-solver.json`, {
      signal: AbortSignal.timeout(10_000),
      headers: { accept: "application/json" }
    })
    const body = (await response.json()) as { feedSigner?: unknown }
    return typeof body.feedSigner === "string" ? body.feedSigner : undefined
  } catch {
    return undefined
  }
}

/**
 * Starts the proxy.
 *
 * @category constructors
 * @since 0.1.0
 */
export const start = async (options: ProxyOptions): Promise<RunningProxy> => {
  const upstream = new URL(options.upstream)
  const secure = upstream.protocol === "https:"
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true })
  const send = secure ? httpsRequest : httpRequest
  const authority = options.authority ?? (await authorityOf(options.upstream))

  // the judge: a worker thread, or this thread
  let post: (message: TrafficSink.Message, transfer?: ReadonlyArray<ArrayBuffer>) => void
  let finish: () => Promise<TrafficSink.Results>
  if (options.inline === true) {
    const sink = TrafficSink.make({ authority, onFinding: options.onFinding })
    post = (m) => sink.handle(m)
    finish = async () => sink.results()
  } else {
    const here = import.meta.url
    const worker = new Worker(new URL(here.endsWith(".ts") ? "./TrafficWorker.ts" : "./TrafficWorker.js", here), {
      workerData: { authority }
    })
    let resolveResults: ((r: TrafficSink.Results) => void) | undefined
    worker.on("message", (m: { t: string; check?: TrafficCheck; finding?: Finding; results?: TrafficSink.Results }) => {
      if (m.t === "finding") options.onFinding?.(m.check!, m.finding!)
      if (m.t === "results") resolveResults?.(m.results!)
    })
    worker.on("error", (e) => process.stderr.write(`svc conformance proxy: the judge failed: ${String(e)}\n`))
    post = (m, transfer) => worker.postMessage(m, transfer as Array<ArrayBuffer> | undefined)
    finish = () =>
      new Promise<TrafficSink.Results>((resolve) => {
        resolveResults = (r) => {
          void worker.terminate()
          resolve(r)
        }
        // oxlint-disable-next-line unicorn/require-post-message-target-origin -- a worker thread, not a window
        worker.postMessage({ t: "finish" })
      })
  }

  let counter = 0
  let forwardedCount = 0
  const sockets = new Set<Socket>()
  const openStreams = new Set<() => void>()

  const server: Server = createServer((req, res) => {
    const id = ++counter
    const startedAt = Date.now()
    const headers: Record<string, string | Array<string>> = {}
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = v
    if (options.forwardHeader !== undefined) {
      const name = options.forwardHeader.toLowerCase()
      const existing = req.headers[name]
      headers[name] = forwarded(
        name,
        Array.isArray(existing) ? existing.join(", ") : existing,
        req.socket.remoteAddress ?? ""
      )
    }
    const requestChunks: Array<Buffer> = []
    let requestBytes = 0
    const up = send({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers,
      agent
    })
    req.on("data", (chunk: Buffer) => {
      requestBytes += chunk.length
      if (requestBytes <= MAX_JUDGED_REQUEST) requestChunks.push(chunk)
    })
    req.pipe(up)
    const recorded = (): RecordedRequest => {
      const url = new URL(req.url ?? "/", options.upstream).toString()
      return {
        method: (req.method ?? "GET").toUpperCase(),
        url,
        headers: flat(req.headers),
        ...(requestBytes === 0 || requestBytes > MAX_JUDGED_REQUEST
          ? {}
          : { body: Buffer.concat(requestChunks).toString("utf8") })
      }
    }
    res.on("close", () => up.destroy())
    up.on("error", (e) => {
      if (!res.headersSent) {
        res.writeHead(502, { "content-type": "text/plain; charset=utf-8" })
        res.end(`svc conformance proxy: the upstream did not answer (${e.message})\n`)
      } else {
        res.destroy()
      }
    })
    up.on("response", (upRes) => {
      const status = upRes.statusCode ?? 502
      const out: Record<string, string | Array<string>> = {}
      for (const [k, v] of Object.entries(upRes.headers)) {
        if (v !== undefined && k !== "connection" && k !== "keep-alive" && k !== "transfer-encoding") out[k] = v
      }
      const responseHeaders = flat(upRes.headers)
      res.writeHead(status, upRes.statusMessage, out)
      const stream = status === 200 && /^text\/event-stream/i.test(responseHeaders["content-type"] ?? "")
      if (stream) {
        res.flushHeaders()
        post({
          t: "open",
          id,
          request: recorded(),
          status,
          headers: responseHeaders,
          startedAt,
          durationMs: Date.now() - startedAt
        })
        let ended = false
        const end = () => {
          if (ended) return
          ended = true
          openStreams.delete(stop)
          post({ t: "end", id })
          options.onExchange?.(++forwardedCount)
        }
        const stop = () => {
          upRes.destroy()
          res.end()
          end()
        }
        openStreams.add(stop)
        upRes.on("data", (chunk: Buffer) => {
          res.write(chunk)
          const copy = own([chunk], chunk.length)
          post({ t: "chunk", id, bytes: copy }, [copy.buffer as ArrayBuffer])
        })
        upRes.on("end", () => {
          res.end()
          end()
        })
        upRes.on("error", () => {
          res.destroy()
          end()
        })
        res.on("close", end)
        return
      }
      const chunks: Array<Buffer> = []
      let total = 0
      upRes.on("data", (chunk: Buffer) => {
        res.write(chunk)
        total += chunk.length
        if (total <= MAX_JUDGED_RESPONSE) chunks.push(chunk)
      })
      upRes.on("end", () => {
        res.end()
        if (total <= MAX_JUDGED_RESPONSE) {
          const body = own(chunks, total)
          post({
            t: "exchange",
            id,
            request: recorded(),
            status,
            headers: responseHeaders,
            body,
            startedAt,
            durationMs: Date.now() - startedAt
          }, [body.buffer as ArrayBuffer])
        }
        options.onExchange?.(++forwardedCount)
      })
      upRes.on("error", () => res.destroy())
    })
  })
  server.keepAliveTimeout = 65_000
  server.on("connection", (socket: Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, options.host, () => resolve())
  })
  const address = server.address() as AddressInfo
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address
  return {
    url: `http://${host}:${address.port}`,
    exchanges: () => forwardedCount,
    authority,
    close: async () => {
      // deleting the element being visited is safe while iterating a Set
      for (const stop of openStreams) stop()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
        setTimeout(() => {
          for (const socket of sockets) socket.destroy()
        }, 2000).unref()
      })
      agent.destroy()
      return finish()
    }
  }
}
