/**
 * The three discovery documents of the solver interface, built from
 * configuration:
 *
 * - the solver manifest (`/.well-known/svc-solver.json`, also `/api/v6/solver-discovery`);
 * - the on-chain discovery fingerprint with its scanner hints
 *   (`/.well-known/svc-onchain-discovery.json`);
 * - the standards manifest (`/.well-known/svc-standards.json`).
 *
 * Operator values (addresses, runtime code hashes, CREATE2 inputs, evidence,
 * chains) come from the {@link OnchainConfig}; everything derivable is computed
 * (selectors, topic0, interface ids, standard ids, the facade address), and the
 * endpoint paths come from the HTTP contract. A configuration that cannot yield
 * valid documents is a {@link DocumentsInvalid} in the failure channel of the
 * `Result`, never an exception; every document is checked against its
 * `@svc/protocol` schema before it is returned.
 *
 * Pure functions: no Effect services, no I/O.
 *
 * @since 0.1.0
 */
import type { OnchainDiscoveryFingerprint, SolverDiscovery, StandardsManifest } from "@svc/protocol"
import { Result } from "effect"
import * as Context from "./Context.ts"
import type { DocumentsInvalid } from "./DocumentsInvalid.ts"
import { buildOnchainFingerprint } from "./OnchainFingerprint.ts"
import { buildSolverManifest } from "./SolverManifest.ts"
import { buildStandardsManifest } from "./StandardsManifest.ts"

export type { DocumentContext, DocumentsInput, ExecutionScope } from "./Context.ts"
export { DocumentsInvalid } from "./DocumentsInvalid.ts"
export { ENDPOINT_OPERATIONS, type Endpoints, endpointsOf } from "./Endpoints.ts"
export {
  ChainEvidence,
  decode as decodeOnchainConfig,
  DEMO_RELEASE_ID,
  demoOnchainConfig,
  OnchainConfig,
  placeholderAddress
} from "./OnchainConfig.ts"

/**
 * The three documents.
 *
 * @category models
 * @since 0.1.0
 */
export interface Documents {
  readonly solverManifest: SolverDiscovery
  readonly onchainDiscovery: OnchainDiscoveryFingerprint
  readonly standards: StandardsManifest
}

/**
 * The three documents as UTF-8 JSON bytes, serialized once and sent unchanged.
 *
 * @category models
 * @since 0.1.0
 */
export interface DocumentBytes {
  readonly solverManifest: Uint8Array
  readonly onchainDiscovery: Uint8Array
  readonly standards: Uint8Array
}

/**
 * Validates the inputs and builds the three documents, each checked against its schema.
 *
 * @category constructors
 * @since 0.1.0
 */
export const build = (input: Context.DocumentsInput): Result.Result<Documents, DocumentsInvalid> =>
  Result.gen(function*() {
    const context = yield* Context.make(input)
    const onchainDiscovery = yield* buildOnchainFingerprint(context)
    const standards = yield* buildStandardsManifest(context)
    const solverManifest = yield* buildSolverManifest(context)
    return { solverManifest, onchainDiscovery, standards }
  })

const encoder = new TextEncoder()

const json = (document: unknown): Uint8Array => encoder.encode(`${JSON.stringify(document, null, 2)}\n`)

/**
 * Serializes each document once, as UTF-8 JSON (2-space indentation, a final line feed).
 *
 * @category encoding
 * @since 0.1.0
 */
export const serialize = (documents: Documents): DocumentBytes => ({
  solverManifest: json(documents.solverManifest),
  onchainDiscovery: json(documents.onchainDiscovery),
  standards: json(documents.standards)
})
