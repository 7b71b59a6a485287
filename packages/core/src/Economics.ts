/**
 * Route economics: the evidence behind the feed's `actionableRoutes` shortlist
 * (non-authoritative, unsigned estimates). svc publishes an empty shortlist unless
 * an economics layer supplies evidence; an operator plugs one in with
 * {@link layer}.
 *
 * Shortlist rules: at most 10 entries, each resolving to a signed route of the
 * same publication (routeId and quoteId); ordered by expectedEdgeAfterSourceGasBps
 * descending, then routeId; routes without evidence or with a negative edge are
 * left out (they stay in the signed feed).
 *
 * @since 0.1.0
 */
import type { ActionableRoute, Route } from "@svc/protocol/schema/Feed"
import { Context, Effect, Layer } from "effect"

/**
 * Evidence for one route, or none.
 *
 * @category models
 * @since 0.1.0
 */
export type RouteEvidence = Omit<ActionableRoute, "routeId" | "quoteId" | "pricingReferenceId"> & {
  /** The edge in basis points; negative edges are excluded from the shortlist. */
  readonly edgeBps: number
}

/**
 * The economics service.
 *
 * @category services
 * @since 0.1.0
 */
export class Economics extends Context.Service<Economics, {
  /** Evidence for the open routes of a publication being built (may return fewer). */
  readonly evidence: (routes: ReadonlyArray<Route>) => Effect.Effect<ReadonlyMap<string, RouteEvidence>>
}>()("@svc/core/Economics") {}

/**
 * No economics: an empty shortlist.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerNone: Layer.Layer<Economics> = Layer.succeed(Economics, {
  evidence: () => Effect.succeed(new Map())
})

/**
 * Economics from a function.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  evidence: (routes: ReadonlyArray<Route>) => Effect.Effect<ReadonlyMap<string, RouteEvidence>>
): Layer.Layer<Economics> => Layer.succeed(Economics, { evidence })

/**
 * The shortlist of a publication's routes from their evidence.
 *
 * @category operations
 * @since 0.1.0
 */
export const shortlist = (
  routes: ReadonlyArray<Route>,
  evidence: ReadonlyMap<string, RouteEvidence>
): Array<ActionableRoute> => {
  const entries: Array<{ edge: number; entry: ActionableRoute }> = []
  for (const route of routes) {
    if (!route.open) continue
    const e = evidence.get(route.routeId.toLowerCase())
    if (e === undefined || !(e.edgeBps >= 0)) continue
    const { edgeBps, ...fields } = e
    entries.push({
      edge: edgeBps,
      entry: { routeId: route.routeId, quoteId: route.quoteId, pricingReferenceId: route.pricingReferenceId, ...fields }
    })
  }
  entries.sort((a, b) =>
    b.edge - a.edge || (a.entry.routeId < b.entry.routeId ? -1 : a.entry.routeId > b.entry.routeId ? 1 : 0)
  )
  return entries.slice(0, 10).map((e) => e.entry)
}
