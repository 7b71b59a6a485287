/**
 * The three discovery documents of the solver interface, built from
 * configuration: the solver manifest (`/.well-known/svc-solver.json`, also
 * `/api/v6/solver-discovery`), the on-chain discovery fingerprint
 * (`/.well-known/svc-onchain-discovery.json`, with the scanner hints) and the
 * standards manifest (`/.well-known/svc-standards.json`).
 *
 * Operator values (contract addresses, runtime code hashes, CREATE2 inputs,
 * deployment evidence, chains) come from {@link OnchainConfig}; everything that
 * can be derived is computed here, never copied: function selectors and the
 * SourceFillV6 topic0 from their signatures, the module interface id from two
 * selectors, the standard ids from their names, and the facade address from the
 * CREATE2 inputs. Every document is checked against its core schema before it is
 * returned, and serialized once ({@link serializeDocuments}).
 *
 * Pure functions: no Effect services, no I/O.
 *
 * @since 0.1.0
 */
import {
  Address,
  Bytes32,
  decodeStrict,
  Ids,
  NonNegativeInt,
  OnchainDiscoveryFingerprint,
  PermitMessage,
  type ScannerHints,
  SolverDiscovery,
  StandardsManifest,
  Uri
} from "@svc/protocol"
import { Result, Schema } from "effect"
import { getAddress, getContractAddress, keccak256, stringToBytes, toEventSelector, toFunctionSelector } from "viem"

type Hex = `0x${string}`

// ---------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------

/**
 * The deployment evidence of the facade on one chain.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChainEvidence {
  /** Network slug (`base`, `bsc`, `hyperevm`). */
  readonly network: string
  readonly deploymentTransactionHash: string
  readonly deploymentBlockNumber: number
  /** Explorer page of the facade (`.../address/<facade>#code`). */
  readonly explorer: string
  /** Sourcify repository page of the facade (`https://repo.sourcify.dev/<chainId>/<facade>`). */
  readonly sourcify: string
  readonly sourcifyMatchId: string
}

/**
 * Operator configuration of on-chain discovery. The five contracts have one
 * address each, identical on every chain of `chains`.
 *
 * @category models
 * @since 0.1.0
 */
export interface OnchainConfig {
  /** EVM chain ids the contracts are deployed on (integers). */
  readonly chains: ReadonlyArray<number>
  /**
   * The discovery facade. Defaults to the CREATE2 address computed from
   * `deployment`; when given it must equal that address.
   */
  readonly facade?: string | undefined
  readonly registry: string
  /** The V6 router (source execution target, emitter of SourceFillV6). */
  readonly router: string
  readonly erc7683Resolver: string
  readonly oifModule: string
  /** keccak256 of each contract's runtime code (`eth_getCode`). */
  readonly runtimeCodeHashes: {
    readonly facade: string
    readonly registry: string
    readonly router: string
    readonly erc7683Resolver: string
    readonly oifModule: string
  }
  /** The CREATE2 deployment of the facade and its evidence. */
  readonly deployment: {
    readonly factory: string
    readonly salt: string
    readonly initCodeHash: string
    readonly compiler: string
    readonly standardJsonInputHash: string
    /** chain id (decimal string) -> deployment block number */
    readonly blocks: Readonly<Record<string, number>>
    /** chain id (decimal string) -> deployment transaction hash */
    readonly transactions: Readonly<Record<string, string>>
  }
  /** chain id (decimal string) -> evidence. */
  readonly chainEvidence: Readonly<Record<string, ChainEvidence>>
  /** The public integration repository (URL). */
  readonly publicIntegrationRepo: string
  /**
   * True when the values are placeholders (the demo): the fingerprint says so in
   * `sourcify.note` and does not claim exact Sourcify matches.
   */
  readonly placeholder: boolean
}

/**
 * The schema of an {@link OnchainConfig} document (for example the JSON file an
 * operator names in the server configuration). Unknown keys are rejected.
 *
 * @category schemas
 * @since 0.1.0
 */
export const OnchainConfigSchema = Schema.Struct({
  chains: Schema.Array(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))).check(Schema.isMinLength(1)),
  facade: Schema.optionalKey(Address),
  registry: Address,
  router: Address,
  erc7683Resolver: Address,
  oifModule: Address,
  runtimeCodeHashes: Schema.Struct({
    facade: Bytes32,
    registry: Bytes32,
    router: Bytes32,
    erc7683Resolver: Bytes32,
    oifModule: Bytes32
  }),
  deployment: Schema.Struct({
    factory: Address,
    salt: Bytes32,
    initCodeHash: Bytes32,
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
  publicIntegrationRepo: Uri,
  placeholder: Schema.Boolean
}).annotate({ identifier: "OnchainConfig" })

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, "; ")

/**
 * Decodes an on-chain discovery configuration document strictly.
 *
 * @throws {Error} naming the offending fields.
 * @category schemas
 * @since 0.1.0
 */
export const parseOnchainConfig = (input: unknown): OnchainConfig => {
  const result = decodeStrict(OnchainConfigSchema)(input)
  if (Result.isFailure(result)) {
    throw new Error(`svc discovery: invalid on-chain configuration: ${oneLine(result.failure.message)}`)
  }
  return result.success
}
/**
 * Input of {@link buildDocuments}.
 *
 * @category models
 * @since 0.1.0
 */
export interface DiscoveryInput {
  /** The public base URL of the solver (`SVC_PUBLIC_URL`); trailing slashes are ignored. */
  readonly publicUrl: string
  /** The authority address (feed and permit signer). */
  readonly feedSigner: string
  readonly releaseId: string
  readonly onchain: OnchainConfig
  /** Execution scopes of the catalog. Default `["CROSS_CHAIN"]`. */
  readonly executionScopes?: ReadonlyArray<"INTRA_CHAIN" | "CROSS_CHAIN"> | undefined
}

/**
 * The three documents.
 *
 * @category models
 * @since 0.1.0
 */
export interface DiscoveryDocuments {
  readonly solverManifest: SolverDiscovery
  readonly onchainDiscovery: OnchainDiscoveryFingerprint
  readonly standards: StandardsManifest
}

/**
 * The three documents as UTF-8 JSON bytes, serialized once.
 *
 * @category models
 * @since 0.1.0
 */
export interface DiscoveryBytes {
  readonly solverManifest: Uint8Array
  readonly onchainDiscovery: Uint8Array
  readonly standards: Uint8Array
}

// ---------------------------------------------------------------------------
// Constants (signatures; every selector and topic is computed from them)
// ---------------------------------------------------------------------------

const PROTOCOL = "Svc V6" as const
const labelHash = (text: string): Hex => keccak256(stringToBytes(text))
const selectorOf = (signature: string): Hex => toFunctionSelector(signature)

/**
 * The path of each discovery document and operation under the public URL.
 *
 * @category constants
 * @since 0.1.0
 */
export const PATHS = {
  manifest: "/.well-known/svc-solver.json",
  onchainDiscovery: "/.well-known/svc-onchain-discovery.json",
  openapi: "/openapi.json",
  standards: "/.well-known/svc-standards.json",
  solverDiscovery: "/api/v6/solver-discovery",
  solverFeed: "/api/v6/solver-feed",
  solverFeedEvents: "/api/v6/solver-feed/events",
  routeDetailTemplate: "/api/v6/routes/{routeId}",
  permitRequestMessage: "/api/v6/execution-permits/request-message",
  executionPermits: "/api/v6/execution-permits",
  permitStatusTemplate: "/api/v6/execution-permits/{fillId}"
} as const

/**
 * Contract names and roles of the scanner hints.
 *
 * @category constants
 * @since 0.1.0
 */
export const CONTRACTS = {
  facade: { name: "SvcSolverDiscoveryV6", role: "ONCHAIN_DISCOVERY_FACADE" },
  registry: { name: "SvcMainnetRegistryV6", role: "ROUTE_REGISTRY" },
  router: { name: "SvcMainnetRouterV6", role: "SOURCE_FILL_ROUTER" },
  erc7683Resolver: { name: "SvcERC7683ModuleV6", role: "ERC_7683_RESOLVER" },
  oifModule: { name: "SvcOIFModuleV6", role: "OIF_DESCRIPTION_MODULE" }
} as const

/**
 * Signatures of the facade's read functions.
 *
 * @category constants
 * @since 0.1.0
 */
export const FACADE_SIGNATURES = {
  discoveryURI: "discoveryURI()",
  isLive: "isLive()",
  systemState: "systemState()",
  routeCount: "routeCount()",
  routeAt: "routeAt(uint256)",
  route: "route(bytes32)"
} as const

/**
 * Signatures of the ERC-7683 resolver module's discovery functions.
 *
 * @category constants
 * @since 0.1.0
 */
export const ERC7683_SIGNATURES = {
  standardId: "standardId()",
  supportsInterface: "supportsInterface(bytes4)",
  resolve: "resolve(bytes)",
  resolveExecution: "resolveExecution(bytes)",
  router: "router()"
} as const

/**
 * Signatures of the OIF description module's discovery functions.
 *
 * @category constants
 * @since 0.1.0
 */
export const OIF_SIGNATURES = {
  standardId: "standardId()",
  supportsInterface: "supportsInterface(bytes4)",
  compatibilityLevel: "compatibilityLevel()",
  resolveExecution: "resolveExecution(bytes)",
  describeMandate: "describeMandate(bytes)",
  router: "router()"
} as const

/**
 * The fields of `SourceFillV6` in declaration order (the first three indexed).
 *
 * @category constants
 * @since 0.1.0
 */
export const SOURCE_FILL_V6_FIELDS = [
  { name: "fillId", type: "bytes32", indexed: true },
  { name: "routeId", type: "bytes32", indexed: true },
  { name: "quoteId", type: "bytes32", indexed: true },
  { name: "payer", type: "address", indexed: false },
  { name: "recipient", type: "address", indexed: false },
  { name: "sourceAsset", type: "address", indexed: false },
  { name: "destinationAsset", type: "address", indexed: false },
  { name: "destinationChainId", type: "uint256", indexed: false },
  { name: "amountInRaw", type: "uint128", indexed: false },
  { name: "amountOutRaw", type: "uint128", indexed: false },
  { name: "sourceFinalityBlocks", type: "uint32", indexed: false },
  { name: "settlementDeadline", type: "uint64", indexed: false },
  { name: "permitNonce", type: "bytes32", indexed: false },
  { name: "executionGeneration", type: "bytes32", indexed: false }
] as const

/**
 * The canonical signature of `SourceFillV6`.
 *
 * @category constants
 * @since 0.1.0
 */
export const SOURCE_FILL_V6_SIGNATURE = `SourceFillV6(${SOURCE_FILL_V6_FIELDS.map((f) => f.type).join(",")})`

/**
 * topic0 of `SourceFillV6`, computed from its signature
 * (`0x77d880254b141dedc64867f6d2d253eedfc609837b892c4ddfe154a43ea80561`).
 *
 * @category constants
 * @since 0.1.0
 */
export const SOURCE_FILL_V6_TOPIC0: Hex = toEventSelector(SOURCE_FILL_V6_SIGNATURE)

/**
 * The ERC-165 interface id (`supportsInterface(bytes4)`, 0x01ffc9a7).
 *
 * @category constants
 * @since 0.1.0
 */
export const ERC165_INTERFACE_ID: Hex = selectorOf("supportsInterface(bytes4)")

/**
 * The interface id of a V6 standard module: selector(`standardId()`) XOR
 * selector(`resolveExecution(bytes)`) (0x8d60d6f9).
 *
 * @category constants
 * @since 0.1.0
 */
export const STANDARD_MODULE_INTERFACE_ID: Hex = `0x${
  ((Number.parseInt(selectorOf("standardId()").slice(2), 16) ^
    Number.parseInt(selectorOf("resolveExecution(bytes)").slice(2), 16)) >>> 0).toString(16).padStart(8, "0")
}`

/**
 * Standard ids: keccak256 of the standard's name.
 *
 * @category constants
 * @since 0.1.0
 */
export const STANDARD_IDS = {
  erc7683: labelHash("ERC-7683"),
  oif: labelHash("OIF")
} as const

/**
 * The OIF module's compatibility level, keccak256("DISCOVERY_DESCRIPTION_ONLY").
 *
 * @category constants
 * @since 0.1.0
 */
export const OIF_COMPATIBILITY_LEVEL_ID: Hex = labelHash("DISCOVERY_DESCRIPTION_ONLY")

/**
 * The deterministic-deployment proxy used as the CREATE2 factory.
 *
 * @category constants
 * @since 0.1.0
 */
export const CREATE2_FACTORY: Hex = "0x4e59b44847b379578588920cA78FbF26c0B4956C"

/**
 * The CREATE2 salt of the facade: keccak256("SVC_PUBLIC_SOLVER_DISCOVERY_V6").
 *
 * @category constants
 * @since 0.1.0
 */
export const FACADE_SALT: Hex = labelHash("SVC_PUBLIC_SOLVER_DISCOVERY_V6")

const selectorMaps = <K extends string>(signatures: Readonly<Record<K, string>>) => ({
  selectors: Object.fromEntries(Object.entries(signatures).map(([k, s]) => [k, selectorOf(s as string)])) as Record<K, Hex>,
  selectorSignatures: { ...signatures } as Record<K, string>
})

// ---------------------------------------------------------------------------
// Demo configuration
// ---------------------------------------------------------------------------

/**
 * The last 20 bytes of keccak256 of a label, EIP-55 (the demo catalog's
 * convention for placeholder addresses).
 *
 * @category demo
 * @since 0.1.0
 */
export const placeholderAddress = (label: string): Hex => getAddress(`0x${labelHash(label).slice(-40)}`)

/**
 * The CREATE2 address of a contract (`keccak256(0xff ++ factory ++ salt ++ initCodeHash)[12:]`).
 *
 * @category deployment
 * @since 0.1.0
 */
export const create2Address = (deployment: { readonly factory: string; readonly salt: string; readonly initCodeHash: string }): Hex =>
  getContractAddress({
    opcode: "CREATE2",
    from: deployment.factory as Hex,
    salt: deployment.salt as Hex,
    bytecodeHash: deployment.initCodeHash as Hex
  })

/**
 * The demo releaseId: keccak256("SVC_MAINNET_V6").
 *
 * @category demo
 * @since 0.1.0
 */
export const DEMO_RELEASE_ID: Hex = Ids.DEFAULT_RELEASE_ID

const NETWORK_SLUGS: Readonly<Record<string, string>> = { "8453": "base", "56": "bsc", "999": "hyperevm" }
const EXPLORERS: Readonly<Record<string, string>> = {
  "8453": "https://basescan.org",
  "56": "https://bscscan.com",
  "999": "https://hyperevmscan.io"
}

/**
 * The demo's on-chain discovery configuration. Every value is a documented
 * PLACEHOLDER, not a deployed or verified contract:
 *
 * - releaseId (passed to {@link buildDocuments}) = {@link DEMO_RELEASE_ID} = keccak256("SVC_MAINNET_V6");
 * - factory = 0x4e59b44847b379578588920cA78FbF26c0B4956C (the deterministic-deployment proxy);
 * - salt = keccak256("SVC_PUBLIC_SOLVER_DISCOVERY_V6");
 * - initCodeHash = keccak256("svc demo facade init code") (a placeholder: no facade
 *   bytecode is compiled for the demo); the facade address is the CREATE2 address
 *   computed from these three;
 * - registry, ERC-7683 module and OIF module = last 20 bytes of keccak256("svc demo
 *   registry"), keccak256("svc demo erc7683 module"), keccak256("svc demo oif module");
 * - the router is the catalog's router (the demo catalog's router is
 *   0x2Af7d059E5efdBe1D2A234B78DF91E948ee22Ee2, keccak256("svc demo router"), on 8453, 56 and 999);
 * - runtime code hashes = keccak256("svc demo <contract> runtime code") for facade,
 *   registry, router, erc7683 module, oif module;
 * - compiler "0.8.26+commit.8a97fa7a", standardJsonInputHash = keccak256("svc demo
 *   facade standard json input");
 * - per chain: deployment block 0, deployment transaction keccak256("svc demo facade
 *   deployment <chainId>"), Sourcify match id "svc-demo-placeholder";
 * - publicIntegrationRepo https://example.com/svc/public-integration.
 *
 * @category demo
 * @since 0.1.0
 */
export const demoOnchainConfig = (routerAddress: string, chainIds: ReadonlyArray<number>): OnchainConfig => {
  const deployment = {
    factory: CREATE2_FACTORY,
    salt: FACADE_SALT,
    initCodeHash: labelHash("svc demo facade init code"),
    compiler: "0.8.26+commit.8a97fa7a",
    standardJsonInputHash: labelHash("svc demo facade standard json input"),
    blocks: Object.fromEntries(chainIds.map((id) => [String(id), 0])),
    transactions: Object.fromEntries(chainIds.map((id) => [String(id), labelHash(`svc demo facade deployment ${id}`)]))
  }
  const facade = create2Address(deployment)
  return {
    chains: [...chainIds],
    registry: placeholderAddress("svc demo registry"),
    router: getAddress(routerAddress),
    erc7683Resolver: placeholderAddress("svc demo erc7683 module"),
    oifModule: placeholderAddress("svc demo oif module"),
    runtimeCodeHashes: {
      facade: labelHash("svc demo facade runtime code"),
      registry: labelHash("svc demo registry runtime code"),
      router: labelHash("svc demo router runtime code"),
      erc7683Resolver: labelHash("svc demo erc7683 module runtime code"),
      oifModule: labelHash("svc demo oif module runtime code")
    },
    deployment,
    chainEvidence: Object.fromEntries(chainIds.map((id) => {
      const key = String(id)
      const explorer = EXPLORERS[key]
      return [key, {
        network: NETWORK_SLUGS[key] ?? `chain-${key}`,
        deploymentTransactionHash: deployment.transactions[key]!,
        deploymentBlockNumber: 0,
        explorer: explorer === undefined
          ? `https://sourcify.dev/#/lookup/${facade}`
          : `${explorer}/address/${facade}#code`,
        sourcify: `https://repo.sourcify.dev/${key}/${facade}`,
        sourcifyMatchId: "svc-demo-placeholder"
      }]
    })),
    publicIntegrationRepo: "https://example.com/svc/public-integration",
    placeholder: true
  }
}

// ---------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------

/**
 * The public URL without trailing slashes; throws unless it is an absolute http(s) URL.
 *
 * @category urls
 * @since 0.1.0
 */
export const normalizePublicUrl = (publicUrl: string): string => {
  const trimmed = publicUrl.replace(/\/+$/, "")
  if (!URL.canParse(trimmed) || !/^https?:$/.test(new URL(trimmed).protocol)) {
    throw new Error(`svc discovery: publicUrl ${JSON.stringify(publicUrl)} is not an absolute http(s) URL`)
  }
  return trimmed
}

/**
 * The absolute URL of every endpoint (templates keep `{routeId}` and `{fillId}`).
 *
 * @category urls
 * @since 0.1.0
 */
export const endpointsOf = (publicUrl: string): { readonly [K in keyof typeof PATHS]: string } => {
  const base = normalizePublicUrl(publicUrl)
  return Object.fromEntries(Object.entries(PATHS).map(([k, path]) => [k, `${base}${path}`])) as {
    readonly [K in keyof typeof PATHS]: string
  }
}

const checked = <A>(name: string, schema: Schema.Decoder<unknown>, document: A): A => {
  const result = decodeStrict(schema)(document)
  if (Result.isFailure(result)) {
    throw new Error(`svc discovery: the built ${name} does not match its schema: ${oneLine(result.failure.message)}`)
  }
  return document
}

const addressOf = (field: string, value: string): Hex => {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(value)) {
    throw new Error(`svc discovery: ${field} ${JSON.stringify(value)} is not an address`)
  }
  return getAddress(value.toLowerCase())
}

const bytes32Of = (field: string, value: string): Hex => {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
    throw new Error(`svc discovery: ${field} ${JSON.stringify(value)} is not 32 bytes of hex`)
  }
  return value.toLowerCase() as Hex
}

/**
 * Builds the three discovery documents and checks each against its core schema.
 *
 * @throws {Error} when the configuration is inconsistent (a facade that is not the
 *   CREATE2 address, a malformed address) or a document fails its own schema.
 * @category builders
 * @since 0.1.0
 */
export const buildDocuments = (input: DiscoveryInput): DiscoveryDocuments => {
  const { onchain } = input
  const endpoints = endpointsOf(input.publicUrl)
  const releaseId = bytes32Of("releaseId", input.releaseId)
  const feedSigner = addressOf("feedSigner", input.feedSigner)
  const chains = [...onchain.chains]
  if (chains.length === 0 || !chains.every((c) => Number.isSafeInteger(c) && c >= 1)) {
    throw new Error(`svc discovery: chains must be a non-empty list of integer chain ids, got ${JSON.stringify(chains)}`)
  }

  for (const [field, map] of [
    ["deployment.blocks", onchain.deployment.blocks],
    ["deployment.transactions", onchain.deployment.transactions],
    ["chainEvidence", onchain.chainEvidence]
  ] as const) {
    const keys = Object.keys(map).sort()
    const wanted = chains.map(String).sort()
    if (keys.join(",") !== wanted.join(",")) {
      throw new Error(`svc discovery: ${field} must have one entry per chain (${wanted.join(", ")}), has ${keys.join(", ") || "none"}`)
    }
  }

  const deployment = {
    factory: addressOf("deployment.factory", onchain.deployment.factory),
    salt: bytes32Of("deployment.salt", onchain.deployment.salt),
    initCodeHash: bytes32Of("deployment.initCodeHash", onchain.deployment.initCodeHash)
  }
  const expectedFacadeAddress = create2Address(deployment)
  const facade = onchain.facade === undefined ? expectedFacadeAddress : addressOf("facade", onchain.facade)
  if (facade !== expectedFacadeAddress) {
    throw new Error(
      `svc discovery: facade ${facade} is not the CREATE2 address ${expectedFacadeAddress} of the configured factory, salt and initCodeHash`
    )
  }
  const registry = addressOf("registry", onchain.registry)
  const router = addressOf("router", onchain.router)
  const resolver = addressOf("erc7683Resolver", onchain.erc7683Resolver)
  const oifModule = addressOf("oifModule", onchain.oifModule)
  const codeHash = {
    facade: bytes32Of("runtimeCodeHashes.facade", onchain.runtimeCodeHashes.facade),
    registry: bytes32Of("runtimeCodeHashes.registry", onchain.runtimeCodeHashes.registry),
    router: bytes32Of("runtimeCodeHashes.router", onchain.runtimeCodeHashes.router),
    erc7683Resolver: bytes32Of("runtimeCodeHashes.erc7683Resolver", onchain.runtimeCodeHashes.erc7683Resolver),
    oifModule: bytes32Of("runtimeCodeHashes.oifModule", onchain.runtimeCodeHashes.oifModule)
  }
  const discoveryURI = endpoints.manifest
  const interfaceIds = [ERC165_INTERFACE_ID, STANDARD_MODULE_INTERFACE_ID]

  // -- on-chain discovery fingerprint ---------------------------------------

  const facadeSelectors = selectorMaps(FACADE_SIGNATURES)
  const erc7683Selectors = selectorMaps(ERC7683_SIGNATURES)
  const oifSelectors = selectorMaps(OIF_SIGNATURES)

  const indexedFields = SOURCE_FILL_V6_FIELDS.filter((f) => f.indexed).map((f, i) => ({
    name: f.name,
    type: f.type,
    topicPosition: i + 1
  }))
  const indexedTopicPositions = Object.fromEntries(indexedFields.map((f) => [f.name, f.topicPosition]))
  const nonIndexed = SOURCE_FILL_V6_FIELDS.filter((f) => !f.indexed).map((f) => f.name)
  const eventMapping = { router, facade, discoveryURI }

  const probeMethod = (key: "discoveryURI" | "isLive" | "systemState" | "routeCount") => {
    const returns: Record<typeof key, ReadonlyArray<{ name: string; type: string }>> = {
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
    return {
      contract: "facade",
      address: facade,
      signature: FACADE_SIGNATURES[key],
      selector: facadeSelectors.selectors[key],
      stateMutability: key === "discoveryURI" ? "pure" as const : "view" as const,
      returns: returns[key]
    }
  }
  const methods = {
    discoveryURI: probeMethod("discoveryURI"),
    isLive: probeMethod("isLive"),
    systemState: probeMethod("systemState"),
    routeCount: probeMethod("routeCount")
  }
  const greaterThanZero = { comparison: "GREATER_THAN", value: "0" }
  const hintContract = (key: keyof typeof CONTRACTS, address: Hex) => ({
    name: CONTRACTS[key].name,
    role: CONTRACTS[key].role,
    address,
    expectedRuntimeCodeHash: codeHash[key],
    supportedChainIds: chains,
    sameAddressAcrossChains: true as const
  })

  const scannerHints: ScannerHints = {
    schema: "SVC_MAINNET_V6_SCANNER_HINTS_V1",
    generatedFrom: "CANONICAL_ONCHAIN_DISCOVERY_FINGERPRINT",
    protocol: PROTOCOL,
    releaseId,
    deploymentVersion: 6,
    status: "ACTIVE",
    supportedChainIds: chains,
    sameAddressAcrossChains: true,
    contracts: {
      facade: hintContract("facade", facade),
      registry: hintContract("registry", registry),
      router: hintContract("router", router),
      erc7683Resolver: hintContract("erc7683Resolver", resolver),
      oifModule: hintContract("oifModule", oifModule)
    },
    probe: {
      mode: "EXTERNAL_SCANNER_READ_ONLY",
      externalScannerOnly: true,
      executedBySvc: false,
      performsWrites: false,
      pollingRequired: false,
      methods,
      steps: [
        {
          order: 1,
          id: "facade-code-present",
          required: true,
          transport: "JSON_RPC",
          rpcMethod: "eth_getCode",
          address: facade,
          supportedChainIds: chains,
          expected: { nonEmptyRuntimeCode: true }
        },
        {
          order: 2,
          id: "facade-runtime-code-hash",
          required: true,
          operation: "KECCAK256_RUNTIME_CODE",
          inputFromStep: "facade-code-present",
          expected: { equals: codeHash.facade }
        },
        {
          order: 3,
          id: "facade-discovery-uri",
          required: true,
          transport: "JSON_RPC",
          rpcMethod: "eth_call",
          call: methods.discoveryURI,
          expected: { equals: discoveryURI }
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
            release: releaseId,
            publicRegistry: registry,
            publicRouter: router,
            discoverableRouteCount: greaterThanZero,
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
          expected: greaterThanZero
        },
        {
          order: 7,
          id: "same-facade-address-on-all-supported-chains",
          required: true,
          transport: "JSON_RPC",
          rpcMethod: "eth_getCode",
          address: facade,
          supportedChainIds: chains,
          expected: { sameAddressAcrossChains: true, runtimeCodeHashOnEveryChain: codeHash.facade }
        },
        {
          order: 8,
          id: "source-fill-router-event",
          required: false,
          optional: true,
          transport: "JSON_RPC",
          rpcMethod: "eth_getLogs",
          address: router,
          supportedChainIds: chains,
          topics: [SOURCE_FILL_V6_TOPIC0],
          expected: { emittingContract: CONTRACTS.router.name }
        },
        {
          order: 9,
          id: "follow-canonical-solver-discovery-uri",
          required: true,
          transport: "HTTPS",
          method: "GET",
          uriFromStep: "facade-discovery-uri",
          expected: { uri: discoveryURI }
        }
      ]
    },
    eventDiscovery: {
      SourceFillV6: {
        emittingContract: CONTRACTS.router.name,
        address: router,
        supportedChainIds: chains,
        signature: SOURCE_FILL_V6_SIGNATURE,
        topic0: SOURCE_FILL_V6_TOPIC0,
        indexedFields,
        indexedTopicPositions,
        nonIndexedFields: nonIndexed,
        discoveryMapping: eventMapping
      }
    },
    deterministicDeployment: {
      method: "CREATE2",
      factory: deployment.factory,
      salt: deployment.salt,
      initCodeHash: deployment.initCodeHash,
      expectedFacadeAddress,
      supportedChainIds: chains,
      deploymentBlocks: { ...onchain.deployment.blocks },
      deploymentTransactions: { ...onchain.deployment.transactions },
      sameAddressAcrossChains: true
    },
    standards: {
      erc7683: {
        resolver,
        supportedChainIds: chains,
        standardId: STANDARD_IDS.erc7683,
        erc165InterfaceIds: interfaceIds,
        ...erc7683Selectors,
        router,
        expectedRuntimeCodeHash: codeHash.erc7683Resolver
      },
      oif: {
        module: oifModule,
        supportedChainIds: chains,
        standardId: STANDARD_IDS.oif,
        compatibilityLevel: OIF_COMPATIBILITY_LEVEL_ID,
        compatibilityLevelName: "DISCOVERY_DESCRIPTION_ONLY",
        executable: false,
        erc165InterfaceIds: interfaceIds,
        ...oifSelectors,
        router,
        expectedRuntimeCodeHash: codeHash.oifModule
      }
    }
  }

  const sourcifyNote = onchain.placeholder
    ? {
      note: "Demo placeholders: the contract addresses, runtime code hashes, CREATE2 inputs (initCodeHash) and " +
        "deployment evidence of this document are documented svc demo values, not deployed or verified contracts. " +
        "Selectors, topic0, interface ids, standard ids and the CREATE2 address are computed."
    }
    : {}

  const onchainDiscovery: OnchainDiscoveryFingerprint = {
    schema: "SVC_MAINNET_V6_ONCHAIN_DISCOVERY_FINGERPRINT_V1",
    protocol: PROTOCOL,
    status: "ACTIVE",
    deploymentVersion: 6,
    releaseId,
    discoveryURI,
    onchainDiscoveryURI: endpoints.onchainDiscovery,
    feedURI: endpoints.solverFeed,
    publicIntegrationRepo: onchain.publicIntegrationRepo,
    chains,
    sameAddressAcrossChains: true,
    facade,
    facadeRuntimeCodeHash: codeHash.facade,
    registry,
    registryRuntimeCodeHash: codeHash.registry,
    router,
    routerRuntimeCodeHash: codeHash.router,
    ...facadeSelectors,
    events: {
      SourceFillV6: {
        contract: CONTRACTS.router.name,
        address: router,
        sameAddressAcrossChains: true,
        chains,
        signature: SOURCE_FILL_V6_SIGNATURE,
        topic0: SOURCE_FILL_V6_TOPIC0,
        indexed: indexedFields.map((f) => f.name),
        fields: SOURCE_FILL_V6_FIELDS.map((f) => f.name),
        indexedFields,
        indexedTopicPositions,
        nonIndexed,
        discoveryMapping: eventMapping
      }
    },
    erc7683: {
      resolver,
      sameAddressAcrossChains: true,
      chains,
      runtimeCodeHash: codeHash.erc7683Resolver,
      router,
      standardId: STANDARD_IDS.erc7683,
      ...erc7683Selectors,
      erc165: {
        supported: true,
        erc165InterfaceId: ERC165_INTERFACE_ID,
        svcStandardModuleV6InterfaceId: STANDARD_MODULE_INTERFACE_ID,
        resolverDetection: "standardId()+resolve(bytes)"
      },
      discoveryMapping: { resolver, router, facade, discoveryURI }
    },
    oif: {
      module: oifModule,
      sameAddressAcrossChains: true,
      chains,
      runtimeCodeHash: codeHash.oifModule,
      router,
      standardId: STANDARD_IDS.oif,
      compatibilityLevel: OIF_COMPATIBILITY_LEVEL_ID,
      compatibilityLevelName: "DISCOVERY_DESCRIPTION_ONLY",
      executable: false,
      ...oifSelectors,
      erc165: {
        supported: true,
        erc165InterfaceId: ERC165_INTERFACE_ID,
        svcStandardModuleV6InterfaceId: STANDARD_MODULE_INTERFACE_ID
      }
    },
    deployment: {
      method: "CREATE2",
      factory: deployment.factory,
      salt: deployment.salt,
      initCodeHash: deployment.initCodeHash,
      expectedFacadeAddress,
      supportedChainIds: chains,
      sameAddressAcrossChains: true,
      compiler: onchain.deployment.compiler,
      standardJsonInputHash: bytes32Of("deployment.standardJsonInputHash", onchain.deployment.standardJsonInputHash),
      blocks: { ...onchain.deployment.blocks },
      transactions: { ...onchain.deployment.transactions }
    },
    chainEvidence: { ...onchain.chainEvidence },
    sourcify: {
      exactMatchOnEveryChain: !onchain.placeholder,
      allChainsLookup: `https://sourcify.dev/server/v2/contract/all-chains/${facade}`,
      contractLookupTemplate: "https://sourcify.dev/server/v2/contract/{chainId}/{address}?fields=abi,compilation,deployment",
      verifiedContractsListTemplate: "https://sourcify.dev/server/v2/contracts/{chainId}?limit=200&sort=desc",
      signatureLookup: "https://api.4byte.sourcify.dev/signature-database/v1/lookup",
      sourceFillV6Signature: {
        status: "REGISTERED",
        lookup: `https://api.4byte.sourcify.dev/signature-database/v1/lookup?event=${SOURCE_FILL_V6_TOPIC0}`,
        signature: SOURCE_FILL_V6_SIGNATURE,
        topic0: SOURCE_FILL_V6_TOPIC0,
        hasVerifiedContractAssociation: false,
        registrationMethod: "DIRECT_SIGNATURE_IMPORT"
      },
      ...sourcifyNote
    },
    discoveryPaths: [
      "facade.discoveryURI -> well-known manifest -> signed Feed -> routes",
      "SourceFillV6.topic0 -> Router -> Facade -> discoveryURI -> signed Feed",
      "ERC-7683 standardId -> Resolver.router -> Facade -> discoveryURI -> signed Feed",
      "Sourcify chain enumeration -> Facade ABI -> discoveryURI -> signed Feed",
      `Facade found on one chain -> same-address probe on chains ${chains.join("/")}`
    ],
    scannerHints
  }

  // -- standards manifest ----------------------------------------------------

  const payloadEncoding = {
    mediaType: "application/vnd.svc.execution-permit-v6+abi",
    solidity: "abi.encode(ExecutionPermit,bytes)",
    tuple: ["SvcMainnetV6Types.ExecutionPermit permit", "bytes permitSignature"],
    source: "ExecutionPermitResponse.permit.permit + ExecutionPermitResponse.permit.permitSignature"
  } as const

  const standards: StandardsManifest = {
    schema: "SVC_MAINNET_V6_STANDARDS_MANIFEST_V1",
    protocol: PROTOCOL,
    status: "ACTIVE",
    deploymentVersion: 6,
    releaseId,
    supportedChainIds: chains,
    sameAddressAcrossChains: true,
    router: {
      address: router,
      expectedRuntimeCodeHash: codeHash.router,
      sourceExecutionFunction: "fillDirect",
      sourceTransactionCount: 1
    },
    payloadEncoding,
    standards: {
      erc7683: {
        name: "ERC-7683",
        standardId: STANDARD_IDS.erc7683,
        compatibilityLevel: "EXECUTABLE_RESOLVER",
        executable: true,
        moduleAddress: resolver,
        expectedRuntimeCodeHash: codeHash.erc7683Resolver,
        supportedChainIds: chains,
        sameAddressAcrossChains: true,
        router,
        ...erc7683Selectors,
        erc165: { supported: true, interfaceIds },
        payloadEncoding,
        discoveryMethod: "standardId()+supportsInterface(bytes4)+router()",
        resolutionTransport: "OFFCHAIN_ETH_CALL",
        resolve: {
          signature: "resolve(bytes)",
          selector: erc7683Selectors.selectors.resolve,
          stateMutability: "view",
          ethCallOnly: true,
          transactionCount: 0,
          stepCount: 1,
          stepType: "Call",
          target: router,
          function: "fillDirect",
          sourceExecutionCallCount: 1
        },
        resolveExecution: {
          supported: true,
          signature: ERC7683_SIGNATURES.resolveExecution,
          selector: erc7683Selectors.selectors.resolveExecution,
          stateMutability: "view",
          ethCallOnly: true,
          transactionCount: 0,
          outputFields: ["routeId", "quoteId", "target", "value", "callData"],
          target: router,
          function: "fillDirect",
          sourceTransactionCount: 1
        }
      },
      oif: {
        name: "OIF",
        standardId: STANDARD_IDS.oif,
        compatibilityLevel: "DISCOVERY_DESCRIPTION_ONLY",
        compatibilityLevelId: OIF_COMPATIBILITY_LEVEL_ID,
        executable: false,
        moduleAddress: oifModule,
        expectedRuntimeCodeHash: codeHash.oifModule,
        supportedChainIds: chains,
        sameAddressAcrossChains: true,
        router,
        ...oifSelectors,
        erc165: { supported: true, interfaceIds },
        payloadEncoding,
        discoveryMethod: "standardId()+supportsInterface(bytes4)+router()+compatibilityLevel()",
        resolutionTransport: "OFFCHAIN_ETH_CALL_DESCRIPTION_ONLY",
        resolveExecution: {
          supported: false,
          signature: OIF_SIGNATURES.resolveExecution,
          selector: oifSelectors.selectors.resolveExecution,
          stateMutability: "pure",
          executable: false,
          revertsWith: "OIFExecutionUnsupported()",
          transactionCount: 0
        },
        describeMandate: {
          supported: true,
          signature: OIF_SIGNATURES.describeMandate,
          selector: oifSelectors.selectors.describeMandate,
          stateMutability: "pure",
          ethCallOnly: true,
          transactionCount: 0,
          outputFields: ["oracle", "settler", "chainId", "token", "amount", "recipient", "callbackData", "context"]
        }
      }
    },
    executionInvariant: {
      botSourceTransactions: 1,
      svcDestinationTransactions: 1,
      totalTransactions: 2
    }
  }

  // -- solver manifest -------------------------------------------------------

  const solverManifest: SolverDiscovery = {
    schema: "SVC_MAINNET_V6_SOLVER_DISCOVERY_V2",
    deploymentVersion: 6,
    deploymentStatus: "ACTIVE",
    releaseId,
    feedSigner,
    solverProfile: {
      executionScopes: [...(input.executionScopes ?? ["CROSS_CHAIN"])],
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
    endpoints: { ...endpoints },
    standards: [
      {
        standardId: STANDARD_IDS.erc7683,
        name: "ERC-7683",
        compatibilityLevel: "EXECUTABLE_RESOLVER",
        moduleAddress: resolver,
        executable: true
      },
      {
        standardId: STANDARD_IDS.oif,
        name: "OIF",
        compatibilityLevel: "DISCOVERY_DESCRIPTION_ONLY",
        moduleAddress: oifModule,
        executable: false
      }
    ],
    passiveOnchainDiscovery: {
      uri: endpoints.onchainDiscovery,
      facadeAddress: facade,
      chains,
      sameAddressAcrossChains: true
    },
    activationRequired: false
  }

  return {
    solverManifest: checked("solver manifest", SolverDiscovery, solverManifest),
    onchainDiscovery: checked("on-chain discovery fingerprint", OnchainDiscoveryFingerprint, onchainDiscovery),
    standards: checked("standards manifest", StandardsManifest, standards)
  }
}

const encoder = new TextEncoder()

/**
 * Serializes each document once, as UTF-8 JSON (2-space indented, final LF). The
 * server sends these bytes unchanged.
 *
 * @category serialization
 * @since 0.1.0
 */
export const serializeDocuments = (docs: DiscoveryDocuments): DiscoveryBytes => ({
  solverManifest: encoder.encode(`${JSON.stringify(docs.solverManifest, null, 2)}\n`),
  onchainDiscovery: encoder.encode(`${JSON.stringify(docs.onchainDiscovery, null, 2)}\n`),
  standards: encoder.encode(`${JSON.stringify(docs.standards, null, 2)}\n`)
})
