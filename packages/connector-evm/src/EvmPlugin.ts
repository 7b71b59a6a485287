/**
 * The plug-in `svc serve` loads (the package's default export): the EVM
 * connector, with JSON-RPC URLs read from the server's configuration.
 *
 * | Key | Default | Meaning |
 * | --- | --- | --- |
 * | SVC_RPC_URLS | (none) | JSON object, catalog network key -> http(s) JSON-RPC URL: settlement and smart-contract account proofs (ERC-1271 / ERC-6492) on those networks; never logged |
 * | SVC_RPC_TIMEOUT_MS | 10000 | longest wait for one RPC call |
 * | SVC_PAYOUT_KEY | (none: nothing is paid out) | the vaults' operator key, 0x + 64 hex; never logged |
 * | SVC_PAYOUT_KEYSTORE | (none) | the same key in an encrypted keystore file (`svc keys new`), unlocked with SVC_KEYSTORE_PASSWORD_FILE |
 *
 * With an RPC URL, a network's source fills are watched (its router's
 * `SourceFillV6` logs) and its vault's balances are its inventory; with
 * `SVC_PAYOUT_KEY` or `SVC_PAYOUT_KEYSTORE` too, confirmed fills are paid out there.
 *
 * @since 0.1.0
 */
import { Connector, Keystore } from "@svc/core"
import { Config, Effect, Option, Redacted } from "effect"
import { readFile } from "node:fs/promises"
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
 * Maps `SVC_RPC_URLS` (catalog network key -> URL, or a JSON array of URLs
 * failed over in order) to RPC URLs by chain id, refusing unknown keys, non-EVM
 * networks, empty lists and non-http(s) URLs. Error messages never contain the
 * URLs (they may carry API keys).
 *
 * @category running
 * @since 0.1.0
 */
export const rpcUrlsByChainId = (
  value: Redacted.Redacted<string>,
  context: Connector.PluginContext
): Effect.Effect<Record<string, ReadonlyArray<Redacted.Redacted<string>>>, Connector.PluginError> =>
  Effect.gen(function*() {
    const shape = "must be a JSON object: catalog network key -> http(s) URL, or an array of them"
    const parsed = yield* Effect.try({
      try: () => JSON.parse(Redacted.value(value)) as unknown,
      catch: () => invalid(shape)
    })
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return yield* invalid(shape)
    const urls: Record<string, ReadonlyArray<Redacted.Redacted<string>>> = {}
    for (const [key, value] of Object.entries(parsed)) {
      const network = context.networks.find((n) => n.key === key)
      if (network === undefined) return yield* invalid(`no network ${key} in the catalog`)
      if (network.vm !== "EVM" || network.native === null) {
        return yield* invalid(`${key} is not an EVM network (only EVM connectors use an RPC URL)`)
      }
      const list: ReadonlyArray<unknown> = Array.isArray(value) ? value : [value]
      if (list.length === 0) return yield* invalid(`${key} has an empty list of URLs`)
      for (const [i, url] of list.entries()) {
        if (typeof url !== "string" || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
          return yield* invalid(`${key}${Array.isArray(value) ? `[${i}]` : ""} must be an http(s) URL`)
        }
      }
      urls[network.native] = list.map((url) => Redacted.make(url as string))
    }
    return urls
  })

const settings = Config.all({
  rpcUrls: Config.option(Config.Redacted("SVC_RPC_URLS")),
  rpcTimeoutMillis: Config.Int("SVC_RPC_TIMEOUT_MS").pipe(Config.withDefault(10_000)),
  payoutKey: Config.option(Config.Redacted("SVC_PAYOUT_KEY")),
  payoutKeystore: Config.option(Config.String("SVC_PAYOUT_KEYSTORE")),
  keystorePasswordFile: Config.option(Config.String("SVC_KEYSTORE_PASSWORD_FILE"))
})

/** SVC_PAYOUT_KEYSTORE unlocked with the password of SVC_KEYSTORE_PASSWORD_FILE (files read once, at start). */
const unlockPayoutKeystore = (keystorePath: string, passwordFile: Option.Option<string>) =>
  Effect.gen(function*() {
    if (Option.isNone(passwordFile)) {
      return yield* new Connector.PluginError({
        message:
          "SVC_KEYSTORE_PASSWORD_FILE: required with SVC_PAYOUT_KEYSTORE (the file holding the keystore's password)"
      })
    }
    const read = (path: string, key: string) =>
      Effect.tryPromise({
        try: () => readFile(path, "utf8"),
        catch: () => new Connector.PluginError({ message: `${key}: cannot read ${path}` })
      })
    const text = yield* read(keystorePath, "SVC_PAYOUT_KEYSTORE")
    const password = Keystore.passwordOfFile(yield* read(passwordFile.value, "SVC_KEYSTORE_PASSWORD_FILE"))
    return yield* Effect.fromResult(Keystore.parse(text)).pipe(
      Effect.flatMap((keystore) => Keystore.decrypt(keystore, password)),
      Effect.mapError((e) =>
        new Connector.PluginError({ message: `SVC_PAYOUT_KEYSTORE: ${keystorePath}: ${e.message}` })
      )
    )
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
    const { keystorePasswordFile, payoutKeystore, rpcTimeoutMillis, rpcUrls, ...raw } = yield* settings.pipe(
      Effect.mapError((e) => new Connector.PluginError({ message: e.message.split("\n").join("; ") }))
    )
    if (rpcTimeoutMillis < 1 || rpcTimeoutMillis > 300_000) {
      return yield* new Connector.PluginError({ message: "SVC_RPC_TIMEOUT_MS: 1 to 300000" })
    }
    const urls = Option.isSome(rpcUrls) ? yield* rpcUrlsByChainId(rpcUrls.value, context) : {}
    if (Option.isSome(raw.payoutKey) && Option.isSome(payoutKeystore)) {
      return yield* new Connector.PluginError({
        message: "SVC_PAYOUT_KEYSTORE: give SVC_PAYOUT_KEY or SVC_PAYOUT_KEYSTORE, not both"
      })
    }
    const payoutKey = Option.isSome(payoutKeystore)
      ? Option.some(yield* unlockPayoutKeystore(payoutKeystore.value, keystorePasswordFile))
      : raw.payoutKey
    if (Option.isSome(payoutKey) && !/^0x[0-9a-fA-F]{64}$/.test(Redacted.value(payoutKey.value))) {
      return yield* new Connector.PluginError({
        message: "SVC_PAYOUT_KEY: must be 0x followed by 64 hex digits (value not shown)"
      })
    }
    return EvmConnector.make({ rpcUrls: urls, rpcTimeoutMillis, payoutKey: Option.getOrUndefined(payoutKey) })
  })
)

export default plugin
