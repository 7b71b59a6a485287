/**
 * The `/docs` page of a real server (in process, on an ephemeral port) in
 * Chromium, on a closed network (test/support/browser.ts):
 *
 * - the first paint, before any script runs, is the server-rendered reference:
 *   every operation with method, path, summary and deep link (the HTML as
 *   served, and the page with JavaScript disabled);
 * - with JavaScript, Scalar's reference replaces it: operations and schemas,
 *   rendered Markdown (no raw backticks or `**`), the event stream and the
 *   error codes, search, deep links (`#tag/<tag>/<operationId>`, and a bare
 *   operationId), and try-it: "Test Request" then "Send" really calls this
 *   server and shows its 200;
 * - a page on another origin (a second ephemeral port) calls the feed and the
 *   permit request message with `x-svc-sdk` (preflighted) and reads the answers
 *   and their exposed headers; a header the CORS policy refuses is blocked;
 * - nothing is requested outside this machine and nothing logs a console error.
 *
 * Screenshots are kept in `$SVC_DOCS_SCREENSHOT_DIR` (default
 * `$TMPDIR/svc-docs-page`). One browser launch for the file; without Chromium the
 * browser tests skip, saying why (and fail on CI).
 */
import { Signature } from "@svc/protocol"
import { Effect, Exit, Scope } from "effect"
import { mkdirSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { type Browser, type BrowserPage, launch, noBrowser, skipReason } from "../../../test/support/browser.ts"
import { build, PAYER_KEY, serverLayer, testConfig } from "./support/server.ts"

/** Where the screenshots go (kept for a look, or as CI artifacts). */
const OUT = process.env.SVC_DOCS_SCREENSHOT_DIR ?? join(tmpdir(), "svc-docs-page")

/** The operations of the contract, by fragment, with method and path (written out independently of the page). */
const OPERATIONS: ReadonlyArray<readonly [string, string, string]> = [
  ["tag/discovery/getSolverManifest", "get", "/.well-known/svc-solver.json"],
  ["tag/discovery/getOnchainDiscovery", "get", "/.well-known/svc-onchain-discovery.json"],
  ["tag/discovery/getOpenApi", "get", "/openapi.json"],
  ["tag/discovery/getStandardsManifest", "get", "/.well-known/svc-standards.json"],
  ["tag/discovery/getSolverDiscovery", "get", "/api/v6/solver-discovery"],
  ["tag/feed/getSolverFeed", "get", "/api/v6/solver-feed"],
  ["tag/feed/streamSolverFeed", "get", "/api/v6/solver-feed/events"],
  ["tag/routes/getRouteDetail", "get", "/api/v6/routes/{routeId}"],
  ["tag/permits/buildPermitRequestMessage", "post", "/api/v6/execution-permits/request-message"],
  ["tag/permits/createExecutionPermit", "post", "/api/v6/execution-permits"],
  ["tag/permits/getExecutionPermit", "get", "/api/v6/execution-permits/{fillId}"],
  ["tag/aggregator/aggregator_manifest", "get", "/.well-known/svc-aggregator.json"],
  ["tag/aggregator/aggregator_quote", "post", "/v1/quote"],
  ["tag/aggregator/aggregator_build", "post", "/v1/build"],
  ["tag/aggregator/aggregator_status", "get", "/v1/status"],
  ["tag/aggregator/aggregator_chains", "get", "/v1/chains"],
  ["tag/aggregator/aggregator_tokens", "get", "/v1/tokens"],
  ["tag/aggregator/aggregator_health", "get", "/v1/health"]
]

/** Scalar's element of a fragment (operation and model ids carry a document prefix: `<doc>/tag/feed/getSolverFeed`). */
const scalarSelector = (fragment: string) => `#app [id$="/${fragment}"], #app [id="${fragment}"]`

/** A browser test's time limit: Scalar's first render takes a few seconds, more on a busy two-core machine. */
const TIMEOUT = 90_000

const missing = skipReason()

if (missing !== undefined) {
  describe("the /docs page in Chromium", () => {
    it("Chromium is available (required on CI)", (context) => noBrowser(context))
  })
} else {
  describe("the /docs page in Chromium", () => {
    let browser: Browser | undefined
    let scope: Scope.Closeable | undefined
    let base = ""
    let other: Server | undefined
    let otherOrigin = ""

    beforeAll(async () => {
      mkdirSync(OUT, { recursive: true })
      scope = Effect.runSync(Scope.make())
      base = await Effect.runPromise(Scope.provide(build(serverLayer(testConfig())), scope))
      // a page of another origin (another port) that calls the server with x-svc-sdk
      other = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        res.end(
          `<!doctype html><html><head><meta charset="utf-8"><title>wallet</title></head><body>wallet</body></html>`
        )
      })
      await new Promise<void>((resolve) => other!.listen(0, "127.0.0.1", resolve))
      otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
      browser = await launch()
    }, 120_000)

    afterAll(async () => {
      await browser?.close()
      await new Promise<void>((resolve) => (other === undefined ? resolve() : other.close(() => resolve())))
      if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
    })

    /** Opens a page, runs `f`, and checks it requested nothing outside and logged no error. */
    const withPage = async (f: (p: BrowserPage) => Promise<void>) => {
      const p = await browser!.open()
      try {
        await f(p)
        assert.deepStrictEqual(p.external, [], "requests outside this machine")
        assert.deepStrictEqual(p.errors, [], "console errors")
      } finally {
        await p.close()
      }
    }

    const shot = (p: BrowserPage, name: string) => p.page.screenshot({ path: join(OUT, name) })

    /** Loads the interactive reference and waits for Scalar's first operation. */
    const openReference = async (p: BrowserPage, hash = "") => {
      await p.page.goto(`${base}/docs${hash}`)
      await p.page.locator(scalarSelector("tag/discovery/getSolverManifest")).waitFor({ state: "attached" })
    }

    it("the first paint is the server-rendered reference: every operation, before any script runs", async () => {
      const response = await fetch(`${base}/docs`)
      assert.strictEqual(response.status, 200)
      const csp = response.headers.get("content-security-policy") ?? ""
      assert.include(csp, "default-src 'self'")
      assert.include(csp, `connect-src 'self' ${base}`)
      const html = await response.text()
      // the operations come before the first script in the document
      const firstScript = html.indexOf("<script")
      for (const [fragment, method, path] of OPERATIONS) {
        const at = html.indexOf(`<li class="op" id="${fragment}">`)
        assert.isAbove(at, 0, fragment)
        assert.isBelow(at, firstScript, fragment)
        assert.include(html.slice(at, html.indexOf("</li>", at)), `<span class="path">${path}</span>`)
        assert.include(html.slice(at, html.indexOf("</li>", at)), `<span class="method ${method}">`)
      }

      await withPage(async (p) => {
        const cdp = await p.page.context().newCDPSession(p.page)
        await cdp.send("Emulation.setScriptExecutionDisabled", { value: true })
        await p.page.goto(`${base}/docs#tag/permits/createExecutionPermit`)
        assert.isTrue(await p.page.locator("#svc-summary").isVisible())
        for (const [fragment, , path] of OPERATIONS) {
          const entry = p.page.locator(`[id="${fragment}"]`)
          assert.strictEqual(await entry.locator(".path").textContent(), path)
          assert.strictEqual(await entry.locator("a").first().getAttribute("href"), `#${fragment}`)
        }
        // the deep link works without JavaScript too
        const top = (await p.page.locator(`[id="tag/permits/createExecutionPermit"]`).boundingBox())!.y
        assert.isBelow(Math.abs(top), 50)
        // the error codes and the event stream, rendered from the description's Markdown
        assert.include(await p.page.locator(`[id="description/errors"]`).textContent(), "Errors")
        assert.isAbove(await p.page.locator("#svc-summary table td code", { hasText: "QUOTE_NOT_OPEN" }).count(), 0)
        assert.isTrue(await p.page.locator(`[id="description/event-stream"]`).isVisible())
        await shot(p, "docs-without-javascript.png")
      })
    }, TIMEOUT)

    it("with JavaScript: Scalar's reference of every operation and the schemas, Markdown rendered", async () => {
      await withPage(async (p) => {
        await openReference(p)
        assert.isTrue(await p.page.locator("#svc-summary").isHidden())
        for (const [fragment] of OPERATIONS) {
          assert.strictEqual(await p.page.locator(scalarSelector(fragment)).count(), 1, fragment)
        }
        const sidebar = p.page.locator("#app").getByText("Signed route feed", { exact: true }).first()
        await sidebar.waitFor()
        assert.isAbove(await p.page.locator(scalarSelector("models/SignedFeed")).count(), 0)
        assert.isAbove(await p.page.locator(scalarSelector("models/ErrorResponse")).count(), 0)
        // the introduction, the event stream and the error codes, as rendered Markdown
        const markdown = p.page.locator("#app .markdown")
        await markdown.first().waitFor()
        const texts = await markdown.allInnerTexts()
        assert.isAbove(texts.length, 3)
        for (const text of texts) {
          assert.notInclude(text, "`", text.slice(0, 80))
          assert.notInclude(text, "**", text.slice(0, 80))
        }
        assert.isAbove(await p.page.locator("#app .markdown code", { hasText: "signedPayload" }).count(), 0)
        assert.isAbove(await p.page.locator("#app .markdown table td", { hasText: "QUOTE_NOT_OPEN" }).count(), 0)
        assert.isAbove(await p.page.locator(scalarSelector("description/errors")).count(), 0)
        assert.isAbove(await p.page.locator(scalarSelector("description/event-stream")).count(), 0)
        await shot(p, "docs.png")
      })
    }, TIMEOUT)

    it("a deep link opens its operation, with request and response examples from the schemas", async () => {
      await withPage(async (p) => {
        await openReference(p, "#tag/permits/createExecutionPermit")
        const permit = p.page.locator(scalarSelector("tag/permits/createExecutionPermit"))
        await permit.getByText("Create an execution permit").first().waitFor()
        await p.page.waitForFunction((selector) => {
          const top = document.querySelector(selector)?.getBoundingClientRect().top
          return top !== undefined && Math.abs(top) < 120
        }, scalarSelector("tag/permits/createExecutionPermit"))
        // request and response examples generated from the schemas
        const text = await permit.innerText()
        for (const word of ["curl", "requestedAmountInRaw", "idempotencyKey", "\"ok\"", "\"permit\"", "409"]) {
          assert.include(text, word)
        }
        await shot(p, "docs-deep-link.png")
      })
    }, TIMEOUT)

    it("a bare operationId leads to its operation: the event stream, its events and error codes", async () => {
      await withPage(async (p) => {
        await openReference(p, "#streamSolverFeed")
        await p.page.waitForFunction(() => location.hash === "#tag/feed/streamSolverFeed")
        const stream = p.page.locator(scalarSelector("tag/feed/streamSolverFeed"))
        await stream.getByText("publication-closed").first().waitFor()
        const text = await stream.innerText()
        for (
          const word of ["text/event-stream", "Last-Event-ID", "SseErrorEvent", "PUBLICATION_CLOSED", "retry: 3000"]
        ) {
          assert.include(text, word)
        }
        await shot(p, "docs-event-stream.png")
      })
    }, TIMEOUT)

    it("search finds an operation and goes to it", async () => {
      await withPage(async (p) => {
        await openReference(p)
        await p.page.locator("#app").getByRole("button", { name: /Search/ }).first().click()
        await p.page.keyboard.type("permit status")
        const option = p.page.getByRole("option", { name: /Permit status/ }).first()
        await option.waitFor()
        await shot(p, "docs-search.png")
        await option.click()
        await p.page.waitForFunction(() => location.hash === "#tag/permits/getExecutionPermit")
      })
    }, TIMEOUT)

    it("try-it: Test Request, then Send, calls this server and shows its 200", async () => {
      await withPage(async (p) => {
        await openReference(p, "#tag/discovery/getSolverManifest")
        const operation = p.page.locator(scalarSelector("tag/discovery/getSolverManifest"))
        await operation.getByRole("button", { name: /Test Request/ }).click()
        const send = p.page.getByRole("button", { name: /^Send get request to / })
        await send.waitFor()
        const [response] = await Promise.all([
          p.page.waitForResponse((r) => r.url() === `${base}/.well-known/svc-solver.json`),
          send.click()
        ])
        assert.strictEqual(response.status(), 200)
        assert.strictEqual(response.request().method(), "GET")
        // the answer as the client shows it: status and the manifest's body
        await p.page.getByText("200 OK").first().waitFor()
        await p.page.getByText("SVC_MAINNET_V6_SOLVER_DISCOVERY_V2").first().waitFor()
        await shot(p, "docs-try-it.png")
      })
    }, TIMEOUT)

    it("CORS: a page on another origin calls the feed and the permit request message with x-svc-sdk", async () => {
      const feed = await (await fetch(`${base}/api/v6/solver-feed`)).json() as any
      const route = feed.feed.openRoutes.find((r: any) => r.sourceChainId === "8453")
      const payer = Signature.addressOf(PAYER_KEY)
      const body = {
        quoteId: route.quoteId,
        requestedAmountInRaw: route.minimumFillInRaw,
        payer,
        recipient: payer,
        idempotencyKey: "svc-browser-cors-0001"
      }
      await withPage(async (p) => {
        // while requests are intercepted, Playwright answers CORS preflights itself (allowing everything):
        // this page (local only) goes without interception, so the server's own preflights decide
        await p.page.context().unrouteAll({ behavior: "wait" })
        await p.page.goto(`${otherOrigin}/`)
        const sent: Array<Record<string, string>> = []
        p.page.on("request", (r) => {
          if (r.url().startsWith(base)) {
            sent.push({ method: r.method(), url: r.url(), sdk: r.headers()["x-svc-sdk"] ?? "" })
          }
        })
        const results = await p.page.evaluate(async ({ base, body }) => {
          const sdk = { "x-svc-sdk": "typescript/0.1.0" }
          const read = async (r: Response) => ({
            status: r.status,
            requestId: r.headers.get("x-request-id"),
            etag: r.headers.get("etag"),
            body: await r.json()
          })
          const feed = await read(await fetch(`${base}/api/v6/solver-feed`, { headers: sdk }))
          const message = await read(
            await fetch(`${base}/api/v6/execution-permits/request-message`, {
              method: "POST",
              headers: { ...sdk, "content-type": "application/json" },
              body: JSON.stringify(body)
            })
          )
          const health = await read(await fetch(`${base}/v1/health`, { headers: sdk }))
          // a credential header is never allowed: the browser blocks the call after its preflight
          const blocked = await fetch(`${base}/api/v6/solver-feed`, { headers: { authorization: "Bearer x" } })
            .then(() => "sent", (e: Error) => e.name)
          return { origin: location.origin, feed, message, health, blocked }
        }, { base, body })
        assert.strictEqual(results.origin, otherOrigin)
        assert.notStrictEqual(results.origin, base)
        assert.strictEqual(results.feed.status, 200)
        assert.strictEqual(results.feed.body.ok, true)
        assert.match(results.feed.etag ?? "", /^W\//)
        assert.isString(results.feed.requestId)
        assert.strictEqual(results.message.status, 200)
        assert.strictEqual(results.message.body.ok, true)
        assert.include(results.message.body.message, route.quoteId)
        assert.strictEqual(results.health.status, 200)
        assert.strictEqual(results.blocked, "TypeError")
        // the calls went out carrying the header
        const sdkCalls = sent.filter((s) => s.sdk === "typescript/0.1.0").map((s) =>
          `${s.method} ${new URL(s.url).pathname}`
        )
        assert.includeMembers(sdkCalls, [
          "GET /api/v6/solver-feed",
          "POST /api/v6/execution-permits/request-message",
          "GET /v1/health"
        ])
        // the blocked call's preflight failing is logged by Chromium as a console error: expected here
        const errors = p.errors.filter((e) => !/authorization|CORS|Failed to load resource|Failed to fetch/i.test(e))
        ;(p.errors as Array<string>).length = 0
        assert.deepStrictEqual(errors, [])
      })
    }, TIMEOUT)
  })
}
