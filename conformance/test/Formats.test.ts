import { describe, expect, it } from "@effect/vitest"
import { fc, test } from "@fast-check/vitest"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import * as Curl from "../src/Curl.ts"
import * as JsonText from "../src/JsonText.ts"

const fixture = <A>(name: string): A =>
  JSON.parse(readFileSync(new URL(`../fixtures/formats/${name}`, import.meta.url), "utf8")) as A

describe("JsonText.scan (fixtures/formats/json-numbers.json)", () => {
  for (
    const c of fixture<Array<{ description: string; text: string; findings: Array<JsonText.JsonFinding> }>>(
      "json-numbers.json"
    )
  ) {
    it(c.description, () => expect(JsonText.scan(c.text)).toEqual(c.findings))
  }

  it("answers undefined for text that is not JSON", () => {
    for (const text of ["", "{", "{\"a\":1,}", "[1 2]", "nul", "{\"a\":1} x"]) {
      expect(JsonText.scan(text)).toBeUndefined()
    }
  })

  /** The path of `key` under `parent`, as the fixtures write it: `.name` for identifiers, else `["key"]`. */
  const pathOf = (parent: string, key: string | number) =>
    typeof key === "number"
      ? `${parent}[${key}]`
      : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)
      ? `${parent}.${key}`
      : `${parent}[${JSON.stringify(key)}]`

  /** The UNSAFE_NUMBER findings of a value written by JSON.stringify, computed on the parsed value, in text order. */
  const unsafeNumbers = (value: unknown, path = "$"): Array<JsonText.JsonFinding> =>
    typeof value === "number"
      ? Math.abs(value) > Number.MAX_SAFE_INTEGER
        ? [{ kind: "UNSAFE_NUMBER", path, literal: JSON.stringify(value) }]
        : []
      : Array.isArray(value)
      ? value.flatMap((v, i) => unsafeNumbers(v, pathOf(path, i)))
      : value !== null && typeof value === "object"
      ? Object.entries(value).flatMap(([k, v]) => unsafeNumbers(v, pathOf(path, k)))
      : []

  const parses = (text: string) => {
    try {
      JSON.parse(text)
      return true
    } catch {
      return false
    }
  }

  it("the helpers above agree with the fixtures' paths", () => {
    expect(unsafeNumbers(JSON.parse("{\"feed\":{\"routes\":[{\"m\":9007199254740992}]},\"a-b\":[1e21,1.5]}"))).toEqual([
      { kind: "UNSAFE_NUMBER", path: "$.feed.routes[0].m", literal: "9007199254740992" },
      { kind: "UNSAFE_NUMBER", path: "$[\"a-b\"][0]", literal: "1e+21" }
    ])
  })

  test.prop([fc.jsonValue(), fc.constantFrom(undefined, 2, "\t")], { numRuns: 300 })(
    "on what JSON.stringify writes (compact or indented), finds exactly the unsafe numbers, where and as written",
    (value, indent) => {
      const text = JSON.stringify(value, null, indent)
      expect(JsonText.scan(text)).toEqual(unsafeNumbers(JSON.parse(text)))
    }
  )

  test.prop([fc.json()], { numRuns: 200 })("finds nothing but unsafe numbers in fc.json() texts", (text) => {
    expect(JsonText.scan(text)).toEqual(unsafeNumbers(JSON.parse(text)))
  })

  /** JSON texts, texts that are almost JSON, and arbitrary text. */
  const maybeJson = fc.oneof(
    fc.json(),
    fc.string({ maxLength: 20 }),
    fc.stringMatching(/^[\s{}[\]",:0-9eE.+\-tfrunasl]{0,24}$/),
    fc.tuple(fc.json(), fc.nat(), fc.nat()).map(([text, at, length]) => {
      // cut a piece out of a JSON text
      const from = at % (text.length + 1)
      return text.slice(0, from) + text.slice(from + (length % 4))
    }),
    fc.tuple(fc.json(), fc.nat(), fc.constantFrom(",", "}", "]", "\"", "0", "-", ".", "x", "\\", "\n")).map(
      ([text, at, insert]) => {
        const where = at % (text.length + 1)
        return text.slice(0, where) + insert + text.slice(where)
      }
    )
  )

  test.prop([maybeJson], { numRuns: 500 })(
    "answers findings exactly for the texts JSON.parse accepts, and undefined for the others",
    (text) => {
      const scanned = JsonText.scan(text)
      expect(scanned !== undefined, JSON.stringify(text)).toBe(parses(text))
    }
  )

  test.prop([
    fc.uniqueArray(fc.tuple(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })), {
      minLength: 1,
      maxLength: 5,
      selector: ([k]) => k
    }),
    fc.nat(),
    fc.jsonValue({ maxDepth: 1 })
  ], { numRuns: 200 })(
    "a key written twice in one object is a DUPLICATE_KEY at that object, after the findings before it",
    (entries, pick, again) => {
      const key = entries[pick % entries.length]![0]
      const members = [...entries, [key, again] as const]
      const text = `{"wrapper":{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}}`
      const parent = pathOf("$", "wrapper")
      expect(JsonText.scan(text)).toEqual([
        ...entries.flatMap(([k, v]) => unsafeNumbers(v, pathOf(parent, k))),
        { kind: "DUPLICATE_KEY", path: parent, literal: key },
        ...unsafeNumbers(again, pathOf(parent, key))
      ])
    }
  )
})

describe("Curl.command (fixtures/formats/curl.json)", () => {
  type Case = { description: string; request: Curl.CurlRequest & { padTo?: number }; curl: string }
  for (const c of fixture<Array<Case>>("curl.json")) {
    it(c.description, () => {
      const body = c.request.padTo === undefined || c.request.body === undefined
        ? c.request.body
        : c.request.body.padEnd(c.request.padTo, " ")
      expect(Curl.command({ ...c.request, body })).toBe(c.curl)
    })
  }

  test.prop([fc.string()], { numRuns: 200 })("shellQuote survives a POSIX shell", (s) => {
    fc.pre(!s.includes("\u0000"))
    expect(execFileSync("sh", ["-c", `printf '%s' ${Curl.shellQuote(s)}`]).toString()).toBe(s)
  })

  it("the padded body command produces exactly the bytes", () => {
    const body = "{\"a\":1}".padEnd(32769, " ")
    const cmd = Curl.command({ method: "POST", url: "http://x/", headers: {}, body })
    const generator = cmd.slice(0, cmd.indexOf(" | curl"))
    expect(execFileSync("sh", ["-c", generator]).toString()).toBe(body)
  })
})
