/**
 * The steps of `ChainSettlement`, each a named function with its span: the
 * watcher of a source network (`watch`, `confirm`, `recheckSources`) and the
 * payout pass of a destination network (`pay`, `track`, `start`, `replace`,
 * `retry`, `fillGap`, `reopenLost`). They share a {@link Deps} (the services)
 * and a {@link Runtime} per network (the connector's chain, the policy, what
 * the last pass saw); nothing else is kept in memory between passes but
 * back-off times and figures: nonces, attempts and states come from the chain
 * and the store every pass.
 *
 * @internal
 */
import { Clock, Data, Effect, type Exit, Metric } from "effect"
import type { Catalog, Network } from "../Catalog.ts"
import type * as Chain from "../Chain.ts"
import { ConnectorError, ConnectorUnavailable } from "../Connector.ts"
import type { Coordination } from "../Coordination.ts"
import * as Metrics from "../Metrics.ts"
import * as PayoutPolicy from "../PayoutPolicy.ts"
import { envelopeOf } from "../PermitEnvelope.ts"
import type { SettlementObserver, TransitionRefused } from "../Settlement.ts"
import { type PayoutIntent, payoutsPaused, type PermitRecord, type Store, type StoreError } from "../Store.ts"

/** @internal */
export class NotLeading extends Data.TaggedError("NotLeading")<{}> {
  override get message(): string {
    return "this replica no longer leads: settlement stops before its next side effect"
  }
}

/** @internal */
export type StepFailure = ConnectorUnavailable | ConnectorError | StoreError | TransitionRefused | NotLeading

/** @internal */
export interface Deps {
  readonly catalog: Catalog["Service"]
  readonly store: Store["Service"]
  readonly observer: SettlementObserver["Service"]
  readonly coordination: Coordination["Service"]
  readonly runtimes: ReadonlyMap<string, Runtime>
  readonly reorgDepth: bigint
  readonly lookback: bigint
  readonly maxRange: bigint
  readonly batch: number
  readonly recheckMillis: number
  readonly reopenWindowMillis: number
  readonly permitOf: (record: PermitRecord) => Permit
  /** Decide and log the payouts, sign and store nothing. */
  readonly dryRun: boolean
}

/** @internal */
export type Permit = ReturnType<typeof envelopeOf>["permit"]

/**
 * Names the network (catalog key) and the fill a settlement span works on, so
 * that a trace shows one fill's path through the passes.
 */
const annotate = (r: Runtime, fillId?: string) =>
  Effect.annotateCurrentSpan(
    fillId === undefined ? { "svc.network": r.network.key } : { "svc.network": r.network.key, "svc.fillId": fillId }
  )

/** What one network's settlement knows between passes. @internal */
export interface Runtime {
  readonly network: Network
  readonly networkId: string
  /** The connector's chain, every call counted and bounded (see {@link instrument}). */
  chain: Chain.NetworkChain
  readonly policy: PayoutPolicy.Policy
  readonly watching: boolean
  calls: number
  newBlockPolls: number
  blocksRead: number
  cursor: bigint | null
  /** Local milliseconds of the last head read, and whether the last call answered. */
  headAt: number | null
  head: Chain.Block | null
  rpcUp: boolean | null
  lastError: string | null
  gasBalance: bigint | null
  unpaid: number
  oldestUnpaidAt: number | null
  inFlight: number
  oldestInFlightAt: number | null
  feeAtCeiling: boolean
  waitingOperator: number
  /** Confirmed liabilities the vault cannot cover, by asset key (raw units). */
  readonly shortfalls: Map<string, bigint>
  /** A fill's next try after a revert or a refused simulation (local ms). */
  readonly retryAt: Map<string, number>
  /** PAID permits whose payout the last re-check found pending (a node behind its block, or back in the pool). */
  readonly paidPending: Set<string>
  /**
   * The blocks that hold the payouts this replica declared PAID within the re-open window (by block number):
   * their hash then, the fills paid there, and when. A re-check reads each block once and re-checks the fills
   * of a block whose hash changed, however many PAID permits the window holds.
   */
  readonly paidBlocks: Map<bigint, { readonly hash: string; readonly fillIds: Set<string>; readonly at: number }>
  /** PAID fills whose payout block a reorganisation replaced, re-checked until settled. */
  readonly paidSuspects: Set<string>
  lastSourceRecheckAt: number
  lastPaidRecheckAt: number
  lastSummaryAt: number
  /** The highest head read from the network, and how many polls in a row saw a lower one (an endpoint that lags). */
  highestHead: bigint | null
  behind: number
  /** Failures of each endpoint already counted in the metrics. */
  readonly endpointFailures: Map<string, number>
}

/** @internal */
export const makeRuntime = (network: Network, chain: Chain.NetworkChain, policy: PayoutPolicy.Policy): Runtime => ({
  network,
  networkId: network.networkId.toLowerCase(),
  chain,
  policy,
  watching: network.router !== null,
  calls: 0,
  newBlockPolls: 0,
  blocksRead: 0,
  cursor: null,
  headAt: null,
  head: null,
  rpcUp: null,
  lastError: null,
  gasBalance: null,
  unpaid: 0,
  oldestUnpaidAt: null,
  inFlight: 0,
  oldestInFlightAt: null,
  feeAtCeiling: false,
  waitingOperator: 0,
  shortfalls: new Map(),
  retryAt: new Map(),
  paidPending: new Set(),
  paidBlocks: new Map(),
  paidSuspects: new Set(),
  lastSourceRecheckAt: 0,
  lastPaidRecheckAt: 0,
  lastSummaryAt: 0,
  highestHead: null,
  behind: 0,
  endpointFailures: new Map()
})

/** Polls in a row that may see a lower head (an endpoint behind) before it is taken as the chain's. */
const BEHIND_PATIENCE = 30

/**
 * Whether a head read now is behind the highest one read before: an endpoint
 * that lags (after a fail-over, say) is waited for, not taken for a
 * reorganisation; after {@link BEHIND_PATIENCE} polls the lower head is
 * accepted (a chain that really got shorter).
 *
 * @internal
 */
export const lagging = (r: Runtime, head: Chain.Block) =>
  Effect.suspend(() => {
    if (r.highestHead === null || head.number >= r.highestHead || ++r.behind > BEHIND_PATIENCE) {
      r.highestHead = head.number
      r.behind = 0
      return Effect.succeed(false)
    }
    return Effect.as(
      Effect.logDebug("settlement: the head read is behind one read before (an endpoint that lags); waiting", {
        network: r.network.key,
        head: head.number.toString(),
        highest: r.highestHead.toString()
      }),
      true
    )
  })

/**
 * Every call to a chain counted, bounded in time (a connector that hangs fails
 * with `ConnectorUnavailable`), and its outcome recorded as the network's RPC
 * status (a change is logged once).
 *
 * @internal
 */
export const instrument = (
  r: { calls: number; rpcUp: boolean | null; lastError: string | null; network: Network },
  chain: Chain.NetworkChain,
  timeoutMillis: number
): Chain.NetworkChain => {
  const call = <A, E>(what: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E | ConnectorUnavailable> =>
    Effect.suspend(() => {
      r.calls++
      return effect.pipe(
        Effect.timeoutOrElse({
          duration: timeoutMillis,
          orElse: () =>
            Effect.fail(
              new ConnectorUnavailable({
                code: "CALL_TIMEOUT",
                message: `${what}: no answer within ${timeoutMillis} ms`
              })
            )
        }),
        Effect.tap(() => rpcStatus(r, true, null)),
        Effect.tapError((e) =>
          e instanceof ConnectorUnavailable ? rpcStatus(r, false, e.message) : rpcStatus(r, true, null)
        )
      )
    })
  const reader: Chain.ChainReader = {
    head: call("head", chain.reader.head),
    finalized: call("finalized", chain.reader.finalized),
    block: (n) => call("block", chain.reader.block(n)),
    sourceFills: (from, to) => call("sourceFills", chain.reader.sourceFills(from, to)),
    inclusion: (hash) => call("inclusion", chain.reader.inclusion(hash))
  }
  const payer = chain.payer
  return {
    reader,
    ...(chain.endpoints === undefined ? {} : { endpoints: chain.endpoints }),
    payer: payer === null ? null : {
      sender: payer.sender,
      nonces: call("nonces", payer.nonces),
      fees: call("fees", payer.fees),
      check: (order) => call("check", payer.check(order)),
      paidOut: (fillId) => call("paidOut", payer.paidOut(fillId)),
      sign: (order, tx) => call("sign", payer.sign(order, tx)),
      send: (signed) => call("send", payer.send(signed)),
      findPayout: (fillId) => call("findPayout", payer.findPayout(fillId)),
      balance: (asset) => call("balance", payer.balance(asset)),
      gasBalance: call("gasBalance", payer.gasBalance)
    }
  }
}

const rpcStatus = (
  r: { rpcUp: boolean | null; lastError: string | null; network: Network },
  up: boolean,
  error: string | null
) =>
  Effect.suspend(() => {
    const was = r.rpcUp
    r.rpcUp = up
    r.lastError = error
    if (was === up) return Effect.void
    return up
      ? (was === null
        ? Effect.void
        : Effect.logInfo("settlement: the network's RPC answers again", { network: r.network.key }))
      : Effect.logWarning("settlement: the network's RPC does not answer", { network: r.network.key, error })
  })

/** The fence before every side effect on a chain: this replica must still lead. @internal */
const fence = (deps: Deps) =>
  Effect.flatMap(deps.coordination.isLeader, (leading) => leading ? Effect.void : Effect.fail(new NotLeading()))

const now = Clock.currentTimeMillis

/**
 * Replaces a permit's reason codes when they changed, logging the change once
 * (a stuck permit is one line when it gets stuck, not one per pass).
 *
 * @internal
 */
export const note = (
  deps: Deps,
  r: Runtime,
  record: PermitRecord,
  codes: ReadonlyArray<string>,
  detail?: Record<string, unknown>
) =>
  Effect.gen(function*() {
    const same = record.reasonCodes.length === codes.length && record.reasonCodes.every((c, i) => c === codes[i])
    if (same) return record
    const updated = yield* deps.store.setReasonCodes(record.fillId, codes)
    if (codes.length > 0) {
      yield* Effect.logWarning("settlement: a payout waits", {
        network: r.network.key,
        fillId: record.fillId,
        state: record.state,
        reasonCodes: codes,
        ...detail
      })
    }
    return updated ?? record
  })

// ---------------------------------------------------------------------------
// Source networks
// ---------------------------------------------------------------------------

const onFill = Effect.fn("ChainSettlement.onFill")(function*(deps: Deps, w: Runtime, fill: Chain.SourceFill) {
  yield* annotate(w, fill.fillId)
  let record = yield* deps.store.getPermit(fill.fillId.toLowerCase())
  if (record === undefined) {
    return yield* Effect.logWarning("source fill of an unknown fillId", {
      network: w.network.key,
      fillId: fill.fillId,
      txHash: fill.txHash
    })
  }
  if (record.state === "SOURCE_OBSERVED" && record.sourceTxHash === fill.txHash.toLowerCase()) return
  if (
    (record.state === "SOURCE_OBSERVED" || record.state === "SOURCE_CONFIRMED") && record.sourceTxHash !== null &&
    record.sourceTxHash !== fill.txHash.toLowerCase()
  ) {
    // another transaction of the fill (the payer's second attempt, which a reorganisation let through): when the
    // one recorded left the chain, this one is the fill, whatever `confirm` finds after this read
    const recorded = yield* w.chain.reader.inclusion(record.sourceTxHash)
    if (recorded._tag === "Pending" || (recorded._tag === "Included" && recorded.success)) return
    yield* Effect.logWarning("a source fill left the chain and another transaction of it landed: following that one", {
      fillId: record.fillId,
      left: record.sourceTxHash,
      landed: fill.txHash
    })
    record = yield* deps.observer.sourceReorged(record.fillId)
  }
  if (record.state !== "ISSUED" && record.state !== "EXPIRED") return
  const permit = deps.permitOf(record)
  const mismatches = [
    ...(permit.sourceNetworkId.toLowerCase() === w.networkId ? [] : ["SOURCE_FILL_NETWORK_MISMATCH"]),
    ...fillMismatches(permit, fill)
  ]
  if (mismatches.length > 0) {
    yield* Effect.logError("ALERT: a source fill does not match its permit; it is not paid", {
      fillId: fill.fillId,
      txHash: fill.txHash,
      reasonCodes: mismatches
    })
    if (record.state === "ISSUED") yield* deps.observer.failed(record.fillId, ["SOURCE_FILL_MISMATCH", ...mismatches])
    return
  }
  // an EXPIRED permit is refused by the observer, which raises the alert
  yield* deps.observer.sourceObserved(record.fillId, fill.txHash).pipe(
    Effect.catchTag("TransitionRefused", () => Effect.void)
  )
})

/**
 * One poll of a source network: its head and final height, the fills of the
 * blocks after the durable cursor (read again from `reorgDepth` below when the
 * cursor's block changed), the cursor saved with the newest final block read,
 * then confirmations and re-checks.
 *
 * @internal
 */
export const watch = Effect.fn("ChainSettlement.watch")(function*(deps: Deps, w: Runtime) {
  yield* annotate(w)
  const reader = w.chain.reader
  const head = yield* reader.head
  if (yield* lagging(w, head)) return
  w.head = head
  w.headAt = yield* now
  const finalized = w.policy.finality === "finalized" ? yield* reader.finalized : null
  const final = PayoutPolicy.finalHeight(head, finalized, w.network.finalityBlocks, w.policy.finality)
  const cursor = yield* deps.store.chainCursor(w.networkId)
  let from: bigint
  if (cursor === undefined) {
    from = head.number > deps.lookback ? head.number - deps.lookback : 0n
  } else if (cursor.blockNumber > head.number && w.behind < BEHIND_PATIENCE) {
    // read before by a node that is ahead of this one: wait for it, do not read again from below
    w.behind++
    return
  } else {
    const still = cursor.blockNumber <= head.number ? yield* reader.block(cursor.blockNumber) : null
    if (still !== null && still.hash === cursor.blockHash) {
      from = cursor.blockNumber + 1n
    } else {
      from = cursor.blockNumber > deps.reorgDepth ? cursor.blockNumber - deps.reorgDepth : 0n
      yield* Effect.logWarning("the chain reorganised below the watcher's cursor; reading again", {
        network: w.network.key,
        cursor: cursor.blockNumber.toString(),
        from: from.toString()
      })
    }
  }
  if (from <= head.number) {
    const to = from + deps.maxRange - 1n < head.number ? from + deps.maxRange - 1n : head.number
    const fills = yield* reader.sourceFills(from, to)
    for (const fill of fills) yield* onFill(deps, w, fill)
    const last = to === head.number ? head : yield* reader.block(to)
    if (last !== null) {
      // the newest final block read: no fill can appear at or below it any more
      const finalRead = final < last.number ? final : last.number
      const finalBlock = finalRead < 0n
        ? null
        : finalRead === last.number
        ? last
        : finalized !== null && finalRead === finalized.number
        ? finalized
        : yield* reader.block(finalRead)
      yield* deps.store.saveChainCursor({
        networkId: w.networkId,
        blockNumber: last.number,
        blockHash: last.hash,
        blockTimestamp: last.timestamp,
        updatedAt: yield* now,
        ...(finalBlock === null
          ? cursor?.finalBlockNumber === undefined
            ? {}
            : { finalBlockNumber: cursor.finalBlockNumber, finalBlockTimestamp: cursor.finalBlockTimestamp }
          : { finalBlockNumber: finalBlock.number, finalBlockTimestamp: finalBlock.timestamp })
      })
      w.newBlockPolls++
      w.blocksRead += Number(to - from + 1n)
      w.cursor = last.number
    }
  }
  yield* confirm(deps, w, head, final)
  yield* recheckSources(deps, w, finalized === null || w.policy.finality === "depth")
})

/**
 * SOURCE_OBSERVED permits of a source network: back to ISSUED when their fill
 * left the canonical chain (or its transaction reverted), SOURCE_CONFIRMED once
 * the fill's block is final by the network's rule and has the permit's
 * sourceFinalityBlocks confirmations.
 *
 * @internal
 */
export const confirm = Effect.fn("ChainSettlement.confirm")(
  function*(deps: Deps, w: Runtime, head: Chain.Block, final: bigint) {
    yield* annotate(w)
    const observed = yield* deps.store.permitsInStates(["SOURCE_OBSERVED"], deps.batch, {
      sourceNetworkId: w.networkId
    })
    const ahead = yield* readAhead(
      observed.flatMap((record) => (record.sourceTxHash === null ? [] : [record.sourceTxHash])),
      w.chain.reader.inclusion
    )
    for (const record of observed) {
      if (record.sourceTxHash === null) continue
      const permit = deps.permitOf(record)
      const inclusion = yield* (ahead.get(record.sourceTxHash) ?? w.chain.reader.inclusion(record.sourceTxHash))
      if (inclusion._tag === "Pending") continue
      if (inclusion._tag === "Missing" || !inclusion.success) {
        yield* Effect.logWarning("a source fill left the chain (reorganisation): the permit is ISSUED again", {
          fillId: record.fillId,
          txHash: record.sourceTxHash
        })
        yield* Metric.update(Metric.withAttributes(Metrics.settlementAlerts, alertOf(w, "source_fill_reorged")), 1)
        yield* deps.observer.sourceReorged(record.fillId)
        continue
      }
      const depth = head.number - inclusion.blockNumber + 1n
      if (inclusion.blockNumber <= final && depth >= BigInt(permit.sourceFinalityBlocks)) {
        yield* deps.observer.sourceConfirmed(record.fillId)
      }
    }
  }
)

const alertOf = (r: Runtime, kind: string) => ({ network: r.network.key, kind })

/**
 * Where finality is a depth, a source fill can leave the chain after its permit
 * was confirmed: before its payout `start` sends it back to ISSUED; after it,
 * nothing can undo the payout, so this raises an alert (an error log, the
 * `SOURCE_FILL_LOST_AFTER_PAYOUT` reason code, a metric). At most every
 * `recheckMillis`.
 *
 * @internal
 */
export const recheckSources = Effect.fn("ChainSettlement.recheckSources")(
  function*(deps: Deps, w: Runtime, depthOnly: boolean) {
    yield* annotate(w)
    if (!depthOnly) return
    const at = yield* now
    if (at - w.lastSourceRecheckAt < deps.recheckMillis) return
    w.lastSourceRecheckAt = at
    // the newest first: on a busy network the window holds more than a batch, and the newest are at risk
    const paying = yield* deps.store.permitsInStates(["PAYOUT_SUBMITTED", "PAID"], deps.batch, {
      sourceNetworkId: w.networkId,
      updatedSince: at - deps.reopenWindowMillis,
      newestFirst: true
    })
    for (const record of paying) {
      if (record.sourceTxHash === null || record.reasonCodes.includes("SOURCE_FILL_LOST_AFTER_PAYOUT")) continue
      const inclusion = yield* w.chain.reader.inclusion(record.sourceTxHash)
      if (inclusion._tag === "Included" && inclusion.success) continue
      if (inclusion._tag === "Pending") continue
      yield* Effect.logError("ALERT: a source fill left the chain after its payout; the payout cannot be undone", {
        network: w.network.key,
        fillId: record.fillId,
        sourceTxHash: record.sourceTxHash,
        payoutTxHash: record.payoutTxHash
      })
      yield* Metric.update(Metric.withAttributes(Metrics.settlementAlerts, alertOf(w, "source_fill_lost")), 1)
      yield* deps.store.setReasonCodes(record.fillId, [...record.reasonCodes, "SOURCE_FILL_LOST_AFTER_PAYOUT"])
    }
  }
)

// ---------------------------------------------------------------------------
// Destination networks
// ---------------------------------------------------------------------------

/** What one payout pass of a network has read and decided so far. @internal */
interface Pass {
  readonly r: Runtime
  readonly payer: Chain.ChainPayer
  readonly head: Chain.Block
  readonly final: bigint
  /** Finality by depth (the policy's, or a chain without a finalized block): PAID may be reopened. */
  readonly depthOnly: boolean
  readonly nonces: Chain.Nonces
  readonly at: number
  /** Nonces held by open payout transactions (and those sent in this pass). */
  readonly held: Set<number>
  /** Amounts of payouts not yet mined, by asset reference. */
  readonly unmined: Map<string, bigint>
  market: Chain.FeeMarket | undefined
  readonly balances: Map<string, bigint>
  gasBalance: bigint | undefined
  /** Fills whose amount is in `unmined` already. */
  readonly countedFills: Set<string>
  /** The operator paused payouts on this network: nothing is sent, everything is watched. */
  readonly paused: boolean
  /** Reads made ahead of the pass's steps, several at a time (see {@link readAhead}). */
  readonly ahead: {
    /** Inclusions of this network's payout transactions, by hash. */
    payouts: ReadonlyMap<string, Exit.Exit<Chain.Inclusion, ConnectorUnavailable>>
    /** Inclusions of source fills, by source network id and hash. */
    sources: ReadonlyMap<string, Exit.Exit<Chain.Inclusion, ConnectorUnavailable>>
    /** Simulations of payouts to start, by fillId. */
    checks: ReadonlyMap<string, Exit.Exit<Chain.PayoutCheck, ConnectorUnavailable>>
  }
}

/**
 * How many chain reads a pass makes at once ahead of its steps. The steps stay
 * sequential (nonces, balances and the store's writes are decided one permit at a
 * time); only their reads, which do not depend on each other, overlap, so that a
 * burst of payouts costs round trips in parallel rather than one after another.
 *
 * @internal
 */
export const READ_AHEAD = 8

/**
 * Reads `keys` several at a time; each outcome (success or failure) is kept and
 * replayed where the step needs it, so a read that failed ahead fails the step
 * as it would have, without a second wait on a slow endpoint.
 *
 * @internal
 */
export const readAhead = <A, E>(keys: Iterable<string>, read: (key: string) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const found = new Map<string, Exit.Exit<A, E>>()
    yield* Effect.forEach(
      new Set(keys),
      (key) => Effect.map(Effect.exit(read(key)), (exit) => found.set(key, exit)),
      { concurrency: READ_AHEAD, discard: true }
    )
    return found as ReadonlyMap<string, Exit.Exit<A, E>>
  })

const orderOf = (permit: Permit): Chain.PayoutOrder => ({
  fillId: permit.fillId.toLowerCase(),
  asset: permit.destinationAsset.toLowerCase(),
  recipient: permit.recipient.toLowerCase(),
  amountRaw: BigInt(permit.amountOutRaw)
})

const marketOf = (p: Pass) =>
  p.market === undefined ? Effect.tap(p.payer.fees, (m) => Effect.sync(() => (p.market = m))) : Effect.succeed(p.market)

const balanceOf = (p: Pass, asset: string) => {
  const known = p.balances.get(asset)
  return known === undefined
    ? Effect.tap(p.payer.balance(asset), (b) => Effect.sync(() => p.balances.set(asset, b)))
    : Effect.succeed(known)
}

/** Whether the vault's balance at the latest block covers a payout, after the payouts not yet mined. */
const covers = (p: Pass, order: Chain.PayoutOrder) =>
  Effect.map(balanceOf(p, order.asset), (balance) => balance - (p.unmined.get(order.asset) ?? 0n) >= order.amountRaw)

const gasCovers = (p: Pass, cost: bigint) =>
  Effect.map(
    p.gasBalance === undefined
      ? Effect.tap(p.payer.gasBalance, (g) => Effect.sync(() => (p.gasBalance = g)))
      : Effect.succeed(p.gasBalance),
    (balance) => balance >= cost
  )

/**
 * One payout pass of a destination network: the submitted payouts tracked
 * (final, reverted, stuck, dropped), PAID ones re-checked where finality is a
 * depth, new payouts started within the in-flight cap, a nonce gap filled,
 * then the network's figures.
 *
 * @internal
 */
export const pay = Effect.fn("ChainSettlement.pay")(function*(deps: Deps, r: Runtime) {
  yield* annotate(r)
  const payer = r.chain.payer
  if (payer === null) return
  const head = yield* r.chain.reader.head
  if (yield* lagging(r, head)) return
  r.head = head
  r.headAt = yield* now
  const finalized = r.policy.finality === "finalized" ? yield* r.chain.reader.finalized : null
  const operator = yield* deps.store.operatorState
  const p: Pass = {
    r,
    payer,
    paused: payoutsPaused(operator, r.network.key),
    head,
    final: PayoutPolicy.finalHeight(head, finalized, r.network.finalityBlocks, r.policy.finality),
    depthOnly: r.policy.finality === "depth" || finalized === null,
    nonces: yield* payer.nonces,
    at: yield* now,
    held: new Set(),
    unmined: new Map(),
    market: undefined,
    balances: new Map(),
    gasBalance: undefined,
    countedFills: new Set(),
    ahead: { payouts: new Map(), sources: new Map(), checks: new Map() }
  }
  r.feeAtCeiling = false
  // what is in flight: every open payout transaction from the latest nonce up
  const open = yield* deps.store.openPayoutIntents(r.networkId, payer.sender, p.nonces.latest)
  const unminedFills = new Map<string, Permit>()
  for (const intent of open) {
    p.held.add(intent.nonce)
    if (unminedFills.has(intent.fillId)) continue
    const record = yield* deps.store.getPermit(intent.fillId)
    if (record !== undefined) unminedFills.set(intent.fillId, deps.permitOf(record))
  }
  for (const permit of unminedFills.values()) countUnmined(p, orderOf(permit))

  const submitted = yield* deps.store.permitsInStates(["PAYOUT_SUBMITTED"], deps.batch, {
    destinationNetworkId: r.networkId
  })
  const tracked: Array<string> = []
  for (const record of submitted) {
    if (record.payoutTxHash !== null) tracked.push(record.payoutTxHash)
    for (const intent of yield* deps.store.payoutIntents(record.fillId)) tracked.push(intent.txHash)
  }
  p.ahead.payouts = yield* readAhead(tracked, r.chain.reader.inclusion)
  for (const record of submitted) yield* step(r, record, track(deps, p, record))
  if (p.depthOnly) yield* reopenLost(deps, p)

  const confirmed = yield* deps.store.permitsInStates(["SOURCE_CONFIRMED"], deps.batch, {
    destinationNetworkId: r.networkId
  })
  yield* readAheadOfStarts(deps, p, confirmed)
  for (const record of confirmed) {
    if (distinctFrom(p.held, p.nonces.latest) >= r.policy.maxInFlight) break
    yield* step(r, record, start(deps, p, record))
  }
  yield* fillGap(deps, p, open)
  // the figures after what this pass did
  const owed = yield* deps.store.permitsInStates(["SOURCE_CONFIRMED", "PAYOUT_SUBMITTED"], deps.batch, {
    destinationNetworkId: r.networkId
  })
  yield* figures(deps, p, owed, yield* deps.store.openPayoutIntents(r.networkId, payer.sender, p.nonces.latest))
})

/** The key of a source fill's inclusion read ahead. */
const sourceKey = (source: Runtime, txHash: string) => `${source.networkId}:${txHash}`

/**
 * The reads of the payouts this pass may start (as many as the in-flight cap
 * leaves room for): each source fill's inclusion and each payout's simulation.
 */
const readAheadOfStarts = (deps: Deps, p: Pass, confirmed: ReadonlyArray<PermitRecord>) =>
  Effect.gen(function*() {
    const room = Math.max(0, p.r.policy.maxInFlight - distinctFrom(p.held, p.nonces.latest))
    const due = confirmed.filter((record) => (p.r.retryAt.get(record.fillId) ?? 0) <= p.at).slice(0, room)
    if (due.length === 0) return
    const sources = new Map<string, { readonly source: Runtime; readonly txHash: string }>()
    const orders = new Map<string, Chain.PayoutOrder>()
    for (const record of due) {
      const permit = deps.permitOf(record)
      const order = orderOf(permit)
      orders.set(order.fillId, order)
      const source = deps.runtimes.get(permit.sourceNetworkId.toLowerCase())
      if (source !== undefined && source.watching && record.sourceTxHash !== null) {
        sources.set(sourceKey(source, record.sourceTxHash), { source, txHash: record.sourceTxHash })
      }
    }
    p.ahead.sources = yield* readAhead(sources.keys(), (key) => {
      const { source, txHash } = sources.get(key)!
      return source.chain.reader.inclusion(txHash)
    })
    p.ahead.checks = yield* readAhead(orders.keys(), (fillId) => p.payer.check(orders.get(fillId)!))
  })

const countUnmined = (p: Pass, order: Chain.PayoutOrder) => {
  if (p.countedFills.has(order.fillId)) return
  p.countedFills.add(order.fillId)
  p.unmined.set(order.asset, (p.unmined.get(order.asset) ?? 0n) + order.amountRaw)
}

const distinctFrom = (held: ReadonlySet<number>, latest: number) => {
  let n = 0
  for (const nonce of held) if (nonce >= latest) n++
  return n
}

/** One permit's step: a failure of the chain or the store is that permit's alone (the pass goes on). */
const step = <A>(r: Runtime, record: PermitRecord, effect: Effect.Effect<A, StepFailure>) =>
  effect.pipe(
    Effect.asVoid,
    Effect.catchIf(
      (e): e is Exclude<StepFailure, NotLeading> => e._tag !== "NotLeading",
      (e) =>
        Effect.logWarning("settlement step failed; retried on the next pass", {
          network: r.network.key,
          fillId: record.fillId,
          error: e.message
        })
    )
  )

/**
 * A payout transaction signed, stored (before it can exist anywhere else), the
 * permit moved to PAYOUT_SUBMITTED, then sent; the fence is checked before
 * signing and before sending.
 *
 * @internal
 */
const sendAttempt = Effect.fn("ChainSettlement.sendAttempt")(function*(
  deps: Deps,
  p: Pass,
  record: PermitRecord,
  order: Chain.PayoutOrder,
  tx: Chain.PayoutTransaction,
  attempt: number,
  kind: "new" | "replacement" | "retry"
) {
  yield* annotate(p.r, record.fillId)
  if (p.paused) return yield* note(deps, p.r, record, ["PAYOUTS_PAUSED"])
  if (deps.dryRun) {
    // the decision is logged once per fill; nothing is signed or stored
    return yield* note(deps, p.r, record, ["PAYOUT_DRY_RUN"], {
      dryRun: {
        kind,
        nonce: tx.nonce,
        gas: String(tx.gas),
        maxFeePerGas: String(tx.maxFeePerGas),
        amountRaw: String(order.amountRaw),
        recipient: order.recipient
      }
    })
  }
  yield* fence(deps)
  const signed = yield* p.payer.sign(order, tx)
  yield* deps.store.savePayoutIntent({
    fillId: record.fillId,
    networkId: p.r.networkId,
    txHash: signed.txHash.toLowerCase(),
    rawTransaction: signed.rawTransaction,
    nonce: signed.nonce,
    sender: signed.sender,
    attempt,
    createdAt: yield* now,
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    headBlock: p.head.number
  })
  countUnmined(p, order)
  p.held.add(tx.nonce)
  if (record.state === "SOURCE_CONFIRMED") yield* deps.observer.payoutSubmitted(record.fillId, signed.txHash)
  else if (record.reasonCodes.length > 0) yield* deps.store.setReasonCodes(record.fillId, [])
  yield* Metric.update(
    Metric.withAttributes(Metrics.settlementPayoutsSent, { network: p.r.network.key, kind }),
    1
  )
  yield* broadcast(deps, p, record, signed)
})

/**
 * Sends a signed payout, behind the fence (every send: a new attempt, a stored
 * transaction sent again); what the node refuses is left for the next pass (a
 * nonce taken or fees too low are decided from the chain there), with the
 * reason on the permit when it needs the operator (no gas).
 */
const broadcast = (deps: Deps, p: Pass, record: PermitRecord, signed: Chain.SignedPayout) =>
  Effect.andThen(
    fence(deps),
    p.payer.send(signed).pipe(
      Effect.as<"SENT" | "NONCE_USED" | "UNDERPRICED" | "FAILED">("SENT"),
      Effect.catch((e: ConnectorError | ConnectorUnavailable) =>
        Effect.gen(function*() {
          if (e instanceof ConnectorError && (e.code === "NONCE_USED" || e.code === "UNDERPRICED")) return e.code
          const fresh = (yield* deps.store.getPermit(record.fillId)) ?? record
          yield* note(deps, p.r, fresh, [
            e instanceof ConnectorError && e.code === "NO_GAS" ? "PAYOUT_KEY_NO_GAS" : "PAYOUT_NOT_BROADCAST"
          ], { txHash: signed.txHash, error: e.message })
          return "FAILED" as const
        })
      )
    )
  )

/**
 * Starts the payout of a SOURCE_CONFIRMED permit: the source fill checked
 * again, the payout simulated on the latest block, the vault's balance, the fee
 * ceiling and the payout key's gas checked, then a transaction at the next free
 * nonce. What stops it is written on the permit as reason codes.
 *
 * @internal
 */
export const start = Effect.fn("ChainSettlement.start")(function*(deps: Deps, p: Pass, record: PermitRecord) {
  yield* annotate(p.r, record.fillId)
  const existing = yield* deps.store.payoutIntents(record.fillId)
  if (existing.length > 0) {
    // stored before a crash, never marked submitted: it is tracked from now on
    yield* deps.observer.payoutSubmitted(record.fillId, existing.at(-1)!.txHash)
    return
  }
  if ((p.r.retryAt.get(record.fillId) ?? 0) > p.at) return
  const permit = deps.permitOf(record)
  if (!(yield* sourceStillThere(deps, record, permit, p.ahead.sources))) return
  const order = orderOf(permit)
  // the vault's balance at the latest block, after the payouts not yet mined
  if (!(yield* covers(p, order))) {
    if (yield* p.payer.paidOut(order.fillId)) return yield* adopt(deps, p, record)
    return yield* note(deps, p.r, record, ["VAULT_INSUFFICIENT"])
  }
  const checked = yield* (p.ahead.checks.get(order.fillId) ?? p.payer.check(order))
  if (checked._tag === "AlreadyPaid") return yield* adopt(deps, p, record)
  if (checked._tag === "Reverts") {
    p.r.retryAt.set(record.fillId, p.at + PayoutPolicy.retryDelay(1, p.r.policy))
    return yield* note(deps, p.r, record, ["PAYOUT_WOULD_REVERT"], { revert: checked.reason })
  }
  const fees = PayoutPolicy.feesFor(yield* marketOf(p), p.r.policy)
  if (fees._tag === "AboveCeiling") {
    p.r.feeAtCeiling = true
    return yield* note(deps, p.r, record, ["FEE_ABOVE_CEILING"], { market: String(p.market?.baseFeePerGas) })
  }
  const gas = PayoutPolicy.gasLimit(checked.gas, p.r.policy)
  if (!(yield* gasCovers(p, gas * fees.fees.maxFeePerGas))) {
    return yield* note(deps, p.r, record, ["PAYOUT_KEY_NO_GAS"])
  }
  const nonce = PayoutPolicy.nextNonce(p.nonces.latest, p.held)
  yield* sendAttempt(deps, p, record, order, { nonce, gas, ...fees.fees }, 1, "new")
})

/** The source fill of a confirmed permit is still in the canonical chain; else it is ISSUED again. */
const sourceStillThere = Effect.fn("ChainSettlement.recheckSource")(
  function*(
    deps: Deps,
    record: PermitRecord,
    permit: Permit,
    ahead?: ReadonlyMap<string, Exit.Exit<Chain.Inclusion, ConnectorUnavailable>>
  ) {
    yield* Effect.annotateCurrentSpan("svc.fillId", record.fillId)
    const source = deps.runtimes.get(permit.sourceNetworkId.toLowerCase())
    if (source === undefined || !source.watching || record.sourceTxHash === null) return true
    const inclusion = yield* (ahead?.get(sourceKey(source, record.sourceTxHash)) ??
      source.chain.reader.inclusion(record.sourceTxHash))
    if (inclusion._tag === "Included" && inclusion.success) return true
    if (inclusion._tag === "Pending") return false
    yield* Effect.logError("a confirmed source fill left the chain before its payout: the permit is ISSUED again", {
      network: source.network.key,
      fillId: record.fillId,
      sourceTxHash: record.sourceTxHash
    })
    yield* Metric.update(Metric.withAttributes(Metrics.settlementAlerts, alertOf(source, "source_fill_reorged")), 1)
    yield* deps.observer.sourceReorged(record.fillId)
    return false
  }
)

/**
 * The vault paid the fillId through a transaction svc does not know (a restored
 * database, a payout found on chain): follow that transaction to its finality.
 */
const adopt = Effect.fn("ChainSettlement.adopt")(function*(deps: Deps, p: Pass, record: PermitRecord) {
  yield* annotate(p.r, record.fillId)
  const found = yield* p.payer.findPayout(record.fillId)
  if (found === null) return false
  if (found.txHash === null) {
    // paid longer ago than the connector looks back: final by any rule
    if (record.state === "SOURCE_CONFIRMED") yield* deps.observer.payoutSubmitted(record.fillId)
    yield* deps.observer.paid(record.fillId)
    return true
  }
  if (record.state === "SOURCE_CONFIRMED") {
    yield* deps.observer.payoutSubmitted(record.fillId, found.txHash)
    return true
  }
  const inclusion = yield* p.r.chain.reader.inclusion(found.txHash)
  if (inclusion._tag === "Included" && inclusion.success) yield* paidIfFinal(deps, p, record, found.txHash, inclusion)
  return true
})

const paidIfFinal = (
  deps: Deps,
  p: Pass,
  record: PermitRecord,
  txHash: string,
  inclusion: Extract<Chain.Inclusion, { readonly _tag: "Included" }>
) =>
  inclusion.blockNumber <= p.final
    ? Effect.asVoid(deps.observer.paid(record.fillId, txHash)).pipe(
      Effect.tap(() => Effect.sync(() => rememberPaidBlock(p.r, record.fillId, inclusion, p.at)))
    )
    : Effect.void

/**
 * At most this many PAID permits of the re-open window are read from the store
 * by a re-check (to find those no remembered block follows).
 *
 * @internal
 */
export const PAID_WINDOW_LIMIT = 100_000

/** Records the block of a payout declared PAID (see `Runtime.paidBlocks`). */
const rememberPaidBlock = (
  r: Runtime,
  fillId: string,
  inclusion: { readonly blockNumber: bigint; readonly blockHash: string },
  at: number
) => {
  const known = r.paidBlocks.get(inclusion.blockNumber)
  if (known !== undefined && known.hash === inclusion.blockHash) {
    known.fillIds.add(fillId)
    return
  }
  // a block at that height with another hash: its fills are suspects already (or the entry is replaced)
  if (known !== undefined) { for (const f of known.fillIds) r.paidSuspects.add(f) }
  r.paidBlocks.set(inclusion.blockNumber, { hash: inclusion.blockHash, fillIds: new Set([fillId]), at })
}

/**
 * A PAYOUT_SUBMITTED permit: every transaction of its payout looked up. One
 * mined and successful: PAID at the destination's finality. Pending too long:
 * replaced with higher fees. None mined or pending: the newest one that can
 * still be mined is sent again (replaced when the node wants higher fees);
 * when every nonce was used, the vault is asked, then a new transaction is
 * signed at a new nonce (after a revert: with back-off, within the budget).
 *
 * @internal
 */
export const track = Effect.fn("ChainSettlement.track")(function*(deps: Deps, p: Pass, record: PermitRecord) {
  yield* annotate(p.r, record.fillId)
  const intents = yield* deps.store.payoutIntents(record.fillId)
  const permit = deps.permitOf(record)
  if (intents.length === 0) {
    // adopted from the vault's payout event: follow that transaction
    if (record.payoutTxHash !== null) {
      const inclusion = yield* (p.ahead.payouts.get(record.payoutTxHash) ??
        p.r.chain.reader.inclusion(record.payoutTxHash))
      if (inclusion._tag === "Included" && inclusion.success) {
        return yield* paidIfFinal(deps, p, record, record.payoutTxHash, inclusion)
      }
      if (inclusion._tag === "Pending") return
    }
    if (yield* p.payer.paidOut(record.fillId)) return yield* adopt(deps, p, record)
    return yield* retry(deps, p, record, permit, 1, "new")
  }
  const seen: Array<readonly [PayoutIntent, Chain.Inclusion]> = []
  for (const intent of intents) {
    seen.push([intent, yield* (p.ahead.payouts.get(intent.txHash) ?? p.r.chain.reader.inclusion(intent.txHash))])
  }
  const success = seen.find(([, i]) => i._tag === "Included" && i.success)
  if (success !== undefined) {
    const [intent, inclusion] = success
    return yield* paidIfFinal(
      deps,
      p,
      record,
      intent.txHash,
      inclusion as Extract<Chain.Inclusion, { _tag: "Included" }>
    )
  }
  let reverts = 0
  for (const [intent, inclusion] of seen) {
    if (inclusion._tag !== "Included") continue
    if (intent.outcome === undefined) {
      yield* deps.store.markPayoutIntent(intent.txHash, "REVERTED")
      yield* Metric.update(Metric.withAttributes(Metrics.settlementReverts, { network: p.r.network.key }), 1)
      yield* Effect.logWarning("settlement: a payout transaction reverted", {
        network: p.r.network.key,
        fillId: record.fillId,
        txHash: intent.txHash
      })
    }
    if (intent.outcome !== "RETRIED") reverts++
  }
  const pending = seen.filter(([, i]) => i._tag === "Pending").map(([intent]) => intent)
  const newest = intents.at(-1)!
  // a transaction that can still be mined (its nonce unused): send it again
  const missing = seen.filter(([intent, i]) => i._tag === "Missing" && intent.nonce >= p.nonces.latest)
  // a pending one waits for every nonce below it: one of this permit's there that left the chain (a
  // reorganisation removed its block, even after it reverted) is a hole only it fills, so it is sent again first
  const live = pending.length === 0
    ? missing
    : missing.filter(([intent]) => pending.every((x) => intent.nonce < x.nonce))
  if (pending.length > 0 && live.length === 0) return yield* replace(deps, p, record, permit, pending, intents)
  if (live.length > 0) {
    if (p.paused) return yield* note(deps, p.r, record, ["PAYOUTS_PAUSED"])
    const [intent] = live.at(-1)!
    const sent = yield* broadcast(deps, p, record, intent)
    if (sent === "SENT") {
      p.held.add(intent.nonce)
      yield* Metric.update(
        Metric.withAttributes(Metrics.settlementPayoutsSent, { network: p.r.network.key, kind: "resend" }),
        1
      )
      if (record.reasonCodes.length > 0) yield* deps.store.setReasonCodes(record.fillId, [])
    }
    if (sent === "UNDERPRICED") return yield* replace(deps, p, record, permit, [intent], intents, true)
    if (sent !== "NONCE_USED" || pending.length > 0) return
  }
  // every nonce used and nothing of ours paid: did the vault pay it otherwise?
  if (yield* p.payer.paidOut(record.fillId)) {
    if (yield* adopt(deps, p, record)) return
  }
  const reverted = seen.some(([intent, i]) => intent === newest && i._tag === "Included")
  if (!reverted) return yield* retry(deps, p, record, permit, newest.attempt + 1, "retry")
  // after a revert: back-off, then within the budget a new transaction
  if (reverts >= p.r.policy.revertBudget) {
    if (!record.reasonCodes.includes("PAYOUT_NEEDS_OPERATOR")) {
      yield* Effect.logError(
        "ALERT: a payout reverted too often; it waits for the operator (svc admin payouts retry)",
        {
          network: p.r.network.key,
          fillId: record.fillId,
          reverts
        }
      )
    }
    return yield* note(deps, p.r, record, ["PAYOUT_REVERTED", "PAYOUT_NEEDS_OPERATOR"])
  }
  const due = p.r.retryAt.get(record.fillId)
  // every revert released by the operator (svc admin payouts retry): try now
  if (reverts === 0) return yield* retry(deps, p, record, permit, newest.attempt + 1, "retry")
  if (due === undefined) {
    p.r.retryAt.set(record.fillId, p.at + PayoutPolicy.retryDelay(reverts, p.r.policy))
    return yield* note(deps, p.r, record, ["PAYOUT_REVERTED"])
  }
  if (due > p.at) return
  p.r.retryAt.delete(record.fillId)
  return yield* retry(deps, p, record, permit, newest.attempt + 1, "retry")
})

/** A new transaction for a payout at a new nonce, after the same checks as a start. */
const retry = Effect.fn("ChainSettlement.retry")(function*(
  deps: Deps,
  p: Pass,
  record: PermitRecord,
  permit: Permit,
  attempt: number,
  kind: "new" | "retry"
) {
  yield* annotate(p.r, record.fillId)
  if (distinctFrom(p.held, p.nonces.latest) >= p.r.policy.maxInFlight) return
  const order = orderOf(permit)
  const kept = record.reasonCodes.filter((c) => c === "PAYOUT_REVERTED")
  if (!(yield* covers(p, order))) return yield* note(deps, p.r, record, [...kept, "VAULT_INSUFFICIENT"])
  const checked = yield* p.payer.check(order)
  if (checked._tag === "AlreadyPaid") return yield* adopt(deps, p, record)
  if (checked._tag === "Reverts") {
    p.r.retryAt.set(record.fillId, p.at + PayoutPolicy.retryDelay(attempt, p.r.policy))
    return yield* note(deps, p.r, record, [...kept, "PAYOUT_WOULD_REVERT"], { revert: checked.reason })
  }
  const fees = PayoutPolicy.feesFor(yield* marketOf(p), p.r.policy)
  if (fees._tag === "AboveCeiling") {
    p.r.feeAtCeiling = true
    return yield* note(deps, p.r, record, ["FEE_ABOVE_CEILING"])
  }
  const gas = PayoutPolicy.gasLimit(checked.gas, p.r.policy)
  if (!(yield* gasCovers(p, gas * fees.fees.maxFeePerGas))) {
    return yield* note(deps, p.r, record, ["PAYOUT_KEY_NO_GAS"])
  }
  const nonce = PayoutPolicy.nextNonce(p.nonces.latest, p.held)
  yield* sendAttempt(deps, p, record, order, { nonce, gas, ...fees.fees }, attempt, kind === "new" ? "new" : "retry")
})

/**
 * A payout pending for `replaceAfterBlocks` blocks (or refused as underpriced)
 * is replaced at the same nonce with higher fees, within the ceiling; at the
 * ceiling it waits (FEE_AT_CEILING, an alert metric). A transaction queued
 * behind a gap is not replaced (the gap is filled instead).
 *
 * @internal
 */
export const replace = Effect.fn("ChainSettlement.replace")(function*(
  deps: Deps,
  p: Pass,
  record: PermitRecord,
  permit: Permit,
  candidates: ReadonlyArray<PayoutIntent>,
  intents: ReadonlyArray<PayoutIntent>,
  now?: boolean
) {
  yield* annotate(p.r, record.fillId)
  // the lowest nonce holds every transaction above it (a reverted one a reorganisation put back in the pool with
  // its old fees, below the permit's later attempt): bump that one, from its newest attempt's fees
  const lower = (a: PayoutIntent, b: PayoutIntent) =>
    b.nonce < a.nonce || (b.nonce === a.nonce && b.attempt > a.attempt)
  const newest = candidates.reduce((a, b) => (lower(a, b) ? b : a))
  for (const c of candidates) p.held.add(c.nonce)
  if (now !== true) {
    if (newest.nonce >= p.nonces.pending) return // queued behind a gap: fillGap
    const age = newest.headBlock === undefined
      ? BigInt(p.r.policy.replaceAfterBlocks)
      : p.head.number - newest.headBlock
    if (age < BigInt(p.r.policy.replaceAfterBlocks)) return
  }
  const market = yield* marketOf(p)
  const previous = {
    maxFeePerGas: newest.maxFeePerGas ?? 0n,
    maxPriorityFeePerGas: newest.maxPriorityFeePerGas ?? 0n
  }
  const ceiling = p.r.policy.maxFeePerGas
  // no replacement within the ceiling can be mined while the base fee is at or above it
  const next = ceiling !== null && market.baseFeePerGas >= ceiling
    ? { _tag: "AtCeiling" as const }
    : PayoutPolicy.replacementFees(previous, market, p.r.policy)
  if (next._tag === "AtCeiling") {
    p.r.feeAtCeiling = true
    return yield* note(deps, p.r, record, ["FEE_AT_CEILING"], { maxFeePerGas: String(previous.maxFeePerGas) })
  }
  const order = orderOf(permit)
  const checked = yield* p.payer.check(order)
  if (checked._tag === "AlreadyPaid") return // a transaction of this payout is being mined: wait for it
  if (checked._tag === "Reverts") {
    return yield* note(deps, p.r, record, ["PAYOUT_WOULD_REVERT"], { revert: checked.reason })
  }
  const gas = PayoutPolicy.gasLimit(checked.gas, p.r.policy)
  const attempt = intents.reduce((max, i) => (i.attempt > max ? i.attempt : max), 0) + 1
  yield* sendAttempt(deps, p, record, order, { nonce: newest.nonce, gas, ...next.fees }, attempt, "replacement")
})

/**
 * A nonce gap under the open payout transactions that no new payout filled
 * (a transaction dropped and forgotten, a store write lost): the payout at the
 * highest held nonce is signed again at the gap, so that the queue moves (its
 * old transaction reverts harmlessly later: the vault pays a fillId once).
 *
 * @internal
 */
export const fillGap = Effect.fn("ChainSettlement.fillGap")(
  function*(deps: Deps, p: Pass, open: ReadonlyArray<PayoutIntent>) {
    yield* annotate(p.r)
    // below the node's pending nonce, the gap holds a transaction no open intent has (an attempt of a permit
    // settled by another of its transactions, left in the pool below the base fee): it is replaced as well
    const gap = PayoutPolicy.gapBelow(p.nonces.latest, p.held)
    if (gap === null || p.paused || deps.dryRun) return
    const highest = open.reduce<PayoutIntent | undefined>(
      (a, b) => (a === undefined || b.nonce > a.nonce ? b : a),
      undefined
    )
    if (highest === undefined || highest.nonce <= gap) return
    const record = yield* deps.store.getPermit(highest.fillId)
    if (record === undefined || record.state !== "PAYOUT_SUBMITTED") return
    yield* Effect.logWarning("settlement: a nonce gap holds the payouts above it; filling it", {
      network: p.r.network.key,
      gap,
      moved: highest.fillId
    })
    const permit = deps.permitOf(record)
    const order = orderOf(permit)
    const checked = yield* p.payer.check(order)
    if (checked._tag !== "Ok") return
    const fees = PayoutPolicy.feesFor(yield* marketOf(p), p.r.policy)
    if (fees._tag === "AboveCeiling") return
    const attempts = yield* deps.store.payoutIntents(record.fillId)
    const attempt = attempts.reduce((max, i) => (i.attempt > max ? i.attempt : max), 0) + 1
    yield* step(
      p.r,
      record,
      sendAttempt(
        deps,
        p,
        record,
        order,
        {
          nonce: gap,
          gas: PayoutPolicy.gasLimit(checked.gas, p.r.policy),
          ...fees.fees
        },
        attempt,
        "retry"
      )
    )
  }
)

/**
 * Where finality is a depth: a PAID permit whose payout transaction left the
 * chain, while the vault has not paid its fillId, is PAYOUT_SUBMITTED again and
 * paid again (the vault refuses a second payout of a fillId, so this is safe).
 * At most every `recheckMillis`, for permits PAID within `reopenWindowMillis`:
 * the blocks of the payouts this replica declared PAID are read once each and
 * the fills of a block whose hash changed are re-checked (however many PAID
 * permits the window holds); the newest PAID permits no such block follows
 * (declared before this replica started, or by another) are read one by one.
 *
 * @internal
 */
export const reopenLost = Effect.fn("ChainSettlement.reopenLost")(function*(deps: Deps, p: Pass) {
  yield* annotate(p.r)
  if (p.at - p.r.lastPaidRecheckAt < deps.recheckMillis) return
  p.r.lastPaidRecheckAt = p.at
  // the blocks of the payouts declared PAID here: one read per block, its fills suspects when its hash changed
  const blocks = [...p.r.paidBlocks].filter(([number, b]) => {
    if (b.at >= p.at - deps.reopenWindowMillis) return true
    p.r.paidBlocks.delete(number)
    return false
  })
  const read = yield* readAhead(blocks.map(([number]) => String(number)), (n) => p.r.chain.reader.block(BigInt(n)))
  for (const [number, b] of blocks) {
    const now = read.get(String(number))
    if (now === undefined || now._tag === "Failure") continue
    if (now.value !== null && now.value.hash.toLowerCase() === b.hash.toLowerCase()) continue
    for (const fillId of b.fillIds) p.r.paidSuspects.add(fillId)
    p.r.paidBlocks.delete(number)
  }
  const suspects: Array<PermitRecord> = []
  for (const fillId of p.r.paidSuspects) {
    const record = yield* deps.store.getPermit(fillId)
    if (record === undefined || record.state !== "PAID") p.r.paidSuspects.delete(fillId)
    else suspects.push(record)
  }
  // and the PAID permits of the window that no block above follows (declared PAID before this replica started
  // or while another replica led): read one by one, at most a batch per re-check, newest first, then followed
  const window = yield* deps.store.permitsInStates(["PAID"], PAID_WINDOW_LIMIT, {
    destinationNetworkId: p.r.networkId,
    updatedSince: p.at - deps.reopenWindowMillis,
    newestFirst: true
  })
  const followed = new Set<string>()
  for (const b of p.r.paidBlocks.values()) for (const fillId of b.fillIds) followed.add(fillId)
  const unfollowed = window.filter((record) => !p.r.paidSuspects.has(record.fillId) && !followed.has(record.fillId))
  const paid = [...suspects, ...unfollowed.slice(0, deps.batch)]
  const inclusions = yield* readAhead(
    paid.flatMap((record) => (record.payoutTxHash === null ? [] : [record.payoutTxHash])),
    p.r.chain.reader.inclusion
  )
  for (const record of paid) {
    if (record.payoutTxHash === null) continue
    const inclusion = yield* (inclusions.get(record.payoutTxHash) ?? p.r.chain.reader.inclusion(record.payoutTxHash))
    if (inclusion._tag === "Included" && inclusion.success) {
      p.r.paidPending.delete(record.fillId)
      p.r.paidSuspects.delete(record.fillId)
      rememberPaidBlock(p.r, record.fillId, inclusion, record.updatedAt)
      continue
    }
    // a node behind the payout's block answers pending too (a balancer in front of nodes at different heights):
    // reopened only if it is still pending at the next re-check, when no node is that far behind
    if (inclusion._tag === "Pending" && !p.r.paidPending.has(record.fillId)) {
      p.r.paidPending.add(record.fillId)
      continue
    }
    p.r.paidPending.delete(record.fillId)
    p.r.paidSuspects.delete(record.fillId)
    // paid by another transaction of its payout (a replacement at its nonce, mined in the new chain): it stays
    // PAID, and shows the transaction that paid it
    if (yield* p.payer.paidOut(record.fillId)) {
      yield* repointPaid(deps, p, record)
      continue
    }
    yield* Effect.logError("ALERT: a PAID payout left the chain after its confirmations; it is sent again", {
      network: p.r.network.key,
      fillId: record.fillId,
      payoutTxHash: record.payoutTxHash
    })
    yield* Metric.update(Metric.withAttributes(Metrics.settlementAlerts, alertOf(p.r, "payout_reopened")), 1)
    yield* deps.observer.payoutReopened(record.fillId)
  }
})

/**
 * A PAID permit whose transaction left the chain while another paid its fillId:
 * the store points it at that one (where the store can), and it is followed as
 * the permits declared PAID here are.
 */
const repointPaid = Effect.fn("ChainSettlement.repointPaid")(function*(deps: Deps, p: Pass, record: PermitRecord) {
  yield* annotate(p.r, record.fillId)
  const setPaidPayout = deps.store.setPaidPayout
  if (setPaidPayout === undefined) return
  const found = yield* p.payer.findPayout(record.fillId)
  if (found === null || found.txHash === null || found.txHash.toLowerCase() === record.payoutTxHash) return
  const inclusion = yield* p.r.chain.reader.inclusion(found.txHash)
  if (inclusion._tag !== "Included" || !inclusion.success) return
  const updated = yield* setPaidPayout(record.fillId, found.txHash, p.at)
  if (updated === undefined) return
  rememberPaidBlock(p.r, record.fillId, inclusion, p.at)
  yield* Effect.logWarning(
    "settlement: a PAID payout's transaction left the chain; another of its transactions paid it",
    {
      network: p.r.network.key,
      fillId: record.fillId,
      was: record.payoutTxHash,
      payoutTxHash: found.txHash.toLowerCase()
    }
  )
})

/** The network's figures after a pass (health and metrics). */
const figures = Effect.fn("ChainSettlement.figures")(function*(
  deps: Deps,
  p: Pass,
  unpaid: ReadonlyArray<PermitRecord>,
  open: ReadonlyArray<PayoutIntent>
) {
  yield* annotate(p.r)
  const r = p.r
  r.unpaid = unpaid.length
  r.oldestUnpaidAt = unpaid.reduce<number | null>((m, x) => (m === null || x.updatedAt < m ? x.updatedAt : m), null)
  r.inFlight = distinctFrom(p.held, p.nonces.latest)
  r.oldestInFlightAt = open.reduce<number | null>((m, x) => (m === null || x.createdAt < m ? x.createdAt : m), null)
  r.waitingOperator = unpaid.filter((x) =>
    x.reasonCodes.includes("PAYOUT_NEEDS_OPERATOR") || x.reasonCodes.includes("PAYOUT_WOULD_REVERT")
  ).length
  r.gasBalance = p.gasBalance ?? (yield* p.payer.gasBalance)
  // what the vault owes by asset (confirmed, not yet mined) against its balance
  const owed = new Map<string, { assetKey: string; amount: bigint }>()
  for (const record of unpaid) {
    const order = orderOf(deps.permitOf(record))
    const entry = owed.get(order.asset) ?? { assetKey: record.assetKey, amount: 0n }
    entry.amount += order.amountRaw
    owed.set(order.asset, entry)
  }
  r.shortfalls.clear()
  for (const [asset, { amount, assetKey }] of owed) {
    const balance = yield* balanceOf(p, asset)
    if (balance < amount) {
      r.shortfalls.set(assetKey, amount - balance)
    }
  }
  const network = { network: r.network.key }
  yield* Metric.update(Metric.withAttributes(Metrics.settlementUnpaid, network), r.unpaid)
  yield* Metric.update(
    Metric.withAttributes(Metrics.settlementOldestUnpaid, network),
    r.oldestUnpaidAt === null ? 0 : Math.max(0, (p.at - r.oldestUnpaidAt) / 1000)
  )
  yield* Metric.update(Metric.withAttributes(Metrics.settlementInFlight, network), r.inFlight)
  yield* Metric.update(
    Metric.withAttributes(Metrics.settlementOldestInFlight, network),
    r.oldestInFlightAt === null ? 0 : Math.max(0, (p.at - r.oldestInFlightAt) / 1000)
  )
  yield* Metric.update(Metric.withAttributes(Metrics.settlementGasBalance, network), Number(r.gasBalance))
  yield* Metric.update(Metric.withAttributes(Metrics.settlementFeeAtCeiling, network), r.feeAtCeiling ? 1 : 0)
  yield* Metric.update(Metric.withAttributes(Metrics.settlementWaitingOperator, network), r.waitingOperator)
  for (const asset of owed.values()) {
    yield* Metric.update(
      Metric.withAttributes(Metrics.settlementVaultShortfall, { ...network, asset: asset.assetKey }),
      Number(r.shortfalls.get(asset.assetKey) ?? 0n)
    )
  }
})

/**
 * Why a fill does not match its permit: one reason code per differing field.
 *
 * @internal
 */
export const fillMismatches = (
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
): ReadonlyArray<string> => {
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()
  const codes: Array<string> = []
  if (!same(permit.sourceRouter, fill.router)) codes.push("SOURCE_FILL_ROUTER_MISMATCH")
  if (!same(permit.payer, fill.payer)) codes.push("SOURCE_FILL_PAYER_MISMATCH")
  if (!same(permit.recipient, fill.recipient)) codes.push("SOURCE_FILL_RECIPIENT_MISMATCH")
  if (!same(permit.sourceAsset, fill.sourceAsset)) codes.push("SOURCE_FILL_ASSET_MISMATCH")
  if (!same(permit.destinationAsset, fill.destinationAsset)) codes.push("SOURCE_FILL_DESTINATION_ASSET_MISMATCH")
  if (BigInt(permit.destinationChainId) !== fill.destinationChainId) codes.push("SOURCE_FILL_CHAIN_MISMATCH")
  if (BigInt(permit.amountInRaw) !== fill.amountInRaw) codes.push("SOURCE_FILL_AMOUNT_IN_MISMATCH")
  if (BigInt(permit.amountOutRaw) !== fill.amountOutRaw) codes.push("SOURCE_FILL_AMOUNT_OUT_MISMATCH")
  if (!same(permit.routeId, fill.routeId)) codes.push("SOURCE_FILL_ROUTE_MISMATCH")
  if (!same(permit.quoteId, fill.quoteId)) codes.push("SOURCE_FILL_QUOTE_MISMATCH")
  return codes
}
