/**
 * A local EVM chain for tests: the anvil binary shipped by the npm package
 * `@foundry-rs/anvil` (its platform package carries the binary; nothing is
 * downloaded at run time), started on an ephemeral port, plus the svc test
 * contracts (a minimal ERC-1271 wallet and its CREATE2 factory, compiled from
 * `SvcTestWallet.sol` with the `solc` npm package's bundled compiler).
 *
 * The chain process is started by `@svc/contracts/testing/Anvil` (one harness
 * for the whole workspace). Node only; needs the dev dependencies
 * `@foundry-rs/anvil`, `@svc/contracts` and `solc`.
 *
 * ```ts
 * import * as Anvil from "@svc/connector-evm/testing/Anvil"
 *
 * layer(Anvil.layer({ chainId: 8453 }))((it) => {
 *   it.effect("...", () => Effect.gen(function*() {
 *     const anvil = yield* Anvil.Anvil
 *     const wallet = yield* Effect.promise(() => anvil.deployWallet(owner))
 *   }))
 * })
 * ```
 *
 * @since 0.1.0
 */
import { anvilBinary, startAnvil } from "@svc/contracts/testing/Anvil"
import { Context, Data, Effect, Layer } from "effect"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import {
  type Abi,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  type PublicClient
} from "viem"
import { privateKeyToAccount } from "viem/accounts"

/**
 * The pinned compiler version of the test contracts (the `solc` npm package).
 *
 * @category constants
 * @since 0.1.0
 */
export const SOLC_VERSION = "0.8.37"

/**
 * Anvil's first default account (public test material, funded on every anvil chain).
 *
 * @category constants
 * @since 0.1.0
 */
export const DEPLOYER_KEY: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

/**
 * The local chain could not start or a deployment failed.
 *
 * @category errors
 * @since 0.1.0
 */
export class AnvilError extends Data.TaggedError("AnvilError")<{ readonly message: string }> {}

/**
 * A compiled contract.
 *
 * @category models
 * @since 0.1.0
 */
export interface Compiled {
  readonly abi: Abi
  readonly bytecode: Hex
}

let compiled: { readonly wallet: Compiled; readonly factory: Compiled } | undefined

/**
 * Compiles `SvcTestWallet.sol` (once per process) with the solc npm package.
 *
 * @category onchain
 * @since 0.1.0
 */
export const compileTestContracts = (): { readonly wallet: Compiled; readonly factory: Compiled } => {
  if (compiled !== undefined) return compiled
  const require = createRequire(import.meta.url)
  const solc = require("solc") as { version: () => string; compile: (input: string) => string }
  if (!solc.version().startsWith(`${SOLC_VERSION}+`)) {
    throw new Error(`solc ${SOLC_VERSION} expected, got ${solc.version()}`)
  }
  const source = readFileSync(new URL("./SvcTestWallet.sol", import.meta.url), "utf8")
  const output = JSON.parse(solc.compile(JSON.stringify({
    language: "Solidity",
    sources: { "SvcTestWallet.sol": { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } }
    }
  }))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
  }
  const errors = (output.errors ?? []).filter((e) => e.severity === "error")
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"))
  const of = (name: string): Compiled => {
    const c = output.contracts["SvcTestWallet.sol"]![name]!
    return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }
  }
  compiled = { wallet: of("SvcTestWallet"), factory: of("SvcTestWalletFactory") }
  return compiled
}

/**
 * The anvil binary of this platform (see `@svc/contracts/testing/Anvil`).
 *
 * @category testing
 * @since 0.1.0
 */
export const binaryPath = (): string => anvilBinary()

/**
 * A running local chain.
 *
 * @category services
 * @since 0.1.0
 */
export class Anvil extends Context.Service<Anvil, {
  readonly url: string
  readonly chainId: number
  readonly client: PublicClient
  /** Deploys an ERC-1271 wallet owned by `owner`; returns its address. */
  readonly deployWallet: (owner: Hex) => Promise<Hex>
  /** Deploys the CREATE2 wallet factory; returns its address. */
  readonly deployFactory: () => Promise<Hex>
  /** The calldata of `factory.deploy(owner, salt)` (ERC-6492 factory data). */
  readonly factoryCalldata: (owner: Hex, salt: Hex) => Hex
  /** The counterfactual address of the wallet of `owner` with `salt`. */
  readonly walletAddress: (factory: Hex, owner: Hex, salt: Hex) => Promise<Hex>
}>()("@svc/connector-evm/testing/Anvil") {}

const start = (chainId: number) =>
  Effect.tryPromise({
    try: () => startAnvil({ chainId }),
    catch: (e) => new AnvilError({ message: e instanceof Error ? e.message : String(e) })
  })

/**
 * A local chain with the given chain id for the layer's lifetime.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: { readonly chainId?: number | undefined }): Layer.Layer<Anvil, AnvilError> =>
  Layer.effect(
    Anvil,
    Effect.gen(function*() {
      const chainId = options?.chainId ?? 31337
      const node = yield* Effect.acquireRelease(start(chainId), (n) => Effect.promise(n.stop))
      const contracts = compileTestContracts()
      const chain = {
        id: chainId,
        name: "anvil",
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [node.url] } }
      } as const
      const client = createPublicClient({ chain, transport: http(node.url) }) as PublicClient
      const deployer = createWalletClient({
        chain,
        account: privateKeyToAccount(DEPLOYER_KEY),
        transport: http(node.url)
      })
      const deploy = async (c: Compiled, args: ReadonlyArray<unknown>): Promise<Hex> => {
        const hash = await deployer.deployContract({ abi: c.abi, bytecode: c.bytecode, args: args as Array<unknown> })
        const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
        if (receipt.contractAddress === null || receipt.contractAddress === undefined) {
          throw new Error("deployment failed")
        }
        return receipt.contractAddress
      }
      return Anvil.of({
        url: node.url,
        chainId,
        client,
        deployWallet: (owner) => deploy(contracts.wallet, [owner]),
        deployFactory: () => deploy(contracts.factory, []),
        factoryCalldata: (owner, salt) =>
          encodeFunctionData({ abi: contracts.factory.abi, functionName: "deploy", args: [owner, salt] }),
        walletAddress: (factory, owner, salt) =>
          client.readContract({
            address: factory,
            abi: contracts.factory.abi,
            functionName: "addressOf",
            args: [owner, salt]
          }) as Promise<Hex>
      })
    })
  )
