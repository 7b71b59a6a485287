/**
 * The aggregator client against a real server: discovery through the aggregator
 * manifest, chains/tokens (ETag reuse), health, quote, the two-stage build with
 * the wallet signature (message checked before signing, permit and transaction
 * verified), status lookups and polling to COMPLETED, and REFRESH_QUOTE surfaced
 * as a typed error.
 */
import { assert, layer } from "@effect/vitest"
import { Publisher, Settlement, Store } from "@svc/core"
import { PermitAbi } from "@svc/protocol"
import { Effect, Fiber } from "effect"
import { getAddress } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { scaled } from "../../../test/support/time.ts"
import {
  type AggregatorApi,
  createClient,
  type MessageSigner,
  RefreshQuote,
  SigningPayloadMismatch,
  SvcClient,
  type SvcClientOptions
} from "../src/index.ts"
import type { FetchFunction } from "../src/internal/http.ts"
import { AUTHORITY, baseUrl, serverLayer } from "./support/server.ts"

const withAggregator = <A, E, R>(
  f: (a: AggregatorApi) => Effect.Effect<A, E, R>,
  options?: Omit<SvcClientOptions, "baseUrl">
) =>
  Effect.flatMap(
    baseUrl,
    (url) =>
      Effect.flatMap(SvcClient, (svc) => f(svc.aggregator)).pipe(
        Effect.provide(SvcClient.layer({ baseUrl: url, ...options }))
      )
  )

const pairOf = (a: AggregatorApi, from: number, to: number) =>
  Effect.map(a.chains, (chains) => chains.pairs.find((p) => p.fromChainId === from && p.toChainId === to)!)

const quoteFor = (a: AggregatorApi, userAddress: string, from = 8453, to = 56) =>
  Effect.gen(function*() {
    const chains = yield* a.chains
    const pair = chains.pairs.find((p) => p.fromChainId === from && p.toChainId === to)!
    const route = chains.routes.find((r) => r.routeId === pair.routeId)!
    const { routeId: _routeId, ...fields } = pair
    return yield* a.quote({ ...fields, amountIn: route.minimumFillInRaw, userAddress })
  })

layer(serverLayer(), { excludeTestServices: true, timeout: scaled(60_000) })(
  "aggregator client against a real server",
  (it) => {
    it.effect("discovery, chains, tokens and health; chains and tokens are revalidated with their ETag", () =>
      Effect.gen(function*() {
        const statuses: Array<number> = []
        const recording: FetchFunction = async (url, init) => {
          const response = await fetch(url, init)
          if (url.includes("/v1/")) statuses.push(response.status)
          return response
        }
        yield* withAggregator((a) =>
          Effect.gen(function*() {
            const url = yield* baseUrl
            const d = yield* a.discover
            assert.strictEqual(d.manifest.endpoints.quote, `${url}/v1/quote`)
            assert.strictEqual(d.expectedSigner, AUTHORITY)
            const chains = yield* a.chains
            assert.includeMembers(chains.chains.map((c) => c.chainId), [8453, 56, 999])
            assert.isAbove(chains.pairs.length, 0)
            const again = yield* a.chains
            assert.deepStrictEqual(again, chains)
            const tokens = yield* a.tokens(8453)
            assert.isTrue(tokens.tokens.every((t) => t.chainId === 8453))
            yield* a.tokens(8453)
            const health = yield* a.health
            assert.strictEqual(health.status, "OK")
            assert.isTrue(health.publicationOpen)
            const bad = yield* Effect.flip(a.tokens(0))
            assert.strictEqual(bad.code, "SVC_SDK_INVALID_INPUT")
          }), { fetch: recording })
        assert.deepStrictEqual(statuses, [200, 304, 200, 304, 200])
      }))

    it.effect("the wallet flow: quote, build with one signature, verified transaction, status to COMPLETED", () =>
      withAggregator((a) =>
        Effect.gen(function*() {
          const wallet = privateKeyToAccount(generatePrivateKey())
          const quote = yield* quoteFor(a, wallet.address)
          assert.strictEqual(quote.userAddress, wallet.address)
          let signatures = 0
          const signer: MessageSigner = (message) => {
            signatures++
            return wallet.signMessage({ message })
          }
          const built = yield* a.buildTransaction({ quote, signer })
          assert.strictEqual(signatures, 1)
          assert.match(built.idempotencyKey, /^svc-[0-9a-f]{32}$/)
          assert.strictEqual(built.envelope.permit.amountInRaw, quote.amountIn)
          assert.strictEqual(built.envelope.permit.amountOutRaw, quote.amountOut)
          assert.strictEqual(built.transaction.data, built.response.data.toLowerCase())
          assert.strictEqual(built.transaction.to, getAddress(quote.sourceRouter))
          assert.strictEqual(built.transaction.chainId, quote.fromChainId)
          assert.strictEqual(built.transaction.from, wallet.address)
          assert.strictEqual(built.transaction.approval?.amount, BigInt(quote.amountIn))
          assert.strictEqual(PermitAbi.decodeFillDirect(built.transaction.data).permit.fillId, built.fillId)
          // the same intent again (same key): the same fill, no second permit
          const replay = yield* a.buildTransaction({ quote, signer, idempotencyKey: built.idempotencyKey })
          assert.strictEqual(replay.fillId, built.fillId)

          const status = yield* a.status({ fillId: built.fillId })
          assert.strictEqual(status.status, "PERMITTED")
          assert.isFalse(status.terminal)
          const history = yield* a.status({ userAddress: wallet.address })
          assert.deepStrictEqual(history.transactions.map((t) => t.fillId), [built.fillId])
          const validity = yield* a.status({ quoteToken: quote.quoteToken })
          assert.isBoolean(validity.quoteValid)

          const observer = yield* Settlement.SettlementObserver
          const seen: Array<string> = []
          const waiting = yield* Effect.forkChild(
            a.waitForFill(built.fillId, {
              initialDelayMs: 10,
              maxDelayMs: 40,
              timeoutMs: 20_000,
              onUpdate: (s) => seen.push(s.status)
            })
          )
          yield* Effect.sleep("50 millis")
          yield* observer.sourceObserved(built.fillId, `0x${"c3".repeat(32)}`)
          yield* observer.sourceConfirmed(built.fillId)
          yield* observer.payoutSubmitted(built.fillId, `0x${"d4".repeat(32)}`)
          yield* Effect.sleep("50 millis")
          yield* observer.paid(built.fillId)
          const final = yield* Fiber.join(waiting)
          assert.strictEqual(final.status, "COMPLETED")
          assert.isTrue(final.terminal)
          assert.strictEqual(final.payoutTxHash, `0x${"d4".repeat(32)}`)
          assert.strictEqual(seen[0], "PERMITTED")
          assert.strictEqual(seen.at(-1), "COMPLETED")
        })
      ))

    it.effect("a closed route: the build fails with RefreshQuote (ROUTE_CLOSED); a fresh quote works again", () =>
      withAggregator((a) =>
        Effect.gen(function*() {
          const wallet = privateKeyToAccount(generatePrivateKey())
          const quote = yield* quoteFor(a, wallet.address, 56, 8453)
          const store = yield* Store.Store
          const publisher = yield* Publisher.Publisher
          yield* store.setRouteOverride(quote.routeId, { executionStatus: "PAUSED" })
          yield* publisher.publishNow
          const raw = yield* Effect.flip(a.build({
            quoteToken: quote.quoteToken,
            quoteId: quote.quoteId,
            routeId: quote.routeId,
            userAddress: wallet.address,
            idempotencyKey: "refresh-test-0001"
          }))
          yield* store.setRouteOverride(quote.routeId, {})
          yield* publisher.publishNow
          assert.instanceOf(raw, RefreshQuote)
          assert.strictEqual(raw.code, "SVC_SDK_REFRESH_QUOTE")
          assert.strictEqual((raw as RefreshQuote).serverCode, "ROUTE_CLOSED")
          assert.strictEqual((raw as RefreshQuote).status, 410)
          assert.strictEqual((raw as RefreshQuote).action, "REFRESH_QUOTE")
          assert.include((raw as RefreshQuote).reasonCodes, "ROUTE_NOT_OPEN")
          // the caller re-quotes and builds
          const fresh = yield* quoteFor(a, wallet.address, 56, 8453)
          const built = yield* a.buildTransaction({ quote: fresh, signer: wallet })
          assert.strictEqual(built.quote.quoteToken, fresh.quoteToken)
        })
      ))

    it.effect("a stage-1 message that is not the quote's is refused before signing", () =>
      Effect.gen(function*() {
        const tampering: FetchFunction = async (url, init) => {
          const response = await fetch(url, init)
          if (!url.endsWith("/v1/build")) return response
          const body = await response.json() as { signatureRequired: boolean; signingPayload?: { message: string } }
          if (body.signatureRequired && body.signingPayload !== undefined) {
            body.signingPayload.message = body.signingPayload.message.replace(
              /recipient=0x[0-9a-f]{40}/,
              `recipient=0x${"66".repeat(20)}`
            )
          }
          return new Response(JSON.stringify(body), {
            status: response.status,
            headers: { "content-type": "application/json" }
          })
        }
        const wallet = privateKeyToAccount(generatePrivateKey())
        let signatures = 0
        const error = yield* withAggregator((a) =>
          Effect.gen(function*() {
            const quote = yield* quoteFor(a, wallet.address)
            return yield* Effect.flip(a.buildTransaction({
              quote,
              signer: (message) => {
                signatures++
                return wallet.signMessage({ message })
              }
            }))
          }), { fetch: tampering })
        assert.instanceOf(error, SigningPayloadMismatch)
        assert.strictEqual(signatures, 0)
      }))

    it.effect("Promise API: quote errors are typed with the server's code", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const client = createClient({ baseUrl: url })
        const pair = yield* withAggregator((a) => pairOf(a, 8453, 56))
        const { routeId: _routeId, ...fields } = pair
        const error = yield* Effect.promise(() =>
          client.aggregator.quote({ ...fields, amountIn: "1" }).catch((e: unknown) => e)
        )
        assert.strictEqual((error as { code: string }).code, "SVC_SDK_HTTP_ERROR")
        assert.strictEqual((error as { serverCode: string }).serverCode, "AMOUNT_TOO_LOW")
        assert.strictEqual((error as { action: string }).action, "FIX_REQUEST")
        assert.strictEqual((error as { status: number }).status, 400)
      }))
  }
)
