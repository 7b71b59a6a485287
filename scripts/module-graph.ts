/**
 * The runtime module graph of the workspace, built without any TypeScript API:
 * a small tokenizer finds the import edges of every `.ts` file under
 * `packages/*\/src` and `conformance/src`, the specifiers are resolved like Node
 * does (relative paths, and workspace packages through their package.json
 * `exports` maps), and cycles are reported as chains of files. It also builds the
 * package graph of the workspace from the runtime `dependencies` and
 * `peerDependencies` (not `devDependencies`).
 *
 * Edges kept (those that load a module at runtime under Node's type stripping and
 * `verbatimModuleSyntax`):
 *
 * - `import x from "m"`, `import { a, type B } from "m"`, `import * as n from "m"`,
 *   `import "m"`: a statement with only inline `type` specifiers still loads "m"
 *   (it becomes `import {} from "m"`), so it is kept;
 * - `export * from "m"`, `export * as n from "m"`, `export { a } from "m"`;
 * - `import("m")` with a string literal (or a template without substitutions).
 *
 * Edges dropped: `import type ...` and `export type ...` statements, which are
 * erased entirely and so cannot take part in an evaluation-order cycle;
 * `import(expression)` with a computed specifier (listed as `dynamicComputed`).
 *
 * `node scripts/module-graph.ts` prints the file cycles and package cycles.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

// ---------------------------------------------------------------------------
// Tokenizer

/** A token of the source: names (identifiers and keywords), string literals, templates without substitutions, punctuation. */
export interface Token {
  readonly kind: "name" | "string" | "template" | "punct" | "other"
  readonly value: string
  readonly pos: number
}

const KEYWORDS_BEFORE_EXPRESSION = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
  "extends",
  "export",
  "default"
])

const isIdStart = (c: string) => /[A-Za-z_$#\\]/.test(c) || c.charCodeAt(0) > 0x7f
const isIdPart = (c: string) => /[A-Za-z0-9_$\\]/.test(c) || c.charCodeAt(0) > 0x7f

const decodeEscapes = (raw: string) =>
  raw.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])/g, (_, e: string) => {
    if (e.startsWith("u{")) return String.fromCodePoint(parseInt(e.slice(2, -1), 16))
    if (e.length > 1 && (e[0] === "u" || e[0] === "x")) return String.fromCharCode(parseInt(e.slice(1), 16))
    switch (e) {
      case "n":
        return "\n"
      case "t":
        return "\t"
      case "r":
        return "\r"
      case "0":
        return "\0"
      case "\n":
      case "\r\n":
      case "\u2028":
      case "\u2029":
        return ""
      default:
        return e
    }
  })

/**
 * Splits TypeScript source into tokens, skipping comments and whitespace, reading
 * string, template and regular-expression literals whole (so nothing inside them
 * looks like an import). A `/` starts a regular expression unless it follows a
 * value (a name that is not a keyword, a literal, `)` or `]`); a string or a
 * regular expression never spans a raw line break, so a wrong guess cannot swallow
 * more than the rest of one line.
 */
export const tokenize = (src: string): Array<Token> => {
  const tokens: Array<Token> = []
  const n = src.length
  // what each open `{` is: a block/object brace, or a template substitution
  const braces: Array<"{" | "${"> = []
  let i = 0
  if (src.startsWith("#!")) { while (i < n && src[i] !== "\n") i++ }
  const push = (kind: Token["kind"], value: string, pos: number) => tokens.push({ kind, value, pos })

  // Reads template characters from i (just after "`" or the "}" closing a substitution).
  const readTemplate = (start: number, head: boolean) => {
    let raw = ""
    while (i < n) {
      const c = src[i]!
      if (c === "\\") {
        raw += src.slice(i, i + 2)
        i += 2
        continue
      }
      if (c === "`") {
        i++
        push(head ? "template" : "other", decodeEscapes(raw), start)
        return
      }
      if (c === "$" && src[i + 1] === "{") {
        i += 2
        braces.push("${")
        push("other", "`${", start)
        return
      }
      raw += c
      i++
    }
    push("other", "`", start) // unterminated
  }

  const regexAllowed = () => {
    const prev = tokens[tokens.length - 1]
    if (prev === undefined) return true
    if (prev.kind === "string" || prev.kind === "template") return false
    if (prev.kind === "name") return KEYWORDS_BEFORE_EXPRESSION.has(prev.value)
    if (prev.kind === "other") return prev.value === "`${" // other = numbers, regexes, template pieces
    return !(prev.value === ")" || prev.value === "]" || prev.value === "}")
  }

  while (i < n) {
    const c = src[i]!
    const start = i
    if (
      c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v" || c === "\uFEFF" ||
      c === "\u00A0" || c === "\u2028" || c === "\u2029"
    ) {
      i++
      continue
    }
    if (c === "/" && src[i + 1] === "/") {
      while (i < n && src[i] !== "\n") i++
      continue
    }
    if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2)
      i = end < 0 ? n : end + 2
      continue
    }
    if (c === "\"" || c === "'") {
      let j = i + 1
      while (j < n && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1
      push("string", decodeEscapes(src.slice(i + 1, Math.min(j, n))), start)
      i = j + 1
      continue
    }
    if (c === "`") {
      i++
      readTemplate(start, true)
      continue
    }
    if (c === "{") {
      braces.push("{")
      push("punct", "{", start)
      i++
      continue
    }
    if (c === "}") {
      i++
      if (braces.pop() === "${") readTemplate(start, false)
      else push("punct", "}", start)
      continue
    }
    if (c === "/" && regexAllowed()) {
      let j = i + 1
      let inClass = false
      let ok = false
      while (j < n && src[j] !== "\n") {
        const d = src[j]
        if (d === "\\") {
          j += 2
          continue
        }
        if (d === "[") inClass = true
        else if (d === "]") inClass = false
        else if (d === "/" && !inClass) {
          ok = true
          break
        }
        j++
      }
      if (ok) {
        j++
        while (j < n && isIdPart(src[j]!)) j++ // flags
        push("other", src.slice(i, j), start)
        i = j
        continue
      }
      // not a regular expression after all: fall through to punctuation
    }
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(src[i + 1] ?? ""))) {
      let j = i + 1
      while (j < n && /[0-9A-Za-z_.]/.test(src[j]!)) j++
      push("other", src.slice(i, j), start)
      i = j
      continue
    }
    if (isIdStart(c)) {
      let j = i + 1
      while (j < n && isIdPart(src[j]!)) j++
      push("name", src.slice(i, j), start)
      i = j
      continue
    }
    if (c === "." && src[i + 1] === "." && src[i + 2] === ".") {
      push("punct", "...", start)
      i += 3
      continue
    }
    if (c === "?" && src[i + 1] === ".") {
      push("punct", "?.", start)
      i += 2
      continue
    }
    push("punct", c, start)
    i++
  }
  return tokens
}

// ---------------------------------------------------------------------------
// Import extraction

/** How an edge loads its target. */
export type EdgeKind = "static" | "reexport" | "dynamic"

/** One module specifier a file loads at runtime. */
export interface ImportRef {
  readonly specifier: string
  readonly kind: EdgeKind
  /** 1-based line of the specifier. */
  readonly line: number
}

/** What a file imports. */
export interface FileImports {
  /** Edges that load a module at runtime. */
  readonly imports: Array<ImportRef>
  /** `import type` / `export type` statements (erased, not edges). */
  readonly typeOnly: Array<ImportRef>
  /** Lines of `import(...)` calls whose specifier is not a literal. */
  readonly dynamicComputed: Array<number>
}

const lineOf = (src: string, pos: number) => {
  let line = 1
  for (let k = 0; k < pos; k++) if (src.charCodeAt(k) === 10) line++
  return line
}

/** Finds the import and re-export statements and the literal `import()` calls of a TypeScript source. */
export const extractImports = (src: string): FileImports => {
  const t = tokenize(src)
  const imports: Array<ImportRef> = []
  const typeOnly: Array<ImportRef> = []
  const dynamicComputed: Array<number> = []
  const at = (k: number): Token | undefined => t[k]
  const is = (k: number, kind: Token["kind"], value?: string) => {
    const tok = t[k]
    return tok !== undefined && tok.kind === kind && (value === undefined || tok.value === value)
  }
  const ref = (k: number, kind: EdgeKind): ImportRef => ({ specifier: t[k]!.value, kind, line: lineOf(src, t[k]!.pos) })
  // index just after the `}` matching the `{` at k (or -1)
  const skipBraces = (k: number) => {
    let depth = 0
    for (let j = k; j < t.length; j++) {
      const tok = t[j]!
      if (is(j, "punct", "{")) depth++
      else if (is(j, "punct", "}")) { if (--depth === 0) return j + 1 }
      else if (!(tok.kind === "name" || tok.kind === "string" || is(j, "punct", ","))) return -1 // not a specifier list
    }
    return -1
  }
  // from k, the clause `Default`, `Default, { ... }`, `{ ... }`, `* as N`, `Default, * as N`; returns the index after it
  const skipImportClause = (k: number) => {
    let j = k
    if (is(j, "name") && !is(j, "name", "from")) {
      j++
      if (!is(j, "punct", ",")) return j
      j++
    } else if (is(j, "name", "from") && is(j + 1, "name", "from")) {
      return j + 1 // `import from from "m"`
    }
    if (is(j, "punct", "*")) return is(j + 1, "name", "as") && is(j + 2, "name") ? j + 3 : -1
    if (is(j, "punct", "{")) return skipBraces(j)
    return -1
  }

  for (let k = 0; k < t.length; k++) {
    const tok = t[k]!
    if (tok.kind !== "name") continue
    const prev = at(k - 1)
    // `a.import`, `a?.import`, `{ import: 1 }` keys and the like are not imports
    if (prev !== undefined && prev.kind === "punct" && (prev.value === "." || prev.value === "?.")) continue
    if (is(k + 1, "punct", ":")) continue // an object key or a label
    if (tok.value === "import") {
      if (is(k + 1, "punct", ".")) continue // import.meta
      if (is(k + 1, "punct", "(")) {
        if ((is(k + 2, "string") || is(k + 2, "template")) && (is(k + 3, "punct", ")") || is(k + 3, "punct", ","))) {
          // `typeof import("m")` and `import("m").Type` are types, erased; a runtime call is awaited or chained with then/catch/finally
          const typePosition = (prev !== undefined && prev.kind === "name" && prev.value === "typeof") ||
            (is(k + 3, "punct", ")") && is(k + 4, "punct", ".") && is(k + 5, "name") &&
              !["then", "catch", "finally"].includes(t[k + 5]!.value))
          ;(typePosition ? typeOnly : imports).push(ref(k + 2, "dynamic"))
        } else {
          dynamicComputed.push(lineOf(src, tok.pos))
        }
        continue
      }
      if (is(k + 1, "string")) {
        imports.push(ref(k + 1, "static"))
        continue
      } // import "m"
      let j = k + 1
      let typeStatement = false
      // `import type X from`, `import type { X } from`, `import type * as X from`; but `import type from "m"` imports a default called `type`
      if (is(j, "name", "type") && !(is(j + 1, "name", "from") && is(j + 2, "string")) && !is(j + 1, "punct", ",")) {
        typeStatement = true
        j++
      }
      const after = skipImportClause(j)
      if (after >= 0 && is(after, "name", "from") && is(after + 1, "string")) {
        ;(typeStatement ? typeOnly : imports).push(ref(after + 1, "static"))
      }
      continue
    }
    if (tok.value === "export") {
      let j = k + 1
      let typeStatement = false
      if (is(j, "name", "type") && (is(j + 1, "punct", "{") || is(j + 1, "punct", "*"))) {
        typeStatement = true
        j++
      }
      let after = -1
      if (is(j, "punct", "*")) after = is(j + 1, "name", "as") && is(j + 2, "name") ? j + 3 : j + 1
      else if (is(j, "punct", "{")) after = skipBraces(j)
      if (after >= 0 && is(after, "name", "from") && is(after + 1, "string")) {
        ;(typeStatement ? typeOnly : imports).push(ref(after + 1, "reexport"))
      }
    }
  }
  return { imports, typeOnly, dynamicComputed }
}

// ---------------------------------------------------------------------------
// Workspace packages and resolution

/** A workspace package. */
export interface WorkspacePackage {
  readonly name: string
  /** Absolute folder. */
  readonly dir: string
  readonly json: PackageJson
}

/** The parts of package.json used here. */
export interface PackageJson {
  readonly name?: string
  readonly exports?: unknown
  readonly bin?: string | Record<string, string>
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
}

/** The repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

const readJson = (file: string): PackageJson => JSON.parse(readFileSync(file, "utf8")) as PackageJson

/** The workspace packages listed by pnpm-workspace.yaml (entries `dir/*` or `dir`), sorted by name. */
export const workspacePackages = (root: string = repoRoot): Array<WorkspacePackage> => {
  const yaml = readFileSync(path.join(root, "pnpm-workspace.yaml"), "utf8")
  const globs: Array<string> = []
  let inPackages = false
  for (const line of yaml.split("\n")) {
    if (/^packages:\s*$/.test(line)) {
      inPackages = true
      continue
    }
    if (inPackages) {
      const m = /^\s+-\s+["']?([^"'#\s]+)["']?/.exec(line)
      if (m !== null) globs.push(m[1]!)
      else if (/^\S/.test(line)) inPackages = false
    }
  }
  const dirs: Array<string> = []
  for (const glob of globs) {
    if (glob.endsWith("/*")) {
      const base = path.join(root, glob.slice(0, -2))
      if (!existsSync(base)) continue
      for (const entry of readdirSync(base).sort()) dirs.push(path.join(base, entry))
    } else if (!glob.includes("*")) {
      dirs.push(path.join(root, glob))
    } else {
      throw new Error(`pnpm-workspace.yaml: unsupported pattern ${glob}`)
    }
  }
  return dirs
    .filter((dir) => existsSync(path.join(dir, "package.json")))
    .map((dir) => ({ dir, json: readJson(path.join(dir, "package.json")) }))
    .filter((p): p is { dir: string; json: PackageJson & { name: string } } => typeof p.json.name === "string")
    .map(({ dir, json }) => ({ name: json.name, dir, json }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

const toPosix = (p: string) => p.split(path.sep).join("/")

const CONDITIONS = ["import", "node", "default"]

const resolveTarget = (target: unknown, star: string | undefined): string | null | undefined => {
  if (target === null) return null
  if (typeof target === "string") return star === undefined ? target : target.split("*").join(star)
  if (Array.isArray(target)) {
    for (const t of target) {
      const r = resolveTarget(t, star)
      if (r !== undefined) return r
    }
    return undefined
  }
  if (typeof target === "object") {
    for (const [cond, t] of Object.entries(target as Record<string, unknown>)) {
      if (CONDITIONS.includes(cond)) {
        const r = resolveTarget(t, star)
        if (r !== undefined) return r
      }
    }
  }
  return undefined
}

/** Node's ordering of pattern keys: the longest prefix before `*` first, then the longer key. */
const patternKeyCompare = (a: string, b: string) => {
  const aBase = a.indexOf("*") < 0 ? a.length : a.indexOf("*") + 1
  const bBase = b.indexOf("*") < 0 ? b.length : b.indexOf("*") + 1
  if (aBase !== bBase) return bBase - aBase
  return b.length - a.length
}

/**
 * Resolves `subpath` ("." or "./x/y") through an `exports` field the way Node does
 * (exact keys, then `*` patterns by longest prefix; `null` targets block), to a path
 * relative to the package folder; `null` when the map blocks or lacks the subpath.
 */
export const resolveExports = (exportsField: unknown, subpath: string): string | null => {
  if (exportsField === undefined) return subpath === "." ? "./index.js" : subpath
  let map: Record<string, unknown>
  if (
    typeof exportsField === "string" || Array.isArray(exportsField) ||
    (typeof exportsField === "object" && exportsField !== null &&
      !Object.keys(exportsField).some((k) => k.startsWith(".")))
  ) {
    map = { ".": exportsField }
  } else {
    map = exportsField as Record<string, unknown>
  }
  if (Object.hasOwn(map, subpath) && !subpath.includes("*")) return resolveTarget(map[subpath], undefined) ?? null
  const patterns = Object.keys(map).filter((k) => k.split("*").length === 2).sort(patternKeyCompare)
  for (const key of patterns) {
    const [prefix, suffix] = key.split("*") as [string, string]
    if (
      subpath.startsWith(prefix) && subpath !== prefix && subpath.length >= key.length &&
      subpath.endsWith(suffix)
    ) {
      return resolveTarget(map[key], subpath.slice(prefix.length, subpath.length - suffix.length)) ?? null
    }
  }
  return null
}

/** Splits a bare specifier into package name and subpath ("." or "./rest"). */
export const splitBareSpecifier = (specifier: string): { name: string; subpath: string } => {
  const parts = specifier.split("/")
  const n = specifier.startsWith("@") ? 2 : 1
  const rest = parts.slice(n).join("/")
  return { name: parts.slice(0, n).join("/"), subpath: rest === "" ? "." : `./${rest}` }
}

/** How a specifier resolved. */
export type Resolution =
  | { readonly _tag: "file"; readonly file: string }
  | { readonly _tag: "external" }
  | { readonly _tag: "unresolved"; readonly reason: string }

/** Resolves a specifier imported by `fromFile` (absolute) to a file of the workspace, or marks it external. */
export const resolveSpecifier = (
  specifier: string,
  fromFile: string,
  packages: ReadonlyMap<string, WorkspacePackage>,
  root: string = repoRoot
): Resolution => {
  if (specifier.startsWith("./") || specifier.startsWith("../") || specifier === "." || specifier === "..") {
    const base = path.resolve(path.dirname(fromFile), specifier)
    for (const candidate of [base, `${base}.ts`, path.join(base, "index.ts")]) {
      if (existsSync(candidate) && statSync(candidate).isFile()) return { _tag: "file", file: candidate }
    }
    return { _tag: "unresolved", reason: `no file ${toPosix(path.relative(root, base))}` }
  }
  if (specifier.startsWith("/") || /^[a-z][a-z0-9+.-]*:/i.test(specifier)) return { _tag: "external" } // node:, file:, data:
  const { name, subpath } = splitBareSpecifier(specifier)
  const pkg = packages.get(name)
  if (pkg === undefined) return { _tag: "external" }
  const target = resolveExports(pkg.json.exports, subpath)
  if (target === null) return { _tag: "unresolved", reason: `${name} does not export ${subpath}` }
  const file = path.resolve(pkg.dir, target)
  if (!existsSync(file)) {
    return { _tag: "unresolved", reason: `${specifier} maps to missing ${toPosix(path.relative(root, file))}` }
  }
  return { _tag: "file", file }
}

// ---------------------------------------------------------------------------
// Graphs and cycles

/** A directed graph: node to sorted successors. */
export type Graph = ReadonlyMap<string, ReadonlyArray<string>>

/** The strongly connected components of a graph that contain a cycle (size > 1 or a self-loop), each sorted, in sorted order. */
export const cyclicComponents = (graph: Graph): Array<Array<string>> => {
  // Tarjan's algorithm, iterative
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: Array<string> = []
  const out: Array<Array<string>> = []
  const nodes = [...graph.keys()].sort()
  for (const root of nodes) {
    if (index.has(root)) continue
    const work: Array<{ node: string; next: number }> = [{ node: root, next: 0 }]
    index.set(root, counter)
    low.set(root, counter)
    counter++
    stack.push(root)
    onStack.add(root)
    while (work.length > 0) {
      const frame = work[work.length - 1]!
      const succ = graph.get(frame.node) ?? []
      if (frame.next < succ.length) {
        const w = succ[frame.next++]!
        if (!index.has(w)) {
          index.set(w, counter)
          low.set(w, counter)
          counter++
          stack.push(w)
          onStack.add(w)
          work.push({ node: w, next: 0 })
        } else if (onStack.has(w)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(w)!))
        }
        continue
      }
      work.pop()
      const parent = work[work.length - 1]
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!))
      if (low.get(frame.node) === index.get(frame.node)) {
        const comp: Array<string> = []
        let w: string
        do {
          w = stack.pop()!
          onStack.delete(w)
          comp.push(w)
        } while (w !== frame.node)
        if (comp.length > 1 || (graph.get(frame.node) ?? []).includes(frame.node)) out.push(comp.sort())
      }
    }
  }
  return out.sort((a, b) => (a[0]! < b[0]! ? -1 : 1))
}

/**
 * The elementary cycles of a graph (Johnson's algorithm), each as a chain that
 * starts and ends at its smallest node (`[a, b, c, a]`), sorted; at most `limit`.
 */
export const elementaryCycles = (graph: Graph, limit = 1000): Array<Array<string>> => {
  const cycles: Array<Array<string>> = []
  const remaining = new Set(graph.keys())
  const induced = (nodes: ReadonlySet<string>): Graph =>
    new Map([...nodes].map((v) => [v, (graph.get(v) ?? []).filter((w) => nodes.has(w))]))
  while (cycles.length < limit) {
    // the strongly connected component (with a cycle) holding the least node left, as in Johnson's algorithm
    const comps = cyclicComponents(induced(remaining))
    if (comps.length === 0) break
    const comp = comps.reduce((a, b) => (a[0]! < b[0]! ? a : b))
    const start = comp[0]!
    const inComp = new Set(comp)
    const blocked = new Set<string>()
    const blockMap = new Map<string, Set<string>>()
    const pathStack: Array<string> = []
    const succ = (v: string) => (graph.get(v) ?? []).filter((w) => inComp.has(w))
    const unblock = (u: string) => {
      const todo = [u]
      while (todo.length > 0) {
        const x = todo.pop()!
        if (!blocked.delete(x)) continue
        const bs = blockMap.get(x)
        if (bs !== undefined) {
          todo.push(...bs)
          bs.clear()
        }
      }
    }
    // iterative circuit()
    const frames: Array<{ v: string; succ: Array<string>; next: number; found: boolean }> = []
    const enter = (v: string) => {
      pathStack.push(v)
      blocked.add(v)
      frames.push({ v, succ: succ(v), next: 0, found: false })
    }
    enter(start)
    while (frames.length > 0 && cycles.length < limit) {
      const f = frames[frames.length - 1]!
      if (f.next < f.succ.length) {
        const w = f.succ[f.next++]!
        if (w === start) {
          cycles.push([...pathStack, start])
          f.found = true
        } else if (!blocked.has(w)) enter(w)
        continue
      }
      frames.pop()
      if (f.found) unblock(f.v)
      else {for (const w of f.succ) {
          let bs = blockMap.get(w)
          if (bs === undefined) blockMap.set(w, bs = new Set())
          bs.add(f.v)
        }}
      pathStack.pop()
      const parent = frames[frames.length - 1]
      if (parent !== undefined && f.found) parent.found = true
    }
    remaining.delete(start)
  }
  return cycles.sort((a, b) => {
    const x = a.join("\u0000"), y = b.join("\u0000")
    return x < y ? -1 : x > y ? 1 : 0
  })
}

/** A cycle written as `a -> b -> c -> a`. */
export const formatCycle = (cycle: ReadonlyArray<string>) => cycle.join(" -> ")

/** The module graph of the workspace sources. */
export interface ModuleGraph {
  /** Files (relative to the root, `/` separated) to the files they load at runtime. */
  readonly graph: Graph
  /** Runtime edges with their import kinds, `from\u0000to` to kinds. */
  readonly edgeKinds: ReadonlyMap<string, ReadonlySet<EdgeKind>>
  /** Specifiers that did not resolve: `file:line: specifier (reason)`. */
  readonly unresolved: Array<string>
  /** `import(expression)` calls: `file:line`. */
  readonly dynamicComputed: Array<string>
  /** Workspace package imports from a package's sources that its `dependencies`/`peerDependencies` do not declare: `file:line: specifier`. */
  readonly undeclared: Array<string>
  /** Number of `import type` / `export type` statements skipped. */
  readonly typeOnlyCount: number
}

/** Every `.ts` file under a folder (recursively), sorted. */
export const listTsFiles = (dir: string): Array<string> => {
  const out: Array<string> = []
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(d, entry.name)
      if (entry.isDirectory()) { if (entry.name !== "node_modules") walk(full) }
      else if (entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(full)
    }
  }
  if (existsSync(dir)) walk(dir)
  return out
}

/** The source folders scanned: `packages/*\/src` and `conformance/src`. */
export const sourceDirs = (root: string = repoRoot): Array<string> => {
  const pkgs = readdirSync(path.join(root, "packages")).sort().map((p) => path.join(root, "packages", p, "src"))
  return [...pkgs, path.join(root, "conformance", "src")].filter((d) => existsSync(d))
}

/** Builds the runtime module graph of the workspace sources. */
export const buildModuleGraph = (root: string = repoRoot): ModuleGraph => {
  const packages = new Map(workspacePackages(root).map((p) => [p.name, p]))
  const owner = (file: string) => [...packages.values()].find((p) => file.startsWith(p.dir + path.sep))
  const graph = new Map<string, Array<string>>()
  const edgeKinds = new Map<string, Set<EdgeKind>>()
  const unresolved: Array<string> = []
  const dynamicComputed: Array<string> = []
  const undeclared: Array<string> = []
  let typeOnlyCount = 0
  const files = sourceDirs(root).flatMap(listTsFiles)
  for (const file of files) graph.set(toPosix(path.relative(root, file)), [])
  for (const file of files) {
    const rel = toPosix(path.relative(root, file))
    const found = extractImports(readFileSync(file, "utf8"))
    typeOnlyCount += found.typeOnly.length
    for (const line of new Set(found.dynamicComputed)) dynamicComputed.push(`${rel}:${line}`)
    const pkg = owner(file)
    const succ = new Set<string>()
    for (const imp of found.imports) {
      const r = resolveSpecifier(imp.specifier, file, packages, root)
      if (r._tag === "unresolved") {
        unresolved.push(`${rel}:${imp.line}: ${imp.specifier} (${r.reason})`)
        continue
      }
      if (r._tag === "external") continue
      const { name } = splitBareSpecifier(imp.specifier)
      if (
        !imp.specifier.startsWith(".") && pkg !== undefined && name !== pkg.name && packages.has(name) &&
        pkg.json.dependencies?.[name] === undefined && pkg.json.peerDependencies?.[name] === undefined
      ) {
        undeclared.push(`${rel}:${imp.line}: ${imp.specifier}`)
      }
      const to = toPosix(path.relative(root, r.file))
      succ.add(to)
      if (!graph.has(to)) graph.set(to, []) // a file outside the scanned folders
      const key = `${rel}\u0000${to}`
      let kinds = edgeKinds.get(key)
      if (kinds === undefined) edgeKinds.set(key, kinds = new Set())
      kinds.add(imp.kind)
    }
    graph.set(rel, [...succ].sort())
  }
  return { graph, edgeKinds, unresolved, dynamicComputed, undeclared, typeOnlyCount }
}

/** The workspace package graph over runtime `dependencies` and `peerDependencies` (devDependencies excluded). */
export const buildPackageGraph = (root: string = repoRoot): Graph => {
  const pkgs = workspacePackages(root)
  const names = new Set(pkgs.map((p) => p.name))
  return new Map(pkgs.map((p) => [
    p.name,
    [...new Set([...Object.keys(p.json.dependencies ?? {}), ...Object.keys(p.json.peerDependencies ?? {})])]
      .filter((d) => names.has(d))
      .sort()
  ]))
}

const main = () => {
  const m = buildModuleGraph()
  const cycles = elementaryCycles(m.graph)
  const pkgCycles = elementaryCycles(buildPackageGraph())
  console.log(
    `${m.graph.size} files, ${
      [...m.graph.values()].reduce((s, v) => s + v.length, 0)
    } runtime edges, ${m.typeOnlyCount} type-only statements skipped`
  )
  console.log(`file cycles: ${cycles.length}`)
  for (const c of cycles) console.log(`  ${formatCycle(c)}`)
  console.log(`package cycles: ${pkgCycles.length}`)
  for (const c of pkgCycles) console.log(`  ${formatCycle(c)}`)
  if (m.unresolved.length > 0) console.log(`unresolved:\n  ${m.unresolved.join("\n  ")}`)
  if (m.dynamicComputed.length > 0) {
    console.log(`import() with computed specifiers (not followed):\n  ${m.dynamicComputed.join("\n  ")}`)
  }
  if (m.undeclared.length > 0) {
    console.log(`workspace imports not declared in dependencies/peerDependencies:\n  ${m.undeclared.join("\n  ")}`)
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
