/**
 * Identifier derivations (svc's decisions; documented in docs/protocol.md).
 *
 * - vmType(name) = keccak256(utf8(name)): `EVM`, `SVM` (Solana), ...
 * - EVM networkId = keccak256(abi.encode(bytes32 vmType, uint256 chainId));
 * - Solana networkId = keccak256(abi.encode(bytes32 vmType, bytes32 keccak256(utf8(genesisHash))));
 * - accountId = keccak256(abi.encode(bytes32 networkId, bytes32 nativeAccountReference));
 * - assetId = keccak256(abi.encode(bytes32 networkId, bytes32 nativeAssetReference));
 * - routeId = keccak256(abi.encode(sourceNetworkId, sourceAssetId, destinationNetworkId,
 *   destinationAssetId, releaseId));
 * - quoteId = keccak256(abi.encode(bytes32 routeId, bytes32 pricingReferenceId,
 *   uint64 validAfter, uint64 validUntil, bytes32 executionGeneration, bytes32 policyHash)).
 *
 * An EVM reference (account or asset) is the address left-padded to 32 bytes; the
 * zero address is the native coin. These network ids are svc's own: they do not
 * equal the upstream deployment's published ids, whose derivation is unpublished.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import { fromHex, type Hex, keccak, keccakUtf8 } from "./Bytes.ts"
import { ADDRESS, BYTES32 } from "./Patterns.ts"

/**
 * An input that has no identifier (malformed hex, chain id out of range, ...).
 *
 * @category errors
 * @since 0.1.0
 */
export class IdInputInvalid
  extends Data.TaggedError("IdInputInvalid")<{ readonly field: string; readonly reason: string }>
{
  override get message(): string {
    return `${this.field}: ${this.reason}`
  }
}

const bytes32 = (field: string, value: string): Hex => {
  if (typeof value !== "string" || !BYTES32.test(value)) {
    throw new IdInputInvalid({ field, reason: "must be 0x followed by 64 hex digits" })
  }
  return value.toLowerCase() as Hex
}

const uint = (field: string, value: string | bigint | number, bits: bigint): bigint => {
  const text = String(value)
  if (!/^(?:0|[1-9][0-9]*)$/.test(text)) throw new IdInputInvalid({ field, reason: "must be an unsigned integer" })
  const n = BigInt(text)
  if (n >= 1n << bits) throw new IdInputInvalid({ field, reason: `must be below 2^${bits}` })
  return n
}

/**
 * keccak256 of `abi.encode` of static words: each value is a bytes32 (checked by
 * {@link bytes32}) or an unsigned integer already in the range of its type
 * (checked by {@link uint}), so each is one 32-byte word as it is.
 */
const hashWords = (values: ReadonlyArray<Hex | bigint>): Hex =>
  keccak(
    fromHex(
      values.map((value) => typeof value === "bigint" ? value.toString(16).padStart(64, "0") : value.slice(2)).join("")
    )
  )

/**
 * keccak256 of the UTF-8 name of a virtual machine family.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const vmType = (name: string): Hex => keccakUtf8(name)

/**
 * vmType of EVM networks: keccak256("EVM") = 0x9c73caa4...b2b5f3.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const EVM_VM_TYPE: Hex = vmType("EVM")

/**
 * vmType of Solana (SVM) networks: keccak256("SVM").
 *
 * @category identifiers
 * @since 0.1.0
 */
export const SOLANA_VM_TYPE: Hex = vmType("SVM")

/**
 * The base58 genesis hash of Solana mainnet-beta.
 *
 * @category constants
 * @since 0.1.0
 */
export const SOLANA_MAINNET_GENESIS = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"

/**
 * The networkId of an EVM chain.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const evmNetworkId = (chainId: string | bigint | number): Hex =>
  hashWords([EVM_VM_TYPE, uint("chainId", chainId, 256n)])

/**
 * The networkId of a Solana cluster, from its base58 genesis hash.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const solanaNetworkId = (genesisHash: string = SOLANA_MAINNET_GENESIS): Hex => {
  if (typeof genesisHash !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(genesisHash)) {
    throw new IdInputInvalid({ field: "genesisHash", reason: "must be a base58 genesis hash" })
  }
  return hashWords([SOLANA_VM_TYPE, keccakUtf8(genesisHash)])
}

/**
 * The networkId of any network family: keccak256(abi.encode(vmType, networkReference)).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const networkId = (vmTypeId: string, networkReference: string): Hex =>
  hashWords([bytes32("vmType", vmTypeId), bytes32("networkReference", networkReference)])

/**
 * An EVM address left-padded to 32 bytes (the native reference of EVM accounts and assets).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const evmReference = (address: string): Hex => {
  if (typeof address !== "string" || !ADDRESS.test(address)) {
    throw new IdInputInvalid({ field: "address", reason: "must be 0x followed by 40 hex digits" })
  }
  return `0x${"0".repeat(24)}${address.slice(2).toLowerCase()}`
}

/**
 * accountId = keccak256(abi.encode(networkId, nativeAccountReference)).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const accountId = (network: string, nativeReference: string): Hex =>
  hashWords([bytes32("networkId", network), bytes32("nativeReference", nativeReference)])

/**
 * accountId of an EVM address on an EVM network.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const evmAccountId = (network: string, address: string): Hex => accountId(network, evmReference(address))

/**
 * assetId = keccak256(abi.encode(networkId, nativeAssetReference)).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const assetId = (network: string, nativeReference: string): Hex =>
  hashWords([bytes32("networkId", network), bytes32("nativeReference", nativeReference)])

/**
 * assetId of an EVM token address (the zero address is the native coin).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const evmAssetId = (network: string, tokenAddress: string): Hex => assetId(network, evmReference(tokenAddress))

/**
 * The inputs of a routeId.
 *
 * @category models
 * @since 0.1.0
 */
export interface RouteIdInput {
  readonly sourceNetworkId: string
  readonly sourceAssetId: string
  readonly destinationNetworkId: string
  readonly destinationAssetId: string
  readonly releaseId: string
}

/**
 * routeId = keccak256(abi.encode(sourceNetworkId, sourceAssetId,
 * destinationNetworkId, destinationAssetId, releaseId)); stable across publications.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const routeId = (input: RouteIdInput): Hex =>
  hashWords([
    bytes32("sourceNetworkId", input.sourceNetworkId),
    bytes32("sourceAssetId", input.sourceAssetId),
    bytes32("destinationNetworkId", input.destinationNetworkId),
    bytes32("destinationAssetId", input.destinationAssetId),
    bytes32("releaseId", input.releaseId)
  ])

/**
 * The signed terms of a route that its quoteId covers.
 *
 * @category models
 * @since 0.1.0
 */
export interface QuoteIdInput {
  readonly routeId: string
  readonly pricingReferenceId: string
  readonly validAfter: string | number | bigint
  readonly validUntil: string | number | bigint
  readonly executionGeneration: string
  readonly policyHash: string
}

/**
 * quoteId = keccak256(abi.encode(bytes32 routeId, bytes32 pricingReferenceId,
 * uint64 validAfter, uint64 validUntil, bytes32 executionGeneration, bytes32 policyHash)).
 * It changes only when the route's terms change.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const quoteId = (input: QuoteIdInput): Hex =>
  hashWords([
    bytes32("routeId", input.routeId),
    bytes32("pricingReferenceId", input.pricingReferenceId),
    uint("validAfter", input.validAfter, 64n),
    uint("validUntil", input.validUntil, 64n),
    bytes32("executionGeneration", input.executionGeneration),
    bytes32("policyHash", input.policyHash)
  ])

/**
 * keccak256 of a UTF-8 label: releaseId = label("SVC_MAINNET_V6"), standard ids
 * (label("ERC-7683")), CREATE2 salts.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const label = (text: string): Hex => keccakUtf8(text)

/**
 * The demo releaseId: keccak256("SVC_MAINNET_V6").
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_RELEASE_ID: Hex = label("SVC_MAINNET_V6")
