/**
 * The pure parts of the aggregator (internal/aggregator/*), tested on their own:
 * route selection and ranking, quote validity, quote tokens, build checks,
 * status and health bodies, and the per-instance quote pruning.
 */
import { assert, describe, it } from "@effect/vitest"
import { fc, test as fcTest } from "@fast-check/vitest"
import type { AggregatorQuote, AggregatorQuoteRequest } from "@svc/protocol/schema/Aggregator"
import type { Route } from "@svc/protocol/schema/Feed"
import { Effect, Option, Result } from "effect"
import * as Building from "../src/internal/aggregator/building.ts"
import type { AggregatorFailure } from "../src/internal/aggregator/errors.ts"
import * as Listing from "../src/internal/aggregator/listing.ts"
import * as QuoteToken from "../src/internal/aggregator/quoteToken.ts"
import * as Quoting from "../src/internal/aggregator/quoting.ts"
import * as Status from "../src/internal/aggregator/status.ts"
import type { Publication, PublisherState } from "../src/Publisher.ts"
import { StoreError, type StoreShape } from "../src/Store.ts"

const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
const USDT_BSC = "0x55d398326f99059fF775485246999027B3197955"
const ROUTER = "0x1111111111111111111111111111111111111111"
const PAYER = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"
const KEY = new TextEncoder().encode("svc-test-server-secret-0123456789abcdef")
const NOW = 1_000

const bytes32 = (n: number) => `0x${n.toString(16).padStart(64, "0")}`

/** A quotable L1 route Base USDC -> BSC USDT (only the fields the aggregator reads). */
const route = (n: number, extra?: Partial<Route>): Route =>
  ({
    routeId: bytes32(0x100 + n),
    quoteId: bytes32(0x200 + n),
    dataVersion: "7",
    publicationLane: "L1",
    publicationRank: 0,
    open: true,
    validAfter: 0,
    validUntil: 2_000,
    sourceChainId: "8453",
    destinationChainId: "56",
    sourceAsset: USDC_BASE,
    destinationAsset: USDT_BSC,
    sourceRouter: ROUTER,
    sourceTokenDecimals: 6,
    destinationTokenDecimals: 18,
    serviceFeeBps: 5,
    feeMode: "INCLUDED",
    minimumFillInRaw: "1000",
    maxAvailableInRaw: "1000000",
    ...extra
  }) as Route

const request = (amountIn: string, extra?: Partial<AggregatorQuoteRequest>): AggregatorQuoteRequest => ({
  fromChainId: 8453,
  toChainId: 56,
  fromToken: USDC_BASE,
  toToken: USDT_BSC,
  amountIn,
  ...extra
})

const codeOf = <A>(result: Result.Result<A, AggregatorFailure>) =>
  Result.isFailure(result) ? [result.failure.code, ...(result.failure.reasonCodes ?? [])] : "ok"

describe("rankCandidates", () => {
  const candidate = fc.record({
    amountOut: fc.bigInt({ min: 0n, max: 4n }),
    publicationRank: fc.integer({ min: 0, max: 3 }),
    routeId: fc.constantFrom("0xaa", "0xAB", "0xab", "0x0c", "0xC1")
  }).map(({ amountOut, publicationRank, routeId }) => ({ route: { routeId, publicationRank } as Route, amountOut }))

  fcTest.prop([fc.array(candidate, { maxLength: 12 })], { numRuns: 300 })(
    "best first: highest amountOut, then lowest publicationRank, then lowest routeId (case-insensitive); a permutation, input untouched",
    (candidates) => {
      const before = [...candidates]
      const ranked = Quoting.rankCandidates(candidates)
      assert.deepStrictEqual(candidates, before)
      assert.strictEqual(ranked.length, candidates.length)
      assert.isTrue(candidates.every((c) => ranked.includes(c)))
      for (let i = 1; i < ranked.length; i++) {
        const a = ranked[i - 1]!
        const b = ranked[i]!
        const ordered = a.amountOut > b.amountOut ||
          (a.amountOut === b.amountOut && a.route.publicationRank < b.route.publicationRank) ||
          (a.amountOut === b.amountOut && a.route.publicationRank === b.route.publicationRank &&
            a.route.routeId.toLowerCase() <= b.route.routeId.toLowerCase())
        assert.isTrue(
          ordered,
          `${i}: ${a.amountOut}/${a.route.publicationRank}/${a.route.routeId} before ${b.amountOut}/${b.route.publicationRank}/${b.route.routeId}`
        )
      }
    }
  )

  it("the same best whatever the input order", () => {
    const cs = [route(1, { publicationRank: 1 }), route(2), route(3), route(4)].map((r, i) => ({
      route: r,
      amountOut: i === 3 ? 9n : 10n
    }))
    for (const order of [cs, [...cs].reverse(), [cs[2]!, cs[0]!, cs[3]!, cs[1]!]]) {
      assert.strictEqual(Quoting.rankCandidates(order)[0]!.route.routeId, bytes32(0x102))
    }
  })
})

describe("route selection", () => {
  it("the L1 routes of the pair, in publication order, case-insensitive", () => {
    const routes = [
      route(1),
      route(2, { publicationLane: "L2" }),
      route(3, { destinationChainId: "1" }),
      route(4, { sourceAsset: USDC_BASE.toLowerCase() })
    ]
    assert.deepStrictEqual(
      Quoting.pairRouteIndexes({ routes }, request("5000", { fromToken: USDC_BASE.toUpperCase().replace("0X", "0x") })),
      [0, 3]
    )
  })

  it("refusals in order: routeId, no L1 route, not open, amount (with the limits)", () => {
    const routes = [
      route(1, { minimumFillInRaw: "2000" }),
      route(2, { maxAvailableInRaw: "9000" }),
      route(3, { open: false })
    ]
    const select = (req: AggregatorQuoteRequest, rs: ReadonlyArray<Route> = routes) =>
      Quoting.selectRoutes({ routes: rs }, req, NOW)
    assert.deepStrictEqual(codeOf(select(request("5000", { routeId: bytes32(0x999) }))), [
      "NO_ROUTE",
      "ROUTE_ID_NOT_FOR_PAIR"
    ])
    assert.deepStrictEqual(codeOf(select(request("5000", { routeId: bytes32(0x999) }), [])), [
      "NO_ROUTE",
      "ROUTE_ID_NOT_FOR_PAIR"
    ])
    assert.deepStrictEqual(codeOf(select(request("5000"), [])), ["NO_ROUTE", "NO_L1_ROUTE"])
    assert.deepStrictEqual(codeOf(select(request("5000", { routeId: bytes32(0x103) }))), ["NO_ROUTE", "ROUTE_NOT_OPEN"])
    assert.deepStrictEqual(codeOf(select(request("5000"), [route(1, { validUntil: NOW })])), [
      "NO_ROUTE",
      "ROUTE_NOT_OPEN"
    ])
    const low = select(request("999"))
    assert.deepStrictEqual(codeOf(low), ["AMOUNT_TOO_LOW", "BELOW_MINIMUM_FILL"])
    assert.match(Result.isFailure(low) ? low.failure.message : "", /below minimumFillInRaw 1000$/)
    const high = select(request("1000001"))
    assert.deepStrictEqual(codeOf(high), ["AMOUNT_TOO_HIGH", "ABOVE_MAX_AVAILABLE"])
    assert.match(Result.isFailure(high) ? high.failure.message : "", /above maxAvailableInRaw 1000000$/)
    // only the open routes whose limits hold the amount; the closed one never
    assert.deepStrictEqual(select(request("1500")), Result.succeed({ indexes: [1], amount: 1500n }))
    assert.deepStrictEqual(select(request("9500")), Result.succeed({ indexes: [0], amount: 9500n }))
    assert.deepStrictEqual(select(request("5000")), Result.succeed({ indexes: [0, 1], amount: 5000n }))
    assert.deepStrictEqual(
      select(request("5000", { routeId: bytes32(0x102).toUpperCase().replace("0X", "0x") })),
      Result.succeed({ indexes: [1], amount: 5000n })
    )
  })
})

describe("quote validity", () => {
  const input = fc.record({
    routeValidUntil: fc.integer({ min: 0, max: 10_000 }),
    feedValidUntil: fc.integer({ min: 0, max: 10_000 }),
    pricingCycleValidUntil: fc.integer({ min: 0, max: 10_000_000 }),
    now: fc.integer({ min: 0, max: 10_000 }),
    ttlSeconds: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined })
  })

  fcTest.prop([input])("the earliest of route, feed, pricing cycle (rounded down to a second) and now + TTL", (i) => {
    const expiresAt = Quoting.expiresAtOf(i)
    const bounds = [i.routeValidUntil, i.feedValidUntil, Math.floor(i.pricingCycleValidUntil / 1000)]
    if (i.ttlSeconds !== undefined) bounds.push(i.now + i.ttlSeconds)
    assert.strictEqual(expiresAt, Math.min(...bounds))
  })

  it("a TTL is a whole number of seconds, at least 1", () => {
    assert.deepStrictEqual([undefined, 0, 0.5, 1.9, 30].map(Quoting.quoteTtlOf), [undefined, 1, 1, 1, 30])
  })
})

describe("quote tokens", () => {
  const body = Quoting.quoteBodyOf(request("5000", { userAddress: PAYER.toLowerCase() }), route(1), 5000n, 4997n, 1_500)
  const quote: AggregatorQuote = { ...body, quoteToken: QuoteToken.quoteTokenOf(KEY, body) }

  it("the body: EIP-55 addresses, recipient defaults to userAddress, amounts as strings", () => {
    assert.strictEqual(body.userAddress, PAYER)
    assert.strictEqual(body.recipient, PAYER)
    assert.strictEqual(body.amountOut, "4997")
    assert.strictEqual(Quoting.quoteBodyOf(request("5000"), route(1), 5000n, 1n, 1_500).recipient, null)
  })

  it("a stored quote decodes back only under its own token and key", () => {
    const stored = QuoteToken.storedQuoteOf(quote, 123)
    assert.strictEqual(stored.userAddress, PAYER.toLowerCase())
    assert.strictEqual(stored.quoteId, quote.quoteId.toLowerCase())
    assert.deepStrictEqual(QuoteToken.quoteOfBody(KEY, quote.quoteToken, stored.body), quote)
    // the token is the HMAC of the body without it, whichever form is given
    assert.strictEqual(QuoteToken.quoteTokenOf(KEY, quote), quote.quoteToken)
    assert.isUndefined(
      QuoteToken.quoteOfBody(
        new TextEncoder().encode("another-secret-of-at-least-32-chars!"),
        quote.quoteToken,
        stored.body
      )
    )
    assert.isUndefined(QuoteToken.quoteOfBody(KEY, "0".repeat(64), stored.body))
    assert.isUndefined(QuoteToken.quoteOfBody(KEY, quote.quoteToken, JSON.stringify({ ...quote, amountOut: "4998" })))
    assert.isUndefined(QuoteToken.quoteOfBody(KEY, quote.quoteToken, "{not json"))
    assert.isUndefined(QuoteToken.quoteOfBody(KEY, quote.quoteToken, JSON.stringify({ ...quote, extra: 1 })))
  })

  fcTest.prop([fc.string(), fc.string()])("sameToken is string equality", (a, b) => {
    assert.strictEqual(QuoteToken.sameToken(a, b), a === b)
    assert.isTrue(QuoteToken.sameToken(a, a))
  })
})

describe("build checks", () => {
  const body = Quoting.quoteBodyOf(request("5000", { userAddress: PAYER }), route(1), 5000n, 4997n, 1_500)
  const quote: AggregatorQuote = { ...body, quoteToken: QuoteToken.quoteTokenOf(KEY, body) }
  const build = {
    quoteToken: quote.quoteToken,
    quoteId: quote.quoteId,
    routeId: quote.routeId,
    userAddress: PAYER,
    idempotencyKey: "k-0001"
  }

  it("the quote must match ids and the identities it named", () => {
    assert.deepStrictEqual(Building.matchQuote(quote, build), Result.succeed(quote))
    assert.deepStrictEqual(
      Building.matchQuote(quote, {
        ...build,
        userAddress: PAYER.toLowerCase(),
        routeId: quote.routeId.toUpperCase().replace("0X", "0x")
      }),
      Result.succeed(quote)
    )
    assert.deepStrictEqual(codeOf(Building.matchQuote(undefined, build)), ["QUOTE_NOT_FOUND", "QUOTE_NOT_FOUND"])
    assert.deepStrictEqual(codeOf(Building.matchQuote(quote, { ...build, quoteId: bytes32(1) })), [
      "QUOTE_NOT_FOUND",
      "QUOTE_NOT_FOUND"
    ])
    assert.deepStrictEqual(codeOf(Building.matchQuote(quote, { ...build, userAddress: ROUTER })), [
      "INVALID_REQUEST",
      "USER_ADDRESS_MISMATCH"
    ])
    assert.deepStrictEqual(codeOf(Building.matchQuote(quote, { ...build, recipient: ROUTER })), [
      "INVALID_REQUEST",
      "RECIPIENT_MISMATCH"
    ])
  })

  it("the permit request: recipient from the request, else the quote, else the userAddress", () => {
    assert.strictEqual(Building.permitRequestOf(quote, { ...build, recipient: ROUTER }).recipient, ROUTER)
    assert.strictEqual(Building.permitRequestOf(quote, build).recipient, PAYER)
    assert.strictEqual(
      Building.permitRequestOf({ ...quote, recipient: null }, { ...build, userAddress: ROUTER }).recipient,
      ROUTER
    )
    assert.deepStrictEqual(Building.permitRequestOf(quote, build), {
      quoteId: quote.quoteId,
      requestedAmountInRaw: "5000",
      standard: "DIRECT",
      payer: PAYER,
      recipient: PAYER,
      idempotencyKey: "k-0001"
    })
  })

  it("a stored quote's problems: expiry, route gone, route closed, capacity, price", () => {
    assert.strictEqual(Building.expiryProblem(quote, 1_499), undefined)
    assert.strictEqual(Building.expiryProblem(quote, 1_500)?.code, "QUOTE_EXPIRED")
    const publication = { routes: [route(0), route(1)], routeIndexByQuote: new Map([[quote.quoteId.toLowerCase(), 1]]) }
    assert.deepStrictEqual(Building.routeOfQuote(quote, publication, NOW), Result.succeed(1))
    assert.deepStrictEqual(
      codeOf(Building.routeOfQuote(quote, { ...publication, routeIndexByQuote: new Map() }, NOW)),
      ["ROUTE_CLOSED", "QUOTE_ID_CHANGED"]
    )
    assert.deepStrictEqual(
      codeOf(Building.routeOfQuote(quote, { ...publication, routes: [route(0), route(1, { open: false })] }, NOW)),
      ["ROUTE_CLOSED", "ROUTE_NOT_OPEN"]
    )
    assert.strictEqual(Building.capacityProblem(quote, route(1, { maxAvailableInRaw: "5000" })), undefined)
    assert.strictEqual(
      Building.capacityProblem(quote, route(1, { maxAvailableInRaw: "4999" }))?.code,
      "INSUFFICIENT_CAPACITY"
    )
    const fresh = (amountOutRaw: bigint) => ({ amountOutRaw }) as never
    assert.strictEqual(Building.priceProblem(quote, fresh(4997n)), undefined)
    assert.strictEqual(Building.priceProblem(quote, fresh(4996n))?.code, "QUOTE_CHANGED")
  })

  it("stage 2 sends a native coin as value, a token with an approval", () => {
    const envelope = {
      permit: {
        sourceChainId: "8453",
        payer: PAYER,
        amountInRaw: "5000",
        quoteId: quote.quoteId,
        routeId: quote.routeId
      },
      execution: { target: ROUTER },
      fillId: bytes32(9),
      expiresAt: 1_400
    } as never
    const token = Building.transactionOf(quote, envelope, "0x")
    assert.strictEqual(token.value, "0")
    assert.deepStrictEqual(token.approval, { spender: ROUTER, amount: "5000" })
    const native = Building.transactionOf(
      { ...quote, fromToken: "0x0000000000000000000000000000000000000000" },
      envelope,
      "0x"
    )
    assert.strictEqual(native.value, "5000")
    assert.isNull(native.approval)
  })
})

describe("status and health bodies", () => {
  it("quote validity", () => {
    assert.deepStrictEqual(Status.quoteValidityOf(undefined), { quoteValid: true, quoteError: null })
    assert.deepStrictEqual(Status.quoteValidityOf({ code: "QUOTE_EXPIRED" }), {
      quoteValid: false,
      quoteError: "QUOTE_EXPIRED"
    })
  })

  it("a userAddress list echoes the lookup in EIP-55 form, a quoteId list as given", () => {
    assert.deepStrictEqual(Status.statusListOf("userAddress", PAYER.toLowerCase(), []), {
      transactions: [],
      lookup: { by: "userAddress", value: PAYER },
      limit: Status.STATUS_LIST_MAX
    })
    assert.strictEqual(Status.statusListOf("quoteId", bytes32(5), []).lookup.value, bytes32(5))
  })

  it("health: OK with an open route, DEGRADED without, UNAVAILABLE past validUntil or without a publication", () => {
    const publication = (routes: ReadonlyArray<Route>, validUntil = 2_000) =>
      ({ routes, validUntil, dataVersion: 7n }) as unknown as Publication
    const open = (p: Publication): PublisherState => ({ _tag: "Open", publication: p })
    assert.deepStrictEqual(Listing.healthOf(open(publication([route(1), route(2, { open: false })])), NOW), {
      status: "OK",
      publicationOpen: true,
      dataVersion: "7",
      feedValidUntil: 2_000,
      openRouteCount: 1,
      checkedAt: NOW
    })
    assert.strictEqual(Listing.healthOf(open(publication([route(2, { open: false })])), NOW).status, "DEGRADED")
    const stale = Listing.healthOf(open(publication([route(1)], NOW)), NOW)
    assert.deepStrictEqual([stale.status, stale.openRouteCount, stale.dataVersion], ["UNAVAILABLE", 0, "7"])
    const none = Listing.healthOf(
      { _tag: "Unavailable", reason: "not published yet", last: Option.none() } as PublisherState,
      NOW
    )
    assert.deepStrictEqual([none.status, none.dataVersion, none.feedValidUntil], ["UNAVAILABLE", null, null])
  })

  it("chains list the pair and route of each quotable route only", () => {
    const p = {
      routes: [route(1), route(2, { sourceRouter: null }), route(3, { validAfter: NOW + 1 })],
      dataVersion: 7n,
      validUntil: 2_000
    }
    const chains = Listing.chainsOf(p as unknown as Publication, [], NOW)
    assert.deepStrictEqual(chains.pairs, [{
      fromChainId: 8453,
      toChainId: 56,
      fromToken: USDC_BASE,
      toToken: USDT_BSC,
      routeId: bytes32(0x101)
    }])
    assert.strictEqual(chains.routes.length, 1)
    assert.strictEqual(chains.dataVersion, "7")
  })
})

describe("quote pruning", () => {
  const countingStore = (fails = false) => {
    const calls: Array<number> = []
    const store: Pick<StoreShape, "pruneQuotes"> = {
      pruneQuotes: (before) =>
        Effect.suspend(() => {
          calls.push(before)
          return fails
            ? Effect.fail(new StoreError({ operation: "pruneQuotes", cause: new Error("down") }))
            : Effect.succeed(0)
        })
    }
    return { calls, store }
  }

  it.effect("at most once a minute per instance, keeping a day past expiry; failures only logged", () =>
    Effect.gen(function*() {
      const a = countingStore()
      const prune = Quoting.makeQuotePruner(a.store)
      for (const now of [100, 120, 159, 160, 219, 300]) yield* prune(now)
      assert.deepStrictEqual(a.calls, [100, 160, 300].map((now) => now - Quoting.QUOTE_RETENTION_SECONDS))
      // another instance has its own clock
      const b = countingStore(true)
      const other = Quoting.makeQuotePruner(b.store)
      yield* other(120)
      yield* other(150)
      assert.deepStrictEqual(b.calls, [120 - Quoting.QUOTE_RETENTION_SECONDS])
    }))
})
