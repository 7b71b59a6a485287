/**
 * Network connectors: the plug-in point through which svc handles the identities
 * of a network family — its locators, account ids and ownership proofs.
 *
 * A connector serves one virtual-machine family (identified by its vmType, for
 * example keccak256("EVM")). The {@link ConnectorRegistry} maps vmTypes to
 * connectors; the permit service asks it for every payer and recipient identity.
 *
 * Invariants every connector keeps (checked by the connector testkit):
 *
 * 1. `parseLocator` is total: any input gives a canonical locator or a typed
 *    `ConnectorError`, never a defect; parsing a canonical locator returns it unchanged.
 * 2. `accountId` is deterministic and depends on the network: the same locator on
 *    two networks gives two account ids.
 * 3. `verifyOwnership` succeeds only for a proof made by the locator's owner over
 *    the exact message bytes, and never for a locator of another network family.
 *
 * @since 0.1.0
 */
import { Context, Data, Effect, Layer, Option, Result } from "effect"
import { getAddress } from "viem"
import * as Ids from "./Ids.ts"
import type { Hex } from "./internal/bytes.ts"
import type { Locator } from "./schema/Primitives.ts"
import * as Signature from "./Signature.ts"

/**
 * Why a connector refused an identity or a proof. `code` is a stable reason code
 * (LOCATOR_INVALID, ACCOUNT_ID_MISMATCH, PROOF_INVALID, SIGNER_MISMATCH, ...).
 *
 * @category errors
 * @since 0.1.0
 */
export class ConnectorError extends Data.TaggedError("ConnectorError")<{
  readonly code: string
  readonly message: string
}> {}

/**
 * What a connector supports.
 *
 * @category models
 * @since 0.1.0
 */
export interface Capabilities {
  /** Payer identities (ownership proofs). */
  readonly payer: boolean
  /** Recipient identities. */
  readonly recipient: boolean
  /** Paying out to recipients on this network. */
  readonly payout: boolean
}

/**
 * An ownership proof to verify: `proof` must be made by the owner of `locator`
 * (on network `networkId`) over the exact UTF-8 bytes of `message`.
 *
 * @category models
 * @since 0.1.0
 */
export interface OwnershipClaim {
  readonly networkId: Hex
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
  /** Family name, e.g. "EVM" or "SVM". */
  readonly family: string
  /** keccak256 of the family name. */
  readonly vmType: Hex
  readonly capabilities: Capabilities
  /**
   * The canonical locator of an input (an object, or a string standing for
   * `{"native": s}`). Its canonical JSON is what the permit message carries.
   */
  readonly parseLocator: (input: unknown) => Result.Result<Locator, ConnectorError>
  /** The native rendering of a canonical locator (an address, a base58 key, ...). */
  readonly renderLocator: (locator: Locator) => string
  /** The 32-byte native account reference of a canonical locator. */
  readonly accountReference: (locator: Locator) => Result.Result<Hex, ConnectorError>
  /** The EVM address binding of a locator (EVM family only); null elsewhere. */
  readonly evmAddress: (locator: Locator) => Hex | null
  /** Verifies an ownership proof. */
  readonly verifyOwnership: (claim: OwnershipClaim) => Effect.Effect<void, ConnectorError>
}

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
 * The registry of connectors, by vmType.
 *
 * @category services
 * @since 0.1.0
 */
export class ConnectorRegistry extends Context.Service<ConnectorRegistry, {
  readonly get: (vmType: string) => Option.Option<Connector>
  readonly all: ReadonlyArray<Connector>
}>()("@svc/core/ConnectorRegistry") {}

/**
 * A registry of the given connectors (later entries win for the same vmType).
 *
 * @category layers
 * @since 0.1.0
 */
export const registryLayer = (connectors: ReadonlyArray<Connector>): Layer.Layer<ConnectorRegistry> => {
  const byVmType = new Map<string, Connector>()
  for (const c of connectors) byVmType.set(c.vmType.toLowerCase(), c)
  return Layer.succeed(ConnectorRegistry, {
    get: (vmType) => Option.fromNullishOr(byVmType.get(vmType.toLowerCase())),
    all: [...byVmType.values()]
  })
}

// ---------------------------------------------------------------------------
// The EVM externally-owned-account connector (offline)
// ---------------------------------------------------------------------------

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The EVM locator of an address: `{"native": "0x<lowercase address>"}`.
 *
 * @category evm
 * @since 0.1.0
 */
export const evmLocator = (address: string): Locator => ({ native: address.toLowerCase() })

/**
 * The offline EVM connector: address locators (`{"native": "0x..."}`, or the
 * address string), EIP-191 `personal_sign` proofs by externally owned accounts,
 * recovered without any RPC. Smart-contract accounts (ERC-1271 / ERC-6492) need
 * the RPC-backed connector of `@svc/connector-evm`.
 *
 * @category evm
 * @since 0.1.0
 */
export const evmEoaConnector: Connector = {
  family: "EVM",
  vmType: Ids.EVM_VM_TYPE,
  capabilities: { payer: true, recipient: true, payout: true },
  parseLocator: (input) => {
    const value = typeof input === "string" ? input : isPlainObject(input) ? input.native : undefined
    if (isPlainObject(input) && Object.keys(input).some((k) => k !== "native")) {
      return Result.fail(new ConnectorError({ code: "LOCATOR_INVALID", message: "an EVM locator has only the key native" }))
    }
    if (typeof value !== "string" || !ADDRESS.test(value)) {
      return Result.fail(new ConnectorError({ code: "LOCATOR_INVALID", message: "an EVM locator is {\"native\": \"0x<40 hex>\"}" }))
    }
    const body = value.slice(2)
    if (body !== body.toLowerCase() && body !== body.toUpperCase() && getAddress(value.toLowerCase()) !== value) {
      return Result.fail(new ConnectorError({ code: "LOCATOR_CHECKSUM_INVALID", message: "mixed-case address with a wrong EIP-55 checksum" }))
    }
    return Result.succeed(evmLocator(value))
  },
  renderLocator: (locator) => getAddress(String(locator.native)),
  accountReference: (locator) =>
    typeof locator.native === "string" && ADDRESS.test(locator.native)
      ? Result.succeed(Ids.evmReference(locator.native))
      : Result.fail(new ConnectorError({ code: "LOCATOR_INVALID", message: "not an EVM locator" })),
  evmAddress: (locator) =>
    typeof locator.native === "string" && ADDRESS.test(locator.native) ? getAddress(locator.native) as Hex : null,
  verifyOwnership: (claim) =>
    Effect.suspend(() => {
      const address = typeof claim.locator.native === "string" ? claim.locator.native.toLowerCase() : ""
      if (!ADDRESS.test(address)) {
        return Effect.fail(new ConnectorError({ code: "LOCATOR_INVALID", message: "not an EVM locator" }))
      }
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
}
