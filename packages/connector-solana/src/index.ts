/**
 * svc network connector for Solana.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as SolanaConnector from "./SolanaConnector.ts"
/** @since 0.1.0 */
export * as SolanaLocator from "./SolanaLocator.ts"
/** @since 0.1.0 */
export * as SolanaNetworks from "./SolanaNetworks.ts"
/** @since 0.1.0 */
export * as SolanaOwnershipProof from "./SolanaOwnershipProof.ts"
/** @since 0.1.0 */
export * as SolanaPlugin from "./SolanaPlugin.ts"

/**
 * The plug-in `svc serve` loads when `SVC_CONNECTORS` names this package.
 *
 * @since 0.1.0
 */
export { default } from "./SolanaPlugin.ts"
