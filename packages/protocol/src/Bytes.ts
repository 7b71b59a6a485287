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

const encoder = new TextEncoder()

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
