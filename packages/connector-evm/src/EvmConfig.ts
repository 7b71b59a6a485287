/**
 * Configuration of the EVM connector.
 *
 * @since 0.1.0
 */
import type { Redacted } from "effect"

/**
 * JSON-RPC URLs by chain id: one URL, or several (failed over in order; see
 * `EvmSettlement`). URLs may carry API keys: pass them as `Redacted`.
 *
 * @category models
 * @since 0.1.0
 */
export type RpcUrls = Readonly<
  Record<string, string | Redacted.Redacted<string> | ReadonlyArray<string | Redacted.Redacted<string>>>
>

/**
 * What the EVM connector needs to know.
 *
 * @category models
 * @since 0.1.0
 */
export interface EvmConfig {
  /**
   * JSON-RPC URLs by chain id ("8453": "https://..."). A chain with a URL
   * verifies smart-contract accounts (ERC-1271 deployed, ERC-6492
   * counterfactual); without one, only EOA signatures verify and a
   * smart-contract signature is refused with RPC_NOT_CONFIGURED. URLs may carry
   * API keys: pass them as `Redacted`.
   */
  readonly rpcUrls?: RpcUrls | undefined
  /** Longest wait for one RPC verification, milliseconds. Default 10000. */
  readonly rpcTimeoutMillis?: number | undefined
  /** Verify smart-contract accounts where an RPC URL is configured. Default true. */
  readonly smartAccounts?: boolean | undefined
  /**
   * Settle on the networks with an RPC URL: watch the router's source fills and,
   * with `payoutKey`, pay out from the vault. Default true.
   */
  readonly settlement?: boolean | undefined
  /** The vaults' operator key (0x + 64 hex) that signs payouts. Without it nothing is paid out. */
  readonly payoutKey?: Redacted.Redacted<string> | undefined
}
