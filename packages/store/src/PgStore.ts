/**
 * The PostgreSQL store, through `@effect/sql-pg` (a pool of connections).
 *
 * Concurrent reservations are serialized by a row lock on the asset's
 * inventory row (`SELECT ... FOR UPDATE`), transitions by a row lock on the
 * permit and then on the inventory row, so several connections, or several
 * processes, never over-reserve.
 *
 * Every call has a time limit (`StoreTimeouts`): a database whose connections
 * stay open but silent fails a request's store call within `timeoutMillis`
 * (default 1 s) instead of hanging it, while a busy one that keeps answering
 * is waited for (at most 10 s). The sessions also carry the server's
 * own limits, `statement_timeout` and `idle_in_transaction_session_timeout`
 * (the background limit, default 30 s), so that a statement or a transaction
 * a client gave up on does not hold its locks.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { Store, StoreError } from "@svc/core/Store"
import { Effect, Layer, type Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { migrate } from "./internal/migrations.ts"
import * as SqlStore from "./internal/sqlStore.ts"
import * as StoreTimeouts from "./StoreTimeouts.ts"

/**
 * Options of {@link layer}.
 *
 * @category models
 * @since 0.1.0
 */
export interface PgStoreOptions {
  /** A postgres:// connection URL. */
  readonly url: Redacted.Redacted<string>
  /**
   * A schema for the store's tables: created when missing and used as the
   * connections' search_path (lowercase letters, digits and `_`). Default: the
   * server's search_path (normally `public`).
   */
  readonly schema?: string | undefined
  /** Pool size (default 10). */
  readonly maxConnections?: number | undefined
  /**
   * How long a store call a request waits for (a free connection, the
   * statements, their answers) may go on while the database answers nothing,
   * milliseconds: past it the call fails (`StoreTimeouts`). Default 1000.
   */
  readonly timeoutMillis?: number | undefined
  /** Limit of the other store calls, and the sessions' statement and idle-transaction timeouts, milliseconds. Default 30000. */
  readonly backgroundTimeoutMillis?: number | undefined
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/**
 * Connects (and migrates); the pool closes with the scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: PgStoreOptions) =>
  Effect.gen(function*() {
    const schema = options.schema
    if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
      return yield* Effect.fail(new Error(`invalid schema name ${JSON.stringify(schema)}: use [a-z_][a-z0-9_]*`))
    }
    const background = Math.max(1, options.backgroundTimeoutMillis ?? StoreTimeouts.DEFAULT_BACKGROUND_TIMEOUT_MILLIS)
    const sql = yield* PgClient.make({
      url: options.url,
      maxConnections: options.maxConnections ?? 10,
      applicationName: "svc-store",
      startupParameters: {
        ...(schema === undefined ? {} : { search_path: schema }),
        statement_timeout: String(background),
        idle_in_transaction_session_timeout: String(background)
      }
    }).pipe(Effect.provide(Reactivity.layer))
    if (schema !== undefined) {
      yield* sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`).pipe(
        // a concurrent creator of the same schema won the race
        Effect.catchIf((e) => e.reason._tag === "UniqueViolation", () => Effect.void)
      )
    }
    // a migration (an index on a large table) may take longer than a statement may
    const transaction = SqlStore.makeTransaction(sql, SqlStore.pg)
    yield* migrate(
      sql,
      SqlStore.pg,
      (effect) => transaction(Effect.andThen(sql`SET LOCAL statement_timeout = 0`, effect))
    )
    return Store.of(
      StoreTimeouts.bounded(SqlStore.make({ sql, dialect: SqlStore.pg, kind: "postgres", spanPrefix: "PgStore" }), {
        requestMillis: options.timeoutMillis,
        backgroundMillis: background
      })
    )
  }).pipe(
    Effect.mapError((cause) => new StoreError({ operation: "open", cause })),
    Effect.withSpan("PgStore.open")
  )

/**
 * The {@link Store} on a PostgreSQL database.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: PgStoreOptions): Layer.Layer<Store, StoreError> => Layer.effect(Store, make(options))
