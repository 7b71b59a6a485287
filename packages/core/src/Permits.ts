/**
 * Execution permits: the request message, creation with fresh amount-bound
 * repricing, reservation and signing, idempotency, and status.
 *
 * Order of checks of {@link PermitsShape.create} (the first failing check answers):
 *
 * 1. header/body idempotency key mismatch -> 400 IDEMPOTENCY_KEY_MISMATCH
 * 2. idempotency lookup (keys are scoped per payer identity): a completed request
 *    with the same fingerprint replays 200 with the stored envelope (even after
 *    expiry or under rate limiting; its signature must still verify); another
 *    fingerprint -> 409 IDEMPOTENCY_CONFLICT; a request still in flight is waited
 *    for (bounded) and replayed, or -> 409 IDEMPOTENCY_IN_PROGRESS
 * 3. rate limit -> 429 RATE_LIMITED
 * 4. publication closed or unavailable -> 503; quote unknown, not open or expired -> 410 QUOTE_NOT_OPEN
 * 5. amount: 0 or >= 2^128 -> 400 AMOUNT_INVALID; below minimumFillInRaw -> 400
 *    AMOUNT_TOO_LOW; above maxAvailableInRaw -> 409 INSUFFICIENT_CAPACITY; standard
 *    other than DIRECT / ERC-7683 -> 400 UNSUPPORTED_STANDARD
 * 6. identities (payer on the route's source network, recipient on its
 *    destination network, each in the address form or the account + locator
 *    form, resolved through the connector registry: no connector, an invalid or
 *    non-canonical locator, an accountId that is not the locator's) -> 400 IDENTITY_INVALID
 * 7. ownership proof of the payer over the exact message, verified by the
 *    payer network's connector -> 400 SIGNATURE_INVALID (503 AUTHORITY_UNAVAILABLE
 *    when the connector cannot decide, e.g. its RPC endpoint is down)
 * 8. fresh price (against a bound amountOut when given: 409 QUOTE_CHANGED),
 *    inventory reservation (409 INSUFFICIENT_CAPACITY), fillId and permitNonce
 *    from a CSPRNG, permitDigest signed by the authority, durable insert -> 201.
 *
 * The request-message operation runs every check except the rate limit, the
 * signature, the key claim and the reservation.
 *
 * @since 0.1.0
 */
import { Clock, Context, Deferred, Effect, Layer, Option, Result, Schema } from "effect"
import { getAddress } from "viem"
import { Catalog, type CatalogRoute, type Network, ZERO } from "./Catalog.ts"
import { accountIdOf, type Connector, ConnectorRegistry, sameLocator } from "./Connector.ts"
import { type SolverError, solverError } from "./Errors.ts"
import { EVM_VM_TYPE } from "@svc/protocol/Ids"
import { type Hex, toHex } from "@svc/protocol/Bytes"
import { Inventory } from "./Inventory.ts"
import * as PermitDigest from "@svc/protocol/PermitDigest"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import { Pricing } from "./Pricing.ts"
import { type Publication, Publisher } from "./Publisher.ts"
import { PermitRateLimiter } from "./RateLimit.ts"
import { RouteMetricsService } from "./RouteMetrics.ts"
import type { Route } from "@svc/protocol/schema/Feed"
import { strictParseOptions } from "@svc/protocol/schema/index"
import {
  type ExecutionPermit,
  ExecutionPermitEnvelope,
  type PermitCreateRequest,
  type PermitRequest
} from "@svc/protocol/schema/Permit"
import type { Locator } from "@svc/protocol/schema/Primitives"
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
  /** The rate-limit key of the client (for example its address). */
  readonly clientKey?: string | undefined
  /**
   * An amountOut the caller displayed (an aggregator quote): the permit is issued
   * at exactly this amount when the fresh price covers it, else 409 QUOTE_CHANGED.
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
  ) => Effect.Effect<string, SolverError>
  /** Creates a permit, or replays the one created for the same request and key. */
  readonly create: (request: PermitCreateRequest, options?: CreateOptions) => Effect.Effect<CreateResult, SolverError>
  /** The current envelope of a permit. */
  readonly get: (fillId: string) => Effect.Effect<ExecutionPermitEnvelope, SolverError>
}

/**
 * The permit service.
 *
 * @category services
 * @since 0.1.0
 */
export class Permits extends Context.Service<Permits, PermitsShape>()("@svc/core/Permits") {}

/**
 * The envelope of a record: the stored envelope with the current state and
 * transaction hashes.
 *
 * @category envelopes
 * @since 0.1.0
 */
export const envelopeOf = (record: PermitRecord): ExecutionPermitEnvelope => {
  // the store is a boundary: a stored envelope that no longer decodes is a defect (500), never served
  const stored = decodeEnvelope(JSON.parse(record.envelope), strictParseOptions)
  if (Result.isFailure(stored)) throw new Error(`stored permit ${record.fillId} fails its schema: ${stored.failure.message}`)
  return { ...stored.success, state: record.state, sourceTxHash: record.sourceTxHash, payoutTxHash: record.payoutTxHash }
}

/**
 * The idempotency scope of a request: its payer identity.
 *
 * @category idempotency
 * @since 0.1.0
 */
export const scopeOf = (request: PermitMessage.NormalizedPermitRequest): string =>
  request.payer !== null ? `address:${request.payer.toLowerCase()}` : `account:${request.payerAccountId}`

const SUPPORTED_STANDARDS: ReadonlySet<string> = new Set(PermitMessage.SUPPORTED_STANDARDS)
const decodeEnvelope = Schema.decodeUnknownResult(ExecutionPermitEnvelope)

const randomBytes32 = (): Hex => {
  const bytes = new Uint8Array(32)
  globalThis.crypto.getRandomValues(bytes)
  return toHex(bytes)
}

const iso = (ms: number): string => new Date(ms).toISOString()

interface Identity {
  readonly accountId: Hex
  readonly address: Hex | null
  readonly locator: Locator
  readonly connector: Connector
  readonly network: Network
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
  Catalog | Publisher | Pricing | Inventory | Store | Signer | ConnectorRegistry | PermitRateLimiter | RouteMetricsService
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
      const metrics = yield* RouteMetricsService
      const ttl = Math.max(1, Math.floor(options?.permitTtlSeconds ?? 120))
      const waitMillis = Math.max(0, options?.inFlightWaitMillis ?? 5000)
      const inFlight = new Map<string, Deferred.Deferred<void>>()

      const storeFailure = (e: { readonly message: string }) =>
        solverError("AUTHORITY_UNAVAILABLE", ["STORE_UNAVAILABLE"], { detail: e.message, retryAfterSeconds: 1 })

      const normalize = (request: PermitRequest) =>
        Effect.try({
          try: () => PermitMessage.normalize(request, { strict: false }),
          catch: (e) =>
            e instanceof PermitMessage.PermitRequestInvalid
              ? solverError("INVALID_REQUEST", [e.code], { detail: e.message })
              : solverError("INVALID_REQUEST", ["REQUEST_INVALID"], { detail: String(e) })
        })

      const checkKeys = (request: PermitRequest, header: string | undefined) =>
        header !== undefined && header !== request.idempotencyKey
          ? Effect.fail(solverError("IDEMPOTENCY_KEY_MISMATCH", ["IDEMPOTENCY_KEY_HEADER_MISMATCH"], {
            detail: "the Idempotency-Key header must equal the body idempotencyKey"
          }))
          : Effect.void

      /** The route of a quote in the current publication, when open. */
      const openQuote = (quoteId: string) =>
        Effect.gen(function*() {
          const publication = yield* publisher.current.pipe(
            Effect.mapError((e) =>
              e.closed
                ? solverError("PUBLICATION_CLOSED", ["PUBLICATION_CLOSED"], { detail: e.reason, retryAfterSeconds: 30 })
                : solverError("AUTHORITY_UNAVAILABLE", ["PUBLICATION_UNAVAILABLE"], { detail: e.reason, retryAfterSeconds: 5 })
            )
          )
          const index = publication.routeIndexByQuote.get(quoteId.toLowerCase())
          if (index === undefined) {
            return yield* solverError("QUOTE_NOT_OPEN", ["QUOTE_UNKNOWN"], {
              detail: "no route of the active signed feed has this quoteId"
            })
          }
          const route = publication.routes[index]!
          const catalogRoute = publication.catalogRoutes[index]!
          const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          if (now >= route.validUntil) return yield* solverError("QUOTE_NOT_OPEN", ["QUOTE_EXPIRED"])
          if (!route.open) {
            const reasons: Array<string> = []
            if (route.executionStatus !== "OPEN") reasons.push(`ROUTE_${route.executionStatus}`)
            if (route.dailyStatus !== "OPEN") reasons.push("ROUTE_DAILY_CLOSED")
            if (!route.permitAvailable) {
              reasons.push("PERMIT_UNAVAILABLE")
              const { destination, source } = catalogRoute
              if (source.network.capabilities === null) reasons.push("PAYER_NO_CONNECTOR")
              else if (!source.network.capabilities.payer) reasons.push("PAYER_NOT_SUPPORTED")
              if (destination.network.capabilities === null) reasons.push("RECIPIENT_NO_CONNECTOR")
              else if (!destination.network.capabilities.recipient) reasons.push("RECIPIENT_NOT_SUPPORTED")
              else if (!catalogRoute.payoutSupported) reasons.push("PAYOUT_UNSUPPORTED")
              if (source.network.router === null) reasons.push("NO_DIRECT_EXECUTION")
            }
            if (BigInt(route.maxAvailableInRaw) < BigInt(route.minimumFillInRaw)) reasons.push("ROUTE_CAPACITY_EXHAUSTED")
            if (now < route.validAfter) reasons.push("QUOTE_NOT_YET_VALID")
            return yield* solverError("QUOTE_NOT_OPEN", reasons.length > 0 ? reasons : ["ROUTE_NOT_OPEN"])
          }
          return { publication, route, catalogRoute, now }
        })

      const checkAmount = (request: PermitMessage.NormalizedPermitRequest, route: Route) =>
        Effect.gen(function*() {
          yield* Effect.try({
            try: () => PermitMessage.checkAmount(request),
            catch: (e) => solverError("AMOUNT_INVALID", [(e as PermitMessage.PermitRequestInvalid).code])
          })
          const amount = BigInt(request.requestedAmountInRaw)
          if (amount < BigInt(route.minimumFillInRaw)) {
            return yield* solverError("AMOUNT_TOO_LOW", ["BELOW_MINIMUM_FILL"], {
              diagnostics: { minimumFillInRaw: route.minimumFillInRaw }
            })
          }
          if (amount > BigInt(route.maxAvailableInRaw)) {
            return yield* solverError("INSUFFICIENT_CAPACITY", ["ABOVE_MAX_AVAILABLE"], {
              diagnostics: { maxAvailableInRaw: route.maxAvailableInRaw }
            })
          }
          if (!SUPPORTED_STANDARDS.has(request.standard)) {
            return yield* solverError("UNSUPPORTED_STANDARD", ["STANDARD_NOT_SUPPORTED"], {
              detail: `supported: ${PermitMessage.SUPPORTED_STANDARDS.join(", ")}`
            })
          }
          return amount
        })

      /** The connector of a network of the catalog, if one is registered. */
      const connectorOf = (network: Network) => connectors.forNetwork({ vmType: network.vmType, networkId: network.networkId })

      const resolveIdentity = (
        side: "payer" | "recipient",
        request: PermitMessage.NormalizedPermitRequest,
        networkId: Hex
      ): Effect.Effect<Identity, SolverError> =>
        Effect.gen(function*() {
          const S = side.toUpperCase()
          const network = catalog.network(networkId)
          if (network === undefined) return yield* solverError("IDENTITY_INVALID", [`${S}_NETWORK_UNKNOWN`])
          const connector = connectorOf(network)
          if (Option.isNone(connector)) {
            return yield* solverError("IDENTITY_INVALID", [`${S}_NO_CONNECTOR`], {
              detail: `no connector is registered for the ${network.vm} network ${network.name}`
            })
          }
          const c = connector.value
          if (side === "payer" ? !c.capabilities.payer : !c.capabilities.recipient) {
            return yield* solverError("IDENTITY_INVALID", [`${S}_NOT_SUPPORTED`], {
              detail: `the ${c.family} connector does not support ${side} identities`
            })
          }
          const address = request[side]
          if (address !== null && c.vmType !== EVM_VM_TYPE) {
            return yield* solverError("IDENTITY_INVALID", [`${S}_WRONG_NETWORK`], {
              detail: `${side} is an EVM address but the route's ${side === "payer" ? "source" : "destination"} network is ${network.vm}; give ${side}AccountId and ${side}Locator`
            })
          }
          const given: unknown = address !== null ? address : request[`${side}Locator`]
          const locator = c.parseLocator(given)
          if (Result.isFailure(locator)) {
            return yield* solverError("IDENTITY_INVALID", [`${S}_${locator.failure.code}`], { detail: locator.failure.message })
          }
          const requestLocator = request[`${side}Locator`]
          if (address === null && requestLocator !== null && !sameLocator(requestLocator, locator.success)) {
            // the message carries the locator as given: only its canonical form is accepted
            return yield* solverError("IDENTITY_INVALID", [`${S}_LOCATOR_NOT_CANONICAL`], {
              detail: `${side}Locator must be given in its canonical form`,
              diagnostics: { canonicalLocator: locator.success }
            })
          }
          const accountId = accountIdOf(c, networkId, locator.success)
          if (Result.isFailure(accountId)) {
            return yield* solverError("IDENTITY_INVALID", [`${S}_${accountId.failure.code}`], { detail: accountId.failure.message })
          }
          const claimed = request[`${side}AccountId`]
          if (claimed !== null && claimed.toLowerCase() !== accountId.success) {
            return yield* solverError("IDENTITY_INVALID", [`${S}_ACCOUNT_ID_MISMATCH`], {
              detail: `${side}AccountId is not the account id of ${side}Locator on the route's ${side === "payer" ? "source" : "destination"} network`
            })
          }
          return {
            accountId: accountId.success,
            address: c.evmAddress(locator.success),
            locator: locator.success,
            connector: c,
            network
          }
        })

      /** Checks everything the message and the permit depend on, except the signature. */
      const validate = (raw: PermitRequest, normalized: PermitMessage.NormalizedPermitRequest) =>
        Effect.gen(function*() {
          const quote = yield* openQuote(normalized.quoteId)
          const amount = yield* checkAmount(normalized, quote.route)
          yield* Effect.try({
            try: () => PermitMessage.checkChecksums(raw),
            catch: (e) => solverError("IDENTITY_INVALID", [(e as PermitMessage.PermitRequestInvalid).code])
          })
          const payer = yield* resolveIdentity("payer", normalized, quote.route.sourceNetworkId as Hex)
          const recipient = yield* resolveIdentity("recipient", normalized, quote.route.destinationNetworkId as Hex)
          return { ...quote, amount, payer, recipient }
        })

      const verifyProof = (identity: Identity, message: string, proof: string) =>
        Effect.gen(function*() {
          if (identity.network.native === null) {
            return yield* solverError("SIGNATURE_INVALID", ["PAYER_NETWORK_UNRESOLVED"], {
              detail: `the network ${identity.network.name} has no native reference for its connector`
            })
          }
          return yield* identity.connector.verifyOwnership({
            network: { networkId: identity.network.networkId, native: identity.network.native },
            locator: identity.locator,
            message,
            proof
          }).pipe(
            Effect.mapError((e) =>
              e._tag === "ConnectorUnavailable"
                ? solverError("AUTHORITY_UNAVAILABLE", [e.code], { detail: e.message, retryAfterSeconds: 5 })
                : solverError("SIGNATURE_INVALID", [e.code], { detail: e.message })
            )
          )
        })

      /** Replays a completed record for the same fingerprint, after re-verifying the signature. */
      const replay = (
        existing: PermitRecord,
        fingerprint: string,
        normalized: PermitMessage.NormalizedPermitRequest,
        signature: string | undefined
      ) =>
        Effect.gen(function*() {
          if (existing.fingerprint !== fingerprint) {
            return yield* solverError("IDEMPOTENCY_CONFLICT", ["IDEMPOTENCY_KEY_REUSED"], {
              detail: "this idempotency key was used for a different request; use a new key for a new intent"
            })
          }
          const envelope = envelopeOf(existing)
          if (signature !== undefined) {
            // a replay's signature must still verify: resolve the payer through the registry again
            const payer = yield* resolveIdentity("payer", normalized, envelope.permit.sourceNetworkId as Hex).pipe(
              Effect.mapError((e) => solverError("SIGNATURE_INVALID", e.reasonCodes, { detail: e.detail ?? e.message }))
            )
            yield* verifyProof(payer, PermitMessage.message(normalized), signature)
          }
          return { created: false, envelope, record: existing }
        })

      /** The completed record for a key, waiting for one in flight (bounded). */
      const lookup = (scope: string, key: string) =>
        Effect.gen(function*() {
          const slot = `${scope}\u0000${key}`
          const pending = inFlight.get(slot)
          if (pending !== undefined) {
            const done = yield* Deferred.await(pending).pipe(Effect.timeoutOption(waitMillis))
            if (Option.isNone(done)) {
              return yield* solverError("IDEMPOTENCY_IN_PROGRESS", ["IDEMPOTENCY_KEY_IN_FLIGHT"], {
                detail: "a request with this key is still being processed; retry the identical request",
                retryAfterSeconds: 1
              })
            }
          }
          return yield* store.findByIdempotencyKey(scope, key).pipe(Effect.mapError(storeFailure))
        })

      const requestMessage: PermitsShape["requestMessage"] = (request, opts) =>
        Effect.gen(function*() {
          yield* checkKeys(request, opts?.headerIdempotencyKey)
          const normalized = yield* normalize(request)
          const existing = yield* store.findByIdempotencyKey(scopeOf(normalized), normalized.idempotencyKey).pipe(
            Effect.mapError(storeFailure)
          )
          if (existing !== undefined && existing.fingerprint !== PermitMessage.fingerprint(normalized)) {
            return yield* solverError("IDEMPOTENCY_CONFLICT", ["IDEMPOTENCY_KEY_REUSED"])
          }
          yield* validate(request, normalized)
          return PermitMessage.message(normalized)
        })

      const issue = (
        request: PermitCreateRequest,
        normalized: PermitMessage.NormalizedPermitRequest,
        scope: string,
        fingerprint: string,
        opts: CreateOptions | undefined
      ) =>
        Effect.gen(function*() {
          if (opts?.clientKey !== undefined) {
            yield* limiter.consume(opts.clientKey).pipe(
              Effect.mapError((limited) =>
                solverError("RATE_LIMITED", ["PERMIT_RATE_LIMITED"], {
                  retryAfterSeconds: limited.retryAfterSeconds,
                  diagnostics: { limit: limited.limit, windowSeconds: limited.windowSeconds }
                })
              )
            )
          }
          const checked = yield* validate(request, normalized)
          // counted in memory and flushed with the route metrics: no extra durable write per permit
          metrics.requested(checked.route.routeId)
          const message = PermitMessage.message(normalized)
          yield* verifyProof(checked.payer, message, request.requestSignature)
          return yield* mint(normalized, scope, fingerprint, checked, opts)
        })

      const mint = (
        normalized: PermitMessage.NormalizedPermitRequest,
        scope: string,
        fingerprint: string,
        checked: {
          readonly publication: Publication
          readonly route: Route
          readonly catalogRoute: CatalogRoute
          readonly now: number
          readonly amount: bigint
          readonly payer: Identity
          readonly recipient: Identity
        },
        opts: CreateOptions | undefined
      ) =>
        Effect.gen(function*() {
          const { catalogRoute, publication, route } = checked
          if (route.sourceRouter === null) {
            return yield* solverError("QUOTE_NOT_OPEN", ["NO_DIRECT_EXECUTION"], {
              detail: "direct execution needs an EVM source network with a router"
            })
          }
          const fresh = yield* pricing.quote(catalogRoute, checked.amount).pipe(
            Effect.mapError((e) => solverError("AUTHORITY_UNAVAILABLE", ["PRICING_UNAVAILABLE"], { detail: e.message, retryAfterSeconds: 5 }))
          )
          let amountOut = fresh.amountOutRaw
          if (opts?.boundAmountOutRaw !== undefined) {
            if (fresh.amountOutRaw < opts.boundAmountOutRaw) {
              return yield* solverError("QUOTE_CHANGED", ["PRICE_MOVED"], {
                diagnostics: { boundAmountOutRaw: opts.boundAmountOutRaw.toString(), freshAmountOutRaw: fresh.amountOutRaw.toString() }
              })
            }
            amountOut = opts.boundAmountOutRaw
          }
          if (amountOut <= 0n) return yield* solverError("AMOUNT_TOO_LOW", ["PRICES_TO_ZERO"])
          const assetKey = route.destinationAssetId.toLowerCase()
          const snapshot = yield* inventory.snapshot(assetKey).pipe(Effect.mapError(storeFailure))
          const nowMs = yield* Clock.currentTimeMillis
          const now = Math.floor(nowMs / 1000)
          const validUntil = Math.min(route.validUntil, now + ttl)
          const fillId = randomBytes32()
          const checksum = (a: string | null) => getAddress(a ?? ZERO)
          const permit: ExecutionPermit = {
            releaseId: publication.releaseId,
            fillId,
            permitNonce: randomBytes32(),
            sourceNetworkId: route.sourceNetworkId,
            sourceAssetId: route.sourceAssetId,
            destinationNetworkId: route.destinationNetworkId,
            destinationAssetId: route.destinationAssetId,
            sourceVaultAccountId: catalogRoute.source.network.vaultAccountId,
            destinationVaultAccountId: catalogRoute.destination.network.vaultAccountId,
            payerAccountId: checked.payer.accountId,
            recipientAccountId: checked.recipient.accountId,
            routeId: route.routeId,
            quoteId: route.quoteId,
            policyHash: route.policyHash,
            executionGeneration: route.executionGeneration,
            dataVersion: route.dataVersion,
            validAfter: String(now),
            validUntil: String(validUntil),
            sourceFinalityBlocks: route.sourceFinalityBlocks,
            settlementWindowSeconds: route.settlementWindowSeconds,
            sourceChainId: route.sourceChainId ?? "0",
            destinationChainId: route.destinationChainId ?? "0",
            sourceAsset: checksum(route.sourceAsset),
            destinationAsset: checksum(route.destinationAsset),
            sourceVault: checksum(route.sourceVault),
            destinationVault: checksum(route.destinationVault),
            sourceRouter: checksum(route.sourceRouter),
            payer: checksum(checked.payer.address),
            recipient: checksum(checked.recipient.address),
            amountInRaw: checked.amount.toString(),
            amountOutRaw: amountOut.toString(),
            publicationLane: route.publicationLane,
            serviceCategory: route.serviceCategory,
            feeMode: route.feeMode,
            serviceFeeBps: route.serviceFeeBps
          }
          const permitDigest = PermitDigest.digest(permit)
          const permitSignature = yield* signer.signDigest(permitDigest).pipe(
            Effect.mapError((e) => solverError("AUTHORITY_UNAVAILABLE", ["SIGNER_UNAVAILABLE"], { detail: e.message, retryAfterSeconds: 5 }))
          )
          const envelope: ExecutionPermitEnvelope = {
            fillId,
            state: "ISSUED",
            idempotencyKey: normalized.idempotencyKey,
            expiresAt: validUntil,
            permit,
            permitDigest,
            permitSignature,
            execution: {
              schema: "SVC_V6_DIRECT_EXECUTION_V1",
              target: checksum(route.sourceRouter),
              function: "fillDirect",
              transactionCount: 1,
              inventory: snapshot,
              pricing: {
                pricingMode: "FRESH_AMOUNT_BOUND",
                modelVersion: fresh.modelVersion,
                pricingReferenceId: fresh.pricingReferenceId,
                publicationLane: route.publicationLane,
                serviceCategory: route.serviceCategory,
                feeMode: route.feeMode,
                serviceFeeBps: route.serviceFeeBps,
                snapshotId: fresh.snapshotId,
                routeSnapshotId: fresh.routeSnapshotId,
                quoteObservedAt: iso(fresh.quoteObservedAt),
                pricingCycleId: fresh.pricingCycleId,
                pricingCycleObservedAt: fresh.pricingCycleObservedAt === null ? null : iso(fresh.pricingCycleObservedAt),
                pricingCycleValidUntil: iso(fresh.pricingCycleValidUntil),
                payoutEconomicCeilingRequired: fresh.payoutEconomicCeilingRequired,
                payoutEconomicCeiling: fresh.payoutEconomicCeiling,
                evidence: fresh.evidence,
                executionCapacity: catalogRoute.payoutSupported ? fresh.executionCapacity : {
                  ...fresh.executionCapacity,
                  payout: { supported: false, reasonCode: "PAYOUT_UNSUPPORTED", detail: catalogRoute.payoutNote }
                }
              }
            },
            totalTransactionCount: 2,
            sourceTxHash: null,
            payoutTxHash: null,
            publicationLane: route.publicationLane,
            serviceCategory: route.serviceCategory,
            feeMode: route.feeMode,
            serviceFeeBps: route.serviceFeeBps
          }
          const valid = decodeEnvelope(envelope, strictParseOptions)
          if (Result.isFailure(valid)) {
            return yield* Effect.die(new Error(`built an envelope that fails its schema: ${valid.failure.message}`))
          }
          const record: PermitRecord = {
            fillId,
            routeId: route.routeId,
            quoteId: route.quoteId,
            assetKey,
            scope,
            idempotencyKey: normalized.idempotencyKey,
            fingerprint,
            payerAddress: normalized.payer === null ? null : normalized.payer.toLowerCase(),
            amountInRaw: permit.amountInRaw,
            amountOutRaw: permit.amountOutRaw,
            state: "ISSUED",
            reasonCodes: [],
            sourceTxHash: null,
            payoutTxHash: null,
            validUntil,
            createdAt: nowMs,
            updatedAt: nowMs,
            envelope: JSON.stringify(envelope)
          }
          const outcome = yield* store.issuePermit(record).pipe(Effect.mapError(storeFailure))
          switch (outcome._tag) {
            case "Issued":
              if (!catalogRoute.payoutSupported) {
                yield* Effect.logWarning("permit issued for a route whose destination cannot be paid out").pipe(
                  Effect.annotateLogs({ fillId, routeId: route.routeId, reason: catalogRoute.payoutNote })
                )
              }
              return { created: true, envelope, record: outcome.record }
            case "Duplicate":
              return yield* replay(outcome.existing, fingerprint, normalized, undefined)
            case "InsufficientInventory":
              return yield* solverError("INSUFFICIENT_CAPACITY", ["INVENTORY_SHORT"], {
                diagnostics: { availableOutRaw: outcome.availableRaw.toString(), amountOutRaw: permit.amountOutRaw }
              })
            case "UnknownAsset":
              return yield* solverError("INSUFFICIENT_CAPACITY", ["NO_INVENTORY"])
          }
        })

      const create: PermitsShape["create"] = (request, opts) =>
        Effect.gen(function*() {
          yield* checkKeys(request, opts?.headerIdempotencyKey)
          const normalized = yield* normalize(request)
          const scope = scopeOf(normalized)
          const fingerprint = PermitMessage.fingerprint(normalized)
          const slot = `${scope}\u0000${normalized.idempotencyKey}`
          // a bounded number of rounds: wait for a request in flight, then claim
          for (let round = 0; round < 3; round++) {
            const existing = yield* lookup(scope, normalized.idempotencyKey)
            if (existing !== undefined) return yield* replay(existing, fingerprint, normalized, request.requestSignature)
            if (inFlight.has(slot)) continue
            const done = yield* Deferred.make<void>()
            inFlight.set(slot, done)
            return yield* issue(request, normalized, scope, fingerprint, opts).pipe(
              Effect.ensuring(Effect.suspend(() => {
                inFlight.delete(slot)
                return Deferred.succeed(done, undefined)
              }))
            )
          }
          return yield* solverError("IDEMPOTENCY_IN_PROGRESS", ["IDEMPOTENCY_KEY_IN_FLIGHT"], { retryAfterSeconds: 1 })
        })

      const get: PermitsShape["get"] = (fillId) =>
        Effect.gen(function*() {
          const record = /^0x[0-9a-fA-F]{64}$/.test(fillId)
            ? yield* store.getPermit(fillId.toLowerCase()).pipe(Effect.mapError(storeFailure))
            : undefined
          if (record === undefined) return yield* solverError("PERMIT_NOT_FOUND", ["PERMIT_NOT_FOUND"])
          return envelopeOf(record)
        })

      return Permits.of({ requestMessage, create, get })
    })
  )
