/**
 * `npm run bench -- client`: the two absolute figures of the performance issue,
 * each beside its target, then `verdict: N of M targets met`.
 *
 * - Browser bundle of `@svc/client` for an app that uses the Promise API to
 *   verify the feed and request a permit: vite (rollup) production build for the
 *   browser, minified, then gzip -9, in bytes.
 * - CLI start: `node <the svc bin> canonical <file>`, process start to exit, the
 *   median of repeated runs, without npm's own start-up; from the sources (the
 *   repository) and from the built bin (`dist/`, what an install runs) when built.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { bundleBytes, esbuildBundleBytes } from "./bundle.ts"

const ROOT = fileURLToPath(new URL("../../", import.meta.url))
const NODE = join(ROOT, "node_modules/.bin/node")

interface Row {
  readonly what: string
  readonly figure: string
  readonly target: string
  readonly met: boolean
  readonly value: number
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/**
 * Median wall time of `node <bin> canonical <file>`, milliseconds. The bin
 * enables Node's module compile cache; the runs get one of their own (in this
 * temporary folder, removed after), which the first run, not counted, fills as it
 * warms the file cache: the figure is that of a repeated start, whatever the
 * machine's cache holds.
 */
const cliStart = (bin: string, runs: number): number => {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-cli-"))
  try {
    const input = join(dir, "input.json")
    writeFileSync(input, "{\"b\":1,\"a\":[2,3]}")
    const env = { ...process.env, NODE_COMPILE_CACHE: join(dir, "compile-cache") }
    const times: Array<number> = []
    for (let i = 0; i < runs + 1; i++) {
      const started = performance.now()
      const result = spawnSync(NODE, [bin, "canonical", input], { encoding: "utf8", env })
      const elapsed = performance.now() - started
      if (result.status !== 0) throw new Error(`${bin} canonical failed: ${result.stderr}`)
      if (i > 0) times.push(elapsed) // the first run warms the file cache and fills the compile cache
    }
    return median(times)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Runs the client benchmark. */
export const runClient = async (options: { readonly quick: boolean }) => {
  const runs = options.quick ? 3 : 9
  process.stderr.write("bench client: bundling the Promise API app for the browser...\n")
  const bundle = await bundleBytes()
  const esbuilt = await esbuildBundleBytes()
  process.stderr.write("bench client: timing the CLI...\n")
  const source = cliStart(join(ROOT, "packages/cli/src/bin.ts"), runs)
  const builtBin = join(ROOT, "packages/cli/dist/bin.js")
  const built = existsSync(builtBin) ? cliStart(builtBin, runs) : undefined
  const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`
  const rows: Array<Row> = [
    {
      what: "browser bundle of @svc/client (verify feed, request permit), minified + gzip",
      figure: `${kb(bundle.gzip)} (minified ${kb(bundle.minified)})`,
      target: "<= 60 KB",
      met: bundle.gzip <= 60_000,
      value: bundle.gzip
    },
    {
      what: "the same app bundled by esbuild, minified + gzip",
      figure: `${kb(esbuilt.gzip)} (minified ${kb(esbuilt.minified)})`,
      target: "<= 60 KB",
      met: esbuilt.gzip <= 60_000,
      value: esbuilt.gzip
    },
    {
      what: "node <svc bin> canonical, start to exit (sources, median)",
      figure: `${(source / 1000).toFixed(2)} s`,
      target: "<= 0.30 s",
      met: source <= 300,
      value: source
    }
  ]
  if (built !== undefined) {
    rows.push({
      what: "node <svc bin> canonical, start to exit (built dist/bin.js, median)",
      figure: `${(built / 1000).toFixed(2)} s`,
      target: "<= 0.30 s",
      met: built <= 300,
      value: built
    })
  }
  const width = Math.max(...rows.map((r) => r.what.length))
  const text = [
    "client: bundle size and CLI start (absolute figures on this machine)",
    "",
    ...rows.map((r) =>
      `${r.met ? "met " : "MISS"}  ${r.what.padEnd(width)}  ${r.figure.padEnd(28)} target ${r.target}`
    ),
    built === undefined ? "(packages/cli/dist/bin.js is not built: `npm run build` adds the built-bin row)" : "",
    `verdict: ${rows.filter((r) => r.met).length} of ${rows.length} targets met`
  ].filter((line, i, all) => line !== "" || i < all.length - 1).join("\n")
  return {
    text,
    results: {
      bundleGzipBytes: bundle.gzip,
      esbuildBundleGzipBytes: esbuilt.gzip,
      bundleMinifiedBytes: bundle.minified,
      cliStartSourceMs: Math.round(source),
      ...(built === undefined ? {} : { cliStartBuiltMs: Math.round(built) }),
      targetsMet: rows.filter((r) => r.met).length,
      targets: rows.length
    }
  }
}

if (import.meta.main) {
  const { text } = await runClient({ quick: process.argv.includes("--quick") })
  process.stdout.write(`${text}\n`)
}
