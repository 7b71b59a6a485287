/**
 * The packages as a stranger gets them: `npm run pack`'s tarballs installed with
 * npm into a project outside the repository, then used the three ways svc is
 * used, with nothing from the workspace:
 *
 * - a plain `.mjs` imports @svc/core and @svc/client and verifies a feed served
 *   by a server started from the installed @svc/server (Node, no loader, no flags);
 * - `npx svc conformance --url` passes against `npx svc serve`;
 * - `npx svc new-connector acme` generates a connector whose tests run against
 *   the installed testkit (the skeleton fails where the author must fill in; with
 *   the docs/connectors.md walkthrough's code it passes);
 * - `npx svc new-plugin pricing acme` generates a pricing plug-in that passes the
 *   installed pricing suite and prices the feed of `npx svc serve` (SVC_PRICING);
 * - `npx svc new-solver` generates a solver project whose test passes and which starts.
 *
 * Slow (a build, an npm install from the registry and a few processes): about a
 * minute and a half.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { pack } from "../scripts/pack.ts"
import { ROOT } from "../scripts/packages.ts"
import { scaled } from "./support/time.ts"

const rootManifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>
}

/** The environment of the project: the workspace's Node 24 first on PATH, nothing of this vitest run. */
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([k]) =>
      !k.startsWith("VITEST") && !k.startsWith("npm_") && k !== "NODE_OPTIONS" && k !== "FORCE_COLOR"
    )
  ),
  PATH: `${join(ROOT, "node_modules/.bin")}${delimiter}${process.env.PATH ?? ""}`,
  NO_COLOR: "1",
  ...extra
})

let project = ""
let tarballs: ReadonlyArray<string> = []

const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { cwd?: string; env?: Record<string, string> } = {}
) => {
  const r = spawnSync(command, args, {
    cwd: options.cwd ?? project,
    env: env(options.env),
    encoding: "utf8",
    timeout: scaled(240_000)
  })
  return {
    status: r.status,
    stdout: r.stdout ?? "",
    output: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error?.message ?? ""}`
  }
}

/**
 * Starts an installed bin (`node_modules/.bin/<name>`, the process itself, so that it gets the signals)
 * and resolves with what its output matching `ready` captured.
 */
const start = (args: ReadonlyArray<string>, ready: RegExp, extra: Record<string, string>) =>
  new Promise<{ child: ChildProcess; match: RegExpExecArray }>((resolve, reject) => {
    const [bin, ...rest] = args
    const child = spawn(join(project, "node_modules/.bin", bin!), rest, {
      cwd: project,
      env: env(extra),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${args.join(" ")} did not get ready: ${out}`))
    }, scaled(60_000))
    const onData = (d: Buffer) => {
      out += d
      const m = ready.exec(out)
      if (m !== null) {
        clearTimeout(timer)
        resolve({ child, match: m })
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", (d: Buffer) => (out += d))
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${args.join(" ")} exited ${code}: ${out}`))
    })
  })

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode)
    child.removeAllListeners("exit")
    child.once("exit", (code) => resolve(code))
    child.kill("SIGTERM")
  })

describe("the packages installed from their tarballs, outside the repository", () => {
  beforeAll(() => {
    tarballs = pack()
    assert.isAtLeast(tarballs.length, 10)
    project = realpathSync(mkdtempSync(join(tmpdir(), "svc-tarballs-")))
    assert.isFalse(project.startsWith(ROOT), "the project is outside the repository")
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "svc-stranger", private: true, type: "module" })
    )
    const dev = ["vitest", "@effect/vitest", "fast-check"].map((n) => `${n}@${rootManifest.devDependencies[n]}`)
    const installed = run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...tarballs, ...dev])
    assert.strictEqual(installed.status, 0, installed.output)
  }, scaled(300_000))

  afterAll(() => {
    if (project !== "") rmSync(project, { recursive: true, force: true })
  })

  it("each tarball holds the package's files and no tests, build state or workspace files", () => {
    for (const tarball of tarballs) {
      const listed = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" }).stdout.split("\n").filter((l) =>
        l !== ""
      )
      assert.include(listed, "package/package.json", tarball)
      assert.isTrue(listed.some((f) => f.startsWith("package/dist/") && f.endsWith(".js")), tarball)
      const stray = listed.filter((f) =>
        /^package\/(test|node_modules|scripts)\//.test(f) ||
        (!f.startsWith("package/templates/") && /\.tsbuildinfo$|tsconfig|vitest\.config/.test(f))
      )
      assert.deepStrictEqual(stray, [], tarball)
    }
  })

  it("resolves every package to its compiled files, never to TypeScript sources", () => {
    for (const name of ["core", "protocol", "client", "server", "store", "cli", "conformance"]) {
      const manifest = JSON.parse(readFileSync(join(project, "node_modules/@svc", name, "package.json"), "utf8"))
      assert.deepStrictEqual(manifest.exports["."], { types: "./dist/index.d.ts", default: "./dist/index.js" }, name)
      assert.notInclude(JSON.stringify(manifest), "workspace:", name)
      assert.isTrue(existsSync(join(project, "node_modules/@svc", name, "dist/index.js")), name)
    }
  })

  it("a plain .mjs verifies a feed served by the installed server, with @svc/core and @svc/client", () => {
    writeFileSync(join(project, "consumer.mjs"), readFileSync(join(ROOT, "test/tarballs/consumer.mjs")))
    const r = run("node", ["consumer.mjs"], {
      env: { PORT: "0", SVC_DATA_DIR: join(project, "consumer-data"), SVC_LOG_LEVEL: "warning" }
    })
    assert.strictEqual(r.status, 0, r.output)
    const result = JSON.parse(r.stdout.trim().split("\n").at(-1)!)
    assert.match(result.url, /^http:\/\/127\.0\.0\.1:\d+$/)
    assert.isAbove(result.feedRoutes, 0)
    assert.strictEqual(result.feedRoutes, result.catalogRoutes)
    assert.match(result.feedSigner, /^0x[0-9a-fA-F]{40}$/)
  }, scaled(120_000))

  it("npx svc conformance passes against npx svc serve", async () => {
    const server = await start(["svc", "serve"], /svc listening on (\S+)/, {
      PORT: "0",
      SVC_DATA_DIR: join(project, "serve-data"),
      SVC_LOG_LEVEL: "warning"
    })
    try {
      const r = run("npx", ["svc", "conformance", "--url", server.match[1]!])
      assert.strictEqual(r.status, 0, r.output)
      assert.match(r.output, /PASS \d+ passed, 0 failed/)
    } finally {
      assert.strictEqual(await stop(server.child), 0)
    }
  }, scaled(180_000))

  it("npx svc new-connector acme: the generated connector runs the installed testkit", () => {
    const created = run("npx", ["svc", "new-connector", "acme"])
    assert.strictEqual(created.status, 0, created.output)
    const dir = join(project, "connector-acme")
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
    assert.strictEqual(manifest.name, "svc-connector-acme")
    assert.match(manifest.peerDependencies["@svc/core"], /^\^\d+\.\d+\.\d+/)
    // the skeleton: identity checks pass, every stub fails with "not implemented"
    const skeleton = run("npx", ["vitest", "run", "--reporter", "json", "--outputFile", "skeleton.json"], { cwd: dir })
    assert.strictEqual(skeleton.status, 1, skeleton.output)
    const report = JSON.parse(readFileSync(join(dir, "skeleton.json"), "utf8"))
    assert.isAbove(report.numPassedTests, 0)
    assert.isAbove(report.numFailedTests, 0)
    assert.include(JSON.stringify(report), "is not implemented yet")
    // the walkthrough's code (written for "zeta"), named for acme: every test passes
    const doc = readFileSync(join(ROOT, "docs/connectors.md"), "utf8")
    const rename = (text: string) => text.replace(/Zeta/g, "Acme").replace(/ZETA/g, "ACME").replace(/zeta/g, "acme")
    for (const m of doc.matchAll(/```ts file=(\S+)\n([\s\S]*?)\n```/g)) {
      writeFileSync(join(dir, rename(m[1]!)), `${rename(m[2]!)}\n`)
    }
    const filled = run("npx", ["vitest", "run"], { cwd: dir })
    assert.strictEqual(filled.status, 0, filled.output)
  }, scaled(180_000))

  it(
    "npx svc new-plugin pricing acme: the generated plug-in passes the installed pricing suite and prices npx svc serve's feed",
    async () => {
      const created = run("npx", ["svc", "new-plugin", "pricing", "acme"])
      assert.strictEqual(created.status, 0, created.output)
      const dir = join(project, "pricing-acme")
      assert.strictEqual(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name, "svc-pricing-acme")
      const tested = run("npx", ["vitest", "run"], { cwd: dir })
      assert.strictEqual(tested.status, 0, tested.output)
      // Node runs the plug-in's TypeScript sources outside node_modules: SVC_PRICING names its entry file
      const server = await start(["svc", "serve"], /svc listening on (\S+)/, {
        PORT: "0",
        SVC_DATA_DIR: join(project, "plugin-data"),
        SVC_LOG_LEVEL: "warning",
        SVC_PRICING: "./pricing-acme/src/index.ts",
        ACME_MARKUP_BPS: "100"
      })
      try {
        const body = (await (await fetch(`${server.match[1]}/api/v6/solver-feed`)).json()) as {
          feed: { routes: ReadonlyArray<Record<string, unknown>> }
        }
        // the demo catalog prices usdc.base -> usdt0.hyperevm at 1 / 1: the plug-in keeps 1 %
        const route = body.feed.routes.find((r) => r.publicationLane === "L1" && r.publicationRank === 2)!
        assert.deepStrictEqual([route.indicativePriceNumeratorRaw, route.indicativePriceDenominatorRaw], [
          "9900",
          "10000"
        ])
      } finally {
        assert.strictEqual(await stop(server.child), 0)
      }
    },
    scaled(180_000)
  )

  it("npx svc new-solver: the generated solver passes its test and serves its feed", async () => {
    const created = run("npx", ["svc", "new-solver", "my-solver"])
    assert.strictEqual(created.status, 0, created.output)
    const dir = join(project, "my-solver")
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
    for (const range of Object.values<string>(manifest.dependencies)) assert.match(range, /^\^\d+\.\d+\.\d+/)
    const tested = run("npx", ["vitest", "run"], { cwd: dir })
    assert.strictEqual(tested.status, 0, tested.output)
    const child = spawn("node", ["src/main.ts"], {
      cwd: dir,
      env: env({ PORT: "0", SVC_DATA_DIR: join(dir, ".svc-data") }),
      stdio: ["ignore", "pipe", "pipe"]
    })
    const url = await new Promise<string>((resolve, reject) => {
      let out = ""
      const timer = setTimeout(() => reject(new Error(`the solver did not start: ${out}`)), scaled(60_000))
      child.stdout!.on("data", (d: Buffer) => {
        out += d
        const m = /listening on (\S+)/.exec(out)
        if (m !== null) {
          clearTimeout(timer)
          resolve(m[1]!)
        }
      })
      child.stderr!.on("data", (d: Buffer) => (out += d))
    })
    try {
      const feed = await fetch(`${url}/api/v6/solver-feed`)
      assert.strictEqual(feed.status, 200)
      assert.isTrue(((await feed.json()) as { ok: boolean }).ok)
      // the API reference's script is vendored into @svc/server: served, with none of Scalar's dependencies installed
      const page = await (await fetch(`${url}/docs`)).text()
      const script = /src="(docs\/scalar\.[A-Za-z0-9_-]+\.js)"/.exec(page)?.[1]
      assert.isDefined(script, "the /docs page names its script")
      const bundle = await fetch(new URL(script!, `${url}/docs`))
      assert.strictEqual(bundle.status, 200)
      assert.isAbove((await bundle.arrayBuffer()).byteLength, 1_000_000)
      assert.isFalse(existsSync(join(project, "node_modules/@scalar")), "Scalar's packages are not installed")
    } finally {
      assert.strictEqual(await stop(child), 0)
    }
  }, scaled(180_000))
})
