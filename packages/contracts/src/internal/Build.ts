/**
 * Compilation of the reference contracts and rendering of their artifacts.
 * Shared by `scripts/build.ts` (which writes the files) and the drift test (which
 * compares them with what is committed). Uses the `solc` npm package's bundled
 * compiler (a dev dependency); nothing is downloaded.
 *
 * @internal
 * @since 0.1.0
 */
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { type Abi, type Hex, keccak256, stringToBytes } from "viem"

/**
 * The pinned compiler version (the `solc` npm package).
 *
 * @category constants
 * @since 0.1.0
 */
export const SOLC_VERSION = "0.8.37"

/**
 * The package root (`packages/contracts/`).
 *
 * @category constants
 * @since 0.1.0
 */
export const PACKAGE_ROOT: URL = new URL("../../", import.meta.url)

/**
 * The compiled contracts, in the order of the generated module, each with the
 * source file that defines it and a one-line description for its JSDoc.
 *
 * @category constants
 * @since 0.1.0
 */
export const CONTRACTS = [
  {
    name: "SvcMainnetRouterV6",
    description:
      "The source-chain router: `fillDirect` executes an EIP-712 ExecutionPermit signed by the authority and emits `SourceFillV6`."
  },
  {
    name: "SvcVaultV6",
    description:
      "The solver's vault: holds source fills and pays out on the destination chain, once per fillId (`payout`)."
  },
  {
    name: "SvcMainnetRegistryV6",
    description: "The route registry: routes, their execution generation and status, and local asset addresses."
  },
  {
    name: "SvcSolverDiscoveryV6",
    description: "The on-chain discovery facade: `discoveryURI`, `isLive`, `systemState` and the registry's routes."
  },
  {
    name: "SvcERC7683ModuleV6",
    description: "The ERC-7683 resolver module: resolves a standard payload into the `fillDirect` call."
  },
  {
    name: "SvcOIFModuleV6",
    description: "The OIF description module: `describeMandate` of a standard payload; not executable."
  },
  { name: "SvcTestToken", description: "A minimal owner-mintable ERC-20 for tests and the devnet." },
  {
    name: "SvcPriceFeed",
    description: "A Chainlink-style AggregatorV3 price feed whose rounds the owner writes, for tests and the devnet."
  }
] as const

/**
 * The name of a compiled contract.
 *
 * @category models
 * @since 0.1.0
 */
export type ContractName = (typeof CONTRACTS)[number]["name"]

/**
 * The compiler settings (viaIR, optimizer 200 runs, cancun, no metadata hash so the
 * bytecode depends only on the sources and these settings).
 *
 * @category constants
 * @since 0.1.0
 */
export const SETTINGS = {
  viaIR: true,
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  metadata: { bytecodeHash: "none" },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } }
} as const

/**
 * One compiled contract as written to `artifacts/<name>.json`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Artifact {
  readonly contractName: ContractName
  readonly sourceName: string
  readonly abi: Abi
  readonly bytecode: Hex
  readonly deployedBytecode: Hex
  /** keccak256 of deployedBytecode: the runtime code hash of every deployment (no immutables). */
  readonly runtimeCodeHash: Hex
  readonly compiler: { readonly version: string; readonly settings: typeof SETTINGS }
  /** keccak256 of the UTF-8 sources concatenated in file-name order. */
  readonly sourceHash: Hex
  /** keccak256 of the standard JSON input (`artifacts/standard-json-input.json`). */
  readonly standardJsonInputHash: Hex
}

/**
 * The result of one compilation.
 *
 * @category models
 * @since 0.1.0
 */
export interface Compilation {
  readonly version: string
  readonly artifacts: ReadonlyArray<Artifact>
  /** The exact standard JSON input text given to the compiler. */
  readonly standardJsonInput: string
  readonly warnings: ReadonlyArray<string>
}

/**
 * The Solidity sources, keyed by their source unit name (`contracts/<file>.sol`),
 * in file-name order.
 *
 * @category onchain
 * @since 0.1.0
 */
export const readSources = (): ReadonlyArray<{ readonly path: string; readonly content: string }> => {
  const folder = new URL("contracts/", PACKAGE_ROOT)
  return readdirSync(folder)
    .filter((file) => file.endsWith(".sol"))
    .sort()
    .map((file) => ({ path: `contracts/${file}`, content: readFileSync(new URL(file, folder), "utf8") }))
}

/**
 * The standard JSON input given to the compiler: the sources and {@link SETTINGS}.
 *
 * @category onchain
 * @since 0.1.0
 */
export const renderStandardJsonInput = (
  sources: ReadonlyArray<{ readonly path: string; readonly content: string }> = readSources()
): string =>
  JSON.stringify({
    language: "Solidity",
    sources: Object.fromEntries(sources.map((s) => [s.path, { content: s.content }])),
    settings: SETTINGS
  })

/**
 * keccak256 of the sources concatenated in file-name order (an artifact's `sourceHash`).
 *
 * @category onchain
 * @since 0.1.0
 */
export const sourceHashOf = (sources: ReadonlyArray<{ readonly content: string }> = readSources()): Hex =>
  keccak256(stringToBytes(sources.map((s) => s.content).join("")))

/**
 * The compilation the committed `artifacts/*.json` record, with the current
 * sources' standard JSON input and hashes and the pinned compiler version, without
 * compiling: the cheap half of the drift check (`npm run codegen -- --check`
 * compiles). {@link renderFiles} of it equals the committed files when the
 * sources, the settings and the compiler version are those the artifacts were
 * built with and nothing generated was edited by hand; only an edit of a
 * committed ABI or bytecode that keeps every hash escapes it, which the full
 * compile of `test/Artifacts.test.ts` catches.
 *
 * @throws {Error} when the installed solc or an artifact's compiler is not {@link SOLC_VERSION}.
 * @category onchain
 * @since 0.1.0
 */
export const recordedCompilation = (): Compilation => {
  const installed = (createRequire(import.meta.url)("solc/package.json") as { version: string }).version
  if (installed !== SOLC_VERSION) throw new Error(`solc ${SOLC_VERSION} expected, ${installed} installed`)
  const sources = readSources()
  const standardJsonInput = renderStandardJsonInput(sources)
  const sourceHash = sourceHashOf(sources)
  const standardJsonInputHash = keccak256(stringToBytes(standardJsonInput))
  const artifacts = CONTRACTS.map(({ name }): Artifact => {
    const recorded = JSON.parse(readFileSync(new URL(`artifacts/${name}.json`, PACKAGE_ROOT), "utf8")) as Artifact
    const version = recorded.compiler.version
    if (!version.startsWith(`${SOLC_VERSION}+`)) {
      throw new Error(`artifacts/${name}.json was built with solc ${version}, not the pinned ${SOLC_VERSION}`)
    }
    return {
      contractName: name,
      sourceName: `contracts/${name}.sol`,
      abi: recorded.abi,
      bytecode: recorded.bytecode,
      deployedBytecode: recorded.deployedBytecode,
      runtimeCodeHash: keccak256(recorded.deployedBytecode),
      compiler: { version, settings: SETTINGS },
      sourceHash,
      standardJsonInputHash
    }
  })
  return { version: artifacts[0]!.compiler.version, artifacts, standardJsonInput, warnings: [] }
}

interface SolcOutput {
  readonly errors?: ReadonlyArray<{ readonly severity: string; readonly formattedMessage: string }>
  readonly contracts?: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >
}

/**
 * Compiles every source with the solc npm package.
 *
 * @throws {Error} on a compiler error, a missing contract or a compiler of another version.
 * @category onchain
 * @since 0.1.0
 */
export const compile = (): Compilation => {
  const require = createRequire(import.meta.url)
  const solc = require("solc") as { version: () => string; compile: (input: string) => string }
  const version = solc.version()
  if (!version.startsWith(`${SOLC_VERSION}+`)) throw new Error(`solc ${SOLC_VERSION} expected, got ${version}`)
  const sources = readSources()
  const standardJsonInput = renderStandardJsonInput(sources)
  const output = JSON.parse(solc.compile(standardJsonInput)) as SolcOutput
  const problems = output.errors ?? []
  const errors = problems.filter((e) => e.severity === "error")
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"))
  const sourceHash = sourceHashOf(sources)
  const standardJsonInputHash = keccak256(stringToBytes(standardJsonInput))
  const artifacts = CONTRACTS.map(({ name }): Artifact => {
    const sourceName = `contracts/${name}.sol`
    const compiled = output.contracts?.[sourceName]?.[name]
    if (compiled === undefined) throw new Error(`${name} missing from the compiler output`)
    const deployedBytecode: Hex = `0x${compiled.evm.deployedBytecode.object}`
    return {
      contractName: name,
      sourceName,
      abi: compiled.abi,
      bytecode: `0x${compiled.evm.bytecode.object}`,
      deployedBytecode,
      runtimeCodeHash: keccak256(deployedBytecode),
      compiler: { version, settings: SETTINGS },
      sourceHash,
      standardJsonInputHash
    }
  })
  return {
    version,
    artifacts,
    standardJsonInput,
    warnings: problems.filter((e) => e.severity !== "error").map((e) => e.formattedMessage)
  }
}

const GENERATED_HEADER = `/**
 * The compiled svc V6 reference contracts: for each contract its ABI (\`as const\`,
 * so viem infers function, event and error types), creation bytecode, runtime
 * bytecode and runtime code hash.
 *
 * GENERATED by \`packages/contracts/scripts/build.ts\` from \`packages/contracts/contracts/*.sol\`:
 * do not edit. Rebuild with \`node packages/contracts/scripts/build.ts\`;
 * \`test/Artifacts.test.ts\` fails when this file differs from the sources.
 *
 * @since 0.1.0
 */
`

/**
 * The text of the generated `src/artifacts.ts`.
 *
 * @category onchain
 * @since 0.1.0
 */
export const renderModule = (compilation: Compilation): string => {
  const first = compilation.artifacts[0]!
  const parts: Array<string> = [GENERATED_HEADER]
  parts.push(`/**
 * The compiler and settings every artifact was built with.
 *
 * @category onchain
 * @since 0.1.0
 */
export const COMPILER = ${JSON.stringify({ version: compilation.version, settings: SETTINGS }, null, 2)} as const

/**
 * keccak256 of the Solidity sources concatenated in file-name order.
 *
 * @category onchain
 * @since 0.1.0
 */
export const SOURCE_HASH = ${JSON.stringify(first.sourceHash)} as const

/**
 * keccak256 of the standard JSON input (\`artifacts/standard-json-input.json\`).
 *
 * @category onchain
 * @since 0.1.0
 */
export const STANDARD_JSON_INPUT_HASH = ${JSON.stringify(first.standardJsonInputHash)} as const
`)
  for (const artifact of compilation.artifacts) {
    const description = CONTRACTS.find((c) => c.name === artifact.contractName)!.description
    parts.push(`
/**
 * ${artifact.contractName}: ${description}
 *
 * @category onchain
 * @since 0.1.0
 */
export const ${artifact.contractName} = {
  contractName: ${JSON.stringify(artifact.contractName)},
  sourceName: ${JSON.stringify(artifact.sourceName)},
  abi: ${JSON.stringify(artifact.abi, null, 2).replace(/\n/g, "\n  ")},
  bytecode: ${JSON.stringify(artifact.bytecode)} as \`0x\${string}\`,
  deployedBytecode: ${JSON.stringify(artifact.deployedBytecode)} as \`0x\${string}\`,
  runtimeCodeHash: ${JSON.stringify(artifact.runtimeCodeHash)} as \`0x\${string}\`
} as const
`)
  }
  return parts.join("")
}

/**
 * Every generated file, keyed by its path relative to the package root:
 * `artifacts/<Contract>.json`, `artifacts/standard-json-input.json` and
 * `src/artifacts.ts`.
 *
 * @category onchain
 * @since 0.1.0
 */
export const renderFiles = (compilation: Compilation): ReadonlyMap<string, string> => {
  const files = new Map<string, string>()
  for (const artifact of compilation.artifacts) {
    files.set(`artifacts/${artifact.contractName}.json`, `${JSON.stringify(artifact, null, 2)}\n`)
  }
  files.set("artifacts/standard-json-input.json", `${compilation.standardJsonInput}\n`)
  files.set("src/artifacts.ts", renderModule(compilation))
  return files
}
