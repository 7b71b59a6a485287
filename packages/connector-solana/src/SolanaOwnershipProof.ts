/**
 * Ownership proofs of Solana accounts: an ed25519 signature (RFC 8032, 64 bytes)
 * by the account's key over the exact UTF-8 bytes of the permit request message,
 * as Solana wallets' `signMessage(bytes)` makes it (no prefix, no hashing).
 *
 * The requestSignature carries the 64 signature bytes as base58 (what wallets
 * and `bs58.encode` give) or as `0x` + 128 hex digits. Verification is strict
 * (canonical encodings, no small-order keys: `zip215: false`), with
 * `@noble/curves`.
 *
 * @since 0.1.0
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { base58 } from "@scure/base"
import { Connector } from "@svc/core"
import { Effect, Result } from "effect"
import { decodeKey } from "./SolanaLocator.ts"

const HEX_PROOF = /^0x[0-9a-fA-F]{128}$/
const B58 = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/

const refuse = (code: string, message: string) => new Connector.ConnectorError({ code, message })

/**
 * The 64 signature bytes of a proof (base58, or 0x-prefixed hex).
 *
 * @category crypto
 * @since 0.1.0
 */
export const decodeProof = (proof: unknown): Result.Result<Uint8Array, Connector.ConnectorError> => {
  if (typeof proof !== "string") return Result.fail(refuse("PROOF_MALFORMED", "the proof is a string"))
  if (proof.startsWith("0x")) {
    if (!HEX_PROOF.test(proof)) {
      return Result.fail(refuse("PROOF_MALFORMED", "a hex proof is 0x followed by 128 hex digits"))
    }
    const bytes = new Uint8Array(64)
    for (let i = 0; i < 64; i++) bytes[i] = Number.parseInt(proof.slice(2 + 2 * i, 4 + 2 * i), 16)
    return Result.succeed(bytes)
  }
  if (!B58.test(proof)) return Result.fail(refuse("PROOF_MALFORMED", "a proof is base58 or 0x + 128 hex digits"))
  try {
    const bytes = base58.decode(proof)
    if (bytes.length !== 64 || base58.encode(bytes) !== proof) {
      return Result.fail(refuse("PROOF_MALFORMED", "a base58 proof encodes exactly 64 bytes"))
    }
    return Result.succeed(bytes)
  } catch {
    return Result.fail(refuse("PROOF_MALFORMED", "not base58"))
  }
}

/**
 * Verifies that `proof` is the signature by `publicKey` (base58) over the UTF-8
 * bytes of `message`.
 *
 * @category crypto
 * @since 0.1.0
 */
export const verify = (
  publicKey: string,
  message: string,
  proof: string
): Effect.Effect<void, Connector.ConnectorError> =>
  Effect.suspend(() => {
    const key = decodeKey(publicKey)
    if (key === undefined) return Effect.fail(refuse("LOCATOR_INVALID", "not a Solana public key"))
    const signature = decodeProof(proof)
    if (Result.isFailure(signature)) return Effect.fail(signature.failure)
    let valid = false
    try {
      valid = ed25519.verify(signature.success, new TextEncoder().encode(message), key, { zip215: false })
    } catch {
      valid = false
    }
    return valid
      ? Effect.void
      : Effect.fail(refuse("SIGNER_MISMATCH", "the signature is not by the payer's key over this exact message"))
  })

/**
 * Signs a message as a Solana wallet does (client side and tests): the base58
 * ed25519 signature of its UTF-8 bytes by a 32-byte secret key (seed).
 *
 * @category crypto
 * @since 0.1.0
 */
export const sign = (message: string, secretKey: Uint8Array): string =>
  base58.encode(ed25519.sign(new TextEncoder().encode(message), secretKey))

/**
 * The base58 public key of a 32-byte secret key (seed).
 *
 * @category crypto
 * @since 0.1.0
 */
export const publicKeyOf = (secretKey: Uint8Array): string => base58.encode(ed25519.getPublicKey(secretKey))
