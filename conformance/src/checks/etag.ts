/**
 * The feed's weak ETag and conditional GET: 304 without a body for an
 * unchanged view (weak comparison, lists, `*`), distinct tags per filter view.
 * (A 304 turning into a 200 after a publication is in the timing group.)
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import { asObject, failure, send, Shared } from "../Shared.ts"
import type { Env } from "./common.ts"

const FEED = "/api/v6/solver-feed"

const ETAG = /^W\/"[^"]*"$/

const present = Check.make<Env>({
  name: "etag_weak_present",
  group: "etag",
  title:
    "the feed carries a weak ETag W/\"<dataVersion>-<16 hex of feedHash>-<filter>\", Cache-Control no-cache and Vary Accept-Encoding",
  reference:
    "spec §4 getSolverFeed (If-None-Match: weak ETag); docs/protocol.md, Publication facts a verifier needs (ETag); docs/operations.md, HTTP rules of the solver interface (caching)",
  run: Effect.gen(function*() {
    const snapshot = yield* Effect.flatMap(Effect.service(Shared), (f) => f.feed)
    const h = snapshot.exchange.response.headers
    const c = Check.collector()
    const etag = h.etag
    const prefix = `W/"${snapshot.dataVersion}-${String(snapshot.feed.feedHash).slice(2, 18).toLowerCase()}-`
    if (etag === undefined || !ETAG.test(etag)) {
      c.add(failure(snapshot.exchange, "the feed has no weak ETag", "ETag: W/\"...\"", etag ?? "absent"))
    } else if (!etag.toLowerCase().startsWith(prefix.toLowerCase())) {
      c.add(failure(snapshot.exchange, "the ETag does not name the dataVersion and feedHash", `${prefix}..."`, etag))
    }
    if (h["cache-control"] !== "no-cache") {
      c.add(
        failure(
          snapshot.exchange,
          "the feed's Cache-Control is not no-cache",
          "no-cache",
          h["cache-control"] ?? "absent"
        )
      )
    }
    if (!/accept-encoding/i.test(h.vary ?? "")) {
      c.add(
        failure(
          snapshot.exchange,
          "the feed does not vary on Accept-Encoding",
          "Vary: Accept-Encoding",
          h.vary ?? "absent"
        )
      )
    }
    yield* c.done
  })
})

const notModified = Check.make<Env>({
  name: "etag_304",
  group: "etag",
  title:
    "If-None-Match with the current ETag (as is, strong form, in a list, or *) answers 304 without a body, repeating ETag, Cache-Control and Vary",
  reference:
    "spec §4 getSolverFeed (304 no body when unchanged); docs/protocol.md, Publication facts a verifier needs (weak comparison, lists and *)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const c = Check.collector()
    for (let attempt = 0; attempt < 3; attempt++) {
      const fresh = yield* shared.freshFeed
      const etag = fresh.etag
      if (etag === undefined) return yield* new Check.Skip({ reason: "the feed has no ETag (see etag_weak_present)" })
      const strong = etag.replace(/^W\//, "")
      const variants = [etag, strong, `"nope", ${etag}`, "*"]
      let moved = false
      for (const header of variants) {
        const exchange = yield* send({ path: FEED, headers: { "if-none-match": header } })
        if (exchange.response.status === 200) {
          const version = String(asObject(asObject(Exchange.json(exchange))?.feed)?.dataVersion)
          if (version !== fresh.dataVersion) {
            moved = true
            break
          }
        }
        if (exchange.response.status !== 304) {
          c.add(
            failure(
              exchange,
              `If-None-Match: ${header} did not answer 304`,
              "304 Not Modified",
              Exchange.responseSummary(exchange)
            )
          )
          continue
        }
        if (exchange.response.body.length > 0) {
          c.add(failure(exchange, "the 304 has a body", "no body", `${exchange.response.body.length} bytes`))
        }
        const h = exchange.response.headers
        if (h.etag !== etag) c.add(failure(exchange, "the 304 does not repeat the ETag", etag, h.etag ?? "absent"))
        if (h["cache-control"] !== fresh.exchange.response.headers["cache-control"]) {
          c.add(
            failure(
              exchange,
              "the 304 does not repeat Cache-Control",
              fresh.exchange.response.headers["cache-control"] ?? "",
              h["cache-control"] ?? "absent"
            )
          )
        }
        if (!/accept-encoding/i.test(h.vary ?? "")) {
          c.add(failure(exchange, "the 304 does not repeat Vary", "Accept-Encoding", h.vary ?? "absent"))
        }
      }
      if (!moved) return yield* c.done
    }
    return yield* new Check.Inconclusive({ reason: "the feed kept changing while the 304 was being checked" })
  })
})

const filterDistinct = Check.make<Env>({
  name: "etag_filter_views",
  group: "etag",
  title: "each filter view has its own ETag; the ETag of one view does not revalidate another",
  reference: "spec §4 getSolverFeed (304 when the normalized filter view is unchanged)",
  run: Effect.gen(function*() {
    const snapshot = yield* Effect.flatMap(Effect.service(Shared), (f) => f.feed)
    const chain = snapshot.routes.find((r) => r.sourceChainId !== null)?.sourceChainId
    if (chain === undefined || chain === null) {
      return yield* new Check.Skip({ reason: "no route with an EVM source chain to filter on" })
    }
    const view = yield* send({ path: `${FEED}?sourceChainId=${chain}` })
    const c = Check.collector()
    const etag = view.response.headers.etag
    if (etag === undefined) {
      return yield* Check.fail(failure(view, "the filtered view has no ETag", "an ETag", "absent"))
    }
    if (etag === snapshot.etag) {
      c.add(failure(view, "the filtered view has the ETag of the unfiltered feed", "a distinct ETag", etag))
    }
    const cross = yield* send({ path: FEED, headers: { "if-none-match": etag } })
    if (cross.response.status === 304) {
      c.add(
        failure(
          cross,
          "the filtered view's ETag revalidated the unfiltered feed",
          "200 with the unfiltered feed",
          "304"
        )
      )
    }
    const same = yield* send({ path: `${FEED}?sourceChainId=${chain}`, headers: { "if-none-match": etag } })
    if (same.response.status !== 304) {
      const viewVersion = String(asObject(asObject(Exchange.json(view))?.feed)?.dataVersion)
      const moved = String(asObject(asObject(Exchange.json(same))?.feed)?.dataVersion) !== viewVersion
      if (!moved) {
        c.add(
          failure(same, "the filtered view's own ETag did not revalidate it", "304", Exchange.responseSummary(same))
        )
      }
    }
    yield* c.done
  })
})

/**
 * The etag checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [present, notModified, filterDistinct]
