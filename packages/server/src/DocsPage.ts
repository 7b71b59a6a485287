/**
 * The API reference page served at `/docs`: a small self-contained page (no
 * external scripts, styles or fonts) that renders the deployment's
 * `openapi.json` in the browser.
 *
 * @since 0.1.0
 */
/**
 * Options of {@link docsHtml}.
 *
 * @category models
 * @since 0.1.0
 */
export interface DocsHtmlOptions {
  /**
   * URL of the interface specification (markdown rendered with GitHub-style
   * heading anchors). When absent, spec references link to the spec-part index
   * on the page itself.
   */
  readonly specUrl?: string | undefined
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

const scriptString = (value: string): string => JSON.stringify(value).replace(/</g, "\\u003c")

const DOCS_STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--code:#f6f8fa;--get:#0969da;--post:#1a7f37}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8d96a0;--line:#30363d;--code:#161b22;--get:#4493f8;--post:#3fb950}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1100px;margin:0 auto;padding:24px}h1{margin:0 0 4px}h2{margin-top:32px;border-bottom:1px solid var(--line)}
.muted{color:var(--muted)}code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border-radius:4px}
code{padding:1px 4px}pre{padding:8px;overflow:auto;white-space:pre-wrap}
details{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:0 12px}details[open]{padding-bottom:12px}
summary{cursor:pointer;padding:8px 0}.op>summary{display:flex;gap:12px;align-items:baseline;flex-wrap:wrap}
.method{font:700 12px ui-monospace,monospace;text-transform:uppercase;padding:2px 8px;border-radius:4px;color:#fff;min-width:52px;text-align:center}
.get{background:var(--get)}.post{background:var(--post)}.path{font-family:ui-monospace,monospace;font-weight:600}
table{border-collapse:collapse;width:100%;margin:8px 0}th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.schema{margin-left:12px}.kw{color:var(--muted)}nav a{margin-right:12px}.desc{white-space:pre-wrap}
`

const DOCS_SCRIPT = `
"use strict";
const $ = (tag, attrs, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") el.className = v; else if (k === "text") el.textContent = v; else el.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) el.append(c);
  return el;
};
const slug = (text) => text.toLowerCase().replace(/[^a-z0-9 -]/g, "").trim().replace(/ /g, "-");
let doc = null;
const resolveRef = (ref) => {
  if (typeof ref !== "string" || !ref.startsWith("#/")) return undefined;
  return ref.slice(2).split("/").reduce((node, key) => node === undefined ? undefined : node[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
};
const refName = (ref) => ref.split("/").pop();
const scalar = (s) => {
  const parts = [];
  if (s.type) parts.push(Array.isArray(s.type) ? s.type.join(" | ") : s.type);
  if (s.enum) parts.push("one of " + s.enum.map((v) => JSON.stringify(v)).join(", "));
  if (s.const !== undefined) parts.push("= " + JSON.stringify(s.const));
  if (s.pattern) parts.push("pattern " + s.pattern);
  for (const k of ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "format"]) if (s[k] !== undefined) parts.push(k + " " + s[k]);
  if (s.additionalProperties === false) parts.push("no additional properties");
  return parts.join("; ");
};
// Renders a JSON Schema node; $ref and nested objects expand lazily on toggle.
const renderSchema = (schema, label) => {
  if (schema === undefined || schema === null) return $("span", { class: "muted", text: "(none)" });
  if (typeof schema.$ref === "string") {
    const box = $("details", { class: "schema" }, $("summary", {}, label ? label + ": " : "", $("code", { text: refName(schema.$ref) })));
    box.addEventListener("toggle", () => {
      if (box.open && box.childElementCount === 1) box.append(renderSchema(resolveRef(schema.$ref)));
    }, { once: false });
    return box;
  }
  const wrap = $("div", { class: "schema" });
  if (schema.description) wrap.append($("div", { class: "muted desc", text: schema.description }));
  const info = scalar(schema);
  if (info) wrap.append($("div", {}, $("span", { class: "kw", text: info })));
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    if (Array.isArray(schema[key])) {
      wrap.append($("div", { class: "kw", text: key + ":" }));
      schema[key].forEach((s, i) => wrap.append(renderSchema(s, "option " + (i + 1))));
    }
  }
  if (schema.properties) {
    const required = new Set(schema.required || []);
    const table = $("table", {}, $("tr", {}, $("th", { text: "property" }), $("th", { text: "required" }), $("th", { text: "schema" })));
    for (const [name, sub] of Object.entries(schema.properties)) {
      table.append($("tr", {}, $("td", {}, $("code", { text: name })), $("td", { text: required.has(name) ? "yes" : "no" }), $("td", {}, renderSchema(sub))));
    }
    wrap.append(table);
  }
  if (schema.items) wrap.append($("div", { class: "kw", text: "items:" }), renderSchema(schema.items));
  if (Array.isArray(schema.prefixItems)) {
    wrap.append($("div", { class: "kw", text: "prefixItems:" }));
    schema.prefixItems.forEach((s, i) => wrap.append(renderSchema(s, "item " + i)));
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    wrap.append($("div", { class: "kw", text: "values:" }), renderSchema(schema.additionalProperties));
  }
  return wrap;
};
const specLinks = (ext) => {
  if (!ext) return null;
  const titles = doc["x-svc-spec-parts"] || {};
  const line = $("p", {}, "Implements: ");
  ext.parts.forEach((part, i) => {
    const title = part + ". " + (titles[part] || "");
    const href = SPEC_URL ? SPEC_URL + "#" + slug(title) : "#spec-part-" + part;
    if (i > 0) line.append(", ");
    line.append($("a", { href, text: "spec part " + title }));
  });
  line.append(" (", $("em", { text: ext.section }), ")");
  return line;
};
const renderOperation = (path, method, op) => {
  const box = $("details", { class: "op", id: op.operationId },
    $("summary", {}, $("span", { class: "method " + method, text: method }), $("span", { class: "path", text: path }),
      $("span", { text: op.summary || "" }), $("code", { text: op.operationId })));
  box.addEventListener("toggle", () => {
    if (!box.open || box.dataset.rendered) return;
    box.dataset.rendered = "1";
    if (op.description) box.append($("div", { class: "desc", text: op.description }));
    box.append(specLinks(op["x-svc-spec"]));
    if (op.parameters && op.parameters.length) {
      const table = $("table", {}, $("tr", {}, ...["name", "in", "required", "description", "schema"].map((t) => $("th", { text: t }))));
      for (const p of op.parameters) {
        table.append($("tr", {}, $("td", {}, $("code", { text: p.name })), $("td", { text: p.in }), $("td", { text: p.required ? "yes" : "no" }),
          $("td", { text: p.description || "" }), $("td", {}, renderSchema(p.schema))));
      }
      box.append($("h4", { text: "Parameters" }), table);
    }
    if (op.requestBody) {
      box.append($("h4", { text: "Request body" + (op.requestBody.required ? " (required)" : "") }));
      if (op.requestBody.description) box.append($("div", { class: "desc", text: op.requestBody.description }));
      for (const [type, media] of Object.entries(op.requestBody.content || {})) box.append(renderSchema(media.schema, type));
    }
    box.append($("h4", { text: "Responses" }));
    for (const [status, response] of Object.entries(op.responses || {})) {
      const r = $("details", {}, $("summary", {}, $("strong", { text: status }), " ", (response.description || "").split("\\n")[0]));
      r.append($("div", { class: "desc", text: response.description || "" }));
      if (response.headers) {
        r.append($("div", { class: "kw", text: "headers: " + Object.keys(response.headers).join(", ") }));
      }
      for (const [type, media] of Object.entries(response.content || {})) r.append(renderSchema(media.schema, type));
      if (response["x-svc-events"]) {
        r.append($("div", { class: "kw", text: "events:" }));
        for (const [name, ev] of Object.entries(response["x-svc-events"])) {
          r.append(renderSchema(ev.schema, "event " + name + (ev.id ? " (id = " + ev.id + ")" : "")));
        }
      }
      box.append(r);
    }
  });
  return box;
};
const render = (root) => {
  const info = doc.info || {};
  root.append($("h1", { text: info.title || "API" }), $("div", { class: "muted", text: "version " + info.version + " · OpenAPI " + doc.openapi + " · " }, $("a", { href: OPENAPI_URL, text: "openapi.json" })));
  if (info.description) root.append($("p", { class: "desc", text: info.description }));
  const byTag = new Map();
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const op = item[method];
      if (!op) continue;
      const tag = (op.tags && op.tags[0]) || "Other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push([path, method, op]);
    }
  }
  const nav = $("nav", {});
  for (const tag of byTag.keys()) nav.append($("a", { href: "#tag-" + slug(tag), text: tag }));
  nav.append($("a", { href: "#schemas", text: "Schemas" }), $("a", { href: "#spec-parts", text: "Spec parts" }));
  root.append(nav);
  const tags = new Map((doc.tags || []).map((t) => [t.name, t.description]));
  for (const [tag, ops] of byTag) {
    root.append($("h2", { id: "tag-" + slug(tag), text: tag }));
    if (tags.get(tag)) root.append($("p", { class: "muted", text: tags.get(tag) }));
    for (const [path, method, op] of ops) root.append(renderOperation(path, method, op));
  }
  root.append($("h2", { id: "schemas", text: "Schemas" }));
  for (const name of Object.keys((doc.components && doc.components.schemas) || {})) {
    root.append(renderSchema({ $ref: "#/components/schemas/" + name }));
  }
  root.append($("h2", { id: "spec-parts", text: "Spec parts" }));
  const list = $("ol", {});
  for (const [part, title] of Object.entries(doc["x-svc-spec-parts"] || {})) {
    const item = $("li", { id: "spec-part-" + part, value: part });
    item.append(SPEC_URL ? $("a", { href: SPEC_URL + "#" + slug(part + ". " + title), text: title }) : title);
    list.append(item);
  }
  root.append(list);
  if (location.hash) { const target = document.getElementById(location.hash.slice(1)); if (target) { if (target.tagName === "DETAILS") target.open = true; target.scrollIntoView(); } }
};
fetch(OPENAPI_URL, { headers: { accept: "application/json" } })
  .then((r) => { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
  .then((d) => { doc = d; const root = document.getElementById("app"); root.textContent = ""; render(root); })
  .catch((e) => { document.getElementById("app").textContent = "Could not load " + OPENAPI_URL + ": " + e.message; });
`

/**
 * A small, self-contained HTML API reference (no external scripts, styles or
 * fonts): it fetches the OpenAPI document at `openapiUrl` and lists every
 * operation with method, path, summary, parameters, request and response
 * schemas (expandable) and links to the spec part it implements.
 *
 * @category http
 * @since 0.1.0
 */
export const docsHtml = (openapiUrl: string, options: DocsHtmlOptions = {}): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Svc V6 Solver and Aggregator API</title>
<style>${DOCS_STYLE}</style>
</head>
<body>
<main id="app"><noscript>This page renders ${
    escapeHtml(openapiUrl)
  } with JavaScript.</noscript><p class="muted">Loading the API description…</p></main>
<script>
const OPENAPI_URL = ${scriptString(openapiUrl)};
const SPEC_URL = ${options.specUrl === undefined ? "null" : scriptString(options.specUrl)};
${DOCS_SCRIPT}
</script>
</body>
</html>
`
