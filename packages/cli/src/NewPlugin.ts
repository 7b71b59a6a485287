/**
 * `svc new-plugin <kind> <name>`: generates a plug-in package of a kind
 * (docs/architecture.md, Plug-ins), from the templates in
 * `packages/cli/templates/<kind>`: `pricing`, a markup on the catalog's price
 * whose tests run the svc pricing suite, loaded by `SVC_PRICING`; `store`, a
 * store on SQLite (in memory by default) whose tests run the Store contract
 * suite, loaded by `SVC_STORE`; `signer`, an authority key read from a file
 * (the place of a key management service), loaded by `SVC_SIGNER_PLUGIN`.
 * `connector` is `svc new-connector`.
 *
 * @since 0.1.0
 */
import { Effect, Option, Path } from "effect"
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
import { newConnector, pascalCase, workspaceRoot } from "./NewConnector.ts"

/**
 * The kinds `svc new-plugin` knows.
 *
 * @category constants
 * @since 0.1.0
 */
export const KINDS = ["connector", "pricing", "store", "signer"] as const

/**
 * The kinds generated from templates of their own.
 *
 * @category models
 * @since 0.1.0
 */
export type TemplateKind = "pricing" | "store" | "signer"

/**
 * The template folder of a kind.
 *
 * @category constants
 * @since 0.1.0
 */
export const templateDir = (kind: TemplateKind): string =>
  fileURLToPath(new URL(`../templates/${kind}/`, import.meta.url))

/**
 * The setting a generated plug-in reads: `<NAME>_MARKUP_BPS` (pricing),
 * `<NAME>_STORE_FILE` (store), `<NAME>_SIGNER_KEY_FILE` (signer).
 *
 * @category constructors
 * @since 0.1.0
 */
export const settingOf = (kind: TemplateKind, name: string): string =>
  `${name.toUpperCase().replace(/-/g, "_")}_${
    kind === "pricing" ? "MARKUP_BPS" : kind === "store" ? "STORE_FILE" : "SIGNER_KEY_FILE"
  }`

/**
 * What to generate.
 *
 * @category models
 * @since 0.1.0
 */
export interface PluginOptions {
  /** Plug-in name: lowercase, a-z 0-9 and dashes (e.g. "acme"). */
  readonly name: string
  /** npm package name. Default `svc-<kind>-<name>`. */
  readonly packageName?: string | undefined
  /** Version range of @svc/core: "workspace:^" inside the svc workspace, else the published range. */
  readonly coreRange: string
  /** Where the package's `exports` point: the `.ts` sources or the compiled `dist/` (default). */
  readonly exportsFrom?: "source" | "dist" | undefined
}

const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/

const DIST_EXPORTS = {
  ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
  "./*": { types: "./dist/*.d.ts", default: "./dist/*.js" },
  "./internal/*": null
}

const exportsJson = (from: "source" | "dist"): string =>
  JSON.stringify(
    from === "dist"
      ? { exports: DIST_EXPORTS }
      : {
        exports: { ".": "./src/index.ts", "./*": "./src/*.ts", "./internal/*": null },
        publishConfig: { exports: DIST_EXPORTS }
      },
    null,
    2
  ).slice(2, -2)

/**
 * The files of a plug-in package of a kind (pure but for reading the templates).
 *
 * @category running
 * @since 0.1.0
 */
export const render = (kind: TemplateKind, options: PluginOptions): ReadonlyArray<GeneratedFile> => {
  if (options.name.length > 40 || !NAME.test(options.name)) {
    throw new BadInput({
      message: `plug-in name ${
        JSON.stringify(options.name)
      }: lowercase a-z 0-9 and single dashes, starting with a letter`
    })
  }
  const values: Record<string, string> = {
    __name__: options.name,
    __Name__: pascalCase(options.name),
    __MODEL__: options.name.toUpperCase().replace(/-/g, "_"),
    __SETTING__: settingOf(kind, options.name),
    __package__: options.packageName ?? `svc-${kind}-${options.name}`,
    __core_range__: options.coreRange,
    __exports__: exportsJson(options.exportsFrom ?? "dist")
  }
  const fill = (text: string) =>
    text.replace(/__(?:name|Name|MODEL|SETTING|package|core_range|exports)__/g, (key) => values[key]!)
  const dir = templateDir(kind)
  return templateFiles(dir)
    .map((file) => ({
      path: fill(relative(dir, file).replace(/\.tmpl$/, "")).split("\\").join("/"),
      content: fill(readFileSync(file, "utf8"))
    }))
    .sort((a, b) => (a.path < b.path ? -1 : 1))
}

/**
 * Writes a plug-in package of a kind into `dir` (which must not exist yet) and
 * returns the paths written.
 *
 * @category running
 * @since 0.1.0
 */
export const write = (kind: TemplateKind, dir: string, options: PluginOptions) =>
  writeGenerated(dir, () => render(kind, options), "choose another --dir or name")

/**
 * The `new-plugin` command.
 *
 * @category running
 * @since 0.1.0
 */
export const newPlugin = Command.make("new-plugin", {
  kind: Argument.Literals("kind", KINDS).pipe(Argument.withDescription(`the kind of plug-in: ${KINDS.join(", ")}`)),
  name: Argument.String("name").pipe(Argument.withDescription("plug-in name: lowercase a-z 0-9 and dashes")),
  dir: Flag.String("dir").pipe(
    Flag.withDescription("target folder (default: packages/<kind>-NAME inside the svc workspace, else ./<kind>-NAME)"),
    Flag.optional
  ),
  packageName: Flag.String("package").pipe(
    Flag.withDescription("npm package name (default @svc/<kind>-NAME inside the svc workspace, else svc-<kind>-NAME)"),
    Flag.optional
  )
}, ({ dir, kind, name, packageName }) =>
  Effect.gen(function*() {
    if (kind === "connector") {
      const args = [
        name,
        ...Option.match(dir, { onNone: () => [], onSome: (d) => ["--dir", d] }),
        ...Option.match(packageName, { onNone: () => [], onSome: (p) => ["--package", p] })
      ]
      return yield* Command.runWith(newConnector, { version: "" })(args)
    }
    const path = yield* Path.Path
    const cwd = process.cwd()
    const root = yield* workspaceRoot(cwd)
    const target = Option.match(dir, {
      onSome: (d) => path.resolve(cwd, d),
      onNone: () =>
        Option.isSome(root)
          ? path.join(root.value, "packages", `${kind}-${name}`)
          : path.resolve(cwd, `${kind}-${name}`)
    })
    const inWorkspace = Option.isSome(root) && path.relative(root.value, target).split(path.sep)[0] === "packages"
    const packageOf = Option.getOrElse(packageName, () => inWorkspace ? `@svc/${kind}-${name}` : `svc-${kind}-${name}`)
    const files = yield* write(kind, target, {
      name,
      packageName: packageOf,
      coreRange: inWorkspace ? "workspace:^" : caretRange("@svc/core"),
      exportsFrom: inWorkspace ? "source" : "dist"
    })
    // the plug-in settings take a scoped package name, or a path to an unscoped package's folder
    const setting = packageOf.startsWith("@") ? packageOf : `./node_modules/${packageOf}`
    const { example, key, replace } = {
      pricing: {
        key: "SVC_PRICING",
        example: "25",
        replace: `the markup of src/${pascalCase(name)}Pricing.ts with your model; keep the pricing suite green`
      },
      store: {
        key: "SVC_STORE",
        example: `./${name}.sqlite`,
        replace: `the SQLite of src/${pascalCase(name)}Store.ts with your database; keep the Store contract suite green`
      },
      signer: {
        key: "SVC_SIGNER_PLUGIN",
        example: "./authority.key",
        replace: `the key file of src/${
          pascalCase(name)
        }Signer.ts with your key management service; keep its tests green`
      }
    }[kind]
    const next = [
      ...(inWorkspace ? [] : [`cd ${path.relative(cwd, target) || "."}`]),
      inWorkspace ? "node_modules/.bin/pnpm install" : `npm install (${UNTIL_PUBLISHED})`,
      `replace ${replace}`,
      inWorkspace
        ? `node_modules/.bin/vitest run ${path.relative(Option.getOrElse(root, () => cwd), target)}`
        : "npx vitest run",
      `npm run build, install the package next to the server's configuration, then ${key}=${setting} ${
        settingOf(kind, name)
      }=${example} svc serve`
    ]
    yield* writeJson({ created: target, files, next })
    yield* writeNote(summary({ what: `the ${kind} plug-in ${packageOf}`, dir: target, files: files.length, next }))
  })).pipe(
    Command.withDescription(
      "generate a plug-in package (pricing: runs the pricing suite, loaded by SVC_PRICING; store: runs the Store contract suite, loaded by SVC_STORE; signer: loaded by SVC_SIGNER_PLUGIN; connector: as new-connector)"
    )
  )
