/**
 * The svc application: the whole HTTP contract (`@svc/protocol` Api: solver
 * `/api/v6`, discovery documents, `openapi.json`, the aggregator `/v1`, the
 * `/docs` page) served over the solver engine, as one layer that needs an
 * `HttpServer`, a `Store` and a `Signer`.
 *
 * How a request flows: the `node:http` fast path (when the server has one, see
 * `FastPath`) takes the feed and the event stream; everything else enters
 * `Dispatch` (request id, 404/405/OPTIONS, internal failures), then the router
 * `HttpApiBuilder` derives from the contract, then the operation's middleware
 * (`Admission` for the aggregator, `Validation`), then its handler
 * (`handlers/*`).
 *
 * @since 0.1.0
 */
import { NodeHttpServer, NodeServices } from "@effect/platform-node"
import { EvmConnector } from "@svc/connector-evm"
import { SolanaConnector } from "@svc/connector-solana"
import {
  Aggregator,
  Catalog,
  Health,
  Permits,
  Publisher,
  RateLimit,
  RouteMetrics,
  Signer,
  Solver,
  type Store
} from "@svc/core"
import * as Api from "@svc/protocol/Api"
import * as ApiDocument from "@svc/protocol/ApiDocument"
import { Context, Effect, Layer, Metric, Option, PubSub, type Redacted, Schedule } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { IpNetwork } from "effect/net"
import { RateLimiter } from "effect/persistence"
import * as Admission from "./Admission.ts"
import * as Broadcaster from "./Broadcaster.ts"
import * as ClientAddress from "./ClientAddress.ts"
import * as Compression from "./Compression.ts"
import * as Dispatch from "./Dispatch.ts"
import * as DocsAssets from "./DocsAssets.ts"
import * as DocsPage from "./DocsPage.ts"
import * as Documents from "./documents/index.ts"
import * as FastPath from "./FastPath.ts"
import * as FeedBudget from "./FeedBudget.ts"
import * as FeedServing from "./FeedServing.ts"
import * as AggregatorHandlers from "./handlers/Aggregator.ts"
import * as DiscoveryHandlers from "./handlers/Discovery.ts"
import * as FeedHandlers from "./handlers/Feed.ts"
import * as PermitsHandlers from "./handlers/Permits.ts"
import * as RoutesHandlers from "./handlers/Routes.ts"
import * as HttpMetrics from "./HttpMetrics.ts"
import * as Paths from "./Paths.ts"
import * as SocketQueues from "./SocketQueues.ts"
import * as Validation from "./Validation.ts"

/**
 * Options of the application.
 *
 * @category models
 * @since 0.1.0
 */
export interface AppOptions<E = never> {
  /** Public base URL (no trailing slash); defaults to the bound address. */
  readonly publicUrl?: string | undefined
  /** The catalog document. */
  readonly catalog: unknown
  /** Engine options (the publisher's routeDetailTemplate is derived from the public URL). */
  readonly engine?:
    | Omit<Solver.SolverOptions, "catalog" | "publisher"> & {
      readonly publisher?: Omit<Publisher.PublisherOptions, "routeDetailTemplate"> | undefined
    }
    | undefined
  /** Replacement parts of the engine, and of the aggregator behind `/v1`. */
  readonly parts?: AppParts<E> | undefined
  /** The event stream: heartbeat, caps. */
  readonly events?: Broadcaster.BroadcasterOptions | undefined
  /** The per-client budget of feed requests (`FeedBudget`); absent: unlimited. */
  readonly feedBudget?: { readonly limit: number; readonly windowSeconds: number } | undefined
  /** On-chain discovery configuration; the demo placeholders when absent. */
  readonly onchain?: Documents.OnchainConfig | undefined
  /** The aggregator interface (`/v1`). */
  readonly aggregator?: AppAggregatorOptions | undefined
  /** Proxies whose forwarding headers name the client (rate limits, caps); none by default. */
  readonly trustedProxies?: ReadonlyArray<IpNetwork.IpNetwork> | undefined
  /** The header the trusted proxies name the client in (lowercase). Default `x-forwarded-for`. */
  readonly clientAddressHeader?: string | undefined
  /**
   * Effect's `RateLimiter` on a store the replicas share (`RedisRateLimit.layer`):
   * the permit limit (unless `parts.rateLimiter` is given) and the `/v1` limits
   * count there instead of in process memory. Built once, with the application.
   */
  readonly sharedRateLimiter?: Layer.Layer<RateLimiter.RateLimiter, RateLimit.StoreUnavailable> | undefined
}

/**
 * Replacement parts: the engine's (see `Solver.SolverParts`) and the aggregator,
 * which may use the engine, the store, the signer and the quote-token secret.
 *
 * @category models
 * @since 0.1.0
 */
export interface AppParts<E = never> extends Solver.SolverParts<E> {
  readonly aggregator?: Layer.Layer<Aggregator.Aggregator, E, Solver.PartContext | Aggregator.ServerSecret> | undefined
}

/**
 * What building the application can fail with: the engine's errors, invalid
 * discovery documents (on-chain configuration), an unusable quote-token secret.
 *
 * @category models
 * @since 0.1.0
 */
export type AppError =
  | Solver.EngineError
  | Documents.DocumentsInvalid
  | Aggregator.ServerSecretUnavailable
  | RateLimit.StoreUnavailable

/**
 * Options of the aggregator interface of the application.
 *
 * The quote-token secret is `serverSecret` when given, else the one generated in
 * `<dataDir>/server.secret` when `dataDir` is given, else a random secret held in
 * memory (quote tokens then do not survive a restart).
 *
 * @category models
 * @since 0.1.0
 */
export interface AppAggregatorOptions extends Admission.AdmissionOptions {
  readonly serverSecret?: Redacted.Redacted<string> | undefined
  readonly dataDir?: string | undefined
  /** Caps a quote's validity at now + this many seconds (default: no extra cap). */
  readonly quoteTtlSeconds?: number | undefined
  /** Which `/v1/status` list lookups answer (see `Aggregator.AggregatorOptions.statusLists`). */
  readonly statusLists?: "all" | "address" | "none" | undefined
}

/**
 * Control of a running application.
 *
 * @category services
 * @since 0.1.0
 */
export class AppControl extends Context.Service<AppControl, {
  readonly publicUrl: string
  /** Sends publication-closed to every event stream, ends them and refuses new ones (before a shutdown drains). */
  readonly closeStreams: (reason: string) => Effect.Effect<void>
  readonly subscribers: () => number
}>()("@svc/server/AppControl") {}

const encoder = new TextEncoder()

/** The document bytes of the application, serialized once. */
const documentBytes = Effect.fnUntraced(function*(publicUrl: string, onchain: Documents.OnchainConfig | undefined) {
  const signer = yield* Signer.Signer
  const catalog = yield* Catalog.Catalog
  const chainIds = [...new Set(catalog.networks.flatMap((n) => n.chainId === null ? [] : [Number(n.chainId)]))]
  const router = catalog.networks.find((n) => n.router !== null)?.router ?? "0x0000000000000000000000000000000000000000"
  const documents = Documents.serialize(
    yield* Effect.fromResult(Documents.build({
      publicUrl,
      feedSigner: signer.address,
      releaseId: catalog.releaseId,
      onchain: onchain ?? Documents.demoOnchainConfig(router, chainIds)
    }))
  )
  const openapi = ApiDocument.make({ publicUrl })
  // the interactive reference's script (read once per process), when the package is installed
  const scalar = DocsAssets.scalarOption()
  const docs = DocsPage.make(openapi, { scriptUrl: scalar?.path.slice(1) })
  return {
    ...documents,
    openapi: encoder.encode(JSON.stringify(openapi)),
    docsPage: encoder.encode(docs.html),
    docsPageHeaders: docs.headers,
    onDocsPage: scalar === undefined ? undefined : () => DocsAssets.warm(scalar),
    scalar
  } satisfies DiscoveryHandlers.DocumentBytes & { readonly scalar: DocsAssets.Asset | undefined }
})

/** Open event-stream subscribers of this process (`svc_event_streams`). */
const eventStreams = Metric.gauge("event_streams", { description: "open event-stream subscribers of this process" })

/**
 * Feeds the broadcaster from the publisher: every confirmed publication, every
 * closing (operator pause), and `error` to every stream if the source fails.
 */
const feedBroadcaster = (publisher: Publisher.Publisher["Service"], broadcaster: Broadcaster.Broadcaster) =>
  Effect.gen(function*() {
    const { events } = yield* publisher.subscribe
    while (true) {
      const event = yield* PubSub.take(events)
      if (event._tag === "Published") broadcaster.publish(event.publication)
      else broadcaster.closeAll()
    }
  }).pipe(Effect.catchCause(() => Effect.sync(() => broadcaster.failAll())))

/**
 * The routes, middleware and handlers of the contract over the engine in
 * context, served on the `HttpServer`, with the fast path installed when the
 * server has a slot for it.
 *
 * @category layers
 * @since 0.1.0
 */
export const make = <E>(options: AppOptions<E> & { readonly publicUrl: string }) =>
  Effect.gen(function*() {
    const publicUrl = options.publicUrl.replace(/\/+$/, "")
    const publisher = yield* Publisher.Publisher
    const permits = yield* Permits.Permits
    const metrics = yield* RouteMetrics.RouteMetrics
    const aggregator = yield* Aggregator.Aggregator
    const health = yield* Health.Health
    const bytes = yield* documentBytes(publicUrl, options.onchain)

    // the kernel's send queues of the fast path's stream sockets, for the subscribers' backlog bound
    const queues = SocketQueues.make()
    const broadcaster = Broadcaster.make(() => {
      const current = FastPath.validPublication(publisher)
      return "publication" in current ? current.publication : undefined
    }, { ...options.events, probe: options.events?.probe ?? (queues.available ? queues.refresh : undefined) })
    yield* Effect.addFinalizer(() => Effect.sync(broadcaster.stop))
    yield* Effect.forkScoped(feedBroadcaster(publisher, broadcaster))
    // the open event streams, sampled every second for the metrics
    yield* Effect.forkScoped(
      Effect.repeat(Effect.suspend(() => Metric.update(eventStreams, broadcaster.size())), Schedule.spaced(1000))
    )

    const feed = FeedServing.make(metrics, Compression.makeCompressor())
    const feedBudget = options.feedBudget === undefined ? undefined : FeedBudget.make(options.feedBudget)
    const table = Paths.compile()
    const requestIds = Dispatch.makeRequestIds()
    const clientAddress = ClientAddress.layer(options.trustedProxies ?? [], options.clientAddressHeader)
    const clients = Context.get(yield* Layer.build(clientAddress), ClientAddress.ClientAddress)

    const groups = Layer.mergeAll(
      DiscoveryHandlers.layer(bytes),
      DiscoveryHandlers.siteLayer(bytes, health),
      FeedHandlers.layer({ publisher, feed, broadcaster, feedBudget }),
      RoutesHandlers.layer(publisher, metrics),
      PermitsHandlers.layer(permits),
      AggregatorHandlers.layer(aggregator, health)
    )
    const api = HttpApiBuilder.layer(Api.Api).pipe(
      Layer.provide(groups),
      Layer.provide(Layer.mergeAll(Validation.layer(table), Admission.layer(options.aggregator))),
      Layer.provide(clientAddress),
      Layer.provide(NodeHttpServer.layerHttpServices)
    )
    const withFavicon = Layer.merge(api, DocsAssets.faviconLayer)
    const routes = bytes.scalar === undefined ? withFavicon : Layer.merge(withFavicon, DocsAssets.layer(bytes.scalar))
    const router = yield* HttpRouter.toHttpEffect(routes).pipe(
      Effect.provideService(HttpRouter.RouterConfig, {
        ignoreTrailingSlash: false,
        ignoreDuplicateSlashes: false,
        caseSensitive: true
      })
    )
    const handler = Dispatch.wrap(
      table,
      requestIds,
      Effect.provideService(router, ClientAddress.ClientAddress, clients)
    )

    const slot = yield* Effect.serviceOption(FastPath.Slot)
    if (Option.isSome(slot)) {
      yield* slot.value.install(
        FastPath.make({
          publisher,
          feed,
          broadcaster,
          clients: clients.resolver,
          requestIds,
          queues,
          feedBudget,
          // the fast path's requests are counted in the application's metric registry
          metrics: HttpMetrics.makeRecorder(yield* Effect.context<never>())
        }),
        // a server that closes ends the streams first (publication-closed), as AppControl.closeStreams does
        broadcaster.shutdown
      )
    }

    return Layer.merge(
      HttpServer.serve(handler),
      Layer.succeed(
        AppControl,
        AppControl.of({
          publicUrl,
          closeStreams: () => Effect.sync(broadcaster.shutdown),
          subscribers: broadcaster.size
        })
      )
    )
  })

/**
 * The readiness check of a shared rate limiter: its store answers (an admission
 * or a refusal both mean it does). Named `rateLimiter` in the health components.
 *
 * @category operations
 * @since 0.1.0
 */
export const rateLimiterCheck = (limiter: RateLimiter.RateLimiter): Health.DependencyCheck => {
  // a key of its own, far from its limit: one probe at most every 2 s (the health cache)
  const probe = RateLimit.makeShared(limiter, { name: "health", limit: 1000, windowSeconds: 1000 })
  return {
    name: "rateLimiter",
    description: "shared rate-limit store",
    check: probe.consume("probe").pipe(
      Effect.catchIf((refused) => !RateLimit.isStoreUnavailable(refused), () => Effect.void)
    )
  }
}

/**
 * The application layer: engine + routes, served on the `HttpServer` in context.
 * The public URL defaults to the server's bound address.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <E = never>(
  options: AppOptions<E>
): Layer.Layer<AppControl | Solver.Engine, AppError | E, HttpServer.HttpServer | Store.Store | Signer.Signer> =>
  Layer.unwrap(
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      const publicUrl = (options.publicUrl ?? HttpServer.formatAddress(server.address)).replace(/\/+$/, "")
      const shared = options.sharedRateLimiter === undefined
        ? undefined
        : Context.get(yield* Layer.build(options.sharedRateLimiter), RateLimiter.RateLimiter)
      const parts = shared === undefined || options.parts?.rateLimiter !== undefined ? options.parts : {
        ...options.parts,
        rateLimiter: Layer.succeed(RateLimit.PermitRateLimiter, RateLimit.makeShared(shared, options.engine?.rateLimit))
      }
      // readiness checks what the requests need: with a shared limiter, its store (Redis)
      const health = shared === undefined ? options.engine?.health : {
        ...options.engine?.health,
        dependencies: [...options.engine?.health?.dependencies ?? [], rateLimiterCheck(shared)]
      }
      const engine = Solver.layer({
        ...options.engine,
        health,
        catalog: options.catalog,
        publisher: { ...options.engine?.publisher, routeDetailTemplate: `${publicUrl}/api/v6/routes/{routeId}` },
        connectors: options.engine?.connectors ?? [EvmConnector.make(), SolanaConnector.make()]
      }, parts)
      const secret = options.aggregator?.serverSecret !== undefined
        ? Aggregator.layerSecret(options.aggregator.serverSecret)
        : options.aggregator?.dataDir !== undefined
        ? Aggregator.layerSecretDevelopment(options.aggregator.dataDir).pipe(Layer.provide(NodeServices.layer))
        : Aggregator.layerSecretRandom
      const aggregator = (options.parts?.aggregator ?? Aggregator.layer({
        publicUrl,
        quoteTtlSeconds: options.aggregator?.quoteTtlSeconds,
        statusLists: options.aggregator?.statusLists,
        rateLimits: options.aggregator?.rateLimits
      })).pipe(Layer.provide(secret))
      const appAggregator = { ...options.aggregator, rateLimiter: shared }
      const app = Layer.unwrap(make({ ...options, publicUrl, aggregator: appAggregator })).pipe(
        Layer.provide(aggregator)
      )
      return Layer.provideMerge(app, engine)
    })
  )
