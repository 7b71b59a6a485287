/**
 * Compressed event streams (`src/StreamEncoding.ts`, `src/Broadcaster.ts`):
 *
 * - the CRC-32 combination equals zlib's CRC-32 of the concatenation;
 * - Accept-Encoding negotiation: zstd, then gzip, never a refused (q=0) coding;
 * - whatever happens to a stream (connects with any Last-Event-ID, small and
 *   large publications in any order, heartbeats, a normal end), the bytes a
 *   gzip or zstd subscriber receives decode, with a complete and valid trailer,
 *   to exactly the bytes an identity subscriber of the same broadcaster
 *   receives; each frame is compressed once for all its subscribers.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Publisher } from "@svc/core"
import fc from "fast-check"
import * as zlib from "node:zlib"
import * as Broadcaster from "../src/Broadcaster.ts"
import * as StreamEncoding from "../src/StreamEncoding.ts"

const encoder = new TextEncoder()

describe("StreamEncoding: CRC-32 combination", () => {
  it("crc32Combine(crc(a), crc(b), |b|) = crc(a ‖ b)", () =>
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (a, b) => {
        const joined = new Uint8Array([...a, ...b])
        assert.strictEqual(StreamEncoding.crc32Combine(zlib.crc32(a), zlib.crc32(b), b.length), zlib.crc32(joined))
      }),
      { numRuns: 300 }
    ))

  it("holds for lengths past 2^16 and 2^24 (the carried exponent)", () => {
    for (const length of [65_537, 1 << 24 | 5]) {
      const a = encoder.encode("prefix")
      const b = new Uint8Array(length).fill(0x5a)
      assert.strictEqual(
        StreamEncoding.crc32Combine(zlib.crc32(a), zlib.crc32(b), b.length),
        zlib.crc32(Buffer.concat([a, b]))
      )
    }
  })
})

describe("StreamEncoding: negotiation", () => {
  const cases: ReadonlyArray<readonly [string | undefined, StreamEncoding.StreamEncoding]> = [
    [undefined, "identity"],
    ["", "identity"],
    ["gzip, deflate", "gzip"],
    ["gzip, deflate, br, zstd", "zstd"],
    ["br", "identity"],
    ["zstd;q=0, gzip", "gzip"],
    ["GZIP", "gzip"],
    ["*", "zstd"],
    ["*;q=0", "identity"],
    ["gzip;q=0, *", "zstd"],
    ["identity", "identity"],
    ["gzip;q=0", "identity"]
  ]
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)} → ${expected}`, () => assert.strictEqual(StreamEncoding.negotiate(header), expected))
  }

  it("never picks a coding the header refuses", () =>
    fc.assert(fc.property(
      fc.array(
        fc.record({
          coding: fc.constantFrom("gzip", "zstd", "br", "deflate", "*"),
          q: fc.constantFrom("", ";q=0", ";q=0.5", ";q=1")
        })
      ),
      (parts) => {
        const header = parts.map((p) => `${p.coding}${p.q}`).join(", ")
        const chosen = StreamEncoding.negotiate(header)
        if (chosen === "identity") return
        const named = parts.filter((p) => p.coding === chosen)
        const star = parts.filter((p) => p.coding === "*")
        const governing = named.length > 0 ? named : star
        assert.isAbove(governing.length, 0, header)
        assert.notStrictEqual(governing.at(-1)!.q, ";q=0", header)
      }
    )))
})

/** A publication whose full view is `{"ok":true,"feed":<body>}` with a body of `size` bytes. */
const publication = (dataVersion: bigint, size: number): Publisher.Publication => {
  const filler = "x".repeat(Math.max(0, size))
  return ({
    dataVersion,
    fullView: { body: encoder.encode(`{"ok":true,"feed":{"v":"${dataVersion}","f":"${filler}"}}`) }
  }) as unknown as Publisher.Publication
}

/** A sink that keeps every byte written and whether the stream ended normally. */
const keepingSink = (encoding: StreamEncoding.StreamEncoding) => {
  const chunks: Array<Uint8Array> = []
  let ended: "no" | "end" | "destroy" = "no"
  const sink: Broadcaster.Sink = {
    client: `client-${encoding}`,
    encoding,
    write: (bytes) => void chunks.push(bytes),
    buffered: () => 0,
    end: (bytes) => {
      if (bytes !== undefined) chunks.push(bytes)
      ended = "end"
    },
    destroy: () => void (ended = "destroy")
  }
  return { sink, bytes: () => Buffer.concat(chunks), writes: () => chunks, ended: () => ended }
}

type Step = { readonly _tag: "publish"; readonly size: number } | { readonly _tag: "wait" }

/**
 * Decodes a zstd stream written as frames: each write is one complete frame
 * (zlib's decoders stop at the end of the first frame of a buffer; browsers'
 * streaming decoders read frame after frame, which the browser test checks).
 */
const unzstd = (writes: ReadonlyArray<Uint8Array>) => Buffer.concat(writes.map((w) => zlib.zstdDecompressSync(w)))

const settle = (ms = 5) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The ids of the feed events in an SSE text. */
const feedIds = (text: string) => [...text.matchAll(/^id: (\d+)\nevent: feed\n/gm)].map((m) => m[1])

describe("StreamEncoding: compressed streams decode to the identity stream", () => {
  it(
    "gzip and zstd subscribers receive, decoded, exactly the identity subscriber's bytes (frames compressed on the loop)",
    () =>
      fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.oneof(
              fc.record({ _tag: fc.constant("publish" as const), size: fc.integer({ min: 0, max: 5000 }) }),
              fc.constant({ _tag: "wait" as const })
            ),
            { maxLength: 8 }
          ),
          fc.option(fc.constantFrom("1", "2", "junk"), { nil: undefined }),
          async (steps: ReadonlyArray<Step>, lastEventId) => {
            let version = 1n
            let current = publication(version, 10)
            // heartbeats every 10 ms: the waits interleave them with the events
            const broadcaster = Broadcaster.make(() => current, { heartbeatMillis: 10, retryMillis: 1000 })
            try {
              const plain = keepingSink("identity")
              const gzip = keepingSink("gzip")
              const zstd = keepingSink("zstd")
              for (const s of [plain, gzip, zstd]) broadcaster.subscribe(s.sink, lastEventId)
              for (const step of steps) {
                if (step._tag === "publish") {
                  current = publication(++version, step.size)
                  broadcaster.publish(current)
                } else await settle()
              }
              broadcaster.closeAll()
              assert.strictEqual(gzip.ended(), "end")
              assert.strictEqual(zstd.ended(), "end")
              // a complete gzip member: header, blocks, final block, CRC-32 and length, all checked by zlib
              const identity = plain.bytes()
              assert.deepStrictEqual(zlib.gunzipSync(gzip.bytes()), identity)
              assert.deepStrictEqual(unzstd(zstd.writes()), identity)
            } finally {
              broadcaster.stop()
            }
          }
        ),
        { numRuns: 60 }
      ),
    60_000
  )

  it("a large frame is compressed off the loop, reaches its subscribers, and the stream still decodes", async () => {
    let current = publication(1n, 10)
    const broadcaster = Broadcaster.make(() => current, { heartbeatMillis: 3_600_000 })
    try {
      const plain = keepingSink("identity")
      const gzip = keepingSink("gzip")
      const zstd = keepingSink("zstd")
      for (const s of [plain, gzip, zstd]) broadcaster.subscribe(s.sink, undefined)
      current = publication(2n, StreamEncoding.ASYNC_FROM_BYTES + 17)
      broadcaster.publish(current)
      // not yet: the compressed subscribers wait for the thread pool, the identity one has it
      assert.deepStrictEqual(feedIds(plain.bytes().toString()), ["1", "2"])
      assert.deepStrictEqual(
        feedIds(zlib.gunzipSync(gzip.bytes(), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString()),
        ["1"]
      )
      // written: gzip header, retry, event 1, event 2; zstd: retry, event 1, event 2
      for (let i = 0; i < 400 && (gzip.writes().length < 4 || zstd.writes().length < 3); i++) await settle()
      broadcaster.closeAll()
      assert.deepStrictEqual(zlib.gunzipSync(gzip.bytes()), plain.bytes())
      assert.deepStrictEqual(unzstd(zstd.writes()), plain.bytes())
    } finally {
      broadcaster.stop()
    }
  })

  it("a newer publication ready first wins: the older large frame is skipped, never sent after it", async () => {
    let current = publication(1n, 10)
    const broadcaster = Broadcaster.make(() => current, { heartbeatMillis: 3_600_000 })
    try {
      const gzip = keepingSink("gzip")
      broadcaster.subscribe(gzip.sink, "1")
      current = publication(2n, StreamEncoding.ASYNC_FROM_BYTES + 17)
      broadcaster.publish(current)
      current = publication(3n, 10)
      broadcaster.publish(current)
      await settle(300)
      broadcaster.closeAll()
      assert.deepStrictEqual(feedIds(zlib.gunzipSync(gzip.bytes()).toString()), ["3"])
    } finally {
      broadcaster.stop()
    }
  })

  it("a frame is compressed once for every subscriber of a coding (the same bytes)", async () => {
    let current = publication(1n, StreamEncoding.ASYNC_FROM_BYTES * 2)
    const broadcaster = Broadcaster.make(() => current, { heartbeatMillis: 3_600_000 })
    try {
      const sinks = Array.from({ length: 3 }, () => {
        const written: Array<Uint8Array> = []
        const sink: Broadcaster.Sink = {
          client: "c",
          encoding: "zstd",
          write: (bytes) => void written.push(bytes),
          buffered: () => 0,
          end: () => {},
          destroy: () => {}
        }
        broadcaster.subscribe(sink, "1")
        return written
      })
      current = publication(2n, StreamEncoding.ASYNC_FROM_BYTES * 2)
      broadcaster.publish(current)
      for (let i = 0; i < 200 && sinks[0]!.length < 2; i++) await settle()
      // retry, then the feed frame: the feed frame is one shared buffer
      assert.strictEqual(sinks[0]!.length, 2)
      assert.strictEqual(sinks[0]![1], sinks[1]![1])
      assert.strictEqual(sinks[1]![1], sinks[2]![1])
    } finally {
      broadcaster.stop()
    }
  })
})
