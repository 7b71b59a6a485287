/**
 * Smart-contract account proofs against a real local chain (anvil from the npm
 * package @foundry-rs/anvil): an ERC-1271 wallet compiled from
 * src/testing/SvcTestWallet.sol with the solc npm package and deployed there,
 * and a counterfactual ERC-6492 wallet of the same factory.
 */
import { assert, layer } from "@effect/vitest"
import { Connector } from "@svc/core"
import { Ids, Signature } from "@svc/protocol"
import { Cause, Effect, Exit } from "effect"
import { getAddress, type Hex } from "viem"
import { scaled } from "../../../test/support/time.ts"
import * as EvmConnector from "../src/EvmConnector.ts"
import { Anvil } from "../src/testing/Anvil.ts"
import { anvilWithWallets, COUNTERFACTUAL, counterfactualSign, DEPLOYED, walletAddressOf } from "./utils.ts"

const CHAIN_ID = 31337

const claimOf = (address: string, message: string, proof: string, chainId = String(CHAIN_ID)) => ({
  network: { networkId: Ids.evmNetworkId(chainId), native: chainId },
  locator: { native: address.toLowerCase() },
  message,
  proof
})

/** "OK", or the tag and code of the failure. */
const outcome = (connector: Connector.Connector, claim: Connector.OwnershipClaim) =>
  Effect.map(Effect.exit(connector.verifyOwnership(claim)), (exit) => {
    if (Exit.isSuccess(exit)) return { code: "OK", message: "" }
    const error = Cause.findErrorOption(exit.cause)
    if (error._tag === "None") throw new Error(Cause.pretty(exit.cause))
    return { code: `${error.value._tag}:${error.value.code}`, message: error.value.message }
  })

const MESSAGE = "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1\nquoteId=0x01\nidempotencyKey=erc1271-test"

layer(anvilWithWallets(CHAIN_ID), { timeout: scaled(60_000) })("EVM ownership proofs on anvil", (it) => {
  it.effect("the test wallet is a real contract whose isValidSignature answers the ERC-1271 magic value", () =>
    Effect.gen(function*() {
      const anvil = yield* Anvil
      const wallet = DEPLOYED[0]!
      const code = yield* Effect.promise(() => anvil.client.getCode({ address: wallet.address }))
      assert.isTrue(code !== undefined && code.length > 2)
      assert.strictEqual(yield* Effect.promise(() => anvil.client.getChainId()), CHAIN_ID)
      const deployed = yield* Effect.promise(() => anvil.deployWallet(Signature.addressOf(wallet.key) as Hex))
      assert.notStrictEqual(
        deployed.toLowerCase(),
        wallet.address.toLowerCase(),
        "deployWallet deploys another instance (CREATE)"
      )
    }))

  it.effect("ERC-1271: a deployed wallet's owner signature verifies over RPC; tampered and foreign ones do not", () =>
    Effect.gen(function*() {
      const anvil = yield* Anvil
      const connector = EvmConnector.make({ rpcUrls: { [String(CHAIN_ID)]: anvil.url } })
      const wallet = DEPLOYED[0]!
      const proof = Signature.signPersonalMessage(MESSAGE, wallet.key)
      assert.strictEqual((yield* outcome(connector, claimOf(wallet.address, MESSAGE, proof))).code, "OK")
      assert.strictEqual(
        (yield* outcome(connector, claimOf(wallet.address, `${MESSAGE} `, proof))).code,
        "ConnectorError:SIGNER_MISMATCH"
      )
      const other = Signature.signPersonalMessage(MESSAGE, DEPLOYED[1]!.key)
      assert.strictEqual(
        (yield* outcome(connector, claimOf(wallet.address, MESSAGE, other))).code,
        "ConnectorError:SIGNER_MISMATCH"
      )
      // the owner's signature is not the wallet's own EOA signature: offline it cannot verify
      const offline = EvmConnector.make()
      const refused = yield* outcome(offline, claimOf(wallet.address, MESSAGE, proof))
      assert.strictEqual(refused.code, "ConnectorError:SIGNER_MISMATCH")
      assert.include(refused.message, "needs an RPC URL for chain 31337")
    }))

  it.effect("ERC-6492: a counterfactual wallet's wrapped signature verifies over RPC without deploying it", () =>
    Effect.gen(function*() {
      const anvil = yield* Anvil
      const connector = EvmConnector.make({ rpcUrls: { [String(CHAIN_ID)]: anvil.url } })
      const proof = counterfactualSign(MESSAGE)
      assert.strictEqual((yield* outcome(connector, claimOf(COUNTERFACTUAL.address, MESSAGE, proof))).code, "OK")
      assert.strictEqual(
        (yield* outcome(connector, claimOf(COUNTERFACTUAL.address, `${MESSAGE}!`, proof))).code,
        "ConnectorError:SIGNER_MISMATCH"
      )
      assert.strictEqual(
        (yield* outcome(connector, claimOf(DEPLOYED[0]!.address, MESSAGE, proof))).code,
        "ConnectorError:SIGNER_MISMATCH"
      )
      const code = yield* Effect.promise(() => anvil.client.getCode({ address: COUNTERFACTUAL.address }))
      assert.isTrue(code === undefined || code === "0x", "verification is an eth_call: nothing was deployed")
      // without an RPC URL a wrapped signature gets a clear error
      const offline = yield* outcome(EvmConnector.make(), claimOf(COUNTERFACTUAL.address, MESSAGE, proof))
      assert.strictEqual(offline.code, "ConnectorError:RPC_NOT_CONFIGURED")
      assert.include(offline.message, "no RPC URL is configured for chain 31337")
      // the RPC of another chain does not help
      const elsewhere = yield* outcome(connector, claimOf(COUNTERFACTUAL.address, MESSAGE, proof, "8453"))
      assert.strictEqual(elsewhere.code, "ConnectorError:RPC_NOT_CONFIGURED")
    }))

  it.effect("EOAs stay offline and strict with an RPC configured (no relaxed low-s through the chain)", () =>
    Effect.gen(function*() {
      const anvil = yield* Anvil
      const connector = EvmConnector.make({ rpcUrls: { [String(CHAIN_ID)]: anvil.url } })
      const key = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" as const
      const payer = Signature.addressOf(key)
      const proof = Signature.signPersonalMessage(MESSAGE, key)
      assert.strictEqual((yield* outcome(connector, claimOf(payer, MESSAGE, proof))).code, "OK")
      assert.strictEqual(
        (yield* outcome(connector, claimOf(payer, MESSAGE, Signature.highSTwin(proof)))).code,
        "ConnectorError:SIGNATURE_HIGH_S"
      )
      const checksummed = { ...claimOf(payer, MESSAGE, proof), locator: { native: getAddress(payer) } }
      assert.strictEqual((yield* outcome(connector, checksummed)).code, "ConnectorError:LOCATOR_NOT_CANONICAL")
    }))

  it.effect("an RPC that does not answer is ConnectorUnavailable, never a verdict", () =>
    Effect.gen(function*() {
      const connector = EvmConnector.make({
        rpcUrls: { [String(CHAIN_ID)]: "http://127.0.0.1:9" },
        rpcTimeoutMillis: 2000
      })
      const proof = counterfactualSign(MESSAGE)
      const down = yield* outcome(connector, claimOf(COUNTERFACTUAL.address, MESSAGE, proof))
      assert.match(down.code, /^ConnectorUnavailable:RPC_(UNAVAILABLE|TIMEOUT)$/)
    }))

  it("the CREATE2 address of the test wallets is what the factory reports", async () => {
    assert.match(walletAddressOf("0x0000000000000000000000000000000000000001"), /^0x[0-9a-fA-F]{40}$/)
  })
})
