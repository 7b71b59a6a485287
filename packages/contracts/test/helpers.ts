/**
 * Shared set-up of the anvil tests: a chain with viem clients, test keys, permit
 * building and signing, and reading a custom error's name from a revert.
 */
import {
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  hashTypedData,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  stringToBytes,
  type TestClient
} from "viem"
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"
import type { DeployWallet } from "../src/Deploy.ts"
import { type ExecutionPermit, permitTypedData, RELEASE_ID } from "../src/Permit.ts"
import { ANVIL_DEPLOYER_KEY, type AnvilNode, ensureCreate2Factory, startAnvil } from "../src/testing/Anvil.ts"

/** keccak256 of a UTF-8 label. */
export const label = (text: string): Hex => keccak256(stringToBytes(text))

/** Test keys (derived from labels; only ever funded on the local anvil). */
export const KEYS = {
  deployer: ANVIL_DEPLOYER_KEY,
  authority: label("svc contracts test key: authority"),
  operator: label("svc contracts test key: operator"),
  payer: label("svc contracts test key: payer"),
  other: label("svc contracts test key: other")
} as const

/** The accounts of {@link KEYS}. */
export const ACCOUNTS = Object.fromEntries(Object.entries(KEYS).map(([k, v]) => [k, privateKeyToAccount(v)])) as {
  readonly [K in keyof typeof KEYS]: PrivateKeyAccount
}

/** A local chain with clients. */
export interface TestChain {
  readonly node: AnvilNode
  readonly chain: Chain
  readonly publicClient: PublicClient
  readonly testClient: TestClient
  readonly walletOf: (key: Hex) => DeployWallet
  /** The deployer's wallet (anvil account #0). */
  readonly deployer: DeployWallet
  readonly snapshot: () => Promise<Hex>
  readonly revert: (id: Hex) => Promise<void>
  readonly latestTimestamp: () => Promise<bigint>
}

/** Starts anvil with `chainId`, checks the CREATE2 factory and funds the test accounts. */
export const startChain = async (chainId: number): Promise<TestChain> => {
  const node = await startAnvil({ chainId })
  const factory = await ensureCreate2Factory(node.url)
  if (factory !== "present") throw new Error("anvil is expected to preinstall the CREATE2 proxy")
  const chain = defineChain({
    id: chainId,
    name: `anvil-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.url] } }
  })
  const transport = http(node.url)
  const publicClient = createPublicClient({ chain, transport, cacheTime: 0, pollingInterval: 50 }) as PublicClient
  const testClient = createTestClient({ chain, mode: "anvil", transport }) as TestClient
  const walletOf = (key: Hex): DeployWallet =>
    createWalletClient({ chain, account: privateKeyToAccount(key), transport }) as DeployWallet
  for (const account of Object.values(ACCOUNTS)) {
    await testClient.setBalance({ address: account.address, value: 10n ** 24n })
  }
  return {
    node,
    chain,
    publicClient,
    testClient,
    walletOf,
    deployer: walletOf(KEYS.deployer),
    snapshot: () => testClient.snapshot(),
    revert: async (id) => {
      await testClient.revert({ id })
    },
    latestTimestamp: async () => (await publicClient.getBlock({ blockTag: "latest" })).timestamp
  }
}

/** The custom error name of a rejected contract call (fails when the call succeeds or fails otherwise). */
export const revertOf = async (
  attempt: Promise<unknown>
): Promise<{ readonly name: string; readonly args: ReadonlyArray<unknown> }> => {
  try {
    await attempt
  } catch (error) {
    if (error instanceof BaseError) {
      const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError)
      if (reverted instanceof ContractFunctionRevertedError && reverted.data !== undefined) {
        return { name: reverted.data.errorName, args: reverted.data.args ?? [] }
      }
    }
    throw error
  }
  throw new Error("expected the call to revert")
}

/** The permitDigest of a permit (viem's EIP-712 implementation). */
export const digestOf = (permit: ExecutionPermit): Hex => hashTypedData(permitTypedData(permit))

/** The authority-style signature (r ‖ s ‖ v, v 27/28, low-s) of a permit by `key`. */
export const signPermit = (permit: ExecutionPermit, key: Hex): Promise<Hex> =>
  privateKeyToAccount(key).sign({ hash: digestOf(permit) })

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** The malleable twin of a low-s signature: s' = n - s and the other v. Same signer. */
export const highS = (signature: Hex): Hex => {
  const r = signature.slice(2, 66)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130, 132), 16)
  return `0x${r}${(SECP256K1_N - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}`
}

/** The fields of a permit that a test fixes; the others get demo values. */
export interface PermitBase {
  readonly chainId: bigint
  readonly router: Hex
  readonly vault: Hex
  readonly sourceAsset: Hex
  readonly payer: Hex
  readonly now: bigint
}

let serial = 0

/** A valid-looking permit (unique fillId and permitNonce) with `overrides` applied. */
export const makePermit = (base: PermitBase, overrides: Partial<ExecutionPermit> = {}): ExecutionPermit => {
  serial += 1
  return {
    releaseId: RELEASE_ID,
    fillId: label(`fill ${serial} ${Math.random()}`),
    routeId: label("route base-bsc"),
    quoteId: label(`quote ${serial}`),
    policyHash: label("policy"),
    permitNonce: label(`nonce ${serial} ${Math.random()}`),
    sourceNetworkId: label("network 8453"),
    sourceAssetId: label("asset usdc"),
    destinationNetworkId: label("network 56"),
    destinationAssetId: label("asset usdt"),
    sourceVaultAccountId: label("source vault account"),
    destinationVaultAccountId: label("destination vault account"),
    payerAccountId: label("payer account"),
    recipientAccountId: label("recipient account"),
    dataVersion: 7n,
    executionGeneration: label("generation 1"),
    validAfter: base.now - 60n,
    validUntil: base.now + 600n,
    sourceFinalityBlocks: 2,
    settlementWindowSeconds: 900,
    sourceChainId: base.chainId,
    destinationChainId: 56n,
    sourceAsset: base.sourceAsset,
    destinationAsset: "0x0056000000000000000000000000000000000001",
    sourceVault: base.vault,
    destinationVault: "0x0056000000000000000000000000000000000002",
    sourceRouter: base.router,
    payer: base.payer,
    recipient: "0x2222222222222222222222222222222222222222",
    amountInRaw: 2_500_000n,
    amountOutRaw: 2_497_500_000_000_000_000n,
    ...overrides
  }
}
