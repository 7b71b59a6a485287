/**
 * The solver engine assembled from its parts: catalog, pricing, inventory,
 * economics, publisher, permits, settlement, route metrics, rate limiting and
 * the connector registry. It needs a `Store` and a `Signer`; every part can be
 * replaced by a layer of your own in {@link SolverParts}, and the engine's error
 * type is the union of what the parts you use can fail with.
 *
 * ```ts
 * import { Pricing, Solver } from "@svc/core"
 * import { EvmConnector } from "@svc/connector-evm"
 *
 * const Engine = Solver.layer({
 *   catalog: myCatalogDocument,
 *   connectors: [EvmConnector.make()],
 *   publisher: { routeDetailTemplate: "https://solver.example/api/v6/routes/{routeId}" }
 * }, { pricing: MyPricingLayer })
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import * as Catalog from "./Catalog.ts"
import * as ChainSettlement from "./ChainSettlement.ts"
import * as Connector from "./Connector.ts"
import * as Coordination from "./Coordination.ts"
import * as Economics from "./Economics.ts"
import * as Health from "./Health.ts"
import * as Inventory from "./Inventory.ts"
import * as Market from "./Market.ts"
import * as Permits from "./Permits.ts"
import * as Pricing from "./Pricing.ts"
import * as Publisher from "./Publisher.ts"
import * as RateLimit from "./RateLimit.ts"
import * as RouteMetrics from "./RouteMetrics.ts"
import * as Settlement from "./Settlement.ts"
import type { Signer } from "./Signer.ts"
import type { Store, StoreError } from "./Store.ts"

/**
 * Options of the default parts.
 *
 * @category models
 * @since 0.1.0
 */
export interface SolverOptions {
  /** The catalog document (a decoded JSON/YAML value), used unless `parts.catalog` is given. */
  readonly catalog?: unknown
  readonly publisher: Publisher.PublisherOptions
  readonly permits?: Permits.PermitOptions | undefined
  readonly settlement?: Settlement.SettlementOptions | undefined
  /** Watchers and payouts on networks whose connectors settle (see {@link ChainSettlement}). */
  readonly chainSettlement?: ChainSettlement.ChainSettlementOptions | undefined
  /** Options of static pricing (the default pricing part unless `oracle` is given). */
  readonly pricing?: Pricing.StaticOptions | undefined
  /** When given, the default pricing part is oracle pricing (see `Pricing.layerOracle`). */
  readonly oracle?: Pricing.OracleOptions | undefined
  /** Health checks (see {@link Health}). */
  readonly health?: Health.HealthOptions | undefined
  /** Market data: the catalog's price feeds and source gas prices (see {@link Market}). */
  readonly market?: Market.MarketOptions | undefined
  readonly rateLimit?: RateLimit.RateLimitOptions | undefined
  readonly routeMetrics?: { readonly flushMillis?: number | undefined } | undefined
  /**
   * Connectors to register, by family or for single networks (none by default:
   * a route whose networks have no connector publishes permitAvailable false).
   * The catalog resolves networks, assets and vaults and the permit service
   * resolves identities and proofs through them.
   */
  readonly connectors?: ReadonlyArray<Connector.Registration> | undefined
  /** Deployment profile; overrides the catalog document's (see {@link Catalog.Profile}). */
  readonly profile?: Catalog.Profile | undefined
}

/**
 * Everything the engine provides.
 *
 * @category models
 * @since 0.1.0
 */
export type Engine =
  | Catalog.Catalog
  | Pricing.Pricing
  | Market.Market
  | Inventory.Inventory
  | Economics.Economics
  | Health.Health
  | Publisher.Publisher
  | Permits.Permits
  | Settlement.SettlementObserver
  | ChainSettlement.ChainSettlement
  | RouteMetrics.RouteMetrics
  | RateLimit.PermitRateLimiter
  | Connector.ConnectorRegistry
  | Coordination.Coordination

/**
 * What a replacement part may use: the other parts of the engine, the store and
 * the signer.
 *
 * @category models
 * @since 0.1.0
 */
export type PartContext = Engine | Store | Signer

/**
 * Replacement layers for parts of the engine, failing with `E` at most.
 *
 * @category models
 * @since 0.1.0
 */
export interface SolverParts<E = never> {
  /**
   * Coordination of replicas (which one publishes and settles); default: one
   * process (`Coordination.layerSingle`). Replicas on PostgreSQL use
   * `@svc/store`'s `PgCoordination`.
   */
  readonly coordination?: Layer.Layer<Coordination.Coordination, E> | undefined
  readonly catalog?: Layer.Layer<Catalog.Catalog, E, Connector.ConnectorRegistry> | undefined
  readonly market?: Layer.Layer<Market.Market, E, Catalog.Catalog | Connector.ConnectorRegistry> | undefined
  readonly pricing?: Layer.Layer<Pricing.Pricing, E, Catalog.Catalog | Market.Market | Store | Signer> | undefined
  readonly inventory?: Layer.Layer<Inventory.Inventory, E, Store | Catalog.Catalog> | undefined
  readonly economics?:
    | Layer.Layer<Economics.Economics, E, Catalog.Catalog | Market.Market | Pricing.Pricing | Store>
    | undefined
  readonly rateLimiter?: Layer.Layer<RateLimit.PermitRateLimiter, E> | undefined
  readonly connectors?: Layer.Layer<Connector.ConnectorRegistry, E> | undefined
  readonly routeMetrics?: Layer.Layer<RouteMetrics.RouteMetrics, E, Store> | undefined
  readonly settlement?: Layer.Layer<Settlement.SettlementObserver, E, Store> | undefined
  readonly chainSettlement?:
    | Layer.Layer<
      ChainSettlement.ChainSettlement,
      E,
      Catalog.Catalog | Store | Connector.ConnectorRegistry | Settlement.SettlementObserver | Coordination.Coordination
    >
    | undefined
  readonly publisher?:
    | Layer.Layer<
      Publisher.Publisher,
      E,
      | Catalog.Catalog
      | Pricing.Pricing
      | Inventory.Inventory
      | Store
      | Signer
      | Economics.Economics
      | Coordination.Coordination
    >
    | undefined
  readonly permits?:
    | Layer.Layer<
      Permits.Permits,
      E,
      | Catalog.Catalog
      | Publisher.Publisher
      | Pricing.Pricing
      | Inventory.Inventory
      | Store
      | Signer
      | Connector.ConnectorRegistry
      | RateLimit.PermitRateLimiter
      | RouteMetrics.RouteMetrics
    >
    | undefined
}

/**
 * What building the default engine can fail with: an invalid catalog document,
 * or the store while reading the inventory.
 *
 * @category models
 * @since 0.1.0
 */
export type EngineError = Catalog.CatalogInvalid | StoreError

/**
 * The engine layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <E = never>(
  options: SolverOptions,
  parts: SolverParts<E> = {}
): Layer.Layer<Engine, EngineError | E, Store | Signer> => {
  const connectors = part(parts.connectors, () => Connector.registryLayer(options.connectors ?? []))
  const catalog = part(parts.catalog, () => Catalog.layer(options.catalog, { profile: options.profile })).pipe(
    Layer.provideMerge(connectors)
  )
  const market = part(parts.market, () => Market.layer(options.market)).pipe(Layer.provideMerge(catalog))
  const pricing = part(
    parts.pricing,
    () => options.oracle === undefined ? Pricing.layerStatic(options.pricing) : Pricing.layerOracle(options.oracle)
  ).pipe(Layer.provideMerge(market))
  const economics = part(parts.economics, () => Economics.layerMarket).pipe(Layer.provide(pricing))
  const rateLimiter = part(parts.rateLimiter, () => RateLimit.layerMemory(options.rateLimit))
  const inventory = part(parts.inventory, () => Inventory.layerFromCatalog).pipe(Layer.provide(catalog))
  const coordination = part(parts.coordination, () => Coordination.layerSingle)
  const base = Layer.mergeAll(pricing, economics, rateLimiter, inventory, coordination)
  const publisher = part(parts.publisher, () => Publisher.layer(options.publisher)).pipe(Layer.provide(base))
  const withPublisher = Layer.merge(base, publisher)
  const metrics = part(parts.routeMetrics, () => RouteMetrics.layer(options.routeMetrics))
  const permits = part(parts.permits, () => Permits.layer(options.permits)).pipe(
    Layer.provide(Layer.merge(withPublisher, metrics))
  )
  // the retention floor follows the catalog's quote window
  const settlement = part(parts.settlement, () =>
    Layer.unwrap(
      Effect.gen(function*() {
        const c = yield* Catalog.Catalog
        return Settlement.layer({ quoteWindowSeconds: c.quoteWindowSeconds, ...options.settlement })
      })
    ).pipe(Layer.provide(catalog)))
  const chainSettlement = part(parts.chainSettlement, () => ChainSettlement.layer(options.chainSettlement)).pipe(
    Layer.provide(Layer.mergeAll(catalog, settlement, coordination))
  )
  // health reports each settled network (never counted against readiness)
  const health = Health.layer(options.health).pipe(Layer.provide(Layer.merge(withPublisher, chainSettlement)))
  return Layer.mergeAll(withPublisher, permits, settlement, chainSettlement, metrics, health)
}

/** The given replacement, or the default part, typed with the union of both error channels. */
const part = <A, E1, E2, R>(
  given: Layer.Layer<A, E1, R> | undefined,
  fallback: () => Layer.Layer<A, E2, R>
): Layer.Layer<A, E1 | E2, R> => given ?? fallback()
