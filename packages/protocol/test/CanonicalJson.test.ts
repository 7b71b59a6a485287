import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { CanonicalJson } from "../src/index.ts"

const { CanonicalJsonError, stringify, stringifyResult, toBytes } = CanonicalJson

/** Expects `stringify(value)` to throw a CanonicalJsonError, and returns it. */
const refusal = (value: unknown): InstanceType<typeof CanonicalJsonError> => {
  let thrown: unknown = undefined
  let text: string | undefined = undefined
  try {
    text = stringify(value)
  } catch (error) {
    thrown = error
  }
  assert.strictEqual(text, undefined, "expected a refusal, got a canonical text")
  assert.instanceOf(thrown, CanonicalJsonError)
  return thrown as InstanceType<typeof CanonicalJsonError>
}

const refusedAt = (value: unknown, path: string) => {
  const error = refusal(value)
  assert.strictEqual(error.path, path)
  assert.strictEqual(error._tag, "CanonicalJsonError")
  assert.include(error.message, path)
  // the Result form reports the same error instead of throwing
  const result = stringifyResult(value)
  assert.isTrue(Result.isFailure(result))
  if (Result.isFailure(result)) {
    assert.instanceOf(result.failure, CanonicalJsonError)
    assert.strictEqual(result.failure.path, path)
  }
  return error
}

describe("CanonicalJson.stringify: layout", () => {
  it("sorts object keys recursively and writes no whitespace", () => {
    assert.strictEqual(
      stringify({ b: 1, a: { d: [3, 2, 1], c: null }, " ": true }),
      "{\" \":true,\"a\":{\"c\":null,\"d\":[3,2,1]},\"b\":1}"
    )
  })

  it("keeps array order and canonicalises elements", () => {
    assert.strictEqual(stringify([{ z: 1, y: 2 }, [], {}, "x"]), "[{\"y\":2,\"z\":1},[],{},\"x\"]")
  })

  it("writes scalars like JSON.stringify", () => {
    assert.strictEqual(stringify(null), "null")
    assert.strictEqual(stringify(true), "true")
    assert.strictEqual(stringify(false), "false")
    assert.strictEqual(stringify(0), "0")
    assert.strictEqual(stringify(-42), "-42")
    assert.strictEqual(stringify(""), "\"\"")
    assert.strictEqual(stringify(Number.MAX_SAFE_INTEGER), "9007199254740991")
    assert.strictEqual(stringify(Number.MIN_SAFE_INTEGER), "-9007199254740991")
  })

  it("writes -0 as 0", () => {
    assert.strictEqual(stringify(-0), "0")
    assert.strictEqual(stringify({ a: -0, b: [-0] }), "{\"a\":0,\"b\":[0]}")
  })

  it("writes bigints as quoted decimal strings", () => {
    assert.strictEqual(stringify(10n), "\"10\"")
    assert.strictEqual(stringify(0n), "\"0\"")
    assert.strictEqual(stringify(-5n), "\"-5\"")
    const big = (1n << 256n) - 1n
    assert.strictEqual(stringify({ amount: big }), `{"amount":"${big.toString()}"}`)
    // a bigint and its decimal string have the same canonical form
    assert.strictEqual(stringify({ amount: big, n: [7n] }), stringify({ amount: big.toString(), n: ["7"] }))
  })

  it("orders keys by UTF-16 code units, not by code points", () => {
    // U+FF61 is above the high surrogate D83D of U+1F600 in UTF-16, below it in code points
    const astral = "\u{1F600}"
    const bmpHigh = "\uFF61"
    assert.strictEqual(stringify({ [bmpHigh]: 1, [astral]: 2 }), `{"${astral}":2,"${bmpHigh}":1}`)
    // uppercase before underscore before lowercase; "10" before "9" (no numeric ordering)
    assert.strictEqual(stringify({ a: 1, _: 2, Z: 3, "9": 4, "10": 5 }), "{\"10\":5,\"9\":4,\"Z\":3,\"_\":2,\"a\":1}")
  })

  it("escapes only quote, backslash and control characters; keeps non-ASCII, U+2028/U+2029 and / raw", () => {
    assert.strictEqual(stringify("a\"b\\c"), "\"a\\\"b\\\\c\"")
    assert.strictEqual(stringify("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"")
    assert.strictEqual(stringify("\u0000\u0001\u001f"), "\"\\u0000\\u0001\\u001f\"")
    assert.strictEqual(stringify("\u007f"), "\"\u007f\"")
    assert.strictEqual(stringify("\u2028\u2029"), "\"\u2028\u2029\"")
    assert.strictEqual(stringify("a/b"), "\"a/b\"")
    assert.strictEqual(stringify("Svc-شبکه-😀"), "\"Svc-شبکه-😀\"")
    // no Unicode normalisation: NFC and NFD forms stay different
    assert.notStrictEqual(stringify("\u00e9"), stringify("e\u0301"))
  })

  it("escapes lone surrogates as lowercase \\udxxx", () => {
    assert.strictEqual(stringify("\ud800"), "\"\\ud800\"")
    assert.strictEqual(stringify("x\udfffy"), "\"x\\udfffy\"")
    assert.strictEqual(stringify({ "\udabc": 1 }), "{\"\\udabc\":1}")
  })

  it("accepts objects with a null prototype and own __proto__ keys", () => {
    const bare = Object.create(null) as Record<string, unknown>
    bare.b = 1
    bare.a = 2
    assert.strictEqual(stringify(bare), "{\"a\":2,\"b\":1}")
    const withProtoKey = JSON.parse("{\"__proto__\":{\"x\":1},\"a\":0}")
    assert.strictEqual(stringify(withProtoKey), "{\"__proto__\":{\"x\":1},\"a\":0}")
  })

  it("toBytes is the UTF-8 encoding of the text", () => {
    const value = { k: "é😀\u2028", n: 1 }
    assert.deepStrictEqual(toBytes(value), new TextEncoder().encode(stringify(value)))
    assert.strictEqual(toBytes({ k: "é" }).length, "{\"k\":\"é\"}".length + 1)
  })

  it("stringifyResult succeeds with the same text", () => {
    const value = { b: [1, { d: "x", c: 2n }], a: null }
    assert.deepStrictEqual(stringifyResult(value), Result.succeed(stringify(value)))
  })
})

describe("CanonicalJson.stringify: refusals", () => {
  it("refuses fractional numbers", () => {
    const error = refusedAt({ a: [0, 1.5] }, "$.a[1]")
    assert.include(error.reason, "not an integer")
    refusedAt(0.1, "$")
    refusedAt(-1e-7, "$")
  })

  it("refuses NaN and the infinities", () => {
    refusedAt(Number.NaN, "$")
    refusedAt({ x: Number.POSITIVE_INFINITY }, "$.x")
    refusedAt([Number.NEGATIVE_INFINITY], "$[0]")
  })

  it("refuses integers beyond 2^53 - 1", () => {
    const error = refusedAt({ big: 2 ** 53 }, "$.big")
    assert.include(error.reason, "2^53")
    refusedAt(-(2 ** 53), "$")
    refusedAt([1e21], "$[0]")
    refusedAt(Number.MAX_VALUE, "$")
  })

  it("refuses undefined at the top and nested", () => {
    refusedAt(undefined, "$")
    refusedAt({ a: { b: undefined } }, "$.a.b")
    refusedAt([1, undefined], "$[1]")
    refusedAt({ list: [{ ok: 1 }, { missing: undefined }] }, "$.list[1].missing")
  })

  it("refuses functions and symbols", () => {
    refusedAt(() => 1, "$")
    refusedAt({ f() {} }, "$.f")
    refusedAt({ toJSON: () => "no" }, "$.toJSON")
    refusedAt(Symbol("s"), "$")
    refusedAt([Symbol.iterator], "$[0]")
  })

  it("refuses sparse arrays at the hole", () => {
    // eslint-disable-next-line no-sparse-arrays
    refusedAt([1, , 3], "$[1]")
    // oxlint-disable-next-line unicorn/no-new-array -- an array with holes, on purpose
    const holes = new Array(3)
    refusedAt({ h: holes }, "$.h[0]")
  })

  it("refuses non-plain objects", () => {
    class Point {
      x = 1
    }
    refusedAt(new Date(0), "$")
    refusedAt({ when: new Date(0) }, "$.when")
    refusedAt({ m: new Map([["a", 1]]) }, "$.m")
    refusedAt([new Set([1])], "$[0]")
    refusedAt({ p: new Point() }, "$.p")
    refusedAt({ bytes: new Uint8Array(2) }, "$.bytes")
    refusedAt({ boxed: new String("x") }, "$.boxed")
    refusedAt({ re: /x/ }, "$.re")
  })

  it("writes non-identifier keys in bracket form in the path", () => {
    refusedAt({ "a b": { "0x": undefined } }, "$[\"a b\"][\"0x\"]")
    refusedAt({ ok_$1: { "é": 1.5 } }, "$.ok_$1[\"é\"]")
    refusedAt({ "\"": undefined }, "$[\"\\\"\"]")
  })

  it("reports the first refusal in canonical key order", () => {
    refusedAt({ z: undefined, a: 1.5 }, "$.a")
  })

  it("stringifyResult turns an unexpected throw into a CanonicalJsonError", () => {
    const hostile = {
      get a(): number {
        throw new Error("boom")
      }
    }
    const result = stringifyResult(hostile)
    assert.isTrue(Result.isFailure(result))
    if (Result.isFailure(result)) {
      assert.instanceOf(result.failure, CanonicalJsonError)
      assert.include(result.failure.reason, "boom")
    }
  })

  it("stringifyResult fails (instead of throwing) on a cyclic value", () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    const result = stringifyResult(cyclic)
    assert.isTrue(Result.isFailure(result))
  })
  it("refuses a cyclic value with a CanonicalJsonError (not a stack overflow)", () => {
    const cyclic: Record<string, unknown> = { a: [1] }
    cyclic.self = cyclic
    assert.throws(() => CanonicalJson.stringify(cyclic), CanonicalJson.CanonicalJsonError)
  })
})
