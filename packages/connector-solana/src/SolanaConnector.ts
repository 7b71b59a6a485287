/**
 * The Solana connector: identities of Solana clusters (vmType keccak256("SVM")).
 *
 * - Networks: a cluster's base58 genesis hash (catalog `genesisHash`).
 * - Accounts: `{"native": "<base58 public key>"}`; accountId from the 32-byte key.
 * - Assets: `{"mint": "<base58 mint>"}`; assetId from the 32-byte mint.
 * - Payers: ed25519 signatures over the exact permit request message bytes
 *   (base58 or 0x-hex), offline.
 * - Recipients: supported (locator validated, accountId checked against it).
 * - Payout: not supported yet (declared; routes to Solana publish
 *   permitAvailable false outside the demo and test profiles).
 *
 * @since 0.1.0
 */
import { Connector } from "@svc/core"
import { Context, Layer } from "effect"
import * as SolanaLocator from "./SolanaLocator.ts"
import { FAMILY } from "./SolanaNetworks.ts"
import * as SolanaOwnershipProof from "./SolanaOwnershipProof.ts"

/**
 * Why Solana payout is not supported.
 *
 * @category constants
 * @since 0.1.0
 */
export const PAYOUT_NOTE = "Solana payout is not implemented yet: permits can be issued, nothing pays them out"

/**
 * The Solana connector service (the same value as the core `Connector` it also provides).
 *
 * @category services
 * @since 0.1.0
 */
export class SolanaConnector extends Context.Service<SolanaConnector, Connector.Connector>()(
  "@svc/connector-solana/SolanaConnector"
) {}

/**
 * The Solana connector.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (): Connector.Connector =>
  Connector.make({
    family: FAMILY,
    capabilities: { payer: true, recipient: true, payout: false, payoutNote: PAYOUT_NOTE },
    proofSchemes: ["ED25519_RAW_MESSAGE"],
    networkReference: SolanaLocator.networkReference,
    parseAsset: (input) => SolanaLocator.parseAsset(input),
    parseLocator: SolanaLocator.parse,
    renderLocator: SolanaLocator.render,
    accountReference: SolanaLocator.reference,
    verifyOwnership: (claim) => SolanaOwnershipProof.verify(String(claim.locator.native), claim.message, claim.proof)
  })

/**
 * A layer providing the Solana connector as {@link SolanaConnector} and as the core `Connector`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (): Layer.Layer<SolanaConnector | Connector.Connector> => {
  const connector = make()
  return Layer.merge(Layer.succeed(SolanaConnector, connector), Connector.layer(connector))
}
