/**
 * `npm run bench -- server` (issue #4): the svc HTTP server, started in this
 * process (packages/server/src/Server.ts `layer(config, catalog)`, SQLite in a
 * temporary directory, a fixed authority key), against a plain `node:http`
 * server serving the same bytes with the same headers from memory (a child
 * process), loaded by the same Node load generator (another child process).
 *
 * 1. GET /api/v6/solver-feed for the demo feed and a 2,000-route feed, identity,
 *    br and gzip, and the 304 path (If-None-Match hit): requests/s and server CPU
 *    µs per request (process.cpuUsage of the server process / completed
 *    requests), svc ÷ baseline; in full runs also a minimal Effect 4 server with
 *    the same bytes (effectServer.ts) for the demo 200 and the 304 points. Rounds
 *    rotate the servers' order so the shared VM's noise hits all; ratios are
 *    medians of per-round ratios.
 * 2. Event stream: time from `Publisher.publishNow` to the last of N subscribers
 *    (raw TCP sockets in a child process) having the complete `feed` event,
 *    for N = 1,000 and 5,000 with the demo feed and 1,000 with the 2,000-route
 *    feed, against node:http writing the same frame to N subscribers; heap and
 *    RSS per idle subscriber; connect time.
 * 3. The idle svc process's CPU (the publisher's periodic tick).
 *
 * With pinning (default when taskset exists): the servers on CPU 0, the load
 * generator and the subscribers on CPU 1.
 */
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync, rmSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { fileURLToPath } from "node:url"
import { Publisher } from "../../packages/core/src/index.ts"
import * as App from "../../packages/server/src/App.ts"
import { feedFrame } from "../../packages/server/src/Broadcaster.ts"
import * as Server from "../../packages/server/src/Server.ts"
import { testConfig } from "../../packages/server/test/support/server.ts"
import { generateCatalog } from "./catalog.ts"
import {
  type Child,
  cpuMicros,
  fmt,
  forkChild,
  gc,
  KiB,
  median,
  memoryAfterGc,
  MiB,
  msSince,
  pin as pinProcess,
  progress,
  ratio,
  round,
  table
} from "./util.ts"

export interface ServerOptions {
  readonly quick: boolean
  readonly routes: number
  readonly pin: boolean
}

const FEED_PATH = "/api/v6/solver-feed"
const here = (name: string) => fileURLToPath(new URL(name, import.meta.url))
const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** One response of svc, captured to build the baseline's identical answer. */
interface Captured {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: Uint8Array
}

const SKIPPED_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding", "x-request-id"])

const capture = (port: number, path: string, headers: Record<string, string>) =>
  new Promise<Captured>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, headers, agent: false }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const kept: Record<string, string> = {}
        for (const [k, v] of Object.entries(res.headers)) {
          if (!SKIPPED_HEADERS.has(k) && typeof v === "string") kept[k] = v
        }
        resolve({ status: res.statusCode ?? 0, headers: kept, body: new Uint8Array(Buffer.concat(chunks)) })
      })
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end()
  })

const requestHead = (port: number, path: string, headers: Record<string, string>) =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${
    Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")
  }\r\n`

interface LoadResult {
  readonly completed: number
  readonly elapsedMs: number
  readonly bytes: number
  readonly errors: number
  readonly statuses: Record<string, number>
  readonly p50Ms: number
  readonly p99Ms: number
}

interface Target {
  readonly name: "svc" | "effect" | "node:http"
  readonly port: number
  readonly cpu: () => Promise<number>
}

interface Point {
  readonly label: string
  readonly headers: Record<string, string>
  readonly expectStatus: number
}

interface PointResult {
  readonly label: string
  readonly svcRps: number
  readonly baseRps: number
  readonly rpsRatio: number
  readonly svcCpuUs: number
  readonly baseCpuUs: number
  readonly cpuRatio: number
  /** The minimal Effect 4 server with the same bytes (demo points only). */
  readonly effectCpuUs: number | null
  /** svc ÷ minimal Effect server, CPU per request. */
  readonly svcOverEffectCpu: number | null
  readonly svcP99Ms: number
  readonly baseP99Ms: number
  readonly responseBytes: number
  /** Load generator CPU ÷ elapsed in svc rounds (near 1: the client limited throughput). */
  readonly clientBusy: number
  readonly rounds: number
}

interface FanoutResult {
  readonly label: string
  readonly subscribers: number
  readonly eventBytes: number
  readonly connectMs: number
  readonly rssPerSubscriberKiB: number
  readonly heapPerSubscriberKiB: number
  readonly publishMs: number
  readonly firstMs: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly lastMs: number
  readonly lastMsRange: readonly [number, number]
  readonly serverCpuMs: number
  readonly deliveredGBps: number
  readonly missing: number
  readonly publications: number
  /** The same frame written by plain node:http to N idle subscribers (one shared Buffer). */
  readonly baseline: {
    readonly connectMs: number
    readonly rssPerSubscriberKiB: number
    readonly heapPerSubscriberKiB: number
    readonly writeLoopMs: number
    readonly cpuMs: number
    readonly firstMs: number
    readonly p50Ms: number
    readonly lastMs: number
    readonly broadcasts: number
  }
  /** svc last (from the publishNow call) ÷ baseline last (from its write loop). */
  readonly lastRatio: number
  readonly connectRatio: number
}

/** The svc server in this process, on a fresh data directory. */
const startSvc = async (catalog: unknown, maxSubscribers: number) => {
  const config = testConfig({
    sseMaxSubscribers: maxSubscribers,
    // every subscriber and the load generator come from one address: the per-client caps are raised
    sseMaxSubscribersPerClient: maxSubscribers,
    maxConnections: maxSubscribers + 1000,
    maxConnectionsPerClient: maxSubscribers + 1000,
    feedTtlSeconds: 3600,
    sseHeartbeatMs: 15_000,
    logLevel: "none"
  })
  const scope = await run(Scope.make())
  const t = process.hrtime.bigint()
  const context = await run(Layer.buildWithScope(Server.layer(config, catalog), scope)) as Context.Context<
    App.AppControl | Publisher.Publisher
  >
  const startMs = msSince(t)
  const control = Context.get(context, App.AppControl)
  const publisher = Context.get(context, Publisher.Publisher)
  const port = Number(new URL(control.publicUrl).port)
  return {
    port,
    control,
    publisher,
    startMs,
    publishNow: () => run(publisher.publishNow),
    current: () => run(publisher.current),
    stop: async () => {
      await run(control.closeStreams("bench done")).catch(() => undefined)
      await run(Scope.close(scope, Exit.void)).catch(() => undefined)
      rmSync(config.dataDir, { recursive: true, force: true })
    }
  }
}

type Svc = Awaited<ReturnType<typeof startSvc>>

export const runServer = async (options: ServerOptions) => {
  const q = options.quick
  const settings = {
    rounds: q ? 2 : 3,
    roundMs: q ? 400 : 1000,
    warmupMs: q ? 200 : 400,
    connections: 10,
    /** The minimal Effect server as a third reference (full runs only). */
    effectReference: !q,
    fanout: q
      ? [{ feed: "demo", n: 500, pubs: 2, basePubs: 2 }, { feed: "large", n: 20, pubs: 1, basePubs: 1 }]
      : [{ feed: "demo", n: 1000, pubs: 4, basePubs: 4 }, { feed: "demo", n: 5000, pubs: 3, basePubs: 3 }, {
        feed: "large",
        n: 1000,
        pubs: 2,
        basePubs: 1
      }]
  }
  const maxN = Math.max(...settings.fanout.map((f) => f.n))
  const ulimit = Number(execFileSync("sh", ["-c", "ulimit -n"]).toString().trim())
  const fdNote = Number.isFinite(ulimit) && ulimit < maxN + 1000
    ? `ulimit -n is ${ulimit}: too low for ${maxN} subscribers in one process (raise it, e.g. ulimit -n ${maxN + 2000})`
    : `ulimit -n ${ulimit} (enough for ${maxN} subscribers per process)`
  progress(fdNote)
  const pinned = options.pin && pinProcess(process.pid, 0)

  const children: Array<Child> = []
  const results: Record<string, unknown> = { settings: { ...settings, pinned, ulimitN: ulimit } }
  const http: Array<PointResult> = []
  const fanouts: Array<FanoutResult> = []
  let svc: Svc | undefined
  try {
    const [baseline, loadgen, sseSvc, sseBase, effectRef] = await Promise.all([
      forkChild(here("./plainServer.ts")),
      forkChild(here("./loadgen.ts")),
      forkChild(here("./sseClients.ts")),
      forkChild(here("./sseClients.ts")),
      settings.effectReference ? forkChild(here("./effectServer.ts")) : Promise.resolve(undefined)
    ])
    children.push(baseline, loadgen, sseSvc, sseBase, ...(effectRef === undefined ? [] : [effectRef]))
    if (pinned) {
      pinProcess(baseline.process.pid!, 0)
      if (effectRef !== undefined) pinProcess(effectRef.process.pid!, 0)
      pinProcess(loadgen.process.pid!, 1)
      pinProcess(sseSvc.process.pid!, 1)
      pinProcess(sseBase.process.pid!, 1)
    }
    const portOf = async (c: Child) => (await c.request<{ port: number }>({ type: "listen" })).port
    const cpuOf = (c: Child) => async () => (await c.request<{ micros: number }>({ type: "cpu" })).micros
    const baseTarget: Target = { name: "node:http", port: await portOf(baseline), cpu: cpuOf(baseline) }
    const effectTarget: Target | undefined = effectRef === undefined
      ? undefined
      : { name: "effect", port: await portOf(effectRef), cpu: cpuOf(effectRef) }

    const load = (port: number, point: Point, durationMs: number) =>
      loadgen.request<LoadResult & { clientCpuMs: number }>({
        type: "run",
        port,
        head: requestHead(port, FEED_PATH, point.headers),
        connections: settings.connections,
        durationMs,
        expectStatus: point.expectStatus
      })

    /** One measured run: requests/s and server CPU µs per request. */
    const measure = async (target: Target, point: Point, durationMs: number) => {
      const c0 = await target.cpu()
      const r = await load(target.port, point, durationMs)
      const c1 = await target.cpu()
      if (r.errors > 0 || r.completed === 0) {
        throw new Error(`${target.name} ${point.label}: ${r.errors} errors, statuses ${JSON.stringify(r.statuses)}`)
      }
      return {
        rps: r.completed / (r.elapsedMs / 1000),
        cpuUs: (c1 - c0) / r.completed,
        p99Ms: r.p99Ms,
        bytesPerResponse: r.bytes / r.completed,
        clientBusy: r.clientCpuMs / r.elapsedMs
      }
    }
    type Measured = Awaited<ReturnType<typeof measure>>

    const httpPoints = async (feedName: string, targets: ReadonlyArray<Target>, points: ReadonlyArray<Point>) => {
      for (const point of points) {
        progress(
          `HTTP ${feedName} ${point.label}: ${settings.rounds} rounds × ${settings.roundMs} ms × ${
            targets.map((t) => t.name).join(", ")
          }`
        )
        for (const t of targets) await measure(t, point, settings.warmupMs)
        const per: Array<Map<Target["name"], Measured>> = []
        for (let r = 0; r < settings.rounds; r++) {
          // rotate the order every round
          const order = targets.map((_, i) => targets[(i + r) % targets.length]!)
          const byTarget = new Map<Target["name"], Measured>()
          for (const t of order) byTarget.set(t.name, await measure(t, point, settings.roundMs))
          per.push(byTarget)
        }
        const of = (name: Target["name"]) => per.map((m) => m.get(name)!)
        const svcRuns = of("svc")
        const baseRuns = of("node:http")
        const withEffect = targets.some((t) => t.name === "effect")
        const effectRuns = withEffect ? of("effect") : []
        http.push({
          label: `${feedName} ${point.label}`,
          svcRps: round(median(svcRuns.map((m) => m.rps))),
          baseRps: round(median(baseRuns.map((m) => m.rps))),
          rpsRatio: round(median(svcRuns.map((m, i) => m.rps / baseRuns[i]!.rps))),
          svcCpuUs: round(median(svcRuns.map((m) => m.cpuUs))),
          baseCpuUs: round(median(baseRuns.map((m) => m.cpuUs))),
          cpuRatio: round(median(svcRuns.map((m, i) => m.cpuUs / baseRuns[i]!.cpuUs))),
          effectCpuUs: withEffect ? round(median(effectRuns.map((m) => m.cpuUs))) : null,
          svcOverEffectCpu: withEffect ? round(median(svcRuns.map((m, i) => m.cpuUs / effectRuns[i]!.cpuUs))) : null,
          svcP99Ms: round(median(svcRuns.map((m) => m.p99Ms))),
          baseP99Ms: round(median(baseRuns.map((m) => m.p99Ms))),
          responseBytes: Math.round(median(svcRuns.map((m) => m.bytesPerResponse))),
          clientBusy: round(median(svcRuns.map((m) => m.clientBusy))),
          rounds: settings.rounds
        })
      }
    }

    /** Captures svc's answers and gives the references the same bytes and headers. */
    const mirror = async (s: Svc) => {
      const identity = await capture(s.port, FEED_PATH, {})
      const br = await capture(s.port, FEED_PATH, { "accept-encoding": "br" })
      const gzip = await capture(s.port, FEED_PATH, { "accept-encoding": "gzip" })
      const etag = identity.headers["etag"]!
      const notModified = await capture(s.port, FEED_PATH, { "if-none-match": etag })
      if (
        identity.status !== 200 || br.headers["content-encoding"] !== "br" ||
        gzip.headers["content-encoding"] !== "gzip" || notModified.status !== 304
      ) {
        throw new Error(
          `unexpected svc answers: ${identity.status} ${br.headers["content-encoding"]} ${
            gzip.headers["content-encoding"]
          } ${notModified.status}`
        )
      }
      const resources = [{ path: FEED_PATH, etag, identity, br, gzip, notModified }]
      await baseline.request({ type: "resources", resources })
      await effectRef?.request({ type: "resources", resources })
      return { etag, identity: identity.body.length, br: br.body.length, gzip: gzip.body.length }
    }

    interface Wait {
      readonly received: number
      readonly missing: number
      readonly first: bigint | null
      readonly p50: bigint | null
      readonly p99: bigint | null
      readonly last: bigint | null
    }
    interface Connected {
      readonly connected: number
      readonly failed: number
      readonly firstFailure: string | null
      readonly connectMs: number
    }
    const connectAll = async (clients: Child, port: number, n: number, lastEventId: string, who: string) => {
      const c = await clients.request<Connected>({ type: "connect", port, n, lastEventId })
      if (c.failed > 0) throw new Error(`${who}: ${c.failed} of ${n} subscribers failed: ${c.firstFailure}`)
      return c
    }
    const relative = (t: bigint | null, t0: bigint) => (t === null ? Number.NaN : Number(t - t0) / 1e6)

    /** Publication fan-out to N subscribers: svc (from publishNow) and the bare node:http broadcast of the same frame. */
    const fanout = async (s: Svc, feedName: string, n: number, publications: number, broadcasts: number) => {
      progress(`SSE ${feedName}: connecting ${n} subscribers to svc and ${n} to node:http`)
      const current = await s.current()
      const svcMem0 = memoryAfterGc()
      const svcConnect = await connectAll(sseSvc, s.port, n, current.dataVersion.toString(), "svc")
      await sleep(300)
      const svcMem1 = memoryAfterGc()
      const baseMem0 = await baseline.request<{ rss: number; heapUsed: number }>({ type: "memory" })
      const baseConnect = await connectAll(sseBase, baseTarget.port, n, "0", "node:http")
      await sleep(300)
      const baseMem1 = await baseline.request<{ rss: number; heapUsed: number }>({ type: "memory" })
      const per: Array<
        {
          publishMs: number
          first: number
          p50: number
          p99: number
          last: number
          cpuMs: number
          missing: number
          bytes: number
        }
      > = []
      const base: Array<{ loopMs: number; first: number; p50: number; last: number; missing: number; cpuMs: number }> =
        []
      let previous = current
      for (let i = 0; i < Math.max(publications, broadcasts); i++) {
        if (i < publications) {
          const frameBytes = previous.fullView.body.length - 19 +
            `id: ${previous.dataVersion}\nevent: feed\ndata: `.length + 2
          await sseSvc.request({ type: "arm", minBytes: Math.max(1, frameBytes - 256) })
          const c0 = cpuMicros()
          const t0 = process.hrtime.bigint()
          previous = await s.publishNow()
          const publishMs = msSince(t0)
          const w = await sseSvc.request<Wait>({ type: "wait", timeoutMs: 120_000 })
          const cpuMs = (cpuMicros() - c0) / 1000
          per.push({
            publishMs,
            first: relative(w.first, t0),
            p50: relative(w.p50, t0),
            p99: relative(w.p99, t0),
            last: relative(w.last, t0),
            cpuMs,
            missing: w.missing,
            bytes: feedFrame(previous).length
          })
          progress(
            `  svc publication ${i + 1}/${publications}: last of ${n} after ${
              fmt(relative(w.last, t0))
            } ms (${w.missing} missing)`
          )
          await sleep(q ? 150 : 400)
        }
        if (i < broadcasts) {
          const frame = feedFrame(previous)
          await sseBase.request({ type: "arm", minBytes: Math.max(1, frame.length - 256) })
          const c0 = await baseTarget.cpu()
          const b = await baseline.request<{ t0: bigint; loopMs: number }>({ type: "broadcast", frame })
          const w = await sseBase.request<Wait>({ type: "wait", timeoutMs: 120_000 })
          const cpuMs = ((await baseTarget.cpu()) - c0) / 1000
          base.push({
            loopMs: b.loopMs,
            first: relative(w.first, b.t0),
            p50: relative(w.p50, b.t0),
            last: relative(w.last, b.t0),
            missing: w.missing,
            cpuMs
          })
          progress(
            `  node:http broadcast ${i + 1}/${broadcasts}: last of ${n} after ${
              fmt(relative(w.last, b.t0))
            } ms (${w.missing} missing)`
          )
          await sleep(q ? 150 : 400)
        }
      }
      await sseSvc.request({ type: "close" })
      await sseBase.request({ type: "close" })
      for (let i = 0; i < 100 && s.control.subscribers() > 0; i++) await sleep(50)
      const lasts = per.map((p) => p.last)
      const lastMs = median(lasts)
      const baseLast = median(base.map((b) => b.last))
      const eventBytes = median(per.map((p) => p.bytes))
      const missing = Math.max(...per.map((p) => p.missing), ...base.map((b) => b.missing))
      if (missing > 0) throw new Error(`${feedName} × ${n}: ${missing} subscribers never got the event`)
      fanouts.push({
        label: `${feedName} feed`,
        subscribers: n,
        eventBytes,
        connectMs: round(svcConnect.connectMs),
        rssPerSubscriberKiB: round((svcMem1.rss - svcMem0.rss) / n / KiB),
        heapPerSubscriberKiB: round((svcMem1.heapUsed - svcMem0.heapUsed) / n / KiB),
        publishMs: round(median(per.map((p) => p.publishMs))),
        firstMs: round(median(per.map((p) => p.first))),
        p50Ms: round(median(per.map((p) => p.p50))),
        p99Ms: round(median(per.map((p) => p.p99))),
        lastMs: round(lastMs),
        lastMsRange: [round(Math.min(...lasts)), round(Math.max(...lasts))],
        serverCpuMs: round(median(per.map((p) => p.cpuMs))),
        deliveredGBps: round((eventBytes * n) / (lastMs / 1000) / 1e9),
        missing,
        publications,
        baseline: {
          connectMs: round(baseConnect.connectMs),
          rssPerSubscriberKiB: round((baseMem1.rss - baseMem0.rss) / n / KiB),
          heapPerSubscriberKiB: round((baseMem1.heapUsed - baseMem0.heapUsed) / n / KiB),
          writeLoopMs: round(median(base.map((b) => b.loopMs))),
          cpuMs: round(median(base.map((b) => b.cpuMs))),
          firstMs: round(median(base.map((b) => b.first))),
          p50Ms: round(median(base.map((b) => b.p50))),
          lastMs: round(baseLast),
          broadcasts
        },
        lastRatio: round(lastMs / baseLast),
        connectRatio: round(svcConnect.connectMs / baseConnect.connectMs)
      })
    }

    const svcTarget = (s: Svc): Target => ({ name: "svc", port: s.port, cpu: async () => cpuMicros() })

    const phase = async (feedName: "demo" | "large", catalog: unknown) => {
      progress(`starting svc with the ${feedName} catalog`)
      svc = await startSvc(catalog, maxN + 500)
      const sizes = await mirror(svc)
      const pub = await svc.current()
      // CPU of the idle server (no requests, no subscribers): the publisher's periodic tick
      const idleMs = q ? 600 : 2000
      const idle0 = cpuMicros()
      const idleT0 = process.hrtime.bigint()
      await sleep(idleMs)
      const idleCoreShare = (cpuMicros() - idle0) / 1000 / msSince(idleT0)
      results[`${feedName}Feed`] = {
        routes: pub.routes.length,
        identityBytes: sizes.identity,
        brBytes: sizes.br,
        gzipBytes: sizes.gzip,
        svcStartMs: round(svc.startMs),
        idleCoreShare: round(idleCoreShare)
      }
      // the framework reference only where per-request overhead matters (small bodies)
      const withEffect = effectTarget === undefined
        ? [svcTarget(svc), baseTarget]
        : [svcTarget(svc), effectTarget, baseTarget]
      const pair = [svcTarget(svc), baseTarget]
      await httpPoints(feedName, feedName === "demo" ? withEffect : pair, [{
        label: "200 identity",
        headers: {},
        expectStatus: 200
      }])
      await httpPoints(feedName, pair, [
        { label: "200 br", headers: { "accept-encoding": "br" }, expectStatus: 200 },
        { label: "200 gzip", headers: { "accept-encoding": "gzip" }, expectStatus: 200 }
      ])
      await httpPoints(feedName, withEffect, [
        { label: "304 (If-None-Match hit)", headers: { "if-none-match": sizes.etag }, expectStatus: 304 }
      ])
      for (const f of settings.fanout.filter((x) => x.feed === feedName)) {
        await fanout(svc, feedName, f.n, f.pubs, f.basePubs)
      }
      await svc.stop()
      svc = undefined
      gc()
    }

    const demo = JSON.parse(readFileSync(Server.DEMO_CATALOG_PATH, "utf8")) as unknown
    await phase("demo", demo)
    await phase("large", generateCatalog(options.routes))
  } finally {
    if (svc !== undefined) await svc.stop()
    await Promise.all(children.map((c) => c.stop()))
  }

  results.http = http
  results.sse = fanouts

  const out: Array<string> = []
  type FeedInfo = { routes: number; identityBytes: number; brBytes: number; gzipBytes: number; idleCoreShare: number }
  const demoInfo = results.demoFeed as FeedInfo
  const largeInfo = results.largeFeed as FeedInfo
  out.push(table(
    `svc bench server — GET ${FEED_PATH}: svc vs plain node:http serving the same bytes and headers from memory (c=${settings.connections}, keep-alive, ${settings.rounds} interleaved rounds × ${settings.roundMs} ms, medians; ratios are medians of per-round ratios)`,
    [
      "point",
      "bytes/resp",
      "svc req/s",
      "node req/s",
      "req/s ratio",
      "svc CPU µs/req",
      "node CPU µs/req",
      "CPU ratio",
      "Effect-min CPU µs/req",
      "svc ÷ Effect-min",
      "p99 svc / node ms",
      "client busy"
    ],
    http.map((p) => [
      p.label,
      fmt(p.responseBytes),
      fmt(p.svcRps),
      fmt(p.baseRps),
      ratio(p.rpsRatio),
      fmt(p.svcCpuUs),
      fmt(p.baseCpuUs),
      ratio(p.cpuRatio),
      p.effectCpuUs === null ? "" : fmt(p.effectCpuUs),
      p.svcOverEffectCpu === null ? "" : ratio(p.svcOverEffectCpu),
      `${fmt(p.svcP99Ms)} / ${fmt(p.baseP99Ms)}`,
      `${fmt(p.clientBusy * 100, 0)} %`
    ])
  ))
  out.push(
    `feeds: demo ${demoInfo.routes} routes = ${fmt(demoInfo.identityBytes / KiB)} KiB (br ${
      fmt(demoInfo.brBytes / KiB)
    } KiB, gzip ${fmt(demoInfo.gzipBytes / KiB)} KiB); large ${largeInfo.routes} routes = ${
      fmt(largeInfo.identityBytes / MiB)
    } MiB (br ${fmt(largeInfo.brBytes / MiB)} MiB, gzip ${fmt(largeInfo.gzipBytes / MiB)} MiB)`
  )
  out.push(
    `idle svc process CPU (no requests; the publisher tick): demo ${
      fmt(demoInfo.idleCoreShare * 100)
    } % of a core, large ${fmt(largeInfo.idleCoreShare * 100)} % of a core`
  )
  out.push(table(
    "event stream: publishNow → last subscriber has the complete feed event, vs plain node:http writing the same frame (one shared Buffer) to as many subscribers (medians)",
    [
      "feed",
      "subscribers",
      "event",
      "svc publishNow",
      "svc first",
      "svc p50",
      "svc last (range)",
      "node last",
      "last ratio",
      "CPU svc / node",
      "svc GB/s",
      "1.5 GB/s budget",
      "connect svc / node",
      "RSS/sub svc / node",
      "heap/sub svc / node"
    ],
    fanouts.map((f) => {
      const budgetMs = ((f.eventBytes * f.subscribers) / 1.5e9) * 1000
      return [
        f.label,
        fmt(f.subscribers),
        f.eventBytes >= MiB ? `${fmt(f.eventBytes / MiB)} MiB` : `${fmt(f.eventBytes / KiB)} KiB`,
        `${fmt(f.publishMs)} ms`,
        `${fmt(f.firstMs)} ms`,
        `${fmt(f.p50Ms)} ms`,
        `${fmt(f.lastMs)} ms (${fmt(f.lastMsRange[0])}–${fmt(f.lastMsRange[1])})`,
        `${fmt(f.baseline.lastMs)} ms`,
        ratio(f.lastRatio),
        `${fmt(f.serverCpuMs)} / ${fmt(f.baseline.cpuMs)} ms`,
        fmt(f.deliveredGBps),
        `${fmt(round(budgetMs))} ms`,
        `${fmt(f.connectMs)} / ${fmt(f.baseline.connectMs)} ms`,
        `${fmt(f.rssPerSubscriberKiB)} / ${fmt(f.baseline.rssPerSubscriberKiB)} KiB`,
        `${fmt(f.heapPerSubscriberKiB)} / ${fmt(f.baseline.heapPerSubscriberKiB)} KiB`
      ]
    })
  ))
  out.push(
    `${fdNote}; ${
      pinned ? "svc, Effect-min and node:http pinned to CPU 0; load generator and subscribers to CPU 1" : "not pinned"
    }`
  )
  return { text: out.join("\n"), results }
}
