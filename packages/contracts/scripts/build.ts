/**
 * Compiles packages/contracts/contracts/*.sol with the solc npm package and writes
 * artifacts/<Contract>.json, artifacts/standard-json-input.json and src/artifacts.ts.
 *
 * Run from the repository root with Node 24: `node packages/contracts/scripts/build.ts`.
 * `--check` writes nothing and exits 1 when a file differs.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { compile, PACKAGE_ROOT, renderFiles } from "../src/internal/Build.ts"

const check = process.argv.includes("--check")
const started = performance.now()
const compilation = compile()
const seconds = ((performance.now() - started) / 1000).toFixed(2)
for (const warning of compilation.warnings) process.stderr.write(`${warning}\n`)

let differing = 0
for (const [path, content] of renderFiles(compilation)) {
  const url = new URL(path, PACKAGE_ROOT)
  let current: string | undefined
  try {
    current = readFileSync(url, "utf8")
  } catch {
    current = undefined
  }
  if (current === content) continue
  differing++
  if (check) {
    process.stderr.write(`out of date: ${path}\n`)
  } else {
    mkdirSync(new URL(".", url), { recursive: true })
    writeFileSync(url, content)
    process.stdout.write(`wrote ${path}\n`)
  }
}
process.stdout.write(
  `solc ${compilation.version}: ${compilation.artifacts.length} contracts in ${seconds} s, ${compilation.warnings.length} warnings, ${differing} file(s) ${check ? "out of date" : "written"}\n`
)
if (check && differing > 0) process.exit(1)
