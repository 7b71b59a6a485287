/**
 * Compression of the event stream, computed once per frame and shared by every
 * subscriber of an encoding.
 *
 * A compressed HTTP response is normally one compressor per connection: for a
 * 2,000-route feed that is 11 MiB of compression per subscriber and per
 * publication. Here each SSE frame is compressed once, into bytes that can be
 * appended to any subscriber's stream whatever came before:
 *
 * - `zstd`: each frame is one Zstandard frame (window ≤ 8 MiB, as HTTP's zstd
 *   content coding requires); a zstd stream is any sequence of frames.
 * - `gzip`: each frame is raw deflate from a fresh compressor ended by a sync
 *   flush (byte-aligned, no final block, no reference to earlier bytes). A
 *   subscriber's stream is the 10-byte gzip header, the frames' blocks, and, when
 *   the stream ends normally, an empty final block with the CRC-32 and length of
 *   everything sent; each subscriber keeps the CRC by combining the frames'
 *   precomputed CRCs (no pass over the bytes per subscriber).
 * - `identity` otherwise.
 *
 * Brotli is not offered on the stream: its frames cannot be shared (a frame's
 * coding depends on the bytes before it).
 *
 * @since 0.1.0
 */
import * as zlib from "node:zlib"
import * as Compression from "./Compression.ts"

/**
 * A content coding of the event stream.
 *
 * @category models
 * @since 0.1.0
 */
export type StreamEncoding = "identity" | "gzip" | "zstd"

const hasZstd = typeof zlib.zstdCompress === "function"

/**
 * The coding of an event stream for a request's Accept-Encoding: zstd, then
 * gzip, when accepted; identity otherwise.
 *
 * @category http
 * @since 0.1.0
 */
export const negotiate = (acceptEncoding: string | undefined): StreamEncoding => {
  if (acceptEncoding === undefined || acceptEncoding.length === 0) return "identity"
  const q = Compression.qualities(acceptEncoding)
  if (hasZstd && q("zstd") > 0) return "zstd"
  if (q("gzip") > 0) return "gzip"
  return "identity"
}

/**
 * A frame as one coding writes it: the bytes to append, and the CRC-32 and size
 * of the plain frame (for the gzip trailer).
 *
 * @category models
 * @since 0.1.0
 */
export interface Encoded {
  readonly bytes: Uint8Array
  readonly crc: number
  readonly size: number
}

/** Frames from this size up are compressed off the event loop (zlib's thread pool). */
export const ASYNC_FROM_BYTES = 256 * 1024

const ZSTD_PARAMS = {
  // level 3 with an 8 MiB window: within 1 % of level 12 on a 2,000-route feed, at a tenth of the time
  [zlib.constants.ZSTD_c_compressionLevel]: 3,
  [zlib.constants.ZSTD_c_windowLog]: 23,
  [zlib.constants.ZSTD_c_checksumFlag]: 1
}
const DEFLATE_OPTIONS: zlib.ZlibOptions = { level: 6, finishFlush: zlib.constants.Z_SYNC_FLUSH }

const encodeSync = (frame: Uint8Array, encoding: "gzip" | "zstd"): Uint8Array =>
  encoding === "zstd"
    ? zlib.zstdCompressSync(frame, { params: ZSTD_PARAMS })
    : zlib.deflateRawSync(frame, DEFLATE_OPTIONS)

const encodeAsync = (frame: Uint8Array, encoding: "gzip" | "zstd"): Promise<Uint8Array> =>
  new Promise((resolve, reject) => {
    const done = (error: Error | null, bytes: Buffer) => error === null ? resolve(bytes) : reject(error)
    if (encoding === "zstd") zlib.zstdCompress(frame, { params: ZSTD_PARAMS }, done)
    else zlib.deflateRaw(frame, DEFLATE_OPTIONS, done)
  })

/** Identity frames as `Encoded`, one object per frame (not one per subscriber and write). */
const identities = new WeakMap<Uint8Array, Encoded>()

const caches = {
  gzip: new WeakMap<Uint8Array, Encoded | Promise<Encoded>>(),
  zstd: new WeakMap<Uint8Array, Encoded | Promise<Encoded>>()
}

/**
 * A frame in a coding, computed once per frame and coding (cached while the
 * frame is alive): synchronously below {@link ASYNC_FROM_BYTES}, else a promise.
 *
 * @category encoding
 * @since 0.1.0
 */
export const encode = (frame: Uint8Array, encoding: StreamEncoding): Encoded | Promise<Encoded> => {
  if (encoding === "identity") {
    let plain = identities.get(frame)
    if (plain === undefined) {
      plain = { bytes: frame, crc: 0, size: frame.length }
      identities.set(frame, plain)
    }
    return plain
  }
  const cache = caches[encoding]
  const cached = cache.get(frame)
  if (cached !== undefined) return cached
  const crc = encoding === "gzip" ? zlib.crc32(frame) : 0
  if (frame.length < ASYNC_FROM_BYTES) {
    const encoded = { bytes: encodeSync(frame, encoding), crc, size: frame.length }
    cache.set(frame, encoded)
    return encoded
  }
  const pending = encodeAsync(frame, encoding).then((bytes) => {
    const encoded = { bytes, crc, size: frame.length }
    cache.set(frame, encoded)
    return encoded
  })
  cache.set(frame, pending)
  // a failure is the caller's to handle; the cache forgets it so that a later call retries
  pending.catch(() => cache.delete(frame))
  return pending
}

/**
 * A small frame (a heartbeat, `retry:`, a closing event) in a coding, synchronously.
 *
 * @category encoding
 * @since 0.1.0
 */
export const encodeSmall = (frame: Uint8Array, encoding: StreamEncoding): Encoded => {
  const encoded = encode(frame, encoding)
  if (encoded instanceof Promise) throw new Error("encodeSmall: the frame is too large to encode synchronously")
  return encoded
}

// ---------------------------------------------------------------------------
// CRC-32 combination (the polynomial arithmetic of zlib's crc32_combine)
// ---------------------------------------------------------------------------

const POLY = 0xedb88320

/** a × b modulo the CRC polynomial (reflected bit order). */
const multiplyModP = (a: number, b: number): number => {
  let m = 0x80000000
  let p = 0
  for (;;) {
    if ((a & m) !== 0) {
      p ^= b
      if ((a & (m - 1)) === 0) break
    }
    m >>>= 1
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLY : b >>> 1
  }
  return p >>> 0
}

/** x^(2^k) modulo the polynomial, k = 0..31. */
const X2N: ReadonlyArray<number> = (() => {
  const table: Array<number> = []
  let p = 0x40000000 // x^1
  table.push(p)
  for (let k = 1; k < 32; k++) table.push(p = multiplyModP(p, p))
  return table
})()

/** x^(n × 2^k) modulo the polynomial. */
const powerModP = (n: number, k: number): number => {
  let p = 0x80000000 // x^0
  while (n !== 0) {
    if ((n & 1) !== 0) p = multiplyModP(X2N[k & 31]!, p)
    n >>>= 1
    k++
  }
  return p
}

/**
 * The CRC-32 of `a ‖ b` from the CRC-32 of `a`, the CRC-32 of `b` and the length
 * of `b` (bytes, below 2^32).
 *
 * @category encoding
 * @since 0.1.0
 */
export const crc32Combine = (crcA: number, crcB: number, lengthB: number): number =>
  (multiplyModP(powerModP(lengthB >>> 0, 3), crcA >>> 0) ^ crcB) >>> 0

// ---------------------------------------------------------------------------
// One subscriber's stream
// ---------------------------------------------------------------------------

/** gzip member header: deflate, no name, no time, unknown OS. */
const GZIP_HEADER = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])
/** An empty final block with fixed codes (BFINAL 1, BTYPE 01, end of block), padded to a byte. */
const FINAL_BLOCK = new Uint8Array([0x03, 0x00])

/**
 * What one subscriber's stream has sent in its coding: the bytes that open it,
 * the bytes of each frame (keeping the running CRC for gzip), and the bytes that
 * end it.
 *
 * @category models
 * @since 0.1.0
 */
export interface StreamState {
  readonly encoding: StreamEncoding
  /** The bytes that start the stream (the gzip header), if any. */
  readonly open: () => Uint8Array | undefined
  /** The bytes to write for a frame, accounting for it. */
  readonly frame: (encoded: Encoded) => Uint8Array
  /** The bytes that end the stream normally (after an optional last frame). */
  readonly close: (last?: Encoded) => Uint8Array | undefined
}

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}

class GzipState implements StreamState {
  readonly encoding = "gzip" as const
  crc = 0
  size = 0
  open() {
    return GZIP_HEADER
  }
  frame(encoded: Encoded) {
    this.crc = crc32Combine(this.crc, encoded.crc, encoded.size)
    this.size = (this.size + encoded.size) >>> 0
    return encoded.bytes
  }
  close(last?: Encoded) {
    const trailer = new Uint8Array(10)
    trailer.set(FINAL_BLOCK, 0)
    const view = new DataView(trailer.buffer)
    const body = last === undefined ? undefined : this.frame(last)
    view.setUint32(2, this.crc, true)
    view.setUint32(6, this.size, true)
    return body === undefined ? trailer : concat(body, trailer)
  }
}

const passThrough = (encoding: StreamEncoding): StreamState => ({
  encoding,
  open: () => undefined,
  frame: (encoded) => encoded.bytes,
  close: (last) => last?.bytes
})

const IDENTITY = passThrough("identity")
const ZSTD = passThrough("zstd")

/**
 * A new subscriber's stream state in a coding (stateless codings share one).
 *
 * @category constructors
 * @since 0.1.0
 */
export const state = (encoding: StreamEncoding): StreamState =>
  encoding === "gzip" ? new GzipState() : encoding === "zstd" ? ZSTD : IDENTITY

/**
 * The Content-Encoding header value of a coding (none for identity).
 *
 * @category http
 * @since 0.1.0
 */
export const contentEncoding = (encoding: StreamEncoding): string | undefined =>
  encoding === "identity" ? undefined : encoding
