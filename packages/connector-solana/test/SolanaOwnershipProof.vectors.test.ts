import { assert, describe, it } from "@effect/vitest"
import { base58 } from "@scure/base"
import { Connector } from "@svc/core"
import { Ids, PermitMessage } from "@svc/protocol"
import { Effect, Exit, Result } from "effect"
import { hexToBytes, keccak256, toBytes, toHex } from "viem"
import * as SolanaConnector from "../src/SolanaConnector.ts"
import { GENESIS } from "../src/SolanaNetworks.ts"
import * as SolanaOwnershipProof from "../src/SolanaOwnershipProof.ts"

const verdict = (publicKey: string, message: string, proof: string) =>
  Effect.runSyncExit(SolanaOwnershipProof.verify(publicKey, message, proof))

const code = (exit: Exit.Exit<void, Connector.ConnectorError>) =>
  Exit.isSuccess(exit) ? "OK" : exit.cause.reasons.map((r) => (r._tag === "Fail" ? r.error.code : r._tag)).join(",")

// RFC 8032 section 7.1, tests 1 and 2 (the messages "" and "r" = 0x72)
const RFC8032 = [
  {
    secret: "0x9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    publicKey: "0xd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    message: "",
    signature:
      "0xe5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
  },
  {
    secret: "0x4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    publicKey: "0x3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    message: "r",
    signature:
      "0x92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
  }
] as const

/** The ed25519 group order L. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n

const PAYER_SEED = hexToBytes(keccak256(toBytes("svc solana test payer")))

describe("Solana ownership proofs", () => {
  it("verifies the RFC 8032 vectors, in base58 and in hex", () => {
    for (const v of RFC8032) {
      const key = base58.encode(hexToBytes(v.publicKey))
      assert.strictEqual(SolanaOwnershipProof.publicKeyOf(hexToBytes(v.secret)), key)
      assert.strictEqual(
        SolanaOwnershipProof.sign(v.message, hexToBytes(v.secret)),
        base58.encode(hexToBytes(v.signature))
      )
      assert.strictEqual(code(verdict(key, v.message, v.signature)), "OK")
      assert.strictEqual(code(verdict(key, v.message, base58.encode(hexToBytes(v.signature)))), "OK")
      assert.strictEqual(
        code(verdict(key, v.message, v.signature.toUpperCase().replace("0X", "0x"))),
        "OK",
        "hex digits in either case"
      )
    }
  })

  it("signs the exact permit message bytes: valid, tampered, wrong key, malformed", () => {
    const payer = SolanaOwnershipProof.publicKeyOf(PAYER_SEED)
    const network = Ids.solanaNetworkId(GENESIS["mainnet-beta"])
    const message = PermitMessage.build({
      quoteId: keccak256(toBytes("svc solana quote")),
      requestedAmountInRaw: "5000000",
      payerAccountId: Ids.accountId(network, toHex(base58.decode(payer))),
      payerLocator: { native: payer },
      recipient: "0x2222222222222222222222222222222222222222",
      idempotencyKey: "solana-payer-0001"
    })
    assert.include(message, `payerLocator={"native":"${payer}"}`)
    const proof = SolanaOwnershipProof.sign(message, PAYER_SEED)
    assert.strictEqual(code(verdict(payer, message, proof)), "OK")
    assert.strictEqual(code(verdict(payer, `${message}\n`, proof)), "SIGNER_MISMATCH")
    assert.strictEqual(code(verdict(payer, message.replace("5000000", "5000001"), proof)), "SIGNER_MISMATCH")
    const other = SolanaOwnershipProof.publicKeyOf(hexToBytes(keccak256(toBytes("svc solana other"))))
    assert.strictEqual(code(verdict(other, message, proof)), "SIGNER_MISMATCH")
    for (
      const bad of [
        "",
        proof.slice(1),
        `${proof}1`,
        "0x" + "00".repeat(63),
        `0x${"zz".repeat(64)}`,
        proof.replace(/./, "0")
      ]
    ) {
      assert.notStrictEqual(code(verdict(payer, message, bad)), "OK", bad)
    }
    assert.strictEqual(code(verdict(payer, message, "0x1234")), "PROOF_MALFORMED")
  })

  it("refuses a malleable signature (S + L) that lax verifiers accept", () => {
    const v = RFC8032[1]
    const sig = hexToBytes(v.signature)
    let s = 0n
    for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i]!)
    const malleable = new Uint8Array(sig)
    let t = s + L
    for (let i = 0; i < 32; i++) {
      malleable[32 + i] = Number(t & 0xffn)
      t >>= 8n
    }
    assert.strictEqual(
      code(verdict(base58.encode(hexToBytes(v.publicKey)), v.message, toHex(malleable))),
      "SIGNER_MISMATCH"
    )
  })

  it.effect("through the connector: the claim carries the Solana network and the canonical locator", () =>
    Effect.gen(function*() {
      const connector = SolanaConnector.make()
      const payer = SolanaOwnershipProof.publicKeyOf(PAYER_SEED)
      const network = { networkId: Ids.solanaNetworkId(), native: GENESIS["mainnet-beta"] }
      const proof = SolanaOwnershipProof.sign("m", PAYER_SEED)
      yield* connector.verifyOwnership({ network, locator: { native: payer }, message: "m", proof })
      const evm = yield* Effect.exit(connector.verifyOwnership({
        network: { networkId: Ids.evmNetworkId(8453), native: "8453" },
        locator: { native: payer },
        message: "m",
        proof
      }))
      assert.strictEqual(code(evm as Exit.Exit<void, Connector.ConnectorError>), "NETWORK_MISMATCH")
      assert.isTrue(Result.isFailure(SolanaOwnershipProof.decodeProof(42)))
    }))
})
