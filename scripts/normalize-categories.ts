/**
 * Rewrites the JSDoc `@category` values under packages/*\/src and conformance/src
 * in place to the short list, through MAPPING in scripts/categories.ts.
 *
 *   node scripts/normalize-categories.ts            rewrite the files
 *   node scripts/normalize-categories.ts --dry-run  only list what would change
 *
 * Afterwards set ENFORCE = "short" in scripts/categories.ts, so that
 * test/categories.test.ts accepts only the short list, and regenerate
 * artifacts.ts of @svc/contracts if its generator's tags changed.
 */
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { MAPPING, normalizeText, scanCategories, SHORT_LIST } from "./categories.ts"
import { listTsFiles, repoRoot, sourceDirs } from "./module-graph.ts"

const dryRun = process.argv.includes("--dry-run")
const unmapped = scanCategories().filter((t) => MAPPING[t.value] === undefined && !Object.hasOwn(SHORT_LIST, t.value))
if (unmapped.length > 0) {
  console.error(
    `values MAPPING lacks (add them first):\n${unmapped.map((t) => `  ${t.file}:${t.line}: ${t.value}`).join("\n")}`
  )
  process.exit(1)
}
let files = 0
let tags = 0
for (const file of sourceDirs().flatMap(listTsFiles)) {
  const text = readFileSync(file, "utf8")
  const result = normalizeText(text, MAPPING)
  if (result.changed === 0) continue
  files++
  tags += result.changed
  console.log(`${path.relative(repoRoot, file)}: ${result.changed} tag(s)`)
  if (!dryRun) writeFileSync(file, result.text)
}
console.log(`${dryRun ? "would rewrite" : "rewrote"} ${tags} tag(s) in ${files} file(s)`)
