/**
 * The plug-in `svc serve` loads (the package's default export): the EVM
 * connector, with JSON-RPC URLs read from the server's configuration.
 *
 * | Key | Default | Meaning |
 * | --- | --- | --- |
 * | SVC_RPC_URLS | (none) | JSON object, catalog network key -> http(s) JSON-RPC URL: settlement and smart-contract account proofs (ERC-1271 / ERC-6492) on those networks; never logged |
 * | SVC_RPC_TIMEOUT_MS | 10000 | longest wait for one RPC call |
 * | SVC_PAYOUT_KEY | (none: nothing is paid out) | the vaults' operator key, 0x + 64 hex; never logged |
 *
 * With an RPC URL, a network's source fills are watched (its router's
 * `SourceFillV6` logs) and its vault's balances are its inventory; with
 * `SVC_PAYOUT_KEY` too, confirmed fills are paid out there.
 *
 * @since 0.1.0
 */
import { Connector } from "@svc/core"
import { Config, Effect, Option, Redacted } from "effect"
import * as EvmConnector from "./EvmConnector.ts"

/**
 * The package name the plug-in registers under.
 *
 * @category constants
 * @since 0.1.0
 */
export const NAME = "@svc/connector-evm"

const invalid = (message: string) =>
  new Connector.PluginError({ message: `SVC_RPC_URLS: ${message} (values not shown)` })

/**
 * Maps `SVC_RPC_URLS` (catalog network key -> URL) to RPC URLs by chain id,
 * refusing unknown keys, non-EVM networks and non-http(s) URLs. Error messages
 * never contain the URLs (they may carry API keys).
 *
 * @category running
 * @since 0.1.0
 */
export const rpcUrlsByChainId = (
  value: Redacted.Redacted<string>,
  context: Connector.PluginContext
): Effect.Effect<Record<string, Redacted.Redacted<string>>, Connector.PluginError> =>
  Effect.gen(function*() {
    const shape = "must be a JSON object: catalog network key -> http(s) URL"
    const parsed = yield* Effect.try({
      try: () => JSON.parse(Redacted.value(value)) as unknown,
      catch: () => invalid(shape)
    })
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return yield* invalid(shape)
    const urls: Record<string, Redacted.Redacted<string>> = {}
    for (const [key, url] of Object.entries(parsed)) {
      const network = context.networks.find((n) => n.key === key)
      if (network === undefined) return yield* invalid(`no network ${key} in the catalog`)
      if (network.vm !== "EVM" || network.native === null) {
        return yield* invalid(`${key} is not an EVM network (only EVM connectors use an RPC URL)`)
      }
      if (typeof url !== "string" || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
        return yield* invalid(`${key} must be an http(s) URL`)
      }
      urls[network.native] = Redacted.make(url)
    }
    return urls
  })

const settings = Config.all({
  rpcUrls: Config.option(Config.Redacted("SVC_RPC_URLS")),
  rpcTimeoutMillis: Config.Int("SVC_RPC_TIMEOUT_MS").pipe(Config.withDefault(10_000)),
  payoutKey: Config.option(Config.Redacted("SVC_PAYOUT_KEY"))
})

/**
 * The EVM connector plug-in.
 *
 * @category running
 * @since 0.1.0
 */
export const plugin: Connector.Plugin = Connector.plugin(
  NAME,
  Effect.fn("EvmPlugin.register")(function*(context: Connector.PluginContext) {
    const { payoutKey, rpcTimeoutMillis, rpcUrls } = yield* settings.pipe(
      Effect.mapError((e) => new Connector.PluginError({ message: e.message.split("\n").join("; ") }))
    )
    if (rpcTimeoutMillis < 1 || rpcTimeoutMillis > 300_000) {
      return yield* new Connector.PluginError({ message: "SVC_RPC_TIMEOUT_MS: 1 to 300000" })
    }
    const urls = Option.isSome(rpcUrls) ? yield* rpcUrlsByChainId(rpcUrls.value, context) : {}
    if (Option.isSome(payoutKey) && !/^0x[0-9a-fA-F]{64}$/.test(Redacted.value(payoutKey.value))) {
      return yield* new Connector.PluginError({
        message: "SVC_PAYOUT_KEY: must be 0x followed by 64 hex digits (value not shown)"
      })
    }
    return EvmConnector.make({ rpcUrls: urls, rpcTimeoutMillis, payoutKey: Option.getOrUndefined(payoutKey) })
  })
)

export default plugin
