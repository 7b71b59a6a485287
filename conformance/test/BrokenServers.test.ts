/**
 * Whole servers that are broken beyond any one behaviour (every answer
 * `200 {"ok":true}`, every answer a 500 page, nothing but 204s, plain 404s,
 * event streams everywhere): the full suite runs against each, fails, and
 * every report format renders every verdict of every check. No check may
 * crash on what such a server sends (a check's internal error would be
 * reported as inconclusive).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { scaled } from "../../test/support/time.ts"
import * as Cli from "../src/Cli.ts"
import * as Registry from "../src/Registry.ts"
import * as RunOptions from "../src/RunOptions.ts"
import { silent, WALLET_KEY } from "./support/harness.ts"
import { assertRendered } from "./support/render.ts"

type Handler = (req: IncomingMessage, res: ServerResponse) => void

const SERVERS: ReadonlyArray<readonly [string, Handler]> = [
  ["every answer 200 {\"ok\":true}", (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end("{\"ok\":true}")
  }],
  ["every answer a 500 HTML page", (_req, res) => {
    res.writeHead(500, { "content-type": "text/html" })
    res.end("<html><body><script>window.__pwned=1</script>Internal Server Error</body></html>")
  }],
  ["every answer 204 without a body", (_req, res) => {
    res.writeHead(204)
    res.end()
  }],
  ["every answer a plain-text 404", (_req, res) => {
    res.writeHead(404, { "content-type": "text/plain" })
    res.end("not found")
  }],
  ["every answer an event stream of junk that ends", (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" })
    res.end(
      "event: feed\nid: 1\ndata: {\"ok\":true,\"feed\":{\"signedPayload\":{\"routes\":[{}]}}}\n\nevent: x\ndata: \u0000\n\n"
    )
  }],
  ["every answer a JSON body that looks like the interface, with nothing right", (req, res) => {
    res.writeHead(200, { "content-type": "application/json", etag: "\"strong\"" })
    const feed = {
      signedPayload: { dataVersion: "1", routes: [{ open: true, quoteId: 7, sourceRouter: "x", sourceChainId: null }] },
      feedHash: 1,
      feedSignature: null,
      routes: "no"
    }
    res.end(
      JSON.stringify({ ok: true, feed, permit: { permit: { fillId: [] } }, message: 42, route: null, path: req.url })
    )
  }]
]

const serve = (handler: Handler) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ url: string; close: () => Promise<void> }>((resolve) => {
        const server = createServer((req, res) => {
          req.resume()
          req.on("end", () => handler(req, res))
        })
        server.listen(0, "127.0.0.1", () =>
          resolve({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
            close: () =>
              new Promise((done) => {
                server.closeAllConnections()
                server.close(() => done())
              })
          }))
      })
    ),
    (s) => Effect.promise(() => s.close())
  )

describe("broken servers: the full suite runs, fails, and every format renders every verdict", () => {
  for (const [name, handler] of SERVERS) {
    it.effect(name, () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* serve(handler)
        const options = RunOptions.make({
          baseUrl: server.url,
          seed: 7,
          maxExamples: 2,
          timeoutSeconds: 2,
          waitSeconds: 1,
          quietMillis: 200,
          immediateMillis: 500,
          statefulRuns: 2,
          walletKey: WALLET_KEY
        })
        const report = yield* Cli.execute(options, { checks: Registry.all, output: silent }).pipe(
          Effect.provide(NodeServices.layer)
        )
        assert.isAbove(report.summary.failed, 0, name)
        assert.strictEqual(report.results.length, Registry.all.filter((c) => c.group !== "proxy").length)
        const crashed = report.results.filter((r) => (r.reason ?? "").startsWith("internal error of the check"))
        assert.deepStrictEqual(crashed.map((r) => `${r.name}: ${r.reason}`), [], name)
        assertRendered(report, name)
      })), { timeout: scaled(120_000) })
  }
})
