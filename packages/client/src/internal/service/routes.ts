/**
 * Route detail (`getRouteDetail`): the route is the signed one of the verified
 * feed, the metrics come from the detail body. Internal.
 *
 * @since 0.1.0
 */
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as Effect from "effect/Effect"
import { RouteNotFound } from "../../Errors.ts"
import { type Route, routeByRouteId } from "../../Feed.ts"
import type { RouteError, VerifiedRoute } from "../../SvcClient.ts"
import * as Operations from "../declared.ts"
import { checkId, type ClientEnv, templateUrl } from "./env.ts"
import type { FeedReader } from "./feed.ts"
import type { SolverManifests } from "./manifests.ts"

/**
 * The route detail method of a client.
 *
 * @category constructors
 * @since 0.1.0
 */
export const routeDetail = (
  env: ClientEnv,
  manifests: SolverManifests,
  feeds: FeedReader
): (routeId: string) => Effect.Effect<VerifiedRoute, RouteError> =>
  Effect.fn("SvcClient.route")(function*(routeId: string) {
    const id = yield* checkId("routeId", routeId)
    const d = yield* manifests.solver
    const url = yield* templateUrl(d, "routeDetailTemplate", Operations.getRouteDetail, { routeId: id })
    const { body: detail } = yield* env.call(Operations.getRouteDetail, { url })
    let verified = yield* feeds.full
    let signed = routeByRouteId(verified, id)
    const matches = (r: Route | undefined) =>
      r !== undefined && CanonicalJson.stringify(r) === CanonicalJson.stringify(detail.route)
    if (!matches(signed)) {
      verified = yield* feeds.read({ sourceChainId: undefined, sourceNetworkId: undefined }, true)
      signed = routeByRouteId(verified, id)
    }
    if (signed === undefined) {
      return yield* new RouteNotFound({
        routeId: id,
        reason: `route ${id} is not in the verified feed ${verified.dataVersion}`
      })
    }
    return {
      route: signed,
      metrics: detail.metrics,
      dataVersion: verified.dataVersion,
      detailMatchesSignedRoute: matches(signed)
    }
  })
