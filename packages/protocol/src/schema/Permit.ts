/**
 * Execution permits (spec part 2: PermitRequest, PermitRequestMessageResponse,
 * ExecutionPermit, DirectExecution, ExecutionPermitEnvelope, ExecutionPermitResponse,
 * PermitStatusResponse) and the error bodies (ErrorResponse, SseErrorEvent).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import {
  Address,
  Bytes32,
  DateTime,
  IdempotencyKey,
  JsonObject,
  Locator,
  NonNegativeInt,
  PositiveInt,
  PublicationLane,
  Sig65,
  StandardName,
  UintStr,
  UnixSeconds
} from "./Primitives.ts"

const identityFields = {
  quoteId: Bytes32,
  requestedAmountInRaw: UintStr,
  standard: Schema.optionalKey(StandardName),
  payer: Schema.optionalKey(Schema.NullOr(Address)),
  recipient: Schema.optionalKey(Schema.NullOr(Address)),
  payerAccountId: Schema.optionalKey(Schema.NullOr(Bytes32)),
  recipientAccountId: Schema.optionalKey(Schema.NullOr(Bytes32)),
  payerLocator: Schema.optionalKey(Schema.NullOr(Locator)),
  recipientLocator: Schema.optionalKey(Schema.NullOr(Locator)),
  idempotencyKey: IdempotencyKey
}

interface IdentityInput {
  readonly payer?: string | null
  readonly recipient?: string | null
  readonly payerAccountId?: string | null
  readonly recipientAccountId?: string | null
  readonly payerLocator?: unknown
  readonly recipientLocator?: unknown
}

/**
 * The identity rules of a permit request: a side is given either as an address, or
 * as an account id plus a locator; never both forms, never half of the account form.
 * An explicit `null` counts as absent (upstream SDKs send it for the unused form).
 *
 * @category validation
 * @since 0.1.0
 */
export const identityIssues = (request: IdentityInput): Array<{ path: [string]; issue: string }> => {
  const issues: Array<{ path: [string]; issue: string }> = []
  for (const side of ["payer", "recipient"] as const) {
    const S = side.toUpperCase()
    const address = request[side] ?? null
    const accountId = request[`${side}AccountId`] ?? null
    const locator = request[`${side}Locator`] ?? null
    if (address !== null) {
      if (accountId !== null || locator !== null) {
        issues.push({
          path: [side],
          issue: `${S}_IDENTITY_AMBIGUOUS: give either ${side} or ${side}AccountId with ${side}Locator, not both`
        })
      }
    } else if (accountId === null && locator === null) {
      issues.push({
        path: [side],
        issue: `${S}_IDENTITY_MISSING: give ${side}, or ${side}AccountId with ${side}Locator`
      })
    } else if (accountId === null) {
      issues.push({
        path: [`${side}AccountId`],
        issue: `${S}_ACCOUNT_ID_MISSING: ${side}AccountId is required with ${side}Locator`
      })
    } else if (locator === null) {
      issues.push({
        path: [`${side}Locator`],
        issue: `${S}_LOCATOR_MISSING: ${side}Locator is required with ${side}AccountId`
      })
    }
  }
  return issues
}

const identityRule = Schema.makeFilter<IdentityInput>((request) => identityIssues(request), {
  expected: "a payer identity and a recipient identity, each either an address or an account id with a locator"
})

/**
 * Body of `POST /api/v6/execution-permits/request-message`: a permit request
 * without a required signature.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PermitRequest = Schema.Struct({
  ...identityFields,
  requestSignature: Schema.optionalKey(Schema.String)
})
  .check(identityRule)
  .annotate({
    identifier: "PermitRequest",
    description: "Payer identity: payer, or payerAccountId with payerLocator. Recipient identity: recipient, or " +
      "recipientAccountId with recipientLocator. null is accepted as absent for identity fields."
  })
/** @since 0.1.0 */
export type PermitRequest = typeof PermitRequest.Type

/**
 * Body of `POST /api/v6/execution-permits`: a permit request with its
 * requestSignature (an EIP-191 signature, or a connector ownership proof).
 *
 * @category schemas
 * @since 0.1.0
 */
export const PermitCreateRequest = Schema.Struct({
  ...identityFields,
  requestSignature: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(4096))
})
  .check(identityRule)
  .annotate({
    identifier: "PermitCreateRequest",
    description: "PermitRequest with requestSignature required."
  })
/** @since 0.1.0 */
export type PermitCreateRequest = typeof PermitCreateRequest.Type

/**
 * Body of a successful request-message call.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PermitRequestMessageResponse = Schema.Struct({
  ok: Schema.Literal(true),
  message: Schema.String.annotate({ description: "exact deterministic UTF-8 message to sign locally" })
}).annotate({ identifier: "PermitRequestMessageResponse" })
/** @since 0.1.0 */
export type PermitRequestMessageResponse = typeof PermitRequestMessageResponse.Type

/**
 * The signed execution permit (JSON form). Its on-chain tuple has the 31 fields
 * in the ABI order of `PermitAbi`; the last four fields here are JSON-only.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ExecutionPermit = Schema.Struct({
  releaseId: Bytes32,
  fillId: Bytes32,
  permitNonce: Bytes32,
  sourceNetworkId: Bytes32,
  sourceAssetId: Bytes32,
  destinationNetworkId: Bytes32,
  destinationAssetId: Bytes32,
  sourceVaultAccountId: Bytes32,
  destinationVaultAccountId: Bytes32,
  payerAccountId: Bytes32,
  recipientAccountId: Bytes32,
  routeId: Bytes32,
  quoteId: Bytes32,
  policyHash: Bytes32,
  executionGeneration: Bytes32,
  dataVersion: UintStr,
  validAfter: UintStr,
  validUntil: UintStr,
  sourceFinalityBlocks: PositiveInt,
  settlementWindowSeconds: PositiveInt,
  sourceChainId: UintStr,
  destinationChainId: UintStr,
  sourceAsset: Address,
  destinationAsset: Address,
  sourceVault: Address,
  destinationVault: Address,
  sourceRouter: Address,
  payer: Address,
  recipient: Address,
  amountInRaw: UintStr,
  amountOutRaw: UintStr,
  publicationLane: PublicationLane,
  serviceCategory: Schema.String,
  feeMode: Schema.String,
  serviceFeeBps: Schema.NullOr(Schema.Finite)
}).annotate({ identifier: "ExecutionPermit" })
/** @since 0.1.0 */
export type ExecutionPermit = typeof ExecutionPermit.Type

/**
 * The persisted inventory snapshot behind a permit.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InventorySnapshot = Schema.Struct({
  source: Schema.Literal("V6_PERSISTED_INVENTORY_SNAPSHOT"),
  snapshotId: Schema.String,
  capturedAt: DateTime,
  ageMs: NonNegativeInt,
  physicalRaw: UintStr,
  effectiveLiabilityRaw: UintStr,
  effectiveAccountingHoldRaw: UintStr,
  activeClearingCommitmentRaw: UintStr
}).annotate({ identifier: "InventorySnapshot" })
/** @since 0.1.0 */
export type InventorySnapshot = typeof InventorySnapshot.Type

/**
 * The fresh amount-bound pricing behind a permit.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PermitPricing = Schema.Struct({
  pricingMode: Schema.Literal("FRESH_AMOUNT_BOUND"),
  modelVersion: Schema.NullOr(Schema.String),
  pricingReferenceId: Bytes32,
  publicationLane: PublicationLane,
  serviceCategory: Schema.String,
  feeMode: Schema.String,
  serviceFeeBps: Schema.NullOr(Schema.Finite),
  snapshotId: Schema.String,
  routeSnapshotId: Schema.NullOr(Schema.String),
  quoteObservedAt: DateTime,
  pricingCycleId: Schema.String,
  pricingCycleObservedAt: Schema.NullOr(DateTime),
  pricingCycleValidUntil: DateTime,
  payoutEconomicCeilingRequired: Schema.Boolean,
  payoutEconomicCeiling: Schema.NullOr(JsonObject),
  evidence: JsonObject,
  executionCapacity: JsonObject
}).annotate({ identifier: "PermitPricing" })
/** @since 0.1.0 */
export type PermitPricing = typeof PermitPricing.Type

/**
 * How the permit executes: one `fillDirect` call on the target.
 *
 * @category schemas
 * @since 0.1.0
 */
export const DirectExecution = Schema.Struct({
  schema: Schema.Literal("SVC_V6_DIRECT_EXECUTION_V1"),
  target: Address,
  function: Schema.Literal("fillDirect"),
  transactionCount: Schema.Literal(1),
  inventory: Schema.NullOr(InventorySnapshot),
  pricing: PermitPricing
}).annotate({ identifier: "DirectExecution" })
/** @since 0.1.0 */
export type DirectExecution = typeof DirectExecution.Type

/**
 * A permit with its digest, signature, execution and fill state.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ExecutionPermitEnvelope = Schema.Struct({
  fillId: Bytes32,
  state: Schema.String,
  idempotencyKey: Schema.String,
  expiresAt: UnixSeconds,
  permit: ExecutionPermit,
  permitDigest: Bytes32,
  permitSignature: Sig65,
  execution: DirectExecution,
  totalTransactionCount: Schema.Literal(2),
  sourceTxHash: Schema.NullOr(Bytes32),
  payoutTxHash: Schema.NullOr(Bytes32),
  publicationLane: PublicationLane,
  serviceCategory: Schema.String,
  feeMode: Schema.String,
  serviceFeeBps: Schema.NullOr(Schema.Finite)
}).annotate({ identifier: "ExecutionPermitEnvelope" })
/** @since 0.1.0 */
export type ExecutionPermitEnvelope = typeof ExecutionPermitEnvelope.Type

/**
 * Body of `POST /api/v6/execution-permits` (201 new, 200 idempotent replay).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ExecutionPermitResponse = Schema.Struct({
  ok: Schema.Literal(true),
  idempotent: Schema.Boolean,
  permit: ExecutionPermitEnvelope
}).annotate({ identifier: "ExecutionPermitResponse" })
/** @since 0.1.0 */
export type ExecutionPermitResponse = typeof ExecutionPermitResponse.Type

/**
 * Body of `GET /api/v6/execution-permits/{fillId}`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PermitStatusResponse = Schema.Struct({
  ok: Schema.Literal(true),
  permit: ExecutionPermitEnvelope
}).annotate({ identifier: "PermitStatusResponse" })
/** @since 0.1.0 */
export type PermitStatusResponse = typeof PermitStatusResponse.Type

/**
 * The error body of every solver operation.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ErrorResponse = Schema.Struct({
  ok: Schema.Literal(false),
  error: Schema.String,
  reasonCodes: Schema.optionalKey(Schema.Array(Schema.String)),
  diagnostics: Schema.optionalKey(Schema.NullOr(JsonObject))
}).annotate({ identifier: "ErrorResponse" })
/** @since 0.1.0 */
export type ErrorResponse = typeof ErrorResponse.Type

/**
 * Data of the `error` and `publication-closed` stream events.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SseErrorEvent = Schema.Struct({
  error: Schema.String
}).annotate({ identifier: "SseErrorEvent" })
/** @since 0.1.0 */
export type SseErrorEvent = typeof SseErrorEvent.Type
