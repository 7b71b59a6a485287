import { assert, describe, it } from "@effect/vitest"
import { Connector } from "@svc/core"
import { Ids } from "@svc/protocol"
import { Result } from "effect"
import fc from "fast-check"
import { encodeAbiParameters, keccak256, toHex } from "viem"
import * as SolanaConnector from "../src/SolanaConnector.ts"
import * as SolanaLocator from "../src/SolanaLocator.ts"
import { GENESIS, networkId } from "../src/SolanaNetworks.ts"
import { bytes32 } from "./utils.ts"

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

/** An independent base58 encoder (BigInt arithmetic) to check the codec against. */
const referenceEncode = (bytes: Uint8Array): string => {
  let n = 0n
  for (const b of bytes) n = (n << 8n) | BigInt(b)
  let out = ""
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)]! + out
    n /= 58n
  }
  let zeros = 0
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++
  return "1".repeat(zeros) + out
}

const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
const USDC_MINT_HEX = "0xc6fa7af3bedbad3a3d65f36aabc97431b1bbe4c2d2f6e0e47ca60203452f5d61"

describe("SolanaLocator", () => {
  it("decodes known keys (USDC mint, the system program)", () => {
    assert.strictEqual(toHex(SolanaLocator.decodeKey(USDC_MINT)!), USDC_MINT_HEX)
    assert.strictEqual(toHex(SolanaLocator.decodeKey("11111111111111111111111111111111")!), `0x${"00".repeat(32)}`)
    assert.strictEqual(SolanaLocator.encodeKey(new Uint8Array(32)), "11111111111111111111111111111111")
  })

  it("refuses non-canonical and wrong-length spellings", () => {
    for (
      const bad of [
        `1${USDC_MINT}`,
        "1111111111111111111111111111111",
        "111111111111111111111111111111111",
        USDC_MINT.replace("E", "0"),
        USDC_MINT.replace("E", "I"),
        USDC_MINT.replace("E", "l"),
        USDC_MINT.toLowerCase(),
        `${USDC_MINT} `
      ]
    ) {
      assert.isTrue(Result.isFailure(SolanaLocator.parse(bad)), bad)
    }
  })

  it("base58 agrees with an independent encoder on every 32-byte key", () => {
    fc.assert(
      fc.property(bytes32, (bytes) => {
        const text = SolanaLocator.encodeKey(bytes)
        assert.strictEqual(text, referenceEncode(bytes))
        assert.deepStrictEqual(SolanaLocator.decodeKey(text), bytes)
      }),
      { numRuns: 200 }
    )
  })

  it("the canonical locator is {\"native\": key}; the string form stands for it", () => {
    assert.deepStrictEqual(Result.getOrThrow(SolanaLocator.parse(USDC_MINT)), { native: USDC_MINT })
    assert.deepStrictEqual(Result.getOrThrow(SolanaLocator.parse({ native: USDC_MINT })), { native: USDC_MINT })
  })

  it("accountId = keccak256(abi.encode(networkId, key)) on the networkId of the genesis hash", () => {
    const connector = SolanaConnector.make()
    const mainnet = Result.getOrThrow(Connector.networkIdOf(connector, GENESIS["mainnet-beta"]))
    assert.strictEqual(mainnet, Ids.solanaNetworkId())
    assert.strictEqual(mainnet, networkId())
    assert.strictEqual(
      mainnet,
      keccak256(
        encodeAbiParameters([{ type: "bytes32" }, { type: "bytes32" }], [
          Ids.vmType("SVM"),
          keccak256(toHex(GENESIS["mainnet-beta"]))
        ])
      )
    )
    const id = Result.getOrThrow(Connector.accountIdOf(connector, mainnet, { native: USDC_MINT }))
    assert.strictEqual(
      id,
      keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "bytes32" }], [mainnet, USDC_MINT_HEX]))
    )
  })

  it("an asset is {\"mint\": key} with the 32-byte mint as reference", () => {
    const connector = SolanaConnector.make()
    const network = { networkId: Ids.solanaNetworkId(), native: GENESIS["mainnet-beta"] }
    const asset = Result.getOrThrow(Connector.assetOf(connector, { mint: USDC_MINT }, network))
    assert.deepStrictEqual(asset.locator, { mint: USDC_MINT })
    assert.strictEqual(asset.reference, USDC_MINT_HEX)
    assert.strictEqual(asset.assetId, Ids.assetId(network.networkId, USDC_MINT_HEX))
    assert.isNull(asset.address)
    assert.isTrue(Result.isFailure(connector.parseAsset({ mint: USDC_MINT, decimals: 6 }, network)))
  })

  it("parse is total on arbitrary input", () => {
    fc.assert(
      fc.property(fc.anything(), (u) => {
        SolanaLocator.parse(u)
        SolanaLocator.parseAsset(u)
        SolanaLocator.networkReference(u as string)
      }),
      { numRuns: 300 }
    )
  })
})
