/**
 * Network connectors: the plug-in point through which svc handles the networks of
 * a family (EVM, Solana, ...): their identity, their assets, the locators of their
 * accounts, account ids, and the ownership proofs of permit requests.
 *
 * A connector serves one virtual-machine family, identified by its vmType
 * (keccak256 of the family name, e.g. keccak256("EVM")). Each connector is an
 * Effect service ({@link Connector}); the {@link ConnectorRegistry} maps vmTypes
 * (and, optionally, single networkIds) to connectors. The catalog resolves every
 * network, asset and vault through it, and the permit service resolves every
 * payer and recipient identity and verifies every ownership proof through it.
 *
 * A connector package's default export is a {@link Plugin}: the server loads the
 * packages its configuration names (`SVC_CONNECTORS`) and registers what they return.
 *
 * Invariants every connector keeps (docs/connectors.md; checked by the testkit
 * `@svc/core/testing/ConnectorTestkit`):
 *
 * 1. Parsing is total: `parseLocator`, `parseAsset` and `networkReference` give a
 *    value or a typed {@link ConnectorError} for any input, never a defect.
 * 2. The canonical form is a fixed point: parsing a canonical locator returns it
 *    unchanged, and parsing its native rendering returns it too. The canonical
 *    JSON of the canonical locator is what the permit request message carries.
 * 3. accountId = keccak256(abi.encode(networkId, accountReference(locator))) is
 *    deterministic and collision-resistant across networks: distinct canonical
 *    locators have distinct references, and networkIds embed the vmType, so one
 *    locator has a different account id on every network of every family.
 * 4. A proof verifies only when made by the locator's owner over the exact bytes
 *    of the message, and never for a network of another family (or a networkId
 *    that is not the one of the claimed network) nor for a locator of another family.
 * 5. Verification failures are typed: {@link ConnectorError} when the proof is
 *    refused (answered 400), {@link ConnectorUnavailable} when the connector could
 *    not decide (an RPC down; answered 503).
 *
 * @since 0.1.0
 */
import type { Hex } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as Ids from "@svc/protocol/Ids"
import type { Locator } from "@svc/protocol/schema/Primitives"
import { Context, Data, Effect, Layer, Option, Result } from "effect"
import type { MarketSupport, SettlementSupport } from "./Chain.ts"

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/**
 * A refused input or proof. `code` is a stable SCREAMING_SNAKE_CASE reason code
 * (LOCATOR_INVALID, NETWORK_REFERENCE_INVALID, ASSET_INVALID, PROOF_MALFORMED,
 * SIGNER_MISMATCH, NETWORK_MISMATCH, RPC_NOT_CONFIGURED, ...); the permit service
 * reports it as a reasonCode of a 400 answer.
 *
 * @category errors
 * @since 0.1.0
 */
export class ConnectorError extends Data.TaggedError("ConnectorError")<{
  readonly code: string
  readonly message: string
}> {}

/**
 * The connector could not decide (for example its RPC endpoint is unreachable).
 * Never a verdict on the proof: the permit service answers 503 and the client may retry.
 *
 * @category errors
 * @since 0.1.0
 */
export class ConnectorUnavailable extends Data.TaggedError("ConnectorUnavailable")<{
  readonly code: string
  readonly message: string
}> {}

// ---------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------

/**
 * What a connector supports.
 *
 * @category models
 * @since 0.1.0
 */
export interface Capabilities {
  /** Payer identities: ownership proofs of permit requests. */
  readonly payer: boolean
  /** Recipient identities: locators validated and their account ids checked. */
  readonly recipient: boolean
  /**
   * Paying out to recipients of this family. Routes to a network whose connector
   * cannot pay out publish permitAvailable false, except in the demo and test profiles.
   */
  readonly payout: boolean
  /** Why payout is not supported, shown to operators and in permit envelopes. */
  readonly payoutNote?: string | undefined
}

/**
 * A network as a connector sees it: its networkId and its native reference as the
 * catalog configures it (an EVM chain id such as "8453", a Solana genesis hash, ...).
 *
 * @category models
 * @since 0.1.0
 */
export interface ConnectorNetwork {
  readonly networkId: Hex
  readonly native: string
}

/**
 * An asset resolved by a connector.
 *
 * @category models
 * @since 0.1.0
 */
export interface AssetBinding {
  /** The canonical asset locator (Route.sourceLocator / Route.destinationLocator). */
  readonly locator: Locator
  /** The 32-byte native asset reference: assetId = keccak256(abi.encode(networkId, reference)). */
  readonly reference: Hex
  /** The EVM token address (EIP-55) of EVM assets; null for other families. */
  readonly address: Hex | null
}

/**
 * An ownership proof to verify: `proof` must be made by the owner of `locator`
 * on `network` over the exact UTF-8 bytes of `message`.
 *
 * @category models
 * @since 0.1.0
 */
export interface OwnershipClaim {
  readonly network: ConnectorNetwork
  readonly locator: Locator
  readonly message: string
  readonly proof: string
}

/**
 * The connector contract.
 *
 * @category models
 * @since 0.1.0
 */
export interface Connector {
  /** Family name: 2 to 16 characters A-Z 0-9, as the catalog's `vm` ("EVM", "SVM"). */
  readonly family: string
  /** keccak256(utf8(family)). */
  readonly vmType: Hex
  readonly capabilities: Capabilities
  /** Names of the proof schemes it verifies (documentation, e.g. "EIP191_PERSONAL_SIGN"). */
  readonly proofSchemes: ReadonlyArray<string>
  /**
   * The 32-byte network reference of a native network reference (an EVM chain id,
   * a Solana genesis hash): networkId = keccak256(abi.encode(vmType, reference)).
   */
  readonly networkReference: (native: string) => Result.Result<Hex, ConnectorError>
  /** The asset of an input (an address, a mint, a locator) on a network. */
  readonly parseAsset: (input: unknown, network: ConnectorNetwork) => Result.Result<AssetBinding, ConnectorError>
  /**
   * The canonical account locator of an input (a locator object, or the native
   * string form standing for `{"native": s}`). Its canonical JSON is what the
   * permit request message carries.
   */
  readonly parseLocator: (input: unknown) => Result.Result<Locator, ConnectorError>
  /** The native rendering of a canonical locator (an address, a base58 key, ...). */
  readonly renderLocator: (locator: Locator) => string
  /** The 32-byte native account reference of a canonical locator. */
  readonly accountReference: (locator: Locator) => Result.Result<Hex, ConnectorError>
  /** The EVM address binding of a locator (EIP-55, EVM family only); null for other families. */
  readonly evmAddress: (locator: Locator) => Hex | null
  /** Verifies an ownership proof. */
  readonly verifyOwnership: (claim: OwnershipClaim) => Effect.Effect<void, ConnectorError | ConnectorUnavailable>
  /**
   * Settlement on this family's networks: watching source fills and paying out
   * (see `Chain`). Without it, states after ISSUED come from an operator
   * (`svc admin settle`).
   */
  readonly settlement?: SettlementSupport | undefined
  /** Market data on this family's networks (price feeds, gas prices): see `Market`. */
  readonly market?: MarketSupport | undefined
}

/**
 * The connector of one network family, as an Effect service: a connector package
 * provides it (and its own specific service) from its layer; the testkit runs
 * against it; {@link registryFromLayers} collects several into the registry.
 *
 * @category services
 * @since 0.1.0
 */
export const Connector: Context.Service<Connector, Connector> = Context.Service<Connector>("@svc/core/Connector")

// ---------------------------------------------------------------------------
// Identifiers through a connector
// ---------------------------------------------------------------------------

/**
 * networkId of a native network reference: keccak256(abi.encode(vmType, networkReference(native))).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const networkIdOf = (connector: Connector, native: string): Result.Result<Hex, ConnectorError> =>
  Result.map(connector.networkReference(native), (reference) => Ids.networkId(connector.vmType, reference))

/**
 * accountId of a canonical locator on a network: keccak256(abi.encode(networkId,
 * accountReference)).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const accountIdOf = (
  connector: Connector,
  networkId: Hex,
  locator: Locator
): Result.Result<Hex, ConnectorError> =>
  Result.map(connector.accountReference(locator), (reference) => Ids.accountId(networkId, reference))

/**
 * The asset of an input on a network with its assetId.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const assetOf = (
  connector: Connector,
  input: unknown,
  network: ConnectorNetwork
): Result.Result<AssetBinding & { readonly assetId: Hex }, ConnectorError> =>
  Result.map(
    connector.parseAsset(input, network),
    (asset) => ({ ...asset, assetId: Ids.assetId(network.networkId, asset.reference) })
  )

/**
 * True when two locators have the same canonical JSON.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const sameLocator = (a: Locator, b: Locator): boolean =>
  CanonicalJson.stringify(a) === CanonicalJson.stringify(b)

// ---------------------------------------------------------------------------
// Building a connector
// ---------------------------------------------------------------------------

/**
 * What a connector author writes: the contract without `vmType` (derived from the
 * family) and with an optional `evmAddress` (null by default).
 *
 * @category constructors
 * @since 0.1.0
 */
export interface Definition extends Omit<Connector, "vmType" | "evmAddress"> {
  readonly evmAddress?: ((locator: Locator) => Hex | null) | undefined
}

const FAMILY = /^[A-Z0-9]{2,16}$/

/**
 * A connector from its definition. `make` derives the vmType and adds the checks
 * every connector needs before its own proof verification: the claimed network
 * belongs to this family (its networkId is the one derived from its native
 * reference) and the claimed locator is canonical for this family. So a proof
 * never verifies for a network or a locator of another family, whatever the
 * definition's own verification does.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (definition: Definition): Connector => {
  if (!FAMILY.test(definition.family)) {
    throw new Error(`connector family must match ${FAMILY.source}: ${JSON.stringify(definition.family)}`)
  }
  const vmType = Ids.vmType(definition.family)
  const connector: Connector = {
    ...definition,
    vmType,
    evmAddress: definition.evmAddress ?? (() => null),
    verifyOwnership: (claim) =>
      Effect.suspend(() => {
        const reference = definition.networkReference(String(claim.network.native))
        if (
          Result.isFailure(reference) ||
          Ids.networkId(vmType, reference.success) !== String(claim.network.networkId).toLowerCase()
        ) {
          return Effect.fail(
            new ConnectorError({
              code: "NETWORK_MISMATCH",
              message:
                `the claim's network is not a ${definition.family} network (its networkId is not derived from its native reference)`
            })
          )
        }
        const locator = definition.parseLocator(claim.locator)
        if (Result.isFailure(locator)) return Effect.fail(locator.failure)
        if (!sameLocator(locator.success, claim.locator)) {
          return Effect.fail(
            new ConnectorError({
              code: "LOCATOR_NOT_CANONICAL",
              message: "the claim's locator is not in canonical form"
            })
          )
        }
        if (typeof claim.message !== "string" || typeof claim.proof !== "string") {
          return Effect.fail(new ConnectorError({ code: "PROOF_MALFORMED", message: "message and proof are strings" }))
        }
        return definition.verifyOwnership(claim)
      })
  }
  return connector
}

/**
 * A layer providing a connector as the core {@link Connector} service.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (connector: Connector): Layer.Layer<Connector> => Layer.succeed(Connector, connector)

// ---------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------

/**
 * A registration: a connector for its whole family, or for one network only
 * (a network registration wins over the family's).
 *
 * @category models
 * @since 0.1.0
 */
export type Registration = Connector | { readonly connector: Connector; readonly networkId: string }

/**
 * The registry of connectors, by vmType and networkId.
 *
 * @category services
 * @since 0.1.0
 */
export class ConnectorRegistry extends Context.Service<ConnectorRegistry, {
  /** The connector of a family. */
  readonly get: (vmType: string) => Option.Option<Connector>
  /** The connector of a network: its own registration, else its family's. */
  readonly forNetwork: (network: { readonly vmType: string; readonly networkId: string }) => Option.Option<Connector>
  /** Every registered connector, once. */
  readonly all: ReadonlyArray<Connector>
}>()("@svc/core/ConnectorRegistry") {}

/**
 * A registry of the given registrations (later ones win for the same key).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeRegistry = (registrations: ReadonlyArray<Registration>): ConnectorRegistry["Service"] => {
  const byVmType = new Map<string, Connector>()
  const byNetwork = new Map<string, Connector>()
  for (const r of registrations) {
    if ("connector" in r) byNetwork.set(r.networkId.toLowerCase(), r.connector)
    else byVmType.set(r.vmType.toLowerCase(), r)
  }
  const all = [...new Set([...byVmType.values(), ...byNetwork.values()])]
  return ConnectorRegistry.of({
    get: (vmType) => Option.fromNullishOr(byVmType.get(vmType.toLowerCase())),
    forNetwork: (network) => {
      const own = byNetwork.get(network.networkId.toLowerCase())
      if (own !== undefined && own.vmType.toLowerCase() === network.vmType.toLowerCase()) return Option.some(own)
      return Option.fromNullishOr(byVmType.get(network.vmType.toLowerCase()))
    },
    all
  })
}

/**
 * A registry layer of the given registrations.
 *
 * @category layers
 * @since 0.1.0
 */
export const registryLayer = (registrations: ReadonlyArray<Registration>): Layer.Layer<ConnectorRegistry> =>
  Layer.succeed(ConnectorRegistry, makeRegistry(registrations))

/**
 * A registry layer from connector layers: each layer is built (in the registry's
 * scope) and the {@link Connector} it provides is registered for its family.
 *
 * @category layers
 * @since 0.1.0
 */
export const registryFromLayers = <E, R>(
  layers: ReadonlyArray<Layer.Layer<Connector, E, R>>
): Layer.Layer<ConnectorRegistry, E, R> =>
  Layer.effect(
    ConnectorRegistry,
    Effect.gen(function*() {
      const connectors: Array<Connector> = []
      for (const l of layers) {
        const context = yield* Layer.build(l)
        connectors.push(Context.get(context, Connector))
      }
      return makeRegistry(connectors)
    })
  )

// ---------------------------------------------------------------------------
// Plug-ins: connector packages loaded by configuration
// ---------------------------------------------------------------------------

/**
 * What a connector plug-in is told about the deployment when it registers: the
 * networks of the catalog (key, family, native reference), so that it can map its
 * own settings (for example RPC URLs by network key) to them.
 *
 * @category running
 * @since 0.1.0
 */
export interface PluginContext {
  readonly networks: ReadonlyArray<{
    readonly key: string
    /** The family name (`vm`) of the network, e.g. "EVM". */
    readonly vm: string
    /** The native network reference (an EVM chain id, a Solana genesis hash, ...). */
    readonly native: string | null
  }>
}

/**
 * A connector plug-in could not register (a setting it reads is invalid, for
 * example). The message names the setting; it is shown as a one-line start-up
 * error and never carries secret values.
 *
 * @category running
 * @since 0.1.0
 */
export class PluginError extends Data.TaggedError("ConnectorPluginError")<{ readonly message: string }> {}

/**
 * A connector package's default export: its name and how it registers, reading
 * its own settings through Effect `Config` (the server's environment and
 * configuration file).
 *
 * ```ts
 * import { Connector } from "@svc/core"
 * import { Effect } from "effect"
 *
 * export default Connector.plugin("@acme/svc-connector-zeta", () => Effect.succeed(ZetaConnector.make()))
 * ```
 *
 * @category running
 * @since 0.1.0
 */
export interface Plugin {
  readonly _tag: "ConnectorPlugin"
  readonly name: string
  readonly register: (
    context: PluginContext
  ) => Effect.Effect<Registration | ReadonlyArray<Registration>, PluginError>
}

/**
 * Declares a plug-in.
 *
 * @category running
 * @since 0.1.0
 */
export const plugin = (name: string, register: Plugin["register"]): Plugin => ({
  _tag: "ConnectorPlugin",
  name,
  register
})

/**
 * Whether a value (a package's default export) is a plug-in.
 *
 * @category running
 * @since 0.1.0
 */
export const isPlugin = (u: unknown): u is Plugin =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "ConnectorPlugin" &&
  typeof (u as { register?: unknown }).register === "function" && typeof (u as { name?: unknown }).name === "string"

/**
 * The registrations of a plug-in.
 *
 * @category running
 * @since 0.1.0
 */
export const registrationsOf = (
  p: Plugin,
  context: PluginContext
): Effect.Effect<ReadonlyArray<Registration>, PluginError> =>
  Effect.map(Effect.suspend(() => p.register(context)), (r) => (Array.isArray(r) ? r : [r as Registration]))
