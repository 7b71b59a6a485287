/**
 * The EVM connector: identities of EVM chains (vmType keccak256("EVM")), with
 * smart-contract accounts verified over RPC where the chain has an RPC URL.
 *
 * - Networks: a chain id (catalog `chainId`).
 * - Accounts: `{"native": "0x<lowercase address>"}`; the address form of a permit
 *   request (payer, recipient) is the same identity.
 * - Assets: token addresses; `{"chainId", "token"}` locators.
 * - Payers: EIP-191 signatures of EOAs (offline), ERC-1271 / ERC-6492 accounts (RPC).
 * - Recipients and payout: supported.
 * - Settlement (see `EvmSettlement`): on networks with an RPC URL, the router's
 *   source fills are watched; with a payout key, confirmed fills are paid out.
 *
 * ```ts
 * import { EvmConnector } from "@svc/connector-evm"
 * import { Redacted } from "effect"
 *
 * const Evm = EvmConnector.layer({ rpcUrls: { "8453": Redacted.make(process.env.BASE_RPC_URL!) } })
 * ```
 *
 * @since 0.1.0
 */
import { type Chain, Connector } from "@svc/core"
import { Context, Effect, Layer, type Scope } from "effect"
import type { PublicClient } from "viem"
import type { EvmConfig } from "./EvmConfig.ts"
import * as EvmLocator from "./EvmLocator.ts"
import * as EvmMarket from "./EvmMarket.ts"
import * as EvmOwnershipProof from "./EvmOwnershipProof.ts"
import * as EvmSettlement from "./EvmSettlement.ts"
import { clientsOf, endpointsOf } from "./internal/client.ts"

/**
 * The EVM connector, with the chains it can verify smart-contract accounts on.
 *
 * @category models
 * @since 0.1.0
 */
export interface EvmConnectorShape extends Connector.Connector {
  /** Chain ids with an RPC client (smart-contract accounts verified there). */
  readonly rpcChainIds: ReadonlyArray<string>
}

/**
 * The EVM connector service (it also provides the core `Connector`).
 *
 * @category services
 * @since 0.1.0
 */
export class EvmConnector
  extends Context.Service<EvmConnector, EvmConnectorShape>()("@svc/connector-evm/EvmConnector")
{}

/**
 * The EVM connector over caller-owned viem clients, by chain id.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromClients = (
  clients: ReadonlyMap<string, PublicClient>,
  options?: {
    readonly rpcTimeoutMillis?: number | undefined
    /** Settlement on chain (see `EvmSettlement`); none by default. */
    readonly settlement?: Chain.SettlementSupport | undefined
    /** Market data: price feeds and gas prices (see `EvmMarket`); none by default. */
    readonly market?: Chain.MarketSupport | undefined
  }
): EvmConnectorShape => {
  const timeout = Math.max(1, options?.rpcTimeoutMillis ?? 10_000)
  const connector = Connector.make({
    family: "EVM",
    capabilities: { payer: true, recipient: true, payout: true },
    proofSchemes: clients.size > 0
      ? ["EIP191_PERSONAL_SIGN", "ERC1271", "ERC6492", "ERC8010"]
      : ["EIP191_PERSONAL_SIGN"],
    networkReference: EvmLocator.networkReference,
    parseAsset: EvmLocator.parseAsset,
    parseLocator: EvmLocator.parse,
    renderLocator: EvmLocator.render,
    accountReference: EvmLocator.reference,
    evmAddress: EvmLocator.address,
    settlement: options?.settlement,
    market: options?.market,
    verifyOwnership: (claim) =>
      EvmOwnershipProof.verify(
        {
          address: String(claim.locator.native) as `0x${string}`,
          message: claim.message,
          proof: claim.proof,
          chainId: claim.network.native
        },
        clients.get(claim.network.native),
        timeout
      )
  })
  return { ...connector, rpcChainIds: [...clients.keys()] }
}

/**
 * The EVM connector of a configuration (one viem HTTP client per RPC URL).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (config?: EvmConfig): EvmConnectorShape => {
  // one set of endpoints per chain, shared by proofs, market data and settlement
  const sets = endpointsOf(config?.rpcUrls, config?.rpcTimeoutMillis)
  return fromClients(clientsOf(config, sets), {
    rpcTimeoutMillis: config?.rpcTimeoutMillis,
    settlement: config?.settlement === false || sets.size === 0
      ? undefined
      : EvmSettlement.make({
        rpcUrls: config?.rpcUrls ?? {},
        payoutKey: config?.payoutKey,
        rpcTimeoutMillis: config?.rpcTimeoutMillis,
        endpoints: sets
      }),
    market: sets.size === 0
      ? undefined
      : EvmMarket.make({ rpcUrls: config?.rpcUrls ?? {}, rpcTimeoutMillis: config?.rpcTimeoutMillis, endpoints: sets })
  })
}

/**
 * A layer providing the EVM connector as {@link EvmConnector} and as the core `Connector`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (config?: EvmConfig): Layer.Layer<EvmConnector | Connector.Connector> =>
  layerFrom(Effect.sync(() => make(config)))

/**
 * A layer from an effect that builds the connector (for example over clients
 * acquired in a scope).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFrom = <E, R>(
  acquire: Effect.Effect<EvmConnectorShape, E, R>
): Layer.Layer<EvmConnector | Connector.Connector, E, Exclude<R, Scope.Scope>> =>
  Layer.effectContext(
    Effect.map(acquire, (c) => Context.make(EvmConnector, c).pipe(Context.add(Connector.Connector, c)))
  )
