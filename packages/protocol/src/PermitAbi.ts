/**
 * The on-chain form of an execution permit: the 31-field `ExecutionPermit` tuple
 * (ABI order, all static words), the `fillDirect(ExecutionPermit, bytes)` calldata
 * (selector `0xeeff9007`) and the standard payload `abi.encode(ExecutionPermit,
 * bytes)` (the calldata without its selector), with decoding back.
 *
 * The ABI coding is written out for this one shape (31 static words, then one
 * `bytes`): it gives the bytes and the errors of viem's `encodeAbiParameters` and
 * `decodeAbiParameters` for these parameters, without loading viem.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import { checksumAddress, fromHex, type Hex, keccakUtf8, toHex } from "./Bytes.ts"
import type { ExecutionPermit } from "./schema/Permit.ts"

/**
 * The tuple fields in ABI order with their Solidity types.
 *
 * @category constants
 * @since 0.1.0
 */
export const PERMIT_TUPLE_FIELDS = [
  { name: "releaseId", type: "bytes32" },
  { name: "fillId", type: "bytes32" },
  { name: "routeId", type: "bytes32" },
  { name: "quoteId", type: "bytes32" },
  { name: "policyHash", type: "bytes32" },
  { name: "permitNonce", type: "bytes32" },
  { name: "sourceNetworkId", type: "bytes32" },
  { name: "sourceAssetId", type: "bytes32" },
  { name: "destinationNetworkId", type: "bytes32" },
  { name: "destinationAssetId", type: "bytes32" },
  { name: "sourceVaultAccountId", type: "bytes32" },
  { name: "destinationVaultAccountId", type: "bytes32" },
  { name: "payerAccountId", type: "bytes32" },
  { name: "recipientAccountId", type: "bytes32" },
  { name: "dataVersion", type: "uint64" },
  { name: "executionGeneration", type: "bytes32" },
  { name: "validAfter", type: "uint64" },
  { name: "validUntil", type: "uint64" },
  { name: "sourceFinalityBlocks", type: "uint32" },
  { name: "settlementWindowSeconds", type: "uint32" },
  { name: "sourceChainId", type: "uint256" },
  { name: "destinationChainId", type: "uint256" },
  { name: "sourceAsset", type: "address" },
  { name: "destinationAsset", type: "address" },
  { name: "sourceVault", type: "address" },
  { name: "destinationVault", type: "address" },
  { name: "sourceRouter", type: "address" },
  { name: "payer", type: "address" },
  { name: "recipient", type: "address" },
  { name: "amountInRaw", type: "uint128" },
  { name: "amountOutRaw", type: "uint128" }
] as const

/**
 * The names of the tuple fields (the permit fields covered on chain).
 *
 * @category models
 * @since 0.1.0
 */
export type PermitTupleField = (typeof PERMIT_TUPLE_FIELDS)[number]["name"]

/**
 * The ABI part of a permit (the JSON-only publicationLane, serviceCategory,
 * feeMode and serviceFeeBps are not on chain).
 *
 * @category models
 * @since 0.1.0
 */
export type AbiPermit = Pick<ExecutionPermit, PermitTupleField>

/** The selector of a function given by its canonical signature: the first 4 bytes of keccak256(signature). */
const functionSelector = (signature: string): Hex => keccakUtf8(signature).slice(0, 10) as Hex

/**
 * The canonical Solidity signature of `fillDirect`.
 *
 * @category constants
 * @since 0.1.0
 */
export const FILL_DIRECT_SIGNATURE = `fillDirect((${PERMIT_TUPLE_FIELDS.map((f) => f.type).join(",")}),bytes)`

/**
 * The selector of `fillDirect` (computed: `0xeeff9007`).
 *
 * @category constants
 * @since 0.1.0
 */
export const FILL_DIRECT_SELECTOR: Hex = functionSelector(FILL_DIRECT_SIGNATURE)

/**
 * The selector of `previewFillDirect` (computed: `0xff5da6a9`).
 *
 * @category constants
 * @since 0.1.0
 */
export const PREVIEW_FILL_DIRECT_SELECTOR: Hex = functionSelector(
  `previewFillDirect((${PERMIT_TUPLE_FIELDS.map((f) => f.type).join(",")}),bytes)`
)

/**
 * A permit that has no ABI encoding (a value out of its Solidity range, a
 * malformed field) or bytes that do not decode as a permit payload.
 *
 * @category errors
 * @since 0.1.0
 */
export class PermitAbiError extends Data.TaggedError("PermitAbiError")<{ readonly reason: string }> {
  override get message(): string {
    return `permit ABI: ${this.reason}`
  }
}

const UINT_BITS: Record<string, bigint> = { uint32: 32n, uint64: 64n, uint128: 128n, uint256: 256n }

/**
 * The 31 words of the tuple, as 64 lowercase hex digits each: uints in their
 * range, addresses left-padded, bytes32 as they are.
 */
const tupleWords = (permit: AbiPermit): Array<string> =>
  PERMIT_TUPLE_FIELDS.map(({ name, type }) => {
    const value = permit[name]
    if (value === undefined || value === null) throw new PermitAbiError({ reason: `${name} is missing` })
    if (type.startsWith("uint")) {
      const text = String(value)
      if (!/^(?:0|[1-9][0-9]*)$/.test(text)) throw new PermitAbiError({ reason: `${name} is not an unsigned integer` })
      const n = BigInt(text)
      if (n >= 1n << UINT_BITS[type]!) throw new PermitAbiError({ reason: `${name} does not fit ${type}` })
      return n.toString(16).padStart(64, "0")
    }
    if (type === "address") {
      if (typeof value !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(value)) {
        throw new PermitAbiError({ reason: `${name} is not an address` })
      }
      return value.slice(2).toLowerCase().padStart(64, "0")
    }
    if (typeof value !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
      throw new PermitAbiError({ reason: `${name} is not bytes32` })
    }
    return value.slice(2).toLowerCase()
  })

const word = (n: number): string => n.toString(16).padStart(64, "0")

const guard = <A>(f: () => A): A => {
  try {
    return f()
  } catch (error) {
    if (error instanceof PermitAbiError) throw error
    throw new PermitAbiError({ reason: String((error as Error)?.message ?? error).split("\n")[0]! })
  }
}

const checkSignatureBytes = (signature: string): Hex => {
  if (typeof signature !== "string" || !/^0x(?:[0-9a-fA-F]{2})*$/.test(signature)) {
    throw new PermitAbiError({ reason: "signature is not hex bytes" })
  }
  return signature as Hex
}

/**
 * `abi.encode(ExecutionPermit permit, bytes permitSignature)`: the standard payload
 * of media type `application/vnd.svc.execution-permit-v6+abi`.
 *
 * @throws {PermitAbiError}
 * @category encoding
 * @since 0.1.0
 */
export const encodePayload = (permit: AbiPermit, permitSignature: string): Hex =>
  guard((): Hex => {
    const words = tupleWords(permit)
    // the signature bytes as given (their hex digits keep their case), right-padded to whole words
    const body = checkSignatureBytes(permitSignature).slice(2)
    const padded = body.padEnd(Math.ceil(body.length / 64) * 64, "0")
    // the head: 31 tuple words, then the offset of the bytes (32 words in); the tail: length, bytes
    return `0x${words.join("")}${word(32 * (PERMIT_TUPLE_FIELDS.length + 1))}${word(body.length / 2)}${padded}`
  })

/**
 * The `fillDirect(permit, signature)` calldata: selector + standard payload.
 *
 * @throws {PermitAbiError}
 * @category encoding
 * @since 0.1.0
 */
export const encodeFillDirect = (permit: AbiPermit, permitSignature: string): Hex =>
  `${FILL_DIRECT_SELECTOR}${encodePayload(permit, permitSignature).slice(2)}`

/**
 * The ABI encoding of the permit tuple alone (31 words).
 *
 * @throws {PermitAbiError}
 * @category encoding
 * @since 0.1.0
 */
export const encodeTuple = (permit: AbiPermit): Hex => guard((): Hex => `0x${tupleWords(permit).join("")}`)

/** The first line of viem's cursor error for a read or a seek that ends at `position`. */
const outOfBounds = (position: number, length: number) =>
  new Error(`Position \`${position}\` is out of bounds (\`0 < position < ${length}\`).`)

/** A length or offset word as a number, refused (as viem refuses it) beyond 2^53 - 1. */
const safeNumber = (bytes: Uint8Array): number => {
  const value = BigInt(toHex(bytes))
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error(
      `Number "${value}n" is not in safe integer range (${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER})`
    )
  }
  return Number(value)
}

/**
 * `abi.decode(payload, (ExecutionPermit, bytes))` as viem's `decodeAbiParameters`
 * does it: the tuple's 31 words in order, then the offset word of the bytes (read
 * from the start of the payload), their length word and their bytes; any read past
 * the end fails with viem's message. Addresses come back EIP-55, uint32 as a
 * number, the other uints as base-10 strings, bytes in lowercase hex.
 */
const decodeWords = (hex: Hex): { readonly permit: AbiPermit; readonly signature: Hex } => {
  const bytes = fromHex(hex)
  const size = bytes.length
  if (size === 0) throw new Error("Cannot decode zero data (\"0x\") with ABI parameters.")
  if (size < 32) throw new Error(`Data size of ${size} bytes is too small for given parameters.`)
  const read = (position: number, length: number): Uint8Array => {
    if (position + length - 1 > size - 1) throw outOfBounds(position + length - 1, size)
    return bytes.subarray(position, position + length)
  }
  const seek = (position: number): number => {
    if (position < 0 || position > size - 1) throw outOfBounds(position, size)
    return position
  }
  const permit: Record<string, unknown> = {}
  PERMIT_TUPLE_FIELDS.forEach(({ name, type }, i) => {
    const value = read(32 * i, 32)
    if (type === "address") permit[name] = checksumAddress(toHex(value.subarray(12)))
    else if (type === "uint32") permit[name] = safeNumber(value)
    else if (type.startsWith("uint")) permit[name] = BigInt(toHex(value)).toString()
    else permit[name] = toHex(value)
  })
  const head = 32 * PERMIT_TUPLE_FIELDS.length
  if (head < size) seek(head)
  const start = seek(safeNumber(read(head, 32)))
  const length = safeNumber(read(start, 32))
  if (length === 0) {
    seek(32)
    return { permit: permit as AbiPermit, signature: "0x" }
  }
  const signature = toHex(read(start + 32, length))
  seek(32)
  return { permit: permit as AbiPermit, signature }
}

/**
 * The decoder of viem reads a whole word for an address or a uintN < 256 without
 * checking the bits above the type (a uint64 word of 2^64 decodes to 2^64, an
 * address word with dirty high bytes to its low 20 bytes); Solidity's decoder, and
 * so the Router, reverts on such words. The permit tuple is static, so its 31
 * words are the first 31 words of the payload: check them here.
 */
const checkCleanWords = (payload: string): void => {
  PERMIT_TUPLE_FIELDS.forEach(({ name, type }, i) => {
    const word = payload.slice(2 + 64 * i, 2 + 64 * (i + 1))
    const bits = type === "address" ? 160 : type.startsWith("uint") ? Number(UINT_BITS[type]!) : 256
    if (bits < 256 && !/^0*$/.test(word.slice(0, (256 - bits) / 4))) {
      throw new PermitAbiError({ reason: `${name} does not fit ${type}` })
    }
  })
}

/**
 * Decodes a standard payload back into the permit (ABI fields, addresses EIP-55)
 * and the signature. Words with bits above their type (out-of-range uints, dirty
 * address words) are refused, as the Router's decoder refuses them.
 *
 * @throws {PermitAbiError}
 * @category encoding
 * @since 0.1.0
 */
export const decodePayload = (payload: string): { readonly permit: AbiPermit; readonly signature: Hex } => {
  try {
    const hex = checkSignatureBytes(payload)
    checkCleanWords(hex)
    return decodeWords(hex)
  } catch (error) {
    if (error instanceof PermitAbiError) throw error
    throw new PermitAbiError({ reason: `not a permit payload: ${(error as Error).message.split("\n")[0]}` })
  }
}

/**
 * Decodes `fillDirect` calldata back into the permit and the signature.
 *
 * @throws {PermitAbiError}
 * @category encoding
 * @since 0.1.0
 */
export const decodeFillDirect = (calldata: string): { readonly permit: AbiPermit; readonly signature: Hex } => {
  if (typeof calldata !== "string" || calldata.slice(0, 10).toLowerCase() !== FILL_DIRECT_SELECTOR) {
    throw new PermitAbiError({ reason: `calldata does not start with the fillDirect selector ${FILL_DIRECT_SELECTOR}` })
  }
  return decodePayload(`0x${calldata.slice(10)}`)
}
