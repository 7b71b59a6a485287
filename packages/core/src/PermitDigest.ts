/**
 * permitDigest and permitSignature (svc's decision; upstream does not publish one).
 *
 * permitDigest is the EIP-712 hash of the permit with primary type
 * `ExecutionPermit`, whose fields are the 31 tuple fields in ABI order with their
 * Solidity types, under the domain `{ name: "Svc V6 Router", version: "6",
 * chainId: sourceChainId, verifyingContract: sourceRouter }`. publicationLane,
 * serviceCategory, feeMode and serviceFeeBps are JSON-only and not covered.
 *
 * permitSignature is the 65-byte `r || s || v` (v = 27/28, low-s) signature of
 * permitDigest by the authority key, the same key that signs the feed (published
 * as feedSigner). A client verifies a permit by recovering that address.
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import { hashTypedData, keccak256, stringToBytes } from "viem"
import type { Hex } from "./internal/bytes.ts"
import { type AbiPermit, PERMIT_TUPLE_FIELDS, PermitAbiError } from "./PermitAbi.ts"
import * as Signature from "./Signature.ts"

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

/**
 * The EIP-712 type list.
 *
 * @category constants
 * @since 0.1.0
 */
export const TYPES = { ExecutionPermit: PERMIT_TUPLE_FIELDS } as const

/**
 * `ExecutionPermit(bytes32 releaseId,bytes32 fillId,...,uint128 amountOutRaw)`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ENCODE_TYPE = `ExecutionPermit(${PERMIT_TUPLE_FIELDS.map((f) => `${f.type} ${f.name}`).join(",")})`

/**
 * keccak256 of {@link ENCODE_TYPE}.
 *
 * @category constants
 * @since 0.1.0
 */
export const TYPEHASH: Hex = keccak256(stringToBytes(ENCODE_TYPE))

const message = (permit: AbiPermit): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const { name, type } of PERMIT_TUPLE_FIELDS) {
    const value = permit[name]
    if (value === undefined || value === null) throw new PermitAbiError({ reason: `${name} is missing` })
    // the same integer text as the ABI encoding: BigInt() alone would read "" as 0 and accept "0x10" or " 5 "
    if (type.startsWith("uint") && !/^(?:0|[1-9][0-9]*)$/.test(String(value))) {
      throw new PermitAbiError({ reason: `${name} is not an unsigned integer` })
    }
    // addresses and bytes32 in either case (the Address schema allows both); EIP-712 hashes their bytes,
    // and viem's strict address check would refuse an all-uppercase or non-checksummed mixed-case form
    out[name] = type.startsWith("uint") ? BigInt(String(value)) : String(value).toLowerCase()
  }
  return out
}

/**
 * The EIP-712 domain of a permit.
 *
 * @category hashing
 * @since 0.1.0
 */
export const domainOf = (permit: Pick<AbiPermit, "sourceChainId" | "sourceRouter">) => ({
  name: DOMAIN_NAME,
  version: DOMAIN_VERSION,
  chainId: BigInt(permit.sourceChainId),
  verifyingContract: String(permit.sourceRouter).toLowerCase() as Hex
})

/**
 * The permitDigest of a permit.
 *
 * @throws {PermitAbiError} when a field is missing or out of range.
 * @category hashing
 * @since 0.1.0
 */
export const digest = (permit: AbiPermit): Hex => {
  try {
    return hashTypedData({ domain: domainOf(permit), types: TYPES, primaryType: "ExecutionPermit", message: message(permit) as never })
  } catch (error) {
    if (error instanceof PermitAbiError) throw error
    throw new PermitAbiError({ reason: String((error as Error)?.message ?? error).split("\n")[0]! })
  }
}

/**
 * Signs a permit with the authority key: `{ permitDigest, permitSignature }`.
 *
 * @category signing
 * @since 0.1.0
 */
export const sign = (permit: AbiPermit, privateKey: Hex): { readonly permitDigest: Hex; readonly permitSignature: Hex } => {
  const permitDigest = digest(permit)
  return { permitDigest, permitSignature: Signature.signDigest(permitDigest, privateKey) }
}

/**
 * Recovers the address that signed a permit (high-s and malformed refused).
 *
 * @category verification
 * @since 0.1.0
 */
export const recoverSigner = (permit: AbiPermit, permitSignature: string): Result.Result<Hex, Signature.SignatureError | PermitAbiError> =>
  Result.try({ try: () => digest(permit), catch: (e) => e as PermitAbiError }).pipe(
    Result.flatMap((d) => Signature.recoverDigestSigner(d, permitSignature))
  )
