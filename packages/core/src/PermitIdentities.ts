/**
 * The payer and recipient of a permit request, resolved through the network
 * connectors: the payer on the route's source network, the recipient on its
 * destination network, each in the address form or the account + locator form;
 * and the payer's ownership proof over the exact request message.
 *
 * @since 0.1.0
 */
import type { Hex } from "@svc/protocol/Bytes"
import { EVM_VM_TYPE } from "@svc/protocol/Ids"
import type * as PermitMessage from "@svc/protocol/PermitMessage"
import type { Locator } from "@svc/protocol/schema/Primitives"
import { Effect, Option, Result } from "effect"
import type { Catalog, Network } from "./Catalog.ts"
import { accountIdOf, type Connector, type ConnectorRegistry, sameLocator } from "./Connector.ts"
import { IdentityInvalid, type PermitErrorReason, type Side, SignatureInvalid, Unavailable } from "./PermitError.ts"

/**
 * A resolved identity.
 *
 * @category models
 * @since 0.1.0
 */
export interface Identity {
  readonly accountId: Hex
  /** The EVM address binding (EIP-55), null for other families. */
  readonly address: Hex | null
  readonly locator: Locator
  readonly connector: Connector
  readonly network: Network
}

/**
 * What resolving an identity needs.
 *
 * @category models
 * @since 0.1.0
 */
export interface IdentityContext {
  readonly catalog: Pick<Catalog["Service"], "network">
  readonly connectors: Pick<ConnectorRegistry["Service"], "forNetwork">
}

/**
 * Resolves the payer or recipient of a normalized request on a network of the catalog.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const resolveIdentity = (
  context: IdentityContext,
  side: "payer" | "recipient",
  request: PermitMessage.NormalizedPermitRequest,
  networkId: string
): Result.Result<Identity, IdentityInvalid> => {
  const S: Side = side === "payer" ? "PAYER" : "RECIPIENT"
  const refuse = (problem: string, detail?: string, canonicalLocator?: Locator) =>
    Result.fail(
      new IdentityInvalid({
        side: S,
        problem,
        ...(detail === undefined ? {} : { detail }),
        ...(canonicalLocator === undefined ? {} : { canonicalLocator })
      })
    )
  const where = side === "payer" ? "source" : "destination"
  const network = context.catalog.network(networkId)
  if (network === undefined) return refuse("NETWORK_UNKNOWN")
  const found = context.connectors.forNetwork({ vmType: network.vmType, networkId: network.networkId })
  if (Option.isNone(found)) {
    return refuse("NO_CONNECTOR", `no connector is registered for the ${network.vm} network ${network.name}`)
  }
  const connector = found.value
  if (side === "payer" ? !connector.capabilities.payer : !connector.capabilities.recipient) {
    return refuse("NOT_SUPPORTED", `the ${connector.family} connector does not support ${side} identities`)
  }
  const address = request[side]
  if (address !== null && connector.vmType !== EVM_VM_TYPE) {
    return refuse(
      "WRONG_NETWORK",
      `${side} is an EVM address but the route's ${where} network is ${network.vm}; give ${side}AccountId and ${side}Locator`
    )
  }
  const given: unknown = address !== null ? address : request[`${side}Locator`]
  const locator = connector.parseLocator(given)
  if (Result.isFailure(locator)) return refuse(locator.failure.code, locator.failure.message)
  const requestLocator = request[`${side}Locator`]
  if (address === null && requestLocator !== null && !sameLocator(requestLocator, locator.success)) {
    // the message carries the locator as given: only its canonical form is accepted
    return refuse("LOCATOR_NOT_CANONICAL", `${side}Locator must be given in its canonical form`, locator.success)
  }
  const accountId = accountIdOf(connector, network.networkId, locator.success)
  if (Result.isFailure(accountId)) return refuse(accountId.failure.code, accountId.failure.message)
  const claimed = request[`${side}AccountId`]
  if (claimed !== null && claimed.toLowerCase() !== accountId.success) {
    return refuse(
      "ACCOUNT_ID_MISMATCH",
      `${side}AccountId is not the account id of ${side}Locator on the route's ${where} network`
    )
  }
  return Result.succeed({
    accountId: accountId.success,
    address: connector.evmAddress(locator.success),
    locator: locator.success,
    connector,
    network
  })
}

/**
 * Verifies the ownership proof of an identity over the exact message, through
 * its network's connector: a refused proof is `SignatureInvalid`, a connector
 * that could not decide (its RPC endpoint down) is `Unavailable`.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const verifyProof = (
  identity: Identity,
  message: string,
  proof: string
): Effect.Effect<void, SignatureInvalid | Unavailable> => {
  if (identity.network.native === null) {
    return Effect.fail(
      new SignatureInvalid({
        code: "PAYER_NETWORK_UNRESOLVED",
        detail: `the network ${identity.network.name} has no native reference for its connector`
      })
    )
  }
  return identity.connector.verifyOwnership({
    network: { networkId: identity.network.networkId, native: identity.network.native },
    locator: identity.locator,
    message,
    proof
  }).pipe(
    Effect.mapError((e): SignatureInvalid | Unavailable =>
      e._tag === "ConnectorUnavailable"
        ? new Unavailable({ dependency: "CONNECTOR", code: e.code, retryAfterSeconds: 5, detail: e.message })
        : new SignatureInvalid({ code: e.code, detail: e.message })
    )
  )
}

/**
 * An identity reason as the reason of a replay's signature check (a replay whose
 * payer no longer resolves cannot prove ownership).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const asSignatureReason = (reason: PermitErrorReason): PermitErrorReason =>
  reason._tag === "IdentityInvalid"
    ? new SignatureInvalid({
      code: reason.reasonCodes[0]!,
      ...(reason.detail === undefined ? {} : { detail: reason.detail })
    })
    : reason
