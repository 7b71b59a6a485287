/**
 * Helpers of the connection and stream limits: the default global cap, the
 * timeouts given to `node:http`, reading a socket's unacknowledged bytes from
 * /proc/net/tcp, and the broadcaster's backlog sweep and stream lifetime on
 * recording sinks.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Publisher } from "@svc/core"
import * as Broadcaster from "../src/Broadcaster.ts"
import * as Connections from "../src/Connections.ts"
import * as SocketQueues from "../src/SocketQueues.ts"

describe("connection and stream limits: helpers", () => {
  it("the default global cap stays below the open-file limit", () => {
    assert.strictEqual(Connections.defaultMaxConnections(undefined), 12_000)
    assert.strictEqual(Connections.defaultMaxConnections(1024), 768)
    assert.strictEqual(Connections.defaultMaxConnections(1_048_576), 12_000)
    const options = Connections.serverOptions({ headersTimeoutSeconds: 10, requestTimeoutSeconds: 30 })
    assert.deepStrictEqual(
      [options.headersTimeout, options.requestTimeout, options.connectionsCheckingInterval],
      [10_000, 30_000, 1000]
    )
  })

  it("reads a socket's unacknowledged bytes from a /proc/net/tcp line", () => {
    const v4 = SocketQueues.keyOf({ address: "127.0.0.1", port: 8080 }, { address: "127.0.0.5", port: 40000 })
    assert.deepStrictEqual(v4, { family: "v4", key: "0100007F:1F90 0500007F:9C40" })
    const mapped = SocketQueues.keyOf(
      { address: "::ffff:127.0.0.1", port: 8080 },
      { address: "::ffff:127.0.0.5", port: 40000 }
    )
    assert.deepStrictEqual(mapped, {
      family: "v6",
      key: "0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000500007F:9C40"
    })
    const text = [
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0 100 0 0 10 0",
      "   1: 0100007F:1F90 0500007F:9C40 01 0001ADB0:00000000 01:00000014 00000000  1000        0 2 1 0 20 4 30 10 -1"
    ].join("\n")
    const entry = { value: 0 }
    SocketQueues.readQueues(text, new Map([[v4!.key, entry]]))
    assert.strictEqual(entry.value, 0x1adb0)
  })
})

describe("Broadcaster: backlog sweep and stream lifetime", () => {
  const publication = (dataVersion: bigint, bytes: number): Publisher.Publication =>
    ({
      dataVersion,
      fullView: { body: new TextEncoder().encode(`{"ok":true,"feed":{"pad":"${"x".repeat(bytes)}"}}`) }
    }) as unknown as Publisher.Publication
  const sink = (client: string, queued: () => number) => {
    const state = { ended: false, destroyed: false }
    const value: Broadcaster.Sink = {
      client,
      write: () => {},
      buffered: () => 0,
      queued,
      end: () => void (state.ended = true),
      destroy: () => void (state.destroyed = true)
    }
    return { value, state }
  }
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

  it("a sweep after a publication drops the subscribers whose kernel backlog passes twice the event", async () => {
    let current = publication(1n, 100_000)
    let probes = 0
    const broadcaster = Broadcaster.make(() => current, {
      heartbeatMillis: 3_600_000,
      sweepDelayMillis: 0,
      probe: async () => void probes++
    })
    const frame = Broadcaster.feedFrame(current).length
    const behind = { queued: 2 * frame + 1 }
    const slow = sink("10.0.0.1", () => behind.queued)
    const fine = sink("10.0.0.2", () => 2 * frame)
    broadcaster.subscribe(slow.value, undefined)
    broadcaster.subscribe(fine.value, undefined)
    current = publication(2n, 100_000)
    broadcaster.publish(current)
    await sleep(20)
    broadcaster.stop()
    assert.strictEqual(probes, 1)
    assert.isTrue(slow.state.destroyed, "more than twice the event behind: dropped")
    assert.isFalse(fine.state.destroyed, "exactly twice the event: kept")
    assert.strictEqual(broadcaster.size(), 1)
  })

  it("the bound never falls below the floor, and the floor below twice the event does not count", async () => {
    const current = publication(1n, 10)
    const broadcaster = Broadcaster.make(() => current, {
      heartbeatMillis: 3_600_000,
      sweepDelayMillis: 0,
      minBacklogBytes: 64 * 1024,
      probe: async () => {}
    })
    const small = sink("10.0.0.3", () => 60 * 1024)
    broadcaster.subscribe(small.value, undefined)
    broadcaster.publish(publication(2n, 10))
    await sleep(20)
    broadcaster.stop()
    assert.isFalse(small.state.destroyed, "60 KiB behind a tiny event: under the 64 KiB floor")
  })

  it("a stream past its lifetime is ended (not dropped) at a heartbeat", async () => {
    const current = publication(1n, 10)
    const broadcaster = Broadcaster.make(() => current, { heartbeatMillis: 20, maxLifetimeMillis: 500 })
    const subscriber = sink("10.0.0.4", () => 0)
    broadcaster.subscribe(subscriber.value, undefined)
    await sleep(50)
    assert.isFalse(subscriber.state.ended)
    await sleep(600)
    broadcaster.stop()
    assert.isTrue(subscriber.state.ended)
    assert.isFalse(subscriber.state.destroyed)
    assert.strictEqual(broadcaster.size(), 0)
  })

  it("per-client caps: a client at its cap is refused, others are not", () => {
    const current = publication(1n, 10)
    const broadcaster = Broadcaster.make(() => current, { heartbeatMillis: 3_600_000, maxPerClient: 2 })
    for (let i = 0; i < 2; i++) broadcaster.subscribe(sink("10.0.0.5", () => 0).value, undefined)
    assert.strictEqual(broadcaster.admit("10.0.0.5"), "TOO_MANY_CLIENT_SUBSCRIBERS")
    assert.strictEqual(broadcaster.admit("10.0.0.6"), undefined)
    broadcaster.stop()
  })
})
