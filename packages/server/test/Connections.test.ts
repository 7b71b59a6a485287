/**
 * Connection exhaustion (issue #15, finding 2), on real sockets with small
 * limits: a connection that trickles its headers or its body is answered 408 and
 * closed after its timeout; one client's connections beyond its cap are refused
 * with a 503 while another client is served; connections beyond the global cap
 * are closed at once; keep-alive and event streams keep working; and a shutdown
 * does not wait for idle, stalled or non-reading connections.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Exit, Layer, Result, Scope } from "effect"
import { connect } from "node:net"
import { generateCatalog } from "../../../scripts/bench/catalog.ts"
import { scaled } from "../../../test/support/time.ts"
import * as App from "../src/App.ts"
import * as ClientAddress from "../src/ClientAddress.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { baseUrl, serverLayer, sseReader, testConfig } from "./support/server.ts"
import { eventually, get, open, type Raw, sleep, statusOf, within } from "./support/sockets.ts"

const portOf = Effect.map(baseUrl, (url) => Number(new URL(url).port))

layer(
  serverLayer(testConfig({
    headersTimeoutSeconds: 1,
    requestTimeoutSeconds: 2,
    maxConnectionsPerClient: 8,
    sseHeartbeatMs: 200,
    sseMaxLifetimeSeconds: 0
  })),
  { excludeTestServices: true, timeout: scaled(30_000) }
)("connection timeouts and the per-client cap", (it) => {
  it.effect("a connection that trickles its headers is answered 408 and closed after the headers timeout", () =>
    Effect.gen(function*() {
      const port = yield* portOf
      yield* Effect.promise(async () => {
        const raw = await open(port, "127.0.0.11")
        raw.socket.write("GET /api/v6/solver-feed HTTP/1.1\r\nHost: svc\r\n")
        const trickle = setInterval(() => raw.socket.write("X-Pad: a\r\n"), 100)
        const lived = await within(raw.closed, 3000)
        clearInterval(trickle)
        raw.socket.destroy()
        assert.isDefined(lived, "closed within 3 s, scaled (headers timeout 1 s)")
        assert.isAtLeast(lived!, 900)
        assert.strictEqual(statusOf(raw.received()), 408)
      })
    }))

  it.effect("a connection that trickles its body is answered 408 and closed after the request timeout", () =>
    Effect.gen(function*() {
      const port = yield* portOf
      yield* Effect.promise(async () => {
        const raw = await open(port, "127.0.0.12")
        raw.socket.write(
          "POST /api/v6/execution-permits HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{"
        )
        const trickle = setInterval(() => raw.socket.write(" "), 100)
        const lived = await within(raw.closed, 4000)
        clearInterval(trickle)
        raw.socket.destroy()
        assert.isDefined(lived, "closed within 4 s, scaled (request timeout 2 s)")
        assert.isAtLeast(lived!, 1900)
        assert.strictEqual(statusOf(raw.received()), 408)
      })
    }))

  it.effect("keep-alive: a connection idle for longer than the headers timeout serves its next request", () =>
    Effect.gen(function*() {
      const port = yield* portOf
      yield* Effect.promise(async () => {
        const raw = await open(port, "127.0.0.13")
        const ask = "GET /.well-known/svc-solver.json HTTP/1.1\r\nHost: svc\r\n\r\n"
        raw.socket.write(ask)
        assert.isTrue(await eventually(() => statusOf(raw.received()) === 200, 2000))
        await sleep(1600)
        assert.isFalse(raw.isClosed(), "an idle keep-alive connection is not cut by the headers timeout")
        const before = raw.received().length
        raw.socket.write(ask)
        assert.isTrue(await eventually(() => statusOf(raw.received().slice(before)) === 200, 2000))
        raw.socket.destroy()
      })
    }))

  it.effect("an event stream outlives the request timeout and keeps its heartbeats", () =>
    Effect.gen(function*() {
      const port = yield* portOf
      yield* Effect.promise(async () => {
        const raw = await open(port, "127.0.0.14")
        raw.socket.write("GET /api/v6/solver-feed/events HTTP/1.1\r\nHost: svc\r\n\r\n")
        assert.isTrue(await eventually(() => raw.received().includes("event: feed"), 2000))
        await sleep(2600)
        assert.isFalse(raw.isClosed(), "the stream is open after the 2 s request timeout")
        const before = raw.received().length
        assert.isTrue(await eventually(() => raw.received().slice(before).includes(": keep-alive"), 1000))
        raw.socket.destroy()
      })
    }))

  it.effect("one client's connections beyond its cap get 503 and are closed, while another client is served", () =>
    Effect.gen(function*() {
      const port = yield* portOf
      yield* Effect.promise(async () => {
        // 12 idle (half-open) connections from one address; its cap is 8
        const attacker = []
        for (let i = 0; i < 12; i++) attacker.push(await open(port, "127.0.0.15"))
        const refused = attacker.slice(8)
        for (const raw of refused) {
          const lived = await within(raw.closed, 1500)
          assert.isDefined(lived, "a connection beyond the cap is closed at once")
          assert.strictEqual(statusOf(raw.received()), 503)
          const body = JSON.parse(raw.received().slice(raw.received().indexOf("\r\n\r\n") + 4))
          assert.deepStrictEqual(body.reasonCodes, ["TOO_MANY_CLIENT_CONNECTIONS"])
          assert.match(raw.received(), /\r\nretry-after: \d+\r\n/i)
        }
        for (const raw of attacker.slice(0, 8)) assert.isFalse(raw.isClosed(), "the first 8 are held")
        // meanwhile another client is served
        const victim = await get(port, "/api/v6/solver-feed", "127.0.0.16")
        assert.strictEqual(victim.status, 200)
        // an HTTP client of the capped address gets the same answer on a new connection
        const capped = await get(port, "/api/v6/solver-feed", "127.0.0.15")
        assert.strictEqual(capped.status, 503)
        assert.strictEqual(JSON.parse(capped.body).error, "AUTHORITY_UNAVAILABLE")
        for (const raw of attacker) raw.socket.destroy()
      })
    }))
})

layer(serverLayer(testConfig({ maxConnections: 12, maxConnectionsPerClient: 6 })), {
  excludeTestServices: true,
  timeout: scaled(30_000)
})("the global connection cap", (it) => {
  it.effect("a connection beyond the global cap makes room: the oldest idle connection of the address holding the most is closed", () =>
    Effect.gen(function*() {
      const port = yield* portOf
      yield* Effect.promise(async () => {
        const held = []
        for (const address of ["127.0.0.21", "127.0.0.22"]) {
          for (let i = 0; i < 6; i++) held.push(await open(port, address))
        }
        await sleep(100)
        for (const raw of held) assert.isFalse(raw.isClosed())
        // 12: the cap is full of idle connections; a newcomer is served, and one of them makes room
        const next = await get(port, "/api/v6/solver-feed", "127.0.0.23")
        assert.strictEqual(next.status, 200)
        // both addresses hold 6: the first of them, its oldest
        assert.isDefined(await within(held[0]!.closed, 1000), "the oldest idle connection is closed")
        assert.isTrue(held.slice(1).every((raw) => !raw.isClosed()), "the others are kept")
        for (const raw of held) raw.socket.destroy()
      })
    }))
})

layer(
  serverLayer(testConfig({
    maxConnectionsPerClient: 2,
    trustedProxies: Result.getOrThrow(ClientAddress.parseTrustedProxies("127.0.0.51"))
  })),
  { excludeTestServices: true, timeout: scaled(30_000) }
)("behind a trusted proxy", (it) => {
  it.effect("the cap counts the requests in flight of each forwarded client, not the proxy's connections", () =>
    Effect.gen(function*() {
      const port = yield* portOf
      yield* Effect.promise(async () => {
        const stream = (client: string) =>
          `GET /api/v6/solver-feed/events HTTP/1.1\r\nHost: svc\r\nX-Forwarded-For: ${client}\r\n\r\n`
        // the proxy holds more connections than the cap: they are not refused
        const proxy: Array<Raw> = []
        for (let i = 0; i < 4; i++) proxy.push(await open(port, "127.0.0.51"))
        proxy[0]!.socket.write(stream("203.0.113.7"))
        proxy[1]!.socket.write(stream("203.0.113.7"))
        assert.isTrue(await eventually(() => proxy[1]!.received().includes("event: feed"), 2000))
        // a third request of the same client in flight is refused, on the solver path and under /v1
        proxy[2]!.socket.write(stream("203.0.113.7"))
        assert.isTrue(await eventually(() => statusOf(proxy[2]!.received()) !== undefined, 2000))
        assert.strictEqual(statusOf(proxy[2]!.received()), 503)
        assert.include(proxy[2]!.received(), "TOO_MANY_CLIENT_CONNECTIONS")
        assert.isFalse(proxy[2]!.isClosed(), "the proxy's connection is kept")
        const v1 = await get(port, "/v1/chains", "127.0.0.51", { "x-forwarded-for": "203.0.113.7" })
        assert.strictEqual(v1.status, 503)
        assert.strictEqual(JSON.parse(v1.body).error, "SERVICE_UNAVAILABLE")
        // another client through the same proxy is served
        proxy[3]!.socket.write(stream("203.0.113.8"))
        assert.isTrue(await eventually(() => proxy[3]!.received().includes("event: feed"), 2000))
        // once a request ends, the client may send another
        proxy[0]!.socket.destroy()
        await sleep(100)
        const again = await get(port, "/api/v6/solver-feed", "127.0.0.51", { "x-forwarded-for": "203.0.113.7" })
        assert.strictEqual(again.status, 200)
        for (const raw of proxy) raw.socket.destroy()
      })
    }))
})

describe("shutdown", () => {
  it("does not wait for open event streams, or idle keep-alive, header-trickling or non-reading connections", {
    timeout: scaled(90_000)
  }, async () => {
    // a 2,000-route feed event (about 12 MB) does not fit in a non-reader's kernel buffers
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(
      Layer.buildWithScope(serverLayer(testConfig({ feedTtlSeconds: 3600 }), generateCatalog(2000)), scope)
    )
    const control = Context.get(context as Context.Context<App.AppControl>, App.AppControl)
    const port = Number(new URL(control.publicUrl).port)
    // a subscriber that reads the response head, then nothing
    const nonReader = connect({ port, host: "127.0.0.1", localAddress: "127.0.0.31" })
    nonReader.on("error", () => {})
    await new Promise<void>((resolve) => {
      nonReader.write("GET /api/v6/solver-feed/events HTTP/1.1\r\nHost: svc\r\n\r\n")
      nonReader.once("data", () => {
        nonReader.pause()
        resolve()
      })
    })
    // an idle keep-alive connection, and one still sending its headers
    const idle = await open(port, "127.0.0.32")
    idle.socket.write("GET /.well-known/svc-solver.json HTTP/1.1\r\nHost: svc\r\n\r\n")
    assert.isTrue(await eventually(() => statusOf(idle.received()) === 200, 2000))
    const trickler = await open(port, "127.0.0.33")
    trickler.socket.write("GET /api/v6/solver-feed HTTP/1.1\r\n")
    // and a subscriber that reads
    const reader = sseReader(await fetch(`${control.publicUrl}/api/v6/solver-feed/events`))
    // its first event is the 12 MB feed: read and split by this process too, slow on a loaded machine (seen:
    // 10 s not enough at a load average of 4 on 2 cores); what this test bounds is the shutdown below
    assert.strictEqual((await reader.nextEvent(scaled(30_000)))?.event, "feed")
    assert.strictEqual(control.subscribers(), 2)
    // the server's scope closes (the streams are not closed beforehand)
    const started = Date.now()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    const took = Date.now() - started
    nonReader.destroy()
    // waiting for the grace would take 10 s; the work itself takes well under a second on a quiet machine
    assert.isBelow(took, Math.min(scaled(4000), 9000), `shutdown took ${took} ms (grace 10 s)`)
    assert.strictEqual((await reader.nextEvent(scaled(2000)))?.event, "publication-closed")
    assert.isTrue(await eventually(() => idle.isClosed() && trickler.isClosed(), 1000))
  })
})

describe("connection limits: configuration and helpers", () => {
  const parse = (env: Record<string, string>) =>
    Effect.runSyncExit(ServerConfig.fromProvider(ConfigProvider.fromUnknown(env)))

  it("defaults and validation of the keys", () => {
    const defaults = Effect.runSync(ServerConfig.fromProvider(ConfigProvider.fromUnknown({})))
    assert.strictEqual(defaults.maxConnections, undefined)
    assert.strictEqual(defaults.maxConnectionsPerClient, 128)
    assert.strictEqual(defaults.headersTimeoutSeconds, 10)
    assert.strictEqual(defaults.requestTimeoutSeconds, 30)
    assert.strictEqual(defaults.sseMaxSubscribersPerClient, 32)
    assert.strictEqual(defaults.sseMaxLifetimeSeconds, 1800)
    assert.strictEqual(defaults.sseBacklogBytes, 65_536)
    const set = Effect.runSync(ServerConfig.fromProvider(ConfigProvider.fromUnknown({
      SVC_MAX_CONNECTIONS: "500",
      SVC_MAX_CONNECTIONS_PER_CLIENT: "20",
      SVC_HEADERS_TIMEOUT_SECONDS: "5",
      SVC_REQUEST_TIMEOUT_SECONDS: "15",
      SVC_SSE_MAX_SUBSCRIBERS_PER_CLIENT: "4",
      SVC_SSE_MAX_LIFETIME_SECONDS: "0",
      SVC_SSE_BACKLOG_BYTES: "131072"
    })))
    assert.deepStrictEqual(
      [
        set.maxConnections,
        set.maxConnectionsPerClient,
        set.headersTimeoutSeconds,
        set.requestTimeoutSeconds,
        set.sseMaxSubscribersPerClient,
        set.sseMaxLifetimeSeconds,
        set.sseBacklogBytes
      ],
      [500, 20, 5, 15, 4, 0, 131_072]
    )
    for (
      const [env, key] of [
        [{ SVC_MAX_CONNECTIONS: "0" }, "SVC_MAX_CONNECTIONS"],
        [{ SVC_MAX_CONNECTIONS_PER_CLIENT: "0" }, "SVC_MAX_CONNECTIONS_PER_CLIENT"],
        [{ SVC_HEADERS_TIMEOUT_SECONDS: "0" }, "SVC_HEADERS_TIMEOUT_SECONDS"],
        [{ SVC_HEADERS_TIMEOUT_SECONDS: "20", SVC_REQUEST_TIMEOUT_SECONDS: "10" }, "SVC_REQUEST_TIMEOUT_SECONDS"],
        [{ SVC_SSE_MAX_SUBSCRIBERS_PER_CLIENT: "0" }, "SVC_SSE_MAX_SUBSCRIBERS_PER_CLIENT"],
        [{ SVC_SSE_MAX_LIFETIME_SECONDS: "-1" }, "SVC_SSE_MAX_LIFETIME_SECONDS"],
        [{ SVC_SSE_BACKLOG_BYTES: "100" }, "SVC_SSE_BACKLOG_BYTES"]
      ] as const
    ) {
      const exit = parse(env)
      assert.isTrue(Exit.isFailure(exit), key)
      assert.include(String(Exit.isFailure(exit) ? (exit.cause.reasons[0] as any).error.message : ""), key)
    }
  })
})
