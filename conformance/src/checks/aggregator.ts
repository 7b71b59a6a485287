/**
 * The aggregator interface (`/v1`), when deployed: detected by `/v1/health`
 * (404 means absent: every check skips with that reason). Bodies are checked
 * against the schemas of @svc/protocol (schema/Aggregator.ts) and against the
 * signed feed: quotes come from open routes, build stage 1 signs the solver's
 * permit request message, stage 2 returns the fillDirect transaction of a
 * verifiable permit.
 *
 * @since 0.1.0
 */
import {
  AGGREGATOR_ERRORS,
  AggregatorBuildSignatureRequired,
  AggregatorBuildTransaction,
  AggregatorChains,
  AggregatorError,
  AggregatorHealth,
  AggregatorManifest,
  AggregatorQuote,
  AggregatorQuoteValidity,
  AggregatorStatus,
  AggregatorStatusList,
  AggregatorTokens,
  Ids,
  PermitAbi,
  PermitDigest,
  PermitMessage,
  type Route
} from "@svc/protocol"
import { Effect, Exit, Result, type Schema } from "effect"
import fc from "fast-check"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import { asObject, expectStatus, failure, randomHex, send, Shared } from "../Shared.ts"
import { type Env, type Json, nowSeconds, pathOf, sameAddress, sameJson } from "./common.ts"
import { badAddress, badBytes32, notAString, property, type Verdict } from "./negative.ts"

/** What the aggregator quotes (docs/aggregator.md, Quotes: only open L1 routes), between EVM networks with a router. */
const isQuotable = (r: Route) =>
  r.publicationLane === "L1" && r.open === true && r.sourceChainId !== null && r.destinationChainId !== null &&
  r.sourceAsset !== null && r.destinationAsset !== null && r.sourceRouter !== null

const requireAggregator = Effect.gen(function*() {
  const shared = yield* Shared
  const present = yield* shared.aggregatorPresent
  if (!present) return yield* new Check.Skip({ reason: "the aggregator is not deployed (/v1/health answered 404)" })
})

/** The error body of an aggregator failure, checked against the code table. */
const errorProblems = (exchange: Exchange.Exchange): ReadonlyArray<string> => {
  const body = Exchange.json(exchange)
  const issues = Check.schemaIssues(AggregatorError, body)
  if (issues.length > 0) return issues
  const error = asObject(body)!
  const entry = AGGREGATOR_ERRORS[error.error as keyof typeof AGGREGATOR_ERRORS]
  const problems: Array<string> = []
  if (entry.status !== exchange.response.status) {
    problems.push(
      `${String(error.error)} is documented with status ${entry.status}, sent with ${exchange.response.status}`
    )
  }
  if (entry.action !== error.action) {
    problems.push(`${String(error.error)} has action ${entry.action}, sent ${String(error.action)}`)
  }
  if (entry.retryable !== error.retryable) {
    problems.push(`${String(error.error)} has retryable ${entry.retryable}, sent ${String(error.retryable)}`)
  }
  return problems
}

const strictGet = (path: string, schema: Schema.Decoder<unknown>) =>
  Effect.gen(function*() {
    const exchange = yield* send({ path })
    yield* expectStatus(exchange, 200, `GET ${path}`)
    const value = yield* Check.expectSchema(schema, Exchange.json(exchange), `GET ${path}`, exchange)
    return { exchange, value: value as Json }
  })

const health = Check.make<Env>({
  name: "aggregator_health",
  group: "aggregator",
  title: "GET /v1/health answers a strict AggregatorHealth consistent with the signed feed",
  reference: "spec §4 aggregator_health; docs/aggregator.md, Chains, tokens, health and the manifest (health)",
  run: Effect.gen(function*() {
    yield* requireAggregator
    const { exchange, value } = yield* strictGet("/v1/health", AggregatorHealth)
    const shared = yield* Shared
    const feed = yield* shared.freshFeed
    const c = Check.collector()
    const quotable = feed.routes.filter(isQuotable).length
    if (value.dataVersion === feed.dataVersion && value.openRouteCount !== quotable) {
      c.add(
        failure(
          exchange,
          "openRouteCount differs from the feed's quotable routes (open, L1, EVM on both sides)",
          String(quotable),
          String(value.openRouteCount)
        )
      )
    }
    if (
      value.publicationOpen === true && value.feedValidUntil !== null && value.dataVersion === feed.dataVersion &&
      value.feedValidUntil !== feed.payload.validUntil
    ) {
      c.add(
        failure(
          exchange,
          "feedValidUntil differs from the feed's validUntil",
          String(feed.payload.validUntil),
          String(value.feedValidUntil)
        )
      )
    }
    const expected = value.publicationOpen !== true
      ? "UNAVAILABLE"
      : Number(value.openRouteCount) > 0
      ? "OK"
      : "DEGRADED"
    if (value.status !== expected) {
      c.add(
        failure(exchange, "status does not follow publicationOpen and openRouteCount", expected, String(value.status))
      )
    }
    yield* c.done
  })
})

const manifest = Check.make<Env>({
  name: "aggregator_manifest",
  group: "aggregator",
  title:
    "/.well-known/svc-aggregator.json is a strict AggregatorManifest: the six operations' URLs, the authority as feedSigner, the limits",
  reference: "spec §4 aggregator_manifest; docs/aggregator.md, Chains, tokens, health and the manifest (manifest)",
  run: Effect.gen(function*() {
    yield* requireAggregator
    const { exchange, value } = yield* strictGet("/.well-known/svc-aggregator.json", AggregatorManifest)
    const shared = yield* Shared
    const authority = yield* shared.authority
    const c = Check.collector()
    if (!sameAddress(value.feedSigner, authority)) {
      c.add(failure(exchange, "the aggregator's feedSigner is not the authority", authority, String(value.feedSigner)))
    }
    const endpoints = asObject(value.endpoints) ?? {}
    const paths: Record<string, string> = {
      quote: "/v1/quote",
      build: "/v1/build",
      status: "/v1/status",
      chains: "/v1/chains",
      tokens: "/v1/tokens",
      health: "/v1/health",
      openapi: "/openapi.json"
    }
    for (const [key, path] of Object.entries(paths)) {
      if (pathOf(endpoints[key]) !== path) {
        c.add(
          failure(
            exchange,
            `endpoints.${key} does not have the documented path`,
            `<origin>${path}`,
            String(endpoints[key])
          )
        )
      }
    }
    const discovery = pathOf(value.solverDiscovery)
    if (discovery !== "/.well-known/svc-solver.json" && discovery !== "/api/v6/solver-discovery") {
      c.add(
        failure(
          exchange,
          "solverDiscovery is not the solver discovery document",
          "/.well-known/svc-solver.json or /api/v6/solver-discovery",
          String(value.solverDiscovery)
        )
      )
    }
    yield* c.done
  })
})

const chainsTokens = Check.make<Env>({
  name: "aggregator_chains_tokens",
  group: "aggregator",
  title:
    "chains and tokens are strict, agree with the signed feed (open routes, limits per route, asset ids), filter by chainId and revalidate with their ETag",
  reference:
    "spec §4 aggregator_chains, aggregator_tokens; docs/aggregator.md, Chains, tokens, health and the manifest (chains, tokens, ETag)",
  run: Effect.gen(function*() {
    yield* requireAggregator
    const chains = yield* strictGet("/v1/chains", AggregatorChains)
    const tokens = yield* strictGet("/v1/tokens", AggregatorTokens)
    const shared = yield* Shared
    const feed = yield* shared.freshFeed
    const c = Check.collector()
    if (chains.value.dataVersion === feed.dataVersion) {
      const signed = new Map(feed.routes.map((r) => [String(r.routeId).toLowerCase(), r]))
      for (const entry of (chains.value.routes as Array<Json>)) {
        const route = signed.get(String(entry.routeId).toLowerCase())
        if (route === undefined || !isQuotable(route)) {
          c.add(
            failure(
              chains.exchange,
              `chains.routes lists ${String(entry.routeId).slice(0, 10)}…, not a quotable signed route`,
              "open L1 routes of signedPayload only",
              route === undefined ? "unknown routeId" : "not open or not L1"
            )
          )
          continue
        }
        for (const key of ["quoteId", "minimumFillInRaw", "maxAvailableInRaw", "validUntil"] as const) {
          if (!sameJson(String(entry[key]).toLowerCase(), String(route[key]).toLowerCase())) {
            c.add(
              failure(
                chains.exchange,
                `chains.routes ${String(entry.routeId).slice(0, 10)}….${key} differs from the signed route`,
                String(route[key]),
                String(entry[key])
              )
            )
          }
        }
        if (
          String(entry.fromChainId) !== String(route.sourceChainId) || !sameAddress(entry.fromToken, route.sourceAsset)
        ) {
          c.add(
            failure(
              chains.exchange,
              "a chains route's pair differs from the signed route",
              `${route.sourceChainId}/${route.sourceAsset}`,
              `${String(entry.fromChainId)}/${String(entry.fromToken)}`
            )
          )
        }
      }
    }
    for (const token of tokens.value.tokens as Array<Json>) {
      try {
        const expected = Ids.evmAssetId(Ids.evmNetworkId(Number(token.chainId)), String(token.address))
        if (String(token.assetId).toLowerCase() !== expected) {
          c.add(
            failure(
              tokens.exchange,
              `token ${String(token.symbol)} on ${String(token.chainId)} has another assetId`,
              expected,
              String(token.assetId)
            )
          )
        }
      } catch {
        c.add(
          failure(
            tokens.exchange,
            "a token has a malformed chainId or address",
            "integer chain id and address",
            JSON.stringify(token)
          )
        )
      }
    }
    const chainId = (tokens.value.tokens as Array<Json>)[0]?.chainId
    if (chainId !== undefined) {
      const filtered = yield* send({ path: `/v1/tokens?chainId=${String(chainId)}` })
      const list = asObject(Exchange.json(filtered))?.tokens
      if (
        filtered.response.status !== 200 || !Array.isArray(list) || list.some((t) => asObject(t)?.chainId !== chainId)
      ) {
        c.add(
          failure(
            filtered,
            `tokens?chainId=${String(chainId)} returns tokens of other chains`,
            `only chainId ${String(chainId)}`,
            Exchange.responseSummary(filtered)
          )
        )
      }
    }
    for (const { exchange } of [chains, tokens]) {
      const etag = exchange.response.headers.etag
      if (etag === undefined) {
        c.add(failure(exchange, `${pathOf(exchange.request.url)} has no ETag`, "an ETag", "absent"))
        continue
      }
      const again = yield* send({ path: pathOf(exchange.request.url)!, headers: { "if-none-match": etag } })
      if (again.response.status !== 304 && again.response.headers.etag === etag) {
        c.add(failure(again, "the ETag does not revalidate", "304", Exchange.responseSummary(again)))
      }
    }
    yield* c.done
  })
})

/** A quote for minimumFillInRaw of the first route of /v1/chains, requested once per run (quotes are rate limited). */
const quotes = new WeakMap<object, Exit.Exit<QuoteExchange, Check.CheckFailed | Check.Inconclusive | Check.Skip>>()

interface QuoteExchange {
  readonly entry: Json
  readonly request: Json
  readonly exchange: Exchange.Exchange
}

const quoteFor = Effect.gen(function*() {
  const shared = yield* Shared
  const hit = quotes.get(shared)
  if (hit !== undefined) return yield* hit
  const exit = yield* Effect.exit(Effect.gen(function*() {
    const chains = yield* send({ path: "/v1/chains" })
    const routes = asObject(Exchange.json(chains))?.routes
    const entry = Array.isArray(routes) ? asObject(routes[0]) : undefined
    if (entry === undefined) return yield* new Check.Skip({ reason: "/v1/chains lists no route to quote" })
    const request: Json = {
      fromChainId: entry.fromChainId,
      toChainId: entry.toChainId,
      fromToken: entry.fromToken,
      toToken: entry.toToken,
      amountIn: entry.minimumFillInRaw,
      userAddress: shared.wallet.address,
      routeId: entry.routeId
    }
    const exchange = yield* send({ method: "POST", path: "/v1/quote", json: request })
    return { entry, request, exchange }
  }))
  quotes.set(shared, exit)
  return yield* exit
})

const quote = Check.make<Env>({
  name: "aggregator_quote",
  group: "aggregator",
  title:
    "POST /v1/quote for minimumFillInRaw of an open route answers a strict AggregatorQuote bound to that signed route",
  reference: "spec §4 aggregator_quote; docs/aggregator.md, Quotes",
  run: Effect.gen(function*() {
    yield* requireAggregator
    const { entry, exchange, request } = yield* quoteFor
    yield* expectStatus(exchange, 200, "POST /v1/quote")
    const value = (yield* Check.expectSchema(AggregatorQuote, Exchange.json(exchange), "the quote", exchange)) as Json
    const c = Check.collector()
    const now = yield* nowSeconds
    for (const key of ["routeId", "quoteId"] as const) {
      if (String(value[key]).toLowerCase() !== String(entry[key]).toLowerCase()) {
        c.add(failure(exchange, `quote.${key} is not the route's`, String(entry[key]), String(value[key])))
      }
    }
    if (value.amountIn !== request.amountIn) {
      c.add(
        failure(
          exchange,
          "quote.amountIn is not the requested amount",
          String(request.amountIn),
          String(value.amountIn)
        )
      )
    }
    if (!(Number(value.expiresAt) > now && Number(value.expiresAt) <= Number(entry.validUntil))) {
      c.add(
        failure(
          exchange,
          "quote.expiresAt is not within the route's validity",
          `now (${now}) < expiresAt <= ${String(entry.validUntil)}`,
          String(value.expiresAt)
        )
      )
    }
    if (!sameAddress(value.userAddress, request.userAddress) || !sameAddress(value.recipient, request.userAddress)) {
      c.add(
        failure(
          exchange,
          "the quote does not echo userAddress and the default recipient",
          String(request.userAddress),
          `${String(value.userAddress)} / ${String(value.recipient)}`
        )
      )
    }
    yield* c.done
  })
})

const buildBody = (quoteValue: Json, user: string, key: string) => ({
  quoteToken: quoteValue.quoteToken,
  quoteId: quoteValue.quoteId,
  routeId: quoteValue.routeId,
  userAddress: user,
  idempotencyKey: key
})

const stage1 = Check.make<Env>({
  name: "aggregator_build_signature_required",
  group: "aggregator",
  title:
    "build without requestSignature answers the solver's permit request message (standard DIRECT) for the quoted amount, byte for byte",
  reference: "spec §4 aggregator_build (two stages); docs/aggregator.md, Build (stage 1)",
  run: Effect.gen(function*() {
    yield* requireAggregator
    const shared = yield* Shared
    const { exchange: quoted } = yield* quoteFor
    if (quoted.response.status !== 200) return yield* new Check.Skip({ reason: "no quote (see aggregator_quote)" })
    const q = asObject(Exchange.json(quoted))!
    const key = shared.newKey()
    const exchange = yield* send({ method: "POST", path: "/v1/build", json: buildBody(q, shared.wallet.address, key) })
    yield* expectStatus(exchange, 200, "POST /v1/build (stage 1)")
    const value = (yield* Check.expectSchema(
      AggregatorBuildSignatureRequired,
      Exchange.json(exchange),
      "build stage 1",
      exchange
    )) as Json
    const expected = PermitMessage.build({
      quoteId: String(q.quoteId),
      requestedAmountInRaw: String(q.amountIn),
      standard: "DIRECT",
      payer: shared.wallet.address,
      recipient: shared.wallet.address,
      idempotencyKey: key
    })
    const message = asObject(value.signingPayload)?.message
    if (message !== expected) {
      return yield* Check.fail(
        failure(
          exchange,
          "signingPayload.message is not the permit request message",
          JSON.stringify(expected),
          JSON.stringify(message)
        )
      )
    }
  })
})

const stage2 = Check.make<Env>({
  name: "aggregator_build_transaction",
  group: "aggregator",
  title:
    "build with the EIP-191 signature answers the fillDirect transaction of a permit signed by the authority, for the quoted amounts; status by fillId follows",
  reference: "spec §4 aggregator_build, aggregator_status; docs/aggregator.md, Build (stage 2); Status",
  createsPermit: true,
  run: Effect.gen(function*() {
    yield* requireAggregator
    const shared = yield* Shared
    const authority = yield* shared.authority
    const { exchange: quoted } = yield* quoteFor
    if (quoted.response.status !== 200) return yield* new Check.Skip({ reason: "no quote (see aggregator_quote)" })
    const q = asObject(Exchange.json(quoted))!
    const body = buildBody(q, shared.wallet.address, shared.newKey())
    const first = yield* send({ method: "POST", path: "/v1/build", json: body })
    const message = asObject(asObject(Exchange.json(first))?.signingPayload)?.message
    if (typeof message !== "string") {
      return yield* new Check.Skip({
        reason: "build stage 1 gave no message (see aggregator_build_signature_required)"
      })
    }
    const exchange = yield* send({
      method: "POST",
      path: "/v1/build",
      json: { ...body, requestSignature: PermitMessage.sign(message, shared.wallet.key) }
    })
    yield* expectStatus(exchange, 200, "POST /v1/build (stage 2)")
    const value = (yield* Check.expectSchema(
      AggregatorBuildTransaction,
      Exchange.json(exchange),
      "build stage 2",
      exchange
    )) as Json
    const envelope = asObject(value.permit) ?? {}
    const permit = (asObject(envelope.permit) ?? {}) as unknown as PermitAbi.AbiPermit & Json
    const c = Check.collector()
    const add = (title: string, expected: unknown, actual: unknown) =>
      c.add(failure(exchange, title, String(expected), String(actual)))
    try {
      if (
        String(value.data).toLowerCase() !==
          PermitAbi.encodeFillDirect(permit, String(envelope.permitSignature)).toLowerCase()
      ) {
        add(
          "data is not the fillDirect calldata of the permit",
          PermitAbi.encodeFillDirect(permit, String(envelope.permitSignature)).slice(0, 74) + "…",
          String(value.data).slice(0, 74) + "…"
        )
      }
      const recovered = PermitDigest.recoverSigner(permit, String(envelope.permitSignature))
      if (Result.isFailure(recovered) || !sameAddress(recovered.success, authority)) {
        add(
          "the permit is not signed by the authority",
          authority,
          Result.isFailure(recovered) ? recovered.failure.message : recovered.success
        )
      }
    } catch (e) {
      add("the permit has no ABI encoding", "a valid permit", String((e as Error).message))
    }
    if (permit.amountInRaw !== q.amountIn) {
      add("permit.amountInRaw is not the quoted amountIn", q.amountIn, permit.amountInRaw)
    }
    if (permit.amountOutRaw !== q.amountOut) {
      add("permit.amountOutRaw is not the quoted amountOut", q.amountOut, permit.amountOutRaw)
    }
    if (
      !sameAddress(value.target, q.sourceRouter) || !sameAddress(value.from, shared.wallet.address) ||
      value.chainId !== q.fromChainId
    ) {
      add(
        "the transaction is not from the user to the source router on the source chain",
        `${String(q.fromChainId)} ${shared.wallet.address} -> ${String(q.sourceRouter)}`,
        `${String(value.chainId)} ${String(value.from)} -> ${String(value.target)}`
      )
    }
    if (String(value.fillId).toLowerCase() !== String(permit.fillId).toLowerCase()) {
      add("fillId is not the permit's", permit.fillId, value.fillId)
    }
    const native = /^0x0{40}$/i.test(String(q.fromToken))
    if (value.value !== (native ? q.amountIn : "0")) {
      add("value is not amountIn for native input, else 0", native ? q.amountIn : "0", value.value)
    }
    const approval = asObject(value.approval)
    if (
      native
        ? value.approval !== null
        : !(approval !== undefined && sameAddress(approval.spender, value.target) && approval.amount === q.amountIn)
    ) {
      add(
        "approval is not { spender: target, amount: amountIn } (null for native input)",
        native ? "null" : `${String(value.target)} ${String(q.amountIn)}`,
        JSON.stringify(value.approval)
      )
    }
    const status = yield* send({ path: `/v1/status?fillId=${String(value.fillId)}` })
    const s = Check.schemaIssues(AggregatorStatus, Exchange.json(status))
    if (status.response.status !== 200 || s.length > 0) {
      c.add(
        failure(
          status,
          "status by fillId does not answer a strict AggregatorStatus",
          "200 AggregatorStatus",
          `${Exchange.responseSummary(status)} ${s.join("; ")}`
        )
      )
    } else if (asObject(Exchange.json(status))?.status !== "PERMITTED") {
      c.add(
        failure(status, "a fresh fill is not PERMITTED", "PERMITTED", String(asObject(Exchange.json(status))?.status))
      )
    }
    const byUser = yield* send({ path: `/v1/status?userAddress=${shared.wallet.address}` })
    const list = asObject(Exchange.json(byUser))
    if (
      Check.schemaIssues(AggregatorStatusList, list).length > 0 ||
      !(list?.transactions as Array<Json> | undefined)?.some((t) =>
        String(t.fillId).toLowerCase() === String(value.fillId).toLowerCase()
      )
    ) {
      c.add(
        failure(
          byUser,
          "status by userAddress does not list the fill",
          "an AggregatorStatusList with the fill",
          Exchange.responseSummary(byUser)
        )
      )
    }
    yield* c.done
  })
})

const statusLookups = Check.make<Env>({
  name: "aggregator_status_lookups",
  group: "aggregator",
  title:
    "status by quoteToken answers validity; an unknown fillId 404; no or two lookups 400; each error a strict AggregatorError with its table status and action",
  reference: "spec §4 aggregator_status; docs/aggregator.md, Status (exactly one lookup)",
  run: Effect.gen(function*() {
    yield* requireAggregator
    const c = Check.collector()
    const { exchange: quoted } = yield* quoteFor
    const q = asObject(Exchange.json(quoted))
    if (quoted.response.status === 200 && q !== undefined) {
      const validity = yield* send({ path: `/v1/status?quoteToken=${String(q.quoteToken)}` })
      const v = Exchange.json(validity)
      if (
        validity.response.status !== 200 || Check.schemaIssues(AggregatorQuoteValidity, v).length > 0 ||
        asObject(v)?.quoteValid !== true
      ) {
        c.add(
          failure(
            validity,
            "a fresh quoteToken is not reported valid",
            "{ quoteValid: true, quoteError: null }",
            Exchange.responseSummary(validity)
          )
        )
      }
    }
    for (
      const [query, status] of [[`fillId=${randomHex(32)}`, 404], ["", 400], [
        `fillId=${randomHex(32)}&quoteId=${randomHex(32)}`,
        400
      ], ["fillId=0x12", 400]] as const
    ) {
      const exchange = yield* send({ path: `/v1/status${query === "" ? "" : `?${query}`}` })
      const problems = errorProblems(exchange)
      if (exchange.response.status !== status || problems.length > 0) {
        c.add(
          failure(
            exchange,
            `/v1/status?${query} is not refused with ${status} and a valid AggregatorError`,
            `${status} AggregatorError`,
            `${Exchange.responseSummary(exchange)} ${problems.join("; ")}`
          )
        )
      }
    }
    yield* c.done
  })
})

/** A refused aggregator input: a documented aggregator 4xx with an AggregatorError that follows the code table. */
const judgeAggregator = (exchange: Exchange.Exchange, statuses: ReadonlyArray<number>): Verdict => {
  const status = exchange.response.status
  if (status >= 500) return { ok: false, problem: `answered ${status}`, exchange }
  if (status < 400) return { ok: false, problem: `accepted (${status})`, exchange }
  if (!statuses.includes(status)) {
    return { ok: false, problem: `answered ${status}, not an aggregator status (${statuses.join(", ")})`, exchange }
  }
  const problems = errorProblems(exchange)
  return problems.length > 0
    ? {
      ok: false,
      problem: `the error body is not a valid AggregatorError: ${problems.slice(0, 3).join("; ")}`,
      exchange
    }
    : { ok: true, exchange }
}

const AGGREGATOR_4XX = [400, 403, 404, 405, 409, 410, 413]

type QuoteMutation =
  | { readonly kind: "remove"; readonly field: string }
  | { readonly kind: "set"; readonly field: string; readonly value: unknown }
  | { readonly kind: "extra"; readonly field: string }
  | { readonly kind: "body"; readonly value: unknown }

const quoteMutations: fc.Arbitrary<QuoteMutation> = fc.oneof(
  fc.constantFrom("fromChainId", "toChainId", "fromToken", "toToken", "amountIn").map((field) =>
    ({ kind: "remove", field }) as const
  ),
  fc.record({
    field: fc.constantFrom("fromChainId", "toChainId"),
    value: fc.oneof(fc.constantFrom(0, -1, 1.5, "8453", null, true), fc.integer({ min: 1_000_000, max: 2_000_000_000 }))
  }).map(({ field, value }) => ({ kind: "set", field, value }) as const),
  fc.record({
    field: fc.constantFrom("fromToken", "toToken", "userAddress", "recipient"),
    value: fc.oneof(badAddress, notAString)
  })
    .map(({ field, value }) => ({ kind: "set", field, value }) as const),
  fc.oneof(
    fc.constantFrom("0", "01", "-1", "1.5", "", 1000000),
    fc.bigInt({ min: 1n << 128n, max: 1n << 140n }).map(String)
  )
    .map((value) => ({ kind: "set", field: "amountIn", value }) as const),
  badBytes32.map((value) => ({ kind: "set", field: "routeId", value }) as const),
  fc.constantFrom("slippage", "feeBps", "amountOut", "integratorFee").map((field) =>
    ({ kind: "extra", field }) as const
  ),
  fc.constantFrom([], "quote", 1, null).map((value) => ({ kind: "body", value }) as const)
)

const describeQuoteMutation = (m: QuoteMutation) =>
  m.kind === "remove"
    ? `without ${m.field}`
    : m.kind === "set"
    ? `${m.field} = ${JSON.stringify(m.value)}`
    : m.kind === "extra"
    ? `unknown field ${m.field}`
    : `body ${JSON.stringify(m.value)}`

const quoteErrors = Check.make<Env>({
  name: "aggregator_quote_errors",
  group: "aggregator",
  title:
    "generated malformed quote requests get a documented aggregator 4xx whose AggregatorError follows the code table (status, action, retryable)",
  reference:
    "spec §4, §7 (AggregatorError); docs/aggregator.md, Errors; at most 6 inputs (quotes count against the quote rate limit)",
  run: Effect.gen(function*() {
    yield* requireAggregator
    const { entry } = yield* quoteFor
    const base: Json = {
      fromChainId: entry.fromChainId,
      toChainId: entry.toChainId,
      fromToken: entry.fromToken,
      toToken: entry.toToken,
      amountIn: entry.minimumFillInRaw
    }
    return yield* property(
      "aggregator_quote_errors",
      quoteMutations,
      (m) => {
        if (m.kind === "body") return { method: "POST", path: "/v1/quote", json: m.value }
        if (m.kind === "remove") {
          const { [m.field]: _, ...rest } = base
          return { method: "POST", path: "/v1/quote", json: rest }
        }
        return { method: "POST", path: "/v1/quote", json: { ...base, [m.field]: m.kind === "extra" ? 1 : m.value } }
      },
      AGGREGATOR_4XX,
      describeQuoteMutation,
      { judge: judgeAggregator, maxRuns: 6 }
    )
  })
})

/** Strings that are not a quoteToken (`^[0-9a-f]{64}$`). */
const badQuoteToken = fc.oneof(
  fc.stringMatching(/^[0-9a-f]{63}$/),
  fc.stringMatching(/^[0-9a-f]{65}$/),
  fc.stringMatching(/^[0-9a-f]{63}$/).map((h) => `${h}G`),
  fc.stringMatching(/^[0-9a-f]{63}$/).map((h) => `A${h}`),
  fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `0x${h}`),
  fc.constant("")
)

const statusQueries = Check.make<Env>({
  name: "aggregator_negative_status_query",
  group: "aggregator",
  title:
    "generated malformed status queries (no lookup, two lookups, unknown parameters, malformed values) get a documented 4xx AggregatorError",
  reference: "spec §4 aggregator_status; docs/aggregator.md, Status (exactly one lookup parameter)",
  run: Effect.gen(function*() {
    yield* requireAggregator
    const lookups = ["fillId", "sourceTxHash", "quoteId", "userAddress", "quoteToken"] as const
    return yield* property(
      "aggregator_negative_status_query",
      fc.oneof(
        fc.constant([] as Array<[string, string]>),
        // each lookup key with a value malformed for that key (64 lowercase hex is a valid quoteToken)
        fc.constantFrom(...lookups).chain((k) =>
          fc.oneof(k === "quoteToken" ? badQuoteToken : badBytes32, fc.string({ maxLength: 10 })).map((v) =>
            [[k, v]] as Array<[string, string]>
          )
        ),
        fc.uniqueArray(fc.constantFrom(...lookups), { minLength: 2, maxLength: 3 }).map((ks) =>
          ks.map((k) =>
            [
              k,
              k === "userAddress" ? `0x${"1".repeat(40)}` : k === "quoteToken" ? "a".repeat(64) : `0x${"1".repeat(64)}`
            ] as [string, string]
          )
        ),
        fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !(lookups as ReadonlyArray<string>).includes(k)).map((
          k
        ) => [[k, "1"]] as Array<[string, string]>)
      ),
      (pairs) => ({ path: `/v1/status${pairs.length === 0 ? "" : `?${new URLSearchParams(pairs).toString()}`}` }),
      AGGREGATOR_4XX,
      (pairs) => `?${new URLSearchParams(pairs).toString()}`,
      { judge: judgeAggregator }
    )
  })
})

/**
 * The aggregator checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [health, manifest, chainsTokens, quote, stage1, stage2, statusLookups, quoteErrors, statusQueries]
