/**
 * Every process a test starts is stopped when the test ends, however it ends
 * (passed, failed, timed out, its worker crashed).
 *
 * How a process is found again:
 *
 * - **A marker in its environment.** The setup file (`test/support/process-cleanup.ts`)
 *   sets `SVC_TEST_SCOPE` in the worker's environment to an id of the test file, and to
 *   an id of the test while one runs; a process inherits it from whatever started it
 *   (the test, a library such as playwright or the anvil helper, `npm`, a generated
 *   project's own test run), and keeps it when its parent dies. On Linux the initial
 *   environment of every process of this user is readable in `/proc/<pid>/environ`;
 *   elsewhere `ps eww` shows it.
 * - **The children the worker spawned**, recorded by wrapping `child_process.spawn`,
 *   `execFile`, `exec` and `fork` (for a child started with an environment of its
 *   own), with their descendants by parent pid.
 *
 * After each test that started a process, everything of that test still running is
 * killed (SIGKILL: by then a process left over is a leak, and a graceful stop was
 * the test's job); after each file, everything of the file; when the worker exits
 * or is stopped by a signal, everything it started; and when the run ends (the
 * global setup's teardown), every process of the run, which catches the children
 * of a worker that crashed.
 */
import type { ChildProcess } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { createRequire, syncBuiltinESMExports } from "node:module"

/** The CommonJS exports of node:child_process (writable, unlike the ES namespace). */
const childProcess = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process")

/** The variable that marks the processes of a test run, a file or a test. */
export const SCOPE_VARIABLE = "SVC_TEST_SCOPE"

/** A process: its pid and its parent's. */
interface Proc {
  readonly pid: number
  readonly ppid: number
  /** Its initial environment holds a SVC_TEST_SCOPE value that starts with this (undefined: not read). */
  readonly scope: string | undefined
}

const LINUX = process.platform === "linux"

/** The scope value in an environment block (`\0`-separated on Linux, spaces in `ps eww`). */
const scopeIn = (environment: string, separator: RegExp): string | undefined => {
  const prefix = `${SCOPE_VARIABLE}=`
  for (const entry of environment.split(separator)) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length)
  }
  return undefined
}

/** The processes of this machine that this user can see, with their scope marker (zombies excluded). */
export const processes = (): Array<Proc> => {
  if (process.platform === "win32") return []
  const out: Array<Proc> = []
  if (LINUX) {
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "latin1")
        // pid (comm) state ppid ...; comm may hold spaces and parentheses
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
        if (fields[0] === "Z" || fields[0] === "X") continue
        let scope: string | undefined
        try {
          scope = scopeIn(readFileSync(`/proc/${name}/environ`, "latin1"), /\0/)
        } catch {
          scope = undefined // another user's process
        }
        out.push({ pid: Number(name), ppid: Number(fields[1]), scope })
      } catch {
        // it exited meanwhile
      }
    }
    return out
  }
  const listed = childProcess.spawnSync("ps", ["-A", "-ww", "-o", "pid=,ppid=,stat=,command=", "-E"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
  for (const line of (listed.stdout ?? "").split("\n")) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line)
    if (m === null || m[3]!.startsWith("Z")) continue
    out.push({ pid: Number(m[1]), ppid: Number(m[2]), scope: scopeIn(m[4]!, / /) })
  }
  return out
}

/** Whether the process runs (not a zombie). */
export const isRunning = (pid: number): boolean => {
  if (LINUX) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1")
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
      return state !== "Z" && state !== "X"
    } catch {
      return false
    }
  }
  try {
    process.kill(pid, 0)
    return processes().some((p) => p.pid === pid)
  } catch {
    return false
  }
}

/**
 * The pids to stop: every process whose scope marker starts with `scope`, every
 * one of `roots` still running, and all their descendants; never this process or
 * its ancestors.
 */
export const find = (scope: string | undefined, roots: Iterable<number> = []): Array<number> => {
  const all = processes()
  const protectedPids = new Set<number>()
  const byPid = new Map(all.map((p) => [p.pid, p]))
  for (let pid: number | undefined = process.pid; pid !== undefined && pid > 1; pid = byPid.get(pid)?.ppid) {
    protectedPids.add(pid)
    if (!byPid.has(pid)) break
  }
  const chosen = new Set<number>()
  for (const p of all) if (scope !== undefined && p.scope !== undefined && p.scope.startsWith(scope)) chosen.add(p.pid)
  for (const pid of roots) if (byPid.has(pid)) chosen.add(pid)
  // descendants, to a fixed point
  let grew = chosen.size > 0
  while (grew) {
    grew = false
    for (const p of all) {
      if (!chosen.has(p.pid) && chosen.has(p.ppid)) {
        chosen.add(p.pid)
        grew = true
      }
    }
  }
  return [...chosen].filter((pid) => !protectedPids.has(pid))
}

/**
 * Kills (SIGKILL) what {@link find} finds, again until nothing is found (a process
 * may start another meanwhile); returns the pids it killed.
 */
export const killAll = (scope: string | undefined, roots: Iterable<number> = []): Array<number> => {
  const killed: Array<number> = []
  const rootList = [...roots]
  for (let round = 0; round < 5; round++) {
    const pids = find(scope, rootList)
    if (pids.length === 0) break
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL")
        killed.push(pid)
      } catch {
        // already gone
      }
    }
  }
  return killed
}

// ---------------------------------------------------------------------------
// The children this process spawns
// ---------------------------------------------------------------------------

/** The children spawned here, with the scope that was current when each started. */
const children = new Map<ChildProcess, string | undefined>()
let spawnedSinceSweep = false
let installed = false

/** Whether a process was spawned since the last call (and resets it). */
export const takeSpawned = (): boolean => {
  const was = spawnedSinceSweep
  spawnedSinceSweep = false
  return was
}

/** The pids of the recorded children that may still run, of the scopes starting with `scope` (all when undefined). */
export const childPids = (scope?: string): Array<number> => {
  const out: Array<number> = []
  for (const [child, of] of children) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) children.delete(child)
    else if (scope === undefined || (of !== undefined && of.startsWith(scope))) out.push(child.pid)
  }
  return out
}

/**
 * Wraps the asynchronous process functions of `node:child_process` (and the
 * bindings of ES modules that import them) so that every child is recorded.
 */
export const recordChildren = (): void => {
  if (installed) return
  installed = true
  const module = childProcess as unknown as Record<string, (...args: Array<unknown>) => unknown>
  for (const name of ["spawn", "execFile", "exec", "fork"] as const) {
    const original = module[name]!
    const wrapped = function(this: unknown, ...args: Array<unknown>) {
      const child = original.apply(this, args) as ChildProcess
      spawnedSinceSweep = true
      if (child !== undefined && child !== null && typeof child.once === "function") {
        // a child given an environment of its own belongs to the scope in it (a fixture of the file that a
        // test restarts keeps the file's scope); else to the scope current now
        const options = args.find((a): a is { env?: Record<string, string | undefined> } =>
          typeof a === "object" && a !== null && !Array.isArray(a) && "env" in a
        )
        children.set(child, options?.env?.[SCOPE_VARIABLE] ?? process.env[SCOPE_VARIABLE])
        child.once("exit", () => children.delete(child))
      }
      return child
    }
    Object.defineProperty(wrapped, "name", { value: name })
    // util.promisify(execFile) and friends keep working
    for (const key of Object.getOwnPropertySymbols(original)) {
      ;(wrapped as any)[key] = (original as any)[key]
    }
    module[name] = wrapped
  }
  syncBuiltinESMExports()
}
