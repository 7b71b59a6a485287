/**
 * The failures of the permit service, as one tagged error ({@link PermitError})
 * with a typed reason: an embedder catches a quote that closed with
 * `Effect.catchReason("PermitError", "QuoteNotOpen", ...)`, reads the typed
 * reason codes that refine it, and never sees an HTTP status. The server maps
 * each reason to its documented status and error code (`@svc/server` SolverErrors);
 * docs/errors.md lists every code from the tables below.
 *
 * Every reason carries `reasonCodes` (stable SCREAMING_SNAKE_CASE values from the
 * tables of this module, or a connector's own code), an optional `detail` meant
 * for operators and logs, and `isRetryable`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

const ReasonTypeId = "~@svc/core/PermitError/Reason" as const

/**
 * A table of reason codes with their meaning: the codes are the type, the
 * meanings document them (docs/errors.md is built from these tables).
 *
 * @category models
 * @since 0.1.0
 */
export type CodeTable = Readonly<Record<string, string>>

const literalsOf = <T extends CodeTable>(table: T) =>
  Schema.Literals(Object.keys(table) as unknown as readonly [keyof T & string, ...Array<keyof T & string>])

/**
 * Why a quote cannot be used now.
 *
 * @category errors
 * @since 0.1.0
 */
export const QUOTE_CLOSED_CODES = {
  QUOTE_UNKNOWN: "no route of the active signed feed has this quoteId (terms changed, or never published)",
  QUOTE_EXPIRED: "now is at or past the route's validUntil",
  QUOTE_NOT_YET_VALID: "now is before the route's validAfter",
  ROUTE_PAUSED: "the route's executionStatus is PAUSED",
  ROUTE_TEMP_UNAVAILABLE: "the route's executionStatus is TEMP_UNAVAILABLE",
  ROUTE_DAILY_CLOSED: "the route's dailyStatus is CLOSED",
  ROUTE_CAPACITY_EXHAUSTED: "maxAvailableInRaw is below minimumFillInRaw",
  PERMIT_UNAVAILABLE: "the route does not issue permits (the codes below say why)",
  PAYOUT_UNSUPPORTED: "the destination connector cannot pay out",
  PAYER_NO_CONNECTOR: "no connector serves the route's source network",
  PAYER_NOT_SUPPORTED: "the source network's connector does not support payers",
  RECIPIENT_NO_CONNECTOR: "no connector serves the route's destination network",
  RECIPIENT_NOT_SUPPORTED: "the destination network's connector does not support recipients",
  NO_DIRECT_EXECUTION: "direct execution needs an EVM source network with a router",
  ROUTE_NOT_OPEN: "not open for another reason"
} as const

/**
 * A code of {@link QUOTE_CLOSED_CODES}.
 *
 * @category errors
 * @since 0.1.0
 */
export const QuoteClosedCode = literalsOf(QUOTE_CLOSED_CODES)
/** @since 0.1.0 */
export type QuoteClosedCode = typeof QuoteClosedCode.Type

/**
 * Why an amount is refused outright.
 *
 * @category errors
 * @since 0.1.0
 */
export const AMOUNT_CODES = {
  AMOUNT_ZERO: "requestedAmountInRaw is 0",
  AMOUNT_TOO_LARGE: "requestedAmountInRaw is not below 2^128",
  BELOW_MINIMUM_FILL: "below the route's minimumFillInRaw",
  PRICES_TO_ZERO: "the fresh price of the amount is 0"
} as const

/**
 * Why the capacity cannot take the amount.
 *
 * @category errors
 * @since 0.1.0
 */
export const CAPACITY_CODES = {
  ABOVE_MAX_AVAILABLE: "above the route's maxAvailableInRaw",
  INVENTORY_SHORT: "the destination inventory cannot reserve the amountOut now",
  NO_INVENTORY: "the destination asset has no inventory",
  CLIENT_HOLD_SHARE:
    "the requesting client's unfilled permits would hold more than its share of the asset's inventory (`diagnostics.heldRaw`, `limitRaw`); they free up as they are filled or expire",
  PAYER_HOLD_SHARE:
    "the payer's unfilled permits would hold more than its share of the asset's inventory (`diagnostics.heldRaw`, `limitRaw`)",
  NEW_PAYERS_HOLD_SHARE:
    "the payer has never completed a fill, and the unfilled permits of all such payers together would hold more than their share of the asset's inventory (`diagnostics.heldRaw`, `limitRaw`); a payer with a completed fill is never refused for it"
} as const

/**
 * A code of {@link CAPACITY_CODES}.
 *
 * @category errors
 * @since 0.1.0
 */
export const CapacityCode = literalsOf(CAPACITY_CODES)
/** @since 0.1.0 */
export type CapacityCode = typeof CapacityCode.Type

/**
 * What is wrong with a payer or recipient identity. A connector's own code (for
 * example `LOCATOR_INVALID`, `LOCATOR_CHECKSUM_INVALID`) may stand in its place.
 *
 * @category errors
 * @since 0.1.0
 */
export const IDENTITY_PROBLEMS = {
  CHECKSUM_INVALID: "a mixed-case address with a wrong EIP-55 checksum",
  WRONG_NETWORK: "an EVM address for a side whose network is not EVM (give the account form)",
  NETWORK_UNKNOWN: "the side's network is not in the catalog",
  NO_CONNECTOR: "no connector serves the side's network",
  NOT_SUPPORTED: "the network's connector does not serve this side",
  LOCATOR_INVALID: "the locator does not parse (or the connector's own code)",
  LOCATOR_NOT_CANONICAL: "the locator is not in canonical form (`diagnostics.canonicalLocator`)",
  ACCOUNT_ID_MISMATCH: "the account id is not the one of the locator on the route's network"
} as const

/**
 * A problem of {@link IDENTITY_PROBLEMS}.
 *
 * @category errors
 * @since 0.1.0
 */
export type IdentityProblem = keyof typeof IDENTITY_PROBLEMS

/**
 * The side of an identity.
 *
 * @category models
 * @since 0.1.0
 */
export const Side = Schema.Literals(["PAYER", "RECIPIENT"])
/** @since 0.1.0 */
export type Side = typeof Side.Type

/**
 * What a permit operation depended on and could not reach.
 *
 * @category errors
 * @since 0.1.0
 */
export const DEPENDENCIES = {
  STORE: "the store",
  SIGNER: "the authority signer",
  PRICING: "the pricing source",
  PUBLICATION: "a valid publication (not published yet, or the last one expired)",
  RATE_LIMITER: "the shared rate-limit store (the server's Redis)",
  CONNECTOR: "a network connector (for example its RPC endpoint for a smart-account proof)"
} as const

/**
 * A dependency of {@link DEPENDENCIES}.
 *
 * @category errors
 * @since 0.1.0
 */
export const Dependency = literalsOf(DEPENDENCIES)
/** @since 0.1.0 */
export type Dependency = typeof Dependency.Type

/**
 * The reason codes of every reason, by reason tag, with their meaning: what
 * docs/errors.md lists. `<FIELD>`, `<SIDE>` and `<CONNECTOR_CODE>` stand for
 * codes built from a field name, a side (PAYER, RECIPIENT) or a connector's
 * own code.
 *
 * @category errors
 * @since 0.1.0
 */
export const REASON_CODES = {
  RequestInvalid: {
    "<FIELD>_INVALID":
      "the field (SCREAMING_SNAKE of its name, e.g. `QUOTE_ID_INVALID`) fails its pattern, type or range",
    "<FIELD>_MISSING": "a required field is absent",
    "<SIDE>_IDENTITY_MISSING": "neither the address form nor the account form of the side is given",
    "<SIDE>_IDENTITY_AMBIGUOUS": "both the address form and the account form of the side are given",
    "<SIDE>_ACCOUNT_ID_MISSING": "a locator without its account id",
    "<SIDE>_LOCATOR_MISSING": "an account id without its locator"
  },
  IdempotencyKeyMismatch: { IDEMPOTENCY_KEY_HEADER_MISMATCH: "header and body keys differ" },
  UnsupportedStandard: { STANDARD_NOT_SUPPORTED: "a well-formed standard other than DIRECT or ERC-7683" },
  AmountInvalid: { AMOUNT_ZERO: AMOUNT_CODES.AMOUNT_ZERO, AMOUNT_TOO_LARGE: AMOUNT_CODES.AMOUNT_TOO_LARGE },
  AmountTooLow: {
    BELOW_MINIMUM_FILL: `${AMOUNT_CODES.BELOW_MINIMUM_FILL} (\`diagnostics.minimumFillInRaw\`)`,
    PRICES_TO_ZERO: AMOUNT_CODES.PRICES_TO_ZERO
  },
  IdentityInvalid: {
    ...Object.fromEntries(
      Object.entries(IDENTITY_PROBLEMS).map(([problem, meaning]) => [`<SIDE>_${problem}`, meaning])
    ),
    "<SIDE>_<CONNECTOR_CODE>": "a connector's own code for a locator it refuses (e.g. `PAYER_LOCATOR_CHECKSUM_INVALID`)"
  },
  SignatureInvalid: {
    SIGNER_MISMATCH: "the proof is valid but not by the payer",
    "SIGNATURE_MALFORMED, SIGNATURE_BAD_V, SIGNATURE_OUT_OF_RANGE, SIGNATURE_HIGH_S, SIGNATURE_UNRECOVERABLE":
      "an EVM signature that is not 65 bytes, has v outside 27/28 (0/1), r or s out of range, a high s (EIP-2), or no recoverable key",
    "PROOF_MALFORMED, PROOF_INVALID":
      "a connector proof (ed25519 for Solana, ERC-1271 / ERC-6492 for smart accounts) that does not parse or does not verify",
    RPC_NOT_CONFIGURED: "a smart-contract signature on a network without an RPC URL (`SVC_RPC_URLS`)",
    NETWORK_MISMATCH: "a proof for a locator of another network family",
    PAYER_NETWORK_UNRESOLVED: "the payer's network has no native reference for its connector",
    "<SIDE>_<PROBLEM>": "a replay whose payer no longer resolves (an identity code, above)"
  },
  PermitNotFound: { PERMIT_NOT_FOUND: "no permit with this fillId; a malformed fillId answers the same" },
  IdempotencyConflict: {
    IDEMPOTENCY_KEY_REUSED: "the key (per payer) was used for another request; use a new key for a new intent"
  },
  IdempotencyInProgress: {
    IDEMPOTENCY_KEY_IN_FLIGHT: "the first request with this key did not finish within 5 s; retry the identical request"
  },
  InsufficientCapacity: {
    ABOVE_MAX_AVAILABLE: `${CAPACITY_CODES.ABOVE_MAX_AVAILABLE} (\`diagnostics.maxAvailableInRaw\`)`,
    INVENTORY_SHORT: CAPACITY_CODES.INVENTORY_SHORT,
    NO_INVENTORY: CAPACITY_CODES.NO_INVENTORY,
    CLIENT_HOLD_SHARE: CAPACITY_CODES.CLIENT_HOLD_SHARE,
    PAYER_HOLD_SHARE: CAPACITY_CODES.PAYER_HOLD_SHARE,
    NEW_PAYERS_HOLD_SHARE: CAPACITY_CODES.NEW_PAYERS_HOLD_SHARE
  },
  QuoteChanged: {
    PRICE_MOVED:
      "the fresh price no longer covers the bound amountOut (aggregator builds), or fell past the pricing tolerance below the route's indicative terms (`diagnostics`: boundAmountOutRaw, freshAmountOutRaw)"
  },
  QuoteNotOpen: QUOTE_CLOSED_CODES,
  RateLimited: { PERMIT_RATE_LIMITED: "with `Retry-After`, `RateLimit` and `RateLimit-Policy`" },
  PublicationClosed: { PUBLICATION_CLOSED: "the operator paused publication" },
  Unavailable: {
    ...Object.fromEntries(
      Object.entries(DEPENDENCIES).filter(([d]) => d !== "CONNECTOR").map((
        [d, what]
      ) => [`${d}_UNAVAILABLE`, `${what} is down; \`Retry-After\` is set`])
    ),
    "RPC_UNAVAILABLE, RPC_TIMEOUT": "the RPC a connector needs for a smart-account proof"
  }
} as const satisfies Record<string, CodeTable>

const Detail = { detail: Schema.optional(Schema.String) }

const Diagnostics = Schema.optional(Schema.Record(Schema.String, Schema.Unknown))

/**
 * The request does not normalize (a field fails its rule). `reasonCodes` name the
 * fields: `<FIELD>_INVALID`, `<SIDE>_IDENTITY_MISSING`, ...
 *
 * @category errors
 * @since 0.1.0
 */
export class RequestInvalid extends Schema.TaggedError<RequestInvalid>("@svc/core/PermitError/RequestInvalid")(
  "RequestInvalid",
  { codes: Schema.Array(Schema.String), ...Detail }
) {
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return this.codes
  }
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The Idempotency-Key header differs from the body's idempotencyKey.
 *
 * @category errors
 * @since 0.1.0
 */
export class IdempotencyKeyMismatch
  extends Schema.TaggedError<IdempotencyKeyMismatch>("@svc/core/PermitError/IdempotencyKeyMismatch")(
    "IdempotencyKeyMismatch",
    Detail
  )
{
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return ["IDEMPOTENCY_KEY_HEADER_MISMATCH"]
  }
  get isRetryable(): boolean {
    return false
  }
}

/**
 * A well-formed standard other than the supported ones.
 *
 * @category errors
 * @since 0.1.0
 */
export class UnsupportedStandard
  extends Schema.TaggedError<UnsupportedStandard>("@svc/core/PermitError/UnsupportedStandard")(
    "UnsupportedStandard",
    { standard: Schema.String, supported: Schema.Array(Schema.String) }
  )
{
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return ["STANDARD_NOT_SUPPORTED"]
  }
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The amount is 0 or not below 2^128.
 *
 * @category errors
 * @since 0.1.0
 */
export class AmountInvalid extends Schema.TaggedError<AmountInvalid>("@svc/core/PermitError/AmountInvalid")(
  "AmountInvalid",
  { code: Schema.Literals(["AMOUNT_ZERO", "AMOUNT_TOO_LARGE"]) }
) {
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return [this.code]
  }
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The amount is below the route's minimum fill, or prices to nothing.
 *
 * @category errors
 * @since 0.1.0
 */
export class AmountTooLow extends Schema.TaggedError<AmountTooLow>("@svc/core/PermitError/AmountTooLow")(
  "AmountTooLow",
  { code: Schema.Literals(["BELOW_MINIMUM_FILL", "PRICES_TO_ZERO"]), minimumFillInRaw: Schema.optional(Schema.String) }
) {
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return [this.code]
  }
  get isRetryable(): boolean {
    return false
  }
}

/**
 * A payer or recipient identity is not valid for the route's networks.
 *
 * @category errors
 * @since 0.1.0
 */
export class IdentityInvalid extends Schema.TaggedError<IdentityInvalid>("@svc/core/PermitError/IdentityInvalid")(
  "IdentityInvalid",
  {
    side: Side,
    /** A problem of {@link IDENTITY_PROBLEMS}, or the connector's own code. */
    problem: Schema.String,
    canonicalLocator: Schema.optional(Schema.Unknown),
    ...Detail
  }
) {
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return [`${this.side}_${this.problem}`]
  }
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The ownership proof (requestSignature) is refused.
 *
 * @category errors
 * @since 0.1.0
 */
export class SignatureInvalid extends Schema.TaggedError<SignatureInvalid>("@svc/core/PermitError/SignatureInvalid")(
  "SignatureInvalid",
  {
    /** The connector's code: SIGNER_MISMATCH, SIGNATURE_HIGH_S, PROOF_INVALID, ... */
    code: Schema.String,
    ...Detail
  }
) {
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return [this.code]
  }
  get isRetryable(): boolean {
    return false
  }
}

/**
 * No permit has this fillId (a malformed fillId is reported the same way).
 *
 * @category errors
 * @since 0.1.0
 */
export class PermitNotFound extends Schema.TaggedError<PermitNotFound>("@svc/core/PermitError/PermitNotFound")(
  "PermitNotFound",
  { fillId: Schema.String }
) {
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return ["PERMIT_NOT_FOUND"]
  }
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The idempotency key (per payer) was used for another request.
 *
 * @category errors
 * @since 0.1.0
 */
export class IdempotencyConflict
  extends Schema.TaggedError<IdempotencyConflict>("@svc/core/PermitError/IdempotencyConflict")(
    "IdempotencyConflict",
    Detail
  )
{
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return ["IDEMPOTENCY_KEY_REUSED"]
  }
  get isRetryable(): boolean {
    return false
  }
}

/**
 * A request with the same key is still in flight after the bounded wait.
 *
 * @category errors
 * @since 0.1.0
 */
export class IdempotencyInProgress
  extends Schema.TaggedError<IdempotencyInProgress>("@svc/core/PermitError/IdempotencyInProgress")(
    "IdempotencyInProgress",
    Detail
  )
{
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return ["IDEMPOTENCY_KEY_IN_FLIGHT"]
  }
  get retryAfterSeconds(): number {
    return 1
  }
  get isRetryable(): boolean {
    return true
  }
}

/**
 * The amount is above the route's capacity or the destination inventory is short.
 *
 * @category errors
 * @since 0.1.0
 */
export class InsufficientCapacity
  extends Schema.TaggedError<InsufficientCapacity>("@svc/core/PermitError/InsufficientCapacity")(
    "InsufficientCapacity",
    { code: CapacityCode, diagnostics: Diagnostics }
  )
{
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return [this.code]
  }
  get isRetryable(): boolean {
    return true
  }
}

/**
 * The fresh price no longer covers the amountOut the caller displayed.
 *
 * @category errors
 * @since 0.1.0
 */
export class QuoteChanged extends Schema.TaggedError<QuoteChanged>("@svc/core/PermitError/QuoteChanged")(
  "QuoteChanged",
  { boundAmountOutRaw: Schema.String, freshAmountOutRaw: Schema.String }
) {
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return ["PRICE_MOVED"]
  }
  get isRetryable(): boolean {
    return false
  }
}

/**
 * The quote is unknown, no longer open or expired.
 *
 * @category errors
 * @since 0.1.0
 */
export class QuoteNotOpen extends Schema.TaggedError<QuoteNotOpen>("@svc/core/PermitError/QuoteNotOpen")(
  "QuoteNotOpen",
  { codes: Schema.Array(QuoteClosedCode), ...Detail }
) {
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return this.codes
  }
  get isRetryable(): boolean {
    return false
  }
}

/**
 * Too many permit requests from this client.
 *
 * @category errors
 * @since 0.1.0
 */
export class RateLimited extends Schema.TaggedError<RateLimited>("@svc/core/PermitError/RateLimited")(
  "RateLimited",
  { retryAfterSeconds: Schema.Number, limit: Schema.Number, windowSeconds: Schema.Number }
) {
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return ["PERMIT_RATE_LIMITED"]
  }
  get isRetryable(): boolean {
    return true
  }
}

/**
 * The operator paused publication.
 *
 * @category errors
 * @since 0.1.0
 */
export class PublicationClosed extends Schema.TaggedError<PublicationClosed>("@svc/core/PermitError/PublicationClosed")(
  "PublicationClosed",
  Detail
) {
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return ["PUBLICATION_CLOSED"]
  }
  get retryAfterSeconds(): number {
    return 30
  }
  get isRetryable(): boolean {
    return true
  }
}

/**
 * A dependency of the operation is unavailable; the client may retry.
 *
 * @category errors
 * @since 0.1.0
 */
export class Unavailable extends Schema.TaggedError<Unavailable>("@svc/core/PermitError/Unavailable")(
  "Unavailable",
  {
    dependency: Dependency,
    /** For a connector, its own code (RPC_UNAVAILABLE, RPC_TIMEOUT, ...). */
    code: Schema.optional(Schema.String),
    retryAfterSeconds: Schema.Number,
    ...Detail
  }
) {
  readonly [ReasonTypeId] = ReasonTypeId
  get reasonCodes(): ReadonlyArray<string> {
    return [this.code ?? `${this.dependency}_UNAVAILABLE`]
  }
  get isRetryable(): boolean {
    return true
  }
}

/**
 * Every reason of a {@link PermitError}.
 *
 * @category errors
 * @since 0.1.0
 */
export const PermitErrorReason = Schema.Union([
  RequestInvalid,
  IdempotencyKeyMismatch,
  UnsupportedStandard,
  AmountInvalid,
  AmountTooLow,
  IdentityInvalid,
  SignatureInvalid,
  PermitNotFound,
  IdempotencyConflict,
  IdempotencyInProgress,
  InsufficientCapacity,
  QuoteChanged,
  QuoteNotOpen,
  RateLimited,
  PublicationClosed,
  Unavailable
])
/** @since 0.1.0 */
export type PermitErrorReason = typeof PermitErrorReason.Type

/**
 * A refused permit operation.
 *
 * @category errors
 * @since 0.1.0
 */
export class PermitError extends Schema.TaggedError<PermitError>("@svc/core/PermitError")("PermitError", {
  reason: PermitErrorReason
}) {
  override readonly cause = this.reason
  override get message(): string {
    const codes = this.reason.reasonCodes
    const detail = "detail" in this.reason ? this.reason.detail : undefined
    return `${this.reason._tag}${codes.length > 0 ? ` [${codes.join(", ")}]` : ""}${detail ? `: ${detail}` : ""}`
  }
  /** Whether the same request may succeed later. */
  get isRetryable(): boolean {
    return this.reason.isRetryable
  }
}

/**
 * Wraps a reason.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fail = (reason: PermitErrorReason): PermitError => new PermitError({ reason })
