/**
 * svc core: the V6 resources as Effect Schemas, the byte-exact protocol primitives
 * and (in later modules) the solver engine as Effect services. No Node-only imports:
 * this entry point bundles for browsers.
 *
 * @since 0.1.0
 */
export * from "./schema/index.ts"

/** @since 0.1.0 */
export * as Aggregator from "./Aggregator.ts"
/** @since 0.1.0 */
export * as CanonicalJson from "./CanonicalJson.ts"
/** @since 0.1.0 */
export * as FeedSignature from "./FeedSignature.ts"
/** @since 0.1.0 */
export * as Ids from "./Ids.ts"
/** @since 0.1.0 */
export * as PermitAbi from "./PermitAbi.ts"
/** @since 0.1.0 */
export * as PermitDigest from "./PermitDigest.ts"
/** @since 0.1.0 */
export * as PermitMessage from "./PermitMessage.ts"
/** @since 0.1.0 */
export * as Signature from "./Signature.ts"
/** @since 0.1.0 */
export * as Catalog from "./Catalog.ts"
/** @since 0.1.0 */
export * as Connector from "./Connector.ts"
/** @since 0.1.0 */
export * as Economics from "./Economics.ts"
/** @since 0.1.0 */
export * as Errors from "./Errors.ts"
/** @since 0.1.0 */
export * as Inventory from "./Inventory.ts"
/** @since 0.1.0 */
export * as Lifecycle from "./Lifecycle.ts"
/** @since 0.1.0 */
export * as Permits from "./Permits.ts"
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
