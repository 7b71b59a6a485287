import { suite } from "@svc/core/testing/ConnectorTestkit"
import * as SolanaConnector from "../src/SolanaConnector.ts"
import { GENESIS } from "../src/SolanaNetworks.ts"
import { account, asset, signer } from "./utils.ts"

suite("solana", SolanaConnector.layer(), {
  networks: [GENESIS["mainnet-beta"], GENESIS.devnet, GENESIS.testnet],
  account,
  asset,
  signer,
  invalidLocators: [
    // not the canonical spelling of 32 bytes, or not 32 bytes
    "1EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    "1111111111111111111111111111111",
    "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1vv",
    "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10",
    " EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    { native: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", cluster: "mainnet-beta" },
    { mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" },
    { native: "0xc6fa7af3bedbad3a3d65f36aabc97431b1bbe4c2d2f6e0e47ca60203452f5d61" },
    "0xc6fa7af3bedbad3a3d65f36aabc97431b1bbe4c2d2f6e0e47ca60203452f5d61"
  ],
  malformedProofs: [
    "0x" + "ab".repeat(63),
    "0x" + "ab".repeat(65),
    "0X" + "ab".repeat(64),
    "ab".repeat(64),
    "1".repeat(64),
    "z".repeat(89)
  ]
})
