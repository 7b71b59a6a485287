/**
 * Solana clusters and their identity: a cluster is identified by its base58
 * genesis hash; networkId = keccak256(abi.encode(bytes32 keccak256("SVM"),
 * bytes32 keccak256(utf8(genesisHash)))).
 *
 * @since 0.1.0
 */
import { Ids } from "@svc/protocol"

/**
 * Genesis hashes of the public clusters.
 *
 * @category constants
 * @since 0.1.0
 */
export const GENESIS = {
  "mainnet-beta": "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
  devnet: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG",
  testnet: "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY"
} as const

/**
 * The family name ("SVM") and its vmType, keccak256("SVM").
 *
 * @category constants
 * @since 0.1.0
 */
export const FAMILY = "SVM"

/**
 * vmType of Solana networks.
 *
 * @category constants
 * @since 0.1.0
 */
export const VM_TYPE = Ids.SOLANA_VM_TYPE

/**
 * networkId of a cluster by its genesis hash (mainnet-beta by default).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const networkId = (genesisHash: string = GENESIS["mainnet-beta"]) => Ids.solanaNetworkId(genesisHash)
