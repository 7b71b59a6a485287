import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { GROUPS } from "../src/Check.ts"
import * as Registry from "../src/Registry.ts"
import type { Report } from "../src/Report.ts"
import * as Reporters from "../src/Reporters.ts"
import * as Runner from "../src/Runner.ts"
import * as RunOptions from "../src/RunOptions.ts"
import { cli } from "./support/cli.ts"

const errorOf = (exit: { _tag: string; cause?: unknown }) => JSON.stringify(exit)

describe("the command line", () => {
  it.effect("bad input is refused before any request: no --url, a bad URL, an unknown group, a bad key", () =>
    Effect.gen(function*() {
      for (
        const [args, message] of [
          [[], "--url is required"],
          [["--url", "ftp://x"], "is not an http(s) URL"],
          [["--url", "http://127.0.0.1:1", "--only", "feeds"], "unknown group or check: feeds"],
          [["--url", "http://127.0.0.1:1", "--wallet-key", "0x12"], "--wallet-key must be"],
          [["--url", "http://127.0.0.1:1", "--signer", "nobody"], "--signer must be an address"],
          [["--url", "http://127.0.0.1:1", "--report", "xml=out.xml"], "is not junit=PATH"],
          [["--url", "http://127.0.0.1:1", "--rpc", "http://127.0.0.1:8545"], "expected <chainId>=<url>"],
          [["--url", "http://127.0.0.1:1", "--rpc", "base=http://127.0.0.1:8545"], "expected <chainId>=<url>"],
          [["--url", "http://127.0.0.1:1", "--rpc", "0=http://127.0.0.1:8545"], "expected <chainId>=<url>"],
          [["--url", "http://127.0.0.1:1", "--rpc", "8453=ws://127.0.0.1:8545"], "is not an http(s) URL"],
          [
            ["--url", "http://127.0.0.1:1", "--rpc", "8453=http://127.0.0.1:1", "--rpc", "8453=http://127.0.0.1:2"],
            "chain 8453 is given more than once"
          ],
          [
            ["--url", "http://127.0.0.1:1", "--rpc", "8453=http://127.0.0.1:1", "--execute"],
            "--execute needs --wallet-key"
          ],
          [
            ["--url", "http://127.0.0.1:1", "--execute", "--wallet-key", `0x${"11".repeat(32)}`],
            "--execute needs --rpc"
          ],
          [["--url", "http://127.0.0.1:1", "--execute-timeout", "0"], "--execute-timeout must be"],
          [["--url", "http://127.0.0.1:1", "--wallets", "1"], "--wallets must be between 2 and 64"],
          [["--url", "http://127.0.0.1:1", "--wait", "0"], "--wait must be a positive number"],
          [["--url", "http://127.0.0.1:1", "--stateful-runs", "0"], "--stateful-runs must be between 1 and 1000"],
          [["proxy"], "--upstream is required"],
          [["proxy", "--upstream", "ftp://x"], "--upstream"],
          [["proxy", "--upstream", "http://127.0.0.1:1", "--listen", "8788"], "expected HOST:PORT"],
          [["proxy", "--upstream", "http://127.0.0.1:1", "--forward-header", "a b"], "--forward-header must be"],
          [["proxy", "--upstream", "http://127.0.0.1:1", "--requests", "0"], "--requests must be at least 1"]
        ] as const
      ) {
        const { exit } = yield* cli(args)
        assert.strictEqual(exit._tag, "Failure")
        assert.include(errorOf(exit), "Bad", `${args.join(" ")}`)
        assert.include(errorOf(exit), message)
      }
    }))

  it.effect("list names every check by group", () =>
    Effect.gen(function*() {
      const { exit, text } = yield* cli(["list"])
      assert.strictEqual(exit._tag, "Success")
      for (const check of Registry.all) assert.include(text, check.name)
      for (const group of GROUPS) assert.include(text, `${group}: `)
      assert.include(text, "chain_execute_fill [creates a permit] [needs --rpc] [needs --execute]")
    }))

  it.effect("an unreachable deployment stops the run at once: one line, exit 2, no check judged", () =>
    Effect.gen(function*() {
      // a port that was just free: nothing listens there
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const probe = createServer()
          probe.listen(0, "127.0.0.1", () => {
            const address = probe.address()
            probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
          })
        })
      )
      const { exit, text } = yield* cli(["--url", `http://127.0.0.1:${port}`, "--timeout", "2"])
      assert.include(errorOf(exit), "Bad")
      assert.match(
        errorOf(exit),
        new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\); is the server running`)
      )
      assert.strictEqual(text, "", "no run was printed: no check passed or failed on no response")
    }))

  it.effect("replay of a report without failures has nothing to do (a V1 report, without warnings, is read too)", () =>
    Effect.gen(function*() {
      const file = `${process.env.TMPDIR ?? "/tmp"}/svc-conformance-empty-${process.pid}.json`
      // the first report format: no warning verdict, no warnings in the results
      const report = {
        schema: "SVC_CONFORMANCE_REPORT_V1",
        tool: { name: "svc-conformance", version: Runner.VERSION },
        baseUrl: "http://127.0.0.1:9",
        startedAt: new Date().toISOString(),
        durationMs: 1,
        options: {
          only: [],
          skip: [],
          seed: 1,
          maxExamples: 1,
          timeoutSeconds: 1,
          readOnly: false,
          wallet: "0x0000000000000000000000000000000000000000"
        },
        summary: { passed: 1, failed: 0, inconclusive: 0, skipped: 0, total: 1 },
        groups: { discovery: { passed: 1, failed: 0, inconclusive: 0, skipped: 0 } },
        results: [{
          name: "discovery_solver_manifest",
          group: "discovery",
          title: "",
          reference: "",
          status: "passed",
          durationMs: 1,
          failures: [],
          notes: []
        }]
      }
      yield* Effect.promise(() => import("node:fs/promises").then((fs) => fs.writeFile(file, JSON.stringify(report))))
      const { exit, text } = yield* cli(["replay", file])
      assert.strictEqual(exit._tag, "Success")
      assert.include(text, "nothing to replay")
      const junk = yield* cli(["replay", "/nonexistent/report.json"])
      assert.include(errorOf(junk.exit), "cannot read")
    }))
})

describe("the package's executable", () => {
  it("npx @svc/conformance runs svc-conformance: the package's only bin, in the repository and as published", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
    // npm exec runs a package's only bin whatever its name (with several, the one named like the package)
    assert.deepStrictEqual(Object.keys(pkg.bin), ["svc-conformance"])
    assert.deepStrictEqual(pkg.publishConfig.bin, { "svc-conformance": "./dist/bin.js" })
    const source = readFileSync(new URL("../src/bin.ts", import.meta.url), "utf8")
    assert.isTrue(source.startsWith("#!/usr/bin/env node\n"), "the bin starts with its interpreter line")
    // the build emits dist/bin.js from src/bin.ts, and the published files include dist
    const build = JSON.parse(readFileSync(new URL("../tsconfig.build.json", import.meta.url), "utf8"))
    assert.deepStrictEqual([build.compilerOptions.rootDir, build.compilerOptions.outDir], ["src", "dist"])
    assert.include(pkg.files, "dist")
  })
})

describe("registry and reports", () => {
  it("check names are unique snake_case, every group has checks, every check says what and why", () => {
    assert.strictEqual(new Set(Registry.all.map((c) => c.name)).size, Registry.all.length)
    for (const g of GROUPS) assert.isAbove(Registry.all.filter((c) => c.group === g).length, 0, g)
    for (const c of Registry.all) {
      assert.match(c.name, /^[a-z][a-z0-9_]*$/)
      assert.isAbove(c.title.length, 10, c.name)
      assert.isAbove(c.reference.length, 5, c.name)
    }
    assert.throws(() => Registry.make([Registry.all[0]!, Registry.all[0]!]), /duplicate check name/)
  })

  it("selection: --only and --skip take groups or names; --read-only skips what can create a permit", () => {
    const plan = Runner.plan(Registry.all, {
      only: ["permits", "feed_hash"],
      skip: ["permit_create_201"],
      readOnly: true
    })
    const names = plan.map((e) => e.check.name)
    assert.include(names, "feed_hash")
    assert.notInclude(names, "permit_create_201")
    assert.notInclude(names, "feed_signature")
    for (const e of plan) assert.strictEqual(e.skip !== undefined, e.check.createsPermit)
    assert.deepStrictEqual(Runner.unknownSelectors(Registry.all, ["feed", "feed_hash", "nope"]), ["nope"])
  })

  it("the chain group needs --rpc, and the fill --execute: without them they are planned as skipped, saying so", () => {
    const chain = Registry.all.filter((c) => c.group === "chain")
    assert.isAbove(chain.length, 0)
    const base = { only: ["chain"], skip: [], readOnly: false }
    for (const e of Runner.plan(Registry.all, base)) assert.match(e.skip ?? "", /^needs --rpc/, e.check.name)
    const rpc = [{ chainId: 8453, url: "http://127.0.0.1:8545" }]
    const withRpc = Runner.plan(Registry.all, { ...base, rpc })
    assert.deepStrictEqual(
      withRpc.filter((e) => e.skip !== undefined).map((e) => [e.check.name, e.skip]),
      [["chain_execute_fill", "needs --execute (one real fill, with a funded --wallet-key)"]]
    )
    assert.isTrue(Runner.plan(Registry.all, { ...base, rpc, execute: true }).every((e) => e.skip === undefined))
    // --read-only wins: nothing that creates a permit runs
    const readOnly = Runner.plan(Registry.all, { ...base, readOnly: true, rpc, execute: true })
    for (const e of readOnly) assert.strictEqual(e.skip !== undefined, e.check.createsPermit, e.check.name)
  })

  it("--rpc values parse into chain ids and URLs", () => {
    assert.deepStrictEqual(RunOptions.parseRpc(["8453=http://127.0.0.1:8545", " 56 = https://rpc.example/k?x=1 "]), {
      endpoints: [{ chainId: 8453, url: "http://127.0.0.1:8545" }, {
        chainId: 56,
        url: "https://rpc.example/k?x=1"
      }]
    })
    assert.deepStrictEqual(RunOptions.parseRpc([]), { endpoints: [] })
    for (
      const bad of [
        "8453",
        "=http://x",
        "8453=",
        "-1=http://x",
        "08453=http://x",
        "1e3=http://x",
        "9007199254740993=http://x"
      ]
    ) {
      assert.isTrue("error" in RunOptions.parseRpc([bad]), bad)
    }
  })

  it("--report targets parse; JUnit escapes and counts", () => {
    assert.deepStrictEqual(Reporters.parseTargets("junit=a.xml,json=b.json,ndjson=c.ndjson"), {
      targets: { junit: "a.xml", json: "b.json", ndjson: "c.ndjson" }
    })
    assert.isTrue("error" in Reporters.parseTargets("junit"))
    const report: Report = {
      schema: "SVC_CONFORMANCE_REPORT_V2",
      tool: { name: "svc-conformance", version: "0" },
      baseUrl: "http://x",
      startedAt: "2026-11-22T00:00:00.000Z",
      durationMs: 10,
      options: { only: [], skip: [], seed: 1, maxExamples: 1, timeoutSeconds: 1, readOnly: false, wallet: "0x" },
      summary: { passed: 1, failed: 1, warning: 1, inconclusive: 1, skipped: 0, total: 4 },
      groups: { feed: { passed: 1, failed: 1, warning: 1, inconclusive: 1, skipped: 0 } },
      results: [
        {
          name: "a",
          group: "feed",
          title: "t",
          reference: "r",
          status: "passed",
          durationMs: 1,
          failures: [],
          warnings: [],
          notes: []
        },
        {
          name: "b",
          group: "feed",
          title: "t",
          reference: "r",
          status: "failed",
          durationMs: 1,
          failures: [{ title: "x < y & \"z\"", expected: "1", actual: "2", curl: "curl -sS 'http://x'" }],
          warnings: [],
          notes: []
        },
        {
          name: "c",
          group: "feed",
          title: "t",
          reference: "r",
          status: "inconclusive",
          durationMs: 1,
          reason: "no publication",
          failures: [],
          warnings: [],
          notes: []
        },
        {
          name: "d",
          group: "feed",
          title: "t",
          reference: "r",
          status: "warning",
          durationMs: 1,
          failures: [],
          warnings: [{ title: "text/plain & <accepted>", expected: "400", actual: "200" }],
          notes: []
        }
      ]
    }
    const xml = Reporters.junit(report)
    assert.include(xml, "<testsuite name=\"feed\" tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\"")
    // a warning passes in JUnit (which has no warning), with its departures in system-err
    assert.include(xml, `<property name="verdict" value="warning"/>`)
    assert.include(xml, "WARNING d (feed): t")
    assert.include(xml, "text/plain &amp; &lt;accepted&gt;")
    assert.include(xml, "message=\"x &lt; y &amp; &quot;z&quot;\"")
    assert.include(xml, "<skipped message=\"inconclusive: no publication\"/>")
    assert.include(Reporters.summaryTable(report), "total")
  })
})
