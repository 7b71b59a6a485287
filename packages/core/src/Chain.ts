/**
 * Settlement on chain, as a connector supplies it: reading a network (its head,
 * its blocks, the source fills its router emitted, whether a transaction is
 * included) and paying out from the solver's vault there.
 *
 * A connector that can settle sets {@link SettlementSupport} as its
 * `settlement`; `ChainSettlement` (the runner in the core) drives the permit
 * lifecycle from what it reads: durable block cursors, confirmations, reorg
 * handling, payout intents written before a transaction is sent, and
 * reconciliation after a crash. A connector only answers questions about its
 * chain and signs and sends what it is asked to; it keeps no state of its own.
 *
 * Every method fails with `ConnectorUnavailable` when the chain could not be
 * asked (an RPC down or timing out): the runner retries on its next poll.
 *
 * @since 0.1.0
 */
import type { Hex } from "@svc/protocol/Bytes"
import type { Locator } from "@svc/protocol/schema/Primitives"
import type { Effect } from "effect"
import type { ConnectorError, ConnectorUnavailable } from "./Connector.ts"

/**
 * A block: its height, hash and timestamp.
 *
 * @category models
 * @since 0.1.0
 */
export interface Block {
  readonly number: bigint
  /** Lowercase 0x hex. */
  readonly hash: string
  /** Unix seconds. */
  readonly timestamp: number
}

/**
 * A source fill as the router's event reports it (`SourceFillV6` on EVM chains).
 * Addresses are lowercase; amounts are raw units.
 *
 * @category models
 * @since 0.1.0
 */
export interface SourceFill {
  readonly fillId: string
  readonly routeId: string
  readonly quoteId: string
  /** The contract that emitted the event (the router). */
  readonly router: string
  readonly payer: string
  readonly recipient: string
  readonly sourceAsset: string
  readonly destinationAsset: string
  readonly destinationChainId: bigint
  readonly amountInRaw: bigint
  readonly amountOutRaw: bigint
  readonly txHash: string
  readonly blockNumber: bigint
  readonly blockHash: string
}

/**
 * Where a transaction stands.
 *
 * - `Included`: in a block of the canonical chain (`success` false when it reverted);
 * - `Pending`: known to the node, not yet in a block;
 * - `Missing`: unknown (never sent, dropped, or its block was reorganised away).
 *
 * @category models
 * @since 0.1.0
 */
export type Inclusion =
  | {
    readonly _tag: "Included"
    readonly blockNumber: bigint
    readonly blockHash: string
    readonly success: boolean
  }
  | { readonly _tag: "Pending" }
  | { readonly _tag: "Missing" }

/**
 * Reads a network.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChainReader {
  /** The newest block. */
  readonly head: Effect.Effect<Block, ConnectorUnavailable>
  /**
   * The newest block the chain itself calls final (EVM: the `finalized` block
   * tag), or null when the chain has no such signal (the runner then counts
   * confirmations only).
   */
  readonly finalized: Effect.Effect<Block | null, ConnectorUnavailable>
  /** The block at a height, or null when the chain is not that high (any more). */
  readonly block: (number: bigint) => Effect.Effect<Block | null, ConnectorUnavailable>
  /**
   * The source fills of the network's router in blocks `from` to `to`
   * (inclusive), in chain order. Only fills whose transaction succeeded: the
   * event of a reverted transaction does not exist.
   */
  readonly sourceFills: (from: bigint, to: bigint) => Effect.Effect<ReadonlyArray<SourceFill>, ConnectorUnavailable>
  /** Where a transaction stands. */
  readonly inclusion: (txHash: string) => Effect.Effect<Inclusion, ConnectorUnavailable>
}

/**
 * A payout to make: `amountRaw` of `asset` (the network's asset reference: an
 * EVM token address, zero for the native coin) to `recipient`, for `fillId`.
 *
 * @category models
 * @since 0.1.0
 */
export interface PayoutOrder {
  readonly fillId: string
  readonly asset: string
  readonly recipient: string
  readonly amountRaw: bigint
}

/**
 * The fees of one transaction, EIP-1559 style, in the native coin's smallest
 * unit per gas unit (wei on EVM).
 *
 * @category models
 * @since 0.1.0
 */
export interface Fees {
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
}

/**
 * The fee market of a network now, from its recent blocks (EVM:
 * `eth_feeHistory`): the base fee of the next block and a priority fee that gets
 * a transaction included.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeeMarket {
  readonly baseFeePerGas: bigint
  readonly priorityFeePerGas: bigint
}

/**
 * The paying account's nonces: `latest` counts its mined transactions (the
 * next nonce the chain will accept as included), `pending` adds the consecutive
 * ones waiting in the node's pool.
 *
 * @category models
 * @since 0.1.0
 */
export interface Nonces {
  readonly latest: number
  readonly pending: number
}

/**
 * The transaction fields the runner chooses for a payout: nonce, gas limit and fees.
 *
 * @category models
 * @since 0.1.0
 */
export interface PayoutTransaction extends Fees {
  readonly nonce: number
  readonly gas: bigint
}

/**
 * A signed payout transaction, not yet sent.
 *
 * @category models
 * @since 0.1.0
 */
export interface SignedPayout {
  readonly txHash: string
  /** The raw signed transaction (EVM: 0x-prefixed RLP). */
  readonly rawTransaction: string
  /** The sender's nonce, -1 for networks without nonces. */
  readonly nonce: number
  readonly sender: string
}

/**
 * What a payout would do if it were mined on the latest block (never the
 * pending state: a payout must not count on a transaction that is not mined):
 * succeed with a gas estimate, fail because the vault paid the fillId already,
 * or revert for another reason (decoded: `TokenTransferFailed(0x…)`).
 *
 * @category models
 * @since 0.1.0
 */
export type PayoutCheck =
  | { readonly _tag: "Ok"; readonly gas: bigint }
  | { readonly _tag: "AlreadyPaid" }
  | { readonly _tag: "Reverts"; readonly reason: string }

/**
 * Pays out from the solver's vault on a network. The connector supplies the
 * primitives; the nonce, fee, retry and re-check policy is the core's
 * (`ChainSettlement`), the same on every chain.
 *
 * Failures of `send`: `ConnectorError` with code `NONCE_USED` (the nonce was
 * taken by another transaction: sign again with another), `UNDERPRICED` (a
 * transaction with the same nonce pays more, or the fee cap is below the base
 * fee: sign again with higher fees), `NO_GAS` (the paying account cannot pay
 * for gas); `ConnectorUnavailable` when the node could not be asked.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChainPayer {
  /** The paying account (the vault's operator key), rendered by the connector. */
  readonly sender: string
  /** The paying account's nonces at the latest block and with its pending transactions. */
  readonly nonces: Effect.Effect<Nonces, ConnectorUnavailable>
  /** The fee market now. */
  readonly fees: Effect.Effect<FeeMarket, ConnectorUnavailable>
  /** Simulates a payout against the latest block. */
  readonly check: (order: PayoutOrder) => Effect.Effect<PayoutCheck, ConnectorUnavailable>
  /** Whether the vault has paid `fillId` out (at the latest block). */
  readonly paidOut: (fillId: string) => Effect.Effect<boolean, ConnectorUnavailable>
  /** Signs the payout transaction with the given nonce, gas and fees. Nothing is sent. */
  readonly sign: (
    order: PayoutOrder,
    transaction: PayoutTransaction
  ) => Effect.Effect<SignedPayout, ConnectorError | ConnectorUnavailable>
  /** Sends a signed payout. Sending one the node already knows succeeds. */
  readonly send: (payout: SignedPayout) => Effect.Effect<void, ConnectorError | ConnectorUnavailable>
  /**
   * The transaction that paid `fillId` out, from the vault's payout event; null
   * when none did; `txHash: null` when the vault paid it longer ago than the
   * connector looks back (the payout is then final whatever the rule).
   */
  readonly findPayout: (
    fillId: string
  ) => Effect.Effect<{ readonly txHash: string | null } | null, ConnectorUnavailable>
  /** The vault's balance of an asset (a token address, zero for the native coin), raw units, at the latest block. */
  readonly balance: (asset: string) => Effect.Effect<bigint, ConnectorUnavailable>
  /** The paying account's balance of the native coin (what pays for gas). */
  readonly gasBalance: Effect.Effect<bigint, ConnectorUnavailable>
}

/**
 * What a connector can do on one network: read it, and pay out there when it
 * holds the payout key.
 *
 * @category models
 * @since 0.1.0
 */
export interface NetworkChain {
  readonly reader: ChainReader
  readonly payer: ChainPayer | null
  /** The network's RPC endpoints as the connector sees them (several are failed over), for metrics and health. */
  readonly endpoints?: (() => ReadonlyArray<EndpointStatus>) | undefined
}

/**
 * One RPC endpoint of a network: its label (its position in the
 * configuration), its host (never the URL: it may carry an API key), whether
 * its last request got through, whether it is the one in use, and its counts.
 *
 * @category models
 * @since 0.1.0
 */
export interface EndpointStatus {
  readonly label: string
  readonly host: string
  readonly up: boolean | null
  readonly primary: boolean
  readonly requests: number
  readonly failures: number
}

/**
 * The network settlement is asked for, as the catalog resolved it.
 *
 * @category models
 * @since 0.1.0
 */
export interface SettlementTarget {
  readonly key: string
  readonly networkId: Hex
  /** The native network reference (an EVM chain id). */
  readonly native: string
  /** The network's router (source fills), null when it has none. */
  readonly router: Hex | null
  /** The solver's vault: it receives fills and pays out. */
  readonly vault: Locator
  /** The vault's EVM address, null for other families. */
  readonly vaultAddress: Hex | null
}

/**
 * A connector's settlement: the chain of a network, or null when the connector
 * is not configured for it (no RPC endpoint). A configuration that cannot work
 * (a payout key that is not the vault's operator, say) fails with `ConnectorError`.
 *
 * @category models
 * @since 0.1.0
 */
export interface SettlementSupport {
  readonly network: (target: SettlementTarget) => Effect.Effect<NetworkChain | null, ConnectorError>
}

// ---------------------------------------------------------------------------
// Market data
// ---------------------------------------------------------------------------

/**
 * The latest round of a price feed (the AggregatorV3Interface's
 * `latestRoundData` and `decimals`): price = answer / 10^decimals.
 *
 * @category models
 * @since 0.1.0
 */
export interface PriceRound {
  readonly roundId: bigint
  readonly answer: bigint
  readonly decimals: number
  /** Unix seconds of the round's last update. */
  readonly updatedAt: number
}

/**
 * What a connector reads of one network's market: its price feeds, its gas
 * price, and what a source fill costs there.
 *
 * @category models
 * @since 0.1.0
 */
export interface MarketReader {
  /** The latest round of the price feed at `feed` (a contract address on EVM). */
  readonly priceFeed: (feed: string) => Effect.Effect<PriceRound, ConnectorUnavailable>
  /** The gas price now, in the native coin's smallest unit per gas unit (wei on EVM). */
  readonly gasPrice: Effect.Effect<bigint, ConnectorUnavailable>
  /** Decimals of the native coin (18 on EVM). */
  readonly nativeDecimals: number
  /** Gas units one source fill (`fillDirect`) uses, as measured for the reference router. */
  readonly fillGasUnits: bigint
}

/**
 * A connector's market data: the reader of a network, or null when the
 * connector has no endpoint for it.
 *
 * @category models
 * @since 0.1.0
 */
export interface MarketSupport {
  readonly network: (target: {
    readonly key: string
    /** The native network reference (an EVM chain id). */
    readonly native: string
  }) => Effect.Effect<MarketReader | null, ConnectorError>
}
