/**
 * The server's settings: every key, its group, its default (or what being
 * unset means) and its meaning, the one table the configuration reads its keys
 * and defaults from, `svc serve --help` prints and docs/operations.md
 * documents. Internal: `ServerConfig` re-exports the public names.
 *
 * @since 0.2.0
 */
import { DEFAULT_CONNECTORS } from "../ConnectorLoader.ts"

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

/** The keys with a default in the table. */
export type KeyWithDefault = { [K in SettingKey]: typeof SETTINGS[K] extends { readonly default: string } ? K : never }[
  SettingKey
]

/** The default of a key, from the table. */
export const defaultOf = <K extends KeyWithDefault>(key: K): typeof SETTINGS[K]["default"] => SETTINGS[key].default

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
