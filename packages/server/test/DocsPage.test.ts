/**
 * The `/docs` page as HTML (its browser behaviour is DocsPage.browser.e2e.test.ts):
 * the server-rendered reference has every operation of the document with its
 * deep link, the error codes and the event stream; the Markdown of descriptions
 * is rendered and never passes HTML through; nothing in the document can break
 * out of the page; the page loads scripts only from its own origin, and its CSP
 * names the inline boot script by hash. And the Scalar bundle asset.
 */
import { assert, describe, it } from "@effect/vitest"
import { AGGREGATOR_ERRORS } from "@svc/protocol"
import * as ApiDocument from "@svc/protocol/ApiDocument"
import { SOLVER_ERRORS } from "@svc/protocol/ErrorCodes"
import { createHash } from "node:crypto"
import { existsSync } from "node:fs"
import * as DocsAssets from "../src/DocsAssets.ts"
import * as DocsPage from "../src/DocsPage.ts"

const PUBLIC_URL = "https://solver.example.org"
const doc = ApiDocument.make({ publicUrl: PUBLIC_URL })
const page = DocsPage.make(doc, { scriptUrl: "docs/scalar.abc.js" })
const html = page.html

const operations = (): Array<[string, string, Record<string, any>]> =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): [string, string, Record<string, any>] => [path, method, op])
  )

describe("API reference page", () => {
  it("lists every operation with method, path, summary, operationId and its deep link", () => {
    const ops = operations()
    assert.strictEqual(ops.length, 18)
    for (const [path, method, op] of ops) {
      const fragment = DocsPage.operationFragment(op.tags[0], op.operationId)
      assert.match(fragment, /^tag\/[a-z]+\/[A-Za-z_]+$/)
      const start = html.indexOf(`<li class="op" id="${fragment}">`)
      assert.isAbove(start, 0, fragment)
      const entry = html.slice(start, html.indexOf("</li>", start))
      assert.include(entry, `href="#${fragment}"`)
      assert.include(entry, `<span class="method ${method}">${method}</span>`)
      assert.include(entry, `<span class="path">${path}</span>`)
      assert.include(entry, op.summary)
      assert.include(entry, `<code>${op.operationId}</code>`)
    }
    assert.include(html, "<h1>Svc V6 Solver and Aggregator API</h1>")
    // the short links (an operationId alone) go to the same place
    const config = JSON.parse(/<script id="svc-docs-config" type="application\/json">(.*?)<\/script>/s.exec(html)![1]!)
    assert.strictEqual(config.operations.getSolverFeed, "tag/feed/getSolverFeed")
    assert.strictEqual(config.openapiUrl, "openapi.json")
  })

  it("documents the event stream and every error code of both families", () => {
    assert.include(html, `id="${DocsPage.fragments.heading("Event stream")}"`)
    assert.include(html, `id="${DocsPage.fragments.heading("Errors")}"`)
    assert.include(html, "server-sent events <code>feed</code>, <code>publication-closed</code>, <code>error</code>")
    for (const code of [...Object.keys(SOLVER_ERRORS), ...Object.keys(AGGREGATOR_ERRORS)]) {
      assert.include(html, `<td><code>${code}</code></td>`, code)
    }
  })

  it("renders the descriptions' Markdown: no raw backticks or asterisks, tables and lists", () => {
    const text = html.replace(/<script[\s\S]*?<\/script>/g, "").replace(/<style[\s\S]*?<\/style>/g, "")
    assert.notInclude(text, "`")
    assert.notInclude(text, "**")
    assert.include(text, "<code>signedPayload</code>")
    assert.match(text, /<table><thead><tr><th><code>error<\/code><\/th><th>Status<\/th>/)
    assert.match(text, /<ul><li>The signed payload of the feed/)
  })

  it("Markdown: the subset, escaped", () => {
    assert.strictEqual(
      DocsPage.markdown("a `b<c>` **d** *e* [f](https://x.example/y)"),
      "<p>a <code>b&lt;c&gt;</code> <strong>d</strong> <em>e</em> <a href=\"https://x.example/y\">f</a></p>"
    )
    assert.strictEqual(DocsPage.markdown("[x](javascript:alert(1))"), "<p>[x](javascript:alert(1))</p>")
    assert.strictEqual(DocsPage.markdown("<img src=x onerror=alert(1)>"), "<p>&lt;img src=x onerror=alert(1)&gt;</p>")
    assert.strictEqual(
      DocsPage.markdown("- one\n  continued\n- two\n\n1. first\n2. second"),
      "<ul><li>one continued</li><li>two</li></ul>\n<ol><li>first</li><li>second</li></ol>"
    )
    assert.strictEqual(
      DocsPage.markdown("## Errors\n\n| a | b |\n| --- | --- |\n| `x` | y |"),
      "<h2 id=\"description/errors\">Errors</h2>\n<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td><code>x</code></td><td>y</td></tr></tbody></table>"
    )
    assert.strictEqual(DocsPage.markdown("```\n<b>\n```"), "<pre><code>&lt;b&gt;</code></pre>")
  })

  it("cannot be broken out of by the document", () => {
    const evil = "</script><script>window.__pwned=1</script><img src=x onerror=alert(1)>"
    const hostile = structuredClone(doc) as Record<string, any>
    hostile.info.title = evil
    hostile.info.description = `${evil}\n\n[a](javascript:alert(1))`
    hostile.paths["/api/v6/solver-feed"].get.summary = evil
    hostile.paths["/api/v6/solver-feed"].get.operationId = `x${evil}`
    hostile.tags[0].description = evil
    const out = DocsPage.make(hostile, { scriptUrl: "docs/scalar.abc.js" }).html
    assert.strictEqual(out.match(/<script/g)!.length, 3)
    assert.strictEqual(out.match(/<\/script>/g)!.length, 3)
    assert.notInclude(out, "<img")
    assert.notInclude(out, "javascript:alert(1)\"")
  })

  it("loads scripts from its own origin only; the CSP names the boot script by hash", () => {
    assert.match(html, /^<!doctype html>/)
    const sources = [...html.matchAll(/<script[^>]*\ssrc="([^"]*)"/g)].map((m) => m[1])
    assert.deepStrictEqual(sources, ["docs/scalar.abc.js"])
    // one link: the favicon, of its own origin
    assert.deepStrictEqual([...html.matchAll(/<link[^>]+href="([^"]*)"/gi)].map((m) => m[1]), ["favicon.svg"])
    assert.notMatch(html, /@import|\burl\(/) // CSS (the boot script resolves paths with new URL(...))
    for (const url of html.matchAll(/https?:\/\/[^\s"'<>)]+/g)) assert.strictEqual(url[0], PUBLIC_URL)
    const csp = page.headers["content-security-policy"]!
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!)
    assert.strictEqual(inline.length, 1)
    const hash = createHash("sha256").update(inline[0]!).digest("base64")
    assert.include(csp, `script-src 'self' 'sha256-${hash}'`)
    assert.include(csp, `connect-src 'self' ${PUBLIC_URL}`)
    assert.include(csp, "frame-ancestors 'none'")
    assert.notInclude(csp, "unsafe-eval")
  })

  it("without the bundle it is the server-rendered reference alone", () => {
    const alone = DocsPage.make(doc).html
    assert.notInclude(alone, "<script src=")
    assert.notInclude(alone, "Scalar.createApiReference")
    assert.include(alone, "tag/feed/getSolverFeed")
  })

  it("links spec parts to the specification when its URL is given", () => {
    const withSpec = DocsPage.make(doc, { specUrl: "https://docs.example/interface" }).html
    assert.include(withSpec, "href=\"https://docs.example/interface#4-endpoints\"")
  })
})

describe("Scalar bundle asset", () => {
  it("is Scalar's standalone bundle, content addressed", () => {
    assert.isTrue(existsSync(DocsAssets.scalarBundlePath()))
    const asset = DocsAssets.scalar()
    assert.match(asset.path, /^\/docs\/scalar\.[A-Za-z0-9_-]{16}\.js$/)
    assert.match(asset.etag, /^"[A-Za-z0-9_-]{32}"$/)
    assert.isAbove(asset.identity.length, 1_000_000)
    assert.strictEqual(DocsAssets.scalar(), asset)
  })
})
