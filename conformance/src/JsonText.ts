/**
 * Inspection of JSON text as sent, before `JSON.parse` loses information:
 * number literals beyond 2^53 - 1 (which a JavaScript client silently rounds)
 * and duplicate object keys.
 *
 * The spec carries execution integers as base-10 strings precisely so that no
 * client ever rounds them; a response with an unsafe number literal is a
 * departure wherever it occurs.
 *
 * @since 0.1.0
 */

/**
 * A finding in a JSON text.
 *
 * @category models
 * @since 0.1.0
 */
export interface JsonFinding {
  readonly kind: "UNSAFE_NUMBER" | "DUPLICATE_KEY"
  /** JSONPath-like location, e.g. `$.feed.routes[0].validUntil`. */
  readonly path: string
  /** The literal as written (number) or the key (duplicate). */
  readonly literal: string
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

const keyPath = (path: string, key: string) =>
  /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`

/**
 * Whether a JSON number literal denotes a value of magnitude above 2^53 - 1.
 *
 * @category validation
 * @since 0.1.0
 */
export const isUnsafeNumberLiteral = (literal: string): boolean => {
  const unsigned = literal.startsWith("-") ? literal.slice(1) : literal
  if (/^[0-9]+$/.test(unsigned)) return BigInt(unsigned) > MAX_SAFE
  const n = Math.abs(Number(literal))
  return !Number.isFinite(n) || n > Number.MAX_SAFE_INTEGER
}

/**
 * Scans a JSON text. Returns undefined when the text is not JSON.
 *
 * @category validation
 * @since 0.1.0
 */
export const scan = (text: string): ReadonlyArray<JsonFinding> | undefined => {
  const findings: Array<JsonFinding> = []
  let i = 0
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++
  }
  const str = (): string => {
    // the caller has checked text[i] === '"'
    const start = i
    i++
    while (i < text.length) {
      const c = text[i]
      if (c === "\\") i += 2
      else if (c === "\"") {
        i++
        return JSON.parse(text.slice(start, i)) as string
      } else i++
    }
    throw new Error("unterminated string")
  }
  const value = (path: string): void => {
    ws()
    const c = text[i]
    if (c === "{") {
      i++
      ws()
      const seen = new Set<string>()
      if (text[i] === "}") {
        i++
        return
      }
      while (true) {
        ws()
        if (text[i] !== "\"") throw new Error("expected a key")
        const key = str()
        if (seen.has(key)) findings.push({ kind: "DUPLICATE_KEY", path, literal: key })
        seen.add(key)
        ws()
        if (text[i] !== ":") throw new Error("expected :")
        i++
        value(keyPath(path, key))
        ws()
        if (text[i] === ",") {
          i++
          continue
        }
        if (text[i] === "}") {
          i++
          return
        }
        throw new Error("expected , or }")
      }
    }
    if (c === "[") {
      i++
      ws()
      if (text[i] === "]") {
        i++
        return
      }
      let n = 0
      while (true) {
        value(`${path}[${n++}]`)
        ws()
        if (text[i] === ",") {
          i++
          continue
        }
        if (text[i] === "]") {
          i++
          return
        }
        throw new Error("expected , or ]")
      }
    }
    if (c === "\"") {
      str()
      return
    }
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400))
    if (m !== null && m[0].length > 0) {
      if (isUnsafeNumberLiteral(m[0])) findings.push({ kind: "UNSAFE_NUMBER", path, literal: m[0] })
      i += m[0].length
      return
    }
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) {
        i += word.length
        return
      }
    }
    throw new Error(`unexpected character at ${i}`)
  }
  try {
    value("$")
    ws()
    if (i !== text.length) return undefined
    return findings
  } catch {
    return undefined
  }
}
