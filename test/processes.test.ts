/**
 * Every process a test starts is stopped when the test ends, however it ends
 * (test/support/processes.ts, process-cleanup.ts, process-run.ts). A child test
 * run (test/support/leak/) with the suite's setup starts processes in the ways
 * tests do (a child, a grandchild under a shell, an orphan whose shell exited, a
 * child with an environment of its own) from a test that times out, and from a
 * test whose worker is killed; the next test of the file finds none of the first
 * running, and when the child run has ended none of them runs.
 */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "vitest"
import { find, isRunning, SCOPE_VARIABLE } from "./support/processes.ts"
import { scaled } from "./support/time.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))

describe("processes of a test", () => {
  it("are found by the scope marker in their environment, orphans included, never this process", async () => {
    const scope = `probe-${process.pid}-${Date.now()};`
    const shell = spawn("sh", ["-c", `sleep 600 >/dev/null 2>&1 & echo $!`], {
      env: { ...process.env, [SCOPE_VARIABLE]: scope },
      stdio: ["ignore", "pipe", "ignore"]
    })
    let out = ""
    shell.stdout.on("data", (d) => (out += d))
    await new Promise((resolve) => shell.once("close", resolve))
    const sleeper = Number(out.trim())
    assert.isTrue(isRunning(sleeper))
    assert.deepStrictEqual(find(scope), [sleeper])
    assert.notInclude(find(undefined, [process.pid]), process.pid)
    process.kill(sleeper, "SIGKILL")
    for (let i = 0; i < 100 && isRunning(sleeper); i++) await new Promise((r) => setTimeout(r, 20))
    assert.isFalse(isRunning(sleeper))
    assert.deepStrictEqual(find(scope), [])
  })

  it("are stopped when their test times out, and when its worker is killed", { timeout: scaled(120_000) }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-leak-"))
    const run = spawn(
      process.execPath,
      [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--config", "test/support/leak/vitest.config.ts"],
      {
        cwd: ROOT,
        env: Object.fromEntries(
          Object.entries({ ...process.env, SVC_LEAK_DIR: dir, NO_COLOR: "1" }).filter(([k]) =>
            !k.startsWith("VITEST") && k !== "NODE_OPTIONS"
          )
        ),
        stdio: ["ignore", "pipe", "pipe"]
      }
    )
    let output = ""
    run.stdout.on("data", (d) => (output += d))
    run.stderr.on("data", (d) => (output += d))
    const code = await new Promise<number | null>((resolve) => run.once("close", resolve))
    // the child run failed: a test timed out, a worker died
    assert.notStrictEqual(code, 0, output)
    assert.match(output, /timed out in 3000ms/, output)
    const pids = readdirSync(dir).filter((f) => f.endsWith(".pid")).sort()
    assert.deepStrictEqual(pids, [
      "crash-child.pid",
      "timeout-bare-env.pid",
      "timeout-child.pid",
      "timeout-grandchild.pid",
      "timeout-orphan.pid"
    ])
    // the test after the one that timed out found none of its processes running
    assert.isTrue(existsSync(join(dir, "after-timeout.json")), output)
    const after = JSON.parse(readFileSync(join(dir, "after-timeout.json"), "utf8"))
    assert.strictEqual(after.pids.length, 4)
    assert.deepStrictEqual(after.running, [])
    // and once the run has ended, none runs (the worker's child too)
    const running = pids.map((f) => Number(readFileSync(join(dir, f), "utf8"))).filter(isRunning)
    assert.deepStrictEqual(running, [], output)
  })
})
