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

/** Collects failures, one per distinct key (the first exchange showing it). */
const distinct = () => {
  const c = Check.collector()
  const seen = new Set<string>()
  return {
    add: (key: string, f: Check.Failure) => {
      if (seen.has(key)) return
      seen.add(key)
      c.add(f)
    },
    done: c.done
  }
}

const noUnknownFields = Check.make<Env>({
  name: "no_unknown_fields",
  group: "responses",
  title:
    "every JSON response of the run decodes strictly against the schema of its operation and status (no unknown fields, JSON content type)",
  reference:
    "spec §2 (all objects reject properties not listed); §7 ErrorResponse; docs/aggregator.md, Errors (AggregatorError)",
  run: Effect.gen(function*() {
    const exchanges = (yield* recorded).filter((e) => interfacePath(pathOf(e)) && e.stream === undefined)
    const c = distinct()
    for (const e of exchanges) {
      const path = pathOf(e)
      const rule = Operations.bodyRuleOf(e.request.method, path, e.response.status)
      const op = Operations.find(e.request.method, path)?.operationId ?? `${e.request.method} ${path}`
      if (rule === "openapi" || rule === "sse") continue
      if (rule === "empty") {
        if (e.response.body.length > 0) {
          c.add(
            `${op}:${e.response.status}:body`,
            failure(e, `${op} ${e.response.status} has a body`, "no body", `${e.response.body.length} bytes`)
          )
        }
        continue
      }
      if (!Exchange.isJson(e)) {
        c.add(
          `${op}:${e.response.status}:json`,
          failure(e, `${op} ${e.response.status} is not JSON`, "a JSON body", Exchange.responseSummary(e))
        )
        continue
      }
      if (!/^application\/json/i.test(e.response.headers["content-type"] ?? "")) {
        c.add(
          `${op}:${e.response.status}:type`,
          failure(
            e,
            `${op} ${e.response.status} is not labelled JSON`,
            "content-type application/json",
            e.response.headers["content-type"] ?? "absent"
          )
        )
      }
      const issues = Check.schemaIssues(rule, Exchange.json(e))
      if (issues.length > 0) {
        c.add(
          `${op}:${e.response.status}:${issues[0]}`,
          failure(
            e,
            `${op} ${e.response.status} does not match ${Check.schemaName(rule)}`,
            `a strict ${Check.schemaName(rule)}`,
            issues.slice(0, 5).join("; ")
          )
        )
      }
    }
    yield* c.done
  })
})

const integers = Check.make<Env>({
  name: "integers_as_strings",
  group: "responses",
  title:
    "no JSON body or event of the run has a number literal beyond 2^53 - 1 (execution integers are strings) or a duplicate key",
  reference:
    "spec Conventions (execution integers are base-10 strings and must be preserved); docs/protocol.md, Conventions (Integers: |n| <= 2^53 - 1 in signed objects)",
  run: Effect.gen(function*() {
    const c = distinct()
    for (const e of yield* recorded) {
      const texts = e.stream === undefined ? [e.response.body] : e.stream.events.map((ev) => ev.data)
      for (const text of texts) {
        if (text.length === 0) continue
        const findings = JsonText.scan(text)
        if (findings === undefined) continue
        for (const f of findings) {
          c.add(
            `${f.kind}:${f.path}`,
            failure(
              e,
              f.kind === "UNSAFE_NUMBER"
                ? `${f.path} is a number beyond 2^53 - 1`
                : `${f.path} has the key ${JSON.stringify(f.literal)} twice`,
              f.kind === "UNSAFE_NUMBER" ? "a base-10 string" : "unique keys",
              f.literal
            )
          )
        }
      }
    }
    yield* c.done
  })
})

const statuses = Check.make<Env>({
  name: "status_code_conformance",
  group: "responses",
  title:
    "every status of the run is one the spec documents for the operation (404 for unknown paths, 405 for other methods, 400 for query parameters it does not take)",
  reference: "spec §4 (responses per operation), §7; docs/operations.md, HTTP rules of the solver interface",
  run: Effect.gen(function*() {
    const c = distinct()
    for (const e of yield* recorded) {
      const path = pathOf(e)
      const status = e.response.status
      if (!interfacePath(path) || status === 429) continue
      const op = Operations.find(e.request.method, path)
      const allowed = op !== undefined
        ? [...op.statuses, ...op.extraStatuses]
        : Operations.knownPath(path)
        ? [405]
        : [404]
      // unknown or repeated query parameters -> 400, for every operation (docs/operations.md, HTTP rules of the solver interface)
      if (op !== undefined && status === 400 && new URL(e.request.url).search.length > 0) continue
      if (!allowed.includes(status)) {
        const name = op?.operationId ?? `${e.request.method} ${path}`
        c.add(
          `${name}:${status}`,
          failure(
            e,
            `${name} answered the undocumented status ${status}`,
            allowed.join(", "),
            Exchange.responseSummary(e)
          )
        )
      }
    }
    yield* c.done
  })
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
    for (const e of exchanges.filter((x) => x.response.status >= 500 && x.response.status !== 503)) {
      c.add(
        `${e.operation}:${e.response.status}`,
        failure(e, `${Exchange.describe(e)}`, "no 5xx", Exchange.responseSummary(e))
      )
    }
    yield* c.done
    const unavailable = exchanges.filter((x) => x.response.status === 503)
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
  run: Effect.gen(function*() {
    const c = distinct()
    for (const e of yield* recorded) {
      const path = pathOf(e)
      if (!path.startsWith("/api/v6/") || path === "/api/v6/solver-discovery") continue
      const op = Operations.find(e.request.method, path)?.operationId
      const status = e.response.status
      const expected = op === "getSolverFeed" && (status === 200 || status === 304) ? "no-cache" : "no-store"
      const actual = e.response.headers["cache-control"] ?? ""
      if (!actual.split(/,\s*/).includes(expected)) {
        c.add(
          `${op ?? path}:${status}`,
          failure(e, `${op ?? path} ${status} has another Cache-Control`, expected, actual || "absent")
        )
      }
    }
    yield* c.done
  })
})

/**
 * The run-wide checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [noUnknownFields, integers, statuses, serverErrors, dynamicCaching]
