/**
 * Feed filters and the feed's per-client budget (issue #26, finding 6), over
 * real HTTP:
 *
 * - any positive `sourceChainId` is a valid filter, but a filter naming a chain
 *   or a network no route leaves from is the one empty view: one ETag, one
 *   cached (and compressed) answer, whatever value a client makes up;
 * - the filtered views kept per publication are bounded (entries and bytes);
 * - a client past its feed budget gets 503 `AUTHORITY_UNAVAILABLE`
 *   (`FEED_RATE_LIMITED`) with `Retry-After` (the interface lists no 429 for
 *   the feed), on the fast path and on the contract's handler, while other
 *   clients are served.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Publisher, Signer } from "@svc/core"
import { SqliteStore } from "@svc/store"
import { Context, Effect, Exit, Layer, Redacted, References, Scope } from "effect"
import { createServer } from "node:http"
import { generateCatalog } from "../../../scripts/bench/catalog.ts"
import { scaled } from "../../../test/support/time.ts"
import * as App from "../src/App.ts"
import { AUTHORITY_KEY, baseUrl, serverLayer, testConfig } from "./support/server.ts"
import { get } from "./support/sockets.ts"

const catalog = generateCatalog(200)

const feed = (base: string, query: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/api/v6/solver-feed${query}`, { headers })
    const body = response.status === 304 ? "" : await response.text()
    return { status: response.status, etag: response.headers.get("etag"), body, headers: response.headers }
  })

layer(serverLayer(testConfig({ feedRateLimit: null }), catalog), {
  excludeTestServices: true,
  timeout: scaled(60_000)
})(
  "filters naming no network of the routes",
  (it) => {
    it.effect("are one empty view: one ETag and one cached answer for every made-up value", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const all = JSON.parse((yield* feed(base, "")).body)
        const chains = new Set(all.feed.routes.map((r: any) => r.sourceChainId))
        const made = ["7", "123456789", "98765432109876543210", "424242"].filter((c) => !chains.has(c))
        const answers = []
        for (const chainId of made) {
          answers.push(yield* feed(base, `?sourceChainId=${chainId}`, { "accept-encoding": "br" }))
        }
        answers.push(yield* feed(base, `?sourceNetworkId=0x${"ab".repeat(32)}`, { "accept-encoding": "br" }))
        // a known chain with an unknown network: still no route
        answers.push(
          yield* feed(base, `?sourceChainId=${all.feed.routes[0].sourceChainId}&sourceNetworkId=0x${"cd".repeat(32)}`, {
            "accept-encoding": "br"
          })
        )
        for (const answer of answers) assert.strictEqual(answer.status, 200)
        assert.strictEqual(new Set(answers.map((a) => a.etag)).size, 1, "one ETag")
        assert.strictEqual(new Set(answers.map((a) => a.body)).size, 1, "the same bytes")
        // the view is empty, the signed payload complete
        const plain = JSON.parse((yield* feed(base, "?sourceChainId=7")).body)
        assert.strictEqual(plain.feed.returnedRouteCount, 0)
        assert.deepStrictEqual(plain.feed.routes, [])
        assert.strictEqual(plain.feed.signedPayload.routes.length, all.feed.signedPayload.routes.length)
        // the ETag of one made-up filter revalidates another
        const revalidated = yield* feed(base, "?sourceChainId=99999", { "if-none-match": answers[0]!.etag! })
        assert.strictEqual(revalidated.status, 304)
        // a filter of a real network is its own view
        const real = yield* feed(base, `?sourceChainId=${all.feed.routes[0].sourceChainId}`)
        assert.notStrictEqual(real.etag, answers[0]!.etag)
        assert.isAbove(JSON.parse(real.body).feed.returnedRouteCount, 0)
      }))

    it.effect("the publication answers every such filter with one view object", () =>
      Effect.gen(function*() {
        const publication = yield* (yield* Publisher.Publisher).current
        const a = publication.view({ sourceChainId: "31337000" })
        const b = publication.view({ sourceChainId: "31337001" })
        const c = publication.view({ sourceNetworkId: `0x${"ef".repeat(32)}` })
        assert.strictEqual(a, b)
        assert.strictEqual(a, c)
        assert.strictEqual(a.filterKey, Publisher.EMPTY_VIEW_KEY)
        assert.strictEqual(a.returnedRouteCount, 0)
      }))
  }
)

describe("the view cache", () => {
  it("keeps at most viewCacheEntries filtered views per publication", { timeout: scaled(60_000) }, async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const context = await Effect.runPromise(Layer.buildWithScope(
        App.layer({ catalog, engine: { publisher: { tickMillis: 60_000, viewCacheEntries: 3 } } }).pipe(
          Layer.provideMerge(Layer.mergeAll(
            SqliteStore.layer({ filename: ":memory:" }),
            Layer.succeed(Signer.Signer, Signer.fromPrivateKey(Redacted.make(AUTHORITY_KEY))),
            NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })
          )),
          Layer.provide(Layer.succeed(References.MinimumLogLevel, "None"))
        ),
        scope
      ))
      const publication = await Effect.runPromise(Context.get(context, Publisher.Publisher).current)
      const chains = [...new Set(publication.routes.flatMap((r) => r.sourceChainId === null ? [] : [r.sourceChainId]))]
      assert.isAtLeast(chains.length, 5)
      const first = publication.view({ sourceChainId: chains[0] })
      assert.strictEqual(publication.view({ sourceChainId: chains[0] }), first, "cached")
      for (const chainId of chains.slice(1, 4)) publication.view({ sourceChainId: chainId })
      // three views were asked for since: the first is no longer kept (rendered again, equal bytes)
      const again = publication.view({ sourceChainId: chains[0] })
      assert.notStrictEqual(again, first)
      assert.deepStrictEqual(again.body, first.body)
      assert.strictEqual(publication.view({ sourceChainId: chains[3] }), publication.view({ sourceChainId: chains[3] }))
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})

const assertOverBudget = (answer: { status: number; body: string; headers: Headers }, limit: number) => {
  assert.strictEqual(answer.status, 503)
  const body = JSON.parse(answer.body)
  assert.strictEqual(body.error, "AUTHORITY_UNAVAILABLE")
  assert.deepStrictEqual(body.reasonCodes, ["FEED_RATE_LIMITED"])
  assert.match(answer.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/)
  assert.strictEqual(answer.headers.get("ratelimit-policy"), `"feed";q=${limit};w=60`)
  assert.strictEqual(answer.headers.get("cache-control"), "no-store")
}

layer(serverLayer(testConfig({ feedRateLimit: 5, feedRateWindowSeconds: 60 })), {
  excludeTestServices: true,
  timeout: scaled(60_000)
})("the feed budget (fast path)", (it) => {
  it.effect("a client past its budget gets 503 FEED_RATE_LIMITED with Retry-After; another client is served", () =>
    Effect.gen(function*() {
      const port = Number(new URL(yield* baseUrl).port)
      yield* Effect.promise(async () => {
        const statuses: Array<number> = []
        for (let i = 0; i < 5; i++) statuses.push((await get(port, "/api/v6/solver-feed", "127.0.0.61")).status)
        assert.deepStrictEqual(statuses, [200, 200, 200, 200, 200])
        const over = await get(port, "/api/v6/solver-feed?sourceChainId=8453", "127.0.0.61")
        assertOverBudget({
          status: over.status,
          body: over.body,
          headers: new Headers(over.headers as Record<string, string>)
        }, 5)
        // 60 s / 5: one request back every 12 s
        assert.isAtMost(Number(over.headers["retry-after"]), 12)
        assert.strictEqual((await get(port, "/api/v6/solver-feed", "127.0.0.62")).status, 200)
      })
    }))
})

describe("the feed budget (contract handler, no fast path)", () => {
  it("refuses the same way", { timeout: scaled(60_000) }, async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const context = await Effect.runPromise(Layer.buildWithScope(
        App.layer({
          catalog,
          engine: { publisher: { tickMillis: 60_000 } },
          feedBudget: { limit: 2, windowSeconds: 60 }
        }).pipe(
          Layer.provideMerge(Layer.mergeAll(
            SqliteStore.layer({ filename: ":memory:" }),
            Layer.succeed(Signer.Signer, Signer.fromPrivateKey(Redacted.make(AUTHORITY_KEY))),
            NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })
          )),
          Layer.provide(Layer.succeed(References.MinimumLogLevel, "None"))
        ),
        scope
      ))
      const base = Context.get(context, App.AppControl).publicUrl
      const statuses = []
      for (let i = 0; i < 2; i++) statuses.push((await Effect.runPromise(feed(base, ""))).status)
      assert.deepStrictEqual(statuses, [200, 200])
      assertOverBudget(await Effect.runPromise(feed(base, "")), 2)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})
