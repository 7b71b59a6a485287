/**
 * The HTML report (`--report html=PATH`): one self-contained file (inline CSS
 * and a small inline script, nothing loaded from anywhere) that shows the run
 * (base URL, start, duration, version, options, the self-check), a summary by
 * group, every failure (the rule cited, expected and actual with a diff of the
 * differing text, the request, the response excerpt and a copyable curl
 * command) and the timing of every check.
 *
 * Report content comes from the server under test: every piece of it is
 * escaped, and the page's Content-Security-Policy lets only its own script run.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { type Group, GROUP_TITLES } from "./Check.ts"
import { type CheckResult, type Counts, type FailureRecord, normalize, type Report } from "./Report.ts"

// ---------------------------------------------------------------------------
// Escaping
// ---------------------------------------------------------------------------

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\"": "&quot;",
  "'": "&#39;",
  "\u0000": "\uFFFD"
}

/**
 * Escapes text for HTML element content and quoted attribute values.
 *
 * @category encoding
 * @since 0.1.0
 */
export const escape = (text: string): string =>
  // oxlint-disable-next-line no-control-regex -- NUL is not allowed in HTML text: it becomes U+FFFD
  text.replace(/[&<>"'\u0000]/g, (c) => ENTITIES[c]!)

const slug = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, "-")

// ---------------------------------------------------------------------------
// Diff
// ---------------------------------------------------------------------------

/**
 * A run of text of one side of a diff; `changed` when the other side differs there.
 *
 * @category models
 * @since 0.1.0
 */
export interface Segment {
  readonly text: string
  readonly changed: boolean
}

/**
 * One line of a diff: the same on both sides, changed (both sides, with the
 * differing characters marked), only expected (`removed`) or only actual (`added`).
 *
 * @category models
 * @since 0.1.0
 */
export type DiffLine =
  | { readonly kind: "same"; readonly text: string }
  | {
    readonly kind: "changed"
    readonly expected: ReadonlyArray<Segment>
    readonly actual: ReadonlyArray<Segment>
  }
  | { readonly kind: "removed"; readonly text: string }
  | { readonly kind: "added"; readonly text: string }

/**
 * The diff of an expected and an actual text. When both were a JSON string
 * (optionally followed by a remark, as in `"..." (first difference on line 3)`),
 * the decoded strings are compared and the remarks kept aside.
 *
 * @category models
 * @since 0.1.0
 */
export interface TextDiff {
  readonly lines: ReadonlyArray<DiffLine>
  /** Characters in common over all characters, 0 to 1. */
  readonly similarity: number
  /** How the texts were compared: as given, as decoded JSON strings, or as re-indented JSON. */
  readonly mode: "text" | "json-string" | "json"
  readonly expectedNote?: string | undefined
  readonly actualNote?: string | undefined
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/**
 * Character diff of two strings: their common prefix and suffix, and the
 * differing middle of each (never splitting a surrogate pair).
 *
 * @category encoding
 * @since 0.1.0
 */
export const charDiff = (
  expected: string,
  actual: string
): { readonly expected: ReadonlyArray<Segment>; readonly actual: ReadonlyArray<Segment> } => {
  const max = Math.min(expected.length, actual.length)
  let prefix = 0
  while (prefix < max && expected.charCodeAt(prefix) === actual.charCodeAt(prefix)) prefix++
  if (prefix > 0 && prefix < max && isHighSurrogate(expected.charCodeAt(prefix - 1))) prefix--
  let suffix = 0
  while (
    suffix < max - prefix &&
    expected.charCodeAt(expected.length - 1 - suffix) === actual.charCodeAt(actual.length - 1 - suffix)
  ) suffix++
  if (suffix > 0 && suffix < max - prefix && isLowSurrogate(expected.charCodeAt(expected.length - suffix))) suffix--
  const side = (text: string): ReadonlyArray<Segment> =>
    [
      { text: text.slice(0, prefix), changed: false },
      { text: text.slice(prefix, text.length - suffix), changed: true },
      { text: text.slice(text.length - suffix), changed: false }
    ].filter((s) => s.text.length > 0)
  return { expected: side(expected), actual: side(actual) }
}

/** Lines with their terminators (so a missing or extra final newline is a difference). */
const splitLines = (text: string): Array<string> => (text.length === 0 ? [] : text.split(/(?<=\n)/))

/** Above this many cells the middle of a line diff is not aligned (shown as removed, then added). */
const MAX_LCS_CELLS = 250_000

type Op = { readonly kind: "same" | "removed" | "added"; readonly text: string }

const alignLines = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<Op> => {
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const head: Array<Op> = a.slice(0, start).map((text) => ({ kind: "same", text }))
  const tail: Array<Op> = a.slice(endA).map((text) => ({ kind: "same", text }))
  const midA = a.slice(start, endA)
  const midB = b.slice(start, endB)
  const n = midA.length
  const m = midB.length
  const middle: Array<Op> = []
  if (n * m > MAX_LCS_CELLS) {
    for (const text of midA) middle.push({ kind: "removed", text })
    for (const text of midB) middle.push({ kind: "added", text })
  } else {
    // longest common subsequence, from the end so the walk goes forward
    const width = m + 1
    const table = new Uint32Array((n + 1) * width)
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i * width + j] = midA[i] === midB[j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!)
      }
    }
    let i = 0
    let j = 0
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        middle.push({ kind: "same", text: midA[i]! })
        i++
        j++
      } else if (j >= m || (i < n && table[(i + 1) * width + j]! >= table[i * width + j + 1]!)) {
        middle.push({ kind: "removed", text: midA[i]! })
        i++
      } else {
        middle.push({ kind: "added", text: midB[j]! })
        j++
      }
    }
  }
  return [...head, ...middle, ...tail]
}

/**
 * Line diff of two texts; within a run of removed lines followed by added
 * lines, the lines are paired and their differing characters marked.
 *
 * @category encoding
 * @since 0.1.0
 */
export const lineDiff = (expected: string, actual: string): ReadonlyArray<DiffLine> => {
  const ops = alignLines(splitLines(expected), splitLines(actual))
  const out: Array<DiffLine> = []
  let k = 0
  while (k < ops.length) {
    const op = ops[k]!
    if (op.kind === "same") {
      out.push({ kind: "same", text: op.text })
      k++
      continue
    }
    const removed: Array<string> = []
    const added: Array<string> = []
    while (k < ops.length && ops[k]!.kind !== "same") {
      const o = ops[k]!
      if (o.kind === "removed") removed.push(o.text)
      else added.push(o.text)
      k++
    }
    const paired = Math.min(removed.length, added.length)
    for (let p = 0; p < paired; p++) out.push({ kind: "changed", ...charDiff(removed[p]!, added[p]!) })
    for (const text of removed.slice(paired)) out.push({ kind: "removed", text })
    for (const text of added.slice(paired)) out.push({ kind: "added", text })
  }
  return out
}

const commonChars = (lines: ReadonlyArray<DiffLine>): number =>
  lines.reduce((sum, line) => {
    if (line.kind === "same") return sum + line.text.length
    if (line.kind === "changed") {
      return sum + line.expected.filter((s) => !s.changed).reduce((t, s) => t + s.text.length, 0)
    }
    return sum
  }, 0)

const JSON_STRING_PREFIX = /^"(?:[^"\\\n]|\\.)*"/

/** A leading JSON string literal and what follows it, when the text starts with one. */
const jsonStringOf = (text: string): { readonly value: string; readonly rest: string } | undefined => {
  const m = JSON_STRING_PREFIX.exec(text)
  if (m === null) return undefined
  try {
    return { value: JSON.parse(m[0]) as string, rest: text.slice(m[0].length).trim() }
  } catch {
    return undefined
  }
}

const jsonOf = (text: string): { readonly ok: boolean; readonly value: unknown } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false, value: undefined }
  }
}

/** Texts shorter than this are shown side by side only: a diff adds nothing to `200` against `201`. */
const MIN_DIFF_LENGTH = 12
/** Below this similarity the texts are unrelated (a schema description against issues): no diff. */
const MIN_SIMILARITY = 0.4

/**
 * The diff of a failure's expected and actual text, or undefined when a diff
 * would not help: equal texts, a short one, or texts with little in common.
 *
 * @category encoding
 * @since 0.1.0
 */
export const diffTexts = (expected: string, actual: string): TextDiff | undefined => {
  if (expected === actual) return undefined
  if (expected.length < MIN_DIFF_LENGTH || actual.length < MIN_DIFF_LENGTH) return undefined
  let mode: TextDiff["mode"] = "text"
  let a = expected
  let b = actual
  let expectedNote: string | undefined
  let actualNote: string | undefined
  const sa = jsonStringOf(expected)
  const sb = jsonStringOf(actual)
  if (sa !== undefined && sb !== undefined && sa.value !== sb.value) {
    mode = "json-string"
    a = sa.value
    b = sb.value
    if (sa.rest.length > 0) expectedNote = sa.rest
    if (sb.rest.length > 0) actualNote = sb.rest
  } else {
    const ja = jsonOf(expected)
    const jb = jsonOf(actual)
    if (
      ja.ok && jb.ok && typeof ja.value === "object" && ja.value !== null && typeof jb.value === "object" &&
      jb.value !== null
    ) {
      const pa = JSON.stringify(ja.value, null, 2)
      const pb = JSON.stringify(jb.value, null, 2)
      // equal once re-indented: the difference is in the bytes (spacing), compare them as given
      if (pa !== pb) {
        mode = "json"
        a = pa
        b = pb
      }
    }
  }
  const lines = lineDiff(a, b)
  const similarity = (2 * commonChars(lines)) / Math.max(1, a.length + b.length)
  if (similarity < MIN_SIMILARITY) return undefined
  return { lines, similarity, mode, expectedNote, actualNote }
}

// ---------------------------------------------------------------------------
// Rendering pieces
// ---------------------------------------------------------------------------

/** Unchanged runs longer than this inside a changed line are cut in the middle. */
const KEEP_AROUND_CHANGE = 60
/** Unchanged lines shown around each changed line. */
const CONTEXT_LINES = 2

/** Makes invisible characters of a highlighted run visible. */
const visible = (text: string): string => {
  const shown = text.replace(/\r/g, "␍").replace(/\t/g, "⇥").replace(/\n/g, "↵")
  return /^[ ]+$/.test(shown) ? shown.replace(/ /g, "·") : shown
}

const stripNewline = (text: string) => text.replace(/\r?\n$/, "")

/** A whole removed or added line: its newline is implied by the row, unless the line is nothing else. */
const wholeLine = (text: string) => (/^\r?\n$/.test(text) ? text : stripNewline(text))

const elide = (text: string, keepStart: boolean, keepEnd: boolean): string => {
  const limit = 2 * KEEP_AROUND_CHANGE
  if (text.length <= limit + 20) return escape(text)
  const head = keepStart ? text.slice(0, KEEP_AROUND_CHANGE) : ""
  const tail = keepEnd ? text.slice(text.length - KEEP_AROUND_CHANGE) : ""
  const cut = text.length - head.length - tail.length
  return `${escape(head)}<span class="diff-elided">…${cut} characters…</span>${escape(tail)}`
}

const segmentsHtml = (segments: ReadonlyArray<Segment>, tag: "del" | "ins"): string =>
  segments.map((s, i) => {
    if (s.changed) return `<${tag} class="diff-hl">${escape(visible(s.text))}</${tag}>`
    const last = i === segments.length - 1
    const text = last ? stripNewline(s.text) : s.text
    // keep the characters next to a change, cut the far side of long unchanged runs
    return elide(text, i > 0, !last)
  }).join("")

const diffHtml = (diff: TextDiff): string => {
  const rows: Array<string> = []
  const near = diff.lines.map((l) => l.kind !== "same")
  const shown = diff.lines.map((_, i) => {
    for (let d = -CONTEXT_LINES; d <= CONTEXT_LINES; d++) if (near[i + d] === true) return true
    return false
  })
  // a single hidden line is shown rather than replaced by a marker of the same height
  shown.forEach((on, i) => {
    if (!on && shown[i - 1] !== false && shown[i + 1] !== false) shown[i] = true
  })
  let hidden = 0
  const flush = () => {
    if (hidden > 0) {
      rows.push(
        `<tr class="diff-skip"><td></td><td>… ${hidden} unchanged line${hidden === 1 ? "" : "s"} …</td></tr>`
      )
    }
    hidden = 0
  }
  const row = (cls: string, mark: string, html: string) =>
    rows.push(`<tr class="${cls}"><td class="diff-mark">${mark}</td><td>${html}</td></tr>`)
  diff.lines.forEach((line, i) => {
    if (!shown[i]) {
      hidden++
      return
    }
    flush()
    switch (line.kind) {
      case "same":
        row("diff-same", " ", elide(stripNewline(line.text), true, true))
        return
      case "changed":
        row("diff-exp", "−", segmentsHtml(line.expected, "del"))
        row("diff-act", "+", segmentsHtml(line.actual, "ins"))
        return
      case "removed":
        row("diff-exp", "−", `<del class="diff-hl">${escape(visible(wholeLine(line.text)))}</del>`)
        return
      case "added":
        row("diff-act", "+", `<ins class="diff-hl">${escape(visible(wholeLine(line.text)))}</ins>`)
        return
    }
  })
  flush()
  const how = diff.mode === "json-string"
    ? "the JSON strings decoded"
    : diff.mode === "json"
    ? "the JSON re-indented"
    : "as given"
  const notes = [
    diff.expectedNote === undefined ? "" : `<div class="diff-note">expected: ${escape(diff.expectedNote)}</div>`,
    diff.actualNote === undefined ? "" : `<div class="diff-note">actual: ${escape(diff.actualNote)}</div>`
  ].join("")
  return `<div class="diff"><div class="diff-head">Difference (${how}; <span class="diff-legend-exp">− expected</span>, <span class="diff-legend-act">+ actual</span>)</div><table class="diff-table"><tbody>${
    rows.join("")
  }</tbody></table>${notes}</div>`
}

/**
 * Milliseconds as a short duration: `840 ms`, `1.2 s`, `2 min 05 s`.
 *
 * @category encoding
 * @since 0.1.0
 */
export const duration = (ms: number): string => {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.round(ms / 1000)
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`
}

const STATUS_ORDER = ["failed", "warning", "inconclusive", "passed", "skipped"] as const

const badge = (status: string) => `<span class="badge ${escape(status)}">${escape(status)}</span>`

const headersText = (headers: Readonly<Record<string, string>>) =>
  Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join("\n")

/** Request bodies longer than this are cut (the curl command carries the whole body). */
const MAX_BODY = 4096

const excerpt = (body: string): string =>
  body.length <= MAX_BODY ? body : `${body.slice(0, MAX_BODY)}\n… (${body.length - MAX_BODY} more characters)`

const pre = (text: string, cls = "") => `<pre${cls === "" ? "" : ` class="${cls}"`}>${escape(text)}</pre>`

const requestHtml = (f: FailureRecord, open: boolean): string => {
  const r = f.request
  if (r === undefined) return ""
  const body = r.body === undefined ? "" : `<div class="label">body</div>${pre(excerpt(r.body))}`
  const headers = Object.keys(r.headers).length === 0
    ? ""
    : `<div class="label">headers</div>${pre(headersText(r.headers))}`
  return `<details class="exchange request"${open ? " open" : ""}><summary>request <code>${escape(r.method)} ${
    escape(r.url)
  }</code></summary>${headers}${body}</details>`
}

const responseHtml = (f: FailureRecord, open: boolean): string => {
  const r = f.response
  if (r === undefined) return ""
  const headers = Object.keys(r.headers).length === 0
    ? ""
    : `<div class="label">headers</div>${pre(headersText(r.headers))}`
  const body = r.body.length === 0
    ? `<div class="label">body</div><p class="muted">(empty)</p>`
    : `<div class="label">body (excerpt)</div>${pre(r.body)}`
  return `<details class="exchange response"${open ? " open" : ""}><summary>response <code>${
    escape(String(r.status))
  }</code></summary>${headers}${body}</details>`
}

const failureHtml = (f: FailureRecord, index: number): string => {
  const d = diffTexts(f.expected, f.actual)
  const curl = f.curl === undefined
    ? ""
    : `<div class="curl"><div class="label">reproduce <button type="button" class="copy">copy</button></div>${
      pre(f.curl, "curl-command")
    }</div>`
  return `<li class="failure"><div class="failure-title">${escape(f.title)}</div>
<div class="ea"><div class="label">expected</div>${pre(f.expected, "expected")}<div class="label">actual</div>${
    pre(f.actual, "actual")
  }</div>
${d === undefined ? "" : diffHtml(d)}
${requestHtml(f, index === 0)}${responseHtml(f, index === 0)}${curl}</li>`
}

const extrasHtml = (r: CheckResult): string => {
  const parts: Array<string> = []
  if (r.reason !== undefined) parts.push(`<p class="reason">${escape(r.reason)}</p>`)
  const details = Object.entries(r.details ?? {})
  if (details.length > 0) {
    parts.push(
      `<dl class="details">${
        details.map(([k, v]) => `<dt>${escape(k)}</dt><dd><code>${escape(v)}</code></dd>`).join("")
      }</dl>`
    )
  }
  if (r.notes.length > 0) {
    parts.push(`<ul class="notes">${r.notes.map((n) => `<li>${escape(n)}</li>`).join("")}</ul>`)
  }
  return parts.join("")
}

const checkHtml = (r: CheckResult): string =>
  `<article class="check ${escape(r.status)}" id="${r.status === "warning" ? "warning" : "check"}-${slug(r.name)}">
<h3>${badge(r.status)} <code>${escape(r.name)}</code> <span class="check-title">${escape(r.title)}</span></h3>
<p class="rule"><span class="label">rule</span> ${escape(r.reference)}</p>
<p class="meta"><a href="#group-${slug(r.group)}">${escape(r.group)}</a> · ${duration(r.durationMs)}</p>
${extrasHtml(r)}
${
    r.failures.length === 0
      ? ""
      : `<ol class="failures">${r.failures.map((f, i) => failureHtml(f, i)).join("\n")}</ol>`
  }${
    r.warnings.length === 0
      ? ""
      : `<p class="label">${
        r.status === "warning" ? "departures from svc's profile" : "and departures from svc's profile (warnings)"
      }</p><ol class="failures warnings">${r.warnings.map((f, i) => failureHtml(f, i)).join("\n")}</ol>`
  }
</article>`

const countsCells = (c: Counts) =>
  `<td class="num${c.passed > 0 ? " passed" : ""}">${c.passed}</td><td class="num${
    c.failed > 0 ? " failed" : ""
  }">${c.failed}</td><td class="num${c.warning > 0 ? " warning" : ""}">${c.warning}</td><td class="num${
    c.inconclusive > 0 ? " inconclusive" : ""
  }">${c.inconclusive}</td><td class="num${c.skipped > 0 ? " skipped" : ""}">${c.skipped}</td>`

const groupStatus = (c: Counts) =>
  c.failed > 0
    ? "failed"
    : c.warning > 0
    ? "warning"
    : c.inconclusive > 0
    ? "inconclusive"
    : c.passed === 0
    ? "skipped"
    : "passed"

const optionsHtml = (report: Report): string => {
  const o = report.options
  const items: Array<[string, string]> = [
    ["seed", String(o.seed)],
    ["max examples", String(o.maxExamples)],
    ["timeout", `${o.timeoutSeconds} s`]
  ]
  if (o.rate !== undefined) items.push(["rate", `${o.rate} req/s`])
  if (o.only.length > 0) items.push(["only", o.only.join(", ")])
  if (o.skip.length > 0) items.push(["skip", o.skip.join(", ")])
  if (o.readOnly) items.push(["read-only", "yes"])
  if (o.signer !== undefined) items.push(["signer", o.signer])
  items.push(["wallet", o.wallet])
  if (o.rpcChainIds !== undefined && o.rpcChainIds.length > 0) items.push(["chains", o.rpcChainIds.join(", ")])
  if (o.execute === true) items.push(["execute", "yes"])
  if (o.strict === true) items.push(["strict", "yes"])
  if (o.coverage !== undefined) items.push(["coverage", o.coverage])
  if (o.statusLists !== undefined) items.push(["status lists", o.statusLists])
  if (o.wallets !== undefined && o.wallets.length > 0) items.push(["wallets", String(o.wallets.length)])
  if (o.proxy !== undefined) {
    items.push(["upstream", o.proxy.upstream], ["listen", o.proxy.listen], ["exchanges", String(o.proxy.exchanges)])
  }
  return items.map(([k, v]) =>
    `<span class="opt"><span class="label">${escape(k)}</span> <code>${escape(v)}</code></span>`
  )
    .join(" ")
}

/** Sorts the tables with `class="sortable"` by a clicked column; copies a curl command. */
const SCRIPT = `"use strict";
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th[data-sort]").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var kind = th.getAttribute("data-sort");
      var current = th.getAttribute("aria-sort");
      var dir = current === null
        ? (kind === "num" ? "descending" : "ascending")
        : (current === "ascending" ? "descending" : "ascending");
      var key = function (tr) {
        var cell = tr.children[col];
        var v = cell.getAttribute("data-v") || cell.textContent || "";
        return kind === "text" ? v : Number(v);
      };
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var c = x < y ? -1 : x > y ? 1 : 0;
        return dir === "descending" ? -c : c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
      table.querySelectorAll("th[data-sort]").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", dir);
    });
  });
});
document.querySelectorAll("button.copy").forEach(function (button) {
  button.addEventListener("click", function () {
    var block = button.closest(".curl").querySelector("pre");
    var text = block.textContent || "";
    var done = function () { button.textContent = "copied"; setTimeout(function () { button.textContent = "copy"; }, 1500); };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, function () { select(block); });
    } else {
      select(block);
    }
  });
});
function select(node) {
  var range = document.createRange();
  range.selectNodeContents(node);
  var selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}
`

const SCRIPT_HASH = createHash("sha256").update(SCRIPT, "utf8").digest("base64")

/**
 * The page's Content-Security-Policy: nothing is loaded from anywhere, only the
 * page's own script runs (by its hash), styles are inline.
 *
 * @category constants
 * @since 0.1.0
 */
export const CONTENT_SECURITY_POLICY =
  `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${SCRIPT_HASH}'; base-uri 'none'; form-action 'none'`

const STYLE = `
:root { color-scheme: light; --fg: #1d2330; --muted: #5f6b7a; --line: #d9dee5; --bg: #ffffff; --panel: #f6f8fa;
  --pass: #1a7f37; --fail: #cf222e; --warn: #bc4c00; --inc: #9a6700; --skip: #6e7781; --del: #ffd7d5; --ins: #ccffd8; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1200px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 8px; display: flex; gap: 12px; align-items: center; }
h2 { font-size: 18px; margin: 32px 0 12px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 0 0 6px; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
code, pre { font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; margin: 4px 0 10px;
  white-space: pre-wrap; word-break: break-all; max-height: 420px; overflow: auto; }
.muted, .meta { color: var(--muted); }
.label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
header.run { border: 1px solid var(--line); border-radius: 8px; padding: 16px; background: var(--panel); }
header.run dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 8px 0 0; }
header.run dt { color: var(--muted); } header.run dd { margin: 0; }
.opt { display: inline-block; margin-right: 12px; }
.verdict { font-size: 13px; padding: 2px 10px; border-radius: 12px; color: #fff; }
.verdict.pass { background: var(--pass); } .verdict.fail { background: var(--fail); }
.badge { display: inline-block; min-width: 84px; text-align: center; font-size: 11px; font-weight: 600; padding: 1px 6px;
  border-radius: 10px; text-transform: uppercase; color: #fff; vertical-align: 1px; }
.badge.passed { background: var(--pass); } .badge.failed { background: var(--fail); }
.badge.inconclusive { background: var(--inc); } .badge.skipped { background: var(--skip); }
.badge.warning { background: var(--warn); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
th[data-sort] { cursor: pointer; user-select: none; } th[aria-sort=descending]::after { content: " ▼"; }
th[aria-sort=ascending]::after { content: " ▲"; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.num.failed { color: var(--fail); font-weight: 700; } td.num.inconclusive { color: var(--inc); font-weight: 700; }
td.num.warning { color: var(--warn); font-weight: 700; }
tr.total td { font-weight: 700; border-top: 2px solid var(--line); }
tr.group-row.failed td:first-child { border-left: 3px solid var(--fail); }
.bar-cell { width: 34%; } .bar { display: inline-block; height: 8px; border-radius: 4px; background: #8c959f; vertical-align: 1px; margin-right: 6px; }
tr.failed .bar { background: var(--fail); }
.check { border: 1px solid var(--line); border-left: 4px solid var(--fail); border-radius: 6px; padding: 12px 14px; margin: 0 0 16px; }
.check.warning { border-left-color: var(--warn); }
.check-title { font-weight: 400; }
.rule { margin: 2px 0; } .meta { margin: 2px 0 8px; font-size: 12px; }
ol.failures { padding-left: 20px; } li.failure { margin-bottom: 14px; }
.failure-title { font-weight: 600; margin-bottom: 4px; }
.ea { display: grid; grid-template-columns: 72px 1fr; gap: 0 8px; align-items: start; }
.ea .label { padding-top: 10px; }
.diff { border: 1px solid var(--line); border-radius: 6px; margin: 4px 0 10px; overflow: hidden; }
.diff-head { background: var(--panel); padding: 4px 10px; font-size: 12px; color: var(--muted); border-bottom: 1px solid var(--line); }
.diff-table td { border: 0; padding: 0 8px; font: 12.5px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  white-space: pre-wrap; word-break: break-all; }
.diff-table td.diff-mark { width: 18px; color: var(--muted); user-select: none; }
tr.diff-exp { background: #fff5f5; } tr.diff-act { background: #f3fff5; }
tr.diff-skip td { color: var(--muted); font-style: italic; }
del.diff-hl { background: var(--del); text-decoration: none; border-radius: 2px; outline: 1px solid #ff8182; }
ins.diff-hl { background: var(--ins); text-decoration: none; border-radius: 2px; outline: 1px solid #4ac26b; }
.diff-elided { color: var(--muted); font-style: italic; }
.diff-legend-exp { color: var(--fail); } .diff-legend-act { color: var(--pass); }
.diff-note { padding: 2px 10px 6px; font-size: 12px; color: var(--muted); }
details.exchange { margin: 4px 0; } details.exchange summary { cursor: pointer; color: var(--muted); }
details.exchange summary code { color: var(--fg); }
button.copy { font-size: 11px; margin-left: 6px; padding: 0 8px; border: 1px solid var(--line); border-radius: 4px;
  background: #fff; cursor: pointer; text-transform: none; letter-spacing: 0; }
.reason { color: var(--inc); margin: 4px 0; }
dl.details { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 4px 0; }
dl.details dd { margin: 0; word-break: break-all; }
ul.notes { color: var(--muted); margin: 4px 0; }
section.group .group-title { color: var(--muted); font-weight: 400; font-size: 13px; }
td.name code { white-space: nowrap; }
td.why { color: var(--muted); font-size: 12px; }
`

// ---------------------------------------------------------------------------
// The page
// ---------------------------------------------------------------------------

/**
 * The HTML report of a run: one self-contained page.
 *
 * @category running
 * @since 0.1.0
 */
export const render = (input: Report): string => {
  const report = normalize(input)
  const results = report.results
  const groups = [
    ...new Set<Group>([...(Object.keys(report.groups) as Array<Group>), ...results.map((r) => r.group)])
  ]
  const byGroup = (g: Group) => results.filter((r) => r.group === g)
  const countsOfGroup = (g: Group): Counts => {
    const given = report.groups[g]
    if (given !== undefined) return given
    const rs = byGroup(g)
    return {
      passed: rs.filter((r) => r.status === "passed").length,
      failed: rs.filter((r) => r.status === "failed").length,
      warning: rs.filter((r) => r.status === "warning").length,
      inconclusive: rs.filter((r) => r.status === "inconclusive").length,
      skipped: rs.filter((r) => r.status === "skipped").length
    }
  }
  const pass = report.summary.failed === 0
  const failed = results.filter((r) => r.status === "failed")
  const slowest = Math.max(1, ...results.map((r) => r.durationMs))

  const header = `<header class="run">
<h1>svc conformance <span class="verdict ${pass ? "pass" : "fail"}">${pass ? "PASS" : "FAIL"}</span></h1>
<dl>
<dt>base URL</dt><dd><code class="base-url">${escape(report.baseUrl)}</code></dd>
<dt>started</dt><dd><time datetime="${escape(report.startedAt)}">${escape(report.startedAt)}</time></dd>
<dt>duration</dt><dd>${duration(report.durationMs)}</dd>
<dt>tool</dt><dd>${escape(report.tool.name)} ${escape(report.tool.version)}</dd>
<dt>options</dt><dd class="options">${optionsHtml(report)}</dd>
${
    report.selfCheck === undefined
      ? ""
      : `<dt>self-check</dt><dd class="self-check">passed: ${report.selfCheck.verified} verified in ${
        duration(report.selfCheck.durationMs)
      }</dd>`
  }
<dt>result</dt><dd class="totals">${report.summary.total} checks: ${report.summary.passed} passed, ${report.summary.failed} failed, ${report.summary.warning} warning${
    report.summary.warning === 1 ? "" : "s"
  }, ${report.summary.inconclusive} inconclusive, ${report.summary.skipped} skipped</dd>
</dl>
</header>`

  const summary = `<section id="summary"><h2>Summary by group</h2>
<table class="summary"><thead><tr><th>group</th><th class="num">passed</th><th class="num">failed</th><th class="num">warning</th><th class="num">inconclusive</th><th class="num">skipped</th><th class="num">time</th></tr></thead>
<tbody>${
    groups.map((g) => {
      const c = countsOfGroup(g)
      const time = byGroup(g).reduce((t, r) => t + r.durationMs, 0)
      return `<tr class="group-row ${groupStatus(c)}" data-group="${escape(g)}"><td><a href="#group-${slug(g)}">${
        escape(g)
      }</a></td>${countsCells(c)}<td class="num">${duration(time)}</td></tr>`
    }).join("\n")
  }</tbody>
<tfoot><tr class="total"><td>total</td>${countsCells(report.summary)}<td class="num">${
    duration(report.durationMs)
  }</td></tr></tfoot></table></section>`

  const failures = failed.length === 0
    ? `<section id="failures"><h2>Failures</h2><p class="muted">No check failed.</p></section>`
    : `<section id="failures"><h2>Failures (${failed.length})</h2>
${failed.map(checkHtml).join("\n")}</section>`

  const warned = results.filter((r) => r.status === "warning")
  const warnings = warned.length === 0
    ? ""
    : `<section id="warnings"><h2>Warnings (${warned.length})</h2>
<p class="muted">Departures from svc's documented profile where the spec leaves the behaviour open: they do not fail the run (--strict fails them).</p>
${warned.map(checkHtml).join("\n")}</section>`

  const undecided = results.filter((r) => r.status === "inconclusive")
  const inconclusive = undecided.length === 0
    ? ""
    : `<section id="inconclusive"><h2>Inconclusive (${undecided.length})</h2>
<table><tbody>${
      undecided.map((r) =>
        `<tr><td class="name"><a href="#group-${slug(r.group)}"><code>${escape(r.name)}</code></a></td><td>${
          escape(r.reason ?? "")
        }</td></tr>`
      ).join("\n")
    }</tbody></table></section>`

  const row = (withGroup: boolean) => (r: CheckResult) => {
    const width = Math.max(0.5, (100 * r.durationMs) / slowest).toFixed(1)
    const name = r.status === "failed" || r.status === "warning"
      ? `<a href="#${r.status === "warning" ? "warning" : "check"}-${slug(r.name)}"><code>${escape(r.name)}</code></a>`
      : `<code>${escape(r.name)}</code>`
    const why = r.reason ??
      (r.status === "failed" ? r.failures[0]?.title ?? "" : r.status === "warning" ? r.warnings[0]?.title ?? "" : "")
    const group = withGroup ? `<td><a href="#group-${slug(r.group)}">${escape(r.group)}</a></td>` : ""
    return `<tr class="${escape(r.status)}" data-check="${
      escape(r.name)
    }"><td class="name">${name}</td>${group}<td data-v="${
      STATUS_ORDER.indexOf(r.status as (typeof STATUS_ORDER)[number])
    }">${badge(r.status)}</td><td class="num" data-v="${r.durationMs}">${
      duration(r.durationMs)
    }</td><td class="bar-cell"><span class="bar" style="width:${width}%"></span></td><td class="why">${
      escape(why)
    }</td></tr>`
  }
  const tableHead = (bySlowest: boolean) =>
    `<thead><tr><th data-sort="text">check</th>${
      bySlowest ? `<th data-sort="text">group</th>` : ""
    }<th data-sort="rank">status</th><th class="num" data-sort="num"${
      bySlowest ? ` aria-sort="descending"` : ""
    }>time</th><th></th><th>why</th></tr></thead>`

  const groupSections = groups.map((g) => {
    const c = countsOfGroup(g)
    return `<section class="group" id="group-${slug(g)}"><h2>${badge(groupStatus(c))} ${
      escape(g)
    } <span class="group-title">${escape(GROUP_TITLES[g] ?? "")}</span></h2>
<table class="sortable checks">${tableHead(false)}<tbody>${
      byGroup(g).map(row(false)).join("\n")
    }</tbody></table></section>`
  }).join("\n")

  const bySlowest = [...results].sort((a, b) => b.durationMs - a.durationMs)
  const timing = `<section id="timing"><h2>Timing (slowest first)</h2>
<table class="sortable timing">${tableHead(true)}<tbody>${
    bySlowest.map(row(true)).join("\n")
  }</tbody></table></section>`

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escape(CONTENT_SECURITY_POLICY)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>svc conformance ${pass ? "PASS" : "FAIL"}: ${escape(report.baseUrl)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${header}
<nav class="muted"><a href="#summary">summary</a> · <a href="#failures">failures</a>${
    warned.length === 0 ? "" : ` · <a href="#warnings">warnings</a>`
  }${
    undecided.length === 0 ? "" : ` · <a href="#inconclusive">inconclusive</a>`
  } · <a href="#groups">groups</a> · <a href="#timing">timing</a></nav>
${summary}
${failures}
${warnings}
${inconclusive}
<div id="groups">
${groupSections}
</div>
${timing}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`
}
