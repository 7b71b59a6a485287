import { assert, describe, it } from "@effect/vitest"
import { fc } from "@fast-check/vitest"
import { Deferred, Effect, Exit, Fiber, Scope, Stream } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll } from "vitest"
import { scaled } from "../../../test/support/time.ts"
import * as SqliteClient from "../src/internal/sqliteClient.ts"

const dir = mkdtempSync(join(tmpdir(), "svc-sqlite-client-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const NODE = resolve(import.meta.dirname, "../../../node_modules/.bin/node")

let files = 0
const freshFile = () => join(dir, `db-${files++}.sqlite`)

/** A client on a new file in WAL mode, as the store opens it. */
const open = (options: Partial<SqliteClient.SqliteClientOptions> = {}) =>
  Effect.gen(function*() {
    const filename = options.filename ?? freshFile()
    const sql = yield* SqliteClient.make({ ...options, filename })
    yield* sql.unsafe("PRAGMA journal_mode = WAL")
    yield* sql.unsafe("PRAGMA busy_timeout = 5000")
    return { sql, filename }
  })

const immediate = (sql: SqlClient.SqlClient) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  sql.withTransaction(effect).pipe(Effect.provideService(SqlClient.BeginTransaction, "BEGIN IMMEDIATE"))

/** The rows of a query on the file through a connection of its own. */
const readDirect = (filename: string, query: string): Array<Record<string, unknown>> => {
  const db = new DatabaseSync(filename)
  try {
    return db.prepare(query).all().map((row) => ({ ...row }))
  } finally {
    db.close()
  }
}

const plain = (rows: ReadonlyArray<object>) => rows.map((row) => ({ ...row }))

const failureOf = <A, R>(effect: Effect.Effect<A, SqlError.SqlError, R>) =>
  Effect.flip(effect).pipe(
    Effect.tap((error) => Effect.sync(() => assert.isTrue(SqlError.isSqlError(error), String(error))))
  )

/**
 * Another process on the file: announces "ready", takes the write lock with
 * `BEGIN IMMEDIATE` (waiting up to 10 s on the busy timeout), increments the
 * counter it reads, commits and prints what it read and how long it waited.
 */
const COUNTER_CHILD = `
const { DatabaseSync } = require("node:sqlite")
const db = new DatabaseSync(process.argv[1], { timeout: 10000 })
process.stdout.write("ready\\n")
const started = Date.now()
db.exec("BEGIN IMMEDIATE")
const waited = Date.now() - started
const read = db.prepare("SELECT n FROM counter WHERE id = 1").get().n
db.prepare("UPDATE counter SET n = ? WHERE id = 1").run(read + 1)
db.exec("COMMIT")
db.close()
process.stdout.write(JSON.stringify({ read, waited }) + "\\n")
`

const spawnCounterChild = (filename: string) =>
  Effect.gen(function*() {
    const ready = yield* Deferred.make<void>()
    const done = yield* Deferred.make<{ readonly read: number; readonly waited: number }, Error>()
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(NODE, ["-e", COUNTER_CHILD, filename], { stdio: ["ignore", "pipe", "pipe"] })),
      (child) => Effect.sync(() => child.kill("SIGKILL"))
    )
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      if (stdout.startsWith("ready\n")) Deferred.doneUnsafe(ready, Effect.void)
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("exit", (code) => {
      const last = stdout.trim().split("\n").at(-1) ?? ""
      Deferred.doneUnsafe(
        done,
        code === 0 ? Effect.succeed(JSON.parse(last)) : Effect.fail(new Error(`child exited with ${code}: ${stderr}`))
      )
      Deferred.doneUnsafe(ready, Effect.void)
    })
    return { ready: Deferred.await(ready), done: Deferred.await(done) }
  })

describe("SqliteClient", () => {
  it.live("a committed transaction is on disk for another connection; a failed or interrupted one leaves nothing", () =>
    Effect.gen(function*() {
      const { filename, sql } = yield* open()
      yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`
      yield* sql.withTransaction(sql`INSERT INTO t (id, v) VALUES (1, 'committed')`)
      const failed = yield* sql.withTransaction(
        Effect.andThen(sql`INSERT INTO t (id, v) VALUES (2, 'failed')`, Effect.fail("boom" as const))
      ).pipe(Effect.flip)
      assert.strictEqual(failed, "boom")
      const died = yield* sql.withTransaction(
        Effect.andThen(sql`INSERT INTO t (id, v) VALUES (3, 'died')`, Effect.die("defect"))
      ).pipe(Effect.exit)
      assert.isTrue(Exit.isFailure(died))
      const started = yield* Deferred.make<void>()
      const interrupted = yield* sql.withTransaction(
        sql`INSERT INTO t (id, v) VALUES (4, 'interrupted')`.pipe(
          Effect.andThen(Deferred.succeed(started, undefined)),
          Effect.andThen(Effect.never)
        )
      ).pipe(Effect.forkChild)
      yield* Deferred.await(started)
      yield* Fiber.interrupt(interrupted)
      assert.deepStrictEqual(readDirect(filename, "SELECT id, v FROM t ORDER BY id"), [{ id: 1, v: "committed" }])
      // the connection was handed back with no transaction open: this insert commits on its own
      yield* sql`INSERT INTO t (id, v) VALUES (5, 'after')`
      assert.deepStrictEqual(readDirect(filename, "SELECT id FROM t ORDER BY id"), [{ id: 1 }, { id: 5 }])
    }))

  it.live("nested transactions are savepoints: an inner failure undoes only the inner writes", () =>
    Effect.gen(function*() {
      const { filename, sql } = yield* open()
      yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY)`
      const insert = (id: number) => sql`INSERT INTO t (id) VALUES (${id})`
      const ids = sql<{ readonly id: number }>`SELECT id FROM t ORDER BY id`.pipe(
        Effect.map((rows) => rows.map((r) => r.id))
      )
      yield* immediate(sql)(Effect.gen(function*() {
        yield* insert(1)
        const inner = yield* sql.withTransaction(Effect.andThen(insert(2), Effect.fail("inner" as const))).pipe(
          Effect.flip
        )
        assert.strictEqual(inner, "inner")
        assert.deepStrictEqual(yield* ids, [1])
        yield* sql.withTransaction(Effect.andThen(insert(3), sql.withTransaction(insert(4))))
        // a failure two levels down undoes only that level
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* insert(5)
          yield* sql.withTransaction(Effect.andThen(insert(6), Effect.fail("deep"))).pipe(Effect.ignore)
        }))
        assert.deepStrictEqual(yield* ids, [1, 3, 4, 5])
        // nothing is committed before the outermost transaction ends
        assert.deepStrictEqual(readDirect(filename, "SELECT id FROM t"), [])
      }))
      assert.deepStrictEqual(readDirect(filename, "SELECT id FROM t ORDER BY id").map((r) => r["id"]), [1, 3, 4, 5])
      // an outer failure undoes the savepoints that succeeded inside it
      yield* sql.withTransaction(Effect.andThen(sql.withTransaction(insert(7)), Effect.fail("outer"))).pipe(
        Effect.ignore
      )
      assert.deepStrictEqual(yield* ids, [1, 3, 4, 5])
      // and no transaction or savepoint was left open
      yield* sql`BEGIN`
      yield* sql`ROLLBACK`
    }))

  it.live(
    "BEGIN IMMEDIATE takes the write lock up front: another process waits, then reads the committed value",
    () =>
      Effect.gen(function*() {
        const { filename, sql } = yield* open()
        yield* sql`CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`
        yield* sql`INSERT INTO counter (id, n) VALUES (1, 0)`
        const child = yield* immediate(sql)(Effect.gen(function*() {
          const [row] = yield* sql<{ readonly n: number }>`SELECT n FROM counter WHERE id = 1`
          const child = yield* spawnCounterChild(filename)
          yield* child.ready
          // the other process is now blocked in its BEGIN IMMEDIATE
          yield* Effect.sleep("300 millis")
          yield* sql`UPDATE counter SET n = ${row!.n + 1} WHERE id = 1`
          return child
        }))
        const result = yield* child.done.pipe(Effect.timeout("20 seconds"))
        assert.strictEqual(result.read, 1, "the other process read the committed increment")
        assert.isAtLeast(result.waited, 150, "the other process waited for the write lock")
        assert.deepStrictEqual(plain(yield* sql`SELECT n FROM counter`), [{ n: 2 }])
      }),
    { timeout: scaled(60_000) }
  )

  it.live(
    "with a deferred BEGIN another process commits in between; the stale write is a retryable lock error",
    () =>
      Effect.gen(function*() {
        const { filename, sql } = yield* open()
        yield* sql`CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`
        yield* sql`INSERT INTO counter (id, n) VALUES (1, 0)`
        const error = yield* sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<{ readonly n: number }>`SELECT n FROM counter WHERE id = 1`
          const child = yield* spawnCounterChild(filename)
          const result = yield* child.done.pipe(Effect.timeout("20 seconds"), Effect.orDie)
          assert.strictEqual(result.read, 0)
          return yield* sql`UPDATE counter SET n = ${row!.n + 1} WHERE id = 1`
        })).pipe(failureOf)
        assert.strictEqual(error.reason._tag, "LockTimeoutError")
        assert.isTrue(error.isRetryable)
        assert.deepStrictEqual(plain(yield* sql`SELECT n FROM counter`), [{ n: 1 }])
      }),
    { timeout: scaled(60_000) }
  )

  it.live("unique and primary key violations are UniqueViolation, naming the columns", () =>
    Effect.gen(function*() {
      const { sql } = yield* open()
      yield* sql`CREATE TABLE u (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, a TEXT, b TEXT, UNIQUE (a, b))`
      yield* sql`INSERT INTO u (id, email, a, b) VALUES ('1', 'x@example.org', 'a', 'b')`
      const email = yield* failureOf(sql`INSERT INTO u (id, email) VALUES ('2', 'x@example.org')`)
      assert.strictEqual(email.reason._tag, "UniqueViolation")
      if (email.reason._tag === "UniqueViolation") assert.strictEqual(email.reason.constraint, "u.email")
      assert.strictEqual(email.reason.operation, "execute")
      assert.isFalse(email.isRetryable)
      const key = yield* failureOf(sql`INSERT INTO u (id, email) VALUES ('1', 'y@example.org')`)
      assert.strictEqual(key.reason._tag, "UniqueViolation")
      if (key.reason._tag === "UniqueViolation") assert.strictEqual(key.reason.constraint, "u.id")
      // inside a transaction, as the store meets it: the error is the transaction's, and it rolls back
      const pair = yield* failureOf(
        immediate(sql)(Effect.andThen(
          sql`INSERT INTO u (id, email) VALUES ('3', 'z@example.org')`,
          sql`INSERT INTO u (id, email, a, b) VALUES ('4', 'w@example.org', 'a', 'b')`
        ))
      )
      assert.strictEqual(pair.reason._tag, "UniqueViolation")
      if (pair.reason._tag === "UniqueViolation") assert.strictEqual(pair.reason.constraint, "u.a, u.b")
      assert.deepStrictEqual(plain(yield* sql`SELECT id FROM u`), [{ id: "1" }])
    }))

  it.live("other failures are classified SqlErrors, not defects", () =>
    Effect.gen(function*() {
      const { filename, sql } = yield* open()
      yield* sql.unsafe("PRAGMA foreign_keys = ON")
      yield* sql`CREATE TABLE p (id INTEGER PRIMARY KEY)`
      yield* sql`CREATE TABLE c (id INTEGER PRIMARY KEY, p INTEGER NOT NULL REFERENCES p (id))`
      const syntax = yield* failureOf(sql`SELEC 1`)
      assert.strictEqual(syntax.reason._tag, "UnknownError")
      assert.strictEqual(syntax.reason.operation, "prepare")
      assert.include(String((syntax.reason.cause as Error).message), "syntax error")
      const missing = yield* failureOf(sql`SELECT * FROM nowhere`)
      assert.strictEqual(missing.reason._tag, "UnknownError")
      assert.include(String((missing.reason.cause as Error).message), "no such table")
      const notNull = yield* failureOf(sql`INSERT INTO c (id, p) VALUES (1, NULL)`)
      assert.strictEqual(notNull.reason._tag, "ConstraintError")
      const foreignKey = yield* failureOf(sql`INSERT INTO c (id, p) VALUES (1, 42)`)
      assert.strictEqual(foreignKey.reason._tag, "ConstraintError")
      assert.strictEqual(foreignKey.reason.operation, "execute")
      // a value node:sqlite cannot bind
      const unbindable = yield* failureOf(sql.unsafe("SELECT ? AS x", [Symbol("x")]))
      assert.strictEqual(unbindable.reason._tag, "UnknownError")
      assert.strictEqual(unbindable.reason.operation, "execute")
      // another connection holds the write lock and no busy timeout is left: a retryable lock error
      yield* sql.unsafe("PRAGMA busy_timeout = 0")
      const other = new DatabaseSync(filename)
      other.exec("BEGIN IMMEDIATE")
      const busy = yield* failureOf(sql`INSERT INTO p (id) VALUES (1)`).pipe(
        Effect.ensuring(Effect.sync(() => {
          other.exec("COMMIT")
          other.close()
        }))
      )
      assert.strictEqual(busy.reason._tag, "LockTimeoutError")
      assert.isTrue(busy.isRetryable)
      // and nothing is left broken
      yield* sql`INSERT INTO p (id) VALUES (1)`
      assert.deepStrictEqual(plain(yield* sql`SELECT id FROM p`), [{ id: 1 }])
    }))

  it.live("integers are numbers unless SafeIntegers is provided, as with the previous driver", () =>
    Effect.gen(function*() {
      const { sql } = yield* SqliteClient.make({ filename: ":memory:" }).pipe(Effect.map((sql) => ({ sql })))
      const query = sql`SELECT 9007199254740991 AS max, -1 AS minus, 1.5 AS real`
      assert.deepStrictEqual(plain(yield* query), [{ max: 9007199254740991, minus: -1, real: 1.5 }])
      const safe = yield* query.pipe(Effect.provideService(SqlClient.SafeIntegers, true))
      assert.deepStrictEqual(plain(safe), [{ max: 9007199254740991n, minus: -1n, real: 1.5 }])
      // the same cached statement goes back to numbers
      assert.deepStrictEqual(plain(yield* query), [{ max: 9007199254740991, minus: -1, real: 1.5 }])
      const tooBig = yield* failureOf(sql`SELECT 9223372036854775807 AS x`)
      assert.strictEqual(tooBig.reason._tag, "UnknownError")
      const big = yield* sql`SELECT 9223372036854775807 AS x`.pipe(Effect.provideService(SqlClient.SafeIntegers, true))
      assert.deepStrictEqual(plain(big), [{ x: 9223372036854775807n }])
    }))

  it.live("values, raw, unprepared, stream and the statement helpers", () =>
    Effect.gen(function*() {
      const sql = yield* SqliteClient.make({ filename: ":memory:" })
      yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)`
      const raw = yield* sql`INSERT INTO t ${sql.insert([{ id: 1, name: "a" }, { id: 2, name: "b" }])}`.raw
      assert.deepStrictEqual(raw, { changes: 2, lastInsertRowid: 2 })
      const select = sql`SELECT id, name FROM t WHERE ${sql.in("id", [1, 2])} ORDER BY id`
      assert.deepStrictEqual(yield* select.values, [[1, "a"], [2, "b"]])
      // the cached statement answers objects again
      assert.deepStrictEqual(plain(yield* select), [{ id: 1, name: "a" }, { id: 2, name: "b" }])
      assert.deepStrictEqual(plain(yield* sql`SELECT ${sql("name")} FROM t WHERE id = ${2}`), [{ name: "b" }])
      const returning = yield* sql`UPDATE t SET name = ${"c"} WHERE id = 2 RETURNING id, name`
      assert.deepStrictEqual(plain(returning), [{ id: 2, name: "c" }])
      const unprepared = sql`SELECT count(*) AS n FROM t WHERE name = ${"c"}`
      assert.deepStrictEqual(plain(yield* unprepared.unprepared), [{ n: 1 }])
      assert.deepStrictEqual(yield* unprepared.valuesUnprepared, [[1]])
      assert.notInclude(sql.cachedStatements(), "SELECT count(*) AS n FROM t WHERE name = ?")
      // a stream longer than one batch, in order
      yield* sql.unsafe(
        `WITH RECURSIVE n(i) AS (SELECT 3 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
        INSERT INTO t (id, name) SELECT i, 'n' || i FROM n`
      )
      const ids = sql<{ readonly id: number }>`SELECT id FROM t ORDER BY id`
      const streamed = yield* Stream.runCollect(ids.stream)
      assert.deepStrictEqual(streamed.map((r) => r.id), Array.from({ length: 1000 }, (_, i) => i + 1))
      const firstTen = yield* Stream.runCollect(Stream.take(ids.stream, 10))
      assert.strictEqual(firstTen.length, 10)
      const bad = yield* failureOf(Stream.runCollect(sql`SELECT * FROM nowhere`.stream))
      assert.strictEqual(bad.reason.operation, "prepare")
      // the connection is free again after the streams
      assert.deepStrictEqual(plain(yield* sql`SELECT count(*) AS n FROM t`), [{ n: 1000 }])
    }))

  it.live("the statement cache is bounded and evicts the least recently used statement", () =>
    Effect.gen(function*() {
      const small = yield* SqliteClient.make({ filename: ":memory:", prepareCacheSize: 3 })
      const select = (n: number) => small.unsafe<{ readonly v: number }>(`SELECT ${n} AS v`)
      yield* select(1)
      yield* select(2)
      yield* select(3)
      assert.deepStrictEqual(small.cachedStatements(), ["SELECT 1 AS v", "SELECT 2 AS v", "SELECT 3 AS v"])
      yield* select(1)
      yield* select(4)
      assert.deepStrictEqual(small.cachedStatements(), ["SELECT 3 AS v", "SELECT 1 AS v", "SELECT 4 AS v"])
      for (let n = 10; n < 60; n++) assert.deepStrictEqual(plain(yield* select(n)), [{ v: n }])
      assert.strictEqual(small.cachedStatements().length, 3)
      // an evicted statement is prepared again
      assert.deepStrictEqual(plain(yield* select(2)), [{ v: 2 }])

      const byDefault = yield* SqliteClient.make({ filename: ":memory:" })
      for (let n = 0; n < 250; n++) yield* byDefault.unsafe(`SELECT ${n} AS v`)
      assert.strictEqual(byDefault.cachedStatements().length, 200)

      const none = yield* SqliteClient.make({ filename: ":memory:", prepareCacheSize: 0 })
      assert.deepStrictEqual(plain(yield* none`SELECT 1 AS v`), [{ v: 1 }])
      assert.deepStrictEqual(none.cachedStatements(), [])
    }))

  it.live("concurrent fibers are serialized: a statement waits for another fiber's transaction instead of joining it", () =>
    Effect.gen(function*() {
      const { sql } = yield* open()
      yield* sql`CREATE TABLE log (id INTEGER PRIMARY KEY AUTOINCREMENT, who TEXT NOT NULL)`
      const inTransaction = yield* Deferred.make<void>()
      const order: Array<string> = []
      const a = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO log (who) VALUES ('a')`
        yield* Deferred.succeed(inTransaction, undefined)
        yield* Effect.sleep("100 millis")
        order.push("a rolls back")
        return yield* Effect.fail("rollback a")
      })).pipe(Effect.flip, Effect.forkChild)
      yield* Deferred.await(inTransaction)
      // outside any transaction: if it ran on the shared connection now, a's rollback would undo it
      const b = yield* sql`INSERT INTO log (who) VALUES ('b')`.pipe(
        Effect.tap(() => Effect.sync(() => order.push("b inserted"))),
        Effect.forkChild
      )
      assert.strictEqual(yield* Fiber.join(a), "rollback a")
      yield* Fiber.join(b)
      assert.deepStrictEqual(order, ["a rolls back", "b inserted"])
      assert.deepStrictEqual(plain(yield* sql`SELECT who FROM log`), [{ who: "b" }])

      // read-modify-write transactions of many fibers do not interleave
      yield* sql`CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`
      yield* sql`INSERT INTO counter (id, n) VALUES (1, 0)`
      yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        () =>
          immediate(sql)(Effect.gen(function*() {
            const [row] = yield* sql<{ readonly n: number }>`SELECT n FROM counter WHERE id = 1`
            yield* Effect.sleep("1 millis")
            yield* sql`UPDATE counter SET n = ${row!.n + 1} WHERE id = 1`
          })),
        { concurrency: "unbounded", discard: true }
      )
      assert.deepStrictEqual(plain(yield* sql`SELECT n FROM counter`), [{ n: 20 }])
    }))

  it.live("closing the scope closes the database", () =>
    Effect.gen(function*() {
      const filename = freshFile()
      const scope = yield* Scope.make()
      const { sql } = yield* open({ filename }).pipe(Scope.provide(scope))
      yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY)`
      yield* sql`INSERT INTO t (id) VALUES (1)`
      assert.isTrue(existsSync(`${filename}-wal`))
      yield* Scope.close(scope, Exit.void)
      // the last connection to a WAL database checkpoints and removes the log when it closes
      assert.isFalse(existsSync(`${filename}-wal`))
      const closed = yield* failureOf(sql`SELECT id FROM t`)
      assert.include(String((closed.reason.cause as Error).message), "not open")
      assert.deepStrictEqual(readDirect(filename, "SELECT id FROM t"), [{ id: 1 }])
    }))

  it.live(
    "rows of text, integer, blob and null values round-trip through insert and select unchanged (property)",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqliteClient.make({ filename: freshFile() })
        // typed columns, and `v` without a type, which keeps whatever storage class it is given
        yield* sql`CREATE TABLE r (k INTEGER PRIMARY KEY, t TEXT, i INTEGER, b BLOB, v)`
        yield* sql`CREATE TABLE w (k INTEGER PRIMARY KEY, i INTEGER)`
        const run = Effect.runPromiseWith(yield* Effect.context<never>())
        const text = fc.string({ unit: "binary", maxLength: 40 })
        const integer = fc.maxSafeInteger()
        const blob = fc.uint8Array({ maxLength: 40 })
        const row = fc.record({
          t: fc.option(text, { nil: null }),
          i: fc.option(integer, { nil: null }),
          b: fc.option(blob, { nil: null }),
          v: fc.oneof(text, integer, blob, fc.constant(null))
        })
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 20 }), (rows) =>
              run(Effect.gen(function*() {
                const [first, ...rest] = rows.map((r, k) => ({ k, ...r }))
                const keyed = [first!, ...rest] as const
                const back = yield* sql.withTransaction(Effect.gen(function*() {
                  yield* sql`DELETE FROM r`
                  yield* sql`INSERT INTO r ${sql.insert(keyed)}`
                  return yield* sql`SELECT k, t, i, b, v FROM r ORDER BY k`
                }))
                assert.deepStrictEqual(plain(back), [...keyed])
              }))),
            { numRuns: 150 }
          )
        )
        // 64-bit integers round-trip as bigints under SafeIntegers
        const int64s = fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { minLength: 1, maxLength: 20 })
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(int64s, (values) =>
              run(Effect.gen(function*() {
                const [first, ...rest] = values.map((i, k) => ({ k, i }))
                const keyed = [first!, ...rest] as const
                yield* sql`DELETE FROM w`
                yield* sql`INSERT INTO w ${sql.insert(keyed)}`
                const back = yield* sql`SELECT k, i FROM w ORDER BY k`.pipe(
                  Effect.provideService(SqlClient.SafeIntegers, true)
                )
                assert.deepStrictEqual(plain(back), keyed.map(({ i, k }) => ({ k: BigInt(k), i })))
              }))),
            { numRuns: 50 }
          )
        )
      }),
    { timeout: scaled(60_000) }
  )
})
