/**
 * The SSE parser: the HTML interpretation rules on examples, and properties over
 * generated event streams (any line-ending style, any chunking, a BOM, comments,
 * retry lines; a stream cut anywhere only ever yields complete events).
 */
import { assert, describe, it } from "@effect/vitest"
import { fc, test } from "@fast-check/vitest"
import { type SseItem, SseParser } from "../src/Sse.ts"

const parseAll = (chunks: ReadonlyArray<string>): Array<SseItem> => {
  const parser = new SseParser()
  return chunks.flatMap((chunk) => parser.push(chunk))
}
const eventsOf = (items: ReadonlyArray<SseItem>) =>
  items.flatMap((i) => i._tag === "Event" ? [{ event: i.event, data: i.data, lastEventId: i.lastEventId }] : [])

describe("SseParser", () => {
  it("parses the svc stream framing", () => {
    const items = parseAll([
      "retry: 3000\n\n",
      "id: 7\nevent: feed\ndata: {\"a\":1}\n\n",
      ": keep-alive\n\n",
      "event: publication-closed\ndata: {\"error\":\"PUBLICATION_CLOSED\"}\n\n"
    ])
    assert.deepStrictEqual(items, [
      { _tag: "Retry", millis: 3000 },
      { _tag: "Event", event: "feed", data: "{\"a\":1}", lastEventId: "7" },
      { _tag: "Comment", text: "keep-alive" },
      { _tag: "Event", event: "publication-closed", data: "{\"error\":\"PUBLICATION_CLOSED\"}", lastEventId: "7" }
    ])
  })

  it("follows the standard's field rules", () => {
    const items = parseAll([
      "\uFEFFdata\n\n", // a field without a colon: empty value
      "data:no-space\ndata:  two spaces\n\n",
      "id: a\u0000b\ndata: x\n\n", // an id with NUL is ignored
      "retry: 12a\nretry: 15\n\n", // only digits set the retry
      "event: named\n\n", // no data: not dispatched, type reset
      "data: after\n\n",
      "unknown: field\ndata: y\r\n\r\n",
      "data: cut off mid-event"
    ])
    assert.deepStrictEqual(eventsOf(items), [
      { event: "message", data: "", lastEventId: "" },
      { event: "message", data: "no-space\n two spaces", lastEventId: "" },
      { event: "message", data: "x", lastEventId: "" },
      { event: "message", data: "after", lastEventId: "" },
      { event: "message", data: "y", lastEventId: "" }
    ])
    assert.deepStrictEqual(items.filter((i) => i._tag === "Retry"), [{ _tag: "Retry", millis: 15 }])
  })

  it("joins a CRLF split across chunks", () => {
    assert.deepStrictEqual(eventsOf(parseAll(["data: a\r", "\n", "\r", "\ndata: b\r\n\r\n"])), [
      { event: "message", data: "a", lastEventId: "" },
      { event: "message", data: "b", lastEventId: "" }
    ])
  })
})

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

const text = fc.string({ unit: fc.constantFrom("a", "b", " ", ":", "{", "\"", "é", "😀", "0", "-"), maxLength: 12 })
const block = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("event" as const),
      event: fc.option(fc.stringMatching(/^[a-z][a-z-]{0,9}$/), { nil: undefined }),
      id: fc.option(fc.stringMatching(/^[0-9]{1,5}$/), { nil: undefined }),
      data: fc.array(text, { maxLength: 4 })
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("comment" as const), text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("retry" as const), millis: fc.nat(100_000) }) }
)
const stream = fc.record({
  blocks: fc.array(block, { maxLength: 12 }),
  eol: fc.constantFrom("\n", "\r\n", "\r"),
  bom: fc.boolean()
})

type Block = typeof block extends fc.Arbitrary<infer B> ? B : never

const serialize = (blocks: ReadonlyArray<Block>, eol: string, bom: boolean): string =>
  (bom ? "\uFEFF" : "") +
  blocks.map((b) => {
    const lines = b.kind === "comment"
      ? [`:${b.text}`]
      : b.kind === "retry"
      ? [`retry: ${b.millis}`]
      : [
        ...(b.id === undefined ? [] : [`id: ${b.id}`]),
        ...(b.event === undefined ? [] : [`event: ${b.event}`]),
        ...b.data.map((d) => `data: ${d}`)
      ]
    return lines.map((l) => `${l}${eol}`).join("") + eol
  }).join("")

const expected = (blocks: ReadonlyArray<Block>) => {
  let lastEventId = ""
  const out: Array<{ event: string; data: string; lastEventId: string }> = []
  for (const b of blocks) {
    if (b.kind !== "event") continue
    if (b.id !== undefined) lastEventId = b.id
    if (b.data.length > 0) out.push({ event: b.event ?? "message", data: b.data.join("\n"), lastEventId })
  }
  return out
}

const chunked = (whole: string, cuts: ReadonlyArray<number>): Array<string> => {
  const points = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b)
  const out: Array<string> = []
  let start = 0
  for (const p of points) {
    out.push(whole.slice(start, p))
    start = p
  }
  out.push(whole.slice(start))
  return out
}

describe("SseParser properties", () => {
  test.prop([stream, fc.array(fc.nat(), { maxLength: 20 })], { numRuns: 300 })(
    "any chunking of any stream gives the events of the standard",
    ({ blocks, eol, bom }, cuts) => {
      const whole = serialize(blocks, eol, bom)
      assert.deepStrictEqual(eventsOf(parseAll(chunked(whole, cuts))), expected(blocks))
      const retries = parseAll(chunked(whole, cuts)).filter((i) => i._tag === "Retry").map((i) =>
        i._tag === "Retry" ? i.millis : 0
      )
      assert.deepStrictEqual(retries, blocks.flatMap((b) => b.kind === "retry" ? [b.millis] : []))
    }
  )

  test.prop([stream, fc.nat()], { numRuns: 300 })(
    "a stream cut anywhere yields exactly the events completed before the cut",
    ({ blocks, eol, bom }, at) => {
      const whole = serialize(blocks, eol, bom)
      const cut = at % (whole.length + 1)
      const got = eventsOf(parseAll([whole.slice(0, cut)]))
      const all = expected(blocks)
      assert.deepStrictEqual(got, all.slice(0, got.length))
      // every complete event before the cut is there: re-serialising what was dispatched fits in the prefix
      const full = eventsOf(parseAll([whole]))
      assert.deepStrictEqual(full, all)
      if (cut === whole.length) assert.strictEqual(got.length, all.length)
    }
  )
})
