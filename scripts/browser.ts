/**
 * The browser of the browser tests (the HTML conformance report, the docs
 * pages): Debian's Chromium, driven by `playwright-core` (which downloads no
 * browser of its own).
 *
 * - `node scripts/browser.ts ensure` finds a Chromium (`SVC_CHROMIUM` when set,
 *   else `/usr/bin/chromium`, `/usr/bin/chromium-browser`); when there is none
 *   and this process can install packages (root with apt-get), it installs
 *   Debian's `chromium` and says so in one line; when it cannot, it says why and
 *   exits 0 (the browser tests then skip with that reason). Quick and silent
 *   when the browser is already there.
 * - `node scripts/browser.ts path` prints the path of the browser (exit 1 when
 *   there is none).
 *
 * `npm run test:e2e` runs `ensure` before the tests (the browser tests are end-to-end tests).
 *
 * @since 0.1.0
 */
import { spawnSync } from "node:child_process"
import { accessSync, constants } from "node:fs"

/** Where Debian and Ubuntu put Chromium. */
export const CANDIDATES: ReadonlyArray<string> = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]

const executable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The Chromium to use: `SVC_CHROMIUM` when set (even when missing: it is then reported), else the first candidate present. */
export const find = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const configured = env.SVC_CHROMIUM
  if (configured !== undefined && configured.length > 0) return executable(configured) ? configured : undefined
  return CANDIDATES.find(executable)
}

const onPath = (command: string): boolean =>
  spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0

/** Why this process cannot install Chromium, or undefined when it can. */
const cannotInstall = (): string | undefined => {
  if (process.platform !== "linux") {
    return `installing Chromium is automated on Debian/Ubuntu only (this is ${process.platform})`
  }
  if (typeof process.getuid === "function" && process.getuid() !== 0) {
    return "not root: install it with `sudo apt-get install chromium`"
  }
  if (!onPath("apt-get")) return "no apt-get on this machine: install Chromium and set SVC_CHROMIUM to its path"
  return undefined
}

/** Runs apt-get quietly; its error output is shown only when it fails. */
const apt = (args: ReadonlyArray<string>): boolean => {
  const result = spawnSync("apt-get", args, {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  })
  if (result.status !== 0) process.stderr.write(result.stderr ?? String(result.error ?? ""))
  return result.status === 0
}

/** Finds Chromium, installing it when it is missing and this process can. */
export const ensure = (): { readonly path: string | undefined; readonly message: string | undefined } => {
  const found = find()
  if (found !== undefined) return { path: found, message: undefined }
  if (process.env.SVC_CHROMIUM !== undefined && process.env.SVC_CHROMIUM.length > 0) {
    return {
      path: undefined,
      message: `browser: SVC_CHROMIUM=${process.env.SVC_CHROMIUM} is not an executable; the browser tests will skip`
    }
  }
  const why = cannotInstall()
  if (why !== undefined) {
    return { path: undefined, message: `browser: no Chromium; ${why}; the browser tests will skip` }
  }
  const started = Date.now()
  if (!apt(["update", "-qq"]) || !apt(["install", "-y", "-qq", "--no-install-recommends", "chromium"])) {
    return { path: undefined, message: "browser: apt-get could not install chromium; the browser tests will skip" }
  }
  const installed = find()
  return installed === undefined
    ? {
      path: undefined,
      message: "browser: apt-get installed chromium but no binary was found; the browser tests will skip"
    }
    : {
      path: installed,
      message: `browser: installed Debian's chromium (${installed}) in ${((Date.now() - started) / 1000).toFixed(0)} s`
    }
}

const main = (argv: ReadonlyArray<string>): number => {
  switch (argv[0]) {
    case "ensure": {
      const { message } = ensure()
      if (message !== undefined) console.log(message)
      return 0
    }
    case "path": {
      const path = find()
      if (path === undefined) {
        console.error("browser: no Chromium (run `node scripts/browser.ts ensure`)")
        return 1
      }
      console.log(path)
      return 0
    }
    default:
      console.error("usage: node scripts/browser.ts ensure | path")
      return 2
  }
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2))
