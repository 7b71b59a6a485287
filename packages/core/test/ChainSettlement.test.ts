/**
 * The chain settlement runner over chain models (`@svc/core/testing/ChainModel`,
 * the same interfaces the EVM connector implements; the real chains run in the
 * end-to-end tier): the lifecycle from a source fill to PAID at the
 * destination's finality, fills that do not match or leave the chain, expiry at
 * a final block, and the payout policy under the faults public chains produce
 * (a vault short of funds, reverts, a reorganised payout, fee spikes, a nonce
 * taken, a gap, one network in trouble, lost leadership, a payout key without
 * gas).
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Layer, Logger, SubscriptionRef, Tracer } from "effect"
import { TestClock } from "effect/testing"
import type * as Chain from "../src/Chain.ts"
import * as ChainSettlement from "../src/ChainSettlement.ts"
import * as Health from "../src/Health.ts"
import { SettlementObserver } from "../src/Settlement.ts"
import { Store } from "../src/Store.ts"
import {
  atChainTime,
  type Envelope,
  filled,
  fillOf,
  inState,
  issuePermit,
  OPERATOR,
  setup,
  stateOf,
  step,
  stepUntil,
  T0,
  testCoordination,
  TOKENS
} from "./support/settlement.ts"

const payoutsOf = (s: ReturnType<typeof setup>, envelope: Envelope) => s.bsc.payoutsOf(envelope.permit.fillId)

describe("ChainSettlement: the lifecycle", () => {
  it.effect("a fill is observed, confirmed at the source's finality, paid from a stored transaction, PAID at the destination's finality", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const store = yield* Store
        const envelope = yield* filled(s)
        const fillId = envelope.permit.fillId
        yield* step
        assert.strictEqual((yield* stateOf(fillId)).state, "SOURCE_OBSERVED")
        // the cursor is durable, with the newest final block read
        const cursor = yield* store.chainCursor(envelope.permit.sourceNetworkId)
        assert.strictEqual(cursor?.blockNumber, s.base.head().number)
        assert.strictEqual(cursor?.finalBlockNumber, s.base.head().number - 2n)
        // base: finality 2 confirmations, and the finalized tag trails by 2 blocks
        s.base.mine()
        yield* step
        assert.strictEqual((yield* stateOf(fillId)).state, "SOURCE_OBSERVED")
        s.base.mine()
        yield* step
        const submitted = yield* stateOf(fillId)
        assert.strictEqual(submitted.state, "PAYOUT_SUBMITTED")
        const [intent] = yield* store.payoutIntents(fillId)
        assert.strictEqual(intent?.txHash, submitted.payoutTxHash)
        assert.strictEqual(intent?.nonce, 0)
        assert.strictEqual(s.bsc.sent().length, 1)
        // mined, but PAID only once final on bsc (3 confirmations, finalized 2 behind)
        s.bsc.mine()
        yield* step
        assert.strictEqual((yield* stateOf(fillId)).state, "PAYOUT_SUBMITTED")
        s.bsc.mine(2)
        yield* step
        const paid = yield* stateOf(fillId)
        assert.strictEqual(paid.state, "PAID")
        assert.strictEqual(paid.payoutTxHash, intent!.txHash)
        assert.deepStrictEqual(payoutsOf(s, envelope).map((p) => [p.amount, p.recipient]), [[
          BigInt(envelope.permit.amountOutRaw),
          envelope.permit.recipient.toLowerCase()
        ]])
        assert.strictEqual(s.bsc.sent().length, 1)
        const stats = (yield* (yield* ChainSettlement.ChainSettlement).networks).find((n) => n.key === "bsc")!
        assert.isTrue(stats.paying && stats.rpcUp === true)
        assert.strictEqual(stats.unpaid, 0)
      })
    )
  })

  it.effect("under finality by the finalized block, PAID waits for it even past the confirmations", () => {
    const s = setup({ model: { finalizedLag: 6 } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const envelope = yield* filled(s)
        const fillId = envelope.permit.fillId
        const fillBlock = s.base.head().number
        // the source waits for base's finalized block too (6 behind), not only for 2 confirmations
        while (s.base.head().number < fillBlock + 6n) {
          yield* step
          assert.strictEqual((yield* stateOf(fillId)).state, "SOURCE_OBSERVED", `at ${s.base.head().number}`)
          s.base.mine()
        }
        yield* step
        assert.strictEqual((yield* stateOf(fillId)).state, "PAYOUT_SUBMITTED")
        s.bsc.mine()
        const payoutBlock = s.bsc.head().number
        while (s.bsc.head().number < payoutBlock + 5n) {
          s.bsc.mine()
          yield* step
          const state = (yield* stateOf(fillId)).state
          assert.strictEqual(state, "PAYOUT_SUBMITTED", `at ${s.bsc.head().number}`)
        }
        s.bsc.mine()
        yield* step
        assert.strictEqual((yield* stateOf(fillId)).state, "PAID")
      })
    )
  })

  it.effect("a fill that does not match its permit is FAILED with the reasons and never paid", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const envelope = yield* issuePermit()
        s.base.submitFill(fillOf(envelope, { amountInRaw: 1n, payer: "0x" + "9".repeat(40) }))
        s.base.mine()
        yield* step
        const failed = yield* stateOf(envelope.permit.fillId)
        assert.strictEqual(failed.state, "FAILED")
        assert.deepStrictEqual(failed.reasonCodes, [
          "SOURCE_FILL_MISMATCH",
          "SOURCE_FILL_PAYER_MISMATCH",
          "SOURCE_FILL_AMOUNT_IN_MISMATCH"
        ])
        s.base.mine(10)
        yield* step
        assert.strictEqual(s.bsc.sent().length, 0)
      })
    )
  })

  it.effect("a fill whose transaction leaves the chain moves the permit back to ISSUED; its fill in a replacing block at or below the cursor is seen", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const envelope = yield* filled(s)
        const fillId = envelope.permit.fillId
        yield* step
        assert.strictEqual((yield* stateOf(fillId)).state, "SOURCE_OBSERVED")
        // the fill's block is replaced: the fill is gone
        s.base.reorg(1)
        yield* step
        const back = yield* stateOf(fillId)
        assert.strictEqual(back.state, "ISSUED")
        assert.isNull(back.sourceTxHash)
        // the fill lands again in a block that replaces the cursor's: read again below the changed cursor
        s.base.reorg(1, { keep: true })
        s.base.submitFill(fillOf(envelope))
        s.base.reorg(1, { keep: true })
        const observed = yield* stateOf(fillId)
        assert.strictEqual(observed.state, "ISSUED")
        yield* step
        const again = yield* stateOf(fillId)
        assert.strictEqual(again.state, "SOURCE_OBSERVED")
        yield* stepUntil([s.base, s.bsc], inState(fillId, "PAID"))
        assert.strictEqual(payoutsOf(s, envelope).length, 1)
      })
    )
  })

  it.effect("a fill event whose transaction reverted is not a fill: never confirmed, never paid", () => {
    const s = setup()
    // a node that reports the event of a transaction whose receipt says it reverted
    const honest = s.base.chain.reader
    ;(s.base.chain as { reader: Chain.ChainReader }).reader = {
      ...honest,
      inclusion: (hash) =>
        Effect.map(honest.inclusion(hash), (i) => (i._tag === "Included" ? { ...i, success: false } : i))
    }
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const envelope = yield* filled(s)
        const fillId = envelope.permit.fillId
        for (let i = 0; i < 8; i++) {
          yield* step
          assert.notInclude(["SOURCE_CONFIRMED", "PAYOUT_SUBMITTED", "PAID"], (yield* stateOf(fillId)).state)
          s.base.mine()
        }
        assert.strictEqual(s.bsc.sent().length, 0)
      })
    )
  })
})

describe("ChainSettlement: traces", () => {
  it.effect("a fill's path is its spans, each naming the fill and its network: observed on the source, paid on the destination", () => {
    const spans: Array<{ readonly name: string; readonly attributes: Map<string, unknown> }> = []
    const tracer = Tracer.make({
      span(options) {
        const span = new Tracer.NativeSpan(options)
        spans.push({ name: options.name, attributes: span.attributes })
        return span
      }
    })
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const envelope = yield* filled(s)
        const fillId = envelope.permit.fillId
        yield* confirmAll(s, [fillId])
        yield* stepUntil([s.bsc], inState(fillId, "PAID"))
        const path = spans.filter((span) => span.attributes.get("svc.fillId") === fillId)
        const networkOf = (
          name: string
        ) => [...new Set(path.filter((p) => p.name === name).map((p) => p.attributes.get("svc.network")))]
        assert.deepStrictEqual(networkOf("ChainSettlement.onFill"), ["base"])
        for (const name of ["ChainSettlement.start", "ChainSettlement.sendAttempt", "ChainSettlement.track"]) {
          assert.deepStrictEqual(networkOf(name), ["bsc"], name)
        }
        // the passes name their network
        const passes = spans.filter((span) => span.name === "ChainSettlement.pay")
        assert.isAbove(passes.length, 0)
        const named = new Set(passes.map((pass) => pass.attributes.get("svc.network")))
        assert.isFalse(named.has(undefined))
        assert.isTrue(named.has("base") && named.has("bsc"), [...named].join(", "))
      })
    ).pipe(Effect.withTracer(tracer))
  })
})

describe("ChainSettlement: clocks", () => {
  it.effect("a source chain whose clock lags the server's by seconds accepts a fresh permit's fill (validAfter has a slack)", () => {
    // base's blocks are stamped 20 s behind the server's clock
    const s = setup({ model: { genesisTimestamp: T0 - 40 } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const envelope = yield* issuePermit()
        assert.isBelow(s.base.head().timestamp + 1, (yield* Clock.currentTimeMillis) / 1000)
        assert.isAtMost(Number(envelope.permit.validAfter), s.base.head().timestamp + 1)
        s.base.submitFill(fillOf(envelope))
        s.base.mine()
        yield* step
        assert.strictEqual((yield* stateOf(envelope.permit.fillId)).state, "SOURCE_OBSERVED")
      })
    )
  })
})

describe("ChainSettlement: expiry", () => {
  it.effect("an ISSUED permit expires as soon as the watcher has read a final block stamped at or after validUntil (no grace)", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const observer = yield* SettlementObserver
        const envelope = yield* issuePermit()
        const validUntil = Number(envelope.permit.validUntil)
        // the chain's clock is what counts: the wall clock is already past validUntil + 10 minutes
        yield* TestClock.adjust("20 minutes")
        yield* step
        assert.strictEqual(yield* observer.expireDue, 0)
        // blocks stamped up to validUntil, but not yet final: still ISSUED
        s.base.mine(validUntil - s.base.head().timestamp)
        yield* step
        assert.strictEqual(s.base.head().timestamp, validUntil)
        assert.strictEqual(yield* observer.expireDue, 0)
        // two more blocks: the block stamped validUntil is final
        s.base.mine(2)
        yield* step
        assert.strictEqual(yield* observer.expireDue, 1)
        assert.strictEqual((yield* stateOf(envelope.permit.fillId)).state, "EXPIRED")
      })
    )
  })

  it.effect("without a watched source the grace applies: validUntil + 600 s of the wall clock", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const observer = yield* SettlementObserver
        // hyperevm -> base: the source is watched; solana routes are not. Use a permit whose network has no cursor:
        const envelope = yield* issuePermit("999", "8453")
        const store = yield* Store
        assert.isUndefined(yield* store.chainCursor(envelope.permit.sourceNetworkId))
        const validUntil = Number(envelope.permit.validUntil)
        yield* TestClock.setTime((validUntil + 599) * 1000)
        assert.strictEqual(yield* observer.expireDue, 0)
        yield* TestClock.setTime((validUntil + 601) * 1000)
        assert.strictEqual(yield* observer.expireDue, 1)
      })
    )
  })
})

const USDT = TOKENS["usdt.bsc"]

/** Steps until every permit is SOURCE_CONFIRMED or further along (the payouts then wait or go). */
const confirmAll = (s: ReturnType<typeof setup>, fillIds: ReadonlyArray<string>) =>
  stepUntil(
    [s.base],
    Effect.map(Effect.forEach(fillIds, stateOf), (rs) =>
      rs.every((r) => !["ISSUED", "SOURCE_OBSERVED"].includes(r.state)))
  )

/**
 * Five more passes and bsc blocks: the confirmed fill still waits in SOURCE_CONFIRMED for `reason` alone,
 * with no payout transaction stored or sent.
 */
const waitsUnsent = (s: ReturnType<typeof setup>, fillId: string, reason: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 5; i++) {
      s.bsc.mine()
      yield* step
    }
    const record = yield* stateOf(fillId)
    assert.strictEqual(record.state, "SOURCE_CONFIRMED")
    assert.deepStrictEqual(record.reasonCodes, [reason])
    assert.deepStrictEqual(yield* (yield* Store).payoutIntents(fillId), [])
    assert.strictEqual(s.bsc.sent().length, 0)
  })

/** A fill confirmed on base whose payout the emptied bsc vault cannot cover (it waits, VAULT_INSUFFICIENT). */
const confirmedBeforeAnEmptyVault = (s: ReturnType<typeof setup>) =>
  Effect.gen(function*() {
    const a = yield* filled(s)
    s.bsc.withdraw(USDT, s.bsc.vaultBalance(USDT))
    s.bsc.mine()
    yield* confirmAll(s, [a.permit.fillId])
    return a
  })

/** The log lines (their messages as JSON) that `keep` keeps, and the layer that collects them. */
const captureLogs = (keep: (level: string, text: string) => boolean) => {
  const lines: Array<string> = []
  const capture = Logger.layer([
    Logger.make(({ logLevel, message }) => {
      const text = JSON.stringify(message)
      if (keep(logLevel, text)) lines.push(text)
    })
  ])
  return { lines, capture }
}

describe("ChainSettlement: a vault short of funds (failure 1)", () => {
  it.effect("payouts wait while the vault cannot cover them at the latest block, even with a top-up pending; once it is mined they are paid, never FAILED", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        const b = yield* filled(s)
        const ids = [a.permit.fillId, b.permit.fillId]
        // the vault is emptied
        s.bsc.withdraw(USDT, s.bsc.vaultBalance(USDT))
        s.bsc.mine()
        yield* confirmAll(s, ids)
        for (let i = 0; i < 5; i++) {
          yield* step
          s.bsc.mine()
        }
        for (const id of ids) {
          const r = yield* stateOf(id)
          assert.strictEqual(r.state, "SOURCE_CONFIRMED")
          assert.deepStrictEqual(r.reasonCodes, ["VAULT_INSUFFICIENT"])
        }
        assert.strictEqual(s.bsc.sent().length, 0)
        // the owner refills: the top-up is pending, not mined; a payout must not count on it
        s.bsc.deposit(USDT, 10n ** 24n)
        yield* step
        assert.strictEqual(s.bsc.sent().length, 0)
        s.bsc.mine()
        yield* stepUntil([s.bsc], Effect.map(Effect.forEach(ids, stateOf), (rs) => rs.every((r) => r.state === "PAID")))
        for (const envelope of [a, b]) {
          assert.strictEqual(payoutsOf(s, envelope).length, 1)
          assert.deepStrictEqual((yield* stateOf(envelope.permit.fillId)).reasonCodes, [])
        }
        assert.strictEqual(s.bsc.sent().length, 2)
      })
    )
  })

  it.effect("a vault holding 1.5 of 2 payouts pays one; the other waits (not sent, not FAILED) and is paid after a top-up", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        const b = yield* filled(s)
        const amount = BigInt(a.permit.amountOutRaw)
        assert.strictEqual(BigInt(b.permit.amountOutRaw), amount)
        s.bsc.withdraw(USDT, s.bsc.vaultBalance(USDT) - (amount * 3n) / 2n)
        s.bsc.mine()
        yield* confirmAll(s, [a.permit.fillId, b.permit.fillId])
        yield* stepUntil([s.bsc], inState(a.permit.fillId, "PAID"))
        const waiting = yield* stateOf(b.permit.fillId)
        assert.strictEqual(waiting.state, "SOURCE_CONFIRMED")
        assert.deepStrictEqual(waiting.reasonCodes, ["VAULT_INSUFFICIENT"])
        assert.strictEqual(s.bsc.sent().length, 1)
        s.bsc.deposit(USDT, amount)
        s.bsc.mine()
        yield* stepUntil([s.bsc], inState(b.permit.fillId, "PAID"))
        assert.strictEqual(payoutsOf(s, a).length, 1)
        assert.strictEqual(payoutsOf(s, b).length, 1)
      })
    )
  })

  it.effect("a payout that reverts (a withdrawal mined first) stays PAYOUT_SUBMITTED and is retried after a back-off; past the budget it waits for the operator", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const store = yield* Store
        const envelope = yield* filled(s)
        const fillId = envelope.permit.fillId
        const amount = BigInt(envelope.permit.amountOutRaw)
        const all = s.bsc.vaultBalance(USDT)
        yield* confirmAll(s, [fillId])
        /** the next payout sent is raced by a withdrawal of everything in the same block */
        const revertNext = Effect.gen(function*() {
          for (let i = 0; i < 20 && s.bsc.pool().length === 0; i++) {
            yield* TestClock.adjust("5 seconds")
            yield* step
          }
          assert.strictEqual(s.bsc.pool().length, 1, "a payout transaction is pending")
          s.bsc.withdraw(USDT, s.bsc.vaultBalance(USDT))
          s.bsc.mine()
          s.bsc.deposit(USDT, all)
          s.bsc.mine()
          yield* step
        })
        yield* revertNext
        const reverted = yield* stateOf(fillId)
        assert.strictEqual(reverted.state, "PAYOUT_SUBMITTED")
        assert.deepStrictEqual(reverted.reasonCodes, ["PAYOUT_REVERTED"])
        // the back-off: nothing new right away
        yield* step
        assert.strictEqual(s.bsc.sent().length, 1)
        yield* revertNext
        yield* revertNext
        // three reverts: the budget is used; it waits for the operator, never FAILED
        const waiting = yield* stateOf(fillId)
        assert.strictEqual(waiting.state, "PAYOUT_SUBMITTED")
        assert.deepStrictEqual(waiting.reasonCodes, ["PAYOUT_REVERTED", "PAYOUT_NEEDS_OPERATOR"])
        yield* TestClock.adjust("1 hour")
        for (let i = 0; i < 5; i++) yield* step
        assert.strictEqual(s.bsc.sent().length, 3)
        const stats = (yield* (yield* ChainSettlement.ChainSettlement).networks).find((n) => n.key === "bsc")!
        assert.strictEqual(stats.waitingOperator, 1)
        // the operator releases it (svc admin payouts retry): it is paid
        for (const intent of yield* store.payoutIntents(fillId)) {
          assert.strictEqual(intent.outcome, "REVERTED")
          yield* store.markPayoutIntent(intent.txHash, "RETRIED")
        }
        yield* store.setReasonCodes(fillId, [])
        yield* stepUntil([s.bsc], inState(fillId, "PAID"))
        assert.deepStrictEqual(payoutsOf(s, envelope).map((p) => p.amount), [amount])
        assert.strictEqual(s.bsc.sent().length, 4)
      })
    )
  })
})

describe("ChainSettlement: nonces from the chain and the store (failure 2)", () => {
  it.effect("a reorganisation that removes a mined payout frees its nonce: it is sent again there, the next payout follows, nothing queues", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        yield* confirmAll(s, [a.permit.fillId])
        yield* step
        assert.strictEqual((yield* stateOf(a.permit.fillId)).state, "PAYOUT_SUBMITTED")
        s.bsc.mine()
        assert.strictEqual(s.bsc.nonceOf(OPERATOR), 1)
        // the block with the payout leaves the chain (before finality); its transaction is dropped
        s.bsc.reorg(1)
        assert.strictEqual(s.bsc.nonceOf(OPERATOR), 0)
        const b = yield* filled(s)
        yield* confirmAll(s, [b.permit.fillId])
        yield* stepUntil(
          [s.bsc],
          Effect.map(
            Effect.forEach([a, b], (e) => stateOf(e.permit.fillId)),
            (rs) => rs.every((r) => r.state === "PAID")
          )
        )
        assert.strictEqual(payoutsOf(s, a).length, 1)
        assert.strictEqual(payoutsOf(s, b).length, 1)
        assert.strictEqual(s.bsc.nonceOf(OPERATOR), 2)
        assert.deepStrictEqual(s.bsc.pool(), [])
      })
    )
  })

  it.effect("a store failure between signing and saving a payout leaves no nonce hole: the next pass signs at the same nonce", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        const b = yield* filled(s)
        yield* confirmAll(s, [a.permit.fillId, b.permit.fillId])
        s.store.failOnce.add("savePayoutIntent")
        yield* stepUntil(
          [s.bsc],
          Effect.map(
            Effect.forEach([a, b], (e) => stateOf(e.permit.fillId)),
            (rs) => rs.every((r) => r.state === "PAID")
          )
        )
        assert.strictEqual(s.bsc.nonceOf(OPERATOR), 2)
        assert.deepStrictEqual(s.bsc.pool(), [])
        const store = yield* Store
        const nonces = [
          ...(yield* store.payoutIntents(a.permit.fillId)),
          ...(yield* store.payoutIntents(b.permit.fillId))
        ].map((i) => i.nonce).sort()
        assert.deepStrictEqual(nonces, [0, 1])
      })
    )
  })

  it.effect("a nonce taken by another transaction of the key: the payout is signed again at a new nonce", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        yield* confirmAll(s, [a.permit.fillId])
        yield* step
        const [first] = yield* (yield* Store).payoutIntents(a.permit.fillId)
        // the pool loses it and another transaction of the key takes nonce 0
        s.bsc.dropTransaction(first!.txHash)
        s.bsc.useNonce()
        yield* stepUntil([s.bsc], inState(a.permit.fillId, "PAID"))
        const intents = yield* (yield* Store).payoutIntents(a.permit.fillId)
        assert.deepStrictEqual(intents.map((i) => [i.nonce, i.attempt]), [[0, 1], [1, 2]])
        assert.strictEqual(payoutsOf(s, a).length, 1)
      })
    )
  })

  it.effect("a gap under pending payouts that nothing fills (a payout dropped, then FAILED by the operator) is filled by moving the highest one down", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const [a, b, c] = [yield* filled(s), yield* filled(s), yield* filled(s)]
        yield* confirmAll(s, [a, b, c].map((e) => e.permit.fillId))
        // the destination mines nothing for now: all three are pending at nonces 0, 1, 2
        yield* step
        const store = yield* Store
        const intents = yield* Effect.forEach(
          [a, b, c],
          (e) => Effect.map(store.payoutIntents(e.permit.fillId), (i) => i[0]!)
        )
        assert.deepStrictEqual(intents.map((i) => i.nonce), [0, 1, 2])
        s.bsc.dropTransaction(intents[0]!.txHash, { only: true })
        yield* (yield* SettlementObserver).failed(a.permit.fillId, ["OPERATOR_TEST"])
        yield* stepUntil(
          [s.bsc],
          Effect.map(
            Effect.forEach([b, c], (e) => stateOf(e.permit.fillId)),
            (rs) => rs.every((r) => r.state === "PAID")
          )
        )
        assert.strictEqual(payoutsOf(s, b).length, 1)
        assert.strictEqual(payoutsOf(s, c).length, 1)
        assert.strictEqual(payoutsOf(s, a).length, 0)
      })
    )
  })
})

describe("ChainSettlement: fees (failure 3)", () => {
  it.effect("a payout stuck under a base fee 10x its cap is replaced at the same nonce after replaceAfterBlocks; every transaction is stored first and watched", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const store = yield* Store
        const a = yield* filled(s)
        yield* confirmAll(s, [a.permit.fillId])
        yield* step
        const [first] = yield* store.payoutIntents(a.permit.fillId)
        s.bsc.setBaseFee(first!.maxFeePerGas! * 10n)
        for (let i = 0; i < 2; i++) {
          s.bsc.mine()
          yield* step
        }
        assert.strictEqual((yield* store.payoutIntents(a.permit.fillId)).length, 1)
        yield* stepUntil([s.bsc], inState(a.permit.fillId, "PAID"))
        const intents = yield* store.payoutIntents(a.permit.fillId)
        assert.strictEqual(intents.length, 2)
        assert.strictEqual(intents[1]!.nonce, intents[0]!.nonce)
        assert.isTrue(intents[1]!.maxFeePerGas! >= s.bsc.head().number * 0n + first!.maxFeePerGas! * 10n)
        const paid = yield* stateOf(a.permit.fillId)
        assert.strictEqual(paid.payoutTxHash, intents[1]!.txHash)
        assert.strictEqual(payoutsOf(s, a).length, 1)
      })
    )
  })

  it.effect("past the network's fee ceiling a payout waits (FEE_AT_CEILING) and is paid when fees come down", () => {
    const s = setup({ networks: { bsc: { maxFeePerGas: "5000000000" } } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const store = yield* Store
        const a = yield* filled(s)
        yield* confirmAll(s, [a.permit.fillId])
        yield* step
        s.bsc.setBaseFee(20_000_000_000n)
        for (let i = 0; i < 6; i++) {
          s.bsc.mine()
          yield* step
        }
        const waiting = yield* stateOf(a.permit.fillId)
        assert.strictEqual(waiting.state, "PAYOUT_SUBMITTED")
        assert.deepStrictEqual(waiting.reasonCodes, ["FEE_AT_CEILING"])
        for (const i of yield* store.payoutIntents(a.permit.fillId)) assert.isAtMost(Number(i.maxFeePerGas), 5e9)
        const stats = (yield* (yield* ChainSettlement.ChainSettlement).networks).find((n) => n.key === "bsc")!
        assert.isTrue(stats.feeAtCeiling)
        // a new payout is not even sent while the base fee is above the ceiling
        const b = yield* filled(s)
        yield* confirmAll(s, [b.permit.fillId])
        assert.deepStrictEqual((yield* stateOf(b.permit.fillId)).reasonCodes, ["FEE_ABOVE_CEILING"])
        s.bsc.setBaseFee(1_000_000_000n)
        yield* stepUntil(
          [s.bsc],
          Effect.map(
            Effect.forEach([a, b], (e) => stateOf(e.permit.fillId)),
            (rs) => rs.every((r) => r.state === "PAID")
          )
        )
        assert.strictEqual(payoutsOf(s, a).length, 1)
        assert.strictEqual(payoutsOf(s, b).length, 1)
      })
    )
  })

  it.effect("a node that evicts an underpriced payout (anvil): it is sent again with the market's fees", () => {
    const s = setup({ model: { evictUnderpriced: true } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        yield* confirmAll(s, [a.permit.fillId])
        yield* step
        const [first] = yield* (yield* Store).payoutIntents(a.permit.fillId)
        s.bsc.setBaseFee(first!.maxFeePerGas! * 10n)
        s.bsc.mine()
        assert.deepStrictEqual(s.bsc.pool(), [])
        yield* stepUntil([s.bsc], inState(a.permit.fillId, "PAID"))
        assert.strictEqual(payoutsOf(s, a).length, 1)
      })
    )
  })
})

describe("ChainSettlement: finality by depth and re-checks (failure 4)", () => {
  it.effect("a PAID payout that a reorganisation deeper than the confirmations removes is detected, sent again and paid once", () => {
    const s = setup({ networks: { bsc: { finality: "depth" } }, chainSettlement: { recheckMillis: 1000 } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        yield* confirmAll(s, [a.permit.fillId])
        yield* stepUntil([s.bsc], inState(a.permit.fillId, "PAID"))
        const first = yield* stateOf(a.permit.fillId)
        // 4 blocks deep (bsc confirms with 3): the payout is gone and the vault has not paid
        s.bsc.reorg(4)
        assert.isFalse(s.bsc.paidOut(a.permit.fillId))
        yield* TestClock.adjust("2 seconds")
        yield* step
        const reopened = yield* stateOf(a.permit.fillId)
        assert.strictEqual(reopened.state, "PAYOUT_SUBMITTED")
        yield* stepUntil([s.bsc], inState(a.permit.fillId, "PAID"))
        const again = yield* stateOf(a.permit.fillId)
        assert.notStrictEqual(again.payoutTxHash, null)
        assert.strictEqual(payoutsOf(s, a).length, 1)
        assert.isTrue(s.bsc.paidOut(a.permit.fillId))
        void first
      })
    )
  })

  it.effect("a confirmed source fill that leaves the chain before its payout sends the permit back to ISSUED: never paid", () => {
    const s = setup({ networks: { base: { finality: "depth" } } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const amountAll = s.bsc.vaultBalance(USDT)
        const a = yield* filled(s)
        // the payout cannot go yet (the vault is empty): it waits confirmed
        s.bsc.withdraw(USDT, amountAll)
        s.bsc.mine()
        yield* confirmAll(s, [a.permit.fillId])
        assert.strictEqual((yield* stateOf(a.permit.fillId)).state, "SOURCE_CONFIRMED")
        // deeper than base's 2 confirmations: the fill is gone
        s.base.reorg(4)
        s.bsc.deposit(USDT, amountAll)
        s.bsc.mine()
        yield* step
        const back = yield* stateOf(a.permit.fillId)
        assert.strictEqual(back.state, "ISSUED")
        for (let i = 0; i < 5; i++) {
          s.bsc.mine()
          yield* step
        }
        assert.strictEqual(s.bsc.sent().length, 0)
      })
    )
  })

  it.effect("a source fill that leaves the chain after its payout raises an alert on the permit (SOURCE_FILL_LOST_AFTER_PAYOUT)", () => {
    const s = setup({ networks: { base: { finality: "depth" } }, chainSettlement: { recheckMillis: 1000 } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        yield* confirmAll(s, [a.permit.fillId])
        yield* stepUntil([s.bsc], inState(a.permit.fillId, "PAID"))
        s.base.reorg(6)
        yield* TestClock.adjust("2 seconds")
        yield* step
        const alerted = yield* stateOf(a.permit.fillId)
        assert.strictEqual(alerted.state, "PAID")
        assert.include(alerted.reasonCodes, "SOURCE_FILL_LOST_AFTER_PAYOUT")
      })
    )
  })
})

describe("ChainSettlement: one network's trouble stops no other (failure 5)", () => {
  it.effect("205 payouts that cannot be made on one network do not delay a payout on another", () => {
    const s = setup({ chainSettlement: { batchSize: 200 } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const stuck: Array<string> = []
        for (let i = 0; i < 205; i++) {
          const e = yield* issuePermit("8453", "999")
          s.base.submitFill(fillOf(e))
          stuck.push(e.permit.fillId)
        }
        s.base.mine()
        // hyperevm's vault is emptied: none of them can be paid there
        s.hyperevm.withdraw(TOKENS["usdt0.hyperevm"], s.hyperevm.vaultBalance(TOKENS["usdt0.hyperevm"]))
        s.hyperevm.mine()
        // issued after all of them: the newest of 206 confirmed permits
        yield* TestClock.adjust("1 second")
        const a = yield* filled(s)
        const steps = yield* stepUntil([s.base, s.bsc, s.hyperevm], inState(a.permit.fillId, "PAID"), 12)
        assert.isAtMost(steps, 8)
        assert.strictEqual(s.hyperevm.sent().length, 0)
        assert.strictEqual((yield* stateOf(stuck[204]!)).state, "SOURCE_CONFIRMED")
      })
    )
  }, 60_000)

  it.effect("a network whose RPC hangs delays nothing on another: its own loops wait, bounded by the call time-out", () => {
    const s = setup({ chainSettlement: { pollMillis: 1000, callTimeoutMillis: 10_000 } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        s.hyperevm.rpc = "hang"
        const a = yield* filled(s)
        for (let i = 0; i < 20 && (yield* stateOf(a.permit.fillId)).state !== "PAID"; i++) {
          yield* TestClock.adjust("1 second")
          s.base.mine()
          s.bsc.mine()
        }
        assert.strictEqual((yield* stateOf(a.permit.fillId)).state, "PAID")
        const networks = Effect.flatMap(ChainSettlement.ChainSettlement, (c) => c.networks)
        const hyperevm = Effect.map(networks, (ns) => ns.find((n) => n.key === "hyperevm")!)
        // the hung calls end at the time-out: the network is reported down, then up again once it answers
        yield* TestClock.adjust("12 seconds")
        assert.isFalse((yield* hyperevm).rpcUp)
        assert.match((yield* hyperevm).lastError ?? "", /no answer within 10000 ms/)
        assert.isTrue((yield* networks).find((n) => n.key === "bsc")!.rpcUp)
        s.hyperevm.rpc = "ok"
        yield* TestClock.adjust("12 seconds")
        assert.isTrue((yield* hyperevm).rpcUp)
      })
    )
  })
})

describe("ChainSettlement: leadership (failure 6)", () => {
  it.effect("a replica that stopped leading signs and sends nothing, even mid-pass; leading again, it pays", () => {
    const { layer: coordination, leads: leading } = testCoordination()
    const s = setup({ parts: { coordination } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        const b = yield* filled(s)
        yield* confirmAll(s, [a.permit.fillId, b.permit.fillId])
        // confirmAll's last step paid both already? start over with two new ones while not leading
        const c = yield* filled(s)
        yield* SubscriptionRef.set(leading, false)
        const sentBefore = s.bsc.sent().length
        for (let i = 0; i < 6; i++) {
          yield* step
          s.base.mine()
          s.bsc.mine()
        }
        assert.strictEqual(s.bsc.sent().length, sentBefore)
        assert.notStrictEqual((yield* stateOf(c.permit.fillId)).state, "PAYOUT_SUBMITTED")
        yield* SubscriptionRef.set(leading, true)
        yield* stepUntil([s.base, s.bsc], inState(c.permit.fillId, "PAID"))
        assert.strictEqual(payoutsOf(s, c).length, 1)
      })
    )
  })
})

describe("ChainSettlement: an endpoint that lags", () => {
  it.effect("a head behind the one read before (a fail-over to a lagging node) is waited for, not taken for a reorganisation", () => {
    const s = setup()
    // the base node's view lags `lag` blocks: its head, its blocks and its receipts above that are unknown to it
    const honest = s.base.chain.reader
    let lag = 0n
    const visible = (n: bigint) => n <= s.base.head().number - lag
    ;(s.base.chain as { reader: Chain.ChainReader }).reader = {
      ...honest,
      head: Effect.map(honest.head, (h) => (lag === 0n ? h : s.base.blockAt(h.number - lag)!)),
      block: (n) => (visible(n) ? honest.block(n) : Effect.succeed(null)),
      inclusion: (hash) =>
        Effect.map(
          honest.inclusion(hash),
          (i) => (i._tag === "Included" && !visible(i.blockNumber) ? { _tag: "Missing" as const } : i)
        )
    }
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        yield* step
        assert.strictEqual((yield* stateOf(a.permit.fillId)).state, "SOURCE_OBSERVED")
        lag = 3n
        for (let i = 0; i < 3; i++) {
          yield* step
          assert.strictEqual((yield* stateOf(a.permit.fillId)).state, "SOURCE_OBSERVED", `pass ${i}`)
        }
        lag = 0n
        yield* stepUntil([s.base, s.bsc], inState(a.permit.fillId, "PAID"))
      })
    )
  })
})

describe("ChainSettlement: a payout the vault made long ago", () => {
  it.effect("a fill the vault paid before the connector's look-back (its event not found) is PAID, nothing is sent", () => {
    const s = setup()
    const honest = s.bsc.chain.payer!
    ;(s.bsc.chain as { payer: Chain.ChainPayer }).payer = {
      ...honest,
      findPayout: (fillId) => Effect.map(honest.paidOut(fillId), (paid) => (paid ? { txHash: null } : null))
    }
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        // the vault paid this fillId long ago (a store restored from an old backup never knew)
        const order = {
          fillId: a.permit.fillId,
          asset: a.permit.destinationAsset,
          recipient: a.permit.recipient,
          amountRaw: BigInt(a.permit.amountOutRaw)
        }
        const signed = yield* honest.sign(order, {
          nonce: 0,
          gas: 60_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 1n
        })
        yield* honest.send(signed)
        s.bsc.mine(5)
        const sent = s.bsc.sent().length
        yield* stepUntil([s.base, s.bsc], inState(a.permit.fillId, "PAID"))
        const paid = yield* stateOf(a.permit.fillId)
        assert.isNull(paid.payoutTxHash)
        assert.strictEqual(s.bsc.sent().length, sent)
        assert.strictEqual(payoutsOf(s, a).length, 1)
      })
    )
  })
})

describe("ChainSettlement: the operator's controls", () => {
  it.effect("payouts paused on one network: nothing is sent there, the watchers go on, the other network pays; resumed, it pays", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const store = yield* Store
        yield* store.setPayoutsPaused("bsc", true, "incident")
        const toBsc = yield* filled(s)
        const toBase = yield* issuePermit("56", "8453")
        s.bsc.submitFill(fillOf(toBase))
        s.bsc.mine()
        yield* stepUntil([s.base, s.bsc], inState(toBase.permit.fillId, "PAID"))
        const waiting = yield* stateOf(toBsc.permit.fillId)
        assert.strictEqual(waiting.state, "SOURCE_CONFIRMED")
        assert.deepStrictEqual(waiting.reasonCodes, ["PAYOUTS_PAUSED"])
        assert.strictEqual(s.bsc.sent().length, 0)
        yield* store.setPayoutsPaused("bsc", false, null)
        yield* stepUntil([s.base, s.bsc], inState(toBsc.permit.fillId, "PAID"))
        assert.strictEqual(payoutsOf(s, toBsc).length, 1)
      })
    )
  })

  it.effect("'*' pauses every network: a payout already pending is watched to PAID, but not replaced or sent again", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const store = yield* Store
        const a = yield* filled(s)
        yield* confirmAll(s, [a.permit.fillId])
        yield* step
        assert.strictEqual((yield* stateOf(a.permit.fillId)).state, "PAYOUT_SUBMITTED")
        yield* store.setPayoutsPaused("*", true, null)
        // dropped by the node while paused: not sent again
        s.bsc.dropTransaction(s.bsc.pool()[0]!.hash)
        for (let i = 0; i < 5; i++) {
          s.bsc.mine()
          yield* step
        }
        assert.strictEqual(s.bsc.sent().length, 1)
        assert.deepStrictEqual((yield* stateOf(a.permit.fillId)).reasonCodes, ["PAYOUTS_PAUSED"])
        yield* store.setPayoutsPaused("*", false, null)
        yield* stepUntil([s.bsc], inState(a.permit.fillId, "PAID"))
        assert.strictEqual(payoutsOf(s, a).length, 1)
      })
    )
  })

  it.effect("a dry run decides and logs the payouts, signs and stores nothing", () => {
    const s = setup({ chainSettlement: { dryRun: true } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        yield* confirmAll(s, [a.permit.fillId])
        yield* waitsUnsent(s, a.permit.fillId, "PAYOUT_DRY_RUN")
      })
    )
  })
})

describe("ChainSettlement: a payout key without gas", () => {
  it.effect("the payout waits in SOURCE_CONFIRMED with PAYOUT_KEY_NO_GAS, nothing signed or stored; funded, it is paid", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        s.bsc.fund(OPERATOR, -(10n ** 30n))
        s.bsc.mine()
        yield* confirmAll(s, [a.permit.fillId])
        // not PAYOUT_SUBMITTED with nothing on chain: it says what it waits for
        yield* waitsUnsent(s, a.permit.fillId, "PAYOUT_KEY_NO_GAS")
        s.bsc.fund(OPERATOR, 10n ** 20n)
        s.bsc.mine()
        yield* stepUntil([s.bsc], inState(a.permit.fillId, "PAID"))
        assert.strictEqual(payoutsOf(s, a).length, 1)
      })
    )
  })
})

describe("ChainSettlement: logs", () => {
  it.effect("a payout stuck for many passes logs once when it gets stuck, not once per pass", () => {
    const { lines, capture } = captureLogs((level) => level === "Warn" || level === "Error")
    const s = setup()
    return atChainTime(
      Layer.merge(s.layer, capture),
      Effect.gen(function*() {
        yield* confirmedBeforeAnEmptyVault(s)
        for (let i = 0; i < 20; i++) {
          yield* step
          s.base.mine()
          s.bsc.mine()
        }
        const waits = lines.filter((l) => l.includes("a payout waits"))
        assert.strictEqual(waits.length, 1, lines.join("\n"))
        assert.include(waits[0], "VAULT_INSUFFICIENT")
      })
    )
  })
  it.effect("a network with waiting payouts logs one summary every summaryMillis, not one per pass", () => {
    const { lines: summaries, capture } = captureLogs((_, text) => text.includes("settlement summary"))
    const s = setup({ chainSettlement: { summaryMillis: 10_000 } })
    return atChainTime(
      Layer.merge(s.layer, capture),
      Effect.gen(function*() {
        yield* confirmedBeforeAnEmptyVault(s)
        summaries.length = 0
        // 30 passes a second apart: three summaries of bsc's waiting payout, not thirty lines
        for (let i = 0; i < 30; i++) {
          yield* TestClock.adjust("1 second")
          yield* step
          s.base.mine()
          s.bsc.mine()
        }
        const bsc = summaries.filter((l) => l.includes("\"network\":\"bsc\""))
        assert.isAtLeast(bsc.length, 2, summaries.join("\n"))
        assert.isAtMost(bsc.length, 4, summaries.join("\n"))
        assert.include(bsc[0], "\"unpaid\":1")
        // a network with nothing waiting logs no summary
        assert.isFalse(summaries.some((l) => l.includes("\"network\":\"base\"")), summaries.join("\n"))
      })
    )
  })
})

describe("ChainSettlement: health", () => {
  it.effect("each settled network is a health component with its figures; a vault short or an RPC down shows there and never fails readiness", () => {
    const s = setup({ engine: { health: { cacheMillis: 0 } } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const health = yield* Health.Health
        const a = yield* confirmedBeforeAnEmptyVault(s)
        yield* step
        const short = yield* health.check
        const bsc = short.components["settlement.bsc"]!
        assert.strictEqual(bsc.status, "DEGRADED")
        assert.match(bsc.detail ?? "", /cannot cover its confirmed liabilities/)
        assert.strictEqual(bsc.figures?.["unpaid"], 1)
        assert.strictEqual(bsc.figures?.["vaultCoversLiabilities"], false)
        assert.strictEqual(
          bsc.figures?.[`shortfall.${a.permit.destinationAssetId.toLowerCase()}`],
          a.permit.amountOutRaw
        )
        assert.strictEqual(bsc.figures?.["rpcUp"], true)
        assert.isString(bsc.figures?.["payoutKeyGas"])
        assert.strictEqual(short.components["settlement.base"]?.status, "OK")
        assert.isTrue(short.ready)
        // the RPC refuses: UNAVAILABLE, still ready
        s.bsc.rpc = "refuse"
        yield* step
        const down = yield* health.check
        assert.strictEqual(down.components["settlement.bsc"]?.status, "UNAVAILABLE")
        assert.strictEqual(down.components["settlement.bsc"]?.figures?.["rpcUp"], false)
        assert.isTrue(down.ready)
        assert.isTrue(Health.isReady(down.components))
      })
    )
  })
})

describe("ChainSettlement: a network its connector refused", () => {
  it.effect("is an UNAVAILABLE health component naming why (not missing from health), and the others settle", () => {
    const s = setup({ engine: { health: { cacheMillis: 0 } }, refuse: { "56": "the vault has no code" } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const health = yield* Health.Health
        yield* step
        const report = yield* health.check
        const bsc = report.components["settlement.bsc"]!
        assert.strictEqual(bsc.status, "UNAVAILABLE")
        assert.strictEqual(bsc.detail, "settlement is off: the vault has no code")
        assert.strictEqual(bsc.figures?.["watching"], false)
        assert.strictEqual(bsc.figures?.["paying"], false)
        assert.strictEqual(report.components["settlement.base"]?.status, "OK")
        assert.isTrue(report.ready)
      })
    )
  })
})

describe("ChainSettlement: throughput", () => {
  it.effect(
    "300 fills mined in one source block: payouts sent without waiting for each other's receipts, consecutive nonces, all PAID within a few destination blocks",
    () => {
      const s = setup({ networks: { bsc: { maxInFlight: 300 } } })
      return atChainTime(
        s.layer,
        Effect.gen(function*() {
          const ids: Array<string> = []
          for (let i = 0; i < 300; i++) {
            const e = yield* issuePermit("8453", "56")
            s.base.submitFill(fillOf(e))
            ids.push(e.permit.fillId)
          }
          s.base.mine()
          yield* confirmAll(s, ids)
          // one pass sent them all
          assert.strictEqual(s.bsc.sent().length, 300)
          assert.deepStrictEqual(
            s.bsc.pool().map((t) => t.nonce).sort((x, y) => x - y),
            Array.from({ length: 300 }, (_, i) => i)
          )
          const blocks = yield* stepUntil(
            [s.bsc],
            Effect.map(Effect.forEach(ids, stateOf), (rs) => rs.every((r) => r.state === "PAID"))
          )
          assert.isAtMost(blocks, 5)
        })
      )
    },
    120_000
  )

  it.effect("with the default in-flight cap (16), 40 payouts go 16 at a time: never more unmined at once", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const ids: Array<string> = []
        for (let i = 0; i < 40; i++) {
          const e = yield* issuePermit("8453", "56")
          s.base.submitFill(fillOf(e))
          ids.push(e.permit.fillId)
        }
        s.base.mine()
        yield* confirmAll(s, ids)
        assert.strictEqual(s.bsc.pool().length, 16)
        let most = 0
        yield* stepUntil(
          [s.bsc],
          Effect.gen(function*() {
            most = Math.max(most, s.bsc.pool().length)
            return (yield* Effect.forEach(ids, stateOf)).every((r) => r.state === "PAID")
          })
        )
        assert.strictEqual(most, 16)
      })
    )
  }, 60_000)
})
