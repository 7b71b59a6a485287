/**
 * The API reference page served at `/docs`, rendered from the deployment's
 * OpenAPI document in two layers:
 *
 * 1. **On the server**, once at start: title, version, the introduction (its
 *    Markdown rendered, the error-code tables included), every operation by tag
 *    with method, path, summary, operationId, statuses and the spec part it
 *    implements, and the schema names. This is the page's first paint, and all
 *    of it without JavaScript; every entry has the same fragment as in the
 *    interactive reference (`#tag/feed/getSolverFeed`), so deep links work in
 *    both.
 * 2. **In the browser**: Scalar's API reference (the bundle this deployment
 *    serves itself, see `DocsAssets`) replaces it: rendered Markdown, the
 *    request and response examples (the document's recorded ones, with this
 *    deployment's live route, quote and pair where the page's try-it needs
 *    them), search, the models, and try-it against `servers[0]` of the document
 *    (this deployment's public URL), sent straight from the page (no proxy).
 *
 * The page fetches only from its own origin (the bundle, `openapi.json`) and,
 * for try-it, the document's server URLs: its Content-Security-Policy says so
 * (scripts: the bundle and the one inline boot script, by hash; no fonts or
 * images from elsewhere; no framing).
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"

type JsonRecord = Record<string, any>

/**
 * Options of {@link make}.
 *
 * @category models
 * @since 0.1.0
 */
export interface DocsPageOptions {
  /**
   * URL of `openapi.json` for the browser, relative to the page (default
   * `openapi.json`, which resolves next to `/docs` also under a path prefix).
   */
  readonly openapiUrl?: string | undefined
  /**
   * URL of Scalar's standalone bundle relative to the page
   * (`docs/scalar.<hash>.js`, `DocsAssets.scalar().path` without its leading
   * slash). Absent: the page is the server-rendered reference only.
   */
  readonly scriptUrl?: string | undefined
  /**
   * URL of the interface specification (markdown rendered with GitHub-style
   * heading anchors). When absent, spec references link to the spec-part index
   * on the page itself.
   */
  readonly specUrl?: string | undefined
}

/**
 * The page: its HTML and the headers it is served with (its
 * Content-Security-Policy).
 *
 * @category models
 * @since 0.1.0
 */
export interface DocsPage {
  readonly html: string
  readonly headers: Readonly<Record<string, string>>
}

/**
 * The HTTP methods an OpenAPI path item may declare, in display order.
 *
 * @category constants
 * @since 0.1.0
 */
export const METHODS = ["get", "post", "put", "patch", "delete", "head", "options", "trace"] as const

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** JSON inside a `<script type="application/json">`: nothing can close the element. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")

// ---------------------------------------------------------------------------
// Fragments: the same on the server and in Scalar (the boot script's `slug`)
// ---------------------------------------------------------------------------

/**
 * The slug of a tag or heading in a fragment: lower case, runs of anything but
 * letters and digits as one `-`. The boot script gives Scalar the same function.
 *
 * @category http
 * @since 0.1.0
 */
export const slug = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")

const SLUG_SOURCE = `(text) => String(text).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")`

/**
 * The fragment (without `#`) of an operation: `tag/<tag slug>/<operationId>`.
 *
 * @category http
 * @since 0.1.0
 */
export const operationFragment = (tag: string, operationId: string): string => `tag/${slug(tag)}/${operationId}`

/**
 * The fragment of a tag, a schema and a heading of the description.
 *
 * @category http
 * @since 0.1.0
 */
export const fragments = {
  tag: (tag: string): string => `tag/${slug(tag)}`,
  model: (name: string): string => `models/${name}`,
  heading: (text: string): string => `description/${slug(text)}`
} as const

// ---------------------------------------------------------------------------
// Markdown: the subset the document's descriptions use, rendered safely
// ---------------------------------------------------------------------------

const safeHref = (url: string): string | undefined => /^(https?:\/\/|#|\/|\.{0,2}\/)/i.test(url) ? url : undefined

/** Inline Markdown: code spans, bold, emphasis and links; everything else is text. */
const inline = (text: string): string => {
  let out = ""
  let rest = text
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)\s]+)\)/
  while (rest.length > 0) {
    const m = pattern.exec(rest)
    if (m === null) {
      out += escapeHtml(rest)
      break
    }
    out += escapeHtml(rest.slice(0, m.index))
    if (m[1] !== undefined) out += `<code>${escapeHtml(m[1])}</code>`
    else if (m[2] !== undefined) out += `<strong>${inline(m[2])}</strong>`
    else if (m[3] !== undefined) out += `<em>${inline(m[3])}</em>`
    else {
      const href = safeHref(m[5]!)
      out += href === undefined ? escapeHtml(m[0]) : `<a href="${escapeHtml(href)}">${inline(m[4]!)}</a>`
    }
    rest = rest.slice(m.index + m[0].length)
  }
  return out
}

const tableCells = (line: string): Array<string> =>
  line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim())

/**
 * Renders the Markdown of an OpenAPI description to HTML: paragraphs, headings
 * (with the fragment Scalar gives them), `-`/`*` and numbered lists (continued by
 * indented lines), pipe tables and fenced code, with inline code, bold, emphasis
 * and http(s) or relative links. Raw HTML is escaped, never passed through.
 *
 * @category encoding
 * @since 0.1.0
 */
export const markdown = (source: string): string => {
  const lines = source.replace(/\r\n?/g, "\n").split("\n")
  const out: Array<string> = []
  let i = 0
  const isBlank = (l: string | undefined) => l === undefined || l.trim().length === 0
  const listItem = /^\s{0,3}(?:([-*])|(\d+)\.)\s+(.*)$/
  while (i < lines.length) {
    const line = lines[i]!
    if (isBlank(line)) {
      i++
      continue
    }
    const fence = /^\s*```/.exec(line)
    if (fence !== null) {
      const body: Array<string> = []
      i++
      while (i < lines.length && !/^\s*```/.test(lines[i]!)) body.push(lines[i++]!)
      i++
      out.push(`<pre><code>${escapeHtml(body.join("\n"))}</code></pre>`)
      continue
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading !== null) {
      const level = heading[1]!.length
      const text = heading[2]!
      out.push(`<h${level} id="${escapeHtml(fragments.heading(text))}">${inline(text)}</h${level}>`)
      i++
      continue
    }
    if (line.trim().startsWith("|") && /^\s*\|?\s*:?-{3,}/.test(lines[i + 1] ?? "")) {
      const head = tableCells(line)
      i += 2
      const rows: Array<Array<string>> = []
      while (i < lines.length && lines[i]!.trim().startsWith("|")) rows.push(tableCells(lines[i++]!))
      out.push(
        `<table><thead><tr>${head.map((c) => `<th>${inline(c)}</th>`).join("")}</tr></thead><tbody>${
          rows.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join("")}</tr>`).join("")
        }</tbody></table>`
      )
      continue
    }
    const first = listItem.exec(line)
    if (first !== null) {
      const ordered = first[2] !== undefined
      const items: Array<string> = []
      while (i < lines.length) {
        const m = listItem.exec(lines[i]!)
        if (m === null || (m[2] !== undefined) !== ordered) break
        let text = m[3]!
        i++
        // continuation lines: indented, not a new item
        while (i < lines.length && !isBlank(lines[i]) && /^\s+\S/.test(lines[i]!) && !listItem.test(lines[i]!)) {
          text += ` ${lines[i++]!.trim()}`
        }
        items.push(`<li>${inline(text)}</li>`)
        if (isBlank(lines[i]) && listItem.test(lines[i + 1] ?? "")) i++
      }
      const tag = ordered ? "ol" : "ul"
      out.push(`<${tag}>${items.join("")}</${tag}>`)
      continue
    }
    const paragraph: Array<string> = []
    while (
      i < lines.length && !isBlank(lines[i]) && !/^(#{1,6})\s/.test(lines[i]!) && !listItem.test(lines[i]!) &&
      !/^\s*```/.test(lines[i]!) && !lines[i]!.trim().startsWith("|")
    ) {
      paragraph.push(lines[i++]!.trim())
    }
    if (paragraph.length === 0) paragraph.push(lines[i++]!.trim())
    out.push(`<p>${inline(paragraph.join(" "))}</p>`)
  }
  return out.join("\n")
}

// ---------------------------------------------------------------------------
// The server-rendered reference
// ---------------------------------------------------------------------------

/**
 * An operation of the document, as the page lists it.
 *
 * @category models
 * @since 0.1.0
 */
export interface OperationEntry {
  readonly tag: string
  readonly method: string
  readonly path: string
  readonly operation: JsonRecord
  /** The operation's fragment (without `#`). */
  readonly fragment: string
}

/**
 * The operations of a document by tag, in the order of `tags` (then any other
 * tag in order of appearance), each in the document's order.
 *
 * @category http
 * @since 0.1.0
 */
export const operationsByTag = (document: JsonRecord): ReadonlyMap<string, ReadonlyArray<OperationEntry>> => {
  const byTag = new Map<string, Array<OperationEntry>>()
  for (const t of (document.tags as Array<JsonRecord> | undefined) ?? []) byTag.set(String(t.name), [])
  for (const [path, item] of Object.entries((document.paths as JsonRecord | undefined) ?? {})) {
    for (const method of METHODS) {
      const operation = (item as JsonRecord)[method] as JsonRecord | undefined
      if (operation === undefined) continue
      const tag = String(operation.tags?.[0] ?? "default")
      const id = String(operation.operationId ?? `${method}${path}`)
      const list = byTag.get(tag) ?? []
      byTag.set(tag, list)
      list.push({ tag, method, path, operation, fragment: operationFragment(tag, id) })
    }
  }
  for (const [tag, list] of byTag) if (list.length === 0) byTag.delete(tag)
  return byTag
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--code:#f6f8fa;--get:#0969da;--post:#1a7f37;--other:#8250df}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8d96a0;--line:#30363d;--code:#161b22;--get:#4493f8;--post:#3fb950;--other:#a371f7}}
*{box-sizing:border-box}body{margin:0;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
#svc-summary{max-width:1100px;margin:0 auto;padding:24px}#svc-summary h1{margin:0 0 4px}
#svc-summary h2{margin-top:36px;padding-bottom:4px;border-bottom:1px solid var(--line)}
.muted{color:var(--muted)}code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border-radius:4px}
code{padding:1px 4px}pre{padding:8px;overflow:auto}
table{border-collapse:collapse;margin:8px 0;width:100%}th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.toc{columns:2 280px;padding-left:18px}.ops{list-style:none;padding:0}
.op{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:8px 12px}
.op>a{display:flex;gap:12px;align-items:baseline;flex-wrap:wrap;color:inherit;text-decoration:none}
.method{font:700 12px ui-monospace,monospace;text-transform:uppercase;padding:2px 8px;border-radius:4px;color:#fff;min-width:56px;text-align:center;background:var(--other)}
.method.get{background:var(--get)}.method.post{background:var(--post)}.path{font-family:ui-monospace,monospace;font-weight:600}
.op .meta{font-size:13px}.op details{margin-top:4px}.op summary{cursor:pointer;font-size:13px;color:var(--muted)}.schemas{columns:3 220px;padding-left:18px}
.loading{font-size:13px}
`

const methodBadge = (method: string) => `<span class="method ${escapeHtml(method)}">${escapeHtml(method)}</span>`

const specLine = (op: JsonRecord, parts: JsonRecord, specUrl: string | undefined): string => {
  const ext = op["x-svc-spec"] as JsonRecord | undefined
  if (ext === undefined || !Array.isArray(ext.parts)) return ""
  const links = (ext.parts as Array<string>).map((part) => {
    const title = `${part}. ${String(parts[part] ?? "")}`
    const href = specUrl === undefined ? `#spec-part-${part}` : `${specUrl}#${slug(title)}`
    return `<a href="${escapeHtml(href)}">spec part ${escapeHtml(title)}</a>`
  })
  return ` · implements ${links.join(", ")}${
    typeof ext.section === "string" ? ` (<em>${escapeHtml(ext.section)}</em>)` : ""
  }`
}

const renderOperation = (entry: OperationEntry, parts: JsonRecord, specUrl: string | undefined): string => {
  const op = entry.operation
  const statuses = Object.keys((op.responses as JsonRecord | undefined) ?? {}).join(" · ")
  const events = Object.keys((op.responses?.["200"]?.["x-svc-events"] as JsonRecord | undefined) ?? {})
  return `<li class="op" id="${escapeHtml(entry.fragment)}"><a href="#${escapeHtml(entry.fragment)}">${
    methodBadge(entry.method)
  }<span class="path">${escapeHtml(entry.path)}</span><span>${escapeHtml(String(op.summary ?? ""))}</span></a>
<div class="meta muted"><code>${escapeHtml(String(op.operationId ?? ""))}</code> · responses ${escapeHtml(statuses)}${
    events.length > 0 ? ` · server-sent events ${events.map((e) => `<code>${escapeHtml(e)}</code>`).join(", ")}` : ""
  }${specLine(op, parts, specUrl)}</div>${
    typeof op.description === "string"
      ? `<details><summary>Description</summary>${markdown(op.description)}</details>`
      : ""
  }</li>`
}

/**
 * Brings an OpenAPI document's committed examples up to a deployment's live data,
 * in place, where the try-it of the page then gets a documented answer instead
 * of a refusal of stale identifiers: the route detail's `routeId`, the permit
 * request message's and the permit creation's `quoteId` and amount (of an open
 * route of the current feed), and the quote's pair and amount (of a pair
 * `/v1/chains` lists, when the committed one is not). The permit creation's
 * signature stays the example's: a page cannot sign for the payer, and the
 * operation documents the 400 it gets. Runs in the page (its source is inlined in
 * the boot script): plain JavaScript, no closure.
 *
 * @category http
 * @since 0.1.0
 */
export const liveExamples = (doc: any, feed: any, chains: any): void => {
  const operation = (path: string, method: string) => doc?.paths?.[path]?.[method]
  const bodyExamples = (op: any): Array<any> =>
    Object.values(op?.requestBody?.content?.["application/json"]?.examples ?? {})
  const route = (feed?.openRoutes ?? []).find((r: any) => r.permitAvailable !== false) ?? feed?.openRoutes?.[0]
  if (route !== undefined) {
    for (const p of operation("/api/v6/routes/{routeId}", "get")?.parameters ?? []) {
      if (p.name === "routeId") p.example = route.routeId
    }
    for (const path of ["/api/v6/execution-permits/request-message", "/api/v6/execution-permits"]) {
      for (const example of bodyExamples(operation(path, "post"))) {
        if (example.value === undefined || example.value === null) continue
        example.value = { ...example.value, quoteId: route.quoteId, requestedAmountInRaw: route.minimumFillInRaw }
      }
    }
  }
  const pairs: Array<any> = chains?.pairs ?? []
  for (const example of bodyExamples(operation("/v1/quote", "post"))) {
    const value = example.value
    if (value === undefined || value === null || pairs.length === 0) continue
    const same = (p: any) =>
      p.fromChainId === value.fromChainId && p.toChainId === value.toChainId &&
      String(p.fromToken).toLowerCase() === String(value.fromToken).toLowerCase() &&
      String(p.toToken).toLowerCase() === String(value.toToken).toLowerCase()
    if (pairs.some(same)) continue
    const pair = pairs[0]
    const limits = (chains.routes ?? []).find((r: any) => r.routeId === pair.routeId)
    example.value = {
      ...value,
      fromChainId: pair.fromChainId,
      toChainId: pair.toChainId,
      fromToken: pair.fromToken,
      toToken: pair.toToken,
      amountIn: limits?.minimumFillInRaw ?? value.amountIn
    }
  }
}

/** The source of {@link liveExamples} for the page: the compiled function, types gone. */
const LIVE_EXAMPLES_SOURCE = liveExamples.toString()

/**
 * The page's boot script: hides the server-rendered reference and starts Scalar on the empty `#app`, with the
 * document's committed examples brought up to this deployment's live data where that serves the try-it better
 * (see {@link liveExamples}); should the live data not come, the committed examples stay.
 */
const BOOT_SCRIPT = `"use strict";
(() => {
  const config = JSON.parse(document.getElementById("svc-docs-config").textContent);
  const summary = document.getElementById("svc-summary");
  if (typeof Scalar === "undefined" || typeof Scalar.createApiReference !== "function") return;
  const slug = ${SLUG_SOURCE};
  const short = config.operations;
  const live = ${LIVE_EXAMPLES_SOURCE};
  const getJson = (path) => fetch(new URL(path, location.href)).then((r) => r.ok ? r.json() : undefined, () => undefined);
  const start = (content) => {
    // the interactive reference takes the place of the server-rendered one (shown again should Scalar fail to start)
    summary.hidden = true;
    try {
      Scalar.createApiReference("#app", {
        ...(content === undefined ? { url: config.openapiUrl } : { content }),
        withDefaultFonts: false,
        telemetry: false,
        showDeveloperTools: "never",
        showToolbar: "never",
        hideClientButton: true,
        documentDownloadType: "direct",
        mcp: { disabled: true },
        agent: { disabled: true },
        showOperationId: true,
        defaultOpenAllTags: true,
        generateTagSlug: (tag) => slug(tag.name),
        generateHeadingSlug: (heading) => "description/" + slug(heading.slug),
        generateModelSlug: (model) => model.name,
        generateOperationSlug: (operation) => operation.operationId || (operation.method + operation.path),
        // a fragment that is only an operationId (the earlier page's links) opens that operation
        redirect: (hash) => {
          const id = String(hash).replace(/^#/, "");
          return Object.hasOwn(short, id) ? "#" + short[id] : null;
        }
      });
    } catch (error) {
      summary.hidden = false;
      throw error;
    }
  };
  Promise.all([getJson(config.openapiUrl), getJson(config.feedUrl), getJson(config.chainsUrl)]).then(
    ([doc, feed, chains]) => {
      if (doc === undefined) return start(undefined);
      try {
        live(doc, feed && feed.feed, chains);
      } catch {
        // the committed examples stay
      }
      start(doc);
    }
  );
})();
`
const sha256 = (text: string) => createHash("sha256").update(text).digest("base64")

/** The origins of the document's absolute server URLs (try-it calls them). */
const serverOrigins = (document: JsonRecord): Array<string> => {
  const origins: Array<string> = []
  for (const server of (document.servers as Array<JsonRecord> | undefined) ?? []) {
    try {
      const origin = new URL(String(server.url)).origin
      if (origin !== "null" && !origins.includes(origin)) origins.push(origin)
    } catch {
      // a relative server URL is the page's own origin
    }
  }
  return origins
}

/**
 * The Content-Security-Policy of the page: its own origin only (plus the
 * document's server URLs for try-it); the inline boot script by hash; inline
 * styles (Scalar injects its own).
 *
 * @category http
 * @since 0.1.0
 */
export const contentSecurityPolicy = (document: JsonRecord): string =>
  [
    "default-src 'self'",
    `script-src 'self' 'sha256-${sha256(BOOT_SCRIPT)}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src ${["'self'", ...serverOrigins(document)].join(" ")}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; ")

/**
 * The page of an OpenAPI document.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (document: JsonRecord, options: DocsPageOptions = {}): DocsPage => {
  const openapiUrl = options.openapiUrl ?? "openapi.json"
  const info = (document.info as JsonRecord | undefined) ?? {}
  const title = String(info.title ?? "API reference")
  const parts = (document["x-svc-spec-parts"] as JsonRecord | undefined) ?? {}
  const byTag = operationsByTag(document)
  const tagDescriptions = new Map(
    ((document.tags as Array<JsonRecord> | undefined) ?? []).map((t) => [String(t.name), t.description])
  )
  const servers = ((document.servers as Array<JsonRecord> | undefined) ?? []).map((s) => String(s.url))
  const schemas = Object.keys((document.components?.schemas as JsonRecord | undefined) ?? {})
  // the introduction (up to the description's first heading) comes before the operations, its sections after
  const description = typeof info.description === "string" ? info.description : ""
  const firstHeading = description.search(/^#{1,6}\s/m)
  const intro = firstHeading === -1 ? description : description.slice(0, firstHeading)
  const rest = firstHeading === -1 ? "" : description.slice(firstHeading)

  const toc = [...byTag].map(([tag, ops]) =>
    `<li><a href="#${escapeHtml(fragments.tag(tag))}">${escapeHtml(tag)}</a> (${ops.length})</li>`
  ).join("")
  const sections = [...byTag].map(([tag, ops]) => {
    const description = tagDescriptions.get(tag)
    return `<section id="${escapeHtml(fragments.tag(tag))}"><h2>${escapeHtml(tag)}</h2>${
      typeof description === "string" ? markdown(description) : ""
    }<ul class="ops">${ops.map((e) => renderOperation(e, parts, options.specUrl)).join("\n")}</ul></section>`
  }).join("\n")
  const specParts = Object.entries(parts).map(([part, partTitle]) => {
    const text = escapeHtml(String(partTitle))
    const item = options.specUrl === undefined
      ? text
      : `<a href="${escapeHtml(`${options.specUrl}#${slug(`${part}. ${String(partTitle)}`)}`)}">${text}</a>`
    return `<li id="spec-part-${escapeHtml(part)}" value="${escapeHtml(part)}">${item}</li>`
  }).join("")
  const shortLinks = Object.fromEntries(
    [...byTag.values()].flat().flatMap((e) =>
      typeof e.operation.operationId === "string" ? [[e.operation.operationId, e.fragment]] : []
    )
  )
  // the live data of the deployment the examples are brought up to (relative to the page, like openapiUrl)
  const config = { openapiUrl, feedUrl: "api/v6/solver-feed", chainsUrl: "v1/chains", operations: shortLinks }

  const summary = `<div id="svc-summary">
<header><h1>${escapeHtml(title)}</h1>
<p class="muted">version ${escapeHtml(String(info.version ?? ""))} · OpenAPI ${
    escapeHtml(String(document.openapi ?? ""))
  } · <a href="${escapeHtml(openapiUrl)}">openapi.json</a>${
    servers.length > 0 ? ` · server <code>${escapeHtml(servers[0]!)}</code>` : ""
  }</p>
${
    options.scriptUrl === undefined
      ? ""
      : `<p class="muted loading" id="svc-loading">The interactive reference (examples, try-it, search) loads with JavaScript; below is the full list of operations.</p>`
  }</header>
<nav aria-label="Contents"><ul class="toc">${toc}<li><a href="#${
    escapeHtml(fragments.heading("Errors"))
  }">Errors</a></li><li><a href="#models">Schemas</a></li><li><a href="#svc-spec-parts">Spec parts</a></li></ul></nav>
<section id="description/introduction">${markdown(intro)}</section>
${sections}
${rest.length > 0 ? `<section id="svc-description">${markdown(rest)}</section>` : ""}
<section id="models"><h2>Schemas</h2><ul class="schemas">${
    schemas.map((name) => `<li id="${escapeHtml(fragments.model(name))}"><code>${escapeHtml(name)}</code></li>`).join(
      ""
    )
  }</ul></section>
<section id="svc-spec-parts"><h2>Spec parts</h2><ol>${specParts}</ol></section>
</div>`

  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<title>${escapeHtml(title)}</title>
<meta name="description" content="${escapeHtml(`API reference of ${title}: every operation, schema and error code.`)}">
<style>${STYLE}</style>
</head>
<body>
${summary}
<main id="app"></main>
<script id="svc-docs-config" type="application/json">${scriptJson(config)}</script>
${
    options.scriptUrl === undefined
      ? ""
      : `<script src="${escapeHtml(options.scriptUrl)}"></script>\n<script>${BOOT_SCRIPT}</script>`
  }
</body>
</html>
`
  return { html, headers: { "content-security-policy": contentSecurityPolicy(document) } }
}

/**
 * The HTML of the page of an OpenAPI document (see {@link make}).
 *
 * @category http
 * @since 0.1.0
 */
export const docsHtml = (document: JsonRecord, options: DocsPageOptions = {}): string => make(document, options).html
