/**
 * The command line: `svc conformance --url <base>` (also the package's own
 * `svc-conformance` bin), `svc conformance replay <report>` and `svc
 * conformance list`.
 *
 * The command tree is built by {@link makeCommand} with the caller's error
 * constructors, so that the `svc` tool maps "checks failed" to its own exit 1
 * and bad input to its exit 2.
 *
 * @since 0.1.0
 */
import { Data, Effect, FileSystem, Option, Result, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { type Check, GROUP_TITLES, GROUPS } from "./Check.ts"
import * as ProxyRun from "./ProxyRun.ts"
import * as Registry from "./Registry.ts"
import { type Report, ReportInput } from "./Report.ts"
import * as Reporters from "./Reporters.ts"
import * as Runner from "./Runner.ts"
import * as RunOptions from "./RunOptions.ts"
import * as SelfCheck from "./SelfCheck.ts"
import * as Transport from "./Transport.ts"

/**
 * How the caller turns the two failure kinds into its errors.
 *
 * @category models
 * @since 0.1.0
 */
export interface ErrorMapping<F, B> {
  /** Checks failed (exit 1). */
  readonly failed: (message: string) => F
  /** The invocation is wrong: a bad flag value, an unreadable report (exit 2). */
  readonly badInput: (message: string) => B
}

/**
 * Where the console output goes.
 *
 * @category models
 * @since 0.1.0
 */
export interface Output {
  readonly write: (text: string) => void
  readonly tty: boolean
  readonly color: boolean
}

/**
 * The process's standard output.
 *
 * @category models
 * @since 0.1.0
 */
export const stdout = (): Output => ({
  write: (text) => void process.stdout.write(text),
  tty: process.stdout.isTTY === true,
  color: process.stdout.isTTY === true && process.env.NO_COLOR === undefined
})

/**
 * The harness's self-check failed: its own primitives or its second path
 * disagree with the independent vectors, so it refuses to judge (exit 2).
 *
 * @category errors
 * @since 0.1.0
 */
export class SelfCheckRefused extends Data.TaggedError("SelfCheckRefused")<{ readonly message: string }> {}

/**
 * The base URL does not answer (connection refused, no such host, no answer
 * within the timeout): nothing can be judged (exit 2).
 *
 * @category errors
 * @since 0.1.0
 */
export class Unreachable extends Data.TaggedError("Unreachable")<{ readonly message: string }> {}

/** Undefined when the base URL answers anything (any status), else why it cannot be reached, in one line. */
const reach = async (
  baseUrl: string,
  timeoutSeconds: number,
  fetchImpl: typeof globalThis.fetch | undefined
): Promise<string | undefined> => {
  const url = `${baseUrl.replace(/\/+$/, "")}/.well-known/svc-solver.json`
  try {
    const response = await (fetchImpl ?? globalThis.fetch)(url, { signal: AbortSignal.timeout(timeoutSeconds * 1000) })
    await response.body?.cancel().catch(() => undefined)
    return undefined
  } catch (e) {
    const error = e as Error & { readonly cause?: { readonly code?: string; readonly message?: string } }
    const reason = error.name === "TimeoutError"
      ? `no answer within ${timeoutSeconds} s`
      : error.cause?.code ?? error.cause?.message ?? error.message
    return `cannot reach ${baseUrl} (${reason}); is the server running at that address?`
  }
}

/**
 * What {@link execute} runs and where it reports.
 *
 * @category models
 * @since 0.1.0
 */
export interface ExecuteOptions {
  /** The checks (default: the whole registry; the options select among them). */
  readonly checks?: ReadonlyArray<Check> | undefined
  /** The console (default: standard output). */
  readonly output?: Output | undefined
  /** The fetch implementation (default: the global fetch). */
  readonly fetch?: typeof globalThis.fetch | undefined
}

/**
 * Runs checks against a deployment over HTTP, with the console reporter on
 * the output and the report files of the options, and returns the report.
 *
 * @category running
 * @since 0.1.0
 */
export const execute = (options: RunOptions.RunOptions, run: ExecuteOptions = {}) =>
  Effect.gen(function*() {
    // the harness judges no one while its own primitives disagree with the independent vectors
    const self = SelfCheck.run()
    if (!self.ok) {
      return yield* new SelfCheckRefused({
        message: `self-check failed, refusing to judge: ${self.problem ?? "unknown disagreement"}`
      })
    }
    // a base URL that does not answer at all ends the run at once: no check is judged on no response
    const reached = yield* Effect.promise(() => reach(options.baseUrl, options.timeoutSeconds, run.fetch))
    if (reached !== undefined) return yield* new Unreachable({ message: reached })
    const reporters = [
      Reporters.consoleReporter(run.output ?? stdout()),
      ...(yield* Reporters.fileReporters(options.reports))
    ]
    return yield* Runner.runScoped(run.checks ?? Registry.all, reporters, {
      selfCheck: { verified: self.verified, durationMs: self.durationMs }
    }).pipe(
      Effect.provide(Transport.layer({
        baseUrl: options.baseUrl,
        timeoutMs: options.timeoutSeconds * 1000,
        rate: options.rate,
        fetch: run.fetch
      })),
      Effect.provideService(RunOptions.Options, options)
    )
  })

const list = (values: Option.Option<string>) =>
  Option.match(values, {
    onNone: () => [],
    onSome: (v) => v.split(",").map((s) => s.trim()).filter((s) => s.length > 0)
  })

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const KEY = /^0x[0-9a-fA-F]{64}$/

interface Shared {
  readonly timeout: Option.Option<number>
  readonly rate: Option.Option<number>
  readonly walletKey: Option.Option<string>
  readonly report: Option.Option<string>
  readonly rpc: ReadonlyArray<string>
  readonly execute: boolean
  readonly executeTimeout: Option.Option<number>
}

const validateShared = (shared: Shared): string | undefined => {
  if (Option.isSome(shared.timeout) && !(shared.timeout.value > 0)) {
    return "--timeout must be a positive number of seconds"
  }
  if (Option.isSome(shared.rate) && !(shared.rate.value > 0)) {
    return "--rate must be a positive number of requests per second"
  }
  if (Option.isSome(shared.walletKey) && !KEY.test(shared.walletKey.value)) {
    return "--wallet-key must be 0x followed by 64 hex digits"
  }
  const rpc = RunOptions.parseRpc(shared.rpc)
  if ("error" in rpc) return rpc.error
  if (Option.isSome(shared.executeTimeout) && !(shared.executeTimeout.value > 0)) {
    return "--execute-timeout must be a positive number of seconds"
  }
  if (shared.execute && Option.isNone(shared.walletKey)) {
    return "--execute needs --wallet-key: the key of a wallet funded on the source chain (it sends a real fill)"
  }
  if (shared.execute && shared.rpc.length === 0) {
    return "--execute needs --rpc <chainId>=<url> for the source and the destination chain of the fill"
  }
  return undefined
}

/** The chain options of the shared flags (validated by validateShared). */
const chainOptions = (shared: Shared) => {
  const rpc = RunOptions.parseRpc(shared.rpc)
  return {
    rpc: "endpoints" in rpc ? rpc.endpoints : [],
    execute: shared.execute,
    ...(Option.isSome(shared.executeTimeout) ? { executeTimeoutSeconds: shared.executeTimeout.value } : {})
  }
}

const validateUrl = (url: string): string | undefined =>
  URL.canParse(url) && /^https?:$/.test(new URL(url).protocol) ? undefined : `--url ${url} is not an http(s) URL`

const sharedFlags = {
  timeout: Flag.Finite("timeout").pipe(
    Flag.withDescription(
      `per-request timeout and the wait of time-dependent checks, seconds (default ${RunOptions.DEFAULTS.timeoutSeconds})`
    ),
    Flag.optional
  ),
  rate: Flag.Finite("rate").pipe(
    Flag.withDescription("requests per second (default: unlimited); a 429 with Retry-After is waited out"),
    Flag.optional
  ),
  walletKey: Flag.String("wallet-key").pipe(
    Flag.withDescription(
      "private key of the test wallet that signs permit requests (a key with no funds); generated when absent"
    ),
    Flag.optional
  ),
  report: Flag.String("report").pipe(
    Flag.withDescription("report files: junit=PATH,json=PATH,ndjson=PATH,html=PATH"),
    Flag.optional
  ),
  rpc: Flag.String("rpc").pipe(
    Flag.withDescription(
      "a chain's JSON-RPC URL, <chainId>=<url>, repeatable: runs the chain group (code, facade, router) on it"
    ),
    Flag.atLeast(0)
  ),
  execute: Flag.Boolean("execute").pipe(
    Flag.withDescription(
      "perform one real fill (permit, approval, fillDirect) with --wallet-key, funded on a source chain of --rpc, and wait until PAID"
    ),
    Flag.withDefault(false)
  ),
  executeTimeout: Flag.Finite("execute-timeout").pipe(
    Flag.withDescription(
      `how long --execute waits for its transactions and for PAID, seconds (default ${RunOptions.DEFAULTS.executeTimeoutSeconds})`
    ),
    Flag.optional
  )
}

/** Flags that shape a run (the main command; replay takes them over the report's). */
const runFlags = {
  strict: Flag.Boolean("strict").pipe(
    Flag.withDescription("warnings (departures from svc's profile where the spec leaves it open) fail the run"),
    Flag.withDefault(false)
  ),
  coverage: Flag.Literals("coverage", ["off", "quick", "full"]).pipe(
    Flag.withDescription(
      `the coverage phase: off, quick (one case per boundary class) or full (every boundary) (default ${RunOptions.DEFAULTS.coverage})`
    ),
    Flag.optional
  ),
  statusLists: Flag.Literals("status-lists", ["all", "address", "none"]).pipe(
    Flag.withDescription(
      `the deployment's privacy setting of /v1/status lists the cross-client checks assume (svc: SVC_STATUS_LISTS; default ${RunOptions.DEFAULTS.statusLists})`
    ),
    Flag.optional
  ),
  wallets: Flag.Int("wallets").pipe(
    Flag.withDescription(
      `generated wallets the run spreads its permits over, at least 2 (default ${RunOptions.DEFAULTS.wallets})`
    ),
    Flag.optional
  ),
  wait: Flag.Finite("wait").pipe(
    Flag.withDescription(
      "how long the time-dependent checks may wait for a publication or a quote's expiry, seconds from the start of the run (default: --timeout)"
    ),
    Flag.optional
  ),
  statefulRuns: Flag.Int("stateful-runs").pipe(
    Flag.withDescription(
      `generated sequences per model of the stateful group (default ${RunOptions.DEFAULTS.statefulRuns})`
    ),
    Flag.optional
  )
}

interface RunFlags {
  readonly strict: boolean
  readonly coverage: Option.Option<RunOptions.CoverageMode>
  readonly statusLists: Option.Option<RunOptions.StatusLists>
  readonly wallets: Option.Option<number>
  readonly wait: Option.Option<number>
  readonly statefulRuns: Option.Option<number>
}

const validateRun = (flags: RunFlags): string | undefined => {
  if (Option.isSome(flags.wallets) && !(flags.wallets.value >= 2 && flags.wallets.value <= 64)) {
    return "--wallets must be between 2 and 64 (the cross-client checks need two payers)"
  }
  if (Option.isSome(flags.wait) && !(flags.wait.value > 0)) return "--wait must be a positive number of seconds"
  if (Option.isSome(flags.statefulRuns) && !(flags.statefulRuns.value >= 1 && flags.statefulRuns.value <= 1000)) {
    return "--stateful-runs must be between 1 and 1000"
  }
  return undefined
}

/** The options of the run flags that were given (the others keep their defaults, or the report's in replay). */
const runOptions = (flags: RunFlags) => ({
  ...(flags.strict ? { strict: true } : {}),
  ...(Option.isSome(flags.coverage) ? { coverage: flags.coverage.value } : {}),
  ...(Option.isSome(flags.statusLists) ? { statusLists: flags.statusLists.value } : {}),
  ...(Option.isSome(flags.wallets) ? { wallets: flags.wallets.value } : {}),
  ...(Option.isSome(flags.wait) ? { waitSeconds: flags.wait.value } : {}),
  ...(Option.isSome(flags.statefulRuns) ? { statefulRuns: flags.statefulRuns.value } : {})
})

/** The fast-check replays recorded in a report's stateful results (details `replay.seed`, `replay.path`, `replay.replayPath`). */
const statefulReplays = (
  results: ReadonlyArray<{ readonly name: string; readonly details?: Readonly<Record<string, string>> | undefined }>
): Record<string, RunOptions.StatefulReplay> => {
  const out: Record<string, RunOptions.StatefulReplay> = {}
  for (const r of results) {
    const d = r.details
    if (d === undefined || d["replay.seed"] === undefined || d["replay.path"] === undefined) continue
    const seed = Number(d["replay.seed"])
    if (!Number.isSafeInteger(seed)) continue
    out[r.name] = { seed, path: d["replay.path"], replayPath: d["replay.replayPath"] ?? "" }
  }
  return out
}

/**
 * The text of `svc conformance list`.
 *
 * @category running
 * @since 0.1.0
 */
export const listText = (checks: ReadonlyArray<Check> = Registry.all): string =>
  GROUPS.map((g) => {
    const inGroup = checks.filter((c) => c.group === g)
    return `${g}: ${GROUP_TITLES[g]}\n${
      inGroup.map((c) =>
        `  ${c.name}${c.createsPermit ? " [creates a permit]" : ""}${
          c.needs.map((n) => ` [needs --${n}]`).join("")
        }\n      ${c.title}`
      ).join("\n")
    }`
  }).join("\n\n") + "\n"

/**
 * The command tree.
 *
 * @category running
 * @since 0.1.0
 */
export const makeCommand = <F, B>(errors: ErrorMapping<F, B>, output: () => Output = stdout) => {
  const bad = (message: string) => Effect.fail(errors.badInput(message))
  const verdict = (report: Report) =>
    report.summary.failed === 0 ? Effect.void : Effect.fail(errors.failed(`${report.summary.failed} check(s) failed`))

  const replay = Command.make("replay", {
    file: Argument.String("report").pipe(Argument.withDescription("a JSON report written with --report json=PATH")),
    url: Flag.String("url").pipe(
      Flag.withDescription("base URL to replay against (default: the report's)"),
      Flag.optional
    ),
    ...sharedFlags,
    ...runFlags
  }, (input) =>
    Effect.gen(function*() {
      const problem = validateShared(input) ?? validateRun(input) ??
        Option.match(input.url, { onNone: () => undefined, onSome: validateUrl })
      if (problem !== undefined) return yield* bad(problem)
      const fs = yield* FileSystem.FileSystem
      const text = yield* fs.readFileString(input.file).pipe(Effect.catch(() => bad(`cannot read ${input.file}`)))
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        return yield* bad(`${input.file} is not JSON`)
      }
      const decoded = Schema.decodeUnknownResult(ReportInput)(json)
      if (Result.isFailure(decoded)) {
        return yield* bad(
          `${input.file} is not a conformance report (SVC_CONFORMANCE_REPORT_V1 or SVC_CONFORMANCE_REPORT_V2)`
        )
      }
      const previous = decoded.success
      const failed = previous.results.filter((r) => r.status === "failed").map((r) => r.name)
      const out = output()
      if (failed.length === 0) {
        out.write(`no failed checks in ${input.file}: nothing to replay\n`)
        return
      }
      const unknown = failed.filter((n) => Registry.find(n) === undefined)
      if (unknown.length > 0) {
        return yield* bad(`the report names checks this version does not have: ${unknown.join(", ")}`)
      }
      const parsed = Option.isSome(input.report) ? Reporters.parseTargets(input.report.value) : { targets: {} }
      if ("error" in parsed) return yield* bad(parsed.error)
      const options = RunOptions.make({
        baseUrl: Option.getOrElse(input.url, () => previous.baseUrl),
        only: failed,
        seed: previous.options.seed,
        maxExamples: previous.options.maxExamples,
        timeoutSeconds: Option.getOrElse(input.timeout, () => previous.options.timeoutSeconds),
        readOnly: previous.options.readOnly,
        reports: parsed.targets,
        ...(Option.isSome(input.rate)
          ? { rate: input.rate.value }
          : previous.options.rate === undefined
          ? {}
          : { rate: previous.options.rate }),
        ...(previous.options.signer === undefined ? {} : { signer: previous.options.signer }),
        ...(Option.isSome(input.walletKey) ? { walletKey: input.walletKey.value as `0x${string}` } : {}),
        ...chainOptions(input),
        // the report's run settings, then the flags given now
        ...(previous.options.strict === true ? { strict: true } : {}),
        ...(previous.options.coverage === undefined ? {} : { coverage: previous.options.coverage }),
        ...(previous.options.statusLists === undefined ? {} : { statusLists: previous.options.statusLists }),
        ...(previous.options.statefulRuns === undefined ? {} : { statefulRuns: previous.options.statefulRuns }),
        ...(previous.options.waitSeconds === undefined ? {} : { waitSeconds: previous.options.waitSeconds }),
        ...runOptions(input),
        statefulReplay: statefulReplays(previous.results.filter((r) => failed.includes(r.name)))
      })
      out.write(`replaying ${failed.length} failed check(s) of ${input.file} (seed ${options.seed})\n\n`)
      const report = yield* execute(options, { output: out }).pipe(
        Effect.catchTags({ SelfCheckRefused: (e) => bad(e.message), Unreachable: (e) => bad(e.message) })
      )
      const still = report.results.filter((r) => r.status === "failed").map((r) => r.name)
      const fixed = failed.filter((n) => !still.includes(n))
      out.write(
        `\nfixed: ${fixed.length === 0 ? "none" : fixed.join(", ")}\nstill failing: ${
          still.length === 0 ? "none" : still.join(", ")
        }\n`
      )
      yield* verdict(report)
    })).pipe(
      Command.withDescription("re-run the failed checks of a JSON report (same seed); exit 0 when none fails any more")
    )

  const listCommand = Command.make("list", {}, () => Effect.sync(() => output().write(listText()))).pipe(
    Command.withDescription("list the checks by group")
  )

  const proxyCommand = Command.make("proxy", {
    upstream: Flag.String("upstream").pipe(
      Flag.withDescription("base URL of the deployment to forward to, e.g. http://127.0.0.1:8787"),
      Flag.optional
    ),
    listen: Flag.String("listen").pipe(
      Flag.withDescription(`HOST:PORT to listen on (default ${ProxyRun.DEFAULT_LISTEN}; port 0 picks a free one)`),
      Flag.optional
    ),
    report: Flag.String("report").pipe(
      Flag.withDescription("report files written when the proxy ends: junit=PATH,json=PATH,ndjson=PATH,html=PATH"),
      Flag.optional
    ),
    signer: Flag.String("signer").pipe(
      Flag.withDescription("the pinned feed signer / permit authority (default: the upstream manifest's feedSigner)"),
      Flag.optional
    ),
    forwardHeader: Flag.String("forward-header").pipe(
      Flag.withDescription(
        "add the client's address in this header (off by default): x-forwarded-for or forwarded (appended), or a single-address header such as x-real-ip"
      ),
      Flag.optional
    ),
    requests: Flag.Int("requests").pipe(
      Flag.withDescription("end after this many exchanges (default: run until Ctrl-C or --duration)"),
      Flag.optional
    ),
    duration: Flag.Finite("duration").pipe(
      Flag.withDescription("end after this many seconds (default: run until Ctrl-C or --requests)"),
      Flag.optional
    ),
    strict: Flag.Boolean("strict").pipe(
      Flag.withDescription("warnings fail the run"),
      Flag.withDefault(false)
    )
  }, (input) =>
    Effect.gen(function*() {
      if (Option.isNone(input.upstream)) {
        return yield* bad("--upstream is required (the deployment's base URL), e.g. --upstream http://127.0.0.1:8787")
      }
      const listen = ProxyRun.parseListen(Option.getOrElse(input.listen, () => ProxyRun.DEFAULT_LISTEN))
      const problem = validateUrl(input.upstream.value)?.replace("--url", "--upstream") ??
        ("error" in listen ? listen.error : undefined) ??
        (Option.isSome(input.signer) && !ADDRESS.test(input.signer.value)
          ? "--signer must be an address (0x followed by 40 hex digits)"
          : undefined) ??
        (Option.isSome(input.forwardHeader) && !/^[A-Za-z0-9-]{1,64}$/.test(input.forwardHeader.value)
          ? "--forward-header must be a header name"
          : undefined) ??
        (Option.isSome(input.requests) && input.requests.value < 1 ? "--requests must be at least 1" : undefined) ??
        (Option.isSome(input.duration) && !(input.duration.value > 0)
          ? "--duration must be a positive number of seconds"
          : undefined)
      if (problem !== undefined || "error" in listen) return yield* bad(problem ?? "bad --listen")
      const parsed = Option.isSome(input.report) ? Reporters.parseTargets(input.report.value) : { targets: {} }
      if ("error" in parsed) return yield* bad(parsed.error)
      const report = yield* ProxyRun.run({
        upstream: input.upstream.value,
        host: listen.host,
        port: listen.port,
        reports: parsed.targets,
        strict: input.strict,
        output: output(),
        ...(Option.isSome(input.signer) ? { signer: input.signer.value } : {}),
        ...(Option.isSome(input.forwardHeader) ? { forwardHeader: input.forwardHeader.value } : {}),
        ...(Option.isSome(input.requests) ? { requests: input.requests.value } : {}),
        ...(Option.isSome(input.duration) ? { durationSeconds: input.duration.value } : {})
      }).pipe(Effect.catchTag("ListenFailed", (e) => bad(e.message)))
      yield* verdict(report)
    })).pipe(
      Command.withDescription(
        "forward live traffic to a deployment and check every exchange as it passes; exit 0 when no check failed"
      )
    )

  return Command.make("conformance", {
    url: Flag.String("url").pipe(
      Flag.withDescription("base URL of the deployment, e.g. https://solver.example"),
      Flag.optional
    ),
    only: Flag.String("only").pipe(
      Flag.withDescription(`groups or check names to run, comma-separated (groups: ${GROUPS.join(", ")})`),
      Flag.optional
    ),
    skip: Flag.String("skip").pipe(
      Flag.withDescription("groups or check names to leave out, comma-separated"),
      Flag.optional
    ),
    seed: Flag.Int("seed").pipe(
      Flag.withDescription("seed of the generated inputs (default: random, printed)"),
      Flag.optional
    ),
    maxExamples: Flag.Int("max-examples").pipe(
      Flag.withDescription(`generated inputs per operation (default ${RunOptions.DEFAULTS.maxExamples})`),
      Flag.optional
    ),
    signer: Flag.String("signer").pipe(
      Flag.withDescription("the pinned feed signer / permit authority (default: the manifest's feedSigner)"),
      Flag.optional
    ),
    readOnly: Flag.Boolean("read-only").pipe(
      Flag.withDescription("skip every check that can create a permit (production)"),
      Flag.withDefault(false)
    ),
    ...sharedFlags,
    ...runFlags
  }, (input) =>
    Effect.gen(function*() {
      if (Option.isNone(input.url)) {
        return yield* bad(
          "--url is required (the deployment's base URL), e.g. svc conformance --url http://127.0.0.1:8787"
        )
      }
      const only = list(input.only)
      const skip = list(input.skip)
      const unknown = Runner.unknownSelectors(Registry.all, [...only, ...skip])
      const problem = validateUrl(input.url.value) ??
        validateShared(input) ??
        validateRun(input) ??
        (unknown.length > 0 ? `unknown group or check: ${unknown.join(", ")} (see svc conformance list)` : undefined) ??
        (Option.isSome(input.signer) && !ADDRESS.test(input.signer.value)
          ? "--signer must be an address (0x followed by 40 hex digits)"
          : undefined) ??
        (Option.isSome(input.maxExamples) && input.maxExamples.value < 1
          ? "--max-examples must be at least 1"
          : undefined)
      if (problem !== undefined) return yield* bad(problem)
      const parsed = Option.isSome(input.report) ? Reporters.parseTargets(input.report.value) : { targets: {} }
      if ("error" in parsed) return yield* bad(parsed.error)
      const options = RunOptions.make({
        baseUrl: input.url.value,
        only,
        skip,
        readOnly: input.readOnly,
        reports: parsed.targets,
        ...(Option.isSome(input.seed) ? { seed: input.seed.value } : {}),
        ...(Option.isSome(input.maxExamples) ? { maxExamples: input.maxExamples.value } : {}),
        ...(Option.isSome(input.timeout) ? { timeoutSeconds: input.timeout.value } : {}),
        ...(Option.isSome(input.rate) ? { rate: input.rate.value } : {}),
        ...(Option.isSome(input.signer) ? { signer: input.signer.value } : {}),
        ...(Option.isSome(input.walletKey) ? { walletKey: input.walletKey.value as `0x${string}` } : {}),
        ...chainOptions(input),
        ...runOptions(input)
      })
      const report = yield* execute(options, { output: output() }).pipe(
        Effect.catchTags({ SelfCheckRefused: (e) => bad(e.message), Unreachable: (e) => bad(e.message) })
      )
      yield* verdict(report)
    })).pipe(
      Command.withDescription(
        "check a deployment against the V6 interface over HTTP; exit 0 only when no check failed"
      ),
      Command.withSubcommands([replay, listCommand, proxyCommand])
    )
}
