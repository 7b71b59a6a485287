/**
 * promtool, the checker of Prometheus rule files, for the tests of the alerting
 * rules that ship with `@svc/server` (`packages/server/prometheus/`).
 *
 * - `node scripts/promtool.ts ensure` finds promtool (`SVC_PROMTOOL` when set,
 *   else `promtool` on the PATH, else the copy this script keeps in
 *   `node_modules/.cache/svc-promtool/`); when there is none and this machine has
 *   apt-get and dpkg-deb (Debian, Ubuntu), it downloads Debian's `prometheus`
 *   package (`apt-get download`, about 19 MB; `apt-get update` first when the
 *   package lists are missing and this process is root) and extracts only
 *   `usr/bin/promtool` (a static binary) into that folder: nothing is installed
 *   on the system. When it cannot, it says why and exits 0; the rule tests then
 *   skip, and fail under CI. Quick and silent when promtool is already there.
 * - `node scripts/promtool.ts path` prints promtool's path (exit 1 when there is none).
 *
 * `npm test` runs `ensure` before the tests.
 *
 * @since 0.1.0
 */
import { spawnSync } from "node:child_process"
import { accessSync, chmodSync, constants, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** Where this script keeps the promtool it extracted. */
export const CACHED = fileURLToPath(new URL("../node_modules/.cache/svc-promtool/promtool", import.meta.url))

const executable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

const onPath = (command: string): string | undefined => {
  const found = spawnSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" })
  return found.status === 0 && found.stdout.trim().length > 0 ? found.stdout.trim() : undefined
}

/** The promtool to use: `SVC_PROMTOOL` when set (even when missing: it is then reported), else the PATH's, else the cached copy. */
export const find = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const configured = env.SVC_PROMTOOL
  if (configured !== undefined && configured.length > 0) return executable(configured) ? configured : undefined
  return onPath("promtool") ?? (executable(CACHED) ? CACHED : undefined)
}

/** Why this machine cannot get promtool this way, or undefined when it can. */
const cannotInstall = (): string | undefined => {
  if (process.platform !== "linux") {
    return `getting promtool is automated on Debian/Ubuntu only (this is ${process.platform}); install Prometheus and set SVC_PROMTOOL`
  }
  if (onPath("apt-get") === undefined || onPath("dpkg-deb") === undefined) {
    return "no apt-get or dpkg-deb here: install promtool (Prometheus) and set SVC_PROMTOOL to its path"
  }
  return undefined
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  spawnSync(command, args, {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  })

/** Downloads Debian's prometheus package into `dir` (updating the package lists once when needed and allowed). */
const download = (dir: string): string | undefined => {
  let result = run("apt-get", ["download", "-qq", "prometheus"], dir)
  if (result.status !== 0 && typeof process.getuid === "function" && process.getuid() === 0) {
    run("apt-get", ["update", "-qq"], dir)
    result = run("apt-get", ["download", "-qq", "prometheus"], dir)
  }
  if (result.status !== 0) return (result.stderr || String(result.error ?? "")).trim().split("\n")[0]
  return undefined
}

/** Finds promtool, downloading and extracting it when it is missing and this machine can. */
export const ensure = (): { readonly path: string | undefined; readonly message: string | undefined } => {
  const found = find()
  if (found !== undefined) return { path: found, message: undefined }
  if (process.env.SVC_PROMTOOL !== undefined && process.env.SVC_PROMTOOL.length > 0) {
    return {
      path: undefined,
      message: `promtool: SVC_PROMTOOL=${process.env.SVC_PROMTOOL} is not an executable; the alert rule tests will skip`
    }
  }
  const why = cannotInstall()
  if (why !== undefined) return { path: undefined, message: `promtool: none; ${why}; the alert rule tests will skip` }
  const started = Date.now()
  const work = mkdtempSync(join(tmpdir(), "svc-promtool-"))
  try {
    const failed = download(work)
    const deb = readdirSync(work).find((f) => /^prometheus_.*\.deb$/.test(f))
    if (failed !== undefined || deb === undefined) {
      return {
        path: undefined,
        message: `promtool: apt-get could not download Debian's prometheus package (${
          failed ?? "no .deb"
        }); the alert rule tests will skip`
      }
    }
    const extracted = run("sh", ["-c", `dpkg-deb --fsys-tarfile "${deb}" | tar -x ./usr/bin/promtool`], work)
    const binary = join(work, "usr/bin/promtool")
    if (extracted.status !== 0 || !executable(binary)) {
      return {
        path: undefined,
        message: "promtool: the prometheus package holds no usr/bin/promtool; the alert rule tests will skip"
      }
    }
    mkdirSync(join(CACHED, ".."), { recursive: true })
    copyFileSync(binary, CACHED)
    chmodSync(CACHED, 0o755)
    if (run(CACHED, ["--version"], work).status !== 0) {
      rmSync(CACHED, { force: true })
      return {
        path: undefined,
        message: "promtool: the extracted promtool does not run here; the alert rule tests will skip"
      }
    }
    return {
      path: CACHED,
      message: `promtool: extracted from Debian's ${deb} into ${CACHED} in ${
        ((Date.now() - started) / 1000).toFixed(0)
      } s`
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
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
        console.error("promtool: none (run `node scripts/promtool.ts ensure`)")
        return 1
      }
      console.log(path)
      return 0
    }
    default:
      console.error("usage: node scripts/promtool.ts ensure | path")
      return 2
  }
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2))
