import { assert, describe, it } from "@effect/vitest"
import { fc, test as fcTest } from "@fast-check/vitest"
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as PermitAbi from "@svc/protocol/PermitAbi"
import * as PermitDigest from "@svc/protocol/PermitDigest"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import {
  AGGREGATOR_ERRORS,
  AggregatorBuildSignatureRequired,
  AggregatorBuildTransaction,
  AggregatorChains,
  type AggregatorErrorCode,
  AggregatorHealth,
  AggregatorManifest,
  AggregatorQuote,
  type AggregatorQuoteRequest,
  AggregatorStatus,
  AggregatorStatusList,
  AggregatorTokens
} from "@svc/protocol/schema/Aggregator"
import { strictParseOptions } from "@svc/protocol/schema/index"
import * as Signature from "@svc/protocol/Signature"
import { Effect, Exit, Layer, Redacted, Result, Schema, Tracer } from "effect"
import { TestClock } from "effect/testing"
import * as Aggregator from "../src/Aggregator.ts"
import * as Pricing from "../src/Pricing.ts"
import { Publisher } from "../src/Publisher.ts"
import { SettlementObserver } from "../src/Settlement.ts"
import type * as Solver from "../src/Solver.ts"
import { Store } from "../src/Store.ts"
import { AUTHORITY_KEY, demoCatalog, makeEngine, PAYER_KEY } from "./support/engine.ts"

const SECRET = "svc-test-server-secret-0123456789abcdef"
const payer = Signature.addressOf(PAYER_KEY)
const authority = Signature.addressOf(AUTHORITY_KEY)
const recipient = "0x2222222222222222222222222222222222222222"
const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
const USDT_BSC = "0x55d398326f99059fF775485246999027B3197955"
const USDT0_HYPER = "0xB8CE59FC3717ada4C02eaDF9682A9e934F625ebb"
const ZERO = "0x0000000000000000000000000000000000000000"

const makeAggregator = (
  options?: Partial<Solver.SolverOptions>,
  parts?: Solver.SolverParts,
  aggregator?: Partial<Aggregator.AggregatorOptions>
) =>
  Aggregator.layer({ publicUrl: "http://svc.test", ...aggregator }).pipe(
    Layer.provideMerge(Layer.merge(makeEngine(options, parts).layer, Aggregator.layerSecret(Redacted.make(SECRET))))
  )

/** A pricing whose fresh amountOut is scaled by a mutable factor (the published terms do not move). */
const movablePricing = () => {
  const factor = { num: 1n, den: 1n }
  const base = Pricing.makeStatic()
  const layer = Layer.succeed(Pricing.Pricing, {
    ...base,
    quote: (route, amount) =>
      Effect.map(base.quote(route, amount), (q) => ({ ...q, amountOutRaw: (q.amountOutRaw * factor.num) / factor.den }))
  })
  return { factor, layer }
}

/** The address with the case of its first hex letter flipped: a wrong EIP-55 checksum. */
const badChecksum = (address: string) => {
  const i = address.slice(2).search(/[a-fA-F]/) + 2
  const c = address[i]!
  return `${address.slice(0, i)}${c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()}${address.slice(i + 1)}`
}

const baseToBsc = (amountIn: string, extra?: Partial<AggregatorQuoteRequest>): AggregatorQuoteRequest => ({
  fromChainId: 8453,
  toChainId: 56,
  fromToken: USDC_BASE,
  toToken: USDT_BSC,
  amountIn,
  userAddress: payer,
  ...extra
})

const is = <S extends Schema.Decoder<unknown>>(schema: S, value: unknown) => {
  const decoded = Schema.decodeUnknownResult(schema)(value, strictParseOptions)
  assert.isTrue(Result.isSuccess(decoded), Result.isFailure(decoded) ? decoded.failure.message : "")
}

/** The failure of an effect, checked to be a well-formed AggregatorError of `code`. */
const refused = <A, R>(
  effect: Effect.Effect<A, Aggregator.AggregatorFailure, R>,
  code: AggregatorErrorCode,
  reason?: string
) =>
  Effect.gen(function*() {
    const f = yield* Effect.flip(effect)
    assert.strictEqual(f.code, code, f.message)
    assert.isTrue((f.reasonCodes ?? []).every((c) => /^[A-Z][A-Z0-9_]*$/.test(c)), String(f.reasonCodes))
    if (reason !== undefined) assert.include(f.reasonCodes ?? [], reason)
    // what the wire will say of it (the server sends the table's action and retryable)
    return {
      failure: f,
      message: f.message,
      retryAfterSeconds: f.retryAfterSeconds,
      action: AGGREGATOR_ERRORS[f.code].action,
      retryable: AGGREGATOR_ERRORS[f.code].retryable
    }
  })

const stage2 = (q: AggregatorQuote, key: string, signer = PAYER_KEY, extra?: Record<string, unknown>) =>
  Effect.gen(function*() {
    const aggregator = yield* Aggregator.Aggregator
    const request = {
      quoteToken: q.quoteToken,
      quoteId: q.quoteId,
      routeId: q.routeId,
      userAddress: Signature.addressOf(signer),
      idempotencyKey: key,
      ...extra
    }
    const first = yield* aggregator.build(request)
    assert.isTrue(first.signatureRequired)
    const message = (first as AggregatorBuildSignatureRequired).signingPayload.message
    const second = yield* aggregator.build({ ...request, requestSignature: PermitMessage.sign(message, signer) })
    assert.isFalse(second.signatureRequired)
    return {
      first: first as AggregatorBuildSignatureRequired,
      second: second as AggregatorBuildTransaction,
      request,
      message
    }
  })

describe("quote", () => {
  it.effect("an open L1 route, fresh amount-bound pricing, a verifiable token, stored until expiry", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      const q = yield* aggregator.quote(baseToBsc("5000000", { recipient }))
      is(AggregatorQuote, q)
      // 5 USDC at 1e12 raw per raw less 5 bps
      assert.strictEqual(q.amountOut, Pricing.linearAmountOut(5_000_000n, 10n ** 12n, 1n, 5).toString())
      assert.strictEqual(q.amountOut, "4997500000000000000")
      assert.strictEqual(q.fromTokenDecimals, 6)
      assert.strictEqual(q.toTokenDecimals, 18)
      assert.strictEqual(q.userAddress, payer)
      assert.strictEqual(q.recipient, recipient)
      assert.deepStrictEqual(q.fees, { serviceFeeBps: 5, feeMode: "FEE_INCLUDED_IN_OUTPUT", external: [] })
      // earliest of route (86400), feed (300) and the 60 s validity of the fresh price computed at 0
      assert.strictEqual(q.expiresAt, 60)
      const publication = yield* (yield* Publisher).current
      const route = publication.routes.find((r) => r.routeId === q.routeId)!
      assert.strictEqual(route.publicationLane, "L1")
      assert.strictEqual(q.quoteId, route.quoteId)
      assert.strictEqual(q.sourceRouter, route.sourceRouter)
      assert.strictEqual(q.dataVersion, publication.dataVersion.toString())
      // the token is HMAC-SHA256 over the canonical quote without its token
      const { quoteToken, ...rest } = q
      const expected = bytesToHex(
        hmac(
          sha256,
          new TextEncoder().encode(SECRET),
          new TextEncoder().encode(`SVC_AGGREGATOR_QUOTE_TOKEN_V1\n${CanonicalJson.stringify(rest)}`)
        )
      )
      assert.strictEqual(quoteToken, expected)
      const stored = yield* (yield* Store).getQuote(quoteToken)
      assert.isDefined(stored)
      assert.strictEqual(stored!.expiresAt, 60)
      assert.deepStrictEqual(JSON.parse(stored!.body), q)
      // recipient defaults to userAddress; a price-only quote has neither
      const own = yield* aggregator.quote(baseToBsc("5000000"))
      assert.strictEqual(own.recipient, payer)
      assert.notStrictEqual(own.quoteToken, q.quoteToken)
      const anonymous = yield* aggregator.quote({
        fromChainId: 8453,
        toChainId: 56,
        fromToken: USDC_BASE,
        toToken: USDT_BSC,
        amountIn: "5000000"
      })
      assert.isNull(anonymous.userAddress)
      assert.isNull(anonymous.recipient)
      // a pinned routeId of the pair gives the same quote
      const pinned = yield* aggregator.quote(baseToBsc("5000000", { recipient, routeId: q.routeId }))
      assert.strictEqual(pinned.quoteToken, q.quoteToken)
    }).pipe(Effect.provide(makeAggregator())))

  it.effect("refusals with their codes", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      yield* refused(
        aggregator.quote(baseToBsc("5000000", { fromChainId: 1 })),
        "UNSUPPORTED_CHAIN",
        "FROM_CHAIN_UNSUPPORTED"
      )
      yield* refused(
        aggregator.quote(baseToBsc("5000000", { toChainId: 10 })),
        "UNSUPPORTED_CHAIN",
        "TO_CHAIN_UNSUPPORTED"
      )
      yield* refused(
        aggregator.quote(baseToBsc("5000000", { fromToken: USDT_BSC })),
        "UNSUPPORTED_TOKEN",
        "FROM_TOKEN_UNSUPPORTED"
      )
      yield* refused(
        aggregator.quote(baseToBsc("5000000", { toToken: USDC_BASE })),
        "UNSUPPORTED_TOKEN",
        "TO_TOKEN_UNSUPPORTED"
      )
      // bsc USDT -> hyperevm USDT0 is an L2 route: never quoted
      const l2 = yield* refused(
        aggregator.quote({
          fromChainId: 56,
          toChainId: 999,
          fromToken: USDT_BSC,
          toToken: USDT0_HYPER,
          amountIn: "1000000000000000000"
        }),
        "NO_ROUTE",
        "NO_L1_ROUTE"
      )
      assert.strictEqual(l2.action, "NONE")
      const other = (yield* aggregator.quote({
        fromChainId: 8453,
        toChainId: 999,
        fromToken: USDC_BASE,
        toToken: USDT0_HYPER,
        amountIn: "1000000"
      })).routeId
      yield* refused(aggregator.quote(baseToBsc("5000000", { routeId: other })), "NO_ROUTE", "ROUTE_ID_NOT_FOR_PAIR")
      const low = yield* refused(aggregator.quote(baseToBsc("999999")), "AMOUNT_TOO_LOW", "BELOW_MINIMUM_FILL")
      assert.strictEqual(low.action, "FIX_REQUEST")
      assert.match(low.message, /1000000/)
      yield* refused(aggregator.quote(baseToBsc("250000000001")), "AMOUNT_TOO_HIGH", "ABOVE_MAX_AVAILABLE")
      yield* refused(
        aggregator.quote(baseToBsc("5000000", { userAddress: badChecksum(payer) })),
        "INVALID_REQUEST",
        "USER_ADDRESS_CHECKSUM_INVALID"
      )
      // every address form passes when it has no mixed-case checksum
      const lower = yield* aggregator.quote(
        baseToBsc("5000000", { fromToken: USDC_BASE.toLowerCase(), userAddress: payer.toLowerCase() })
      )
      assert.strictEqual(lower.fromToken, USDC_BASE)
      assert.strictEqual(lower.userAddress, payer)
    }).pipe(Effect.provide(makeAggregator())))

  it("ranks candidates by amountOut, then publicationRank, then routeId", () => {
    const route = (routeId: string, publicationRank: number) => ({ routeId, publicationRank }) as never
    const ranked = Aggregator.rankCandidates([
      { route: route("0x03", 0), amountOut: 10n },
      { route: route("0x02", 1), amountOut: 12n },
      { route: route("0x01", 1), amountOut: 12n },
      { route: route("0x04", 0), amountOut: 12n }
    ])
    assert.deepStrictEqual(ranked.map((c) => (c.route as { routeId: string }).routeId), [
      "0x04",
      "0x01",
      "0x02",
      "0x03"
    ])
  })
})

describe("build", () => {
  it.effect("hold share: 50 throwaway signers from one client building the route's maximum leave half the capacity", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      const publisher = yield* Publisher
      const probe = yield* aggregator.quote(baseToBsc("5000000"))
      const capacity = Effect.map(
        publisher.current,
        (p) => BigInt(p.routes.find((r) => r.routeId === probe.routeId)!.maxAvailableInRaw)
      )
      const before = yield* capacity
      let refusedCount = 0
      for (let i = 0; i < 50; i++) {
        const signer = `0x${(i + 2000).toString(16).padStart(64, "0")}` as const
        const q = yield* aggregator.quote(
          baseToBsc((yield* capacity).toString(), { userAddress: Signature.addressOf(signer), recipient })
        )
        const request = {
          quoteToken: q.quoteToken,
          quoteId: q.quoteId,
          routeId: q.routeId,
          userAddress: Signature.addressOf(signer),
          idempotencyKey: `hold-share-${i}`
        }
        const first =
          (yield* aggregator.build(request, { clientKey: "203.0.113.7" })) as AggregatorBuildSignatureRequired
        const signed = { ...request, requestSignature: PermitMessage.sign(first.signingPayload.message, signer) }
        const exit = yield* Effect.exit(aggregator.build(signed, { clientKey: "203.0.113.7" }))
        if (Exit.isFailure(exit)) {
          const f = yield* Effect.flip(aggregator.build(signed, { clientKey: "203.0.113.7" }))
          assert.strictEqual(f.code, "INSUFFICIENT_CAPACITY", f.message)
          refusedCount++
        }
        yield* publisher.refresh
      }
      assert.isAbove(refusedCount, 40, "the client's share ran out after a few builds")
      const after = yield* capacity
      assert.isTrue(after * 2n >= before, `${after} of ${before} left`)
      // another client still builds
      const q = yield* aggregator.quote(baseToBsc("5000000", { recipient }))
      const other = yield* stage2(q, "share-other-1")
      assert.isFalse(other.second.signatureRequired)
    }).pipe(Effect.provide(makeAggregator())))

  it.effect("stage 1 message, stage 2 calldata binding every amount, idempotent replay", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      const q = yield* aggregator.quote(baseToBsc("7000000", { recipient }))
      const { first, message, request, second } = yield* stage2(q, "agg-build-0001")
      is(AggregatorBuildSignatureRequired, first)
      is(AggregatorBuildTransaction, second)
      assert.deepStrictEqual(first.quote, q)
      assert.strictEqual(first.expiresAt, q.expiresAt)
      assert.deepStrictEqual(first.signingPayload, {
        message,
        standard: "DIRECT",
        encoding: "EIP191_PERSONAL_SIGN_UTF8"
      })
      assert.strictEqual(
        message,
        PermitMessage.build({
          quoteId: q.quoteId,
          requestedAmountInRaw: q.amountIn,
          standard: "DIRECT",
          payer,
          recipient,
          idempotencyKey: "agg-build-0001"
        })
      )
      // the transaction
      assert.strictEqual(second.chainId, 8453)
      assert.strictEqual(second.from, payer)
      assert.strictEqual(second.target, q.sourceRouter)
      assert.strictEqual(second.value, "0")
      assert.deepStrictEqual(second.approval, { spender: q.sourceRouter, amount: "7000000" })
      assert.strictEqual(second.quoteId, q.quoteId)
      assert.strictEqual(second.routeId, q.routeId)
      assert.strictEqual(second.expiresAt, second.permit.expiresAt)
      const { permit, signature } = PermitAbi.decodeFillDirect(second.data)
      assert.strictEqual(signature, second.permit.permitSignature)
      assert.strictEqual(permit.amountInRaw, q.amountIn)
      assert.strictEqual(permit.amountOutRaw, q.amountOut)
      assert.strictEqual(permit.payer, payer)
      assert.strictEqual(permit.recipient, recipient)
      assert.strictEqual(permit.quoteId, q.quoteId)
      assert.strictEqual(permit.fillId, second.fillId)
      assert.strictEqual(permit.sourceAsset, USDC_BASE)
      assert.strictEqual(permit.destinationAsset, USDT_BSC)
      // signed by the authority
      const recovered = Signature.recoverDigestSigner(
        PermitDigest.digest(second.permit.permit),
        second.permit.permitSignature
      )
      assert.isTrue(Result.isSuccess(recovered) && recovered.success === authority)
      // replay: the same fillId, no second permit
      const again = yield* aggregator.build({ ...request, requestSignature: PermitMessage.sign(message, PAYER_KEY) })
      assert.isFalse(again.signatureRequired)
      assert.strictEqual((again as AggregatorBuildTransaction).fillId, second.fillId)
      const permits = yield* (yield* Store).listPermits({ quoteId: q.quoteId.toLowerCase(), limit: 20 })
      assert.strictEqual(permits.filter((p) => p.payerAddress === payer.toLowerCase()).length, 1)
      // stage 1 again still answers the same message
      const repeat = yield* aggregator.build(request)
      assert.strictEqual((repeat as AggregatorBuildSignatureRequired).signingPayload.message, message)
    }).pipe(Effect.provide(makeAggregator())))

  it.effect("refusals: unknown or mismatched quotes, identities, signatures, idempotency", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      const q = yield* aggregator.quote(baseToBsc("5000000"))
      const base = {
        quoteToken: q.quoteToken,
        quoteId: q.quoteId,
        routeId: q.routeId,
        userAddress: payer,
        idempotencyKey: "agg-refuse-001"
      }
      yield* refused(aggregator.build({ ...base, quoteToken: "ab".repeat(32) }), "QUOTE_NOT_FOUND")
      const other = yield* aggregator.quote({
        fromChainId: 8453,
        toChainId: 999,
        fromToken: USDC_BASE,
        toToken: USDT0_HYPER,
        amountIn: "1000000"
      })
      yield* refused(aggregator.build({ ...base, quoteId: other.quoteId }), "QUOTE_NOT_FOUND")
      yield* refused(aggregator.build({ ...base, routeId: other.routeId }), "QUOTE_NOT_FOUND")
      yield* refused(aggregator.build({ ...base, userAddress: recipient }), "INVALID_REQUEST", "USER_ADDRESS_MISMATCH")
      yield* refused(aggregator.build({ ...base, recipient }), "INVALID_REQUEST", "RECIPIENT_MISMATCH")
      // a stored body altered behind the token is not found
      const store = yield* Store
      const stored = (yield* store.getQuote(q.quoteToken))!
      yield* store.saveQuote({
        ...stored,
        body: JSON.stringify({ ...q, amountOut: (BigInt(q.amountOut) + 1n).toString() })
      })
      yield* refused(aggregator.build(base), "QUOTE_NOT_FOUND")
      yield* store.saveQuote(stored)
      // a signature by another key
      const first = (yield* aggregator.build(base)) as AggregatorBuildSignatureRequired
      const wrongKey = `0x${"42".repeat(32)}` as const
      const bad = yield* refused(
        aggregator.build({ ...base, requestSignature: PermitMessage.sign(first.signingPayload.message, wrongKey) }),
        "SIGNATURE_INVALID"
      )
      assert.strictEqual(bad.action, "FIX_REQUEST")
      // the key bound to one intent cannot be reused for another
      yield* stage2(q, "agg-refuse-002")
      const q2 = yield* aggregator.quote(baseToBsc("6000000"))
      yield* refused(
        aggregator.build({
          quoteToken: q2.quoteToken,
          quoteId: q2.quoteId,
          routeId: q2.routeId,
          userAddress: payer,
          idempotencyKey: "agg-refuse-002"
        }),
        "IDEMPOTENCY_CONFLICT"
      )
    }).pipe(Effect.provide(makeAggregator())))

  it.effect("expiry: 410 QUOTE_EXPIRED with REFRESH_QUOTE; a built permit still replays", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      const built = yield* aggregator.quote(baseToBsc("5000000"))
      const { request, second, message } = yield* stage2(built, "agg-expiry-01")
      const q = yield* aggregator.quote(baseToBsc("8000000"))
      assert.strictEqual(q.expiresAt, 60)
      yield* TestClock.adjust("59 seconds")
      assert.deepStrictEqual(yield* aggregator.status({ by: "quoteToken", value: q.quoteToken }), {
        quoteValid: true,
        quoteError: null
      })
      yield* TestClock.adjust("1 second")
      const expired = yield* refused(
        aggregator.build({
          quoteToken: q.quoteToken,
          quoteId: q.quoteId,
          routeId: q.routeId,
          userAddress: payer,
          idempotencyKey: "agg-expiry-02"
        }),
        "QUOTE_EXPIRED"
      )
      assert.strictEqual(expired.action, "REFRESH_QUOTE")
      assert.isTrue(expired.retryable)
      assert.deepStrictEqual(yield* aggregator.status({ by: "quoteToken", value: q.quoteToken }), {
        quoteValid: false,
        quoteError: "QUOTE_EXPIRED"
      })
      const replay = yield* aggregator.build({ ...request, requestSignature: PermitMessage.sign(message, PAYER_KEY) })
      assert.strictEqual((replay as AggregatorBuildTransaction).fillId, second.fillId)
      // a fresh quote works again, for one full price validity
      const fresh = yield* aggregator.quote(baseToBsc("8000000"))
      assert.strictEqual(fresh.expiresAt, 120)
    }).pipe(Effect.provide(makeAggregator())))

  it.effect("a configured quote TTL caps expiresAt", () =>
    Effect.gen(function*() {
      const q = yield* (yield* Aggregator.Aggregator).quote(baseToBsc("5000000"))
      assert.strictEqual(q.expiresAt, 5)
    }).pipe(Effect.provide(makeAggregator(undefined, undefined, { quoteTtlSeconds: 5 }))))

  const moved = movablePricing()
  it.effect("a moved price: 409 QUOTE_CHANGED; a better price still issues the quoted amount", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      moved.factor.num = 1n
      moved.factor.den = 1n
      const q = yield* aggregator.quote(baseToBsc("5000000"))
      moved.factor.num = 999n
      moved.factor.den = 1000n
      const status = yield* aggregator.status({ by: "quoteToken", value: q.quoteToken })
      assert.deepStrictEqual(status, { quoteValid: false, quoteError: "QUOTE_CHANGED" })
      const changed = yield* refused(stage2(q, "agg-moved-0001"), "QUOTE_CHANGED", "PRICE_MOVED")
      assert.strictEqual(changed.action, "REFRESH_QUOTE")
      moved.factor.num = 1001n
      const { second } = yield* stage2(q, "agg-moved-0002")
      assert.strictEqual(second.permit.permit.amountOutRaw, q.amountOut)
      moved.factor.num = 1n
    }).pipe(Effect.provide(makeAggregator(undefined, { pricing: moved.layer }))))

  it.effect("a closed route: 410 ROUTE_CLOSED, no longer quoted or listed", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      const q = yield* aggregator.quote(baseToBsc("5000000"))
      yield* (yield* Store).setRouteOverride(q.routeId, { executionStatus: "PAUSED" })
      yield* (yield* Publisher).publishNow
      const closed = yield* refused(
        aggregator.build({
          quoteToken: q.quoteToken,
          quoteId: q.quoteId,
          routeId: q.routeId,
          userAddress: payer,
          idempotencyKey: "agg-closed-001"
        }),
        "ROUTE_CLOSED",
        "ROUTE_NOT_OPEN"
      )
      assert.strictEqual(closed.action, "REFRESH_QUOTE")
      assert.deepStrictEqual(yield* aggregator.status({ by: "quoteToken", value: q.quoteToken }), {
        quoteValid: false,
        quoteError: "ROUTE_CLOSED"
      })
      yield* refused(aggregator.quote(baseToBsc("5000000")), "NO_ROUTE", "ROUTE_NOT_OPEN")
      const chains = (yield* aggregator.chains).value
      assert.isFalse(chains.routes.some((r) => r.routeId === q.routeId))
      assert.strictEqual((yield* aggregator.health).openRouteCount, 3)
    }).pipe(Effect.provide(makeAggregator())))

  const nativeCatalog = (() => {
    const c = structuredClone(demoCatalog) as { routes: Array<Record<string, unknown>> }
    const eth = c.routes.find((r) => r.source === "eth.base")!
    eth.publicationLane = "L1"
    eth.executionStatus = "OPEN"
    return c
  })()
  it.effect("native coin input: value = amountIn and no approval", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      const q = yield* aggregator.quote({
        fromChainId: 8453,
        toChainId: 56,
        fromToken: ZERO,
        toToken: USDT_BSC,
        amountIn: "2000000000000000",
        userAddress: payer
      })
      const { second } = yield* stage2(q, "agg-native-001")
      assert.strictEqual(second.value, "2000000000000000")
      assert.isNull(second.approval)
      assert.strictEqual(PermitAbi.decodeFillDirect(second.data).permit.amountInRaw, "2000000000000000")
    }).pipe(Effect.provide(makeAggregator({ catalog: nativeCatalog }))))
})

describe("status", () => {
  for (const [setting, refused] of [["address", ["quoteId"]], ["none", ["quoteId", "userAddress"]]] as const) {
    it.effect(`statusLists ${setting}: ${refused.join(" and ")} lists are refused (400 STATUS_LIST_DISABLED); single fills answer`, () =>
      Effect.gen(function*() {
        const aggregator = yield* Aggregator.Aggregator
        const q = yield* aggregator.quote(baseToBsc("5000000", { recipient }))
        const { second } = yield* stage2(q, `agg-privacy-${setting}`)
        for (const by of ["quoteId", "userAddress"] as const) {
          const lookup = { by, value: by === "quoteId" ? q.quoteId : payer.toLowerCase() }
          const exit = yield* Effect.exit(aggregator.status(lookup))
          if ((refused as ReadonlyArray<string>).includes(by)) {
            assert.isTrue(Exit.isFailure(exit), by)
            const error = yield* Effect.flip(aggregator.status(lookup))
            assert.strictEqual(error.code, "INVALID_REQUEST")
            assert.deepStrictEqual(error.reasonCodes, ["STATUS_LIST_DISABLED"])
          } else {
            assert.isTrue(Exit.isSuccess(exit), by)
          }
        }
        const one = (yield* aggregator.status({ by: "fillId", value: second.fillId })) as AggregatorStatus
        assert.strictEqual(one.fillId, second.fillId)
      }).pipe(Effect.provide(makeAggregator(undefined, undefined, { statusLists: setting }))))
  }

  it.effect("fillId, sourceTxHash, quoteId, userAddress and quoteToken agree through the lifecycle", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      const observer = yield* SettlementObserver
      const q = yield* aggregator.quote(baseToBsc("5000000", { recipient }))
      const { second } = yield* stage2(q, "agg-status-001")
      const one = (yield* aggregator.status({
        by: "fillId",
        value: second.fillId.toUpperCase().replace("0X", "0x")
      })) as AggregatorStatus
      is(AggregatorStatus, one)
      assert.deepStrictEqual(one, {
        fillId: second.fillId,
        quoteId: q.quoteId,
        routeId: q.routeId,
        status: "PERMITTED",
        terminal: false,
        sourceTxHash: null,
        payoutTxHash: null,
        amountIn: q.amountIn,
        amountOut: q.amountOut,
        fromChainId: 8453,
        toChainId: 56,
        userAddress: payer,
        recipient,
        expiresAt: second.expiresAt,
        updatedAt: 0
      })
      for (
        const lookup of [{ by: "quoteId", value: q.quoteId }, {
          by: "userAddress",
          value: payer.toLowerCase()
        }] as const
      ) {
        const list = yield* aggregator.status(lookup)
        is(AggregatorStatusList, list)
        assert.deepStrictEqual((list as AggregatorStatusList).transactions, [one as AggregatorStatus])
        assert.strictEqual((list as AggregatorStatusList).limit, 20)
      }
      const byUser =
        (yield* aggregator.status({ by: "userAddress", value: payer.toLowerCase() })) as AggregatorStatusList
      assert.deepStrictEqual(byUser.lookup, {
        by: "userAddress",
        value: payer
      })
      assert.deepStrictEqual(yield* aggregator.status({ by: "quoteToken", value: q.quoteToken }), {
        quoteValid: true,
        quoteError: null
      })
      const tx = `0x${"ab".repeat(32)}`
      yield* TestClock.adjust("3 seconds")
      yield* observer.sourceObserved(second.fillId, tx)
      const observed = (yield* aggregator.status({
        by: "sourceTxHash",
        value: tx.toUpperCase().replace("0X", "0x")
      })) as AggregatorStatus
      assert.strictEqual(observed.status, "SOURCE_SUBMITTED")
      assert.strictEqual(observed.sourceTxHash, tx)
      assert.strictEqual(observed.updatedAt, 3)
      yield* observer.sourceConfirmed(second.fillId)
      assert.strictEqual(
        ((yield* aggregator.status({ by: "fillId", value: second.fillId })) as AggregatorStatus).status,
        "SOURCE_CONFIRMED"
      )
      yield* observer.payoutSubmitted(second.fillId, `0x${"cd".repeat(32)}`)
      assert.strictEqual(
        ((yield* aggregator.status({ by: "fillId", value: second.fillId })) as AggregatorStatus).status,
        "PAYOUT_PENDING"
      )
      yield* observer.paid(second.fillId)
      const paid = (yield* aggregator.status({ by: "fillId", value: second.fillId })) as AggregatorStatus
      assert.strictEqual(paid.status, "COMPLETED")
      assert.isTrue(paid.terminal)
      assert.strictEqual(paid.payoutTxHash, `0x${"cd".repeat(32)}`)
      // unknown lookups
      yield* refused(aggregator.status({ by: "fillId", value: `0x${"01".repeat(32)}` }), "FILL_NOT_FOUND")
      yield* refused(aggregator.status({ by: "sourceTxHash", value: `0x${"02".repeat(32)}` }), "FILL_NOT_FOUND")
      const none = (yield* aggregator.status({ by: "quoteId", value: `0x${"03".repeat(32)}` })) as AggregatorStatusList
      assert.deepStrictEqual(none.transactions, [])
      assert.deepStrictEqual(yield* aggregator.status({ by: "quoteToken", value: "0".repeat(64) }), {
        quoteValid: false,
        quoteError: "QUOTE_NOT_FOUND"
      })
    }).pipe(Effect.provide(makeAggregator())))

  it.effect("at most 20 fills, newest first", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      const q = yield* aggregator.quote(baseToBsc("1000000"))
      const fills: Array<string> = []
      for (let i = 0; i < 22; i++) {
        yield* TestClock.adjust("1 millis")
        fills.push((yield* stage2(q, `agg-list-${String(i).padStart(4, "0")}`)).second.fillId)
      }
      const list = (yield* aggregator.status({ by: "userAddress", value: payer })) as AggregatorStatusList
      assert.strictEqual(list.transactions.length, 20)
      assert.deepStrictEqual(list.transactions.map((t) => t.fillId), fills.reverse().slice(0, 20))
    }).pipe(Effect.provide(makeAggregator())))

  it("statusLookupOf: exactly one well-formed lookup", () => {
    const code = (params: Record<string, string>) => {
      const r = Aggregator.statusLookupOf(params)
      return Result.isSuccess(r) ? r.success.by : r.failure.reasonCodes?.[0]
    }
    assert.strictEqual(code({}), "LOOKUP_MISSING")
    assert.strictEqual(code({ fillId: `0x${"aa".repeat(32)}`, quoteId: `0x${"aa".repeat(32)}` }), "LOOKUP_AMBIGUOUS")
    assert.strictEqual(code({ fillId: "0x1234" }), "FILL_ID_INVALID")
    assert.strictEqual(code({ sourceTxHash: "nope" }), "SOURCE_TX_HASH_INVALID")
    assert.strictEqual(code({ quoteToken: "AB".repeat(32) }), "QUOTE_TOKEN_INVALID")
    assert.strictEqual(code({ userAddress: badChecksum(payer) }), "USER_ADDRESS_INVALID")
    assert.strictEqual(code({ userAddress: payer }), "userAddress")
    assert.strictEqual(code({ quoteToken: "ab".repeat(32) }), "quoteToken")
  })

  const lookupNames = ["fillId", "sourceTxHash", "quoteId", "userAddress", "quoteToken"] as const
  const lookupValue = fc.oneof(
    fc.string(),
    fc.stringMatching(/^0x[0-9a-f]{64}$/),
    fc.stringMatching(/^[0-9a-f]{64}$/),
    fc.stringMatching(/^0x[0-9a-f]{40}$/)
  )
  fcTest.prop([fc.dictionary(fc.constantFrom(...lookupNames), lookupValue)], { numRuns: 300 })(
    "statusLookupOf never throws and accepts only one well-formed parameter",
    (params) => {
      const r = Aggregator.statusLookupOf(params)
      const names = Object.keys(params)
      if (Result.isSuccess(r)) {
        assert.strictEqual(names.length, 1)
        assert.strictEqual(r.success.by, names[0])
      } else {
        assert.strictEqual(r.failure.code, "INVALID_REQUEST")
        assert.isAbove(r.failure.message.length, 0)
      }
    }
  )
})

describe("chains, tokens, health, manifest", () => {
  it.effect("chains list the open L1 pairs, spreadable into a quote request", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      const { value: chains, version } = yield* aggregator.chains
      is(AggregatorChains, chains)
      const publication = yield* (yield* Publisher).current
      assert.strictEqual(version, `${publication.dataVersion}-${publication.feedHash.slice(2, 18)}`)
      assert.deepStrictEqual(chains.chains.map((c) => [c.chainId, c.key]), [[8453, "base"], [56, "bsc"], [
        999,
        "hyperevm"
      ]])
      const openL1 = publication.routes.filter((r) => r.open && r.publicationLane === "L1")
      assert.strictEqual(chains.pairs.length, openL1.length)
      assert.strictEqual(chains.routes.length, 4)
      for (const [i, pair] of chains.pairs.entries()) {
        const route = chains.routes[i]!
        const signed = publication.routes.find((r) => r.routeId === pair.routeId)!
        assert.strictEqual(route.maxAvailableInRaw, signed.maxAvailableInRaw)
        assert.strictEqual(route.minimumFillInRaw, signed.minimumFillInRaw)
        assert.strictEqual(route.quoteId, signed.quoteId)
        const q = yield* aggregator.quote({ ...pair, amountIn: route.minimumFillInRaw })
        assert.strictEqual(q.routeId, pair.routeId)
      }
      assert.strictEqual((yield* aggregator.chains).value, chains, "cached per publication")
      const all = (yield* aggregator.tokens()).value
      is(AggregatorTokens, all)
      assert.strictEqual(all.tokens.length, 5)
      assert.isTrue(all.tokens.some((t) => t.native && t.chainId === 8453 && t.address === ZERO))
      const bsc = (yield* aggregator.tokens(56)).value
      assert.deepStrictEqual(bsc.tokens.map((t) => t.symbol), ["USDT", "USDC"])
      yield* refused(aggregator.tokens(1), "UNSUPPORTED_CHAIN")
      const health = yield* aggregator.health
      is(AggregatorHealth, health)
      assert.deepStrictEqual(health, {
        status: "OK",
        publicationOpen: true,
        dataVersion: publication.dataVersion.toString(),
        feedValidUntil: publication.validUntil,
        openRouteCount: 4,
        checkedAt: 0
      })
      is(AggregatorManifest, aggregator.manifest)
      assert.strictEqual(aggregator.manifest.endpoints.quote, "http://svc.test/v1/quote")
      assert.strictEqual(aggregator.manifest.feedSigner, authority)
      assert.deepStrictEqual(aggregator.manifest.rateLimits, {
        scope: "CLIENT",
        windowSeconds: 60,
        requestsPerWindow: 120,
        quoteAndBuildPerWindow: 20
      })
    }).pipe(Effect.provide(makeAggregator())))

  it.effect("closed publication: 503 SERVICE_UNAVAILABLE and health UNAVAILABLE", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      yield* (yield* Store).setPaused(true, "maintenance")
      yield* (yield* Publisher).refresh
      const closed = yield* refused(aggregator.quote(baseToBsc("5000000")), "SERVICE_UNAVAILABLE", "PUBLICATION_CLOSED")
      assert.strictEqual(closed.action, "RETRY_LATER")
      assert.strictEqual(closed.retryAfterSeconds, 30)
      yield* refused(aggregator.chains, "SERVICE_UNAVAILABLE")
      const health = yield* aggregator.health
      assert.strictEqual(health.status, "UNAVAILABLE")
      assert.isFalse(health.publicationOpen)
      assert.isNotNull(health.dataVersion)
      assert.strictEqual(health.openRouteCount, 0)
    }).pipe(Effect.provide(makeAggregator())))

  it.effect("a failing store: 503, never a defect", () =>
    Effect.gen(function*() {
      const aggregator = yield* Aggregator.Aggregator
      const q = yield* aggregator.quote(baseToBsc("5000000"))
      engine.control.failing = true
      yield* refused(aggregator.quote(baseToBsc("5000000")), "SERVICE_UNAVAILABLE", "STORE_UNAVAILABLE")
      yield* refused(aggregator.status({ by: "fillId", value: `0x${"01".repeat(32)}` }), "SERVICE_UNAVAILABLE")
      yield* refused(
        aggregator.build({
          quoteToken: q.quoteToken,
          quoteId: q.quoteId,
          routeId: q.routeId,
          userAddress: payer,
          idempotencyKey: "agg-store-0001"
        }),
        "SERVICE_UNAVAILABLE"
      )
      engine.control.failing = false
    }).pipe(Effect.provide(failingLayer)))
})

const engine = makeEngine()
const failingLayer = Aggregator.layer({ publicUrl: "http://svc.test" }).pipe(
  Layer.provideMerge(Layer.merge(engine.layer, Aggregator.layerSecret(Redacted.make(SECRET))))
)

describe("server secret", () => {
  it.effect("a configured secret shorter than 32 characters is refused", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(Aggregator.layerSecret(Redacted.make("short"))).pipe(Effect.scoped))
      assert.strictEqual(error._tag, "ServerSecretUnavailable")
    }))
})

/** A tracer that records each span as `name < parent name` (`name` alone at the root). */
const recordingTracer = () => {
  const spans: Array<string> = []
  const tracer = Tracer.make({
    span(options) {
      const parent = options.parent._tag === "Some" && options.parent.value._tag === "Span"
        ? options.parent.value.name
        : undefined
      spans.push(parent === undefined ? options.name : `${options.name} < ${parent}`)
      return Tracer.nativeTracer.span(options)
    }
  })
  return { spans, traced: <A, E, R>(effect: Effect.Effect<A, E, R>) => effect.pipe(Effect.withTracer(tracer)) }
}

describe("tracing", () => {
  it.effect("every operation runs in a span named after it", () =>
    Effect.gen(function*() {
      const { spans, traced } = recordingTracer()
      const names = spans
      const aggregator = yield* Aggregator.Aggregator
      const q = yield* traced(aggregator.quote(baseToBsc("5000000")))
      yield* traced(
        aggregator.build({
          quoteToken: q.quoteToken,
          quoteId: q.quoteId,
          routeId: q.routeId,
          userAddress: payer,
          idempotencyKey: "agg-span-0001"
        })
      )
      yield* traced(aggregator.status({ by: "quoteToken", value: q.quoteToken }))
      yield* traced(aggregator.chains)
      yield* traced(aggregator.tokens(8453))
      yield* traced(aggregator.health)
      assert.deepStrictEqual(names.filter((n) => n.startsWith("Aggregator.") && !n.includes(" < ")), [
        "Aggregator.quote",
        "Aggregator.build",
        "Aggregator.status",
        "Aggregator.chains",
        "Aggregator.tokens",
        "Aggregator.health"
      ])
    }).pipe(Effect.provide(makeAggregator())))

  // (the SQL stores' operations add their own spans under these, SqliteStore.issuePermit under Permits.mint)
  it.effect("a permit's path through the aggregator is one tree of spans, from the build to the signed permit", () =>
    Effect.gen(function*() {
      const { spans, traced } = recordingTracer()
      const aggregator = yield* Aggregator.Aggregator
      const q = yield* traced(aggregator.quote(baseToBsc("5000000")))
      spans.length = 0
      yield* traced(stage2(q, "agg-span-path-0001"))
      const path = spans.filter((s) => /^(Aggregator|Permits)\./.test(s))
      for (
        const span of [
          // stage 1: the message to sign
          "Aggregator.signingStage < Aggregator.build",
          "Aggregator.quoteProblem < Aggregator.signingStage",
          "Permits.requestMessage < Aggregator.signingStage",
          "Permits.validate < Permits.requestMessage",
          // stage 2: the permit
          "Aggregator.transactionStage < Aggregator.build",
          "Permits.create < Aggregator.transactionStage",
          "Permits.lookup < Permits.create",
          "Permits.issue < Permits.create",
          "Permits.validate < Permits.issue",
          "Permits.verifyProof < Permits.issue",
          "Permits.mint < Permits.issue",
          "Permits.sign < Permits.mint"
        ]
      ) assert.include(path, span, path.join("\n"))
    }).pipe(Effect.provide(makeAggregator())))
})
