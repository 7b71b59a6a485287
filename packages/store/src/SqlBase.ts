/**
 * The SQL base the stores share: the whole `Store` contract in SQL that
 * SQLite and PostgreSQL both run, its versioned migrations, and the
 * {@link Dialect} that says what differs between databases. `SqliteStore` and
 * `PgStore` are this base with a client and a dialect; a store on another SQL
 * database is one package that brings an Effect `SqlClient` and a dialect:
 *
 * ```ts
 * import * as SqlBase from "@svc/store/SqlBase"
 *
 * const dialect: SqlBase.Dialect = { ...SqlBase.pg, name: "mydb", migrationLock: undefined }
 * const store = SqlBase.open({ sql, dialect, kind: "mydb", spanPrefix: "MyDbStore" })
 * ```
 *
 * The differences a dialect expresses: how a transaction begins (SQLite's
 * `BEGIN IMMEDIATE`), row locks on the reads that reserve inventory (`FOR
 * UPDATE`), whether a locked read sees what a writer it waited for committed
 * (READ COMMITTED: the idempotency key is read again), the lock that
 * serializes concurrent migrations, and JSON extraction in a migration. Every
 * other statement is written in the SQL the two built-in databases share
 * (TEXT decimals for amounts, BIGINT milliseconds); a database that refuses one
 * of them needs a new member here, not a fork of the statements. Run
 * `@svc/store/testing/StoreContract` against the result.
 *
 * @since 0.1.0
 */
import type { StoreShape } from "@svc/core/Store"
import { Store, StoreError } from "@svc/core/Store"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import * as Migrations from "./internal/migrations.ts"
import * as SqlStore from "./internal/sqlStore.ts"

/**
 * What differs between the SQL databases a store runs on.
 *
 * @category models
 * @since 0.1.0
 */
export type Dialect = SqlStore.Dialect

/**
 * Runs an effect in one transaction of a dialect.
 *
 * @category models
 * @since 0.1.0
 */
export type Transaction = SqlStore.Transaction

/**
 * What the base needs: an open SQL client, its dialect, the store's `kind`
 * and the prefix of its span names.
 *
 * @category models
 * @since 0.1.0
 */
export type MakeOptions = SqlStore.MakeOptions

/**
 * SQLite: `BEGIN IMMEDIATE`, no row locks, `json_extract`.
 *
 * @category constants
 * @since 0.1.0
 */
export const sqlite: Dialect = SqlStore.sqlite

/**
 * PostgreSQL: row locks, READ COMMITTED re-reads, an advisory lock around
 * migrations, `jsonb` extraction.
 *
 * @category constants
 * @since 0.1.0
 */
export const pg: Dialect = SqlStore.pg

/**
 * The version of the newest migration this release knows.
 *
 * @category constants
 * @since 0.1.0
 */
export const latestVersion: number = Migrations.latestVersion

/**
 * The transaction of a dialect on a client.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeTransaction: (sql: SqlClient.SqlClient, dialect: Dialect) => Transaction = SqlStore.makeTransaction

/**
 * Applies the pending migrations in one transaction (a database newer than
 * this release is refused); returns the versions applied.
 *
 * @category operations
 * @since 0.1.0
 */
export const migrate: (
  sql: SqlClient.SqlClient,
  dialect: Dialect,
  transaction: Transaction
) => Effect.Effect<ReadonlyArray<number>, unknown> = Migrations.migrate

/**
 * The store on an open, migrated client.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: (options: MakeOptions) => StoreShape = SqlStore.make

/**
 * Migrates the database of an open client, then gives the store on it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const open = (options: MakeOptions): Effect.Effect<Store["Service"], StoreError> =>
  migrate(options.sql, options.dialect, makeTransaction(options.sql, options.dialect)).pipe(
    Effect.map(() => Store.of(make(options))),
    Effect.mapError((cause) => new StoreError({ operation: "open", cause })),
    Effect.withSpan(`${options.spanPrefix}.open`)
  )
