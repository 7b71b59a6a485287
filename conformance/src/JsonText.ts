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

/** The end (exclusive) of the JSON string starting at `i` (a `"`), or -1. */
const stringEnd = (text: string, i: number): number => {
  for (let j = i + 1; j < text.length; j++) {
    const ch = text[j]
    if (ch === "\\") j++
    else if (ch === "\"") return j + 1
  }
  return -1
}

/** The end (exclusive) of the JSON value starting at `i`, or -1 (text assumed to parse). */
const valueEnd = (text: string, i: number): number => {
  const first = text[i]
  if (first === "\"") return stringEnd(text, i)
  if (first === "{" || first === "[") {
    let depth = 0
    for (let j = i; j < text.length; j++) {
      const ch = text[j]
      if (ch === "\"") {
        j = stringEnd(text, j) - 1
        if (j < 0) return -1
      } else if (ch === "{" || ch === "[") depth++
      else if (ch === "}" || ch === "]") {
        depth--
        if (depth === 0) return j + 1
      }
    }
    return -1
  }
  let j = i
  while (j < text.length && !/[\s,}\]]/.test(text[j]!)) j++
  return j === i ? -1 : j
}

const skipSpace = (text: string, i: number): number => {
  while (i < text.length && /\s/.test(text[i]!)) i++
  return i
}

/**
 * The text of a top-level member's value exactly as sent (for byte-for-byte
 * comparisons that `JSON.parse` would hide: `5.0` for `5`, escapes, key order,
 * whitespace), or undefined when the text is not an object holding the member.
 *
 * @category encoding
 * @since 0.1.0
 */
export const memberText = (text: string, key: string): string | undefined => {
  let i = skipSpace(text, 0)
  if (text[i] !== "{") return undefined
  i = skipSpace(text, i + 1)
  while (i < text.length && text[i] !== "}") {
    if (text[i] !== "\"") return undefined
    const keyEnd = stringEnd(text, i)
    if (keyEnd < 0) return undefined
    let name: unknown
    try {
      name = JSON.parse(text.slice(i, keyEnd))
    } catch {
      return undefined
    }
    i = skipSpace(text, keyEnd)
    if (text[i] !== ":") return undefined
    i = skipSpace(text, i + 1)
    const end = valueEnd(text, i)
    if (end < 0) return undefined
    if (name === key) return text.slice(i, end)
    i = skipSpace(text, end)
    if (text[i] === ",") i = skipSpace(text, i + 1)
  }
  return undefined
}
