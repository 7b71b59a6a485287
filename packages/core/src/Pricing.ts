/**
 * Pricing: the indicative terms a route publishes in the feed, and the fresh
 * amount-bound price a permit is issued at.
 *
 * Route-level economics are indicative estimates; a permit's amountOutRaw comes
 * from {@link PricingShape.quote} at issuance, for the exact amountInRaw.
 *
 * The default layer, {@link layerStatic}, prices from the catalog: destination
 * raw = floor(amountIn × numerator × (10000 − feeBps) / (denominator × 10000)).
 * All arithmetic is exact (bigint) and every rounding favours the solver:
 * amountOut rounds down, the capacity (maxAvailableInRaw) rounds down.
 *
 * An operator replaces pricing with a layer of their own implementing
 * {@link PricingShape}: under `svc serve` as a pricing plug-in (`SVC_PRICING`,
 * `@svc/core/Plugin`), embedded as a part of the engine (see docs/embedding.md).
 * `@svc/core/testing/PricingSuite` checks what every pricing must keep.
 *
 * @since 0.1.0
 */
import { type Hex, keccak, utf8 } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import type { JsonObject } from "@svc/protocol/schema/Primitives"
import { Clock, Context, Data, Effect, Layer } from "effect"
import type { CatalogRoute } from "./Catalog.ts"
import { Market, type UsdPrice } from "./Market.ts"

/**
 * Pricing cannot answer now (no fresh price source). Permits answer 503.
 *
 * @category errors
 * @since 0.1.0
 */
export class PricingUnavailable extends Data.TaggedError("PricingUnavailable")<{ readonly message: string }> {}

/**
 * The indicative terms of a route in the feed.
 *
 * @category models
 * @since 0.1.0
 */
export interface IndicativeTerms {
  /** Destination raw per source raw = numeratorRaw / denominatorRaw (before the fee). */
  readonly numeratorRaw: bigint
  readonly denominatorRaw: bigint
  readonly serviceFeeBps: number | null
  readonly feeMode: string
  readonly modelVersion: string | null
  /** Identifies the pricing reference behind the terms; part of the route's quoteId. */
  readonly pricingReferenceId: Hex
}

/**
 * A fresh amount-bound price, with its evidence (DirectExecution.pricing).
 *
 * @category models
 * @since 0.1.0
 */
export interface FreshQuote {
  readonly amountOutRaw: bigint
  readonly modelVersion: string | null
  readonly pricingReferenceId: Hex
  readonly snapshotId: string
  readonly routeSnapshotId: string | null
  /** Unix milliseconds. */
  readonly quoteObservedAt: number
  readonly pricingCycleId: string
  /** Unix milliseconds, or null. */
  readonly pricingCycleObservedAt: number | null
  /** Unix milliseconds: after this the price must be recomputed. */
  readonly pricingCycleValidUntil: number
  readonly payoutEconomicCeilingRequired: boolean
  readonly payoutEconomicCeiling: JsonObject | null
  readonly evidence: JsonObject
  readonly executionCapacity: JsonObject
}

/**
 * The pricing contract.
 *
 * @category models
 * @since 0.1.0
 */
export interface PricingShape {
  /** The indicative terms of a route. */
  readonly indicative: (route: CatalogRoute) => Effect.Effect<IndicativeTerms, PricingUnavailable>
  /** The fresh price of exactly `amountInRaw` on a route. */
  readonly quote: (route: CatalogRoute, amountInRaw: bigint) => Effect.Effect<FreshQuote, PricingUnavailable>
  /**
   * The largest amountIn whose fresh amountOut fits `availableOutRaw` (rounded
   * down), or 0 when none does.
   */
  readonly capacity: (route: CatalogRoute, availableOutRaw: bigint) => Effect.Effect<bigint, PricingUnavailable>
  /**
   * When set, a permit is refused with QUOTE_CHANGED (PRICE_MOVED) when its fresh
   * amountOut is more than this many basis points below what the route's
   * published indicative terms promise for the same amount: the client refreshes
   * the feed, which follows the price. Unset: prices that cannot move (static).
   */
  readonly quoteToleranceBps?: number | undefined
}

/**
 * The pricing service.
 *
 * @category services
 * @since 0.1.0
 */
export class Pricing extends Context.Service<Pricing, PricingShape>()("@svc/core/Pricing") {}

const BPS = 10_000n

/**
 * amountOut = floor(amountIn × numerator × (10000 − feeBps) / (denominator × 10000)).
 *
 * @category operations
 * @since 0.1.0
 */
export const linearAmountOut = (
  amountInRaw: bigint,
  numeratorRaw: bigint,
  denominatorRaw: bigint,
  serviceFeeBps: number | null
): bigint => {
  const fee = BigInt(serviceFeeBps ?? 0)
  return (amountInRaw * numeratorRaw * (BPS - fee)) / (denominatorRaw * BPS)
}

/**
 * The largest amountIn with linearAmountOut(amountIn) <= availableOut:
 * floor(((availableOut + 1) × denominator × 10000 − 1) / (numerator × (10000 − feeBps))).
 * Returns `cap` when the rate is zero (a 100% fee: every amount pays out 0).
 *
 * @category operations
 * @since 0.1.0
 */
export const linearCapacity = (
  availableOutRaw: bigint,
  numeratorRaw: bigint,
  denominatorRaw: bigint,
  serviceFeeBps: number | null,
  cap: bigint
): bigint => {
  if (availableOutRaw < 0n) return 0n
  const k = numeratorRaw * (BPS - BigInt(serviceFeeBps ?? 0))
  if (k === 0n) return cap
  const m = denominatorRaw * BPS
  const max = ((availableOutRaw + 1n) * m - 1n) / k
  return max < cap ? max : cap
}

/** 2^128 - 1: the largest amount an ExecutionPermit carries. */
export const MAX_AMOUNT = (1n << 128n) - 1n

/**
 * pricingReferenceId of static pricing: keccak256 of the canonical JSON of
 * {schema SVC_V6_PRICING_REFERENCE_V1, routeId, model, modelVersion,
 * numeratorRaw, denominatorRaw, serviceFeeBps, feeMode}.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const pricingReferenceIdOf = (terms: {
  readonly routeId: string
  readonly model: string
  readonly modelVersion: string | null
  readonly numeratorRaw: bigint
  readonly denominatorRaw: bigint
  readonly serviceFeeBps: number | null
  readonly feeMode: string
}): Hex =>
  keccak(utf8(CanonicalJson.stringify({
    schema: "SVC_V6_PRICING_REFERENCE_V1",
    routeId: terms.routeId.toLowerCase(),
    model: terms.model,
    modelVersion: terms.modelVersion,
    numeratorRaw: terms.numeratorRaw.toString(),
    denominatorRaw: terms.denominatorRaw.toString(),
    serviceFeeBps: terms.serviceFeeBps,
    feeMode: terms.feeMode
  })))

/**
 * The indicative terms of a route at a rate, with their pricingReferenceId
 * (see {@link pricingReferenceIdOf}) for a pricing model and version.
 *
 * @category constructors
 * @since 0.1.0
 */
export const termsAt = (
  route: CatalogRoute,
  model: string,
  modelVersion: string | null,
  numeratorRaw: bigint,
  denominatorRaw: bigint
): IndicativeTerms => ({
  numeratorRaw,
  denominatorRaw,
  serviceFeeBps: route.serviceFeeBps,
  feeMode: route.feeMode,
  modelVersion,
  pricingReferenceId: pricingReferenceIdOf({
    routeId: route.routeId,
    model,
    modelVersion,
    numeratorRaw,
    denominatorRaw,
    serviceFeeBps: route.serviceFeeBps,
    feeMode: route.feeMode
  })
})

/** DirectExecution.pricing.executionCapacity of a route: its fill bounds. */
const executionCapacityOf = (route: CatalogRoute) => ({
  minimumFillInRaw: route.minimumFillInRaw.toString(),
  maximumFillInRaw: route.maximumFillInRaw === null ? null : route.maximumFillInRaw.toString()
})

/**
 * Options of the static pricing layer.
 *
 * @category models
 * @since 0.1.0
 */
export interface StaticOptions {
  /**
   * Validity of a fresh price, seconds, counted from the moment it is computed
   * (cycle ids group prices by aligned windows of this length). Default 60.
   */
  readonly cycleSeconds?: number | undefined
  /** Model version reported in evidence. Default "svc-static-1". */
  readonly modelVersion?: string | undefined
}

/**
 * Static pricing from the catalog's configured prices and fees.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeStatic = (options?: StaticOptions): PricingShape => {
  const cycleMs = Math.max(1, options?.cycleSeconds ?? 60) * 1000
  const modelVersion = options?.modelVersion ?? "svc-static-1"
  // the terms depend only on the catalog route: compute them once per route (ticks are frequent)
  const cache = new WeakMap<CatalogRoute, IndicativeTerms>()
  const terms = (route: CatalogRoute): IndicativeTerms => {
    let t = cache.get(route)
    if (t === undefined) {
      t = termsAt(route, "STATIC", modelVersion, route.priceNumeratorRaw, route.priceDenominatorRaw)
      cache.set(route, t)
    }
    return t
  }
  return {
    indicative: (route) => Effect.succeed(terms(route)),
    quote: (route, amountInRaw) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const t = terms(route)
        const cycleStart = Math.floor(now / cycleMs) * cycleMs
        const amountOutRaw = linearAmountOut(amountInRaw, t.numeratorRaw, t.denominatorRaw, t.serviceFeeBps)
        const evidence = {
          model: "STATIC",
          modelVersion,
          numeratorRaw: t.numeratorRaw.toString(),
          denominatorRaw: t.denominatorRaw.toString(),
          serviceFeeBps: t.serviceFeeBps,
          amountInRaw: amountInRaw.toString(),
          amountOutRaw: amountOutRaw.toString(),
          rounding: "DOWN"
        }
        return {
          amountOutRaw,
          modelVersion,
          pricingReferenceId: t.pricingReferenceId,
          snapshotId: keccak(utf8(CanonicalJson.stringify({ ...evidence, cycleStart }))),
          routeSnapshotId: `${route.routeId}:${cycleStart}`,
          quoteObservedAt: now,
          pricingCycleId: `static-${cycleStart / 1000}`,
          pricingCycleObservedAt: cycleStart,
          // static prices do not move: a price is good for one full cycle from when it was computed
          pricingCycleValidUntil: now + cycleMs,
          payoutEconomicCeilingRequired: false,
          payoutEconomicCeiling: null,
          evidence,
          executionCapacity: executionCapacityOf(route)
        }
      }),
    capacity: (route, availableOutRaw) =>
      Effect.succeed(
        linearCapacity(
          availableOutRaw,
          route.priceNumeratorRaw,
          route.priceDenominatorRaw,
          route.serviceFeeBps,
          route.maximumFillInRaw ?? MAX_AMOUNT
        )
      )
  }
}

/**
 * The static pricing layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerStatic = (options?: StaticOptions): Layer.Layer<Pricing> =>
  Layer.succeed(Pricing, makeStatic(options))

/**
 * Options of oracle pricing.
 *
 * @category models
 * @since 0.1.0
 */
export interface OracleOptions {
  /** Longest validity of a fresh price, seconds (also bounded by the feeds' staleness limit). Default 60. */
  readonly cycleSeconds?: number | undefined
  /**
   * Deviation guard: a route whose oracle rate differs from the catalog's
   * configured price by more than this many basis points is not priced (its
   * feed entry closes, permits answer 503) until the two agree again. null
   * disables the guard. Default 1000 (10%).
   */
  readonly maxDeviationBps?: number | null | undefined
  /** See {@link PricingShape.quoteToleranceBps}. Default 50. */
  readonly quoteToleranceBps?: number | undefined
  /**
   * The feed's indicative terms follow the oracle once it has moved more than
   * this many basis points from them (a new pricingReferenceId, so a new
   * quoteId). Default half the quote tolerance.
   */
  readonly republishBps?: number | undefined
  /** Model version reported in evidence. Default "svc-oracle-1". */
  readonly modelVersion?: string | undefined
}

const gcd = (a: bigint, b: bigint): bigint => {
  while (b !== 0n) [a, b] = [b, a % b]
  return a
}

/**
 * The exchange rate two USD prices imply, in raw units: destination raw per
 * source raw = numeratorRaw / denominatorRaw (reduced).
 *
 * @category operations
 * @since 0.1.0
 */
export const usdRate = (
  source: { readonly price: PriceRoundLike; readonly decimals: number },
  destination: { readonly price: PriceRoundLike; readonly decimals: number }
): { readonly numeratorRaw: bigint; readonly denominatorRaw: bigint } => {
  const n = source.price.answer * 10n ** BigInt(destination.price.decimals + destination.decimals)
  const d = destination.price.answer * 10n ** BigInt(source.price.decimals + source.decimals)
  const g = gcd(n, d)
  return { numeratorRaw: n / g, denominatorRaw: d / g }
}

/**
 * A price answer with its decimals.
 *
 * @category models
 * @since 0.1.0
 */
export interface PriceRoundLike {
  readonly answer: bigint
  readonly decimals: number
}

/**
 * |a/b − c/d| in basis points of c/d, rounded up (exact).
 *
 * @category operations
 * @since 0.1.0
 */
export const deviationBps = (a: bigint, b: bigint, c: bigint, d: bigint): bigint => {
  const diff = a * d > c * b ? a * d - c * b : c * b - a * d
  const base = c * b
  return (diff * BPS + base - 1n) / base
}

interface OracleRate {
  readonly numeratorRaw: bigint
  readonly denominatorRaw: bigint
  readonly source: UsdPrice
  readonly destination: UsdPrice
}

/**
 * Oracle pricing: the rate of a route is the ratio of its two assets' USD
 * prices (see `Market`), less the service fee. Routes whose assets do not both
 * have a USD price feed are priced statically from the catalog.
 *
 * Guards: a feed that is stale, unread or not positive, or a rate that deviates
 * from the catalog's price by more than `maxDeviationBps`, leaves the route
 * unpriced (closed in the feed; permits answer 503). The feed's indicative terms
 * move with the oracle only past `republishBps`; a permit whose fresh amountOut
 * is more than `quoteToleranceBps` worse than the indicative terms answer 409
 * QUOTE_CHANGED.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeOracle = (market: Market["Service"], options?: OracleOptions): PricingShape => {
  const cycleMs = Math.max(1, options?.cycleSeconds ?? 60) * 1000
  const modelVersion = options?.modelVersion ?? "svc-oracle-1"
  const maxDeviationBps = options?.maxDeviationBps === undefined ? 1000 : options.maxDeviationBps
  const quoteToleranceBps = Math.max(0, options?.quoteToleranceBps ?? 50)
  const republishBps = BigInt(Math.max(0, Math.floor(options?.republishBps ?? quoteToleranceBps / 2)))
  const fallback = makeStatic()
  const oracleRoute = (route: CatalogRoute) =>
    route.source.usdPriceFeed !== null && route.destination.usdPriceFeed !== null

  const rate = (route: CatalogRoute): Effect.Effect<OracleRate, PricingUnavailable> =>
    Effect.gen(function*() {
      const source = yield* market.usdPrice(route.source)
      const destination = yield* market.usdPrice(route.destination)
      const r = usdRate(
        { price: source, decimals: route.source.decimals },
        { price: destination, decimals: route.destination.decimals }
      )
      if (maxDeviationBps !== null) {
        const dev = deviationBps(r.numeratorRaw, r.denominatorRaw, route.priceNumeratorRaw, route.priceDenominatorRaw)
        if (dev > BigInt(maxDeviationBps)) {
          return yield* new PricingUnavailable({
            message:
              `PRICE_DEVIATION: the oracle rate of route ${route.routeId} is ${dev} bps from the catalog's price (limit ${maxDeviationBps})`
          })
        }
      }
      return { ...r, source, destination }
    }).pipe(Effect.mapError((e) =>
      e._tag === "PricingUnavailable" ? e : new PricingUnavailable({ message: `${e.code}: ${e.message}` })
    ))

  // the feed's terms per route: they follow the oracle only past republishBps
  const published = new Map<string, IndicativeTerms>()
  const termsOf = (route: CatalogRoute, r: OracleRate): IndicativeTerms => {
    const last = published.get(route.routeId)
    if (
      last !== undefined &&
      deviationBps(r.numeratorRaw, r.denominatorRaw, last.numeratorRaw, last.denominatorRaw) <= republishBps
    ) return last
    const terms = termsAt(route, "ORACLE", modelVersion, r.numeratorRaw, r.denominatorRaw)
    published.set(route.routeId, terms)
    return terms
  }

  return {
    quoteToleranceBps,
    indicative: (route) =>
      oracleRoute(route) ? Effect.map(rate(route), (r) => termsOf(route, r)) : fallback.indicative(route),
    quote: (route, amountInRaw) => {
      if (!oracleRoute(route)) return fallback.quote(route, amountInRaw)
      return Effect.gen(function*() {
        const r = yield* rate(route)
        const terms = termsOf(route, r)
        const now = yield* Clock.currentTimeMillis
        const amountOutRaw = linearAmountOut(amountInRaw, r.numeratorRaw, r.denominatorRaw, route.serviceFeeBps)
        const observed = Math.min(r.source.updatedAt, r.destination.updatedAt)
        const feed = (p: UsdPrice) => ({
          network: p.network,
          feed: p.feed,
          roundId: p.roundId.toString(),
          answer: p.answer.toString(),
          decimals: p.decimals,
          updatedAt: p.updatedAt
        })
        const evidence = {
          model: "ORACLE",
          modelVersion,
          sourceUsd: feed(r.source),
          destinationUsd: feed(r.destination),
          numeratorRaw: r.numeratorRaw.toString(),
          denominatorRaw: r.denominatorRaw.toString(),
          serviceFeeBps: route.serviceFeeBps,
          amountInRaw: amountInRaw.toString(),
          amountOutRaw: amountOutRaw.toString(),
          rounding: "DOWN"
        }
        return {
          amountOutRaw,
          modelVersion,
          pricingReferenceId: terms.pricingReferenceId,
          snapshotId: keccak(utf8(CanonicalJson.stringify(evidence))),
          routeSnapshotId: `${route.routeId}:${r.source.roundId}:${r.destination.roundId}`,
          quoteObservedAt: now,
          pricingCycleId: `oracle-${r.source.roundId}-${r.destination.roundId}`,
          pricingCycleObservedAt: observed * 1000,
          pricingCycleValidUntil: Math.min(now + cycleMs, (observed + market.maxAgeSeconds) * 1000),
          payoutEconomicCeilingRequired: false,
          payoutEconomicCeiling: null,
          evidence,
          executionCapacity: executionCapacityOf(route)
        }
      })
    },
    capacity: (route, availableOutRaw) => {
      if (!oracleRoute(route)) return fallback.capacity(route, availableOutRaw)
      return Effect.map(rate(route), (r) => {
        const terms = termsOf(route, r)
        return linearCapacity(
          availableOutRaw,
          terms.numeratorRaw,
          terms.denominatorRaw,
          route.serviceFeeBps,
          route.maximumFillInRaw ?? MAX_AMOUNT
        )
      })
    }
  }
}

/**
 * The oracle pricing layer (see {@link makeOracle}).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerOracle = (options?: OracleOptions): Layer.Layer<Pricing, never, Market> =>
  Layer.effect(
    Pricing,
    Effect.gen(function*() {
      return makeOracle(yield* Market, options)
    })
  )
