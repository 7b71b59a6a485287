/**
 * EVM market data over a real chain: a reference price feed deployed on anvil
 * is read through `EvmMarket` (answer, decimals, round, update time), follows
 * `setAnswer`, and the gas price is the node's; an unreachable RPC or a bad feed
 * address is `ConnectorUnavailable`, never a defect. The ABI fragments are the
 * compiled feed's.
 */
import { SvcPriceFeed } from "@svc/contracts/artifacts"
import * as Deploy from "@svc/contracts/Deploy"
import { ANVIL_DEPLOYER_KEY, type AnvilNode, startAnvil } from "@svc/contracts/testing/Anvil"
import { Effect, Exit } from "effect"
import {
  type AbiFunction,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type PublicClient,
  toFunctionSelector
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AGGREGATOR_V3_ABI, make } from "../src/EvmMarket.ts"

let node: AnvilNode
let feed: `0x${string}`
let wallet: ReturnType<typeof createWalletClient>
let client: PublicClient

beforeAll(async () => {
  node = await startAnvil({ chainId: 8453 })
  const chain = defineChain({
    id: 8453,
    name: "anvil",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.url] } }
  })
  client = createPublicClient({ chain, transport: http(node.url) }) as PublicClient
  wallet = createWalletClient({ chain, account: privateKeyToAccount(ANVIL_DEPLOYER_KEY), transport: http(node.url) })
  feed = await Deploy.deployPriceFeed({ wallet, publicClient: client } as never, {
    decimals: 8,
    description: "USDC / USD",
    initialAnswer: 100_000_000n,
    pollingInterval: 50
  })
})

afterAll(async () => {
  await node?.stop()
})

describe("EvmMarket", () => {
  it("AGGREGATOR_V3_ABI is the reference feed's own", () => {
    const compiled = new Set(
      SvcPriceFeed.abi.filter((i) => i.type === "function").map((i) => toFunctionSelector(i as AbiFunction))
    )
    for (const item of AGGREGATOR_V3_ABI) expect(compiled.has(toFunctionSelector(item)), item.name).toBe(true)
  })

  it("reads the feed's latest round and follows setAnswer; reads the gas price", async () => {
    const reader = await Effect.runPromise(
      make({ rpcUrls: { "8453": node.url } }).network({ key: "base", native: "8453" })
    )
    expect(reader).not.toBeNull()
    const first = await Effect.runPromise(reader!.priceFeed(feed))
    const block = await client.getBlock()
    expect(first.answer).toBe(100_000_000n)
    expect(first.decimals).toBe(8)
    expect(first.updatedAt).toBeLessThanOrEqual(Number(block.timestamp))
    expect(first.updatedAt).toBeGreaterThan(Number(block.timestamp) - 60)

    const hash = await wallet.writeContract({
      address: feed,
      abi: SvcPriceFeed.abi,
      functionName: "setAnswer",
      args: [101_000_000n],
      account: wallet.account!,
      chain: wallet.chain
    })
    await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    const second = await Effect.runPromise(reader!.priceFeed(feed))
    expect(second.answer).toBe(101_000_000n)
    expect(second.roundId).toBeGreaterThan(first.roundId)

    const gasPrice = await Effect.runPromise(reader!.gasPrice)
    expect(gasPrice).toBe(await client.getGasPrice())
    expect(reader!.nativeDecimals).toBe(18)
  })

  it("a round's age is read from its updatedAt, not its startedAt", async () => {
    const reader = (await Effect.runPromise(
      make({ rpcUrls: { "8453": node.url } }).network({ key: "base", native: "8453" })
    ))!
    const now = Number((await client.getBlock()).timestamp)
    const setRound = async (roundId: bigint, startedAt: number, updatedAt: number) => {
      const hash = await wallet.writeContract({
        address: feed,
        abi: SvcPriceFeed.abi,
        functionName: "setRoundData",
        args: [roundId, 100_500_000n, BigInt(startedAt), BigInt(updatedAt), roundId],
        account: wallet.account!,
        chain: wallet.chain
      })
      await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    }
    // a round started long ago and updated just now is fresh...
    await setRound(1000n, now - 86_400, now - 5)
    expect((await Effect.runPromise(reader.priceFeed(feed))).updatedAt).toBe(now - 5)
    // ...and one started just now but last updated long ago is old
    await setRound(1001n, now - 5, now - 86_400)
    const old = await Effect.runPromise(reader.priceFeed(feed))
    expect(old.roundId).toBe(1001n)
    expect(old.updatedAt).toBe(now - 86_400)
  })

  it("a network without an RPC URL has no reader; a bad feed or a dead RPC is ConnectorUnavailable", async () => {
    const market = make({ rpcUrls: { "8453": node.url, "56": "http://127.0.0.1:9" }, rpcTimeoutMillis: 2000 })
    expect(await Effect.runPromise(market.network({ key: "x", native: "1" }))).toBeNull()
    const reader = (await Effect.runPromise(market.network({ key: "base", native: "8453" })))!
    for (const bad of ["not-an-address", "0x000000000000000000000000000000000000dEaD"]) {
      const exit = await Effect.runPromiseExit(reader.priceFeed(bad))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("RPC_UNAVAILABLE")
    }
    const dead = (await Effect.runPromise(market.network({ key: "bsc", native: "56" })))!
    const exit = await Effect.runPromiseExit(dead.gasPrice)
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("ConnectorUnavailable")
  })
})
