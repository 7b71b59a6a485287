/**
 * One valid sample of every resource in `Resources` (spec part 2 and the discovery
 * documents of section 4), in wire (encoded JSON) form. Shared by the test suites:
 * the objects are deep-frozen, so clone (`structuredClone`) before changing one.
 *
 * Identifiers are derived with the svc rules (Ids), the feed is really hashed and
 * signed, the permit request signature and the permit signature are real, all with
 * the public Appendix A test key (never fund it).
 */
import { getAddress } from "viem"
import * as FeedSignature from "../src/FeedSignature.ts"
import * as Ids from "../src/Ids.ts"
import * as PermitDigest from "../src/PermitDigest.ts"
import * as PermitMessage from "../src/PermitMessage.ts"
import type * as S from "../src/schema/index.ts"

type Hex = `0x${string}`

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

/** `0x` + one byte repeated 32 times (`hex32(0x10)` = 0x1010...10). */
export const hex32 = (byte: number): Hex => `0x${byte.toString(16).padStart(2, "0").repeat(32)}`

/** An EIP-55 address made of one byte repeated 20 times. */
export const address20 = (byte: number): Hex => getAddress(`0x${byte.toString(16).padStart(2, "0").repeat(20)}`) as Hex

/** The public Appendix A test key: keccak256("SVC V6 SDK PUBLIC TEST VECTOR KEY - NEVER FUND"). Never fund it. */
export const TEST_KEY: Hex = "0xa0fc1e849bc97b1524e8999e1e532ee68c83236b7fe25d6908a52523d5b53659"
/** Its address. */
export const TEST_ADDRESS: Hex = "0xcC2EC811171Ff13A707963157d0F4166594bFa73"

/** The demo releaseId, keccak256("SVC_MAINNET_V6"). */
export const RELEASE_ID: Hex = Ids.DEFAULT_RELEASE_ID

export const SOLVER_URL = "https://solver.svc.example"

// ---------------------------------------------------------------------------
// Networks, assets, contracts
// ---------------------------------------------------------------------------

export const BASE_NETWORK_ID = Ids.evmNetworkId(8453)
export const BSC_NETWORK_ID = Ids.evmNetworkId(56)
export const SOLANA_NETWORK_ID = Ids.solanaNetworkId()

export const USDC_BASE = getAddress("0x833589fcd6edb6e08f4c7c32d4f71b54bda02913") as Hex
export const USDT_BSC = getAddress("0x55d398326f99059ff775485246999027b3197955") as Hex
/** The USDC mint on Solana (base58). */
export const USDC_SOLANA_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"

export const ROUTER = getAddress("0x7a017000000000000000000000000000000000a1") as Hex
export const SOURCE_VAULT = getAddress("0x5e5e000000000000000000000000000000000001") as Hex
export const DESTINATION_VAULT = getAddress("0x5e5e000000000000000000000000000000000002") as Hex
export const FACADE = getAddress("0xfacade0000000000000000000000000000000006") as Hex
export const REGISTRY = getAddress("0x4e6157e700000000000000000000000000000006") as Hex
export const ERC7683_MODULE = getAddress("0x7683000000000000000000000000000000000006") as Hex
export const OIF_MODULE = getAddress("0x01f0000000000000000000000000000000000006") as Hex
export const CREATE2_FACTORY = getAddress("0x4e59b44847b379578588920ca78fbf26c0b4956c") as Hex
export const PAYER = TEST_ADDRESS
export const RECIPIENT = getAddress("0xb0b0000000000000000000000000000000000002") as Hex

const BASE_USDC_ASSET_ID = Ids.evmAssetId(BASE_NETWORK_ID, USDC_BASE)
const BSC_USDT_ASSET_ID = Ids.evmAssetId(BSC_NETWORK_ID, USDT_BSC)
const SOLANA_USDC_ASSET_ID = Ids.assetId(SOLANA_NETWORK_ID, Ids.label(USDC_SOLANA_MINT))

// ---------------------------------------------------------------------------
// Feed
// ---------------------------------------------------------------------------

export const GENERATED_AT = 2_000_000_000
export const FEED_VALID_UNTIL = 2_000_000_300
const ROUTE_VALID_AFTER = 1_999_958_400
const ROUTE_VALID_UNTIL = 2_000_044_800

const routeIdOpen = Ids.routeId({
  sourceNetworkId: BASE_NETWORK_ID,
  sourceAssetId: BASE_USDC_ASSET_ID,
  destinationNetworkId: BSC_NETWORK_ID,
  destinationAssetId: BSC_USDT_ASSET_ID,
  releaseId: RELEASE_ID
})

/** An open EVM to EVM route (Base USDC to BSC USDT). */
export const route: S.Route = deepFreeze({
  dataVersion: "7",
  routeId: routeIdOpen,
  quoteId: Ids.quoteId({
    routeId: routeIdOpen,
    pricingReferenceId: hex32(0xa1),
    validAfter: ROUTE_VALID_AFTER,
    validUntil: ROUTE_VALID_UNTIL,
    executionGeneration: hex32(0xa2),
    policyHash: hex32(0xa3)
  }),
  sourceNetworkId: BASE_NETWORK_ID,
  sourceAssetId: BASE_USDC_ASSET_ID,
  destinationNetworkId: BSC_NETWORK_ID,
  destinationAssetId: BSC_USDT_ASSET_ID,
  sourceChainId: "8453",
  destinationChainId: "56",
  sourceAsset: USDC_BASE,
  destinationAsset: USDT_BSC,
  sourceVault: SOURCE_VAULT,
  destinationVault: DESTINATION_VAULT,
  sourceRouter: ROUTER,
  sourceLocator: { chainId: 8453, token: USDC_BASE.toLowerCase() },
  destinationLocator: { chainId: 56, token: USDT_BSC.toLowerCase() },
  discoveryStatus: "DISCOVERABLE",
  executionStatus: "OPEN",
  permitAvailable: true,
  publicationLane: "L1",
  publicationRank: 0,
  serviceCategory: "STABLE_BRIDGE",
  feeMode: "INCLUDED_IN_PRICE",
  serviceFeeBps: 5,
  sourceTokenDecimals: 6,
  destinationTokenDecimals: 18,
  pricingReferenceId: hex32(0xa1),
  executionGeneration: hex32(0xa2),
  sourceFinalityBlocks: 3,
  settlementWindowSeconds: 600,
  validAfter: ROUTE_VALID_AFTER,
  validUntil: ROUTE_VALID_UNTIL,
  policyHash: hex32(0xa3),
  assumptionsHash: hex32(0xa4),
  legacyRouteId: null,
  dailyStatus: "OPEN",
  open: true,
  pricingMode: "INDICATIVE_ENVELOPE_REPRICE_AT_PERMIT",
  indicativePriceNumeratorRaw: "999500000000000000",
  indicativePriceDenominatorRaw: "1000000",
  minimumFillInRaw: "1000000",
  maxAvailableInRaw: "250000000000"
})

const routeIdSolana = Ids.routeId({
  sourceNetworkId: BASE_NETWORK_ID,
  sourceAssetId: BASE_USDC_ASSET_ID,
  destinationNetworkId: SOLANA_NETWORK_ID,
  destinationAssetId: SOLANA_USDC_ASSET_ID,
  releaseId: RELEASE_ID
})

/** A paused route to a non-EVM destination (EVM-only bindings null). */
export const routeToSolana: S.Route = deepFreeze({
  ...route,
  routeId: routeIdSolana,
  quoteId: Ids.quoteId({
    routeId: routeIdSolana,
    pricingReferenceId: hex32(0xb1),
    validAfter: ROUTE_VALID_AFTER,
    validUntil: ROUTE_VALID_UNTIL,
    executionGeneration: hex32(0xb2),
    policyHash: hex32(0xb3)
  }),
  destinationNetworkId: SOLANA_NETWORK_ID,
  destinationAssetId: SOLANA_USDC_ASSET_ID,
  destinationChainId: null,
  destinationAsset: null,
  destinationVault: null,
  destinationLocator: { cluster: "mainnet-beta", mint: USDC_SOLANA_MINT, "token program": "spl-token" },
  executionStatus: "PAUSED",
  permitAvailable: false,
  publicationLane: "L2",
  publicationRank: 3,
  serviceFeeBps: null,
  destinationTokenDecimals: 6,
  pricingReferenceId: hex32(0xb1),
  executionGeneration: hex32(0xb2),
  policyHash: hex32(0xb3),
  assumptionsHash: null,
  legacyRouteId: hex32(0xb4),
  dailyStatus: "CLOSED",
  open: false,
  indicativePriceNumeratorRaw: "115792089237316195423570985008687907853269984665640564039457584007913129639935",
  maxAvailableInRaw: "0"
})

export const signedFeedPayload: S.SignedFeedPayload = deepFreeze({
  schema: "SVC_MAINNET_V6_SIGNED_FEED_V1",
  releaseId: RELEASE_ID,
  dataVersion: "7",
  generatedAt: GENERATED_AT,
  validUntil: FEED_VALID_UNTIL,
  routes: [route, routeToSolana]
})

export const actionableRoute: S.ActionableRoute = deepFreeze({
  routeId: route.routeId,
  quoteId: route.quoteId,
  pricingReferenceId: route.pricingReferenceId,
  indicativeNotionalUsd: "250000",
  executableNotionalUsd: "180000.5",
  estimatedSourceGasUsd: "0.0123",
  expectedEdgeAfterSourceGasBps: "4.75",
  economicsObservedAt: "2033-05-18T03:33:00Z",
  economicsValidUntil: "2033-05-18T03:38:00.000+00:00",
  pricingModelVersion: "indicative-v1"
})

const feedHash = FeedSignature.hash(signedFeedPayload)

/** A signed feed whose hash and signature verify at {@link FEED_VALID_AT}. */
export const signedFeed: S.SignedFeed = deepFreeze({
  schema: "SVC_MAINNET_V6_SIGNED_FEED_V1",
  releaseId: RELEASE_ID,
  dataVersion: "7",
  generatedAt: GENERATED_AT,
  validUntil: FEED_VALID_UNTIL,
  signedPayload: signedFeedPayload,
  routeDetailTemplate: `${SOLVER_URL}/api/v6/routes/{routeId}`,
  actionableRoutes: [actionableRoute],
  routes: [route, routeToSolana],
  openRoutes: [route],
  feedHash,
  feedSigner: TEST_ADDRESS,
  feedSignature: FeedSignature.signHash(feedHash, TEST_KEY),
  publicationGasWei: "0",
  publicationTransactionHashes: [],
  routeCount: 2,
  openRouteCount: 1,
  returnedRouteCount: 2,
  returnedOpenRouteCount: 1
})

/** A time at which {@link signedFeed} is valid. */
export const FEED_VALID_AT = GENERATED_AT + 1

export const feedResponse: S.FeedResponse = deepFreeze({ ok: true, feed: signedFeed })

export const routeMetrics: S.RouteMetrics = deepFreeze({
  telemetryAvailable: true,
  source: "V6_PUBLICATION_LEARNING_STATE",
  feed_exposures: 1200,
  permit_requests: 40,
  permits_issued: 30,
  source_observed: 25,
  paid: 24,
  updatedAt: "2033-05-18T03:33:20.123Z",
  permitConversionRate: 0.75,
  fillConversionRate: 0.8
})

export const routeDetailResponse: S.RouteDetailResponse = deepFreeze({ ok: true, route, metrics: routeMetrics })

// ---------------------------------------------------------------------------
// Permits
// ---------------------------------------------------------------------------

/** A permit request in the address form (7-line message). */
export const permitRequest: S.PermitRequest = deepFreeze({
  quoteId: route.quoteId,
  requestedAmountInRaw: "2500000",
  standard: "DIRECT",
  payer: PAYER,
  recipient: RECIPIENT,
  idempotencyKey: "sample-request-0001"
})

/** A permit request in the account form on both sides (9-line message), with the explicit nulls of upstream SDKs. */
export const permitRequestAccountForm: S.PermitRequest = deepFreeze({
  quoteId: routeToSolana.quoteId,
  requestedAmountInRaw: "1000000",
  standard: "ERC-7683",
  payer: null,
  recipient: null,
  payerAccountId: Ids.evmAccountId(BASE_NETWORK_ID, PAYER),
  recipientAccountId: Ids.accountId(SOLANA_NETWORK_ID, hex32(0x5a)),
  payerLocator: { address: PAYER.toLowerCase(), chainId: 8453 },
  recipientLocator: { native: "So1anaPubKeyExample" },
  idempotencyKey: "sample:account-form_02"
})

/** The message of {@link permitRequest}. */
export const permitRequestMessage = PermitMessage.build(permitRequest)

export const permitCreateRequest: S.PermitCreateRequest = deepFreeze({
  ...permitRequest,
  requestSignature: PermitMessage.sign(permitRequestMessage, TEST_KEY)
})

export const permitRequestMessageResponse: S.PermitRequestMessageResponse = deepFreeze({
  ok: true,
  message: permitRequestMessage
})

/** The permit issued for {@link permitRequest} on {@link route}. */
export const executionPermit: S.ExecutionPermit = deepFreeze({
  releaseId: RELEASE_ID,
  fillId: hex32(0xf1),
  permitNonce: hex32(0xf2),
  sourceNetworkId: route.sourceNetworkId,
  sourceAssetId: route.sourceAssetId,
  destinationNetworkId: route.destinationNetworkId,
  destinationAssetId: route.destinationAssetId,
  sourceVaultAccountId: Ids.evmAccountId(BASE_NETWORK_ID, SOURCE_VAULT),
  destinationVaultAccountId: Ids.evmAccountId(BSC_NETWORK_ID, DESTINATION_VAULT),
  payerAccountId: Ids.evmAccountId(BASE_NETWORK_ID, PAYER),
  recipientAccountId: Ids.evmAccountId(BSC_NETWORK_ID, RECIPIENT),
  routeId: route.routeId,
  quoteId: route.quoteId,
  policyHash: route.policyHash,
  executionGeneration: route.executionGeneration,
  dataVersion: "7",
  validAfter: String(GENERATED_AT),
  validUntil: String(GENERATED_AT + 120),
  sourceFinalityBlocks: 3,
  settlementWindowSeconds: 600,
  sourceChainId: "8453",
  destinationChainId: "56",
  sourceAsset: USDC_BASE,
  destinationAsset: USDT_BSC,
  sourceVault: SOURCE_VAULT,
  destinationVault: DESTINATION_VAULT,
  sourceRouter: ROUTER,
  payer: PAYER,
  recipient: RECIPIENT,
  amountInRaw: "2500000",
  amountOutRaw: "2498750000000000000",
  publicationLane: "L1",
  serviceCategory: "STABLE_BRIDGE",
  feeMode: "INCLUDED_IN_PRICE",
  serviceFeeBps: 5
})

const signedPermit = PermitDigest.sign(executionPermit, TEST_KEY)

export const directExecution: S.DirectExecution = deepFreeze({
  schema: "SVC_V6_DIRECT_EXECUTION_V1",
  target: ROUTER,
  function: "fillDirect",
  transactionCount: 1,
  inventory: {
    source: "V6_PERSISTED_INVENTORY_SNAPSHOT",
    snapshotId: "inv-2033-05-18T03:33:20Z",
    capturedAt: "2033-05-18T03:33:20Z",
    ageMs: 250,
    physicalRaw: "900000000000000000000000",
    effectiveLiabilityRaw: "0",
    effectiveAccountingHoldRaw: "2498750000000000000",
    activeClearingCommitmentRaw: "0"
  },
  pricing: {
    pricingMode: "FRESH_AMOUNT_BOUND",
    modelVersion: "fresh-v1",
    pricingReferenceId: route.pricingReferenceId,
    publicationLane: "L1",
    serviceCategory: "STABLE_BRIDGE",
    feeMode: "INCLUDED_IN_PRICE",
    serviceFeeBps: 5,
    snapshotId: "px-0001",
    routeSnapshotId: null,
    quoteObservedAt: "2033-05-18T03:33:19Z",
    pricingCycleId: "cycle-42",
    pricingCycleObservedAt: null,
    pricingCycleValidUntil: "2033-05-18T03:35:20Z",
    payoutEconomicCeilingRequired: false,
    payoutEconomicCeiling: null,
    evidence: { oracle: "fixed", samples: [1, 2, 3], nested: { "any key": true } },
    executionCapacity: { availableOutRaw: "900000000000000000000000", holds: [] }
  }
})

export const executionPermitEnvelope: S.ExecutionPermitEnvelope = deepFreeze({
  fillId: executionPermit.fillId,
  state: "ISSUED",
  idempotencyKey: permitRequest.idempotencyKey,
  expiresAt: GENERATED_AT + 120,
  permit: executionPermit,
  permitDigest: signedPermit.permitDigest,
  permitSignature: signedPermit.permitSignature,
  execution: directExecution,
  totalTransactionCount: 2,
  sourceTxHash: null,
  payoutTxHash: null,
  publicationLane: "L1",
  serviceCategory: "STABLE_BRIDGE",
  feeMode: "INCLUDED_IN_PRICE",
  serviceFeeBps: 5
})

export const executionPermitResponse: S.ExecutionPermitResponse = deepFreeze({
  ok: true,
  idempotent: false,
  permit: executionPermitEnvelope
})

export const permitStatusResponse: S.PermitStatusResponse = deepFreeze({
  ok: true,
  permit: { ...executionPermitEnvelope, state: "PAID", sourceTxHash: hex32(0xe1), payoutTxHash: hex32(0xe2) }
})

export const errorResponse: S.ErrorResponse = deepFreeze({
  ok: false,
  error: "QUOTE_EXPIRED",
  reasonCodes: ["QUOTE_EXPIRED", "ROUTE_WINDOW_PASSED"],
  diagnostics: { quoteId: route.quoteId, validUntil: ROUTE_VALID_UNTIL, detail: null }
})

export const sseErrorEvent: S.SseErrorEvent = deepFreeze({ error: "PUBLICATION_CLOSED" })

// ---------------------------------------------------------------------------
// Discovery documents
// ---------------------------------------------------------------------------

const CHAINS = [8453, 56, 999]
const DISCOVERY_URI = `${SOLVER_URL}/.well-known/svc-solver.json`
const FACADE_CODE_HASH = hex32(0xc1)
const REGISTRY_CODE_HASH = hex32(0xc2)
const ROUTER_CODE_HASH = hex32(0xc3)
const ERC7683_CODE_HASH = hex32(0xc4)
const OIF_CODE_HASH = hex32(0xc5)
const ERC7683_STANDARD_ID: Hex = "0x27ecffeeec898dbaf864fc095016ad6212d7a27e32a3069234a4a1da23f50993"
const OIF_STANDARD_ID: Hex = "0x3de00a2eccd5b86df839b3747bda483b2de2a855d640eb3d4938d6d43cb162c0"
const OIF_LEVEL_ID: Hex = "0x733ae58d730378b55d837e45d20e05882481ab7715890fd971ee75f1cd63643c"
const SOURCE_FILL_SIGNATURE =
  "SourceFillV6(bytes32,bytes32,bytes32,address,address,address,address,uint256,uint128,uint128,uint32,uint64,bytes32,bytes32)"
const SOURCE_FILL_TOPIC0: Hex = "0x77d880254b141dedc64867f6d2d253eedfc609837b892c4ddfe154a43ea80561"
const SALT: Hex = "0x1ef1dfed1bcc3525e588ba9054fcd502b8b69ae550ac3e2aa6c0f206ddf3e0ca"

const probeMethods = {
  discoveryURI: {
    contract: "facade",
    address: FACADE,
    signature: "discoveryURI()",
    selector: "0x5b9b12c1",
    stateMutability: "pure",
    returns: [{ name: "uri", type: "string" }]
  },
  isLive: {
    contract: "facade",
    address: FACADE,
    signature: "isLive()",
    selector: "0xb8f7a665",
    stateMutability: "view",
    returns: [{ name: "live", type: "bool" }]
  },
  systemState: {
    contract: "facade",
    address: FACADE,
    signature: "systemState()",
    selector: "0x991292e3",
    stateMutability: "view",
    returns: [
      { name: "currentChainId", type: "uint256" },
      { name: "release", type: "bytes32" },
      { name: "publicRegistry", type: "address" },
      { name: "publicRouter", type: "address" },
      { name: "discoverableRouteCount", type: "uint256" },
      { name: "live", type: "bool" }
    ]
  },
  routeCount: {
    contract: "facade",
    address: FACADE,
    signature: "routeCount()",
    selector: "0xbf539cb4",
    stateMutability: "view",
    returns: [{ name: "discoverableRouteCount", type: "uint256" }]
  }
} as const

const indexedFields = [
  { name: "fillId", type: "bytes32", topicPosition: 1 },
  { name: "routeId", type: "bytes32", topicPosition: 2 },
  { name: "quoteId", type: "bytes32", topicPosition: 3 }
]
const nonIndexedFields = [
  "payer",
  "recipient",
  "sourceAsset",
  "destinationAsset",
  "destinationChainId",
  "amountInRaw",
  "amountOutRaw",
  "sourceFinalityBlocks",
  "settlementDeadline",
  "permitNonce",
  "executionGeneration"
]
const erc7683Selectors = {
  standardId: "0x6838c23c",
  supportsInterface: "0x01ffc9a7",
  resolve: "0xe4056186",
  resolveExecution: "0xe55814c5",
  router: "0xf887ea40"
}
const erc7683SelectorSignatures = {
  standardId: "standardId()",
  supportsInterface: "supportsInterface(bytes4)",
  resolve: "resolve(bytes)",
  resolveExecution: "resolveExecution(bytes)",
  router: "router()"
}
const oifSelectors = {
  standardId: "0x6838c23c",
  supportsInterface: "0x01ffc9a7",
  compatibilityLevel: "0x4658e14b",
  describeMandate: "0xd3528a0f",
  resolveExecution: "0xe55814c5",
  router: "0xf887ea40"
}
const oifSelectorSignatures = {
  standardId: "standardId()",
  supportsInterface: "supportsInterface(bytes4)",
  compatibilityLevel: "compatibilityLevel()",
  describeMandate: "describeMandate(bytes)",
  resolveExecution: "resolveExecution(bytes)",
  router: "router()"
}

const hintContract = (name: string, role: string, address: Hex, codeHash: Hex) => ({
  name,
  role,
  address,
  expectedRuntimeCodeHash: codeHash,
  supportedChainIds: CHAINS,
  sameAddressAcrossChains: true as const
})

/** Scanner hints with exactly the nine probe steps of docs/protocol.md, Discovery documents (Scanner hints). */
export const scannerHints: S.ScannerHints = deepFreeze({
  schema: "SVC_MAINNET_V6_SCANNER_HINTS_V1",
  generatedFrom: "CANONICAL_ONCHAIN_DISCOVERY_FINGERPRINT",
  protocol: "Svc V6",
  releaseId: RELEASE_ID,
  deploymentVersion: 6,
  status: "ACTIVE",
  supportedChainIds: CHAINS,
  sameAddressAcrossChains: true,
  contracts: {
    facade: hintContract("SvcSolverDiscoveryV6", "ONCHAIN_DISCOVERY_FACADE", FACADE, FACADE_CODE_HASH),
    registry: hintContract("SvcMainnetRegistryV6", "ROUTE_REGISTRY", REGISTRY, REGISTRY_CODE_HASH),
    router: hintContract("SvcMainnetRouterV6", "SOURCE_FILL_ROUTER", ROUTER, ROUTER_CODE_HASH),
    erc7683Resolver: hintContract("SvcERC7683ModuleV6", "ERC_7683_RESOLVER", ERC7683_MODULE, ERC7683_CODE_HASH),
    oifModule: hintContract("SvcOIFModuleV6", "OIF_DESCRIPTION_MODULE", OIF_MODULE, OIF_CODE_HASH)
  },
  probe: {
    mode: "EXTERNAL_SCANNER_READ_ONLY",
    externalScannerOnly: true,
    executedBySvc: false,
    performsWrites: false,
    pollingRequired: false,
    methods: probeMethods,
    steps: [
      {
        order: 1,
        id: "facade-code-present",
        required: true,
        transport: "JSON_RPC",
        rpcMethod: "eth_getCode",
        address: FACADE,
        supportedChainIds: CHAINS,
        expected: { nonEmptyRuntimeCode: true }
      },
      {
        order: 2,
        id: "facade-runtime-code-hash",
        required: true,
        operation: "KECCAK256_RUNTIME_CODE",
        inputFromStep: "facade-code-present",
        expected: { equals: FACADE_CODE_HASH }
      },
      {
        order: 3,
        id: "facade-discovery-uri",
        required: true,
        transport: "JSON_RPC",
        rpcMethod: "eth_call",
        call: probeMethods.discoveryURI,
        expected: { equals: DISCOVERY_URI }
      },
      {
        order: 4,
        id: "facade-live-status",
        required: true,
        transport: "JSON_RPC",
        rpcMethod: "eth_call",
        call: probeMethods.isLive,
        expected: { equals: true }
      },
      {
        order: 5,
        id: "facade-system-state",
        required: true,
        transport: "JSON_RPC",
        rpcMethod: "eth_call",
        call: probeMethods.systemState,
        expected: {
          currentChainId: "CHAIN_BEING_PROBED",
          release: RELEASE_ID,
          publicRegistry: REGISTRY,
          publicRouter: ROUTER,
          discoverableRouteCount: { comparison: "GREATER_THAN", value: "0" },
          live: true
        }
      },
      {
        order: 6,
        id: "facade-route-count",
        required: true,
        transport: "JSON_RPC",
        rpcMethod: "eth_call",
        call: probeMethods.routeCount,
        expected: { comparison: "GREATER_THAN", value: "0" }
      },
      {
        order: 7,
        id: "same-facade-address-on-all-supported-chains",
        required: true,
        transport: "JSON_RPC",
        rpcMethod: "eth_getCode",
        address: FACADE,
        supportedChainIds: CHAINS,
        expected: { sameAddressAcrossChains: true, runtimeCodeHashOnEveryChain: FACADE_CODE_HASH }
      },
      {
        order: 8,
        id: "source-fill-router-event",
        required: false,
        optional: true,
        transport: "JSON_RPC",
        rpcMethod: "eth_getLogs",
        address: ROUTER,
        supportedChainIds: CHAINS,
        topics: [SOURCE_FILL_TOPIC0],
        expected: { emittingContract: "SvcMainnetRouterV6" }
      },
      {
        order: 9,
        id: "follow-canonical-solver-discovery-uri",
        required: true,
        transport: "HTTPS",
        method: "GET",
        uriFromStep: "facade-discovery-uri",
        expected: { uri: DISCOVERY_URI }
      }
    ]
  },
  eventDiscovery: {
    SourceFillV6: {
      emittingContract: "SvcMainnetRouterV6",
      address: ROUTER,
      supportedChainIds: CHAINS,
      signature: SOURCE_FILL_SIGNATURE,
      topic0: SOURCE_FILL_TOPIC0,
      indexedFields,
      indexedTopicPositions: { fillId: 1, routeId: 2, quoteId: 3 },
      nonIndexedFields,
      discoveryMapping: { router: ROUTER, facade: FACADE, discoveryURI: DISCOVERY_URI }
    }
  },
  deterministicDeployment: {
    method: "CREATE2",
    factory: CREATE2_FACTORY,
    salt: SALT,
    initCodeHash: hex32(0xc6),
    expectedFacadeAddress: FACADE,
    supportedChainIds: CHAINS,
    deploymentBlocks: { "8453": 30_000_000, "56": 50_000_000, "999": 9_000_000 },
    deploymentTransactions: { "8453": hex32(0xd1), "56": hex32(0xd2), "999": hex32(0xd3) },
    sameAddressAcrossChains: true
  },
  standards: {
    erc7683: {
      resolver: ERC7683_MODULE,
      supportedChainIds: CHAINS,
      standardId: ERC7683_STANDARD_ID,
      erc165InterfaceIds: ["0x01ffc9a7", "0x8d60d6f9"],
      selectors: erc7683Selectors,
      selectorSignatures: erc7683SelectorSignatures,
      router: ROUTER,
      expectedRuntimeCodeHash: ERC7683_CODE_HASH
    },
    oif: {
      module: OIF_MODULE,
      supportedChainIds: CHAINS,
      standardId: OIF_STANDARD_ID,
      compatibilityLevel: OIF_LEVEL_ID,
      compatibilityLevelName: "DISCOVERY_DESCRIPTION_ONLY",
      executable: false,
      erc165InterfaceIds: ["0x01ffc9a7", "0x8d60d6f9"],
      selectors: oifSelectors,
      selectorSignatures: oifSelectorSignatures,
      router: ROUTER,
      expectedRuntimeCodeHash: OIF_CODE_HASH
    }
  }
})

export const standardPayloadEncoding: S.StandardPayloadEncoding = deepFreeze({
  mediaType: "application/vnd.svc.execution-permit-v6+abi",
  solidity: "abi.encode(ExecutionPermit,bytes)",
  tuple: ["SvcMainnetV6Types.ExecutionPermit permit", "bytes permitSignature"],
  source: "ExecutionPermitResponse.permit.permit + ExecutionPermitResponse.permit.permitSignature"
})

export const standardsManifest: S.StandardsManifest = deepFreeze({
  schema: "SVC_MAINNET_V6_STANDARDS_MANIFEST_V1",
  protocol: "Svc V6",
  status: "ACTIVE",
  deploymentVersion: 6,
  releaseId: RELEASE_ID,
  supportedChainIds: CHAINS,
  sameAddressAcrossChains: true,
  router: {
    address: ROUTER,
    expectedRuntimeCodeHash: ROUTER_CODE_HASH,
    sourceExecutionFunction: "fillDirect",
    sourceTransactionCount: 1
  },
  payloadEncoding: standardPayloadEncoding,
  standards: {
    erc7683: {
      name: "ERC-7683",
      standardId: ERC7683_STANDARD_ID,
      compatibilityLevel: "EXECUTABLE_RESOLVER",
      executable: true,
      moduleAddress: ERC7683_MODULE,
      expectedRuntimeCodeHash: ERC7683_CODE_HASH,
      supportedChainIds: CHAINS,
      sameAddressAcrossChains: true,
      router: ROUTER,
      selectors: erc7683Selectors,
      selectorSignatures: erc7683SelectorSignatures,
      erc165: { supported: true, interfaceIds: ["0x01ffc9a7", "0x8d60d6f9"] },
      payloadEncoding: standardPayloadEncoding,
      discoveryMethod: "standardId()+supportsInterface(bytes4)+router()",
      resolutionTransport: "OFFCHAIN_ETH_CALL",
      resolve: {
        signature: "resolve(bytes)",
        selector: "0xe4056186",
        stateMutability: "view",
        ethCallOnly: true,
        transactionCount: 0,
        stepCount: 1,
        stepType: "Call",
        target: ROUTER,
        function: "fillDirect",
        sourceExecutionCallCount: 1
      },
      resolveExecution: {
        supported: true,
        signature: "resolveExecution(bytes)",
        selector: "0xe55814c5",
        stateMutability: "view",
        ethCallOnly: true,
        transactionCount: 0,
        outputFields: ["routeId", "quoteId", "target", "value", "callData"],
        target: ROUTER,
        function: "fillDirect",
        sourceTransactionCount: 1
      }
    },
    oif: {
      name: "OIF",
      standardId: OIF_STANDARD_ID,
      compatibilityLevel: "DISCOVERY_DESCRIPTION_ONLY",
      compatibilityLevelId: OIF_LEVEL_ID,
      executable: false,
      moduleAddress: OIF_MODULE,
      expectedRuntimeCodeHash: OIF_CODE_HASH,
      supportedChainIds: CHAINS,
      sameAddressAcrossChains: true,
      router: ROUTER,
      selectors: oifSelectors,
      selectorSignatures: oifSelectorSignatures,
      erc165: { supported: true, interfaceIds: ["0x01ffc9a7", "0x8d60d6f9"] },
      payloadEncoding: standardPayloadEncoding,
      discoveryMethod: "standardId()+supportsInterface(bytes4)+router()+compatibilityLevel()",
      resolutionTransport: "OFFCHAIN_ETH_CALL_DESCRIPTION_ONLY",
      resolveExecution: {
        supported: false,
        signature: "resolveExecution(bytes)",
        selector: "0xe55814c5",
        stateMutability: "pure",
        executable: false,
        revertsWith: "OIFExecutionUnsupported()",
        transactionCount: 0
      },
      describeMandate: {
        supported: true,
        signature: "describeMandate(bytes)",
        selector: "0xd3528a0f",
        stateMutability: "pure",
        ethCallOnly: true,
        transactionCount: 0,
        outputFields: ["oracle", "settler", "chainId", "token", "amount", "recipient", "callbackData", "context"]
      }
    }
  },
  executionInvariant: { botSourceTransactions: 1, svcDestinationTransactions: 1, totalTransactions: 2 }
})

export const solverDiscovery: S.SolverDiscovery = deepFreeze({
  schema: "SVC_MAINNET_V6_SOLVER_DISCOVERY_V2",
  deploymentVersion: 6,
  deploymentStatus: "ACTIVE",
  releaseId: RELEASE_ID,
  feedSigner: TEST_ADDRESS,
  solverProfile: {
    executionScopes: ["INTRA_CHAIN", "CROSS_CHAIN"],
    automatedDiscovery: true,
    variableSizeExecution: true,
    machineVerifiableState: true,
    accountlessDiscovery: true
  },
  discoveryModel: "SIGNED_MACHINE_READABLE_FEED",
  executionModel: "EXACTLY_ONE_BOT_SOURCE_TX_PLUS_ONE_SVC_DESTINATION_TX",
  publication: "SIGNED_OFFCHAIN_FEED_ZERO_PERIODIC_GAS",
  feedTransport: { primary: "SSE_CONFIRMED_ACTIVE_SET", recovery: "HTTP_SIGNED_FEED", reconnectWithLastEventId: true },
  authentication: "WALLET_OR_NATIVE_ACCOUNT_PROOF",
  permitRequestSigning: {
    mode: "LOCAL_DETERMINISTIC_MESSAGE",
    domain: PermitMessage.PERMIT_REQUEST_DOMAIN,
    canonicalizer: "canonicalPermitRequest",
    messageBuilder: "permitRequestMessage",
    signatureScheme: "EIP191_PERSONAL_SIGN_UTF8",
    canonicalJson: "RECURSIVE_SORTED_OBJECT_KEYS_COMPACT_JSON",
    messageLines: [...PermitMessage.MESSAGE_LINE_TEMPLATES],
    requestMessageEndpointRequired: false
  },
  endpoints: {
    manifest: DISCOVERY_URI,
    onchainDiscovery: `${SOLVER_URL}/.well-known/svc-onchain-discovery.json`,
    openapi: `${SOLVER_URL}/openapi.json`,
    standards: `${SOLVER_URL}/.well-known/svc-standards.json`,
    solverDiscovery: `${SOLVER_URL}/api/v6/solver-discovery`,
    solverFeed: `${SOLVER_URL}/api/v6/solver-feed`,
    solverFeedEvents: `${SOLVER_URL}/api/v6/solver-feed/events`,
    routeDetailTemplate: `${SOLVER_URL}/api/v6/routes/{routeId}`,
    permitRequestMessage: `${SOLVER_URL}/api/v6/execution-permits/request-message`,
    executionPermits: `${SOLVER_URL}/api/v6/execution-permits`,
    permitStatusTemplate: `${SOLVER_URL}/api/v6/execution-permits/{fillId}`
  },
  standards: [
    {
      standardId: ERC7683_STANDARD_ID,
      name: "ERC-7683",
      compatibilityLevel: "EXECUTABLE_RESOLVER",
      moduleAddress: ERC7683_MODULE,
      executable: true
    },
    {
      standardId: OIF_STANDARD_ID,
      name: "OIF",
      compatibilityLevel: "DISCOVERY_DESCRIPTION_ONLY",
      moduleAddress: OIF_MODULE,
      executable: false
    }
  ],
  passiveOnchainDiscovery: {
    uri: `${SOLVER_URL}/.well-known/svc-onchain-discovery.json`,
    facadeAddress: FACADE,
    chains: CHAINS,
    sameAddressAcrossChains: true
  },
  activationRequired: false
})

const chainEvidence = (chainId: number, network: string, tx: Hex, block: number) => ({
  network,
  deploymentTransactionHash: tx,
  deploymentBlockNumber: block,
  explorer: `https://explorer.example/${network}/address/${FACADE}#code`,
  sourcify: `https://repo.sourcify.dev/${chainId}/${FACADE}`,
  sourcifyMatchId: `${chainId}-match`
})

export const onchainDiscoveryFingerprint: S.OnchainDiscoveryFingerprint = deepFreeze({
  schema: "SVC_MAINNET_V6_ONCHAIN_DISCOVERY_FINGERPRINT_V1",
  protocol: "Svc V6",
  status: "ACTIVE",
  deploymentVersion: 6,
  releaseId: RELEASE_ID,
  discoveryURI: DISCOVERY_URI,
  onchainDiscoveryURI: `${SOLVER_URL}/.well-known/svc-onchain-discovery.json`,
  feedURI: `${SOLVER_URL}/api/v6/solver-feed`,
  publicIntegrationRepo: "https://git.example/svc/public-integration",
  chains: CHAINS,
  sameAddressAcrossChains: true,
  facade: FACADE,
  facadeRuntimeCodeHash: FACADE_CODE_HASH,
  registry: REGISTRY,
  registryRuntimeCodeHash: REGISTRY_CODE_HASH,
  router: ROUTER,
  routerRuntimeCodeHash: ROUTER_CODE_HASH,
  selectors: {
    discoveryURI: "0x5b9b12c1",
    isLive: "0xb8f7a665",
    systemState: "0x991292e3",
    routeCount: "0xbf539cb4",
    routeAt: "0xd7194164",
    route: "0x95bc81be"
  },
  selectorSignatures: {
    discoveryURI: "discoveryURI()",
    isLive: "isLive()",
    systemState: "systemState()",
    routeCount: "routeCount()",
    routeAt: "routeAt(uint256)",
    route: "route(bytes32)"
  },
  events: {
    SourceFillV6: {
      contract: "SvcMainnetRouterV6",
      address: ROUTER,
      sameAddressAcrossChains: true,
      chains: CHAINS,
      signature: SOURCE_FILL_SIGNATURE,
      topic0: SOURCE_FILL_TOPIC0,
      indexed: ["fillId", "routeId", "quoteId"],
      fields: ["fillId", "routeId", "quoteId", ...nonIndexedFields],
      indexedFields,
      indexedTopicPositions: { fillId: 1, routeId: 2, quoteId: 3 },
      nonIndexed: nonIndexedFields,
      discoveryMapping: { router: ROUTER, facade: FACADE, discoveryURI: DISCOVERY_URI }
    }
  },
  erc7683: {
    resolver: ERC7683_MODULE,
    sameAddressAcrossChains: true,
    chains: CHAINS,
    runtimeCodeHash: ERC7683_CODE_HASH,
    router: ROUTER,
    standardId: ERC7683_STANDARD_ID,
    selectors: erc7683Selectors,
    selectorSignatures: erc7683SelectorSignatures,
    erc165: {
      supported: true,
      erc165InterfaceId: "0x01ffc9a7",
      svcStandardModuleV6InterfaceId: "0x8d60d6f9",
      resolverDetection: "standardId()+resolve(bytes)"
    },
    discoveryMapping: { resolver: ERC7683_MODULE, router: ROUTER, facade: FACADE, discoveryURI: DISCOVERY_URI }
  },
  oif: {
    module: OIF_MODULE,
    sameAddressAcrossChains: true,
    chains: CHAINS,
    runtimeCodeHash: OIF_CODE_HASH,
    router: ROUTER,
    standardId: OIF_STANDARD_ID,
    compatibilityLevel: OIF_LEVEL_ID,
    compatibilityLevelName: "DISCOVERY_DESCRIPTION_ONLY",
    executable: false,
    selectors: oifSelectors,
    selectorSignatures: oifSelectorSignatures,
    erc165: { supported: true, erc165InterfaceId: "0x01ffc9a7", svcStandardModuleV6InterfaceId: "0x8d60d6f9" }
  },
  deployment: {
    method: "CREATE2",
    factory: CREATE2_FACTORY,
    salt: SALT,
    initCodeHash: hex32(0xc6),
    expectedFacadeAddress: FACADE,
    supportedChainIds: CHAINS,
    sameAddressAcrossChains: true,
    compiler: "0.8.26+commit.8a97fa7a.Emscripten.clang",
    standardJsonInputHash: hex32(0xc7),
    blocks: { "8453": 30_000_000, "56": 50_000_000, "999": 9_000_000 },
    transactions: { "8453": hex32(0xd1), "56": hex32(0xd2), "999": hex32(0xd3) }
  },
  chainEvidence: {
    "8453": chainEvidence(8453, "base", hex32(0xd1), 30_000_000),
    "56": chainEvidence(56, "bsc", hex32(0xd2), 50_000_000),
    "999": chainEvidence(999, "hyperevm", hex32(0xd3), 9_000_000)
  },
  sourcify: {
    exactMatchOnEveryChain: true,
    allChainsLookup: "https://sourcify.dev/server/v2/contract/all-chains/{address}",
    contractLookupTemplate:
      "https://sourcify.dev/server/v2/contract/{chainId}/{address}?fields=abi,compilation,deployment",
    verifiedContractsListTemplate: "https://sourcify.dev/server/v2/contracts/{chainId}?limit=200&sort=desc",
    signatureLookup: "https://api.4byte.sourcify.dev/signature-database/v1/lookup",
    sourceFillV6Signature: {
      status: "REGISTERED",
      lookup: `https://api.4byte.sourcify.dev/signature-database/v1/lookup?event=${SOURCE_FILL_TOPIC0}`,
      signature: SOURCE_FILL_SIGNATURE,
      topic0: SOURCE_FILL_TOPIC0,
      hasVerifiedContractAssociation: false,
      registrationMethod: "DIRECT_SIGNATURE_IMPORT"
    },
    extraUpstreamKey: { kept: true }
  },
  discoveryPaths: [
    "facade.discoveryURI -> well-known manifest -> signed Feed -> routes",
    "SourceFillV6.topic0 -> Router -> Facade -> discoveryURI -> signed Feed",
    "ERC-7683 standardId -> Resolver.router -> Facade -> discoveryURI -> signed Feed",
    "Sourcify chain enumeration -> Facade ABI -> discoveryURI -> signed Feed",
    "Facade found on one chain -> same-address probe on chains 8453/56/999"
  ],
  scannerHints
})

/** The resources of the spec's part 2 and the discovery documents (section 4): one sample each here. */
export const SAMPLE_NAMES = [
  "Route",
  "SignedFeedPayload",
  "SignedFeed",
  "ActionableRoute",
  "FeedResponse",
  "RouteMetrics",
  "RouteDetailResponse",
  "PermitRequest",
  "PermitCreateRequest",
  "PermitRequestMessageResponse",
  "ExecutionPermit",
  "DirectExecution",
  "ExecutionPermitEnvelope",
  "ExecutionPermitResponse",
  "PermitStatusResponse",
  "ErrorResponse",
  "SseErrorEvent",
  "ScannerHints",
  "StandardPayloadEncoding",
  "StandardsManifest",
  "SolverDiscovery",
  "OnchainDiscoveryFingerprint"
] as const satisfies ReadonlyArray<keyof typeof S.Resources>

export type SampleName = (typeof SAMPLE_NAMES)[number]

/** One valid sample per name of {@link SAMPLE_NAMES} (keys of `Resources`). */
export const samples = {
  Route: route,
  SignedFeedPayload: signedFeedPayload,
  SignedFeed: signedFeed,
  ActionableRoute: actionableRoute,
  FeedResponse: feedResponse,
  RouteMetrics: routeMetrics,
  RouteDetailResponse: routeDetailResponse,
  PermitRequest: permitRequest,
  PermitCreateRequest: permitCreateRequest,
  PermitRequestMessageResponse: permitRequestMessageResponse,
  ExecutionPermit: executionPermit,
  DirectExecution: directExecution,
  ExecutionPermitEnvelope: executionPermitEnvelope,
  ExecutionPermitResponse: executionPermitResponse,
  PermitStatusResponse: permitStatusResponse,
  ErrorResponse: errorResponse,
  SseErrorEvent: sseErrorEvent,
  ScannerHints: scannerHints,
  StandardPayloadEncoding: standardPayloadEncoding,
  StandardsManifest: standardsManifest,
  SolverDiscovery: solverDiscovery,
  OnchainDiscoveryFingerprint: onchainDiscoveryFingerprint
} as const satisfies { readonly [K in SampleName]: (typeof S.Resources)[K]["Type"] }
