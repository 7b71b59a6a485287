/**
 * Settlement bugs the simulation found (`npm run simulate`, docs/simulation.md),
 * each reduced to the chain models and the runner, as the seed showed it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import {
  atChainTime,
  filled,
  fillOf,
  inState,
  issuePermit,
  OPERATOR,
  setup,
  stateOf,
  step,
  stepUntil,
  TOKENS
} from "./support/settlement.ts"

/** Steps (mining on both chains after each step) until every permit is in `state`. */
const until = (s: ReturnType<typeof setup>, fillIds: ReadonlyArray<string>, state: string, max = 30) =>
  stepUntil(
    [s.base, s.bsc],
    Effect.map(Effect.forEach(fillIds, (id) => inState(id, state)), (all) => all.every(Boolean)),
    max
  )

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
        const older = [(yield* filled(s)).permit.fillId, (yield* filled(s)).permit.fillId]
        yield* until(s, older, "PAID")
        s.bsc.mine(10)
        yield* TestClock.adjust("10 seconds")
        const newest = (yield* filled(s)).permit.fillId
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

  it.effect("where finality is a depth, a reorganisation that removes the payouts of more PAID permits than a batch reopens every one of them (seed 1, 10,000 fills)", () => {
    // a pass reads 2 permits of a state: re-checking only the newest 2 PAID permits missed the older ones
    const s = setup({
      networks: { bsc: { finality: "depth" } },
      chainSettlement: { recheckMillis: 1000, batchSize: 2 }
    })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const from = s.bsc.head().number
        const fills: Array<string> = []
        for (let i = 0; i < 3; i++) {
          const batch = [(yield* filled(s)).permit.fillId, (yield* filled(s)).permit.fillId]
          yield* until(s, batch, "PAID")
          yield* TestClock.adjust("2 seconds")
          fills.push(...batch)
        }
        // every block since the first payout is replaced and its transactions dropped: no fill is paid any more
        s.bsc.reorg(Number(s.bsc.head().number - from))
        for (const fillId of fills) assert.isFalse(s.bsc.paidOut(fillId))
        // the network stays busy: before each re-check, two newer permits are PAID
        for (let i = 0; i < 4; i++) {
          const busy = [(yield* filled(s)).permit.fillId, (yield* filled(s)).permit.fillId]
          yield* until(s, busy, "PAID")
          yield* TestClock.adjust("2 seconds")
          yield* step
        }
        for (const fillId of fills) {
          // reopened, and paid again by now or still on its way: never PAID with nothing paid
          if ((yield* stateOf(fillId)).state === "PAID") assert.isTrue(s.bsc.paidOut(fillId), `${fillId} PAID, unpaid`)
        }
        yield* until(s, fills, "PAID")
        for (const fillId of fills) assert.strictEqual(s.bsc.payoutsOf(fillId).length, 1)
      })
    )
  })

  it.effect("where finality is a depth, a PAID payout found pending (a node behind its block, or back in the pool) is not reopened at once, and stays PAID once mined (seed 90)", () => {
    const s = setup({
      networks: { bsc: { finality: "depth" } },
      chainSettlement: { recheckMillis: 1000 }
    })
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const fillId = (yield* filled(s)).permit.fillId
        yield* until(s, [fillId], "PAID")
        // 4 blocks deep (bsc confirms with 3): the payout's block leaves the chain and its transaction waits in
        // the pool again (the base fee now above its fee cap), pending as a node behind its block answers too
        s.bsc.setBaseFee(10n ** 13n)
        s.bsc.reorg(4, { keep: true })
        assert.strictEqual(s.bsc.payoutsOf(fillId).length, 0)
        yield* TestClock.adjust("2 seconds")
        yield* step
        assert.strictEqual((yield* stateOf(fillId)).state, "PAID")
        // mined again before the next re-check: it stays PAID, paid once
        s.bsc.setBaseFee(10n ** 9n)
        s.bsc.mine()
        yield* TestClock.adjust("2 seconds")
        yield* step
        assert.strictEqual((yield* stateOf(fillId)).state, "PAID")
        assert.strictEqual(s.bsc.payoutsOf(fillId).length, 1)
      })
    )
  })

  it.effect("a reverted payout whose block a reorganisation removed is sent again: its nonce holds the permit's later attempt and every payout above it (seed 54)", () => {
    const s = setup()
    return atChainTime(
      s.layer,
      Effect.gen(function*() {
        const fillId = (yield* filled(s)).permit.fillId
        // observed, confirmed and sent; the payout waits in the pool
        for (let i = 0; i < 10 && (yield* stateOf(fillId)).state !== "PAYOUT_SUBMITTED"; i++) {
          yield* step
          s.base.mine()
        }
        assert.strictEqual((yield* stateOf(fillId)).state, "PAYOUT_SUBMITTED")
        const first = s.bsc.nonceOf(OPERATOR)
        // the node drops it and the vault is emptied meanwhile: sent again, the payout reverts
        const assets = [TOKENS["usdt.bsc"], TOKENS["usdc.bsc"]]
        s.bsc.dropTransaction(s.bsc.pool().find((tx) => tx.nonce === first)!.hash, { only: true })
        for (const asset of assets) s.bsc.withdraw(asset, s.bsc.vaultBalance(asset))
        s.bsc.mine()
        yield* step
        s.bsc.mine()
        assert.strictEqual(s.bsc.nonceOf(OPERATOR), first + 1)
        assert.strictEqual(s.bsc.payoutsOf(fillId).length, 0)
        for (const asset of assets) s.bsc.deposit(asset, 10n ** 24n)
        s.bsc.mine()
        // after the back-off, a second attempt at the next nonce; it waits in the pool
        for (let i = 0; i < 10 && !s.bsc.pool().some((tx) => tx.nonce === first + 1); i++) {
          yield* TestClock.adjust("6 seconds")
          yield* step
        }
        assert.isTrue(s.bsc.pool().some((tx) => tx.nonce === first + 1))
        // the blocks of the revert and of the top-up leave the chain: the reverted transaction's nonce is free
        // again, under the second attempt; the operator tops the vault up again
        s.bsc.reorg(2)
        assert.strictEqual(s.bsc.nonceOf(OPERATOR), first)
        for (const asset of assets) s.bsc.deposit(asset, 10n ** 24n)
        // the reverted transaction is sent again (it pays now), and the attempt above it is mined after it
        for (let i = 0; i < 20 && (yield* stateOf(fillId)).state !== "PAID"; i++) {
          yield* TestClock.adjust("2 seconds")
          yield* step
          s.base.mine()
          s.bsc.mine()
        }
        assert.strictEqual((yield* stateOf(fillId)).state, "PAID")
        assert.strictEqual(s.bsc.payoutsOf(fillId).length, 1)
        assert.isAtLeast(s.bsc.nonceOf(OPERATOR), first + 2)
      })
    )
  })
})
