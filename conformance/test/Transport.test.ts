import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Transport from "../src/Transport.ts"

/** A throwaway server whose answers the test scripts. */
const serve = (handler: (req: IncomingMessage, res: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ url: string; close: () => void }>((resolve) => {
        const server = createServer(handler)
        server.listen(0, "127.0.0.1", () =>
          resolve({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
            close: () => {
              server.closeAllConnections()
              server.close()
            }
          }))
      })
    ),
    (s) => Effect.sync(s.close)
  )

const transport = (options: Transport.FetchOptions) => Transport.make(options)

describe("Transport (fetch)", () => {
  it.live("waits out a 429 with Retry-After, retries, and records both exchanges with a note", () =>
    Effect.scoped(Effect.gen(function*() {
      let calls = 0
      const s = yield* serve((_req, res) => {
        calls++
        if (calls === 1) {
          res.writeHead(429, { "retry-after": "1", "content-type": "application/json" })
          res.end("{\"ok\":false,\"error\":\"RATE_LIMITED\"}")
        } else {
          res.writeHead(200, { "content-type": "application/json" })
          res.end("{\"ok\":true}")
        }
      })
      const t = yield* transport({ baseUrl: s.url, timeoutMs: 5000 })
      const started = Date.now()
      const exchange = yield* t.send({ path: "/x" })
      assert.strictEqual(exchange.response.status, 200)
      assert.isAtLeast(Date.now() - started, 900)
      assert.match(exchange.notes.join(" "), /waited Retry-After 1 s/)
      const all = yield* t.exchanges
      assert.deepStrictEqual(all.map((e) => e.response.status), [429, 200])
    })))

  it.live("a 429 beyond the allowed wait is RateLimited (the check becomes inconclusive), never a failure", () =>
    Effect.scoped(Effect.gen(function*() {
      const s = yield* serve((_req, res) => {
        res.writeHead(429, { "retry-after": "30" })
        res.end()
      })
      const t = yield* transport({ baseUrl: s.url, timeoutMs: 1000, maxRateLimitWaitMs: 2000 })
      const error = yield* Effect.flip(t.send({ path: "/x" }))
      assert.strictEqual(error._tag, "RateLimited")
    })))

  it.live("paces requests at --rate", () =>
    Effect.scoped(Effect.gen(function*() {
      const s = yield* serve((_req, res) => res.end("{}"))
      const t = yield* transport({ baseUrl: s.url, timeoutMs: 5000, rate: 10 })
      const started = Date.now()
      for (let i = 0; i < 5; i++) yield* t.send({ path: "/x" })
      assert.isAtLeast(Date.now() - started, 380)
    })))

  it.live("no response within the timeout is a TransportError naming the request", () =>
    Effect.scoped(Effect.gen(function*() {
      const s = yield* serve(() => {})
      const t = yield* transport({ baseUrl: s.url, timeoutMs: 300 })
      const error = yield* Effect.flip(t.send({ path: "/slow" }))
      assert.strictEqual(error._tag, "TransportError")
      assert.match(error.message, /GET .*\/slow: no response within 300 ms/)
    })))

  it.live("reads an endless event stream incrementally: each event as its blank line arrives; a quiet period loses nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const s = yield* serve((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write("retry: 3000\n\nid: 1\nevent: feed\nda")
        setTimeout(() => res.write("ta: {}\n\n"), 100)
        setTimeout(() => res.write("id: 2\nevent: feed\ndata: {}\n\n"), 600)
        // never ends
      })
      const t = yield* transport({ baseUrl: s.url, timeoutMs: 5000 })
      const handle = yield* t.stream({ path: "/events" })
      assert.isTrue(handle.streaming)
      const first = yield* handle.next(2000)
      assert.strictEqual(first?.lastEventId, "1")
      const nothing = yield* handle.next(150)
      assert.isUndefined(nothing)
      const second = yield* handle.next(2000)
      assert.strictEqual(second?.lastEventId, "2")
      assert.deepStrictEqual(handle.parser.retries(), [3000])
      const recorded = (yield* t.exchanges)[0]!
      assert.strictEqual(recorded.stream?.events.length, 2)
    })))

  it.live("a stream request answered with JSON is not streaming and keeps the body", () =>
    Effect.scoped(Effect.gen(function*() {
      const s = yield* serve((_req, res) => {
        res.writeHead(503, { "content-type": "application/json" })
        res.end("{\"ok\":false,\"error\":\"PUBLICATION_CLOSED\"}")
      })
      const t = yield* transport({ baseUrl: s.url, timeoutMs: 5000 })
      const handle = yield* t.stream({ path: "/events" })
      assert.isFalse(handle.streaming)
      assert.strictEqual(handle.exchange.response.status, 503)
      assert.match(handle.exchange.response.body, /PUBLICATION_CLOSED/)
    })))

  it("Retry-After as seconds or an HTTP date", () => {
    assert.strictEqual(Transport.retryAfterSeconds("7", 0), 7)
    assert.strictEqual(Transport.retryAfterSeconds(new Date(10_000).toUTCString(), 4_000), 6)
    assert.isUndefined(Transport.retryAfterSeconds("soon", 0))
    assert.isUndefined(Transport.retryAfterSeconds(undefined, 0))
  })
})
