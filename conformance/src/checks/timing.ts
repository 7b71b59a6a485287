/**
 * Behaviour that needs time to pass: a new publication (an old ETag then gets
 * 200; a stream opened before it receives it) and the expiry of a quote (410).
 *
 * In process these run with the deployment's triggers (publish now, advance
 * the clock). Against a live URL they wait: for a publication, until `--timeout`
 * after the run started (the publication observer watches the stream the whole
 * run); for an expiry, only when the quote expires within `--timeout`.
 * Otherwise they are inconclusive, never failed.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option } from "effect"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import { Observer } from "../Observer.ts"
import { Options, Triggers } from "../RunOptions.ts"
import { asObject, failure, permitRequestFor, send, Shared } from "../Shared.ts"
import { type Env, firstDifference, nowSeconds, sameJson } from "./common.ts"
import { feedEventProblems } from "./sse.ts"

/** How long time-dependent checks may wait from the start of the run: --wait, else --timeout. */
const waitSeconds = (options: { readonly waitSeconds?: number | undefined; readonly timeoutSeconds: number }) =>
  options.waitSeconds ?? options.timeoutSeconds

/**
 * Makes or waits for a publication newer than `than`. With the deployment's
 * publish trigger it happens at once; otherwise the publication observer is
 * watched until `--wait` after the run started (then inconclusive).
 * Returns the observer's event for it, when the stream pushed one in time.
 */
const newPublication = (than: string) =>
  Effect.gen(function*() {
    const observer = yield* Observer
    const options = yield* Options
    const triggers = yield* Triggers
    yield* observer.start
    const now = yield* Clock.currentTimeMillis
    const wait = waitSeconds(options)
    let deadline = (observer.startedAt() ?? now) + wait * 1000
    if (Option.isSome(triggers.publish)) {
      yield* triggers.publish.value
      deadline = Math.max(deadline, now + options.timeoutSeconds * 1000)
    }
    const event = yield* observer.newer(BigInt(than), deadline)
    if (event !== undefined) return event
    // the stream pushed nothing: did a publication happen at all?
    const shared = yield* Shared
    const http = yield* shared.freshFeed
    if (BigInt(http.dataVersion) > BigInt(than)) return { missed: http.dataVersion }
    const problem = observer.problem()
    // how to decide it: the current feed must be replaced before its validUntil
    const left = Number(http.payload.validUntil) - Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const decide = Number.isFinite(left) && left > 0
      ? `; the current feed is valid for ${left} s more, so --wait ${
        wait + left + 10
      } decides it, or trigger a publication during the run (svc admin republish on an svc deployment)`
      : "; trigger a publication during the run (svc admin republish on an svc deployment) to decide it"
    return yield* new Check.Inconclusive({
      reason: problem !== undefined
        ? `the publication observer could not watch the stream: ${problem}`
        : `no new publication within --wait (${wait} s after the run started)${decide}`
    })
  })

const etagChanges = Check.make<Env>({
  name: "timing_etag_after_publication",
  group: "timing",
  title: "after a new publication the previous ETag no longer revalidates: 200 with a new ETag and a newer dataVersion",
  reference: "spec §4 getSolverFeed (304 only while feedHash and dataVersion are unchanged)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const first = yield* shared.feed
    if (first.etag === undefined) {
      return yield* new Check.Skip({ reason: "the feed has no ETag (see etag_weak_present)" })
    }
    yield* newPublication(first.dataVersion)
    const exchange = yield* send({ path: "/api/v6/solver-feed", headers: { "if-none-match": first.etag } })
    if (exchange.response.status !== 200) {
      return yield* Check.fail(
        failure(
          exchange,
          "an ETag of an earlier publication still revalidates",
          "200 with the new feed",
          Exchange.responseSummary(exchange)
        )
      )
    }
    const version = String(asObject(asObject(asObject(Exchange.json(exchange))?.feed)?.signedPayload)?.dataVersion)
    const c = Check.collector()
    if (exchange.response.headers.etag === first.etag) {
      c.add(failure(exchange, "the new publication has the old ETag", `an ETag other than ${first.etag}`, first.etag))
    }
    if (!(/^[0-9]+$/.test(version) && BigInt(version) > BigInt(first.dataVersion))) {
      c.add(
        failure(
          exchange,
          "the feed after a publication has no newer dataVersion",
          `above ${first.dataVersion}`,
          version
        )
      )
    }
    yield* c.done
  })
})

const streamPublication = Check.make<Env>({
  name: "timing_sse_new_publication",
  group: "timing",
  title:
    "a stream opened before a publication receives it as a verified feed event (id = the new dataVersion, same signedPayload as HTTP)",
  reference: "spec §6 rule 5 (every later confirmed publication is emitted); push-driven, no polling",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const observer = yield* Observer
    const authority = yield* shared.authority
    const first = yield* shared.feed
    const pushed = yield* newPublication(first.dataVersion)
    const exchange = observer.exchange()!
    if ("missed" in pushed) {
      return yield* Check.fail(
        failure(
          exchange,
          "a publication was not pushed on a stream opened before it",
          `a feed event with id ${pushed.missed} on the open stream`,
          "no feed event after the initial one"
        )
      )
    }
    const event = pushed
    const c = Check.collector()
    for (const p of feedEventProblems(event, authority, yield* nowSeconds)) {
      c.add(failure(exchange, p.title, p.expected, p.actual))
    }
    const http = yield* shared.freshFeed
    if (http.dataVersion === event.lastEventId) {
      const data = asObject(JSON.parse(event.data))
      if (!sameJson(data?.signedPayload, http.payload)) {
        c.add(
          failure(
            exchange,
            "the pushed event's signedPayload differs from the HTTP feed of the same version",
            "the same signedPayload",
            firstDifference(data?.signedPayload, http.payload) ?? ""
          )
        )
      }
    } else if (BigInt(http.dataVersion) > BigInt(event.lastEventId)) {
      // the HTTP feed moved on: the stream must carry that publication too
      const later = yield* observer.newer(BigInt(http.dataVersion) - 1n, (yield* Clock.currentTimeMillis) + 2000)
      if (later === undefined || later.lastEventId !== http.dataVersion) {
        c.add(
          failure(
            exchange,
            "a publication served by HTTP was not pushed on the stream",
            `a feed event with id ${http.dataVersion}`,
            later === undefined ? "none" : `id ${later.lastEventId}`
          )
        )
      }
    }
    yield* c.done
  })
})

const quoteExpiry = Check.make<Env>({
  name: "timing_quote_expired_410",
  group: "timing",
  title: "once a route's validUntil has passed, a permit request for its quoteId answers 410",
  reference:
    "spec §3 (a quote that has expired -> 410); docs/protocol.md, Publication facts a verifier needs (the open rule, validity windows)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const options = yield* Options
    const triggers = yield* Triggers
    const observer = yield* Observer
    // the first open route of the run: its quote may have expired while the run went
    const route = yield* shared.firstOpenRoute
    const now = yield* nowSeconds
    const left = route.validUntil - now
    // the wait is counted from the start of the run, like the publication checks'
    const started = Math.floor((observer.startedAt() ?? (yield* Clock.currentTimeMillis)) / 1000)
    const budget = started + waitSeconds(options) - now
    if (Option.isSome(triggers.advanceTime)) {
      yield* triggers.advanceTime.value(left + 1)
      if (Option.isSome(triggers.publish)) yield* triggers.publish.value
    } else if (left <= Math.max(budget, 0)) {
      yield* Effect.sleep(Math.max(0, left + 2) * 1000)
    } else {
      return yield* new Check.Inconclusive({
        reason: `the quote expires at ${
          new Date(route.validUntil * 1000).toISOString()
        } (in ${left} s), beyond --wait (${waitSeconds(options)} s after the run started); --wait ${
          Math.max(0, now - started) + left + 10
        } decides it, or a catalog with a shorter quoteWindowSeconds (docs/conformance.md, Settings for a full run)`
      })
    }
    const exchange = yield* send({
      method: "POST",
      path: "/api/v6/execution-permits/request-message",
      json: permitRequestFor(route, shared.wallet, shared.newKey())
    })
    if (exchange.response.status !== 410) {
      return yield* Check.fail(
        failure(exchange, "a permit request for an expired quote is not 410", "410", Exchange.responseSummary(exchange))
      )
    }
  })
})

/**
 * The timing checks (the quote expiry last: in process it moves the clock).
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [etagChanges, streamPublication, quoteExpiry]
