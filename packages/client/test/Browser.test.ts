/**
 * The default entry works in a browser bundle: a vite library build for the
 * browser of `src/index.ts` resolves no Node built-in module anywhere in its
 * import graph (a plugin records every `node:*` or built-in id; vite would
 * otherwise replace them with an empty browser stub), and the sources import
 * only @svc/protocol, effect and viem; the HTTP contract's HttpApi
 * (`@svc/protocol/Api`, `effect/http-api`) only as types (the client reads the
 * contract from its compiled snapshot, `src/internal/contract.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { builtinModules } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { build, type Plugin } from "vite"

const root = new URL("../", import.meta.url).pathname

/** Bundles `entry` for the browser; returns the Node modules it tried to import and the code. */
const bundle = async (entry: string) => {
  const nodeImports: Array<string> = []
  const guard: Plugin = {
    name: "svc-no-node-builtins",
    enforce: "pre",
    resolveId(id, importer) {
      const bare = id.replace(/^node:/, "")
      if (id.startsWith("node:") || builtinModules.includes(bare)) nodeImports.push(`${id} (from ${importer ?? "?"})`)
      return null
    }
  }
  const result = await build({
    configFile: false,
    logLevel: "silent",
    root,
    build: { write: false, minify: false, lib: { entry, formats: ["es"], fileName: "bundle" } },
    plugins: [guard]
  })
  const outputs = (Array.isArray(result) ? result : [result]) as Array<
    { output: Array<{ type: string; code?: string }> }
  >
  const code = outputs.flatMap((o) => o.output).map((c) => c.code ?? "").join("\n")
  return { nodeImports, code }
}

describe("browser bundle", () => {
  it("the default entry bundles for the browser without any Node built-in", async () => {
    const { nodeImports, code } = await bundle(`${root}src/index.ts`)
    assert.deepStrictEqual(nodeImports, [])
    assert.notInclude(code, "__vite-browser-external")
    assert.include(code, "SVC_SDK_FEED_HASH_MISMATCH")
    assert.include(code, "text/event-stream")
  }, 60_000)

  it("the check catches a Node import (negative control)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-client-bundle-"))
    writeFileSync(
      join(dir, "entry.ts"),
      "import { readFileSync } from \"node:fs\"\nexport const f = () => readFileSync\n"
    )
    const { nodeImports } = await bundle(join(dir, "entry.ts"))
    assert.deepStrictEqual(nodeImports.map((i) => i.split(" ")[0]), ["node:fs"])
  }, 60_000)

  it("the sources import only @svc/protocol, effect and viem; the contract's HttpApi only as types", () => {
    const files = (readdirSync(`${root}src`, { recursive: true }) as Array<string>).filter((f) => f.endsWith(".ts"))
    const imports = files.flatMap((f) =>
      [
        ...readFileSync(`${root}src/${f}`, "utf8").matchAll(
          /^(import type |import |export )[^"']*from\s+["']([^"']+)["']/gm
        )
      ]
        .map((m) => ({ typeOnly: m[1] === "import type ", specifier: m[2]! }))
    )
    const external = [...new Set(imports.map((i) => i.specifier).filter((s) => !s.startsWith(".")))].sort()
    for (const s of external) {
      assert.match(
        s,
        /^(?:effect(?:\/[A-Z][A-Za-z]*|\/http-api)?|viem|@svc\/protocol(?:\/schema\/[A-Za-z]+|\/[A-Za-z]+)?)$/,
        s
      )
    }
    const runtime = new Set(imports.filter((i) => !i.typeOnly).map((i) => i.specifier))
    assert.isFalse(runtime.has("@svc/protocol/Api"), "a runtime import of @svc/protocol/Api")
    assert.isFalse(runtime.has("effect/http-api"), "a runtime import of effect/http-api")
    // the engine (@svc/core: stores, publisher, WebAssembly hashing) is never pulled in
    assert.isFalse(external.some((s) => s.startsWith("@svc/core")), external.join(","))
  })
})
