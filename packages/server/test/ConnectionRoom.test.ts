/**
 * The global connection cap makes room instead of locking new clients out
 * (issue #26, finding 3), on real sockets with small caps: at the cap, a new
 * connection closes one that costs a descriptor and delivers nothing (idle,
 * still sending its headers), of the address holding the most connections,
 * oldest first; connections being answered (event streams) and those of
 * trusted proxies are never closed for room; only when nothing can be closed
 * is the newcomer closed at once. And a client's connection count is given
 * back when its connections close.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Result } from "effect"
import { scaled } from "../../../test/support/time.ts"
import * as ClientAddress from "../src/ClientAddress.ts"
import { baseUrl, serverLayer, testConfig } from "./support/server.ts"
import { eventually, get, open, type Raw, sleep, within } from "./support/sockets.ts"

const portOf = Effect.map(baseUrl, (url) => Number(new URL(url).port))

/** A connection that sends a request line and then one header line a second, never ending its headers. */
const trickler = async (port: number, address: string): Promise<Raw & { readonly stop: () => void }> => {
  const raw = await open(port, address)
  raw.socket.write("GET /api/v6/solver-feed HTTP/1.1\r\nHost: svc\r\n")
  const timer = setInterval(() => raw.socket.write("X-Pad: a\r\n"), 1000)
  raw.closed.then(() => clearInterval(timer))
  return { ...raw, stop: () => clearInterval(timer) }
}

/** A new well-behaved client: one feed request on a keep-alive connection, kept open; undefined when not served. */
const newcomer = async (port: number, address: string): Promise<Raw | undefined> => {
  const raw = await open(port, address)
  raw.socket.write("GET /api/v6/solver-feed HTTP/1.1\r\nHost: svc\r\n\r\n")
  const served = await eventually(() => raw.received().startsWith("HTTP/1.1 200 "), 3000)
  return served ? raw : undefined
}

/** An event stream that reads (being answered: never closed for room). */
const stream = async (port: number, address: string) => {
  const raw = await open(port, address)
  raw.socket.write("GET /api/v6/solver-feed/events HTTP/1.1\r\nHost: svc\r\n\r\n")
  assert.isTrue(await eventually(() => raw.received().includes("event: feed"), 3000), "the stream started")
  return raw
}

layer(
  serverLayer(testConfig({
    maxConnections: 24,
    maxConnectionsPerClient: 20,
    headersTimeoutSeconds: 30,
    requestTimeoutSeconds: 60,
    trustedProxies: Result.getOrThrow(ClientAddress.parseTrustedProxies("127.0.0.79"))
  })),
  { excludeTestServices: true, timeout: scaled(60_000) }
)("at the global connection cap", (it) => {
  it.effect("ten new well-behaved clients are served while trickling connections from four addresses fill the cap", () =>
    Effect.gen(function*() {
      const port = yield* portOf
      yield* Effect.promise(async () => {
        const held: Array<Raw & { readonly stop: () => void }> = []
        for (const address of ["127.0.0.71", "127.0.0.72", "127.0.0.73", "127.0.0.74"]) {
          for (let i = 0; i < 6; i++) held.push(await trickler(port, address))
        }
        await sleep(100)
        assert.isTrue(held.every((raw) => !raw.isClosed()), "24 connections: the cap is full")
        // each keeps its keep-alive connection open after its answer
        const served: Array<Raw | undefined> = []
        for (let i = 0; i < 10; i++) served.push(await newcomer(port, `127.0.1.${10 + i}`))
        assert.strictEqual(served.filter((raw) => raw !== undefined).length, 10, "10 of 10 served")
        // room was made by closing tricklers, one per newcomer
        assert.isTrue(await eventually(() => held.filter((raw) => raw.isClosed()).length === 10, 2000))
        assert.isTrue(served.every((raw) => !raw!.isClosed()), "the newcomers' connections are kept")
        for (const raw of [...held, ...served]) raw?.socket.destroy()
      })
    }))

  it.effect("the closed connection is the oldest idle one of the address holding the most; streams and a trusted proxy's are kept", () =>
    Effect.gen(function*() {
      const port = yield* portOf
      yield* Effect.promise(async () => {
        // the trusted proxy holds the oldest connections, idle
        const proxy: Array<Raw> = []
        for (let i = 0; i < 4; i++) proxy.push(await open(port, "127.0.0.79"))
        // 127.0.0.75 holds the most: 6 streams being answered, then 6 idle connections
        const streams: Array<Raw> = []
        for (let i = 0; i < 6; i++) streams.push(await stream(port, "127.0.0.75"))
        const heavy: Array<Raw> = []
        for (let i = 0; i < 6; i++) {
          heavy.push(await trickler(port, "127.0.0.75"))
          await sleep(5)
        }
        // 127.0.0.76 holds fewer, older than the heavy address's idle ones
        const light: Array<Raw> = []
        for (let i = 0; i < 8; i++) light.push(await trickler(port, "127.0.0.76"))
        await sleep(100)
        // 24: the cap is full; each newcomer closes one of 127.0.0.75's idle connections, oldest first
        const served: Array<Raw | undefined> = []
        for (let i = 0; i < 3; i++) {
          served.push(await newcomer(port, `127.0.1.${40 + i}`))
          assert.isDefined(served[i], `newcomer ${i} served`)
          assert.isDefined(await within(heavy[i]!.closed, 2000), `the heavy address's idle connection ${i} closed`)
        }
        await sleep(100)
        assert.isTrue(heavy.slice(3).every((raw) => !raw.isClosed()), "the newer idle ones are kept")
        assert.isTrue(streams.every((raw) => !raw.isClosed()), "streams being answered are kept")
        assert.isTrue(light.every((raw) => !raw.isClosed()), "the address holding fewer keeps its connections")
        assert.isTrue(proxy.every((raw) => !raw.isClosed()), "a trusted proxy's connections are kept")
        for (const raw of [...proxy, ...streams, ...heavy, ...light, ...served]) raw?.socket.destroy()
      })
    }))
})

layer(serverLayer(testConfig({ maxConnections: 4, maxConnectionsPerClient: 4 })), {
  excludeTestServices: true,
  timeout: scaled(60_000)
})("when nothing can be closed", (it) => {
  it.effect("a newcomer is closed at once when every connection is being answered", () =>
    Effect.gen(function*() {
      const port = yield* portOf
      yield* Effect.promise(async () => {
        const streams: Array<Raw> = []
        for (let i = 0; i < 4; i++) streams.push(await stream(port, "127.0.0.77"))
        const over = await open(port, "127.0.0.78")
        assert.isDefined(await within(over.closed, 1000), "closed at once")
        assert.strictEqual(over.received(), "")
        assert.isTrue(streams.every((raw) => !raw.isClosed()))
        for (const raw of streams) raw.socket.destroy()
      })
    }))
})

layer(serverLayer(testConfig({ maxConnectionsPerClient: 3 })), { excludeTestServices: true, timeout: scaled(60_000) })(
  "the per-client count",
  (it) => {
    it.effect("is given back when the client's connections close", () =>
      Effect.gen(function*() {
        const port = yield* portOf
        yield* Effect.promise(async () => {
          for (let round = 0; round < 3; round++) {
            const mine: Array<Raw> = []
            for (let i = 0; i < 3; i++) mine.push(await open(port, "127.0.0.81"))
            await sleep(50)
            assert.isTrue(mine.every((raw) => !raw.isClosed()), `round ${round}: 3 connections admitted`)
            for (const raw of mine) raw.socket.destroy()
            await sleep(100)
          }
          // and requests on fresh connections, closed after each answer, never add up
          for (let i = 0; i < 8; i++) {
            assert.strictEqual((await get(port, "/.well-known/svc-solver.json", "127.0.0.81")).status, 200)
          }
        })
      }))
  }
)
