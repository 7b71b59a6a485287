/**
 * Discovery documents: SolverDiscovery, OnchainDiscoveryFingerprint (with
 * ScannerHints), StandardsManifest and StandardPayloadEncoding. The spec gives
 * ScannerHints, StandardPayloadEncoding and the required names of the standards
 * manifest; the other fields follow the documents the upstream deployment
 * publishes, so that existing clients read svc documents (docs/protocol.md,
 * Discovery documents).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { isAbsoluteUri, representation } from "./Checks.ts"
import { Address, Bytes32, NonNegativeInt, Selector4 } from "./Primitives.ts"

/**
 * An absolute URI.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Uri = Schema.String.check(
  Schema.makeFilter(isAbsoluteUri, {
    expected: "an absolute URI",
    representation: representation("@svc/protocol/isAbsoluteUri")
  })
).annotate({ identifier: "Uri", format: "uri" })

const ChainIds = Schema.Array(Schema.Int)
const StringMap = Schema.Record(Schema.String, Schema.String)
const SelectorMap = Schema.Record(Schema.String, Selector4)
const PROTOCOL = "Svc V6" as const

// ---------------------------------------------------------------------------
// Scanner hints
// ---------------------------------------------------------------------------

/**
 * A read-only contract call a scanner makes (probe method).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProbeMethod = Schema.Struct({
  contract: Schema.String,
  address: Address,
  signature: Schema.String,
  selector: Selector4,
  stateMutability: Schema.Literals(["pure", "view"]),
  returns: Schema.Array(Schema.Struct({ name: Schema.String, type: Schema.String }))
}).annotate({ identifier: "ProbeMethod" })
/** @since 0.1.0 */
export type ProbeMethod = typeof ProbeMethod.Type

/**
 * One step of the scanner probe.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProbeStep = Schema.Struct({
  order: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  id: Schema.String,
  required: Schema.Boolean,
  optional: Schema.optionalKey(Schema.Boolean),
  transport: Schema.optionalKey(Schema.Literals(["JSON_RPC", "HTTPS"])),
  rpcMethod: Schema.optionalKey(Schema.Literals(["eth_getCode", "eth_call", "eth_getLogs"])),
  operation: Schema.optionalKey(Schema.String),
  inputFromStep: Schema.optionalKey(Schema.String),
  address: Schema.optionalKey(Address),
  supportedChainIds: Schema.optionalKey(ChainIds),
  call: Schema.optionalKey(ProbeMethod),
  topics: Schema.optionalKey(Schema.Array(Bytes32)),
  method: Schema.optionalKey(Schema.Literal("GET")),
  uriFromStep: Schema.optionalKey(Schema.String),
  expected: Schema.optionalKey(Schema.Record(Schema.String, Schema.Json))
}).annotate({ identifier: "ProbeStep" })
/** @since 0.1.0 */
export type ProbeStep = typeof ProbeStep.Type

const HintContract = Schema.Struct({
  name: Schema.String,
  role: Schema.String,
  address: Address,
  expectedRuntimeCodeHash: Bytes32,
  supportedChainIds: ChainIds,
  sameAddressAcrossChains: Schema.Literal(true)
}).annotate({ identifier: "ScannerHintContract" })

const TopicPosition = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3 }))

const IndexedField = Schema.Struct({ name: Schema.String, type: Schema.String, topicPosition: TopicPosition })

const HintStandard = Schema.Struct({
  supportedChainIds: ChainIds,
  standardId: Bytes32,
  erc165InterfaceIds: Schema.Array(Selector4),
  selectors: SelectorMap,
  selectorSignatures: StringMap,
  router: Address,
  expectedRuntimeCodeHash: Bytes32,
  resolver: Schema.optionalKey(Address),
  module: Schema.optionalKey(Address),
  compatibilityLevel: Schema.optionalKey(Bytes32),
  compatibilityLevelName: Schema.optionalKey(Schema.String),
  executable: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "ScannerHintStandard" })

/**
 * The on-chain scanner hint structure.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ScannerHints = Schema.Struct({
  schema: Schema.Literal("SVC_MAINNET_V6_SCANNER_HINTS_V1"),
  generatedFrom: Schema.Literal("CANONICAL_ONCHAIN_DISCOVERY_FINGERPRINT"),
  protocol: Schema.Literal(PROTOCOL),
  releaseId: Bytes32,
  deploymentVersion: Schema.Literal(6),
  status: Schema.Literal("ACTIVE"),
  supportedChainIds: ChainIds,
  sameAddressAcrossChains: Schema.Literal(true),
  contracts: Schema.Struct({
    facade: HintContract,
    registry: HintContract,
    router: HintContract,
    erc7683Resolver: HintContract,
    oifModule: HintContract
  }),
  probe: Schema.Struct({
    mode: Schema.Literal("EXTERNAL_SCANNER_READ_ONLY"),
    externalScannerOnly: Schema.Literal(true),
    executedBySvc: Schema.Literal(false),
    performsWrites: Schema.Literal(false),
    pollingRequired: Schema.Literal(false),
    methods: Schema.Struct({
      discoveryURI: ProbeMethod,
      isLive: ProbeMethod,
      systemState: ProbeMethod,
      routeCount: ProbeMethod
    }),
    steps: Schema.Array(ProbeStep).check(Schema.isMinLength(9), Schema.isMaxLength(9))
  }),
  eventDiscovery: Schema.Struct({
    SourceFillV6: Schema.Struct({
      emittingContract: Schema.String,
      address: Address,
      supportedChainIds: ChainIds,
      signature: Schema.String,
      topic0: Bytes32,
      indexedFields: Schema.Array(IndexedField),
      indexedTopicPositions: Schema.Record(Schema.String, TopicPosition),
      nonIndexedFields: Schema.Array(Schema.String),
      discoveryMapping: Schema.Struct({ router: Address, facade: Address, discoveryURI: Uri })
    })
  }),
  deterministicDeployment: Schema.Struct({
    method: Schema.Literal("CREATE2"),
    factory: Address,
    salt: Bytes32,
    initCodeHash: Bytes32,
    expectedFacadeAddress: Address,
    supportedChainIds: ChainIds,
    deploymentBlocks: Schema.Record(Schema.String, NonNegativeInt),
    deploymentTransactions: Schema.Record(Schema.String, Bytes32),
    sameAddressAcrossChains: Schema.Literal(true)
  }),
  standards: Schema.Struct({ erc7683: HintStandard, oif: HintStandard })
}).annotate({ identifier: "ScannerHints" })
/** @since 0.1.0 */
export type ScannerHints = typeof ScannerHints.Type

// ---------------------------------------------------------------------------
// Standards manifest
// ---------------------------------------------------------------------------

/**
 * How the permit is encoded for the ERC-7683 / OIF modules.
 *
 * @category schemas
 * @since 0.1.0
 */
export const StandardPayloadEncoding = Schema.Struct({
  mediaType: Schema.Literal("application/vnd.svc.execution-permit-v6+abi"),
  solidity: Schema.Literal("abi.encode(ExecutionPermit,bytes)"),
  tuple: Schema.Tuple([
    Schema.Literal("SvcMainnetV6Types.ExecutionPermit permit"),
    Schema.Literal("bytes permitSignature")
  ]),
  source: Schema.String
}).annotate({ identifier: "StandardPayloadEncoding" })
/** @since 0.1.0 */
export type StandardPayloadEncoding = typeof StandardPayloadEncoding.Type

const Resolution = Schema.Struct({
  supported: Schema.Boolean,
  signature: Schema.String,
  selector: Selector4,
  stateMutability: Schema.Literals(["pure", "view"]),
  transactionCount: Schema.Literal(0),
  ethCallOnly: Schema.optionalKey(Schema.Boolean),
  executable: Schema.optionalKey(Schema.Boolean),
  revertsWith: Schema.optionalKey(Schema.String),
  outputFields: Schema.optionalKey(Schema.Array(Schema.String)),
  target: Schema.optionalKey(Address),
  function: Schema.optionalKey(Schema.Literal("fillDirect")),
  sourceTransactionCount: Schema.optionalKey(Schema.Literal(1))
}).annotate({ identifier: "StandardResolution" })

const ResolveDescriptor = Schema.Struct({
  signature: Schema.Literal("resolve(bytes)"),
  selector: Selector4,
  stateMutability: Schema.Literal("view"),
  ethCallOnly: Schema.Literal(true),
  transactionCount: Schema.Literal(0),
  stepCount: Schema.Literal(1),
  stepType: Schema.Literal("Call"),
  target: Address,
  function: Schema.Literal("fillDirect"),
  sourceExecutionCallCount: Schema.Literal(1)
}).annotate({ identifier: "StandardResolve" })

const StandardModule = Schema.Struct({
  name: Schema.Literals(["ERC-7683", "OIF"]),
  standardId: Bytes32,
  compatibilityLevel: Schema.Literals(["EXECUTABLE_RESOLVER", "DISCOVERY_DESCRIPTION_ONLY"]),
  compatibilityLevelId: Schema.optionalKey(Bytes32),
  executable: Schema.Boolean,
  moduleAddress: Address,
  expectedRuntimeCodeHash: Bytes32,
  supportedChainIds: ChainIds,
  sameAddressAcrossChains: Schema.Literal(true),
  router: Address,
  selectors: SelectorMap,
  selectorSignatures: StringMap,
  erc165: Schema.Struct({ supported: Schema.Literal(true), interfaceIds: Schema.Array(Selector4) }),
  payloadEncoding: StandardPayloadEncoding,
  discoveryMethod: Schema.String,
  resolutionTransport: Schema.Literals(["OFFCHAIN_ETH_CALL", "OFFCHAIN_ETH_CALL_DESCRIPTION_ONLY"]),
  resolve: Schema.optionalKey(ResolveDescriptor),
  resolveExecution: Resolution,
  describeMandate: Schema.optionalKey(Resolution)
}).annotate({ identifier: "StandardModule" })

/**
 * `/.well-known/svc-standards.json`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const StandardsManifest = Schema.Struct({
  schema: Schema.Literal("SVC_MAINNET_V6_STANDARDS_MANIFEST_V1"),
  protocol: Schema.Literal(PROTOCOL),
  status: Schema.Literal("ACTIVE"),
  deploymentVersion: Schema.Literal(6),
  releaseId: Bytes32,
  supportedChainIds: ChainIds,
  sameAddressAcrossChains: Schema.Literal(true),
  router: Schema.Struct({
    address: Address,
    expectedRuntimeCodeHash: Bytes32,
    sourceExecutionFunction: Schema.Literal("fillDirect"),
    sourceTransactionCount: Schema.Literal(1)
  }),
  payloadEncoding: StandardPayloadEncoding,
  standards: Schema.Struct({ erc7683: StandardModule, oif: StandardModule }),
  executionInvariant: Schema.Struct({
    botSourceTransactions: Schema.Literal(1),
    svcDestinationTransactions: Schema.Literal(1),
    totalTransactions: Schema.Literal(2)
  })
}).annotate({ identifier: "StandardsManifest" })
/** @since 0.1.0 */
export type StandardsManifest = typeof StandardsManifest.Type

// ---------------------------------------------------------------------------
// Solver discovery
// ---------------------------------------------------------------------------

/**
 * `/.well-known/svc-solver.json` and `/api/v6/solver-discovery` (identical bodies).
 *
 * @category schemas
 * @since 0.1.0
 */
export const SolverDiscovery = Schema.Struct({
  schema: Schema.Literal("SVC_MAINNET_V6_SOLVER_DISCOVERY_V2"),
  deploymentVersion: Schema.Literal(6),
  deploymentStatus: Schema.Literal("ACTIVE"),
  releaseId: Bytes32,
  feedSigner: Address,
  solverProfile: Schema.Struct({
    executionScopes: Schema.Array(Schema.Literals(["INTRA_CHAIN", "CROSS_CHAIN"])),
    automatedDiscovery: Schema.Literal(true),
    variableSizeExecution: Schema.Literal(true),
    machineVerifiableState: Schema.Literal(true),
    accountlessDiscovery: Schema.Literal(true)
  }),
  discoveryModel: Schema.Literal("SIGNED_MACHINE_READABLE_FEED"),
  executionModel: Schema.Literal("EXACTLY_ONE_BOT_SOURCE_TX_PLUS_ONE_SVC_DESTINATION_TX"),
  publication: Schema.Literal("SIGNED_OFFCHAIN_FEED_ZERO_PERIODIC_GAS"),
  feedTransport: Schema.Struct({
    primary: Schema.Literal("SSE_CONFIRMED_ACTIVE_SET"),
    recovery: Schema.Literal("HTTP_SIGNED_FEED"),
    reconnectWithLastEventId: Schema.Literal(true)
  }),
  authentication: Schema.Literal("WALLET_OR_NATIVE_ACCOUNT_PROOF"),
  permitRequestSigning: Schema.Struct({
    mode: Schema.Literal("LOCAL_DETERMINISTIC_MESSAGE"),
    domain: Schema.String,
    canonicalizer: Schema.Literal("canonicalPermitRequest"),
    messageBuilder: Schema.Literal("permitRequestMessage"),
    signatureScheme: Schema.Literal("EIP191_PERSONAL_SIGN_UTF8"),
    canonicalJson: Schema.Literal("RECURSIVE_SORTED_OBJECT_KEYS_COMPACT_JSON"),
    messageLines: Schema.Array(Schema.String),
    requestMessageEndpointRequired: Schema.Literal(false)
  }),
  endpoints: Schema.Struct({
    manifest: Uri,
    onchainDiscovery: Uri,
    openapi: Uri,
    standards: Uri,
    solverDiscovery: Uri,
    solverFeed: Uri,
    solverFeedEvents: Uri,
    routeDetailTemplate: Uri,
    permitRequestMessage: Uri,
    executionPermits: Uri,
    permitStatusTemplate: Uri
  }),
  standards: Schema.Tuple([
    Schema.Struct({
      standardId: Bytes32,
      name: Schema.Literals(["ERC-7683", "OIF"]),
      compatibilityLevel: Schema.String,
      moduleAddress: Address,
      executable: Schema.Boolean
    }),
    Schema.Struct({
      standardId: Bytes32,
      name: Schema.Literals(["ERC-7683", "OIF"]),
      compatibilityLevel: Schema.String,
      moduleAddress: Address,
      executable: Schema.Boolean
    })
  ]),
  passiveOnchainDiscovery: Schema.Struct({
    uri: Uri,
    facadeAddress: Address,
    chains: ChainIds,
    sameAddressAcrossChains: Schema.Literal(true)
  }),
  activationRequired: Schema.Literal(false)
}).annotate({ identifier: "SolverDiscovery" })
/** @since 0.1.0 */
export type SolverDiscovery = typeof SolverDiscovery.Type

// ---------------------------------------------------------------------------
// On-chain discovery fingerprint
// ---------------------------------------------------------------------------

const Erc165Fingerprint = Schema.Struct({
  supported: Schema.Boolean,
  erc165InterfaceId: Selector4,
  svcStandardModuleV6InterfaceId: Selector4,
  resolverDetection: Schema.optionalKey(Schema.String)
})

/**
 * `/.well-known/svc-onchain-discovery.json`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const OnchainDiscoveryFingerprint = Schema.Struct({
  schema: Schema.Literal("SVC_MAINNET_V6_ONCHAIN_DISCOVERY_FINGERPRINT_V1"),
  protocol: Schema.Literal(PROTOCOL),
  status: Schema.Literal("ACTIVE"),
  deploymentVersion: Schema.Literal(6),
  releaseId: Bytes32,
  discoveryURI: Uri,
  onchainDiscoveryURI: Uri,
  feedURI: Uri,
  publicIntegrationRepo: Uri,
  chains: ChainIds,
  sameAddressAcrossChains: Schema.Literal(true),
  facade: Address,
  facadeRuntimeCodeHash: Bytes32,
  registry: Address,
  registryRuntimeCodeHash: Bytes32,
  router: Address,
  routerRuntimeCodeHash: Bytes32,
  selectors: SelectorMap,
  selectorSignatures: StringMap,
  events: Schema.Struct({
    SourceFillV6: Schema.Struct({
      contract: Schema.String,
      address: Address,
      sameAddressAcrossChains: Schema.Literal(true),
      chains: ChainIds,
      signature: Schema.String,
      topic0: Bytes32,
      indexed: Schema.Array(Schema.String),
      fields: Schema.Array(Schema.String),
      indexedFields: Schema.Array(IndexedField),
      indexedTopicPositions: Schema.Record(Schema.String, TopicPosition),
      nonIndexed: Schema.Array(Schema.String),
      discoveryMapping: Schema.Struct({ router: Address, facade: Address, discoveryURI: Uri })
    })
  }),
  erc7683: Schema.Struct({
    resolver: Address,
    sameAddressAcrossChains: Schema.Literal(true),
    chains: ChainIds,
    runtimeCodeHash: Bytes32,
    router: Address,
    standardId: Bytes32,
    selectors: SelectorMap,
    selectorSignatures: StringMap,
    erc165: Erc165Fingerprint,
    discoveryMapping: Schema.Struct({ resolver: Address, router: Address, facade: Address, discoveryURI: Uri })
  }),
  oif: Schema.Struct({
    module: Address,
    sameAddressAcrossChains: Schema.Literal(true),
    chains: ChainIds,
    runtimeCodeHash: Bytes32,
    router: Address,
    standardId: Bytes32,
    compatibilityLevel: Bytes32,
    compatibilityLevelName: Schema.String,
    executable: Schema.Literal(false),
    selectors: SelectorMap,
    selectorSignatures: StringMap,
    erc165: Erc165Fingerprint
  }),
  deployment: Schema.Struct({
    method: Schema.Literal("CREATE2"),
    factory: Address,
    salt: Bytes32,
    initCodeHash: Bytes32,
    expectedFacadeAddress: Address,
    supportedChainIds: ChainIds,
    sameAddressAcrossChains: Schema.Literal(true),
    compiler: Schema.String,
    standardJsonInputHash: Bytes32,
    blocks: Schema.Record(Schema.String, NonNegativeInt),
    transactions: Schema.Record(Schema.String, Bytes32)
  }),
  chainEvidence: Schema.Record(
    Schema.String,
    Schema.Struct({
      network: Schema.String,
      deploymentTransactionHash: Bytes32,
      deploymentBlockNumber: NonNegativeInt,
      explorer: Uri,
      sourcify: Uri,
      sourcifyMatchId: Schema.String
    })
  ),
  sourcify: Schema.StructWithRest(
    Schema.Struct({
      exactMatchOnEveryChain: Schema.Boolean,
      allChainsLookup: Schema.String,
      contractLookupTemplate: Schema.String,
      verifiedContractsListTemplate: Schema.String,
      signatureLookup: Schema.String,
      sourceFillV6Signature: Schema.Record(Schema.String, Schema.Json)
    }),
    [Schema.Record(Schema.String, Schema.Json)]
  ),
  discoveryPaths: Schema.Array(Schema.String),
  scannerHints: ScannerHints
}).annotate({ identifier: "OnchainDiscoveryFingerprint" })
/** @since 0.1.0 */
export type OnchainDiscoveryFingerprint = typeof OnchainDiscoveryFingerprint.Type
