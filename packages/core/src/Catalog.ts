/**
 * The route catalog of a solver: networks, assets, vaults and routes, validated
 * from configuration (a JSON/YAML document or code) and resolved to their
 * identifiers (networkId, assetId, accountId, routeId, policyHash,
 * executionGeneration).
 *
 * The catalog is static for a process; an operator changes a route's statuses at
 * run time through the store's operator overrides (see `Publisher`).
 *
 * @since 0.1.0
 */
import { Context, Data, Effect, Layer, Result, Schema } from "effect"
import { encodeAbiParameters, getAddress } from "viem"
import * as CanonicalJson from "./CanonicalJson.ts"
import * as Ids from "./Ids.ts"
import { fromHex, keccak, type Hex, utf8 } from "./internal/bytes.ts"
import {
  Address,
  Bytes32,
  DailyStatus,
  ExecutionStatus,
  Locator,
  PublicationLane,
  ServiceFeeBps,
  TokenDecimals,
  UintStr
} from "./schema/Primitives.ts"
import { strictParseOptions } from "./schema/index.ts"

// ---------------------------------------------------------------------------
// Configuration schema
// ---------------------------------------------------------------------------

const Key = Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9._-]{0,63}$/u)).annotate({
  description: "a short lowercase name: a-z 0-9 . _ -"
})
const PositiveUintStr = UintStr.check(Schema.makeFilter((s: string) => s !== "0" || "must be greater than 0"))

/**
 * A network of the catalog. EVM networks give `chainId`; Solana (`vm: "SVM"`)
 * gives `genesisHash`; another family gives its 32-byte `reference`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const NetworkConfig = Schema.Struct({
  key: Key,
  name: Schema.String,
  vm: Schema.String.check(Schema.isPattern(/^[A-Z0-9]{2,16}$/u)),
  chainId: Schema.optionalKey(PositiveUintStr),
  genesisHash: Schema.optionalKey(Schema.String),
  reference: Schema.optionalKey(Bytes32),
  /** The V6 router (source execution target) on this network; EVM only. */
  router: Schema.optionalKey(Address),
  /** The solver vault on this network: an address (EVM) or a locator. */
  vault: Schema.Union([Address, Locator]),
  /** Default finality blocks of routes from this network. */
  finalityBlocks: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)))
})
/** @since 0.1.0 */
export type NetworkConfig = typeof NetworkConfig.Type

/**
 * An asset of the catalog: an EVM token address (the zero address is the native
 * coin) or a locator for other families.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AssetConfig = Schema.Struct({
  key: Key,
  network: Key,
  symbol: Schema.String,
  decimals: TokenDecimals,
  address: Schema.optionalKey(Address),
  locator: Schema.optionalKey(Locator),
  /** The 32-byte native asset reference (families other than EVM). */
  reference: Schema.optionalKey(Bytes32),
  /** Physical inventory of the solver in this asset (raw units), when it is a destination. */
  inventoryRaw: Schema.optionalKey(UintStr)
})
/** @since 0.1.0 */
export type AssetConfig = typeof AssetConfig.Type

/**
 * A directional route between two assets.
 *
 * `price` is the indicative price in raw units: destination raw per source raw
 * is numeratorRaw / denominatorRaw, before the service fee.
 *
 * @category schemas
 * @since 0.1.0
 */
export const RouteConfig = Schema.Struct({
  source: Key,
  destination: Key,
  publicationLane: Schema.optionalKey(PublicationLane),
  publicationRank: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  serviceCategory: Schema.optionalKey(Schema.String),
  feeMode: Schema.optionalKey(Schema.String),
  serviceFeeBps: Schema.optionalKey(ServiceFeeBps.check(
    Schema.makeFilter((n: number | null) => n === null || Number.isInteger(n) || "an integer number of basis points")
  )),
  price: Schema.Struct({ numeratorRaw: PositiveUintStr, denominatorRaw: PositiveUintStr }),
  minimumFillInRaw: PositiveUintStr,
  maximumFillInRaw: Schema.optionalKey(PositiveUintStr),
  executionStatus: Schema.optionalKey(ExecutionStatus),
  dailyStatus: Schema.optionalKey(DailyStatus),
  permitAvailable: Schema.optionalKey(Schema.Boolean),
  sourceFinalityBlocks: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  settlementWindowSeconds: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  /** Generation counter of the route's on-chain execution state; bump to invalidate. Default 1. */
  executionGeneration: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  assumptionsHash: Schema.optionalKey(Schema.NullOr(Bytes32)),
  legacyRouteId: Schema.optionalKey(Schema.NullOr(Bytes32))
})
/** @since 0.1.0 */
export type RouteConfig = typeof RouteConfig.Type

/**
 * A catalog document.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CatalogConfig = Schema.Struct({
  $schema: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  releaseId: Schema.optionalKey(Bytes32),
  /** Length of a route's quote window (validAfter..validUntil), seconds. Default 86400. */
  quoteWindowSeconds: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 60, maximum: 31_536_000 }))),
  networks: Schema.Array(NetworkConfig),
  assets: Schema.Array(AssetConfig),
  routes: Schema.Array(RouteConfig)
}).annotate({ identifier: "CatalogConfig" })
/** @since 0.1.0 */
export type CatalogConfig = typeof CatalogConfig.Type

// ---------------------------------------------------------------------------
// Resolved catalog
// ---------------------------------------------------------------------------

/**
 * A network with its identifiers.
 *
 * @category models
 * @since 0.1.0
 */
export interface Network {
  readonly key: string
  readonly name: string
  readonly vm: string
  readonly vmType: Hex
  readonly networkId: Hex
  /** EVM chain id, null for other families. */
  readonly chainId: string | null
  readonly router: Hex | null
  readonly vaultAddress: Hex | null
  readonly vaultLocator: Locator
  readonly vaultAccountId: Hex
  readonly finalityBlocks: number
}

/**
 * An asset with its identifiers.
 *
 * @category models
 * @since 0.1.0
 */
export interface Asset {
  readonly key: string
  readonly network: Network
  readonly assetId: Hex
  readonly symbol: string
  readonly decimals: number
  /** EVM token address (EIP-55), null for other families. */
  readonly address: Hex | null
  readonly locator: Locator
  readonly inventoryRaw: bigint | null
}

/**
 * A route with its identifiers and defaults applied.
 *
 * @category models
 * @since 0.1.0
 */
export interface CatalogRoute {
  readonly routeId: Hex
  readonly source: Asset
  readonly destination: Asset
  readonly publicationLane: PublicationLane
  readonly publicationRank: number
  readonly serviceCategory: string
  readonly feeMode: string
  readonly serviceFeeBps: number | null
  readonly priceNumeratorRaw: bigint
  readonly priceDenominatorRaw: bigint
  readonly minimumFillInRaw: bigint
  readonly maximumFillInRaw: bigint | null
  readonly executionStatus: ExecutionStatus
  readonly dailyStatus: DailyStatus
  readonly permitAvailable: boolean
  readonly sourceFinalityBlocks: number
  readonly settlementWindowSeconds: number
  readonly executionGeneration: Hex
  readonly policyHash: Hex
  readonly assumptionsHash: Hex | null
  readonly legacyRouteId: Hex | null
}

/**
 * The catalog service.
 *
 * @category services
 * @since 0.1.0
 */
export class Catalog extends Context.Service<Catalog, {
  readonly releaseId: Hex
  readonly quoteWindowSeconds: number
  readonly networks: ReadonlyArray<Network>
  readonly assets: ReadonlyArray<Asset>
  readonly routes: ReadonlyArray<CatalogRoute>
  readonly route: (routeId: string) => CatalogRoute | undefined
  readonly network: (networkId: string) => Network | undefined
}>()("@svc/core/Catalog") {}

/**
 * A catalog document that does not describe a valid catalog.
 *
 * @category errors
 * @since 0.1.0
 */
export class CatalogInvalid extends Data.TaggedError("CatalogInvalid")<{ readonly message: string }> {}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"

/**
 * executionGeneration = keccak256(abi.encode(bytes32 routeId, uint64 generation)).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const executionGenerationOf = (routeId: Hex, generation: number): Hex =>
  keccak(fromHex(encodeAbiParameters([{ type: "bytes32" }, { type: "uint64" }], [routeId, BigInt(generation)])))

/**
 * policyHash = keccak256(UTF-8 canonical JSON of the route's execution policy:
 * schema SVC_V6_ROUTE_POLICY_V1, routeId, lane, serviceCategory, feeMode,
 * serviceFeeBps, minimumFillInRaw, maximumFillInRaw, sourceFinalityBlocks,
 * settlementWindowSeconds).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const policyHashOf = (policy: {
  readonly routeId: Hex
  readonly publicationLane: string
  readonly serviceCategory: string
  readonly feeMode: string
  readonly serviceFeeBps: number | null
  readonly minimumFillInRaw: bigint
  readonly maximumFillInRaw: bigint | null
  readonly sourceFinalityBlocks: number
  readonly settlementWindowSeconds: number
}): Hex =>
  keccak(utf8(CanonicalJson.stringify({
    schema: "SVC_V6_ROUTE_POLICY_V1",
    routeId: policy.routeId,
    publicationLane: policy.publicationLane,
    serviceCategory: policy.serviceCategory,
    feeMode: policy.feeMode,
    serviceFeeBps: policy.serviceFeeBps,
    minimumFillInRaw: policy.minimumFillInRaw.toString(),
    maximumFillInRaw: policy.maximumFillInRaw === null ? null : policy.maximumFillInRaw.toString(),
    sourceFinalityBlocks: policy.sourceFinalityBlocks,
    settlementWindowSeconds: policy.settlementWindowSeconds
  })))

const networkIdOf = (n: NetworkConfig, fail: (m: string) => never): { vmType: Hex; networkId: Hex } => {
  if (n.vm === "EVM") {
    if (n.chainId === undefined) return fail(`networks.${n.key}: an EVM network needs chainId`)
    return { vmType: Ids.EVM_VM_TYPE, networkId: Ids.evmNetworkId(n.chainId) }
  }
  if (n.vm === "SVM") {
    if (n.genesisHash === undefined) return fail(`networks.${n.key}: an SVM network needs genesisHash`)
    return { vmType: Ids.SOLANA_VM_TYPE, networkId: Ids.solanaNetworkId(n.genesisHash) }
  }
  if (n.reference === undefined) return fail(`networks.${n.key}: a ${n.vm} network needs a 32-byte reference`)
  const vmType = Ids.vmType(n.vm)
  return { vmType, networkId: Ids.networkId(vmType, n.reference) }
}

const isAddress = (u: unknown): u is string => typeof u === "string" && /^0x[0-9a-fA-F]{40}$/.test(u)

/**
 * Resolves a decoded catalog document: identifiers, defaults and references.
 *
 * @category constructors
 * @since 0.1.0
 */
export const resolve = (config: CatalogConfig): Result.Result<Catalog["Service"], CatalogInvalid> =>
  Result.try({
    try: () => {
      const fail = (message: string): never => {
        throw new CatalogInvalid({ message })
      }
      const releaseId = (config.releaseId ?? Ids.DEFAULT_RELEASE_ID).toLowerCase() as Hex
      const networks = new Map<string, Network>()
      for (const n of config.networks) {
        if (networks.has(n.key)) fail(`networks: duplicate key ${n.key}`)
        const { networkId, vmType } = networkIdOf(n, fail)
        let vaultAddress: Hex | null = null
        let vaultLocator: Locator
        let vaultReference: Hex
        if (isAddress(n.vault)) {
          if (n.vm !== "EVM") fail(`networks.${n.key}.vault: give a locator for a ${n.vm} network`)
          vaultAddress = getAddress(n.vault.toLowerCase()) as Hex
          vaultLocator = { native: n.vault.toLowerCase() }
          vaultReference = Ids.evmReference(vaultAddress)
        } else {
          if (n.vm === "EVM") fail(`networks.${n.key}.vault: an EVM vault is an address`)
          vaultLocator = n.vault as Locator
          const ref = (n.vault as Record<string, unknown>).reference
          vaultReference = typeof ref === "string" && /^0x[0-9a-fA-F]{64}$/.test(ref)
            ? ref.toLowerCase() as Hex
            : keccak(utf8(CanonicalJson.stringify(n.vault)))
        }
        if (n.router !== undefined && n.vm !== "EVM") fail(`networks.${n.key}.router: only EVM networks have a router`)
        networks.set(n.key, {
          key: n.key,
          name: n.name,
          vm: n.vm,
          vmType,
          networkId,
          chainId: n.vm === "EVM" ? n.chainId! : null,
          router: n.router === undefined ? null : getAddress(n.router.toLowerCase()) as Hex,
          vaultAddress,
          vaultLocator,
          vaultAccountId: Ids.accountId(networkId, vaultReference),
          finalityBlocks: n.finalityBlocks ?? 1
        })
      }
      const assets = new Map<string, Asset>()
      for (const a of config.assets) {
        if (assets.has(a.key)) fail(`assets: duplicate key ${a.key}`)
        const network = networks.get(a.network) ?? fail(`assets.${a.key}.network: no network ${a.network}`)
        let assetId: Hex
        let address: Hex | null = null
        let locator: Locator
        if (network.vm === "EVM") {
          if (a.address === undefined) fail(`assets.${a.key}: an EVM asset needs address (zero address = native coin)`)
          address = getAddress(a.address!.toLowerCase()) as Hex
          assetId = Ids.evmAssetId(network.networkId, address)
          locator = { chainId: network.chainId!, token: address.toLowerCase() }
        } else {
          if (a.locator === undefined) fail(`assets.${a.key}: a ${network.vm} asset needs a locator`)
          locator = a.locator!
          const reference = a.reference?.toLowerCase() as Hex | undefined ?? keccak(utf8(CanonicalJson.stringify(a.locator)))
          assetId = Ids.assetId(network.networkId, reference)
        }
        assets.set(a.key, {
          key: a.key,
          network,
          assetId,
          symbol: a.symbol,
          decimals: a.decimals,
          address,
          locator,
          inventoryRaw: a.inventoryRaw === undefined ? null : BigInt(a.inventoryRaw)
        })
      }
      const routes: Array<CatalogRoute> = []
      const seen = new Set<string>()
      for (const [i, r] of config.routes.entries()) {
        const source = assets.get(r.source) ?? fail(`routes[${i}].source: no asset ${r.source}`)
        const destination = assets.get(r.destination) ?? fail(`routes[${i}].destination: no asset ${r.destination}`)
        if (source.assetId === destination.assetId) fail(`routes[${i}]: source and destination are the same asset`)
        const routeId = Ids.routeId({
          sourceNetworkId: source.network.networkId,
          sourceAssetId: source.assetId,
          destinationNetworkId: destination.network.networkId,
          destinationAssetId: destination.assetId,
          releaseId
        })
        if (seen.has(routeId)) fail(`routes[${i}]: duplicate route ${r.source} -> ${r.destination}`)
        seen.add(routeId)
        const minimumFillInRaw = BigInt(r.minimumFillInRaw)
        const maximumFillInRaw = r.maximumFillInRaw === undefined ? null : BigInt(r.maximumFillInRaw)
        if (maximumFillInRaw !== null && maximumFillInRaw < minimumFillInRaw) {
          fail(`routes[${i}].maximumFillInRaw: below minimumFillInRaw`)
        }
        if (minimumFillInRaw >= 1n << 128n) fail(`routes[${i}].minimumFillInRaw: must be below 2^128`)
        const base = {
          routeId,
          publicationLane: r.publicationLane ?? "L1",
          serviceCategory: r.serviceCategory ?? "DIRECT_FILL",
          feeMode: r.feeMode ?? "FEE_INCLUDED_IN_OUTPUT",
          serviceFeeBps: r.serviceFeeBps === undefined ? 0 : r.serviceFeeBps,
          minimumFillInRaw,
          maximumFillInRaw,
          sourceFinalityBlocks: r.sourceFinalityBlocks ?? source.network.finalityBlocks,
          settlementWindowSeconds: r.settlementWindowSeconds ?? 900
        } as const
        routes.push({
          ...base,
          source,
          destination,
          publicationRank: r.publicationRank ?? i,
          priceNumeratorRaw: BigInt(r.price.numeratorRaw),
          priceDenominatorRaw: BigInt(r.price.denominatorRaw),
          executionStatus: r.executionStatus ?? "OPEN",
          dailyStatus: r.dailyStatus ?? "OPEN",
          // direct execution (fillDirect) needs an EVM source network with a router
          permitAvailable: (r.permitAvailable ?? true) && source.network.router !== null,
          executionGeneration: executionGenerationOf(routeId, r.executionGeneration ?? 1),
          policyHash: policyHashOf(base),
          assumptionsHash: r.assumptionsHash === undefined || r.assumptionsHash === null
            ? null
            : r.assumptionsHash.toLowerCase() as Hex,
          legacyRouteId: r.legacyRouteId === undefined || r.legacyRouteId === null
            ? null
            : r.legacyRouteId.toLowerCase() as Hex
        })
      }
      const byRoute = new Map(routes.map((r) => [r.routeId, r]))
      const byNetwork = new Map([...networks.values()].map((n) => [n.networkId, n]))
      return Catalog.of({
        releaseId,
        quoteWindowSeconds: config.quoteWindowSeconds ?? 86_400,
        networks: [...networks.values()],
        assets: [...assets.values()],
        routes,
        route: (routeId) => byRoute.get(routeId.toLowerCase() as Hex),
        network: (networkId) => byNetwork.get(networkId.toLowerCase() as Hex)
      })
    },
    catch: (e) => e instanceof CatalogInvalid ? e : new CatalogInvalid({ message: String((e as Error)?.message ?? e) })
  })

const decodeConfig = Schema.decodeUnknownResult(CatalogConfig)

/**
 * Decodes and resolves a catalog document (already parsed from JSON or YAML).
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromUnknown = (input: unknown): Result.Result<Catalog["Service"], CatalogInvalid> => {
  const decoded = decodeConfig(input, strictParseOptions)
  if (Result.isFailure(decoded)) {
    return Result.fail(new CatalogInvalid({ message: decoded.failure.message.replace(/\s*\n\s*/g, " ") }))
  }
  return resolve(decoded.success)
}

/**
 * A catalog layer from a document.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (input: unknown): Layer.Layer<Catalog, CatalogInvalid> =>
  Layer.effect(Catalog, Effect.fromResult(fromUnknown(input)))

/**
 * The zero address, used for EVM bindings of non-EVM sides.
 *
 * @category constants
 * @since 0.1.0
 */
export const ZERO = ZERO_ADDRESS as Hex
