/**
 * A package's README travels in its tarball, without the repository around it:
 * every link it holds is absolute (a URL) or points at a file of the package
 * that its `files` list ships, never at `../../docs/…` or a sibling package.
 * The docs it names are said to live in the svc repository.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { join, normalize, relative } from "node:path"
import { packages } from "../scripts/packages.ts"

/** The targets of the Markdown links and images of a text (inline form), code spans and blocks left out. */
export const linkTargets = (markdown: string): ReadonlyArray<string> =>
  [...markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!)

describe("package READMEs", () => {
  it("link only to URLs and to files their package ships", () => {
    for (const pkg of packages()) {
      const readme = join(pkg.dir, "README.md")
      if (!existsSync(readme)) continue
      const manifest = JSON.parse(readFileSync(join(pkg.dir, "package.json"), "utf8")) as { files: Array<string> }
      for (const target of linkTargets(readFileSync(readme, "utf8"))) {
        if (/^(https?:|mailto:|#)/.test(target)) continue
        const file = normalize(target.split("#")[0]!)
        const where = `${pkg.name}: ${target}`
        assert.isFalse(relative(pkg.dir, join(pkg.dir, file)).startsWith(".."), `${where} leaves the package`)
        assert.isTrue(existsSync(join(pkg.dir, file)), `${where} does not exist`)
        assert.isTrue(
          manifest.files.some((f) => file === f || file.startsWith(`${f}/`)),
          `${where} is not in the package's files`
        )
      }
    }
  })

  it("say where the docs they name live", () => {
    for (const pkg of packages()) {
      const readme = join(pkg.dir, "README.md")
      if (!existsSync(readme)) continue
      const text = readFileSync(readme, "utf8")
      if (text.includes("docs/")) {
        assert.include(text.replace(/\s+/g, " "), "in the `docs/` folder of the svc repository")
      }
    }
  })

  it("finds links", () => {
    assert.deepStrictEqual(linkTargets("[a](../../docs/x.md) `[b](c)` [d](https://e) ![f](./g.png)"), [
      "../../docs/x.md",
      "https://e",
      "./g.png"
    ])
  })
})
