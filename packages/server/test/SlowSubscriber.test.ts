/**
 * Bounded memory for event-stream subscribers: a subscriber that stops reading is
 * disconnected (its socket makes no progress for three heartbeats), and while it
 * hangs it holds at most a few publications.
 */
import { assert, layer } from "@effect/vitest"
import { Publisher } from "@svc/core"
import { Effect } from "effect"
import { connect } from "node:net"
import { scaled } from "../../../test/support/time.ts"
import * as App from "../src/App.ts"
import { baseUrl, serverLayer, testConfig } from "./support/server.ts"

layer(serverLayer(testConfig({ sseHeartbeatMs: 200 })), { excludeTestServices: true, timeout: scaled(60_000) })(
  "slow subscribers",
  (it) => {
    it.effect("a subscriber that stops reading is disconnected while publications go on", () =>
      Effect.gen(function*() {
        const url = new URL(yield* baseUrl)
        const control = yield* Effect.service(App.AppControl)
        const publisher = yield* Publisher.Publisher
        const socket = connect(Number(url.port), url.hostname)
        yield* Effect.promise(() =>
          new Promise<void>((resolve) => {
            socket.write(`GET /api/v6/solver-feed/events HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`)
            socket.once("data", () => {
              // read the first chunk, then stop reading for good
              socket.pause()
              resolve()
            })
          })
        )
        assert.strictEqual(control.subscribers(), 1)
        // keep publishing: the server's writes to this socket stop draining; the server must drop
        // the subscriber (a paused client socket does not see the close until it reads again)
        for (let i = 0; i < 400 && control.subscribers() > 0; i++) {
          yield* publisher.publishNow
          if (i % 20 === 0) yield* Effect.sleep("20 millis")
        }
        const deadline = Date.now() + 10_000
        while (control.subscribers() > 0 && Date.now() < deadline) yield* Effect.sleep("50 millis")
        assert.strictEqual(control.subscribers(), 0, "the stalled subscriber was disconnected and released")
        // the publisher goes on for the others
        yield* publisher.publishNow
        socket.destroy()
      }))
  }
)
