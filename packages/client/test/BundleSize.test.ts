/**
 * The browser bundle of the default entry stays small: the app of
 * `npm run bench -- client` (scripts/bench/bundle.ts: the Promise API verifies
 * the feed and requests a permit), built by vite for the browser, minified, then
 * gzip -9, is at most 60,000 bytes. A bundle's size is deterministic for a given
 * lockfile, so the bound is absolute. It fails when something heavy becomes
 * reachable from `createSolverClient` again (effect's Schema or HttpApi runtime,
 * the contract's `@svc/protocol/Api`, the feed stream, the aggregator).
 */
import { assert, describe, it } from "@effect/vitest"
import { APP, bundleBytes } from "../../../scripts/bench/bundle.ts"

/** The target of the performance issue, bytes of gzip -9. */
const LIMIT = 60_000

describe("browser bundle size", () => {
  it(`the Promise API app (verify the feed, request a permit) is at most ${LIMIT} bytes minified + gzip`, async () => {
    assert.include(APP, "from \"@svc/client\"")
    const { gzip, minified } = await bundleBytes(APP)
    assert.isAtMost(gzip, LIMIT, `gzip ${gzip} bytes (minified ${minified})`)
  }, 120_000)
})
