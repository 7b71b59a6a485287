/**
 * The try-it of `/docs` with the examples it offers, in Chromium, against a real
 * server (in process, on an ephemeral port; test/support/browser.ts):
 *
 * - the reference shows the committed examples of `openapi.json` (a recorded feed,
 *   a permit), brought up to this deployment's live data where the try-it needs
 *   it (the route detail's routeId, the request message's quoteId);
 * - "Test Request" then "Send", with the example as offered, gets a documented
 *   answer: 200 for the feed, a route's detail, the permit request message and a
 *   `/v1/quote`; the 400 `SIGNATURE_INVALID` the permit creation documents for a
 *   page (which cannot sign for the payer);
 * - the page and every JSON page have a favicon, and `/docs` and `/openapi.json`
 *   come compressed when the browser asks.
 *
 * Screenshots go to `$SVC_DOCS_SCREENSHOT_DIR` (default `$TMPDIR/svc-docs-page`).
 */
import { Effect, Exit, Scope } from "effect"
import { mkdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { type Browser, type BrowserPage, launch, noBrowser, skipReason } from "../../../test/support/browser.ts"
import { build, serverLayer, testConfig } from "./support/server.ts"

const OUT = process.env.SVC_DOCS_SCREENSHOT_DIR ?? join(tmpdir(), "svc-docs-page")
const TIMEOUT = 120_000

/** Scalar's element of a fragment (its ids carry a document prefix). */
const scalarSelector = (fragment: string) => `#app [id$="/${fragment}"], #app [id="${fragment}"]`

const missing = skipReason()

if (missing !== undefined) {
  describe("the try-it of /docs in Chromium", () => {
    it("Chromium is available (required on CI)", (context) => noBrowser(context))
  })
} else {
  describe("the try-it of /docs in Chromium", () => {
    let browser: Browser | undefined
    let scope: Scope.Closeable | undefined
    let base = ""
    let openapi: any
    let feed: any

    beforeAll(async () => {
      mkdirSync(OUT, { recursive: true })
      scope = Effect.runSync(Scope.make())
      base = await Effect.runPromise(Scope.provide(build(serverLayer(testConfig())), scope))
      openapi = await (await fetch(`${base}/openapi.json`)).json()
      feed = ((await (await fetch(`${base}/api/v6/solver-feed`)).json()) as any).feed
      browser = await launch()
    }, 120_000)

    afterAll(async () => {
      await browser?.close()
      if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    const withPage = async (f: (p: BrowserPage) => Promise<void>) => {
      const p = await browser!.open()
      try {
        await f(p)
        assert.deepStrictEqual(p.external, [], "requests outside this machine")
      } finally {
        await p.close()
      }
    }

    /**
     * Opens an operation, sends its try-it request as offered and returns what the server answered (status,
     * body) and what the page sent (URL, body).
     */
    const tryIt = async (p: BrowserPage, fragment: string, method: "get" | "post", path: RegExp) => {
      await p.page.goto(`${base}/docs#${fragment}`)
      const operation = p.page.locator(scalarSelector(fragment))
      await operation.waitFor({ state: "attached", timeout: 60_000 })
      await operation.getByRole("button", { name: /Test Request/ }).first().click()
      const send = p.page.getByRole("button", { name: new RegExp(`^Send ${method} request to `, "i") })
      await send.waitFor()
      const [response] = await Promise.all([
        p.page.waitForResponse((r) =>
          r.request().method() === method.toUpperCase() && path.test(new URL(r.url()).pathname)
        ),
        send.click()
      ])
      const text = await response.text()
      return {
        status: response.status(),
        body: JSON.parse(text),
        url: response.url(),
        sent: response.request().postDataJSON()
      }
    }

    /** Whether a status is one the operation documents, and a 4xx's code one its description names. */
    const documented = (path: string, method: string, status: number, body: any) => {
      const op = openapi.paths[path][method]
      assert.include(Object.keys(op.responses), String(status), `${op.operationId}: ${status} is documented`)
      if (status >= 400) assert.include(op.responses[String(status)].description, `\`${body.error}\``)
    }

    it("the feed: 200, and the reference shows the recorded feed as the response example", async () => {
      await withPage(async (p) => {
        const answer = await tryIt(p, "tag/feed/getSolverFeed", "get", /^\/api\/v6\/solver-feed$/)
        assert.strictEqual(answer.status, 200)
        assert.isTrue(answer.body.ok)
        documented("/api/v6/solver-feed", "get", answer.status, answer.body)
        await p.page.getByText("200 OK").first().waitFor()
        await p.page.screenshot({ path: join(OUT, "docs-try-it-feed.png") })
      })
    }, TIMEOUT)

    it("a route's detail: the example is a live route of this deployment, 200", async () => {
      await withPage(async (p) => {
        const answer = await tryIt(p, "tag/routes/getRouteDetail", "get", /^\/api\/v6\/routes\//)
        assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
        const routeId = new URL(answer.url).pathname.split("/").at(-1)
        assert.isTrue(feed.openRoutes.some((r: any) => r.routeId === routeId), `${routeId} is a live route`)
        documented("/api/v6/routes/{routeId}", "get", answer.status, answer.body)
      })
    }, TIMEOUT)

    it("the permit request message: the example names a live quote, 200 with the message to sign", async () => {
      await withPage(async (p) => {
        const answer = await tryIt(
          p,
          "tag/permits/buildPermitRequestMessage",
          "post",
          /^\/api\/v6\/execution-permits\/request-message$/
        )
        assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
        assert.isTrue(feed.openRoutes.some((r: any) => r.quoteId === answer.sent.quoteId), "a live quoteId")
        assert.match(answer.body.message, /^SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1\n/)
        documented("/api/v6/execution-permits/request-message", "post", answer.status, answer.body)
        await p.page.screenshot({ path: join(OUT, "docs-try-it-request-message.png") })
      })
    }, TIMEOUT)

    it("a /v1/quote: 200 with a quote for the example's pair and amount", async () => {
      await withPage(async (p) => {
        const answer = await tryIt(p, "tag/aggregator/aggregator_quote", "post", /^\/v1\/quote$/)
        assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
        assert.strictEqual(answer.body.amountIn, answer.sent.amountIn)
        assert.isString(answer.body.quoteToken)
        documented("/v1/quote", "post", answer.status, answer.body)
        await p.page.screenshot({ path: join(OUT, "docs-try-it-quote.png") })
      })
    }, TIMEOUT)

    it("a permit creation from the page: the documented 400 SIGNATURE_INVALID", async () => {
      await withPage(async (p) => {
        const answer = await tryIt(p, "tag/permits/createExecutionPermit", "post", /^\/api\/v6\/execution-permits$/)
        assert.strictEqual(answer.status, 400, JSON.stringify(answer.body))
        assert.strictEqual(answer.body.error, "SIGNATURE_INVALID")
        documented("/api/v6/execution-permits", "post", answer.status, answer.body)
        assert.include(openapi.paths["/api/v6/execution-permits"].post.description, "400 `SIGNATURE_INVALID`")
      })
    }, TIMEOUT)

    it("shows the examples: the recorded feed and permit in the responses", async () => {
      await withPage(async (p) => {
        await p.page.goto(`${base}/docs#tag/permits/createExecutionPermit`)
        const permit = p.page.locator(scalarSelector("tag/permits/createExecutionPermit"))
        await permit.getByText("wallet-7f3c1a9e-0002").first().waitFor({ timeout: 60_000 })
        const text = await permit.innerText()
        for (const word of ["SIGNATURE_INVALID", "Worked flow", "docs/client.md"]) assert.include(text, word)
        await p.page.screenshot({ path: join(OUT, "docs-examples-permit.png"), fullPage: false })
      })
    }, TIMEOUT)

    it("a favicon, and /docs and /openapi.json compressed when asked", async () => {
      await withPage(async (p) => {
        // headless Chromium fetches no favicon by itself: the page names one, and the page's origin serves it
        await p.page.goto(`${base}/docs`)
        const icon = await p.page.evaluate(async () => {
          const link = document.querySelector<HTMLLinkElement>("link[rel=icon]")
          if (link === null) return undefined
          const response = await fetch(link.href)
          return { href: link.href, status: response.status, type: response.headers.get("content-type") }
        })
        assert.deepStrictEqual(icon, { href: `${base}/favicon.svg`, status: 200, type: "image/svg+xml" })
      })
      for (const path of ["/docs", "/openapi.json"]) {
        for (const coding of ["br", "gzip"]) {
          const response = await fetch(`${base}${path}`, { headers: { "accept-encoding": coding } })
          assert.strictEqual(response.headers.get("content-encoding"), coding, `${path} ${coding}`)
          assert.include(response.headers.get("vary") ?? "", "Accept-Encoding")
          assert.isAbove((await response.text()).length, 1000)
        }
      }
      assert.strictEqual((await fetch(`${base}/favicon.ico`)).status, 200)
    }, TIMEOUT)
  })
}
