import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import * as Cli from "../src/Cli.ts"
import * as Registry from "../src/Registry.ts"
import type { Report } from "../src/Report.ts"
import * as Runner from "../src/Runner.ts"
import * as RunOptions from "../src/RunOptions.ts"
import * as Transport from "../src/Transport.ts"
import { explain, failed, shiftedClock, WALLET_KEY } from "./support/harness.ts"
import { bad, type BadRecording, good, OFFLINE_GROUPS, replayFetch } from "./support/recorded.ts"

const recording = good()

/** Runs the offline groups against a recording, at the recorded time. */
const replay = (overrides?: BadRecording) =>
  Effect.gen(function*() {
    const options = RunOptions.make({
      baseUrl: recording.origin,
      only: [...OFFLINE_GROUPS],
      seed: 1,
      walletKey: WALLET_KEY,
      timeoutSeconds: 3,
      quietMillis: 100
    })
    const clock = shiftedClock({ ms: recording.recordedAt + 2000 - Date.now() })
    return (yield* Runner.runScoped(Registry.all, []).pipe(
      Effect.provide(
        Transport.layer({ baseUrl: options.baseUrl, timeoutMs: 3000, fetch: replayFetch(recording, overrides) })
      ),
      Effect.provideService(RunOptions.Options, options),
      Effect.provideService(Clock.Clock, clock)
    )) as Report
  })

describe("golden HTTP fixtures (fixtures/http, recorded from our server)", () => {
  it.live("good.json passes every check of the offline groups", () =>
    Effect.gen(function*() {
      const report = yield* replay()
      assert.strictEqual(report.summary.failed, 0, explain(report))
      assert.strictEqual(report.summary.inconclusive, 0, explain(report))
      assert.isAbove(report.summary.passed, 40)
    }))

  for (const b of bad()) {
    it.live(`bad/${b.variant}.json (${b.breaks}) fails ${b.mustFail.join(", ")}`, () =>
      Effect.gen(function*() {
        const report = yield* replay(b)
        for (const name of b.mustFail) assert.include(failed(report), name, explain(report))
        // the failure carries the exchange that shows it, with a curl reproduction
        const result = report.results.find((r) => r.name === b.mustFail[0])!
        assert.isTrue(result.failures.some((f) =>
          f.curl !== undefined && f.curl.startsWith("curl ") || f.curl?.startsWith("{ printf") === true
        ))
      }))
  }

  it.live("the console shows a live line per group, the summary table, and each failure with expected, actual and curl", () =>
    Effect.gen(function*() {
      const overrides = bad().find((b) => b.variant === "feed-unsorted-canonical")!
      const options = RunOptions.make({
        baseUrl: recording.origin,
        only: ["feed", "discovery_solver_manifest"],
        seed: 1,
        walletKey: WALLET_KEY,
        timeoutSeconds: 3
      })
      let text = ""
      const report = yield* Cli.execute(options, {
        output: { write: (t) => void (text += t), tty: false, color: false },
        fetch: replayFetch(recording, overrides)
      }).pipe(
        Effect.provideService(Clock.Clock, shiftedClock({ ms: recording.recordedAt + 2000 - Date.now() })),
        Effect.provide(NodeServices.layer)
      )
      assert.deepStrictEqual(failed(report), ["feed_hash", "feed_signature"])
      assert.match(text, /^✗ feed +12 passed, 2 failed, 0 warnings, 0 inconclusive, 0 skipped/m)
      assert.match(text, /^✓ discovery +1 passed/m)
      assert.match(text, /group +passed +failed +warning +inconclusive +skipped/)
      assert.match(text, /^FAILED feed_hash \(feed\)/m)
      assert.match(text, /expected: 0x[0-9a-f]{64}/)
      assert.match(text, /keys unsorted/)
      assert.match(text, /reproduce: curl -sS -i .*\/api\/v6\/solver-feed/)
      assert.match(text, /^FAIL 13 passed, 2 failed/m)
    }))
})
