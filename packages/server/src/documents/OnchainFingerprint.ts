/**
 * The on-chain discovery fingerprint (`/.well-known/svc-onchain-discovery.json`):
 * the contracts with their runtime code hashes, the facade selectors, the
 * `SourceFillV6` event, the ERC-7683 and OIF modules, the CREATE2 deployment with
 * its per-chain evidence, where to verify it on Sourcify, the discovery paths and
 * the scanner hints.
 *
 * @since 0.1.0
 */
import { Onchain, OnchainDiscoveryFingerprint, type ScannerHints } from "@svc/protocol"
import { Result } from "effect"
import type { DocumentContext } from "./Context.ts"
import {
  ERC7683_SELECTORS,
  eventMapping,
  FACADE_SELECTORS,
  OIF_SELECTORS,
  SOURCE_FILL_INDEXED_FIELDS,
  SOURCE_FILL_NON_INDEXED,
  SOURCE_FILL_TOPIC_POSITIONS
} from "./Derived.ts"
import { conform, type DocumentsInvalid } from "./DocumentsInvalid.ts"
import { buildScannerHints } from "./ScannerHints.ts"

type Fingerprint = OnchainDiscoveryFingerprint

/**
 * The `SourceFillV6` event of the router.
 *
 * @category onchain
 * @since 0.1.0
 */
export const fingerprintEvents = (context: DocumentContext): Fingerprint["events"] => ({
  SourceFillV6: {
    contract: Onchain.CONTRACTS.router.name,
    address: context.addresses.router,
    sameAddressAcrossChains: true,
    chains: context.chains,
    signature: Onchain.SOURCE_FILL_V6_SIGNATURE,
    topic0: Onchain.SOURCE_FILL_V6_TOPIC0,
    indexed: SOURCE_FILL_INDEXED_FIELDS.map((f) => f.name),
    fields: Onchain.SOURCE_FILL_V6_FIELDS.map((f) => f.name),
    indexedFields: SOURCE_FILL_INDEXED_FIELDS,
    indexedTopicPositions: SOURCE_FILL_TOPIC_POSITIONS,
    nonIndexed: SOURCE_FILL_NON_INDEXED,
    discoveryMapping: eventMapping(context)
  }
})

/**
 * The ERC-7683 resolver module.
 *
 * @category onchain
 * @since 0.1.0
 */
export const fingerprintErc7683 = (context: DocumentContext): Fingerprint["erc7683"] => ({
  resolver: context.addresses.erc7683Resolver,
  sameAddressAcrossChains: true,
  chains: context.chains,
  runtimeCodeHash: context.codeHashes.erc7683Resolver,
  router: context.addresses.router,
  standardId: Onchain.STANDARD_IDS.erc7683,
  ...ERC7683_SELECTORS,
  erc165: {
    supported: true,
    erc165InterfaceId: Onchain.ERC165_INTERFACE_ID,
    svcStandardModuleV6InterfaceId: Onchain.STANDARD_MODULE_INTERFACE_ID,
    resolverDetection: "standardId()+resolve(bytes)"
  },
  discoveryMapping: {
    resolver: context.addresses.erc7683Resolver,
    router: context.addresses.router,
    facade: context.addresses.facade,
    discoveryURI: context.discoveryURI
  }
})

/**
 * The OIF description module (not executable).
 *
 * @category onchain
 * @since 0.1.0
 */
export const fingerprintOif = (context: DocumentContext): Fingerprint["oif"] => ({
  module: context.addresses.oifModule,
  sameAddressAcrossChains: true,
  chains: context.chains,
  runtimeCodeHash: context.codeHashes.oifModule,
  router: context.addresses.router,
  standardId: Onchain.STANDARD_IDS.oif,
  compatibilityLevel: Onchain.OIF_COMPATIBILITY_LEVEL_ID,
  compatibilityLevelName: "DISCOVERY_DESCRIPTION_ONLY",
  executable: false,
  ...OIF_SELECTORS,
  erc165: {
    supported: true,
    erc165InterfaceId: Onchain.ERC165_INTERFACE_ID,
    svcStandardModuleV6InterfaceId: Onchain.STANDARD_MODULE_INTERFACE_ID
  }
})

/**
 * The CREATE2 deployment of the facade with the compiler and the per-chain blocks
 * and transactions.
 *
 * @category onchain
 * @since 0.1.0
 */
export const fingerprintDeployment = (context: DocumentContext): Fingerprint["deployment"] => ({
  method: "CREATE2",
  factory: context.deployment.factory,
  salt: context.deployment.salt,
  initCodeHash: context.deployment.initCodeHash,
  expectedFacadeAddress: context.deployment.expectedFacadeAddress,
  supportedChainIds: context.chains,
  sameAddressAcrossChains: true,
  compiler: context.deployment.compiler,
  standardJsonInputHash: context.deployment.standardJsonInputHash,
  blocks: { ...context.deployment.blocks },
  transactions: { ...context.deployment.transactions }
})

const PLACEHOLDER_NOTE =
  "Demo placeholders: the contract addresses, runtime code hashes, CREATE2 inputs (initCodeHash) and " +
  "deployment evidence of this document are documented svc demo values, not deployed or verified contracts. " +
  "Selectors, topic0, interface ids, standard ids and the CREATE2 address are computed."

/**
 * Where to verify the deployment on Sourcify and the registered `SourceFillV6`
 * signature. Placeholder values claim no exact match and carry a note saying so.
 *
 * @category crypto
 * @since 0.1.0
 */
export const sourcify = (context: DocumentContext): Fingerprint["sourcify"] => ({
  exactMatchOnEveryChain: !context.placeholder,
  allChainsLookup: `https://sourcify.dev/server/v2/contract/all-chains/${context.addresses.facade}`,
  contractLookupTemplate:
    "https://sourcify.dev/server/v2/contract/{chainId}/{address}?fields=abi,compilation,deployment",
  verifiedContractsListTemplate: "https://sourcify.dev/server/v2/contracts/{chainId}?limit=200&sort=desc",
  signatureLookup: "https://api.4byte.sourcify.dev/signature-database/v1/lookup",
  sourceFillV6Signature: {
    status: "REGISTERED",
    lookup: `https://api.4byte.sourcify.dev/signature-database/v1/lookup?event=${Onchain.SOURCE_FILL_V6_TOPIC0}`,
    signature: Onchain.SOURCE_FILL_V6_SIGNATURE,
    topic0: Onchain.SOURCE_FILL_V6_TOPIC0,
    hasVerifiedContractAssociation: false,
    registrationMethod: "DIRECT_SIGNATURE_IMPORT"
  },
  ...(context.placeholder ? { note: PLACEHOLDER_NOTE } : {})
})

/**
 * The ways from the chain to the signed feed, in words.
 *
 * @category http
 * @since 0.1.0
 */
export const discoveryPaths = (chains: ReadonlyArray<number>): ReadonlyArray<string> => [
  "facade.discoveryURI -> well-known manifest -> signed Feed -> routes",
  "SourceFillV6.topic0 -> Router -> Facade -> discoveryURI -> signed Feed",
  "ERC-7683 standardId -> Resolver.router -> Facade -> discoveryURI -> signed Feed",
  "Sourcify chain enumeration -> Facade ABI -> discoveryURI -> signed Feed",
  `Facade found on one chain -> same-address probe on chains ${chains.join("/")}`
]

/**
 * The fingerprint around already built scanner hints, checked against the
 * `OnchainDiscoveryFingerprint` schema.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fingerprintWith = (
  context: DocumentContext,
  scannerHints: ScannerHints
): Result.Result<OnchainDiscoveryFingerprint, DocumentsInvalid> =>
  conform(OnchainDiscoveryFingerprint, "the built on-chain discovery fingerprint does not match its schema", {
    schema: "SVC_MAINNET_V6_ONCHAIN_DISCOVERY_FINGERPRINT_V1",
    protocol: Onchain.PROTOCOL,
    status: "ACTIVE",
    deploymentVersion: 6,
    releaseId: context.releaseId,
    discoveryURI: context.discoveryURI,
    onchainDiscoveryURI: context.endpoints.onchainDiscovery,
    feedURI: context.endpoints.solverFeed,
    publicIntegrationRepo: context.publicIntegrationRepo,
    chains: context.chains,
    sameAddressAcrossChains: true,
    facade: context.addresses.facade,
    facadeRuntimeCodeHash: context.codeHashes.facade,
    registry: context.addresses.registry,
    registryRuntimeCodeHash: context.codeHashes.registry,
    router: context.addresses.router,
    routerRuntimeCodeHash: context.codeHashes.router,
    ...FACADE_SELECTORS,
    events: fingerprintEvents(context),
    erc7683: fingerprintErc7683(context),
    oif: fingerprintOif(context),
    deployment: fingerprintDeployment(context),
    chainEvidence: { ...context.chainEvidence },
    sourcify: sourcify(context),
    discoveryPaths: discoveryPaths(context.chains),
    scannerHints
  })

/**
 * Builds the on-chain discovery fingerprint with its scanner hints, each checked
 * against its schema.
 *
 * @category constructors
 * @since 0.1.0
 */
export const buildOnchainFingerprint = (
  context: DocumentContext
): Result.Result<OnchainDiscoveryFingerprint, DocumentsInvalid> =>
  Result.flatMap(buildScannerHints(context), (hints) => fingerprintWith(context, hints))
