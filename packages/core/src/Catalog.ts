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
import { fromHex, type Hex, keccak, utf8 } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as Ids from "@svc/protocol/Ids"
import { strictParseOptions } from "@svc/protocol/schema/index"
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
} from "@svc/protocol/schema/Primitives"
import { Context, Data, Effect, Layer, Option, Result, Schema } from "effect"
import { encodeAbiParameters, getAddress } from "viem"
import { accountIdOf, assetOf, type Capabilities, type Connector, ConnectorRegistry, networkIdOf } from "./Connector.ts"

// ---------------------------------------------------------------------------
// Configuration schema
// ---------------------------------------------------------------------------

const Key = Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9._-]{0,63}$/u)).annotate({
  description: "a short lowercase name: a-z 0-9 . _ -"
})
const PositiveUintStr = UintStr.check(Schema.makeFilter((s: string) => s !== "0" || "must be greater than 0"))

/**
 * The deployment profile of a catalog. In `production` (the default), a route
 * whose destination connector cannot pay out publishes permitAvailable false; in
 * `demo` and `test` such a route stays available (permits are issued, nothing pays
 * them out) and the server announces it at start.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Profile = Schema.Literals(["production", "demo", "test"])
/** @since 0.1.0 */
export type Profile = typeof Profile.Type

/**
 * How svc settles on a network (see `ChainSettlement`); every field has a
 * default there.
 *
 * - `finality`: `finalized` (default) also waits, beyond `finalityBlocks`
 *   confirmations, for the block to be at or below the chain's own finalized
 *   block (EVM: the `finalized` tag; a node without it: confirmations only);
 *   `depth` counts confirmations only.
 * - `maxFeePerGas`: the highest fee cap of a payout, in the native coin's
 *   smallest unit per gas (wei): past it payouts wait, and an alert says so.
 * - `replaceAfterBlocks`: blocks a payout may stay pending before it is replaced
 *   at the same nonce with higher fees.
 * - `maxInFlight`: payouts sent and not yet mined at once (nodes limit the
 *   pending transactions of one sender).
 *
 * @category schemas
 * @since 0.1.0
 */
export const NetworkSettlementConfig = Schema.Struct({
  finality: Schema.optionalKey(Schema.Literals(["finalized", "depth"])),
  maxFeePerGas: Schema.optionalKey(PositiveUintStr),
  replaceAfterBlocks: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  maxInFlight: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)))
})
/** @since 0.1.0 */
export type NetworkSettlementConfig = typeof NetworkSettlementConfig.Type

/**
 * A network of the catalog, identified through the connector of its family
 * (`vm`): EVM networks give `chainId`; Solana (`vm: "SVM"`) gives `genesisHash`;
 * another family gives its connector's `native` reference. A network whose family
 * has no registered connector gives its 32-byte `reference` (and `vaultReference`)
 * instead; with a connector, explicit references must agree with the connector's.
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
  /** The native network reference of a family other than EVM and SVM, as its connector reads it. */
  native: Schema.optionalKey(Schema.String),
  reference: Schema.optionalKey(Bytes32),
  /** The V6 router (source execution target) on this network; EVM only. */
  router: Schema.optionalKey(Address),
  /** The solver vault on this network: an address (EVM) or a locator. */
  vault: Schema.Union([Address, Locator]),
  /** The 32-byte native account reference of the vault (only needed without a connector). */
  vaultReference: Schema.optionalKey(Bytes32),
  /** Default finality blocks of routes from this network. */
  finalityBlocks: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  /**
   * A USD price feed of the network's native coin, on this network (EVM: a
   * Chainlink-style AggregatorV3Interface address): prices the source gas of
   * route economics.
   */
  nativeUsdPriceFeed: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1))),
  /** How svc settles here (finality rule, fee ceiling, replacements, payouts in flight). */
  settlement: Schema.optionalKey(NetworkSettlementConfig)
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
  inventoryRaw: Schema.optionalKey(UintStr),
  /**
   * A USD price feed of the asset, on the asset's network (EVM: a Chainlink-style
   * AggregatorV3Interface address): read by oracle pricing and route economics.
   */
  usdPriceFeed: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1)))
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
  /** Deployment profile (default production); a server's SVC_PROFILE overrides it. */
  profile: Schema.optionalKey(Profile),
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
  /** The native network reference (an EVM chain id, a Solana genesis hash, ...); null without one. */
  readonly native: string | null
  /** EVM chain id, null for other families. */
  readonly chainId: string | null
  readonly router: Hex | null
  readonly vaultAddress: Hex | null
  readonly vaultLocator: Locator
  readonly vaultAccountId: Hex
  readonly finalityBlocks: number
  /** The USD price feed of the native coin (see `NetworkConfig.nativeUsdPriceFeed`), or null. */
  readonly nativeUsdPriceFeed: string | null
  /** What the family's registered connector supports; null when none is registered. */
  readonly capabilities: Capabilities | null
  /** The catalog's settlement settings of the network (defaults are the settlement runner's). */
  readonly settlement: {
    readonly finality?: "finalized" | "depth" | undefined
    readonly maxFeePerGas?: bigint | undefined
    readonly replaceAfterBlocks?: number | undefined
    readonly maxInFlight?: number | undefined
  }
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
  /** The asset's USD price feed on its network (see `AssetConfig.usdPriceFeed`), or null. */
  readonly usdPriceFeed: string | null
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
  /** Whether the destination network's connector can pay out; when not, `payoutNote` says why. */
  readonly payoutSupported: boolean
  readonly payoutNote: string | null
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
  readonly profile: Profile
  /**
   * What an operator must hear at start: routes kept available in the demo or
   * test profile although their destination cannot be paid out.
   */
  readonly notices: ReadonlyArray<string>
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

/**
 * Options of catalog resolution.
 *
 * @category models
 * @since 0.1.0
 */
export interface ResolveOptions {
  /** The connectors that resolve networks, assets and vaults. */
  readonly registry: ConnectorRegistry["Service"]
  /** Overrides the document's profile. */
  readonly profile?: Profile | undefined
}

const isAddress = (u: unknown): u is string => typeof u === "string" && /^0x[0-9a-fA-F]{40}$/.test(u)
const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const familyConnector = (registry: ConnectorRegistry["Service"], vmType: Hex): Connector | undefined =>
  Option.getOrUndefined(registry.get(vmType)) ?? registry.all.find((c) => c.vmType === vmType)

/**
 * Resolves a decoded catalog document: identifiers (through the connectors of
 * the registry), defaults, references and each route's permit availability.
 *
 * A route publishes permitAvailable true only when it is configured so, its
 * source network has a router (direct execution), its source connector supports
 * payers, its destination connector supports recipients, and the destination
 * connector can pay out, or the profile is demo or test (then a notice says so).
 *
 * @category constructors
 * @since 0.1.0
 */
export const resolve = (
  config: CatalogConfig,
  options: ResolveOptions
): Result.Result<Catalog["Service"], CatalogInvalid> =>
  Result.try({
    try: () => {
      const fail = (message: string): never => {
        throw new CatalogInvalid({ message })
      }
      const registry = options.registry
      const profile: Profile = options.profile ?? config.profile ?? "production"
      const releaseId = (config.releaseId ?? Ids.DEFAULT_RELEASE_ID).toLowerCase() as Hex
      const networks = new Map<string, Network>()
      const connectorOf = new Map<string, Connector | undefined>()
      for (const n of config.networks) {
        if (networks.has(n.key)) fail(`networks.${n.key}: duplicate key`)
        const at = `networks.${n.key}`
        const vmType = Ids.vmType(n.vm)
        if (n.vm === "EVM" && n.chainId === undefined) fail(`${at}: an EVM network needs chainId`)
        if (n.vm === "SVM" && n.genesisHash === undefined) fail(`${at}: an SVM network needs genesisHash`)
        if (n.chainId !== undefined && n.vm !== "EVM") fail(`${at}.chainId: only EVM networks have a chain id`)
        if (n.genesisHash !== undefined && n.vm !== "SVM") {
          fail(`${at}.genesisHash: only SVM networks have a genesis hash`)
        }
        if (n.router !== undefined && n.vm !== "EVM") fail(`${at}.router: only EVM networks have a router`)
        const native = n.chainId ?? n.genesisHash ?? n.native ?? null
        const family = familyConnector(registry, vmType)
        let networkId: Hex
        if (family !== undefined) {
          if (native === null) fail(`${at}: a ${n.vm} network needs its native reference (native)`)
          const id = networkIdOf(family, native!)
          if (Result.isFailure(id)) return fail(`${at}: ${id.failure.message}`)
          networkId = id.success
          if (n.reference !== undefined && Ids.networkId(vmType, n.reference) !== networkId) {
            fail(`${at}.reference: does not match the ${n.vm} connector's reference of ${native}`)
          }
        } else if (n.reference !== undefined) {
          networkId = Ids.networkId(vmType, n.reference)
        } else if (n.vm === "EVM") {
          networkId = Ids.evmNetworkId(n.chainId!)
        } else if (n.vm === "SVM") {
          networkId = Ids.solanaNetworkId(n.genesisHash!)
        } else {
          return fail(
            `${at}: no connector is registered for ${n.vm} networks; register one or give the 32-byte reference`
          )
        }
        const connector = Option.getOrUndefined(registry.forNetwork({ vmType, networkId }))
        connectorOf.set(n.key, connector)
        let vaultAddress: Hex | null = null
        let vaultLocator: Locator
        let vaultAccountId: Hex
        if (n.vm === "EVM" && !isAddress(n.vault)) fail(`${at}.vault: an EVM vault is an address`)
        if (n.vm !== "EVM" && !isObject(n.vault)) fail(`${at}.vault: give a locator for a ${n.vm} network`)
        if (connector !== undefined) {
          const locator = connector.parseLocator(n.vault)
          if (Result.isFailure(locator)) return fail(`${at}.vault: ${locator.failure.message}`)
          vaultLocator = locator.success
          vaultAddress = connector.evmAddress(vaultLocator)
          const id = accountIdOf(connector, networkId, vaultLocator)
          if (Result.isFailure(id)) return fail(`${at}.vault: ${id.failure.message}`)
          vaultAccountId = id.success
          if (n.vaultReference !== undefined && Ids.accountId(networkId, n.vaultReference) !== vaultAccountId) {
            fail(`${at}.vaultReference: does not match the ${n.vm} connector's reference of the vault`)
          }
        } else if (isAddress(n.vault)) {
          vaultAddress = getAddress(n.vault.toLowerCase()) as Hex
          vaultLocator = { native: n.vault.toLowerCase() }
          vaultAccountId = Ids.evmAccountId(networkId, vaultAddress)
        } else {
          if (n.vaultReference === undefined) {
            return fail(`${at}.vaultReference: required without a registered ${n.vm} connector`)
          }
          vaultLocator = n.vault as Locator
          vaultAccountId = Ids.accountId(networkId, n.vaultReference)
        }
        networks.set(n.key, {
          key: n.key,
          name: n.name,
          vm: n.vm,
          vmType,
          networkId,
          native,
          chainId: n.vm === "EVM" ? n.chainId! : null,
          router: n.router === undefined ? null : getAddress(n.router.toLowerCase()) as Hex,
          vaultAddress,
          vaultLocator,
          vaultAccountId,
          finalityBlocks: n.finalityBlocks ?? 1,
          nativeUsdPriceFeed: n.nativeUsdPriceFeed ?? null,
          capabilities: connector?.capabilities ?? null,
          settlement: {
            ...(n.settlement?.finality === undefined ? {} : { finality: n.settlement.finality }),
            ...(n.settlement?.maxFeePerGas === undefined ? {} : { maxFeePerGas: BigInt(n.settlement.maxFeePerGas) }),
            ...(n.settlement?.replaceAfterBlocks === undefined
              ? {}
              : { replaceAfterBlocks: n.settlement.replaceAfterBlocks }),
            ...(n.settlement?.maxInFlight === undefined ? {} : { maxInFlight: n.settlement.maxInFlight })
          }
        })
      }
      const assets = new Map<string, Asset>()
      for (const a of config.assets) {
        if (assets.has(a.key)) fail(`assets.${a.key}: duplicate key`)
        const at = `assets.${a.key}`
        const network = networks.get(a.network) ?? fail(`${at}.network: no network ${a.network}`)
        const connector = connectorOf.get(network.key)
        if (network.vm === "EVM" && a.address === undefined) {
          fail(`${at}: an EVM asset needs address (zero address = native coin)`)
        }
        if (network.vm !== "EVM" && a.locator === undefined) fail(`${at}: a ${network.vm} asset needs a locator`)
        let assetId: Hex
        let address: Hex | null
        let locator: Locator
        if (connector !== undefined) {
          const bound = assetOf(connector, a.address ?? a.locator, {
            networkId: network.networkId,
            native: network.native!
          })
          if (Result.isFailure(bound)) return fail(`${at}: ${bound.failure.message}`)
          assetId = bound.success.assetId
          address = bound.success.address
          locator = bound.success.locator
          if (a.reference !== undefined && Ids.assetId(network.networkId, a.reference) !== assetId) {
            fail(`${at}.reference: does not match the ${network.vm} connector's reference of the asset`)
          }
        } else if (network.vm === "EVM") {
          address = getAddress(a.address!.toLowerCase()) as Hex
          assetId = Ids.evmAssetId(network.networkId, address)
          locator = { chainId: network.chainId!, token: address.toLowerCase() }
        } else {
          if (a.reference === undefined) {
            return fail(`${at}.reference: required without a registered ${network.vm} connector`)
          }
          address = null
          locator = a.locator!
          assetId = Ids.assetId(network.networkId, a.reference)
        }
        assets.set(a.key, {
          key: a.key,
          network,
          assetId,
          symbol: a.symbol,
          decimals: a.decimals,
          address,
          locator,
          inventoryRaw: a.inventoryRaw === undefined ? null : BigInt(a.inventoryRaw),
          usdPriceFeed: a.usdPriceFeed ?? null
        })
      }
      const routes: Array<CatalogRoute> = []
      const notices: Array<string> = []
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
        const from = source.network.capabilities
        const to = destination.network.capabilities
        const payoutSupported = to?.payout === true
        const payoutNote = payoutSupported
          ? null
          : to === null
          ? `no connector is registered for ${destination.network.vm} networks`
          : to.payoutNote ?? `the ${destination.network.vm} connector does not pay out`
        const configured = (r.permitAvailable ?? true) &&
          // direct execution (fillDirect) needs an EVM source network with a router
          source.network.router !== null &&
          from?.payer === true &&
          to?.recipient === true
        const permitAvailable = configured && (payoutSupported || profile !== "production")
        if (configured && !payoutSupported && permitAvailable) {
          notices.push(
            `profile ${profile}: route ${r.source} -> ${r.destination} (${routeId}) is open for permits although ` +
              `${destination.network.name} cannot be paid out: ${payoutNote}`
          )
        }
        routes.push({
          ...base,
          source,
          destination,
          publicationRank: r.publicationRank ?? i,
          priceNumeratorRaw: BigInt(r.price.numeratorRaw),
          priceDenominatorRaw: BigInt(r.price.denominatorRaw),
          executionStatus: r.executionStatus ?? "OPEN",
          dailyStatus: r.dailyStatus ?? "OPEN",
          permitAvailable,
          payoutSupported,
          payoutNote,
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
        profile,
        notices,
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
export const fromUnknown = (
  input: unknown,
  options: ResolveOptions
): Result.Result<Catalog["Service"], CatalogInvalid> => {
  const decoded = decodeConfig(input, strictParseOptions)
  if (Result.isFailure(decoded)) {
    return Result.fail(new CatalogInvalid({ message: decoded.failure.message.replace(/\s*\n\s*/g, " ") }))
  }
  return resolve(decoded.success, options)
}

/**
 * A catalog layer from a document, resolved through the connectors of the
 * {@link ConnectorRegistry} in context.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  input: unknown,
  options?: { readonly profile?: Profile | undefined }
): Layer.Layer<Catalog, CatalogInvalid, ConnectorRegistry> =>
  Layer.effect(
    Catalog,
    Effect.gen(function*() {
      const registry = yield* ConnectorRegistry
      return yield* Effect.fromResult(fromUnknown(input, { registry, profile: options?.profile }))
    })
  )

/**
 * The zero address, used for EVM bindings of non-EVM sides.
 *
 * @category constants
 * @since 0.1.0
 */
export const ZERO = ZERO_ADDRESS as Hex
