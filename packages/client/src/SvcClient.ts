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
 * Everything the client calls comes from the discovery documents; how each call
 * is made (method, success statuses, body schemas, error bodies) comes from the
 * HTTP contract (`@svc/protocol/Api`); every feed is verified before a route is
 * returned; permits are verified before they are returned; failures are the
 * typed errors of `Errors.ts`. Every method runs in a span (`SvcClient.feed`,
 * `SvcClient.permits.create`, ...).
 *
 * @since 0.1.0
 */
import type {
  AggregatorBuild,
  AggregatorBuildRequest,
  AggregatorBuildTransaction,
  AggregatorChains,
  AggregatorHealth,
  AggregatorQuote,
  AggregatorQuoteRequest,
  AggregatorQuoteValidity,
  AggregatorStatus,
  AggregatorStatusList,
  AggregatorTokens
} from "@svc/protocol/schema/Aggregator"
import type { RouteMetrics } from "@svc/protocol/schema/Feed"
import type { ExecutionPermitEnvelope } from "@svc/protocol/schema/Permit"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"
import type {
  DiscoveryInvalid,
  FeedVerificationError,
  InvalidInput,
  PermitInvalid,
  PermitRequestInvalid,
  RefreshQuote,
  RequestError,
  RouteNotFound,
  SigningFailed,
  SigningPayloadMismatch,
  Timeout
} from "./Errors.ts"
import type { FeedFilter, Route, VerifiedFeed } from "./Feed.ts"
import type * as FeedStream from "./FeedStream.ts"
import type { FetchFunction, RetryPolicy } from "./internal/http.ts"
import { aggregator } from "./internal/service/aggregator.ts"
import { aggregatorManifest } from "./internal/service/manifests.ts"
import { solverPart } from "./internal/service/solver.ts"
import { feedStreams } from "./internal/service/stream.ts"
import type * as Manifests from "./Manifests.ts"
import type * as Permits from "./Permits.ts"

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
  readonly message: (
    request: Permits.PermitIntent
  ) => Effect.Effect<Permits.PreparedPermitRequest, PermitRequestInvalid>
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
  readonly discover: Effect.Effect<Manifests.Aggregator, DiscoveryError>
  readonly chains: Effect.Effect<AggregatorChains, AggregatorCallError>
  readonly tokens: (chainId?: number) => Effect.Effect<AggregatorTokens, AggregatorCallError>
  readonly health: Effect.Effect<AggregatorHealth, AggregatorCallError>
  readonly quote: (request: AggregatorQuoteRequest) => Effect.Effect<AggregatorQuote, AggregatorCallError>
  /** One raw `POST /v1/build` (either stage); prefer {@link AggregatorApi.buildTransaction}. */
  readonly build: (request: AggregatorBuildRequest) => Effect.Effect<AggregatorBuild, AggregatorCallError>
  /** Both build stages: checks the message to sign, signs once, verifies the permit and the transaction. */
  readonly buildTransaction: (input: BuildTransactionInput) => Effect.Effect<BuiltTransaction, BuildError>
  readonly status: {
    (
      lookup: { readonly fillId: string } | { readonly sourceTxHash: string }
    ): Effect.Effect<AggregatorStatus, AggregatorCallError>
    (
      lookup: { readonly quoteId: string } | { readonly userAddress: string }
    ): Effect.Effect<AggregatorStatusList, AggregatorCallError>
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
  readonly discover: Effect.Effect<Manifests.Solver, DiscoveryError>
  /** Reads the manifest again. */
  readonly refreshDiscovery: Effect.Effect<Manifests.Solver, DiscoveryError>
  /** A verified feed (If-None-Match with the last view of the same filter; a 304 returns it). */
  readonly feed: (request?: FeedRequest) => Effect.Effect<VerifiedFeed, FeedError>
  /** A route of the verified feed, with its metrics. */
  readonly route: (routeId: string) => Effect.Effect<VerifiedRoute, RouteError>
  /** Verified feeds from the event stream, in increasing dataVersion order. */
  readonly feedStream: (
    options?: FeedStream.FeedStreamOptions
  ) => Stream.Stream<VerifiedFeed, FeedStream.FeedStreamError>
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
  static readonly layer = (options: SvcClientOptions): Layer.Layer<SvcClient> =>
    Layer.sync(SvcClient)(() => make(options))
}

// ---------------------------------------------------------------------------
// Implementation
// ---------------------------------------------------------------------------

/**
 * Builds a client (no request is made until the first call). The parts are
 * built separately (`internal/service/`): discovery (the manifests), the feed,
 * route detail and permits (the solver part), then the aggregator and the
 * stream; every request is an operation of the HTTP contract
 * (`internal/operations.ts`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: SvcClientOptions): SvcClientShape => {
  const { env, feeds, manifests, methods } = solverPart(options)
  const streams = feedStreams(env, manifests, feeds)
  return {
    ...methods,
    feedStream: streams.feedStream,
    feedEvents: streams.feedEvents,
    aggregator: aggregator(env, { ...manifests, aggregator: aggregatorManifest(env) }, feeds)
  }
}
