/**
 * Runs the `svc` executable as a process, as a person or a script would.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url))
export const BIN = join(ROOT, "packages/cli/src/bin.ts")

/** The environment of a child process, without the variables of this vitest run. */
export const childEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] =>
      entry[1] !== undefined && !entry[0].startsWith("VITEST") && entry[0] !== "NODE_OPTIONS" &&
      entry[0] !== "FORCE_COLOR"
    )
  ),
  NO_COLOR: "1",
  ...extra
})

export interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `svc <args>` with `stdin` as input (bytes as given). */
export const svc = (
  args: ReadonlyArray<string>,
  options: { readonly stdin?: string | Uint8Array; readonly env?: Record<string, string>; readonly cwd?: string } = {}
) =>
  new Promise<Ran>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: childEnv(options.env),
      cwd: options.cwd ?? ROOT,
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(options.stdin ?? "")
  })

/** One command line of {@link svcAll}. */
export interface Invocation {
  readonly args: ReadonlyArray<string>
  readonly stdin?: string | Uint8Array
  /** Variables of this run (an empty string sets the variable empty). */
  readonly env?: Record<string, string>
}

/**
 * Runs many `svc <args>` of the full command line (Cli.ts, as the executable runs
 * every command but the fast protocol ones) in one process (support/batch.ts,
 * started in `cwd`), one after another: what each printed and its exit code. One start of the tool
 * instead of one per command line; the executable itself is run by Cli.test.ts.
 */
export const svcAll = async (
  invocations: ReadonlyArray<Invocation>,
  options: { readonly cwd?: string } = {}
): Promise<Array<Ran>> => {
  const dir = mkdtempSync(join(tmpdir(), "svc-batch-"))
  try {
    const cases = join(dir, "cases.json")
    const results = join(dir, "results.json")
    writeFileSync(
      cases,
      JSON.stringify(invocations.map((i) => ({
        args: i.args,
        stdin: Buffer.from(i.stdin ?? "").toString("base64"),
        ...(i.env === undefined ? {} : { env: i.env })
      })))
    )
    const ran = await new Promise<Ran>((resolve) => {
      const child = spawn(
        process.execPath,
        [join(ROOT, "packages/cli/test/support/batch.ts"), "full", cases, results],
        {
          env: childEnv(),
          cwd: options.cwd ?? ROOT,
          stdio: ["ignore", "pipe", "pipe"]
        }
      )
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (d) => (stdout += d))
      child.stderr.on("data", (d) => (stderr += d))
      child.on("close", (code) => resolve({ code, stdout, stderr }))
    })
    if (ran.code !== 0) throw new Error(`support/batch.ts exited ${ran.code}: ${ran.stderr}`)
    return JSON.parse(readFileSync(results, "utf8"))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A bad-input answer: exit 2, nothing on stdout, one line on stderr starting `svc: `, no stack trace. */
export const oneLineRefusal = (r: Ran): string => {
  if (r.code !== 2) throw new Error(`expected exit 2, got ${r.code}: ${r.stderr}`)
  if (r.stdout !== "") throw new Error(`expected no stdout, got ${r.stdout}`)
  const lines = r.stderr.trimEnd().split("\n")
  if (lines.length !== 1 || !lines[0]!.startsWith("svc: ")) throw new Error(`expected one svc: line, got ${r.stderr}`)
  if (/\bat .*\.ts:\d+/.test(r.stderr)) throw new Error(`a stack trace: ${r.stderr}`)
  return lines[0]!
}
