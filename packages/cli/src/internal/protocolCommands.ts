/**
 * The protocol commands of the svc tool that need no schema: pure functions from
 * parsed JSON input (or the input bytes, for `sign`) to the value the command
 * prints, throwing {@link BadInput} for input they cannot work with. Protocol.ts
 * exports them with the permit commands; the fast start of the executable
 * (fastPath.ts) loads this module alone, so it imports only the protocol modules
 * it uses (never the `@svc/protocol` index, which loads every schema).
 *
 * @internal
 */
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as FeedSignature from "@svc/protocol/FeedSignature"
import * as Ids from "@svc/protocol/Ids"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import * as Signature from "@svc/protocol/Signature"
import * as Result from "effect/Result"
import { BadInput } from "./contract.ts"

type Hex = `0x${string}`

/** A JSON object (not null, not an array). */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const firstLine = (text: string) => text.split("\n")[0] ?? text

/** Refuses the input: throws {@link BadInput}. */
export const bad = (message: string): never => {
  throw new BadInput({ message })
}

/** Runs a command body, turning any error it throws into one {@link BadInput} line. */
export const wrap = <A>(f: () => A): A => {
  try {
    return f()
  } catch (error) {
    if (error instanceof BadInput) throw error
    if (error instanceof PermitMessage.PermitRequestInvalid) {
      return bad(`${error.field}: ${error.reason} (${error.code})`)
    }
    if (error instanceof Ids.IdInputInvalid) return bad(`${error.field}: ${error.reason}`)
    if (error instanceof Error) return bad(firstLine(error.message))
    return bad(String(error))
  }
}

/**
 * `svc canonical`: the canonical JSON text of the input, as a JSON string.
 *
 * @category running
 * @since 0.1.0
 */
export const canonical = (input: unknown): string => wrap(() => CanonicalJson.stringify(input))

/** Unwraps a FeedResponse `{ ok, feed }` to its feed. */
const feedOf = (input: unknown): unknown =>
  isRecord(input) && input.ok === true && isRecord(input.feed) ? input.feed : input

/**
 * `svc feed-hash`: `{ feedHash }` of a signed payload, or of a feed / feed
 * response (its signedPayload). Only the schema constant and the routes array are
 * checked, so any well-formed payload hashes.
 *
 * @category running
 * @since 0.1.0
 */
export const feedHash = (input: unknown): { readonly feedHash: string } =>
  wrap(() => {
    const payload = FeedSignature.signedPayloadOf(feedOf(input))
    if (Result.isFailure(payload)) return bad(payload.failure.reason)
    return { feedHash: FeedSignature.hash(payload.success) }
  })

/**
 * `svc verify-feed`: the seven verification fields of a feed (or feed response).
 *
 * @category running
 * @since 0.1.0
 */
export const verifyFeed = (
  input: unknown,
  options: { readonly now: number; readonly signer?: string | undefined }
): FeedSignature.VerificationResult =>
  wrap(() => {
    if (options.signer !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(options.signer)) {
      return bad("--signer: must be 0x followed by 40 hex digits")
    }
    const result = FeedSignature.verify(feedOf(input), { now: options.now, expectedSigner: options.signer })
    if (Result.isFailure(result)) return bad(result.failure.reason)
    return result.success
  })

/**
 * `svc permit-message`: the permit request message of a request.
 *
 * @category running
 * @since 0.1.0
 */
export const permitMessage = (input: unknown): string =>
  wrap(() => {
    if (!isRecord(input)) return bad("input: expected a permit request object")
    return PermitMessage.build(input as unknown as PermitMessage.PermitRequestInput)
  })

/**
 * The message of a JSON answer that carries one: `{ message }` (a permit
 * request-message answer `{ ok, message }`, or `svc permit-message`'s output) or
 * `{ signingPayload: { message } }` (the aggregator build's stage-1 answer);
 * undefined for input that is not such JSON.
 */
const messageOfJson = (text: string): string | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isRecord(parsed)) return undefined
  if ("message" in parsed) {
    if (typeof parsed.message !== "string") return bad("message: expected a string")
    return parsed.message
  }
  if (isRecord(parsed.signingPayload)) {
    if (typeof parsed.signingPayload.message !== "string") return bad("signingPayload.message: expected a string")
    return parsed.signingPayload.message
  }
  return bad(
    "input: a JSON object without message or signingPayload.message (give --raw to sign its bytes as they are)"
  )
}

/**
 * The key of `svc sign`: 0x and 64 hex digits (the 0x may be left out); the
 * error never shows the value.
 */
const signingKey = (key: string): Hex => {
  const hex = /^[0-9a-fA-F]{64}$/.test(key) ? `0x${key}` : key
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) return bad("--key: must be 0x followed by 64 hex digits (value not shown)")
  try {
    Signature.addressOf(hex as Hex)
  } catch {
    return bad("--key: not a secp256k1 private key: 0 or not below the curve order (value not shown)")
  }
  return hex as Hex
}

/**
 * `svc sign`: `{ signature, address }`, the EIP-191 (`personal_sign`) signature
 * of a message by a local key and the address (EIP-55) it recovers to. The
 * input is JSON carrying the message (`{ message }`, `{ ok, message }`,
 * `{ signingPayload: { message } }` or a whole aggregator build answer), signed as
 * its UTF-8 bytes; any other input (or any input with `raw`) is the message
 * itself, its bytes exactly as read.
 *
 * @category running
 * @since 0.1.0
 */
export const sign = (
  input: Uint8Array,
  key: string,
  options?: { readonly raw?: boolean | undefined }
): { readonly signature: string; readonly address: string } =>
  wrap(() => {
    const privateKey = signingKey(key)
    const text = options?.raw === true ? undefined : new TextDecoder("utf-8", { fatal: false }).decode(input)
    const message: string | Uint8Array = (text === undefined ? undefined : messageOfJson(text)) ?? input
    return {
      signature: Signature.signPersonalMessage(message, privateKey),
      address: Signature.addressOf(privateKey)
    }
  })

const str = (input: Record<string, unknown>, field: string): string => {
  const value = input[field]
  if (typeof value === "string") return value
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value)
  return bad(`${field}: required`)
}

const networkOf = (input: Record<string, unknown>): string =>
  input.networkId !== undefined ? str(input, "networkId") : Ids.evmNetworkId(str(input, "chainId"))

/**
 * The kinds `svc ids` derives, with their input fields.
 *
 * @category running
 * @since 0.1.0
 */
export const ID_KINDS = {
  vmType: "name",
  evmNetwork: "chainId",
  solanaNetwork: "genesisHash (optional, default mainnet-beta)",
  network: "vmType, networkReference",
  evmAccount: "chainId or networkId, address",
  evmAsset: "chainId or networkId, address (zero address = native coin)",
  account: "networkId, reference",
  asset: "networkId, reference",
  route: "sourceNetworkId, sourceAssetId, destinationNetworkId, destinationAssetId, releaseId",
  quote: "routeId, pricingReferenceId, validAfter, validUntil, executionGeneration, policyHash",
  label: "text"
} as const

const deriveOne = (input: unknown): Record<string, string> => {
  if (!isRecord(input)) return bad("input: expected an object with a kind")
  switch (input.kind) {
    case "vmType":
      return { vmType: Ids.vmType(str(input, "name")) }
    case "evmNetwork":
      return { vmType: Ids.EVM_VM_TYPE, networkId: Ids.evmNetworkId(str(input, "chainId")) }
    case "solanaNetwork":
      return {
        vmType: Ids.SOLANA_VM_TYPE,
        networkId: Ids.solanaNetworkId(input.genesisHash === undefined ? undefined : str(input, "genesisHash"))
      }
    case "network":
      return { networkId: Ids.networkId(str(input, "vmType"), str(input, "networkReference")) }
    case "evmAccount": {
      const networkId = networkOf(input)
      return {
        networkId,
        reference: Ids.evmReference(str(input, "address")),
        accountId: Ids.evmAccountId(networkId, str(input, "address"))
      }
    }
    case "evmAsset": {
      const networkId = networkOf(input)
      return {
        networkId,
        reference: Ids.evmReference(str(input, "address")),
        assetId: Ids.evmAssetId(networkId, str(input, "address"))
      }
    }
    case "account":
      return { accountId: Ids.accountId(str(input, "networkId"), str(input, "reference")) }
    case "asset":
      return { assetId: Ids.assetId(str(input, "networkId"), str(input, "reference")) }
    case "route":
      return {
        routeId: Ids.routeId({
          sourceNetworkId: str(input, "sourceNetworkId"),
          sourceAssetId: str(input, "sourceAssetId"),
          destinationNetworkId: str(input, "destinationNetworkId"),
          destinationAssetId: str(input, "destinationAssetId"),
          releaseId: str(input, "releaseId")
        })
      }
    case "quote":
      return {
        quoteId: Ids.quoteId({
          routeId: str(input, "routeId"),
          pricingReferenceId: str(input, "pricingReferenceId"),
          validAfter: str(input, "validAfter"),
          validUntil: str(input, "validUntil"),
          executionGeneration: str(input, "executionGeneration"),
          policyHash: str(input, "policyHash")
        })
      }
    case "label":
      return { hash: Ids.label(str(input, "text")) }
    default:
      return bad(`kind: one of ${Object.keys(ID_KINDS).join(", ")}`)
  }
}

/**
 * `svc ids`: derives identifiers. The input is one request object with a `kind`
 * (see {@link ID_KINDS}) or an array of them; the output has the same shape.
 *
 * @category running
 * @since 0.1.0
 */
export const ids = (input: unknown): unknown =>
  wrap(() =>
    Array.isArray(input) ?
      input.map((item, i) => {
        try {
          return wrap(() => deriveOne(item))
        } catch (error) {
          if (error instanceof BadInput) return bad(`[${i}].${error.message}`)
          throw error
        }
      }) :
      deriveOne(input)
  )
