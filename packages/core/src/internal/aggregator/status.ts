/**
 * Fill status: the lookup of the query parameters, the aggregator status of a
 * permit record, the lists by quoteId or userAddress, and the usability of a
 * quote. Internal: the public names are re-exported by `Aggregator`.
 *
 * @since 0.1.0
 */
import { ADDRESS, BYTES32, QUOTE_TOKEN, screamingSnake as screaming } from "@svc/protocol/Patterns"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import type {
  AggregatorErrorCode,
  AggregatorQuoteValidity,
  AggregatorStatus,
  AggregatorStatusList
} from "@svc/protocol/schema/Aggregator"
import { Effect, Result } from "effect"
import type { StatusLookup } from "../../Aggregator.ts"
import { aggregatorStatusOf, isTerminal } from "../../Lifecycle.ts"
import { envelopeOf } from "../../PermitEnvelope.ts"
import type { PermitRecord, StoreShape } from "../../Store.ts"
import { quoteProblem, type QuoteProblemDeps } from "./building.ts"
import { type AggregatorFailure, failure, storeFailure } from "./errors.ts"
import { loadQuote } from "./quoteToken.ts"
import { eip55, nowSeconds } from "./shared.ts"

/**
 * Most fills a list lookup returns.
 *
 * @category models
 * @since 0.1.0
 */
export const STATUS_LIST_MAX = 20

/**
 * The status query parameters, in the order they are named in refusals.
 *
 * @category constants
 * @since 0.1.0
 */
export const LOOKUPS = ["fillId", "sourceTxHash", "quoteId", "userAddress", "quoteToken"] as const

/**
 * The lookup of status query parameters: exactly one of fillId, sourceTxHash,
 * quoteId, userAddress, quoteToken, well formed (else 400 INVALID_REQUEST).
 * Unknown or repeated parameters are refused by the caller.
 *
 * @category operations
 * @since 0.1.0
 */
export const statusLookupOf = (
  params: Readonly<Record<string, string>>
): Result.Result<StatusLookup, AggregatorFailure> => {
  const given = LOOKUPS.filter((name) => params[name] !== undefined)
  if (given.length === 0) {
    return Result.fail(failure("INVALID_REQUEST", ["LOOKUP_MISSING"], {
      detail: `give exactly one of ${LOOKUPS.join(", ")}`
    }))
  }
  if (given.length > 1) {
    return Result.fail(failure("INVALID_REQUEST", ["LOOKUP_AMBIGUOUS"], {
      detail: `give exactly one of ${LOOKUPS.join(", ")}, not ${given.join(" and ")}`
    }))
  }
  const by = given[0]!
  const value = params[by]!
  const ok = by === "userAddress"
    ? ADDRESS.test(value) && PermitMessage.hasValidChecksum(value)
    : by === "quoteToken"
    ? QUOTE_TOKEN.test(value)
    : BYTES32.test(value)
  if (!ok) {
    return Result.fail(failure("INVALID_REQUEST", [`${screaming(by)}_INVALID`], {
      detail: by === "userAddress"
        ? "userAddress: 0x followed by 40 hex digits (a mixed-case address needs a valid EIP-55 checksum)"
        : by === "quoteToken"
        ? "quoteToken: 64 lowercase hex digits"
        : `${by}: 0x followed by 64 hex digits`
    }))
  }
  return Result.succeed({ by, value } as StatusLookup)
}

/**
 * The aggregator status of a permit record: `expiresAt` is the permit's
 * validUntil, `updatedAt` the last state change (Unix seconds). Undefined for a
 * permit without EVM chain ids on both sides.
 *
 * @category operations
 * @since 0.1.0
 */
export const statusOf = (record: PermitRecord): AggregatorStatus | undefined => {
  const envelope = envelopeOf(record)
  const p = envelope.permit
  const from = Number(p.sourceChainId)
  const to = Number(p.destinationChainId)
  if (!(from >= 1) || !(to >= 1)) return undefined
  return {
    fillId: envelope.fillId,
    quoteId: p.quoteId,
    routeId: p.routeId,
    status: aggregatorStatusOf(record.state),
    terminal: isTerminal(record.state),
    sourceTxHash: record.sourceTxHash,
    payoutTxHash: record.payoutTxHash,
    amountIn: p.amountInRaw,
    amountOut: p.amountOutRaw,
    fromChainId: from,
    toChainId: to,
    userAddress: p.payer,
    recipient: p.recipient,
    expiresAt: record.validUntil,
    updatedAt: Math.floor(record.updatedAt / 1000)
  }
}

/**
 * The status of one found record, or FILL_NOT_FOUND (no record, or no status).
 *
 * @category operations
 * @since 0.1.0
 */
export const fillStatus = (record: PermitRecord | undefined): Effect.Effect<AggregatorStatus, AggregatorFailure> => {
  const status = record === undefined ? undefined : statusOf(record)
  return status === undefined
    ? Effect.fail(failure("FILL_NOT_FOUND", ["FILL_NOT_FOUND"]))
    : Effect.succeed(status)
}

/**
 * The list body of a quoteId or userAddress lookup (`value` lowercase): the
 * statuses of at most {@link STATUS_LIST_MAX} records, in their order; the
 * lookup echoes a userAddress in EIP-55 form.
 *
 * @category operations
 * @since 0.1.0
 */
export const statusListOf = (
  by: "quoteId" | "userAddress",
  value: string,
  records: ReadonlyArray<PermitRecord>
): AggregatorStatusList => {
  const transactions = records.slice(0, STATUS_LIST_MAX).flatMap((r) => {
    const s = statusOf(r)
    return s === undefined ? [] : [s]
  })
  return {
    transactions,
    lookup: { by, value: by === "quoteId" ? value : eip55(value) },
    limit: STATUS_LIST_MAX
  }
}

/**
 * The quoteToken lookup body of why a quote cannot be built (undefined: it can).
 *
 * @category operations
 * @since 0.1.0
 */
export const quoteValidityOf = (problem: { readonly code: AggregatorErrorCode } | undefined): AggregatorQuoteValidity =>
  problem === undefined ? { quoteValid: true, quoteError: null } : { quoteValid: false, quoteError: problem.code }

/**
 * What `status` reads.
 *
 * @category models
 * @since 0.1.0
 */
export interface StatusDeps extends QuoteProblemDeps {
  readonly store: Pick<StoreShape, "getPermit" | "findBySourceTx" | "listPermits" | "getQuote">
  /** The HMAC key of quote tokens. */
  readonly key: Uint8Array
}

/**
 * One fill, recent fills, or the usability of a quote.
 *
 * @category operations
 * @since 0.1.0
 */
export const status = Effect.fn("Aggregator.status")(function*(deps: StatusDeps, lookup: StatusLookup) {
  const store = deps.store
  switch (lookup.by) {
    case "fillId":
      return yield* fillStatus(yield* store.getPermit(lookup.value.toLowerCase()).pipe(Effect.mapError(storeFailure)))
    case "sourceTxHash":
      return yield* fillStatus(
        yield* store.findBySourceTx(lookup.value.toLowerCase()).pipe(Effect.mapError(storeFailure))
      )
    case "quoteId":
    case "userAddress": {
      const value = lookup.value.toLowerCase()
      const records = yield* store.listPermits(
        lookup.by === "quoteId"
          ? { quoteId: value, limit: STATUS_LIST_MAX }
          : { payerAddress: value, limit: STATUS_LIST_MAX }
      ).pipe(Effect.mapError(storeFailure))
      return statusListOf(lookup.by, value, records)
    }
    case "quoteToken": {
      const q = yield* loadQuote(store, deps.key, lookup.value)
      if (q === undefined) return quoteValidityOf({ code: "QUOTE_NOT_FOUND" })
      const problem = yield* quoteProblem(deps, q, yield* nowSeconds, true).pipe(Effect.catch((e) => Effect.succeed(e)))
      return quoteValidityOf(problem)
    }
  }
})
