/**
 * Readiness names and checks every dependency the request path needs (issue
 * #26, finding 5): with `REDIS_URL`, permit creation and `/v1` depend on Redis
 * (they answer 503 without it), so `/health/ready` says 503 and names the
 * `rateLimiter` while Redis does not answer, and 200 again once it does.
 * Redis is reached through a TCP proxy that stalls on demand.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted, Scope } from "effect"
import { createClient } from "redis"
import { scaled } from "../../../test/support/time.ts"
import { build, serverLayer, testConfig } from "./support/server.ts"
import * as StallProxy from "./support/stallProxy.ts"

/** Test time-outs, stretched on a loaded machine (test/support/time.ts). */
const T60S = scaled(60_000)

const REDIS_URL = new URL(process.env.SVC_TEST_REDIS_URL ?? "redis://127.0.0.1:6379")
const prefix = `svc-test-ready-${process.pid}-${Math.random().toString(36).slice(2, 8)}:`

const json = async (url: string) => {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) })
  return { status: response.status, body: await response.json() as any }
}

const until = async <A>(f: () => Promise<A>, ok: (a: A) => boolean, ms: number): Promise<A> => {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await f()
    if (ok(value) || Date.now() > deadline) return value
    await new Promise((r) => setTimeout(r, 250))
  }
}

describe("readiness", () => {
  it("names the shared rate limiter (Redis), and is 503 while it does not answer", { timeout: T60S }, async () => {
    const proxy = await StallProxy.start({ host: REDIS_URL.hostname, port: Number(REDIS_URL.port || 6379) })
    const url = new URL(REDIS_URL)
    url.host = `127.0.0.1:${proxy.port}`
    const scope = Effect.runSync(Scope.make())
    try {
      const base = await Effect.runPromise(
        Scope.provide(scope)(build(serverLayer(testConfig({
          redisUrl: Redacted.make(url.toString()),
          redisPrefix: prefix
        })) as Layer.Layer<any, any, never>))
      )
      const ready = await json(`${base}/health/ready`)
      assert.strictEqual(ready.status, 200)
      assert.deepStrictEqual(ready.body.components.rateLimiter, { status: "OK" })
      assert.isTrue(ready.body.ready)
      assert.deepStrictEqual((await json(`${base}/v1/health`)).body.components.rateLimiter, { status: "OK" })

      proxy.stall()
      const down = await until(() => json(`${base}/health/ready`), (r) => r.status === 503, 10_000)
      assert.strictEqual(down.status, 503)
      assert.isFalse(down.body.ready)
      assert.strictEqual(down.body.components.rateLimiter.status, "UNAVAILABLE")
      assert.strictEqual(down.body.components.store.status, "OK", "only the failing part is named")
      // what the readiness says is what the request path does
      const v1 = await json(`${base}/v1/chains`)
      assert.strictEqual(v1.status, 503)
      const health = await json(`${base}/v1/health`)
      assert.strictEqual(health.status, 200)
      assert.strictEqual(health.body.status, "DEGRADED")
      assert.strictEqual(health.body.components.rateLimiter.status, "UNAVAILABLE")

      proxy.resume()
      const back = await until(() => json(`${base}/health/ready`), (r) => r.status === 200, 15_000)
      assert.strictEqual(back.status, 200)
      assert.deepStrictEqual(back.body.components.rateLimiter, { status: "OK" })
    } finally {
      proxy.resume()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      await proxy.close()
      const client = createClient({ url: REDIS_URL.toString() })
      await client.connect()
      const keys = await client.keys(`${prefix}*`)
      if (keys.length > 0) await client.del(keys)
      await client.close()
    }
  })

  it("without REDIS_URL there is no rate-limiter component (limits in memory)", { timeout: T60S }, async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const base = await Effect.runPromise(Scope.provide(scope)(build(serverLayer())))
      const ready = await json(`${base}/health/ready`)
      assert.strictEqual(ready.status, 200)
      assert.deepStrictEqual(Object.keys(ready.body.components).sort(), ["publication", "signer", "store"])
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})
