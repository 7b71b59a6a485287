/**
 * svc benchmarks. Speed and memory goals are checked here, by ratios against a
 * baseline measured in the same run (never by timed tests).
 *
 *   npm run bench -- core [--quick]     engine: publication, permits (issue #3), with targets and a verdict
 *   npm run bench -- server [--quick]   HTTP feed, 304, compression, SSE fan-out (issue #4), with targets and a verdict
 *   npm run bench -- server --only sse10k   only the 10,000-subscriber fan-out point
 *   npm run bench -- settlement [--quick]   devnet: fill's block -> PAID, watcher RPC calls per block
 *   npm run bench -- client [--quick]   browser bundle of @svc/client and CLI start, with targets and a verdict
 *
 * Options: --quick (a ~30 s smoke run), --routes N (size of the large catalog,
 * default 2000), --no-pin (do not pin processes to CPUs with taskset); server
 * only: --only http,sse,sse10k (some parts), --accept-encoding "<value>" (what
 * the event-stream subscribers send; default "gzip, deflate, br").
 *
 * Output: readable tables on stdout, then one JSON line with every figure (so a
 * run can be recorded); progress goes to stderr. Only 127.0.0.1 is used.
 * Results of a recorded run and how to read them: docs/benchmarks.md.
 */
import { cpus, loadavg, release, totalmem } from "node:os"
import { runClient } from "./bench/client.ts"
import { runCore } from "./bench/core.ts"
import { runReplicas } from "./bench/replicas.ts"
import { runServer, SERVER_PARTS, type ServerPart } from "./bench/server.ts"
import { runSettlement } from "./bench/settlement.ts"

const usage =
  "usage: node scripts/bench.ts core|server|settlement|replicas|client [--quick] [--routes N] [--no-pin] [--only http,sse,sse10k] [--accept-encoding VALUE]"

const main = async (): Promise<number> => {
  const args = process.argv.slice(2).filter((a) => a !== "--")
  /** The value after an option, or undefined. */
  const valueOf = (name: string) => {
    const at = args.indexOf(name)
    return at === -1 ? undefined : args[at + 1] ?? ""
  }
  const values = new Set(["--routes", "--only", "--accept-encoding"].map(valueOf).filter((v) => v !== undefined))
  const which = args.find((a) => !a.startsWith("-") && !values.has(a))
  const quick = args.includes("--quick")
  const pin = !args.includes("--no-pin")
  const routesValue = valueOf("--routes")
  const routes = routesValue === undefined ? 2000 : Number(routesValue)
  const onlyValue = valueOf("--only")
  const only = onlyValue === undefined ? undefined : new Set(onlyValue.split(",").map((p) => p.trim()))
  const acceptEncoding = valueOf("--accept-encoding")
  if (
    (which !== "core" && which !== "server" && which !== "settlement" && which !== "replicas" &&
      which !== "client") ||
    !Number.isInteger(routes) || routes < 10 ||
    routes > 2250 ||
    (only !== undefined &&
      (which !== "server" || only.size === 0 ||
        [...only].some((p) => !(SERVER_PARTS as ReadonlyArray<string>).includes(p)))) ||
    (acceptEncoding !== undefined && (which !== "server" || acceptEncoding.length === 0))
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
    : await runServer({ quick, routes, pin, only: only as ReadonlySet<ServerPart> | undefined, acceptEncoding })
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
