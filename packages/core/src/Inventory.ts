/**
 * Inventory: per destination asset, the physical balance, the liabilities, the
 * accounting holds and the clearing commitments (the four figures of
 * DirectExecution.inventory), kept in the store.
 *
 * A permit reserves its amountOut in the hold (atomically with its insertion, see
 * `Store.issuePermit`); a source fill moves it to the liability, a payout
 * submission to the clearing commitment, a confirmed payout out of the physical
 * balance; expiry and failure release it. A feed route's maxAvailableInRaw is
 * derived from its destination's available amount.
 *
 * The default layer takes physical balances from the catalog (`inventoryRaw` of
 * each asset). On networks where svc pays out, `ChainSettlement` then writes the
 * vault's on-chain balance, capped by that figure (`Store.observeInventory`).
 *
 * @since 0.1.0
 */
import { keccak, utf8 } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import type { InventorySnapshot } from "@svc/protocol/schema/Permit"
import { Clock, Context, Effect, Layer } from "effect"
import { Catalog } from "./Catalog.ts"
import { availableOf, type InventoryBalance, physicalOf, Store, type StoreError } from "./Store.ts"

/**
 * The inventory service.
 *
 * @category services
 * @since 0.1.0
 */
export class Inventory extends Context.Service<Inventory, {
  /** Balances of the given destination assets (all when omitted). */
  readonly balances: (
    assetKeys?: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, InventoryBalance>, StoreError>
  /** The snapshot of one asset as published in a permit, or null when it has no inventory row. */
  readonly snapshot: (assetKey: string) => Effect.Effect<InventorySnapshot | null, StoreError>
  /** Writes the physical balances of the source of truth to the store. */
  readonly sync: Effect.Effect<void, StoreError>
}>()("@svc/core/Inventory") {}

/**
 * The published snapshot of a balance (a physical balance below zero is
 * published as 0).
 *
 * @category operations
 * @since 0.1.0
 */
export const snapshotOf = (balance: InventoryBalance, now: number): InventorySnapshot => {
  // configured - paidOut is below zero for a moment when a process start writes the catalog's figure back over
  // the vault balance observed (paidOut counts every payout since), until settlement observes the vault again
  const physical = physicalOf(balance)
  const figures = {
    assetKey: balance.assetKey,
    physicalRaw: (physical < 0n ? 0n : physical).toString(),
    effectiveLiabilityRaw: balance.liabilityRaw.toString(),
    effectiveAccountingHoldRaw: balance.holdRaw.toString(),
    activeClearingCommitmentRaw: balance.clearingRaw.toString(),
    updatedAt: balance.updatedAt
  }
  return {
    source: "V6_PERSISTED_INVENTORY_SNAPSHOT",
    snapshotId: `inv-${keccak(utf8(CanonicalJson.stringify(figures))).slice(2, 26)}`,
    capturedAt: new Date(balance.updatedAt).toISOString(),
    ageMs: Math.max(0, now - balance.updatedAt),
    physicalRaw: figures.physicalRaw,
    effectiveLiabilityRaw: figures.effectiveLiabilityRaw,
    effectiveAccountingHoldRaw: figures.effectiveAccountingHoldRaw,
    activeClearingCommitmentRaw: figures.activeClearingCommitmentRaw
  }
}

/**
 * Inventory whose physical balances are the catalog's configured `inventoryRaw`.
 * Syncs them to the store when the layer starts.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFromCatalog: Layer.Layer<Inventory, StoreError, Store | Catalog> = Layer.effect(
  Inventory,
  Effect.gen(function*() {
    const store = yield* Store
    const catalog = yield* Catalog
    const destinations = new Set(catalog.routes.map((r) => r.destination.key))
    const configured = catalog.assets
      .filter((a) => destinations.has(a.key) || a.inventoryRaw !== null)
      .map((a) => ({ assetKey: a.assetId, configuredRaw: a.inventoryRaw ?? 0n }))
    const sync = store.configureInventory(configured)
    yield* sync
    const balances = (assetKeys?: ReadonlyArray<string>) =>
      Effect.map(store.inventory(assetKeys), (rows) => new Map(rows.map((r) => [r.assetKey, r])))
    return Inventory.of({
      balances,
      snapshot: (assetKey) =>
        Effect.gen(function*() {
          const rows = yield* store.inventory([assetKey])
          const row = rows[0]
          if (row === undefined) return null
          return snapshotOf(row, yield* Clock.currentTimeMillis)
        }),
      sync
    })
  })
)

export { availableOf, physicalOf }
