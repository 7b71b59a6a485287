/**
 * `svc new-connector`: the generated package compiles and runs the connector
 * testkit, failing where the author must fill in; with the code of the
 * docs/connectors.md walkthrough written into it, it compiles and passes.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@svc/protocol"
import { Effect, Exit } from "effect"
import { spawn } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { scaled } from "../../../test/support/time.ts"
import { pascalCase, render, write } from "../src/NewConnector.ts"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const NODE = process.execPath
const BIN = join(ROOT, "packages/cli/src/bin.ts")

/** The environment of a child process, without the variables of this vitest run. */
const childEnv = () => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "NODE_OPTIONS" && k !== "FORCE_COLOR")
  ),
  NO_COLOR: "1"
})

/** Runs `node args` in `cwd` to its end (without blocking this process: a time-out can still stop the test). */
const run = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ status: number | null; stdout: string; stderr: string; output: string }>((resolve) => {
    const child = spawn(NODE, args, {
      cwd,
      env: childEnv(),
      stdio: ["ignore", "pipe", "pipe"],
      timeout: scaled(120_000)
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.once("close", (status) => resolve({ status, stdout, stderr, output: `${stdout}${stderr}` }))
  })

/** The code blocks of docs/connectors.md marked `file=<path>`. */
const walkthroughFiles = (): ReadonlyArray<{ path: string; content: string }> => {
  const doc = readFileSync(join(ROOT, "docs/connectors.md"), "utf8")
  return [...doc.matchAll(/```ts file=(\S+)\n([\s\S]*?)\n```/g)].map((m) => ({ path: m[1]!, content: `${m[2]}\n` }))
}

/** The demo catalog with a Zeta network, asset and route (usdc.base -> uzeta.zeta). */
const zetaCatalog = () => {
  const doc = JSON.parse(readFileSync(join(ROOT, "packages/server/catalog/demo.json"), "utf8"))
  doc.networks.push({
    key: "zeta",
    name: "Zeta",
    vm: "ZETA",
    native: "zeta-1",
    vault: { native: `zeta1${"ab".repeat(32)}` },
    finalityBlocks: 1
  })
  doc.assets.push({
    key: "uzeta.zeta",
    network: "zeta",
    symbol: "ZETA",
    decimals: 6,
    locator: { denom: "uzeta" },
    inventoryRaw: "2000000000000"
  })
  const template = doc.routes.find((r: { destination: string }) => r.destination === "usdc.solana")
  doc.routes.push({ ...template, destination: "uzeta.zeta", publicationRank: template.publicationRank + 100 })
  return doc
}

/** Runs `svc serve` in `cwd` until it listens (then reads the feed's routes and stops it) or exits. */
const serve = (cwd: string, env: Record<string, string>) =>
  new Promise<{ url?: string; routes: ReadonlyArray<any>; code: number | null; output: string }>((resolve) => {
    const child = spawn(NODE, [BIN, "serve"], {
      cwd,
      env: { ...childEnv(), PORT: "0", SVC_DATA_DIR: join(cwd, "data"), SVC_LOG_LEVEL: "warning", ...env },
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

describe("svc new-connector", () => {
  it("renders the connector package layout with the names filled in", () => {
    const files = render({ name: "my-chain", coreRange: "workspace:^" })
    assert.deepStrictEqual(files.map((f) => f.path), [
      "README.md",
      "package.json",
      "src/MyChainConnector.ts",
      "src/MyChainLocator.ts",
      "src/MyChainOwnershipProof.ts",
      "src/index.ts",
      "test/MyChainConnector.conformance.test.ts",
      "test/utils.ts",
      "tsconfig.build.json",
      "tsconfig.json",
      "vitest.config.ts"
    ])
    for (const f of files) {
      assert.notMatch(f.content, /__(?:name|Name|FAMILY|package|core_range|exports)__/, f.path)
    }
    const pkg = JSON.parse(files.find((f) => f.path === "package.json")!.content)
    assert.strictEqual(pkg.name, "@svc/connector-my-chain")
    assert.strictEqual(pkg.peerDependencies["@svc/core"], "workspace:^")
    // a standalone package exports its compiled files; one inside the workspace its sources, publishing dist
    assert.deepStrictEqual(pkg.exports["."], { types: "./dist/index.d.ts", default: "./dist/index.js" })
    const inside = JSON.parse(
      render({ name: "my-chain", coreRange: "workspace:^", exportsFrom: "source" }).find((f) =>
        f.path === "package.json"
      )!.content
    )
    assert.strictEqual(inside.exports["."], "./src/index.ts")
    assert.deepStrictEqual(inside.publishConfig.exports["."], pkg.exports["."])
    assert.include(
      files.find((f) => f.path === "src/MyChainConnector.ts")!.content,
      "export const FAMILY = \"MYCHAIN\""
    )
    assert.strictEqual(pascalCase("zeta"), "Zeta")
    assert.strictEqual(
      JSON.parse(
        render({ name: "zeta", family: "ZT", packageName: "zeta-svc", coreRange: "^0.1.0" }).find((f) =>
          f.path === "package.json"
        )!.content
      ).name,
      "zeta-svc"
    )
    for (const bad of ["", "Zeta", "zeta_net", "-zeta", "zeta-", "1zeta", "a".repeat(41)]) {
      assert.throws(() => render({ name: bad, coreRange: "^0.1.0" }), /connector name/)
    }
    assert.throws(() => render({ name: "zeta", family: "zeta", coreRange: "^0.1.0" }), /family/)
  })

  it.effect("writes the files and refuses an existing folder", () =>
    Effect.gen(function*() {
      const dir = join(realpathSync(mkdtempSync(join(tmpdir(), "svc-new-connector-"))), "connector-eta")
      const written = yield* write(dir, { name: "eta", coreRange: "^0.1.0" })
      assert.strictEqual(written.length, 11)
      assert.include(
        readFileSync(join(dir, "src/EtaLocator.ts"), "utf8"),
        "ETA connector: ${what} is not implemented yet"
      )
      const again = yield* Effect.exit(write(dir, { name: "eta", coreRange: "^0.1.0" }))
      assert.isTrue(Exit.isFailure(again))
      rmSync(dirname(dir), { recursive: true, force: true })
    }).pipe(Effect.provide(NodeServices.layer)))

  it(
    "generates a package that compiles and fails the testkit; the walkthrough's code makes it pass; svc serve loads it",
    async () => {
      const base = realpathSync(mkdtempSync(join(tmpdir(), "svc-new-connector-")))
      try {
        // the dependencies an installed package would have, linked from this workspace
        const link = (name: string, target: string) => {
          mkdirSync(dirname(join(base, "node_modules", name)), { recursive: true })
          symlinkSync(realpathSync(target), join(base, "node_modules", name))
        }
        link("@svc/core", join(ROOT, "packages/core"))
        link("@svc/protocol", join(ROOT, "packages/protocol"))
        for (const name of ["effect", "vitest", "fast-check", "@effect/vitest"]) {
          link(name, join(ROOT, "node_modules", name))
        }
        link("@noble/curves", join(ROOT, "packages/core/node_modules/@noble/curves"))

        // two copies: the skeleton as generated, and the skeleton with the walkthrough's code
        const skeleton = join(base, "skeleton")
        const filled = join(base, "filled")
        const created = await run([BIN, "new-connector", "zeta", "--dir", skeleton], base)
        assert.strictEqual(created.status, 0, created.output)
        // standard output: one JSON value; standard error: the summary a person reads
        const generated = JSON.parse(created.stdout)
        assert.strictEqual(generated.created, skeleton)
        assert.strictEqual(generated.files.length, 11)
        assert.deepStrictEqual(created.stderr.trimEnd().split("\n"), [
          `created the connector package svc-connector-zeta in skeleton (11 files)`,
          "next:",
          ...generated.next.map((step: string, i: number) => `  ${i + 1}. ${step}`)
        ])
        assert.strictEqual(generated.next[0], "cd skeleton")
        cpSync(skeleton, filled, { recursive: true })
        const files = walkthroughFiles()
        assert.deepStrictEqual(files.map((f) => f.path).sort(), [
          "src/ZetaConnector.ts",
          "src/ZetaLocator.ts",
          "src/ZetaOwnershipProof.ts",
          "test/utils.ts"
        ])
        for (const f of files) writeFileSync(join(filled, f.path), f.content)

        // both compile (one compiler run over the two packages, with each package's own options)
        const tsconfig = JSON.parse(readFileSync(join(skeleton, "tsconfig.json"), "utf8"))
        writeFileSync(
          join(base, "tsconfig.json"),
          JSON.stringify({ ...tsconfig, include: ["skeleton/src", "skeleton/test", "filled/src", "filled/test"] })
        )
        const compiled = await run(
          [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(base, "tsconfig.json")],
          base
        )
        assert.strictEqual(compiled.status, 0, `the skeleton and the walkthrough compile:\n${compiled.output}`)

        // one vitest run over the two testkit suites
        writeFileSync(
          join(base, "vitest.config.ts"),
          `export default { test: { include: ["*/test/**/*.test.ts"], testTimeout: 60000 } }\n`
        )
        const results = join(base, "results.json")
        const tested = await run([
          join(ROOT, "node_modules/vitest/vitest.mjs"),
          "run",
          "--root",
          base,
          "--reporter",
          "json",
          "--outputFile",
          results
        ], base)
        assert.strictEqual(tested.status, 1, "the skeleton's suite fails")
        const report = JSON.parse(readFileSync(results, "utf8")) as {
          testResults: ReadonlyArray<
            {
              name: string
              assertionResults: ReadonlyArray<{ title: string; status: string; failureMessages: ReadonlyArray<string> }>
            }
          >
        }
        const of = (dir: string) => report.testResults.find((r) => r.name.startsWith(dir))!.assertionResults
        const status = (dir: string, title: string) => of(dir).find((a) => a.title === title)?.status
        assert.strictEqual(of(skeleton).length, 19)
        assert.strictEqual(status(skeleton, "identity: family, vmType and capabilities"), "passed")
        assert.strictEqual(status(skeleton, "locators: the canonical form is a fixed point"), "failed")
        assert.strictEqual(
          status(skeleton, "proofs: a proof by the owner over the exact permit message verifies"),
          "failed"
        )
        assert.isTrue(of(skeleton).some((a) => a.failureMessages.some((m) => m.includes("is not implemented yet"))))
        assert.strictEqual(of(filled).length, 19)
        const failing = of(filled).filter((a) => a.status !== "passed")
        assert.deepStrictEqual(
          failing.map((a) => `${a.title}: ${a.failureMessages.join(" ").slice(0, 300)}`),
          [],
          "the walkthrough passes the testkit"
        )

        // `svc serve` loads the built package from configuration: installed next to the catalog, named in
        // SVC_CONNECTORS (outside the workspace the package is svc-connector-zeta and exports dist/)
        const built = await run(
          [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(filled, "tsconfig.build.json")],
          base
        )
        assert.strictEqual(built.status, 0, built.output)
        link("svc-connector-zeta", filled)
        const catalog = join(base, "catalog.json")
        writeFileSync(catalog, JSON.stringify(zetaCatalog()))
        const withZeta = await serve(base, {
          SVC_CATALOG: catalog,
          SVC_CONNECTORS: "@svc/connector-evm,@svc/connector-solana,svc-connector-zeta"
        })
        assert.isDefined(withZeta.url, withZeta.output)
        const zetaNetwork = Ids.networkId(Ids.vmType("ZETA"), Ids.label("zeta-1"))
        const route = withZeta.routes.find((r: { destinationNetworkId: string }) =>
          r.destinationNetworkId === zetaNetwork
        )
        assert.isDefined(route, "the route to the Zeta network is published")
        assert.strictEqual(route.permitAvailable, true, "open in the demo profile (Zeta cannot pay out)")
        // without the package the catalog's Zeta network cannot be resolved: a one-line start-up error
        const withoutZeta = await serve(base, {
          SVC_CATALOG: catalog,
          SVC_CONNECTORS: "@svc/connector-evm,@svc/connector-solana"
        })
        assert.isUndefined(withoutZeta.url)
        assert.notStrictEqual(withoutZeta.code, 0)
        assert.include(withoutZeta.output, "no connector is registered for ZETA networks")
      } finally {
        rmSync(base, { recursive: true, force: true })
      }
    },
    scaled(300_000)
  )
})
