/**
 * The solver engine assembled from its parts: catalog, pricing, inventory,
 * publisher, permits, settlement, route metrics, rate limiting and connectors.
 * It needs a `Store` and a `Signer`; every part can be replaced by passing a
 * layer of your own in {@link SolverParts}.
 *
 * ```ts
 * import { Catalog, Pricing, Solver } from "@svc/core"
 *
 * const Engine = Solver.layer({
 *   catalog: myCatalogDocument,
 *   publisher: { routeDetailTemplate: "https://solver.example/api/v6/routes/{routeId}" }
 * }, { pricing: MyPricingLayer })
 * ```
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import * as Catalog from "./Catalog.ts"
import * as Connector from "./Connector.ts"
import * as Economics from "./Economics.ts"
import * as Inventory from "./Inventory.ts"
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
  readonly pricing?: Pricing.StaticOptions | undefined
  readonly rateLimit?: RateLimit.RateLimitOptions | undefined
  readonly routeMetrics?: { readonly flushMillis?: number | undefined } | undefined
  /**
   * Connectors to register, by family or for single networks (default: the
   * offline EVM connector). The catalog resolves networks, assets and vaults and
   * the permit service resolves identities and proofs through them.
   */
  readonly connectors?: ReadonlyArray<Connector.Registration> | undefined
  /** Deployment profile; overrides the catalog document's (see {@link Catalog.Profile}). */
  readonly profile?: Catalog.Profile | undefined
}

/**
 * Replacement layers for parts of the engine.
 *
 * @category models
 * @since 0.1.0
 */
export interface SolverParts {
  readonly catalog?: Layer.Layer<Catalog.Catalog, unknown, Connector.ConnectorRegistry> | undefined
  readonly pricing?: Layer.Layer<Pricing.Pricing, unknown> | undefined
  readonly inventory?: Layer.Layer<Inventory.Inventory, unknown, Store | Catalog.Catalog> | undefined
  readonly economics?: Layer.Layer<Economics.Economics, unknown> | undefined
  readonly rateLimiter?: Layer.Layer<RateLimit.PermitRateLimiter, unknown> | undefined
  readonly connectors?: Layer.Layer<Connector.ConnectorRegistry, unknown> | undefined
}

/**
 * Everything the engine provides.
 *
 * @category models
 * @since 0.1.0
 */
export type Services =
  | Catalog.Catalog
  | Pricing.Pricing
  | Inventory.Inventory
  | Economics.Economics
  | Publisher.Publisher
  | Permits.Permits
  | Settlement.SettlementObserver
  | RouteMetrics.RouteMetrics
  | RateLimit.PermitRateLimiter
  | Connector.ConnectorRegistry

/**
 * The engine layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  options: SolverOptions,
  parts?: SolverParts
): Layer.Layer<Services, Catalog.CatalogInvalid | StoreError | unknown, Store | Signer> => {
  const connectors = parts?.connectors ??
    Connector.registryLayer(options.connectors ?? [Connector.evmEoaConnector])
  const catalog = (parts?.catalog ?? Catalog.layer(options.catalog, { profile: options.profile })).pipe(
    Layer.provideMerge(connectors)
  )
  const pricing = parts?.pricing ?? Pricing.layerStatic(options.pricing)
  const economics = parts?.economics ?? Economics.layerNone
  const rateLimiter = parts?.rateLimiter ?? RateLimit.layerMemory(options.rateLimit)
  const inventory = (parts?.inventory ?? Inventory.layerFromCatalog).pipe(Layer.provide(catalog))
  const base = Layer.mergeAll(catalog, pricing, economics, rateLimiter, inventory)
  const publisher = Publisher.layer(options.publisher).pipe(Layer.provide(base))
  const withPublisher = Layer.merge(base, publisher)
  const metrics = RouteMetrics.layer(options.routeMetrics)
  const permits = Permits.layer(options.permits).pipe(Layer.provide(Layer.merge(withPublisher, metrics)))
  const settlement = Settlement.layer(options.settlement)
  return Layer.mergeAll(withPublisher, permits, settlement, metrics)
}
