/**
 * Market data on EVM chains with viem: Chainlink-style price feeds
 * (AggregatorV3Interface: `latestRoundData`, `decimals`) and the gas price, for
 * oracle pricing and route economics (`@svc/core/Market`).
 *
 * @since 0.1.0
 */
import type { Chain } from "@svc/core"
import { Connector } from "@svc/core"
import { Effect } from "effect"
import { BaseError, type Hex, isAddress, parseAbi, type PublicClient } from "viem"
import type { RpcUrls } from "./EvmConfig.ts"
import { clientOf, endpointsOf } from "./internal/client.ts"
import type { Endpoints } from "./internal/endpoints.ts"

/**
 * The AggregatorV3Interface fragments read.
 *
 * @category constants
 * @since 0.1.0
 */
export const AGGREGATOR_V3_ABI = parseAbi([
  "function decimals() view returns (uint8)",
  "function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)"
])

/**
 * Gas units of one `fillDirect` of the reference router with an ERC-20 source
 * asset, rounded up from what the devnet measures (89.2k gas: a new fillId into
 * a vault that already holds the token). The first fill into an empty vault
 * costs about 17k more. The devnet test checks the measurement against it.
 *
 * @category constants
 * @since 0.1.0
 */
export const FILL_DIRECT_GAS_UNITS = 90_000n

const unavailable = (what: string, e: unknown) =>
  new Connector.ConnectorUnavailable({
    code: "RPC_UNAVAILABLE",
    message: `${what}: ${e instanceof BaseError ? e.shortMessage : e instanceof Error ? e.message : String(e)}`
  })

/**
 * The market reader of one chain.
 *
 * @category constructors
 * @since 0.1.0
 */
export const reader = (client: PublicClient): Chain.MarketReader => {
  // a feed's decimals never change: read them once
  const decimals = new Map<string, number>()
  return {
    nativeDecimals: 18,
    fillGasUnits: FILL_DIRECT_GAS_UNITS,
    gasPrice: Effect.tryPromise({ try: () => client.getGasPrice(), catch: (e) => unavailable("eth_gasPrice", e) }),
    priceFeed: (feed) =>
      Effect.tryPromise({
        try: async (): Promise<Chain.PriceRound> => {
          if (!isAddress(feed, { strict: false })) throw new Error(`${feed} is not an address`)
          const address = feed as Hex
          let d = decimals.get(feed.toLowerCase())
          if (d === undefined) {
            d = await client.readContract({ address, abi: AGGREGATOR_V3_ABI, functionName: "decimals" })
            decimals.set(feed.toLowerCase(), d)
          }
          const [roundId, answer, , updatedAt] = await client.readContract({
            address,
            abi: AGGREGATOR_V3_ABI,
            functionName: "latestRoundData"
          })
          return { roundId, answer, decimals: d, updatedAt: Number(updatedAt) }
        },
        catch: (e) => unavailable(`price feed ${feed}`, e)
      })
  }
}

/**
 * EVM market data for a configuration: each network with an RPC URL can be read.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (config: {
  /** JSON-RPC URLs by chain id, one or several each (failed over). */
  readonly rpcUrls: RpcUrls
  /** Longest wait for one RPC call, milliseconds. Default 10000. */
  readonly rpcTimeoutMillis?: number | undefined
  /** The endpoints of each chain, shared with the connector's other parts (built from `rpcUrls` when absent). */
  readonly endpoints?: ReadonlyMap<string, Endpoints> | undefined
}): Chain.MarketSupport => {
  const sets = config.endpoints ?? endpointsOf(config.rpcUrls, config.rpcTimeoutMillis)
  return {
    network: (target) =>
      Effect.sync(() => {
        const set = sets.get(target.native)
        return set === undefined ? null : reader(clientOf(set))
      })
  }
}
