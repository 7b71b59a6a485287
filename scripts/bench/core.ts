/**
 * `npm run bench -- core` (issue #3): the engine on a 2,000-route catalog over the
 * real SQLite store, each figure next to a baseline measured in the same run.
 *
 * 1. Publication: `Publisher.publishNow` (build terms, schema check, canonical
 *    JSON, keccak, signature, views, store row) vs canonical JSON + keccak of the
 *    same payload alone; the longest event-loop stall of a publication; heap
 *    growth; the cost of the publisher's periodic no-change tick.
 * 2. Permits: `Permits.create` per second on SQLite (requests pre-signed before
 *    timing), sequential and with concurrency 8, vs one EIP-191 signature
 *    recovery + one digest signature alone; then latency at half the saturated
 *    throughput: permits issued open-loop at a fixed rate of half the
 *    concurrency-8 permits/s (one every 2/rate s on a timer, whether or not the
 *    earlier ones have finished), latency from each permit's scheduled start.
 * 3. Targets: each figure of the performance issue's table beside its target,
 *    then `verdict: N of M targets met`.
 *
 * Rounds of a measurement and of its baseline alternate, so that the shared
 * VM's noise hits both; ratios are medians of per-round ratios.
 */
import { Context, Effect, Exit, Layer, Redacted, Result, Scope } from "effect"
import { Schema } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { EvmConnector } from "../../packages/connector-evm/src/index.ts"
import { Catalog, Connector, Permits, Publisher, Signer, Solver } from "../../packages/core/src/index.ts"
import { makeKeccakFast } from "../../packages/core/src/internal/fastKeccak.ts"
import { utf8 } from "../../packages/protocol/src/Bytes.ts"
import {
  CanonicalJson,
  FeedSignature,
  PermitMessage,
  Signature,
  SignedFeedPayload,
  strictParseOptions
} from "../../packages/protocol/src/index.ts"
import type { PermitCreateRequest } from "../../packages/protocol/src/schema/Permit.ts"
import { SqliteStore } from "../../packages/store/src/index.ts"
import { generateCatalog } from "./catalog.ts"
import {
  cpuMicros,
  fmt,
  gcPauses,
  median,
  memoryAfterGc,
  MiB,
  msSince,
  progress,
  quantile,
  ratio,
  round,
  stallProbe,
  table,
  type TargetRow,
  targetsReport
} from "./util.ts"

/** Authority key of the benchmarks (public test material, never fund it). */
export const AUTHORITY_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const
/** Payer wallet of the benchmarks (public test material). */
export const PAYER_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" as const
const RECIPIENT = "0x2222222222222222222222222222222222222222"

export interface CoreOptions {
  readonly quick: boolean
  readonly routes: number
}

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The performance issue's targets for this bench. */
export const CORE_TARGETS = {
  /** publishNow CPU ÷ (canonical JSON + keccak of the payload), at most. */
  publicationCpuRatio: 1.3,
  /** Longest event-loop stall of a publication, ms, at most. */
  publicationStallMs: 20,
  /** Permit CPU ÷ (one recover + one sign), at most. */
  permitCpuRatio: 1.2,
  /** Permit p99 at half the saturated throughput, ms, below. */
  permitP99Ms: 15
} as const

/**
 * Open-loop load: `count` calls of `issue`, the i-th scheduled at `i × intervalMs`
 * after the start and started then (a timer wakes up for the next scheduled
 * start; starts that are due are all made, late or not), never waiting for
 * earlier calls to finish. Latency is measured from the scheduled start, so a
 * late start (the event loop was busy) counts against the permit, as it would
 * for a client (no coordinated omission).
 */
const openLoop = async (
  count: number,
  intervalMs: number,
  issue: (i: number) => Promise<unknown>
): Promise<{ latencies: Array<number>; startLagMs: Array<number>; elapsedMs: number }> => {
  const latencies: Array<number> = Array.from({ length: count }, () => Number.NaN)
  const startLagMs: Array<number> = []
  const inFlight: Array<Promise<unknown>> = []
  const t0 = performance.now()
  let next = 0
  while (next < count) {
    const now = performance.now()
    while (next < count && t0 + next * intervalMs <= now) {
      const i = next++
      const scheduled = t0 + i * intervalMs
      startLagMs.push(performance.now() - scheduled)
      inFlight.push(
        issue(i).then(() => {
          latencies[i] = performance.now() - scheduled
        })
      )
    }
    if (next < count) await sleep(Math.max(0, t0 + next * intervalMs - performance.now()))
  }
  await Promise.all(inFlight)
  return { latencies, startLagMs, elapsedMs: performance.now() - t0 }
}

/** Times `f` once: wall ms and CPU ms of this process. */
const timed = async <A>(f: () => Promise<A> | A): Promise<{ value: A; ms: number; cpuMs: number }> => {
  const c0 = cpuMicros()
  const t0 = process.hrtime.bigint()
  const value = await f()
  const ms = msSince(t0)
  return { value, ms, cpuMs: (cpuMicros() - c0) / 1000 }
}

export const runCore = async (options: CoreOptions) => {
  const q = options.quick
  const rounds = q ? 3 : 9
  const permitCount = q ? 120 : 600
  const baselinePairs = q ? 60 : 200
  const results: Record<string, unknown> = {}
  const rows: Array<Array<string>> = []
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-core-"))
  const scope = await run(Scope.make())
  try {
    // -----------------------------------------------------------------------
    // Catalog
    // -----------------------------------------------------------------------
    progress(`generating a ${options.routes}-route catalog`)
    const document = generateCatalog(options.routes)
    const resolveTimes: Array<number> = []
    for (let i = 0; i < 3; i++) {
      const t = await timed(() =>
        Catalog.fromUnknown(document, { registry: Connector.makeRegistry([EvmConnector.make()]) })
      )
      if (Result.isFailure(t.value)) throw new Error(`generated catalog is invalid: ${t.value.failure.message}`)
      resolveTimes.push(t.ms)
    }

    // -----------------------------------------------------------------------
    // Engine over SQLite
    // -----------------------------------------------------------------------
    progress("starting the engine on SQLite")
    const engineLayer = Solver.layer({
      catalog: document,
      // no background publications while measuring (the tick is measured on its own below)
      publisher: {
        routeDetailTemplate: "http://127.0.0.1/api/v6/routes/{routeId}",
        tickMillis: 3_600_000,
        feedTtlSeconds: 3600
      },
      settlement: { sweepMillis: 0 },
      routeMetrics: { flushMillis: 3_600_000 },
      permits: { permitTtlSeconds: 600 },
      connectors: [EvmConnector.make()]
    }).pipe(
      Layer.provideMerge(Layer.merge(
        SqliteStore.layer({ filename: join(dir, "svc.sqlite") }),
        Layer.succeed(Signer.Signer, Signer.fromPrivateKey(Redacted.make(AUTHORITY_KEY)))
      ))
    )
    const start = await timed(() => run(Layer.buildWithScope(engineLayer, scope)))
    const context = start.value as Context.Context<Publisher.Publisher | Permits.Permits>
    const within = <A, E>(effect: Effect.Effect<A, E, Publisher.Publisher | Permits.Permits>) =>
      run(Effect.provideContext(effect, context))
    const publisher = Context.get(context, Publisher.Publisher)
    const permits = Context.get(context, Permits.Permits)

    // -----------------------------------------------------------------------
    // Publication vs canonical JSON + keccak alone
    // -----------------------------------------------------------------------
    progress(`publication: ${rounds} rounds of publishNow vs canonical JSON + keccak`)
    const first = await within(publisher.publishNow)
    const feedBytes = first.fullView.body.length
    const payloadBytes = utf8(first.canonicalPayload).length
    const keccakFast = makeKeccakFast()
    const hashAlone = async (payload: unknown) => {
      const text = CanonicalJson.stringify(payload)
      return run(keccakFast(utf8(`${FeedSignature.FEED_DOMAIN}\n${text}`)))
    }
    // warm-up (JIT, WebAssembly instance)
    for (let i = 0; i < 2; i++) {
      const p = await within(publisher.publishNow)
      await hashAlone(p.payload)
    }
    const publish: Array<{ ms: number; cpuMs: number; stallMs: number; gcCount: number; gcMs: number }> = []
    const baseline: Array<{ ms: number; cpuMs: number }> = []
    const nobleHash: Array<number> = []
    const schemaCheck: Array<number> = []
    const sign: Array<number> = []
    const encode: Array<number> = []
    let last = first
    for (let r = 0; r < rounds; r++) {
      const pauses = gcPauses()
      const probe = stallProbe()
      const p = await timed(() => within(publisher.publishNow))
      const stall = probe.stop()
      const gcs = await pauses.stop()
      publish.push({ ms: p.ms, cpuMs: p.cpuMs, stallMs: stall.longestGapMs, gcCount: gcs.count, gcMs: gcs.ms })
      last = p.value
      const b = await timed(() => hashAlone(last.payload))
      if (b.value !== last.feedHash) throw new Error("baseline hash differs from the publication's feedHash")
      baseline.push({ ms: b.ms, cpuMs: b.cpuMs })
      // parts, for the reader (each once per round)
      nobleHash.push((await timed(() => FeedSignature.hash(last.payload))).ms)
      schemaCheck.push(
        (await timed(() => Schema.decodeUnknownResult(SignedFeedPayload)(last.payload, strictParseOptions))).ms
      )
      sign.push((await timed(() => Signature.signDigest(last.feedHash, AUTHORITY_KEY))).ms)
      encode.push((await timed(() => new TextEncoder().encode(new TextDecoder().decode(last.fullView.body)))).ms)
    }
    // retention: heap after GC before and after more publications (nothing else in between)
    const retentionRounds = q ? 4 : 10
    for (let i = 0; i < 2; i++) last = await within(publisher.publishNow)
    const heapBefore = memoryAfterGc()
    for (let i = 0; i < retentionRounds; i++) last = await within(publisher.publishNow)
    const heapAfter = memoryAfterGc()
    const pubRatios = publish.map((p, i) => p.ms / baseline[i]!.ms)
    const pubCpuRatios = publish.map((p, i) => p.cpuMs / baseline[i]!.cpuMs)
    const pub = {
      routes: last.routes.length,
      openRoutes: last.openRouteCount,
      canonicalPayloadBytes: payloadBytes,
      fullFeedBytes: feedBytes,
      publishMs: round(median(publish.map((p) => p.ms))),
      publishMsMin: round(Math.min(...publish.map((p) => p.ms))),
      publishMsMax: round(Math.max(...publish.map((p) => p.ms))),
      publishCpuMs: round(median(publish.map((p) => p.cpuMs))),
      baselineMs: round(median(baseline.map((b) => b.ms))),
      baselineCpuMs: round(median(baseline.map((b) => b.cpuMs))),
      ratio: round(median(pubRatios)),
      cpuRatio: round(median(pubCpuRatios)),
      longestStallMs: round(median(publish.map((p) => p.stallMs))),
      longestStallMsMax: round(Math.max(...publish.map((p) => p.stallMs))),
      gcPausesPerPublication: round(median(publish.map((p) => p.gcCount))),
      gcPauseMsPerPublication: round(median(publish.map((p) => p.gcMs))),
      retentionPublications: retentionRounds,
      retainedHeapGrowthMiB: round((heapAfter.heapUsed - heapBefore.heapUsed) / MiB),
      retainedHeapGrowthPerPublicationKiB: round((heapAfter.heapUsed - heapBefore.heapUsed) / retentionRounds / 1024),
      heapAfterGcMiB: round(heapAfter.heapUsed / MiB),
      rssMiB: round(heapAfter.rss / MiB),
      parts: {
        canonicalPlusNobleKeccakMs: round(median(nobleHash)),
        payloadSchemaCheckMs: round(median(schemaCheck)),
        signDigestMs: round(median(sign)),
        decodeEncodeFullFeedMs: round(median(encode))
      }
    }
    results.publication = pub

    // -----------------------------------------------------------------------
    // The periodic no-change tick (what the publisher runs every tickMillis)
    // -----------------------------------------------------------------------
    progress("publisher tick without changes")
    const ticks: Array<{ ms: number; cpuMs: number; stallMs: number }> = []
    for (let r = 0; r < rounds; r++) {
      const probe = stallProbe()
      const t = await timed(() => within(publisher.refresh))
      const stall = probe.stop()
      const state = t.value
      if (state._tag !== "Open" || state.publication.dataVersion !== last.dataVersion) {
        throw new Error("a no-change refresh published a new version")
      }
      ticks.push({ ms: t.ms, cpuMs: t.cpuMs, stallMs: stall.longestGapMs })
    }
    const tick = {
      ms: round(median(ticks.map((t) => t.ms))),
      cpuMs: round(median(ticks.map((t) => t.cpuMs))),
      longestStallMs: round(median(ticks.map((t) => t.stallMs))),
      /** Share of one core at the default tick (1 s). */
      coreShareAtDefaultTick: round(median(ticks.map((t) => t.cpuMs)) / 1000)
    }
    results.idleTick = tick

    // -----------------------------------------------------------------------
    // Permits vs recovery + signing alone
    // -----------------------------------------------------------------------
    progress(`permits: pre-signing ${3 * permitCount} requests`)
    const payer = Signature.addressOf(PAYER_KEY)
    const open = last.routes.filter((r) => r.open)
    const requests = (tag: string): Array<PermitCreateRequest> =>
      Array.from({ length: permitCount }, (_, i) => {
        const route = open[(i * 7919) % open.length]!
        const request = {
          quoteId: route.quoteId,
          requestedAmountInRaw: route.minimumFillInRaw,
          payer,
          recipient: RECIPIENT,
          idempotencyKey: `bench-${tag}-${i.toString().padStart(6, "0")}`
        }
        const message = PermitMessage.message(PermitMessage.normalize(request, { strict: false }))
        return { ...request, requestSignature: PermitMessage.sign(message, PAYER_KEY) } as PermitCreateRequest
      })
    const sequential = requests("seq")
    const concurrent = requests("c8")
    const openLoopRequests = requests("ol")
    const sampleMessage = PermitMessage.message(PermitMessage.normalize(sequential[0]!, { strict: false }))
    const sampleSignature = sequential[0]!.requestSignature
    const sampleDigest = last.feedHash

    const pairRun = (n: number) =>
      timed(() => {
        for (let i = 0; i < n; i++) {
          const recovered = Signature.recoverPersonalMessageSigner(sampleMessage, sampleSignature)
          if (Result.isFailure(recovered) || recovered.success !== payer) throw new Error("baseline recovery failed")
          Signature.signDigest(sampleDigest, AUTHORITY_KEY)
        }
      })

    const createOne = (request: PermitCreateRequest) =>
      Effect.gen(function*() {
        const t0 = process.hrtime.bigint()
        const result = yield* permits.create(request)
        if (!result.created) return yield* Effect.die(new Error("a fresh request was replayed"))
        return Number(process.hrtime.bigint() - t0) / 1e6
      })
    const createAll = (batch: ReadonlyArray<PermitCreateRequest>, concurrency: number) =>
      timed(() => within(Effect.forEach(batch, createOne, { concurrency })))

    // warm-up: a few permits and pairs (not counted)
    await pairRun(20)
    await within(Effect.forEach(requests("warm").slice(0, 20), createOne, { concurrency: 1 }))

    progress(`permits: ${permitCount} sequential, ${permitCount} with concurrency 8, baseline in between`)
    const pairBefore = await pairRun(baselinePairs)
    const seq = await createAll(sequential, 1)
    const pairMiddle = await pairRun(baselinePairs)
    const c8 = await createAll(concurrent, 8)
    const pairAfter = await pairRun(baselinePairs)

    // latency at half the saturated throughput (the concurrency-8 rate just measured), open loop
    const saturatedPerSecond = permitCount / (c8.ms / 1000)
    const halfRate = saturatedPerSecond / 2
    const openLoopCount = openLoopRequests.length
    progress(
      `permits: ${openLoopCount} open-loop at ${fmt(round(halfRate))} /s (half of ${
        fmt(round(saturatedPerSecond))
      } /s), one every ${fmt(round(1000 / halfRate))} ms`
    )
    const openCpu0 = cpuMicros()
    const openRun = await openLoop(openLoopCount, 1000 / halfRate, (i) => within(createOne(openLoopRequests[i]!)))
    const openCpuMs = (cpuMicros() - openCpu0) / 1000
    // the durable commit alone: one single-row transaction, WAL + synchronous=FULL like SqliteStore
    const commits = q ? 40 : 150
    const db = new DatabaseSync(join(dir, "commit-baseline.sqlite"))
    db.exec(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT NOT NULL) STRICT"
    )
    const insert = db.prepare("INSERT INTO t (k, v) VALUES (?, ?)")
    const row = "x".repeat(2700)
    const commit = await timed(() => {
      for (let i = 0; i < commits; i++) {
        db.exec("BEGIN IMMEDIATE")
        insert.run(`k${i}`, row)
        db.exec("COMMIT")
      }
    })
    db.close()
    const commitMs = commit.ms / commits
    const commitCpuUs = (commit.cpuMs * 1000) / commits
    const pairPerSec = median([pairBefore, pairMiddle, pairAfter].map((p) => baselinePairs / (p.ms / 1000)))
    const pairCpuUs = median([pairBefore, pairMiddle, pairAfter].map((p) => (p.cpuMs * 1000) / baselinePairs))
    /** Ratios are costs: time (or CPU) of one permit ÷ that of one recover + sign pair. */
    const permitFigures = (t: { value: ReadonlyArray<number>; ms: number; cpuMs: number }, pairsAround: number) => ({
      perSecond: round(permitCount / (t.ms / 1000)),
      cpuUsPerPermit: round((t.cpuMs * 1000) / permitCount),
      p50Ms: round(quantile(t.value, 0.5)),
      p99Ms: round(quantile(t.value, 0.99)),
      maxMs: round(Math.max(...t.value)),
      ratio: round(pairsAround / (permitCount / (t.ms / 1000))),
      cpuRatio: round((t.cpuMs * 1000) / permitCount / pairCpuUs)
    })
    const pairSeqAround = median([pairBefore, pairMiddle].map((p) => baselinePairs / (p.ms / 1000)))
    const pairC8Around = median([pairMiddle, pairAfter].map((p) => baselinePairs / (p.ms / 1000)))
    const halfLoad = {
      count: openLoopCount,
      ratePerSecond: round(halfRate),
      saturatedPerSecond: round(saturatedPerSecond),
      achievedPerSecond: round(openLoopCount / (openRun.elapsedMs / 1000)),
      p50Ms: round(quantile(openRun.latencies, 0.5)),
      p99Ms: round(quantile(openRun.latencies, 0.99)),
      maxMs: round(Math.max(...openRun.latencies)),
      /** How late the timer started permits (the event loop was busy): p99, ms. */
      startLagP99Ms: round(quantile(openRun.startLagMs, 0.99)),
      cpuShare: round(openCpuMs / openRun.elapsedMs)
    }
    results.permits = {
      count: permitCount,
      sequential: permitFigures(seq, pairSeqAround),
      concurrency8: permitFigures(c8, pairC8Around),
      halfSaturation: halfLoad,
      baselineRecoverPlusSignPerSecond: round(pairPerSec),
      baselineCpuUsPerPair: round(pairCpuUs),
      sqliteFullCommitMs: round(commitMs),
      sqliteFullCommitCpuUs: round(commitCpuUs)
    }
    results.catalog = {
      routes: options.routes,
      resolveMs: round(median(resolveTimes)),
      engineStartMs: round(start.ms)
    }

    // -----------------------------------------------------------------------
    // Report
    // -----------------------------------------------------------------------
    const p = results.permits as {
      sequential: ReturnType<typeof permitFigures>
      concurrency8: ReturnType<typeof permitFigures>
    }
    rows.push(
      [
        `publishNow, ${pub.routes} routes (median of ${rounds})`,
        `${fmt(pub.publishMs)} ms (${fmt(pub.publishMsMin)}–${fmt(pub.publishMsMax)})`,
        `${fmt(pub.publishCpuMs)} ms`,
        `canonical JSON + WASM keccak of the payload: ${fmt(pub.baselineMs)} ms, CPU ${fmt(pub.baselineCpuMs)} ms`,
        ratio(pub.ratio),
        ratio(pub.cpuRatio)
      ],
      [
        "  longest event-loop stall of a publication",
        `${fmt(pub.longestStallMs)} ms (max ${fmt(pub.longestStallMsMax)})`,
        "",
        `canonical JSON + WASM keccak of the payload: ${fmt(pub.baselineMs)} ms`,
        ratio(pub.longestStallMs / pub.baselineMs),
        ""
      ],
      [
        "publisher tick without changes (runs every 1 s)",
        `${fmt(tick.ms)} ms`,
        `${fmt(tick.cpuMs)} ms = ${fmt(tick.coreShareAtDefaultTick * 100)} % of a core`,
        `canonical JSON + WASM keccak of the payload: ${fmt(pub.baselineMs)} ms, CPU ${fmt(pub.baselineCpuMs)} ms`,
        ratio(tick.ms / pub.baselineMs),
        ratio(tick.cpuMs / pub.baselineCpuMs)
      ],
      [
        `Permits.create sequential (${permitCount})`,
        `${fmt(p.sequential.perSecond)} /s (p50 ${fmt(p.sequential.p50Ms)} ms, p99 ${fmt(p.sequential.p99Ms)} ms)`,
        `${fmt(p.sequential.cpuUsPerPermit)} µs per permit`,
        `one recover + one sign: ${fmt(pairSeqAround)} /s, CPU ${fmt(round(pairCpuUs))} µs`,
        ratio(p.sequential.ratio),
        ratio(p.sequential.cpuRatio)
      ],
      [
        `Permits.create concurrency 8 (${permitCount})`,
        `${fmt(p.concurrency8.perSecond)} /s (p50 ${fmt(p.concurrency8.p50Ms)} ms, p99 ${
          fmt(p.concurrency8.p99Ms)
        } ms)`,
        `${fmt(p.concurrency8.cpuUsPerPermit)} µs per permit`,
        `one recover + one sign: ${fmt(pairC8Around)} /s, CPU ${fmt(round(pairCpuUs))} µs`,
        ratio(p.concurrency8.ratio),
        ratio(p.concurrency8.cpuRatio)
      ],
      [
        `Permits.create open loop at half saturation (${halfLoad.count})`,
        `${fmt(halfLoad.achievedPerSecond)} /s (p50 ${fmt(halfLoad.p50Ms)} ms, p99 ${fmt(halfLoad.p99Ms)} ms)`,
        `${fmt(round(halfLoad.cpuShare * 100))} % of a core`,
        `offered ${fmt(halfLoad.ratePerSecond)} /s = half the concurrency-8 ${fmt(halfLoad.saturatedPerSecond)} /s`,
        "",
        ""
      ]
    )
    const out: Array<string> = []
    out.push(table(
      "svc bench core — cost ratios (svc ÷ baseline, both measured in this run; 1.0 = svc costs only what the baseline costs)",
      ["measure", "svc (wall)", "svc CPU", "baseline", "wall ratio", "CPU ratio"],
      rows
    ))
    out.push(table("publication details", ["figure", "value"], [
      ["catalog resolve (Catalog.fromUnknown)", `${fmt(round(median(resolveTimes)))} ms`],
      ["engine start incl. first publication", `${fmt(round(start.ms))} ms`],
      ["routes / open", `${pub.routes} / ${pub.openRoutes}`],
      ["canonical signed payload", `${fmt(payloadBytes / MiB)} MiB`],
      ["full feed response body", `${fmt(feedBytes / MiB)} MiB`],
      [
        "baseline CPU (canonical JSON + WASM keccak)",
        `${fmt(pub.baselineCpuMs)} ms (publishNow CPU ${ratio(pub.cpuRatio)})`
      ],
      ["part: canonical JSON + noble (JS) keccak, as verifiers do", `${fmt(pub.parts.canonicalPlusNobleKeccakMs)} ms`],
      ["part: SignedFeedPayload schema check", `${fmt(pub.parts.payloadSchemaCheckMs)} ms`],
      ["part: one digest signature", `${fmt(pub.parts.signDigestMs)} ms`],
      ["part: decode + encode the full feed text", `${fmt(pub.parts.decodeEncodeFullFeedMs)} ms`],
      ["GC pauses during a publication", `${fmt(pub.gcPausesPerPublication)} (${fmt(pub.gcPauseMsPerPublication)} ms)`],
      [
        `retained heap growth over ${retentionRounds} more publications (after GC)`,
        `${fmt(pub.retainedHeapGrowthMiB)} MiB (${fmt(pub.retainedHeapGrowthPerPublicationKiB)} KiB per publication)`
      ],
      ["heap after GC / RSS", `${fmt(pub.heapAfterGcMiB)} MiB / ${fmt(pub.rssMiB)} MiB`],
      ["baseline recover + sign CPU per pair", `${fmt(round(pairCpuUs))} µs`],
      [
        "SQLite WAL+FULL single-row commit alone (node:sqlite, same disk)",
        `${fmt(round(commitMs))} ms wall, ${fmt(round(commitCpuUs))} µs CPU`
      ]
    ]))

    // -----------------------------------------------------------------------
    // Targets
    // -----------------------------------------------------------------------
    const seqCpu = p.sequential.cpuRatio
    const c8Cpu = p.concurrency8.cpuRatio
    const worsePermitCpu = Math.max(seqCpu, c8Cpu)
    const targetRows: Array<TargetRow> = [
      {
        what: `publication, ${pub.routes} routes: CPU ÷ (canonical JSON + keccak of the payload)`,
        figure: `${ratio(pub.cpuRatio)} (${fmt(pub.publishCpuMs)} ÷ ${fmt(pub.baselineCpuMs)} ms CPU)`,
        target: `<= ×${CORE_TARGETS.publicationCpuRatio}`,
        met: pub.cpuRatio <= CORE_TARGETS.publicationCpuRatio
      },
      {
        what: `longest event-loop stall during a publication (median of ${rounds})`,
        figure: `${fmt(pub.longestStallMs)} ms (max ${fmt(pub.longestStallMsMax)} ms)`,
        target: `<= ${CORE_TARGETS.publicationStallMs} ms`,
        met: pub.longestStallMs <= CORE_TARGETS.publicationStallMs
      },
      {
        what: "permit CPU ÷ (one recover + one sign), the worse of sequential and concurrency 8",
        figure: `${ratio(worsePermitCpu)} (sequential ${ratio(seqCpu)}, concurrency 8 ${ratio(c8Cpu)})`,
        target: `<= ×${CORE_TARGETS.permitCpuRatio}`,
        met: worsePermitCpu <= CORE_TARGETS.permitCpuRatio
      },
      {
        what: `permit p99 at half the saturated throughput (open loop, ${
          fmt(halfLoad.ratePerSecond)
        } /s, ${halfLoad.count} permits)`,
        figure: `${fmt(halfLoad.p99Ms)} ms (p50 ${fmt(halfLoad.p50Ms)} ms)`,
        target: `< ${CORE_TARGETS.permitP99Ms} ms`,
        met: halfLoad.p99Ms < CORE_TARGETS.permitP99Ms
      }
    ]
    const verdict = targetsReport(
      "targets (performance issue): each figure of this run beside its target",
      targetRows,
      q ? ["(--quick: fewer rounds and permits than a full run; the figures are noisier)"] : []
    )
    out.push(verdict.text)
    results.targetRows = targetRows
    results.targetsMet = verdict.met
    results.targets = verdict.counted
    return { text: out.join("\n"), results }
  } finally {
    await run(Scope.close(scope, Exit.void)).catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  }
}
