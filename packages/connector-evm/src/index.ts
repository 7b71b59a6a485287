/**
 * svc network connector for EVM chains.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as EvmConfig from "./EvmConfig.ts"
/** @since 0.1.0 */
export * as EvmConnector from "./EvmConnector.ts"
/** @since 0.1.0 */
export * as EvmLocator from "./EvmLocator.ts"
/** @since 0.1.0 */
export * as EvmMarket from "./EvmMarket.ts"
/** @since 0.1.0 */
export * as EvmOwnershipProof from "./EvmOwnershipProof.ts"
/** @since 0.1.0 */
export * as EvmPlugin from "./EvmPlugin.ts"
/** @since 0.1.0 */
export * as EvmSettlement from "./EvmSettlement.ts"

/**
 * The plug-in `svc serve` loads when `SVC_CONNECTORS` names this package.
 *
 * @since 0.1.0
 */
export { default } from "./EvmPlugin.ts"
