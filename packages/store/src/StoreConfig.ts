/**
 * Picks the store a deployment uses.
 *
 * @since 0.1.0
 */
import * as Coordination from "@svc/core/Coordination"
import type { Store, StoreError } from "@svc/core/Store"
import { Effect, type Layer, Redacted } from "effect"
import { join } from "node:path"
import * as PgCoordination from "./PgCoordination.ts"
import * as PgStore from "./PgStore.ts"
import * as SqliteStore from "./SqliteStore.ts"

/**
 * Options of {@link layerFromUrl}.
 *
 * @category models
 * @since 0.1.0
 */
export interface StoreConfigOptions {
  /** DATABASE_URL: a postgres:// (or postgresql://) URL selects PostgreSQL. */
  readonly databaseUrl?: Redacted.Redacted<string> | undefined
  /** SVC_DATA_DIR: SQLite keeps its database at `<dataDir>/svc.sqlite`. */
  readonly dataDir: string
  /** SVC_STORE_TIMEOUT_MS: PostgreSQL, how long a request's store call may wait while the database answers nothing (`PgStore`). Default 1000. */
  readonly timeoutMillis?: number | undefined
}

/**
 * Whether a database URL selects PostgreSQL.
 *
 * @category validation
 * @since 0.1.0
 */
export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//i.test(url.trim())

/**
 * The SQLite file used when no PostgreSQL URL is configured.
 *
 * @category constructors
 * @since 0.1.0
 */
export const sqliteFilename = (dataDir: string): string => join(dataDir, "svc.sqlite")

/**
 * PostgreSQL for a postgres:// URL, otherwise SQLite at `<dataDir>/svc.sqlite`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFromUrl = (options: StoreConfigOptions): Layer.Layer<Store, StoreError> =>
  options.databaseUrl !== undefined && isPostgresUrl(Redacted.value(options.databaseUrl))
    ? PgStore.layer({ url: options.databaseUrl, timeoutMillis: options.timeoutMillis })
    : SqliteStore.layer({ filename: sqliteFilename(options.dataDir) })

/**
 * How the replicas of a deployment coordinate: on PostgreSQL, an advisory lock
 * elects the leader and LISTEN/NOTIFY carries announcements (any number of
 * replicas, one of them leads); on SQLite, one process leads alone.
 *
 * @category layers
 * @since 0.1.0
 */
export const coordinationFromUrl = (
  options: StoreConfigOptions & {
    /** How often a follower tries to lead and the leader checks its session, milliseconds. Default 1000. */
    readonly checkMillis?: number | undefined
  }
): Layer.Layer<Coordination.Coordination, StoreError> =>
  options.databaseUrl !== undefined && isPostgresUrl(Redacted.value(options.databaseUrl))
    ? PgCoordination.layer({ url: options.databaseUrl, checkMillis: options.checkMillis })
    : Coordination.layerSingle

/**
 * Tells every replica of a deployment that something changed (PostgreSQL:
 * NOTIFY; SQLite: nothing to tell, one process polls its store).
 *
 * @category operations
 * @since 0.1.0
 */
export const announceFromUrl = (
  options: StoreConfigOptions,
  topic: Coordination.Topic,
  payload: string
): Effect.Effect<void, StoreError> =>
  options.databaseUrl !== undefined && isPostgresUrl(Redacted.value(options.databaseUrl))
    ? PgCoordination.announceOnce({ url: options.databaseUrl }, topic, payload)
    : Effect.void
