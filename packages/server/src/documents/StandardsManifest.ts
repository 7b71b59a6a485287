/**
 * The standards manifest (`/.well-known/svc-standards.json`): the router, the
 * standard payload encoding `abi.encode(ExecutionPermit,bytes)`, the ERC-7683
 * module (an executable resolver: `resolve` / `resolveExecution` return the one
 * `fillDirect` call) and the OIF module (description only: `describeMandate`),
 * and the execution invariant of one bot transaction plus one svc transaction.
 *
 * @since 0.1.0
 */
import { Onchain, type StandardPayloadEncoding, StandardsManifest } from "@svc/protocol"
import type { Result } from "effect"
import type { DocumentContext } from "./Context.ts"
import { ERC7683_SELECTORS, MODULE_INTERFACE_IDS, OIF_SELECTORS } from "./Derived.ts"
import { conform, type DocumentsInvalid } from "./DocumentsInvalid.ts"

type StandardModule = StandardsManifest["standards"]["erc7683"]

/**
 * How a permit is handed to a standard module: the ABI encoding of the on-chain
 * permit tuple and its signature.
 *
 * @category constants
 * @since 0.1.0
 */
export const PAYLOAD_ENCODING: StandardPayloadEncoding = {
  mediaType: "application/vnd.svc.execution-permit-v6+abi",
  solidity: "abi.encode(ExecutionPermit,bytes)",
  tuple: ["SvcMainnetV6Types.ExecutionPermit permit", "bytes permitSignature"],
  source: "ExecutionPermitResponse.permit.permit + ExecutionPermitResponse.permit.permitSignature"
}

/**
 * The ERC-7683 resolver module: executable, resolved by an off-chain `eth_call`
 * into the router's `fillDirect`.
 *
 * @category onchain
 * @since 0.1.0
 */
export const erc7683Module = (context: DocumentContext): StandardModule => {
  const { router, erc7683Resolver } = context.addresses
  return {
    name: "ERC-7683",
    standardId: Onchain.STANDARD_IDS.erc7683,
    compatibilityLevel: "EXECUTABLE_RESOLVER",
    executable: true,
    moduleAddress: erc7683Resolver,
    expectedRuntimeCodeHash: context.codeHashes.erc7683Resolver,
    supportedChainIds: context.chains,
    sameAddressAcrossChains: true,
    router,
    ...ERC7683_SELECTORS,
    erc165: { supported: true, interfaceIds: MODULE_INTERFACE_IDS },
    payloadEncoding: PAYLOAD_ENCODING,
    discoveryMethod: "standardId()+supportsInterface(bytes4)+router()",
    resolutionTransport: "OFFCHAIN_ETH_CALL",
    resolve: {
      signature: "resolve(bytes)",
      selector: ERC7683_SELECTORS.selectors.resolve,
      stateMutability: "view",
      ethCallOnly: true,
      transactionCount: 0,
      stepCount: 1,
      stepType: "Call",
      target: router,
      function: "fillDirect",
      sourceExecutionCallCount: 1
    },
    resolveExecution: {
      supported: true,
      signature: Onchain.ERC7683_SIGNATURES.resolveExecution,
      selector: ERC7683_SELECTORS.selectors.resolveExecution,
      stateMutability: "view",
      ethCallOnly: true,
      transactionCount: 0,
      outputFields: ["routeId", "quoteId", "target", "value", "callData"],
      target: router,
      function: "fillDirect",
      sourceTransactionCount: 1
    }
  }
}

/**
 * The OIF description module: not executable (`resolveExecution` reverts),
 * `describeMandate` describes a payload.
 *
 * @category onchain
 * @since 0.1.0
 */
export const oifModule = (context: DocumentContext): StandardModule => ({
  name: "OIF",
  standardId: Onchain.STANDARD_IDS.oif,
  compatibilityLevel: "DISCOVERY_DESCRIPTION_ONLY",
  compatibilityLevelId: Onchain.OIF_COMPATIBILITY_LEVEL_ID,
  executable: false,
  moduleAddress: context.addresses.oifModule,
  expectedRuntimeCodeHash: context.codeHashes.oifModule,
  supportedChainIds: context.chains,
  sameAddressAcrossChains: true,
  router: context.addresses.router,
  ...OIF_SELECTORS,
  erc165: { supported: true, interfaceIds: MODULE_INTERFACE_IDS },
  payloadEncoding: PAYLOAD_ENCODING,
  discoveryMethod: "standardId()+supportsInterface(bytes4)+router()+compatibilityLevel()",
  resolutionTransport: "OFFCHAIN_ETH_CALL_DESCRIPTION_ONLY",
  resolveExecution: {
    supported: false,
    signature: Onchain.OIF_SIGNATURES.resolveExecution,
    selector: OIF_SELECTORS.selectors.resolveExecution,
    stateMutability: "pure",
    executable: false,
    revertsWith: "OIFExecutionUnsupported()",
    transactionCount: 0
  },
  describeMandate: {
    supported: true,
    signature: Onchain.OIF_SIGNATURES.describeMandate,
    selector: OIF_SELECTORS.selectors.describeMandate,
    stateMutability: "pure",
    ethCallOnly: true,
    transactionCount: 0,
    outputFields: ["oracle", "settler", "chainId", "token", "amount", "recipient", "callbackData", "context"]
  }
})

/**
 * Builds the standards manifest and checks it against the `StandardsManifest` schema.
 *
 * @category constructors
 * @since 0.1.0
 */
export const buildStandardsManifest = (context: DocumentContext): Result.Result<StandardsManifest, DocumentsInvalid> =>
  conform(StandardsManifest, "the built standards manifest does not match its schema", {
    schema: "SVC_MAINNET_V6_STANDARDS_MANIFEST_V1",
    protocol: Onchain.PROTOCOL,
    status: "ACTIVE",
    deploymentVersion: 6,
    releaseId: context.releaseId,
    supportedChainIds: context.chains,
    sameAddressAcrossChains: true,
    router: {
      address: context.addresses.router,
      expectedRuntimeCodeHash: context.codeHashes.router,
      sourceExecutionFunction: "fillDirect",
      sourceTransactionCount: 1
    },
    payloadEncoding: PAYLOAD_ENCODING,
    standards: { erc7683: erc7683Module(context), oif: oifModule(context) },
    executionInvariant: {
      botSourceTransactions: 1,
      svcDestinationTransactions: 1,
      totalTransactions: 2
    }
  })
