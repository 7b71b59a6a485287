/**
 * Running the svc server: configuration, store, signer, catalog and the HTTP
 * application on @effect/platform-node, with a graceful shutdown (event streams
 * get `publication-closed`, in-flight requests finish, the store closes).
 *
 * @since 0.1.0
 */
import { NodeHttpServer, NodeServices } from "@effect/platform-node"
import { Signer } from "@svc/core"
import { StoreConfig } from "@svc/store"
import { Context, Data, Effect, FileSystem, Layer, Logger, Option, References } from "effect"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"
import { parse as parseYaml } from "yaml"
import * as App from "./App.ts"
import type * as Discovery from "./Discovery.ts"
import * as ServerConfig from "./ServerConfig.ts"

/**
 * The server could not start: the message names what to fix.
 *
 * @category errors
 * @since 0.1.0
 */
export class StartupError extends Data.TaggedError("StartupError")<{ readonly message: string }> {}

/**
 * The embedded default catalog (fixtures/catalog/demo.json).
 *
 * @category constants
 * @since 0.1.0
 */
export const DEMO_CATALOG_PATH = fileURLToPath(new URL("../../../fixtures/catalog/demo.json", import.meta.url))

const oneLine = (e: unknown) => String((e as Error)?.message ?? e).replace(/\s*\n\s*/g, " ")

/**
 * Reads a JSON or YAML document (by extension: .yaml / .yml are YAML).
 *
 * @category loading
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
      catch: (e) => new StartupError({ message: `${what}: ${path} is not valid ${/\.ya?ml$/i.test(path) ? "YAML" : "JSON"}: ${oneLine(e)}` })
    })
  })

const logLayer = (level: ServerConfig.ServerConfig["logLevel"]) =>
  Layer.mergeAll(
    Logger.layer([Logger.consoleJson]),
    Layer.succeed(References.LogToStderr, true),
    Layer.succeed(
      References.MinimumLogLevel,
      level === "none" ? "None" : level === "warning" ? "Warn" : level === "trace" ? "Trace" : level === "debug" ? "Debug" : level === "error" ? "Error" : "Info"
    )
  )

/**
 * The server layer for a configuration: the application with its store, signer
 * and HTTP server.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (config: ServerConfig.ServerConfig, catalog: unknown, onchain?: Discovery.OnchainConfig) => {
  const store = StoreConfig.layerFromUrl({ databaseUrl: Option.getOrUndefined(config.databaseUrl), dataDir: config.dataDir })
  const signer = Option.match(config.signerKey, {
    onNone: () => Signer.layerDevelopment(config.dataDir).pipe(Layer.provide(NodeServices.layer)),
    onSome: (key) => Signer.layerPrivateKey(key)
  })
  const http = NodeHttpServer.layer(createServer, {
    port: config.port,
    host: config.host,
    gracefulShutdownTimeout: "10 seconds"
  })
  return App.layer({
    publicUrl: Option.getOrUndefined(config.publicUrl),
    catalog,
    onchain,
    engine: {
      publisher: { feedTtlSeconds: config.feedTtlSeconds },
      permits: { permitTtlSeconds: config.permitTtlSeconds },
      rateLimit: { limit: config.permitRateLimit, windowSeconds: config.permitRateWindowSeconds }
    },
    events: { maxSubscribers: config.sseMaxSubscribers, heartbeatMillis: config.sseHeartbeatMs }
  }).pipe(Layer.provideMerge(Layer.mergeAll(store, signer, http)), Layer.provide(logLayer(config.logLevel)))
}

/**
 * Starts the server with the loaded configuration, prints `svc listening on
 * <url>` to stdout, and serves until interrupted.
 *
 * @category running
 * @since 0.1.0
 */
export const run = Effect.gen(function*() {
  const config = yield* ServerConfig.load.pipe(Effect.mapError((e) => new StartupError({ message: e.message })))
  return yield* serve(config).pipe(Effect.provide(logLayer(config.logLevel)))
})

const serve = (config: ServerConfig.ServerConfig) => Effect.gen(function*() {
  const catalog = yield* readDocument(Option.getOrElse(config.catalogPath, () => DEMO_CATALOG_PATH), "SVC_CATALOG")
  const onchain = Option.isSome(config.onchainPath)
    ? (yield* readDocument(config.onchainPath.value, "SVC_ONCHAIN")) as Discovery.OnchainConfig
    : undefined
  yield* Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(layer(config, catalog, onchain)).pipe(
      Effect.mapError((e) => new StartupError({ message: oneLine(e) }))
    )
    const control = Context.get(context, App.AppControl)
    const signer = Context.get(context, Signer.Signer)
    // runs first at shutdown: end the event streams before the HTTP server drains
    yield* Effect.addFinalizer(() => control.closeStreams("server shutting down"))
    yield* Effect.sync(() => {
      process.stdout.write(`svc listening on ${control.publicUrl}\n`)
      process.stdout.write(
        signer.development
          ? `svc authority ${signer.address} (development key in ${config.dataDir}: not for production; set SVC_SIGNER_KEY)\n`
          : `svc authority ${signer.address}\n`
      )
    })
    yield* Effect.logInfo("svc started").pipe(Effect.annotateLogs({
      publicUrl: control.publicUrl,
      authority: signer.address,
      developmentKey: signer.development,
      store: Option.isSome(config.databaseUrl) ? "postgres" : "sqlite"
    }))
    return yield* Effect.never
  }))
})
