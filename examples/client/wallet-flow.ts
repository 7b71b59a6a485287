/**
 * The aggregator wallet flow with a viem account: chains, quote, build (stage 1
 * message checked locally, one personal_sign, stage 2), the verified
 * transaction, and the fill status. REFRESH_QUOTE answers are typed: re-quote.
 *
 *   node_modules/.bin/node examples/client/wallet-flow.ts
 *
 * With a real wallet, pass `(message) => walletClient.signMessage({ account, message })`
 * as the signer and send `built.transaction` with `walletClient.sendTransaction`.
 */
import { createClient, isSvcClientError, RefreshQuote } from "@svc/client"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"

export const main = async (baseUrl: string, payerKey?: `0x${string}`) => {
  const svc = createClient({ baseUrl })
  const account = privateKeyToAccount(payerKey ?? generatePrivateKey())

  // 1. Chains and open pairs; a pair spreads into a quote request.
  const chains = await svc.aggregator.chains()
  const pair = chains.pairs.find((p) => p.fromChainId === 8453 && p.toChainId === 56) ?? chains.pairs[0]
  if (pair === undefined) throw new Error("no open pair")
  const limits = chains.routes.find((r) => r.routeId === pair.routeId)!
  const { routeId: _routeId, ...fields } = pair

  // 2. Quote, build and sign; on REFRESH_QUOTE (expired, closed or changed quote) quote again.
  for (let attempt = 1;; attempt++) {
    const quote = await svc.aggregator.quote({
      ...fields,
      amountIn: limits.minimumFillInRaw,
      userAddress: account.address
    })
    try {
      const built = await svc.aggregator.buildTransaction({ quote, signer: account })
      // 3. Send built.transaction.approval (ERC-20) then the transaction itself; then follow the fill.
      const status = await svc.aggregator.status({ fillId: built.fillId })
      return {
        quote: { amountIn: quote.amountIn, amountOut: quote.amountOut, expiresAt: quote.expiresAt },
        fillId: built.fillId,
        transaction: {
          chainId: built.transaction.chainId,
          to: built.transaction.to,
          value: built.transaction.value.toString(),
          data: built.transaction.data,
          approval: built.transaction.approval === null
            ? null
            : { spender: built.transaction.approval.spender, amount: built.transaction.approval.amount.toString() }
        },
        status: status.status,
        attempts: attempt
      }
    } catch (error) {
      if (error instanceof RefreshQuote && attempt < 3) continue
      throw error
    }
  }
}

if (import.meta.main) {
  main(process.env.SVC_URL ?? "http://127.0.0.1:8787", process.env.SVC_PAYER_KEY as `0x${string}` | undefined).then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error: unknown) => {
      console.error(isSvcClientError(error) ? `${error.code}: ${error.message}` : error)
      process.exitCode = 1
    }
  )
}
