/**
 * Shared: the values many checks need (the manifest, the current feed, an
 * open route, an issued permit, whether the aggregator is deployed), each
 * fetched once per run and shared. A value that cannot be obtained makes the
 * checks that need it skip with the reason (the check that owns the behaviour
 * reports the departure itself).
 *
 * The helpers here (`send`, `expectStatus`, ...) turn transport errors into
 * verdicts: no response is a failure, a 429 beyond the allowed wait is
 * inconclusive.
 *
 * @since 0.1.0
 */
import { PermitMessage, type Route, Signature } from "@svc/protocol"
import { Clock, Context, Effect, Exit, Layer } from "effect"
import { CheckFailed, fail, type Failure, Inconclusive, Skip } from "./Check.ts"
import * as Exchange from "./Exchange.ts"
import { Options } from "./RunOptions.ts"
import { type Request, Transport } from "./Transport.ts"

type Json = Record<string, unknown>

/**
 * A JSON object (or undefined).
 *
 * @category operations
 * @since 0.1.0
 */
export const asObject = (u: unknown): Json | undefined =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? u as Json : undefined

/**
 * The feed as first read in this run.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedSnapshot {
  readonly exchange: Exchange.Exchange
  /** `body.feed`. */
  readonly feed: Json
  /** `feed.signedPayload`. */
  readonly payload: Json
  /** `feed.signedPayload.routes` (objects, not validated). */
  readonly routes: ReadonlyArray<Route>
  readonly dataVersion: string
  readonly etag: string | undefined
}

/**
 * A permit issued during the run.
 *
 * @category models
 * @since 0.1.0
 */
export interface IssuedPermit {
  readonly route: Route
  /** The request body sent (with its signature). */
  readonly request: PermitMessage.PermitRequestInput & { readonly requestSignature: string }
  readonly exchange: Exchange.Exchange
  /** The parsed response body. */
  readonly body: Json
}

/**
 * A generated test wallet: its key (never written to a report) and its
 * checksummed address.
 *
 * @category models
 * @since 0.1.0
 */
export interface Wallet {
  readonly key: `0x${string}`
  readonly address: string
}

/** A quote with less validity left than this is not used for a new request (it may expire on the way). */
const FRESH_ROUTE_SECONDS = 15

/**
 * The shared values of a run.
 *
 * @category services
 * @since 0.1.0
 */
export class Shared extends Context.Service<Shared, {
  /** GET /.well-known/svc-solver.json: a 200 JSON object. */
  readonly manifest: Effect.Effect<{ readonly exchange: Exchange.Exchange; readonly value: Json }, Skip>
  /** The permit and feed authority: --signer, else the manifest's feedSigner. */
  readonly authority: Effect.Effect<string, Skip>
  /** The feed as first read (GET /api/v6/solver-feed: 200 with feed.signedPayload.routes). */
  readonly feed: Effect.Effect<FeedSnapshot, Skip>
  /** Reads the feed again now (not cached). */
  readonly freshFeed: Effect.Effect<FeedSnapshot, Skip>
  /**
   * An open route with EVM source and destination (permit checks request
   * minimumFillInRaw of it), whose quote is valid for a while yet: when the
   * route found first is about to expire (quotes roll), the feed is read again
   * and its open route taken.
   */
  readonly openRoute: Effect.Effect<Route, Skip>
  /** The open route as first found in this run (its quote may have expired since). */
  readonly firstOpenRoute: Effect.Effect<Route, Skip>
  /** The answer to a permit creation of this run, whatever its status (skips under --read-only). */
  readonly issuedPermit: Effect.Effect<IssuedPermit, Skip>
  /** Whether /v1/health answers anything but 404. */
  readonly aggregatorPresent: Effect.Effect<boolean, Skip>
  /** The test wallet: key and checksummed address (the first of `wallets`). */
  readonly wallet: Wallet
  /** Every generated wallet of the run (`--wallets`), the test wallet first. */
  readonly wallets: ReadonlyArray<Wallet>
  /** The next wallet in turn: checks that create many permits spread them over the wallets. */
  readonly nextWallet: () => Wallet
  /** A fresh idempotency key. */
  readonly newKey: () => string
  /** GET of a path, sent once per run (later calls return the same exchange). */
  readonly get: (path: string) => Effect.Effect<Exchange.Exchange, CheckFailed | Inconclusive>
}>()("@svc/conformance/Shared") {}

// ---------------------------------------------------------------------------
// Helpers for checks
// ---------------------------------------------------------------------------

const pseudoExchange = (
  request: { method: string; url: string; headers: Readonly<Record<string, string>>; body?: string | undefined }
): Exchange.Exchange => ({
  id: 0,
  operation: undefined,
  request,
  response: { status: 0, headers: {}, body: "" },
  startedAt: 0,
  durationMs: 0,
  notes: ["no response"]
})

/**
 * Sends a request; no response is a failure, a persistent 429 inconclusive.
 *
 * @category operations
 * @since 0.1.0
 */
export const send = (request: Request): Effect.Effect<Exchange.Exchange, CheckFailed | Inconclusive, Transport> =>
  Effect.flatMap(Effect.service(Transport), (t) => t.send(request)).pipe(
    Effect.catchTags({
      TransportError: (e) =>
        fail({
          title: `no response from ${e.request.method} ${new URL(e.request.url).pathname}`,
          expected: "an HTTP response",
          actual: e.reason,
          exchange: pseudoExchange(e.request)
        }),
      RateLimited: (e) => Effect.fail(new Inconclusive({ reason: e.reason }))
    })
  )

/**
 * Fails unless the exchange has one of the statuses.
 *
 * @category operations
 * @since 0.1.0
 */
export const expectStatus = (
  exchange: Exchange.Exchange,
  expected: number | ReadonlyArray<number>,
  what?: string
): Effect.Effect<void, CheckFailed> => {
  const list = typeof expected === "number" ? [expected] : expected
  if (list.includes(exchange.response.status)) return Effect.void
  return fail({
    title: `${what ?? Exchange.describe(exchange).replace(/ -> .*/, "")} answered ${exchange.response.status}`,
    expected: `status ${list.join(" or ")}`,
    actual: Exchange.responseSummary(exchange),
    exchange
  })
}

/**
 * The JSON body of an exchange, failing when it is not JSON.
 *
 * @category operations
 * @since 0.1.0
 */
export const expectJson = (exchange: Exchange.Exchange): Effect.Effect<unknown, CheckFailed> =>
  Exchange.isJson(exchange)
    ? Effect.succeed(Exchange.json(exchange))
    : fail({
      title: "the body is not JSON",
      expected: "a JSON body",
      actual: Exchange.responseSummary(exchange),
      exchange
    })

/**
 * A failure about an exchange.
 *
 * @category operations
 * @since 0.1.0
 */
export const failure = (
  exchange: Exchange.Exchange | undefined,
  title: string,
  expected: string,
  actual: string
): Failure => ({
  title,
  expected,
  actual,
  exchange
})

/**
 * Turns a failed prerequisite into a skip of the current check.
 *
 * @category operations
 * @since 0.1.0
 */
export const prerequisite = <A, R>(what: string, effect: Effect.Effect<A, CheckFailed | Inconclusive | Skip, R>) =>
  effect.pipe(
    Effect.catchTags({
      CheckFailed: (e) => Effect.fail(new Skip({ reason: `prerequisite failed: ${what}: ${e.message}` })),
      Inconclusive: (e) => Effect.fail(new Skip({ reason: `prerequisite inconclusive: ${what}: ${e.reason}` }))
    })
  )

/**
 * Random bytes as 0x-hex.
 *
 * @category operations
 * @since 0.1.0
 */
export const randomHex = (bytes: number): `0x${string}` =>
  `0x${
    Array.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join(
      ""
    )
  }`

// ---------------------------------------------------------------------------
// The layer
// ---------------------------------------------------------------------------

const snapshotOf = (exchange: Exchange.Exchange): Effect.Effect<FeedSnapshot, CheckFailed> =>
  Effect.gen(function*() {
    if (exchange.response.status !== 200) {
      return yield* fail(failure(exchange, "the feed is not available", "200", Exchange.responseSummary(exchange)))
    }
    const feed = asObject(asObject(Exchange.json(exchange))?.feed)
    const payload = asObject(feed?.signedPayload)
    const routes = payload?.routes
    if (
      feed === undefined || payload === undefined || !Array.isArray(routes) ||
      routes.some((r) => asObject(r) === undefined)
    ) {
      return yield* fail(
        failure(
          exchange,
          "the feed has no feed.signedPayload.routes",
          "a FeedResponse",
          Exchange.responseSummary(exchange)
        )
      )
    }
    return {
      exchange,
      feed,
      payload,
      routes: routes as ReadonlyArray<Route>,
      dataVersion: String(payload.dataVersion),
      etag: exchange.response.headers.etag
    }
  })

/**
 * A permit request body as checks send it.
 *
 * @category models
 * @since 0.1.0
 */
export type PermitBody = PermitMessage.PermitRequestInput & {
  readonly quoteId: string
  readonly requestedAmountInRaw: string
  readonly idempotencyKey: string
}

/**
 * The permit request body for a route: minimumFillInRaw, the wallet as payer
 * and recipient, standard DIRECT, a fresh key.
 *
 * @category operations
 * @since 0.1.0
 */
export const permitRequestFor = (
  route: Route,
  wallet: { readonly address: string },
  idempotencyKey: string,
  extra?: Partial<Omit<PermitMessage.PermitRequestInput, "requestedAmountInRaw">> & {
    readonly requestedAmountInRaw?: string
  }
): PermitBody => ({
  quoteId: route.quoteId,
  requestedAmountInRaw: route.minimumFillInRaw,
  standard: "DIRECT",
  payer: wallet.address,
  recipient: wallet.address,
  idempotencyKey,
  ...extra
})

/**
 * Signs a permit request (EIP-191 over the locally built message).
 *
 * @category operations
 * @since 0.1.0
 */
export const signRequest = <A extends PermitMessage.PermitRequestInput>(request: A, key: `0x${string}`) => ({
  ...request,
  requestSignature: PermitMessage.sign(PermitMessage.build(request), key)
})

/**
 * The shared-values layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Shared, never, Transport | Options> = Layer.effect(
  Shared,
  Effect.gen(function*() {
    const transport = yield* Transport
    const options = yield* Options
    const provide = <A, E>(effect: Effect.Effect<A, E, Transport>) =>
      Effect.provideService(effect, Transport, transport)
    const wallets = (options.walletKeys.length > 0 ? options.walletKeys : [options.walletKey]).map((key) => ({
      key,
      address: Signature.addressOf(key)
    }))
    const wallet = wallets[0]!
    let turn = 0
    const nextWallet = () => wallets[turn++ % wallets.length]!
    const runTag = Array.from(
      globalThis.crypto.getRandomValues(new Uint8Array(4)),
      (b) => b.toString(16).padStart(2, "0")
    ).join("")
    let keys = 0
    const newKey = () => `svc-conformance-${runTag}-${++keys}`

    const gets = new Map<string, Exit.Exit<Exchange.Exchange, CheckFailed | Inconclusive>>()
    const get = (path: string) =>
      Effect.suspend(() => {
        const hit = gets.get(path)
        if (hit !== undefined) return hit
        return provide(send({ path })).pipe(
          Effect.exit,
          Effect.tap((exit) => Effect.sync(() => gets.set(path, exit))),
          Effect.flatten
        )
      })

    const manifest = yield* Effect.cached(prerequisite(
      "GET /.well-known/svc-solver.json",
      Effect.gen(function*() {
        const exchange = yield* get("/.well-known/svc-solver.json")
        if (exchange.response.status !== 200) {
          return yield* fail(
            failure(exchange, "the solver manifest is not available", "200", Exchange.responseSummary(exchange))
          )
        }
        const value = asObject(Exchange.json(exchange))
        if (value === undefined) {
          return yield* fail(
            failure(exchange, "the manifest is not a JSON object", "a JSON object", Exchange.responseSummary(exchange))
          )
        }
        return { exchange, value }
      })
    ))

    const authority = options.signer !== undefined
      ? Effect.succeed(options.signer)
      : Effect.flatMap(manifest, (m) =>
        typeof m.value.feedSigner === "string"
          ? Effect.succeed(m.value.feedSigner)
          : Effect.fail(new Skip({ reason: "the manifest has no feedSigner and no --signer was given" })))

    const readFeed = prerequisite(
      "GET /api/v6/solver-feed",
      provide(Effect.flatMap(send({ path: "/api/v6/solver-feed" }), snapshotOf))
    )
    const feed = yield* Effect.cached(readFeed)

    const openOf = (snapshot: FeedSnapshot) => {
      const route = snapshot.routes.find((r) =>
        r.open === true && r.sourceRouter !== null && r.sourceChainId !== null && r.destinationChainId !== null &&
        typeof r.quoteId === "string" && typeof r.minimumFillInRaw === "string"
      )
      return route === undefined
        ? Effect.fail(new Skip({ reason: "the feed has no open route between EVM networks" }))
        : Effect.succeed(route)
    }
    const firstOpenRoute = yield* Effect.cached(Effect.flatMap(feed, openOf))
    let current: Route | undefined
    const openRoute = Effect.gen(function*() {
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const fresh = (r: Route | undefined) => r !== undefined && Number(r.validUntil) - now > FRESH_ROUTE_SECONDS
      if (current === undefined) current = yield* firstOpenRoute
      if (fresh(current)) return current
      // the quote rolls soon (or did): the route of the current publication
      const again = yield* readFeed.pipe(Effect.flatMap(openOf), Effect.orElseSucceed(() => current!))
      current = again
      return again
    })

    const issuedPermit = yield* Effect.cached(
      options.readOnly
        ? Effect.fail(new Skip({ reason: "--read-only: no permit is created" }))
        : Effect.gen(function*() {
          const route = yield* openRoute
          const request = signRequest(permitRequestFor(route, wallet, newKey()), wallet.key)
          // any answer is the shared value: permit_create_201 judges it, the others skip without a permit
          const exchange = yield* prerequisite(
            "POST /api/v6/execution-permits",
            provide(send({ method: "POST", path: "/api/v6/execution-permits", json: request }))
          )
          return { route, request, exchange, body: asObject(Exchange.json(exchange)) ?? {} }
        })
    )

    const aggregatorPresent = yield* Effect.cached(prerequisite(
      "GET /v1/health",
      provide(Effect.map(send({ path: "/v1/health" }), (e) => e.response.status !== 404))
    ))

    return Shared.of({
      manifest,
      authority,
      feed,
      freshFeed: readFeed,
      openRoute,
      firstOpenRoute,
      issuedPermit,
      aggregatorPresent,
      wallet,
      wallets,
      nextWallet,
      newKey,
      get
    })
  })
)
