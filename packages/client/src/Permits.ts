/**
 * Permits on the client side, as pure functions: the request message built
 * locally with the core's builder, signing with a viem account or any signer
 * function, verification of a returned permit, and the `fillDirect`
 * transaction.
 *
 * A returned permit is accepted only when:
 *
 * 1. `permitDigest` recomputed from `permit` (EIP-712, docs/protocol.md) equals
 *    the envelope's, and `permitSignature` recovers (low-s) to the authority (the
 *    feedSigner of the manifest, or the pinned signer);
 * 2. `envelope.fillId` is `permit.fillId` and `execution.target` is
 *    `permit.sourceRouter`;
 * 3. it binds what was requested: quoteId, amountInRaw, the payer and recipient
 *    identities (an EVM address, with its account id derived on the route's
 *    network, or the account id), the idempotency key;
 * 4. when the signed route is known: routeId, network and asset ids, policyHash,
 *    executionGeneration, chain ids, router and settlement terms are the route's,
 *    and the permit does not outlive the route;
 * 5. optionally: amountOutRaw equals (or is at least) a given amount, and
 *    `validAfter <= now < validUntil` (with a clock-skew allowance on validAfter).
 *
 * @since 0.1.0
 */
import * as Ids from "@svc/protocol/Ids"
import { screamingSnake, SIG65 } from "@svc/protocol/Patterns"
import * as PermitAbi from "@svc/protocol/PermitAbi"
import * as PermitDigest from "@svc/protocol/PermitDigest"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import type { Route } from "@svc/protocol/schema/Feed"
import type { ExecutionPermitEnvelope } from "@svc/protocol/schema/Permit"
import * as Signature from "@svc/protocol/Signature"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { concat, encodeAbiParameters, getAddress, type Hex, toFunctionSelector } from "viem"
import { PermitInvalid, PermitRequestInvalid, SigningFailed } from "./Errors.ts"

/**
 * A permit intent: the request without its signature; the idempotency key is
 * generated once when absent (keep the result to retry the same intent).
 *
 * @category models
 * @since 0.1.0
 */
export type PermitIntent = Omit<PermitMessage.PermitRequestInput, "idempotencyKey" | "requestSignature"> & {
  readonly idempotencyKey?: string | undefined
}

/**
 * A permit request ready to sign: the normalised request and its exact message.
 *
 * @category models
 * @since 0.1.0
 */
export interface PreparedPermitRequest {
  readonly request: PermitMessage.NormalizedPermitRequest
  readonly message: string
  readonly idempotencyKey: string
}

/**
 * What signs the permit request message with EIP-191 `personal_sign`: a viem
 * account (`privateKeyToAccount(...)`, or any object with `signMessage({ message })`),
 * or a function from the message to the signature (for example
 * `(message) => walletClient.signMessage({ account, message })`).
 *
 * @category models
 * @since 0.1.0
 */
export type MessageSigner =
  | ((message: string) => Promise<string> | string)
  | { readonly signMessage: (args: { readonly message: string }) => Promise<string> }

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"

/** ERC-20 `approve`, encoded without viem's ABI lookup (`encodeFunctionData` with `erc20Abi` gives the same bytes). */
const APPROVE = "approve(address,uint256)"
const APPROVE_PARAMETERS = [{ type: "address" }, { type: "uint256" }] as const

/**
 * A fresh idempotency key: `svc-` and 32 random hex digits (CSPRNG).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const newIdempotencyKey = (): string => {
  const bytes = new Uint8Array(16)
  globalThis.crypto.getRandomValues(bytes)
  return `svc-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`
}

const requestInvalid = (error: unknown): PermitRequestInvalid =>
  error instanceof PermitMessage.PermitRequestInvalid
    ? new PermitRequestInvalid({ reasonCode: error.code, field: error.field, reason: error.reason })
    : new PermitRequestInvalid({ reasonCode: "REQUEST_INVALID", field: "request", reason: String(error) })

/**
 * Normalises a request that has its idempotency key and builds its message with
 * the core's builder (byte-identical to the server's request-message answer).
 *
 * @category encoding
 * @since 0.1.0
 */
export const prepare = (
  intent: PermitIntent & { readonly idempotencyKey: string }
): Result.Result<PreparedPermitRequest, PermitRequestInvalid> =>
  Result.mapError(
    Result.map(PermitMessage.normalizeResult(intent), (request) => ({
      request,
      message: PermitMessage.message(request),
      idempotencyKey: request.idempotencyKey
    })),
    requestInvalid
  )

/**
 * Signs a message with a signer; the result must be a 65-byte hex signature.
 *
 * @category crypto
 * @since 0.1.0
 */
export const signWith = (signer: MessageSigner, message: string): Effect.Effect<Hex, SigningFailed> =>
  Effect.tryPromise({
    try: async () => typeof signer === "function" ? await signer(message) : await signer.signMessage({ message }),
    catch: (cause) => new SigningFailed({ reason: String((cause as Error)?.message ?? cause).split("\n")[0]!, cause })
  }).pipe(
    Effect.flatMap((signature) =>
      typeof signature === "string" && SIG65.test(signature)
        ? Effect.succeed(signature.toLowerCase() as Hex)
        : Effect.fail(new SigningFailed({ reason: "the signer did not return a 65-byte hex signature" }))
    )
  )

/**
 * Checks that an EVM payer's signature recovers to the payer (low-s, EIP-191),
 * before anything is sent. Account-form payers prove ownership with their
 * connector's format and are not checked here.
 *
 * @category crypto
 * @since 0.1.0
 */
export const checkRequestSignature = (
  prepared: PreparedPermitRequest,
  signature: string
): Result.Result<void, PermitRequestInvalid> => {
  const payer = prepared.request.payer
  if (payer === null) return Result.succeed(undefined)
  const recovered = PermitMessage.recoverSigner(prepared.message, signature)
  if (Result.isFailure(recovered)) {
    return Result.fail(
      new PermitRequestInvalid({
        reasonCode: `SIGNATURE_${recovered.failure.problem}`,
        field: "requestSignature",
        reason: recovered.failure.message
      })
    )
  }
  if (recovered.success.toLowerCase() !== payer.toLowerCase()) {
    return Result.fail(
      new PermitRequestInvalid({
        reasonCode: "SIGNER_NOT_PAYER",
        field: "requestSignature",
        reason: `the signature recovers to ${recovered.success}, not to the payer ${payer}`
      })
    )
  }
  return Result.succeed(undefined)
}

/**
 * The permit creation body: the normalised request (explicit nulls for unused
 * identity fields, as the upstream SDKs send) plus the signature. Built once and
 * sent unchanged on every retry.
 *
 * @category encoding
 * @since 0.1.0
 */
export const createBody = (prepared: PreparedPermitRequest, requestSignature: string): string =>
  JSON.stringify({ ...prepared.request, requestSignature })

/**
 * The request-message body (no signature).
 *
 * @category encoding
 * @since 0.1.0
 */
export const messageBody = (prepared: PreparedPermitRequest): string => JSON.stringify(prepared.request)

/**
 * What a returned permit must bind.
 *
 * @category models
 * @since 0.1.0
 */
export interface PermitExpectation {
  /** The permit authority (the feed signer). */
  readonly authority: string
  /** The request it answers. */
  readonly request?: PermitMessage.NormalizedPermitRequest | undefined
  /** The signed route of the quote. */
  readonly route?: Route | undefined
  /** The exact amountOutRaw (an aggregator quote binds it). */
  readonly amountOutRaw?: string | undefined
  /** The least acceptable amountOutRaw. */
  readonly minAmountOutRaw?: string | undefined
  /** When given, `validAfter - skew <= now < validUntil` must hold (Unix seconds). */
  readonly now?: number | undefined
  /** Allowed clock difference on validAfter, seconds (default 60). */
  readonly clockSkewSeconds?: number | undefined
}

const eqHex = (a: string | null | undefined, b: string | null | undefined): boolean =>
  typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase()

const screaming = screamingSnake

/** Route fields a permit copies (name in the permit, name in the route). */
const ROUTE_BINDINGS: ReadonlyArray<readonly [keyof ExecutionPermitEnvelope["permit"], keyof Route]> = [
  ["routeId", "routeId"],
  ["quoteId", "quoteId"],
  ["sourceNetworkId", "sourceNetworkId"],
  ["sourceAssetId", "sourceAssetId"],
  ["destinationNetworkId", "destinationNetworkId"],
  ["destinationAssetId", "destinationAssetId"],
  ["policyHash", "policyHash"],
  ["executionGeneration", "executionGeneration"],
  ["sourceFinalityBlocks", "sourceFinalityBlocks"],
  ["settlementWindowSeconds", "settlementWindowSeconds"],
  ["publicationLane", "publicationLane"],
  ["serviceCategory", "serviceCategory"],
  ["feeMode", "feeMode"]
]

/** Route bindings that are null in a route for a non-EVM side (the permit then has "0" / the zero address). */
const ROUTE_EVM_BINDINGS: ReadonlyArray<readonly [keyof ExecutionPermitEnvelope["permit"], keyof Route]> = [
  ["sourceChainId", "sourceChainId"],
  ["destinationChainId", "destinationChainId"],
  ["sourceAsset", "sourceAsset"],
  ["destinationAsset", "destinationAsset"],
  ["sourceVault", "sourceVault"],
  ["destinationVault", "destinationVault"],
  ["sourceRouter", "sourceRouter"]
]

const same = (a: unknown, b: unknown): boolean =>
  typeof a === "string" && typeof b === "string" ? a.toLowerCase() === b.toLowerCase() : a === b

/**
 * Every reason a permit envelope fails its expectation (empty when it passes).
 *
 * @category crypto
 * @since 0.1.0
 */
export const permitProblems = (envelope: ExecutionPermitEnvelope, expect: PermitExpectation): Array<string> => {
  const problems: Array<string> = []
  const permit = envelope.permit
  // 1. digest and authority
  const digest = Result.try({ try: () => PermitDigest.digest(permit), catch: (e) => e })
  if (Result.isFailure(digest)) {
    problems.push("PERMIT_DIGEST_UNCOMPUTABLE")
  } else {
    if (!eqHex(digest.success, envelope.permitDigest)) problems.push("PERMIT_DIGEST_MISMATCH")
    const signer = Signature.recoverDigestSigner(digest.success, envelope.permitSignature)
    if (Result.isFailure(signer)) problems.push(`PERMIT_SIGNATURE_${signer.failure.problem}`)
    else if (!eqHex(signer.success, expect.authority)) problems.push("PERMIT_SIGNER_MISMATCH")
  }
  // 2. envelope consistency
  if (!eqHex(envelope.fillId, permit.fillId)) problems.push("FILL_ID_MISMATCH")
  if (!eqHex(envelope.execution.target, permit.sourceRouter)) problems.push("EXECUTION_TARGET_MISMATCH")
  // 3. the request
  const request = expect.request
  if (request !== undefined) {
    if (!eqHex(permit.quoteId, request.quoteId)) problems.push("QUOTE_ID_MISMATCH")
    if (permit.amountInRaw !== request.requestedAmountInRaw) problems.push("AMOUNT_IN_MISMATCH")
    if (envelope.idempotencyKey !== request.idempotencyKey) problems.push("IDEMPOTENCY_KEY_MISMATCH")
    for (const side of ["payer", "recipient"] as const) {
      const S = side.toUpperCase()
      const network = side === "payer" ? permit.sourceNetworkId : permit.destinationNetworkId
      const address = request[side]
      if (address !== null) {
        if (!eqHex(permit[side], address)) problems.push(`${S}_MISMATCH`)
        const derived = Result.try(() => Ids.evmAccountId(network, address))
        if (Result.isFailure(derived) || !eqHex(permit[`${side}AccountId`], derived.success)) {
          problems.push(`${S}_ACCOUNT_ID_MISMATCH`)
        }
      } else if (!eqHex(permit[`${side}AccountId`], request[`${side}AccountId`])) {
        problems.push(`${S}_ACCOUNT_ID_MISMATCH`)
      }
    }
  }
  // 4. the route
  const route = expect.route
  if (route !== undefined) {
    for (const [field, routeField] of ROUTE_BINDINGS) {
      if (!same(permit[field], route[routeField])) problems.push(`ROUTE_${screaming(field)}_MISMATCH`)
    }
    for (const [field, routeField] of ROUTE_EVM_BINDINGS) {
      const expected = route[routeField] ?? (field.endsWith("ChainId") ? "0" : ZERO_ADDRESS)
      if (!same(permit[field], expected)) problems.push(`ROUTE_${screaming(field)}_MISMATCH`)
    }
    if (BigInt(permit.validUntil) > BigInt(route.validUntil)) problems.push("PERMIT_OUTLIVES_ROUTE")
    const amountIn = BigInt(permit.amountInRaw)
    if (amountIn < BigInt(route.minimumFillInRaw)) problems.push("AMOUNT_IN_BELOW_ROUTE_MINIMUM")
  }
  // 5. amounts and window
  if (expect.amountOutRaw !== undefined && permit.amountOutRaw !== expect.amountOutRaw) {
    problems.push("AMOUNT_OUT_MISMATCH")
  }
  if (expect.minAmountOutRaw !== undefined && BigInt(permit.amountOutRaw) < BigInt(expect.minAmountOutRaw)) {
    problems.push("AMOUNT_OUT_TOO_LOW")
  }
  if (BigInt(permit.amountOutRaw) === 0n) problems.push("AMOUNT_OUT_ZERO")
  if (expect.now !== undefined) {
    const skew = expect.clockSkewSeconds ?? 60
    if (BigInt(permit.validAfter) > BigInt(Math.floor(expect.now + skew))) problems.push("PERMIT_NOT_YET_VALID")
    if (BigInt(permit.validUntil) <= BigInt(Math.floor(expect.now))) problems.push("PERMIT_EXPIRED")
  }
  if (Number.isSafeInteger(envelope.expiresAt) && BigInt(envelope.expiresAt) !== BigInt(permit.validUntil)) {
    problems.push("EXPIRES_AT_MISMATCH")
  }
  return problems
}

/**
 * Verifies a permit envelope against its expectation.
 *
 * @category crypto
 * @since 0.1.0
 */
export const verifyPermit = (
  envelope: ExecutionPermitEnvelope,
  expect: PermitExpectation
): Result.Result<void, PermitInvalid> => {
  const problems = permitProblems(envelope, expect)
  return problems.length === 0
    ? Result.succeed(undefined)
    : Result.fail(new PermitInvalid({ fillId: envelope.fillId, reasons: problems }))
}

/**
 * An ERC-20 approval to send before the fill: approve exactly `amount` of
 * `token` to `spender` (`data` is the `approve` calldata for `to: token`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Approval {
  readonly token: Hex
  readonly spender: Hex
  readonly amount: bigint
  readonly data: Hex
}

/**
 * The source transaction of a direct fill: `fillDirect(permit, permitSignature)`
 * on the router, from the payer, on the source chain. Send `{ chainId, to, data,
 * value }` (viem `sendTransaction` takes these fields as they are), after
 * `approval` when it is not null.
 *
 * @category models
 * @since 0.1.0
 */
export interface FillDirectTransaction {
  readonly chainId: number
  readonly from: Hex
  readonly to: Hex
  readonly data: Hex
  /** Wei: amountInRaw for a native-coin input, else 0. */
  readonly value: bigint
  readonly approval: Approval | null
}

/**
 * Builds the `fillDirect` transaction of a permit envelope (an EVM source side
 * is required).
 *
 * @category onchain
 * @since 0.1.0
 */
export const fillDirectTransaction = (
  envelope: ExecutionPermitEnvelope
): Result.Result<FillDirectTransaction, PermitInvalid> => {
  const permit = envelope.permit
  const chainId = Number(permit.sourceChainId)
  if (!Number.isSafeInteger(chainId) || chainId <= 0) {
    return Result.fail(new PermitInvalid({ fillId: envelope.fillId, reasons: ["NO_EVM_SOURCE_CHAIN"] }))
  }
  const data = Result.try({ try: () => PermitAbi.encodeFillDirect(permit, envelope.permitSignature), catch: (e) => e })
  if (Result.isFailure(data)) {
    return Result.fail(new PermitInvalid({ fillId: envelope.fillId, reasons: ["PERMIT_NOT_ENCODABLE"] }))
  }
  const to = getAddress(envelope.execution.target.toLowerCase())
  const native = permit.sourceAsset.toLowerCase() === ZERO_ADDRESS
  const amount = BigInt(permit.amountInRaw)
  const token = getAddress(permit.sourceAsset.toLowerCase())
  return Result.succeed({
    chainId,
    from: getAddress(permit.payer.toLowerCase()),
    to,
    data: data.success,
    value: native ? amount : 0n,
    approval: native ? null : {
      token,
      spender: to,
      amount,
      data: concat([toFunctionSelector(APPROVE), encodeAbiParameters(APPROVE_PARAMETERS, [to, amount])])
    }
  })
}

/**
 * Terminal permit states (PAID, EXPIRED, FAILED). A payout that waits (for the
 * vault, the fees, the chain or the operator) keeps its permit
 * SOURCE_CONFIRMED or PAYOUT_SUBMITTED, never FAILED. An svc server declares
 * PAID at the destination's finality; only where a network's finality is a
 * block depth can a reorganisation deeper than it remove a payout, and then the
 * permit is PAYOUT_SUBMITTED again until the payout is final anew (the vault
 * pays a fillId once).
 *
 * @category running
 * @since 0.1.0
 */
export const TERMINAL_STATES: ReadonlySet<string> = new Set(["PAID", "EXPIRED", "FAILED"])

/**
 * Whether a permit state is terminal.
 *
 * @category running
 * @since 0.1.0
 */
export const isTerminalState = (state: string): boolean => TERMINAL_STATES.has(state)
