/**
 * The verified feed stream against a real server, through a proxy that cuts
 * connections mid-event, replays an older signed feed, changes one byte of an
 * event, answers 503 or stalls: the client recovers, takes HTTP snapshots when
 * the stream cannot recover, and never yields an unverified or out-of-order feed.
 */
import { assert, layer } from "@effect/vitest"
import { Publisher } from "@svc/core"
import { App } from "@svc/server"
import { Effect, Fiber, Stream } from "effect"
import { scaled } from "../../../test/support/time.ts"
import {
  createClient,
  type FeedStreamEvent,
  type FeedStreamOptions,
  SvcClient,
  type VerifiedFeed
} from "../src/index.ts"
import { baseUrl, type ProxyPlan, type ProxyRequest, serverLayer, startProxy, tamperDigit } from "./support/server.ts"

const EVENTS = "/api/v6/solver-feed/events"
const FAST: FeedStreamOptions = { initialDelayMs: 5, maxDelayMs: 30 }

/** Runs the client's event stream through a proxy with `plan`; returns the collected events and controls. */
const streamThrough = (plan: (request: ProxyRequest) => ProxyPlan, options: FeedStreamOptions) =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    const proxy = yield* Effect.acquireRelease(
      Effect.promise(() => startProxy(url, plan)),
      (p) => Effect.promise(() => p.close())
    )
    const events: Array<FeedStreamEvent> = []
    const svc = yield* Effect.provide(SvcClient, SvcClient.layer({ baseUrl: proxy.url }))
    const fiber = yield* Effect.forkScoped(
      Stream.runForEach(svc.feedEvents(options), (event) => Effect.sync(() => void events.push(event)))
    )
    const feeds = () => events.flatMap((e) => e._tag === "Feed" ? [e.feed] : [])
    /** Waits until `n` feeds were yielded. */
    const untilFeeds = (n: number, ms = 10_000) =>
      Effect.gen(function*() {
        const deadline = Date.now() + ms
        while (feeds().length < n) {
          if (Date.now() > deadline) {
            assert.fail(`expected ${n} feeds; events: ${JSON.stringify(events.map(summary))}`)
          }
          yield* Effect.sleep("10 millis")
        }
        return feeds()
      })
    return { proxy, events, feeds, untilFeeds, fiber }
  })

const summary = (e: FeedStreamEvent) =>
  e._tag === "Feed"
    ? `Feed(${e.feed.dataVersion},${e.source})`
    : e._tag === "Rejected" || e._tag === "ConnectFailed" || e._tag === "SnapshotFailed"
    ? `${e._tag}(${e.error.code})`
    : e._tag === "Disconnected"
    ? `Disconnected(${e.reason})`
    : e._tag === "Skipped"
    ? `Skipped(${e.dataVersion})`
    : e._tag

const assertIncreasingVerified = (feeds: ReadonlyArray<VerifiedFeed>) => {
  for (const feed of feeds) assert.isTrue(feed.verification.valid)
  for (let i = 1; i < feeds.length; i++) {
    assert.isTrue(BigInt(feeds[i]!.dataVersion) > BigInt(feeds[i - 1]!.dataVersion), "strictly increasing dataVersion")
  }
}

const publish = Effect.flatMap(Publisher.Publisher, (p) => p.publishNow)

layer(serverLayer(), { excludeTestServices: true, timeout: scaled(60_000) })("feed stream", (it) => {
  it.effect("a stream cut mid-event recovers with Last-Event-ID and never yields a partial, unverified or repeated feed", () =>
    Effect.gen(function*() {
      const plan = (r: ProxyRequest): ProxyPlan =>
        r.path !== EVENTS
          ? { kind: "pass" }
          : r.n === 1
          ? { kind: "cut", events: 0, bytes: 1500 }
          : r.n === 2
          ? { kind: "cut", events: 0, bytes: 700 }
          : r.n === 3
          ? { kind: "cut", events: 1, bytes: 900 }
          : { kind: "pass" }
      const s = yield* streamThrough(plan, { ...FAST, fallbackAfter: 10 })
      const [first] = yield* s.untilFeeds(1)
      yield* publish // delivered on connection 3 and cut mid-event
      yield* s.untilFeeds(2)
      yield* publish // delivered on connection 4
      const feeds = yield* s.untilFeeds(3)
      yield* Fiber.interrupt(s.fiber)
      assertIncreasingVerified(feeds)
      assert.deepStrictEqual(feeds.map((f) => BigInt(f.dataVersion) - BigInt(first!.dataVersion)), [0n, 1n, 2n])
      assert.isTrue(
        s.events.every((e) => e._tag !== "Rejected" && e._tag !== "Skipped"),
        JSON.stringify(s.events.map(summary))
      )
      assert.isTrue(s.events.filter((e) => e._tag === "Feed").every((e) => e._tag === "Feed" && e.source === "stream"))
      assert.isAtLeast(s.events.filter((e) => e._tag === "Disconnected").length, 3)
      const connections = s.proxy.requests.filter((r) => r.path === EVENTS)
      assert.isAtLeast(connections.length, 4)
      assert.strictEqual(connections[0]!.headers["last-event-id"], undefined)
      assert.strictEqual(connections[1]!.headers["last-event-id"], undefined)
      assert.strictEqual(connections[3]!.headers["last-event-id"], first!.dataVersion)
      // no HTTP snapshot was needed
      assert.isFalse(s.proxy.requests.some((r) => r.path === "/api/v6/solver-feed"))
    }).pipe(Effect.scoped))

  it.effect("an older signed feed replayed on the stream is verified but never yielded", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const oldFeed = yield* Effect.promise(() => fetch(`${url}/api/v6/solver-feed`).then((r) => r.text()))
      const oldData = JSON.stringify((JSON.parse(oldFeed) as { feed: unknown }).feed).split(url).join("__URL__")
      const oldVersion = (JSON.parse(oldFeed) as { feed: { dataVersion: string } }).feed.dataVersion
      const current = yield* publish
      const target = (current.dataVersion + 1n).toString()
      let replaced = false
      const s = yield* streamThrough(
        (r) =>
          r.path === EVENTS
            ? {
              kind: "transformEvents",
              transform: (data) => {
                if ((JSON.parse(data) as { dataVersion: string }).dataVersion !== target) return data
                replaced = true
                return oldData.split("__URL__").join(url)
              }
            }
            : { kind: "pass" },
        FAST
      )
      const [first] = yield* s.untilFeeds(1)
      assert.strictEqual(first!.dataVersion, current.dataVersion.toString())
      yield* publish // the next version: replaced on the wire by the old feed
      // oxlint-disable-next-line no-unmodified-loop-condition -- set by the proxy's callback meanwhile
      while (!replaced) yield* Effect.sleep("10 millis")
      yield* publish
      const feeds = yield* s.untilFeeds(2)
      yield* Fiber.interrupt(s.fiber)
      assertIncreasingVerified(feeds)
      const skipped = s.events.filter((e) => e._tag === "Skipped")
      assert.deepStrictEqual(skipped.map((e) => e._tag === "Skipped" ? e.dataVersion : ""), [oldVersion])
      assert.isFalse(feeds.some((f) => f.dataVersion === oldVersion))
    }).pipe(Effect.scoped))

  it.effect("an event with one changed byte is rejected and dropped; a verified HTTP snapshot takes its place", () =>
    Effect.gen(function*() {
      const s = yield* streamThrough(
        (r) =>
          r.path === EVENTS && r.n === 1
            ? { kind: "transformEvents", transform: (data) => tamperDigit(data, "\"signedPayload\":") }
            : { kind: "pass" },
        FAST
      )
      const [snapshot] = yield* s.untilFeeds(1)
      yield* publish
      const feeds = yield* s.untilFeeds(2)
      yield* Fiber.interrupt(s.fiber)
      assertIncreasingVerified(feeds)
      const rejected = s.events.find((e) => e._tag === "Rejected")
      assert.isDefined(rejected)
      assert.strictEqual(rejected!._tag === "Rejected" ? rejected.error.code : "", "SVC_SDK_FEED_HASH_MISMATCH")
      const tags = s.events.filter((e) => e._tag === "Feed").map((e) => e._tag === "Feed" ? e.source : "")
      assert.deepStrictEqual(tags, ["snapshot", "stream"])
      // the reconnection resumed after the snapshot's version: no duplicate initial event
      const connections = s.proxy.requests.filter((r) => r.path === EVENTS)
      assert.strictEqual(connections[1]!.headers["last-event-id"], snapshot!.dataVersion)
      assert.isFalse(s.events.some((e) => e._tag === "Skipped"))
    }).pipe(Effect.scoped))

  it.effect("503 on the stream: falls back to a verified HTTP snapshot, then keeps trying the stream", () =>
    Effect.gen(function*() {
      const s = yield* streamThrough(
        (r) =>
          r.path === EVENTS && r.n <= 2
            ? {
              kind: "answer",
              status: 503,
              body: JSON.stringify({ ok: false, error: "PUBLICATION_CLOSED" }),
              headers: { "retry-after": "0" }
            }
            : { kind: "pass" },
        FAST
      )
      const [snapshot] = yield* s.untilFeeds(1)
      yield* Effect.sleep("200 millis")
      yield* publish
      const feeds = yield* s.untilFeeds(2)
      yield* Fiber.interrupt(s.fiber)
      assertIncreasingVerified(feeds)
      const firstFeed = s.events.find((e) => e._tag === "Feed")
      assert.strictEqual(firstFeed?._tag === "Feed" ? firstFeed.source : undefined, "snapshot")
      const failed = s.events.filter((e) => e._tag === "ConnectFailed")
      assert.isAtLeast(failed.length, 2)
      assert.strictEqual(failed[0]!._tag === "ConnectFailed" ? failed[0]!.error.code : "", "SVC_SDK_HTTP_ERROR")
      const connections = s.proxy.requests.filter((r) => r.path === EVENTS)
      assert.strictEqual(connections.at(-1)!.headers["last-event-id"], snapshot!.dataVersion)
      assert.isAtLeast(s.proxy.requests.filter((r) => r.path === "/api/v6/solver-feed").length, 1)
    }).pipe(Effect.scoped))

  it.effect("a silent connection is dropped after idleTimeoutMs; repeated failures end the stream when asked", () =>
    Effect.gen(function*() {
      const s = yield* streamThrough((r) => r.path === EVENTS && r.n === 1 ? { kind: "stall" } : { kind: "pass" }, {
        ...FAST,
        idleTimeoutMs: 150
      })
      yield* s.untilFeeds(1)
      yield* Fiber.interrupt(s.fiber)
      assert.isTrue(s.events.some((e) => e._tag === "Disconnected" && e.reason === "no data for 150 ms"))

      const url = yield* baseUrl
      const proxy = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startProxy(url, (r) =>
            r.path.startsWith("/api/v6/solver-feed")
              ? { kind: "answer", status: 500, body: JSON.stringify({ ok: false, error: "INTERNAL_ERROR" }) }
              : { kind: "pass" })
        ),
        (p) => Effect.promise(() => p.close())
      )
      const svc = yield* Effect.provide(SvcClient, SvcClient.layer({ baseUrl: proxy.url }))
      const error = yield* Effect.flip(Stream.runDrain(svc.feedStream({ ...FAST, maxConsecutiveFailures: 4 })))
      assert.strictEqual(error.code, "SVC_SDK_HTTP_ERROR")
    }).pipe(Effect.scoped))

  it.effect("a stream the server ends cleanly (its lifetime) is reopened after retry:, never counted as a failure", () =>
    Effect.gen(function*() {
      // five connections that the server ends at once, with only its retry: line (a lifetime shorter
      // than a heartbeat), then the real stream: with maxConsecutiveFailures 3, failures would end it
      const s = yield* streamThrough(
        (r) =>
          r.path === EVENTS && r.n <= 5
            ? {
              kind: "answer",
              status: 200,
              body: "retry: 5\n\n",
              headers: { "content-type": "text/event-stream" }
            }
            : { kind: "pass" },
        { ...FAST, maxConsecutiveFailures: 3 }
      )
      yield* s.untilFeeds(1)
      const reconnecting = s.events.filter((e) => e._tag === "Reconnecting")
      assert.isAtLeast(reconnecting.length, 5)
      for (const e of reconnecting) assert.strictEqual(e._tag === "Reconnecting" ? e.failures : -1, 0)
      assert.isFalse(s.events.some((e) => e._tag === "ConnectFailed"))
      // no HTTP snapshot: nothing failed
      assert.strictEqual(s.proxy.requests.filter((r) => r.path === "/api/v6/solver-feed").length, 0)
      assert.strictEqual(s.feeds()[0]!.verification.valid, true)
    }).pipe(Effect.scoped))

  it.effect("Promise API: for await over verified feeds; close() stops the stream and its connection", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const control = yield* App.AppControl
      const client = createClient({ baseUrl: url })
      const seen: Array<string> = []
      const subscription = client.subscribe({ ...FAST, onEvent: (e) => seen.push(e._tag) })
      const first = yield* Effect.promise(async () => {
        for await (const feed of subscription) return feed
        return undefined
      })
      assert.isTrue(first!.verification.valid)
      assert.includeMembers(seen, ["Connected", "Feed"])
      // the loop's break closed the subscription: the server sees the subscriber leave
      const deadline = Date.now() + 5000
      while (control.subscribers() > 0 && Date.now() < deadline) yield* Effect.sleep("20 millis")
      assert.strictEqual(control.subscribers(), 0)
      assert.deepStrictEqual(yield* Effect.promise(() => subscription.next()), { done: true, value: undefined })

      const second = client.subscribe(FAST)
      const next = yield* Effect.promise(() => second.next())
      assert.isFalse(next.done)
      // close() while a next() is waiting for the next publication: the pending next() ends the iteration
      const pending = second.next()
      yield* Effect.sleep("50 millis")
      yield* Effect.promise(() => second.close())
      assert.deepStrictEqual(yield* Effect.promise(() => pending), { done: true, value: undefined })
      while (control.subscribers() > 0 && Date.now() < deadline + 5000) yield* Effect.sleep("20 millis")
      assert.strictEqual(control.subscribers(), 0)
    }))
})
