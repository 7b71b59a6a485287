/**
 * The contract test suite of {@link Store}: every implementation (ours and
 * third-party ones) runs it unchanged.
 *
 * ```ts
 * import { suite } from "@svc/store/testing/StoreContract"
 * suite("MyStore", MyStore.layer({ ... }))
 * ```
 *
 * The layer is built once for the whole suite and should start on an empty
 * database. Tests use fresh asset keys, routes, scopes and quote ids, so they do
 * not depend on each other; the dueForExpiry and quote-pruning tests assume no
 * other writer touches the store meanwhile.
 *
 * Needs vitest, `@effect/vitest` and `@fast-check/vitest` (optional peer
 * dependencies of `@svc/store`).
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { fc } from "@fast-check/vitest"
import { bucketOf, canTransition, nextStates, PermitState } from "@svc/core/Lifecycle"
import { availableOf, payoutsPaused, physicalOf, Store } from "@svc/core/Store"
import type { InventoryBalance, IssueResult, PermitRecord, StoreShape } from "@svc/core/Store"
import { Effect, type Layer } from "effect"

const STATES: ReadonlyArray<PermitState> = PermitState.literals

/** A path from ISSUED to every state. */
const PATH_TO: Record<PermitState, ReadonlyArray<PermitState>> = {
  ISSUED: [],
  SOURCE_OBSERVED: ["SOURCE_OBSERVED"],
  SOURCE_CONFIRMED: ["SOURCE_OBSERVED", "SOURCE_CONFIRMED"],
  PAYOUT_SUBMITTED: ["SOURCE_OBSERVED", "SOURCE_CONFIRMED", "PAYOUT_SUBMITTED"],
  PAID: ["SOURCE_OBSERVED", "SOURCE_CONFIRMED", "PAYOUT_SUBMITTED", "PAID"],
  EXPIRED: ["EXPIRED"],
  FAILED: ["FAILED"]
}

let sequence = 0
const runId = Math.random().toString(36).slice(2, 8)
/** A fresh identifier, unique within the process and (very likely) across runs. */
const fresh = (prefix: string): string => `${prefix}-${runId}-${(++sequence).toString(36)}`
const hex32 = (label: string): string => {
  let h = ""
  for (const ch of label) h += ch.charCodeAt(0).toString(16).padStart(2, "0")
  return `0x${h.slice(-64).padStart(64, "0")}`
}

const T0 = 1_700_000_000_000
const FAR_FUTURE = 4_000_000_000

/** A permit record to issue; everything unique unless overridden. */
const permitOf = (overrides: Partial<PermitRecord> & Pick<PermitRecord, "assetKey">): PermitRecord => {
  const fillId = overrides.fillId ?? hex32(fresh("fill"))
  return {
    fillId,
    routeId: fresh("route"),
    quoteId: fresh("quote"),
    scope: fresh("0xpayer"),
    idempotencyKey: fresh("key"),
    fingerprint: fresh("fp"),
    payerAddress: null,
    amountInRaw: "1000",
    amountOutRaw: "100",
    state: "ISSUED",
    reasonCodes: [],
    sourceTxHash: null,
    payoutTxHash: null,
    validUntil: FAR_FUTURE,
    createdAt: T0,
    updatedAt: T0,
    envelope: JSON.stringify({ fillId }),
    ...overrides
  }
}

const balanceOf = (store: StoreShape, assetKey: string) =>
  store.inventory([assetKey]).pipe(
    Effect.flatMap((rows) =>
      rows.length === 1
        ? Effect.succeed(rows[0]!)
        : Effect.die(new Error(`inventory row ${assetKey}: ${rows.length} rows`))
    )
  )

const freshAsset = (store: StoreShape, configuredRaw: bigint) =>
  Effect.gen(function*() {
    const assetKey = hex32(fresh("asset"))
    yield* store.configureInventory([{ assetKey, configuredRaw }])
    return assetKey
  })

const issued = (result: IssueResult): PermitRecord => {
  if (result._tag !== "Issued") throw new Error(`expected Issued, got ${result._tag}`)
  return result.record
}

/** The figures of a balance that the lifecycle moves. */
const figures = (b: InventoryBalance) => ({
  configuredRaw: b.configuredRaw,
  paidOutRaw: b.paidOutRaw,
  holdRaw: b.holdRaw,
  liabilityRaw: b.liabilityRaw,
  clearingRaw: b.clearingRaw
})

/** The expected figures after moving `amount` from the bucket of `from` to the bucket of `to`. */
const moved = (b: InventoryBalance, from: PermitState, to: PermitState, amount: bigint) => {
  const f = figures(b)
  const take = (bucket: ReturnType<typeof bucketOf>, sign: 1n | -1n) => {
    switch (bucket) {
      case "hold":
        f.holdRaw += sign * amount
        break
      case "liability":
        f.liabilityRaw += sign * amount
        break
      case "clearing":
        f.clearingRaw += sign * amount
        break
      case "paid":
        f.paidOutRaw += sign * amount
        break
      case "none":
        break
    }
  }
  take(bucketOf(from), -1n)
  take(bucketOf(to), 1n)
  return f
}

/** Issues a permit on a fresh asset and walks it to `state`. */
const permitIn = (store: StoreShape, state: PermitState, amountOut = 100n) =>
  Effect.gen(function*() {
    const assetKey = yield* freshAsset(store, 10n * amountOut)
    let record = issued(yield* store.issuePermit(permitOf({ assetKey, amountOutRaw: amountOut.toString() })))
    let at = T0
    for (const to of PATH_TO[state]) {
      at += 1000
      const result = yield* store.transition({
        fillId: record.fillId,
        to,
        at,
        ...(to === "SOURCE_OBSERVED" ? { sourceTxHash: hex32(fresh("src")) } : {}),
        ...(to === "PAID" ? { payoutTxHash: hex32(fresh("pay")) } : {}),
        ...(to === "FAILED" ? { reasonCodes: ["TEST_FAILURE"] } : {})
      })
      if (result._tag !== "Applied") throw new Error(`walking to ${state}: ${to} was ${result._tag}`)
      record = result.record
    }
    return record
  })

/**
 * Registers the contract suite for a {@link Store} layer.
 *
 * @category testing
 * @since 0.1.0
 */
export const suite = (name: string, storeLayer: Layer.Layer<Store, unknown>): void => {
  describe(`Store contract: ${name}`, () => {
    layer(storeLayer, { excludeTestServices: true, timeout: "60 seconds" })((it) => {
      // ------------------------------------------------------------------ publications
      it.effect("kind names the implementation", () =>
        Effect.gen(function*() {
          const store = yield* Store
          assert.isString(store.kind)
          assert.isAbove(store.kind.length, 0)
        }))

      it.effect("nextDataVersion is strictly increasing, also under concurrency", () =>
        Effect.gen(function*() {
          const store = yield* Store
          let previous = yield* store.nextDataVersion
          assert.strictEqual(typeof previous, "bigint")
          for (let i = 0; i < 5; i++) {
            const next = yield* store.nextDataVersion
            assert.isTrue(next > previous, `${next} > ${previous}`)
            previous = next
          }
          const concurrent = yield* Effect.forEach(Array.from({ length: 20 }), () => store.nextDataVersion, {
            concurrency: "unbounded"
          })
          assert.strictEqual(new Set(concurrent.map(String)).size, concurrent.length, "all distinct")
          for (const v of concurrent) assert.isTrue(v > previous)
        }))

      it.effect("publications: latest, upsert, an older one refused, and dataVersion never below the latest one", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const current = yield* store.nextDataVersion
          const high = current + 1000n
          const publication = {
            dataVersion: high,
            feedHash: hex32("feed-a"),
            generatedAt: T0,
            validUntil: 1_700_000_300,
            routeCount: 3
          }
          assert.isTrue(yield* store.recordPublication(publication))
          assert.deepStrictEqual(yield* store.latestPublication, publication)
          // recording the same version again replaces it
          const replaced = { ...publication, feedHash: hex32("feed-b"), routeCount: 4 }
          assert.isTrue(yield* store.recordPublication(replaced))
          assert.deepStrictEqual(yield* store.latestPublication, replaced)
          // an older publication (a paused leader's, drawn before the newer one) is refused, not recorded
          const older = { ...publication, dataVersion: current, feedHash: hex32("feed-old") }
          assert.isFalse(yield* store.recordPublication(older))
          assert.deepStrictEqual(yield* store.latestPublication, replaced)
          assert.isFalse(yield* store.recordPublication({ ...older, dataVersion: high - 1n }))
          const next = yield* store.nextDataVersion
          assert.isTrue(next > high, `${next} > ${high}`)
        }))

      it.effect("publication documents: the newest one is read back, a version saved again is replaced, an older one never wins", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const base = (yield* store.nextDataVersion) + 100n
          for (let i = 0n; i < 20n; i++) {
            yield* store.savePublicationDocument({ dataVersion: base + i, document: `{"v":${base + i}}` })
          }
          assert.deepStrictEqual(yield* store.latestPublicationDocument, {
            dataVersion: base + 19n,
            document: `{"v":${base + 19n}}`
          })
          // saving the same version again replaces its document; an older one never becomes the newest
          yield* store.savePublicationDocument({ dataVersion: base + 19n, document: "{\"replaced\":true}" })
          yield* store.savePublicationDocument({ dataVersion: base + 10n, document: "{}" })
          assert.deepStrictEqual(yield* store.latestPublicationDocument, {
            dataVersion: base + 19n,
            document: "{\"replaced\":true}"
          })
        }))

      // ------------------------------------------------------------------ operator state
      it.effect("operator state: pause, resume, route overrides, version increments on every change", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const initial = yield* store.operatorState
          assert.isNumber(initial.version)
          const routeA = fresh("route")
          const routeB = fresh("route")

          const paused = yield* store.setPaused(true, "maintenance")
          assert.strictEqual(paused.version, initial.version + 1)
          assert.isTrue(paused.paused)
          assert.strictEqual(paused.pauseReason, "maintenance")

          const resumed = yield* store.setPaused(false, null)
          assert.strictEqual(resumed.version, initial.version + 2)
          assert.isFalse(resumed.paused)
          assert.isNull(resumed.pauseReason)

          const s1 = yield* store.setRouteOverride(routeA, { executionStatus: "PAUSED" })
          assert.strictEqual(s1.version, initial.version + 3)
          assert.deepStrictEqual(s1.routes[routeA], { executionStatus: "PAUSED" })

          const s2 = yield* store.setRouteOverride(routeB, { dailyStatus: "CLOSED" })
          assert.deepStrictEqual(s2.routes[routeB], { dailyStatus: "CLOSED" })
          assert.deepStrictEqual(s2.routes[routeA], { executionStatus: "PAUSED" })

          const s3 = yield* store.setRouteOverride(routeA, { executionStatus: "TEMP_UNAVAILABLE", dailyStatus: "OPEN" })
          assert.deepStrictEqual(s3.routes[routeA], { executionStatus: "TEMP_UNAVAILABLE", dailyStatus: "OPEN" })

          // an override with no fields removes the route's entry
          const s4 = yield* store.setRouteOverride(routeA, {})
          assert.isFalse(routeA in s4.routes)
          assert.deepStrictEqual(s4.routes[routeB], { dailyStatus: "CLOSED" })
          const s5 = yield* store.setRouteOverride(routeB, { executionStatus: undefined, dailyStatus: undefined })
          assert.isFalse(routeB in s5.routes)
          assert.strictEqual(s5.version, initial.version + 7)

          // a publication request changes the version and nothing else
          const s6 = yield* store.requestPublication
          assert.deepStrictEqual(s6, { ...s5, version: initial.version + 8 })

          assert.deepStrictEqual(yield* store.operatorState, s6)
        }))

      it.effect("payout pauses: per network key or '*', with the reason; resuming removes one; the version does not move", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const initial = yield* store.operatorState
          const network = fresh("network")
          const paused = yield* store.setPayoutsPaused(network, true, "incident 42")
          assert.deepStrictEqual(paused.payoutPauses[network], { reason: "incident 42" })
          assert.strictEqual(paused.version, initial.version)
          assert.isTrue(payoutsPaused(paused, network))
          assert.isFalse(payoutsPaused(paused, fresh("other")))
          const all = yield* store.setPayoutsPaused("*", true, null)
          assert.isTrue(payoutsPaused(all, fresh("other")))
          // resuming every network leaves the one paused by its key paused
          const some = yield* store.setPayoutsPaused("*", false, null)
          assert.isFalse("*" in some.payoutPauses)
          assert.isTrue(payoutsPaused(some, network))
          const again = yield* store.setPayoutsPaused(network, true, "moved on")
          assert.deepStrictEqual(again.payoutPauses[network], { reason: "moved on" })
          const none = yield* store.setPayoutsPaused(network, false, null)
          assert.deepStrictEqual(none.payoutPauses, initial.payoutPauses)
          assert.deepStrictEqual(yield* store.operatorState, none)
        }))

      // ------------------------------------------------------------------ inventory
      it.effect("configureInventory creates rows and later only changes the configured balance", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const a = hex32(fresh("asset"))
          const b = hex32(fresh("asset"))
          yield* store.configureInventory([{ assetKey: a, configuredRaw: 1000n }, { assetKey: b, configuredRaw: 5n }])
          const [rowA] = yield* store.inventory([a])
          assert.deepStrictEqual(figures(rowA!), {
            configuredRaw: 1000n,
            paidOutRaw: 0n,
            holdRaw: 0n,
            liabilityRaw: 0n,
            clearingRaw: 0n
          })
          assert.strictEqual(rowA!.assetKey, a)
          assert.isNumber(rowA!.updatedAt)

          issued(yield* store.issuePermit(permitOf({ assetKey: a, amountOutRaw: "300" })))
          yield* store.configureInventory([{ assetKey: a, configuredRaw: 2000n }])
          const after = yield* balanceOf(store, a)
          assert.strictEqual(after.configuredRaw, 2000n)
          assert.strictEqual(after.holdRaw, 300n, "the hold is kept")
          assert.strictEqual(availableOf(after), 1700n)

          const both = yield* store.inventory([b, a, hex32(fresh("unknown"))])
          assert.deepStrictEqual(both.map((r) => r.assetKey).sort(), [a, b].sort())
          assert.deepStrictEqual(yield* store.inventory([]), [])
          const all = yield* store.inventory()
          assert.includeMembers(all.map((r) => r.assetKey), [a, b])
          yield* store.configureInventory([])
        }))

      it.effect("amounts beyond 2^64 are kept exactly", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const configured = 2n ** 100n + 12_345n
          const amountOut = 2n ** 70n + 7n
          const amountIn = (2n ** 127n + 99n).toString()
          const assetKey = yield* freshAsset(store, configured)
          const record = issued(
            yield* store.issuePermit(permitOf({ assetKey, amountOutRaw: amountOut.toString(), amountInRaw: amountIn }))
          )
          assert.strictEqual(record.amountInRaw, amountIn)
          const read = yield* store.getPermit(record.fillId)
          assert.strictEqual(read?.amountInRaw, amountIn)
          assert.strictEqual(read?.amountOutRaw, amountOut.toString())
          assert.strictEqual((yield* balanceOf(store, assetKey)).holdRaw, amountOut)
          let at = T0
          for (const to of PATH_TO.PAID) {
            at += 1
            assert.strictEqual((yield* store.transition({ fillId: record.fillId, to, at }))._tag, "Applied")
          }
          const paid = yield* balanceOf(store, assetKey)
          assert.deepStrictEqual(figures(paid), {
            configuredRaw: configured,
            paidOutRaw: amountOut,
            holdRaw: 0n,
            liabilityRaw: 0n,
            clearingRaw: 0n
          })
          assert.strictEqual(physicalOf(paid), configured - amountOut)
          const big = 2n ** 64n * 3n + 1n
          yield* store.configureInventory([{ assetKey, configuredRaw: big }])
          assert.strictEqual((yield* balanceOf(store, assetKey)).configuredRaw, big)
        }))

      // ------------------------------------------------------------------ issuePermit
      it.effect("issuePermit: Issued, readable by fill id and idempotency key, counts permits_issued", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const assetKey = yield* freshAsset(store, 1000n)
          const input = permitOf({
            assetKey,
            amountOutRaw: "400",
            payerAddress: "0x" + "ab".repeat(20),
            reasonCodes: ["A", "B"]
          })
          const result = yield* store.issuePermit(input)
          assert.deepStrictEqual(result, { _tag: "Issued", record: input })
          assert.deepStrictEqual(yield* store.getPermit(input.fillId), input)
          assert.deepStrictEqual(yield* store.findByIdempotencyKey(input.scope, input.idempotencyKey), input)
          assert.isUndefined(yield* store.findByIdempotencyKey(input.scope, fresh("other-key")))
          assert.isUndefined(yield* store.findByIdempotencyKey(fresh("other-scope"), input.idempotencyKey))
          assert.isUndefined(yield* store.getPermit(hex32(fresh("missing"))))
          assert.strictEqual((yield* balanceOf(store, assetKey)).holdRaw, 400n)
          const counters = yield* store.routeCounters(input.routeId)
          assert.strictEqual(counters.permits_issued, 1)
          assert.isNotNull(counters.updatedAt)
        }))

      it.effect("issuePermit: the same (scope, key) answers Duplicate with the stored record", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const assetKey = yield* freshAsset(store, 1000n)
          const first = issued(yield* store.issuePermit(permitOf({ assetKey, amountOutRaw: "100" })))
          // another request under the same key: different fill id, fingerprint and amount
          const again = yield* store.issuePermit(
            permitOf({
              assetKey,
              scope: first.scope,
              idempotencyKey: first.idempotencyKey,
              fingerprint: "different",
              amountOutRaw: "5000"
            })
          )
          assert.deepStrictEqual(again, { _tag: "Duplicate", existing: first })
          // the same key in another scope is a different claim
          const otherScope = yield* store.issuePermit(
            permitOf({ assetKey, idempotencyKey: first.idempotencyKey, amountOutRaw: "100" })
          )
          assert.strictEqual(otherScope._tag, "Issued")
          assert.strictEqual((yield* balanceOf(store, assetKey)).holdRaw, 200n)
          // a Duplicate is answered even after the permit became terminal
          yield* store.transition({ fillId: first.fillId, to: "EXPIRED", at: T0 + 1 })
          const late = yield* store.issuePermit(
            permitOf({ assetKey, scope: first.scope, idempotencyKey: first.idempotencyKey })
          )
          assert.strictEqual(late._tag, "Duplicate")
          if (late._tag === "Duplicate") assert.strictEqual(late.existing.state, "EXPIRED")
          assert.strictEqual((yield* store.routeCounters(first.routeId)).permits_issued, 1)
        }))

      it.effect("issuePermit: UnknownAsset and InsufficientInventory write nothing", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const unknown = permitOf({ assetKey: hex32(fresh("no-such-asset")) })
          assert.deepStrictEqual(yield* store.issuePermit(unknown), { _tag: "UnknownAsset" })
          assert.isUndefined(yield* store.getPermit(unknown.fillId))
          assert.isUndefined(yield* store.findByIdempotencyKey(unknown.scope, unknown.idempotencyKey))

          const assetKey = yield* freshAsset(store, 1000n)
          issued(yield* store.issuePermit(permitOf({ assetKey, amountOutRaw: "700" })))
          const tooMuch = permitOf({ assetKey, amountOutRaw: "301" })
          assert.deepStrictEqual(yield* store.issuePermit(tooMuch), {
            _tag: "InsufficientInventory",
            availableRaw: 300n
          })
          assert.isUndefined(yield* store.getPermit(tooMuch.fillId))
          assert.isUndefined(yield* store.findByIdempotencyKey(tooMuch.scope, tooMuch.idempotencyKey))
          assert.strictEqual((yield* balanceOf(store, assetKey)).holdRaw, 700n)
          assert.strictEqual((yield* store.routeCounters(tooMuch.routeId)).permits_issued, 0)
          // exactly the available amount fits; then nothing is available
          issued(yield* store.issuePermit(permitOf({ assetKey, amountOutRaw: "300" })))
          const none = yield* store.issuePermit(permitOf({ assetKey, amountOutRaw: "1" }))
          assert.deepStrictEqual(none, { _tag: "InsufficientInventory", availableRaw: 0n })
          // the key of a rejected request stays free
          const retry = yield* store.issuePermit({ ...tooMuch, amountOutRaw: "0" })
          assert.strictEqual(retry._tag, "Issued")
        }))

      it.effect("issuePermit: 25 concurrent calls with the same (scope, key) issue exactly once", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const assetKey = yield* freshAsset(store, 1_000_000n)
          const scope = fresh("0xpayer")
          const idempotencyKey = fresh("key")
          const results = yield* Effect.forEach(
            Array.from({ length: 25 }),
            () => store.issuePermit(permitOf({ assetKey, scope, idempotencyKey, amountOutRaw: "1000" })),
            { concurrency: "unbounded" }
          )
          const winners = results.filter((r) => r._tag === "Issued")
          assert.strictEqual(winners.length, 1)
          const winner = issued(winners[0]!)
          for (const r of results) {
            if (r._tag === "Issued") continue
            assert.deepStrictEqual(r, { _tag: "Duplicate", existing: winner })
          }
          assert.strictEqual((yield* balanceOf(store, assetKey)).holdRaw, 1000n)
          assert.deepStrictEqual(yield* store.findByIdempotencyKey(scope, idempotencyKey), winner)
          assert.strictEqual((yield* store.routeCounters(winner.routeId)).permits_issued, 1)
        }))

      it.effect("issuePermit: concurrent claims of one key against different assets issue exactly once", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const assets = yield* Effect.forEach(Array.from({ length: 10 }), () => freshAsset(store, 1000n))
          const scope = fresh("0xpayer")
          const idempotencyKey = fresh("key")
          const results = yield* Effect.forEach(
            assets,
            (assetKey) => store.issuePermit(permitOf({ assetKey, scope, idempotencyKey, amountOutRaw: "10" })),
            { concurrency: "unbounded" }
          )
          const winners = results.filter((r) => r._tag === "Issued")
          assert.strictEqual(winners.length, 1)
          const winner = issued(winners[0]!)
          for (const r of results) {
            if (r._tag !== "Issued") assert.deepStrictEqual(r, { _tag: "Duplicate", existing: winner })
          }
          const holds = yield* store.inventory(assets)
          assert.strictEqual(holds.reduce((sum, b) => sum + b.holdRaw, 0n), 10n)
        }))

      it.effect(
        "issuePermit: concurrent distinct keys never reserve more than available (property)",
        () =>
          Effect.gen(function*() {
            const store = yield* Store
            const run = Effect.runPromiseWith(yield* Effect.context<never>())
            const property = fc.asyncProperty(
              fc.bigInt({ min: 0n, max: 2_000n }),
              fc.bigInt({ min: 0n, max: 500n }),
              fc.array(fc.bigInt({ min: 1n, max: 400n }), { minLength: 1, maxLength: 24 }),
              (configured, preHold, amounts) =>
                run(
                  Effect.gen(function*() {
                    const assetKey = yield* freshAsset(store, configured)
                    // an existing reservation first, when it fits
                    const before = preHold > 0n && preHold <= configured
                      ? issued(yield* store.issuePermit(permitOf({ assetKey, amountOutRaw: preHold.toString() })))
                        .amountOutRaw
                      : "0"
                    const available = configured - BigInt(before)
                    const results = yield* Effect.forEach(
                      amounts,
                      (amount) => store.issuePermit(permitOf({ assetKey, amountOutRaw: amount.toString() })),
                      { concurrency: "unbounded" }
                    )
                    let sum = 0n
                    results.forEach((r, i) => {
                      if (r._tag === "Issued") {
                        sum += BigInt(r.record.amountOutRaw)
                      } else {
                        assert.strictEqual(r._tag, "InsufficientInventory")
                        if (r._tag === "InsufficientInventory") assert.isTrue(r.availableRaw < amounts[i]!)
                      }
                    })
                    assert.isTrue(sum <= available, `issued ${sum} > available ${available}`)
                    const after = yield* balanceOf(store, assetKey)
                    assert.strictEqual(after.holdRaw, sum + BigInt(before))
                    assert.strictEqual(availableOf(after), available - sum)
                  })
                )
            )
            yield* Effect.promise(() => fc.assert(property, { numRuns: 15 }))
          }),
        { timeout: 120_000 }
      )

      // ------------------------------------------------------------------ transitions
      it.effect("transition: the happy path moves amountOut hold -> liability -> clearing -> paid", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const assetKey = yield* freshAsset(store, 1000n)
          const record = issued(yield* store.issuePermit(permitOf({ assetKey, amountOutRaw: "250" })))
          const expect = (f: Partial<ReturnType<typeof figures>>) =>
            balanceOf(store, assetKey).pipe(Effect.map((b) =>
              assert.deepStrictEqual(figures(b), {
                configuredRaw: 1000n,
                paidOutRaw: 0n,
                holdRaw: 0n,
                liabilityRaw: 0n,
                clearingRaw: 0n,
                ...f
              })
            ))
          yield* expect({ holdRaw: 250n })
          const sourceTxHash = hex32(fresh("src"))
          const observed = yield* store.transition({
            fillId: record.fillId,
            to: "SOURCE_OBSERVED",
            sourceTxHash,
            at: T0 + 1
          })
          assert.deepStrictEqual(observed, {
            _tag: "Applied",
            from: "ISSUED",
            record: { ...record, state: "SOURCE_OBSERVED", sourceTxHash, updatedAt: T0 + 1 }
          })
          yield* expect({ liabilityRaw: 250n })
          const confirmed = yield* store.transition({ fillId: record.fillId, to: "SOURCE_CONFIRMED", at: T0 + 2 })
          assert.strictEqual(confirmed._tag, "Applied")
          if (confirmed._tag === "Applied") assert.strictEqual(confirmed.record.sourceTxHash, sourceTxHash, "kept")
          yield* expect({ liabilityRaw: 250n })
          yield* store.transition({ fillId: record.fillId, to: "PAYOUT_SUBMITTED", at: T0 + 3 })
          yield* expect({ clearingRaw: 250n })
          const payoutTxHash = hex32(fresh("pay"))
          const paid = yield* store.transition({ fillId: record.fillId, to: "PAID", payoutTxHash, at: T0 + 4 })
          assert.deepStrictEqual(paid, {
            _tag: "Applied",
            from: "PAYOUT_SUBMITTED",
            record: { ...record, state: "PAID", sourceTxHash, payoutTxHash, updatedAt: T0 + 4 }
          })
          yield* expect({ paidOutRaw: 250n })
          const b = yield* balanceOf(store, assetKey)
          assert.strictEqual(physicalOf(b), 750n)
          assert.strictEqual(availableOf(b), 750n)
          assert.deepStrictEqual(
            yield* store.getPermit(record.fillId),
            paid._tag === "Applied" ? paid.record : undefined
          )
          const counters = yield* store.routeCounters(record.routeId)
          assert.strictEqual(counters.permits_issued, 1)
          assert.strictEqual(counters.source_observed, 1)
          assert.strictEqual(counters.paid, 1)
        }))

      it.effect(
        "transition: every allowed transition applies with the bucket arithmetic and counters",
        () =>
          Effect.gen(function*() {
            const store = yield* Store
            for (const from of STATES) {
              for (const to of nextStates(from)) {
                const record = yield* permitIn(store, from, 100n)
                const before = yield* balanceOf(store, record.assetKey)
                const countersBefore = yield* store.routeCounters(record.routeId)
                const result = yield* store.transition({
                  fillId: record.fillId,
                  to,
                  at: T0 + 99_000,
                  reasonCodes: to === "FAILED" ? ["SOME_REASON"] : undefined
                })
                assert.strictEqual(result._tag, "Applied", `${from} -> ${to}`)
                if (result._tag !== "Applied") continue
                assert.strictEqual(result.from, from)
                assert.deepStrictEqual(result.record, {
                  ...record,
                  state: to,
                  updatedAt: T0 + 99_000,
                  reasonCodes: to === "FAILED" ? ["SOME_REASON"] : record.reasonCodes,
                  sourceTxHash: to === "ISSUED" ? null : record.sourceTxHash
                })
                assert.deepStrictEqual(yield* store.getPermit(record.fillId), result.record)
                const after = yield* balanceOf(store, record.assetKey)
                assert.deepStrictEqual(figures(after), moved(before, from, to, 100n), `${from} -> ${to}`)
                const counters = yield* store.routeCounters(record.routeId)
                assert.strictEqual(
                  counters.source_observed,
                  countersBefore.source_observed + (to === "SOURCE_OBSERVED" ? 1 : 0)
                )
                assert.strictEqual(
                  counters.paid,
                  countersBefore.paid + (to === "PAID" ? 1 : 0) - (from === "PAID" ? 1 : 0)
                )
                assert.strictEqual(counters.permits_issued, 1)
              }
            }
          }),
        { timeout: 120_000 }
      )

      it.effect(
        "transition: every disallowed transition is Rejected and changes nothing",
        () =>
          Effect.gen(function*() {
            const store = yield* Store
            for (const from of STATES) {
              const record = yield* permitIn(store, from, 100n)
              const before = yield* balanceOf(store, record.assetKey)
              const countersBefore = yield* store.routeCounters(record.routeId)
              for (const to of STATES) {
                if (canTransition(from, to)) continue
                const result = yield* store.transition({
                  fillId: record.fillId,
                  to,
                  at: T0 + 99_000,
                  sourceTxHash: hex32("other-src"),
                  payoutTxHash: hex32("other-pay"),
                  reasonCodes: ["NOPE"]
                })
                assert.deepStrictEqual(result, { _tag: "Rejected", record }, `${from} -> ${to}`)
              }
              assert.deepStrictEqual(yield* store.getPermit(record.fillId), record)
              assert.deepStrictEqual(figures(yield* balanceOf(store, record.assetKey)), figures(before))
              const counters = yield* store.routeCounters(record.routeId)
              assert.deepStrictEqual({ ...counters, updatedAt: null }, { ...countersBefore, updatedAt: null })
            }
          }),
        { timeout: 120_000 }
      )

      it.effect("transition: EXPIRED and FAILED never change, PAID only back to PAYOUT_SUBMITTED; EXPIRED and FAILED release the amount", () =>
        Effect.gen(function*() {
          const store = yield* Store
          for (const terminal of ["PAID", "EXPIRED", "FAILED"] as const) {
            const record = yield* permitIn(store, terminal, 100n)
            for (const to of STATES) {
              if (terminal === "PAID" && to === "PAYOUT_SUBMITTED") continue
              const result = yield* store.transition({ fillId: record.fillId, to, at: T0 + 5_000_000 })
              assert.strictEqual(result._tag, "Rejected", `${terminal} -> ${to}`)
            }
            assert.strictEqual((yield* store.getPermit(record.fillId))?.state, terminal)
            const b = yield* balanceOf(store, record.assetKey)
            assert.strictEqual(b.holdRaw + b.liabilityRaw + b.clearingRaw, 0n)
            assert.strictEqual(b.paidOutRaw, terminal === "PAID" ? 100n : 0n)
            assert.strictEqual(availableOf(b), terminal === "PAID" ? 900n : 1000n)
          }
          // FAILED from a liability state releases the liability and stores the reasons
          const confirmed = yield* permitIn(store, "SOURCE_CONFIRMED", 100n)
          assert.strictEqual((yield* balanceOf(store, confirmed.assetKey)).liabilityRaw, 100n)
          const failed = yield* store.transition({
            fillId: confirmed.fillId,
            to: "FAILED",
            reasonCodes: ["PAYOUT_REVERTED", "X"],
            at: T0 + 7
          })
          assert.strictEqual(failed._tag, "Applied")
          assert.deepStrictEqual((yield* store.getPermit(confirmed.fillId))?.reasonCodes, ["PAYOUT_REVERTED", "X"])
          assert.strictEqual((yield* balanceOf(store, confirmed.assetKey)).liabilityRaw, 0n)
          // and from clearing
          const submitted = yield* permitIn(store, "PAYOUT_SUBMITTED", 100n)
          yield* store.transition({ fillId: submitted.fillId, to: "FAILED", at: T0 + 8 })
          const b = yield* balanceOf(store, submitted.assetKey)
          assert.strictEqual(b.clearingRaw, 0n)
          assert.strictEqual(availableOf(b), 1000n)
        }))

      it.effect("transition: with `from`, an allowed change applies only while the permit is in that state", () =>
        Effect.gen(function*() {
          const store = yield* Store
          // PAYOUT_SUBMITTED is reached from SOURCE_CONFIRMED (a payout) and from PAID (a reopening): a payout
          // started on a SOURCE_CONFIRMED reading of a permit PAID since is refused, and changes nothing
          const paid = yield* permitIn(store, "PAID", 100n)
          const before = yield* balanceOf(store, paid.assetKey)
          const stale = yield* store.transition({
            fillId: paid.fillId,
            to: "PAYOUT_SUBMITTED",
            from: "SOURCE_CONFIRMED",
            payoutTxHash: hex32("stale-pay"),
            at: T0 + 9_000
          })
          assert.deepStrictEqual(stale, { _tag: "Rejected", record: paid })
          assert.deepStrictEqual(yield* store.getPermit(paid.fillId), paid)
          assert.deepStrictEqual(figures(yield* balanceOf(store, paid.assetKey)), figures(before))
          // the reopening names PAID and applies; from the state it is in, a change applies as without `from`
          const reopened = yield* store.transition({
            fillId: paid.fillId,
            to: "PAYOUT_SUBMITTED",
            from: "PAID",
            at: T0 + 9_001
          })
          assert.strictEqual(reopened._tag, "Applied")
          const confirmed = yield* permitIn(store, "SOURCE_CONFIRMED", 100n)
          assert.strictEqual(
            (yield* store.transition({
              fillId: confirmed.fillId,
              to: "PAYOUT_SUBMITTED",
              from: "PAID",
              at: T0 + 9_002
            }))
              ._tag,
            "Rejected"
          )
          assert.strictEqual(
            (yield* store.transition({
              fillId: confirmed.fillId,
              to: "PAYOUT_SUBMITTED",
              from: "SOURCE_CONFIRMED",
              at: T0 + 9_003
            }))._tag,
            "Applied"
          )
        }))

      it.effect("setPaidPayout: a PAID permit's payout hash and updatedAt change, nothing else; any other state, nothing", () =>
        Effect.gen(function*() {
          const store = yield* Store
          if (store.setPaidPayout === undefined) return
          const paid = yield* permitIn(store, "PAID", 100n)
          const before = yield* balanceOf(store, paid.assetKey)
          const counters = yield* store.routeCounters(paid.routeId)
          const other = hex32("paid-elsewhere")
          const updated = yield* store.setPaidPayout(paid.fillId, other.toUpperCase().replace("0X", "0x"), T0 + 9_500)
          assert.deepStrictEqual(updated, { ...paid, payoutTxHash: other, updatedAt: T0 + 9_500 })
          assert.deepStrictEqual(yield* store.getPermit(paid.fillId), updated)
          assert.deepStrictEqual(figures(yield* balanceOf(store, paid.assetKey)), figures(before))
          assert.deepStrictEqual(
            { ...(yield* store.routeCounters(paid.routeId)), updatedAt: null },
            { ...counters, updatedAt: null }
          )
          const submitted = yield* permitIn(store, "PAYOUT_SUBMITTED", 100n)
          assert.isUndefined(yield* store.setPaidPayout(submitted.fillId, other, T0 + 9_501))
          assert.deepStrictEqual(yield* store.getPermit(submitted.fillId), submitted)
          assert.isUndefined(yield* store.setPaidPayout(hex32(fresh("missing-paid")), other, T0 + 9_502))
        }))

      it.effect("transition: an unknown fill id is NotFound", () =>
        Effect.gen(function*() {
          const store = yield* Store
          assert.deepStrictEqual(
            yield* store.transition({ fillId: hex32(fresh("missing")), to: "EXPIRED", at: T0 }),
            { _tag: "NotFound" }
          )
        }))

      it.effect("transition: concurrent transitions of one permit apply once", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const record = yield* permitIn(store, "ISSUED", 100n)
          const results = yield* Effect.forEach(
            ["EXPIRED", "FAILED", "SOURCE_OBSERVED", "EXPIRED", "FAILED", "SOURCE_OBSERVED"] as const,
            (to) => store.transition({ fillId: record.fillId, to, at: T0 + 1 }),
            { concurrency: "unbounded" }
          )
          const applied = results.filter((r) => r._tag === "Applied")
          // ISSUED -> SOURCE_OBSERVED may be followed by -> FAILED; never more than two, never two from ISSUED
          assert.isAtLeast(applied.length, 1)
          assert.strictEqual(applied.filter((r) => r._tag === "Applied" && r.from === "ISSUED").length, 1)
          const final = yield* store.getPermit(record.fillId)
          const b = yield* balanceOf(store, record.assetKey)
          const expected = bucketOf(final!.state)
          assert.strictEqual(b.holdRaw, expected === "hold" ? 100n : 0n)
          assert.strictEqual(b.liabilityRaw, expected === "liability" ? 100n : 0n)
          assert.strictEqual(b.clearingRaw, 0n)
        }))

      // ------------------------------------------------------------------ queries
      it.effect("findBySourceTx finds a permit by its source transaction (hex case-insensitive)", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const record = yield* permitIn(store, "SOURCE_OBSERVED")
          assert.isNotNull(record.sourceTxHash)
          assert.deepStrictEqual(yield* store.findBySourceTx(record.sourceTxHash!), record)
          assert.deepStrictEqual(
            yield* store.findBySourceTx(record.sourceTxHash!.toUpperCase().replace("0X", "0x")),
            record
          )
          assert.isUndefined(yield* store.findBySourceTx(hex32(fresh("nope"))))
        }))

      it.effect("listPermits: newest first, by quoteId and/or payerAddress (case-insensitive), limit", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const assetKey = yield* freshAsset(store, 1_000_000n)
          const quoteId = fresh("quote")
          const otherQuote = fresh("quote")
          const payer = "0x" + hex32(fresh("payer")).slice(-40)
          const other = "0x" + "d".repeat(40)
          const make = (createdAt: number, q: string, p: string | null, fillId?: string) =>
            store.issuePermit(permitOf({
              assetKey,
              quoteId: q,
              payerAddress: p,
              createdAt,
              updatedAt: createdAt,
              ...(fillId === undefined ? {} : { fillId })
            })).pipe(Effect.map(issued))
          const p1 = yield* make(T0 + 1, quoteId, payer)
          const p3 = yield* make(T0 + 3, quoteId, other)
          const p2 = yield* make(T0 + 2, otherQuote, payer)
          // same created_at: ordered by fill id
          const p4b = yield* make(T0 + 4, quoteId, payer, hex32(fresh("fill-b")).replace(/^0x0/, "0xb"))
          const p4a = yield* make(T0 + 4, quoteId, payer, hex32(fresh("fill-a")).replace(/^0x0/, "0xa"))
          const ids = (rs: ReadonlyArray<PermitRecord>) => rs.map((r) => r.fillId)

          assert.deepStrictEqual(ids(yield* store.listPermits({ quoteId, limit: 20 })), ids([p4a, p4b, p3, p1]))
          assert.deepStrictEqual(
            ids(yield* store.listPermits({ payerAddress: payer.toUpperCase().replace("0X", "0x"), limit: 20 })),
            ids([p4a, p4b, p2, p1])
          )
          assert.deepStrictEqual(
            ids(yield* store.listPermits({ quoteId, payerAddress: payer, limit: 20 })),
            ids([p4a, p4b, p1])
          )
          assert.deepStrictEqual(ids(yield* store.listPermits({ quoteId, limit: 2 })), ids([p4a, p4b]))
          assert.deepStrictEqual(yield* store.listPermits({ quoteId, limit: 0 }), [])
          assert.deepStrictEqual(yield* store.listPermits({ quoteId: fresh("none"), limit: 20 }), [])
          assert.deepStrictEqual((yield* store.listPermits({ quoteId, limit: 1 }))[0], p4a)
        }))

      it.effect("dueForExpiry lists ISSUED permits with validUntil at or before the cutoff", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const assetKey = yield* freshAsset(store, 1_000_000n)
          const at = (validUntil: number) =>
            store.issuePermit(permitOf({ assetKey, validUntil })).pipe(Effect.map(issued))
          const a = yield* at(1_000)
          const b = yield* at(2_000)
          const c = yield* at(3_000)
          const observed = yield* at(1_500)
          yield* store.transition({ fillId: observed.fillId, to: "SOURCE_OBSERVED", at: T0 })

          assert.deepStrictEqual(yield* store.dueForExpiry(999, 100), [])
          assert.deepStrictEqual(yield* store.dueForExpiry(2_000, 100), [a.fillId, b.fillId])
          assert.deepStrictEqual(yield* store.dueForExpiry(10_000, 100), [a.fillId, b.fillId, c.fillId])
          assert.deepStrictEqual(yield* store.dueForExpiry(10_000, 2), [a.fillId, b.fillId])
          // expiring them (as the server does) takes them off the list
          for (const p of [a, b, c]) yield* store.transition({ fillId: p.fillId, to: "EXPIRED", at: T0 })
          assert.deepStrictEqual(yield* store.dueForExpiry(10_000, 100), [])
          assert.strictEqual((yield* balanceOf(store, assetKey)).holdRaw, 0n)
        }))

      // ------------------------------------------------------------------ counters
      it.effect("route counters: zeros for an unknown route, addCounters accumulates", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const route = fresh("route")
          const other = fresh("route")
          assert.deepStrictEqual(yield* store.routeCounters(route), {
            feed_exposures: 0,
            permit_requests: 0,
            permits_issued: 0,
            source_observed: 0,
            paid: 0,
            updatedAt: null
          })
          yield* store.addCounters([
            { routeId: route, counter: "feed_exposures", by: 3 },
            { routeId: route, counter: "permit_requests", by: 1 },
            { routeId: other, counter: "feed_exposures", by: 10 }
          ])
          yield* store.addCounters([
            { routeId: route, counter: "feed_exposures", by: 2 },
            { routeId: route, counter: "permit_requests", by: 1 }
          ])
          yield* store.addCounters([])
          const counters = yield* store.routeCounters(route)
          assert.deepStrictEqual({ ...counters, updatedAt: null }, {
            feed_exposures: 5,
            permit_requests: 2,
            permits_issued: 0,
            source_observed: 0,
            paid: 0,
            updatedAt: null
          })
          assert.isNumber(counters.updatedAt)
          assert.strictEqual((yield* store.routeCounters(other)).feed_exposures, 10)
          // concurrent additions are not lost
          yield* Effect.forEach(
            Array.from({ length: 20 }),
            () => store.addCounters([{ routeId: route, counter: "permit_requests", by: 1 }]),
            { concurrency: "unbounded" }
          )
          assert.strictEqual((yield* store.routeCounters(route)).permit_requests, 22)
        }))

      // ------------------------------------------------------------------ quotes
      it.effect("quotes: save, replace, get, prune", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const quote = (expiresAt: number, userAddress: string | null = null) => ({
            quoteToken: fresh("token"),
            quoteId: fresh("quote"),
            routeId: fresh("route"),
            userAddress,
            body: JSON.stringify({ amountOut: (2n ** 80n).toString(), nested: { a: [1, 2] } }),
            expiresAt,
            createdAt: T0
          })
          const q1 = quote(100, "0x" + "1".repeat(40))
          const q2 = quote(200)
          const q3 = quote(300)
          yield* store.saveQuote(q1)
          yield* store.saveQuote(q2)
          yield* store.saveQuote(q3)
          assert.deepStrictEqual(yield* store.getQuote(q1.quoteToken), q1)
          assert.deepStrictEqual(yield* store.getQuote(q2.quoteToken), q2)
          assert.isUndefined(yield* store.getQuote(fresh("token")))
          const replaced = { ...q2, body: "{}", expiresAt: 250, userAddress: "0x" + "2".repeat(40) }
          yield* store.saveQuote(replaced)
          assert.deepStrictEqual(yield* store.getQuote(q2.quoteToken), replaced)

          assert.strictEqual(yield* store.pruneQuotes(100), 0, "expiresAt equal to `before` is kept")
          assert.strictEqual(yield* store.pruneQuotes(251), 2)
          assert.isUndefined(yield* store.getQuote(q1.quoteToken))
          assert.isUndefined(yield* store.getQuote(q2.quoteToken))
          assert.deepStrictEqual(yield* store.getQuote(q3.quoteToken), q3)
          assert.strictEqual(yield* store.pruneQuotes(251), 0)
          assert.strictEqual(yield* store.pruneQuotes(1_000), 1)
        }))

      // ------------------------------------------------------------------ chain settlement
      it.effect("transition: SOURCE_OBSERVED -> ISSUED (a reorganised fill) forgets the source transaction and moves the liability back to the hold", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const record = yield* permitIn(store, "SOURCE_OBSERVED", 100n)
          assert.isNotNull(record.sourceTxHash)
          const back = yield* store.transition({ fillId: record.fillId, to: "ISSUED", at: T0 + 9 })
          assert.strictEqual(back._tag, "Applied")
          const read = yield* store.getPermit(record.fillId)
          assert.strictEqual(read?.state, "ISSUED")
          assert.isNull(read?.sourceTxHash)
          assert.isUndefined(yield* store.findBySourceTx(record.sourceTxHash!))
          const b = yield* balanceOf(store, record.assetKey)
          assert.strictEqual(b.holdRaw, 100n)
          assert.strictEqual(b.liabilityRaw, 0n)
          // observed again, by another transaction
          const again = yield* store.transition({
            fillId: record.fillId,
            to: "SOURCE_OBSERVED",
            sourceTxHash: hex32(fresh("tx")),
            at: T0 + 10
          })
          assert.strictEqual(again._tag, "Applied")
          assert.strictEqual((yield* balanceOf(store, record.assetKey)).liabilityRaw, 100n)
          // a confirmed fill goes back too (finality by depth), its liability to the hold; once paid out it cannot
          yield* store.transition({ fillId: record.fillId, to: "SOURCE_CONFIRMED", at: T0 + 11 })
          const back2 = yield* store.transition({ fillId: record.fillId, to: "ISSUED", at: T0 + 12 })
          assert.strictEqual(back2._tag, "Applied")
          assert.isNull((yield* store.getPermit(record.fillId))?.sourceTxHash)
          assert.strictEqual((yield* balanceOf(store, record.assetKey)).holdRaw, 100n)
          const submitted = yield* permitIn(store, "PAYOUT_SUBMITTED", 100n)
          const refused = yield* store.transition({ fillId: submitted.fillId, to: "ISSUED", at: T0 + 12 })
          assert.strictEqual(refused._tag, "Rejected")
        }))

      it.effect("transition: PAID -> PAYOUT_SUBMITTED (a payout that left the chain) owes the amount again and uncounts the payout", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const record = yield* permitIn(store, "PAID", 100n)
          assert.strictEqual((yield* store.routeCounters(record.routeId)).paid, 1)
          const reopened = yield* store.transition({
            fillId: record.fillId,
            to: "PAYOUT_SUBMITTED",
            reasonCodes: ["PAYOUT_LEFT_CHAIN"],
            at: T0 + 20_000
          })
          assert.strictEqual(reopened._tag, "Applied")
          const read = yield* store.getPermit(record.fillId)
          assert.strictEqual(read?.state, "PAYOUT_SUBMITTED")
          assert.strictEqual(read?.payoutTxHash, record.payoutTxHash)
          assert.deepStrictEqual(read?.reasonCodes, ["PAYOUT_LEFT_CHAIN"])
          const b = yield* balanceOf(store, record.assetKey)
          assert.strictEqual(b.paidOutRaw, 0n)
          assert.strictEqual(b.clearingRaw, 100n)
          assert.strictEqual(physicalOf(b), 1000n)
          assert.strictEqual((yield* store.routeCounters(record.routeId)).paid, 0)
          // paid again: counted once
          yield* store.transition({ fillId: record.fillId, to: "PAID", at: T0 + 20_001 })
          assert.strictEqual((yield* store.routeCounters(record.routeId)).paid, 1)
          assert.strictEqual((yield* balanceOf(store, record.assetKey)).paidOutRaw, 100n)
        }))

      it.effect("permitsInStates lists permits of the given states, oldest first, up to the limit", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const a = yield* permitIn(store, "SOURCE_CONFIRMED")
          const b = yield* permitIn(store, "PAYOUT_SUBMITTED")
          const c = yield* permitIn(store, "PAID")
          const listed = yield* store.permitsInStates(["SOURCE_CONFIRMED", "PAYOUT_SUBMITTED"], 10_000)
          const ids = listed.map((p) => p.fillId)
          assert.include(ids, a.fillId)
          assert.include(ids, b.fillId)
          assert.notInclude(ids, c.fillId)
          assert.isTrue(listed.every((p) => p.state === "SOURCE_CONFIRMED" || p.state === "PAYOUT_SUBMITTED"))
          for (let i = 1; i < listed.length; i++) assert.isAtMost(listed[i - 1]!.createdAt, listed[i]!.createdAt)
          assert.strictEqual((yield* store.permitsInStates(["SOURCE_CONFIRMED"], 1)).length, 1)
          assert.deepStrictEqual(yield* store.permitsInStates([], 10), [])
          assert.deepStrictEqual(yield* store.permitsInStates(["PAID"], 0), [])
          // newest first: the reverse order, and the limit keeps the newest
          const newest = yield* store.permitsInStates(["SOURCE_CONFIRMED", "PAYOUT_SUBMITTED"], 10_000, {
            newestFirst: true
          })
          assert.deepStrictEqual(newest.map((p) => p.fillId), [...ids].reverse())
          const [last] = yield* store.permitsInStates(["SOURCE_CONFIRMED", "PAYOUT_SUBMITTED"], 1, {
            newestFirst: true
          })
          assert.strictEqual(last?.fillId, ids.at(-1))
        }))

      it.effect("observeInventory sets the physical balance whatever was paid out; unknown assets are ignored", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const paid = yield* permitIn(store, "PAID", 100n)
          assert.strictEqual(physicalOf(yield* balanceOf(store, paid.assetKey)), 900n)
          yield* store.observeInventory([
            { assetKey: paid.assetKey, physicalRaw: 2n ** 70n },
            { assetKey: hex32(fresh("no-such-asset")), physicalRaw: 5n }
          ])
          const b = yield* balanceOf(store, paid.assetKey)
          assert.strictEqual(physicalOf(b), 2n ** 70n)
          assert.strictEqual(b.paidOutRaw, 100n)
          assert.deepStrictEqual(yield* store.inventory([hex32(fresh("no-such-asset"))]), [])
        }))

      it.effect("chain cursors: the final block read is kept with the cursor; chainCursors lists every network", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const networkId = hex32(fresh("network"))
          const cursor = {
            networkId,
            blockNumber: 1000n,
            blockHash: hex32(fresh("block")),
            blockTimestamp: 1_700_000_123,
            updatedAt: T0,
            finalBlockNumber: 998n,
            finalBlockTimestamp: 1_700_000_121
          }
          yield* store.saveChainCursor(cursor)
          assert.deepStrictEqual(yield* store.chainCursor(networkId), cursor)
          const listed = yield* store.chainCursors
          assert.deepStrictEqual(listed.find((c) => c.networkId === networkId), cursor)
          // a cursor saved without one has none
          const { finalBlockNumber: _n, finalBlockTimestamp: _t, ...plain } = cursor
          yield* store.saveChainCursor({ ...plain, blockNumber: 1001n })
          assert.deepStrictEqual(yield* store.chainCursor(networkId), { ...plain, blockNumber: 1001n })
        }))

      it.effect("permits by network: permitsInStates and dueForExpiry filter by source or destination network and last change", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const [src, dst, other] = [hex32(fresh("src")), hex32(fresh("dst")), hex32(fresh("other"))]
          const assetKey = yield* freshAsset(store, 10_000n)
          const mine = issued(
            yield* store.issuePermit(
              permitOf({ assetKey, sourceNetworkId: src, destinationNetworkId: dst, validUntil: 1000 })
            )
          )
          const theirs = issued(
            yield* store.issuePermit(
              permitOf({ assetKey, sourceNetworkId: other, destinationNetworkId: other, validUntil: 1000 })
            )
          )
          assert.strictEqual(mine.sourceNetworkId, src)
          assert.deepStrictEqual(yield* store.getPermit(mine.fillId), mine)
          const ids = (rs: ReadonlyArray<{ readonly fillId: string }>) => rs.map((r) => r.fillId)
          assert.deepStrictEqual(ids(yield* store.permitsInStates(["ISSUED"], 100, { sourceNetworkId: src })), [
            mine.fillId
          ])
          assert.deepStrictEqual(
            ids(
              yield* store.permitsInStates(["ISSUED"], 100, {
                destinationNetworkId: dst.toUpperCase().replace("0X", "0x")
              })
            ),
            [mine.fillId]
          )
          assert.include(ids(yield* store.permitsInStates(["ISSUED"], 10_000)), theirs.fillId)
          assert.deepStrictEqual(yield* store.dueForExpiry(1000, 100, { sourceNetworkId: src }), [mine.fillId])
          assert.deepStrictEqual(yield* store.dueForExpiry(999, 100, { sourceNetworkId: src }), [])
          const moved = yield* store.transition({
            fillId: mine.fillId,
            to: "SOURCE_OBSERVED",
            sourceTxHash: hex32(fresh("tx")),
            at: T0 + 50_000
          })
          assert.strictEqual(moved._tag, "Applied")
          const since = (t: number) =>
            store.permitsInStates(["SOURCE_OBSERVED"], 100, { sourceNetworkId: src, updatedSince: t })
          assert.deepStrictEqual(ids(yield* since(T0 + 50_000)), [mine.fillId])
          assert.deepStrictEqual(ids(yield* since(T0 + 50_001)), [])
        }))

      it.effect("setReasonCodes replaces the reason codes only (state, updatedAt and the rest unchanged)", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const record = yield* permitIn(store, "SOURCE_CONFIRMED")
          const updated = yield* store.setReasonCodes(record.fillId, ["VAULT_INSUFFICIENT"])
          assert.deepStrictEqual(updated, { ...record, reasonCodes: ["VAULT_INSUFFICIENT"] })
          assert.deepStrictEqual(yield* store.getPermit(record.fillId), updated)
          assert.isUndefined(yield* store.setReasonCodes(hex32(fresh("missing")), []))
        }))

      it.effect("chain cursors: saved per network, replaced, read back exactly", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const networkId = hex32(fresh("network"))
          assert.isUndefined(yield* store.chainCursor(networkId))
          const cursor = {
            networkId,
            blockNumber: 2n ** 60n,
            blockHash: hex32(fresh("block")),
            blockTimestamp: 1_700_000_123,
            updatedAt: T0
          }
          yield* store.saveChainCursor(cursor)
          assert.deepStrictEqual(yield* store.chainCursor(networkId), cursor)
          const next = { ...cursor, blockNumber: 2n ** 60n + 1n, blockHash: hex32(fresh("block")), updatedAt: T0 + 1 }
          yield* store.saveChainCursor(next)
          assert.deepStrictEqual(yield* store.chainCursor(networkId.toUpperCase().replace("0X", "0x")), next)
        }))

      it.effect("payout intents: every transaction of a fill kept, the newest first for payoutIntent, read back exactly", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const record = yield* permitIn(store, "SOURCE_CONFIRMED")
          assert.isUndefined(yield* store.payoutIntent(record.fillId))
          assert.deepStrictEqual(yield* store.payoutIntents(record.fillId), [])
          const intent = {
            fillId: record.fillId,
            networkId: hex32(fresh("network")),
            txHash: hex32(fresh("tx")),
            rawTransaction: "0x02f8" + "ab".repeat(100),
            nonce: 7,
            sender: "0x" + "3".repeat(40),
            attempt: 1,
            createdAt: T0
          }
          yield* store.savePayoutIntent(intent)
          assert.deepStrictEqual(yield* store.payoutIntent(record.fillId), intent)
          // a fee replacement at the same nonce, with its fees and the head it was signed at
          const second = {
            ...intent,
            txHash: hex32(fresh("tx")),
            attempt: 2,
            createdAt: T0 + 1,
            maxFeePerGas: 2n ** 70n,
            maxPriorityFeePerGas: 3n,
            headBlock: 2n ** 60n
          }
          yield* store.savePayoutIntent(second)
          // the same transaction again changes nothing
          yield* store.savePayoutIntent({ ...intent, attempt: 9 })
          assert.deepStrictEqual(yield* store.payoutIntent(record.fillId), second)
          assert.deepStrictEqual(yield* store.payoutIntents(record.fillId), [intent, second])
          yield* store.markPayoutIntent(intent.txHash.toUpperCase().replace("0X", "0x"), "REVERTED")
          assert.deepStrictEqual(yield* store.payoutIntents(record.fillId), [
            { ...intent, outcome: "REVERTED" },
            second
          ])
          yield* store.markPayoutIntent(intent.txHash, "RETRIED")
          assert.strictEqual((yield* store.payoutIntents(record.fillId))[0]?.outcome, "RETRIED")
        }))

      it.effect("openPayoutIntents: a network's and sender's transactions from a nonce up, of PAYOUT_SUBMITTED permits, by nonce", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const networkId = hex32(fresh("network"))
          const sender = "0x" + "4".repeat(40)
          const intentOf = (fillId: string, nonce: number, attempt = 1) => ({
            fillId,
            networkId,
            txHash: hex32(fresh("tx")),
            rawTransaction: "0x01",
            nonce,
            sender,
            attempt,
            createdAt: T0 + nonce
          })
          const a = yield* permitIn(store, "PAYOUT_SUBMITTED")
          const b = yield* permitIn(store, "PAYOUT_SUBMITTED")
          const paid = yield* permitIn(store, "PAID")
          const a5 = intentOf(a.fillId, 5)
          const a5b = intentOf(a.fillId, 5, 2)
          const b6 = intentOf(b.fillId, 6)
          const b3 = intentOf(b.fillId, 3)
          const p7 = intentOf(paid.fillId, 7)
          for (const i of [b6, a5b, p7, a5, b3]) yield* store.savePayoutIntent(i)
          yield* store.savePayoutIntent({ ...intentOf(a.fillId, 9), sender: "0x" + "5".repeat(40) })
          yield* store.savePayoutIntent({ ...intentOf(a.fillId, 10), networkId: hex32(fresh("elsewhere")) })
          const open = yield* store.openPayoutIntents(networkId, sender, 4)
          assert.deepStrictEqual(open.map((i) => i.txHash), [a5.txHash, a5b.txHash, b6.txHash])
        }))

      it.effect("hold shares: one client's or one payer's unfilled holds stay within their share; a fill frees it", () =>
        Effect.gen(function*() {
          const store = yield* Store
          const assetKey = yield* freshAsset(store, 10_000n)
          const shares = { clientBps: 2500, payerBps: 5000 }
          const ask = (amount: number, clientKey: string | null, scope = fresh("0xpayer")) =>
            store.issuePermit(permitOf({ assetKey, amountOutRaw: String(amount), clientKey, scope }), shares)
          const a = fresh("client-a")
          const first = issued(yield* ask(2000, a))
          assert.strictEqual(first.clientKey, a)
          assert.strictEqual((yield* store.getPermit(first.fillId))?.clientKey, a)
          issued(yield* ask(500, a))
          assert.deepStrictEqual(yield* ask(1, a), {
            _tag: "HoldShareExceeded",
            holder: "CLIENT",
            heldRaw: 2500n,
            limitRaw: 2500n
          })
          // another client has its own share; a request without a client key has no client cap
          issued(yield* ask(2500, fresh("client-b")))
          issued(yield* ask(100, null))
          // one payer across clients, on an asset of its own: 50%
          const other = yield* freshAsset(store, 10_000n)
          const payer = fresh("0xpayer")
          const askOther = (amount: number) =>
            store.issuePermit(
              permitOf({ assetKey: other, amountOutRaw: String(amount), clientKey: fresh("client"), scope: payer }),
              shares
            )
          issued(yield* askOther(2500))
          issued(yield* askOther(2000))
          assert.deepStrictEqual(yield* askOther(501), {
            _tag: "HoldShareExceeded",
            holder: "PAYER",
            heldRaw: 4500n,
            limitRaw: 5000n
          })
          // a source fill turns the hold into a liability: the client's share is free again
          const applied = yield* store.transition({
            fillId: first.fillId,
            to: "SOURCE_OBSERVED",
            at: T0 + 1,
            sourceTxHash: hex32(fresh("src"))
          })
          assert.strictEqual(applied._tag, "Applied")
          issued(yield* ask(2000, a))
          // without shares, nothing is capped but the inventory
          issued(yield* store.issuePermit(permitOf({ assetKey, amountOutRaw: "1", clientKey: a })))
        }))

      // ------------------------------------------------------------------ retention
      it.effect("prunePermits: old terminal permits go, with their payout intents, oldest first; live ones stay", () =>
        Effect.gen(function*() {
          const store = yield* Store
          // long before every other case's permits (T0), so that no other case is touched
          const OLD = 1_000_000_000_000
          const assetKey = yield* freshAsset(store, 10_000n)
          const issueOld = (at: number) =>
            Effect.map(
              store.issuePermit(permitOf({ assetKey, createdAt: at, updatedAt: at })),
              issued
            )
          const walk = (fillId: string, path: ReadonlyArray<PermitState>, at: number) =>
            Effect.forEach(path, (to, i) =>
              store.transition({
                fillId,
                to,
                at: at + i,
                ...(to === "SOURCE_OBSERVED" ? { sourceTxHash: hex32(fresh("src")) } : {}),
                ...(to === "PAID" ? { payoutTxHash: hex32(fresh("pay")) } : {}),
                ...(to === "FAILED" ? { reasonCodes: ["TEST_FAILURE"] } : {})
              }), { discard: true })
          const expired = yield* issueOld(OLD)
          yield* walk(expired.fillId, ["EXPIRED"], OLD + 10)
          const failed = yield* issueOld(OLD)
          yield* walk(failed.fillId, ["FAILED"], OLD + 20)
          const paid = yield* issueOld(OLD)
          yield* walk(paid.fillId, PATH_TO["PAID"], OLD + 30)
          yield* store.savePayoutIntent({
            fillId: paid.fillId,
            networkId: hex32(fresh("network")),
            txHash: hex32(fresh("tx")),
            rawTransaction: "0x02",
            nonce: 1,
            sender: "0x" + "3".repeat(40),
            attempt: 1,
            createdAt: OLD
          })
          const live = yield* issueOld(OLD)
          const confirmed = yield* issueOld(OLD)
          yield* walk(confirmed.fillId, ["SOURCE_OBSERVED", "SOURCE_CONFIRMED"], OLD + 40)

          // the limit takes the oldest first
          assert.strictEqual(yield* store.prunePermits(OLD + 1000, 1), 1)
          assert.isUndefined(yield* store.getPermit(expired.fillId))
          assert.isDefined(yield* store.getPermit(failed.fillId))
          assert.strictEqual(yield* store.prunePermits(OLD + 1000, 100), 2)
          for (const gone of [failed, paid]) assert.isUndefined(yield* store.getPermit(gone.fillId))
          assert.isUndefined(yield* store.payoutIntent(paid.fillId))
          // live permits stay, however old; nothing else is left to prune
          assert.strictEqual((yield* store.getPermit(live.fillId))?.state, "ISSUED")
          assert.strictEqual((yield* store.getPermit(confirmed.fillId))?.state, "SOURCE_CONFIRMED")
          assert.strictEqual(yield* store.prunePermits(OLD + 1000, 100), 0)
          // the idempotency key of a pruned permit is free again (its quote is long gone)
          assert.isUndefined(yield* store.findByIdempotencyKey(expired.scope, expired.idempotencyKey))
        }))
    })
  })
}
