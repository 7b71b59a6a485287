/**
 * Route metrics: the observational counters of each route (feed_exposures,
 * permit_requests, permits_issued, source_observed, paid) and the conversion rates
 * of RouteMetrics:
 *
 * - permitConversionRate = permits_issued / permit_requests,
 * - fillConversionRate = paid / permits_issued,
 *
 * each null while its denominator is 0. Feed exposures (a route returned in a feed
 * response) are counted in memory on the hot path and flushed to the store
 * periodically; the other counters are written by the store with the permit
 * changes themselves.
 *
 * @since 0.1.0
 */
import type { RouteMetrics as RouteMetricsBody } from "@svc/protocol/schema/Feed"
import { Context, Effect, Layer, Schedule } from "effect"
import { type RouteCounters, Store } from "./Store.ts"

/**
 * The route metrics service.
 *
 * @category services
 * @since 0.1.0
 */
export class RouteMetrics extends Context.Service<RouteMetrics, {
  /**
   * Counts one exposure of each route of a list (synchronous, in memory, O(1)):
   * pass the same array for the same view so that repeated exposures cost one map
   * update each; the counts are spread over the routes when flushed.
   */
  readonly exposed: (routeIds: ReadonlyArray<string>) => void
  /** Counts one permit request for a route (synchronous, in memory; flushed with the exposures). */
  readonly requested: (routeId: string) => void
  /** The metrics of a route: the stored counters plus the counts not flushed yet. */
  readonly metrics: (routeId: string) => Effect.Effect<RouteMetricsBody>
  /** Writes pending exposures to the store. */
  readonly flush: Effect.Effect<void>
}>()("@svc/core/RouteMetrics") {}

const rate = (numerator: number, denominator: number): number | null =>
  denominator === 0 ? null : numerator / denominator

/**
 * RouteMetrics of counters.
 *
 * @category operations
 * @since 0.1.0
 */
export const fromCounters = (counters: RouteCounters): RouteMetricsBody => ({
  telemetryAvailable: true,
  source: "V6_PUBLICATION_LEARNING_STATE",
  feed_exposures: counters.feed_exposures,
  permit_requests: counters.permit_requests,
  permits_issued: counters.permits_issued,
  source_observed: counters.source_observed,
  paid: counters.paid,
  updatedAt: counters.updatedAt === null ? null : new Date(counters.updatedAt).toISOString(),
  permitConversionRate: rate(counters.permits_issued, counters.permit_requests),
  fillConversionRate: rate(counters.paid, counters.permits_issued)
})

/**
 * The metrics layer; pending exposures are flushed every `flushMillis` (default
 * 5000) and when the layer closes.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  options?: { readonly flushMillis?: number | undefined }
): Layer.Layer<RouteMetrics, never, Store> =>
  Layer.effect(
    RouteMetrics,
    Effect.gen(function*() {
      const store = yield* Store
      // exposures per list of route ids (one entry per served view), spread at flush time
      let views = new Map<ReadonlyArray<string>, number>()
      let pending = new Map<string, number>()
      let requests = new Map<string, number>()
      const flush = Effect.suspend(() => {
        for (const [routeIds, count] of views) {
          for (const id of routeIds) {
            const key = id.toLowerCase()
            pending.set(key, (pending.get(key) ?? 0) + count)
          }
        }
        views = new Map()
        if (pending.size === 0 && requests.size === 0) return Effect.void
        const batch = pending
        const requestBatch = requests
        pending = new Map()
        requests = new Map()
        return store.addCounters([
          ...[...batch].map(([routeId, by]) => ({ routeId, counter: "feed_exposures" as const, by })),
          ...[...requestBatch].map(([routeId, by]) => ({ routeId, counter: "permit_requests" as const, by }))
        ]).pipe(
          Effect.catch((e) =>
            Effect.sync(() => {
              // keep the counts for the next flush
              for (const [routeId, by] of batch) pending.set(routeId, (pending.get(routeId) ?? 0) + by)
              for (const [routeId, by] of requestBatch) requests.set(routeId, (requests.get(routeId) ?? 0) + by)
            }).pipe(Effect.andThen(Effect.logWarning("route metrics flush failed", e.message)))
          )
        )
      })
      yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(options?.flushMillis ?? 5000)))
      yield* Effect.addFinalizer(() => flush)
      return RouteMetrics.of({
        exposed: (routeIds) => {
          if (routeIds.length > 0) views.set(routeIds, (views.get(routeIds) ?? 0) + 1)
        },
        requested: (routeId) => {
          const key = routeId.toLowerCase()
          requests.set(key, (requests.get(key) ?? 0) + 1)
        },
        // the stored counters plus what is still in memory: reading never writes (no fsync on a read path)
        metrics: (routeId) =>
          store.routeCounters(routeId.toLowerCase()).pipe(
            Effect.map((stored) => {
              const key = routeId.toLowerCase()
              let exposures = pending.get(key) ?? 0
              for (const [routeIds, count] of views) {
                if (routeIds.some((id) => id.toLowerCase() === key)) exposures += count
              }
              return fromCounters({
                ...stored,
                feed_exposures: stored.feed_exposures + exposures,
                permit_requests: stored.permit_requests + (requests.get(key) ?? 0)
              })
            }),
            Effect.orElseSucceed((): RouteMetricsBody => ({
              telemetryAvailable: false,
              permitConversionRate: null,
              fillConversionRate: null
            }))
          ),
        flush
      })
    })
  )
