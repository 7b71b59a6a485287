/**
 * A thin HTTP proxy in front of the real server whose behaviour a variant can
 * bend: rewrite a request, rewrite a buffered response, or rewrite the frames
 * of an event stream as they pass. With no variant it passes everything
 * through byte for byte (the "real server" of the tests).
 *
 * Test code only: the harness never depends on @svc/server.
 */
import { createServer, type IncomingMessage, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { brotliDecompressSync, createGunzip, createZstdDecompress, gunzipSync } from "node:zlib"

/** A request as the proxy received it. */
export interface ProxyRequest {
  readonly method: string
  /** Path with query. */
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: Buffer
}

/** A buffered response. */
export interface ProxyResponse {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: Buffer
}

/** What a variant sees of the test setup. */
export interface VariantContext {
  /** The real server's base URL. */
  readonly upstream: string
  /** The proxy's base URL (the deployment's public URL). */
  readonly publicUrl: string
  /** The authority key (the tests configure it), to re-sign what a variant changes. */
  readonly authorityKey: `0x${string}`
  /** A new publication now. */
  readonly publish: () => Promise<void>
  /** Shared state of the proxy: the newest feed dataVersion seen, the feed frames seen. */
  readonly state: { currentVersion: string | undefined; frames: Array<string> }
  /** Scratch state of the current variant (cleared when the variant changes). */
  readonly memory: Map<string, unknown>
}

/** A deliberately broken behaviour. */
export interface Variant {
  /** kebab-case name. */
  readonly name: string
  /** The one behaviour it breaks. */
  readonly breaks: string
  /** The checks written for it: each must fail on the variant. */
  readonly caughtBy: ReadonlyArray<string>
  readonly request?: (r: ProxyRequest, ctx: VariantContext) => ProxyRequest | ProxyResponse
  readonly response?: (r: ProxyRequest, res: ProxyResponse, ctx: VariantContext) => ProxyResponse
  /** Rewrites each event-stream block (text ending in a blank line); returns the blocks to send. */
  readonly frame?: (r: ProxyRequest, block: string, index: number, ctx: VariantContext) => ReadonlyArray<string>
  /** Rewrites the headers of an event-stream response. */
  readonly streamHeaders?: (r: ProxyRequest, headers: Record<string, string>) => Record<string, string>
  /** The groups to run (default: the groups of the checks in caughtBy). */
  readonly groups?: ReadonlyArray<string>
  /** Setup before the variant's run. */
  readonly arm?: (ctx: VariantContext) => Promise<void>
  /**
   * Caught only by its rule's checks: in its run, the checks that fail are
   * exactly `caughtBy` and the checks that warn exactly `warnedBy`.
   */
  readonly only?: boolean | undefined
  /** The checks that report the variant as a warning (a departure from svc's profile the spec allows). */
  readonly warnedBy?: ReadonlyArray<string> | undefined
  /** Options of the variant's run (more stateful sequences, another status-list setting, ...). */
  readonly options?: Readonly<Record<string, unknown>> | undefined
}

const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host", "upgrade"])

const flat = (headers: IncomingMessage["headers"]): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v
  }
  return out
}

const readAll = (stream: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    stream.on("data", (c: Buffer) => chunks.push(c))
    stream.on("end", () => resolve(Buffer.concat(chunks)))
    stream.on("error", reject)
  })

const isResponse = (x: ProxyRequest | ProxyResponse): x is ProxyResponse => "status" in x

/** The proxy. */
export interface Proxy {
  readonly url: string
  readonly setUpstream: (url: string) => void
  readonly setVariant: (variant: Variant | undefined) => void
  readonly context: () => VariantContext
  readonly setPublish: (publish: () => Promise<void>) => void
  readonly setAuthorityKey: (key: `0x${string}`) => void
  readonly close: () => Promise<void>
}

/** Starts the proxy on an ephemeral port. */
export const start = async (): Promise<Proxy> => {
  let upstream = ""
  let variant: Variant | undefined
  let publish: () => Promise<void> = async () => {}
  let authorityKey: `0x${string}` = "0x01"
  const state: VariantContext["state"] = { currentVersion: undefined, frames: [] }
  const memory = new Map<string, unknown>()
  let url = ""
  const context = (): VariantContext => ({ upstream, publicUrl: url, authorityKey, publish, state, memory })

  const server: Server = createServer(async (req, res) => {
    try {
      const incoming: ProxyRequest = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: flat(req.headers),
        body: await readAll(req)
      }
      const rewritten = variant?.request?.(incoming, context()) ?? incoming
      if (isResponse(rewritten)) {
        res.writeHead(rewritten.status, { ...rewritten.headers, "content-length": String(rewritten.body.length) })
        res.end(rewritten.body)
        return
      }
      const target = new URL(rewritten.path, upstream)
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(rewritten.headers)) if (!HOP.has(k)) headers[k] = v
      if (rewritten.body.length > 0 || rewritten.method === "POST") {
        headers["content-length"] = String(rewritten.body.length)
      }
      const up = httpRequest({
        hostname: target.hostname,
        port: target.port,
        method: rewritten.method,
        path: target.pathname + target.search,
        headers
      })
      req.on("close", () => up.destroy())
      up.on("response", async (upRes) => {
        const h = flat(upRes.headers)
        for (const k of HOP) delete h[k]
        if ((h["content-type"] ?? "").startsWith("text/event-stream")) {
          // a compressed stream is decoded as it comes, and relayed as identity: the variants edit frames
          const coding = h["content-encoding"]
          const source = coding === "gzip"
            ? upRes.pipe(createGunzip())
            : coding === "zstd"
            ? upRes.pipe(createZstdDecompress())
            : upRes
          delete h["content-encoding"]
          res.writeHead(upRes.statusCode ?? 502, variant?.streamHeaders?.(rewritten, h) ?? h)
          res.flushHeaders()
          let buffer = ""
          let index = 0
          source.setEncoding("utf8")
          source.on("data", (chunk: string) => {
            buffer += chunk
            let end: number
            while ((end = buffer.indexOf("\n\n")) !== -1) {
              const block = buffer.slice(0, end + 2)
              buffer = buffer.slice(end + 2)
              if (/^event: feed$/m.test(block)) {
                const id = /^id: ([0-9]+)$/m.exec(block)?.[1]
                if (id !== undefined) {
                  if (!state.frames.some((f) => f.startsWith(`id: ${id}\n`))) state.frames.push(block)
                  if (state.currentVersion === undefined || BigInt(id) > BigInt(state.currentVersion)) {
                    state.currentVersion = id
                  }
                }
              }
              const out = variant?.frame?.(rewritten, block, index++, context()) ?? [block]
              for (const b of out) res.write(b)
            }
          })
          source.on("end", () => res.end())
          source.on("error", () => res.destroy())
          upRes.on("error", () => res.destroy())
          res.on("close", () => upRes.destroy())
          return
        }
        let body = await readAll(upRes)
        if (variant?.response !== undefined && h["content-encoding"] !== undefined) {
          // a variant rewrites identity bodies: decode, and answer identity (Vary stays)
          body = h["content-encoding"] === "br"
            ? brotliDecompressSync(body)
            : h["content-encoding"] === "gzip"
            ? gunzipSync(body)
            : body
          delete h["content-encoding"]
        }
        let response: ProxyResponse = { status: upRes.statusCode ?? 502, headers: h, body }
        if (
          rewritten.path.startsWith("/api/v6/solver-feed") && response.status === 200 &&
          h["content-encoding"] === undefined
        ) {
          try {
            const v = (JSON.parse(body.toString("utf8")) as { feed?: { dataVersion?: string } }).feed?.dataVersion
            if (v !== undefined && (state.currentVersion === undefined || BigInt(v) > BigInt(state.currentVersion))) {
              state.currentVersion = v
            }
          } catch {
            // not JSON: leave the state
          }
        }
        if (variant?.response !== undefined) response = variant.response(rewritten, response, context())
        res.writeHead(response.status, {
          ...response.headers,
          ...(response.status === 304 || response.status === 204
            ? {}
            : { "content-length": String(response.body.length) })
        })
        res.end(response.body)
      })
      up.on("error", () => {
        if (!res.headersSent) res.writeHead(502)
        res.end()
      })
      up.end(rewritten.body)
    } catch (e) {
      if (!res.headersSent) res.writeHead(599, { "content-type": "text/plain" })
      res.end(`proxy error: ${String(e)}`)
    }
  })
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    setUpstream: (u) => void (upstream = u),
    setVariant: (v) => {
      variant = v
      memory.clear()
    },
    context,
    setPublish: (p) => void (publish = p),
    setAuthorityKey: (k) => void (authorityKey = k),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

// ---------------------------------------------------------------------------
// Helpers for variants
// ---------------------------------------------------------------------------

/** The JSON of a buffered body. */
export const bodyJson = (r: { readonly body: Buffer }): any => JSON.parse(r.body.toString("utf8"))

/** A response with a new JSON body. */
export const withJson = (res: ProxyResponse, value: unknown): ProxyResponse => ({
  ...res,
  body: Buffer.from(JSON.stringify(value))
})

/** A request with a new JSON body. */
export const withRequestJson = (req: ProxyRequest, value: unknown): ProxyRequest => ({
  ...req,
  body: Buffer.from(JSON.stringify(value))
})

/** The path without the query. */
export const pathOnly = (r: ProxyRequest) => r.path.split("?")[0]!

/** An error answer of the solver interface. */
export const errorResponse = (
  status: number,
  code: string,
  extraHeaders: Record<string, string> = {}
): ProxyResponse => ({
  status,
  headers: {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "access-control-allow-origin": "*",
    ...extraHeaders
  },
  body: Buffer.from(JSON.stringify({ ok: false, error: code }))
})
