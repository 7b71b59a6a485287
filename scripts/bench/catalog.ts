/**
 * A large, realistic catalog document for the benchmarks (the `CatalogConfig`
 * schema of packages/core/src/Catalog.ts): 10 EVM networks × 5 assets with their
 * usual decimals, inventory worth $5M per asset, and directional routes between
 * assets of different networks (stable → stable in lane L1, same-asset bridges of
 * volatile assets in L2, everything else in L3). Deterministic: token addresses
 * are derived from labels (never real contracts), no randomness.
 */
import { keccakUtf8 } from "../../packages/protocol/src/Bytes.ts"

interface NetworkSpec {
  readonly key: string
  readonly name: string
  readonly chainId: string
  readonly finalityBlocks: number
}

interface AssetSpec {
  readonly symbol: string
  /** USD price per whole token, integer. */
  readonly usd: number
  readonly decimals: (network: string) => number
  readonly stable: boolean
}

const NETWORKS: ReadonlyArray<NetworkSpec> = [
  { key: "ethereum", name: "Ethereum", chainId: "1", finalityBlocks: 12 },
  { key: "optimism", name: "OP Mainnet", chainId: "10", finalityBlocks: 10 },
  { key: "bsc", name: "BNB Smart Chain", chainId: "56", finalityBlocks: 3 },
  { key: "polygon", name: "Polygon PoS", chainId: "137", finalityBlocks: 64 },
  { key: "hyperevm", name: "HyperEVM", chainId: "999", finalityBlocks: 1 },
  { key: "base", name: "Base", chainId: "8453", finalityBlocks: 2 },
  { key: "arbitrum", name: "Arbitrum One", chainId: "42161", finalityBlocks: 20 },
  { key: "avalanche", name: "Avalanche C-Chain", chainId: "43114", finalityBlocks: 1 },
  { key: "linea", name: "Linea", chainId: "59144", finalityBlocks: 5 },
  { key: "scroll", name: "Scroll", chainId: "534352", finalityBlocks: 5 }
]

const ASSETS: ReadonlyArray<AssetSpec> = [
  { symbol: "USDC", usd: 1, decimals: (n) => (n === "bsc" ? 18 : 6), stable: true },
  { symbol: "USDT", usd: 1, decimals: (n) => (n === "bsc" ? 18 : 6), stable: true },
  { symbol: "DAI", usd: 1, decimals: () => 18, stable: true },
  { symbol: "WETH", usd: 3000, decimals: () => 18, stable: false },
  { symbol: "WBTC", usd: 60000, decimals: () => 8, stable: false }
]

/** Placeholder router and vault (the demo catalog's documented placeholders). */
const ROUTER = "0x2Af7d059E5efdBe1D2A234B78DF91E948ee22Ee2"
const VAULT = "0x3D025A6376164AaCE132294B942203f1B22462CF"

const addressOf = (label: string): string => `0x${keccakUtf8(`svc bench token ${label}`).slice(-40)}`

const gcd = (a: bigint, b: bigint): bigint => {
  while (b !== 0n) [a, b] = [b, a % b]
  return a
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b

/** Raw units worth `usd` dollars of an asset, rounded up, at least 1. */
const rawWorth = (usd: bigint, asset: { usd: number; decimals: number }): bigint => {
  const v = ceilDiv(usd * 10n ** BigInt(asset.decimals), BigInt(asset.usd))
  return v < 1n ? 1n : v
}

/**
 * A catalog document with `routeCount` routes (at most 2,250: every ordered pair
 * of assets on different networks).
 */
export const generateCatalog = (routeCount = 2000): Record<string, unknown> => {
  const networks = NETWORKS.map((n) => ({
    key: n.key,
    name: n.name,
    vm: "EVM",
    chainId: n.chainId,
    router: ROUTER,
    vault: VAULT,
    finalityBlocks: n.finalityBlocks
  }))
  const assets = NETWORKS.flatMap((n) =>
    ASSETS.map((a) => {
      const decimals = a.decimals(n.key)
      return {
        key: `${a.symbol.toLowerCase()}.${n.key}`,
        network: n.key,
        symbol: a.symbol,
        decimals,
        address: addressOf(`${n.key}/${a.symbol}`),
        inventoryRaw: rawWorth(5_000_000n, { usd: a.usd, decimals }).toString(),
        spec: a
      }
    })
  )
  const pairs: Array<[number, number]> = []
  for (let i = 0; i < assets.length; i++) {
    for (let j = 0; j < assets.length; j++) {
      if (assets[i]!.network !== assets[j]!.network) pairs.push([i, j])
    }
  }
  // spread the dropped pairs evenly so every asset keeps routes
  const keep = pairs.length <= routeCount
    ? pairs
    : pairs.filter((_, k) =>
      Math.floor(((k + 1) * routeCount) / pairs.length) > Math.floor((k * routeCount) / pairs.length)
    )
  const ranks = new Map<string, number>()
  const routes = keep.slice(0, routeCount).map(([i, j]) => {
    const src = assets[i]!
    const dst = assets[j]!
    const lane = src.spec.stable && dst.spec.stable ? "L1" : src.symbol === dst.symbol ? "L2" : "L3"
    const rank = ranks.get(lane) ?? 0
    ranks.set(lane, rank + 1)
    // destination raw per source raw = (usdSrc * 10^dDst) / (usdDst * 10^dSrc)
    let numerator = BigInt(src.spec.usd) * 10n ** BigInt(dst.decimals)
    let denominator = BigInt(dst.spec.usd) * 10n ** BigInt(src.decimals)
    const g = gcd(numerator, denominator)
    numerator /= g
    denominator /= g
    const stable = lane === "L1"
    return {
      source: src.key,
      destination: dst.key,
      publicationLane: lane,
      publicationRank: rank,
      serviceCategory: stable ? "STABLE_DIRECT" : "VOLATILE_DIRECT",
      feeMode: "FEE_INCLUDED_IN_OUTPUT",
      serviceFeeBps: stable ? 4 : 20,
      price: { numeratorRaw: numerator.toString(), denominatorRaw: denominator.toString() },
      minimumFillInRaw: rawWorth(1n, { usd: src.spec.usd, decimals: src.decimals }).toString(),
      maximumFillInRaw: rawWorth(250_000n, { usd: src.spec.usd, decimals: src.decimals }).toString(),
      settlementWindowSeconds: stable ? 600 : 900
    }
  })
  return {
    description:
      `svc benchmark catalog: ${routes.length} routes between ${networks.length} EVM networks x ${ASSETS.length} assets (generated; token addresses are placeholders).`,
    quoteWindowSeconds: 86_400,
    networks,
    assets: assets.map(({ spec: _spec, ...a }) => a),
    routes
  }
}
