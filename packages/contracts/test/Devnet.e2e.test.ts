/**
 * The devnet helpers on a real anvil: SvcTestToken (ERC-20 basics, owner-only
 * mint) and SvcPriceFeed (AggregatorV3 reads, owner-written rounds).
 */
import { type Hex, parseEventLogs } from "viem"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { SvcPriceFeed, SvcTestToken } from "../src/artifacts.ts"
import { deployPriceFeed, deployToken } from "../src/Deploy.ts"
import { ACCOUNTS, KEYS, revertOf, startChain, type TestChain } from "./helpers.ts"

let chain: TestChain
let token: Hex
let feed: Hex
let snapshot: Hex

beforeAll(async () => {
  chain = await startChain(31337)
  const clients = { wallet: chain.deployer, publicClient: chain.publicClient }
  token = await deployToken(clients, { name: "Tether USD", symbol: "USDT", decimals: 18 })
  feed = await deployPriceFeed(clients, { decimals: 8, description: "USDT / USD", initialAnswer: 100_020_000n })
  snapshot = await chain.snapshot()
})

afterAll(async () => {
  await chain?.node.stop()
})

beforeEach(async () => {
  await chain.revert(snapshot)
  snapshot = await chain.snapshot()
})

const write = async (
  key: Hex,
  call: { address: Hex; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] }
) => {
  const wallet = chain.walletOf(key)
  const hash = await wallet.writeContract({ ...call, chain: wallet.chain, account: wallet.account } as never)
  return chain.publicClient.waitForTransactionReceipt({ hash })
}
const tokenRead = <F extends "name" | "symbol" | "decimals" | "totalSupply" | "owner">(functionName: F) =>
  chain.publicClient.readContract({ address: token, abi: SvcTestToken.abi, functionName })
const balanceOf = (account: Hex) =>
  chain.publicClient.readContract({ address: token, abi: SvcTestToken.abi, functionName: "balanceOf", args: [account] })

describe("SvcTestToken", () => {
  it("has the constructor's metadata; only the owner mints; transfer, approve and transferFrom follow ERC-20", async () => {
    expect([
      await tokenRead("name"),
      await tokenRead("symbol"),
      await tokenRead("decimals"),
      await tokenRead("totalSupply")
    ]).toEqual(["Tether USD", "USDT", 18, 0n])
    expect(await tokenRead("owner")).toBe(ACCOUNTS.deployer.address)
    expect(
      await revertOf(
        chain.walletOf(KEYS.other).writeContract({
          address: token,
          abi: SvcTestToken.abi,
          functionName: "mint",
          args: [ACCOUNTS.other.address, 1n],
          chain: chain.chain,
          account: ACCOUNTS.other
        })
      )
    ).toEqual({ name: "NotOwner", args: [ACCOUNTS.other.address] })

    const minted = await write(KEYS.deployer, {
      address: token,
      abi: SvcTestToken.abi,
      functionName: "mint",
      args: [ACCOUNTS.payer.address, 1000n]
    })
    expect(parseEventLogs({ abi: SvcTestToken.abi, logs: minted.logs, eventName: "Transfer" })[0]!.args)
      .toEqual({ from: "0x0000000000000000000000000000000000000000", to: ACCOUNTS.payer.address, value: 1000n })
    expect(await tokenRead("totalSupply")).toBe(1000n)

    const { result } = await chain.publicClient.simulateContract({
      address: token,
      abi: SvcTestToken.abi,
      functionName: "transfer",
      args: [ACCOUNTS.other.address, 100n],
      account: ACCOUNTS.payer
    })
    expect(result).toBe(true)
    await write(KEYS.payer, {
      address: token,
      abi: SvcTestToken.abi,
      functionName: "transfer",
      args: [ACCOUNTS.other.address, 100n]
    })
    expect([await balanceOf(ACCOUNTS.payer.address), await balanceOf(ACCOUNTS.other.address)]).toEqual([900n, 100n])

    const approved = await write(KEYS.payer, {
      address: token,
      abi: SvcTestToken.abi,
      functionName: "approve",
      args: [ACCOUNTS.operator.address, 300n]
    })
    expect(parseEventLogs({ abi: SvcTestToken.abi, logs: approved.logs, eventName: "Approval" })[0]!.args)
      .toEqual({ owner: ACCOUNTS.payer.address, spender: ACCOUNTS.operator.address, value: 300n })
    await write(KEYS.operator, {
      address: token,
      abi: SvcTestToken.abi,
      functionName: "transferFrom",
      args: [ACCOUNTS.payer.address, ACCOUNTS.other.address, 200n]
    })
    expect(
      await chain.publicClient.readContract({
        address: token,
        abi: SvcTestToken.abi,
        functionName: "allowance",
        args: [ACCOUNTS.payer.address, ACCOUNTS.operator.address]
      })
    ).toBe(100n)
    expect(await balanceOf(ACCOUNTS.other.address)).toBe(300n)

    expect(
      await revertOf(
        chain.publicClient.simulateContract({
          address: token,
          abi: SvcTestToken.abi,
          functionName: "transferFrom",
          args: [ACCOUNTS.payer.address, ACCOUNTS.other.address, 101n],
          account: ACCOUNTS.operator
        })
      )
    )
      .toEqual({ name: "InsufficientAllowance", args: [ACCOUNTS.operator.address, 100n, 101n] })
    expect(
      await revertOf(
        chain.publicClient.simulateContract({
          address: token,
          abi: SvcTestToken.abi,
          functionName: "transfer",
          args: [ACCOUNTS.other.address, 701n],
          account: ACCOUNTS.payer
        })
      )
    )
      .toEqual({ name: "InsufficientBalance", args: [ACCOUNTS.payer.address, 700n, 701n] })
  })
})

describe("SvcPriceFeed", () => {
  const latest = () =>
    chain.publicClient.readContract({ address: feed, abi: SvcPriceFeed.abi, functionName: "latestRoundData" })

  it("round 1 is the initial answer; setAnswer starts a new round stamped with the block time", async () => {
    expect(await chain.publicClient.readContract({ address: feed, abi: SvcPriceFeed.abi, functionName: "decimals" }))
      .toBe(8)
    expect(await chain.publicClient.readContract({ address: feed, abi: SvcPriceFeed.abi, functionName: "description" }))
      .toBe("USDT / USD")
    expect(await chain.publicClient.readContract({ address: feed, abi: SvcPriceFeed.abi, functionName: "version" }))
      .toBe(1n)
    const [roundId, answer, startedAt, updatedAt, answeredInRound] = await latest()
    expect([roundId, answer, answeredInRound]).toEqual([1n, 100_020_000n, 1n])
    expect(startedAt).toBe(updatedAt)

    await chain.testClient.increaseTime({ seconds: 3600 })
    const receipt = await write(KEYS.deployer, {
      address: feed,
      abi: SvcPriceFeed.abi,
      functionName: "setAnswer",
      args: [99_990_000n]
    })
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber })
    expect(await latest()).toEqual([2n, 99_990_000n, block.timestamp, block.timestamp, 2n])
    expect(block.timestamp).toBeGreaterThanOrEqual(updatedAt + 3600n)
    expect(parseEventLogs({ abi: SvcPriceFeed.abi, logs: receipt.logs, eventName: "AnswerUpdated" })[0]!.args)
      .toEqual({ current: 99_990_000n, roundId: 2n, updatedAt: block.timestamp })
    // the earlier round stays readable
    expect(
      (await chain.publicClient.readContract({
        address: feed,
        abi: SvcPriceFeed.abi,
        functionName: "getRoundData",
        args: [1n]
      }))[1]
    ).toBe(100_020_000n)
  })

  it("setRoundData writes a stale round; unknown rounds revert NoDataPresent; writes are owner-only", async () => {
    await write(KEYS.deployer, {
      address: feed,
      abi: SvcPriceFeed.abi,
      functionName: "setRoundData",
      args: [10n, 123n, 1_000n, 2_000n, 9n]
    })
    expect(await latest()).toEqual([10n, 123n, 1_000n, 2_000n, 9n])
    expect(
      await revertOf(
        chain.publicClient.readContract({
          address: feed,
          abi: SvcPriceFeed.abi,
          functionName: "getRoundData",
          args: [5n]
        })
      )
    )
      .toEqual({ name: "NoDataPresent", args: [] })
    expect(
      await revertOf(
        chain.publicClient.simulateContract({
          address: feed,
          abi: SvcPriceFeed.abi,
          functionName: "setRoundData",
          args: [10n, 1n, 1n, 1n, 10n],
          account: ACCOUNTS.deployer
        })
      )
    )
      .toEqual({ name: "RoundNotIncreasing", args: [10n, 10n] })
    expect(
      await revertOf(
        chain.publicClient.simulateContract({
          address: feed,
          abi: SvcPriceFeed.abi,
          functionName: "setAnswer",
          args: [1n],
          account: ACCOUNTS.other
        })
      )
    )
      .toEqual({ name: "NotOwner", args: [ACCOUNTS.other.address] })
  })
})
