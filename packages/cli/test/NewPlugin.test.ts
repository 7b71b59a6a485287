/**
 * `svc new-plugin pricing|store|signer`: the generated packages, outside the
 * repository, compile and pass their tests (the pricing suite, the Store
 * contract suite, the signer's own); built and installed next to the
 * configuration, `svc serve` loads them by `SVC_PRICING`, `SVC_STORE` and
 * `SVC_SIGNER_PLUGIN`: it publishes the pricing's terms, keeps its data in the
 * store plug-in's file and signs with the signer plug-in's key; a bad value of
 * a plug-in's setting stops the start with one line naming it.
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
    assert.strictEqual(settingOf("signer", "acme-fx"), "ACME_FX_SIGNER_KEY_FILE")
    assert.includeMembers(render("signer", { name: "acme-fx", coreRange: "^0.1.0" }).map((f) => f.path), [
      "src/AcmeFxSigner.ts",
      "src/index.ts",
      "test/AcmeFxSigner.test.ts"
    ])
    assert.include(pricing.find((f) => f.path === "src/index.ts")!.content, "Config.Int(\"ACME_FX_MARKUP_BPS\")")
    for (const bad of ["", "Acme", "acme_fx", "-acme", "1acme"]) {
      assert.throws(() => render("pricing", { name: bad, coreRange: "^0.1.0" }), /plug-in name/)
    }
  })

  it("a kind it does not know: the kinds it knows, exit 2", async () => {
    const r = await svc(["new-plugin", "market", "acme"])
    assert.strictEqual(r.code, 2, r.stderr)
    assert.include(
      r.stderr,
      `Invalid value for argument <kind>: "market". Expected: "connector" | "pricing" | "store" | "signer"`
    )
  }, 60_000)

  it(
    "generates pricing, store and signer packages outside the repository that pass their tests; svc serve loads them by SVC_PRICING, SVC_STORE and SVC_SIGNER_PLUGIN",
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
        for (const kind of ["pricing", "store", "signer"]) {
          const generated = await run([BIN, "new-plugin", kind, "acme"], base)
          assert.strictEqual(generated.status, 0, generated.output)
        }
        const pricing = join(base, "pricing-acme")
        const store = join(base, "store-acme")
        const signer = join(base, "signer-acme")
        assert.strictEqual(JSON.parse(readFileSync(join(pricing, "package.json"), "utf8")).name, "svc-pricing-acme")

        // both compile (one compiler run, with the packages' own options), and their suites pass (one vitest run)
        const tsconfig = JSON.parse(readFileSync(join(store, "tsconfig.json"), "utf8"))
        writeFileSync(
          join(base, "tsconfig.json"),
          JSON.stringify({
            ...tsconfig,
            include: ["pricing-acme", "store-acme", "signer-acme"].flatMap((d) => [`${d}/src`, `${d}/test`])
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
        assert.match(tested.output, /Test Files\s+\S*\s*3 passed/)

        // built and installed next to the configuration, SVC_PRICING and SVC_STORE name their folders
        for (const pkg of [pricing, store, signer]) {
          const built = await run([
            join(ROOT, "node_modules/typescript/bin/tsc"),
            "-p",
            join(pkg, "tsconfig.build.json")
          ], base)
          assert.strictEqual(built.status, 0, built.output)
        }
        link("svc-pricing-acme", pricing)
        link("svc-store-acme", store)
        link("svc-signer-acme", signer)
        // anvil's first account: a well-known test key
        writeFileSync(
          join(base, "authority.key"),
          "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80\n"
        )
        const served = await serve(base, {
          SVC_PRICING: "./node_modules/svc-pricing-acme",
          ACME_MARKUP_BPS: "100",
          SVC_STORE: "./node_modules/svc-store-acme",
          ACME_STORE_FILE: join(base, "acme.sqlite"),
          SVC_SIGNER_PLUGIN: "./node_modules/svc-signer-acme",
          ACME_SIGNER_KEY_FILE: join(base, "authority.key"),
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
        // the signer plug-in's key is the authority
        assert.include(served.output, "svc authority 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n")

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
