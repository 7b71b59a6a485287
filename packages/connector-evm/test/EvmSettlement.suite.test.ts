/**
 * The EVM connector's settlement primitives pass the core's settlement suite
 * (`@svc/core/testing/SettlementSuite`) on a real chain: anvil with the
 * reference vault and a test token (`@svc/contracts`), `finalized` two blocks
 * behind the head (`--slots-in-an-epoch 1`), automatic mining off, the suite's
 * controls through anvil's own methods.
 */
import { Deploy } from "@svc/contracts"
import { SvcTestToken, SvcVaultV6 } from "@svc/contracts/artifacts"
import { ANVIL_DEPLOYER_KEY, rpc, startAnvil } from "@svc/contracts/testing/Anvil"
import { suite } from "@svc/core/testing/SettlementSuite"
import { Effect, Redacted } from "effect"
import { createPublicClient, createWalletClient, defineChain, type Hex, http, keccak256, parseGwei, toHex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import * as EvmSettlement from "../src/EvmSettlement.ts"

const CHAIN_ID = 31_337
const PAYOUT_KEY: Hex = keccak256(toHex("svc settlement suite: payout key"))

suite("EVM connector on anvil", async () => {
  const node = await startAnvil({ chainId: CHAIN_ID, slotsInAnEpoch: 1 })
  const chain = defineChain({
    id: CHAIN_ID,
    name: "anvil",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.url] } }
  })
  const publicClient = createPublicClient({ chain, transport: http(node.url), pollingInterval: 50 })
  const owner = privateKeyToAccount(ANVIL_DEPLOYER_KEY)
  const payoutAccount = privateKeyToAccount(PAYOUT_KEY)
  const wallet = createWalletClient({ account: owner, chain, transport: http(node.url) })
  const clients = { wallet, publicClient } as unknown as Deploy.Clients
  const system = await Deploy.deploySvcSystem(clients, {
    authority: owner.address,
    operator: payoutAccount.address,
    discoveryURI: "http://127.0.0.1/.well-known/svc-solver.json",
    pollingInterval: 50
  })
  const token = await Deploy.deployToken(clients, { name: "Test", symbol: "TST", decimals: 18, pollingInterval: 50 })
  const vault = system.addresses.vault
  const mint = (amount: bigint) =>
    wallet.writeContract({
      address: token,
      abi: SvcTestToken.abi,
      functionName: "mint",
      args: [vault, amount],
      gas: 200_000n
    })
  await publicClient.waitForTransactionReceipt({ hash: await mint(10n ** 24n) })
  await rpc(node.url, "anvil_setBalance", [payoutAccount.address, toHex(10n ** 20n)])
  // from here on nothing is mined but by the suite
  await rpc(node.url, "evm_setAutomine", [false])
  await rpc(node.url, "evm_setIntervalMining", [0])
  const settlement = EvmSettlement.make({
    rpcUrls: { [String(CHAIN_ID)]: node.url },
    payoutKey: Redacted.make(PAYOUT_KEY),
    rpcTimeoutMillis: 10_000
  })
  const networkChain = await Effect.runPromise(settlement.network({
    key: "anvil",
    networkId: `0x${"00".repeat(32)}`,
    native: String(CHAIN_ID),
    router: system.addresses.router,
    vault: { native: vault.toLowerCase() },
    vaultAddress: vault
  }))
  if (networkChain === null || networkChain.payer === null) throw new Error("no payer for the anvil chain")
  let fills = 0
  const mine = async (n = 1) => {
    for (let i = 0; i < n; i++) await rpc(node.url, "evm_mine")
  }
  const payoutWallet = createWalletClient({ account: payoutAccount, chain, transport: http(node.url) })
  return {
    chain: networkChain,
    asset: token.toLowerCase(),
    recipient: "0x2222222222222222222222222222222222222222",
    finalizedLag: 2,
    mine,
    reorg: async (depth) => {
      await rpc(node.url, "anvil_reorg", [depth, []])
    },
    setNextBaseFee: async (wei) => {
      await rpc(node.url, "anvil_setNextBlockBaseFeePerGas", [toHex(wei)])
    },
    fundVault: async (amount) => {
      await mint(amount)
    },
    drainVault: async () => {
      const balance = await publicClient.readContract({
        address: token,
        abi: SvcTestToken.abi,
        functionName: "balanceOf",
        args: [vault],
        blockTag: "latest"
      })
      // a high tip: mined before a payout sent earlier into the same block
      await wallet.writeContract({
        address: vault,
        abi: SvcVaultV6.abi,
        functionName: "withdraw",
        args: [token, owner.address, balance],
        // no estimate: against the pending state (a payout already sent) the withdrawal would not fit
        gas: 200_000n,
        maxPriorityFeePerGas: parseGwei("50"),
        maxFeePerGas: parseGwei("500")
      })
    },
    useNonce: async () => {
      await payoutWallet.sendTransaction({ to: owner.address, value: 0n })
      await mine()
    },
    setPayerGas: async (wei) => {
      await rpc(node.url, "anvil_setBalance", [payoutAccount.address, toHex(wei)])
    },
    freshFillId: () => keccak256(toHex(`svc settlement suite fill ${++fills} ${process.pid}`)),
    close: () => node.stop()
  }
})
