/**
 * Setup file of `npm run test:quick` (vitest.config.ts, `--mode quick`): the quick
 * tier starts no process. A test that starts one (spawn, exec, fork, or their
 * synchronous forms) fails at once, naming its file: a file that needs processes
 * belongs in NOT_QUICK of vitest.config.ts (it still runs in `npm test`).
 */
import { createRequire, syncBuiltinESMExports } from "node:module"
import { relative } from "node:path"
import { expect } from "vitest"

const childProcess = createRequire(import.meta.url)("node:child_process") as Record<string, unknown>

for (
  const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const
) {
  const original = childProcess[name] as (...args: Array<unknown>) => unknown
  const refused = function(this: unknown, ...args: Array<unknown>): never {
    const path = expect.getState().testPath
    const file = path === undefined ? "this file" : relative(process.cwd(), path)
    throw new Error(
      `npm run test:quick starts no process, and ${file} ran ${name}(${JSON.stringify(String(args[0]))}): ` +
        "list the file in NOT_QUICK of vitest.config.ts (npm test still runs it)"
    )
  }
  Object.defineProperty(refused, "name", { value: original.name })
  childProcess[name] = refused
}
syncBuiltinESMExports()
