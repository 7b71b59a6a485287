/**
 * The publishable packages of the workspace, and their build: `tsc -b` over the
 * project references (JavaScript, declarations and source maps into each
 * package's `dist/`), then the files under `src/` that are not TypeScript (for
 * example Solidity sources a testing module reads) copied next to the compiled
 * modules.
 *
 *   node scripts/packages.ts build     build every package
 *   node scripts/packages.ts list      print the packages, one per line
 */
import { execFileSync } from "node:child_process"
import { cpSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

export const ROOT = fileURLToPath(new URL("../", import.meta.url))

/** A publishable package: its name, version and folder. */
export interface WorkspacePackage {
  readonly name: string
  readonly version: string
  readonly dir: string
}

/** Every package with a build configuration (the public ones), in build order of the references file. */
export const packages = (): ReadonlyArray<WorkspacePackage> => {
  const references = (JSON.parse(readFileSync(join(ROOT, "tsconfig.build.json"), "utf8")) as {
    references: ReadonlyArray<{ path: string }>
  }).references
  return references.map(({ path }) => {
    const dir = join(ROOT, dirname(path))
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; version: string }
    return { name: manifest.name, version: manifest.version, dir }
  })
}

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })

/** Builds every package; returns the non-TypeScript files copied into `dist/`. */
export const build = (): ReadonlyArray<string> => {
  execFileSync(process.execPath, [
    join(ROOT, "node_modules/typescript/bin/tsc"),
    "-b",
    join(ROOT, "tsconfig.build.json")
  ], {
    stdio: "inherit"
  })
  const copied: Array<string> = []
  for (const pkg of packages()) {
    const src = join(pkg.dir, "src")
    for (const file of filesUnder(src)) {
      if (file.endsWith(".ts")) continue
      const target = join(pkg.dir, "dist", relative(src, file))
      cpSync(file, target)
      copied.push(relative(ROOT, target))
    }
  }
  return copied
}

if (import.meta.main) {
  const command = process.argv[2]
  if (command === "build") {
    const copied = build()
    process.stderr.write(
      `built ${packages().length} packages${copied.length > 0 ? `; copied ${copied.join(", ")}` : ""}\n`
    )
  } else if (command === "list") {
    for (const pkg of packages()) process.stdout.write(`${pkg.name}@${pkg.version} ${relative(ROOT, pkg.dir)}\n`)
  } else {
    process.stderr.write("usage: node scripts/packages.ts build | list\n")
    process.exit(2)
  }
}
