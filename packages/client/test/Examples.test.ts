/**
 * The runnable scripts of examples/client run as separate processes against a
 * real server (as they run against `npm start`) and print what they promise.
 */
import { assert, layer } from "@effect/vitest"
import { Publisher } from "@svc/core"
import { PermitAbi } from "@svc/protocol"
import { Effect } from "effect"
import { execFile, spawn } from "node:child_process"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Discover from "../../../examples/client/discover-and-verify.ts"
import { scaled } from "../../../test/support/time.ts"
import { isSvcClientError } from "../src/index.ts"
import { baseUrl, serverLayer } from "./support/server.ts"

const examples = new URL("../../../examples/client/", import.meta.url).pathname
// the scripts load effect and viem from source on every start: share Node's compile cache between runs
const cache = { NODE_COMPILE_CACHE: join(tmpdir(), "svc-client-examples-cache") }

const run = (script: string, env: Record<string, string>) =>
  Effect.promise(() =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [`${examples}${script}`], {
        env: { ...process.env, ...cache, ...env },
        timeout: scaled(30_000)
      }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : (error as { code?: number }).code ?? 1, stdout, stderr }))
    })
  )

layer(serverLayer(), { excludeTestServices: true, timeout: scaled(60_000) })("examples/client", (it) => {
  it.effect("discover-and-verify.ts prints a verified feed and a 304 on the second read", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const out = yield* run("discover-and-verify.ts", { SVC_URL: url })
      assert.strictEqual(out.code, 0, out.stderr)
      const result = JSON.parse(out.stdout)
      assert.isTrue(result.valid)
      assert.strictEqual(result.feedEndpoint, `${url}/api/v6/solver-feed`)
      assert.isAbove(result.openRoutes.length, 0)
      assert.isTrue(result.secondReadNotModified)
      // a wrong pinned signer: a typed failure (the script prints its code and exits 1)
      const pinned = yield* Effect.promise(() =>
        Discover.main(url, "0x682A1253cED985C92270483401d29081254bb4c5").then(() => undefined, (e: unknown) => e)
      )
      assert.isTrue(isSvcClientError(pinned))
      assert.strictEqual((pinned as { code: string }).code, "SVC_SDK_DISCOVERY_INVALID")
    }), scaled(60_000))

  it.effect("stream.ts prints verified feeds in increasing order, one per publication", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const publisher = yield* Publisher.Publisher
      const child = spawn(process.execPath, [`${examples}stream.ts`], {
        env: { ...process.env, ...cache, SVC_URL: url, SVC_STREAM_COUNT: "2" }
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => child.kill()))
      let stdout = ""
      child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString("utf8")))
      const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
      const deadline = Date.now() + scaled(20_000)
      while (!stdout.includes("\"feed\"") && Date.now() < deadline) yield* Effect.sleep("20 millis")
      yield* publisher.publishNow
      const code = yield* Effect.promise(() => exited)
      assert.strictEqual(code, 0, stdout)
      const lines = stdout.trim().split("\n").map((l) => JSON.parse(l))
      const done = lines.at(-1)
      assert.isTrue(done.done)
      assert.strictEqual(done.versions.length, 2)
      assert.isTrue(BigInt(done.versions[1]) > BigInt(done.versions[0]))
      assert.strictEqual(lines[0].event, "Connected")
    }).pipe(Effect.scoped), scaled(60_000))

  it.effect(
    "permit-flow.ts issues a verified permit and prints its fillDirect transaction",
    () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const out = yield* run("permit-flow.ts", { SVC_URL: url })
        assert.strictEqual(out.code, 0, out.stderr)
        const result = JSON.parse(out.stdout)
        assert.strictEqual(result.httpStatus, 201)
        assert.strictEqual(result.state, "ISSUED")
        assert.match(result.message, /^SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1\nquoteId=0x[0-9a-f]{64}\n/)
        const decoded = PermitAbi.decodeFillDirect(result.transaction.data)
        assert.strictEqual(decoded.permit.fillId, result.fillId)
        assert.strictEqual(decoded.permit.amountInRaw, result.amountInRaw)
        assert.strictEqual(result.transaction.chainId, 8453)
      }),
    scaled(60_000)
  )

  it.effect(
    "wallet-flow.ts quotes, builds with one signature and prints the transaction and status",
    () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const out = yield* run("wallet-flow.ts", { SVC_URL: url })
        assert.strictEqual(out.code, 0, out.stderr)
        const result = JSON.parse(out.stdout)
        assert.strictEqual(result.status, "PERMITTED")
        assert.strictEqual(result.attempts, 1)
        const decoded = PermitAbi.decodeFillDirect(result.transaction.data)
        assert.strictEqual(decoded.permit.fillId, result.fillId)
        assert.strictEqual(decoded.permit.amountOutRaw, result.quote.amountOut)
      }),
    scaled(60_000)
  )
})
