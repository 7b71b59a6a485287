import { assert, describe, it } from "@effect/vitest"
import { Store } from "@svc/core/Store"
import { Effect, Redacted } from "effect"
import { spawn } from "node:child_process"
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll } from "vitest"
import { scaled } from "../../../test/support/time.ts"
import { SqliteStore, StoreConfig } from "../src/index.ts"
import { suite } from "../src/testing/StoreContract.ts"

const dir = mkdtempSync(join(tmpdir(), "svc-store-sqlite-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const NODE = resolve(import.meta.dirname, "../../../node_modules/.bin/node")
const CHILD = resolve(import.meta.dirname, "fixtures/issue-and-wait.ts")
const MANY = resolve(import.meta.dirname, "fixtures/issue-many.ts")

/** Runs a fixture script to completion; fails unless it exits 0. */
const runChild = (args: ReadonlyArray<string>) =>
  Effect.callback<string, Error>((resume) => {
    const child = spawn(NODE, args, { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", (error) => resume(Effect.fail(error)))
    child.on("exit", (code, signal) =>
      resume(
        code === 0
          ? Effect.succeed(stdout)
          : Effect.fail(new Error(`child exited (code ${code}, signal ${signal}): ${stderr}`))
      ))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

// the parent directory does not exist yet: the layer creates it
suite("SqliteStore (file)", SqliteStore.layer({ filename: join(dir, "contract", "nested", "svc.sqlite") }))
suite("SqliteStore (:memory:)", SqliteStore.layer({ filename: ":memory:" }))

describe("SqliteStore", () => {
  it.live("dataVersion keeps increasing across a re-created layer on the same file", () =>
    Effect.gen(function*() {
      const filename = join(dir, "restart", "svc.sqlite")
      const versions: Array<bigint> = []
      for (let open = 0; open < 3; open++) {
        const got = yield* Effect.gen(function*() {
          const store = yield* Store
          const a = yield* store.nextDataVersion
          const b = yield* store.nextDataVersion
          return [a, b]
        }).pipe(Effect.provide(SqliteStore.layer({ filename })))
        versions.push(...got)
      }
      for (let i = 1; i < versions.length; i++) {
        assert.isTrue(versions[i]! > versions[i - 1]!, `${versions[i]} > ${versions[i - 1]}`)
      }
      // a recorded publication above the counter raises the next version after a restart too
      yield* Effect.gen(function*() {
        const store = yield* Store
        yield* store.recordPublication({
          dataVersion: 1_000_000n,
          feedHash: "0x" + "00".repeat(32),
          generatedAt: 1,
          validUntil: 2,
          routeCount: 0
        })
      }).pipe(Effect.provide(SqliteStore.layer({ filename })))
      const after = yield* Store.use((store) => store.nextDataVersion).pipe(
        Effect.provide(SqliteStore.layer({ filename }))
      )
      assert.strictEqual(after, 1_000_001n)
    }))

  it.live("the file is in WAL mode and migrations are recorded once", () =>
    Effect.gen(function*() {
      const filename = join(dir, "settings.sqlite")
      for (let open = 0; open < 2; open++) {
        yield* Store.use((store) => store.operatorState).pipe(
          Effect.provide(SqliteStore.layer({ filename }))
        )
      }
      const db = new DatabaseSync(filename)
      try {
        assert.deepStrictEqual({ ...db.prepare("PRAGMA journal_mode").get() }, { journal_mode: "wal" })
        const rows = db.prepare("SELECT version, name FROM svc_schema_migrations ORDER BY version").all()
        assert.deepStrictEqual(rows.map((r) => ({ ...r })), [
          { version: 1, name: "initial" },
          { version: 2, name: "chain settlement" },
          { version: 3, name: "replicas" },
          { version: 4, name: "hold shares" },
          { version: 5, name: "payouts that always land" },
          { version: 6, name: "new payers' share" },
          { version: 7, name: "payout pauses" }
        ])
      } finally {
        db.close()
      }
    }))

  it.live("the data directory it creates is 0700 and the database, WAL and shared-memory files are 0600", () =>
    Effect.gen(function*() {
      const dataDir = join(dir, "private", "data")
      const filename = join(dataDir, "svc.sqlite")
      // a file left with a wider mode (an older version) is tightened too
      yield* Effect.gen(function*() {
        const store = yield* Store
        yield* store.nextDataVersion
        const mode = (f: string) => statSync(f).mode & 0o777
        assert.strictEqual(mode(dataDir), 0o700)
        for (const f of [filename, `${filename}-wal`, `${filename}-shm`]) assert.strictEqual(mode(f), 0o600, f)
      }).pipe(Effect.provide(SqliteStore.layer({ filename })))
      chmodSync(filename, 0o644)
      yield* Store.use((store) => store.operatorState).pipe(Effect.provide(SqliteStore.layer({ filename })))
      assert.strictEqual(statSync(filename).mode & 0o777, 0o600)
    }))

  it.live("a database that cannot be opened fails with StoreError", () =>
    Effect.gen(function*() {
      const blocker = join(dir, "not-a-directory")
      writeFileSync(blocker, "x")
      const error = yield* Effect.flip(
        Store.use((store) => store.operatorState).pipe(
          Effect.provide(SqliteStore.layer({ filename: join(blocker, "svc.sqlite") }))
        )
      )
      assert.strictEqual(error._tag, "StoreError")
      assert.strictEqual(error.operation, "open")
    }))

  it.live("a database newer than this release is refused", () =>
    Effect.gen(function*() {
      const filename = join(dir, "future.sqlite")
      yield* Store.use((store) => store.operatorState).pipe(
        Effect.provide(SqliteStore.layer({ filename }))
      )
      const db = new DatabaseSync(filename)
      db.exec("INSERT INTO svc_schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)")
      db.close()
      const error = yield* Effect.flip(
        Store.use((store) => store.operatorState).pipe(
          Effect.provide(SqliteStore.layer({ filename }))
        )
      )
      assert.strictEqual(error._tag, "StoreError")
      assert.include(error.message, "newer than this release")
    }))

  it.live("driver failures and undecodable rows are StoreErrors, not defects", () =>
    Effect.gen(function*() {
      const filename = join(dir, "failures.sqlite")
      yield* Effect.gen(function*() {
        const store = yield* Store
        yield* store.configureInventory([{ assetKey: "asset", configuredRaw: 10n }])
        // another connection damages the data under the running store
        const db = new DatabaseSync(filename)
        db.exec("DROP TABLE quotes")
        db.exec(`INSERT INTO permits (fill_id, route_id, quote_id, asset_key, scope, idempotency_key, fingerprint,
          payer_address, amount_in_raw, amount_out_raw, state, reason_codes, source_tx_hash, payout_tx_hash,
          valid_until, created_at, updated_at, envelope)
          VALUES ('bad', 'r', 'q', 'asset', 's', 'k', 'f', NULL, '1', '1', 'NOT_A_STATE', '[]', NULL, NULL, 1, 1, 1, '{}')`)
        db.close()
        const missingTable = yield* Effect.flip(store.getQuote("token"))
        assert.strictEqual(missingTable._tag, "StoreError")
        assert.strictEqual(missingTable.operation, "getQuote")
        const badRow = yield* Effect.flip(store.getPermit("bad"))
        assert.strictEqual(badRow._tag, "StoreError")
        assert.strictEqual(badRow.operation, "getPermit")
        assert.include(badRow.message, "NOT_A_STATE")
        const badTransition = yield* Effect.flip(store.transition({ fillId: "bad", to: "EXPIRED", at: 1 }))
        assert.strictEqual(badTransition.operation, "transition")
        // a malformed amount from the caller is refused without writing anything
        const badAmount = yield* Effect.flip(store.issuePermit({
          fillId: "x",
          routeId: "r",
          quoteId: "q",
          assetKey: "asset",
          scope: "s2",
          idempotencyKey: "k2",
          fingerprint: "f",
          payerAddress: null,
          amountInRaw: "1",
          amountOutRaw: "1e3",
          state: "ISSUED",
          reasonCodes: [],
          sourceTxHash: null,
          payoutTxHash: null,
          validUntil: 1,
          createdAt: 1,
          updatedAt: 1,
          envelope: "{}"
        }))
        assert.strictEqual(badAmount.operation, "issuePermit")
        assert.isUndefined(yield* store.findByIdempotencyKey("s2", "k2"))
      }).pipe(Effect.provide(SqliteStore.layer({ filename })))
    }))

  it.live("StoreConfig.layerFromUrl picks SQLite in the data dir unless the URL is postgres://", () =>
    Effect.gen(function*() {
      const dataDir = join(dir, "data-dir")
      const kind = yield* Store.useSync((store) => store.kind).pipe(
        Effect.provide(StoreConfig.layerFromUrl({ dataDir }))
      )
      assert.strictEqual(kind, "sqlite")
      assert.strictEqual(StoreConfig.sqliteFilename(dataDir), join(dataDir, "svc.sqlite"))
      assert.isTrue(StoreConfig.isPostgresUrl("postgres://u@h/db"))
      assert.isTrue(StoreConfig.isPostgresUrl("POSTGRESQL://u@h/db"))
      assert.isFalse(StoreConfig.isPostgresUrl("sqlite:///tmp/x"))
      const other = yield* Store.useSync((store) => store.kind).pipe(
        Effect.provide(StoreConfig.layerFromUrl({ dataDir, databaseUrl: Redacted.make("mysql://x") }))
      )
      assert.strictEqual(other, "sqlite")
    }))

  it.live("a committed permit survives SIGKILL of the process right after the answer", () =>
    Effect.gen(function*() {
      const filename = join(dir, "durable", "svc.sqlite")
      const fillId = "0x" + "5a".repeat(32)
      const output = yield* Effect.callback<string, Error>((resume) => {
        const child = spawn(NODE, [CHILD, filename, fillId], { stdio: ["ignore", "pipe", "pipe"] })
        let stdout = ""
        let stderr = ""
        let killed = false
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk
          if (!killed && stdout.includes("ISSUED\n")) {
            killed = true
            child.kill("SIGKILL")
          }
        })
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk
        })
        child.on("error", (error) => resume(Effect.fail(error)))
        child.on("exit", (code, signal) => {
          if (killed && signal === "SIGKILL") resume(Effect.succeed(stdout))
          else resume(Effect.fail(new Error(`child exited (code ${code}, signal ${signal}): ${stderr}`)))
        })
        return Effect.sync(() => child.kill("SIGKILL"))
      }).pipe(Effect.timeout("30 seconds"))
      assert.strictEqual(output, "ISSUED\n")

      const [permit, balance] = yield* Effect.gen(function*() {
        const store = yield* Store
        return [yield* store.getPermit(fillId), yield* store.inventory(["durable-asset"])] as const
      }).pipe(Effect.provide(SqliteStore.layer({ filename })))
      assert.strictEqual(permit?.fillId, fillId)
      assert.strictEqual(permit?.state, "ISSUED")
      assert.strictEqual(permit?.amountOutRaw, "123")
      assert.strictEqual(balance[0]?.holdRaw, 123n)
    }), { timeout: scaled(60_000) })

  it.live("two processes reserving against one file never over-reserve", () =>
    Effect.gen(function*() {
      const filename = join(dir, "two-processes", "svc.sqlite")
      yield* Store.use((store) => store.configureInventory([{ assetKey: "shared-asset", configuredRaw: 1000n }])).pipe(
        Effect.provide(SqliteStore.layer({ filename }))
      )
      const outputs = yield* Effect.all(
        ["a", "b"].map((prefix) => runChild([MANY, filename, "shared-asset", prefix, "200", "5"])),
        { concurrency: "unbounded" }
      ).pipe(Effect.timeout("60 seconds"))
      const totals: Record<string, number> = {}
      for (const out of outputs) {
        for (const [tag, n] of Object.entries(JSON.parse(out) as Record<string, number>)) {
          totals[tag] = (totals[tag] ?? 0) + n
        }
      }
      // 400 requests of 5 against 1000: exactly 200 fit, no request fails with an error
      assert.deepStrictEqual(totals, { Issued: 200, InsufficientInventory: 200 })
      const [balance] = yield* Store.use((store) => store.inventory(["shared-asset"])).pipe(
        Effect.provide(SqliteStore.layer({ filename }))
      )
      assert.strictEqual(balance?.holdRaw, 1000n)
    }), { timeout: scaled(90_000) })
})
