/**
 * Solana account and asset locators.
 *
 * - An account locator is `{"native": "<base58 public key>"}`: exactly that key,
 *   the base58 (Bitcoin alphabet) encoding of 32 bytes in its one canonical
 *   spelling. The string form `"<base58>"` stands for it. Off-curve keys
 *   (program-derived addresses) are valid recipients; only on-curve keys can
 *   sign, so only they can be payers.
 * - The account reference is the 32-byte key: accountId =
 *   keccak256(abi.encode(networkId, key)).
 * - An asset locator is `{"mint": "<base58 mint>"}` (the string form is the
 *   mint); the asset reference is the 32-byte mint.
 * - A network reference is keccak256(utf8(genesisHash)) of the cluster's base58
 *   genesis hash.
 *
 * Every function is total: invalid input is a `ConnectorError`, never a throw.
 *
 * @since 0.1.0
 */
import { base58 } from "@scure/base"
import { Connector } from "@svc/core"
import { Ids, type Locator } from "@svc/protocol"
import { isPlainObject } from "@svc/protocol/Patterns"
import { Result } from "effect"

type Hex = `0x${string}`

const B58 = /^[1-9A-HJ-NP-Za-km-z]+$/

const refuse = (code: string, message: string) => Result.fail(new Connector.ConnectorError({ code, message }))

const toHex = (bytes: Uint8Array): Hex => {
  let out = "0x"
  for (const b of bytes) out += b.toString(16).padStart(2, "0")
  return out as Hex
}

/**
 * The 32 bytes of a canonical base58 key, or undefined (not base58, not 32
 * bytes, or not the canonical spelling).
 *
 * @category encoding
 * @since 0.1.0
 */
export const decodeKey = (text: unknown): Uint8Array | undefined => {
  if (typeof text !== "string" || text.length < 32 || text.length > 44 || !B58.test(text)) return undefined
  try {
    const bytes = base58.decode(text)
    return bytes.length === 32 && base58.encode(bytes) === text ? bytes : undefined
  } catch {
    return undefined
  }
}

/**
 * The base58 spelling of 32 bytes.
 *
 * @category encoding
 * @since 0.1.0
 */
export const encodeKey = (bytes: Uint8Array): string => base58.encode(bytes)

/**
 * The canonical locator of a public key input (`"<base58>"` or `{"native": "<base58>"}`).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const parse = (input: unknown): Result.Result<Locator, Connector.ConnectorError> => {
  if (isPlainObject(input) && Object.keys(input).some((k) => k !== "native")) {
    return refuse("LOCATOR_INVALID", "a Solana locator has only the key native")
  }
  const value = typeof input === "string" ? input : isPlainObject(input) ? input.native : undefined
  if (decodeKey(value) === undefined) {
    return refuse("LOCATOR_INVALID", "a Solana locator is {\"native\": \"<base58 32-byte public key>\"}")
  }
  return Result.succeed({ native: value as string })
}

/**
 * The native rendering of a canonical locator: the base58 key.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const render = (locator: Locator): string => String(locator.native)

/**
 * The 32-byte account reference of a locator: the public key.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const reference = (locator: Locator): Result.Result<Hex, Connector.ConnectorError> => {
  const key = decodeKey(locator.native)
  return key === undefined ? refuse("LOCATOR_INVALID", "not a Solana locator") : Result.succeed(toHex(key))
}

/**
 * The network reference of a cluster: keccak256(utf8(genesisHash)).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const networkReference = (genesisHash: string): Result.Result<Hex, Connector.ConnectorError> =>
  decodeKey(genesisHash) === undefined
    ? refuse("NETWORK_REFERENCE_INVALID", "a Solana network reference is its cluster's base58 genesis hash (32 bytes)")
    : Result.succeed(Ids.label(genesisHash))

/**
 * The asset of a mint input (`"<base58 mint>"` or `{"mint": "<base58 mint>"}`).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const parseAsset = (input: unknown): Result.Result<Connector.AssetBinding, Connector.ConnectorError> => {
  if (isPlainObject(input) && Object.keys(input).some((k) => k !== "mint")) {
    return refuse("ASSET_INVALID", "a Solana asset locator has only the key mint")
  }
  const mint = typeof input === "string" ? input : isPlainObject(input) ? input.mint : undefined
  const key = decodeKey(mint)
  if (key === undefined) return refuse("ASSET_INVALID", "a Solana asset is {\"mint\": \"<base58 mint address>\"}")
  return Result.succeed({ locator: { mint: mint as string }, reference: toHex(key), address: null })
}
