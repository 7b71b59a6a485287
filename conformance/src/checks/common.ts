/**
 * Helpers shared by the checks.
 *
 * @since 0.1.0
 */
import { CanonicalJson, FeedSignature, Signature } from "@svc/protocol"
import { Effect, Result, type Schema } from "effect"
import { getAddress } from "viem"
import type * as Check from "../Check.ts"
import { type CheckFailed, expectSchema, fail, type Inconclusive, type Skip } from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import * as Independent from "../Independent.ts"
import { asObject, expectJson, expectStatus, failure, Shared } from "../Shared.ts"

/**
 * What every check may use.
 *
 * @category models
 * @since 0.1.0
 */
export type Env = Check.Requirements

/**
 * A check's effect.
 *
 * @category models
 * @since 0.1.0
 */
export type CheckEffect = Effect.Effect<void, CheckFailed | Inconclusive | Skip, Env>

/**
 * A JSON object.
 *
 * @category models
 * @since 0.1.0
 */
export type Json = Record<string, unknown>

/**
 * A document fetched once per run: 200 and a JSON object.
 *
 * @category operations
 * @since 0.1.0
 */
export const document = (path: string) =>
  Effect.gen(function*() {
    const shared = yield* Shared
    const exchange = yield* shared.get(path)
    yield* expectStatus(exchange, 200, `GET ${path}`)
    const body = yield* expectJson(exchange)
    const value = asObject(body)
    if (value === undefined) {
      return yield* fail(
        failure(exchange, `${path} is not a JSON object`, "a JSON object", Exchange.responseSummary(exchange))
      )
    }
    return { exchange, value }
  })

/**
 * A document that must decode strictly.
 *
 * @category operations
 * @since 0.1.0
 */
export const strictDocument = <S extends Schema.Decoder<unknown>>(path: string, schema: S) =>
  Effect.gen(function*() {
    const { exchange, value } = yield* document(path)
    const decoded = yield* expectSchema(schema, value, `GET ${path}`, exchange)
    return { exchange, value, decoded }
  })

/**
 * Canonical JSON equality (key order ignored, arrays in order).
 *
 * @category operations
 * @since 0.1.0
 */
export const sameJson = (a: unknown, b: unknown): boolean => {
  const x = CanonicalJson.stringifyResult(a)
  const y = CanonicalJson.stringifyResult(b)
  if (Result.isSuccess(x) && Result.isSuccess(y)) return x.success === y.success
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * The first path where two JSON values differ (for messages).
 *
 * @category operations
 * @since 0.1.0
 */
export const firstDifference = (a: unknown, b: unknown, path = "$"): string | undefined => {
  if (sameJson(a, b)) return undefined
  const oa = asObject(a)
  const ob = asObject(b)
  if (oa !== undefined && ob !== undefined) {
    for (const key of [...new Set([...Object.keys(oa), ...Object.keys(ob)])].sort()) {
      if (!(key in oa)) return `${path}.${key} (only in the second)`
      if (!(key in ob)) return `${path}.${key} (only in the first)`
      const d = firstDifference(oa[key], ob[key], `${path}.${key}`)
      if (d !== undefined) return d
    }
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path} (length ${a.length} vs ${b.length})`
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`)
      if (d !== undefined) return d
    }
  }
  return `${path} (${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)})`
}

/**
 * An address in EIP-55 form, or undefined when it is not an address.
 *
 * @category operations
 * @since 0.1.0
 */
export const checksum = (value: unknown): string | undefined => {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(value)) return undefined
  return getAddress(value.toLowerCase())
}

/**
 * Whether two addresses are equal (case-insensitive).
 *
 * @category operations
 * @since 0.1.0
 */
export const sameAddress = (a: unknown, b: unknown): boolean =>
  typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase()

/**
 * Verifies a SignedFeed-like object: the recomputed hash, the recovered signer
 * against the authority, the validity window against `now`.
 *
 * @category operations
 * @since 0.1.0
 */
export const verifyFeed = (feed: Json, authority: string, nowSeconds: number) => {
  const problems: Array<{ title: string; expected: string; actual: string }> = []
  const payload = asObject(feed.signedPayload)
  if (payload === undefined) {
    return [{ title: "no signedPayload", expected: "a signedPayload object", actual: "absent" }]
  }
  const canonical = CanonicalJson.stringifyResult(payload)
  if (Result.isFailure(canonical)) {
    return [{
      title: "signedPayload has no canonical JSON form",
      expected: "integers within 2^53",
      actual: canonical.failure.message
    }]
  }
  const hash = FeedSignature.hashCanonical(canonical.success)
  const independent = secondPath(() => Independent.feedHash(payload))
  if (independent !== hash) {
    problems.push({
      title: "the shared library and the second path disagree on the feed hash",
      expected: `${independent} (second path)`,
      actual: `${hash} (@svc/protocol)`
    })
  }
  if (String(feed.feedHash).toLowerCase() !== hash) {
    problems.push({
      title: "feedHash is not the hash of the signed payload",
      expected: hash,
      actual: String(feed.feedHash)
    })
  }
  const recovered = typeof feed.feedSignature === "string"
    ? Signature.recoverDigestSigner(hash, feed.feedSignature)
    : undefined
  const signer = recovered !== undefined && Result.isSuccess(recovered) ? recovered.success : undefined
  if (signer === undefined || !sameAddress(signer, authority) || !sameAddress(feed.feedSigner, authority)) {
    problems.push({
      title: "the feed is not signed by the authority",
      expected: `feedSigner = recovered signer = ${authority}`,
      actual: `feedSigner ${String(feed.feedSigner)}, recovered ${
        signer ?? (recovered !== undefined && Result.isFailure(recovered) ? recovered.failure.message : "nothing")
      }`
    })
  }
  const validUntil = Number(payload.validUntil)
  const generatedAt = Number(payload.generatedAt)
  if (!(validUntil > nowSeconds) || generatedAt > nowSeconds + CLOCK_SKEW_SECONDS) {
    problems.push({
      title: "the feed is outside its validity window",
      expected: `generatedAt <= now (${nowSeconds}, ±${CLOCK_SKEW_SECONDS} s) < validUntil`,
      actual: `generatedAt ${generatedAt}, validUntil ${validUntil}`
    })
  }
  return problems
}

/**
 * The clock difference tolerated between the deployment and the harness, seconds.
 *
 * @category constants
 * @since 0.1.0
 */
export const CLOCK_SKEW_SECONDS = 5

/**
 * Now in Unix seconds (from the Clock, so that in-process runs share the
 * deployment's clock).
 *
 * @category operations
 * @since 0.1.0
 */
export const nowSeconds = Effect.map(Effect.clockWith((c) => c.currentTimeMillis), (ms) => Math.floor(ms / 1000))

/**
 * An absolute URL's path, or undefined.
 *
 * @category operations
 * @since 0.1.0
 */
export const pathOf = (url: unknown): string | undefined => {
  if (typeof url !== "string" || !URL.canParse(url)) return undefined
  return new URL(url).pathname
}

/**
 * A value of the second path (`Independent`): the value, or `error: <message>`
 * when it threw, so that it can be compared and shown like any other text.
 *
 * @category operations
 * @since 0.1.0
 */
export const secondPath = (compute: () => string): string => {
  try {
    return compute()
  } catch (e) {
    return `error: ${(e as Error)?.message ?? String(e)}`
  }
}

/**
 * The failure to report when the shared library and the second path give
 * different values for the same input: the harness cannot tell which one the
 * deployment should match, and that alone fails the check.
 *
 * @category operations
 * @since 0.1.0
 */
export const pathsDisagree = (
  exchange: Exchange.Exchange,
  what: string,
  library: string,
  independent: string
): Check.Failure | undefined =>
  library.toLowerCase() === independent.toLowerCase() ? undefined : failure(
    exchange,
    `the shared library and the second path disagree on ${what}`,
    `${independent} (second path)`,
    `${library} (@svc/protocol)`
  )
