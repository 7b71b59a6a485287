/**
 * Reporters: the console (a live progress line per group, then a summary
 * table and, for each failure, the check, what was expected, what came back
 * and a curl command that reproduces it), and the report files: JUnit XML,
 * the JSON report (read back by replay), the HTML report (Html.ts) and NDJSON
 * events as they happen.
 *
 * @since 0.1.0
 */
import { Effect, FileSystem, Path } from "effect"
import { type Group, GROUP_TITLES } from "./Check.ts"
import * as Html from "./Html.ts"
import { type CheckResult, type Counts, type FailureRecord, normalize, type Report, type RunEvent } from "./Report.ts"
import type { Reporter } from "./Runner.ts"
import type { ReportTargets } from "./RunOptions.ts"

// ---------------------------------------------------------------------------
// Console
// ---------------------------------------------------------------------------

/**
 * Options of the console reporter.
 *
 * @category models
 * @since 0.1.0
 */
export interface ConsoleOptions {
  readonly write: (text: string) => void
  /** Redraw the progress line in place (a terminal). */
  readonly tty: boolean
  readonly color: boolean
}

const paint = (on: boolean) => (code: string) => (text: string) => (on ? `\x1b[${code}m${text}\x1b[0m` : text)

const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length))
const padStart = (s: string, n: number) => (s.length >= n ? s : " ".repeat(n - s.length) + s)

const countsText = (c: Counts) =>
  `${c.passed} passed, ${c.failed} failed, ${c.warning ?? 0} warning${
    (c.warning ?? 0) === 1 ? "" : "s"
  }, ${c.inconclusive} inconclusive, ${c.skipped} skipped`

/**
 * The summary table of a report.
 *
 * @category running
 * @since 0.1.0
 */
export const summaryTable = (input: Report): string => {
  const report = normalize(input)
  const rows: Array<[string, Counts]> = (Object.entries(report.groups) as Array<[Group, Counts]>).map((
    [g, c]
  ) => [g, c])
  rows.push(["total", report.summary])
  const header = `${pad("group", 12)}${padStart("passed", 8)}${padStart("failed", 8)}${padStart("warning", 9)}${
    padStart("inconclusive", 14)
  }${padStart("skipped", 9)}`
  const line = (name: string, c: Counts) =>
    `${pad(name, 12)}${padStart(String(c.passed), 8)}${padStart(String(c.failed), 8)}${padStart(String(c.warning), 9)}${
      padStart(String(c.inconclusive), 14)
    }${padStart(String(c.skipped), 9)}`
  const sep = "-".repeat(header.length)
  return [
    header,
    sep,
    ...rows.slice(0, -1).map(([n, c]) => line(n, c)),
    sep,
    line(rows[rows.length - 1]![0], rows[rows.length - 1]![1])
  ].join("\n")
}

const indent = (text: string, by: string) => text.split("\n").map((l) => by + l).join("\n")

const departures = (list: ReadonlyArray<FailureRecord>, out: Array<string>) => {
  for (const f of list) {
    out.push(`  - ${f.title}`)
    out.push(indent(`expected: ${f.expected}`, "      "))
    out.push(indent(`actual:   ${f.actual}`, "      "))
    if (f.curl !== undefined) out.push(indent(`reproduce: ${f.curl}`, "      "))
  }
}

/**
 * The failure section of a report: for each failed check, every failure with
 * expected, actual and the curl reproduction.
 *
 * @category running
 * @since 0.1.0
 */
export const failureText = (results: ReadonlyArray<CheckResult>, color = false): string => {
  const red = paint(color)("31")
  const dim = paint(color)("2")
  const out: Array<string> = []
  for (const r of results.filter((x) => x.status === "failed")) {
    out.push(`${red("FAILED")} ${r.name} (${r.group}): ${r.title}`)
    out.push(dim(`  rule: ${r.reference}`))
    departures(r.failures ?? [], out)
    if ((r.warnings ?? []).length > 0) {
      out.push(dim("  and departures from svc's profile (warnings):"))
      departures(r.warnings, out)
    }
    out.push("")
  }
  return out.join("\n")
}

/**
 * The warning section of a report: for each check with the warning verdict,
 * every departure from svc's documented profile (where the spec leaves the
 * behaviour open) with expected, actual and the curl reproduction.
 *
 * @category running
 * @since 0.1.0
 */
export const warningText = (results: ReadonlyArray<CheckResult>, color = false): string => {
  const yellow = paint(color)("33")
  const dim = paint(color)("2")
  const out: Array<string> = []
  for (const r of results.filter((x) => x.status === "warning")) {
    out.push(`${yellow("WARNING")} ${r.name} (${r.group}): ${r.title}`)
    out.push(dim(`  rule: ${r.reference}`))
    departures(r.warnings ?? [], out)
    out.push("")
  }
  return out.join("\n")
}

/**
 * The details a check recorded (transactions, the route it used), one per line.
 *
 * @category running
 * @since 0.1.0
 */
export const detailsText = (result: CheckResult): string =>
  [
    `  ${result.name} (${result.status}):`,
    ...Object.entries(result.details ?? {}).map(([k, v]) => `      ${k}: ${v}`)
  ].join("\n")

/**
 * The console reporter.
 *
 * @category running
 * @since 0.1.0
 */
export const consoleReporter = (options: ConsoleOptions): Reporter => {
  const c = paint(options.color)
  const green = c("32")
  const red = c("31")
  const yellow = c("33")
  const dim = c("2")
  const bold = c("1")
  let group: { name: Group; total: number; done: Array<CheckResult>; current: string } | undefined

  const progress = () => {
    if (group === undefined) return ""
    const k = group.done
    const failed = k.filter((r) => r.status === "failed").length
    return `  ${pad(group.name, 11)} ${padStart(String(k.length), 3)}/${group.total}  ${
      failed > 0 ? red(`${failed} failed`) : ""
    } ${dim(group.current)}`
  }

  const onEvent = (event: RunEvent) =>
    Effect.sync(() => {
      switch (event.type) {
        case "run-started": {
          const o = event.options
          options.write(
            `${bold("svc conformance")} ${event.baseUrl}\n` +
              dim(
                `  ${event.checks} checks in ${event.groups.length} group${
                  event.groups.length === 1 ? "" : "s"
                }; seed ${o.seed}; max examples ${o.maxExamples}; timeout ${o.timeoutSeconds} s${
                  o.rate === undefined ? "" : `; ${o.rate} req/s`
                }${o.readOnly ? "; read-only" : ""}${
                  o.rpcChainIds === undefined ? "" : `; chains ${o.rpcChainIds.join(", ")}`
                }${o.execute === true ? "; execute" : ""}; wallet ${o.wallet}`
              ) +
              (event.selfCheck === undefined ? "" : `\n${
                dim(
                  `  self-check passed: ${event.selfCheck.verified} vectors and agreements of the two paths in ${event.selfCheck.durationMs} ms`
                )
              }`) +
              "\n\n"
          )
          return
        }
        case "group-started":
          group = { name: event.group, total: event.checks, done: [], current: "" }
          if (options.tty) options.write(`\r\x1b[K${progress()}`)
          return
        case "check-started":
          if (group !== undefined) group.current = event.name
          if (options.tty) options.write(`\r\x1b[K${progress()}`)
          return
        case "check-finished":
          group?.done.push(event.result)
          if (options.tty) options.write(`\r\x1b[K${progress()}`)
          return
        case "group-finished": {
          const k = event.counts
          const mark = k.failed > 0
            ? red("✗")
            : (k.warning ?? 0) > 0
            ? yellow("!")
            : k.inconclusive > 0
            ? yellow("?")
            : k.passed === 0
            ? dim("-")
            : green("✓")
          const line = `${mark} ${pad(event.group, 11)} ${countsText(k)} ${
            dim(`(${(event.durationMs / 1000).toFixed(1)} s)`)
          }`
          options.write(`${options.tty ? "\r\x1b[K" : ""}${line}\n`)
          group = undefined
          return
        }
        case "run-finished": {
          const r = normalize(event.report)
          options.write(`\n${summaryTable(r)}\n\n`)
          const failures = failureText(r.results, options.color)
          if (failures.length > 0) options.write(`${failures}\n`)
          const warnings = warningText(r.results, options.color)
          if (warnings.length > 0) options.write(`${warnings}\n`)
          const other = r.results.filter((x) =>
            x.status === "inconclusive" || (x.status === "skipped" && x.reason !== undefined)
          )
          if (other.length > 0) {
            options.write(`${bold("Not decided")}\n`)
            for (const x of other) {
              options.write(
                `  ${x.status === "inconclusive" ? yellow("inconclusive") : dim("skipped")} ${x.name}: ${
                  x.reason ?? ""
                }\n`
              )
            }
            options.write("\n")
          }
          const detailed = r.results.filter((x) => x.details !== undefined)
          if (detailed.length > 0) {
            options.write(`${bold("Details")}\n`)
            for (const x of detailed) options.write(`${detailsText(x)}\n`)
            options.write("\n")
          }
          const notes = [...new Set(r.results.flatMap((x) => x.notes))]
          if (notes.length > 0) options.write(`${dim(`Transport notes: ${notes.slice(0, 5).join("; ")}`)}\n\n`)
          options.write(
            `${r.summary.failed === 0 ? green(bold("PASS")) : red(bold("FAIL"))} ${countsText(r.summary)} in ${
              (r.durationMs / 1000).toFixed(1)
            } s\n`
          )
          if (r.summary.warning > 0) {
            options.write(
              dim(
                `  a warning is not a failure: ${r.summary.warning} check${
                  r.summary.warning === 1 ? "" : "s"
                } found departures from svc's documented profile where the spec leaves the behaviour open; --strict fails them\n`
              )
            )
          }
          if (r.summary.inconclusive > 0) {
            options.write(
              dim(
                `  inconclusive is not failed: ${r.summary.inconclusive} check${
                  r.summary.inconclusive === 1 ? "" : "s"
                } needed time or an event this run did not wait for (a new publication, a quote's expiry); "Not decided" above says what decides each\n`
              )
            )
          }
          return
        }
      }
    })
  return { onEvent }
}

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

const xml = (s: string) =>
  // oxlint-disable-next-line no-control-regex -- XML 1.0 forbids these characters: they are removed
  s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(
    />/g,
    "&gt;"
  ).replace(/"/g, "&quot;")

/**
 * The JUnit XML of a report: one testsuite per group, one testcase per check;
 * inconclusive and skipped checks are `<skipped>` with their reason.
 *
 * @category running
 * @since 0.1.0
 */
export const junit = (input: Report): string => {
  const report = normalize(input)
  const seconds = (ms: number) => (ms / 1000).toFixed(3)
  const groups = [...new Set(report.results.map((r) => r.group))]
  const suites = groups.map((g) => {
    const results = report.results.filter((r) => r.group === g)
    const failed = results.filter((r) => r.status === "failed").length
    const skipped = results.filter((r) => r.status === "skipped" || r.status === "inconclusive").length
    const time = results.reduce((t, r) => t + r.durationMs, 0)
    const cases = results.map((r) => {
      const open = `    <testcase classname="svc.conformance.${xml(g)}" name="${xml(r.name)}" time="${
        seconds(r.durationMs)
      }"`
      const out = (r.details === undefined ? "" : `\n      <system-out>${xml(detailsText(r))}</system-out>`) +
        (r.warnings.length === 0
          ? ""
          : `\n      <system-err>${xml(warningText([{ ...r, status: "warning" }]))}</system-err>`)
      if (r.status === "passed" || r.status === "warning") {
        // JUnit has no warning: a warning is a passing test case whose departures are in <system-err>
        const verdict = r.status === "warning"
          ? `\n      <properties><property name="verdict" value="warning"/></properties>`
          : ""
        return out === "" && verdict === "" ? `${open}/>` : `${open}>${verdict}${out}\n    </testcase>`
      }
      if (r.status === "failed") {
        const text = failureText([r])
        return `${open}>\n      <failure message="${xml(r.failures[0]?.title ?? r.title)}" type="CheckFailed">${
          xml(text)
        }</failure>${out}\n    </testcase>`
      }
      return `${open}>\n      <skipped message="${xml(`${r.status}: ${r.reason ?? ""}`)}"/>${out}\n    </testcase>`
    })
    return `  <testsuite name="${
      xml(g)
    }" tests="${results.length}" failures="${failed}" errors="0" skipped="${skipped}" time="${
      seconds(time)
    }">\n    <properties><property name="description" value="${xml(GROUP_TITLES[g] ?? "")}"/></properties>\n${
      cases.join("\n")
    }\n  </testsuite>`
  })
  const s = report.summary
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="svc-conformance ${
    xml(report.baseUrl)
  }" tests="${s.total}" failures="${s.failed}" errors="0" skipped="${s.skipped + s.inconclusive}" time="${
    seconds(report.durationMs)
  }" timestamp="${report.startedAt}">\n${suites.join("\n")}\n</testsuites>\n`
}

/**
 * The JSON report (`SVC_CONFORMANCE_REPORT_V2`), as written by `--report json=PATH`.
 *
 * @category running
 * @since 0.1.0
 */
export const json = (report: Report): string => `${JSON.stringify(normalize(report), null, 2)}\n`

/**
 * One NDJSON line of a run event, as written by `--report ndjson=PATH`.
 *
 * @category running
 * @since 0.1.0
 */
export const ndjsonLine = (event: RunEvent): string =>
  `${JSON.stringify(event.type === "run-finished" ? { ...event, report: normalize(event.report) } : event)}\n`

/**
 * Every format of a report: the console text (not a terminal, no colour), the
 * JUnit XML, the JSON report, the NDJSON events of the run and the HTML page.
 * Each renders every verdict of every check, whatever the server sent.
 *
 * @category running
 * @since 0.1.0
 */
export const renderAll = (report: Report): {
  readonly console: string
  readonly junit: string
  readonly json: string
  readonly ndjson: string
  readonly html: string
} => {
  let consoleText = ""
  const reporter = consoleReporter({ write: (t) => void (consoleText += t), tty: false, color: false })
  const events = eventsOf(report)
  for (const event of events) Effect.runSync(reporter.onEvent(event))
  return {
    console: consoleText,
    junit: junit(report),
    json: json(report),
    ndjson: events.map(ndjsonLine).join(""),
    html: Html.render(report)
  }
}

/** The events a run of this report emitted, rebuilt from the report. */
const eventsOf = (input: Report): ReadonlyArray<RunEvent> => {
  const report = normalize(input)
  const groups = [...new Set(report.results.map((r) => r.group))]
  const out: Array<RunEvent> = [{
    type: "run-started",
    baseUrl: report.baseUrl,
    checks: report.results.length,
    groups: groups.map((group) => ({ group, checks: report.results.filter((r) => r.group === group).length })),
    options: report.options,
    ...(report.selfCheck === undefined ? {} : { selfCheck: report.selfCheck })
  }]
  for (const group of groups) {
    const results = report.results.filter((r) => r.group === group)
    out.push({ type: "group-started", group, checks: results.length })
    for (const result of results) {
      out.push({ type: "check-started", group, name: result.name }, { type: "check-finished", result })
    }
    out.push({
      type: "group-finished",
      group,
      counts: report.groups[group]!,
      durationMs: results.reduce((t, r) => t + r.durationMs, 0)
    })
  }
  out.push({ type: "run-finished", report })
  return out
}

/**
 * Parses `--report junit=PATH,json=PATH,ndjson=PATH,html=PATH`.
 *
 * @category running
 * @since 0.1.0
 */
export const parseTargets = (text: string): { readonly targets: ReportTargets } | { readonly error: string } => {
  const targets: Record<string, string> = {}
  for (const part of text.split(",").map((p) => p.trim()).filter((p) => p.length > 0)) {
    const i = part.indexOf("=")
    const kind = i === -1 ? "" : part.slice(0, i)
    const path = i === -1 ? "" : part.slice(i + 1)
    if (!["junit", "json", "ndjson", "html"].includes(kind) || path.length === 0) {
      return { error: `--report: "${part}" is not junit=PATH, json=PATH, ndjson=PATH or html=PATH` }
    }
    targets[kind] = path
  }
  return { targets }
}

/**
 * The file reporters of the targets: NDJSON lines as events happen, JUnit,
 * JSON and HTML at the end of the run. Parent folders are created.
 *
 * @category running
 * @since 0.1.0
 */
export const fileReporters = (targets: ReportTargets) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const prepare = (file: string) => fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(Effect.ignore)
    const reporters: Array<Reporter> = []
    const log = (what: string) => (e: unknown) =>
      Effect.logWarning(`cannot write the ${what} report: ${String((e as Error)?.message ?? e)}`)
    if (targets.ndjson !== undefined) {
      const file = targets.ndjson
      yield* prepare(file)
      yield* fs.writeFileString(file, "").pipe(Effect.catch(log("NDJSON")))
      reporters.push({
        onEvent: (event) =>
          Effect.try(() => ndjsonLine(event)).pipe(
            Effect.flatMap((line) => fs.writeFileString(file, line, { flag: "a" })),
            Effect.catch(log("NDJSON"))
          )
      })
    }
    const atEnd = (file: string | undefined, what: string, render: (r: Report) => string) => {
      if (file === undefined) return
      reporters.push({
        onEvent: (event) =>
          event.type !== "run-finished"
            ? Effect.void
            : prepare(file).pipe(
              // rendering is inside the effect: a report that cannot be rendered is logged, the others are written
              Effect.andThen(Effect.try(() => render(event.report))),
              Effect.flatMap((text) => fs.writeFileString(file, text)),
              Effect.catch(log(what))
            )
      })
    }
    atEnd(targets.junit, "JUnit", junit)
    atEnd(targets.json, "JSON", json)
    atEnd(targets.html, "HTML", Html.render)
    return reporters
  })
