/**
 * The scanner hints embedded in the on-chain discovery fingerprint: what an
 * external scanner needs to find and verify the deployment on its own, read-only
 * (the five contracts with their code hashes, the four facade calls, the nine
 * probe steps, the `SourceFillV6` event, the CREATE2 deployment and the two
 * standard modules). svc never runs the probe itself.
 *
 * @since 0.1.0
 */
import { Onchain, type ProbeMethod, type ProbeStep, ScannerHints } from "@svc/protocol"
import type { Result } from "effect"
import type { DocumentContext } from "./Context.ts"
import {
  ERC7683_SELECTORS,
  eventMapping,
  FACADE_SELECTORS,
  MODULE_INTERFACE_IDS,
  OIF_SELECTORS,
  SOURCE_FILL_INDEXED_FIELDS,
  SOURCE_FILL_NON_INDEXED,
  SOURCE_FILL_TOPIC_POSITIONS
} from "./Derived.ts"
import { conform, type DocumentsInvalid } from "./DocumentsInvalid.ts"

type ProbedFunction = "discoveryURI" | "isLive" | "systemState" | "routeCount"

/** The return values of each probed facade function. */
const RETURNS: Readonly<Record<ProbedFunction, ReadonlyArray<{ readonly name: string; readonly type: string }>>> = {
  discoveryURI: [{ name: "uri", type: "string" }],
  isLive: [{ name: "live", type: "bool" }],
  systemState: [
    { name: "currentChainId", type: "uint256" },
    { name: "release", type: "bytes32" },
    { name: "publicRegistry", type: "address" },
    { name: "publicRouter", type: "address" },
    { name: "discoverableRouteCount", type: "uint256" },
    { name: "live", type: "bool" }
  ],
  routeCount: [{ name: "discoverableRouteCount", type: "uint256" }]
}

/** A "greater than zero" expectation. */
const GREATER_THAN_ZERO = { comparison: "GREATER_THAN", value: "0" }

/**
 * The four facade calls of the probe. Every one is a `view` function (the
 * reference facade stores the discovery URI given at deployment).
 *
 * @category onchain
 * @since 0.1.0
 */
export const probeMethods = (context: DocumentContext): Record<ProbedFunction, ProbeMethod> => {
  const method = (key: ProbedFunction): ProbeMethod => ({
    contract: "facade",
    address: context.addresses.facade,
    signature: Onchain.FACADE_SIGNATURES[key],
    selector: FACADE_SELECTORS.selectors[key],
    stateMutability: "view",
    returns: RETURNS[key]
  })
  return {
    discoveryURI: method("discoveryURI"),
    isLive: method("isLive"),
    systemState: method("systemState"),
    routeCount: method("routeCount")
  }
}

/**
 * Steps 1 and 2: the facade has code, and that code hashes to the configured value.
 *
 * @category onchain
 * @since 0.1.0
 */
export const codeSteps = (context: DocumentContext): ReadonlyArray<ProbeStep> => [
  {
    order: 1,
    id: "facade-code-present",
    required: true,
    transport: "JSON_RPC",
    rpcMethod: "eth_getCode",
    address: context.addresses.facade,
    supportedChainIds: context.chains,
    expected: { nonEmptyRuntimeCode: true }
  },
  {
    order: 2,
    id: "facade-runtime-code-hash",
    required: true,
    operation: "KECCAK256_RUNTIME_CODE",
    inputFromStep: "facade-code-present",
    expected: { equals: context.codeHashes.facade }
  }
]

/**
 * Steps 3 to 6: the facade's calls (discovery URI, liveness, system state, route count).
 *
 * @category onchain
 * @since 0.1.0
 */
export const callSteps = (
  context: DocumentContext,
  methods: Record<ProbedFunction, ProbeMethod>
): ReadonlyArray<ProbeStep> => [
  {
    order: 3,
    id: "facade-discovery-uri",
    required: true,
    transport: "JSON_RPC",
    rpcMethod: "eth_call",
    call: methods.discoveryURI,
    expected: { equals: context.discoveryURI }
  },
  {
    order: 4,
    id: "facade-live-status",
    required: true,
    transport: "JSON_RPC",
    rpcMethod: "eth_call",
    call: methods.isLive,
    expected: { equals: true }
  },
  {
    order: 5,
    id: "facade-system-state",
    required: true,
    transport: "JSON_RPC",
    rpcMethod: "eth_call",
    call: methods.systemState,
    expected: {
      currentChainId: "CHAIN_BEING_PROBED",
      release: context.releaseId,
      publicRegistry: context.addresses.registry,
      publicRouter: context.addresses.router,
      discoverableRouteCount: GREATER_THAN_ZERO,
      live: true
    }
  },
  {
    order: 6,
    id: "facade-route-count",
    required: true,
    transport: "JSON_RPC",
    rpcMethod: "eth_call",
    call: methods.routeCount,
    expected: GREATER_THAN_ZERO
  }
]

/**
 * Steps 7 to 9: the same facade on every chain, the router's `SourceFillV6` logs
 * (optional), and following the discovery URI to the manifest.
 *
 * @category onchain
 * @since 0.1.0
 */
export const crossChainSteps = (context: DocumentContext): ReadonlyArray<ProbeStep> => [
  {
    order: 7,
    id: "same-facade-address-on-all-supported-chains",
    required: true,
    transport: "JSON_RPC",
    rpcMethod: "eth_getCode",
    address: context.addresses.facade,
    supportedChainIds: context.chains,
    expected: { sameAddressAcrossChains: true, runtimeCodeHashOnEveryChain: context.codeHashes.facade }
  },
  {
    order: 8,
    id: "source-fill-router-event",
    required: false,
    optional: true,
    transport: "JSON_RPC",
    rpcMethod: "eth_getLogs",
    address: context.addresses.router,
    supportedChainIds: context.chains,
    topics: [Onchain.SOURCE_FILL_V6_TOPIC0],
    expected: { emittingContract: Onchain.CONTRACTS.router.name }
  },
  {
    order: 9,
    id: "follow-canonical-solver-discovery-uri",
    required: true,
    transport: "HTTPS",
    method: "GET",
    uriFromStep: "facade-discovery-uri",
    expected: { uri: context.discoveryURI }
  }
]

/**
 * The five contracts: name, role, address and expected runtime code hash.
 *
 * @category onchain
 * @since 0.1.0
 */
export const hintContracts = (context: DocumentContext): ScannerHints["contracts"] => {
  const contract = (key: keyof typeof Onchain.CONTRACTS) => ({
    name: Onchain.CONTRACTS[key].name,
    role: Onchain.CONTRACTS[key].role,
    address: context.addresses[key],
    expectedRuntimeCodeHash: context.codeHashes[key],
    supportedChainIds: context.chains,
    sameAddressAcrossChains: true as const
  })
  return {
    facade: contract("facade"),
    registry: contract("registry"),
    router: contract("router"),
    erc7683Resolver: contract("erc7683Resolver"),
    oifModule: contract("oifModule")
  }
}

/**
 * The `SourceFillV6` event as a scanner finds it.
 *
 * @category onchain
 * @since 0.1.0
 */
export const eventDiscovery = (context: DocumentContext): ScannerHints["eventDiscovery"] => ({
  SourceFillV6: {
    emittingContract: Onchain.CONTRACTS.router.name,
    address: context.addresses.router,
    supportedChainIds: context.chains,
    signature: Onchain.SOURCE_FILL_V6_SIGNATURE,
    topic0: Onchain.SOURCE_FILL_V6_TOPIC0,
    indexedFields: SOURCE_FILL_INDEXED_FIELDS,
    indexedTopicPositions: SOURCE_FILL_TOPIC_POSITIONS,
    nonIndexedFields: SOURCE_FILL_NON_INDEXED,
    discoveryMapping: eventMapping(context)
  }
})

/**
 * The CREATE2 deployment of the facade.
 *
 * @category onchain
 * @since 0.1.0
 */
export const deterministicDeployment = (context: DocumentContext): ScannerHints["deterministicDeployment"] => ({
  method: "CREATE2",
  factory: context.deployment.factory,
  salt: context.deployment.salt,
  initCodeHash: context.deployment.initCodeHash,
  expectedFacadeAddress: context.deployment.expectedFacadeAddress,
  supportedChainIds: context.chains,
  deploymentBlocks: { ...context.deployment.blocks },
  deploymentTransactions: { ...context.deployment.transactions },
  sameAddressAcrossChains: true
})

/**
 * The two standard modules: standard id, interface ids, selectors, router and code hash.
 *
 * @category onchain
 * @since 0.1.0
 */
export const hintStandards = (context: DocumentContext): ScannerHints["standards"] => ({
  erc7683: {
    resolver: context.addresses.erc7683Resolver,
    supportedChainIds: context.chains,
    standardId: Onchain.STANDARD_IDS.erc7683,
    erc165InterfaceIds: MODULE_INTERFACE_IDS,
    ...ERC7683_SELECTORS,
    router: context.addresses.router,
    expectedRuntimeCodeHash: context.codeHashes.erc7683Resolver
  },
  oif: {
    module: context.addresses.oifModule,
    supportedChainIds: context.chains,
    standardId: Onchain.STANDARD_IDS.oif,
    compatibilityLevel: Onchain.OIF_COMPATIBILITY_LEVEL_ID,
    compatibilityLevelName: "DISCOVERY_DESCRIPTION_ONLY",
    executable: false,
    erc165InterfaceIds: MODULE_INTERFACE_IDS,
    ...OIF_SELECTORS,
    router: context.addresses.router,
    expectedRuntimeCodeHash: context.codeHashes.oifModule
  }
})

/**
 * Builds the scanner hints and checks them against the `ScannerHints` schema.
 *
 * @category constructors
 * @since 0.1.0
 */
export const buildScannerHints = (context: DocumentContext): Result.Result<ScannerHints, DocumentsInvalid> => {
  const methods = probeMethods(context)
  return conform(ScannerHints, "the built scanner hints do not match their schema", {
    schema: "SVC_MAINNET_V6_SCANNER_HINTS_V1",
    generatedFrom: "CANONICAL_ONCHAIN_DISCOVERY_FINGERPRINT",
    protocol: Onchain.PROTOCOL,
    releaseId: context.releaseId,
    deploymentVersion: 6,
    status: "ACTIVE",
    supportedChainIds: context.chains,
    sameAddressAcrossChains: true,
    contracts: hintContracts(context),
    probe: {
      mode: "EXTERNAL_SCANNER_READ_ONLY",
      externalScannerOnly: true,
      executedBySvc: false,
      performsWrites: false,
      pollingRequired: false,
      methods,
      steps: [...codeSteps(context), ...callSteps(context, methods), ...crossChainSteps(context)]
    },
    eventDiscovery: eventDiscovery(context),
    deterministicDeployment: deterministicDeployment(context),
    standards: hintStandards(context)
  })
}
