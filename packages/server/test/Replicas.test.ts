/**
 * Three `svc serve` processes on one fresh PostgreSQL database: one leads
 * (publishes, settles), the others serve its publications byte for byte.
 * Idempotency, permits and publications hold across replicas; an operator
 * change reaches every subscriber; a leader killed with SIGKILL is replaced and
 * the next version reaches subscribers everywhere; dataVersion only grows.
 */
import { Signature } from "@svc/protocol"
import { execFileSync } from "node:child_process"
import { rmSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { scaled } from "../../../test/support/time.ts"
import {
  admin,
  bin,
  env,
  freshDatabase,
  leaderPid as leaderOf,
  nodeBin,
  pool,
  post,
  type Replica,
  signedRequest,
  startReplica,
  subscribe,
  waitUntil
} from "./support/replicas.ts"
import { AUTHORITY_KEY } from "./support/server.ts"

let db: Awaited<ReturnType<typeof freshDatabase>>
const leaderPid = () => leaderOf(db.database)
let replicas: Array<Replica> = []

beforeAll(async () => {
  db = await freshDatabase("replicas")
  // the three start at once: one migrates the database, the others wait for it
  replicas = await Promise.all(["r1", "r2", "r3"].map((name) => startReplica(db.url, name)))
}, scaled(90_000))

afterAll(async () => {
  for (const r of replicas) {
    r.child.kill("SIGKILL")
    await r.exit.catch(() => undefined)
    rmSync(r.dataDir, { recursive: true, force: true })
  }
  await db?.drop()
})

describe("three replicas on one PostgreSQL database", () => {
  it("one leads; every replica serves the leader's publication byte for byte", async () => {
    const pids = await waitUntil("a leader", async () => {
      const p = await leaderPid()
      return p.length === 1 ? p : undefined
    })
    expect(replicas.map((r) => r.child.pid)).toContain(pids[0])
    const bodies = await waitUntil("the same publication everywhere", async () => {
      const texts = await Promise.all(replicas.map(async (r) => (await fetch(`${r.url}/api/v6/solver-feed`)).text()))
      return texts.every((t) => t === texts[0]) && JSON.parse(texts[0]!).ok === true ? texts : undefined
    })
    expect(JSON.parse(bodies[0]!).feed.feedSigner.toLowerCase()).toBe(Signature.addressOf(AUTHORITY_KEY).toLowerCase())
  }, scaled(30_000))

  it("300 identical permit requests over the three replicas: one 201, 299 replays of the same permit", async () => {
    const feed = await (await fetch(`${replicas[0]!.url}/api/v6/solver-feed`)).json() as any
    const route = feed.feed.openRoutes[0]
    const body = signedRequest(route.quoteId, route.minimumFillInRaw, "replicas-same-key-0001")
    const results = await pool(Array.from({ length: 300 }, (_, i) => () => post(replicas[i % 3]!, body)), 30)
    const statuses = results.map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 200)).toHaveLength(299)
    const first = results.find((r) => r.status === 201)!.body.permit
    for (const r of results) expect(r.body.permit).toEqual(first)
  }, scaled(120_000))

  it("300 distinct permit requests: 300 permits, each readable from every replica", async () => {
    const feed = await (await fetch(`${replicas[1]!.url}/api/v6/solver-feed`)).json() as any
    const route = feed.feed.openRoutes[0]
    const results = await pool(
      Array.from(
        { length: 300 },
        (_, i) => () =>
          post(replicas[i % 3]!, signedRequest(route.quoteId, route.minimumFillInRaw, `replicas-distinct-${i}`))
      ),
      30
    )
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 300 }, () => 201))
    const fillIds = new Set(results.map((r) => r.body.permit.fillId))
    expect(fillIds.size).toBe(300)
    const reads = await pool(
      results.flatMap((r) =>
        replicas.map((replica) => async () => {
          const response = await fetch(`${replica.url}/api/v6/execution-permits/${r.body.permit.fillId}`)
          return {
            status: response.status,
            same: JSON.stringify((await response.json() as any).permit) === JSON.stringify(r.body.permit)
          }
        })
      ),
      30
    )
    expect(reads.every((r) => r.status === 200 && r.same)).toBe(true)
    // the holds are exact: each asset holds the sum of its issued permits' amountOut, no more, no less
    const rows = await admin(
      (sql) =>
        sql<{ readonly asset_key: string; readonly hold: string; readonly issued: string | null }>`
        SELECT i.asset_key, i.hold_raw AS hold,
          (SELECT CAST(SUM(CAST(p.amount_out_raw AS NUMERIC)) AS TEXT) FROM permits p
            WHERE p.asset_key = i.asset_key AND p.state = 'ISSUED') AS issued
        FROM inventory i`,
      db.url
    )
    expect(rows.filter((r) => r.hold !== "0").length).toBeGreaterThan(0)
    for (const r of rows) expect(r.hold, r.asset_key).toBe(r.issued ?? "0")
  }, scaled(180_000))

  it("an operator pause closes the feed on every replica; resume opens it again", async () => {
    const run = (...args: Array<string>) =>
      execFileSync(nodeBin, [bin, "admin", ...args], { env: env(db.url, replicas[0]!.dataDir), encoding: "utf8" })
    const statuses = () => Promise.all(replicas.map(async (r) => (await fetch(`${r.url}/api/v6/solver-feed`)).status))
    run("pause", "--reason", "replicas test")
    await waitUntil("503 everywhere", async () => (await statuses()).every((s) => s === 503) || undefined)
    const body = await (await fetch(`${replicas[2]!.url}/api/v6/solver-feed`)).json() as any
    expect(body).toMatchObject({ ok: false, error: "PUBLICATION_CLOSED" })
    run("resume")
    await waitUntil("200 everywhere", async () => (await statuses()).every((s) => s === 200) || undefined)
  }, scaled(60_000))

  it(
    "an operator route change reaches a subscriber on every replica; a killed leader is replaced and its successor's version reaches subscribers everywhere; dataVersion only grows",
    async () => {
      const subscribers = await Promise.all(replicas.map(subscribe))
      try {
        await waitUntil(
          "a first feed event everywhere",
          async () => subscribers.every((s) => s.versions.length > 0) || undefined
        )
        const feed = await (await fetch(`${replicas[0]!.url}/api/v6/solver-feed`)).json() as any
        const routeId: string = feed.feed.openRoutes[0].routeId
        // the operator changes a route through the shared database (svc admin), the leader republishes
        execFileSync(nodeBin, [bin, "admin", "route", routeId, "PAUSED"], {
          env: env(db.url, replicas[0]!.dataDir),
          encoding: "utf8"
        })
        const paused = (f: any) =>
          f.signedPayload.routes.find((r: any) => r.routeId === routeId)?.executionStatus === "PAUSED"
        await waitUntil(
          "the paused route on every replica's stream",
          async () => subscribers.every((s) => s.feeds.some(paused)) || undefined
        ).catch((e) => {
          throw new Error(
            `${e.message}: ${subscribers.map((s) => s.versions.join(",")).join(" | ")}\n${
              replicas.map((r) => r.stderr()).join("\n")
            }`
          )
        })

        // kill -9 the leader
        const [pid] = await leaderPid()
        const leader = replicas.find((r) => r.child.pid === pid)!
        const survivors = replicas.filter((r) => r !== leader)
        const survivorSubscribers = subscribers.filter((_, i) => replicas[i] !== leader)
        const before = survivorSubscribers.map((s) => s.versions.at(-1)!)
        const killedAt = Date.now()
        leader.child.kill("SIGKILL")
        await leader.exit
        const [newPid] = await waitUntil("a new leader", async () => {
          const p = await leaderPid()
          return p.length === 1 && p[0] !== pid ? p : undefined
        })
        expect(survivors.map((r) => r.child.pid)).toContain(newPid)
        await waitUntil(
          "the new leader's version on every surviving replica's stream",
          async () => survivorSubscribers.every((s, i) => s.versions.at(-1)! > before[i]!) || undefined
        )
        const failoverMs = Date.now() - killedAt
        // within 10 s on a quiet machine
        expect(failoverMs).toBeLessThan(scaled(10_000))

        // every subscriber saw strictly increasing versions; the survivors agree on the newest one
        for (const s of subscribers) {
          for (let i = 1; i < s.versions.length; i++) expect(s.versions[i]! > s.versions[i - 1]!).toBe(true)
        }
        const newest = await Promise.all(
          survivors.map(async (r) =>
            BigInt((await (await fetch(`${r.url}/api/v6/solver-feed`)).json() as any).feed.dataVersion)
          )
        )
        expect(newest[0]).toBe(newest[1])
        replicas = replicas.filter((r) => r !== leader)
      } finally {
        await Promise.all(subscribers.map((s) => s.close()))
      }
    },
    scaled(90_000)
  )
})
