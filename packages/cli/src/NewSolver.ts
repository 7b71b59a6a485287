/**
 * `svc new-solver <dir>`: generates a runnable custom solver project (svc's HTTP
 * API over the engine, with its own pricing layer and catalog, a test and a
 * README) from the templates in `packages/cli/templates/solver`. The project
 * depends on the published svc packages; their version ranges are read at
 * generation time from the packages installed with this command.
 *
 * @since 0.1.0
 */
import { Effect, Option, Path } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import {
  caretRange,
  type GeneratedFile,
  PACKAGE_DIR,
  requireInstalled,
  summary,
  templateFiles,
  UNTIL_PUBLISHED,
  writeGenerated
} from "./internal/scaffold.ts"
import { BadInput, writeJson, writeNote } from "./Io.ts"

/**
 * The template folder.
 *
 * @category constants
 * @since 0.1.0
 */
export const TEMPLATE_DIR = fileURLToPath(new URL("../templates/solver/", import.meta.url))

/** The folder of this package (the CLI), from src/ or dist/. */

/**
 * The dependencies of a generated project.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEPENDENCIES = [
  "@effect/platform-node",
  "@svc/connector-evm",
  "@svc/connector-solana",
  "@svc/core",
  "@svc/protocol",
  "@svc/server",
  "@svc/store",
  "effect"
] as const

/**
 * The development dependencies of a generated project.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEV_DEPENDENCIES = ["@effect/vitest", "@foundry-rs/anvil", "@svc/cli", "@types/node", "vitest"] as const

/**
 * A package a generated project depends on.
 *
 * @category models
 * @since 0.1.0
 */
export type Dependency = typeof DEPENDENCIES[number] | typeof DEV_DEPENDENCIES[number]

/**
 * What to generate.
 *
 * @category models
 * @since 0.1.0
 */
export interface SolverScaffoldOptions {
  /** npm package name of the project (e.g. "my-solver" or "@acme/solver"). */
  readonly name: string
  /** The version range of every dependency (see {@link installedRanges}). */
  readonly ranges: { readonly [K in Dependency]: string }
}

/**
 * A generated file, by path relative to the project folder.
 *
 * @category models
 * @since 0.1.0
 */
export type { GeneratedFile } from "./internal/scaffold.ts"

/** npm's rules for new package names: lowercase, URL-safe, optionally scoped, at most 214 characters. */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/
const RANGE = /^[^\s"\\]+$/

/** Template path -> project path: drop `.tmpl`; a leading `_` is a dot (`_gitignore`: npm never packs a `.gitignore`). */
const outputPath = (template: string): string =>
  relative(TEMPLATE_DIR, template).replace(/\.tmpl$/, "").split("\\").join("/").replace(/(^|\/)_/g, "$1.")

/**
 * The files of a solver project (pure but for reading the templates).
 * Placeholders: `__name__` and `__range:<dependency>__`.
 *
 * @category running
 * @since 0.1.0
 */
export const render = (options: SolverScaffoldOptions): ReadonlyArray<GeneratedFile> => {
  if (options.name.length > 214 || !NPM_NAME.test(options.name)) {
    throw new BadInput({
      message: `package name ${
        JSON.stringify(options.name)
      }: not a valid npm name (lowercase a-z 0-9 . _ ~ -, optionally @scope/); choose one with --name`
    })
  }
  const values = new Map<string, string>([["__name__", options.name]])
  for (const dependency of [...DEPENDENCIES, ...DEV_DEPENDENCIES]) {
    const range = options.ranges[dependency]
    if (typeof range !== "string" || !RANGE.test(range)) {
      throw new BadInput({ message: `version range of ${dependency}: ${JSON.stringify(range)} is not usable` })
    }
    values.set(`__range:${dependency}__`, range)
  }
  const fill = (text: string, where: string) =>
    text.replace(/__(?:name|range:[@a-z0-9/._-]+?)__/g, (key) => {
      const value = values.get(key)
      if (value === undefined) throw new Error(`template ${where}: unknown placeholder ${key}`)
      return value
    })
  return templateFiles(TEMPLATE_DIR)
    .map((file) => ({ path: outputPath(file), content: fill(readFileSync(file, "utf8"), file) }))
    .sort((a, b) => (a.path < b.path ? -1 : 1))
}

/**
 * Writes a solver project into `dir` (which must not exist yet) and returns
 * the paths written.
 *
 * @category running
 * @since 0.1.0
 */
export const write = (dir: string, options: SolverScaffoldOptions) =>
  writeGenerated(dir, () => render(options), "choose a new folder")

/**
 * An installed package, and how the generator finds one: the first
 * `node_modules/<name>` on the way up from a folder (symbolic links resolved).
 *
 * @category running
 * @since 0.1.0
 */
export { type InstalledPackage, installedPackage } from "./internal/scaffold.ts"

/**
 * The version ranges of a generated project, from the packages installed with
 * this command (`from`, default the CLI's folder): `^<version>` of the svc
 * packages, `effect` and `@effect/platform-node` the CLI depends on (the
 * connectors: those `@svc/server` depends on); vitest and @effect/vitest: the
 * ranges `@svc/core` declares for its testing modules; @types/node: the major
 * version of the running Node; `@svc/cli` (`npm run devnet`, `svc conformance`): this
 * command's own version; `@foundry-rs/anvil` (the devnet's chains): the range the
 * CLI declares for it.
 *
 * @category running
 * @since 0.1.0
 */
export const installedRanges = (from: string = PACKAGE_DIR): SolverScaffoldOptions["ranges"] => {
  const caret = (name: string, where: string = from) => caretRange(name, where)
  const server = requireInstalled("@svc/server", from)
  const core = requireInstalled("@svc/core", from)
  const devRange = (name: string) => core.peerDependencies[name] ?? caret(name)
  const cli = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as {
    readonly version: string
    readonly peerDependencies?: Readonly<Record<string, string>>
  }
  return {
    "@effect/platform-node": caret("@effect/platform-node"),
    "@svc/connector-evm": caret("@svc/connector-evm", server.dir),
    "@svc/connector-solana": caret("@svc/connector-solana", server.dir),
    "@svc/core": `^${core.version}`,
    "@svc/protocol": caret("@svc/protocol"),
    "@svc/server": `^${server.version}`,
    "@svc/store": caret("@svc/store"),
    effect: caret("effect"),
    "@effect/vitest": devRange("@effect/vitest"),
    "@types/node": `^${process.versions.node.split(".")[0]}.0.0`,
    vitest: devRange("vitest"),
    "@svc/cli": `^${cli.version}`,
    "@foundry-rs/anvil": cli.peerDependencies?.["@foundry-rs/anvil"] ?? caret("@foundry-rs/anvil")
  }
}

/**
 * The `new-solver` command.
 *
 * @category running
 * @since 0.1.0
 */
export const newSolver = Command.make("new-solver", {
  dir: Argument.String("dir").pipe(Argument.withDescription("the project folder to create (must not exist)")),
  name: Flag.String("name").pipe(
    Flag.withDescription("npm package name of the project (default: the folder's name)"),
    Flag.optional
  )
}, ({ dir, name }) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const target = path.resolve(process.cwd(), dir)
    const packageName = Option.getOrElse(name, () => path.basename(target))
    const ranges = yield* Effect.try({
      try: () => installedRanges(),
      catch: (e) => e instanceof BadInput ? e : new BadInput({ message: String(e) })
    })
    const files = yield* write(target, { name: packageName, ranges })
    const next = [
      `cd ${path.relative(process.cwd(), target) || "."}`,
      `npm install (${UNTIL_PUBLISHED})`,
      "npm test",
      "npm start (listens on http://127.0.0.1:8787; PORT to change)",
      "npm run devnet, then npm run start:devnet: this solver on two local chains, a fill paid (README.md, On chains)",
      "make src/pricing.ts and src/catalog.json yours (README.md: what each file is, where to go next)"
    ]
    yield* writeJson({ created: target, name: packageName, files, dependencies: ranges, next })
    // for the person at the terminal: standard output stays one JSON value
    yield* writeNote(summary({ what: `the solver project ${packageName}`, dir: target, files: files.length, next }))
  })).pipe(
    Command.withDescription(
      "generate a runnable custom solver project: svc's HTTP API with its own pricing and catalog"
    )
  )
