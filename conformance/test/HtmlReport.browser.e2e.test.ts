/**
 * The HTML report (`--report html=PATH`): its pieces (escaping, the diff,
 * `--report` parsing), then the report of a failing run against a broken
 * variant of our real server, opened from a file in Chromium: the summary, the
 * failing check with the rule, expected and actual, the diff and the curl
 * command; nothing loaded from outside, no console error, and a response body
 * carrying a script shows as text and never runs.
 *
 * One browser launch for the file. Without Chromium (`node scripts/browser.ts
 * ensure` installs it) the browser tests skip, saying why.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe as plainDescribe, it as plainIt } from "vitest"
import { type Browser, type BrowserPage, launch, noBrowser, skipReason } from "../../test/support/browser.ts"
import * as Html from "../src/Html.ts"
import type { CheckResult, Report } from "../src/Report.ts"
import * as Reporters from "../src/Reporters.ts"
import * as Runner from "../src/Runner.ts"
import { cli } from "./support/cli.ts"
import { Deployment, explain, failed, layer as deployment, run, WALLET_KEY } from "./support/harness.ts"
import type { Variant } from "./support/proxy.ts"
import { variants } from "./support/variants.ts"

/** Where the pages and screenshots are written (kept for a look, or as CI artifacts). */
const OUT = process.env.SVC_HTML_REPORT_DIR ?? join(tmpdir(), "svc-conformance-html")
mkdirSync(OUT, { recursive: true })
const file = (name: string) => join(OUT, name)

// ---------------------------------------------------------------------------
// The pieces
// ---------------------------------------------------------------------------

const PWN = "<script>window.__pwned=1</script>"

/** A report whose every server-controlled field tries to inject markup. */
const hostile = (): Report => {
  const result: CheckResult = {
    name: "permit_request_message_bytes",
    group: "permits",
    title: `title ${PWN}`,
    reference: `rule <img src=x onerror="window.__pwned=2">`,
    status: "failed",
    durationMs: 12,
    reason: `"><script>window.__pwned=3</script>`,
    failures: [{
      title: `failure ${PWN}`,
      expected: `"expected message ${PWN}"`,
      actual: `"expected message </pre><script>window.__pwned=4</script>"`,
      request: {
        method: "POST",
        url: `http://127.0.0.1:1/x?q=<script>window.__pwned=5</script>`,
        headers: { "content-type": "application/json", "x-evil": PWN },
        body: `{"a":"${PWN}"}`
      },
      response: {
        status: 200,
        headers: { "content-type": "text/html", "x-evil": `'"><svg onload="window.__pwned=6">` },
        body: `<html><body>${PWN}<iframe src="https://example.invalid/"></iframe></body></html>`
      },
      curl: `curl -sS -i 'http://127.0.0.1:1/x' -d '${PWN}'`
    }],
    notes: [`note ${PWN}`],
    details: { [`key ${PWN}`]: `value ${PWN}` }
  }
  return {
    schema: "SVC_CONFORMANCE_REPORT_V1",
    tool: { name: "svc-conformance", version: Runner.VERSION },
    baseUrl: `http://127.0.0.1:1/${PWN}`,
    startedAt: "2025-01-01T00:00:00.000Z",
    durationMs: 20,
    options: {
      only: [PWN],
      skip: [],
      seed: 7,
      maxExamples: 1,
      timeoutSeconds: 1,
      readOnly: false,
      wallet: "0x0000000000000000000000000000000000000000"
    },
    summary: { passed: 0, failed: 1, inconclusive: 0, skipped: 0, total: 1 },
    groups: { permits: { passed: 0, failed: 1, inconclusive: 0, skipped: 0 } },
    results: [result],
    selfCheck: { verified: 12, durationMs: 34 }
  }
}

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
        ]
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
        }]
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

// ---------------------------------------------------------------------------
// A failing run against a broken variant
// ---------------------------------------------------------------------------

const byName = (name: string): Variant => {
  const v = variants.find((x) => x.name === name)
  if (v === undefined) throw new Error(`the variant catalog has no ${name}`)
  return v
}

/** Both byte mismatches at once: the permit message gains a trailing LF; the aggregator's build message another standard. */
const broken = (): Variant => {
  const parts = [byName("permit-message-trailing-newline"), byName("aggregator-message-differs")]
  return {
    name: "html-report-mismatches",
    breaks: parts.map((p) => p.breaks).join("; "),
    caughtBy: parts.flatMap((p) => p.caughtBy),
    response: (r, res, ctx) => parts.reduce((acc, p) => (p.response === undefined ? acc : p.response(r, acc, ctx)), res)
  }
}

/** The report of the failing run (set by the first deployment test, read by the browser tests). */
let failing: Report | undefined
const FAILING_HTML = file("failing.html")
const CLI_HTML = file("cli.html")

layer(deployment, { excludeTestServices: true, timeout: 120_000 })("the HTML report of a failing run", (it) => {
  it.effect(
    "a run against a broken variant writes the HTML report with the JSON one (fileReporters)",
    () =>
      Effect.gen(function*() {
        const d = yield* Deployment
        const variant = broken()
        d.proxy.setVariant(variant)
        try {
          const json = file("failing.json")
          const report = yield* run({
            only: ["discovery", "permits", "aggregator"],
            immediateMillis: 1000,
            reports: { html: FAILING_HTML, json }
          })
          for (const name of variant.caughtBy) {
            assert.include(failed(report), name, `${name} did not fail:\n${explain(report)}`)
          }
          assert.strictEqual(report.results.find((r) => r.name === "discovery_solver_manifest")?.status, "passed")
          // what was written is the report rendered
          assert.strictEqual(readFileSync(FAILING_HTML, "utf8"), Html.render(JSON.parse(readFileSync(json, "utf8"))))
          failing = report
        } finally {
          d.proxy.setVariant(undefined)
        }
      }),
    { timeout: 60_000 }
  )

  it.effect("the command line writes it for --report html=PATH", () =>
    Effect.gen(function*() {
      const d = yield* Deployment
      d.proxy.setVariant(byName("permit-message-trailing-newline"))
      try {
        const { exit, text } = yield* cli([
          "--url",
          d.proxy.url,
          "--only",
          "permit_request_message_bytes",
          "--wallet-key",
          WALLET_KEY,
          "--timeout",
          "3",
          "--report",
          `html=${CLI_HTML}`
        ])
        assert.strictEqual(exit._tag, "Failure", text)
        assert.include(JSON.stringify(exit), "Failed")
        assert.isTrue(existsSync(CLI_HTML))
        const html = readFileSync(CLI_HTML, "utf8")
        assert.include(html, `id="check-permit_request_message_bytes"`)
        assert.include(html, `class="diff"`)
      } finally {
        d.proxy.setVariant(undefined)
      }
    }), { timeout: 60_000 })
})

// ---------------------------------------------------------------------------
// In the browser
// ---------------------------------------------------------------------------

const missing = skipReason()

if (missing !== undefined) {
  plainDescribe("the HTML report in Chromium", () => {
    plainIt("Chromium is available (required on CI)", (context) => noBrowser(context))
  })
} else {
  plainDescribe("the HTML report in Chromium", () => {
    let browser: Browser | undefined
    beforeAll(async () => {
      browser = await launch()
    })
    afterAll(async () => {
      await browser?.close()
    })

    const open = async (path: string): Promise<BrowserPage> => {
      const p = await browser!.open()
      await p.page.goto(pathToFileURL(path).href)
      return p
    }

    plainIt("the failing run: summary, the failing check with rule, expected, actual, diff and curl", async () => {
      assert.isDefined(failing, "the failing run did not complete (see the test above)")
      const report = failing!
      const p = await open(FAILING_HTML)
      try {
        const page = p.page
        assert.match(await page.title(), /^svc conformance FAIL: /)
        assert.strictEqual(await page.locator(".base-url").textContent(), report.baseUrl)
        if (report.selfCheck !== undefined) {
          assert.include(await page.locator(".self-check").textContent(), `${report.selfCheck.verified} verified`)
        }
        assert.include(await page.locator(".options").textContent(), `seed ${report.options.seed}`)

        // the summary: the permits group failed with its counts, discovery passed; links to the groups
        const permits = page.locator(`#summary tr[data-group="permits"]`)
        assert.include(await permits.getAttribute("class"), "failed")
        const cells = await permits.locator("td").allTextContents()
        const counts = report.groups.permits!
        assert.deepStrictEqual(cells.slice(1, 5), [
          String(counts.passed),
          String(counts.failed),
          String(counts.inconclusive),
          String(counts.skipped)
        ])
        assert.isAbove(counts.failed, 0)
        assert.include(await page.locator(`#summary tr[data-group="discovery"]`).getAttribute("class"), "passed")
        assert.strictEqual(await permits.locator("a").getAttribute("href"), "#group-permits")
        assert.strictEqual(await page.locator("#group-permits").count(), 1)
        assert.strictEqual(
          await page.locator("#summary tfoot td").nth(2).textContent(),
          String(report.summary.failed)
        )

        // the permit message check: rule, expected, actual, curl, and the trailing LF highlighted
        const result = report.results.find((r) => r.name === "permit_request_message_bytes")!
        const index = result.failures.findIndex((f) => f.title.includes("differs"))
        assert.isAtLeast(index, 0, explain(report))
        const failure = result.failures[index]!
        const section = page.locator("#check-permit_request_message_bytes")
        assert.include(await section.locator(".rule").textContent(), result.reference)
        assert.strictEqual(await section.locator("li.failure").count(), result.failures.length)
        const failureItem = section.locator("li.failure").nth(index)
        assert.strictEqual(await failureItem.locator("pre.expected").textContent(), failure.expected)
        assert.strictEqual(await failureItem.locator("pre.actual").textContent(), failure.actual)
        const curl = await failureItem.locator("pre.curl-command").textContent()
        assert.strictEqual(curl, failure.curl)
        assert.match(curl!, /^curl .*request-message/)
        assert.deepStrictEqual(await failureItem.locator(".diff ins.diff-hl").allTextContents(), ["↵"])
        assert.strictEqual(await failureItem.locator(".diff del.diff-hl").count(), 0)
        assert.include(await failureItem.locator(".diff-note").textContent(), "first difference on line")
        assert.include(await failureItem.locator("details.request summary").textContent(), "POST")

        // the aggregator's message: DIRECT against ERC-7683, within the line
        const agg = page.locator("#check-aggregator_build_signature_required .diff")
        assert.deepStrictEqual(await agg.locator("del.diff-hl").allTextContents(), ["DIRECT"])
        assert.deepStrictEqual(await agg.locator("ins.diff-hl").allTextContents(), ["ERC-7683"])
        assert.include(await agg.locator("tr.diff-exp").first().textContent(), "standard=DIRECT")

        // timing: every check, slowest first; clicking the time header re-sorts
        const timing = page.locator("#timing tbody tr")
        assert.strictEqual(await timing.count(), report.results.length)
        const times = await page.locator("#timing tbody td.num").evaluateAll((tds) =>
          tds.map((td) => Number(td.getAttribute("data-v")))
        )
        assert.deepStrictEqual(times, [...times].sort((a, b) => b - a))
        await page.locator("#timing th[data-sort=num]").click()
        const ascending = await page.locator("#timing tbody td.num").evaluateAll((tds) =>
          tds.map((td) => Number(td.getAttribute("data-v")))
        )
        assert.deepStrictEqual(ascending, [...times].sort((a, b) => a - b))

        assert.deepStrictEqual(p.external, [])
        assert.deepStrictEqual(p.errors, [])
        await page.screenshot({ path: file("failing.png"), fullPage: true })
        await page.locator("#check-aggregator_build_signature_required").screenshot({ path: file("failing-check.png") })
      } finally {
        await p.close()
      }
    })

    plainIt("a response body carrying a script shows as text and never runs", async () => {
      const path = file("hostile.html")
      writeFileSync(path, Html.render(hostile()))
      const p = await open(path)
      try {
        const page = p.page
        assert.isUndefined(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned))
        assert.strictEqual(await page.locator("script").count(), 1)
        assert.strictEqual(await page.locator("img, svg, iframe").count(), 0)
        const body = await page.locator("details.response pre").last().textContent()
        assert.include(body, PWN)
        assert.include(await page.locator(".base-url").textContent(), PWN)
        assert.deepStrictEqual(p.external, [])
        assert.deepStrictEqual(p.errors, [])
      } finally {
        await p.close()
      }
    })

    plainIt("the report of the command line opens cleanly too", async () => {
      assert.isTrue(existsSync(CLI_HTML), "the command-line run did not complete (see the test above)")
      const p = await open(CLI_HTML)
      try {
        const marks = await p.page.locator("#check-permit_request_message_bytes ins.diff-hl").allTextContents()
        assert.isAbove(marks.length, 0)
        for (const mark of marks) assert.strictEqual(mark, "↵")
        assert.deepStrictEqual(p.external, [])
        assert.deepStrictEqual(p.errors, [])
      } finally {
        await p.close()
      }
    })
  })
}
