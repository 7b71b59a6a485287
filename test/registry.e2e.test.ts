/**
 * The local registry of the release rehearsal (scripts/registry.ts):
 *
 * - it serves `@svc/*` only from what was published to it: a package of the
 *   scope that nobody published here is a 404, and the registry never asks its
 *   uplink for it; anyone may publish to the scope with any token;
 * - it leaves nothing running however the process that started it ends: killed
 *   with SIGKILL (no `finally`, no exit hook runs), that process's registry exits
 *   by itself within seconds.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ROOT } from "../scripts/packages.ts"
import { startRegistry } from "../scripts/registry.ts"
import { scaled } from "./support/time.ts"

const running = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1")
    return !/^\S+ \(.*\) [ZX] /.test(stat)
  } catch {
    return false
  }
}

describe("the local registry", () => {
  it("serves @svc/* only from what was published to it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-registry-"))
    const registry = await startRegistry({ dir: join(dir, "registry") })
    try {
      const pkg = join(dir, "pkg")
      mkdirSync(pkg)
      writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@svc/registry-probe", version: "0.0.1" }))
      writeFileSync(join(dir, "npmrc"), `${registry.authLine}\n`)
      const env = { ...process.env, npm_config_userconfig: join(dir, "npmrc"), npm_config_registry: registry.url }
      const published = spawnSync("npm", ["publish", "--access", "public"], { cwd: pkg, env, encoding: "utf8" })
      assert.strictEqual(published.status, 0, published.stderr)
      const found = spawnSync("npm", ["view", "@svc/registry-probe", "version"], { cwd: dir, env, encoding: "utf8" })
      assert.strictEqual(found.stdout.trim(), "0.0.1", found.stderr)
      const missing = spawnSync("npm", ["view", "@svc/registry-nobody-published", "version"], {
        cwd: dir,
        env,
        encoding: "utf8"
      })
      assert.notStrictEqual(missing.status, 0)
      assert.include(missing.stderr, "E404")
      assert.deepStrictEqual(registry.scopeUplinkRequests(), [])
    } finally {
      await registry.stop()
    }
    assert.isFalse(running(registry.process.pid!), "stopped")
  }, scaled(240_000))

  it("exits by itself when the process that started it is killed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-registry-"))
    const script = `import { startRegistry } from ${JSON.stringify(join(ROOT, "scripts/registry.ts"))}
const registry = await startRegistry({ dir: ${JSON.stringify(join(dir, "registry"))} })
process.stdout.write(registry.process.pid + " " + registry.url + "\\n")
setInterval(() => {}, 1000)
`
    const parent = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    const [pid, url] = await new Promise<[number, string]>((resolve, reject) => {
      let out = ""
      parent.stdout!.on("data", (d: Buffer) => {
        out += d
        const m = /^(\d+) (\S+)\n/.exec(out)
        if (m !== null) resolve([Number(m[1]), m[2]!])
      })
      parent.once("exit", (code) => reject(new Error(`the parent exited ${code}: ${out}`)))
    })
    assert.isTrue((await fetch(`${url}-/ping`)).ok)
    parent.removeAllListeners("exit")
    parent.kill("SIGKILL")
    const deadline = Date.now() + scaled(15_000)
    while (running(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    assert.isFalse(running(pid), "the registry outlived the process that started it")
  }, scaled(240_000))
})
