/**
 * `npm run pack`: builds every publishable package and writes one tarball per
 * package into `dist-packages/` with `pnpm pack`, which turns `workspace:`
 * ranges into the packages' versions and applies each package's
 * `publishConfig` (exports and bins pointing at `dist/`). The tarballs are what
 * the tarball test installs into a project outside the repository, and what
 * the docs' "from the tarballs" install sections use.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { build, packages, ROOT } from "./packages.ts"

/** The folder the tarballs are written to. */
export const OUT = join(ROOT, "dist-packages")

/** Builds and packs every package; returns the tarball paths. */
export const pack = (): ReadonlyArray<string> => {
  build()
  rmSync(OUT, { recursive: true, force: true })
  mkdirSync(OUT, { recursive: true })
  for (const pkg of packages()) {
    execFileSync(join(ROOT, "node_modules/.bin/pnpm"), ["pack", "--pack-destination", OUT], {
      cwd: pkg.dir,
      stdio: ["ignore", "ignore", "inherit"]
    })
  }
  return readdirSync(OUT).filter((f) => f.endsWith(".tgz")).sort().map((f) => join(OUT, f))
}

if (import.meta.main) {
  for (const tarball of pack()) process.stdout.write(`${tarball}\n`)
}
