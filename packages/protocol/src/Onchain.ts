/**
 * The on-chain facts of the V6 interface that a solver and anyone checking it
 * must agree on: the protocol label, the names and roles of the five discovery
 * contracts, the signatures of their read functions, the `SourceFillV6` (and
 * `PayoutV6`) events, the ERC-165 and module interface ids, the standard ids, and
 * the CREATE2 inputs of the discovery facade.
 *
 * Only signatures and names are written down; every selector, topic0, interface
 * id, standard id and address is computed from them here, so a value and the
 * text it is derived from cannot drift apart.
 *
 * Browser-safe: viem's pure functions and the protocol's byte helpers only.
 *
 * @since 0.1.0
 */
import { getContractAddress, toEventSelector, toFunctionSelector } from "viem"
import { type Hex, keccakUtf8 } from "./Bytes.ts"

/**
 * The protocol label every discovery document carries.
 *
 * @category constants
 * @since 0.1.0
 */
export const PROTOCOL = "Svc V6" as const

/**
 * keccak256 of the UTF-8 bytes of a label (standard ids, the facade salt, the
 * OIF compatibility level), as lowercase hex.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const labelHash = (label: string): Hex => keccakUtf8(label)

/**
 * The five contracts of on-chain discovery: the name each is published under and
 * the role the scanner hints give it.
 *
 * @category onchain
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
 * The read functions of the discovery facade, by the key the documents use.
 *
 * @category onchain
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
 * The discovery functions of the ERC-7683 resolver module.
 *
 * @category onchain
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
 * The discovery functions of the OIF description module.
 *
 * @category onchain
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
 * The selectors of a set of function signatures, next to the signatures
 * themselves, keyed alike and in the same order: the `selectors` /
 * `selectorSignatures` pair the discovery documents publish for each contract.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const selectorMaps = <K extends string>(
  signatures: Readonly<Record<K, string>>
): { readonly selectors: Record<K, Hex>; readonly selectorSignatures: Record<K, string> } => ({
  selectors: Object.fromEntries(
    (Object.entries(signatures) as Array<[K, string]>).map(([key, signature]) => [key, toFunctionSelector(signature)])
  ) as Record<K, Hex>,
  selectorSignatures: { ...signatures } as Record<K, string>
})

/**
 * The fields of the router's `SourceFillV6` event in declaration order; the
 * first three are indexed (topics 1 to 3).
 *
 * @category onchain
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
 * The canonical signature of `SourceFillV6`: the name and the field types.
 *
 * @category onchain
 * @since 0.1.0
 */
export const SOURCE_FILL_V6_SIGNATURE: string = `SourceFillV6(${SOURCE_FILL_V6_FIELDS.map((f) => f.type).join(",")})`

/**
 * topic0 of `SourceFillV6`, keccak256 of {@link SOURCE_FILL_V6_SIGNATURE}
 * (`0x77d880254b141dedc64867f6d2d253eedfc609837b892c4ddfe154a43ea80561`).
 *
 * @category onchain
 * @since 0.1.0
 */
export const SOURCE_FILL_V6_TOPIC0: Hex = toEventSelector(SOURCE_FILL_V6_SIGNATURE)

const PAYOUT_V6_FIELDS = [
  { name: "fillId", type: "bytes32", indexed: true },
  { name: "recipient", type: "address", indexed: true },
  { name: "token", type: "address", indexed: true },
  { name: "amount", type: "uint128", indexed: false }
] as const

const PAYOUT_V6_SIGNATURE = `PayoutV6(${PAYOUT_V6_FIELDS.map((f) => f.type).join(",")})`

/**
 * The vault's `PayoutV6` event (the destination-side payout of a fill): the
 * emitting contract, its fields in declaration order (the first three indexed; a
 * zero `token` is the native coin), its signature and topic0. Not part of the
 * discovery documents; described here so that observers of payouts derive the
 * same topic.
 *
 * @category onchain
 * @since 0.1.0
 */
export const PAYOUT_V6: {
  readonly contract: "SvcVaultV6"
  readonly fields: typeof PAYOUT_V6_FIELDS
  readonly signature: string
  readonly topic0: Hex
} = {
  contract: "SvcVaultV6",
  fields: PAYOUT_V6_FIELDS,
  signature: PAYOUT_V6_SIGNATURE,
  topic0: toEventSelector(PAYOUT_V6_SIGNATURE)
}

/**
 * The ERC-165 interface id, the selector of `supportsInterface(bytes4)` (`0x01ffc9a7`).
 *
 * @category onchain
 * @since 0.1.0
 */
export const ERC165_INTERFACE_ID: Hex = toFunctionSelector("supportsInterface(bytes4)")

const xorSelectors = (a: string, b: string): Hex => {
  const word =
    (Number.parseInt(toFunctionSelector(a).slice(2), 16) ^ Number.parseInt(toFunctionSelector(b).slice(2), 16)) >>> 0
  return `0x${word.toString(16).padStart(8, "0")}`
}

/**
 * The interface id of a V6 standard module: selector(`standardId()`) XOR
 * selector(`resolveExecution(bytes)`) (`0x8d60d6f9`).
 *
 * @category onchain
 * @since 0.1.0
 */
export const STANDARD_MODULE_INTERFACE_ID: Hex = xorSelectors("standardId()", "resolveExecution(bytes)")

/**
 * The standard ids the modules report from `standardId()`: keccak256 of the
 * standard's name (`ERC-7683`, `OIF`).
 *
 * @category onchain
 * @since 0.1.0
 */
export const STANDARD_IDS: { readonly erc7683: Hex; readonly oif: Hex } = {
  erc7683: labelHash("ERC-7683"),
  oif: labelHash("OIF")
}

/**
 * What the OIF module's `compatibilityLevel()` returns:
 * keccak256("DISCOVERY_DESCRIPTION_ONLY").
 *
 * @category onchain
 * @since 0.1.0
 */
export const OIF_COMPATIBILITY_LEVEL_ID: Hex = labelHash("DISCOVERY_DESCRIPTION_ONLY")

/**
 * The deterministic-deployment proxy, the CREATE2 factory of the facade (the
 * same address on every EVM chain).
 *
 * @category onchain
 * @since 0.1.0
 */
export const CREATE2_FACTORY: Hex = "0x4e59b44847b379578588920cA78FbF26c0B4956C"

/**
 * The CREATE2 salt of the facade: keccak256("SVC_PUBLIC_SOLVER_DISCOVERY_V6").
 *
 * @category onchain
 * @since 0.1.0
 */
export const FACADE_SALT: Hex = labelHash("SVC_PUBLIC_SOLVER_DISCOVERY_V6")

/**
 * The address CREATE2 gives a contract: the last 20 bytes of
 * keccak256(0xff ++ factory ++ salt ++ initCodeHash), EIP-55 checksummed. The
 * inputs must be well-formed hex (20, 32 and 32 bytes).
 *
 * @category onchain
 * @since 0.1.0
 */
export const create2Address = (deployment: {
  readonly factory: string
  readonly salt: string
  readonly initCodeHash: string
}): Hex =>
  getContractAddress({
    opcode: "CREATE2",
    from: deployment.factory as Hex,
    salt: deployment.salt as Hex,
    bytecodeHash: deployment.initCodeHash as Hex
  })
