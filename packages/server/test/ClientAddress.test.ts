/**
 * The client address behind a trusted proxy comes from the one header the proxy
 * writes (`SVC_CLIENT_ADDRESS_HEADER`, default `x-forwarded-for`), walked from the
 * right; a header the client alone controls (`Forwarded` when the proxy appends
 * `X-Forwarded-For`, or anything it puts before the proxy's hop) never picks the
 * key:
 *
 * - properties of the resolver over arbitrary client-supplied headers;
 * - over real HTTP, through a real appending proxy (nginx's
 *   `$proxy_add_x_forwarded_for`) from distinct loopback addresses: a client that
 *   sends a fresh `Forwarded: for=` and a fresh `X-Forwarded-For` on each request
 *   stays one client for the permit rate limit and the stream cap;
 * - a proxy that overwrites `X-Real-IP`, with the setting naming it;
 * - the setting's default and its start-up error.
 */
import { assert, describe, it } from "@effect/vitest"
import { PermitMessage, Signature } from "@svc/protocol"
import { ConfigProvider, Effect, Exit, Result } from "effect"
import fc from "fast-check"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as ClientAddress from "../src/ClientAddress.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { build, PAYER_KEY, serverLayer, testConfig } from "./support/server.ts"

const trusted = Result.getOrThrow(ClientAddress.parseTrustedProxies("127.0.0.1,10.0.0.0/8"))

const octet = fc.integer({ min: 0, max: 255 })
/** A public-looking IPv4 address (never in the trusted ranges above). */
const clientIp = fc.tuple(fc.integer({ min: 11, max: 126 }), octet, octet, octet).map((o) => o.join("."))
/** Whatever a client may put in a forwarding header: addresses, garbage, quotes, ports, IPv6. */
const junk = fc.oneof(
  clientIp,
  fc.constantFrom("127.0.0.1", "10.1.2.3", "unknown", "\"[2001:db8::1]:443\"", "for=1.2.3.4", "", " , ", "_hidden"),
  fc.string({ maxLength: 20 })
)
const list = fc.array(junk, { maxLength: 5 }).map((xs) => xs.join(", "))

describe("ClientAddress resolver", () => {
  it("behind an appending proxy the client is the hop the proxy wrote, whatever the client sent", () =>
    fc.assert(
      fc.property(clientIp, fc.option(list), fc.option(list), fc.option(list), (real, xff, forwarded, realIp) => {
        const resolver = ClientAddress.makeResolver(trusted)
        // the proxy appends the address of the peer it accepted
        const headers = {
          "x-forwarded-for": xff === null ? real : `${xff}, ${real}`,
          ...(forwarded === null ? {} : { forwarded: `for=${forwarded}` }),
          ...(realIp === null ? {} : { "x-real-ip": realIp })
        }
        assert.strictEqual(resolver.resolve("127.0.0.1", headers), real)
        // through a second trusted hop (an internal balancer appending the first proxy)
        assert.strictEqual(
          resolver.resolve("10.0.0.7", { ...headers, "x-forwarded-for": `${headers["x-forwarded-for"]}, 127.0.0.1` }),
          real
        )
      })
    ))

  it("a proxy that overwrites its header (x-real-ip) is read from that header only", () =>
    fc.assert(
      fc.property(clientIp, fc.option(list), fc.option(list), (real, xff, forwarded) => {
        const resolver = ClientAddress.makeResolver(trusted, "X-Real-IP")
        assert.strictEqual(resolver.header, "x-real-ip")
        const headers = {
          "x-real-ip": real,
          ...(xff === null ? {} : { "x-forwarded-for": xff }),
          ...(forwarded === null ? {} : { forwarded: `for=${forwarded}` })
        }
        assert.strictEqual(resolver.resolve("127.0.0.1", headers), real)
      })
    ))

  it("Forwarded is read only when it is the configured header; repeated headers are one list", () => {
    const forwarded = ClientAddress.makeResolver(trusted, "forwarded")
    assert.strictEqual(
      forwarded.resolve("127.0.0.1", {
        forwarded: "for=\"[2001:db8::9]:4711\";proto=https, for=203.0.113.9",
        "x-forwarded-for": "198.51.100.1"
      }),
      "203.0.113.9"
    )
    const xff = ClientAddress.makeResolver(trusted)
    assert.strictEqual(xff.resolve("127.0.0.1", { forwarded: "for=198.51.100.1" }), "127.0.0.1")
    assert.strictEqual(xff.resolve("127.0.0.1", { "x-forwarded-for": ["198.51.100.1", "203.0.113.4"] }), "203.0.113.4")
  })

  it("headers from a peer that is not trusted are ignored", () =>
    fc.assert(
      fc.property(clientIp, list, (peer, xff) => {
        const resolver = ClientAddress.makeResolver(trusted)
        assert.strictEqual(resolver.resolve(peer, { "x-forwarded-for": xff, forwarded: `for=${xff}` }), peer)
      })
    ))
})

// ---------------------------------------------------------------------------
// Over HTTP, through a real proxy
// ---------------------------------------------------------------------------

/** A reverse proxy on 127.0.0.1 that forwards to `upstream`, writing the client as `mode` says. */
const startProxy = (upstream: string, mode: "append-xff" | "set-x-real-ip") =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ url: string; server: http.Server }>((resolve) => {
        const target = new URL(upstream)
        const server = http.createServer((req, res) => {
          const peer = req.socket.remoteAddress ?? ""
          const headers: http.OutgoingHttpHeaders = { ...req.headers, host: target.host }
          if (mode === "append-xff") {
            const prior = req.headers["x-forwarded-for"]
            headers["x-forwarded-for"] = prior === undefined ? peer : `${prior}, ${peer}`
          } else {
            headers["x-real-ip"] = peer
          }
          const out = http.request(
            { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
            (answer) => {
              res.writeHead(answer.statusCode ?? 502, answer.headers)
              answer.pipe(res)
            }
          )
          out.on("error", () => res.destroy())
          req.pipe(out)
        })
        server.listen(
          0,
          "127.0.0.1",
          () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })
        )
      })
    ),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  ).pipe(Effect.map(({ url }) => url))

/** One request from a loopback source address; the body is read whole unless `stream`. */
const request = (
  url: string,
  from: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; stream?: boolean }
) =>
  Effect.promise(() =>
    new Promise<{ status: number; body: string; close: () => void }>((resolve, reject) => {
      const req = http.request(url, {
        method: init.method ?? "GET",
        headers: init.headers,
        localAddress: from,
        agent: false
      }, (res) => {
        if (init.stream === true) {
          resolve({ status: res.statusCode ?? 0, body: "", close: () => req.destroy() })
          return
        }
        let body = ""
        res.setEncoding("utf8").on("data", (c: string) => (body += c)).on(
          "end",
          () => resolve({ status: res.statusCode ?? 0, body, close: () => {} })
        )
      })
      req.on("error", reject)
      req.end(init.body)
    })
  )

const payer = Signature.addressOf(PAYER_KEY)
let keyCounter = 0
const permitBody = (server: string) =>
  Effect.gen(function*() {
    const feed = yield* Effect.promise(() => fetch(`${server}/api/v6/solver-feed`).then((r) => r.json() as any))
    const route = feed.feed.openRoutes[0]
    const req = {
      quoteId: route.quoteId,
      requestedAmountInRaw: route.minimumFillInRaw,
      payer,
      recipient: "0x2222222222222222222222222222222222222222",
      idempotencyKey: `client-address-${process.pid}-${keyCounter++}`
    }
    return JSON.stringify({ ...req, requestSignature: PermitMessage.sign(PermitMessage.build(req), PAYER_KEY) })
  })

describe("ClientAddress over HTTP behind an appending proxy", () => {
  it.live(
    "fresh Forwarded and X-Forwarded-For values per request do not escape the permit limit",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* build(serverLayer(testConfig({
          permitRateLimit: 10,
          permitRateWindowSeconds: 60,
          trustedProxies: Result.getOrThrow(ClientAddress.parseTrustedProxies("127.0.0.1"))
        })))
        const proxy = yield* startProxy(server, "append-xff")
        const statuses: Array<number> = []
        for (let i = 0; i < 20; i++) {
          const answer = yield* request(`${proxy}/api/v6/execution-permits`, "127.0.0.5", {
            method: "POST",
            headers: {
              "content-type": "application/json",
              forwarded: `for=198.51.100.${i}`,
              "x-forwarded-for": `203.0.113.${i}`
            },
            body: yield* permitBody(server)
          })
          statuses.push(answer.status)
        }
        assert.deepStrictEqual(statuses.filter((s) => s === 201).length, 10, statuses.join(","))
        assert.deepStrictEqual(statuses.slice(10), Array(10).fill(429))
        // another real client behind the same proxy has its own budget
        const other = yield* request(`${proxy}/api/v6/execution-permits`, "127.0.0.6", {
          method: "POST",
          headers: { "content-type": "application/json", forwarded: "for=198.51.100.1" },
          body: yield* permitBody(server)
        })
        assert.strictEqual(other.status, 201, other.body)
      })),
    60_000
  )

  it.live(
    "fresh Forwarded values per stream do not escape the per-client stream cap",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* build(serverLayer(testConfig({
          sseMaxSubscribersPerClient: 4,
          trustedProxies: Result.getOrThrow(ClientAddress.parseTrustedProxies("127.0.0.1"))
        })))
        const proxy = yield* startProxy(server, "append-xff")
        const opened: Array<{ status: number; close: () => void }> = []
        for (let i = 0; i < 6; i++) {
          opened.push(
            yield* request(`${proxy}/api/v6/solver-feed/events`, "127.0.0.7", {
              headers: { forwarded: `for=198.51.100.${i}`, "x-forwarded-for": `203.0.113.${i}` },
              stream: true
            })
          )
        }
        for (const s of opened) s.close()
        assert.deepStrictEqual(opened.map((s) => s.status), [200, 200, 200, 200, 503, 503])
      })),
    60_000
  )

  it.live(
    "SVC_CLIENT_ADDRESS_HEADER=x-real-ip: the proxy's X-Real-IP is the client, X-Forwarded-For is ignored",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* build(serverLayer(testConfig({
          permitRateLimit: 3,
          trustedProxies: Result.getOrThrow(ClientAddress.parseTrustedProxies("127.0.0.1")),
          clientAddressHeader: "x-real-ip"
        })))
        const proxy = yield* startProxy(server, "set-x-real-ip")
        const statuses: Array<number> = []
        for (let i = 0; i < 5; i++) {
          const answer = yield* request(`${proxy}/api/v6/execution-permits`, "127.0.0.8", {
            method: "POST",
            headers: { "content-type": "application/json", "x-forwarded-for": `203.0.113.${i}` },
            body: yield* permitBody(server)
          })
          statuses.push(answer.status)
        }
        assert.deepStrictEqual(statuses, [201, 201, 201, 429, 429])
      })),
    60_000
  )
})

describe("SVC_CLIENT_ADDRESS_HEADER", () => {
  const read = (env: Record<string, string>) =>
    Effect.runSyncExit(ServerConfig.fromProvider(ConfigProvider.fromUnknown(env)))
  it("defaults to x-forwarded-for, is lowercased, and refuses what is not a header name", () => {
    const defaults = read({})
    assert.isTrue(Exit.isSuccess(defaults))
    if (Exit.isSuccess(defaults)) assert.strictEqual(defaults.value.clientAddressHeader, "x-forwarded-for")
    const named = read({ SVC_CLIENT_ADDRESS_HEADER: "CF-Connecting-IP" })
    if (Exit.isSuccess(named)) assert.strictEqual(named.value.clientAddressHeader, "cf-connecting-ip")
    else assert.fail("CF-Connecting-IP refused")
    const bad = read({ SVC_CLIENT_ADDRESS_HEADER: "x forwarded" })
    assert.isTrue(Exit.isFailure(bad))
    assert.match(
      String(Exit.isFailure(bad) ? bad.cause : ""),
      /SVC_CLIENT_ADDRESS_HEADER: "x forwarded" is not an HTTP header name/
    )
  })
})
