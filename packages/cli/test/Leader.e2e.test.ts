/**
 * A frozen leader keeps no settlement: two replicas of `svc serve` on one
 * PostgreSQL database settle on `svc devnet`'s chains (the devnet runs its
 * chains only). The leader is stopped with SIGSTOP (it keeps its sessions, as a
 * frozen process does); the other replica takes the lease over and pays a new
 * fill; the leader, resumed, sees it lost the lease and sends nothing: every
 * fill is paid exactly once and the payout key sent one transaction per fill.
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

let devnet: Devnet.Devnet
let dataDir: string
let database: Awaited<ReturnType<typeof freshDatabase>>
const replicas: Array<Replica> = []

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-leader-"))
  devnet = await Devnet.start({ dataDir, finalityBlocks: 2, server: false })
  database = await freshDatabase("leader")
}, scaled(180_000))

afterAll(async () => {
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
      headers: { ...req.headers, host: target.host }
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

const paid = (server: string, fillId: string) => async () => {
  const p = await createClient({ baseUrl: server }).permits.get(fillId)
  return p.state === "PAID" ? p : undefined
}

describe("settlement across replicas", () => {
  it(
    "a leader frozen with SIGSTOP: the other replica takes over and pays; resumed, the old leader sends nothing",
    async () => {
      const destination = devnet.info.chains[1]!
      const lb = await balancer()
      const env = { ...devnet.serverEnv, SVC_LOG_LEVEL: "info", SVC_PUBLIC_URL: lb.url }
      replicas.push(await startReplica(database.url, "a", env), await startReplica(database.url, "b", env))
      const leaderOf = async () => {
        const pids = await leaderPid(database.database)
        return replicas.find((r) => pids.includes(r.child.pid!))
      }
      const leader = await waitUntil("a leader", leaderOf)
      const follower = replicas.find((r) => r !== leader)!
      lb.point(follower.url)
      const nonceBefore = await nonceOf(destination, payout.address, "latest")

      const first = await permitFor(devnet, 1n, { server: lb.url })
      await first.fill()
      await waitUntil("the first fill PAID", paid(lb.url, first.issued.fillId), 60_000)

      leader.child.kill("SIGSTOP")
      const frozenAt = Date.now()
      try {
        const second = await permitFor(devnet, 1n, { server: lb.url })
        await second.fill()
        await waitUntil("the follower leads", async () => ((await leaderOf()) === follower ? true : undefined), 30_000)
        await waitUntil("the second fill PAID by the new leader", paid(lb.url, second.issued.fillId), 60_000)
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
        lb.close()
      }
    },
    scaled(240_000)
  )
})
