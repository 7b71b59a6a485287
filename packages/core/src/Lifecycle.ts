/**
 * The permit lifecycle (svc's decision; the spec leaves it open):
 *
 * ```text
 * ISSUED -> SOURCE_OBSERVED -> SOURCE_CONFIRMED -> PAYOUT_SUBMITTED -> PAID
 * ISSUED -> EXPIRED
 * SOURCE_OBSERVED -> ISSUED     (the source fill was reorganised away before finality)
 * SOURCE_CONFIRMED -> ISSUED    (the same, found before the payout, where finality is a depth)
 * PAID -> PAYOUT_SUBMITTED      (the payout left the chain after its confirmations, where
 *                                finality is a depth: it is sent again)
 * any non-terminal -> FAILED
 * ```
 *
 * PAID is declared at the destination's finality, so it changes only in the one
 * case above, which the chain's own finality signal rules out; EXPIRED and
 * FAILED never change. A payout that cannot be made now (a vault short of funds,
 * fees above the ceiling, reverted attempts past the budget) keeps the permit
 * SOURCE_CONFIRMED or PAYOUT_SUBMITTED, with reason codes saying what it waits
 * for: FAILED is only for what the rules make final (a fill that does not match
 * its permit). Each state puts the
 * permit's amountOut in one inventory bucket of its destination asset: ISSUED in
 * the accounting hold, SOURCE_OBSERVED and SOURCE_CONFIRMED in the liability,
 * PAYOUT_SUBMITTED in the clearing commitment; PAID moves it out of the physical
 * balance; EXPIRED and FAILED release it.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * The states of a permit.
 *
 * @category models
 * @since 0.1.0
 */
export const PermitState = Schema.Literals([
  "ISSUED",
  "SOURCE_OBSERVED",
  "SOURCE_CONFIRMED",
  "PAYOUT_SUBMITTED",
  "PAID",
  "EXPIRED",
  "FAILED"
]).annotate({ identifier: "PermitState" })
/** @since 0.1.0 */
export type PermitState = typeof PermitState.Type

/**
 * The terminal states: a client stops following a permit there. PAID may be
 * reopened in one case (see the module documentation), never by a client's action.
 *
 * @category models
 * @since 0.1.0
 */
export const TERMINAL: ReadonlySet<PermitState> = new Set(["PAID", "EXPIRED", "FAILED"])

/**
 * Whether a state is terminal.
 *
 * @category validation
 * @since 0.1.0
 */
export const isTerminal = (state: PermitState): boolean => TERMINAL.has(state)

const NEXT: Record<PermitState, ReadonlyArray<PermitState>> = {
  ISSUED: ["SOURCE_OBSERVED", "EXPIRED", "FAILED"],
  SOURCE_OBSERVED: ["SOURCE_CONFIRMED", "ISSUED", "FAILED"],
  SOURCE_CONFIRMED: ["PAYOUT_SUBMITTED", "ISSUED", "FAILED"],
  PAYOUT_SUBMITTED: ["PAID", "FAILED"],
  PAID: ["PAYOUT_SUBMITTED"],
  EXPIRED: [],
  FAILED: []
}

/**
 * Whether `from -> to` is an allowed transition.
 *
 * @category validation
 * @since 0.1.0
 */
export const canTransition = (from: PermitState, to: PermitState): boolean => NEXT[from].includes(to)

/**
 * The states a permit may move to from a state.
 *
 * @category models
 * @since 0.1.0
 */
export const nextStates = (from: PermitState): ReadonlyArray<PermitState> => NEXT[from]

/**
 * The inventory bucket a state holds the permit's amountOut in.
 *
 * - `hold`: reserved by an issued permit (effectiveAccountingHoldRaw);
 * - `liability`: owed after a source fill (effectiveLiabilityRaw);
 * - `clearing`: payout submitted, not yet confirmed (activeClearingCommitmentRaw);
 * - `paid`: paid out (leaves the physical balance);
 * - `none`: released.
 *
 * @category models
 * @since 0.1.0
 */
export type Bucket = "hold" | "liability" | "clearing" | "paid" | "none"

/**
 * The bucket of a state.
 *
 * @category models
 * @since 0.1.0
 */
export const bucketOf = (state: PermitState): Bucket => {
  switch (state) {
    case "ISSUED":
      return "hold"
    case "SOURCE_OBSERVED":
    case "SOURCE_CONFIRMED":
      return "liability"
    case "PAYOUT_SUBMITTED":
      return "clearing"
    case "PAID":
      return "paid"
    case "EXPIRED":
    case "FAILED":
      return "none"
  }
}

/**
 * The status vocabulary of the aggregator interface for a permit state.
 *
 * @category models
 * @since 0.1.0
 */
export const aggregatorStatusOf = (state: PermitState) => {
  switch (state) {
    case "ISSUED":
      return "PERMITTED" as const
    case "SOURCE_OBSERVED":
      return "SOURCE_SUBMITTED" as const
    case "SOURCE_CONFIRMED":
      return "SOURCE_CONFIRMED" as const
    case "PAYOUT_SUBMITTED":
      return "PAYOUT_PENDING" as const
    case "PAID":
      return "COMPLETED" as const
    case "EXPIRED":
      return "EXPIRED" as const
    case "FAILED":
      return "FAILED" as const
  }
}
