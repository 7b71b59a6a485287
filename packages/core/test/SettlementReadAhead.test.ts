/**
 * A settlement pass reads ahead: the chain reads of its steps (inclusions of
 * payout transactions and source fills, simulations of the payouts to start)
 * are made several at a time before the steps run one by one, and each outcome,
 * a failure included, is replayed where the step needs it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { READ_AHEAD, readAhead } from "../src/internal/settlement.ts"

describe("settlement: reads ahead", () => {
  it.effect("reads overlap, READ_AHEAD at a time: 16 reads of one second each take two seconds", () =>
    Effect.gen(function*() {
      let running = 0
      let most = 0
      const read = (key: string) =>
        Effect.gen(function*() {
          running++
          most = Math.max(most, running)
          yield* Effect.sleep("1 second")
          running--
          return key.toUpperCase()
        })
      const keys = Array.from({ length: 2 * READ_AHEAD }, (_, i) => `0x${i}`)
      const fiber = yield* Effect.forkChild(readAhead(keys, read))
      yield* TestClock.adjust("2 seconds")
      const found = yield* Fiber.join(fiber)
      assert.strictEqual(most, READ_AHEAD)
      assert.strictEqual(found.size, keys.length)
      assert.deepStrictEqual(yield* found.get("0x3")!, "0X3")
    }))

  it.effect("a key is read once; a failed read is kept as that failure, not read again", () =>
    Effect.gen(function*() {
      const reads: Array<string> = []
      const read = (key: string) =>
        Effect.suspend(() => {
          reads.push(key)
          return key === "bad" ? Effect.fail(`${key} refused`) : Effect.succeed(key.length)
        })
      const found = yield* readAhead(["a", "bad", "a", "abc"], read)
      assert.deepStrictEqual(reads.sort(), ["a", "abc", "bad"])
      assert.deepStrictEqual(found.get("bad"), Exit.fail("bad refused"))
      assert.strictEqual(yield* Effect.flip(found.get("bad")!), "bad refused")
      assert.strictEqual(yield* found.get("abc")!, 3)
    }))
})
