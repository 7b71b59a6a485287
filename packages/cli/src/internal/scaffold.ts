/**
 * What `svc new-connector` and `svc new-solver` share: the template files of a
 * folder, writing generated files into a new folder, and the packages installed
 * next to the CLI (the source of the version ranges a generated project
 * depends on). Internal.
 */
import { Effect, FileSystem, Path } from "effect"
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { BadInput } from "../Io.ts"

/**
 * How to install a generated project's svc dependencies (by name and version, as
 * they will be published) before they are on the npm registry: one line, in the
 * next steps of both generators.
 */
export const UNTIL_PUBLISHED =
  "until svc is on the npm registry: npm install <svc>/dist-packages/*.tgz, the tarballs npm run pack writes in a clone of svc"

/** A generated file, by path relative to the generated folder. */
export interface GeneratedFile {
  readonly path: string
  readonly content: string
}

/** The CLI's package folder. */
export const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url))

/** The `.tmpl` files under a template folder, recursively. */
export const templateFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((entry) => {
    const full = join(dir, entry)
    return statSync(full).isDirectory() ? templateFiles(full) : full.endsWith(".tmpl") ? [full] : []
  })

/**
 * Writes the rendered files into `dir`, which must not exist yet, and returns
 * the paths written. A rendering or writing failure is one-line bad input.
 */
export const writeGenerated = (dir: string, render: () => ReadonlyArray<GeneratedFile>, taken: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    if (yield* fs.exists(dir).pipe(Effect.orElseSucceed(() => false))) {
      return yield* new BadInput({ message: `${dir} already exists; ${taken}` })
    }
    const files = yield* Effect.try({
      try: render,
      catch: (e) => e instanceof BadInput ? e : new BadInput({ message: String(e) })
    })
    for (const file of files) {
      const target = path.join(dir, file.path)
      yield* fs.makeDirectory(path.dirname(target), { recursive: true }).pipe(
        Effect.andThen(fs.writeFileString(target, file.content)),
        Effect.mapError((e) => new BadInput({ message: `cannot write ${target}: ${e.message.split("\n")[0]}` }))
      )
    }
    return files.map((f) => path.join(dir, f.path))
  })

/** An installed package. */
export interface InstalledPackage {
  readonly name: string
  readonly version: string
  /** Its folder (symbolic links resolved). */
  readonly dir: string
  readonly peerDependencies: Readonly<Record<string, string>>
}

/**
 * The package `name` as Node finds it from the folder `from`: the first
 * `node_modules/<name>` on the way up (symbolic links resolved, as Node does).
 */
export const installedPackage = (name: string, from: string): InstalledPackage | undefined => {
  let dir = realpathSync(from)
  for (;;) {
    const manifest = join(dir, "node_modules", name, "package.json")
    if (existsSync(manifest)) {
      const json = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, unknown>
      if (json.name === name && typeof json.version === "string") {
        return {
          name,
          version: json.version,
          dir: realpathSync(dirname(manifest)),
          peerDependencies: (json.peerDependencies ?? {}) as Record<string, string>
        }
      }
    }
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/** The package installed next to `from`, or a one-line error naming it. */
export const requireInstalled = (name: string, from: string = PACKAGE_DIR): InstalledPackage => {
  const found = installedPackage(name, from)
  if (found === undefined) {
    throw new BadInput({ message: `cannot find the installed package ${name} (from ${from}) to read its version` })
  }
  return found
}

/** `^<version>` of the package installed next to `from`. */
export const caretRange = (name: string, from: string = PACKAGE_DIR): string =>
  `^${requireInstalled(name, from).version}`

/**
 * The readable summary of a generated project, for standard error: what was
 * created where, and the next steps, numbered.
 */
export const summary = (options: {
  readonly what: string
  readonly dir: string
  readonly files: number
  readonly next: ReadonlyArray<string>
}): string => {
  const where = relative(process.cwd(), options.dir) || "."
  return [
    `created ${options.what} in ${where.startsWith("..") ? options.dir : where} (${options.files} files)`,
    "next:",
    ...options.next.map((step, i) => `  ${i + 1}. ${step}`)
  ].join("\n")
}
