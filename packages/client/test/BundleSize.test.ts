/**
 * The browser bundle of the default entry stays small with either bundler: the
 * app of `npm run bench -- client` (scripts/bench/bundle.ts: the Promise API
 * verifies the feed and requests a permit), built for the browser by vite and by
 * esbuild, minified, then gzip -9, is at most 60,000 bytes each. A bundle's size
 * is deterministic for a given lockfile, so the bound is absolute. It fails when
 * something heavy becomes reachable from `createSolverClient` again (effect's
 * Schema or HttpApi runtime, the contract's `@svc/protocol/Api`, the feed stream,
 * the aggregator), or when esbuild stops tree-shaking what vite drops (a module
 * of the client importing effect's barrel, `import { Effect } from "effect"`:
 * about 75 KB with esbuild).
 */
import { assert, describe, it } from "@effect/vitest"
import { APP, bundleBytes, esbuildBundleBytes } from "../../../scripts/bench/bundle.ts"

/** The target of the performance issue, bytes of gzip -9. */
const LIMIT = 60_000

describe("browser bundle size", () => {
  it(
    `the Promise API app (verify the feed, request a permit) is at most ${LIMIT} bytes minified + gzip with vite`,
    async () => {
      assert.include(APP, "from \"@svc/client\"")
      const { gzip, minified } = await bundleBytes(APP)
      process.stderr.write(`bundle with vite: ${gzip} bytes gzip (minified ${minified})\n`)
      assert.isAtMost(gzip, LIMIT, `gzip ${gzip} bytes (minified ${minified})`)
    },
    120_000
  )

  it(`the same app is at most ${LIMIT} bytes minified + gzip with esbuild`, async () => {
    const { gzip, minified } = await esbuildBundleBytes(APP)
    process.stderr.write(`bundle with esbuild: ${gzip} bytes gzip (minified ${minified})\n`)
    assert.isAtMost(gzip, LIMIT, `gzip ${gzip} bytes (minified ${minified})`)
  }, 120_000)
})
