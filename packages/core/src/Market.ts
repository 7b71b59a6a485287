/**
 * Market data: the USD prices of assets and native coins, read from the price
 * feeds the catalog names (`usdPriceFeed` on an asset, `nativeUsdPriceFeed` on a
 * network), and the gas price of source networks, read through the connectors'
 * {@link MarketSupport}. Oracle pricing (`Pricing.layerOracle`) and route
 * economics (`Economics.layerMarket`) read it.
 *
 * The layer reads every feed and gas price once at start and then every
 * `pollMillis` in the background, so that a permit never waits for an RPC. A
 * reading is refused (with a reason code) when it never arrived, when its answer
 * is not positive, or when the feed's round is older than `maxAgeSeconds` (the
 * staleness guard).
 *
 * @since 0.1.0
 */
import { Clock, Context, Data, Effect, Layer, Option, Schedule } from "effect"
import { type Asset, Catalog, type Network } from "./Catalog.ts"
import type { MarketReader, PriceRound } from "./Chain.ts"
import { ConnectorRegistry } from "./Connector.ts"

/**
 * No usable market reading. `code`: PRICE_FEED_MISSING (none configured),
 * PRICE_FEED_UNREAD (not read yet, or the last read failed), PRICE_FEED_INVALID
 * (answer <= 0), PRICE_FEED_STALE (older than `maxAgeSeconds`), GAS_PRICE_UNREAD.
 *
 * @category errors
 * @since 0.1.0
 */
export class MarketUnavailable extends Data.TaggedError("MarketUnavailable")<{
  readonly code: string
  readonly message: string
}> {}

/**
 * A USD price: answer / 10^decimals dollars per whole unit, from `feed` on `network`.
 *
 * @category models
 * @since 0.1.0
 */
export interface UsdPrice extends PriceRound {
  readonly feed: string
  /** The catalog key of the feed's network. */
  readonly network: string
}

/**
 * The cost of one source fill on a network: gas units × gas price.
 *
 * @category models
 * @since 0.1.0
 */
export interface SourceGas {
  /** Smallest native units per gas unit (wei on EVM). */
  readonly gasPrice: bigint
  readonly fillGasUnits: bigint
  readonly nativeDecimals: number
  /** Unix milliseconds of the reading. */
  readonly observedAt: number
}

/**
 * Options of the market layer.
 *
 * @category models
 * @since 0.1.0
 */
export interface MarketOptions {
  /** How often feeds and gas prices are read, milliseconds. Default 5000. */
  readonly pollMillis?: number | undefined
  /** A feed round older than this is stale, seconds. Default 3600. */
  readonly maxAgeSeconds?: number | undefined
}

/**
 * The market service.
 *
 * @category services
 * @since 0.1.0
 */
export class Market extends Context.Service<Market, {
  /** The asset's USD price, guarded. */
  readonly usdPrice: (asset: Asset) => Effect.Effect<UsdPrice, MarketUnavailable>
  /** The USD price of a network's native coin, guarded. */
  readonly nativeUsdPrice: (network: Network) => Effect.Effect<UsdPrice, MarketUnavailable>
  /** What a source fill costs on a network, in native units. */
  readonly sourceGas: (network: Network) => Effect.Effect<SourceGas, MarketUnavailable>
  /** The staleness bound, seconds. */
  readonly maxAgeSeconds: number
}>()("@svc/core/Market") {}

type Slot<A> = { readonly _tag: "Read"; readonly value: A } | { readonly _tag: "Failed"; readonly message: string }

/**
 * The guard every price reading passes: positive, and not older than `maxAgeSeconds`.
 *
 * @category operations
 * @since 0.1.0
 */
export const checkRound = (
  round: UsdPrice,
  nowSeconds: number,
  maxAgeSeconds: number
): MarketUnavailable | undefined => {
  if (round.answer <= 0n) {
    return new MarketUnavailable({
      code: "PRICE_FEED_INVALID",
      message: `price feed ${round.feed} on ${round.network} answers ${round.answer}`
    })
  }
  if (nowSeconds - round.updatedAt > maxAgeSeconds) {
    return new MarketUnavailable({
      code: "PRICE_FEED_STALE",
      message: `price feed ${round.feed} on ${round.network} was last updated ${
        nowSeconds - round.updatedAt
      } s ago (limit ${maxAgeSeconds} s)`
    })
  }
  return undefined
}

/**
 * Market data from the connectors' readers.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: MarketOptions): Layer.Layer<Market, never, Catalog | ConnectorRegistry> =>
  Layer.effect(
    Market,
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const registry = yield* ConnectorRegistry
      const pollMillis = Math.max(100, options?.pollMillis ?? 5000)
      const maxAgeSeconds = Math.max(1, options?.maxAgeSeconds ?? 3600)

      // what to read, per network: feeds, and the gas price of source networks
      const feeds = new Map<string, Set<string>>()
      const addFeed = (network: Network, feed: string | null) => {
        if (feed === null) return
        const set = feeds.get(network.key) ?? new Set()
        set.add(feed)
        feeds.set(network.key, set)
      }
      for (const asset of catalog.assets) addFeed(asset.network, asset.usdPriceFeed)
      const sources = new Set(catalog.routes.map((r) => r.source.network.key))
      for (const network of catalog.networks) if (sources.has(network.key)) addFeed(network, network.nativeUsdPriceFeed)

      const readers = new Map<string, MarketReader>()
      for (const network of catalog.networks) {
        if (!feeds.has(network.key) && !sources.has(network.key)) continue
        if (network.native === null) continue
        const connector = registry.forNetwork(network)
        if (Option.isNone(connector) || connector.value.market === undefined) continue
        const reader = yield* connector.value.market.network({ key: network.key, native: network.native }).pipe(
          Effect.catch((e) =>
            Effect.as(Effect.logError(`market data on ${network.key} cannot be read`, e.message), null)
          )
        )
        if (reader !== null) readers.set(network.key, reader)
      }

      const prices = new Map<string, Slot<UsdPrice>>()
      const gas = new Map<string, Slot<SourceGas>>()
      const priceKey = (network: string, feed: string) => `${network}\u0000${feed.toLowerCase()}`

      const pollNetwork = (key: string, reader: MarketReader) =>
        Effect.gen(function*() {
          for (const feed of feeds.get(key) ?? []) {
            const slot = yield* reader.priceFeed(feed).pipe(
              Effect.map((round): Slot<UsdPrice> => ({ _tag: "Read", value: { ...round, feed, network: key } })),
              Effect.catch((e) => Effect.succeed<Slot<UsdPrice>>({ _tag: "Failed", message: e.message }))
            )
            const k = priceKey(key, feed)
            const before = prices.get(k)
            if (slot._tag === "Failed" && before?._tag !== "Failed") {
              yield* Effect.logWarning(`price feed ${feed} on ${key} could not be read`, slot.message)
            }
            prices.set(k, slot)
          }
          if (sources.has(key)) {
            const now = yield* Clock.currentTimeMillis
            const slot = yield* reader.gasPrice.pipe(
              Effect.map((gasPrice): Slot<SourceGas> => ({
                _tag: "Read",
                value: {
                  gasPrice,
                  fillGasUnits: reader.fillGasUnits,
                  nativeDecimals: reader.nativeDecimals,
                  observedAt: now
                }
              })),
              Effect.catch((e) => Effect.succeed<Slot<SourceGas>>({ _tag: "Failed", message: e.message }))
            )
            gas.set(key, slot)
          }
        })

      const poll = Effect.forEach(readers, ([key, reader]) => pollNetwork(key, reader), {
        concurrency: "unbounded",
        discard: true
      })
      yield* poll
      if (readers.size > 0) yield* Effect.forkScoped(Effect.repeat(poll, Schedule.spaced(pollMillis)))

      const price = (network: Network, feed: string | null, what: string) =>
        Effect.gen(function*() {
          if (feed === null) {
            return yield* new MarketUnavailable({
              code: "PRICE_FEED_MISSING",
              message: `${what} has no USD price feed`
            })
          }
          const slot = prices.get(priceKey(network.key, feed))
          if (slot === undefined || slot._tag === "Failed") {
            return yield* new MarketUnavailable({
              code: "PRICE_FEED_UNREAD",
              message: `price feed ${feed} on ${network.key} (${what}) ${
                slot === undefined ? "has not been read (no market reader for the network)" : `failed: ${slot.message}`
              }`
            })
          }
          const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          const refused = checkRound(slot.value, now, maxAgeSeconds)
          if (refused !== undefined) return yield* refused
          return slot.value
        })

      return Market.of({
        usdPrice: (asset) => price(asset.network, asset.usdPriceFeed, `asset ${asset.key}`),
        nativeUsdPrice: (network) => price(network, network.nativeUsdPriceFeed, `the native coin of ${network.key}`),
        sourceGas: (network) => {
          const slot = gas.get(network.key)
          return slot?._tag === "Read" ? Effect.succeed(slot.value) : Effect.fail(
            new MarketUnavailable({
              code: "GAS_PRICE_UNREAD",
              message: `the gas price of ${network.key} ${
                slot === undefined ? "has not been read" : `could not be read: ${slot.message}`
              }`
            })
          )
        },
        maxAgeSeconds
      })
    })
  )

/**
 * Market data given directly (tests, or a solver feeding prices from elsewhere).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFixed = (data: {
  readonly prices: ReadonlyMap<string, UsdPrice>
  readonly gas?: ReadonlyMap<string, SourceGas> | undefined
  readonly maxAgeSeconds?: number | undefined
}): Layer.Layer<Market> => {
  const maxAgeSeconds = data.maxAgeSeconds ?? 3600
  const price = (network: Network, feed: string | null) =>
    Effect.gen(function*() {
      const round = feed === null ? undefined : data.prices.get(feed.toLowerCase())
      if (round === undefined) {
        return yield* new MarketUnavailable({
          code: feed === null ? "PRICE_FEED_MISSING" : "PRICE_FEED_UNREAD",
          message: `no price for ${feed ?? "(no feed)"} on ${network.key}`
        })
      }
      const refused = checkRound(round, Math.floor((yield* Clock.currentTimeMillis) / 1000), maxAgeSeconds)
      if (refused !== undefined) return yield* refused
      return round
    })
  return Layer.succeed(
    Market,
    Market.of({
      usdPrice: (asset) => price(asset.network, asset.usdPriceFeed),
      nativeUsdPrice: (network) => price(network, network.nativeUsdPriceFeed),
      sourceGas: (network) => {
        const g = data.gas?.get(network.key)
        return g === undefined
          ? Effect.fail(new MarketUnavailable({ code: "GAS_PRICE_UNREAD", message: `no gas price for ${network.key}` }))
          : Effect.succeed(g)
      },
      maxAgeSeconds
    })
  )
}
