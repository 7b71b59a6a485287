/**
 * The runner: selects the checks of a run (`--only`, `--skip`, `--read-only`),
 * runs them group by group in a fixed order, turns each outcome into a verdict,
 * and emits events that reporters consume while the run goes.
 *
 * The runner knows checks only through the registry; the transport and the
 * reporters know nothing of checks.
 *
 * @since 0.1.0
 */
import { Signature } from "@svc/protocol"
import { Cause, Clock, Effect, Exit, Layer, Option } from "effect"
import * as Chain from "./Chain.ts"
import { type Check, Details, type Failure, type Group, GROUPS, type Need, type Status, text } from "./Check.ts"
import * as Exchange from "./Exchange.ts"
import * as Observer from "./Observer.ts"
import {
  type CheckResult,
  countsOf,
  type FailureRecord,
  type Report,
  REPORT_SCHEMA,
  type ReportedOptions,
  type RunEvent,
  type SelfCheckSummary
} from "./Report.ts"
import { Options, type RunOptions } from "./RunOptions.ts"
import * as Shared from "./Shared.ts"
import { Transport } from "./Transport.ts"

/**
 * The tool's version.
 *
 * @category constants
 * @since 0.1.0
 */
export const VERSION = "0.1.0"

/**
 * A consumer of run events.
 *
 * @category models
 * @since 0.1.0
 */
export interface Reporter {
  readonly onEvent: (event: RunEvent) => Effect.Effect<void>
}

/**
 * The plan of a run: each selected check, with the reason it is skipped when it is.
 *
 * @category models
 * @since 0.1.0
 */
export interface PlanEntry {
  readonly check: Check
  readonly skip?: string | undefined
}

/**
 * Names in `--only`/`--skip` that are neither a group nor a check.
 *
 * @category running
 * @since 0.1.0
 */
export const unknownSelectors = (
  checks: ReadonlyArray<Check>,
  selectors: ReadonlyArray<string>
): ReadonlyArray<string> =>
  selectors.filter((s) => !(GROUPS as ReadonlyArray<string>).includes(s) && !checks.some((c) => c.name === s))

/** Why a check is skipped for lack of a flag it needs. */
const NEEDS: Readonly<Record<Need, string>> = {
  rpc: "needs --rpc <chainId>=<url> (the chains to read)",
  execute: "needs --execute (one real fill, with a funded --wallet-key)"
}

/**
 * Selects the checks of a run, in run order (group order, then registry order).
 * A check is planned as skipped, with the reason, under `--read-only` when it
 * can create a permit, and when it needs `--rpc` or `--execute` and the run
 * has neither.
 *
 * @category running
 * @since 0.1.0
 */
export const plan = (
  checks: ReadonlyArray<Check>,
  options:
    & Pick<RunOptions, "only" | "skip" | "readOnly">
    & Partial<Pick<RunOptions, "rpc" | "execute" | "coverage">>
    & { readonly passive?: boolean | undefined }
): ReadonlyArray<PlanEntry> => {
  const hit = (c: Check, list: ReadonlyArray<string>) => list.includes(c.group) || list.includes(c.name)
  // the proxy group judges live traffic: it runs under svc conformance proxy (passive), and nothing else does
  const selected = checks.filter((c) =>
    (c.group === "proxy") === (options.passive === true) &&
    (options.only.length === 0 || hit(c, options.only)) && !hit(c, options.skip)
  )
  const met: Readonly<Record<Need, boolean>> = {
    rpc: (options.rpc?.length ?? 0) > 0,
    execute: options.execute === true
  }
  return GROUPS.flatMap((g) => selected.filter((c) => c.group === g)).map((check) => {
    if (options.readOnly && check.createsPermit) return { check, skip: "--read-only: this check can create a permit" }
    if (check.group === "coverage" && options.coverage === "off") return { check, skip: "--coverage off" }
    const missing = check.needs.find((n) => !met[n])
    return missing === undefined ? { check } : { check, skip: NEEDS[missing] }
  })
}

const truncate = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s)

/**
 * A failure (or warning) as reported. Every text is a string whatever the
 * check put there (a value taken from a server's answer may be anything, even
 * undefined), so that every reporter can render it.
 *
 * @category running
 * @since 0.1.0
 */
export const failureRecord = (f: Failure): FailureRecord => ({
  title: text(f.title),
  expected: text(f.expected),
  actual: text(f.actual),
  ...(f.exchange === undefined ? {} : {
    request: {
      ...f.exchange.request,
      ...(f.exchange.request.body === undefined ? {} : { body: truncate(f.exchange.request.body, 40_000) })
    },
    response: {
      status: f.exchange.response.status,
      headers: f.exchange.response.headers,
      body: truncate(
        f.exchange.stream === undefined
          ? f.exchange.response.body
          : f.exchange.stream.events.map((e) =>
            `${e.idInBlock ? `id: ${e.lastEventId}\n` : ""}event: ${e.event}\ndata: ${truncate(e.data, 300)}\n`
          ).join("\n"),
        4096
      )
    },
    curl: Exchange.curl(f.exchange)
  })
})

/** A warning turned into a failure by --strict: the title says so. */
const strictFailure = (w: FailureRecord): FailureRecord => ({
  ...w,
  title: `${w.title} (a warning, failed by --strict)`
})

/** Longest time one check may take before it is cut and reported inconclusive (--execute adds its own wait). */
const checkBudgetMs = (check: Check, options: RunOptions) =>
  Math.max(120_000, options.timeoutSeconds * 6000 + options.maxExamples * 2000) +
  (check.needs.includes("execute") ? options.executeTimeoutSeconds * 3000 : 0)

const runOne = (entry: PlanEntry, options: RunOptions) =>
  Effect.gen(function*() {
    const { check } = entry
    const base = { name: check.name, group: check.group, title: check.title, reference: check.reference }
    if (entry.skip !== undefined) {
      return {
        ...base,
        status: "skipped" as Status,
        durationMs: 0,
        reason: entry.skip,
        failures: [],
        warnings: [],
        notes: []
      } satisfies CheckResult
    }
    const transport = yield* Transport
    const before = (yield* transport.exchanges).length
    const started = yield* Clock.currentTimeMillis
    const budget = checkBudgetMs(check, options)
    const details: Record<string, string> = {}
    const exit = yield* Effect.exit(
      check.run.pipe(
        Effect.timeoutOption(budget),
        Effect.provideService(Details, { record: (key, value) => void (details[key] = value) })
      )
    )
    const durationMs = (yield* Clock.currentTimeMillis) - started
    const notes = (yield* transport.exchanges).slice(before).flatMap((e) => e.notes).filter((n) => n !== "no response")
    const result = (
      status: Status,
      extra: { reason?: string; failures?: ReadonlyArray<FailureRecord>; warnings?: ReadonlyArray<FailureRecord> }
    ): CheckResult => ({
      ...base,
      status,
      durationMs,
      failures: extra.failures ?? [],
      warnings: extra.warnings ?? [],
      notes: [...new Set(notes)].filter((n) => !n.startsWith("rate limited (429)")),
      ...(extra.reason === undefined ? {} : { reason: extra.reason }),
      ...(Object.keys(details).length === 0 ? {} : { details: { ...details } })
    })
    if (Exit.isSuccess(exit)) {
      return Option.isNone(exit.value)
        ? result("inconclusive", {
          reason: `the check did not finish within ${Math.round(budget / 1000)} s`
        })
        : result("passed", {})
    }
    const error = Cause.findErrorOption(exit.cause)
    if (Option.isSome(error)) {
      const e = error.value
      switch (e._tag) {
        case "CheckFailed": {
          const warnings = (e.warnings ?? []).map(failureRecord)
          return options.strict
            ? result("failed", { failures: [...e.failures.map(failureRecord), ...warnings.map(strictFailure)] })
            : result("failed", { failures: e.failures.map(failureRecord), warnings })
        }
        case "Warned": {
          const warnings = e.warnings.map(failureRecord)
          // --strict: a departure from svc's profile fails like a departure from the spec
          return options.strict
            ? result("failed", { failures: warnings.map(strictFailure) })
            : result("warning", { warnings })
        }
        case "Inconclusive":
          return result("inconclusive", { reason: e.reason })
        case "Skip":
          return result("skipped", { reason: e.reason })
      }
    }
    // a defect is a bug of the check, not a verdict on the deployment
    return result("inconclusive", {
      reason: `internal error of the check: ${Cause.pretty(exit.cause).split("\n").slice(0, 3).join(" ")}`
    })
  })

/**
 * The reported form of the options.
 *
 * @category running
 * @since 0.1.0
 */
export const reportedOptions = (options: RunOptions, wallet: string): ReportedOptions => ({
  only: options.only,
  skip: options.skip,
  seed: options.seed,
  maxExamples: options.maxExamples,
  timeoutSeconds: options.timeoutSeconds,
  ...(options.rate === undefined ? {} : { rate: options.rate }),
  ...(options.signer === undefined ? {} : { signer: options.signer }),
  readOnly: options.readOnly,
  wallet,
  ...(options.rpc.length === 0 ? {} : { rpcChainIds: options.rpc.map((e) => e.chainId) }),
  ...(options.execute ? { execute: true } : {}),
  strict: options.strict,
  coverage: options.coverage,
  statusLists: options.statusLists,
  statefulRuns: options.statefulRuns,
  wallets: options.walletKeys.map((k) => Signature.addressOf(k)),
  ...(options.waitSeconds === undefined ? {} : { waitSeconds: options.waitSeconds })
})

/**
 * Runs checks against the deployment of the transport in context, emitting
 * events to the reporters, and returns the report.
 *
 * @category running
 * @since 0.1.0
 */
export const run = (
  checks: ReadonlyArray<Check>,
  reporters: ReadonlyArray<Reporter>,
  extras?: {
    readonly selfCheck?: SelfCheckSummary | undefined
    /** A proxy run: the checks of live traffic only, with what the proxy saw in the reported options. */
    readonly proxy?: NonNullable<ReportedOptions["proxy"]> | undefined
    /** When the run began (a proxy run: when the proxy started listening), Unix ms; default now. */
    readonly startedAt?: number | undefined
  }
) =>
  Effect.gen(function*() {
    const options = yield* Options
    const emit = (event: RunEvent) => Effect.forEach(reporters, (r) => r.onEvent(event), { discard: true })
    const entries = plan(checks, { ...options, passive: extras?.proxy !== undefined })
    const shared = yield* Shared.Shared
    const observer = yield* Observer.Observer
    const startedAt = extras?.startedAt ?? (yield* Clock.currentTimeMillis)
    const reported = {
      ...reportedOptions(options, shared.wallet.address),
      ...(extras?.proxy === undefined ? {} : { proxy: extras.proxy })
    }
    const groups = GROUPS.flatMap((group): Array<{ group: Group; checks: number }> => {
      const n = entries.filter((e) => e.check.group === group).length
      return n === 0 ? [] : [{ group, checks: n }]
    })
    const selfCheck = extras?.selfCheck
    yield* emit({
      type: "run-started",
      baseUrl: options.baseUrl,
      checks: entries.length,
      groups,
      options: reported,
      ...(selfCheck === undefined ? {} : { selfCheck })
    })
    // the observation window of the time-dependent checks is the whole run
    if (entries.some((e) => e.check.group === "timing" && e.skip === undefined)) yield* observer.start
    const results: Array<CheckResult> = []
    for (const { group, checks: count } of groups) {
      const groupStarted = yield* Clock.currentTimeMillis
      yield* emit({ type: "group-started", group, checks: count })
      const groupResults: Array<CheckResult> = []
      for (const entry of entries.filter((e) => e.check.group === group)) {
        yield* emit({ type: "check-started", group, name: entry.check.name })
        const result = yield* runOne(entry, options)
        groupResults.push(result)
        results.push(result)
        yield* emit({ type: "check-finished", result })
      }
      yield* emit({
        type: "group-finished",
        group,
        counts: countsOf(groupResults),
        durationMs: (yield* Clock.currentTimeMillis) - groupStarted
      })
    }
    const finished = yield* Clock.currentTimeMillis
    const summary = countsOf(results)
    const report: Report = {
      schema: REPORT_SCHEMA,
      tool: { name: "svc-conformance", version: VERSION },
      baseUrl: options.baseUrl,
      startedAt: new Date(startedAt).toISOString(),
      durationMs: finished - startedAt,
      options: reported,
      summary: { ...summary, total: results.length },
      groups: Object.fromEntries(
        groups.map(({ group }) => [group, countsOf(results.filter((r) => r.group === group))])
      ),
      results,
      ...(selfCheck === undefined ? {} : { selfCheck })
    }
    yield* emit({ type: "run-finished", report })
    return report
  })

/**
 * The services a run needs besides the transport and the options.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Shared.Shared | Observer.Observer | Chain.Chains, never, Transport | Options> = Layer
  .mergeAll(Shared.layer, Observer.layer, Chain.layer)

/**
 * Runs checks with fresh shared values (the transport and options in context).
 *
 * @category running
 * @since 0.1.0
 */
export const runScoped = (
  checks: ReadonlyArray<Check>,
  reporters: ReadonlyArray<Reporter>,
  extras?: Parameters<typeof run>[2]
) => run(checks, reporters, extras).pipe(Effect.provide(layer))

/**
 * Exit code of a report: 0 only when nothing failed.
 *
 * @category running
 * @since 0.1.0
 */
export const exitCode = (report: Report): number => (report.summary.failed === 0 ? 0 : 1)
