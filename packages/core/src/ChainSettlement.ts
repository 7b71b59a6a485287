/**
 * Settlement driven by the chains: for every catalog network whose connector
 * settles (`Connector.settlement`), a watcher reads the router's source fills
 * and a payout loop pays confirmed fills out of the destination vault, moving
 * each permit through its lifecycle with the {@link SettlementObserver}:
 *
 * ```text
 * ISSUED -> SOURCE_OBSERVED      the router's SourceFillV6 for the fillId is in a block
 *        -> SOURCE_CONFIRMED     the block is final by the network's rule, with sourceFinalityBlocks confirmations
 *        -> PAYOUT_SUBMITTED     a payout transaction is stored, then sent
 *        -> PAID                 one of its transactions is mined, successful, in a final block
 * SOURCE_OBSERVED, SOURCE_CONFIRMED -> ISSUED    the fill's transaction left the canonical chain
 * PAID -> PAYOUT_SUBMITTED       (finality by depth) the payout left the chain: it is sent again
 * ISSUED -> FAILED               a fill that does not match its permit (reason codes say what)
 * ```
 *
 * Each network runs on its own: its watcher and its payout loop are fibers of
 * their own with their own store queries, so a backlog, a hung RPC or an empty
 * vault on one network delays no other.
 *
 * The payout policy is here, the same on every chain (see `PayoutPolicy`);
 * connectors supply primitives (nonces, fees, a simulation, signing, sending).
 * Nonces come from the chain and the stored transactions every pass, never from
 * memory. A payout is simulated on the latest block before it is signed, and
 * waits (with reason codes on the permit) while the vault cannot cover it, the
 * fees are above the network's ceiling or the payout key has no gas. Every
 * transaction of a payout (fee replacements, a new nonce after one was taken, a
 * retry after a revert) is stored before it is sent, and all of them are
 * watched until one is final. A payout that reverts while the vault has not paid
 * the fillId is retried with back-off; past the revert budget it waits for the
 * operator (`PAYOUT_NEEDS_OPERATOR`), never FAILED. Before a payout is signed,
 * the source fill is checked to still be in the canonical chain.
 *
 * Durability: cursors and payout transactions are in the store, so a kill at any
 * point never pays twice and never forgets a payout; the vault itself refuses a
 * second payout of one fillId. Only the replica that leads settles
 * (`Coordination`), and it checks that it still leads right before it signs and
 * before it sends.
 *
 * Inventory: the physical balance of each destination asset on a network with a
 * payer is the vault's balance there (read at start, after payouts and every
 * `inventoryRefreshMillis`), capped by the catalog's `inventoryRaw`.
 *
 * @since 0.1.0
 */
import type { HealthComponent } from "@svc/protocol/schema/Aggregator"
import { Clock, Context, Effect, Layer, Metric, Schedule } from "effect"
import { Catalog } from "./Catalog.ts"
import type * as Chain from "./Chain.ts"
import { type ConnectorError, ConnectorRegistry, type ConnectorUnavailable } from "./Connector.ts"
import { Coordination, whileLeader } from "./Coordination.ts"
import * as Settlement from "./internal/settlement.ts"
import * as Metrics from "./Metrics.ts"
import * as PayoutPolicy from "./PayoutPolicy.ts"
import { envelopeOf } from "./PermitEnvelope.ts"
import { SettlementObserver } from "./Settlement.ts"
import { type PermitRecord, Store, type StoreError } from "./Store.ts"

/**
 * What the settlement of one network has done so far, and how it stands.
 *
 * @category models
 * @since 0.1.0
 */
export interface NetworkStats {
  readonly key: string
  readonly networkId: string
  /** Whether source fills are watched (the network has a router). */
  readonly watching: boolean
  /** Whether this process pays out there (a payout key is configured). */
  readonly paying: boolean
  /** Whether this replica settles now (it leads); the figures are those of its last leadership otherwise. */
  readonly leading: boolean
  /** Calls made to the chain (one RPC request each with the EVM connector, two for nonces). */
  readonly chainCalls: number
  /** Watcher polls that found new blocks, and how many blocks they read. */
  readonly newBlockPolls: number
  readonly blocksRead: number
  /** The last block read, or null before the first poll. */
  readonly cursor: bigint | null
  /** Whether the last chain call answered; null before the first. */
  readonly rpcUp: boolean | null
  /** Why the last call failed, when it did. */
  readonly lastError: string | null
  /** Unix milliseconds when the head was last read, and its block. */
  readonly headReadAt: number | null
  readonly headNumber: bigint | null
  /** Confirmed fills owed here (SOURCE_CONFIRMED, PAYOUT_SUBMITTED), and since when the oldest (its last change, Unix ms). */
  readonly unpaid: number
  readonly oldestUnpaidAt: number | null
  /** Payouts sent and not yet mined, and when the oldest was signed (Unix ms). */
  readonly inFlight: number
  readonly oldestInFlightAt: number | null
  /** The payout key's native balance, when read. */
  readonly gasBalance: bigint | null
  /** Whether payouts wait because the fees they need are above the ceiling. */
  readonly feeAtCeiling: boolean
  /** Payouts waiting for the operator: reverted past the budget, or reverting in their simulation. */
  readonly waitingOperator: number
  /** What the vault lacks to cover the confirmed fills owed, by asset key (raw units). */
  readonly shortfalls: Readonly<Record<string, bigint>>
  /** The network's RPC endpoints, when the connector reports them. */
  readonly endpoints: ReadonlyArray<Chain.EndpointStatus>
  /** Why settlement is off on this network (its connector refused it at start), or null. */
  readonly off?: string | null
}

/**
 * The chain settlement service: what it watches, how it stands, and one step
 * of everything (tests).
 *
 * @category services
 * @since 0.1.0
 */
export class ChainSettlement extends Context.Service<ChainSettlement, {
  readonly networks: Effect.Effect<ReadonlyArray<NetworkStats>>
  /** Runs one watcher poll on every watched network, then one payout pass on every paying network (tests; the loops also run by themselves). */
  readonly step: Effect.Effect<void>
}>()("@svc/core/ChainSettlement") {}

/**
 * Options of the chain settlement.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChainSettlementOptions {
  /** Milliseconds between polls of each network. Default 1000; 0 runs nothing by itself (drive it with `step`). */
  readonly pollMillis?: number | undefined
  /** Blocks read again below a cursor whose block changed (a reorganisation). Default 64. */
  readonly reorgDepth?: number | undefined
  /** Blocks read below the head the first time a network is watched. Default 1000. */
  readonly initialLookbackBlocks?: number | undefined
  /** Most blocks read in one request. Default 2000. */
  readonly maxBlockRange?: number | undefined
  /** Milliseconds between vault balance reads. Default 15000. */
  readonly inventoryRefreshMillis?: number | undefined
  /** Defaults of the payout policy under each network's catalog settings (see `PayoutPolicy.DEFAULTS`). */
  readonly policy?: Partial<PayoutPolicy.Policy> | undefined
  /** Permits of one state and network read per pass. Default 500. */
  readonly batchSize?: number | undefined
  /** Where finality is a depth: how often PAID payouts and paid-out source fills are checked again, ms. Default 30000. */
  readonly recheckMillis?: number | undefined
  /** ...and for how long after they were paid, ms. Default one hour. */
  readonly reopenWindowMillis?: number | undefined
  /** Longest wait for one call to a connector, ms (a connector that hangs fails). Default 60000. */
  readonly callTimeoutMillis?: number | undefined
  /** How often a network with waiting payouts logs a summary, ms. Default 60000. */
  readonly summaryMillis?: number | undefined
  /**
   * A dry run: watch, decide and log the payouts it would send (once per fill,
   * with `PAYOUT_DRY_RUN` on the permit), sign nothing and store no transaction.
   */
  readonly dryRun?: boolean | undefined
}

/**
 * What a permit's settlement reason codes mean: what its payout waits for, or
 * what went wrong (`svc admin permit` prints them as `waitingFor`).
 *
 * @category constants
 * @since 0.1.0
 */
export const REASONS: Readonly<Record<string, string>> = {
  VAULT_INSUFFICIENT:
    "the vault's balance at the latest block does not cover this payout (after the payouts in flight): fund the vault",
  PAYOUT_WOULD_REVERT:
    "the payout's simulation on the latest block reverts (the log names the contract's error); it is tried again with back-off",
  FEE_ABOVE_CEILING:
    "the network's base fee is above the fee ceiling (settlement.maxFeePerGas): it is sent when fees come down",
  FEE_AT_CEILING:
    "the payout is pending and no replacement fits under the fee ceiling: it is mined when fees come down, or raise the ceiling",
  PAYOUT_KEY_NO_GAS: "the payout key cannot pay for the payout's gas: fund the payout key",
  PAYOUTS_PAUSED: "the operator paused payouts on its network (svc admin payouts resume [network])",
  PAYOUT_DRY_RUN: "the server runs a dry run (SVC_PAYOUTS_DRY_RUN): this payout was decided and logged, not sent",
  PAYOUT_NOT_BROADCAST:
    "the payout is signed and stored but the node did not take it (RPC down): it is sent again on the next pass",
  PAYOUT_REVERTED:
    "a payout transaction was mined and reverted while the vault had not paid the fill: it is tried again with back-off",
  PAYOUT_NEEDS_OPERATOR:
    "its payout reverted as many times as the budget allows: fix the cause (vault, operator key), then run svc admin payouts retry <fillId>",
  PAYOUT_LEFT_CHAIN: "its payout left the chain after it was PAID (finality by depth): it is being paid again",
  SOURCE_FILL_LOST_AFTER_PAYOUT:
    "ALERT: its source fill left the chain after the payout, which cannot be undone: investigate"
}

/**
 * A network's settlement as a health component (`settlement.<key>`): UNAVAILABLE
 * when its RPC does not answer or its head is older than a minute, DEGRADED when
 * payouts wait (a vault short of its confirmed liabilities, fees at the
 * ceiling, payouts waiting for the operator, a confirmed fill unpaid for five
 * minutes), OK otherwise; with its figures.
 *
 * @category operations
 * @since 0.1.0
 */
export const healthOf = (n: NetworkStats, nowMillis: number): HealthComponent => {
  const seconds = (at: number | null) => (at === null ? null : Math.max(0, Math.round((nowMillis - at) / 1000)))
  const headAge = seconds(n.headReadAt)
  const oldestUnpaid = seconds(n.oldestUnpaidAt)
  const shortfall = Object.entries(n.shortfalls)
  const figures = {
    leading: n.leading,
    watching: n.watching,
    paying: n.paying,
    rpcUp: n.rpcUp,
    headAgeSeconds: headAge,
    head: n.headNumber === null ? null : n.headNumber.toString(),
    unpaid: n.unpaid,
    oldestUnpaidSeconds: oldestUnpaid,
    inFlight: n.inFlight,
    oldestInFlightSeconds: seconds(n.oldestInFlightAt),
    payoutKeyGas: n.gasBalance === null ? null : n.gasBalance.toString(),
    feeAtCeiling: n.feeAtCeiling,
    waitingOperator: n.waitingOperator,
    vaultCoversLiabilities: shortfall.length === 0,
    ...Object.fromEntries(shortfall.map(([asset, raw]) => [`shortfall.${asset}`, raw.toString()])),
    ...Object.fromEntries(n.endpoints.map((e) => [
      `endpoint.${e.label}`,
      `${e.host} ${e.up === null ? "unused" : e.up ? "up" : "down"}${e.primary ? " (in use)" : ""}`
    ]))
  }
  if (n.off != null) return { status: "UNAVAILABLE", detail: `settlement is off: ${n.off}`, figures }
  if (!n.leading) return { status: "OK", detail: "another replica settles", figures }
  if (n.rpcUp === false) {
    return { status: "UNAVAILABLE", detail: `the RPC does not answer: ${n.lastError ?? ""}`.trim(), figures }
  }
  if (headAge !== null && headAge > 60) {
    return { status: "UNAVAILABLE", detail: `no new head for ${headAge} s`, figures }
  }
  const waiting = [
    ...(shortfall.length > 0 ? ["the vault cannot cover its confirmed liabilities"] : []),
    ...(n.feeAtCeiling ? ["fees are above the network's ceiling"] : []),
    ...(n.waitingOperator > 0 ? [`${n.waitingOperator} payouts wait for the operator`] : []),
    ...(oldestUnpaid !== null && oldestUnpaid > 300 ? [`a confirmed fill has waited ${oldestUnpaid} s`] : [])
  ]
  return waiting.length > 0 ? { status: "DEGRADED", detail: waiting.join("; "), figures } : { status: "OK", figures }
}

type Failure = ConnectorUnavailable | ConnectorError | StoreError | Settlement.StepFailure

/**
 * Why a fill does not match its permit: one reason code per differing field.
 *
 * @category operations
 * @since 0.1.0
 */
export const fillMismatches: (
  permit: {
    readonly sourceRouter: string
    readonly payer: string
    readonly recipient: string
    readonly sourceAsset: string
    readonly destinationAsset: string
    readonly destinationChainId: string
    readonly amountInRaw: string
    readonly amountOutRaw: string
    readonly routeId: string
    readonly quoteId: string
  },
  fill: Chain.SourceFill
) => ReadonlyArray<string> = Settlement.fillMismatches

/**
 * The chain settlement: watchers and payouts for the networks whose connectors
 * settle; nothing runs when none does.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  options?: ChainSettlementOptions
): Layer.Layer<ChainSettlement, never, Catalog | Store | ConnectorRegistry | SettlementObserver | Coordination> =>
  Layer.effect(
    ChainSettlement,
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const store = yield* Store
      const registry = yield* ConnectorRegistry
      const observer = yield* SettlementObserver
      const coordination = yield* Coordination
      const pollMillis = options?.pollMillis ?? 1000
      const inventoryRefreshMillis = options?.inventoryRefreshMillis ?? 15_000
      const summaryMillis = Math.max(1000, options?.summaryMillis ?? 60_000)
      const callTimeoutMillis = Math.max(1, options?.callTimeoutMillis ?? 60_000)

      const runtimes = new Map<string, Settlement.Runtime>()
      // networks the connector refused: nothing is watched or paid there, and health says so
      const refused: Array<
        { readonly network: { readonly key: string; readonly networkId: string }; readonly reason: string }
      > = []
      for (const network of catalog.networks) {
        const connector = registry.forNetwork(network)
        if (connector._tag === "None" || connector.value.settlement === undefined || network.native === null) continue
        const chain = yield* connector.value.settlement.network({
          key: network.key,
          networkId: network.networkId,
          native: network.native,
          router: network.router,
          vault: network.vaultLocator,
          vaultAddress: network.vaultAddress
        }).pipe(
          Effect.catch((e: ConnectorError) => {
            refused.push({ network, reason: e.message })
            return Effect.as(Effect.logError(`settlement on ${network.key} is off: ${e.message}`), null)
          })
        )
        if (chain === null) continue
        const runtime = Settlement.makeRuntime(network, chain, PayoutPolicy.make(network.settlement, options?.policy))
        runtime.chain = Settlement.instrument(runtime, chain, callTimeoutMillis)
        runtimes.set(runtime.networkId, runtime)
      }

      // a permit's terms never change after issuance: decode each stored envelope once
      const decoded = new Map<string, Settlement.Permit>()
      const permitOf = (record: PermitRecord) => {
        let permit = decoded.get(record.fillId)
        if (permit === undefined) {
          permit = envelopeOf(record).permit
          if (decoded.size >= 10_000) decoded.clear()
          decoded.set(record.fillId, permit)
        }
        return permit
      }

      const deps: Settlement.Deps = {
        catalog,
        store,
        observer,
        coordination,
        runtimes,
        reorgDepth: BigInt(Math.max(1, options?.reorgDepth ?? 64)),
        lookback: BigInt(Math.max(0, options?.initialLookbackBlocks ?? 1000)),
        maxRange: BigInt(Math.max(1, options?.maxBlockRange ?? 2000)),
        batch: Math.max(1, options?.batchSize ?? 500),
        recheckMillis: Math.max(0, options?.recheckMillis ?? 30_000),
        reopenWindowMillis: Math.max(0, options?.reopenWindowMillis ?? 3_600_000),
        permitOf,
        dryRun: options?.dryRun === true
      }

      // ---------------------------------------------------------------- inventory
      const refreshInventory = Effect.fn("ChainSettlement.refreshInventory")(function*(r: Settlement.Runtime) {
        const payer = r.chain.payer
        if (payer === null) return
        const observed: Array<{ assetKey: string; physicalRaw: bigint }> = []
        for (const asset of catalog.assets) {
          if (asset.network.networkId !== r.network.networkId || asset.address === null) continue
          const balance = yield* payer.balance(asset.address)
          const cap = asset.inventoryRaw
          observed.push({ assetKey: asset.assetId, physicalRaw: cap !== null && cap < balance ? cap : balance })
        }
        yield* store.observeInventory(observed)
      })
      const refreshAll = Effect.forEach(
        [...runtimes.values()],
        (r) =>
          refreshInventory(r).pipe(
            Effect.catch((e: ConnectorUnavailable | StoreError) =>
              Effect.logWarning("vault balance read failed", { network: r.network.key, error: e.message })
            )
          ),
        { discard: true }
      )

      // ---------------------------------------------------------------- loops
      const quietly = (r: Settlement.Runtime, what: string) => (effect: Effect.Effect<void, Failure>) =>
        effect.pipe(
          Effect.catch((e: Failure) =>
            e._tag === "NotLeading"
              ? Effect.logInfo("settlement: this replica stopped leading; it sends nothing more", {
                network: r.network.key
              })
              // the RPC status logs its own changes; anything else is worth a line
              : e._tag === "ConnectorUnavailable"
              ? Effect.logDebug(`${what} failed; retried on the next poll`, {
                network: r.network.key,
                error: e.message
              })
              : Effect.logWarning(`${what} failed; retried on the next poll`, {
                network: r.network.key,
                error: e.message
              })
          )
        )
      /** The network's RPC and head gauges, after every poll. */
      const gauges = (r: Settlement.Runtime) =>
        Effect.gen(function*() {
          const at = yield* Clock.currentTimeMillis
          const network = { network: r.network.key }
          if (r.rpcUp !== null) {
            yield* Metric.update(Metric.withAttributes(Metrics.settlementRpcUp, network), r.rpcUp ? 1 : 0)
          }
          if (r.headAt !== null) {
            yield* Metric.update(
              Metric.withAttributes(Metrics.settlementHeadAge, network),
              Math.max(0, (at - r.headAt) / 1000)
            )
          }
          for (const e of r.chain.endpoints?.() ?? []) {
            const endpoint = { ...network, endpoint: e.label }
            if (e.up !== null) {
              yield* Metric.update(Metric.withAttributes(Metrics.settlementEndpointUp, endpoint), e.up ? 1 : 0)
            }
            yield* Metric.update(Metric.withAttributes(Metrics.settlementEndpointPrimary, endpoint), e.primary ? 1 : 0)
            const counted = r.endpointFailures.get(e.label) ?? 0
            if (e.failures > counted) {
              yield* Metric.update(
                Metric.withAttributes(Metrics.settlementEndpointFailures, endpoint),
                e.failures - counted
              )
              r.endpointFailures.set(e.label, e.failures)
            }
          }
        })
      const watchOnce = (r: Settlement.Runtime) =>
        Settlement.watch(deps, r).pipe(quietly(r, "watcher poll"), Effect.andThen(gauges(r)))
      const payOnce = (r: Settlement.Runtime) =>
        Settlement.pay(deps, r).pipe(
          Effect.andThen(summary(r)),
          Effect.andThen(refreshInventory(r)),
          quietly(r, "payout pass"),
          Effect.andThen(gauges(r))
        )

      /** One line per network with waiting payouts, every `summaryMillis`, instead of one per pass. */
      const summary = (r: Settlement.Runtime) =>
        Effect.gen(function*() {
          const at = yield* Clock.currentTimeMillis
          if (at - r.lastSummaryAt < summaryMillis) return
          r.lastSummaryAt = at
          if (r.unpaid === 0 && r.shortfalls.size === 0) return
          yield* Effect.logInfo("settlement summary", {
            network: r.network.key,
            unpaid: r.unpaid,
            oldestUnpaidSeconds: r.oldestUnpaidAt === null ? null : Math.round((at - r.oldestUnpaidAt) / 1000),
            inFlight: r.inFlight,
            waitingOperator: r.waitingOperator,
            feeAtCeiling: r.feeAtCeiling,
            shortfalls: Object.fromEntries([...r.shortfalls].map(([k, v]) => [k, v.toString()]))
          })
        })

      const ordered = [...runtimes.values()].sort((a, b) => (a.network.key < b.network.key ? -1 : 1))
      const step = Effect.gen(function*() {
        yield* Effect.forEach(ordered.filter((r) => r.watching), watchOnce, { discard: true })
        yield* Effect.forEach(ordered.filter((r) => r.chain.payer !== null), payOnce, { discard: true })
      })

      if (runtimes.size > 0) {
        yield* Effect.logInfo("chain settlement", {
          networks: ordered.map((r) =>
            `${r.network.key}${r.watching ? " watch" : ""}${
              r.chain.payer !== null ? " pay" : ""
            } (${r.policy.finality})`
          )
        })
        // only the leading replica watches and pays (one payout key in use at a time); each network on its own
        const leading = Effect.gen(function*() {
          yield* refreshAll
          if (pollMillis > 0) {
            for (const r of ordered) {
              if (r.watching) yield* Effect.forkChild(Effect.repeat(watchOnce(r), Schedule.spaced(pollMillis)))
              if (r.chain.payer !== null) {
                yield* Effect.forkChild(Effect.repeat(payOnce(r), Schedule.spaced(pollMillis)))
              }
            }
            if (inventoryRefreshMillis > 0) {
              yield* Effect.forkChild(Effect.repeat(refreshAll, Schedule.spaced(inventoryRefreshMillis)))
            }
          }
          return yield* Effect.never
        })
        // a process that leads from the start has its balances before it serves
        if (yield* coordination.isLeader) yield* refreshAll
        yield* Effect.forkScoped(whileLeader(coordination, leading))
      }

      return ChainSettlement.of({
        networks: Effect.map(coordination.isLeader, (leading) =>
          ordered.map((r): NetworkStats => ({
            key: r.network.key,
            networkId: r.network.networkId,
            watching: r.watching,
            paying: r.chain.payer !== null,
            leading,
            chainCalls: r.calls,
            newBlockPolls: r.newBlockPolls,
            blocksRead: r.blocksRead,
            cursor: r.cursor,
            rpcUp: r.rpcUp,
            lastError: r.lastError,
            headReadAt: r.headAt,
            headNumber: r.head?.number ?? null,
            unpaid: r.unpaid,
            oldestUnpaidAt: r.oldestUnpaidAt,
            inFlight: r.inFlight,
            oldestInFlightAt: r.oldestInFlightAt,
            gasBalance: r.gasBalance,
            feeAtCeiling: r.feeAtCeiling,
            waitingOperator: r.waitingOperator,
            shortfalls: Object.fromEntries(r.shortfalls),
            endpoints: r.chain.endpoints?.() ?? [],
            off: null
          })).concat(refused.map(({ network, reason }): NetworkStats => ({
            key: network.key,
            networkId: network.networkId,
            watching: false,
            paying: false,
            leading,
            chainCalls: 0,
            newBlockPolls: 0,
            blocksRead: 0,
            cursor: null,
            rpcUp: null,
            lastError: reason,
            headReadAt: null,
            headNumber: null,
            unpaid: 0,
            oldestUnpaidAt: null,
            inFlight: 0,
            oldestInFlightAt: null,
            gasBalance: null,
            feeAtCeiling: false,
            waitingOperator: 0,
            shortfalls: {},
            endpoints: [],
            off: reason
          })))),
        step
      })
    })
  )
