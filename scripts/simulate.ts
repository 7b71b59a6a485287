/**
 * The deterministic simulation of the whole solver (docs/simulation.md): the
 * real engine in several replicas over one SQLite store, chain models for every
 * EVM network of the demo catalog, clients and faults, all from one seed and
 * virtual time.
 *
 *   npm run simulate -- [--seed N | --seeds A..B] [--fills N] [--replicas N] [--faults all|none|LIST|all,-NAME]
 *                       [--batch-size N] [--top-up A..B] [--freeze call|process] [--stop-at-first] [--verbose] [--json]
 *
 * A failing seed prints each violated invariant, the step, and the command that
 * replays it. The last line is always
 * `simulate: <n> seeds, <n> fills, <n> violations, trace <hex>`; the exit code is
 * 0 only with no violation (2 for bad arguments).
 */
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { EvmConnector } from "../packages/connector-evm/src/index.ts"
import * as Simulation from "../packages/core/src/testing/Simulation.ts"
import { SqliteStore } from "../packages/store/src/index.ts"

const demoCatalog = JSON.parse(
  readFileSync(new URL("../packages/server/catalog/demo.json", import.meta.url), "utf8")
) as unknown

export interface Arguments {
  readonly seeds: ReadonlyArray<number>
  readonly fills: number
  readonly replicas: number
  readonly faults: ReadonlyArray<Simulation.FaultName>
  readonly faultsText: string
  /** The settlement runner's batchSize, when not the simulation's default. */
  readonly batchSize: number | undefined
  /** How long a drained vault waits for its top-up, seconds, when not the simulation's default. */
  readonly topUp: readonly [number, number] | undefined
  /** What a freeze stops, when not the simulation's default. */
  readonly freeze: "call" | "process" | undefined
  readonly stopAtFirst: boolean
  readonly untilViolation: boolean
  readonly verbose: boolean
  readonly json: boolean
}

const usage =
  "usage: npm run simulate -- [--seed N | --seeds A..B] [--fills N] [--replicas N] [--faults all|none|LIST|all,-NAME] [--batch-size N] [--top-up A..B] [--freeze call|process] [--stop-at-first] [--until-violation] [--verbose] [--json]"

export const parseArguments = (argv: ReadonlyArray<string>): Arguments => {
  let seeds: Array<number> = [1]
  let fills = 200
  let replicas = 2
  let faultsText = "all"
  let stopAtFirst = false
  let untilViolation = false
  let verbose = false
  let json = false
  let batchSize: number | undefined
  let topUp: readonly [number, number] | undefined
  let freeze: "call" | "process" | undefined
  const int = (flag: string, value: string | undefined, min: number) => {
    if (value === undefined || !/^\d+$/.test(value) || Number(value) < min) {
      throw new Error(`${flag} needs an integer >= ${min}`)
    }
    return Number(value)
  }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!
    const value = argv[i + 1]
    switch (flag) {
      case "--seed":
        seeds = [int(flag, value, 0)]
        i++
        break
      case "--seeds": {
        const m = /^(\d+)\.\.(\d+)$/.exec(value ?? "")
        if (m === null || Number(m[2]) < Number(m[1])) throw new Error("--seeds needs A..B with A <= B")
        seeds = Array.from({ length: Number(m[2]) - Number(m[1]) + 1 }, (_, k) => Number(m[1]) + k)
        i++
        break
      }
      case "--fills":
        fills = int(flag, value, 1)
        i++
        break
      case "--replicas":
        replicas = int(flag, value, 1)
        i++
        break
      case "--faults":
        if (value === undefined) throw new Error("--faults needs all, none, a comma separated list or all,-NAME")
        faultsText = value
        i++
        break
      case "--batch-size":
        batchSize = int(flag, value, 1)
        i++
        break
      case "--top-up": {
        const m = /^(\d+)\.\.(\d+)$/.exec(value ?? "")
        if (m === null || Number(m[2]) < Number(m[1])) throw new Error("--top-up needs A..B (seconds) with A <= B")
        topUp = [Number(m[1]), Number(m[2])]
        i++
        break
      }
      case "--freeze":
        if (value !== "call" && value !== "process") throw new Error("--freeze needs call or process")
        freeze = value
        i++
        break
      case "--stop-at-first":
        stopAtFirst = true
        break
      case "--until-violation":
        untilViolation = true
        break
      case "--verbose":
        verbose = true
        break
      case "--json":
        json = true
        break
      default:
        throw new Error(`unknown argument ${flag}`)
    }
  }
  // all, none, a list, or all but some: "all,-rpc-flap"
  const known = (f: string) => {
    if (!(Simulation.FAULTS as ReadonlyArray<string>).includes(f)) {
      throw new Error(`unknown fault ${f} (known: ${Simulation.FAULTS.join(", ")})`)
    }
    return f as Simulation.FaultName
  }
  const chosen = new Set<Simulation.FaultName>()
  for (const item of faultsText.split(",")) {
    if (item === "all") { for (const f of Simulation.FAULTS) chosen.add(f) }
    else if (item === "none") chosen.clear()
    else if (item.startsWith("-")) chosen.delete(known(item.slice(1)))
    else chosen.add(known(item))
  }
  const faults = Simulation.FAULTS.filter((f) => chosen.has(f))
  return {
    seeds,
    fills,
    replicas,
    faults,
    faultsText,
    batchSize,
    topUp,
    freeze,
    stopAtFirst,
    untilViolation,
    verbose,
    json
  }
}

/** The command that replays one seed of a run exactly. */
export const replayCommand = (args: Arguments, seed: number) =>
  `npm run simulate -- --seed ${seed} --fills ${args.fills} --replicas ${args.replicas} --faults ${args.faultsText}${
    args.batchSize === undefined ? "" : ` --batch-size ${args.batchSize}`
  }${args.topUp === undefined ? "" : ` --top-up ${args.topUp[0]}..${args.topUp[1]}`}${
    args.freeze === undefined ? "" : ` --freeze ${args.freeze}`
  }`

/** Runs one seed with the SQLite store in memory. */
export const runSeed = (args: Arguments, seed: number, extra?: Partial<Simulation.SimulationOptions>) =>
  Effect.runPromise(Simulation.run({
    seed,
    fills: args.fills,
    replicas: args.replicas,
    faults: args.faults,
    ...(args.batchSize === undefined ? {} : { batchSize: args.batchSize }),
    ...(args.topUp === undefined ? {} : { topUpSeconds: args.topUp }),
    ...(args.freeze === undefined ? {} : { freeze: args.freeze }),
    catalog: demoCatalog,
    store: SqliteStore.layer({ filename: ":memory:" }),
    connectors: [EvmConnector.make()],
    stopAtFirstViolation: args.stopAtFirst,
    ...(args.verbose ? { onTrace: (line: string) => process.stderr.write(`  | ${line}\n`) } : {}),
    ...extra
  }))

const main = async () => {
  let args: Arguments
  try {
    args = parseArguments(process.argv.slice(2))
  } catch (e) {
    process.stderr.write(`simulate: ${(e as Error).message}\n${usage}\n`)
    process.exit(2)
  }
  const traces = createHash("sha256")
  let fills = 0
  let violations = 0
  let seedsRun = 0
  const started = performance.now()
  const cpuStarted = process.cpuUsage()
  for (const seed of args.seeds) {
    const t0 = performance.now()
    const result = await runSeed(args, seed)
    const seconds = (performance.now() - t0) / 1000
    seedsRun++
    fills += result.fills
    violations += result.violations.length
    traces.update(result.trace)
    if (args.json) {
      process.stdout.write(
        `${
          JSON.stringify({
            seed,
            fills: result.fills,
            violations: result.violations,
            trace: result.trace,
            seconds,
            stats: result.stats,
            virtualSeconds: result.virtualSeconds
          })
        }\n`
      )
    } else if (result.violations.length === 0) {
      process.stdout.write(
        `seed ${seed}: ok, ${result.fills} fills (${result.stats.paid} paid, ${result.stats.expired} expired, ${result.stats.failed} failed), ` +
          `${result.stats.crashes} crashes, ${result.virtualSeconds} s simulated in ${seconds.toFixed(1)} s, trace ${
            result.trace.slice(0, 16)
          }\n`
      )
    } else {
      process.stdout.write(`seed ${seed}: ${result.violations.length} violations\n`)
      for (const v of result.violations.slice(0, 20)) {
        process.stdout.write(`  [${v.invariant}] step ${v.step} (${(v.atMillis / 1000).toFixed(0)} s): ${v.detail}\n`)
      }
      if (result.violations.length > 20) process.stdout.write(`  ... and ${result.violations.length - 20} more\n`)
      process.stdout.write(`  replay: ${replayCommand(args, seed)}\n`)
    }
    if (args.untilViolation && result.violations.length > 0) break
  }
  const elapsed = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuStarted)
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  if (!args.json) {
    process.stdout.write(
      `${seedsRun} seeds in ${elapsed.toFixed(1)} s (${cpuSeconds.toFixed(1)} s of CPU): ${
        (seedsRun / elapsed).toFixed(2)
      } seeds/s, ${(fills / elapsed).toFixed(1)} fills/s\n`
    )
  }
  process.stdout.write(`${Simulation.summaryLine(seedsRun, fills, violations, traces.digest("hex"))}\n`)
  process.exit(violations === 0 ? 0 : 1)
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
