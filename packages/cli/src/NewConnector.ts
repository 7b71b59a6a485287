/**
 * `svc new-connector <name>`: generates the skeleton of a network connector
 * package (the layout of docs/connectors.md) from the templates in
 * `packages/cli/templates/connector`. The skeleton compiles and runs the
 * connector testkit, failing where the author must fill in (every stub answers
 * NOT_IMPLEMENTED).
 *
 * @since 0.1.0
 */
import { Effect, FileSystem, Option, Path } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import {
  caretRange,
  type GeneratedFile,
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
export const TEMPLATE_DIR = fileURLToPath(new URL("../templates/connector/", import.meta.url))

/**
 * What to generate.
 *
 * @category models
 * @since 0.1.0
 */
export interface ScaffoldOptions {
  /** Connector name: lowercase, a-z 0-9 and dashes (e.g. "zeta" or "my-chain"). */
  readonly name: string
  /** Family name (the catalog's vm): A-Z 0-9, 2 to 16 characters. Default: the name in capitals without dashes. */
  readonly family?: string | undefined
  /** npm package name. Default `@svc/connector-<name>`. */
  readonly packageName?: string | undefined
  /** Version range of @svc/core: "workspace:^" inside the svc workspace, else the published range. */
  readonly coreRange: string
  /**
   * Where the package's `exports` point: `"source"` (the `.ts` sources, with
   * `publishConfig` pointing at `dist/`: packages inside the svc workspace) or
   * `"dist"` (the compiled files: a standalone package). Default `"dist"`.
   */
  readonly exportsFrom?: "source" | "dist" | undefined
}

/**
 * A generated file, by path relative to the package folder.
 *
 * @category models
 * @since 0.1.0
 */
export type { GeneratedFile } from "./internal/scaffold.ts"

const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/
const FAMILY = /^[A-Z0-9]{2,16}$/

/**
 * "my-chain" -> "MyChain".
 *
 * @category operations
 * @since 0.1.0
 */
export const pascalCase = (name: string): string =>
  name.split("-").map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join("")

const DIST_EXPORTS = {
  ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
  "./*": { types: "./dist/*.d.ts", default: "./dist/*.js" },
  "./internal/*": null
}

/** The `exports` (and `publishConfig`) members of the generated package.json, indented to fit the template. */
const exportsJson = (from: "source" | "dist"): string => {
  const members = from === "dist"
    ? { exports: DIST_EXPORTS }
    : {
      exports: { ".": "./src/index.ts", "./*": "./src/*.ts", "./internal/*": null },
      publishConfig: { exports: DIST_EXPORTS }
    }
  return JSON.stringify(members, null, 2).slice(2, -2)
}

/**
 * The files of a connector package (pure but for reading the templates).
 *
 * @category running
 * @since 0.1.0
 */
export const render = (options: ScaffoldOptions): ReadonlyArray<GeneratedFile> => {
  if (options.name.length > 40 || !NAME.test(options.name)) {
    throw new BadInput({
      message: `connector name ${
        JSON.stringify(options.name)
      }: lowercase a-z 0-9 and single dashes, starting with a letter`
    })
  }
  const family = options.family ?? options.name.replace(/-/g, "").toUpperCase().slice(0, 16)
  if (!FAMILY.test(family)) {
    throw new BadInput({ message: `family ${JSON.stringify(family)}: 2 to 16 characters A-Z 0-9 (--family)` })
  }
  const values: Record<string, string> = {
    __name__: options.name,
    __Name__: pascalCase(options.name),
    __FAMILY__: family,
    __package__: options.packageName ?? `@svc/connector-${options.name}`,
    __core_range__: options.coreRange,
    __exports__: exportsJson(options.exportsFrom ?? "dist")
  }
  const fill = (text: string) =>
    text.replace(/__(?:name|Name|FAMILY|package|core_range|exports)__/g, (key) => values[key]!)
  return templateFiles(TEMPLATE_DIR)
    .map((file) => ({
      path: fill(relative(TEMPLATE_DIR, file).replace(/\.tmpl$/, "")).split("\\").join("/"),
      content: fill(readFileSync(file, "utf8"))
    }))
    .sort((a, b) => (a.path < b.path ? -1 : 1))
}

/**
 * Writes a connector package into `dir` (which must not exist yet) and returns
 * the paths written.
 *
 * @category running
 * @since 0.1.0
 */
export const write = (dir: string, options: ScaffoldOptions) =>
  writeGenerated(dir, () => render(options), "choose another --dir or name")

/**
 * The svc workspace root above `from`, if any (a folder with
 * pnpm-workspace.yaml and packages/core).
 *
 * @category running
 * @since 0.1.0
 */
export const workspaceRoot = (
  from: string
): Effect.Effect<Option.Option<string>, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    let dir = path.resolve(from)
    for (;;) {
      const isRoot = yield* fs.exists(path.join(dir, "pnpm-workspace.yaml")).pipe(Effect.orElseSucceed(() => false))
      const hasCore = yield* fs.exists(path.join(dir, "packages", "core", "src", "Connector.ts")).pipe(
        Effect.orElseSucceed(() => false)
      )
      if (isRoot && hasCore) return Option.some(dir)
      const parent = path.dirname(dir)
      if (parent === dir) return Option.none<string>()
      dir = parent
    }
  })

/**
 * The `new-connector` command.
 *
 * @category running
 * @since 0.1.0
 */
export const newConnector = Command.make("new-connector", {
  name: Argument.String("name").pipe(Argument.withDescription("connector name: lowercase a-z 0-9 and dashes")),
  family: Flag.String("family").pipe(
    Flag.withDescription("family name, the catalog's vm (default: NAME in capitals)"),
    Flag.optional
  ),
  dir: Flag.String("dir").pipe(
    Flag.withDescription(
      "target folder (default: packages/connector-NAME inside the svc workspace, else ./connector-NAME)"
    ),
    Flag.optional
  ),
  packageName: Flag.String("package").pipe(
    Flag.withDescription(
      "npm package name (default @svc/connector-NAME inside the svc workspace, else svc-connector-NAME)"
    ),
    Flag.optional
  )
}, ({ dir, family, name, packageName }) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const cwd = process.cwd()
    const root = yield* workspaceRoot(cwd)
    const target = Option.match(dir, {
      onSome: (d) => path.resolve(cwd, d),
      onNone: () =>
        Option.isSome(root)
          ? path.join(root.value, "packages", `connector-${name}`)
          : path.resolve(cwd, `connector-${name}`)
    })
    const inWorkspace = Option.isSome(root) && path.relative(root.value, target).split(path.sep)[0] === "packages"
    // outside the svc workspace the @svc scope is not yours to publish under
    const packageOf = Option.getOrElse(
      packageName,
      () => inWorkspace ? `@svc/connector-${name}` : `svc-connector-${name}`
    )
    const files = yield* write(target, {
      name,
      family: Option.getOrUndefined(family),
      packageName: packageOf,
      coreRange: inWorkspace ? "workspace:^" : caretRange("@svc/core"),
      exportsFrom: inWorkspace ? "source" : "dist"
    })
    const next = [
      ...(inWorkspace ? [] : [`cd ${path.relative(cwd, target) || "."}`]),
      inWorkspace ? "node_modules/.bin/pnpm install" : `npm install (${UNTIL_PUBLISHED})`,
      `fill in the TODOs of src/ and test/utils.ts (README.md lists them in order)`,
      inWorkspace
        ? `node_modules/.bin/vitest run ${path.relative(Option.getOrElse(root, () => cwd), target)}`
        : "npx vitest run",
      "read docs/connectors.md: the contract, its invariants and a walkthrough"
    ]
    yield* writeJson({ created: target, files, next })
    // for the person at the terminal: standard output stays one JSON value
    yield* writeNote(summary({ what: `the connector package ${packageOf}`, dir: target, files: files.length, next }))
  })).pipe(Command.withDescription("generate a network connector package that runs the connector testkit"))
