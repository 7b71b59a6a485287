/**
 * A small `SqlClient` (effect's generic SQL client) over Node's built-in
 * `node:sqlite` `DatabaseSync`, for the embedded store.
 *
 * - One connection per client. It is shared through a semaphore of one permit:
 *   a statement outside a transaction holds the permit while it runs, a
 *   transaction holds it from its `BEGIN` to its `COMMIT` / `ROLLBACK`, so the
 *   statements of other fibers wait for the transaction instead of joining it.
 * - Transactions begin with `BEGIN` unless the caller provides
 *   `SqlClient.BeginTransaction` (the store provides `BEGIN IMMEDIATE`); nested
 *   transactions are savepoints, released when they end. A failed `COMMIT` is
 *   rolled back before the connection is used again.
 * - Prepared statements are kept in a least-recently-used cache keyed by their
 *   SQL text (200 by default).
 * - Integers come back as numbers, or as bigints where the fiber provides
 *   `SqlClient.SafeIntegers`; rows are `node:sqlite`'s null-prototype objects.
 * - Every failure is a `SqlError` whose reason is classified from SQLite's
 *   extended result code: UNIQUE and PRIMARY KEY violations are
 *   `UniqueViolation`, BUSY / LOCKED are the retryable `LockTimeoutError`.
 * - The database closes when the scope of {@link make} closes.
 *
 * The client sets no PRAGMA itself: journal mode, `synchronous`, the busy
 * timeout and foreign keys are the caller's choice.
 *
 * @since 0.1.0
 * @internal
 */
import { Effect, Option, Semaphore, Stream } from "effect"
import type { Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, SqlError, Statement } from "effect/sql"
import type { SqlConnection } from "effect/sql"
import { DatabaseSync } from "node:sqlite"
import type { SQLInputValue, StatementSync } from "node:sqlite"

/**
 * Options of {@link make}.
 *
 * @category models
 * @since 0.1.0
 * @internal
 */
export interface SqliteClientOptions {
  /** Path of the database file, ":memory:" or a `file:` URI. */
  readonly filename: string
  /** Opens the database read-only (default false). */
  readonly readonly?: boolean | undefined
  /** How many prepared statements are kept (default 200; 0 prepares every statement anew). */
  readonly prepareCacheSize?: number | undefined
  /**
   * The statement that begins a top-level transaction where no
   * `SqlClient.BeginTransaction` is provided (default "BEGIN", a deferred one).
   */
  readonly beginTransaction?: string | undefined
  /** Extra attributes of the `sql.execute` / `sql.transaction` spans. */
  readonly spanAttributes?: Readonly<Record<string, unknown>> | undefined
}

/**
 * The client: effect's `SqlClient` plus a view of its statement cache.
 *
 * @category models
 * @since 0.1.0
 * @internal
 */
export interface SqliteClient extends SqlClient.SqlClient {
  /** The SQL of the cached prepared statements, least recently used first. */
  readonly cachedStatements: () => ReadonlyArray<string>
}

/**
 * Opens the database and builds the client on it; the database closes with the
 * scope.
 *
 * @category constructors
 * @since 0.1.0
 * @internal
 */
export const make = (options: SqliteClientOptions): Effect.Effect<SqliteClient, SqlError.SqlError, Scope.Scope> =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => new DatabaseSync(options.filename, { readOnly: options.readonly === true }),
        catch: (cause) => toSqlError(cause, "Failed to open the database", "open")
      }),
      (db) => Effect.sync(() => db.isOpen && db.close())
    )
    const cache = makeStatementCache(db, Math.max(0, Math.floor(options.prepareCacheSize ?? 200)))
    yield* Effect.addFinalizer(() => Effect.sync(() => cache.clear()))

    const connection = makeConnection(db, cache)
    const semaphore = yield* Semaphore.make(1)
    const leases = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore,
      isTransaction: () => db.isTransaction
    })
    const reactivity = yield* Reactivity.make
    const client = yield* SqlClient.make({
      acquirer: leases.acquirer,
      borrower: leases.borrower,
      transactionAcquirer: leases.transactionAcquirer,
      onCommitFailure: leases.onCommitFailure,
      isTransaction: leases.isTransaction,
      compiler: Statement.makeCompilerSqlite(),
      driver: "node:sqlite",
      spanAttributes: [...Object.entries(options.spanAttributes ?? {}), ["db.system.name", "sqlite"]],
      // BEGIN, COMMIT, ROLLBACK and the savepoint statements go through the cache
      prepareTransactionControls: true,
      beginTransaction: options.beginTransaction ?? "BEGIN",
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`
    }).pipe(Effect.provideService(Reactivity.Reactivity, reactivity))
    return Object.assign(client, { cachedStatements: () => cache.keys() })
  })

// ---------------------------------------------------------------------------
// prepared statements
// ---------------------------------------------------------------------------

/** A prepared statement and the per-statement modes last set on it. */
interface Prepared {
  readonly statement: StatementSync
  /** Whether the statement yields rows (a SELECT, a PRAGMA that answers, `RETURNING`). */
  readonly returnsRows: boolean
  readBigInts: boolean
  returnArrays: boolean
}

interface StatementCache {
  /** The cached statement for `sql`, prepared (and cached) on a miss; throws what `prepare` throws. */
  readonly get: (sql: string) => Prepared
  readonly keys: () => ReadonlyArray<string>
  readonly clear: () => void
}

const prepare = (db: DatabaseSync, sql: string): Prepared => {
  const statement = db.prepare(sql)
  return { statement, returnsRows: statement.columns().length > 0, readBigInts: false, returnArrays: false }
}

/** A least-recently-used cache on a Map, whose iteration order is insertion order. */
const makeStatementCache = (db: DatabaseSync, capacity: number): StatementCache => {
  const entries = new Map<string, Prepared>()
  return {
    get: (sql) => {
      const hit = entries.get(sql)
      if (hit !== undefined) {
        entries.delete(sql)
        entries.set(sql, hit)
        return hit
      }
      const prepared = prepare(db, sql)
      if (capacity > 0) {
        entries.set(sql, prepared)
        if (entries.size > capacity) entries.delete(entries.keys().next().value!)
      }
      return prepared
    },
    keys: () => [...entries.keys()],
    clear: () => entries.clear()
  }
}

// ---------------------------------------------------------------------------
// the connection
// ---------------------------------------------------------------------------

type Output = "rows" | "arrays" | "raw"

type Transform = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

/** The number of rows an `executeStream` pull reads at most. */
const STREAM_BATCH = 256

const makeConnection = (db: DatabaseSync, cache: StatementCache): SqlConnection.Connection => {
  /**
   * Runs a statement, prepared through the cache unless `unprepared`: its rows
   * (objects, or arrays for "arrays"), or for a statement without result
   * columns `[]` ("raw": the changes and last rowid).
   */
  const run = <A>(sql: string, params: ReadonlyArray<unknown>, output: Output, unprepared: boolean) =>
    Effect.withFiber<A, SqlError.SqlError>((fiber) => {
      let prepared: Prepared
      try {
        prepared = unprepared ? prepare(db, sql) : cache.get(sql)
      } catch (cause) {
        return Effect.fail(toSqlError(cause, "Failed to prepare statement", "prepare"))
      }
      try {
        const { statement } = prepared
        const readBigInts = fiber.getRef(SqlClient.SafeIntegers)
        if (prepared.readBigInts !== readBigInts) {
          statement.setReadBigInts(readBigInts)
          prepared.readBigInts = readBigInts
        }
        const returnArrays = output === "arrays"
        if (prepared.returnArrays !== returnArrays) {
          statement.setReturnArrays(returnArrays)
          prepared.returnArrays = returnArrays
        }
        const args = params as ReadonlyArray<SQLInputValue>
        if (prepared.returnsRows) return Effect.succeed(statement.all(...args) as A)
        const result = statement.run(...args)
        return Effect.succeed(
          (output === "raw" ? { changes: result.changes, lastInsertRowid: result.lastInsertRowid } : []) as A
        )
      } catch (cause) {
        return Effect.fail(toSqlError(cause, "Failed to execute statement", "execute"))
      }
    })

  const rows = (effect: Effect.Effect<ReadonlyArray<object>, SqlError.SqlError>, transformRows: Transform) =>
    transformRows === undefined ? effect : Effect.map(effect, transformRows)

  /**
   * A statement of its own (the cached one may be reset by another query of the
   * same transaction while the stream is read), read in batches and reset when
   * the stream ends.
   */
  const stream = (sql: string, params: ReadonlyArray<unknown>, transformRows: Transform) =>
    Stream.unwrap(
      Effect.withFiber((fiber) =>
        Effect.acquireRelease(
          Effect.try({
            try: () => db.prepare(sql),
            catch: (cause) => toSqlError(cause, "Failed to prepare statement", "prepare")
          }).pipe(
            Effect.flatMap((statement) =>
              Effect.try({
                try: () => {
                  statement.setReadBigInts(fiber.getRef(SqlClient.SafeIntegers))
                  return statement.iterate(...(params as ReadonlyArray<SQLInputValue>))
                },
                catch: (cause) => toSqlError(cause, "Failed to execute statement", "executeStream")
              })
            )
          ),
          (iterator) => Effect.sync(() => iterator.return?.())
        )
      ).pipe(
        Effect.map((iterator) =>
          Stream.paginate(undefined, () =>
            Effect.try({
              try: () => {
                const batch: Array<object> = []
                let next = iterator.next()
                while (!next.done) {
                  batch.push(next.value)
                  if (batch.length === STREAM_BATCH) break
                  next = iterator.next()
                }
                const out = transformRows === undefined ? batch : transformRows(batch)
                return [out, next.done === true ? Option.none() : Option.some(undefined)] as const
              },
              catch: (cause) => toSqlError(cause, "Failed to execute statement", "executeStream")
            }))
        )
      )
    )

  return {
    execute: (sql, params, transformRows) => rows(run(sql, params, "rows", false), transformRows),
    executeRaw: (sql, params) => run(sql, params, "raw", false),
    executeValues: (sql, params) => run(sql, params, "arrays", false),
    executeValuesUnprepared: (sql, params) => run(sql, params, "arrays", true),
    executeUnprepared: (sql, params, transformRows) => rows(run(sql, params ?? [], "rows", true), transformRows),
    executeStream: stream
  }
}

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

// SQLite result codes (https://sqlite.org/rescode.html); `node:sqlite` errors carry the extended code as `errcode`
const SQLITE_PERM = 3
const SQLITE_BUSY = 5
const SQLITE_LOCKED = 6
const SQLITE_CANTOPEN = 14
const SQLITE_CONSTRAINT = 19
const SQLITE_AUTH = 23
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555
const SQLITE_CONSTRAINT_UNIQUE = 2067

const sqliteCode = (cause: unknown): number | undefined => {
  if (typeof cause !== "object" || cause === null || !("errcode" in cause)) return undefined
  return typeof cause.errcode === "number" ? cause.errcode : undefined
}

/** "UNIQUE constraint failed: permits.scope, permits.idempotency_key" names the columns. */
const violatedConstraint = (cause: unknown): string => {
  const message = cause instanceof Error ? cause.message : ""
  const at = message.indexOf("constraint failed:")
  const columns = at === -1 ? "" : message.slice(at + "constraint failed:".length).trim()
  return columns === "" ? "unknown" : columns
}

/**
 * The reason of a failure, from SQLite's extended result code: the table of
 * effect's `classifySqliteError`, with PRIMARY KEY violations counted as unique
 * violations (SQLite reports both as "UNIQUE constraint failed"). Errors that
 * did not come from SQLite (a value that cannot be bound, a closed database)
 * are `UnknownError`.
 */
const classify = (cause: unknown, message: string, operation: string): SqlError.SqlErrorReason => {
  const props = { cause, message, operation }
  const code = sqliteCode(cause)
  if (code === undefined) return new SqlError.UnknownError(props)
  if (code === SQLITE_CONSTRAINT_UNIQUE || code === SQLITE_CONSTRAINT_PRIMARYKEY) {
    return new SqlError.UniqueViolation({ ...props, constraint: violatedConstraint(cause) })
  }
  switch (code & 0xff) {
    case SQLITE_CONSTRAINT:
      return new SqlError.ConstraintError(props)
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return new SqlError.LockTimeoutError(props)
    case SQLITE_CANTOPEN:
      return new SqlError.ConnectionError(props)
    case SQLITE_AUTH:
      return new SqlError.AuthenticationError(props)
    case SQLITE_PERM:
      return new SqlError.AuthorizationError(props)
    default:
      return new SqlError.UnknownError(props)
  }
}

const toSqlError = (cause: unknown, message: string, operation: string): SqlError.SqlError =>
  new SqlError.SqlError({ reason: classify(cause, message, operation) })
