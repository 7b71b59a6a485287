/**
 * Test support: a real svc server in-process (the same App as `npm start`, SQLite
 * in memory, a fixed authority key, the demo catalog, unlimited aggregator
 * rates), and a small node:http proxy in front of it that can tamper with bytes,
 * cut connections mid-event, or answer by itself.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Signer } from "@svc/core"
import { Signature } from "@svc/protocol"
import { App } from "@svc/server"
import { SqliteStore } from "@svc/store"
import { Context, Effect, Layer, Redacted, References } from "effect"
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from "node:http"
import type { Socket } from "node:net"

export const AUTHORITY_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const
export const AUTHORITY = Signature.addressOf(AUTHORITY_KEY)
/** A public test key (never fund it). */
export const PAYER_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" as const
export const OTHER_KEY = "0x05d0cdd68a21b27beded4a2fee8774bde6ea2db9608be6945cac231199dd2384" as const

export const demoCatalog = JSON.parse(
  readFileSync(new URL("../../../server/catalog/demo.json", import.meta.url), "utf8")
) as unknown

const UNLIMITED = { windowSeconds: 60, requestsPerWindow: 1_000_000, quoteAndBuildPerWindow: 1_000_000 }

/**
 * The application on an ephemeral port, exposing AppControl, the engine services
 * (Publisher, SettlementObserver, ...) and the Store.
 */
export const serverLayer = (options?: { readonly heartbeatMillis?: number }) =>
  App.layer({
    catalog: demoCatalog,
    engine: { publisher: { tickMillis: 60_000 }, rateLimit: { limit: 100_000, windowSeconds: 60 } },
    events: { heartbeatMillis: options?.heartbeatMillis ?? 15_000 },
    aggregator: { rateLimits: UNLIMITED }
  }).pipe(
    Layer.provideMerge(Layer.mergeAll(
      SqliteStore.layer({ filename: ":memory:" }),
      Layer.succeed(Signer.Signer, Signer.fromPrivateKey(Redacted.make(AUTHORITY_KEY))),
      NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })
    )),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "None"))
  )

/** The server's base URL. */
export const baseUrl = Effect.map(Effect.service(App.AppControl), (c) => c.publicUrl)

export const build = (layer: Layer.Layer<any, any, never>) =>
  Effect.map(Layer.build(layer), (ctx) => Context.get(ctx, App.AppControl).publicUrl)

// ---------------------------------------------------------------------------
// Proxy
// ---------------------------------------------------------------------------

/** What the proxy does with one request. */
export type ProxyPlan =
  | { readonly kind: "pass" }
  /** Buffers the upstream body and sends `transform(body)` instead. */
  | { readonly kind: "transform"; readonly transform: (body: string) => string }
  /** Streams the body; changes each feed event's data with `transform` (one event at a time). */
  | { readonly kind: "transformEvents"; readonly transform: (data: string, index: number) => string }
  /** Streams the body until `events` feed events went through completely and `bytes` of the next one, then destroys the socket. */
  | { readonly kind: "cut"; readonly events: number; readonly bytes: number }
  /** Sends `before` (raw SSE text) ahead of the upstream stream. */
  | { readonly kind: "prepend"; readonly before: string }
  /** Answers 200 text/event-stream with a `retry:` line, then stays silent. */
  | { readonly kind: "stall" }
  /** Answers by itself. */
  | {
    readonly kind: "answer"
    readonly status: number
    readonly body: string
    readonly headers?: Record<string, string>
  }

export interface ProxyRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  /** 1-based count of requests so far to this path (without the query). */
  readonly n: number
}

export interface Proxy {
  readonly url: string
  readonly requests: Array<ProxyRequest>
  close(): Promise<void>
}

/**
 * A proxy in front of `target` (rewrites the target's absolute URLs in bodies to
 * the proxy's own, so that discovery documents point at the proxy).
 */
export const startProxy = async (target: string, plan: (request: ProxyRequest) => ProxyPlan): Promise<Proxy> => {
  const upstream = new URL(target)
  const sockets = new Set<Socket>()
  const counts = new Map<string, number>()
  const requests: Array<ProxyRequest> = []
  let self = ""
  const rewrite = (text: string) => text.split(target).join(self)

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!
    const n = (counts.get(path) ?? 0) + 1
    counts.set(path, n)
    const info: ProxyRequest = { method: req.method ?? "GET", path, headers: req.headers, n }
    requests.push(info)
    const p = plan(info)
    if (p.kind === "answer") {
      res.writeHead(p.status, { "content-type": "application/json", ...p.headers })
      res.end(p.body)
      req.resume()
      return
    }
    if (p.kind === "stall") {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" })
      res.write("retry: 10\n\n")
      req.resume()
      return
    }
    const headers = { ...req.headers, host: upstream.host }
    delete headers["accept-encoding"]
    const out = httpRequest({
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers
    }, (up) => {
      const responseHeaders = { ...up.headers }
      delete responseHeaders["content-length"]
      delete responseHeaders["transfer-encoding"]
      const streaming = /text\/event-stream/.test(String(up.headers["content-type"] ?? ""))
      if (!streaming || p.kind === "transform") {
        const chunks: Array<Buffer> = []
        up.on("data", (c: Buffer) => chunks.push(c))
        up.on("end", () => {
          let body = rewrite(Buffer.concat(chunks).toString("utf8"))
          if (p.kind === "transform") body = p.transform(body)
          const bytes = Buffer.from(body, "utf8")
          res.writeHead(up.statusCode ?? 502, { ...responseHeaders, "content-length": String(bytes.length) })
          res.end(bytes)
        })
        return
      }
      res.writeHead(up.statusCode ?? 502, responseHeaders)
      res.flushHeaders()
      if (p.kind === "prepend") res.write(p.before)
      let pending = ""
      let events = 0
      up.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8")
        // forward whole blocks (events, retry, comments) one at a time
        while (true) {
          const end = pending.indexOf("\n\n")
          if (end === -1) break
          let block = pending.slice(0, end + 2)
          const isFeed = /^(?:id: .*\n)?event: feed\n/.test(block)
          if (isFeed && p.kind === "cut" && events >= p.events) {
            res.write(block.slice(0, p.bytes))
            res.socket?.destroy()
            up.destroy()
            return
          }
          if (isFeed && p.kind === "transformEvents") {
            const dataStart = block.indexOf("data: ") + 6
            block = `${block.slice(0, dataStart)}${p.transform(block.slice(dataStart, -2), events)}\n\n`
          }
          if (isFeed) events++
          pending = pending.slice(end + 2)
          res.write(rewrite(block))
        }
      })
      up.on("end", () => res.end())
      up.on("error", () => res.destroy())
      res.on("close", () => up.destroy())
    })
    out.on("error", () => res.destroy())
    req.pipe(out)
  }

  const server: Server = createServer(handle)
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  self = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
  return {
    url: self,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

/** Changes one byte: the first digit of the `field` value found after `marker`. */
export const tamperDigit = (body: string, marker: string, field = "\"maxAvailableInRaw\":\"") => {
  const at = body.indexOf(marker)
  if (at === -1) throw new Error(`marker ${marker} not found`)
  const i = body.indexOf(field, at) + field.length
  if (i < field.length) throw new Error(`${field} not found after ${marker}`)
  const digit = body[i]!
  const changed = digit === "9" ? "8" : String(Number(digit) + 1)
  return `${body.slice(0, i)}${changed}${body.slice(i + 1)}`
}
