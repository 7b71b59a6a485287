/**
 * Shared helpers of the benchmark scripts: statistics, tables, garbage
 * collection, event-loop stall probes, CPU pinning and child processes.
 */
import { type ChildProcess, execFileSync, fork } from "node:child_process"
import { PerformanceObserver } from "node:perf_hooks"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

// ---------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------

/** The q-quantile (0..1) of numbers, nearest rank; NaN for none. */
export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[index]!
}

export const median = (values: ReadonlyArray<number>): number => quantile(values, 0.5)
export const min = (values: ReadonlyArray<number>): number => values.length === 0 ? Number.NaN : Math.min(...values)
export const max = (values: ReadonlyArray<number>): number => values.length === 0 ? Number.NaN : Math.max(...values)

/** Rounds for display and JSON: 3 significant digits below 100, integers above. */
export const round = (n: number): number => {
  if (!Number.isFinite(n)) return n
  const a = Math.abs(n)
  if (a >= 100) return Math.round(n)
  if (a >= 10) return Math.round(n * 10) / 10
  if (a >= 1) return Math.round(n * 100) / 100
  return Number(n.toPrecision(3))
}

/** A number with thousands separators (or "–" for NaN). */
export const fmt = (n: number, digits?: number): string => {
  if (!Number.isFinite(n)) return "–"
  const r = digits === undefined ? round(n) : Number(n.toFixed(digits))
  return r.toLocaleString("en-US", { maximumFractionDigits: 3 })
}

/** A ratio as `×1.23`. */
export const ratio = (n: number): string => Number.isFinite(n) ? `×${n >= 10 ? n.toFixed(1) : n.toFixed(2)}` : "–"

export const MiB = 1024 * 1024
export const KiB = 1024

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

/** A plain-text table with aligned columns (first column left, others right). */
export const table = (
  title: string,
  header: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>
): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  return [
    "",
    title,
    line(header),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...rows.map(line)
  ].join("\n")
}

const startedAt = Date.now()

/** Progress on stderr, with seconds since start (stdout carries only the tables and the JSON line). */
export const progress = (message: string): void => {
  process.stderr.write(`[bench ${((Date.now() - startedAt) / 1000).toFixed(1).padStart(5)} s] ${message}\n`)
}

// ---------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------

let gcFn: (() => void) | undefined

/** A full garbage collection (exposes V8's gc at run time when the flag was not given). */
export const gc = (): void => {
  if (gcFn === undefined) {
    const global = (globalThis as { gc?: () => void }).gc
    if (typeof global === "function") gcFn = global
    else {
      setFlagsFromString("--expose-gc")
      gcFn = runInNewContext("gc") as () => void
    }
  }
  gcFn()
  gcFn()
}

/** heapUsed and RSS after a full collection. */
export const memoryAfterGc = (): { heapUsed: number; rss: number } => {
  gc()
  const m = process.memoryUsage()
  return { heapUsed: m.heapUsed, rss: m.rss }
}

/**
 * Garbage-collection pauses between `gcPauses()` and `stop()`: count and total
 * milliseconds (from the `gc` performance entries, which Node delivers after a
 * timer turn: `stop` waits for them).
 */
export const gcPauses = () => {
  let count = 0
  let ms = 0
  const started = performance.now()
  let until = Number.POSITIVE_INFINITY
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.startTime >= started && entry.startTime <= until) {
        count++
        ms += entry.duration
      }
    }
  })
  observer.observe({ entryTypes: ["gc"] })
  return {
    stop: async (): Promise<{ count: number; ms: number }> => {
      until = performance.now()
      await new Promise((resolve) => setTimeout(resolve, 30))
      observer.disconnect()
      return { count, ms }
    }
  }
}

// ---------------------------------------------------------------------------
// Event-loop stalls
// ---------------------------------------------------------------------------

/**
 * Measures the longest stretch the event loop was blocked between `stallProbe()`
 * and `stop()`: a 1 ms interval records the largest gap between its callbacks
 * (and the gap up to `stop`), minus the period. (`monitorEventLoopDelay` is not
 * used: its timer does not fire inside a single long block, so it under-reports
 * when stopped right after one.)
 */
export const stallProbe = () => {
  let last = process.hrtime.bigint()
  let longest = 0n
  const timer = setInterval(() => {
    const now = process.hrtime.bigint()
    const gap = now - last
    if (gap > longest) longest = gap
    last = now
  }, 1)
  return {
    stop: (): { longestGapMs: number } => {
      clearInterval(timer)
      const gap = process.hrtime.bigint() - last
      if (gap > longest) longest = gap
      return { longestGapMs: Math.max(0, Number(longest) / 1e6 - 1) }
    }
  }
}

// ---------------------------------------------------------------------------
// CPU
// ---------------------------------------------------------------------------

/** CPU time (user + system) of this process, microseconds. */
export const cpuMicros = (): number => {
  const u = process.cpuUsage()
  return u.user + u.system
}

/** Wall-clock milliseconds since an `hrtime.bigint()` mark. */
export const msSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6

let tasksetAvailable: boolean | undefined

/**
 * Pins every thread of a process to one CPU with `taskset -a -p -c`. Returns false
 * when taskset is missing or the CPU does not exist (the bench then runs unpinned).
 */
export const pin = (pid: number, cpu: number): boolean => {
  if (tasksetAvailable === false) return false
  try {
    execFileSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { stdio: "ignore" })
    tasksetAvailable = true
    return true
  } catch {
    tasksetAvailable = false
    return false
  }
}

// ---------------------------------------------------------------------------
// Child processes (IPC request/response)
// ---------------------------------------------------------------------------

/** A message to or from a child: `type` plus fields; answers echo the request's `id`. */
export interface Message {
  readonly type: string
  readonly id?: number
  readonly [key: string]: unknown
}

/** A forked helper process with request/response messaging. */
export interface Child {
  readonly process: ChildProcess
  readonly request: <A = Message>(message: Message, timeoutMs?: number) => Promise<A>
  readonly stop: () => Promise<void>
}

/** Forks a helper script (Node with type stripping: the same executable as this process). */
export const forkChild = (script: string, args: ReadonlyArray<string> = []): Promise<Child> =>
  new Promise((resolve, reject) => {
    const child = fork(script, [...args], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "advanced",
      execArgv: ["--no-warnings"]
    })
    let next = 1
    const pending = new Map<
      number,
      { resolve: (m: Message) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
    >()
    const failAll = (error: Error) => {
      for (const p of pending.values()) {
        clearTimeout(p.timer)
        p.reject(error)
      }
      pending.clear()
    }
    child.on("message", (raw) => {
      const message = raw as Message
      if (message.type === "ready") {
        resolve({
          process: child,
          request: <A>(m: Message, timeoutMs = 600_000) =>
            new Promise<A>((res, rej) => {
              const id = next++
              const timer = setTimeout(() => {
                pending.delete(id)
                rej(new Error(`${script}: no answer to ${m.type} within ${timeoutMs} ms`))
              }, timeoutMs)
              pending.set(id, { resolve: res as (m: Message) => void, reject: rej, timer })
              child.send({ ...m, id })
            }),
          stop: () =>
            new Promise<void>((res) => {
              if (child.exitCode !== null || child.signalCode !== null) return res()
              const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
              child.once("exit", () => {
                clearTimeout(timer)
                res()
              })
              child.kill("SIGTERM")
            })
        })
        return
      }
      if (message.id !== undefined) {
        const p = pending.get(message.id)
        if (p !== undefined) {
          pending.delete(message.id)
          clearTimeout(p.timer)
          if (message.type === "error") p.reject(new Error(`${script}: ${String(message.message)}`))
          else p.resolve(message)
        }
      }
    })
    child.once("error", (e) => {
      failAll(e)
      reject(e)
    })
    child.once("exit", (code, signal) => {
      const error = new Error(`${script} exited (code ${code}, signal ${signal})`)
      failAll(error)
      reject(error)
    })
  })

/**
 * The child side: answers each request with the handler's result (plus the
 * request id), or an `error` message.
 */
export const serveParent = (
  handler: (message: Message) => Promise<Record<string, unknown>> | Record<string, unknown>
): void => {
  if (process.send === undefined) {
    process.stderr.write("this helper runs as a child of scripts/bench.ts\n")
    process.exit(2)
  }
  process.on("message", (raw) => {
    const message = raw as Message
    Promise.resolve()
      .then(() => handler(message))
      .then(
        (answer) => process.send!({ type: `${message.type}:done`, ...answer, id: message.id }),
        (error: unknown) =>
          process.send!({ type: "error", id: message.id, message: String((error as Error)?.stack ?? error) })
      )
  })
  process.on("disconnect", () => process.exit(0))
  process.send({ type: "ready" })
}

// ---------------------------------------------------------------------------
// Targets and verdict
// ---------------------------------------------------------------------------

/**
 * One row of a bench's targets table: the figure measured in this run beside
 * its target. `met` undefined: printed but not counted (a `--quick` stand-in that
 * is not comparable with the target, or a figure shown for context).
 */
export interface TargetRow {
  readonly what: string
  readonly figure: string
  readonly target: string
  readonly met: boolean | undefined
}

/**
 * The targets table (the client bench's style: `met ` / `MISS` markers, `n/a `
 * for rows not counted), ending with `verdict: N of M targets met`.
 */
export const targetsReport = (
  title: string,
  rows: ReadonlyArray<TargetRow>,
  notes: ReadonlyArray<string> = []
): { readonly text: string; readonly met: number; readonly counted: number } => {
  const counted = rows.filter((r) => r.met !== undefined)
  const met = counted.filter((r) => r.met === true).length
  const whatWidth = Math.max(...rows.map((r) => r.what.length))
  const figureWidth = Math.max(...rows.map((r) => r.figure.length))
  const text = [
    "",
    title,
    "",
    ...rows.map((r) =>
      `${r.met === undefined ? "n/a " : r.met ? "met " : "MISS"}  ${r.what.padEnd(whatWidth)}  ${
        r.figure.padEnd(figureWidth)
      }  target ${r.target}`
    ),
    ...notes,
    `verdict: ${met} of ${counted.length} targets met`
  ].join("\n")
  return { text, met, counted: counted.length }
}

// ---------------------------------------------------------------------------
// Open files
// ---------------------------------------------------------------------------

/**
 * The open-file limit of this process (soft, hard), for `needed` descriptors per
 * process. Node raises its own soft limit to the hard limit at start (children
 * forked later inherit it), so the hard limit is what counts; when the soft limit
 * is still lower (another runtime), it is raised with `prlimit --pid`. Returns
 * the limit and a line for the output.
 */
export const openFileLimit = (
  needed: number
): { readonly soft: number; readonly hard: number; readonly raisedFrom: number | null; readonly note: string } => {
  const read = () => {
    const [soft, hard] = execFileSync("sh", ["-c", "ulimit -Sn; ulimit -Hn"]).toString().trim().split(/\s+/)
    const n = (s: string | undefined) => (s === "unlimited" ? Number.POSITIVE_INFINITY : Number(s))
    return { soft: n(soft), hard: n(hard) }
  }
  const before = read()
  let raisedFrom: number | null = null
  if (before.soft < needed && before.hard > before.soft) {
    try {
      execFileSync("prlimit", ["--pid", String(process.pid), `--nofile=${Math.min(needed, before.hard)}:`], {
        stdio: "ignore"
      })
      raisedFrom = before.soft
    } catch {
      // prlimit missing or refused: reported below
    }
  }
  const now = read()
  const note = now.soft >= needed
    ? `ulimit -n ${now.soft}${
      raisedFrom === null ? "" : ` (raised from ${raisedFrom} with prlimit)`
    } (needed per process: ${needed})`
    : `ulimit -n is ${now.soft} (hard limit ${now.hard}), below the ${needed} open files a process needs here: raise the hard limit (e.g. ulimit -Hn ${needed} as root, or prlimit --nofile=${needed}:${needed} --pid <shell>) and run again`
  return { soft: now.soft, hard: now.hard, raisedFrom, note }
}
