/**
 * Ownership proofs of EVM accounts over the permit request message.
 *
 * - Externally owned accounts: an EIP-191 `personal_sign` signature (65 bytes
 *   r || s || v, v 27/28 or 0/1, low s) over the UTF-8 message, recovered
 *   offline; no RPC is involved.
 * - Smart-contract accounts, where the chain has an RPC URL: a deployed account
 *   accepts the signature through ERC-1271 `isValidSignature(hashMessage(message),
 *   signature)`; a counterfactual one through an ERC-6492 wrapped signature
 *   (factory, factory calldata, inner signature, magic suffix). Both are checked
 *   by the ERC-6492 universal signature validator in a deployless `eth_call`
 *   (nothing is deployed or sent); a revert is a refusal, a transport failure is
 *   not. ERC-8010 wrapped signatures go through viem's `verifyHash`.
 *   A 65-byte signature that does not recover to the address is sent to the
 *   contract only when the address has code; for an address without code the
 *   EOA verdict stands (so the EOA rules, low s included, are never relaxed).
 * - Without an RPC URL, a wrapped or non-65-byte signature is refused with
 *   RPC_NOT_CONFIGURED (the connector cannot verify a smart-contract account),
 *   and a 65-byte one that does not recover keeps its EOA verdict.
 * - An RPC that does not answer is `ConnectorUnavailable` (503), never a verdict.
 *
 * @since 0.1.0
 */
import { Connector } from "@svc/core"
import { Signature } from "@svc/protocol"
import { Effect, Result } from "effect"
import {
  encodeDeployData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  hashMessage,
  hexToBool,
  isErc6492Signature,
  isErc8010Signature,
  parseErc6492Signature,
  type PublicClient,
  serializeErc6492Signature
} from "viem"
import { call, getCode, verifyHash } from "viem/actions"
import { classify, isRevert } from "./internal/errors.ts"

type Hex = `0x${string}`

const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})+$/

/**
 * A proof to verify for an EVM address on a chain.
 *
 * @category models
 * @since 0.1.0
 */
export interface EvmProof {
  /** The lowercase address of the payer. */
  readonly address: Hex
  readonly message: string
  readonly proof: string
  readonly chainId: string
}

/**
 * Verifies an EOA proof offline: the signer recovered from the EIP-191 digest
 * of the message is the address.
 *
 * @category crypto
 * @since 0.1.0
 */
export const verifyEoa = (input: Omit<EvmProof, "chainId">): Result.Result<void, Connector.ConnectorError> => {
  const recovered = Signature.recoverPersonalMessageSigner(input.message, input.proof)
  if (Result.isFailure(recovered)) {
    return Result.fail(
      new Connector.ConnectorError({
        code: `SIGNATURE_${recovered.failure.problem}`,
        message: recovered.failure.detail
      })
    )
  }
  if (recovered.success.toLowerCase() !== input.address.toLowerCase()) {
    return Result.fail(
      new Connector.ConnectorError({ code: "SIGNER_MISMATCH", message: "the signature was not made by the payer" })
    )
  }
  return Result.void
}

/**
 * Whether a proof can only come from a smart-contract account: an ERC-6492 or
 * ERC-8010 wrapped signature, or a signature that is not 65 bytes.
 *
 * @category crypto
 * @since 0.1.0
 */
export const isContractProof = (proof: Hex): boolean =>
  proof.length !== 132 || isErc6492Signature(proof) || (proof.endsWith(ERC8010_SUFFIX) && isErc8010Signature(proof))

/**
 * The ERC-8010 magic suffix, as viem compares it: a proof without it is not
 * ERC-8010 (checked first, because viem answers `false` by throwing and
 * catching an error, which costs more than the rest of a permit's bookkeeping).
 */
const ERC8010_SUFFIX = "8010".repeat(16)

/**
 * Whether an ERC-6492 wrapped signature is strictly encoded (re-encoding its
 * parts gives the same bytes: no dirty padding, no trailing data).
 *
 * @category crypto
 * @since 0.1.0
 */
export const isCanonical6492 = (proof: Hex): boolean => {
  try {
    const parts = parseErc6492Signature(proof)
    if (parts.address === undefined || parts.data === undefined) return false
    return serializeErc6492Signature({ address: parts.address, data: parts.data, signature: parts.signature })
      .toLowerCase() ===
      proof.toLowerCase()
  } catch {
    return false
  }
}

/**
 * Verifies a proof: offline for EOAs, through `client` (when given) for
 * smart-contract accounts.
 *
 * @category crypto
 * @since 0.1.0
 */
export const verify = (
  input: EvmProof,
  client: PublicClient | undefined,
  timeoutMillis = 10_000
): Effect.Effect<void, Connector.ConnectorError | Connector.ConnectorUnavailable> =>
  Effect.gen(function*() {
    if (typeof input.proof !== "string" || !HEX_BYTES.test(input.proof)) {
      return yield* new Connector.ConnectorError({
        code: "PROOF_MALFORMED",
        message: "requestSignature is 0x followed by hex bytes"
      })
    }
    const proof = input.proof.toLowerCase() as Hex
    if (isErc6492Signature(proof) && !isCanonical6492(proof)) {
      return yield* new Connector.ConnectorError({
        code: "PROOF_MALFORMED",
        message:
          "an ERC-6492 signature is abi.encode(factory, factoryCalldata, signature) + the magic suffix, strictly encoded"
      })
    }
    const contract = isContractProof(proof)
    const eoa = contract ? undefined : verifyEoa({ ...input, proof })
    if (eoa !== undefined && Result.isSuccess(eoa)) return
    if (client === undefined) {
      if (contract) {
        return yield* new Connector.ConnectorError({
          code: "RPC_NOT_CONFIGURED",
          message:
            `a smart-contract account signature (ERC-1271 / ERC-6492) cannot be verified: no RPC URL is configured for chain ${input.chainId}`
        })
      }
      const failure = (eoa as Result.Failure<void, Connector.ConnectorError>).failure
      return yield* new Connector.ConnectorError({
        code: failure.code,
        message:
          `${failure.message} (a smart-contract account needs an RPC URL for chain ${input.chainId}; none is configured)`
      })
    }
    const rpc = <A>(f: () => Promise<A>, onRevert?: A) =>
      Effect.tryPromise({ try: f, catch: (e) => e }).pipe(
        Effect.catch((e) =>
          onRevert !== undefined && isRevert(e) ? Effect.succeed(onRevert) : Effect.fail(classify(e, input.chainId))
        ),
        Effect.timeoutOrElse({
          duration: timeoutMillis,
          orElse: () =>
            Effect.fail(
              new Connector.ConnectorUnavailable({
                code: "RPC_TIMEOUT",
                message: `the RPC endpoint of chain ${input.chainId} did not answer within ${timeoutMillis} ms`
              })
            )
        })
      )
    if (!contract) {
      const code = yield* rpc(() => getCode(client, { address: input.address }))
      if (code === undefined || code === "0x") {
        return yield* (eoa as Result.Failure<void, Connector.ConnectorError>).failure
      }
    }
    const hash = hashMessage(input.message)
    const valid = isErc8010Signature(proof)
      ? yield* rpc(() => verifyHash(client, { address: input.address, hash, signature: proof }))
      : yield* rpc(async () => {
        const { data } = await call(client, {
          data: encodeDeployData({
            abi: erc6492SignatureValidatorAbi,
            args: [input.address, hash, proof],
            bytecode: erc6492SignatureValidatorByteCode
          })
        })
        return hexToBool(data ?? "0x0")
      }, false)
    if (!valid) {
      return yield* new Connector.ConnectorError({
        code: "SIGNER_MISMATCH",
        message: "the smart-contract account did not accept the signature (ERC-1271 / ERC-6492)"
      })
    }
  })
