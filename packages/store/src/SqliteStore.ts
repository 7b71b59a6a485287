/**
 * The embedded store: SQLite through Node 24's built-in `node:sqlite`, with the
 * store's own small `SqlClient` over it (`internal/sqliteClient.ts`).
 *
 * One connection per process, shared through the client's semaphore; every
 * transaction begins with `BEGIN IMMEDIATE`. The database runs in WAL mode with
 * `synchronous = FULL`, so a committed permit (a 201) survives a crash or power
 * loss, `foreign_keys = ON` and a busy timeout for other processes holding the
 * write lock (backups, the admin CLI).
 *
 * @since 0.1.0
 */
import { Store, StoreError } from "@svc/core/Store"
import { Effect, Layer } from "effect"
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { migrate } from "./internal/migrations.ts"
import * as SqliteClient from "./internal/sqliteClient.ts"
import * as SqlStore from "./internal/sqlStore.ts"

/**
 * Options of {@link layer}.
 *
 * @category models
 * @since 0.1.0
 */
export interface SqliteStoreOptions {
  /** Path of the database file (its directory is created when missing), or ":memory:". */
  readonly filename: string
  /** How long a statement waits for another process's write lock (default 5000 ms). */
  readonly busyTimeoutMillis?: number | undefined
}

/** `PRAGMA synchronous` answers 2 for FULL. */
const SYNCHRONOUS_FULL = 2

/**
 * The database holds addresses, envelopes and quote tokens: a directory this
 * creates is private to the user (0700; an existing one keeps its mode, it may
 * be shared), and the database files are 0600, created so or tightened.
 */
const preparePrivateFile = (file: string) => {
  const dir = dirname(file)
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (existsSync(file)) chmodSync(file, 0o600)
  else closeSync(openSync(file, "wx", 0o600))
}

const isFile = (filename: string): boolean =>
  filename !== ":memory:" && filename !== "" && !filename.startsWith("file:")

/**
 * Opens (and migrates) the database; the connection closes with the scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: SqliteStoreOptions) =>
  Effect.gen(function*() {
    if (isFile(options.filename)) yield* Effect.try(() => preparePrivateFile(resolve(options.filename)))
    const sql = yield* SqliteClient.make({ filename: options.filename })
    const busyTimeout = Math.max(0, Math.floor(options.busyTimeoutMillis ?? 5000))
    // the client sets no PRAGMA of its own; a ":memory:" database answers "memory" to WAL. The busy
    // timeout comes first: switching to WAL takes a lock that another process opening the same file
    // (svc admin next to svc serve) may hold for a moment
    yield* sql.unsafe(`PRAGMA busy_timeout = ${busyTimeout}`)
    yield* sql.unsafe("PRAGMA journal_mode = WAL")
    yield* sql.unsafe("PRAGMA synchronous = FULL")
    yield* sql.unsafe("PRAGMA foreign_keys = ON")
    // read the settings back: a store that would not be durable refuses to open
    const settings = {
      journal_mode: (yield* sql<Record<string, unknown>>`PRAGMA journal_mode`)[0]?.["journal_mode"],
      synchronous: Number((yield* sql<Record<string, unknown>>`PRAGMA synchronous`)[0]?.["synchronous"]),
      foreign_keys: Number((yield* sql<Record<string, unknown>>`PRAGMA foreign_keys`)[0]?.["foreign_keys"])
    }
    const expectedJournal = isFile(options.filename) ? "wal" : settings.journal_mode
    if (
      settings.journal_mode !== expectedJournal || settings.synchronous !== SYNCHRONOUS_FULL ||
      settings.foreign_keys !== 1
    ) {
      return yield* Effect.fail(new Error(`SQLite settings not applied: ${JSON.stringify(settings)}`))
    }
    // SQLite creates the WAL and shared-memory files with the database's mode; make sure of it
    if (isFile(options.filename)) {
      const file = resolve(options.filename)
      yield* Effect.try(() => {
        for (const f of [`${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600)
      })
    }
    yield* migrate(sql, SqlStore.sqlite, SqlStore.makeTransaction(sql, SqlStore.sqlite))
    return Store.of(SqlStore.make({ sql, dialect: SqlStore.sqlite, kind: "sqlite", spanPrefix: "SqliteStore" }))
  }).pipe(
    Effect.mapError((cause) => new StoreError({ operation: "open", cause })),
    Effect.withSpan("SqliteStore.open")
  )

/**
 * The {@link Store} on a SQLite file.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: SqliteStoreOptions): Layer.Layer<Store, StoreError> => Layer.effect(Store, make(options))
