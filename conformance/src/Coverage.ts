/**
 * The coverage phase's cases: deterministic boundary and negative inputs for
 * every operation that takes an input (query, path, header, body), each with
 * the class the spec gives it (accepted, 400, 404, 409, 410, 413; for the
 * event stream, whether the initial event is sent or suppressed).
 *
 * The permit request bodies are generated from the declared schemas of
 * `@svc/protocol` (`PermitRequest`, `PermitCreateRequest`): each property,
 * whether it is required, nullable, and its primitive (Bytes32, Address,
 * UintStr, IdempotencyKey, StandardName, Locator) are read from the schema, and
 * the primitive gives the boundaries (empty, minimum, maximum, one past, the
 * wrong type, another case, a checksum). Query, path and header inputs come
 * from spec part 4 and the same primitives.
 *
 * Where the spec leaves the answer open (a chain id longer than uint256, a
 * standard no one supports, duplicate JSON keys, a body's content type), a case
 * carries the statuses the spec allows and the one svc's documented profile
 * gives: a server answering another allowed status is a warning, not a
 * failure.
 *
 * @since 0.1.0
 */
import { Patterns } from "@svc/protocol"
import type { Schema } from "effect"

/**
 * The class the spec gives a case: what a conforming deployment does with it.
 *
 * @category models
 * @since 0.1.0
 */
export type CaseClass = "accepted" | "400" | "404" | "409" | "410" | "413" | "sent" | "suppressed"

/**
 * What a case must get.
 *
 * @category models
 * @since 0.1.0
 */
export interface Expectation {
  readonly class: CaseClass
  /** The statuses the spec allows (a response outside them fails the case). */
  readonly spec: ReadonlyArray<number>
  /** Where the spec gives the class. */
  readonly rule: string
  /** svc's documented answer, where the spec allows more than one (another allowed status is a warning). */
  readonly profile?: number | undefined
  /** Where svc documents it. */
  readonly profileRule?: string | undefined
}

/**
 * How deep a case goes: `quick` cases run by default (one per input and
 * class), `full` ones only with `--coverage full`.
 *
 * @category models
 * @since 0.1.0
 */
export type Depth = "quick" | "full"

/**
 * One case of a body, a query, a path or a header.
 *
 * @category models
 * @since 0.1.0
 */
export interface Case<Input> {
  /** A short stable label: `idempotencyKey: 7 characters`. */
  readonly label: string
  readonly depth: Depth
  readonly input: Input
  readonly expect: Expectation
}

// ---------------------------------------------------------------------------
// Expectations
// ---------------------------------------------------------------------------

/**
 * A case the spec accepts: the operation's success statuses.
 *
 * @category constructors
 * @since 0.1.0
 */
export const accepted = (statuses: ReadonlyArray<number>, rule: string): Expectation => ({
  class: "accepted",
  spec: statuses,
  rule
})

/**
 * A case the spec refuses with one status.
 *
 * @category constructors
 * @since 0.1.0
 */
export const refused = (status: 400 | 404 | 409 | 410 | 413, rule: string): Expectation => ({
  class: String(status) as CaseClass,
  spec: [status],
  rule
})

/**
 * A case whose answer the spec leaves open among `spec`; svc answers `profile`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const open = (
  klass: CaseClass,
  spec: ReadonlyArray<number>,
  profile: number,
  rule: string,
  profileRule: string
): Expectation => ({ class: klass, spec, profile, rule, profileRule })

// ---------------------------------------------------------------------------
// Reading the declared schemas
// ---------------------------------------------------------------------------

/**
 * The primitives the spec's conventions name, as the schemas identify them.
 *
 * @category models
 * @since 0.1.0
 */
export type Primitive =
  | "Bytes32"
  | "Address"
  | "UintStr"
  | "IdempotencyKey"
  | "StandardName"
  | "Locator"
  | "String"

/**
 * A property of a declared body schema.
 *
 * @category models
 * @since 0.1.0
 */
export interface Field {
  readonly name: string
  readonly required: boolean
  /** The schema accepts null for it (svc reads null as absent for identity fields). */
  readonly nullable: boolean
  readonly primitive: Primitive
  /** The pattern the schema checks, when it has one. */
  readonly pattern?: RegExp | undefined
}

const PRIMITIVES: ReadonlyArray<Primitive> = [
  "Bytes32",
  "Address",
  "UintStr",
  "IdempotencyKey",
  "StandardName",
  "Locator"
]

type Ast = {
  readonly _tag: string
  readonly annotations?: Record<string, unknown> | undefined
  readonly checks?: ReadonlyArray<{ readonly annotations?: Record<string, unknown> | undefined }> | undefined
  readonly types?: ReadonlyArray<Ast> | undefined
  readonly context?: { readonly isOptional?: boolean } | undefined
  readonly propertySignatures?: ReadonlyArray<{ readonly name: PropertyKey; readonly type: Ast }> | undefined
}

const identifierOf = (ast: Ast): string | undefined => {
  const own = ast.annotations?.identifier
  if (typeof own === "string") return own
  for (const check of [...(ast.checks ?? [])].reverse()) {
    const id = check.annotations?.identifier
    if (typeof id === "string") return id
  }
  return undefined
}

const patternOf = (ast: Ast): RegExp | undefined => {
  for (const check of ast.checks ?? []) {
    const representation = check.annotations?.representation as
      | { readonly id?: string; readonly payload?: { readonly source?: string } }
      | undefined
    if (representation?.id === "effect/schema/isPattern" && typeof representation.payload?.source === "string") {
      return new RegExp(representation.payload.source)
    }
  }
  return undefined
}

/**
 * The properties of a declared struct schema (a body of the interface): name,
 * required, nullable, primitive and pattern, in declaration order.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fieldsOf = (schema: Schema.Top): ReadonlyArray<Field> => {
  const ast = schema.ast as unknown as Ast
  return (ast.propertySignatures ?? []).map((p) => {
    const union = p.type._tag === "Union" ? p.type.types ?? [] : [p.type]
    const value = union.find((t) => t._tag !== "Null") ?? p.type
    const id = identifierOf(value)
    return {
      name: String(p.name),
      required: p.type.context?.isOptional !== true,
      nullable: union.some((t) => t._tag === "Null"),
      primitive: PRIMITIVES.includes(id as Primitive) ? (id as Primitive) : "String",
      pattern: patternOf(value)
    }
  })
}

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

/** A property removed from the body. */
export const ABSENT: unique symbol = Symbol.for("@svc/conformance/Coverage/ABSENT")

/**
 * A value a case gives a property: a JSON value, or {@link ABSENT}.
 *
 * @category models
 * @since 0.1.0
 */
export type Value = unknown

const hex = (n: number, fill = "a") => fill.repeat(n)

/**
 * The EIP-55 form of an address with every letter's case flipped: mixed case,
 * a wrong checksum (undefined when the address has fewer than two letters).
 *
 * @category constructors
 * @since 0.1.0
 */
export const wrongChecksum = (checksummed: string): string | undefined => {
  const body = checksummed.slice(2)
  if ((body.match(/[a-fA-F]/g) ?? []).length < 2) return undefined
  const flipped = [...body].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("")
  return /[a-f]/.test(flipped) && /[A-F]/.test(flipped) ? `0x${flipped}` : undefined
}

/** Wrong JSON types for a string property. */
export const WRONG_TYPES: ReadonlyArray<readonly [string, Value, Depth]> = [
  ["a number", 1, "quick"],
  ["a boolean", true, "full"],
  ["an array", [], "full"],
  ["an object", {}, "full"]
]

/**
 * Patterns the cases are written against, checked against the schemas' own
 * (a schema whose pattern changed makes the coverage test fail, not silently
 * test the old boundaries).
 *
 * @category constants
 * @since 0.1.0
 */
export const KNOWN_PATTERNS: Readonly<Record<Exclude<Primitive, "Locator" | "String">, string>> = {
  Bytes32: Patterns.BYTES32.source,
  Address: Patterns.ADDRESS.source,
  UintStr: Patterns.UINT.source,
  IdempotencyKey: Patterns.IDEMPOTENCY_KEY.source,
  StandardName: "^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
}

/**
 * Strings that break a Bytes32 pattern (one short, one long, no 0x, a non-hex
 * digit, empty, only the prefix).
 *
 * @category constructors
 * @since 0.1.0
 */
export const badBytes32: ReadonlyArray<readonly [string, string, Depth]> = [
  ["63 hex digits", `0x${hex(63)}`, "quick"],
  ["65 hex digits", `0x${hex(65)}`, "full"],
  ["64 hex digits without 0x", hex(64), "full"],
  ["a non-hex digit", `0x${hex(63)}g`, "full"],
  ["empty", "", "full"],
  ["only 0x", "0x", "full"]
]

/**
 * Strings that break an Address pattern.
 *
 * @category constructors
 * @since 0.1.0
 */
export const badAddresses: ReadonlyArray<readonly [string, string, Depth]> = [
  ["39 hex digits", `0x${hex(39, "1")}`, "quick"],
  ["41 hex digits", `0x${hex(41, "1")}`, "full"],
  ["40 hex digits without 0x", hex(40, "1"), "full"],
  ["a non-hex digit", `0x${hex(39, "1")}z`, "full"]
]

/**
 * Strings that break the UintStr pattern.
 *
 * @category constructors
 * @since 0.1.0
 */
export const badUints: ReadonlyArray<readonly [string, string, Depth]> = [
  ["a leading zero", "01", "quick"],
  ["negative", "-1", "full"],
  ["a fraction", "1.5", "full"],
  ["an exponent", "1e6", "full"],
  ["a leading space", " 1", "full"],
  ["empty", "", "full"],
  ["hexadecimal", "0x10", "full"]
]

/**
 * Idempotency keys on both sides of the 8..128 boundary and of the alphabet.
 *
 * @category constructors
 * @since 0.1.0
 */
export const keys = (
  unique: () => string
): ReadonlyArray<readonly [string, string, "valid" | "invalid", Depth]> => {
  const fill = (n: number) => {
    const base = unique().replace(/[^a-zA-Z0-9._:-]/g, "")
    return (base + "k".repeat(n)).slice(0, n).padEnd(n, "k")
  }
  // the short keys end with a unique part, so that two runs never share one
  const tail = (n: number) => {
    const u = unique().replace(/[^a-zA-Z0-9]/g, "")
    return u.slice(-n).padStart(n, "k")
  }
  return [
    ["8 characters (the minimum)", tail(8), "valid", "quick"],
    ["128 characters (the maximum)", fill(128), "valid", "quick"],
    ["every punctuation allowed (. _ : -)", `${tail(8)}._:-`, "valid", "full"],
    ["7 characters (one short)", tail(7), "invalid", "quick"],
    ["129 characters (one long)", fill(129), "invalid", "quick"],
    ["a space", `${tail(8)} x`, "invalid", "full"],
    ["a slash", `${tail(8)}/x`, "invalid", "full"],
    ["non-ASCII letters", `${tail(8)}ключ`, "invalid", "full"],
    ["empty", "", "invalid", "full"]
  ]
}

/**
 * JSON text of an object with one property written twice (`first`, then
 * `last`), the rest as `JSON.stringify` writes them.
 *
 * @category constructors
 * @since 0.1.0
 */
export const duplicateKey = (body: Readonly<Record<string, unknown>>, key: string, first: unknown): string => {
  const text = JSON.stringify(body)
  return `{${JSON.stringify(key)}:${JSON.stringify(first)},${text.slice(1)}`
}

/**
 * JSON text padded with spaces to exactly `size` bytes (JSON allows trailing
 * whitespace).
 *
 * @category constructors
 * @since 0.1.0
 */
export const padTo = (value: unknown, size: number): string => {
  const text = JSON.stringify(value)
  return text + " ".repeat(Math.max(0, size - new TextEncoder().encode(text).length))
}

/**
 * Selects the cases of a depth: `quick` keeps the quick ones, `full` all.
 *
 * @category constructors
 * @since 0.1.0
 */
export const select = <A>(cases: ReadonlyArray<Case<A>>, depth: "quick" | "full"): ReadonlyArray<Case<A>> =>
  depth === "full" ? cases : cases.filter((c) => c.depth === "quick")
