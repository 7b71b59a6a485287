/**
 * The engine's random bytes come from the Entropy service: the platform's
 * secure generator by default, a seeded stream when a layer provides one (the
 * simulation replays its fillIds and permit nonces exactly).
 */
import { assert, describe, it } from "@effect/vitest"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import * as Signature from "@svc/protocol/Signature"
import { Effect, Layer } from "effect"
import * as Entropy from "../src/Entropy.ts"
import { Permits } from "../src/Permits.ts"
import { Publisher } from "../src/Publisher.ts"
import { makeEngine, PAYER_KEY } from "./support/engine.ts"

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

/** The fillId and permitNonce of one permit issued by a fresh engine. */
const issueOne = (entropy: Layer.Layer<never> | undefined) =>
  Effect.gen(function*() {
    const publication = yield* (yield* Publisher).current
    const route = publication.routes.find((r) => r.open)!
    const request = {
      quoteId: route.quoteId,
      requestedAmountInRaw: route.minimumFillInRaw,
      payer: Signature.addressOf(PAYER_KEY),
      recipient: "0x2222222222222222222222222222222222222222",
      idempotencyKey: "entropy-key-1"
    }
    const message = PermitMessage.message(PermitMessage.normalize(request, { strict: false }))
    const issued = yield* (yield* Permits).create({
      ...request,
      requestSignature: PermitMessage.sign(message, PAYER_KEY)
    })
    return [issued.envelope.permit.fillId, issued.envelope.permit.permitNonce] as const
  }).pipe(Effect.provide(entropy === undefined ? makeEngine().layer : makeEngine().layer.pipe(Layer.provide(entropy))))

describe("Entropy", () => {
  it("a seeded stream repeats for its seed and differs for another; reads of any length continue the stream", () => {
    const a = Entropy.seeded(7)
    const b = Entropy.seeded(7)
    assert.strictEqual(hex(a.bytes(100)), hex(b.bytes(100)))
    // 100 bytes then 28 equal 128 bytes at once
    const c = Entropy.seeded(7)
    assert.strictEqual(hex(new Uint8Array([...Entropy.seeded(7).bytes(100), ...a.bytes(28)])), hex(c.bytes(128)))
    assert.notStrictEqual(hex(Entropy.seeded(8).bytes(32)), hex(Entropy.seeded(7).bytes(32)))
  })

  it("the secure source gives fresh bytes", () => {
    const seen = new Set<string>()
    for (let i = 0; i < 100; i++) seen.add(hex(Entropy.secure.bytes(32)))
    assert.strictEqual(seen.size, 100)
    assert.strictEqual(Entropy.secure.bytes(70_000).length, 70_000)
  })

  it.effect("permits take their fillId and permitNonce from the Entropy service: seeded, the same twice; by default, never", () =>
    Effect.gen(function*() {
      const seeded1 = yield* issueOne(Entropy.layerSeeded("sim-1"))
      const seeded2 = yield* issueOne(Entropy.layerSeeded("sim-1"))
      assert.deepStrictEqual(seeded1, seeded2)
      const expected = Entropy.seeded("sim-1")
      assert.deepStrictEqual(seeded1, [`0x${hex(expected.bytes(32))}`, `0x${hex(expected.bytes(32))}`])
      const secure1 = yield* issueOne(undefined)
      const secure2 = yield* issueOne(undefined)
      assert.notStrictEqual(secure1[0], secure2[0])
      assert.notStrictEqual(secure1[0], seeded1[0])
    }))
})
