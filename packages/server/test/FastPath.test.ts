/**
 * The fast path and the Effect path answer alike. One engine, two applications
 * over it: one served by a `FrontServer` (feed and event stream answered by the
 * `node:http` fast path), one by a plain `node:http` server (every request goes
 * through the router, middleware and handlers). Generated feed requests (method,
 * filters, conditional and encoding headers, unusual queries) must get the same
 * status, headers and body bytes from both; the event stream's first frames must
 * be the same bytes.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import { EvmConnector } from "@svc/connector-evm"
import { SolanaConnector } from "@svc/connector-solana"
import { Aggregator, Publisher, Signer, Solver } from "@svc/core"
import { SqliteStore } from "@svc/store"
import { Effect, Layer, Redacted, References } from "effect"
import fc from "fast-check"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { scaled } from "../../../test/support/time.ts"
import * as App from "../src/App.ts"
import * as FastPath from "../src/FastPath.ts"
import { AUTHORITY_KEY, demoCatalog } from "./support/server.ts"

const PUBLIC_URL = "http://svc.test"
const front = FastPath.makeServer({})
const plain = createServer()

const engine = Solver.layer({
  catalog: demoCatalog,
  publisher: { routeDetailTemplate: `${PUBLIC_URL}/api/v6/routes/{routeId}`, tickMillis: 3_600_000 },
  settlement: { sweepMillis: 0 },
  routeMetrics: { flushMillis: 3_600_000 },
  connectors: [EvmConnector.make(), SolanaConnector.make()]
}).pipe(Layer.provideMerge(Layer.merge(
  SqliteStore.layer({ filename: ":memory:" }),
  Layer.succeed(Signer.Signer, Signer.fromPrivateKey(Redacted.make(AUTHORITY_KEY)))
)))
const shared = Layer.provideMerge(
  Aggregator.layer({ publicUrl: PUBLIC_URL }).pipe(Layer.provide(Aggregator.layerSecretRandom)),
  engine
)
const app = (server: Server, withFastPath: boolean) => {
  const http = NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" })
  return Layer.unwrap(App.make({ catalog: demoCatalog, publicUrl: PUBLIC_URL })).pipe(
    Layer.provide(withFastPath ? Layer.merge(http, FastPath.layerSlot(front)) : http)
  )
}
const both = Layer.mergeAll(app(front, true), app(plain, false)).pipe(
  Layer.provideMerge(shared),
  Layer.provide(Layer.succeed(References.MinimumLogLevel, "None"))
)

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: Buffer
}

/** One request with node:http (no header normalisation, no decompression); `limit` bytes of body at most. */
const send = (server: Server, method: string, path: string, headers: Record<string, string>, limit = Infinity) =>
  new Promise<Raw>((resolve, reject) => {
    const { port } = server.address() as AddressInfo
    const req = httpRequest({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      const chunks: Array<Buffer> = []
      let size = 0
      const done = () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) })
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk)
        size += chunk.length
        if (size >= limit) {
          done()
          req.destroy()
        }
      })
      res.on("end", done)
      // an event stream never ends: stop at its first frame
      if (limit !== Infinity) {
        setTimeout(() => {
          done()
          req.destroy()
        }, 3000)
      }
    })
    req.on("error", reject)
    req.end()
  })

/** Headers that legitimately differ between two answers: the clock, the request id, connection handling. */
const comparable = (headers: Raw["headers"]) => {
  const { connection: _c, date: _d, "keep-alive": _k, "x-request-id": _r, ...rest } = headers
  return rest
}

const sameAnswer = (a: Raw, b: Raw, what: string) => {
  assert.strictEqual(a.status, b.status, `${what}: status`)
  assert.deepStrictEqual(comparable(a.headers), comparable(b.headers), `${what}: headers`)
  assert.isTrue(a.body.equals(b.body), `${what}: body (${a.body.length} vs ${b.body.length} bytes)`)
}

const query = fc.oneof(
  fc.constant(""),
  fc.constantFrom(
    "sourceChainId=8453",
    "sourceChainId=56",
    "sourceChainId=1",
    "sourceChainId=08453",
    "sourceChainId=x"
  ),
  fc.constantFrom(
    "sourceNetworkId=0x" + "ab".repeat(32),
    "sourceNetworkId=0x12",
    "sourceChainId=8453&sourceNetworkId=0x" + "00".repeat(32)
  ),
  fc.constantFrom("sourceChainId=8453&sourceChainId=8453", "limit=1", "sourceChainId", "sourceChainId=", "%zz=1")
)
const acceptEncoding = fc.option(
  fc.constantFrom(
    "gzip",
    "br",
    "gzip, br",
    "br;q=0, gzip",
    "identity",
    "*",
    "gzip;q=0",
    "deflate",
    "br;q=0.5, gzip;q=0.9"
  ),
  { nil: undefined }
)

describe("fast path and Effect path", () => {
  layer(both, { excludeTestServices: true, timeout: scaled(60_000) })((it) => {
    it.effect("answer every generated feed request alike", () =>
      Effect.gen(function*() {
        const publisher = yield* Publisher.Publisher
        const publication = yield* publisher.current
        const etags = [
          publication.fullView.etag,
          `W/${publication.fullView.etag}`,
          "\"other\"",
          "*",
          `"x", ${publication.fullView.etag}`
        ]
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.constantFrom("GET", "HEAD"),
              query,
              acceptEncoding,
              fc.option(fc.constantFrom(...etags), { nil: undefined }),
              async (method, q, encoding, ifNoneMatch) => {
                const headers: Record<string, string> = {}
                if (encoding !== undefined) headers["accept-encoding"] = encoding
                if (ifNoneMatch !== undefined) headers["if-none-match"] = ifNoneMatch
                const path = `/api/v6/solver-feed${q === "" ? "" : `?${q}`}`
                const [fast, slow] = await Promise.all([
                  send(front, method, path, headers),
                  send(plain, method, path, headers)
                ])
                sameAnswer(fast, slow, `${method} ${path} ${JSON.stringify(headers)}`)
              }
            ),
            { numRuns: 150 }
          )
        )
      }))

    it.effect("open the event stream with the same headers and first frame", () =>
      Effect.gen(function*() {
        for (const headers of [{}, { "last-event-id": "0" }, { "last-event-id": "junk" }]) {
          const [fast, slow] = yield* Effect.promise(() =>
            Promise.all([
              send(front, "GET", "/api/v6/solver-feed/events", headers, 2048),
              send(plain, "GET", "/api/v6/solver-feed/events", headers, 2048)
            ])
          )
          assert.strictEqual(fast.status, 200)
          assert.strictEqual(fast.status, slow.status)
          const { "transfer-encoding": _f, ...fastHeaders } = comparable(fast.headers)
          const { "transfer-encoding": _s, ...slowHeaders } = comparable(slow.headers)
          assert.deepStrictEqual(fastHeaders, slowHeaders, JSON.stringify(headers))
          // the retry line and the initial publication (the frame ends at the first blank line after data)
          const firstFrame = (body: Buffer) => {
            const text = body.toString("utf8")
            const end = text.indexOf("\n\n", text.indexOf("data:"))
            return text.slice(0, end + 2)
          }
          assert.isAbove(firstFrame(fast.body).length, 100)
          assert.strictEqual(firstFrame(fast.body), firstFrame(slow.body), JSON.stringify(headers))
        }
        // a query on the stream is refused the same way by both (the fast path leaves it to the handler)
        const path = "/api/v6/solver-feed/events?x=1"
        const [fast, slow] = yield* Effect.promise(() =>
          Promise.all([send(front, "GET", path, {}), send(plain, "GET", path, {})])
        )
        assert.strictEqual(fast.status, 400)
        sameAnswer(fast, slow, path)
      }))
  })
})
