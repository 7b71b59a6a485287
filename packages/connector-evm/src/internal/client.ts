/**
 * viem public clients from the connector configuration. Internal.
 */
import { Redacted } from "effect"
import { createPublicClient, http, type PublicClient } from "viem"
import type { EvmConfig } from "../EvmConfig.ts"

/** One public client per configured chain id (no retries: the connector reports an unreachable RPC at once). */
export const clientsOf = (config: EvmConfig | undefined): ReadonlyMap<string, PublicClient> => {
  const clients = new Map<string, PublicClient>()
  if (config?.smartAccounts === false) return clients
  const timeout = Math.max(1, config?.rpcTimeoutMillis ?? 10_000)
  for (const [chainId, url] of Object.entries(config?.rpcUrls ?? {})) {
    const value = Redacted.isRedacted(url) ? Redacted.value(url) : url
    clients.set(chainId, createPublicClient({ transport: http(value, { timeout, retryCount: 0 }) }) as PublicClient)
  }
  return clients
}
