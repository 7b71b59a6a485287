/**
 * viem helpers that deploy the reference contracts.
 *
 * The six system contracts (registry, router, vault, discovery facade, ERC-7683
 * and OIF modules) go through the deterministic-deployment proxy
 * ({@link CREATE2_FACTORY}) with the fixed {@link SALTS}. A CREATE2 address
 * depends only on the factory, the salt and keccak256 of the init code (creation
 * bytecode ‖ ABI-encoded constructor arguments); the bytecode is reproducible and
 * the constructor arguments of one {@link SystemConfig} are the same on every chain
 * (owner, authority, operator, discovery URI and the other contracts' predicted
 * addresses), so the same config yields the same six addresses everywhere.
 * Test tokens and price feeds are plain deployments.
 *
 * @since 0.1.0
 */
import {
  type Abi,
  type Account,
  type Chain,
  encodeDeployData,
  getAddress,
  getContractAddress,
  type Hex,
  keccak256,
  stringToBytes,
  type Transport,
  type WalletClient
} from "viem"
import {
  SvcERC7683ModuleV6,
  SvcMainnetRegistryV6,
  SvcMainnetRouterV6,
  SvcOIFModuleV6,
  SvcPriceFeed,
  SvcSolverDiscoveryV6,
  SvcTestToken,
  SvcVaultV6
} from "./artifacts.ts"

/**
 * The deterministic-deployment proxy used as CREATE2 factory (the same address on
 * every chain that has it; anvil preinstalls it).
 *
 * @category constants
 * @since 0.1.0
 */
export const CREATE2_FACTORY: Hex = "0x4e59b44847b379578588920cA78FbF26c0B4956C"

const label = (text: string): Hex => keccak256(stringToBytes(text))

/**
 * The CREATE2 salt of each system contract: keccak256 of a fixed label. The facade's
 * is keccak256("SVC_PUBLIC_SOLVER_DISCOVERY_V6") (the on-chain discovery document's salt).
 *
 * @category constants
 * @since 0.1.0
 */
export const SALTS = {
  registry: label("SVC_V6_REGISTRY"),
  router: label("SVC_V6_ROUTER"),
  vault: label("SVC_V6_VAULT"),
  facade: label("SVC_PUBLIC_SOLVER_DISCOVERY_V6"),
  erc7683Module: label("SVC_V6_ERC7683_MODULE"),
  oifModule: label("SVC_V6_OIF_MODULE")
} as const

/**
 * The labels behind {@link SALTS}.
 *
 * @category constants
 * @since 0.1.0
 */
export const SALT_LABELS = {
  registry: "SVC_V6_REGISTRY",
  router: "SVC_V6_ROUTER",
  vault: "SVC_V6_VAULT",
  facade: "SVC_PUBLIC_SOLVER_DISCOVERY_V6",
  erc7683Module: "SVC_V6_ERC7683_MODULE",
  oifModule: "SVC_V6_OIF_MODULE"
} as const

/**
 * The key of one system contract.
 *
 * @category models
 * @since 0.1.0
 */
export type SystemContract = keyof typeof SALTS

/**
 * The system contracts in deployment order.
 *
 * @category constants
 * @since 0.1.0
 */
export const SYSTEM_CONTRACTS: ReadonlyArray<SystemContract> = [
  "registry",
  "router",
  "vault",
  "facade",
  "erc7683Module",
  "oifModule"
]

/**
 * The artifact deployed for each system contract.
 *
 * @category constants
 * @since 0.1.0
 */
export const SYSTEM_ARTIFACTS = {
  registry: SvcMainnetRegistryV6,
  router: SvcMainnetRouterV6,
  vault: SvcVaultV6,
  facade: SvcSolverDiscoveryV6,
  erc7683Module: SvcERC7683ModuleV6,
  oifModule: SvcOIFModuleV6
} as const

/**
 * The inputs that fix the system's addresses. Use the same values on every chain.
 *
 * @category models
 * @since 0.1.0
 */
export interface SystemConfig {
  /** Owner of the registry, router and vault. */
  readonly owner: Hex
  /** The permit-signing key's address (svc's feed signer). */
  readonly authority: Hex
  /** The vault's payout key. */
  readonly operator: Hex
  /** The URL the facade's `discoveryURI()` returns. */
  readonly discoveryURI: string
}

/**
 * A value for each system contract.
 *
 * @category models
 * @since 0.1.0
 */
export type SystemAddresses = { readonly [K in SystemContract]: Hex }

/**
 * The CREATE2 inputs and address of one system contract.
 *
 * @category models
 * @since 0.1.0
 */
export interface PlannedContract {
  readonly contractName: string
  readonly salt: Hex
  readonly initCode: Hex
  readonly initCodeHash: Hex
  readonly address: Hex
  /** keccak256 of the runtime code every deployment has (no immutables). */
  readonly runtimeCodeHash: Hex
}

/**
 * The CREATE2 address of `initCode` deployed with `salt` by `factory`.
 *
 * @category onchain
 * @since 0.1.0
 */
export const create2Address = (initCode: Hex, salt: Hex, factory: Hex = CREATE2_FACTORY): Hex =>
  getContractAddress({ opcode: "CREATE2", from: factory, salt, bytecode: initCode })

/**
 * The CREATE2 plan of the system for a config: each contract's salt, init code,
 * init code hash and address (no RPC).
 *
 * @category onchain
 * @since 0.1.0
 */
export const planSystem = (
  config: SystemConfig,
  factory: Hex = CREATE2_FACTORY
): { readonly [K in SystemContract]: PlannedContract } => {
  const plan = (key: SystemContract, initCode: Hex): PlannedContract => ({
    contractName: SYSTEM_ARTIFACTS[key].contractName,
    salt: SALTS[key],
    initCode,
    initCodeHash: keccak256(initCode),
    address: create2Address(initCode, SALTS[key], factory),
    runtimeCodeHash: SYSTEM_ARTIFACTS[key].runtimeCodeHash
  })
  const registry = plan(
    "registry",
    encodeDeployData({ abi: SvcMainnetRegistryV6.abi, bytecode: SvcMainnetRegistryV6.bytecode, args: [config.owner] })
  )
  const router = plan(
    "router",
    encodeDeployData({
      abi: SvcMainnetRouterV6.abi,
      bytecode: SvcMainnetRouterV6.bytecode,
      args: [config.owner, config.authority, registry.address]
    })
  )
  const vault = plan(
    "vault",
    encodeDeployData({ abi: SvcVaultV6.abi, bytecode: SvcVaultV6.bytecode, args: [config.owner, config.operator] })
  )
  const facade = plan(
    "facade",
    encodeDeployData({
      abi: SvcSolverDiscoveryV6.abi,
      bytecode: SvcSolverDiscoveryV6.bytecode,
      args: [registry.address, router.address, config.discoveryURI]
    })
  )
  const erc7683Module = plan(
    "erc7683Module",
    encodeDeployData({ abi: SvcERC7683ModuleV6.abi, bytecode: SvcERC7683ModuleV6.bytecode, args: [router.address] })
  )
  const oifModule = plan(
    "oifModule",
    encodeDeployData({ abi: SvcOIFModuleV6.abi, bytecode: SvcOIFModuleV6.bytecode, args: [router.address] })
  )
  return { registry, router, vault, facade, erc7683Module, oifModule }
}

/**
 * The six addresses a config deploys to (no RPC).
 *
 * @category onchain
 * @since 0.1.0
 */
export const predictAddresses = (config: SystemConfig, factory: Hex = CREATE2_FACTORY): SystemAddresses => {
  const plan = planSystem(config, factory)
  return {
    registry: plan.registry.address,
    router: plan.router.address,
    vault: plan.vault.address,
    facade: plan.facade.address,
    erc7683Module: plan.erc7683Module.address,
    oifModule: plan.oifModule.address
  }
}

/**
 * A wallet client with an account (the deployer).
 *
 * @category models
 * @since 0.1.0
 */
export type DeployWallet = WalletClient<Transport, Chain | undefined, Account>

/**
 * The read side the helpers need (any viem public client).
 *
 * @category models
 * @since 0.1.0
 */
export interface DeployReader {
  getCode(args: { address: Hex }): Promise<Hex | undefined>
  waitForTransactionReceipt(args: { hash: Hex; pollingInterval?: number }): Promise<{
    readonly status: "success" | "reverted"
    readonly contractAddress?: Hex | null | undefined
    readonly gasUsed: bigint
  }>
}

/**
 * The clients of one chain.
 *
 * @category models
 * @since 0.1.0
 */
export interface Clients {
  readonly wallet: DeployWallet
  readonly publicClient: DeployReader
}

/**
 * A deployment failed (no factory, a reverted transaction, no code afterwards).
 *
 * @category errors
 * @since 0.1.0
 */
export class DeployError extends Error {
  override readonly name = "DeployError"
}

/**
 * The outcome of a CREATE2 deployment.
 *
 * @category models
 * @since 0.1.0
 */
export interface Create2Result {
  readonly address: Hex
  /** false when code was already at the address (nothing was sent). */
  readonly deployed: boolean
  readonly transactionHash: Hex | undefined
  readonly gasUsed: bigint
}

const hasCode = (code: Hex | undefined): boolean => code !== undefined && code !== "0x"

/**
 * Deploys through the CREATE2 factory: `salt ‖ initCode` sent to the factory, where
 * initCode = bytecode ‖ ABI-encoded `args` (give `abi` with `args`). Idempotent:
 * when the predicted address already has code nothing is sent.
 *
 * @throws {DeployError} when the factory is missing, the transaction reverts or no
 * code appears at the predicted address.
 * @category onchain
 * @since 0.1.0
 */
export const deployCreate2 = async (
  wallet: DeployWallet,
  publicClient: DeployReader,
  options: {
    readonly bytecode: Hex
    readonly salt: Hex
    readonly abi?: Abi | undefined
    readonly args?: ReadonlyArray<unknown> | undefined
    readonly factory?: Hex | undefined
    readonly pollingInterval?: number | undefined
  }
): Promise<Create2Result> => {
  const factory = options.factory ?? CREATE2_FACTORY
  const initCode = options.abi !== undefined && options.args !== undefined && options.args.length > 0
    ? encodeDeployData({ abi: options.abi, bytecode: options.bytecode, args: options.args as Array<unknown> } as never)
    : options.bytecode
  const address = create2Address(initCode, options.salt, factory)
  if (hasCode(await publicClient.getCode({ address }))) {
    return { address, deployed: false, transactionHash: undefined, gasUsed: 0n }
  }
  if (!hasCode(await publicClient.getCode({ address: factory }))) {
    throw new DeployError(`no CREATE2 factory at ${factory} on this chain`)
  }
  const hash = await wallet.sendTransaction({
    account: wallet.account,
    chain: wallet.chain ?? null,
    to: factory,
    data: `${options.salt}${initCode.slice(2)}`
  })
  const receipt = await publicClient.waitForTransactionReceipt({
    hash,
    ...(options.pollingInterval !== undefined ? { pollingInterval: options.pollingInterval } : {})
  })
  if (receipt.status !== "success") throw new DeployError(`CREATE2 deployment to ${address} reverted (${hash})`)
  if (!hasCode(await publicClient.getCode({ address }))) {
    throw new DeployError(`CREATE2 deployment ${hash} left no code at ${address}`)
  }
  return { address, deployed: true, transactionHash: hash, gasUsed: receipt.gasUsed }
}

/**
 * The outcome of {@link deploySvcSystem}.
 *
 * @category models
 * @since 0.1.0
 */
export interface SystemDeployment {
  readonly config: SystemConfig
  readonly addresses: SystemAddresses
  readonly results: { readonly [K in SystemContract]: Create2Result }
}

/**
 * Deploys (or finds) the six system contracts through the CREATE2 factory, in
 * {@link SYSTEM_CONTRACTS} order. `owner` defaults to the wallet's account. Run it
 * with the same options on every chain to get the same addresses. Source intake
 * starts enabled; register and activate routes on the registry afterwards.
 *
 * @throws {DeployError}
 * @category onchain
 * @since 0.1.0
 */
export const deploySvcSystem = async (
  clients: Clients,
  options: {
    readonly authority: Hex
    readonly operator: Hex
    readonly discoveryURI: string
    readonly owner?: Hex | undefined
    readonly factory?: Hex | undefined
    readonly pollingInterval?: number | undefined
  }
): Promise<SystemDeployment> => {
  const config: SystemConfig = {
    owner: options.owner ?? clients.wallet.account.address,
    authority: options.authority,
    operator: options.operator,
    discoveryURI: options.discoveryURI
  }
  const factory = options.factory ?? CREATE2_FACTORY
  const plan = planSystem(config, factory)
  const results: Partial<Record<SystemContract, Create2Result>> = {}
  for (const key of SYSTEM_CONTRACTS) {
    const result = await deployCreate2(clients.wallet, clients.publicClient, {
      bytecode: plan[key].initCode,
      salt: plan[key].salt,
      factory,
      pollingInterval: options.pollingInterval
    })
    if (result.address.toLowerCase() !== plan[key].address.toLowerCase()) {
      throw new DeployError(`${key}: deployed at ${result.address}, predicted ${plan[key].address}`)
    }
    results[key] = result
  }
  const done = results as { readonly [K in SystemContract]: Create2Result }
  return {
    config,
    addresses: {
      registry: done.registry.address,
      router: done.router.address,
      vault: done.vault.address,
      facade: done.facade.address,
      erc7683Module: done.erc7683Module.address,
      oifModule: done.oifModule.address
    },
    results: done
  }
}

const deployPlain = async (
  clients: Clients,
  data: Hex,
  pollingInterval: number | undefined
): Promise<Hex> => {
  const hash = await clients.wallet.sendTransaction({
    account: clients.wallet.account,
    chain: clients.wallet.chain ?? null,
    data
  })
  const receipt = await clients.publicClient.waitForTransactionReceipt({
    hash,
    ...(pollingInterval !== undefined ? { pollingInterval } : {})
  })
  if (receipt.status !== "success" || receipt.contractAddress === null || receipt.contractAddress === undefined) {
    throw new DeployError(`deployment ${hash} failed`)
  }
  return getAddress(receipt.contractAddress)
}

/**
 * Deploys a {@link SvcTestToken} (plain CREATE; the wallet's account is its owner and
 * minter). Returns the EIP-55 address.
 *
 * @throws {DeployError}
 * @category onchain
 * @since 0.1.0
 */
export const deployToken = (
  clients: Clients,
  options: {
    readonly name: string
    readonly symbol: string
    readonly decimals: number
    readonly pollingInterval?: number | undefined
  }
): Promise<Hex> =>
  deployPlain(
    clients,
    encodeDeployData({
      abi: SvcTestToken.abi,
      bytecode: SvcTestToken.bytecode,
      args: [options.name, options.symbol, options.decimals]
    }),
    options.pollingInterval
  )

/**
 * Deploys a {@link SvcPriceFeed} whose round 1 is `initialAnswer` (plain CREATE; the
 * wallet's account is its owner). Returns the EIP-55 address.
 *
 * @throws {DeployError}
 * @category onchain
 * @since 0.1.0
 */
export const deployPriceFeed = (
  clients: Clients,
  options: {
    readonly decimals: number
    readonly description: string
    readonly initialAnswer: bigint
    readonly pollingInterval?: number | undefined
  }
): Promise<Hex> =>
  deployPlain(
    clients,
    encodeDeployData({
      abi: SvcPriceFeed.abi,
      bytecode: SvcPriceFeed.bytecode,
      args: [options.decimals, options.description, options.initialAnswer]
    }),
    options.pollingInterval
  )

/**
 * keccak256 of the code at `address` (what the on-chain discovery document lists as
 * a runtime code hash).
 *
 * @throws {DeployError} when there is no code.
 * @category onchain
 * @since 0.1.0
 */
export const runtimeCodeHash = async (publicClient: Pick<DeployReader, "getCode">, address: Hex): Promise<Hex> => {
  const code = await publicClient.getCode({ address })
  if (code === undefined || code === "0x") throw new DeployError(`no code at ${address}`)
  return keccak256(code)
}

/**
 * The runtime code hashes of the six system contracts as compiled. The contracts have
 * no immutables, so every deployment's code hash equals these, whatever the config.
 *
 * @category onchain
 * @since 0.1.0
 */
export const expectedRuntimeCodeHashes = (): SystemAddresses => ({
  registry: SvcMainnetRegistryV6.runtimeCodeHash,
  router: SvcMainnetRouterV6.runtimeCodeHash,
  vault: SvcVaultV6.runtimeCodeHash,
  facade: SvcSolverDiscoveryV6.runtimeCodeHash,
  erc7683Module: SvcERC7683ModuleV6.runtimeCodeHash,
  oifModule: SvcOIFModuleV6.runtimeCodeHash
})

/**
 * The runtime code hashes read from a chain, for each system address.
 *
 * @throws {DeployError} when an address has no code.
 * @category onchain
 * @since 0.1.0
 */
export const readRuntimeCodeHashes = async (
  publicClient: Pick<DeployReader, "getCode">,
  addresses: SystemAddresses
): Promise<SystemAddresses> => ({
  registry: await runtimeCodeHash(publicClient, addresses.registry),
  router: await runtimeCodeHash(publicClient, addresses.router),
  vault: await runtimeCodeHash(publicClient, addresses.vault),
  facade: await runtimeCodeHash(publicClient, addresses.facade),
  erc7683Module: await runtimeCodeHash(publicClient, addresses.erc7683Module),
  oifModule: await runtimeCodeHash(publicClient, addresses.oifModule)
})
