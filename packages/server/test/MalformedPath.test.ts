/**
 * A path with a malformed percent-escape (`%`, `%ZZ`, a truncated UTF-8
 * sequence) gets the JSON error envelope of its family, with the headers every
 * other answer carries (CORS, `x-request-id`, `Cache-Control`), never a bare 404.
 * The raw path is sent over a socket: `fetch` would normalise it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { connect } from "node:net"
import { build, serverLayer } from "./support/server.ts"

/** One raw HTTP/1.1 GET; the status line, headers and body of the answer. */
const rawGet = (base: string, path: string) =>
  Effect.promise(() =>
    new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
      const url = new URL(base)
      const socket = connect(Number(url.port), url.hostname)
      let data = ""
      socket.setEncoding("utf8")
      socket.on("data", (d) => (data += d))
      socket.on("error", reject)
      socket.on("end", () => {
        const [head, ...rest] = data.split("\r\n\r\n")
        const [statusLine, ...lines] = head!.split("\r\n")
        const headers = Object.fromEntries(lines.map((l) => {
          const i = l.indexOf(":")
          return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()]
        }))
        resolve({ status: Number(statusLine!.split(" ")[1]), headers, body: rest.join("\r\n\r\n") })
      })
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`)
    })
  )

describe("malformed percent-escapes in paths", () => {
  it.live("answer 404 with the JSON envelope of their family and the usual headers", () =>
    Effect.scoped(Effect.gen(function*() {
      const base = yield* build(serverLayer())
      for (
        const [path, family] of [
          ["/api/v6/routes/%", "solver"],
          ["/api/v6/routes/%E0%A4%A", "solver"],
          ["/v1/%ZZ", "aggregator"],
          ["/%", "solver"]
        ] as const
      ) {
        const answer = yield* rawGet(base, path)
        assert.strictEqual(answer.status, 404, path)
        assert.match(answer.headers["content-type"] ?? "", /^application\/json/, path)
        assert.strictEqual(answer.headers["access-control-allow-origin"], "*", path)
        assert.strictEqual(answer.headers["cache-control"], "no-store", path)
        assert.isString(answer.headers["x-request-id"], path)
        const body = JSON.parse(answer.body)
        assert.deepInclude(body, { ok: false, error: "NOT_FOUND", reasonCodes: ["PATH_NOT_FOUND"] }, path)
        // the aggregator's envelope adds what a client does next
        if (family === "aggregator") assert.deepInclude(body, { retryable: false, action: "NONE" }, path)
        else assert.notProperty(body, "action", path)
      }
    })))
})
