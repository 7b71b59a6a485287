/**
 * The validated inputs every discovery document is built from. {@link make}
 * checks the configuration once and normalises it (addresses EIP-55, hashes
 * lowercase, the public URL without trailing slashes, the endpoints absolute), so
 * that the builders only assemble: they never validate and never fail on input.
 *
 * Checks beyond the configuration schema: the per-chain maps cover exactly the
 * configured chains, a chain is listed once, and the facade is the CREATE2 address
 * of the configured deployment.
 *
 * @since 0.1.0
 */
import { Onchain, Patterns } from "@svc/protocol"
import { Result } from "effect"
import { getAddress } from "viem"
import { conform, type DocumentsInvalid, invalid } from "./DocumentsInvalid.ts"
import { type Endpoints, endpointsOf } from "./Endpoints.ts"
import { type ChainEvidence, OnchainConfig } from "./OnchainConfig.ts"

type Hex = `0x${string}`

/**
 * An execution scope of the catalog.
 *
 * @category models
 * @since 0.1.0
 */
export type ExecutionScope = "INTRA_CHAIN" | "CROSS_CHAIN"

/**
 * What the documents are built from.
 *
 * @category models
 * @since 0.1.0
 */
export interface DocumentsInput {
  /** The public base URL of the solver (`SVC_PUBLIC_URL`); trailing slashes are ignored. */
  readonly publicUrl: string
  /** The authority address (feed and permit signer). */
  readonly feedSigner: string
  readonly releaseId: string
  readonly onchain: OnchainConfig
  /** Execution scopes of the catalog. Default `["CROSS_CHAIN"]`. */
  readonly executionScopes?: ReadonlyArray<ExecutionScope> | undefined
}

/**
 * One value per discovery contract.
 *
 * @category models
 * @since 0.1.0
 */
export interface PerContract<A> {
  readonly facade: A
  readonly registry: A
  readonly router: A
  readonly erc7683Resolver: A
  readonly oifModule: A
}

/**
 * The CREATE2 deployment of the facade, normalised, with the computed facade address.
 *
 * @category models
 * @since 0.1.0
 */
export interface Deployment {
  readonly factory: Hex
  readonly salt: Hex
  readonly initCodeHash: Hex
  /** The CREATE2 address of factory, salt and initCodeHash. */
  readonly expectedFacadeAddress: Hex
  readonly compiler: string
  readonly standardJsonInputHash: Hex
  /** chain id (decimal string) -> deployment block, as configured. */
  readonly blocks: Readonly<Record<string, number>>
  /** chain id (decimal string) -> deployment transaction, as configured. */
  readonly transactions: Readonly<Record<string, string>>
}

/**
 * The validated, normalised inputs of the documents.
 *
 * @category models
 * @since 0.1.0
 */
export interface DocumentContext {
  /** The absolute URL of every endpoint. */
  readonly endpoints: Endpoints
  /** What the facade's `discoveryURI()` returns: the manifest's URL. */
  readonly discoveryURI: string
  readonly releaseId: Hex
  readonly feedSigner: Hex
  readonly executionScopes: ReadonlyArray<ExecutionScope>
  readonly chains: ReadonlyArray<number>
  /** The contract addresses, EIP-55; the facade is the CREATE2 address. */
  readonly addresses: PerContract<Hex>
  /** keccak256 of each contract's runtime code, lowercase. */
  readonly codeHashes: PerContract<Hex>
  readonly deployment: Deployment
  /** chain id (decimal string) -> evidence, as configured. */
  readonly chainEvidence: Readonly<Record<string, ChainEvidence>>
  readonly publicIntegrationRepo: string
  readonly placeholder: boolean
}

const checksummed = (value: string): Hex => getAddress(value.toLowerCase())
const lowercase = (value: string): Hex => value.toLowerCase() as Hex

const bytes32Field = (field: string, value: string): Result.Result<Hex, DocumentsInvalid> =>
  Patterns.isBytes32(value)
    ? Result.succeed(lowercase(value))
    : invalid(`${field} ${JSON.stringify(value)} is not 32 bytes of hex`)

const addressField = (field: string, value: string): Result.Result<Hex, DocumentsInvalid> =>
  Patterns.isAddress(value)
    ? Result.succeed(checksummed(value))
    : invalid(`${field} ${JSON.stringify(value)} is not an address`)

/**
 * Every chain is listed once, and each per-chain map of the configuration has
 * exactly one entry per chain.
 *
 * @category validation
 * @since 0.1.0
 */
export const checkChainCoverage = (onchain: OnchainConfig): Result.Result<void, DocumentsInvalid> => {
  const wanted = onchain.chains.map(String)
  const repeated = wanted.find((chain, i) => wanted.indexOf(chain) !== i)
  if (repeated !== undefined) return invalid(`chains lists chain ${repeated} more than once`)
  const maps = [
    ["deployment.blocks", onchain.deployment.blocks],
    ["deployment.transactions", onchain.deployment.transactions],
    ["chainEvidence", onchain.chainEvidence]
  ] as const
  for (const [field, map] of maps) {
    const keys = Object.keys(map)
    const missing = wanted.filter((chain) => !keys.includes(chain))
    const extra = keys.filter((key) => !wanted.includes(key))
    if (missing.length > 0 || extra.length > 0) {
      const problems = [
        ...(missing.length > 0 ? [`no entry for ${missing.join(", ")}`] : []),
        ...(extra.length > 0 ? [`an entry for unconfigured ${extra.join(", ")}`] : [])
      ]
      return invalid(`${field} must have one entry per chain (${wanted.join(", ")}): ${problems.join("; ")}`)
    }
  }
  return Result.succeed(undefined)
}

/**
 * The normalised CREATE2 deployment with the computed facade address.
 *
 * @category validation
 * @since 0.1.0
 */
export const deploymentOf = (onchain: OnchainConfig): Deployment => {
  const inputs = {
    factory: checksummed(onchain.deployment.factory),
    salt: lowercase(onchain.deployment.salt),
    initCodeHash: lowercase(onchain.deployment.initCodeHash)
  }
  return {
    ...inputs,
    expectedFacadeAddress: Onchain.create2Address(inputs),
    compiler: onchain.deployment.compiler,
    standardJsonInputHash: lowercase(onchain.deployment.standardJsonInputHash),
    blocks: onchain.deployment.blocks,
    transactions: onchain.deployment.transactions
  }
}

/**
 * The facade: the CREATE2 address of the deployment; a configured `facade` must
 * equal it (in any letter case).
 *
 * @category validation
 * @since 0.1.0
 */
export const facadeOf = (onchain: OnchainConfig, deployment: Deployment): Result.Result<Hex, DocumentsInvalid> => {
  const expected = deployment.expectedFacadeAddress
  if (onchain.facade === undefined || checksummed(onchain.facade) === expected) return Result.succeed(expected)
  return invalid(
    `facade ${onchain.facade} is not the CREATE2 address ${expected} of deployment.factory, deployment.salt and deployment.initCodeHash`
  )
}

/**
 * Validates and normalises the inputs of the documents.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (input: DocumentsInput): Result.Result<DocumentContext, DocumentsInvalid> =>
  Result.gen(function*() {
    const endpoints = yield* endpointsOf(input.publicUrl)
    const releaseId = yield* bytes32Field("releaseId", input.releaseId)
    const feedSigner = yield* addressField("feedSigner", input.feedSigner)
    const onchain = yield* conform(OnchainConfig, "invalid on-chain configuration", input.onchain)
    yield* checkChainCoverage(onchain)
    const deployment = deploymentOf(onchain)
    const facade = yield* facadeOf(onchain, deployment)
    const hashes = onchain.runtimeCodeHashes
    return {
      endpoints,
      discoveryURI: endpoints.manifest,
      releaseId,
      feedSigner,
      executionScopes: input.executionScopes ?? ["CROSS_CHAIN"],
      chains: [...onchain.chains],
      addresses: {
        facade,
        registry: checksummed(onchain.registry),
        router: checksummed(onchain.router),
        erc7683Resolver: checksummed(onchain.erc7683Resolver),
        oifModule: checksummed(onchain.oifModule)
      },
      codeHashes: {
        facade: lowercase(hashes.facade),
        registry: lowercase(hashes.registry),
        router: lowercase(hashes.router),
        erc7683Resolver: lowercase(hashes.erc7683Resolver),
        oifModule: lowercase(hashes.oifModule)
      },
      deployment,
      chainEvidence: onchain.chainEvidence,
      publicIntegrationRepo: onchain.publicIntegrationRepo,
      placeholder: onchain.placeholder
    }
  })
