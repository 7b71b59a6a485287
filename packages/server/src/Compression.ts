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
 * Picks the coding of an Accept-Encoding header: brotli, then gzip, each only
 * when accepted with q > 0.
 *
 * @category negotiation
 * @since 0.1.0
 */
export const negotiate = (acceptEncoding: string | undefined): Coding => {
  if (acceptEncoding === undefined || acceptEncoding.length === 0) return "identity"
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
  const q = (name: string) => accepted.get(name) ?? wildcard ?? 0
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

const cache = new WeakMap<Uint8Array, Map<"br" | "gzip", Promise<Uint8Array>>>()

/**
 * The body in a coding: the cached variant, computed on first use. Falls back to
 * the identity body if compression fails.
 *
 * @category compression
 * @since 0.1.0
 */
export const encoded = (body: Uint8Array, coding: Coding): Effect.Effect<{ readonly body: Uint8Array; readonly coding: Coding }> => {
  if (coding === "identity" || body.length < MIN_BYTES) return Effect.succeed({ body, coding: "identity" })
  let variants = cache.get(body)
  if (variants === undefined) {
    variants = new Map()
    cache.set(body, variants)
  }
  let pending = variants.get(coding)
  if (pending === undefined) {
    pending = compress(coding, body)
    variants.set(coding, pending)
  }
  const promise = pending
  return Effect.tryPromise(() => promise).pipe(
    Effect.map((compressed) => ({ body: compressed, coding })),
    Effect.orElseSucceed(() => ({ body, coding: "identity" as const }))
  )
}
