/**
 * Runs many `svc` command lines in one process, each as the executable
 * (src/bin.ts) runs it, and writes what each printed and its exit code:
 *
 *     node --import ./loaded-modules.ts batch.ts fast|full <cases.json> <results.json>
 *
 * - `fast`: `internal/fastPath.ts`'s `run(argv)`, as bin.ts calls it first; a case
 *   it leaves to the full command line gets `code: null` (bin.ts would then run
 *   Cli.ts). Nothing else is imported, so the modules the process loaded (the
 *   preload writes them) are what the fast start of all these cases needed.
 * - `full`: Cli.ts's `main(argv)` and `exitCodeOf`, as bin.ts runs them with
 *   SVC_CLI_FAST=0, with the environment read afresh for each case (effect's
 *   default configuration provider reads `process.env` once per process).
 *
 * Each case's input is given as its standard input (base64 in the cases file),
 * its variables set while it runs, and its output taken from `process.stdout` and `process.stderr`, through which
 * both ways write (the effect platform's Stdio reads `process.stdin` and writes
 * `process.stdout` when used, and `console` writes to the same streams).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { PassThrough } from "node:stream"

interface Case {
  readonly args: ReadonlyArray<string>
  /** base64 */
  readonly stdin: string
  /** Variables set (an empty string included) while the case runs. */
  readonly env?: Record<string, string>
}

interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const [mode, casesFile, resultsFile] = process.argv.slice(2)
if ((mode !== "fast" && mode !== "full") || casesFile === undefined || resultsFile === undefined) {
  process.stderr.write("usage: batch.ts fast|full <cases.json> <results.json>\n")
  process.exit(2)
}
const cases = JSON.parse(readFileSync(casesFile, "utf8")) as ReadonlyArray<Case>

// the fast start adds an error listener to stdout at each write: one per case here
process.stdout.setMaxListeners(0)
process.stderr.setMaxListeners(0)

type Write = typeof process.stdout.write
const originalOut = process.stdout.write.bind(process.stdout) as Write
const originalErr = process.stderr.write.bind(process.stderr) as Write

/** Runs `f` with the case's standard input and variables, collecting what it writes to stdout and stderr. */
const captured = async (c: Case, f: () => Promise<number | null>): Promise<Result> => {
  const stdin = Buffer.from(c.stdin, "base64")
  const saved = Object.entries(c.env ?? {}).map(([key]) => [key, process.env[key]] as const)
  Object.assign(process.env, c.env ?? {})
  let stdout = ""
  let stderr = ""
  const collect = (append: (text: string) => void): Write =>
    ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
      append(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"))
      const done = typeof encoding === "function" ? encoding : callback
      if (typeof done === "function") queueMicrotask(() => (done as (error?: Error | null) => void)(null))
      return true
    }) as Write
  const input = new PassThrough()
  input.end(Buffer.from(stdin))
  Object.defineProperty(process, "stdin", { value: input, configurable: true, writable: true })
  process.stdout.write = collect((t) => (stdout += t))
  process.stderr.write = collect((t) => (stderr += t))
  try {
    const code = await f()
    return { code, stdout, stderr }
  } finally {
    process.stdout.write = originalOut
    process.stderr.write = originalErr
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
}

const results: Array<Result> = []
if (mode === "fast") {
  const { run } = await import("../../src/internal/fastPath.ts")
  for (const c of cases) {
    results.push(await captured(c, async () => (await run(c.args)) ?? null))
  }
} else {
  const [{ ConfigProvider, Effect }, { exitCodeOf, main }] = await Promise.all([
    import("effect"),
    import("../../src/Cli.ts")
  ])
  for (const c of cases) {
    results.push(
      await captured(c, async () => {
        // the environment as a process started now reads it (the default provider reads it once, when first used)
        const env = ConfigProvider.fromEnv()
        return exitCodeOf(
          await Effect.runPromiseExit(Effect.provideService(main(c.args), ConfigProvider.ConfigProvider, env))
        )
      })
    )
  }
}
writeFileSync(resultsFile, JSON.stringify(results))
