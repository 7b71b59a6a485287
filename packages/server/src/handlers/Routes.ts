/**
 * Handler of the contract's Routes group: the route detail, the exact canonical
 * text of the route in the active signed feed plus its observational metrics.
 *
 * @since 0.1.0
 */
import type { Publisher, RouteMetrics } from "@svc/core"
import * as Api from "@svc/protocol/Api"
import { Effect, Result } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Http from "../Http.ts"
import * as SolverErrors from "../SolverErrors.ts"

const encoder = new TextEncoder()

/**
 * The Routes group's handler.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (publisher: Publisher.Publisher["Service"], metrics: RouteMetrics.RouteMetrics["Service"]) =>
  HttpApiBuilder.group(Api.Api, "Routes", (handlers) =>
    Effect.succeed(
      handlers.handleRaw("getRouteDetail", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const current = yield* Effect.result(publisher.current)
          if (Result.isFailure(current)) {
            return Http.errorResponse(SolverErrors.fromPublicationUnavailable(current.failure))
          }
          const index = current.success.routeIndexById.get(params.routeId.toLowerCase())
          if (index === undefined) {
            return Http.errorResponse(SolverErrors.failure("ROUTE_NOT_FOUND", ["ROUTE_NOT_FOUND"]))
          }
          // the route is the publication's checked canonical text; the metrics are typed by the endpoint's body
          const route: Http.SuccessBody<typeof endpoint>["metrics"] = yield* metrics.metrics(
            current.success.routes[index]!.routeId
          )
          const body = `{"ok":true,"route":${current.success.routeTexts[index]},"metrics":${JSON.stringify(route)}}`
          return Http.jsonBytes(200, encoder.encode(body))
        }))
    ))
