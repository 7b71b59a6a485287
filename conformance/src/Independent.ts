/**
 * A second derivation of the byte formats the conformance checks rely on,
 * written from the interface description (docs/protocol.md and the vectors in
 * fixtures/upstream/appendix-a.json) with nothing but viem. It never imports
 * `@svc/protocol` or `@svc/core`: a bug in a primitive the server and the
 * harness share would otherwise pass unnoticed, because both sides would compute
 * the same wrong value. The self-check ({@link SelfCheck}) runs both derivations
 * against the Appendix A vectors and against each other before every run.
 *
 * What is derived here:
 *
 * - canonical JSON (keys by UTF-16 code units, compact, JSON string escapes only,
 *   integers within 2^53 - 1, bigints as quoted decimals);
 * - the feed preimage (`SVC_MAINNET_V6_SIGNED_FEED_V1` + LF + canonical JSON of
 *   signedPayload), feedHash (keccak256) and the raw-digest secp256k1 signer;
 * - the permit request message in the address form and the account/locator
 *   form, with its normalisation and refusals, and its EIP-191 signer;
 * - the EIP-712 permitDigest (viem's `hashTypedData`), the ABI payload
 *   `abi.encode(ExecutionPermit, bytes)`, the `fillDirect` calldata and their
 *   decoding;
 * - the identifiers (vmType, networkId, accountId, assetId, routeId, quoteId,
 *   label hashes such as releaseId) and the on-chain constants derived from
 *   text (selectors, topic0, interface ids, standard ids).
 *
 * Every function is synchronous and pure. A malformed input throws an
 * {@link IndependentError} (with a stable `code`); no function returns a value
 * for an input the description refuses.
 *
 * Public-key recovery is written out here (SEC 1, section 4.1.6, over the curve
 * secp256k1) rather than taken from a library: viem's recovery is asynchronous,
 * and a hand-written recovery is also independent of the curve library the
 * protocol package uses. It handles only public data (signatures and digests);
 * {@link addressOfPrivateKey} is variable-time and meant for public test keys.
 *
 * @since 0.1.0
 */
import {
  type Address,
  decodeAbiParameters,
  encodeAbiParameters,
  getAddress,
  hashMessage,
  hashTypedData,
  type Hex,
  keccak256,
  stringToBytes,
  toEventSelector,
  toFunctionSelector
} from "viem"

/**
 * An input the second derivation refuses. `code` is a stable reason
 * (`NO_CANONICAL_FORM`, `QUOTE_ID_INVALID`, `PAYER_CHECKSUM_INVALID`,
 * `SIGNATURE_HIGH_S`, ...), `field` names the offending input (a JSON path for
 * canonical JSON).
 *
 * @category errors
 * @since 0.1.0
 */
export class IndependentError extends Error {
  readonly code: string
  readonly field: string
  readonly reason: string
  constructor(code: string, field: string, reason: string) {
    super(`${field}: ${reason} (${code})`)
    this.name = "IndependentError"
    this.code = code
    this.field = field
    this.reason = reason
  }
}

const refuse = (code: string, field: string, reason: string): never => {
  throw new IndependentError(code, field, reason)
}

const BYTES32_RE = /^0x[0-9a-fA-F]{64}$/
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/
const SIG65_RE = /^0x[0-9a-fA-F]{130}$/
const HEX_BYTES_RE = /^0x(?:[0-9a-fA-F]{2})*$/
const UINT_RE = /^(?:0|[1-9][0-9]*)$/

const utf8Hash = (text: string): Hex => keccak256(stringToBytes(text))

// ---------------------------------------------------------------------------
// Canonical JSON
// ---------------------------------------------------------------------------

/** The short escapes of JSON text; every other control character is `\u00xx`. */
const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  0x08: "\\b",
  0x09: "\\t",
  0x0a: "\\n",
  0x0c: "\\f",
  0x0d: "\\r",
  0x22: "\\\"",
  0x5c: "\\\\"
}

const hex4 = (code: number): string => `\\u${code.toString(16).padStart(4, "0")}`

/** Text without anything to escape: no quote, backslash, control or surrogate. */
// oxlint-disable-next-line no-control-regex -- the control characters are exactly what JSON escapes
const PLAIN_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/

/**
 * A JSON string literal: escapes for `"`, `\` and U+0000..U+001F (short forms
 * where JSON has them, else lowercase `\u00xx`), lone surrogates as lowercase
 * `\udxxx`, everything else (non-ASCII, U+2028/U+2029, `/`) raw.
 */
const quote = (text: string): string => {
  if (PLAIN_TEXT.test(text)) return `"${text}"`
  let out = "\""
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === 0x22 || code === 0x5c) {
      out += SHORT_ESCAPES[code] ?? hex4(code)
    } else if (code >= 0xd800 && code <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : -1
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i]! + text[i + 1]!
        i++
      } else {
        out += hex4(code)
      }
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      out += hex4(code) // a low surrogate without its high half
    } else {
      out += text[i]!
    }
  }
  return `${out}"`
}

/** Orders two keys by their UTF-16 code units, a shorter prefix first. */
const compareUtf16 = (a: string, b: string): number => {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i)
    if (d !== 0) return d
  }
  return a.length - b.length
}

const pathOf = (parent: string, key: string | number): string =>
  typeof key === "number"
    ? `${parent}[${key}]`
    : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)
    ? `${parent}.${key}`
    : `${parent}[${quote(key)}]`

const canonical = (value: unknown, path: string, open: Set<object>): string => {
  switch (typeof value) {
    case "string":
      return quote(value)
    case "boolean":
      return value ? "true" : "false"
    case "bigint":
      return `"${value.toString(10)}"`
    case "number": {
      if (!Number.isFinite(value) || !Number.isInteger(value)) {
        return refuse("NO_CANONICAL_FORM", path, `${value} is not an integer`)
      }
      if (Math.abs(value) > Number.MAX_SAFE_INTEGER) {
        return refuse("NO_CANONICAL_FORM", path, `integer ${value} is beyond 2^53 - 1`)
      }
      return BigInt(value).toString(10) // plain decimal; -0 is 0
    }
    case "object": {
      if (value === null) return "null"
      if (open.has(value)) return refuse("NO_CANONICAL_FORM", path, "cyclic value")
      open.add(value)
      let text: string
      if (Array.isArray(value)) {
        const items: Array<string> = []
        for (let i = 0; i < value.length; i++) {
          if (!Object.hasOwn(value, i)) refuse("NO_CANONICAL_FORM", pathOf(path, i), "sparse array hole")
          items.push(canonical(value[i], pathOf(path, i), open))
        }
        text = `[${items.join(",")}]`
      } else {
        const prototype = Object.getPrototypeOf(value)
        if (prototype !== Object.prototype && prototype !== null) {
          refuse("NO_CANONICAL_FORM", path, "not a plain object")
        }
        const record = value as Record<string, unknown>
        const keys = Object.keys(record).sort(compareUtf16)
        text = `{${keys.map((k) => `${quote(k)}:${canonical(record[k], pathOf(path, k), open)}`).join(",")}}`
      }
      open.delete(value)
      return text
    }
    default:
      return refuse("NO_CANONICAL_FORM", path, `${typeof value} has no JSON form`)
  }
}

/**
 * The canonical JSON text of a value: object keys sorted by UTF-16 code units
 * at every depth, array order kept, no whitespace, strings with JSON escapes
 * only (non-ASCII written raw), integers with |n| <= 2^53 - 1 in plain decimal,
 * bigints as quoted decimal strings.
 *
 * @throws {IndependentError} `NO_CANONICAL_FORM` for fractions, non-finite or
 * unsafe numbers, `undefined`, functions, symbols, sparse arrays, non-plain
 * objects and cycles.
 * @category encoding
 * @since 0.1.0
 */
export const canonicalJson = (value: unknown): string => canonical(value, "$", new Set())

// ---------------------------------------------------------------------------
// Signed feed
// ---------------------------------------------------------------------------

/**
 * The domain line of the feed preimage, also the `schema` constant of the
 * signed payload.
 *
 * @category constants
 * @since 0.1.0
 */
export const FEED_DOMAIN = "SVC_MAINNET_V6_SIGNED_FEED_V1" as const

/**
 * The feed preimage text: `SVC_MAINNET_V6_SIGNED_FEED_V1`, one LF, the canonical
 * JSON of the complete signedPayload; no trailing LF.
 *
 * @throws {IndependentError} `FEED_INVALID` when the payload is not an object
 * with the schema constant and a routes array, `NO_CANONICAL_FORM` when it has
 * no canonical form.
 * @category crypto
 * @since 0.1.0
 */
export const feedPreimage = (signedPayload: unknown): string => {
  if (typeof signedPayload !== "object" || signedPayload === null || Array.isArray(signedPayload)) {
    return refuse("FEED_INVALID", "signedPayload", "expected an object")
  }
  const payload = signedPayload as Record<string, unknown>
  if (payload.schema !== FEED_DOMAIN) refuse("FEED_INVALID", "signedPayload.schema", `must be ${FEED_DOMAIN}`)
  if (!Array.isArray(payload.routes)) refuse("FEED_INVALID", "signedPayload.routes", "must be an array")
  return `${FEED_DOMAIN}\n${canonicalJson(payload)}`
}

/**
 * feedHash: keccak256 of the UTF-8 feed preimage, lowercase hex.
 *
 * @throws {IndependentError} as {@link feedPreimage}.
 * @category crypto
 * @since 0.1.0
 */
export const feedHash = (signedPayload: unknown): Hex => utf8Hash(feedPreimage(signedPayload))

// ---------------------------------------------------------------------------
// secp256k1 public-key recovery (SEC 1, 4.1.6)
// ---------------------------------------------------------------------------

const CURVE_P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn
const CURVE_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const HALF_N = CURVE_N >> 1n
const GENERATOR: Point = [
  0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
  0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n,
  1n
]

/** A point in Jacobian coordinates (x = X/Z^2, y = Y/Z^3); Z = 0 is the point at infinity. */
type Point = readonly [bigint, bigint, bigint]

const INFINITY: Point = [1n, 1n, 0n]

const modP = (a: bigint): bigint => {
  const r = a % CURVE_P
  return r < 0n ? r + CURVE_P : r
}

const modN = (a: bigint): bigint => {
  const r = a % CURVE_N
  return r < 0n ? r + CURVE_N : r
}

/** Inverse modulo m (m prime, a not a multiple of m), by the extended Euclidean algorithm. */
const invert = (a: bigint, m: bigint): bigint => {
  let [oldR, r] = [((a % m) + m) % m, m]
  let [oldS, s] = [1n, 0n]
  while (r !== 0n) {
    const q = oldR / r
    ;[oldR, r] = [r, oldR - q * r]
    ;[oldS, s] = [s, oldS - q * s]
  }
  return ((oldS % m) + m) % m
}

const powMod = (base: bigint, exponent: bigint, m: bigint): bigint => {
  let result = 1n
  let b = base % m
  let e = exponent
  while (e > 0n) {
    if (e & 1n) result = (result * b) % m
    b = (b * b) % m
    e >>= 1n
  }
  return result
}

// y^2 = x^3 + 7: a = 0, so doubling needs no a term
const double = (p: Point): Point => {
  const [x, y, z] = p
  if (z === 0n || y === 0n) return INFINITY
  const yy = modP(y * y)
  const s = modP(4n * x * yy)
  const m = modP(3n * x * x)
  const x3 = modP(m * m - 2n * s)
  const y3 = modP(m * (s - x3) - 8n * yy * yy)
  const z3 = modP(2n * y * z)
  return [x3, y3, z3]
}

const add = (p: Point, q: Point): Point => {
  const [x1, y1, z1] = p
  const [x2, y2, z2] = q
  if (z1 === 0n) return q
  if (z2 === 0n) return p
  const z1z1 = modP(z1 * z1)
  const z2z2 = modP(z2 * z2)
  const u1 = modP(x1 * z2z2)
  const u2 = modP(x2 * z1z1)
  const s1 = modP(y1 * z2 * z2z2)
  const s2 = modP(y2 * z1 * z1z1)
  const h = modP(u2 - u1)
  const r = modP(s2 - s1)
  if (h === 0n) return r === 0n ? double(p) : INFINITY
  const hh = modP(h * h)
  const hhh = modP(h * hh)
  const v = modP(u1 * hh)
  const x3 = modP(r * r - hhh - 2n * v)
  const y3 = modP(r * (v - x3) - s1 * hhh)
  const z3 = modP(z1 * z2 * h)
  return [x3, y3, z3]
}

/** a·P + b·Q by one double-and-add pass over both scalars (Shamir's trick). */
const twoScalars = (a: bigint, p: Point, b: bigint, q: Point): Point => {
  const both = add(p, q)
  let acc = INFINITY
  for (let bit = 255n; bit >= 0n; bit--) {
    acc = double(acc)
    const hasA = ((a >> bit) & 1n) === 1n
    const hasB = ((b >> bit) & 1n) === 1n
    if (hasA && hasB) acc = add(acc, both)
    else if (hasA) acc = add(acc, p)
    else if (hasB) acc = add(acc, q)
  }
  return acc
}

const word = (n: bigint): string => n.toString(16).padStart(64, "0")

const addressOfPoint = (p: Point): Address => {
  const [x, y, z] = p
  const zInverse = invert(z, CURVE_P)
  const zz = modP(zInverse * zInverse)
  const ax = modP(x * zz)
  const ay = modP(y * zz * zInverse)
  return getAddress(`0x${keccak256(`0x${word(ax)}${word(ay)}`).slice(-40)}`)
}

/**
 * The address (EIP-55) of a secp256k1 private key. Variable-time arithmetic:
 * for public test keys only.
 *
 * @throws {IndependentError} `PRIVATE_KEY_INVALID` unless 32 bytes of hex in 1..n-1.
 * @category crypto
 * @since 0.1.0
 */
export const addressOfPrivateKey = (privateKey: string): Address => {
  if (typeof privateKey !== "string" || !BYTES32_RE.test(privateKey)) {
    return refuse("PRIVATE_KEY_INVALID", "privateKey", "must be 0x followed by 64 hex digits")
  }
  const k = BigInt(privateKey)
  if (k === 0n || k >= CURVE_N) refuse("PRIVATE_KEY_INVALID", "privateKey", "must be in 1..n-1")
  return addressOfPoint(twoScalars(k, GENERATOR, 0n, GENERATOR))
}

/**
 * The address (EIP-55) that signed a raw 32-byte digest with a 65-byte
 * `r ‖ s ‖ v` signature. v may be 27/28 or 0/1; r and s must be in 1..n-1 and s
 * at most n/2 (EIP-2): the high-s twin of a valid signature is refused, as svc
 * refuses it on every input path.
 *
 * @throws {IndependentError} `DIGEST_INVALID`, `SIGNATURE_MALFORMED`,
 * `SIGNATURE_BAD_V`, `SIGNATURE_OUT_OF_RANGE`, `SIGNATURE_HIGH_S` or
 * `SIGNATURE_UNRECOVERABLE`.
 * @category crypto
 * @since 0.1.0
 */
export const recoverDigestSigner = (digest: string, signature: string): Address => {
  if (typeof digest !== "string" || !BYTES32_RE.test(digest)) {
    return refuse("DIGEST_INVALID", "digest", "must be 0x followed by 64 hex digits")
  }
  if (typeof signature !== "string" || !SIG65_RE.test(signature)) {
    return refuse("SIGNATURE_MALFORMED", "signature", "must be 0x followed by 130 hex digits")
  }
  const r = BigInt(`0x${signature.slice(2, 66)}`)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130, 132), 16)
  if (v !== 0 && v !== 1 && v !== 27 && v !== 28) refuse("SIGNATURE_BAD_V", "signature", `v = ${v}`)
  if (r === 0n || r >= CURVE_N || s === 0n || s >= CURVE_N) {
    refuse("SIGNATURE_OUT_OF_RANGE", "signature", "r and s must be in 1..n-1")
  }
  if (s > HALF_N) refuse("SIGNATURE_HIGH_S", "signature", "s is above n/2")
  const odd = (v >= 27 ? v - 27 : v) === 1
  // R = (r, y) with the parity the recovery bit names (r < n < p, so x = r)
  const rhs = modP(r * r * r + 7n)
  let y = powMod(rhs, (CURVE_P + 1n) / 4n, CURVE_P)
  if (modP(y * y) !== rhs) refuse("SIGNATURE_UNRECOVERABLE", "signature", "r is not the x of a curve point")
  if (((y & 1n) === 1n) !== odd) y = CURVE_P - y
  const e = modN(BigInt(digest))
  const rInverse = invert(r, CURVE_N)
  // Q = r^-1 (s·R - e·G)
  const q = twoScalars(modN(-e * rInverse), GENERATOR, modN(s * rInverse), [r, y, 1n])
  if (q[2] === 0n) refuse("SIGNATURE_UNRECOVERABLE", "signature", "recovers the point at infinity")
  return addressOfPoint(q)
}

/**
 * The signer of a feed: recovery over the 32 bytes of feedHash itself, with no
 * EIP-191 prefix (see {@link recoverDigestSigner} for the signature rules).
 *
 * @throws {IndependentError}
 * @category crypto
 * @since 0.1.0
 */
export const recoverFeedSigner = (feedHashHex: string, feedSignature: string): Address =>
  recoverDigestSigner(feedHashHex, feedSignature)

// ---------------------------------------------------------------------------
// Permit request message
// ---------------------------------------------------------------------------

/**
 * The first line of the permit request message.
 *
 * @category constants
 * @since 0.1.0
 */
export const PERMIT_REQUEST_DOMAIN = "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1" as const

/**
 * A permit request after normalisation, in the upstream field order: lowercase
 * quoteId and account ids, decimal amount, uppercase standard, EIP-55
 * addresses, object locators, trimmed key, `null` for the unused identity
 * fields.
 *
 * @category models
 * @since 0.1.0
 */
export interface NormalizedRequest {
  readonly quoteId: Hex
  readonly requestedAmountInRaw: string
  readonly standard: string
  readonly payer: Address | null
  readonly recipient: Address | null
  readonly payerAccountId: Hex | null
  readonly recipientAccountId: Hex | null
  readonly payerLocator: Readonly<Record<string, unknown>> | null
  readonly recipientLocator: Readonly<Record<string, unknown>> | null
  readonly idempotencyKey: string
}

const STANDARD_INPUT_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/
const IDEMPOTENCY_KEY_RE = /^[a-zA-Z0-9._:-]{8,128}$/
const TWO_128 = 1n << 128n

const given = (value: unknown): boolean => value !== undefined && value !== null

const amountText = (value: unknown): string => {
  if (typeof value === "string" && UINT_RE.test(value)) return value
  if (typeof value === "bigint" && value >= 0n) return value.toString(10)
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value).toString(10)
  return refuse(
    "AMOUNT_INVALID",
    "requestedAmountInRaw",
    "must be a base-10 unsigned integer string without leading zeros (or a bigint / safe integer)"
  )
}

/** EIP-55: an address whose hex body is all one case carries no checksum; a mixed-case one must be exact. */
const checksumHolds = (address: string): boolean => {
  const body = address.slice(2)
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true
  return getAddress(address.toLowerCase()) === address
}

const side = (request: Record<string, unknown>, name: "payer" | "recipient") => {
  const prefix = name.toUpperCase()
  const address = request[name]
  const accountId = request[`${name}AccountId`]
  const locator = request[`${name}Locator`]
  if (given(address)) {
    if (given(accountId) || given(locator)) {
      refuse(`${prefix}_IDENTITY_AMBIGUOUS`, name, `give ${name}, or ${name}AccountId with ${name}Locator, not both`)
    }
    if (typeof address !== "string" || !ADDRESS_RE.test(address)) {
      refuse(`${prefix}_INVALID`, name, "must be 0x followed by 40 hex digits")
    }
    if (!checksumHolds(address as string)) {
      refuse(`${prefix}_CHECKSUM_INVALID`, name, "mixed-case address with a wrong EIP-55 checksum")
    }
    return {
      address: getAddress((address as string).toLowerCase()),
      accountId: null,
      locator: null
    }
  }
  if (!given(accountId) && !given(locator)) {
    refuse(`${prefix}_IDENTITY_MISSING`, name, `give ${name}, or ${name}AccountId with ${name}Locator`)
  }
  if (!given(accountId)) refuse(`${prefix}_ACCOUNT_ID_MISSING`, `${name}AccountId`, `required with ${name}Locator`)
  if (!given(locator)) refuse(`${prefix}_LOCATOR_MISSING`, `${name}Locator`, `required with ${name}AccountId`)
  if (typeof accountId !== "string" || !BYTES32_RE.test(accountId)) {
    refuse(`${prefix}_ACCOUNT_ID_INVALID`, `${name}AccountId`, "must be 0x followed by 64 hex digits")
  }
  let object: Record<string, unknown>
  if (typeof locator === "string") {
    object = { native: locator }
  } else if (typeof locator === "object" && locator !== null && !Array.isArray(locator)) {
    object = locator as Record<string, unknown>
    try {
      canonicalJson(object)
    } catch (error) {
      refuse(`${prefix}_LOCATOR_INVALID`, `${name}Locator`, (error as Error).message)
    }
  } else {
    return refuse(`${prefix}_LOCATOR_INVALID`, `${name}Locator`, "a locator is an object (or a string)")
  }
  return { address: null, accountId: (accountId as string).toLowerCase() as Hex, locator: object }
}

/**
 * Normalises a permit request, checking in the documented order: the request
 * is an object; quoteId is Bytes32; requestedAmountInRaw is a UintStr (a bigint
 * or a safe integer number is written in decimal); standard defaults to DIRECT
 * when absent or null and must match `^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$`
 * (then uppercased); idempotencyKey, trimmed, matches `^[a-zA-Z0-9._:-]{8,128}$`;
 * each of payer and recipient is either an address (EIP-55 checked when mixed
 * case) or an account id with a locator (a string locator `s` stands for
 * `{"native": s}`), `null` counting as absent; finally 0 < amount < 2^128.
 * `requestSignature` is ignored.
 *
 * @throws {IndependentError} with the documented code (`REQUEST_INVALID`,
 * `QUOTE_ID_INVALID`, `AMOUNT_INVALID`, `STANDARD_INVALID`,
 * `IDEMPOTENCY_KEY_INVALID`, `PAYER_*` / `RECIPIENT_*`, `AMOUNT_ZERO`,
 * `AMOUNT_TOO_LARGE`).
 * @category encoding
 * @since 0.1.0
 */
export const normalizePermitRequest = (request: unknown): NormalizedRequest => {
  if (typeof request !== "object" || request === null || Array.isArray(request)) {
    return refuse("REQUEST_INVALID", "request", "expected an object")
  }
  const input = request as Record<string, unknown>
  const quoteId = input.quoteId
  if (typeof quoteId !== "string" || !BYTES32_RE.test(quoteId)) {
    return refuse("QUOTE_ID_INVALID", "quoteId", "must be 0x followed by 64 hex digits")
  }
  const amount = amountText(input.requestedAmountInRaw)
  const standardInput = given(input.standard) ? input.standard : "DIRECT"
  if (typeof standardInput !== "string" || !STANDARD_INPUT_RE.test(standardInput)) {
    return refuse("STANDARD_INVALID", "standard", "1 to 64 of A-Z a-z 0-9 . _ : -, starting with a letter or digit")
  }
  const key = typeof input.idempotencyKey === "string" ? input.idempotencyKey.trim() : ""
  if (!IDEMPOTENCY_KEY_RE.test(key)) {
    return refuse("IDEMPOTENCY_KEY_INVALID", "idempotencyKey", "8 to 128 of a-z A-Z 0-9 . _ : -")
  }
  const payer = side(input, "payer")
  const recipient = side(input, "recipient")
  const n = BigInt(amount)
  if (n === 0n) refuse("AMOUNT_ZERO", "requestedAmountInRaw", "must be greater than 0")
  if (n >= TWO_128) refuse("AMOUNT_TOO_LARGE", "requestedAmountInRaw", "must be below 2^128")
  return {
    quoteId: quoteId.toLowerCase() as Hex,
    requestedAmountInRaw: amount,
    standard: standardInput.toUpperCase(),
    payer: payer.address,
    recipient: recipient.address,
    payerAccountId: payer.accountId,
    recipientAccountId: recipient.accountId,
    payerLocator: payer.locator,
    recipientLocator: recipient.locator,
    idempotencyKey: key
  }
}

/**
 * The exact permit request message, lines joined by LF with no trailing LF:
 * the domain line, `quoteId=`, `requestedAmountInRaw=`, `standard=`, then
 * `payer=<lowercase address>` or `payerAccountId=<lowercase>` +
 * `payerLocator=<canonical JSON>`, the same for the recipient, and
 * `idempotencyKey=`. Seven lines for two addresses, nine for two accounts.
 *
 * @throws {IndependentError} for a request {@link normalizePermitRequest} refuses.
 * @category encoding
 * @since 0.1.0
 */
export const permitRequestMessage = (request: unknown): string => {
  const r = normalizePermitRequest(request)
  const lines = [
    PERMIT_REQUEST_DOMAIN,
    `quoteId=${r.quoteId}`,
    `requestedAmountInRaw=${r.requestedAmountInRaw}`,
    `standard=${r.standard}`
  ]
  for (const name of ["payer", "recipient"] as const) {
    const address = r[name]
    if (address !== null) {
      lines.push(`${name}=${address.toLowerCase()}`)
    } else {
      lines.push(`${name}AccountId=${r[`${name}AccountId`]}`)
      lines.push(`${name}Locator=${canonicalJson(r[`${name}Locator`])}`)
    }
  }
  lines.push(`idempotencyKey=${r.idempotencyKey}`)
  return lines.join("\n")
}

/**
 * The EIP-191 (`personal_sign`) digest of a message's UTF-8 bytes (viem's
 * `hashMessage`): keccak256("\x19Ethereum Signed Message:\n" + byte length + bytes).
 *
 * @category crypto
 * @since 0.1.0
 */
export const eip191Digest = (message: string): Hex => hashMessage(message)

/**
 * The address that signed a permit request message with EIP-191
 * `personal_sign` (high-s and malformed signatures refused).
 *
 * @throws {IndependentError}
 * @category crypto
 * @since 0.1.0
 */
export const recoverRequestSigner = (message: string, signature: string): Address =>
  recoverDigestSigner(eip191Digest(message), signature)

// ---------------------------------------------------------------------------
// ExecutionPermit: ABI tuple, EIP-712 digest, payload
// ---------------------------------------------------------------------------

/**
 * The 31 fields of the on-chain ExecutionPermit tuple in ABI order, with their
 * Solidity types (also the EIP-712 type of the permit).
 *
 * @category constants
 * @since 0.1.0
 */
export const PERMIT_FIELDS = [
  { name: "releaseId", type: "bytes32" },
  { name: "fillId", type: "bytes32" },
  { name: "routeId", type: "bytes32" },
  { name: "quoteId", type: "bytes32" },
  { name: "policyHash", type: "bytes32" },
  { name: "permitNonce", type: "bytes32" },
  { name: "sourceNetworkId", type: "bytes32" },
  { name: "sourceAssetId", type: "bytes32" },
  { name: "destinationNetworkId", type: "bytes32" },
  { name: "destinationAssetId", type: "bytes32" },
  { name: "sourceVaultAccountId", type: "bytes32" },
  { name: "destinationVaultAccountId", type: "bytes32" },
  { name: "payerAccountId", type: "bytes32" },
  { name: "recipientAccountId", type: "bytes32" },
  { name: "dataVersion", type: "uint64" },
  { name: "executionGeneration", type: "bytes32" },
  { name: "validAfter", type: "uint64" },
  { name: "validUntil", type: "uint64" },
  { name: "sourceFinalityBlocks", type: "uint32" },
  { name: "settlementWindowSeconds", type: "uint32" },
  { name: "sourceChainId", type: "uint256" },
  { name: "destinationChainId", type: "uint256" },
  { name: "sourceAsset", type: "address" },
  { name: "destinationAsset", type: "address" },
  { name: "sourceVault", type: "address" },
  { name: "destinationVault", type: "address" },
  { name: "sourceRouter", type: "address" },
  { name: "payer", type: "address" },
  { name: "recipient", type: "address" },
  { name: "amountInRaw", type: "uint128" },
  { name: "amountOutRaw", type: "uint128" }
] as const

/**
 * The name of one of the 31 tuple fields.
 *
 * @category models
 * @since 0.1.0
 */
export type PermitFieldName = (typeof PERMIT_FIELDS)[number]["name"]

/**
 * The tuple fields of a permit in their JSON form: bytes32 lowercase,
 * addresses EIP-55, uint32 fields as numbers, the other integers as decimal
 * strings.
 *
 * @category models
 * @since 0.1.0
 */
export type PermitTuple = { readonly [K in PermitFieldName]: string | number }

/**
 * The EIP-712 domain name of permits.
 *
 * @category constants
 * @since 0.1.0
 */
export const EIP712_DOMAIN_NAME = "Svc V6 Router" as const

/**
 * The EIP-712 domain version of permits.
 *
 * @category constants
 * @since 0.1.0
 */
export const EIP712_DOMAIN_VERSION = "6" as const

/**
 * `ExecutionPermit(bytes32 releaseId,...,uint128 amountOutRaw)`.
 *
 * @category constants
 * @since 0.1.0
 */
export const PERMIT_ENCODE_TYPE: string = `ExecutionPermit(${
  PERMIT_FIELDS.map((f) => `${f.type} ${f.name}`).join(",")
})`

/**
 * The EIP-712 typehash of ExecutionPermit: keccak256 of {@link PERMIT_ENCODE_TYPE}.
 *
 * @category constants
 * @since 0.1.0
 */
export const PERMIT_TYPEHASH: Hex = utf8Hash(PERMIT_ENCODE_TYPE)

/**
 * The EIP-712 domain typehash (name, version, chainId, verifyingContract).
 *
 * @category constants
 * @since 0.1.0
 */
export const EIP712_DOMAIN_TYPEHASH: Hex = utf8Hash(
  "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
)

const UINT_BITS = { uint32: 32n, uint64: 64n, uint128: 128n, uint256: 256n } as const

const uintValue = (field: string, value: unknown, bits: bigint): bigint => {
  let n: bigint | undefined
  if (typeof value === "string" && UINT_RE.test(value)) n = BigInt(value)
  else if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) n = BigInt(value)
  else if (typeof value === "bigint" && value >= 0n) n = value
  if (n === undefined) return refuse("FIELD_INVALID", field, "must be an unsigned base-10 integer")
  if (n >= 1n << bits) refuse("FIELD_INVALID", field, `does not fit uint${bits}`)
  return n
}

const bytes32Value = (field: string, value: unknown): Hex => {
  if (typeof value !== "string" || !BYTES32_RE.test(value)) {
    return refuse("FIELD_INVALID", field, "must be 0x followed by 64 hex digits")
  }
  return value.toLowerCase() as Hex
}

const addressValue = (field: string, value: unknown): Hex => {
  if (typeof value !== "string" || !ADDRESS_RE.test(value)) {
    return refuse("FIELD_INVALID", field, "must be 0x followed by 40 hex digits")
  }
  return value.toLowerCase() as Hex
}

/** The 31 tuple values as viem takes them: bigints for integers, lowercase hex otherwise. */
const tupleValues = (permit: unknown): Record<string, bigint | Hex> => {
  if (typeof permit !== "object" || permit === null || Array.isArray(permit)) {
    return refuse("FIELD_INVALID", "permit", "expected an object")
  }
  const source = permit as Record<string, unknown>
  const values: Record<string, bigint | Hex> = {}
  for (const { name, type } of PERMIT_FIELDS) {
    const value = source[name]
    if (!given(value)) refuse("FIELD_MISSING", name, "is missing")
    values[name] = type === "bytes32"
      ? bytes32Value(name, value)
      : type === "address"
      ? addressValue(name, value)
      : uintValue(name, value, UINT_BITS[type])
  }
  return values
}

/**
 * The EIP-712 domain of a permit: name "Svc V6 Router", version "6", chainId
 * = sourceChainId, verifyingContract = sourceRouter.
 *
 * @throws {IndependentError} `FIELD_MISSING` / `FIELD_INVALID`.
 * @category crypto
 * @since 0.1.0
 */
export const permitDomain = (
  permit: unknown
): { readonly name: string; readonly version: string; readonly chainId: bigint; readonly verifyingContract: Hex } => {
  const values = tupleValues(permit)
  return {
    name: EIP712_DOMAIN_NAME,
    version: EIP712_DOMAIN_VERSION,
    chainId: values.sourceChainId as bigint,
    verifyingContract: values.sourceRouter as Hex
  }
}

/**
 * permitDigest: the EIP-712 hash (viem's `hashTypedData`) of the permit's 31
 * tuple fields, primary type ExecutionPermit, under {@link permitDomain}. The
 * JSON-only fields (publicationLane, serviceCategory, feeMode, serviceFeeBps)
 * and any other member are ignored; hex case does not matter.
 *
 * @throws {IndependentError} `FIELD_MISSING` / `FIELD_INVALID`.
 * @category crypto
 * @since 0.1.0
 */
export const permitDigest = (permit: unknown): Hex => {
  const values = tupleValues(permit)
  return hashTypedData({
    domain: {
      name: EIP712_DOMAIN_NAME,
      version: EIP712_DOMAIN_VERSION,
      chainId: values.sourceChainId as bigint,
      verifyingContract: values.sourceRouter as Hex
    },
    types: { ExecutionPermit: PERMIT_FIELDS },
    primaryType: "ExecutionPermit",
    message: values as never
  })
}

/**
 * The address that signed a permit: raw-digest recovery over {@link permitDigest}.
 *
 * @throws {IndependentError}
 * @category crypto
 * @since 0.1.0
 */
export const recoverPermitSigner = (permit: unknown, permitSignature: string): Address =>
  recoverDigestSigner(permitDigest(permit), permitSignature)

const TUPLE_PARAM = { type: "tuple", components: PERMIT_FIELDS } as const
const PAYLOAD_PARAMS = [TUPLE_PARAM, { type: "bytes" }] as const

const signatureBytes = (signature: unknown): Hex => {
  if (typeof signature !== "string" || !HEX_BYTES_RE.test(signature)) {
    return refuse("FIELD_INVALID", "signature", "must be 0x followed by hex bytes")
  }
  return signature.toLowerCase() as Hex
}

/**
 * The ABI encoding of the permit tuple alone: 31 static words.
 *
 * @throws {IndependentError} `FIELD_MISSING` / `FIELD_INVALID`.
 * @category encoding
 * @since 0.1.0
 */
export const permitTuple = (permit: unknown): Hex => encodeAbiParameters([TUPLE_PARAM], [tupleValues(permit) as never])

/**
 * The standard payload `abi.encode(ExecutionPermit permit, bytes permitSignature)`
 * (media type application/vnd.svc.execution-permit-v6+abi).
 *
 * @throws {IndependentError} `FIELD_MISSING` / `FIELD_INVALID`.
 * @category encoding
 * @since 0.1.0
 */
export const permitPayload = (permit: unknown, permitSignature: string): Hex =>
  encodeAbiParameters(PAYLOAD_PARAMS, [tupleValues(permit) as never, signatureBytes(permitSignature)])

/**
 * The `fillDirect(permit, signature)` calldata: the selector, then the standard payload.
 *
 * @throws {IndependentError} `FIELD_MISSING` / `FIELD_INVALID`.
 * @category encoding
 * @since 0.1.0
 */
export const fillDirectCalldata = (permit: unknown, permitSignature: string): Hex =>
  `${selectors.fillDirect}${permitPayload(permit, permitSignature).slice(2)}`

/**
 * A decoded standard payload: the 31 tuple fields in their JSON form and the
 * signature bytes (lowercase hex).
 *
 * @category models
 * @since 0.1.0
 */
export interface DecodedPermitPayload {
  readonly permit: PermitTuple
  readonly signature: Hex
}

/**
 * Decodes a standard payload with viem's `decodeAbiParameters` into plain
 * fields comparable with an ExecutionPermit's JSON: bytes32 lowercase,
 * addresses EIP-55, sourceFinalityBlocks and settlementWindowSeconds as numbers,
 * the other integers as decimal strings. The payload must be exactly
 * `abi.encode` of what it decodes to: dirty high bits in a word, non-zero
 * padding, a non-standard offset or trailing bytes are refused (the strict
 * reading of "abi.encode(ExecutionPermit,bytes)").
 *
 * @throws {IndependentError} `PAYLOAD_INVALID`.
 * @category encoding
 * @since 0.1.0
 */
export const decodePermitPayload = (payload: string): DecodedPermitPayload => {
  if (typeof payload !== "string" || !HEX_BYTES_RE.test(payload)) {
    return refuse("PAYLOAD_INVALID", "payload", "must be 0x followed by hex bytes")
  }
  let tuple: Record<string, unknown>
  let signature: Hex
  let again: Hex
  try {
    const [t, s] = decodeAbiParameters(PAYLOAD_PARAMS, payload as Hex)
    tuple = t as Record<string, unknown>
    signature = s.toLowerCase() as Hex
    again = encodeAbiParameters(PAYLOAD_PARAMS, [t, s])
  } catch (error) {
    return refuse("PAYLOAD_INVALID", "payload", (error as Error).message.split("\n")[0]!)
  }
  if (again !== payload.toLowerCase()) {
    refuse("PAYLOAD_INVALID", "payload", "not the canonical abi.encode of the values it decodes to")
  }
  const permit: Record<string, string | number> = {}
  for (const { name, type } of PERMIT_FIELDS) {
    const value = tuple[name]
    permit[name] = type === "uint32"
      ? Number(value as bigint)
      : type === "address"
      ? getAddress(value as string)
      : type === "bytes32"
      ? (value as string).toLowerCase()
      : (value as bigint).toString(10)
  }
  return { permit: permit as PermitTuple, signature }
}

/**
 * Decodes `fillDirect` calldata (selector, either hex case, then the payload).
 *
 * @throws {IndependentError} `CALLDATA_INVALID` for another selector, else as
 * {@link decodePermitPayload}.
 * @category encoding
 * @since 0.1.0
 */
export const decodeFillDirect = (calldata: string): DecodedPermitPayload => {
  if (typeof calldata !== "string" || calldata.slice(0, 10).toLowerCase() !== selectors.fillDirect) {
    return refuse("CALLDATA_INVALID", "calldata", `does not start with the fillDirect selector ${selectors.fillDirect}`)
  }
  return decodePermitPayload(`0x${calldata.slice(10)}`)
}

// ---------------------------------------------------------------------------
// Identifiers
// ---------------------------------------------------------------------------

const hashWords = (words: ReadonlyArray<Hex | bigint>): Hex =>
  keccak256(
    encodeAbiParameters(
      words.map((w) => ({ type: typeof w === "bigint" ? "uint256" : "bytes32" })),
      words as never
    )
  )

const idBytes32 = (field: string, value: unknown): Hex => {
  if (typeof value !== "string" || !BYTES32_RE.test(value)) {
    return refuse("ID_INPUT_INVALID", field, "must be 0x followed by 64 hex digits")
  }
  return value.toLowerCase() as Hex
}

const idUint = (field: string, value: unknown, bits: bigint): bigint => {
  try {
    return uintValue(field, value, bits)
  } catch (error) {
    return refuse("ID_INPUT_INVALID", field, (error as IndependentError).reason)
  }
}

/**
 * keccak256 of the UTF-8 bytes of a text: releaseIds (`"SVC_MAINNET_V6"`),
 * standard ids (`"ERC-7683"`), vmTypes (`"EVM"`), CREATE2 salts.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const label = (text: string): Hex => utf8Hash(text)

/**
 * The releaseId of a release label: keccak256(utf8(label)); the demo release
 * is `"SVC_MAINNET_V6"`.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const releaseId = (releaseLabel: string = "SVC_MAINNET_V6"): Hex => label(releaseLabel)

/**
 * The vmType of a virtual machine family: keccak256(utf8(name)), `"EVM"`, `"SVM"`.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const vmType = (name: string): Hex => label(name)

/**
 * networkId = keccak256(abi.encode(bytes32 vmType, bytes32 networkReference)).
 *
 * @throws {IndependentError} `ID_INPUT_INVALID`.
 * @category identifiers
 * @since 0.1.0
 */
export const networkId = (vmTypeId: string, networkReference: string): Hex =>
  hashWords([idBytes32("vmType", vmTypeId), idBytes32("networkReference", networkReference)])

/**
 * The networkId of an EVM chain: keccak256(abi.encode(bytes32 keccak256("EVM"),
 * uint256 chainId)). The chain id is a decimal string, a safe integer or a bigint.
 *
 * @throws {IndependentError} `ID_INPUT_INVALID`.
 * @category identifiers
 * @since 0.1.0
 */
export const evmNetworkId = (chainId: string | number | bigint): Hex =>
  hashWords([vmType("EVM"), idUint("chainId", chainId, 256n)])

/**
 * The networkId of a Solana cluster: keccak256(abi.encode(bytes32
 * keccak256("SVM"), bytes32 keccak256(utf8(base58 genesis hash)))).
 *
 * @throws {IndependentError} `ID_INPUT_INVALID` for a genesis hash that is not 32 to 44 base58 characters.
 * @category identifiers
 * @since 0.1.0
 */
export const solanaNetworkId = (genesisHash: string = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"): Hex => {
  if (typeof genesisHash !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(genesisHash)) {
    return refuse("ID_INPUT_INVALID", "genesisHash", "must be a base58 genesis hash")
  }
  return hashWords([vmType("SVM"), label(genesisHash)])
}

/**
 * The native reference of an EVM account or asset: the address left-padded to
 * 32 bytes, lowercase (the zero address is the native coin).
 *
 * @throws {IndependentError} `ID_INPUT_INVALID`.
 * @category identifiers
 * @since 0.1.0
 */
export const evmReference = (address: string): Hex => {
  if (typeof address !== "string" || !ADDRESS_RE.test(address)) {
    return refuse("ID_INPUT_INVALID", "address", "must be 0x followed by 40 hex digits")
  }
  return `0x${address.slice(2).toLowerCase().padStart(64, "0")}`
}

/**
 * accountId = keccak256(abi.encode(bytes32 networkId, bytes32 nativeAccountReference)).
 *
 * @throws {IndependentError} `ID_INPUT_INVALID`.
 * @category identifiers
 * @since 0.1.0
 */
export const accountId = (network: string, nativeReference: string): Hex =>
  hashWords([idBytes32("networkId", network), idBytes32("nativeReference", nativeReference)])

/**
 * The accountId of an EVM address on an EVM network.
 *
 * @throws {IndependentError} `ID_INPUT_INVALID`.
 * @category identifiers
 * @since 0.1.0
 */
export const evmAccountId = (network: string, address: string): Hex => accountId(network, evmReference(address))

/**
 * assetId = keccak256(abi.encode(bytes32 networkId, bytes32 nativeAssetReference)).
 *
 * @throws {IndependentError} `ID_INPUT_INVALID`.
 * @category identifiers
 * @since 0.1.0
 */
export const assetId = (network: string, nativeReference: string): Hex =>
  hashWords([idBytes32("networkId", network), idBytes32("nativeReference", nativeReference)])

/**
 * The assetId of an EVM token address on an EVM network (the zero address is the native coin).
 *
 * @throws {IndependentError} `ID_INPUT_INVALID`.
 * @category identifiers
 * @since 0.1.0
 */
export const evmAssetId = (network: string, tokenAddress: string): Hex => assetId(network, evmReference(tokenAddress))

/**
 * routeId = keccak256(abi.encode(bytes32 sourceNetworkId, bytes32 sourceAssetId,
 * bytes32 destinationNetworkId, bytes32 destinationAssetId, bytes32 releaseId)).
 * Other members of the input (a whole Route) are ignored.
 *
 * @throws {IndependentError} `ID_INPUT_INVALID`.
 * @category identifiers
 * @since 0.1.0
 */
export const routeId = (route: {
  readonly sourceNetworkId: unknown
  readonly sourceAssetId: unknown
  readonly destinationNetworkId: unknown
  readonly destinationAssetId: unknown
  readonly releaseId: unknown
}): Hex =>
  hashWords([
    idBytes32("sourceNetworkId", route.sourceNetworkId),
    idBytes32("sourceAssetId", route.sourceAssetId),
    idBytes32("destinationNetworkId", route.destinationNetworkId),
    idBytes32("destinationAssetId", route.destinationAssetId),
    idBytes32("releaseId", route.releaseId)
  ])

/**
 * quoteId = keccak256(abi.encode(bytes32 routeId, bytes32 pricingReferenceId,
 * uint64 validAfter, uint64 validUntil, bytes32 executionGeneration, bytes32
 * policyHash)). Other members of the input (a whole Route) are ignored.
 *
 * @throws {IndependentError} `ID_INPUT_INVALID`.
 * @category identifiers
 * @since 0.1.0
 */
export const quoteId = (route: {
  readonly routeId: unknown
  readonly pricingReferenceId: unknown
  readonly validAfter: unknown
  readonly validUntil: unknown
  readonly executionGeneration: unknown
  readonly policyHash: unknown
}): Hex =>
  keccak256(encodeAbiParameters(
    [
      { type: "bytes32" },
      { type: "bytes32" },
      { type: "uint64" },
      { type: "uint64" },
      { type: "bytes32" },
      { type: "bytes32" }
    ],
    [
      idBytes32("routeId", route.routeId),
      idBytes32("pricingReferenceId", route.pricingReferenceId),
      idUint("validAfter", route.validAfter, 64n),
      idUint("validUntil", route.validUntil, 64n),
      idBytes32("executionGeneration", route.executionGeneration),
      idBytes32("policyHash", route.policyHash)
    ]
  ))

// ---------------------------------------------------------------------------
// On-chain constants derived from text
// ---------------------------------------------------------------------------

const TUPLE_TYPES = `(${PERMIT_FIELDS.map((f) => f.type).join(",")})`

/**
 * The Solidity signatures the interface names, by function.
 *
 * @category onchain
 * @since 0.1.0
 */
export const functionSignatures = {
  fillDirect: `fillDirect(${TUPLE_TYPES},bytes)`,
  previewFillDirect: `previewFillDirect(${TUPLE_TYPES},bytes)`,
  resolveExecution: "resolveExecution(bytes)",
  resolve: "resolve(bytes)",
  standardId: "standardId()",
  supportsInterface: "supportsInterface(bytes4)",
  router: "router()",
  compatibilityLevel: "compatibilityLevel()",
  describeMandate: "describeMandate(bytes)",
  discoveryURI: "discoveryURI()",
  isLive: "isLive()",
  systemState: "systemState()",
  routeCount: "routeCount()",
  routeAt: "routeAt(uint256)",
  route: "route(bytes32)"
} as const

/**
 * The function selectors: the first 4 bytes of keccak256 of each of
 * {@link functionSignatures} (fillDirect `0xeeff9007`, previewFillDirect
 * `0xff5da6a9`, resolveExecution `0xe55814c5`, ...).
 *
 * @category onchain
 * @since 0.1.0
 */
export const selectors: { readonly [K in keyof typeof functionSignatures]: Hex } = Object.fromEntries(
  Object.entries(functionSignatures).map(([name, signature]) => [name, toFunctionSelector(signature)])
) as never

/**
 * The event signatures the interface names.
 *
 * @category onchain
 * @since 0.1.0
 */
export const eventSignatures = {
  SourceFillV6:
    "SourceFillV6(bytes32,bytes32,bytes32,address,address,address,address,uint256,uint128,uint128,uint32,uint64,bytes32,bytes32)"
} as const

/**
 * The event topic0s: keccak256 of each of {@link eventSignatures}.
 *
 * @category onchain
 * @since 0.1.0
 */
export const topics: { readonly [K in keyof typeof eventSignatures]: Hex } = {
  SourceFillV6: toEventSelector(eventSignatures.SourceFillV6)
}

const xor4 = (a: Hex, b: Hex): Hex =>
  `0x${((Number.parseInt(a.slice(2), 16) ^ Number.parseInt(b.slice(2), 16)) >>> 0).toString(16).padStart(8, "0")}`

/**
 * ERC-165 interface ids: ERC-165 itself (the selector of
 * `supportsInterface(bytes4)`) and the standard-module interface
 * (selector(`standardId()`) XOR selector(`resolveExecution(bytes)`)).
 *
 * @category onchain
 * @since 0.1.0
 */
export const interfaceIds: { readonly erc165: Hex; readonly standardModule: Hex } = {
  erc165: selectors.supportsInterface,
  standardModule: xor4(selectors.standardId, selectors.resolveExecution)
}

/**
 * Standard ids (keccak256 of the standard's name), the OIF compatibility level
 * id (keccak256("DISCOVERY_DESCRIPTION_ONLY")) and the facade's CREATE2 salt
 * (keccak256("SVC_PUBLIC_SOLVER_DISCOVERY_V6")).
 *
 * @category onchain
 * @since 0.1.0
 */
export const labels: {
  readonly erc7683StandardId: Hex
  readonly oifStandardId: Hex
  readonly oifCompatibilityLevelId: Hex
  readonly facadeSalt: Hex
  readonly evmVmType: Hex
  readonly demoReleaseId: Hex
} = {
  erc7683StandardId: label("ERC-7683"),
  oifStandardId: label("OIF"),
  oifCompatibilityLevelId: label("DISCOVERY_DESCRIPTION_ONLY"),
  facadeSalt: label("SVC_PUBLIC_SOLVER_DISCOVERY_V6"),
  evmVmType: vmType("EVM"),
  demoReleaseId: releaseId("SVC_MAINNET_V6")
}
