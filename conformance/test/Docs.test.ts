import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { GROUPS } from "../src/Check.ts"
import * as Registry from "../src/Registry.ts"
import { variants } from "./support/variants.ts"

const doc = readFileSync(new URL("../../docs/conformance.md", import.meta.url), "utf8")

describe("docs/conformance.md", () => {
  it("lists every check with its group", () => {
    for (const g of GROUPS) assert.include(doc, `### ${g}\n`, g)
    for (const c of Registry.all) assert.include(doc, `| \`${c.name}\``, c.name)
  })

  it("shows each check's title and rule exactly as the tool prints them", () => {
    // rows: | `name` [✎] | title | rule |, cells split on unescaped pipes
    const rows = new Map<string, ReadonlyArray<string>>()
    for (const line of doc.split("\n")) {
      const m = /^\| `([a-z0-9_]+)`/.exec(line)
      if (m === null) continue
      const cells = line.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"))
      rows.set(m[1]!, cells)
    }
    for (const c of Registry.all) {
      const cells = rows.get(c.name)
      assert.isDefined(cells, c.name)
      assert.strictEqual(cells![1], c.title, `${c.name}: verifies`)
      assert.strictEqual(cells![2], c.reference, `${c.name}: rule`)
    }
  })

  it("lists every variant of the catalog", () => {
    for (const v of variants) assert.include(doc, `| ${v.name} |`, v.name)
  })
})
