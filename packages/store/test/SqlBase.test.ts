/**
 * The SQL base is open to other dialects: a dialect declared outside the
 * package (here SQLite's, renamed and with READ COMMITTED re-reads, which
 * SQLite does not need but must tolerate) gives a store that passes the Store
 * contract suite, on a client the store package does not open itself. The
 * built-in dialects' JSON extraction is what migration 5 has always run.
 */
import { Store } from "@svc/core/Store"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import * as SqliteClient from "../src/internal/sqliteClient.ts"
import * as SqlBase from "../src/SqlBase.ts"
import { suite } from "../src/testing/StoreContract.ts"

const third: SqlBase.Dialect = { ...SqlBase.sqlite, name: "sqlite-variant", readCommitted: true }

suite(
  "a third dialect on the SQL base",
  Layer.effect(
    Store,
    Effect.flatMap(
      SqliteClient.make({ filename: ":memory:" }),
      (sql) => SqlBase.open({ sql, dialect: third, kind: "sqlite-variant", spanPrefix: "VariantStore" })
    )
  )
)

describe("SqlBase dialects", () => {
  it("express JSON extraction as the migrations always wrote it", () => {
    expect(SqlBase.sqlite.jsonText("envelope", ["permit", "sourceNetworkId"])).toBe(
      "json_extract(envelope, '$.permit.sourceNetworkId')"
    )
    expect(SqlBase.pg.jsonText("envelope", ["permit", "sourceNetworkId"])).toBe(
      "(envelope::jsonb) -> 'permit' ->> 'sourceNetworkId'"
    )
    expect(SqlBase.latestVersion).toBeGreaterThanOrEqual(5)
  })
})
