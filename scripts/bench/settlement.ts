/**
 * Settlement on the devnet: the time from a fill's block to PAID, and the chain
 * watcher's RPC calls per new block on an idle devnet (counted by a proxy between
 * the server and each anvil, from outside the server).
 *
 *   npm run bench -- settlement [--quick]
 *
 * The devnet mines a block every second, routes wait for 2 confirmations and
 * `finalized` trails the head by 2 blocks, so a fill is confirmed 2 blocks after
 * its own, its payout is mined in the next destination block, and PAID 2 blocks
 * later: about 5 blocks (5 s) from the fill's block to PAID is the floor.
 *
 * The burst: 300 fills mined in one source block, their payouts sent without
 * waiting for each other's receipts (consecutive nonces), all PAID within a few
 * destination blocks; with the default in-flight cap (16 per network) and with
 * it raised (`settlement.maxInFlight` in the catalog, the server restarted).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { burst as burstOnDevnet } from "../../examples/client/burst-on-devnet.ts"
import { main as executeOnDevnet } from "../../examples/client/execute-on-devnet.ts"
import * as Devnet from "../../packages/cli/src/Devnet.ts"

interface Counter {
  calls: number
  readonly byMethod: Map<string, number>
  /** Market reads (eth_gasPrice, eth_call to a price feed), once the feeds are known. */
  market: number
  feeds: ReadonlySet<string>
}

/** A JSON-RPC proxy that counts calls (batch entries one by one). */
const countingProxy = async (target: string, counter: Counter): Promise<{ url: string; close: () => void }> => {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      try {
        type Call = { method?: string; params?: ReadonlyArray<{ to?: string } | unknown> }
        const parsed = JSON.parse(body) as Call | Array<Call>
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
          counter.calls++
          const method = call.method ?? "?"
          counter.byMethod.set(method, (counter.byMethod.get(method) ?? 0) + 1)
          const to = (call.params?.[0] as { to?: string } | undefined)?.to?.toLowerCase()
          if (method === "eth_gasPrice" || (method === "eth_call" && to !== undefined && counter.feeds.has(to))) {
            counter.market++
          }
        }
      } catch {
        // not JSON: forwarded as is
      }
      fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
        async (r) => {
          res.writeHead(r.status, { "content-type": "application/json" })
          res.end(await r.text())
        },
        () => {
          res.writeHead(502)
          res.end()
        }
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() }
}

const rpc = async (url: string, method: string, params: ReadonlyArray<unknown> = []) => {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
  })
  return ((await r.json()) as { result: unknown }).result
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]!
}

/** Runs the settlement benchmark. */
export const runSettlement = async (options: { readonly quick: boolean }) => {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-settlement-"))
  const counters = new Map<number, Counter>()
  const proxies: Array<{ close: () => void }> = []
  const log = (line: string) => process.stderr.write(`${line}\n`)
  const devnet = await Devnet.start({
    dataDir,
    finalityBlocks: 2,
    serverEnv: {
      SVC_LOG_LEVEL: "error",
      // the burst: 300 permits of one payer from one address
      SVC_PERMIT_RATE_LIMIT: "100000",
      SVC_HOLD_SHARE_CLIENT_BPS: "off",
      SVC_HOLD_SHARE_PAYER_BPS: "off",
      SVC_HOLD_SHARE_NEW_PAYERS_BPS: "off"
    },
    log,
    serverRpcUrl: async ({ chainId, url }) => {
      const counter: Counter = { calls: 0, byMethod: new Map(), market: 0, feeds: new Set() }
      counters.set(chainId, counter)
      const proxy = await countingProxy(url, counter)
      proxies.push(proxy)
      return proxy.url
    }
  })
  try {
    const source = devnet.info.chains[0]!
    const destination = devnet.info.chains[1]!
    const blockOf = async (url: string) => Number(BigInt((await rpc(url, "eth_blockNumber")) as string))

    for (const chain of devnet.info.chains) {
      counters.get(chain.chainId)!.feeds = new Set(Object.values(chain.priceFeeds).map((f) => f.toLowerCase()))
    }
    // idle: no permits in flight; count the watcher's calls per new block on each chain
    await new Promise((r) => setTimeout(r, 3000))
    const idleSeconds = options.quick ? 10 : 30
    const idle = []
    for (const chain of [source, destination]) {
      const counter = counters.get(chain.chainId)!
      idle.push({ chain, from: await blockOf(chain.rpcUrl), calls: counter.calls, market: counter.market })
    }
    log(`svc bench settlement: idle for ${idleSeconds} s`)
    await new Promise((r) => setTimeout(r, idleSeconds * 1000))
    const idleResults = []
    for (const i of idle) {
      const blocks = (await blockOf(i.chain.rpcUrl)) - i.from
      const counter = counters.get(i.chain.chainId)!
      const market = counter.market - i.market
      const calls = counter.calls - i.calls - market
      idleResults.push({
        chainId: i.chain.chainId,
        blocks,
        calls,
        callsPerBlock: Math.round((calls / blocks) * 100) / 100,
        marketCalls: market,
        marketCallsPerSecond: Math.round((market / idleSeconds) * 100) / 100
      })
    }

    // fills, one after the other: fill's block timestamp -> PAID seen by the client
    const fills = options.quick ? 2 : 5
    const latencies: Array<number> = []
    for (let n = 0; n < fills; n++) {
      const result = await executeOnDevnet(devnet.info, { timeoutMs: 60_000 })
      const paidAt = Date.now()
      const receipt = (await rpc(source.rpcUrl, "eth_getTransactionReceipt", [result.fillDirectTxHash])) as {
        blockNumber: string
      }
      const block = (await rpc(source.rpcUrl, "eth_getBlockByNumber", [receipt.blockNumber, false])) as {
        timestamp: string
      }
      latencies.push(paidAt - Number(BigInt(block.timestamp)) * 1000)
      log(`svc bench settlement: fill ${n + 1}/${fills} ${result.state} in ${latencies.at(-1)} ms`)
    }
    // bursts: N fills in one source block, with the default in-flight cap, then with it raised
    const n = options.quick ? 60 : 300
    const burst = async (label: string) => {
      log(`svc bench settlement: burst of ${n} fills, ${label}`)
      return { label, ...(await burstOnDevnet(devnet.info, { fills: n })) }
    }
    const bursts = [await burst("default cap (16)")]
    const catalogPath = join(dataDir, "catalog.json")
    const catalog = JSON.parse(readFileSync(catalogPath, "utf8")) as { networks: Array<Record<string, unknown>> }
    for (const network of catalog.networks) network["settlement"] = { maxInFlight: n + 100 }
    writeFileSync(catalogPath, JSON.stringify(catalog, null, 2))
    await devnet.restartServer()
    bursts.push(await burst(`cap raised (${n + 100})`))
    const results = {
      blockTimeSeconds: 1,
      confirmations: 2,
      idle: idleResults,
      bursts,
      fillBlockToPaidMs: {
        median: median(latencies),
        min: Math.min(...latencies),
        max: Math.max(...latencies),
        n: fills
      }
    }
    const text = [
      "settlement on the devnet (block time 1 s, 2 confirmations)",
      "",
      "idle watcher, RPC calls per new block (counted by a proxy, both the watcher and inventory reads):",
      ...idleResults.map((r) =>
        `  chain ${r.chainId}: ${r.calls} calls over ${r.blocks} blocks = ${r.callsPerBlock} per block`
      ),
      "market data (price feeds and gas price, polled every SVC_MARKET_POLL_MS = 1000 ms on the devnet, not per block):",
      ...idleResults.map((r) =>
        `  chain ${r.chainId}: ${r.marketCalls} calls in ${idleSeconds} s = ${r.marketCallsPerSecond} per second`
      ),
      "",
      `fill's block -> PAID seen by the client (block timestamps have 1 s resolution): median ${results.fillBlockToPaidMs.median} ms, min ${results.fillBlockToPaidMs.min} ms, max ${results.fillBlockToPaidMs.max} ms over ${fills} fills`,
      "  the floor: 2 source blocks to confirm, the next destination block, 2 more to be final: about 5 blocks (5 s)",
      "",
      "bursts: fills mined in one source block, then every permit PAID:",
      ...bursts.map((b) =>
        `  ${b.label}: ${b.fills} fills in source block ${b.fillBlock}; payouts mined in ${b.payoutBlocks} destination blocks (${b.firstPayoutBlock}..${b.lastPayoutBlock}); all PAID ${b.allPaidMs} ms after the fill's block (the first at ${b.firstPaidMs} ms)`
      )
    ].join("\n")
    return { text, results }
  } finally {
    await devnet.stop()
    for (const p of proxies) p.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
