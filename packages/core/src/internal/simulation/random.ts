/**
 * The simulation's random source: small, fast and seeded (sfc32), with named
 * independent streams, so that turning a fault generator off does not change
 * what the clients do. Internal.
 */
import { keccakUtf8 } from "@svc/protocol/Bytes"

/** A seeded stream of numbers. */
export interface Rng {
  /** A number in [0, 1). */
  readonly next: () => number
  /** An integer in [lo, hi] (inclusive). */
  readonly int: (lo: number, hi: number) => number
  /** True with probability p. */
  readonly chance: (p: number) => boolean
  /** One of the items. */
  readonly pick: <A>(items: ReadonlyArray<A>) => A
  /** A bigint in [lo, hi] (inclusive). */
  readonly bigint: (lo: bigint, hi: bigint) => bigint
  /** An exponentially distributed wait with this mean. */
  readonly exponential: (mean: number) => number
  /** An independent stream named after this one. */
  readonly fork: (name: string) => Rng
}

/** A stream for a seed and a name. */
export const make = (seed: number | string, name = "root"): Rng => {
  const digest = keccakUtf8(`svc-simulation:${seed}:${name}`)
  const word = (i: number) => parseInt(digest.slice(2 + i * 8, 10 + i * 8), 16) >>> 0
  let a = word(0)
  let b = word(1)
  let c = word(2)
  let d = word(3)
  const next32 = () => {
    a >>>= 0
    b >>>= 0
    c >>>= 0
    d >>>= 0
    const t = (a + b) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    d = (d + 1) | 0
    const r = (t + d) | 0
    c = (c + r) | 0
    return r >>> 0
  }
  for (let i = 0; i < 12; i++) next32()
  const next = () => next32() / 4_294_967_296
  const rng: Rng = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    bigint: (lo, hi) => {
      if (hi <= lo) return lo
      const span = hi - lo + 1n
      let x = 0n
      for (let i = 0; i < 4; i++) x = (x << 32n) | BigInt(next32())
      return lo + (x % span)
    },
    exponential: (mean) => -Math.log(1 - next()) * mean,
    fork: (child) => make(seed, `${name}/${child}`)
  }
  return rng
}
