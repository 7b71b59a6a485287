/**
 * The storage contract of a solver: publication versions, operator state,
 * inventory balances, permits with their idempotency records and lifecycle,
 * route counters and aggregator quotes.
 *
 * Two real implementations pass one shared contract suite (package
 * `@svc/store`): SQLite (the embedded default) and PostgreSQL. Every method that
 * changes several things does so in one transaction; in particular
 * {@link StoreShape.issuePermit} claims the idempotency key, checks and reserves
 * inventory and inserts the permit atomically, so that concurrent requests can
 * never reserve more than the inventory nor issue two permits for one key.
 *
 * @since 0.1.0
 */
import type { DailyStatus, ExecutionStatus } from "@svc/protocol/schema/Primitives"
import { Context, Data, type Effect } from "effect"
import type { PermitState } from "./Lifecycle.ts"

/**
 * The store could not do what was asked: the database is unreachable, a
 * statement failed, or a row did not decode. Never caused by caller input.
 *
 * @category errors
 * @since 0.1.0
 */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly operation: string
  readonly cause: unknown
}> {
  override get message(): string {
    return `store ${this.operation} failed: ${causeChain(this.cause)}`
  }
}

/**
 * The first line of each message down a cause chain ("PgConnection: Failed to
 * connect: connect ECONNREFUSED 127.0.0.1:5432"), repeats left out, at most 4.
 */
const causeChain = (cause: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = cause
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    const line = (current instanceof Error ? current.message : String(current)).split("\n")[0]!.trim()
    if (line.length > 0 && !parts.some((p) => p.includes(line))) parts.push(line)
    const next = current instanceof Error ? current.cause : undefined
    // AggregateError (a host with several addresses): its first error says why
    current = next ?? (current instanceof AggregateError ? current.errors[0] : undefined)
  }
  return parts.join(": ") || "unknown cause"
}

/**
 * Operator overrides of a route's statuses.
 *
 * @category models
 * @since 0.1.0
 */
export interface RouteOverride {
  readonly executionStatus?: ExecutionStatus | undefined
  readonly dailyStatus?: DailyStatus | undefined
}

/**
 * What an operator has set on a running deployment. `version` increases with
 * every operator call (setPaused, setRouteOverride, requestPublication), so that
 * a server notices changes by polling it; the publisher publishes a new version
 * whenever it changed, which is how `svc admin republish` asks for a
 * publication (`requestPublication`).
 *
 * @category models
 * @since 0.1.0
 */
export interface OperatorState {
  readonly version: number
  readonly paused: boolean
  readonly pauseReason: string | null
  readonly routes: Readonly<Record<string, RouteOverride>>
  /**
   * Payouts the operator paused, by catalog network key (`*`: every network),
   * with the reason given: settlement sends nothing on those networks and keeps
   * watching. Changing it does not change `version` (nothing is republished).
   */
  readonly payoutPauses: Readonly<Record<string, { readonly reason: string | null }>>
}

/**
 * Whether payouts are paused on a network (by its key, or for every network).
 *
 * @category operations
 * @since 0.1.0
 */
export const payoutsPaused = (state: OperatorState, networkKey: string): boolean =>
  state.payoutPauses["*"] !== undefined || state.payoutPauses[networkKey] !== undefined

/**
 * Inventory of one destination asset, in raw units.
 *
 * physical = configured - paidOut; available = physical - hold - liability - clearing.
 *
 * @category models
 * @since 0.1.0
 */
export interface InventoryBalance {
  readonly assetKey: string
  readonly configuredRaw: bigint
  readonly paidOutRaw: bigint
  readonly holdRaw: bigint
  readonly liabilityRaw: bigint
  readonly clearingRaw: bigint
  /** Unix milliseconds of the last change. */
  readonly updatedAt: number
}

/**
 * The physical balance of an inventory row.
 *
 * @category operations
 * @since 0.1.0
 */
export const physicalOf = (b: InventoryBalance): bigint => b.configuredRaw - b.paidOutRaw

/**
 * What an inventory row can still reserve (never negative).
 *
 * @category operations
 * @since 0.1.0
 */
export const availableOf = (b: InventoryBalance): bigint => {
  const available = physicalOf(b) - b.holdRaw - b.liabilityRaw - b.clearingRaw
  return available > 0n ? available : 0n
}

/**
 * A persisted permit. `envelope` is the JSON text of the envelope as issued; its
 * state and transaction hashes are the columns here (see `Permits.envelopeOf`).
 *
 * @category models
 * @since 0.1.0
 */
export interface PermitRecord {
  readonly fillId: string
  readonly routeId: string
  readonly quoteId: string
  /** The destination assetId whose inventory the permit reserves. */
  readonly assetKey: string
  /** Idempotency scope: the payer identity (lowercase address or account id). */
  readonly scope: string
  readonly idempotencyKey: string
  /** Fingerprint of the normalised request without signature. */
  readonly fingerprint: string
  /** The payer's EVM address in lowercase, when the payer is an EVM address. */
  readonly payerAddress: string | null
  readonly amountInRaw: string
  readonly amountOutRaw: string
  readonly state: PermitState
  readonly reasonCodes: ReadonlyArray<string>
  readonly sourceTxHash: string | null
  readonly payoutTxHash: string | null
  /** permit.validUntil, Unix seconds. */
  readonly validUntil: number
  /** Unix milliseconds. */
  readonly createdAt: number
  /** Unix milliseconds. */
  readonly updatedAt: number
  readonly envelope: string
  /** The client that asked for it (its rate-limit key, e.g. its address), when known. */
  readonly clientKey?: string | null | undefined
  /**
   * The permit's source and destination networkIds (lowercase 0x hex), so that
   * each network's settlement reads only its own permits (`Permits` sets them;
   * a record without them is not found by a network filter).
   */
  readonly sourceNetworkId?: string | null | undefined
  readonly destinationNetworkId?: string | null | undefined
}

/**
 * The outcome of {@link StoreShape.issuePermit}.
 *
 * @category models
 * @since 0.1.0
 */
export type IssueResult =
  | { readonly _tag: "Issued"; readonly record: PermitRecord }
  | { readonly _tag: "Duplicate"; readonly existing: PermitRecord }
  | { readonly _tag: "InsufficientInventory"; readonly availableRaw: bigint }
  | { readonly _tag: "UnknownAsset" }
  | {
    readonly _tag: "HoldShareExceeded"
    /**
     * Whose share: the requesting client's, the payer's, or that of every payer
     * without a completed fill together (`NEW_PAYERS`).
     */
    readonly holder: "CLIENT" | "PAYER" | "NEW_PAYERS"
    /** What that holder holds on the asset already (ISSUED permits). */
    readonly heldRaw: bigint
    /** Its share of the asset's physical inventory. */
    readonly limitRaw: bigint
  }

/**
 * Caps on what one holder may keep reserved on a destination asset: ISSUED
 * permits (holds not yet backed by a source fill) of one client, or of one
 * payer, may not exceed this share of the asset's physical inventory
 * (configured − paid out), in basis points. Unset: no cap.
 *
 * `newPayersBps` caps the ISSUED permits of every payer that has never
 * completed a fill (no permit of theirs ever reached PAID), together: many
 * throwaway keys cannot hold more than this share between them. A payer with a
 * completed fill is never refused by it, and its permits do not count in it.
 * A store keeps which payers completed a fill for good (retention does not
 * make a payer new again).
 *
 * @category models
 * @since 0.1.0
 */
export interface HoldShares {
  readonly clientBps?: number | undefined
  readonly payerBps?: number | undefined
  readonly newPayersBps?: number | undefined
}

/**
 * A state change of a permit.
 *
 * @category models
 * @since 0.1.0
 */
export interface TransitionRequest {
  readonly fillId: string
  readonly to: PermitState
  readonly sourceTxHash?: string | undefined
  readonly payoutTxHash?: string | undefined
  readonly reasonCodes?: ReadonlyArray<string> | undefined
  /**
   * The state the caller read the permit in: the change applies only while the
   * permit is still in it (`Rejected` otherwise, with the permit as it is). A
   * process that acted on an older reading (it was paused while another replica
   * moved the permit on) changes nothing. Omitted: any state the change is
   * allowed from.
   *
   * @since 0.2.0
   */
  readonly from?: PermitState | undefined
  /** Unix milliseconds. */
  readonly at: number
}

/**
 * The outcome of {@link StoreShape.transition}. `Rejected` means the transition is
 * not allowed from the current state (which is returned, unchanged).
 *
 * @category models
 * @since 0.1.0
 */
export type TransitionResult =
  | { readonly _tag: "Applied"; readonly from: PermitState; readonly record: PermitRecord }
  | { readonly _tag: "Rejected"; readonly record: PermitRecord }
  | { readonly _tag: "NotFound" }

/**
 * The route counters of RouteMetrics.
 *
 * @category models
 * @since 0.1.0
 */
export type RouteCounter = "feed_exposures" | "permit_requests" | "permits_issued" | "source_observed" | "paid"

/**
 * Counter values of one route.
 *
 * @category models
 * @since 0.1.0
 */
export interface RouteCounters {
  readonly feed_exposures: number
  readonly permit_requests: number
  readonly permits_issued: number
  readonly source_observed: number
  readonly paid: number
  /** Unix milliseconds of the last change, or null when never counted. */
  readonly updatedAt: number | null
}

/**
 * A published feed version (kept for audit and restart).
 *
 * @category models
 * @since 0.1.0
 */
export interface PublicationRecord {
  readonly dataVersion: bigint
  readonly feedHash: string
  readonly generatedAt: number
  readonly validUntil: number
  readonly routeCount: number
}

/**
 * The signed document of a publication, as the publisher stores it for the
 * other replicas (opaque JSON text to the store).
 *
 * @category models
 * @since 0.1.0
 */
export interface PublicationDocument {
  readonly dataVersion: bigint
  readonly document: string
}

/**
 * How many publication documents a store keeps (the newest ones).
 *
 * @category constants
 * @since 0.1.0
 */
export const PUBLICATION_DOCUMENTS_KEPT = 16

/**
 * An aggregator quote, kept until expiresAt + 24 h so that build and status find it.
 *
 * @category models
 * @since 0.1.0
 */
export interface StoredQuote {
  readonly quoteToken: string
  readonly quoteId: string
  readonly routeId: string
  readonly userAddress: string | null
  /** The quote response body as JSON text. */
  readonly body: string
  /** Unix seconds. */
  readonly expiresAt: number
  /** Unix milliseconds. */
  readonly createdAt: number
}

/**
 * Narrows {@link StoreShape.permitsInStates}: permits of one source or
 * destination network, changed at or after a time.
 *
 * @category models
 * @since 0.1.0
 */
export interface StateFilter {
  /** Lowercase 0x networkId. */
  readonly sourceNetworkId?: string | undefined
  /** Lowercase 0x networkId. */
  readonly destinationNetworkId?: string | undefined
  /** Unix milliseconds: only permits whose last change is at or after it. */
  readonly updatedSince?: number | undefined
  /** The newest permits (by issuance) first, instead of the oldest. */
  readonly newestFirst?: boolean | undefined
}

/**
 * Filter of {@link StoreShape.listPermits}: newest first, at most `limit`.
 *
 * @category models
 * @since 0.1.0
 */
export interface PermitFilter {
  readonly quoteId?: string | undefined
  readonly payerAddress?: string | undefined
  readonly limit: number
}

/**
 * How far a chain watcher has read a network: the last block it scanned, with the
 * block's hash (a different hash at that height later means a reorganisation).
 *
 * @category models
 * @since 0.1.0
 */
export interface ChainCursor {
  /** The networkId (lowercase 0x hex) of the watched network. */
  readonly networkId: string
  readonly blockNumber: bigint
  readonly blockHash: string
  /** Timestamp of the block, Unix seconds. */
  readonly blockTimestamp: number
  /** Unix milliseconds of the last change. */
  readonly updatedAt: number
  /**
   * The newest block the watcher has read that is final by the network's rule
   * (no fill can appear at or below it any more), with its timestamp; absent
   * before the watcher knew one.
   */
  readonly finalBlockNumber?: bigint | undefined
  readonly finalBlockTimestamp?: number | undefined
}

/**
 * A payout transaction the solver signed, written before it is broadcast: after
 * a crash, settlement finds it and reconciles (the transaction was mined, is
 * pending, or must be sent again) instead of paying twice. A payout may have
 * several (a fee replacement at the same nonce, a new nonce after its nonce was
 * taken, a retry after a revert): each is stored before it is sent, and all are
 * watched until one is final.
 *
 * @category models
 * @since 0.1.0
 */
export interface PayoutIntent {
  readonly fillId: string
  /** The destination networkId. */
  readonly networkId: string
  /** Hash of the signed transaction. */
  readonly txHash: string
  /** The signed transaction, as the network's connector encodes it (EVM: 0x RLP). */
  readonly rawTransaction: string
  /** The sender's nonce (or the network's equivalent), -1 when the network has none. */
  readonly nonce: number
  /** The paying account, as the connector renders it. */
  readonly sender: string
  /** Its rank among the fill's transactions (1 for the first). */
  readonly attempt: number
  /** Unix milliseconds. */
  readonly createdAt: number
  /** The fees it offers (wei per gas on EVM); absent when not recorded. */
  readonly maxFeePerGas?: bigint | undefined
  readonly maxPriorityFeePerGas?: bigint | undefined
  /** The destination's head when it was signed (how long it has been pending). */
  readonly headBlock?: bigint | undefined
  /** `REVERTED` once it was mined and reverted; `RETRIED` when an operator released it; absent otherwise. */
  readonly outcome?: PayoutOutcome | undefined
}

/**
 * What became of a payout transaction, as settlement records it.
 *
 * @category models
 * @since 0.1.0
 */
export type PayoutOutcome = "REVERTED" | "RETRIED"

/**
 * The operations of a store.
 *
 * @category models
 * @since 0.1.0
 */
export interface StoreShape {
  /** Name of the implementation ("sqlite", "postgres", ...). */
  readonly kind: string

  /** Allocates the next feed dataVersion: strictly greater than every earlier one, across restarts. */
  readonly nextDataVersion: Effect.Effect<bigint, StoreError>
  /**
   * Records a confirmed publication, unless a newer dataVersion is recorded
   * already: then nothing changes and the answer is `false` (a leader paused
   * between drawing its dataVersion and recording it, while another replica
   * published; its publication must not be recorded). Recording a dataVersion
   * again replaces it.
   *
   * @since 0.2.0 answers whether it recorded (before: void)
   */
  readonly recordPublication: (publication: PublicationRecord) => Effect.Effect<boolean, StoreError>
  /** The latest recorded publication. */
  readonly latestPublication: Effect.Effect<PublicationRecord | undefined, StoreError>
  /**
   * Keeps the signed document of a publication (the publisher's JSON text) so
   * that every replica serves the same bytes; only the newest few are kept.
   */
  readonly savePublicationDocument: (document: PublicationDocument) => Effect.Effect<void, StoreError>
  /** The newest publication document, or undefined. */
  readonly latestPublicationDocument: Effect.Effect<PublicationDocument | undefined, StoreError>

  /** The operator state. */
  readonly operatorState: Effect.Effect<OperatorState, StoreError>
  /** Pauses or resumes publication. */
  readonly setPaused: (paused: boolean, reason: string | null) => Effect.Effect<OperatorState, StoreError>
  /** Sets (or, with an empty override, clears) the operator override of a route. */
  readonly setRouteOverride: (routeId: string, override: RouteOverride) => Effect.Effect<OperatorState, StoreError>
  /**
   * Pauses (or resumes) payouts on a network, by its catalog key, or on every
   * network with `*` (resuming `*` does not resume a network paused by its key).
   */
  readonly setPayoutsPaused: (
    network: string,
    paused: boolean,
    reason: string | null
  ) => Effect.Effect<OperatorState, StoreError>
  /**
   * Asks the running deployment for a publication: increases the operator
   * state's version and changes nothing else (the publisher publishes when the
   * version changed).
   */
  readonly requestPublication: Effect.Effect<OperatorState, StoreError>

  /**
   * Creates missing inventory rows and sets the configured physical balance of
   * the given assets (the other figures are kept).
   */
  readonly configureInventory: (
    assets: ReadonlyArray<{ readonly assetKey: string; readonly configuredRaw: bigint }>
  ) => Effect.Effect<void, StoreError>
  /** Inventory rows, all or for the given assets. */
  readonly inventory: (assetKeys?: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<InventoryBalance>, StoreError>

  /** The permit issued for an idempotency key within a scope. */
  readonly findByIdempotencyKey: (scope: string, key: string) => Effect.Effect<PermitRecord | undefined, StoreError>
  /**
   * Atomically: claims (scope, idempotencyKey), reserves amountOutRaw in the
   * hold of assetKey when available and within the holder's shares, inserts the
   * permit (state ISSUED) and counts permits_issued for its route.
   */
  readonly issuePermit: (record: PermitRecord, shares?: HoldShares) => Effect.Effect<IssueResult, StoreError>
  /** A permit by fill id. */
  readonly getPermit: (fillId: string) => Effect.Effect<PermitRecord | undefined, StoreError>
  /** A permit by source transaction hash. */
  readonly findBySourceTx: (sourceTxHash: string) => Effect.Effect<PermitRecord | undefined, StoreError>
  /** Permits by quote id or payer address, newest first. */
  readonly listPermits: (filter: PermitFilter) => Effect.Effect<ReadonlyArray<PermitRecord>, StoreError>
  /**
   * Atomically applies an allowed state change (from `request.from` only, when
   * given), moves amountOutRaw between the inventory buckets of the two states,
   * and counts source_observed / paid. EXPIRED and FAILED never change.
   */
  readonly transition: (request: TransitionRequest) => Effect.Effect<TransitionResult, StoreError>
  /**
   * Fill ids of ISSUED permits whose validUntil is at or before `cutoff` (Unix
   * seconds), of one source network when given.
   */
  readonly dueForExpiry: (
    cutoff: number,
    limit: number,
    filter?: { readonly sourceNetworkId?: string | undefined }
  ) => Effect.Effect<ReadonlyArray<string>, StoreError>

  /** Permits in any of the given states, oldest first (newest first with `filter.newestFirst`), at most `limit`, narrowed by `filter`. */
  readonly permitsInStates: (
    states: ReadonlyArray<PermitState>,
    limit: number,
    filter?: StateFilter
  ) => Effect.Effect<ReadonlyArray<PermitRecord>, StoreError>
  /**
   * Replaces a permit's reason codes without changing its state or its
   * `updatedAt` (what a payout waits for, an alert); undefined when there is no
   * such permit.
   */
  readonly setReasonCodes: (
    fillId: string,
    reasonCodes: ReadonlyArray<string>
  ) => Effect.Effect<PermitRecord | undefined, StoreError>

  /**
   * Points a PAID permit at the transaction that paid it, where a
   * reorganisation removed the one it was declared PAID by and another
   * transaction of the same payout paid it in the new chain: its
   * `payoutTxHash` and `updatedAt` change, nothing else (no state, bucket or
   * counter). Undefined when the permit is not PAID. Optional: a store without
   * it leaves such a permit with the first hash.
   *
   * @since 0.2.0
   */
  readonly setPaidPayout?: (
    fillId: string,
    payoutTxHash: string,
    at: number
  ) => Effect.Effect<PermitRecord | undefined, StoreError>

  /**
   * Sets the physical balance of destination assets as observed (for example a
   * vault's on-chain balance): afterwards physical = physicalRaw, whatever was paid
   * out before. Rows that do not exist are left alone.
   */
  readonly observeInventory: (
    assets: ReadonlyArray<{ readonly assetKey: string; readonly physicalRaw: bigint }>
  ) => Effect.Effect<void, StoreError>

  /** The cursor of a network's chain watcher. */
  readonly chainCursor: (networkId: string) => Effect.Effect<ChainCursor | undefined, StoreError>
  /** Saves the cursor of a network's chain watcher. */
  readonly saveChainCursor: (cursor: ChainCursor) => Effect.Effect<void, StoreError>
  /** Every watcher's cursor. */
  readonly chainCursors: Effect.Effect<ReadonlyArray<ChainCursor>, StoreError>
  /** The newest payout transaction of a fill (the highest attempt). */
  readonly payoutIntent: (fillId: string) => Effect.Effect<PayoutIntent | undefined, StoreError>
  /** Every payout transaction of a fill, by attempt. */
  readonly payoutIntents: (fillId: string) => Effect.Effect<ReadonlyArray<PayoutIntent>, StoreError>
  /**
   * The payout transactions of one network and sender with a nonce at or above
   * `fromNonce`, of permits still PAYOUT_SUBMITTED: the nonces settlement has in
   * flight. By nonce, then attempt.
   */
  readonly openPayoutIntents: (
    networkId: string,
    sender: string,
    fromNonce: number
  ) => Effect.Effect<ReadonlyArray<PayoutIntent>, StoreError>
  /** Adds a payout transaction of a fill, durably (the same transaction hash again changes nothing). */
  readonly savePayoutIntent: (intent: PayoutIntent) => Effect.Effect<void, StoreError>
  /** Records what became of a payout transaction. */
  readonly markPayoutIntent: (txHash: string, outcome: PayoutOutcome) => Effect.Effect<void, StoreError>

  /** Adds to route counters. */
  readonly addCounters: (
    deltas: ReadonlyArray<{ readonly routeId: string; readonly counter: RouteCounter; readonly by: number }>
  ) => Effect.Effect<void, StoreError>
  /** The counters of a route (zeros when never counted). */
  readonly routeCounters: (routeId: string) => Effect.Effect<RouteCounters, StoreError>

  /** Saves an aggregator quote (replacing one with the same token). */
  readonly saveQuote: (quote: StoredQuote) => Effect.Effect<void, StoreError>
  /** An aggregator quote by token. */
  readonly getQuote: (quoteToken: string) => Effect.Effect<StoredQuote | undefined, StoreError>
  /** Deletes quotes whose expiresAt is before `before` (Unix seconds); returns how many. */
  readonly pruneQuotes: (before: number) => Effect.Effect<number, StoreError>
  /**
   * Deletes at most `limit` permits in a terminal state (PAID, EXPIRED, FAILED)
   * last updated before `before` (Unix milliseconds), with their payout intents;
   * returns how many. Live permits are never deleted.
   */
  readonly prunePermits: (before: number, limit: number) => Effect.Effect<number, StoreError>
}

/**
 * The store service.
 *
 * @category services
 * @since 0.1.0
 */
export class Store extends Context.Service<Store, StoreShape>()("@svc/core/Store") {}
