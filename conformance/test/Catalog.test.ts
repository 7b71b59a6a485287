import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Registry from "../src/Registry.ts"
import { Deployment, explain, failed, layer as deployment, run } from "./support/harness.ts"
import { variants } from "./support/variants.ts"

/** Which checks caught each variant (filled as the tests run; written out at the end). */
const caught: Array<
  { variant: string; breaks: string; writtenFor: ReadonlyArray<string>; caughtBy: ReadonlyArray<string> }
> = []

const SMOKE = ["discovery_solver_manifest", "feed_schema_strict"]

describe("the broken-variant catalog", () => {
  describe("is well formed", () => {
    for (const v of variants) {
      for (const name of v.caughtBy) {
        it(`${v.name} names the existing check ${name}`, () => assert.isDefined(Registry.find(name)))
      }
    }
  })
})

layer(deployment, { excludeTestServices: true, timeout: 120_000 })("broken variants of our real server", (it) => {
  for (const variant of variants) {
    it.effect(`${variant.name}: caught by ${variant.caughtBy.join(", ")}`, () =>
      Effect.gen(function*() {
        const d = yield* Deployment
        const groups = variant.groups ?? [...new Set(variant.caughtBy.map((n) => Registry.find(n)!.group))]
        const smoke = SMOKE.find((s) => !groups.includes(Registry.find(s)!.group))!
        d.proxy.setVariant(variant)
        try {
          if (variant.arm !== undefined) yield* Effect.promise(() => variant.arm!(d.proxy.context()))
          // a variant's checks are expected to fail: a short "sent immediately" budget only makes them fail sooner
          const report = yield* run({ only: [...groups, smoke], immediateMillis: 1000 })
          const failing = failed(report)
          caught.push({
            variant: variant.name,
            breaks: variant.breaks,
            writtenFor: variant.caughtBy,
            caughtBy: failing
          })
          for (const name of variant.caughtBy) {
            assert.include(failing, name, `${variant.name} was not caught by ${name}:\n${explain(report)}`)
          }
          const smokeResult = report.results.find((r) => r.name === smoke)!
          assert.strictEqual(
            smokeResult.status,
            "passed",
            `the smoke check failed, the variant broke more than one behaviour:\n${explain(report)}`
          )
        } finally {
          d.proxy.setVariant(undefined)
        }
      }), { timeout: 60_000 })
  }

  it.effect("every check of the registry is written against at least one variant", () =>
    Effect.sync(() => {
      const covered = new Set(variants.flatMap((v) => v.caughtBy))
      // the chain group reads chains, not HTTP: its broken variants are chains and routers (Chain.e2e.test.ts)
      const missing = Registry.all.filter((c) => c.group !== "chain" && !covered.has(c.name)).map((c) => c.name)
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
