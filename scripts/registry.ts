/**
 * A local npm registry for the release rehearsal (scripts/release-dry-run.ts):
 * Verdaccio 6.8.0, installed by this script with `npm ci` from the lockfile in
 * `scripts/registry/` (verdaccio pinned, `node-fetch` overridden to 2.7.0: its
 * audit plugin asks for the `cjs` dist-tag, which the npm registry does not
 * have) into a folder of its own, `node_modules/.cache/svc-registry/verdaccio`,
 * reinstalled when the lockfile changes.
 *
 * The registry serves `@svc/*` only from what was published to it: the scope
 * has no uplink, so nobody else's package of that name can be installed; every
 * other package is proxied to the npm registry this machine is configured with
 * (`npm config get registry`). Anyone may publish to the scope (npm still wants
 * a token: any token does).
 *
 * The registry process exits when the process that started it goes away, however
 * that ends (it watches its parent, see registry/exit-with-parent.cjs), and
 * {@link LocalRegistry.stop} stops it (SIGTERM, then SIGKILL).
 *
 *   node scripts/registry.ts install     installs Verdaccio (nothing when it is installed)
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { copyFileSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { ROOT } from "./packages.ts"

/** The folder this script owns. */
export const CACHE = join(ROOT, "node_modules/.cache/svc-registry")

const LOCK_DIR = join(ROOT, "scripts/registry")
const INSTALL_DIR = join(CACHE, "verdaccio")
const BIN = join(INSTALL_DIR, "node_modules/verdaccio/bin/verdaccio")

/** The pinned Verdaccio version (scripts/registry/package.json). */
export const VERDACCIO_VERSION = (JSON.parse(readFileSync(join(LOCK_DIR, "package.json"), "utf8")) as {
  dependencies: Record<string, string>
}).dependencies.verdaccio!

/** The npm registry this machine uses (the uplink of everything but `@svc/*`). */
export const upstreamRegistry = (env: NodeJS.ProcessEnv = process.env): string => {
  const r = spawnSync("npm", ["config", "get", "registry"], { encoding: "utf8", env })
  const url = (r.stdout ?? "").trim()
  return /^https?:\/\//.test(url) ? url : "https://registry.npmjs.org/"
}

/**
 * Installs Verdaccio into the folder this script owns (`npm ci` from the committed lockfile), unless the
 * lockfile it was installed from is the same; returns the path of its executable.
 */
export const ensureVerdaccio = (
  options: { readonly env?: NodeJS.ProcessEnv; readonly log?: ((line: string) => void) | undefined } = {}
): string => {
  const lock = readFileSync(join(LOCK_DIR, "package-lock.json"))
  const want = createHash("sha256").update(readFileSync(join(LOCK_DIR, "package.json"))).update(lock).digest("hex")
  const stamp = join(INSTALL_DIR, ".svc-install-stamp")
  if (existsSync(BIN) && existsSync(stamp) && readFileSync(stamp, "utf8") === want) return BIN
  options.log?.(`installing verdaccio ${VERDACCIO_VERSION} (npm ci into ${INSTALL_DIR})`)
  rmSync(INSTALL_DIR, { recursive: true, force: true })
  mkdirSync(INSTALL_DIR, { recursive: true })
  copyFileSync(join(LOCK_DIR, "package.json"), join(INSTALL_DIR, "package.json"))
  copyFileSync(join(LOCK_DIR, "package-lock.json"), join(INSTALL_DIR, "package-lock.json"))
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts", "--prefer-offline"], {
    cwd: INSTALL_DIR,
    env: options.env ?? process.env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
  if (r.status !== 0 || !existsSync(BIN)) {
    throw new Error(
      `installing verdaccio failed (npm ci in ${INSTALL_DIR}, exit ${r.status ?? r.signal}):\n${r.stdout ?? ""}${
        r.stderr ?? ""
      }${r.error?.message ?? ""}`
    )
  }
  writeFileSync(stamp, want)
  return BIN
}

/** A running local registry. */
export interface LocalRegistry {
  /** Its URL, with a trailing slash: `http://127.0.0.1:<port>/`. */
  readonly url: string
  /** The `.npmrc` line of a token for it (any token publishes to `@svc/*`). */
  readonly authLine: string
  /** The folder of its configuration, storage and log. */
  readonly dir: string
  /** What it logged so far (one request per line, at the `http` level). */
  readonly log: () => string
  /** The uplink requests it logged for `@svc/*` packages (there must be none). */
  readonly scopeUplinkRequests: () => ReadonlyArray<string>
  /** Stops it: SIGTERM, SIGKILL after 5 s; resolves when it has exited. */
  readonly stop: () => Promise<void>
  readonly process: ChildProcess
}

/** A free TCP port of 127.0.0.1. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

/** The registry's configuration: `@svc/*` local only (no `proxy:`), everything else proxied. */
const config = (options: { readonly upstream: string; readonly port: number }): string =>
  `# svc's release rehearsal: @svc/* only from what was published here, everything else from the npm registry
storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: -1
uplinks:
  upstream:
    url: ${options.upstream}
    timeout: 60s
    max_fails: 5
packages:
  '@svc/*':
    access: $all
    publish: $all
    unpublish: $all
  '**':
    access: $all
    publish: $authenticated
    proxy: upstream
server:
  keepAliveTimeout: 60
listen: 127.0.0.1:${options.port}
log: { type: stdout, format: pretty, level: http }
`

/**
 * Starts a registry in `dir` (created; its storage starts empty) and resolves once it answers `/-/ping`.
 * `env` is its environment (a test's scope marker stays in it).
 */
export const startRegistry = async (options: {
  readonly dir: string
  readonly env?: NodeJS.ProcessEnv
  readonly log?: (line: string) => void
}): Promise<LocalRegistry> => {
  const env = options.env ?? process.env
  const bin = ensureVerdaccio({ env, log: options.log })
  mkdirSync(options.dir, { recursive: true })
  const upstream = upstreamRegistry(env)
  const port = await freePort()
  writeFileSync(join(options.dir, "config.yaml"), config({ upstream, port }))
  const logFile = join(options.dir, "verdaccio.log")
  const out = openSync(logFile, "a")
  const child = spawn(
    process.execPath,
    ["--require", join(LOCK_DIR, "exit-with-parent.cjs"), bin, "--config", join(options.dir, "config.yaml")],
    { cwd: options.dir, env, stdio: ["ignore", out, out] }
  )
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const url = `http://127.0.0.1:${port}/`
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "")
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000)
    await exited
    clearTimeout(timer)
  }
  const started = Date.now()
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`verdaccio exited ${child.exitCode ?? child.signalCode} before it answered:\n${log()}`)
    }
    const ok = await fetch(`${url}-/ping`).then((r) => r.ok, () => false)
    if (ok) break
    if (Date.now() - started > 120_000) {
      await stop()
      throw new Error(`verdaccio did not answer ${url}-/ping within 120 s:\n${log()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  options.log?.(`verdaccio ${VERDACCIO_VERSION} listening on ${url} (uplink ${upstream}) in ${Date.now() - started} ms`)
  const upstreamHost = upstream.replace(/\/+$/, "")
  return {
    url,
    authLine: `//127.0.0.1:${port}/:_authToken=svc-release-rehearsal`,
    dir: options.dir,
    log,
    scopeUplinkRequests: () =>
      log().split("\n").filter((line) => /making request/.test(line) && line.includes(`${upstreamHost}/@svc`)),
    stop,
    process: child
  }
}

if (import.meta.main) {
  if (process.argv[2] === "install") {
    process.stdout.write(`${ensureVerdaccio({ log: (l) => process.stderr.write(`${l}\n`) })}\n`)
  } else {
    process.stderr.write("usage: node scripts/registry.ts install\n")
    process.exit(2)
  }
}
