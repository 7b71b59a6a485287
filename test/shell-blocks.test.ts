/**
 * Command blocks marked `sh` in the README, docs/ and the package READMEs run as
 * pasted into any POSIX shell: none uses `<<<` here-strings, which dash (Debian's
 * and Ubuntu's /bin/sh) refuses, and dash parses (`dash -n`) each block that has
 * no `<placeholder>` to fill in.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { ROOT } from "../scripts/packages.ts"

/** The Markdown files users read. */
const documents = (): ReadonlyArray<string> =>
  [
    join(ROOT, "README.md"),
    ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => join(ROOT, "docs", f)),
    ...readdirSync(join(ROOT, "packages")).map((p) => join(ROOT, "packages", p, "README.md")),
    join(ROOT, "conformance/README.md"),
    ...readdirSync(join(ROOT, "examples")).map((e) => join(ROOT, "examples", e, "README.md"))
  ].filter((f) => existsSync(f))

/** The `sh` blocks of a Markdown text. */
export const shBlocks = (markdown: string): ReadonlyArray<string> =>
  [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!)

const DASH = ["/bin/dash", "/usr/bin/dash"].find((p) => existsSync(p))

describe("sh blocks", () => {
  it("parse in dash and use no here-string", () => {
    let blocks = 0
    let parsed = 0
    for (const file of documents()) {
      for (const block of shBlocks(readFileSync(file, "utf8"))) {
        blocks++
        const where = `${relative(ROOT, file)}:\n${block}`
        assert.notInclude(block, "<<<", where)
        if (DASH === undefined || /<[A-Za-z][\w .-]*>/.test(block)) continue
        parsed++
        const r = spawnSync(DASH, ["-n"], { input: block, encoding: "utf8" })
        assert.strictEqual(r.status, 0, `${where}\n${r.stderr}`)
      }
    }
    assert.isAbove(blocks, 20)
    if (DASH !== undefined) assert.isAbove(parsed, 10)
  })

  it("dash refuses a here-string", (ctx) => {
    if (DASH === undefined) return ctx.skip()
    assert.notStrictEqual(spawnSync(DASH, ["-n"], { input: "x=$(cat <<<\"$Y\")\n" }).status, 0)
  })
})
