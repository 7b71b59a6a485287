/**
 * `svc new-solver`: the generated project, with its dependencies linked from
 * this workspace as an install would put them, type checks, passes its own
 * tests after the first edit its README asks for (its own `referencePrice`), refuses
 * chains without their catalog in one line, and
 * `npm start` (node src/main.ts) answers every request while it starts (503
 * until ready, never held), serves the feed until SIGTERM, and answers a port in
 * use with one line (exit 2), as `svc serve` does.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
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
import { request } from "node:http"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { scaled } from "../../../test/support/time.ts"
import { DEPENDENCIES, DEV_DEPENDENCIES, installedPackage, installedRanges, render, write } from "../src/NewSolver.ts"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const NODE = process.execPath
const BIN = join(ROOT, "packages/cli/src/bin.ts")

const RANGES = {
  "@effect/platform-node": "^4.1.0",
  "@svc/connector-evm": "^0.1.0",
  "@svc/connector-solana": "^0.1.0",
  "@svc/core": "^0.1.0",
  "@svc/protocol": "^0.1.0",
  "@svc/server": "^0.1.0",
  "@svc/store": "^0.1.0",
  effect: "^4.1.0",
  "@effect/vitest": "^4.0.5",
  "@foundry-rs/anvil": "^1.7.1",
  "@svc/cli": "^0.1.0",
  "@types/node": "^24.0.0",
  vitest: "^5.1.1"
}

/** The environment of a child process, without the variables of this vitest run. */
const childEnv = () => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "NODE_OPTIONS" && k !== "FORCE_COLOR")
  ),
  NO_COLOR: "1"
})

/** Runs `node args` in `cwd` to its end. */
const run = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  new Promise<{ status: number | null; stdout: string; stderr: string; output: string }>((resolve) => {
    const child = spawn(NODE, args, {
      cwd,
      env: { ...childEnv(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: scaled(120_000)
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.once("close", (status) => resolve({ status, stdout, stderr, output: `${stdout}${stderr}` }))
  })

const versionOf = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version as string

/** A free port of 127.0.0.1 (listened on, then closed), or the port of a server kept listening. */
const freePort = async (keep = false) => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  if (!keep) await new Promise((resolve) => server.close(resolve))
  return { port, close: () => new Promise((resolve) => server.close(resolve)) }
}

/** What a request to the starting solver got: a status (with its Retry-After and body), or an error. */
interface Answer {
  readonly status?: number
  readonly retryAfter?: string | undefined
  readonly body?: string
  readonly error?: string
  /** Milliseconds from sending to the end of the answer. */
  readonly took: number
}

/** GET `path` on 127.0.0.1:`port`, given up after `limit` ms (recorded as the error "held"). */
const get = (port: number, path: string, limit: number) =>
  new Promise<Answer>((resolve) => {
    const sent = Date.now()
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (response) => {
      let body = ""
      response.on("data", (d) => (body += d))
      response.on("end", () =>
        resolve({
          status: response.statusCode!,
          retryAfter: response.headers["retry-after"],
          body,
          took: Date.now() - sent
        }))
    })
    req.setTimeout(limit, () => {
      req.destroy()
      resolve({ error: "held", took: Date.now() - sent })
    })
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message, took: Date.now() - sent }))
    req.end()
  })

/**
 * Runs `node src/main.ts` in `cwd` on a free port, asking for the feed from the start, every 20 ms, until it
 * answers 200 (then sends SIGTERM) or exits: the answers it got (connections refused before it listens
 * left out), the feed, its output and exit code.
 */
const start = (cwd: string) =>
  new Promise<
    {
      url?: string | undefined
      answers: ReadonlyArray<Answer>
      feed?: any
      code: number | null
      output: string
    }
  >((resolve) => {
    void freePort().then(({ port }) => {
      const child = spawn(NODE, ["src/main.ts"], {
        cwd,
        env: { ...childEnv(), PORT: String(port) },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      const answers: Array<Answer> = []
      const timer = setTimeout(() => child.kill("SIGKILL"), scaled(60_000))
      child.stdout.on("data", (d) => (output += d))
      child.stderr.on("data", (d) => (output += d))
      const exit = new Promise<number | null>((done) =>
        child.once("exit", (code) => {
          clearTimeout(timer)
          done(code)
        })
      )
      void (async () => {
        while (child.exitCode === null && child.signalCode === null) {
          const answer = await get(port, "/api/v6/solver-feed", scaled(5_000))
          if (answer.error !== "ECONNREFUSED") answers.push(answer)
          if (answer.status === 200) {
            const url = /^listening on (\S+)$/m.exec(output)?.[1]
            child.kill("SIGTERM")
            return resolve({ url, answers, feed: JSON.parse(answer.body!), code: await exit, output })
          }
          await new Promise((wait) => setTimeout(wait, 20))
        }
        resolve({ answers, code: await exit, output })
      })()
    })
  })

/** The first edit the generated README asks for: `referencePrice` replaced by a price source of one's own. */
const ownReferencePrice = (pricing: string): string => {
  const edited = pricing.replace(
    /export const referencePrice = [\s\S]*?\n\n/,
    `export const referencePrice = (route: Catalog.CatalogRoute): Effect.Effect<Price, Pricing.PricingUnavailable> =>
  // this solver's own price source: 0.3 % under the catalog's price
  Effect.succeed({ numeratorRaw: route.priceNumeratorRaw * 997n, denominatorRaw: route.priceDenominatorRaw * 1000n })

`
  )
  assert.notStrictEqual(edited, pricing, "src/pricing.ts defines referencePrice")
  return edited
}

describe("svc new-solver", () => {
  it("renders the project layout with the name and the version ranges filled in", () => {
    const files = render({ name: "my-solver", ranges: RANGES })
    assert.deepStrictEqual(files.map((f) => f.path), [
      ".gitignore",
      "README.md",
      "package.json",
      "src/catalog.json",
      "src/main.ts",
      "src/pricing.ts",
      "src/solver.ts",
      "test/solver.test.ts",
      "tsconfig.json",
      "vitest.config.ts"
    ])
    for (const f of files) assert.notMatch(f.content, /__(?:name|range:[^_]*)__/, f.path)
    const pkg = JSON.parse(files.find((f) => f.path === "package.json")!.content)
    assert.strictEqual(pkg.name, "my-solver")
    assert.strictEqual(pkg.type, "module")
    assert.deepStrictEqual(pkg.scripts, {
      start: "node src/main.ts",
      test: "vitest run",
      devnet: "svc devnet --chains-only --data-dir .svc-devnet --port 8787",
      "start:devnet": "node --env-file=.svc-devnet/server.env src/main.ts"
    })
    assert.deepStrictEqual(Object.keys(pkg.dependencies).sort(), [...DEPENDENCIES].sort())
    assert.deepStrictEqual(Object.keys(pkg.devDependencies).sort(), [...DEV_DEPENDENCIES].sort())
    for (const [name, range] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      assert.strictEqual(range, RANGES[name as keyof typeof RANGES], name)
    }
    assert.include(files.find((f) => f.path === "README.md")!.content, "# my-solver\n")
    for (const f of files.filter((f) => f.path.endsWith(".json"))) JSON.parse(f.content)

    const scoped = render({ name: "@acme/solver", ranges: { ...RANGES, "@svc/core": "^0.2.0-beta.1" } })
    const scopedPkg = JSON.parse(scoped.find((f) => f.path === "package.json")!.content)
    assert.strictEqual(scopedPkg.name, "@acme/solver")
    assert.strictEqual(scopedPkg.dependencies["@svc/core"], "^0.2.0-beta.1")

    for (const bad of ["", "My-Solver", "my solver", ".solver", "_solver", "@acme", "@acme/", "a/b", "a".repeat(215)]) {
      assert.throws(() => render({ name: bad, ranges: RANGES }), /package name .*--name/, bad)
    }
    assert.throws(() => render({ name: "ok", ranges: { ...RANGES, effect: "^4\" evil" } }), /version range of effect/)
  })

  it("reads the version ranges from the packages installed with the command", () => {
    const ranges = installedRanges()
    for (const name of ["core", "protocol", "server", "store", "connector-evm", "connector-solana"]) {
      assert.strictEqual(ranges[`@svc/${name}` as keyof typeof ranges], `^${versionOf(join(ROOT, "packages", name))}`)
    }
    const cli = join(ROOT, "packages/cli")
    assert.strictEqual(ranges.effect, `^${installedPackage("effect", cli)!.version}`)
    assert.strictEqual(ranges["@effect/platform-node"], `^${installedPackage("@effect/platform-node", cli)!.version}`)
    const core = JSON.parse(readFileSync(join(ROOT, "packages/core/package.json"), "utf8"))
    assert.strictEqual(ranges.vitest, core.peerDependencies?.vitest ?? `^${installedPackage("vitest", cli)!.version}`)
    assert.match(ranges["@types/node"], /^\^\d+\.0\.0$/)
    // npm run devnet: this command's own package, and the anvil range it declares
    const cliPackage = JSON.parse(readFileSync(join(cli, "package.json"), "utf8"))
    assert.strictEqual(ranges["@svc/cli"], `^${cliPackage.version}`)
    assert.strictEqual(ranges["@foundry-rs/anvil"], cliPackage.peerDependencies["@foundry-rs/anvil"])
    assert.isUndefined(installedPackage("no-such-package-svc", cli))
  })

  it.effect("writes the files and refuses an existing folder", () =>
    Effect.gen(function*() {
      const base = realpathSync(mkdtempSync(join(tmpdir(), "svc-new-solver-")))
      const dir = join(base, "solver")
      const written = yield* write(dir, { name: "solver", ranges: RANGES })
      assert.strictEqual(written.length, 10)
      assert.include(readFileSync(join(dir, "src/pricing.ts"), "utf8"), "export const referencePrice")
      const again = yield* Effect.exit(write(dir, { name: "solver", ranges: RANGES }))
      assert.isTrue(Exit.isFailure(again))
      assert.match(String(Exit.isFailure(again) && again.cause), /already exists/)
      const badName = yield* Effect.exit(write(join(base, "other"), { name: "Other", ranges: RANGES }))
      assert.isTrue(Exit.isFailure(badName))
      assert.isFalse(existsSync(join(base, "other")), "nothing written for a refused name")
      rmSync(base, { recursive: true, force: true })
    }).pipe(Effect.provide(NodeServices.layer)))

  it(
    "generates a project that type checks, passes its tests and serves the feed until SIGTERM",
    async () => {
      const base = realpathSync(mkdtempSync(join(tmpdir(), "svc-new-solver-")))
      try {
        const project = join(base, "my-solver")
        const created = await run([BIN, "new-solver", "my-solver"], base)
        assert.strictEqual(created.status, 0, created.output)
        // standard output: one JSON value; standard error: the summary a person reads
        const generated = JSON.parse(created.stdout)
        assert.strictEqual(generated.created, project)
        assert.strictEqual(generated.name, "my-solver")
        assert.strictEqual(generated.files.length, 10)
        assert.deepStrictEqual(created.stderr.trimEnd().split("\n"), [
          "created the solver project my-solver in my-solver (10 files)",
          "next:",
          ...generated.next.map((step: string, i: number) => `  ${i + 1}. ${step}`)
        ])
        assert.deepStrictEqual(generated.dependencies, installedRanges())
        assert.deepStrictEqual(
          JSON.parse(readFileSync(join(project, "package.json"), "utf8")).dependencies["@svc/server"],
          generated.dependencies["@svc/server"]
        )

        // the dependencies an install would bring, linked from this workspace
        const link = (name: string, target: string) => {
          mkdirSync(dirname(join(base, "node_modules", name)), { recursive: true })
          symlinkSync(realpathSync(target), join(base, "node_modules", name))
        }
        for (const name of ["core", "protocol", "server", "store", "connector-evm", "connector-solana"]) {
          link(`@svc/${name}`, join(ROOT, "packages", name))
        }
        link("@effect/platform-node", installedPackage("@effect/platform-node", join(ROOT, "packages/cli"))!.dir)
        for (const name of ["effect", "vitest", "@effect/vitest", "@types/node"]) {
          link(name, installedPackage(name, ROOT)!.dir)
        }

        // the first edit the README asks for: a price source of one's own in place of referencePrice
        const pricing = join(project, "src/pricing.ts")
        writeFileSync(pricing, ownReferencePrice(readFileSync(pricing, "utf8")))

        // at the same time: the type check, the readable refusals (exit 2, one line on stderr) and a busy port
        const busy = await freePort(true)
        const [compiled, again, badName, busyPort, noCatalog, bothKeys] = await Promise.all([
          run([join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(project, "tsconfig.json")], project),
          run([BIN, "new-solver", "my-solver"], base),
          run([BIN, "new-solver", "My Solver"], base),
          run(["src/main.ts"], project, { PORT: String(busy.port), SVC_DATA_DIR: join(base, "busy-data") }),
          // chains without the catalog naming their routers and vaults: one line naming the setting
          run(["src/main.ts"], project, {
            PORT: "0",
            SVC_DATA_DIR: join(base, "chains-data"),
            SVC_RPC_URLS: JSON.stringify({ base: "http://127.0.0.1:1" })
          }),
          // two authority keys: refused as svc serve refuses them, not one silently unused
          run(["src/main.ts"], project, {
            PORT: "0",
            SVC_DATA_DIR: join(base, "keys-data"),
            SVC_SIGNER_KEY: `0x${"11".repeat(32)}`,
            SVC_SIGNER_KEYSTORE: join(base, "absent.json")
          })
        ]).finally(busy.close)
        assert.strictEqual(bothKeys.status, 2, bothKeys.output)
        assert.strictEqual(
          bothKeys.stderr,
          "SVC_SIGNER_KEYSTORE: give SVC_SIGNER_KEY or SVC_SIGNER_KEYSTORE, not both\n"
        )
        assert.strictEqual(noCatalog.status, 2, noCatalog.output)
        assert.strictEqual(
          noCatalog.stderr,
          "SVC_CATALOG: required with SVC_RPC_URLS (the catalog naming each network's router and vault)\n"
        )
        assert.strictEqual(busyPort.status, 2, busyPort.output)
        assert.strictEqual(
          busyPort.stderr,
          `port ${busy.port} on 127.0.0.1 is in use: stop the other server or set PORT (PORT=0 picks a free port)\n`
        )
        assert.strictEqual(busyPort.stdout, "")
        assert.strictEqual(compiled.status, 0, `the project type checks:\n${compiled.output}`)
        assert.strictEqual(again.status, 2)
        assert.strictEqual(again.stdout, "")
        assert.match(again.stderr, /^svc: .*my-solver already exists; choose a new folder\n$/)
        assert.strictEqual(badName.status, 2)
        assert.match(badName.stderr, /^svc: package name "My Solver": .*--name\n$/)

        // the tests compute the expected prices from referencePrice: they pass with the edited one
        const tested = await run([join(ROOT, "node_modules/vitest/vitest.mjs"), "run"], project)
        assert.strictEqual(tested.status, 0, `the project's tests pass after the first edit:\n${tested.output}`)
        assert.match(tested.output, /Tests\s+2 passed/)

        // asked from the start, it answers at once while it starts (503, Retry-After), then 200
        const started = await start(project)
        assert.isDefined(started.url, started.output)
        const held = started.answers.filter((a) => a.error !== undefined)
        assert.deepStrictEqual(held, [], `every request is answered while it starts:\n${started.output}`)
        const starting = started.answers.slice(0, -1)
        assert.isAbove(starting.length, 0, "requests sent while it started")
        for (const answer of starting) {
          assert.strictEqual(answer.status, 503, JSON.stringify(answer))
          assert.strictEqual(answer.retryAfter, "1")
          assert.strictEqual(JSON.parse(answer.body!).error, "AUTHORITY_UNAVAILABLE")
        }
        assert.strictEqual(started.answers.at(-1)!.status, 200)
        const authority = /^authority (0x[0-9a-fA-F]{40}) \(development key/m.exec(started.output)
        assert.isNotNull(authority, started.output)
        assert.strictEqual(started.feed.feed.feedSigner, authority![1])
        assert.strictEqual(started.feed.feed.signedPayload.routes.length, 3)
        assert.strictEqual(started.code, 0, `exit 0 on SIGTERM:\n${started.output}`)
        assert.isTrue(existsSync(join(project, ".svc-data/signer.dev-key")))
        assert.isTrue(existsSync(join(project, ".svc-data/solver.sqlite")))
      } finally {
        rmSync(base, { recursive: true, force: true })
      }
    },
    scaled(240_000)
  )
})
