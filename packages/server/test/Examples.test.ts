/**
 * The examples of the documentation compile (tsc includes examples/) and run.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { onTestFinished } from "vitest"
import * as Embed from "../../../examples/embed-core/solver.ts"
import { scaled } from "../../../test/support/time.ts"

/** The example's data folders in the temporary directory. */
const embedFolders = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("svc-embed-")))

describe("docs/embedding.md", () => {
  it("shows the example exactly as it is in examples/embed-core/solver.ts", () => {
    const doc = readFileSync(new URL("../../../docs/embedding.md", import.meta.url), "utf8")
    const source = readFileSync(new URL("../../../examples/embed-core/solver.ts", import.meta.url), "utf8")
    const block = /<!-- example:embed-core -->\n```ts\n([\s\S]*?)```\n<!-- \/example -->/.exec(doc)
    assert.isNotNull(block, "docs/embedding.md must contain the example block")
    assert.strictEqual(block![1], source)
  })

  it("runs as a long-running process: ready on /health/ready, and SIGTERM closes it cleanly (exit 0)", {
    timeout: scaled(60_000)
  }, async () => {
    const root = fileURLToPath(new URL("../../../", import.meta.url))
    const dataDir = mkdtempSync(join(tmpdir(), "svc-example-serve-"))
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }))
    const child = spawn(join(root, "node_modules/.bin/node"), [join(root, "examples/embed-core/solver.ts")], {
      cwd: root,
      env: { ...process.env, PORT: "0", SVC_DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    child.stdout!.on("data", (d) => (out += d))
    child.stderr!.on("data", (d) => (out += d))
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    const deadline = Date.now() + 30_000
    while (!/solver listening on (\S+);/.test(out) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100))
    }
    const url = /solver listening on (\S+);/.exec(out)?.[1]
    assert.isDefined(url, out)
    assert.match(out, /"ready":true/)
    const health = await fetch(`${url}/health/ready`)
    assert.strictEqual(health.status, 200)
    child.kill("SIGTERM")
    assert.strictEqual(await exited, 0)
    assert.match(out, /solver stopped/)
  })

  it.live(
    "the embedded solver serves a verifying feed and issues a permit at its own price",
    () =>
      Effect.gen(function*() {
        const before = embedFolders()
        const result = yield* Embed.main
        // the example removes its data folder when it ends
        assert.deepStrictEqual([...embedFolders()].filter((name) => !before.has(name)), [])
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
    { timeout: scaled(30_000) }
  )
})
