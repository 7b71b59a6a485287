/**
 * The checks of the protocol schemas that are not Effect's built-in filters, as
 * plain predicates, each with a stable id. The schemas run them through
 * `Schema.makeFilter` and name them with a `representation` annotation
 * (`{ id, payload: null }`), so that code that validates without Effect's Schema
 * (the client's compiled decoders, `@svc/client`) runs the very same functions.
 * This module does not import Effect.
 *
 * Each check takes a value that already passed the checks before it (a string
 * matching the schema's pattern) and answers `true` or the failure message.
 *
 * @since 0.1.0
 */

/** 2^256 - 1: the largest value an execution integer may take. */
const MAX_UINT256 = (1n << 256n) - 1n

/** 2^128: amounts of the aggregator are below it. */
const UINT128_LIMIT = 1n << 128n

/**
 * A base-10 unsigned integer string is at most 2^256 - 1.
 *
 * @category validation
 * @since 0.1.0
 */
export const isUint256 = (s: string): true | string => s.length < 78 || BigInt(s) <= MAX_UINT256 || "at most 2^256 - 1"

/**
 * A base-10 positive integer string is below 2^128.
 *
 * @category validation
 * @since 0.1.0
 */
export const isUint128 = (s: string): true | string =>
  s.length < 39 || BigInt(s) < UINT128_LIMIT || "must be below 2^128"

/**
 * An RFC 3339 date-time string (already matching the pattern) names a real
 * instant. Date.parse rolls impossible days over (2033-02-30 and 2033-04-31
 * parse) and takes hour 24, so the calendar is checked here: day within its
 * month, hour 00 to 23.
 *
 * @category validation
 * @since 0.1.0
 */
export const isCalendarDateTime = (s: string): true | string => {
  const year = Number(s.slice(0, 4))
  const month = Number(s.slice(5, 7))
  const day = Number(s.slice(8, 10))
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
  return (days !== undefined && day >= 1 && day <= days && Number(s.slice(11, 13)) <= 23 &&
    !Number.isNaN(Date.parse(s))) || "not a real date-time"
}

/**
 * An absolute URI (`URL.canParse`).
 *
 * @category validation
 * @since 0.1.0
 */
export const isAbsoluteUri = (s: string): true | string => URL.canParse(s) || "not an absolute URI"

/**
 * The checks by id: the `representation.id` the schemas give each of them.
 *
 * @category validation
 * @since 0.1.0
 */
export const CHECKS = {
  "@svc/protocol/isUint256": isUint256,
  "@svc/protocol/isUint128": isUint128,
  "@svc/protocol/isCalendarDateTime": isCalendarDateTime,
  "@svc/protocol/isAbsoluteUri": isAbsoluteUri
} as const

/**
 * The id of a check of {@link CHECKS}.
 *
 * @category validation
 * @since 0.1.0
 */
export type CheckId = keyof typeof CHECKS

/**
 * The `representation` annotation that names a check of {@link CHECKS} on its
 * `Schema.makeFilter`.
 *
 * @category validation
 * @since 0.1.0
 */
export const representation = (id: CheckId): { readonly id: CheckId; readonly payload: null } => ({ id, payload: null })
