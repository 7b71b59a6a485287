/**
 * The client against a real server: discovery, verified feeds (filters,
 * If-None-Match/304, tampering through a proxy that changes one byte), route
 * detail, permits (local message = server message for generated requests,
 * create with idempotent retries, verification of the returned permit, the
 * fillDirect transaction, status polling to PAID), and the Promise API's typed
 * rejections.
 */
import { assert, describe, layer } from "@effect/vitest"
import { fc } from "@fast-check/vitest"
import { Publisher, Settlement } from "@svc/core"
import { type ExecutionPermitEnvelope, PermitAbi, PermitDigest, Signature } from "@svc/protocol"
import { Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { getAddress } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { scaled } from "../../../test/support/time.ts"
import {
  createClient,
  type FeedExpired,
  HttpError,
  isSvcClientError,
  type MessageSigner,
  PermitInvalid,
  SvcClient,
  type SvcClientOptions
} from "../src/index.ts"
import type { FetchFunction } from "../src/internal/http.ts"
import {
  AUTHORITY,
  AUTHORITY_KEY,
  baseUrl,
  OTHER_KEY,
  PAYER_KEY,
  serverLayer,
  startProxy,
  tamperDigit
} from "./support/server.ts"

const account = privateKeyToAccount(PAYER_KEY)
const recipient = "0x2222222222222222222222222222222222222222"

/** Runs `f` with a client on the server in context. */
const withClient = <A, E, R>(
  f: (svc: SvcClient["Service"]) => Effect.Effect<A, E, R>,
  options?: Omit<SvcClientOptions, "baseUrl">
) =>
  Effect.flatMap(
    baseUrl,
    (url) => Effect.flatMap(SvcClient, f).pipe(Effect.provide(SvcClient.layer({ baseUrl: url, ...options })))
  )

/** A fetch that records the requests it forwards and can replace responses. */
const recordingFetch = (
  intercept?: (url: string, init: RequestInit, n: number) => Promise<Response | undefined> | Response | undefined
) => {
  const calls: Array<
    { url: string; method: string; body: string | undefined; headers: Record<string, string>; status: number }
  > = []
  const attempts = new Map<string, number>()
  const fetchFn: FetchFunction = async (url, init) => {
    const id = `${init?.method ?? "GET"} ${url}`
    const n = (attempts.get(id) ?? 0) + 1
    attempts.set(id, n)
    const replaced = intercept === undefined ? undefined : await intercept(url, init ?? {}, n)
    const response = replaced ?? (await fetch(url, init))
    calls.push({
      url,
      method: init?.method ?? "GET",
      body: typeof init?.body === "string" ? init.body : undefined,
      headers: { ...(init?.headers as Record<string, string> | undefined) },
      status: response.status
    })
    return response
  }
  return { calls, fetch: fetchFn }
}

const openBaseRoute = (svc: SvcClient["Service"]) =>
  Effect.map(svc.feed({ sourceChainId: 8453 }), (feed) => feed.openRoutes.find((r) => r.destinationChainId === "56")!)

const countingSigner = (key: `0x${string}` = PAYER_KEY) => {
  const signer = privateKeyToAccount(key)
  let count = 0
  const sign: MessageSigner = (message) => {
    count++
    return signer.signMessage({ message })
  }
  return { sign, count: () => count }
}

layer(serverLayer(), { excludeTestServices: true, timeout: scaled(60_000) })("client against a real server", (it) => {
  describe("discovery", () => {
    it.effect("reads the manifest; endpoints come from it", () =>
      withClient((svc) =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const d = yield* svc.discover
          assert.strictEqual(d.url, `${url}/.well-known/svc-solver.json`)
          assert.strictEqual(d.expectedSigner, AUTHORITY)
          assert.strictEqual(d.manifest.endpoints.solverFeed, `${url}/api/v6/solver-feed`)
        })
      ))

    it.effect("a pinned signer other than the manifest's fails discovery", () =>
      withClient((svc) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(svc.feed())
          assert.strictEqual(error._tag, "DiscoveryInvalid")
          assert.strictEqual(error.code, "SVC_SDK_DISCOVERY_INVALID")
        }), { pinnedSigner: Signature.addressOf(OTHER_KEY) }))

    it.effect("a manifest that is not one fails with DISCOVERY_INVALID; a missing one with HTTP_ERROR", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const notManifest = yield* Effect.flip(
          Effect.flatMap(SvcClient, (svc) => svc.discover).pipe(
            Effect.provide(SvcClient.layer({ manifestUrl: `${url}/.well-known/svc-standards.json` }))
          )
        )
        assert.strictEqual(notManifest.code, "SVC_SDK_DISCOVERY_INVALID")
        const missing = yield* Effect.flip(
          Effect.flatMap(SvcClient, (svc) => svc.discover).pipe(
            Effect.provide(SvcClient.layer({ manifestUrl: `${url}/nope.json` }))
          )
        )
        assert.instanceOf(missing, HttpError)
        assert.strictEqual((missing as HttpError).status, 404)
        assert.strictEqual((missing as HttpError).serverCode, "NOT_FOUND")
      }))
  })

  describe("feed", () => {
    it.effect("verifies the feed; routes come from signedPayload with the filter applied locally", () =>
      withClient((svc) =>
        Effect.gen(function*() {
          const all = yield* svc.feed()
          assert.isTrue(all.verification.valid)
          assert.strictEqual(all.feedSigner, AUTHORITY)
          assert.deepStrictEqual(all.routes, all.signedPayload.routes)
          const base = yield* svc.feed({ sourceChainId: 8453 })
          assert.isAbove(base.routes.length, 0)
          assert.isBelow(base.routes.length, all.routes.length)
          assert.isTrue(base.routes.every((r) => r.sourceChainId === "8453"))
          assert.deepStrictEqual(base.openRoutes, base.routes.filter((r) => r.open))
          assert.strictEqual(base.metadata.returnedRouteCount, base.routes.length)
          assert.strictEqual(base.feedHash, all.feedHash)
        })
      ))

    it.effect("keeps the last view and sends If-None-Match; a 304 returns the kept view", () =>
      Effect.gen(function*() {
        const recorder = recordingFetch()
        yield* withClient((svc) =>
          Effect.gen(function*() {
            const first = yield* svc.feed({ sourceChainId: 8453 })
            const second = yield* svc.feed({ sourceChainId: 8453 })
            assert.isFalse(first.notModified)
            assert.isTrue(second.notModified)
            assert.strictEqual(second.dataVersion, first.dataVersion)
            assert.deepStrictEqual(second.routes, first.routes)
            const feedCalls = recorder.calls.filter((c) => c.url.includes("/api/v6/solver-feed"))
            assert.deepStrictEqual(feedCalls.map((c) => c.status), [200, 304])
            assert.strictEqual(feedCalls[1]!.headers["if-none-match"], first.etag)
            // a new publication: the 304 turns into a 200 with the new version
            yield* (yield* Publisher.Publisher).publishNow
            const third = yield* svc.feed({ sourceChainId: 8453 })
            assert.isFalse(third.notModified)
            assert.isTrue(BigInt(third.dataVersion) > BigInt(first.dataVersion))
          }), { fetch: recorder.fetch })
      }))

    it.effect("a tampered feed is rejected: one byte changed in signedPayload (proxy)", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const proxy = yield* Effect.promise(() =>
          startProxy(url, (r) =>
            r.path === "/api/v6/solver-feed" ?
              {
                kind: "transform",
                transform: (body) => tamperDigit(body, "\"signedPayload\":")
              } :
              {
                kind: "pass"
              })
        )
        yield* Effect.addFinalizer(() => Effect.promise(() => proxy.close()))
        const client = createClient({ baseUrl: proxy.url })
        const error = yield* Effect.promise(() => client.feed().then(() => undefined, (e: unknown) => e))
        assert.isTrue(isSvcClientError(error))
        assert.strictEqual((error as { code: string }).code, "SVC_SDK_FEED_HASH_MISMATCH")
        // the discovery documents came through the proxy too
        assert.isTrue(proxy.requests.some((r) => r.path === "/.well-known/svc-solver.json"))
      }).pipe(Effect.scoped))

    it.effect("a changed signature byte: FEED_SIGNER_MISMATCH; a changed unsigned view: the signed routes are returned", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        let mode: "signature" | "view" = "signature"
        const proxy = yield* Effect.promise(() =>
          startProxy(url, (r) =>
            r.path !== "/api/v6/solver-feed" ? { kind: "pass" } : {
              kind: "transform",
              transform: (body) =>
                mode === "signature"
                  ? body.replace(
                    /"feedSignature":"0x([0-9a-f])/,
                    (_, d: string) => `"feedSignature":"0x${d === "1" ? "2" : "1"}`
                  )
                  : tamperDigit(body, "\"openRoutes\":[")
            })
        )
        yield* Effect.addFinalizer(() => Effect.promise(() => proxy.close()))
        const client = createClient({ baseUrl: proxy.url })
        const error = yield* Effect.promise(() => client.feed({ fresh: true }).then(() => undefined, (e: unknown) => e))
        assert.strictEqual((error as { code: string }).code, "SVC_SDK_FEED_SIGNER_MISMATCH")
        mode = "view"
        const feed = yield* Effect.promise(() => client.feed({ fresh: true }))
        const direct = yield* Effect.promise(() => createClient({ baseUrl: url }).feed())
        assert.strictEqual(feed.feedHash, direct.feedHash)
        // the unsigned openRoutes view was changed; the client's openRoutes are the signed ones
        assert.deepStrictEqual(feed.openRoutes, direct.openRoutes)
      }).pipe(Effect.scoped))

    it.effect("validity is judged on the client's clock: an hour later the feed is FEED_EXPIRED, also after a 304", () =>
      withClient((svc) =>
        Effect.gen(function*() {
          yield* TestClock.setTime(Date.now())
          const feed = yield* svc.feed({ sourceChainId: 56 })
          yield* TestClock.setTime(Date.now() + 3_600_000)
          const later = yield* Effect.flip(svc.feed({ sourceChainId: 56 }))
          assert.strictEqual(later.code, "SVC_SDK_FEED_EXPIRED")
          assert.isTrue((later as FeedExpired).verification.expired)
          yield* TestClock.setTime(Number(feed.generatedAt) * 1000 - 60_000)
          const early = yield* Effect.flip(svc.feed({ sourceChainId: 56, fresh: true }))
          assert.strictEqual(early.code, "SVC_SDK_FEED_EXPIRED")
          assert.isFalse((early as FeedExpired).verification.expired)
        })
      ).pipe(Effect.provide(TestClock.layer())))

    it.effect("route detail: the signed route with its metrics", () =>
      withClient((svc) =>
        Effect.gen(function*() {
          const route = yield* openBaseRoute(svc)
          const detail = yield* svc.route(route.routeId.toUpperCase().replace("0X", "0x"))
          assert.deepStrictEqual(detail.route, route)
          assert.isTrue(detail.detailMatchesSignedRoute)
          assert.isBoolean(detail.metrics.telemetryAvailable)
          const missing = yield* Effect.flip(svc.route(`0x${"ab".repeat(32)}`))
          assert.strictEqual(missing._tag, "HttpError")
          const bad = yield* Effect.flip(svc.route("0x1234"))
          assert.strictEqual(bad.code, "SVC_SDK_INVALID_INPUT")
        })
      ))
  })

  describe("permits", () => {
    it.effect("the client's message equals the server's request-message output for generated requests", () =>
      withClient((svc) =>
        Effect.gen(function*() {
          const feed = yield* svc.feed()
          const routes = feed.openRoutes.filter((r) => r.sourceChainId !== null && r.destinationChainId !== null)
          assert.isAbove(routes.length, 0)
          const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).chain((bytes) => {
            const lower = `0x${Buffer.from(bytes).toString("hex")}`
            return fc.constantFrom(lower, getAddress(lower), `0x${lower.slice(2).toUpperCase()}`)
          })
          const request = fc.record({
            route: fc.constantFrom(...routes),
            fraction: fc.bigInt({ min: 0n, max: 1000n }),
            upperQuote: fc.boolean(),
            payer: address,
            recipient: address,
            standard: fc.constantFrom(undefined, "DIRECT", "direct", "ERC-7683", "erc-7683"),
            key: fc.stringMatching(/^[a-zA-Z0-9._:-]{8,40}$/),
            pad: fc.constantFrom("", " ", "\t")
          })
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(request, async (r) => {
                const min = BigInt(r.route.minimumFillInRaw)
                const max = BigInt(r.route.maxAvailableInRaw)
                const amount = min + ((max - min) * r.fraction) / 1000n
                const intent = {
                  quoteId: r.upperQuote ? `0x${r.route.quoteId.slice(2).toUpperCase()}` : r.route.quoteId,
                  requestedAmountInRaw: amount.toString(),
                  payer: r.payer,
                  recipient: r.recipient,
                  idempotencyKey: `${r.pad}${r.key}${r.pad}`,
                  ...(r.standard === undefined ? {} : { standard: r.standard })
                }
                const local = await Effect.runPromise(svc.permits.message(intent))
                const server = await Effect.runPromise(svc.permits.serverMessage(intent))
                assert.strictEqual(local.message, server)
                assert.strictEqual(local.idempotencyKey, r.key)
              }),
              { numRuns: 40 }
            )
          )
        })
      ))

    it.effect("a permit flow from the feed to PAID: verified permit, fillDirect transaction, status polling", () =>
      withClient((svc) =>
        Effect.gen(function*() {
          const route = yield* openBaseRoute(svc)
          const issued = yield* svc.permits.create({
            request: {
              quoteId: route.quoteId,
              requestedAmountInRaw: route.minimumFillInRaw,
              payer: account.address,
              recipient
            },
            signer: account
          })
          assert.strictEqual(issued.status, 201)
          assert.isFalse(issued.idempotent)
          assert.match(issued.idempotencyKey, /^svc-[0-9a-f]{32}$/)
          const permit = issued.envelope.permit
          assert.strictEqual(permit.amountInRaw, route.minimumFillInRaw)
          assert.strictEqual(permit.payer, account.address)
          assert.strictEqual(getAddress(permit.recipient), getAddress(recipient))
          assert.strictEqual(permit.quoteId, route.quoteId)
          // the transaction: fillDirect(permit, signature) to the router, approval of the USDC input
          const tx = issued.transaction
          const decoded = PermitAbi.decodeFillDirect(tx.data)
          assert.strictEqual(decoded.signature, issued.envelope.permitSignature)
          assert.strictEqual(decoded.permit.fillId, issued.fillId)
          assert.strictEqual(tx.to, getAddress(route.sourceRouter!))
          assert.strictEqual(tx.chainId, 8453)
          assert.strictEqual(tx.from, account.address)
          assert.strictEqual(tx.value, 0n)
          assert.deepStrictEqual(
            { token: tx.approval?.token, spender: tx.approval?.spender, amount: tx.approval?.amount },
            { token: getAddress(route.sourceAsset!), spender: tx.to, amount: BigInt(route.minimumFillInRaw) }
          )
          // status: the observer moves the permit along while the client polls
          const observer = yield* Settlement.SettlementObserver
          const states: Array<string> = []
          const waiting = yield* Effect.forkChild(svc.permits.waitFor(issued.fillId, {
            initialDelayMs: 10,
            maxDelayMs: 40,
            timeoutMs: 20_000,
            onUpdate: (e) => states.push(e.state)
          }))
          const sourceTx = `0x${"a1".repeat(32)}`
          const payoutTx = `0x${"b2".repeat(32)}`
          yield* Effect.sleep("60 millis")
          yield* observer.sourceObserved(issued.fillId, sourceTx)
          yield* Effect.sleep("60 millis")
          yield* observer.sourceConfirmed(issued.fillId)
          yield* observer.payoutSubmitted(issued.fillId, payoutTx)
          yield* Effect.sleep("60 millis")
          yield* observer.paid(issued.fillId)
          const final = yield* Fiber.join(waiting)
          assert.strictEqual(final.state, "PAID")
          assert.strictEqual(final.sourceTxHash, sourceTx)
          assert.strictEqual(final.payoutTxHash, payoutTx)
          assert.strictEqual(states[0], "ISSUED")
          assert.strictEqual(states.at(-1), "PAID")
          const order = ["ISSUED", "SOURCE_OBSERVED", "SOURCE_CONFIRMED", "PAYOUT_SUBMITTED", "PAID"]
          assert.deepStrictEqual(states, [...states].sort((a, b) => order.indexOf(a) - order.indexOf(b)))
        })
      ))

    it.effect("a lost response is retried with the identical body and key; the signer is called once", () =>
      Effect.gen(function*() {
        const sent: Array<{ body: unknown; key: unknown }> = []
        const recorder = recordingFetch(async (url, init, n) => {
          if (!url.endsWith("/api/v6/execution-permits") || init.method !== "POST") return undefined
          sent.push({ body: init.body, key: (init.headers as Record<string, string>)["idempotency-key"] })
          if (n !== 1) return undefined
          await (await fetch(url, init)).text() // the server issues the permit; the answer is lost
          throw new TypeError("fetch failed: socket hang up")
        })
        const signer = countingSigner()
        const issued = yield* withClient((svc) =>
          Effect.gen(function*() {
            const route = yield* openBaseRoute(svc)
            return yield* svc.permits.create({
              request: {
                quoteId: route.quoteId,
                requestedAmountInRaw: route.minimumFillInRaw,
                payer: account.address,
                recipient
              },
              signer: signer.sign
            })
          }), { fetch: recorder.fetch, retry: { initialDelayMs: 5, maxDelayMs: 20 } })
        const creates = recorder.calls.filter((c) => c.url.endsWith("/api/v6/execution-permits") && c.method === "POST")
        assert.strictEqual(creates.length, 1) // the lost attempt threw before it was recorded
        assert.strictEqual(sent.length, 2)
        assert.deepStrictEqual(sent[0], sent[1])
        assert.strictEqual(issued.status, 200)
        assert.isTrue(issued.idempotent)
        assert.strictEqual(signer.count(), 1)
        assert.strictEqual(creates[0]!.headers["idempotency-key"], issued.idempotencyKey)
      }))

    it.effect("409 IDEMPOTENCY_IN_PROGRESS, 429 with Retry-After and 503 are retried with the same body; a conflict is not", () =>
      Effect.gen(function*() {
        const answers = [
          { status: 409, body: { ok: false, error: "IDEMPOTENCY_IN_PROGRESS" }, headers: {} },
          { status: 429, body: { ok: false, error: "RATE_LIMITED" }, headers: { "retry-after": "0" } },
          { status: 503, body: { ok: false, error: "AUTHORITY_UNAVAILABLE" }, headers: {} }
        ]
        const recorder = recordingFetch((url, init, n) => {
          if (!url.endsWith("/api/v6/execution-permits") || init.method !== "POST" || n > answers.length) {
            return undefined
          }
          const a = answers[n - 1]!
          return new Response(JSON.stringify(a.body), {
            status: a.status,
            headers: { "content-type": "application/json", ...a.headers }
          })
        })
        const signer = countingSigner()
        const issued = yield* withClient((svc) =>
          Effect.gen(function*() {
            const route = yield* openBaseRoute(svc)
            return yield* svc.permits.create({
              request: {
                quoteId: route.quoteId,
                requestedAmountInRaw: route.minimumFillInRaw,
                payer: account.address,
                recipient
              },
              signer: signer.sign
            })
          }), { fetch: recorder.fetch, retry: { initialDelayMs: 5, maxDelayMs: 20 } })
        const creates = recorder.calls.filter((c) => c.url.endsWith("/api/v6/execution-permits") && c.method === "POST")
        assert.deepStrictEqual(creates.map((c) => c.status), [409, 429, 503, 201])
        assert.strictEqual(new Set(creates.map((c) => c.body)).size, 1)
        assert.strictEqual(new Set(creates.map((c) => c.headers["idempotency-key"])).size, 1)
        assert.strictEqual(signer.count(), 1)
        assert.strictEqual(issued.status, 201)

        // the same key with another request: 409 IDEMPOTENCY_CONFLICT, not retried
        const conflict = yield* withClient((svc) =>
          Effect.gen(function*() {
            const route = yield* openBaseRoute(svc)
            return yield* Effect.flip(svc.permits.create({
              request: {
                quoteId: route.quoteId,
                requestedAmountInRaw: (BigInt(route.minimumFillInRaw) + 1n).toString(),
                payer: account.address,
                recipient,
                idempotencyKey: issued.idempotencyKey
              },
              signer: account
            }))
          })
        )
        assert.instanceOf(conflict, HttpError)
        assert.strictEqual((conflict as HttpError).status, 409)
        assert.strictEqual((conflict as HttpError).serverCode, "IDEMPOTENCY_CONFLICT")
      }))

    it.effect("a returned permit that does not verify is refused (digest, authority, amounts, identities)", () =>
      Effect.gen(function*() {
        type Mutation = (envelope: ExecutionPermitEnvelope) => ExecutionPermitEnvelope
        const resign = (envelope: ExecutionPermitEnvelope, key: `0x${string}`): ExecutionPermitEnvelope => ({
          ...envelope,
          ...PermitDigest.sign(envelope.permit, key)
        })
        const cases: ReadonlyArray<readonly [string, Mutation, ReadonlyArray<string>]> = [
          ["changed amountOut, not re-signed", (e) => ({ ...e, permit: { ...e.permit, amountOutRaw: "1" } }), [
            "PERMIT_DIGEST_MISMATCH"
          ]],
          ["signed by another key", (e) => resign(e, OTHER_KEY), ["PERMIT_SIGNER_MISMATCH"]],
          [
            "another amountIn, signed by the authority",
            (e) =>
              resign(
                { ...e, permit: { ...e.permit, amountInRaw: (BigInt(e.permit.amountInRaw) + 1n).toString() } },
                AUTHORITY_KEY
              ),
            [
              "AMOUNT_IN_MISMATCH"
            ]
          ],
          [
            "another recipient, signed by the authority",
            (e) =>
              resign(
                { ...e, permit: { ...e.permit, recipient: "0x3333333333333333333333333333333333333333" } },
                AUTHORITY_KEY
              ),
            [
              "RECIPIENT_MISMATCH"
            ]
          ]
        ]
        for (const [name, mutate, expected] of cases) {
          const recorder = recordingFetch(async (url, init) => {
            if (!url.endsWith("/api/v6/execution-permits") || init.method !== "POST") return undefined
            const response = await fetch(url, init)
            const body = await response.json() as { ok: true; idempotent: boolean; permit: ExecutionPermitEnvelope }
            return new Response(JSON.stringify({ ...body, permit: mutate(body.permit) }), {
              status: response.status,
              headers: { "content-type": "application/json" }
            })
          })
          const error = yield* withClient((svc) =>
            Effect.gen(function*() {
              const route = yield* openBaseRoute(svc)
              return yield* Effect.flip(svc.permits.create({
                request: {
                  quoteId: route.quoteId,
                  requestedAmountInRaw: route.minimumFillInRaw,
                  payer: account.address,
                  recipient
                },
                signer: account
              }))
            }), { fetch: recorder.fetch })
          assert.instanceOf(error, PermitInvalid, name)
          for (const reason of expected) assert.include((error as PermitInvalid).reasons, reason, name)
        }
      }))

    it.effect("a signer that is not the payer is refused before anything is sent", () =>
      Effect.gen(function*() {
        const recorder = recordingFetch()
        const error = yield* withClient((svc) =>
          Effect.gen(function*() {
            const route = yield* openBaseRoute(svc)
            return yield* Effect.flip(svc.permits.create({
              request: {
                quoteId: route.quoteId,
                requestedAmountInRaw: route.minimumFillInRaw,
                payer: account.address,
                recipient
              },
              signer: privateKeyToAccount(OTHER_KEY)
            }))
          }), { fetch: recorder.fetch })
        assert.strictEqual(error.code, "SVC_SDK_PERMIT_REQUEST_INVALID")
        assert.strictEqual((error as { reasonCode: string }).reasonCode, "SIGNER_NOT_PAYER")
        assert.isFalse(recorder.calls.some((c) => c.method === "POST"))
        // an unknown quote: refused before signing
        const unknown = yield* withClient((svc) =>
          Effect.flip(svc.permits.create({
            request: {
              quoteId: `0x${"cd".repeat(32)}`,
              requestedAmountInRaw: "1000000",
              payer: account.address,
              recipient
            },
            signer: account
          }))
        )
        assert.strictEqual(unknown.code, "SVC_SDK_ROUTE_NOT_FOUND")
      }))

    it.effect("permits.get verifies; waitFor times out with the last state", () =>
      withClient((svc) =>
        Effect.gen(function*() {
          const route = yield* openBaseRoute(svc)
          const issued = yield* svc.permits.create({
            request: {
              quoteId: route.quoteId,
              requestedAmountInRaw: route.minimumFillInRaw,
              payer: account.address,
              recipient
            },
            signer: account
          })
          const envelope = yield* svc.permits.get(issued.fillId)
          assert.deepStrictEqual(envelope.permit, issued.envelope.permit)
          const timeout = yield* Effect.flip(svc.permits.waitFor(issued.fillId, { timeoutMs: 150, initialDelayMs: 20 }))
          assert.strictEqual(timeout.code, "SVC_SDK_TIMEOUT")
          assert.strictEqual((timeout as { last: ExecutionPermitEnvelope }).last.state, "ISSUED")
          const missing = yield* Effect.flip(svc.permits.get(`0x${"ef".repeat(32)}`))
          assert.instanceOf(missing, HttpError)
          assert.strictEqual((missing as HttpError).status, 404)
        })
      ))
  })

  describe("browsers", () => {
    it.effect("every request carries only headers that svc's CORS policy allows", () =>
      Effect.gen(function*() {
        const allowed = new Set(["accept", "content-type", "idempotency-key", "if-none-match", "last-event-id"])
        const names = new Set<string>()
        const recorder = recordingFetch((_url, init) => {
          for (const name of Object.keys((init.headers ?? {}) as Record<string, string>)) names.add(name.toLowerCase())
          return undefined
        })
        yield* withClient((svc) =>
          Effect.gen(function*() {
            const route = yield* openBaseRoute(svc)
            yield* svc.feed({ sourceChainId: 8453 })
            yield* svc.permits.create({
              request: {
                quoteId: route.quoteId,
                requestedAmountInRaw: route.minimumFillInRaw,
                payer: account.address,
                recipient
              },
              signer: account
            })
            const feed = yield* svc.feed()
            yield* svc.feedStream({ lastEventId: (BigInt(feed.dataVersion) - 1n).toString() }).pipe(
              Stream.take(1),
              Stream.runDrain
            )
            const quote = yield* svc.aggregator.chains
            assert.isAbove(quote.pairs.length, 0)
            yield* svc.aggregator.chains
          }), { fetch: recorder.fetch })
        assert.includeMembers([...names], [
          "accept",
          "content-type",
          "idempotency-key",
          "if-none-match",
          "last-event-id"
        ])
        for (const name of names) assert.isTrue(allowed.has(name), name)
      }))
  })

  describe("Promise API", () => {
    it.effect("resolves values and rejects only with typed errors", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const client = createClient({ baseUrl: url })
        const feed = yield* Effect.promise(() => client.feed({ sourceChainId: "8453" }))
        assert.isTrue(feed.verification.valid)
        const rejections = yield* Effect.promise(() =>
          Promise.all([
            client.feed({ sourceChainId: "08453" }).catch((e: unknown) => e),
            client.route("nope").catch((e: unknown) => e),
            client.permits.message({ quoteId: "0x12", requestedAmountInRaw: "1", payer: account.address, recipient })
              .catch((
                e: unknown
              ) => e),
            createClient({ baseUrl: "http://127.0.0.1:1" }).discover().catch((e: unknown) => e),
            createClient({}).discover().catch((e: unknown) => e)
          ])
        )
        assert.deepStrictEqual(rejections.map((e) => isSvcClientError(e) ? e.code : String(e)), [
          "SVC_SDK_INVALID_INPUT",
          "SVC_SDK_INVALID_INPUT",
          "SVC_SDK_PERMIT_REQUEST_INVALID",
          "SVC_SDK_NETWORK_ERROR",
          "SVC_SDK_INVALID_INPUT"
        ])
        // an aborted poll rejects with Aborted
        const route = feed.openRoutes.find((r) => r.destinationChainId === "56")!
        const issued = yield* Effect.promise(() =>
          client.permits.create({
            request: {
              quoteId: route.quoteId,
              requestedAmountInRaw: route.minimumFillInRaw,
              payer: account.address,
              recipient
            },
            signer: account
          })
        )
        const controller = new AbortController()
        const waiting = client.permits.waitFor(issued.fillId, { signal: controller.signal, initialDelayMs: 20 }).catch((
          e: unknown
        ) => e)
        setTimeout(() => controller.abort(), 50)
        const aborted = yield* Effect.promise(() => waiting)
        assert.strictEqual((aborted as { code: string }).code, "SVC_SDK_ABORTED")
      }))
  })
})
