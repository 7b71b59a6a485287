/**
 * Many addresses cannot drain an asset for free (issue #26, finding 2), over
 * real HTTP on a real server: throwaway keys, each from its own address (so
 * each within its own client and payer shares), hold together at most the
 * share of payers without a completed fill (`SVC_HOLD_SHARE_NEW_PAYERS_BPS`);
 * beyond it a first-time payer gets 409 `INSUFFICIENT_CAPACITY` with
 * `NEW_PAYERS_HOLD_SHARE`, while a payer with a completed fill is served, and
 * the route stays open.
 */
import { assert, layer } from "@effect/vitest"
import { Store } from "@svc/core"
import { Bytes, PermitMessage, Signature } from "@svc/protocol"
import { Effect } from "effect"
import { scaled } from "../../../test/support/time.ts"
import { baseUrl, serverLayer, testConfig } from "./support/server.ts"

const keyOf = (label: string) => Bytes.keccak(Bytes.utf8(`svc test key ${label}`))

const post = (base: string, body: string, localAddress: string) =>
  Effect.promise(async () => {
    const { request } = await import("node:http")
    const url = new URL(`${base}/api/v6/execution-permits`)
    return new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        localAddress,
        headers: { "content-type": "application/json" }
      }, (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (c: string) => (text += c))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
      })
      req.on("error", reject)
      req.end(body)
    })
  })

const permitRequest = (quoteId: string, amount: string, key: `0x${string}`, idempotencyKey: string) => {
  const request = {
    quoteId,
    requestedAmountInRaw: amount,
    payer: Signature.addressOf(key),
    recipient: "0x2222222222222222222222222222222222222222",
    idempotencyKey
  }
  return JSON.stringify({ ...request, requestSignature: PermitMessage.sign(PermitMessage.build(request), key) })
}

const feed = (base: string) =>
  Effect.promise(async () => (await (await fetch(`${base}/api/v6/solver-feed`)).json()) as any)

layer(serverLayer(testConfig({ holdShareNewPayersBps: 3000 })), { excludeTestServices: true, timeout: scaled(60_000) })(
  "the share of payers without a completed fill",
  (it) => {
    it.effect("throwaway keys from many addresses hold at most it together; a payer with a completed fill is served", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const store = yield* Store.Store
        // usdc.base -> usdt.bsc: 2,000,000 USDT of inventory, fills up to 250,000 USDC
        const route = (yield* feed(base)).feed.openRoutes.find((r: any) => r.publicationRank === 0)
        const tenth = "200000000000" // 200,000 USDC: about a tenth of the inventory

        // a payer that completed a fill earlier (walked to PAID, as settlement does)
        const proven = keyOf("proven")
        const first = yield* post(base, permitRequest(route.quoteId, "1000000", proven, "proven-first"), "127.0.0.120")
        assert.strictEqual(first.status, 201)
        let at = Date.now()
        for (const to of ["SOURCE_OBSERVED", "SOURCE_CONFIRMED", "PAYOUT_SUBMITTED", "PAID"] as const) {
          const moved = yield* store.transition({
            fillId: first.body.permit.fillId,
            to,
            at: at++,
            ...(to === "SOURCE_OBSERVED" ? { sourceTxHash: `0x${"aa".repeat(32)}` } : {}),
            ...(to === "PAYOUT_SUBMITTED" || to === "PAID" ? { payoutTxHash: `0x${"bb".repeat(32)}` } : {})
          })
          assert.strictEqual(moved._tag, "Applied")
        }

        // five throwaway keys, five addresses: each within its own client (25 %) and payer (50 %) shares
        const answers = []
        for (let i = 0; i < 5; i++) {
          answers.push(
            yield* post(
              base,
              permitRequest(route.quoteId, tenth, keyOf(`throwaway ${i}`), `throwaway-${i}`),
              `127.0.0.${121 + i}`
            )
          )
        }
        // three tenths fit in the 30 % of new payers (less the fee), the fourth would pass it
        assert.deepStrictEqual(answers.map((a) => a.status), [201, 201, 201, 409, 409])
        for (const refused of answers.slice(3)) {
          assert.strictEqual(refused.body.error, "INSUFFICIENT_CAPACITY")
          assert.deepStrictEqual(refused.body.reasonCodes, ["NEW_PAYERS_HOLD_SHARE"])
          // 30 % of the physical inventory: the configured 2,000,000 USDT less what was paid out
          const physical = 2_000_000n * 10n ** 18n - BigInt(first.body.permit.permit.amountOutRaw)
          assert.strictEqual(refused.body.diagnostics.limitRaw, (physical * 3000n / 10_000n).toString())
        }
        // a first-time payer is refused too, for more than the few hundred USDT left of the share...
        const newcomer = yield* post(
          base,
          permitRequest(route.quoteId, "1000000000", keyOf("first time"), "first-time-1"),
          "127.0.0.130"
        )
        assert.strictEqual(newcomer.status, 409)
        assert.deepStrictEqual(newcomer.body.reasonCodes, ["NEW_PAYERS_HOLD_SHARE"])
        // ...while the payer with a completed fill is served, and the route stays open
        const served = yield* post(base, permitRequest(route.quoteId, tenth, proven, "proven-second"), "127.0.0.120")
        assert.strictEqual(served.status, 201)
        const after = (yield* feed(base)).feed.routes.find((r: any) => r.routeId === route.routeId)
        assert.isTrue(after.open)
      }))
  }
)
