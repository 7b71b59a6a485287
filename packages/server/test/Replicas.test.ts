/**
 * Three `svc serve` processes on one fresh PostgreSQL database: one leads
 * (publishes, settles), the others serve its publications byte for byte.
 * Idempotency, permits and publications hold across replicas; an operator
 * change reaches every subscriber; a leader killed with SIGKILL is replaced and
 * the next version reaches subscribers everywhere; dataVersion only grows.
 */
import { PgClient } from "@effect/sql-pg"
import { PermitMessage, Signature } from "@svc/protocol"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AUTHORITY_KEY, PAYER_KEY } from "./support/server.ts"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const nodeBin = join(root, "node_modules/.bin/node")
const bin = join(root, "packages/cli/src/bin.ts")
const BASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const database = `svc_replicas_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
const databaseUrl = (() => {
  const u = new URL(BASE_URL)
  u.pathname = `/${database}`
  return u.toString()
})()
const SECRET = "replicas-test-secret-0123456789abcdef"

/** One statement on the server's maintenance database. */
const admin = <A>(f: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const sql = yield* PgClient.make({ url: Redacted.make(BASE_URL), maxConnections: 1 }).pipe(
      Effect.provide(Reactivity.layer)
    )
    return yield* f(sql)
  })))

interface Replica {
  readonly name: string
  readonly child: ChildProcess
  readonly url: string
  readonly exit: Promise<number | null>
  readonly dataDir: string
  /** What the replica logged (JSON lines on stderr), for failure messages. */
  readonly stderr: () => string
}

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const env = (dataDir: string, port = 0) => ({
  ...process.env,
  PORT: String(port),
  HOST: "127.0.0.1",
  DATABASE_URL: databaseUrl,
  SVC_DATA_DIR: dataDir,
  SVC_SIGNER_KEY: AUTHORITY_KEY,
  SVC_SERVER_SECRET: SECRET,
  // behind one load balancer: one public URL (it is in the served feed)
  SVC_PUBLIC_URL: "https://svc.replicas.test",
  SVC_PERMIT_RATE_LIMIT: "100000",
  SVC_AGGREGATOR_RATE_LIMIT: "100000",
  SVC_LOG_LEVEL: "warning"
})

const startReplica = async (name: string): Promise<Replica> => {
  const port = await freePort()
  return new Promise((resolve, reject) => {
    const dataDir = mkdtempSync(join(tmpdir(), `svc-replica-${name}-`))
    const child = spawn(nodeBin, [bin, "serve"], { env: env(dataDir, port), stdio: ["ignore", "pipe", "pipe"] })
    const exit = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    let out = ""
    let err = ""
    // the last 64 KiB of the log, for failure messages
    child.stderr!.on("data", (d) => (err = (err + d).slice(-65_536)))
    child.stdout!.on("data", (d) => {
      out += d
      // the line names the shared public URL; requests go to this replica's own port
      if (out.includes("svc listening on")) {
        resolve({
          name,
          child,
          url: `http://127.0.0.1:${port}`,
          exit,
          dataDir,
          stderr: () => err
        })
      }
    })
    exit.then((code) => reject(new Error(`replica ${name} exited ${code}: ${err}`)))
    setTimeout(() => reject(new Error(`replica ${name} did not start: ${out} ${err}`)), 30_000)
  })
}

/** The pid of the process holding the leader's advisory lock, from PostgreSQL's own view. */
const leaderPid = () =>
  admin((sql) =>
    Effect.map(
      sql<{ readonly application_name: string }>`SELECT a.application_name FROM pg_locks l
        JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND a.datname = ${database}
          AND a.application_name LIKE 'svc-leader %'`,
      (rows) => rows.map((r) => Number(r.application_name.slice(r.application_name.lastIndexOf(":") + 1)))
    )
  )

const waitUntil = async <A>(what: string, f: () => Promise<A | undefined>, timeoutMs = 15_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await f()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Runs `tasks` with at most `width` in flight. */
const pool = async <A>(tasks: ReadonlyArray<() => Promise<A>>, width: number): Promise<Array<A>> => {
  const results: Array<A> = Array.from({ length: tasks.length })
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < tasks.length) {
      const i = next++
      results[i] = await tasks[i]!()
    }
  }))
  return results
}

/**
 * A subscriber: one read loop over the event stream (no read is ever abandoned,
 * so no event is lost), collecting every feed event's dataVersion (the SSE id)
 * and payload.
 */
const subscribe = async (replica: Replica) => {
  const response = await fetch(`${replica.url}/api/v6/solver-feed/events`)
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const versions: Array<bigint> = []
  const feeds: Array<any> = []
  const done = (async () => {
    let buffer = ""
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }))
      if (chunk.done) return
      buffer += decoder.decode(chunk.value, { stream: true })
      for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const field = (name: string) =>
          block.split("\n").find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim()
        if (field("event") === "feed") {
          versions.push(BigInt(field("id")!))
          feeds.push(JSON.parse(field("data")!))
        }
      }
    }
  })()
  return {
    versions,
    feeds,
    close: async () => {
      await reader.cancel().catch(() => undefined)
      await done
    }
  }
}

const payer = Signature.addressOf(PAYER_KEY)
const signedRequest = (quoteId: string, amount: string, key: string) => {
  const request = {
    quoteId,
    requestedAmountInRaw: amount,
    payer,
    recipient: "0x2222222222222222222222222222222222222222",
    idempotencyKey: key
  }
  return JSON.stringify({ ...request, requestSignature: PermitMessage.sign(PermitMessage.build(request), PAYER_KEY) })
}
const post = async (replica: Replica, body: string) => {
  const response = await fetch(`${replica.url}/api/v6/execution-permits`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body
  })
  return { status: response.status, body: await response.json() as any }
}

let replicas: Array<Replica> = []

beforeAll(async () => {
  await admin((sql) => sql.unsafe(`CREATE DATABASE ${database}`))
  // the first replica migrates the database; the others start against it at the same time
  replicas = await Promise.all(["r1", "r2", "r3"].map(startReplica))
}, 90_000)

afterAll(async () => {
  for (const r of replicas) {
    r.child.kill("SIGKILL")
    await r.exit.catch(() => undefined)
    rmSync(r.dataDir, { recursive: true, force: true })
  }
  await admin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).catch(() => undefined)
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
  }, 30_000)

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
  }, 120_000)

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
  }, 180_000)

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
          env: env(replicas[0]!.dataDir),
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
        expect(failoverMs).toBeLessThan(10_000)

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
    90_000
  )
})
