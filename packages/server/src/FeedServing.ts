/**
 * The answer of `GET /api/v6/solver-feed` for a publication and a filter, from
 * prepared bytes: the weak ETag of the view, 304 on a matching If-None-Match,
 * the body in the negotiated coding, and the route exposures counted. One
 * implementation serves both the contract's handler and the `node:http` fast
 * path, so the two answer byte for byte the same.
 *
 * @since 0.1.0
 */
import type { Publisher, RouteMetrics } from "@svc/core"
import type { HttpServerResponse } from "effect/http"
import * as Compression from "./Compression.ts"
import * as Http from "./Http.ts"

const FEED_VARY = "Accept-Encoding"

/**
 * What serving the feed needs, built once per server.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedServing {
  /**
   * The answer for a publication, a (well-formed) filter and the request's
   * If-None-Match and Accept-Encoding: at once, or a promise when the body must
   * first be compressed (once per view and coding).
   */
  readonly respond: (
    publication: Publisher.Publication,
    filter: Publisher.FeedFilter,
    ifNoneMatch: string | undefined,
    acceptEncoding: string | undefined
  ) => HttpServerResponse.HttpServerResponse | Promise<HttpServerResponse.HttpServerResponse>
}

/**
 * The feed serving of a server.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  metrics: RouteMetrics.RouteMetrics["Service"],
  compressor: Compression.Compressor
): FeedServing => {
  // the route ids of a view, computed once per view (exposures are counted per view)
  const viewRouteIds = new WeakMap<Publisher.FeedView, ReadonlyArray<string>>()
  const routeIdsOf = (view: Publisher.FeedView, routes: ReadonlyArray<{ readonly routeId: string }>) => {
    let ids = viewRouteIds.get(view)
    if (ids === undefined) {
      ids = view.routeIndexes.map((i) => routes[i]!.routeId)
      viewRouteIds.set(view, ids)
    }
    return ids
  }
  // the answers of a view are the same for every request (responses are immutable): built once per
  // view, and per coding for a 200
  const prepared = new WeakMap<Publisher.FeedView, Map<string, HttpServerResponse.HttpServerResponse>>()
  const preparedOf = (view: Publisher.FeedView) => {
    let answers = prepared.get(view)
    if (answers === undefined) {
      answers = new Map()
      prepared.set(view, answers)
    }
    return answers
  }
  return {
    respond: (publication, filter, ifNoneMatch, acceptEncoding) => {
      const view = publication.view(filter)
      const answers = preparedOf(view)
      if (Http.ifNoneMatch(ifNoneMatch, view.etag)) {
        let notModified = answers.get("304")
        if (notModified === undefined) {
          notModified = Http.empty(304, {
            etag: view.etag,
            vary: FEED_VARY,
            "cache-control": Http.CacheControl.revalidate
          })
          answers.set("304", notModified)
        }
        return notModified
      }
      metrics.exposed(routeIdsOf(view, publication.routes))
      const coding = Compression.negotiate(acceptEncoding)
      const ready = answers.get(coding)
      if (ready !== undefined) return ready
      const reply = (encoded: Compression.Encoded) => {
        const headers = { etag: view.etag, vary: FEED_VARY }
        const response = Http.jsonBytes(
          200,
          encoded.body,
          encoded.coding === "identity" ? headers : { ...headers, "content-encoding": encoded.coding },
          Http.CacheControl.revalidate
        )
        answers.set(coding, response)
        return response
      }
      const encoded = compressor.encoded(view.body, coding)
      return encoded instanceof Promise ? encoded.then(reply) : reply(encoded)
    }
  }
}
