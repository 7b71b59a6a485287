/**
 * A conformance report whose every server-controlled field tries to inject
 * markup: the HTML report must show all of it as text (HtmlReport.test.ts checks
 * the markup, HtmlReport.browser.e2e.test.ts that nothing runs in Chromium).
 */
import type { CheckResult, Report } from "../../src/Report.ts"
import * as Runner from "../../src/Runner.ts"

export const PWN = "<script>window.__pwned=1</script>"

/** A report whose every server-controlled field tries to inject markup. */
export const hostile = (): Report => {
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
    warnings: [{ title: `warning ${PWN}`, expected: `profile ${PWN}`, actual: `actual ${PWN}` }],
    notes: [`note ${PWN}`],
    details: { [`key ${PWN}`]: `value ${PWN}` }
  }
  return {
    schema: "SVC_CONFORMANCE_REPORT_V2",
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
    summary: { passed: 0, failed: 1, warning: 0, inconclusive: 0, skipped: 0, total: 1 },
    groups: { permits: { passed: 0, failed: 1, warning: 0, inconclusive: 0, skipped: 0 } },
    results: [result],
    selfCheck: { verified: 12, durationMs: 34 }
  }
}
