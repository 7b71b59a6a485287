/**
 * The first install (`npm start` / `npm test` on a machine with Node >= 20)
 * checks package engines against the Node the workspace installs, so it prints
 * no "Unsupported engine" warning per package on Node 20: pnpm-workspace.yaml's
 * `nodeVersion` must stay the pinned node@24 devDependency, and every package's
 * engines range must accept it.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../", import.meta.url))
const json = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8"))

/** Whether `version` satisfies a `>=x.y.z` range (the only form the packages use). */
const atLeast = (range: string, version: string) => {
  const m = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(range) ?? /^>=(\d+)()()$/.exec(range)
  assert.isNotNull(m, `engines range ${range} is not of the form >=x.y.z`)
  const want = m!.slice(1).map((n) => Number(n || 0))
  const have = version.split(".").map(Number)
  for (let i = 0; i < 3; i++) if (have[i]! !== want[i]!) return have[i]! > want[i]!
  return true
}

describe("the toolchain", () => {
  it("engine checks use the pinned Node: nodeVersion = the node devDependency, accepted by every package", () => {
    const nodeVersion = /^nodeVersion:\s*(\S+)\s*$/m.exec(readFileSync(join(root, "pnpm-workspace.yaml"), "utf8"))?.[1]
    const pinned = json("package.json").devDependencies.node as string
    assert.strictEqual(nodeVersion, pinned)
    const manifests = [
      "package.json",
      "conformance/package.json",
      ...readdirSync(join(root, "packages")).map((p) => `packages/${p}/package.json`)
    ]
    for (const manifest of manifests) {
      const range = json(manifest).engines?.node as string | undefined
      if (range !== undefined) assert.isTrue(atLeast(range, pinned), `${manifest} engines ${range} refuses ${pinned}`)
    }
  })
})
