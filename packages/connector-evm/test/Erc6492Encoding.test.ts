/**
 * An ERC-6492 wrapped signature must be strictly encoded
 * (`abi.encode(factory, factoryCalldata, signature)` and the magic suffix):
 * a wrapper with dirty padding, trailing bytes, a moved offset or a wrong
 * length is refused as `PROOF_MALFORMED` before any RPC call, while the
 * strict encoding of the same parts goes on to verification (here, without
 * an RPC URL, `RPC_NOT_CONFIGURED`). A validator contract decodes loosely
 * (Solidity's abi.decode ignores trailing bytes), so this check is what
 * keeps one signature from having many encodings.
 */
import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@svc/protocol"
import { Cause, Effect, Exit } from "effect"
import fc from "fast-check"
import { type Hex, serializeErc6492Signature } from "viem"
import * as EvmConnector from "../src/EvmConnector.ts"
import { isCanonical6492 } from "../src/EvmOwnershipProof.ts"

const MAGIC = "6492".repeat(16)
const WALLET = "0x3333333333333333333333333333333333333333"
const MESSAGE = "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1\nquoteId=0x01\nidempotencyKey=erc6492-encoding"

const wrapped = serializeErc6492Signature({
  address: "0x1111111111111111111111111111111111111111",
  data: "0xdeadbeefcafe",
  signature: `0x${"11".repeat(64)}1b`
})

/** The wrapper's ABI body (without 0x and the magic suffix), as 32-byte words. */
const words = (proof: Hex) => {
  const body = proof.slice(2, -MAGIC.length)
  return Array.from({ length: body.length / 64 }, (_, i) => body.slice(i * 64, i * 64 + 64))
}
const join = (parts: ReadonlyArray<string>) => `0x${parts.join("")}${MAGIC}` as Hex

/** The code of a refused proof, or OK, with the offline EVM connector (no RPC URL). */
const codeOf = (proof: string) =>
  Effect.runPromise(
    Effect.map(
      Effect.exit(
        EvmConnector.make().verifyOwnership({
          network: { networkId: Ids.evmNetworkId("8453"), native: "8453" },
          locator: { native: WALLET },
          message: MESSAGE,
          proof
        })
      ),
      (exit) => {
        if (Exit.isSuccess(exit)) return "OK"
        const error = Cause.findErrorOption(exit.cause)
        return error._tag === "Some" ? `${error.value._tag}:${error.value.code}` : Cause.pretty(exit.cause)
      }
    )
  )

describe("ERC-6492 wrappers", () => {
  it("the strict encoding goes on to verification", async () => {
    assert.isTrue(isCanonical6492(wrapped))
    assert.strictEqual(await codeOf(wrapped), "ConnectorError:RPC_NOT_CONFIGURED")
  })

  it("badly encoded wrappers are refused as PROOF_MALFORMED before any RPC call", async () => {
    const w = words(wrapped)
    const malformed: Record<string, Hex> = {
      // the factory address word with bits above its 20 bytes
      "dirty address padding": join([`ff${w[0]!.slice(2)}`, ...w.slice(1)]),
      // a word of zeros after the encoded tuple, before the suffix
      "trailing bytes": join([...w, "00".repeat(32)]),
      // the calldata's offset pointing one word further (the parts still decode, shifted)
      "moved offset": join([
        w[0]!,
        (BigInt(`0x${w[1]!}`) + 32n).toString(16).padStart(64, "0"),
        ...w.slice(2),
        "00".repeat(32)
      ]),
      // the calldata's length one byte shorter: its last byte becomes dirty padding
      "short length": (() => {
        const offset = Number(BigInt(`0x${w[1]!}`)) / 32
        const length = BigInt(`0x${w[offset]!}`) - 1n
        return join([...w.slice(0, offset), length.toString(16).padStart(64, "0"), ...w.slice(offset + 1)])
      })(),
      // the magic suffix on a body that is not an ABI tuple at all
      "not a tuple": join(["12".repeat(40)])
    }
    for (const [what, proof] of Object.entries(malformed)) {
      assert.isFalse(isCanonical6492(proof), what)
      assert.strictEqual(await codeOf(proof), "ConnectorError:PROOF_MALFORMED", what)
    }
  })

  it("any byte flipped in the ABI body is refused or still the strict encoding of other parts", async () => {
    const body = wrapped.slice(2, -MAGIC.length)
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: body.length / 2 - 1 }),
        fc.integer({ min: 1, max: 255 }),
        async (at, xor) => {
          const byte = (Number.parseInt(body.slice(at * 2, at * 2 + 2), 16) ^ xor).toString(16).padStart(2, "0")
          const proof = `0x${body.slice(0, at * 2)}${byte}${body.slice(at * 2 + 2)}${MAGIC}` as Hex
          const code = await codeOf(proof)
          // either strictly encoded (its parts changed: verification decides) or refused for its encoding
          assert.strictEqual(
            code,
            isCanonical6492(proof) ? "ConnectorError:RPC_NOT_CONFIGURED" : "ConnectorError:PROOF_MALFORMED",
            `byte ${at}`
          )
        }
      ),
      { numRuns: 200 }
    )
  })
})
