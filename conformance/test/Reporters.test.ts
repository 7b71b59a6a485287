/**
 * Every reporter renders every verdict of every check, whatever the server
 * sent: reports built from arbitrary values (markup, control characters,
 * texts that are not strings, missing lists, unknown verdicts, a V1 report)
 * render in all five formats, each showing every check with its verdict.
 * Real runs against broken servers are in Catalog.test.ts and
 * BrokenServers.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { STATUSES } from "../src/Check.ts"
import * as Html from "../src/Html.ts"
import { normalize, type Report } from "../src/Report.ts"
import * as Reporters from "../src/Reporters.ts"
import { failureRecord } from "../src/Runner.ts"
import { hostile } from "./support/hostile.ts"
import { assertRendered, wellFormedXml } from "./support/render.ts"

/** Anything a server's answer may put where a text belongs. */
const anything = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom("<script>window.__pwned=1</script>", "\u0000\u0007\u001b[31m", "]]>", "&amp;", "\"'", "\uD800"),
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 })
)

const failureOf = fc.record({
  title: anything,
  expected: anything,
  actual: anything,
  request: fc.option(
    fc.record({ method: anything, url: anything, headers: fc.dictionary(fc.string(), anything), body: anything }),
    { nil: undefined }
  ),
  response: fc.option(fc.record({ status: anything, headers: fc.dictionary(fc.string(), anything), body: anything }), {
    nil: undefined
  }),
  curl: anything
})

const resultOf = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9_]{0,30}$/),
  group: fc.constantFrom("feed", "coverage", "proxy", "no-such-group", "<b>"),
  title: anything,
  reference: anything,
  status: fc.oneof(fc.constantFrom(...STATUSES), fc.constant("exploded"), fc.constant(undefined)),
  durationMs: fc.oneof(fc.nat(), fc.constant(Number.NaN), fc.constant(-1), fc.constant(undefined)),
  reason: anything,
  failures: fc.oneof(fc.array(failureOf, { maxLength: 3 }), fc.constant(undefined)),
  warnings: fc.oneof(fc.array(failureOf, { maxLength: 2 }), fc.constant(undefined)),
  notes: fc.oneof(fc.array(anything, { maxLength: 2 }), fc.constant(undefined)),
  details: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), anything, { maxKeys: 3 }), { nil: undefined })
})

const reportOf = fc.record({
  baseUrl: anything,
  results: fc.uniqueArray(resultOf, { maxLength: 8, selector: (r) => r.name })
}).map(({ baseUrl, results }) => ({ ...hostile(), baseUrl, results }) as unknown as Report)

describe("every report format renders every verdict, whatever the server sent", () => {
  it("reports of arbitrary values render in every format, each check with its verdict", () => {
    fc.assert(
      fc.property(reportOf, (report) => {
        assertRendered(report, "generated report")
      }),
      { numRuns: 150 }
    )
  })

  it("a failure whose actual is undefined (discovery_interface_ids against 200 {\"ok\":true}) renders", () => {
    const record = failureRecord({ title: "ids", expected: "[\"0x01ffc9a7\"]", actual: undefined as unknown as string })
    assert.strictEqual(record.actual, "undefined")
    const report = hostile()
    const broken = {
      ...report,
      results: [{ ...report.results[0]!, failures: [{ title: "x", expected: "y", actual: undefined }] }]
    } as unknown as Report
    const html = Html.render(broken)
    assert.include(html, `data-check="permit_request_message_bytes"`)
    assertRendered(broken, "undefined actual")
  })

  it("a V1 report (no warnings, no warning counts) renders", () => {
    const report = hostile() as any
    const v1 = {
      ...report,
      schema: "SVC_CONFORMANCE_REPORT_V1",
      results: report.results.map(({ warnings: _, ...r }: any) => r)
    }
    assertRendered(v1, "V1")
    assert.strictEqual(normalize(v1).results[0]!.warnings.length, 0)
  })

  it("a warning shows in every format: console WARNING, JUnit system-err, JSON warnings, HTML section", () => {
    const report = hostile()
    const warned: Report = {
      ...report,
      results: [{ ...report.results[0]!, status: "warning", failures: [] }]
    }
    const out = assertRendered(warned, "warning")
    assert.include(out.console, "WARNING permit_request_message_bytes")
    assert.include(out.console, "1 warning,")
    assert.include(out.junit, "<system-err>")
    assert.strictEqual(JSON.parse(out.json).results[0].warnings.length, 1)
    assert.strictEqual(JSON.parse(out.json).summary.warning, 1)
    assert.include(out.html, `<section id="warnings"><h2>Warnings (1)</h2>`)
  })

  it("the XML checker refuses what is not well formed", () => {
    assert.isUndefined(wellFormedXml(`<?xml version="1.0"?>\n<a b="1"><c/>x &amp; y</a>\n`))
    for (const bad of [`<a><b></a>`, `<a>x & y</a>`, `<a b="<">`, `<a/><b/>`, `<a>\u0001</a>`, `<a b="&x">`]) {
      assert.isDefined(wellFormedXml(bad), bad)
    }
    assert.isDefined(wellFormedXml(Reporters.junit(hostile()).replace("&lt;", "<")))
  })
})
