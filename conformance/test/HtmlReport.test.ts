/**
 * The HTML report's pieces (`--report html=PATH`): escaping, the character and
 * line diffs, `--report` parsing, and the rendered page of a report whose every
 * server-controlled field tries to inject markup. The report of a failing run
 * opened in Chromium is HtmlReport.browser.e2e.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as Html from "../src/Html.ts"
import * as Reporters from "../src/Reporters.ts"
import { hostile } from "./support/hostile.ts"

describe("the HTML report's pieces", () => {
  it("escape: markup characters become entities", () => {
    assert.strictEqual(
      Html.escape(`<a href="x" title='y'>&</a>`),
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;"
    )
    assert.strictEqual(Html.escape("plain text"), "plain text")
  })

  it("charDiff: common prefix and suffix, the differing middle marked on each side", () => {
    const d = Html.charDiff("standard=DIRECT;x", "standard=ERC-7683;x")
    assert.deepStrictEqual(d.expected, [
      { text: "standard=", changed: false },
      { text: "DIRECT", changed: true },
      { text: ";x", changed: false }
    ])
    assert.deepStrictEqual(d.actual, [
      { text: "standard=", changed: false },
      { text: "ERC-7683", changed: true },
      { text: ";x", changed: false }
    ])
    // a pure insertion: nothing marked on the expected side
    assert.deepStrictEqual(Html.charDiff("abc", "abc\n").expected, [{ text: "abc", changed: false }])
    assert.deepStrictEqual(Html.charDiff("abc", "abc\n").actual, [
      { text: "abc", changed: false },
      { text: "\n", changed: true }
    ])
    // never splits a surrogate pair
    const emoji = Html.charDiff("x😀", "x😃")
    assert.deepStrictEqual(emoji.expected.find((s) => s.changed)?.text, "😀")
  })

  it("lineDiff: unchanged lines, a changed line with its characters, added and removed lines", () => {
    const lines = Html.lineDiff("a\nb\nc\nd", "a\nB\nc\nd\ne")
    assert.deepStrictEqual(lines.map((l) => l.kind), ["same", "changed", "same", "changed", "added"])
    const changed = lines[1]!
    assert(changed.kind === "changed")
    assert.deepStrictEqual(changed.expected.filter((s) => s.changed).map((s) => s.text), ["b"])
    assert.deepStrictEqual(changed.actual.filter((s) => s.changed).map((s) => s.text), ["B"])
    // "d" became "d\n" (the line gained its newline), then "e" was added
    const last = lines[3]!
    assert(last.kind === "changed")
    assert.deepStrictEqual(last.actual.filter((s) => s.changed).map((s) => s.text), ["\n"])
    assert.deepStrictEqual(lines[4], { kind: "added", text: "e" })
    assert.deepStrictEqual(Html.lineDiff("a\nb\nc", "a\nc").map((l) => l.kind), ["same", "removed", "same"])
    assert.deepStrictEqual(Html.lineDiff("a\nc", "a\nx\ny\nc").map((l) => l.kind), ["same", "added", "added", "same"])
  })

  it("diffTexts: decodes JSON strings (keeping a remark aside), re-indents JSON, declines trivial or unrelated texts", () => {
    const message = "line one\nline two\nline three"
    const d = Html.diffTexts(JSON.stringify(message), `${JSON.stringify(`${message}\n`)} (first difference on line 4)`)!
    assert.strictEqual(d.mode, "json-string")
    assert.strictEqual(d.actualNote, "(first difference on line 4)")
    assert.deepStrictEqual(d.lines.map((l) => l.kind), ["same", "same", "changed"])
    const json = Html.diffTexts(`{"a":1,"b":"same value here"}`, `{"a":2,"b":"same value here"}`)!
    assert.strictEqual(json.mode, "json")
    assert.deepStrictEqual(json.lines.map((l) => l.kind), ["same", "changed", "same", "same"])
    // equal once re-indented: the bytes differ (spacing), compared as given
    assert.strictEqual(Html.diffTexts(`{"a": 1, "b": 2}`, `{"a":1,"b":2}`)?.mode, "text")
    assert.isUndefined(Html.diffTexts("201", "200"))
    assert.isUndefined(Html.diffTexts("same text here!", "same text here!"))
    assert.isUndefined(Html.diffTexts("{ ok: true, message }", "ok: missing; message: expected a string"))
  })

  it("--report takes html=PATH beside the other formats; fileReporters writes it", () => {
    assert.deepStrictEqual(Reporters.parseTargets("junit=a.xml,html=out/report.html,json=b.json"), {
      targets: { junit: "a.xml", html: "out/report.html", json: "b.json" }
    })
    const bad = Reporters.parseTargets("html=")
    assert("error" in bad)
    assert.include(bad.error, "html=PATH")
  })

  it("render: every server-controlled field is escaped; the CSP allows the page's own script only", () => {
    const html = Html.render(hostile())
    assert.notInclude(html, "<script>window")
    assert.notInclude(html, "<img")
    assert.notInclude(html, "<svg")
    assert.notInclude(html, "<iframe")
    assert.include(html, "&lt;script&gt;window.__pwned=1&lt;/script&gt;")
    assert.include(html, `<dd class="self-check">passed: 12 verified in 34 ms</dd>`)
    // exactly one script element: the page's own, whose hash the CSP names
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)]
    assert.strictEqual(scripts.length, 1)
    const hash = createHash("sha256").update(scripts[0]![1]!, "utf8").digest("base64")
    assert.include(Html.CONTENT_SECURITY_POLICY, `'sha256-${hash}'`)
    assert.include(html, `content="${Html.escape(Html.CONTENT_SECURITY_POLICY)}"`)
    // no URL of anywhere but the page itself
    assert.notMatch(html.replace(/https?:\/\/127\.0\.0\.1[^"<\s]*/g, ""), /(src|href)="(?!#|data:)/)
  })

  it("render: a long one-line mismatch (calldata) keeps the change and cuts the far unchanged bytes; 200 against 201 gets no diff", () => {
    const data = `0x${"ab".repeat(600)}`
    const report = hostile()
    const result = report.results[0]!
    const html = Html.render({
      ...report,
      results: [{
        ...result,
        failures: [
          { title: "calldata", expected: `${data}00`, actual: `${data}01` },
          { title: "status", expected: "200", actual: "201" }
        ],
        warnings: []
      }]
    })
    const diffs = [...html.matchAll(/<div class="diff">([\s\S]*?)<\/table>/g)].map((m) => m[1]!)
    assert.strictEqual(diffs.length, 1)
    assert.include(diffs[0], `<del class="diff-hl">0</del>`)
    assert.include(diffs[0], `<ins class="diff-hl">1</ins>`)
    assert.match(diffs[0]!, /<span class="diff-elided">…\d+ characters…<\/span>[ab]{59}0<del/)
    assert.isBelow(diffs[0]!.length, 2000)
  })

  it("render: a multi-line diff shows two lines of context around a change and counts the rest", () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line number ${i + 1}`)
    const report = hostile()
    const html = Html.render({
      ...report,
      results: [{
        ...report.results[0]!,
        failures: [{
          title: "text",
          expected: lines.join("\n"),
          actual: [...lines.slice(0, 9), "line number X"].join("\n")
        }],
        warnings: []
      }]
    })
    assert.include(html, "… 7 unchanged lines …")
    assert.include(html, "line number 8")
    assert.notInclude(html, "line number 7<")
    assert.include(html, `line number <del class="diff-hl">10</del>`)
    assert.include(html, `line number <ins class="diff-hl">X</ins>`)
  })

  it("duration: ms, seconds, minutes", () => {
    assert.deepStrictEqual([Html.duration(840), Html.duration(1234), Html.duration(125_000)], [
      "840 ms",
      "1.2 s",
      "2 min 05 s"
    ])
  })
})
