/**
 * The publisher: builds the signed feed from the catalog, the operator state,
 * pricing and inventory; assigns a strictly increasing dataVersion (kept by the
 * store across restarts); signs; keeps the current publication; republishes when
 * the signed content changes, when the operator state changes (its `version`:
 * `svc admin republish` asks for a publication that way) and before the feed's
 * validUntil runs out; and
 * announces every confirmed publication (and the closing of publication) to
 * subscribers.
 *
 * Everything a reader needs is computed once per publication: the canonical
 * payload, its hash and signature, the canonical text of every route, and, per
 * filter (lazily, cached by bytes), the serialized feed response and its weak
 * ETag. Readers get bytes; nothing is serialized per request.
 *
 * A publication is built in chunks of routes with yields to the event loop in
 * between (the feed hash is fed chunk by chunk), and from what did not change: a
 * route keeps its checked canonical text until its terms change, and then only
 * the members that changed are checked and written again (see
 * internal/publication.ts; every assembly equals the one-shot serialization).
 *
 * A payload that fails its own schema is never signed.
 *
 * @since 0.1.0
 */
import { type Hex, keccak, utf8 } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as Ids from "@svc/protocol/Ids"
import { BYTES32, CHAIN_ID } from "@svc/protocol/Patterns"
import {
  type ActionableRoute,
  FEED_SCHEMA,
  type Route,
  Route as RouteSchema,
  SignedFeedPayload
} from "@svc/protocol/schema/Feed"
import { strictParseOptions } from "@svc/protocol/schema/index"
import * as Signature from "@svc/protocol/Signature"
import {
  Clock,
  Context,
  Data,
  Duration,
  Effect,
  Exit,
  Layer,
  Metric,
  Option,
  PubSub,
  Ref,
  Result,
  Schedule,
  Schema,
  type Scope,
  Semaphore,
  Stream
} from "effect"
import { Catalog, type CatalogRoute } from "./Catalog.ts"
import { Coordination, whileLeader } from "./Coordination.ts"
import { Economics } from "./Economics.ts"
import * as Economy from "./Economics.ts"
import { makeKeccakStreams } from "./internal/fastKeccak.ts"
import {
  arraySlot,
  COMMA,
  fillSlot,
  jsonStringBody,
  memberChecks,
  type Members,
  type MemberSlot,
  membersOf,
  memberText,
  rewriteMembers,
  RouteLists,
  type SignedDocument,
  signedDocument,
  signedDocumentText,
  slotAt,
  utf8 as utf8Bytes,
  viewBytes,
  type ViewParts,
  viewText
} from "./internal/publication.ts"
import { Inventory } from "./Inventory.ts"
import * as Metrics from "./Metrics.ts"
import { type IndicativeTerms, Pricing, type PricingUnavailable, termsAt } from "./Pricing.ts"
import { Signer } from "./Signer.ts"
import { availableOf, type OperatorState, type PublicationDocument, Store } from "./Store.ts"

// ---------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------

/**
 * A feed filter: routes whose source matches every given field.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedFilter {
  /** Decimal chain id without leading zeros (`^[1-9][0-9]*$`). */
  readonly sourceChainId?: string | undefined
  /** Bytes32, any case. */
  readonly sourceNetworkId?: string | undefined
}

/**
 * One filtered view of a publication, ready to serve.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedView {
  /**
   * The normalised filter, e.g. `all` or `sourceChainId=8453&sourceNetworkId=0x..`;
   * `none` for a filter naming a network no route leaves from (the empty view,
   * one for every such filter).
   */
  readonly filterKey: string
  /** `W/"<dataVersion>-<first 16 hex of feedHash>-<filter hash>"`. */
  readonly etag: string
  /** UTF-8 bytes of the FeedResponse `{"ok":true,"feed":{...}}`. */
  readonly body: Uint8Array
  readonly returnedRouteCount: number
  readonly returnedOpenRouteCount: number
  /** Indexes (into the publication's routes) of the routes returned. */
  readonly routeIndexes: ReadonlyArray<number>
}

/**
 * A confirmed publication.
 *
 * @category models
 * @since 0.1.0
 */
export interface Publication {
  readonly dataVersion: bigint
  readonly generatedAt: number
  readonly validUntil: number
  readonly releaseId: Hex
  readonly payload: SignedFeedPayload
  /** Canonical JSON of the signed payload (also its JSON form in the response). */
  readonly canonicalPayload: string
  readonly feedHash: Hex
  readonly feedSignature: Hex
  readonly feedSigner: Hex
  readonly routes: ReadonlyArray<Route>
  /** Canonical JSON of each route, in payload order. */
  readonly routeTexts: ReadonlyArray<string>
  readonly openRouteCount: number
  readonly actionableRoutes: ReadonlyArray<ActionableRoute>
  /** Index of a route by lowercase routeId. */
  readonly routeIndexById: ReadonlyMap<string, number>
  /** Index of a route by lowercase quoteId. */
  readonly routeIndexByQuote: ReadonlyMap<string, number>
  /** The catalog route of each payload route. */
  readonly catalogRoutes: ReadonlyArray<CatalogRoute>
  /** The view of a filter (cached). */
  readonly view: (filter: FeedFilter) => FeedView
  /** The unfiltered view. */
  readonly fullView: FeedView
}

/**
 * What subscribers hear.
 *
 * @category models
 * @since 0.1.0
 */
export type PublicationEvent =
  | { readonly _tag: "Published"; readonly publication: Publication }
  | { readonly _tag: "Closed"; readonly reason: string }

/**
 * The publisher's state.
 *
 * - `Open`: a valid publication is current;
 * - `Closed`: the operator paused publication (feed, stream and permit creation answer 503);
 * - `Unavailable`: no valid publication can be made (signer or store down, or not
 *   started yet); `last` is the last publication, possibly expired.
 *
 * @category models
 * @since 0.1.0
 */
export type PublisherState =
  | { readonly _tag: "Open"; readonly publication: Publication }
  | { readonly _tag: "Closed"; readonly reason: string; readonly last: Option.Option<Publication> }
  | { readonly _tag: "Unavailable"; readonly reason: string; readonly last: Option.Option<Publication> }

/**
 * No publication can be served: `closed` (operator pause) or unavailable.
 *
 * @category errors
 * @since 0.1.0
 */
export class PublicationUnavailable extends Data.TaggedError("PublicationUnavailable")<{
  readonly closed: boolean
  readonly reason: string
}> {
  override get message(): string {
    return this.closed ? `publication closed: ${this.reason}` : `publication unavailable: ${this.reason}`
  }
}

/**
 * A publication could not be built or signed.
 *
 * @category errors
 * @since 0.1.0
 */
export class PublishFailed
  extends Data.TaggedError("PublishFailed")<{ readonly reason: string; readonly cause?: unknown }>
{
  override get message(): string {
    return `publication failed: ${this.reason}`
  }
}

/**
 * Publisher options.
 *
 * @category models
 * @since 0.1.0
 */
export interface PublisherOptions {
  /** `{public base URL}/api/v6/routes/{routeId}`. */
  readonly routeDetailTemplate: string
  /** Feed validity, seconds. Default 300. */
  readonly feedTtlSeconds?: number | undefined
  /** Republish when this many seconds or fewer remain. Default half the TTL. */
  readonly refreshBeforeSeconds?: number | undefined
  /** How often the publisher looks for changes, milliseconds. Default 1000. */
  readonly tickMillis?: number | undefined
  /**
   * A replica that does not lead reads the leader's newest publication when told
   * (an announcement) and at least this often, milliseconds. Default 5000.
   */
  readonly followMillis?: number | undefined
  /** Bytes of filtered views kept per publication. Default 64 MiB. */
  readonly viewCacheBytes?: number | undefined
  /** Filtered views kept per publication (the newest used). Default 256. */
  readonly viewCacheEntries?: number | undefined
}

/**
 * The publisher service.
 *
 * @category services
 * @since 0.1.0
 */
export class Publisher extends Context.Service<Publisher, {
  /** The current publication, or why there is none. */
  readonly current: Effect.Effect<Publication, PublicationUnavailable>
  /** The current state. */
  readonly state: Effect.Effect<PublisherState>
  /**
   * The current state, read synchronously: for hot paths outside the Effect
   * runtime (the server's `node:http` fast path). Check a publication's
   * `validUntil` yourself.
   */
  readonly peek: () => PublisherState
  /**
   * Subscribes to publication events: the state at subscription time and a
   * queue of every later event (no event between the two is lost).
   */
  readonly subscribe: Effect.Effect<
    { readonly state: PublisherState; readonly events: PubSub.Subscription<PublicationEvent> },
    never,
    Scope.Scope
  >
  /** Looks for changes now and republishes when needed (what the periodic tick runs). */
  readonly refresh: Effect.Effect<PublisherState>
  /** Publishes a new version now, even when nothing changed. */
  readonly publishNow: Effect.Effect<Publication, PublishFailed | PublicationUnavailable>
}>()("@svc/core/Publisher") {}

// ---------------------------------------------------------------------------
// Filters and views
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Building routes
// ---------------------------------------------------------------------------

/** A route's signed terms without its dataVersion. */
type RouteTerms = Omit<Route, "dataVersion">

const decodePayload = Schema.decodeUnknownResult(SignedFeedPayload)
const decodeRoute = Schema.decodeUnknownResult(RouteSchema)

/** Publications a subscriber's queue holds at most (older ones are dropped for it). */
const EVENT_BUFFER = 4

/** Routes checked and serialized between two yields to the event loop. */
const PUBLICATION_CHUNK = 100

/** Bytes hashed between two yields to the event loop (about a millisecond of keccak). */
const HASH_SLICE = 512 * 1024

const schemaFailure = (where: string, error: Schema.SchemaError) =>
  new PublishFailed({
    reason: `payload fails its schema at ${where}: ${error.message.replace(/\s*\n\s*/g, " ")}`
  })

const canonicalFailure = (error: unknown) =>
  error instanceof CanonicalJson.CanonicalJsonError
    ? new PublishFailed({ reason: error.message, cause: error })
    : new PublishFailed({ reason: `no canonical JSON form: ${String(error)}`, cause: error })

/** The Route schema checked one member at a time (a route's terms change in a few members). */
const checkRouteMember = memberChecks(RouteSchema)

/**
 * The canonical text of a route that passed the Route schema, kept for its next
 * publications: around its dataVersion (the one member that changes with every
 * publication), also escaped as the body of a JSON string (for the stored document).
 */
interface RouteText {
  readonly terms: RouteTerms
  /** Member texts of the route (its dataVersion member is the one of the first publication of these terms). */
  readonly members: Members
  readonly text: MemberSlot
  readonly escaped: MemberSlot
}

/**
 * The indexes (into `previous.members.keys`) of the members of `terms` that differ
 * from the previous terms of the route, or `undefined` when the routes cannot be
 * compared member by member (other keys, or a Route schema not checkable so).
 */
const changedMembers = (previous: RouteText, terms: RouteTerms): Array<number> | undefined => {
  if (checkRouteMember === undefined) return undefined
  const keys = previous.members.keys
  let count = 0
  for (const _ in terms) count++
  if (count !== keys.length - 1) return undefined
  const changed: Array<number> = []
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as keyof RouteTerms | "dataVersion"
    if (key === "dataVersion") continue
    if (!Object.hasOwn(terms, key)) return undefined
    if (terms[key] !== previous.terms[key]) changed.push(i)
  }
  return changed
}

/**
 * Checks a route and writes its canonical text: from the previous text of the route,
 * only the members that changed are checked (with their member schemas) and written
 * again; a new route is checked and written whole.
 */
const routeTextOf = (
  route: Route,
  terms: RouteTerms,
  previous: RouteText | undefined,
  where: string
): Result.Result<RouteText, PublishFailed> => {
  const wholeCheck = (): PublishFailed | undefined => {
    const checked = decodeRoute(route, strictParseOptions)
    return Result.isFailure(checked) ? schemaFailure(where, checked.failure) : undefined
  }
  try {
    const changed = previous === undefined ? undefined : changedMembers(previous, terms)
    let members: Members
    if (previous === undefined || changed === undefined) {
      const failed = wholeCheck()
      if (failed !== undefined) return Result.fail(failed)
      members = membersOf(route)
    } else {
      for (const at of changed) {
        const key = previous.members.keys[at]!
        if (!checkRouteMember!(key, route[key as keyof Route])) {
          // the whole check reports where and why
          return Result.fail(
            wholeCheck() ?? new PublishFailed({ reason: `payload fails its schema at ${where}.${key}` })
          )
        }
      }
      members = rewriteMembers(previous.members, route, changed)
    }
    const text = slotAt(members, "dataVersion")!
    // `before` ends and `after` starts with an ASCII character: their escapes concatenate
    return Result.succeed({
      terms,
      members,
      text,
      escaped: { before: jsonStringBody(text.before), after: jsonStringBody(text.after) }
    })
  } catch (error) {
    return Result.fail(canonicalFailure(error))
  }
}

/**
 * Memo tables of one publisher: locators with their keys sorted at every depth
 * (computed once per locator object), quoteIds by their inputs (a route's
 * terms change rarely, ticks are frequent), the current terms of each route (a
 * route whose terms did not change keeps the same terms object, so a change is
 * noticed by identity), and the checked canonical text of each route's last
 * terms (see RouteText).
 */
interface Memo {
  readonly sortKeysDeep: (value: Route["sourceLocator"]) => Route["sourceLocator"]
  readonly quoteIdOf: (input: Ids.QuoteIdInput) => Hex
  /** The terms object of a route: the previous one when equal to `next`, else `next`. */
  readonly termsOf: (next: RouteTerms) => RouteTerms
  /** The checked canonical text of each route's last terms (by routeId). */
  readonly routeTexts: Map<string, RouteText>
  /** What each route's last terms were built from (by routeId): equal inputs, the same terms. */
  readonly termsInputs: Map<string, TermsInputs>
  /** The catalog's routes in publication order (lane, rank, routeId: static catalog fields). */
  readonly ordered: WeakMap<ReadonlyArray<CatalogRoute>, ReadonlyArray<CatalogRoute>>
  /** Why each route cannot be priced now (to log a reason once, when it changes). */
  readonly unpriced: Map<string, string>
  /** The hold of each asset last reported to the metrics. */
  readonly holds: Map<string, bigint>
  /** The gauges of each route (labelled once). */
  readonly routeGauges: Map<string, { readonly capacity: Metric.Gauge<number>; readonly open: Metric.Gauge<number> }>
}

/**
 * Everything a route's terms are built from besides the catalog route (see
 * `buildTerms`): the terms are a function of these, so equal inputs (the same
 * objects) give the same terms.
 */
interface TermsInputs {
  readonly route: CatalogRoute
  readonly executionStatus: string
  readonly dailyStatus: string
  readonly indicative: IndicativeTerms
  readonly capacity: bigint
  readonly validAfter: number
  readonly validUntil: number
  readonly open: boolean
  readonly terms: RouteTerms
}

/** Publication order: lane, rank, routeId. */
const publicationOrder = (
  a: { readonly publicationLane: string; readonly publicationRank: number; readonly routeId: string },
  b: { readonly publicationLane: string; readonly publicationRank: number; readonly routeId: string }
): number =>
  a.publicationLane.charCodeAt(1) - b.publicationLane.charCodeAt(1) ||
  a.publicationRank - b.publicationRank ||
  (a.routeId < b.routeId ? -1 : a.routeId > b.routeId ? 1 : 0)

/**
 * Whether two terms objects hold the same values. Terms objects are built by one
 * object literal (`buildTerms`), so they have the same keys; their values are
 * primitives, except the locators, which are memoized per catalog locator.
 */
const sameTermsValues = (a: RouteTerms, b: RouteTerms): boolean => {
  for (const key in a) {
    if (a[key as keyof RouteTerms] !== b[key as keyof RouteTerms]) return false
  }
  return true
}

/** Whether two lists of route terms are the same objects in the same order. */
const sameTerms = (a: ReadonlyArray<RouteTerms>, b: ReadonlyArray<RouteTerms>): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

const makeMemo = (): Memo => {
  const sortedLocators = new WeakMap<object, Route["sourceLocator"]>()
  const quoteIds = new Map<string, Hex>()
  const lastQuote = new Map<string, { readonly input: Ids.QuoteIdInput; readonly id: Hex }>()
  const terms = new Map<string, RouteTerms>()
  return {
    unpriced: new Map(),
    holds: new Map(),
    routeTexts: new Map(),
    termsInputs: new Map(),
    ordered: new WeakMap(),
    routeGauges: new Map(),
    sortKeysDeep: (value) => {
      let sorted = sortedLocators.get(value)
      if (sorted === undefined) {
        sorted = JSON.parse(CanonicalJson.stringify(value)) as Route["sourceLocator"]
        sortedLocators.set(value, sorted)
      }
      return sorted
    },
    quoteIdOf: (input) => {
      // the last quoteId of the route first (no key to build when nothing changed)
      const last = lastQuote.get(input.routeId)
      if (
        last !== undefined && last.input.pricingReferenceId === input.pricingReferenceId &&
        last.input.validAfter === input.validAfter && last.input.validUntil === input.validUntil &&
        last.input.executionGeneration === input.executionGeneration && last.input.policyHash === input.policyHash
      ) {
        return last.id
      }
      const key =
        `${input.routeId}:${input.pricingReferenceId}:${input.validAfter}:${input.validUntil}:${input.executionGeneration}:${input.policyHash}`
      let id = quoteIds.get(key)
      if (id === undefined) {
        if (quoteIds.size > 100_000) quoteIds.clear()
        id = Ids.quoteId(input)
        quoteIds.set(key, id)
      }
      lastQuote.set(input.routeId, { input, id })
      return id
    },
    termsOf: (next) => {
      const previous = terms.get(next.routeId)
      if (previous !== undefined && sameTermsValues(previous, next)) return previous
      terms.set(next.routeId, next)
      return next
    }
  }
}

const unpricedCache = new WeakMap<CatalogRoute, IndicativeTerms>()

/** The terms a route is published with while it cannot be priced: the catalog's price, model UNPRICED. */
const unpricedTerms = (route: CatalogRoute): IndicativeTerms => {
  let terms = unpricedCache.get(route)
  if (terms === undefined) {
    terms = termsAt(route, "UNPRICED", null, route.priceNumeratorRaw, route.priceDenominatorRaw)
    unpricedCache.set(route, terms)
  }
  return terms
}

/** The value of an effect that is a successful Exit already (nothing to run), else `undefined`. */
const successNow = <A, E, R>(effect: Effect.Effect<A, E, R>): { readonly value: A } | undefined => {
  if (!Exit.isExit(effect)) return undefined
  const exit = effect as unknown as Exit.Exit<A, E>
  return Exit.isSuccess(exit) ? exit : undefined
}

/**
 * Builds the terms of every catalog route at time `now` (seconds).
 */
const buildTerms = Effect.fnUntraced(function*(now: number, operator: OperatorState, memo: Memo) {
  const catalog = yield* Catalog
  const pricing = yield* Pricing
  const inventory = yield* Inventory
  const balances = yield* inventory.balances()
  for (const [asset, balance] of balances) {
    // the gauge moves only when the hold did (ticks are frequent)
    if (memo.holds.get(asset) === balance.holdRaw) continue
    memo.holds.set(asset, balance.holdRaw)
    yield* Metric.update(Metric.withAttributes(Metrics.assetHolds, { asset }), Number(balance.holdRaw))
  }
  const window = catalog.quoteWindowSeconds
  const validAfter = Math.floor(now / window) * window
  const validUntil = validAfter + window
  let ordered = memo.ordered.get(catalog.routes)
  if (ordered === undefined) {
    // terms copy the lane, rank and routeId of their catalog route: sorting the catalog routes once
    // gives the order of their terms
    ordered = [...catalog.routes].sort(publicationOrder)
    memo.ordered.set(catalog.routes, ordered)
  }
  const out: Array<{ terms: RouteTerms; route: CatalogRoute }> = []
  for (const route of ordered) {
    // most routes are priced without running an effect (below): yield to the event loop now and then
    if (out.length > 0 && out.length % PUBLICATION_CHUNK === 0) yield* Effect.yieldNow
    const override = operator.routes[route.routeId] ?? {}
    const executionStatus = override.executionStatus ?? route.executionStatus
    const dailyStatus = override.dailyStatus ?? route.dailyStatus
    const balance = balances.get(route.destination.assetId)
    const available = balance === undefined ? 0n : availableOf(balance)
    // a route pricing cannot answer for now is published closed, with the catalog's terms
    // pricing answers most routes with values at hand (a successful Exit): read them without
    // running an effect per route (the same result as running it)
    const indicativeEffect = pricing.indicative(route)
    const indicativeNow = successNow(indicativeEffect)
    let priced: Result.Result<{ indicative: IndicativeTerms; capacity: bigint }, PricingUnavailable>
    if (indicativeNow !== undefined) {
      const indicative = indicativeNow.value
      const capacityEffect = pricing.capacity(route, available)
      const capacityNow = successNow(capacityEffect)
      priced = capacityNow !== undefined
        ? Result.succeed({ indicative, capacity: capacityNow.value })
        : yield* Effect.result(Effect.map(capacityEffect, (capacity) => ({ indicative, capacity })))
    } else {
      priced = yield* Effect.result(Effect.flatMap(
        indicativeEffect,
        (indicative) => Effect.map(pricing.capacity(route, available), (capacity) => ({ indicative, capacity }))
      ))
    }
    const reason = Result.isFailure(priced) ? priced.failure.message : undefined
    if (reason !== memo.unpriced.get(route.routeId)) {
      if (reason === undefined) {
        memo.unpriced.delete(route.routeId)
        yield* Effect.logInfo("route priced again", { routeId: route.routeId })
      } else {
        memo.unpriced.set(route.routeId, reason)
        yield* Effect.logWarning("route cannot be priced: published closed", { routeId: route.routeId, reason })
      }
    }
    const indicative = Result.isSuccess(priced) ? priced.success.indicative : unpricedTerms(route)
    const maxAvailableInRaw = Result.isSuccess(priced) ? priced.success.capacity : 0n
    const permitAvailable = route.permitAvailable
    const open = executionStatus === "OPEN" && dailyStatus === "OPEN" && permitAvailable &&
      Result.isSuccess(priced) && validAfter <= now && now < validUntil && maxAvailableInRaw >= route.minimumFillInRaw
    const last = memo.termsInputs.get(route.routeId)
    if (
      last !== undefined && last.route === route && last.executionStatus === executionStatus &&
      last.dailyStatus === dailyStatus && last.indicative === indicative && last.capacity === maxAvailableInRaw &&
      last.validAfter === validAfter && last.validUntil === validUntil && last.open === open
    ) {
      out.push({ terms: last.terms, route })
      continue
    }
    const src = route.source
    const dst = route.destination
    const terms: RouteTerms = {
      routeId: route.routeId,
      quoteId: memo.quoteIdOf({
        routeId: route.routeId,
        pricingReferenceId: indicative.pricingReferenceId,
        validAfter,
        validUntil,
        executionGeneration: route.executionGeneration,
        policyHash: route.policyHash
      }),
      sourceNetworkId: src.network.networkId,
      sourceAssetId: src.assetId,
      destinationNetworkId: dst.network.networkId,
      destinationAssetId: dst.assetId,
      sourceChainId: src.network.chainId,
      destinationChainId: dst.network.chainId,
      sourceAsset: src.address,
      destinationAsset: dst.address,
      sourceVault: src.network.vaultAddress,
      destinationVault: dst.network.vaultAddress,
      sourceRouter: src.network.router,
      sourceLocator: memo.sortKeysDeep(src.locator),
      destinationLocator: memo.sortKeysDeep(dst.locator),
      discoveryStatus: "DISCOVERABLE",
      executionStatus,
      permitAvailable,
      publicationLane: route.publicationLane,
      publicationRank: route.publicationRank,
      serviceCategory: route.serviceCategory,
      feeMode: indicative.feeMode,
      serviceFeeBps: indicative.serviceFeeBps,
      sourceTokenDecimals: src.decimals,
      destinationTokenDecimals: dst.decimals,
      pricingReferenceId: indicative.pricingReferenceId,
      executionGeneration: route.executionGeneration,
      sourceFinalityBlocks: route.sourceFinalityBlocks,
      settlementWindowSeconds: route.settlementWindowSeconds,
      validAfter,
      validUntil,
      policyHash: route.policyHash,
      assumptionsHash: route.assumptionsHash,
      legacyRouteId: route.legacyRouteId,
      dailyStatus,
      open,
      pricingMode: "INDICATIVE_ENVELOPE_REPRICE_AT_PERMIT",
      indicativePriceNumeratorRaw: indicative.numeratorRaw.toString(),
      indicativePriceDenominatorRaw: indicative.denominatorRaw.toString(),
      minimumFillInRaw: route.minimumFillInRaw.toString(),
      maxAvailableInRaw: maxAvailableInRaw.toString()
    }
    const kept = memo.termsOf(terms)
    memo.termsInputs.set(route.routeId, {
      route,
      executionStatus,
      dailyStatus,
      indicative,
      capacity: maxAvailableInRaw,
      validAfter,
      validUntil,
      open,
      terms: kept
    })
    out.push({ terms: kept, route })
  }
  return out
})

// ---------------------------------------------------------------------------
// The layer
// ---------------------------------------------------------------------------

/**
 * The publisher layer. Publishes once when it starts (failures are reported in
 * the state, not as a layer failure), then looks for changes every tick.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  options: PublisherOptions
): Layer.Layer<Publisher, never, Catalog | Pricing | Inventory | Store | Signer | Economics | Coordination> =>
  Layer.effect(
    Publisher,
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const store = yield* Store
      const signer = yield* Signer
      const economics = yield* Economics
      const coordination = yield* Coordination
      const services = yield* Effect.context<Catalog | Pricing | Inventory>()
      const ttl = Math.max(2, Math.floor(options.feedTtlSeconds ?? 300))
      const refreshBefore = Math.min(ttl - 1, Math.max(1, Math.floor(options.refreshBeforeSeconds ?? ttl / 2)))
      const tickMillis = Math.max(10, options.tickMillis ?? 1000)
      const cacheBytes = options.viewCacheBytes ?? 64 * 1024 * 1024
      const cacheEntries = Math.max(1, options.viewCacheEntries ?? 256)
      const template = options.routeDetailTemplate

      const stateRef = yield* Ref.make<PublisherState>({
        _tag: "Unavailable",
        reason: "not published yet",
        last: Option.none()
      })
      // the route terms of the current publication (terms objects: see Memo.termsOf)
      const fingerprintRef = yield* Ref.make<ReadonlyArray<RouteTerms>>([])
      // the operator state's version the current publication was built under: any operator
      // change (`svc admin`, including `svc admin republish`) publishes a new version
      const operatorVersionRef = yield* Ref.make<number | undefined>(undefined)
      // every event is the full current state: a subscriber more than a few events behind is
      // disconnected by its reader, so a bounded sliding buffer keeps memory bounded even for a
      // subscriber that stopped reading (it never holds more than EVENT_BUFFER publications)
      const events = yield* PubSub.sliding<PublicationEvent>(EVENT_BUFFER)
      const lock = yield* Semaphore.make(1)
      const memo = makeMemo()
      const keccakStream = makeKeccakStreams()

      const lastOf = (s: PublisherState): Option.Option<Publication> =>
        s._tag === "Open" ? Option.some(s.publication) : s.last

      const setState = (next: PublisherState, event?: PublicationEvent) =>
        Effect.flatMap(
          Ref.set(stateRef, next),
          () => event === undefined ? Effect.void : PubSub.publish(events, event).pipe(Effect.asVoid)
        )

      /**
       * Builds, signs and stores a publication. Everything proportional to the routes runs in
       * chunks of routes with a yield to the event loop after each chunk: the Route schema
       * check and canonical text of each route whose terms changed (a route whose terms did not
       * change reuses its checked canonical text around the dataVersion), the UTF-8 bytes of the
       * chunk, fed to the feed hash as they come, and its escaped form for the stored document.
       * The unfiltered view's bytes are assembled from the same chunk bytes.
       */
      const build = Effect.fnUntraced(
        function*(now: number, built: ReadonlyArray<{ terms: RouteTerms; route: CatalogRoute }>) {
          const dataVersion = yield* store.nextDataVersion.pipe(
            Effect.mapError((e) => new PublishFailed({ reason: e.message, cause: e }))
          )
          const dv = dataVersion.toString()
          const generatedAt = now
          const validUntil = now + ttl
          const head = { schema: FEED_SCHEMA, releaseId: catalog.releaseId, dataVersion: dv, generatedAt, validUntil }
          // the payload without its routes: every route is checked on its own below, and the
          // dataVersion, the one member of a route not in its terms, is checked here
          const checkedHead = decodePayload({ ...head, routes: [] }, strictParseOptions)
          if (Result.isFailure(checkedHead)) return yield* schemaFailure("signedPayload", checkedHead.failure)
          const around = Result.try({
            try: () => ({ payload: arraySlot(head, "routes"), dataVersion: memberText("dataVersion", dv) }),
            catch: (e) =>
              e instanceof CanonicalJson.CanonicalJsonError
                ? e
                : new CanonicalJson.CanonicalJsonError({ path: "$", reason: String(e) })
          })
          if (Result.isFailure(around)) return yield* canonicalFailure(around.failure)
          const payloadOpen = around.success.payload.open
          const payloadClose = around.success.payload.close
          const dataVersionMember = around.success.dataVersion

          const hash = yield* keccakStream
          hash.update(utf8Bytes(`${FEED_SCHEMA}\n${payloadOpen}`))
          const routes: Array<Route> = []
          const routeTexts: Array<string> = []
          const escapedDataVersion = jsonStringBody(dataVersionMember)
          const chunkTexts: Array<string> = []
          const openBytes = utf8Bytes(payloadOpen)
          const payloadPieces: Array<Uint8Array> = [openBytes]
          const payloadBody: Array<string> = [jsonStringBody(payloadOpen)]
          const lists = new RouteLists()
          for (let start = 0; start < built.length; start += PUBLICATION_CHUNK) {
            const end = Math.min(built.length, start + PUBLICATION_CHUNK)
            const open: Array<boolean> = []
            for (let i = start; i < end; i++) {
              const terms = built[i]!.terms
              // (a plain copy of the terms, then the dataVersion: the fast way to copy an object)
              const route: Route = { ...terms, dataVersion: dv }
              let text = memo.routeTexts.get(terms.routeId)
              if (text === undefined || text.terms !== terms) {
                const next = routeTextOf(route, terms, text, `routes[${i}]`)
                if (Result.isFailure(next)) return yield* next.failure
                text = next.success
                memo.routeTexts.set(terms.routeId, text)
              }
              routeTexts.push(fillSlot(text.text, dataVersionMember))
              // the stored document's pieces, joined once at the end
              if (i > 0) payloadBody.push(",")
              payloadBody.push(text.escaped.before, escapedDataVersion, text.escaped.after)
              routes.push(route)
              open.push(route.open)
            }
            const chunk = lists.add(routeTexts.slice(start, end), open)
            if (start > 0) {
              hash.update(COMMA)
              payloadPieces.push(COMMA)
            }
            hash.update(chunk.bytes)
            payloadPieces.push(chunk.bytes)
            chunkTexts.push(chunk.text)
            yield* Effect.yieldNow
          }
          const closeBytes = utf8Bytes(payloadClose)
          hash.update(closeBytes)
          payloadPieces.push(closeBytes)
          payloadBody.push(jsonStringBody(payloadClose))
          const feedHash = hash.digest()
          const canonicalPayload = `${payloadOpen}${chunkTexts.join(",")}${payloadClose}`
          const payload: SignedFeedPayload = { ...head, routes }

          const feedSignature = yield* signer.signDigest(feedHash).pipe(
            Effect.mapError((e) => new PublishFailed({ reason: e.message, cause: e }))
          )
          yield* Effect.yieldNow
          const evidence = yield* economics.evidence(routes)
          const actionableRoutes = Economy.shortlist(routes, evidence)
          const document = signedDocument(canonicalPayload, {
            feedHash,
            feedSignature,
            feedSigner: signer.address,
            actionableRoutes
          })
          yield* Effect.yieldNow
          yield* store.recordPublication({ dataVersion, feedHash, generatedAt, validUntil, routeCount: routes.length })
            .pipe(Effect.mapError((e) => new PublishFailed({ reason: e.message, cause: e })))
          const documentText = signedDocumentText(document, payloadBody)
          yield* Effect.yieldNow
          // the other replicas serve these very bytes (written before anyone is told)
          yield* store.savePublicationDocument({ dataVersion, document: documentText }).pipe(
            Effect.mapError((e) => new PublishFailed({ reason: e.message, cause: e }))
          )
          yield* Effect.yieldNow
          return materialize({
            dataVersion,
            payload,
            document,
            routeTexts,
            catalogRoutes: built.map((b) => b.route),
            pieces: { payload: payloadPieces, routes: lists.routes.pieces, open: lists.open.pieces }
          })
        }
      )

      /** A publication ready to serve, from a signed document and its parsed payload. */
      const materialize = (input: {
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
      }): Publication => {
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

      /** The publication of a document another replica (the leader) stored; checked before it is served. */
      const adopt = Effect.fnUntraced(function*(stored: PublicationDocument) {
        const invalid = (reason: string) =>
          new PublishFailed({ reason: `stored publication ${stored.dataVersion}: ${reason}` })
        const parsed = Result.try(() => JSON.parse(stored.document) as SignedDocument)
        if (Result.isFailure(parsed)) return yield* invalid("not JSON")
        const document = parsed.success
        yield* Effect.yieldNow
        // the feed hash of the payload's bytes, a slice at a time
        const payloadBytes = utf8Bytes(`${document.canonicalPayload}`)
        const hash = yield* keccakStream
        hash.update(utf8Bytes(`${FEED_SCHEMA}\n`))
        for (let at = 0; at < payloadBytes.length; at += HASH_SLICE) {
          if (at > 0) yield* Effect.yieldNow
          hash.update(payloadBytes.subarray(at, at + HASH_SLICE))
        }
        if (hash.digest() !== document.feedHash) return yield* invalid("its feedHash does not match its payload")
        if (document.feedSigner.toLowerCase() !== signer.address.toLowerCase()) {
          return yield* invalid(`signed by ${document.feedSigner}, not by this replica's key ${signer.address}`)
        }
        // the signature itself, not only the signer it names: clients would refuse a feed whose
        // feedSignature does not recover to feedSigner
        const recovered = Signature.recoverDigestSigner(document.feedHash, document.feedSignature)
        if (Result.isFailure(recovered) || recovered.success.toLowerCase() !== signer.address.toLowerCase()) {
          return yield* invalid(`its feedSignature does not recover to this replica's key ${signer.address}`)
        }
        yield* Effect.yieldNow
        // the payload without its routes first, then every route on its own, in chunks (the same
        // check as the whole SignedFeedPayload, without one long block for a large payload)
        const parsedPayload = Result.try(() => JSON.parse(document.canonicalPayload) as unknown)
        const raw = Result.isSuccess(parsedPayload) ? parsedPayload.success : undefined
        const rawRoutes = typeof raw === "object" && raw !== null
          ? (raw as { readonly routes?: unknown }).routes
          : undefined
        if (!Array.isArray(rawRoutes)) return yield* invalid("its payload fails its schema")
        const head = decodePayload({ ...(raw as object), routes: [] }, strictParseOptions)
        if (Result.isFailure(head)) return yield* invalid("its payload fails its schema")
        if (head.success.dataVersion !== stored.dataVersion.toString()) return yield* invalid("dataVersion differs")
        if (head.success.releaseId.toLowerCase() !== catalog.releaseId.toLowerCase()) {
          return yield* invalid("another releaseId than this replica's catalog")
        }
        yield* Effect.yieldNow
        const routes: Array<Route> = []
        const routeTexts: Array<string> = []
        const catalogRoutes: Array<CatalogRoute> = []
        const lists = new RouteLists()
        for (let start = 0; start < rawRoutes.length; start += PUBLICATION_CHUNK) {
          const end = Math.min(rawRoutes.length, start + PUBLICATION_CHUNK)
          const open: Array<boolean> = []
          for (let i = start; i < end; i++) {
            const decoded = decodeRoute(rawRoutes[i], strictParseOptions)
            if (Result.isFailure(decoded)) return yield* invalid("its payload fails its schema")
            const route = decoded.success
            const catalogRoute = catalog.route(route.routeId)
            if (catalogRoute === undefined) {
              return yield* invalid(
                `route ${route.routeId} is not in this replica's catalog (replicas need the same catalog)`
              )
            }
            routes.push(route)
            catalogRoutes.push(catalogRoute)
            routeTexts.push(CanonicalJson.stringify(route))
            open.push(route.open)
          }
          lists.add(routeTexts.slice(start, end), open)
          yield* Effect.yieldNow
        }
        const payload: SignedFeedPayload = { ...head.success, routes }
        return materialize({
          dataVersion: stored.dataVersion,
          payload,
          document,
          routeTexts,
          catalogRoutes,
          pieces: { payload: [payloadBytes], routes: lists.routes.pieces, open: lists.open.pieces }
        })
      })

      const publishWith = (
        now: number,
        built: ReadonlyArray<{ terms: RouteTerms; route: CatalogRoute }>,
        operatorVersion: number
      ) =>
        Effect.gen(function*() {
          const started = yield* Clock.currentTimeMillis
          const publication = yield* build(now, built)
          yield* Metric.update(Metrics.publicationDuration, (yield* Clock.currentTimeMillis) - started)
          yield* Metric.update(Metrics.publications, 1)
          yield* Effect.yieldNow
          // the gauges of every route, made once per route and set directly (no effect per route)
          const context = yield* Effect.context<never>()
          for (const route of publication.routes) {
            let gauges = memo.routeGauges.get(route.routeId)
            if (gauges === undefined) {
              // the series `Metric.withAttributes(gauge, { route })` updates, without a new context per update
              const labelled = { route: route.routeId }
              gauges = {
                capacity: Metric.gauge(Metrics.routeCapacity.id, {
                  description: Metrics.routeCapacity.description,
                  attributes: labelled
                }),
                open: Metric.gauge(Metrics.routeOpen.id, {
                  description: Metrics.routeOpen.description,
                  attributes: labelled
                })
              }
              memo.routeGauges.set(route.routeId, gauges)
            }
            gauges.capacity.updateUnsafe(Number(route.maxAvailableInRaw), context)
            gauges.open.updateUnsafe(route.open ? 1 : 0, context)
          }
          yield* Ref.set(fingerprintRef, built.map((b) => b.terms))
          yield* Ref.set(operatorVersionRef, operatorVersion)
          yield* setState({ _tag: "Open", publication }, { _tag: "Published", publication })
          yield* coordination.announce("publication", publication.dataVersion.toString())
          return publication
        }).pipe(Effect.withSpan("Publisher.publish", { attributes: { routes: built.length, validFrom: now } }))

      const tick = (force: boolean) =>
        lock.withPermit(Effect.gen(function*() {
          const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          const state = yield* Ref.get(stateRef)
          const operator = yield* store.operatorState.pipe(Effect.result)
          if (Result.isFailure(operator)) {
            return yield* Effect.fail(new PublishFailed({ reason: operator.failure.message, cause: operator.failure }))
          }
          if (operator.success.paused) {
            const reason = operator.success.pauseReason ?? "publication paused by the operator"
            if (state._tag !== "Closed") {
              yield* setState({ _tag: "Closed", reason, last: lastOf(state) }, { _tag: "Closed", reason })
              yield* coordination.announce("operator", "paused")
            }
            return yield* Effect.fail(new PublicationUnavailable({ closed: true, reason }))
          }
          const built = yield* buildTerms(now, operator.success, memo).pipe(
            Effect.provide(services),
            Effect.mapError((e) => new PublishFailed({ reason: e.message, cause: e }))
          )
          if (!force && state._tag === "Open") {
            const fresh = state.publication.validUntil - now > refreshBefore
            const sameOperatorState = operator.success.version === (yield* Ref.get(operatorVersionRef))
            const published = yield* Ref.get(fingerprintRef)
            if (fresh && sameOperatorState && sameTerms(built.map((b) => b.terms), published)) {
              return state.publication
            }
          }
          return yield* publishWith(now, built, operator.success.version)
        }))

      const refresh = tick(false).pipe(
        Effect.catch((e) =>
          Effect.gen(function*() {
            const state = yield* Ref.get(stateRef)
            if (e._tag === "PublishFailed") {
              yield* Effect.logWarning("publication failed", e.reason)
              const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
              // keep serving the last publication while it is valid
              if (state._tag === "Open" && state.publication.validUntil > now) return
              if (state._tag !== "Unavailable" || state.reason !== e.reason) {
                yield* setState({ _tag: "Unavailable", reason: e.reason, last: lastOf(state) })
              }
            }
          })
        ),
        Effect.flatMap(() => Ref.get(stateRef))
      )

      // plain composition: this runs for every feed, route and permit request
      const current: Effect.Effect<Publication, PublicationUnavailable> = Effect.flatMap(Ref.get(stateRef), (state) => {
        if (state._tag === "Closed") {
          return Effect.fail(new PublicationUnavailable({ closed: true, reason: state.reason }))
        }
        if (state._tag === "Unavailable") {
          return Effect.fail(new PublicationUnavailable({ closed: false, reason: state.reason }))
        }
        return Effect.flatMap(
          Clock.currentTimeMillis,
          (nowMs) =>
            state.publication.validUntil <= Math.floor(nowMs / 1000)
              ? Effect.fail(
                new PublicationUnavailable({ closed: false, reason: "the current publication has expired" })
              )
              : Effect.succeed(state.publication)
        )
      })

      // ------------------------------------------------------------ replicas
      // A replica that does not lead serves what the leader stored: it looks again when told
      // (an announcement), and every followMillis in case it was not told.
      const follow = lock.withPermit(Effect.gen(function*() {
        const state = yield* Ref.get(stateRef)
        const operator = yield* store.operatorState
        if (operator.paused) {
          const reason = operator.pauseReason ?? "publication paused by the operator"
          if (state._tag !== "Closed") {
            yield* setState({ _tag: "Closed", reason, last: lastOf(state) }, { _tag: "Closed", reason })
          }
          return
        }
        const stored = yield* store.latestPublicationDocument
        if (stored === undefined) return
        const last = lastOf(state)
        if (state._tag === "Open" && Option.isSome(last) && last.value.dataVersion >= stored.dataVersion) return
        if (state._tag !== "Open" && Option.isSome(last) && last.value.dataVersion === stored.dataVersion) {
          // resumed, the leader has not republished yet: serve the last one again
          yield* setState({ _tag: "Open", publication: last.value }, { _tag: "Published", publication: last.value })
          return
        }
        if (Option.isSome(last) && last.value.dataVersion > stored.dataVersion) return
        const publication = yield* adopt(stored)
        yield* setState({ _tag: "Open", publication }, { _tag: "Published", publication })
      })).pipe(
        Effect.catchCause((cause) => Effect.logWarning("following the leader's publication failed", cause)),
        // a replica that does not lead: each look at what the leader stored (announced, or every followMillis)
        Effect.withSpan("Publisher.follow")
      )
      const followMillis = Math.max(tickMillis, options.followMillis ?? 5000)
      const announcements = yield* coordination.announcements
      yield* Effect.forkScoped(
        Stream.merge(announcements, Stream.tick(Duration.millis(followMillis))).pipe(
          Stream.runForEach((tick) =>
            Effect.flatMap(coordination.isLeader, (leads) =>
              !leads
                ? follow
                // an operator change announced by `svc admin`: the leader acts now, not at its next tick
                : typeof tick === "object" && tick.topic === "operator" && tick.payload !== "paused"
                ? Effect.asVoid(refresh)
                : Effect.void)
          )
        )
      )

      // svc_leader: 1 while this replica leads (an alert fires when no replica does)
      yield* Effect.forkScoped(
        Stream.runForEach(coordination.leadership, (leads) => Metric.update(Metrics.leader, leads ? 1 : 0))
      )
      if (yield* coordination.isLeader) yield* refresh
      else yield* follow
      yield* Effect.forkScoped(
        whileLeader(coordination, Effect.repeat(refresh, Schedule.spaced(tickMillis)))
      )
      yield* Effect.addFinalizer(() =>
        Effect.gen(function*() {
          const state = yield* Ref.get(stateRef)
          yield* setState({ _tag: "Closed", reason: "server shutting down", last: lastOf(state) }, {
            _tag: "Closed",
            reason: "server shutting down"
          })
        })
      )

      return Publisher.of({
        current,
        state: Ref.get(stateRef),
        peek: () => Ref.getUnsafe(stateRef),
        subscribe: Effect.gen(function*() {
          // subscribe first, then read the state: an event published in between is
          // in the queue and carries a publication at least as new as the state
          const subscription = yield* PubSub.subscribe(events)
          const state = yield* Ref.get(stateRef)
          return { state, events: subscription }
        }),
        refresh: Effect.flatMap(
          coordination.isLeader,
          (leads) => leads ? refresh : Effect.flatMap(follow, () => Ref.get(stateRef))
        ),
        publishNow: Effect.flatMap(coordination.isLeader, (leads) =>
          leads
            ? tick(true)
            : Effect.fail(
              new PublishFailed({ reason: "this replica does not lead: the leader publishes (see Coordination)" })
            ))
      })
    })
  )
