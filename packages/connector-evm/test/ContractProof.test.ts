/**
 * `isContractProof` answers as viem's own checks do (a 65-byte signature is an
 * EOA's unless it is an ERC-6492 or ERC-8010 wrapper), for random proofs,
 * proofs that end with either magic suffix in either case, and real wrappers.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { type Hex, isErc6492Signature, isErc8010Signature, serializeErc6492Signature } from "viem"
import { isContractProof } from "../src/EvmOwnershipProof.ts"

const reference = (proof: Hex) => proof.length !== 132 || isErc6492Signature(proof) || isErc8010Signature(proof)

const MAGIC_6492 = "6492649264926492649264926492649264926492649264926492649264926492"
const MAGIC_8010 = "8010".repeat(16)

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

describe("isContractProof", () => {
  it("agrees with viem's checks on random and suffixed proofs", () =>
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 120 }),
        fc.constantFrom("", MAGIC_6492, MAGIC_8010, MAGIC_8010.toUpperCase()),
        fc.boolean(),
        (bytes, suffix, upper) => {
          const body = hexOf(bytes)
          const proof = `0x${upper ? body.toUpperCase() : body}${suffix}` as Hex
          assert.strictEqual(isContractProof(proof), reference(proof), proof)
        }
      ),
      { numRuns: 500 }
    ))

  it("65-byte proofs: EOA signatures are not contract proofs; a 65-byte string ending in a magic suffix is judged as viem judges it", () => {
    const eoa = `0x${"11".repeat(64)}1b` as Hex
    assert.isFalse(isContractProof(eoa))
    for (const magic of [MAGIC_6492, MAGIC_8010]) {
      const proof = `0x${"22".repeat(33)}${magic}` as Hex
      assert.strictEqual(proof.length, 132)
      assert.strictEqual(isContractProof(proof), reference(proof))
    }
    const wrapped = serializeErc6492Signature({
      address: "0x1111111111111111111111111111111111111111",
      data: "0xdeadbeef",
      signature: eoa
    })
    assert.isTrue(isContractProof(wrapped))
  })
})
