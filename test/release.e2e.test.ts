/**
 * The release dry run (scripts/release-dry-run.ts, `npm run release:dry-run`):
 * in a temporary copy of the repository, `changeset version` moves every
 * package of the fixed group to one new version above the current one (when
 * changesets are pending), each package's CHANGELOG.md gets the changes that
 * name it, every `pnpm publish --dry-run` succeeds with a manifest on the new
 * versions, and the working tree is the same afterwards.
 *
 * Slow (an install from the store, `changeset version` and a full build in the
 * copy): about 20 seconds on its own.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { packages, ROOT } from "../scripts/packages.ts"
import { changelogSection, type ReleaseDryRun, releaseDryRun, summary } from "../scripts/release-dry-run.ts"

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

  beforeAll(() => {
    changesets = pendingChangesets()
    before = worktree()
    const started = Date.now()
    result = releaseDryRun({ log: () => {} })
    process.stderr.write(`release dry run: ${((Date.now() - started) / 1000).toFixed(1)} s\n${summary(result)}\n`)
    after = worktree()
  }, 300_000)

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
