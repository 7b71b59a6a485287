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
import * as Result from "effect/Result"
import { fromHex, type Hex, keccakBytes, keccakUtf8, toHex, utf8 } from "./Bytes.ts"
import { ADDRESS, BYTES32, UINT } from "./Patterns.ts"
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
export const TYPEHASH: Hex = keccakUtf8(ENCODE_TYPE)

const UINT_BITS: Record<string, bigint> = { uint32: 32n, uint64: 64n, uint128: 128n, uint256: 256n }
const DECIMAL = UINT
const HEX40 = ADDRESS
const HEX64 = BYTES32

/** Writes one 32-byte ABI word of a field at `offset`. */
const writeWord = (out: Uint8Array, offset: number, name: string, type: string, value: unknown): void => {
  if (value === undefined || value === null) throw new PermitAbiError({ reason: `${name} is missing` })
  const text = String(value)
  if (type.startsWith("uint")) {
    // the same integer text as the ABI encoding: no hex, no padding, no sign
    if (!DECIMAL.test(text)) throw new PermitAbiError({ reason: `${name} is not an unsigned integer` })
    let n = BigInt(text)
    if (n >= 1n << UINT_BITS[type]!) throw new PermitAbiError({ reason: `${name} does not fit ${type}` })
    for (let i = 31; i >= 0 && n > 0n; i--) {
      out[offset + i] = Number(n & 0xffn)
      n >>= 8n
    }
    return
  }
  // addresses and bytes32 in either case (the Address schema allows both): EIP-712 hashes their bytes
  if (type === "address" ? !HEX40.test(text) : !HEX64.test(text)) {
    throw new PermitAbiError({ reason: `${name} is not ${type === "address" ? "an address" : "bytes32"}` })
  }
  out.set(fromHex(text), offset + (type === "address" ? 12 : 0))
}

/**
 * The fixed hashes of the domain and the permit type, computed at their first use (importing the module does
 * no work, so a bundle that never computes a digest drops it all).
 */
let fixed:
  | {
    readonly domainTypehash: Uint8Array
    readonly name: Uint8Array
    readonly version: Uint8Array
    readonly typehash: Uint8Array
  }
  | undefined
const fixedHashes = () =>
  fixed ??= {
    domainTypehash: keccakBytes(
      utf8("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
    ),
    name: keccakBytes(utf8(DOMAIN_NAME)),
    version: keccakBytes(utf8(DOMAIN_VERSION)),
    typehash: fromHex(TYPEHASH)
  }

/** The EIP-712 domain separator of (chainId, verifyingContract): one 160-byte keccak, cheap enough to compute per permit. */
const domainSeparatorBytes = (chainId: unknown, router: unknown): Uint8Array => {
  const buffer = new Uint8Array(5 * 32)
  const hashes = fixedHashes()
  buffer.set(hashes.domainTypehash, 0)
  buffer.set(hashes.name, 32)
  buffer.set(hashes.version, 64)
  writeWord(buffer, 96, "sourceChainId", "uint256", chainId)
  writeWord(buffer, 128, "sourceRouter", "address", router)
  return keccakBytes(buffer)
}

/**
 * The EIP-712 domain separator of a permit's domain (sourceChainId, sourceRouter).
 *
 * @throws {PermitAbiError} when a field is missing or out of range.
 * @category crypto
 * @since 0.1.0
 */
export const domainSeparator = (permit: Pick<AbiPermit, "sourceChainId" | "sourceRouter">): Hex =>
  toHex(domainSeparatorBytes(permit.sourceChainId, permit.sourceRouter))

/**
 * The EIP-712 domain of a permit.
 *
 * @category crypto
 * @since 0.1.0
 */
export const domainOf = (permit: Pick<AbiPermit, "sourceChainId" | "sourceRouter">) => ({
  name: DOMAIN_NAME,
  version: DOMAIN_VERSION,
  chainId: BigInt(permit.sourceChainId),
  verifyingContract: String(permit.sourceRouter).toLowerCase() as Hex
})

/**
 * The EIP-712 struct hash of a permit: keccak256(TYPEHASH || the 31 fields as ABI words).
 *
 * @throws {PermitAbiError} when a field is missing or out of range.
 * @category crypto
 * @since 0.1.0
 */
export const structHash = (permit: AbiPermit): Hex => toHex(structHashBytes(permit))

const structHashBytes = (permit: AbiPermit): Uint8Array => {
  const buffer = new Uint8Array(32 * (1 + PERMIT_TUPLE_FIELDS.length))
  buffer.set(fixedHashes().typehash, 0)
  PERMIT_TUPLE_FIELDS.forEach(({ name, type }, i) => writeWord(buffer, 32 * (i + 1), name, type, permit[name]))
  return keccakBytes(buffer)
}

/**
 * The permitDigest of a permit: keccak256(0x1901 || domainSeparator || structHash),
 * computed directly (the same value as viem's `hashTypedData`, without its
 * generic type walk).
 *
 * @throws {PermitAbiError} when a field is missing or out of range.
 * @category crypto
 * @since 0.1.0
 */
export const digest = (permit: AbiPermit): Hex => {
  const struct = structHashBytes(permit)
  const buffer = new Uint8Array(2 + 64)
  buffer[0] = 0x19
  buffer[1] = 0x01
  buffer.set(domainSeparatorBytes(permit.sourceChainId, permit.sourceRouter), 2)
  buffer.set(struct, 34)
  return toHex(keccakBytes(buffer))
}

/**
 * Signs a permit with the authority key: `{ permitDigest, permitSignature }`.
 *
 * @category crypto
 * @since 0.1.0
 */
export const sign = (
  permit: AbiPermit,
  privateKey: Hex
): { readonly permitDigest: Hex; readonly permitSignature: Hex } => {
  const permitDigest = digest(permit)
  return { permitDigest, permitSignature: Signature.signDigest(permitDigest, privateKey) }
}

/**
 * Recovers the address that signed a permit (high-s and malformed refused).
 *
 * @category crypto
 * @since 0.1.0
 */
export const recoverSigner = (
  permit: AbiPermit,
  permitSignature: string
): Result.Result<Hex, Signature.SignatureError | PermitAbiError> =>
  Result.try({ try: () => digest(permit), catch: (e) => e as PermitAbiError }).pipe(
    Result.flatMap((d) => Signature.recoverDigestSigner(d, permitSignature))
  )
