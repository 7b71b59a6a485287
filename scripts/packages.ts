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
import { cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs"
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
  copied.push(...vendor())
  return copied
}

/**
 * Files a package ships from a development dependency instead of depending on
 * it: `@svc/server` serves Scalar's self-contained browser bundle at /docs, one
 * file of a package with ~270 dependencies of its own. A NOTICE next to each
 * vendored file names its package, version, author and license (from its
 * package.json).
 */
const VENDORED: ReadonlyArray<{ readonly pkg: string; readonly from: string; readonly files: Record<string, string> }> =
  [
    {
      pkg: "@svc/server",
      from: "@scalar/api-reference",
      files: { "dist/browser/standalone.js": "dist/assets/scalar-api-reference.standalone.js" }
    }
  ]

const vendor = (): ReadonlyArray<string> => {
  const copied: Array<string> = []
  for (const entry of VENDORED) {
    const pkg = packages().find((p) => p.name === entry.pkg)
    if (pkg === undefined) continue
    // the development dependency as pnpm links it into the package's node_modules
    const root = realpathSync(join(pkg.dir, "node_modules", entry.from))
    for (const [from, to] of Object.entries(entry.files)) {
      const target = join(pkg.dir, to)
      mkdirSync(dirname(target), { recursive: true })
      cpSync(join(root, from), target)
      copied.push(relative(ROOT, target))
    }
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, string>
    const notice = join(pkg.dir, "dist", "assets", `${entry.from.replace(/^@/, "").replace("/", "-")}.NOTICE`)
    writeFileSync(
      notice,
      `${
        Object.values(entry.files).map((f) => f.replace(/^dist\/assets\//, "")).join(", ")
      }: ${entry.from} ${manifest.version} (${manifest.homepage}), by ${manifest.author}, under the ${manifest.license} license; redistributed unchanged.\n`
    )
    copied.push(relative(ROOT, notice))
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
