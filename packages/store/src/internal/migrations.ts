/**
 * Versioned schema migrations shared by the SQLite and PostgreSQL stores.
 *
 * Applied versions are recorded in `svc_schema_migrations`. All pending
 * migrations run in one transaction that is serialized between processes
 * (`BEGIN IMMEDIATE` on SQLite, a transaction-scoped advisory lock on
 * PostgreSQL), so two processes starting at once never apply a migration twice.
 * A database whose recorded version is newer than this code knows is refused.
 *
 * Rules for new migrations: append, never edit an applied one; write SQL that
 * both SQLite and PostgreSQL accept, or give a function of the dialect (its
 * members, e.g. `jsonText`, rather than its name, so that other dialects follow).
 *
 * @internal
 */
import { Clock, Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { Dialect, Transaction } from "./sqlStore.ts"

/** @internal */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly statements: ReadonlyArray<string> | ((dialect: Dialect) => ReadonlyArray<string>)
}

/**
 * The migrations, in order. Amounts are TEXT decimals (they may exceed 64 bits);
 * timestamps are BIGINT Unix milliseconds except `valid_until` / `expires_at`
 * (Unix seconds, as in the protocol).
 *
 * @internal
 */
export const migrations: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: "initial",
    statements: [
      `CREATE TABLE meta_counters (
        name TEXT PRIMARY KEY,
        value BIGINT NOT NULL
      )`,
      `INSERT INTO meta_counters (name, value) VALUES ('data_version', 0)`,
      `CREATE TABLE publications (
        data_version BIGINT PRIMARY KEY,
        feed_hash TEXT NOT NULL,
        generated_at BIGINT NOT NULL,
        valid_until BIGINT NOT NULL,
        route_count BIGINT NOT NULL
      )`,
      `CREATE TABLE operator_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version BIGINT NOT NULL,
        paused INTEGER NOT NULL,
        pause_reason TEXT,
        updated_at BIGINT NOT NULL
      )`,
      `INSERT INTO operator_state (id, version, paused, pause_reason, updated_at) VALUES (1, 0, 0, NULL, 0)`,
      `CREATE TABLE route_overrides (
        route_id TEXT PRIMARY KEY,
        execution_status TEXT,
        daily_status TEXT,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE TABLE inventory (
        asset_key TEXT PRIMARY KEY,
        configured_raw TEXT NOT NULL,
        paid_out_raw TEXT NOT NULL,
        hold_raw TEXT NOT NULL,
        liability_raw TEXT NOT NULL,
        clearing_raw TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE TABLE permits (
        fill_id TEXT PRIMARY KEY,
        route_id TEXT NOT NULL,
        quote_id TEXT NOT NULL,
        asset_key TEXT NOT NULL REFERENCES inventory (asset_key),
        scope TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        payer_address TEXT,
        amount_in_raw TEXT NOT NULL,
        amount_out_raw TEXT NOT NULL,
        state TEXT NOT NULL,
        reason_codes TEXT NOT NULL,
        source_tx_hash TEXT,
        payout_tx_hash TEXT,
        valid_until BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        envelope TEXT NOT NULL,
        UNIQUE (scope, idempotency_key)
      )`,
      `CREATE INDEX permits_quote_id ON permits (quote_id, created_at)`,
      `CREATE INDEX permits_payer_address ON permits (lower(payer_address), created_at)`,
      `CREATE INDEX permits_source_tx_hash ON permits (lower(source_tx_hash))`,
      `CREATE INDEX permits_state_valid_until ON permits (state, valid_until)`,
      `CREATE INDEX permits_created_at ON permits (created_at)`,
      `CREATE TABLE route_counters (
        route_id TEXT NOT NULL,
        counter TEXT NOT NULL,
        value BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (route_id, counter)
      )`,
      `CREATE TABLE quotes (
        quote_token TEXT PRIMARY KEY,
        quote_id TEXT NOT NULL,
        route_id TEXT NOT NULL,
        user_address TEXT,
        body TEXT NOT NULL,
        expires_at BIGINT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX quotes_expires_at ON quotes (expires_at)`
    ]
  },
  {
    version: 2,
    name: "chain settlement",
    statements: [
      // block numbers as TEXT decimals like amounts (a chain's height may exceed 2^53 in theory)
      `CREATE TABLE chain_cursors (
        network_id TEXT PRIMARY KEY,
        block_number TEXT NOT NULL,
        block_hash TEXT NOT NULL,
        block_timestamp BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE TABLE payout_intents (
        fill_id TEXT PRIMARY KEY REFERENCES permits (fill_id),
        network_id TEXT NOT NULL,
        tx_hash TEXT NOT NULL,
        raw_transaction TEXT NOT NULL,
        nonce BIGINT NOT NULL,
        sender TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        created_at BIGINT NOT NULL
      )`
    ]
  },
  {
    version: 3,
    name: "replicas",
    statements: [
      // the signed documents of the newest publications: every replica serves the leader's bytes
      `CREATE TABLE publication_documents (
        data_version BIGINT PRIMARY KEY,
        document TEXT NOT NULL
      )`,
      // retention finds old terminal permits without a scan
      `CREATE INDEX permits_state_updated_at ON permits (state, updated_at)`
    ]
  },
  {
    version: 4,
    name: "hold shares",
    statements: [
      // who asked for each permit: a client's outstanding holds are capped
      `ALTER TABLE permits ADD COLUMN client_key TEXT`,
      `CREATE INDEX permits_asset_client ON permits (asset_key, client_key, state)`,
      `CREATE INDEX permits_asset_scope ON permits (asset_key, scope, state)`
    ]
  },
  {
    version: 5,
    name: "payouts that always land",
    statements: (dialect) => [
      // each network's watcher and payout loop reads only its own permits
      `ALTER TABLE permits ADD COLUMN source_network_id TEXT`,
      `ALTER TABLE permits ADD COLUMN destination_network_id TEXT`,
      `UPDATE permits SET
            source_network_id = lower(${dialect.jsonText("envelope", ["permit", "sourceNetworkId"])}),
            destination_network_id = lower(${dialect.jsonText("envelope", ["permit", "destinationNetworkId"])})`,
      `CREATE INDEX permits_source_network_state ON permits (source_network_id, state, created_at)`,
      `CREATE INDEX permits_destination_network_state ON permits (destination_network_id, state, created_at)`,
      // the newest block the watcher has read that is final by the network's rule
      `ALTER TABLE chain_cursors ADD COLUMN final_block_number TEXT`,
      `ALTER TABLE chain_cursors ADD COLUMN final_block_timestamp BIGINT`,
      // every transaction signed for a payout (fee replacements, new nonces), each stored before it is sent
      `CREATE TABLE payout_attempts (
        tx_hash TEXT PRIMARY KEY,
        fill_id TEXT NOT NULL REFERENCES permits (fill_id),
        network_id TEXT NOT NULL,
        sender TEXT NOT NULL,
        nonce BIGINT NOT NULL,
        raw_transaction TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        max_fee_per_gas TEXT,
        max_priority_fee_per_gas TEXT,
        head_block TEXT,
        outcome TEXT,
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX payout_attempts_fill ON payout_attempts (fill_id, attempt)`,
      `CREATE INDEX payout_attempts_nonce ON payout_attempts (network_id, sender, nonce)`,
      `INSERT INTO payout_attempts (tx_hash, fill_id, network_id, sender, nonce, raw_transaction, attempt, created_at)
        SELECT lower(tx_hash), fill_id, network_id, sender, nonce, raw_transaction, attempt, created_at FROM payout_intents`,
      `DROP TABLE payout_intents`
    ]
  },
  {
    version: 6,
    name: "new payers' share",
    statements: [
      // payers with a completed (PAID) fill: the cap on payers without one never counts them
      `CREATE TABLE proven_payers (
        scope TEXT PRIMARY KEY,
        first_paid_at BIGINT NOT NULL
      )`,
      `INSERT INTO proven_payers (scope, first_paid_at)
        SELECT scope, MIN(updated_at) FROM permits WHERE state = 'PAID' GROUP BY scope`,
      // whether a permit's payer had no completed fill when it was issued: its hold counts in
      // inventory.new_payers_hold_raw while it is ISSUED
      `ALTER TABLE permits ADD COLUMN new_payer INTEGER NOT NULL DEFAULT 0`,
      `ALTER TABLE inventory ADD COLUMN new_payers_hold_raw TEXT NOT NULL DEFAULT '0'`
    ]
  },
  {
    version: 7,
    name: "payout pauses",
    statements: [
      // payouts paused by the operator, per catalog network key ('*': every network)
      `CREATE TABLE payout_pauses (
        network TEXT PRIMARY KEY,
        reason TEXT,
        paused_at BIGINT NOT NULL
      )`
    ]
  }
]

/** The latest schema version this code knows. @internal */
export const latestVersion: number = migrations.reduce((max, m) => Math.max(max, m.version), 0)

class MigrationError extends Error {
  override readonly name = "MigrationError"
}

/**
 * Applies the pending migrations; returns the versions applied.
 *
 * @internal
 */
export const migrate = (
  sql: SqlClient.SqlClient,
  dialect: Dialect,
  transaction: Transaction
): Effect.Effect<ReadonlyArray<number>, unknown> =>
  transaction(
    Effect.gen(function*() {
      // serializes concurrent starts against the same schema (released at commit)
      if (dialect.migrationLock !== undefined) yield* dialect.migrationLock(sql)
      yield* sql.unsafe(
        `CREATE TABLE IF NOT EXISTS svc_schema_migrations (
          version INTEGER PRIMARY KEY,
          name TEXT NOT NULL,
          applied_at BIGINT NOT NULL
        )`
      )
      const rows = yield* sql<{ readonly version: unknown }>`SELECT version FROM svc_schema_migrations`
      const applied = new Set(rows.map((row) => Number(row.version)))
      const newest = Math.max(0, ...applied)
      if (newest > latestVersion) {
        return yield* Effect.fail(
          new MigrationError(
            `the database schema is at version ${newest}, newer than this release knows (${latestVersion}); refusing to start`
          )
        )
      }
      const now = yield* Clock.currentTimeMillis
      const done: Array<number> = []
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (applied.has(migration.version)) continue
        const statements = typeof migration.statements === "function"
          ? migration.statements(dialect)
          : migration.statements
        for (const statement of statements) {
          yield* sql.unsafe(statement)
        }
        yield* sql`INSERT INTO svc_schema_migrations (version, name, applied_at) VALUES (${migration.version}, ${migration.name}, ${now})`
        done.push(migration.version)
      }
      return done
    })
  )
