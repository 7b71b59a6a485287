/**
 * An in-memory Store for unit tests only (the product has SQLite and PostgreSQL
 * stores in @svc/store). It follows the Store contract: every operation is
 * atomic because it runs synchronously.
 */
import { Effect, Layer } from "effect"
import * as Lifecycle from "../../src/Lifecycle.ts"
import {
  availableOf,
  type ChainCursor,
  type InventoryBalance,
  type IssueResult,
  type OperatorState,
  type PayoutIntent,
  type PermitRecord,
  type PublicationDocument,
  type PublicationRecord,
  type RouteCounter,
  type RouteCounters,
  Store,
  type StoredQuote,
  StoreError
} from "../../src/Store.ts"

export interface MemoryStoreControl {
  /** When set, every operation fails with a StoreError (to test 503 paths). */
  failing: boolean
  /** Operations that fail once each, the next time they run (a lost write). */
  readonly failOnce: Set<string>
  readonly permits: Map<string, PermitRecord>
  readonly inventory: Map<string, InventoryBalance>
}

export const makeMemoryStore = (): { store: Store["Service"]; control: MemoryStoreControl } => {
  let dataVersion = 0n
  let operator: OperatorState = { version: 0, paused: false, pauseReason: null, routes: {}, payoutPauses: {} }
  const publications = new Map<bigint, PublicationRecord>()
  const documents = new Map<bigint, PublicationDocument>()
  const inventory = new Map<string, InventoryBalance>()
  const permits = new Map<string, PermitRecord>()
  const byKey = new Map<string, string>()
  const counters = new Map<string, Record<RouteCounter, number> & { updatedAt: number | null }>()
  const quotes = new Map<string, StoredQuote>()
  const cursors = new Map<string, ChainCursor>()
  /** payout transactions by hash, in insertion order */
  const intents = new Map<string, PayoutIntent>()
  const control: MemoryStoreControl = { failing: false, failOnce: new Set(), permits, inventory }
  const attemptsOf = (fillId: string) =>
    [...intents.values()]
      .filter((i) => i.fillId === fillId.toLowerCase())
      .sort((a, b) => a.attempt - b.attempt || a.createdAt - b.createdAt)

  const op = <A>(operation: string, f: () => A) =>
    Effect.suspend(() =>
      control.failing || control.failOnce.delete(operation)
        ? Effect.fail(new StoreError({ operation, cause: new Error("store down (test)") }))
        : Effect.succeed(f())
    )
  /** The publication with the highest dataVersion (whatever the order they were recorded in). */
  const latestOf = (records: Iterable<PublicationRecord>) => {
    let latest: PublicationRecord | undefined
    for (const p of records) if (latest === undefined || p.dataVersion > latest.dataVersion) latest = p
    return latest
  }
  const count = (routeId: string, counter: RouteCounter, by: number, at: number) => {
    const c = counters.get(routeId) ??
      { feed_exposures: 0, permit_requests: 0, permits_issued: 0, source_observed: 0, paid: 0, updatedAt: null }
    c[counter] += by
    c.updatedAt = at
    counters.set(routeId, c)
  }
  const move = (assetKey: string, from: Lifecycle.Bucket, to: Lifecycle.Bucket, amount: bigint, at: number) => {
    const b = inventory.get(assetKey)
    if (b === undefined) return
    const next = { ...b, updatedAt: at }
    const field = { hold: "holdRaw", liability: "liabilityRaw", clearing: "clearingRaw", paid: "paidOutRaw" } as const
    if (from !== "none") (next as any)[field[from]] -= amount
    if (to !== "none") (next as any)[field[to]] += amount
    inventory.set(assetKey, next)
  }

  const store: Store["Service"] = {
    kind: "memory",
    // like the SQL stores: max(counter, latest publication) + 1
    nextDataVersion: op("nextDataVersion", () => {
      const latest = latestOf(publications.values())?.dataVersion ?? 0n
      return (dataVersion = (dataVersion > latest ? dataVersion : latest) + 1n)
    }),
    // one row per dataVersion: recording a version again replaces it
    recordPublication: (p) =>
      op("recordPublication", () => {
        if ([...publications.keys()].some((dv) => dv > p.dataVersion)) return false
        publications.set(p.dataVersion, p)
        return true
      }),
    latestPublication: op("latestPublication", () => latestOf(publications.values())),
    savePublicationDocument: (d) =>
      op("savePublicationDocument", () => {
        documents.set(d.dataVersion, d)
        for (const v of documents.keys()) if (v <= d.dataVersion - 16n) documents.delete(v)
      }),
    latestPublicationDocument: op("latestPublicationDocument", () => {
      let latest: PublicationDocument | undefined
      for (const d of documents.values()) if (latest === undefined || d.dataVersion > latest.dataVersion) latest = d
      return latest
    }),
    operatorState: op("operatorState", () => operator),
    setPaused: (paused, reason) =>
      op(
        "setPaused",
        () => (operator = { ...operator, version: operator.version + 1, paused, pauseReason: paused ? reason : null })
      ),
    requestPublication: op(
      "requestPublication",
      () => (operator = { ...operator, version: operator.version + 1 })
    ),
    setPayoutsPaused: (network, paused, reason) =>
      op("setPayoutsPaused", () => {
        const { [network]: _, ...rest } = operator.payoutPauses
        operator = { ...operator, payoutPauses: paused ? { ...rest, [network]: { reason } } : rest }
        return operator
      }),
    setRouteOverride: (routeId, override) =>
      op("setRouteOverride", () => {
        const routes = { ...operator.routes }
        if (override.executionStatus === undefined && override.dailyStatus === undefined) delete routes[routeId]
        else routes[routeId] = override
        return (operator = { ...operator, version: operator.version + 1, routes })
      }),
    configureInventory: (assets) =>
      op("configureInventory", () => {
        for (const a of assets) {
          const b = inventory.get(a.assetKey)
          inventory.set(
            a.assetKey,
            b === undefined
              ? {
                assetKey: a.assetKey,
                configuredRaw: a.configuredRaw,
                paidOutRaw: 0n,
                holdRaw: 0n,
                liabilityRaw: 0n,
                clearingRaw: 0n,
                updatedAt: 0
              }
              : { ...b, configuredRaw: a.configuredRaw }
          )
        }
      }),
    inventory: (keys) =>
      op("inventory", () => keys === undefined ? [...inventory.values()] : keys.flatMap((k) => inventory.get(k) ?? [])),
    findByIdempotencyKey: (scope, key) =>
      op("findByIdempotencyKey", () => {
        const id = byKey.get(`${scope}\u0000${key}`)
        return id === undefined ? undefined : permits.get(id)
      }),
    issuePermit: (record, shares) =>
      op("issuePermit", (): IssueResult => {
        const slot = `${record.scope}\u0000${record.idempotencyKey}`
        const existing = byKey.get(slot)
        if (existing !== undefined) return { _tag: "Duplicate" as const, existing: permits.get(existing)! }
        const b = inventory.get(record.assetKey)
        if (b === undefined) return { _tag: "UnknownAsset" as const }
        const amount = BigInt(record.amountOutRaw)
        if (availableOf(b) < amount) return { _tag: "InsufficientInventory" as const, availableRaw: availableOf(b) }
        const physical = b.configuredRaw - b.paidOutRaw
        const caps = [
          ["CLIENT", record.clientKey == null ? undefined : shares?.clientBps, (p: PermitRecord) =>
            p.clientKey === record.clientKey],
          ["PAYER", shares?.payerBps, (p: PermitRecord) =>
            p.scope === record.scope]
        ] as const
        for (const [holder, bps, mine] of caps) {
          if (bps === undefined) {
            continue
          }
          const limitRaw = (physical * BigInt(bps)) / 10_000n
          const heldRaw = [...permits.values()]
            .filter((p) =>
              p.assetKey === record.assetKey && p.state === "ISSUED" && mine(p)
            )
            .reduce((sum, p) => sum + BigInt(p.amountOutRaw), 0n)
          if (heldRaw + amount > limitRaw) return { _tag: "HoldShareExceeded", holder, heldRaw, limitRaw }
        }
        inventory.set(record.assetKey, { ...b, holdRaw: b.holdRaw + amount, updatedAt: record.createdAt })
        const { destinationNetworkId, sourceNetworkId, ...rest } = record
        const stored: PermitRecord = {
          ...rest,
          ...(sourceNetworkId == null ? {} : { sourceNetworkId: sourceNetworkId.toLowerCase() }),
          ...(destinationNetworkId == null ? {} : { destinationNetworkId: destinationNetworkId.toLowerCase() })
        }
        permits.set(record.fillId, stored)
        byKey.set(slot, record.fillId)
        count(record.routeId, "permits_issued", 1, record.createdAt)
        return { _tag: "Issued" as const, record: stored }
      }),
    getPermit: (fillId) => op("getPermit", () => permits.get(fillId)),
    // hex case-insensitive, the newest permit first (like the SQL stores)
    findBySourceTx: (hash) =>
      op("findBySourceTx", () =>
        [...permits.values()]
          .filter((p) => p.sourceTxHash?.toLowerCase() === hash.toLowerCase())
          .sort((a, b) => b.createdAt - a.createdAt || (a.fillId < b.fillId ? -1 : 1))[0]),
    listPermits: (filter) =>
      op("listPermits", () =>
        [...permits.values()]
          .filter((p) =>
            (filter.quoteId === undefined || p.quoteId === filter.quoteId.toLowerCase()) &&
            (filter.payerAddress === undefined || p.payerAddress === filter.payerAddress.toLowerCase())
          )
          .sort((a, b) => b.createdAt - a.createdAt || (a.fillId < b.fillId ? -1 : 1))
          .slice(0, filter.limit)),
    transition: (request) =>
      op("transition", () => {
        const record = permits.get(request.fillId)
        if (record === undefined) return { _tag: "NotFound" as const }
        if (
          !Lifecycle.canTransition(record.state, request.to) ||
          (request.from !== undefined && request.from !== record.state)
        ) return { _tag: "Rejected" as const, record }
        move(
          record.assetKey,
          Lifecycle.bucketOf(record.state),
          Lifecycle.bucketOf(request.to),
          BigInt(record.amountOutRaw),
          request.at
        )
        const next: PermitRecord = {
          ...record,
          state: request.to,
          updatedAt: request.at,
          sourceTxHash: request.to === "ISSUED" ? null : request.sourceTxHash ?? record.sourceTxHash,
          payoutTxHash: request.payoutTxHash ?? record.payoutTxHash,
          reasonCodes: request.reasonCodes ?? record.reasonCodes
        }
        permits.set(record.fillId, next)
        if (request.to === "SOURCE_OBSERVED") count(record.routeId, "source_observed", 1, request.at)
        if (request.to === "PAID") count(record.routeId, "paid", 1, request.at)
        if (record.state === "PAID") count(record.routeId, "paid", -1, request.at)
        return { _tag: "Applied" as const, from: record.state, record: next }
      }),
    dueForExpiry: (cutoff, limit, filter) =>
      op(
        "dueForExpiry",
        () =>
          [...permits.values()]
            .filter((p) =>
              p.state === "ISSUED" && p.validUntil <= cutoff &&
              (filter?.sourceNetworkId === undefined || p.sourceNetworkId === filter.sourceNetworkId.toLowerCase())
            )
            .sort((a, b) => a.validUntil - b.validUntil || (a.fillId < b.fillId ? -1 : 1))
            .slice(0, limit)
            .map((p) => p.fillId)
      ),
    permitsInStates: (states, limit, filter) =>
      op("permitsInStates", () =>
        [...permits.values()]
          .filter((p) =>
            states.includes(p.state) &&
            (filter?.sourceNetworkId === undefined || p.sourceNetworkId === filter.sourceNetworkId.toLowerCase()) &&
            (filter?.destinationNetworkId === undefined ||
              p.destinationNetworkId === filter.destinationNetworkId.toLowerCase()) &&
            (filter?.updatedSince === undefined || p.updatedAt >= filter.updatedSince)
          )
          .sort((a, b) =>
            (a.createdAt - b.createdAt || (a.fillId < b.fillId ? -1 : 1)) * (filter?.newestFirst === true ? -1 : 1)
          )
          .slice(0, limit)),
    setReasonCodes: (fillId, reasonCodes) =>
      op("setReasonCodes", () => {
        const record = permits.get(fillId.toLowerCase())
        if (record === undefined) return undefined
        const next = { ...record, reasonCodes }
        permits.set(record.fillId, next)
        return next
      }),
    setPaidPayout: (fillId, payoutTxHash, at) =>
      op("setPaidPayout", () => {
        const record = permits.get(fillId.toLowerCase())
        if (record === undefined || record.state !== "PAID") return undefined
        const next = { ...record, payoutTxHash: payoutTxHash.toLowerCase(), updatedAt: at }
        permits.set(record.fillId, next)
        return next
      }),
    observeInventory: (assets) =>
      op("observeInventory", () => {
        for (const a of assets) {
          const b = inventory.get(a.assetKey)
          if (b !== undefined) inventory.set(a.assetKey, { ...b, configuredRaw: a.physicalRaw + b.paidOutRaw })
        }
      }),
    chainCursor: (networkId) => op("chainCursor", () => cursors.get(networkId.toLowerCase())),
    saveChainCursor: (cursor) =>
      op(
        "saveChainCursor",
        () => void cursors.set(cursor.networkId.toLowerCase(), { ...cursor, networkId: cursor.networkId.toLowerCase() })
      ),
    chainCursors: op("chainCursors", () => [...cursors.values()].sort((a, b) => a.networkId < b.networkId ? -1 : 1)),
    payoutIntent: (fillId) => op("payoutIntent", () => attemptsOf(fillId).at(-1)),
    payoutIntents: (fillId) => op("payoutIntents", () => attemptsOf(fillId)),
    openPayoutIntents: (networkId, sender, fromNonce) =>
      op("openPayoutIntents", () =>
        [...intents.values()]
          .filter((i) =>
            i.networkId === networkId.toLowerCase() && i.sender === sender && i.nonce >= fromNonce &&
            permits.get(i.fillId)?.state === "PAYOUT_SUBMITTED"
          )
          .sort((a, b) => a.nonce - b.nonce || a.attempt - b.attempt)),
    savePayoutIntent: (intent) =>
      op("savePayoutIntent", () => {
        const txHash = intent.txHash.toLowerCase()
        if (intents.has(txHash)) return
        intents.set(txHash, {
          ...intent,
          txHash,
          fillId: intent.fillId.toLowerCase(),
          networkId: intent.networkId.toLowerCase()
        })
      }),
    markPayoutIntent: (txHash, outcome) =>
      op("markPayoutIntent", () => {
        const intent = intents.get(txHash.toLowerCase())
        if (intent !== undefined) intents.set(intent.txHash, { ...intent, outcome })
      }),
    addCounters: (deltas) =>
      op("addCounters", () => deltas.forEach((d) => count(d.routeId, d.counter, d.by, Date.now()))),
    routeCounters: (routeId): Effect.Effect<RouteCounters, StoreError> =>
      op("routeCounters", () => {
        // a copy: the live record keeps counting after it was read
        const c = counters.get(routeId)
        return c === undefined
          ? { feed_exposures: 0, permit_requests: 0, permits_issued: 0, source_observed: 0, paid: 0, updatedAt: null }
          : { ...c }
      }),
    saveQuote: (quote) => op("saveQuote", () => void quotes.set(quote.quoteToken, quote)),
    getQuote: (token) => op("getQuote", () => quotes.get(token)),
    prunePermits: (before, limit) =>
      op("prunePermits", () => {
        const old = [...permits.values()]
          .filter((p) => Lifecycle.isTerminal(p.state) && p.updatedAt < before)
          .sort((a, b) => a.updatedAt - b.updatedAt)
          .slice(0, Math.max(1, limit))
        for (const p of old) {
          permits.delete(p.fillId)
          for (const i of attemptsOf(p.fillId)) intents.delete(i.txHash)
          byKey.delete(`${p.scope}\u0000${p.idempotencyKey}`)
        }
        return old.length
      }),
    pruneQuotes: (before) =>
      op("pruneQuotes", () => {
        let n = 0
        for (const [k, q] of quotes) {
          if (q.expiresAt < before) {
            quotes.delete(k)
            n++
          }
        }
        return n
      })
  }
  return { store, control }
}

export const memoryStoreLayer = () => {
  const { control, store } = makeMemoryStore()
  return { control, layer: Layer.succeed(Store, store) }
}
