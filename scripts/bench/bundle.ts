/**
 * The browser bundle figure of the performance issue, shared by
 * `npm run bench -- client` (scripts/bench/client.ts) and its regression test
 * (packages/client/test/BundleSize.test.ts): an app that uses the Promise API of
 * `@svc/client`'s default entry to verify the feed and request a permit, built
 * for the browser, minified, then gzip -9, by each of the two bundlers
 * integrators use: vite (rolldown) in production mode, and esbuild with its
 * defaults for a browser bundle (`--bundle --minify --format=esm
 * --platform=browser`). esbuild tree-shakes less on its own (it keeps a
 * namespace object imported through a barrel, `import { Effect } from "effect"`,
 * whole, and every top-level call not marked pure), so the client's modules
 * import effect's modules by path and do no work at the top level.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

const ROOT = fileURLToPath(new URL("../../", import.meta.url))

/**
 * The app the bundle target is about: verify the feed, request a permit. It uses
 * `createSolverClient`, the Promise client's discovery, feed, route and permit
 * methods (`createClient` returns them too, with the feed stream, the aggregator
 * and the Effect service, which a bundler then cannot drop).
 */
export const APP = `import { createSolverClient } from "@svc/client"
export const run = async (baseUrl, sign) => {
  const svc = createSolverClient({ baseUrl })
  const feed = await svc.feed()
  const route = feed.openRoutes[0]
  const prepared = await svc.permits.message({
    quoteId: route.quoteId, requestedAmountInRaw: route.minimumFillInRaw,
    payer: "0x2222222222222222222222222222222222222222", recipient: "0x2222222222222222222222222222222222222222"
  })
  return svc.permits.create({ ...prepared, requestSignature: await sign(prepared.message) })
}
`

/** The same app on the whole Promise client (`createClient`): for comparison. */
export const FULL_CLIENT_APP = APP.replaceAll("createSolverClient", "createClient")

/** Bytes of the app's browser bundle by esbuild: minified, and minified then gzip -9. */
export const esbuildBundleBytes = async (
  app: string = APP
): Promise<{ readonly minified: number; readonly gzip: number }> => {
  const { build } = await import("esbuild")
  const result = await build({
    stdin: { contents: app, resolveDir: join(ROOT, "packages/client"), sourcefile: "app.js", loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent",
    alias: { "@svc/client": join(ROOT, "packages/client/src/index.ts") }
  })
  const code = result.outputFiles.map((f) => f.text).join("\n")
  return { minified: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length }
}

/** Bytes of the app's browser bundle by vite: minified, and minified then gzip -9 (every chunk counted). */
export const bundleBytes = async (app: string = APP): Promise<{ readonly minified: number; readonly gzip: number }> => {
  const { build } = await import("vite")
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-client-"))
  try {
    const entry = join(dir, "app.js")
    writeFileSync(entry, app)
    const result = await build({
      configFile: false,
      logLevel: "silent",
      root: join(ROOT, "packages/client"),
      resolve: { conditions: ["browser"], alias: { "@svc/client": join(ROOT, "packages/client/src/index.ts") } },
      build: {
        write: false,
        minify: true,
        lib: { entry, formats: ["es"], fileName: "app" },
        rollupOptions: { external: [] }
      }
    }) as unknown
    const outputs = (Array.isArray(result) ? result : [result]) as Array<{ output: Array<{ code?: string }> }>
    const code = outputs.flatMap((o) => o.output).map((c) => c.code ?? "").join("\n")
    return { minified: Buffer.byteLength(code), gzip: gzipSync(code, { level: 9 }).length }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
