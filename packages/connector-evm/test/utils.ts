/**
 * Test material of the EVM connector: arbitraries, signers and an anvil-backed
 * connector layer with ERC-1271 wallets (deployed) and ERC-6492 wallets
 * (counterfactual) at addresses known before the chain starts.
 */
import type { TestSigner } from "@svc/core/testing/ConnectorTestkit"
import { Signature } from "@svc/protocol"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import {
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  http,
  keccak256,
  serializeErc6492Signature,
  toBytes
} from "viem"
import { privateKeyToAccount, privateKeyToAddress } from "viem/accounts"
import * as EvmConnector from "../src/EvmConnector.ts"
import { Anvil, compileTestContracts, DEPLOYER_KEY, layer as anvilLayer } from "../src/testing/Anvil.ts"

export const bytesToHex = (bytes: Uint8Array): Hex => `0x${Buffer.from(bytes).toString("hex")}`

export const addressLower = fc.uint8Array({ minLength: 20, maxLength: 20 }).map(bytesToHex)
export const address = addressLower.map((a) => getAddress(a))

/** Valid secp256k1 private keys. */
export const privateKey: fc.Arbitrary<Hex> = fc
  .bigInt({ min: 1n, max: Signature.SECP256K1_N - 1n })
  .map((n) => `0x${n.toString(16).padStart(64, "0")}` as Hex)

/** An EOA signer. */
export const eoaSigner: fc.Arbitrary<TestSigner> = privateKey.map((key) => ({
  account: Signature.addressOf(key),
  sign: (message: string) => Signature.signPersonalMessage(message, key)
}))

/** Fixed owner keys of the test wallets (public test material). */
export const OWNER_KEYS: ReadonlyArray<Hex> = [1, 2, 3].map((i) => keccak256(toBytes(`svc evm test wallet owner ${i}`)))
export const SALT: Hex = keccak256(toBytes("svc evm test wallet salt"))

/** The factory is the deployer's first contract on a fresh chain. */
export const FACTORY: Hex = getContractAddress({ from: privateKeyToAddress(DEPLOYER_KEY), nonce: 0n })

/** The CREATE2 address of the wallet of `owner` with `salt` from the factory. */
export const walletAddressOf = (owner: Hex, salt: Hex = SALT): Hex => {
  const { wallet } = compileTestContracts()
  const initCode = encodeDeployData({ abi: wallet.abi, bytecode: wallet.bytecode, args: [owner] })
  return getContractAddress({ opcode: "CREATE2", from: FACTORY, salt, bytecode: initCode })
}

const ownerAddress = (key: Hex) => Signature.addressOf(key) as Hex

/** Wallets deployed by the layer (owners 0 and 1). */
export const DEPLOYED = OWNER_KEYS.slice(0, 2).map((key) => ({ key, address: walletAddressOf(ownerAddress(key)) }))
/** A counterfactual wallet (owner 2): never deployed. */
export const COUNTERFACTUAL = { key: OWNER_KEYS[2]!, address: walletAddressOf(ownerAddress(OWNER_KEYS[2]!)) }

const factoryCalldata = (owner: Hex): Hex =>
  encodeFunctionData({ abi: compileTestContracts().factory.abi, functionName: "deploy", args: [owner, SALT] })

/** The ERC-6492 signature of the counterfactual wallet over a message. */
export const counterfactualSign = (message: string): Hex =>
  serializeErc6492Signature({
    address: FACTORY,
    data: factoryCalldata(ownerAddress(COUNTERFACTUAL.key)),
    signature: Signature.signPersonalMessage(message, COUNTERFACTUAL.key)
  })

/** Smart-account signers: the deployed ERC-1271 wallets and the counterfactual ERC-6492 one. */
export const walletSigner: fc.Arbitrary<TestSigner> = fc.oneof(
  fc.constantFrom(...DEPLOYED).map((w) => ({
    account: w.address,
    sign: (m: string) => Signature.signPersonalMessage(m, w.key)
  })),
  fc.constant({ account: COUNTERFACTUAL.address, sign: counterfactualSign })
)

/** A fresh anvil chain with the factory and the deployed wallets. */
export const anvilWithWallets = (chainId: number) =>
  Layer.effectContext(
    Effect.gen(function*() {
      const anvil = yield* Anvil
      const factory = yield* Effect.promise(() => anvil.deployFactory())
      if (factory.toLowerCase() !== FACTORY.toLowerCase()) throw new Error(`factory at ${factory}, expected ${FACTORY}`)
      const deployer = createWalletClient({ account: privateKeyToAccount(DEPLOYER_KEY), transport: http(anvil.url) })
      for (const w of DEPLOYED) {
        yield* Effect.promise(async () => {
          const hash = await deployer.sendTransaction({
            chain: null,
            to: FACTORY,
            data: factoryCalldata(ownerAddress(w.key))
          })
          await anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
          const code = await anvil.client.getCode({ address: w.address })
          if (code === undefined || code === "0x") throw new Error(`no wallet at ${w.address}`)
        })
      }
      const counterfactualCode = yield* Effect.promise(() => anvil.client.getCode({ address: COUNTERFACTUAL.address }))
      if (counterfactualCode !== undefined && counterfactualCode !== "0x") {
        throw new Error("the counterfactual wallet exists")
      }
      return yield* Effect.context<Anvil>()
    })
  ).pipe(Layer.provideMerge(anvilLayer({ chainId })))

/** The EVM connector with an RPC URL for the anvil chain in context. */
export const rpcConnector = (chainId: number) =>
  Layer.unwrap(Effect.map(Anvil, (anvil) => EvmConnector.layer({ rpcUrls: { [String(chainId)]: anvil.url } })))
