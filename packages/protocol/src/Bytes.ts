/**
 * Byte helpers of the protocol modules: keccak-256, hex and UTF-8. Small and
 * dependency-light (only `@noble/hashes`), so that every module that needs them
 * stays browser-safe.
 *
 * @since 0.1.0
 */
import { keccak_256 } from "@noble/hashes/sha3.js"
import { bytesToHex as nobleBytesToHex, hexToBytes as nobleHexToBytes } from "@noble/hashes/utils.js"

/**
 * A `0x`-prefixed hex string.
 *
 * @category models
 * @since 0.1.0
 */
export type Hex = `0x${string}`

const encoder = /* @__PURE__ */ new TextEncoder()

/**
 * UTF-8 bytes of a string.
 *
 * @category encoding
 * @since 0.1.0
 */
export const utf8 = (text: string): Uint8Array => encoder.encode(text)

/**
 * Lowercase `0x` hex of bytes.
 *
 * @category encoding
 * @since 0.1.0
 */
export const toHex = (bytes: Uint8Array): Hex => `0x${nobleBytesToHex(bytes)}`

/**
 * Bytes of a `0x` hex string (either case). Throws on odd length or a non-hex digit.
 *
 * @category encoding
 * @since 0.1.0
 */
export const fromHex = (hex: string): Uint8Array => nobleHexToBytes(hex.startsWith("0x") ? hex.slice(2) : hex)

/**
 * Keccak-256 (Ethereum keccak, not SHA3-256) of bytes, as lowercase hex.
 *
 * @category encoding
 * @since 0.1.0
 */
export const keccak = (bytes: Uint8Array): Hex => toHex(keccak_256(bytes))

/**
 * Keccak-256 of the UTF-8 bytes of a string.
 *
 * @category encoding
 * @since 0.1.0
 */
export const keccakUtf8 = (text: string): Hex => keccak(utf8(text))

/**
 * Raw Keccak-256 digest bytes.
 *
 * @category encoding
 * @since 0.1.0
 */
export const keccakBytes = (bytes: Uint8Array): Uint8Array => keccak_256(bytes)

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/

/**
 * The EIP-55 mixed-case checksum form of an address (`0x` and 40 hex digits in
 * either case; the input's casing is ignored): a hex letter is upper case when
 * the matching nibble of keccak256(the 40 lowercase hex digits as ASCII) is 8 or
 * more. Throws for anything that is not `0x` and 40 hex digits.
 *
 * @category encoding
 * @since 0.1.0
 */
export const checksumAddress = (address: string): Hex => {
  if (typeof address !== "string" || !HEX_ADDRESS.test(address)) {
    throw new Error(`Address "${String(address)}" is invalid.`)
  }
  const lower = address.slice(2).toLowerCase()
  const hash = keccak_256(utf8(lower))
  let out = "0x"
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!
  }
  return out as Hex
}
