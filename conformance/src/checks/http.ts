/**
 * Paths, methods, CORS and the cache headers of the static documents.
 *
 * @since 0.1.0
 */
import { ErrorResponse } from "@svc/protocol"
import { Effect } from "effect"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import { failure, send, Shared } from "../Shared.ts"
import type { Env } from "./common.ts"

const unknownPath = Check.make<Env>({
  name: "http_unknown_path_404",
  group: "http",
  title: "an unknown path answers 404 with a strict ErrorResponse",
  reference: "spec §7 (404); docs/operations.md, HTTP rules of the solver interface (unknown path -> 404)",
  run: Effect.gen(function*() {
    const c = Check.collector()
    for (const path of ["/api/v6/no-such-operation", "/.well-known/svc-no-such-document.json"]) {
      const exchange = yield* send({ path })
      if (exchange.response.status !== 404) {
        c.add(failure(exchange, `${path} did not answer 404`, "404 ErrorResponse", Exchange.responseSummary(exchange)))
        continue
      }
      const issues = Check.schemaIssues(ErrorResponse, Exchange.json(exchange))
      if (issues.length > 0) {
        c.add(failure(exchange, "the 404 body is not an ErrorResponse", "a strict ErrorResponse", issues.join("; ")))
      }
    }
    yield* c.done
  })
})

const wrongMethod = Check.make<Env>({
  name: "http_method_not_allowed_405",
  group: "http",
  title: "a known path with another method answers 405 with Allow naming the method it serves",
  reference: "docs/operations.md, HTTP rules of the solver interface (wrong method -> 405 with Allow)",
  run: Effect.gen(function*() {
    const c = Check.collector()
    for (
      const [method, path, allowed] of [
        ["POST", "/api/v6/solver-feed", "GET"],
        ["GET", "/api/v6/execution-permits/request-message", "POST"],
        ["DELETE", "/.well-known/svc-solver.json", "GET"]
      ] as const
    ) {
      const exchange = yield* send({ method, path, ...(method === "POST" ? { json: {} } : {}) })
      const allow = exchange.response.headers.allow ?? ""
      if (exchange.response.status !== 405 || !allow.split(/,\s*/).includes(allowed)) {
        c.add(
          failure(
            exchange,
            `${method} ${path} is not refused with 405 and Allow`,
            `405, Allow including ${allowed}`,
            `${exchange.response.status}, Allow: ${allow || "absent"}`
          )
        )
        continue
      }
      const issues = Check.schemaIssues(ErrorResponse, Exchange.json(exchange))
      if (issues.length > 0) {
        c.add(failure(exchange, "the 405 body is not an ErrorResponse", "a strict ErrorResponse", issues.join("; ")))
      }
    }
    yield* c.done
  })
})

const cors = Check.make<Env>({
  name: "http_cors",
  group: "http",
  title:
    "responses allow any origin and expose ETag and Retry-After; the preflight answers 204 with the permitted methods and headers",
  reference: "docs/operations.md, HTTP behaviour worth knowing behind a proxy (CORS)",
  run: Effect.gen(function*() {
    const c = Check.collector()
    const shared = yield* Shared
    const feed = yield* shared.feed
    const h = feed.exchange.response.headers
    if (h["access-control-allow-origin"] !== "*") {
      c.add(
        failure(
          feed.exchange,
          "the feed does not allow any origin",
          "Access-Control-Allow-Origin: *",
          h["access-control-allow-origin"] ?? "absent"
        )
      )
    }
    const expose = (h["access-control-expose-headers"] ?? "").toLowerCase()
    for (const name of ["etag", "retry-after"]) {
      if (!expose.includes(name)) {
        c.add(
          failure(
            feed.exchange,
            `${name} is not exposed to browsers`,
            `Access-Control-Expose-Headers including ${name}`,
            expose || "absent"
          )
        )
      }
    }
    const preflight = yield* send({
      method: "OPTIONS",
      path: "/api/v6/execution-permits",
      headers: {
        origin: "https://wallet.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, idempotency-key"
      }
    })
    const p = preflight.response.headers
    if (preflight.response.status !== 204 && preflight.response.status !== 200) {
      c.add(failure(preflight, "the CORS preflight is refused", "204", Exchange.responseSummary(preflight)))
    } else {
      const methods = (p["access-control-allow-methods"] ?? "").toUpperCase()
      for (const m of ["GET", "POST"]) {
        if (!methods.includes(m)) {
          c.add(
            failure(
              preflight,
              `the preflight does not allow ${m}`,
              "Access-Control-Allow-Methods: GET, POST, OPTIONS",
              methods || "absent"
            )
          )
        }
      }
      const headers = (p["access-control-allow-headers"] ?? "").toLowerCase()
      for (const name of ["content-type", "idempotency-key", "if-none-match", "last-event-id"]) {
        if (!headers.includes(name) && headers !== "*") {
          c.add(
            failure(
              preflight,
              `the preflight does not allow the header ${name}`,
              "Content-Type, Idempotency-Key, If-None-Match, Last-Event-ID",
              headers || "absent"
            )
          )
        }
      }
    }
    yield* c.done
  })
})

const DOCUMENT_CACHE: ReadonlyArray<readonly [string, string]> = [
  ["/.well-known/svc-solver.json", "public, max-age=60"],
  ["/api/v6/solver-discovery", "public, max-age=60"],
  ["/.well-known/svc-onchain-discovery.json", "public, max-age=300, stale-while-revalidate=3600"],
  ["/.well-known/svc-standards.json", "public, max-age=300, stale-while-revalidate=3600"],
  ["/openapi.json", "public, max-age=300, stale-while-revalidate=3600"]
]

const documentCache = Check.make<Env>({
  name: "http_document_cache_headers",
  group: "http",
  title:
    "the static documents carry their Cache-Control (manifest 60 s; fingerprint, standards, openapi 300 s + stale-while-revalidate)",
  reference:
    "spec §4 (static documents may be cached per their headers); docs/operations.md, HTTP rules of the solver interface (caching)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const c = Check.collector()
    for (const [path, expected] of DOCUMENT_CACHE) {
      const exchange = yield* shared.get(path)
      const actual = exchange.response.headers["cache-control"]
      if (exchange.response.status === 200 && actual !== expected) {
        c.add(failure(exchange, `${path} has another Cache-Control`, expected, actual ?? "absent"))
      }
    }
    yield* c.done
  })
})

const notJson = Check.make<Env>({
  name: "http_body_not_json_400",
  group: "http",
  title: "a POST body that is not JSON answers 400 with an ErrorResponse (never 5xx)",
  reference: "docs/operations.md, HTTP rules of the solver interface (a non-JSON body -> 400); spec §7 (400)",
  run: Effect.gen(function*() {
    const c = Check.collector()
    for (const body of ["not json", "{\"quoteId\":", ""]) {
      const exchange = yield* send({
        method: "POST",
        path: "/api/v6/execution-permits/request-message",
        body,
        headers: { "content-type": "application/json" }
      })
      const issues = Check.schemaIssues(ErrorResponse, Exchange.json(exchange))
      if (exchange.response.status !== 400 || issues.length > 0) {
        c.add(
          failure(
            exchange,
            `the body ${JSON.stringify(body)} is not refused with 400`,
            "400 ErrorResponse",
            Exchange.responseSummary(exchange)
          )
        )
      }
    }
    yield* c.done
  })
})

/**
 * The http checks.
 *
 * @category testing
 * @since 0.1.0
 */
const SDK_HEADER = "x-svc-sdk"

const corsSdkHeader = Check.make<Env>({
  name: "http_cors_sdk_header",
  group: "http",
  title:
    "browsers may send the x-svc-sdk header that SDKs add to every call: preflights for the feed and for permit requests allow it, and such a request is answered",
  reference: "docs/operations.md, CORS (request headers: x-svc-sdk)",
  run: Effect.gen(function*() {
    const c = Check.collector()
    const allows = (headers: Readonly<Record<string, string>>, name: string) => {
      const allowed = (headers["access-control-allow-headers"] ?? "").toLowerCase().split(",").map((h) => h.trim())
      return allowed.includes(name) || allowed.includes("*")
    }
    for (
      const [method, path, requested] of [
        ["GET", "/api/v6/solver-feed", SDK_HEADER],
        ["POST", "/api/v6/execution-permits/request-message", `content-type, ${SDK_HEADER}`]
      ] as const
    ) {
      const preflight = yield* send({
        method: "OPTIONS",
        path,
        headers: {
          origin: "https://wallet.example",
          "access-control-request-method": method,
          "access-control-request-headers": requested
        }
      })
      const status = preflight.response.status
      if ((status !== 204 && status !== 200) || !allows(preflight.response.headers, SDK_HEADER)) {
        c.add(
          failure(
            preflight,
            `the preflight of ${method} ${path} does not allow ${SDK_HEADER}`,
            `204 with Access-Control-Allow-Headers including ${SDK_HEADER}`,
            `${status} ${
              preflight.response.headers["access-control-allow-headers"] ?? "(no Access-Control-Allow-Headers)"
            }`
          )
        )
      }
    }
    const request = yield* send({
      path: "/api/v6/solver-feed",
      headers: { origin: "https://wallet.example", [SDK_HEADER]: "typescript/0.1.0" }
    })
    if (request.response.status !== 200 || request.response.headers["access-control-allow-origin"] === undefined) {
      c.add(
        failure(
          request,
          `a feed request carrying ${SDK_HEADER} is not answered to the browser`,
          "200 with Access-Control-Allow-Origin",
          Exchange.responseSummary(request)
        )
      )
    }
    yield* c.done
  })
})

export const checks = [unknownPath, wrongMethod, cors, corsSdkHeader, documentCache, notJson]
