/**
 * Global setup of the test run: every test file, and every process a test
 * starts, makes its temporary folders under one folder of this run (TMPDIR,
 * which `os.tmpdir()` and `mktemp` follow), and the run removes that folder when
 * it ends: a test suite that leaves nothing behind in the machine's temporary
 * directory, whatever a test forgets to clean up. `SVC_KEEP_TEST_TMP=1` keeps it
 * (its path is printed) to look at what a run wrote.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), "svc-test-run-"))
  const previous = process.env.TMPDIR
  process.env.TMPDIR = dir
  return () => {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
    if (process.env.SVC_KEEP_TEST_TMP === "1") {
      process.stderr.write(`test run's temporary folder kept: ${dir}\n`)
      return
    }
    rmSync(dir, { recursive: true, force: true })
  }
}
