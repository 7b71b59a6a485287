/**
 * The client in plain Promise style, for code that does not use Effect.
 *
 * ```ts
 * import { createClient, isSvcClientError } from "@svc/client"
 *
 * const svc = createClient({ baseUrl: "http://127.0.0.1:8787" })
 * const feed = await svc.feed({ sourceChainId: 8453 })   // verified; routes from the signed payload
 * for await (const next of svc.subscribe()) { ... }      // verified feeds, increasing dataVersion
 * ```
 *
 * Every method resolves with the same values as the Effect service
 * ({@link SvcClientShape}) and rejects only with the client's typed errors
 * (`isSvcClientError(error)` holds; switch on `error.code`). This module is the
 * boundary where the client's effects are run.
 *
 * @since 0.1.0
 */
import type {
  AggregatorBuild,
  AggregatorBuildRequest,
  AggregatorChains,
  AggregatorHealth,
  AggregatorQuote,
  AggregatorQuoteRequest,
  AggregatorQuoteValidity,
  AggregatorStatus,
  AggregatorStatusList,
  AggregatorTokens
} from "@svc/protocol/schema/Aggregator"
import type { ExecutionPermitEnvelope } from "@svc/protocol/schema/Permit"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { Aborted, isSvcClientError, type SvcClientError, UnexpectedError } from "./Errors.ts"
import type { VerifiedFeed } from "./Feed.ts"
import type { FeedStreamEvent, FeedStreamOptions } from "./FeedStream.ts"
import { solverPart, type SolverShape } from "./internal/service/solver.ts"
import type * as Manifests from "./Manifests.ts"
import type { MessageSigner, PermitIntent, PreparedPermitRequest } from "./Permits.ts"
import {
  type BuildTransactionInput,
  type BuiltTransaction,
  type CreatePermitInput,
  type FeedRequest,
  type IssuedPermit,
  make,
  type PollOptions,
  type SvcClientOptions,
  type SvcClientShape,
  type VerifiedRoute
} from "./SvcClient.ts"

/**
 * Options of a cancellable call.
 *
 * @category models
 * @since 0.1.0
 */
export interface CallOptions {
  /** Aborting rejects the call with `Aborted` and stops its requests. */
  readonly signal?: AbortSignal | undefined
}

/**
 * Options of {@link SvcPromiseClient.subscribe}.
 *
 * @category models
 * @since 0.1.0
 */
export interface SubscribeOptions extends FeedStreamOptions {
  /** Called with every stream event (connections, rejected events, snapshots, feeds). */
  readonly onEvent?: ((event: FeedStreamEvent) => void) | undefined
}

/**
 * A subscription to verified feeds: iterate it with `for await`, stop it with
 * `close()` (or `break`).
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedSubscription extends AsyncIterable<VerifiedFeed> {
  /** The next verified feed; rejects with a typed error when the stream fails. */
  readonly next: () => Promise<IteratorResult<VerifiedFeed, undefined>>
  /** Stops the stream and its connection. */
  readonly close: () => Promise<void>
}

/**
 * The solver part of the Promise client: discovery, verified feeds, routes and
 * permits (what {@link createSolverClient} returns).
 *
 * @category models
 * @since 0.1.0
 */
export interface SvcSolverClient {
  readonly discover: () => Promise<Manifests.Solver>
  readonly refreshDiscovery: () => Promise<Manifests.Solver>
  readonly feed: (request?: FeedRequest) => Promise<VerifiedFeed>
  readonly route: (routeId: string) => Promise<VerifiedRoute>
  readonly permits: {
    readonly message: (request: PermitIntent) => Promise<PreparedPermitRequest>
    readonly serverMessage: (request: PermitIntent | PreparedPermitRequest) => Promise<string>
    readonly create: (input: CreatePermitInput, options?: CallOptions) => Promise<IssuedPermit>
    readonly get: (fillId: string) => Promise<ExecutionPermitEnvelope>
    readonly waitFor: (
      fillId: string,
      options?: PollOptions<ExecutionPermitEnvelope> & CallOptions
    ) => Promise<ExecutionPermitEnvelope>
  }
}

/**
 * The Promise client: the solver part, the feed stream, the aggregator, and
 * the Effect service value behind them.
 *
 * @category models
 * @since 0.1.0
 */
export interface SvcPromiseClient extends SvcSolverClient {
  /** The same client as an Effect service value. */
  readonly effect: SvcClientShape
  readonly subscribe: (options?: SubscribeOptions) => FeedSubscription
  readonly aggregator: {
    readonly discover: () => Promise<Manifests.Aggregator>
    readonly chains: () => Promise<AggregatorChains>
    readonly tokens: (chainId?: number) => Promise<AggregatorTokens>
    readonly health: () => Promise<AggregatorHealth>
    readonly quote: (request: AggregatorQuoteRequest) => Promise<AggregatorQuote>
    readonly build: (request: AggregatorBuildRequest) => Promise<AggregatorBuild>
    readonly buildTransaction: (input: BuildTransactionInput, options?: CallOptions) => Promise<BuiltTransaction>
    readonly status: {
      (lookup: { readonly fillId: string } | { readonly sourceTxHash: string }): Promise<AggregatorStatus>
      (lookup: { readonly quoteId: string } | { readonly userAddress: string }): Promise<AggregatorStatusList>
      (lookup: { readonly quoteToken: string }): Promise<AggregatorQuoteValidity>
    }
    readonly waitForFill: (
      fillId: string,
      options?: PollOptions<AggregatorStatus> & CallOptions
    ) => Promise<AggregatorStatus>
  }
}

/**
 * The typed error of a failed run: the typed failure, `Aborted` for an
 * interruption, `UnexpectedError` for a defect.
 *
 * @category errors
 * @since 0.1.0
 */
export const errorOfCause = (operation: string, cause: Cause.Cause<unknown>): SvcClientError => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isSome(failure) && isSvcClientError(failure.value)) return failure.value
  if (Cause.hasInterruptsOnly(cause)) return new Aborted({ operation })
  return new UnexpectedError({ cause: Option.isSome(failure) ? failure.value : Cause.squash(cause) })
}

const run = <A, E>(operation: string, effect: Effect.Effect<A, E>, signal?: AbortSignal): Promise<A> =>
  Effect.runPromiseExit(effect, signal === undefined ? undefined : { signal }).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    throw errorOfCause(operation, exit.cause)
  })

const subscription = (client: SvcClientShape, options?: SubscribeOptions): FeedSubscription => {
  const onEvent = options?.onEvent
  const stream = client.feedEvents(options).pipe(
    Stream.tap((event) =>
      Effect.sync(() => {
        try {
          onEvent?.(event)
        } catch {
          // a failing callback must not break the stream
        }
      })
    ),
    Stream.filter((event): event is Extract<FeedStreamEvent, { _tag: "Feed" }> => event._tag === "Feed"),
    Stream.map((event) => event.feed),
    // interruptions (close) stay interruptions; anything else becomes a typed error
    Stream.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Stream.failCause(cause) : Stream.fail(errorOfCause("feed stream", cause))
    )
  )
  let iterator: AsyncIterator<VerifiedFeed> | undefined
  let closed = false
  const current = () => (iterator ??= Stream.toAsyncIterable(stream)[Symbol.asyncIterator]())
  const next = async (): Promise<IteratorResult<VerifiedFeed, undefined>> => {
    if (closed) return { done: true, value: undefined }
    const result = await current().next()
    return result.done === true ? { done: true, value: undefined } : result
  }
  const close = async (): Promise<void> => {
    closed = true
    if (iterator !== undefined) await iterator.return?.()
  }
  return {
    next,
    close,
    [Symbol.asyncIterator]: () => ({
      next,
      return: async () => (await close(), { done: true as const, value: undefined })
    })
  }
}

const solverMethods = (client: SolverShape): SvcSolverClient => ({
  discover: () => run("discover", client.discover),
  refreshDiscovery: () => run("refreshDiscovery", client.refreshDiscovery),
  feed: (request) => run("feed", client.feed(request)),
  route: (routeId) => run("route", client.route(routeId)),
  permits: {
    message: (request) => run("permits.message", client.permits.message(request)),
    serverMessage: (request) => run("permits.serverMessage", client.permits.serverMessage(request)),
    create: (input, callOptions) => run("permits.create", client.permits.create(input), callOptions?.signal),
    get: (fillId) => run("permits.get", client.permits.get(fillId)),
    waitFor: (fillId, pollOptions) =>
      run("permits.waitFor", client.permits.waitFor(fillId, pollOptions), pollOptions?.signal)
  }
})

/**
 * Creates the Promise client: everything of {@link SvcPromiseClient}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const createClient = (options: SvcClientOptions): SvcPromiseClient => {
  const client = make(options)
  const a = client.aggregator
  return {
    ...solverMethods(client),
    effect: client,
    subscribe: (subscribeOptions) => subscription(client, subscribeOptions),
    aggregator: {
      discover: () => run("aggregator.discover", a.discover),
      chains: () => run("aggregator.chains", a.chains),
      tokens: (chainId) => run("aggregator.tokens", a.tokens(chainId)),
      health: () => run("aggregator.health", a.health),
      quote: (request) => run("aggregator.quote", a.quote(request)),
      build: (request) => run("aggregator.build", a.build(request)),
      buildTransaction: (input, callOptions) =>
        run("aggregator.buildTransaction", a.buildTransaction(input), callOptions?.signal),
      status:
        ((lookup: Parameters<typeof a.status>[0]) =>
          run("aggregator.status", a.status(lookup as never))) as unknown as SvcPromiseClient[
            "aggregator"
          ]["status"],
      waitForFill: (fillId, pollOptions) =>
        run("aggregator.waitForFill", a.waitForFill(fillId, pollOptions), pollOptions?.signal)
    }
  }
}

/**
 * Creates the solver part of the Promise client: the same `discover`,
 * `refreshDiscovery`, `feed`, `route` and `permits` methods as
 * {@link createClient}, with the same verification and typed errors, and
 * nothing else. A browser bundle of an app that only reads verified feeds and
 * requests permits is smaller with it: the feed stream, the aggregator and the
 * Effect service layer are left out (`createClient` keeps them reachable from
 * the object it returns, so a bundler cannot drop them).
 *
 * ```ts
 * import { createSolverClient } from "@svc/client"
 *
 * const svc = createSolverClient({ baseUrl: "https://solver.example" })
 * const feed = await svc.feed()
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const createSolverClient = (options: SvcClientOptions): SvcSolverClient =>
  solverMethods(solverPart(options).methods)

export type { MessageSigner }
