/**
 * `JsonText.memberText`: the text of a top-level member exactly as sent, for
 * any JSON object, however it is spaced; undefined for what is not an object
 * holding the member.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as JsonText from "../src/JsonText.ts"

const objects = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { minKeys: 1, maxKeys: 6 })

describe("JsonText.memberText", () => {
  it("property: compact text gives each member's own compact text", () =>
    fc.assert(
      fc.property(objects, (object) => {
        const text = JSON.stringify(object)
        for (const [key, value] of Object.entries(object)) {
          assert.strictEqual(JsonText.memberText(text, key), JSON.stringify(value))
        }
      }),
      { numRuns: 300 }
    ))

  it("property: spaced text gives a member text that parses to the member", () =>
    fc.assert(
      fc.property(objects, fc.integer({ min: 1, max: 4 }), (object, indent) => {
        const text = ` \n${JSON.stringify(object, null, indent)}\n`
        for (const [key, value] of Object.entries(object)) {
          const member = JsonText.memberText(text, key)
          assert.isDefined(member)
          // the text's own value (JSON has no -0: JSON.stringify writes it 0)
          assert.deepStrictEqual(JSON.parse(member!), JSON.parse(JSON.stringify(value)))
        }
      }),
      { numRuns: 300, examples: [[{ "": -0 }, 1]] } // a shrunk failure: -0 is written 0
    ))

  it("keeps the bytes JSON.parse hides, and answers undefined when there is no such member", () => {
    const text = `{"a\\"b":{"x":"}"},"route":{"n":18.0,"s":"\\u0041"} ,"z":-0}`
    assert.strictEqual(JsonText.memberText(text, "route"), `{"n":18.0,"s":"\\u0041"}`)
    assert.strictEqual(JsonText.memberText(text, "a\"b"), `{"x":"}"}`)
    assert.strictEqual(JsonText.memberText(text, "z"), "-0")
    assert.isUndefined(JsonText.memberText(text, "missing"))
    assert.isUndefined(JsonText.memberText("[1,2]", "route"))
    assert.isUndefined(JsonText.memberText("", "route"))
  })
})
