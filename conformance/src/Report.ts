/**
 * The results of a run: per check verdicts with their failures (expected,
 * actual, the request and response, a curl command), per group counts, and the
 * events a run emits while it goes (for live progress and NDJSON).
 *
 * The JSON report (`--report json=PATH`) is this {@link Report}; `svc
 * conformance replay` reads it back.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { type Group, type Status, text } from "./Check.ts"
import type { RecordedRequest } from "./Exchange.ts"

/**
 * A failure as reported.
 *
 * @category models
 * @since 0.1.0
 */
export interface FailureRecord {
  readonly title: string
  readonly expected: string
  readonly actual: string
  readonly request?: RecordedRequest | undefined
  readonly response?: {
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    /** The body, truncated to 4 KiB. */
    readonly body: string
  } | undefined
  /** A command that sends the same request. */
  readonly curl?: string | undefined
}

/**
 * The version of the report format: V2 added the warning verdict (`warnings`
 * in the results and the counts) and the options of the second generation
 * (strict, coverage, wallets, status lists, wait). Replay reads V1 and V2.
 *
 * @category constants
 * @since 0.1.0
 */
export const REPORT_SCHEMA = "SVC_CONFORMANCE_REPORT_V2" as const

/**
 * The verdict of one check.
 *
 * @category models
 * @since 0.1.0
 */
export interface CheckResult {
  readonly name: string
  readonly group: Group
  readonly title: string
  readonly reference: string
  readonly status: Status
  readonly durationMs: number
  /** Why the check was inconclusive or skipped. */
  readonly reason?: string | undefined
  readonly failures: ReadonlyArray<FailureRecord>
  /** Departures from svc's documented profile where the spec leaves the behaviour open (the warning verdict). */
  readonly warnings: ReadonlyArray<FailureRecord>
  /** Transport notes (429 waited out, ...). */
  readonly notes: ReadonlyArray<string>
  /** What the check recorded besides its verdict (the transactions it sent, the route it used). */
  readonly details?: Readonly<Record<string, string>> | undefined
}

/**
 * Verdict counts.
 *
 * @category models
 * @since 0.1.0
 */
export interface Counts {
  readonly passed: number
  readonly failed: number
  readonly warning: number
  readonly inconclusive: number
  readonly skipped: number
}

/**
 * The options of the run, as reported (enough to replay it).
 *
 * @category models
 * @since 0.1.0
 */
export interface ReportedOptions {
  readonly only: ReadonlyArray<string>
  readonly skip: ReadonlyArray<string>
  readonly seed: number
  readonly maxExamples: number
  readonly timeoutSeconds: number
  readonly rate?: number | undefined
  readonly signer?: string | undefined
  readonly readOnly: boolean
  /** The test wallet's address (the key is never written). */
  readonly wallet: string
  /** The chain ids of `--rpc` (the URLs are never written: they may carry a provider's key). */
  readonly rpcChainIds?: ReadonlyArray<number> | undefined
  /** Whether `--execute` was given (a real fill). */
  readonly execute?: boolean | undefined
  /** `--strict`: warnings fail the run. */
  readonly strict?: boolean | undefined
  /** `--coverage`: off, quick or full. */
  readonly coverage?: "off" | "quick" | "full" | undefined
  /** The status-list setting assumed (`--status-lists`). */
  readonly statusLists?: "all" | "address" | "none" | undefined
  /** How many generated wallets the run spreads its permits over (their addresses). */
  readonly wallets?: ReadonlyArray<string> | undefined
  /** `--wait`: how long time-dependent checks may wait from the start of the run, seconds. */
  readonly waitSeconds?: number | undefined
  /** Stateful sequences: runs per model (`--stateful-runs`). */
  readonly statefulRuns?: number | undefined
  /** A proxy run: the upstream it forwarded to and where it listened. */
  readonly proxy?: { readonly upstream: string; readonly listen: string; readonly exchanges: number } | undefined
}

/**
 * A run's report.
 *
 * @category models
 * @since 0.1.0
 */
export interface Report {
  readonly schema: typeof REPORT_SCHEMA
  readonly tool: { readonly name: "svc-conformance"; readonly version: string }
  readonly baseUrl: string
  readonly startedAt: string
  readonly durationMs: number
  readonly options: ReportedOptions
  readonly summary: Counts & { readonly total: number }
  readonly groups: Readonly<Partial<Record<Group, Counts>>>
  readonly results: ReadonlyArray<CheckResult>
  /**
   * The harness's self-check before the run: its own primitives and the second
   * path against the independent vectors (a run whose self-check fails never
   * starts, so a report always shows a passed one).
   */
  readonly selfCheck?: SelfCheckSummary | undefined
}

/**
 * What the self-check verified and what it cost.
 *
 * @category models
 * @since 0.1.0
 */
export interface SelfCheckSummary {
  /** Vectors and agreements verified. */
  readonly verified: number
  readonly durationMs: number
}

/**
 * What a run emits.
 *
 * @category models
 * @since 0.1.0
 */
export type RunEvent =
  | {
    readonly type: "run-started"
    readonly baseUrl: string
    readonly checks: number
    /** The self-check that preceded the run, when one did. */
    readonly selfCheck?: SelfCheckSummary | undefined
    readonly groups: ReadonlyArray<{ readonly group: Group; readonly checks: number }>
    readonly options: ReportedOptions
  }
  | { readonly type: "group-started"; readonly group: Group; readonly checks: number }
  | { readonly type: "check-started"; readonly group: Group; readonly name: string }
  | { readonly type: "check-finished"; readonly result: CheckResult }
  | { readonly type: "group-finished"; readonly group: Group; readonly counts: Counts; readonly durationMs: number }
  | { readonly type: "run-finished"; readonly report: Report }

/**
 * The counts of a list of results.
 *
 * @category constructors
 * @since 0.1.0
 */
export const countsOf = (results: ReadonlyArray<{ readonly status: Status }>): Counts => ({
  passed: results.filter((r) => r.status === "passed").length,
  failed: results.filter((r) => r.status === "failed").length,
  warning: results.filter((r) => r.status === "warning").length,
  inconclusive: results.filter((r) => r.status === "inconclusive").length,
  skipped: results.filter((r) => r.status === "skipped").length
})

const Status = Schema.Literals(["passed", "failed", "warning", "inconclusive", "skipped"])

/**
 * The schema a report is read back with (replay): the fields replay needs,
 * other fields allowed. Reports of both versions (V1, V2) are read.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ReportInput = Schema.Struct({
  schema: Schema.Literals(["SVC_CONFORMANCE_REPORT_V1", "SVC_CONFORMANCE_REPORT_V2"]),
  baseUrl: Schema.String,
  options: Schema.Struct({
    only: Schema.Array(Schema.String),
    skip: Schema.Array(Schema.String),
    seed: Schema.Int,
    maxExamples: Schema.Int,
    timeoutSeconds: Schema.Finite,
    rate: Schema.optionalKey(Schema.Finite),
    signer: Schema.optionalKey(Schema.String),
    readOnly: Schema.Boolean,
    strict: Schema.optionalKey(Schema.Boolean),
    coverage: Schema.optionalKey(Schema.Literals(["off", "quick", "full"])),
    statusLists: Schema.optionalKey(Schema.Literals(["all", "address", "none"])),
    statefulRuns: Schema.optionalKey(Schema.Int),
    waitSeconds: Schema.optionalKey(Schema.Finite)
  }),
  results: Schema.Array(Schema.Struct({
    name: Schema.String,
    group: Schema.String,
    status: Status,
    /** What replays a stateful check's shrunk sequence (fast-check's seed, path and replayPath). */
    details: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
  }))
})
/** @since 0.1.0 */
export type ReportInput = typeof ReportInput.Type

const str = (value: unknown): string => text(value)

const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0)

const record = (value: unknown): Record<string, string> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {}
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, str(v)]))
}

const failureOf = (value: unknown): FailureRecord => {
  const f = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>
  const request = f.request as Record<string, unknown> | undefined
  const response = f.response as Record<string, unknown> | undefined
  return {
    title: str(f.title),
    expected: str(f.expected),
    actual: str(f.actual),
    ...(typeof request === "object" && request !== null
      ? {
        request: {
          method: str(request.method),
          url: str(request.url),
          headers: record(request.headers),
          ...(request.body === undefined ? {} : { body: str(request.body) })
        }
      }
      : {}),
    ...(typeof response === "object" && response !== null
      ? { response: { status: num(response.status), headers: record(response.headers), body: str(response.body) } }
      : {}),
    ...(f.curl === undefined ? {} : { curl: str(f.curl) })
  }
}

const STATUSES = new Set(["passed", "failed", "warning", "inconclusive", "skipped"])

/**
 * A report every reporter can render, whatever it holds: texts as strings,
 * lists as arrays, counts as numbers, a missing `warnings` (a V1 report) as
 * none, an unknown verdict as inconclusive, and the summary and group counts
 * recounted from the results. Reporters render through it, so that nothing a
 * server sent (nor a report read back) can stop a report from being written.
 *
 * @category constructors
 * @since 0.1.0
 */
export const normalize = (report: Report): Report => {
  const results: Array<CheckResult> = (Array.isArray(report.results) ? report.results : []).map((value) => {
    const r = (typeof value === "object" && value !== null ? value : {}) as unknown as Record<string, unknown>
    const status = STATUSES.has(r.status as string) ? (r.status as Status) : "inconclusive"
    return {
      name: str(r.name),
      group: str(r.group) as Group,
      title: str(r.title),
      reference: str(r.reference),
      status,
      durationMs: num(r.durationMs),
      ...(r.reason === undefined ? {} : { reason: str(r.reason) }),
      failures: (Array.isArray(r.failures) ? r.failures : []).map(failureOf),
      warnings: (Array.isArray(r.warnings) ? r.warnings : []).map(failureOf),
      notes: (Array.isArray(r.notes) ? r.notes : []).map(str),
      ...(r.details === undefined ? {} : { details: record(r.details) })
    }
  })
  const groups = [...new Set(results.map((r) => r.group))]
  const options = (typeof report.options === "object" && report.options !== null ? report.options : {}) as Partial<
    ReportedOptions
  >
  return {
    ...report,
    schema: REPORT_SCHEMA,
    tool: { name: "svc-conformance", version: str(report.tool?.version) },
    baseUrl: str(report.baseUrl),
    startedAt: str(report.startedAt),
    durationMs: num(report.durationMs),
    options: {
      ...options,
      only: (Array.isArray(options.only) ? options.only : []).map(str),
      skip: (Array.isArray(options.skip) ? options.skip : []).map(str),
      seed: num(options.seed),
      maxExamples: num(options.maxExamples),
      timeoutSeconds: num(options.timeoutSeconds),
      readOnly: options.readOnly === true,
      wallet: str(options.wallet)
    },
    summary: { ...countsOf(results), total: results.length },
    groups: Object.fromEntries(groups.map((g) => [g, countsOf(results.filter((r) => r.group === g))])),
    results
  }
}
