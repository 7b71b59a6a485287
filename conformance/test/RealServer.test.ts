import { assert, describe, layer } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { scaled } from "../../test/support/time.ts"
import { cli } from "./support/cli.ts"
import { Deployment, explain, failed, layer as deployment, run } from "./support/harness.ts"
import { variants } from "./support/variants.ts"

/** Test time-outs, stretched on a loaded machine (test/support/time.ts). */
const T60S = scaled(60_000)

layer(deployment, { excludeTestServices: true, timeout: T60S })("the full suite against our real server", (it) => {
  describe("replay", () => {
    it.effect(
      "re-runs the failed checks of a JSON report: still failing on the broken server, fixed on the real one",
      () =>
        Effect.gen(function*() {
          const d = yield* Deployment
          const file = join(tmpdir(), `svc-conformance-replay-${process.pid}.json`)
          d.proxy.setVariant(variants.find((v) => v.name === "feed-wrong-hash"))
          try {
            const report = yield* run({ only: ["feed"], reports: { json: file } })
            assert.deepStrictEqual(failed(report), ["feed_hash"])
            const written = JSON.parse(readFileSync(file, "utf8"))
            assert.strictEqual(written.results.find((r: any) => r.name === "feed_hash").status, "failed")
            const broken = yield* cli(["replay", file, "--timeout", "3"]).pipe(
              Effect.provideService(Clock.Clock, d.clock)
            )
            assert.include(JSON.stringify(broken.exit), "Failed")
            assert.include(broken.text, "still failing: feed_hash")
          } finally {
            d.proxy.setVariant(undefined)
          }
          const repaired = yield* cli(["replay", file, "--timeout", "3"]).pipe(
            Effect.provideService(Clock.Clock, d.clock)
          )
          assert.strictEqual(repaired.exit._tag, "Success", repaired.text)
          assert.include(repaired.text, "fixed: feed_hash")
        }),
      { timeout: T60S }
    )
  })

  describe("every check", () => {
    it.effect("passes, with the in-process triggers deciding the time-dependent ones", () =>
      Effect.gen(function*() {
        const report = yield* run()
        assert.strictEqual(report.summary.failed, 0, explain(report))
        assert.strictEqual(report.summary.inconclusive, 0, explain(report))
        // the chain group needs --rpc (it runs against the devnet in Chain.e2e.test.ts): it is reported skipped
        const skipped = report.results.filter((r) => r.status === "skipped" && r.group !== "chain")
        assert.deepStrictEqual(skipped.map((r) => `${r.name}: ${r.reason}`), [])
        for (const r of report.results.filter((x) => x.group === "chain")) {
          assert.strictEqual(r.status, "skipped", r.name)
          assert.match(r.reason ?? "", /^needs --rpc/, r.name)
        }
        assert.strictEqual(report.summary.total, report.results.length)
      }), { timeout: T60S })

    it.effect("--read-only skips exactly the checks that can create a permit", () =>
      Effect.gen(function*() {
        const report = yield* run({ readOnly: true, only: ["permits", "negative"] })
        assert.strictEqual(report.summary.failed, 0, explain(report))
        const skipped = report.results.filter((r) => r.status === "skipped").map((r) => r.name)
        assert.isTrue(skipped.includes("permit_create_201"))
        assert.isTrue(skipped.includes("negative_create_body"))
        assert.isFalse(skipped.includes("permit_request_message_bytes"))
      }), { timeout: T60S })
  })
})
