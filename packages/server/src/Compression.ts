/**
 * Response compression for prepared bodies: gzip (level 6) and brotli (quality 4)
 * variants, computed once per body, lazily (on the first request that accepts
 * them) and asynchronously (on libuv's thread pool, off the event loop), then
 * shared by every later request. Bodies under 1 KiB are sent as they are.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { brotliCompress, constants, gzip } from "node:zlib"

/**
 * A content coding svc sends.
 *
 * @category models
 * @since 0.1.0
 */
export type Coding = "br" | "gzip" | "identity"

const MIN_BYTES = 1024

/**
 * The quality an Accept-Encoding header gives each coding (RFC 9110 §12.5.3):
 * the named coding's q, else `*`'s, else 0 (not acceptable).
 *
 * @category http
 * @since 0.1.0
 */
export const qualities = (acceptEncoding: string): (coding: string) => number => {
  const accepted = new Map<string, number>()
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";")
    if (name === undefined || name.length === 0) continue
    let q = 1
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)
      if (m !== null) q = Number(m[1])
    }
    accepted.set(name.trim(), Number.isFinite(q) ? q : 0)
  }
  const wildcard = accepted.get("*")
  return (coding) => accepted.get(coding) ?? wildcard ?? 0
}

/**
 * Picks the coding of an Accept-Encoding header: brotli, then gzip, each only
 * when accepted with q > 0.
 *
 * @category http
 * @since 0.1.0
 */
export const negotiate = (acceptEncoding: string | undefined): Coding => {
  if (acceptEncoding === undefined || acceptEncoding.length === 0) return "identity"
  const q = qualities(acceptEncoding)
  if (q("br") > 0) return "br"
  if (q("gzip") > 0) return "gzip"
  return "identity"
}

const compress = (coding: "br" | "gzip", body: Uint8Array): Promise<Uint8Array> =>
  new Promise((resolve, reject) => {
    const done = (error: Error | null, result: Buffer) => (error ? reject(error) : resolve(result))
    if (coding === "gzip") gzip(body, { level: 6 }, done)
    else {
      brotliCompress(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 4,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT
        }
      }, done)
    }
  })

/**
 * A body in a coding: the encoded bytes and the coding actually used.
 *
 * @category models
 * @since 0.1.0
 */
export interface Encoded {
  readonly body: Uint8Array
  readonly coding: Coding
}

/**
 * The compressed variants of prepared bodies, computed on first use and kept
 * with the body (a body that is no longer referenced takes its variants with it).
 *
 * @category models
 * @since 0.1.0
 */
export interface Compressor {
  /**
   * The body in a coding: at once when it is cached (or not worth compressing),
   * else a promise of it. Falls back to the identity body if compression fails.
   */
  readonly encoded: (body: Uint8Array, coding: Coding) => Encoded | Promise<Encoded>
}

/**
 * A compressor with its own cache.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeCompressor = (): Compressor => {
  const variants = new WeakMap<Uint8Array, Map<"br" | "gzip", Encoded | Promise<Encoded>>>()
  return {
    encoded: (body, coding) => {
      if (coding === "identity" || body.length < MIN_BYTES) return { body, coding: "identity" }
      let byCoding = variants.get(body)
      if (byCoding === undefined) {
        byCoding = new Map()
        variants.set(body, byCoding)
      }
      const known = byCoding.get(coding)
      if (known !== undefined) return known
      const map = byCoding
      const pending = compress(coding, body).then(
        (compressed): Encoded => ({ body: compressed, coding }),
        (): Encoded => ({ body, coding: "identity" })
      ).then((done) => {
        map.set(coding, done)
        return done
      })
      map.set(coding, pending)
      return pending
    }
  }
}

/**
 * The body in a coding, as an Effect.
 *
 * @category http
 * @since 0.1.0
 */
export const encodedEffect = (compressor: Compressor, body: Uint8Array, coding: Coding): Effect.Effect<Encoded> => {
  const result = compressor.encoded(body, coding)
  return result instanceof Promise ? Effect.promise(() => result) : Effect.succeed(result)
}
