import { describe, expect, it } from "@effect/vitest"
import { fc, test } from "@fast-check/vitest"
import { readFileSync } from "node:fs"
import * as Sse from "../src/Sse.ts"

const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 200)

interface Spec {
  readonly event?: string | undefined
  readonly id?: string | undefined
  readonly data: Array<string>
}

const token = fc.string({ unit: fc.constantFrom(..."abcXYZ019-_.:é€😀 "), minLength: 0, maxLength: 12 })
const line = token.filter((s) => !s.includes("\n") && !s.includes("\r"))
const spec: fc.Arbitrary<Spec> = fc.record({
  event: fc.option(line.filter((s) => s.length > 0), { nil: undefined }),
  id: fc.option(line.filter((s) => !s.includes("\u0000")), { nil: undefined }),
  data: fc.array(line, { minLength: 1, maxLength: 3 })
}, { requiredKeys: ["data"] })

/** Serializes events with a line ending, optional BOM and comments. */
const serialize = (events: ReadonlyArray<Spec>, eol: string, bom: boolean, comments: boolean) => {
  const sep = ": "
  let out = bom ? "\uFEFF" : ""
  for (const e of events) {
    if (comments) out += `: keep-alive${eol}`
    if (e.id !== undefined) out += `id${sep}${e.id}${eol}`
    if (e.event !== undefined) out += `event${sep}${e.event}${eol}`
    for (const d of e.data) out += `data${sep}${d}${eol}`
    out += eol
  }
  return out
}

/** The events a conforming parser dispatches for the specs (ids inherit). */
const expected = (events: ReadonlyArray<Spec>) => {
  let last = ""
  return events.map((e) => {
    if (e.id !== undefined) last = e.id
    return { event: e.event ?? "message", data: e.data.join("\n"), lastEventId: last, idInBlock: e.id !== undefined }
  })
}

/** Cuts bytes into chunks at the given cut points. */
const chunks = (bytes: Uint8Array, cuts: ReadonlyArray<number>) => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Array<Uint8Array> = []
  let start = 0
  for (const p of points) {
    out.push(bytes.subarray(start, p))
    start = p
  }
  out.push(bytes.subarray(start))
  return out
}

describe("Sse.makeParser", () => {
  test.prop(
    [
      fc.array(spec, { maxLength: 6 }),
      fc.constantFrom("\n", "\r\n", "\r"),
      fc.boolean(),
      fc.boolean(),
      fc.array(fc.nat(), { maxLength: 12 })
    ],
    { numRuns: NUM_RUNS }
  )(
    "any chunking of the bytes (inside CRLF, inside UTF-8) dispatches the same events",
    (events, eol, bom, comments, cuts) => {
      // ": " strips exactly one space, so values starting with a space stay exact
      const text = serialize(events, eol, bom, comments)
      const bytes = new TextEncoder().encode(text)
      const parser = Sse.makeParser()
      const got = [...chunks(bytes, cuts).flatMap((c) => parser.push(c)), ...parser.end()]
      expect(got).toEqual(expected(events))
      expect(Sse.parseAll(text)).toEqual(got)
      expect(parser.comments().length).toBe(comments ? events.length : 0)
    }
  )

  test.prop([fc.array(spec, { maxLength: 5 })], { numRuns: NUM_RUNS })("frame and parse round-trip", (events) => {
    const text = events.map((e) =>
      Sse.frame({
        data: e.data.join("\n"),
        ...(e.event === undefined ? {} : { event: e.event }),
        ...(e.id === undefined ? {} : { id: e.id })
      })
    ).join("")
    const got = Sse.parseAll(text)
    expect(got.map((e) => e.data)).toEqual(events.map((e) => e.data.join("\n")))
  })

  it("keeps an incomplete last event out (the stream ended mid-event)", () => {
    expect(Sse.parseAll("data: a\n\ndata: b\n")).toEqual([{
      event: "message",
      data: "a",
      lastEventId: "",
      idInBlock: false
    }])
  })

  it("ignores an id containing NUL, keeps the previous id, counts retries and unknown fields", () => {
    const parser = Sse.makeParser()
    const events = [
      ...parser.push("id: 7\ndata: x\n\nid: a\u0000b\ndata: y\n\nretry: 3000\nfoo: bar\n\n"),
      ...parser.end()
    ]
    expect(events.map((e) => [e.lastEventId, e.idInBlock])).toEqual([["7", true], ["7", false]])
    expect(parser.retries()).toEqual([3000])
    expect(parser.unknownFields()).toEqual(["foo"])
    expect(parser.emptyBlocks()).toBe(1)
  })

  describe("golden streams (fixtures/formats/sse.json)", () => {
    const cases = JSON.parse(readFileSync(new URL("../fixtures/formats/sse.json", import.meta.url), "utf8")) as Array<{
      description: string
      stream: string
      events: Array<{ event: string; data: string; lastEventId: string; idInBlock: boolean }>
    }>
    for (const c of cases) {
      it(c.description, () => {
        expect(Sse.parseAll(c.stream)).toEqual(c.events)
        // byte by byte
        const parser = Sse.makeParser()
        const bytes = new TextEncoder().encode(c.stream)
        const got = [...Array.from(bytes).flatMap((b) => parser.push(new Uint8Array([b]))), ...parser.end()]
        expect(got).toEqual(c.events)
      })
    }
  })
})
