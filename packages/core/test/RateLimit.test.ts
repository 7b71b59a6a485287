/**
 * The limiter over effect's `RateLimiter` (`RateLimit.makeShared`), on effect's
 * in-memory store under the TestClock (the Redis store runs the same algorithm
 * in Lua; packages/server/test/SharedRateLimits.test.ts runs it on Redis): the
 * fixed window with its remaining, reset and Retry-After figures, one budget per
 * client and name, and a failing or silent store as `StoreUnavailable`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { RateLimiter } from "effect/persistence"
import { TestClock } from "effect/testing"
import * as RateLimit from "../src/RateLimit.ts"

const memoryLimiter = Effect.service(RateLimiter.RateLimiter).pipe(
  Effect.provide(RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory)))
)

/** A RateLimiter whose every consume is `consume`. */
const stub = (consume: RateLimiter.RateLimiter["consume"]): RateLimiter.RateLimiter => ({
  [RateLimiter.TypeId]: RateLimiter.TypeId,
  consume,
  adaptiveConsume: () => Effect.die("unused"),
  adaptiveFeedback: () => Effect.void
})

describe("RateLimit.makeShared", () => {
  it.effect("admits `limit` requests per window, then refuses until the window closes", () =>
    Effect.gen(function*() {
      const store = yield* memoryLimiter
      const limiter = RateLimit.makeShared(store, { limit: 3, windowSeconds: 60 })
      const admitted = []
      for (let i = 0; i < 3; i++) admitted.push(yield* limiter.consume("198.51.100.1"))
      // each admitted request extends the window by window / limit
      assert.deepStrictEqual(admitted.map((a) => [a.remaining, a.resetSeconds]), [[2, 20], [1, 40], [0, 60]])
      assert.deepStrictEqual([admitted[0]!.limit, admitted[0]!.windowSeconds], [3, 60])
      const refused = yield* Effect.flip(limiter.consume("198.51.100.1"))
      assert.isFalse(RateLimit.isStoreUnavailable(refused))
      assert.deepStrictEqual(refused, { retryAfterSeconds: 60, limit: 3, windowSeconds: 60 })

      // another client, and another budget name on the same store, count apart
      assert.strictEqual((yield* limiter.consume("198.51.100.2")).remaining, 2)
      const other = RateLimit.makeShared(store, { name: "v1-requests", limit: 3, windowSeconds: 60 })
      assert.strictEqual((yield* other.consume("198.51.100.1")).remaining, 2)

      // a refusal does not extend the window: the budget comes back whole when it closes
      yield* TestClock.adjust("59 seconds")
      const late = yield* Effect.flip(limiter.consume("198.51.100.1"))
      assert.strictEqual((late as RateLimit.Limited).retryAfterSeconds, 1)
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* limiter.consume("198.51.100.1")).remaining, 2)
    }))

  it.effect("a failing store: StoreUnavailable with the configured Retry-After, never an admission", () =>
    Effect.gen(function*() {
      const failing = stub(() =>
        Effect.fail(
          new RateLimiter.RateLimiterError({
            reason: new RateLimiter.RateLimitStoreError({ message: "connection refused (test)" })
          })
        )
      )
      const limiter = RateLimit.makeShared(failing, { unavailableRetryAfterSeconds: 7 })
      const refused = yield* Effect.flip(limiter.consume("198.51.100.1"))
      assert.isTrue(RateLimit.isStoreUnavailable(refused))
      assert.strictEqual((refused as RateLimit.StoreUnavailable).retryAfterSeconds, 7)
      assert.strictEqual((refused as RateLimit.StoreUnavailable).message, "connection refused (test)")
    }))

  it.effect("a store that does not answer: StoreUnavailable after timeoutMillis", () =>
    Effect.gen(function*() {
      const limiter = RateLimit.makeShared(stub(() => Effect.never), { timeoutMillis: 1000 })
      const fiber = yield* Effect.forkChild(Effect.flip(limiter.consume("198.51.100.1")))
      yield* TestClock.adjust("999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const refused = yield* Fiber.join(fiber)
      assert.isTrue(RateLimit.isStoreUnavailable(refused))
      assert.strictEqual((refused as RateLimit.StoreUnavailable).retryAfterSeconds, 5)
      assert.match((refused as RateLimit.StoreUnavailable).message, /no answer within 1000 ms/)
    }))
})

describe("RateLimit.makeMemory across windows", () => {
  it.effect("a sliding window: the previous window's count weighs on the next one until it has slid past", () =>
    Effect.gen(function*() {
      const limiter = RateLimit.makeMemory({ limit: 10, windowSeconds: 60 })
      const admitted = (n: number) =>
        Effect.forEach(Array.from({ length: n }), () => limiter.consume("client"), { discard: true })
      const refusal = Effect.flip(limiter.consume("client"))

      yield* admitted(10)
      assert.strictEqual((yield* refusal).retryAfterSeconds, 60, "the first window is full")
      // the next window starts: the previous one still counts fully (weight 1)
      yield* TestClock.adjust("60 seconds")
      const slid = yield* refusal
      assert.strictEqual(slid.retryAfterSeconds, 6, "one request slides in after a tenth of the window")
      yield* TestClock.adjust("6 seconds")
      const one = yield* limiter.consume("client")
      assert.strictEqual(one.remaining, 0)
      yield* refusal
      // a window later only that one request weighs: nine more are admitted
      yield* TestClock.adjust("54 seconds")
      yield* admitted(9)
      yield* refusal
      // after two quiet windows nothing weighs any more; another client was never affected
      yield* TestClock.adjust("130 seconds")
      yield* admitted(10)
      assert.strictEqual((yield* limiter.consume("other")).remaining, 9)
    }))
})
