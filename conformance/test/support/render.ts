/**
 * Every report format of a report, rendered and read back: the console text,
 * JUnit XML (well formed, one test case per check), the JSON report (read back
 * by replay), NDJSON (one event a line) and the HTML page. `assertRendered`
 * fails when any format throws, drops a check, or misstates its verdict.
 */
import { assert } from "@effect/vitest"
import { Result, Schema } from "effect"
import { escape } from "../../src/Html.ts"
import { normalize, type Report, ReportInput } from "../../src/Report.ts"
import * as Reporters from "../../src/Reporters.ts"

const ENTITY = /^&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/

/** Whether a text is well-formed XML (the subset JUnit uses: a declaration, elements, attributes, text). */
export const wellFormedXml = (text: string): string | undefined => {
  let i = 0
  const stack: Array<string> = []
  if (text.startsWith("<?xml")) i = text.indexOf("?>") + 2
  let root = false
  while (i < text.length) {
    const c = text[i]!
    if (c === "<") {
      const end = text.indexOf(">", i)
      if (end === -1) return `unclosed tag at ${i}`
      const tag = text.slice(i + 1, end)
      if (tag.startsWith("/")) {
        const name = tag.slice(1).trim()
        if (stack.pop() !== name) return `</${name}> does not close the open element at ${i}`
      } else {
        const m = /^([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)$/.exec(tag)
        if (m === null) return `malformed tag <${tag.slice(0, 80)}> at ${i}`
        for (const attr of m[2]!.matchAll(/="([^"]*)"/g)) {
          const value = attr[1]!
          for (let k = value.indexOf("&"); k !== -1; k = value.indexOf("&", k + 1)) {
            if (!ENTITY.test(value.slice(k))) return `a raw & in an attribute at ${i}`
          }
        }
        if (stack.length === 0) {
          if (root) return `a second root element at ${i}`
          root = true
        }
        if (m[3] !== "/") stack.push(m[1]!)
      }
      i = end + 1
    } else if (c === "&") {
      if (!ENTITY.test(text.slice(i))) return `a raw & at ${i}`
      i++
    } else {
      // oxlint-disable-next-line no-control-regex -- XML 1.0 forbids these characters
      if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(c)) return `a control character at ${i}`
      i++
    }
  }
  return stack.length === 0 ? undefined : `unclosed <${stack.at(-1)}>`
}

/** Renders every format and asserts each shows every check with its verdict. */
export const assertRendered = (input: Report, context: string) => {
  const report = normalize(input)
  let rendered: ReturnType<typeof Reporters.renderAll>
  try {
    rendered = Reporters.renderAll(input)
  } catch (e) {
    assert.fail(`${context}: a reporter threw: ${String((e as Error)?.stack ?? e)}`)
  }
  // JSON: replay reads it back; every result keeps its verdict
  const json = JSON.parse(rendered.json)
  assert.isTrue(
    Result.isSuccess(Schema.decodeUnknownResult(ReportInput)(json)),
    `${context}: the JSON report does not read back`
  )
  assert.deepStrictEqual(
    json.results.map((r: { name: string; status: string }) => `${r.name}:${r.status}`),
    report.results.map((r) => `${r.name}:${r.status}`),
    `${context}: JSON`
  )
  // NDJSON: one event a line, a check-finished per check, the run's end last
  const events = rendered.ndjson.trim().split("\n").map((l) => JSON.parse(l))
  assert.strictEqual(
    events.filter((e) => e.type === "check-finished").length,
    report.results.length,
    `${context}: NDJSON`
  )
  assert.strictEqual(events.at(-1).type, "run-finished", `${context}: NDJSON`)
  // JUnit: well formed, a test case per check, failures counted
  const xmlProblem = wellFormedXml(rendered.junit)
  assert.isUndefined(xmlProblem, `${context}: JUnit: ${xmlProblem}`)
  assert.strictEqual((rendered.junit.match(/<testcase /g) ?? []).length, report.results.length, `${context}: JUnit`)
  assert.include(rendered.junit, `failures="${report.summary.failed}"`, `${context}: JUnit`)
  for (const r of report.results.filter((x) => x.status === "failed" && /^[a-z0-9_]+$/.test(x.name))) {
    assert.include(rendered.junit, `name="${r.name}"`, `${context}: JUnit ${r.name}`)
  }
  // HTML: every check in its group's table with its verdict's badge
  for (const r of report.results) {
    assert.include(
      rendered.html,
      `<tr class="${escape(r.status)}" data-check="${escape(r.name)}">`,
      `${context}: HTML ${r.name}`
    )
  }
  // console: the verdict line with the counts, every check that did not pass by name
  assert.match(rendered.console, report.summary.failed === 0 ? /^PASS /m : /^FAIL /m, `${context}: console`)
  for (const r of report.results.filter((x) => x.status !== "passed" && x.status !== "skipped")) {
    assert.include(rendered.console, r.name, `${context}: console ${r.name}`)
  }
  return rendered
}
