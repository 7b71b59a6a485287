/**
 * The scalar conventions of the V6 interface (spec, "Conventions"): hex strings,
 * unsigned integers carried as base-10 strings, Unix seconds, RFC 3339 times and
 * USD estimates. Every schema here carries its identifier, so that the JSON Schema
 * of a resource refers to it as `#/$defs/<Identifier>`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { isCalendarDateTime, isUint256, representation } from "./Checks.ts"

/**
 * 32 bytes as `0x` + 64 hex digits (either case).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Bytes32 = Schema.String.check(Schema.isPattern(/^0x[0-9a-fA-F]{64}$/u)).annotate({
  identifier: "Bytes32",
  description: "32 bytes as 0x followed by 64 hex digits"
})
/** @since 0.1.0 */
export type Bytes32 = typeof Bytes32.Type

/**
 * An EVM address: `0x` + 40 hex digits. EIP-55 checksums are checked where an
 * address is an input identity (permit requests), not by this schema.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Address = Schema.String.check(Schema.isPattern(/^0x[0-9a-fA-F]{40}$/u)).annotate({
  identifier: "Address",
  description: "EVM address, 0x followed by 40 hex digits"
})
/** @since 0.1.0 */
export type Address = typeof Address.Type

/**
 * An unsigned integer as a base-10 string without leading zeros, at most 2^256 - 1.
 * Execution integers stay strings end to end: they are never turned into JS numbers.
 *
 * @category schemas
 * @since 0.1.0
 */
export const UintStr = Schema.String.check(
  Schema.isPattern(/^(?:0|[1-9][0-9]*)$/u),
  Schema.isMaxLength(78),
  Schema.makeFilter(isUint256, {
    expected: "an unsigned integer of at most 2^256 - 1",
    representation: representation("@svc/protocol/isUint256")
  })
).annotate({
  identifier: "UintStr",
  description: "unsigned integer as a base-10 string without leading zeros (at most 2^256 - 1)"
})
/** @since 0.1.0 */
export type UintStr = typeof UintStr.Type

/**
 * A 65-byte signature `r || s || v` as `0x` + 130 hex digits.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Sig65 = Schema.String.check(Schema.isPattern(/^0x[0-9a-fA-F]{130}$/u)).annotate({
  identifier: "Sig65",
  description: "65-byte secp256k1 signature r || s || v as 0x followed by 130 hex digits"
})
/** @since 0.1.0 */
export type Sig65 = typeof Sig65.Type

/**
 * A 4-byte function selector or interface id.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Selector4 = Schema.String.check(Schema.isPattern(/^0x[0-9a-fA-F]{8}$/u)).annotate({
  identifier: "Selector4",
  description: "4 bytes as 0x followed by 8 hex digits"
})
/** @since 0.1.0 */
export type Selector4 = typeof Selector4.Type

/**
 * Unix time in seconds (a non-negative safe integer).
 *
 * @category schemas
 * @since 0.1.0
 */
export const UnixSeconds = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
  identifier: "UnixSeconds",
  description: "Unix time in seconds"
})
/** @since 0.1.0 */
export type UnixSeconds = typeof UnixSeconds.Type

const RFC3339 = /^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})$/u

/**
 * An RFC 3339 date-time string (for example `2026-11-22T10:00:00.000Z`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const DateTime = Schema.String.check(
  Schema.isPattern(RFC3339),
  Schema.makeFilter(isCalendarDateTime, {
    expected: "an RFC 3339 date-time",
    representation: representation("@svc/protocol/isCalendarDateTime")
  })
).annotate({ identifier: "DateTime", description: "RFC 3339 date-time", format: "date-time" })
/** @since 0.1.0 */
export type DateTime = typeof DateTime.Type

/**
 * A non-negative decimal number as a string (an estimate, never execution authority).
 *
 * @category schemas
 * @since 0.1.0
 */
export const UsdDecimal = Schema.String.check(Schema.isPattern(/^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/u)).annotate({
  identifier: "UsdDecimal",
  description: "base-10 number with an optional fractional part; an estimate, never execution authority"
})
/** @since 0.1.0 */
export type UsdDecimal = typeof UsdDecimal.Type

/**
 * A free-form JSON object (locators, evidence, execution capacity): any keys, JSON values.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonObject = Schema.Record(Schema.String, Schema.Json).annotate({
  identifier: "JsonObject",
  description: "object with arbitrary keys and JSON values"
})
/** @since 0.1.0 */
export type JsonObject = typeof JsonObject.Type

/**
 * A network-specific locator: an object with arbitrary, connector-defined keys.
 * Its canonical JSON is part of signed routes and of the permit request message.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Locator = Schema.Record(Schema.String, Schema.Json).annotate({
  identifier: "Locator",
  description: "network-specific locator object; connector-defined keys, canonical JSON is signed"
})
/** @since 0.1.0 */
export type Locator = typeof Locator.Type

/**
 * Publication lane of a route.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PublicationLane = Schema.Literals(["L1", "L2", "L3", "L4"]).annotate({ identifier: "PublicationLane" })
/** @since 0.1.0 */
export type PublicationLane = typeof PublicationLane.Type

/**
 * Execution status of a route.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ExecutionStatus = Schema.Literals(["OPEN", "PAUSED", "TEMP_UNAVAILABLE"]).annotate({
  identifier: "ExecutionStatus"
})
/** @since 0.1.0 */
export type ExecutionStatus = typeof ExecutionStatus.Type

/**
 * Daily status of a route.
 *
 * @category schemas
 * @since 0.1.0
 */
export const DailyStatus = Schema.Literals(["OPEN", "CLOSED"]).annotate({ identifier: "DailyStatus" })
/** @since 0.1.0 */
export type DailyStatus = typeof DailyStatus.Type

/**
 * Service fee in basis points: a number from 0 to 10000, or null.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ServiceFeeBps = Schema.NullOr(
  Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 10000 }))
).annotate({ identifier: "ServiceFeeBps" })
/** @since 0.1.0 */
export type ServiceFeeBps = typeof ServiceFeeBps.Type

/**
 * Token decimals, 0 to 78.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TokenDecimals = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 78 }))

/**
 * An integer >= 1 (finality blocks, settlement window seconds).
 *
 * @category schemas
 * @since 0.1.0
 */
export const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/**
 * An integer >= 0 (ranks, counts).
 *
 * @category schemas
 * @since 0.1.0
 */
export const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * The idempotency key of a permit request: 8 to 128 of `a-z A-Z 0-9 . _ : -`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const IdempotencyKey = Schema.String.check(Schema.isPattern(/^[a-zA-Z0-9._:-]{8,128}$/u)).annotate({
  identifier: "IdempotencyKey",
  description: "8 to 128 characters of a-z A-Z 0-9 . _ : -"
})

/**
 * A permit standard name (`DIRECT`, `ERC-7683`, ...); canonical form is uppercase.
 *
 * @category schemas
 * @since 0.1.0
 */
export const StandardName = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/u)).annotate({
  identifier: "StandardName",
  description: "permit standard; default DIRECT; canonical form is uppercase"
})
