/**
 * The exported runtime API of the workspace packages, as text for file
 * snapshots (test/api/<package>.snap.txt, written by test/api-surface.test.ts).
 *
 * Entry points of a package are what its package.json `exports` map lets a
 * consumer import: exact keys, and for pattern keys (`"./*": "./src/*.ts"`)
 * every file under the target folder that the map resolves back to itself, so
 * keys that block (`"./internal/*": null`) keep internal files out, exactly as
 * Node would. `testing/` files are kept: the map exports them and other packages
 * import them (`@svc/core/testing/ConnectorTestkit`), so they are public API.
 * Files that are a `bin` of the package are left out: importing an executable
 * runs it. A file reachable by several subpaths (`"."` and `"./index"`) is listed
 * once, under `"."` or its shortest subpath.
 */
import { Config, Context, Effect, Layer, Option, Redacted, Schedule, Schema, Stream } from "effect"
import { readdirSync } from "node:fs"
import * as path from "node:path"
import { resolveExports, type WorkspacePackage } from "./module-graph.ts"

/** One entry point of a package. */
export interface ApiEntry {
  /** `"."` or `"./Sub/path"`. */
  readonly subpath: string
  /** What a consumer writes: `@svc/core`, `@svc/core/Aggregator`. */
  readonly specifier: string
  /** Absolute file. */
  readonly file: string
}

const filesUnder = (dir: string): Array<string> => {
  const out: Array<string> = []
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return out
  }
  for (const e of entries) {
    const full = path.join(dir, e.name)
    if (e.isDirectory()) out.push(...filesUnder(full))
    else if (e.isFile()) out.push(full)
  }
  return out
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The entry points of a package, `"."` first, then by subpath. */
export const apiEntries = (pkg: WorkspacePackage): Array<ApiEntry> => {
  const exportsField = pkg.json.exports
  if (exportsField === undefined || exportsField === null) return []
  const map: Record<string, unknown> = typeof exportsField === "string"
    ? { ".": exportsField }
    : exportsField as Record<string, unknown>
  const bins = new Set(
    Object.values(typeof pkg.json.bin === "string" ? { bin: pkg.json.bin } : pkg.json.bin ?? {})
      .map((b) => path.resolve(pkg.dir, b))
  )
  const candidates: Array<string> = []
  for (const [key, target] of Object.entries(map)) {
    if (!key.includes("*")) {
      candidates.push(key)
      continue
    }
    if (typeof target !== "string" || target.split("*").length !== 2) continue
    const [tPrefix, tSuffix] = target.split("*") as [string, string]
    const [kPrefix, kSuffix] = key.split("*") as [string, string]
    const base = path.resolve(pkg.dir, tPrefix)
    // the folder part of the target prefix; `*` may match across folders
    const walkRoot = tPrefix.endsWith("/") ? base : path.dirname(base)
    for (const file of filesUnder(walkRoot)) {
      const rel = "./" + path.relative(pkg.dir, file).split(path.sep).join("/")
      if (!rel.startsWith(tPrefix) || !rel.endsWith(tSuffix) || rel.length < tPrefix.length + tSuffix.length + 1) {
        continue
      }
      candidates.push(kPrefix + rel.slice(tPrefix.length, rel.length - tSuffix.length) + kSuffix)
    }
  }
  const byFile = new Map<string, ApiEntry>()
  const better = (
    a: string,
    b: string
  ) => (a === "." ? true : b === "." ? false : a.length !== b.length ? a.length < b.length : a < b)
  for (const subpath of candidates) {
    const target = resolveExports(map, subpath)
    if (target === null) continue
    const file = path.resolve(pkg.dir, target)
    if (bins.has(file)) continue
    const entry = { subpath, specifier: subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, file }
    const seen = byFile.get(file)
    if (seen === undefined || better(subpath, seen.subpath)) byFile.set(file, entry)
  }
  return [...byFile.values()].sort((
    a,
    b
  ) => (a.subpath === "." ? -1 : b.subpath === "." ? 1 : compare(a.subpath, b.subpath)))
}

const isModuleNamespace = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.prototype.toString.call(v) === "[object Module]"

const EFFECT_KINDS: ReadonlyArray<readonly [string, (u: unknown) => boolean]> = [
  ["schema", Schema.isSchema],
  ["layer", Layer.isLayer],
  ["context key", Context.isKey],
  ["config", Config.isConfig],
  ["stream", Stream.isStream],
  ["schedule", Schedule.isSchedule],
  ["option", Option.isOption],
  ["redacted", Redacted.isRedacted],
  ["effect", Effect.isEffect]
]

/**
 * The kind of an exported value: `namespace`, `class`, `function`, `object`,
 * `array`, `null` or the `typeof` of a primitive; values Effect recognises get
 * the Effect kind in parentheses: `class (schema)`, `object (layer)`, ...
 */
export const valueKind = (v: unknown): string => {
  if (v === null) return "null"
  if (isModuleNamespace(v)) return "namespace"
  let base: string
  if (typeof v === "function") {
    base = /^class[\s{]/.test(Function.prototype.toString.call(v)) ? "class" : "function"
  } else if (Array.isArray(v)) {
    base = "array"
  } else {
    base = typeof v
  }
  if (typeof v !== "object" && typeof v !== "function") return base
  for (const [name, is] of EFFECT_KINDS) {
    let yes = false
    try {
      yes = is(v)
    } catch {
      yes = false
    }
    if (yes) return `${base} (${name})`
  }
  return base
}

const sortedKeys = (o: object) => Object.keys(o).sort(compare)

/** The lines describing a module's exports: `name: kind`, and for namespaces their members one level down. */
export const describeModule = (mod: Record<string, unknown>): Array<string> => {
  const lines: Array<string> = []
  for (const name of sortedKeys(mod)) {
    const value = mod[name]
    lines.push(`${name}: ${valueKind(value)}`)
    if (isModuleNamespace(value)) {
      for (const member of sortedKeys(value)) lines.push(`  ${name}.${member}: ${valueKind(value[member])}`)
    }
  }
  return lines
}

/** The snapshot text of a package: one section per entry point. */
export const renderPackageApi = (
  pkg: WorkspacePackage,
  modules: ReadonlyArray<{ readonly entry: ApiEntry; readonly module: Record<string, unknown> }>
): string => {
  const out = [
    `# Runtime exports of ${pkg.name}: one section per entry point of its package.json "exports".`,
    `# Written by test/api-surface.test.ts; after an intended API change, review and run: vitest run test/api-surface.test.ts -u`,
    ""
  ]
  for (const { entry, module } of modules) {
    out.push(`## ${entry.specifier}  (${path.relative(pkg.dir, entry.file).split(path.sep).join("/")})`)
    const lines = describeModule(module)
    out.push(...(lines.length === 0 ? ["(no runtime exports)"] : lines), "")
  }
  return out.join("\n")
}
