/**
 * The quote operation: request checks, the candidate routes of a pair, fresh
 * amount-bound pricing, the choice of the best route, the validity of the
 * quote, its body, and the storage of the quote under its token. Internal: the
 * public names are re-exported by `Aggregator`.
 *
 * Order of checks (the first failing check answers): EIP-55 checksums
 * (INVALID_REQUEST), chains (UNSUPPORTED_CHAIN), tokens (UNSUPPORTED_TOKEN),
 * publication (SERVICE_UNAVAILABLE), routeId of the pair, an L1 route of the
 * pair, an open one (NO_ROUTE), the amount within the limits of an open one
 * (AMOUNT_TOO_LOW / AMOUNT_TOO_HIGH), pricing (SERVICE_UNAVAILABLE), a non-zero
 * amountOut (AMOUNT_TOO_LOW), validity left (SERVICE_UNAVAILABLE), storage.
 *
 * @since 0.1.0
 */
import type { AggregatorQuote, AggregatorQuoteRequest } from "@svc/protocol/schema/Aggregator"
import type { Route } from "@svc/protocol/schema/Feed"
import { Effect, Result } from "effect"
import type { CatalogRoute } from "../../Catalog.ts"
import type { FreshQuote, PricingShape } from "../../Pricing.ts"
import type { Publication } from "../../Publisher.ts"
import type { StoreShape } from "../../Store.ts"
import { type AggregatorFailure, failure, pricingFailure, storeFailure } from "./errors.ts"
import { type CatalogViews, tokenKeyOf } from "./listing.ts"
import { quoteTokenOf, storedQuoteOf } from "./quoteToken.ts"
import { checksumIssues, eip55, nowMillis, nowSeconds, quotable } from "./shared.ts"

/**
 * How long a quote is kept after its expiresAt, seconds (24 h).
 *
 * @category models
 * @since 0.1.0
 */
export const QUOTE_RETENTION_SECONDS = 86_400

/**
 * Shortest interval between two prunings of stored quotes, seconds.
 *
 * @category constants
 * @since 0.1.0
 */
export const PRUNE_INTERVAL_SECONDS = 60

// ---------------------------------------------------------------------------
// Candidates
// ---------------------------------------------------------------------------

/**
 * A priced candidate route of a quote.
 *
 * @category operations
 * @since 0.1.0
 */
export interface Candidate {
  readonly route: Route
  readonly amountOut: bigint
}

/**
 * A candidate with the fresh price behind its amountOut.
 *
 * @category operations
 * @since 0.1.0
 */
export interface PricedCandidate extends Candidate {
  readonly fresh: FreshQuote
  readonly catalogRoute: CatalogRoute
}

/**
 * Orders candidates best first: highest amountOut, then lowest publicationRank,
 * then lowest routeId.
 *
 * @category operations
 * @since 0.1.0
 */
export const rankCandidates = <C extends Candidate>(candidates: ReadonlyArray<C>): Array<C> =>
  [...candidates].sort((a, b) =>
    a.amountOut > b.amountOut ? -1 : a.amountOut < b.amountOut ?
      1 :
      a.route.publicationRank - b.route.publicationRank ||
      (a.route.routeId.toLowerCase() < b.route.routeId.toLowerCase()
        ? -1
        : a.route.routeId.toLowerCase() > b.route.routeId.toLowerCase()
        ? 1
        : 0)
  )

// ---------------------------------------------------------------------------
// Request checks and route selection
// ---------------------------------------------------------------------------

/**
 * Why a quote request cannot be served by the catalog (checksums, chains,
 * tokens, in that order), or undefined when it can.
 *
 * @category operations
 * @since 0.1.0
 */
export const requestProblem = (
  views: Pick<CatalogViews, "networkByChain" | "tokenKeys">,
  request: AggregatorQuoteRequest
): AggregatorFailure | undefined => {
  const issues = checksumIssues({
    fromToken: request.fromToken,
    toToken: request.toToken,
    userAddress: request.userAddress,
    recipient: request.recipient
  })
  if (issues.length > 0) {
    return failure("INVALID_REQUEST", issues, { detail: "a mixed-case address has a wrong EIP-55 checksum" })
  }
  const fromChain = String(request.fromChainId)
  const toChain = String(request.toChainId)
  const unsupportedChains = [
    ...(views.networkByChain.has(fromChain) ? [] : ["FROM_CHAIN_UNSUPPORTED"]),
    ...(views.networkByChain.has(toChain) ? [] : ["TO_CHAIN_UNSUPPORTED"])
  ]
  if (unsupportedChains.length > 0) {
    return failure("UNSUPPORTED_CHAIN", unsupportedChains, { detail: "see GET /v1/chains for the supported chains" })
  }
  const unsupportedTokens = [
    ...(views.tokenKeys.has(tokenKeyOf(fromChain, request.fromToken)) ? [] : ["FROM_TOKEN_UNSUPPORTED"]),
    ...(views.tokenKeys.has(tokenKeyOf(toChain, request.toToken)) ? [] : ["TO_TOKEN_UNSUPPORTED"])
  ]
  if (unsupportedTokens.length > 0) {
    return failure("UNSUPPORTED_TOKEN", unsupportedTokens, {
      detail: "see GET /v1/tokens for the tokens of each chain"
    })
  }
  return undefined
}

/**
 * The indexes of the L1 routes of a publication that serve the request's pair
 * (chains and tokens), in publication order.
 *
 * @category operations
 * @since 0.1.0
 */
export const pairRouteIndexes = (
  publication: Pick<Publication, "routes">,
  request: Pick<AggregatorQuoteRequest, "fromChainId" | "toChainId" | "fromToken" | "toToken">
): Array<number> => {
  const fromChain = String(request.fromChainId)
  const toChain = String(request.toChainId)
  const fromToken = request.fromToken.toLowerCase()
  const toToken = request.toToken.toLowerCase()
  const pair: Array<number> = []
  publication.routes.forEach((r, i) => {
    if (
      r.publicationLane === "L1" && r.sourceChainId === fromChain && r.destinationChainId === toChain &&
      r.sourceAsset?.toLowerCase() === fromToken && r.destinationAsset?.toLowerCase() === toToken
    ) pair.push(i)
  })
  return pair
}

/**
 * Whether an amount is within a route's limits (minimumFillInRaw..maxAvailableInRaw).
 *
 * @category operations
 * @since 0.1.0
 */
export const fitsRoute = (route: Route, amount: bigint): boolean =>
  BigInt(route.minimumFillInRaw) <= amount && amount <= BigInt(route.maxAvailableInRaw)

/**
 * The refusal of an amount that fits none of the given routes (at least one):
 * below the lowest minimumFillInRaw (AMOUNT_TOO_LOW), else above the highest
 * maxAvailableInRaw (AMOUNT_TOO_HIGH).
 *
 * @category operations
 * @since 0.1.0
 */
export const amountFailure = (routes: ReadonlyArray<Route>, amount: bigint): AggregatorFailure => {
  const min = routes.map((r) => BigInt(r.minimumFillInRaw)).reduce((a, b) => (a < b ? a : b))
  const max = routes.map((r) => BigInt(r.maxAvailableInRaw)).reduce((a, b) => (a > b ? a : b))
  return amount < min
    ? failure("AMOUNT_TOO_LOW", ["BELOW_MINIMUM_FILL"], { detail: `amountIn is below minimumFillInRaw ${min}` })
    : failure("AMOUNT_TOO_HIGH", ["ABOVE_MAX_AVAILABLE"], { detail: `amountIn is above maxAvailableInRaw ${max}` })
}

/**
 * The routes a request may be priced on at `now` (Unix seconds), as indexes in
 * the publication: the L1 routes of its pair (only `routeId` when given) that
 * are quotable and whose limits contain amountIn. Else the first refusal:
 * ROUTE_ID_NOT_FOR_PAIR, NO_L1_ROUTE, ROUTE_NOT_OPEN, then the amount's.
 *
 * @category operations
 * @since 0.1.0
 */
export const selectRoutes = (
  publication: Pick<Publication, "routes">,
  request: AggregatorQuoteRequest,
  now: number
): Result.Result<{ readonly indexes: ReadonlyArray<number>; readonly amount: bigint }, AggregatorFailure> => {
  const routeAt = (i: number) => publication.routes[i]!
  const pair = pairRouteIndexes(publication, request)
  let candidates = pair
  if (request.routeId !== undefined) {
    const wanted = request.routeId.toLowerCase()
    candidates = pair.filter((i) => routeAt(i).routeId.toLowerCase() === wanted)
    if (candidates.length === 0) {
      return Result.fail(
        failure("NO_ROUTE", ["ROUTE_ID_NOT_FOR_PAIR"], { detail: "routeId is not an L1 route of this pair" })
      )
    }
  }
  if (candidates.length === 0) {
    return Result.fail(failure("NO_ROUTE", ["NO_L1_ROUTE"], { detail: "no L1 route serves this pair" }))
  }
  const open = candidates.filter((i) => quotable(routeAt(i), now))
  if (open.length === 0) {
    return Result.fail(failure("NO_ROUTE", ["ROUTE_NOT_OPEN"], { detail: "the L1 route of this pair is not open now" }))
  }
  const amount = BigInt(request.amountIn)
  const fit = open.filter((i) => fitsRoute(routeAt(i), amount))
  if (fit.length === 0) return Result.fail(amountFailure(open.map(routeAt), amount))
  return Result.succeed({ indexes: fit, amount })
}

/**
 * Prices an amount on the given routes of a publication, one after the other
 * (the first pricing failure answers); routes that price to 0 are left out.
 *
 * @category operations
 * @since 0.1.0
 */
export const priceRoutes = Effect.fn("Aggregator.priceRoutes")(function*(
  pricing: Pick<PricingShape, "quote">,
  publication: Pick<Publication, "routes" | "catalogRoutes">,
  indexes: ReadonlyArray<number>,
  amount: bigint
) {
  const priced: Array<PricedCandidate> = []
  for (const i of indexes) {
    const catalogRoute = publication.catalogRoutes[i]!
    const fresh = yield* pricing.quote(catalogRoute, amount).pipe(Effect.mapError(pricingFailure))
    if (fresh.amountOutRaw > 0n) {
      priced.push({ route: publication.routes[i]!, amountOut: fresh.amountOutRaw, fresh, catalogRoute })
    }
  }
  return priced
})

// ---------------------------------------------------------------------------
// Validity and body
// ---------------------------------------------------------------------------

/**
 * The longest quote validity of the options, seconds (at least 1), or undefined
 * for no cap.
 *
 * @category operations
 * @since 0.1.0
 */
export const quoteTtlOf = (quoteTtlSeconds: number | undefined): number | undefined =>
  quoteTtlSeconds === undefined ? undefined : Math.max(1, Math.floor(quoteTtlSeconds))

/**
 * The expiresAt of a quote (Unix seconds): the earliest of the route's
 * validUntil, the feed's validUntil, the pricing cycle's deadline (rounded down
 * to a second) and, with a TTL, now + TTL.
 *
 * @category operations
 * @since 0.1.0
 */
export const expiresAtOf = (input: {
  readonly routeValidUntil: number
  readonly feedValidUntil: number
  /** Unix milliseconds. */
  readonly pricingCycleValidUntil: number
  readonly now: number
  readonly ttlSeconds: number | undefined
}): number =>
  Math.min(
    input.routeValidUntil,
    input.feedValidUntil,
    Math.floor(input.pricingCycleValidUntil / 1000),
    input.ttlSeconds === undefined ? Number.MAX_SAFE_INTEGER : input.now + input.ttlSeconds
  )

/**
 * The quote body (without its token) of a request on the chosen route:
 * addresses in EIP-55 form, the recipient defaulting to the userAddress.
 *
 * @category operations
 * @since 0.1.0
 */
export const quoteBodyOf = (
  request: AggregatorQuoteRequest,
  route: Route,
  amountIn: bigint,
  amountOut: bigint,
  expiresAt: number
): Omit<AggregatorQuote, "quoteToken"> => {
  const userAddress = request.userAddress === undefined ? null : eip55(request.userAddress)
  const recipient = request.recipient !== undefined ? eip55(request.recipient) : userAddress
  return {
    provider: "svc",
    routeId: route.routeId,
    quoteId: route.quoteId,
    dataVersion: route.dataVersion,
    fromChainId: request.fromChainId,
    toChainId: request.toChainId,
    fromToken: route.sourceAsset!,
    toToken: route.destinationAsset!,
    amountIn: amountIn.toString(),
    amountOut: amountOut.toString(),
    fromTokenDecimals: route.sourceTokenDecimals,
    toTokenDecimals: route.destinationTokenDecimals,
    sourceRouter: route.sourceRouter!,
    expiresAt,
    permitRequired: true,
    executionType: "DIRECT_FILL",
    status: "QUOTED",
    fees: { serviceFeeBps: route.serviceFeeBps, feeMode: route.feeMode, external: [] },
    userAddress,
    recipient
  }
}

// ---------------------------------------------------------------------------
// The operation
// ---------------------------------------------------------------------------

/**
 * Prunes the stored quotes of one service at most once a minute (its own
 * state), keeping {@link QUOTE_RETENTION_SECONDS} past expiry; a failure is
 * logged, never raised.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeQuotePruner = (store: Pick<StoreShape, "pruneQuotes">): (now: number) => Effect.Effect<void> => {
  let lastPrune = 0
  return (now) =>
    now - lastPrune < PRUNE_INTERVAL_SECONDS
      ? Effect.void
      : Effect.suspend(() => {
        lastPrune = now
        return store.pruneQuotes(now - QUOTE_RETENTION_SECONDS).pipe(
          Effect.catch((e) => Effect.logWarning("pruning aggregator quotes failed", e.message))
        )
      }).pipe(Effect.asVoid)
}

/**
 * What `quote` reads.
 *
 * @category models
 * @since 0.1.0
 */
export interface QuoteDeps {
  readonly views: Pick<CatalogViews, "networkByChain" | "tokenKeys">
  readonly current: Effect.Effect<Publication, AggregatorFailure>
  readonly pricing: Pick<PricingShape, "quote">
  readonly store: Pick<StoreShape, "saveQuote">
  /** The HMAC key of quote tokens. */
  readonly key: Uint8Array
  /** See {@link quoteTtlOf}. */
  readonly ttlSeconds: number | undefined
  /** See {@link makeQuotePruner}. */
  readonly prune: (now: number) => Effect.Effect<void>
}

/**
 * An exact quote from the best open L1 route of the request's pair, stored
 * under its token.
 *
 * @category operations
 * @since 0.1.0
 */
export const quote = Effect.fn("Aggregator.quote")(function*(deps: QuoteDeps, request: AggregatorQuoteRequest) {
  const problem = requestProblem(deps.views, request)
  if (problem !== undefined) return yield* problem
  const publication = yield* deps.current
  const now = yield* nowSeconds
  const selected = selectRoutes(publication, request, now)
  if (Result.isFailure(selected)) return yield* selected.failure
  const { amount, indexes } = selected.success
  const priced = yield* priceRoutes(deps.pricing, publication, indexes, amount)
  if (priced.length === 0) {
    return yield* failure("AMOUNT_TOO_LOW", ["PRICES_TO_ZERO"], { detail: "amountIn prices to an amountOut of 0" })
  }
  const best = rankCandidates(priced)[0]!
  const expiresAt = expiresAtOf({
    routeValidUntil: best.route.validUntil,
    feedValidUntil: publication.validUntil,
    pricingCycleValidUntil: best.fresh.pricingCycleValidUntil,
    now,
    ttlSeconds: deps.ttlSeconds
  })
  if (expiresAt <= now) {
    return yield* failure("SERVICE_UNAVAILABLE", ["PRICING_DEADLINE_PASSED"], {
      detail: "the price has no validity left; retry",
      retryAfterSeconds: 1
    })
  }
  const body = quoteBodyOf(request, best.route, amount, best.amountOut, expiresAt)
  const result: AggregatorQuote = { ...body, quoteToken: quoteTokenOf(deps.key, body) }
  yield* deps.store.saveQuote(storedQuoteOf(result, yield* nowMillis)).pipe(Effect.mapError(storeFailure))
  yield* deps.prune(now)
  return result
})
