/**
 * The settlement suite against its reference, the chain model; and every check
 * against a chain model broken in the one behaviour it names: each must fail
 * there (a check that cannot fail proves nothing).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type * as Chain from "../src/Chain.ts"
import { ConnectorError, ConnectorUnavailable } from "../src/Connector.ts"
import { checks, type Harness, modelHarness, suite } from "../src/testing/SettlementSuite.ts"

suite("chain model", async () => modelHarness())

suite("chain model without a finalized block", async () => modelHarness({ finalizedLag: null }))

type Break = (chain: Chain.NetworkChain) => Chain.NetworkChain

const reader = (f: (r: Chain.ChainReader) => Partial<Chain.ChainReader>): Break => (c) => ({
  ...c,
  reader: { ...c.reader, ...f(c.reader) }
})
const payer = (f: (p: Chain.ChainPayer) => Partial<Chain.ChainPayer>): Break => (c) => ({
  ...c,
  payer: { ...c.payer!, ...f(c.payer!) }
})
const unavailable = () => new ConnectorUnavailable({ code: "RPC_UNAVAILABLE", message: "broken (test)" })

/** A chain model broken in the behaviour each check names. */
const broken: Record<string, Break> = {
  "blocks: the head advances by what is mined; a block's hash is the head's at its height; above the head there is none":
    reader((r) => ({ block: (n) => r.block(n - 1n) })),
  "finalized: trails the head as the chain says, or is null on a chain without one": reader((r) => ({
    finalized: r.head
  })),
  "reorganisation: a replaced block has another hash, and a transaction it held is missing": reader((r) => {
    const seen = new Map<string, Chain.Inclusion>()
    return {
      inclusion: (hash) =>
        seen.has(hash)
          ? Effect.succeed(seen.get(hash)!)
          : Effect.tap(r.inclusion(hash), (i) => Effect.sync(() => i._tag === "Included" && seen.set(hash, i)))
    }
  }),
  "inclusion: pending once sent, included and successful once mined, missing when unknown": reader((r) => ({
    inclusion: (hash) => Effect.map(r.inclusion(hash), (i) => (i._tag === "Pending" ? { _tag: "Missing" as const } : i))
  })),
  "inclusion: a payout mined and reverted (the vault drained first) is included and not successful": reader((r) => ({
    inclusion: (hash) => Effect.map(r.inclusion(hash), (i) => (i._tag === "Included" ? { ...i, success: true } : i))
  })),
  "nonces: pending counts the sent transactions, latest the mined ones": payer((p) => ({
    nonces: Effect.map(p.nonces, (n) => ({ latest: n.latest, pending: n.latest }))
  })),
  "fees: the next block's base fee, and a fee cap at that base fee is taken": payer((p) => ({
    fees: Effect.map(p.fees, (f) => ({ ...f, baseFeePerGas: f.baseFeePerGas / 10n }))
  })),
  "check: Ok with a gas estimate; Reverts with the decoded reason when the vault cannot pay; AlreadyPaid once paid":
    payer((
      p
    ) => ({
      check: (order) =>
        Effect.map(
          p.check(order),
          (c) => (c._tag === "Reverts" ? { _tag: "Reverts" as const, reason: "0x2b596cb7" } : c)
        )
    })),
  "send: the same transaction again succeeds; a used nonce is NONCE_USED": payer((p) => {
    const sent = new Set<string>()
    return {
      send: (signed) =>
        sent.has(signed.txHash)
          ? Effect.fail(new ConnectorError({ code: "REJECTED", message: "already known (broken)" }))
          : Effect.tap(p.send(signed), () => Effect.sync(() => sent.add(signed.txHash)))
    }
  }),
  "send: a replacement that does not pay more, and a fee cap under the base fee, are UNDERPRICED": payer((p) => ({
    send: (signed) =>
      Effect.catchIf(
        p.send(signed),
        (e): e is ConnectorError => e instanceof ConnectorError && e.code === "UNDERPRICED",
        () => Effect.fail(unavailable())
      )
  })),
  "send: without gas on the payer's account it is NO_GAS; gasBalance says so": payer((p) => ({
    send: (signed) =>
      Effect.catchIf(
        p.send(signed),
        (e): e is ConnectorError => e instanceof ConnectorError && e.code === "NO_GAS",
        () => Effect.fail(unavailable())
      )
  })),
  "paidOut, findPayout and balance follow a mined payout": payer(() => ({ findPayout: () => Effect.succeed(null) })),
  "nonces: a nonce spent by another transaction of the key counts as mined": payer((p) => {
    let first: number | undefined
    return {
      nonces: Effect.map(p.nonces, (n) => {
        first ??= n.latest
        return { latest: first, pending: Math.max(first, n.pending) }
      })
    }
  })
}

describe("the settlement suite can fail", () => {
  it("every check has a broken chain model", () => {
    assert.deepStrictEqual(Object.keys(broken).sort(), checks.map((c) => c.name).sort())
  })

  for (const check of checks) {
    it(`fails on a chain model broken for: ${check.name}`, async () => {
      const h = modelHarness()
      const harness: Harness = { ...h, chain: broken[check.name]!(h.chain) }
      const outcome = await check.run(harness).then(() => "passed", (e: Error) => e.name)
      assert.strictEqual(outcome, "SettlementSuiteCheckFailed")
    })
  }
})
