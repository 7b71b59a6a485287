/**
 * The JSDoc `@category` values of the sources: the short list they should come
 * from, the mapping of every value in use to it, and the scanner and rewriter
 * used by test/categories.test.ts and scripts/normalize-categories.ts.
 *
 * Now the test accepts every value of MAPPING (today's values) and the short
 * list. After `node scripts/normalize-categories.ts` has rewritten the tags,
 * set ENFORCE to "short" so only the short list is accepted.
 */
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { listTsFiles, repoRoot, sourceDirs } from "./module-graph.ts"

/** Which values the test accepts: "current" = MAPPING's keys and the short list; "short" = the short list only. */
export const ENFORCE = "short" as "current" | "short"

/** The short list: what kind of thing an export is, or the one area it belongs to. */
export const SHORT_LIST = {
  models: "types, interfaces and plain data shapes",
  schemas: "Effect Schemas and helpers that work on schemas",
  errors: "error classes, error and reason codes, mapping between errors",
  constants: "fixed values: patterns, limits, defaults",
  constructors: "functions that build a value (make, build, ...Of) other than layers",
  layers: "Layers and functions returning Layers",
  services: "Context services and references, HTTP API annotations and middleware",
  validation: "guards, predicates and checks that return issues or Results",
  encoding: "encoding, decoding, parsing, formatting, serialization, normalization of text and bytes",
  crypto: "hashing, signing, signature and proof verification, tokens and secrets",
  identifiers: "identifier derivation: network, account, asset, route ids, locators, addresses, keys",
  http: "the HTTP API: groups, requests, responses, headers, paths, caching, streams, servers",
  onchain: "contracts, deployment, ABI facts (selectors, events, interface ids, standards), chain RPC",
  running: "commands, runners, reporters, input and output, plug-in loading and registries",
  testing: "test suites, conformance checks, generators, test binaries and demo data",
  operations: "what a module does: its operations (quote, status, ...) and the helpers they share"
} as const

/** A value of the short list. */
export type Category = keyof typeof SHORT_LIST

/** Every `@category` value in use when this file was written, to its short-list value. */
export const MAPPING: Readonly<Record<string, Category>> = {
  "accessors": "operations",
  "accounts": "identifiers",
  "addresses": "identifiers",
  "annotations": "services",
  "api": "http",
  "arithmetic": "operations",
  "artifacts": "onchain",
  "assets": "identifiers",
  "base58": "encoding",
  "binaries": "testing",
  "bodies": "http",
  "build": "constructors",
  "builders": "constructors",
  "bytes": "encoding",
  "caching": "http",
  "checks": "testing",
  "classification": "validation",
  "code hashes": "onchain",
  "codes": "errors",
  "commands": "running",
  "compile": "onchain",
  "compiler": "onchain",
  "compression": "http",
  "conditional requests": "http",
  "connectors": "running",
  "console": "running",
  "constants": "constants",
  "constructors": "constructors",
  "contracts": "onchain",
  "create2": "onchain",
  "decoding": "encoding",
  "demo": "testing",
  "deploy": "onchain",
  "deployment": "onchain",
  "derivations": "identifiers",
  "discovery": "http",
  "dispatch": "http",
  "docs": "http",
  "eip712": "crypto",
  "encoding": "encoding",
  "endpoints": "http",
  "envelopes": "constructors",
  "errors": "errors",
  "events": "onchain",
  "failing": "errors",
  "files": "running",
  "filters": "validation",
  "formatting": "encoding",
  "frames": "http",
  "generators": "testing",
  "groups": "http",
  "guards": "validation",
  "hashing": "crypto",
  "headers": "http",
  "helpers": "operations",
  "idempotency": "identifiers",
  "identifiers": "identifiers",
  "identities": "identifiers",
  "input": "running",
  "inspection": "validation",
  "interface ids": "onchain",
  "inventory": "operations",
  "judging": "testing",
  "labels": "identifiers",
  "layers": "layers",
  "lifecycle": "running",
  "limits": "constants",
  "listing": "constructors",
  "loading": "running",
  "locators": "identifiers",
  "mapping": "errors",
  "message": "encoding",
  "metrics": "operations",
  "middleware": "services",
  "models": "models",
  "naming": "operations",
  "negotiation": "http",
  "networks": "identifiers",
  "normalisation": "encoding",
  "json schema": "schemas",
  "operations": "operations",
  "output": "running",
  "parsing": "encoding",
  "paths": "http",
  "patterns": "constants",
  "permits": "onchain",
  "plugins": "running",
  "predicates": "validation",
  "preview": "onchain",
  "probe": "onchain",
  "proofs": "crypto",
  "publications": "validation",
  "quote": "operations",
  "quote tokens": "crypto",
  "rate limiting": "http",
  "reading": "http",
  "reasons": "errors",
  "references": "identifiers",
  "registry": "running",
  "render": "onchain",
  "reporters": "running",
  "reporting": "running",
  "request": "http",
  "request ids": "identifiers",
  "resolution": "http",
  "resolving": "running",
  "responses": "http",
  "routes": "identifiers",
  "rpc": "onchain",
  "running": "running",
  "scaffold": "running",
  "schemas": "schemas",
  "secret": "layers",
  "selection": "running",
  "selectors": "onchain",
  "serialization": "encoding",
  "servers": "http",
  "services": "services",
  "shortlist": "operations",
  "signatures": "onchain",
  "signing": "crypto",
  "snapshots": "operations",
  "standards": "onchain",
  "status": "operations",
  "statuses": "http",
  "streams": "http",
  "testing": "testing",
  "tests": "testing",
  "transactions": "onchain",
  "urls": "http",
  "utils": "operations",
  "validation": "validation",
  "verification": "crypto",
  "vm types": "identifiers",
  "writing": "http"
}

/** The values the test accepts now. */
export const allowedCategories = (): ReadonlySet<string> =>
  new Set(ENFORCE === "short" ? Object.keys(SHORT_LIST) : [...Object.keys(MAPPING), ...Object.keys(SHORT_LIST)])

/** One `@category` tag. */
export interface CategoryTag {
  /** Relative to the root, `/` separated. */
  readonly file: string
  readonly line: number
  readonly value: string
}

// the value runs to the end of the line (the text before a closing `*/`)
const TAG = /@category(?![\w-])[ \t]*(.*?)[ \t]*$/
const DOC_COMMENT = /\/\*\*[\s\S]*?\*\//g

/**
 * The `@category` tags of a source text, in doc comments (`/** ... *\/`), also
 * those inside template literals that generate code (their text is what the
 * generated file will carry).
 */
export const categoryTags = (text: string, file = ""): Array<CategoryTag> => {
  const out: Array<CategoryTag> = []
  for (const m of text.matchAll(DOC_COMMENT)) {
    const firstLine = text.slice(0, m.index).split("\n").length
    m[0].slice(3, -2).split("\n").forEach((line, k) => {
      const tag = TAG.exec(line)
      if (tag !== null) out.push({ file, line: firstLine + k, value: tag[1]! })
    })
  }
  return out
}

/** The `@category` tags of every `.ts` file under packages/*\/src and conformance/src. */
export const scanCategories = (root: string = repoRoot): Array<CategoryTag> =>
  sourceDirs(root).flatMap(listTsFiles).flatMap((file) =>
    categoryTags(readFileSync(file, "utf8"), path.relative(root, file).split(path.sep).join("/"))
  )

/** Counts per value, most used first, then by name. */
export const inventory = (tags: ReadonlyArray<CategoryTag>): Array<readonly [string, number]> => {
  const counts = new Map<string, number>()
  for (const t of tags) counts.set(t.value, (counts.get(t.value) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
}

/**
 * Rewrites the `@category` values of a source text through a mapping (values the
 * mapping lacks are left as they are); returns the new text and how many tags changed.
 */
export const normalizeText = (
  text: string,
  mapping: Readonly<Record<string, string>>
): { text: string; changed: number } => {
  const lines = text.split("\n")
  let changed = 0
  for (const tag of categoryTags(text)) {
    const to = mapping[tag.value]
    if (to === undefined || to === tag.value) continue
    const line = lines[tag.line - 1]!
    const at = line.indexOf("@category")
    const valueAt = line.indexOf(tag.value, at + "@category".length)
    lines[tag.line - 1] = line.slice(0, valueAt) + to + line.slice(valueAt + tag.value.length)
    changed++
  }
  return { text: lines.join("\n"), changed }
}
