import { assert, describe, layer } from "@effect/vitest"
import { Publisher, Store } from "@svc/core"
import {
  AggregatorError,
  CanonicalJson,
  ErrorResponse,
  FeedSignature,
  PermitMessage,
  Signature,
  strictParseOptions
} from "@svc/protocol"
import { Effect, Result, Schema } from "effect"
import { connect } from "node:net"
import { scaled } from "../../../test/support/time.ts"
import { AUTHORITY_KEY, baseUrl, PAYER_KEY, serverLayer, sseReader, testConfig } from "./support/server.ts"

const payer = Signature.addressOf(PAYER_KEY)
const recipient = "0x2222222222222222222222222222222222222222"

const get = (path: string, headers?: Record<string, string>) =>
  Effect.flatMap(
    baseUrl,
    (url) => Effect.promise(() => fetch(`${url}${path}`, headers === undefined ? {} : { headers }))
  )
const post = (path: string, body: string, headers?: Record<string, string>) =>
  Effect.flatMap(
    baseUrl,
    (url) =>
      Effect.promise(() =>
        fetch(`${url}${path}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } })
      )
  )
const json = (response: Response) => Effect.promise(() => response.json() as Promise<any>)
const text = (response: Response) => Effect.promise(() => response.text())

const openRoute = Effect.gen(function*() {
  const publication = yield* (yield* Publisher.Publisher).current
  return publication.routes.find((r) => r.open && r.sourceChainId === "8453")!
})

let keyCounter = 0
const newKey = () => `svc-test-key-${Date.now()}-${keyCounter++}`

const permitBody = (quoteId: string, amount: string, key: string, extra?: Record<string, unknown>) => {
  const request = { quoteId, requestedAmountInRaw: amount, payer, recipient, idempotencyKey: key, ...extra }
  const message = PermitMessage.message(
    PermitMessage.normalize(request as PermitMessage.PermitRequestInput, { strict: false })
  )
  return { ...request, requestSignature: PermitMessage.sign(message, PAYER_KEY) }
}

const assertError = (body: any, code: string) => {
  assert.strictEqual(body.ok, false)
  assert.strictEqual(body.error, code)
}

interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
  /** Whether the server closed the connection (the request asked for keep-alive). */
  readonly closed: boolean
}

/**
 * POSTs `body` over a raw socket with `Transfer-Encoding: chunked` and no
 * Content-Length (what fetch cannot be made to do for a string body), in chunks of
 * `chunkSize` bytes, and reads the answer until the server closes the connection
 * or 3 s pass. The request asks for keep-alive unless `close` is set.
 */
const postChunked = (path: string, body: string, options?: { readonly chunkSize?: number; readonly close?: boolean }) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(() =>
      new Promise<RawResponse>((resolve, reject) => {
        const url = new URL(base)
        const socket = connect(Number(url.port), url.hostname)
        const received: Array<Buffer> = []
        let closed = false
        const finish = () => {
          clearTimeout(timer)
          socket.destroy()
          const raw = Buffer.concat(received).toString("latin1")
          const split = raw.indexOf("\r\n\r\n")
          if (split === -1) return reject(new Error(`no complete response: ${JSON.stringify(raw.slice(0, 200))}`))
          const [statusLine, ...lines] = raw.slice(0, split).split("\r\n")
          const headers: Record<string, string> = {}
          for (const line of lines) {
            const i = line.indexOf(":")
            headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
          }
          let rest = Buffer.from(raw.slice(split + 4), "latin1")
          if (headers["transfer-encoding"] === "chunked") {
            const parts: Array<Buffer> = []
            while (true) {
              const eol = rest.indexOf("\r\n")
              const size = parseInt(rest.subarray(0, eol).toString("latin1"), 16)
              if (eol === -1 || !(size > 0)) break
              parts.push(rest.subarray(eol + 2, eol + 2 + size))
              rest = rest.subarray(eol + 2 + size + 2)
            }
            rest = Buffer.concat(parts)
          } else if (headers["content-length"] !== undefined) {
            rest = rest.subarray(0, Number(headers["content-length"]))
          }
          resolve({ status: Number(statusLine!.split(" ")[1]), headers, body: rest.toString("utf8"), closed })
        }
        const timer = setTimeout(finish, 3000)
        socket.on("data", (chunk) => received.push(chunk))
        socket.on("end", () => {
          closed = true
          finish()
        })
        // the server may answer and close before it read everything: a failed write is no failure here
        socket.on("error", () => {})
        const bytes = Buffer.from(body, "utf8")
        const chunkSize = options?.chunkSize ?? 4096
        let request = `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
          `Transfer-Encoding: chunked\r\n${options?.close === true ? "Connection: close\r\n" : ""}\r\n`
        for (let at = 0; at < bytes.length; at += chunkSize) {
          const chunk = bytes.subarray(at, at + chunkSize)
          request += `${chunk.length.toString(16)}\r\n${chunk.toString("latin1")}\r\n`
        }
        socket.write(Buffer.from(`${request}0\r\n\r\n`, "latin1"))
      })
    ))

const isErrorResponse = (body: unknown) =>
  Result.isSuccess(Schema.decodeUnknownResult(ErrorResponse)(body, strictParseOptions))
const isAggregatorError = (body: unknown) =>
  Result.isSuccess(Schema.decodeUnknownResult(AggregatorError)(body, strictParseOptions))

layer(serverLayer(), { excludeTestServices: true, timeout: scaled(60_000) })("svc server", (it) => {
  describe("discovery documents", () => {
    it.effect("serve the documents with their cache headers", () =>
      Effect.gen(function*() {
        for (
          const [path, cache] of [
            ["/.well-known/svc-solver.json", "public, max-age=60"],
            ["/api/v6/solver-discovery", "public, max-age=60"],
            ["/.well-known/svc-onchain-discovery.json", "public, max-age=300, stale-while-revalidate=3600"],
            ["/.well-known/svc-standards.json", "public, max-age=300, stale-while-revalidate=3600"],
            ["/openapi.json", "public, max-age=300, stale-while-revalidate=3600"]
          ] as const
        ) {
          const response = yield* get(path)
          assert.strictEqual(response.status, 200, path)
          assert.strictEqual(response.headers.get("cache-control"), cache, path)
          assert.strictEqual(response.headers.get("access-control-allow-origin"), "*")
          const body = yield* json(response)
          assert.isObject(body)
        }
        const manifest = yield* json(yield* get("/.well-known/svc-solver.json"))
        const discovery = yield* json(yield* get("/api/v6/solver-discovery"))
        assert.deepStrictEqual(manifest, discovery)
        const url = yield* baseUrl
        assert.strictEqual(manifest.endpoints.solverFeed, `${url}/api/v6/solver-feed`)
        const openapi = yield* json(yield* get("/openapi.json"))
        assert.strictEqual(openapi.openapi, "3.1.0")
        const withQuery = yield* get("/.well-known/svc-solver.json?x=1")
        assert.strictEqual(withQuery.status, 400)
        assertError(yield* json(withQuery), "INVALID_REQUEST")
        const docs = yield* get("/docs")
        assert.strictEqual(docs.status, 200)
        assert.match(docs.headers.get("content-type") ?? "", /text\/html/)
      }))
  })

  describe("paths and methods", () => {
    it.effect("404 for unknown paths, 405 with Allow, 204 preflight", () =>
      Effect.gen(function*() {
        const missing = yield* get("/nope")
        assert.strictEqual(missing.status, 404)
        assertError(yield* json(missing), "NOT_FOUND")
        const wrong = yield* post("/api/v6/solver-feed", "{}")
        assert.strictEqual(wrong.status, 405)
        assert.strictEqual(wrong.headers.get("allow"), "GET, HEAD, OPTIONS")
        assertError(yield* json(wrong), "METHOD_NOT_ALLOWED")
        const getOnPost = yield* get("/api/v6/execution-permits/request-message")
        assert.strictEqual(getOnPost.status, 405)
        const url = yield* baseUrl
        const preflight = yield* Effect.promise(() => fetch(`${url}/api/v6/execution-permits`, { method: "OPTIONS" }))
        assert.strictEqual(preflight.status, 204)
        assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /Idempotency-Key/)
      }))
  })

  describe("feed", () => {
    it.effect("200 with a verifying signed feed, weak ETag, 304 without body", () =>
      Effect.gen(function*() {
        const response = yield* get("/api/v6/solver-feed")
        assert.strictEqual(response.status, 200)
        const etag = response.headers.get("etag")!
        assert.match(etag, /^W\/"[0-9]+-[0-9a-f]{16}-all"$/)
        assert.strictEqual(response.headers.get("cache-control"), "no-cache")
        const body = yield* json(response)
        const now = Math.floor(Date.now() / 1000)
        const verified = FeedSignature.verify(body.feed, { now })
        assert.isTrue(Result.isSuccess(verified) && verified.success.valid)
        for (const inm of [etag, etag.slice(2), `"x", ${etag}`, "*"]) {
          const cached = yield* get("/api/v6/solver-feed", { "if-none-match": inm })
          assert.strictEqual(cached.status, 304, inm)
          assert.strictEqual(yield* text(cached), "")
          assert.strictEqual(cached.headers.get("etag"), etag)
          assert.strictEqual(cached.headers.get("cache-control"), "no-cache")
        }
        const other = yield* get("/api/v6/solver-feed", { "if-none-match": "W/\"other\"" })
        assert.strictEqual(other.status, 200)
        yield* text(other)
        // a new publication turns the 304 into a 200
        yield* (yield* Publisher.Publisher).publishNow
        const fresh = yield* get("/api/v6/solver-feed", { "if-none-match": etag })
        assert.strictEqual(fresh.status, 200)
        assert.notStrictEqual(fresh.headers.get("etag"), etag)
        yield* text(fresh)
      }))

    it.effect("filters reduce views, never signedPayload; bad filters are 400", () =>
      Effect.gen(function*() {
        const all = yield* json(yield* get("/api/v6/solver-feed"))
        const filtered = yield* json(yield* get("/api/v6/solver-feed?sourceChainId=56"))
        assert.strictEqual(
          CanonicalJson.stringify(filtered.feed.signedPayload),
          CanonicalJson.stringify(all.feed.signedPayload)
        )
        assert.isTrue(filtered.feed.routes.every((r: any) => r.sourceChainId === "56"))
        assert.isTrue(filtered.feed.returnedRouteCount < filtered.feed.routeCount)
        const networkId = filtered.feed.routes[0].sourceNetworkId
        const both = yield* json(
          yield* get(
            `/api/v6/solver-feed?sourceChainId=56&sourceNetworkId=${networkId.toUpperCase().replace("0X", "0x")}`
          )
        )
        assert.strictEqual(both.feed.returnedRouteCount, filtered.feed.returnedRouteCount)
        const conflicting = yield* json(
          yield* get(`/api/v6/solver-feed?sourceChainId=8453&sourceNetworkId=${networkId}`)
        )
        assert.strictEqual(conflicting.feed.returnedRouteCount, 0, "both filters must match")
        const none = yield* json(yield* get("/api/v6/solver-feed?sourceChainId=1"))
        assert.deepStrictEqual(none.feed.routes, [])
        for (
          const bad of [
            "sourceChainId=0",
            "sourceChainId=abc",
            "sourceChainId=",
            "sourceNetworkId=0x12",
            "foo=1",
            "sourceChainId=1&sourceChainId=2"
          ]
        ) {
          const response = yield* get(`/api/v6/solver-feed?${bad}`)
          assert.strictEqual(response.status, 400, bad)
          assertError(yield* json(response), "INVALID_REQUEST")
        }
      }))
  })

  describe("route detail", () => {
    it.effect("the canonical signed route byte for byte, plus metrics; 404 otherwise", () =>
      Effect.gen(function*() {
        const route = yield* openRoute
        const feedText = yield* text(yield* get("/api/v6/solver-feed"))
        const response = yield* get(`/api/v6/routes/${route.routeId.toUpperCase().replace("0X", "0x")}`)
        assert.strictEqual(response.status, 200)
        assert.strictEqual(response.headers.get("cache-control"), "no-store")
        const body = yield* text(response)
        const routeText = CanonicalJson.stringify(route)
        assert.include(body, `"route":${routeText}`)
        assert.include(feedText, routeText)
        const parsed = JSON.parse(body)
        assert.strictEqual(parsed.ok, true)
        assert.isTrue(parsed.metrics.telemetryAvailable)
        // the feed GETs above exposed the route
        assert.isAtLeast(parsed.metrics.feed_exposures, 1)
        const before = parsed.metrics.feed_exposures
        yield* text(yield* get("/api/v6/solver-feed"))
        yield* text(yield* get("/api/v6/solver-feed?sourceChainId=8453"))
        const after = JSON.parse(yield* text(yield* get(`/api/v6/routes/${route.routeId}`)))
        assert.strictEqual(after.metrics.feed_exposures, before + 2)
        for (const id of [`0x${"00".repeat(32)}`, "0x1234", "not-a-route"]) {
          const missing = yield* get(`/api/v6/routes/${id}`)
          assert.strictEqual(missing.status, 404, id)
          assertError(yield* json(missing), "ROUTE_NOT_FOUND")
        }
      }))
  })

  describe("permits", () => {
    it.effect("request-message, 201 then an identical 200, status", () =>
      Effect.gen(function*() {
        const route = yield* openRoute
        const key = newKey()
        const body = permitBody(route.quoteId, route.minimumFillInRaw, key)
        const { requestSignature: _, ...unsigned } = body
        const message = yield* json(yield* post("/api/v6/execution-permits/request-message", JSON.stringify(unsigned)))
        assert.deepStrictEqual(message, {
          ok: true,
          message: PermitMessage.build(unsigned as PermitMessage.PermitRequestInput)
        })
        const first = yield* post("/api/v6/execution-permits", JSON.stringify(body), { "idempotency-key": key })
        assert.strictEqual(first.status, 201)
        const created = yield* json(first)
        assert.strictEqual(created.idempotent, false)
        const second = yield* post("/api/v6/execution-permits", JSON.stringify(body))
        assert.strictEqual(second.status, 200)
        const replayed = yield* json(second)
        assert.strictEqual(replayed.idempotent, true)
        assert.deepStrictEqual(replayed.permit, created.permit)
        const status = yield* get(`/api/v6/execution-permits/${created.permit.fillId}`)
        assert.strictEqual(status.status, 200)
        assert.deepStrictEqual((yield* json(status)).permit, created.permit)
        const unknown = yield* get(`/api/v6/execution-permits/0x${"ab".repeat(32)}`)
        assert.strictEqual(unknown.status, 404)
        assertError(yield* json(unknown), "PERMIT_NOT_FOUND")
        const malformed = yield* get("/api/v6/execution-permits/0x12")
        assert.strictEqual(malformed.status, 404)
        // route metrics count the request and the issued permit
        const metrics = (yield* json(yield* get(`/api/v6/routes/${route.routeId}`))).metrics
        assert.isAtLeast(metrics.permit_requests, 1)
        assert.isAtLeast(metrics.permits_issued, 1)
        assert.isAtMost(metrics.permits_issued, metrics.permit_requests)
        assert.strictEqual(metrics.permitConversionRate, metrics.permits_issued / metrics.permit_requests)
      }))

    it.effect("409, 400 and 410 answers", () =>
      Effect.gen(function*() {
        const route = yield* openRoute
        const key = newKey()
        yield* post("/api/v6/execution-permits", JSON.stringify(permitBody(route.quoteId, route.minimumFillInRaw, key)))
        const conflict = yield* post(
          "/api/v6/execution-permits",
          JSON.stringify(permitBody(route.quoteId, (BigInt(route.minimumFillInRaw) * 2n).toString(), key))
        )
        assert.strictEqual(conflict.status, 409)
        assertError(yield* json(conflict), "IDEMPOTENCY_CONFLICT")
        const mismatch = yield* post(
          "/api/v6/execution-permits",
          JSON.stringify(permitBody(route.quoteId, route.minimumFillInRaw, newKey())),
          { "idempotency-key": "another-key-123" }
        )
        assert.strictEqual(mismatch.status, 400)
        assertError(yield* json(mismatch), "IDEMPOTENCY_KEY_MISMATCH")
        const gone = yield* post(
          "/api/v6/execution-permits",
          JSON.stringify(permitBody(`0x${"cd".repeat(32)}`, "1000000", newKey()))
        )
        assert.strictEqual(gone.status, 410)
        assertError(yield* json(gone), "QUOTE_NOT_OPEN")
        const extra = yield* post(
          "/api/v6/execution-permits",
          JSON.stringify({ ...permitBody(route.quoteId, route.minimumFillInRaw, newKey()), amountOutRaw: "1" })
        )
        assert.strictEqual(extra.status, 400)
        const extraBody = yield* json(extra)
        assertError(extraBody, "INVALID_REQUEST")
        assert.include(extraBody.reasonCodes, "UNKNOWN_FIELD")
        const notJson = yield* post("/api/v6/execution-permits", "{nope")
        assert.strictEqual(notJson.status, 400)
        const numberAmount = yield* post(
          "/api/v6/execution-permits",
          JSON.stringify({
            ...permitBody(route.quoteId, route.minimumFillInRaw, newKey()),
            requestedAmountInRaw: 1000000
          })
        )
        assert.strictEqual(numberAmount.status, 400)
      }))

    it.effect("a replay (same key, same body) signed by another key is 400 SIGNATURE_INVALID; the permit stays", () =>
      Effect.gen(function*() {
        const route = yield* openRoute
        const key = newKey()
        const body = permitBody(route.quoteId, route.minimumFillInRaw, key)
        const first = yield* post("/api/v6/execution-permits", JSON.stringify(body))
        assert.strictEqual(first.status, 201)
        const created = yield* json(first)
        const { requestSignature: _, ...unsigned } = body
        const message = PermitMessage.build(unsigned as PermitMessage.PermitRequestInput)
        // the exact request again, signed by a key that is not the payer's: the signature must still verify
        const otherKey = PermitMessage.sign(message, AUTHORITY_KEY)
        assert.notStrictEqual(Signature.addressOf(AUTHORITY_KEY), payer)
        const forged = yield* post(
          "/api/v6/execution-permits",
          JSON.stringify({ ...body, requestSignature: otherKey }),
          {
            "idempotency-key": key
          }
        )
        assert.strictEqual(forged.status, 400)
        const forgedBody = yield* json(forged)
        assertError(forgedBody, "SIGNATURE_INVALID")
        assert.deepStrictEqual(forgedBody.reasonCodes, ["SIGNER_MISMATCH"])
        assert.notProperty(forgedBody, "permit")
        // a malleated (high-s) twin of the payer's own signature is no valid proof either
        const twin = yield* post(
          "/api/v6/execution-permits",
          JSON.stringify({ ...body, requestSignature: Signature.highSTwin(body.requestSignature as `0x${string}`) })
        )
        assert.strictEqual(twin.status, 400)
        assertError(yield* json(twin), "SIGNATURE_INVALID")
        // the permit is untouched, and the payer's own replay is still answered
        const replay = yield* post("/api/v6/execution-permits", JSON.stringify(body))
        assert.strictEqual(replay.status, 200)
        assert.deepStrictEqual((yield* json(replay)).permit, created.permit)
        const status = yield* json(yield* get(`/api/v6/execution-permits/${created.permit.fillId}`))
        assert.deepStrictEqual(status.permit, created.permit)
      }))

    it.effect("410 for the quote of a route the operator paused", () =>
      Effect.gen(function*() {
        const route = yield* openRoute
        const store = yield* Store.Store
        yield* store.setRouteOverride(route.routeId, { executionStatus: "PAUSED" })
        yield* (yield* Publisher.Publisher).refresh
        const response = yield* post(
          "/api/v6/execution-permits",
          JSON.stringify(permitBody(route.quoteId, route.minimumFillInRaw, newKey()))
        )
        assert.strictEqual(response.status, 410)
        const body = yield* json(response)
        assertError(body, "QUOTE_NOT_OPEN")
        assert.include(body.reasonCodes, "ROUTE_PAUSED")
        yield* store.setRouteOverride(route.routeId, {})
        yield* (yield* Publisher.Publisher).refresh
      }))

    it.effect("32,768 bytes are accepted and 32,769 bytes answered 413", () =>
      Effect.gen(function*() {
        const route = yield* openRoute
        const base = JSON.stringify(permitBody(route.quoteId, route.minimumFillInRaw, newKey()))
        const pad = (size: number) => `${base.slice(0, -1)}${" ".repeat(size - base.length)}}`
        const atLimit = pad(32_768)
        assert.strictEqual(new TextEncoder().encode(atLimit).length, 32_768)
        const ok = yield* post("/api/v6/execution-permits", atLimit)
        assert.strictEqual(ok.status, 201)
        yield* text(ok)
        const over = pad(32_769)
        const tooLarge = yield* post("/api/v6/execution-permits", over)
        assert.strictEqual(tooLarge.status, 413)
        assertError(yield* json(tooLarge), "BODY_TOO_LARGE")
        const message = yield* post("/api/v6/execution-permits/request-message", over)
        assert.strictEqual(message.status, 413)
        yield* text(message)
      }))
  })

  describe("event stream", () => {
    it.effect("initial-event rules and a later publication on an open stream", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const publisher = yield* Publisher.Publisher
        const current = yield* publisher.current
        const open = (lastEventId?: string) =>
          Effect.promise(() =>
            fetch(
              `${url}/api/v6/solver-feed/events`,
              lastEventId === undefined ? {} : { headers: { "last-event-id": lastEventId } }
            )
          )
        // no header: the current feed at once
        const plain = yield* open()
        assert.strictEqual(plain.status, 200)
        assert.match(plain.headers.get("content-type") ?? "", /^text\/event-stream/)
        const reader = sseReader(plain)
        const retry = yield* Effect.promise(() => reader.next())
        assert.strictEqual(retry?.retry, "3000")
        const first = yield* Effect.promise(() => reader.nextEvent())
        assert.strictEqual(first?.event, "feed")
        assert.strictEqual(first?.id, current.dataVersion.toString())
        const feed = JSON.parse(first!.data!)
        assert.strictEqual(feed.feedHash, current.feedHash)
        // older, newer, invalid: the current feed; equal: nothing
        for (
          const [id, expected] of [
            ["0", true],
            [(current.dataVersion + 1n).toString(), true],
            [(current.dataVersion + 1000n).toString(), true],
            ["abc", true],
            ["01", true],
            [current.dataVersion.toString(), false]
          ] as const
        ) {
          const stream = sseReader(yield* open(id))
          const event = yield* Effect.promise(() => stream.nextEvent(expected ? 5000 : 700))
          assert.strictEqual(event !== undefined, expected, `Last-Event-ID ${id}`)
          if (expected) assert.strictEqual(event?.id, current.dataVersion.toString())
          yield* Effect.promise(() => stream.cancel())
        }
        // a later publication arrives on the open stream
        const next = yield* publisher.publishNow
        const later = yield* Effect.promise(() => reader.nextEvent())
        assert.strictEqual(later?.event, "feed")
        assert.strictEqual(later?.id, next.dataVersion.toString())
        const verified = FeedSignature.verify(JSON.parse(later!.data!), { now: Math.floor(Date.now() / 1000) })
        assert.isTrue(Result.isSuccess(verified) && verified.success.valid)
        yield* Effect.promise(() => reader.cancel())
      }))
  })

  describe("chunked bodies (no Content-Length)", () => {
    it.effect("a chunked body over 32 KiB is answered 413 with the JSON error envelope, and the connection closed", () =>
      Effect.gen(function*() {
        const route = yield* openRoute
        const base = JSON.stringify(permitBody(route.quoteId, route.minimumFillInRaw, newKey()))
        const pad = (size: number) => `${base.slice(0, -1)}${" ".repeat(size - base.length)}}`
        // a valid permit request, padded: only its size can refuse it
        for (const size of [32_769, 40 * 1024, 200 * 1024]) {
          for (const path of ["/api/v6/execution-permits", "/api/v6/execution-permits/request-message"]) {
            const response = yield* postChunked(path, pad(size))
            const what = `${path} ${size} bytes chunked`
            assert.strictEqual(response.status, 413, what)
            assert.match(response.headers["content-type"] ?? "", /^application\/json/, what)
            assert.strictEqual(response.headers["cache-control"], "no-store", what)
            const body = JSON.parse(response.body)
            assert.deepStrictEqual(body, { ok: false, error: "BODY_TOO_LARGE", reasonCodes: ["BODY_TOO_LARGE"] }, what)
            assert.isTrue(isErrorResponse(body), what)
            assert.isTrue(response.closed, `${what}: the connection is closed`)
          }
        }
        // the aggregator reads its bodies the same way and answers in its own error body
        const quote = yield* postChunked("/v1/quote", `{"amountIn":"1"${" ".repeat(40 * 1024)}}`)
        assert.strictEqual(quote.status, 413)
        const aggregatorBody = JSON.parse(quote.body)
        assert.strictEqual(aggregatorBody.error, "BODY_TOO_LARGE")
        assert.isTrue(isAggregatorError(aggregatorBody), quote.body)
      }))

    it.effect("a chunked body of exactly 32,768 bytes is read and answered", () =>
      Effect.gen(function*() {
        const route = yield* openRoute
        const base = JSON.stringify(permitBody(route.quoteId, route.minimumFillInRaw, newKey()))
        const atLimit = `${base.slice(0, -1)}${" ".repeat(32_768 - base.length)}}`
        const created = yield* postChunked("/api/v6/execution-permits", atLimit, { chunkSize: 1000, close: true })
        assert.strictEqual(created.status, 201, created.body)
        assert.strictEqual(JSON.parse(created.body).idempotent, false)
        // a small chunked body that is not JSON is the 400 of a body, not a 413
        const notJson = yield* postChunked("/api/v6/execution-permits", "{nope", { close: true })
        assert.strictEqual(notJson.status, 400)
        assertError(JSON.parse(notJson.body), "INVALID_REQUEST")
      }))
  })
})

layer(serverLayer(testConfig({ permitRateLimit: 2, permitRateWindowSeconds: 60 })), {
  excludeTestServices: true,
  timeout: scaled(60_000)
})(
  "rate limit and pause",
  (it) => {
    it.effect("while paused: feed, stream and permit creation answer 503", () =>
      Effect.gen(function*() {
        const route = yield* openRoute
        const store = yield* Store.Store
        const publisher = yield* Publisher.Publisher
        const url = yield* baseUrl
        const stream = sseReader(yield* Effect.promise(() => fetch(`${url}/api/v6/solver-feed/events`)))
        assert.strictEqual((yield* Effect.promise(() => stream.nextEvent()))?.event, "feed")
        yield* store.setPaused(true, "maintenance")
        yield* publisher.refresh
        const closed = yield* Effect.promise(() => stream.nextEvent())
        assert.strictEqual(closed?.event, "publication-closed")
        assert.deepStrictEqual(
          JSON.parse(closed!.data!),
          { error: "PUBLICATION_CLOSED" },
          "an SseErrorEvent has only error"
        )
        const feed = yield* get("/api/v6/solver-feed")
        assert.strictEqual(feed.status, 503)
        assertError(yield* json(feed), "PUBLICATION_CLOSED")
        const events = yield* get("/api/v6/solver-feed/events")
        assert.strictEqual(events.status, 503)
        yield* text(events)
        const permit = yield* post(
          "/api/v6/execution-permits",
          JSON.stringify(permitBody(route.quoteId, route.minimumFillInRaw, newKey()))
        )
        assert.strictEqual(permit.status, 503)
        yield* text(permit)
        yield* store.setPaused(false, null)
        yield* publisher.refresh
        assert.strictEqual((yield* get("/api/v6/solver-feed")).status, 200)
      }))
  }
)

layer(serverLayer(testConfig({ permitRateLimit: 2, permitRateWindowSeconds: 60 })), {
  excludeTestServices: true,
  timeout: scaled(60_000)
})(
  "rate limit",
  (it) => {
    it.effect("429 with Retry-After after the limit; a replay is still answered", () =>
      Effect.gen(function*() {
        const route = yield* openRoute
        const first = permitBody(route.quoteId, route.minimumFillInRaw, newKey())
        assert.strictEqual((yield* post("/api/v6/execution-permits", JSON.stringify(first))).status, 201)
        assert.strictEqual(
          (yield* post(
            "/api/v6/execution-permits",
            JSON.stringify(permitBody(route.quoteId, route.minimumFillInRaw, newKey()))
          )).status,
          201
        )
        const limited = yield* post(
          "/api/v6/execution-permits",
          JSON.stringify(permitBody(route.quoteId, route.minimumFillInRaw, newKey()))
        )
        assert.strictEqual(limited.status, 429)
        assert.match(limited.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/)
        assert.match(limited.headers.get("ratelimit-policy") ?? "", /q=2;w=60/)
        assertError(yield* json(limited), "RATE_LIMITED")
        // a completed replay is never limited
        assert.strictEqual((yield* post("/api/v6/execution-permits", JSON.stringify(first))).status, 200)
      }))
  }
)
