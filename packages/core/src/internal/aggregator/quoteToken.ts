/**
 * Quote tokens: the HMAC that binds a quote to the server secret, the store
 * record of a quote, and the way back from a token to a verified quote.
 * Internal: the public names are re-exported by `Aggregator`.
 *
 * @since 0.1.0
 */
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { utf8 } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import { AggregatorQuote } from "@svc/protocol/schema/Aggregator"
import { strictParseOptions } from "@svc/protocol/schema/index"
import { Effect, Result, Schema } from "effect"
import type { StoredQuote, StoreShape } from "../../Store.ts"
import { type AggregatorFailure, storeFailure } from "./errors.ts"

/**
 * The domain line of the quote token preimage.
 *
 * @category crypto
 * @since 0.1.0
 */
export const QUOTE_TOKEN_DOMAIN = "SVC_AGGREGATOR_QUOTE_TOKEN_V1"

/**
 * The quote token of a quote: HMAC-SHA256(key, `SVC_AGGREGATOR_QUOTE_TOKEN_V1` LF
 * canonical JSON of the quote without quoteToken), lowercase hex.
 *
 * @category crypto
 * @since 0.1.0
 */
export const quoteTokenOf = (key: Uint8Array, quote: Omit<AggregatorQuote, "quoteToken"> | AggregatorQuote): string => {
  const { quoteToken: _ignored, ...rest } = quote as AggregatorQuote
  return bytesToHex(hmac(sha256, key, utf8(`${QUOTE_TOKEN_DOMAIN}\n${CanonicalJson.stringify(rest)}`)))
}

/**
 * Whether two tokens are equal, in time independent of where they differ.
 *
 * @category crypto
 * @since 0.1.0
 */
export const sameToken = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

/**
 * The store record of a quote (ids and userAddress lowercase, the body as JSON
 * text), created at `createdAt` (Unix milliseconds).
 *
 * @category crypto
 * @since 0.1.0
 */
export const storedQuoteOf = (quote: AggregatorQuote, createdAt: number): StoredQuote => ({
  quoteToken: quote.quoteToken,
  quoteId: quote.quoteId.toLowerCase(),
  routeId: quote.routeId.toLowerCase(),
  userAddress: quote.userAddress === null ? null : quote.userAddress.toLowerCase(),
  body: JSON.stringify(quote),
  expiresAt: quote.expiresAt,
  createdAt
})

const decodeQuote = Schema.decodeUnknownResult(AggregatorQuote)

/**
 * The quote of a stored body, when it decodes strictly and both its own
 * quoteToken and its recomputed token equal `quoteToken` (else undefined).
 *
 * @category crypto
 * @since 0.1.0
 */
export const quoteOfBody = (key: Uint8Array, quoteToken: string, body: string): AggregatorQuote | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  const decoded = decodeQuote(parsed, strictParseOptions)
  if (Result.isFailure(decoded)) return undefined
  const q = decoded.success
  if (!sameToken(q.quoteToken, quoteToken) || !sameToken(quoteTokenOf(key, q), quoteToken)) return undefined
  return q
}

/**
 * The stored quote of a token, checked against its token (else undefined).
 *
 * @category crypto
 * @since 0.1.0
 */
export const loadQuote = (
  store: Pick<StoreShape, "getQuote">,
  key: Uint8Array,
  quoteToken: string
): Effect.Effect<AggregatorQuote | undefined, AggregatorFailure> =>
  store.getQuote(quoteToken).pipe(
    Effect.mapError(storeFailure),
    Effect.map((stored) => stored === undefined ? undefined : quoteOfBody(key, quoteToken, stored.body))
  )
