/**
 * The solver part of a client: discovery, the verified feed, route detail and
 * permits, over one environment. The full client (`SvcClient.make`) adds the
 * event stream and the aggregator to it; the light Promise client
 * (`createSolverClient`) is only this part, so that a bundle of it leaves the
 * stream and the aggregator out. Internal.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { SvcClientOptions, SvcClientShape } from "../../SvcClient.ts"
import { type ClientEnv, makeEnv } from "./env.ts"
import { type FeedReader, feedReader } from "./feed.ts"
import { type SolverManifests, solverManifests } from "./manifests.ts"
import { permits } from "./permits.ts"
import { routeDetail } from "./routes.ts"

/**
 * The methods of the solver part, as on the service.
 *
 * @category models
 * @since 0.1.0
 */
export type SolverShape = Pick<SvcClientShape, "discover" | "refreshDiscovery" | "feed" | "route" | "permits">

/**
 * The solver part and what the other parts build on.
 *
 * @category models
 * @since 0.1.0
 */
export interface SolverPart {
  readonly env: ClientEnv
  readonly manifests: SolverManifests
  readonly feeds: FeedReader
  readonly methods: SolverShape
}

/**
 * Builds the solver part of a client (no request is made until the first call).
 *
 * @category constructors
 * @since 0.1.0
 */
export const solverPart = (options: SvcClientOptions): SolverPart => {
  const env = makeEnv(options)
  const manifests = solverManifests(env)
  const feeds = feedReader(env, manifests)
  return {
    env,
    manifests,
    feeds,
    methods: {
      discover: Effect.withSpan(manifests.solver, "SvcClient.discover"),
      refreshDiscovery: Effect.withSpan(manifests.refreshSolver, "SvcClient.refreshDiscovery"),
      feed: feeds.feed,
      route: routeDetail(env, manifests, feeds),
      permits: permits(env, manifests, feeds)
    }
  }
}
