/**
 * The aggregator interface (`/v1`, `/.well-known/svc-aggregator.json`) against
 * real servers: the wallet flow end to end (quote, build stage 1, wallet
 * signature, build stage 2, calldata decoded back into the permit, status),
 * refusals with their codes, ETag/304, expiry, closed routes, moved prices,
 * idempotent replays, origin allow-list, rate limits, and fuzzed malformed
 * requests (documented 4xx with an AggregatorError body, never a 5xx).
 */
import { NodeHttpServer, NodeServices } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import { fc } from "@fast-check/vitest"
import { Aggregator, Pricing, Publisher, Settlement, Signer, Store } from "@svc/core"
import {
  AGGREGATOR_ERRORS,
  AggregatorBuildSignatureRequired,
  AggregatorBuildTransaction,
  AggregatorChains,
  AggregatorError,
  type AggregatorErrorCode,
  AggregatorHealth,
  AggregatorManifest,
  AggregatorQuote,
  AggregatorStatus,
  AggregatorStatusList,
  AggregatorTokens,
  CanonicalJson,
  PermitAbi,
  PermitDigest,
  Signature,
  strictParseOptions
} from "@svc/protocol"
import { SqliteStore } from "@svc/store"
import { Context, Effect, Layer, Option, Redacted, References, Result, Schema } from "effect"
import { createHmac } from "node:crypto"
import { mkdtempSync, statSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { scaled } from "../../../test/support/time.ts"
import * as App from "../src/App.ts"
import { AUTHORITY_KEY, baseUrl, demoCatalog, serverLayer, testConfig } from "./support/server.ts"

/** Test time-outs, stretched on a loaded machine (test/support/time.ts). */
const T60S = scaled(60_000)

const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
const USDT_BSC = "0x55d398326f99059fF775485246999027B3197955"
const authority = Signature.addressOf(AUTHORITY_KEY)
const UNLIMITED = { windowSeconds: 60, requestsPerWindow: 1_000_000, quoteAndBuildPerWindow: 1_000_000 }

// ---------------------------------------------------------------------------
// Servers
// ---------------------------------------------------------------------------

/** Static pricing with hour-long cycles (no cycle boundary inside a test) and a mutable factor on fresh prices. */
const factor = { num: 1n, den: 1n }
const movablePricing = (() => {
  const base = Pricing.makeStatic({ cycleSeconds: 3600 })
  return Layer.succeed(Pricing.Pricing, {
    ...base,
    quote: (route, amount) =>
      Effect.map(base.quote(route, amount), (q) => ({ ...q, amountOutRaw: (q.amountOutRaw * factor.num) / factor.den }))
  })
})()

const appLayer = (aggregator: App.AppAggregatorOptions, parts: App.AppParts = { pricing: movablePricing }) =>
  App.layer({
    catalog: demoCatalog,
    engine: { publisher: { tickMillis: 60_000 } },
    parts,
    aggregator
  }).pipe(
    Layer.provideMerge(Layer.mergeAll(
      SqliteStore.layer({ filename: ":memory:" }),
      Layer.succeed(Signer.Signer, Signer.fromPrivateKey(Redacted.make(AUTHORITY_KEY))),
      NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })
    )),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "None"))
  )

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const call = (path: string, init?: RequestInit) =>
  Effect.flatMap(baseUrl, (url) => Effect.promise(() => fetch(`${url}${path}`, init)))
const get = (path: string, headers?: Record<string, string>) => call(path, headers === undefined ? {} : { headers })
const post = (path: string, body: unknown, headers?: Record<string, string>) =>
  call(path, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers }
  })
const json = (response: Response) => Effect.promise(() => response.json() as Promise<any>)

const decodes = <S extends Schema.Decoder<unknown>>(schema: S, value: unknown, what = "") => {
  const decoded = Schema.decodeUnknownResult(schema)(value, strictParseOptions)
  assert.isTrue(Result.isSuccess(decoded), `${what} ${Result.isFailure(decoded) ? decoded.failure.message : ""}`)
}

/** Asserts an AggregatorError of `code` with its documented status; returns the body. */
const expectError = (response: Response, code: AggregatorErrorCode, reason?: string) =>
  Effect.gen(function*() {
    const body = yield* json(response)
    assert.strictEqual(body.error, code, JSON.stringify(body))
    assert.strictEqual(response.status, AGGREGATOR_ERRORS[code].status)
    assert.strictEqual(response.headers.get("cache-control"), "no-store")
    decodes(AggregatorError, body, code)
    assert.strictEqual(body.action, AGGREGATOR_ERRORS[code].action)
    assert.strictEqual(body.retryable, AGGREGATOR_ERRORS[code].retryable)
    if (reason !== undefined) assert.include(body.reasonCodes ?? [], reason)
    return body
  })

const wallet = () => privateKeyToAccount(generatePrivateKey())

let keys = 0
const newKey = () => `agg-http-${Date.now()}-${keys++}`

const pairOf = (fromChainId: number, toChainId: number) =>
  Effect.gen(function*() {
    const chains = yield* json(yield* get("/v1/chains"))
    return chains.pairs.find((p: any) => p.fromChainId === fromChainId && p.toChainId === toChainId) as {
      fromChainId: number
      toChainId: number
      fromToken: string
      toToken: string
      routeId: string
    }
  })

const quoteFor = (userAddress: string, amountIn = "5000000", extra?: Record<string, unknown>) =>
  Effect.gen(function*() {
    const pair = yield* pairOf(8453, 56)
    const response = yield* post("/v1/quote", { ...pair, amountIn, userAddress, ...extra })
    const body = yield* json(response)
    assert.strictEqual(response.status, 200, JSON.stringify(body))
    return body as AggregatorQuote
  })

/** quote -> build stage 1 -> wallet signature -> build stage 2. */
const buildFor = (account: ReturnType<typeof wallet>, q: AggregatorQuote, key = newKey(), recipient?: string) =>
  Effect.gen(function*() {
    const request = {
      quoteToken: q.quoteToken,
      quoteId: q.quoteId,
      routeId: q.routeId,
      userAddress: account.address,
      idempotencyKey: key,
      ...(recipient === undefined ? {} : { recipient })
    }
    const first = yield* post("/v1/build", request)
    const stage1 = yield* json(first)
    assert.strictEqual(first.status, 200, JSON.stringify(stage1))
    const requestSignature = yield* Effect.promise(() =>
      account.signMessage({ message: stage1.signingPayload.message })
    )
    const second = yield* post("/v1/build", { ...request, requestSignature })
    return { request, stage1, second, requestSignature }
  })

// ---------------------------------------------------------------------------
// The main server
// ---------------------------------------------------------------------------

layer(appLayer({ rateLimits: UNLIMITED }), { excludeTestServices: true, timeout: T60S })(
  "aggregator over HTTP",
  (it) => {
    describe("the wallet flow", () => {
      it.effect("quote -> build -> sign -> build -> calldata binds every amount; status agrees; replay", () =>
        Effect.gen(function*() {
          const account = wallet()
          const recipient = wallet().address
          const pair = yield* pairOf(8453, 56)
          const quoted = yield* post("/v1/quote", {
            ...pair,
            amountIn: "12345678",
            userAddress: account.address,
            recipient
          })
          assert.strictEqual(quoted.status, 200)
          assert.strictEqual(quoted.headers.get("cache-control"), "no-store")
          assert.match(quoted.headers.get("ratelimit-policy") ?? "", /"quote-build";q=1000000;w=60/)
          const q = (yield* json(quoted)) as AggregatorQuote
          decodes(AggregatorQuote, q, "quote")
          assert.strictEqual(q.routeId, pair.routeId)
          assert.strictEqual(q.amountIn, "12345678")
          assert.strictEqual(q.amountOut, Pricing.linearAmountOut(12_345_678n, 10n ** 12n, 1n, 5).toString())
          assert.isAbove(q.expiresAt, Math.floor(Date.now() / 1000))

          const { request, requestSignature, second, stage1 } = yield* buildFor(account, q, newKey(), recipient)
          decodes(AggregatorBuildSignatureRequired, stage1, "stage 1")
          assert.isTrue(stage1.signatureRequired)
          assert.deepStrictEqual(stage1.quote, q)
          assert.strictEqual(stage1.expiresAt, q.expiresAt)
          assert.include(stage1.signingPayload.message, `payer=${account.address.toLowerCase()}`)
          assert.include(stage1.signingPayload.message, `recipient=${recipient.toLowerCase()}`)
          assert.include(stage1.signingPayload.message, `requestedAmountInRaw=${q.amountIn}`)
          assert.include(stage1.signingPayload.message, "standard=DIRECT")

          const tx = yield* json(second)
          assert.strictEqual(second.status, 200, JSON.stringify(tx))
          decodes(AggregatorBuildTransaction, tx, "stage 2")
          assert.isFalse(tx.signatureRequired)
          assert.strictEqual(tx.chainId, 8453)
          assert.strictEqual(tx.from, account.address)
          assert.strictEqual(tx.target, q.sourceRouter)
          assert.strictEqual(tx.value, "0")
          assert.deepStrictEqual(tx.approval, { spender: q.sourceRouter, amount: q.amountIn })
          assert.strictEqual(tx.quoteId, q.quoteId)
          assert.strictEqual(tx.routeId, q.routeId)
          assert.deepStrictEqual(tx.quote, q)
          // decode the transaction back into the permit: every bound amount and identity
          const { permit, signature } = PermitAbi.decodeFillDirect(tx.data)
          assert.strictEqual(permit.amountInRaw, q.amountIn)
          assert.strictEqual(permit.amountOutRaw, q.amountOut)
          assert.strictEqual(permit.payer, account.address)
          assert.strictEqual(permit.recipient, recipient)
          assert.strictEqual(permit.fillId, tx.fillId)
          assert.strictEqual(permit.quoteId, q.quoteId)
          assert.strictEqual(permit.routeId, q.routeId)
          assert.strictEqual(permit.sourceChainId, "8453")
          assert.strictEqual(permit.destinationChainId, "56")
          assert.strictEqual(permit.sourceAsset, USDC_BASE)
          assert.strictEqual(permit.destinationAsset, USDT_BSC)
          assert.strictEqual(permit.sourceRouter, q.sourceRouter)
          assert.strictEqual(String(permit.validUntil), String(tx.expiresAt))
          assert.strictEqual(signature, tx.permit.permitSignature)
          const recovered = Signature.recoverDigestSigner(PermitDigest.digest(tx.permit.permit), signature)
          assert.isTrue(Result.isSuccess(recovered) && recovered.success === authority)
          // the solver interface serves the same permit
          const solver = yield* json(yield* get(`/api/v6/execution-permits/${tx.fillId}`))
          assert.deepStrictEqual(solver.permit, tx.permit)

          // status by fillId, quoteId, userAddress and quoteToken agree
          const byFill = yield* json(yield* get(`/v1/status?fillId=${tx.fillId}`))
          decodes(AggregatorStatus, byFill, "status")
          assert.deepStrictEqual(
            [
              byFill.fillId,
              byFill.status,
              byFill.terminal,
              byFill.amountIn,
              byFill.amountOut,
              byFill.userAddress,
              byFill.recipient
            ],
            [tx.fillId, "PERMITTED", false, q.amountIn, q.amountOut, account.address, recipient]
          )
          const byQuote = yield* json(yield* get(`/v1/status?quoteId=${q.quoteId}`))
          decodes(AggregatorStatusList, byQuote, "status list")
          assert.deepStrictEqual(byQuote.transactions.find((t: any) => t.fillId === tx.fillId), byFill)
          const byUser = yield* json(yield* get(`/v1/status?userAddress=${account.address}`))
          assert.deepStrictEqual(byUser, {
            transactions: [byFill],
            lookup: { by: "userAddress", value: account.address },
            limit: 20
          })
          const byToken = yield* get(`/v1/status?quoteToken=${q.quoteToken}`)
          assert.strictEqual(byToken.headers.get("cache-control"), "no-store")
          assert.deepStrictEqual(yield* json(byToken), { quoteValid: true, quoteError: null })

          // replay: the same body again -> the same fillId, no second permit
          const again = yield* post("/v1/build", { ...request, requestSignature })
          const replayed = yield* json(again)
          assert.strictEqual(again.status, 200)
          assert.strictEqual(replayed.fillId, tx.fillId)
          assert.strictEqual(replayed.data, tx.data)
          assert.strictEqual(
            (yield* json(yield* get(`/v1/status?userAddress=${account.address}`))).transactions.length,
            1
          )
          // another key for the same quote is another intent: a new permit
          const other = yield* buildFor(account, q)
          assert.notStrictEqual((yield* json(other.second)).fillId, tx.fillId)
          assert.strictEqual(
            (yield* json(yield* get(`/v1/status?userAddress=${account.address}`))).transactions.length,
            2
          )
        }))

      it.effect("a moved price: 409 QUOTE_CHANGED with REFRESH_QUOTE", () =>
        Effect.gen(function*() {
          const account = wallet()
          const q = yield* quoteFor(account.address)
          factor.num = 99n
          factor.den = 100n
          try {
            const { second } = yield* buildFor(account, q)
            yield* expectError(second, "QUOTE_CHANGED", "PRICE_MOVED")
            assert.deepStrictEqual(yield* json(yield* get(`/v1/status?quoteToken=${q.quoteToken}`)), {
              quoteValid: false,
              quoteError: "QUOTE_CHANGED"
            })
          } finally {
            factor.num = 1n
            factor.den = 1n
          }
          const { second } = yield* buildFor(account, q)
          assert.strictEqual(second.status, 200)
        }))

      it.effect("a closed route: 410 ROUTE_CLOSED with REFRESH_QUOTE; quotes 404 NO_ROUTE", () =>
        Effect.gen(function*() {
          const account = wallet()
          const pair = yield* pairOf(56, 8453)
          const quoted = yield* post("/v1/quote", {
            ...pair,
            amountIn: "1000000000000000000",
            userAddress: account.address
          })
          const q = (yield* json(quoted)) as AggregatorQuote
          const store = yield* Store.Store
          const publisher = yield* Publisher.Publisher
          yield* store.setRouteOverride(q.routeId, { executionStatus: "PAUSED" })
          yield* publisher.publishNow
          try {
            const build = yield* post("/v1/build", {
              quoteToken: q.quoteToken,
              quoteId: q.quoteId,
              routeId: q.routeId,
              userAddress: account.address,
              idempotencyKey: newKey()
            })
            yield* expectError(build, "ROUTE_CLOSED", "ROUTE_NOT_OPEN")
            yield* expectError(
              yield* post("/v1/quote", { ...pair, amountIn: "1000000000000000000" }),
              "NO_ROUTE",
              "ROUTE_NOT_OPEN"
            )
            const chains = yield* json(yield* get("/v1/chains"))
            assert.isFalse(chains.pairs.some((p: any) => p.routeId === q.routeId))
          } finally {
            yield* store.setRouteOverride(q.routeId, {})
            yield* publisher.publishNow
          }
        }))
    })

    describe("terminal states", () => {
      it.effect("status: an EXPIRED permit is EXPIRED and a FAILED one FAILED, both terminal, by every lookup", () =>
        Effect.gen(function*() {
          const account = wallet()
          const store = yield* Store.Store
          const observer = yield* Settlement.SettlementObserver
          const q = yield* quoteFor(account.address)
          const permitted = () =>
            Effect.gen(function*() {
              const { second } = yield* buildFor(account, q)
              const tx = yield* json(second)
              assert.strictEqual(second.status, 200, JSON.stringify(tx))
              return tx.fillId as string
            })
          const unfilled = yield* permitted()
          const refused = yield* permitted()
          const reverted = yield* permitted()
          // what the expiry sweep does to an unfilled permit after validUntil and its grace
          const expired = yield* store.transition({
            fillId: unfilled,
            to: "EXPIRED",
            at: Date.now(),
            reasonCodes: ["EXPIRED_UNFILLED"]
          })
          assert.strictEqual(expired._tag, "Applied")
          // failed straight from ISSUED, and failed after the source fill was observed and confirmed
          yield* observer.failed(refused, ["OPERATOR_TEST"])
          const sourceTx = `0x${"5e".repeat(32)}`
          yield* observer.sourceObserved(reverted, sourceTx)
          yield* observer.sourceConfirmed(reverted)
          yield* observer.failed(reverted, ["PAYOUT_REVERTED"])

          const statusOf = (fillId: string) =>
            Effect.gen(function*() {
              const response = yield* get(`/v1/status?fillId=${fillId}`)
              assert.strictEqual(response.status, 200)
              assert.strictEqual(response.headers.get("cache-control"), "no-store")
              const body = yield* json(response)
              decodes(AggregatorStatus, body, `status of ${fillId}`)
              return body
            })
          const expected = {
            [unfilled]: { status: "EXPIRED", terminal: true, sourceTxHash: null, payoutTxHash: null },
            [refused]: { status: "FAILED", terminal: true, sourceTxHash: null, payoutTxHash: null },
            [reverted]: { status: "FAILED", terminal: true, sourceTxHash: sourceTx, payoutTxHash: null }
          }
          const pick = (s: any) => ({
            status: s.status,
            terminal: s.terminal,
            sourceTxHash: s.sourceTxHash,
            payoutTxHash: s.payoutTxHash
          })
          for (const [fillId, want] of Object.entries(expected)) {
            const one = yield* statusOf(fillId)
            assert.deepStrictEqual(pick(one), want, fillId)
            assert.strictEqual(one.fillId, fillId)
            assert.strictEqual(one.amountIn, q.amountIn)
          }
          const bySource = yield* json(yield* get(`/v1/status?sourceTxHash=${sourceTx}`))
          assert.deepStrictEqual(pick(bySource), expected[reverted])
          // the lists agree: every one of the three, with the same status
          for (const lookup of [`userAddress=${account.address}`, `quoteId=${q.quoteId}`]) {
            const list = yield* json(yield* get(`/v1/status?${lookup}`))
            decodes(AggregatorStatusList, list, lookup)
            const mine = (list.transactions as Array<any>).filter((t) => t.fillId in expected)
            assert.lengthOf(mine, 3, lookup)
            for (const t of mine) assert.deepStrictEqual(pick(t), expected[t.fillId], `${lookup} ${t.fillId}`)
          }
        }))
    })

    describe("refusals", () => {
      it.effect("quote: unsupported chain or token, no route, amount limits, strict bodies", () =>
        Effect.gen(function*() {
          const pair = yield* pairOf(8453, 56)
          const base = { ...pair, amountIn: "5000000" }
          yield* expectError(yield* post("/v1/quote", { ...base, fromChainId: 1 }), "UNSUPPORTED_CHAIN")
          yield* expectError(yield* post("/v1/quote", { ...base, toToken: USDC_BASE }), "UNSUPPORTED_TOKEN")
          const l2 = {
            fromChainId: 56,
            toChainId: 999,
            fromToken: USDT_BSC,
            toToken: "0xB8CE59FC3717ada4C02eaDF9682A9e934F625ebb"
          }
          yield* expectError(
            yield* post("/v1/quote", { ...l2, amountIn: "1000000000000000000" }),
            "NO_ROUTE",
            "NO_L1_ROUTE"
          )
          yield* expectError(
            yield* post("/v1/quote", { ...base, routeId: `0x${"12".repeat(32)}` }),
            "NO_ROUTE",
            "ROUTE_ID_NOT_FOR_PAIR"
          )
          yield* expectError(yield* post("/v1/quote", { ...base, amountIn: "1" }), "AMOUNT_TOO_LOW")
          yield* expectError(yield* post("/v1/quote", { ...base, amountIn: "250000000001" }), "AMOUNT_TOO_HIGH")
          // strict schema: unknown keys, wrong types, bad amounts
          const unknown = yield* expectError(
            yield* post("/v1/quote", { ...base, slippageBps: 50 }),
            "INVALID_REQUEST",
            "UNKNOWN_FIELD"
          )
          assert.match(unknown.message, /slippageBps/)
          yield* expectError(
            yield* post("/v1/quote", { ...base, fromChainId: "8453" }),
            "INVALID_REQUEST",
            "FROM_CHAIN_ID_INVALID"
          )
          yield* expectError(
            yield* post("/v1/quote", { ...base, fromChainId: 8453.5 }),
            "INVALID_REQUEST",
            "FROM_CHAIN_ID_INVALID"
          )
          for (const amountIn of ["0", "01", "-1", "1.5", (1n << 128n).toString(), 5000000]) {
            yield* expectError(yield* post("/v1/quote", { ...base, amountIn }), "INVALID_REQUEST", "AMOUNT_IN_INVALID")
          }
          yield* expectError(
            yield* post("/v1/quote", { ...base, userAddress: null }),
            "INVALID_REQUEST",
            "USER_ADDRESS_INVALID"
          )
          yield* expectError(yield* post("/v1/quote", "{not json"), "INVALID_REQUEST", "BODY_NOT_JSON")
          yield* expectError(yield* post("/v1/quote", "[]"), "INVALID_REQUEST")
          yield* expectError(yield* post("/v1/quote?x=1", base), "INVALID_REQUEST", "UNKNOWN_QUERY_PARAMETER")
          const big = yield* post("/v1/quote", JSON.stringify({ ...base, pad: "x".repeat(33 * 1024) }))
          yield* expectError(big, "BODY_TOO_LARGE")
        }))

      it.effect("build: no overrides, unknown or mismatched quotes, bad signatures, key conflicts", () =>
        Effect.gen(function*() {
          const account = wallet()
          const q = yield* quoteFor(account.address)
          const base = {
            quoteToken: q.quoteToken,
            quoteId: q.quoteId,
            routeId: q.routeId,
            userAddress: account.address,
            idempotencyKey: newKey()
          }
          for (
            const override of [{ amountOut: "1" }, { serviceFeeBps: 0 }, { fees: {} }, { target: q.sourceRouter }, {
              amountIn: "1"
            }, { standard: "DIRECT" }]
          ) {
            yield* expectError(yield* post("/v1/build", { ...base, ...override }), "INVALID_REQUEST", "UNKNOWN_FIELD")
          }
          yield* expectError(
            yield* post("/v1/build", { ...base, quoteToken: q.quoteToken.toUpperCase() }),
            "INVALID_REQUEST",
            "QUOTE_TOKEN_INVALID"
          )
          yield* expectError(yield* post("/v1/build", { ...base, quoteToken: "0".repeat(64) }), "QUOTE_NOT_FOUND")
          yield* expectError(yield* post("/v1/build", { ...base, quoteId: `0x${"34".repeat(32)}` }), "QUOTE_NOT_FOUND")
          const { userAddress: _u, ...noUser } = base
          yield* expectError(yield* post("/v1/build", noUser), "INVALID_REQUEST", "USER_ADDRESS_MISSING")
          const { idempotencyKey: _k, ...noKey } = base
          yield* expectError(yield* post("/v1/build", noKey), "INVALID_REQUEST", "IDEMPOTENCY_KEY_MISSING")
          yield* expectError(
            yield* post("/v1/build", { ...base, userAddress: wallet().address }),
            "INVALID_REQUEST",
            "USER_ADDRESS_MISMATCH"
          )
          const stage1 = yield* json(yield* post("/v1/build", base))
          const forged = yield* Effect.promise(() => wallet().signMessage({ message: stage1.signingPayload.message }))
          yield* expectError(yield* post("/v1/build", { ...base, requestSignature: forged }), "SIGNATURE_INVALID")
          yield* expectError(
            yield* post("/v1/build", { ...base, requestSignature: "0x1234" }),
            "INVALID_REQUEST",
            "REQUEST_SIGNATURE_INVALID"
          )
          // a key bound to one intent cannot carry another
          const built = yield* buildFor(account, q, base.idempotencyKey)
          assert.strictEqual(built.second.status, 200)
          const q2 = yield* quoteFor(account.address, "6000000")
          yield* expectError(
            yield* post("/v1/build", { ...base, quoteToken: q2.quoteToken, quoteId: q2.quoteId }),
            "IDEMPOTENCY_CONFLICT"
          )
        }))

      it.effect("status: exactly one well-formed lookup; unknown fills 404; empty lists", () =>
        Effect.gen(function*() {
          yield* expectError(yield* get("/v1/status"), "INVALID_REQUEST", "LOOKUP_MISSING")
          const h = `0x${"ab".repeat(32)}`
          yield* expectError(yield* get(`/v1/status?fillId=${h}&quoteId=${h}`), "INVALID_REQUEST", "LOOKUP_AMBIGUOUS")
          yield* expectError(
            yield* get(`/v1/status?fillId=${h}&fillId=${h}`),
            "INVALID_REQUEST",
            "REPEATED_QUERY_PARAMETER"
          )
          yield* expectError(yield* get(`/v1/status?fill=${h}`), "INVALID_REQUEST", "UNKNOWN_QUERY_PARAMETER")
          yield* expectError(yield* get("/v1/status?fillId=0x12"), "INVALID_REQUEST", "FILL_ID_INVALID")
          yield* expectError(yield* get(`/v1/status?fillId=${h}`), "FILL_NOT_FOUND")
          yield* expectError(yield* get(`/v1/status?sourceTxHash=${h}`), "FILL_NOT_FOUND")
          assert.deepStrictEqual(yield* json(yield* get(`/v1/status?quoteId=${h}`)), {
            transactions: [],
            lookup: { by: "quoteId", value: h },
            limit: 20
          })
          assert.deepStrictEqual(yield* json(yield* get(`/v1/status?quoteToken=${"cd".repeat(32)}`)), {
            quoteValid: false,
            quoteError: "QUOTE_NOT_FOUND"
          })
        }))

      it.effect("paths and methods: 404 and 405 are AggregatorError bodies; preflight 204", () =>
        Effect.gen(function*() {
          yield* expectError(yield* get("/v1/nope"), "NOT_FOUND")
          yield* expectError(yield* get("/v1"), "NOT_FOUND")
          const put = yield* call("/v1/quote", { method: "PUT", body: "{}" })
          assert.strictEqual(put.headers.get("allow"), "POST, OPTIONS")
          yield* expectError(put, "METHOD_NOT_ALLOWED")
          const getBuild = yield* get("/v1/build")
          yield* expectError(getBuild, "METHOD_NOT_ALLOWED")
          const postChains = yield* post("/v1/chains", "{}")
          assert.strictEqual(postChains.headers.get("allow"), "GET, HEAD, OPTIONS")
          yield* expectError(postChains, "METHOD_NOT_ALLOWED")
          yield* expectError(yield* post("/.well-known/svc-aggregator.json", "{}"), "METHOD_NOT_ALLOWED")
          const preflight = yield* call("/v1/quote", { method: "OPTIONS" })
          assert.strictEqual(preflight.status, 204)
          assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /POST/)
          // the solver paths keep the solver body
          const solver = yield* json(yield* get("/api/v6/nope"))
          assert.isUndefined(solver.action)
          assert.strictEqual(solver.error, "NOT_FOUND")
        }))
    })

    describe("catalog endpoints", () => {
      it.effect("chains and tokens with weak ETags and 304; tokens by chain; health; manifest", () =>
        Effect.gen(function*() {
          const chains = yield* get("/v1/chains")
          const etag = chains.headers.get("etag")!
          assert.match(etag, /^W\/"[0-9]+-[0-9a-f]{16}-chains"$/)
          assert.strictEqual(chains.headers.get("cache-control"), "no-cache")
          const body = yield* json(chains)
          decodes(AggregatorChains, body, "chains")
          assert.strictEqual(body.pairs.length, 4)
          for (const inm of [etag, etag.slice(2), `"x", ${etag}`, "*"]) {
            const cached = yield* get("/v1/chains", { "if-none-match": inm })
            assert.strictEqual(cached.status, 304, inm)
            assert.strictEqual(yield* Effect.promise(() => cached.text()), "")
            assert.strictEqual(cached.headers.get("etag"), etag)
          }
          // a new publication changes the ETag
          yield* (yield* Publisher.Publisher).publishNow
          const fresh = yield* get("/v1/chains", { "if-none-match": etag })
          assert.strictEqual(fresh.status, 200)
          assert.notStrictEqual(fresh.headers.get("etag"), etag)
          yield* json(fresh)

          const tokens = yield* get("/v1/tokens?chainId=56")
          const tokensBody = yield* json(tokens)
          decodes(AggregatorTokens, tokensBody, "tokens")
          assert.deepStrictEqual(tokensBody.tokens.map((t: any) => t.chainId), [56, 56])
          const tag = tokens.headers.get("etag")!
          assert.match(tag, /-tokens-56"$/)
          assert.strictEqual((yield* get("/v1/tokens?chainId=56", { "if-none-match": tag })).status, 304)
          const all = yield* get("/v1/tokens", { "if-none-match": tag })
          assert.strictEqual(all.status, 200)
          assert.strictEqual((yield* json(all)).tokens.length, 5)
          for (const bad of ["0", "-1", "abc", "1.5", "08453", "99999999999999999999", ""]) {
            yield* expectError(yield* get(`/v1/tokens?chainId=${bad}`), "INVALID_REQUEST", "CHAIN_ID_INVALID")
          }
          yield* expectError(yield* get("/v1/tokens?chainId=1"), "UNSUPPORTED_CHAIN")
          yield* expectError(yield* get("/v1/tokens?chain=56"), "INVALID_REQUEST", "UNKNOWN_QUERY_PARAMETER")

          const health = yield* json(yield* get("/v1/health"))
          decodes(AggregatorHealth, health, "health")
          assert.strictEqual(health.status, "OK")
          assert.strictEqual(health.openRouteCount, 4)
          const head = yield* call("/v1/chains", { method: "HEAD" })
          assert.strictEqual(head.status, 200)

          const manifestResponse = yield* get("/.well-known/svc-aggregator.json")
          assert.strictEqual(manifestResponse.headers.get("cache-control"), "public, max-age=60")
          const manifest = yield* json(manifestResponse)
          decodes(AggregatorManifest, manifest, "manifest")
          const url = yield* baseUrl
          assert.strictEqual(manifest.endpoints.build, `${url}/v1/build`)
          assert.strictEqual(manifest.feedSigner, authority)
          assert.strictEqual((yield* get(manifest.solverDiscovery.slice(url.length))).status, 200)
        }))
    })

    describe("fuzzed requests", () => {
      const hexish = fc.stringMatching(/^(0x)?[0-9a-fA-F]{0,70}$/)
      const junk = fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.integer(),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.integer(), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
        hexish,
        fc.bigInt({ min: 0n, max: 1n << 300n }).map(String)
      )
      /** A valid body with one key dropped, replaced by junk, or one key added. */
      const mutated = (valid: Record<string, unknown>) =>
        fc.oneof(
          fc.constantFrom(...Object.keys(valid)).map((k) =>
            Object.fromEntries(Object.entries(valid).filter(([key]) => key !== k))
          ),
          fc.tuple(fc.constantFrom(...Object.keys(valid)), junk).map(([k, v]) => ({ ...valid, [k]: v })),
          fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), junk).map(([k, v]) => ({ ...valid, [k]: v })),
          fc.jsonValue()
        ).map((value) => JSON.stringify(value))
      const raw = fc.oneof(
        fc.string({ maxLength: 60 }),
        fc.constantFrom("", "{", "null", "[]", "\"x\"", "{\"__proto__\":{}}")
      )
      const RUNS = Number(process.env.FUZZ_RUNS ?? 60)

      const check = async (response: Response, allowed: ReadonlyArray<number>, what: string) => {
        const text = await response.text()
        if (response.status >= 500) throw new Error(`${what}: ${response.status} ${text.slice(0, 200)}`)
        if (!allowed.includes(response.status)) {
          throw new Error(
            `${what}: undocumented status ${response.status} ${text.slice(0, 200)}`
          )
        }
        if (response.status >= 400) {
          const body = JSON.parse(text)
          const decoded = Schema.decodeUnknownResult(AggregatorError)(body, strictParseOptions)
          if (Result.isFailure(decoded)) throw new Error(`${what}: not an AggregatorError: ${text.slice(0, 200)}`)
          if (AGGREGATOR_ERRORS[decoded.success.error].status !== response.status) {
            throw new Error(`${what}: ${decoded.success.error} with status ${response.status}`)
          }
        }
      }

      it.effect("malformed quote and build bodies: documented 4xx with an AggregatorError, never 5xx", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const account = wallet()
          const q = yield* quoteFor(account.address)
          const pair = yield* pairOf(8453, 56)
          const validQuote = { ...pair, amountIn: "5000000", userAddress: account.address }
          const validBuild = {
            quoteToken: q.quoteToken,
            quoteId: q.quoteId,
            routeId: q.routeId,
            userAddress: account.address,
            idempotencyKey: newKey()
          }
          const send = (path: string, body: string) =>
            fetch(`${url}${path}`, { method: "POST", body, headers: { "content-type": "application/json" } })
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(fc.oneof(mutated(validQuote), raw), async (body) => {
                await check(await send("/v1/quote", body), [200, 400, 404], `quote ${body.slice(0, 120)}`)
              }),
              { numRuns: RUNS }
            )
          )
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(
                fc.oneof(
                  mutated({ ...validBuild, requestSignature: `0x${"11".repeat(65)}` }),
                  mutated(validBuild),
                  raw
                ),
                async (body) => {
                  await check(await send("/v1/build", body), [200, 400, 404, 409, 410], `build ${body.slice(0, 120)}`)
                }
              ),
              { numRuns: RUNS }
            )
          )
        }))

      it.effect("malformed status and tokens queries: 200, 400 or 404, never 5xx", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const names = fc.constantFrom(
            "fillId",
            "sourceTxHash",
            "quoteId",
            "userAddress",
            "quoteToken",
            "chainId",
            "x",
            ""
          )
          const query = fc.array(fc.tuple(names, fc.oneof(fc.string({ maxLength: 20 }), hexish)), { maxLength: 3 })
            .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&"))
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(
                query,
                fc.constantFrom("/v1/status", "/v1/tokens", "/v1/chains", "/v1/health"),
                async (q, path) => {
                  await check(await fetch(`${url}${path}?${q}`), [200, 400, 404], `${path}?${q}`)
                }
              ),
              { numRuns: RUNS }
            )
          )
        }))
    })
  }
)

// ---------------------------------------------------------------------------
// A server with 1-second quotes (expiry) that is paused at the end
// ---------------------------------------------------------------------------

layer(appLayer({ rateLimits: UNLIMITED, quoteTtlSeconds: 1 }), { excludeTestServices: true, timeout: T60S })(
  "aggregator expiry",
  (it) => {
    it.effect("an expired quote: 410 QUOTE_EXPIRED with REFRESH_QUOTE; status says so", () =>
      Effect.gen(function*() {
        const account = wallet()
        const q = yield* quoteFor(account.address)
        // expiresAt = now + 1 s: wait until it has passed
        yield* Effect.promise(() =>
          new Promise((resolve) => setTimeout(resolve, Math.max(0, q.expiresAt * 1000 - Date.now()) + 20))
        )
        const request = {
          quoteToken: q.quoteToken,
          quoteId: q.quoteId,
          routeId: q.routeId,
          userAddress: account.address,
          idempotencyKey: newKey()
        }
        const body = yield* expectError(yield* post("/v1/build", request), "QUOTE_EXPIRED", "QUOTE_EXPIRED")
        assert.strictEqual(body.action, "REFRESH_QUOTE")
        assert.isTrue(body.retryable)
        const signed = yield* post("/v1/build", { ...request, requestSignature: `0x${"11".repeat(65)}` })
        yield* expectError(signed, "QUOTE_EXPIRED")
        assert.deepStrictEqual(yield* json(yield* get(`/v1/status?quoteToken=${q.quoteToken}`)), {
          quoteValid: false,
          quoteError: "QUOTE_EXPIRED"
        })
      }))

    it.effect("publication paused: 503 SERVICE_UNAVAILABLE with Retry-After; health UNAVAILABLE", () =>
      Effect.gen(function*() {
        const account = wallet()
        yield* (yield* Store.Store).setPaused(true, "maintenance")
        yield* (yield* Publisher.Publisher).refresh
        const pair = { fromChainId: 8453, toChainId: 56, fromToken: USDC_BASE, toToken: USDT_BSC }
        const quoted = yield* post("/v1/quote", { ...pair, amountIn: "5000000", userAddress: account.address })
        assert.strictEqual(quoted.headers.get("retry-after"), "30")
        const body = yield* expectError(quoted, "SERVICE_UNAVAILABLE", "PUBLICATION_CLOSED")
        assert.strictEqual(body.retryAfterSeconds, 30)
        yield* expectError(yield* get("/v1/chains"), "SERVICE_UNAVAILABLE")
        yield* expectError(yield* get("/v1/tokens"), "SERVICE_UNAVAILABLE")
        const health = yield* get("/v1/health")
        assert.strictEqual(health.status, 200)
        const h = yield* json(health)
        assert.strictEqual(h.status, "UNAVAILABLE")
        assert.isFalse(h.publicationOpen)
      }))
  }
)

// ---------------------------------------------------------------------------
// The configured server: secret, origin allow-list and the default-sized limits
// ---------------------------------------------------------------------------

const SECRET = "svc-http-test-secret-0123456789abcdefgh"
const strictConfig = testConfig({
  serverSecret: Option.some(Redacted.make(SECRET)),
  aggregatorRateLimit: 6,
  aggregatorQuoteBuildRateLimit: 3,
  aggregatorRateWindowSeconds: 60,
  aggregatorOrigins: ["https://wallet.example"]
})

layer(serverLayer(strictConfig), { excludeTestServices: true, timeout: T60S })("aggregator configuration", (it) => {
  it.effect("origin allow-list 403, quote tokens under SVC_SERVER_SECRET, 429 with Retry-After and RateLimit headers", () =>
    Effect.gen(function*() {
      const manifest = yield* json(yield* get("/.well-known/svc-aggregator.json"))
      assert.deepStrictEqual(manifest.rateLimits, {
        scope: "CLIENT",
        windowSeconds: 60,
        requestsPerWindow: 6,
        quoteAndBuildPerWindow: 3
      })
      const body = { fromChainId: 8453, toChainId: 56, fromToken: USDC_BASE, toToken: USDT_BSC, amountIn: "5000000" }
      // a browser Origin off the list is refused (and does not count against the limits)
      yield* expectError(yield* post("/v1/quote", body, { origin: "https://evil.example" }), "ORIGIN_NOT_ALLOWED")
      yield* expectError(yield* get("/v1/health", { origin: "https://evil.example" }), "ORIGIN_NOT_ALLOWED")
      // the allowed Origin (any case, trailing slash) and requests without Origin pass
      const first = yield* post("/v1/quote", body, { origin: "https://Wallet.example/" })
      assert.strictEqual(first.status, 200)
      const q = (yield* json(first)) as AggregatorQuote
      const { quoteToken, ...rest } = q
      const expected = createHmac("sha256", SECRET).update(
        `SVC_AGGREGATOR_QUOTE_TOKEN_V1\n${CanonicalJson.stringify(rest)}`,
        "utf8"
      ).digest("hex")
      assert.strictEqual(quoteToken, expected)
      assert.strictEqual((yield* post("/v1/quote", body)).status, 200)
      const third = yield* post("/v1/quote", body)
      assert.strictEqual(third.status, 200)
      assert.match(third.headers.get("ratelimit") ?? "", /^"quote-build";r=0;t=[0-9]+$/)
      // the fourth quote/build POST in the window is limited
      const limited = yield* post("/v1/quote", body)
      assert.match(limited.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/)
      assert.strictEqual(limited.headers.get("ratelimit-policy"), `"requests";q=6;w=60, "quote-build";q=3;w=60`)
      assert.match(limited.headers.get("ratelimit") ?? "", /^"quote-build";r=0;t=[1-9][0-9]*$/)
      const error = yield* expectError(limited, "RATE_LIMITED", "QUOTE_BUILD_RATE_LIMITED")
      assert.strictEqual(error.retryAfterSeconds, Number(limited.headers.get("retry-after")))
      // health and the manifest never spend the budget (monitoring must not lock a client out)
      for (let i = 0; i < 10; i++) assert.strictEqual((yield* get("/v1/health")).status, 200)
      assert.isNull((yield* get("/v1/health")).headers.get("ratelimit"))
      // reads still pass until the overall limit (6, of which 4 used)
      assert.strictEqual((yield* get("/v1/chains")).status, 200)
      assert.strictEqual((yield* get("/v1/chains")).status, 200)
      yield* expectError(yield* get("/v1/chains"), "RATE_LIMITED", "REQUEST_RATE_LIMITED")
    }))
})

describe("server secret file", () => {
  layer(NodeServices.layer)((it) => {
    it.effect("generated once in the data dir with mode 0600, then reused", () =>
      Effect.gen(function*() {
        const dir = mkdtempSync(join(tmpdir(), "svc-secret-test-"))
        const first = yield* Layer.build(Aggregator.layerSecretDevelopment(dir)).pipe(Effect.scoped)
        const file = join(dir, Aggregator.SERVER_SECRET_FILE)
        assert.strictEqual(statSync(file).mode & 0o777, 0o600)
        const second = yield* Layer.build(Aggregator.layerSecretDevelopment(dir)).pipe(Effect.scoped)
        const key = (ctx: typeof first) =>
          Buffer.from(Redacted.value(Context.get(ctx, Aggregator.ServerSecret).key)).toString("hex")
        assert.strictEqual(key(first), key(second))
        assert.isAtLeast(key(first).length, 64)
      }))
  })
})

describe("a replaced aggregator part", () => {
  // an operator's aggregator: the default one, reporting DEGRADED health (e.g. a planned maintenance)
  const degraded = Layer.effect(
    Aggregator.Aggregator,
    Effect.gen(function*() {
      const inner = yield* Aggregator.Aggregator
      return Aggregator.Aggregator.of({
        ...inner,
        health: Effect.map(inner.health, (h) => ({ ...h, status: "DEGRADED" as const }))
      })
    })
  ).pipe(Layer.provide(Aggregator.layer({ publicUrl: "http://127.0.0.1" })))
  const replaced = appLayer({}, { aggregator: degraded })
  layer(replaced, { excludeTestServices: true })((it) => {
    it.effect("serves /v1 through the replacement", () =>
      Effect.gen(function*() {
        const response = yield* get("/v1/health")
        assert.strictEqual(response.status, 200)
        const body = yield* json(response)
        decodes(AggregatorHealth, body)
        assert.strictEqual(body.status, "DEGRADED")
      }))
  })
})
