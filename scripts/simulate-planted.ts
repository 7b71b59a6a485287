/**
 * Does the simulation find real bugs? Each bug below is planted, one at a
 * time, in a temporary copy of the sources (never in the repository), and the
 * simulation runs from that copy, seed after seed, until an invariant fails.
 * The first five are the settlement failures the payouts work fixed; the others
 * are plausible mistakes across permits, inventory, settlement, feeds and
 * coordination. docs/simulation.md has the table of a run.
 *
 *   npm run simulate:planted [-- --bug NAME[,NAME]] [--seeds N] [--fills N] [--jobs N] [--from SEED]
 *
 * For each bug: the first failing seed, the invariant that caught it and the
 * time to find it (wall clock, seeds run in order from 1). Exit 0 only when
 * every bug is found within the seeds (default 200 seeds of 200 fills). A bug
 * may name the run its hunt uses (`run`, arguments of `npm run simulate`) when
 * the default run, every fault at once, cannot show it (docs/simulation.md).
 */
import { spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** A change to one source file: `find` must occur exactly once (or at least once with `all`). */
export interface Patch {
  readonly file: string
  readonly find: string
  readonly replace: string
  readonly all?: boolean
}

/** A planted bug. */
export interface Planted {
  readonly name: string
  readonly area: "settlement" | "permits" | "inventory" | "feeds" | "coordination"
  /** What is wrong, in words. */
  readonly bug: string
  readonly patches: ReadonlyArray<Patch>
  /**
   * The run its hunt uses instead of the default (every fault), as arguments of
   * `npm run simulate`; docs/simulation.md says why.
   */
  readonly run?: ReadonlyArray<string>
}

const SETTLEMENT = "packages/core/src/internal/settlement.ts"

export const PLANTED: ReadonlyArray<Planted> = [
  {
    name: "revert-terminal",
    area: "settlement",
    bug: "a reverted payout makes its permit FAILED (PAYOUT_REVERTED) for good",
    patches: [{
      file: SETTLEMENT,
      find: "  // after a revert: back-off, then within the budget a new transaction\n",
      replace:
        "  // after a revert: back-off, then within the budget a new transaction\n  if (reverted) return yield* Effect.asVoid(deps.observer.failed(record.fillId, [\"PAYOUT_REVERTED\"]))\n"
    }]
  },
  {
    name: "nonce-from-memory",
    area: "settlement",
    bug: "the next nonce is the one after the last this process signed (memory), and nothing fills the holes it leaves",
    patches: [{
      file: SETTLEMENT,
      find: "  const nonce = PayoutPolicy.nextNonce(p.nonces.latest, p.held)\n",
      replace:
        "  const memory = p.r as { memo?: number }\n  const nonce = memory.memo ?? PayoutPolicy.nextNonce(p.nonces.latest, p.held)\n  memory.memo = nonce + 1\n",
      all: true
    }, {
      file: SETTLEMENT,
      find: "  yield* fillGap(deps, p, open)\n",
      replace: ""
    }]
  },
  {
    name: "global-window",
    area: "settlement",
    bug: "each payout pass reads one window of the oldest confirmed permits of every network, not its own network's",
    // a vault drained for minutes on one network while the others stay calm, and a window that 200 fills can fill
    run: ["--faults", "vault-withdraw", "--top-up", "120..240", "--batch-size", "16"],
    patches: [{
      file: SETTLEMENT,
      find:
        "  const confirmed = yield* deps.store.permitsInStates([\"SOURCE_CONFIRMED\"], deps.batch, {\n    destinationNetworkId: r.networkId\n  })\n",
      replace:
        "  const confirmed = (yield* deps.store.permitsInStates([\"SOURCE_CONFIRMED\"], deps.batch)).filter((x) =>\n    x.destinationNetworkId === r.networkId\n  )\n"
    }]
  },
  {
    name: "no-source-recheck",
    area: "settlement",
    bug: "a confirmed source fill is not checked again before its payout is signed",
    patches: [{
      file: SETTLEMENT,
      find: "  if (!(yield* sourceStillThere(deps, record, permit, p.ahead.sources))) return\n",
      replace: ""
    }]
  },
  {
    name: "no-fee-replacement",
    area: "settlement",
    bug: "a pending payout is never replaced with higher fees (only when the node refuses it as underpriced)",
    patches: [{
      file: SETTLEMENT,
      find: "  if (now !== true) {\n",
      replace: "  if (now !== true) {\n    if (now === undefined) return\n"
    }]
  },
  {
    name: "replay-unverified",
    area: "permits",
    bug: "an idempotent replay returns the stored permit without verifying the new request's signature",
    patches: [{
      file: "packages/core/src/Permits.ts",
      find: "        if (signature !== undefined) {\n",
      replace: "        if (signature !== undefined && signature.length === 0) {\n"
    }]
  },
  {
    name: "conflict-replayed",
    area: "permits",
    bug: "a request reusing an idempotency key for other terms gets the first permit instead of IDEMPOTENCY_CONFLICT",
    patches: [{
      file: "packages/core/src/Permits.ts",
      find: "        if (existing.fingerprint !== fingerprint) {\n          return yield* fail(\n",
      replace:
        "        if (existing.fingerprint !== fingerprint && existing.scope === \"\") {\n          return yield* fail(\n"
    }]
  },
  {
    name: "status-stale-state",
    area: "permits",
    bug: "a permit read back carries the state of the stored envelope (ISSUED), not the record's",
    patches: [{
      file: "packages/core/src/PermitEnvelope.ts",
      find: "    state: record.state,\n",
      replace: ""
    }]
  },
  {
    name: "status-hashes-swapped",
    area: "permits",
    bug: "a permit read back carries its source transaction as its payout transaction",
    patches: [{
      file: "packages/core/src/PermitEnvelope.ts",
      find: "    payoutTxHash: record.payoutTxHash\n",
      replace: "    payoutTxHash: record.sourceTxHash\n"
    }]
  },
  {
    name: "submitted-as-liability",
    area: "inventory",
    bug: "a PAYOUT_SUBMITTED permit keeps its amount in the liability bucket instead of the clearing commitment",
    patches: [{
      file: "packages/core/src/Lifecycle.ts",
      find:
        "    case \"SOURCE_CONFIRMED\":\n      return \"liability\"\n    case \"PAYOUT_SUBMITTED\":\n      return \"clearing\"\n",
      replace: "    case \"SOURCE_CONFIRMED\":\n    case \"PAYOUT_SUBMITTED\":\n      return \"liability\"\n"
    }]
  },
  {
    name: "vault-uncapped",
    area: "inventory",
    bug: "the vault's balance becomes the physical inventory without the catalog's inventoryRaw cap",
    patches: [{
      file: "packages/core/src/ChainSettlement.ts",
      find: "physicalRaw: cap !== null && cap < balance ? cap : balance",
      replace: "physicalRaw: balance"
    }]
  },
  {
    name: "paid-at-inclusion",
    area: "settlement",
    bug: "a payout is PAID as soon as it is mined, not at the destination's finality",
    patches: [{
      file: SETTLEMENT,
      find: "  inclusion.blockNumber <= p.final\n",
      replace: "  inclusion.blockNumber <= p.head.number\n"
    }]
  },
  {
    name: "expiry-at-head",
    area: "settlement",
    bug: "an ISSUED permit expires once the newest block read (not a final one) is stamped past its validUntil",
    patches: [{
      file: "packages/core/src/Settlement.ts",
      find: "          const due = yield* store.dueForExpiry(cursor.finalBlockTimestamp, 500, {\n",
      replace: "          const due = yield* store.dueForExpiry(cursor.blockTimestamp, 500, {\n"
    }]
  },
  {
    name: "reorg-not-reread",
    area: "settlement",
    bug: "when the block under the watcher's cursor changed, it reads on from the cursor instead of from below it",
    patches: [{
      file: SETTLEMENT,
      find: "      from = cursor.blockNumber > deps.reorgDepth ? cursor.blockNumber - deps.reorgDepth : 0n\n",
      replace: "      from = cursor.blockNumber + 1n\n"
    }]
  },
  {
    name: "amount-in-unchecked",
    area: "settlement",
    bug: "a source fill whose amountIn differs from its permit's is taken as the permit's fill",
    patches: [{
      file: SETTLEMENT,
      find: "  if (BigInt(permit.amountInRaw) !== fill.amountInRaw) codes.push(\"SOURCE_FILL_AMOUNT_IN_MISMATCH\")\n",
      replace: ""
    }]
  },
  {
    name: "unfenced",
    area: "coordination",
    bug: "settlement does not check that it still leads before it signs and sends (a frozen leader, resumed, goes on)",
    patches: [{
      file: SETTLEMENT,
      find: "  yield* fence(deps)\n",
      replace: "",
      all: true
    }, {
      file: SETTLEMENT,
      find: "    fence(deps),\n    p.payer.send(signed)",
      replace: "    Effect.void,\n    p.payer.send(signed)"
    }]
  },
  {
    name: "leader-work-not-restarted",
    area: "coordination",
    bug: "a replica that lost leadership and got it back never starts its leader's work again",
    patches: [{
      file: "packages/core/src/Coordination.ts",
      find: "          const fiber = running\n          running = undefined\n",
      replace: "          const fiber = running\n"
    }]
  },
  {
    name: "data-version-in-memory",
    area: "feeds",
    bug: "the publisher counts dataVersions in memory from its own last publication",
    patches: [{
      file: "packages/core/src/internal/publisher/documents.ts",
      find: "      const dataVersion = yield* store.nextDataVersion.pipe(\n",
      replace:
        "      const counter = memo as { dv?: bigint }\n      const dataVersion = counter.dv = counter.dv !== undefined ? counter.dv + 1n : yield* store.nextDataVersion.pipe(\n"
    }]
  }
]

/** Copies what the simulation runs from into a new directory and plants the bug there. */
export const plant = (bug: Planted): string => {
  const dir = mkdtempSync(join(tmpdir(), `svc-planted-${bug.name}-`))
  for (const pkg of ["protocol", "core", "store", "connector-evm"]) {
    const from = join(root, "packages", pkg)
    const to = join(dir, "packages", pkg)
    mkdirSync(to, { recursive: true })
    cpSync(join(from, "src"), join(to, "src"), { recursive: true })
    cpSync(join(from, "package.json"), join(to, "package.json"))
    if (existsSync(join(from, "node_modules"))) {
      cpSync(join(from, "node_modules"), join(to, "node_modules"), { recursive: true, verbatimSymlinks: true })
    }
  }
  mkdirSync(join(dir, "packages", "server", "catalog"), { recursive: true })
  cpSync(join(root, "packages/server/catalog/demo.json"), join(dir, "packages/server/catalog/demo.json"))
  mkdirSync(join(dir, "scripts"))
  cpSync(join(root, "scripts/simulate.ts"), join(dir, "scripts/simulate.ts"))
  cpSync(join(root, "package.json"), join(dir, "package.json"))
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"))
  for (const patch of bug.patches) {
    const file = join(dir, patch.file)
    const text = readFileSync(file, "utf8")
    const count = text.split(patch.find).length - 1
    if (count === 0 || (count > 1 && patch.all !== true)) {
      rmSync(dir, { recursive: true, force: true })
      throw new Error(`${bug.name}: the patch of ${patch.file} does not apply (found ${count} times)`)
    }
    writeFileSync(
      file,
      patch.all === true ? text.split(patch.find).join(patch.replace) : text.replace(patch.find, () => patch.replace)
    )
  }
  return dir
}

/** What a hunt for one bug found. */
export interface Hunt {
  readonly bug: Planted
  readonly found: boolean
  readonly seed: number | null
  readonly seeds: number
  readonly seconds: number
  readonly invariant: string | null
  readonly detail: string | null
  readonly error?: string | undefined
}

/** Runs the simulation from the bug's copy, seed after seed, until an invariant fails. */
export const hunt = (
  bug: Planted,
  options: { readonly seeds: number; readonly fills: number; readonly firstSeed?: number }
) =>
  new Promise<Hunt>((resolve) => {
    let dir: string
    try {
      dir = plant(bug)
    } catch (e) {
      resolve({
        bug,
        found: false,
        seed: null,
        seeds: 0,
        seconds: 0,
        invariant: null,
        detail: null,
        error: (e as Error).message
      })
      return
    }
    const first = options.firstSeed ?? 1
    const started = performance.now()
    const child = spawn(process.execPath, [
      join(dir, "scripts/simulate.ts"),
      "--seeds",
      `${first}..${first + options.seeds - 1}`,
      "--fills",
      String(options.fills),
      "--until-violation",
      "--stop-at-first",
      "--json",
      ...(bug.run ?? [])
    ], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")))
    child.on("close", () => {
      const seconds = (performance.now() - started) / 1000
      rmSync(dir, { recursive: true, force: true })
      const runs = out.split("\n").filter((l) => l.startsWith("{")).map((l) =>
        JSON.parse(l) as { seed: number; violations: Array<{ invariant: string; detail: string }> }
      )
      const failing = runs.find((r) => r.violations.length > 0)
      resolve({
        bug,
        found: failing !== undefined,
        seed: failing?.seed ?? null,
        seeds: runs.length,
        seconds,
        invariant: failing?.violations[0]?.invariant ?? null,
        detail: failing?.violations[0]?.detail ?? null,
        ...(runs.length === 0 ? { error: err.split("\n").filter((l) => l.trim() !== "").slice(-3).join(" | ") } : {})
      })
    })
  })

const main = async () => {
  const argv = process.argv.slice(2)
  let names: ReadonlyArray<string> | undefined
  let seeds = 200
  let fills = 200
  let jobs = 1
  let from = 1
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1]
    switch (argv[i]) {
      case "--bug":
        names = (value ?? "").split(",")
        i++
        break
      case "--seeds":
        seeds = Number(value)
        i++
        break
      case "--fills":
        fills = Number(value)
        i++
        break
      case "--jobs":
        jobs = Math.max(1, Number(value))
        i++
        break
      case "--from":
        from = Math.max(0, Number(value))
        i++
        break
      default:
        process.stderr.write(
          `usage: npm run simulate:planted -- [--bug NAME[,NAME]] [--seeds N] [--fills N] [--jobs N] [--from SEED]\nbugs: ${
            PLANTED.map((b) => b.name).join(", ")
          }\n`
        )
        process.exit(2)
    }
  }
  const bugs = names === undefined ? PLANTED : PLANTED.filter((b) => names!.includes(b.name))
  if (bugs.length === 0) {
    process.stderr.write(`no such bug; bugs: ${PLANTED.map((b) => b.name).join(", ")}\n`)
    process.exit(2)
  }
  process.stdout.write(
    `${bugs.length} planted bugs, each hunted in up to ${seeds} seeds of ${fills} fills from seed ${from}\n\n`
  )
  process.stdout.write("| Bug | Area | What is wrong | Found by | First failing seed | Time to find |\n")
  process.stdout.write("| --- | --- | --- | --- | --- | --- |\n")
  const results: Array<Hunt> = []
  const queue = [...bugs]
  await Promise.all(Array.from({ length: jobs }, async () => {
    for (let bug = queue.shift(); bug !== undefined; bug = queue.shift()) {
      const result = await hunt(bug, { seeds, fills, firstSeed: from })
      results.push(result)
      process.stdout.write(
        `| \`${bug.name}\` | ${bug.area} | ${bug.bug}${
          bug.run === undefined ? "" : ` (run: \`${bug.run.join(" ")}\`)`
        } | ${result.invariant ?? (result.error ? `error: ${result.error}` : "-")} | ${
          result.seed ?? `not found in ${result.seeds}`
        } | ${result.seconds.toFixed(0)} s |\n`
      )
    }
  }))
  const found = results.filter((r) => r.found).length
  process.stdout.write(`\nsimulate:planted: ${results.length} bugs, ${found} found\n`)
  process.exit(found === results.length ? 0 : 1)
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
