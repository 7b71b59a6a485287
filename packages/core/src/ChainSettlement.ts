/**
 * Settlement driven by the chains: for every catalog network whose connector
 * settles (`Connector.settlement`), a watcher reads the router's source fills and
 * a payout loop pays confirmed fills out of the destination vault, moving each
 * permit through its lifecycle with the {@link SettlementObserver}:
 *
 * ```text
 * ISSUED -> SOURCE_OBSERVED      the router's SourceFillV6 for the fillId is in a block
 *        -> SOURCE_CONFIRMED     the block has sourceFinalityBlocks confirmations
 *        -> PAYOUT_SUBMITTED     a payout intent is written, then its transaction sent
 *        -> PAID                 the payout transaction has the destination's confirmations
 * SOURCE_OBSERVED -> ISSUED      the fill's transaction left the canonical chain
 * ISSUED -> FAILED               a fill that does not match its permit (reason codes say what)
 * ```
 *
 * Durability: the watcher's block cursor (height and hash) is in the store, so a
 * restart resumes where it stopped; a cursor block whose hash changed means a
 * reorganisation, and the watcher reads again from `reorgDepth` blocks below.
 * A payout intent (the signed transaction) is written before the transaction is
 * sent; after a crash the loop finds it and sends the same transaction again, or
 * reconciles from the vault's payout event, so a kill at any point never pays
 * twice and never forgets a payout. The vault itself refuses a second payout of
 * one fillId.
 *
 * Inventory: the physical balance of each destination asset on a network with a
 * payer is the vault's balance there (read at start, after every payout and every
 * `inventoryRefreshMillis`), capped by the catalog's `inventoryRaw`.
 *
 * Exactly one process may run it per database (today the only one).
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Schedule } from "effect"
import { Catalog, type Network } from "./Catalog.ts"
import type * as Chain from "./Chain.ts"
import { ConnectorError, ConnectorRegistry, type ConnectorUnavailable } from "./Connector.ts"
import { Coordination, whileLeader } from "./Coordination.ts"
import { envelopeOf } from "./PermitEnvelope.ts"
import { SettlementObserver, type TransitionRefused } from "./Settlement.ts"
import { type PermitRecord, Store, type StoreError } from "./Store.ts"

/**
 * What the settlement of one network has done so far.
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
  /** Calls made to the chain (one RPC request each with the EVM connector). */
  readonly chainCalls: number
  /** Watcher polls that found new blocks, and how many blocks they read. */
  readonly newBlockPolls: number
  readonly blocksRead: number
  /** The last block read, or null before the first poll. */
  readonly cursor: bigint | null
}

/**
 * The chain settlement service: what it watches and its counters.
 *
 * @category services
 * @since 0.1.0
 */
export class ChainSettlement extends Context.Service<ChainSettlement, {
  readonly networks: Effect.Effect<ReadonlyArray<NetworkStats>>
  /** Runs one watcher poll on every watched network and one payout pass (tests; the loops also run by themselves). */
  readonly step: Effect.Effect<void>
}>()("@svc/core/ChainSettlement") {}

/**
 * Options of the chain settlement.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChainSettlementOptions {
  /** Milliseconds between polls. Default 1000; 0 runs nothing by itself (drive it with `step`). */
  readonly pollMillis?: number | undefined
  /** Blocks read again below a cursor whose block changed (a reorganisation). Default 64. */
  readonly reorgDepth?: number | undefined
  /** Blocks read below the head the first time a network is watched. Default 1000. */
  readonly initialLookbackBlocks?: number | undefined
  /** Most blocks read in one request. Default 2000. */
  readonly maxBlockRange?: number | undefined
  /** Milliseconds between vault balance reads. Default 15000. */
  readonly inventoryRefreshMillis?: number | undefined
}

interface Watched {
  readonly network: Network
  /** The connector's chain, every call counted. */
  chain: Chain.NetworkChain
  calls: number
  newBlockPolls: number
  blocksRead: number
  cursor: bigint | null
}

type ChainFailure = ConnectorUnavailable | ConnectorError | StoreError | TransitionRefused

/** Counts every call made to a chain. */
const counted = (w: { calls: number }, chain: Chain.NetworkChain): Chain.NetworkChain => {
  const count = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.andThen(
      Effect.sync(() => {
        w.calls++
      }),
      effect
    )
  const reader: Chain.ChainReader = {
    head: count(chain.reader.head),
    block: (n) => count(chain.reader.block(n)),
    sourceFills: (from, to) => count(chain.reader.sourceFills(from, to)),
    inclusion: (hash) => count(chain.reader.inclusion(hash))
  }
  const payer = chain.payer
  return {
    reader,
    payer: payer === null ? null : {
      sender: payer.sender,
      sign: (order) => count(payer.sign(order)),
      send: (p) => count(payer.send(p)),
      findPayout: (fillId) => count(payer.findPayout(fillId)),
      balance: (asset) => count(payer.balance(asset))
    }
  }
}

/**
 * Why a fill does not match its permit: one reason code per differing field.
 *
 * @category operations
 * @since 0.1.0
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
      const reorgDepth = BigInt(Math.max(1, options?.reorgDepth ?? 64))
      const lookback = BigInt(Math.max(0, options?.initialLookbackBlocks ?? 1000))
      const maxRange = BigInt(Math.max(1, options?.maxBlockRange ?? 2000))
      const inventoryRefreshMillis = options?.inventoryRefreshMillis ?? 15_000

      const watched = new Map<string, Watched>()
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
          Effect.catch((e: ConnectorError) =>
            Effect.as(Effect.logError(`settlement on ${network.key} is off: ${e.message}`), null)
          )
        )
        if (chain === null) continue
        const w: Watched = { network, chain, calls: 0, newBlockPolls: 0, blocksRead: 0, cursor: null }
        w.chain = counted(w, chain)
        watched.set(network.networkId.toLowerCase(), w)
      }

      // a permit's terms never change after issuance: decode each stored envelope once
      const decoded = new Map<string, ReturnType<typeof envelopeOf>["permit"]>()
      const permitOf = (record: PermitRecord) => {
        let permit = decoded.get(record.fillId)
        if (permit === undefined) {
          permit = envelopeOf(record).permit
          if (decoded.size >= 10_000) decoded.clear()
          decoded.set(record.fillId, permit)
        }
        return permit
      }

      // ---------------------------------------------------------------- watcher
      const onFill = (w: Watched, fill: Chain.SourceFill) =>
        Effect.gen(function*() {
          const record = yield* store.getPermit(fill.fillId.toLowerCase())
          if (record === undefined) {
            return yield* Effect.logWarning("source fill of an unknown fillId", {
              network: w.network.key,
              fillId: fill.fillId,
              txHash: fill.txHash
            })
          }
          if (record.state === "SOURCE_OBSERVED" && record.sourceTxHash === fill.txHash.toLowerCase()) return
          if (record.state !== "ISSUED" && record.state !== "EXPIRED") return
          const permit = permitOf(record)
          const mismatches = [
            ...(permit.sourceNetworkId.toLowerCase() === w.network.networkId.toLowerCase()
              ? []
              : ["SOURCE_FILL_NETWORK_MISMATCH"]),
            ...fillMismatches(permit, fill)
          ]
          if (mismatches.length > 0) {
            yield* Effect.logError("ALERT: a source fill does not match its permit; it is not paid", {
              fillId: fill.fillId,
              txHash: fill.txHash,
              reasonCodes: mismatches
            })
            if (record.state === "ISSUED") {
              yield* observer.failed(record.fillId, ["SOURCE_FILL_MISMATCH", ...mismatches])
            }
            return
          }
          // an EXPIRED permit is refused by the observer, which raises the alert
          yield* observer.sourceObserved(record.fillId, fill.txHash)
        })

      const confirmations = (w: Watched, head: Chain.Block) =>
        Effect.gen(function*() {
          const observed = yield* store.permitsInStates(["SOURCE_OBSERVED"], 500)
          for (const record of observed) {
            const permit = permitOf(record)
            if (permit.sourceNetworkId.toLowerCase() !== w.network.networkId.toLowerCase()) continue
            if (record.sourceTxHash === null) continue
            const inclusion = yield* w.chain.reader.inclusion(record.sourceTxHash)
            if (inclusion._tag === "Pending") continue
            if (inclusion._tag === "Missing" || !inclusion.success) {
              yield* Effect.logWarning("a source fill left the chain (reorganisation): the permit is ISSUED again", {
                fillId: record.fillId,
                txHash: record.sourceTxHash
              })
              yield* observer.sourceReorged(record.fillId)
              continue
            }
            if (head.number - inclusion.blockNumber + 1n >= BigInt(permit.sourceFinalityBlocks)) {
              yield* observer.sourceConfirmed(record.fillId)
            }
          }
        })

      const watchOnce = (w: Watched) =>
        Effect.gen(function*() {
          const reader = w.chain.reader
          const head = yield* reader.head
          const cursor = yield* store.chainCursor(w.network.networkId)
          let from: bigint
          if (cursor === undefined) {
            from = head.number > lookback ? head.number - lookback : 0n
          } else {
            const still = cursor.blockNumber <= head.number ? yield* reader.block(cursor.blockNumber) : null
            if (still !== null && still.hash === cursor.blockHash) {
              from = cursor.blockNumber + 1n
            } else {
              from = cursor.blockNumber > reorgDepth ? cursor.blockNumber - reorgDepth : 0n
              yield* Effect.logWarning("the chain reorganised below the watcher's cursor; reading again", {
                network: w.network.key,
                cursor: cursor.blockNumber.toString(),
                from: from.toString()
              })
            }
          }
          if (from <= head.number && w.network.router !== null) {
            const to = from + maxRange - 1n < head.number ? from + maxRange - 1n : head.number
            const fills = yield* reader.sourceFills(from, to)
            for (const fill of fills) yield* onFill(w, fill)
            const last = to === head.number ? head : yield* reader.block(to)
            if (last !== null) {
              const now = yield* Clock.currentTimeMillis
              yield* store.saveChainCursor({
                networkId: w.network.networkId.toLowerCase(),
                blockNumber: last.number,
                blockHash: last.hash,
                blockTimestamp: last.timestamp,
                updatedAt: now
              })
              w.newBlockPolls++
              w.blocksRead += Number(to - from + 1n)
              w.cursor = last.number
            }
          }
          yield* confirmations(w, head)
        })

      // ---------------------------------------------------------------- payouts
      const destinationOf = (record: PermitRecord) => {
        const permit = permitOf(record)
        const w = watched.get(permit.destinationNetworkId.toLowerCase())
        return w === undefined || w.chain.payer === null ? null : { w, payer: w.chain.payer, permit }
      }

      const submit = (
        record: PermitRecord,
        w: Watched,
        payer: Chain.ChainPayer,
        permit: ReturnType<typeof permitOf>,
        attempt: number
      ) =>
        Effect.gen(function*() {
          const prepared = yield* payer.sign({
            fillId: record.fillId,
            asset: permit.destinationAsset,
            recipient: permit.recipient,
            amountRaw: BigInt(permit.amountOutRaw)
          })
          if (prepared._tag === "AlreadyPaid") return yield* reconcile(record, w, payer)
          const signed = prepared.payout
          // durable before the transaction can exist anywhere else
          yield* store.savePayoutIntent({
            fillId: record.fillId,
            networkId: w.network.networkId.toLowerCase(),
            txHash: signed.txHash.toLowerCase(),
            rawTransaction: signed.rawTransaction,
            nonce: signed.nonce,
            sender: signed.sender,
            attempt,
            createdAt: yield* Clock.currentTimeMillis
          })
          if (record.state === "SOURCE_CONFIRMED") yield* observer.payoutSubmitted(record.fillId, signed.txHash)
          yield* payer.send(signed)
        })

      /** PAID once the payout transaction has the destination network's confirmations. */
      const paidWhenFinal = (record: PermitRecord, w: Watched, txHash: string, inclusion: Chain.Inclusion) =>
        Effect.gen(function*() {
          if (inclusion._tag !== "Included" || !inclusion.success) return
          const head = yield* w.chain.reader.head
          if (head.number - inclusion.blockNumber + 1n < BigInt(w.network.finalityBlocks)) return
          yield* observer.paid(record.fillId, txHash)
          yield* refreshInventory(w)
        })

      /** The vault's payout event decides: PAID with its transaction (once final), or nothing yet. */
      const reconcile = (record: PermitRecord, w: Watched, payer: Chain.ChainPayer) =>
        Effect.gen(function*() {
          const found = yield* payer.findPayout(record.fillId)
          if (found === null) return false
          if (record.state === "SOURCE_CONFIRMED") yield* observer.payoutSubmitted(record.fillId, found.txHash)
          yield* paidWhenFinal(record, w, found.txHash, yield* w.chain.reader.inclusion(found.txHash))
          return true
        })

      const payoutOne = (record: PermitRecord) =>
        Effect.gen(function*() {
          const destination = destinationOf(record)
          if (destination === null) return
          const { payer, permit, w } = destination
          const intent = yield* store.payoutIntent(record.fillId)
          if (intent === undefined) {
            if (record.state !== "SOURCE_CONFIRMED") return
            // a restored database may not know a payout the vault made: ask the chain first
            if (yield* reconcile(record, w, payer)) return
            return yield* submit(record, w, payer, permit, 1)
          }
          // an intent exists: the transaction may be mined, pending, or never sent (a crash)
          if (record.state === "SOURCE_CONFIRMED") yield* observer.payoutSubmitted(record.fillId, intent.txHash)
          const inclusion = yield* w.chain.reader.inclusion(intent.txHash)
          switch (inclusion._tag) {
            case "Pending":
              return
            case "Included": {
              if (!inclusion.success) {
                if (yield* reconcile(record, w, payer)) return
                yield* Effect.logError("ALERT: a payout transaction reverted", {
                  fillId: record.fillId,
                  txHash: intent.txHash
                })
                yield* observer.failed(record.fillId, ["PAYOUT_REVERTED"])
                return
              }
              return yield* paidWhenFinal(record, w, intent.txHash, inclusion)
            }
            case "Missing": {
              if (yield* reconcile(record, w, payer)) return
              const sent = yield* payer.send({
                txHash: intent.txHash,
                rawTransaction: intent.rawTransaction,
                nonce: intent.nonce,
                sender: intent.sender
              }).pipe(
                Effect.as(true),
                Effect.catchIf(
                  (e): e is ConnectorError => e instanceof ConnectorError && e.code === "NONCE_USED",
                  () => Effect.succeed(false)
                )
              )
              if (!sent) {
                const fresh = yield* store.getPermit(record.fillId)
                if (fresh !== undefined) yield* submit(fresh, w, payer, permit, intent.attempt + 1)
              }
              return
            }
          }
        })

      const payoutPass = Effect.gen(function*() {
        // intents first (a restart resends what a crash left unsent), then new payouts
        const pending = yield* store.permitsInStates(["PAYOUT_SUBMITTED", "SOURCE_CONFIRMED"], 200)
        const ordered = [
          ...pending.filter((p) => p.state === "PAYOUT_SUBMITTED"),
          ...pending.filter((p) => p.state === "SOURCE_CONFIRMED")
        ]
        for (const record of ordered) {
          yield* payoutOne(record).pipe(
            Effect.catch((e: ChainFailure) =>
              Effect.logWarning("payout step failed; retried on the next pass", {
                fillId: record.fillId,
                error: e.message
              })
            )
          )
        }
      })

      // ---------------------------------------------------------------- inventory
      const refreshInventory = (w: Watched) =>
        Effect.gen(function*() {
          const payer = w.chain.payer
          if (payer === null) {
            return
          }
          const observed: Array<{ assetKey: string; physicalRaw: bigint }> = []
          for (const asset of catalog.assets) {
            if (asset.network.networkId !== w.network.networkId || asset.address === null) {
              continue
            }
            const balance = yield* payer.balance(asset.address)
            const cap = asset.inventoryRaw
            observed.push({ assetKey: asset.assetId, physicalRaw: cap !== null && cap < balance ? cap : balance })
          }
          yield* store.observeInventory(observed)
        })

      const refreshAll = Effect.forEach(
        [...watched.values()],
        (w) =>
          refreshInventory(w).pipe(
            Effect.catch((e: ConnectorUnavailable | StoreError) =>
              Effect.logWarning("vault balance read failed", { network: w.network.key, error: e.message })
            )
          ),
        { discard: true }
      )

      const watchAll = Effect.forEach(
        [...watched.values()].filter((w) => w.network.router !== null),
        (w) =>
          watchOnce(w).pipe(
            Effect.catch((e: ChainFailure) =>
              Effect.logWarning("watcher poll failed; retried on the next poll", {
                network: w.network.key,
                error: e.message
              })
            )
          ),
        { discard: true, concurrency: "unbounded" }
      )

      const step = Effect.andThen(
        watchAll,
        payoutPass.pipe(Effect.catch((e) => Effect.logWarning("payout pass failed", { error: e.message })))
      )

      if (watched.size > 0) {
        yield* Effect.logInfo("chain settlement", {
          networks: [...watched.values()].map((w) =>
            `${w.network.key}${w.network.router !== null ? " watch" : ""}${w.chain.payer !== null ? " pay" : ""}`
          )
        })
        // only the leading replica watches and pays (one payout key in use at a time)
        const leading = Effect.gen(function*() {
          yield* refreshAll
          if (pollMillis > 0) {
            yield* Effect.forkChild(Effect.repeat(step, Schedule.spaced(pollMillis)))
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
        networks: Effect.sync(() =>
          [...watched.values()].map((w) => ({
            key: w.network.key,
            networkId: w.network.networkId,
            watching: w.network.router !== null,
            paying: w.chain.payer !== null,
            chainCalls: w.calls,
            newBlockPolls: w.newBlockPolls,
            blocksRead: w.blocksRead,
            cursor: w.cursor
          }))
        ),
        step
      })
    })
  )
