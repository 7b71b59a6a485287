/**
 * The string patterns of the interface's conventions (Bytes32, Address, UintStr,
 * Sig65, idempotency keys, quote tokens), as regular expressions and type
 * guards, plus the small helpers every boundary needs. The schemas of
 * `schema/Primitives` use the same patterns; code that only needs a quick test
 * (a path parameter, a query value) uses these instead of redeclaring them.
 *
 * @since 0.1.0
 */

/**
 * `0x` + 64 hex digits, either case.
 *
 * @category constants
 * @since 0.1.0
 */
export const BYTES32 = /^0x[0-9a-fA-F]{64}$/

/**
 * `0x` + 40 hex digits, either case (the EIP-55 checksum is checked elsewhere).
 *
 * @category constants
 * @since 0.1.0
 */
export const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/**
 * An unsigned base-10 integer without leading zeros.
 *
 * @category constants
 * @since 0.1.0
 */
export const UINT = /^(?:0|[1-9][0-9]*)$/

/**
 * `0x` + 130 hex digits: a 65-byte signature.
 *
 * @category constants
 * @since 0.1.0
 */
export const SIG65 = /^0x[0-9a-fA-F]{130}$/

/**
 * An idempotency key (body field and Idempotency-Key header).
 *
 * @category constants
 * @since 0.1.0
 */
export const IDEMPOTENCY_KEY = /^[a-zA-Z0-9._:-]{8,128}$/

/**
 * An aggregator quoteToken: 64 lowercase hex digits.
 *
 * @category constants
 * @since 0.1.0
 */
export const QUOTE_TOKEN = /^[0-9a-f]{64}$/

/**
 * A positive decimal chain id without leading zeros (the feed's `sourceChainId` filter).
 *
 * @category constants
 * @since 0.1.0
 */
export const CHAIN_ID = /^[1-9][0-9]*$/

/**
 * Whether a value is a Bytes32 string.
 *
 * @category validation
 * @since 0.1.0
 */
export const isBytes32 = (u: unknown): u is `0x${string}` => typeof u === "string" && BYTES32.test(u)

/**
 * Whether a value is an address string (any case).
 *
 * @category validation
 * @since 0.1.0
 */
export const isAddress = (u: unknown): u is `0x${string}` => typeof u === "string" && ADDRESS.test(u)

/**
 * Whether a value is a UintStr.
 *
 * @category validation
 * @since 0.1.0
 */
export const isUintStr = (u: unknown): u is string => typeof u === "string" && UINT.test(u)

/**
 * Whether a value is a plain object (not null, not an array).
 *
 * @category validation
 * @since 0.1.0
 */
export const isPlainObject = (u: unknown): u is Record<string, unknown> => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/**
 * A field name as a reason code prefix: `quoteId` -> `QUOTE_ID` (other characters
 * than letters and digits become `_`).
 *
 * @category errors
 * @since 0.1.0
 */
export const screamingSnake = (name: string): string =>
  name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[^A-Za-z0-9]+/g, "_").toUpperCase()
