/**
 * The wallet side of one fill on the devnet, with the client: a verified feed, a
 * permit for the test user, the ERC-20 approval and the one `fillDirect`
 * transaction on the source chain, then the permit's status until PAID (svc
 * watches the fill and pays out on the destination chain).
 *
 *   npm run devnet                     # in another terminal; prints "svc devnet ready <path>"
 *   node_modules/.bin/node examples/client/execute-on-devnet.ts .svc-devnet/devnet.json
 *
 * Prints one JSON object: the fillId, both transaction hashes, the amounts and the
 * recipient's balance before and after on the destination chain.
 */
import { createClient, isSvcClientError } from "@svc/client"
import { readFileSync } from "node:fs"
import { createPublicClient, createWalletClient, defineChain, erc20Abi, type Hex, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"

interface DevnetFile {
  /** null when the devnet runs its chains only */
  readonly server: string | null
  readonly chains: ReadonlyArray<{
    readonly chainId: number
    readonly rpcUrl: string
    readonly tokens: Readonly<Record<string, Hex>>
  }>
  readonly user: { readonly privateKey: Hex; readonly address: Hex }
}

const chainOf = (chainId: number, rpcUrl: string) =>
  defineChain({
    id: chainId,
    name: `devnet ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } }
  })

export const main = async (devnet: DevnetFile, options?: { readonly timeoutMs?: number }) => {
  if (devnet.server === null) throw new Error("devnet.json: this devnet runs its chains only; it has no server")
  const svc = createClient({ baseUrl: devnet.server })
  const user = privateKeyToAccount(devnet.user.privateKey)
  const [source, destination] = [devnet.chains[0]!, devnet.chains[1]!]
  const sourceChain = chainOf(source.chainId, source.rpcUrl)
  const destinationChain = chainOf(destination.chainId, destination.rpcUrl)
  const sourceClient = createPublicClient({ chain: sourceChain, transport: http(source.rpcUrl) })
  const destinationClient = createPublicClient({ chain: destinationChain, transport: http(destination.rpcUrl) })
  const wallet = createWalletClient({ account: user, chain: sourceChain, transport: http(source.rpcUrl) })

  // 1. A verified feed and the open route from the source chain to the destination chain.
  const feed = await svc.feed({ sourceChainId: source.chainId })
  const route = feed.openRoutes.find((r) => r.destinationChainId === String(destination.chainId))
  if (route === undefined) throw new Error(`no open route ${source.chainId} -> ${destination.chainId}`)

  // 2. A permit for 25 units of the source token, to the user on the destination chain.
  const amountInRaw = (BigInt(route.minimumFillInRaw) * 25n).toString()
  const request = await svc.permits.message({
    quoteId: route.quoteId,
    requestedAmountInRaw: amountInRaw,
    payer: user.address,
    recipient: user.address
  })
  const issued = await svc.permits.create({ request, signer: user, route })
  const tx = issued.transaction
  const destinationToken = issued.envelope.permit.destinationAsset as Hex
  const balanceOf = () =>
    destinationClient.readContract({
      address: destinationToken,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [user.address]
    })
  const before = await balanceOf()

  // 3. Approve the router for the source token, then the one fillDirect transaction.
  if (tx.approval !== null) {
    const approval = await wallet.writeContract({
      address: tx.approval.token as Hex,
      abi: erc20Abi,
      functionName: "approve",
      args: [tx.approval.spender as Hex, tx.approval.amount]
    })
    await sourceClient.waitForTransactionReceipt({ hash: approval })
  }
  const fill = await wallet.sendTransaction({ to: tx.to as Hex, data: tx.data as Hex, value: tx.value })
  const receipt = await sourceClient.waitForTransactionReceipt({ hash: fill })
  if (receipt.status !== "success") throw new Error(`fillDirect reverted: ${fill}`)

  // 4. svc observes the fill, waits for its confirmations and pays out: wait for PAID.
  const final = await svc.permits.waitFor(issued.fillId, { timeoutMs: options?.timeoutMs ?? 60_000 })
  const after = await balanceOf()
  return {
    fillId: issued.fillId,
    state: final.state,
    sourceTxHash: final.sourceTxHash,
    payoutTxHash: final.payoutTxHash,
    fillDirectTxHash: fill,
    amountInRaw: issued.envelope.permit.amountInRaw,
    amountOutRaw: issued.envelope.permit.amountOutRaw,
    recipientBalanceBefore: before.toString(),
    recipientBalanceAfter: after.toString()
  }
}

if (import.meta.main) {
  const path = process.argv[2] ?? process.env.SVC_DEVNET ?? ".svc-devnet/devnet.json"
  main(JSON.parse(readFileSync(path, "utf8")) as DevnetFile).then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error: unknown) => {
      console.error(isSvcClientError(error) ? `${error.code}: ${error.message}` : error)
      process.exitCode = 1
    }
  )
}
