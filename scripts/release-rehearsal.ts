/**
 * The second half of `npm run release:dry-run`: the release published to a real
 * registry and used as a stranger would, by package name.
 *
 * 1. A local registry starts (scripts/registry.ts: Verdaccio, `@svc/*` served
 *    only from what is published to it, everything else from the npm registry).
 * 2. Every public package is published to it with the command a release uses,
 *    `pnpm publish -r --access public` (with `--registry` and a token for the
 *    local registry, `--no-git-checks` since the copy is not a release commit).
 * 3. In a new folder outside the repository, with that registry configured
 *    (`npm_config_registry`) and an npm cache of this script's own (its `_npx`
 *    folder emptied, so that `npx` installs what was just published):
 *    - `npx @svc/cli new-solver my-solver`, then in it `npm install`, `npm test`
 *      and `npm start`, which serves its feed;
 *    - `npx @svc/cli conformance --url <its URL>` passes, and so does the
 *      harness's own package by its name (`npx @svc/conformance --url <its URL>
 *      --only discovery --read-only`, as docs/conformance.md's CI recipe runs it);
 *    - `npx @svc/cli new-connector acme`, then in it `npm install`, and with the
 *      code of docs/connectors.md's walkthrough (named for acme) `npm test`
 *      passes the installed testkit;
 *    - on this machine's older Node (if there is one), `npx @svc/cli --version`
 *      prints the one line naming the Node.js version it needs and exits 2.
 *
 * Nothing is left running: the solver (its process group) and the registry are
 * stopped however the rehearsal ends, and the registry exits by itself if the
 * process that started it dies.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { delimiter, join } from "node:path"
import { ROOT } from "./packages.ts"
import { CACHE, type LocalRegistry, startRegistry } from "./registry.ts"

/** A failed step of the rehearsal, with the output of the command that failed. */
export class RehearsalStepError extends Error {
  readonly step: string
  readonly output: string
  constructor(step: string, output: string) {
    super(`release rehearsal failed at step "${step}"`)
    this.step = step
    this.output = output
  }
}

/** What the rehearsal did. */
export interface Rehearsal {
  /** The registry it published to (gone by now). */
  readonly registry: string
  /** The URL the generated solver served on (gone by now). */
  readonly solver: string
  /** `name@version` of every package it published, as the registry then listed them. */
  readonly published: ReadonlyArray<string>
  /** The version of `@svc/*` the generated projects depend on. */
  readonly generatedRanges: Readonly<Record<string, string>>
  /** The summary line of `npx @svc/cli conformance` against the generated solver. */
  readonly conformance: string
  /** The testkit run of the generated connector: tests passed. */
  readonly connectorTests: number
  /** The older Node and what `npx @svc/cli --version` printed on it; undefined when none is installed. */
  readonly olderNode: { readonly version: string; readonly stderr: string; readonly status: number | null } | undefined
  /** Each step's name and seconds. */
  readonly steps: ReadonlyArray<{ readonly name: string; readonly seconds: number }>
  /** Uplink requests the registry made for `@svc/*` (none). */
  readonly scopeUplinkRequests: ReadonlyArray<string>
}

export interface RehearsalOptions {
  /** The repository copy whose packages were versioned and built. */
  readonly copy: string
  /** A temporary folder outside the repository (removed by the caller). */
  readonly temp: string
  /** The environment of the copy's commands (its tools first on PATH). */
  readonly env: NodeJS.ProcessEnv
  /** The public packages: name, folder in the copy, new version. */
  readonly packages: ReadonlyArray<{ readonly name: string; readonly dir: string; readonly version: string }>
  readonly log: (line: string) => void
}

/** A Node.js older than 22.19 on this machine (outside the workspace): the folder of its binary, its version. */
export const olderNode = (): { readonly dir: string; readonly version: string } | undefined => {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/bin", "/usr/local/bin"]
    .filter((d) => d !== "" && !d.startsWith(ROOT))
  for (const dir of new Set(dirs)) {
    const node = join(dir, "node")
    if (!existsSync(node)) continue
    const r = spawnSync(node, ["-p", "process.versions.node"], { encoding: "utf8" })
    const version = (r.stdout ?? "").trim()
    const [major = 0, minor = 0] = version.split(".").map(Number)
    if (r.status === 0 && (major < 22 || (major === 22 && minor < 19))) return { dir, version }
  }
  return undefined
}

/** The connector walkthrough's files (docs/connectors.md, written for "zeta"), named for acme. */
const walkthrough = (doc: string): ReadonlyArray<{ readonly path: string; readonly content: string }> => {
  const rename = (text: string) => text.replace(/Zeta/g, "Acme").replace(/ZETA/g, "ACME").replace(/zeta/g, "acme")
  return [...doc.matchAll(/```ts file=(\S+)\n([\s\S]*?)\n```/g)].map((m) => ({
    path: rename(m[1]!),
    content: `${rename(m[2]!)}\n`
  }))
}

/** Whether a process of the group `pid` leads still runs. */
const groupAlive = (pid: number): boolean => {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

/** Runs the rehearsal (see the module's comment). */
export const rehearse = async (options: RehearsalOptions): Promise<Rehearsal> => {
  const { copy, temp, log } = options
  const steps: Array<{ name: string; seconds: number }> = []
  const npmCache = join(CACHE, "npm-cache")
  // npx reuses what it installed for a spec before; what was published now must be what runs
  rmSync(join(npmCache, "_npx"), { recursive: true, force: true })
  const world = join(temp, "outside")
  mkdirSync(world)
  if (world.startsWith(ROOT)) throw new RehearsalStepError("outside", `${world} is inside the repository`)
  const node24 = process.execPath.slice(0, process.execPath.lastIndexOf("/"))
  let registry: LocalRegistry | undefined
  let solver: ChildProcess | undefined

  /** The environment outside the repository: the registry configured, the workspace's Node first on PATH. */
  const outside = (extra: Record<string, string> = {}, pathFirst = node24): NodeJS.ProcessEnv => ({
    ...Object.fromEntries(Object.entries(options.env).filter(([k]) => !k.startsWith("npm_") && k !== "PATH")),
    PATH: `${pathFirst}${delimiter}${
      (options.env.PATH ?? "").split(delimiter).filter((d) => !d.startsWith(copy) && !d.startsWith(ROOT)).join(
        delimiter
      )
    }`,
    npm_config_registry: registry!.url,
    npm_config_cache: npmCache,
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    ...extra
  })

  /** Runs a command of a step to its end; returns its output, throws with it when it fails. */
  const run = (
    step: string,
    command: string,
    args: ReadonlyArray<string>,
    cwd: string,
    env: NodeJS.ProcessEnv,
    expect: number | null = 0
  ) => {
    const started = Date.now()
    log(`${step}: ${command} ${args.join(" ")}`)
    const r = spawnSync(command, args, { cwd, env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, timeout: 900_000 })
    steps.push({ name: step, seconds: (Date.now() - started) / 1000 })
    const output = `${r.stdout ?? ""}${r.stderr ?? ""}${r.error?.message ?? ""}`
    if (expect !== null && r.status !== expect) {
      throw new RehearsalStepError(
        step,
        `${command} ${args.join(" ")} (in ${cwd}) exited ${r.status ?? r.signal}, expected ${expect}\n${output}`
      )
    }
    return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", output }
  }

  try {
    // 1. the registry
    let started = Date.now()
    registry = await startRegistry({ dir: join(temp, "registry"), env: options.env, log })
    steps.push({ name: "registry", seconds: (Date.now() - started) / 1000 })

    // 2. publish, as a release does
    const npmrc = join(temp, "publish.npmrc")
    writeFileSync(npmrc, `${registry.authLine}\n`)
    run(
      "publish",
      join(copy, "node_modules/.bin/pnpm"),
      [
        "publish",
        "-r",
        "--access",
        "public",
        "--no-git-checks",
        "--registry",
        registry.url
      ],
      copy,
      { ...options.env, npm_config_userconfig: npmrc }
    )
    const published: Array<string> = []
    for (const p of options.packages) {
      const r = run(`published ${p.name}`, "npm", ["view", `${p.name}@${p.version}`, "version"], world, outside(), null)
      if (r.stdout.trim() !== p.version) {
        throw new RehearsalStepError(
          `published ${p.name}`,
          `${p.name}@${p.version} is not in the registry:\n${r.output}`
        )
      }
      published.push(`${p.name}@${p.version}`)
    }
    const version = options.packages[0]!.version

    // 3. a solver project, by name from the registry
    run("npx @svc/cli new-solver", "npx", ["--yes", "@svc/cli", "new-solver", "my-solver"], world, outside())
    const project = join(world, "my-solver")
    const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as {
      dependencies: Record<string, string>
    }
    const generatedRanges = Object.fromEntries(
      Object.entries(manifest.dependencies).filter(([name]) => name.startsWith("@svc/"))
    )
    const stale = Object.entries(generatedRanges).filter(([, range]) => range !== `^${version}`)
    if (stale.length > 0) {
      throw new RehearsalStepError(
        "npx @svc/cli new-solver",
        `dependencies not on ^${version}: ${JSON.stringify(stale)}`
      )
    }
    run("my-solver: npm install", "npm", ["install"], project, outside())
    run("my-solver: npm test", "npm", ["test"], project, outside())

    // npm start, in a process group of its own (npm, its shell and the solver are stopped together)
    log("my-solver: npm start")
    started = Date.now()
    const child = spawn("npm", ["start"], {
      cwd: project,
      env: outside({ PORT: "0" }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true
    })
    solver = child
    const url = await new Promise<string>((resolve, reject) => {
      let out = ""
      const timer = setTimeout(
        () => reject(new RehearsalStepError("my-solver: npm start", `no start:\n${out}`)),
        180_000
      )
      const onData = (d: Buffer) => {
        out += d
        const m = /^listening on (\S+)$/m.exec(out)
        if (m !== null) {
          clearTimeout(timer)
          resolve(m[1]!)
        }
      }
      child.stdout!.on("data", onData)
      child.stderr!.on("data", (d: Buffer) => (out += d))
      child.once("exit", (code) => {
        clearTimeout(timer)
        reject(new RehearsalStepError("my-solver: npm start", `exited ${code}:\n${out}`))
      })
    })
    const feed = await fetch(`${url}/api/v6/solver-feed`)
    const body = (await feed.json()) as { ok?: boolean }
    if (feed.status !== 200 || body.ok !== true) {
      throw new RehearsalStepError("my-solver: npm start", `GET /api/v6/solver-feed: ${feed.status}`)
    }
    steps.push({ name: "my-solver: npm start", seconds: (Date.now() - started) / 1000 })

    const checked = run(
      "npx @svc/cli conformance",
      "npx",
      ["--yes", "@svc/cli", "conformance", "--url", url],
      world,
      outside()
    )
    const conformance = /PASS \d+ passed, 0 failed[^\n]*/.exec(checked.output)?.[0]
    if (conformance === undefined) throw new RehearsalStepError("npx @svc/cli conformance", checked.output)
    // the harness's own package by its name, as docs/conformance.md's CI recipe runs it (its one bin)
    const byName = run(
      "npx @svc/conformance",
      "npx",
      ["--yes", "@svc/conformance", "--url", url, "--only", "discovery", "--read-only"],
      world,
      outside()
    )
    if (!/PASS \d+ passed, 0 failed/.test(byName.output)) {
      throw new RehearsalStepError("npx @svc/conformance", byName.output)
    }

    // stopped as Ctrl-C stops it: SIGTERM to its process group (npm dies of it; the solver shuts down), and
    // nothing of it is left running 30 s later
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new RehearsalStepError("my-solver: stop", "npm start still runs 30 s after SIGTERM")),
        30_000
      )
      child.removeAllListeners("exit")
      child.once("exit", (code, signal) => {
        clearTimeout(timer)
        if (code === 0 || signal === "SIGTERM") resolve()
        else reject(new RehearsalStepError("my-solver: stop", `npm start exited ${code ?? signal} on SIGTERM`))
      })
      process.kill(-child.pid!, "SIGTERM")
    })
    for (let waited = 0; groupAlive(child.pid!); waited += 100) {
      if (waited > 30_000) throw new RehearsalStepError("my-solver: stop", "the solver still runs 30 s after SIGTERM")
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    solver = undefined

    // 4. a connector package, by name from the registry
    run("npx @svc/cli new-connector", "npx", ["--yes", "@svc/cli", "new-connector", "acme"], world, outside())
    const connector = join(world, "connector-acme")
    run("connector-acme: npm install", "npm", ["install"], connector, outside())
    for (const file of walkthrough(readFileSync(join(copy, "docs/connectors.md"), "utf8"))) {
      mkdirSync(join(connector, file.path, ".."), { recursive: true })
      writeFileSync(join(connector, file.path), file.content)
    }
    const tested = run("connector-acme: npm test", "npm", ["test"], connector, outside())
    const connectorTests = Number(/Tests\s+(\d+) passed/.exec(tested.output)?.[1] ?? 0)
    if (connectorTests === 0) throw new RehearsalStepError("connector-acme: npm test", tested.output)

    // 5. on the machine's older Node, the bin says what it needs
    const older = olderNode()
    let olderNodeResult: Rehearsal["olderNode"]
    if (older !== undefined) {
      const r = run(
        `Node ${older.version}: npx @svc/cli --version`,
        join(older.dir, "npx"),
        ["--yes", "@svc/cli", "--version"],
        world,
        outside({}, older.dir),
        2
      )
      olderNodeResult = { version: older.version, stderr: r.stderr, status: r.status }
      if (!r.stderr.includes(`svc: Node.js 22.19 or later is required (this is Node.js ${older.version})`)) {
        throw new RehearsalStepError(`Node ${older.version}: npx @svc/cli --version`, r.output)
      }
    } else {
      log("no Node.js older than 22.19 on this machine: the version gate is not rehearsed")
    }

    return {
      registry: registry.url,
      solver: url,
      published,
      generatedRanges,
      conformance,
      connectorTests,
      olderNode: olderNodeResult,
      steps,
      scopeUplinkRequests: registry.scopeUplinkRequests()
    }
  } finally {
    if (solver !== undefined && groupAlive(solver.pid!)) {
      try {
        process.kill(-solver.pid!, "SIGKILL")
      } catch {
        // gone already
      }
    }
    await registry?.stop()
  }
}
