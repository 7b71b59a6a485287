/**
 * The permit a request becomes: the ExecutionPermit (what the authority signs),
 * its envelope (what the client receives) and the store record. Pure builders,
 * plus the decoding of a stored envelope.
 *
 * @since 0.1.0
 */
import { type Hex, toHex } from "@svc/protocol/Bytes"
import type * as PermitMessage from "@svc/protocol/PermitMessage"
import type { Route } from "@svc/protocol/schema/Feed"
import { strictParseOptions } from "@svc/protocol/schema/index"
import { type ExecutionPermit, ExecutionPermitEnvelope, type InventorySnapshot } from "@svc/protocol/schema/Permit"
import { Result, Schema } from "effect"
import { getAddress } from "viem"
import { type CatalogRoute, ZERO } from "./Catalog.ts"
import { secure } from "./Entropy.ts"
import type { Identity } from "./PermitIdentities.ts"
import type { FreshQuote } from "./Pricing.ts"
import type { Publication } from "./Publisher.ts"
import type { PermitRecord } from "./Store.ts"

const decodeEnvelope = Schema.decodeUnknownResult(ExecutionPermitEnvelope)

/**
 * 32 random bytes from the platform's secure generator (`Entropy.secure`). The
 * permit service takes its fillIds and permit nonces from the `Entropy`
 * service instead, so that a simulation can seed them.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const randomBytes32 = (): Hex => toHex(secure.bytes(32))

const iso = (ms: number): string => new Date(ms).toISOString()
const checksum = (a: string | null): Hex => getAddress(a ?? ZERO)

/**
 * What a permit is built from.
 *
 * @category models
 * @since 0.1.0
 */
export interface PermitInput {
  readonly publication: Publication
  readonly route: Route
  readonly catalogRoute: CatalogRoute
  readonly payer: Identity
  readonly recipient: Identity
  readonly amountInRaw: bigint
  readonly amountOutRaw: bigint
  readonly fillId: Hex
  readonly permitNonce: Hex
  /** Unix seconds. */
  readonly validAfter: number
  /** Unix seconds. */
  readonly validUntil: number
}

/**
 * The ExecutionPermit of a request: the route's signed terms, the resolved
 * identities, the amounts and the validity window. A non-EVM side's local
 * bindings are the zero address and chain id "0".
 *
 * @category constructors
 * @since 0.1.0
 */
export const buildPermit = (input: PermitInput): ExecutionPermit => {
  const { catalogRoute, route } = input
  return {
    releaseId: input.publication.releaseId,
    fillId: input.fillId,
    permitNonce: input.permitNonce,
    sourceNetworkId: route.sourceNetworkId,
    sourceAssetId: route.sourceAssetId,
    destinationNetworkId: route.destinationNetworkId,
    destinationAssetId: route.destinationAssetId,
    sourceVaultAccountId: catalogRoute.source.network.vaultAccountId,
    destinationVaultAccountId: catalogRoute.destination.network.vaultAccountId,
    payerAccountId: input.payer.accountId,
    recipientAccountId: input.recipient.accountId,
    routeId: route.routeId,
    quoteId: route.quoteId,
    policyHash: route.policyHash,
    executionGeneration: route.executionGeneration,
    dataVersion: route.dataVersion,
    validAfter: String(input.validAfter),
    validUntil: String(input.validUntil),
    sourceFinalityBlocks: route.sourceFinalityBlocks,
    settlementWindowSeconds: route.settlementWindowSeconds,
    sourceChainId: route.sourceChainId ?? "0",
    destinationChainId: route.destinationChainId ?? "0",
    sourceAsset: checksum(route.sourceAsset),
    destinationAsset: checksum(route.destinationAsset),
    sourceVault: checksum(route.sourceVault),
    destinationVault: checksum(route.destinationVault),
    sourceRouter: checksum(route.sourceRouter),
    payer: checksum(input.payer.address),
    recipient: checksum(input.recipient.address),
    amountInRaw: input.amountInRaw.toString(),
    amountOutRaw: input.amountOutRaw.toString(),
    publicationLane: route.publicationLane,
    serviceCategory: route.serviceCategory,
    feeMode: route.feeMode,
    serviceFeeBps: route.serviceFeeBps
  }
}

/**
 * What the envelope adds to a signed permit.
 *
 * @category models
 * @since 0.1.0
 */
export interface EnvelopeInput {
  readonly permit: ExecutionPermit
  readonly permitDigest: Hex
  readonly permitSignature: Hex
  readonly idempotencyKey: string
  readonly route: Route
  readonly catalogRoute: CatalogRoute
  readonly fresh: FreshQuote
  readonly inventory: InventorySnapshot | null
}

/**
 * The envelope of a newly signed permit (state ISSUED, no transaction yet): the
 * direct execution (`fillDirect` on the source router, one transaction) and the
 * pricing evidence of the fresh quote.
 *
 * @category constructors
 * @since 0.1.0
 */
export const buildEnvelope = (input: EnvelopeInput): ExecutionPermitEnvelope => {
  const { catalogRoute, fresh, permit, route } = input
  return {
    fillId: permit.fillId,
    state: "ISSUED",
    idempotencyKey: input.idempotencyKey,
    expiresAt: Number(permit.validUntil),
    permit,
    permitDigest: input.permitDigest,
    permitSignature: input.permitSignature,
    execution: {
      schema: "SVC_V6_DIRECT_EXECUTION_V1",
      target: checksum(route.sourceRouter),
      function: "fillDirect",
      transactionCount: 1,
      inventory: input.inventory,
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
}

/**
 * Whether a built envelope passes its own schema (an envelope that does not is
 * never stored or served).
 *
 * @category constructors
 * @since 0.1.0
 */
export const checkEnvelope = (
  envelope: ExecutionPermitEnvelope
): Result.Result<ExecutionPermitEnvelope, Schema.SchemaError> => decodeEnvelope(envelope, strictParseOptions)

/**
 * What the store keeps of a new permit.
 *
 * @category constructors
 * @since 0.1.0
 */
export const recordOf = (input: {
  readonly envelope: ExecutionPermitEnvelope
  readonly normalized: PermitMessage.NormalizedPermitRequest
  readonly scope: string
  readonly fingerprint: string
  /** Unix milliseconds. */
  readonly now: number
}): PermitRecord => {
  const { envelope, normalized } = input
  const permit = envelope.permit
  return {
    fillId: permit.fillId,
    routeId: permit.routeId,
    quoteId: permit.quoteId,
    assetKey: permit.destinationAssetId.toLowerCase(),
    scope: input.scope,
    idempotencyKey: normalized.idempotencyKey,
    fingerprint: input.fingerprint,
    payerAddress: normalized.payer === null ? null : normalized.payer.toLowerCase(),
    amountInRaw: permit.amountInRaw,
    amountOutRaw: permit.amountOutRaw,
    state: "ISSUED",
    reasonCodes: [],
    sourceTxHash: null,
    payoutTxHash: null,
    validUntil: Number(permit.validUntil),
    createdAt: input.now,
    updatedAt: input.now,
    envelope: JSON.stringify(envelope),
    sourceNetworkId: permit.sourceNetworkId.toLowerCase(),
    destinationNetworkId: permit.destinationNetworkId.toLowerCase()
  }
}

/**
 * The current envelope of a stored permit: the stored envelope with the record's
 * state and transaction hashes. A stored envelope that no longer decodes is a
 * defect (the store is a boundary; it is never served).
 *
 * @category constructors
 * @since 0.1.0
 */
export const envelopeOf = (record: PermitRecord): ExecutionPermitEnvelope => {
  const stored = decodeEnvelope(JSON.parse(record.envelope), strictParseOptions)
  if (Result.isFailure(stored)) {
    throw new Error(`stored permit ${record.fillId} fails its schema: ${stored.failure.message}`)
  }
  return {
    ...stored.success,
    state: record.state,
    sourceTxHash: record.sourceTxHash,
    payoutTxHash: record.payoutTxHash
  }
}
