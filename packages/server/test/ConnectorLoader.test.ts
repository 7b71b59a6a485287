/**
 * Connector packages chosen by configuration: resolution of a package's root
 * entry, the checks on the configured list, and loading plain-JavaScript
 * packages installed next to the configuration (a third party's connector, a
 * package without a plug-in, one whose registration fails or throws).
 */
import { assert, describe, it } from "@effect/vitest"
import { Connector } from "@svc/core"
import { Ids } from "@svc/protocol"
import { Cause, Effect, Exit } from "effect"
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as ConnectorLoader from "../src/ConnectorLoader.ts"
import * as Server from "../src/Server.ts"
import { demoCatalog, testConfig } from "./support/server.ts"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))

describe("ConnectorLoader.exportsTarget", () => {
  it("takes the root entry under node / import / default, in document order", () => {
    assert.strictEqual(ConnectorLoader.exportsTarget("./a.js"), "./a.js")
    assert.strictEqual(ConnectorLoader.exportsTarget({ ".": "./a.js", "./b": "./b.js" }), "./a.js")
    assert.strictEqual(ConnectorLoader.exportsTarget({ ".": { require: "./a.cjs", import: "./a.mjs" } }), "./a.mjs")
    assert.strictEqual(
      ConnectorLoader.exportsTarget({ types: "./a.d.ts", node: { import: "./n.mjs" }, default: "./d.js" }),
      "./n.mjs"
    )
    assert.strictEqual(ConnectorLoader.exportsTarget({ default: "./d.js", import: "./i.js" }), "./d.js")
    assert.strictEqual(ConnectorLoader.exportsTarget([{ browser: "./b.js" }, "./fallback.js"]), "./fallback.js")
    assert.isUndefined(ConnectorLoader.exportsTarget({ require: "./a.cjs" }))
    assert.isUndefined(ConnectorLoader.exportsTarget({ "./sub": "./s.js" }))
    assert.isUndefined(ConnectorLoader.exportsTarget({ ".": null }))
  })

  it("checks the configured list", () => {
    assert.isUndefined(
      ConnectorLoader.validateNames(["@svc/connector-evm", "svc-connector-zeta", "./local", "/abs/path"])
    )
    assert.include(ConnectorLoader.validateNames([]), "at least one")
    assert.include(ConnectorLoader.validateNames(["Bad Name"]), "not a package name")
    assert.include(ConnectorLoader.validateNames(["@svc/connector-evm", "@svc/connector-evm"]), "named twice")
  })
})

/** An ECHO-family connector in plain JavaScript, as a third party would publish it. */
const ECHO_PLUGIN = `
import { Connector } from "@svc/core"
import { Effect, Result } from "effect"
import { createHash } from "node:crypto"

const refuse = (code, message) => Result.fail(new Connector.ConnectorError({ code, message }))
const hex32 = (text) => "0x" + createHash("sha256").update(text).digest("hex")
const ACCOUNT = /^echo:[a-z0-9]{1,32}$/

export const make = () => Connector.make({
  family: "ECHO",
  capabilities: { payer: false, recipient: true, payout: false, payoutNote: "echo accounts are never paid" },
  proofSchemes: [],
  networkReference: (native) => typeof native === "string" && /^echo-[0-9]+$/.test(native)
    ? Result.succeed(hex32(native)) : refuse("NETWORK_REFERENCE_INVALID", "an echo network is echo-<n>"),
  parseAsset: (input) => typeof input === "object" && input !== null && typeof input.symbol === "string"
    ? Result.succeed({ locator: { symbol: input.symbol }, reference: hex32("asset:" + input.symbol), address: null })
    : refuse("ASSET_INVALID", "an echo asset is {symbol}"),
  parseLocator: (input) => {
    const value = typeof input === "string" ? input : typeof input === "object" && input !== null ? input.native : undefined
    return typeof value === "string" && ACCOUNT.test(value) ? Result.succeed({ native: value }) : refuse("LOCATOR_INVALID", "echo:<name>")
  },
  renderLocator: (locator) => String(locator.native),
  accountReference: (locator) => Result.succeed(hex32(String(locator.native))),
  evmAddress: () => null,
  verifyOwnership: () => Effect.fail(new Connector.ConnectorError({ code: "PAYER_NOT_SUPPORTED", message: "recipients only" }))
})

export default Connector.plugin("@acme/svc-connector-echo", (context) =>
  context.networks.some((n) => n.vm === "ECHO")
    ? Effect.succeed(make())
    : Effect.fail(new Connector.PluginError({ message: "ECHO_NETWORKS: the catalog has no ECHO network" })))
`

/** A working directory with packages installed in its node_modules (the workspace's core and effect linked in). */
const installDir = (packages: Record<string, Record<string, string>>) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "svc-connector-loader-")))
  const link = (name: string, target: string) => {
    mkdirSync(dirname(join(dir, "node_modules", name)), { recursive: true })
    symlinkSync(realpathSync(target), join(dir, "node_modules", name))
  }
  link("@svc/core", join(ROOT, "packages/core"))
  link("effect", join(ROOT, "node_modules/effect"))
  for (const [name, files] of Object.entries(packages)) {
    for (const [path, content] of Object.entries(files)) {
      const file = join(dir, "node_modules", name, path)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, content)
    }
  }
  return dir
}

const manifest = (name: string, exports: unknown) => JSON.stringify({ name, type: "module", version: "1.0.0", exports })

const echoCatalog = (() => {
  const doc = JSON.parse(JSON.stringify(demoCatalog))
  doc.networks.push({
    key: "echo",
    name: "Echo",
    vm: "ECHO",
    native: "echo-7",
    vault: { native: "echo:vault" },
    finalityBlocks: 1
  })
  return doc
})()

const failure = <A, E>(exit: Exit.Exit<A, E>) => (Exit.isFailure(exit) ? String(Cause.squash(exit.cause)) : "")

describe("ConnectorLoader.load", () => {
  const dir = installDir({
    "@acme/svc-connector-echo": {
      "package.json": manifest("@acme/svc-connector-echo", { ".": { types: "./index.d.ts", import: "./index.js" } }),
      "index.js": ECHO_PLUGIN
    },
    "no-plugin": { "package.json": manifest("no-plugin", "./index.js"), "index.js": "export default 42\n" },
    "require-only": {
      "package.json": manifest("require-only", { require: "./index.cjs" }),
      "index.cjs": "module.exports = {}\n"
    },
    "throws": {
      "package.json": manifest("throws", "./index.js"),
      "index.js":
        "export default { _tag: \"ConnectorPlugin\", name: \"throws\", register: () => { throw new Error(\"boom\") } }\n"
    }
  })
  writeFileSync(join(dir, "local-plugin.js"), ECHO_PLUGIN)

  it.effect("registers a third-party package installed in the working directory, after the built-in ones", () =>
    Effect.gen(function*() {
      const config = testConfig({
        connectors: ["@svc/connector-evm", "@svc/connector-solana", "@acme/svc-connector-echo"]
      })
      const registrations = yield* Server.connectors(config, echoCatalog, { cwd: join(dir, "node_modules") })
      const families = registrations.map((r) => ("family" in r ? r.family : r.connector.family))
      assert.deepStrictEqual(families, ["EVM", "SVM", "ECHO"])
      const echo = registrations[2] as Connector.Connector
      assert.strictEqual(echo.vmType, Ids.vmType("ECHO"))
      assert.isTrue(echo.parseLocator("echo:alice")._tag === "Success")
    }))

  it.effect("a path names a module file relative to the working directory", () =>
    Effect.gen(function*() {
      const registrations = yield* Server.connectors(testConfig({ connectors: ["./local-plugin.js"] }), echoCatalog, {
        cwd: dir
      })
      assert.strictEqual((registrations[0] as Connector.Connector).family, "ECHO")
    }))

  it.effect("one-line start-up errors name the package and what to fix", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, unknown, string]> = [
        [
          "@acme/not-installed",
          echoCatalog,
          `SVC_CONNECTORS: @acme/not-installed: not installed (no node_modules/@acme/not-installed above ${dir})`
        ],
        ["no-plugin", echoCatalog, "SVC_CONNECTORS: no-plugin: its default export is not a connector plug-in"],
        ["require-only", echoCatalog, "exports no root entry for import"],
        ["./missing.js", echoCatalog, `SVC_CONNECTORS: ./missing.js: ${join(dir, "missing.js")} does not exist`],
        ["throws", echoCatalog, "throws: registration failed: boom"],
        [
          "@acme/svc-connector-echo",
          demoCatalog,
          "@acme/svc-connector-echo: ECHO_NETWORKS: the catalog has no ECHO network"
        ]
      ]
      for (const [name, catalog, expected] of cases) {
        const exit = yield* Effect.exit(Server.connectors(testConfig({ connectors: [name] }), catalog, { cwd: dir }))
        const message = failure(exit)
        assert.include(message, expected, name)
        assert.notInclude(message, "\n", "one line")
      }
    }))

  it.effect("the built-in connectors resolve from the server's own dependencies", () =>
    Effect.gen(function*() {
      const registrations = yield* Server.connectors(testConfig(), demoCatalog, { cwd: tmpdir() })
      assert.deepStrictEqual(registrations.map((r) => ("family" in r ? r.family : r.connector.family)), ["EVM", "SVM"])
    }))
})
