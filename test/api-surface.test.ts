/**
 * The runtime exports of every workspace package, one file snapshot per package
 * under test/api/, so API changes show up in review (as viem's index.test.ts).
 * See scripts/api-surface.ts for which entry points are listed. After an intended
 * change: `vitest run test/api-surface.test.ts -u`, then review the diff.
 */
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import { apiEntries, describeModule, renderPackageApi, valueKind } from "../scripts/api-surface.ts"
import { workspacePackages } from "../scripts/module-graph.ts"

// packages/* and conformance (the examples are private scripts without exports)
const packages = workspacePackages().filter((p) => apiEntries(p).length > 0)

describe("api surface helpers", () => {
  it("names value kinds", () => {
    expect([
      valueKind(() => 1),
      valueKind(class {}),
      valueKind({}),
      valueKind([]),
      valueKind("s"),
      valueKind(1),
      valueKind(1n),
      valueKind(true),
      valueKind(undefined),
      valueKind(null),
      valueKind(Symbol("s"))
    ]).toEqual([
      "function",
      "class",
      "object",
      "array",
      "string",
      "number",
      "bigint",
      "boolean",
      "undefined",
      "null",
      "symbol"
    ])
  })

  it("lists namespace members one level down, sorted", async () => {
    const ns = await import("./support/namespace.ts")
    expect(describeModule({ b: 1, Ns: ns, a: "x" })).toEqual([
      "Ns: namespace",
      "  Ns.Klass: class",
      "  Ns.VALUE: number",
      "  Ns.fn: function",
      "a: string",
      "b: number"
    ])
  })

  it("follows the exports map: internal files are blocked, bins are skipped, index is listed once", () => {
    const cli = workspacePackages().find((p) => p.name === "@svc/cli")!
    const subpaths = apiEntries(cli).map((e) => e.subpath)
    expect(subpaths[0]).toBe(".")
    expect(subpaths).not.toContain("./bin")
    expect(subpaths).not.toContain("./index")
    expect(subpaths.some((s) => s.startsWith("./internal/"))).toBe(false)
    const core = workspacePackages().find((p) => p.name === "@svc/core")!
    expect(apiEntries(core).map((e) => e.specifier)).toContain("@svc/core/testing/ConnectorTestkit")
  })
})

describe("exported API", () => {
  it.each(packages.map((p) => [p.name, p] as const))("%s", async (_, pkg) => {
    const modules = []
    for (const entry of apiEntries(pkg)) {
      modules.push({ entry, module: (await import(pathToFileURL(entry.file).href)) as Record<string, unknown> })
    }
    const text = renderPackageApi(pkg, modules)
    await expect(text).toMatchFileSnapshot(path.join("api", `${pkg.name.replace(/^@[^/]+\//, "")}.snap.txt`))
  })
})
