/**
 * The protocol commands of the svc tool as pure functions from parsed JSON input
 * to the JSON value the command prints. They throw {@link BadInput} for input the
 * command cannot work with.
 *
 * @since 0.1.0
 */
import {
  CanonicalJson,
  ExecutionPermit,
  FeedSignature,
  Ids,
  PermitAbi,
  PermitDigest,
  PermitMessage,
  strictParseOptions
} from "@svc/protocol"
import { Result, Schema } from "effect"
import { BadInput } from "./Io.ts"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const firstLine = (text: string) => text.split("\n")[0] ?? text

const bad = (message: string): never => {
  throw new BadInput({ message })
}

const wrap = <A>(f: () => A): A => {
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

const decodePermit = Schema.decodeUnknownResult(ExecutionPermit)

/** Finds the permit (and signature, when present) in a permit, envelope or response. */
const permitParts = (input: unknown): { permit: unknown; signature: unknown } => {
  if (!isRecord(input)) return bad("input: expected an object")
  // ExecutionPermitResponse / PermitStatusResponse { ok, permit: envelope }
  const envelope = input.ok === true && isRecord(input.permit) ? input.permit : input
  if (isRecord(envelope.permit)) return { permit: envelope.permit, signature: envelope.permitSignature }
  return { permit: envelope, signature: undefined }
}

const strictPermit = (permit: unknown): ExecutionPermit => {
  const decoded = decodePermit(permit, strictParseOptions)
  if (Result.isFailure(decoded)) {
    return bad(
      `permit: ${firstLine(decoded.failure.message)}${
        decoded.failure.message.includes("\n")
          ? ` ${decoded.failure.message.split("\n").slice(1).join(" ").trim()}`
          : ""
      }`
    )
  }
  return decoded.success
}

/**
 * `svc permit-digest`: `{ permitDigest }` of an ExecutionPermit (or of the permit
 * inside an envelope or a permit response).
 *
 * @category running
 * @since 0.1.0
 */
export const permitDigest = (input: unknown): { readonly permitDigest: string } =>
  wrap(() => ({ permitDigest: PermitDigest.digest(strictPermit(permitParts(input).permit)) }))

/**
 * `svc encode-permit`: `{ payload }`, the standard payload `abi.encode(permit,
 * permitSignature)` of an ExecutionPermitEnvelope (or `{ permit, permitSignature }`,
 * or a permit response).
 *
 * @category running
 * @since 0.1.0
 */
export const encodePermit = (input: unknown): { readonly payload: string } =>
  wrap(() => {
    const { permit, signature } = permitParts(input)
    if (typeof signature !== "string" || !/^0x[0-9a-fA-F]{130}$/.test(signature)) {
      return bad("permitSignature: must be 0x followed by 130 hex digits")
    }
    return { payload: PermitAbi.encodePayload(strictPermit(permit), signature) }
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
