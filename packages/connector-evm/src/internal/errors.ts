/**
 * Classification of viem failures into connector errors. Internal.
 */
import { Connector } from "@svc/core"
import { BaseError, ExecutionRevertedError, HttpRequestError, RpcRequestError, TimeoutError } from "viem"

const TRANSPORT = [HttpRequestError, RpcRequestError, TimeoutError] as const

/** An `eth_call` that reverted: the contract's verdict, not a failure of the RPC. */
export const isRevert = (error: unknown): boolean =>
  error instanceof BaseError && error.walk((e) => e instanceof ExecutionRevertedError) !== null

/**
 * An RPC that could not answer (unreachable, timed out, a JSON-RPC error) is
 * `ConnectorUnavailable` (503, retry); anything else thrown while verifying is a
 * refused proof (`ConnectorError` PROOF_INVALID, 400).
 */
export const classify = (
  error: unknown,
  chainId: string
): Connector.ConnectorError | Connector.ConnectorUnavailable => {
  const transport = error instanceof BaseError
    ? error.walk((e) => TRANSPORT.some((T) => e instanceof T))
    : null
  if (transport !== null && transport !== undefined) {
    return new Connector.ConnectorUnavailable({
      code: "RPC_UNAVAILABLE",
      message: `the RPC endpoint of chain ${chainId} did not answer: ${(transport as BaseError).shortMessage}`
    })
  }
  const message = error instanceof BaseError ? error.shortMessage : String((error as Error)?.message ?? error)
  return new Connector.ConnectorError({
    code: "PROOF_INVALID",
    message: `smart-account verification refused the proof: ${message}`
  })
}
