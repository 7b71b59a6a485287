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

  it("lists every variant of the catalog", () => {
    for (const v of variants) assert.include(doc, `| ${v.name} |`, v.name)
  })
})
