/**
 * No import cycles among the workspace sources (runtime edges only: `import type`
 * and `export type` are erased and cannot form an evaluation cycle), no
 * unresolvable workspace import, and no cycle among the workspace packages'
 * runtime dependencies. The graph is built by scripts/module-graph.ts without
 * any TypeScript API; run `node scripts/module-graph.ts` to print it.
 *
 * There were no runtime cycles when this test was written, so there is no
 * allow-list: every cycle fails.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import {
  buildModuleGraph,
  buildPackageGraph,
  cyclicComponents,
  elementaryCycles,
  extractImports,
  formatCycle,
  type Graph,
  repoRoot,
  resolveExports,
  tokenize
} from "../scripts/module-graph.ts"

const specs = (src: string) => extractImports(src).imports.map((i) => `${i.kind}:${i.specifier}`)
const typeSpecs = (src: string) => extractImports(src).typeOnly.map((i) => i.specifier)

describe("import extraction", () => {
  it("finds static imports, re-exports and literal dynamic imports", () => {
    const src = [
      `#!/usr/bin/env node`,
      `import a from "./a.ts"`,
      `import * as b from "./b.ts"`,
      `import c, { d as e, "f-g" as fg } from "./c.ts"`,
      `import {`,
      `  h,`,
      `  i`,
      `} from "./h.ts"`,
      `import "./side-effect.ts"`,
      `export * from "./star.ts"`,
      `export * as Ns from "./ns.ts"`,
      `export { x, y as z } from "./xy.ts"`,
      `const m = await import("./dyn.ts")`,
      "const n = import(`./tmpl.ts`).then((m) => m)",
      `import type from "./default-named-type.ts"`,
      `import def, * as all from "./both.ts"`
    ].join("\n")
    expect(specs(src)).toEqual([
      "static:./a.ts",
      "static:./b.ts",
      "static:./c.ts",
      "static:./h.ts",
      "static:./side-effect.ts",
      "reexport:./star.ts",
      "reexport:./ns.ts",
      "reexport:./xy.ts",
      "dynamic:./dyn.ts",
      "dynamic:./tmpl.ts",
      "static:./default-named-type.ts",
      "static:./both.ts"
    ])
  })

  it("drops type-only statements but keeps statements with only inline type specifiers (they still load the module)", () => {
    const src = [
      `import type { A } from "./type-a.ts"`,
      `import type B from "./type-b.ts"`,
      `import type * as C from "./type-c.ts"`,
      `export type { D } from "./type-d.ts"`,
      `export type * from "./type-e.ts"`,
      `import { type F } from "./inline-f.ts"`,
      `export { type G } from "./inline-g.ts"`,
      `type H = typeof import("./type-h.ts")`,
      `let i: import("./type-i.ts").I`
    ].join("\n")
    expect(specs(src)).toEqual(["static:./inline-f.ts", "reexport:./inline-g.ts"])
    expect(typeSpecs(src)).toEqual([
      "./type-a.ts",
      "./type-b.ts",
      "./type-c.ts",
      "./type-d.ts",
      "./type-e.ts",
      "./type-h.ts",
      "./type-i.ts"
    ])
  })

  it("ignores comments, strings, templates and regular expressions that look like imports", () => {
    const src = [
      `// import x from "./line-comment.ts"`,
      `/* import y from "./block-comment.ts"`,
      `   export * from "./block-comment-2.ts" */`,
      `/** @example import { z } from "./jsdoc.ts" */`,
      `const s = 'import a from "./in-string.ts"'`,
      `const t = \`export * from "./in-template.ts" \${ "}" } import("./in-template-2.ts")\``,
      `const r = /import "[^"]*" from "x"/`,
      `const q = a / 2 + "import b from './after-division.ts'"`,
      `const o = { import: 1, export: 2 }`,
      `o.import("./member-call.ts")`,
      `const url = import.meta.url`,
      `import real from "./real.ts"`
    ].join("\n")
    expect(specs(src)).toEqual(["static:./real.ts"])
  })

  it("finds imports inside template substitutions and after regular expressions", () => {
    const src = [
      "const t = `${await import(\"./in-substitution.ts\")}`",
      `const r = /["'\`]/g`,
      `import after from "./after-regex.ts"`
    ].join("\n")
    expect(specs(src)).toEqual(["dynamic:./in-substitution.ts", "static:./after-regex.ts"])
  })

  it("records computed import() specifiers and line numbers", () => {
    const found = extractImports(`\n\nconst m = await import(name)\nimport a from "./a.ts"`)
    expect(found.dynamicComputed).toEqual([3])
    expect(found.imports[0]!.line).toBe(4)
  })

  it("tokenizes escapes in string literals", () => {
    expect(tokenize(`"a\\"b" 'c\\u0041'`).map((t) => t.value)).toEqual([`a"b`, "cA"])
  })
})

describe("exports resolution", () => {
  const exportsMap = {
    ".": "./src/index.ts",
    "./*": "./src/*.ts",
    "./internal/*": null,
    "./special": { import: "./src/Special.ts" }
  }

  it("resolves exact keys, patterns by longest prefix, conditions and blocking nulls", () => {
    expect(resolveExports(exportsMap, ".")).toBe("./src/index.ts")
    expect(resolveExports(exportsMap, "./Ids")).toBe("./src/Ids.ts")
    expect(resolveExports(exportsMap, "./testing/ConnectorTestkit")).toBe("./src/testing/ConnectorTestkit.ts")
    expect(resolveExports(exportsMap, "./internal/http")).toBeNull()
    expect(resolveExports(exportsMap, "./special")).toBe("./src/Special.ts")
    expect(resolveExports({ ".": "./src/index.ts" }, "./Ids")).toBeNull()
    expect(resolveExports("./main.ts", ".")).toBe("./main.ts")
  })
})

describe("cycle finder", () => {
  const graphOf = (edges: Record<string, Array<string>>): Graph => {
    const g = new Map<string, Array<string>>()
    for (const [from, tos] of Object.entries(edges)) {
      g.set(from, [...tos].sort())
      for (const to of tos) if (!g.has(to)) g.set(to, [])
    }
    return g
  }

  it("finds nothing in a DAG", () => {
    const g = graphOf({ a: ["b", "c"], b: ["c", "d"], c: ["d"] })
    expect(cyclicComponents(g)).toEqual([])
    expect(elementaryCycles(g)).toEqual([])
  })

  it("finds self-loops, two-cycles and every elementary cycle of a component", () => {
    const g = graphOf({ a: ["a"], b: ["c"], c: ["b", "d"], d: ["e", "b"], e: ["c"], f: ["g"], g: [] })
    expect(cyclicComponents(g)).toEqual([["a"], ["b", "c", "d", "e"]])
    expect(elementaryCycles(g).map(formatCycle)).toEqual([
      "a -> a",
      "b -> c -> b",
      "b -> c -> d -> b",
      "c -> d -> e -> c"
    ])
  })

  it("handles long chains without recursion limits", () => {
    const edges: Record<string, Array<string>> = {}
    for (let i = 0; i < 20_000; i++) edges[`n${String(i).padStart(5, "0")}`] = [`n${String(i + 1).padStart(5, "0")}`]
    edges["n20000"] = ["n00000"]
    const cycles = elementaryCycles(graphOf(edges))
    expect(cycles).toHaveLength(1)
    expect(cycles[0]).toHaveLength(20_002)
  })
})

describe("a synthetic workspace", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "svc-module-graph-"))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    writeFileSync(path.join(root, file), text)
  }
  const pkg = (name: string, fields: object) =>
    JSON.stringify({
      name,
      type: "module",
      exports: { ".": "./src/index.ts", "./*": "./src/*.ts", "./internal/*": null },
      ...fields
    })
  write("pnpm-workspace.yaml", "packages:\n  - packages/*\n  - conformance\n")
  write("packages/a/package.json", pkg("@x/a", { dependencies: { "@x/b": "workspace:*" } }))
  write("packages/b/package.json", pkg("@x/b", { peerDependencies: { "@x/a": "workspace:^" } }))
  write(
    "packages/c/package.json",
    pkg("@x/c", { dependencies: { "@x/a": "workspace:*" }, devDependencies: { "@x/d": "workspace:*" } })
  )
  write("packages/d/package.json", pkg("@x/d", { dependencies: { "@x/c": "workspace:*" } }))
  write("conformance/package.json", pkg("@x/conformance", {}))
  write("packages/a/src/index.ts", `export * as One from "./One.ts"\n`)
  write("packages/a/src/One.ts", `import { two } from "@x/b/Two"\nexport const one = two\n`)
  write(
    "packages/b/src/Two.ts",
    `import type { T } from "@x/a"\nimport { one } from "./internal/three.ts"\nexport const two: T = one\n`
  )
  write("packages/b/src/internal/three.ts", `import { One } from "@x/a"\nexport const one = One\n`)
  write("packages/c/src/index.ts", `import "@x/a/internal/hidden"\nimport "./missing.ts"\nexport {}\n`)
  write("conformance/src/index.ts", `export const x = await import("./lazy.ts")\n`)
  write("conformance/src/lazy.ts", `import type { x } from "./index.ts"\nexport const y: typeof x = {}\n`)

  it("reports file cycles as chains through workspace specifiers, ignoring type-only edges", () => {
    const m = buildModuleGraph(root)
    expect(elementaryCycles(m.graph).map(formatCycle)).toEqual([
      "packages/a/src/One.ts -> packages/b/src/Two.ts -> packages/b/src/internal/three.ts -> packages/a/src/index.ts -> packages/a/src/One.ts"
    ])
    expect(m.unresolved).toEqual([
      "packages/c/src/index.ts:1: @x/a/internal/hidden (@x/a does not export ./internal/hidden)",
      "packages/c/src/index.ts:2: ./missing.ts (no file packages/c/src/missing.ts)"
    ])
    expect(m.undeclared).toEqual([])
  })

  it("reports package cycles over dependencies and peerDependencies, not devDependencies", () => {
    expect(elementaryCycles(buildPackageGraph(root)).map(formatCycle)).toEqual(["@x/a -> @x/b -> @x/a"])
  })
})

describe("the workspace", () => {
  const m = buildModuleGraph()

  it("has no import cycles among packages/*/src and conformance/src", () => {
    const cycles = elementaryCycles(m.graph).map(formatCycle)
    expect(cycles, `import cycles (runtime edges; see node scripts/module-graph.ts):\n${cycles.join("\n")}`).toEqual([])
    expect(m.graph.size).toBeGreaterThan(100) // the scan found the sources
  })

  it("resolves every relative and workspace import", () => {
    expect(m.unresolved).toEqual([])
  })

  it("declares every workspace package its sources import in dependencies or peerDependencies", () => {
    expect(m.undeclared).toEqual([])
  })

  it("has no cycles among the workspace packages' runtime dependencies", () => {
    const cycles = elementaryCycles(buildPackageGraph()).map(formatCycle)
    expect(cycles, `package cycles over dependencies/peerDependencies:\n${cycles.join("\n")}`).toEqual([])
  })

  // Cross-check of the tokenizer against V8: Node strips the types (erasing `import type`)
  // and V8 parses the module; its static module requests must be the tokenizer's static edges.
  it("agrees with V8's parse of the type-stripped sources", () => {
    const script = `
      import { stripTypeScriptTypes } from "node:module"
      import vm from "node:vm"
      import { readFileSync } from "node:fs"
      import { extractImports, listTsFiles, sourceDirs } from "./scripts/module-graph.ts"
      const out = []
      for (const file of sourceDirs().flatMap(listTsFiles)) {
        const src = readFileSync(file, "utf8")
        const js = stripTypeScriptTypes(src)
        const v8 = [...new Set(new vm.SourceTextModule(js).moduleRequests.map((r) => r.specifier))].sort()
        const mine = [...new Set(extractImports(src).imports.filter((i) => i.kind !== "dynamic").map((i) => i.specifier))].sort()
        const dynJs = extractImports(js).imports.filter((i) => i.kind === "dynamic").map((i) => i.specifier).sort()
        const dynMine = extractImports(src).imports.filter((i) => i.kind === "dynamic").map((i) => i.specifier).sort()
        if (JSON.stringify([v8, dynJs]) !== JSON.stringify([mine, dynMine])) out.push({ file, v8, mine, dynJs, dynMine })
      }
      console.log(JSON.stringify(out))
    `
    const r = spawnSync(process.execPath, [
      "--experimental-vm-modules",
      "--no-warnings",
      "--input-type=module",
      "-e",
      script
    ], {
      cwd: repoRoot,
      encoding: "utf8"
    })
    expect(r.stderr).toBe("")
    expect(JSON.parse(r.stdout)).toEqual([])
  })
})
