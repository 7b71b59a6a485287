/**
 * The Node.js version installed packages need, said once and the same way
 * everywhere:
 *
 * - every bin of every public package checks the version before anything else:
 *   run by the machine's Node 20 (the README's floor for the repository, below
 *   the packages' 22.19), it prints one line naming the version it needs and
 *   exits 2, instead of dying on an import Node 20 lacks;
 * - every `engines` field of the public packages and of the generated projects
 *   says the same version as the gates.
 *
 * The bins are TypeScript files that Node 20 cannot load as such: each gate runs
 * as a copy named `.mjs` in a folder of its own, so that the entry it would load
 * next is absent there. A gate with a static import (which Node links before any
 * statement runs), or with syntax Node 20 refuses, fails here. An installed
 * bin on Node 20 (`npx @svc/cli`, installed from a registry) is checked by the
 * release rehearsal (test/release.e2e.test.ts, scripts/release-rehearsal.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { packages, ROOT } from "../scripts/packages.ts"

/** The version the packages need. */
const FLOOR = "22.19.0"

/** A Node.js older than the floor on this machine (the system's, outside the workspace), if any. */
const oldNode = (): { readonly path: string; readonly version: string } | undefined => {
  const candidates = [
    ...(process.env.PATH ?? "").split(delimiter).filter((d) => d !== "" && !d.startsWith(ROOT)).map((d) =>
      join(d, "node")
    ),
    "/usr/bin/node",
    "/usr/local/bin/node"
  ]
  for (const path of new Set(candidates)) {
    if (!existsSync(path)) continue
    const r = spawnSync(path, ["-p", "process.versions.node"], { encoding: "utf8" })
    const version = r.stdout?.trim() ?? ""
    const [major = 0, minor = 0] = version.split(".").map(Number)
    if (r.status === 0 && (major < 22 || (major === 22 && minor < 19))) return { path, version }
  }
  return undefined
}

const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** Every bin of the public packages: its name and its source file. */
const bins = () =>
  packages().flatMap((p) =>
    Object.entries((manifest(p.dir).bin ?? {}) as Record<string, string>).map(([name, file]) => ({
      pkg: p.name,
      name,
      source: join(p.dir, file)
    }))
  )

const CI = !["", "0", "false"].includes(process.env.CI ?? "")

describe("Node versions", () => {
  it("every bin on an older Node prints one line naming the version it needs, exit 2", (ctx) => {
    const node = oldNode()
    if (node === undefined) {
      if (CI) assert.fail("no Node.js older than 22.19 on this machine (the system's Node 20 is expected)")
      process.stderr.write("node-version test: no Node.js older than 22.19 found; skipped\n")
      return ctx.skip()
    }
    const found = bins()
    assert.deepStrictEqual(found.map((b) => b.name).sort(), ["svc", "svc-conformance"])
    for (const bin of found) {
      const dir = mkdtempSync(join(tmpdir(), "svc-node-gate-"))
      try {
        const copy = join(dir, "bin.mjs")
        copyFileSync(bin.source, copy)
        const r = spawnSync(node.path, [copy, "--version"], { encoding: "utf8", cwd: dir })
        assert.strictEqual(r.stdout, "", bin.name)
        assert.strictEqual(
          r.stderr,
          `${bin.name}: Node.js 22.19 or later is required (this is Node.js ${node.version})\n`,
          bin.name
        )
        assert.strictEqual(r.status, 2, bin.name)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  })

  it("every bin runs on the workspace's Node", () => {
    // a quick command of each: the fast path of svc, the version of svc-conformance
    const quick: Record<string, { args: ReadonlyArray<string>; input?: string; out: RegExp }> = {
      svc: { args: ["canonical"], input: "{\"b\":1,\"a\":2}", out: /^"\{\\"a\\":2,\\"b\\":1\}"\n$/ },
      "svc-conformance": { args: ["--version"], out: /\d+\.\d+\.\d+/ }
    }
    for (const bin of bins()) {
      const { args, input, out } = quick[bin.name]!
      const r = spawnSync(process.execPath, [bin.source, ...args], { encoding: "utf8", cwd: ROOT, input })
      assert.strictEqual(r.status, 0, `${bin.name}: ${r.stderr}`)
      assert.match(r.stdout, out, bin.name)
    }
  })

  it("every engines field of the packages and of the generated projects says the gates' version", () => {
    for (const p of packages()) assert.strictEqual(manifest(p.dir).engines?.node, `>=${FLOOR}`, p.name)
    const templates = join(ROOT, "packages/cli/templates")
    for (const template of readdirSync(templates)) {
      const text = readFileSync(join(templates, template, "package.json.tmpl"), "utf8")
      assert.include(text, `"node": ">=${FLOOR}"`, template)
    }
    for (const bin of bins()) {
      assert.include(readFileSync(bin.source, "utf8"), "major < 22 || (major === 22 && minor < 19)", bin.name)
    }
  })
})
