import { assert, describe, it } from "@effect/vitest"
import { StoreError, type StoreShape } from "@svc/core/Store"
import { Cause, Deferred, Effect, Exit, Fiber } from "effect"
import { StoreTimeouts } from "../src/index.ts"

/** A store of two operations that never answer (one a request waits for, one background), and one that does. */
const silentStore = (interrupted: Array<string>) =>
  ({
    kind: "silent",
    issuePermit: () => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => interrupted.push("issuePermit")))),
    // a driver that takes its time to give up a silent connection
    getPermit: () =>
      Effect.never.pipe(Effect.onInterrupt(() => Effect.andThen(Effect.sleep("5 seconds"), Effect.void))),
    prunePermits: () => Effect.never,
    nextDataVersion: Effect.succeed(7n)
  }) as unknown as StoreShape

describe("StoreTimeouts", () => {
  it.live("a call a request waits for fails with a StoreError (StoreTimeout) at its limit", () =>
    Effect.gen(function*() {
      const interrupted: Array<string> = []
      const store = StoreTimeouts.bounded(silentStore(interrupted), { requestMillis: 100, backgroundMillis: 5000 })
      const started = Date.now()
      const exit = yield* Effect.exit(store.issuePermit({} as never))
      const took = Date.now() - started
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(error, StoreError)
      assert.strictEqual((error as StoreError).operation, "issuePermit")
      assert.instanceOf((error as StoreError).cause, StoreTimeouts.StoreTimeout)
      assert.isAtLeast(took, 90)
      assert.isBelow(took, 1000)
      yield* Effect.sleep("20 millis")
      assert.deepStrictEqual(interrupted, ["issuePermit"], "the call itself is interrupted")
      // what needs no limit passes through
      assert.strictEqual(store.kind, "silent")
      assert.strictEqual(yield* store.nextDataVersion, 7n)
    }))

  it.live("the caller does not wait for a call's slow clean-up", () =>
    Effect.gen(function*() {
      const store = StoreTimeouts.bounded(silentStore([]), { requestMillis: 100 })
      const started = Date.now()
      yield* Effect.exit(store.getPermit("0x"))
      assert.isBelow(Date.now() - started, 1000, "not the 5 s the interrupted call takes to end")
    }))

  it.live("a busy database that keeps answering is waited for; a silent one is not", () =>
    Effect.gen(function*() {
      // a slow call (the last in a queue behind a row lock) while other calls keep completing
      const busy = {
        kind: "busy",
        issuePermit: () => Effect.as(Effect.sleep("600 millis"), "issued"),
        getPermit: () => Effect.as(Effect.sleep("20 millis"), undefined)
      } as unknown as StoreShape
      const store = StoreTimeouts.bounded(busy, { requestMillis: 200, requestHardMillis: 5000 })
      const others = yield* Effect.forkChild(
        Effect.repeat(store.getPermit("0x"), { times: 40 })
      )
      const started = Date.now()
      assert.strictEqual(yield* store.issuePermit({} as never), "issued" as never)
      assert.isAtLeast(Date.now() - started, 550, "waited past the 200 ms limit: the database was answering")
      yield* Fiber.interrupt(others)
      // nothing completes any more: the next slow call fails about 200 ms after the last answer
      const quiet = Date.now()
      const exit = yield* Effect.exit(store.issuePermit({} as never))
      assert.isTrue(Exit.isFailure(exit))
      assert.isBelow(Date.now() - quiet, 450)
    }))

  it.live("a call a request waits for never takes longer than its hard limit", () =>
    Effect.gen(function*() {
      const busy = {
        kind: "busy",
        issuePermit: () => Effect.never,
        getPermit: () => Effect.as(Effect.sleep("10 millis"), undefined)
      } as unknown as StoreShape
      const store = StoreTimeouts.bounded(busy, { requestMillis: 100, requestHardMillis: 400 })
      const others = yield* Effect.forkChild(Effect.forever(store.getPermit("0x")))
      const started = Date.now()
      const exit = yield* Effect.exit(store.issuePermit({} as never))
      yield* Fiber.interrupt(others)
      assert.isTrue(Exit.isFailure(exit))
      assert.isAtLeast(Date.now() - started, 380)
      assert.isBelow(Date.now() - started, 1000)
    }))

  it.live("other operations get the background limit", () =>
    Effect.gen(function*() {
      const store = StoreTimeouts.bounded(silentStore([]), { requestMillis: 50, backgroundMillis: 400 })
      const started = Date.now()
      const exit = yield* Effect.exit(store.prunePermits(0, 1))
      assert.isTrue(Exit.isFailure(exit))
      assert.isAtLeast(Date.now() - started, 380)
    }))

  it.live("a caller that is interrupted interrupts the call", () =>
    Effect.gen(function*() {
      const interrupted: Array<string> = []
      const store = StoreTimeouts.bounded(silentStore(interrupted), { requestMillis: 10_000 })
      const started = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(
        Effect.andThen(Deferred.succeed(started, undefined), store.issuePermit({} as never))
      )
      yield* Deferred.await(started)
      yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(fiber)
      yield* Effect.sleep("20 millis")
      assert.deepStrictEqual(interrupted, ["issuePermit"])
    }))
})
