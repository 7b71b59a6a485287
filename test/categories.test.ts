/**
 * Every JSDoc `@category` under packages/*\/src and conformance/src comes from
 * the accepted list of scripts/categories.ts: today's values (its MAPPING) until
 * the tags are normalized, then the short list (ENFORCE = "short").
 */
import { describe, expect, it } from "vitest"
import {
  allowedCategories,
  categoryTags,
  ENFORCE,
  inventory,
  MAPPING,
  normalizeText,
  scanCategories,
  SHORT_LIST
} from "../scripts/categories.ts"

describe("@category tags", () => {
  const tags = scanCategories()

  it("come from the accepted list (scripts/categories.ts)", () => {
    expect(tags.length).toBeGreaterThan(100) // the scan found the sources
    const allowed = allowedCategories()
    const bad = tags.filter((t) => !allowed.has(t.value)).map((t) =>
      `${t.file}:${t.line}: @category ${JSON.stringify(t.value)}`
    )
    expect(
      bad,
      ENFORCE === "short"
        ? `use a value of SHORT_LIST in scripts/categories.ts:\n${bad.join("\n")}`
        : `use a value of SHORT_LIST (or add the new value to MAPPING) in scripts/categories.ts:\n${bad.join("\n")}`
    ).toEqual([])
  })

  it("map every accepted value into the short list", () => {
    const shortValues = new Set(Object.keys(SHORT_LIST))
    expect(Object.entries(MAPPING).filter(([, to]) => !shortValues.has(to))).toEqual([])
    for (const value of shortValues) {
      // a short-list value that is also in use today maps to itself
      if (Object.hasOwn(MAPPING, value)) expect(MAPPING[value]).toBe(value)
    }
    expect(shortValues.size).toBeLessThanOrEqual(16)
  })

  it("have a non-empty lower-case value", () => {
    expect(
      tags.filter((t) => !/^[a-z0-9][a-z0-9 -]*$/.test(t.value)).map((t) =>
        `${t.file}:${t.line}: ${JSON.stringify(t.value)}`
      )
    ).toEqual([])
  })

  it("are counted per value", () => {
    const counts = inventory([
      { file: "a", line: 1, value: "models" },
      { file: "a", line: 2, value: "errors" },
      { file: "b", line: 1, value: "models" }
    ])
    expect(counts).toEqual([["models", 2], ["errors", 1]])
  })
})

describe("scanning and normalizing", () => {
  const source = [
    "/**",
    " * Text.",
    " *",
    " * @category helpers",
    " * @since 0.1.0",
    " */",
    "export const a = 1",
    "/** @category vm types */",
    "export const b = 2",
    "// @category not-a-doc-comment",
    "/* @category not-a-doc-comment-either */",
    "/**",
    " * @categoryish no",
    " * @category   schemas   ",
    " */",
    "export const c = 3"
  ].join("\n")

  it("finds the tags of doc comments with their lines", () => {
    expect(categoryTags(source, "f.ts")).toEqual([
      { file: "f.ts", line: 4, value: "helpers" },
      { file: "f.ts", line: 8, value: "vm types" },
      { file: "f.ts", line: 14, value: "schemas" }
    ])
  })

  it("rewrites only the values the mapping names, in place", () => {
    const { text, changed } = normalizeText(source, {
      "helpers": "utils",
      "vm types": "identifiers",
      "schemas": "schemas"
    })
    expect(changed).toBe(2)
    expect(text).toBe(
      source.replace(" * @category helpers", " * @category utils").replace(
        "/** @category vm types */",
        "/** @category identifiers */"
      )
    )
  })
})
