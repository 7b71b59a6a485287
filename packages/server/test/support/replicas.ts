/**
 * Replicas of `svc serve` on one fresh PostgreSQL database, for the replicas
 * test and `npm run bench -- replicas`: start and kill processes, find the
 * leader from PostgreSQL's own view, subscribe to event streams without ever
 * dropping an event, send permit requests.
 */
import { PgClient } from "@effect/sql-pg"
import { PermitMessage, Signature } from "@svc/protocol"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { scaled } from "../../../../test/support/time.ts"
import { AUTHORITY_KEY, PAYER_KEY } from "./server.ts"

const root = fileURLToPath(new URL("../../../../", import.meta.url))
export const nodeBin = join(root, "node_modules/.bin/node")
export const bin = join(root, "packages/cli/src/bin.ts")
const BASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

const SECRET = "replicas-test-secret-0123456789abcdef"

/** Statements on a database (default: the server's maintenance database). */
export const admin = <A>(f: (sql: PgClient.PgClient) => Effect.Effect<A, unknown>, url = BASE_URL) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(
      Effect.provide(Reactivity.layer)
    )
    return yield* f(sql)
  })))

export interface Replica {
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

export const env = (databaseUrl: string, dataDir: string, port = 0) => ({
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
  // the tests and the bench send hundreds of requests from one address
  SVC_MAX_CONNECTIONS_PER_CLIENT: "1000",
  // a database kept busy by three replicas on a loaded machine is slow, not stalled (the default bound is 1 s)
  SVC_STORE_TIMEOUT_MS: String(Math.min(scaled(2000), 10_000)),
  SVC_LOG_LEVEL: "warning",
  // the replicas share rate limits in Redis, under a prefix of this run's own
  REDIS_URL: process.env.SVC_TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
  SVC_REDIS_PREFIX: `svc-test:${new URL(databaseUrl).pathname.slice(1)}:`
})

export const startReplica = async (
  databaseUrl: string,
  name: string,
  extraEnv: Record<string, string> = {}
): Promise<Replica> => {
  const port = await freePort()
  return new Promise((resolve, reject) => {
    const dataDir = mkdtempSync(join(tmpdir(), `svc-replica-${name}-`))
    const base: Record<string, string | undefined> = env(databaseUrl, dataDir, port)
    // a keystore given (the devnet's) takes the place of the raw key: svc serve refuses both
    if (extraEnv["SVC_SIGNER_KEYSTORE"] !== undefined) delete base["SVC_SIGNER_KEY"]
    const child = spawn(nodeBin, [bin, "serve"], {
      env: { ...base, ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"]
    })
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
    setTimeout(() => reject(new Error(`replica ${name} did not start: ${out} ${err}`)), scaled(30_000)).unref()
  })
}

/**
 * The pid of the replica that leads: the holder (`<host>:<pid>:<nonce>`) of the unexpired leadership lease,
 * a row of `svc_leases` in the replicas' database (PgCoordination); none before the table exists.
 */
export const leaderPid = (database: string) => {
  const url = new URL(BASE_URL)
  url.pathname = `/${database}`
  return admin((sql) =>
    Effect.map(
      sql<{ readonly holder: string }>`SELECT holder FROM svc_leases WHERE expires_at > clock_timestamp()`,
      (rows) => rows.map((r) => Number(r.holder.split(":").at(-2)))
    ).pipe(Effect.orElseSucceed(() => [] as Array<number>)), url.toString())
}

/** Polls `f` until it gives a value; fails after `timeoutMs` (15 s, scaled: a bound on a wait). */
export const waitUntil = async <A>(
  what: string,
  f: () => Promise<A | undefined>,
  timeoutMs = scaled(15_000)
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await f()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Runs `tasks` with at most `width` in flight. */
export const pool = async <A>(tasks: ReadonlyArray<() => Promise<A>>, width: number): Promise<Array<A>> => {
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
export const subscribe = async (replica: Replica) => {
  const response = await fetch(`${replica.url}/api/v6/solver-feed/events`)
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const versions: Array<bigint> = []
  const feeds: Array<any> = []
  /** performance.now() when each feed event was parsed. */
  const times: Array<number> = []
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
          times.push(performance.now())
          versions.push(BigInt(field("id")!))
          feeds.push(JSON.parse(field("data")!))
        }
      }
    }
  })()
  return {
    versions,
    feeds,
    times,
    close: async () => {
      await reader.cancel().catch(() => undefined)
      await done
    }
  }
}

const payer = Signature.addressOf(PAYER_KEY)
export const signedRequest = (quoteId: string, amount: string, key: string) => {
  const request = {
    quoteId,
    requestedAmountInRaw: amount,
    payer,
    recipient: "0x2222222222222222222222222222222222222222",
    idempotencyKey: key
  }
  return JSON.stringify({ ...request, requestSignature: PermitMessage.sign(PermitMessage.build(request), PAYER_KEY) })
}
export const post = async (replica: Replica, body: string) => {
  const response = await fetch(`${replica.url}/api/v6/execution-permits`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body
  })
  return { status: response.status, body: await response.json() as any }
}

/** A fresh database on the server of DATABASE_URL (default the local test server); drop it when done. */
export const freshDatabase = async (label: string) => {
  const database = `svc_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  await admin((sql) => sql.unsafe(`CREATE DATABASE ${database}`))
  const u = new URL(BASE_URL)
  u.pathname = `/${database}`
  return {
    database,
    url: u.toString(),
    drop: () => admin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).catch(() => undefined)
  }
}
