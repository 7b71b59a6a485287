/**
 * The client's operations come from the HTTP contract (`@svc/protocol/Api`):
 * every operation the client performs is found by group and name, with the
 * contract's method, path, statuses and error family (checked against the
 * derived openapi.json as well); a missing one fails the lookup. The requests
 * follow the declarations (method, success statuses, body schemas, error
 * bodies), and the parts of the service work alone on a stub fetch.
 */
import { assert, describe, it } from "@effect/vitest"
import { Api, ErrorFamily } from "@svc/protocol/Api"
import * as ApiDocument from "@svc/protocol/ApiDocument"
import { Context, Effect, Result, Tracer } from "effect"
import { HttpApi } from "effect/http-api"
import { DiscoveryInvalid, HttpError, InvalidInput, RefreshQuote, ResponseInvalid } from "../src/Errors.ts"
import * as Operations from "../src/internal/declared.ts"
import type { FetchFunction, HttpResponse } from "../src/internal/http.ts"
import { call, exchange, fillPath, lookup, refusal } from "../src/internal/operations.ts"
import { aggregator } from "../src/internal/service/aggregator.ts"
import { makeEnv } from "../src/internal/service/env.ts"
import type { FeedReader } from "../src/internal/service/feed.ts"
import { type ManifestReader, manifestReader } from "../src/internal/service/manifests.ts"
import { permits } from "../src/internal/service/permits.ts"
import { routeDetail } from "../src/internal/service/routes.ts"
import type * as Manifests from "../src/Manifests.ts"

/** A fetch answering from a function; records every request. */
const stubFetch = (answer: (url: string, init: RequestInit) => Response) => {
  const requests: Array<{ url: string; method: string; headers: Record<string, string>; body: unknown }> = []
  const fetch: FetchFunction = async (url, init) => {
    requests.push({
      url,
      method: init?.method ?? "GET",
      headers: { ...(init?.headers as Record<string, string> | undefined) },
      body: init?.body
    })
    return answer(url, init ?? {})
  }
  return { fetch, requests }
}

const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } })

const response = (status: number, text: string): HttpResponse => ({
  method: "GET",
  url: "http://x/y",
  status,
  headers: new Headers(),
  text
})

const BASE = "http://svc.test"
const ID = `0x${"ab".repeat(32)}`

/** Manifests that are never read from the network. */
const stubManifests = (endpoints: Record<string, string>): ManifestReader => {
  const solver = {
    url: `${BASE}/.well-known/svc-solver.json`,
    manifest: { endpoints },
    expectedSigner: "0x"
  } as unknown as Manifests.Solver
  const aggregatorManifest = {
    url: `${BASE}/.well-known/svc-aggregator.json`,
    manifest: { endpoints },
    expectedSigner: "0x"
  } as unknown as Manifests.Aggregator
  return {
    solver: Effect.succeed(solver),
    refreshSolver: Effect.succeed(solver),
    aggregator: Effect.succeed(aggregatorManifest)
  }
}

const noFeeds = {} as FeedReader

describe("operations derived from the contract", () => {
  it("every operation the client performs is the contract's: method, path, statuses, error family", () => {
    const document = ApiDocument.make({ publicUrl: BASE }) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    }
    for (const operation of Object.values(Operations)) {
      const endpoint =
        (Api.groups as unknown as Record<string, { endpoints: Record<string, { method: string; path: string }> }>)[
          operation.group
        ]!.endpoints[operation.id]!
      assert.strictEqual(operation.method, endpoint.method, operation.id)
      assert.strictEqual(operation.path, endpoint.path, operation.id)
      let family: string | undefined
      HttpApi.reflect(Api, {
        predicate: ({ endpoint: e, group }) => group.identifier === operation.group && e.identifier === operation.id,
        onGroup() {},
        onEndpoint({ mergedAnnotations }) {
          family = Context.getOrUndefined(mergedAnnotations, ErrorFamily)
        }
      })
      assert.strictEqual(operation.family, family, operation.id)
      // the statuses are the documented ones of openapi.json (derived from the same declarations)
      const documented = document
        .paths[operation.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")]![operation.method.toLowerCase()]!
      assert.deepStrictEqual(
        [...operation.successes.keys(), ...operation.errors.keys()].sort(),
        Object.keys(documented.responses).map(Number).sort(),
        operation.id
      )
    }
  })

  it("what the client relies on is declared: revalidated reads, 201 on creation, path parameters, families", () => {
    const statuses = (o: { successes: ReadonlyMap<number, unknown> }) => [...o.successes.keys()].sort()
    assert.deepStrictEqual(statuses(Operations.getSolverFeed), [200, 304])
    assert.isTrue(Operations.getSolverFeed.revalidates)
    assert.deepStrictEqual(statuses(Operations.createExecutionPermit), [200, 201])
    assert.strictEqual(Operations.createExecutionPermit.method, "POST")
    assert.isTrue(Operations.aggregator_chains.revalidates)
    assert.isTrue(Operations.aggregator_tokens.revalidates)
    assert.isFalse(Operations.aggregator_health.revalidates)
    assert.isFalse(Operations.aggregator_status.revalidates)
    assert.deepStrictEqual(Operations.getRouteDetail.pathParams, ["routeId"])
    assert.deepStrictEqual(Operations.getExecutionPermit.pathParams, ["fillId"])
    assert.strictEqual(Operations.getSolverFeed.family, "solver")
    assert.strictEqual(Operations.aggregator_build.family, "aggregator")
  })

  it("a lookup the contract cannot answer throws", () => {
    assert.throws(
      () => lookup("Routes", "getRouteDetails" as never, "solver"),
      /declares no operation Routes\/getRouteDetails/
    )
    assert.throws(
      () => lookup("Feed", "getRouteDetail" as never, "solver"),
      /declares no operation Feed\/getRouteDetail/
    )
    assert.throws(
      () => lookup("Routes", "getRouteDetail", "aggregator"),
      /answers solver errors in the contract, not aggregator/
    )
  })

  it("path parameters fill the manifest's template; a template without one is refused", () => {
    assert.deepStrictEqual(
      fillPath(Operations.getRouteDetail, `${BASE}/api/v6/routes/{routeId}`, { routeId: ID }),
      Result.succeed(`${BASE}/api/v6/routes/${ID}`)
    )
    const missing = fillPath(Operations.getExecutionPermit, `${BASE}/api/v6/execution-permits`, { fillId: ID })
    assert.isTrue(Result.isFailure(missing))
    assert.match(Result.isFailure(missing) ? missing.failure : "", /has no \{fillId\}/)
  })

  it("refusals: the family decides RefreshQuote; undeclared statuses and non-JSON bodies are read leniently", () => {
    const refresh = JSON.stringify({
      ok: false,
      error: "QUOTE_EXPIRED",
      message: "expired",
      retryable: true,
      action: "REFRESH_QUOTE",
      reasonCodes: ["QUOTE_EXPIRED"]
    })
    const aggregatorRefusal = refusal(Operations.aggregator_build, response(410, refresh))
    assert.instanceOf(aggregatorRefusal, RefreshQuote)
    assert.strictEqual(aggregatorRefusal.serverCode, "QUOTE_EXPIRED")
    assert.deepStrictEqual(aggregatorRefusal.reasonCodes, ["QUOTE_EXPIRED"])
    assert.instanceOf(refusal(Operations.createExecutionPermit, response(410, refresh)), HttpError)
    // 404 is not declared for the manifest: the body is still read
    const notFound = refusal(
      Operations.getSolverManifest,
      response(404, JSON.stringify({ ok: false, error: "NOT_FOUND" }))
    )
    assert.strictEqual(notFound.serverCode, "NOT_FOUND")
    const page = refusal(Operations.getSolverFeed, response(502, "<html>bad gateway</html>"))
    assert.instanceOf(page, HttpError)
    assert.strictEqual(page.serverCode, null)
  })
})

describe("requests follow the declarations", () => {
  it.effect("method and JSON body from the contract; the declared body schema decodes; other statuses refuse", () =>
    Effect.gen(function*() {
      const validity = { quoteValid: true, quoteError: null }
      const { fetch, requests } = stubFetch((url) =>
        url.endsWith("/ok")
          ? jsonResponse(200, validity)
          : url.endsWith("/created")
          ? jsonResponse(201, validity)
          : jsonResponse(200, { quoteValid: "yes" })
      )
      const ok = yield* call(fetch, Operations.aggregator_status, { url: `${BASE}/ok` })
      assert.deepStrictEqual(ok.body, validity)
      const created = yield* Effect.flip(
        call(fetch, Operations.aggregator_quote, { url: `${BASE}/created`, body: "{}" })
      )
      assert.instanceOf(created, HttpError)
      assert.strictEqual((created as HttpError).status, 201)
      const invalid = yield* Effect.flip(call(fetch, Operations.aggregator_status, { url: `${BASE}/bad` }))
      assert.instanceOf(invalid, ResponseInvalid)
      assert.deepStrictEqual(requests.map((r) => r.method), ["GET", "POST", "GET"])
      assert.strictEqual(requests[1]!.headers["content-type"], "application/json")
      assert.isUndefined(requests[0]!.headers["content-type"])
    }))

  it.effect("a declared 304 is an empty answer; an undeclared one is a refusal", () =>
    Effect.gen(function*() {
      const { fetch } = stubFetch(() => new Response(null, { status: 304 }))
      const feed = yield* exchange(fetch, Operations.getSolverFeed, { url: `${BASE}/api/v6/solver-feed` })
      assert.strictEqual(feed._tag, "Empty")
      const health = yield* Effect.flip(exchange(fetch, Operations.aggregator_health, { url: `${BASE}/v1/health` }))
      assert.instanceOf(health, HttpError)
    }))
})

describe("the parts of the service, each alone", () => {
  it.effect("discovery: no URL is InvalidInput; a manifest body that is not one is DiscoveryInvalid; REFRESH_QUOTE stays HttpError", () =>
    Effect.gen(function*() {
      const none = yield* Effect.flip(manifestReader(makeEnv({})).solver)
      assert.instanceOf(none, InvalidInput)
      const { fetch, requests } = stubFetch((url) =>
        url.endsWith("svc-solver.json")
          ? jsonResponse(200, { schema: "nope" })
          : jsonResponse(410, {
            ok: false,
            error: "QUOTE_EXPIRED",
            message: "m",
            retryable: true,
            action: "REFRESH_QUOTE"
          })
      )
      const reader = manifestReader(makeEnv({ baseUrl: BASE, fetch }))
      const invalid = yield* Effect.flip(reader.solver)
      assert.instanceOf(invalid, DiscoveryInvalid)
      const refused = yield* Effect.flip(reader.aggregator)
      assert.instanceOf(refused, HttpError)
      assert.strictEqual((refused as HttpError).serverCode, "QUOTE_EXPIRED")
      assert.deepStrictEqual(requests.map((r) => r.url), [
        `${BASE}/.well-known/svc-solver.json`,
        `${BASE}/.well-known/svc-aggregator.json`
      ])
    }))

  it.effect("aggregator: tokens are revalidated with the kept ETag (declared 304); health is not", () =>
    Effect.gen(function*() {
      const tokens = { tokens: [], dataVersion: "7", validUntil: 1_900_000_000 }
      const health = {
        status: "OK",
        publicationOpen: true,
        dataVersion: "7",
        feedValidUntil: 1_900_000_000,
        openRouteCount: 1,
        checkedAt: 1
      }
      const { fetch, requests } = stubFetch((url, init) => {
        if (url.includes("/v1/tokens")) {
          return (init.headers as Record<string, string>)["if-none-match"] === "W/\"t\""
            ? new Response(null, { status: 304, headers: { etag: "W/\"t\"" } })
            : jsonResponse(200, tokens, { etag: "W/\"t\"" })
        }
        return jsonResponse(200, health, { etag: "W/\"h\"" })
      })
      const a = aggregator(
        makeEnv({ baseUrl: BASE, fetch }),
        stubManifests({ tokens: `${BASE}/v1/tokens`, health: `${BASE}/v1/health` }),
        noFeeds
      )
      assert.deepStrictEqual(yield* a.tokens(8453), tokens)
      assert.deepStrictEqual(yield* a.tokens(8453), tokens)
      yield* a.health
      yield* a.health
      assert.deepStrictEqual(requests.map((r) => r.headers["if-none-match"] ?? null), [null, "W/\"t\"", null, null])
      assert.strictEqual(requests[0]!.url, `${BASE}/v1/tokens?chainId=8453`)
    }))

  it.effect("aggregator: a status answer of another kind than the lookup's is ResponseInvalid", () =>
    Effect.gen(function*() {
      const { fetch } = stubFetch(() => jsonResponse(200, { quoteValid: false, quoteError: "QUOTE_EXPIRED" }))
      const a = aggregator(makeEnv({ baseUrl: BASE, fetch }), stubManifests({ status: `${BASE}/v1/status` }), noFeeds)
      const validity = yield* a.status({ quoteToken: "cd".repeat(32) })
      assert.isFalse(validity.quoteValid)
      const mismatch = yield* Effect.flip(a.status({ fillId: ID }))
      assert.instanceOf(mismatch, ResponseInvalid)
      assert.match((mismatch as ResponseInvalid).reason, /fillId lookup has no fillId/)
    }))

  it.effect("route detail and permit status: a template without the contract's parameter is DiscoveryInvalid, nothing is sent", () =>
    Effect.gen(function*() {
      const { fetch, requests } = stubFetch(() => jsonResponse(500, {}))
      const env = makeEnv({ baseUrl: BASE, fetch })
      const manifests = stubManifests({
        routeDetailTemplate: `${BASE}/api/v6/routes/`,
        permitStatusTemplate: `${BASE}/api/v6/permits/{id}`
      })
      const route = yield* Effect.flip(routeDetail(env, manifests, noFeeds)(ID))
      assert.instanceOf(route, DiscoveryInvalid)
      assert.match((route as DiscoveryInvalid).reason, /^endpoints\.routeDetailTemplate has no \{routeId\}/)
      const permit = yield* Effect.flip(permits(env, manifests, noFeeds).get(ID))
      assert.instanceOf(permit, DiscoveryInvalid)
      assert.strictEqual(requests.length, 0)
    }))

  it.effect("service methods run in spans named after them", () =>
    Effect.gen(function*() {
      const names: Array<string> = []
      const recording = Tracer.make({
        span(options) {
          names.push(options.name)
          return Tracer.nativeTracer.span(options)
        }
      })
      const { fetch } = stubFetch(() => jsonResponse(200, { quoteValid: true, quoteError: null }))
      const env = makeEnv({ baseUrl: BASE, fetch })
      const manifests = stubManifests({ status: `${BASE}/v1/status` })
      yield* aggregator(env, manifests, noFeeds).status({ quoteToken: "ef".repeat(32) }).pipe(
        Effect.withTracer(recording)
      )
      yield* Effect.flip(permits(env, manifests, noFeeds).get("0x12")).pipe(Effect.withTracer(recording))
      assert.deepStrictEqual(names, ["SvcClient.aggregator.status", "SvcClient.permits.get"])
    }))
})
