/**
 * Keccak-256 through WebAssembly (hash-wasm): about 15x faster than the pure-JS
 * keccak on megabyte inputs, which matters for the feed hash of large catalogs.
 * The digest is identical to @noble/hashes' keccak_256 (checked by tests). Internal.
 */
import { keccak_256 } from "@noble/hashes/sha3.js"
import { type Hex, keccak, toHex } from "@svc/protocol/Bytes"
import { Effect } from "effect"
import { createKeccak, type IHasher } from "hash-wasm"

/** Inputs below this size are hashed in JS (no WebAssembly start-up). */
const SMALL = 4096

/**
 * A Keccak-256 of bytes as lowercase hex, owning its WebAssembly hasher: loaded
 * on first use of a large input, falling back to the JS implementation if it
 * cannot be loaded.
 */
export const makeKeccakFast = (): (bytes: Uint8Array) => Effect.Effect<Hex> => {
  let hasher: IHasher | undefined
  let loading: Promise<IHasher> | undefined
  const load = (): Promise<IHasher> => (loading ??= createKeccak(256).then((h) => (hasher = h)))
  return (bytes) => {
    if (bytes.length < SMALL) return Effect.sync(() => keccak(bytes))
    if (hasher !== undefined) return Effect.sync(() => digest(hasher!, bytes))
    return Effect.tryPromise(load).pipe(
      Effect.map((h) => digest(h, bytes)),
      Effect.orElseSucceed(() => keccak(bytes))
    )
  }
}

const digest = (h: IHasher, bytes: Uint8Array): Hex => {
  h.init()
  h.update(bytes)
  return `0x${h.digest("hex")}`
}

/**
 * A Keccak-256 fed in pieces: the digest of the concatenation of every `update`
 * so far (the same digest as a one-shot keccak of the whole input).
 */
export interface KeccakStream {
  readonly update: (bytes: Uint8Array) => void
  /** The digest, once: the stream cannot be used after it. */
  readonly digest: () => Hex
}

/**
 * Starts incremental Keccak-256 digests over one WebAssembly hasher of its own
 * (the JS implementation if it cannot be loaded). A stream may be fed across
 * yields to the event loop; streams of one maker must not overlap in time (the
 * publisher builds one publication at a time): starting a stream ends the
 * previous one, whose later use throws rather than hash the wrong bytes.
 */
export const makeKeccakStreams = (): Effect.Effect<KeccakStream> => {
  let hasher: IHasher | undefined
  let loading: Promise<IHasher> | undefined
  let unavailable = false
  let generation = 0
  const load = (): Promise<IHasher> => (loading ??= createKeccak(256).then((h) => (hasher = h)))
  const wasm = (h: IHasher): KeccakStream => {
    const mine = ++generation
    const check = () => {
      if (generation !== mine) throw new Error("keccak stream used after another one started")
    }
    h.init()
    return {
      update: (bytes) => {
        check()
        h.update(bytes)
      },
      digest: () => {
        check()
        generation++
        return `0x${h.digest("hex")}`
      }
    }
  }
  const js = (): KeccakStream => {
    const h = keccak_256.create()
    return {
      update: (bytes) => {
        h.update(bytes)
      },
      digest: () => toHex(h.digest())
    }
  }
  return Effect.suspend(() => {
    if (hasher !== undefined) return Effect.sync(() => wasm(hasher!))
    if (unavailable) return Effect.sync(js)
    return Effect.tryPromise(load).pipe(
      Effect.map(wasm),
      Effect.orElseSucceed(() => {
        unavailable = true
        return js()
      })
    )
  })
}
