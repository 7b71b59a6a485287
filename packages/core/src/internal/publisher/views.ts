/**
 * The views of a publication: feed filters (their checks and normal form), the
 * bytes of a filtered view and its weak ETag, the bounded cache of filtered
 * views, and the publication ready to serve made from a signed document
 * ({@link materialize}). Internal: the public names are re-exported by
 * `Publisher`.
 *
 * @since 0.1.0
 */
import { type Hex, keccak, utf8 } from "@svc/protocol/Bytes"
import { BYTES32, CHAIN_ID } from "@svc/protocol/Patterns"
import { FEED_SCHEMA, type Route, type SignedFeedPayload } from "@svc/protocol/schema/Feed"
import type { CatalogRoute } from "../../Catalog.ts"
import type { FeedFilter, FeedView, Publication } from "../../Publisher.ts"
import { type SignedDocument, viewBytes, type ViewParts, viewText } from "../publication.ts"

/**
 * Whether a filter's values are well formed.
 *
 * @category validation
 * @since 0.1.0
 */
export const filterIssues = (filter: FeedFilter): Array<string> => {
  const issues: Array<string> = []
  if (
    filter.sourceChainId !== undefined && !(CHAIN_ID.test(filter.sourceChainId) && filter.sourceChainId.length <= 78)
  ) {
    issues.push("SOURCE_CHAIN_ID_INVALID")
  }
  if (filter.sourceNetworkId !== undefined && !BYTES32.test(filter.sourceNetworkId)) {
    issues.push("SOURCE_NETWORK_ID_INVALID")
  }
  return issues
}

/**
 * The normalised form of a (well-formed) filter: `all`, or the present fields in
 * a fixed order with the network id lowercased.
 *
 * @category validation
 * @since 0.1.0
 */
export const filterKeyOf = (filter: FeedFilter): string => {
  const parts: Array<string> = []
  if (filter.sourceChainId !== undefined) parts.push(`sourceChainId=${filter.sourceChainId}`)
  if (filter.sourceNetworkId !== undefined) parts.push(`sourceNetworkId=${filter.sourceNetworkId.toLowerCase()}`)
  return parts.length === 0 ? "all" : parts.join("&")
}

const matches = (route: Route, filter: FeedFilter): boolean =>
  (filter.sourceChainId === undefined || route.sourceChainId === filter.sourceChainId) &&
  (filter.sourceNetworkId === undefined || route.sourceNetworkId.toLowerCase() === filter.sourceNetworkId.toLowerCase())

const encoder = new TextEncoder()

/** The view of no route: what every filter naming no source network of the routes gets. */
const renderEmptyView = (pub: Omit<Publication, "view" | "fullView">, parts: ViewParts): FeedView =>
  viewOf(pub, EMPTY_VIEW_KEY, encoder.encode(viewText(parts, pub.canonicalPayload, [], [])), 0, 0, [])

const renderView = (
  pub: Omit<Publication, "view" | "fullView">,
  parts: ViewParts,
  filter: FeedFilter
): FeedView => {
  const filterKey = filterKeyOf(filter)
  const routeIndexes: Array<number> = []
  const routes: Array<string> = []
  const open: Array<string> = []
  for (let i = 0; i < pub.routes.length; i++) {
    const route = pub.routes[i]!
    if (!matches(route, filter)) continue
    routeIndexes.push(i)
    routes.push(pub.routeTexts[i]!)
    if (route.open) open.push(pub.routeTexts[i]!)
  }
  return viewOf(
    pub,
    filterKey,
    encoder.encode(viewText(parts, pub.canonicalPayload, routes, open)),
    routes.length,
    open.length,
    routeIndexes
  )
}

const viewOf = (
  pub: Pick<Publication, "dataVersion" | "feedHash">,
  filterKey: string,
  body: Uint8Array,
  returnedRouteCount: number,
  returnedOpenRouteCount: number,
  routeIndexes: ReadonlyArray<number>
): FeedView => {
  const filterHash = filterKey === "all" ? "all" : keccak(utf8(filterKey)).slice(2, 14)
  return {
    filterKey,
    etag: `W/"${pub.dataVersion}-${pub.feedHash.slice(2, 18)}-${filterHash}"`,
    body,
    returnedRouteCount,
    returnedOpenRouteCount,
    routeIndexes
  }
}

/**
 * The filter key of the empty view: a filter naming a source network that no
 * route of the publication leaves from.
 *
 * @category validation
 * @since 0.1.0
 */
export const EMPTY_VIEW_KEY = "none"

/**
 * A view cache bounded by bytes and by entries; the unfiltered view is kept
 * outside it. A filter naming a chain id or a network id that no route leaves
 * from is answered by one empty view, built once: the values a client can make
 * up are unbounded, the views of the catalog's own networks are not.
 */
const makeViewCache = (
  maxBytes: number,
  maxEntries: number,
  routes: ReadonlyArray<Route>,
  render: (filter: FeedFilter) => FeedView,
  renderEmpty: () => FeedView
) => {
  const cache = new Map<string, FeedView>()
  const chainIds = new Set(routes.map((r) => r.sourceChainId))
  const networkIds = new Set(routes.map((r) => r.sourceNetworkId.toLowerCase()))
  let empty: FeedView | undefined
  let bytes = 0
  return (filter: FeedFilter): FeedView => {
    if (
      (filter.sourceChainId !== undefined && !chainIds.has(filter.sourceChainId)) ||
      (filter.sourceNetworkId !== undefined && !networkIds.has(filter.sourceNetworkId.toLowerCase()))
    ) {
      return empty ??= renderEmpty()
    }
    const key = filterKeyOf(filter)
    const hit = cache.get(key)
    if (hit !== undefined) {
      cache.delete(key)
      cache.set(key, hit)
      return hit
    }
    const view = render(filter)
    if (view.body.length <= maxBytes) {
      cache.set(key, view)
      bytes += view.body.length
      for (const [k, v] of cache) {
        if (bytes <= maxBytes && cache.size <= maxEntries) break
        cache.delete(k)
        bytes -= v.body.length
      }
    }
    return view
  }
}

/**
 * What a publication is made from: a signed document, its parsed payload, the
 * canonical text and catalog route of each route, and the bytes at hand.
 *
 * @category models
 * @since 0.1.0
 */
export interface MaterializeInput {
  readonly dataVersion: bigint
  readonly payload: SignedFeedPayload
  readonly document: SignedDocument
  readonly routeTexts: ReadonlyArray<string>
  readonly catalogRoutes: ReadonlyArray<CatalogRoute>
  /** Bytes of the canonical payload and of the lists of all routes and of the open routes. */
  readonly pieces: {
    readonly payload: ReadonlyArray<Uint8Array>
    readonly routes: ReadonlyArray<Uint8Array>
    readonly open: ReadonlyArray<Uint8Array>
  }
}

/**
 * The settings of a publisher's views: the route detail template of every view
 * and the bounds of the filtered views' cache.
 *
 * @category models
 * @since 0.1.0
 */
export interface ViewSettings {
  /** `{public base URL}/api/v6/routes/{routeId}`. */
  readonly template: string
  /** Bytes of filtered views kept per publication. */
  readonly cacheBytes: number
  /** Filtered views kept per publication. */
  readonly cacheEntries: number
}

/**
 * A publication ready to serve, from a signed document and its parsed payload.
 *
 * @category constructors
 * @since 0.1.0
 */
export const materialize = (settings: ViewSettings, input: MaterializeInput): Publication => {
  const { cacheBytes, cacheEntries, template } = settings
  const { document, payload } = input
  const routes = payload.routes
  const dv = input.dataVersion.toString()
  const openRouteCount = routes.reduce((n, r) => n + (r.open ? 1 : 0), 0)
  const tailStart =
    `"feedHash":"${document.feedHash}","feedSigner":"${document.feedSigner}","feedSignature":"${document.feedSignature}","publicationGasWei":"0","publicationTransactionHashes":[],"routeCount":${routes.length},"openRouteCount":${openRouteCount},`
  const parts: ViewParts = {
    head:
      `{"ok":true,"feed":{"schema":"${FEED_SCHEMA}","releaseId":"${payload.releaseId}","dataVersion":"${dv}","generatedAt":${payload.generatedAt},"validUntil":${payload.validUntil},"signedPayload":`,
    middle: `,"routeDetailTemplate":${JSON.stringify(template)},"actionableRoutes":${
      JSON.stringify(document.actionableRoutes)
    },`,
    tail: (returned, returnedOpen) =>
      `${tailStart}"returnedRouteCount":${returned},"returnedOpenRouteCount":${returnedOpen}}}`
  }
  const base = {
    dataVersion: input.dataVersion,
    generatedAt: payload.generatedAt,
    validUntil: payload.validUntil,
    releaseId: payload.releaseId as Hex,
    payload,
    canonicalPayload: document.canonicalPayload,
    feedHash: document.feedHash,
    feedSignature: document.feedSignature,
    feedSigner: document.feedSigner,
    routes,
    routeTexts: input.routeTexts,
    openRouteCount,
    actionableRoutes: document.actionableRoutes,
    routeIndexById: new Map(routes.map((r, i) => [r.routeId.toLowerCase(), i])),
    routeIndexByQuote: new Map(routes.map((r, i) => [r.quoteId.toLowerCase(), i])),
    catalogRoutes: input.catalogRoutes
  }
  // the unfiltered view from the bytes at hand (a filtered one is rendered from the route texts)
  const fullView = viewOf(
    base,
    "all",
    viewBytes(parts, input.pieces.payload, input.pieces.routes, input.pieces.open, routes.length, openRouteCount),
    routes.length,
    openRouteCount,
    routes.map((_, i) => i)
  )
  return {
    ...base,
    fullView,
    view: makeViewCache(
      cacheBytes,
      cacheEntries,
      routes,
      (filter) => filterKeyOf(filter) === "all" ? fullView : renderView(base, parts, filter),
      () => renderEmptyView(base, parts)
    )
  }
}
