/**
 * Several RPC endpoints of one chain, over real HTTP servers that answer
 * JSON-RPC as configured: requests stick to one endpoint while it answers; one
 * that refuses connections, times out or answers HTTP errors is failed over
 * (and set aside); a node's JSON-RPC error is an answer, not retried elsewhere;
 * on a switch, an endpoint whose head lags is passed over while another is up
 * to date; an endpoint set aside is health-checked once rested; a provider that refuses a large `eth_getLogs` range gets smaller ones.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { createPublicClient, type PublicClient } from "viem"
import { reader } from "../src/EvmSettlement.ts"
import { endpoints } from "../src/internal/endpoints.ts"

interface Fake {
  readonly url: string
  /** answer: a result, a JSON-RPC error, an HTTP status, or hang (never answer) */
  mode: "ok" | "rpc-error" | "http-500" | "hang"
  head: number
  readonly calls: Array<{ method: string; params: ReadonlyArray<unknown> }>
  /** eth_getLogs ranges wider than this are refused as providers do */
  maxLogRange: number
  readonly server: Server
}

const fake = (head: number): Promise<Fake> =>
  new Promise((resolve) => {
    const state = { mode: "ok", head, calls: [], maxLogRange: Number.POSITIVE_INFINITY } as unknown as Fake
    const server = createServer((req, res) => {
      let body = ""
      req.on("data", (c) => (body += c)).on("end", () => {
        const call = JSON.parse(body) as { id: number; method: string; params: ReadonlyArray<unknown> }
        state.calls.push({ method: call.method, params: call.params })
        const reply = (payload: object) => {
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify({ jsonrpc: "2.0", id: call.id, ...payload }))
        }
        if (state.mode === "hang") return
        if (state.mode === "http-500") {
          res.writeHead(500)
          res.end("upstream down")
          return
        }
        if (state.mode === "rpc-error") return reply({ error: { code: 3, message: "execution reverted" } })
        switch (call.method) {
          case "eth_blockNumber":
            return reply({ result: `0x${state.head.toString(16)}` })
          case "eth_chainId":
            return reply({ result: "0x1" })
          case "eth_getLogs": {
            const filter = call.params[0] as { fromBlock: string; toBlock: string }
            const span = Number(BigInt(filter.toBlock) - BigInt(filter.fromBlock)) + 1
            if (span > state.maxLogRange) {
              return reply({ error: { code: -32005, message: "query returned more than 10000 results" } })
            }
            return reply({ result: [] })
          }
          default:
            return reply({ error: { code: -32601, message: `method ${call.method} not found` } })
        }
      })
    })
    server.listen(0, "127.0.0.1", () => {
      Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })
      resolve(state)
    })
  })

const stop = (f: Fake) =>
  new Promise<void>((resolve) => {
    f.server.closeAllConnections()
    f.server.close(() => resolve())
  })

const withFakes = <A>(heads: ReadonlyArray<number>, f: (fakes: ReadonlyArray<Fake>) => Promise<A>) =>
  Effect.promise(async () => {
    const fakes = await Promise.all(heads.map(fake))
    try {
      return await f(fakes)
    } finally {
      await Promise.all(fakes.map(stop))
    }
  })

const clientOver = (urls: ReadonlyArray<string>, timeoutMillis = 500, restMillis = 60_000) => {
  const set = endpoints(urls, { timeoutMillis, restMillis })
  return { set, client: createPublicClient({ transport: set.transport }) as PublicClient }
}

const DEAD = "http://127.0.0.1:9" // nothing listens on the discard port here: connection refused

describe("several RPC endpoints", () => {
  it.live("requests stick to the first endpoint while it answers", () =>
    withFakes([10, 10], async ([a, b]) => {
      const { client, set } = clientOver([a!.url, b!.url])
      for (let i = 0; i < 3; i++) assert.strictEqual(await client.getBlockNumber({ cacheTime: 0 }), 10n)
      assert.strictEqual(a!.calls.length, 3)
      assert.strictEqual(b!.calls.length, 0)
      assert.deepStrictEqual(set.status().map((e) => [e.up, e.primary]), [[true, true], [null, false]])
    }))

  it.live("a refused, a timed-out and an HTTP-500 endpoint are failed over; the failed one is set aside", () =>
    withFakes([10, 10], async ([hanging, good]) => {
      hanging!.mode = "hang"
      const { client, set } = clientOver([DEAD, hanging!.url, good!.url], 300)
      assert.strictEqual(await client.getBlockNumber({ cacheTime: 0 }), 10n)
      const status = set.status()
      assert.deepStrictEqual(status.map((e) => e.up), [false, false, true])
      assert.deepStrictEqual(status.map((e) => e.failures), [1, 1, 0])
      assert.isTrue(status[2]!.primary)
      // set aside: the next request goes straight to the one that answered
      await client.getBlockNumber({ cacheTime: 0 })
      assert.deepStrictEqual(set.status().map((e) => e.failures), [1, 1, 0])
      good!.mode = "http-500"
      await client.getBlockNumber({ cacheTime: 0 }).catch(() => undefined)
      assert.strictEqual(set.status()[2]!.failures, 1)
    }))

  it.live("an endpoint set aside is health-checked after its cool-down: down while it fails, up once it answers", () =>
    withFakes([10, 10], async ([a, b]) => {
      a!.mode = "http-500"
      const { client, set } = clientOver([a!.url, b!.url], 500, 50)
      assert.strictEqual(await client.getBlockNumber({ cacheTime: 0 }), 10n)
      assert.deepStrictEqual(set.status().map((e) => [e.up, e.primary]), [[false, false], [true, true]])
      // still failing after its rest: checked, still down, set aside again
      await new Promise((r) => setTimeout(r, 80))
      await set.check()
      assert.deepStrictEqual(set.status().map((e) => [e.up, e.failures]), [[false, 2], [true, 0]])
      // answering again: up after the next check, off the request path (requests stay on the one in use)
      a!.mode = "ok"
      a!.head = 12
      await new Promise((r) => setTimeout(r, 80))
      set.status()
      await set.check()
      const status = set.status()
      assert.deepStrictEqual(status.map((e) => [e.up, e.primary]), [[true, false], [true, true]])
      assert.strictEqual(status[0]!.head, 12n)
      const before = b!.calls.length
      await client.getBlockNumber({ cacheTime: 0 })
      assert.strictEqual(b!.calls.length, before + 1)
    }))

  it.live("a node's JSON-RPC error is an answer: it is not retried on another endpoint", () =>
    withFakes([10, 10], async ([a, b]) => {
      a!.mode = "rpc-error"
      const { client } = clientOver([a!.url, b!.url])
      const error = await client.getBlockNumber({ cacheTime: 0 }).then(() => undefined, (e: Error) => e)
      assert.match(String(error?.message), /execution reverted/)
      assert.strictEqual(b!.calls.length, 0)
    }))

  it.live("on a switch, an endpoint whose head lags is passed over while another is up to date", () =>
    withFakes([100, 90, 100], async ([a, lagging, good]) => {
      const { client, set } = clientOver([a!.url, lagging!.url, good!.url])
      assert.strictEqual(await client.getBlockNumber({ cacheTime: 0 }), 100n)
      a!.mode = "http-500"
      assert.strictEqual(await client.getBlockNumber({ cacheTime: 0 }), 100n)
      assert.isTrue(set.status()[2]!.primary)
      assert.isFalse(lagging!.calls.some((c) => c.method !== "eth_blockNumber"))
    }))

  it.live("a provider that refuses a large eth_getLogs range is asked for halves, then keeps the smaller range", () =>
    withFakes([5000], async ([a]) => {
      a!.maxLogRange = 600
      const { client } = clientOver([a!.url])
      const read = reader(client, "0x2af7d059e5efdbe1d2a234b78df91e948ee22ee2")
      assert.deepStrictEqual(await Effect.runPromise(read.sourceFills(1n, 2000n)), [])
      const ranges = a!.calls.filter((c) => c.method === "eth_getLogs").map((c) => {
        const f = c.params[0] as { fromBlock: string; toBlock: string }
        return [Number(BigInt(f.fromBlock)), Number(BigInt(f.toBlock))]
      })
      // every block asked once by an accepted range, in order
      const accepted = ranges.filter(([from, to]) => to! - from! + 1 <= 600)
      assert.strictEqual(accepted[0]![0], 1)
      assert.strictEqual(accepted.at(-1)![1], 2000)
      for (let i = 1; i < accepted.length; i++) assert.strictEqual(accepted[i]![0], accepted[i - 1]![1]! + 1)
      // later reads start with the smaller range: no refusal again
      const before = a!.calls.length
      await Effect.runPromise(read.sourceFills(2001n, 2400n))
      assert.strictEqual(a!.calls.length - before, 1)
    }))
})
