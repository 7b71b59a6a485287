/**
 * Market data, oracle pricing and route economics: the arithmetic (property
 * tests), the guards (staleness, deviation), the feed following the oracle past
 * its republish threshold, QUOTE_CHANGED past the quote tolerance, and the
 * actionable shortlist computed from USD prices and source gas.
 */
import { assert, describe, it } from "@effect/vitest"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import type { PermitCreateRequest } from "@svc/protocol/schema/Permit"
import * as Signature from "@svc/protocol/Signature"
import { Clock, Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { formatFixed, routeEvidence } from "../src/Economics.ts"
import * as Market from "../src/Market.ts"
import type { PermitError, PermitErrorReason } from "../src/PermitError.ts"
import { Permits } from "../src/Permits.ts"
import { deviationBps, linearAmountOut, usdRate } from "../src/Pricing.ts"
import { Publisher } from "../src/Publisher.ts"
import { demoCatalog, makeEngine, PAYER_KEY } from "./support/engine.ts"

const payer = Signature.addressOf(PAYER_KEY)
const recipient = "0x2222222222222222222222222222222222222222"

/** The demo catalog with USD price feeds on some assets and native coins. */
const catalogWithFeeds = (() => {
  const c = structuredClone(demoCatalog) as {
    networks: Array<Record<string, unknown>>
    assets: Array<Record<string, unknown>>
  }
  const feeds: Record<string, string> = { "usdc.base": "usdc", "usdt.bsc": "usdt", "usdt0.hyperevm": "usdt0" }
  for (const a of c.assets) if (feeds[a.key as string] !== undefined) a.usdPriceFeed = feeds[a.key as string]
  for (const n of c.networks) {
    if (n.key === "base") n.nativeUsdPriceFeed = "eth"
    if (n.key === "bsc") n.nativeUsdPriceFeed = "bnb"
  }
  return c
})()

const USDC_BASE_TO_USDT_BSC = "usdc.base>usdt.bsc"

/** A market whose prices the test sets; 8-decimal answers, updated "now" unless told. */
const mutableMarket = () => {
  const prices = new Map<string, Market.UsdPrice>()
  const gas = new Map<string, Market.SourceGas>()
  let round = 1n
  const set = (feed: string, usd: number, updatedAt?: number) =>
    Effect.gen(function*() {
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      prices.set(feed, {
        feed,
        network: "test",
        roundId: round++,
        answer: BigInt(Math.round(usd * 1e8)),
        decimals: 8,
        updatedAt: updatedAt ?? now
      })
    })
  const maxAgeSeconds = 3600
  const price = (feed: string | null) =>
    Effect.gen(function*() {
      const p = feed === null ? undefined : prices.get(feed)
      if (p === undefined) return yield* new Market.MarketUnavailable({ code: "PRICE_FEED_UNREAD", message: "unset" })
      const refused = Market.checkRound(p, Math.floor((yield* Clock.currentTimeMillis) / 1000), maxAgeSeconds)
      if (refused !== undefined) return yield* refused
      return p
    })
  const service = Market.Market.of({
    usdPrice: (asset) => price(asset.usdPriceFeed),
    nativeUsdPrice: (network) => price(network.nativeUsdPriceFeed),
    sourceGas: (network) => {
      const g = gas.get(network.key)
      return g === undefined
        ? Effect.fail(new Market.MarketUnavailable({ code: "GAS_PRICE_UNREAD", message: "unset" }))
        : Effect.succeed(g)
    },
    maxAgeSeconds
  })
  return { service, set, gas }
}

const engineWith = (market: ReturnType<typeof mutableMarket>, oracle: boolean) =>
  makeEngine(
    { catalog: catalogWithFeeds, ...(oracle ? { oracle: {} } : {}) },
    { market: Layer.succeed(Market.Market, market.service) }
  ).layer

const routeOf = (key: string) =>
  Effect.gen(function*() {
    const publication = yield* (yield* Publisher).current
    const [source, destination] = key.split(">")
    const catalogRoute = publication.catalogRoutes.find((r) =>
      r.source.key === source && r.destination.key === destination
    )!
    return publication.routes[publication.routeIndexById.get(catalogRoute.routeId.toLowerCase())!]!
  })

const request = (quoteId: string, amount: string, key: string): PermitCreateRequest => {
  const body = { quoteId, requestedAmountInRaw: amount, payer, recipient, idempotencyKey: key }
  const message = PermitMessage.message(PermitMessage.normalize(body, { strict: false }))
  return { ...body, requestSignature: PermitMessage.sign(message, PAYER_KEY) } as PermitCreateRequest
}

const reasonOf = <A>(exit: Exit.Exit<A, PermitError>): PermitErrorReason => {
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  const error = (exit as Exit.Failure<A, PermitError>).cause.reasons.find((r) => r._tag === "Fail")
  assert.isDefined(error, "expected a typed failure")
  return (error as { error: PermitError }).error.reason
}

describe("oracle arithmetic", () => {
  it("usdRate prices an amount at the ratio of the two USD prices, exactly (rounded down)", () => {
    fc.assert(fc.property(
      fc.bigInt({ min: 1n, max: 10n ** 14n }),
      fc.bigInt({ min: 1n, max: 10n ** 14n }),
      fc.integer({ min: 0, max: 18 }),
      fc.integer({ min: 0, max: 18 }),
      fc.integer({ min: 0, max: 24 }),
      fc.integer({ min: 0, max: 24 }),
      fc.bigInt({ min: 0n, max: 10n ** 30n }),
      (pIn, pOut, fIn, fOut, dIn, dOut, amount) => {
        const rate = usdRate(
          { price: { answer: pIn, decimals: fIn }, decimals: dIn },
          { price: { answer: pOut, decimals: fOut }, decimals: dOut }
        )
        const direct = (amount * pIn * 10n ** BigInt(fOut + dOut)) / (pOut * 10n ** BigInt(fIn + dIn))
        return linearAmountOut(amount, rate.numeratorRaw, rate.denominatorRaw, 0) === direct
      }
    ))
  })

  it("deviationBps is 0 for equal rates and k × 10000 for a rate (k + 1) times larger", () => {
    fc.assert(fc.property(
      fc.bigInt({ min: 1n, max: 10n ** 20n }),
      fc.bigInt({ min: 1n, max: 10n ** 20n }),
      fc.bigInt({ min: 0n, max: 100n }),
      (a, b, k) => deviationBps(a * 3n, b * 3n, a, b) === 0n && deviationBps((k + 1n) * a, b, a, b) === k * 10_000n
    ))
  })

  it("formatFixed renders an 18-decimal fixed-point value rounded down, as a UsdDecimal", () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.integer({ min: 1, max: 18 }), (v, digits) => {
      const text = formatFixed(v, digits)
      const [whole, fraction] = text.split(".")
      return /^(?:0|[1-9][0-9]*)\.[0-9]+$/.test(text) && fraction!.length === digits &&
        BigInt(whole! + fraction!) === v / 10n ** BigInt(18 - digits)
    }))
    assert.strictEqual(formatFixed(1_500_000_000_000_000_000n, 2), "1.50")
    assert.strictEqual(formatFixed(-25n * 10n ** 16n, 2), "0.25")
  })
})

describe("Market guards", () => {
  it("a round is refused when not positive or older than the limit", () => {
    const round = { feed: "f", network: "n", roundId: 1n, answer: 1n, decimals: 8, updatedAt: 1000 }
    assert.isUndefined(Market.checkRound(round, 1000 + 60, 60))
    assert.strictEqual(Market.checkRound(round, 1000 + 61, 60)?.code, "PRICE_FEED_STALE")
    assert.strictEqual(Market.checkRound({ ...round, answer: 0n }, 1000, 60)?.code, "PRICE_FEED_INVALID")
  })
})

describe("oracle pricing", () => {
  it.effect("prices routes with feeds from the oracle (evidence ORACLE) and the others statically", () => {
    const market = mutableMarket()
    return Effect.gen(function*() {
      yield* market.set("usdc", 1)
      yield* market.set("usdt", 1)
      const publisher = yield* Publisher
      yield* publisher.publishNow
      const route = yield* routeOf(USDC_BASE_TO_USDT_BSC)
      assert.isTrue(route.open)
      assert.strictEqual(route.indicativePriceNumeratorRaw, "1000000000000")
      assert.strictEqual(route.indicativePriceDenominatorRaw, "1")
      const permits = yield* Permits
      const created = yield* permits.create(request(route.quoteId, "1000000", "oracle-0001"))
      const envelope = created.envelope
      assert.strictEqual(envelope.permit.amountOutRaw, String(linearAmountOut(1_000_000n, 10n ** 12n, 1n, 5)))
      const evidence = envelope.execution.pricing.evidence as { model: string; sourceUsd: { feed: string } }
      assert.strictEqual(evidence.model, "ORACLE")
      assert.strictEqual(evidence.sourceUsd.feed, "usdc")
      assert.strictEqual(envelope.execution.pricing.pricingReferenceId, route.pricingReferenceId)
      // usdc.base -> usdt0.hyperevm has no usdt0 price yet: the route is published closed
      const unpriced = yield* routeOf("usdc.base>usdt0.hyperevm")
      assert.isFalse(unpriced.open)
      assert.strictEqual(unpriced.maxAvailableInRaw, "0")
      // usdc.base -> usdc.solana has no feed on usdc.solana: priced statically
      const publication = yield* publisher.current
      const solana = publication.catalogRoutes.find((r) => r.destination.key === "usdc.solana")!
      const staticRoute = publication.routes[publication.routeIndexById.get(solana.routeId.toLowerCase())!]!
      assert.strictEqual(staticRoute.indicativePriceNumeratorRaw, "1")
    }).pipe(Effect.provide(engineWith(market, true)))
  })

  it.effect("a move within republishBps keeps the quote; past the tolerance, a permit answers QUOTE_CHANGED until the feed follows", () => {
    const market = mutableMarket()
    return Effect.gen(function*() {
      yield* market.set("usdc", 1)
      yield* market.set("usdt", 1)
      const publisher = yield* Publisher
      const permits = yield* Permits
      yield* publisher.publishNow
      const before = yield* routeOf(USDC_BASE_TO_USDT_BSC)

      // USDT 0.2% dearer: the user gets 20 bps less, the feed keeps its terms (republish at 25 bps)
      yield* market.set("usdt", 1.002)
      yield* publisher.refresh
      const same = yield* routeOf(USDC_BASE_TO_USDT_BSC)
      assert.strictEqual(same.quoteId, before.quoteId)
      const small = yield* permits.create(request(same.quoteId, "1000000", "oracle-0002"))
      const expected = (1_000_000n * 10n ** 12n * 9995n * 10n ** 8n) / (10_000n * 100_200_000n)
      assert.strictEqual(small.envelope.permit.amountOutRaw, String(expected))

      // USDT 1% dearer: 100 bps below the published terms, past the 50 bps tolerance
      yield* market.set("usdt", 1.01)
      const changed = reasonOf(yield* Effect.exit(permits.create(request(same.quoteId, "1000000", "oracle-0003"))))
      assert.strictEqual(changed._tag, "QuoteChanged")
      assert.deepStrictEqual(changed.reasonCodes, ["PRICE_MOVED"])
      // the feed follows: a new quote, at the new price, that permits again
      yield* publisher.refresh
      const after = yield* routeOf(USDC_BASE_TO_USDT_BSC)
      assert.notStrictEqual(after.quoteId, before.quoteId)
      assert.notStrictEqual(after.pricingReferenceId, before.pricingReferenceId)
      const ok = yield* permits.create(request(after.quoteId, "1000000", "oracle-0004"))
      assert.strictEqual(
        ok.envelope.permit.amountOutRaw,
        String((1_000_000n * 10n ** 12n * 9995n * 10n ** 8n) / (10_000n * 101_000_000n))
      )
    }).pipe(Effect.provide(engineWith(market, true)))
  })

  it.effect("a stale feed or a rate far from the catalog's price closes the route until it recovers", () => {
    const market = mutableMarket()
    return Effect.gen(function*() {
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      yield* market.set("usdc", 1, now - 4000)
      yield* market.set("usdt", 1)
      yield* market.set("usdt0", 1)
      const publisher = yield* Publisher
      yield* publisher.publishNow
      const stale = yield* routeOf(USDC_BASE_TO_USDT_BSC)
      assert.isFalse(stale.open)
      const permits = yield* Permits
      const refused = reasonOf(yield* Effect.exit(permits.create(request(stale.quoteId, "1000000", "oracle-0005"))))
      assert.strictEqual(refused._tag, "QuoteNotOpen")

      yield* market.set("usdc", 1)
      yield* publisher.refresh
      assert.isTrue((yield* routeOf(USDC_BASE_TO_USDT_BSC)).open)

      // USDT at 0.85: the oracle rate is 1765 bps from the catalog's 1:1, past the 1000 bps guard
      yield* market.set("usdt", 0.85)
      yield* publisher.refresh
      assert.isFalse((yield* routeOf(USDC_BASE_TO_USDT_BSC)).open)
      // the other routes stay as they were
      assert.isTrue((yield* routeOf("usdc.base>usdt0.hyperevm")).open)
    }).pipe(Effect.provide(engineWith(market, true)))
  })
})

describe("economics from the market", () => {
  it("routeEvidence: notional in and out at USD prices, source gas, edge after gas", () => {
    const price = (usd: number, updatedAt = 1_800_000_000) => ({
      feed: "f",
      network: "n",
      roundId: 1n,
      answer: BigInt(Math.round(usd * 1e8)),
      decimals: 8,
      updatedAt
    })
    const evidence = routeEvidence({
      route: {
        maxAvailableInRaw: "250000000000",
        indicativePriceNumeratorRaw: "1000000000000",
        indicativePriceDenominatorRaw: "1",
        serviceFeeBps: 5,
        sourceTokenDecimals: 6,
        destinationTokenDecimals: 18
      } as never,
      sourceUsd: price(1),
      destinationUsd: price(1.01, 1_800_000_100),
      nativeUsd: price(3000),
      gas: { gasPrice: 1_000_000_000n, fillGasUnits: 110_000n, nativeDecimals: 18, observedAt: 1_800_000_200_000 },
      maxAgeSeconds: 3600,
      pricingModelVersion: "svc-static-1"
    })!
    assert.deepStrictEqual(evidence, {
      indicativeNotionalUsd: "250000.000000",
      executableNotionalUsd: "252373.750000",
      estimatedSourceGasUsd: "0.330000",
      // 250000 × (1 − 5 bps) × 1.01 = 252373.75; (252373.75 − 250000 − 0.33) / 250000 = 94.937 bps
      expectedEdgeAfterSourceGasBps: "94.93",
      economicsObservedAt: new Date(1_800_000_000_000).toISOString(),
      economicsValidUntil: new Date(1_800_003_600_000).toISOString(),
      pricingModelVersion: "svc-static-1",
      edgeBps: 94.93
    })
  })

  it.effect("the shortlist: positive edges in order, negative edges and routes missing evidence left out", () => {
    const market = mutableMarket()
    return Effect.gen(function*() {
      yield* market.set("usdc", 1)
      yield* market.set("usdt", 1.01)
      yield* market.set("usdt0", 1.02)
      yield* market.set("eth", 3000)
      yield* market.set("bnb", 600)
      market.gas.set("base", { gasPrice: 10n ** 9n, fillGasUnits: 110_000n, nativeDecimals: 18, observedAt: 0 })
      market.gas.set("bsc", { gasPrice: 10n ** 9n, fillGasUnits: 110_000n, nativeDecimals: 18, observedAt: 0 })
      const publisher = yield* Publisher
      const publication = yield* publisher.publishNow
      const keys = publication.actionableRoutes.map((a) => {
        const r = publication.catalogRoutes[publication.routeIndexById.get(a.routeId.toLowerCase())!]!
        return `${r.source.key}>${r.destination.key}`
      })
      // static 1:1 prices against the market: usdc.base>usdt0.hyperevm 1.02 × (1 − 4 bps) ≈ +196 bps;
      // usdc.base>usdt.bsc ≈ +95 bps; usdt.bsc>usdt0.hyperevm 1.02 / 1.01 × (1 − 6 bps) ≈ +93 bps;
      // usdt.bsc>usdc.base loses ~1%: left out; hyperevm has no native price: its source routes have no evidence
      assert.deepStrictEqual(keys, ["usdc.base>usdt0.hyperevm", USDC_BASE_TO_USDT_BSC, "usdt.bsc>usdt0.hyperevm"])
      for (const a of publication.actionableRoutes) {
        const route = publication.routes.find((r) => r.routeId === a.routeId)!
        assert.strictEqual(a.quoteId, route.quoteId)
        assert.strictEqual(a.pricingReferenceId, route.pricingReferenceId)
        assert.strictEqual(a.pricingModelVersion, "svc-static-1")
      }
      const body = JSON.parse(new TextDecoder().decode(publication.fullView.body))
      assert.deepStrictEqual(body.feed.actionableRoutes, publication.actionableRoutes)
    }).pipe(Effect.provide(engineWith(market, false)))
  })
})

describe("oracle staleness and quote validity", () => {
  it.effect("an oracle-priced quote is valid only while its prices are: its pricing cycle ends when the older round goes stale", () => {
    const market = mutableMarket()
    return Effect.gen(function*() {
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      // usdc's round is 3590 s old: stale in 10 s (limit 3600), well before the 60 s pricing cycle ends
      yield* market.set("usdc", 1, now - 3590)
      yield* market.set("usdt", 1)
      const publisher = yield* Publisher
      yield* publisher.publishNow
      const route = yield* routeOf(USDC_BASE_TO_USDT_BSC)
      assert.isTrue(route.open)
      const created = yield* (yield* Permits).create(request(route.quoteId, "1000000", "stale-0001"))
      const validUntil = Date.parse(created.envelope.execution.pricing.pricingCycleValidUntil as string)
      assert.strictEqual(validUntil, (now + 10) * 1000, "the older round's updatedAt + the staleness limit")
      // once past it, the same quote prices nothing: no permit
      yield* TestClock.adjust("11 seconds")
      const stale = reasonOf(
        yield* Effect.exit((yield* Permits).create(request(route.quoteId, "1000000", "stale-0002")))
      )
      assert.strictEqual(stale._tag, "Unavailable")
      assert.strictEqual((stale as { dependency: string }).dependency, "PRICING")
    }).pipe(Effect.provide(engineWith(market, true)))
  })
})
