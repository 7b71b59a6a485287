/**
 * Run-wide checks over every exchange recorded during the run (they run last):
 * every body decodes strictly against the schema of its operation and status
 * (no unknown fields anywhere), no number literal beyond 2^53 - 1 in any body,
 * only documented statuses, no 5xx, and the caching headers of dynamic data.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import * as JsonText from "../JsonText.ts"
import * as Operations from "../Operations.ts"
import { failure, Shared } from "../Shared.ts"
import { Transport } from "../Transport.ts"
import type { Env } from "./common.ts"

/**
 * The exchanges of the run with a response; without the aggregator's when it is
 * not deployed (its paths then answer the solver's 404, which is not judged).
 */
const recorded = Effect.gen(function*() {
  const transport = yield* Transport
  const shared = yield* Shared
  const aggregator = yield* shared.aggregatorPresent.pipe(Effect.orElseSucceed(() => false))
  const exchanges = (yield* transport.exchanges).filter((e) =>
    e.response.status > 0 && e.request.method !== "OPTIONS" &&
    (aggregator || !(pathOf(e).startsWith("/v1/") || pathOf(e) === "/.well-known/svc-aggregator.json"))
  )
  // a run-wide check never passes on nothing: without a response there is nothing it verified
  if (exchanges.length === 0) {
    return yield* new Check.Inconclusive({ reason: "no response was received in this run" })
  }
  return exchanges
})

const pathOf = (e: Exchange.Exchange) => new URL(e.request.url).pathname

const interfacePath = (path: string) =>
  path.startsWith("/api/v6/") || path.startsWith("/.well-known/svc-") || path === "/openapi.json" ||
  path.startsWith("/v1/")

/**
 * One departure found in one exchange: `key` tells departures apart (the
 * first exchange showing each is reported), `warning` marks a departure from
 * svc's profile where the spec leaves the behaviour open.
 *
 * @category models
 * @since 0.1.0
 */
export interface Finding {
  readonly key: string
  readonly failure: Check.Failure
  readonly warning?: boolean | undefined
}

/** Collects findings, one per distinct key (the first exchange showing it). */
export const distinct = () => {
  const c = Check.collector()
  const seen = new Set<string>()
  return {
    add: (key: string, f: Check.Failure) => {
      if (seen.has(key)) return
      seen.add(key)
      c.add(f)
    },
    finding: (f: Finding) => {
      if (seen.has(f.key)) return
      seen.add(f.key)
      if (f.warning === true) c.warn(f.failure)
      else c.add(f.failure)
    },
    done: c.done
  }
}

/** Whether a path is one of the interface's. */
export const isInterfacePath = (path: string) => interfacePath(path)

// ---------------------------------------------------------------------------
// Per exchange (the run-wide checks here, and the live-traffic proxy)
// ---------------------------------------------------------------------------

/**
 * Schema findings of one exchange: its body against the schema of its
 * operation and status, strictly; JSON labelled as JSON; no body where none
 * belongs.
 *
 * @category operations
 * @since 0.1.0
 */
export const schemaFindings = (e: Exchange.Exchange): ReadonlyArray<Finding> => {
  const path = pathOf(e)
  if (!interfacePath(path) || e.stream !== undefined) return []
  const rule = Operations.bodyRuleOf(e.request.method, path, e.response.status)
  const op = Operations.find(e.request.method, path)?.operationId ?? `${e.request.method} ${path}`
  if (rule === "openapi" || rule === "sse") return []
  if (rule === "empty") {
    return e.response.body.length > 0
      ? [{
        key: `${op}:${e.response.status}:body`,
        failure: failure(e, `${op} ${e.response.status} has a body`, "no body", `${e.response.body.length} bytes`)
      }]
      : []
  }
  if (!Exchange.isJson(e)) {
    return [{
      key: `${op}:${e.response.status}:json`,
      failure: failure(e, `${op} ${e.response.status} is not JSON`, "a JSON body", Exchange.responseSummary(e))
    }]
  }
  const out: Array<Finding> = []
  if (!/^application\/json/i.test(e.response.headers["content-type"] ?? "")) {
    out.push({
      key: `${op}:${e.response.status}:type`,
      failure: failure(
        e,
        `${op} ${e.response.status} is not labelled JSON`,
        "content-type application/json",
        e.response.headers["content-type"] ?? "absent"
      )
    })
  }
  const issues = Check.schemaIssues(rule, Exchange.json(e))
  if (issues.length > 0) {
    out.push({
      key: `${op}:${e.response.status}:${issues[0]}`,
      failure: failure(
        e,
        `${op} ${e.response.status} does not match ${Check.schemaName(rule)}`,
        `a strict ${Check.schemaName(rule)}`,
        issues.slice(0, 5).join("; ")
      )
    })
  }
  return out
}

/**
 * Number literals beyond 2^53 - 1 and duplicate keys in one exchange's body
 * or events.
 *
 * @category operations
 * @since 0.1.0
 */
export const integerFindings = (e: Exchange.Exchange): ReadonlyArray<Finding> => {
  const out: Array<Finding> = []
  const texts = e.stream === undefined ? [e.response.body] : e.stream.events.map((ev) => ev.data)
  for (const text of texts) {
    if (text.length === 0) continue
    for (const f of JsonText.scan(text) ?? []) {
      out.push({
        key: `${f.kind}:${f.path}`,
        failure: failure(
          e,
          f.kind === "UNSAFE_NUMBER"
            ? `${f.path} is a number beyond 2^53 - 1`
            : `${f.path} has the key ${JSON.stringify(f.literal)} twice`,
          f.kind === "UNSAFE_NUMBER" ? "a base-10 string" : "unique keys",
          f.literal
        )
      })
    }
  }
  return out
}

/**
 * A status the spec does not document for the exchange's operation (a 429 is
 * judged by {@link rateLimitFindings}).
 *
 * @category operations
 * @since 0.1.0
 */
export const statusFindings = (e: Exchange.Exchange): ReadonlyArray<Finding> => {
  const path = pathOf(e)
  const status = e.response.status
  if (!interfacePath(path) || status === 429) return []
  const op = Operations.find(e.request.method, path)
  const allowed = op !== undefined
    ? [...op.statuses, ...op.extraStatuses]
    : Operations.knownPath(path)
    ? [405]
    : [404]
  // unknown or repeated query parameters -> 400, for every operation (docs/operations.md, HTTP rules of the solver interface)
  if (op !== undefined && status === 400 && new URL(e.request.url).search.length > 0) return []
  if (allowed.includes(status)) return []
  const name = op?.operationId ?? `${e.request.method} ${path}`
  return [{
    key: `${name}:${status}`,
    failure: failure(
      e,
      `${name} answered the undocumented status ${status}`,
      allowed.join(", "),
      Exchange.responseSummary(e)
    )
  }]
}

/**
 * A 5xx other than 503 (an internal error).
 *
 * @category operations
 * @since 0.1.0
 */
export const serverErrorFindings = (e: Exchange.Exchange): ReadonlyArray<Finding> =>
  e.response.status >= 500 && e.response.status !== 503
    ? [{
      key: `${e.operation}:${e.response.status}`,
      failure: failure(e, `${Exchange.describe(e)}`, "no 5xx", Exchange.responseSummary(e))
    }]
    : []

/**
 * Dynamic data cached as a static document.
 *
 * @category operations
 * @since 0.1.0
 */
export const cacheFindings = (e: Exchange.Exchange): ReadonlyArray<Finding> => {
  const path = pathOf(e)
  if (!path.startsWith("/api/v6/") || path === "/api/v6/solver-discovery") return []
  const op = Operations.find(e.request.method, path)?.operationId
  const status = e.response.status
  const expected = op === "getSolverFeed" && (status === 200 || status === 304) ? "no-cache" : "no-store"
  const actual = e.response.headers["cache-control"] ?? ""
  return actual.split(/,\s*/).includes(expected) ? [] : [{
    key: `${op ?? path}:${status}`,
    failure: failure(e, `${op ?? path} ${status} has another Cache-Control`, expected, actual || "absent")
  }]
}

/**
 * A 429 from an operation whose status list has no 429 (the spec lists it for
 * permit creation and the aggregator only; svc rate-limits only those, and
 * refuses a feed over its budget with the listed 503): a warning.
 *
 * @category operations
 * @since 0.1.0
 */
export const rateLimitFindings = (e: Exchange.Exchange): ReadonlyArray<Finding> => {
  const path = pathOf(e)
  if (e.response.status !== 429 || !interfacePath(path)) return []
  const op = Operations.find(e.request.method, path)
  if (op !== undefined && op.statuses.includes(429)) return []
  const name = op?.operationId ?? `${e.request.method} ${path}`
  return [{
    key: `429:${name}`,
    warning: true,
    failure: failure(
      e,
      `${name} answered 429, which the spec does not list for it`,
      `one of ${
        op === undefined ? "its statuses" : op.statuses.join(", ")
      } (a refusal for load: the listed 503 with Retry-After)`,
      Exchange.responseSummary(e)
    )
  }]
}

/**
 * A 429 or 503 without Retry-After: a client cannot tell when to retry (the
 * spec does not require the header; svc sends it on both): a warning.
 *
 * @category operations
 * @since 0.1.0
 */
export const retryAfterFindings = (e: Exchange.Exchange): ReadonlyArray<Finding> => {
  const status = e.response.status
  if ((status !== 429 && status !== 503) || !interfacePath(pathOf(e))) return []
  const value = e.response.headers["retry-after"]
  if (value !== undefined && /^\s*[0-9]+\s*$/.test(value)) return []
  if (value !== undefined && !Number.isNaN(Date.parse(value))) return []
  const name = Operations.find(e.request.method, pathOf(e))?.operationId ?? `${e.request.method} ${pathOf(e)}`
  return [{
    key: `retry-after:${name}:${status}`,
    warning: true,
    failure: failure(
      e,
      `${name} answered ${status} without ${value === undefined ? "a" : "a valid"} Retry-After`,
      "Retry-After: delta-seconds or an HTTP date",
      value === undefined ? "absent" : JSON.stringify(value)
    )
  }]
}

/** Runs a per-exchange judge over the recorded exchanges. */
const overRecorded = (
  findings: (e: Exchange.Exchange) => ReadonlyArray<Finding>,
  filter: (e: Exchange.Exchange) => boolean = () => true
) =>
  Effect.gen(function*() {
    const c = distinct()
    for (const e of (yield* recorded).filter(filter)) for (const f of findings(e)) c.finding(f)
    yield* c.done
  })

const noUnknownFields = Check.make<Env>({
  name: "no_unknown_fields",
  group: "responses",
  title:
    "every JSON response of the run decodes strictly against the schema of its operation and status (no unknown fields, JSON content type)",
  reference:
    "spec §2 (all objects reject properties not listed); §7 ErrorResponse; docs/aggregator.md, Errors (AggregatorError)",
  run: overRecorded(schemaFindings)
})

const integers = Check.make<Env>({
  name: "integers_as_strings",
  group: "responses",
  title:
    "no JSON body or event of the run has a number literal beyond 2^53 - 1 (execution integers are strings) or a duplicate key",
  reference:
    "spec Conventions (execution integers are base-10 strings and must be preserved); docs/protocol.md, Conventions (Integers: |n| <= 2^53 - 1 in signed objects)",
  run: overRecorded(integerFindings)
})

const statuses = Check.make<Env>({
  name: "status_code_conformance",
  group: "responses",
  title:
    "every status of the run is one the spec documents for the operation (404 for unknown paths, 405 for other methods, 400 for query parameters it does not take)",
  reference: "spec §4 (responses per operation), §7; docs/operations.md, HTTP rules of the solver interface",
  run: overRecorded(statusFindings)
})

const serverErrors = Check.make<Env>({
  name: "no_server_errors",
  group: "responses",
  title: "no request of the run was answered 500 (503 means unavailable: inconclusive)",
  reference:
    "docs/operations.md, HTTP rules of the solver interface (no input produces a 500); spec §7 (500 internal runtime error, 503 closed or unavailable)",
  run: Effect.gen(function*() {
    const exchanges = yield* recorded
    const c = distinct()
    for (const e of exchanges) for (const f of serverErrorFindings(e)) c.finding(f)
    yield* c.done
    // a 503 waited out and answered on retry is not one the run could not decide
    const retried = new Set(exchanges.filter((x) => x.notes.some((n) => n.startsWith("unavailable (503)"))))
    const unavailable = exchanges.filter((x) => x.response.status === 503 && !retried.has(x))
    if (unavailable.length > 0) {
      return yield* new Check.Inconclusive({
        reason: `${unavailable.length} request(s) answered 503 (unavailable), first ${
          Exchange.describe(unavailable[0]!)
        }`
      })
    }
  })
})

const dynamicCaching = Check.make<Env>({
  name: "dynamic_cache_headers",
  group: "responses",
  title:
    "dynamic data is never cached as a static document: feed no-cache; route, permit, status, stream and errors no-store",
  reference: "spec §8 Caching; docs/operations.md, HTTP rules of the solver interface (caching)",
  run: overRecorded(cacheFindings)
})

const rateLimits = Check.make<Env>({
  name: "rate_limit_statuses",
  group: "responses",
  title:
    "only operations whose status list has 429 (permit creation, the aggregator) answered 429 during the run; elsewhere a 429 is a warning",
  reference:
    "spec §4, §7 (429: execution-permits and the aggregator), §8 (rate-limit thresholds: not shown); svc's profile: docs/operations.md, The feed budget (the feed's refusal is its listed 503)",
  run: overRecorded(rateLimitFindings)
})

const retryAfter = Check.make<Env>({
  name: "retry_after_on_refusals",
  group: "responses",
  title: "every 429 and 503 of the run carries Retry-After (a warning without: the spec does not require it)",
  reference:
    "spec §7 (429, 503; Retry-After: not shown); svc's profile: docs/errors.md (429 and 503 carry Retry-After)",
  run: overRecorded(retryAfterFindings)
})

/**
 * The run-wide checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [noUnknownFields, integers, statuses, serverErrors, dynamicCaching, rateLimits, retryAfter]
