/**
 * `svc admin` against a deployment's store: every answer names the store it acted
 * on; a route the catalog does not have is refused; `svc admin republish` makes a
 * running server publish a new version within seconds, which a stream client
 * (examples/client/stream.ts) receives at once. The `svc admin` command lines run
 * one after another in one process of the full command line (support/svc.ts, svcAll).
 */
import { assert, describe, it } from "@effect/vitest"
import { Store } from "@svc/core"
import { SqliteStore } from "@svc/store"
import { Effect, Redacted } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { scaled } from "../../../test/support/time.ts"
import { storeName } from "../src/Admin.ts"
import { BIN, childEnv, oneLineRefusal, ROOT, svcAll } from "./support/svc.ts"

const json = (r: { code: number | null; stdout: string; stderr: string }) => {
  assert.strictEqual(r.code, 0, r.stderr)
  assert.strictEqual(r.stdout.split("\n").length, 2, "one JSON value and LF")
  return JSON.parse(r.stdout)
}

interface Running {
  readonly child: ChildProcess
  readonly url: string
  readonly exit: Promise<number | null>
}

const start = (dataDir: string): Promise<Running> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "serve"], {
      env: childEnv({ PORT: "0", HOST: "127.0.0.1", SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warning" }),
      stdio: ["ignore", "pipe", "pipe"]
    })
    const exit = new Promise<number | null>((done) => child.once("exit", done))
    let out = ""
    let err = ""
    child.stderr!.on("data", (d) => (err += d))
    child.stdout!.on("data", (d) => {
      out += d
      const m = /svc listening on (\S+)/.exec(out)
      if (m !== null) resolve({ child, url: m[1]!, exit })
    })
    exit.then((code) => reject(new Error(`server exited ${code}: ${err}`)))
    setTimeout(() => reject(new Error(`server did not start: ${out} ${err}`)), scaled(30_000)).unref()
  })

const dataVersionOf = async (url: string) =>
  BigInt((await (await fetch(`${url}/api/v6/solver-feed`)).json() as any).feed.dataVersion)

describe("svc admin", () => {
  it("every answer names its store: sqlite:<absolute path> or postgres:<database>", {
    timeout: scaled(60_000)
  }, async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "svc-admin-")))
    try {
      mkdirSync(join(base, "work"))
      // a relative SVC_DATA_DIR: the answer names the absolute path of the database file
      const env = { SVC_DATA_DIR: "data" }
      const cwd = join(base, "work")
      const expected = `sqlite:${join(cwd, "data", "svc.sqlite")}`
      mkdirSync(join(cwd, "data"))
      const [first, paused, expired, unknownPermit, pg, last] = await svcAll([
        { args: ["admin", "status"], env },
        { args: ["admin", "pause", "--reason", "maintenance"], env },
        { args: ["admin", "expire"], env },
        { args: ["admin", "permit", `0x${"ab".repeat(32)}`], env },
        { args: ["admin", "status"], env: { ...env, DATABASE_URL: "postgres://svc:secret-pw@127.0.0.1:1/svc_orders" } },
        { args: ["admin", "resume"], env }
      ], { cwd })
      const status = json(first!)
      assert.strictEqual(status.store, expected)
      assert.strictEqual(Object.keys(status)[0], "store", "the store comes first")
      assert.strictEqual(json(paused!).store, expected)
      assert.isTrue(json(paused!).paused)
      assert.deepStrictEqual(json(expired!), { store: expected, expired: 0 })
      assert.match(oneLineRefusal(unknownPermit!), new RegExp(`no permit with fillId 0x(ab)+ in ${expected}$`))
      // a store that cannot open: the setting, the store's name, never the URL or its password
      const pgLine = oneLineRefusal(pg!)
      assert.match(pgLine, /^svc: DATABASE_URL: cannot open the store postgres:svc_orders: /)
      assert.notInclude(pgLine, "secret-pw")
      const resumed = json(last!)
      assert.strictEqual(resumed.store, expected)
      assert.isFalse(resumed.paused)
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
    assert.strictEqual(
      storeName({
        databaseUrl: Redacted.make("postgresql://u:p%40ss@db.example:5432/my%20db?sslmode=require"),
        dataDir: "x"
      }),
      "postgres:my db"
    )
    assert.strictEqual(
      storeName({ databaseUrl: Redacted.make("postgres://alice:pw@db.example"), dataDir: "x" }),
      "postgres:alice"
    )
  })

  it("a store plug-in named by SVC_STORE: the commands act on it and name it; a bad setting is one line", {
    timeout: scaled(60_000)
  }, async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "svc-admin-plugin-")))
    try {
      for (
        const [name, target] of [["@svc/core", "packages/core"], ["@svc/store", "packages/store"], [
          "effect",
          "node_modules/effect"
        ]] as const
      ) {
        mkdirSync(dirname(join(base, "node_modules", name)), { recursive: true })
        symlinkSync(realpathSync(join(ROOT, target)), join(base, "node_modules", name))
      }
      writeFileSync(
        join(base, "file-store.mjs"),
        [
          `import { Plugin } from "@svc/core"`,
          `import { SqliteStore } from "@svc/store"`,
          `import { Config } from "effect"`,
          `export default Plugin.make({`,
          `  kind: "store",`,
          `  name: "file-store",`,
          `  settings: Config.String("FILE_STORE_PATH"),`,
          `  layer: (filename) => SqliteStore.layer({ filename })`,
          `})`,
          ``
        ].join("\n")
      )
      const env = { SVC_STORE: "./file-store.mjs", FILE_STORE_PATH: join(base, "orders.sqlite"), SVC_DATA_DIR: "data" }
      const [paused, status, unset] = await svcAll([
        { args: ["admin", "pause", "--reason", "maintenance"], env },
        { args: ["admin", "status"], env },
        { args: ["admin", "status"], env: { SVC_STORE: "./file-store.mjs", SVC_DATA_DIR: "data" } }
      ], { cwd: base })
      assert.strictEqual(json(paused!).store, "./file-store.mjs")
      assert.isTrue(json(status!).paused)
      assert.isTrue(existsSync(join(base, "orders.sqlite")), "the plug-in's database holds the state")
      assert.isFalse(existsSync(join(base, "data", "svc.sqlite")), "the data directory's SQLite is not touched")
      assert.match(oneLineRefusal(unset!), /^svc: SVC_STORE: \.\/file-store\.mjs: .*FILE_STORE_PATH/)
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })

  it(
    "route: an id the catalog does not have is refused, naming it; RESET clears a stale override",
    { timeout: scaled(60_000) },
    async () => {
      const base = realpathSync(mkdtempSync(join(tmpdir(), "svc-admin-")))
      try {
        const env = { SVC_DATA_DIR: base }
        const unknownId = `0x${"12".repeat(32)}`
        const [unknown, malformed, missingCatalog, status] = await svcAll([
          { args: ["admin", "route", unknownId, "PAUSED"], env },
          { args: ["admin", "route", "0x12", "PAUSED"], env },
          { args: ["admin", "route", unknownId, "PAUSED"], env: { ...env, SVC_CATALOG: join(base, "missing.json") } },
          { args: ["admin", "status"], env }
        ])
        assert.strictEqual(
          oneLineRefusal(unknown!),
          `svc: route ${unknownId} is not in the catalog (the demo catalog); its routeIds are in the feed's routes`
        )
        assert.match(oneLineRefusal(malformed!), /routeId: must be 0x followed by 64 hex digits/)
        assert.match(oneLineRefusal(missingCatalog!), /^svc: SVC_CATALOG: cannot read /)
        // nothing was written for the refused ones
        assert.deepStrictEqual(json(status!).routes, {})
        // an override the store holds for a route the catalog no longer has: RESET clears it
        await Effect.runPromise(
          Effect.flatMap(
            Effect.service(Store.Store),
            (store) => store.setRouteOverride(unknownId, { executionStatus: "PAUSED" })
          ).pipe(
            Effect.provide(SqliteStore.layer({ filename: join(base, "svc.sqlite") }))
          )
        )
        const [open, reset] = await svcAll([
          { args: ["admin", "route", unknownId, "OPEN"], env },
          { args: ["admin", "route", unknownId, "RESET"], env }
        ])
        assert.match(oneLineRefusal(open!), /is not in the catalog/)
        assert.deepStrictEqual(json(reset!).routes, {})
      } finally {
        rmSync(base, { recursive: true, force: true })
      }
    }
  )

  it(
    "permit says in words what a payout waits for and lists its transactions; payouts retry releases one that waits for the operator; payouts pause and resume per network or all",
    { timeout: scaled(60_000) },
    async () => {
      const base = realpathSync(mkdtempSync(join(tmpdir(), "svc-admin-payouts-")))
      try {
        const fillId = `0x${"cd".repeat(32)}`
        const txHash = `0x${"e1".repeat(32)}`
        const assetKey = `0x${"a5".repeat(32)}`
        await Effect.runPromise(
          Effect.gen(function*() {
            const store = yield* Store.Store
            yield* store.configureInventory([{ assetKey, configuredRaw: 1000n }])
            yield* store.issuePermit({
              fillId,
              routeId: `0x${"01".repeat(32)}`,
              quoteId: `0x${"02".repeat(32)}`,
              assetKey,
              scope: "0xpayer",
              idempotencyKey: "admin-payouts-1",
              fingerprint: "fp",
              payerAddress: null,
              amountInRaw: "10",
              amountOutRaw: "9",
              state: "ISSUED",
              reasonCodes: [],
              sourceTxHash: null,
              payoutTxHash: null,
              validUntil: 4_000_000_000,
              createdAt: 1,
              updatedAt: 1,
              envelope: "{}"
            })
            for (const to of ["SOURCE_OBSERVED", "SOURCE_CONFIRMED", "PAYOUT_SUBMITTED"] as const) {
              yield* store.transition({ fillId, to, at: 2, sourceTxHash: `0x${"5a".repeat(32)}`, payoutTxHash: txHash })
            }
            yield* store.savePayoutIntent({
              fillId,
              networkId: `0x${"0e".repeat(32)}`,
              txHash,
              rawTransaction: "0x02",
              nonce: 4,
              sender: "0x" + "aa".repeat(20),
              attempt: 1,
              createdAt: 3,
              maxFeePerGas: 30n,
              maxPriorityFeePerGas: 2n
            })
            yield* store.markPayoutIntent(txHash, "REVERTED")
            yield* store.setReasonCodes(fillId, ["PAYOUT_REVERTED", "PAYOUT_NEEDS_OPERATOR"])
          }).pipe(Effect.provide(SqliteStore.layer({ filename: join(base, "svc.sqlite") })))
        )
        const env = { SVC_DATA_DIR: base }
        const [before, retried, after, again, paused, unknown, all, resumedAll, resumed] = await svcAll([
          { args: ["admin", "permit", fillId], env },
          { args: ["admin", "payouts", "retry", fillId], env },
          { args: ["admin", "permit", fillId], env },
          { args: ["admin", "payouts", "retry", fillId], env },
          { args: ["admin", "payouts", "pause", "bsc", "--reason", "incident 7"], env },
          { args: ["admin", "payouts", "pause", "nosuch"], env },
          { args: ["admin", "payouts", "pause"], env },
          { args: ["admin", "payouts", "resume"], env },
          { args: ["admin", "payouts", "resume", "bsc"], env }
        ])
        assert.deepStrictEqual(json(paused!).payoutPauses, { bsc: { reason: "incident 7" } })
        assert.match(
          oneLineRefusal(unknown!),
          /^svc: network nosuch is not in the catalog \(the demo catalog\); its networks: base, bsc/
        )
        assert.deepStrictEqual(json(all!).payoutPauses, { "*": { reason: null }, bsc: { reason: "incident 7" } })
        assert.deepStrictEqual(json(resumedAll!).payoutPauses, { bsc: { reason: "incident 7" } })
        assert.deepStrictEqual(json(resumed!).payoutPauses, {})
        const waiting = json(before!)
        assert.deepStrictEqual(waiting.reasonCodes, ["PAYOUT_REVERTED", "PAYOUT_NEEDS_OPERATOR"])
        assert.strictEqual(waiting.waitingFor.length, 2)
        assert.match(waiting.waitingFor[1], /^PAYOUT_NEEDS_OPERATOR: .*svc admin payouts retry <fillId>/)
        assert.deepStrictEqual(waiting.payoutTransactions, [{
          txHash,
          nonce: 4,
          attempt: 1,
          maxFeePerGas: "30",
          maxPriorityFeePerGas: "2",
          outcome: "REVERTED",
          signedAt: new Date(3).toISOString()
        }])
        assert.deepStrictEqual(json(retried!), { store: `sqlite:${join(base, "svc.sqlite")}`, fillId, released: 1 })
        const released = json(after!)
        assert.deepStrictEqual(released.reasonCodes, ["PAYOUT_REVERTED"])
        assert.strictEqual(released.payoutTransactions[0].outcome, "RETRIED")
        assert.match(oneLineRefusal(again!), /does not wait for the operator \(state PAYOUT_SUBMITTED/)
      } finally {
        rmSync(base, { recursive: true, force: true })
      }
    }
  )

  it(
    "republish: the running server publishes a new version within seconds; stream.ts says what it waits for, then prints it",
    { timeout: scaled(120_000) },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "svc-admin-republish-"))
      const server = await start(dataDir)
      const stream = spawn(process.execPath, [join(ROOT, "examples/client/stream.ts")], {
        env: childEnv({ SVC_URL: server.url, SVC_STREAM_COUNT: "2" }),
        stdio: ["ignore", "pipe", "pipe"]
      })
      const streamExit = new Promise<number | null>((done) => stream.once("exit", done))
      let streamOut = ""
      let streamErr = ""
      stream.stdout!.on("data", (d) => (streamOut += d))
      stream.stderr!.on("data", (d) => (streamErr += d))
      try {
        // the stream got the current feed and, with nothing new, says what it waits for
        const deadline = Date.now() + scaled(45_000)
        while (!streamErr.includes("waiting for the next publication") && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100))
        }
        const before = await dataVersionOf(server.url)
        assert.match(
          streamErr,
          new RegExp(
            `^connected; the current feed is dataVersion ${before}; waiting for the next publication \\(the server republishes about every 150 s, and when a route changes; \`svc admin republish\` triggers one now\\)\\n$`
          )
        )
        assert.strictEqual(JSON.parse(streamOut.trim().split("\n").at(-1)!).feed, String(before))

        const env = { SVC_DATA_DIR: dataDir }
        const requested = json((await svcAll([{ args: ["admin", "republish"], env }]))[0]!)
        const asked = Date.now()
        assert.strictEqual(requested.store, `sqlite:${join(dataDir, "svc.sqlite")}`)
        assert.isTrue(requested.republishRequested)
        let after = before
        // within seconds (5 on a quiet machine)
        while (after === before && Date.now() - asked < scaled(5_000)) {
          await new Promise((r) => setTimeout(r, 100))
          after = await dataVersionOf(server.url)
        }
        assert.isTrue(after > before, `a new dataVersion within seconds of svc admin republish (still ${before})`)

        // the stream client received it and ends (SVC_STREAM_COUNT=2)
        assert.strictEqual(await streamExit, 0, streamErr)
        const done = JSON.parse(streamOut.trim().split("\n").at(-1)!)
        assert.deepStrictEqual(done, { done: true, versions: [String(before), String(after)] })

        // a route of the catalog the server serves is set, and reset
        const feed = await (await fetch(`${server.url}/api/v6/solver-feed`)).json() as any
        const routeId = feed.feed.openRoutes[0].routeId as string
        // then, while paused, there is nothing to publish: refused, saying so
        const [set, reset, pause, refused] = await svcAll([
          { args: ["admin", "route", routeId, "PAUSED"], env },
          { args: ["admin", "route", routeId, "RESET"], env },
          { args: ["admin", "pause"], env },
          { args: ["admin", "republish"], env }
        ])
        assert.deepStrictEqual(json(set!).routes[routeId], { executionStatus: "PAUSED" })
        json(reset!)
        json(pause!)
        assert.match(oneLineRefusal(refused!), /publication is paused/)
      } finally {
        stream.kill("SIGKILL")
        server.child.kill("SIGKILL")
        await server.exit
        rmSync(dataDir, { recursive: true, force: true })
      }
    }
  )
})
