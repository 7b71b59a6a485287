/**
 * The PostgreSQL store, through `@effect/sql-pg` (a pool of connections).
 *
 * Concurrent reservations are serialized by a row lock on the asset's
 * inventory row (`SELECT ... FOR UPDATE`), transitions by a row lock on the
 * permit and then on the inventory row, so several connections, or several
 * processes, never over-reserve.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { Store, StoreError } from "@svc/core/Store"
import { Effect, Layer, type Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { migrate } from "./internal/migrations.ts"
import * as SqlStore from "./internal/sqlStore.ts"

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
    const sql = yield* PgClient.make({
      url: options.url,
      maxConnections: options.maxConnections ?? 10,
      applicationName: "svc-store",
      ...(schema === undefined ? {} : { startupParameters: { search_path: schema } })
    }).pipe(Effect.provide(Reactivity.layer))
    if (schema !== undefined) {
      yield* sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`).pipe(
        // a concurrent creator of the same schema won the race
        Effect.catchIf((e) => e.reason._tag === "UniqueViolation", () => Effect.void)
      )
    }
    yield* migrate(sql, "pg", SqlStore.makeTransaction(sql, "pg"))
    return Store.of(SqlStore.make({ sql, dialect: "pg", kind: "postgres", spanPrefix: "PgStore" }))
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
