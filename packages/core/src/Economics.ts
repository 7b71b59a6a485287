/**
 * Route economics: the evidence behind the feed's `actionableRoutes` shortlist
 * (non-authoritative, unsigned estimates). svc publishes an empty shortlist unless
 * an economics layer supplies evidence; an operator plugs one in with
 * {@link layer}.
 *
 * Shortlist rules: at most 10 entries, each resolving to a signed route of the
 * same publication (routeId and quoteId); ordered by expectedEdgeAfterSourceGasBps
 * descending, then routeId; routes without evidence or with a negative edge are
 * left out (they stay in the signed feed).
 *
 * @since 0.1.0
 */
import type { ActionableRoute, Route } from "@svc/protocol/schema/Feed"
import { Context, Effect, Layer, Result } from "effect"
import { Catalog } from "./Catalog.ts"
import { Market, type MarketUnavailable, type SourceGas, type UsdPrice } from "./Market.ts"
import { linearAmountOut, Pricing } from "./Pricing.ts"

/**
 * Evidence for one route, or none.
 *
 * @category models
 * @since 0.1.0
 */
export type RouteEvidence = Omit<ActionableRoute, "routeId" | "quoteId" | "pricingReferenceId"> & {
  /** The edge in basis points; negative edges are excluded from the shortlist. */
  readonly edgeBps: number
}

/**
 * The economics service.
 *
 * @category services
 * @since 0.1.0
 */
export class Economics extends Context.Service<Economics, {
  /** Evidence for the open routes of a publication being built (may return fewer). */
  readonly evidence: (routes: ReadonlyArray<Route>) => Effect.Effect<ReadonlyMap<string, RouteEvidence>>
}>()("@svc/core/Economics") {}

/**
 * No economics: an empty shortlist.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerNone: Layer.Layer<Economics> = Layer.succeed(Economics, {
  evidence: () => Effect.succeed(new Map())
})

/**
 * Economics from a function.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  evidence: (routes: ReadonlyArray<Route>) => Effect.Effect<ReadonlyMap<string, RouteEvidence>>
): Layer.Layer<Economics> => Layer.succeed(Economics, { evidence })

/**
 * The shortlist of a publication's routes from their evidence.
 *
 * @category operations
 * @since 0.1.0
 */
export const shortlist = (
  routes: ReadonlyArray<Route>,
  evidence: ReadonlyMap<string, RouteEvidence>
): Array<ActionableRoute> => {
  const entries: Array<{ edge: number; entry: ActionableRoute }> = []
  for (const route of routes) {
    if (!route.open) continue
    const e = evidence.get(route.routeId.toLowerCase())
    if (e === undefined || !(e.edgeBps >= 0)) continue
    const { edgeBps, ...fields } = e
    entries.push({
      edge: edgeBps,
      entry: { routeId: route.routeId, quoteId: route.quoteId, pricingReferenceId: route.pricingReferenceId, ...fields }
    })
  }
  entries.sort((a, b) =>
    b.edge - a.edge || (a.entry.routeId < b.entry.routeId ? -1 : a.entry.routeId > b.entry.routeId ? 1 : 0)
  )
  return entries.slice(0, 10).map((e) => e.entry)
}

/** USD amounts are computed as exact fixed-point bigints with this many decimals. */
const USD_SCALE = 18
const ONE = 10n ** BigInt(USD_SCALE)

/** raw units of a token at a USD price, as USD × 10^18 (rounded down). */
const usdOf = (raw: bigint, tokenDecimals: number, price: { readonly answer: bigint; readonly decimals: number }) =>
  (raw * price.answer * ONE) / 10n ** BigInt(tokenDecimals + price.decimals)

/**
 * A fixed-point value (× 10^18) as a UsdDecimal with `digits` fractional digits,
 * rounded down; negative values are formatted as their absolute value.
 *
 * @category operations
 * @since 0.1.0
 */
export const formatFixed = (value: bigint, digits: number): string => {
  const abs = value < 0n ? -value : value
  const scaled = abs / 10n ** BigInt(USD_SCALE - digits)
  const unit = 10n ** BigInt(digits)
  const whole = (scaled / unit).toString()
  return digits === 0 ? whole : `${whole}.${(scaled % unit).toString().padStart(digits, "0")}`
}

/**
 * The economics of filling a route's whole advertised capacity
 * (`maxAvailableInRaw`) at its indicative terms, for the caller who sends the
 * source transaction:
 * - indicativeNotionalUsd: what they put in, at the source asset's USD price;
 * - executableNotionalUsd: what they receive, at the destination asset's USD price;
 * - estimatedSourceGasUsd: the source fill's gas (units × gas price) at the native coin's USD price;
 * - expectedEdgeAfterSourceGasBps: (receive − put in − gas) / put in, in basis points.
 *
 * The window is the oldest reading's update time plus the market's staleness limit.
 *
 * @category operations
 * @since 0.1.0
 */
export const routeEvidence = (input: {
  readonly route: Route
  readonly sourceUsd: UsdPrice
  readonly destinationUsd: UsdPrice
  readonly nativeUsd: UsdPrice
  readonly gas: SourceGas
  readonly maxAgeSeconds: number
  readonly pricingModelVersion: string | null
}): RouteEvidence | undefined => {
  const { route } = input
  const amountIn = BigInt(route.maxAvailableInRaw)
  if (amountIn === 0n) return undefined
  const amountOut = linearAmountOut(
    amountIn,
    BigInt(route.indicativePriceNumeratorRaw),
    BigInt(route.indicativePriceDenominatorRaw),
    route.serviceFeeBps
  )
  const inUsd = usdOf(amountIn, route.sourceTokenDecimals, input.sourceUsd)
  if (inUsd === 0n) return undefined
  const outUsd = usdOf(amountOut, route.destinationTokenDecimals, input.destinationUsd)
  const gasUsd = usdOf(input.gas.fillGasUnits * input.gas.gasPrice, input.gas.nativeDecimals, input.nativeUsd)
  const edge = ((outUsd - inUsd - gasUsd) * 10_000n * ONE) / inUsd
  const observedAt = Math.min(
    input.sourceUsd.updatedAt,
    input.destinationUsd.updatedAt,
    input.nativeUsd.updatedAt,
    Math.floor(input.gas.observedAt / 1000)
  )
  return {
    indicativeNotionalUsd: formatFixed(inUsd, 6),
    executableNotionalUsd: formatFixed(outUsd, 6),
    estimatedSourceGasUsd: formatFixed(gasUsd, 6),
    expectedEdgeAfterSourceGasBps: formatFixed(edge, 2),
    economicsObservedAt: new Date(observedAt * 1000).toISOString(),
    economicsValidUntil: new Date((observedAt + input.maxAgeSeconds) * 1000).toISOString(),
    pricingModelVersion: input.pricingModelVersion,
    edgeBps: Number(edge / 10n ** BigInt(USD_SCALE - 2)) / 100
  }
}

/**
 * Economics from market data (see `Market`): the evidence of every open route
 * whose two assets and source native coin have USD price feeds and whose source
 * gas price was read (see {@link routeEvidence}). A route missing any of these
 * has no evidence, so only its shortlist entry is dropped.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMarket: Layer.Layer<Economics, never, Market | Catalog | Pricing> = Layer.effect(
  Economics,
  Effect.gen(function*() {
    const market = yield* Market
    const catalog = yield* Catalog
    const pricing = yield* Pricing
    return Economics.of({
      evidence: (routes) =>
        Effect.gen(function*() {
          const out = new Map<string, RouteEvidence>()
          // the market's answers depend on the asset or network only: each is read once per call
          // (2,000 routes share a few dozen assets; a failed read is also built once, not per route)
          const reads = new Map<string, Result.Result<unknown, MarketUnavailable>>()
          const once = <A>(key: string, read: () => Effect.Effect<A, MarketUnavailable>) =>
            Effect.suspend(() => {
              const known = reads.get(key) as Result.Result<A, MarketUnavailable> | undefined
              if (known !== undefined) return Effect.fromResult(known)
              return Effect.flatMap(
                Effect.tap(Effect.result(read()), (result) => Effect.sync(() => reads.set(key, result))),
                Effect.fromResult
              )
            })
          for (const route of routes) {
            if (!route.open) continue
            const catalogRoute = catalog.route(route.routeId)
            if (catalogRoute === undefined) continue
            const { destination, source } = catalogRoute
            const read = yield* Effect.result(Effect.all({
              sourceUsd: once(`asset ${source.key}`, () => market.usdPrice(source)),
              destinationUsd: once(`asset ${destination.key}`, () => market.usdPrice(destination)),
              nativeUsd: once(`native ${source.network.key}`, () => market.nativeUsdPrice(source.network)),
              gas: once(`gas ${source.network.key}`, () => market.sourceGas(source.network)),
              terms: pricing.indicative(catalogRoute)
            }))
            if (Result.isFailure(read)) continue
            const evidence = routeEvidence({
              route,
              ...read.success,
              maxAgeSeconds: market.maxAgeSeconds,
              pricingModelVersion: read.success.terms.modelVersion
            })
            if (evidence !== undefined) out.set(route.routeId.toLowerCase(), evidence)
          }
          return out
        })
    })
  })
)
