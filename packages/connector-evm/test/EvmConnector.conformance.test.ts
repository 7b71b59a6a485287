import { suite } from "@svc/core/testing/ConnectorTestkit"
import { Signature } from "@svc/protocol"
import { Layer } from "effect"
import fc from "fast-check"
import { scaled } from "../../../test/support/time.ts"
import * as EvmConnector from "../src/EvmConnector.ts"
import { address, addressLower, anvilWithWallets, eoaSigner, rpcConnector, walletSigner } from "./utils.ts"

const common = {
  account: fc.oneof(addressLower, address, addressLower.map((native) => ({ native }))),
  asset: fc.oneof(addressLower, address),
  invalidLocators: [
    "0x52908400098527886E0F7030069857D2E4169Ee7",
    "0x52908400098527886e0f7030069857d2e4169ee",
    "52908400098527886e0f7030069857d2e4169ee7",
    { native: "0x52908400098527886e0f7030069857d2e4169ee7", chainId: "8453" },
    { address: "0x52908400098527886e0f7030069857d2e4169ee7" }
  ],
  malformedProofs: [
    Signature.highSTwin(
      Signature.signPersonalMessage("x", "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
    ),
    `0x${"00".repeat(65)}`,
    `0x${"ff".repeat(65)}`
  ]
}

// Offline: EOA proofs only (no RPC URL configured).
suite("evm (offline)", EvmConnector.layer(), {
  ...common,
  networks: ["8453", "56", "999"],
  signer: eoaSigner
})

// Against a real local chain (anvil, chain id 31337): EOAs, deployed ERC-1271
// wallets and a counterfactual ERC-6492 wallet, verified over RPC.
suite("evm (anvil RPC, ERC-1271 / ERC-6492)", rpcConnector(31337).pipe(Layer.provide(anvilWithWallets(31337))), {
  ...common,
  networks: ["31337", "8453"],
  signer: fc.oneof(eoaSigner, walletSigner),
  timeout: scaled(60_000)
})
