/**
 * Smaller findings of issue #26 (finding 7), on a real server and real sockets:
 *
 * - a body sent as `text/plain`, or without a content type, is refused with 400
 *   and a reason code (`CONTENT_TYPE_NOT_JSON`, `CONTENT_TYPE_MISSING`) instead
 *   of being parsed as JSON, under `/api/v6` and `/v1`;
 * - a request with two `Host` lines is refused (RFC 9112 §3.2: 400,
 *   `HOST_HEADER_REPEATED`), on the fast path too, and its connection closed;
 * - a request whose client goes away before the answer is logged below ERROR
 *   and without internal call paths (status 499).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as RequestBody from "../src/RequestBody.ts"
import { build, serverLayer, testConfig } from "./support/server.ts"
import { eventually, open, sleep, statusOf, within } from "./support/sockets.ts"

// the server's JSON log lines (it writes them with console.error), captured
const lines: Array<string> = []
const original = console.error
const scope = Effect.runSync(Scope.make())
let base = ""

beforeAll(async () => {
  console.error = (...args: Array<unknown>) => void lines.push(args.map(String).join(" "))
  base = await Effect.runPromise(Scope.provide(scope)(build(serverLayer(testConfig({ logLevel: "info" })))))
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  console.error = original
})

const post = async (path: string, body: string, contentType: string | undefined) => {
  const headers: Record<string, string> = contentType === undefined ? {} : { "content-type": contentType }
  // fetch adds text/plain to a string body unless it is sent as bytes
  const response = await fetch(`${base}${path}`, { method: "POST", headers, body: new TextEncoder().encode(body) })
  return { status: response.status, body: await response.json() as any }
}

const permitBody = JSON.stringify({
  quoteId: `0x${"11".repeat(32)}`,
  requestedAmountInRaw: "1000",
  payer: "0x1111111111111111111111111111111111111111",
  recipient: "0x2222222222222222222222222222222222222222",
  idempotencyKey: "hygiene-key-1"
})

describe("bodies that are not sent as JSON", () => {
  for (const path of ["/api/v6/execution-permits", "/api/v6/execution-permits/request-message"]) {
    it(`${path}: text/plain and no content type are 400 with a reason code, before parsing`, async () => {
      for (const [type, code] of [["text/plain", "CONTENT_TYPE_NOT_JSON"], [undefined, "CONTENT_TYPE_MISSING"]]) {
        const answer = await post(path, permitBody, type)
        assert.strictEqual(answer.status, 400, String(type))
        assert.strictEqual(answer.body.error, "INVALID_REQUEST")
        assert.deepStrictEqual(answer.body.reasonCodes, [code])
      }
      // what a browser form would send
      const form = await post(path, permitBody, "application/x-www-form-urlencoded")
      assert.deepStrictEqual(form.body.reasonCodes, ["CONTENT_TYPE_NOT_JSON"])
    })
  }

  it("/v1/quote: the same refusal in the aggregator's error body", async () => {
    const answer = await post("/v1/quote", "{}", "text/plain;charset=UTF-8")
    assert.strictEqual(answer.status, 400)
    assert.strictEqual(answer.body.error, "INVALID_REQUEST")
    assert.strictEqual(answer.body.action, "FIX_REQUEST")
    assert.include(answer.body.message, "application/json")
    assert.deepStrictEqual((await post("/v1/build", "{}", undefined)).body.error, "INVALID_REQUEST")
  })

  it("application/json with parameters, any case, and +json types are read", async () => {
    for (const type of ["application/json", "Application/JSON; charset=utf-8", "application/vnd.svc+json"]) {
      const answer = await post("/api/v6/execution-permits/request-message", permitBody, type)
      // read and checked: the quote is unknown
      assert.strictEqual(answer.status, 410, type)
    }
  })

  it("the media-type rule", () => {
    assert.strictEqual(RequestBody.contentTypeRefusal(undefined), "CONTENT_TYPE_MISSING")
    assert.strictEqual(RequestBody.contentTypeRefusal(" "), "CONTENT_TYPE_MISSING")
    for (const type of ["text/plain", "application/jsonx", "application/x-json-ish", "multipart/form-data; a=b"]) {
      assert.strictEqual(RequestBody.contentTypeRefusal(type), "CONTENT_TYPE_NOT_JSON", type)
    }
    for (const type of ["application/json", "application/json;charset=utf-8", "application/problem+json"]) {
      assert.isUndefined(RequestBody.contentTypeRefusal(type), type)
    }
  })
})

describe("a repeated Host header", () => {
  for (
    const [path, family] of [
      ["/api/v6/solver-feed", "solver"],
      ["/.well-known/svc-solver.json", "solver"],
      ["/v1/chains", "aggregator"]
    ] as const
  ) {
    it(`${path}: 400 HOST_HEADER_REPEATED and the connection is closed`, async () => {
      const raw = await open(Number(new URL(base).port), "127.0.0.1")
      raw.socket.write(`GET ${path} HTTP/1.1\r\nHost: svc.example\r\nHost: other.example\r\n\r\n`)
      assert.isDefined(await within(raw.closed, 2000), "closed after the answer")
      assert.strictEqual(statusOf(raw.received()), 400)
      const body = JSON.parse(raw.received().slice(raw.received().indexOf("\r\n\r\n") + 4))
      assert.strictEqual(body.error, "INVALID_REQUEST")
      if (family === "solver") assert.deepStrictEqual(body.reasonCodes, ["HOST_HEADER_REPEATED"])
      else assert.strictEqual(body.action, "FIX_REQUEST")
    })
  }

  it("one Host line is served as before", async () => {
    const raw = await open(Number(new URL(base).port), "127.0.0.1")
    raw.socket.write("GET /api/v6/solver-feed HTTP/1.1\r\nHost: svc.example\r\n\r\n")
    assert.isTrue(await eventually(() => statusOf(raw.received()) === 200, 2000))
    raw.socket.destroy()
  })
})

describe("a request whose client goes away", () => {
  it("is logged below ERROR, without internal call paths", async () => {
    const port = Number(new URL(base).port)
    lines.length = 0
    for (const path of ["/api/v6/execution-permits", "/api/v6/execution-permits/request-message", "/v1/quote"]) {
      const raw = await open(port, "127.0.0.1")
      // the head and part of the body, then the client closes the connection
      raw.socket.write(
        `POST ${path} HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"quoteId":`
      )
      await sleep(200)
      raw.socket.destroy()
    }
    assert.isTrue(await eventually(() => lines.filter((l) => l.includes("\"request\"")).length >= 3, 3000))
    const logged = lines.map((line) => JSON.parse(line) as { level: string; message: unknown; annotations: any })
    assert.deepStrictEqual(logged.filter((l) => l.level === "ERROR" || l.level === "FATAL"), [])
    for (const line of lines) assert.notMatch(line, /\n\s+at |InterruptError/, "no call paths")
    const requests = logged.filter((l) => l.message === "request")
    assert.deepStrictEqual(requests.map((l) => l.annotations.status), [499, 499, 499])
    assert.isTrue(requests.every((l) => l.level === "INFO"))
  })
})
