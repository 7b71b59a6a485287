/**
 * The verified event stream (`streamSolverFeed`) of a client: the stream of
 * `FeedStream.ts` on the client's fetch and manifest, with the client's
 * verified HTTP read as its snapshot. Internal.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SvcClientError } from "../../Errors.ts"
import * as FeedStream from "../../FeedStream.ts"
import type * as Manifests from "../../Manifests.ts"
import type { SvcClientShape } from "../../SvcClient.ts"
import type { ClientEnv } from "./env.ts"
import type { FeedReader } from "./feed.ts"
import type { SolverManifests } from "./manifests.ts"

/**
 * The stream methods of a client.
 *
 * @category constructors
 * @since 0.1.0
 */
export const feedStreams = (
  env: ClientEnv,
  manifests: SolverManifests,
  feeds: FeedReader
): Pick<SvcClientShape, "feedStream" | "feedEvents"> => {
  const context: FeedStream.FeedStreamContext = {
    fetch: env.fetch,
    discover: manifests.solver as Effect.Effect<Manifests.Solver, SvcClientError>,
    snapshot: (filter) => feeds.read(filter, false)
  }
  return {
    feedStream: (options) => FeedStream.feeds(context, options).pipe(Stream.withSpan("SvcClient.feedStream")),
    feedEvents: (options) => FeedStream.feedEvents(context, options).pipe(Stream.withSpan("SvcClient.feedEvents"))
  }
}
