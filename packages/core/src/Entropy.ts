/**
 * Where the engine's random bytes come from: fillIds and permit nonces, the
 * aggregator's generated secrets. Nothing else in the core reads the platform's
 * randomness, so that a run of the engine can be repeated byte for byte.
 *
 * - {@link secure} (the default when no layer provides one): the platform's
 *   cryptographically secure generator (`crypto.getRandomValues`). Production
 *   uses it; there is nothing to configure.
 * - {@link seeded}: a deterministic stream from a seed (Keccak-256 in counter
 *   mode), for simulations and tests that replay exactly. Never in production:
 *   anyone who knows the seed knows every fillId.
 *
 * ```ts
 * import { Entropy, Solver } from "@svc/core"
 *
 * // a simulation: the same seed gives the same fillIds
 * const engine = Solver.layer(options).pipe(Layer.provide(Entropy.layerSeeded("run-42")))
 * ```
 *
 * @since 0.1.0
 */
import { type Hex, keccakBytes, toHex, utf8 } from "@svc/protocol/Bytes"
import { Context, Effect, Layer } from "effect"

/**
 * A source of random bytes.
 *
 * @category models
 * @since 0.1.0
 */
export interface EntropySource {
  /** `length` fresh bytes. */
  readonly bytes: (length: number) => Uint8Array
  /** What it is, for logs ("secure", "seeded"). */
  readonly kind: string
}

/**
 * The platform's cryptographically secure generator.
 *
 * @category constructors
 * @since 0.1.0
 */
export const secure: EntropySource = {
  kind: "secure",
  bytes: (length) => {
    const out = new Uint8Array(length)
    // getRandomValues fills at most 65536 bytes per call
    for (let at = 0; at < length; at += 65_536) globalThis.crypto.getRandomValues(out.subarray(at, at + 65_536))
    return out
  }
}

/**
 * A deterministic stream of bytes from a seed: block i is
 * keccak256(utf8("svc-entropy:" + seed) ‖ uint64be(i)). Two sources with the
 * same seed give the same bytes in the same order.
 *
 * @category constructors
 * @since 0.1.0
 */
export const seeded = (seed: string | number | bigint): EntropySource => {
  const prefix = utf8(`svc-entropy:${String(seed)}`)
  const input = new Uint8Array(prefix.length + 8)
  input.set(prefix)
  const view = new DataView(input.buffer)
  let counter = 0n
  let buffer: Uint8Array = new Uint8Array(0)
  let offset = 0
  const refill = () => {
    view.setBigUint64(prefix.length, counter++)
    buffer = keccakBytes(input)
    offset = 0
  }
  return {
    kind: "seeded",
    bytes: (length) => {
      const out = new Uint8Array(length)
      for (let i = 0; i < length; i++) {
        if (offset >= buffer.length) refill()
        out[i] = buffer[offset++]!
      }
      return out
    }
  }
}

/**
 * The entropy service: {@link secure} unless a layer provides another source.
 *
 * @category services
 * @since 0.1.0
 */
export const Entropy: Context.Reference<EntropySource> = Context.Reference<EntropySource>("@svc/core/Entropy", {
  defaultValue: () => secure
})

/**
 * 32 random bytes from the current source, as lowercase hex.
 *
 * @category operations
 * @since 0.1.0
 */
export const bytes32: Effect.Effect<Hex> = Entropy.useSync((source) => toHex(source.bytes(32)))

/**
 * The secure source (what runs when nothing is provided).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerSecure: Layer.Layer<never> = Layer.succeed(Entropy, secure)

/**
 * A seeded source (simulations, tests that replay).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerSeeded = (seed: string | number | bigint): Layer.Layer<never> =>
  Layer.sync(Entropy, () => seeded(seed))
