/**
 * Arbitraries of the Solana connector tests.
 */
import { base58 } from "@scure/base"
import fc from "fast-check"
import * as SolanaLocator from "../src/SolanaLocator.ts"
import * as SolanaOwnershipProof from "../src/SolanaOwnershipProof.ts"

export const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 })

/** A base58 public key (any 32 bytes: on-curve or not). */
export const publicKey = bytes32.map(SolanaLocator.encodeKey)

/** An account input: the base58 string or the locator object. */
export const account = fc.oneof(publicKey, publicKey.map((native) => ({ native })))

/** An asset input: the base58 mint or {mint}. */
export const asset = fc.oneof(publicKey, publicKey.map((mint) => ({ mint })))

const toHex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString("hex")}`

/** A wallet: a random seed; proofs in base58 or hex. */
export const signer = fc.tuple(bytes32, fc.boolean()).map(([seed, hex]) => ({
  account: SolanaOwnershipProof.publicKeyOf(seed),
  sign: (message: string) => {
    const proof = SolanaOwnershipProof.sign(message, seed)
    return hex ? toHex(base58.decode(proof)) : proof
  }
}))
