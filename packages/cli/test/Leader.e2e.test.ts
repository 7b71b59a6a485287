/**
 * A frozen leader keeps no settlement: two replicas of `svc serve` on one
 * PostgreSQL database settle on `svc devnet`'s chains (the devnet runs its
 * chains only). The leader is stopped with SIGSTOP (it keeps its sessions, as a
 * frozen process does); the other replica takes the lease over and pays a new
 * fill; the leader, resumed, sees it lost the lease and sends nothing: every
 * fill is paid exactly once and the payout key sent one transaction per fill.
 * Payouts paused with `svc admin` on the shared database stay paused on every
 * replica: a new leader (the old one frozen) pays nothing until they resume.
 */
import { createClient } from "@svc/client"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, request as httpRequest } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { scaled } from "../../../test/support/time.ts"
import { freshDatabase, leaderPid, type Replica, startReplica } from "../../server/test/support/replicas.ts"
import * as Devnet from "../src/Devnet.ts"
import { nonceOf, payout, payoutsOf, permitFor, waitUntil } from "./support/devnet.ts"
import { svc } from "./support/svc.ts"

let devnet: Devnet.Devnet
let dataDir: string
let database: Awaited<ReturnType<typeof freshDatabase>>
const replicas: Array<Replica> = []
/** The replicas' load balancer (their shared public URL). */
let lb: Awaited<ReturnType<typeof balancer>> | undefined

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-leader-"))
  devnet = await Devnet.start({ dataDir, finalityBlocks: 2, server: false })
  database = await freshDatabase("leader")
  // started here, not in a test: a process a test starts is stopped when that test ends
  lb = await balancer()
  const env = { ...devnet.serverEnv, SVC_LOG_LEVEL: "info", SVC_PUBLIC_URL: lb.url }
  replicas.push(await startReplica(database.url, "a", env), await startReplica(database.url, "b", env))
}, scaled(180_000))

afterAll(async () => {
  lb?.close()
  for (const r of replicas) {
    r.child.kill("SIGCONT")
    r.child.kill("SIGKILL")
  }
  await devnet?.stop()
  await database?.drop()
  rmSync(dataDir, { recursive: true, force: true })
})

/** The replicas' load balancer (their shared public URL): forwards to the replica the test points it at. */
const balancer = async () => {
  const state = { target: "" }
  const server = createServer((req, res) => {
    const target = new URL(state.target)
    const out = httpRequest({
      host: target.hostname,
      port: target.port,
      path: req.url,
      method: req.method,
      headers: { ...req.headers, host: target.host },
      // a connection per request: a pooled one the replica closed while idle would fail the next request
      agent: false
    }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    out.on("error", () => res.destroy())
    req.pipe(out)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    point: (url: string) => {
      state.target = url
    },
    close: () => {
      server.closeAllConnections()
      server.close()
    }
  }
}

/** The replica that holds the leadership lease now. */
const leaderOf = async () => {
  const pids = await leaderPid(database.database)
  return replicas.find((r) => pids.includes(r.child.pid!))
}

/** `svc admin ARGS` on the replicas' shared database: its JSON answer. */
const adminOnDatabase = async (...args: Array<string>) => {
  const ran = await svc(["admin", ...args], {
    env: { ...devnet.serverEnv, DATABASE_URL: database.url, SVC_LOG_LEVEL: "none" }
  })
  if (ran.code !== 0) throw new Error(`svc admin ${args.join(" ")}: ${ran.code}: ${ran.stderr}`)
  return JSON.parse(ran.stdout)
}

const paid = (server: string, fillId: string) => async () => {
  const p = await createClient({ baseUrl: server }).permits.get(fillId)
  return p.state === "PAID" ? p : undefined
}

describe("settlement across replicas", () => {
  it(
    "a leader frozen with SIGSTOP: the other replica takes over and pays; resumed, the old leader sends nothing",
    async () => {
      const destination = devnet.info.chains[1]!
      const front = lb!
      const leader = await waitUntil("a leader", leaderOf)
      const follower = replicas.find((r) => r !== leader)!
      front.point(follower.url)
      const nonceBefore = await nonceOf(destination, payout.address, "latest")

      const first = await permitFor(devnet, 1n, { server: front.url })
      await first.fill()
      await waitUntil("the first fill PAID", paid(front.url, first.issued.fillId), 60_000)

      leader.child.kill("SIGSTOP")
      const frozenAt = Date.now()
      try {
        const second = await permitFor(devnet, 1n, { server: front.url })
        await second.fill()
        await waitUntil("the follower leads", async () => ((await leaderOf()) === follower ? true : undefined), 30_000)
        await waitUntil("the second fill PAID by the new leader", paid(front.url, second.issued.fillId), 60_000)
        const took = Date.now() - frozenAt
        // the lease (5 s) and a check, then confirmations and the payout's finality on 1 s blocks
        expect(took).toBeLessThan(scaled(30_000))
        leader.child.kill("SIGCONT")
        await waitUntil(
          "the resumed replica says it no longer leads",
          async () => /no longer leads/.test(leader.stderr()) ? true : undefined,
          30_000
        )
        await new Promise((r) => setTimeout(r, scaled(5_000)))
        for (const fill of [first, second]) expect(await payoutsOf(destination, fill.issued.fillId)).toHaveLength(1)
        // one payout transaction per fill: the resumed replica sent nothing
        expect(await nonceOf(destination, payout.address, "latest")).toBe(nonceBefore + 2)
        expect(await nonceOf(destination, payout.address, "pending")).toBe(nonceBefore + 2)
      } finally {
        leader.child.kill("SIGCONT")
      }
    },
    scaled(240_000)
  )

  it(
    "payouts paused with svc admin on the shared database: no replica pays, the leader changed or not; resumed, paid once",
    async () => {
      const destination = devnet.info.chains[1]!
      const front = lb!
      await adminOnDatabase("payouts", "pause", "bsc", "--reason", "incident on 56")
      try {
        const nonceBefore = await nonceOf(destination, payout.address, "latest")
        const fill = await permitFor(devnet, 1n, { server: front.url })
        const fillId = fill.issued.fillId
        await fill.fill()
        const waiting = async () =>
          (await adminOnDatabase("permit", fillId)).reasonCodes.includes("PAYOUTS_PAUSED") ? true : undefined
        await waitUntil("the fill waits, paused", waiting, 60_000)
        // the leader is frozen: the replica that takes over honours the pause too
        const leader = await waitUntil("a leader", leaderOf)
        const other = replicas.find((r) => r !== leader)!
        front.point(other.url)
        leader.child.kill("SIGSTOP")
        try {
          await waitUntil(
            "the other replica leads",
            async () => ((await leaderOf()) === other ? true : undefined),
            30_000
          )
          // a few passes of the new leader
          await new Promise((r) => setTimeout(r, scaled(5_000)))
          const record = await adminOnDatabase("permit", fillId)
          expect(record.state).toBe("SOURCE_CONFIRMED")
          expect(record.reasonCodes).toContain("PAYOUTS_PAUSED")
          expect(await nonceOf(destination, payout.address, "pending")).toBe(nonceBefore)
        } finally {
          leader.child.kill("SIGCONT")
        }
        await adminOnDatabase("payouts", "resume", "bsc")
        await waitUntil("PAID once resumed", paid(front.url, fillId), 60_000)
        expect(await payoutsOf(destination, fillId)).toHaveLength(1)
        expect(await nonceOf(destination, payout.address, "latest")).toBe(nonceBefore + 1)
      } finally {
        await adminOnDatabase("payouts", "resume", "bsc")
      }
    },
    scaled(240_000)
  )
})
