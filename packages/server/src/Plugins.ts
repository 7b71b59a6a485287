/**
 * The replaceable parts of `svc serve` chosen by configuration: the store
 * (`SVC_STORE`), the replicas' coordination (`SVC_COORDINATION`), pricing
 * (`SVC_PRICING`), market data (`SVC_MARKET`) and the authority's signer
 * (`SVC_SIGNER_PLUGIN`). Each setting names a built-in plug-in or a package or
 * path whose default export is a `Plugin` of that kind (`@svc/core/Plugin`),
 * loaded as connector packages are (`ConnectorLoader`: from the working
 * directory, then the server's own dependencies). A plug-in reads its settings
 * through Effect `Config` from the server's environment and `SVC_CONFIG` file.
 *
 * The built-in plug-ins read their settings from the validated server
 * configuration (their keys are in `ServerConfig.SETTINGS`) and are the
 * defaults: with `SVC_STORE` unset, `DATABASE_URL` selects PostgreSQL; the
 * coordination is the store plug-in's own (`store`: PostgreSQL's lease, else
 * this process leads); with `SVC_SIGNER_PLUGIN` unset, `SVC_SIGNER_KEYSTORE`
 * selects the keystore.
 *
 * @since 0.1.0
 */
import { NodeServices } from "@effect/platform-node"
import { Coordination, Keystore, Market, Plugin, Pricing, Signer, type Store } from "@svc/core"
import { StoreConfig } from "@svc/store"
import { Cause, Config, ConfigProvider, Data, Effect, FileSystem, Layer, Option, Redacted } from "effect"
import * as ConnectorLoader from "./ConnectorLoader.ts"
import { PLUGIN_KEYS, type PluginKey } from "./PluginChoice.ts"
import type { ServerConfig } from "./ServerConfig.ts"

/**
 * A plug-in could not be loaded, refused its settings or could not build its
 * part: one line starting with the setting that chose it.
 *
 * @category errors
 * @since 0.1.0
 */
export class PluginLoadError extends Data.TaggedError("PluginLoadError")<{ readonly message: string }> {}

const oneLine = (e: unknown) => String((e as Error)?.message ?? e).replace(/\s*\n\s*/g, " ").trim()

/** Unlocks a keystore file with the password in a file. */
const unlockKeystore = (keystorePath: string, passwordPath: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(keystorePath).pipe(
      Effect.mapError(() => new PluginLoadError({ message: `SVC_SIGNER_KEYSTORE: cannot read ${keystorePath}` }))
    )
    const passwordText = yield* fs.readFileString(passwordPath).pipe(
      Effect.mapError(() => new PluginLoadError({ message: `SVC_KEYSTORE_PASSWORD_FILE: cannot read ${passwordPath}` }))
    )
    return yield* Effect.fromResult(Keystore.parse(text)).pipe(
      Effect.flatMap((keystore) => Keystore.decrypt(keystore, Keystore.passwordOfFile(passwordText))),
      Effect.mapError((e) => new PluginLoadError({ message: `SVC_SIGNER_KEYSTORE: ${keystorePath}: ${e.message}` }))
    )
  })

/**
 * The built-in plug-ins, with their settings from the server configuration.
 *
 * @category constructors
 * @since 0.1.0
 */
export const builtins = (config: ServerConfig) => {
  const databaseUrl = Option.getOrUndefined(config.databaseUrl)
  return {
    store: {
      sqlite: Plugin.make({
        kind: "store",
        name: "sqlite",
        settings: Config.succeed({ dataDir: config.dataDir }),
        layer: ({ dataDir }) => StoreConfig.layerFromUrl({ dataDir })
      }),
      postgres: Plugin.make({
        kind: "store",
        name: "postgres",
        settings: Config.succeed({ databaseUrl, dataDir: config.dataDir, timeoutMillis: config.storeTimeoutMs }),
        layer: (settings) => StoreConfig.layerFromUrl(settings),
        // the replicas elect the one that publishes and settles
        coordination: (settings) => StoreConfig.coordinationFromUrl(settings)
      })
    },
    coordination: {
      single: Plugin.make({
        kind: "coordination",
        name: "single",
        settings: Config.succeed(undefined),
        layer: () => Coordination.layerSingle
      }),
      postgres: Plugin.make({
        kind: "coordination",
        name: "postgres",
        settings: Config.succeed({ databaseUrl, dataDir: config.dataDir }),
        layer: (settings) => StoreConfig.coordinationFromUrl(settings)
      })
    },
    market: {
      catalog: Plugin.make({
        kind: "market",
        name: "catalog",
        settings: Config.succeed({ pollMillis: config.marketPollMs, maxAgeSeconds: config.oracleMaxAgeSeconds }),
        layer: (options) => Market.layer(options)
      })
    },
    pricing: {
      static: Plugin.make({
        kind: "pricing",
        name: "static",
        settings: Config.succeed(undefined),
        layer: () => Pricing.layerStatic()
      }),
      oracle: Plugin.make({
        kind: "pricing",
        name: "oracle",
        settings: Config.succeed({
          maxDeviationBps: config.oracleMaxDeviationBps,
          quoteToleranceBps: config.quoteToleranceBps
        }),
        layer: (options) => Pricing.layerOracle(options)
      })
    },
    signer: {
      key: Plugin.make({
        kind: "signer",
        name: "key",
        settings: Config.succeed({ key: config.signerKey, dataDir: config.dataDir }),
        layer: ({ dataDir, key }) =>
          Option.match(key, {
            onNone: () => Signer.layerDevelopment(dataDir).pipe(Layer.provide(NodeServices.layer)),
            onSome: (k) => Signer.layerPrivateKey(k)
          })
      }),
      keystore: Plugin.make({
        kind: "signer",
        name: "keystore",
        settings: Config.succeed({
          keystore: Option.getOrUndefined(config.signerKeystore ?? Option.none()),
          passwordFile: Option.getOrUndefined(config.keystorePasswordFile ?? Option.none())
        }),
        layer: ({ keystore, passwordFile }) =>
          keystore === undefined || passwordFile === undefined
            ? Layer.effect(
              Signer.Signer,
              Effect.fail(
                new PluginLoadError({
                  message:
                    "SVC_SIGNER_KEYSTORE: the keystore signer needs SVC_SIGNER_KEYSTORE and SVC_KEYSTORE_PASSWORD_FILE"
                })
              )
            )
            : Layer.unwrap(Effect.map(unlockKeystore(keystore, passwordFile), Signer.layerPrivateKey)).pipe(
              Layer.provide(NodeServices.layer)
            )
      })
    }
  }
}

/**
 * The name each plug-in setting has in a configuration: its value, or the
 * built-in default (`postgres` when `DATABASE_URL` is a PostgreSQL URL, else
 * `sqlite`; `store`; `static`; `catalog`; `keystore` with
 * `SVC_SIGNER_KEYSTORE`, else `key`).
 *
 * @category running
 * @since 0.1.0
 */
export const chosenNames = (config: ServerConfig): { readonly [K in PluginKey]: string } => ({
  SVC_STORE: config.store ??
    (Option.isSome(config.databaseUrl) && StoreConfig.isPostgresUrl(Redacted.value(config.databaseUrl.value))
      ? "postgres"
      : "sqlite"),
  SVC_COORDINATION: config.coordination ?? "store",
  SVC_PRICING: config.pricing ?? "static",
  SVC_MARKET: config.market ?? "catalog",
  SVC_SIGNER_PLUGIN: config.signerPlugin ??
    (Option.isSome(config.signerKeystore ?? Option.none()) ? "keystore" : "key")
})

/**
 * What building a chosen part can fail with: the built-in store's and signer's
 * errors, or a plug-in's failure as one line.
 *
 * @category models
 * @since 0.1.0
 */
export type PartError = Store.StoreError | Signer.SignerUnavailable | PluginLoadError

/**
 * The parts chosen by a configuration, as layers.
 *
 * @category models
 * @since 0.1.0
 */
export interface Chosen {
  readonly store: {
    readonly name: string
    readonly builtin: boolean
    readonly layer: Layer.Layer<Store.Store, PartError>
    /** The store plug-in's own coordination (one process leads when it has none). */
    readonly coordination: Layer.Layer<Coordination.Coordination, PartError>
  }
  /** The coordination `SVC_COORDINATION` chooses (`store`: the store plug-in's own). */
  readonly coordination: {
    readonly name: string
    readonly layer: Layer.Layer<Coordination.Coordination, PartError>
  }
  readonly market: {
    readonly name: string
    readonly layer: Layer.Layer<Market.Market, PartError, Plugin.Kinds["market"]["uses"]>
  }
  readonly pricing: {
    readonly name: string
    readonly layer: Layer.Layer<Pricing.Pricing, PartError, Plugin.Kinds["pricing"]["uses"]>
  }
  readonly signer: {
    readonly name: string
    readonly layer: Layer.Layer<Signer.Signer, PartError>
  }
}

/**
 * A plug-in of the kind a setting chooses: a built-in one by name, else the
 * default export of the package or path.
 */
const pluginOf = Effect.fnUntraced(function*<K extends Plugin.LayerKind>(
  key: PluginKey,
  kind: K,
  name: string,
  builtin: Readonly<Record<string, unknown>>,
  cwd: string
) {
  const found = builtin[name]
  if (found !== undefined) return { plugin: found as Plugin.Plugin<K, unknown, unknown>, builtin: true }
  const value = yield* ConnectorLoader.importDefault(name, cwd, key).pipe(
    Effect.mapError((e) => new PluginLoadError({ message: e.message }))
  )
  if (!Plugin.isPlugin(value, kind as Plugin.LayerKind)) {
    return yield* new PluginLoadError({
      message: `${key}: ${name}: its default export is ${
        Plugin.describeValue(value)
      }, not a ${kind} plug-in (export default Plugin.make({ kind: "${kind}", name, settings, layer }))`
    })
  }
  return { plugin: value as unknown as Plugin.Plugin<K, unknown, unknown>, builtin: false }
})

/** Reads a plug-in's settings; a bad value is one line naming the setting key. */
const settingsOf = (key: PluginKey, name: string, plugin: { readonly settings: Config.Config<unknown> }) =>
  Effect.suspend(() => plugin.settings).pipe(
    Effect.mapError((e) => new PluginLoadError({ message: `${key}: ${name}: ${oneLine(e)}` })),
    Effect.catchDefect((defect) =>
      Effect.fail(new PluginLoadError({ message: `${key}: ${name}: settings failed: ${oneLine(defect)}` }))
    )
  )

/** A third-party plug-in's layer, its failures one line naming the setting that chose it. */
const guarded = <A, R>(key: PluginKey, name: string, layer: Layer.Layer<A, unknown, R>) =>
  layer.pipe(
    Layer.catchCause((cause) =>
      Layer.effectContext(
        Effect.fail(new PluginLoadError({ message: `${key}: ${name}: ${oneLine(Cause.squash(cause))}` }))
      )
    )
  )

/**
 * Loads the store plug-in a configuration chooses (`SVC_STORE`, else the
 * built-in `DATABASE_URL` selects) and reads its settings from the
 * configuration in context: what `svc admin` acts on.
 *
 * @category running
 * @since 0.1.0
 */
export const loadStore = (
  config: ServerConfig,
  options: { readonly cwd: string; readonly context: Plugin.Context }
): Effect.Effect<Chosen["store"], PluginLoadError> =>
  Effect.gen(function*() {
    const name = chosenNames(config).SVC_STORE
    const store = yield* pluginOf("SVC_STORE", "store", name, builtins(config).store, options.cwd)
    const settings = yield* settingsOf("SVC_STORE", name, store.plugin)
    const storePlugin = store.plugin as Plugin.StorePlugin<unknown, unknown>
    // a plug-in's functions run inside the layer, so that one that throws is a failure like any other
    const coordination = storePlugin.coordination === undefined
      ? Coordination.layerSingle
      : Layer.suspend(() => storePlugin.coordination!(settings, options.context))
    const part = <A>(layer: Layer.Layer<A, unknown>) =>
      // a built-in part fails with its own typed errors (PartError); a plug-in's are one line
      (store.builtin ? layer : guarded("SVC_STORE", name, layer)) as Layer.Layer<A, PartError>
    return {
      name,
      builtin: store.builtin,
      layer: part(Layer.suspend(() => store.plugin.layer(settings, options.context))),
      coordination: part(coordination)
    }
  })

/**
 * Loads the plug-ins a configuration chooses and reads their settings from the
 * configuration in context.
 *
 * @category running
 * @since 0.1.0
 */
export const load = (
  config: ServerConfig,
  options: { readonly cwd: string; readonly context: Plugin.Context }
): Effect.Effect<Chosen, PluginLoadError> =>
  Effect.gen(function*() {
    const names = chosenNames(config)
    const builtin = builtins(config)
    const { context, cwd } = options

    const store = yield* loadStore(config, options)

    // `store` is not a plug-in of its own: the store plug-in's coordination
    const coordination = names.SVC_COORDINATION === "store"
      ? undefined
      : yield* pluginOf("SVC_COORDINATION", "coordination", names.SVC_COORDINATION, builtin.coordination, cwd)
    const coordinationSettings = coordination === undefined
      ? undefined
      : yield* settingsOf("SVC_COORDINATION", names.SVC_COORDINATION, coordination.plugin)

    const market = yield* pluginOf("SVC_MARKET", "market", names.SVC_MARKET, builtin.market, cwd)
    const marketSettings = yield* settingsOf("SVC_MARKET", names.SVC_MARKET, market.plugin)

    const pricing = yield* pluginOf("SVC_PRICING", "pricing", names.SVC_PRICING, builtin.pricing, cwd)
    const pricingSettings = yield* settingsOf("SVC_PRICING", names.SVC_PRICING, pricing.plugin)

    const signer = yield* pluginOf("SVC_SIGNER_PLUGIN", "signer", names.SVC_SIGNER_PLUGIN, builtin.signer, cwd)
    const signerSettings = yield* settingsOf("SVC_SIGNER_PLUGIN", names.SVC_SIGNER_PLUGIN, signer.plugin)

    const part = <A, R>(
      key: PluginKey,
      name: string,
      isBuiltin: boolean,
      layer: Layer.Layer<A, unknown, R>
    ) =>
      // a built-in part fails with its own typed errors (PartError); a plug-in's are one line
      (isBuiltin ? layer : guarded(key, name, layer)) as Layer.Layer<A, PartError, R>
    return {
      store,
      coordination: {
        name: names.SVC_COORDINATION,
        layer: coordination === undefined ? store.coordination : part(
          "SVC_COORDINATION",
          names.SVC_COORDINATION,
          coordination.builtin,
          Layer.suspend(() => coordination.plugin.layer(coordinationSettings, context))
        )
      },
      market: {
        name: names.SVC_MARKET,
        layer: part(
          "SVC_MARKET",
          names.SVC_MARKET,
          market.builtin,
          Layer.suspend(() => market.plugin.layer(marketSettings, context))
        )
      },
      pricing: {
        name: names.SVC_PRICING,
        layer: part(
          "SVC_PRICING",
          names.SVC_PRICING,
          pricing.builtin,
          Layer.suspend(() => pricing.plugin.layer(pricingSettings, context))
        )
      },
      signer: {
        name: names.SVC_SIGNER_PLUGIN,
        layer: part(
          "SVC_SIGNER_PLUGIN",
          names.SVC_SIGNER_PLUGIN,
          signer.builtin,
          Layer.suspend(() => signer.plugin.layer(signerSettings, context))
        )
      }
    } satisfies Chosen
  }).pipe(Effect.withSpan("Plugins.load"))

/**
 * The keys a plug-in's settings read. A `Config` lists no keys itself: it is
 * parsed against a source that holds none, and every key it asks for is
 * recorded (it asks for all of them, missing ones included).
 *
 * @category running
 * @since 0.2.0
 */
export const settingKeys = (
  settings: Config.Config<unknown>
): Effect.Effect<ReadonlyArray<ReadonlyArray<string | number>>> =>
  Effect.suspend(() => {
    const paths = new Map<string, ReadonlyArray<string | number>>()
    const empty = ConfigProvider.make((path) =>
      Effect.sync(() => {
        paths.set(path.join("."), [...path])
        return undefined
      })
    )
    return settings.parse(empty).pipe(
      Effect.ignore,
      Effect.catchDefect(() => Effect.void),
      Effect.map(() => [...paths.values()])
    )
  })

/**
 * One plug-in a configuration chooses, as `svc plugins` prints it.
 *
 * @category models
 * @since 0.2.0
 */
export interface Described {
  readonly key: PluginKey
  /** The setting's value: a built-in name, or the package or path. */
  readonly name: string
  /** The plug-in's own name (its declaration's), for one loaded from a package or path. */
  readonly plugin: string
  readonly builtin: boolean
  /**
   * The keys its settings read and whether the configuration sets each; none for
   * a built-in, whose keys are the server's own (`svc serve --help`).
   */
  readonly settings: ReadonlyArray<{ readonly key: string; readonly set: boolean }>
}

/**
 * The plug-ins a configuration chooses, each loaded (never built) and the keys
 * of its settings read: what `svc plugins` prints. A plug-in that cannot be
 * loaded fails as at start, one line naming the setting.
 *
 * @category running
 * @since 0.2.0
 */
export const describe = (
  config: ServerConfig,
  options: { readonly cwd: string; readonly source: ConfigProvider.ConfigProvider }
): Effect.Effect<ReadonlyArray<Described>, PluginLoadError> =>
  Effect.gen(function*() {
    const names = chosenNames(config)
    const builtin = builtins(config)
    const out: Array<Described> = []
    for (const key of Object.keys(PLUGIN_KEYS) as Array<PluginKey>) {
      const name = names[key]
      const kind = PLUGIN_KEYS[key].kind
      if (key === "SVC_COORDINATION" && name === "store") {
        out.push({ key, name, plugin: `the store's own (${names.SVC_STORE})`, builtin: true, settings: [] })
        continue
      }
      const found = yield* pluginOf(key, kind, name, builtin[kind as keyof typeof builtin], options.cwd)
      const settings: Array<{ key: string; set: boolean }> = []
      if (!found.builtin) {
        for (const path of yield* settingKeys(found.plugin.settings)) {
          const node = yield* options.source.load(path).pipe(Effect.orElseSucceed(() => undefined))
          settings.push({ key: path.join("."), set: node !== undefined })
        }
      }
      out.push({ key, name, plugin: found.plugin.name, builtin: found.builtin, settings })
    }
    return out
  })
