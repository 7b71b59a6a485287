/**
 * What the aggregator lists: the EVM chains and tokens of the catalog (computed
 * once per service), the open L1 pairs and routes of a publication, the token
 * list of a chain, health, and the manifest. Internal.
 *
 * @since 0.1.0
 */
import type { Hex } from "@svc/protocol/Bytes"
import type {
  AggregatorChain,
  AggregatorChains,
  AggregatorHealth,
  AggregatorManifest,
  AggregatorPair,
  AggregatorRoute,
  AggregatorToken,
  AggregatorTokens
} from "@svc/protocol/schema/Aggregator"
import { Effect, Option } from "effect"
import type { RateLimits, Versioned } from "../../Aggregator.ts"
import type { Asset, Catalog, Network } from "../../Catalog.ts"
import type { Publication, Publisher, PublisherState } from "../../Publisher.ts"
import { type AggregatorFailure, failure } from "./errors.ts"
import { nowSeconds, quotable, versionOf, ZERO_ADDRESS } from "./shared.ts"

// ---------------------------------------------------------------------------
// Catalog views
// ---------------------------------------------------------------------------

/**
 * The static views of the catalog the aggregator answers from.
 *
 * @category models
 * @since 0.1.0
 */
export interface CatalogViews {
  /** The EVM networks with a chain id, by chain id (decimal string). */
  readonly networkByChain: ReadonlyMap<string, Network>
  /** The chains of `GET /v1/chains`, in catalog order. */
  readonly chainList: ReadonlyArray<AggregatorChain>
  /** The tokens of `GET /v1/tokens`, in catalog order. */
  readonly tokenList: ReadonlyArray<AggregatorToken>
  /** {@link tokenKeyOf} of every listed token. */
  readonly tokenKeys: ReadonlySet<string>
}

/**
 * The EVM networks of a catalog that have a chain id.
 *
 * @category constructors
 * @since 0.1.0
 */
export const evmNetworksOf = (networks: ReadonlyArray<Network>): Array<Network> =>
  networks.filter((n) => n.vm === "EVM" && n.chainId !== null)

/**
 * The chain entry of an EVM network.
 *
 * @category constructors
 * @since 0.1.0
 */
export const chainOf = (n: Network): AggregatorChain => ({
  chainId: Number(n.chainId),
  name: n.name,
  key: n.key,
  networkId: n.networkId,
  router: n.router
})

/**
 * The token entries of the EVM assets of a catalog that have a chain id and an
 * address; the zero address is the native coin.
 *
 * @category constructors
 * @since 0.1.0
 */
export const tokenListOf = (assets: ReadonlyArray<Asset>): Array<AggregatorToken> =>
  assets
    .filter((a) => a.network.vm === "EVM" && a.network.chainId !== null && a.address !== null)
    .map((a) => ({
      chainId: Number(a.network.chainId),
      address: a.address!,
      symbol: a.symbol,
      decimals: a.decimals,
      assetId: a.assetId,
      native: a.address!.toLowerCase() === ZERO_ADDRESS
    }))

/**
 * The lookup key of a token: `<chainId>:<lowercase address>`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const tokenKeyOf = (chainId: number | string, address: string): string => `${chainId}:${address.toLowerCase()}`

/**
 * The views of a catalog.
 *
 * @category constructors
 * @since 0.1.0
 */
export const catalogViewsOf = (catalog: Pick<Catalog["Service"], "networks" | "assets">): CatalogViews => {
  const evmNetworks = evmNetworksOf(catalog.networks)
  const tokenList = tokenListOf(catalog.assets)
  return {
    networkByChain: new Map(evmNetworks.map((n) => [n.chainId!, n])),
    chainList: evmNetworks.map(chainOf),
    tokenList,
    tokenKeys: new Set(tokenList.map((t) => tokenKeyOf(t.chainId, t.address)))
  }
}

// ---------------------------------------------------------------------------
// Chains
// ---------------------------------------------------------------------------

/**
 * The chains body of a publication at `now` (Unix seconds): the catalog's
 * chains, and the pair and route of every quotable route, in publication order.
 *
 * @category constructors
 * @since 0.1.0
 */
export const chainsOf = (
  publication: Publication,
  chainList: ReadonlyArray<AggregatorChain>,
  now: number
): AggregatorChains => {
  const pairs: Array<AggregatorPair> = []
  const routes: Array<AggregatorRoute> = []
  for (const r of publication.routes) {
    if (!quotable(r, now)) continue
    const pair = {
      fromChainId: Number(r.sourceChainId),
      toChainId: Number(r.destinationChainId),
      fromToken: r.sourceAsset!,
      toToken: r.destinationAsset!
    }
    pairs.push({ ...pair, routeId: r.routeId })
    routes.push({
      ...pair,
      routeId: r.routeId,
      quoteId: r.quoteId,
      dataVersion: r.dataVersion,
      validUntil: r.validUntil,
      minimumFillInRaw: r.minimumFillInRaw,
      maxAvailableInRaw: r.maxAvailableInRaw
    })
  }
  return {
    chains: chainList,
    pairs,
    routes,
    dataVersion: publication.dataVersion.toString(),
    validUntil: publication.validUntil
  }
}

/**
 * What `chains` reads.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChainsDeps {
  readonly current: Effect.Effect<Publication, AggregatorFailure>
  readonly chainList: ReadonlyArray<AggregatorChain>
}

/**
 * The `chains` operation of one service: {@link chainsOf} the current
 * publication, cached (in this instance) until the publication's version changes.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeChains = (deps: ChainsDeps): Effect.Effect<Versioned<AggregatorChains>, AggregatorFailure> => {
  let cache: Versioned<AggregatorChains> | undefined
  return Effect.gen(function*() {
    const publication = yield* deps.current
    const version = versionOf(publication)
    if (cache?.version === version) return cache
    const now = yield* nowSeconds
    cache = { value: chainsOf(publication, deps.chainList, now), version }
    return cache
  }).pipe(Effect.withSpan("Aggregator.chains"))
}

// ---------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------

/**
 * The tokens body of a publication: every listed token, or those of one chain.
 *
 * @category constructors
 * @since 0.1.0
 */
export const tokensOf = (
  publication: Publication,
  tokenList: ReadonlyArray<AggregatorToken>,
  chainId: number | undefined
): Versioned<AggregatorTokens> => ({
  value: {
    tokens: chainId === undefined ? tokenList : tokenList.filter((t) => t.chainId === chainId),
    dataVersion: publication.dataVersion.toString(),
    validUntil: publication.validUntil
  },
  version: versionOf(publication)
})

/**
 * What `tokens` reads.
 *
 * @category models
 * @since 0.1.0
 */
export interface TokensDeps {
  readonly current: Effect.Effect<Publication, AggregatorFailure>
  readonly views: Pick<CatalogViews, "networkByChain" | "tokenList">
}

/**
 * Token metadata, optionally of one chain (an unknown chain: UNSUPPORTED_CHAIN).
 *
 * @category constructors
 * @since 0.1.0
 */
export const tokens = Effect.fn("Aggregator.tokens")(function*(deps: TokensDeps, chainId?: number | undefined) {
  if (chainId !== undefined && !deps.views.networkByChain.has(String(chainId))) {
    return yield* failure("UNSUPPORTED_CHAIN", ["CHAIN_UNSUPPORTED"], {
      detail: "see GET /v1/chains for the supported chains"
    })
  }
  const publication = yield* deps.current
  return tokensOf(publication, deps.views.tokenList, chainId)
})

// ---------------------------------------------------------------------------
// Health and manifest
// ---------------------------------------------------------------------------

/**
 * Health of a publisher state at `now` (Unix seconds): OK with a valid
 * publication and an open route, DEGRADED with a valid publication and none,
 * UNAVAILABLE otherwise; the data of the last publication, if any.
 *
 * @category constructors
 * @since 0.1.0
 */
export const healthOf = (state: PublisherState, now: number): AggregatorHealth => {
  const last = state._tag === "Open" ? Option.some(state.publication) : state.last
  const publication = Option.getOrUndefined(last)
  const valid = state._tag === "Open" && state.publication.validUntil > now
  const openRouteCount = valid ? state.publication.routes.filter((r) => quotable(r, now)).length : 0
  return {
    status: !valid ? "UNAVAILABLE" as const : openRouteCount > 0 ? "OK" as const : "DEGRADED" as const,
    publicationOpen: valid,
    dataVersion: publication === undefined ? null : publication.dataVersion.toString(),
    feedValidUntil: publication === undefined ? null : publication.validUntil,
    openRouteCount,
    checkedAt: now
  }
}

/**
 * Availability of a publisher now (always answers).
 *
 * @category constructors
 * @since 0.1.0
 */
export const health = (publisher: Pick<Publisher["Service"], "state">): Effect.Effect<AggregatorHealth> =>
  Effect.gen(function*() {
    const state = yield* publisher.state
    const now = yield* nowSeconds
    return healthOf(state, now)
  }).pipe(Effect.withSpan("Aggregator.health"))

/**
 * The `/.well-known/svc-aggregator.json` document of a server at `publicUrl` (no
 * trailing slash).
 *
 * @category constructors
 * @since 0.1.0
 */
export const manifestOf = (publicUrl: string, feedSigner: Hex, limits: RateLimits): AggregatorManifest => ({
  schema: "SVC_AGGREGATOR_MANIFEST_V1",
  apiVersion: "v1",
  endpoints: {
    quote: `${publicUrl}/v1/quote`,
    build: `${publicUrl}/v1/build`,
    status: `${publicUrl}/v1/status`,
    chains: `${publicUrl}/v1/chains`,
    tokens: `${publicUrl}/v1/tokens`,
    health: `${publicUrl}/v1/health`,
    openapi: `${publicUrl}/openapi.json`
  },
  feedSigner,
  solverDiscovery: `${publicUrl}/.well-known/svc-solver.json`,
  rateLimits: {
    scope: "CLIENT",
    windowSeconds: limits.windowSeconds,
    requestsPerWindow: limits.requestsPerWindow,
    quoteAndBuildPerWindow: limits.quoteAndBuildPerWindow
  },
  limits: { bodyBytes: 32768, statusListMax: 20 }
})
