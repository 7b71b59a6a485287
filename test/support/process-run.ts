/**
 * Global setup of the test run: names the run (`SVC_TEST_RUN`, which every
 * worker inherits and puts at the start of the scope marker of the processes its
 * tests start, see processes.ts), and when the run ends kills every process of
 * the run still running: the last line of defence, for the children of a worker
 * that crashed or was killed before its own hooks ran.
 */
import { killAll } from "./processes.ts"

export default function setup() {
  const previous = process.env.SVC_TEST_RUN
  const run = `r${process.pid}-${Date.now().toString(36)}`
  process.env.SVC_TEST_RUN = run
  return () => {
    const killed = killAll(`${run}:`)
    if (killed.length > 0) {
      process.stderr.write(
        `test run: stopped ${killed.length} process(es) its tests left running: ${killed.join(" ")}\n`
      )
    }
    if (previous === undefined) delete process.env.SVC_TEST_RUN
    else process.env.SVC_TEST_RUN = previous
  }
}
