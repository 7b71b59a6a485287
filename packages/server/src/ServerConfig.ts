/**
 * Server configuration, read from the environment and, for keys the environment
 * does not set, from the JSON file named by `SVC_CONFIG` (same key names).
 *
 * Every key, its default and its meaning are in {@link SETTINGS}: the table the
 * configuration reads its keys and defaults from, and the list `svc serve --help`
 * prints ({@link settingsHelp}).
 *
 * @since 0.1.0
 */
import { Config, ConfigProvider, Data, Effect, FileSystem, Option, Redacted, Result } from "effect"
import type { IpNetwork } from "effect/net"
import { DEFAULT_HEADER, parseHeaderName, parseTrustedProxies } from "./ClientAddress.ts"
import { DEFAULT_CONNECTORS, validateNames } from "./ConnectorLoader.ts"
import * as PluginChoice from "./PluginChoice.ts"

/**
 * A configuration that cannot start the server, with a message naming the key.
 *
 * @category errors
 * @since 0.1.0
 */
export class ConfigInvalid extends Data.TaggedError("ConfigInvalid")<{ readonly message: string }> {}

/**
 * The groups of {@link SETTINGS}, in the order `svc serve --help` lists them.
 *
 * @category constants
 * @since 0.1.0
 */
export const SETTING_GROUPS = [
  "Deployment",
  "Listening",
  "Keys and storage",
  "Pricing",
  "Feed and permits",
  "Aggregator (/v1)",
  "Event stream",
  "Connections",
  "Logs and metrics"
] as const

/**
 * One configuration key of the server.
 *
 * @category models
 * @since 0.1.0
 */
export interface Setting {
  readonly group: typeof SETTING_GROUPS[number]
  /** The value used when the key is not set, written as the environment would give it. */
  readonly default?: string | undefined
  /** What happens when the key is not set, for keys without a default value. */
  readonly unset?: string | undefined
  readonly meaning: string
}

/**
 * Every key the server reads (environment first, then the `SVC_CONFIG` file),
 * with its default and its meaning. The configuration reads its keys and
 * defaults from this table; `svc serve --help` lists it.
 *
 * @category constants
 * @since 0.1.0
 */
export const SETTINGS = {
  SVC_CONFIG: {
    group: "Deployment",
    unset: "none",
    meaning: "JSON file with any of these keys, for those the environment does not set"
  },
  SVC_PAYOUTS_DRY_RUN: {
    group: "Deployment",
    default: "0",
    meaning:
      "1: settlement watches, decides and logs the payouts it would send, signs nothing and stores no transaction"
  },
  PORT: { group: "Listening", default: "8787", meaning: "listening port; 0 picks a free port" },
  HOST: { group: "Listening", default: "127.0.0.1", meaning: "listening address (0.0.0.0: every interface)" },
  SVC_PUBLIC_URL: {
    group: "Listening",
    unset: "http://HOST:PORT",
    meaning: "public base URL used in discovery documents"
  },
  SVC_DATA_DIR: {
    group: "Keys and storage",
    default: "./.svc-data",
    meaning: "data directory (SQLite database, development key, server secret)"
  },
  SVC_SIGNER_KEY: {
    group: "Keys and storage",
    unset: "development key in the data dir",
    meaning: "authority private key, 0x + 64 hex; the production profile takes it only with SVC_ALLOW_RAW_KEYS=1"
  },
  SVC_SIGNER_KEYSTORE: {
    group: "Keys and storage",
    unset: "none",
    meaning:
      "the authority key in an encrypted keystore file (svc keys new), unlocked with SVC_KEYSTORE_PASSWORD_FILE; in place of SVC_SIGNER_KEY"
  },
  SVC_KEYSTORE_PASSWORD_FILE: {
    group: "Keys and storage",
    unset: "none",
    meaning: "file holding the password of the keystores (SVC_SIGNER_KEYSTORE, SVC_PAYOUT_KEYSTORE)"
  },
  SVC_ALLOW_RAW_KEYS: {
    group: "Keys and storage",
    default: "0",
    meaning: "1: the production profile accepts raw keys (SVC_SIGNER_KEY, SVC_PAYOUT_KEY) instead of keystores"
  },
  SVC_SIGNER_PLUGIN: {
    group: "Keys and storage",
    unset: "keystore with SVC_SIGNER_KEYSTORE, else key",
    meaning:
      "the authority's signer: key (SVC_SIGNER_KEY, else the development key), keystore (SVC_SIGNER_KEYSTORE), or a signer plug-in: a package name or path (docs/architecture.md)"
  },
  SVC_STORE: {
    group: "Keys and storage",
    unset: "postgres with DATABASE_URL, else sqlite",
    meaning:
      "the store: sqlite (in the data dir), postgres (DATABASE_URL), or a store plug-in: a package name or path (docs/architecture.md)"
  },
  SVC_COORDINATION: {
    group: "Keys and storage",
    default: "store",
    meaning:
      "which replica publishes and settles: store (the store's own: a lease on PostgreSQL, else this process), single (this process), postgres (a lease on DATABASE_URL), or a coordination plug-in: a package name or path (docs/architecture.md)"
  },
  DATABASE_URL: {
    group: "Keys and storage",
    unset: "SQLite in the data dir",
    meaning: "postgres://... selects PostgreSQL (replicas share it)"
  },
  SVC_STORE_TIMEOUT_MS: {
    group: "Keys and storage",
    default: "1000",
    meaning:
      "PostgreSQL: a request's store call fails (503 STORE_UNAVAILABLE) after waiting this long while the database answers nothing (at most 10 s in all)"
  },
  SVC_SERVER_SECRET: {
    group: "Keys and storage",
    unset: "generated in the data dir",
    meaning: "secret of the quote tokens (at least 32 characters)"
  },
  REDIS_URL: {
    group: "Keys and storage",
    unset: "limits in process memory",
    meaning: "redis:// or rediss:// URL: rate limits shared by every replica; unreachable at start: no start"
  },
  SVC_REDIS_PREFIX: {
    group: "Keys and storage",
    default: "svc:",
    meaning: "prefix of the Redis keys (deployments sharing one Redis use different prefixes)"
  },
  SVC_CATALOG: { group: "Deployment", unset: "the demo catalog", meaning: "catalog file (JSON or YAML)" },
  SVC_ONCHAIN: {
    group: "Deployment",
    unset: "demo placeholders",
    meaning: "on-chain discovery configuration file (JSON or YAML)"
  },
  SVC_PROFILE: {
    group: "Deployment",
    unset: "the catalog's; demo for the demo catalog",
    meaning: "production, demo or test (docs/connectors.md)"
  },
  SVC_CONNECTORS: {
    group: "Deployment",
    unset: DEFAULT_CONNECTORS.join(","),
    meaning: "comma-separated connector packages to load (the SVC_CONFIG file may give a connectors list)"
  },
  SVC_PRICING: {
    group: "Pricing",
    default: "static",
    meaning:
      "static (the catalog's prices), oracle (the catalog's USD price feeds; docs/pricing.md), or a pricing plug-in: a package name or path (docs/architecture.md)"
  },
  SVC_ORACLE_MAX_AGE_SECONDS: {
    group: "Pricing",
    default: "3600",
    meaning: "a price feed round older than this is stale (its routes close)"
  },
  SVC_ORACLE_MAX_DEVIATION_BPS: {
    group: "Pricing",
    default: "1000",
    meaning: "oracle pricing refuses a rate this far from the catalog's price; off disables"
  },
  SVC_QUOTE_TOLERANCE_BPS: {
    group: "Pricing",
    default: "50",
    meaning: "oracle pricing: a permit whose fresh price is this much below the feed's answers QUOTE_CHANGED"
  },
  SVC_MARKET: {
    group: "Pricing",
    default: "catalog",
    meaning:
      "market data (USD prices, source gas): catalog (the catalog's price feeds, read through the connectors), or a market plug-in: a package name or path (docs/architecture.md)"
  },
  SVC_MARKET_POLL_MS: {
    group: "Pricing",
    default: "5000",
    meaning: "how often price feeds and gas prices are read"
  },
  SVC_FEED_TTL_SECONDS: {
    group: "Feed and permits",
    default: "300",
    meaning: "validity of each signed feed (republished when half of it is left)"
  },
  SVC_FEED_RATE_LIMIT: {
    group: "Feed and permits",
    default: "600",
    meaning:
      "feed requests per client per SVC_FEED_RATE_WINDOW_SECONDS (503 FEED_RATE_LIMITED with Retry-After beyond); off disables"
  },
  SVC_FEED_RATE_WINDOW_SECONDS: {
    group: "Feed and permits",
    default: "60",
    meaning: "window of the feed budget"
  },
  SVC_PERMIT_TTL_SECONDS: { group: "Feed and permits", default: "120", meaning: "longest permit validity" },
  SVC_PERMIT_RATE_LIMIT: {
    group: "Feed and permits",
    default: "600",
    meaning: "permit creations per client per SVC_PERMIT_RATE_WINDOW_SECONDS"
  },
  SVC_PERMIT_RATE_WINDOW_SECONDS: {
    group: "Feed and permits",
    default: "60",
    meaning: "window of the permit rate limit"
  },
  SVC_HOLD_SHARE_CLIENT_BPS: {
    group: "Feed and permits",
    default: "2500",
    meaning: "share of a destination asset's inventory one client's unfilled permits may hold; off disables"
  },
  SVC_HOLD_SHARE_PAYER_BPS: { group: "Feed and permits", default: "5000", meaning: "the same for one payer" },
  SVC_HOLD_SHARE_NEW_PAYERS_BPS: {
    group: "Feed and permits",
    default: "5000",
    meaning: "the same for all payers without a completed fill together; off disables"
  },
  SVC_PERMIT_RETENTION_DAYS: {
    group: "Feed and permits",
    default: "90",
    meaning: "terminal permits are deleted this long after their last change; 0 keeps them"
  },
  SVC_AGGREGATOR_RATE_LIMIT: {
    group: "Aggregator (/v1)",
    default: "120",
    meaning: "/v1 requests per client per SVC_AGGREGATOR_RATE_WINDOW_SECONDS"
  },
  SVC_AGGREGATOR_QUOTE_BUILD_RATE_LIMIT: {
    group: "Aggregator (/v1)",
    default: "20",
    meaning: "of those, quote and build POSTs (each build stage counts)"
  },
  SVC_AGGREGATOR_RATE_WINDOW_SECONDS: {
    group: "Aggregator (/v1)",
    default: "60",
    meaning: "window of the aggregator rate limits"
  },
  SVC_AGGREGATOR_ORIGINS: {
    group: "Aggregator (/v1)",
    unset: "all allowed",
    meaning: "comma-separated browser Origins allowed on /v1 (others 403)"
  },
  SVC_QUOTE_TTL_SECONDS: {
    group: "Aggregator (/v1)",
    unset: "none",
    meaning: "caps a quote's validity (always capped by route, feed and pricing)"
  },
  SVC_STATUS_LISTS: {
    group: "Aggregator (/v1)",
    default: "all",
    meaning: "/v1/status list lookups: all, address (a userAddress's own history) or none"
  },
  SVC_SSE_MAX_SUBSCRIBERS: {
    group: "Event stream",
    default: "10000",
    meaning: "concurrent event-stream subscribers (503 beyond)"
  },
  SVC_SSE_MAX_SUBSCRIBERS_PER_CLIENT: {
    group: "Event stream",
    default: "32",
    meaning: "concurrent subscribers of one client address (503 beyond)"
  },
  SVC_SSE_HEARTBEAT_MS: { group: "Event stream", default: "15000", meaning: "heartbeat period" },
  SVC_SSE_MAX_LIFETIME_SECONDS: {
    group: "Event stream",
    default: "1800",
    meaning: "a stream is ended after this and its client reconnects with Last-Event-ID; 0: no limit"
  },
  SVC_SSE_BACKLOG_BYTES: {
    group: "Event stream",
    default: "65536",
    meaning: "floor of a subscriber's backlog bound (unsent and unacknowledged bytes)"
  },
  SVC_TRUSTED_PROXIES: {
    group: "Connections",
    unset: "none",
    meaning:
      "comma-separated addresses or CIDR ranges of the proxies in front of svc; from them the client is read from SVC_CLIENT_ADDRESS_HEADER"
  },
  SVC_CLIENT_ADDRESS_HEADER: {
    group: "Connections",
    default: "x-forwarded-for",
    meaning:
      "the one header a trusted proxy writes the client address in (x-forwarded-for, forwarded, x-real-ip, ...); no other is read"
  },
  SVC_MAX_CONNECTIONS: {
    group: "Connections",
    unset: "12000, at most the open-file limit minus 256",
    meaning: "open TCP connections; one beyond is closed at once"
  },
  SVC_MAX_CONNECTIONS_PER_CLIENT: {
    group: "Connections",
    default: "128",
    meaning: "open connections of one peer (from a trusted proxy: concurrent requests of one client)"
  },
  SVC_HEADERS_TIMEOUT_SECONDS: {
    group: "Connections",
    default: "10",
    meaning: "a request's headers must arrive within this (408 and close)"
  },
  SVC_REQUEST_TIMEOUT_SECONDS: {
    group: "Connections",
    default: "30",
    meaning: "a whole request must arrive within this (408 and close); responses are not limited"
  },
  SVC_LOG_LEVEL: {
    group: "Logs and metrics",
    default: "info",
    meaning: "minimum level of the JSON log lines on standard error: trace, debug, info, warning, error, none"
  },
  SVC_METRICS_PORT: {
    group: "Logs and metrics",
    unset: "off",
    meaning: "Prometheus metrics at http://SVC_METRICS_HOST:port/metrics, a listener of their own"
  },
  SVC_METRICS_HOST: { group: "Logs and metrics", default: "127.0.0.1", meaning: "address of the metrics listener" }
} as const satisfies Record<string, Setting>

/**
 * A key of {@link SETTINGS}.
 *
 * @category models
 * @since 0.1.0
 */
export type SettingKey = keyof typeof SETTINGS

type KeyWithDefault = { [K in SettingKey]: typeof SETTINGS[K] extends { readonly default: string } ? K : never }[
  SettingKey
]

/** The default of a key, from the table. */
const defaultOf = <K extends KeyWithDefault>(key: K): typeof SETTINGS[K]["default"] => SETTINGS[key].default

/**
 * The settings as help text: one line per key, `NAME (default) meaning`, under
 * the name of its group.
 *
 * @category running
 * @since 0.1.0
 */
export const settingsHelp = (indent: string = ""): string => {
  const entries = Object.entries(SETTINGS) as Array<[SettingKey, Setting]>
  return SETTING_GROUPS.map((group) =>
    [
      `${indent}${group}`,
      ...entries.filter(([, s]) => s.group === group).map(([key, s]) =>
        `${indent}  ${key} (${s.default ?? s.unset}) ${s.meaning}`
      )
    ].join("\n")
  ).join("\n")
}

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
