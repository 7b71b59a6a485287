/**
 * Running the svc server: configuration, store, signer, catalog and the HTTP
 * application on @effect/platform-node, with a graceful shutdown (event streams
 * get `publication-closed`, in-flight requests finish, the store closes).
 *
 * @since 0.1.0
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Catalog, CatalogCheck, type Connector, Signer, Store } from "@svc/core"
import {
  Config,
  ConfigProvider,
  Context,
  Data,
  Effect,
  FileSystem,
  Layer,
  Logger,
  Option,
  References,
  Result,
  Schema
} from "effect"
import { HttpRouter } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { createServer as createHttpServer } from "node:http"
import { fileURLToPath } from "node:url"
import { parse as parseYaml } from "yaml"
import * as App from "./App.ts"
import * as Connections from "./Connections.ts"
import * as ConnectorLoader from "./ConnectorLoader.ts"
import * as Documents from "./documents/index.ts"
import * as FastPath from "./FastPath.ts"
import { isSpecifier } from "./PluginChoice.ts"
import * as Plugins from "./Plugins.ts"
import * as RedisRateLimit from "./RedisRateLimit.ts"
import * as ServerConfig from "./ServerConfig.ts"
import * as Tracing from "./Tracing.ts"

/**
 * The server could not start: the message names what to fix.
 *
 * @category errors
 * @since 0.1.0
 */
export class StartupError extends Data.TaggedError("StartupError")<{ readonly message: string }> {}

/**
 * The embedded default catalog (packages/server/catalog/demo.json).
 *
 * @category constants
 * @since 0.1.0
 */
export const DEMO_CATALOG_PATH = fileURLToPath(new URL("../catalog/demo.json", import.meta.url))

const oneLine = (e: unknown) => String((e as Error)?.message ?? e).replace(/\s*\n\s*/g, " ")

/**
 * What to do when a listener cannot start (a port in use, a privileged port, an
 * address this machine does not have): one line naming the setting, or
 * undefined for other failures.
 */
const listenProblem = (e: unknown, config: ServerConfig.ServerConfig): string | undefined => {
  if (typeof e !== "object" || e === null || (e as { _tag?: unknown })._tag !== "ServeError") return undefined
  const cause = (e as { readonly cause?: unknown }).cause as
    | { readonly code?: unknown; readonly port?: unknown; readonly address?: unknown }
    | undefined
  if (cause === undefined || cause === null) return undefined
  const metrics = config.metricsPort !== undefined && config.metricsPort !== 0 && cause.port === config.metricsPort &&
    cause.port !== config.port
  const key = metrics ? "SVC_METRICS_PORT" : "PORT"
  const hostKey = metrics ? "SVC_METRICS_HOST" : "HOST"
  const port = typeof cause.port === "number" ? cause.port : metrics ? config.metricsPort : config.port
  const host = typeof cause.address === "string"
    ? cause.address
    : metrics
    ? config.metricsHost ?? "127.0.0.1"
    : config.host
  const what = metrics ? "metrics port" : "port"
  switch (cause.code) {
    case "EADDRINUSE":
      return `${what} ${port} on ${host} is in use: stop the other server or set ${key} (${key}=0 picks a free port)`
    case "EACCES":
      return `${what} ${port} on ${host}: permission denied (ports below 1024 need privileges): set ${key} to 1024 or above (${key}=0 picks a free port)`
    case "EADDRNOTAVAIL":
      return `${hostKey}: ${host} is not an address of this machine (127.0.0.1 or 0.0.0.0 listen locally or everywhere)`
    default:
      return undefined
  }
}

/**
 * Reads a JSON or YAML document (by extension: .yaml / .yml are YAML).
 *
 * @category running
 * @since 0.1.0
 */
export const readDocument = (path: string, what: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError(() => new StartupError({ message: `${what}: cannot read ${path}` }))
    )
    return yield* Effect.try({
      try: () => (/\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text)) as unknown,
      catch: (e) =>
        new StartupError({
          message: `${what}: ${path} is not valid ${/\.ya?ml$/i.test(path) ? "YAML" : "JSON"}: ${oneLine(e)}`
        })
    })
  })

const logLayer = (level: ServerConfig.ServerConfig["logLevel"]) =>
  Layer.mergeAll(
    // JSON lines on standard error; standard output carries only the start-up lines
    Logger.layer([Logger.withConsoleError(Logger.formatJson)]),
    Layer.succeed(
      References.MinimumLogLevel,
      level === "none"
        ? "None"
        : level === "warning"
        ? "Warn"
        : level === "trace"
        ? "Trace"
        : level === "debug"
        ? "Debug"
        : level === "error"
        ? "Error"
        : "Info"
    )
  )

const decodeCatalog = Schema.decodeUnknownResult(Catalog.CatalogConfig)

/**
 * What connector plug-ins are told about the catalog: its networks (empty when
 * the document does not decode; the catalog layer then reports why).
 *
 * @category running
 * @since 0.1.0
 */
export const pluginContext = (catalog: unknown): Connector.PluginContext => {
  const decoded = decodeCatalog(catalog)
  const networks = Result.isSuccess(decoded) ? decoded.success.networks : []
  return {
    networks: networks.map((n) => ({ key: n.key, vm: n.vm, native: n.chainId ?? n.genesisHash ?? n.native ?? null }))
  }
}

/**
 * The connectors of the server: the packages `SVC_CONNECTORS` names (default
 * the EVM and Solana connectors), loaded from the working directory, each
 * reading its own settings from the configuration in context.
 *
 * @category running
 * @since 0.1.0
 */
export const connectors = (
  config: ServerConfig.ServerConfig,
  catalog: unknown,
  options?: { readonly cwd?: string | undefined }
): Effect.Effect<ReadonlyArray<Connector.Registration>, StartupError> =>
  ConnectorLoader.load(config.connectors ?? ConnectorLoader.DEFAULT_CONNECTORS, {
    cwd: options?.cwd ?? process.cwd(),
    context: pluginContext(catalog)
  }).pipe(Effect.mapError((e) => new StartupError({ message: e.message })))

/**
 * The server layer for a configuration: the application with its store, signer
 * and HTTP server.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  config: ServerConfig.ServerConfig,
  catalog: unknown,
  onchain?: Documents.OnchainConfig,
  options?: { readonly cwd?: string | undefined }
) =>
  Layer.unwrap(
    Effect.gen(function*() {
      const registrations = yield* connectors(config, catalog, options)
      // the store, pricing and signer plug-ins (SVC_STORE, SVC_PRICING, SVC_SIGNER_PLUGIN; built-ins by default)
      const parts = yield* Plugins.load(config, {
        cwd: options?.cwd ?? process.cwd(),
        context: pluginContext(catalog)
      }).pipe(Effect.mapError((e) => new StartupError({ message: e.message })))
      return layerWith(config, catalog, registrations, parts, onchain)
    })
  )

const layerWith = (
  config: ServerConfig.ServerConfig,
  catalog: unknown,
  registrations: ReadonlyArray<Connector.Registration>,
  plugins: Plugins.Chosen,
  onchain: Documents.OnchainConfig | undefined
) => {
  const store = plugins.store.layer
  const signer = plugins.signer.layer
  // the fast path (feed and event stream) runs in front of the Effect application on this server;
  // connection caps, header and request timeouts (Connections)
  const server = Connections.makeServer({
    maxConnections: config.maxConnections,
    maxPerClient: config.maxConnectionsPerClient,
    trustedProxies: config.trustedProxies,
    clientAddressHeader: config.clientAddressHeader,
    headersTimeoutSeconds: config.headersTimeoutSeconds,
    requestTimeoutSeconds: config.requestTimeoutSeconds
  })
  // a connection with no progress for three heartbeats is destroyed: an event-stream subscriber
  // that stopped reading (its writes never drain) is disconnected and its memory released
  server.setTimeout(3 * config.sseHeartbeatMs)
  const http = Layer.merge(
    NodeHttpServer.layer(() => server, {
      port: config.port,
      host: config.host,
      gracefulShutdownTimeout: "10 seconds"
    }),
    FastPath.layerSlot(server)
  )
  return App.layer({
    publicUrl: Option.getOrUndefined(config.publicUrl),
    catalog,
    onchain,
    // SVC_COORDINATION (default: the store's own: on PostgreSQL the replicas elect the one that publishes and
    // settles; on SQLite this process does), SVC_MARKET, SVC_PRICING
    parts: { coordination: plugins.coordination.layer, market: plugins.market.layer, pricing: plugins.pricing.layer },
    engine: {
      connectors: registrations,
      profile: config.profile,
      chainSettlement: { dryRun: config.payoutsDryRun === true },
      publisher: { feedTtlSeconds: config.feedTtlSeconds },
      permits: {
        permitTtlSeconds: config.permitTtlSeconds,
        holdShares: {
          clientBps: config.holdShareClientBps,
          payerBps: config.holdSharePayerBps,
          newPayersBps: config.holdShareNewPayersBps
        }
      },
      rateLimit: { limit: config.permitRateLimit, windowSeconds: config.permitRateWindowSeconds },
      settlement: { retentionSeconds: (config.permitRetentionDays ?? 90) * 86_400 }
    },
    events: {
      maxSubscribers: config.sseMaxSubscribers,
      heartbeatMillis: config.sseHeartbeatMs,
      maxPerClient: config.sseMaxSubscribersPerClient ?? 32,
      maxLifetimeMillis: 1000 * (config.sseMaxLifetimeSeconds ?? 1800),
      minBacklogBytes: config.sseBacklogBytes
    },
    trustedProxies: config.trustedProxies,
    clientAddressHeader: config.clientAddressHeader,
    feedBudget: config.feedRateLimit === null
      ? undefined
      : { limit: config.feedRateLimit ?? 600, windowSeconds: config.feedRateWindowSeconds ?? 60 },
    // with REDIS_URL the permit and /v1 rate limits are shared by every replica
    sharedRateLimiter: config.redisUrl === undefined
      ? undefined
      : RedisRateLimit.layer({ url: config.redisUrl, prefix: config.redisPrefix }),
    aggregator: {
      serverSecret: Option.getOrUndefined(config.serverSecret),
      dataDir: config.dataDir,
      quoteTtlSeconds: config.quoteTtlSeconds,
      statusLists: config.statusLists,
      origins: config.aggregatorOrigins,
      rateLimits: {
        windowSeconds: config.aggregatorRateWindowSeconds ?? 60,
        requestsPerWindow: config.aggregatorRateLimit ?? 120,
        quoteAndBuildPerWindow: config.aggregatorQuoteBuildRateLimit ?? 20
      }
    }
  }).pipe(
    Layer.provideMerge(Layer.mergeAll(store, signer, http)),
    Layer.merge(metricsListener(config)),
    Layer.provide(logLayer(config.logLevel))
  )
}

/**
 * Prometheus text metrics (`GET /metrics`, names prefixed `svc_`) on a listener of
 * their own, `SVC_METRICS_HOST:SVC_METRICS_PORT`, never the public port; none
 * without SVC_METRICS_PORT.
 */
const metricsListener = (config: ServerConfig.ServerConfig) =>
  config.metricsPort === undefined ? Layer.empty : HttpRouter.serve(
    PrometheusMetrics.layerHttp({ path: "/metrics", prefix: "svc" }),
    { disableLogger: true, disableListenLog: true }
  ).pipe(
    Layer.provide(
      NodeHttpServer.layer(() => createHttpServer(), {
        port: config.metricsPort,
        host: config.metricsHost ?? "127.0.0.1"
      })
    )
  )

/**
 * Starts the server with the loaded configuration, prints `svc listening on
 * <url>` to stdout, and serves until interrupted.
 *
 * @category running
 * @since 0.1.0
 */
export const run = Effect.gen(function*() {
  const source = yield* ServerConfig.provider.pipe(Effect.mapError((e) => new StartupError({ message: e.message })))
  const config = yield* ServerConfig.fromProvider(source).pipe(
    Effect.mapError((e) => new StartupError({ message: e.message }))
  )
  return yield* serve(config).pipe(
    Effect.provide(logLayer(config.logLevel)),
    // connector plug-ins read their settings from the same environment and file
    Effect.provideService(ConfigProvider.ConfigProvider, source)
  )
})

/**
 * The plug-ins the configuration (the environment, then the `SVC_CONFIG` file)
 * chooses, each with the keys its settings read and whether they are set, as
 * lines: what `svc plugins` prints. Nothing is built or started.
 *
 * @category running
 * @since 0.2.0
 */
export const describePlugins = (
  options?: { readonly cwd?: string | undefined }
): Effect.Effect<string, StartupError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const source = yield* ServerConfig.provider.pipe(Effect.mapError((e) => new StartupError({ message: e.message })))
    const config = yield* ServerConfig.fromProvider(source).pipe(
      Effect.mapError((e) => new StartupError({ message: e.message }))
    )
    const described = yield* Plugins.describe(config, { cwd: options?.cwd ?? process.cwd(), source }).pipe(
      Effect.mapError((e) => new StartupError({ message: e.message }))
    )
    const width = Math.max(...described.map((d) => `${d.key}=${d.name}`.length))
    return described.map((d) => {
      const head = `${d.key}=${d.name}`.padEnd(width)
      if (d.builtin) return `${head}  built-in: ${d.plugin}`
      const keys = d.settings.length === 0
        ? "reads no setting"
        : `reads ${d.settings.map((s) => `${s.key} (${s.set ? "set" : "unset"})`).join(", ")}`
      return `${head}  ${d.plugin}: ${keys}`
    }).join("\n") + "\n"
  })

/**
 * The settings that hold a raw private key: the production profile refuses them
 * unless SVC_ALLOW_RAW_KEYS=1 (SVC_PAYOUT_KEY is the EVM connector's).
 */
const RAW_KEYS = ["SVC_SIGNER_KEY", "SVC_PAYOUT_KEY"] as const

/**
 * Where the authority key may come from: keystores in the production profile
 * (raw keys only with SVC_ALLOW_RAW_KEYS=1), never a generated development key in
 * production nor with DATABASE_URL (replicas must share one authority).
 */
const checkKeys = (config: ServerConfig.ServerConfig, profile: string) =>
  Effect.gen(function*() {
    const keystore = config.signerKeystore ?? Option.none()
    if (profile === "production" && config.allowRawKeys !== true) {
      for (const key of RAW_KEYS) {
        const value = yield* Config.option(Config.String(key)).pipe(Effect.orElseSucceed(() => Option.none<string>()))
        if (Option.isSome(value) && value.value.length > 0) {
          return yield* new StartupError({
            message: `${key}: the production profile takes keys from encrypted keystores (${
              key === "SVC_SIGNER_KEY" ? "SVC_SIGNER_KEYSTORE" : "SVC_PAYOUT_KEYSTORE"
            }, written by svc keys import), not raw keys; SVC_ALLOW_RAW_KEYS=1 accepts raw keys`
          })
        }
      }
    }
    // a signer plug-in holds the authority's key itself
    const pluginSigner = config.signerPlugin !== undefined && isSpecifier(config.signerPlugin)
    if (Option.isNone(config.signerKey) && Option.isNone(keystore) && !pluginSigner) {
      if (profile === "production") {
        return yield* new StartupError({
          message:
            "SVC_SIGNER_KEYSTORE: the production profile needs the authority's own key (svc keys new --out authority.json, then SVC_SIGNER_KEYSTORE and SVC_KEYSTORE_PASSWORD_FILE); the generated development key is for the demo and test profiles (SVC_PROFILE=demo)"
        })
      }
      if (Option.isSome(config.databaseUrl)) {
        return yield* new StartupError({
          message:
            "SVC_SIGNER_KEYSTORE: with DATABASE_URL every replica signs with one authority key: set SVC_SIGNER_KEYSTORE and SVC_KEYSTORE_PASSWORD_FILE (svc keys new); a generated development key belongs to one data directory"
        })
      }
    }
  })

const serve = (config: ServerConfig.ServerConfig) =>
  Effect.gen(function*() {
    const catalogPath = Option.getOrElse(config.catalogPath, () => DEMO_CATALOG_PATH)
    const catalog = yield* readDocument(catalogPath, "SVC_CATALOG")
    // every problem of the document at once, each with its JSON path (as svc catalog check prints them)
    const problems = CatalogCheck.check(catalog)
    if (problems.length > 0) {
      return yield* new StartupError({
        message: `SVC_CATALOG: ${catalogPath}: ${problems.length} problem${problems.length === 1 ? "" : "s"}: ${
          CatalogCheck.describe(problems).join("; ")
        }`
      })
    }
    const onchain = Option.isSome(config.onchainPath)
      ? yield* Effect.flatMap(readDocument(config.onchainPath.value, "SVC_ONCHAIN"), (document) =>
        Effect.fromResult(Documents.decodeOnchainConfig(document)).pipe(
          Effect.mapError((e) =>
            new StartupError({ message: `SVC_ONCHAIN: ${e.message}` })
          )
        ))
      : undefined
    // a production deployment signs with its own key: the generated development key is refused
    const documentProfile = typeof catalog === "object" && catalog !== null && "profile" in catalog
      ? String((catalog as { readonly profile: unknown }).profile)
      : undefined
    const profile = config.profile ?? documentProfile ?? "production"
    // the keystore (SVC_SIGNER_KEYSTORE) is unlocked by the built-in keystore signer as the server starts
    yield* checkKeys(config, profile)
    // spans go to an OpenTelemetry collector when the standard OTEL_* variables name one
    const tracing = Option.match(
      yield* Tracing.settings.pipe(Effect.mapError((e) => new StartupError({ message: e.message }))),
      { onNone: () => Layer.empty, onSome: Tracing.layerOtlp }
    )
    const storeName = Plugins.chosenNames(config).SVC_STORE
    const builtinStore = storeName === "sqlite" || storeName === "postgres"
    yield* Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(layer(config, catalog, onchain).pipe(Layer.provide(tracing))).pipe(
        Effect.mapError((e) =>
          new StartupError({
            // a store that cannot open names the setting that chose it, with the driver's reason
            message: e instanceof Store.StoreError && e.operation === "open" && builtinStore
              ? `${storeName === "postgres" ? "DATABASE_URL" : "SVC_DATA_DIR"}: cannot open the ${
                storeName === "postgres" ? "PostgreSQL" : "SQLite"
              } store: ${oneLine(e).replace(/^store open failed: /, "")}`
              // a listener that cannot start names the setting and what to do
              : listenProblem(e, config) ?? oneLine(e)
          })
        )
      )
      const control = Context.get(context, App.AppControl)
      const signer = Context.get(context, Signer.Signer)
      const resolved = Context.get(context, Catalog.Catalog)
      // runs first at shutdown: end the event streams before the HTTP server drains
      yield* Effect.addFinalizer(() => control.closeStreams("server shutting down"))
      yield* Effect.sync(() => {
        process.stdout.write(`svc listening on ${control.publicUrl}\n`)
        process.stdout.write(
          signer.development
            ? `svc authority ${signer.address} (development key in ${config.dataDir}: not for production; set SVC_SIGNER_KEYSTORE)\n`
            : `svc authority ${signer.address}\n`
        )
        if (resolved.profile !== "production") process.stdout.write(`svc profile ${resolved.profile}\n`)
        for (const notice of resolved.notices) process.stdout.write(`svc ${notice}\n`)
      })
      for (const notice of resolved.notices) yield* Effect.logWarning(notice)
      const openFiles = Connections.openFileLimit()
      if (config.maxConnections !== undefined && openFiles !== undefined && config.maxConnections > openFiles - 256) {
        yield* Effect.logWarning(
          `SVC_MAX_CONNECTIONS ${config.maxConnections} is not below the open-file limit ${openFiles} minus 256: when descriptors run out, new connections are reset; raise the limit (ulimit -n) or lower the cap`
        )
      }
      yield* Effect.logInfo("svc started").pipe(Effect.annotateLogs({
        publicUrl: control.publicUrl,
        authority: signer.address,
        developmentKey: signer.development,
        store: storeName,
        pricing: Plugins.chosenNames(config).SVC_PRICING,
        maxConnections: config.maxConnections ?? Connections.defaultMaxConnections(openFiles),
        rateLimits: config.redisUrl === undefined ? "memory" : "redis"
      }))
      return yield* Effect.never
    }))
  })
