import { PgClient } from "@effect/sql-pg"
import { assert, describe, it, layer } from "@effect/vitest"
import { Store } from "@svc/core/Store"
import type { PermitRecord } from "@svc/core/Store"
import { Effect, Layer, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { connect } from "node:net"
import { PgStore, StoreConfig } from "../src/index.ts"
import { suite } from "../src/testing/StoreContract.ts"

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
const rawUrl = process.env.DATABASE_URL !== undefined && StoreConfig.isPostgresUrl(process.env.DATABASE_URL)
  ? process.env.DATABASE_URL
  : DEFAULT_URL
const url = Redacted.make(rawUrl)
const where = (() => {
  const u = new URL(rawUrl)
  return `${u.hostname || "127.0.0.1"}:${u.port || "5432"}`
})()

/** One TCP connect with a short timeout: is anything listening? */
const reachable = (address: string, timeoutMs = 1500): Promise<boolean> =>
  new Promise((resolve) => {
    const [host, port] = [
      address.slice(0, address.lastIndexOf(":")),
      Number(address.slice(address.lastIndexOf(":") + 1))
    ]
    const socket = connect({ host: host.replace(/^\[|\]$/g, ""), port })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })

const up = await reachable(where)

/**
 * A schema of our own per test file and worker, dropped when the layer is
 * released. The name starts with the creation time (Unix seconds, base 36) so
 * that schemas left behind by a killed run can be recognised and dropped.
 */
const schemaName = (label: string) =>
  `svc_test_${Math.floor(Date.now() / 1000).toString(36)}_${label}_${
    process.env.VITEST_POOL_ID ?? "0"
  }_${process.pid}_${Math.random().toString(36).slice(2, 8)}`

/** Drops test schemas older than an hour (a run killed before its finalizers ran). */
const dropStaleSchemas = Effect.scoped(
  Effect.gen(function*() {
    const sql = yield* PgClient.make({ url, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
    const rows = yield* sql<
      { readonly nspname: string }
    >`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'svc\_test\_%'`
    const cutoff = Date.now() / 1000 - 3600
    for (const { nspname } of rows) {
      const created = parseInt(nspname.split("_")[2] ?? "", 36)
      if (Number.isFinite(created) && created < cutoff && /^svc_test_[0-9a-z_]+$/.test(nspname)) {
        yield* sql.unsafe(`DROP SCHEMA IF EXISTS ${nspname} CASCADE`)
      }
    }
  })
).pipe(Effect.catch((error) => Effect.logWarning("could not drop stale test schemas", error)))

const dropSchema = (schema: string) =>
  Effect.scoped(
    Effect.gen(function*() {
      const sql = yield* PgClient.make({ url, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
      yield* sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    })
  ).pipe(Effect.catch((error) => Effect.logWarning(`could not drop schema ${schema}`, error)))

/** The store on a fresh schema; the schema is dropped after the store closed. */
const storeOnFreshSchema = (label: string) => {
  const schema = schemaName(label)
  const dropAfter = Layer.effectDiscard(Effect.addFinalizer(() => dropSchema(schema)))
  return { schema, layer: PgStore.layer({ url, schema }).pipe(Layer.provide(dropAfter)) }
}

/**
 * Whether this run is CI: `CI` set to anything but empty, `0` or `false` (CI
 * services set `true`, `1` or their own name).
 */
const isCi = (value: string | undefined): boolean =>
  value !== undefined && !["", "0", "false"].includes(value.trim().toLowerCase())

describe("isCi", () => {
  it("CI set to anything but empty, 0 or false means CI", () => {
    for (const value of ["true", "1", "TRUE", "yes", "github-actions"]) assert.isTrue(isCi(value), value)
    for (const value of [undefined, "", " ", "0", "false", "False"]) assert.isFalse(isCi(value), String(value))
  })
})

if (!up) {
  // README.md, Development: the PostgreSQL tests skip, visibly, when no server answers, and fail on CI
  const reason = `PostgreSQL is not reachable at ${where} (DATABASE_URL or ${DEFAULT_URL})`
  const ci = isCi(process.env.CI)
  if (!ci) console.warn(`[svc/store] SKIPPING the PostgreSQL store tests: ${reason}. Start it, or set DATABASE_URL.`)
  describe("PgStore", () => {
    it("PostgreSQL is reachable (required on CI)", (context) => {
      if (!ci) context.skip(`${reason}; the PostgreSQL store tests did not run`)
      throw new Error(`${reason}; on CI (CI=${JSON.stringify(process.env.CI)}) the PostgreSQL store tests must run`)
    })
  })
} else {
  await Effect.runPromise(dropStaleSchemas)
  suite("PgStore", storeOnFreshSchema("contract").layer)

  const shared = storeOnFreshSchema("shared")

  layer(shared.layer, { excludeTestServices: true, timeout: "60 seconds" })("PgStore", (it) => {
    it.effect("two pools on one schema (two processes) never over-reserve", () =>
      Effect.gen(function*() {
        const first = yield* Store
        // a second, independent pool on the same schema, as a second server process would have
        const second = yield* PgStore.make({ url, schema: shared.schema, maxConnections: 5 })
        const assetKey = `asset-${Math.random().toString(36).slice(2)}`
        yield* first.configureInventory([{ assetKey, configuredRaw: 1000n }])
        const permit = (i: number): PermitRecord => ({
          fillId: `fill-${assetKey}-${i}`,
          routeId: "route",
          quoteId: "quote",
          assetKey,
          scope: `payer-${i % 7}`,
          idempotencyKey: `key-${i}`,
          fingerprint: "fp",
          payerAddress: null,
          amountInRaw: "1",
          amountOutRaw: "30",
          state: "ISSUED",
          reasonCodes: [],
          sourceTxHash: null,
          payoutTxHash: null,
          validUntil: 4_000_000_000,
          createdAt: i,
          updatedAt: i,
          envelope: "{}"
        })
        const results = yield* Effect.forEach(
          Array.from({ length: 60 }, (_, i) => i),
          (i) => (i % 2 === 0 ? first : second).issuePermit(permit(i)),
          { concurrency: "unbounded" }
        )
        const issued = results.filter((r) => r._tag === "Issued").length
        assert.strictEqual(issued, 33) // floor(1000 / 30)
        assert.isTrue(results.every((r) => r._tag === "Issued" || r._tag === "InsufficientInventory"))
        const [balance] = yield* second.inventory([assetKey])
        assert.strictEqual(balance?.holdRaw, 990n)
        // the same key claimed through both pools at once: one Issued, the other Duplicate of it
        const roomy = `asset-${Math.random().toString(36).slice(2)}`
        yield* second.configureInventory([{ assetKey: roomy, configuredRaw: 1000n }])
        const claims = yield* Effect.forEach(
          Array.from({ length: 10 }, (_, i) => i),
          (i) =>
            (i % 2 === 0 ? first : second).issuePermit({
              ...permit(2000 + i),
              assetKey: roomy,
              scope: "same-scope",
              idempotencyKey: "same-key"
            }),
          { concurrency: "unbounded" }
        )
        const winners = claims.filter((r) => r._tag === "Issued")
        assert.strictEqual(winners.length, 1)
        assert.isTrue(claims.every((r) => r._tag === "Issued" || r._tag === "Duplicate"))
        const [after] = yield* first.inventory([roomy])
        assert.strictEqual(after?.holdRaw, 30n)
      }))

    it.effect("schemas isolate stores; an invalid schema name fails with StoreError", () =>
      Effect.gen(function*() {
        const store = yield* Store
        yield* store.setRouteOverride("isolation-route", { dailyStatus: "CLOSED" })
        const other = schemaName("isolated")
        const otherState = yield* Effect.scoped(
          Effect.flatMap(PgStore.make({ url, schema: other, maxConnections: 1 }), (s) => s.operatorState)
        ).pipe(Effect.ensuring(dropSchema(other)))
        assert.isFalse("isolation-route" in otherState.routes)
        assert.isTrue("isolation-route" in (yield* store.operatorState).routes)

        const error = yield* Effect.flip(Effect.scoped(PgStore.make({ url, schema: "Robert'); DROP TABLE x;--" })))
        assert.strictEqual(error._tag, "StoreError")
        assert.strictEqual(error.operation, "open")
      }))

    it.effect("driver failures are StoreErrors, not defects", () =>
      Effect.gen(function*() {
        const schema = schemaName("failures")
        yield* Effect.gen(function*() {
          const store = yield* PgStore.make({ url, schema, maxConnections: 2 })
          yield* Effect.scoped(
            Effect.flatMap(
              PgClient.make({ url, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer)),
              (sql) => sql.unsafe(`DROP TABLE ${schema}.quotes`)
            )
          )
          const error = yield* Effect.flip(store.getQuote("token"))
          assert.strictEqual(error._tag, "StoreError")
          assert.strictEqual(error.operation, "getQuote")
        }).pipe(Effect.scoped, Effect.ensuring(dropSchema(schema)))
        // an unreachable server fails the layer with StoreError("open")
        const unreachable = yield* Effect.flip(
          Effect.scoped(PgStore.make({ url: Redacted.make("postgres://postgres@127.0.0.1:1/test") }))
        )
        assert.strictEqual(unreachable._tag, "StoreError")
        assert.strictEqual(unreachable.operation, "open")
      }))

    it.effect("StoreConfig.layerFromUrl picks PostgreSQL for a postgres:// URL", () =>
      Effect.gen(function*() {
        // the URL's own search_path (options=-c search_path=...) keeps the test out of `public`
        const schema = schemaName("fromurl")
        yield* Effect.scoped(
          Effect.flatMap(
            PgClient.make({ url, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer)),
            (sql) => sql.unsafe(`CREATE SCHEMA ${schema}`)
          )
        )
        const withPath = new URL(rawUrl)
        withPath.searchParams.set("options", `-c search_path=${schema}`)
        const state = yield* Effect.gen(function*() {
          const store = yield* Store
          assert.strictEqual(store.kind, "postgres")
          return yield* store.setPaused(true, "from url")
        }).pipe(
          Effect.provide(StoreConfig.layerFromUrl({
            databaseUrl: Redacted.make(withPath.toString()),
            dataDir: "/nonexistent-never-used"
          })),
          Effect.ensuring(dropSchema(schema))
        )
        assert.isTrue(state.paused)
      }))
  })
}
