/**
 * Execution on real chains, end to end: `svc devnet` (two anvil chains, the
 * reference contracts, the server settling on them as a child process), the
 * client and a viem wallet. One fill is watched, confirmed and paid; a source fill
 * that a reorganisation removes sends the permit back to ISSUED; a server killed
 * with SIGKILL after its payout intent pays exactly once after a restart.
 */
import { createClient } from "@svc/client"
import { EvmMarket } from "@svc/connector-evm"
import { SvcPriceFeed } from "@svc/contracts/artifacts"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createWalletClient, erc20Abi, type Hex, http } from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { main as executeOnDevnet } from "../../../examples/client/execute-on-devnet.ts"
import { scaled } from "../../../test/support/time.ts"
import * as Devnet from "../src/Devnet.ts"
import {
  chainOf,
  deployer,
  nonceOf,
  payout,
  payoutsOf,
  permitFor,
  publicOf,
  rpc,
  user,
  waitUntil
} from "./support/devnet.ts"

let devnet: Devnet.Devnet
/** The fillId the end-to-end test paid. */
let paidFillId: string | undefined
let dataDir: string

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-devnet-"))
  devnet = await Devnet.start({ dataDir, finalityBlocks: 2, serverEnv: { SVC_LOG_LEVEL: "warning" } })
}, scaled(120_000))

afterAll(async () => {
  await devnet?.stop()
  if (process.env.SVC_KEEP_TEST_TMP !== "1") rmSync(dataDir, { recursive: true, force: true })
})

describe("svc devnet", () => {
  it("writes devnet.json: the server, both chains with code at router, vault and facade, a funded user", async () => {
    const file = JSON.parse(readFileSync(devnet.file, "utf8")) as Devnet.DevnetFile
    expect(file).toEqual(devnet.info)
    expect(file.chains.map((c) => c.chainId)).toEqual([8453, 56])
    // the same CREATE2 addresses on both chains
    expect(file.chains[0]!.router).toBe(file.chains[1]!.router)
    expect(file.chains[0]!.discovery).toBe(file.chains[1]!.discovery)
    for (const c of file.chains) {
      for (const address of [c.router, c.vault, c.discovery, ...Object.values(c.tokens)]) {
        expect((await publicOf(c).getCode({ address }))?.length ?? 0).toBeGreaterThan(2)
      }
      const token = Object.values(c.tokens)[0]!
      const balance = await publicOf(c).readContract({
        address: token,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [file.user.address]
      })
      expect(balance).toBeGreaterThan(0n)
      expect(await publicOf(c).getBalance({ address: file.user.address })).toBeGreaterThan(0n)
    }
    // the discovery document names the deployed facade
    const onchain = (await (await fetch(`${file.server}/.well-known/svc-onchain-discovery.json`)).json()) as Record<
      string,
      unknown
    >
    expect(JSON.stringify(onchain).toLowerCase()).toContain(file.chains[0]!.discovery.toLowerCase())
  })

  it(
    "one fill end to end: fillDirect observed, confirmed, paid on the destination chain; exactly one fill and one payout",
    async () => {
      const [source, destination] = [devnet.info.chains[0]!, devnet.info.chains[1]!]
      const userNonce = await nonceOf(source, user.address)
      const payoutNonce = await nonceOf(destination, payout.address)
      const result = await executeOnDevnet(devnet.info, { timeoutMs: scaled(60_000) })
      expect(result.state).toBe("PAID")
      paidFillId = result.fillId
      expect(result.sourceTxHash).toBe(result.fillDirectTxHash.toLowerCase())
      expect(result.payoutTxHash).toMatch(/^0x[0-9a-f]{64}$/)
      expect(BigInt(result.recipientBalanceAfter) - BigInt(result.recipientBalanceBefore)).toBe(
        BigInt(result.amountOutRaw)
      )
      // the user sent the approval and one fillDirect; the payout key sent one payout
      expect(await nonceOf(source, user.address)).toBe(userNonce + 2)
      expect(await nonceOf(destination, payout.address)).toBe(payoutNonce + 1)
      const events = await payoutsOf(destination, result.fillId)
      expect(events).toHaveLength(1)
      expect(events[0]!.transactionHash).toBe(result.payoutTxHash)
      expect(events[0]!.args.amount).toBe(BigInt(result.amountOutRaw))
      // the gas route economics count for a source fill is what a devnet fill uses, rounded up
      const receipt = await publicOf(source).getTransactionReceipt({ hash: result.fillDirectTxHash as Hex })
      expect(receipt.gasUsed).toBeLessThanOrEqual(EvmMarket.FILL_DIRECT_GAS_UNITS)
      expect(receipt.gasUsed * 10n).toBeGreaterThan(EvmMarket.FILL_DIRECT_GAS_UNITS * 9n)
      // the permit was priced from the devnet's price feeds
      const permit = await createClient({ baseUrl: devnet.info.server! }).permits.get(result.fillId)
      const evidence = permit.execution.pricing.evidence as { model: string; sourceUsd: { feed: string } }
      expect(evidence.model).toBe("ORACLE")
      expect(evidence.sourceUsd.feed.toLowerCase()).toBe(source.priceFeeds.USDC!.toLowerCase())
    },
    scaled(90_000)
  )

  it(
    "a source fill removed by a reorganisation sends the permit back to ISSUED; filled again, it is paid once",
    async () => {
      const [source, destination] = [devnet.info.chains[0]!, devnet.info.chains[1]!]
      const { fill, issued, svc } = await permitFor(devnet, 3n)
      // stop the source chain's clock: the fill stays below its confirmations until we reorganise it away
      await rpc(source, "evm_setIntervalMining", [0])
      try {
        const hash = await fill()
        await rpc(source, "evm_mine")
        const receipt = await publicOf(source).waitForTransactionReceipt({ hash })
        expect(receipt.status).toBe("success")
        await waitUntil("SOURCE_OBSERVED", async () => {
          const p = await svc.permits.get(issued.fillId)
          return p.state === "SOURCE_OBSERVED" ? p : undefined
        })
        await rpc(source, "anvil_reorg", [1, []])
        await expect(publicOf(source).getTransactionReceipt({ hash })).rejects.toThrow()
        const back = await waitUntil("ISSUED again", async () => {
          const p = await svc.permits.get(issued.fillId)
          return p.state === "ISSUED" ? p : undefined
        })
        expect(back.sourceTxHash).toBeNull()
      } finally {
        await rpc(source, "evm_setIntervalMining", [1])
      }
      // the permit is still valid and its fillId unused on the canonical chain: fill it again
      const again = await fill()
      const paid = await svc.permits.waitFor(issued.fillId, { timeoutMs: scaled(60_000) })
      expect(paid.state).toBe("PAID")
      expect(paid.sourceTxHash).toBe(again.toLowerCase())
      expect(await payoutsOf(destination, issued.fillId)).toHaveLength(1)
    },
    scaled(120_000)
  )

  it("kill -9 after the payout intent: once restarted, the fill is paid exactly once", async () => {
    const [source, destination] = [devnet.info.chains[0]!, devnet.info.chains[1]!]
    const { fill, issued, svc } = await permitFor(devnet, 2n)
    const payoutNonce = await nonceOf(destination, payout.address)
    let submitted: Awaited<ReturnType<typeof svc.permits.get>> | undefined
    // the destination chain mines nothing: the payout is sent but never confirmed
    await rpc(destination, "evm_setIntervalMining", [0])
    try {
      await fill()
      submitted = await waitUntil("PAYOUT_SUBMITTED", async () => {
        const p = await svc.permits.get(issued.fillId)
        return p.state === "PAYOUT_SUBMITTED" ? p : undefined
      }, scaled(60_000))
      devnet.server().kill("SIGKILL")
      await new Promise((r) => devnet.server().once("exit", r))
      // and the node forgets the pending payout: only the intent in the store remembers it
      const pending = (await rpc(destination, "eth_getBlockByNumber", ["pending", false])) as {
        transactions: ReadonlyArray<Hex>
      } | null
      for (const tx of pending?.transactions ?? []) await rpc(destination, "anvil_dropTransaction", [tx])
      await expect(publicOf(destination).getTransaction({ hash: submitted.payoutTxHash as Hex })).rejects.toThrow()
    } finally {
      await rpc(destination, "evm_setIntervalMining", [1])
    }
    await devnet.restartServer()
    const paid = await svc.permits.waitFor(issued.fillId, { timeoutMs: scaled(60_000) })
    expect(paid.state).toBe("PAID")
    // the transaction of the intent, sent again: the same hash
    expect(paid.payoutTxHash).toBe(submitted!.payoutTxHash)
    expect(await payoutsOf(destination, issued.fillId)).toHaveLength(1)
    expect(await nonceOf(destination, payout.address)).toBe(payoutNonce + 1)
    // the source side saw exactly one fill of this permit
    const fills = await publicOf(source).getLogs({ address: source.router, fromBlock: 0n, toBlock: "latest" })
    expect(fills.filter((l) => l.topics[1]?.toLowerCase() === issued.fillId.toLowerCase())).toHaveLength(1)
  }, scaled(150_000))

  it("the feed follows the oracle: a USDT price move on chain 56 reprices the route from chain 8453", async () => {
    const [source, destination] = [devnet.info.chains[0]!, devnet.info.chains[1]!]
    const svc = createClient({ baseUrl: devnet.info.server! })
    const routeNow = async () =>
      (await svc.feed({ sourceChainId: source.chainId })).routes.find((r) =>
        r.destinationChainId === String(destination.chainId)
      )!
    const before = await routeNow()
    const setUsdt = async (answer: bigint) => {
      const wallet = createWalletClient({
        account: deployer,
        chain: chainOf(destination),
        transport: http(destination.rpcUrl)
      })
      const hash = await wallet.writeContract({
        address: destination.priceFeeds.USDT!,
        abi: SvcPriceFeed.abi,
        functionName: "setAnswer",
        args: [answer]
      })
      await publicOf(destination).waitForTransactionReceipt({ hash })
    }
    try {
      await setUsdt(102_000_000n) // USDT at 1.02
      const after = await waitUntil("a repriced route", async () => {
        const r = await routeNow()
        return r.pricingReferenceId !== before.pricingReferenceId ? r : undefined
      })
      expect(after.quoteId).not.toBe(before.quoteId)
      // destination raw per source raw = 10^12 / 1.02 = 10^14 / 102 = 5·10^13 / 51 (reduced)
      expect([after.indicativePriceNumeratorRaw, after.indicativePriceDenominatorRaw]).toEqual([
        "50000000000000",
        "51"
      ])
    } finally {
      await setUsdt(100_000_000n)
    }
  }, scaled(60_000))

  it(
    "svc admin permit shows what the status hides: a FAILED permit's reasonCodes; a paid one's payout intent",
    async () => {
      const admin = (...args: Array<string>) =>
        JSON.parse(
          execFileSync(process.execPath, [fileURLToPath(new URL("../src/bin.ts", import.meta.url)), "admin", ...args], {
            env: { ...process.env, SVC_DATA_DIR: join(dataDir, "server"), SVC_LOG_LEVEL: "none" },
            encoding: "utf8"
          })
        )
      const { issued } = await permitFor(devnet, 1n)
      expect(admin("settle", issued.fillId, "failed", "OPERATOR_TEST").state).toBe("FAILED")
      const failed = admin("permit", issued.fillId)
      expect(failed).toMatchObject({ state: "FAILED", reasonCodes: ["OPERATOR_TEST"], payoutIntent: null })

      // the first test's fill, paid: its intent is the payout transaction that landed
      expect(paidFillId).toBeDefined()
      const paid = admin("permit", paidFillId!)
      expect(paid.state).toBe("PAID")
      expect(paid.reasonCodes).toEqual([])
      expect(paid.payoutIntent).toMatchObject({
        txHash: paid.payoutTxHash,
        attempt: 1,
        sender: payout.address.toLowerCase()
      })
    },
    scaled(60_000)
  )
})
