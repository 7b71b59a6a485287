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
import type { Group, Status } from "./Check.ts"
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
}

/**
 * A run's report.
 *
 * @category models
 * @since 0.1.0
 */
export interface Report {
  readonly schema: "SVC_CONFORMANCE_REPORT_V1"
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
  inconclusive: results.filter((r) => r.status === "inconclusive").length,
  skipped: results.filter((r) => r.status === "skipped").length
})

const Status = Schema.Literals(["passed", "failed", "inconclusive", "skipped"])

/**
 * The schema a report is read back with (replay): the fields replay needs,
 * other fields allowed.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ReportInput = Schema.Struct({
  schema: Schema.Literal("SVC_CONFORMANCE_REPORT_V1"),
  baseUrl: Schema.String,
  options: Schema.Struct({
    only: Schema.Array(Schema.String),
    skip: Schema.Array(Schema.String),
    seed: Schema.Int,
    maxExamples: Schema.Int,
    timeoutSeconds: Schema.Finite,
    rate: Schema.optionalKey(Schema.Finite),
    signer: Schema.optionalKey(Schema.String),
    readOnly: Schema.Boolean
  }),
  results: Schema.Array(Schema.Struct({ name: Schema.String, group: Schema.String, status: Status }))
})
/** @since 0.1.0 */
export type ReportInput = typeof ReportInput.Type
