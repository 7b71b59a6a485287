/**
 * Small pure helpers every aggregator operation uses: the clock in Unix
 * seconds, address checks and forms, which routes are quotable, and the data
 * version of a publication. Internal.
 *
 * @since 0.1.0
 */
import { screamingSnake as screaming } from "@svc/protocol/Patterns"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import type { Route } from "@svc/protocol/schema/Feed"
import { Clock, Effect } from "effect"
import { getAddress } from "viem"
import type { Publication } from "../../Publisher.ts"

/**
 * The zero address: a token at this address is the chain's native coin.
 *
 * @category constants
 * @since 0.1.0
 */
export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"

/**
 * Now, Unix milliseconds.
 *
 * @category operations
 * @since 0.1.0
 */
export const nowMillis: Effect.Effect<number> = Clock.currentTimeMillis

/**
 * Now, Unix seconds (rounded down).
 *
 * @category operations
 * @since 0.1.0
 */
export const nowSeconds: Effect.Effect<number> = Effect.map(nowMillis, (ms) => Math.floor(ms / 1000))

/**
 * The reason codes (`<FIELD>_CHECKSUM_INVALID`) of the given address fields
 * whose mixed case is a wrong EIP-55 checksum, in field order; absent fields
 * pass.
 *
 * @category operations
 * @since 0.1.0
 */
export const checksumIssues = (fields: Readonly<Record<string, string | undefined>>): Array<string> => {
  const issues: Array<string> = []
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && !PermitMessage.hasValidChecksum(value)) {
      issues.push(`${screaming(name)}_CHECKSUM_INVALID`)
    }
  }
  return issues
}

/**
 * The EIP-55 form of an address, whatever its case.
 *
 * @category operations
 * @since 0.1.0
 */
export const eip55 = (address: string): string => getAddress(address.toLowerCase())

/**
 * Whether two addresses are both given and equal, ignoring case.
 *
 * @category operations
 * @since 0.1.0
 */
export const sameAddress = (a: string | null | undefined, b: string | null | undefined): boolean =>
  a !== null && a !== undefined && b !== null && b !== undefined && a.toLowerCase() === b.toLowerCase()

/**
 * Quotable: an open L1 route inside its window at `now` (Unix seconds), with the
 * EVM bindings a quote needs.
 *
 * @category operations
 * @since 0.1.0
 */
export const quotable = (route: Route, now: number): boolean =>
  route.publicationLane === "L1" && route.open && route.validAfter <= now && now < route.validUntil &&
  route.sourceChainId !== null && route.destinationChainId !== null && route.sourceAsset !== null &&
  route.destinationAsset !== null && route.sourceRouter !== null

/**
 * The version of the data a body is built from: `<dataVersion>-<first 16 hex of feedHash>`.
 *
 * @category operations
 * @since 0.1.0
 */
export const versionOf = (p: Publication): string => `${p.dataVersion}-${p.feedHash.slice(2, 18)}`
