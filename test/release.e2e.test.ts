/**
 * The release dry run (scripts/release-dry-run.ts, `npm run release:dry-run`):
 * in a temporary copy of the repository, `changeset version` moves every
 * package of the fixed group to one new version above the current one (when
 * changesets are pending), each package's CHANGELOG.md gets the changes that
 * name it, every `pnpm publish --dry-run` succeeds with a manifest on the new
 * versions, and the working tree is the same afterwards.
 *
 * Then the rehearsal against a real registry (scripts/release-rehearsal.ts):
 * every package is published to a local Verdaccio that serves `@svc/*` only from
 * what was published to it (it never asked its uplink for one), and outside the
 * repository, by name from that registry, `npx @svc/cli new-solver` gives a
 * project whose `npm install`, `npm test` and `npm start` work and against which
 * `npx @svc/cli conformance --url` passes; `npx @svc/cli new-connector acme`
 * installs and passes its testkit; on the machine's Node 20, `npx @svc/cli`
 * names the Node.js version it needs and exits 2. Nothing is left running.
 *
 * Slow (an install from the store, `changeset version` and a full build in the
 * copy, then the installs from the registry): about 3 minutes with the
 * rehearsal's npm cache filled (`node_modules/.cache/svc-registry`), minutes
 * more for the first run, which fills it, or on a loaded machine.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { packages, ROOT } from "../scripts/packages.ts"
import { changelogSection, type ReleaseDryRun, releaseDryRun, summary } from "../scripts/release-dry-run.ts"
import { scaled } from "./support/time.ts"

const git = (...args: ReadonlyArray<string>): string => {
  const r = spawnSync("git", args, { cwd: ROOT, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
  assert.strictEqual(r.status, 0, r.stderr)
  return r.stdout
}

/**
 * What the working tree holds as git sees it: HEAD, `git status --porcelain`, the diff of the tracked files
 * against HEAD and the contents of the untracked ones (a file already modified stays " M" when it changes again).
 */
const worktree = (): string => {
  const untracked = git("ls-files", "-z", "--others", "--exclude-standard").split("\0").filter((f) => f !== "")
  const contents = createHash("sha256")
  for (const file of untracked) contents.update(file).update(readFileSync(join(ROOT, file)))
  return [
    git("rev-parse", "HEAD"),
    git("status", "--porcelain"),
    createHash("sha256").update(git("diff", "HEAD", "--binary")).digest("hex"),
    contents.digest("hex")
  ].join("\n")
}

/** x.y.z compared numerically (pre-release tags are not used while pre-1.0). */
const compareVersions = (a: string, b: string): number => {
  const [x, y] = [a, b].map((v) => v.split(/[.+-]/).slice(0, 3).map(Number))
  for (let i = 0; i < 3; i++) if (x![i] !== y![i]) return x![i]! - y![i]!
  return 0
}

/** The pending changesets of the working tree: the packages each names and the first line of its summary. */
const pendingChangesets = () =>
  readdirSync(join(ROOT, ".changeset"))
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .map((f) => {
      const [, front = "", body = ""] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(
        readFileSync(join(ROOT, ".changeset", f), "utf8")
      ) ?? []
      return {
        id: f.slice(0, -".md".length),
        packages: [...front.matchAll(/^\s*["']?(@svc\/[^"':]+)["']?\s*:/gm)].map((m) => m[1]!),
        firstLine: body.trim().split("\n")[0]!.trimEnd()
      }
    })

describe("the release dry run", () => {
  let before = ""
  let after = ""
  let result: ReleaseDryRun
  let changesets: ReturnType<typeof pendingChangesets> = []

  beforeAll(async () => {
    changesets = pendingChangesets()
    before = worktree()
    const started = Date.now()
    result = await releaseDryRun({ log: () => {} })
    process.stderr.write(`release dry run: ${((Date.now() - started) / 1000).toFixed(1)} s\n${summary(result)}\n`)
    after = worktree()
  }, scaled(1_500_000))

  it("leaves the working tree unchanged and removes its copy", () => {
    assert.strictEqual(after, before)
    assert.isFalse(existsSync(result.copy), result.copy)
  })

  it("releases every public package, from its current version", () => {
    const current = packages().map((p) => ({ name: p.name, path: relative(ROOT, p.dir), version: p.version }))
    assert.deepStrictEqual(
      result.packages.map((p) => ({ name: p.name, path: p.path, version: p.oldVersion })).sort((a, b) =>
        a.name.localeCompare(b.name)
      ),
      current.sort((a, b) => a.name.localeCompare(b.name))
    )
  })

  it("moves the fixed group to one version, above the current one when changesets are pending", () => {
    assert.deepStrictEqual([...result.changesets], changesets.map((c) => c.id).sort())
    const versions = new Set(result.packages.map((p) => p.newVersion))
    assert.strictEqual(versions.size, 1, [...versions].join(", "))
    for (const p of result.packages) {
      if (changesets.length > 0) assert.isAbove(compareVersions(p.newVersion, p.oldVersion), 0, p.name)
      else assert.strictEqual(p.newVersion, p.oldVersion, p.name)
    }
  })

  it("writes each pending change into the CHANGELOG.md of every package it names", () => {
    if (changesets.length === 0) return
    const byName = new Map(result.packages.map((p) => [p.name, p]))
    for (const p of result.packages) {
      assert.match(p.changelog, new RegExp(`^## ${p.newVersion.replace(/\./g, "\\.")}\n`))
    }
    for (const changeset of changesets) {
      for (const name of changeset.packages) {
        assert.include(byName.get(name)?.changelog ?? "", changeset.firstLine, `${changeset.id} in ${name}`)
      }
    }
  })

  it("publishes every package (dry run) with its compiled files and the new versions in its manifest", () => {
    for (const p of result.packages) {
      assert.strictEqual(p.publish.id, `${p.name}@${p.newVersion}`)
      const files = p.publish.files.map((f) => f.path)
      assert.strictEqual(p.publish.entryCount, files.length, p.name)
      assert.include(files, "package.json", p.name)
      assert.isTrue(files.some((f) => f.startsWith("dist/") && f.endsWith(".js")), p.name)
      assert.isTrue(files.some((f) => f.startsWith("dist/") && f.endsWith(".d.ts")), p.name)
      assert.isAbove(p.publish.size, 0, p.name)
      assert.strictEqual(p.manifest.version, p.newVersion, p.name)
      assert.notInclude(JSON.stringify(p.manifest), "workspace:", p.name)
    }
  })

  it("publishes every package to a registry that serves @svc/* only from what was published to it", () => {
    const r = result.rehearsal!
    assert.isDefined(r)
    assert.deepStrictEqual(
      [...r.published].sort(),
      result.packages.map((p) => `${p.name}@${p.newVersion}`).sort()
    )
    assert.deepStrictEqual(r.scopeUplinkRequests, [], "the registry asked its uplink for an @svc package")
  })

  it("outside the repository, by name: new-solver installs, tests, serves and passes conformance; new-connector passes its testkit", () => {
    const r = result.rehearsal!
    const version = result.packages[0]!.newVersion
    assert.isAbove(Object.keys(r.generatedRanges).length, 3)
    for (const [name, range] of Object.entries(r.generatedRanges)) assert.strictEqual(range, `^${version}`, name)
    assert.match(r.conformance, /^PASS \d+ passed, 0 failed/)
    assert.isAbove(r.connectorTests, 0)
    for (
      const step of [
        "my-solver: npm install",
        "my-solver: npm test",
        "my-solver: npm start",
        "connector-acme: npm test"
      ]
    ) {
      assert.isTrue(r.steps.some((s) => s.name === step), step)
    }
  })

  it("on the machine's Node 20, npx @svc/cli names the Node.js version it needs and exits 2", () => {
    const older = result.rehearsal!.olderNode
    if (older === undefined) {
      assert.isTrue(["", "0", "false"].includes(process.env.CI ?? ""), "CI has the system's Node 20")
      return
    }
    assert.strictEqual(older.status, 2)
    assert.include(older.stderr, `svc: Node.js 22.19 or later is required (this is Node.js ${older.version})\n`)
  })

  it("leaves nothing running: the registry and the solver are gone", async () => {
    const r = result.rehearsal!
    for (const url of [`${r.registry}-/ping`, `${r.solver}/api/v6/solver-feed`]) {
      const answer = await fetch(url).then((res) => `answered ${res.status}`, () => "refused")
      assert.strictEqual(answer, "refused", url)
    }
  })

  it("prints one line per package", () => {
    const printed = summary(result)
    for (const p of result.packages) assert.include(printed, `${p.oldVersion} -> ${p.newVersion}`)
    for (const p of result.packages) assert.include(printed, p.name)
  })
})

describe("changelogSection", () => {
  it("returns the section of one version, up to the next", () => {
    const changelog = "# @svc/core\n\n## 0.3.0\n\n### Minor Changes\n\n- b\n\n## 0.2.0\n\n- a\n"
    assert.strictEqual(changelogSection(changelog, "0.3.0"), "## 0.3.0\n\n### Minor Changes\n\n- b")
    assert.strictEqual(changelogSection(changelog, "0.2.0"), "## 0.2.0\n\n- a")
    assert.strictEqual(changelogSection(changelog, "0.1.0"), "")
  })
})
