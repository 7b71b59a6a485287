/**
 * The permit lifecycle after issuance: the {@link SettlementObserver} records what
 * chain watchers (or an operator) observe — a source fill, its confirmation after
 * sourceFinalityBlocks, the payout submission and its confirmation, a failure —
 * and an expiry sweeper moves ISSUED permits to EXPIRED, releasing their holds.
 *
 * EXPIRED and FAILED never change; PAID changes only when its payout left the
 * chain after its confirmations, where finality is a depth (see `Lifecycle`). A
 * source fill seen for an EXPIRED permit raises an operator alert (an error log
 * and the `svc_expired_permit_source_fills_total` counter); the state stays
 * EXPIRED.
 *
 * On networks whose connector settles (see `ChainSettlement`), the chain watcher
 * and the payout loop call the observer; elsewhere an operator does
 * (`svc admin settle`), or an embedder's own code.
 *
 * Expiry: on a source network whose watcher records final blocks (the cursor's
 * `finalBlockNumber`), an ISSUED permit expires as soon as the watcher has read a
 * final block stamped at or after validUntil with no fill seen: the router
 * refuses a fill in such a block (and every later block is stamped no earlier),
 * and a final block cannot be reorganised to admit one, so the hold is released
 * at once. Elsewhere a permit expires
 * validUntil + a grace period later, and, when the network is watched without
 * final blocks, only once the watcher has read the chain past validUntil: a
 * watcher that is behind (an RPC outage) never lets a permit expire whose fill it
 * has not seen yet.
 *
 * @since 0.1.0
 */
import { Clock, Context, Data, Effect, Layer, Metric, Schedule } from "effect"
import type { PermitState } from "./Lifecycle.ts"
import * as Metrics from "./Metrics.ts"
import { envelopeOf } from "./PermitEnvelope.ts"
import { type ChainCursor, type PermitRecord, Store, type StoreError } from "./Store.ts"

/**
 * A lifecycle change that is not allowed from the permit's current state, or a
 * permit that does not exist.
 *
 * @category errors
 * @since 0.1.0
 */
export class TransitionRefused extends Data.TaggedError("TransitionRefused")<{
  readonly fillId: string
  readonly from: PermitState | null
  readonly to: PermitState
}> {
  override get message(): string {
    return this.from === null
      ? `no permit ${this.fillId}`
      : `permit ${this.fillId} cannot move from ${this.from} to ${this.to}`
  }
}

/**
 * Alerts raised by source fills of expired permits.
 *
 * @category operations
 * @since 0.1.0
 */
export const expiredSourceFills = Metric.counter("expired_permit_source_fills_total", {
  incremental: true,
  description: "source fills observed for permits that had already expired"
})

/**
 * The settlement observer service.
 *
 * @category services
 * @since 0.1.0
 */
export class SettlementObserver extends Context.Service<SettlementObserver, {
  readonly sourceObserved: (
    fillId: string,
    sourceTxHash: string
  ) => Effect.Effect<PermitRecord, TransitionRefused | StoreError>
  /**
   * The source fill left the canonical chain before its payout (SOURCE_OBSERVED,
   * or SOURCE_CONFIRMED where finality is a depth): back to ISSUED, its hold restored.
   */
  readonly sourceReorged: (fillId: string) => Effect.Effect<PermitRecord, TransitionRefused | StoreError>
  readonly sourceConfirmed: (fillId: string) => Effect.Effect<PermitRecord, TransitionRefused | StoreError>
  /**
   * A payout was sent (or found on chain; without a hash when the vault paid it
   * long ago): from SOURCE_CONFIRMED only (a PAID permit is refused).
   */
  readonly payoutSubmitted: (
    fillId: string,
    payoutTxHash?: string
  ) => Effect.Effect<PermitRecord, TransitionRefused | StoreError>
  readonly paid: (fillId: string, payoutTxHash?: string) => Effect.Effect<PermitRecord, TransitionRefused | StoreError>
  /**
   * A PAID permit's payout left the chain after its confirmations (finality by
   * depth) and the vault has not paid the fillId: PAYOUT_SUBMITTED again, owed.
   */
  readonly payoutReopened: (fillId: string) => Effect.Effect<PermitRecord, TransitionRefused | StoreError>
  readonly failed: (
    fillId: string,
    reasonCodes: ReadonlyArray<string>
  ) => Effect.Effect<PermitRecord, TransitionRefused | StoreError>
  /** Expires every ISSUED permit whose validUntil + grace has passed; returns how many. */
  readonly expireDue: Effect.Effect<number, StoreError>
}>()("@svc/core/SettlementObserver") {}

const sourceNetworkOf = (record: PermitRecord): string | null => {
  try {
    return envelopeOf(record).permit.sourceNetworkId.toLowerCase()
  } catch {
    // a stored envelope that fails its schema: expiry does not wait for a watcher
    return null
  }
}

/**
 * Options of the settlement layer.
 *
 * @category models
 * @since 0.1.0
 */
export interface SettlementOptions {
  /**
   * Seconds after validUntil before an unfilled permit expires, where the source
   * network's watcher records no final block. Default 600.
   */
  readonly expiryGraceSeconds?: number | undefined
  /** How often the sweeper runs, milliseconds. Default 5000; 0 disables it. */
  readonly sweepMillis?: number | undefined
  /**
   * Retention of terminal permits (PAID, EXPIRED, FAILED), seconds since their
   * last change; older ones are deleted by the sweeper (about once a minute).
   * Default 90 days; 0 keeps them forever. Never shorter than
   * {@link minimumRetentionSeconds}: a replay of a request must find its permit
   * as long as the request's quote could still mint a new one.
   */
  readonly retentionSeconds?: number | undefined
  /** The catalog's quote window, seconds (default one day): see {@link minimumRetentionSeconds}. */
  readonly quoteWindowSeconds?: number | undefined
}

/**
 * The shortest retention of terminal permits: the quote window (a quoteId can
 * stay open that long, and a replay of its request must never mint a second
 * permit), plus the expiry grace, plus a day.
 *
 * @category operations
 * @since 0.1.0
 */
export const minimumRetentionSeconds = (quoteWindowSeconds: number, expiryGraceSeconds: number): number =>
  quoteWindowSeconds + expiryGraceSeconds + 86_400

/**
 * The settlement observer with its expiry sweeper.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: SettlementOptions): Layer.Layer<SettlementObserver, never, Store> =>
  Layer.effect(
    SettlementObserver,
    Effect.gen(function*() {
      const store = yield* Store
      const grace = Math.max(0, options?.expiryGraceSeconds ?? 600)
      const sweepMillis = options?.sweepMillis ?? 5000

      const move = (
        fillId: string,
        to: PermitState,
        fields?: {
          sourceTxHash?: string
          payoutTxHash?: string
          reasonCodes?: ReadonlyArray<string>
          from?: PermitState
        }
      ) =>
        Effect.gen(function*() {
          const at = yield* Clock.currentTimeMillis
          const result = yield* store.transition({ fillId: fillId.toLowerCase(), to, at, ...fields })
          switch (result._tag) {
            case "Applied":
              yield* Metric.update(Metric.withAttributes(Metrics.permitTransitions, { state: to }), 1)
              return result.record
            case "NotFound":
              return yield* new TransitionRefused({ fillId, from: null, to })
            case "Rejected": {
              if (to === "SOURCE_OBSERVED" && result.record.state === "EXPIRED") {
                yield* Metric.update(expiredSourceFills, 1)
                yield* Effect.logError("ALERT: source fill observed for an expired permit", {
                  fillId,
                  sourceTxHash: fields?.sourceTxHash
                })
              }
              return yield* new TransitionRefused({ fillId, from: result.record.state, to })
            }
          }
        })

      // a watched source network: the watcher must have read past validUntil
      const watcherIsPast = (fillId: string, cursors: ReadonlyMap<string, ChainCursor>) =>
        Effect.gen(function*() {
          const record = yield* store.getPermit(fillId)
          if (record === undefined) return false
          const sourceNetworkId = record.sourceNetworkId ?? sourceNetworkOf(record)
          if (sourceNetworkId === null) return true
          const cursor = cursors.get(sourceNetworkId)
          if (cursor === undefined) return true
          // where final blocks are recorded, only they decide (a grace never expires a fill that may still come)
          if (cursor.finalBlockTimestamp !== undefined) return cursor.finalBlockTimestamp >= record.validUntil
          return cursor.blockTimestamp >= record.validUntil
        })

      const expire = (fillId: string) =>
        Effect.gen(function*() {
          const at = yield* Clock.currentTimeMillis
          const result = yield* store.transition({ fillId, to: "EXPIRED", at, reasonCodes: ["EXPIRED_UNFILLED"] })
          if (result._tag !== "Applied") return 0
          yield* Metric.update(Metric.withAttributes(Metrics.permitTransitions, { state: "EXPIRED" }), 1)
          return 1
        })

      const expireDue = Effect.gen(function*() {
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const cursors = new Map((yield* store.chainCursors).map((c) => [c.networkId.toLowerCase(), c] as const))
        let expired = 0
        // networks with final blocks: every permit whose validUntil is before the last final block read
        for (const cursor of cursors.values()) {
          if (cursor.finalBlockTimestamp === undefined) continue
          // the router refuses a fill in a block stamped at or after validUntil (`PermitExpired`)
          const due = yield* store.dueForExpiry(cursor.finalBlockTimestamp, 500, {
            sourceNetworkId: cursor.networkId
          })
          for (const fillId of due) expired += yield* expire(fillId)
        }
        // the rest after the grace, and not before their watcher has read past them
        const due = yield* store.dueForExpiry(now - grace, 500)
        for (const fillId of due) {
          if (!(yield* watcherIsPast(fillId, cursors))) continue
          expired += yield* expire(fillId)
        }
        return expired
      })

      const configuredRetention = options?.retentionSeconds ?? 90 * 86_400
      const retentionSeconds = configuredRetention <= 0 ? 0 : Math.max(
        configuredRetention,
        minimumRetentionSeconds(options?.quoteWindowSeconds ?? 86_400, grace)
      )
      const pruneOld = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        let pruned = 0
        // a bounded batch per round: the sweeper never holds the store for long
        for (let round = 0; round < 10; round++) {
          const n = yield* store.prunePermits(now - retentionSeconds * 1000, 500)
          pruned += n
          if (n < 500) break
        }
        if (pruned > 0) yield* Effect.logInfo("retention: terminal permits deleted", { pruned, retentionSeconds })
        return pruned
      })

      if (sweepMillis > 0) {
        yield* Effect.forkScoped(
          Effect.repeat(
            expireDue.pipe(Effect.catch((e) => Effect.logWarning("expiry sweep failed", e.message))),
            Schedule.spaced(sweepMillis)
          )
        )
        if (retentionSeconds > 0) {
          yield* Effect.forkScoped(
            Effect.repeat(
              pruneOld.pipe(Effect.catch((e) => Effect.logWarning("retention sweep failed", e.message))),
              Schedule.spaced(Math.max(sweepMillis, 60_000))
            )
          )
        }
      }

      return SettlementObserver.of({
        sourceObserved: (fillId, sourceTxHash) =>
          move(fillId, "SOURCE_OBSERVED", { sourceTxHash: sourceTxHash.toLowerCase() }),
        sourceReorged: (fillId) => move(fillId, "ISSUED", { reasonCodes: [] }),
        sourceConfirmed: (fillId) => move(fillId, "SOURCE_CONFIRMED"),
        // a payout sent (or found) waits for nothing any more: its reason codes are cleared. PAYOUT_SUBMITTED
        // is reached from two states, each by its own call: a payout started only from SOURCE_CONFIRMED (never a
        // PAID permit whose payout another replica sent while this one was paused), a reopening only from PAID
        payoutSubmitted: (fillId, payoutTxHash) =>
          move(fillId, "PAYOUT_SUBMITTED", {
            ...(payoutTxHash === undefined ? {} : { payoutTxHash: payoutTxHash.toLowerCase() }),
            reasonCodes: [],
            from: "SOURCE_CONFIRMED"
          }),
        paid: (fillId, payoutTxHash) =>
          move(fillId, "PAID", {
            ...(payoutTxHash === undefined ? {} : { payoutTxHash: payoutTxHash.toLowerCase() }),
            reasonCodes: []
          }),
        payoutReopened: (fillId) =>
          move(fillId, "PAYOUT_SUBMITTED", { reasonCodes: ["PAYOUT_LEFT_CHAIN"], from: "PAID" }),
        failed: (fillId, reasonCodes) => move(fillId, "FAILED", { reasonCodes }),
        expireDue
      })
    })
  )
