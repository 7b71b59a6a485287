/**
 * The checks of a parsed configuration that its types cannot express (ranges,
 * formats, keys that go together), each failure one line naming the key.
 * Internal: `ServerConfig.fromProvider` runs them.
 *
 * @since 0.2.0
 */
import { Data, Effect, Option, Redacted, Result } from "effect"
import { DEFAULT_HEADER, parseHeaderName, parseTrustedProxies } from "../ClientAddress.ts"
import { validateNames } from "../ConnectorLoader.ts"
import * as PluginChoice from "../PluginChoice.ts"
import type { ServerConfig } from "../ServerConfig.ts"

/**
 * A configuration that cannot start the server, with a message naming the key.
 *
 * @category errors
 * @since 0.1.0
 */
export class ConfigInvalid extends Data.TaggedError("ConfigInvalid")<{ readonly message: string }> {}

const check = (ok: boolean, message: string) => ok ? Effect.void : Effect.fail(new ConfigInvalid({ message }))

/** The checks, in order: the first failure is the answer. */
export const validate = (config: Omit<ServerConfig, "trustedProxies"> & { readonly trustedProxies: string }) =>
  Effect.gen(function*() {
    yield* check(config.port >= 0 && config.port <= 65535, `PORT: ${config.port} is not a port (0 to 65535)`)
    yield* check(config.host.length > 0, "HOST: must not be empty")
    if (Option.isSome(config.publicUrl)) {
      const url = config.publicUrl.value
      yield* check(
        URL.canParse(url) && /^https?:$/.test(new URL(url).protocol),
        `SVC_PUBLIC_URL: ${url} is not an http(s) URL`
      )
    }
    if (Option.isSome(config.signerKey)) {
      yield* check(
        /^0x[0-9a-fA-F]{64}$/.test(Redacted.value(config.signerKey.value)),
        "SVC_SIGNER_KEY: must be 0x followed by 64 hex digits (value not shown)"
      )
    }
    const keystore = Option.getOrUndefined(config.signerKeystore ?? Option.none())
    yield* check(
      Option.isNone(config.signerKey) || keystore === undefined,
      "SVC_SIGNER_KEYSTORE: give SVC_SIGNER_KEY or SVC_SIGNER_KEYSTORE, not both"
    )
    yield* check(keystore === undefined || keystore.length > 0, "SVC_SIGNER_KEYSTORE: empty")
    yield* check(
      keystore === undefined || Option.isSome(config.keystorePasswordFile ?? Option.none()),
      "SVC_KEYSTORE_PASSWORD_FILE: required with SVC_SIGNER_KEYSTORE (the file holding the keystore's password)"
    )
    yield* check(config.feedTtlSeconds >= 10 && config.feedTtlSeconds <= 86_400, "SVC_FEED_TTL_SECONDS: 10 to 86400")
    yield* check(config.permitTtlSeconds >= 10 && config.permitTtlSeconds <= 3600, "SVC_PERMIT_TTL_SECONDS: 10 to 3600")
    yield* check(config.permitRateLimit >= 1, "SVC_PERMIT_RATE_LIMIT: at least 1")
    yield* check(config.permitRateWindowSeconds >= 1, "SVC_PERMIT_RATE_WINDOW_SECONDS: at least 1")
    yield* check(config.sseMaxSubscribers >= 1, "SVC_SSE_MAX_SUBSCRIBERS: at least 1")
    yield* check(config.sseHeartbeatMs >= 100 && config.sseHeartbeatMs <= 15_000, "SVC_SSE_HEARTBEAT_MS: 100 to 15000")
    yield* check(
      config.maxConnections === undefined || config.maxConnections >= 1,
      "SVC_MAX_CONNECTIONS: at least 1"
    )
    yield* check(
      config.maxConnectionsPerClient === undefined || config.maxConnectionsPerClient >= 1,
      "SVC_MAX_CONNECTIONS_PER_CLIENT: at least 1"
    )
    yield* check(
      config.headersTimeoutSeconds === undefined ||
        (config.headersTimeoutSeconds >= 1 && config.headersTimeoutSeconds <= 3600),
      "SVC_HEADERS_TIMEOUT_SECONDS: 1 to 3600"
    )
    yield* check(
      config.requestTimeoutSeconds === undefined ||
        (config.requestTimeoutSeconds >= (config.headersTimeoutSeconds ?? 10) && config.requestTimeoutSeconds <= 3600),
      "SVC_REQUEST_TIMEOUT_SECONDS: SVC_HEADERS_TIMEOUT_SECONDS to 3600"
    )
    yield* check(
      config.sseMaxSubscribersPerClient === undefined || config.sseMaxSubscribersPerClient >= 1,
      "SVC_SSE_MAX_SUBSCRIBERS_PER_CLIENT: at least 1"
    )
    yield* check(
      config.sseMaxLifetimeSeconds === undefined ||
        (config.sseMaxLifetimeSeconds >= 0 && config.sseMaxLifetimeSeconds <= 86_400),
      "SVC_SSE_MAX_LIFETIME_SECONDS: 0 (no limit) to 86400"
    )
    yield* check(
      config.sseBacklogBytes === undefined || config.sseBacklogBytes >= 1024,
      "SVC_SSE_BACKLOG_BYTES: at least 1024"
    )
    if (Option.isSome(config.serverSecret)) {
      yield* check(
        Redacted.value(config.serverSecret.value).length >= 32,
        "SVC_SERVER_SECRET: at least 32 characters (value not shown)"
      )
    }
    const positive = (value: number | undefined, name: string) =>
      check(value === undefined || value >= 1, `${name}: at least 1`)
    yield* positive(config.aggregatorRateLimit, "SVC_AGGREGATOR_RATE_LIMIT")
    yield* positive(config.aggregatorQuoteBuildRateLimit, "SVC_AGGREGATOR_QUOTE_BUILD_RATE_LIMIT")
    yield* positive(config.aggregatorRateWindowSeconds, "SVC_AGGREGATOR_RATE_WINDOW_SECONDS")
    yield* positive(config.quoteTtlSeconds, "SVC_QUOTE_TTL_SECONDS")
    yield* positive(config.oracleMaxAgeSeconds, "SVC_ORACLE_MAX_AGE_SECONDS")
    yield* check(
      config.oracleMaxDeviationBps === undefined || config.oracleMaxDeviationBps === null ||
        (Number.isInteger(config.oracleMaxDeviationBps) && config.oracleMaxDeviationBps <= 10_000),
      "SVC_ORACLE_MAX_DEVIATION_BPS: 0 to 10000 basis points, or off"
    )
    yield* check(
      config.quoteToleranceBps === undefined || (config.quoteToleranceBps >= 0 && config.quoteToleranceBps <= 10_000),
      "SVC_QUOTE_TOLERANCE_BPS: 0 to 10000"
    )
    for (
      const [value, name] of [
        [config.holdShareClientBps, "SVC_HOLD_SHARE_CLIENT_BPS"],
        [config.holdSharePayerBps, "SVC_HOLD_SHARE_PAYER_BPS"],
        [config.holdShareNewPayersBps, "SVC_HOLD_SHARE_NEW_PAYERS_BPS"]
      ] as const
    ) {
      yield* check(
        value === undefined || value === null || (Number.isInteger(value) && value >= 1 && value <= 10_000),
        `${name}: 1 to 10000 basis points, or off`
      )
    }
    if (config.metricsPort !== undefined) {
      yield* check(config.metricsPort >= 0 && config.metricsPort <= 65_535, "SVC_METRICS_PORT: 0 to 65535")
      yield* check(
        config.metricsPort === 0 || config.metricsPort !== config.port,
        "SVC_METRICS_PORT: the metrics listener needs a port of its own, not PORT"
      )
    }
    yield* check(
      config.permitRetentionDays === undefined ||
        (config.permitRetentionDays >= 0 && config.permitRetentionDays <= 36_500),
      "SVC_PERMIT_RETENTION_DAYS: 0 (keep forever) to 36500"
    )
    yield* check(
      config.feedRateLimit === undefined || config.feedRateLimit === null || config.feedRateLimit >= 1,
      "SVC_FEED_RATE_LIMIT: at least 1, or off"
    )
    yield* check(
      config.feedRateWindowSeconds === undefined ||
        (config.feedRateWindowSeconds >= 1 && config.feedRateWindowSeconds <= 86_400),
      "SVC_FEED_RATE_WINDOW_SECONDS: 1 to 86400"
    )
    yield* check(
      config.storeTimeoutMs === undefined || (config.storeTimeoutMs >= 50 && config.storeTimeoutMs <= 60_000),
      "SVC_STORE_TIMEOUT_MS: 50 to 60000"
    )
    yield* check(
      config.marketPollMs === undefined || (config.marketPollMs >= 100 && config.marketPollMs <= 3_600_000),
      "SVC_MARKET_POLL_MS: 100 to 3600000"
    )
    // the plug-in settings: a built-in name or a package name or path, consistent with the keys beside them
    const pluginProblem = PluginChoice.check({
      store: config.store,
      coordination: config.coordination,
      pricing: config.pricing,
      market: config.market,
      signerPlugin: config.signerPlugin,
      databaseUrl: Option.isSome(config.databaseUrl),
      signerKeystore: Option.isSome(config.signerKeystore ?? Option.none())
    })
    if (pluginProblem !== undefined) return yield* new ConfigInvalid({ message: pluginProblem })
    if (config.connectors !== undefined) {
      const problem = validateNames(config.connectors)
      yield* check(problem === undefined, `SVC_CONNECTORS: ${problem}`)
    }
    for (const origin of config.aggregatorOrigins ?? []) {
      yield* check(
        URL.canParse(origin) && /^https?:$/.test(new URL(origin).protocol),
        `SVC_AGGREGATOR_ORIGINS: ${origin} is not an http(s) origin`
      )
    }
    // a store plug-in may read DATABASE_URL in a scheme of its own
    if (Option.isSome(config.databaseUrl) && !PluginChoice.isSpecifier(config.store ?? "")) {
      const url = Redacted.value(config.databaseUrl.value)
      yield* check(
        /^postgres(?:ql)?:\/\//.test(url),
        "DATABASE_URL: only postgres:// or postgresql:// URLs are supported"
      )
    }
    if (config.redisUrl !== undefined) {
      const url = Redacted.value(config.redisUrl)
      yield* check(
        /^rediss?:\/\//.test(url) && URL.canParse(url),
        "REDIS_URL: must be a redis:// or rediss:// URL (value not shown)"
      )
    }
    yield* check(
      config.redisPrefix === undefined || /^[A-Za-z0-9:_.{}-]{1,64}$/.test(config.redisPrefix),
      "SVC_REDIS_PREFIX: 1 to 64 letters, digits or : _ . - { }"
    )
    const trustedProxies = parseTrustedProxies(config.trustedProxies)
    if (Result.isFailure(trustedProxies)) {
      return yield* new ConfigInvalid({ message: `SVC_TRUSTED_PROXIES: ${trustedProxies.failure.message}` })
    }
    const clientAddressHeader = parseHeaderName(config.clientAddressHeader ?? DEFAULT_HEADER)
    if (Result.isFailure(clientAddressHeader)) {
      return yield* new ConfigInvalid({ message: `SVC_CLIENT_ADDRESS_HEADER: ${clientAddressHeader.failure.message}` })
    }
    return {
      ...config,
      publicUrl: Option.map(config.publicUrl, (u) => u.replace(/\/+$/, "")),
      trustedProxies: trustedProxies.success,
      clientAddressHeader: clientAddressHeader.success
    }
  })
