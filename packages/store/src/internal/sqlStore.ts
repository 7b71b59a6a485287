/**
 * The SQL implementation of {@link StoreShape} shared by SQLite and PostgreSQL.
 *
 * Every statement is written so that both databases run it; the dialect
 * differences are the members of {@link Dialect}: how a transaction begins,
 * row locks (`FOR UPDATE`), whether a locked read sees what a writer it waited
 * for committed, the migrations' lock, and JSON extraction in a migration.
 *
 * Amounts are stored as TEXT decimals and computed with bigint in JS inside the
 * transaction that read them.
 *
 * @internal
 */
import { bucketOf, canTransition, PermitState } from "@svc/core/Lifecycle"
import type { Bucket } from "@svc/core/Lifecycle"
import { availableOf, PUBLICATION_DOCUMENTS_KEPT, StoreError } from "@svc/core/Store"
import type {
  ChainCursor,
  HoldShares,
  InventoryBalance,
  IssueResult,
  OperatorState,
  PayoutIntent,
  PermitFilter,
  PermitRecord,
  PublicationDocument,
  PublicationRecord,
  RouteCounter,
  RouteCounters,
  RouteOverride,
  StateFilter,
  StoredQuote,
  StoreShape,
  TransitionRequest,
  TransitionResult
} from "@svc/core/Store"
import { Clock, Effect } from "effect"
import { SqlClient, SqlError } from "effect/sql"

/**
 * What differs between the SQL databases a store runs on (public as
 * `SqlBase.Dialect`).
 *
 * @internal
 */
export interface Dialect {
  /** The dialect's name ("sqlite", "pg", ...): what migrations that differ by dialect test. */
  readonly name: string
  /**
   * The statement that begins a transaction, when not the driver's `BEGIN`:
   * SQLite's `BEGIN IMMEDIATE` takes the write lock up front, so that a
   * read-check-write cannot be overtaken by another process.
   */
  readonly beginTransaction?: string | undefined
  /** Whether the reads that reserve inventory lock their rows (`SELECT ... FOR UPDATE`). */
  readonly rowLocks: boolean
  /**
   * Whether a statement sees what a transaction it waited for committed (READ
   * COMMITTED): the idempotency key is then read again once the inventory row
   * is locked.
   */
  readonly readCommitted: boolean
  /**
   * Serializes the migrations of concurrent starts against one schema, run
   * first in the migration transaction (PostgreSQL: a transaction-scoped
   * advisory lock); none where the transaction itself is exclusive.
   */
  readonly migrationLock?: ((sql: SqlClient.SqlClient) => Effect.Effect<unknown, SqlError.SqlError>) | undefined
  /** The SQL expression of a text member of a JSON text column (a migration backfills columns from the envelope). */
  readonly jsonText: (column: string, path: ReadonlyArray<string>) => string
}

/**
 * SQLite (node:sqlite).
 *
 * @internal
 */
export const sqlite: Dialect = {
  name: "sqlite",
  beginTransaction: "BEGIN IMMEDIATE",
  rowLocks: false,
  readCommitted: false,
  jsonText: (column, path) => `json_extract(${column}, '$.${path.join(".")}')`
}

/**
 * PostgreSQL.
 *
 * @internal
 */
export const pg: Dialect = {
  name: "pg",
  rowLocks: true,
  readCommitted: true,
  migrationLock: (sql) =>
    sql`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext('svc_store_migrations:' || current_schema()))) AS l`,
  jsonText: (column, path) =>
    `(${column}::jsonb) ${path.map((p, i) => `${i === path.length - 1 ? "->>" : "->"} '${p}'`).join(" ")}`
}

/**
 * Runs an effect in one transaction: `BEGIN IMMEDIATE` on SQLite (the write lock
 * is taken up front, so a read-check-write cannot be overtaken by another
 * process), a plain `BEGIN` (READ COMMITTED) with row locks on PostgreSQL.
 *
 * @internal
 */
export type Transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError.SqlError, R>

/** @internal */
export const makeTransaction = (sql: SqlClient.SqlClient, dialect: Dialect): Transaction => (effect) =>
  dialect.beginTransaction !== undefined
    ? sql.withTransaction(effect).pipe(Effect.provideService(SqlClient.BeginTransaction, dialect.beginTransaction))
    : sql.withTransaction(effect)

/** @internal */
export interface MakeOptions {
  readonly sql: SqlClient.SqlClient
  readonly dialect: Dialect
  /** StoreShape.kind */
  readonly kind: string
  /** Span name prefix, e.g. "SqliteStore". */
  readonly spanPrefix: string
}

// ---------------------------------------------------------------------------
// row decoding (driver rows are null-prototype objects; PostgreSQL may return
// BIGINT columns as strings or bigints, SQLite as numbers)
// ---------------------------------------------------------------------------

type Row = { readonly [column: string]: unknown }

class RowDecodeError extends Error {
  override readonly name = "RowDecodeError"
}

const INTEGER = /^-?\d+$/

const text = (row: Row, column: string): string => {
  const value = row[column]
  if (typeof value === "string") return value
  if (typeof value === "number" || typeof value === "bigint") return String(value)
  throw new RowDecodeError(`column ${column}: expected text, got ${value === null ? "null" : typeof value}`)
}

const textOrNull = (row: Row, column: string): string | null => {
  const value = row[column]
  return value === null || value === undefined ? null : text(row, column)
}

const int = (row: Row, column: string): number => {
  const value = row[column]
  const n = typeof value === "number"
    ? value
    : typeof value === "bigint"
    ? Number(value)
    : typeof value === "string" && INTEGER.test(value)
    ? Number(value)
    : Number.NaN
  if (!Number.isSafeInteger(n)) {
    throw new RowDecodeError(`column ${column}: expected a safe integer, got ${String(value)}`)
  }
  return n
}

const big = (row: Row, column: string): bigint => {
  const value = row[column]
  if (typeof value === "bigint") return value
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value)
  if (typeof value === "string" && INTEGER.test(value)) return BigInt(value)
  throw new RowDecodeError(`column ${column}: expected an integer, got ${String(value)}`)
}

const STATES: ReadonlySet<string> = new Set(PermitState.literals)
const TERMINAL_STATES = ["PAID", "EXPIRED", "FAILED"]

const decodePermit = (row: Row): PermitRecord => {
  const state = text(row, "state")
  if (!STATES.has(state)) throw new RowDecodeError(`column state: unknown permit state ${state}`)
  const reasonCodes: unknown = JSON.parse(text(row, "reason_codes"))
  if (!Array.isArray(reasonCodes) || !reasonCodes.every((c) => typeof c === "string")) {
    throw new RowDecodeError("column reason_codes: expected a JSON array of strings")
  }
  return {
    fillId: text(row, "fill_id"),
    routeId: text(row, "route_id"),
    quoteId: text(row, "quote_id"),
    assetKey: text(row, "asset_key"),
    scope: text(row, "scope"),
    idempotencyKey: text(row, "idempotency_key"),
    fingerprint: text(row, "fingerprint"),
    payerAddress: textOrNull(row, "payer_address"),
    amountInRaw: text(row, "amount_in_raw"),
    amountOutRaw: text(row, "amount_out_raw"),
    state: state as PermitState,
    reasonCodes: reasonCodes as ReadonlyArray<string>,
    sourceTxHash: textOrNull(row, "source_tx_hash"),
    payoutTxHash: textOrNull(row, "payout_tx_hash"),
    validUntil: int(row, "valid_until"),
    createdAt: int(row, "created_at"),
    updatedAt: int(row, "updated_at"),
    envelope: text(row, "envelope"),
    ...(textOrNull(row, "client_key") === null ? {} : { clientKey: textOrNull(row, "client_key") }),
    ...(textOrNull(row, "source_network_id") === null ? {} : { sourceNetworkId: textOrNull(row, "source_network_id") }),
    ...(textOrNull(row, "destination_network_id") === null
      ? {}
      : { destinationNetworkId: textOrNull(row, "destination_network_id") })
  }
}

const decodeCursor = (row: Row): ChainCursor => {
  const finalNumber = textOrNull(row, "final_block_number")
  return {
    networkId: text(row, "network_id"),
    blockNumber: big(row, "block_number"),
    blockHash: text(row, "block_hash"),
    blockTimestamp: int(row, "block_timestamp"),
    updatedAt: int(row, "updated_at"),
    ...(finalNumber === null
      ? {}
      : { finalBlockNumber: big(row, "final_block_number"), finalBlockTimestamp: int(row, "final_block_timestamp") })
  }
}

const OUTCOMES: ReadonlySet<string> = new Set(["REVERTED", "RETRIED"])

const decodeIntent = (row: Row): PayoutIntent => {
  const outcome = textOrNull(row, "outcome")
  if (outcome !== null && !OUTCOMES.has(outcome)) throw new RowDecodeError(`column outcome: unknown ${outcome}`)
  const maxFee = textOrNull(row, "max_fee_per_gas")
  const tip = textOrNull(row, "max_priority_fee_per_gas")
  const head = textOrNull(row, "head_block")
  return {
    fillId: text(row, "fill_id"),
    networkId: text(row, "network_id"),
    txHash: text(row, "tx_hash"),
    rawTransaction: text(row, "raw_transaction"),
    nonce: int(row, "nonce"),
    sender: text(row, "sender"),
    attempt: int(row, "attempt"),
    createdAt: int(row, "created_at"),
    ...(maxFee === null ? {} : { maxFeePerGas: big(row, "max_fee_per_gas") }),
    ...(tip === null ? {} : { maxPriorityFeePerGas: big(row, "max_priority_fee_per_gas") }),
    ...(head === null ? {} : { headBlock: big(row, "head_block") }),
    ...(outcome === null ? {} : { outcome: outcome as PayoutIntent["outcome"] & string })
  }
}

const decodeInventory = (row: Row): InventoryBalance => ({
  assetKey: text(row, "asset_key"),
  configuredRaw: big(row, "configured_raw"),
  paidOutRaw: big(row, "paid_out_raw"),
  holdRaw: big(row, "hold_raw"),
  liabilityRaw: big(row, "liability_raw"),
  clearingRaw: big(row, "clearing_raw"),
  updatedAt: int(row, "updated_at")
})

const decodeQuote = (row: Row): StoredQuote => ({
  quoteToken: text(row, "quote_token"),
  quoteId: text(row, "quote_id"),
  routeId: text(row, "route_id"),
  userAddress: textOrNull(row, "user_address"),
  body: text(row, "body"),
  expiresAt: int(row, "expires_at"),
  createdAt: int(row, "created_at")
})

const decodePublication = (row: Row): PublicationRecord => ({
  dataVersion: big(row, "data_version"),
  feedHash: text(row, "feed_hash"),
  generatedAt: int(row, "generated_at"),
  validUntil: int(row, "valid_until"),
  routeCount: int(row, "route_count")
})

/** Runs a row decoder; a throw (including JSON.parse's SyntaxError) becomes a failure. */
const decode = <A>(f: () => A): Effect.Effect<A, Error> =>
  Effect.try({
    try: f,
    catch: (cause) => cause instanceof Error ? cause : new RowDecodeError(String(cause))
  })

const parseAmount = (value: string, field: string): Effect.Effect<bigint, RowDecodeError> =>
  INTEGER.test(value)
    ? Effect.succeed(BigInt(value))
    : Effect.fail(new RowDecodeError(`${field}: expected an integer decimal string, got ${JSON.stringify(value)}`))

const isUniqueViolation = (error: unknown): error is SqlError.SqlError =>
  SqlError.isSqlError(error) && error.reason._tag === "UniqueViolation"

const COUNTERS: ReadonlyArray<RouteCounter> = [
  "feed_exposures",
  "permit_requests",
  "permits_issued",
  "source_observed",
  "paid"
]

const bucketColumn: Record<Exclude<Bucket, "paid" | "none">, "hold_raw" | "liability_raw" | "clearing_raw"> = {
  hold: "hold_raw",
  liability: "liability_raw",
  clearing: "clearing_raw"
}

interface Buckets {
  paid_out_raw: bigint
  hold_raw: bigint
  liability_raw: bigint
  clearing_raw: bigint
}

/**
 * Builds the store on an open, migrated SQL client.
 *
 * @internal
 */
export const make = (options: MakeOptions): StoreShape => {
  const { dialect, spanPrefix, sql } = options
  const transaction = makeTransaction(sql, dialect)
  const forUpdate = sql.literal(dialect.rowLocks ? " FOR UPDATE" : "")

  /** Maps every failure (and defect) of a store operation to StoreError. */
  const storeOp = (operation: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, StoreError, R> =>
    self.pipe(
      Effect.catchDefect((defect) => Effect.fail(defect)),
      Effect.mapError((cause) => cause instanceof StoreError ? cause : new StoreError({ operation, cause }))
    )

  const plain = <A, E, R>(operation: string, self: Effect.Effect<A, E, R>): Effect.Effect<A, StoreError, R> =>
    self.pipe(storeOp(operation), Effect.withSpan(`${spanPrefix}.${operation}`))

  // -- shared queries (raw errors; mapped by the public operations) --

  const selectPermit = (fillId: string, lock: boolean) =>
    sql<Row>`SELECT * FROM permits WHERE fill_id = ${fillId}${lock ? forUpdate : sql.literal("")}`.pipe(
      Effect.flatMap((rows) => rows.length === 0 ? Effect.succeed(undefined) : decode(() => decodePermit(rows[0]!)))
    )

  const selectByKey = (scope: string, key: string) =>
    sql<Row>`SELECT * FROM permits WHERE scope = ${scope} AND idempotency_key = ${key}`.pipe(
      Effect.flatMap((rows) => rows.length === 0 ? Effect.succeed(undefined) : decode(() => decodePermit(rows[0]!)))
    )

  const lockInventory = (assetKey: string) =>
    sql<Row>`SELECT * FROM inventory WHERE asset_key = ${assetKey}${forUpdate}`.pipe(
      Effect.flatMap((rows) => rows.length === 0 ? Effect.succeed(undefined) : decode(() => decodeInventory(rows[0]!)))
    )

  const writeBuckets = (assetKey: string, b: Buckets, at: number) =>
    sql`UPDATE inventory SET
      paid_out_raw = ${b.paid_out_raw.toString()},
      hold_raw = ${b.hold_raw.toString()},
      liability_raw = ${b.liability_raw.toString()},
      clearing_raw = ${b.clearing_raw.toString()},
      updated_at = ${at}
      WHERE asset_key = ${assetKey}`

  const bumpCounter = (routeId: string, counter: RouteCounter, by: number, at: number) =>
    sql`INSERT INTO route_counters (route_id, counter, value, updated_at)
      VALUES (${routeId}, ${counter}, ${by}, ${at})
      ON CONFLICT (route_id, counter) DO UPDATE SET
        value = route_counters.value + excluded.value,
        updated_at = excluded.updated_at`

  // payers without a completed fill (HoldShares.newPayersBps): the holds of their ISSUED permits are
  // summed in inventory.new_payers_hold_raw; the payers with one are kept in proven_payers
  const isProvenPayer = (scope: string) =>
    Effect.map(sql<Row>`SELECT 1 AS proven FROM proven_payers WHERE scope = ${scope}`, (rows) => rows.length > 0)

  const newPayersHold = (assetKey: string) =>
    Effect.flatMap(
      sql<Row>`SELECT new_payers_hold_raw FROM inventory WHERE asset_key = ${assetKey}`,
      (rows) => decode(() => rows.length === 0 ? 0n : BigInt(text(rows[0]!, "new_payers_hold_raw")))
    )

  const addNewPayersHold = (assetKey: string, delta: bigint) =>
    Effect.flatMap(newPayersHold(assetKey), (held) => {
      const next = held + delta
      return sql`UPDATE inventory SET new_payers_hold_raw = ${(next > 0n ? next : 0n).toString()}
        WHERE asset_key = ${assetKey}`
    })

  /** What a transition changes for the new payers' share: their holds, and who completed a fill. */
  const trackNewPayers = (permit: PermitRecord, from: PermitState, to: PermitState, amount: bigint, at: number) =>
    Effect.gen(function*() {
      if (to === "PAID") {
        yield* sql`INSERT INTO proven_payers (scope, first_paid_at) VALUES (${permit.scope}, ${at})
          ON CONFLICT (scope) DO NOTHING`
      }
      if ((from === "ISSUED") === (to === "ISSUED")) return
      const rows = yield* sql<Row>`SELECT new_payer FROM permits WHERE fill_id = ${permit.fillId}`
      if (rows.length === 0 || (yield* decode(() => int(rows[0]!, "new_payer"))) !== 1) return
      yield* addNewPayersHold(permit.assetKey, to === "ISSUED" ? amount : -amount)
    })

  const readOperatorState = Effect.gen(function*() {
    const rows = yield* sql<Row>`SELECT version, paused, pause_reason FROM operator_state WHERE id = 1`
    const overrides = yield* sql<
      Row
    >`SELECT route_id, execution_status, daily_status FROM route_overrides ORDER BY route_id`
    const pauses = yield* sql<Row>`SELECT network, reason FROM payout_pauses ORDER BY network`
    return yield* decode((): OperatorState => {
      const row = rows[0]
      if (row === undefined) throw new RowDecodeError("operator_state: the row is missing")
      const routes: Record<string, RouteOverride> = {}
      for (const o of overrides) {
        const executionStatus = textOrNull(o, "execution_status")
        const dailyStatus = textOrNull(o, "daily_status")
        routes[text(o, "route_id")] = {
          ...(executionStatus === null ? {} : { executionStatus: executionStatus as RouteOverride["executionStatus"] }),
          ...(dailyStatus === null ? {} : { dailyStatus: dailyStatus as RouteOverride["dailyStatus"] })
        }
      }
      return {
        version: int(row, "version"),
        paused: int(row, "paused") !== 0,
        pauseReason: textOrNull(row, "pause_reason"),
        routes,
        payoutPauses: Object.fromEntries(pauses.map((p) => [text(p, "network"), { reason: textOrNull(p, "reason") }]))
      }
    })
  })

  const bumpOperatorVersion = (at: number) =>
    sql`UPDATE operator_state SET version = version + 1, updated_at = ${at} WHERE id = 1`

  // -- operations --

  const nextDataVersion = plain(
    "nextDataVersion",
    Effect.gen(function*() {
      // one atomic statement: max(counter, latest publication) + 1
      const rows = yield* sql<Row>`UPDATE meta_counters SET value = CASE
          WHEN value > (SELECT COALESCE(MAX(data_version), 0) FROM publications) THEN value + 1
          ELSE (SELECT COALESCE(MAX(data_version), 0) FROM publications) + 1
        END
        WHERE name = 'data_version'
        RETURNING CAST(value AS TEXT) AS value`
      const row = rows[0]
      if (row === undefined) return yield* Effect.fail(new RowDecodeError("meta_counters: data_version row is missing"))
      return yield* decode(() => big(row, "value"))
    })
  )

  const recordPublication = Effect.fn(`${spanPrefix}.recordPublication`)(
    function*(p: PublicationRecord) {
      const dv = p.dataVersion.toString()
      return yield* transaction(Effect.gen(function*() {
        // the counter's row lock serialises recordings (and nextDataVersion): the check below stays true
        yield* sql`UPDATE meta_counters SET value = value WHERE name = 'data_version'`
        const newer = yield* sql<Row>`SELECT data_version FROM publications WHERE data_version > ${dv} LIMIT 1`
        if (newer.length > 0) return false
        yield* sql`INSERT INTO publications (data_version, feed_hash, generated_at, valid_until, route_count)
          VALUES (${dv}, ${p.feedHash}, ${p.generatedAt}, ${p.validUntil}, ${p.routeCount})
          ON CONFLICT (data_version) DO UPDATE SET
            feed_hash = excluded.feed_hash,
            generated_at = excluded.generated_at,
            valid_until = excluded.valid_until,
            route_count = excluded.route_count`
        return true
      }))
    },
    storeOp("recordPublication")
  )

  const latestPublication = plain(
    "latestPublication",
    sql<Row>`SELECT CAST(data_version AS TEXT) AS data_version, feed_hash, generated_at, valid_until, route_count
      FROM publications ORDER BY publications.data_version DESC LIMIT 1`.pipe(
      Effect.flatMap((rows) =>
        rows.length === 0 ? Effect.succeed(undefined) : decode(() => decodePublication(rows[0]!))
      )
    )
  )

  const savePublicationDocument = Effect.fn(`${spanPrefix}.savePublicationDocument`)(
    function*(p: PublicationDocument) {
      const dv = p.dataVersion.toString()
      yield* transaction(Effect.gen(function*() {
        yield* sql`INSERT INTO publication_documents (data_version, document) VALUES (${dv}, ${p.document})
          ON CONFLICT (data_version) DO UPDATE SET document = excluded.document`
        yield* sql`DELETE FROM publication_documents WHERE data_version <= ${
          (p.dataVersion - BigInt(PUBLICATION_DOCUMENTS_KEPT)).toString()
        }`
      }))
    },
    storeOp("savePublicationDocument")
  )

  const latestPublicationDocument = plain(
    "latestPublicationDocument",
    sql<Row>`SELECT CAST(data_version AS TEXT) AS data_version, document
      FROM publication_documents ORDER BY publication_documents.data_version DESC LIMIT 1`.pipe(
      Effect.flatMap((rows) =>
        rows.length === 0
          ? Effect.succeed(undefined)
          : decode((): PublicationDocument => ({
            dataVersion: big(rows[0]!, "data_version"),
            document: text(rows[0]!, "document")
          }))
      )
    )
  )

  const operatorState = plain("operatorState", readOperatorState)

  const setPayoutsPaused = Effect.fn(`${spanPrefix}.setPayoutsPaused`)(
    function*(network: string, paused: boolean, reason: string | null) {
      const now = yield* Clock.currentTimeMillis
      return yield* transaction(
        Effect.gen(function*() {
          if (paused) {
            yield* sql`INSERT INTO payout_pauses (network, reason, paused_at) VALUES (${network}, ${reason}, ${now})
              ON CONFLICT (network) DO UPDATE SET reason = excluded.reason, paused_at = excluded.paused_at`
          } else {
            yield* sql`DELETE FROM payout_pauses WHERE network = ${network}`
          }
          return yield* readOperatorState
        })
      )
    },
    storeOp("setPayoutsPaused")
  )

  const setPaused = Effect.fn(`${spanPrefix}.setPaused`)(
    function*(paused: boolean, reason: string | null) {
      const now = yield* Clock.currentTimeMillis
      return yield* transaction(
        Effect.gen(function*() {
          yield* sql`UPDATE operator_state SET
            paused = ${paused ? 1 : 0}, pause_reason = ${paused ? reason : null}
            WHERE id = 1`
          yield* bumpOperatorVersion(now)
          return yield* readOperatorState
        })
      )
    },
    storeOp("setPaused")
  )

  const requestPublication = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    return yield* transaction(Effect.andThen(bumpOperatorVersion(now), readOperatorState))
  }).pipe(Effect.withSpan(`${spanPrefix}.requestPublication`), storeOp("requestPublication"))

  const setRouteOverride = Effect.fn(`${spanPrefix}.setRouteOverride`)(
    function*(routeId: string, override: RouteOverride) {
      const now = yield* Clock.currentTimeMillis
      const executionStatus = override.executionStatus ?? null
      const dailyStatus = override.dailyStatus ?? null
      return yield* transaction(
        Effect.gen(function*() {
          if (executionStatus === null && dailyStatus === null) {
            yield* sql`DELETE FROM route_overrides WHERE route_id = ${routeId}`
          } else {
            yield* sql`INSERT INTO route_overrides (route_id, execution_status, daily_status, updated_at)
              VALUES (${routeId}, ${executionStatus}, ${dailyStatus}, ${now})
              ON CONFLICT (route_id) DO UPDATE SET
                execution_status = excluded.execution_status,
                daily_status = excluded.daily_status,
                updated_at = excluded.updated_at`
          }
          yield* bumpOperatorVersion(now)
          return yield* readOperatorState
        })
      )
    },
    storeOp("setRouteOverride")
  )

  const configureInventory = Effect.fn(`${spanPrefix}.configureInventory`)(
    function*(assets: ReadonlyArray<{ readonly assetKey: string; readonly configuredRaw: bigint }>) {
      if (assets.length === 0) return
      const now = yield* Clock.currentTimeMillis
      yield* transaction(
        Effect.forEach(
          assets,
          (a) =>
            sql`INSERT INTO inventory
              (asset_key, configured_raw, paid_out_raw, hold_raw, liability_raw, clearing_raw, updated_at)
              VALUES (${a.assetKey}, ${a.configuredRaw.toString()}, '0', '0', '0', '0', ${now})
              ON CONFLICT (asset_key) DO UPDATE SET
                configured_raw = excluded.configured_raw,
                updated_at = excluded.updated_at`,
          { discard: true }
        )
      )
    },
    storeOp("configureInventory")
  )

  const inventory = Effect.fn(`${spanPrefix}.inventory`)(
    function*(assetKeys?: ReadonlyArray<string>) {
      if (assetKeys !== undefined && assetKeys.length === 0) return []
      const rows = assetKeys === undefined
        ? yield* sql<Row>`SELECT * FROM inventory ORDER BY asset_key`
        : yield* sql<Row>`SELECT * FROM inventory WHERE ${sql.in("asset_key", assetKeys)} ORDER BY asset_key`
      return yield* decode(() => rows.map(decodeInventory))
    },
    storeOp("inventory")
  )

  const findByIdempotencyKey = Effect.fn(`${spanPrefix}.findByIdempotencyKey`)(
    function*(scope: string, key: string) {
      return yield* selectByKey(scope, key)
    },
    storeOp("findByIdempotencyKey")
  )

  const issueInTransaction = (record: PermitRecord, amountOut: bigint, shares: HoldShares | undefined) =>
    transaction(
      Effect.gen(function*(): Effect.fn.Return<IssueResult, unknown> {
        const existing = yield* selectByKey(record.scope, record.idempotencyKey)
        if (existing !== undefined) return { _tag: "Duplicate", existing }
        // PostgreSQL: the row lock serializes every reservation against this asset
        const balance = yield* lockInventory(record.assetKey)
        if (balance === undefined) return { _tag: "UnknownAsset" }
        if (dialect.readCommitted) {
          // READ COMMITTED: this statement sees what a writer we waited for committed
          const raced = yield* selectByKey(record.scope, record.idempotencyKey)
          if (raced !== undefined) return { _tag: "Duplicate", existing: raced }
        }
        const available = availableOf(balance)
        if (available < amountOut) return { _tag: "InsufficientInventory", availableRaw: available }
        // the holder's share of the physical inventory (holds not yet backed by a fill)
        const physical = balance.configuredRaw - balance.paidOutRaw
        const clientKey = record.clientKey ?? null
        const capped: ReadonlyArray<
          readonly ["CLIENT" | "PAYER", number | undefined, Effect.Effect<ReadonlyArray<Row>, unknown>]
        > = [
          [
            "CLIENT",
            clientKey === null ? undefined : shares?.clientBps,
            sql<Row>`SELECT amount_out_raw FROM permits
              WHERE asset_key = ${record.assetKey} AND client_key = ${clientKey} AND state = 'ISSUED'`
          ],
          [
            "PAYER",
            shares?.payerBps,
            sql<Row>`SELECT amount_out_raw FROM permits
              WHERE asset_key = ${record.assetKey} AND scope = ${record.scope} AND state = 'ISSUED'`
          ]
        ]
        for (const [holder, bps, held] of capped) {
          if (bps === undefined) continue
          const limitRaw = (physical * BigInt(bps)) / 10_000n
          const heldRaw = (yield* held).reduce((sum, row) => sum + BigInt(text(row, "amount_out_raw")), 0n)
          if (heldRaw + amountOut > limitRaw) return { _tag: "HoldShareExceeded", holder, heldRaw, limitRaw }
        }
        // every payer without a completed fill, together; a payer with one is never counted nor refused
        const newPayer = !(yield* isProvenPayer(record.scope))
        if (newPayer && shares?.newPayersBps !== undefined) {
          const limitRaw = (physical * BigInt(shares.newPayersBps)) / 10_000n
          const heldRaw = yield* newPayersHold(record.assetKey)
          if (heldRaw + amountOut > limitRaw) {
            return { _tag: "HoldShareExceeded", holder: "NEW_PAYERS", heldRaw, limitRaw }
          }
        }
        if (newPayer) yield* addNewPayersHold(record.assetKey, amountOut)
        yield* sql`UPDATE inventory SET hold_raw = ${
          (balance.holdRaw + amountOut).toString()
        }, updated_at = ${record.createdAt}
          WHERE asset_key = ${record.assetKey}`
        const stored: PermitRecord = { ...record, state: "ISSUED" }
        yield* sql`INSERT INTO permits (
            fill_id, route_id, quote_id, asset_key, scope, idempotency_key, fingerprint, payer_address,
            amount_in_raw, amount_out_raw, state, reason_codes, source_tx_hash, payout_tx_hash,
            valid_until, created_at, updated_at, envelope, client_key, source_network_id, destination_network_id,
            new_payer
          ) VALUES (
            ${stored.fillId}, ${stored.routeId}, ${stored.quoteId}, ${stored.assetKey}, ${stored.scope},
            ${stored.idempotencyKey}, ${stored.fingerprint}, ${stored.payerAddress},
            ${stored.amountInRaw}, ${stored.amountOutRaw}, ${stored.state}, ${JSON.stringify(stored.reasonCodes)},
            ${stored.sourceTxHash}, ${stored.payoutTxHash},
            ${stored.validUntil}, ${stored.createdAt}, ${stored.updatedAt}, ${stored.envelope},
            ${stored.clientKey ?? null}, ${stored.sourceNetworkId?.toLowerCase() ?? null},
            ${stored.destinationNetworkId?.toLowerCase() ?? null}, ${newPayer ? 1 : 0}
          )`
        yield* bumpCounter(stored.routeId, "permits_issued", 1, stored.createdAt)
        return { _tag: "Issued", record: stored }
      })
    )

  const issuePermit = Effect.fn(`${spanPrefix}.issuePermit`)(
    function*(record: PermitRecord, shares?: HoldShares) {
      const amountOut = yield* parseAmount(record.amountOutRaw, "amountOutRaw")
      return yield* issueInTransaction(record, amountOut, shares).pipe(
        // two writers claimed the same (scope, key): the loser answers with the winner's record
        Effect.catchIf(isUniqueViolation, (error) =>
          selectByKey(record.scope, record.idempotencyKey).pipe(
            Effect.flatMap((existing): Effect.Effect<IssueResult, unknown> =>
              existing === undefined ? Effect.fail(error) : Effect.succeed({ _tag: "Duplicate", existing })
            )
          ))
      )
    },
    storeOp("issuePermit")
  )

  const getPermit = Effect.fn(`${spanPrefix}.getPermit`)(
    function*(fillId: string) {
      return yield* selectPermit(fillId, false)
    },
    storeOp("getPermit")
  )

  const findBySourceTx = Effect.fn(`${spanPrefix}.findBySourceTx`)(
    function*(sourceTxHash: string) {
      const rows = yield* sql<Row>`SELECT * FROM permits WHERE lower(source_tx_hash) = ${sourceTxHash.toLowerCase()}
        ORDER BY created_at DESC, fill_id LIMIT 1`
      return rows.length === 0 ? undefined : yield* decode(() => decodePermit(rows[0]!))
    },
    storeOp("findBySourceTx")
  )

  const listPermits = Effect.fn(`${spanPrefix}.listPermits`)(
    function*(filter: PermitFilter) {
      const limit = Math.max(0, Math.floor(filter.limit))
      if (limit === 0) return []
      const clauses = [
        ...(filter.quoteId === undefined ? [] : [sql`quote_id = ${filter.quoteId}`]),
        ...(filter.payerAddress === undefined ? [] : [sql`lower(payer_address) = ${filter.payerAddress.toLowerCase()}`])
      ]
      const where = clauses.length === 0 ? sql.literal("") : sql`WHERE ${sql.and(clauses)}`
      const rows = yield* sql<Row>`SELECT * FROM permits ${where} ORDER BY created_at DESC, fill_id LIMIT ${limit}`
      return yield* decode(() => rows.map(decodePermit))
    },
    storeOp("listPermits")
  )

  const transition = Effect.fn(`${spanPrefix}.transition`)(
    function*(request: TransitionRequest) {
      return yield* transaction(
        Effect.gen(function*(): Effect.fn.Return<TransitionResult, unknown> {
          const current = yield* selectPermit(request.fillId, true)
          if (current === undefined) return { _tag: "NotFound" }
          const from = current.state
          if (!canTransition(from, request.to) || (request.from !== undefined && request.from !== from)) {
            return { _tag: "Rejected", record: current }
          }
          const amount = yield* parseAmount(current.amountOutRaw, "permits.amount_out_raw")
          const balance = yield* lockInventory(current.assetKey)
          if (balance === undefined) {
            return yield* Effect.fail(
              new RowDecodeError(`inventory row ${current.assetKey} of permit ${current.fillId} is missing`)
            )
          }
          const buckets: Buckets = {
            paid_out_raw: balance.paidOutRaw,
            hold_raw: balance.holdRaw,
            liability_raw: balance.liabilityRaw,
            clearing_raw: balance.clearingRaw
          }
          const fromBucket = bucketOf(from)
          const toBucket = bucketOf(request.to)
          if (fromBucket === "hold" || fromBucket === "liability" || fromBucket === "clearing") {
            buckets[bucketColumn[fromBucket]] -= amount
          } else if (fromBucket === "paid") {
            // a payout that left the chain after PAID (depth finality): owed again
            buckets.paid_out_raw -= amount
          }
          if (toBucket === "hold" || toBucket === "liability" || toBucket === "clearing") {
            buckets[bucketColumn[toBucket]] += amount
          } else if (toBucket === "paid") {
            buckets.paid_out_raw += amount
          }
          yield* writeBuckets(current.assetKey, buckets, request.at)
          yield* trackNewPayers(current, from, request.to, amount, request.at)
          const updated: PermitRecord = {
            ...current,
            state: request.to,
            updatedAt: request.at,
            // back to ISSUED (a reorganised source fill): the fill's transaction is forgotten
            sourceTxHash: request.to === "ISSUED" ? null : request.sourceTxHash ?? current.sourceTxHash,
            payoutTxHash: request.payoutTxHash ?? current.payoutTxHash,
            reasonCodes: request.reasonCodes ?? current.reasonCodes
          }
          yield* sql`UPDATE permits SET
              state = ${updated.state},
              updated_at = ${updated.updatedAt},
              source_tx_hash = ${updated.sourceTxHash},
              payout_tx_hash = ${updated.payoutTxHash},
              reason_codes = ${JSON.stringify(updated.reasonCodes)}
            WHERE fill_id = ${updated.fillId}`
          if (request.to === "SOURCE_OBSERVED") yield* bumpCounter(current.routeId, "source_observed", 1, request.at)
          if (request.to === "PAID") yield* bumpCounter(current.routeId, "paid", 1, request.at)
          if (from === "PAID") yield* bumpCounter(current.routeId, "paid", -1, request.at)
          return { _tag: "Applied", from, record: updated }
        })
      )
    },
    storeOp("transition")
  )

  const dueForExpiry = Effect.fn(`${spanPrefix}.dueForExpiry`)(
    function*(cutoff: number, limit: number, filter?: { readonly sourceNetworkId?: string | undefined }) {
      const n = Math.max(0, Math.floor(limit))
      if (n === 0) return []
      const network = filter?.sourceNetworkId === undefined
        ? sql.literal("")
        : sql` AND source_network_id = ${filter.sourceNetworkId.toLowerCase()}`
      const rows = yield* sql<Row>`SELECT fill_id FROM permits
        WHERE state = 'ISSUED' AND valid_until <= ${Math.floor(cutoff)}${network}
        ORDER BY valid_until, fill_id LIMIT ${n}`
      return yield* decode(() => rows.map((row) => text(row, "fill_id")))
    },
    storeOp("dueForExpiry")
  )

  const permitsInStates = Effect.fn(`${spanPrefix}.permitsInStates`)(
    function*(states: ReadonlyArray<PermitState>, limit: number, filter?: StateFilter) {
      const n = Math.max(0, Math.floor(limit))
      if (n === 0 || states.length === 0) return []
      const clauses = [
        sql.in("state", states),
        ...(filter?.sourceNetworkId === undefined
          ? []
          : [sql`source_network_id = ${filter.sourceNetworkId.toLowerCase()}`]),
        ...(filter?.destinationNetworkId === undefined
          ? []
          : [sql`destination_network_id = ${filter.destinationNetworkId.toLowerCase()}`]),
        ...(filter?.updatedSince === undefined ? [] : [sql`updated_at >= ${Math.floor(filter.updatedSince)}`])
      ]
      const rows = filter?.newestFirst === true
        ? yield* sql<Row>`SELECT * FROM permits WHERE ${sql.and(clauses)}
          ORDER BY created_at DESC, fill_id DESC LIMIT ${n}`
        : yield* sql<Row>`SELECT * FROM permits WHERE ${sql.and(clauses)}
          ORDER BY created_at, fill_id LIMIT ${n}`
      return yield* decode(() => rows.map(decodePermit))
    },
    storeOp("permitsInStates")
  )

  const setReasonCodes = Effect.fn(`${spanPrefix}.setReasonCodes`)(
    function*(fillId: string, reasonCodes: ReadonlyArray<string>) {
      const rows = yield* sql<Row>`UPDATE permits SET reason_codes = ${JSON.stringify(reasonCodes)}
        WHERE fill_id = ${fillId.toLowerCase()} RETURNING *`
      return rows.length === 0 ? undefined : yield* decode(() => decodePermit(rows[0]!))
    },
    storeOp("setReasonCodes")
  )

  const setPaidPayout = Effect.fn(`${spanPrefix}.setPaidPayout`)(
    function*(fillId: string, payoutTxHash: string, at: number) {
      const rows = yield* sql<Row>`UPDATE permits SET payout_tx_hash = ${payoutTxHash.toLowerCase()}, updated_at = ${at}
        WHERE fill_id = ${fillId.toLowerCase()} AND state = 'PAID' RETURNING *`
      return rows.length === 0 ? undefined : yield* decode(() => decodePermit(rows[0]!))
    },
    storeOp("setPaidPayout")
  )

  const observeInventory = Effect.fn(`${spanPrefix}.observeInventory`)(
    function*(assets: ReadonlyArray<{ readonly assetKey: string; readonly physicalRaw: bigint }>) {
      if (assets.length === 0) return
      const now = yield* Clock.currentTimeMillis
      yield* transaction(Effect.forEach(assets, (a) =>
        Effect.gen(function*() {
          const balance = yield* lockInventory(a.assetKey)
          if (balance === undefined) return
          // physical = configured - paidOut: keep the paid-out total, move the configured figure
          const configured = (a.physicalRaw < 0n ? 0n : a.physicalRaw) + balance.paidOutRaw
          yield* sql`UPDATE inventory SET configured_raw = ${configured.toString()}, updated_at = ${now}
            WHERE asset_key = ${a.assetKey}`
        }), { discard: true }))
    },
    storeOp("observeInventory")
  )

  const chainCursor = Effect.fn(`${spanPrefix}.chainCursor`)(
    function*(networkId: string) {
      const rows = yield* sql<Row>`SELECT * FROM chain_cursors WHERE network_id = ${networkId.toLowerCase()}`
      const row = rows[0]
      if (row === undefined) return undefined
      return yield* decode(() => decodeCursor(row))
    },
    storeOp("chainCursor")
  )

  const chainCursors = Effect.fn(`${spanPrefix}.chainCursors`)(
    function*() {
      const rows = yield* sql<Row>`SELECT * FROM chain_cursors ORDER BY network_id`
      return yield* decode(() => rows.map(decodeCursor))
    },
    storeOp("chainCursors")
  )

  const saveChainCursor = Effect.fn(`${spanPrefix}.saveChainCursor`)(
    function*(c: ChainCursor) {
      yield* sql`INSERT INTO chain_cursors
          (network_id, block_number, block_hash, block_timestamp, updated_at, final_block_number, final_block_timestamp)
        VALUES (${c.networkId.toLowerCase()}, ${c.blockNumber.toString()}, ${c.blockHash}, ${c.blockTimestamp},
          ${c.updatedAt}, ${c.finalBlockNumber?.toString() ?? null}, ${c.finalBlockTimestamp ?? null})
        ON CONFLICT (network_id) DO UPDATE SET
          block_number = excluded.block_number,
          block_hash = excluded.block_hash,
          block_timestamp = excluded.block_timestamp,
          updated_at = excluded.updated_at,
          final_block_number = excluded.final_block_number,
          final_block_timestamp = excluded.final_block_timestamp`
    },
    storeOp("saveChainCursor")
  )

  const payoutIntent = Effect.fn(`${spanPrefix}.payoutIntent`)(
    function*(fillId: string) {
      const rows = yield* sql<Row>`SELECT * FROM payout_attempts WHERE fill_id = ${fillId.toLowerCase()}
        ORDER BY attempt DESC, created_at DESC LIMIT 1`
      return rows.length === 0 ? undefined : yield* decode(() => decodeIntent(rows[0]!))
    },
    storeOp("payoutIntent")
  )

  const payoutIntents = Effect.fn(`${spanPrefix}.payoutIntents`)(
    function*(fillId: string) {
      const rows = yield* sql<Row>`SELECT * FROM payout_attempts WHERE fill_id = ${fillId.toLowerCase()}
        ORDER BY attempt, created_at`
      return yield* decode(() => rows.map(decodeIntent))
    },
    storeOp("payoutIntents")
  )

  const openPayoutIntents = Effect.fn(`${spanPrefix}.openPayoutIntents`)(
    function*(networkId: string, sender: string, fromNonce: number) {
      const rows = yield* sql<Row>`SELECT a.* FROM payout_attempts a JOIN permits p ON p.fill_id = a.fill_id
        WHERE a.network_id = ${networkId.toLowerCase()} AND a.sender = ${sender}
          AND a.nonce >= ${Math.floor(fromNonce)} AND p.state = 'PAYOUT_SUBMITTED'
        ORDER BY a.nonce, a.attempt`
      return yield* decode(() => rows.map(decodeIntent))
    },
    storeOp("openPayoutIntents")
  )

  const savePayoutIntent = Effect.fn(`${spanPrefix}.savePayoutIntent`)(
    function*(i: PayoutIntent) {
      yield* sql`INSERT INTO payout_attempts
          (tx_hash, fill_id, network_id, sender, nonce, raw_transaction, attempt, max_fee_per_gas,
           max_priority_fee_per_gas, head_block, outcome, created_at)
        VALUES (${i.txHash.toLowerCase()}, ${i.fillId.toLowerCase()}, ${i.networkId.toLowerCase()}, ${i.sender},
          ${i.nonce}, ${i.rawTransaction}, ${i.attempt}, ${i.maxFeePerGas?.toString() ?? null},
          ${i.maxPriorityFeePerGas?.toString() ?? null}, ${i.headBlock?.toString() ?? null}, ${i.outcome ?? null},
          ${i.createdAt})
        ON CONFLICT (tx_hash) DO NOTHING`
    },
    storeOp("savePayoutIntent")
  )

  const markPayoutIntent = Effect.fn(`${spanPrefix}.markPayoutIntent`)(
    function*(txHash: string, outcome: "REVERTED" | "RETRIED") {
      yield* sql`UPDATE payout_attempts SET outcome = ${outcome} WHERE tx_hash = ${txHash.toLowerCase()}`
    },
    storeOp("markPayoutIntent")
  )

  const addCounters = Effect.fn(`${spanPrefix}.addCounters`)(
    function*(
      deltas: ReadonlyArray<{ readonly routeId: string; readonly counter: RouteCounter; readonly by: number }>
    ) {
      if (deltas.length === 0) return
      for (const d of deltas) {
        if (!COUNTERS.includes(d.counter) || !Number.isSafeInteger(d.by)) {
          return yield* Effect.fail(new RowDecodeError(`invalid counter delta ${JSON.stringify(d)}`))
        }
      }
      const now = yield* Clock.currentTimeMillis
      yield* transaction(
        Effect.forEach(deltas, (d) => bumpCounter(d.routeId, d.counter, d.by, now), { discard: true })
      )
    },
    storeOp("addCounters")
  )

  const routeCounters = Effect.fn(`${spanPrefix}.routeCounters`)(
    function*(routeId: string) {
      const rows = yield* sql<Row>`SELECT counter, value, updated_at FROM route_counters WHERE route_id = ${routeId}`
      return yield* decode((): RouteCounters => {
        const values: Record<RouteCounter, number> = {
          feed_exposures: 0,
          permit_requests: 0,
          permits_issued: 0,
          source_observed: 0,
          paid: 0
        }
        let updatedAt: number | null = null
        for (const row of rows) {
          const counter = text(row, "counter")
          if ((COUNTERS as ReadonlyArray<string>).includes(counter)) values[counter as RouteCounter] = int(row, "value")
          const at = int(row, "updated_at")
          updatedAt = updatedAt === null || at > updatedAt ? at : updatedAt
        }
        return { ...values, updatedAt }
      })
    },
    storeOp("routeCounters")
  )

  const saveQuote = Effect.fn(`${spanPrefix}.saveQuote`)(
    function*(q: StoredQuote) {
      yield* sql`INSERT INTO quotes (quote_token, quote_id, route_id, user_address, body, expires_at, created_at)
        VALUES (${q.quoteToken}, ${q.quoteId}, ${q.routeId}, ${q.userAddress}, ${q.body}, ${q.expiresAt}, ${q.createdAt})
        ON CONFLICT (quote_token) DO UPDATE SET
          quote_id = excluded.quote_id,
          route_id = excluded.route_id,
          user_address = excluded.user_address,
          body = excluded.body,
          expires_at = excluded.expires_at,
          created_at = excluded.created_at`
    },
    storeOp("saveQuote")
  )

  const getQuote = Effect.fn(`${spanPrefix}.getQuote`)(
    function*(quoteToken: string) {
      const rows = yield* sql<Row>`SELECT * FROM quotes WHERE quote_token = ${quoteToken}`
      return rows.length === 0 ? undefined : yield* decode(() => decodeQuote(rows[0]!))
    },
    storeOp("getQuote")
  )

  const pruneQuotes = Effect.fn(`${spanPrefix}.pruneQuotes`)(
    function*(before: number) {
      const rows = yield* sql<Row>`DELETE FROM quotes WHERE expires_at < ${Math.floor(before)} RETURNING quote_token`
      return rows.length
    },
    storeOp("pruneQuotes")
  )

  const prunePermits = Effect.fn(`${spanPrefix}.prunePermits`)(
    function*(before: number, limit: number) {
      return yield* transaction(Effect.gen(function*() {
        const rows = yield* sql<Row>`SELECT fill_id FROM permits
          WHERE ${sql.in("state", TERMINAL_STATES)} AND updated_at < ${Math.floor(before)}
          ORDER BY updated_at LIMIT ${Math.max(1, Math.floor(limit))}`
        const ids = rows.map((r) => text(r, "fill_id"))
        if (ids.length === 0) return 0
        yield* sql`DELETE FROM payout_attempts WHERE ${sql.in("fill_id", ids)}`
        yield* sql`DELETE FROM permits WHERE ${sql.in("fill_id", ids)}`
        return ids.length
      }))
    },
    storeOp("prunePermits")
  )

  return {
    kind: options.kind,
    nextDataVersion,
    recordPublication,
    savePublicationDocument,
    latestPublicationDocument,
    latestPublication,
    operatorState,
    setPaused,
    setPayoutsPaused,
    requestPublication,
    setRouteOverride,
    configureInventory,
    inventory,
    findByIdempotencyKey,
    issuePermit,
    getPermit,
    findBySourceTx,
    listPermits,
    transition,
    dueForExpiry,
    permitsInStates,
    setReasonCodes,
    setPaidPayout,
    observeInventory,
    chainCursor,
    saveChainCursor,
    chainCursors: chainCursors(),
    payoutIntent,
    payoutIntents,
    openPayoutIntents,
    savePayoutIntent,
    markPayoutIntent,
    addCounters,
    routeCounters,
    saveQuote,
    getQuote,
    pruneQuotes,
    prunePermits
  }
}
