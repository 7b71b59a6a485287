/**
 * The HTML report (`--report html=PATH`) of a failing run against a broken
 * variant of our real server, opened from a file in Chromium (its pieces are
 * HtmlReport.test.ts): the summary, the
 * failing check with the rule, expected and actual, the diff and the curl
 * command; nothing loaded from outside, no console error, and a response body
 * carrying a script shows as text and never runs.
 *
 * One browser launch for the file. Without Chromium (`node scripts/browser.ts
 * ensure` installs it) the browser tests skip, saying why.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe as plainDescribe, it as plainIt } from "vitest"
import { type Browser, type BrowserPage, launch, noBrowser, skipReason } from "../../test/support/browser.ts"
import { scaled } from "../../test/support/time.ts"
import * as Html from "../src/Html.ts"
import type { Report } from "../src/Report.ts"
import { cli } from "./support/cli.ts"
import { Deployment, explain, failed, layer as deployment, run, WALLET_KEY } from "./support/harness.ts"
import { hostile, PWN } from "./support/hostile.ts"
import type { Variant } from "./support/proxy.ts"
import { variants } from "./support/variants.ts"

/** Where the pages and screenshots are written (kept for a look, or as CI artifacts). */
const OUT = process.env.SVC_HTML_REPORT_DIR ?? join(tmpdir(), "svc-conformance-html")
mkdirSync(OUT, { recursive: true })
const file = (name: string) => join(OUT, name)

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

layer(deployment, { excludeTestServices: true, timeout: scaled(120_000) })("the HTML report of a failing run", (it) => {
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
    { timeout: scaled(60_000) }
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
    }), { timeout: scaled(60_000) })
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
