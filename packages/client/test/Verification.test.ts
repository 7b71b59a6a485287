/**
 * The client's pure verification against the golden fixtures: every feed vector
 * gives its upstream failure code (or a verified feed whose routes are the
 * signed ones), every permit-digest vector verifies or not as stated, any change
 * to a covered permit field is caught, the fillDirect transaction decodes back
 * into the permit, and the error classes carry their codes.
 */
import { assert, describe, it } from "@effect/vitest"
import { fc, test } from "@fast-check/vitest"
import { type ExecutionPermitEnvelope, PermitAbi, PermitMessage } from "@svc/protocol"
import { Effect, Result } from "effect"
import { readFileSync } from "node:fs"
import { encodeFunctionData, erc20Abi } from "viem"
import {
  DiscoveryInvalid,
  Feed,
  FeedExpired,
  HttpError,
  isSvcClientError,
  NetworkError,
  PermitInvalid,
  Permits,
  RefreshQuote,
  Timeout,
  UnexpectedError
} from "../src/index.ts"
import { backoffDelay, isTransient } from "../src/internal/http.ts"

const fixture = (path: string) =>
  JSON.parse(readFileSync(new URL(`../../../fixtures/protocol/${path}`, import.meta.url), "utf8")) as {
    cases: Array<any>
  }

/** A complete SignedFeed around a vector's signed payload. */
const feedOf = (c: any, extra?: Record<string, unknown>) => {
  const p = c.signedPayload
  return {
    schema: p.schema,
    releaseId: p.releaseId,
    dataVersion: p.dataVersion,
    generatedAt: p.generatedAt,
    validUntil: p.validUntil,
    signedPayload: p,
    routeDetailTemplate: "https://solver.example/api/v6/routes/{routeId}",
    actionableRoutes: [],
    routes: p.routes,
    openRoutes: p.routes.filter((r: any) => r.open),
    feedHash: c.feedHash,
    feedSigner: c.feedSigner,
    feedSignature: c.feedSignature,
    publicationGasWei: "0",
    publicationTransactionHashes: [],
    routeCount: p.routes.length,
    openRouteCount: p.routes.filter((r: any) => r.open).length,
    returnedRouteCount: p.routes.length,
    returnedOpenRouteCount: p.routes.filter((r: any) => r.open).length,
    ...extra
  }
}

describe("feed verification (fixtures/protocol/feed)", () => {
  const { cases } = fixture("feed/vectors.json")

  it("every vector gives its verification outcome and failure code", () => {
    assert.isAtLeast(cases.length, 18)
    for (const c of cases) {
      const result = Feed.verifyFeed(feedOf(c), { now: c.now, expectedSigner: c.verification.expectedSigner })
      if (c.failureCode === null) {
        assert.isTrue(Result.isSuccess(result), c.id)
        const feed = Result.getOrThrow(result)
        assert.deepStrictEqual(feed.routes, c.signedPayload.routes, c.id)
        assert.deepStrictEqual(feed.verification, c.verification, c.id)
      } else {
        assert.isTrue(Result.isFailure(result), c.id)
        const error = Result.isFailure(result) ? result.failure : undefined
        assert.strictEqual(error?.code, c.failureCode, c.id)
        if (error !== undefined && "verification" in error) {
          assert.deepStrictEqual(error.verification, c.verification, c.id)
        }
      }
    }
  })

  it("routes come from signedPayload, filtered locally; unsigned views and unresolvable estimates are ignored", () => {
    const c = cases.find((x) => x.id === "three-routes")!
    const routes = c.signedPayload.routes as Array<any>
    const bogus = { ...routes[0], maxAvailableInRaw: "999999999999999999999" }
    const actionable = (routeId: string, quoteId: string) => ({
      routeId,
      quoteId,
      pricingReferenceId: routes[0].pricingReferenceId,
      indicativeNotionalUsd: "1",
      executableNotionalUsd: "1",
      estimatedSourceGasUsd: "0.01",
      expectedEdgeAfterSourceGasBps: "3",
      economicsObservedAt: "2033-05-18T03:33:20Z",
      economicsValidUntil: "2033-05-18T03:38:20Z",
      pricingModelVersion: null
    })
    const raw = feedOf(c, {
      routes: [bogus],
      openRoutes: [bogus],
      actionableRoutes: [
        actionable(routes[1].routeId.toUpperCase().replace("0X", "0x"), routes[1].quoteId),
        actionable(routes[0].routeId, `0x${"00".repeat(32)}`)
      ]
    })
    const filter = Result.getOrThrow(Feed.normalizeFilter({ sourceChainId: routes[1].sourceChainId }))
    const feed = Result.getOrThrow(Feed.verifyFeed(raw, { now: c.now, expectedSigner: c.feedSigner, filter }))
    assert.deepStrictEqual(feed.routes, routes.filter((r) => r.sourceChainId === routes[1].sourceChainId))
    assert.isFalse(feed.routes.some((r) => r.maxAvailableInRaw === bogus.maxAvailableInRaw))
    assert.deepStrictEqual(feed.actionableRoutes.map((a) => a.route), [routes[1]])
    // filters are validated
    assert.strictEqual(Result.isFailure(Feed.normalizeFilter({ sourceChainId: "0x10" })), true)
    assert.strictEqual(Result.isFailure(Feed.normalizeFilter({ sourceNetworkId: "0x12" })), true)
  })

  test.prop([fc.nat({ max: 2000 }), fc.integer({ min: 1, max: 15 })], { numRuns: 100 })(
    "changing any hex digit of the signed payload is a hash mismatch",
    (position, delta) => {
      const c = cases.find((x) => x.id === "one-full-route")!
      const text = JSON.stringify(c.signedPayload)
      const hexDigits = [...text.matchAll(/0x([0-9a-f]+)/g)].flatMap((m) =>
        Array.from({ length: m[1]!.length }, (_, i) => m.index! + 2 + i)
      )
      const at = hexDigits[position % hexDigits.length]!
      const digit = (Number.parseInt(text[at]!, 16) + delta) % 16
      const tampered = JSON.parse(`${text.slice(0, at)}${digit.toString(16)}${text.slice(at + 1)}`)
      const result = Feed.verifyFeed(feedOf(c, { signedPayload: tampered }), {
        now: c.now,
        expectedSigner: c.feedSigner
      })
      assert.strictEqual(Result.isFailure(result) ? result.failure.code : "", "SVC_SDK_FEED_HASH_MISMATCH")
    }
  )
})

describe("permit verification (fixtures/protocol/permit-digest)", () => {
  const cases = fixture("permit-digest/vectors.json").cases.filter((c) =>
    c.permit !== undefined && c.valid !== undefined
  )

  const envelopeOf = (c: any): ExecutionPermitEnvelope => ({
    fillId: c.permit.fillId,
    state: "ISSUED",
    idempotencyKey: "fixture-key-0001",
    expiresAt: Number(c.permit.validUntil),
    permit: c.permit,
    permitDigest: c.permitDigest,
    permitSignature: c.permitSignature,
    execution: {
      schema: "SVC_V6_DIRECT_EXECUTION_V1",
      target: c.permit.sourceRouter,
      function: "fillDirect",
      transactionCount: 1,
      inventory: null,
      pricing: {} as never
    },
    totalTransactionCount: 2,
    sourceTxHash: null,
    payoutTxHash: null,
    publicationLane: c.permit.publicationLane,
    serviceCategory: c.permit.serviceCategory,
    feeMode: c.permit.feeMode,
    serviceFeeBps: c.permit.serviceFeeBps
  })

  it("each vector verifies exactly when it is valid", () => {
    assert.isAtLeast(cases.length, 6)
    for (const c of cases) {
      const problems = Permits.permitProblems(envelopeOf(c), { authority: c.authority })
      assert.strictEqual(problems.length === 0, c.valid, `${c.id}: ${problems.join(",")}`)
    }
  })

  it("checks the request, the window and the amounts", () => {
    const c = cases.find((x) => x.id === "base-bsc")!
    const envelope = envelopeOf(c)
    const request = PermitMessage.normalize({
      quoteId: c.permit.quoteId,
      requestedAmountInRaw: c.permit.amountInRaw,
      payer: c.permit.payer,
      recipient: c.permit.recipient,
      idempotencyKey: "fixture-key-0001"
    })
    const now = Number(c.permit.validAfter) + 10
    assert.deepStrictEqual(Permits.permitProblems(envelope, { authority: c.authority, request, now }), [])
    const other = PermitMessage.normalize({
      ...request,
      requestedAmountInRaw: "1",
      recipient: c.permit.payer,
      idempotencyKey: "other-key-01"
    })
    assert.includeMembers(Permits.permitProblems(envelope, { authority: c.authority, request: other, now }), [
      "AMOUNT_IN_MISMATCH",
      "RECIPIENT_MISMATCH",
      "RECIPIENT_ACCOUNT_ID_MISMATCH",
      "IDEMPOTENCY_KEY_MISMATCH"
    ])
    assert.deepStrictEqual(
      Permits.permitProblems(envelope, { authority: c.authority, now: Number(c.permit.validUntil) }),
      ["PERMIT_EXPIRED"]
    )
    assert.deepStrictEqual(
      Permits.permitProblems(envelope, { authority: c.authority, now: Number(c.permit.validAfter) - 61 }),
      ["PERMIT_NOT_YET_VALID"]
    )
    assert.deepStrictEqual(Permits.permitProblems(envelope, { authority: c.authority, amountOutRaw: "1" }), [
      "AMOUNT_OUT_MISMATCH"
    ])
    assert.deepStrictEqual(
      Permits.permitProblems(envelope, { authority: c.authority, minAmountOutRaw: `${c.permit.amountOutRaw}0` }),
      ["AMOUNT_OUT_TOO_LOW"]
    )
    assert.deepStrictEqual(Permits.permitProblems(envelope, { authority: c.permit.recipient }), [
      "PERMIT_SIGNER_MISMATCH"
    ])
    assert.deepStrictEqual(
      Permits.permitProblems({ ...envelope, execution: { ...envelope.execution, target: c.permit.payer } }, {
        authority: c.authority
      }),
      ["EXECUTION_TARGET_MISMATCH"]
    )
  })

  test.prop([fc.integer({ min: 0, max: 30 })], { numRuns: 31 })(
    "a change to any of the 31 covered fields is caught",
    (index) => {
      const c = cases.find((x) => x.id === "base-bsc")!
      const field = PermitAbi.PERMIT_TUPLE_FIELDS[index]!
      const value = String(c.permit[field.name])
      const changed = field.type.startsWith("uint")
        ? (BigInt(value) + 1n).toString()
        : `${value.slice(0, -1)}${value.endsWith("1") ? "2" : "1"}`
      const permit = { ...c.permit, [field.name]: field.type === "uint32" ? Number(changed) : changed }
      const problems = Permits.permitProblems({ ...envelopeOf(c), permit }, { authority: c.authority })
      assert.isTrue(
        problems.includes("PERMIT_DIGEST_MISMATCH") || problems.includes("PERMIT_SIGNER_MISMATCH"),
        field.name
      )
    }
  )

  it("the fillDirect transaction decodes back into the permit; native input carries the value", () => {
    for (const c of cases.filter((x) => x.valid)) {
      const tx = Result.getOrThrow(Permits.fillDirectTransaction(envelopeOf(c)))
      const decoded = PermitAbi.decodeFillDirect(tx.data)
      assert.strictEqual(decoded.signature, c.permitSignature.toLowerCase())
      for (const { name } of PermitAbi.PERMIT_TUPLE_FIELDS) {
        assert.strictEqual(
          String(decoded.permit[name]).toLowerCase(),
          String(c.permit[name]).toLowerCase(),
          `${c.id} ${name}`
        )
      }
      const native = /^0x0{40}$/.test(c.permit.sourceAsset)
      assert.strictEqual(tx.value, native ? BigInt(c.permit.amountInRaw) : 0n, c.id)
      assert.strictEqual(tx.approval === null, native, c.id)
      if (tx.approval !== null) {
        // the ERC-20 approve calldata is viem's
        assert.strictEqual(
          tx.approval.data,
          encodeFunctionData({
            abi: erc20Abi,
            functionName: "approve",
            args: [tx.approval.spender, tx.approval.amount]
          }),
          c.id
        )
      }
      assert.strictEqual(tx.chainId, Number(c.permit.sourceChainId))
    }
    const nonEvm = envelopeOf({ ...cases[0], permit: { ...cases[0].permit, sourceChainId: "0" } })
    assert.isTrue(Result.isFailure(Permits.fillDirectTransaction(nonEvm)))
  })
})

describe("errors and retries", () => {
  it("every error class is a typed client error with its code", () => {
    const refusal = {
      method: "GET",
      url: "u",
      status: 409,
      serverCode: "IDEMPOTENCY_IN_PROGRESS",
      reasonCodes: [],
      retryAfterSeconds: null,
      action: null,
      retryable: null,
      serverMessage: null,
      diagnostics: null
    }
    const errors = [
      new DiscoveryInvalid({ url: "u", reason: "r" }),
      new HttpError(refusal),
      new RefreshQuote({ ...refusal, action: "REFRESH_QUOTE" }),
      new NetworkError({ method: "GET", url: "u", reason: "r" }),
      new PermitInvalid({ fillId: null, reasons: ["X"] }),
      new Timeout({ operation: "o", afterMs: 1 }),
      new UnexpectedError({ cause: new Error("x") }),
      new FeedExpired({ verification: {} as never, now: 1 })
    ]
    for (const e of errors) {
      assert.isTrue(isSvcClientError(e), e._tag)
      assert.match(e.code, /^SVC_SDK_[A-Z_]+$/)
      assert.isString(e.message)
    }
    assert.isFalse(isSvcClientError(new Error("plain")))
    assert.isFalse(isSvcClientError({ _tag: "HttpError" }))
    assert.isTrue(isTransient(new HttpError(refusal)))
    assert.isFalse(isTransient(new HttpError({ ...refusal, serverCode: "IDEMPOTENCY_CONFLICT" })))
    assert.isTrue(isTransient(new HttpError({ ...refusal, status: 503 })))
    assert.isFalse(isTransient(new HttpError({ ...refusal, status: 400 })))
    assert.isTrue(isTransient(new NetworkError({ method: "POST", url: "u", reason: "reset" })))
  })

  test.prop([fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 60_000 }), fc.integer({ min: 1, max: 40 })])(
    "backoff stays within [d/2, d] with d = min(max, initial * 2^(n-1))",
    (initialDelayMs, maxDelayMs, failures) => {
      const delay = Effect.runSync(backoffDelay({ initialDelayMs, maxDelayMs }, failures))
      const d = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.min(failures - 1, 30))
      assert.isAtLeast(delay, Math.floor(d / 2))
      assert.isAtMost(delay, Math.ceil(d))
    }
  )
})
