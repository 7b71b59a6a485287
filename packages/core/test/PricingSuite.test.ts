/**
 * The pricing suite: the built-in static and oracle pricings pass it, and each
 * of its checks fails on a pricing broken in the way the check names.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Pricing } from "../src/index.ts"
import * as PricingSuite from "../src/testing/PricingSuite.ts"

PricingSuite.suite("static", Pricing.layerStatic())
PricingSuite.suite("oracle", Pricing.layerOracle())

const BPS = 10_000n

/** Static pricing with one part replaced. */
const broken = (patch: (base: Pricing.PricingShape) => Partial<Pricing.PricingShape>) =>
  Layer.sync(Pricing.Pricing, () => {
    const base = Pricing.makeStatic()
    return { ...base, ...patch(base) }
  })

const BROKEN: Record<string, Layer.Layer<Pricing.Pricing>> = {
  // a new reference on every reading
  "indicative: a positive rate with a pricingReferenceId that is the same while the price does not move": broken((
    base
  ) => {
    let n = 0
    return {
      indicative: (route) =>
        Effect.map(base.indicative(route), (t) => ({
          ...t,
          pricingReferenceId: `0x${(++n).toString(16).padStart(64, "0")}` as const
        }))
    }
  }),
  // amountOut rounded up
  "quote: amounts round down (never more out than the bound terms give for the amount)": broken((base) => ({
    quote: (route, amountInRaw) =>
      Effect.map(base.quote(route, amountInRaw), (q) => {
        const fee = BigInt(route.serviceFeeBps ?? 0)
        const n = amountInRaw * route.priceNumeratorRaw * (BPS - fee)
        const d = route.priceDenominatorRaw * BPS
        return { ...q, amountOutRaw: (n + d - 1n) / d }
      })
  })),
  // one snapshot for every amount of a route
  "quote: binds to the amount (same amount, same price; another amount, another snapshot; more in, never less out)":
    broken((base) => ({
      quote: (route, amountInRaw) =>
        Effect.map(base.quote(route, amountInRaw), (q) => ({ ...q, snapshotId: route.routeId }))
    })),
  // one unit more than fits
  "capacity: the largest amount whose fresh amountOut fits what is available, never above the maximum fill": broken((
    base
  ) => ({
    capacity: (route, available) => Effect.map(base.capacity(route, available), (c) => c + 1n)
  }))
}

describe("Pricing suite: context", () => {
  it.effect("the suite's market prices the first routes from feeds: oracle pricing is exercised, not its fallback", () =>
    Effect.gen(function*() {
      const pricing = yield* Effect.service(Pricing.Pricing)
      const q = yield* pricing.quote(PricingSuite.ROUTES[0]!, 1_000_000n)
      assert.strictEqual(q.evidence.model, "ORACLE")
      const fallback = yield* pricing.quote(PricingSuite.ROUTES[2]!, 10n ** 15n)
      assert.strictEqual(fallback.evidence.model, "STATIC")
    }).pipe(Effect.provide(Layer.provide(Pricing.layerOracle(), PricingSuite.context))))
})

describe("Pricing suite: each check fails on a pricing broken its way", () => {
  it("every check has a broken pricing", () => {
    assert.deepStrictEqual(Object.keys(BROKEN).sort(), PricingSuite.checks.map((c) => c.name).sort())
  })
  for (const check of PricingSuite.checks) {
    it(check.name, async () => {
      const error = await PricingSuite.runCheck(check, BROKEN[check.name]!).then(() => undefined, (e) => e)
      assert.isDefined(error, "the broken pricing passed")
      assert.match(String(error), /route 0x/)
    })
  }
  it("a capacity one unit short is not the largest", async () => {
    const check = PricingSuite.checks.find((c) => c.name.startsWith("capacity"))!
    const short = broken((base) => ({
      capacity: (route, available) => Effect.map(base.capacity(route, available), (c) => (c > 0n ? c - 1n : c))
    }))
    const error = await PricingSuite.runCheck(check, short).then(() => undefined, (e) => e)
    assert.match(String(error), /is not the largest/)
  })
})
