/**
 * The event stream's rules in the broadcaster itself (`src/Broadcaster.ts`), on
 * recording sinks: the initial event per Last-Event-ID (absent, older, equal,
 * newer, invalid), and a subscriber never getting one dataVersion twice nor an
 * older one, whatever order publications are handed over in.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Publisher } from "@svc/core"
import * as Broadcaster from "../src/Broadcaster.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** A publication as far as the broadcaster reads it: its dataVersion and the full view's body. */
const publication = (dataVersion: bigint): Publisher.Publication =>
  ({
    dataVersion,
    fullView: { body: encoder.encode(`{"ok":true,"feed":{"v":"${dataVersion}"}}`) }
  }) as unknown as Publisher.Publication

/** A sink recording what was written, parsed as SSE blocks. */
const recordingSink = (client = "127.0.0.1") => {
  let text = ""
  let ended = false
  const sink: Broadcaster.Sink = {
    client,
    write: (bytes) => void (text += decoder.decode(bytes)),
    buffered: () => 0,
    end: (bytes) => {
      if (bytes !== undefined) text += decoder.decode(bytes)
      ended = true
    },
    destroy: () => void (ended = true)
  }
  const blocks = () =>
    text.split("\n\n").filter((b) => b.length > 0).map((block) =>
      Object.fromEntries(
        block.split("\n").map((line) => {
          const i = line.indexOf(":")
          return [line.slice(0, i), line.slice(i + 1).replace(/^ /, "")]
        })
      ) as Record<string, string>
    )
  /** The ids of the `feed` events written so far, in order. */
  const feedIds = () => blocks().filter((b) => b.event === "feed").map((b) => b.id)
  return { sink, blocks, feedIds, ended: () => ended }
}

/** A broadcaster over a mutable current publication (no heartbeat during a test). */
const setup = (initial: bigint) => {
  let current: Publisher.Publication | undefined = publication(initial)
  const broadcaster = Broadcaster.make(() => current, { heartbeatMillis: 3_600_000, retryMillis: 3000 })
  return {
    broadcaster,
    /** Makes `p` current (what the publisher does before announcing it) and hands it to the broadcaster. */
    publish: (p: Publisher.Publication) => {
      current = p
      broadcaster.publish(p)
    }
  }
}

describe("Broadcaster: the initial event and Last-Event-ID", () => {
  it("retry first, then the current feed event whose id is its dataVersion and whose data is the SignedFeed", () => {
    const { broadcaster } = setup(7n)
    const r = recordingSink()
    broadcaster.subscribe(r.sink, undefined)
    const blocks = r.blocks()
    assert.deepStrictEqual(blocks[0], { retry: "3000" })
    assert.deepStrictEqual(blocks[1], { id: "7", event: "feed", data: "{\"v\":\"7\"}" })
    assert.lengthOf(blocks, 2)
    broadcaster.stop()
  })

  it("an older, a newer or an invalid Last-Event-ID gets the current event; an equal one gets nothing", () => {
    const { broadcaster } = setup(7n)
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["0", ["7"]],
      ["6", ["7"]],
      // newer than the current publication (a client of a replica that was ahead, or a forged id)
      ["8", ["7"]],
      ["700", ["7"]],
      ["18446744073709551616", ["7"]],
      // invalid
      ["07", ["7"]],
      ["abc", ["7"]],
      ["", ["7"]],
      ["-7", ["7"]],
      ["7 ", ["7"]],
      // equal: the client already has it
      ["7", []]
    ]
    for (const [lastEventId, expected] of cases) {
      const r = recordingSink()
      broadcaster.subscribe(r.sink, lastEventId)
      assert.deepStrictEqual(r.feedIds(), expected, `Last-Event-ID ${JSON.stringify(lastEventId)}`)
      assert.deepStrictEqual(r.blocks()[0], { retry: "3000" }, `Last-Event-ID ${JSON.stringify(lastEventId)}`)
    }
    broadcaster.stop()
  })

  it("a newer Last-Event-ID still receives the later publications", () => {
    const { broadcaster, publish } = setup(7n)
    const r = recordingSink()
    broadcaster.subscribe(r.sink, "9")
    publish(publication(8n))
    publish(publication(9n))
    publish(publication(10n))
    assert.deepStrictEqual(r.feedIds(), ["7", "8", "9", "10"])
    broadcaster.stop()
  })
})

describe("Broadcaster: never one dataVersion twice, never an older one", () => {
  it("the publication a subscriber connected on is not sent again when it is announced after the connect", () => {
    const { broadcaster, publish } = setup(3n)
    const fresh = recordingSink()
    const upToDate = recordingSink()
    broadcaster.subscribe(fresh.sink, undefined)
    broadcaster.subscribe(upToDate.sink, "3")
    // the publisher's announcement of the current publication arrives after the connects
    broadcaster.publish(publication(3n))
    assert.deepStrictEqual(fresh.feedIds(), ["3"])
    assert.deepStrictEqual(upToDate.feedIds(), [])
    publish(publication(4n))
    assert.deepStrictEqual(fresh.feedIds(), ["3", "4"])
    assert.deepStrictEqual(upToDate.feedIds(), ["4"])
    broadcaster.stop()
  })

  it("the same publication handed over twice, and an older one afterwards, are not written", () => {
    const { broadcaster, publish } = setup(1n)
    const r = recordingSink()
    broadcaster.subscribe(r.sink, undefined)
    const two = publication(2n)
    publish(two)
    publish(two)
    // another object of the same dataVersion (a follower adopting the leader's document)
    broadcaster.publish(publication(2n))
    broadcaster.publish(publication(1n))
    publish(publication(5n))
    broadcaster.publish(publication(4n))
    broadcaster.publish(publication(5n))
    publish(publication(6n))
    assert.deepStrictEqual(r.feedIds(), ["1", "2", "5", "6"])
    // every frame is whole: retry, then only feed events
    assert.deepStrictEqual(r.blocks().map((b) => Object.keys(b).join(",")), [
      "retry",
      "id,event,data",
      "id,event,data",
      "id,event,data",
      "id,event,data"
    ])
    assert.isFalse(r.ended())
    broadcaster.stop()
  })

  it("subscribers that connected at different versions each get every later version exactly once", () => {
    const { broadcaster, publish } = setup(10n)
    const early = recordingSink("10.0.0.1")
    broadcaster.subscribe(early.sink, undefined)
    publish(publication(11n))
    const late = recordingSink("10.0.0.2")
    broadcaster.subscribe(late.sink, "10")
    // a replay of every version so far, in any order, then new ones
    for (const v of [10n, 11n, 9n, 11n]) broadcaster.publish(publication(v))
    publish(publication(12n))
    publish(publication(12n))
    assert.deepStrictEqual(early.feedIds(), ["10", "11", "12"])
    assert.deepStrictEqual(late.feedIds(), ["11", "12"])
    assert.strictEqual(broadcaster.size(), 2)
    broadcaster.stop()
  })
})
