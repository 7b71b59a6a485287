/**
 * The chain settlement runner over an in-memory chain (a unit-test fake of the
 * connector's Chain contract; the real chains run in packages/cli/test/Devnet.e2e.test.ts):
 * the lifecycle from a source fill to PAID, a mismatching fill, a reorganised fill,
 * the durable cursor, and expiry held back while the watcher is behind.
 */
import { assert, describe, it } from "@effect/vitest"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import * as Signature from "@svc/protocol/Signature"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import type * as Chain from "../src/Chain.ts"
import * as ChainSettlement from "../src/ChainSettlement.ts"
import { Connector } from "../src/index.ts"
import { Permits } from "../src/Permits.ts"
import { Publisher } from "../src/Publisher.ts"
import { SettlementObserver } from "../src/Settlement.ts"
import { Store } from "../src/Store.ts"
import { evm, makeEngine, PAYER_KEY } from "./support/engine.ts"

const payer = Signature.addressOf(PAYER_KEY)
const recipient = "0x2222222222222222222222222222222222222222"

/** A chain in memory: blocks with hashes, logs by block, transactions and the vault's payouts. */
const fakeChain = () => {
  const state = {
    head: 100n,
    /** a suffix changes every block hash from a height on (a reorganisation) */
    fork: new Map<bigint, string>(),
    fills: [] as Array<Chain.SourceFill>,
    included: new Map<string, bigint>(),
    sent: [] as Array<Chain.SignedPayout>,
    paid: new Map<string, string>(),
    nonce: 0
  }
  const hashOf = (n: bigint) => `0x${n.toString(16).padStart(60, "0")}${state.fork.get(n) ?? "0000"}`
  const blockOf = (n: bigint): Chain.Block => ({ number: n, hash: hashOf(n), timestamp: Number(n) - 100 })
  const reader: Chain.ChainReader = {
    head: Effect.sync(() => blockOf(state.head)),
    block: (n) => Effect.sync(() => (n <= state.head ? blockOf(n) : null)),
    sourceFills: (from, to) =>
      Effect.sync(() => state.fills.filter((f) => f.blockNumber >= from && f.blockNumber <= to)),
    inclusion: (hash) =>
      Effect.sync((): Chain.Inclusion => {
        const at = state.included.get(hash)
        if (at !== undefined) return { _tag: "Included", blockNumber: at, blockHash: hashOf(at), success: true }
        return state.sent.some((s) => s.txHash === hash) ? { _tag: "Pending" } : { _tag: "Missing" }
      })
  }
  const payerOf: Chain.ChainPayer = {
    sender: "0x00000000000000000000000000000000000000aa",
    sign: (order) =>
      Effect.sync((): Chain.PayoutPreparation =>
        state.paid.has(order.fillId) ? { _tag: "AlreadyPaid" } : {
          _tag: "Signed",
          payout: {
            txHash: `0x${"ab".repeat(30)}${(state.nonce++).toString(16).padStart(4, "0")}`,
            rawTransaction: `0xraw-${order.fillId}-${order.amountRaw}`,
            nonce: state.nonce - 1,
            sender: "0x00000000000000000000000000000000000000aa"
          }
        }
      ),
    send: (payout) =>
      Effect.sync(() => {
        state.sent.push(payout)
      }),
    findPayout: (fillId) => Effect.sync(() => (state.paid.has(fillId) ? { txHash: state.paid.get(fillId)! } : null)),
    balance: () => Effect.succeed(10n ** 30n)
  }
  return { state, chain: { reader, payer: payerOf } satisfies Chain.NetworkChain }
}

const setup = () => {
  const chain = fakeChain()
  const settling = Connector.make({
    ...evm,
    settlement: {
      network: (target) => Effect.succeed(target.native === "8453" || target.native === "56" ? chain.chain : null)
    }
  })
  const engine = makeEngine({ connectors: [settling], chainSettlement: { pollMillis: 0, initialLookbackBlocks: 10 } })
  return { ...chain, layer: engine.layer }
}

const issuePermit = Effect.gen(function*() {
  const publication = yield* (yield* Publisher).current
  const route = publication.routes.find((r) => r.open && r.sourceChainId === "8453" && r.destinationChainId === "56")!
  const request = {
    quoteId: route.quoteId,
    requestedAmountInRaw: route.minimumFillInRaw,
    payer,
    recipient,
    idempotencyKey: `key-${Math.random().toString(36).slice(2)}`
  }
  const message = PermitMessage.message(PermitMessage.normalize(request, { strict: false }))
  const issued = yield* (yield* Permits).create({
    ...request,
    requestSignature: PermitMessage.sign(message, PAYER_KEY)
  })
  return issued.envelope
})

const fillOf = (envelope: Effect.Success<typeof issuePermit>, block: bigint, overrides?: Partial<Chain.SourceFill>) => {
  const p = envelope.permit
  return {
    fillId: p.fillId,
    routeId: p.routeId,
    quoteId: p.quoteId,
    router: p.sourceRouter.toLowerCase(),
    payer: p.payer.toLowerCase(),
    recipient: p.recipient.toLowerCase(),
    sourceAsset: p.sourceAsset.toLowerCase(),
    destinationAsset: p.destinationAsset.toLowerCase(),
    destinationChainId: BigInt(p.destinationChainId),
    amountInRaw: BigInt(p.amountInRaw),
    amountOutRaw: BigInt(p.amountOutRaw),
    txHash: `0x${"5".repeat(62)}${block.toString(16).padStart(2, "0")}`,
    blockNumber: block,
    blockHash: "0x",
    ...overrides
  } satisfies Chain.SourceFill
}

const stateOf = (fillId: string) =>
  Effect.gen(function*() {
    const record = yield* (yield* Store).getPermit(fillId)
    return record!
  })

describe("ChainSettlement", () => {
  it.effect("a fill is observed, confirmed after its finality blocks, paid from an intent written first, and PAID once included", () => {
    const { layer, state } = setup()
    return Effect.gen(function*() {
      const settlement = yield* ChainSettlement.ChainSettlement
      const store = yield* Store
      const envelope = yield* issuePermit
      const fillId = envelope.permit.fillId
      state.head = 101n
      state.fills.push(fillOf(envelope, 101n))
      state.included.set(fillOf(envelope, 101n).txHash, 101n)
      yield* settlement.step
      assert.strictEqual((yield* stateOf(fillId)).state, "SOURCE_OBSERVED")
      // the cursor is durable: the next run starts after block 101
      const cursor = yield* store.chainCursor(envelope.permit.sourceNetworkId)
      assert.strictEqual(cursor?.blockNumber, 101n)
      // finality: sourceFinalityBlocks confirmations (the fill's block counts as one)
      const finality = BigInt(envelope.permit.sourceFinalityBlocks)
      state.head = 101n + finality - 2n
      yield* settlement.step
      assert.strictEqual((yield* stateOf(fillId)).state, "SOURCE_OBSERVED")
      state.head = 101n + finality - 1n
      yield* settlement.step
      // confirmed, then the payout pass of the same step signs, records the intent, submits and sends
      const submitted = yield* stateOf(fillId)
      assert.strictEqual(submitted.state, "PAYOUT_SUBMITTED")
      const intent = yield* store.payoutIntent(fillId)
      assert.strictEqual(intent?.txHash, submitted.payoutTxHash)
      assert.strictEqual(state.sent.length, 1)
      assert.strictEqual(state.sent[0]!.rawTransaction, `0xraw-${fillId}-${envelope.permit.amountOutRaw}`)
      // pending: nothing changes and nothing is sent again
      yield* settlement.step
      assert.strictEqual((yield* stateOf(fillId)).state, "PAYOUT_SUBMITTED")
      assert.strictEqual(state.sent.length, 1)
      // included and confirmed on the destination: PAID with that transaction
      state.included.set(intent!.txHash, state.head)
      state.paid.set(fillId, intent!.txHash)
      state.head += 5n
      yield* settlement.step
      const paid = yield* stateOf(fillId)
      assert.strictEqual(paid.state, "PAID")
      assert.strictEqual(paid.payoutTxHash, intent!.txHash)
      assert.strictEqual(state.sent.length, 1)
      const [stats] = (yield* settlement.networks).filter((n) => n.key === "base")
      assert.isTrue(stats!.watching && stats!.paying)
      assert.isAbove(stats!.chainCalls, 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a fill that does not match its permit is FAILED with the reasons and never paid", () => {
    const { layer, state } = setup()
    return Effect.gen(function*() {
      const settlement = yield* ChainSettlement.ChainSettlement
      const envelope = yield* issuePermit
      state.head = 101n
      state.fills.push(fillOf(envelope, 101n, { amountInRaw: 1n, payer: "0x" + "9".repeat(40) }))
      yield* settlement.step
      const failed = yield* stateOf(envelope.permit.fillId)
      assert.strictEqual(failed.state, "FAILED")
      assert.deepStrictEqual(failed.reasonCodes, [
        "SOURCE_FILL_MISMATCH",
        "SOURCE_FILL_PAYER_MISMATCH",
        "SOURCE_FILL_AMOUNT_IN_MISMATCH"
      ])
      state.head = 120n
      yield* settlement.step
      assert.strictEqual(state.sent.length, 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a fill whose transaction leaves the chain moves the permit back to ISSUED; a changed cursor block is read again", () => {
    const { layer, state } = setup()
    return Effect.gen(function*() {
      const settlement = yield* ChainSettlement.ChainSettlement
      const envelope = yield* issuePermit
      const fill = fillOf(envelope, 101n)
      state.head = 101n
      state.fills.push(fill)
      state.included.set(fill.txHash, 101n)
      yield* settlement.step
      assert.strictEqual((yield* stateOf(fill.fillId)).state, "SOURCE_OBSERVED")
      // block 101 is replaced: the fill is gone
      state.fork.set(101n, "beef")
      state.fills.length = 0
      state.included.delete(fill.txHash)
      yield* settlement.step
      const back = yield* stateOf(fill.fillId)
      assert.strictEqual(back.state, "ISSUED")
      assert.isNull(back.sourceTxHash)
      // the fill lands again in the new block 102: the watcher, reading below the changed cursor, sees it
      const again = fillOf(envelope, 102n)
      state.head = 102n
      state.fills.push(again)
      state.included.set(again.txHash, 102n)
      yield* settlement.step
      const observed = yield* stateOf(fill.fillId)
      assert.strictEqual(observed.state, "SOURCE_OBSERVED")
      assert.strictEqual(observed.sourceTxHash, again.txHash)
    }).pipe(Effect.provide(layer))
  })

  it.effect("an ISSUED permit on a watched network expires only once the watcher has read past validUntil", () => {
    const { layer, state } = setup()
    return Effect.gen(function*() {
      const settlement = yield* ChainSettlement.ChainSettlement
      const observer = yield* SettlementObserver
      const envelope = yield* issuePermit
      const validUntil = Number(envelope.permit.validUntil)
      state.head = 101n // block timestamps are height - 100: 1, below validUntil
      yield* settlement.step
      yield* TestClock.adjust("2 hours")
      assert.strictEqual(yield* observer.expireDue, 0)
      assert.strictEqual((yield* stateOf(envelope.permit.fillId)).state, "ISSUED")
      assert.isAbove(validUntil, 1)
      state.head = BigInt(validUntil + 100)
      yield* settlement.step
      assert.strictEqual(yield* observer.expireDue, 1)
      assert.strictEqual((yield* stateOf(envelope.permit.fillId)).state, "EXPIRED")
    }).pipe(Effect.provide(layer))
  })
})

describe("fillMismatches", () => {
  it("names every differing field", () => {
    const permit = {
      sourceRouter: "0xAA",
      payer: "0xbb",
      recipient: "0xcc",
      sourceAsset: "0xdd",
      destinationAsset: "0xee",
      destinationChainId: "56",
      amountInRaw: "10",
      amountOutRaw: "9",
      routeId: "0x01",
      quoteId: "0x02"
    }
    const fill: Chain.SourceFill = {
      fillId: "0x00",
      routeId: "0x01",
      quoteId: "0x02",
      router: "0xaa",
      payer: "0xbb",
      recipient: "0xcc",
      sourceAsset: "0xdd",
      destinationAsset: "0xee",
      destinationChainId: 56n,
      amountInRaw: 10n,
      amountOutRaw: 9n,
      txHash: "0x",
      blockNumber: 1n,
      blockHash: "0x"
    }
    assert.deepStrictEqual(ChainSettlement.fillMismatches(permit, fill), [])
    assert.deepStrictEqual(
      ChainSettlement.fillMismatches(permit, { ...fill, router: "0xab", destinationChainId: 8453n, amountOutRaw: 10n }),
      ["SOURCE_FILL_ROUTER_MISMATCH", "SOURCE_FILL_CHAIN_MISMATCH", "SOURCE_FILL_AMOUNT_OUT_MISMATCH"]
    )
  })
})
