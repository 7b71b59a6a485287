/**
 * Event-stream exhaustion (issue #15, finding 3), on real sockets: one client
 * cannot hold more than its share of streams, a subscriber that stops reading is
 * dropped by the byte backlog bound even while the kernel still accepts its
 * bytes, and a stream ends after its lifetime, its client resuming with
 * Last-Event-ID without receiving the same version again.
 */
import { assert, layer } from "@effect/vitest"
import { Publisher } from "@svc/core"
import { Effect } from "effect"
import { connect } from "node:net"
import { scaled } from "../../../test/support/time.ts"
import * as App from "../src/App.ts"
import { baseUrl, serverLayer, sseReader, testConfig } from "./support/server.ts"
import { eventually, open, statusOf } from "./support/sockets.ts"

const portOf = Effect.map(baseUrl, (url) => Number(new URL(url).port))

const STREAM = "GET /api/v6/solver-feed/events HTTP/1.1\r\nHost: svc\r\n\r\n"

layer(serverLayer(testConfig({ sseMaxSubscribersPerClient: 2, sseMaxLifetimeSeconds: 0 })), {
  excludeTestServices: true,
  timeout: scaled(30_000)
})("streams per client", (it) => {
  it.effect("a client's streams beyond its cap get 503, while another client subscribes", () =>
    Effect.gen(function*() {
      const port = yield* portOf
      const control = yield* Effect.service(App.AppControl)
      yield* Effect.promise(async () => {
        // non-readers: they read nothing after the request
        const held = [await open(port, "127.0.0.41"), await open(port, "127.0.0.41")]
        for (const raw of held) raw.socket.write(STREAM)
        assert.isTrue(await eventually(() => control.subscribers() === 2, 2000))
        const third = await open(port, "127.0.0.41")
        third.socket.write(STREAM)
        assert.isTrue(await eventually(() => statusOf(third.received()) !== undefined, 2000))
        assert.strictEqual(statusOf(third.received()), 503)
        assert.include(third.received(), "TOO_MANY_CLIENT_SUBSCRIBERS")
        assert.strictEqual(control.subscribers(), 2)
        const other = await open(port, "127.0.0.42")
        other.socket.write(STREAM)
        assert.isTrue(await eventually(() => other.received().includes("event: feed"), 2000))
        assert.strictEqual(statusOf(other.received()), 200)
        assert.strictEqual(control.subscribers(), 3)
        for (const raw of [...held, third, other]) raw.socket.destroy()
        assert.isTrue(await eventually(() => control.subscribers() === 0, 2000))
      })
    }))
})

// the default heartbeat (15 s): neither heartbeats nor the socket's inactivity timeout are involved
layer(serverLayer(testConfig({ sseMaxLifetimeSeconds: 0 })), { excludeTestServices: true, timeout: scaled(30_000) })(
  "the backlog bound",
  (it) => {
    it.effect("a subscriber that stops reading is dropped once its unacknowledged bytes pass twice the event", () =>
      Effect.gen(function*() {
        const port = yield* portOf
        const control = yield* Effect.service(App.AppControl)
        const publisher = yield* Publisher.Publisher
        const frameBytes = (yield* publisher.current).fullView.body.length
        // a subscriber that reads
        const reader = yield* Effect.promise(() => open(port, "127.0.0.43"))
        reader.socket.write(STREAM)
        // one that reads the response head, then nothing
        const stalled = connect({ port, host: "127.0.0.1", localAddress: "127.0.0.44" })
        stalled.on("error", () => {})
        yield* Effect.promise(() =>
          new Promise<void>((resolve) => {
            stalled.write(STREAM)
            stalled.once("data", () => {
              stalled.pause()
              resolve()
            })
          })
        )
        assert.isTrue(yield* Effect.promise(() => eventually(() => control.subscribers() === 2, 2000)))
        // publications go on: at most 40 of them (under 2 MB), which the kernel's buffers take without
        // a complaint (the process's own buffer stays empty)
        let published = 0
        while (published < 40 && control.subscribers() > 1) {
          yield* publisher.publishNow
          published++
          if (published % 5 === 0) yield* Effect.sleep("300 millis")
        }
        const dropped = yield* Effect.promise(() => eventually(() => control.subscribers() === 1, 2000))
        assert.isTrue(dropped, `the stalled subscriber was dropped (${published} events of ${frameBytes} bytes)`)
        // the one that reads got every version: the initial one and the later ones
        const ids = () => [...reader.received().matchAll(/^id: (\d+)$/gm)].length
        assert.isTrue(
          yield* Effect.promise(() => eventually(() => ids() === published + 1, 3000)),
          `${ids()} events of ${published + 1}`
        )
        assert.isFalse(reader.isClosed())
        reader.socket.destroy()
        stalled.destroy()
      }))
  }
)

layer(serverLayer(testConfig({ sseMaxLifetimeSeconds: 1, sseHeartbeatMs: 200 })), {
  excludeTestServices: true,
  timeout: scaled(30_000)
})("stream lifetime", (it) => {
  it.effect("a stream ends after its lifetime; reconnecting with Last-Event-ID gets no version twice", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const publisher = yield* Publisher.Publisher
      yield* Effect.promise(async () => {
        const started = Date.now()
        const first = sseReader(await fetch(`${url}/api/v6/solver-feed/events`))
        const event = await first.nextEvent()
        assert.strictEqual(event?.event, "feed")
        // the stream ends: the reader sees its end (only heartbeats before it)
        let block = await first.next(3000)
        while (block !== undefined && block.comment === "keep-alive" && Date.now() - started < scaled(3000)) {
          block = await first.next(3000)
        }
        const lived = Date.now() - started
        assert.isUndefined(block, "the stream ended")
        await first.cancel()
        assert.isAtLeast(lived, 850)
        // a lifetime of 1 s (on a loaded machine the end is read late: scaled)
        assert.isBelow(lived, scaled(2500))
        // the client reconnects with the last id it saw: no feed event until a new version
        const second = sseReader(
          await fetch(`${url}/api/v6/solver-feed/events`, { headers: { "last-event-id": event!.id! } })
        )
        assert.strictEqual((await second.next())?.retry, "3000")
        assert.isUndefined(await second.nextEvent(400), "the version it holds is not sent again")
        await second.cancel()
      })
      // a new version reaches a resumed stream
      yield* Effect.promise(async () => {
        const current = (await Effect.runPromise(publisher.current)).dataVersion.toString()
        const third = sseReader(
          await fetch(`${url}/api/v6/solver-feed/events`, { headers: { "last-event-id": current } })
        )
        await third.next()
        await Effect.runPromise(publisher.publishNow)
        const next = await third.nextEvent(2000)
        assert.strictEqual(next?.event, "feed")
        assert.isTrue(BigInt(next!.id!) > BigInt(current))
        await third.cancel()
      })
    }))
})
