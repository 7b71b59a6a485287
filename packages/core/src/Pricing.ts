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
 * {@link PricingShape} (see docs/embedding.md).
 *
 * @since 0.1.0
 */
import { type Hex, keccak, utf8 } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import type { JsonObject } from "@svc/protocol/schema/Primitives"
import { Clock, Context, Data, Effect, Layer } from "effect"
import type { CatalogRoute } from "./Catalog.ts"

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
      t = {
        numeratorRaw: route.priceNumeratorRaw,
        denominatorRaw: route.priceDenominatorRaw,
        serviceFeeBps: route.serviceFeeBps,
        feeMode: route.feeMode,
        modelVersion,
        pricingReferenceId: pricingReferenceIdOf({
          routeId: route.routeId,
          model: "STATIC",
          modelVersion,
          numeratorRaw: route.priceNumeratorRaw,
          denominatorRaw: route.priceDenominatorRaw,
          serviceFeeBps: route.serviceFeeBps,
          feeMode: route.feeMode
        })
      }
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
          executionCapacity: {
            minimumFillInRaw: route.minimumFillInRaw.toString(),
            maximumFillInRaw: route.maximumFillInRaw === null ? null : route.maximumFillInRaw.toString()
          }
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
