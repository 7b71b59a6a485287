/**
 * The solver manifest (`/.well-known/svc-solver.json`, the same body at
 * `/api/v6/solver-discovery`): who signs the feed, the release, the solver
 * profile, how permit requests are signed, the endpoints, the two standards and
 * where the passive on-chain discovery is.
 *
 * @since 0.1.0
 */
import { Onchain, PermitMessage, SolverDiscovery } from "@svc/protocol"
import type { Result } from "effect"
import type { DocumentContext } from "./Context.ts"
import { conform, type DocumentsInvalid } from "./DocumentsInvalid.ts"

/**
 * How a client signs a permit request: a deterministic message built locally
 * from the canonical request and signed with EIP-191.
 *
 * @category constants
 * @since 0.1.0
 */
export const PERMIT_REQUEST_SIGNING: SolverDiscovery["permitRequestSigning"] = {
  mode: "LOCAL_DETERMINISTIC_MESSAGE",
  domain: PermitMessage.PERMIT_REQUEST_DOMAIN,
  canonicalizer: "canonicalPermitRequest",
  messageBuilder: "permitRequestMessage",
  signatureScheme: "EIP191_PERSONAL_SIGN_UTF8",
  canonicalJson: "RECURSIVE_SORTED_OBJECT_KEYS_COMPACT_JSON",
  messageLines: [...PermitMessage.MESSAGE_LINE_TEMPLATES],
  requestMessageEndpointRequired: false
}

/**
 * The two standards in short: ERC-7683 (executable resolver) and OIF
 * (description only), with their module addresses.
 *
 * @category onchain
 * @since 0.1.0
 */
export const standardsList = (context: DocumentContext): SolverDiscovery["standards"] => [
  {
    standardId: Onchain.STANDARD_IDS.erc7683,
    name: "ERC-7683",
    compatibilityLevel: "EXECUTABLE_RESOLVER",
    moduleAddress: context.addresses.erc7683Resolver,
    executable: true
  },
  {
    standardId: Onchain.STANDARD_IDS.oif,
    name: "OIF",
    compatibilityLevel: "DISCOVERY_DESCRIPTION_ONLY",
    moduleAddress: context.addresses.oifModule,
    executable: false
  }
]

/**
 * Builds the solver manifest and checks it against the `SolverDiscovery` schema.
 *
 * @category constructors
 * @since 0.1.0
 */
export const buildSolverManifest = (context: DocumentContext): Result.Result<SolverDiscovery, DocumentsInvalid> =>
  conform(SolverDiscovery, "the built solver manifest does not match its schema", {
    schema: "SVC_MAINNET_V6_SOLVER_DISCOVERY_V2",
    deploymentVersion: 6,
    deploymentStatus: "ACTIVE",
    releaseId: context.releaseId,
    feedSigner: context.feedSigner,
    solverProfile: {
      executionScopes: [...context.executionScopes],
      automatedDiscovery: true,
      variableSizeExecution: true,
      machineVerifiableState: true,
      accountlessDiscovery: true
    },
    discoveryModel: "SIGNED_MACHINE_READABLE_FEED",
    executionModel: "EXACTLY_ONE_BOT_SOURCE_TX_PLUS_ONE_SVC_DESTINATION_TX",
    publication: "SIGNED_OFFCHAIN_FEED_ZERO_PERIODIC_GAS",
    feedTransport: {
      primary: "SSE_CONFIRMED_ACTIVE_SET",
      recovery: "HTTP_SIGNED_FEED",
      reconnectWithLastEventId: true
    },
    authentication: "WALLET_OR_NATIVE_ACCOUNT_PROOF",
    permitRequestSigning: PERMIT_REQUEST_SIGNING,
    endpoints: { ...context.endpoints },
    standards: standardsList(context),
    passiveOnchainDiscovery: {
      uri: context.endpoints.onchainDiscovery,
      facadeAddress: context.addresses.facade,
      chains: context.chains,
      sameAddressAcrossChains: true
    },
    activationRequired: false
  })
