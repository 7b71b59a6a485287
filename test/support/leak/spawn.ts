/**
 * What the fixtures of the child test run start: processes that never end on
 * their own, in the ways tests start them, each recording its pid in
 * `$SVC_LEAK_DIR/<name>.pid`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"

const DIR = process.env.SVC_LEAK_DIR!

/** A Node process that runs until killed and writes its pid to `<name>.pid`. */
const forever = (name: string) =>
  `require("node:fs").writeFileSync(${
    JSON.stringify(join(DIR, `${name}.pid`))
  }, String(process.pid)); setInterval(() => {}, 1000)`

/** Resolves once `<name>.pid` exists. */
export const written = async (name: string): Promise<number> => {
  const file = join(DIR, `${name}.pid`)
  while (!existsSync(file) || readFileSync(file, "utf8") === "") await sleep(20)
  return Number(readFileSync(file, "utf8"))
}

/** A child of the test process. */
export const child = (name: string, env?: Record<string, string>): ChildProcess =>
  spawn(process.execPath, ["-e", forever(name)], { stdio: "ignore", ...(env === undefined ? {} : { env }) })

/** A grandchild whose parent (a shell) exits at once: an orphan, adopted by init. */
export const orphan = (name: string): ChildProcess =>
  spawn("sh", ["-c", `"${process.execPath}" -e '${forever(name)}' >/dev/null 2>&1 &`], { stdio: "ignore" })

/** A grandchild under a shell that waits for it. */
export const grandchild = (name: string): ChildProcess =>
  spawn("sh", ["-c", `"${process.execPath}" -e '${forever(name)}'; :`], { stdio: "ignore" })
