/**
 * Helpers of the end-to-end tests on `svc devnet`'s chains: viem clients of a
 * devnet chain, JSON-RPC calls (anvil's test methods among them), waiting for a
 * condition, the vault's payout events, a permit for the test user with its
 * approval sent, the owner's vault top-ups and withdrawals, and `svc admin` on
 * the devnet server's store.
 */
import { createClient } from "@svc/client"
import { SvcTestToken, SvcVaultV6 } from "@svc/contracts/artifacts"
import { execFile } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  type Hex,
  http,
  parseEventLogs,
  type PublicClient
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { scaled } from "../../../../test/support/time.ts"
import * as Devnet from "../../src/Devnet.ts"

export const user = privateKeyToAccount(Devnet.DEVNET_KEYS.user)
export const payout = privateKeyToAccount(Devnet.DEVNET_KEYS.payout)
export const deployer = privateKeyToAccount(Devnet.DEVNET_KEYS.deployer)

export const chainOf = (c: Devnet.DevnetChain) =>
  defineChain({
    id: c.chainId,
    name: `devnet ${c.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [c.rpcUrl] } }
  })

export const publicOf = (c: Devnet.DevnetChain) =>
  createPublicClient({ chain: chainOf(c), transport: http(c.rpcUrl), pollingInterval: 100 }) as PublicClient

export const rpc = (c: Devnet.DevnetChain, method: string, params: ReadonlyArray<unknown> = []) =>
  publicOf(c).request({ method, params } as never) as Promise<unknown>

export const nonceOf = (c: Devnet.DevnetChain, address: Hex, blockTag: "latest" | "pending" = "pending") =>
  publicOf(c).getTransactionCount({ address, blockTag })

export const waitUntil = async <A>(what: string, f: () => Promise<A | undefined>, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + scaled(timeoutMs)
  for (;;) {
    const value = await f()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 150, undefined))
  }
}

/** The PayoutV6 events of a fillId on the destination vault. */
export const payoutsOf = async (c: Devnet.DevnetChain, fillId: string) => {
  const logs = await publicOf(c).getLogs({ address: c.vault, fromBlock: 0n, toBlock: "latest" })
  return parseEventLogs({ abi: SvcVaultV6.abi, logs, eventName: "PayoutV6" }).filter((l) =>
    l.args.fillId.toLowerCase() === fillId.toLowerCase()
  )
}

/**
 * A permit for the test user on the route `source` -> `destination` of the
 * devnet, `units` times the route's minimum, approved; `fill()` sends the fill.
 */
export const permitFor = async (
  devnet: Devnet.Devnet,
  amountUnits: bigint,
  options?: { readonly source?: number; readonly destination?: number; readonly server?: string }
) => {
  const svc = createClient({ baseUrl: options?.server ?? devnet.info.server! })
  const source = devnet.info.chains[options?.source ?? 0]!
  const destination = devnet.info.chains[options?.destination ?? 1]!
  const feed = await svc.feed({ sourceChainId: source.chainId })
  const route = feed.openRoutes.find((r) => r.destinationChainId === String(destination.chainId))!
  const request = await svc.permits.message({
    quoteId: route.quoteId,
    requestedAmountInRaw: (BigInt(route.minimumFillInRaw) * amountUnits).toString(),
    payer: user.address,
    recipient: user.address
  })
  const issued = await svc.permits.create({ request, signer: user, route })
  const wallet = createWalletClient({ account: user, chain: chainOf(source), transport: http(source.rpcUrl) })
  const tx = issued.transaction
  // on top of what earlier permits still have approved (their fills may not be sent yet)
  const approved = await publicOf(source).readContract({
    address: tx.approval!.token as Hex,
    abi: erc20Abi,
    functionName: "allowance",
    args: [user.address, tx.approval!.spender as Hex]
  })
  const approval = await wallet.writeContract({
    address: tx.approval!.token as Hex,
    abi: erc20Abi,
    functionName: "approve",
    args: [tx.approval!.spender as Hex, approved + tx.approval!.amount]
  })
  await publicOf(source).waitForTransactionReceipt({ hash: approval })
  return {
    svc,
    issued,
    fill: () => wallet.sendTransaction({ to: tx.to as Hex, data: tx.data as Hex, value: tx.value, gas: 400_000n })
  }
}

/** The state of a permit, as the server's status answers it. */
export const stateOf = (devnet: Devnet.Devnet, fillId: string) =>
  createClient({ baseUrl: devnet.info.server! }).permits.get(fillId)

/** The vault's balance of the chain's test token. */
export const vaultBalance = (c: Devnet.DevnetChain) =>
  publicOf(c).readContract({
    address: Object.values(c.tokens)[0]!,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [c.vault]
  })

const ownerWallet = (c: Devnet.DevnetChain) =>
  createWalletClient({ account: deployer, chain: chainOf(c), transport: http(c.rpcUrl) })

/** The owner withdraws `amount` of the test token from the vault (mined before it returns unless `wait` is false). */
export const withdraw = async (c: Devnet.DevnetChain, amount: bigint, wait = true) => {
  const hash = await ownerWallet(c).writeContract({
    address: c.vault,
    abi: SvcVaultV6.abi,
    functionName: "withdraw",
    args: [Object.values(c.tokens)[0]!, deployer.address, amount]
  })
  if (wait) await publicOf(c).waitForTransactionReceipt({ hash })
  return hash
}

/** The owner tops the vault up with newly minted test tokens. */
export const topUp = async (c: Devnet.DevnetChain, amount: bigint, wait = true) => {
  const hash = await ownerWallet(c).writeContract({
    address: Object.values(c.tokens)[0]!,
    abi: SvcTestToken.abi,
    functionName: "mint",
    args: [c.vault, amount]
  })
  if (wait) await publicOf(c).waitForTransactionReceipt({ hash })
  return hash
}

const execFileAsync = promisify(execFile)
const BIN = fileURLToPath(new URL("../../src/bin.ts", import.meta.url))

/**
 * `svc admin <args>` on the devnet server's store; its JSON answer. Asynchronous:
 * the test's own proxies in front of the server's RPC keep answering meanwhile.
 */
export const admin = async (dataDir: string, ...args: Array<string>) => {
  const { stdout } = await execFileAsync(process.execPath, [BIN, "admin", ...args], {
    env: { ...process.env, SVC_DATA_DIR: join(dataDir, "server"), SVC_LOG_LEVEL: "none" },
    encoding: "utf8"
  })
  return JSON.parse(stdout)
}
