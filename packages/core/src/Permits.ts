/**
 * Execution permits: the request message, creation with fresh amount-bound
 * repricing, reservation and signing, idempotency, and status. Failures are
 * {@link PermitError}s with a typed reason (see `PermitError`).
 *
 * Order of checks of {@link PermitsShape.create} (the first failing check answers):
 *
 * 1. header/body idempotency key mismatch -> IdempotencyKeyMismatch
 * 2. idempotency lookup (keys are scoped per payer identity): a completed request
 *    with the same fingerprint replays the stored envelope (even after expiry or
 *    under rate limiting; its signature must still verify); another fingerprint
 *    -> IdempotencyConflict; a request still in flight is waited for (bounded)
 *    and replayed, or -> IdempotencyInProgress
 * 3. rate limit -> RateLimited (Unavailable when a shared limiter's store is down)
 * 4. publication closed or unavailable -> PublicationClosed / Unavailable; quote
 *    unknown, not open or expired -> QuoteNotOpen
 * 5. amount: 0 or >= 2^128 -> AmountInvalid; below minimumFillInRaw -> AmountTooLow;
 *    above maxAvailableInRaw -> InsufficientCapacity; standard other than DIRECT
 *    / ERC-7683 -> UnsupportedStandard (`PermitChecks`)
 * 6. identities, resolved through the connector registry -> IdentityInvalid
 *    (`PermitIdentities`)
 * 7. ownership proof of the payer over the exact message -> SignatureInvalid
 *    (Unavailable when the connector cannot decide, e.g. its RPC endpoint is down)
 * 8. fresh price (against a bound amountOut when given: QuoteChanged), inventory
 *    reservation (InsufficientCapacity), fillId and permitNonce from the `Entropy`
 *    service (the platform's secure generator unless a layer provides another),
 *    permitDigest signed by the authority, durable insert -> created.
 *
 * The request-message operation runs every check except the rate limit, the
 * signature, the key claim and the reservation.
 *
 * @since 0.1.0
 */
import { toHex } from "@svc/protocol/Bytes"
import { BYTES32 } from "@svc/protocol/Patterns"
import * as PermitDigest from "@svc/protocol/PermitDigest"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import type { PermitCreateRequest, PermitRequest } from "@svc/protocol/schema/Permit"
import type { ExecutionPermitEnvelope } from "@svc/protocol/schema/Permit"
import { Clock, Context, Effect, Layer, Metric, Option, Result } from "effect"
import { Catalog } from "./Catalog.ts"
import { ConnectorRegistry } from "./Connector.ts"
import { Entropy } from "./Entropy.ts"
import { Inventory } from "./Inventory.ts"
import * as Metrics from "./Metrics.ts"
import * as Checks from "./PermitChecks.ts"
import * as Envelope from "./PermitEnvelope.ts"
import {
  AmountTooLow,
  fail,
  IdempotencyConflict,
  IdempotencyInProgress,
  IdempotencyKeyMismatch,
  IdentityInvalid,
  InsufficientCapacity,
  PermitError,
  type PermitErrorReason,
  PermitNotFound,
  QuoteChanged,
  QuoteNotOpen,
  RateLimited,
  RequestInvalid,
  Unavailable
} from "./PermitError.ts"
import * as Idempotency from "./PermitIdempotency.ts"
import * as Identities from "./PermitIdentities.ts"
import { linearAmountOut, Pricing } from "./Pricing.ts"
import { Publisher } from "./Publisher.ts"
import { isStoreUnavailable, PermitRateLimiter } from "./RateLimit.ts"
import { RouteMetrics } from "./RouteMetrics.ts"
import { Signer } from "./Signer.ts"
import { type PermitRecord, Store } from "./Store.ts"

/**
 * Permit service options.
 *
 * @category models
 * @since 0.1.0
 */
export interface PermitOptions {
  /** Longest permit validity, seconds (validUntil = min(route.validUntil, now + ttl)). Default 120. */
  readonly permitTtlSeconds?: number | undefined
  /** How long a duplicate waits for a request with the same key in flight, ms. Default 5000. */
  readonly inFlightWaitMillis?: number | undefined
  /**
   * Seconds before the issuance second that a permit's validAfter lies. A chain
   * whose clock lags the server's (block timestamps are the proposer's clock,
   * and a fill is mined in a block stamped before it was sent) would otherwise
   * revert a fresh fill with `PermitNotYetValid`. Default 60.
   */
  readonly validAfterSlackSeconds?: number | undefined
  /**
   * Caps on unfilled holds (see `Store.HoldShares`): one client's ISSUED permits
   * may hold at most `clientBps` of a destination asset's physical inventory
   * (default 2500, 25%), one payer's at most `payerBps` (default 5000), and the
   * payers that never completed a fill, all together, at most `newPayersBps`
   * (default 5000). null: no cap. They keep throwaway keys from draining a
   * route for free.
   */
  readonly holdShares?: {
    readonly clientBps?: number | null | undefined
    readonly payerBps?: number | null | undefined
    readonly newPayersBps?: number | null | undefined
  } | undefined
}

/**
 * Options of one create call.
 *
 * @category models
 * @since 0.1.0
 */
export interface CreateOptions {
  /** The Idempotency-Key header, when sent. */
  readonly headerIdempotencyKey?: string | undefined
  /**
   * The key of the client (for example its address): its permit requests are
   * rate limited under it, and its outstanding holds are capped by the client
   * hold share.
   */
  readonly clientKey?: string | undefined
  /**
   * False when the caller applies its own rate limit (the aggregator's `/v1`
   * budget): the client key then only bounds holds. Default true.
   */
  readonly rateLimited?: boolean | undefined
  /**
   * An amountOut the caller displayed (an aggregator quote): the permit is issued
   * at exactly this amount when the fresh price covers it, else QuoteChanged.
   */
  readonly boundAmountOutRaw?: bigint | undefined
}

/**
 * The outcome of a create call.
 *
 * @category models
 * @since 0.1.0
 */
export interface CreateResult {
  /** True for a new permit (201), false for an idempotent replay (200). */
  readonly created: boolean
  readonly envelope: ExecutionPermitEnvelope
  readonly record: PermitRecord
}

/**
 * The permit service contract.
 *
 * @category models
 * @since 0.1.0
 */
export interface PermitsShape {
  /** The exact message a payer signs for a request (every check but signature and reservation). */
  readonly requestMessage: (
    request: PermitRequest,
    options?: { readonly headerIdempotencyKey?: string | undefined }
  ) => Effect.Effect<string, PermitError>
  /** Creates a permit, or replays the one created for the same request and key. */
  readonly create: (request: PermitCreateRequest, options?: CreateOptions) => Effect.Effect<CreateResult, PermitError>
  /** The current envelope of a permit. */
  readonly get: (fillId: string) => Effect.Effect<ExecutionPermitEnvelope, PermitError>
}

/**
 * The permit service.
 *
 * @category services
 * @since 0.1.0
 */
export class Permits extends Context.Service<Permits, PermitsShape>()("@svc/core/Permits") {}

/** @since 0.1.0 */
export { envelopeOf } from "./PermitEnvelope.ts"
/** @since 0.1.0 */
export { scopeOf } from "./PermitIdempotency.ts"

const storeUnavailable = (e: { readonly message: string }) =>
  fail(new Unavailable({ dependency: "STORE", retryAfterSeconds: 1, detail: e.message }))

/** Lifts a reason result into the error channel. */
const orFail = <A>(result: Result.Result<A, PermitErrorReason>): Effect.Effect<A, PermitError> =>
  Result.isSuccess(result) ? Effect.succeed(result.success) : Effect.fail(fail(result.failure))

const normalize = (request: PermitRequest): Result.Result<PermitMessage.NormalizedPermitRequest, PermitErrorReason> => {
  const normalized = PermitMessage.normalizeResult(request, { strict: false })
  return Result.mapError(normalized, (e) => new RequestInvalid({ codes: [e.code], detail: e.message }))
}

const checkKeys = (request: PermitRequest, header: string | undefined): Result.Result<void, PermitErrorReason> =>
  header !== undefined && header !== request.idempotencyKey
    ? Result.fail(
      new IdempotencyKeyMismatch({ detail: "the Idempotency-Key header must equal the body idempotencyKey" })
    )
    : Result.void

const checkChecksums = (raw: PermitRequest): Result.Result<void, PermitErrorReason> => {
  const checked = Result.try({
    try: () => PermitMessage.checkChecksums(raw),
    catch: (e) => e as PermitMessage.PermitRequestInvalid
  })
  return Result.mapError(
    checked,
    (e) =>
      new IdentityInvalid({
        side: e.field === "recipient" ? "RECIPIENT" : "PAYER",
        problem: "CHECKSUM_INVALID",
        detail: e.message
      })
  )
}

/**
 * The permit service layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  options?: PermitOptions
): Layer.Layer<
  Permits,
  never,
  Catalog | Publisher | Pricing | Inventory | Store | Signer | ConnectorRegistry | PermitRateLimiter | RouteMetrics
> =>
  Layer.effect(
    Permits,
    Effect.gen(function*() {
      const catalog = yield* Catalog
      const publisher = yield* Publisher
      const pricing = yield* Pricing
      const inventory = yield* Inventory
      const store = yield* Store
      const signer = yield* Signer
      const connectors = yield* ConnectorRegistry
      const limiter = yield* PermitRateLimiter
      const metrics = yield* RouteMetrics
      const entropy = yield* Entropy
      const ttl = Math.max(1, Math.floor(options?.permitTtlSeconds ?? 120))
      const slack = Math.max(0, Math.floor(options?.validAfterSlackSeconds ?? 60))
      const shareOf = (value: number | null | undefined, fallback: number) =>
        value === null ? undefined : Math.min(10_000, Math.max(0, Math.floor(value ?? fallback)))
      const shares = {
        clientBps: shareOf(options?.holdShares?.clientBps, 2500),
        payerBps: shareOf(options?.holdShares?.payerBps, 5000),
        newPayersBps: shareOf(options?.holdShares?.newPayersBps, 5000)
      }
      const inFlight = Idempotency.makeInFlight(Math.max(0, options?.inFlightWaitMillis ?? 5000))
      const identities: Identities.IdentityContext = { catalog, connectors }

      /** The open quote of a request at the current time. */
      const openQuote = (quoteId: string) =>
        Effect.flatMap(
          Effect.mapError(publisher.current, (e) => fail(Checks.publicationReason(e))),
          (publication) =>
            Effect.flatMap(
              Clock.currentTimeMillis,
              (ms) => orFail(Checks.openQuote(publication, quoteId, Math.floor(ms / 1000)))
            )
        )

      /** Checks everything the message and the permit depend on, except the signature. */
      const validate = Effect.fn("Permits.validate")(
        function*(raw: PermitRequest, normalized: PermitMessage.NormalizedPermitRequest) {
          const quote = yield* openQuote(normalized.quoteId)
          const amount = yield* orFail(Checks.checkAmount(normalized, quote.route))
          yield* orFail(checkChecksums(raw))
          const payer = yield* orFail(
            Identities.resolveIdentity(identities, "payer", normalized, quote.route.sourceNetworkId)
          )
          const recipient = yield* orFail(
            Identities.resolveIdentity(identities, "recipient", normalized, quote.route.destinationNetworkId)
          )
          return { ...quote, amount, payer, recipient }
        }
      )

      /** Replays a completed record for the same fingerprint, after re-verifying the signature. */
      const replay = Effect.fn("Permits.replay")(function*(
        existing: PermitRecord,
        fingerprint: string,
        normalized: PermitMessage.NormalizedPermitRequest,
        signature: string | undefined
      ) {
        if (existing.fingerprint !== fingerprint) {
          return yield* fail(
            new IdempotencyConflict({
              detail: "this idempotency key was used for a different request; use a new key for a new intent"
            })
          )
        }
        const envelope = Envelope.envelopeOf(existing)
        if (signature !== undefined) {
          // a replay's signature must still verify: resolve the payer through the registry again
          const payer = yield* orFail(
            Result.mapError(
              Identities.resolveIdentity(identities, "payer", normalized, envelope.permit.sourceNetworkId),
              Identities.asSignatureReason
            )
          )
          yield* Effect.mapError(Identities.verifyProof(payer, PermitMessage.message(normalized), signature), fail)
        }
        return { created: false, envelope, record: existing } satisfies CreateResult
      })

      /** The completed record for a key, after waiting for one in flight (bounded). */
      const lookup = (scope: string, key: string) =>
        Effect.andThen(
          Effect.mapError(inFlight.settle(scope, key), fail),
          Effect.mapError(store.findByIdempotencyKey(scope, key), storeUnavailable)
        ).pipe(Effect.withSpan("Permits.lookup"))

      /** Prices, reserves, signs and stores a validated request. */
      const mint = Effect.fn("Permits.mint")(function*(
        normalized: PermitMessage.NormalizedPermitRequest,
        scope: string,
        fingerprint: string,
        checked: Checks.OpenQuote & {
          readonly amount: bigint
          readonly payer: Identities.Identity
          readonly recipient: Identities.Identity
        },
        opts: CreateOptions | undefined
      ) {
        const { catalogRoute, route } = checked
        if (route.sourceRouter === null) {
          return yield* fail(
            new QuoteNotOpen({
              codes: ["NO_DIRECT_EXECUTION"],
              detail: "direct execution needs an EVM source network with a router"
            })
          )
        }
        const fresh = yield* Effect.mapError(
          pricing.quote(catalogRoute, checked.amount),
          (e) => fail(new Unavailable({ dependency: "PRICING", retryAfterSeconds: 5, detail: e.message }))
        )
        let amountOut = fresh.amountOutRaw
        if (opts?.boundAmountOutRaw === undefined && pricing.quoteToleranceBps !== undefined) {
          // the price moved past tolerance since the feed's indicative terms: the client refreshes
          const promised = linearAmountOut(
            checked.amount,
            BigInt(route.indicativePriceNumeratorRaw),
            BigInt(route.indicativePriceDenominatorRaw),
            route.serviceFeeBps
          )
          if (fresh.amountOutRaw * 10_000n < promised * BigInt(10_000 - pricing.quoteToleranceBps)) {
            return yield* fail(
              new QuoteChanged({
                boundAmountOutRaw: promised.toString(),
                freshAmountOutRaw: fresh.amountOutRaw.toString()
              })
            )
          }
        }
        if (opts?.boundAmountOutRaw !== undefined) {
          if (fresh.amountOutRaw < opts.boundAmountOutRaw) {
            return yield* fail(
              new QuoteChanged({
                boundAmountOutRaw: opts.boundAmountOutRaw.toString(),
                freshAmountOutRaw: fresh.amountOutRaw.toString()
              })
            )
          }
          amountOut = opts.boundAmountOutRaw
        }
        if (amountOut <= 0n) return yield* fail(new AmountTooLow({ code: "PRICES_TO_ZERO" }))
        const snapshot = yield* Effect.mapError(
          inventory.snapshot(route.destinationAssetId.toLowerCase()),
          storeUnavailable
        )
        const nowMs = yield* Clock.currentTimeMillis
        const now = Math.floor(nowMs / 1000)
        const permit = Envelope.buildPermit({
          publication: checked.publication,
          route,
          catalogRoute,
          payer: checked.payer,
          recipient: checked.recipient,
          amountInRaw: checked.amount,
          amountOutRaw: amountOut,
          fillId: toHex(entropy.bytes(32)),
          permitNonce: toHex(entropy.bytes(32)),
          validAfter: Math.max(0, now - slack),
          validUntil: Math.min(route.validUntil, now + ttl)
        })
        const permitDigest = PermitDigest.digest(permit)
        const permitSignature = yield* Effect.mapError(
          signer.signDigest(permitDigest),
          (e) => fail(new Unavailable({ dependency: "SIGNER", retryAfterSeconds: 5, detail: e.message }))
        ).pipe(Effect.withSpan("Permits.sign"))
        const envelope = Envelope.buildEnvelope({
          permit,
          permitDigest,
          permitSignature,
          idempotencyKey: normalized.idempotencyKey,
          route,
          catalogRoute,
          fresh,
          inventory: snapshot
        })
        const valid = Envelope.checkEnvelope(envelope)
        if (Result.isFailure(valid)) {
          return yield* Effect.die(new Error(`built an envelope that fails its schema: ${valid.failure.message}`))
        }
        const record = {
          ...Envelope.recordOf({ envelope, normalized, scope, fingerprint, now: nowMs }),
          clientKey: opts?.clientKey ?? null
        }
        const outcome = yield* Effect.mapError(store.issuePermit(record, shares), storeUnavailable)
        switch (outcome._tag) {
          case "Issued":
            if (!catalogRoute.payoutSupported) {
              yield* Effect.logWarning("permit issued for a route whose destination cannot be paid out").pipe(
                Effect.annotateLogs({ fillId: permit.fillId, routeId: route.routeId, reason: catalogRoute.payoutNote })
              )
            }
            return { created: true, envelope, record: outcome.record } satisfies CreateResult
          case "Duplicate":
            return yield* replay(outcome.existing, fingerprint, normalized, undefined)
          case "InsufficientInventory":
            return yield* fail(
              new InsufficientCapacity({
                code: "INVENTORY_SHORT",
                diagnostics: { availableOutRaw: outcome.availableRaw.toString(), amountOutRaw: permit.amountOutRaw }
              })
            )
          case "UnknownAsset":
            return yield* fail(new InsufficientCapacity({ code: "NO_INVENTORY" }))
          case "HoldShareExceeded":
            return yield* fail(
              new InsufficientCapacity({
                code: outcome.holder === "CLIENT"
                  ? "CLIENT_HOLD_SHARE"
                  : outcome.holder === "PAYER"
                  ? "PAYER_HOLD_SHARE"
                  : "NEW_PAYERS_HOLD_SHARE",
                diagnostics: {
                  heldRaw: outcome.heldRaw.toString(),
                  limitRaw: outcome.limitRaw.toString(),
                  amountOutRaw: permit.amountOutRaw
                }
              })
            )
        }
      })

      /** Rate limit, validation, proof, then minting: the work of a request that holds its key. */
      const issue = Effect.fn("Permits.issue")(function*(
        request: PermitCreateRequest,
        normalized: PermitMessage.NormalizedPermitRequest,
        scope: string,
        fingerprint: string,
        opts: CreateOptions | undefined
      ) {
        if (opts?.clientKey !== undefined && opts.rateLimited !== false) {
          yield* Effect.mapError(limiter.consume(opts.clientKey), (refused) =>
            fail(
              isStoreUnavailable(refused)
                ? new Unavailable({
                  dependency: "RATE_LIMITER",
                  retryAfterSeconds: refused.retryAfterSeconds,
                  detail: "the shared rate-limit store is unavailable"
                })
                : new RateLimited({
                  retryAfterSeconds: refused.retryAfterSeconds,
                  limit: refused.limit,
                  windowSeconds: refused.windowSeconds
                })
            )).pipe(Effect.withSpan("Permits.rateLimit"))
        }
        const checked = yield* validate(request, normalized)
        // counted in memory and flushed with the route metrics: no extra durable write per permit
        metrics.requested(checked.route.routeId)
        yield* Effect.mapError(
          Identities.verifyProof(checked.payer, PermitMessage.message(normalized), request.requestSignature),
          fail
        ).pipe(Effect.withSpan("Permits.verifyProof"))
        return yield* mint(normalized, scope, fingerprint, checked, opts)
      })

      const requestMessage = Effect.fn("Permits.requestMessage")(function*(
        request: PermitRequest,
        opts?: { readonly headerIdempotencyKey?: string | undefined }
      ) {
        yield* orFail(checkKeys(request, opts?.headerIdempotencyKey))
        const normalized = yield* orFail(normalize(request))
        const existing = yield* Effect.mapError(
          store.findByIdempotencyKey(Idempotency.scopeOf(normalized), normalized.idempotencyKey),
          storeUnavailable
        )
        if (existing !== undefined && existing.fingerprint !== PermitMessage.fingerprint(normalized)) {
          return yield* fail(new IdempotencyConflict({}))
        }
        yield* validate(request, normalized)
        return PermitMessage.message(normalized)
      })

      const create = Effect.fn("Permits.create")(function*(request: PermitCreateRequest, opts?: CreateOptions) {
        yield* orFail(checkKeys(request, opts?.headerIdempotencyKey))
        const normalized = yield* orFail(normalize(request))
        const scope = Idempotency.scopeOf(normalized)
        const fingerprint = PermitMessage.fingerprint(normalized)
        // a bounded number of rounds: wait for a request in flight, then claim
        for (let round = 0; round < 3; round++) {
          const existing = yield* lookup(scope, normalized.idempotencyKey)
          if (existing !== undefined) return yield* replay(existing, fingerprint, normalized, request.requestSignature)
          const issued = yield* inFlight.run(
            scope,
            normalized.idempotencyKey,
            issue(request, normalized, scope, fingerprint, opts)
          )
          if (Option.isSome(issued)) return issued.value
        }
        return yield* fail(new IdempotencyInProgress({}))
      })

      const get = Effect.fn("Permits.get")(function*(fillId: string) {
        const record = BYTES32.test(fillId)
          ? yield* Effect.mapError(store.getPermit(fillId.toLowerCase()), storeUnavailable)
          : undefined
        if (record === undefined) return yield* fail(new PermitNotFound({ fillId }))
        return Envelope.envelopeOf(record)
      })

      /** Counts what a create call ended with (issued by route, refusals by reason, failing dependencies). */
      const measured = (request: PermitCreateRequest, opts?: CreateOptions) =>
        create(request, opts).pipe(
          Effect.tap((result) =>
            result.created
              ? Metric.update(Metric.withAttributes(Metrics.permitsIssued, { route: result.record.routeId }), 1)
              : Effect.void
          ),
          Effect.tapError((error) => {
            const reason = error.reason
            const counted = Metric.update(Metric.withAttributes(Metrics.permitRefusals, { reason: reason._tag }), 1)
            if (reason._tag === "RateLimited") {
              return Effect.andThen(
                counted,
                Metric.update(Metric.withAttributes(Metrics.rateLimitRefusals, { limit: "permits" }), 1)
              )
            }
            if (reason._tag === "Unavailable" && reason.dependency === "STORE") {
              return Effect.andThen(
                counted,
                Metric.update(Metric.withAttributes(Metrics.storeErrors, { operation: "permits" }), 1)
              )
            }
            if (reason._tag === "Unavailable" && reason.dependency === "SIGNER") {
              return Effect.andThen(counted, Metric.update(Metrics.signerErrors, 1))
            }
            return counted
          })
        )

      return Permits.of({ requestMessage, create: measured, get })
    })
  )

/**
 * Whether an unknown value is a {@link PermitError}.
 *
 * @category validation
 * @since 0.1.0
 */
export const isPermitError = (u: unknown): u is PermitError => u instanceof PermitError
