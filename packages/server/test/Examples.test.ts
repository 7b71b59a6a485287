/**
 * The examples of the documentation compile (tsc includes examples/) and run.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as Embed from "../../../examples/embed-core/solver.ts"

describe("docs/embedding.md", () => {
  it("shows the example exactly as it is in examples/embed-core/solver.ts", () => {
    const doc = readFileSync(new URL("../../../docs/embedding.md", import.meta.url), "utf8")
    const source = readFileSync(new URL("../../../examples/embed-core/solver.ts", import.meta.url), "utf8")
    const block = /<!-- example:embed-core -->\n```ts\n([\s\S]*?)```\n<!-- \/example -->/.exec(doc)
    assert.isNotNull(block, "docs/embedding.md must contain the example block")
    assert.strictEqual(block![1], source)
  })

  it.live(
    "the embedded solver serves a verifying feed and issues a permit at its own price",
    () =>
      Effect.gen(function*() {
        const result = yield* Embed.main
        assert.isTrue(result.feedValid)
        assert.strictEqual(result.status, 201)
        // oracle price (catalog price moved by 0..6 bps) minus 3 bps spread and the 5 bps fee, rounded down
        const amountIn = BigInt(result.amountInRaw)
        const out = BigInt(result.amountOutRaw)
        const atPar = amountIn * 10n ** 12n
        assert.isTrue(out <= (atPar * (10_000n - 8n)) / 10_000n)
        assert.isTrue(out >= (atPar * (10_000n - 14n)) / 10_000n)
        assert.strictEqual(result.evidence.spreadBps, 3)
      }),
    { timeout: 30_000 }
  )
})
