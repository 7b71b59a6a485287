import { assert, describe, it, layer } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { scaled } from "../../test/support/time.ts"
import * as Registry from "../src/Registry.ts"
import type { Report } from "../src/Report.ts"
import { cli } from "./support/cli.ts"
import { Deployment, explain, failed, layer as deployment, run } from "./support/harness.ts"
import { assertRendered } from "./support/render.ts"
import { variants } from "./support/variants.ts"

/** Test time-outs, stretched on a loaded machine (test/support/time.ts). */
const T60S = scaled(60_000)
const T120S = scaled(120_000)

/** Which checks caught each variant (filled as the tests run; written out at the end). */
const caught: Array<
  { variant: string; breaks: string; writtenFor: ReadonlyArray<string>; caughtBy: ReadonlyArray<string> }
> = []

const SMOKE = ["discovery_solver_manifest", "feed_schema_strict"]

const warned = (report: Report) => report.results.filter((r) => r.status === "warning").map((r) => r.name)

describe("the broken-variant catalog", () => {
  describe("is well formed", () => {
    for (const v of variants) {
      for (const name of [...v.caughtBy, ...(v.warnedBy ?? [])]) {
        it(`${v.name} names the existing check ${name}`, () => assert.isDefined(Registry.find(name)))
      }
    }
  })
})

layer(deployment, { excludeTestServices: true, timeout: T120S })("broken variants of our real server", (it) => {
  for (const variant of variants) {
    const named = [...variant.caughtBy, ...(variant.warnedBy ?? [])]
    it.effect(
      `${variant.name}: ${variant.caughtBy.length > 0 ? "caught" : "warned"} by ${named.join(", ")}`,
      () =>
        Effect.gen(function*() {
          const d = yield* Deployment
          const groups = variant.groups ?? [...new Set(named.map((n) => Registry.find(n)!.group))]
          const smoke = SMOKE.find((s) => !groups.includes(Registry.find(s)!.group))!
          d.proxy.setVariant(variant)
          try {
            if (variant.arm !== undefined) yield* Effect.promise(() => variant.arm!(d.proxy.context()))
            // a variant's checks are expected to fail: a short "sent immediately" budget only makes them fail sooner
            const report = yield* run({ only: [...groups, smoke], immediateMillis: 1000, ...variant.options })
            const failing = failed(report)
            caught.push({
              variant: variant.name,
              breaks: variant.breaks,
              writtenFor: named,
              caughtBy: [...failing, ...warned(report).map((w) => `${w} (warning)`)]
            })
            for (const name of variant.caughtBy) {
              assert.include(failing, name, `${variant.name} was not caught by ${name}:\n${explain(report)}`)
            }
            for (const name of variant.warnedBy ?? []) {
              assert.include(
                warned(report),
                name,
                `${variant.name} was not reported as a warning by ${name}:\n${explain(report)}`
              )
            }
            if (variant.only === true) {
              // caught only by the checks of its rule: nothing else in its groups fails or warns
              assert.deepStrictEqual(
                [...failing].sort(),
                [...variant.caughtBy].sort(),
                `${variant.name}:\n${explain(report)}`
              )
              assert.deepStrictEqual(
                [...warned(report)].sort(),
                [...(variant.warnedBy ?? [])].sort(),
                `${variant.name}:\n${explain(report)}`
              )
            }
            const smokeResult = report.results.find((r) => r.name === smoke)!
            assert.strictEqual(
              smokeResult.status,
              "passed",
              `the smoke check failed, the variant broke more than one behaviour:\n${explain(report)}`
            )
            // every report format renders every verdict of this run
            assertRendered(report, variant.name)
          } finally {
            d.proxy.setVariant(undefined)
          }
        }),
      { timeout: T60S }
    )
  }

  it.effect("--strict fails what is a warning otherwise (a departure from svc's profile)", () =>
    Effect.gen(function*() {
      const d = yield* Deployment
      d.proxy.setVariant(variants.find((v) => v.name === "profile-text-plain-accepted"))
      try {
        const report = yield* run({ only: ["coverage_content_type"], strict: true })
        const result = report.results.find((r) => r.name === "coverage_content_type")!
        assert.strictEqual(result.status, "failed", explain(report))
        assert.match(result.failures[0]!.title, /a warning, failed by --strict/)
        assert.isTrue(report.options.strict)
      } finally {
        d.proxy.setVariant(undefined)
      }
    }))

  it.effect(
    "a stateful failure is replayed by svc conformance replay: the same shortest sequence, at the first run",
    () =>
      Effect.gen(function*() {
        const d = yield* Deployment
        const variant = variants.find((v) => v.name === "replay-forgets-older-keys")!
        const file = join(tmpdir(), `svc-conformance-stateful-${process.pid}.json`)
        d.proxy.setVariant(variant)
        try {
          const report = yield* run({ only: ["stateful_permit_life"], reports: { json: file }, ...variant.options })
          const first = report.results.find((r) => r.name === "stateful_permit_life")!
          assert.strictEqual(first.status, "failed", explain(report))
          const sequence = first.details?.sequence
          assert.isDefined(sequence)
          assert.isDefined(first.details?.["replay.replayPath"])
          // the recorded seed, path and replay path run that sequence again, and only it
          const replay = yield* cli(["replay", file, "--timeout", "3"]).pipe(
            Effect.provideService(Clock.Clock, d.clock)
          )
          assert.include(JSON.stringify(replay.exit), "Failed", replay.text)
          assert.include(replay.text, "still failing: stateful_permit_life")
          assert.include(replay.text, `sequence: ${sequence}`)
          assert.include(replay.text, "sequences: 1 run(s)")
        } finally {
          d.proxy.setVariant(undefined)
        }
      }),
    { timeout: T60S }
  )

  it.effect("every check of the registry is written against at least one variant", () =>
    Effect.sync(() => {
      const covered = new Set(variants.flatMap((v) => [...v.caughtBy, ...(v.warnedBy ?? [])]))
      // the chain group reads chains, not HTTP: its broken variants are chains and routers (Chain.e2e.test.ts);
      // the proxy group judges live traffic: its variants are the catalog's, behind the proxy (Proxy.test.ts)
      const missing = Registry.all.filter((c) => c.group !== "chain" && c.group !== "proxy" && !covered.has(c.name))
        .map((c) => c.name)
      assert.deepStrictEqual(missing, [])
    }))

  it.effect("the catalog report lists which checks caught each variant", () =>
    Effect.sync(() => {
      const lines = [
        "| variant | breaks | written for | caught by |",
        "|---|---|---|---|",
        ...caught.map((c) => `| ${c.variant} | ${c.breaks} | ${c.writtenFor.join(", ")} | ${c.caughtBy.join(", ")} |`)
      ]
      const file = process.env.SVC_CATALOG_REPORT ?? join(tmpdir(), "svc-conformance-catalog.md")
      writeFileSync(file, `${lines.join("\n")}\n`)
      assert.strictEqual(caught.length, variants.length)
    }))
})
