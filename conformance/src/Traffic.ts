/**
 * The judge of live traffic (`svc conformance proxy`): every exchange that
 * passes through the proxy is checked against the spec as it completes, and
 * every event of a stream as it arrives. It needs no request of its own: what
 * it knows (the authority, the feeds and ETags served, the permits issued per
 * payer and key) it learns from the traffic.
 *
 * It checks the schemas, statuses, integers, caching, 5xx, 429 and Retry-After
 * of every exchange (the run-wide rules of the responses group), the hash,
 * signature and validity of every feed and every stream event, ETag and 304
 * semantics across exchanges, idempotency across the permit requests it saw,
 * every permit's digest and signature and the request it binds, the request
 * messages and the route details.
 *
 * The proxy runs it in a worker thread, off the forwarding path; a feed body
 * or event it already verified (the same bytes) is not verified again.
 *
 * @since 0.1.0
 */
import { CanonicalJson, PermitAbi, PermitDigest, PermitMessage } from "@svc/protocol"
import { Result } from "effect"
import { createHash } from "node:crypto"
import type { Failure } from "./Check.ts"
import * as Check from "./Check.ts"
import { sameAddress, sameJson, verifyFeed } from "./checks/common.ts"
import {
  cacheFindings,
  type Finding,
  integerFindings,
  rateLimitFindings,
  retryAfterFindings,
  schemaFindings,
  serverErrorFindings,
  statusFindings
} from "./checks/responses.ts"
import { feedEventProblems } from "./checks/sse.ts"
import * as Exchange from "./Exchange.ts"
import { asObject, failure } from "./Shared.ts"
import type { SseEvent } from "./Sse.ts"

/**
 * The checks of live traffic, by name (the `proxy` group of the registry).
 *
 * @category constants
 * @since 0.1.0
 */
export const TRAFFIC_CHECKS = [
  "proxy_schemas",
  "proxy_integers",
  "proxy_statuses",
  "proxy_server_errors",
  "proxy_cache_headers",
  "proxy_rate_limits",
  "proxy_retry_after",
  "proxy_feed_verified",
  "proxy_stream_events",
  "proxy_etag",
  "proxy_idempotency",
  "proxy_permits",
  "proxy_request_messages",
  "proxy_route_detail"
] as const

/**
 * A check of live traffic.
 *
 * @category models
 * @since 0.1.0
 */
export type TrafficCheck = (typeof TRAFFIC_CHECKS)[number]

/**
 * What the judge found for one check: the exchanges it judged and its findings.
 *
 * @category models
 * @since 0.1.0
 */
export interface Verdicts {
  readonly judged: number
  readonly findings: ReadonlyArray<Finding>
}

type Json = Record<string, unknown>

const FEED = "/api/v6/solver-feed"
const CREATE = "/api/v6/execution-permits"
const MESSAGE = "/api/v6/execution-permits/request-message"
const ROUTES = "/api/v6/routes/"
const MANIFEST = "/.well-known/svc-solver.json"
const PROGRESS = ["state", "sourceTxHash", "payoutTxHash"]
/** Findings kept per check (the report shows 20): the first ones of each distinct key. */
const MAX_FINDINGS = 200

const withoutProgress = (envelope: Json) =>
  Object.fromEntries(Object.entries(envelope).filter(([k]) => !PROGRESS.includes(k)))

const pathOf = (e: Exchange.Exchange) => new URL(e.request.url).pathname

/** The tags of an If-None-Match value (`*` kept), weak prefixes removed. */
const tagsOf = (value: string | undefined): ReadonlyArray<string> =>
  value === undefined ? [] : value.split(",").map((t) => t.trim().replace(/^W\//, "")).filter((t) => t.length > 0)

const opaque = (etag: string | undefined) => (etag ?? "").replace(/^W\//, "")

/** A view of the feed: its query parameters, sorted (the server normalises case and order its own way). */
const viewOf = (e: Exchange.Exchange) => {
  const params = [...new URL(e.request.url).searchParams.entries()].map(([k, v]) => `${k}=${v.toLowerCase()}`)
  return params.sort().join("&")
}

const digest = (text: string) => createHash("sha1").update(text).digest("hex")

/**
 * Options of the judge.
 *
 * @category models
 * @since 0.1.0
 */
export interface JudgeOptions {
  /** The authority (`--signer`, else the solver manifest's feedSigner, read at start or as it passes). */
  readonly authority?: string | undefined
  /** Called with each new finding as it is made (live output). */
  readonly onFinding?: ((check: TrafficCheck, finding: Finding) => void) | undefined
}

interface IssuedPermit {
  readonly message: string
  readonly envelope: Json
  readonly completedAt: number
}

interface StreamState {
  readonly exchange: Exchange.Exchange
  readonly events: Array<SseEvent>
  readonly lastEventId: string | undefined
  /** The newest version the judge knew when the stream was opened. */
  readonly knownAtOpen: bigint | undefined
  last: bigint | undefined
  feeds: number
}

/**
 * The judge.
 *
 * @category models
 * @since 0.1.0
 */
export class TrafficJudge {
  private authority: string | undefined
  private readonly onFinding: JudgeOptions["onFinding"]
  private readonly verdicts = new Map<TrafficCheck, { judged: number; findings: Array<Finding>; keys: Set<string> }>()
  /** Feed bodies and event data already verified (by digest), with their problems. */
  private readonly verified = new Map<string, ReadonlyArray<{ title: string; expected: string; actual: string }>>()
  /** The newest feed version seen (by any response or event), and when. */
  private newest: { version: bigint; at: number } | undefined
  /** Per feed view: the ETag of each version served, and the latest 200. */
  private readonly views = new Map<string, { etags: Map<string, { version: string; hash: string }> }>()
  /** Versions by ETag (any view): what an If-None-Match refers to. */
  private readonly etagVersion = new Map<string, bigint>()
  /** The unfiltered signed payloads seen, by dataVersion (canonical text digest, routes by id). */
  private readonly payloads = new Map<string, { digest: string; routes: Map<string, Json> }>()
  /** Issued permits by payer identity and idempotency key. */
  private readonly permits = new Map<string, IssuedPermit>()
  /** Issued permits by fillId. */
  private readonly byFill = new Map<string, Json>()
  private readonly streams = new Map<number, StreamState>()

  constructor(options: JudgeOptions = {}) {
    this.authority = options.authority
    this.onFinding = options.onFinding
    for (const name of TRAFFIC_CHECKS) this.verdicts.set(name, { judged: 0, findings: [], keys: new Set() })
  }

  /** What each check found so far. */
  results(): ReadonlyMap<TrafficCheck, Verdicts> {
    return new Map([...this.verdicts].map(([k, v]) => [k, { judged: v.judged, findings: [...v.findings] }]))
  }

  private judged(check: TrafficCheck) {
    this.verdicts.get(check)!.judged++
  }

  private find(check: TrafficCheck, finding: Finding) {
    const v = this.verdicts.get(check)!
    if (v.keys.has(finding.key) || v.findings.length >= MAX_FINDINGS) return
    v.keys.add(finding.key)
    v.findings.push(finding)
    this.onFinding?.(check, finding)
  }

  private fail(check: TrafficCheck, key: string, f: Failure) {
    this.find(check, { key, failure: f })
  }

  private seeVersion(version: bigint, at: number) {
    if (this.newest === undefined || version > this.newest.version) this.newest = { version, at }
  }

  /** Judges one complete exchange (not an event stream). */
  exchange(e: Exchange.Exchange): void {
    const path = pathOf(e)
    const rules: ReadonlyArray<readonly [TrafficCheck, (x: Exchange.Exchange) => ReadonlyArray<Finding>]> = [
      ["proxy_schemas", schemaFindings],
      ["proxy_integers", integerFindings],
      ["proxy_statuses", statusFindings],
      ["proxy_server_errors", serverErrorFindings],
      ["proxy_cache_headers", cacheFindings],
      ["proxy_rate_limits", rateLimitFindings],
      ["proxy_retry_after", retryAfterFindings]
    ]
    for (const [check, rule] of rules) {
      this.judged(check)
      for (const f of rule(e)) this.find(check, f)
    }
    if (e.request.method === "GET" && path === MANIFEST && e.response.status === 200 && this.authority === undefined) {
      const signer = asObject(Exchange.json(e))?.feedSigner
      if (typeof signer === "string") this.authority = signer
    }
    if ((e.request.method === "GET" || e.request.method === "HEAD") && path === FEED) this.feed(e)
    if (e.request.method === "POST" && path === CREATE) this.create(e)
    if (e.request.method === "POST" && path === MESSAGE) this.message(e)
    if (e.request.method === "GET" && path.startsWith(`${CREATE}/`) && path !== MESSAGE) this.status(e)
    if (e.request.method === "GET" && path.startsWith(ROUTES)) this.route(e)
  }

  // ----- feeds and ETags -----

  private feed(e: Exchange.Exchange) {
    const status = e.response.status
    const view = viewOf(e)
    const tags = tagsOf(e.request.headers["if-none-match"])
    if (status === 304) {
      this.judged("proxy_etag")
      if (e.response.body.length > 0) {
        this.fail(
          "proxy_etag",
          "304-body",
          failure(e, "a 304 carries a body", "no body", `${e.response.body.length} bytes`)
        )
      }
      if (e.response.headers.etag === undefined) {
        this.fail("proxy_etag", "304-etag", failure(e, "a 304 does not repeat the ETag", "ETag", "absent"))
      }
      if (tags.length === 0) {
        this.fail("proxy_etag", "304-unasked", failure(e, "a 304 without If-None-Match", "200 with the feed", "304"))
      }
      // a 304 for the ETag of a version older than one the proxy saw served before the request
      const versions = tags.filter((t) => t !== "*").map((t) => this.etagVersion.get(t)).filter((v) => v !== undefined)
      const newest = this.newest
      if (
        versions.length > 0 && newest !== undefined && newest.at <= e.startedAt &&
        versions.every((v) => v! < newest.version)
      ) {
        this.fail(
          "proxy_etag",
          `304-stale:${view}`,
          failure(
            e,
            "an ETag of an earlier publication still revalidates",
            `200 with the feed of version ${newest.version} (served before this request)`,
            `304 for the ETag of version ${versions.map(String).join(", ")}`
          )
        )
      }
      return
    }
    if (status !== 200) return
    const body = asObject(Exchange.json(e))
    const feed = asObject(body?.feed)
    const payload = asObject(feed?.signedPayload)
    if (feed === undefined || payload === undefined) return
    const version = String(payload.dataVersion)
    if (/^[0-9]+$/.test(version)) this.seeVersion(BigInt(version), e.startedAt + e.durationMs)
    // ETag: weak, one per version of the view, and an unchanged view is a 304
    this.judged("proxy_etag")
    const etag = e.response.headers.etag
    if (etag === undefined || !etag.startsWith("W/\"")) {
      this.fail("proxy_etag", "weak", failure(e, "the feed has no weak ETag", "W/\"...\"", etag ?? "absent"))
    } else {
      const hash = String(feed.feedHash)
      const views = this.views.get(view) ?? { etags: new Map() }
      this.views.set(view, views)
      const before = views.etags.get(opaque(etag))
      if (before !== undefined && (before.version !== version || before.hash !== hash)) {
        this.fail(
          "proxy_etag",
          `reused:${view}`,
          failure(
            e,
            "one ETag names two different feeds of a view",
            `another ETag than the one of version ${before.version}`,
            `${etag} for version ${version}`
          )
        )
      }
      views.etags.set(opaque(etag), { version, hash })
      if (/^[0-9]+$/.test(version)) this.etagVersion.set(opaque(etag), BigInt(version))
      if (tags.includes(opaque(etag)) || tags.includes("*")) {
        this.fail(
          "proxy_etag",
          `not-304:${view}`,
          failure(
            e,
            "If-None-Match names the current ETag, yet the feed is sent again",
            "304 without a body",
            `200 with ${etag}`
          )
        )
      }
    }
    // the feed verifies: hash, signature to the authority, validity at the time it was served
    this.judged("proxy_feed_verified")
    const key = digest(e.response.body)
    let problems = this.verified.get(key)
    if (problems === undefined) {
      problems = verifyFeed(feed, this.authority ?? String(feed.feedSigner), Math.floor(e.startedAt / 1000))
      this.verified.set(key, problems)
    }
    for (const p of problems) {
      this.fail("proxy_feed_verified", `${p.title}:${view}`, failure(e, p.title, p.expected, p.actual))
    }
    // views: a filter reduces the views only; signedPayload is the one of the version
    const canonical = CanonicalJson.stringifyResult(payload)
    if (Result.isSuccess(canonical)) {
      const known = this.payloads.get(version)
      const d = digest(canonical.success)
      if (known === undefined) {
        const routes = new Map<string, Json>()
        for (const r of Array.isArray(payload.routes) ? payload.routes : []) {
          const route = asObject(r)
          if (route !== undefined) routes.set(String(route.routeId).toLowerCase(), route)
        }
        this.payloads.set(version, { digest: d, routes })
      } else if (known.digest !== d) {
        this.fail(
          "proxy_feed_verified",
          `payload:${view}`,
          failure(
            e,
            "two feeds of one dataVersion carry different signed payloads (a filter changed signedPayload?)",
            "one signedPayload per dataVersion, whatever the filter",
            `the payload served for ${view === "" ? "no filter" : view} differs`
          )
        )
      }
      const signed = this.payloads.get(version)!.routes
      for (const list of ["routes", "openRoutes"] as const) {
        for (const r of Array.isArray(feed[list]) ? feed[list] : []) {
          const route = asObject(r)
          const same = route === undefined ? undefined : signed.get(String(route.routeId).toLowerCase())
          if (route === undefined || same === undefined || !sameJson(route, same)) {
            this.fail(
              "proxy_feed_verified",
              `view:${list}:${view}`,
              failure(
                e,
                `a route of ${list} is not a signed route`,
                "a route of signedPayload.routes, unchanged",
                Check.show(route)
              )
            )
            break
          }
        }
      }
    }
  }

  // ----- streams -----

  /** A stream was opened (its response head). */
  streamOpen(id: number, head: Exchange.Exchange): void {
    const header = head.request.headers["last-event-id"]
    this.streams.set(id, {
      exchange: head,
      events: [],
      lastEventId: header,
      knownAtOpen: this.newest?.version,
      last: undefined,
      feeds: 0
    })
    // a refused stream is a JSON answer like any other; an open one is judged on its head and events
    if (head.response.status !== 200) return this.exchange(head)
    for (const check of ["proxy_statuses", "proxy_server_errors", "proxy_cache_headers"] as const) this.judged(check)
    for (const f of statusFindings(head)) this.find("proxy_statuses", f)
    for (const f of cacheFindings(head)) this.find("proxy_cache_headers", f)
    for (const f of serverErrorFindings(head)) this.find("proxy_server_errors", f)
  }

  /** An event of an open stream. */
  streamEvent(id: number, event: SseEvent): void {
    const s = this.streams.get(id)
    if (s === undefined) return
    s.events.push(event)
    const e = s.exchange
    this.judged("proxy_stream_events")
    this.judged("proxy_integers")
    for (const f of integerFindings({ ...e, stream: { events: [event], comments: 0, retries: [] } })) {
      this.find("proxy_integers", f)
    }
    if (!["feed", "publication-closed", "error"].includes(event.event)) {
      this.fail(
        "proxy_stream_events",
        `name:${event.event}`,
        failure(e, `an event named ${event.event}`, "feed, publication-closed or error (spec §6)", event.event)
      )
      return
    }
    if (event.event !== "feed") return
    const key = digest(`${event.lastEventId}\n${event.data}`)
    let problems = this.verified.get(key)
    if (problems === undefined) {
      let feed: Json | undefined
      try {
        feed = asObject(JSON.parse(event.data))
      } catch {
        feed = undefined
      }
      problems = feedEventProblems(event, this.authority ?? String(feed?.feedSigner), Math.floor(Date.now() / 1000))
      this.verified.set(key, problems)
    }
    for (const p of problems) this.fail("proxy_stream_events", p.title, failure(e, p.title, p.expected, p.actual))
    if (!/^(?:0|[1-9][0-9]*)$/.test(event.lastEventId)) return
    const version = BigInt(event.lastEventId)
    const first = s.feeds === 0
    s.feeds++
    if (first) {
      // rule 3: an equal Last-Event-ID suppresses the initial event; rule 6: nothing older than the state is sent
      if (s.lastEventId !== undefined && s.lastEventId === event.lastEventId) {
        this.fail(
          "proxy_stream_events",
          "equal-not-suppressed",
          failure(
            e,
            "the initial event was sent although Last-Event-ID names it",
            "no initial event (spec §6 rule 3)",
            `id ${event.lastEventId}`
          )
        )
      }
      if (s.knownAtOpen !== undefined && version < s.knownAtOpen) {
        this.fail(
          "proxy_stream_events",
          "replay",
          failure(
            e,
            "the stream began with a version older than one already served",
            `id >= ${s.knownAtOpen} (spec §6 rule 6: no replay)`,
            `id ${version}`
          )
        )
      }
    } else if (s.last !== undefined && version <= s.last) {
      this.fail(
        "proxy_stream_events",
        "order",
        failure(e, "a stream delivered a version again or out of order", `ids above ${s.last}`, `id ${version}`)
      )
    }
    s.last = s.last === undefined || version > s.last ? version : s.last
    this.seeVersion(version, Date.now())
  }

  /** A stream ended. */
  streamEnd(id: number): void {
    this.streams.delete(id)
  }

  // ----- permits -----

  private create(e: Exchange.Exchange) {
    const request = asObject(Exchange.json({ ...e, response: { ...e.response, body: e.request.body ?? "" } }))
    if (request === undefined) return
    let message: string
    try {
      message = PermitMessage.build(request as unknown as PermitMessage.PermitRequestInput)
    } catch {
      return
    }
    const identity = String(request.payer ?? request.payerAccountId ?? "").toLowerCase()
    const key = `${identity}|${String(request.idempotencyKey)}`
    const status = e.response.status
    const body = asObject(Exchange.json(e))
    const envelope = asObject(body?.permit)
    const first = this.permits.get(key)
    const settled = first !== undefined && first.completedAt <= e.startedAt
    this.judged("proxy_idempotency")
    if (status === 201) {
      if (settled) {
        this.fail(
          "proxy_idempotency",
          `twice:${key}`,
          failure(
            e,
            "a second new permit for one payer and idempotency key",
            "200 with the existing permit (spec §4 rule 3) or 409",
            `201 with ${String(envelope?.fillId)}`
          )
        )
      }
    } else if (status === 200 && first !== undefined) {
      if (first.message !== message) {
        this.fail(
          "proxy_idempotency",
          `other:${key}`,
          failure(
            e,
            "a request under a used key but another intent was answered with a permit",
            "409 (spec §4 rule 2, §7)",
            "200"
          )
        )
      } else if (envelope !== undefined && !sameJson(withoutProgress(envelope), withoutProgress(first.envelope))) {
        this.fail(
          "proxy_idempotency",
          `replay:${key}`,
          failure(
            e,
            "an identical request returned another permit",
            `the permit ${String(first.envelope.fillId)}`,
            String(envelope.fillId)
          )
        )
      }
    } else if (status === 409 && settled && first.message === message) {
      this.fail(
        "proxy_idempotency",
        `refused:${key}`,
        failure(
          e,
          "an identical retry of a completed request was refused",
          "200 with the existing permit (spec §4 rule 3)",
          Exchange.responseSummary(e)
        )
      )
    }
    if ((status === 200 || status === 201) && envelope !== undefined) {
      if (first === undefined) this.permits.set(key, { message, envelope, completedAt: e.startedAt + e.durationMs })
      this.permit(e, envelope, request)
    }
  }

  private permit(e: Exchange.Exchange, envelope: Json, request: Json | undefined) {
    const permit = asObject(envelope.permit)
    if (permit === undefined) return
    this.judged("proxy_permits")
    const fillId = String(envelope.fillId).toLowerCase()
    try {
      const d = PermitDigest.digest(permit as unknown as PermitAbi.AbiPermit)
      if (String(envelope.permitDigest).toLowerCase() !== d) {
        this.fail(
          "proxy_permits",
          `digest:${fillId}`,
          failure(e, "permitDigest is not the EIP-712 digest of the permit", d, String(envelope.permitDigest))
        )
      }
      const recovered = PermitDigest.recoverSigner(
        permit as unknown as PermitAbi.AbiPermit,
        String(envelope.permitSignature)
      )
      if (
        Result.isFailure(recovered) || (this.authority !== undefined && !sameAddress(recovered.success, this.authority))
      ) {
        this.fail(
          "proxy_permits",
          `signer:${fillId}`,
          failure(
            e,
            "permitSignature is not by the authority",
            this.authority ?? "the authority",
            Result.isFailure(recovered) ? recovered.failure.message : recovered.success
          )
        )
      }
    } catch (error) {
      this.fail(
        "proxy_permits",
        `abi:${fillId}`,
        failure(
          e,
          "the permit has no EIP-712 digest",
          "31 well-formed ABI fields",
          String((error as Error)?.message ?? error)
        )
      )
    }
    if (request !== undefined) {
      if (permit.amountInRaw !== request.requestedAmountInRaw) {
        this.fail(
          "proxy_permits",
          `amount:${fillId}`,
          failure(
            e,
            "the permit's amountInRaw is not the requested amount",
            String(request.requestedAmountInRaw),
            String(permit.amountInRaw)
          )
        )
      }
      if (String(permit.quoteId).toLowerCase() !== String(request.quoteId).toLowerCase()) {
        this.fail(
          "proxy_permits",
          `quote:${fillId}`,
          failure(e, "the permit is for another quote", String(request.quoteId), String(permit.quoteId))
        )
      }
      for (const side of ["payer", "recipient"] as const) {
        if (typeof request[side] === "string" && !sameAddress(permit[side], request[side])) {
          this.fail(
            "proxy_permits",
            `${side}:${fillId}`,
            failure(e, `the permit's ${side} is not the requested one`, String(request[side]), String(permit[side]))
          )
        }
      }
    }
    if (!this.byFill.has(fillId)) this.byFill.set(fillId, envelope)
  }

  private status(e: Exchange.Exchange) {
    if (e.response.status !== 200) return
    const envelope = asObject(asObject(Exchange.json(e))?.permit)
    if (envelope === undefined) return
    const issued = this.byFill.get(String(envelope.fillId).toLowerCase())
    this.permit(e, envelope, undefined)
    if (issued !== undefined && !sameJson(withoutProgress(envelope), withoutProgress(issued))) {
      this.fail(
        "proxy_permits",
        `status:${String(envelope.fillId)}`,
        failure(
          e,
          "the status of a permit differs from the permit issued",
          "the issued envelope (state may progress)",
          Check.show(withoutProgress(envelope))
        )
      )
    }
  }

  private message(e: Exchange.Exchange) {
    if (e.response.status !== 200) return
    const request = asObject(Exchange.json({ ...e, response: { ...e.response, body: e.request.body ?? "" } }))
    if (request === undefined) return
    this.judged("proxy_request_messages")
    let expected: string
    try {
      expected = PermitMessage.build(request as unknown as PermitMessage.PermitRequestInput)
    } catch (error) {
      this.fail(
        "proxy_request_messages",
        "invalid",
        failure(
          e,
          "a request that cannot be normalised got a message",
          "400",
          `200 (${String((error as Error)?.message ?? error)})`
        )
      )
      return
    }
    const actual = asObject(Exchange.json(e))?.message
    if (actual !== expected) {
      this.fail(
        "proxy_request_messages",
        "differs",
        failure(e, "the message differs from the request's", JSON.stringify(expected), Check.show(actual))
      )
    }
  }

  private route(e: Exchange.Exchange) {
    if (e.response.status !== 200) return
    const route = asObject(asObject(Exchange.json(e))?.route)
    if (route === undefined) return
    const signed = this.payloads.get(String(route.dataVersion))?.routes.get(String(route.routeId).toLowerCase())
    if (signed === undefined) return
    this.judged("proxy_route_detail")
    if (!sameJson(route, signed)) {
      this.fail(
        "proxy_route_detail",
        `route:${String(route.routeId)}`,
        failure(e, "route detail differs from the signed route of its version", "the signed route", Check.show(route))
      )
    }
  }
}
