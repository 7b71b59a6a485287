/**
 * Server configuration, read from the environment and, for keys the environment
 * does not set, from the JSON file named by `SVC_CONFIG` (same key names).
 *
 * | Key | Default | Meaning |
 * | --- | --- | --- |
 * | PORT | 8787 | listening port; 0 picks a free port |
 * | HOST | 127.0.0.1 | listening address |
 * | SVC_PUBLIC_URL | http://HOST:port | public base URL used in discovery documents |
 * | SVC_DATA_DIR | ./.svc-data | data directory (SQLite database, development key, server secret) |
 * | SVC_SIGNER_KEY | (development key) | authority private key, 0x + 64 hex |
 * | SVC_CATALOG | (demo catalog) | catalog file (JSON) |
 * | DATABASE_URL | (SQLite in the data dir) | postgres://... selects PostgreSQL |
 * | SVC_SERVER_SECRET | (generated in the data dir) | secret for quote tokens (at least 32 characters) |
 * | SVC_ONCHAIN | (demo placeholders) | on-chain discovery configuration file (JSON) |
 * | SVC_FEED_TTL_SECONDS | 300 | validity of each signed feed |
 * | SVC_PERMIT_TTL_SECONDS | 120 | longest permit validity |
 * | SVC_PERMIT_RATE_LIMIT | 600 | permit creations per client per SVC_PERMIT_RATE_WINDOW_SECONDS |
 * | SVC_PERMIT_RATE_WINDOW_SECONDS | 60 | window of the permit rate limit |
 * | SVC_SSE_MAX_SUBSCRIBERS | 10000 | concurrent event-stream subscribers (503 beyond) |
 * | SVC_SSE_HEARTBEAT_MS | 15000 | event-stream heartbeat period |
 * | SVC_LOG_LEVEL | info | minimum log level (trace, debug, info, warning, error, none) |
 * | SVC_PROFILE | (the catalog's; demo for the embedded demo catalog) | production, demo or test (see docs/connectors.md) |
 * | SVC_CONNECTORS | @svc/connector-evm,@svc/connector-solana | comma-separated connector packages to load (the file may give a `connectors` list instead) |
 * | SVC_AGGREGATOR_RATE_LIMIT | 120 | `/v1` requests per client per SVC_AGGREGATOR_RATE_WINDOW_SECONDS |
 * | SVC_AGGREGATOR_QUOTE_BUILD_RATE_LIMIT | 20 | of those, quote and build POSTs (each build stage counts) |
 * | SVC_AGGREGATOR_RATE_WINDOW_SECONDS | 60 | window of the aggregator rate limits |
 * | SVC_AGGREGATOR_ORIGINS | (none: all allowed) | comma-separated browser Origins allowed on `/v1` (others 403) |
 * | SVC_QUOTE_TTL_SECONDS | (none) | caps an aggregator quote's validity (it is always capped by route, feed and pricing) |
 * | SVC_PRICING | static | `static` (the catalog's prices) or `oracle` (the catalog's USD price feeds; see docs/pricing.md) |
 * | SVC_ORACLE_MAX_AGE_SECONDS | 3600 | a price feed round older than this is stale (its routes close) |
 * | SVC_ORACLE_MAX_DEVIATION_BPS | 1000 | oracle pricing refuses a rate this far from the catalog's price; `off` disables |
 * | SVC_QUOTE_TOLERANCE_BPS | 50 | oracle pricing: a permit whose fresh price is this much below the feed's answers QUOTE_CHANGED |
 * | SVC_MARKET_POLL_MS | 5000 | how often price feeds and gas prices are read |
 * | SVC_HOLD_SHARE_CLIENT_BPS | 2500 | one client's unfilled permits may hold at most this share of a destination asset's inventory; `off` disables |
 * | SVC_HOLD_SHARE_PAYER_BPS | 5000 | the same for one payer |
 * | SVC_METRICS_PORT | (none: off) | Prometheus text metrics at `http://SVC_METRICS_HOST:port/metrics`, a listener of their own (never the public port) |
 * | SVC_METRICS_HOST | 127.0.0.1 | address of the metrics listener |
 * | SVC_STATUS_LISTS | all | `/v1/status` list lookups: `all` (by quoteId and userAddress, as the interface describes), `address` (a userAddress's own history only) or `none` |
 * | SVC_PERMIT_RETENTION_DAYS | 90 | terminal permits (PAID, EXPIRED, FAILED) are deleted this long after their last change; 0 keeps them (never below the quote window + grace + a day) |
 * | REDIS_URL | (none: limits in process memory) | redis:// or rediss:// URL: the permit and `/v1` rate limits are shared by every replica using it; unreachable at start: the server does not start |
 * | SVC_REDIS_PREFIX | svc: | prefix of the Redis keys (deployments or tests sharing one Redis use different prefixes) |
 * | SVC_TRUSTED_PROXIES | (none) | comma-separated addresses or CIDR ranges of proxies whose `Forwarded` / `X-Forwarded-For` name the client (rate limits, connection caps) |
 * | SVC_MAX_CONNECTIONS | 12000, at most the open-file limit minus 256 | open TCP connections; a connection beyond is closed at once |
 * | SVC_MAX_CONNECTIONS_PER_CLIENT | 128 | open connections of one peer address (503 and close beyond); from a trusted proxy: concurrent requests of one client (503 beyond) |
 * | SVC_HEADERS_TIMEOUT_SECONDS | 10 | a request's headers must arrive within this (408 and close) |
 * | SVC_REQUEST_TIMEOUT_SECONDS | 30 | a whole request, headers and body, must arrive within this (408 and close); responses, event streams included, are not limited |
 * | SVC_SSE_MAX_SUBSCRIBERS_PER_CLIENT | 32 | concurrent event-stream subscribers of one client address (503 beyond) |
 * | SVC_SSE_MAX_LIFETIME_SECONDS | 1800 | an event stream is ended after this (less up to 10 %), and its client reconnects with Last-Event-ID; 0: no limit |
 * | SVC_SSE_BACKLOG_BYTES | 65536 | floor of a subscriber's backlog bound (unsent and unacknowledged bytes; the bound is the larger of this and twice the current event) |
 *
 * @since 0.1.0
 */
import { Config, ConfigProvider, Data, Effect, FileSystem, Option, Redacted, Result } from "effect"
import type { IpNetwork } from "effect/net"
import { parseTrustedProxies } from "./ClientAddress.ts"
import { validateNames } from "./ConnectorLoader.ts"

/**
 * A configuration that cannot start the server, with a message naming the key.
 *
 * @category errors
 * @since 0.1.0
 */
export class ConfigInvalid extends Data.TaggedError("ConfigInvalid")<{ readonly message: string }> {}

/**
 * The validated server configuration.
 *
 * @category models
 * @since 0.1.0
 */
export interface ServerConfig {
  readonly port: number
  readonly host: string
  readonly publicUrl: Option.Option<string>
  readonly dataDir: string
  readonly signerKey: Option.Option<Redacted.Redacted<string>>
  readonly catalogPath: Option.Option<string>
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly serverSecret: Option.Option<Redacted.Redacted<string>>
  readonly onchainPath: Option.Option<string>
  readonly feedTtlSeconds: number
  readonly permitTtlSeconds: number
  readonly permitRateLimit: number
  readonly permitRateWindowSeconds: number
  readonly sseMaxSubscribers: number
  readonly sseHeartbeatMs: number
  readonly logLevel: "trace" | "debug" | "info" | "warning" | "error" | "none"
  /** Deployment profile; overrides the catalog document's (SVC_PROFILE). */
  readonly profile?: "production" | "demo" | "test" | undefined
  /** Connector packages to load, in order (SVC_CONNECTORS; default: the EVM and Solana connectors). */
  readonly connectors?: ReadonlyArray<string> | undefined
  /** `/v1` requests per client per window (default 120). */
  readonly aggregatorRateLimit?: number | undefined
  /** Quote and build POSTs per client per window (default 20). */
  readonly aggregatorQuoteBuildRateLimit?: number | undefined
  /** Window of the aggregator limits, seconds (default 60). */
  readonly aggregatorRateWindowSeconds?: number | undefined
  /** Allowed browser Origins on `/v1`; empty: all allowed. */
  readonly aggregatorOrigins?: ReadonlyArray<string> | undefined
  /** Cap of a quote's validity, seconds (default none). */
  readonly quoteTtlSeconds?: number | undefined
  /** Pricing model (SVC_PRICING; default static). */
  readonly pricing?: "static" | "oracle" | undefined
  /** Staleness limit of price feed rounds, seconds (default 3600). */
  readonly oracleMaxAgeSeconds?: number | undefined
  /** Deviation guard of oracle pricing, basis points; null: off (default 1000). */
  readonly oracleMaxDeviationBps?: number | null | undefined
  /** Quote tolerance of oracle pricing, basis points (default 50). */
  readonly quoteToleranceBps?: number | undefined
  /** Market data poll period, milliseconds (default 5000). */
  readonly marketPollMs?: number | undefined
  /** Port of the Prometheus metrics listener (SVC_METRICS_PORT); none: no metrics listener. */
  readonly metricsPort?: number | undefined
  /** Address of the metrics listener (SVC_METRICS_HOST; default 127.0.0.1). */
  readonly metricsHost?: string | undefined
  /** Which `/v1/status` list lookups answer (SVC_STATUS_LISTS; default all). */
  readonly statusLists?: "all" | "address" | "none" | undefined
  /** Retention of terminal permits, days (default 90; 0 keeps them). */
  readonly permitRetentionDays?: number | undefined
  /** One client's share of an asset's inventory in unfilled holds, bps; null: off (default 2500). */
  readonly holdShareClientBps?: number | null | undefined
  /** One payer's share, bps; null: off (default 5000). */
  readonly holdSharePayerBps?: number | null | undefined
  /** Redis of the shared rate limits (REDIS_URL); absent: limits in process memory. */
  readonly redisUrl?: Redacted.Redacted<string> | undefined
  /** Prefix of the Redis keys (SVC_REDIS_PREFIX; default `svc:`). */
  readonly redisPrefix?: string | undefined
  /** Proxies whose forwarding headers name the client (SVC_TRUSTED_PROXIES; default none). */
  readonly trustedProxies?: ReadonlyArray<IpNetwork.IpNetwork> | undefined
  /** Open connections (SVC_MAX_CONNECTIONS; default 12000, at most the open-file limit minus 256). */
  readonly maxConnections?: number | undefined
  /** Open connections of one client (SVC_MAX_CONNECTIONS_PER_CLIENT; default 128). */
  readonly maxConnectionsPerClient?: number | undefined
  /** Time to receive a request's headers, seconds (SVC_HEADERS_TIMEOUT_SECONDS; default 10). */
  readonly headersTimeoutSeconds?: number | undefined
  /** Time to receive a whole request, seconds (SVC_REQUEST_TIMEOUT_SECONDS; default 30). */
  readonly requestTimeoutSeconds?: number | undefined
  /** Event-stream subscribers of one client (SVC_SSE_MAX_SUBSCRIBERS_PER_CLIENT; default 32). */
  readonly sseMaxSubscribersPerClient?: number | undefined
  /** Longest event stream, seconds; 0: no limit (SVC_SSE_MAX_LIFETIME_SECONDS; default 1800). */
  readonly sseMaxLifetimeSeconds?: number | undefined
  /** Floor of a subscriber's backlog bound, bytes (SVC_SSE_BACKLOG_BYTES; default 65536). */
  readonly sseBacklogBytes?: number | undefined
}

const optionalString = (name: string) => Config.option(Config.String(name))
const optionalRedacted = (name: string) => Config.option(Config.Redacted(name))

/** Basis points 0-10000, or `off` (null); anything else is NaN, refused by validation. */
const bpsOrOff = (name: string, fallback: string) =>
  Config.String(name).pipe(
    Config.withDefault(fallback),
    Config.map((v) => v.trim() === "off" ? null : /^[0-9]{1,5}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN)
  )

const serverConfig = Config.all({
  port: Config.Int("PORT").pipe(Config.withDefault(8787)),
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  publicUrl: optionalString("SVC_PUBLIC_URL"),
  dataDir: Config.String("SVC_DATA_DIR").pipe(Config.withDefault("./.svc-data")),
  signerKey: optionalRedacted("SVC_SIGNER_KEY"),
  catalogPath: optionalString("SVC_CATALOG"),
  databaseUrl: optionalRedacted("DATABASE_URL"),
  serverSecret: optionalRedacted("SVC_SERVER_SECRET"),
  onchainPath: optionalString("SVC_ONCHAIN"),
  feedTtlSeconds: Config.Int("SVC_FEED_TTL_SECONDS").pipe(Config.withDefault(300)),
  permitTtlSeconds: Config.Int("SVC_PERMIT_TTL_SECONDS").pipe(Config.withDefault(120)),
  permitRateLimit: Config.Int("SVC_PERMIT_RATE_LIMIT").pipe(Config.withDefault(600)),
  permitRateWindowSeconds: Config.Int("SVC_PERMIT_RATE_WINDOW_SECONDS").pipe(Config.withDefault(60)),
  sseMaxSubscribers: Config.Int("SVC_SSE_MAX_SUBSCRIBERS").pipe(Config.withDefault(10_000)),
  sseHeartbeatMs: Config.Int("SVC_SSE_HEARTBEAT_MS").pipe(Config.withDefault(15_000)),
  logLevel: Config.Literals(["trace", "debug", "info", "warning", "error", "none"], "SVC_LOG_LEVEL").pipe(
    Config.withDefault("info" as const)
  ),
  profile: Config.option(Config.Literals(["production", "demo", "test"], "SVC_PROFILE")).pipe(
    Config.map(Option.getOrUndefined)
  ),
  connectors: Config.option(Config.String("SVC_CONNECTORS")).pipe(
    Config.map(Option.match({
      onNone: () => undefined,
      onSome: (list) => list.split(",").map((name) => name.trim()).filter((name) => name.length > 0)
    }))
  ),
  aggregatorRateLimit: Config.Int("SVC_AGGREGATOR_RATE_LIMIT").pipe(Config.withDefault(120)),
  aggregatorQuoteBuildRateLimit: Config.Int("SVC_AGGREGATOR_QUOTE_BUILD_RATE_LIMIT").pipe(Config.withDefault(20)),
  aggregatorRateWindowSeconds: Config.Int("SVC_AGGREGATOR_RATE_WINDOW_SECONDS").pipe(Config.withDefault(60)),
  aggregatorOrigins: Config.String("SVC_AGGREGATOR_ORIGINS").pipe(
    Config.withDefault(""),
    Config.map((list) => list.split(",").map((o) => o.trim()).filter((o) => o.length > 0))
  ),
  quoteTtlSeconds: Config.option(Config.Int("SVC_QUOTE_TTL_SECONDS")).pipe(Config.map(Option.getOrUndefined)),
  pricing: Config.Literals(["static", "oracle"], "SVC_PRICING").pipe(Config.withDefault("static" as const)),
  oracleMaxAgeSeconds: Config.Int("SVC_ORACLE_MAX_AGE_SECONDS").pipe(Config.withDefault(3600)),
  oracleMaxDeviationBps: Config.String("SVC_ORACLE_MAX_DEVIATION_BPS").pipe(
    Config.withDefault("1000"),
    Config.map((v) => v.trim() === "off" ? null : /^[0-9]{1,5}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN)
  ),
  quoteToleranceBps: Config.Int("SVC_QUOTE_TOLERANCE_BPS").pipe(Config.withDefault(50)),
  marketPollMs: Config.Int("SVC_MARKET_POLL_MS").pipe(Config.withDefault(5000)),
  permitRetentionDays: Config.Int("SVC_PERMIT_RETENTION_DAYS").pipe(Config.withDefault(90)),
  statusLists: Config.Literals(["all", "address", "none"], "SVC_STATUS_LISTS").pipe(Config.withDefault("all" as const)),
  metricsPort: Config.option(Config.Int("SVC_METRICS_PORT")).pipe(Config.map(Option.getOrUndefined)),
  metricsHost: Config.String("SVC_METRICS_HOST").pipe(Config.withDefault("127.0.0.1")),
  holdShareClientBps: bpsOrOff("SVC_HOLD_SHARE_CLIENT_BPS", "2500"),
  holdSharePayerBps: bpsOrOff("SVC_HOLD_SHARE_PAYER_BPS", "5000"),
  redisUrl: optionalRedacted("REDIS_URL").pipe(Config.map(Option.getOrUndefined)),
  redisPrefix: Config.String("SVC_REDIS_PREFIX").pipe(Config.withDefault("svc:")),
  // parsed by validate, which names the key in its error
  trustedProxies: Config.String("SVC_TRUSTED_PROXIES").pipe(Config.withDefault("")),
  // unset: derived from the open-file limit when the server starts
  maxConnections: Config.option(Config.Int("SVC_MAX_CONNECTIONS")).pipe(Config.map(Option.getOrUndefined)),
  maxConnectionsPerClient: Config.Int("SVC_MAX_CONNECTIONS_PER_CLIENT").pipe(Config.withDefault(128)),
  headersTimeoutSeconds: Config.Int("SVC_HEADERS_TIMEOUT_SECONDS").pipe(Config.withDefault(10)),
  requestTimeoutSeconds: Config.Int("SVC_REQUEST_TIMEOUT_SECONDS").pipe(Config.withDefault(30)),
  sseMaxSubscribersPerClient: Config.Int("SVC_SSE_MAX_SUBSCRIBERS_PER_CLIENT").pipe(Config.withDefault(32)),
  sseMaxLifetimeSeconds: Config.Int("SVC_SSE_MAX_LIFETIME_SECONDS").pipe(Config.withDefault(1800)),
  sseBacklogBytes: Config.Int("SVC_SSE_BACKLOG_BYTES").pipe(Config.withDefault(65_536))
})

const check = (ok: boolean, message: string) => ok ? Effect.void : Effect.fail(new ConfigInvalid({ message }))

const validate = (config: Omit<ServerConfig, "trustedProxies"> & { readonly trustedProxies: string }) =>
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
        [config.holdSharePayerBps, "SVC_HOLD_SHARE_PAYER_BPS"]
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
      config.marketPollMs === undefined || (config.marketPollMs >= 100 && config.marketPollMs <= 3_600_000),
      "SVC_MARKET_POLL_MS: 100 to 3600000"
    )
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
    if (Option.isSome(config.databaseUrl)) {
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
    return {
      ...config,
      publicUrl: Option.map(config.publicUrl, (u) => u.replace(/\/+$/, "")),
      trustedProxies: trustedProxies.success
    }
  })

/**
 * The configuration source of the server: the environment first, then the
 * `SVC_CONFIG` file (a JSON object with the same key names; its `connectors`
 * list is read as `SVC_CONNECTORS`). Connector plug-ins read their own keys
 * from it.
 *
 * @category running
 * @since 0.1.0
 */
export const provider: Effect.Effect<ConfigProvider.ConfigProvider, ConfigInvalid, FileSystem.FileSystem> = Effect.gen(
  function*() {
    const env = yield* ConfigProvider.ConfigProvider
    const configPath = yield* optionalString("SVC_CONFIG").parse(env).pipe(
      Effect.mapError((e) => new ConfigInvalid({ message: `SVC_CONFIG: ${e.message}` }))
    )
    if (Option.isNone(configPath)) return env
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(configPath.value).pipe(
      Effect.mapError(() => new ConfigInvalid({ message: `SVC_CONFIG: cannot read ${configPath.value}` }))
    )
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: () => new ConfigInvalid({ message: `SVC_CONFIG: ${configPath.value} is not JSON` })
    })
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      return yield* new ConfigInvalid({ message: `SVC_CONFIG: ${configPath.value} must hold a JSON object` })
    }
    const { connectors, ...rest } = json as Record<string, unknown>
    const flat: Record<string, string> = Object.fromEntries(
      Object.entries(rest).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)])
    )
    if (connectors !== undefined) {
      if (!Array.isArray(connectors) || !connectors.every((c) => typeof c === "string")) {
        return yield* new ConfigInvalid({ message: `SVC_CONFIG: connectors must be a list of package names` })
      }
      if (flat.SVC_CONNECTORS !== undefined) {
        return yield* new ConfigInvalid({ message: `SVC_CONFIG: give connectors or SVC_CONNECTORS, not both` })
      }
      flat.SVC_CONNECTORS = connectors.join(",")
    }
    return ConfigProvider.orElse(env, ConfigProvider.fromUnknown(flat))
  }
)

/**
 * Reads and validates the server's keys from a configuration source.
 *
 * @category running
 * @since 0.1.0
 */
export const fromProvider = (source: ConfigProvider.ConfigProvider): Effect.Effect<ServerConfig, ConfigInvalid> =>
  serverConfig.parse(source).pipe(
    Effect.mapError((e) => new ConfigInvalid({ message: e.message.split("\n").join("; ") })),
    Effect.flatMap(validate)
  )

/**
 * Loads and validates the configuration: environment first, then the `SVC_CONFIG`
 * file for keys the environment does not set.
 *
 * @category running
 * @since 0.1.0
 */
export const load: Effect.Effect<ServerConfig, ConfigInvalid, FileSystem.FileSystem> = Effect.flatMap(
  provider,
  fromProvider
)
