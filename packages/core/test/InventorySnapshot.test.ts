/**
 * The inventory snapshot a permit publishes passes its schema whatever the
 * store's figures: after a process start wrote the catalog's inventoryRaw back
 * over the vault balance observed, configured - paidOut is below zero until
 * settlement observes the vault again, and a permit asked for then died with a
 * defect ("built an envelope that fails its schema", found by the simulation,
 * seed 1 with 10,000 fills).
 */
import { assert, describe, it } from "@effect/vitest"
import { InventorySnapshot } from "@svc/protocol/schema/Permit"
import { Result, Schema } from "effect"
import { snapshotOf } from "../src/Inventory.ts"

const decode = Schema.decodeUnknownResult(InventorySnapshot)

describe("Inventory.snapshotOf", () => {
  it("publishes a physical balance below zero as 0, and the snapshot passes its schema", () => {
    const snapshot = snapshotOf({
      assetKey: "0xasset",
      configuredRaw: 1_000n,
      paidOutRaw: 1_500n,
      holdRaw: 10n,
      liabilityRaw: 20n,
      clearingRaw: 30n,
      updatedAt: 1_767_225_600_000
    }, 1_767_225_601_000)
    assert.strictEqual(snapshot.physicalRaw, "0")
    assert.strictEqual(snapshot.effectiveAccountingHoldRaw, "10")
    assert.isTrue(Result.isSuccess(decode(snapshot)))
  })

  it("publishes configured - paidOut otherwise", () => {
    const snapshot = snapshotOf({
      assetKey: "0xasset",
      configuredRaw: 1_000n,
      paidOutRaw: 400n,
      holdRaw: 0n,
      liabilityRaw: 0n,
      clearingRaw: 0n,
      updatedAt: 0
    }, 0)
    assert.strictEqual(snapshot.physicalRaw, "600")
    assert.isTrue(Result.isSuccess(decode(snapshot)))
  })
})
