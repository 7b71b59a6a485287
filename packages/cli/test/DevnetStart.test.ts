/**
 * `svc devnet` where `@foundry-rs/anvil` (an optional peer dependency of
 * `@svc/cli`) is not installed: one line saying what to install, not a module
 * resolution error. The resolution is Node's own, of a package that is not
 * installed (inside the test run, pnpm's NODE_PATH finds the real one from anywhere).
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Devnet from "../src/Devnet.ts"

describe("svc devnet without anvil", () => {
  it("says to install @foundry-rs/anvil, and starts nothing", async () => {
    const outside = mkdtempSync(join(tmpdir(), "svc-no-anvil-"))
    const resolveOutside = () =>
      createRequire(join(outside, "index.js")).resolve("@foundry-rs/anvil-not-installed/package.json")
    const error = await Devnet.start({ dataDir: join(outside, "devnet"), anvilBinary: resolveOutside }).then(
      () => undefined,
      (e: Error) => e
    )
    assert.strictEqual(
      error?.message,
      "svc devnet runs anvil from the npm package @foundry-rs/anvil, which is not installed: npm install --save-dev @foundry-rs/anvil"
    )
    // any other failure is not mistaken for a missing package
    assert.isUndefined(Devnet.anvilMissing(new Error("EACCES")))
  })
})
