/**
 * `svc new-plugin pricing` and `svc new-plugin store`: the generated packages,
 * outside the repository, compile and pass the pricing suite and the Store
 * contract suite; built and installed next to the configuration, `svc serve`
 * loads them by `SVC_PRICING` and `SVC_STORE`, publishes the pricing's terms and
 * keeps its data in the store plug-in's; a bad value of a plug-in's setting
 * stops the start with one line naming it. A kind not generated yet says so in
 * one line.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { scaled } from "../../../test/support/time.ts"
import { render, settingOf } from "../src/NewPlugin.ts"
import { childEnv, svc } from "./support/svc.ts"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const NODE = process.execPath
const BIN = join(ROOT, "packages/cli/src/bin.ts")

/** Runs `node args` in `cwd` to its end. */
const run = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ status: number | null; output: string }>((resolve) => {
    const child = spawn(NODE, args, {
      cwd,
      env: childEnv(),
      stdio: ["ignore", "pipe", "pipe"],
      timeout: scaled(120_000)
    })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.once("close", (status) => resolve({ status, output }))
  })

/** Runs `svc serve` in `cwd` until it listens (then reads the feed's routes and stops it) or exits. */
const serve = (cwd: string, env: Record<string, string>) =>
  new Promise<{ url?: string; routes: ReadonlyArray<any>; code: number | null; output: string }>((resolve) => {
    const child = spawn(NODE, [BIN, "serve"], {
      cwd,
      env: childEnv({ PORT: "0", SVC_DATA_DIR: join(cwd, "data"), SVC_LOG_LEVEL: "warning", ...env }),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    let done = false
    const timer = setTimeout(() => child.kill("SIGKILL"), scaled(60_000))
    child.stderr.on("data", (d) => (output += d))
    child.stdout.on("data", async (d) => {
      output += d
      const m = /svc listening on (\S+)/.exec(output)
      if (m === null || done) return
      done = true
      const feed = await (await fetch(`${m[1]}/api/v6/solver-feed`)).json() as any
      child.once("exit", (code) => resolve({ url: m[1]!, routes: feed.feed.routes, code, output }))
      child.kill("SIGTERM")
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      if (!done) resolve({ routes: [], code, output })
    })
  })

describe("svc new-plugin", () => {
  it("renders the pricing and store packages with the names filled in; refuses bad names", () => {
    const pricing = render("pricing", { name: "acme-fx", coreRange: "^0.1.0" })
    assert.deepStrictEqual(pricing.map((f) => f.path), [
      "README.md",
      "package.json",
      "src/AcmeFxPricing.ts",
      "src/index.ts",
      "test/AcmeFxPricing.test.ts",
      "tsconfig.build.json",
      "tsconfig.json",
      "vitest.config.ts"
    ])
    const store = render("store", { name: "acme-fx", coreRange: "^0.1.0" })
    assert.deepStrictEqual(store.map((f) => f.path), [
      "README.md",
      "package.json",
      "src/AcmeFxStore.ts",
      "src/index.ts",
      "test/AcmeFxStore.test.ts",
      "tsconfig.build.json",
      "tsconfig.json",
      "vitest.config.ts"
    ])
    for (const f of [...pricing, ...store]) {
      assert.notMatch(f.content, /__(?:name|Name|MODEL|SETTING|package|core_range|exports)__/, f.path)
    }
    assert.strictEqual(JSON.parse(pricing.find((f) => f.path === "package.json")!.content).name, "svc-pricing-acme-fx")
    assert.strictEqual(JSON.parse(store.find((f) => f.path === "package.json")!.content).name, "svc-store-acme-fx")
    assert.strictEqual(settingOf("pricing", "acme-fx"), "ACME_FX_MARKUP_BPS")
    assert.strictEqual(settingOf("store", "acme-fx"), "ACME_FX_STORE_FILE")
    assert.include(pricing.find((f) => f.path === "src/index.ts")!.content, "Config.Int(\"ACME_FX_MARKUP_BPS\")")
    for (const bad of ["", "Acme", "acme_fx", "-acme", "1acme"]) {
      assert.throws(() => render("pricing", { name: bad, coreRange: "^0.1.0" }), /plug-in name/)
    }
  })

  it("a kind not generated yet: one line saying what to write instead, exit 2", async () => {
    const r = await svc(["new-plugin", "signer", "acme"])
    assert.strictEqual(r.code, 2, r.stderr)
    assert.match(
      r.stderr,
      /^svc: new-plugin signer: not generated yet; write a package whose default export is Plugin\.make\(\{ kind: "signer"/
    )
    assert.strictEqual(r.stderr.split("\n").length, 2)
  }, 60_000)

  it(
    "generates pricing and store packages outside the repository that pass their suites; svc serve loads them by SVC_PRICING and SVC_STORE",
    async () => {
      const base = realpathSync(mkdtempSync(join(tmpdir(), "svc-new-plugin-")))
      try {
        const link = (name: string, target: string) => {
          mkdirSync(dirname(join(base, "node_modules", name)), { recursive: true })
          symlinkSync(realpathSync(target), join(base, "node_modules", name))
        }
        link("@svc/core", join(ROOT, "packages/core"))
        link("@svc/protocol", join(ROOT, "packages/protocol"))
        link("@svc/store", join(ROOT, "packages/store"))
        for (const name of ["effect", "vitest", "fast-check", "@effect/vitest", "@fast-check/vitest", "@types/node"]) {
          link(name, join(ROOT, "node_modules", name))
        }
        for (const kind of ["pricing", "store"]) {
          const generated = await run([BIN, "new-plugin", kind, "acme"], base)
          assert.strictEqual(generated.status, 0, generated.output)
        }
        const pricing = join(base, "pricing-acme")
        const store = join(base, "store-acme")
        assert.strictEqual(JSON.parse(readFileSync(join(pricing, "package.json"), "utf8")).name, "svc-pricing-acme")

        // both compile (one compiler run, with the packages' own options), and their suites pass (one vitest run)
        const tsconfig = JSON.parse(readFileSync(join(store, "tsconfig.json"), "utf8"))
        writeFileSync(
          join(base, "tsconfig.json"),
          JSON.stringify({
            ...tsconfig,
            include: ["pricing-acme/src", "pricing-acme/test", "store-acme/src", "store-acme/test"]
          })
        )
        const compiled = await run(
          [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(base, "tsconfig.json")],
          base
        )
        assert.strictEqual(compiled.status, 0, compiled.output)
        writeFileSync(
          join(base, "vitest.config.ts"),
          `export default { test: { include: ["*/test/**/*.test.ts"], testTimeout: 60000 } }\n`
        )
        const tested = await run([join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--root", base], base)
        assert.strictEqual(tested.status, 0, tested.output)
        assert.match(tested.output, /Test Files\s+\S*\s*2 passed/)

        // built and installed next to the configuration, SVC_PRICING and SVC_STORE name their folders
        for (const pkg of [pricing, store]) {
          const built = await run([
            join(ROOT, "node_modules/typescript/bin/tsc"),
            "-p",
            join(pkg, "tsconfig.build.json")
          ], base)
          assert.strictEqual(built.status, 0, built.output)
        }
        link("svc-pricing-acme", pricing)
        link("svc-store-acme", store)
        const served = await serve(base, {
          SVC_PRICING: "./node_modules/svc-pricing-acme",
          ACME_MARKUP_BPS: "100",
          SVC_STORE: "./node_modules/svc-store-acme",
          ACME_STORE_FILE: join(base, "acme.sqlite"),
          SVC_PROFILE: "demo"
        })
        assert.isDefined(served.url, served.output)
        // the catalog prices usdc.base -> usdt0.hyperevm at 1 / 1: 1 % kept
        const route = served.routes.find((r) => r.publicationLane === "L1" && r.publicationRank === 2)
        assert.deepStrictEqual([route.indicativePriceNumeratorRaw, route.indicativePriceDenominatorRaw], [
          "9900",
          "10000"
        ])
        // the store plug-in holds the data, not the data directory's SQLite
        assert.isTrue(existsSync(join(base, "acme.sqlite")))
        assert.isFalse(existsSync(join(base, "data", "svc.sqlite")))

        // a bad setting of a plug-in: one line naming it
        const refused = await serve(base, {
          SVC_PRICING: "./node_modules/svc-pricing-acme",
          ACME_MARKUP_BPS: "20000",
          SVC_PROFILE: "demo"
        })
        assert.isUndefined(refused.url)
        assert.strictEqual(refused.code, 2, refused.output)
        assert.strictEqual(
          refused.output,
          "svc: SVC_PRICING: ./node_modules/svc-pricing-acme: ACME_MARKUP_BPS: 20000 is not 0 to 9999 basis points\n"
        )
      } finally {
        rmSync(base, { recursive: true, force: true })
      }
    },
    scaled(300_000)
  )
})
