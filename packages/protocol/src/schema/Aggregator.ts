/**
 * The aggregator interface (`/v1/*` and `/.well-known/svc-aggregator.json`): the
 * bodies a wallet, router or application exchanges with svc to quote, build,
 * submit and track one direct fill. The spec leaves these field lists open; they
 * follow the upstream deployment's public aggregator guide where it speaks, and
 * svc's own decisions for the rest (docs/aggregator.md).
 *
 * Design, for developers who know LI.FI, Relay or Across:
 *
 * - Chain ids are JSON integers (`fromChainId: 8453`), token addresses are EVM
 *   addresses (the zero address is the native coin), and every amount is a raw
 *   base-10 integer string in the token's smallest unit (`amountIn: "1000000"`).
 * - A success body is the resource itself (no `{ ok: true, ... }` wrapper):
 *   `POST /v1/quote` answers an {@link AggregatorQuote}, `POST /v1/build` an
 *   {@link AggregatorBuild}. Every failure is an {@link AggregatorError}
 *   (`ok: false`) whose `action` tells the client what to do next.
 * - Flow: quote -> build (stage 1: the message to sign) -> wallet `personal_sign`
 *   -> build again with `requestSignature` (stage 2: the transaction) -> submit
 *   -> `GET /v1/status?fillId=...`.
 * - Fees: the signed amounts already include the service fee (`fees.serviceFeeBps`,
 *   `fees.feeMode`); an integrator's own fee is external (taken before amountIn or
 *   after amountOut, or through a wrapper) and never changes a signed amount, so
 *   `fees.external` is always empty.
 * - Every object rejects properties it does not list (decode with `decodeStrict`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { isUint128, representation } from "./Checks.ts"
import { Uri } from "./Discovery.ts"
import { ExecutionPermitEnvelope } from "./Permit.ts"
import {
  Address,
  Bytes32,
  IdempotencyKey,
  JsonObject,
  NonNegativeInt,
  PositiveInt,
  ServiceFeeBps,
  Sig65,
  TokenDecimals,
  UintStr,
  UnixSeconds
} from "./Primitives.ts"

/**
 * An EVM chain id as a JSON integer >= 1 (for example `8453`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorChainId = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
  identifier: "AggregatorChainId",
  description: "EVM chain id as a JSON integer >= 1"
})
/** @since 0.1.0 */
export type AggregatorChainId = typeof AggregatorChainId.Type

/**
 * An input amount: a positive uint128 as a base-10 string without leading zeros,
 * in raw units of the source token.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorAmount = Schema.String.check(
  Schema.isPattern(/^[1-9][0-9]{0,38}$/u),
  Schema.makeFilter(isUint128, {
    expected: "a positive uint128 as a base-10 string",
    representation: representation("@svc/protocol/isUint128")
  })
).annotate({
  identifier: "AggregatorAmount",
  description: "positive uint128 as a base-10 string in raw units of the source token (1 to 2^128 - 1)"
})
/** @since 0.1.0 */
export type AggregatorAmount = typeof AggregatorAmount.Type

/**
 * The quote token: 64 lowercase hex digits without `0x`. It identifies one exact
 * quote (request, quoteId and amountOut) and binds the displayed amount; it does
 * not replace the canonical quoteId.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorQuoteToken = Schema.String.check(Schema.isPattern(/^[0-9a-f]{64}$/u)).annotate({
  identifier: "AggregatorQuoteToken",
  description: "64 lowercase hex digits (no 0x); binds the exact quoted amounts"
})
/** @since 0.1.0 */
export type AggregatorQuoteToken = typeof AggregatorQuoteToken.Type

/**
 * Transaction calldata: `0x` followed by whole bytes.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorCalldata = Schema.String.check(Schema.isPattern(/^0x(?:[0-9a-fA-F]{2})*$/u)).annotate({
  identifier: "AggregatorCalldata",
  description: "transaction calldata, 0x followed by whole bytes"
})
/** @since 0.1.0 */
export type AggregatorCalldata = typeof AggregatorCalldata.Type

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/**
 * What a client does after an aggregator error:
 *
 * - `REFRESH_QUOTE`: the quote can no longer be executed; obtain a new quote
 *   (`POST /v1/quote`) and show its terms again;
 * - `FIX_REQUEST`: the request is wrong; change it before trying again;
 * - `RETRY_LATER`: a transient condition; retry the same request later (after
 *   `retryAfterSeconds` when given);
 * - `NONE`: nothing to do automatically.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorAction = Schema.Literals(["REFRESH_QUOTE", "FIX_REQUEST", "RETRY_LATER", "NONE"]).annotate({
  identifier: "AggregatorAction",
  description: "REFRESH_QUOTE: get a new quote; FIX_REQUEST: change the request; RETRY_LATER: retry the same " +
    "request later; NONE: nothing to do automatically"
})
/** @since 0.1.0 */
export type AggregatorAction = typeof AggregatorAction.Type

/**
 * Every aggregator error code with its HTTP status, the client action, whether a
 * retry (after the action) can succeed, and its meaning. The single source of the
 * aggregator part of docs/errors.md and of the `error` enum of {@link AggregatorError}.
 *
 * An internal failure of an aggregator operation is answered as 503
 * `SERVICE_UNAVAILABLE` (the aggregator interface documents no 500).
 *
 * @category errors
 * @since 0.1.0
 */
export const AGGREGATOR_ERRORS = {
  INVALID_REQUEST: {
    status: 400,
    action: "FIX_REQUEST",
    retryable: false,
    meaning: "the body or the query does not match the schema (reasonCodes name the fields), or is not JSON"
  },
  UNSUPPORTED_CHAIN: {
    status: 400,
    action: "FIX_REQUEST",
    retryable: false,
    meaning: "fromChainId, toChainId or chainId is not a chain of /v1/chains"
  },
  UNSUPPORTED_TOKEN: {
    status: 400,
    action: "FIX_REQUEST",
    retryable: false,
    meaning: "fromToken or toToken is not a token of /v1/tokens on its chain"
  },
  AMOUNT_TOO_LOW: {
    status: 400,
    action: "FIX_REQUEST",
    retryable: false,
    meaning: "amountIn is below the route's published minimumFillInRaw"
  },
  AMOUNT_TOO_HIGH: {
    status: 400,
    action: "FIX_REQUEST",
    retryable: false,
    meaning: "amountIn is above the route's published maxAvailableInRaw"
  },
  SIGNATURE_INVALID: {
    status: 400,
    action: "FIX_REQUEST",
    retryable: false,
    meaning: "requestSignature is not an EIP-191 signature of signingPayload.message by userAddress"
  },
  ORIGIN_NOT_ALLOWED: {
    status: 403,
    action: "NONE",
    retryable: false,
    meaning: "the browser Origin is not on the configured allow-list (only when one is configured)"
  },
  NO_ROUTE: {
    status: 404,
    action: "NONE",
    retryable: false,
    meaning: "no open L1 route for this pair (or the given routeId does not match the pair)"
  },
  QUOTE_NOT_FOUND: {
    status: 404,
    action: "FIX_REQUEST",
    retryable: false,
    meaning: "no stored quote for this quoteToken, quoteId and routeId"
  },
  FILL_NOT_FOUND: {
    status: 404,
    action: "NONE",
    retryable: false,
    meaning: "no fill with this fillId or sourceTxHash"
  },
  NOT_FOUND: {
    status: 404,
    action: "NONE",
    retryable: false,
    meaning: "no such path"
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    action: "FIX_REQUEST",
    retryable: false,
    meaning: "the path exists but not for this method (see Allow)"
  },
  QUOTE_CHANGED: {
    status: 409,
    action: "REFRESH_QUOTE",
    retryable: true,
    meaning: "the fresh price no longer covers the quoted amountOut"
  },
  INSUFFICIENT_CAPACITY: {
    status: 409,
    action: "RETRY_LATER",
    retryable: true,
    meaning: "the route cannot take this amount now (inventory short); retry later or quote a smaller amount"
  },
  IDEMPOTENCY_CONFLICT: {
    status: 409,
    action: "FIX_REQUEST",
    retryable: false,
    meaning: "the idempotencyKey is bound to a different request; use a new key"
  },
  IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    action: "RETRY_LATER",
    retryable: true,
    meaning: "a request with this idempotencyKey is still being processed; retry the same request"
  },
  QUOTE_EXPIRED: {
    status: 410,
    action: "REFRESH_QUOTE",
    retryable: true,
    meaning: "the quote's expiresAt has passed"
  },
  ROUTE_CLOSED: {
    status: 410,
    action: "REFRESH_QUOTE",
    retryable: true,
    meaning: "the quoted route is no longer open (or its quoteId changed)"
  },
  BODY_TOO_LARGE: {
    status: 413,
    action: "FIX_REQUEST",
    retryable: false,
    meaning: "the request body exceeds 32 KiB"
  },
  RATE_LIMITED: {
    status: 429,
    action: "RETRY_LATER",
    retryable: true,
    meaning: "too many requests from this client; retry after Retry-After seconds"
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    action: "RETRY_LATER",
    retryable: true,
    meaning: "publication is closed, or the signer, store or pricing is unavailable"
  }
} as const satisfies Record<string, {
  readonly status: 400 | 403 | 404 | 405 | 409 | 410 | 413 | 429 | 503
  readonly action: AggregatorAction
  readonly retryable: boolean
  readonly meaning: string
}>

/**
 * An aggregator error code.
 *
 * @category errors
 * @since 0.1.0
 */
export type AggregatorErrorCode = keyof typeof AGGREGATOR_ERRORS

/**
 * The error codes of {@link AGGREGATOR_ERRORS} as a schema (the `error` enum).
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorErrorCode = Schema.Literals(
  Object.keys(AGGREGATOR_ERRORS) as [AggregatorErrorCode, ...Array<AggregatorErrorCode>]
).annotate({ identifier: "AggregatorErrorCode", description: "aggregator error code (see AGGREGATOR_ERRORS)" })

/**
 * The error body of every aggregator operation: a stable code, a safe human
 * message (never parse it), whether a retry can succeed, and the client action.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorError = Schema.Struct({
  ok: Schema.Literal(false),
  error: AggregatorErrorCode,
  message: Schema.String.annotate({
    description: "safe human-readable text; clients handle error and action, not this"
  }),
  retryable: Schema.Boolean,
  action: AggregatorAction,
  reasonCodes: Schema.optionalKey(Schema.Array(Schema.String)),
  retryAfterSeconds: Schema.optionalKey(NonNegativeInt)
}).annotate({
  identifier: "AggregatorError",
  description:
    "Safe public error. On QUOTE_EXPIRED, ROUTE_CLOSED or QUOTE_CHANGED (action REFRESH_QUOTE) obtain a new quote."
})
/** @since 0.1.0 */
export type AggregatorError = typeof AggregatorError.Type

// ---------------------------------------------------------------------------
// Quote
// ---------------------------------------------------------------------------

/**
 * The four fields that name a directional pair. A `pairs` entry of
 * {@link AggregatorChains} is exactly these plus routeId, so it can be spread
 * into a quote request.
 */
const pairFields = {
  fromChainId: AggregatorChainId,
  toChainId: AggregatorChainId,
  fromToken: Address,
  toToken: Address
}

/**
 * Body of `POST /v1/quote`.
 *
 * - `amountIn`: raw source-token units, 1 to 2^128 - 1;
 * - `userAddress`: the payer (needed before build; may be left out to price only);
 * - `recipient`: the payout address on `toChainId`; defaults to userAddress;
 * - `routeId`: pins one route; it must match the pair (else 404 NO_ROUTE).
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorQuoteRequest = Schema.Struct({
  ...pairFields,
  amountIn: AggregatorAmount,
  userAddress: Schema.optionalKey(Address),
  recipient: Schema.optionalKey(Address),
  routeId: Schema.optionalKey(Bytes32)
}).annotate({
  identifier: "AggregatorQuoteRequest",
  description: "Exact-input quote request. Spread a /v1/chains pairs entry and add amountIn, userAddress, recipient."
})
/** @since 0.1.0 */
export type AggregatorQuoteRequest = typeof AggregatorQuoteRequest.Type

/**
 * The fees of a quote. The service fee is already inside amountOut
 * (`serviceFeeBps`, `feeMode` as on the route); aggregator and integrator fees are
 * external, so `external` is always empty: such a fee is taken before amountIn,
 * after amountOut, or by a wrapper, and never changes a signed amount.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorFees = Schema.Struct({
  serviceFeeBps: ServiceFeeBps,
  feeMode: Schema.String,
  external: Schema.Array(JsonObject).check(Schema.isMaxLength(0)).annotate({
    description: "always empty: aggregator fees are external and never inside signed amounts"
  })
}).annotate({
  identifier: "AggregatorFees",
  description: "service fee already inside amountOut; aggregator fees are external (never in signed amounts)"
})
/** @since 0.1.0 */
export type AggregatorFees = typeof AggregatorFees.Type

/**
 * An exact quote from one currently open L1 route (body of `POST /v1/quote`).
 *
 * `expiresAt` is the earliest of the route's validUntil, the feed's validUntil and
 * the exact-pricing deadline. `userAddress` and `recipient` are null when the
 * request gave none (a price-only quote; build needs userAddress). No slippage:
 * an accepted quote executes at amountOut exactly, or build answers 409
 * QUOTE_CHANGED.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorQuote = Schema.Struct({
  provider: Schema.Literal("svc"),
  routeId: Bytes32,
  quoteId: Bytes32,
  quoteToken: AggregatorQuoteToken,
  dataVersion: UintStr,
  ...pairFields,
  amountIn: UintStr,
  amountOut: UintStr,
  fromTokenDecimals: TokenDecimals,
  toTokenDecimals: TokenDecimals,
  sourceRouter: Address,
  expiresAt: UnixSeconds,
  permitRequired: Schema.Literal(true),
  executionType: Schema.Literal("DIRECT_FILL"),
  status: Schema.Literal("QUOTED"),
  fees: AggregatorFees,
  userAddress: Schema.NullOr(Address),
  recipient: Schema.NullOr(Address)
}).annotate({
  identifier: "AggregatorQuote",
  description: "Exact quote; amounts are raw token units. Show it, then build before expiresAt."
})
/** @since 0.1.0 */
export type AggregatorQuote = typeof AggregatorQuote.Type

// ---------------------------------------------------------------------------
// Build
// ---------------------------------------------------------------------------

/**
 * Body of `POST /v1/build`, in both stages. Stage 1 leaves out requestSignature;
 * stage 2 repeats the identical body plus requestSignature (the EIP-191
 * `personal_sign` of `signingPayload.message` by userAddress). No fee or
 * execution-field overrides are accepted.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorBuildRequest = Schema.Struct({
  quoteToken: AggregatorQuoteToken,
  quoteId: Bytes32,
  routeId: Bytes32,
  userAddress: Address,
  recipient: Schema.optionalKey(Address),
  idempotencyKey: IdempotencyKey,
  requestSignature: Schema.optionalKey(Sig65)
}).annotate({
  identifier: "AggregatorBuildRequest",
  description: "Stage 1 without requestSignature; stage 2: the same body plus requestSignature."
})
/** @since 0.1.0 */
export type AggregatorBuildRequest = typeof AggregatorBuildRequest.Type

/**
 * What the wallet signs in stage 2: the solver's permit request message
 * (standard DIRECT), signed with EIP-191 `personal_sign` over its UTF-8 bytes.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorSigningPayload = Schema.Struct({
  message: Schema.String.annotate({ description: "exact UTF-8 permit request message; sign its bytes unchanged" }),
  standard: Schema.Literal("DIRECT"),
  encoding: Schema.Literal("EIP191_PERSONAL_SIGN_UTF8")
}).annotate({ identifier: "AggregatorSigningPayload" })
/** @since 0.1.0 */
export type AggregatorSigningPayload = typeof AggregatorSigningPayload.Type

/**
 * Build stage 1: the message to sign, with the exact quote it binds.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorBuildSignatureRequired = Schema.Struct({
  signatureRequired: Schema.Literal(true),
  signingPayload: AggregatorSigningPayload,
  quote: AggregatorQuote,
  expiresAt: UnixSeconds
}).annotate({
  identifier: "AggregatorBuildSignatureRequired",
  description: "Stage 1: sign signingPayload.message with personal_sign, then call build again with requestSignature."
})
/** @since 0.1.0 */
export type AggregatorBuildSignatureRequired = typeof AggregatorBuildSignatureRequired.Type

/**
 * An ERC-20 approval the wallet needs before the transaction: approve exactly
 * `amount` of the source token (`quote.fromToken`) to `spender`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorApproval = Schema.Struct({
  spender: Address,
  amount: UintStr
}).annotate({
  identifier: "AggregatorApproval",
  description: "approve exactly amount of quote.fromToken to spender; null for native input"
})
/** @since 0.1.0 */
export type AggregatorApproval = typeof AggregatorApproval.Type

/**
 * Build stage 2: the source transaction (`fillDirect` on the router) with the
 * signed permit. Send `{ chainId, from, to: target, data, value }` from
 * `from`, after the approval when it is not null. `value` (wei) is amountIn for
 * a native-coin input, else "0".
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorBuildTransaction = Schema.Struct({
  signatureRequired: Schema.Literal(false),
  chainId: AggregatorChainId,
  from: Address,
  target: Address,
  data: AggregatorCalldata,
  value: UintStr,
  approval: Schema.NullOr(AggregatorApproval),
  fillId: Bytes32,
  quoteId: Bytes32,
  routeId: Bytes32,
  expiresAt: UnixSeconds,
  quote: AggregatorQuote,
  permit: ExecutionPermitEnvelope
}).annotate({
  identifier: "AggregatorBuildTransaction",
  description: "Stage 2: send { chainId, from, to: target, data, value } (value in wei: amountIn for native input, " +
    "else 0) after the approval when not null; track it with GET /v1/status?fillId="
})
/** @since 0.1.0 */
export type AggregatorBuildTransaction = typeof AggregatorBuildTransaction.Type

/**
 * Body of `POST /v1/build`: stage 1 (`signatureRequired: true`) or stage 2
 * (`signatureRequired: false`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorBuild = Schema.Union([AggregatorBuildSignatureRequired, AggregatorBuildTransaction]).annotate({
  identifier: "AggregatorBuild",
  description: "discriminated by signatureRequired"
})
/** @since 0.1.0 */
export type AggregatorBuild = typeof AggregatorBuild.Type

// ---------------------------------------------------------------------------
// Status
// ---------------------------------------------------------------------------

/**
 * The aggregator status vocabulary:
 * QUOTED -> AWAITING_SIGNATURE -> PERMITTED -> SOURCE_SUBMITTED ->
 * SOURCE_CONFIRMED -> PAYOUT_PENDING -> COMPLETED, or EXPIRED / FAILED.
 * A fill starts at PERMITTED (the permit states map ISSUED -> PERMITTED,
 * SOURCE_OBSERVED -> SOURCE_SUBMITTED, SOURCE_CONFIRMED -> SOURCE_CONFIRMED,
 * PAYOUT_SUBMITTED -> PAYOUT_PENDING, PAID -> COMPLETED, EXPIRED, FAILED).
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorFillStatus = Schema.Literals([
  "QUOTED",
  "AWAITING_SIGNATURE",
  "PERMITTED",
  "SOURCE_SUBMITTED",
  "SOURCE_CONFIRMED",
  "PAYOUT_PENDING",
  "COMPLETED",
  "EXPIRED",
  "FAILED"
]).annotate({ identifier: "AggregatorFillStatus" })
/** @since 0.1.0 */
export type AggregatorFillStatus = typeof AggregatorFillStatus.Type

/**
 * One fill (`GET /v1/status?fillId=` or `?sourceTxHash=`). `terminal` is true for
 * COMPLETED, EXPIRED and FAILED; COMPLETED implies both transaction hashes.
 * Source inclusion does not prove payout; expiry does not cancel a submitted
 * obligation.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorStatus = Schema.Struct({
  fillId: Bytes32,
  quoteId: Bytes32,
  routeId: Bytes32,
  status: AggregatorFillStatus,
  terminal: Schema.Boolean,
  sourceTxHash: Schema.NullOr(Bytes32),
  payoutTxHash: Schema.NullOr(Bytes32),
  amountIn: UintStr,
  amountOut: UintStr,
  fromChainId: AggregatorChainId,
  toChainId: AggregatorChainId,
  userAddress: Address,
  recipient: Address,
  expiresAt: UnixSeconds,
  updatedAt: UnixSeconds
}).annotate({ identifier: "AggregatorStatus", description: "one fill" })
/** @since 0.1.0 */
export type AggregatorStatus = typeof AggregatorStatus.Type

/**
 * Recent fills (`GET /v1/status?quoteId=` or `?userAddress=`): at most `limit`
 * (20), newest first; an empty list when there are none.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorStatusList = Schema.Struct({
  transactions: Schema.Array(AggregatorStatus).check(Schema.isMaxLength(20)),
  lookup: Schema.Struct({
    by: Schema.Literals(["quoteId", "userAddress"]),
    value: Schema.Union([Bytes32, Address])
  }),
  limit: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 20 }))
}).annotate({ identifier: "AggregatorStatusList", description: "up to 20 recent fills, newest first" })
/** @since 0.1.0 */
export type AggregatorStatusList = typeof AggregatorStatusList.Type

/**
 * Usability of an unbuilt quote (`GET /v1/status?quoteToken=`): `quoteValid` false
 * blocks execution; `quoteError` names the reason (an aggregator error code) when
 * the quote is not valid, else null.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorQuoteValidity = Schema.Struct({
  quoteValid: Schema.Boolean,
  quoteError: Schema.NullOr(AggregatorErrorCode)
}).annotate({ identifier: "AggregatorQuoteValidity", description: "quoteValid false blocks execution" })
/** @since 0.1.0 */
export type AggregatorQuoteValidity = typeof AggregatorQuoteValidity.Type

// ---------------------------------------------------------------------------
// Chains, tokens, health
// ---------------------------------------------------------------------------

/**
 * A chain the aggregator quotes from or to.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorChain = Schema.Struct({
  chainId: AggregatorChainId,
  name: Schema.String,
  key: Schema.String.annotate({ description: "short lowercase slug (base, bsc, hyperevm)" }),
  networkId: Bytes32,
  router: Schema.NullOr(Address).annotate({
    description: "the V6 router (transaction target, approval spender); null if none"
  })
}).annotate({ identifier: "AggregatorChain" })
/** @since 0.1.0 */
export type AggregatorChain = typeof AggregatorChain.Type

/**
 * A quotable directional pair: exactly the pair fields of a quote request plus
 * routeId, so it can be spread into an {@link AggregatorQuoteRequest}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorPair = Schema.Struct({
  ...pairFields,
  routeId: Bytes32
}).annotate({ identifier: "AggregatorPair" })
/** @since 0.1.0 */
export type AggregatorPair = typeof AggregatorPair.Type

/**
 * An open route with its published limits (raw source-token units, per route,
 * never summed across routes).
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorRoute = Schema.Struct({
  ...pairFields,
  routeId: Bytes32,
  quoteId: Bytes32,
  dataVersion: UintStr,
  validUntil: UnixSeconds,
  minimumFillInRaw: UintStr,
  maxAvailableInRaw: UintStr
}).annotate({ identifier: "AggregatorRoute" })
/** @since 0.1.0 */
export type AggregatorRoute = typeof AggregatorRoute.Type

/**
 * Body of `GET /v1/chains`: networks, open directional pairs and their routes.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorChains = Schema.Struct({
  chains: Schema.Array(AggregatorChain),
  pairs: Schema.Array(AggregatorPair),
  routes: Schema.Array(AggregatorRoute),
  dataVersion: UintStr,
  validUntil: UnixSeconds
}).annotate({ identifier: "AggregatorChains" })
/** @since 0.1.0 */
export type AggregatorChains = typeof AggregatorChains.Type

/**
 * Token metadata. The zero address (`native: true`) is the chain's native coin.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorToken = Schema.Struct({
  chainId: AggregatorChainId,
  address: Address,
  symbol: Schema.String,
  decimals: TokenDecimals,
  assetId: Bytes32,
  native: Schema.Boolean
}).annotate({ identifier: "AggregatorToken" })
/** @since 0.1.0 */
export type AggregatorToken = typeof AggregatorToken.Type

/**
 * Body of `GET /v1/tokens` (optional `chainId` filter).
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorTokens = Schema.Struct({
  tokens: Schema.Array(AggregatorToken),
  dataVersion: UintStr,
  validUntil: UnixSeconds
}).annotate({ identifier: "AggregatorTokens" })
/** @since 0.1.0 */
export type AggregatorTokens = typeof AggregatorTokens.Type

/**
 * The state of one part a deployment depends on: OK, PAUSED (the operator
 * paused publication: still serving, answers are structured 503s), DEGRADED
 * (working, with something waiting: payouts on a settlement network) or
 * UNAVAILABLE, with a short reason (never internals) and, for settlement, its
 * figures.
 *
 * @category schemas
 * @since 0.1.0
 */
export const HealthComponent = Schema.Struct({
  status: Schema.Literals(["OK", "PAUSED", "DEGRADED", "UNAVAILABLE"]),
  detail: Schema.optionalKey(Schema.String),
  /** Figures of the part (settlement: head age, unpaid fills, payouts in flight, ...), by name. */
  figures: Schema.optionalKey(
    Schema.Record(Schema.String, Schema.Union([Schema.String, Schema.Int, Schema.Boolean, Schema.Null]))
  )
}).annotate({ identifier: "HealthComponent" })
/** @since 0.1.0 */
export type HealthComponent = typeof HealthComponent.Type

/**
 * The parts of a deployment: its store, its signer (the authority key) and its
 * publication, and any other dependency its requests need, by name (for
 * example `rateLimiter`, the shared rate-limit store, when the deployment has
 * one).
 *
 * @category schemas
 * @since 0.1.0
 */
export const HealthComponents = Schema.StructWithRest(
  Schema.Struct({
    store: HealthComponent,
    signer: HealthComponent,
    publication: HealthComponent
  }),
  [Schema.Record(Schema.String, HealthComponent)]
).annotate({ identifier: "HealthComponents" })
/** @since 0.1.0 */
export type HealthComponents = typeof HealthComponents.Type

/**
 * `GET /health/live` and `GET /health/ready` (for orchestrators; not operations
 * of the interface): live while the process serves; ready while the store, the
 * signer and the publication are (a paused publication is ready: it answers).
 *
 * @category schemas
 * @since 0.1.0
 */
export const HealthReport = Schema.Struct({
  ok: Schema.Boolean,
  live: Schema.Literal(true),
  ready: Schema.Boolean,
  components: HealthComponents,
  checkedAt: UnixSeconds
}).annotate({ identifier: "HealthReport" })
/** @since 0.1.0 */
export type HealthReport = typeof HealthReport.Type

/**
 * Body of `GET /v1/health`. `status` is `OK` when publication is open and the feed
 * is valid with at least one open route, `DEGRADED` when publication is open but
 * no route is open, `UNAVAILABLE` when publication is closed or the feed expired.
 * `dataVersion` and `feedValidUntil` are null before the first publication.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorHealth = Schema.Struct({
  status: Schema.Literals(["OK", "DEGRADED", "UNAVAILABLE"]),
  publicationOpen: Schema.Boolean,
  dataVersion: Schema.NullOr(UintStr),
  feedValidUntil: Schema.NullOr(UnixSeconds),
  openRouteCount: NonNegativeInt,
  checkedAt: UnixSeconds,
  /** The parts a request depends on, each checked (svc's servers always send it). */
  components: Schema.optionalKey(HealthComponents)
}).annotate({ identifier: "AggregatorHealth" })
/** @since 0.1.0 */
export type AggregatorHealth = typeof AggregatorHealth.Type

// ---------------------------------------------------------------------------
// Manifest
// ---------------------------------------------------------------------------

/**
 * `/.well-known/svc-aggregator.json`: where the aggregator operations live, who
 * signs permits (`feedSigner`, the one authority), the solver discovery document,
 * and the published limits.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AggregatorManifest = Schema.Struct({
  schema: Schema.Literal("SVC_AGGREGATOR_MANIFEST_V1"),
  apiVersion: Schema.Literal("v1"),
  endpoints: Schema.Struct({
    quote: Uri,
    build: Uri,
    status: Uri,
    chains: Uri,
    tokens: Uri,
    health: Uri,
    openapi: Uri
  }),
  feedSigner: Address,
  solverDiscovery: Uri,
  rateLimits: Schema.Struct({
    scope: Schema.Literal("CLIENT"),
    windowSeconds: PositiveInt,
    requestsPerWindow: PositiveInt,
    quoteAndBuildPerWindow: PositiveInt
  }).annotate({
    description: "per client; each stage of build counts once; 429 carries Retry-After, RateLimit and RateLimit-Policy"
  }),
  limits: Schema.Struct({
    bodyBytes: Schema.Literal(32768),
    statusListMax: Schema.Literal(20)
  })
}).annotate({ identifier: "AggregatorManifest" })
/** @since 0.1.0 */
export type AggregatorManifest = typeof AggregatorManifest.Type
