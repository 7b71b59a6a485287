/**
 * docs/architecture.md, "How to add an operation", done as written: its three
 * code blocks go into a copy of the sources (the answer's schema and the
 * endpoint into `protocol/src/Api.ts`, the handler into
 * `server/src/handlers/Routes.ts`), the copy type-checks, and a server built
 * from it answers what the walkthrough says the declaration alone gives: the
 * route, 405 with `Allow` for other methods, 404 ROUTE_NOT_FOUND for a
 * malformed id, 400 UNKNOWN_QUERY_PARAMETER for a query, the CORS preflight,
 * and the operation in `openapi.json`.
 */
import { spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { scaled } from "./support/time.ts"

const ROOT = fileURLToPath(new URL("../", import.meta.url))

/** The walkthrough's code blocks, in order. */
const walkthrough = (): ReadonlyArray<string> => {
  const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8")
  const start = doc.indexOf("## How to add an operation")
  const section = doc.slice(start, doc.indexOf("\n## ", start + 1))
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
}

/** Replaces the one occurrence of `anchor` in a file of the copy. */
const patch = (dir: string, file: string, anchor: string, replacement: string) => {
  const path = join(dir, file)
  const text = readFileSync(path, "utf8")
  const count = text.split(anchor).length - 1
  if (count !== 1) throw new Error(`${file}: the anchor is found ${count} times: ${anchor}`)
  writeFileSync(path, text.replace(anchor, () => replacement))
}

/** A copy of the packages a server is built from, their dependencies linked. */
const copySources = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "svc-add-operation-"))
  for (const pkg of ["protocol", "core", "store", "server", "connector-evm", "connector-solana"]) {
    const from = join(ROOT, "packages", pkg)
    const to = join(dir, "packages", pkg)
    mkdirSync(to, { recursive: true })
    for (const entry of ["src", "package.json", "catalog", "node_modules"]) {
      if (existsSync(join(from, entry))) {
        cpSync(join(from, entry), join(to, entry), { recursive: true, verbatimSymlinks: true })
      }
    }
  }
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"))
  return dir
}

/** Runs a command in the copy: its exit code and output. */
const run = (dir: string, command: string, args: ReadonlyArray<string>, cwd = dir) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: "1" } })
    let out = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (out += d))
    child.on("close", (code) => resolve({ code, out }))
  })

/** Builds a server from the copy and asks it what the walkthrough promises; prints one JSON line. */
const PROBE = `
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { readFileSync } from "node:fs"
import * as App from "./src/App.ts"
import * as Server from "./src/Server.ts"
import * as ServerConfig from "./src/ServerConfig.ts"

const ask = async (url, init) => {
  const r = await fetch(url, init)
  return { status: r.status, allow: r.headers.get("allow"), body: await r.text() }
}
const program = Effect.gen(function*() {
  const config = yield* ServerConfig.fromProvider(ConfigProvider.fromUnknown({
    PORT: "0",
    HOST: "127.0.0.1",
    SVC_DATA_DIR: process.argv[2],
    SVC_LOG_LEVEL: "none"
  }))
  const catalog = JSON.parse(readFileSync("./catalog/demo.json", "utf8"))
  const context = yield* Layer.build(Server.layer(config, catalog, undefined))
  const url = Context.get(context, App.AppControl).publicUrl
  return yield* Effect.promise(async () => {
    const feed = JSON.parse((await ask(url + "/api/v6/solver-feed")).body)
    const routeId = feed.feed.routes[0].routeId
    const path = url + "/api/v6/routes/" + routeId + "/metrics"
    return {
      metrics: await ask(path),
      post: await ask(path, { method: "POST" }),
      malformed: await ask(url + "/api/v6/routes/0x1234/metrics"),
      query: await ask(path + "?x=1"),
      preflight: await ask(path, {
        method: "OPTIONS",
        headers: { origin: "https://example.org", "access-control-request-method": "GET" }
      }),
      openapi: JSON.parse((await ask(url + "/openapi.json")).body).paths["/api/v6/routes/{routeId}/metrics"] ?? null
    }
  })
})
const answers = await Effect.runPromise(Effect.scoped(program))
process.stdout.write(JSON.stringify(answers) + "\\n")
process.exit(0)
`

describe("docs/architecture.md: How to add an operation", () => {
  const dirs: Array<string> = []
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it("its three blocks, put where it says, type-check and give the operation with every derived answer", async () => {
    const blocks = walkthrough()
    expect(blocks.length, "the response schema, the endpoint, the handler").toBe(3)
    const [schema, endpoint, handler] = blocks as [string, string, string]
    const dir = copySources()
    dirs.push(dir)
    const api = "packages/protocol/src/Api.ts"
    patch(
      dir,
      api,
      `import { FeedResponse, RouteDetailResponse } from "./schema/Feed.ts"`,
      `import { FeedResponse, RouteDetailResponse, RouteMetrics } from "./schema/Feed.ts"`
    )
    patch(dir, api, `export class RoutesGroup extends`, `${schema}\nexport class RoutesGroup extends`)
    patch(
      dir,
      api,
      `  .annotate(OpenApi.Description, "Route detail.")\n`,
      `${endpoint}  .annotate(OpenApi.Description, "Route detail.")\n`
    )
    patch(
      dir,
      "packages/server/src/handlers/Routes.ts",
      `          return Http.jsonBytes(200, encoder.encode(body))\n        }))\n`,
      `          return Http.jsonBytes(200, encoder.encode(body))\n        }))\n${handler}`
    )

    // the compiler accepts the change (the server's modules, the contract and what they import)
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: join(ROOT, "tsconfig.json"),
        compilerOptions: { typeRoots: [join(ROOT, "node_modules/@types")] },
        include: ["packages/server/src/**/*.ts"]
      })
    )
    const checked = await run(dir, process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "."])
    expect(checked.out, "tsc").toBe("")
    expect(checked.code).toBe(0)

    const server = join(dir, "packages/server")
    writeFileSync(join(server, "probe.mjs"), PROBE)
    const probed = await run(dir, process.execPath, ["probe.mjs", join(dir, "data")], server)
    expect(probed.code, probed.out).toBe(0)
    const answers = JSON.parse(probed.out.trim().split("\n").at(-1)!)
    expect(answers.metrics.status).toBe(200)
    expect(Object.keys(JSON.parse(answers.metrics.body))).toEqual(["ok", "metrics"])
    expect(answers.post.status).toBe(405)
    expect(answers.post.allow).toBe("GET, HEAD, OPTIONS")
    expect(answers.malformed.status).toBe(404)
    expect(JSON.parse(answers.malformed.body)).toMatchObject({ ok: false, error: "ROUTE_NOT_FOUND" })
    expect(answers.query.status).toBe(400)
    expect(JSON.parse(answers.query.body)).toMatchObject({ ok: false, reasonCodes: ["UNKNOWN_QUERY_PARAMETER"] })
    expect(answers.preflight.status).toBeLessThan(300)
    expect(answers.openapi.get.operationId).toBe("getRouteMetrics")
  }, scaled(240_000))
})
