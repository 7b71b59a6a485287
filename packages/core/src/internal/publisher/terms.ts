/**
 * The terms of every route at a time: the memo tables of one publisher (sorted
 * locators, quoteIds, each route's current terms object and what it was built
 * from, the publication order of the catalog, the routes that cannot be priced,
 * the metrics last reported) and {@link buildTerms}, which prices every catalog
 * route under the operator state and keeps a route's terms object while its
 * inputs do not change. Internal to the publisher.
 *
 * @since 0.1.0
 */
import type { Hex } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as Ids from "@svc/protocol/Ids"
import type { Route } from "@svc/protocol/schema/Feed"
import { type Context, Effect, Exit, Metric, Result } from "effect"
import { Catalog, type CatalogRoute } from "../../Catalog.ts"
import { Inventory } from "../../Inventory.ts"
import * as Metrics from "../../Metrics.ts"
import { type IndicativeTerms, Pricing, type PricingUnavailable, termsAt } from "../../Pricing.ts"
import { availableOf, type OperatorState } from "../../Store.ts"
import type { RouteText } from "./routeTexts.ts"

/**
 * A route's signed terms without its dataVersion.
 *
 * @category models
 * @since 0.1.0
 */
export type RouteTerms = Omit<Route, "dataVersion">

/**
 * Routes checked and serialized between two yields to the event loop.
 *
 * @category constants
 * @since 0.1.0
 */
export const PUBLICATION_CHUNK = 100

/**
 * Memo tables of one publisher: locators with their keys sorted at every depth
 * (computed once per locator object), quoteIds by their inputs (a route's
 * terms change rarely, ticks are frequent), the current terms of each route (a
 * route whose terms did not change keeps the same terms object, so a change is
 * noticed by identity), and the checked canonical text of each route's last
 * terms (see RouteText).
 */
export interface Memo {
  readonly sortKeysDeep: (value: Route["sourceLocator"]) => Route["sourceLocator"]
  readonly quoteIdOf: (input: Ids.QuoteIdInput) => Hex
  /** The terms object of a route: the previous one when equal to `next`, else `next`. */
  readonly termsOf: (next: RouteTerms) => RouteTerms
  /** The checked canonical text of each route's last terms (by routeId). */
  readonly routeTexts: Map<string, RouteText>
  /** What each route's last terms were built from (by routeId): equal inputs, the same terms. */
  readonly termsInputs: Map<string, TermsInputs>
  /** The catalog's routes in publication order (lane, rank, routeId: static catalog fields). */
  readonly ordered: WeakMap<ReadonlyArray<CatalogRoute>, ReadonlyArray<CatalogRoute>>
  /** Why each route cannot be priced now (to log a reason once, when it changes). */
  readonly unpriced: Map<string, string>
  /** The hold of each asset last reported to the metrics. */
  readonly holds: Map<string, bigint>
  /** The gauges of each route (labelled once). */
  readonly routeGauges: Map<string, { readonly capacity: Metric.Gauge<number>; readonly open: Metric.Gauge<number> }>
}

/**
 * Everything a route's terms are built from besides the catalog route (see
 * `buildTerms`): the terms are a function of these, so equal inputs (the same
 * objects) give the same terms.
 */
interface TermsInputs {
  readonly route: CatalogRoute
  readonly executionStatus: string
  readonly dailyStatus: string
  readonly indicative: IndicativeTerms
  readonly capacity: bigint
  readonly validAfter: number
  readonly validUntil: number
  readonly open: boolean
  readonly terms: RouteTerms
}

/** Publication order: lane, rank, routeId. */
const publicationOrder = (
  a: { readonly publicationLane: string; readonly publicationRank: number; readonly routeId: string },
  b: { readonly publicationLane: string; readonly publicationRank: number; readonly routeId: string }
): number =>
  a.publicationLane.charCodeAt(1) - b.publicationLane.charCodeAt(1) ||
  a.publicationRank - b.publicationRank ||
  (a.routeId < b.routeId ? -1 : a.routeId > b.routeId ? 1 : 0)

/**
 * Whether two terms objects hold the same values. Terms objects are built by one
 * object literal (`buildTerms`), so they have the same keys; their values are
 * primitives, except the locators, which are memoized per catalog locator.
 */
const sameTermsValues = (a: RouteTerms, b: RouteTerms): boolean => {
  for (const key in a) {
    if (a[key as keyof RouteTerms] !== b[key as keyof RouteTerms]) return false
  }
  return true
}

/** Whether two lists of route terms are the same objects in the same order. */
export const sameTerms = (a: ReadonlyArray<RouteTerms>, b: ReadonlyArray<RouteTerms>): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export const makeMemo = (): Memo => {
  const sortedLocators = new WeakMap<object, Route["sourceLocator"]>()
  const quoteIds = new Map<string, Hex>()
  const lastQuote = new Map<string, { readonly input: Ids.QuoteIdInput; readonly id: Hex }>()
  const terms = new Map<string, RouteTerms>()
  return {
    unpriced: new Map(),
    holds: new Map(),
    routeTexts: new Map(),
    termsInputs: new Map(),
    ordered: new WeakMap(),
    routeGauges: new Map(),
    sortKeysDeep: (value) => {
      let sorted = sortedLocators.get(value)
      if (sorted === undefined) {
        sorted = JSON.parse(CanonicalJson.stringify(value)) as Route["sourceLocator"]
        sortedLocators.set(value, sorted)
      }
      return sorted
    },
    quoteIdOf: (input) => {
      // the last quoteId of the route first (no key to build when nothing changed)
      const last = lastQuote.get(input.routeId)
      if (
        last !== undefined && last.input.pricingReferenceId === input.pricingReferenceId &&
        last.input.validAfter === input.validAfter && last.input.validUntil === input.validUntil &&
        last.input.executionGeneration === input.executionGeneration && last.input.policyHash === input.policyHash
      ) {
        return last.id
      }
      const key =
        `${input.routeId}:${input.pricingReferenceId}:${input.validAfter}:${input.validUntil}:${input.executionGeneration}:${input.policyHash}`
      let id = quoteIds.get(key)
      if (id === undefined) {
        if (quoteIds.size > 100_000) quoteIds.clear()
        id = Ids.quoteId(input)
        quoteIds.set(key, id)
      }
      lastQuote.set(input.routeId, { input, id })
      return id
    },
    termsOf: (next) => {
      const previous = terms.get(next.routeId)
      if (previous !== undefined && sameTermsValues(previous, next)) return previous
      terms.set(next.routeId, next)
      return next
    }
  }
}

const unpricedCache = new WeakMap<CatalogRoute, IndicativeTerms>()

/** The terms a route is published with while it cannot be priced: the catalog's price, model UNPRICED. */
const unpricedTerms = (route: CatalogRoute): IndicativeTerms => {
  let terms = unpricedCache.get(route)
  if (terms === undefined) {
    terms = termsAt(route, "UNPRICED", null, route.priceNumeratorRaw, route.priceDenominatorRaw)
    unpricedCache.set(route, terms)
  }
  return terms
}

/** The value of an effect that is a successful Exit already (nothing to run), else `undefined`. */
const successNow = <A, E, R>(effect: Effect.Effect<A, E, R>): { readonly value: A } | undefined => {
  if (!Exit.isExit(effect)) return undefined
  const exit = effect as unknown as Exit.Exit<A, E>
  return Exit.isSuccess(exit) ? exit : undefined
}

/**
 * Builds the terms of every catalog route at time `now` (seconds).
 */
export const buildTerms = Effect.fnUntraced(function*(now: number, operator: OperatorState, memo: Memo) {
  const catalog = yield* Catalog
  const pricing = yield* Pricing
  const inventory = yield* Inventory
  const balances = yield* inventory.balances()
  for (const [asset, balance] of balances) {
    // the gauge moves only when the hold did (ticks are frequent)
    if (memo.holds.get(asset) === balance.holdRaw) continue
    memo.holds.set(asset, balance.holdRaw)
    yield* Metric.update(Metric.withAttributes(Metrics.assetHolds, { asset }), Number(balance.holdRaw))
  }
  const window = catalog.quoteWindowSeconds
  const validAfter = Math.floor(now / window) * window
  const validUntil = validAfter + window
  let ordered = memo.ordered.get(catalog.routes)
  if (ordered === undefined) {
    // terms copy the lane, rank and routeId of their catalog route: sorting the catalog routes once
    // gives the order of their terms
    ordered = [...catalog.routes].sort(publicationOrder)
    memo.ordered.set(catalog.routes, ordered)
  }
  const out: Array<{ terms: RouteTerms; route: CatalogRoute }> = []
  for (const route of ordered) {
    // most routes are priced without running an effect (below): yield to the event loop now and then
    if (out.length > 0 && out.length % PUBLICATION_CHUNK === 0) yield* Effect.yieldNow
    const override = operator.routes[route.routeId] ?? {}
    const executionStatus = override.executionStatus ?? route.executionStatus
    const dailyStatus = override.dailyStatus ?? route.dailyStatus
    const balance = balances.get(route.destination.assetId)
    const available = balance === undefined ? 0n : availableOf(balance)
    // a route pricing cannot answer for now is published closed, with the catalog's terms
    // pricing answers most routes with values at hand (a successful Exit): read them without
    // running an effect per route (the same result as running it)
    const indicativeEffect = pricing.indicative(route)
    const indicativeNow = successNow(indicativeEffect)
    let priced: Result.Result<{ indicative: IndicativeTerms; capacity: bigint }, PricingUnavailable>
    if (indicativeNow !== undefined) {
      const indicative = indicativeNow.value
      const capacityEffect = pricing.capacity(route, available)
      const capacityNow = successNow(capacityEffect)
      priced = capacityNow !== undefined
        ? Result.succeed({ indicative, capacity: capacityNow.value })
        : yield* Effect.result(Effect.map(capacityEffect, (capacity) => ({ indicative, capacity })))
    } else {
      priced = yield* Effect.result(Effect.flatMap(
        indicativeEffect,
        (indicative) => Effect.map(pricing.capacity(route, available), (capacity) => ({ indicative, capacity }))
      ))
    }
    const reason = Result.isFailure(priced) ? priced.failure.message : undefined
    if (reason !== memo.unpriced.get(route.routeId)) {
      if (reason === undefined) {
        memo.unpriced.delete(route.routeId)
        yield* Effect.logInfo("route priced again", { routeId: route.routeId })
      } else {
        memo.unpriced.set(route.routeId, reason)
        yield* Effect.logWarning("route cannot be priced: published closed", { routeId: route.routeId, reason })
      }
    }
    const indicative = Result.isSuccess(priced) ? priced.success.indicative : unpricedTerms(route)
    const maxAvailableInRaw = Result.isSuccess(priced) ? priced.success.capacity : 0n
    const permitAvailable = route.permitAvailable
    const open = executionStatus === "OPEN" && dailyStatus === "OPEN" && permitAvailable &&
      Result.isSuccess(priced) && validAfter <= now && now < validUntil && maxAvailableInRaw >= route.minimumFillInRaw
    const last = memo.termsInputs.get(route.routeId)
    if (
      last !== undefined && last.route === route && last.executionStatus === executionStatus &&
      last.dailyStatus === dailyStatus && last.indicative === indicative && last.capacity === maxAvailableInRaw &&
      last.validAfter === validAfter && last.validUntil === validUntil && last.open === open
    ) {
      out.push({ terms: last.terms, route })
      continue
    }
    const src = route.source
    const dst = route.destination
    const terms: RouteTerms = {
      routeId: route.routeId,
      quoteId: memo.quoteIdOf({
        routeId: route.routeId,
        pricingReferenceId: indicative.pricingReferenceId,
        validAfter,
        validUntil,
        executionGeneration: route.executionGeneration,
        policyHash: route.policyHash
      }),
      sourceNetworkId: src.network.networkId,
      sourceAssetId: src.assetId,
      destinationNetworkId: dst.network.networkId,
      destinationAssetId: dst.assetId,
      sourceChainId: src.network.chainId,
      destinationChainId: dst.network.chainId,
      sourceAsset: src.address,
      destinationAsset: dst.address,
      sourceVault: src.network.vaultAddress,
      destinationVault: dst.network.vaultAddress,
      sourceRouter: src.network.router,
      sourceLocator: memo.sortKeysDeep(src.locator),
      destinationLocator: memo.sortKeysDeep(dst.locator),
      discoveryStatus: "DISCOVERABLE",
      executionStatus,
      permitAvailable,
      publicationLane: route.publicationLane,
      publicationRank: route.publicationRank,
      serviceCategory: route.serviceCategory,
      feeMode: indicative.feeMode,
      serviceFeeBps: indicative.serviceFeeBps,
      sourceTokenDecimals: src.decimals,
      destinationTokenDecimals: dst.decimals,
      pricingReferenceId: indicative.pricingReferenceId,
      executionGeneration: route.executionGeneration,
      sourceFinalityBlocks: route.sourceFinalityBlocks,
      settlementWindowSeconds: route.settlementWindowSeconds,
      validAfter,
      validUntil,
      policyHash: route.policyHash,
      assumptionsHash: route.assumptionsHash,
      legacyRouteId: route.legacyRouteId,
      dailyStatus,
      open,
      pricingMode: "INDICATIVE_ENVELOPE_REPRICE_AT_PERMIT",
      indicativePriceNumeratorRaw: indicative.numeratorRaw.toString(),
      indicativePriceDenominatorRaw: indicative.denominatorRaw.toString(),
      minimumFillInRaw: route.minimumFillInRaw.toString(),
      maxAvailableInRaw: maxAvailableInRaw.toString()
    }
    const kept = memo.termsOf(terms)
    memo.termsInputs.set(route.routeId, {
      route,
      executionStatus,
      dailyStatus,
      indicative,
      capacity: maxAvailableInRaw,
      validAfter,
      validUntil,
      open,
      terms: kept
    })
    out.push({ terms: kept, route })
  }
  return out
})

/**
 * Sets the capacity and open gauges of every route of a publication: the gauges
 * of a route are made once (the series `Metric.withAttributes(gauge, { route })`
 * updates, without a new context per update) and set directly, no effect per
 * route.
 *
 * @category operations
 * @since 0.1.0
 */
export const updateRouteGauges = (
  memo: Memo,
  routes: ReadonlyArray<Route>,
  context: Context.Context<never>
): void => {
  for (const route of routes) {
    let gauges = memo.routeGauges.get(route.routeId)
    if (gauges === undefined) {
      // the series `Metric.withAttributes(gauge, { route })` updates, without a new context per update
      const labelled = { route: route.routeId }
      gauges = {
        capacity: Metric.gauge(Metrics.routeCapacity.id, {
          description: Metrics.routeCapacity.description,
          attributes: labelled
        }),
        open: Metric.gauge(Metrics.routeOpen.id, {
          description: Metrics.routeOpen.description,
          attributes: labelled
        })
      }
      memo.routeGauges.set(route.routeId, gauges)
    }
    gauges.capacity.updateUnsafe(Number(route.maxAvailableInRaw), context)
    gauges.open.updateUnsafe(route.open ? 1 : 0, context)
  }
}
