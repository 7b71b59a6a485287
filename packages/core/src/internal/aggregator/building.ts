/**
 * The two-stage build: stage 1 (no requestSignature) answers the message to
 * sign, stage 2 the `fillDirect` transaction with its permit; and why a stored
 * quote cannot be built now (shared with the quoteToken status lookup).
 * Internal.
 *
 * Order of checks (the first failing check answers): EIP-55 checksums
 * (INVALID_REQUEST), the stored quote of quoteToken, quoteId and routeId
 * (QUOTE_NOT_FOUND), userAddress and recipient against the quote's
 * (INVALID_REQUEST), then {@link quoteProblem} (skipped by a stage 2 whose
 * idempotency key already has a permit: it replays), then the permit service.
 *
 * @since 0.1.0
 */
import * as PermitAbi from "@svc/protocol/PermitAbi"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import type {
  AggregatorBuildRequest,
  AggregatorBuildSignatureRequired,
  AggregatorBuildTransaction,
  AggregatorQuote
} from "@svc/protocol/schema/Aggregator"
import type { Route } from "@svc/protocol/schema/Feed"
import type { ExecutionPermitEnvelope, PermitCreateRequest, PermitRequest } from "@svc/protocol/schema/Permit"
import { Effect, Result } from "effect"
import { scopeOf } from "../../PermitIdempotency.ts"
import type { PermitsShape } from "../../Permits.ts"
import type { FreshQuote, PricingShape } from "../../Pricing.ts"
import type { Publication } from "../../Publisher.ts"
import type { StoreShape } from "../../Store.ts"
import { type AggregatorFailure, failure, fromPermitError, pricingFailure, storeFailure } from "./errors.ts"
import { loadQuote } from "./quoteToken.ts"
import { checksumIssues, nowSeconds, quotable, sameAddress, ZERO_ADDRESS } from "./shared.ts"

// ---------------------------------------------------------------------------
// Why a stored quote cannot be built
// ---------------------------------------------------------------------------

/**
 * QUOTE_EXPIRED when `now` (Unix seconds) is at or past the quote's expiresAt.
 *
 * @category constructors
 * @since 0.1.0
 */
export const expiryProblem = (q: AggregatorQuote, now: number): AggregatorFailure | undefined =>
  now >= q.expiresAt
    ? failure("QUOTE_EXPIRED", ["QUOTE_EXPIRED"], { detail: `the quote expired at ${q.expiresAt}; get a new quote` })
    : undefined

/**
 * The index of the quote's route in a publication when it is quotable at `now`;
 * else ROUTE_CLOSED (QUOTE_ID_CHANGED: no route has the quoteId any more;
 * ROUTE_NOT_OPEN: it is not open now).
 *
 * @category constructors
 * @since 0.1.0
 */
export const routeOfQuote = (
  q: AggregatorQuote,
  publication: Pick<Publication, "routeIndexByQuote" | "routes">,
  now: number
): Result.Result<number, AggregatorFailure> => {
  const index = publication.routeIndexByQuote.get(q.quoteId.toLowerCase())
  if (index === undefined) {
    return Result.fail(
      failure("ROUTE_CLOSED", ["QUOTE_ID_CHANGED"], { detail: "the route's terms changed; get a new quote" })
    )
  }
  if (!quotable(publication.routes[index]!, now)) {
    return Result.fail(
      failure("ROUTE_CLOSED", ["ROUTE_NOT_OPEN"], { detail: "the quoted route is not open now; get a new quote" })
    )
  }
  return Result.succeed(index)
}

/**
 * INSUFFICIENT_CAPACITY when the quote's amountIn is above the route's maxAvailableInRaw now.
 *
 * @category constructors
 * @since 0.1.0
 */
export const capacityProblem = (q: AggregatorQuote, route: Route): AggregatorFailure | undefined =>
  BigInt(q.amountIn) > BigInt(route.maxAvailableInRaw)
    ? failure("INSUFFICIENT_CAPACITY", ["ABOVE_MAX_AVAILABLE"], { retryAfterSeconds: 30 })
    : undefined

/**
 * QUOTE_CHANGED when a fresh price no longer covers the quote's amountOut.
 *
 * @category constructors
 * @since 0.1.0
 */
export const priceProblem = (q: AggregatorQuote, fresh: FreshQuote): AggregatorFailure | undefined =>
  fresh.amountOutRaw < BigInt(q.amountOut) ? failure("QUOTE_CHANGED", ["PRICE_MOVED"]) : undefined

/**
 * What {@link quoteProblem} reads.
 *
 * @category models
 * @since 0.1.0
 */
export interface QuoteProblemDeps {
  readonly current: Effect.Effect<Publication, AggregatorFailure>
  readonly pricing: Pick<PricingShape, "quote">
}

/**
 * Why a stored quote cannot be built at `now` (Unix seconds), or undefined when
 * it can: expired, then its route gone or not open, then (with `checkPrice`)
 * capacity and a fresh price. Fails only when the publication or pricing is
 * unavailable.
 *
 * @category constructors
 * @since 0.1.0
 */
export const quoteProblem = Effect.fn("Aggregator.quoteProblem")(function*(
  deps: QuoteProblemDeps,
  q: AggregatorQuote,
  now: number,
  checkPrice: boolean
) {
  const expired = expiryProblem(q, now)
  if (expired !== undefined) return expired
  const publication = yield* deps.current
  const index = routeOfQuote(q, publication, now)
  if (Result.isFailure(index)) return index.failure
  if (!checkPrice) return undefined
  const capacity = capacityProblem(q, publication.routes[index.success]!)
  if (capacity !== undefined) return capacity
  const fresh = yield* deps.pricing.quote(publication.catalogRoutes[index.success]!, BigInt(q.amountIn)).pipe(
    Effect.mapError(pricingFailure)
  )
  return priceProblem(q, fresh)
})

// ---------------------------------------------------------------------------
// Request checks
// ---------------------------------------------------------------------------

/**
 * The quote a build request may use: the stored quote (undefined when none)
 * must have the request's quoteId and routeId (else QUOTE_NOT_FOUND), and the
 * request's userAddress and recipient must equal the quote's when it named them
 * (else INVALID_REQUEST).
 *
 * @category constructors
 * @since 0.1.0
 */
export const matchQuote = (
  q: AggregatorQuote | undefined,
  request: AggregatorBuildRequest
): Result.Result<AggregatorQuote, AggregatorFailure> => {
  if (
    q === undefined || q.quoteId.toLowerCase() !== request.quoteId.toLowerCase() ||
    q.routeId.toLowerCase() !== request.routeId.toLowerCase()
  ) {
    return Result.fail(failure("QUOTE_NOT_FOUND", ["QUOTE_NOT_FOUND"], {
      detail: "no stored quote has this quoteToken, quoteId and routeId"
    }))
  }
  if (q.userAddress !== null && !sameAddress(q.userAddress, request.userAddress)) {
    return Result.fail(
      failure("INVALID_REQUEST", ["USER_ADDRESS_MISMATCH"], {
        detail: "userAddress differs from the quote's userAddress"
      })
    )
  }
  if (request.recipient !== undefined && q.recipient !== null && !sameAddress(q.recipient, request.recipient)) {
    return Result.fail(
      failure("INVALID_REQUEST", ["RECIPIENT_MISMATCH"], { detail: "recipient differs from the quote's recipient" })
    )
  }
  return Result.succeed(q)
}

/**
 * The solver permit request of a build: standard DIRECT, payer = userAddress,
 * recipient = the request's, else the quote's, else the userAddress,
 * requestedAmountInRaw = the quote's amountIn.
 *
 * @category constructors
 * @since 0.1.0
 */
export const permitRequestOf = (q: AggregatorQuote, request: AggregatorBuildRequest): PermitRequest => ({
  quoteId: q.quoteId,
  requestedAmountInRaw: q.amountIn,
  standard: "DIRECT",
  payer: request.userAddress,
  recipient: request.recipient ?? q.recipient ?? request.userAddress,
  idempotencyKey: request.idempotencyKey
})

/**
 * The idempotency scope and key of a signed request, when it normalizes (a
 * request that does not is left to the permit service to refuse).
 *
 * @category constructors
 * @since 0.1.0
 */
export const idempotencySlotOf = (
  signed: PermitCreateRequest
): { readonly scope: string; readonly key: string } | undefined => {
  const normalized = PermitMessage.normalizeResult(signed, { strict: false })
  return Result.isSuccess(normalized)
    ? { scope: scopeOf(normalized.success), key: normalized.success.idempotencyKey }
    : undefined
}

// ---------------------------------------------------------------------------
// Stage bodies
// ---------------------------------------------------------------------------

/**
 * The stage 1 body: the message to sign (EIP-191 personal_sign of its UTF-8).
 *
 * @category constructors
 * @since 0.1.0
 */
export const signatureRequiredOf = (q: AggregatorQuote, message: string): AggregatorBuildSignatureRequired => ({
  signatureRequired: true as const,
  signingPayload: { message, standard: "DIRECT" as const, encoding: "EIP191_PERSONAL_SIGN_UTF8" as const },
  quote: q,
  expiresAt: q.expiresAt
})

/**
 * The stage 2 body: the `fillDirect` transaction (calldata `data`) of a permit.
 * A native coin input (the zero address) is sent as value; a token needs an
 * approval of the router.
 *
 * @category constructors
 * @since 0.1.0
 */
export const transactionOf = (
  q: AggregatorQuote,
  envelope: ExecutionPermitEnvelope,
  data: string
): AggregatorBuildTransaction => {
  const permit = envelope.permit
  const native = q.fromToken.toLowerCase() === ZERO_ADDRESS
  return {
    signatureRequired: false as const,
    chainId: Number(permit.sourceChainId),
    from: permit.payer,
    target: envelope.execution.target,
    data,
    value: native ? permit.amountInRaw : "0",
    approval: native ? null : { spender: envelope.execution.target, amount: permit.amountInRaw },
    fillId: envelope.fillId,
    quoteId: permit.quoteId,
    routeId: permit.routeId,
    expiresAt: envelope.expiresAt,
    quote: q,
    permit: envelope
  }
}

/**
 * The `fillDirect` calldata of a permit envelope (an encoding failure is a 503).
 *
 * @category constructors
 * @since 0.1.0
 */
export const fillDirectData = (envelope: ExecutionPermitEnvelope): Effect.Effect<string, AggregatorFailure> =>
  Effect.try({
    try: () => PermitAbi.encodeFillDirect(envelope.permit, envelope.permitSignature),
    catch: () => failure("SERVICE_UNAVAILABLE", ["ENCODING_FAILED"], { retryAfterSeconds: 5 })
  })

// ---------------------------------------------------------------------------
// The operation
// ---------------------------------------------------------------------------

/**
 * What `build` reads.
 *
 * @category models
 * @since 0.1.0
 */
export interface BuildDeps extends QuoteProblemDeps {
  readonly store: Pick<StoreShape, "getQuote" | "findByIdempotencyKey">
  readonly permits: Pick<PermitsShape, "requestMessage" | "create">
  /** The HMAC key of quote tokens. */
  readonly key: Uint8Array
}

/**
 * Stage 1: the message to sign, while the quote can be built.
 *
 * @category constructors
 * @since 0.1.0
 */
export const signingStage = Effect.fn("Aggregator.signingStage")(function*(
  deps: BuildDeps,
  q: AggregatorQuote,
  permitRequest: PermitRequest,
  now: number
) {
  const problem = yield* quoteProblem(deps, q, now, false)
  if (problem !== undefined) return yield* problem
  const message = yield* deps.permits.requestMessage(permitRequest).pipe(Effect.mapError(fromPermitError))
  return signatureRequiredOf(q, message)
})

/**
 * Stage 2: the permit of the signed request at exactly the quoted amountOut, as
 * a transaction. A key that already has a permit replays it (the permit service
 * checks the fingerprint and signature), even after the quote expired.
 *
 * @category constructors
 * @since 0.1.0
 */
export const transactionStage = Effect.fn("Aggregator.transactionStage")(function*(
  deps: BuildDeps,
  q: AggregatorQuote,
  signed: PermitCreateRequest,
  now: number,
  clientKey: string | undefined
) {
  const slot = idempotencySlotOf(signed)
  const existing = slot !== undefined
    ? yield* deps.store.findByIdempotencyKey(slot.scope, slot.key).pipe(Effect.mapError(storeFailure))
    : undefined
  if (existing === undefined) {
    const problem = yield* quoteProblem(deps, q, now, false)
    if (problem !== undefined) return yield* problem
  }
  // the client's holds count toward its hold share; /v1 has its own rate limits
  const { envelope } = yield* deps.permits.create(signed, {
    boundAmountOutRaw: BigInt(q.amountOut),
    clientKey,
    rateLimited: false
  }).pipe(
    Effect.mapError(fromPermitError)
  )
  const data = yield* fillDirectData(envelope)
  return transactionOf(q, envelope, data)
})

/**
 * Options of one build call.
 *
 * @category models
 * @since 0.1.0
 */
export interface BuildOptions {
  /** The requesting client (its address): the permits it gets count toward its hold share. */
  readonly clientKey?: string | undefined
}

/**
 * Stage 1 (no requestSignature): the message to sign; stage 2: the transaction
 * and permit.
 *
 * @category constructors
 * @since 0.1.0
 */
export const build = Effect.fn("Aggregator.build")(function*(
  deps: BuildDeps,
  request: AggregatorBuildRequest,
  options?: BuildOptions
) {
  const issues = checksumIssues({ userAddress: request.userAddress, recipient: request.recipient })
  if (issues.length > 0) {
    return yield* failure("INVALID_REQUEST", issues, { detail: "a mixed-case address has a wrong EIP-55 checksum" })
  }
  const matched = matchQuote(yield* loadQuote(deps.store, deps.key, request.quoteToken), request)
  if (Result.isFailure(matched)) return yield* matched.failure
  const q = matched.success
  const permitRequest = permitRequestOf(q, request)
  const now = yield* nowSeconds
  if (request.requestSignature === undefined) return yield* signingStage(deps, q, permitRequest, now)
  return yield* transactionStage(
    deps,
    q,
    { ...permitRequest, requestSignature: request.requestSignature },
    now,
    options?.clientKey
  )
})
