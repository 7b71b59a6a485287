/**
 * The chain group against one real devnet (`svc devnet`: two anvil chains with
 * the reference contracts, the server settling on them): with `--rpc` for both
 * chains and `--execute` with the devnet user every chain check passes and one
 * fill is paid; then the variants the checks must tell apart: a chain where the
 * document's addresses have no code, an RPC URL that serves another chain id, a
 * router that accepts any permit, and a router that no longer accepts the
 * deployment's authority.
 */
import { SvcMainnetRouterV6, SvcSolverDiscoveryV6 } from "@svc/contracts/artifacts"
import { ANVIL_DEPLOYER_KEY, type AnvilNode, rpc, startAnvil } from "@svc/contracts/testing/Anvil"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  keccak256,
  pad,
  type PublicClient,
  toBytes,
  toFunctionSignature,
  toHex
} from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { formatAbiItem } from "viem/utils"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Devnet from "../../packages/cli/src/Devnet.ts"
import { scaled } from "../../test/support/time.ts"
import { FACADE_ABI, ROUTER_ERRORS, ROUTER_SIGNATURES } from "../src/Chain.ts"
import * as Registry from "../src/Registry.ts"
import type { CheckResult, Report } from "../src/Report.ts"
import { cli } from "./support/cli.ts"

let devnet: Devnet.Devnet
let bare: AnvilNode
let dataDir: string
let runs = 0

const CHAIN_CHECKS = Registry.all.filter((c) => c.group === "chain").map((c) => c.name)
const STATIC_CHECKS = CHAIN_CHECKS.filter((n) => n !== "chain_execute_fill")

const chainOf = (c: Devnet.DevnetChain) =>
  defineChain({
    id: c.chainId,
    name: `devnet ${c.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [c.rpcUrl] } }
  })
const publicOf = (c: Devnet.DevnetChain) =>
  createPublicClient({ chain: chainOf(c), transport: http(c.rpcUrl), pollingInterval: 100 }) as PublicClient
const source = () => devnet.info.chains.find((c) => c.chainId === 8453)!
const destination = () => devnet.info.chains.find((c) => c.chainId === 56)!

/** Runs `svc conformance` with the arguments and a JSON report; returns the report and the console text. */
const harness = async (args: ReadonlyArray<string>, only = "chain") => {
  const file = join(dataDir, `report-${++runs}.json`)
  const { exit, text } = await Effect.runPromise(
    cli(["--url", devnet.info.server!, "--only", only, "--timeout", "10", ...args, "--report", `json=${file}`])
  )
  const report = JSON.parse(readFileSync(file, "utf8")) as Report
  const result = (name: string): CheckResult => report.results.find((r) => r.name === name)!
  const failures = (name: string) => result(name).failures.map((f) => `${f.title} | ${f.expected} | ${f.actual}`)
  return { exit, text, report, result, failures }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-conformance-chain-"))
  devnet = await Devnet.start({ dataDir, finalityBlocks: 2, serverEnv: { SVC_LOG_LEVEL: "warning" } })
  // a chain with the id of the source chain and none of the contracts
  bare = await startAnvil({ chainId: 8453, blockTime: 1 })
}, scaled(120_000))

afterAll(async () => {
  await bare?.stop()
  await devnet?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe("the chain group", () => {
  it("calls the contracts with their own ABI: the fragments are the artifacts'", () => {
    const router = SvcMainnetRouterV6.abi as ReadonlyArray<{ type: string; name?: string }>
    const facade = SvcSolverDiscoveryV6.abi as ReadonlyArray<{ type: string; name?: string }>
    const signatures = (abi: ReadonlyArray<{ type: string }>, type: string) =>
      abi.filter((i) => i.type === type).map((i) => formatAbiItem(i as never))
    const ours = ROUTER_ERRORS.map((e) => formatAbiItem(e))
    for (const e of ours) expect(signatures(router, "error")).toContain(e)
    // the others are the owner's and the constructor's, never raised by fillDirect
    expect(signatures(router, "error").filter((e) => !ours.includes(e))).toEqual([
      "NotOwner(address)",
      "ZeroAddress()"
    ])
    const functions = router.filter((i) => i.type === "function").map((i) => toFunctionSignature(i as never))
    for (const s of Object.values(ROUTER_SIGNATURES)) expect(functions).toContain(s)
    for (const f of FACADE_ABI) {
      const ours = toFunctionSignature(f)
      const theirs = facade.find((i) => i.type === "function" && i.name === f.name)
      expect(theirs === undefined ? undefined : toFunctionSignature(theirs as never)).toBe(ours)
      const outputs = (theirs as unknown as { outputs: ReadonlyArray<{ type: string; name: string }> }).outputs
      expect(outputs.map((o) => `${o.type} ${o.name}`)).toEqual(
        f.outputs.map((o) => `${o.type} ${"name" in o ? o.name : ""}`)
      )
    }
  })

  it("is skipped, with the flag it needs, without --rpc", async () => {
    const { exit, report } = await harness([])
    expect(exit._tag).toBe("Success")
    for (const r of report.results) {
      expect(r.status, r.name).toBe("skipped")
      expect(r.reason, r.name).toMatch(/^needs --rpc/)
    }
    expect(report.results.map((r) => r.name)).toEqual(CHAIN_CHECKS)
  }, scaled(60_000))

  it(
    "--rpc for both chains and --execute with the devnet user: every chain check passes, one fill is paid",
    async () => {
      const run = await harness([
        "--rpc",
        `8453=${source().rpcUrl}`,
        "--rpc",
        `56=${destination().rpcUrl}`,
        "--wallet-key",
        devnet.info.user.privateKey,
        "--execute",
        "--execute-timeout",
        "60"
      ])
      // the devnet keeps its document: every chain check passes, the run is a success
      for (const name of CHAIN_CHECKS) expect(run.result(name).status, `${name}\n${run.text}`).toBe("passed")
      expect(run.exit._tag).toBe("Success")
      expect(run.report.options.rpcChainIds).toEqual([8453, 56])
      expect(run.report.options.execute).toBe(true)
      expect(JSON.stringify(run.report)).not.toContain(source().rpcUrl)

      // the router check judged on the decoded errors: the good permit lacks only the allowance
      const verified = run.result("chain_router_verifies_permit").details!
      expect(verified.issued).toMatch(/^reverted: TokenTransferFailed\(/)
      expect(verified.tampered).toMatch(/^reverted: InvalidPermitSignature\(/)
      expect(verified.rerouted).toMatch(/^reverted: WrongSourceRouter\(/)

      // the fill's transactions are in the details, and they are on chain
      const details = run.result("chain_execute_fill").details!
      expect(details.state).toBe("PAID")
      for (const key of ["fillId", "approvalTx", "fillDirectTx", "payoutTx"]) {
        expect(details[key], key).toMatch(/^0x[0-9a-fA-F]{64}$/)
      }
      const fill = await publicOf(source()).getTransactionReceipt({ hash: details.fillDirectTx as Hex })
      expect(fill.status).toBe("success")
      expect(fill.to?.toLowerCase()).toBe(source().router.toLowerCase())
      const payout = await publicOf(destination()).getTransactionReceipt({ hash: details.payoutTx as Hex })
      expect(payout.status).toBe("success")
      expect(BigInt(details.recipientBalanceAfter!) - BigInt(details.recipientBalanceBefore!)).toBe(
        BigInt(details.amountOutRaw!)
      )
      const status = await (await fetch(`${devnet.info.server}/api/v6/execution-permits/${details.fillId}`)).json()
      expect(status.permit.state).toBe("PAID")
      expect(status.permit.sourceTxHash).toBe(details.fillDirectTx!.toLowerCase())
      expect(run.text).toContain(`fillDirectTx: ${details.fillDirectTx}`)
    },
    scaled(120_000)
  )

  it("--execute with a wallet that holds nothing sends nothing: inconclusive, naming what it looked at", async () => {
    const key = generatePrivateKey()
    const empty = privateKeyToAccount(key)
    const run = await harness([
      "--rpc",
      `8453=${source().rpcUrl}`,
      "--rpc",
      `56=${destination().rpcUrl}`,
      "--wallet-key",
      key,
      "--execute"
    ], "chain_execute_fill")
    const result = run.result("chain_execute_fill")
    expect(result.status).toBe("inconclusive")
    expect(result.reason).toContain(`the wallet ${empty.address} cannot pay any open route`)
    expect(result.reason).toMatch(/holds 0 < minimumFillInRaw/)
    expect(result.details).toBeUndefined()
    expect(await publicOf(source()).getTransactionCount({ address: empty.address })).toBe(0)
  }, scaled(60_000))

  it("a chain where the document's addresses have no code fails the code, hash, facade and router checks", async () => {
    const run = await harness(["--rpc", `8453=${bare.url}`])
    expect(JSON.stringify(run.exit)).toContain("Failed")
    for (const name of STATIC_CHECKS) expect(run.result(name).status, `${name}\n${run.text}`).toBe("failed")
    expect(run.result("chain_execute_fill").status).toBe("skipped")
    const missing = run.failures("chain_contracts_have_code").join("\n")
    for (const where of ["facade", "registry", "router", "erc7683.resolver", "oif.module"]) {
      expect(missing).toContain(`${where} 0x`)
    }
    expect(missing).toContain("on chain 8453")
    expect(run.failures("chain_runtime_code_hashes").join("\n")).toContain("is absent")
    expect(run.failures("chain_facade_fingerprint").join("\n")).toContain("does not answer")
    expect(run.failures("chain_router_verifies_permit").join("\n")).toContain("has no code on chain 8453")
  }, scaled(60_000))

  it(
    "an --rpc URL that serves another chain id is never judged: inconclusive, naming the chain it serves",
    async () => {
      const run = await harness(["--rpc", `8453=${destination().rpcUrl}`])
      for (const name of STATIC_CHECKS) {
        expect(run.result(name).status, name).toBe("inconclusive")
        expect(run.result(name).reason, name).toContain("the --rpc URL given for chain 8453 serves chain 56")
      }
      expect(run.exit._tag).toBe("Success")
    },
    scaled(60_000)
  )

  it(
    "the facade's discoveryURI is judged on what it answers: the manifest's URL passes, another URL fails",
    async () => {
      // the real facade code at the document's facade address on the bare chain, its storage written by hand:
      // slot 0 registry, 1 router, 2 the discoveryURI string (length and data, Solidity's layout)
      const document = await (await fetch(`${devnet.info.server}/.well-known/svc-onchain-discovery.json`)).json()
      const facade = document.facade as Hex
      const plant = async (uri: string) => {
        await rpc(bare.url, "anvil_setCode", [facade, SvcSolverDiscoveryV6.deployedBytecode])
        const word = (n: bigint) => toHex(n, { size: 32 })
        const set = (slot: bigint, value: Hex) => rpc(bare.url, "anvil_setStorageAt", [facade, word(slot), value])
        await set(0n, pad(document.registry as Hex))
        await set(1n, pad(document.router as Hex))
        const bytes = toBytes(uri)
        expect(bytes.length).toBeGreaterThan(31) // the long-string layout
        await set(2n, word(BigInt(bytes.length * 2 + 1)))
        const base = BigInt(keccak256(word(2n)))
        for (let i = 0; i * 32 < bytes.length; i++) {
          await set(base + BigInt(i), pad(toHex(bytes.slice(i * 32, i * 32 + 32)), { dir: "right" }))
        }
      }
      try {
        await plant(document.discoveryURI)
        const good = await harness(["--rpc", `8453=${bare.url}`], "chain_facade_discovery_uri")
        expect(good.result("chain_facade_discovery_uri").status, good.text).toBe("passed")
        await plant(document.onchainDiscoveryURI)
        const bad = await harness(["--rpc", `8453=${bare.url}`], "chain_facade_discovery_uri")
        expect(bad.failures("chain_facade_discovery_uri")).toEqual([
          `the facade on chain 8453 points scanners at another URL than the document's discoveryURI | ${document.discoveryURI} | ${document.onchainDiscoveryURI}`
        ])
      } finally {
        await rpc(bare.url, "anvil_setCode", [facade, "0x"])
      }
    },
    scaled(60_000)
  )

  it("a router that accepts any permit is told from one that verifies it", async () => {
    // on the bare chain, code at the router's address that answers every call with the permit's fillId
    // (calldata word 2): fillDirect "succeeds" for the good permit, the tampered one and the re-routed one
    const router = source().router
    await rpc(bare.url, "anvil_setCode", [router, "0x60243560005260206000f3"])
    try {
      const run = await harness(["--rpc", `8453=${bare.url}`], "chain_router_verifies_permit")
      expect(run.result("chain_router_verifies_permit").status).toBe("failed")
      const failures = run.failures("chain_router_verifies_permit").join("\n")
      expect(failures).toContain("does not refuse the permit with amountOutRaw + 1")
      expect(failures).toContain("does not refuse a copy of the permit naming another sourceRouter")
      expect(failures).toContain("permitDigest(permit) is not the envelope's permitDigest")
      expect(failures).not.toContain("refuses the issued permit")
    } finally {
      await rpc(bare.url, "anvil_setCode", [router, "0x"])
    }
  }, scaled(60_000))

  it("a router whose authority is another key refuses the deployment's permits: InvalidPermitSignature", async () => {
    const chain = source()
    const owner = createWalletClient({
      account: privateKeyToAccount(ANVIL_DEPLOYER_KEY),
      chain: chainOf(chain),
      transport: http(chain.rpcUrl)
    })
    const setAuthority = async (authority: Hex) => {
      const hash = await owner.writeContract({
        address: chain.router,
        abi: SvcMainnetRouterV6.abi,
        functionName: "setAuthority",
        args: [authority]
      })
      await publicOf(chain).waitForTransactionReceipt({ hash })
    }
    await setAuthority(privateKeyToAccount(Devnet.DEVNET_KEYS.payout).address)
    try {
      const run = await harness(["--rpc", `8453=${chain.rpcUrl}`], "chain_router_verifies_permit")
      expect(run.result("chain_router_verifies_permit").status).toBe("failed")
      const failures = run.failures("chain_router_verifies_permit")
      expect(failures).toHaveLength(1)
      expect(failures[0]).toMatch(/refuses the issued permit .* reverted: InvalidPermitSignature\(/)
    } finally {
      await setAuthority(privateKeyToAccount(Devnet.DEVNET_KEYS.authority).address)
    }
  }, scaled(60_000))
})
