/**
 * svc reference contracts: the V6 router (`fillDirect` with EIP-712 permits), the
 * solver vault, the route registry, the on-chain discovery facade, the ERC-7683 and
 * OIF modules, and a test token and price feed; their compiled artifacts and viem
 * helpers to deploy them at the same CREATE2 addresses on every chain.
 *
 * The anvil launcher for tests is a separate entry point,
 * `@svc/contracts/testing/Anvil` (Node only).
 *
 * @since 0.1.0
 */

/**
 * The compiled contracts (ABI `as const`, bytecode, runtime code hash) and the compiler settings.
 *
 * @category onchain
 * @since 0.1.0
 */
export * as Artifacts from "./artifacts.ts"

/**
 * CREATE2 salts, address prediction and deployment helpers.
 *
 * @category onchain
 * @since 0.1.0
 */
export * as Deploy from "./Deploy.ts"

/**
 * The permit's viem type, EIP-712 typed data, payload encodings and preview reasons.
 *
 * @category onchain
 * @since 0.1.0
 */
export * as Permit from "./Permit.ts"
