/**
 * Connector packages chosen by configuration. `SVC_CONNECTORS` (or the
 * `connectors` list of the `SVC_CONFIG` file) names packages; each is resolved
 * from the working directory (its `node_modules`, then its parents'), else from
 * the server's own dependencies (where the EVM and Solana connectors are), and
 * its default export, a `Connector.Plugin`, registers the connectors.
 *
 * A name may also be a path (starting with `.` or `/`, relative to the working
 * directory) to a package folder or a module file.
 *
 * @since 0.1.0
 */
import { Connector } from "@svc/core"
import { Data, Effect } from "effect"
import { existsSync, readFileSync, statSync } from "node:fs"
import { dirname, isAbsolute, join, resolve } from "node:path"
import { pathToFileURL } from "node:url"

/**
 * The connectors `svc serve` loads when the configuration names none.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_CONNECTORS: ReadonlyArray<string> = ["@svc/connector-evm", "@svc/connector-solana"]

/**
 * A connector package could not be loaded or refused to register; the message
 * is one line naming the package and what to fix.
 *
 * @category errors
 * @since 0.1.0
 */
export class ConnectorLoadError extends Data.TaggedError("ConnectorLoadError")<{ readonly message: string }> {}

const PACKAGE_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/

/**
 * Whether a configured entry is a path rather than a package name.
 *
 * @category running
 * @since 0.1.0
 */
export const isPath = (entry: string): boolean => entry.startsWith(".") || isAbsolute(entry)

/**
 * Checks a configured list: package names or paths, no duplicates.
 *
 * @category running
 * @since 0.1.0
 */
export const validateNames = (names: ReadonlyArray<string>): string | undefined => {
  if (names.length === 0) return "name at least one connector package"
  for (const name of names) {
    if (!isPath(name) && (name.length > 214 || !PACKAGE_NAME.test(name))) {
      return `${JSON.stringify(name)} is not a package name or a path`
    }
  }
  const seen = new Set<string>()
  for (const name of names) {
    if (seen.has(name)) return `${name} is named twice`
    seen.add(name)
  }
  return undefined
}

const CONDITIONS = new Set(["node", "import", "default"])

/**
 * The target of a package's `exports` for its root entry under the conditions
 * `node`, `import` and `default` (first matching key in document order, as
 * Node.js does); undefined when the root is not exported.
 *
 * @category running
 * @since 0.1.0
 */
export const exportsTarget = (exports: unknown): string | undefined => {
  if (typeof exports === "string") return exports
  if (Array.isArray(exports)) {
    for (const item of exports) {
      const target = exportsTarget(item)
      if (target !== undefined) return target
    }
    return undefined
  }
  if (typeof exports !== "object" || exports === null) return undefined
  const keys = Object.keys(exports)
  if (keys.some((k) => k.startsWith("."))) return exportsTarget((exports as Record<string, unknown>)["."])
  for (const key of keys) {
    if (CONDITIONS.has(key)) {
      const target = exportsTarget((exports as Record<string, unknown>)[key])
      if (target !== undefined) return target
    }
  }
  return undefined
}

/** The entry file of a package folder, or a reason it has none. */
const packageEntry = (dir: string): { readonly file: string } | { readonly problem: string } => {
  const manifest = join(dir, "package.json")
  if (!existsSync(manifest)) {
    const index = join(dir, "index.js")
    return existsSync(index) ? { file: index } : { problem: `${dir} has no package.json` }
  }
  let pkg: { exports?: unknown; main?: unknown }
  try {
    pkg = JSON.parse(readFileSync(manifest, "utf8"))
  } catch {
    return { problem: `${manifest} is not JSON` }
  }
  const target = pkg.exports !== undefined
    ? exportsTarget(pkg.exports)
    : typeof pkg.main === "string"
    ? pkg.main
    : "index.js"
  if (target === undefined) return { problem: `${manifest} exports no root entry for import` }
  const file = resolve(dir, target)
  return existsSync(file) ? { file } : { problem: `${manifest} points at ${target}, which does not exist` }
}

/**
 * Where a configured entry is, from a working directory: a module file, a
 * reason it cannot be used, or `undefined` when no `node_modules` above the
 * directory holds the package.
 *
 * @category running
 * @since 0.1.0
 */
export const resolveFrom = (
  entry: string,
  cwd: string
): { readonly file: string } | { readonly problem: string } | undefined => {
  if (isPath(entry)) {
    const path = resolve(cwd, entry)
    if (!existsSync(path)) return { problem: `${path} does not exist` }
    return statSync(path).isDirectory() ? packageEntry(path) : { file: path }
  }
  for (let dir = resolve(cwd);; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", entry)
    if (existsSync(join(candidate, "package.json"))) return packageEntry(candidate)
    if (dirname(dir) === dir) return undefined
  }
}

const oneLine = (e: unknown) => String((e as Error)?.message ?? e).split("\n")[0]!.trim()

/**
 * Imports a configured entry (a package name or a path) and returns its default
 * export; failures are one line starting with the setting that named it.
 *
 * @category running
 * @since 0.1.0
 */
export const importDefault = (
  entry: string,
  cwd: string,
  key: string = "SVC_CONNECTORS"
): Effect.Effect<unknown, ConnectorLoadError> =>
  Effect.gen(function*() {
    const fail = (why: string) => new ConnectorLoadError({ message: `${key}: ${entry}: ${why}` })
    const found = resolveFrom(entry, cwd)
    if (found !== undefined && "problem" in found) return yield* fail(found.problem)
    const module = yield* Effect.tryPromise({
      // a package the working directory does not have may be one of the server's own dependencies
      try: () =>
        (found !== undefined ? import(pathToFileURL(found.file).href) : import(entry)) as Promise<
          { default?: unknown }
        >,
      catch: (e) =>
        found === undefined && (e as { code?: unknown })?.code === "ERR_MODULE_NOT_FOUND" &&
          oneLine(e).includes(`'${entry}'`)
          ? fail(`not installed (no node_modules/${entry} above ${cwd}); install it next to your configuration`)
          : fail(`cannot be imported: ${oneLine(e)}`)
    })
    return module.default
  })

/**
 * Imports a configured entry and returns its plug-in (the default export).
 *
 * @category running
 * @since 0.1.0
 */
export const importPlugin = (entry: string, cwd: string): Effect.Effect<Connector.Plugin, ConnectorLoadError> =>
  Effect.gen(function*() {
    const value = yield* importDefault(entry, cwd)
    if (!Connector.isPlugin(value)) {
      return yield* new ConnectorLoadError({
        message:
          `SVC_CONNECTORS: ${entry}: its default export is not a connector plug-in (export default Connector.plugin(name, register))`
      })
    }
    return value
  })

/**
 * Loads the named packages in order and collects their registrations (a later
 * package's registration for the same family or network wins).
 *
 * @category running
 * @since 0.1.0
 */
export const load = (
  names: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly context: Connector.PluginContext }
): Effect.Effect<ReadonlyArray<Connector.Registration>, ConnectorLoadError> =>
  Effect.gen(function*() {
    const problem = validateNames(names)
    if (problem !== undefined) return yield* new ConnectorLoadError({ message: `SVC_CONNECTORS: ${problem}` })
    const registrations: Array<Connector.Registration> = []
    for (const name of names) {
      const plugin = yield* importPlugin(name, options.cwd)
      const registered = yield* Connector.registrationsOf(plugin, options.context).pipe(
        Effect.mapError((e) => new ConnectorLoadError({ message: `${name}: ${oneLine(e.message)}` })),
        Effect.catchDefect((defect) =>
          Effect.fail(new ConnectorLoadError({ message: `${name}: registration failed: ${oneLine(defect)}` }))
        )
      )
      registrations.push(...registered)
    }
    return registrations
  }).pipe(Effect.withSpan("ConnectorLoader.load"))
