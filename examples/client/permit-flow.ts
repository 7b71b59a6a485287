/**
 * The solver permit flow: verified feed, local request message, one wallet
 * signature, permit creation with an idempotency key, verification of the
 * returned permit, the fillDirect transaction, and the permit status.
 *
 *   node_modules/.bin/node examples/client/permit-flow.ts
 *
 * The payer is a fresh random key (SVC_PAYER_KEY to choose one): the demo server
 * only checks the signature. Sending the transaction needs a deployed router and
 * funds; the demo catalog's contracts are placeholders, so this script stops at
 * the transaction. SVC_WAIT_MS waits that long for a terminal state.
 */
import { createClient, isSvcClientError } from "@svc/client"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"

export const main = async (baseUrl: string, payerKey?: `0x${string}`, waitMs?: number) => {
  const svc = createClient({ baseUrl })
  const account = privateKeyToAccount(payerKey ?? generatePrivateKey())

  // 1. A verified feed; pick an open route from Base to an EVM chain (the recipient is an EVM address).
  const feed = await svc.feed({ sourceChainId: 8453 })
  const route = feed.openRoutes.find((r) => r.destinationChainId !== null)
  if (route === undefined) throw new Error("no open route from chain 8453 to an EVM chain")

  // 2. The request message, built locally (the server's request-message answer is identical).
  const prepared = await svc.permits.message({
    quoteId: route.quoteId,
    requestedAmountInRaw: route.minimumFillInRaw,
    payer: account.address,
    recipient: account.address
  })

  // 3. Sign once and create; a lost answer is retried with the same body and key.
  //    The returned permit is verified: digest, authority, amounts, identities, route terms.
  const issued = await svc.permits.create({ request: prepared, signer: account, route })

  // 4. The source transaction: approve (ERC-20 input), then fillDirect on the router.
  const tx = issued.transaction

  // 5. Status (PAID, EXPIRED and FAILED are terminal).
  const status = waitMs === undefined
    ? await svc.permits.get(issued.fillId)
    : await svc.permits.waitFor(issued.fillId, { timeoutMs: waitMs }).catch((e: unknown) => {
      if (isSvcClientError(e) && e.code === "SVC_SDK_TIMEOUT") return svc.permits.get(issued.fillId)
      throw e
    })

  return {
    routeId: route.routeId,
    message: prepared.message,
    idempotencyKey: issued.idempotencyKey,
    fillId: issued.fillId,
    httpStatus: issued.status,
    amountInRaw: issued.envelope.permit.amountInRaw,
    amountOutRaw: issued.envelope.permit.amountOutRaw,
    validUntil: issued.envelope.permit.validUntil,
    transaction: {
      chainId: tx.chainId,
      from: tx.from,
      to: tx.to,
      value: tx.value.toString(),
      data: tx.data,
      approval: tx.approval === null
        ? null
        : { token: tx.approval.token, spender: tx.approval.spender, amount: tx.approval.amount.toString() }
    },
    state: status.state
  }
}

if (import.meta.main) {
  const wait = process.env.SVC_WAIT_MS
  main(
    process.env.SVC_URL ?? "http://127.0.0.1:8787",
    process.env.SVC_PAYER_KEY as `0x${string}` | undefined,
    wait === undefined ? undefined : Number(wait)
  ).then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error: unknown) => {
      console.error(isSvcClientError(error) ? `${error.code}: ${error.message}` : error)
      process.exitCode = 1
    }
  )
}
