/**
 * Hold shares and retention on the real stores (SQLite, and PostgreSQL when it
 * answers):
 *
 * - the payers that never completed a fill hold together at most
 *   `newPayersBps` of an asset (issue #26, finding 2); a payer with a
 *   completed (PAID) fill is never refused for it and never counted in it;
 *   their holds leave the count as they leave ISSUED (and come back with a
 *   reorganised fill); a payer stays proven after retention deleted its fill;
 * - the per-client cap counts only what is still held (ISSUED), not what was
 *   filled and paid out;
 * - retention deletes terminal permits by when they became terminal
 *   (`updated_at`), not by when they were created.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, layer } from "@effect/vitest"
import type { PermitState } from "@svc/core/Lifecycle"
import { type IssueResult, type PermitRecord, Store, type StoreShape } from "@svc/core/Store"
import { Effect, Layer, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { connect } from "node:net"
import { scaled } from "../../../test/support/time.ts"
import { PgStore, SqliteStore } from "../src/index.ts"

const T0 = 1_700_000_000_000
let sequence = 0
const fresh = (label: string) => `${label}-${process.pid}-${++sequence}`
const hex32 = (seed: string) => `0x${Buffer.from(seed).toString("hex").padEnd(64, "0").slice(0, 64)}`

const permitOf = (overrides: Partial<PermitRecord> & Pick<PermitRecord, "assetKey" | "scope">): PermitRecord => {
  const fillId = overrides.fillId ?? hex32(fresh("fill"))
  return {
    fillId,
    routeId: "route",
    quoteId: fresh("quote"),
    idempotencyKey: fresh("key"),
    fingerprint: fresh("fp"),
    payerAddress: null,
    amountInRaw: "1000",
    amountOutRaw: "100",
    state: "ISSUED",
    reasonCodes: [],
    sourceTxHash: null,
    payoutTxHash: null,
    validUntil: 4_000_000_000,
    createdAt: T0,
    updatedAt: T0,
    envelope: JSON.stringify({ fillId }),
    ...overrides
  }
}

const walk = (store: StoreShape, fillId: string, path: ReadonlyArray<PermitState>, at = T0 + 1000) =>
  Effect.forEach(path, (to, i) =>
    store.transition({
      fillId,
      to,
      at: at + i,
      ...(to === "SOURCE_OBSERVED" ? { sourceTxHash: hex32(fresh("src")) } : {}),
      ...(to === "PAID" || to === "PAYOUT_SUBMITTED" ? { payoutTxHash: hex32(fresh("pay")) } : {})
    }).pipe(Effect.tap((r) => Effect.sync(() => assert.strictEqual(r._tag, "Applied", `${fillId} -> ${to}`)))), {
    discard: true
  })

const TO_PAID: ReadonlyArray<PermitState> = ["SOURCE_OBSERVED", "SOURCE_CONFIRMED", "PAYOUT_SUBMITTED", "PAID"]

const outcome = (r: IssueResult) => r._tag === "HoldShareExceeded" ? `${r._tag}:${r.holder}` : r._tag

/** A payer with a completed fill on some asset. */
const provenPayer = (store: StoreShape) =>
  Effect.gen(function*() {
    const assetKey = fresh("proof-asset")
    const scope = fresh("0xproven")
    yield* store.configureInventory([{ assetKey, configuredRaw: 1000n }])
    const r = yield* store.issuePermit(permitOf({ assetKey, scope, amountOutRaw: "1" }))
    assert.strictEqual(r._tag, "Issued")
    yield* walk(store, (r as { record: PermitRecord }).record.fillId, TO_PAID)
    return scope
  })

const tests = (name: string, storeLayer: Layer.Layer<Store, unknown>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: scaled(60_000) })(name, (it) => {
    it.effect("the payers without a completed fill hold together at most their share; a proven payer is never refused", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const proven = yield* provenPayer(store)
        const assetKey = fresh("asset")
        yield* store.configureInventory([{ assetKey, configuredRaw: 2000n }])
        const shares = { newPayersBps: 5000 }
        // three throwaway keys: 600 + 400 held, then 100 more would pass the 1000 of new payers
        const a = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xa"), amountOutRaw: "600" }), shares)
        const b = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xb"), amountOutRaw: "400" }), shares)
        assert.deepStrictEqual([outcome(a), outcome(b)], ["Issued", "Issued"])
        const c = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xc"), amountOutRaw: "100" }), shares)
        assert.strictEqual(outcome(c), "HoldShareExceeded:NEW_PAYERS")
        assert.deepStrictEqual(c._tag === "HoldShareExceeded" ? [c.heldRaw, c.limitRaw] : [], [1000n, 1000n])
        // a payer with a completed fill: served from the other half, and not counted
        const p = yield* store.issuePermit(permitOf({ assetKey, scope: proven, amountOutRaw: "400" }), shares)
        assert.strictEqual(outcome(p), "Issued")
        const c2 = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xc"), amountOutRaw: "1" }), shares)
        assert.strictEqual(outcome(c2), "HoldShareExceeded:NEW_PAYERS", "the proven payer's 400 is not counted")
        // a new payer's hold leaves the count when it expires...
        yield* walk(store, (a as { record: PermitRecord }).record.fillId, ["EXPIRED"])
        const d = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xd"), amountOutRaw: "50" }), shares)
        assert.strictEqual(outcome(d), "Issued")
        // ...and when it is filled; b's payer then has a completed fill: no longer refused
        yield* walk(store, (b as { record: PermitRecord }).record.fillId, TO_PAID)
        const bScope = (b as { record: PermitRecord }).record.scope
        const b2 = yield* store.issuePermit(permitOf({ assetKey, scope: bScope, amountOutRaw: "100" }), shares)
        assert.strictEqual(outcome(b2), "Issued")
        // the share is of the physical inventory (configured - paid out: 1600 now), as the others':
        // new payers hold d's 50, so 750 more fit, 751 not
        const e = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xe"), amountOutRaw: "751" }), shares)
        assert.strictEqual(outcome(e), "HoldShareExceeded:NEW_PAYERS")
        assert.deepStrictEqual(e._tag === "HoldShareExceeded" ? [e.heldRaw, e.limitRaw] : [], [50n, 800n])
        const f = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xf"), amountOutRaw: "750" }), shares)
        assert.strictEqual(outcome(f), "Issued")
      }))

    it.effect("a new payer's fill reorganised back to ISSUED counts again; no cap without newPayersBps", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const assetKey = fresh("asset")
        yield* store.configureInventory([{ assetKey, configuredRaw: 1000n }])
        const shares = { newPayersBps: 3000 }
        const a = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xa"), amountOutRaw: "300" }), shares)
        const fillId = (a as { record: PermitRecord }).record.fillId
        yield* walk(store, fillId, ["SOURCE_OBSERVED"])
        const b = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xb"), amountOutRaw: "300" }), shares)
        assert.strictEqual(outcome(b), "Issued", "a's hold became a liability")
        yield* walk(store, fillId, ["ISSUED"])
        const c = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xc"), amountOutRaw: "1" }), shares)
        assert.strictEqual(outcome(c), "HoldShareExceeded:NEW_PAYERS", "a counts again: 600 of 300")
        const off = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xc"), amountOutRaw: "1" }))
        assert.strictEqual(outcome(off), "Issued")
      }))

    it.effect("a payer stays proven after retention deleted its completed fill", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const proven = yield* provenPayer(store)
        // far past every permit's last change: the proven payer's PAID permit is deleted
        while ((yield* store.prunePermits(T0 + 10_000_000, 500)) > 0) {
          // until nothing old is left
        }
        const assetKey = fresh("asset")
        yield* store.configureInventory([{ assetKey, configuredRaw: 1000n }])
        const shares = { newPayersBps: 1000 }
        const stranger = yield* store.issuePermit(
          permitOf({ assetKey, scope: fresh("0xs"), amountOutRaw: "100" }),
          shares
        )
        assert.strictEqual(outcome(stranger), "Issued")
        const p = yield* store.issuePermit(permitOf({ assetKey, scope: proven, amountOutRaw: "500" }), shares)
        assert.strictEqual(outcome(p), "Issued")
      }))

    it.effect("the per-client cap counts only what is still held, not what was filled and paid out", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const assetKey = fresh("asset")
        const clientKey = fresh("client")
        yield* store.configureInventory([{ assetKey, configuredRaw: 1000n }])
        const shares = { clientBps: 2500 }
        const first = yield* store.issuePermit(
          permitOf({ assetKey, scope: fresh("0xp"), clientKey, amountOutRaw: "200" }),
          shares
        )
        assert.strictEqual(outcome(first), "Issued")
        const over = yield* store.issuePermit(
          permitOf({ assetKey, scope: fresh("0xp"), clientKey, amountOutRaw: "100" }),
          shares
        )
        assert.strictEqual(outcome(over), "HoldShareExceeded:CLIENT", "200 + 100 > 250")
        // the first one is filled and paid: 200 paid out, nothing held (physical 800, share 200)
        yield* walk(store, (first as { record: PermitRecord }).record.fillId, TO_PAID)
        const again = yield* store.issuePermit(
          permitOf({ assetKey, scope: fresh("0xp"), clientKey, amountOutRaw: "200" }),
          shares
        )
        assert.strictEqual(outcome(again), "Issued")
        // and it holds 200 of its 200 now
        const full = yield* store.issuePermit(
          permitOf({ assetKey, scope: fresh("0xp"), clientKey, amountOutRaw: "1" }),
          shares
        )
        assert.deepStrictEqual(full._tag === "HoldShareExceeded" ? [full.heldRaw, full.limitRaw] : [], [200n, 200n])
      }))

    it.effect("retention deletes terminal permits by when they became terminal, not when they were created", () =>
      Effect.gen(function*() {
        const store = yield* Store
        const assetKey = fresh("asset")
        yield* store.configureInventory([{ assetKey, configuredRaw: 1_000_000n }])
        // created long ago, terminal only lately
        const late = yield* store.issuePermit(permitOf({ assetKey, scope: fresh("0xl"), createdAt: T0, updatedAt: T0 }))
        const lateId = (late as { record: PermitRecord }).record.fillId
        yield* walk(store, lateId, ["EXPIRED"], T0 + 50 * 86_400_000)
        // created and terminal long ago
        const early = yield* store.issuePermit(
          permitOf({ assetKey, scope: fresh("0xe"), createdAt: T0, updatedAt: T0 })
        )
        const earlyId = (early as { record: PermitRecord }).record.fillId
        yield* walk(store, earlyId, ["EXPIRED"], T0 + 1000)
        // the cut: 40 days after T0
        yield* store.prunePermits(T0 + 40 * 86_400_000, 1000)
        assert.isUndefined(yield* store.getPermit(earlyId), "terminal for longer than retention: deleted")
        assert.isDefined(yield* store.getPermit(lateId), "terminal for less than retention: kept, however old")
      }))
  })

tests("hold shares and retention: SqliteStore", SqliteStore.layer({ filename: ":memory:" }))

// PostgreSQL, on a schema of its own, when a server answers (the PgStore tests say when it does not)
const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const where = new URL(url)
const up = await new Promise<boolean>((resolve) => {
  const socket = connect({ host: where.hostname || "127.0.0.1", port: Number(where.port || 5432) })
  const done = (ok: boolean) => {
    socket.destroy()
    resolve(ok)
  }
  socket.setTimeout(1500, () => done(false))
  socket.once("connect", () => done(true))
  socket.once("error", () => done(false))
})
if (up) {
  const schema = `svc_test_${Math.floor(Date.now() / 1000).toString(36)}_holds_${process.pid}_${
    Math.random().toString(36).slice(2, 8)
  }`
  const dropAfter = Layer.effectDiscard(Effect.addFinalizer(() =>
    Effect.scoped(Effect.gen(function*() {
      const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(
        Effect.provide(Reactivity.layer)
      )
      yield* sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    })).pipe(Effect.ignore)
  ))
  tests(
    "hold shares and retention: PgStore",
    PgStore.layer({ url: Redacted.make(url), schema }).pipe(Layer.provide(dropAfter))
  )
} else {
  describe.skip("hold shares and retention: PgStore (PostgreSQL not reachable)", () => {})
}
