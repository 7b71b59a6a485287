/**
 * Server configuration, read from the environment and, for keys the environment
 * does not set, from the JSON file named by `SVC_CONFIG` (same key names).
 *
 * Every key, its default and its meaning are in {@link SETTINGS}: the table the
 * configuration reads its keys and defaults from, and the list `svc serve --help`
 * prints ({@link settingsHelp}). By concern: the table in `internal/settings.ts`,
 * the checks a parsed configuration passes in `internal/configChecks.ts`, the
 * parsing and the `SVC_CONFIG` file here; plug-ins read their own keys
 * (`Plugins`).
 *
 * @since 0.1.0
 */
import { Config, ConfigProvider, Effect, FileSystem, Option, type Redacted } from "effect"
import type { IpNetwork } from "effect/net"
import { ConfigInvalid, validate } from "./internal/configChecks.ts"
import { defaultOf, type KeyWithDefault, type SettingKey } from "./internal/settings.ts"

export { ConfigInvalid } from "./internal/configChecks.ts"
export { type Setting, SETTING_GROUPS, type SettingKey, SETTINGS, settingsHelp } from "./internal/settings.ts"

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
  /** The authority key's keystore file (SVC_SIGNER_KEYSTORE), unlocked at start with the password file. */
  readonly signerKeystore?: Option.Option<string> | undefined
  /** The file holding the keystores' password (SVC_KEYSTORE_PASSWORD_FILE). */
  readonly keystorePasswordFile?: Option.Option<string> | undefined
  /** Whether the production profile accepts raw keys (SVC_ALLOW_RAW_KEYS=1; default false). */
  readonly allowRawKeys?: boolean | undefined
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
  /** A settlement dry run (SVC_PAYOUTS_DRY_RUN=1): payouts decided and logged, never signed or sent. */
  readonly payoutsDryRun?: boolean | undefined
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
  /**
   * Pricing (SVC_PRICING; default static): `static`, `oracle`, or a pricing
   * plug-in's package name or path.
   */
  readonly pricing?: string | undefined
  /**
   * The store (SVC_STORE): `sqlite`, `postgres`, or a store plug-in's package
   * name or path; unset: postgres with DATABASE_URL, else sqlite.
   */
  readonly store?: string | undefined
  /**
   * The authority's signer (SVC_SIGNER_PLUGIN): `key`, `keystore`, or a signer
   * plug-in's package name or path; unset: keystore with SVC_SIGNER_KEYSTORE, else key.
   */
  readonly signerPlugin?: string | undefined
  /**
   * Coordination of the replicas (SVC_COORDINATION; default store): `store`,
   * `single`, `postgres`, or a coordination plug-in's package name or path.
   */
  readonly coordination?: string | undefined
  /**
   * Market data (SVC_MARKET; default catalog): `catalog` or a market plug-in's
   * package name or path.
   */
  readonly market?: string | undefined
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
  /** The share of all payers without a completed fill together, bps; null: off (default 5000). */
  readonly holdShareNewPayersBps?: number | null | undefined
  /** Feed requests per client per window; null: no budget (SVC_FEED_RATE_LIMIT; default 600). */
  readonly feedRateLimit?: number | null | undefined
  /** Window of the feed budget, seconds (SVC_FEED_RATE_WINDOW_SECONDS; default 60). */
  readonly feedRateWindowSeconds?: number | undefined
  /** PostgreSQL: how long a request's store call may wait while the database answers nothing, milliseconds (SVC_STORE_TIMEOUT_MS; default 1000). */
  readonly storeTimeoutMs?: number | undefined
  /** Redis of the shared rate limits (REDIS_URL); absent: limits in process memory. */
  readonly redisUrl?: Redacted.Redacted<string> | undefined
  /** Prefix of the Redis keys (SVC_REDIS_PREFIX; default `svc:`). */
  readonly redisPrefix?: string | undefined
  /** Proxies whose forwarding headers name the client (SVC_TRUSTED_PROXIES; default none). */
  readonly trustedProxies?: ReadonlyArray<IpNetwork.IpNetwork> | undefined
  /** The header a trusted proxy writes the client in, lowercase (SVC_CLIENT_ADDRESS_HEADER; default x-forwarded-for). */
  readonly clientAddressHeader?: string | undefined
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

const optionalString = (name: SettingKey) => Config.option(Config.String(name))
const optionalRedacted = (name: SettingKey) => Config.option(Config.Redacted(name))
const int = (name: KeyWithDefault) => Config.Int(name).pipe(Config.withDefault(Number(defaultOf(name))))
const optionalInt = (name: SettingKey) => Config.option(Config.Int(name)).pipe(Config.map(Option.getOrUndefined))
const string = (name: KeyWithDefault) => Config.String(name).pipe(Config.withDefault(defaultOf(name)))

/** Basis points 0-10000, or `off` (null); anything else is NaN, refused by validation. */
const bpsOrOff = (name: KeyWithDefault) =>
  string(name).pipe(
    Config.map((v) => v.trim() === "off" ? null : /^[0-9]{1,5}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN)
  )

/** A comma-separated list (empty entries dropped). */
const list = (text: string) => text.split(",").map((item) => item.trim()).filter((item) => item.length > 0)

const serverConfig = Config.all({
  port: int("PORT"),
  host: string("HOST"),
  publicUrl: optionalString("SVC_PUBLIC_URL"),
  dataDir: string("SVC_DATA_DIR"),
  signerKey: optionalRedacted("SVC_SIGNER_KEY"),
  signerKeystore: optionalString("SVC_SIGNER_KEYSTORE"),
  keystorePasswordFile: optionalString("SVC_KEYSTORE_PASSWORD_FILE"),
  allowRawKeys: Config.Literals(["0", "1"], "SVC_ALLOW_RAW_KEYS").pipe(
    Config.withDefault(defaultOf("SVC_ALLOW_RAW_KEYS")),
    Config.map((v) => v === "1")
  ),
  catalogPath: optionalString("SVC_CATALOG"),
  databaseUrl: optionalRedacted("DATABASE_URL"),
  serverSecret: optionalRedacted("SVC_SERVER_SECRET"),
  onchainPath: optionalString("SVC_ONCHAIN"),
  feedTtlSeconds: int("SVC_FEED_TTL_SECONDS"),
  permitTtlSeconds: int("SVC_PERMIT_TTL_SECONDS"),
  permitRateLimit: int("SVC_PERMIT_RATE_LIMIT"),
  permitRateWindowSeconds: int("SVC_PERMIT_RATE_WINDOW_SECONDS"),
  sseMaxSubscribers: int("SVC_SSE_MAX_SUBSCRIBERS"),
  sseHeartbeatMs: int("SVC_SSE_HEARTBEAT_MS"),
  logLevel: Config.Literals(["trace", "debug", "info", "warning", "error", "none"], "SVC_LOG_LEVEL").pipe(
    Config.withDefault(defaultOf("SVC_LOG_LEVEL"))
  ),
  payoutsDryRun: Config.Literals(["0", "1"], "SVC_PAYOUTS_DRY_RUN").pipe(
    Config.withDefault(defaultOf("SVC_PAYOUTS_DRY_RUN")),
    Config.map((v) => v === "1")
  ),
  profile: Config.option(Config.Literals(["production", "demo", "test"], "SVC_PROFILE")).pipe(
    Config.map(Option.getOrUndefined)
  ),
  // unset: undefined, so that the loader's own default applies (the table shows it)
  connectors: Config.option(Config.String("SVC_CONNECTORS")).pipe(
    Config.map(Option.match({ onNone: () => undefined, onSome: list }))
  ),
  aggregatorRateLimit: int("SVC_AGGREGATOR_RATE_LIMIT"),
  aggregatorQuoteBuildRateLimit: int("SVC_AGGREGATOR_QUOTE_BUILD_RATE_LIMIT"),
  aggregatorRateWindowSeconds: int("SVC_AGGREGATOR_RATE_WINDOW_SECONDS"),
  aggregatorOrigins: Config.String("SVC_AGGREGATOR_ORIGINS").pipe(Config.withDefault(""), Config.map(list)),
  quoteTtlSeconds: optionalInt("SVC_QUOTE_TTL_SECONDS"),
  pricing: string("SVC_PRICING").pipe(Config.map((v) => v.trim())),
  coordination: string("SVC_COORDINATION").pipe(Config.map((v) => v.trim())),
  market: string("SVC_MARKET").pipe(Config.map((v) => v.trim())),
  store: optionalString("SVC_STORE").pipe(Config.map((v) => Option.getOrUndefined(v)?.trim())),
  signerPlugin: optionalString("SVC_SIGNER_PLUGIN").pipe(Config.map((v) => Option.getOrUndefined(v)?.trim())),
  oracleMaxAgeSeconds: int("SVC_ORACLE_MAX_AGE_SECONDS"),
  oracleMaxDeviationBps: bpsOrOff("SVC_ORACLE_MAX_DEVIATION_BPS"),
  quoteToleranceBps: int("SVC_QUOTE_TOLERANCE_BPS"),
  marketPollMs: int("SVC_MARKET_POLL_MS"),
  permitRetentionDays: int("SVC_PERMIT_RETENTION_DAYS"),
  statusLists: Config.Literals(["all", "address", "none"], "SVC_STATUS_LISTS").pipe(
    Config.withDefault(defaultOf("SVC_STATUS_LISTS"))
  ),
  metricsPort: optionalInt("SVC_METRICS_PORT"),
  metricsHost: string("SVC_METRICS_HOST"),
  holdShareClientBps: bpsOrOff("SVC_HOLD_SHARE_CLIENT_BPS"),
  holdSharePayerBps: bpsOrOff("SVC_HOLD_SHARE_PAYER_BPS"),
  holdShareNewPayersBps: bpsOrOff("SVC_HOLD_SHARE_NEW_PAYERS_BPS"),
  storeTimeoutMs: int("SVC_STORE_TIMEOUT_MS"),
  feedRateLimit: string("SVC_FEED_RATE_LIMIT").pipe(
    Config.map((v) => v.trim() === "off" ? null : /^[0-9]{1,9}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN)
  ),
  feedRateWindowSeconds: int("SVC_FEED_RATE_WINDOW_SECONDS"),
  redisUrl: optionalRedacted("REDIS_URL").pipe(Config.map(Option.getOrUndefined)),
  redisPrefix: string("SVC_REDIS_PREFIX"),
  // parsed by validate, which names the key in its error
  trustedProxies: Config.String("SVC_TRUSTED_PROXIES").pipe(Config.withDefault("")),
  clientAddressHeader: string("SVC_CLIENT_ADDRESS_HEADER"),
  // unset: derived from the open-file limit when the server starts
  maxConnections: optionalInt("SVC_MAX_CONNECTIONS"),
  maxConnectionsPerClient: int("SVC_MAX_CONNECTIONS_PER_CLIENT"),
  headersTimeoutSeconds: int("SVC_HEADERS_TIMEOUT_SECONDS"),
  requestTimeoutSeconds: int("SVC_REQUEST_TIMEOUT_SECONDS"),
  sseMaxSubscribersPerClient: int("SVC_SSE_MAX_SUBSCRIBERS_PER_CLIENT"),
  sseMaxLifetimeSeconds: int("SVC_SSE_MAX_LIFETIME_SECONDS"),
  sseBacklogBytes: int("SVC_SSE_BACKLOG_BYTES")
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
