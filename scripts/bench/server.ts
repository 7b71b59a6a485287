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
 *    (raw TCP sockets in child processes, sseClients.ts) having the complete
 *    `feed` event, for N = 1,000 and 5,000 with the demo feed and 1,000 and
 *    10,000 with the 2,000-route feed (the 10,000 point: subscribers split over 4
 *    child processes, each from its own loopback address), against node:http
 *    writing the same frame to N subscribers; heap and RSS per idle subscriber;
 *    connect time. Subscribers send `Accept-Encoding: gzip, deflate, br, zstd` (as a
 *    browser does; `--accept-encoding` changes it) and the table says which
 *    coding the server chose; the baseline then uses the same coding.
 * 3. The idle svc process's CPU (the publisher's periodic tick).
 * 4. Targets: each figure of the performance issue's table beside its target,
 *    then `verdict: N of M targets met`.
 *
 * `--only http,sse,sse10k` runs some parts: `http` the GET/304 points, `sse` the
 * fan-out points below 10,000 subscribers, `sse10k` the 10,000-subscriber point.
 *
 * With pinning (default when taskset exists): the servers on CPU 0, the load
 * generator and the subscribers on CPU 1.
 */
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { createHash } from "node:crypto"
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
  openFileLimit,
  pin as pinProcess,
  progress,
  ratio,
  round,
  table,
  type TargetRow,
  targetsReport
} from "./util.ts"

/** Parts of the server bench (`--only`). */
export const SERVER_PARTS = ["http", "sse", "sse10k"] as const
export type ServerPart = (typeof SERVER_PARTS)[number]

export interface ServerOptions {
  readonly quick: boolean
  readonly routes: number
  readonly pin: boolean
  /** The parts to run (default: all). */
  readonly only?: ReadonlySet<ServerPart> | undefined
  /** Accept-Encoding of the event-stream subscribers (default: a browser's `gzip, deflate, br, zstd`). */
  readonly acceptEncoding?: string | undefined
}

/** The performance issue's targets for this bench. */
export const SERVER_TARGETS = {
  /** GET feed 200 and 304: svc req/s ÷ node:http req/s, at least. */
  rpsRatio: 0.75,
  /** GET feed 200 and 304: svc CPU per request ÷ node:http's, at most. */
  cpuRatio: 1.5,
  /** JS heap per idle event-stream subscriber, KiB, at most. */
  heapPerSubscriberKiB: 10,
  /** 2,000-route publication to this many subscribers: */
  fanoutSubscribers: 10_000,
  /** ...the last one has the complete event within, ms (below). */
  fanoutLastMs: 10_000
} as const

const BROWSER_ACCEPT_ENCODING = "gzip, deflate, br, zstd"
/** Codings the baseline can write the way svc does (one compressed frame for all). */
const BASELINE_CODINGS = new Set(["identity", "gzip", "zstd"])
/** Above this many decoded bytes per publication (subscribers × event), compressed streams are timed by one decoding reference per process. */
const DECODE_ALL_BYTES = 256 * MiB

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
  /** The 10,000-subscriber point (or its --quick stand-in). */
  readonly sse10k: boolean
  readonly subscribers: number
  /** Subscriber child processes (one loopback source address each). */
  readonly processes: number
  /** Content-Encoding svc chose for the stream (from the responses), and the baseline's. */
  readonly coding: string
  readonly baselineCoding: string
  /** How completion was detected: identity, decode-all, or reference (see sseClients.ts). */
  readonly mode: string
  readonly eventBytes: number
  /** Body bytes of the event on the wire (compressed size for a compressed stream). */
  readonly wireBytes: number | null
  /** Whether each process's reference subscriber got exactly svc's frame bytes. */
  readonly verified: boolean
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
  /** Bytes on the wire (compressed when the stream is) × subscribers ÷ svc last. */
  readonly deliveredGBps: number
  /** Subscribers without the complete event (svc, worst publication; and the baseline). */
  readonly missing: number
  readonly baselineMissing: number
  /** Subscribers the server closed during the point. */
  readonly closedBySvc: number
  /** Reference mode: subscribers whose completing read ended past the event's compressed size, and times that are upper bounds. */
  readonly countMismatch: number
  readonly fromLog: number
  readonly publications: number
  readonly waitTimeoutMs: number
  /** The same frame written by plain node:http to N idle subscribers (one shared Buffer). */
  readonly baseline: {
    readonly connectMs: number
    readonly rssPerSubscriberKiB: number
    readonly heapPerSubscriberKiB: number
    readonly encodeMs: number
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

interface FanoutSetting {
  readonly feed: "demo" | "large"
  readonly n: number
  readonly pubs: number
  readonly basePubs: number
  /** Subscriber child processes. */
  readonly procs: number
  readonly sse10k: boolean
}

/** The svc server in this process, on a fresh data directory. */
const startSvc = async (catalog: unknown, caps: Caps) => {
  const config = testConfig({
    sseMaxSubscribers: caps.sseMaxSubscribers,
    // each subscriber process connects from its own loopback address: one client per process
    sseMaxSubscribersPerClient: caps.sseMaxSubscribersPerClient,
    maxConnections: caps.maxConnections,
    maxConnectionsPerClient: caps.maxConnectionsPerClient,
    // no stream ends on its own during a run
    sseMaxLifetimeSeconds: 0,
    // the load generators read the feed thousands of times a second from a few addresses
    feedRateLimit: null,
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

/** The server's caps, set explicitly for the bench. */
interface Caps {
  readonly sseMaxSubscribers: number
  readonly sseMaxSubscribersPerClient: number
  readonly maxConnections: number
  readonly maxConnectionsPerClient: number
}

/** Subscriber child processes: one loopback source address each (127.0.0.<first + i>). */
interface Group {
  readonly name: string
  readonly children: ReadonlyArray<Child>
  readonly addresses: ReadonlyArray<string>
}

interface Wait {
  readonly times: ReadonlyArray<bigint>
  readonly received: number
  readonly missing: number
  readonly closedUnexpectedly: number
  readonly coding: string | null
  readonly mode: string
  readonly eventSha256: string | null
  readonly eventLength: number | null
  readonly eventWireBytes: number | null
  readonly fromLog: number
  readonly countMismatch: number
}

interface Connected {
  readonly connected: number
  readonly failed: number
  readonly firstFailure: string | null
  readonly connectMs: number
  readonly encodings: Record<string, number>
}

/** n split over k processes (the first ones take the remainder). */
const split = (n: number, k: number) => Array.from({ length: k }, (_, i) => Math.floor(n / k) + (i < n % k ? 1 : 0))

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

export const runServer = async (options: ServerOptions) => {
  const q = options.quick
  const only = options.only ?? new Set<ServerPart>(SERVER_PARTS)
  const acceptEncoding = options.acceptEncoding ?? BROWSER_ACCEPT_ENCODING
  const fanoutAll: ReadonlyArray<FanoutSetting> = q
    ? [
      { feed: "demo", n: 500, pubs: 2, basePubs: 2, procs: 1, sse10k: false },
      // the 10,000-subscriber point's stand-in: the same path (several processes), not comparable
      { feed: "large", n: 40, pubs: 1, basePubs: 1, procs: 2, sse10k: true }
    ]
    : [
      { feed: "demo", n: 1000, pubs: 4, basePubs: 4, procs: 1, sse10k: false },
      { feed: "demo", n: 5000, pubs: 3, basePubs: 3, procs: 1, sse10k: false },
      { feed: "large", n: 1000, pubs: 2, basePubs: 1, procs: 1, sse10k: false },
      { feed: "large", n: SERVER_TARGETS.fanoutSubscribers, pubs: 1, basePubs: 1, procs: 4, sse10k: true }
    ]
  const settings = {
    rounds: q ? 2 : 3,
    roundMs: q ? 400 : 1000,
    warmupMs: q ? 200 : 400,
    connections: 10,
    /** The minimal Effect server as a third reference (full runs only, with the HTTP points). */
    effectReference: !q && only.has("http"),
    http: only.has("http"),
    fanout: fanoutAll.filter((f) => only.has(f.sse10k ? "sse10k" : "sse")),
    acceptEncoding
  }
  const feedsRun = new Set<"demo" | "large">([
    ...(settings.http ? ["demo", "large"] as const : []),
    ...settings.fanout.map((f) => f.feed)
  ])
  const maxN = Math.max(0, ...settings.fanout.map((f) => f.n))
  const maxPerProcess = Math.max(0, ...settings.fanout.map((f) => Math.ceil(f.n / f.procs)))
  const procs = Math.max(1, ...settings.fanout.map((f) => f.procs))
  const caps: Caps = {
    sseMaxSubscribers: maxN + 100,
    sseMaxSubscribersPerClient: maxPerProcess + 100,
    maxConnections: maxN + 1000,
    maxConnectionsPerClient: maxPerProcess + 100
  }
  // the svc process and the baseline hold every subscriber's socket; each client process its share
  const fd = openFileLimit(maxN + 1000)
  progress(fd.note)
  const pinned = options.pin && pinProcess(process.pid, 0)

  const children: Array<Child> = []
  const results: Record<string, unknown> = {
    settings: { ...settings, pinned, ulimitN: fd.soft, ulimitHardN: fd.hard, caps }
  }
  const http: Array<PointResult> = []
  const fanouts: Array<FanoutResult> = []
  /** Fan-out points the open-file limit did not allow. */
  const unmeasured: Array<FanoutSetting> = []
  let svc: Svc | undefined
  try {
    const forkGroup = async (name: string, first: number): Promise<Group> => {
      const list = await Promise.all(Array.from({ length: procs }, () => forkChild(here("./sseClients.ts"))))
      children.push(...list)
      return { name, children: list, addresses: list.map((_, i) => `127.0.0.${first + i}`) }
    }
    const [baseline, loadgen, sseSvc, sseBase, effectRef] = await Promise.all([
      forkChild(here("./plainServer.ts")),
      forkChild(here("./loadgen.ts")),
      forkGroup("svc", 11),
      forkGroup("node:http", 21),
      settings.effectReference ? forkChild(here("./effectServer.ts")) : Promise.resolve(undefined)
    ])
    children.push(baseline, loadgen, ...(effectRef === undefined ? [] : [effectRef]))
    if (pinned) {
      pinProcess(baseline.process.pid!, 0)
      if (effectRef !== undefined) pinProcess(effectRef.process.pid!, 0)
      pinProcess(loadgen.process.pid!, 1)
      for (const c of [...sseSvc.children, ...sseBase.children]) pinProcess(c.process.pid!, 1)
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

    const relative = (
      t: bigint | null | undefined,
      t0: bigint
    ) => (t === null || t === undefined ? Number.NaN : Number(t - t0) / 1e6)

    /** Connects n subscribers over the first `k` processes of a group (in parallel). */
    const connectGroup = async (
      g: Group,
      k: number,
      port: number,
      n: number,
      lastEventId: string,
      decodeAll: boolean
    ) => {
      const parts = split(n, k)
      const answers = await Promise.all(parts.map((part, i) =>
        g.children[i]!.request<Connected>({
          type: "connect",
          port,
          n: part,
          lastEventId,
          localAddress: g.addresses[i],
          acceptEncoding: settings.acceptEncoding,
          decodeAll
        })
      ))
      const failed = answers.reduce((a, c) => a + c.failed, 0)
      if (failed > 0) {
        throw new Error(
          `${g.name}: ${failed} of ${n} subscribers failed: ${answers.find((c) => c.failed > 0)?.firstFailure}`
        )
      }
      const encodings: Record<string, number> = {}
      for (const c of answers) {
        for (const [coding, count] of Object.entries(c.encodings)) encodings[coding] = (encodings[coding] ?? 0) + count
      }
      return { connectMs: Math.max(...answers.map((c) => c.connectMs)), encodings }
    }
    const armGroup = (g: Group, k: number, minBytes: number) =>
      Promise.all(g.children.slice(0, k).map((c) => c.request({ type: "arm", minBytes })))
    /** Waits for every process of a group; prints progress while a long wait lasts. */
    const waitGroup = async (g: Group, k: number, timeoutMs: number, n: number) => {
      const started = Date.now()
      const ticker = setInterval(() => {
        Promise.all(
          g.children.slice(0, k).map((c) => c.request<{ done: number; closedBeforeDone: number }>({ type: "status" }))
        )
          .then((st) => {
            const doneNow = st.reduce((a, x) => a + x.done, 0)
            const closed = st.reduce((a, x) => a + x.closedBeforeDone, 0)
            progress(
              `    ${g.name}: ${doneNow} of ${n} complete${closed > 0 ? `, ${closed} closed` : ""} after ${
                Math.round((Date.now() - started) / 1000)
              } s`
            )
          }, () => {})
      }, 15_000)
      try {
        return await Promise.all(
          g.children.slice(0, k).map((c) => c.request<Wait>({ type: "wait", timeoutMs }, timeoutMs + 60_000))
        )
      } finally {
        clearInterval(ticker)
      }
    }
    const closeGroup = (g: Group, k: number) =>
      Promise.all(g.children.slice(0, k).map((c) => c.request({ type: "close" })))
    /** First, p50, p99 and last completion times (all processes), and the merged checks. */
    const merge = (waits: ReadonlyArray<Wait>, expectedSha: string) => {
      const times = waits.flatMap((w) => [...w.times]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      const at = (x: number) =>
        times.length === 0 ? null : times[Math.min(times.length - 1, Math.max(0, Math.ceil(x * times.length) - 1))]!
      return {
        first: at(0),
        p50: at(0.5),
        p99: at(0.99),
        last: at(1),
        missing: waits.reduce((a, w) => a + w.missing, 0),
        closed: waits.reduce((a, w) => a + w.closedUnexpectedly, 0),
        verified: waits.every((w) => w.eventSha256 === expectedSha),
        coding: waits[0]?.coding ?? "none",
        mode: waits[0]?.mode ?? "none",
        wireBytes: waits[0]?.eventWireBytes ?? null,
        countMismatch: waits.reduce((a, w) => a + w.countMismatch, 0),
        fromLog: waits.reduce((a, w) => a + w.fromLog, 0)
      }
    }

    /** Publication fan-out to N subscribers: svc (from publishNow) and the bare node:http broadcast of the same frame. */
    const fanout = async (s: Svc, feedName: string, f: FanoutSetting) => {
      const { n, procs: k } = f
      progress(
        `SSE ${feedName}: connecting ${n} subscribers to svc and ${n} to node:http (${k} process${
          k === 1 ? "" : "es"
        } each)`
      )
      const current = await s.current()
      const currentFrame = feedFrame(current).length
      const decodeAll = n * currentFrame <= DECODE_ALL_BYTES
      // generous: a stalled point is reported (missing), not waited for forever
      const timeoutMs = Math.min(900_000, Math.max(120_000, Math.ceil((n * currentFrame) / 100e6) * 1000))
      const svcMem0 = memoryAfterGc()
      const svcConnect = await connectGroup(sseSvc, k, s.port, n, current.dataVersion.toString(), decodeAll)
      await sleep(300)
      const svcMem1 = memoryAfterGc()
      const svcCodings = Object.keys(svcConnect.encodings)
      const svcCoding = svcCodings.length === 1 ? svcCodings[0]! : `mixed ${JSON.stringify(svcConnect.encodings)}`
      const baseCoding = BASELINE_CODINGS.has(svcCoding) ? svcCoding : "identity"
      await baseline.request({ type: "streamEncoding", encoding: baseCoding })
      const baseMem0 = await baseline.request<{ rss: number; heapUsed: number }>({ type: "memory" })
      const baseConnect = await connectGroup(sseBase, k, baseTarget.port, n, "0", decodeAll)
      await sleep(300)
      const baseMem1 = await baseline.request<{ rss: number; heapUsed: number }>({ type: "memory" })
      progress(
        `  stream coding: svc ${svcCoding}, node:http ${baseCoding} (Accept-Encoding: ${settings.acceptEncoding}); ${
          svcCoding === "identity"
            ? "subscribers count plain bytes"
            : decodeAll
            ? "every subscriber decodes"
            : "one decoding reference per process"
        }`
      )
      type Merged = ReturnType<typeof merge>
      const per: Array<{ publishMs: number; cpuMs: number; bytes: number; m: Merged; t0: bigint }> = []
      const base: Array<{ loopMs: number; encodeMs: number; cpuMs: number; m: Merged; t0: bigint }> = []
      let previous = current
      for (let i = 0; i < Math.max(f.pubs, f.basePubs); i++) {
        if (i < f.pubs) {
          const frameBytes = feedFrame(previous).length
          await armGroup(sseSvc, k, Math.max(1, frameBytes - 256))
          const c0 = cpuMicros()
          const t0 = process.hrtime.bigint()
          previous = await s.publishNow()
          const publishMs = msSince(t0)
          const frame = feedFrame(previous)
          const m = merge(await waitGroup(sseSvc, k, timeoutMs, n), sha256(frame))
          const cpuMs = (cpuMicros() - c0) / 1000
          per.push({ publishMs, cpuMs, bytes: frame.length, m, t0 })
          progress(
            `  svc publication ${i + 1}/${f.pubs}: last of ${n} after ${
              fmt(relative(m.last, t0))
            } ms (${m.missing} missing${m.verified ? "" : ", reference bytes differ from the frame"})`
          )
          await sleep(q ? 150 : 400)
        }
        if (i < f.basePubs) {
          const frame = feedFrame(previous)
          await armGroup(sseBase, k, Math.max(1, frame.length - 256))
          const c0 = await baseTarget.cpu()
          const b = await baseline.request<{ t0: bigint; loopMs: number; encodeMs: number }>({
            type: "broadcast",
            frame
          })
          const m = merge(await waitGroup(sseBase, k, timeoutMs, n), sha256(frame))
          const cpuMs = ((await baseTarget.cpu()) - c0) / 1000
          base.push({ loopMs: b.loopMs, encodeMs: b.encodeMs, cpuMs, m, t0: b.t0 })
          progress(
            `  node:http broadcast ${i + 1}/${f.basePubs}: last of ${n} after ${
              fmt(relative(m.last, b.t0))
            } ms (${m.missing} missing)`
          )
          await sleep(q ? 150 : 400)
        }
      }
      await closeGroup(sseSvc, k)
      await closeGroup(sseBase, k)
      for (let i = 0; i < 200 && s.control.subscribers() > 0; i++) await sleep(50)
      for (let i = 0; i < 200; i++) {
        if ((await baseline.request<{ open: number }>({ type: "streams" })).open === 0) break
        await sleep(50)
      }
      const lasts = per.map((p) => relative(p.m.last, p.t0))
      const lastMs = median(lasts)
      const baseLast = median(base.map((b) => relative(b.m.last, b.t0)))
      const eventBytes = median(per.map((p) => p.bytes))
      const worst = per.reduce((a, p) => (p.m.missing > a.m.missing ? p : a), per[0]!)
      fanouts.push({
        label: `${feedName} feed`,
        sse10k: f.sse10k,
        subscribers: n,
        processes: k,
        coding: svcCoding,
        baselineCoding: baseCoding,
        mode: worst.m.mode,
        eventBytes,
        wireBytes: worst.m.wireBytes,
        verified: per.every((p) => p.m.verified),
        connectMs: round(svcConnect.connectMs),
        rssPerSubscriberKiB: round((svcMem1.rss - svcMem0.rss) / n / KiB),
        heapPerSubscriberKiB: round((svcMem1.heapUsed - svcMem0.heapUsed) / n / KiB),
        publishMs: round(median(per.map((p) => p.publishMs))),
        firstMs: round(median(per.map((p) => relative(p.m.first, p.t0)))),
        p50Ms: round(median(per.map((p) => relative(p.m.p50, p.t0)))),
        p99Ms: round(median(per.map((p) => relative(p.m.p99, p.t0)))),
        lastMs: round(lastMs),
        lastMsRange: [round(Math.min(...lasts)), round(Math.max(...lasts))],
        serverCpuMs: round(median(per.map((p) => p.cpuMs))),
        deliveredGBps: round(((worst.m.wireBytes ?? eventBytes) * n) / (lastMs / 1000) / 1e9),
        missing: worst.m.missing,
        baselineMissing: Math.max(0, ...base.map((b) => b.m.missing)),
        closedBySvc: Math.max(...per.map((p) => p.m.closed)),
        countMismatch: Math.max(...per.map((p) => p.m.countMismatch)),
        fromLog: Math.max(...per.map((p) => p.m.fromLog)),
        publications: f.pubs,
        waitTimeoutMs: timeoutMs,
        baseline: {
          connectMs: round(baseConnect.connectMs),
          rssPerSubscriberKiB: round((baseMem1.rss - baseMem0.rss) / n / KiB),
          heapPerSubscriberKiB: round((baseMem1.heapUsed - baseMem0.heapUsed) / n / KiB),
          encodeMs: round(median(base.map((b) => b.encodeMs))),
          writeLoopMs: round(median(base.map((b) => b.loopMs))),
          cpuMs: round(median(base.map((b) => b.cpuMs))),
          firstMs: round(median(base.map((b) => relative(b.m.first, b.t0)))),
          p50Ms: round(median(base.map((b) => relative(b.m.p50, b.t0)))),
          lastMs: round(baseLast),
          broadcasts: f.basePubs
        },
        lastRatio: round(lastMs / baseLast),
        connectRatio: round(svcConnect.connectMs / baseConnect.connectMs)
      })
    }

    const svcTarget = (s: Svc): Target => ({ name: "svc", port: s.port, cpu: async () => cpuMicros() })

    const phase = async (feedName: "demo" | "large", catalog: unknown) => {
      progress(`starting svc with the ${feedName} catalog`)
      svc = await startSvc(catalog, caps)
      const pub = await svc.current()
      const info: Record<string, unknown> = { routes: pub.routes.length, svcStartMs: round(svc.startMs) }
      results[`${feedName}Feed`] = info
      if (settings.http) {
        const sizes = await mirror(svc)
        // CPU of the idle server (no requests, no subscribers): the publisher's periodic tick
        const idleMs = q ? 600 : 2000
        const idle0 = cpuMicros()
        const idleT0 = process.hrtime.bigint()
        await sleep(idleMs)
        const idleCoreShare = (cpuMicros() - idle0) / 1000 / msSince(idleT0)
        Object.assign(info, {
          identityBytes: sizes.identity,
          brBytes: sizes.br,
          gzipBytes: sizes.gzip,
          idleCoreShare: round(idleCoreShare)
        })
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
      }
      for (const f of settings.fanout.filter((x) => x.feed === feedName)) {
        // the svc process and the baseline each hold a socket per subscriber
        if (f.n + 1000 > fd.soft) {
          progress(`SSE ${feedName} × ${f.n}: not measured, ${fd.note}`)
          unmeasured.push(f)
          continue
        }
        await fanout(svc, feedName, f)
      }
      await svc.stop()
      svc = undefined
      gc()
    }

    if (feedsRun.has("demo")) await phase("demo", JSON.parse(readFileSync(Server.DEMO_CATALOG_PATH, "utf8")) as unknown)
    if (feedsRun.has("large")) await phase("large", generateCatalog(options.routes))
  } finally {
    if (svc !== undefined) await svc.stop()
    await Promise.all(children.map((c) => c.stop()))
  }

  results.http = http
  results.sse = fanouts

  const out: Array<string> = []
  type FeedInfo = { routes: number; identityBytes: number; brBytes: number; gzipBytes: number; idleCoreShare: number }
  const demoInfo = results.demoFeed as FeedInfo | undefined
  const largeInfo = results.largeFeed as FeedInfo | undefined
  if (http.length > 0) {
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
  }
  if (demoInfo?.identityBytes !== undefined && largeInfo?.identityBytes !== undefined) {
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
  }
  const addressRange = (first: number) => procs === 1 ? `127.0.0.${first}` : `127.0.0.${first}–${first + procs - 1}`
  const size = (bytes: number) => bytes >= MiB ? `${fmt(bytes / MiB)} MiB` : `${fmt(bytes / KiB)} KiB`
  if (fanouts.length > 0) {
    out.push(table(
      "event stream: publishNow → last subscriber has the complete feed event, vs plain node:http writing the same frame (one shared Buffer) to as many subscribers (medians)",
      [
        "feed",
        "subscribers",
        "coding svc / node",
        "event (on the wire)",
        "svc publishNow",
        "svc first",
        "svc p50",
        "svc last (range)",
        "node last",
        "last ratio",
        "CPU svc / node",
        "svc GB/s (wire)",
        "1.5 GB/s budget",
        "connect svc / node",
        "RSS/sub svc / node",
        "heap/sub svc / node",
        "missing svc / node"
      ],
      fanouts.map((f) => {
        const budgetMs = (((f.wireBytes ?? f.eventBytes) * f.subscribers) / 1.5e9) * 1000
        return [
          f.label,
          `${fmt(f.subscribers)}${f.processes > 1 ? ` (${f.processes} procs)` : ""}`,
          `${f.coding} / ${f.baselineCoding}${f.mode === "reference" ? " (ref)" : ""}`,
          `${size(f.eventBytes)}${
            f.wireBytes === null || f.wireBytes === f.eventBytes ? "" : ` (${size(f.wireBytes)})`
          }${f.verified ? "" : " UNVERIFIED"}`,
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
          `${fmt(f.heapPerSubscriberKiB)} / ${fmt(f.baseline.heapPerSubscriberKiB)} KiB`,
          `${f.missing} / ${f.baselineMissing}`
        ]
      })
    ))
    const notes = fanouts.flatMap((f) => [
      ...(f.closedBySvc > 0 ? [`${f.label} × ${f.subscribers}: svc closed ${f.closedBySvc} subscribers`] : []),
      ...(f.missing > 0
        ? [
          `${f.label} × ${f.subscribers}: ${f.missing} subscribers had no complete event after ${
            f.waitTimeoutMs / 1000
          } s`
        ]
        : []),
      ...(f.countMismatch > 0 || f.fromLog > 0
        ? [
          `${f.label} × ${f.subscribers}: for ${f.countMismatch} subscribers the read that completed the event ended past its compressed size (a heartbeat in the same read; many would mean the streams differ), ${f.fromLog} times are upper bounds`
        ]
        : [])
    ])
    out.push(
      [
        `coding: Content-Encoding of the stream responses (subscribers send Accept-Encoding: ${settings.acceptEncoding}); every process's reference subscriber got exactly svc's frame bytes unless marked UNVERIFIED`,
        ...(fanouts.some((f) => f.mode === "reference")
          ? [
            "(ref): a compressed stream timed by the compressed bytes of the event, as one decoding reference per process received them (see sseClients.ts)"
          ]
          : []),
        ...notes
      ].join("\n")
    )
  }
  out.push(
    `${fd.note}; svc caps: ${caps.sseMaxSubscribers} streams, ${caps.sseMaxSubscribersPerClient} per client, ${caps.maxConnections} connections, ${caps.maxConnectionsPerClient} per client; subscribers from ${
      addressRange(11)
    } (svc) and ${addressRange(21)} (node:http), one address per process; ${
      pinned ? "svc, Effect-min and node:http pinned to CPU 0; load generator and subscribers to CPU 1" : "not pinned"
    }`
  )

  // -------------------------------------------------------------------------
  // Targets
  // -------------------------------------------------------------------------
  const rows: Array<TargetRow> = []
  const feedTitle = (label: string) =>
    label.startsWith("large ")
      ? `large (${largeInfo?.routes ?? options.routes} routes) ${label.slice(6)}`
      : label
  for (const p of http) {
    rows.push({
      what: `GET feed ${feedTitle(p.label)}: req/s svc ÷ node:http`,
      figure: `${ratio(p.rpsRatio)} (${fmt(p.svcRps)} vs ${fmt(p.baseRps)} req/s)`,
      target: `>= ×${SERVER_TARGETS.rpsRatio}`,
      met: p.rpsRatio >= SERVER_TARGETS.rpsRatio
    })
    rows.push({
      what: `GET feed ${feedTitle(p.label)}: CPU per request svc ÷ node:http`,
      figure: `${ratio(p.cpuRatio)} (${fmt(p.svcCpuUs)} vs ${fmt(p.baseCpuUs)} µs)`,
      target: `<= ×${SERVER_TARGETS.cpuRatio}`,
      met: p.cpuRatio <= SERVER_TARGETS.cpuRatio
    })
  }
  if (fanouts.length > 0) {
    // the most subscribers: the most precise figure (noise ÷ N)
    const biggest = fanouts.reduce((a, f) => (f.subscribers > a.subscribers ? f : a), fanouts[0]!)
    const others = fanouts.filter((f) => f !== biggest)
    rows.push({
      what: `JS heap per idle SSE subscriber (${biggest.label}, ${fmt(biggest.subscribers)} subscribers)`,
      figure: `${fmt(biggest.heapPerSubscriberKiB)} KiB${
        others.length === 0
          ? ""
          : ` (others: ${
            others.map((f) =>
              `${fmt(f.heapPerSubscriberKiB)} at ${f.label.replace(" feed", "")} × ${fmt(f.subscribers)}`
            )
              .join(", ")
          })`
      }`,
      target: `<= ${SERVER_TARGETS.heapPerSubscriberKiB} KiB`,
      met: biggest.heapPerSubscriberKiB <= SERVER_TARGETS.heapPerSubscriberKiB
    })
  }
  const tenK = fanouts.find((f) => f.sse10k)
  const tenKComparable = tenK !== undefined && !q && tenK.subscribers >= SERVER_TARGETS.fanoutSubscribers
  if (tenK !== undefined) {
    const complete = tenK.missing === 0 && tenK.verified
    const compressed = tenK.wireBytes !== null && tenK.wireBytes !== tenK.eventBytes
    rows.push({
      what: `${largeInfo?.routes ?? options.routes}-route publication to ${
        fmt(tenK.subscribers)
      } subscribers: the last has the complete event`,
      figure: `${
        complete
          ? `${fmt(round(tenK.lastMs / 1000))} s`
          : `${tenK.missing} of ${fmt(tenK.subscribers)} incomplete${tenK.verified ? "" : ", bytes differ"}`
      } (${tenK.coding} stream${compressed ? `, ${size(tenK.wireBytes!)}/event on the wire` : ""}; node:http ${
        fmt(round(tenK.baseline.lastMs / 1000))
      } s)`,
      target: `< ${SERVER_TARGETS.fanoutLastMs / 1000} s`,
      met: tenKComparable ? complete && tenK.lastMs < SERVER_TARGETS.fanoutLastMs : undefined
    })
  }
  const tenKUnmeasured = unmeasured.find((f) => f.sse10k)
  if (tenKUnmeasured !== undefined) {
    rows.push({
      what: `${largeInfo?.routes ?? options.routes}-route publication to ${
        fmt(tenKUnmeasured.n)
      } subscribers: the last has the complete event`,
      figure: `not measured: ${fd.note}`,
      target: `< ${SERVER_TARGETS.fanoutLastMs / 1000} s`,
      met: q ? undefined : false
    })
  }
  const skipped = SERVER_PARTS.filter((part) => !only.has(part))
  const verdict = targetsReport(
    "targets (performance issue): each figure of this run beside its target",
    rows,
    [
      ...(skipped.length > 0
        ? [`(--only ${[...only].join(",")}: the targets of ${skipped.join(", ")} were not measured)`]
        : []),
      ...(tenK !== undefined && !tenKComparable
        ? [
          `(n/a: ${fmt(tenK.subscribers)} subscribers instead of ${
            fmt(SERVER_TARGETS.fanoutSubscribers)
          } in a --quick run: the same path, not comparable with the target, not counted)`
        ]
        : []),
      ...(q ? ["(--quick: shorter rounds, fewer subscribers; the figures are noisier)"] : [])
    ]
  )
  out.push(verdict.text)
  results.targetRows = rows
  results.targetsMet = verdict.met
  results.targets = verdict.counted
  return { text: out.join("\n"), results }
}
