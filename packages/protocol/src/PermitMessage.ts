/**
 * The permit request message: normalisation of a permit request and the exact
 * UTF-8 text a payer signs (EIP-191 `personal_sign`).
 *
 * ```text
 * SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1
 * quoteId=<lowercase bytes32>
 * requestedAmountInRaw=<decimal>
 * standard=<UPPERCASE>
 * payer=<lowercase address>            | payerAccountId=<lowercase bytes32>
 *                                      | payerLocator=<canonical JSON>
 * recipient=<lowercase address>        | recipientAccountId=... / recipientLocator=...
 * idempotencyKey=<trimmed key>
 * ```
 *
 * Lines are joined by LF with no trailing LF: 7 lines for two addresses, one more
 * for each side given as account id + locator.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"
import { checksumAddress, keccak, utf8 } from "./Bytes.ts"
import type { Hex } from "./Bytes.ts"
import * as CanonicalJson from "./CanonicalJson.ts"
import { ADDRESS, BYTES32, IDEMPOTENCY_KEY, UINT } from "./Patterns.ts"
import type { Locator } from "./schema/Primitives.ts"
import * as Signature from "./Signature.ts"

/**
 * First line of the message.
 *
 * @category constants
 * @since 0.1.0
 */
export const PERMIT_REQUEST_DOMAIN = "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1" as const

/**
 * The line templates, as published in the solver manifest.
 *
 * @category constants
 * @since 0.1.0
 */
export const MESSAGE_LINE_TEMPLATES = [
  PERMIT_REQUEST_DOMAIN,
  "quoteId={lowercase-bytes32}",
  "requestedAmountInRaw={base10-uint128}",
  "standard={uppercase-standard}",
  "payer={lowercase-evm-address}|payerAccountId={lowercase-bytes32}\npayerLocator={canonical-json}",
  "recipient={lowercase-evm-address}|recipientAccountId={lowercase-bytes32}\nrecipientLocator={canonical-json}",
  "idempotencyKey={exact-trimmed-key}"
] as const

/** Permit standards svc executes. */
export const SUPPORTED_STANDARDS = ["DIRECT", "ERC-7683"] as const

/**
 * A permit request as a caller may give it to the library: hex in any case, the
 * amount as a decimal string, bigint or safe integer, locators as objects or
 * strings (a string `s` stands for `{"native": s}`), explicit nulls for unused
 * identity fields.
 *
 * @category models
 * @since 0.1.0
 */
export interface PermitRequestInput {
  readonly quoteId: string
  readonly requestedAmountInRaw: string | bigint | number
  readonly standard?: string | null | undefined
  readonly payer?: string | null | undefined
  readonly recipient?: string | null | undefined
  readonly payerAccountId?: string | null | undefined
  readonly recipientAccountId?: string | null | undefined
  readonly payerLocator?: Locator | string | null | undefined
  readonly recipientLocator?: Locator | string | null | undefined
  readonly idempotencyKey: string
  readonly requestSignature?: string | null | undefined
}

/**
 * The normalised request, in the upstream field order: lowercase hex, decimal
 * amount, uppercase standard, EIP-55 addresses, object locators, trimmed key, and
 * `null` for the unused identity fields.
 *
 * @category models
 * @since 0.1.0
 */
export interface NormalizedPermitRequest {
  readonly quoteId: Hex
  readonly requestedAmountInRaw: string
  readonly standard: string
  readonly payer: Hex | null
  readonly recipient: Hex | null
  readonly payerAccountId: Hex | null
  readonly recipientAccountId: Hex | null
  readonly payerLocator: Locator | null
  readonly recipientLocator: Locator | null
  readonly idempotencyKey: string
}

/**
 * A permit request that cannot be normalised. `code` is a stable reason code
 * (`QUOTE_ID_INVALID`, `AMOUNT_ZERO`, `PAYER_CHECKSUM_INVALID`, ...).
 *
 * @category errors
 * @since 0.1.0
 */
export class PermitRequestInvalid extends Data.TaggedError("PermitRequestInvalid")<{
  readonly code: string
  readonly field: string
  readonly reason: string
}> {
  override get message(): string {
    return `${this.field}: ${this.reason}`
  }
}

const DECIMAL = UINT
const STANDARD = /^[A-Z0-9][A-Z0-9._:-]{0,63}$/
/** The input pattern (the spec's): ASCII only, checked before uppercasing ("ı" and "ß" uppercase to ASCII). */
const STANDARD_INPUT = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/
const KEY = IDEMPOTENCY_KEY
const UINT128_LIMIT = 1n << 128n

const invalid = (code: string, field: string, reason: string) => new PermitRequestInvalid({ code, field, reason })

const parseAmount = (value: unknown): string => {
  if (typeof value === "bigint") {
    if (value < 0n) throw invalid("AMOUNT_INVALID", "requestedAmountInRaw", "must not be negative")
    return value.toString()
  }
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw invalid(
        "AMOUNT_INVALID",
        "requestedAmountInRaw",
        "a number must be a non-negative safe integer; use a string"
      )
    }
    return String(value)
  }
  if (typeof value === "string" && DECIMAL.test(value)) return value
  throw invalid("AMOUNT_INVALID", "requestedAmountInRaw", "must be a base-10 unsigned integer without leading zeros")
}

const sideCode = (side: "payer" | "recipient") => side.toUpperCase()

const parseLocator = (side: "payer" | "recipient", value: unknown): Locator => {
  if (typeof value === "string") return { native: value }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const text = CanonicalJson.stringifyResult(value)
    if (Result.isFailure(text)) {
      throw invalid(`${sideCode(side)}_LOCATOR_INVALID`, `${side}Locator`, text.failure.message)
    }
    return value as Locator
  }
  throw invalid(
    `${sideCode(side)}_LOCATOR_INVALID`,
    `${side}Locator`,
    "a locator is an object (or, in the library, a string)"
  )
}

const present = (value: unknown): boolean => value !== undefined && value !== null

/**
 * Whether a hex address passes EIP-55: all-lowercase and all-uppercase forms carry
 * no checksum and pass; a mixed-case form must equal its checksummed form.
 *
 * @category validation
 * @since 0.1.0
 */
export const hasValidChecksum = (address: string): boolean => {
  const body = address.slice(2)
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true
  return checksumAddress(address.toLowerCase()) === address
}

const normalizeSide = (side: "payer" | "recipient", input: PermitRequestInput, checksums: boolean) => {
  const address = input[side]
  const accountId = input[`${side}AccountId`]
  const locator = input[`${side}Locator`]
  const S = sideCode(side)
  if (present(address)) {
    if (present(accountId) || present(locator)) {
      throw invalid(
        `${S}_IDENTITY_AMBIGUOUS`,
        side,
        `give either ${side} or ${side}AccountId with ${side}Locator, not both`
      )
    }
    if (typeof address !== "string" || !ADDRESS.test(address)) {
      throw invalid(`${S}_INVALID`, side, "must be 0x followed by 40 hex digits")
    }
    if (checksums && !hasValidChecksum(address)) {
      throw invalid(`${S}_CHECKSUM_INVALID`, side, "mixed-case address with a wrong EIP-55 checksum")
    }
    return { address: checksumAddress(address.toLowerCase()), accountId: null, locator: null }
  }
  if (!present(accountId) && !present(locator)) {
    throw invalid(`${S}_IDENTITY_MISSING`, side, `give ${side}, or ${side}AccountId with ${side}Locator`)
  }
  if (!present(accountId)) throw invalid(`${S}_ACCOUNT_ID_MISSING`, `${side}AccountId`, `required with ${side}Locator`)
  if (!present(locator)) throw invalid(`${S}_LOCATOR_MISSING`, `${side}Locator`, `required with ${side}AccountId`)
  if (typeof accountId !== "string" || !BYTES32.test(accountId)) {
    throw invalid(`${S}_ACCOUNT_ID_INVALID`, `${side}AccountId`, "must be 0x followed by 64 hex digits")
  }
  return { address: null, accountId: accountId.toLowerCase() as Hex, locator: parseLocator(side, locator) }
}

/**
 * Options of {@link normalize}.
 *
 * @category models
 * @since 0.1.0
 */
export interface NormalizeOptions {
  /**
   * Check the EIP-55 checksum of mixed-case addresses and the amount range
   * (0 < amount < 2^128). Default true. A server that must order its checks
   * turns them off here and runs {@link checkAmount} / {@link checkChecksums} later.
   */
  readonly strict?: boolean | undefined
}

/**
 * Normalises a permit request.
 *
 * @throws {PermitRequestInvalid}
 * @category encoding
 * @since 0.1.0
 */
export const normalize = (input: PermitRequestInput, options?: NormalizeOptions): NormalizedPermitRequest => {
  const strict = options?.strict ?? true
  if (typeof input !== "object" || input === null) throw invalid("REQUEST_INVALID", "request", "expected an object")
  if (typeof input.quoteId !== "string" || !BYTES32.test(input.quoteId)) {
    throw invalid("QUOTE_ID_INVALID", "quoteId", "must be 0x followed by 64 hex digits")
  }
  const requestedAmountInRaw = parseAmount(input.requestedAmountInRaw)
  const standardInput = input.standard ?? "DIRECT"
  const standard = typeof standardInput === "string" && STANDARD_INPUT.test(standardInput)
    ? standardInput.toUpperCase()
    : ""
  if (!STANDARD.test(standard)) {
    throw invalid("STANDARD_INVALID", "standard", "1 to 64 of A-Z 0-9 . _ : -, starting with a letter or digit")
  }
  const idempotencyKey = typeof input.idempotencyKey === "string" ? input.idempotencyKey.trim() : ""
  if (!KEY.test(idempotencyKey)) {
    throw invalid("IDEMPOTENCY_KEY_INVALID", "idempotencyKey", "8 to 128 of a-z A-Z 0-9 . _ : -")
  }
  const payer = normalizeSide("payer", input, strict)
  const recipient = normalizeSide("recipient", input, strict)
  const normalized: NormalizedPermitRequest = {
    quoteId: input.quoteId.toLowerCase() as Hex,
    requestedAmountInRaw,
    standard,
    payer: payer.address,
    recipient: recipient.address,
    payerAccountId: payer.accountId,
    recipientAccountId: recipient.accountId,
    payerLocator: payer.locator,
    recipientLocator: recipient.locator,
    idempotencyKey
  }
  if (strict) checkAmount(normalized)
  return normalized
}

/**
 * Normalises a permit request, as a `Result`.
 *
 * @category encoding
 * @since 0.1.0
 */
export const normalizeResult = (
  input: PermitRequestInput,
  options?: NormalizeOptions
): Result.Result<NormalizedPermitRequest, PermitRequestInvalid> =>
  Result.try({
    try: () => normalize(input, options),
    catch: (error) =>
      error instanceof PermitRequestInvalid ? error : invalid("REQUEST_INVALID", "request", String(error))
  })

/**
 * Checks 0 < requestedAmountInRaw < 2^128.
 *
 * @throws {PermitRequestInvalid} with code AMOUNT_ZERO or AMOUNT_TOO_LARGE.
 * @category validation
 * @since 0.1.0
 */
export const checkAmount = (request: { readonly requestedAmountInRaw: string }): void => {
  const amount = BigInt(request.requestedAmountInRaw)
  if (amount === 0n) throw invalid("AMOUNT_ZERO", "requestedAmountInRaw", "must be greater than 0")
  if (amount >= UINT128_LIMIT) throw invalid("AMOUNT_TOO_LARGE", "requestedAmountInRaw", "must be below 2^128")
}

/**
 * Checks the EIP-55 checksum of the payer and recipient addresses of a raw request.
 *
 * @throws {PermitRequestInvalid} with code PAYER_CHECKSUM_INVALID or RECIPIENT_CHECKSUM_INVALID.
 * @category validation
 * @since 0.1.0
 */
export const checkChecksums = (input: Pick<PermitRequestInput, "payer" | "recipient">): void => {
  for (const side of ["payer", "recipient"] as const) {
    const address = input[side]
    if (typeof address === "string" && ADDRESS.test(address) && !hasValidChecksum(address)) {
      throw invalid(`${sideCode(side)}_CHECKSUM_INVALID`, side, "mixed-case address with a wrong EIP-55 checksum")
    }
  }
}

/**
 * The message text of a normalised request.
 *
 * @category encoding
 * @since 0.1.0
 */
export const message = (request: NormalizedPermitRequest): string => {
  const lines: Array<string> = [
    PERMIT_REQUEST_DOMAIN,
    `quoteId=${request.quoteId.toLowerCase()}`,
    `requestedAmountInRaw=${request.requestedAmountInRaw}`,
    `standard=${request.standard}`
  ]
  for (const side of ["payer", "recipient"] as const) {
    const address = request[side]
    if (address !== null) {
      lines.push(`${side}=${address.toLowerCase()}`)
    } else {
      lines.push(`${side}AccountId=${request[`${side}AccountId`]!.toLowerCase()}`)
      lines.push(`${side}Locator=${CanonicalJson.stringify(request[`${side}Locator`])}`)
    }
  }
  lines.push(`idempotencyKey=${request.idempotencyKey}`)
  return lines.join("\n")
}

/**
 * Normalises a request and builds its message.
 *
 * @throws {PermitRequestInvalid}
 * @category encoding
 * @since 0.1.0
 */
export const build = (input: PermitRequestInput): string => message(normalize(input))

/**
 * A fingerprint of the normalised request (without signature): keccak256 of its
 * canonical JSON. Two requests with the same fingerprint are the same intent.
 *
 * @category encoding
 * @since 0.1.0
 */
export const fingerprint = (request: NormalizedPermitRequest): Hex => keccak(utf8(CanonicalJson.stringify(request)))

/**
 * Signs the message of a request with an EVM key (EIP-191 `personal_sign`).
 *
 * @category crypto
 * @since 0.1.0
 */
export const sign = (messageText: string, privateKey: Hex): Hex =>
  Signature.signPersonalMessage(messageText, privateKey)

/**
 * Recovers the EVM address that signed a message (EIP-191), refusing high-s and
 * malformed signatures.
 *
 * @category crypto
 * @since 0.1.0
 */
export const recoverSigner = (messageText: string, requestSignature: string) =>
  Signature.recoverPersonalMessageSigner(messageText, requestSignature)
