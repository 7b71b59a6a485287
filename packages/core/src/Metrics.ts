/**
 * The engine's metrics (Effect metrics; the server exports them as Prometheus
 * text on its metrics listener, `SVC_METRICS_PORT`, with the `svc_` prefix).
 * Names follow the Prometheus conventions: counters end in `_total`, units are
 * in the name, labels have bounded values (operation names, states, codes,
 * routeIds of the catalog).
 *
 * @since 0.1.0
 */
import { Metric } from "effect"

/**
 * Permits issued, by route.
 *
 * @category operations
 * @since 0.1.0
 */
export const permitsIssued = Metric.counter("permits_issued_total", {
  description: "permits issued (201), by routeId",
  incremental: true
})

/**
 * Permit requests refused, by error code (the wire code, e.g. INSUFFICIENT_CAPACITY).
 *
 * @category operations
 * @since 0.1.0
 */
export const permitRefusals = Metric.counter("permit_refusals_total", {
  description: "permit requests refused, by reason (the error's tag)",
  incremental: true
})

/**
 * Lifecycle transitions applied, by the state reached.
 *
 * @category operations
 * @since 0.1.0
 */
export const permitTransitions = Metric.counter("permit_transitions_total", {
  description: "permit lifecycle transitions applied, by the state reached",
  incremental: true
})

/**
 * Publications made by this replica.
 *
 * @category operations
 * @since 0.1.0
 */
export const publications = Metric.counter("publications_total", {
  description: "feed publications built and signed by this replica",
  incremental: true
})

/**
 * How long building, signing and storing a publication took.
 *
 * @category operations
 * @since 0.1.0
 */
export const publicationDuration = Metric.histogram("publication_duration_ms", {
  description: "time to build, sign and store one publication, milliseconds",
  boundaries: [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000]
})

/**
 * The capacity a route publishes (maxAvailableInRaw, raw units of its source asset).
 *
 * @category operations
 * @since 0.1.0
 */
export const routeCapacity = Metric.gauge("route_capacity_in_raw", {
  description: "maxAvailableInRaw of each route in the current publication (raw source units)"
})

/**
 * Whether a route is open in the current publication (1) or not (0).
 *
 * @category operations
 * @since 0.1.0
 */
export const routeOpen = Metric.gauge("route_open", {
  description: "1 when the route is open in the current publication, else 0"
})

/**
 * Unfilled holds of a destination asset (raw units), as of the last publication.
 *
 * @category operations
 * @since 0.1.0
 */
export const assetHolds = Metric.gauge("asset_hold_raw", {
  description: "amount held by ISSUED permits on each destination asset (raw units) at the last publication"
})

/**
 * Store operations that failed, by operation.
 *
 * @category operations
 * @since 0.1.0
 */
export const storeErrors = Metric.counter("store_errors_total", {
  description: "store operations that failed (the store was unavailable), by operation",
  incremental: true
})

/**
 * Signatures the signer could not make.
 *
 * @category operations
 * @since 0.1.0
 */
export const signerErrors = Metric.counter("signer_errors_total", {
  description: "signatures the authority signer could not make",
  incremental: true
})

/**
 * Requests refused by a rate limit, by limit (permits, v1-requests, v1-quote-build).
 *
 * @category operations
 * @since 0.1.0
 */
export const rateLimitRefusals = Metric.counter("rate_limit_refusals_total", {
  description: "requests refused by a rate limit (429), by limit",
  incremental: true
})
