/**
 * The in-process deployment of the conformance tests: our real server
 * (Server.layer with the demo catalog and SQLite in a temp dir) behind the
 * variant proxy, on a clock the tests can move, with the triggers the timing
 * checks use (publish now, advance time). Runs go over HTTP exactly as against
 * a live URL.
 */
import { NodeServices } from "@effect/platform-node"
import { Publisher } from "@svc/core"
import { Server } from "@svc/server"
import type { ServerConfig } from "@svc/server/ServerConfig"
import { Clock, Context, Effect, Layer, Option, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { timeScale } from "../../../test/support/time.ts"
import type { Check } from "../../src/Check.ts"
import * as Cli from "../../src/Cli.ts"
import * as Registry from "../../src/Registry.ts"
import type { Report } from "../../src/Report.ts"
import * as RunOptions from "../../src/RunOptions.ts"
import * as Proxy from "./proxy.ts"

/** The authority key of the in-process server (a well-known test key, no funds anywhere). */
export const AUTHORITY_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const
/** The test wallet of the runs (a well-known test key, no funds anywhere). */
export const WALLET_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" as const

const demoCatalog = JSON.parse(readFileSync(Server.DEMO_CATALOG_PATH, "utf8")) as unknown

/** A clock shifted by a mutable offset (ms); sleeping is real time. */
export const shiftedClock = (offset: { ms: number }): Clock.Clock => {
  const base = Clock.Clock.defaultValue()
  const now = () => base.currentTimeMillisUnsafe() + offset.ms
  return {
    currentTimeMillisUnsafe: now,
    currentTimeMillis: Effect.sync(now),
    currentTimeNanosUnsafe: () => base.currentTimeNanosUnsafe() + BigInt(offset.ms) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => base.currentTimeNanosUnsafe() + BigInt(offset.ms) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: base.monotonicTimeNanos,
    sleep: (duration) => base.sleep(duration)
  }
}

/** The in-process deployment. */
export class Deployment extends Context.Service<Deployment, {
  readonly proxy: Proxy.Proxy
  /** The real server's address (behind the proxy). */
  readonly serverUrl: string
  readonly publish: Effect.Effect<void>
  readonly advanceTime: (seconds: number) => Effect.Effect<void>
  readonly clock: Clock.Clock
}>()("@svc/conformance/test/Deployment") {}

/** A test server's configuration behind `publicUrl`, in a new data directory named after `prefix`. */
export const config = (publicUrl: string, prefix = "svc-conformance-"): ServerConfig => ({
  port: 0,
  host: "127.0.0.1",
  publicUrl: Option.some(publicUrl),
  dataDir: mkdtempSync(join(tmpdir(), prefix)),
  signerKey: Option.some(Redacted.make(AUTHORITY_KEY)),
  catalogPath: Option.none(),
  databaseUrl: Option.none(),
  serverSecret: Option.none(),
  onchainPath: Option.none(),
  feedTtlSeconds: 300,
  permitTtlSeconds: 120,
  permitRateLimit: 100_000,
  permitRateWindowSeconds: 60,
  sseMaxSubscribers: 1000,
  sseHeartbeatMs: 15_000,
  logLevel: "none",
  aggregatorRateLimit: 100_000,
  aggregatorQuoteBuildRateLimit: 100_000,
  aggregatorRateWindowSeconds: 60
})

/** Starts the proxy, then the real server with the proxy as its public URL. */
export const layer = Layer.effect(
  Deployment,
  Effect.gen(function*() {
    const proxy = yield* Effect.acquireRelease(
      Effect.promise(() => Proxy.start()),
      (p) => Effect.promise(() => p.close())
    )
    const offset = { ms: 0 }
    const clock = shiftedClock(offset)
    const context = yield* Layer.build(
      Server.layer(config(proxy.url), demoCatalog).pipe(Layer.provide(Layer.succeed(Clock.Clock, clock)))
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    const serverUrl = HttpServer.formatAddress(address)
    const publisher = Context.get(context, Publisher.Publisher)
    const publish = publisher.publishNow.pipe(Effect.asVoid, Effect.orDie, Effect.provideService(Clock.Clock, clock))
    proxy.setUpstream(serverUrl)
    proxy.setAuthorityKey(AUTHORITY_KEY)
    proxy.setPublish(() => Effect.runPromise(publish))
    return Deployment.of({
      proxy,
      serverUrl,
      publish,
      advanceTime: (seconds) => Effect.sync(() => void (offset.ms += seconds * 1000)),
      clock
    })
  })
)

/** A silent console. */
export const silent: Cli.Output = { write: () => {}, tty: false, color: false }

/** Runs checks against the deployment (through the proxy), with its clock and triggers. */
export const run = (
  options: Partial<RunOptions.RunOptions> = {},
  checks: ReadonlyArray<Check> = Registry.all,
  output: Cli.Output = silent
) =>
  Effect.gen(function*() {
    const d = yield* Deployment
    const opts = RunOptions.make({
      baseUrl: d.proxy.url,
      seed: 42,
      maxExamples: 8,
      // per request, and how long "sent immediately" may take: 3 s, scaled on a loaded machine
      timeoutSeconds: Math.ceil(3 * timeScale()),
      quietMillis: 300,
      walletKey: WALLET_KEY,
      ...options
    })
    return (yield* Cli.execute(opts, { checks, output }).pipe(
      Effect.provideService(Clock.Clock, d.clock),
      Effect.provideService(RunOptions.Triggers, {
        publish: Option.some(d.publish),
        advanceTime: Option.some(d.advanceTime)
      }),
      Effect.provide(NodeServices.layer)
    )) as Report
  })

/** The names of the failed checks of a report. */
export const failed = (report: Report) => report.results.filter((r) => r.status === "failed").map((r) => r.name)

/** A one-line-per-problem description of the non-passing results (for assertion messages). */
export const explain = (report: Report) =>
  report.results
    .filter((r) => r.status === "failed" || r.status === "inconclusive")
    .map((r) =>
      `${r.status} ${r.name}: ${
        r.reason ?? r.failures.map((f) => `${f.title} | expected ${f.expected} | actual ${f.actual}`).join(" || ")
      }`
    )
    .join("\n")
