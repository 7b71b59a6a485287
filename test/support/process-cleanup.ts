/**
 * Setup file of every test file: stops every process a test started when the test
 * ends, and every process the file started when the file ends, however they end
 * (see processes.ts). A test that stops its processes itself is not affected: this
 * only kills what is still running afterwards.
 */
import { afterAll, afterEach, beforeEach } from "vitest"
import { childPids, killAll, recordChildren, SCOPE_VARIABLE, takeSpawned } from "./processes.ts"

recordChildren()

const run = process.env.SVC_TEST_RUN ?? `r${process.pid}-${Date.now().toString(36)}`
const worker = `${run}:${process.pid}:`
const counter = globalThis as { __svcTestScopes?: number }
counter.__svcTestScopes = (counter.__svcTestScopes ?? 0) + 1
const file = `${worker}f${counter.__svcTestScopes};`
let tests = 0
let current: string | undefined

process.env[SCOPE_VARIABLE] = file

beforeEach(() => {
  current = `${file}t${++tests};`
  process.env[SCOPE_VARIABLE] = current
})

afterEach(() => {
  const scope = current
  current = undefined
  process.env[SCOPE_VARIABLE] = file
  if (scope !== undefined && takeSpawned()) killAll(scope, childPids(scope))
})

afterAll(() => {
  takeSpawned()
  killAll(file, childPids(file))
})

// The worker exits or is stopped: everything it started (installed once per worker).
const installedOn = globalThis as { __svcTestExitHooks?: boolean }
if (installedOn.__svcTestExitHooks !== true) {
  installedOn.__svcTestExitHooks = true
  const sweep = () => {
    if (childPids().length > 0 || takeSpawned()) killAll(worker, childPids())
  }
  process.once("exit", sweep)
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.once(signal, () => {
      sweep()
      process.kill(process.pid, signal)
    })
  }
}
