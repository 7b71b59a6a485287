/**
 * Settlement bugs the simulation found (`npm run simulate`, docs/simulation.md),
 * each reduced to the chain models and the runner, as the seed showed it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChainSettlement from "../src/ChainSettlement.ts"
import { atChainTime, fillOf, issuePermit, setup, stateOf } from "./support/settlement.ts"

const step = Effect.flatMap(ChainSettlement.ChainSettlement, (s) => s.step)

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
})
