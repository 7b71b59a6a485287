/**
 * `svc conformance proxy`: starts the live-traffic proxy, prints each
 * departure as the judge finds it, and when the run ends (Ctrl-C, SIGTERM,
 * `--requests`, `--duration`) writes the same reports as a run: the console
 * summary and any of JUnit, JSON, NDJSON and HTML, with the checks of the
 * `proxy` group.
 *
 * @since 0.1.0
 */
import { Data, Effect } from "effect"
import { TrafficResults } from "./checks/proxy.ts"
import type { Finding } from "./checks/responses.ts"
import type { Output } from "./Cli.ts"
import * as Exchange from "./Exchange.ts"
import * as Proxy from "./Proxy.ts"
import * as Registry from "./Registry.ts"
import type { Report } from "./Report.ts"
import * as Reporters from "./Reporters.ts"
import * as Runner from "./Runner.ts"
import * as RunOptions from "./RunOptions.ts"
import type { TrafficCheck } from "./Traffic.ts"
import * as Transport from "./Transport.ts"

/**
 * Where the proxy listens by default.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_LISTEN = "127.0.0.1:8788"

/**
 * The proxy could not listen where it was asked to.
 *
 * @category errors
 * @since 0.1.0
 */
export class ListenFailed extends Data.TaggedError("ListenFailed")<{ readonly message: string }> {}

/**
 * Parses `--listen HOST:PORT` (`[::1]:8788` for IPv6).
 *
 * @category encoding
 * @since 0.1.0
 */
export const parseListen = (
  value: string
): { readonly host: string; readonly port: number } | { readonly error: string } => {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(value.trim())
  const port = m === null ? NaN : Number(m[3])
  if (m === null || !(port >= 0 && port <= 65535)) {
    return { error: `--listen ${value}: expected HOST:PORT, e.g. --listen 127.0.0.1:8788` }
  }
  return { host: m[1] ?? m[2]!, port }
}

/**
 * What a proxy run needs.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProxyRunOptions {
  readonly upstream: string
  readonly host: string
  readonly port: number
  readonly reports: RunOptions.ReportTargets
  readonly strict: boolean
  readonly output: Output
  readonly signer?: string | undefined
  readonly forwardHeader?: string | undefined
  /** End after this many exchanges. */
  readonly requests?: number | undefined
  /** End after this many seconds. */
  readonly durationSeconds?: number | undefined
  /** Called once the proxy listens, with its URL (tests start their clients then). */
  readonly onListening?: ((url: string) => void) | undefined
  /** Resolves when the run should end (tests); besides Ctrl-C, SIGTERM, --requests and --duration. */
  readonly until?: Promise<void> | undefined
  /** Judge in this thread instead of a worker. */
  readonly inline?: boolean | undefined
}

const live = (output: Output) => (check: TrafficCheck, finding: Finding) => {
  const e = finding.failure.exchange
  const what = e === undefined ? "" : `${Exchange.describe(e)}: `
  output.write(`${finding.warning === true ? "! warning" : "✗ failed "} ${check}: ${what}${finding.failure.title}\n`)
}

/**
 * Runs the proxy until it is told to end, then reports.
 *
 * @category running
 * @since 0.1.0
 */
export const run = (o: ProxyRunOptions) =>
  Effect.gen(function*() {
    let resolveEnd: () => void = () => {}
    const ended = new Promise<void>((resolve) => {
      resolveEnd = resolve
    })
    const proxy = yield* Effect.tryPromise({
      try: () =>
        Proxy.start({
          upstream: o.upstream,
          host: o.host,
          port: o.port,
          forwardHeader: o.forwardHeader,
          authority: o.signer,
          inline: o.inline,
          onFinding: live(o.output),
          onExchange: (count) => {
            if (o.requests !== undefined && count >= o.requests) resolveEnd()
          }
        }),
      catch: (e) =>
        new ListenFailed({ message: `cannot listen on ${o.host}:${o.port}: ${String((e as Error)?.message ?? e)}` })
    })
    o.output.write(
      `svc conformance proxy ${proxy.url} -> ${o.upstream}\n` +
        `  checks every exchange as it passes (authority ${proxy.authority ?? "learned from the traffic"}${
          o.forwardHeader === undefined ? "" : `; adds ${o.forwardHeader}`
        }); ${
          o.requests !== undefined
            ? `ends after ${o.requests} exchange(s)`
            : o.durationSeconds !== undefined
            ? `ends after ${o.durationSeconds} s`
            : "Ctrl-C ends it and writes the report"
        }\n\n`
    )
    const startedAt = Date.now()
    o.onListening?.(proxy.url)
    const onSignal = () => resolveEnd()
    process.once("SIGINT", onSignal)
    process.once("SIGTERM", onSignal)
    const timer = o.durationSeconds === undefined ? undefined : setTimeout(onSignal, o.durationSeconds * 1000)
    yield* Effect.promise(() => Promise.race([ended, ...(o.until === undefined ? [] : [o.until])]))
    if (timer !== undefined) clearTimeout(timer)
    process.removeListener("SIGINT", onSignal)
    process.removeListener("SIGTERM", onSignal)
    const exchanges = proxy.exchanges()
    const results = yield* Effect.promise(() => proxy.close())
    o.output.write(`\nsvc conformance proxy: ${exchanges} exchange(s) forwarded\n\n`)
    const options = RunOptions.make({
      baseUrl: o.upstream,
      strict: o.strict,
      reports: o.reports,
      ...(o.signer === undefined ? {} : { signer: o.signer })
    })
    const reporters = [Reporters.consoleReporter(o.output), ...(yield* Reporters.fileReporters(o.reports))]
    const report: Report = yield* Runner.runScoped(Registry.all, reporters, {
      proxy: { upstream: o.upstream, listen: proxy.url, exchanges },
      startedAt
    }).pipe(
      Effect.provide(Transport.layer({ baseUrl: o.upstream, timeoutMs: 10_000 })),
      Effect.provideService(RunOptions.Options, options),
      Effect.provideService(TrafficResults, { results })
    )
    return report
  }).pipe(Effect.uninterruptible)
