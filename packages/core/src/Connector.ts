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
import { Context, Data, Effect, Layer, Option, Result } from "effect"
import { getAddress } from "viem"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as Ids from "@svc/protocol/Ids"
import type { Hex } from "@svc/protocol/Bytes"
import type { Locator } from "@svc/protocol/schema/Primitives"
import * as Signature from "@svc/protocol/Signature"
import { ADDRESS, isPlainObject, UINT } from "@svc/protocol/Patterns"

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
 * @category identities
 * @since 0.1.0
 */
export const networkIdOf = (connector: Connector, native: string): Result.Result<Hex, ConnectorError> =>
  Result.map(connector.networkReference(native), (reference) => Ids.networkId(connector.vmType, reference))

/**
 * accountId of a canonical locator on a network: keccak256(abi.encode(networkId,
 * accountReference)).
 *
 * @category identities
 * @since 0.1.0
 */
export const accountIdOf = (connector: Connector, networkId: Hex, locator: Locator): Result.Result<Hex, ConnectorError> =>
  Result.map(connector.accountReference(locator), (reference) => Ids.accountId(networkId, reference))

/**
 * The asset of an input on a network with its assetId.
 *
 * @category identities
 * @since 0.1.0
 */
export const assetOf = (
  connector: Connector,
  input: unknown,
  network: ConnectorNetwork
): Result.Result<AssetBinding & { readonly assetId: Hex }, ConnectorError> =>
  Result.map(connector.parseAsset(input, network), (asset) => ({ ...asset, assetId: Ids.assetId(network.networkId, asset.reference) }))

/**
 * True when two locators have the same canonical JSON.
 *
 * @category locators
 * @since 0.1.0
 */
export const sameLocator = (a: Locator, b: Locator): boolean => CanonicalJson.stringify(a) === CanonicalJson.stringify(b)

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
        if (Result.isFailure(reference) || Ids.networkId(vmType, reference.success) !== String(claim.network.networkId).toLowerCase()) {
          return Effect.fail(
            new ConnectorError({
              code: "NETWORK_MISMATCH",
              message: `the claim's network is not a ${definition.family} network (its networkId is not derived from its native reference)`
            })
          )
        }
        const locator = definition.parseLocator(claim.locator)
        if (Result.isFailure(locator)) return Effect.fail(locator.failure)
        if (!sameLocator(locator.success, claim.locator)) {
          return Effect.fail(new ConnectorError({ code: "LOCATOR_NOT_CANONICAL", message: "the claim's locator is not in canonical form" }))
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
// The EVM externally-owned-account connector (offline)
// ---------------------------------------------------------------------------


const invalid = (code: string, message: string) => Result.fail(new ConnectorError({ code, message }))

/**
 * The EVM locator of an address: `{"native": "0x<lowercase address>"}`.
 *
 * @category evm
 * @since 0.1.0
 */
export const evmLocator = (address: string): Locator => ({ native: address.toLowerCase() })

const parseEvmAddress = (value: unknown): Result.Result<string, ConnectorError> => {
  if (typeof value !== "string" || !ADDRESS.test(value)) {
    return invalid("LOCATOR_INVALID", "an EVM locator is {\"native\": \"0x<40 hex>\"}")
  }
  const body = value.slice(2)
  if (body !== body.toLowerCase() && body !== body.toUpperCase() && getAddress(value.toLowerCase()) !== value) {
    return invalid("LOCATOR_CHECKSUM_INVALID", "mixed-case address with a wrong EIP-55 checksum")
  }
  return Result.succeed(value.toLowerCase())
}

/**
 * The offline EVM connector: address locators (`{"native": "0x..."}`, or the
 * address string), EIP-191 `personal_sign` proofs by externally owned accounts,
 * recovered without any RPC. The default connector of the core engine; servers
 * register `@svc/connector-evm`, which adds smart-contract accounts (ERC-1271 /
 * ERC-6492) over RPC.
 *
 * @category evm
 * @since 0.1.0
 */
export const evmEoaConnector: Connector = make({
  family: "EVM",
  capabilities: { payer: true, recipient: true, payout: true },
  proofSchemes: ["EIP191_PERSONAL_SIGN"],
  networkReference: (native) =>
    typeof native === "string" && UINT.test(native) && native !== "0" && BigInt(native) < 1n << 256n
      ? Result.succeed(`0x${BigInt(native).toString(16).padStart(64, "0")}` as Hex)
      : invalid("NETWORK_REFERENCE_INVALID", "an EVM network reference is its chain id, a positive integer"),
  parseAsset: (input, network) => {
    const token = typeof input === "string" ? input : isPlainObject(input) ? input.token : undefined
    if (isPlainObject(input)) {
      if (Object.keys(input).some((k) => k !== "chainId" && k !== "token")) {
        return invalid("ASSET_INVALID", "an EVM asset locator is {\"chainId\", \"token\"}")
      }
      if (input.chainId !== network.native) return invalid("ASSET_NETWORK_MISMATCH", "the asset's chainId is not the network's")
    }
    const address = parseEvmAddress(token)
    if (Result.isFailure(address)) return invalid("ASSET_INVALID", "an EVM asset is a token address (the zero address is the native coin)")
    return Result.succeed({
      locator: { chainId: network.native, token: address.success },
      reference: Ids.evmReference(address.success),
      address: getAddress(address.success) as Hex
    })
  },
  parseLocator: (input) => {
    if (isPlainObject(input) && Object.keys(input).some((k) => k !== "native")) {
      return invalid("LOCATOR_INVALID", "an EVM locator has only the key native")
    }
    const value = typeof input === "string" ? input : isPlainObject(input) ? input.native : undefined
    return Result.map(parseEvmAddress(value), evmLocator)
  },
  renderLocator: (locator) => getAddress(String(locator.native)),
  accountReference: (locator) =>
    typeof locator.native === "string" && ADDRESS.test(locator.native)
      ? Result.succeed(Ids.evmReference(locator.native))
      : invalid("LOCATOR_INVALID", "not an EVM locator"),
  evmAddress: (locator) =>
    typeof locator.native === "string" && ADDRESS.test(locator.native) ? getAddress(locator.native) as Hex : null,
  verifyOwnership: (claim) =>
    Effect.suspend(() => {
      const address = String(claim.locator.native).toLowerCase()
      const recovered = Signature.recoverPersonalMessageSigner(claim.message, claim.proof)
      if (Result.isFailure(recovered)) {
        return Effect.fail(
          new ConnectorError({ code: `SIGNATURE_${recovered.failure.problem}`, message: recovered.failure.detail })
        )
      }
      if (recovered.success.toLowerCase() !== address) {
        return Effect.fail(
          new ConnectorError({ code: "SIGNER_MISMATCH", message: "the signature was not made by the payer" })
        )
      }
      return Effect.void
    })
})
