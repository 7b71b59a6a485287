import { assert, describe, it } from "@effect/vitest"
import { Connector } from "@svc/core"
import { Ids } from "@svc/protocol"
import { Result } from "effect"
import fc from "fast-check"
import { getAddress } from "viem"
import * as EvmConnector from "../src/EvmConnector.ts"
import * as EvmLocator from "../src/EvmLocator.ts"
import { addressLower } from "./utils.ts"

const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"

describe("EvmLocator", () => {
  it("accepts lowercase, uppercase and EIP-55 forms; refuses a wrong checksum", () => {
    for (const form of [USDC_BASE, USDC_BASE.toLowerCase(), `0x${USDC_BASE.slice(2).toUpperCase()}`]) {
      assert.deepStrictEqual(Result.getOrThrow(EvmLocator.parse(form)), { native: USDC_BASE.toLowerCase() })
    }
    const wrong = USDC_BASE.replace("fCD6", "fcD6")
    const refused = EvmLocator.parse(wrong)
    assert.isTrue(Result.isFailure(refused) && refused.failure.code === "LOCATOR_CHECKSUM_INVALID")
    assert.strictEqual(EvmLocator.render({ native: USDC_BASE.toLowerCase() }), USDC_BASE)
  })

  it("networks, assets and accounts derive the documented ids", () => {
    const connector = EvmConnector.make()
    const base = Result.getOrThrow(Connector.networkIdOf(connector, "8453"))
    assert.strictEqual(base, Ids.evmNetworkId(8453))
    const asset = Result.getOrThrow(Connector.assetOf(connector, USDC_BASE, { networkId: base, native: "8453" }))
    assert.deepStrictEqual(asset.locator, { chainId: "8453", token: USDC_BASE.toLowerCase() })
    assert.strictEqual(asset.assetId, Ids.evmAssetId(base, USDC_BASE))
    assert.strictEqual(asset.address, USDC_BASE)
    for (const bad of ["0", "08453", "-1", "1.5", "0x2105", `${2n ** 256n}`, ""]) {
      assert.isTrue(Result.isFailure(EvmLocator.networkReference(bad)), bad)
    }
  })

  it("account ids are the documented derivation, whatever the address casing", () => {
    const connector = EvmConnector.make()
    const network = { networkId: Ids.evmNetworkId(56), native: "56" }
    fc.assert(
      fc.property(addressLower, fc.boolean(), (a, checksummed) => {
        const input = checksummed ? getAddress(a) : a
        const locator = Result.getOrThrow(connector.parseLocator(input))
        assert.deepStrictEqual(locator, { native: a })
        assert.strictEqual(
          Result.getOrThrow(Connector.accountIdOf(connector, network.networkId, locator)),
          Ids.evmAccountId(network.networkId, a)
        )
        assert.deepStrictEqual(Result.getOrThrow(connector.parseAsset(input, network)), {
          locator: { chainId: "56", token: a },
          reference: Ids.evmReference(a),
          address: getAddress(a)
        })
      }),
      { numRuns: 200 }
    )
  })
})
