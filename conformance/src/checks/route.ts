/**
 * Route detail: `GET /api/v6/routes/{routeId}` answers the exact signed route
 * of the active feed with separate observational metrics; an unknown or
 * malformed routeId answers 404.
 *
 * @since 0.1.0
 */
import { CanonicalJson, RouteDetailResponse } from "@svc/protocol"
import { Effect, Result } from "effect"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import * as JsonText from "../JsonText.ts"
import { asObject, expectStatus, failure, send, Shared } from "../Shared.ts"
import { type Env, firstDifference, sameJson } from "./common.ts"

/** At most this many routes are fetched one by one. */
const MAX_ROUTES = 25

const detailUrl = (template: unknown, routeId: string) =>
  typeof template === "string" && template.includes("{routeId}")
    ? template.replace("{routeId}", routeId)
    : `/api/v6/routes/${routeId}`

const equalsSigned = Check.make<Env>({
  name: "route_detail_equals_signed",
  group: "route",
  title:
    "for each signed route, route detail answers 200 with the identical route, its text byte for byte the canonical JSON of the signed route",
  reference: "spec §4 getRouteDetail (the exact canonical active signed-feed route plus separate metrics)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const snapshot = yield* shared.feed
    if (snapshot.routes.length === 0) return yield* new Check.Skip({ reason: "the feed has no routes" })
    const c = Check.collector()
    for (const route of snapshot.routes.slice(0, MAX_ROUTES)) {
      let exchange = yield* send({ path: detailUrl(snapshot.feed.routeDetailTemplate, String(route.routeId)) })
      let signed: unknown = route
      let body = asObject(Exchange.json(exchange))
      const detail = asObject(body?.route)
      if (detail !== undefined && String(detail.dataVersion) !== snapshot.dataVersion) {
        // a publication happened: compare with the feed of the same version
        const fresh = yield* shared.freshFeed
        signed = fresh.routes.find((r) => String(r.routeId).toLowerCase() === String(route.routeId).toLowerCase())
        exchange = yield* send({ path: detailUrl(fresh.feed.routeDetailTemplate, String(route.routeId)) })
        body = asObject(Exchange.json(exchange))
      }
      if (exchange.response.status !== 200) {
        c.add(
          failure(
            exchange,
            `the route ${String(route.routeId).slice(0, 10)}… is not served`,
            "200 RouteDetailResponse",
            Exchange.responseSummary(exchange)
          )
        )
        continue
      }
      if (!sameJson(body?.route, signed)) {
        c.add(
          failure(
            exchange,
            `route detail of ${String(route.routeId).slice(0, 10)}… differs from the signed route`,
            "the signed route, field for field",
            firstDifference(body?.route, signed) ?? ""
          )
        )
        continue
      }
      // equal values can still be different bytes (5.0 for 5, -0, escapes, key order): the route is the
      // exact canonical signed route
      const canonical = CanonicalJson.stringifyResult(signed)
      const sent = JsonText.memberText(exchange.response.body, "route")
      if (Result.isSuccess(canonical) && sent !== canonical.success) {
        c.add(
          failure(
            exchange,
            `route detail of ${String(route.routeId).slice(0, 10)}… is not the canonical JSON of the signed route`,
            canonical.success,
            sent ?? "no route member in the response text"
          )
        )
      }
    }
    yield* c.done
  })
})

const schema = Check.make<Env>({
  name: "route_detail_schema",
  group: "route",
  title: "route detail is a strict RouteDetailResponse (no unknown fields) with Cache-Control no-store",
  reference:
    "spec §2 RouteDetailResponse, RouteMetrics; docs/operations.md, HTTP rules of the solver interface (caching: route no-store)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const snapshot = yield* shared.feed
    const route = snapshot.routes[0]
    if (route === undefined) return yield* new Check.Skip({ reason: "the feed has no routes" })
    const exchange = yield* send({ path: detailUrl(snapshot.feed.routeDetailTemplate, String(route.routeId)) })
    yield* expectStatus(exchange, 200)
    yield* Check.expectSchema(RouteDetailResponse, Exchange.json(exchange), "the route detail response", exchange)
    if (exchange.response.headers["cache-control"] !== "no-store") {
      return yield* Check.fail(
        failure(
          exchange,
          "route detail may be cached",
          "Cache-Control: no-store",
          exchange.response.headers["cache-control"] ?? "absent"
        )
      )
    }
  })
})

const notFound = Check.make<Env>({
  name: "route_detail_not_found",
  group: "route",
  title: "an unknown routeId and a malformed one answer 404 ErrorResponse; the routeId's hex case does not matter",
  reference:
    "spec §4 getRouteDetail (404); docs/operations.md, HTTP rules of the solver interface (a malformed id -> the same 404, hex case-insensitive)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const snapshot = yield* shared.feed
    const c = Check.collector()
    for (const id of [`0x${"ab".repeat(32)}`, "0x1234", "not-a-route-id"]) {
      if (snapshot.routes.some((r) => String(r.routeId).toLowerCase() === id)) continue
      const exchange = yield* send({ path: `/api/v6/routes/${id}` })
      if (exchange.response.status !== 404) {
        c.add(
          failure(
            exchange,
            `the routeId ${id} did not answer 404`,
            "404 ErrorResponse",
            Exchange.responseSummary(exchange)
          )
        )
      }
    }
    const route = snapshot.routes[0]
    if (route !== undefined) {
      const upper = `0x${String(route.routeId).slice(2).toUpperCase()}`
      const exchange = yield* send({ path: `/api/v6/routes/${upper}` })
      if (exchange.response.status !== 200) {
        c.add(
          failure(
            exchange,
            "the routeId in uppercase hex is not found",
            "200 (hex is case-insensitive)",
            Exchange.responseSummary(exchange)
          )
        )
      }
    }
    yield* c.done
  })
})

/**
 * The route checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [equalsSigned, schema, notFound]
