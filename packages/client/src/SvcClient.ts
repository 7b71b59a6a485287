/**
 * The svc client as an Effect service.
 *
 * ```ts
 * import { SvcClient } from "@svc/client"
 * import { Effect, Stream } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const svc = yield* SvcClient
 *   const feed = yield* svc.feed({ sourceChainId: 8453 })      // verified, routes from signedPayload
 *   const route = feed.openRoutes[0]!
 *   const issued = yield* svc.permits.create({
 *     request: { quoteId: route.quoteId, requestedAmountInRaw: route.minimumFillInRaw, payer, recipient },
 *     signer: account                                             // a viem account or (message) => signature
 *   })
 *   yield* svc.permits.waitFor(issued.fillId)                     // PAID, EXPIRED or FAILED
 * }).pipe(Effect.provide(SvcClient.layer({ baseUrl: "http://127.0.0.1:8787" })))
 * ```
 *
 * Everything the client calls comes from the discovery documents; every feed is
 * verified before a route is returned; permits are verified before they are
 * returned; failures are the typed errors of `Errors.ts`.
 *
 * @since 0.1.0
 */
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import {
  AggregatorBuild,
  type AggregatorBuildRequest,
  type AggregatorBuildTransaction,
  AggregatorChains,
  AggregatorHealth,
  AggregatorQuote,
  type AggregatorQuoteRequest,
  AggregatorQuoteValidity,
  AggregatorStatus,
  AggregatorStatusList,
  AggregatorTokens
} from "@svc/protocol/schema/Aggregator"
import { RouteDetailResponse, type RouteMetrics } from "@svc/protocol/schema/Feed"
import {
  type ExecutionPermitEnvelope,
  ExecutionPermitResponse,
  PermitRequestMessageResponse,
  PermitStatusResponse
} from "@svc/protocol/schema/Permit"
import { Clock, Context, Effect, Layer, Result, Schema, type Stream } from "effect"
import type { AggregatorDiscovery, Discovery } from "./Discovery.ts"
import * as Disc from "./Discovery.ts"
import {
  type DiscoveryInvalid,
  FeedInvalid,
  type FeedVerificationError,
  HttpError,
  InvalidInput,
  NetworkError,
  PermitInvalid,
  type PermitRequestInvalid,
  type RefreshQuote,
  type RequestError,
  ResponseInvalid,
  RouteNotFound,
  type SigningFailed,
  SigningPayloadMismatch,
  type SvcClientError,
  Timeout
} from "./Errors.ts"
import {
  type FeedFilter,
  filterQuery,
  isCurrent,
  normalizeFilter,
  type NormalizedFilter,
  type Route,
  routeByQuoteId,
  routeByRouteId,
  type VerifiedFeed,
  verifyFeed
} from "./Feed.ts"
import * as FeedStream from "./FeedStream.ts"
import {
  aggregatorRefusal,
  backoffDelay,
  decode,
  type FetchFunction,
  type HttpResponse,
  json,
  refusal,
  resolveFetch,
  type RetryPolicy,
  retryTransient,
  send,
  sleepMillis
} from "./internal/http.ts"
import * as Permits from "./Permits.ts"
import { ADDRESS, BYTES32, QUOTE_TOKEN } from "@svc/protocol/Patterns"

// ---------------------------------------------------------------------------
// Options and models
// ---------------------------------------------------------------------------

/**
 * Options of the client. Give `baseUrl` (the server's root URL) or the solver
 * manifest's URL.
 *
 * @category models
 * @since 0.1.0
 */
export interface SvcClientOptions {
  /** Root URL of the service (`https://solver.example`); the manifests are under `/.well-known/`. */
  readonly baseUrl?: string | undefined
  /** URL of the solver manifest (`.../.well-known/svc-solver.json`), if not under baseUrl. */
  readonly manifestUrl?: string | undefined
  /** URL of the aggregator manifest (`.../.well-known/svc-aggregator.json`), if not under baseUrl. */
  readonly aggregatorManifestUrl?: string | undefined
  /**
   * The feed signer (permit authority) to require. Discovery fails when a
   * manifest names another one; feeds and permits must recover to it. Without
   * it, the manifest's feedSigner is trusted.
   */
  readonly pinnedSigner?: string | undefined
  /** The fetch to use (default: the global fetch). */
  readonly fetch?: FetchFunction | undefined
  /** Retries of idempotent permit and build requests. */
  readonly retry?: Partial<RetryPolicy> | undefined
  /** Allowed clock difference when checking a permit's validAfter, seconds (default 60). */
  readonly clockSkewSeconds?: number | undefined
}

/**
 * Options of a feed read.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedRequest extends FeedFilter {
  /** Skip If-None-Match (always download the view). */
  readonly fresh?: boolean | undefined
}

/**
 * A route with its observational metrics: the route is the signed one from the
 * verified feed, never the unsigned detail body.
 *
 * @category models
 * @since 0.1.0
 */
export interface VerifiedRoute {
  readonly route: Route
  readonly metrics: RouteMetrics
  /** dataVersion of the verified feed the route was taken from. */
  readonly dataVersion: string
  /** Whether the detail body's route equals the signed one (false: the server's detail lags or leads a publication). */
  readonly detailMatchesSignedRoute: boolean
}

/**
 * Input of a permit creation.
 *
 * @category models
 * @since 0.1.0
 */
export interface CreatePermitInput {
  /** The request (a fresh idempotency key is generated when it has none), or one prepared with `permits.message`. */
  readonly request: Permits.PermitIntent | Permits.PreparedPermitRequest
  /** Signs the message (EIP-191): a viem account or a function. Called exactly once. */
  readonly signer: Permits.MessageSigner
  /** The signed route of the quote; looked up in the verified feed when absent. */
  readonly route?: Route | undefined
  /** Refuse a permit paying less than this. */
  readonly minAmountOutRaw?: string | bigint | undefined
}

/**
 * A created and verified permit.
 *
 * @category models
 * @since 0.1.0
 */
export interface IssuedPermit {
  readonly fillId: string
  readonly envelope: ExecutionPermitEnvelope
  /** 201 for a new permit, 200 for the replay of an identical request. */
  readonly status: 200 | 201
  readonly idempotent: boolean
  readonly idempotencyKey: string
  readonly request: Permits.PreparedPermitRequest["request"]
  readonly message: string
  readonly requestSignature: string
  readonly route: Route
  /** The `fillDirect` source transaction (and the ERC-20 approval it needs). */
  readonly transaction: Permits.FillDirectTransaction
}

/**
 * Options of status polling: exponential backoff from `initialDelayMs` by 1.5,
 * capped at `maxDelayMs`, until a terminal state or `timeoutMs`.
 *
 * @category models
 * @since 0.1.0
 */
export interface PollOptions<A> {
  /** Default 600000 (10 minutes). */
  readonly timeoutMs?: number | undefined
  /** Default 1000. */
  readonly initialDelayMs?: number | undefined
  /** Default 15000. */
  readonly maxDelayMs?: number | undefined
  /** Called with every new state. */
  readonly onUpdate?: ((value: A) => void) | undefined
}

/**
 * Input of the aggregator's two-stage build.
 *
 * @category models
 * @since 0.1.0
 */
export interface BuildTransactionInput {
  readonly quote: AggregatorQuote
  /** Signs the stage-1 message: a viem account or a function. Called exactly once. */
  readonly signer: Permits.MessageSigner
  /** The payer; defaults to the quote's userAddress, then the signer's address. */
  readonly userAddress?: string | undefined
  /** The payout address; defaults to the quote's recipient, then userAddress. */
  readonly recipient?: string | undefined
  /** Generated once when absent. */
  readonly idempotencyKey?: string | undefined
}

/**
 * A built and verified aggregator transaction.
 *
 * @category models
 * @since 0.1.0
 */
export interface BuiltTransaction {
  readonly quote: AggregatorQuote
  readonly fillId: string
  readonly expiresAt: number
  readonly envelope: ExecutionPermitEnvelope
  /** The transaction, built locally and equal to the server's. */
  readonly transaction: Permits.FillDirectTransaction
  /** The server's stage-2 answer. */
  readonly response: AggregatorBuildTransaction
  readonly idempotencyKey: string
  readonly message: string
  readonly requestSignature: string
}

/**
 * A status lookup of `GET /v1/status` (exactly one key).
 *
 * @category models
 * @since 0.1.0
 */
export type StatusLookup =
  | { readonly fillId: string }
  | { readonly sourceTxHash: string }
  | { readonly quoteId: string }
  | { readonly userAddress: string }
  | { readonly quoteToken: string }

// ---------------------------------------------------------------------------
// Error unions
// ---------------------------------------------------------------------------

/**
 * Failures of discovery (and of any call before it reaches its own endpoint).
 *
 * @category errors
 * @since 0.1.0
 */
export type DiscoveryError = DiscoveryInvalid | InvalidInput | RequestError

/**
 * Failures of a feed read.
 *
 * @category errors
 * @since 0.1.0
 */
export type FeedError = DiscoveryError | FeedVerificationError

/**
 * Failures of a route lookup.
 *
 * @category errors
 * @since 0.1.0
 */
export type RouteError = FeedError | RouteNotFound

/**
 * Failures of a permit creation.
 *
 * @category errors
 * @since 0.1.0
 */
export type PermitCreateError = RouteError | PermitRequestInvalid | SigningFailed | PermitInvalid

/**
 * Failures of a permit status read.
 *
 * @category errors
 * @since 0.1.0
 */
export type PermitReadError = DiscoveryError | PermitInvalid

/**
 * Failures of an aggregator call.
 *
 * @category errors
 * @since 0.1.0
 */
export type AggregatorCallError = DiscoveryError | RefreshQuote

/**
 * Failures of the aggregator's two-stage build.
 *
 * @category errors
 * @since 0.1.0
 */
export type BuildError = AggregatorCallError | PermitCreateError | SigningPayloadMismatch

// ---------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------

/**
 * Permit operations.
 *
 * @category models
 * @since 0.1.0
 */
export interface PermitsApi {
  /** Builds the request message locally (core builder); generates the idempotency key once if absent. */
  readonly message: (request: Permits.PermitIntent) => Effect.Effect<Permits.PreparedPermitRequest, PermitRequestInvalid>
  /** The server's request-message answer for a request (a compatibility aid; the local message is the same). */
  readonly serverMessage: (
    request: Permits.PermitIntent | Permits.PreparedPermitRequest
  ) => Effect.Effect<string, DiscoveryError | PermitRequestInvalid>
  /** Signs once, creates with an idempotency key (retrying only the identical request), verifies the permit. */
  readonly create: (input: CreatePermitInput) => Effect.Effect<IssuedPermit, PermitCreateError>
  /** The current permit envelope, verified (digest and authority). */
  readonly get: (fillId: string) => Effect.Effect<ExecutionPermitEnvelope, PermitReadError>
  /** Polls until PAID, EXPIRED or FAILED. */
  readonly waitFor: (
    fillId: string,
    options?: PollOptions<ExecutionPermitEnvelope>
  ) => Effect.Effect<ExecutionPermitEnvelope, PermitReadError | Timeout>
}

/**
 * Aggregator operations (`/v1`).
 *
 * @category models
 * @since 0.1.0
 */
export interface AggregatorApi {
  readonly discover: Effect.Effect<AggregatorDiscovery, DiscoveryError>
  readonly chains: Effect.Effect<AggregatorChains, AggregatorCallError>
  readonly tokens: (chainId?: number) => Effect.Effect<AggregatorTokens, AggregatorCallError>
  readonly health: Effect.Effect<AggregatorHealth, AggregatorCallError>
  readonly quote: (request: AggregatorQuoteRequest) => Effect.Effect<AggregatorQuote, AggregatorCallError>
  /** One raw `POST /v1/build` (either stage); prefer {@link AggregatorApi.buildTransaction}. */
  readonly build: (request: AggregatorBuildRequest) => Effect.Effect<AggregatorBuild, AggregatorCallError>
  /** Both build stages: checks the message to sign, signs once, verifies the permit and the transaction. */
  readonly buildTransaction: (input: BuildTransactionInput) => Effect.Effect<BuiltTransaction, BuildError>
  readonly status: {
    (lookup: { readonly fillId: string } | { readonly sourceTxHash: string }): Effect.Effect<AggregatorStatus, AggregatorCallError>
    (lookup: { readonly quoteId: string } | { readonly userAddress: string }): Effect.Effect<AggregatorStatusList, AggregatorCallError>
    (lookup: { readonly quoteToken: string }): Effect.Effect<AggregatorQuoteValidity, AggregatorCallError>
  }
  /** Polls `status({ fillId })` until terminal (COMPLETED, EXPIRED, FAILED). */
  readonly waitForFill: (
    fillId: string,
    options?: PollOptions<AggregatorStatus>
  ) => Effect.Effect<AggregatorStatus, AggregatorCallError | Timeout>
}

/**
 * The client.
 *
 * @category models
 * @since 0.1.0
 */
export interface SvcClientShape {
  /** The validated solver manifest (cached after the first read). */
  readonly discover: Effect.Effect<Discovery, DiscoveryError>
  /** Reads the manifest again. */
  readonly refreshDiscovery: Effect.Effect<Discovery, DiscoveryError>
  /** A verified feed (If-None-Match with the last view of the same filter; a 304 returns it). */
  readonly feed: (request?: FeedRequest) => Effect.Effect<VerifiedFeed, FeedError>
  /** A route of the verified feed, with its metrics. */
  readonly route: (routeId: string) => Effect.Effect<VerifiedRoute, RouteError>
  /** Verified feeds from the event stream, in increasing dataVersion order. */
  readonly feedStream: (options?: FeedStream.FeedStreamOptions) => Stream.Stream<VerifiedFeed, FeedStream.FeedStreamError>
  /** The stream with its diagnostics (connections, rejected events, snapshots). */
  readonly feedEvents: (
    options?: FeedStream.FeedStreamOptions
  ) => Stream.Stream<FeedStream.FeedStreamEvent, FeedStream.FeedStreamError>
  readonly permits: PermitsApi
  readonly aggregator: AggregatorApi
}

/**
 * The client service.
 *
 * @category services
 * @since 0.1.0
 */
export class SvcClient extends Context.Service<SvcClient, SvcClientShape>()("@svc/client/SvcClient") {
  /**
   * A layer of the client (no request is made until the first call).
   *
   * @since 0.1.0
   */
  static readonly layer = (options: SvcClientOptions): Layer.Layer<SvcClient> => Layer.sync(SvcClient)(() => make(options))
}

// ---------------------------------------------------------------------------
// Implementation
// ---------------------------------------------------------------------------

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, initialDelayMs: 250, maxDelayMs: 5000, maxRetryAfterMs: 30_000 }

const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

const checkId = (field: string, value: string): Effect.Effect<string, InvalidInput> =>
  typeof value === "string" && BYTES32.test(value)
    ? Effect.succeed(value.toLowerCase())
    : Effect.fail(new InvalidInput({ field, reason: "0x followed by 64 hex digits" }))

const isPrepared = (
  request: Permits.PermitIntent | Permits.PreparedPermitRequest
): request is Permits.PreparedPermitRequest =>
  typeof (request as Permits.PreparedPermitRequest).message === "string" &&
  typeof (request as Permits.PreparedPermitRequest).request === "object"

const signerAddress = (signer: Permits.MessageSigner): string | undefined => {
  const address = (signer as { readonly address?: unknown }).address
  return typeof address === "string" && ADDRESS.test(address) ? address : undefined
}

/**
 * Builds a client (no request is made until the first call).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: SvcClientOptions): SvcClientShape => {
  const fetch = resolveFetch(options.fetch)
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry }
  const clockSkewSeconds = options.clockSkewSeconds ?? 60

  const solverManifestUrl = options.manifestUrl ??
    (options.baseUrl !== undefined ? Disc.wellKnown(options.baseUrl, "svc-solver.json") : undefined)
  const aggregatorManifestUrl = options.aggregatorManifestUrl ??
    (options.baseUrl !== undefined
      ? Disc.wellKnown(options.baseUrl, "svc-aggregator.json")
      : options.manifestUrl !== undefined
      ? options.manifestUrl.replace(/\/\.well-known\/svc-solver\.json(?:[?#].*)?$/, "/.well-known/svc-aggregator.json")
      : undefined)

  // ----- state -----
  let discovery: Discovery | undefined
  let aggregatorDiscovery: AggregatorDiscovery | undefined
  const feedViews = new Map<string, VerifiedFeed>()
  const etagBodies = new Map<string, { readonly etag: string; readonly body: unknown }>()

  // ----- HTTP helpers -----
  interface Received {
    readonly response: HttpResponse
    readonly body: unknown
  }
  const getJson = (url: string, headers?: Record<string, string>): Effect.Effect<Received, RequestError> =>
    Effect.flatMap(send(fetch, "GET", url, { headers }), (response): Effect.Effect<Received, RequestError> =>
      response.status === 200
        ? Effect.map(json(response), (body) => ({ response, body }))
        : Effect.fail(refusal(response)))

  const postJson = <R extends HttpError | RefreshQuote>(
    url: string,
    body: string,
    headers: Record<string, string>,
    refuse: (response: HttpResponse) => R
  ): Effect.Effect<Received, RequestError | R> =>
    Effect.flatMap(
      send(fetch, "POST", url, { body, headers: { "content-type": "application/json", ...headers } }),
      (response): Effect.Effect<Received, RequestError | R> =>
        response.status === 200 || response.status === 201
          ? Effect.map(json(response), (parsed) => ({ response, body: parsed }))
          : Effect.fail(refuse(response))
    )

  // ----- discovery -----
  const fetchDiscovery: Effect.Effect<Discovery, DiscoveryError> = Effect.gen(function*() {
    if (solverManifestUrl === undefined) {
      return yield* new InvalidInput({ field: "baseUrl", reason: "give baseUrl or manifestUrl" })
    }
    const { body } = yield* getJson(solverManifestUrl)
    const result = yield* Effect.fromResult(Disc.solverDiscovery(solverManifestUrl, body, options.pinnedSigner))
    discovery = result
    return result
  })
  const discover = Effect.suspend(() => discovery !== undefined ? Effect.succeed(discovery) : fetchDiscovery)

  const fetchAggregatorDiscovery: Effect.Effect<AggregatorDiscovery, DiscoveryError> = Effect.gen(function*() {
    if (aggregatorManifestUrl === undefined) {
      return yield* new InvalidInput({ field: "aggregatorManifestUrl", reason: "give baseUrl or aggregatorManifestUrl" })
    }
    const { body } = yield* getJson(aggregatorManifestUrl)
    const result = yield* Effect.fromResult(Disc.aggregatorDiscovery(aggregatorManifestUrl, body, options.pinnedSigner))
    aggregatorDiscovery = result
    return result
  })
  const discoverAggregator = Effect.suspend(() =>
    aggregatorDiscovery !== undefined ? Effect.succeed(aggregatorDiscovery) : fetchAggregatorDiscovery
  )

  // ----- feed -----
  const readFeed = (filter: NormalizedFilter, fresh: boolean): Effect.Effect<VerifiedFeed, FeedError> =>
    Effect.gen(function*() {
      const d = yield* discover
      const key = filterQuery(filter)
      const url = `${d.manifest.endpoints.solverFeed}${key}`
      const kept = fresh ? undefined : feedViews.get(key)
      const headers: Record<string, string> = {}
      if (kept?.etag != null) headers["if-none-match"] = kept.etag
      const response = yield* send(fetch, "GET", url, { headers })
      const now = yield* nowSeconds
      if (response.status === 304) {
        if (kept === undefined) {
          return yield* new ResponseInvalid({ method: "GET", url, status: 304, reason: "304 without If-None-Match" })
        }
        // the kept view is the server's current view; it must still be inside its window
        if (!isCurrent(kept, now)) return yield* readFeed(filter, true)
        return { ...kept, notModified: true }
      }
      if (response.status !== 200) return yield* refusal(response)
      const body = yield* json(response)
      if (typeof body !== "object" || body === null || (body as { ok?: unknown }).ok !== true) {
        return yield* new FeedInvalid({ reason: "the response is not { ok: true, feed }" })
      }
      const verified = yield* Effect.fromResult(
        verifyFeed((body as { feed?: unknown }).feed, {
          now,
          expectedSigner: d.expectedSigner,
          filter,
          etag: response.headers.get("etag")
        })
      )
      feedViews.set(key, verified)
      return verified
    })

  const feed = (request?: FeedRequest) =>
    Effect.flatMap(Effect.fromResult(normalizeFilter(request)), (filter) => readFeed(filter, request?.fresh === true))

  const fullFeed = readFeed({ sourceChainId: undefined, sourceNetworkId: undefined }, false)

  const route = (routeId: string): Effect.Effect<VerifiedRoute, RouteError> =>
    Effect.gen(function*() {
      const id = yield* checkId("routeId", routeId)
      const d = yield* discover
      const url = Disc.fillTemplate(d.manifest.endpoints.routeDetailTemplate, "routeId", id)
      const { response, body } = yield* getJson(url)
      const detail = yield* decode(RouteDetailResponse)(response, body)
      let verified = yield* fullFeed
      let signed = routeByRouteId(verified, id)
      const matches = (r: Route | undefined) => r !== undefined && CanonicalJson.stringify(r) === CanonicalJson.stringify(detail.route)
      if (!matches(signed)) {
        verified = yield* readFeed({ sourceChainId: undefined, sourceNetworkId: undefined }, true)
        signed = routeByRouteId(verified, id)
      }
      if (signed === undefined) {
        return yield* new RouteNotFound({ routeId: id, reason: `route ${id} is not in the verified feed ${verified.dataVersion}` })
      }
      return { route: signed, metrics: detail.metrics, dataVersion: verified.dataVersion, detailMatchesSignedRoute: matches(signed) }
    })

  // ----- polling -----
  const poll = <A, E>(
    operation: string,
    read: Effect.Effect<A, E>,
    terminal: (a: A) => boolean,
    same: (a: A, b: A) => boolean,
    options: PollOptions<A> | undefined
  ): Effect.Effect<A, E | Timeout> =>
    Effect.gen(function*() {
      const timeoutMs = options?.timeoutMs ?? 600_000
      const initial = Math.max(1, options?.initialDelayMs ?? 1000)
      const cap = Math.max(initial, options?.maxDelayMs ?? 15_000)
      const start = yield* Clock.currentTimeMillis
      let last: A | undefined
      let attempt = 0
      while (true) {
        const result = yield* Effect.result(read)
        if (Result.isSuccess(result)) {
          if (last === undefined || !same(last, result.success)) options?.onUpdate?.(result.success)
          last = result.success
          if (terminal(result.success)) return result.success
        } else if (!isTransientRead(result.failure)) {
          return yield* Effect.fail(result.failure)
        }
        const elapsed = (yield* Clock.currentTimeMillis) - start
        if (elapsed >= timeoutMs) return yield* new Timeout({ operation, afterMs: timeoutMs, last })
        attempt++
        const delay = yield* backoffDelay({ initialDelayMs: Math.min(cap, initial * 1.5 ** (attempt - 1)), maxDelayMs: cap }, 1)
        yield* sleepMillis(Math.min(delay, timeoutMs - elapsed))
      }
    })

  // ----- permits -----
  const prepareIntent = (request: Permits.PermitIntent) =>
    Effect.flatMap(
      Effect.sync(() => request.idempotencyKey ?? Permits.newIdempotencyKey()),
      (idempotencyKey) => Effect.fromResult(Permits.prepare({ ...request, idempotencyKey }))
    )

  const preparedOf = (request: Permits.PermitIntent | Permits.PreparedPermitRequest) =>
    isPrepared(request) ? Effect.succeed(request) : prepareIntent(request)

  const serverMessage = (request: Permits.PermitIntent | Permits.PreparedPermitRequest) =>
    Effect.gen(function*() {
      const prepared = yield* preparedOf(request)
      const d = yield* discover
      const { response, body } = yield* postJson(d.manifest.endpoints.permitRequestMessage, Permits.messageBody(prepared), {}, refusal)
      return (yield* decode(PermitRequestMessageResponse)(response, body)).message
    })

  const routeOfQuote = (quoteId: string): Effect.Effect<Route, RouteError> =>
    Effect.gen(function*() {
      let verified = yield* fullFeed
      let route = routeByQuoteId(verified, quoteId)
      if (route === undefined && verified.notModified) {
        verified = yield* readFeed({ sourceChainId: undefined, sourceNetworkId: undefined }, true)
        route = routeByQuoteId(verified, quoteId)
      }
      if (route === undefined) {
        return yield* new RouteNotFound({ quoteId, reason: `quote ${quoteId} is not in the verified feed ${verified.dataVersion}` })
      }
      return route
    })

  const create = (input: CreatePermitInput): Effect.Effect<IssuedPermit, PermitCreateError> =>
    Effect.gen(function*() {
      const prepared = yield* preparedOf(input.request)
      const d = yield* discover
      const route = input.route ?? (yield* routeOfQuote(prepared.request.quoteId))
      const requestSignature = yield* Permits.signWith(input.signer, prepared.message)
      yield* Effect.fromResult(Permits.checkRequestSignature(prepared, requestSignature))
      const body = Permits.createBody(prepared, requestSignature)
      const url = d.manifest.endpoints.executionPermits
      const attempt = Effect.flatMap(
        postJson(url, body, { "idempotency-key": prepared.idempotencyKey }, refusal),
        ({ response, body: parsed }) =>
          Effect.map(decode(ExecutionPermitResponse)(response, parsed), (decoded) => ({ status: response.status as 200 | 201, decoded }))
      )
      const { status, decoded } = yield* retryTransient(attempt, retry)
      const envelope = decoded.permit
      const now = yield* nowSeconds
      yield* Effect.fromResult(Permits.verifyPermit(envelope, {
        authority: d.expectedSigner,
        request: prepared.request,
        route,
        minAmountOutRaw: input.minAmountOutRaw === undefined ? undefined : String(input.minAmountOutRaw),
        now,
        clockSkewSeconds
      }))
      const transaction = yield* Effect.fromResult(Permits.fillDirectTransaction(envelope))
      return {
        fillId: envelope.fillId,
        envelope,
        status,
        idempotent: decoded.idempotent,
        idempotencyKey: prepared.idempotencyKey,
        request: prepared.request,
        message: prepared.message,
        requestSignature,
        route,
        transaction
      }
    })

  const getPermit = (fillId: string): Effect.Effect<ExecutionPermitEnvelope, PermitReadError> =>
    Effect.gen(function*() {
      const id = yield* checkId("fillId", fillId)
      const d = yield* discover
      const { response, body } = yield* getJson(Disc.fillTemplate(d.manifest.endpoints.permitStatusTemplate, "fillId", id))
      const envelope = (yield* decode(PermitStatusResponse)(response, body)).permit
      if (envelope.fillId.toLowerCase() !== id) {
        return yield* new PermitInvalid({ fillId: envelope.fillId, reasons: ["FILL_ID_MISMATCH"] })
      }
      yield* Effect.fromResult(Permits.verifyPermit(envelope, { authority: d.expectedSigner }))
      return envelope
    })

  const permits: PermitsApi = {
    message: prepareIntent,
    serverMessage,
    create,
    get: getPermit,
    waitFor: (fillId, pollOptions) =>
      poll(
        "permit status",
        getPermit(fillId),
        (envelope) => Permits.isTerminalState(envelope.state),
        (a, b) => a.state === b.state && a.sourceTxHash === b.sourceTxHash && a.payoutTxHash === b.payoutTxHash,
        pollOptions
      )
  }

  // ----- aggregator -----
  const aggregatorGet = <S extends Schema.Decoder<unknown>>(schema: S, url: string, cache: boolean) =>
    Effect.gen(function*() {
      const kept = cache ? etagBodies.get(url) : undefined
      const response = yield* send(fetch, "GET", url, { headers: kept !== undefined ? { "if-none-match": kept.etag } : {} })
      if (response.status === 304 && kept !== undefined) return yield* decode(schema)(response, kept.body)
      if (response.status !== 200) return yield* aggregatorRefusal(response)
      const body = yield* json(response)
      const decoded = yield* decode(schema)(response, body)
      const etag = response.headers.get("etag")
      if (cache && etag !== null) etagBodies.set(url, { etag, body })
      return decoded
    })

  const aggregatorPost = <S extends Schema.Decoder<unknown>>(schema: S, url: string, body: unknown) =>
    Effect.flatMap(postJson(url, JSON.stringify(body), {}, aggregatorRefusal), ({ response, body: parsed }) =>
      decode(schema)(response, parsed))

  const endpoints = Effect.map(discoverAggregator, (a) => a.manifest.endpoints)

  const chains = Effect.flatMap(endpoints, (e) => aggregatorGet(AggregatorChains, e.chains, true))
  const tokens = (chainId?: number) =>
    chainId !== undefined && !(Number.isSafeInteger(chainId) && chainId >= 1)
      ? Effect.fail(new InvalidInput({ field: "chainId", reason: "an integer >= 1" }))
      : Effect.flatMap(endpoints, (e) =>
        aggregatorGet(AggregatorTokens, chainId === undefined ? e.tokens : `${e.tokens}?chainId=${chainId}`, true))
  const health = Effect.flatMap(endpoints, (e) => aggregatorGet(AggregatorHealth, e.health, false))
  const quote = (request: AggregatorQuoteRequest) =>
    Effect.flatMap(endpoints, (e) => aggregatorPost(AggregatorQuote, e.quote, request))
  const build = (request: AggregatorBuildRequest) =>
    Effect.flatMap(endpoints, (e) => aggregatorPost(AggregatorBuild, e.build, request))

  const statusOf = (lookup: StatusLookup): Effect.Effect<unknown, AggregatorCallError> =>
    Effect.gen(function*() {
      const entries = Object.entries(lookup).filter(([, v]) => v !== undefined)
      if (entries.length !== 1) return yield* new InvalidInput({ field: "lookup", reason: "exactly one lookup key" })
      const [key, value] = entries[0] as [string, string]
      const valid = key === "userAddress" ? ADDRESS.test(value) : key === "quoteToken" ? QUOTE_TOKEN.test(value) : BYTES32.test(value)
      if (!["fillId", "sourceTxHash", "quoteId", "userAddress", "quoteToken"].includes(key) || !valid) {
        return yield* new InvalidInput({ field: key, reason: "not a valid status lookup" })
      }
      const e = yield* endpoints
      const url = `${e.status}?${key}=${encodeURIComponent(value)}`
      const schema = key === "fillId" || key === "sourceTxHash"
        ? AggregatorStatus
        : key === "quoteToken"
        ? AggregatorQuoteValidity
        : AggregatorStatusList
      return yield* aggregatorGet(schema as Schema.Decoder<unknown>, url, false)
    })

  const buildTransaction = (input: BuildTransactionInput): Effect.Effect<BuiltTransaction, BuildError> =>
    Effect.gen(function*() {
      const q = input.quote
      const userAddress = input.userAddress ?? q.userAddress ?? signerAddress(input.signer)
      if (userAddress === undefined || userAddress === null) {
        return yield* new InvalidInput({ field: "userAddress", reason: "the quote has no userAddress; give one" })
      }
      const recipient = input.recipient ?? q.recipient ?? userAddress
      const idempotencyKey = input.idempotencyKey ?? (yield* Effect.sync(Permits.newIdempotencyKey))
      const prepared = yield* Effect.fromResult(Permits.prepare({
        quoteId: q.quoteId,
        requestedAmountInRaw: q.amountIn,
        standard: "DIRECT",
        payer: userAddress,
        recipient,
        idempotencyKey
      }))
      const a = yield* discoverAggregator
      const route = yield* routeOfQuote(q.quoteId)
      if (route.routeId.toLowerCase() !== q.routeId.toLowerCase()) {
        return yield* new RouteNotFound({ routeId: q.routeId, quoteId: q.quoteId, reason: "the quote's routeId is not the signed route of its quoteId" })
      }
      const request: AggregatorBuildRequest = {
        quoteToken: q.quoteToken,
        quoteId: q.quoteId,
        routeId: q.routeId,
        userAddress: prepared.request.payer!,
        recipient: prepared.request.recipient!,
        idempotencyKey
      }
      const url = a.manifest.endpoints.build
      const stage1 = yield* retryTransient(aggregatorPost(AggregatorBuild, url, request), retry)
      if (!stage1.signatureRequired) {
        return yield* new ResponseInvalid({ method: "POST", url, status: 200, reason: "stage 1 answered a transaction" })
      }
      if (stage1.signingPayload.message !== prepared.message) {
        return yield* new SigningPayloadMismatch({ expected: prepared.message, received: stage1.signingPayload.message })
      }
      if (stage1.quote.quoteToken !== q.quoteToken || stage1.quote.amountOut !== q.amountOut) {
        return yield* new SigningPayloadMismatch({ expected: JSON.stringify(q), received: JSON.stringify(stage1.quote) })
      }
      const requestSignature = yield* Permits.signWith(input.signer, prepared.message)
      yield* Effect.fromResult(Permits.checkRequestSignature(prepared, requestSignature))
      const stage2 = yield* retryTransient(aggregatorPost(AggregatorBuild, url, { ...request, requestSignature }), retry)
      if (stage2.signatureRequired) {
        return yield* new ResponseInvalid({ method: "POST", url, status: 200, reason: "stage 2 asked for a signature again" })
      }
      const envelope = stage2.permit
      const now = yield* nowSeconds
      const problems = Permits.permitProblems(envelope, {
        authority: a.expectedSigner,
        request: prepared.request,
        route,
        amountOutRaw: q.amountOut,
        now,
        clockSkewSeconds
      })
      const built = Permits.fillDirectTransaction(envelope)
      if (Result.isFailure(built)) problems.push(...built.failure.reasons)
      else {
        const tx = built.success
        const eq = (x: string, y: string) => x.toLowerCase() === y.toLowerCase()
        if (!eq(stage2.data, tx.data)) problems.push("TX_DATA_MISMATCH")
        if (!eq(stage2.target, tx.to)) problems.push("TX_TARGET_MISMATCH")
        if (!eq(stage2.from, tx.from)) problems.push("TX_FROM_MISMATCH")
        if (stage2.chainId !== tx.chainId || stage2.chainId !== q.fromChainId) problems.push("TX_CHAIN_ID_MISMATCH")
        if (BigInt(stage2.value) !== tx.value) problems.push("TX_VALUE_MISMATCH")
        const approvalOk = stage2.approval === null
          ? tx.approval === null
          : tx.approval !== null && eq(stage2.approval.spender, tx.approval.spender) &&
            BigInt(stage2.approval.amount) === tx.approval.amount
        if (!approvalOk) problems.push("TX_APPROVAL_MISMATCH")
        if (!eq(stage2.fillId, envelope.fillId)) problems.push("FILL_ID_MISMATCH")
        if (!eq(stage2.quoteId, q.quoteId) || !eq(stage2.routeId, q.routeId)) problems.push("TX_QUOTE_MISMATCH")
        if (!eq(envelope.permit.routeId, q.routeId)) problems.push("ROUTE_ID_MISMATCH")
      }
      if (problems.length > 0 || Result.isFailure(built)) {
        return yield* new PermitInvalid({ fillId: envelope.fillId, reasons: [...new Set(problems)] })
      }
      return {
        quote: q,
        fillId: envelope.fillId,
        expiresAt: stage2.expiresAt,
        envelope,
        transaction: built.success,
        response: stage2,
        idempotencyKey,
        message: prepared.message,
        requestSignature
      }
    })

  const aggregator: AggregatorApi = {
    discover: discoverAggregator,
    chains,
    tokens,
    health,
    quote,
    build,
    buildTransaction,
    status: statusOf as AggregatorApi["status"],
    waitForFill: (fillId, pollOptions) =>
      poll(
        "fill status",
        statusOf({ fillId }) as Effect.Effect<AggregatorStatus, AggregatorCallError>,
        (status) => status.terminal,
        (a, b) => a.status === b.status && a.sourceTxHash === b.sourceTxHash && a.payoutTxHash === b.payoutTxHash,
        pollOptions
      )
  }

  // ----- stream -----
  const streamContext: FeedStream.FeedStreamContext = {
    fetch,
    discover: discover as Effect.Effect<Discovery, SvcClientError>,
    snapshot: (filter) => readFeed(filter, false)
  }

  return {
    discover,
    refreshDiscovery: Effect.suspend(() => fetchDiscovery),
    feed,
    route,
    feedStream: (streamOptions) => FeedStream.feeds(streamContext, streamOptions),
    feedEvents: (streamOptions) => FeedStream.feedEvents(streamContext, streamOptions),
    permits,
    aggregator
  }
}

/** Failures a poll tolerates (and keeps polling through). */
const isTransientRead = (error: unknown): boolean =>
  error instanceof NetworkError ||
  (error instanceof HttpError && (error.status === 429 || error.status === 502 || error.status === 503 || error.status === 504))
