/**
 * `npm run codegen`: runs every generator of the repository and writes what
 * they generate; `npm run codegen -- --check` writes nothing, lists the files
 * that differ and exits 1. Names narrow it: `npm run codegen -- fixtures errors`.
 *
 * The generators (each still runs alone with its own script):
 *
 * - `artifacts`: the compiled reference contracts (`packages/contracts/artifacts/`,
 *   `src/artifacts.ts`) from `packages/contracts/contracts/*.sol` with solc (the slow one:
 *   a viaIR compile of 10-20 s);
 * - `client-contract`: `@svc/client`'s snapshot of the HTTP contract
 *   (`packages/client/src/internal/contract.ts`) from `@svc/protocol/Api`;
 * - `errors`: `docs/errors.md` from the code's error tables;
 * - `fixtures`: the language-neutral vectors of `fixtures/protocol/`;
 * - `catalog-schema`: the catalog's JSON Schema shipped with `@svc/server`.
 *
 * `test/codegen.test.ts` is the drift test of them all: it fails when a committed
 * file differs from what `npm run codegen` would write. It compares every file
 * byte for byte from the generators' output, except the artifacts, whose
 * compilation it does not repeat: it renders them from the committed ABIs and
 * bytecode with the current sources' input and hashes (`recordedCompilation`),
 * which catches a source, setting or compiler change without a rebuild and any
 * hand edit but an ABI's or a bytecode's; `packages/contracts/test/Artifacts.test.ts`
 * compiles and compares those.
 *
 * `api:examples` is not a generator of this kind: it records a live server's
 * answers (`packages/protocol/src/ApiExamples.json`), checked against the
 * document's schemas rather than regenerated.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { CONTRACT_MODULE, render as renderClientContract } from "../packages/client/test/support/contract.ts"
import {
  compile,
  PACKAGE_ROOT,
  recordedCompilation,
  renderFiles as renderArtifacts
} from "../packages/contracts/src/internal/Build.ts"
import { buildCatalogSchema, CATALOG_SCHEMA_PATH } from "./catalog-schema.ts"
import { buildErrorsDoc } from "./errors-doc.ts"
import { buildFixtures } from "./fixtures.ts"
import { ROOT } from "./packages.ts"

/** How a generator is asked: `full` runs it all; `drift` may skip a slow step the drift test does not repeat. */
export type Mode = "full" | "drift"

/** One generator: what it writes, by path relative to the repository. */
export interface Generator {
  readonly name: string
  /** The source of the generator and how it runs alone. */
  readonly source: string
  /** Every file it writes (relative path to text). */
  readonly files: (mode: Mode) => ReadonlyMap<string, string>
  /** Folders whose every file it writes: a file there it does not write is stale. */
  readonly owns: ReadonlyArray<string>
}

const contractsDir = relative(ROOT, fileURLToPath(PACKAGE_ROOT))

const prefixed = (prefix: string, files: ReadonlyMap<string, string> | Record<string, string>) =>
  new Map(
    [...(files instanceof Map ? files : Object.entries(files))].map(([path, text]) => [join(prefix, path), text])
  )

/** The generators, in the order `npm run codegen` runs them. */
export const GENERATORS: ReadonlyArray<Generator> = [
  {
    name: "artifacts",
    source: "packages/contracts/scripts/build.ts",
    files: (mode) => prefixed(contractsDir, renderArtifacts(mode === "full" ? compile() : recordedCompilation())),
    owns: [join(contractsDir, "artifacts")]
  },
  {
    name: "client-contract",
    source: "packages/client/test/support/contract.ts",
    files: () => new Map([[CONTRACT_MODULE, renderClientContract()]]),
    owns: []
  },
  {
    name: "errors",
    source: "scripts/errors-doc.ts (npm run docs:errors)",
    files: () => new Map([["docs/errors.md", buildErrorsDoc()]]),
    owns: []
  },
  {
    name: "fixtures",
    source: "scripts/fixtures.ts (npm run fixtures)",
    files: () => prefixed("fixtures", buildFixtures()),
    owns: ["fixtures/protocol"]
  },
  {
    name: "catalog-schema",
    source: "scripts/catalog-schema.ts",
    files: () => new Map([[relative(ROOT, CATALOG_SCHEMA_PATH), buildCatalogSchema()]]),
    owns: []
  }
]

const listFiles = (dir: string): Array<string> =>
  existsSync(join(ROOT, dir))
    ? readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)]
    )
    : []

/** The files of a generator that differ from its output: changed, missing, or stale in a folder it owns. */
export const drift = (generator: Generator, files: ReadonlyMap<string, string>): Array<string> => {
  const out: Array<string> = []
  for (const [path, text] of files) {
    const full = join(ROOT, path)
    if (!existsSync(full)) out.push(`${path} (missing)`)
    else if (readFileSync(full, "utf8") !== text) out.push(`${path} (differs)`)
  }
  for (const dir of generator.owns) {
    for (const path of listFiles(dir)) if (!files.has(path)) out.push(`${path} (not generated: stale)`)
  }
  return out
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const check = args.includes("--check")
  const names = args.filter((a) => !a.startsWith("--"))
  const unknown = names.filter((n) => !GENERATORS.some((g) => g.name === n))
  if (unknown.length > 0) {
    console.error(`codegen: no generator ${unknown.join(", ")} (there are ${GENERATORS.map((g) => g.name).join(", ")})`)
    process.exit(2)
  }
  let differing = 0
  for (const generator of GENERATORS.filter((g) => names.length === 0 || names.includes(g.name))) {
    const started = performance.now()
    const files = generator.files("full")
    const changed = drift(generator, files)
    differing += changed.length
    if (!check) {
      for (const [path, text] of files) {
        const full = join(ROOT, path)
        if (existsSync(full) && readFileSync(full, "utf8") === text) continue
        mkdirSync(dirname(full), { recursive: true })
        writeFileSync(full, text)
      }
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    const verb = check ? "out of date" : "written"
    console.log(`${generator.name}: ${files.size} files, ${changed.length} ${verb} (${seconds} s)`)
    for (const line of changed) {
      console.log(`  ${line}${!check && line.endsWith("(not generated: stale)") ? ": remove it" : ""}`)
    }
  }
  if (check && differing > 0) {
    console.error("codegen: generated files differ from their generators: run npm run codegen and commit the result")
    process.exit(1)
  }
}
