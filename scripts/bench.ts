/**
 * svc benchmarks. Speed and memory goals are checked here, by ratios against a
 * baseline measured in the same run (never by timed tests).
 *
 *   npm run bench -- core [--quick]     engine: publication, permits (issue #3)
 *   npm run bench -- server [--quick]   HTTP feed, 304, compression, SSE fan-out (issue #4)
 *   npm run bench -- settlement [--quick]   devnet: fill's block -> PAID, watcher RPC calls per block
 *   npm run bench -- client [--quick]   browser bundle of @svc/client and CLI start, with targets and a verdict
 *
 * Options: --quick (a ~30 s smoke run), --routes N (size of the large catalog,
 * default 2000), --no-pin (do not pin processes to CPUs with taskset).
 *
 * Output: readable tables on stdout, then one JSON line with every figure (so a
 * run can be recorded); progress goes to stderr. Only 127.0.0.1 is used.
 * Results of a recorded run and how to read them: docs/benchmarks.md.
 */
import { cpus, loadavg, release, totalmem } from "node:os"
import { runClient } from "./bench/client.ts"
import { runCore } from "./bench/core.ts"
import { runReplicas } from "./bench/replicas.ts"
import { runServer } from "./bench/server.ts"
import { runSettlement } from "./bench/settlement.ts"

const usage = "usage: node scripts/bench.ts core|server|settlement|replicas|client [--quick] [--routes N] [--no-pin]"

const main = async (): Promise<number> => {
  const args = process.argv.slice(2).filter((a) => a !== "--")
  const which = args.find((a) => !a.startsWith("-") && !/^[0-9]+$/.test(a))
  const quick = args.includes("--quick")
  const pin = !args.includes("--no-pin")
  const routesAt = args.indexOf("--routes")
  const routes = routesAt === -1 ? 2000 : Number(args[routesAt + 1])
  if (
    (which !== "core" && which !== "server" && which !== "settlement" && which !== "replicas" &&
      which !== "client") ||
    !Number.isInteger(routes) || routes < 10 ||
    routes > 2250
  ) {
    process.stderr.write(`${usage}\n`)
    return 2
  }
  const machine = {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
    /** 1-minute load average at the start: other work on the machine skews absolute figures. */
    loadAverageAtStart: Math.round(loadavg()[0]! * 100) / 100
  }
  const started = Date.now()
  const { text, results } = which === "core"
    ? await runCore({ quick, routes })
    : which === "settlement"
    ? await runSettlement({ quick })
    : which === "replicas"
    ? await runReplicas({ quick })
    : which === "client"
    ? await runClient({ quick })
    : await runServer({ quick, routes, pin })
  const seconds = Math.round((Date.now() - started) / 100) / 10
  const loadAtEnd = Math.round(loadavg()[0]! * 100) / 100
  process.stdout.write(
    `${text}\n\nmachine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, Linux ${machine.kernel}; load average ${machine.loadAverageAtStart} at start, ${loadAtEnd} at end; ${seconds} s${
      quick ? " (quick)" : ""
    }\n`
  )
  process.stdout.write(
    `${
      JSON.stringify({
        bench: which,
        quick,
        date: new Date(started).toISOString(),
        seconds,
        machine: { ...machine, loadAverageAtEnd: loadAtEnd },
        results
      })
    }\n`
  )
  return 0
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${String((error as Error)?.stack ?? error)}\n`)
    process.exit(1)
  }
)
