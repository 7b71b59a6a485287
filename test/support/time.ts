/**
 * Time limits that hold on a loaded machine. A test's time-out, and any deadline
 * a test waits for (a process to start, a connection to close), is a bound on a
 * wait, never the measure of what is tested: on a shared 2-core machine a
 * command that takes 1 s alone takes 5 s beside a busy neighbour. Every such
 * bound is written as `scaled(ms)`: `ms` is generous for a quiet machine, and
 * the factor stretches it further:
 *
 * - `SVC_TEST_TIME_SCALE` when set (a number >= 1; e.g. 4 on a very loaded machine),
 *   else what vitest.config.ts measured when the run started (the load average
 *   per core plus the run's own workers, at least 1.5; set in the environment of
 *   the workers, and the factor of the run's time-outs);
 * - or the same measure taken when the bound is computed, when it is larger: a
 *   machine that became busy after the run started (a neighbour's suite, a CPU
 *   hog) stretches the waits that follow.
 *
 * A property or generation test is sized by a count (fast-check's `numRuns`, a
 * number of samples), never by a time budget.
 */
import { availableParallelism, loadavg } from "node:os"

/** The factor of this run (see above). */
export const timeScale = (env: NodeJS.ProcessEnv = process.env): number => {
  const set = Number(env.SVC_TEST_TIME_SCALE)
  const now = measuredScale(2)
  return Number.isFinite(set) && set >= 1 ? Math.max(set, now) : now
}

/**
 * The factor for a run of `workers` workers on this machine now: (load average of
 * the last minute + workers) / cores, between 1.5 and 10.
 */
export const measuredScale = (workers: number): number => {
  const perCore = (loadavg()[0]! + workers) / Math.max(1, availableParallelism())
  return Math.round(Math.min(10, Math.max(1.5, perCore)) * 10) / 10
}

/** `ms` stretched by the factor of this run. */
export const scaled = (ms: number): number => Math.round(ms * timeScale())
