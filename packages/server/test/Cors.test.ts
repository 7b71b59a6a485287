/**
 * CORS over HTTP (docs/operations.md, CORS): preflights allow the documented
 * request headers, `X-Svc-Sdk`, and echo other plain headers except credential,
 * browser-reserved and client-address ones; actual responses (the fast-path
 * feed, the Effect path, the event stream, errors, `/v1` with its Origin
 * allow-list, the `/docs` assets) carry `Access-Control-Allow-Origin: *` and the
 * exposed headers. The browser side is in DocsPage.browser.e2e.test.ts.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Signature } from "@svc/protocol"
import { Effect } from "effect"
import { scaled } from "../../../test/support/time.ts"
import * as Http from "../src/Http.ts"
import { baseUrl, PAYER_KEY, serverLayer, testConfig } from "./support/server.ts"

const ORIGIN = "https://wallet.example"
const SDK = { "x-svc-sdk": "typescript/0.1.0" }

const call = (path: string, init?: RequestInit) =>
  Effect.flatMap(baseUrl, (url) => Effect.promise(() => fetch(`${url}${path}`, init)))

const preflight = (path: string, method: string, requested?: string, origin = ORIGIN) =>
  call(path, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      ...(requested === undefined ? {} : { "access-control-request-headers": requested })
    }
  })

const allowedHeaders = (response: Response) =>
  (response.headers.get("access-control-allow-headers") ?? "").split(",").map((h) => h.trim().toLowerCase())

const exposed = (response: Response) =>
  (response.headers.get("access-control-expose-headers") ?? "").split(",").map((h) => h.trim().toLowerCase())

/** Every response a browser reads: any origin, and the headers a client needs exposed. */
const assertCors = (response: Response, what: string) => {
  assert.strictEqual(response.headers.get("access-control-allow-origin"), "*", what)
  assert.isNull(response.headers.get("access-control-allow-credentials"), what)
  for (const name of ["etag", "retry-after", "ratelimit", "ratelimit-policy", "x-request-id"]) {
    assert.include(exposed(response), name, what)
  }
}

describe("preflightHeaders", () => {
  it("documented headers always; plain requested headers echoed; credential, Sec-, proxy and address headers never", () => {
    const base = Http.preflightHeaders(undefined)["access-control-allow-headers"]
    assert.strictEqual(base, "Content-Type, Idempotency-Key, If-None-Match, Last-Event-ID, X-Request-Id, X-Svc-Sdk")
    const echoed = Http.preflightHeaders(
      "x-svc-sdk, Content-Type, X-Trace-Token, authorization, Cookie, proxy-authorization, sec-ch-ua, forwarded, " +
        "x-forwarded-for, x-real-ip, bad header, x-ünicode, x-trace-token"
    )["access-control-allow-headers"]
    assert.strictEqual(echoed, `${base}, x-trace-token`)
    const many = Array.from({ length: 40 }, (_, i) => `x-h${i}`).join(",")
    assert.strictEqual(
      Http.preflightHeaders(many)["access-control-allow-headers"]!.split(", ").length,
      Http.CORS_REQUEST_HEADERS.length + 16
    )
    assert.strictEqual(Http.preflightHeaders("x-a")["vary"], "Access-Control-Request-Headers")
  })
})

layer(serverLayer(testConfig({ aggregatorOrigins: [ORIGIN] })), { excludeTestServices: true, timeout: scaled(60_000) })(
  "CORS",
  (it) => {
    it.effect("preflights allow x-svc-sdk with content-type, for the feed, permits and /v1", () =>
      Effect.gen(function*() {
        for (
          const [path, method, requested] of [
            ["/api/v6/solver-feed", "GET", "x-svc-sdk"],
            ["/api/v6/solver-feed/events", "GET", "x-svc-sdk, last-event-id"],
            ["/api/v6/execution-permits/request-message", "POST", "x-svc-sdk, content-type"],
            ["/api/v6/execution-permits", "POST", "content-type, idempotency-key, x-svc-sdk"],
            ["/v1/quote", "POST", "content-type, x-svc-sdk"]
          ] as const
        ) {
          const response = yield* preflight(path, method, requested)
          assert.strictEqual(response.status, 204, path)
          for (const name of requested.split(", ")) assert.include(allowedHeaders(response), name, path)
          assert.include(response.headers.get("access-control-allow-methods"), method, path)
          assert.strictEqual(response.headers.get("access-control-max-age"), "86400")
          assert.strictEqual(response.headers.get("vary"), "Access-Control-Request-Headers")
          assertCors(response, path)
        }
        // credentials are never allowed: the preflight does not list Authorization, and no credentials header
        const auth = yield* preflight("/api/v6/solver-feed", "GET", "authorization, x-svc-sdk")
        assert.notInclude(allowedHeaders(auth), "authorization")
        assert.include(allowedHeaders(auth), "x-svc-sdk")
        // an undeclared path is not preflighted
        assert.strictEqual((yield* preflight("/nope", "GET", "x-svc-sdk")).status, 404)
      }))

    it.effect("a GET with x-svc-sdk from an Origin: the fast-path feed, the handler's feed, the stream, documents", () =>
      Effect.gen(function*() {
        const feed = yield* call("/api/v6/solver-feed", { headers: { origin: ORIGIN, ...SDK } })
        assert.strictEqual(feed.status, 200)
        assertCors(feed, "fast-path feed")
        const etag = feed.headers.get("etag")!
        const notModified = yield* call("/api/v6/solver-feed", {
          headers: { origin: ORIGIN, ...SDK, "if-none-match": etag }
        })
        assert.strictEqual(notModified.status, 304)
        assertCors(notModified, "304")
        // a filtered feed with a parameter the fast path leaves to the Effect handler
        const filtered = yield* call("/api/v6/solver-feed?sourceChainId=8453&sourceChainId=1", {
          headers: { origin: ORIGIN, ...SDK }
        })
        assert.strictEqual(filtered.status, 400)
        assertCors(filtered, "handler feed error")
        const handled = yield* call("/api/v6/solver-feed?sourceChainId=8453", { headers: { origin: ORIGIN, ...SDK } })
        assert.strictEqual(handled.status, 200)
        assertCors(handled, "feed with a filter")
        const controller = new AbortController()
        const stream = yield* call("/api/v6/solver-feed/events", {
          headers: { origin: ORIGIN, ...SDK },
          signal: controller.signal
        })
        assert.strictEqual(stream.status, 200)
        assertCors(stream, "event stream")
        controller.abort()
        for (const path of ["/.well-known/svc-solver.json", "/openapi.json", "/docs", "/health/live", "/nope"]) {
          assertCors(yield* call(path, { headers: { origin: ORIGIN, ...SDK } }), path)
        }
      }))

    it.effect("a POST with x-svc-sdk: the permit request message", () =>
      Effect.gen(function*() {
        const feed = yield* call("/api/v6/solver-feed")
        const body = (yield* Effect.promise(() => feed.json())) as any
        const route = body.feed.openRoutes.find((r: any) => r.sourceChainId === "8453")
        const payer = Signature.addressOf(PAYER_KEY)
        const response = yield* call("/api/v6/execution-permits/request-message", {
          method: "POST",
          headers: { origin: ORIGIN, ...SDK, "content-type": "application/json" },
          body: JSON.stringify({
            quoteId: route.quoteId,
            requestedAmountInRaw: route.minimumFillInRaw,
            payer,
            recipient: payer,
            idempotencyKey: "svc-cors-test-0001"
          })
        })
        assert.strictEqual(response.status, 200)
        assert.strictEqual(((yield* Effect.promise(() => response.json())) as any).ok, true)
        assertCors(response, "request-message")
      }))

    it.effect("/v1 with the Origin allow-list: the listed Origin passes with x-svc-sdk, another gets a readable 403", () =>
      Effect.gen(function*() {
        const allowed = yield* call("/v1/health", { headers: { origin: ORIGIN, ...SDK } })
        assert.strictEqual(allowed.status, 200)
        assertCors(allowed, "/v1 allowed")
        const chains = yield* call("/v1/chains", { headers: { origin: ORIGIN, ...SDK } })
        assert.strictEqual(chains.status, 200)
        assert.isNotNull(chains.headers.get("ratelimit"))
        assertCors(chains, "/v1/chains")
        // the preflight passes (it is the same for every origin); the request itself is refused with its code
        const evilPreflight = yield* preflight("/v1/health", "GET", "x-svc-sdk", "https://evil.example")
        assert.strictEqual(evilPreflight.status, 204)
        const refused = yield* call("/v1/health", { headers: { origin: "https://evil.example", ...SDK } })
        assert.strictEqual(refused.status, 403)
        assert.strictEqual(((yield* Effect.promise(() => refused.json())) as any).error, "ORIGIN_NOT_ALLOWED")
        assertCors(refused, "/v1 refused")
      }))

    it.effect("the /docs script: immutable, ETag and 304, brotli and gzip, CORS", () =>
      Effect.gen(function*() {
        const page = yield* call("/docs")
        const html = yield* Effect.promise(() => page.text())
        const src = /<script src="(docs\/scalar\.[A-Za-z0-9_-]+\.js)"><\/script>/.exec(html)![1]!
        for (const coding of ["br", "gzip", "identity"]) {
          const response = yield* call(`/${src}`, { headers: { "accept-encoding": coding } })
          assert.strictEqual(response.status, 200)
          assert.strictEqual(response.headers.get("cache-control"), "public, max-age=31536000, immutable")
          assert.match(response.headers.get("content-type") ?? "", /^text\/javascript/)
          assert.strictEqual(response.headers.get("content-encoding"), coding === "identity" ? null : coding)
          assertCors(response, coding)
          const text = yield* Effect.promise(() => response.text())
          assert.isAbove(text.length, 1_000_000)
          assert.include(text, "createApiReference")
        }
        const etag = (yield* call(`/${src}`, { method: "HEAD" })).headers.get("etag")!
        assert.strictEqual((yield* call(`/${src}`, { headers: { "if-none-match": etag } })).status, 304)
        assert.strictEqual((yield* call("/docs/scalar.0000000000000000.js")).status, 404)
        assert.strictEqual((yield* call(`/${src}`, { method: "POST" })).status, 404)
      }))
  }
)
