/**
 * svc core: the solver engine as Effect services (catalog, pricing, inventory,
 * publisher, permits, settlement, route metrics, rate limiting, the aggregator)
 * and the contracts its plug-ins implement (store, signer, network connectors).
 * The wire formats it speaks live in `@svc/protocol`.
 *
 * @since 0.1.0
 */
/** @since 0.1.0 */
export * as Aggregator from "./Aggregator.ts"
/** @since 0.1.0 */
export * as Catalog from "./Catalog.ts"
/** @since 0.1.0 */
export * as CatalogCheck from "./CatalogCheck.ts"
/** @since 0.1.0 */
export * as Chain from "./Chain.ts"
/** @since 0.1.0 */
export * as ChainSettlement from "./ChainSettlement.ts"
/** @since 0.1.0 */
export * as Connector from "./Connector.ts"
/** @since 0.1.0 */
export * as Coordination from "./Coordination.ts"
/** @since 0.1.0 */
export * as Economics from "./Economics.ts"
/** @since 0.1.0 */
export * as Entropy from "./Entropy.ts"
/** @since 0.1.0 */
export * as Health from "./Health.ts"
/** @since 0.1.0 */
export * as Inventory from "./Inventory.ts"
/** @since 0.1.0 */
export * as Keystore from "./Keystore.ts"
/** @since 0.1.0 */
export * as Lifecycle from "./Lifecycle.ts"
/** @since 0.1.0 */
export * as Market from "./Market.ts"
/** @since 0.1.0 */
export * as Metrics from "./Metrics.ts"
/** @since 0.1.0 */
export * as PermitChecks from "./PermitChecks.ts"
/** @since 0.1.0 */
export * as PermitEnvelope from "./PermitEnvelope.ts"
/** @since 0.1.0 */
export * as PermitError from "./PermitError.ts"
/** @since 0.1.0 */
export * as PermitIdempotency from "./PermitIdempotency.ts"
/** @since 0.1.0 */
export * as PermitIdentities from "./PermitIdentities.ts"
/** @since 0.1.0 */
export * as Permits from "./Permits.ts"
/** @since 0.1.0 */
export * as Plugin from "./Plugin.ts"
/** @since 0.1.0 */
export * as Pricing from "./Pricing.ts"
/** @since 0.1.0 */
export * as Publisher from "./Publisher.ts"
/** @since 0.1.0 */
export * as RateLimit from "./RateLimit.ts"
/** @since 0.1.0 */
export * as RouteMetrics from "./RouteMetrics.ts"
/** @since 0.1.0 */
export * as Settlement from "./Settlement.ts"
/** @since 0.1.0 */
export * as Signer from "./Signer.ts"
/** @since 0.1.0 */
export * as Solver from "./Solver.ts"
/** @since 0.1.0 */
export * as Store from "./Store.ts"
