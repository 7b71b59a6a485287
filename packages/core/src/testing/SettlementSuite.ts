/**
 * The settlement suite: the behaviours a connector's settlement primitives
 * (`Chain.ChainReader` and `Chain.ChainPayer`) must show for the core's payout
 * policy to be right on its chain: blocks and their hashes, the finalized block,
 * reorganised blocks and what they did to inclusion, inclusion states (pending,
 * included and successful, included and reverted, missing), nonces at the latest
 * block and with pending transactions, the fee market, the simulation on the
 * latest block (`Ok`, `AlreadyPaid`, `Reverts` with a decoded reason), sending
 * (an already known transaction, `NONCE_USED`, `UNDERPRICED`, `NO_GAS`),
 * `paidOut`, `findPayout`, the vault's and the payer's balances.
 *
 * A connector's tests give a {@link Harness}: its chain for a network, and the
 * controls of a test chain (mine, reorganise, set the base fee, fund or drain
 * the vault, spend a nonce, take the payer's gas). The reference is
 * `@svc/core/testing/ChainModel` (its harness is {@link modelHarness}); the EVM
 * connector passes the suite against anvil.
 *
 * ```ts
 * import { suite } from "@svc/core/testing/SettlementSuite"
 *
 * suite("my-chain", async () => myHarness(await startMyTestChain()))
 * ```
 *
 * Each check names one behaviour; `checks` lists them, so that a connector's
 * own tests can run a check against a deliberately broken implementation and see
 * it fail (the core's tests do that for every check).
 *
 * Needs vitest (an optional peer dependency of `@svc/core`).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, it } from "vitest"
import type * as Chain from "../Chain.ts"
import { ConnectorError } from "../Connector.ts"
import * as ChainModel from "./ChainModel.ts"

/**
 * A connector's chain for one network, and the controls of the test chain
 * behind it. The chain starts with automatic mining off: nothing is mined but
 * by `mine`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Harness {
  /** The connector's chain (its payer must be configured). */
  readonly chain: Chain.NetworkChain
  /** An asset the vault holds (its reference as the connector takes it) and a recipient of payouts. */
  readonly asset: string
  readonly recipient: string
  /** Blocks `finalized` trails the head by, or null when the chain has no finalized block. */
  readonly finalizedLag: number | null
  /** Mines `n` blocks (default 1) with what the pool allows. */
  readonly mine: (n?: number) => Promise<void>
  /** Replaces the newest `depth` blocks by as many new ones, dropping their transactions. */
  readonly reorg: (depth: number) => Promise<void>
  /** The base fee of the next block. */
  readonly setNextBaseFee: (wei: bigint) => Promise<void>
  /** Moves `amount` of the asset into the vault (mined with the next block). */
  readonly fundVault: (amount: bigint) => Promise<void>
  /** Takes everything out of the vault (mined with the next block). */
  readonly drainVault: () => Promise<void>
  /** Sends another transaction from the payer's account at its next nonce and mines it. */
  readonly useNonce: () => Promise<void>
  /** Sets the payer's native balance (what pays for gas). */
  readonly setPayerGas: (wei: bigint) => Promise<void>
  /** A fillId never paid on this chain. */
  readonly freshFillId: () => string
}

/**
 * One check of the suite.
 *
 * @category models
 * @since 0.1.0
 */
export interface Check {
  readonly name: string
  readonly run: (h: Harness) => Promise<void>
}

class CheckFailed extends Error {
  override readonly name = "SettlementSuiteCheckFailed"
}

const expect = (ok: boolean, message: string) => {
  if (!ok) throw new CheckFailed(message)
}

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect)

const failure = <A, E>(effect: Effect.Effect<A, E>): Promise<E | undefined> =>
  Effect.runPromise(Effect.match(effect, { onFailure: (e) => e, onSuccess: () => undefined }))

const payerOf = (h: Harness) => {
  const payer = h.chain.payer
  if (payer === null) throw new CheckFailed("the harness's chain has no payer")
  return payer
}

/** A payout order of a fresh fillId for `amount`. */
const orderOf = (h: Harness, amount = 1000n): Chain.PayoutOrder => ({
  fillId: h.freshFillId(),
  asset: h.asset,
  recipient: h.recipient,
  amountRaw: amount
})

/** Signs a payout at the next nonce with fees that the next block takes. */
const signNext = async (h: Harness, order: Chain.PayoutOrder, bump = 0n) => {
  const payer = payerOf(h)
  const nonces = await run(payer.nonces)
  const market = await run(payer.fees)
  const checked = await run(payer.check(order))
  const gas = checked._tag === "Ok" ? (checked.gas * 12n) / 10n : 200_000n
  const tip = market.priorityFeePerGas + 1n + bump
  return run(payer.sign(order, {
    nonce: nonces.pending,
    gas,
    maxFeePerGas: market.baseFeePerGas * 2n + tip,
    maxPriorityFeePerGas: tip
  }))
}

/**
 * The checks of the suite, by name.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks: ReadonlyArray<Check> = [
  {
    name:
      "blocks: the head advances by what is mined; a block's hash is the head's at its height; above the head there is none",
    run: async (h) => {
      const before = await run(h.chain.reader.head)
      await h.mine(2)
      const head = await run(h.chain.reader.head)
      expect(head.number === before.number + 2n, `head ${head.number} after mining 2 on ${before.number}`)
      const same = await run(h.chain.reader.block(head.number))
      expect(same?.hash === head.hash, "block(head) has the head's hash")
      expect(head.timestamp >= before.timestamp, "timestamps do not go back")
      expect((await run(h.chain.reader.block(head.number + 1n))) === null, "no block above the head")
    }
  },
  {
    name: "finalized: trails the head as the chain says, or is null on a chain without one",
    run: async (h) => {
      await h.mine(h.finalizedLag === null ? 1 : h.finalizedLag + 2)
      const head = await run(h.chain.reader.head)
      const finalized = await run(h.chain.reader.finalized)
      if (h.finalizedLag === null) return expect(finalized === null, "no finalized block")
      expect(finalized !== null, "a finalized block")
      expect(
        finalized!.number === head.number - BigInt(h.finalizedLag),
        `finalized ${finalized!.number}, head ${head.number}`
      )
      const block = await run(h.chain.reader.block(finalized!.number))
      expect(block?.hash === finalized!.hash, "the finalized block is the canonical block at its height")
    }
  },
  {
    name: "reorganisation: a replaced block has another hash, and a transaction it held is missing",
    run: async (h) => {
      const payer = payerOf(h)
      const signed = await signNext(h, orderOf(h))
      await run(payer.send(signed))
      await h.mine()
      const included = await run(h.chain.reader.inclusion(signed.txHash))
      expect(included._tag === "Included", `the payout is included (${included._tag})`)
      const block = (included as Extract<Chain.Inclusion, { _tag: "Included" }>).blockNumber
      const before = await run(h.chain.reader.block(block))
      await h.reorg(1)
      const after = await run(h.chain.reader.block(block))
      expect(after !== null && after.hash !== before!.hash, "the block at that height has another hash")
      const gone = await run(h.chain.reader.inclusion(signed.txHash))
      expect(gone._tag !== "Included", `the reorganised transaction is not included (${gone._tag})`)
    }
  },
  {
    name: "inclusion: pending once sent, included and successful once mined, missing when unknown",
    run: async (h) => {
      const payer = payerOf(h)
      const signed = await signNext(h, orderOf(h))
      const unknown = await run(h.chain.reader.inclusion(signed.txHash))
      expect(unknown._tag === "Missing", `a signed transaction not sent is missing (${unknown._tag})`)
      await run(payer.send(signed))
      const pending = await run(h.chain.reader.inclusion(signed.txHash))
      expect(pending._tag === "Pending", `a sent transaction is pending (${pending._tag})`)
      await h.mine()
      const included = await run(h.chain.reader.inclusion(signed.txHash))
      const head = await run(h.chain.reader.head)
      expect(
        included._tag === "Included" && included.success && included.blockNumber === head.number,
        `a mined payout is included and successful in the new head (${
          JSON.stringify(included, (_, v) => (typeof v === "bigint" ? String(v) : v))
        })`
      )
      const block = await run(h.chain.reader.block(head.number))
      expect(included._tag === "Included" && included.blockHash === block!.hash, "its block hash is the block's")
    }
  },
  {
    name: "inclusion: a payout mined and reverted (the vault drained first) is included and not successful",
    run: async (h) => {
      const payer = payerOf(h)
      const signed = await signNext(h, orderOf(h))
      await run(payer.send(signed))
      await h.drainVault()
      await h.mine()
      const included = await run(h.chain.reader.inclusion(signed.txHash))
      await h.fundVault(10n ** 24n)
      await h.mine()
      expect(included._tag === "Included" && !included.success, `reverted: included, not successful (${included._tag})`)
    }
  },
  {
    name: "nonces: pending counts the sent transactions, latest the mined ones",
    run: async (h) => {
      const payer = payerOf(h)
      const before = await run(payer.nonces)
      expect(before.pending >= before.latest, "pending is at least latest")
      const signed = await signNext(h, orderOf(h))
      expect(signed.nonce === before.pending, `signed at the nonce asked (${signed.nonce})`)
      await run(payer.send(signed))
      const sent = await run(payer.nonces)
      expect(
        sent.latest === before.latest && sent.pending === before.pending + 1,
        `after a send: ${JSON.stringify(sent)}`
      )
      await h.mine()
      const mined = await run(payer.nonces)
      expect(
        mined.latest === before.latest + 1 && mined.pending === mined.latest,
        `after mining: ${JSON.stringify(mined)}`
      )
    }
  },
  {
    name: "fees: the next block's base fee, and a fee cap at that base fee is taken",
    run: async (h) => {
      const payer = payerOf(h)
      await h.setNextBaseFee(3_000_000_000n)
      const market = await run(payer.fees)
      expect(market.baseFeePerGas === 3_000_000_000n, `base fee ${market.baseFeePerGas}, set 3 gwei`)
      expect(market.priorityFeePerGas >= 0n, "a priority fee")
      const signed = await signNext(h, orderOf(h))
      await run(payer.send(signed))
      await h.mine()
      const included = await run(h.chain.reader.inclusion(signed.txHash))
      expect(included._tag === "Included" && included.success, "a payout with the market's fees is mined")
    }
  },
  {
    name:
      "check: Ok with a gas estimate; Reverts with the decoded reason when the vault cannot pay; AlreadyPaid once paid",
    run: async (h) => {
      const payer = payerOf(h)
      const order = orderOf(h)
      const ok = await run(payer.check(order))
      expect(ok._tag === "Ok" && ok.gas > 0n, `a payable payout checks Ok (${ok._tag})`)
      const tooMuch = await run(payer.check({ ...order, amountRaw: 10n ** 30n }))
      expect(
        tooMuch._tag === "Reverts" && tooMuch.reason.length > 0 && !/^0x[0-9a-f]{8}$/i.test(tooMuch.reason),
        `a payout beyond the vault reverts with a decoded reason (${JSON.stringify(tooMuch)})`
      )
      const signed = await signNext(h, order)
      await run(payer.send(signed))
      // the check is on the latest block: a payout pending is not counted
      const pending = await run(payer.check(order))
      expect(pending._tag === "Ok", `a payout only pending does not make the fill paid (${pending._tag})`)
      await h.mine()
      const paid = await run(payer.check(order))
      expect(paid._tag === "AlreadyPaid", `a paid fillId checks AlreadyPaid (${paid._tag})`)
    }
  },
  {
    name: "send: the same transaction again succeeds; a used nonce is NONCE_USED",
    run: async (h) => {
      const payer = payerOf(h)
      const signed = await signNext(h, orderOf(h))
      await run(payer.send(signed))
      const again = await failure(payer.send(signed))
      expect(again === undefined, `sending a known transaction again succeeds (${String(again)})`)
      await h.mine()
      const stale = await run(payer.sign(orderOf(h), {
        nonce: signed.nonce,
        gas: 200_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n
      }))
      const used = await failure(payer.send(stale))
      expect(used instanceof ConnectorError && used.code === "NONCE_USED", `a mined nonce: ${String(used)}`)
    }
  },
  {
    name: "send: a replacement that does not pay more, and a fee cap under the base fee, are UNDERPRICED",
    run: async (h) => {
      const payer = payerOf(h)
      const order = orderOf(h)
      const first = await signNext(h, order, 10n ** 9n)
      await run(payer.send(first))
      const cheaper = await run(payer.sign(orderOf(h), {
        nonce: first.nonce,
        gas: 200_000n,
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 1n
      }))
      const refused = await failure(payer.send(cheaper))
      expect(
        refused instanceof ConnectorError && refused.code === "UNDERPRICED",
        `a cheaper replacement: ${String(refused)}`
      )
      await h.mine()
      await h.setNextBaseFee(50_000_000_000n)
      const nonces = await run(payer.nonces)
      const low = await run(payer.sign(orderOf(h), {
        nonce: nonces.pending,
        gas: 200_000n,
        maxFeePerGas: 1_000_000_000n,
        maxPriorityFeePerGas: 1n
      }))
      const under = await failure(payer.send(low))
      expect(
        under instanceof ConnectorError && under.code === "UNDERPRICED",
        `a fee cap under the base fee: ${String(under)}`
      )
      await h.setNextBaseFee(1_000_000_000n)
      await h.mine()
    }
  },
  {
    name: "send: without gas on the payer's account it is NO_GAS; gasBalance says so",
    run: async (h) => {
      const payer = payerOf(h)
      const before = await run(payer.gasBalance)
      await h.setPayerGas(0n)
      expect((await run(payer.gasBalance)) === 0n, "gasBalance reads the payer's balance")
      const signed = await signNext(h, orderOf(h))
      const refused = await failure(payer.send(signed))
      await h.setPayerGas(before)
      expect(refused instanceof ConnectorError && refused.code === "NO_GAS", `no gas: ${String(refused)}`)
    }
  },
  {
    name: "paidOut, findPayout and balance follow a mined payout",
    run: async (h) => {
      const payer = payerOf(h)
      const order = orderOf(h, 12_345n)
      expect(!(await run(payer.paidOut(order.fillId))), "not paid before")
      expect((await run(payer.findPayout(order.fillId))) === null, "no payout found before")
      const before = await run(payer.balance(h.asset))
      const gasBefore = await run(payer.gasBalance)
      const signed = await signNext(h, order)
      await run(payer.send(signed))
      await h.mine()
      expect(await run(payer.paidOut(order.fillId)), "paid after")
      const found = await run(payer.findPayout(order.fillId))
      expect(found?.txHash === signed.txHash.toLowerCase(), `the payout found is the one sent (${found?.txHash})`)
      expect((await run(payer.balance(h.asset))) === before - 12_345n, "the vault's balance went down by the amount")
      expect((await run(payer.gasBalance)) < gasBefore, "the payer paid for gas")
    }
  },
  {
    name: "nonces: a nonce spent by another transaction of the key counts as mined",
    run: async (h) => {
      const payer = payerOf(h)
      const before = await run(payer.nonces)
      await h.useNonce()
      const after = await run(payer.nonces)
      expect(after.latest === before.latest + 1, `latest ${before.latest} -> ${after.latest}`)
    }
  }
]

/**
 * Registers the suite for a harness (one harness for the whole suite; the
 * checks run in order on it).
 *
 * @category testing
 * @since 0.1.0
 */
export const suite = (
  name: string,
  make: () => Promise<Harness & { readonly close?: (() => Promise<void>) | undefined }>,
  options?: { readonly timeout?: number | undefined }
): void => {
  describe(`Settlement suite: ${name}`, () => {
    let harness: (Harness & { readonly close?: (() => Promise<void>) | undefined }) | undefined
    beforeAll(async () => {
      harness = await make()
    }, options?.timeout ?? 120_000)
    afterAll(async () => {
      await harness?.close?.()
    })
    for (const check of checks) {
      it(check.name, () => check.run(harness!), options?.timeout ?? 60_000)
    }
  })
}

/**
 * The harness of a chain model (the suite's reference): a fresh model with a
 * vault holding the asset, its operator funded, automatic mining off.
 *
 * @category testing
 * @since 0.1.0
 */
export const modelHarness = (
  options?: Partial<ChainModel.ChainModelOptions>
): Harness & { readonly model: ChainModel.ChainModel } => {
  const operator = "0x00000000000000000000000000000000000000aa"
  const asset = "0x00000000000000000000000000000000000000a5"
  const model = ChainModel.make({
    chainId: 31337,
    vault: "0x00000000000000000000000000000000000000f1",
    operator,
    ...options
  })
  model.deposit(asset, 10n ** 24n)
  model.mine()
  let fills = 0
  return {
    model,
    chain: model.chain,
    asset,
    recipient: "0x2222222222222222222222222222222222222222",
    finalizedLag: options?.finalizedLag === undefined ? 2 : options.finalizedLag,
    mine: async (n = 1) => model.mine(n),
    reorg: async (depth) => model.reorg(depth),
    setNextBaseFee: async (wei) => model.setBaseFee(wei),
    fundVault: async (amount) => {
      model.deposit(asset, amount)
    },
    drainVault: async () => {
      model.withdraw(asset, model.vaultBalance(asset))
    },
    useNonce: async () => model.useNonce(),
    setPayerGas: async (wei) => {
      const now = model.nativeBalance(operator)
      if (wei > now) model.fund(operator, wei - now)
      else model.fund(operator, wei - now)
      model.mine()
    },
    freshFillId: () => `0x${(++fills).toString(16).padStart(64, "0")}`
  }
}
