/**
 * A full run of `svc conformance` (`--coverage full`, the stateful sequences,
 * the cross-client checks) against `svc serve` started as docs/conformance.md,
 * "Settings for a full run", starts it: the demo catalog with a one-minute quote
 * window and a 60 s feed TTL, so that the time-dependent checks are decided
 * within `--wait 90`. Every check passes or is decided, but the chain group's,
 * which need `--rpc` (Chain.e2e.test.ts runs them). The run's duration is
 * printed (docs/benchmarks.md records it), not asserted.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { BIN, childEnv, ROOT, svc } from "../../packages/cli/test/support/svc.ts"
import { scaled } from "../../test/support/time.ts"
import type { Report } from "../src/Report.ts"

let dir: string
let server: ChildProcess | undefined
let url: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-full-run-"))
  const demo = readFileSync(join(ROOT, "packages/server/catalog/demo.json"), "utf8")
  const catalog = demo.replace("\"quoteWindowSeconds\": 86400", "\"quoteWindowSeconds\": 60")
  assert.notStrictEqual(catalog, demo, "the demo catalog's quote window is the one docs/conformance.md edits")
  writeFileSync(join(dir, "catalog.json"), catalog)
  const child = spawn(process.execPath, [BIN, "serve"], {
    env: childEnv({
      SVC_CATALOG: join(dir, "catalog.json"),
      SVC_FEED_TTL_SECONDS: "60",
      SVC_DATA_DIR: join(dir, "data"),
      PORT: "0"
    }),
    stdio: ["ignore", "pipe", "pipe"]
  })
  server = child
  url = await new Promise<string>((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const m = /svc listening on (\S+)/.exec(out)
      if (m !== null) resolve(m[1]!)
    })
    child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()))
    child.on("exit", (code) => reject(new Error(`svc serve exited ${code}:\n${out}`)))
  })
}, scaled(120_000))

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve))
    server.kill("SIGTERM")
    await Promise.race([exited, new Promise((r) => setTimeout(r, scaled(15_000)))])
    server.kill("SIGKILL")
  }
  if (process.env.SVC_KEEP_TEST_TMP !== "1") rmSync(dir, { recursive: true, force: true })
})

describe("a full conformance run against svc serve with the settings of a full run", () => {
  it("passes, every check decided but the chain group's (no --rpc)", async () => {
    const file = join(dir, "full.json")
    const started = Date.now()
    const ran = await svc([
      "conformance",
      "--url",
      url,
      "--coverage",
      "full",
      "--wait",
      "90",
      "--report",
      `json=${file}`
    ])
    console.log(`full run (--coverage full --wait 90): ${((Date.now() - started) / 1000).toFixed(1)} s`)
    assert.strictEqual(ran.code, 0, `${ran.stdout}\n${ran.stderr}`)
    const report = JSON.parse(readFileSync(file, "utf8")) as Report
    assert.strictEqual(report.options.coverage, "full")
    const undecided = report.results.filter((r) =>
      r.status === "failed" || r.status === "inconclusive" || r.status === "warning" ||
      (r.status === "skipped" && r.group !== "chain")
    )
    assert.deepStrictEqual(undecided.map((r) => `${r.name}: ${r.status} ${r.reason ?? ""}`), [])
    for (const group of ["coverage", "stateful", "clients"]) {
      assert.isTrue(report.results.some((r) => r.group === group && r.status === "passed"), group)
    }
  }, scaled(300_000))
})
