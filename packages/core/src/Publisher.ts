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
 * This module holds the models, the service and its layer (the publication
 * cycle: look for changes, publish, and the ticks and announcements that drive
 * it); the parts live in `internal/publisher/`: `terms.ts` (the terms of every
 * route and the memo tables that keep them), `routeTexts.ts` (a route's checked
 * canonical text), `documents.ts` (building, signing and storing a publication;
 * adopting the leader's), `views.ts` (filters, views and their cache),
 * `state.ts` (the state, its events, the current publication), `following.ts`
 * (a replica that does not lead) and `errors.ts`.
 *
 * @since 0.1.0
 */
import type { Hex } from "@svc/protocol/Bytes"
import type { ActionableRoute, Route, SignedFeedPayload } from "@svc/protocol/schema/Feed"
import {
  Clock,
  Context,
  Duration,
  Effect,
  Layer,
  Metric,
  Option,
  PubSub,
  Ref,
  Result,
  Schedule,
  type Scope,
  Semaphore,
  Stream
} from "effect"
import { Catalog, type CatalogRoute } from "./Catalog.ts"
import { Coordination, whileLeader } from "./Coordination.ts"
import { Economics } from "./Economics.ts"
import { makeKeccakStreams } from "./internal/fastKeccak.ts"
import { makeDocuments } from "./internal/publisher/documents.ts"
import { PublicationUnavailable, PublishFailed } from "./internal/publisher/errors.ts"
import { makeFollow } from "./internal/publisher/following.ts"
import { currentOf, lastOf, makeState } from "./internal/publisher/state.ts"
import { buildTerms, makeMemo, type RouteTerms, sameTerms, updateRouteGauges } from "./internal/publisher/terms.ts"
import { Inventory } from "./Inventory.ts"
import * as Metrics from "./Metrics.ts"
import { Pricing } from "./Pricing.ts"
import { Signer } from "./Signer.ts"
import { Store } from "./Store.ts"

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
export { PublicationUnavailable } from "./internal/publisher/errors.ts"

/**
 * A publication could not be built or signed.
 *
 * @category errors
 * @since 0.1.0
 */
export { PublishFailed } from "./internal/publisher/errors.ts"

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
// Filters and views (internal/publisher/views.ts)
// ---------------------------------------------------------------------------

/**
 * Whether a filter's values are well formed.
 *
 * @category validation
 * @since 0.1.0
 */
export { filterIssues } from "./internal/publisher/views.ts"

/**
 * The normalised form of a (well-formed) filter: `all`, or the present fields in
 * a fixed order with the network id lowercased.
 *
 * @category validation
 * @since 0.1.0
 */
export { filterKeyOf } from "./internal/publisher/views.ts"

/**
 * The filter key of the empty view: a filter naming a source network that no
 * route of the publication leaves from.
 *
 * @category validation
 * @since 0.1.0
 */
export { EMPTY_VIEW_KEY } from "./internal/publisher/views.ts"

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

      const cell = yield* makeState
      const stateRef = cell.ref
      const setState = cell.set
      // the route terms of the current publication (terms objects: see Memo.termsOf)
      const fingerprintRef = yield* Ref.make<ReadonlyArray<RouteTerms>>([])
      // the operator state's version the current publication was built under: any operator
      // change (`svc admin`, including `svc admin republish`) publishes a new version
      const operatorVersionRef = yield* Ref.make<number | undefined>(undefined)
      const lock = yield* Semaphore.make(1)
      const memo = makeMemo()
      const keccakStream = makeKeccakStreams()

      const documents = makeDocuments({
        catalog,
        store,
        signer,
        economics,
        memo,
        keccakStream,
        ttl,
        views: { template, cacheBytes, cacheEntries }
      })

      const publishWith = (
        now: number,
        built: ReadonlyArray<{ terms: RouteTerms; route: CatalogRoute }>,
        operatorVersion: number
      ) =>
        Effect.gen(function*() {
          const started = yield* Clock.currentTimeMillis
          const publication = yield* documents.build(now, built)
          yield* Metric.update(Metrics.publicationDuration, (yield* Clock.currentTimeMillis) - started)
          yield* Metric.update(Metrics.publications, 1)
          yield* Effect.yieldNow
          // the gauges of every route, made once per route and set directly (no effect per route)
          updateRouteGauges(memo, publication.routes, yield* Effect.context<never>())
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

      const current = currentOf(stateRef)

      // ------------------------------------------------------------ replicas
      // A replica that does not lead serves what the leader stored: it looks again when told
      // (an announcement), and every followMillis in case it was not told.
      const follow = makeFollow({ lock, state: cell, store, documents })
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
          const subscription = yield* PubSub.subscribe(cell.events)
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
