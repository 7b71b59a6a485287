/**
 * The broken variants of the second generation: one per coverage class (a
 * case of each class answered as another), one per stateful model (a bug only
 * a sequence shows), one per cross-client rule, and departures from svc's
 * profile that the spec allows (warnings). Each is caught only by the checks of
 * its rule: in its run, exactly the named checks fail (or warn).
 */
import { PermitMessage } from "@svc/protocol"
import { Result } from "effect"
import {
  bodyJson,
  errorResponse,
  pathOnly,
  type ProxyRequest,
  type ProxyResponse,
  type Variant,
  withJson
} from "./proxy.ts"

type Json = any

const FEED = "/api/v6/solver-feed"
const EVENTS = "/api/v6/solver-feed/events"
const MESSAGE = "/api/v6/execution-permits/request-message"
const CREATE = "/api/v6/execution-permits"

const post = (path: string) => (r: ProxyRequest) => r.method === "POST" && pathOnly(r) === path

const requestJson = (r: ProxyRequest): Json => {
  try {
    return JSON.parse(r.body.toString("utf8"))
  } catch {
    return undefined
  }
}

/** The payer identity and key of a permit request, or undefined. */
const intentOf = (r: ProxyRequest) => {
  const body = requestJson(r)
  if (body === undefined || body === null || typeof body !== "object") return undefined
  const payer = String(body.payer ?? body.payerAccountId ?? "").toLowerCase()
  return { body, payer, key: String(body.idempotencyKey), slot: `${payer}|${String(body.idempotencyKey)}` }
}

/** Whether a create request's signature recovers to its payer (an address-form payer). */
const signedByPayer = (body: Json): boolean => {
  try {
    const recovered = PermitMessage.recoverSigner(PermitMessage.build(body), String(body.requestSignature))
    return Result.isSuccess(recovered) && String(recovered.success).toLowerCase() === String(body.payer).toLowerCase()
  } catch {
    return false
  }
}

const reason = (res: ProxyResponse, code: string) => res.body.toString("utf8").includes(code)

/** Remembers every 201 of a create (by payer and key), and the payers. */
const remember201 = (r: ProxyRequest, res: ProxyResponse, memory: Map<string, unknown>) => {
  if (!(post(CREATE)(r) && res.status === 201)) return
  const intent = intentOf(r)
  if (intent === undefined) return
  const issued = (memory.get("issued") ?? new Map<string, Json>()) as Map<string, Json>
  issued.set(intent.slot, bodyJson(res))
  memory.set("issued", issued)
  const keys = (memory.get("keys") ?? new Map<string, Json>()) as Map<string, Json>
  if (!keys.has(intent.key)) keys.set(intent.key, { payer: intent.payer, body: bodyJson(res) })
  memory.set("keys", keys)
  if (!memory.has("firstPayer")) memory.set("firstPayer", intent.body.payer)
  memory.set("last201", bodyJson(res))
}

export const secondGeneration: ReadonlyArray<Variant> = [
  // ----- coverage: one per class -----
  {
    name: "coverage-short-key-accepted",
    breaks: "request-message reads an idempotency key of 7 characters as valid (a 400 case accepted)",
    caughtBy: ["coverage_request_message_body"],
    only: true,
    groups: ["coverage"],
    request: (r) => {
      if (!post(MESSAGE)(r)) return r
      const body = requestJson(r)
      if (body === undefined || typeof body?.idempotencyKey !== "string" || body.idempotencyKey.length !== 7) return r
      return { ...r, body: Buffer.from(JSON.stringify({ ...body, idempotencyKey: `${body.idempotencyKey}0` })) }
    }
  },
  {
    name: "coverage-filter-no-route-400",
    breaks: "a well-formed sourceChainId that no route leaves from answers 400 (an accepted case refused)",
    caughtBy: ["coverage_feed_query"],
    only: true,
    groups: ["coverage"],
    request: (r) =>
      pathOnly(r) === FEED && /[?&]sourceChainId=1(&|$)/.test(r.path) ? errorResponse(400, "INVALID_REQUEST") : r
  },
  {
    name: "coverage-malformed-route-400",
    breaks: "a routeId of 63 hex digits answers 400 (the spec lists only 404)",
    caughtBy: ["coverage_route_path"],
    only: true,
    groups: ["coverage"],
    request: (r) =>
      r.method === "GET" && /^\/api\/v6\/routes\/0x[0-9a-fA-F]{63}$/.test(pathOnly(r))
        ? errorResponse(400, "INVALID_REQUEST")
        : r
  },
  {
    name: "coverage-unknown-fill-400",
    breaks: "permit status of a well-formed unknown fillId answers 400 instead of 404",
    caughtBy: ["coverage_fill_path"],
    only: true,
    groups: ["coverage"],
    response: (r, res) =>
      r.method === "GET" && /^\/api\/v6\/execution-permits\/0x[0-9a-fA-F]{64}$/.test(pathOnly(r)) && res.status === 404
        ? errorResponse(400, "INVALID_REQUEST")
        : res
  },
  {
    name: "coverage-unknown-quote-409",
    breaks: "request-message for a well-formed quote no route has answers 409 instead of 410",
    caughtBy: ["coverage_request_message_body"],
    only: true,
    groups: ["coverage"],
    response: (r, res) =>
      post(MESSAGE)(r) && res.status === 410 && reason(res, "QUOTE_UNKNOWN")
        ? errorResponse(409, "INSUFFICIENT_CAPACITY")
        : res
  },
  {
    name: "coverage-oversized-accepted",
    breaks: "request-message reads a body of 32,769 bytes (its last byte dropped) instead of answering 413",
    caughtBy: ["coverage_body_limit"],
    only: true,
    groups: ["coverage"],
    request: (r) =>
      post(MESSAGE)(r) && r.body.length === 32_769 && r.body[r.body.length - 1] === 0x20
        ? { ...r, body: r.body.subarray(0, 32_768) }
        : r
  },
  {
    name: "coverage-key-reuse-201",
    breaks: "a used idempotency key with another amount creates a new permit (201) instead of 409",
    caughtBy: ["coverage_create_body"],
    only: true,
    groups: ["coverage"],
    response: (r, res, ctx) => {
      remember201(r, res, ctx.memory)
      if (!(post(CREATE)(r) && res.status === 409 && reason(res, "IDEMPOTENCY_CONFLICT"))) return res
      const last = ctx.memory.get("last201")
      return last === undefined ? res : withJson({ ...res, status: 201 }, { ...(last as Json), idempotent: false })
    }
  },
  {
    name: "coverage-create-long-header-accepted",
    breaks: "permit creation ignores an Idempotency-Key header of 129 characters instead of refusing it",
    caughtBy: ["coverage_create_header"],
    only: true,
    groups: ["coverage"],
    request: (r) => {
      const key = r.headers["idempotency-key"]
      if (!post(CREATE)(r) || key === undefined || key.length <= 128) return r
      const { ["idempotency-key"]: _, ...headers } = r.headers
      return { ...r, headers }
    }
  },
  {
    name: "coverage-last-event-id-zero",
    breaks: "a Last-Event-ID of 0 suppresses the initial event",
    caughtBy: ["coverage_event_stream_header"],
    only: true,
    groups: ["coverage"],
    request: (r, ctx) =>
      pathOnly(r) === EVENTS && r.headers["last-event-id"] === "0" && ctx.state.currentVersion !== undefined
        ? { ...r, headers: { ...r.headers, "last-event-id": ctx.state.currentVersion } }
        : r
  },
  {
    name: "coverage-status-token-case",
    breaks: "/v1/status reads an uppercase quoteToken as valid",
    caughtBy: ["coverage_aggregator_status_query"],
    only: true,
    groups: ["coverage"],
    request: (r) => {
      if (!(r.method === "GET" && pathOnly(r) === "/v1/status")) return r
      const m = /quoteToken=([0-9A-F]{64})(&|$)/.exec(r.path)
      return m === null ? r : { ...r, path: r.path.replace(m[1]!, m[1]!.toLowerCase()) }
    }
  },
  {
    name: "coverage-tokens-chain-zero",
    breaks: "/v1/tokens?chainId=0 answers the token list instead of 400",
    caughtBy: ["coverage_aggregator_tokens_query"],
    only: true,
    groups: ["coverage"],
    request: (r) => (r.method === "GET" && r.path === "/v1/tokens?chainId=0" ? { ...r, path: "/v1/tokens" } : r)
  },
  // ----- svc's profile, where the spec allows more (warnings) -----
  {
    name: "profile-text-plain-accepted",
    breaks: "request-message reads a JSON body sent as text/plain or without a content type (svc refuses it 400)",
    caughtBy: [],
    warnedBy: ["coverage_content_type"],
    only: true,
    groups: ["coverage"],
    request: (r) => {
      if (!post(MESSAGE)(r)) return r
      const type = r.headers["content-type"]
      return type === undefined || type.startsWith("text/plain") || type.startsWith("application/x-www-form")
        ? { ...r, headers: { ...r.headers, "content-type": "application/json" } }
        : r
    }
  },
  {
    name: "profile-duplicate-keys-first-wins",
    breaks: "a body with a key written twice is read with the first value (svc: the last wins)",
    caughtBy: [],
    warnedBy: ["coverage_duplicate_keys"],
    only: true,
    groups: ["coverage"],
    request: (r) => {
      if (!post(MESSAGE)(r)) return r
      const text = r.body.toString("utf8")
      const m = /^\{"([^"]+)":("[^"]*"|[0-9]+),/.exec(text)
      if (m === null || text.indexOf(`"${m[1]}":`, m[0].length) === -1) return r
      const body = requestJson(r)
      if (body === undefined) return r
      return { ...r, body: Buffer.from(JSON.stringify({ ...body, [m[1]!]: JSON.parse(m[2]!) })) }
    }
  },
  {
    name: "profile-feed-429",
    breaks: "the feed rate-limits with 429 (its status list has none: svc answers the listed 503)",
    caughtBy: [],
    warnedBy: ["rate_limit_statuses"],
    only: true,
    groups: ["feed", "responses"],
    request: (r, ctx) => {
      if (!(r.method === "GET" && pathOnly(r) === FEED)) return r
      const n = ((ctx.memory.get("feeds") as number | undefined) ?? 0) + 1
      ctx.memory.set("feeds", n)
      return n % 4 === 2 ? errorResponse(429, "RATE_LIMITED", { "retry-after": "0" }) : r
    }
  },
  {
    name: "profile-503-without-retry-after",
    breaks: "a 503 is answered without Retry-After (a client cannot tell when to retry)",
    caughtBy: [],
    warnedBy: ["retry_after_on_refusals"],
    only: true,
    groups: ["responses"],
    request: (r, ctx) => {
      if (!(r.method === "GET" && pathOnly(r) === "/v1/health") || ctx.memory.has("answered")) return r
      ctx.memory.set("answered", true)
      return {
        status: 503,
        headers: {
          "content-type": "application/json",
          "cache-control": "no-store",
          "access-control-allow-origin": "*"
        },
        body: Buffer.from(JSON.stringify({
          ok: false,
          error: "SERVICE_UNAVAILABLE",
          message: "down",
          retryable: true,
          action: "RETRY_LATER"
        }))
      }
    }
  },
  // ----- stateful: bugs only a sequence shows -----
  {
    name: "replay-forgets-older-keys",
    breaks: "a payer's replay is answered as a new permit (201) once the payer used another key since",
    caughtBy: ["stateful_permit_life"],
    only: true,
    groups: ["stateful"],
    options: { statefulRuns: 15 },
    response: (r, res, ctx) => {
      if (!post(CREATE)(r)) return res
      const intent = intentOf(r)
      if (intent === undefined) return res
      const last = (ctx.memory.get("lastKey") ?? new Map<string, string>()) as Map<string, string>
      ctx.memory.set("lastKey", last)
      const previous = last.get(intent.payer)
      if (res.status === 201 || res.status === 200) last.set(intent.payer, intent.key)
      if (res.status === 200 && previous !== undefined && previous !== intent.key) {
        return withJson({ ...res, status: 201 }, { ...bodyJson(res), idempotent: false })
      }
      return res
    }
  },
  {
    name: "sse-previous-version-suppresses",
    breaks: "a Last-Event-ID one version behind the current one suppresses the initial event",
    caughtBy: ["stateful_event_stream"],
    only: true,
    groups: ["stateful"],
    options: { statefulRuns: 20 },
    request: (r, ctx) => {
      const id = r.headers["last-event-id"]
      const current = ctx.state.currentVersion
      return pathOnly(r) === EVENTS && id !== undefined && current !== undefined && /^[0-9]+$/.test(id) &&
          BigInt(id) + 1n === BigInt(current)
        ? { ...r, headers: { ...r.headers, "last-event-id": current } }
        : r
    }
  },
  // ----- cross-client: one per rule -----
  {
    name: "clients-forged-creation-accepted",
    breaks: "a new permit request signed by another key than its payer's is accepted (201)",
    caughtBy: ["clients_create_for_other_payer"],
    only: true,
    groups: ["clients"],
    response: (r, res, ctx) => {
      const intent = post(CREATE)(r) ? intentOf(r) : undefined
      const known = ((ctx.memory.get("issued") ?? new Map()) as Map<string, Json>).has(intent?.slot ?? "")
      remember201(r, res, ctx.memory)
      // an answer as a new permit: the last one issued, or a bare one when none was yet
      const last = ctx.memory.get("last201") ?? { ok: true, idempotent: false, permit: {} }
      return intent !== undefined && !known && res.status === 400 && reason(res, "SIGNER_MISMATCH")
        ? withJson({ ...res, status: 201 }, last)
        : res
    }
  },
  {
    name: "clients-replay-ignores-signature",
    breaks: "a replay of a payer's request (same key, same body) signed by someone else returns the permit",
    caughtBy: ["clients_replay_by_other_payer"],
    only: true,
    groups: ["clients"],
    response: (r, res, ctx) => {
      remember201(r, res, ctx.memory)
      const intent = post(CREATE)(r) ? intentOf(r) : undefined
      const issued = ((ctx.memory.get("issued") ?? new Map()) as Map<string, Json>).get(intent?.slot ?? "")
      return issued !== undefined && res.status === 400 && reason(res, "SIGNATURE_INVALID") &&
          !signedByPayer(intent!.body)
        ? withJson({ ...res, status: 200 }, { ...issued, idempotent: true })
        : res
    }
  },
  {
    name: "clients-alter-returns-permit",
    breaks: "a request under a payer's used key with another recipient, signed by someone else, returns the permit",
    caughtBy: ["clients_alter_by_other_payer"],
    only: true,
    groups: ["clients"],
    response: (r, res, ctx) => {
      remember201(r, res, ctx.memory)
      const intent = post(CREATE)(r) ? intentOf(r) : undefined
      const issued = ((ctx.memory.get("issued") ?? new Map()) as Map<string, Json>).get(intent?.slot ?? "")
      return issued !== undefined && res.status === 409 && !signedByPayer(intent!.body)
        ? withJson({ ...res, status: 200 }, { ...issued, idempotent: true })
        : res
    }
  },
  {
    name: "clients-keys-global",
    breaks: "idempotency keys are global: another payer's request under a used key returns the first payer's permit",
    caughtBy: ["clients_key_scoped_per_payer"],
    only: true,
    groups: ["clients"],
    response: (r, res, ctx) => {
      const intent = post(CREATE)(r) ? intentOf(r) : undefined
      const first = ((ctx.memory.get("keys") ?? new Map()) as Map<string, Json>).get(intent?.key ?? "")
      if (intent !== undefined && first !== undefined && first.payer !== intent.payer && res.status === 201) {
        return withJson({ ...res, status: 200 }, { ...first.body, idempotent: true })
      }
      remember201(r, res, ctx.memory)
      return res
    }
  },
  {
    name: "clients-status-list-leak",
    breaks: "/v1/status by userAddress lists another payer's fills",
    caughtBy: ["clients_status_lists"],
    only: true,
    groups: ["clients"],
    response: (r, res, ctx) => {
      remember201(r, res, ctx.memory)
      return res
    },
    request: (r, ctx) => {
      const first = ctx.memory.get("firstPayer") as string | undefined
      const m = /userAddress=(0x[0-9a-fA-F]{40})/.exec(r.path)
      return r.method === "GET" && pathOnly(r) === "/v1/status" && m !== null && first !== undefined &&
          m[1]!.toLowerCase() !== first.toLowerCase()
        ? { ...r, path: r.path.replace(m[1]!, first) }
        : r
    }
  }
]
