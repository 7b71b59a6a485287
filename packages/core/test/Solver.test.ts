import { assert, describe, it } from "@effect/vitest"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as FeedSignature from "@svc/protocol/FeedSignature"
import * as PermitDigest from "@svc/protocol/PermitDigest"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import { FeedResponse } from "@svc/protocol/schema/Feed"
import { strictParseOptions } from "@svc/protocol/schema/index"
import type { PermitCreateRequest } from "@svc/protocol/schema/Permit"
import * as Signature from "@svc/protocol/Signature"
import { Effect, Exit, Layer, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import type { PermitError, PermitErrorReason } from "../src/PermitError.ts"
import { Permits } from "../src/Permits.ts"
import * as Pricing from "../src/Pricing.ts"
import { Publisher } from "../src/Publisher.ts"
import { SettlementObserver } from "../src/Settlement.ts"
import { Store } from "../src/Store.ts"
import { AUTHORITY_KEY, makeEngine, PAYER_KEY } from "./support/engine.ts"

const payer = Signature.addressOf(PAYER_KEY)
const authority = Signature.addressOf(AUTHORITY_KEY)
const recipient = "0x2222222222222222222222222222222222222222"

const firstOpenRoute = Effect.gen(function*() {
  const publication = yield* (yield* Publisher).current
  const route = publication.routes.find((r) => r.open)!
  return { publication, route }
})

const signedRequest = (
  quoteId: string,
  amount: string,
  key = "idem-key-0001",
  overrides?: Partial<PermitCreateRequest>
) => {
  const request = { quoteId, requestedAmountInRaw: amount, payer, recipient, idempotencyKey: key, ...overrides }
  const message = PermitMessage.message(PermitMessage.normalize(request, { strict: false }))
  return { ...request, requestSignature: PermitMessage.sign(message, PAYER_KEY) } as PermitCreateRequest
}

/** The typed reason of a failed permit operation. */
const errorOf = <A>(exit: Exit.Exit<A, PermitError>): PermitErrorReason => {
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  const failure = (exit as Exit.Failure<A, PermitError>).cause
  const error = failure.reasons.find((r) => r._tag === "Fail")
  assert.isDefined(error, "expected a typed failure")
  return (error as { error: PermitError }).error.reason
}

describe("publisher", () => {
  it.effect("publishes a signed feed that verifies, with canonical bytes", () =>
    Effect.gen(function*() {
      const { publication } = yield* firstOpenRoute
      assert.strictEqual(publication.canonicalPayload, CanonicalJson.stringify(publication.payload))
      assert.strictEqual(publication.feedHash, FeedSignature.hash(publication.payload))
      const body = JSON.parse(new TextDecoder().decode(publication.fullView.body))
      const decoded = Schema.decodeUnknownResult(FeedResponse)(body, strictParseOptions)
      assert.isTrue(Result.isSuccess(decoded), Result.isFailure(decoded) ? decoded.failure.message : "")
      const verified = FeedSignature.verify(body.feed, { now: 1, expectedSigner: authority })
      assert.isTrue(Result.isSuccess(verified) && verified.success.valid)
      assert.strictEqual(body.feed.routeCount, 8)
      assert.strictEqual(
        body.feed.openRouteCount,
        6,
        "the ETH route starts PAUSED; no Solana connector is registered here"
      )
      assert.strictEqual(body.feed.publicationGasWei, "0")
      assert.match(publication.fullView.etag, /^W\/"1-[0-9a-f]{16}-all"$/)
      // ordering by lane, rank, routeId
      const lanes = publication.routes.map((r) => `${r.publicationLane}:${r.publicationRank}`)
      assert.deepStrictEqual(lanes, [...lanes].sort())
    }).pipe(Effect.provide(makeEngine().layer)))

  it.effect("filters reduce the views but never the signed payload", () =>
    Effect.gen(function*() {
      const { publication } = yield* firstOpenRoute
      const view = publication.view({ sourceChainId: "8453" })
      const body = JSON.parse(new TextDecoder().decode(view.body))
      assert.strictEqual(body.feed.signedPayload.routes.length, 8)
      assert.isTrue(body.feed.routes.every((r: { sourceChainId: string }) => r.sourceChainId === "8453"))
      assert.strictEqual(body.feed.returnedRouteCount, body.feed.routes.length)
      assert.notStrictEqual(view.etag, publication.fullView.etag)
      const none = JSON.parse(new TextDecoder().decode(publication.view({ sourceChainId: "1" }).body))
      assert.strictEqual(none.feed.returnedRouteCount, 0)
      assert.strictEqual(none.feed.routeCount, 8)
    }).pipe(Effect.provide(makeEngine().layer)))

  it.effect("dataVersion strictly increases", () =>
    Effect.gen(function*() {
      const publisher = yield* Publisher
      const a = yield* publisher.current
      const b = yield* publisher.publishNow
      const c = yield* publisher.publishNow
      assert.isTrue(a.dataVersion < b.dataVersion && b.dataVersion < c.dataVersion)
    }).pipe(Effect.provide(makeEngine().layer)))

  it.effect("an operator pause closes publication and a resume reopens it", () =>
    Effect.gen(function*() {
      const publisher = yield* Publisher
      const store = yield* Store
      yield* store.setPaused(true, "maintenance")
      const state = yield* publisher.refresh
      assert.strictEqual(state._tag, "Closed")
      const closed = yield* publisher.current.pipe(Effect.flip)
      assert.isTrue(closed.closed)
      yield* store.setPaused(false, null)
      assert.strictEqual((yield* publisher.refresh)._tag, "Open")
    }).pipe(Effect.provide(makeEngine().layer)))
})

describe("publisher refuses to sign an invalid payload", () => {
  const badPricing = Layer.succeed(Pricing.Pricing, {
    ...Pricing.makeStatic(),
    // a fee outside 0..10000 makes every route fail the Route schema
    indicative: (route) => Effect.map(Pricing.makeStatic().indicative(route), (t) => ({ ...t, serviceFeeBps: 20_000 }))
  })
  it.effect("no publication, a reason naming the schema failure, nothing signed", () =>
    Effect.gen(function*() {
      const publisher = yield* Publisher
      const state = yield* publisher.state
      assert.strictEqual(state._tag, "Unavailable")
      if (state._tag === "Unavailable") assert.match(state.reason, /fails its schema at routes\[0\]/)
      const error = yield* publisher.current.pipe(Effect.flip)
      assert.isFalse(error.closed)
    }).pipe(Effect.provide(makeEngine(undefined, { pricing: badPricing }).layer)))
})

describe("permits", () => {
  it.effect("request-message equals the library message; create gives 201 then an identical replay", () =>
    Effect.gen(function*() {
      const permits = yield* Permits
      const { route } = yield* firstOpenRoute
      const request = signedRequest(route.quoteId, route.minimumFillInRaw)
      const { requestSignature: _, ...unsigned } = request
      const message = yield* permits.requestMessage(unsigned)
      assert.strictEqual(message, PermitMessage.build(unsigned))
      const first = yield* permits.create(request)
      assert.isTrue(first.created)
      const envelope = first.envelope
      assert.strictEqual(envelope.state, "ISSUED")
      assert.strictEqual(envelope.permit.payer, payer)
      assert.strictEqual(envelope.permit.amountInRaw, route.minimumFillInRaw)
      assert.strictEqual(envelope.permitDigest, PermitDigest.digest(envelope.permit))
      assert.deepStrictEqual(
        PermitDigest.recoverSigner(envelope.permit, envelope.permitSignature),
        Result.succeed(authority)
      )
      const replay = yield* permits.create(request)
      assert.isFalse(replay.created)
      assert.deepStrictEqual(replay.envelope, envelope)
      assert.deepStrictEqual(yield* permits.get(envelope.fillId), envelope)
    }).pipe(Effect.provide(makeEngine().layer)))

  it.effect("the order of checks and their codes", () =>
    Effect.gen(function*() {
      const permits = yield* Permits
      const { route } = yield* firstOpenRoute
      const ok = signedRequest(route.quoteId, route.minimumFillInRaw, "idem-key-0002")
      yield* permits.create(ok)
      const code = (e: Exit.Exit<unknown, PermitError>) => errorOf(e)._tag
      // header/body key mismatch
      assert.strictEqual(
        code(yield* Effect.exit(permits.create(ok, { headerIdempotencyKey: "other-key-1" }))),
        "IdempotencyKeyMismatch"
      )
      // same key, other request
      const other = signedRequest(route.quoteId, (BigInt(route.minimumFillInRaw) + 1n).toString(), "idem-key-0002")
      assert.strictEqual(code(yield* Effect.exit(permits.create(other))), "IdempotencyConflict")
      // unknown quote
      assert.strictEqual(
        code(yield* Effect.exit(permits.create(signedRequest(`0x${"ab".repeat(32)}`, "1000000", "idem-key-0003")))),
        "QuoteNotOpen"
      )
      // amounts
      assert.strictEqual(
        code(yield* Effect.exit(permits.create(signedRequest(route.quoteId, "0", "idem-key-0004")))),
        "AmountInvalid"
      )
      assert.strictEqual(
        code(yield* Effect.exit(permits.create(signedRequest(route.quoteId, "1", "idem-key-0005")))),
        "AmountTooLow"
      )
      assert.strictEqual(
        code(
          yield* Effect.exit(
            permits.create(
              signedRequest(route.quoteId, (BigInt(route.maxAvailableInRaw) + 1n).toString(), "idem-key-0006")
            )
          )
        ),
        "InsufficientCapacity"
      )
      // wrong signer: signed by the authority key instead of the payer
      const forged = { ...signedRequest(route.quoteId, route.minimumFillInRaw, "idem-key-0007") }
      const forgedMessage = PermitMessage.build(forged)
      const bad = { ...forged, requestSignature: PermitMessage.sign(forgedMessage, AUTHORITY_KEY) }
      const badError = errorOf(yield* Effect.exit(permits.create(bad)))
      assert.strictEqual(badError._tag, "SignatureInvalid")
      assert.deepStrictEqual(badError.reasonCodes, ["SIGNER_MISMATCH"])
      // high-s twin of a valid signature
      const good = signedRequest(route.quoteId, route.minimumFillInRaw, "idem-key-0008")
      const twin = { ...good, requestSignature: Signature.highSTwin(good.requestSignature as `0x${string}`) }
      assert.strictEqual(code(yield* Effect.exit(permits.create(twin))), "SignatureInvalid")
      // nothing persisted for the failures
      const store = yield* Store
      for (const key of ["idem-key-0003", "idem-key-0007", "idem-key-0008"]) {
        assert.isUndefined(yield* store.findByIdempotencyKey(`address:${payer.toLowerCase()}`, key))
      }
      // unsupported standard
      assert.strictEqual(
        code(
          yield* Effect.exit(
            permits.create(signedRequest(route.quoteId, route.minimumFillInRaw, "idem-key-0009", { standard: "OTHER" }))
          )
        ),
        "UnsupportedStandard"
      )
    }).pipe(Effect.provide(makeEngine().layer)))

  it.effect("concurrent identical requests issue exactly one permit and reserve once", () =>
    Effect.gen(function*() {
      const permits = yield* Permits
      const { route } = yield* firstOpenRoute
      const request = signedRequest(route.quoteId, route.minimumFillInRaw, "idem-concurrent-1")
      const results = yield* Effect.forEach(Array.from({ length: 12 }, () => request), (r) =>
        Effect.exit(permits.create(r)), {
        concurrency: "unbounded"
      })
      const created = results.filter((e) =>
        Exit.isSuccess(e) && e.value.created
      )
      assert.strictEqual(created.length, 1)
      const fillIds = new Set(results.flatMap((e) => Exit.isSuccess(e) ? [e.value.envelope.fillId] : []))
      assert.strictEqual(fillIds.size, 1)
      for (const e of results) {
        if (Exit.isFailure(e)) assert.strictEqual(errorOf(e)._tag, "IdempotencyInProgress")
      }
      const store = yield* Store
      const [balance] = yield* store.inventory([route.destinationAssetId.toLowerCase()])
      const envelope =
        (created[0] as unknown as Exit.Success<{ envelope: { permit: { amountOutRaw: string } } }>).value.envelope
      assert.strictEqual(balance!.holdRaw, BigInt(envelope.permit.amountOutRaw))
    }).pipe(Effect.provide(makeEngine().layer)))

  it.effect("a bound amountOut is honoured or answered QUOTE_CHANGED", () =>
    Effect.gen(function*() {
      const permits = yield* Permits
      const { route } = yield* firstOpenRoute
      const bound = signedRequest(route.quoteId, route.minimumFillInRaw, "idem-bound-01")
      const low = yield* permits.create(bound, { boundAmountOutRaw: 1n })
      assert.strictEqual(low.envelope.permit.amountOutRaw, "1")
      const high = signedRequest(route.quoteId, route.minimumFillInRaw, "idem-bound-02")
      const error = errorOf(yield* Effect.exit(permits.create(high, { boundAmountOutRaw: 10n ** 40n })))
      assert.strictEqual(error._tag, "QuoteChanged")
    }).pipe(Effect.provide(makeEngine().layer)))
})

describe("lifecycle", () => {
  it.effect("transitions move the reservation through the buckets and terminal states stay", () =>
    Effect.gen(function*() {
      const permits = yield* Permits
      const observer = yield* SettlementObserver
      const store = yield* Store
      const { route } = yield* firstOpenRoute
      const asset = route.destinationAssetId.toLowerCase()
      const { envelope } = yield* permits.create(signedRequest(route.quoteId, route.minimumFillInRaw, "idem-life-001"))
      const amount = BigInt(envelope.permit.amountOutRaw)
      const [before] = yield* store.inventory([asset])
      yield* observer.sourceObserved(envelope.fillId, `0x${"11".repeat(32)}`)
      yield* observer.sourceConfirmed(envelope.fillId)
      yield* observer.payoutSubmitted(envelope.fillId, `0x${"22".repeat(32)}`)
      const paid = yield* observer.paid(envelope.fillId)
      assert.strictEqual(paid.state, "PAID")
      const [after] = yield* store.inventory([asset])
      assert.strictEqual(after!.paidOutRaw - before!.paidOutRaw, amount)
      assert.strictEqual(after!.holdRaw, before!.holdRaw - amount)
      const refused = yield* observer.failed(envelope.fillId, ["LATE"]).pipe(Effect.flip)
      assert.strictEqual(refused._tag, "TransitionRefused")
      // PAYOUT_SUBMITTED is reached from PAID only by a reopening: a payout started on an older reading of the
      // permit (SOURCE_CONFIRMED, by a replica paused while another paid it) changes nothing
      const stale = yield* observer.payoutSubmitted(envelope.fillId, `0x${"23".repeat(32)}`).pipe(Effect.flip)
      assert.deepInclude(stale, { _tag: "TransitionRefused", from: "PAID", to: "PAYOUT_SUBMITTED" })
      const final = yield* permits.get(envelope.fillId)
      assert.strictEqual(final.state, "PAID")
      assert.strictEqual(final.payoutTxHash, `0x${"22".repeat(32)}`)
      assert.isNotNull(final.sourceTxHash)
      assert.isNotNull(final.payoutTxHash)
    }).pipe(Effect.provide(makeEngine().layer)))

  it.effect("expiry after validUntil + grace releases the hold", () =>
    Effect.gen(function*() {
      const permits = yield* Permits
      const observer = yield* SettlementObserver
      const store = yield* Store
      const { route } = yield* firstOpenRoute
      const asset = route.destinationAssetId.toLowerCase()
      const { envelope } = yield* permits.create(signedRequest(route.quoteId, route.minimumFillInRaw, "idem-expire-1"))
      assert.strictEqual(yield* observer.expireDue, 0)
      yield* TestClock.adjust("120 seconds")
      assert.strictEqual(yield* observer.expireDue, 0, "still within the grace period")
      yield* TestClock.adjust("601 seconds")
      assert.strictEqual(yield* observer.expireDue, 1)
      const [balance] = yield* store.inventory([asset])
      assert.strictEqual(balance!.holdRaw, 0n)
      assert.strictEqual((yield* permits.get(envelope.fillId)).state, "EXPIRED")
      // a late source fill does not reopen it
      const late = yield* observer.sourceObserved(envelope.fillId, `0x${"33".repeat(32)}`).pipe(Effect.flip)
      assert.strictEqual(late._tag, "TransitionRefused")
    }).pipe(Effect.provide(makeEngine().layer)))

  it.effect("retention: a terminal permit is deleted after the retention, never before the quote window's floor", () =>
    Effect.gen(function*() {
      const permits = yield* Permits
      const observer = yield* SettlementObserver
      const { route } = yield* firstOpenRoute
      const request = signedRequest(route.quoteId, route.minimumFillInRaw, "idem-retention-1")
      const { envelope } = yield* permits.create(request)
      yield* observer.failed(envelope.fillId, ["TEST_FAILURE"])
      // asked for 1 s, the floor applies: the demo catalog's one-day quote window + 600 s grace + one day
      yield* TestClock.adjust("1 days")
      assert.strictEqual((yield* permits.get(envelope.fillId)).state, "FAILED")
      yield* TestClock.adjust("1 days")
      yield* TestClock.adjust("11 minutes")
      const gone = yield* permits.get(envelope.fillId).pipe(Effect.flip)
      assert.strictEqual(gone.reason._tag, "PermitNotFound")
    }).pipe(Effect.provide(makeEngine({ settlement: { sweepMillis: 60_000, retentionSeconds: 1 } }).layer)))

  it.effect("griefing: 50 throwaway keys from one client asking for the route's maximum leave at least half the capacity to others", () =>
    Effect.gen(function*() {
      const permits = yield* Permits
      const publisher = yield* Publisher
      const { route } = yield* firstOpenRoute
      const before = BigInt(route.maxAvailableInRaw)
      let refused = 0
      for (let i = 0; i < 50; i++) {
        const key = `0x${(i + 1000).toString(16).padStart(64, "0")}` as const
        const request = {
          quoteId: route.quoteId,
          requestedAmountInRaw: (yield* publisher.current).routes.find((r) => r.routeId === route.routeId)!
            .maxAvailableInRaw,
          payer: Signature.addressOf(key),
          recipient,
          idempotencyKey: `griefing-${i}`
        }
        const message = PermitMessage.message(PermitMessage.normalize(request, { strict: false }))
        const signed = { ...request, requestSignature: PermitMessage.sign(message, key) } as PermitCreateRequest
        const exit = yield* Effect.exit(permits.create(signed, { clientKey: "203.0.113.7" }))
        if (Exit.isFailure(exit)) {
          const reason = errorOf(exit)
          assert.strictEqual(reason._tag, "InsufficientCapacity")
          refused++
        }
        yield* publisher.refresh
      }
      assert.isAbove(refused, 40, "the client's share ran out after a few permits")
      const after = BigInt(
        (yield* publisher.current).routes.find((r) => r.routeId === route.routeId)!.maxAvailableInRaw
      )
      assert.isTrue(after * 2n >= before, `${after} of ${before} left`)
      // someone else still gets a permit
      const other = yield* permits.create(signedRequest(route.quoteId, route.minimumFillInRaw, "idem-legit-1"), {
        clientKey: "198.51.100.9"
      })
      assert.isTrue(other.created)
    }).pipe(Effect.provide(makeEngine().layer)))
})
