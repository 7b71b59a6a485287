import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { buildErrorsDoc } from "../../../scripts/errors-doc.ts"

describe("docs/errors.md", () => {
  it("is what scripts/errors-doc.ts builds from the code's error tables (run npm run docs:errors)", () => {
    const committed = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8")
    assert.strictEqual(committed, buildErrorsDoc())
  })
})
