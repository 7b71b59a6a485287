/**
 * The ExecutionPermit as the reference router sees it: its viem type (inferred
 * from the router's ABI), the EIP-712 typed data whose hash the authority signs,
 * the standard payload and `fillDirect` calldata encodings, and the labels that
 * `previewFillDirect` returns.
 *
 * These helpers mirror the router's ABI; the byte formats are specified in
 * `docs/protocol.md` ("ExecutionPermit encoding", "permitDigest and permitSignature").
 *
 * @since 0.1.0
 */
import {
  type ContractFunctionArgs,
  encodeAbiParameters,
  encodeFunctionData,
  getAbiItem,
  type Hex,
  hexToString,
  keccak256,
  stringToBytes,
  stringToHex,
  type TypedDataDefinition
} from "viem"
import { SvcMainnetRouterV6 } from "./artifacts.ts"

/**
 * The 31-field permit tuple with viem's types (bigint for uint64/uint128/uint256,
 * number for uint32).
 *
 * @category models
 * @since 0.1.0
 */
export type ExecutionPermit = ContractFunctionArgs<typeof SvcMainnetRouterV6.abi, "payable", "fillDirect">[0]

/**
 * keccak256("SVC_MAINNET_V6"): the releaseId every V6 contract reports.
 *
 * @category constants
 * @since 0.1.0
 */
export const RELEASE_ID: Hex = keccak256(stringToBytes("SVC_MAINNET_V6"))

/**
 * The EIP-712 domain name.
 *
 * @category constants
 * @since 0.1.0
 */
export const DOMAIN_NAME = "Svc V6 Router" as const

/**
 * The EIP-712 domain version.
 *
 * @category constants
 * @since 0.1.0
 */
export const DOMAIN_VERSION = "6" as const

const fillDirectItem = getAbiItem({ abi: SvcMainnetRouterV6.abi, name: "fillDirect" })
const permitInput = fillDirectItem.inputs[0]

/**
 * The EIP-712 types of the permit: `ExecutionPermit` with the 31 tuple fields in
 * ABI order, taken from the router's ABI.
 *
 * @category constants
 * @since 0.1.0
 */
export const PERMIT_TYPES = {
  ExecutionPermit: permitInput.components.map(({ name, type }) => ({ name, type }))
} as const

/**
 * The EIP-712 domain of a router: chainId and verifyingContract are the permit's
 * sourceChainId and sourceRouter.
 *
 * @category crypto
 * @since 0.1.0
 */
export const permitDomain = (chainId: bigint | number, router: Hex) => ({
  name: DOMAIN_NAME,
  version: DOMAIN_VERSION,
  chainId: BigInt(chainId),
  verifyingContract: router
})

/**
 * The typed data of a permit, for viem's `hashTypedData` (the permitDigest) or
 * `signTypedData`.
 *
 * @category crypto
 * @since 0.1.0
 */
export const permitTypedData = (permit: ExecutionPermit): TypedDataDefinition<typeof PERMIT_TYPES, "ExecutionPermit"> =>
  ({
    domain: permitDomain(permit.sourceChainId, permit.sourceRouter),
    types: PERMIT_TYPES,
    primaryType: "ExecutionPermit",
    message: permit
  }) as TypedDataDefinition<typeof PERMIT_TYPES, "ExecutionPermit">

/**
 * The standard payload `abi.encode(ExecutionPermit permit, bytes permitSignature)`.
 *
 * @category encoding
 * @since 0.1.0
 */
export const encodePayload = (permit: ExecutionPermit, signature: Hex): Hex =>
  encodeAbiParameters(fillDirectItem.inputs, [permit, signature])

/**
 * The `fillDirect(permit, signature)` calldata: `0xeeff9007` followed by the payload.
 *
 * @category encoding
 * @since 0.1.0
 */
export const encodeFillDirect = (permit: ExecutionPermit, signature: Hex): Hex =>
  encodeFunctionData({ abi: SvcMainnetRouterV6.abi, functionName: "fillDirect", args: [permit, signature] })

/**
 * The names `previewFillDirect` can report, in the order the router checks them.
 * Each is also the name of the custom error `fillDirect` reverts with.
 *
 * @category onchain
 * @since 0.1.0
 */
export const PREVIEW_REASONS = [
  "SourceIntakeDisabled",
  "ReleaseMismatch",
  "WrongSourceChain",
  "WrongSourceRouter",
  "PayerMismatch",
  "PermitNotYetValid",
  "PermitExpired",
  "FillAlreadyUsed",
  "InvalidSignatureLength",
  "InvalidSignatureS",
  "InvalidSignatureV",
  "InvalidPermitSignature",
  "ZeroAmount"
] as const

/**
 * A name of {@link PREVIEW_REASONS}.
 *
 * @category onchain
 * @since 0.1.0
 */
export type PreviewReason = (typeof PREVIEW_REASONS)[number]

/**
 * The bytes32 `reason` of a preview failure: the name as left-aligned ASCII, zero-padded.
 *
 * @category onchain
 * @since 0.1.0
 */
export const previewReasonCode = (reason: PreviewReason): Hex => stringToHex(reason, { size: 32 })

/**
 * The name behind a bytes32 `reason` of `previewFillDirect` (`""` for the zero
 * word of a valid permit).
 *
 * @category onchain
 * @since 0.1.0
 */
export const decodePreviewReason = (reason: Hex): string => hexToString(reason, { size: 32 }).replace(/\0+$/, "")
