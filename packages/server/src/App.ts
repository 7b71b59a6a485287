/**
 * The svc application: the whole HTTP API (solver `/api/v6`, discovery
 * documents, `openapi.json`, the API reference at `/docs`) over the solver engine,
 * as one layer that needs an `HttpServer`.
 *
 * @since 0.1.0
 */
import { NodeServices } from "@effect/platform-node"
import {
  Aggregator,
  Catalog,
  Connector,
  Permits,
  Publisher,
  RouteMetrics,
  Signer,
  Solver,
  type Store
} from "@svc/core"
import { Context, Effect, Layer, type Redacted, Result } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as AggregatorRoutes from "./AggregatorRoutes.ts"
import * as Discovery from "./Discovery.ts"
import * as Events from "./Events.ts"
import * as Http from "./Http.ts"
import * as OpenApi from "./OpenApi.ts"
import * as Router from "./Router.ts"
import * as SolverRoutes from "./SolverRoutes.ts"

/**
 * Options of the application.
 *
 * @category models
 * @since 0.1.0
 */
export interface AppOptions {
  /** Public base URL (no trailing slash); defaults to the bound address. */
  readonly publicUrl?: string | undefined
  /** The catalog document. */
  readonly catalog: unknown
  /** Engine options (the publisher's routeDetailTemplate is derived from the public URL). */
  readonly engine?: Omit<Solver.SolverOptions, "catalog" | "publisher"> & {
    readonly publisher?: Omit<Publisher.PublisherOptions, "routeDetailTemplate"> | undefined
  } | undefined
  /** Replacement parts of the engine. */
  readonly parts?: Solver.SolverParts | undefined
  readonly events?: Events.EventsOptions | undefined
  /** On-chain discovery configuration; the demo placeholders when absent. */
  readonly onchain?: Discovery.OnchainConfig | undefined
  /** The aggregator interface (`/v1`). */
  readonly aggregator?: AppAggregatorOptions | undefined
}

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
export interface AppAggregatorOptions extends AggregatorRoutes.AggregatorRoutesOptions {
  readonly serverSecret?: Redacted.Redacted<string> | undefined
  readonly dataDir?: string | undefined
  /** Caps a quote's validity at now + this many seconds (default: no extra cap). */
  readonly quoteTtlSeconds?: number | undefined
}

/**
 * Control of a running application.
 *
 * @category services
 * @since 0.1.0
 */
export class AppControl extends Context.Service<AppControl, {
  readonly publicUrl: string
  /** Sends publication-closed to every event stream and ends them (before a shutdown drains). */
  readonly closeStreams: (reason: string) => Effect.Effect<void>
  readonly subscribers: () => number
}>()("@svc/server/AppControl") {}

/** 400 for any query parameter (decisions: unknown query parameters are refused). */
const noQuery = (request: Router.Request) => {
  const query = SolverRoutes.parseQuery(request.query, [])
  return Result.isFailure(query) ? Http.errorResponse(query.failure) : undefined
}

const documentRoute = (path: string, body: Uint8Array, cacheControl: string): Router.Route => ({
  method: "GET",
  path,
  handler: (request) =>
    Effect.succeed(noQuery(request) ?? Http.jsonBytes(200, body, { link: `<${path}>; rel="canonical"` }, cacheControl))
})

/**
 * The routes of the application and its control, built over the engine.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: AppOptions & { readonly publicUrl: string }) =>
  Effect.gen(function*() {
    const publicUrl = options.publicUrl.replace(/\/+$/, "")
    const signer = yield* Signer.Signer
    const catalog = yield* Catalog.Catalog
    const chainIds = [...new Set(catalog.networks.flatMap((n) => n.chainId === null ? [] : [Number(n.chainId)]))]
    const router = catalog.networks.find((n) => n.router !== null)?.router ?? "0x0000000000000000000000000000000000000000"
    const onchain = options.onchain ?? Discovery.demoOnchainConfig(router, chainIds)
    const documents = Discovery.serializeDocuments(
      Discovery.buildDocuments({ publicUrl, feedSigner: signer.address, releaseId: catalog.releaseId, onchain })
    )
    const openapi = new TextEncoder().encode(JSON.stringify(OpenApi.buildOpenApi({ publicUrl })))
    const docsPage = new TextEncoder().encode(OpenApi.docsHtml(`${publicUrl}/openapi.json`))
    const services: SolverRoutes.Services = {
      publisher: yield* Publisher.Publisher,
      permits: yield* Permits.Permits,
      metrics: yield* RouteMetrics.RouteMetrics
    }
    const events = yield* Events.make(services.publisher, options.events)
    const aggregatorService = yield* Aggregator.make({
      publicUrl,
      quoteTtlSeconds: options.aggregator?.quoteTtlSeconds,
      rateLimits: options.aggregator?.rateLimits
    })
    const aggregator = yield* AggregatorRoutes.make(options.aggregator).pipe(
      Effect.provideService(Aggregator.Aggregator, aggregatorService)
    )
    const table: ReadonlyArray<Router.Route> = [
      documentRoute("/.well-known/svc-solver.json", documents.solverManifest, Http.CacheControl.manifest),
      documentRoute("/api/v6/solver-discovery", documents.solverManifest, Http.CacheControl.manifest),
      documentRoute("/.well-known/svc-onchain-discovery.json", documents.onchainDiscovery, Http.CacheControl.document),
      documentRoute("/.well-known/svc-standards.json", documents.standards, Http.CacheControl.document),
      documentRoute("/openapi.json", openapi, Http.CacheControl.document),
      {
        method: "GET",
        path: "/docs",
        handler: (request) => Effect.succeed(noQuery(request) ?? Http.htmlBytes(docsPage, Http.CacheControl.document))
      },
      ...SolverRoutes.make(services),
      events.route,
      ...aggregator.routes
    ]
    return {
      handler: Router.dispatch(table, { errorBodies: [aggregator.errorBodies] }),
      control: AppControl.of({
        publicUrl,
        closeStreams: events.closeAll,
        subscribers: events.subscribers
      })
    }
  })

/**
 * The application layer: engine + routes, served on the `HttpServer` in context.
 * The public URL defaults to the server's bound address.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: AppOptions): Layer.Layer<AppControl | Solver.Services, unknown, HttpServer.HttpServer | Store.Store | Signer.Signer> =>
  Layer.unwrap(
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      const publicUrl = (options.publicUrl ?? HttpServer.formatAddress(server.address)).replace(/\/+$/, "")
      const engine = Solver.layer({
        ...options.engine,
        catalog: options.catalog,
        publisher: { ...options.engine?.publisher, routeDetailTemplate: `${publicUrl}/api/v6/routes/{routeId}` },
        connectors: options.engine?.connectors ?? [Connector.evmEoaConnector]
      }, options.parts)
      const secret = options.aggregator?.serverSecret !== undefined
        ? Aggregator.layerSecret(options.aggregator.serverSecret)
        : options.aggregator?.dataDir !== undefined
        ? Aggregator.layerSecretDevelopment(options.aggregator.dataDir).pipe(Layer.provide(NodeServices.layer))
        : Aggregator.layerSecretRandom
      const app = Layer.unwrap(
        Effect.map(make({ ...options, publicUrl }), ({ control, handler }) =>
          Layer.merge(
            HttpRouter.serve(HttpRouter.add("*", "*", handler), { disableLogger: true, disableListenLog: true }),
            Layer.succeed(AppControl, control)
          ))
      ).pipe(Layer.provide(secret))
      return Layer.provideMerge(app, engine)
    })
  )
