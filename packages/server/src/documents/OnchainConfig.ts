/**
 * The operator's configuration of on-chain discovery, declared once as a schema:
 * the five contract addresses (one per contract, the same on every chain), their
 * runtime code hashes, the CREATE2 deployment of the facade with its per-chain
 * evidence, and whether the values are placeholders. The type is the schema's.
 *
 * Also the demo configuration, whose every value is a documented placeholder
 * derived from a label, so that a demo deployment serves complete, schema-valid
 * documents without pretending to be deployed.
 *
 * @since 0.1.0
 */
import { Address, Bytes32, decodeStrict, Ids, NonNegativeInt, Onchain, Uri } from "@svc/protocol"
import { Result, Schema } from "effect"
import { getAddress } from "viem"
import { describeIssues, DocumentsInvalid } from "./DocumentsInvalid.ts"

type Hex = `0x${string}`

/**
 * The deployment evidence of the facade on one chain: the network slug (`base`,
 * `bsc`, `hyperevm`), the deployment transaction and block, the explorer page of
 * the facade (`.../address/<facade>#code`), its Sourcify repository page
 * (`https://repo.sourcify.dev/<chainId>/<facade>`) and the Sourcify match id.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ChainEvidence = Schema.Struct({
  network: Schema.String,
  deploymentTransactionHash: Bytes32,
  deploymentBlockNumber: NonNegativeInt,
  explorer: Uri,
  sourcify: Uri,
  sourcifyMatchId: Schema.String
}).annotate({ identifier: "ChainEvidence" })

/**
 * The deployment evidence of the facade on one chain.
 *
 * @category models
 * @since 0.1.0
 */
export type ChainEvidence = typeof ChainEvidence.Type

/**
 * The on-chain discovery configuration (for example the JSON file named by
 * `SVC_ONCHAIN`):
 *
 * - `chains`: the EVM chain ids the contracts are deployed on;
 * - `facade`: optional; when given it must be the CREATE2 address of `deployment`;
 * - `registry`, `router` (source execution target, emitter of `SourceFillV6`),
 *   `erc7683Resolver`, `oifModule`;
 * - `runtimeCodeHashes`: keccak256 of each contract's runtime code (`eth_getCode`);
 * - `deployment`: the CREATE2 factory, salt and init code hash of the facade, the
 *   compiler, the hash of the standard JSON input, and per chain id (decimal
 *   string) the deployment block and transaction;
 * - `chainEvidence`: per chain id, see {@link ChainEvidence};
 * - `publicIntegrationRepo`: the public integration repository (URL);
 * - `placeholder`: true when the values are placeholders (the demo); the
 *   fingerprint then says so and claims no exact Sourcify match.
 *
 * Unknown keys are rejected (see {@link decode}). That the per-chain maps cover
 * exactly `chains` and that the facade is the CREATE2 address are checked when the
 * documents are built.
 *
 * @category schemas
 * @since 0.1.0
 */
export const OnchainConfig = Schema.Struct({
  chains: Schema.Array(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))).check(Schema.isMinLength(1)),
  facade: Schema.optionalKey(Address),
  registry: Address,
  router: Address,
  erc7683Resolver: Address,
  oifModule: Address,
  runtimeCodeHashes: Schema.Struct({
    facade: Bytes32,
    registry: Bytes32,
    router: Bytes32,
    erc7683Resolver: Bytes32,
    oifModule: Bytes32
  }),
  deployment: Schema.Struct({
    factory: Address,
    salt: Bytes32,
    initCodeHash: Bytes32,
    compiler: Schema.String,
    standardJsonInputHash: Bytes32,
    blocks: Schema.Record(Schema.String, NonNegativeInt),
    transactions: Schema.Record(Schema.String, Bytes32)
  }),
  chainEvidence: Schema.Record(Schema.String, ChainEvidence),
  publicIntegrationRepo: Uri,
  placeholder: Schema.Boolean
}).annotate({ identifier: "OnchainConfig" })

/**
 * The on-chain discovery configuration (the type of the {@link OnchainConfig} schema).
 *
 * @category models
 * @since 0.1.0
 */
export type OnchainConfig = typeof OnchainConfig.Type

/**
 * Decodes an on-chain discovery configuration strictly: unknown keys and
 * malformed values fail with one line naming every offending field.
 *
 * @category encoding
 * @since 0.1.0
 */
export const decode = (input: unknown): Result.Result<OnchainConfig, DocumentsInvalid> => {
  const result = decodeStrict(OnchainConfig)(input)
  return Result.isSuccess(result)
    ? Result.succeed(result.success)
    : Result.fail(
      new DocumentsInvalid({
        message: `svc discovery: invalid on-chain configuration: ${describeIssues(result.failure)}`
      })
    )
}

// ---------------------------------------------------------------------------
// Demo placeholders
// ---------------------------------------------------------------------------

/**
 * A placeholder address: the last 20 bytes of keccak256 of a label, EIP-55
 * checksummed (the convention of the demo catalog, whose router is
 * `placeholderAddress("svc demo router")`).
 *
 * @category testing
 * @since 0.1.0
 */
export const placeholderAddress = (label: string): Hex => getAddress(`0x${Onchain.labelHash(label).slice(-40)}`)

/**
 * The demo releaseId: keccak256("SVC_MAINNET_V6").
 *
 * @category testing
 * @since 0.1.0
 */
export const DEMO_RELEASE_ID: Hex = Ids.DEFAULT_RELEASE_ID

const NETWORK_SLUGS: Readonly<Record<string, string>> = { "8453": "base", "56": "bsc", "999": "hyperevm" }

const EXPLORERS: Readonly<Record<string, string>> = {
  "8453": "https://basescan.org",
  "56": "https://bscscan.com",
  "999": "https://hyperevmscan.io"
}

const demoDeployment = (chainIds: ReadonlyArray<number>) => ({
  factory: Onchain.CREATE2_FACTORY,
  salt: Onchain.FACADE_SALT,
  initCodeHash: Onchain.labelHash("svc demo facade init code"),
  compiler: "0.8.26+commit.8a97fa7a",
  standardJsonInputHash: Onchain.labelHash("svc demo facade standard json input"),
  blocks: Object.fromEntries(chainIds.map((id) => [String(id), 0])),
  transactions: Object.fromEntries(
    chainIds.map((id) => [String(id), Onchain.labelHash(`svc demo facade deployment ${id}`)])
  )
})

const demoEvidence = (chainId: number, facade: Hex, transaction: string): ChainEvidence => {
  const key = String(chainId)
  const explorer = EXPLORERS[key]
  return {
    network: NETWORK_SLUGS[key] ?? `chain-${key}`,
    deploymentTransactionHash: transaction,
    deploymentBlockNumber: 0,
    explorer: explorer === undefined ? `https://sourcify.dev/#/lookup/${facade}` : `${explorer}/address/${facade}#code`,
    sourcify: `https://repo.sourcify.dev/${key}/${facade}`,
    sourcifyMatchId: "svc-demo-placeholder"
  }
}

/**
 * The demo's on-chain discovery configuration, for the catalog's router and
 * chains. Every value is a documented PLACEHOLDER, not a deployed or verified
 * contract:
 *
 * - factory = the deterministic-deployment proxy `0x4e59b44847b379578588920cA78FbF26c0B4956C`;
 * - salt = keccak256("SVC_PUBLIC_SOLVER_DISCOVERY_V6");
 * - initCodeHash = keccak256("svc demo facade init code") (no facade bytecode is
 *   compiled for the demo); the facade is the CREATE2 address of these three;
 * - registry, ERC-7683 module, OIF module = {@link placeholderAddress} of
 *   "svc demo registry", "svc demo erc7683 module", "svc demo oif module";
 * - router = the catalog's router, checksummed (the demo catalog's is
 *   `0x2Af7d059E5efdBe1D2A234B78DF91E948ee22Ee2` = placeholderAddress("svc demo router"));
 * - runtime code hashes = keccak256("svc demo <contract> runtime code");
 * - compiler "0.8.26+commit.8a97fa7a", standardJsonInputHash =
 *   keccak256("svc demo facade standard json input");
 * - per chain: block 0, transaction keccak256("svc demo facade deployment <chainId>"),
 *   the chain's explorer (Base, BSC, HyperEVM; otherwise a Sourcify lookup), Sourcify
 *   match id "svc-demo-placeholder";
 * - publicIntegrationRepo `https://example.com/svc/public-integration`;
 * - placeholder = true. Use it with {@link DEMO_RELEASE_ID}.
 *
 * @category testing
 * @since 0.1.0
 */
export const demoOnchainConfig = (routerAddress: string, chainIds: ReadonlyArray<number>): OnchainConfig => {
  const deployment = demoDeployment(chainIds)
  const facade = Onchain.create2Address(deployment)
  return {
    chains: [...chainIds],
    registry: placeholderAddress("svc demo registry"),
    router: getAddress(routerAddress),
    erc7683Resolver: placeholderAddress("svc demo erc7683 module"),
    oifModule: placeholderAddress("svc demo oif module"),
    runtimeCodeHashes: {
      facade: Onchain.labelHash("svc demo facade runtime code"),
      registry: Onchain.labelHash("svc demo registry runtime code"),
      router: Onchain.labelHash("svc demo router runtime code"),
      erc7683Resolver: Onchain.labelHash("svc demo erc7683 module runtime code"),
      oifModule: Onchain.labelHash("svc demo oif module runtime code")
    },
    deployment,
    chainEvidence: Object.fromEntries(
      chainIds.map((id) => [String(id), demoEvidence(id, facade, deployment.transactions[String(id)]!)])
    ),
    publicIntegrationRepo: "https://example.com/svc/public-integration",
    placeholder: true
  }
}
