/**
 * The event stream, read incrementally within an event and time budget: the
 * content type, the event names, `id` = dataVersion, the Last-Event-ID rules of
 * spec part 6, verification of every `feed` event, and no replay of history.
 * (A later publication arriving on an open stream is in the timing group.)
 *
 * @since 0.1.0
 */
import { SignedFeed, SseErrorEvent } from "@svc/protocol"
import { Clock, Effect } from "effect"
import * as Check from "../Check.ts"
import type { Exchange } from "../Exchange.ts"
import { Options } from "../RunOptions.ts"
import { asObject, failure, Shared } from "../Shared.ts"
import type { SseEvent } from "../Sse.ts"
import { Transport } from "../Transport.ts"
import { type Env, firstDifference, nowSeconds, sameJson, verifyFeed } from "./common.ts"

const EVENTS = "/api/v6/solver-feed/events"
const UINT = /^(?:0|[1-9][0-9]*)$/

/**
 * Opens the stream (scoped); a transport failure or a non-stream answer fails the check.
 *
 * @category operations
 * @since 0.1.0
 */
export const open = (lastEventId?: string) =>
  Effect.gen(function*() {
    const transport = yield* Transport
    const handle = yield* transport.stream({
      path: EVENTS,
      ...(lastEventId === undefined ? {} : { headers: { "last-event-id": lastEventId } })
    }).pipe(
      Effect.catchTags({
        TransportError: (e) =>
          Check.fail({ title: "the event stream did not answer", expected: "200 text/event-stream", actual: e.reason }),
        RateLimited: (e) => Effect.fail(new Check.Inconclusive({ reason: e.reason }))
      })
    )
    if (!handle.streaming) {
      return yield* Check.fail(
        failure(
          handle.exchange,
          "the event stream is not served",
          "200 text/event-stream",
          `${handle.exchange.response.status} ${handle.exchange.response.headers["content-type"] ?? ""} ${
            handle.exchange.response.body.slice(0, 300)
          }`
        )
      )
    }
    return handle
  })

/** The current dataVersion by HTTP (read just before connecting). */
const currentVersion = Effect.gen(function*() {
  const shared = yield* Shared
  const feed = yield* shared.freshFeed
  return feed
})

/** How long "sent immediately" may take: the option, else the request timeout, at most 5 s. */
const immediateMs = Effect.map(
  Effect.service(Options),
  (o) => o.immediateMillis ?? Math.min(o.timeoutSeconds * 1000, 5000)
)
const quietMs = Effect.map(Effect.service(Options), (o) => o.quietMillis)

const describeEvent = (e: SseEvent | undefined) =>
  e === undefined ? "no event" : `event ${e.event}, id ${e.idInBlock ? e.lastEventId : "(none)"}`

/**
 * The problems of one feed event: id = dataVersion, strict schema, verification.
 *
 * @category operations
 * @since 0.1.0
 */
export const feedEventProblems = (event: SseEvent, authority: string, now: number) => {
  const problems: Array<{ title: string; expected: string; actual: string }> = []
  let data: unknown
  try {
    data = JSON.parse(event.data)
  } catch {
    return [{ title: "a feed event's data is not JSON", expected: "a SignedFeed", actual: event.data.slice(0, 200) }]
  }
  const feed = asObject(data)
  if (!event.idInBlock) {
    problems.push({ title: "a feed event has no id", expected: "id: <dataVersion>", actual: "no id line" })
  } else if (event.lastEventId !== String(feed?.dataVersion)) {
    problems.push({
      title: "a feed event's id is not its dataVersion",
      expected: String(feed?.dataVersion),
      actual: event.lastEventId
    })
  }
  const issues = Check.schemaIssues(SignedFeed, data)
  if (issues.length > 0) {
    problems.push({
      title: "a feed event's data is not a strict SignedFeed",
      expected: "SignedFeed",
      actual: issues.slice(0, 5).join("; ")
    })
  }
  if (feed !== undefined) {
    problems.push(
      ...verifyFeed(feed, authority, now).map((p) => ({ ...p, title: `feed event ${event.lastEventId}: ${p.title}` }))
    )
  }
  return problems
}

const nowMs = Clock.currentTimeMillis

const firstFeedEvent = (handle: { readonly next: (ms: number) => Effect.Effect<SseEvent | undefined> }, ms: number) =>
  Effect.gen(function*() {
    const deadline = (yield* nowMs) + ms
    while (true) {
      const left = deadline - (yield* nowMs)
      if (left <= 0) return undefined
      const event = yield* handle.next(left)
      if (event === undefined) return undefined
      if (event.event === "feed") return event
      // publication-closed or error before the feed: reported by the caller
      if (event.event === "publication-closed" || event.event === "error") return event
    }
  })

const expectCurrentFeed = (lastEventId: string | undefined, title: string) =>
  Effect.scoped(Effect.gen(function*() {
    const shared = yield* Shared
    const authority = yield* shared.authority
    const http = yield* currentVersion
    const handle = yield* open(lastEventId)
    const first = yield* firstFeedEvent(handle, yield* immediateMs)
    const exchange: Exchange = handle.exchange
    if (first === undefined || first.event !== "feed") {
      return yield* Check.fail(
        failure(exchange, title, `a feed event with id ${http.dataVersion} at once`, describeEvent(first))
      )
    }
    if (!first.idInBlock || !UINT.test(first.lastEventId) || BigInt(first.lastEventId) < BigInt(http.dataVersion)) {
      return yield* Check.fail(
        failure(
          exchange,
          `${title}: the first event is not the current feed`,
          `id ${http.dataVersion} (the current dataVersion) or newer`,
          describeEvent(first)
        )
      )
    }
    const c = Check.collector()
    for (const p of feedEventProblems(first, authority, yield* nowSeconds)) {
      c.add(failure(exchange, p.title, p.expected, p.actual))
    }
    if (first.lastEventId === http.dataVersion) {
      const data = asObject(JSON.parse(first.data))
      if (!sameJson(data?.signedPayload, http.payload)) {
        c.add(
          failure(
            exchange,
            "the event's signedPayload differs from the HTTP feed of the same dataVersion",
            "the same signedPayload",
            firstDifference(data?.signedPayload, http.payload) ?? ""
          )
        )
      }
    }
    yield* c.done
    return { first, http, handle }
  }))

const contentType = Check.make<Env>({
  name: "sse_content_type",
  group: "sse",
  title: "the stream answers 200 text/event-stream, not cacheable (Cache-Control no-store)",
  reference:
    "spec §4 streamSolverFeed (200 text/event-stream); §8 Caching; docs/operations.md, HTTP rules of the solver interface (event stream: no-store)",
  run: Effect.scoped(Effect.gen(function*() {
    const handle = yield* open()
    const h = handle.exchange.response.headers
    const cache = h["cache-control"] ?? ""
    if (!/no-store/.test(cache)) {
      return yield* Check.fail(
        failure(handle.exchange, "the event stream may be cached", "Cache-Control: no-store", cache || "absent")
      )
    }
  }))
})

const initial = Check.make<Env>({
  name: "sse_initial_event",
  group: "sse",
  title:
    "without Last-Event-ID the current feed event is sent at once: id = dataVersion, strict SignedFeed, verified, same signedPayload as HTTP",
  reference: "spec §6 initial-event rule 1; §5.5 (verify signed state)",
  run: Effect.asVoid(expectCurrentFeed(undefined, "no feed event on connect"))
})

const older = Check.make<Env>({
  name: "sse_last_event_id_older",
  group: "sse",
  title:
    "Last-Event-ID older than the current dataVersion gets the current feed event at once (not the ones in between)",
  reference: "spec §6 initial-event rule 2",
  run: Effect.gen(function*() {
    const http = yield* currentVersion
    const version = BigInt(http.dataVersion)
    if (version === 0n) return yield* new Check.Skip({ reason: "the current dataVersion is 0: there is no older one" })
    yield* expectCurrentFeed((version - 1n).toString(), "Last-Event-ID older than current: no feed event")
  })
})

const equal = Check.make<Env>({
  name: "sse_last_event_id_equal",
  group: "sse",
  title: "Last-Event-ID equal to the current dataVersion suppresses the initial event (nothing with that id arrives)",
  reference: "spec §6 initial-event rule 3",
  run: Effect.scoped(Effect.gen(function*() {
    const http = yield* currentVersion
    const handle = yield* open(http.dataVersion)
    const quiet = yield* quietMs
    const deadline = (yield* nowMs) + quiet
    while ((yield* nowMs) < deadline) {
      const event = yield* handle.next(deadline - (yield* nowMs))
      if (event === undefined) break
      if (event.event !== "feed") continue
      if (event.idInBlock && UINT.test(event.lastEventId) && BigInt(event.lastEventId) > BigInt(http.dataVersion)) {
        continue // a new publication
      }
      return yield* Check.fail(
        failure(
          handle.exchange,
          "the initial event was not suppressed",
          `no feed event with id <= ${http.dataVersion} within ${quiet} ms`,
          describeEvent(event)
        )
      )
    }
  }))
})

const invalid = Check.make<Env>({
  name: "sse_last_event_id_invalid",
  group: "sse",
  title:
    "an invalid Last-Event-ID (not a UintStr: \"abc\", \"007\", \"-1\") is ignored: the current feed event is sent",
  reference: "spec §6 initial-event rule 4; §4 (Last-Event-ID pattern)",
  run: Effect.gen(function*() {
    for (const id of ["abc", "007", "-1"]) yield* expectCurrentFeed(id, `Last-Event-ID ${id}: no feed event`)
  })
})

const newer = Check.make<Env>({
  name: "sse_last_event_id_newer",
  group: "sse",
  title: "a Last-Event-ID newer than the current dataVersion gets the current feed event",
  reference:
    "docs/operations.md, HTTP rules of the solver interface (event stream: a Last-Event-ID other than the current dataVersion gets the current feed)",
  run: Effect.gen(function*() {
    const http = yield* currentVersion
    yield* expectCurrentFeed(
      (BigInt(http.dataVersion) + 1000n).toString(),
      "Last-Event-ID newer than current: no feed event"
    )
  })
})

const noReplay = Check.make<Env>({
  name: "sse_no_replay",
  group: "sse",
  title: "a connection gets the current state only: no earlier feed event before or after it, ids strictly increasing",
  reference: "spec §6 (current-state stream, no replay; rule 6: Last-Event-ID only suppresses, no history is replayed)",
  run: Effect.gen(function*() {
    const http = yield* currentVersion
    const version = BigInt(http.dataVersion)
    const quiet = yield* quietMs
    for (const lastEventId of version > 0n ? [undefined, "0"] : [undefined]) {
      yield* Effect.scoped(Effect.gen(function*() {
        const handle = yield* open(lastEventId)
        const first = yield* handle.next(yield* immediateMs)
        const deadline = (yield* nowMs) + Math.max(quiet, 200)
        const seen: Array<SseEvent> = first === undefined ? [] : [first]
        while ((yield* nowMs) < deadline) {
          const event = yield* handle.next(deadline - (yield* nowMs))
          if (event === undefined) break
          seen.push(event)
        }
        const feeds = seen.filter((e) => e.event === "feed")
        const ids = feeds.map((e) => (e.idInBlock && UINT.test(e.lastEventId) ? BigInt(e.lastEventId) : -1n))
        const where = lastEventId === undefined ? "without Last-Event-ID" : `with Last-Event-ID ${lastEventId}`
        if (ids.length > 0 && ids[0]! < version) {
          return yield* Check.fail(
            failure(
              handle.exchange,
              `history was replayed ${where}`,
              `the first feed event has the current id ${version}`,
              `ids ${ids.join(", ")}`
            )
          )
        }
        for (let i = 1; i < ids.length; i++) {
          if (ids[i]! <= ids[i - 1]!) {
            return yield* Check.fail(
              failure(
                handle.exchange,
                `an earlier or repeated feed event was sent ${where}`,
                "strictly increasing ids",
                `ids ${ids.join(", ")}`
              )
            )
          }
        }
      }))
    }
  })
})

const names = Check.make<Env>({
  name: "sse_event_names",
  group: "sse",
  title:
    "every event read in this run is feed, publication-closed or error; feed events carry an id; error events are strict SseErrorEvent",
  reference: "spec §6 (event names); §2 SseErrorEvent",
  run: Effect.gen(function*() {
    const transport = yield* Transport
    const streams = (yield* transport.exchanges).filter((e) => e.stream !== undefined)
    if (streams.length === 0) return yield* new Check.Skip({ reason: "no event stream was read in this run" })
    const c = Check.collector()
    for (const exchange of streams) {
      for (const event of exchange.stream!.events) {
        if (!["feed", "publication-closed", "error"].includes(event.event)) {
          c.add(
            failure(
              exchange,
              `an event named ${event.event} was sent`,
              "feed, publication-closed or error",
              event.event
            )
          )
        } else if (event.event !== "feed") {
          let data: unknown
          try {
            data = JSON.parse(event.data)
          } catch {
            data = event.data
          }
          const issues = Check.schemaIssues(SseErrorEvent, data)
          if (issues.length > 0) {
            c.add(
              failure(
                exchange,
                `the ${event.event} event's data is not a strict SseErrorEvent`,
                "{ \"error\": string }",
                `${event.data.slice(0, 200)} (${issues.join("; ")})`
              )
            )
          }
        } else if (!event.idInBlock) {
          c.add(failure(exchange, "a feed event has no id", "id: <dataVersion>", "no id line"))
        }
      }
    }
    yield* c.done
  })
})

const verified = Check.make<Env>({
  name: "sse_every_event_verified",
  group: "sse",
  title:
    "every feed event read in this run verifies (id = dataVersion, strict schema, hash, signer, validity) with ids increasing per connection",
  reference: "spec §6 (feed event: id = dataVersion, data SignedFeed); §5.5",
  run: Effect.gen(function*() {
    const transport = yield* Transport
    const shared = yield* Shared
    const authority = yield* shared.authority
    const streams = (yield* transport.exchanges).filter((e) => e.stream !== undefined)
    const c = Check.collector()
    let count = 0
    const now = yield* nowSeconds
    for (const exchange of streams) {
      let last = -1n
      for (const event of exchange.stream!.events.filter((e) => e.event === "feed")) {
        count++
        const received = Math.floor(exchange.startedAt / 1000)
        for (const p of feedEventProblems(event, authority, Math.min(now, Math.max(received, now - 60)))) {
          c.add(failure(exchange, p.title, p.expected, p.actual))
        }
        const id = event.idInBlock && UINT.test(event.lastEventId) ? BigInt(event.lastEventId) : -1n
        if (id <= last) {
          c.add(
            failure(exchange, "feed event ids do not increase on one connection", `an id above ${last}`, String(id))
          )
        }
        last = id
      }
    }
    if (count === 0) return yield* new Check.Skip({ reason: "no feed event was read in this run" })
    yield* c.done
  })
})

/**
 * The sse checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [contentType, initial, older, equal, invalid, newer, noReplay, names, verified]
