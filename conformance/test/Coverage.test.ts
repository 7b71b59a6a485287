/**
 * The coverage phase's boundaries are written against the patterns of the
 * interface's primitives (`Coverage.KNOWN_PATTERNS`): every field of the bodies
 * it generates cases for carries exactly that pattern, so that a schema whose
 * pattern changes fails here instead of being tested at its old boundaries.
 */
import { describe, expect, it } from "@effect/vitest"
import { PermitCreateRequest, PermitRequest } from "@svc/protocol"
import { fieldsOf, KNOWN_PATTERNS } from "../src/Coverage.ts"

describe("Coverage: the patterns the cases are written against", () => {
  for (
    const [name, schema] of [["PermitRequest", PermitRequest], ["PermitCreateRequest", PermitCreateRequest]] as const
  ) {
    it(`${name}: each primitive field's pattern is the known one, and every known primitive occurs`, () => {
      const seen = new Set<string>()
      for (const field of fieldsOf(schema)) {
        if (!(field.primitive in KNOWN_PATTERNS)) continue
        seen.add(field.primitive)
        const known = KNOWN_PATTERNS[field.primitive as keyof typeof KNOWN_PATTERNS]
        expect(field.pattern?.source, `${name}.${field.name} (${field.primitive})`).toBe(known)
      }
      // not vacuous: the bodies name each primitive whose boundaries the phase tests
      expect([...seen].sort()).toEqual(Object.keys(KNOWN_PATTERNS).sort())
    })
  }
})
