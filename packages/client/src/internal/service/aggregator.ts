/**
 * The aggregator (`/v1`: `aggregator_chains`, `aggregator_tokens`,
 * `aggregator_health`, `aggregator_quote`, `aggregator_build`,
 * `aggregator_status`): typed calls, ETag revalidation of the operations the
 * contract declares a 304 for, the verified two-stage build, fill polling.
 * Internal.
 *
 * @since 0.1.0
 */
import { ADDRESS, BYTES32, QUOTE_TOKEN } from "@svc/protocol/Patterns"
import type { AggregatorBuildRequest, AggregatorQuoteRequest, AggregatorStatus } from "@svc/protocol/schema/Aggregator"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { InvalidInput, PermitInvalid, ResponseInvalid, RouteNotFound, SigningPayloadMismatch } from "../../Errors.ts"
import * as Permits from "../../Permits.ts"
import type {
  AggregatorApi,
  AggregatorCallError,
  BuildTransactionInput,
  PollOptions,
  StatusLookup
} from "../../SvcClient.ts"
import * as Operations from "../declared.ts"
import { retryTransient } from "../http.ts"
import type { Operation } from "../operations.ts"
import { type ClientEnv, nowSeconds } from "./env.ts"
import type { FeedReader } from "./feed.ts"
import type { ManifestReader } from "./manifests.ts"
import { poll } from "./poll.ts"

const signerAddress = (signer: Permits.MessageSigner): string | undefined => {
  const address = (signer as { readonly address?: unknown }).address
  return typeof address === "string" && ADDRESS.test(address) ? address : undefined
}

const LOOKUP_KEYS = ["fillId", "sourceTxHash", "quoteId", "userAddress", "quoteToken"] as const

/** The field that tells which of the contract's status answers a body is, per lookup key. */
const ANSWER_FIELD: Record<(typeof LOOKUP_KEYS)[number], "fillId" | "transactions" | "quoteValid"> = {
  fillId: "fillId",
  sourceTxHash: "fillId",
  quoteId: "transactions",
  userAddress: "transactions",
  quoteToken: "quoteValid"
}

/**
 * The aggregator methods of a client.
 *
 * @category constructors
 * @since 0.1.0
 */
export const aggregator = (env: ClientEnv, manifests: ManifestReader, feeds: FeedReader): AggregatorApi => {
  const kept = new Map<string, { readonly etag: string; readonly value: unknown }>()

  const endpoints = Effect.map(manifests.aggregator, (a) => a.manifest.endpoints)

  /** A GET: revalidated with the kept ETag when the contract declares a 304 for it. */
  const get = <A, E extends boolean>(operation: Operation<A, "aggregator", E>, url: string) =>
    Effect.gen(function*() {
      const previous = operation.revalidates ? kept.get(url) : undefined
      const headers: Record<string, string> = previous !== undefined ? { "if-none-match": previous.etag } : {}
      const answer = yield* env.call(operation, { url, headers })
      if (answer._tag === "Empty") {
        if (previous === undefined) {
          return yield* new ResponseInvalid({
            method: "GET",
            url,
            status: answer.status,
            reason: "304 without If-None-Match"
          })
        }
        return previous.value as A
      }
      const etag = answer.response.headers.get("etag")
      if (operation.revalidates && etag !== null) kept.set(url, { etag, value: answer.body })
      return answer.body
    })

  const post = <A>(operation: Operation<A, "aggregator", false>, url: string, body: unknown) =>
    Effect.map(env.call(operation, { url, body: JSON.stringify(body) }), (answer) => answer.body)

  const lookupStatus = (lookup: StatusLookup): Effect.Effect<unknown, AggregatorCallError> =>
    Effect.gen(function*() {
      const entries = Object.entries(lookup).filter(([, v]) => v !== undefined)
      if (entries.length !== 1) return yield* new InvalidInput({ field: "lookup", reason: "exactly one lookup key" })
      const [key, value] = entries[0] as [string, string]
      const valid = key === "userAddress"
        ? ADDRESS.test(value)
        : key === "quoteToken"
        ? QUOTE_TOKEN.test(value)
        : BYTES32.test(value)
      if (!(LOOKUP_KEYS as ReadonlyArray<string>).includes(key) || !valid) {
        return yield* new InvalidInput({ field: key, reason: "not a valid status lookup" })
      }
      const e = yield* endpoints
      const url = `${e.status}?${key}=${encodeURIComponent(value)}`
      const answer = yield* get(Operations.aggregator_status, url)
      // the contract declares one union of answers; each lookup key has its own member
      const field = ANSWER_FIELD[key as (typeof LOOKUP_KEYS)[number]]
      if (!(field in answer)) {
        return yield* new ResponseInvalid({
          method: "GET",
          url,
          status: 200,
          reason: `the answer to a ${key} lookup has no ${field}`
        })
      }
      return answer
    })

  const buildTransaction = Effect.fn("SvcClient.aggregator.buildTransaction")(function*(input: BuildTransactionInput) {
    const q = input.quote
    const userAddress = input.userAddress ?? q.userAddress ?? signerAddress(input.signer)
    if (userAddress === undefined || userAddress === null) {
      return yield* new InvalidInput({ field: "userAddress", reason: "the quote has no userAddress; give one" })
    }
    const recipient = input.recipient ?? q.recipient ?? userAddress
    const idempotencyKey = input.idempotencyKey ?? (yield* Effect.sync(Permits.newIdempotencyKey))
    const prepared = yield* Effect.fromResult(Permits.prepare({
      quoteId: q.quoteId,
      requestedAmountInRaw: q.amountIn,
      standard: "DIRECT",
      payer: userAddress,
      recipient,
      idempotencyKey
    }))
    const a = yield* manifests.aggregator
    const route = yield* feeds.routeOfQuote(q.quoteId)
    if (route.routeId.toLowerCase() !== q.routeId.toLowerCase()) {
      return yield* new RouteNotFound({
        routeId: q.routeId,
        quoteId: q.quoteId,
        reason: "the quote's routeId is not the signed route of its quoteId"
      })
    }
    const request: AggregatorBuildRequest = {
      quoteToken: q.quoteToken,
      quoteId: q.quoteId,
      routeId: q.routeId,
      userAddress: prepared.request.payer!,
      recipient: prepared.request.recipient!,
      idempotencyKey
    }
    const url = a.manifest.endpoints.build
    const stage1 = yield* retryTransient(post(Operations.aggregator_build, url, request), env.retry)
    if (!stage1.signatureRequired) {
      return yield* new ResponseInvalid({ method: "POST", url, status: 200, reason: "stage 1 answered a transaction" })
    }
    if (stage1.signingPayload.message !== prepared.message) {
      return yield* new SigningPayloadMismatch({ expected: prepared.message, received: stage1.signingPayload.message })
    }
    if (stage1.quote.quoteToken !== q.quoteToken || stage1.quote.amountOut !== q.amountOut) {
      return yield* new SigningPayloadMismatch({ expected: JSON.stringify(q), received: JSON.stringify(stage1.quote) })
    }
    const requestSignature = yield* Permits.signWith(input.signer, prepared.message)
    yield* Effect.fromResult(Permits.checkRequestSignature(prepared, requestSignature))
    const stage2 = yield* retryTransient(
      post(Operations.aggregator_build, url, { ...request, requestSignature }),
      env.retry
    )
    if (stage2.signatureRequired) {
      return yield* new ResponseInvalid({
        method: "POST",
        url,
        status: 200,
        reason: "stage 2 asked for a signature again"
      })
    }
    const envelope = stage2.permit
    const now = yield* nowSeconds
    const problems = Permits.permitProblems(envelope, {
      authority: a.expectedSigner,
      request: prepared.request,
      route,
      amountOutRaw: q.amountOut,
      now,
      clockSkewSeconds: env.clockSkewSeconds
    })
    const built = Permits.fillDirectTransaction(envelope)
    if (Result.isFailure(built)) problems.push(...built.failure.reasons)
    else {
      const tx = built.success
      const eq = (x: string, y: string) => x.toLowerCase() === y.toLowerCase()
      if (!eq(stage2.data, tx.data)) problems.push("TX_DATA_MISMATCH")
      if (!eq(stage2.target, tx.to)) problems.push("TX_TARGET_MISMATCH")
      if (!eq(stage2.from, tx.from)) problems.push("TX_FROM_MISMATCH")
      if (stage2.chainId !== tx.chainId || stage2.chainId !== q.fromChainId) problems.push("TX_CHAIN_ID_MISMATCH")
      if (BigInt(stage2.value) !== tx.value) problems.push("TX_VALUE_MISMATCH")
      const approvalOk = stage2.approval === null
        ? tx.approval === null
        : tx.approval !== null && eq(stage2.approval.spender, tx.approval.spender) &&
          BigInt(stage2.approval.amount) === tx.approval.amount
      if (!approvalOk) problems.push("TX_APPROVAL_MISMATCH")
      if (!eq(stage2.fillId, envelope.fillId)) problems.push("FILL_ID_MISMATCH")
      if (!eq(stage2.quoteId, q.quoteId) || !eq(stage2.routeId, q.routeId)) problems.push("TX_QUOTE_MISMATCH")
      if (!eq(envelope.permit.routeId, q.routeId)) problems.push("ROUTE_ID_MISMATCH")
    }
    if (problems.length > 0 || Result.isFailure(built)) {
      return yield* new PermitInvalid({ fillId: envelope.fillId, reasons: [...new Set(problems)] })
    }
    return {
      quote: q,
      fillId: envelope.fillId,
      expiresAt: stage2.expiresAt,
      envelope,
      transaction: built.success,
      response: stage2,
      idempotencyKey,
      message: prepared.message,
      requestSignature
    }
  })

  return {
    discover: Effect.withSpan(manifests.aggregator, "SvcClient.aggregator.discover"),
    chains: Effect.withSpan(
      Effect.flatMap(endpoints, (e) => get(Operations.aggregator_chains, e.chains)),
      "SvcClient.aggregator.chains"
    ),
    tokens: Effect.fn("SvcClient.aggregator.tokens")(function*(chainId?: number) {
      if (chainId !== undefined && !(Number.isSafeInteger(chainId) && chainId >= 1)) {
        return yield* new InvalidInput({ field: "chainId", reason: "an integer >= 1" })
      }
      const e = yield* endpoints
      return yield* get(
        Operations.aggregator_tokens,
        chainId === undefined ? e.tokens : `${e.tokens}?chainId=${chainId}`
      )
    }),
    health: Effect.withSpan(
      Effect.flatMap(endpoints, (e) => get(Operations.aggregator_health, e.health)),
      "SvcClient.aggregator.health"
    ),
    quote: Effect.fn("SvcClient.aggregator.quote")(function*(request: AggregatorQuoteRequest) {
      const e = yield* endpoints
      return yield* post(Operations.aggregator_quote, e.quote, request)
    }),
    build: Effect.fn("SvcClient.aggregator.build")(function*(request: AggregatorBuildRequest) {
      const e = yield* endpoints
      return yield* post(Operations.aggregator_build, e.build, request)
    }),
    buildTransaction,
    status: Effect.fn("SvcClient.aggregator.status")(function*(lookup: StatusLookup) {
      return yield* lookupStatus(lookup)
    }) as AggregatorApi["status"],
    waitForFill: Effect.fn("SvcClient.aggregator.waitForFill")(
      function*(fillId: string, options?: PollOptions<AggregatorStatus>) {
        return yield* poll(
          "fill status",
          lookupStatus({ fillId }) as Effect.Effect<AggregatorStatus, AggregatorCallError>,
          (status) => status.terminal,
          (a, b) => a.status === b.status && a.sourceTxHash === b.sourceTxHash && a.payoutTxHash === b.payoutTxHash,
          options
        )
      }
    )
  }
}
