/**
 * Settlement bugs the simulation found (`npm run simulate`, docs/simulation.md),
 * each reduced to the chain models and the runner, as the seed showed it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as ChainSettlement from "../src/ChainSettlement.ts"
import { atChainTime, fillOf, issuePermit, setup, stateOf } from "./support/settlement.ts"

const step = Effect.flatMap(ChainSettlement.ChainSettlement, (s) => s.step)

/** Steps (mining on both chains after each step) until every permit is in `state`. */
const until = (s: ReturnType<typeof setup>, fillIds: ReadonlyArray<string>, state: string, max = 30) =>
  Effect.gen(function*() {
    for (let i = 0; i < max; i++) {
      yield* step
      const states = yield* Effect.forEach(fillIds, (id) => Effect.map(stateOf(id), (r) => r.state))
      if (states.every((x) => x === state)) return
      s.base.mine()
      s.bsc.mine()
    }
    return assert.fail(`not ${state} within ${max} steps`)
  })

/** A permit base -> bsc, filled and mined. */
const filled = (s: ReturnType<typeof setup>) =>
  Effect.gen(function*() {
    const envelope = yield* issuePermit("8453", "56")
    s.base.submitFill(fillOf(envelope))
    s.base.mine()
    return envelope.permit.fillId
  })

describe("ChainSettlement: found by the simulation", () => {
  it.effect("a fill whose first transaction a reorganisation removed and whose second one landed instead is observed and paid (seed 17)", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const envelope = yield* issuePermit()
        const fillId = envelope.permit.fillId
        // the payer sent its fill; it is mined and observed
        s.base.submitFill(fillOf(envelope))
        s.base.mine()
        yield* step
        assert.strictEqual((yield* stateOf(fillId)).state, "SOURCE_OBSERVED")
        // its block is replaced without it, and the payer's second attempt (another transaction) lands
        s.base.reorg(1)
        s.base.submitFill(fillOf(envelope))
        s.base.mine()
        // the watcher reads the new fill again from below its cursor before it finds the first one gone
        for (let i = 0; i < 20 && (yield* stateOf(fillId)).state !== "PAID"; i++) {
          yield* step
          s.base.mine()
          s.bsc.mine()
        }
        const record = yield* stateOf(fillId)
        assert.strictEqual(record.state, "PAID")
        assert.strictEqual(record.sourceTxHash, s.base.sourceFillOf(fillId)?.txHash)
        assert.strictEqual(s.bsc.payoutsOf(fillId).length, 1)
      })
    )
  })

  it.effect("where finality is a depth, the re-check of PAID payouts covers the newest ones on a busy network, not only the oldest batch (seed 1, 1000 fills)", () => {
    // a pass reads 2 permits of a state: the two oldest PAID permits would be all the re-check ever saw
    const s = setup({
      networks: { bsc: { finality: "depth" } },
      chainSettlement: { recheckMillis: 1000, batchSize: 2 }
    })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const older = [yield* filled(s), yield* filled(s)]
        yield* until(s, older, "PAID")
        s.bsc.mine(10)
        yield* TestClock.adjust("10 seconds")
        const newest = yield* filled(s)
        yield* until(s, [newest], "PAID")
        // 4 blocks deep (bsc confirms with 3): the newest payout leaves the chain, the vault has not paid it
        s.bsc.reorg(4)
        assert.isFalse(s.bsc.paidOut(newest))
        yield* TestClock.adjust("2 seconds")
        yield* step
        const reopened = yield* stateOf(newest)
        assert.strictEqual(reopened.state, "PAYOUT_SUBMITTED")
        assert.deepStrictEqual(reopened.reasonCodes, ["PAYOUT_LEFT_CHAIN"])
        yield* until(s, [newest], "PAID")
        assert.strictEqual(s.bsc.payoutsOf(newest).length, 1)
      })
    )
  })
})
