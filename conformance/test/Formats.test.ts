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

  test.prop([fc.json()], { numRuns: 200 })("agrees with JSON.parse on what is JSON", (text) => {
    expect(JsonText.scan(text)).toBeDefined()
  })

  test.prop([fc.jsonValue()], { numRuns: 200 })(
    "finds an unsafe number exactly where JSON.stringify wrote one",
    (value) => {
      const text = JSON.stringify(value)
      const unsafe = (v: unknown): number =>
        typeof v === "number" ?
          (Math.abs(v) > Number.MAX_SAFE_INTEGER ? 1 : 0)
          : Array.isArray(v) ?
          v.reduce((n: number, x) => n + unsafe(x), 0)
          : v !== null && typeof v === "object" ?
          Object.values(v).reduce((n: number, x) => n + unsafe(x), 0)
          : 0
      expect(JsonText.scan(text)!.filter((f) => f.kind === "UNSAFE_NUMBER").length).toBe(unsafe(JSON.parse(text)))
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
