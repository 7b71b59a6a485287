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
 * Whether this replica leads (1): it alone publishes and settles. Summed over the
 * replicas of a deployment it is 1; 0 means nothing publishes or pays out.
 *
 * @category operations
 * @since 0.1.0
 */
export const leader = Metric.gauge("leader", {
  description: "1 while this replica leads (publishes the feed and settles on chain), 0 otherwise"
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

// ---------------------------------------------------------------------------
// Settlement (ChainSettlement), by catalog network key (`network`)
// ---------------------------------------------------------------------------

/**
 * Whether the last calls to a network's RPC answered (1) or not (0).
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementRpcUp = Metric.gauge("settlement_rpc_up", {
  description: "1 when the network's RPC answered the last settlement call, 0 when it did not"
})

/**
 * Seconds since the newest block was read from a network.
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementHeadAge = Metric.gauge("settlement_head_age_seconds", {
  description: "seconds since the settlement loop last read the network's head block"
})

/**
 * Confirmed fills owed on a network (SOURCE_CONFIRMED or PAYOUT_SUBMITTED).
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementUnpaid = Metric.gauge("settlement_unpaid", {
  description: "confirmed fills not yet PAID whose payout is on the network"
})

/**
 * Age of the oldest confirmed fill owed on a network, seconds since its last state change.
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementOldestUnpaid = Metric.gauge("settlement_oldest_unpaid_seconds", {
  description: "seconds since the oldest confirmed, unpaid fill of the network last changed state (0: none)"
})

/**
 * Payout transactions sent and not yet mined (distinct nonces).
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementInFlight = Metric.gauge("settlement_payouts_in_flight", {
  description: "payouts sent and not yet mined (distinct nonces of the payout key)"
})

/**
 * Age of the oldest payout sent and not yet mined, seconds.
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementOldestInFlight = Metric.gauge("settlement_oldest_in_flight_seconds", {
  description: "seconds since the oldest payout not yet mined was signed (0: none)"
})

/**
 * The payout key's balance of the native coin, in its smallest unit (wei).
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementGasBalance = Metric.gauge("settlement_payout_gas_balance", {
  description: "the payout key's native balance (smallest unit, e.g. wei)"
})

/**
 * How much a vault lacks to pay the confirmed fills owed in an asset (raw units; 0 when covered).
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementVaultShortfall = Metric.gauge("settlement_vault_shortfall_raw", {
  description: "confirmed liabilities of an asset minus the vault's balance, raw units (0: covered)"
})

/**
 * Whether a network's fees are at the ceiling (1): payouts wait instead of overpaying.
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementFeeAtCeiling = Metric.gauge("settlement_fee_at_ceiling", {
  description: "1 when payouts wait because the fee they need is above the network's ceiling"
})

/**
 * Payouts that wait for the operator (reverted attempts past the budget).
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementWaitingOperator = Metric.gauge("settlement_payouts_waiting_operator", {
  description: "payouts whose reverted attempts used the budget: they wait for svc admin payouts retry"
})

/**
 * Payout transactions sent, by kind (`new`, `replacement`, `resend`, `retry`).
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementPayoutsSent = Metric.counter("settlement_payout_transactions_total", {
  description: "payout transactions signed and sent, by network and kind (new, replacement, resend, retry)",
  incremental: true
})

/**
 * Payout transactions that were mined and reverted.
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementReverts = Metric.counter("settlement_payout_reverts_total", {
  description: "payout transactions mined and reverted while the vault had not paid the fill",
  incremental: true
})

/**
 * Alerts of settlement, by kind: a PAID payout that left the chain (`payout_reopened`),
 * a source fill that left the chain after its payout (`source_fill_lost`), one that
 * left before (`source_fill_reorged`).
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementAlerts = Metric.counter("settlement_alerts_total", {
  description: "settlement alerts by network and kind (payout_reopened, source_fill_lost, source_fill_reorged)",
  incremental: true
})

/**
 * Whether each RPC endpoint of a network got its last request through (1) or not (0), by its position in the configuration.
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementEndpointUp = Metric.gauge("settlement_rpc_endpoint_up", {
  description: "1 when the RPC endpoint (by its position in SVC_RPC_URLS) got its last request through, 0 when not"
})

/**
 * Whether an RPC endpoint of a network is the one in use (1).
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementEndpointPrimary = Metric.gauge("settlement_rpc_endpoint_primary", {
  description: "1 for the RPC endpoint in use on the network (the others are failed over to)"
})

/**
 * Requests an RPC endpoint could not answer (refused, timed out, HTTP errors).
 *
 * @category operations
 * @since 0.1.0
 */
export const settlementEndpointFailures = Metric.counter("settlement_rpc_endpoint_failures_total", {
  description: "requests an RPC endpoint could not answer (refused, timed out, HTTP errors), failed over to another",
  incremental: true
})
