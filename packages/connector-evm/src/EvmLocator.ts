/**
 * EVM locators, assets and networks.
 *
 * - An account locator is `{"native": "0x<40 lowercase hex>"}`; the string form
 *   (an address) stands for it. Input may be lowercase, uppercase or EIP-55
 *   mixed case; a mixed-case address with a wrong checksum is refused
 *   (LOCATOR_CHECKSUM_INVALID). The native rendering is the EIP-55 address.
 * - The account reference is the address left-padded to 32 bytes.
 * - An asset is a token address (the zero address is the native coin); its
 *   canonical locator is `{"chainId": "<chain id>", "token": "0x<lowercase>"}`.
 * - A network reference is the chain id as a 32-byte big-endian integer, so
 *   networkId = keccak256(abi.encode(bytes32 keccak256("EVM"), uint256 chainId)).
 *
 * Every function is total: invalid input is a `ConnectorError`, never a throw.
 *
 * @since 0.1.0
 */
import { Connector } from "@svc/core"
import { Ids, type Locator } from "@svc/protocol"
import { ADDRESS, isPlainObject } from "@svc/protocol/Patterns"
import { Result } from "effect"
import { getAddress } from "viem"

type Hex = `0x${string}`

const CHAIN_ID = /^[1-9][0-9]{0,77}$/

const refuse = (code: string, message: string) => Result.fail(new Connector.ConnectorError({ code, message }))

/**
 * The lowercase form of an address input, checking an EIP-55 checksum when the
 * input is mixed case.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const parseAddress = (value: unknown): Result.Result<Hex, Connector.ConnectorError> => {
  if (typeof value !== "string" || !ADDRESS.test(value)) {
    return refuse("LOCATOR_INVALID", "an EVM address is 0x followed by 40 hex digits")
  }
  const body = value.slice(2)
  if (body !== body.toLowerCase() && body !== body.toUpperCase() && getAddress(value.toLowerCase()) !== value) {
    return refuse("LOCATOR_CHECKSUM_INVALID", "mixed-case address with a wrong EIP-55 checksum")
  }
  return Result.succeed(value.toLowerCase() as Hex)
}

/**
 * The canonical locator of an account input (`"0x..."` or `{"native": "0x..."}`).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const parse = (input: unknown): Result.Result<Locator, Connector.ConnectorError> => {
  if (isPlainObject(input) && Object.keys(input).some((k) => k !== "native")) {
    return refuse("LOCATOR_INVALID", "an EVM locator has only the key native")
  }
  const value = typeof input === "string" ? input : isPlainObject(input) ? input.native : undefined
  return Result.map(parseAddress(value), (native) => ({ native }))
}

/**
 * The EIP-55 address of a canonical locator.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const render = (locator: Locator): string => getAddress(String(locator.native))

/**
 * The EIP-55 address of a locator, or null when it is not an EVM locator.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const address = (locator: Locator): Hex | null =>
  typeof locator.native === "string" && ADDRESS.test(locator.native) ? getAddress(locator.native) : null

/**
 * The 32-byte account reference of a locator: the address left-padded.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const reference = (locator: Locator): Result.Result<Hex, Connector.ConnectorError> =>
  typeof locator.native === "string" && ADDRESS.test(locator.native)
    ? Result.succeed(Ids.evmReference(locator.native))
    : refuse("LOCATOR_INVALID", "not an EVM locator")

/**
 * The network reference of a chain id: the chain id as a 32-byte integer.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const networkReference = (chainId: string): Result.Result<Hex, Connector.ConnectorError> => {
  if (typeof chainId !== "string" || !CHAIN_ID.test(chainId) || BigInt(chainId) >= 1n << 256n) {
    return refuse(
      "NETWORK_REFERENCE_INVALID",
      "an EVM network reference is its chain id, a positive integer below 2^256"
    )
  }
  return Result.succeed(`0x${BigInt(chainId).toString(16).padStart(64, "0")}` as Hex)
}

/**
 * The asset of a token input (`"0x..."` or `{"chainId", "token"}` on this chain).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const parseAsset = (
  input: unknown,
  network: Connector.ConnectorNetwork
): Result.Result<Connector.AssetBinding, Connector.ConnectorError> => {
  let token: unknown = input
  if (isPlainObject(input)) {
    if (Object.keys(input).some((k) => k !== "chainId" && k !== "token")) {
      return refuse("ASSET_INVALID", "an EVM asset locator is {\"chainId\", \"token\"}")
    }
    if (input.chainId !== network.native) {
      return refuse("ASSET_NETWORK_MISMATCH", "the asset's chainId is not the network's")
    }
    token = input.token
  }
  const parsed = parseAddress(token)
  if (Result.isFailure(parsed)) {
    return refuse("ASSET_INVALID", "an EVM asset is a token address (the zero address is the native coin)")
  }
  return Result.succeed({
    locator: { chainId: network.native, token: parsed.success },
    reference: Ids.evmReference(parsed.success),
    address: getAddress(parsed.success)
  })
}
