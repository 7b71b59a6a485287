/**
 * secp256k1 signatures as svc uses them: 65 bytes `r || s || v`, v = 27/28, low-s
 * (EIP-2), over a raw 32-byte digest (the caller adds any EIP-191 / EIP-712
 * framing). Parsing rejects high-s twins and malformed encodings on every input
 * path, because the recovery functions of common libraries accept them.
 *
 * Pure and synchronous (@noble/curves); no Node-only imports.
 *
 * @since 0.1.0
 */
import { secp256k1 } from "@noble/curves/secp256k1.js"
import * as Data from "effect/Data"
import * as Result from "effect/Result"
import { checksumAddress, fromHex, type Hex, keccakBytes, toHex } from "./Bytes.ts"
import { SIG65 } from "./Patterns.ts"

export type { Hex } from "./Bytes.ts"

/**
 * Order of the secp256k1 group.
 *
 * @category constants
 * @since 0.1.0
 */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/**
 * Largest `s` accepted (EIP-2): n / 2.
 *
 * @category constants
 * @since 0.1.0
 */
export const SECP256K1_HALF_N = SECP256K1_N >> 1n

/**
 * Why a signature was refused.
 *
 * - `MALFORMED`: not 65 bytes of hex;
 * - `BAD_V`: v is not one of 0, 1, 27, 28;
 * - `OUT_OF_RANGE`: r or s is 0 or not below n;
 * - `HIGH_S`: s > n/2 (the malleable twin of a valid signature);
 * - `UNRECOVERABLE`: no public key recovers from it.
 *
 * @category errors
 * @since 0.1.0
 */
export type SignatureProblem = "MALFORMED" | "BAD_V" | "OUT_OF_RANGE" | "HIGH_S" | "UNRECOVERABLE"

/**
 * A refused signature.
 *
 * @category errors
 * @since 0.1.0
 */
export class SignatureError extends Data.TaggedError("SignatureError")<{
  readonly problem: SignatureProblem
  readonly detail: string
}> {
  override get message(): string {
    return `signature refused (${this.problem}): ${this.detail}`
  }
}

/**
 * A signing input that cannot be used: a private key that is not 32 bytes of hex
 * in 1..n-1, or a digest that is not 32 bytes. A programming or configuration
 * error, never caused by a request.
 *
 * @category errors
 * @since 0.1.0
 */
export class SigningInputInvalid extends Data.TaggedError("SigningInputInvalid")<{ readonly message: string }> {}

/**
 * The parts of a valid, low-s signature.
 *
 * @category models
 * @since 0.1.0
 */
export interface ParsedSignature {
  readonly r: bigint
  readonly s: bigint
  readonly recovery: 0 | 1
}

const SIG_RE = SIG65

/**
 * Parses a 65-byte `r || s || v` signature, refusing high-s, a bad v and
 * out-of-range scalars.
 *
 * @category encoding
 * @since 0.1.0
 */
export const parse = (signature: string): Result.Result<ParsedSignature, SignatureError> => {
  if (typeof signature !== "string" || !SIG_RE.test(signature)) {
    return Result.fail(new SignatureError({ problem: "MALFORMED", detail: "expected 0x followed by 130 hex digits" }))
  }
  const r = BigInt(`0x${signature.slice(2, 66)}`)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130, 132), 16)
  if (v !== 0 && v !== 1 && v !== 27 && v !== 28) {
    return Result.fail(new SignatureError({ problem: "BAD_V", detail: `v = ${v}; expected 27 or 28 (0 or 1)` }))
  }
  if (r === 0n || r >= SECP256K1_N || s === 0n || s >= SECP256K1_N) {
    return Result.fail(new SignatureError({ problem: "OUT_OF_RANGE", detail: "r and s must be in 1..n-1" }))
  }
  if (s > SECP256K1_HALF_N) {
    return Result.fail(new SignatureError({ problem: "HIGH_S", detail: "s is above n/2 (EIP-2): use the low-s form" }))
  }
  return Result.succeed({ r, s, recovery: (v >= 27 ? v - 27 : v) as 0 | 1 })
}

const pad32 = (n: bigint): string => n.toString(16).padStart(64, "0")

/**
 * The 65-byte hex form `r || s || v` with v = 27/28.
 *
 * @category encoding
 * @since 0.1.0
 */
export const serialize = (sig: ParsedSignature): Hex =>
  `0x${pad32(sig.r)}${pad32(sig.s)}${sig.recovery === 0 ? "1b" : "1c"}`

/**
 * Address (EIP-55) of an uncompressed or compressed secp256k1 public key.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const publicKeyToAddress = (publicKey: Uint8Array): Hex => {
  const uncompressed = publicKey.length === 65
    ? publicKey
    : secp256k1.ProjectivePoint.fromHex(publicKey).toRawBytes(false)
  return checksumAddress(toHex(keccakBytes(uncompressed.subarray(1)).subarray(12)))
}

const toPrivateKeyBytes = (privateKey: string): Uint8Array => {
  if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) {
    throw new SigningInputInvalid({ message: "a private key is 0x followed by 64 hex digits" })
  }
  const k = BigInt(privateKey)
  if (k === 0n || k >= SECP256K1_N) {
    throw new SigningInputInvalid({ message: "a private key must be in 1..n-1 of secp256k1 (it is 0 or too large)" })
  }
  return fromHex(privateKey)
}

/**
 * The address (EIP-55) that a private key signs as.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const addressOf = (privateKey: Hex): Hex =>
  publicKeyToAddress(secp256k1.getPublicKey(toPrivateKeyBytes(privateKey), false))

/**
 * Signs a 32-byte digest with RFC 6979 deterministic k: low-s, v = 27/28, no
 * prefix added.
 *
 * @throws {SigningInputInvalid} for a malformed key or digest.
 * @category crypto
 * @since 0.1.0
 */
export const signDigest = (digest: Hex | Uint8Array, privateKey: Hex): Hex => {
  const hash = typeof digest === "string" ? fromHex(digest) : digest
  if (hash.length !== 32) throw new SigningInputInvalid({ message: "a digest is 32 bytes" })
  // RFC 6979 deterministic k, no extra entropy; lowS flips the recovery bit with s
  const sig = secp256k1.sign(hash, toPrivateKeyBytes(privateKey), { prehash: false, lowS: true })
  // toCompactRawBytes is r || s (64 bytes)
  return `0x${toHex(sig.toCompactRawBytes()).slice(2)}${sig.recovery === 0 ? "1b" : "1c"}`
}

/**
 * Recovers the address (EIP-55) that signed a raw 32-byte digest. High-s and
 * malformed signatures are refused.
 *
 * @category crypto
 * @since 0.1.0
 */
export const recoverDigestSigner = (digest: Hex | Uint8Array, signature: string): Result.Result<Hex, SignatureError> =>
  Result.flatMap(parse(signature), (sig) => {
    try {
      const hash = typeof digest === "string" ? fromHex(digest) : digest
      const point = new secp256k1.Signature(sig.r, sig.s).addRecoveryBit(sig.recovery).recoverPublicKey(hash)
      return Result.succeed(publicKeyToAddress(point.toRawBytes(false)))
    } catch (error) {
      return Result.fail(
        new SignatureError({ problem: "UNRECOVERABLE", detail: String((error as Error)?.message ?? error) })
      )
    }
  })

/**
 * The EIP-191 (`personal_sign`) digest of a UTF-8 message: keccak256 of
 * `"\x19Ethereum Signed Message:\n" + byteLength + message`.
 *
 * @category crypto
 * @since 0.1.0
 */
export const personalMessageDigest = (message: string | Uint8Array): Hex => {
  const bytes = typeof message === "string" ? new TextEncoder().encode(message) : message
  const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${bytes.length}`)
  const all = new Uint8Array(prefix.length + bytes.length)
  all.set(prefix, 0)
  all.set(bytes, prefix.length)
  return toHex(keccakBytes(all))
}

/**
 * Signs a message the way `personal_sign` does (EIP-191).
 *
 * @category crypto
 * @since 0.1.0
 */
export const signPersonalMessage = (message: string | Uint8Array, privateKey: Hex): Hex =>
  signDigest(personalMessageDigest(message), privateKey)

/**
 * Recovers the signer of an EIP-191 `personal_sign` signature over a message.
 *
 * @category crypto
 * @since 0.1.0
 */
export const recoverPersonalMessageSigner = (
  message: string | Uint8Array,
  signature: string
): Result.Result<Hex, SignatureError> => recoverDigestSigner(personalMessageDigest(message), signature)

/**
 * The high-s twin of a valid signature (same signer under lenient recovery).
 * Exposed for tests of malleability handling.
 *
 * @category testing
 * @since 0.1.0
 */
export const highSTwin = (signature: Hex): Hex => {
  const r = signature.slice(2, 66)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130, 132), 16)
  const flipped = v === 27 ? 28 : v === 28 ? 27 : v === 0 ? 1 : 0
  return `0x${r}${pad32(SECP256K1_N - s)}${flipped.toString(16).padStart(2, "0")}`
}
