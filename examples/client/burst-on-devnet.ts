/**
 * Many fills at once on the devnet: N permits for the test user on the route
 * 8453 -> 56, one approval, their N `fillDirect` transactions mined in one
 * source block, then every permit followed until PAID. Prints one JSON object:
 * the fill block, the destination blocks the payouts were mined in, and the
 * times from the fill's block to the first and the last PAID.
 *
 *   npm run devnet                     # in another terminal; prints "svc devnet ready <path>"
 *   node_modules/.bin/node examples/client/burst-on-devnet.ts .svc-devnet/devnet.json 20
 *
 * The devnet's server must let one payer hold that many permits
 * (SVC_HOLD_SHARE_PAYER_BPS, SVC_HOLD_SHARE_NEW_PAYERS_BPS, SVC_PERMIT_RATE_LIMIT).
 */
import { createClient } from "@svc/client"
import { readFileSync } from "node:fs"
import { createPublicClient, createWalletClient, defineChain, erc20Abi, type Hex, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"

interface DevnetFile {
  readonly server: string | null
  readonly chains: ReadonlyArray<{ readonly chainId: number; readonly rpcUrl: string }>
  readonly user: { readonly privateKey: Hex; readonly address: Hex }
}

const rpc = async (url: string, method: string, params: ReadonlyArray<unknown> = []) => {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
  })
  return ((await r.json()) as { result: unknown }).result
}

/** Runs a burst of `fills` on a devnet; see the module documentation. */
export const burst = async (devnet: DevnetFile, options: { readonly fills: number; readonly timeoutMs?: number }) => {
  if (devnet.server === null) throw new Error("devnet.json: this devnet runs its chains only; it has no server")
  const [source, destination] = [devnet.chains[0]!, devnet.chains[1]!]
  const svc = createClient({ baseUrl: devnet.server })
  const user = privateKeyToAccount(devnet.user.privateKey)
  const feed = await svc.feed({ sourceChainId: source.chainId })
  const route = feed.openRoutes.find((r) => r.destinationChainId === String(destination.chainId))
  if (route === undefined) throw new Error(`no open route ${source.chainId} -> ${destination.chainId}`)
  const issued = []
  for (let i = 0; i < options.fills; i++) {
    const request = await svc.permits.message({
      quoteId: route.quoteId,
      requestedAmountInRaw: route.minimumFillInRaw,
      payer: user.address,
      recipient: user.address
    })
    issued.push(await svc.permits.create({ request, signer: user, route }))
  }
  const chain = defineChain({
    id: source.chainId,
    name: `devnet ${source.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [source.rpcUrl] } }
  })
  const sourceClient = createPublicClient({ chain, transport: http(source.rpcUrl), pollingInterval: 100 })
  const wallet = createWalletClient({ account: user, chain, transport: http(source.rpcUrl) })
  // one approval for every fill
  const approval = issued[0]!.transaction.approval!
  const total = issued.reduce((sum, p) => sum + p.transaction.approval!.amount, 0n)
  await sourceClient.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: approval.token as Hex,
      abi: erc20Abi,
      functionName: "approve",
      args: [approval.spender as Hex, total]
    })
  })
  // every fill in one block: the chain mines nothing until they are all in its pool
  await rpc(source.rpcUrl, "evm_setIntervalMining", [0])
  let fillBlock: bigint
  let fillTime: number
  try {
    const first = await sourceClient.getTransactionCount({ address: user.address, blockTag: "latest" })
    for (const [i, p] of issued.entries()) {
      await wallet.sendTransaction({
        to: p.transaction.to as Hex,
        data: p.transaction.data as Hex,
        value: p.transaction.value,
        gas: 200_000n,
        nonce: first + i
      })
    }
    await rpc(source.rpcUrl, "evm_mine")
    const block = await sourceClient.getBlock({ blockTag: "latest" })
    fillBlock = block.number
    fillTime = Number(block.timestamp) * 1000
    if (block.transactions.length !== options.fills) {
      throw new Error(`${block.transactions.length} of ${options.fills} fills in one block`)
    }
  } finally {
    await rpc(source.rpcUrl, "evm_setIntervalMining", [1])
  }
  const paidAt = new Map<string, number>()
  const payoutTx = new Map<string, string>()
  const deadline = Date.now() + (options.timeoutMs ?? 600_000)
  while (paidAt.size < options.fills && Date.now() < deadline) {
    for (const p of issued) {
      if (paidAt.has(p.fillId)) continue
      const status = await svc.permits.get(p.fillId)
      if (status.state === "PAID") {
        paidAt.set(p.fillId, Date.now())
        payoutTx.set(p.fillId, status.payoutTxHash!)
      }
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  if (paidAt.size < options.fills) throw new Error(`${paidAt.size} of ${options.fills} PAID in time`)
  const destinationClient = createPublicClient({ transport: http(destination.rpcUrl) })
  const blocks = new Set<bigint>()
  for (const hash of payoutTx.values()) {
    blocks.add((await destinationClient.getTransactionReceipt({ hash: hash as Hex })).blockNumber)
  }
  const sorted = [...blocks].sort((a, b) => (a < b ? -1 : 1))
  const times = [...paidAt.values()]
  return {
    fills: options.fills,
    fillBlock: Number(fillBlock),
    payoutBlocks: sorted.length,
    firstPayoutBlock: Number(sorted[0]!),
    lastPayoutBlock: Number(sorted.at(-1)!),
    firstPaidMs: Math.min(...times) - fillTime,
    allPaidMs: Math.max(...times) - fillTime
  }
}

if (import.meta.main) {
  const [file, count] = process.argv.slice(2)
  if (file === undefined) {
    process.stderr.write("usage: node burst-on-devnet.ts <devnet.json> [fills]\n")
    process.exit(2)
  }
  const devnet = JSON.parse(readFileSync(file, "utf8")) as DevnetFile
  const result = await burst(devnet, { fills: Number(count ?? 20) })
  process.stdout.write(`${JSON.stringify(result)}\n`)
}
