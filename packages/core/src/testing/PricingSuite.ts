/**
 * The pricing suite: the behaviours every `Pricing` layer (the built-in static
 * and oracle pricings, and any pricing plug-in) must show for the feed and the
 * permits to be right:
 *
 * - the indicative terms of a route are a positive rate, with a
 *   pricingReferenceId that is stable while the price does not move;
 * - amounts round down: a fresh quote never pays out more than the terms it is
 *   bound to give for the amount, rounded down;
 * - quotes bind to the amount: the same amount gets the same price, another
 *   amount another snapshot, and more in never gives less out;
 * - capacity is the largest amount whose fresh amountOut fits what is
 *   available (never above the route's maximum fill).
 *
 * ```ts
 * import { suite } from "@svc/core/testing/PricingSuite"
 * import * as MyPricing from "../src/MyPricing.ts"
 *
 * suite("my-pricing", MyPricing.layer())
 * ```
 *
 * The layer may use the `Catalog` (the suite's routes) and the `Market` (every
 * asset at one US dollar, fresh): what a pricing plug-in is given besides the
 * store and the signer. Each check names one behaviour; {@link checks} lists
 * them, so that a pricing's own tests can run a check against a deliberately
 * broken implementation and see it fail (the core's tests do that for every
 * check).
 *
 * Needs vitest (an optional peer dependency of `@svc/core`).
 *
 * @since 0.1.0
 */
import type { Hex } from "@svc/protocol/Bytes"
import { Clock, Context, Effect, Layer } from "effect"
import { describe, it } from "vitest"
import { type Asset, Catalog, type CatalogRoute, type Network } from "../Catalog.ts"
import { Market } from "../Market.ts"
import { MAX_AMOUNT, Pricing, type PricingShape } from "../Pricing.ts"

/**
 * One check of the suite.
 *
 * @category models
 * @since 0.1.0
 */
export interface Check {
  readonly name: string
  readonly run: (pricing: PricingShape, routes: ReadonlyArray<CatalogRoute>) => Promise<void>
}

class CheckFailed extends Error {
  override readonly name = "PricingSuiteCheckFailed"
}

const expect = (ok: boolean, message: string) => {
  if (!ok) throw new CheckFailed(message)
}

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)

const BPS = 10_000n
const hex = (n: number): Hex => `0x${n.toString(16).padStart(64, "0")}`

const network = (key: string, chainId: number): Network => ({
  key,
  name: key,
  vm: "EVM",
  vmType: hex(1),
  networkId: hex(100 + chainId),
  native: String(chainId),
  chainId: String(chainId),
  router: null,
  vaultAddress: null,
  vaultLocator: { chainId: String(chainId), address: "0x00000000000000000000000000000000000000f1" },
  vaultAccountId: hex(200 + chainId),
  finalityBlocks: 1,
  nativeUsdPriceFeed: null,
  capabilities: null,
  settlement: {}
} as Network)

const asset = (key: string, net: Network, decimals: number, id: number, feed: boolean): Asset => ({
  key,
  network: net,
  assetId: hex(300 + id),
  symbol: key.toUpperCase(),
  decimals,
  address: null,
  locator: { chainId: net.chainId!, token: `0x${id.toString(16).padStart(40, "0")}` },
  inventoryRaw: null,
  usdPriceFeed: feed ? `0x${(900 + id).toString(16).padStart(40, "0")}` : null
} as Asset)

const route = (
  id: number,
  source: Asset,
  destination: Asset,
  price: readonly [bigint, bigint],
  fees: {
    readonly serviceFeeBps: number | null
    readonly minimumFillInRaw: bigint
    readonly maximumFillInRaw: bigint | null
  }
): CatalogRoute => ({
  routeId: hex(id),
  source,
  destination,
  publicationLane: "L1",
  publicationRank: id,
  serviceCategory: "STABLE_DIRECT",
  feeMode: "FEE_INCLUDED_IN_OUTPUT",
  priceNumeratorRaw: price[0],
  priceDenominatorRaw: price[1],
  executionStatus: "OPEN",
  dailyStatus: "OPEN",
  permitAvailable: true,
  payoutSupported: true,
  payoutNote: null,
  sourceFinalityBlocks: 1,
  settlementWindowSeconds: 900,
  executionGeneration: hex(400 + id),
  policyHash: hex(500 + id),
  assumptionsHash: null,
  legacyRouteId: null,
  ...fees
} as CatalogRoute)

const base = network("base", 8453)
const bsc = network("bsc", 56)
const usdcBase = asset("usdc", base, 6, 1, true)
const usdtBsc = asset("usdt", bsc, 18, 2, true)
const ethBase = asset("eth", base, 18, 3, false)
const cbBtc = asset("cbbtc", base, 8, 4, false)

/**
 * The suite's routes: 6 to 18 decimals with a 5 bps fee and a maximum fill
 * (both assets with USD price feeds, for oracle pricings), the way back, a rate
 * of 1/3 (amounts that do not divide) without a maximum, and a fee of 0.
 *
 * @category testing
 * @since 0.1.0
 */
export const ROUTES: ReadonlyArray<CatalogRoute> = [
  route(1, usdcBase, usdtBsc, [10n ** 12n, 1n], {
    serviceFeeBps: 5,
    minimumFillInRaw: 1_000_000n,
    maximumFillInRaw: 250_000_000_000n
  }),
  route(2, usdtBsc, usdcBase, [1n, 10n ** 12n], {
    serviceFeeBps: 5,
    minimumFillInRaw: 10n ** 18n,
    maximumFillInRaw: 250_000n * 10n ** 18n
  }),
  route(3, ethBase, cbBtc, [1n, 3n * 10n ** 10n], {
    serviceFeeBps: 7,
    minimumFillInRaw: 10n ** 15n,
    maximumFillInRaw: null
  }),
  route(4, cbBtc, ethBase, [3n * 10n ** 10n, 1n], { serviceFeeBps: 0, minimumFillInRaw: 1000n, maximumFillInRaw: null })
]

/** Amounts from a route's minimum to its maximum, with ones that do not divide evenly. */
const amountsOf = (r: CatalogRoute): ReadonlyArray<bigint> => {
  const cap = r.maximumFillInRaw ?? r.minimumFillInRaw * 10n ** 9n
  return [r.minimumFillInRaw, r.minimumFillInRaw + 1n, r.minimumFillInRaw * 7n + 3n, cap / 3n + 1n, cap - 1n, cap]
}

/** The most the terms give for an amount, exactly, rounded down. */
const promised = (amountIn: bigint, n: bigint, d: bigint, feeBps: number | null) =>
  (amountIn * n * (BPS - BigInt(feeBps ?? 0))) / (d * BPS)

/**
 * The checks of the suite, by name.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks: ReadonlyArray<Check> = [
  {
    name: "indicative: a positive rate with a pricingReferenceId that is the same while the price does not move",
    run: async (pricing, routes) => {
      for (const r of routes) {
        const a = await run(pricing.indicative(r))
        const b = await run(pricing.indicative(r))
        expect(
          a.numeratorRaw > 0n && a.denominatorRaw > 0n,
          `route ${r.routeId}: rate ${a.numeratorRaw}/${a.denominatorRaw}`
        )
        expect(
          /^0x[0-9a-f]{64}$/.test(a.pricingReferenceId),
          `route ${r.routeId}: pricingReferenceId ${a.pricingReferenceId}`
        )
        expect(
          a.pricingReferenceId === b.pricingReferenceId && a.numeratorRaw === b.numeratorRaw &&
            a.denominatorRaw === b.denominatorRaw,
          `route ${r.routeId}: two readings of unmoved terms differ`
        )
      }
    }
  },
  {
    name: "quote: amounts round down (never more out than the bound terms give for the amount)",
    run: async (pricing, routes) => {
      for (const r of routes) {
        const terms = await run(pricing.indicative(r))
        for (const amount of amountsOf(r)) {
          const q = await run(pricing.quote(r, amount))
          expect(
            q.pricingReferenceId === terms.pricingReferenceId,
            `route ${r.routeId}: the quote is bound to ${q.pricingReferenceId}, the terms are ${terms.pricingReferenceId}`
          )
          const most = promised(amount, terms.numeratorRaw, terms.denominatorRaw, terms.serviceFeeBps)
          expect(
            q.amountOutRaw >= 0n && q.amountOutRaw <= most,
            `route ${r.routeId}: ${amount} in gives ${q.amountOutRaw} out, the terms at most ${most}`
          )
        }
      }
    }
  },
  {
    name:
      "quote: binds to the amount (same amount, same price; another amount, another snapshot; more in, never less out)",
    run: async (pricing, routes) => {
      for (const r of routes) {
        const amounts = amountsOf(r)
        let previous: { readonly amount: bigint; readonly out: bigint; readonly snapshotId: string } | undefined
        for (const amount of amounts) {
          const q = await run(pricing.quote(r, amount))
          const again = await run(pricing.quote(r, amount))
          expect(
            again.amountOutRaw === q.amountOutRaw,
            `route ${r.routeId}: ${amount} in priced ${q.amountOutRaw} then ${again.amountOutRaw}`
          )
          const now = await run(Clock.currentTimeMillis)
          expect(
            q.pricingCycleValidUntil > now - 1000,
            `route ${r.routeId}: the price is valid until ${q.pricingCycleValidUntil}, now ${now}`
          )
          if (previous !== undefined) {
            expect(
              q.amountOutRaw >= previous.out,
              `route ${r.routeId}: ${amount} in gives ${q.amountOutRaw}, less than ${previous.out} for ${previous.amount}`
            )
            expect(
              q.snapshotId !== previous.snapshotId,
              `route ${r.routeId}: ${previous.amount} and ${amount} share snapshot ${q.snapshotId}`
            )
          }
          previous = { amount, out: q.amountOutRaw, snapshotId: q.snapshotId }
        }
      }
    }
  },
  {
    name: "capacity: the largest amount whose fresh amountOut fits what is available, never above the maximum fill",
    run: async (pricing, routes) => {
      for (const r of routes) {
        const cap = r.maximumFillInRaw ?? MAX_AMOUNT
        const terms = await run(pricing.indicative(r))
        const outOfMax = promised(
          r.maximumFillInRaw ?? r.minimumFillInRaw * 10n ** 6n,
          terms.numeratorRaw,
          terms.denominatorRaw,
          terms.serviceFeeBps
        )
        for (const available of [0n, 1n, outOfMax / 3n + 7n, outOfMax - 1n, outOfMax * 2n]) {
          const c = await run(pricing.capacity(r, available))
          expect(c >= 0n && c <= cap, `route ${r.routeId}: capacity ${c} for ${available} is outside 0..${cap}`)
          if (c > 0n) {
            const q = await run(pricing.quote(r, c))
            expect(
              q.amountOutRaw <= available,
              `route ${r.routeId}: capacity ${c} pays ${q.amountOutRaw}, more than ${available} available`
            )
          }
          if (c < cap) {
            const next = await run(pricing.quote(r, c + 1n))
            expect(
              next.amountOutRaw > available,
              `route ${r.routeId}: ${
                c + 1n
              } in also fits ${available} (pays ${next.amountOutRaw}): capacity ${c} is not the largest`
            )
          }
        }
      }
    }
  }
]

/**
 * What the suite gives the pricing layer: the `Catalog` of {@link ROUTES} and a
 * `Market` where every asset is worth one US dollar, read now.
 *
 * @category layers
 * @since 0.1.0
 */
export const context: Layer.Layer<Catalog | Market> = Layer.mergeAll(
  Layer.succeed(Catalog, {
    releaseId: hex(7),
    profile: "test",
    notices: [],
    quoteWindowSeconds: 900,
    networks: [base, bsc],
    assets: [usdcBase, usdtBsc, ethBase, cbBtc],
    routes: ROUTES,
    route: (routeId) => ROUTES.find((r) => r.routeId === routeId),
    network: (networkId) => [base, bsc].find((n) => n.networkId === networkId)
  }),
  Layer.effect(
    Market,
    Effect.map(Clock.currentTimeMillis, (now) => {
      const dollar = (network: string, feed: string) => ({
        feed,
        network,
        roundId: 1n,
        answer: 100_000_000n,
        decimals: 8,
        updatedAt: Math.floor(now / 1000)
      })
      return Market.of({
        usdPrice: (a) => Effect.succeed(dollar(a.network.key, a.usdPriceFeed ?? "none")),
        nativeUsdPrice: (n) => Effect.succeed(dollar(n.key, "native")),
        sourceGas: () => Effect.succeed({ gasPrice: 1n, fillGasUnits: 100_000n, nativeDecimals: 18, observedAt: now }),
        maxAgeSeconds: 3600
      })
    })
  )
)

/**
 * Runs one check against a pricing layer, built on the suite's {@link context}
 * for the time of the check: resolves when it passes, rejects with the check's
 * message when it does not.
 *
 * @category testing
 * @since 0.1.0
 */
export const runCheck = <E>(check: Check, layer: Layer.Layer<Pricing, E, Catalog | Market>): Promise<void> =>
  Effect.runPromise(
    Effect.scoped(Effect.gen(function*() {
      const pricing = Context.get(yield* Layer.build(Layer.provide(layer, context)), Pricing)
      yield* Effect.promise(() => check.run(pricing, ROUTES))
    }))
  )

/**
 * Registers the suite for a pricing layer (built once per check, on the
 * suite's routes and market).
 *
 * @category testing
 * @since 0.1.0
 */
export const suite = <E>(
  name: string,
  layer: Layer.Layer<Pricing, E, Catalog | Market>,
  options?: { readonly timeout?: number | undefined }
): void => {
  describe(`Pricing suite: ${name}`, () => {
    for (const check of checks) {
      it(check.name, () => runCheck(check, layer), options?.timeout ?? 30_000)
    }
  })
}
