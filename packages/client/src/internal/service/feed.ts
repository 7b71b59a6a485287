/**
 * The feed (`getSolverFeed`): verified reads with If-None-Match revalidation of
 * the last view of each filter, and lookups of signed routes. Internal.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { FeedInvalid, ResponseInvalid, RouteNotFound } from "../../Errors.ts"
import {
  filterQuery,
  isCurrent,
  type NormalizedFilter,
  normalizeFilter,
  type Route,
  routeByQuoteId,
  type VerifiedFeed,
  verifyFeed
} from "../../Feed.ts"
import type { FeedError, FeedRequest, RouteError } from "../../SvcClient.ts"
import * as Operations from "../declared.ts"
import { type ClientEnv, nowSeconds } from "./env.ts"
import type { SolverManifests } from "./manifests.ts"

/**
 * Verified feed reads of a client.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedReader {
  /** The service method: a verified feed of a request's filter. */
  readonly feed: (request?: FeedRequest) => Effect.Effect<VerifiedFeed, FeedError>
  /** A verified view of a normalised filter; `fresh` skips If-None-Match. */
  readonly read: (filter: NormalizedFilter, fresh: boolean) => Effect.Effect<VerifiedFeed, FeedError>
  /** The unfiltered view, revalidated. */
  readonly full: Effect.Effect<VerifiedFeed, FeedError>
  /** The signed route of a quote in the verified feed (read again when a 304 kept an older view). */
  readonly routeOfQuote: (quoteId: string) => Effect.Effect<Route, RouteError>
}

const UNFILTERED: NormalizedFilter = { sourceChainId: undefined, sourceNetworkId: undefined }

/**
 * The feed reader of a client. The body is verified, not decoded by the
 * contract's schema: the feed hash is computed from the signed payload as
 * received, and the unsigned views are never used.
 *
 * @category constructors
 * @since 0.1.0
 */
export const feedReader = (env: ClientEnv, manifests: SolverManifests): FeedReader => {
  const views = new Map<string, VerifiedFeed>()

  const read = (filter: NormalizedFilter, fresh: boolean): Effect.Effect<VerifiedFeed, FeedError> =>
    Effect.gen(function*() {
      const d = yield* manifests.solver
      const key = filterQuery(filter)
      const url = `${d.manifest.endpoints.solverFeed}${key}`
      const kept = fresh ? undefined : views.get(key)
      const headers: Record<string, string> = {}
      if (kept?.etag != null) headers["if-none-match"] = kept.etag
      const answer = yield* env.exchange(Operations.getSolverFeed, { url, headers })
      const now = yield* nowSeconds
      if (answer._tag === "Empty") {
        if (kept === undefined) {
          return yield* new ResponseInvalid({
            method: "GET",
            url,
            status: answer.status,
            reason: "304 without If-None-Match"
          })
        }
        // the kept view is the server's current view; it must still be inside its window
        if (!isCurrent(kept, now)) return yield* read(filter, true)
        return { ...kept, notModified: true }
      }
      const body = answer.body
      if (typeof body !== "object" || body === null || (body as { ok?: unknown }).ok !== true) {
        return yield* new FeedInvalid({ reason: "the response is not { ok: true, feed }" })
      }
      const verified = yield* Effect.fromResult(
        verifyFeed((body as { feed?: unknown }).feed, {
          now,
          expectedSigner: d.expectedSigner,
          filter,
          etag: answer.response.headers.get("etag")
        })
      )
      views.set(key, verified)
      return verified
    })

  const full = read(UNFILTERED, false)

  const routeOfQuote = (quoteId: string): Effect.Effect<Route, RouteError> =>
    Effect.gen(function*() {
      let verified = yield* full
      let route = routeByQuoteId(verified, quoteId)
      if (route === undefined && verified.notModified) {
        verified = yield* read(UNFILTERED, true)
        route = routeByQuoteId(verified, quoteId)
      }
      if (route === undefined) {
        return yield* new RouteNotFound({
          quoteId,
          reason: `quote ${quoteId} is not in the verified feed ${verified.dataVersion}`
        })
      }
      return route
    })

  const feed = Effect.fn("SvcClient.feed")(function*(request?: FeedRequest) {
    const filter = yield* Effect.fromResult(normalizeFilter(request))
    return yield* read(filter, request?.fresh === true)
  })

  return { feed, read, full, routeOfQuote }
}
