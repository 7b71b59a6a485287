/**
 * `npm run bench -- replicas`: replicas of `svc serve` on one PostgreSQL database.
 *
 * - permit throughput with 1, 2 and 3 replicas (distinct requests, round-robin,
 *   a fresh database each), as ratios against one replica;
 * - publication latency: an operator route change written to the store and
 *   announced, until the `feed` event reaches a subscriber of the leader (same
 *   replica) and subscribers of the followers (cross replica);
 * - failover: SIGKILL of the leader until a surviving replica's subscriber gets
 *   the next version.
 *
 * The load generator runs on the same machine (2 cores here): more replicas
 * share the same CPUs, so the throughput ratios show the coordination's cost,
 * not a scale-out a larger machine would see.
 */
import { Effect, Redacted } from "effect"
import { rmSync } from "node:fs"
import { Store } from "../../packages/core/src/Store.ts"
import {
  freshDatabase,
  leaderPid,
  post,
  type Replica,
  signedRequest,
  startReplica,
  subscribe,
  waitUntil
} from "../../packages/server/test/support/replicas.ts"
import { StoreConfig } from "../../packages/store/src/index.ts"

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]!
}

const stopAll = async (replicas: ReadonlyArray<Replica>) => {
  for (const r of replicas) {
    r.child.kill("SIGKILL")
    await r.exit.catch(() => undefined)
    rmSync(r.dataDir, { recursive: true, force: true })
  }
}

/** A cluster of `n` replicas on a fresh database. */
const cluster = async (n: number) => {
  const db = await freshDatabase("bench")
  const replicas = await Promise.all(Array.from({ length: n }, (_, i) => startReplica(db.url, `b${i + 1}`)))
  await waitUntil("a leader", async () => ((await leaderPid(db.database)).length === 1 ? true : undefined))
  // every replica serves the leader's publication
  const feed = await waitUntil("a publication everywhere", async () => {
    const bodies = await Promise.all(replicas.map(async (r) => (await fetch(`${r.url}/api/v6/solver-feed`)).json()))
    return bodies.every((b: any) => b.ok === true) ? bodies[0] as any : undefined
  })
  return {
    db,
    replicas,
    route: feed.feed.openRoutes[0] as { routeId: string; quoteId: string; minimumFillInRaw: string },
    stop: async () => {
      await stopAll(replicas)
      await db.drop()
    }
  }
}

/** Writes a route override through the store and announces it, as `svc admin route` does. */
const toggleRoute = (databaseUrl: string, routeId: string, paused: boolean) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const options = { databaseUrl: Redacted.make(databaseUrl), dataDir: "." }
    yield* Effect.gen(function*() {
      const store = yield* Store
      yield* store.setRouteOverride(routeId.toLowerCase(), paused ? { executionStatus: "PAUSED" } : {})
    }).pipe(Effect.provide(StoreConfig.layerFromUrl(options)))
    yield* StoreConfig.announceFromUrl(options, "operator", "changed")
  })))

export const runReplicas = async (options: { readonly quick: boolean }) => {
  const seconds = options.quick ? 3 : 8
  const width = 16
  const log = (line: string) => process.stderr.write(`svc bench replicas: ${line}\n`)

  // ---------------------------------------------------------------- throughput
  const throughput: Array<{ replicas: number; permits: number; perSecond: number; errors: number }> = []
  let bodies: Array<string> = []
  for (const n of [1, 2, 3]) {
    const c = await cluster(n)
    try {
      if (bodies.length === 0) {
        // signed once (the quoteId is the same on every fresh database of this catalog and key)
        const count = options.quick ? 3000 : 8000
        bodies = Array.from(
          { length: count },
          (_, i) => signedRequest(c.route.quoteId, c.route.minimumFillInRaw, `bench-replicas-${i}`)
        )
      }
      let next = 0
      let ok = 0
      let errors = 0
      const deadline = Date.now() + seconds * 1000
      const started = Date.now()
      await Promise.all(Array.from({ length: width }, async () => {
        while (Date.now() < deadline && next < bodies.length) {
          const i = next++
          const r = await post(c.replicas[i % n]!, bodies[i]!)
          if (r.status === 201) ok++
          else errors++
        }
      }))
      const elapsed = (Date.now() - started) / 1000
      throughput.push({ replicas: n, permits: ok, perSecond: Math.round(ok / elapsed), errors })
      log(`${n} replica(s): ${ok} permits in ${elapsed.toFixed(1)} s`)
    } finally {
      await c.stop()
    }
  }

  // ------------------------------------------------ publication latency, failover
  const c = await cluster(3)
  const same: Array<number> = []
  const cross: Array<number> = []
  const failovers: Array<number> = []
  try {
    const leader = await leaderPid(c.db.database)
    const subscribers = await Promise.all(c.replicas.map(async (r) => ({ replica: r, s: await subscribe(r) })))
    await waitUntil("first events", async () => subscribers.every((x) => x.s.versions.length > 0) || undefined)
    const rounds = options.quick ? 4 : 10
    for (let i = 0; i < rounds; i++) {
      const before = subscribers.map((x) => x.s.versions.length)
      const t0 = performance.now()
      await toggleRoute(c.db.url, c.route.routeId, i % 2 === 0)
      await waitUntil(
        "the change everywhere",
        async () => subscribers.every((x, k) => x.s.versions.length > before[k]!) || undefined
      )
      // the subscribers timestamp each event as it is parsed
      subscribers.forEach((x, k) => {
        ;(x.replica.child.pid === leader[0] ? same : cross).push(x.s.times[before[k]!]! - t0)
      })
      await new Promise((r) => setTimeout(r, 300))
    }
    log(`publication latency over ${rounds} changes measured`)

    // failover: kill the leader, wait for the next version on a survivor
    const rounds2 = options.quick ? 1 : 3
    let live = [...c.replicas]
    let subs = subscribers
    for (let i = 0; i < rounds2; i++) {
      const [pid] = await leaderPid(c.db.database)
      const victim = live.find((r) => r.child.pid === pid)!
      const survivors = subs.filter((x) => x.replica !== victim)
      const before = survivors.map((x) => x.s.versions.at(-1)!)
      const t0 = performance.now()
      victim.child.kill("SIGKILL")
      await victim.exit
      await waitUntil(
        "a new version on every survivor",
        async () => survivors.every((x, k) => x.s.versions.at(-1)! > before[k]!) || undefined,
        30_000
      )
      failovers.push(performance.now() - t0)
      await subs.find((x) => x.replica === victim)!.s.close()
      rmSync(victim.dataDir, { recursive: true, force: true })
      // bring the count back to three for the next round
      const fresh = await startReplica(c.db.url, `f${i + 1}`)
      live = [...live.filter((r) => r !== victim), fresh]
      subs = [...survivors, { replica: fresh, s: await subscribe(fresh) }]
      c.replicas.splice(0, c.replicas.length, ...live)
    }
    log(`failover measured ${rounds2} time(s)`)
    await Promise.all(subs.map((x) => x.s.close()))
  } finally {
    await c.stop()
  }

  const base = throughput[0]!.perSecond
  const results = {
    seconds,
    concurrency: width,
    throughput: throughput.map((t) => ({ ...t, ratio: Math.round((t.perSecond / base) * 100) / 100 })),
    publicationLatencyMs: {
      sameReplicaMedian: Math.round(median(same)),
      crossReplicaMedian: Math.round(median(cross)),
      crossOverSame: Math.round((median(cross) / median(same)) * 100) / 100,
      samples: { same: same.length, cross: cross.length }
    },
    failoverMs: { median: Math.round(median(failovers)), max: Math.round(Math.max(...failovers)), n: failovers.length }
  }
  const text = [
    `replicas of svc serve on one PostgreSQL database (fresh database per run; ${width} requests in flight, round-robin; load generator on the same machine)`,
    "",
    "permit throughput (distinct requests, 201s per second):",
    ...results.throughput.map((t) =>
      `  ${t.replicas} replica(s): ${t.perSecond}/s (${t.permits} in ${seconds} s, ${t.errors} errors) = ${t.ratio}× one replica`
    ),
    "",
    `publication latency, store write + announcement -> feed event (median of ${same.length} and ${cross.length}):`,
    `  same replica (the leader's subscriber): ${results.publicationLatencyMs.sameReplicaMedian} ms`,
    `  cross replica (the followers' subscribers): ${results.publicationLatencyMs.crossReplicaMedian} ms = ${results.publicationLatencyMs.crossOverSame}× same replica`,
    "",
    `failover, SIGKILL of the leader -> next version on every surviving replica's stream: median ${results.failoverMs.median} ms, max ${results.failoverMs.max} ms over ${failovers.length}`
  ].join("\n")
  return { text, results }
}
