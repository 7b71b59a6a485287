/**
 * A stalled PostgreSQL (issue #26, finding 4): the database's connections stay
 * open but nothing comes back. Permit requests must not hang: every store call
 * on a request path is bounded, so they answer 503 `AUTHORITY_UNAVAILABLE` with
 * `STORE_UNAVAILABLE` and `Retry-After` within 2 s, never a 500; once the
 * database answers again, permits are issued again within seconds. The database
 * is reached through a TCP proxy that stalls on demand
 * (`support/stallProxy.ts`), in front of a fresh database on the local server.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { connect } from "node:net"
import { scaled } from "../../../test/support/time.ts"
import * as App from "../src/App.ts"
import { freshDatabase, signedRequest } from "./support/replicas.ts"
import { serverLayer, testConfig } from "./support/server.ts"
import * as StallProxy from "./support/stallProxy.ts"

const BASE = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test")
const target = { host: BASE.hostname || "127.0.0.1", port: Number(BASE.port || 5432) }

const reachable = await new Promise<boolean>((resolve) => {
  const socket = connect(target)
  const done = (ok: boolean) => {
    socket.destroy()
    resolve(ok)
  }
  socket.setTimeout(1500, () => done(false))
  socket.once("connect", () => done(true))
  socket.once("error", () => done(false))
})
const ci = process.env.CI !== undefined && !["", "0", "false"].includes(process.env.CI.trim().toLowerCase())

const timed = async (url: string, body: string) => {
  const started = performance.now()
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(6000)
    })
    const text = await response.text()
    return {
      status: response.status,
      ms: performance.now() - started,
      retryAfter: response.headers.get("retry-after"),
      body: JSON.parse(text) as { ok: boolean; error?: string; reasonCodes?: Array<string> }
    }
  } catch (error) {
    // no answer within 6 s
    return { status: 0, ms: performance.now() - started, retryAfter: null, body: { ok: false, error: String(error) } }
  }
}

describe("a stalled PostgreSQL", () => {
  it.skipIf(!reachable && !ci)(
    "permit requests answer 503 STORE_UNAVAILABLE within 2 s while it is stalled, and recover within seconds",
    { timeout: scaled(120_000) },
    async () => {
      const db = await freshDatabase("stall")
      const proxy = await StallProxy.start(target)
      const url = new URL(db.url)
      url.host = `127.0.0.1:${proxy.port}`
      const scope = Effect.runSync(Scope.make())
      try {
        const context = await Effect.runPromise(Layer.buildWithScope(
          serverLayer(testConfig({ databaseUrl: Option.some(Redacted.make(url.toString())) })),
          scope
        ))
        const base = Context.get(context as Context.Context<App.AppControl>, App.AppControl).publicUrl
        const feed = await (await fetch(`${base}/api/v6/solver-feed`)).json() as any
        const quoteId = feed.feed.openRoutes[0].quoteId as string
        const minimum = BigInt(feed.feed.openRoutes[0].minimumFillInRaw as string)
        let n = 0
        const request = () => signedRequest(quoteId, minimum.toString(), `stall-key-${n++}`)
        const permits = `${base}/api/v6/execution-permits`
        // warm: the pool has its connections
        assert.strictEqual((await timed(permits, request())).status, 201)

        proxy.stall()
        // more requests at once than the pool has connections (10), and then some more
        const first = await Promise.all(Array.from({ length: 14 }, () => timed(permits, request())))
        const second = await Promise.all(Array.from({ length: 4 }, () => timed(permits, request())))
        const message = await timed(
          `${base}/api/v6/execution-permits/request-message`,
          JSON.stringify({ ...JSON.parse(request()), requestSignature: undefined })
        )
        for (const answer of [...first, ...second, message]) {
          assert.strictEqual(answer.status, 503, JSON.stringify(answer))
          assert.strictEqual(answer.body.error, "AUTHORITY_UNAVAILABLE")
          assert.deepStrictEqual(answer.body.reasonCodes, ["STORE_UNAVAILABLE"])
          assert.isNotNull(answer.retryAfter)
          assert.isBelow(answer.ms, 2000, `answered in ${Math.round(answer.ms)} ms`)
        }

        proxy.resume()
        const resumed = Date.now()
        let recovered: number | undefined
        while (Date.now() - resumed < 15_000) {
          const answer = await timed(permits, request())
          assert.notStrictEqual(answer.status, 500)
          if (answer.status === 201) {
            recovered = Date.now() - resumed
            break
          }
          await new Promise((r) => setTimeout(r, 200))
        }
        assert.isDefined(recovered, "a permit is issued again within 15 s")
        assert.isBelow(recovered!, 10_000, `recovered after ${recovered} ms`)
      } finally {
        proxy.resume()
        await Effect.runPromise(Scope.close(scope, Exit.void))
        await proxy.close()
        await db.drop()
      }
    }
  )
})
