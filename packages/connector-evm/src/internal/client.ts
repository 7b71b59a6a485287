/**
 * viem public clients from the connector configuration: one transport per chain
 * over its endpoints (see `endpoints.ts`), shared by ownership proofs, market
 * data and settlement so that they share what is known of each endpoint. Internal.
 */
import { Redacted } from "effect"
import { createPublicClient, type PublicClient } from "viem"
import type { EvmConfig, RpcUrls } from "../EvmConfig.ts"
import { type Endpoints, endpoints } from "./endpoints.ts"

/** The URLs of a chain's configured endpoints, in order. */
export const urlsOf = (configured: RpcUrls[string]): ReadonlyArray<string> =>
  (Array.isArray(configured) ? configured : [configured]).map((u: string | Redacted.Redacted<string>) =>
    Redacted.isRedacted(u) ? Redacted.value(u) : u
  )

/** One set of endpoints per configured chain id. */
export const endpointsOf = (
  rpcUrls: RpcUrls | undefined,
  timeoutMillis: number | undefined
): ReadonlyMap<string, Endpoints> => {
  const timeout = Math.max(1, timeoutMillis ?? 10_000)
  const sets = new Map<string, Endpoints>()
  for (const [chainId, configured] of Object.entries(rpcUrls ?? {})) {
    const urls = urlsOf(configured)
    if (urls.length > 0) sets.set(chainId, endpoints(urls, { timeoutMillis: timeout }))
  }
  return sets
}

/** A public client over a chain's endpoints (no retries: they fail over, or report an unreachable RPC at once). */
export const clientOf = (set: Endpoints): PublicClient =>
  createPublicClient({ transport: set.transport }) as PublicClient

/** One public client per configured chain id, for ownership proofs. */
export const clientsOf = (
  config: EvmConfig | undefined,
  sets: ReadonlyMap<string, Endpoints> = endpointsOf(config?.rpcUrls, config?.rpcTimeoutMillis)
): ReadonlyMap<string, PublicClient> => {
  const clients = new Map<string, PublicClient>()
  if (config?.smartAccounts === false) return clients
  for (const [chainId, set] of sets) clients.set(chainId, clientOf(set))
  return clients
}
