/**
 * Canonical JSON: the byte format behind the feed hash and the locators of the
 * permit request message.
 *
 * - objects: keys sorted by UTF-16 code units (JavaScript's default sort), members
 *   written as `JSON.stringify(key):canonical(value)`, no whitespace;
 * - arrays: input order, elements canonicalised;
 * - strings, booleans, null: `JSON.stringify` (escapes only `"`, `\` and controls,
 *   lone surrogates as `\udxxx`; no Unicode normalisation);
 * - numbers: integers with |n| <= 2^53 - 1 only (larger execution integers are
 *   base-10 strings); bigints are written as quoted decimal strings, like the
 *   upstream SDKs do;
 * - `undefined`, functions, symbols, non-finite or fractional numbers, sparse
 *   arrays and non-plain objects are refused with a {@link CanonicalJsonError}.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"

/**
 * Why a value has no canonical JSON form, and where in the value.
 *
 * @category errors
 * @since 0.1.0
 */
export class CanonicalJsonError extends Data.TaggedError("CanonicalJsonError")<{
  readonly path: string
  readonly reason: string
}> {
  override get message(): string {
    return `no canonical JSON form at ${this.path}: ${this.reason}`
  }
}

/** The `$.a[0]["b c"]` form of a path, built only when an error is reported. */
const renderPath = (path: ReadonlyArray<string | number>): string => {
  let out = "$"
  for (const part of path) {
    out += typeof part === "number"
      ? `[${part}]`
      : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(part)
      ? `.${part}`
      : `[${JSON.stringify(part)}]`
  }
  return out
}

/** Deeper nesting is refused (it also stops cyclic values). */
const MAX_DEPTH = 512

const fail = (path: ReadonlyArray<string | number>, reason: string): never => {
  throw new CanonicalJsonError({ path: renderPath(path), reason })
}

// `path` is a stack of the keys leading to `value`; it is rendered only on error
const write = (value: unknown, path: Array<string | number>, out: Array<string>): void => {
  switch (typeof value) {
    case "string":
    case "boolean":
      out.push(JSON.stringify(value))
      return
    case "bigint":
      out.push(`"${value.toString()}"`)
      return
    case "number":
      if (!Number.isSafeInteger(value)) {
        fail(
          path,
          Number.isInteger(value)
            ? `integer ${value} is beyond 2^53 - 1; carry it as a base-10 string`
            : `${value} is not an integer`
        )
      }
      out.push(JSON.stringify(value))
      return
    case "object": {
      if (value === null) {
        out.push("null")
        return
      }
      if (path.length >= MAX_DEPTH) fail(path, `nested deeper than ${MAX_DEPTH} levels (or cyclic)`)
      if (Array.isArray(value)) {
        out.push("[")
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(",")
          path.push(i)
          if (!(i in value)) fail(path, "sparse array hole")
          write(value[i], path, out)
          path.pop()
        }
        out.push("]")
        return
      }
      const proto = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null) fail(path, "not a plain object")
      const record = value as Record<string, unknown>
      const keys = Object.keys(record).sort()
      out.push("{")
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!
        if (i > 0) out.push(",")
        out.push(JSON.stringify(key), ":")
        path.push(key)
        write(record[key], path, out)
        path.pop()
      }
      out.push("}")
      return
    }
    default:
      fail(path, `${typeof value} has no JSON form`)
  }
}

/**
 * The canonical JSON text of a value.
 *
 * @throws {CanonicalJsonError} when the value has no canonical form.
 * @category encoding
 * @since 0.1.0
 */
export const stringify = (value: unknown): string => {
  const out: Array<string> = []
  write(value, [], out)
  return out.join("")
}

const encoder = /* @__PURE__ */ new TextEncoder()

/**
 * The UTF-8 bytes of the canonical JSON text of a value.
 *
 * @throws {CanonicalJsonError} when the value has no canonical form.
 * @category encoding
 * @since 0.1.0
 */
export const toBytes = (value: unknown): Uint8Array => encoder.encode(stringify(value))

/**
 * The canonical JSON text as a `Result` (never throws).
 *
 * @category encoding
 * @since 0.1.0
 */
export const stringifyResult = (value: unknown): Result.Result<string, CanonicalJsonError> =>
  Result.try({
    try: () => stringify(value),
    catch: (error) =>
      error instanceof CanonicalJsonError ? error : new CanonicalJsonError({ path: "$", reason: String(error) })
  })
