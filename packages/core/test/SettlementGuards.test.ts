/**
 * Guards of settlement behaviours that no other test would notice breaking
 * (each was checked against a planted bug, see docs/testing.md):
 *
 * - a source transaction that was included but reverted is never
 *   SOURCE_CONFIRMED, not even for the time of one pass;
 * - before a lost payout is signed again, the vault is asked whether the
 *   fillId was paid by another transaction: the payout follows that one, even
 *   when the vault could not pay it a second time;
 * - the same for a payout adopted from the vault's event (no transaction of
 *   its own stored) whose transaction left the chain;
 * - a PAID payout whose transaction a reorganisation removed is not reopened
 *   when the vault paid the fillId by another transaction, and its status
 *   shows that transaction;
 * - where a watcher's cursor has no final block (a cursor stored before final
 *   blocks were recorded), expiry after the grace waits for a block stamped
 *   past validUntil: the block's time, not the wall-clock time the cursor was
 *   stored at;
 * - a replica that stops leading stops its settlement loops (no chain read,
 *   no permit moved), not only its sends; leading again, it starts them again;
 * - a stored payout sent again (the node dropped it) passes the fence too: not
 *   sent while the lease has run out, even if the loops still run.
 *
 * Over the chain models of `support/settlement.ts`, as ChainSettlement.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, SubscriptionRef } from "effect"
import { TestClock } from "effect/testing"
import type * as Chain from "../src/Chain.ts"
import { SettlementObserver } from "../src/Settlement.ts"
import { type PermitRecord, Store } from "../src/Store.ts"
import type * as ChainModel from "../src/testing/ChainModel.ts"
import {
  atChainTime,
  type Envelope,
  filled,
  inState,
  issuePermit,
  OPERATOR,
  setup,
  stateOf,
  step,
  stepUntil,
  testCoordination,
  TOKENS
} from "./support/settlement.ts"

const USDT = TOKENS["usdt.bsc"]

/** Every state the memory store writes for a permit, in order (transient ones included). */
const recordStates = (s: ReturnType<typeof setup>) => {
  const states = new Map<string, Array<string>>()
  const permits = s.store.permits
  const set = permits.set.bind(permits)
  permits.set = (fillId: string, record: PermitRecord) => {
    const list = states.get(fillId) ?? []
    list.push(record.state)
    states.set(fillId, list)
    return set(fillId, record)
  }
  return (fillId: string) => states.get(fillId.toLowerCase()) ?? []
}

/** The payout order of a permit, as the runner gives it to its payer. */
const orderOf = (envelope: Envelope): Chain.PayoutOrder => ({
  fillId: envelope.permit.fillId.toLowerCase(),
  asset: envelope.permit.destinationAsset.toLowerCase(),
  recipient: envelope.permit.recipient.toLowerCase(),
  amountRaw: BigInt(envelope.permit.amountOutRaw)
})

/**
 * Another transaction of the payout key paying the same fillId at `nonce`
 * (another tool of the operator, a copy of the database restored elsewhere):
 * not one of the runner's, so not in its store.
 */
const payElsewhere = (model: ChainModel.ChainModel, envelope: Envelope, nonce: number) =>
  Effect.gen(function*() {
    const payer = model.chain.payer!
    const signed = yield* payer.sign(orderOf(envelope), {
      nonce,
      gas: 77_777n,
      maxFeePerGas: model.baseFee() * 3n,
      maxPriorityFeePerGas: 1_000_000_001n
    })
    yield* payer.send(signed)
    return signed.txHash.toLowerCase()
  })

describe("ChainSettlement guards: source fills", () => {
  it.effect("a source transaction included but reverted is never SOURCE_CONFIRMED, not even within one pass", () => {
    const s = setup()
    const states = recordStates(s)
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
          s.base.mine()
          s.bsc.mine()
        }
        const seen = states(fillId)
        assert.include(seen, "SOURCE_OBSERVED", seen.join(" -> "))
        for (const never of ["SOURCE_CONFIRMED", "PAYOUT_SUBMITTED", "PAID"]) {
          assert.notInclude(seen, never, seen.join(" -> "))
        }
        assert.strictEqual((yield* stateOf(fillId)).state, "ISSUED")
        assert.strictEqual(s.bsc.sent().length, 0)
      })
    )
  })
})

describe("ChainSettlement guards: a payout the vault made by another transaction", () => {
  it.effect("a lost payout whose fillId another transaction paid is not signed again: it follows that one to PAID, even with the vault emptied since", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        const fillId = a.permit.fillId
        yield* stepUntil([s.base], inState(fillId, "PAYOUT_SUBMITTED"))
        const store = yield* Store
        const [ours] = yield* store.payoutIntents(fillId)
        assert.isDefined(ours)
        // our transaction is lost from the pool; another transaction at its nonce pays the fillId
        s.bsc.dropTransaction(ours!.txHash)
        const other = yield* payElsewhere(s.bsc, a, ours!.nonce)
        s.bsc.mine()
        assert.isTrue(s.bsc.paidOut(fillId))
        // the vault has nothing left: a new transaction could not even be simulated as paying
        s.bsc.withdraw(USDT, s.bsc.vaultBalance(USDT))
        s.bsc.mine()
        const sentBefore = s.bsc.sent().length
        yield* stepUntil([s.bsc], inState(fillId, "PAID"))
        const paid = yield* stateOf(fillId)
        assert.strictEqual(paid.payoutTxHash, other)
        assert.deepStrictEqual((yield* store.payoutIntents(fillId)).map((i) => i.txHash), [ours!.txHash])
        assert.strictEqual(s.bsc.sent().length, sentBefore)
        assert.strictEqual(s.bsc.payoutsOf(fillId).length, 1)
      })
    )
  })

  it.effect("a payout adopted from the vault's event (none of its transactions stored) whose transaction is gone follows the one that paid it, with the vault emptied since", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const store = yield* Store
        yield* store.setPayoutsPaused("bsc", true, "test")
        const a = yield* filled(s)
        const fillId = a.permit.fillId
        yield* stepUntil([s.base], inState(fillId, "SOURCE_CONFIRMED"))
        // adopted earlier from a payout event whose transaction then left the chain (a restored database)
        yield* (yield* SettlementObserver).payoutSubmitted(fillId, `0x${"cd".repeat(32)}`)
        assert.deepStrictEqual(yield* store.payoutIntents(fillId), [])
        // the vault paid the fillId by another transaction and has nothing left
        const other = yield* payElsewhere(s.bsc, a, s.bsc.nonceOf(OPERATOR))
        s.bsc.mine()
        s.bsc.withdraw(USDT, s.bsc.vaultBalance(USDT))
        s.bsc.mine()
        yield* store.setPayoutsPaused("bsc", false, null)
        const sentBefore = s.bsc.sent().length
        yield* stepUntil([s.bsc], inState(fillId, "PAID"))
        assert.strictEqual((yield* stateOf(fillId)).payoutTxHash, other)
        assert.deepStrictEqual(yield* store.payoutIntents(fillId), [])
        assert.strictEqual(s.bsc.sent().length, sentBefore)
      })
    )
  })

  it.effect("a PAID payout removed by a reorganisation is not reopened when the vault paid its fillId by another transaction, and shows that one", () => {
    const s = setup({ networks: { bsc: { finality: "depth" } }, chainSettlement: { recheckMillis: 1000 } })
    const states = recordStates(s)
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const a = yield* filled(s)
        const fillId = a.permit.fillId
        yield* stepUntil([s.base, s.bsc], inState(fillId, "PAID"))
        const [ours] = yield* (yield* Store).payoutIntents(fillId)
        // 4 blocks deep (bsc confirms with 3): our payout is gone; in the new chain another transaction paid it
        s.bsc.reorg(4)
        assert.isFalse(s.bsc.paidOut(fillId))
        const elsewhere = yield* payElsewhere(s.bsc, a, ours!.nonce)
        s.bsc.mine(5)
        assert.isTrue(s.bsc.paidOut(fillId))
        const before = states(fillId).length
        const sentBefore = s.bsc.sent().length
        for (let i = 0; i < 4; i++) {
          yield* TestClock.adjust("2 seconds")
          yield* step
          s.bsc.mine()
        }
        assert.isTrue(states(fillId).slice(before).every((state) => state === "PAID"), "the permit never left PAID")
        const record = yield* stateOf(fillId)
        assert.strictEqual(record.state, "PAID")
        assert.strictEqual(record.payoutTxHash, elsewhere, "its status shows the transaction that paid it")
        assert.strictEqual(s.bsc.sent().length, sentBefore)
        assert.strictEqual(s.bsc.payoutsOf(fillId).length, 1)
      })
    )
  })
})

describe("ChainSettlement guards: leadership", () => {
  it.effect("a replica that stops leading stops its settlement loops: no chain read, no permit moved, until it leads again", () => {
    const { layer: coordination, leads: leading } = testCoordination()
    // the loops run on their own, every second of the test clock
    const s = setup({ parts: { coordination }, chainSettlement: { pollMillis: 1000 } })
    let reads = 0
    for (const model of [s.base, s.bsc, s.hyperevm]) {
      const honest = model.chain.reader
      ;(model.chain as { reader: Chain.ChainReader }).reader = {
        ...honest,
        head: Effect.suspend(() => {
          reads++
          return honest.head
        })
      }
    }
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        yield* TestClock.adjust("5 seconds")
        assert.isAbove(reads, 0, "leading, the loops poll")
        yield* SubscriptionRef.set(leading, false)
        yield* TestClock.adjust("1 second")
        const stopped = reads
        // a fill while this replica does not lead: another replica's to observe
        const envelope = yield* filled(s)
        yield* TestClock.adjust("30 seconds")
        assert.strictEqual(reads, stopped, "not leading, nothing is read")
        assert.strictEqual((yield* stateOf(envelope.permit.fillId)).state, "ISSUED")
        yield* SubscriptionRef.set(leading, true)
        yield* TestClock.adjust("5 seconds")
        assert.isAbove(reads, stopped, "leading again, the loops poll again")
        assert.notStrictEqual((yield* stateOf(envelope.permit.fillId)).state, "ISSUED")
      })
    )
  })
})

describe("ChainSettlement guards: the fence before every send", () => {
  it.effect("a stored payout sent again (the node dropped it) is sent only while this replica leads", () => {
    // leadership as the stream last said (leading) while the lease ran out (the fence's answer): the window
    // between a lease running out and the watchdog ending the loops, or a process paused in the middle of a pass
    const { layer: coordination, leads } = testCoordination({ loops: "leading" })
    const s = setup({ parts: { coordination } })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const envelope = yield* filled(s)
        const fillId = envelope.permit.fillId
        yield* stepUntil([s.base], inState(fillId, "PAYOUT_SUBMITTED"))
        const [hash] = s.bsc.sent()
        assert.isDefined(hash)
        s.bsc.dropTransaction(hash!)
        yield* SubscriptionRef.set(leads, false)
        yield* Effect.exit(step)
        assert.deepStrictEqual(s.bsc.sent(), [hash], "not leading: the dropped payout is not sent again")
        assert.deepStrictEqual(s.bsc.pool(), [])
        yield* SubscriptionRef.set(leads, true)
        yield* step
        assert.deepStrictEqual(s.bsc.pool().map((t) => t.hash), [hash], "leading: sent again")
        yield* stepUntil([s.bsc], inState(fillId, "PAID"))
        assert.strictEqual(s.bsc.payoutsOf(fillId).length, 1)
      })
    )
  })
})

describe("ChainSettlement guards: expiry", () => {
  it.effect("a cursor without a final block: after the grace, expiry waits for a block stamped past validUntil, whenever the cursor was stored", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const observer = yield* SettlementObserver
        const store = yield* Store
        const envelope = yield* issuePermit()
        const validUntil = Number(envelope.permit.validUntil)
        const networkId = envelope.permit.sourceNetworkId
        // the wall clock well past validUntil + the grace (600 s); the cursor stored just now
        yield* TestClock.setTime((validUntil + 3600) * 1000)
        const cursor = (blockTimestamp: number) => ({
          networkId,
          blockNumber: 100n,
          blockHash: `0x${"ab".repeat(32)}`,
          blockTimestamp,
          updatedAt: (validUntil + 3600) * 1000
        })
        // the newest block read is stamped before validUntil: a fill may still come
        yield* store.saveChainCursor(cursor(validUntil - 1))
        assert.isUndefined((yield* store.chainCursor(networkId))?.finalBlockTimestamp)
        assert.strictEqual(yield* observer.expireDue, 0)
        assert.strictEqual((yield* stateOf(envelope.permit.fillId)).state, "ISSUED")
        // read past it: expired
        yield* store.saveChainCursor(cursor(validUntil))
        assert.strictEqual(yield* observer.expireDue, 1)
        assert.strictEqual((yield* stateOf(envelope.permit.fillId)).state, "EXPIRED")
      })
    )
  })
})
