/**
 * The chain model's own behaviour beyond what the settlement runner's tests
 * drive: an RPC that answers as of an older head (a fixed lag, or a lag drawn
 * per request), blocks stamped by a given clock, reorganisations undone from
 * the blocks' own changes, the record of each block's transactions.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChainModel from "../src/testing/ChainModel.ts"

const ROUTER = "0x2af7d059e5efdbe1d2a234b78df91e948ee22ee2"
const VAULT = "0x3d025a6376164aace132294b942203f1b22462cf"
const OPERATOR = "0x00000000000000000000000000000000000000aa"
const TOKEN = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"
const RECIPIENT = "0x2222222222222222222222222222222222222222"

const model = (options?: Partial<ChainModel.ChainModelOptions>) =>
  ChainModel.make({ chainId: 8453, router: ROUTER, vault: VAULT, operator: OPERATOR, ...options })

const fill = (fillId: string): ChainModel.FillRequest => ({
  fillId,
  routeId: `0x${"01".repeat(32)}`,
  quoteId: `0x${"02".repeat(32)}`,
  payer: "0x1111111111111111111111111111111111111111",
  recipient: RECIPIENT,
  sourceAsset: TOKEN,
  destinationAsset: TOKEN,
  destinationChainId: 56n,
  amountInRaw: 10n,
  amountOutRaw: 9n,
  validAfter: 0,
  validUntil: 4_000_000_000
})

const id = (n: number) => `0x${n.toString(16).padStart(64, "0")}`

/** Signs and sends a payout of `amount` for `fillId` at `nonce`. */
const pay = (m: ChainModel.ChainModel, fillId: string, nonce: number, amount = 5n) =>
  Effect.gen(function*() {
    const order = { fillId, asset: TOKEN, recipient: RECIPIENT, amountRaw: amount }
    const signed = yield* m.chain.payer!.sign(order, {
      nonce,
      gas: 60_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n
    })
    yield* m.chain.payer!.send(signed)
    return signed.txHash
  })

describe("ChainModel", () => {
  it.effect("an RPC that lags answers as of an older head: blocks, fills, inclusion, the vault and nonces", () =>
    Effect.gen(function*() {
      const m = model()
      m.deposit(TOKEN, 100n)
      m.mine(3)
      const fillTx = m.submitFill(fill(id(1)))
      const payout = yield* pay(m, id(9), 0)
      m.mine()
      const head = m.head().number
      assert.strictEqual((yield* m.chain.reader.head).number, head)
      assert.strictEqual((yield* m.chain.reader.sourceFills(0n, head)).length, 1)
      m.rpcLag = 1
      assert.strictEqual((yield* m.chain.reader.head).number, head - 1n)
      assert.isNull(yield* m.chain.reader.block(head))
      // a node behind refuses logs beyond its head (not fewer logs), sees not the payout's effects, and its
      // transactions as pending
      assert.strictEqual((yield* Effect.flip(m.chain.reader.sourceFills(0n, head))).code, "RPC_UNAVAILABLE")
      assert.strictEqual((yield* m.chain.reader.sourceFills(0n, head - 1n)).length, 0)
      assert.strictEqual((yield* m.chain.reader.inclusion(fillTx))._tag, "Pending")
      assert.strictEqual(yield* m.chain.payer!.balance(TOKEN), 100n)
      assert.isFalse(yield* m.chain.payer!.paidOut(id(9)))
      assert.isNull(yield* m.chain.payer!.findPayout(id(9)))
      assert.deepStrictEqual(yield* m.chain.payer!.nonces, { latest: 0, pending: 1 })
      // the finalized block trails the answering head
      assert.strictEqual((yield* m.chain.reader.finalized)!.number, head - 3n)
      // drawn per request: consecutive answers disagree about the head
      const lags = [0, 1, 0]
      m.rpcLag = () => lags.shift() ?? 0
      const heads = [yield* m.chain.reader.head, yield* m.chain.reader.head, yield* m.chain.reader.head]
      assert.deepStrictEqual(heads.map((b) => b.number), [head, head - 1n, head])
      m.rpcLag = 0
      assert.strictEqual(yield* m.chain.payer!.balance(TOKEN), 95n)
      assert.deepStrictEqual(yield* m.chain.payer!.findPayout(id(9)), { txHash: payout })
    }))

  it.effect("a reorganisation undoes the removed blocks' changes and the records follow the canonical chain", () =>
    Effect.gen(function*() {
      const m = model()
      m.deposit(TOKEN, 100n)
      m.mine()
      const fillTx = m.submitFill(fill(id(1)))
      const payout = yield* pay(m, id(2), 0, 40n)
      m.mine()
      const records = m.transactionsAt(m.head().number)!
      assert.deepStrictEqual(records.map((r) => [r.kind, r.success, r.fillId]), [["fill", true, id(1)], [
        "payout",
        true,
        id(2)
      ]])
      assert.strictEqual(m.sourceFillOf(id(1))?.txHash, fillTx)
      assert.strictEqual(m.vaultBalance(TOKEN), 60n)
      m.reorg(1)
      assert.isUndefined(m.sourceFillOf(id(1)))
      assert.strictEqual(m.vaultBalance(TOKEN), 100n)
      assert.isFalse(m.paidOut(id(2)))
      assert.strictEqual(m.nonceOf(OPERATOR), 0)
      assert.deepStrictEqual(m.payoutsOf(id(2)), [])
      assert.strictEqual(m.inclusionOf(payout)._tag, "Missing")
      // kept: the same transactions land again in the new block
      m.reorg(1)
      const kept = model()
      kept.deposit(TOKEN, 100n)
      kept.mine()
      kept.submitFill(fill(id(1)))
      yield* pay(kept, id(2), 0, 40n)
      kept.mine()
      kept.reorg(1, { keep: true })
      assert.strictEqual(kept.vaultBalance(TOKEN), 60n)
      assert.strictEqual(kept.payoutsOf(id(2)).length, 1)
      assert.isDefined(kept.sourceFillOf(id(1)))
    }))

  it("blocks are stamped by the given clock, at least a second after their parent", () => {
    let now = 1_800_000_000
    const m = model({ genesisTimestamp: now - 10, clock: () => now })
    m.mine()
    assert.strictEqual(m.head().timestamp, now)
    m.mine()
    assert.strictEqual(m.head().timestamp, now + 1)
    now += 30
    m.mine()
    assert.strictEqual(m.head().timestamp, now)
    now -= 100 // a clock that went back: timestamps still increase
    m.mine()
    assert.strictEqual(m.head().timestamp, now + 101)
  })

  it("fund with a negative amount takes native coin, never below zero; the next base fee is readable", () => {
    const m = model({ operatorBalance: 1000n })
    m.fund(OPERATOR, -300n)
    m.mine()
    assert.strictEqual(m.nativeBalance(OPERATOR), 700n)
    m.fund(OPERATOR, -5000n)
    m.mine()
    assert.strictEqual(m.nativeBalance(OPERATOR), 0n)
    m.setBaseFee(7n)
    assert.strictEqual(m.baseFee(), 7n)
  })
})
