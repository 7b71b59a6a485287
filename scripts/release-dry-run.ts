/**
 * `npm run release:dry-run`: rehearses a release in a temporary copy of the
 * repository and never changes the working tree.
 *
 * The copy is the working tree as `git add -A` would commit it: a `git clone
 * --shared` of the repository (so `changeset version` finds the commits that
 * added the changesets, as in a real release) with every tracked and untracked,
 * not ignored, file of the working tree copied over it, uncommitted changesets
 * included. In the copy:
 *
 * 1. `pnpm install --offline --frozen-lockfile` (from the warm store; falls back
 *    to `--prefer-offline`, which asks the registry only for what the store misses);
 * 2. `changeset version` consumes the pending changesets, bumps the versions of
 *    the fixed group and writes the CHANGELOG.md files (skipped when no changeset
 *    is pending: the current versions are rehearsed, as before a real publish),
 *    then `pnpm install --offline --no-frozen-lockfile` records the moved ranges
 *    in pnpm-lock.yaml (every `@svc/*` must stay a workspace link);
 * 3. `node scripts/packages.ts build` builds every package;
 * 4. `pnpm publish --dry-run --no-git-checks --json` in every public package,
 *    which must succeed;
 * 5. `pnpm pack` of every public package, whose manifest must carry the new
 *    version, no `workspace:` range, internal ranges on the new version and
 *    entry points in `dist/` (publishConfig applied);
 * 6. the rehearsal against a real registry (scripts/release-rehearsal.ts): a
 *    local registry serving `@svc/*` only from what is published to it, every
 *    package published to it with `pnpm publish -r`, then, outside the
 *    repository, `npx @svc/cli new-solver` (install, test, start, conformance
 *    against it), `npx @svc/cli new-connector` (install, testkit) and the Node
 *    version gate on an older Node. `--no-registry` stops after step 5.
 *
 * It prints, per package, the version change, the tarball's file count and size
 * and the head of the new CHANGELOG entry; on a failure it names the failing step
 * and exits 1. The copy is removed unless `--keep` is given.
 *
 *   node scripts/release-dry-run.ts [--keep] [--no-registry]
 */
import { spawnSync } from "node:child_process"
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync
} from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join, relative, resolve } from "node:path"
import { packages as buildablePackages, ROOT } from "./packages.ts"
import { type Rehearsal, RehearsalStepError, rehearse } from "./release-rehearsal.ts"

/** A public package as the dry run released it. */
export interface ReleasedPackage {
  readonly name: string
  /** The package's folder, relative to the repository root. */
  readonly path: string
  readonly oldVersion: string
  readonly newVersion: string
  /** What `pnpm publish --dry-run --json` reported it would upload. */
  readonly publish: PublishSummary
  /** The `package.json` inside the packed tarball (workspace ranges and publishConfig applied). */
  readonly manifest: Record<string, unknown>
  /** The new version's section of CHANGELOG.md (empty when the package has none). */
  readonly changelog: string
}

/** The fields of pnpm's publish summary the dry run reads. */
export interface PublishSummary {
  readonly id: string
  readonly name: string
  readonly version: string
  /** The tarball's size in bytes. */
  readonly size: number
  readonly unpackedSize: number
  readonly entryCount: number
  readonly files: ReadonlyArray<{ readonly path: string }>
}

/** The result of a dry run. */
export interface ReleaseDryRun {
  /** The pending changesets that were consumed (file names without `.md`); empty when none was pending. */
  readonly changesets: ReadonlyArray<string>
  readonly packages: ReadonlyArray<ReleasedPackage>
  /** Whether `changeset version` changed what pnpm-lock.yaml must record (then the release commit carries it). */
  readonly lockfileChanged: boolean
  /** The temporary copy; removed already unless `keep` was set. */
  readonly copy: string
  /** The rehearsal against a local registry; undefined with `registry: false`. */
  readonly rehearsal: Rehearsal | undefined
}

/** A failed step of the dry run, with the output of the command that failed. */
export class ReleaseStepError extends Error {
  readonly step: string
  readonly output: string
  constructor(step: string, output: string) {
    super(`release dry run failed at step "${step}"`)
    this.step = step
    this.output = output
  }
}

export interface ReleaseDryRunOptions {
  /** Keep the temporary copy (to inspect the CHANGELOG.md files, for example). */
  readonly keep?: boolean
  /** Progress lines; stderr by default. */
  readonly log?: (line: string) => void
  /** Publish to a local registry and use the packages from it (default true). */
  readonly registry?: boolean
}

/** Changeset files that `changeset version` does not read (as @changesets/read ignores them). */
const NOT_CHANGESETS = new Set(["README.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"])

/**
 * The environment of the commands: the copy's tools first on PATH, nothing of the calling script runner or
 * vitest. `changeset version` formats what it wrote with the project's formatter (`pnpm exec dprint fmt`):
 * - `pnpm exec` would first check the install against the manifests `changeset version` just bumped and
 *   reinstall, asking the registry; the copy was installed a moment before, so that check is off;
 * - dprint caches the plugin it compiles under the plugin's path, which is new in every copy, so its cache
 *   lives in the temporary folder and goes with it.
 */
const environment = (temp: string, copy: string): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([k]) =>
      !k.startsWith("VITEST") && !k.startsWith("npm_") && k !== "NODE_OPTIONS" && k !== "FORCE_COLOR"
    )
  ),
  PATH: `${join(copy, "node_modules/.bin")}${delimiter}${dirname(process.execPath)}${delimiter}${
    process.env.PATH ?? ""
  }`,
  NO_COLOR: "1",
  PNPM_CONFIG_VERIFY_DEPS_BEFORE_RUN: "false",
  DPRINT_CACHE_DIR: join(temp, "dprint-cache")
})

/** The JSON a command printed on stdout, after anything else it printed before it. */
const parseJson = (step: string, stdout: string): unknown => {
  const start = stdout.search(/^[[{]/m)
  try {
    return JSON.parse(stdout.slice(Math.max(start, 0)))
  } catch {
    throw new ReleaseStepError(step, `no JSON in the output:\n${stdout}`)
  }
}

/** The section of a CHANGELOG.md under `## <version>` (up to the next `## ` heading). */
export const changelogSection = (changelog: string, version: string): string => {
  const lines = changelog.split("\n")
  const start = lines.findIndex((l) => l.trim() === `## ${version}`)
  if (start === -1) return ""
  const end = lines.findIndex((l, i) => i > start && l.startsWith("## "))
  return lines.slice(start, end === -1 ? undefined : end).join("\n").trim()
}

/** `@svc/*` ranges of a published manifest that do not point at `version` (exactly, or with ^ or ~). */
const staleInternalRanges = (manifest: Record<string, unknown>, version: string): ReadonlyArray<string> =>
  ["dependencies", "peerDependencies", "optionalDependencies", "devDependencies"].flatMap((field) =>
    Object.entries((manifest[field] ?? {}) as Record<string, string>)
      .filter(([name, range]) =>
        name.startsWith("@svc/") && !new RegExp(`^[~^]?${version.replace(/\./g, "\\.")}$`).test(range)
      )
      .map(([name, range]) => `${field}.${name}: ${range}`)
  )

/**
 * pnpm registers every project it installs from its store as a symbolic link under `<store>/projects`; the
 * copy's would dangle once the copy is gone, so it goes too (only a link that points at the copy).
 */
const unregisterFromStore = (copy: string, env: NodeJS.ProcessEnv): void => {
  if (!existsSync(join(copy, "node_modules"))) return
  const r = spawnSync(join(ROOT, "node_modules/.bin/pnpm"), ["store", "path"], { cwd: copy, env, encoding: "utf8" })
  const projects = join((r.stdout ?? "").trim(), "projects")
  if (r.status !== 0 || !existsSync(projects)) return
  for (const entry of readdirSync(projects)) {
    const link = join(projects, entry)
    if (lstatSync(link).isSymbolicLink() && resolve(projects, readlinkSync(link)) === copy) rmSync(link)
  }
}

/** Runs the dry run; throws a {@link ReleaseStepError} naming the failing step. */
export const releaseDryRun = async (options: ReleaseDryRunOptions = {}): Promise<ReleaseDryRun> => {
  const started = Date.now()
  const write = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const log = (line: string) => write(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`)
  const temp = realpathSync(mkdtempSync(join(tmpdir(), "svc-release-")))
  const copy = join(temp, "repo")
  const env = environment(temp, copy)

  /** Runs a command of a step; returns its stdout, throws with its output when it fails. */
  const run = (step: string, command: string, args: ReadonlyArray<string>, cwd: string): string => {
    const r = spawnSync(command, args, { cwd, env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
    if (r.status !== 0) {
      throw new ReleaseStepError(
        step,
        `${command} ${args.join(" ")} (in ${cwd}) exited ${r.status ?? r.signal}\n${r.stdout ?? ""}${r.stderr ?? ""}${
          r.error?.message ?? ""
        }`
      )
    }
    return r.stdout
  }
  const pnpm = (step: string, args: ReadonlyArray<string>, cwd: string) =>
    run(step, join(copy, "node_modules/.bin/pnpm"), args, cwd)

  try {
    // 1. the copy: the repository's history (shared objects, read only) and the working tree's files
    log(`copying the working tree to ${copy}`)
    run("copy", "git", ["clone", "--quiet", "--shared", "--no-checkout", ROOT, copy], temp)
    const files = run("copy", "git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT)
      .split("\0")
      .filter((f) => f !== "")
    for (const file of files) {
      // a node_modules that git does not ignore is a symbolic link: the copy gets its own install
      if (file.split("/").includes("node_modules")) continue
      const source = join(ROOT, file)
      const target = join(copy, file)
      const stat = lstatSync(source, { throwIfNoEntry: false })
      // deleted in the working tree, or a submodule: not part of the copy
      if (stat === undefined || stat.isDirectory()) continue
      mkdirSync(dirname(target), { recursive: true })
      if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), target)
      else copyFileSync(source, target)
    }
    // the index at HEAD: in the copy, the working tree's changes show as changes
    run("copy", "git", ["reset", "--quiet"], copy)

    // 2. the install, from the store the repository was installed from
    log("installing (pnpm install --offline --frozen-lockfile)")
    const install = ["install", "--frozen-lockfile"]
    const rootPnpm = join(ROOT, "node_modules/.bin/pnpm")
    try {
      run("install", rootPnpm, [...install, "--offline"], copy)
    } catch {
      // most likely the store misses a package: the registry is asked for what it misses, nothing else
      log("the offline install failed: installing with --prefer-offline")
      run("install", rootPnpm, [...install, "--prefer-offline"], copy)
    }

    // the public packages, each of which must have a build configuration (else it would be published unbuilt)
    const listed = parseJson(
      "packages",
      pnpm("packages", ["ls", "-r", "--depth", "-1", "--json"], copy)
    ) as ReadonlyArray<{ name: string; version?: string; path: string; private: boolean }>
    const pub = listed.filter((p) => !p.private).map((p) => ({
      name: p.name,
      path: relative(copy, p.path),
      oldVersion: p.version ?? ""
    }))
    const buildable = new Set(buildablePackages().map((p) => relative(ROOT, p.dir)))
    const unbuilt = pub.filter((p) => !buildable.has(p.path))
    if (unbuilt.length > 0) {
      throw new ReleaseStepError(
        "packages",
        `public packages without a build configuration in tsconfig.build.json: ${unbuilt.map((p) => p.name).join(", ")}`
      )
    }

    // 3. the versions and changelogs
    const changesetDir = join(copy, ".changeset")
    const pending = () =>
      readdirSync(changesetDir).filter((f) => f.endsWith(".md") && !f.startsWith(".") && !NOT_CHANGESETS.has(f))
    const changesets = pending().map((f) => f.slice(0, -".md".length)).sort()
    if (changesets.length > 0) {
      log(`changeset version (${changesets.length} pending changesets)`)
      run("changeset version", join(copy, "node_modules/.bin/changeset"), ["version"], copy)
      const left = pending()
      if (left.length > 0) {
        throw new ReleaseStepError("changeset version", `changesets not consumed: ${left.join(", ")}`)
      }
    } else {
      log("no pending changesets: rehearsing the current versions")
    }
    // the ranges `changeset version` moved (the examples' ranges on the packages) go into pnpm-lock.yaml,
    // which the release commit carries; each must still link the workspace package, never a registry copy
    log("updating pnpm-lock.yaml (pnpm install --offline --no-frozen-lockfile)")
    const lockfile = join(copy, "pnpm-lock.yaml")
    const lockBefore = readFileSync(lockfile, "utf8")
    pnpm("lockfile", ["install", "--offline", "--no-frozen-lockfile"], copy)
    const lockAfter = readFileSync(lockfile, "utf8")
    const fromRegistry = lockAfter.match(/^ {2}'?@svc\/[\w.-]+@[^:]+/gm) ?? []
    if (fromRegistry.length > 0) {
      throw new ReleaseStepError(
        "lockfile",
        `workspace packages resolved from the registry: ${fromRegistry.join(", ")}`
      )
    }

    // 4. the build
    log("building (node scripts/packages.ts build)")
    run("build", process.execPath, [join(copy, "scripts/packages.ts"), "build"], copy)

    // 5. publish (dry run) and pack every public package
    const tarballs = join(temp, "tarballs")
    mkdirSync(tarballs)
    const released = pub.map((p): ReleasedPackage => {
      const dir = join(copy, p.path)
      const newVersion = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version
      const id = `${p.name}@${newVersion}`
      log(`pnpm publish --dry-run ${id}`)
      const publishStep = `publish ${p.name}`
      const publish = parseJson(
        publishStep,
        pnpm(publishStep, ["publish", "--dry-run", "--no-git-checks", "--json"], dir)
      ) as PublishSummary
      if (publish.id !== id) throw new ReleaseStepError(publishStep, `published ${publish.id}, expected ${id}`)

      const packStep = `pack ${p.name}`
      const packed = parseJson(packStep, pnpm(packStep, ["pack", "--pack-destination", tarballs, "--json"], dir)) as {
        filename: string
      }
      const manifest = JSON.parse(
        run(packStep, "tar", ["-xzOf", resolve(tarballs, packed.filename), "package/package.json"], temp)
      ) as Record<string, unknown>
      const problems = [
        ...(manifest.version === newVersion ? [] : [`version ${String(manifest.version)}, expected ${newVersion}`]),
        ...(JSON.stringify(manifest).includes("workspace:") ? ["a workspace: range is left"] : []),
        ...staleInternalRanges(manifest, newVersion),
        ...(/"\.\/src\//.test(JSON.stringify([manifest.exports ?? null, manifest.bin ?? null, manifest.main ?? null]))
          ? ["an entry point in src/ (publishConfig not applied)"]
          : [])
      ]
      if (problems.length > 0) throw new ReleaseStepError(packStep, `the packed package.json: ${problems.join("; ")}`)

      const changelogFile = join(dir, "CHANGELOG.md")
      const changelog = existsSync(changelogFile)
        ? changelogSection(readFileSync(changelogFile, "utf8"), newVersion)
        : ""
      return { ...p, newVersion, publish, manifest, changelog }
    })
    // 6. the packages from a real registry, by name, outside the repository
    let rehearsal: Rehearsal | undefined
    if (options.registry !== false) {
      try {
        rehearsal = await rehearse({
          copy,
          temp,
          env,
          packages: released.map((p) => ({ name: p.name, dir: join(copy, p.path), version: p.newVersion })),
          log
        })
      } catch (error) {
        if (error instanceof RehearsalStepError) throw new ReleaseStepError(error.step, error.output)
        throw error
      }
    }
    return { changesets, packages: released, lockfileChanged: lockAfter !== lockBefore, copy, rehearsal }
  } finally {
    if (options.keep === true) log(`kept the copy: ${copy}`)
    else {
      unregisterFromStore(copy, env)
      rmSync(temp, { recursive: true, force: true })
    }
  }
}

/** Bytes as kB with one decimal. */
const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`

/** The summary printed by the script: one line per package, then the head of its CHANGELOG entry. */
export const summary = (result: ReleaseDryRun): string => {
  const width = Math.max(...result.packages.map((p) => p.name.length))
  const lines = [
    result.changesets.length > 0
      ? `release dry run: ${result.changesets.length} changesets consumed, ${result.packages.length} packages`
      : `release dry run: no pending changesets, ${result.packages.length} packages at their current versions`
  ]
  for (const p of result.packages) {
    lines.push(
      `${p.name.padEnd(width)}  ${p.oldVersion} -> ${p.newVersion}  ${p.publish.entryCount} files, ${
        kB(p.publish.size)
      } packed, ${kB(p.publish.unpackedSize)} unpacked`
    )
    // the changes (the "Updated dependencies" lines of a fixed group's bump are not)
    const entries = p.changelog.split("\n").filter((l) => l.startsWith("- ") && !l.startsWith("- Updated dependencies"))
    const head = p.changelog.split("\n").filter((l) => l.startsWith("#")).join(" / ")
    if (head === "") lines.push("    (no CHANGELOG entry)")
    else {
      const first = entries[0] ?? ""
      lines.push(
        `    ${head} (${entries.length} ${entries.length === 1 ? "change" : "changes"})${
          first === "" ? "" : `: ${first.length > 100 ? `${first.slice(0, 99)}…` : first}`
        }`
      )
    }
  }
  if (result.lockfileChanged) lines.push("pnpm-lock.yaml changes with the versions: commit it with the release")
  const r = result.rehearsal
  if (r !== undefined) {
    const seconds = (prefix: string) =>
      Math.round(r.steps.filter((s) => s.name.startsWith(prefix)).reduce((sum, s) => sum + s.seconds, 0))
    lines.push(
      `published ${r.published.length} packages to a local registry (${seconds("publish")} s); outside the repository:`,
      `  npx @svc/cli new-solver my-solver: npm install, npm test, npm start (${seconds("my-solver")} s)`,
      `  npx @svc/cli conformance --url <my-solver>: ${r.conformance}`,
      `  npx @svc/cli new-connector acme: npm install, npm test: ${r.connectorTests} passed (${
        seconds("connector-acme")
      } s)`,
      r.olderNode === undefined
        ? "  no Node.js older than 22.19 here: the version gate was not rehearsed"
        : `  on Node.js ${r.olderNode.version}: ${
          r.olderNode.stderr.trim().split("\n").at(-1)
        } (exit ${r.olderNode.status})`
    )
  }
  return lines.join("\n")
}

if (import.meta.main) {
  try {
    const result = await releaseDryRun({
      keep: process.argv.includes("--keep"),
      registry: !process.argv.includes("--no-registry")
    })
    process.stdout.write(`${summary(result)}\n`)
  } catch (error) {
    if (!(error instanceof ReleaseStepError)) throw error
    process.stderr.write(`${error.message}\n${error.output}\n`)
    process.exit(1)
  }
}
