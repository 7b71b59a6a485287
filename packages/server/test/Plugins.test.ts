/**
 * Plug-ins chosen by configuration (`SVC_STORE`, `SVC_COORDINATION`,
 * `SVC_PRICING`, `SVC_MARKET`, `SVC_SIGNER_PLUGIN`): a local-path pricing plug-in named in the `SVC_CONFIG`
 * file prices the feed with its own setting; market and coordination plug-ins
 * are what the engine runs with; unknown names, modules that are not
 * plug-ins of the kind, bad plug-in settings and failing plug-ins stop the start
 * with one line naming the setting; the built-ins stay the defaults.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { type Catalog, Coordination, Market, Plugin, Pricing, Signer, Store } from "@svc/core"
import * as PricingSuite from "@svc/core/testing/PricingSuite"
import { FeedSignature, Signature } from "@svc/protocol"
import { Cause, ConfigProvider, Context, Effect, Exit, Layer, Option, Redacted, Result } from "effect"
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { scaled } from "../../../test/support/time.ts"
import * as App from "../src/App.ts"
import * as PluginChoice from "../src/PluginChoice.ts"
import * as Plugins from "../src/Plugins.ts"
import * as Server from "../src/Server.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { AUTHORITY_KEY, demoCatalog, PAYER_KEY, testConfig } from "./support/server.ts"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))

/** The pricing plug-in of docs/architecture.md: the catalog's rate times SCALE_PERCENT / 100, in plain JavaScript. */
const SCALED_PRICING_FILE = fileURLToPath(new URL("./fixtures/scaled-pricing.mjs", import.meta.url))
const SCALED_PRICING = readFileSync(SCALED_PRICING_FILE, "utf8")
const scaledPricing = (await import(pathToFileURL(SCALED_PRICING_FILE).href)).default as Plugin.Plugin<
  "pricing",
  number
>

// the plug-in keeps the pricing contract (at its own setting: 150 %); it uses neither the store nor the signer
PricingSuite.suite(
  "the scaled-pricing plug-in",
  scaledPricing.layer(150, { networks: [] }) as Layer.Layer<Pricing.Pricing, unknown, Catalog.Catalog | Market.Market>
)

/** A working directory with modules beside the configuration (the workspace's core and effect installed). */
const workDir = (files: Record<string, string>) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "svc-plugins-")))
  for (const [name, target] of [["@svc/core", "packages/core"], ["effect", "node_modules/effect"]] as const) {
    mkdirSync(dirname(join(dir, "node_modules", name)), { recursive: true })
    symlinkSync(realpathSync(join(ROOT, target)), join(dir, "node_modules", name))
  }
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  return dir
}

/** The configuration `svc serve` reads from an environment (and the SVC_CONFIG file it names). */
const configOf = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const source = yield* ServerConfig.provider.pipe(
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env))
    )
    const config = yield* ServerConfig.fromProvider(source)
    return { source, config }
  }).pipe(Effect.provide(NodeServices.layer))

/** The one-line failure of an effect. */
const failure = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    assert.isTrue(Exit.isFailure(exit), "expected a failure")
    const error = Cause.squash((exit as Exit.Failure<A, E>).cause) as { readonly message: string }
    assert.notInclude(error.message, "\n")
    return error.message
  })

describe("plug-ins chosen by configuration", () => {
  it.live(
    "a local-path pricing plug-in named in the SVC_CONFIG file prices the feed, with its own setting",
    () =>
      Effect.gen(function*() {
        const dir = workDir({
          "pricing/scaled.mjs": SCALED_PRICING,
          "svc.json": JSON.stringify({ SVC_PRICING: "./pricing/scaled.mjs", SCALE_PERCENT: "150" })
        })
        const { config, source } = yield* configOf({
          SVC_CONFIG: join(dir, "svc.json"),
          PORT: "0",
          SVC_DATA_DIR: join(dir, "data"),
          SVC_SIGNER_KEY: AUTHORITY_KEY,
          SVC_LOG_LEVEL: "none"
        })
        assert.strictEqual(config.pricing, "./pricing/scaled.mjs")
        const context = yield* Layer.build(Server.layer(config, demoCatalog, undefined, { cwd: dir })).pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, source)
        )
        const url = Context.get(context, App.AppControl).publicUrl
        const body = yield* Effect.promise(() => fetch(`${url}/api/v6/solver-feed`).then((r) => r.json()))
        // the catalog prices usdc.base -> usdt.bsc at 10^12 / 1 and usdc.base -> usdt0.hyperevm at 1 / 1
        const terms = (lane: string, rank: number) => {
          const route = body.feed.routes.find((r: any) => r.publicationLane === lane && r.publicationRank === rank)
          return [route.indicativePriceNumeratorRaw, route.indicativePriceDenominatorRaw]
        }
        assert.deepStrictEqual(terms("L1", 0), ["150000000000000", "100"])
        assert.deepStrictEqual(terms("L1", 2), ["150", "100"])
      }).pipe(Effect.scoped),
    { timeout: scaled(60_000) }
  )

  it.live(
    "a market plug-in and a coordination plug-in from local paths are the engine's: its market data, its leadership",
    () =>
      Effect.gen(function*() {
        const dir = workDir({
          "market.mjs": [
            `import { Market, Plugin } from "@svc/core"`,
            `import { Config } from "effect"`,
            `export default Plugin.make({`,
            `  kind: "market",`,
            `  name: "fixed-market",`,
            `  settings: Config.Int("FIXED_MARKET_MAX_AGE"),`,
            `  layer: (maxAgeSeconds) => Market.layerFixed({ prices: new Map(), maxAgeSeconds })`,
            `})`,
            ``
          ].join("\n"),
          "never-leads.mjs": [
            `import { Coordination, Plugin } from "@svc/core"`,
            `import { Config, Effect, Layer, Stream } from "effect"`,
            `export default Plugin.make({`,
            `  kind: "coordination",`,
            `  name: "never-leads",`,
            `  settings: Config.succeed(undefined),`,
            `  layer: () => Layer.succeed(Coordination.Coordination, Coordination.Coordination.of({`,
            `    isLeader: Effect.succeed(false),`,
            `    leadership: Stream.make(false),`,
            `    announce: () => Effect.void,`,
            `    announcements: Effect.succeed(Stream.empty),`,
            `    description: "never leads (test)"`,
            `  }))`,
            `})`,
            ``
          ].join("\n")
        })
        const { config, source } = yield* configOf({
          PORT: "0",
          SVC_DATA_DIR: join(dir, "data"),
          SVC_SIGNER_KEY: AUTHORITY_KEY,
          SVC_MARKET: "./market.mjs",
          FIXED_MARKET_MAX_AGE: "77",
          SVC_COORDINATION: "./never-leads.mjs",
          SVC_LOG_LEVEL: "none"
        })
        assert.deepInclude(Plugins.chosenNames(config), {
          SVC_MARKET: "./market.mjs",
          SVC_COORDINATION: "./never-leads.mjs"
        })
        const context = yield* Layer.build(Server.layer(config, demoCatalog, undefined, { cwd: dir })).pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, source)
        )
        assert.strictEqual(Context.get(context, Market.Market).maxAgeSeconds, 77)
        assert.strictEqual(Context.get(context, Coordination.Coordination).description, "never leads (test)")
        // a replica that never leads publishes nothing, and no leader stored a publication: the feed is unavailable
        const url = Context.get(context, App.AppControl).publicUrl
        const feed = yield* Effect.promise(() => fetch(`${url}/api/v6/solver-feed`))
        assert.strictEqual(feed.status, 503)
        // the plug-in's own setting is named when it is wrong
        const bad = yield* failure(
          Plugins.load(config, { cwd: dir, context: Server.pluginContext(demoCatalog) }).pipe(
            Effect.provideService(
              ConfigProvider.ConfigProvider,
              ConfigProvider.fromUnknown({ FIXED_MARKET_MAX_AGE: "old" })
            )
          )
        )
        assert.match(bad, /^SVC_MARKET: \.\/market\.mjs: .*FIXED_MARKET_MAX_AGE/)
      }).pipe(Effect.scoped),
    { timeout: scaled(60_000) }
  )

  it("docs/architecture.md shows the plug-in this test loads, as it is", () => {
    const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8")
    const section = doc.slice(doc.indexOf("### Writing a pricing plug-in"))
    const block = /```js\n([\s\S]*?)```/.exec(section)?.[1]
    assert.strictEqual(block, SCALED_PRICING)
  })

  it.effect("an unknown name is one line naming the key and the built-ins", () =>
    Effect.gen(function*() {
      const message = yield* failure(configOf({ SVC_PRICING: "dynamic" }))
      assert.strictEqual(
        message,
        `SVC_PRICING: unknown pricing "dynamic": give static or oracle, or a pricing plug-in's package name or path (with a / or starting with . or @)`
      )
      assert.match(
        yield* failure(configOf({ SVC_STORE: "mysql" })),
        /^SVC_STORE: unknown store "mysql": give sqlite or postgres/
      )
      assert.match(
        yield* failure(configOf({ SVC_SIGNER_PLUGIN: "kms" })),
        /^SVC_SIGNER_PLUGIN: unknown signer "kms": give key or keystore/
      )
      assert.strictEqual(
        yield* failure(configOf({ SVC_STORE: "postgres" })),
        "SVC_STORE: postgres needs DATABASE_URL (postgres://user:password@host/db)"
      )
      assert.match(
        yield* failure(configOf({ SVC_COORDINATION: "etcd" })),
        /^SVC_COORDINATION: unknown coordination "etcd": give store or single or postgres/
      )
      assert.match(
        yield* failure(configOf({ SVC_MARKET: "chainlink" })),
        /^SVC_MARKET: unknown market "chainlink": give catalog/
      )
      assert.strictEqual(
        yield* failure(configOf({ SVC_COORDINATION: "postgres" })),
        "SVC_COORDINATION: postgres needs DATABASE_URL (the PostgreSQL database whose lease the replicas share)"
      )
      // the built-ins agree with the keys beside them
      const plain = { databaseUrl: false, signerKeystore: false }
      assert.isUndefined(
        PluginChoice.check({ ...plain, store: "./my-store.mjs", pricing: "@acme/p", signerPlugin: "key" })
      )
      assert.match(
        PluginChoice.check({ ...plain, store: "sqlite", databaseUrl: true })!,
        /^SVC_STORE: sqlite, but DATABASE_URL/
      )
      assert.match(PluginChoice.check({ ...plain, signerPlugin: "keystore" })!, /^SVC_SIGNER_KEYSTORE: required/)
      assert.match(
        PluginChoice.check({ ...plain, signerPlugin: "key", signerKeystore: true })!,
        /^SVC_SIGNER_PLUGIN: key, but SVC_SIGNER_KEYSTORE/
      )
      // a store plug-in may read DATABASE_URL in a scheme of its own
      const { config } = yield* configOf({ SVC_STORE: "./my-store.mjs", DATABASE_URL: "mysql://db/svc" })
      assert.strictEqual(config.store, "./my-store.mjs")
    }))

  it.effect("a module that is not a plug-in of the kind, a bad setting, a failing part: one line naming the key", () =>
    Effect.gen(function*() {
      const dir = workDir({
        "pricing.mjs": SCALED_PRICING,
        "empty.mjs": "export const nothing = 1\n",
        "throwing-pricing.mjs": [
          `import { Plugin } from "@svc/core"`,
          `import { Config } from "effect"`,
          `export default Plugin.make({`,
          `  kind: "pricing",`,
          `  name: "throwing",`,
          `  settings: Config.succeed(undefined),`,
          `  layer: () => { throw new Error("no model configured") }`,
          `})`,
          ``
        ].join("\n"),
        "failing-store.mjs": `
import { Plugin, Store } from "@svc/core"
import { Config, Effect, Layer } from "effect"
export default Plugin.make({
  kind: "store",
  name: "failing-store",
  settings: Config.succeed(undefined),
  layer: () => Layer.effect(Store.Store, Effect.fail(new Plugin.PluginError({ message: "ACME_DB: cannot connect" })))
})
`
      })
      const load = (overrides: Partial<ServerConfig.ServerConfig>, env: Record<string, string> = {}) =>
        Plugins.load(testConfig(overrides), { cwd: dir, context: Server.pluginContext(demoCatalog) }).pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env))
        )
      assert.strictEqual(
        yield* failure(load({ store: "./pricing.mjs" })),
        `SVC_STORE: ./pricing.mjs: its default export is a pricing plug-in (scaled-pricing), not a store plug-in (export default Plugin.make({ kind: "store", name, settings, layer }))`
      )
      assert.match(
        yield* failure(load({ pricing: "./empty.mjs" })),
        /^SVC_PRICING: \.\/empty\.mjs: its default export is missing \(the module has no default export\), not a pricing plug-in/
      )
      assert.match(
        yield* failure(load({ pricing: "./absent.mjs" })),
        /^SVC_PRICING: \.\/absent\.mjs: .* does not exist$/
      )
      assert.match(
        yield* failure(load({ pricing: "@acme/svc-pricing" })),
        /^SVC_PRICING: @acme\/svc-pricing: not installed/
      )
      // the plug-in's own setting is named
      const bad = yield* failure(load({ pricing: "./pricing.mjs" }, { SCALE_PERCENT: "many" }))
      assert.match(bad, /^SVC_PRICING: \.\/pricing\.mjs: .*SCALE_PERCENT/)
      // a part that fails as it is built: one line with the key and the plug-in's message
      const parts = yield* load({ store: "./failing-store.mjs" })
      const built = yield* failure(Layer.build(parts.store.layer).pipe(Effect.scoped))
      assert.strictEqual(built, "SVC_STORE: ./failing-store.mjs: ACME_DB: cannot connect")
      // one whose layer function throws: the same
      const throwing = yield* load({ pricing: "./throwing-pricing.mjs" })
      const thrown = yield* failure(
        Layer.build(Layer.provide(throwing.pricing.layer, PricingSuite.context)).pipe(
          Effect.provide(
            Layer.mergeAll(Layer.succeed(Store.Store, {} as never), Layer.succeed(Signer.Signer, {} as never))
          ),
          Effect.scoped
        )
      )
      assert.strictEqual(thrown, "SVC_PRICING: ./throwing-pricing.mjs: no model configured")
    }))

  it.live(
    "a signer plug-in holds the authority key: the feed is signed by it, not by SVC_SIGNER_KEY",
    () =>
      Effect.gen(function*() {
        const dir = workDir({
          "signer.mjs": [
            `import { Plugin, Signer } from "@svc/core"`,
            `import { Config } from "effect"`,
            `export default Plugin.make({`,
            `  kind: "signer",`,
            `  name: "vault-signer",`,
            `  settings: Config.Redacted("VAULT_SIGNER_KEY"),`,
            `  layer: (key) => Signer.layerPrivateKey(key)`,
            `})`,
            ``
          ].join("\n")
        })
        const { config, source } = yield* configOf({
          PORT: "0",
          SVC_DATA_DIR: join(dir, "data"),
          SVC_SIGNER_PLUGIN: "./signer.mjs",
          VAULT_SIGNER_KEY: PAYER_KEY,
          SVC_LOG_LEVEL: "none"
        })
        const context = yield* Layer.build(Server.layer(config, demoCatalog, undefined, { cwd: dir })).pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, source)
        )
        const signer = Context.get(context, Signer.Signer)
        assert.strictEqual(signer.address, Signature.addressOf(PAYER_KEY))
        assert.isFalse(signer.development)
        const url = Context.get(context, App.AppControl).publicUrl
        const body = yield* Effect.promise(() => fetch(`${url}/api/v6/solver-feed`).then((r) => r.json()))
        const verified = FeedSignature.verify(body.feed, {
          now: Math.floor(Date.now() / 1000),
          expectedSigner: Signature.addressOf(PAYER_KEY)
        })
        assert.isTrue(
          Result.isSuccess(verified) && verified.success.valid,
          "the feed verifies, signed by the plug-in's key"
        )
      }).pipe(Effect.scoped),
    { timeout: scaled(60_000) }
  )

  it.effect("the built-ins are the defaults: SQLite, static pricing, the key; DATABASE_URL selects PostgreSQL", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(Plugins.chosenNames(testConfig()), {
        SVC_STORE: "sqlite",
        SVC_COORDINATION: "store",
        SVC_PRICING: "static",
        SVC_MARKET: "catalog",
        SVC_SIGNER_PLUGIN: "key"
      })
      assert.deepStrictEqual(
        Plugins.chosenNames(testConfig({
          databaseUrl: Option.some(Redacted.make("postgres://u:p@localhost/db")),
          signerKeystore: Option.some("authority.json"),
          pricing: "oracle"
        })),
        {
          SVC_STORE: "postgres",
          SVC_COORDINATION: "store",
          SVC_PRICING: "oracle",
          SVC_MARKET: "catalog",
          SVC_SIGNER_PLUGIN: "keystore"
        }
      )
      const { config } = yield* configOf({})
      assert.strictEqual(config.pricing, "static")
      assert.strictEqual(config.coordination, "store")
      assert.strictEqual(config.market, "catalog")
      assert.isUndefined(config.store)
      assert.isUndefined(config.signerPlugin)
      // the built-ins are plug-ins of their kind
      const builtins = Plugins.builtins(testConfig())
      for (const [kind, plugins] of Object.entries(builtins)) {
        for (const plugin of Object.values(plugins)) {
          assert.isTrue(Plugin.isPlugin(plugin, kind as Plugin.LayerKind), `${kind} ${plugin.name}`)
        }
      }
      assert.isDefined(builtins.store.postgres.coordination)
      assert.isFalse(Plugin.isPlugin(Pricing.makeStatic(), "pricing"))
    }))
})
