/**
 * svc protocol: everything two parties of the V6 interface must agree on, with no
 * engine and no Node-only import (this entry point bundles for browsers):
 *
 * - every resource of the interface as a strict Effect Schema (top-level exports);
 * - the byte formats: canonical JSON, the feed hash and signature, the permit
 *   request message, the EIP-712 permit digest, the ExecutionPermit ABI and the
 *   identifier derivations;
 * - signature helpers (EIP-191, raw-digest recovery, low-s).
 *
 * @since 0.1.0
 */
export * from "./schema/index.ts"

/** @since 0.1.0 */
export * as Bytes from "./Bytes.ts"
/** @since 0.1.0 */
export * as CanonicalJson from "./CanonicalJson.ts"
/** @since 0.1.0 */
export * as ErrorCodes from "./ErrorCodes.ts"
/** @since 0.1.0 */
export * as FeedSignature from "./FeedSignature.ts"
/** @since 0.1.0 */
export * as Ids from "./Ids.ts"
/** @since 0.1.0 */
export * as Onchain from "./Onchain.ts"
/** @since 0.1.0 */
export * as Patterns from "./Patterns.ts"
/** @since 0.1.0 */
export * as PermitAbi from "./PermitAbi.ts"
/** @since 0.1.0 */
export * as PermitDigest from "./PermitDigest.ts"
/** @since 0.1.0 */
export * as PermitMessage from "./PermitMessage.ts"
/** @since 0.1.0 */
export * as Signature from "./Signature.ts"
