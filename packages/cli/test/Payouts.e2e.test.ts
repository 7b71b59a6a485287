/**
 * Payouts under the faults public chains produce, on `svc devnet`'s real chains
 * (anvil, 1 s blocks, 2 confirmations, finalized 2 blocks behind), one devnet for
 * the file:
 *
 * - a vault emptied, then refilled by a top-up that is still pending when the
 *   payouts could be signed: nothing is signed against the pending state, and
 *   once the top-up is mined both fills are paid (never FAILED); a vault holding
 *   1.5 of 2 payouts pays one and the other waits;
 * - a destination reorganisation removes a mined payout: it is sent again at the
 *   same nonce and paid once, the payout key's nonces stay consecutive;
 * - the destination's base fee jumps past the pending payout's fee cap (anvil
 *   evicts it): the payout is sent again with the market's fees and paid;
 * - the RPC of one chain hangs (a proxy that holds requests): fills on the other
 *   chain are still observed within seconds;
 * - chain 56 has three RPC URLs, the first refusing connections and the second
 *   a proxy that can hang: with the second hanging, fills to 56 are still paid
 *   (failed over to the third);
 * - payouts paused on chain 56 only (`svc admin payouts pause bsc`): a fill to 56
 *   waits (PAYOUTS_PAUSED, nothing sent by the payout key there) while a fill to
 *   8453 is paid; resumed, the first is paid;
 * - a permit never filled expires, and frees its hold, at a final source block
 *   past its validUntil, not 600 s later (the grace where nothing watches);
 * - a dry run (`SVC_PAYOUTS_DRY_RUN=1`): a fill's payout is decided and noted
 *   (PAYOUT_DRY_RUN), nothing is signed, stored or sent; the server restarted
 *   without it pays the fill;
 * - the payout key is rotated by the documented procedure (pause payouts, let
 *   the payouts in flight finish, `setOperator` on every vault, restart with the
 *   new keystore, resume), paused with a payout in flight: it finishes while
 *   paused, no fill is left unpaid, the new key pays the one that waited.
 */
import { SvcVaultV6 } from "@svc/contracts/artifacts"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createWalletClient, type Hex, http, keccak256, parseGwei, toHex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { scaled } from "../../../test/support/time.ts"
import * as Devnet from "../src/Devnet.ts"
import {
  admin,
  chainOf,
  deployer,
  nonceOf,
  payout,
  payoutsOf,
  permitFor,
  publicOf,
  rpc,
  stateOf,
  topUp,
  vaultBalance,
  waitUntil,
  withdraw
} from "./support/devnet.ts"

const BIN = fileURLToPath(new URL("../src/bin.ts", import.meta.url))

/** Runs `svc ARGS` with INPUT on its standard input; rejects with its stderr when it fails. */
const svcWithInput = (args: ReadonlyArray<string>, input: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["pipe", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
    child.on("error", reject)
    child.on(
      "exit",
      (code) => (code === 0 ? resolve(out) : reject(new Error(`svc ${args.join(" ")}: ${code}: ${err}`)))
    )
    child.stdin.end(input)
  })

let devnet: Devnet.Devnet
let dataDir: string
/** A permit issued at the start and never filled (56 -> 8453): the last test sees it expire. */
let unfilled: string
interface HoldingProxy {
  hang: boolean
  readonly held: Array<ServerResponse>
  close: () => void
}
/** The RPC proxy in front of chain 8453 for the server: it can hold every request (a hung endpoint). */
const proxy: HoldingProxy = { hang: false, held: [], close: () => {} }
/** The second of chain 56's three RPC URLs (the first refuses connections, the third is the node). */
const second: HoldingProxy = { hang: false, held: [], close: () => {} }

const holdingProxy = async (target: string, proxy: HoldingProxy): Promise<string> => {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      if (proxy.hang) {
        proxy.held.push(res)
        return
      }
      fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.concat(chunks) })
        .then(async (r) => {
          res.writeHead(r.status, { "content-type": "application/json" })
          res.end(await r.text())
        }, () => {
          res.writeHead(502)
          res.end()
        })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  proxy.close = () => {
    for (const res of proxy.held) res.destroy()
    server.closeAllConnections()
    server.close()
  }
  const address = server.address()
  return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
}

const sourceChain = () => devnet.info.chains[0]!
const destinationChain = () => devnet.info.chains[1]!

const state = async (fillId: string) => (await stateOf(devnet, fillId)).state
const reached = (fillId: string, wanted: string) => async () => ((await state(fillId)) === wanted ? true : undefined)

/** Runs `f` with the chain mining nothing by itself, then restores 1 s blocks. */
const manualMining = async <A>(c: Devnet.DevnetChain, f: () => Promise<A>) => {
  await rpc(c, "evm_setIntervalMining", [0])
  try {
    return await f()
  } finally {
    await rpc(c, "evm_setIntervalMining", [1])
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-payouts-"))
  devnet = await Devnet.start({
    dataDir,
    finalityBlocks: 2,
    serverEnv: { SVC_LOG_LEVEL: "warning", SVC_RPC_TIMEOUT_MS: "10000" },
    serverLog: (chunk) => {
      if (process.env.SVC_TEST_SERVER_LOG === "1") process.stderr.write(chunk)
    },
    serverRpcUrl: async ({ chainId, url }) =>
      chainId === 8453 ? await holdingProxy(url, proxy) : ["http://127.0.0.1:9", await holdingProxy(url, second), url]
  })
  unfilled = await waitUntil(
    "an open route from 56 to 8453",
    async () => (await permitFor(devnet, 1n, { source: 1, destination: 0 }).catch(() => undefined))?.issued.fillId,
    60_000
  )
}, scaled(180_000))

afterAll(async () => {
  proxy.hang = false
  proxy.close()
  second.hang = false
  second.close()
  await devnet?.stop()
  if (process.env.SVC_KEEP_TEST_TMP !== "1") rmSync(dataDir, { recursive: true, force: true })
})

describe("payouts on real chains under faults", () => {
  it(
    "a vault emptied, its top-up pending: nothing is signed against the pending state; once mined, both fills are paid",
    async () => {
      const [source, destination] = [sourceChain(), destinationChain()]
      const a = await permitFor(devnet, 2n)
      const b = await permitFor(devnet, 2n)
      const all = await vaultBalance(destination)
      await withdraw(destination, all)
      await a.fill()
      await b.fill()
      const ids = [a.issued.fillId, b.issued.fillId]
      for (const id of ids) await waitUntil(`${id} confirmed`, reached(id, "SOURCE_CONFIRMED"))
      const before = await nonceOf(destination, payout.address)
      // the payouts wait, and say why
      await waitUntil(
        "VAULT_INSUFFICIENT",
        async () =>
          (await admin(dataDir, "permit", ids[1]!)).reasonCodes.includes("VAULT_INSUFFICIENT") ? true : undefined
      )
      await manualMining(destination, async () => {
        await topUp(destination, all, false)
        // a few passes with the top-up pending: no payout is signed against it
        await new Promise((r) => setTimeout(r, scaled(3000)))
        expect(await nonceOf(destination, payout.address, "pending")).toBe(before)
        await rpc(destination, "evm_mine")
      })
      for (const id of ids) await waitUntil(`${id} PAID`, reached(id, "PAID"), 60_000)
      for (const id of ids) expect(await payoutsOf(destination, id)).toHaveLength(1)
      expect(await nonceOf(destination, payout.address)).toBe(before + 2)
      void source
    },
    scaled(180_000)
  )

  it(
    "a vault holding 1.5 of 2 payouts pays one; the other waits (never FAILED) and is paid after a top-up",
    async () => {
      const destination = destinationChain()
      const a = await permitFor(devnet, 3n)
      const b = await permitFor(devnet, 3n)
      const amount = BigInt(a.issued.envelope.permit.amountOutRaw)
      const all = await vaultBalance(destination)
      await withdraw(destination, all - (amount * 3n) / 2n)
      await a.fill()
      await b.fill()
      const ids = [a.issued.fillId, b.issued.fillId]
      const paid = await waitUntil("one PAID", async () => {
        const states = await Promise.all(ids.map(state))
        return states.includes("PAID") ? states : undefined
      }, 60_000)
      const waiting = ids[paid.indexOf("PAID") === 0 ? 1 : 0]!
      await new Promise((r) => setTimeout(r, scaled(3000)))
      expect(await state(waiting)).toBe("SOURCE_CONFIRMED")
      expect((await admin(dataDir, "permit", waiting)).reasonCodes).toEqual(["VAULT_INSUFFICIENT"])
      await topUp(destination, all)
      await waitUntil("the other PAID", reached(waiting, "PAID"), 60_000)
      for (const id of ids) expect(await payoutsOf(destination, id)).toHaveLength(1)
    },
    scaled(180_000)
  )

  it("a destination reorganisation removes a mined payout: it is sent again at its nonce and paid once", async () => {
    const destination = destinationChain()
    const a = await permitFor(devnet, 1n)
    const before = await nonceOf(destination, payout.address, "latest")
    await manualMining(destination, async () => {
      await a.fill()
      await waitUntil("PAYOUT_SUBMITTED", reached(a.issued.fillId, "PAYOUT_SUBMITTED"), 60_000)
      await rpc(destination, "evm_mine")
      expect(await nonceOf(destination, payout.address, "latest")).toBe(before + 1)
      // the block with the payout is replaced by an empty one
      await rpc(destination, "anvil_reorg", [1, []])
      expect(await payoutsOf(destination, a.issued.fillId)).toHaveLength(0)
    })
    await waitUntil("PAID", reached(a.issued.fillId, "PAID"), 60_000)
    expect(await payoutsOf(destination, a.issued.fillId)).toHaveLength(1)
    expect(await nonceOf(destination, payout.address, "latest")).toBe(before + 1)
    const pool = (await rpc(destination, "txpool_content")) as { pending: object; queued: object }
    expect([Object.keys(pool.pending).length, Object.keys(pool.queued).length]).toEqual([0, 0])
  }, scaled(180_000))

  it(
    "the base fee jumps past a pending payout's cap (anvil evicts it): it is sent again with the market's fees and paid",
    async () => {
      const destination = destinationChain()
      const a = await permitFor(devnet, 1n)
      await manualMining(destination, async () => {
        await a.fill()
        await waitUntil("PAYOUT_SUBMITTED", reached(a.issued.fillId, "PAYOUT_SUBMITTED"), 60_000)
        await rpc(destination, "anvil_setNextBlockBaseFeePerGas", [`0x${parseGwei("100").toString(16)}`])
        await rpc(destination, "evm_mine")
      })
      const paid = await waitUntil("PAID", async () => {
        const p = await stateOf(devnet, a.issued.fillId)
        return p.state === "PAID" ? p : undefined
      }, 60_000)
      const transactions = (await admin(dataDir, "permit", a.issued.fillId)).payoutTransactions as Array<
        { txHash: string; maxFeePerGas: string }
      >
      expect(transactions.length).toBeGreaterThanOrEqual(2)
      expect(transactions.at(-1)!.txHash).toBe(paid.payoutTxHash)
      const tx = await publicOf(destination).getTransaction({ hash: paid.payoutTxHash as Hex })
      expect(tx.maxFeePerGas! >= parseGwei("50")).toBe(true)
      expect(await payoutsOf(destination, a.issued.fillId)).toHaveLength(1)
    },
    scaled(180_000)
  )

  it(
    "the RPC of one chain hangs: fills on the other chain are still observed within seconds, and paid once it answers",
    async () => {
      // a fill from 56 to 8453 while 8453's endpoint holds every request
      const a = await permitFor(devnet, 1n, { source: 1, destination: 0 })
      proxy.hang = true
      try {
        const sent = Date.now()
        await a.fill()
        await waitUntil("SOURCE_OBSERVED on the healthy chain", async () => {
          const s = await state(a.issued.fillId)
          return s === "SOURCE_OBSERVED" || s === "SOURCE_CONFIRMED" ? s : undefined
        }, 20_000)
        expect(Date.now() - sent).toBeLessThan(scaled(8_000))
      } finally {
        proxy.hang = false
        for (const res of proxy.held.splice(0)) res.destroy()
      }
      await waitUntil("PAID", reached(a.issued.fillId, "PAID"), 90_000)
      expect(await payoutsOf(sourceChain(), a.issued.fillId)).toHaveLength(1)
    },
    scaled(180_000)
  )

  it("three RPC URLs for chain 56, the first refusing and the second hanging: fills to 56 are still paid", async () => {
    const destination = destinationChain()
    second.hang = true
    try {
      const a = await permitFor(devnet, 1n)
      await a.fill()
      await waitUntil("PAID through the third endpoint", reached(a.issued.fillId, "PAID"), 90_000)
      expect(await payoutsOf(destination, a.issued.fillId)).toHaveLength(1)
      // the server names its endpoints in its health: the third one answers
      const health = (await (await fetch(`${devnet.info.server}/health/ready`)).json()) as {
        components: Record<string, { figures?: Record<string, unknown> }>
      }
      const figures = health.components["settlement.bsc"]!.figures!
      expect(figures["endpoint.2"]).toMatch(/ up \(in use\)$/)
      expect(figures["endpoint.0"]).toMatch(/ down$/)
    } finally {
      second.hang = false
      for (const res of second.held.splice(0)) res.destroy()
    }
  }, scaled(180_000))

  it(
    "payouts paused on one network: a fill to it waits and nothing is sent there, the other network pays; resumed, it pays",
    async () => {
      const [source, destination] = [sourceChain(), destinationChain()]
      await admin(dataDir, "payouts", "pause", "bsc", "--reason", "incident on 56")
      try {
        const toBsc = await permitFor(devnet, 1n)
        const toBase = await permitFor(devnet, 1n, { source: 1, destination: 0 })
        const sentOnBsc = await nonceOf(destination, payout.address)
        await toBsc.fill()
        await toBase.fill()
        await waitUntil(
          "the fill to 56 waits, paused",
          async () =>
            (await admin(dataDir, "permit", toBsc.issued.fillId)).reasonCodes.includes("PAYOUTS_PAUSED")
              ? true
              : undefined,
          90_000
        )
        await waitUntil("the fill to 8453 PAID", reached(toBase.issued.fillId, "PAID"), 90_000)
        expect(await payoutsOf(source, toBase.issued.fillId)).toHaveLength(1)
        expect(await state(toBsc.issued.fillId)).toBe("SOURCE_CONFIRMED")
        expect(await nonceOf(destination, payout.address)).toBe(sentOnBsc)
        await admin(dataDir, "payouts", "resume", "bsc")
        await waitUntil("the fill to 56 PAID once resumed", reached(toBsc.issued.fillId, "PAID"), 90_000)
        expect(await payoutsOf(destination, toBsc.issued.fillId)).toHaveLength(1)
      } finally {
        await admin(dataDir, "payouts", "resume", "bsc")
      }
    },
    scaled(240_000)
  )

  it(
    "a dry run decides a fill's payout and says so, signs, stores and sends nothing; without it the fill is paid",
    async () => {
      const destination = destinationChain()
      await devnet.restartServer({ SVC_PAYOUTS_DRY_RUN: "1" })
      let fillId = ""
      try {
        const fill = await permitFor(devnet, 1n)
        fillId = fill.issued.fillId
        const sent = await nonceOf(destination, payout.address)
        await fill.fill()
        const record = await waitUntil(
          "the payout decided by the dry run",
          async () => {
            const r = await admin(dataDir, "permit", fillId)
            return r.reasonCodes.includes("PAYOUT_DRY_RUN") ? r : undefined
          },
          90_000
        )
        expect(record.payoutIntent).toBeNull()
        expect(record.payoutTransactions).toEqual([])
        // a few more destination blocks: still nothing sent by the payout key
        const head = await publicOf(destination).getBlockNumber()
        await waitUntil(
          "three more destination blocks",
          async () => ((await publicOf(destination).getBlockNumber()) >= head + 3n ? true : undefined)
        )
        expect(await state(fillId)).toBe("SOURCE_CONFIRMED")
        expect(await nonceOf(destination, payout.address)).toBe(sent)
        expect(await payoutsOf(destination, fillId)).toHaveLength(0)
      } finally {
        await devnet.restartServer()
      }
      await waitUntil("PAID once the dry run ends", reached(fillId, "PAID"), 90_000)
      expect(await payoutsOf(destination, fillId)).toHaveLength(1)
    },
    scaled(240_000)
  )

  it(
    "rotating the payout key (pause, in-flight finished, setOperator, the new keystore, resume) leaves no fill unpaid",
    async () => {
      const [source, destination] = [sourceChain(), destinationChain()]
      const a = await permitFor(devnet, 1n)
      const b = await permitFor(devnet, 1n)
      // 1. pause payouts everywhere while a payout is in flight (the destination mines nothing until the pause
      //    is in place); a fill arriving now waits
      await manualMining(destination, async () => {
        await a.fill()
        await waitUntil("the first payout sent", reached(a.issued.fillId, "PAYOUT_SUBMITTED"), 90_000)
        await admin(dataDir, "payouts", "pause", "--reason", "key rotation")
      })
      await b.fill()
      await waitUntil(
        "the second waits, paused",
        async () =>
          (await admin(dataDir, "permit", b.issued.fillId)).reasonCodes.includes("PAYOUTS_PAUSED") ? true : undefined,
        90_000
      )
      // 2. the payout in flight finishes while paused: nothing in flight any more (the health figures say
      //    so), and the first fill is PAID by the old key
      await waitUntil("no payout in flight", async () => {
        const health = (await (await fetch(`${devnet.info.server}/health/ready`)).json()) as {
          components: Record<string, { figures?: Record<string, unknown> }>
        }
        return health.components["settlement.bsc"]!.figures!["inFlight"] === 0 ? true : undefined
      }, 90_000)
      await waitUntil("the first PAID while paused", reached(a.issued.fillId, "PAID"), 90_000)
      // 3. the new key becomes every vault's operator, and has gas
      const next = privateKeyToAccount(keccak256(toHex("svc payouts e2e: the next payout key")))
      for (const c of [source, destination]) {
        const owner = createWalletClient({ account: deployer, chain: chainOf(c), transport: http(c.rpcUrl) })
        const hash = await owner.writeContract({
          address: c.vault,
          abi: SvcVaultV6.abi,
          functionName: "setOperator",
          args: [next.address]
        })
        await publicOf(c).waitForTransactionReceipt({ hash })
        await rpc(c, "anvil_setBalance", [next.address, toHex(10n ** 20n)])
      }
      // 4. the new key in a keystore, the server restarted with it
      const keystore = join(dataDir, "next-payout.json")
      await svcWithInput(
        ["keys", "import", "--out", keystore, "--password-file", devnet.info.keys.passwordFile],
        `${keccak256(toHex("svc payouts e2e: the next payout key"))}\n`
      )
      await devnet.restartServer({ SVC_PAYOUT_KEYSTORE: keystore })
      // 5. resume: the waiting fill is paid by the new key
      await admin(dataDir, "payouts", "resume")
      const paid = await waitUntil("the second PAID", async () => {
        const p = await stateOf(devnet, b.issued.fillId)
        return p.state === "PAID" ? p : undefined
      }, 90_000)
      const tx = await publicOf(destination).getTransaction({ hash: paid.payoutTxHash as Hex })
      expect(tx.from.toLowerCase()).toBe(next.address.toLowerCase())
      for (const fill of [a, b]) expect(await payoutsOf(destination, fill.issued.fillId)).toHaveLength(1)
    },
    scaled(240_000)
  )

  it(
    "a permit left unfilled expires at a final source block past its validUntil, long before the 600 s grace",
    async () => {
      // issued before the first test; its TTL (120 s) has passed while the others ran
      const record = await waitUntil("the unfilled permit EXPIRED", async () => {
        const r = await admin(dataDir, "permit", unfilled)
        return r.state === "EXPIRED" ? r : undefined
      }, 240_000)
      const late = (Date.parse(record.updatedAt) - Date.parse(record.validUntil)) / 1000
      console.info(`the unfilled permit expired ${late.toFixed(1)} s after its validUntil (without a watcher: 600 s)`)
      expect(late).toBeGreaterThanOrEqual(0)
      expect(late).toBeLessThan(600)
    },
    scaled(300_000)
  )
})
