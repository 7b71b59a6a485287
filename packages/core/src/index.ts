/**
 * svc core: the V6 resources as Effect Schemas, the byte-exact protocol primitives
 * and (in later modules) the solver engine as Effect services. No Node-only imports:
 * this entry point bundles for browsers.
 *
 * @since 0.1.0
 */
export * from "./schema/index.ts"

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
