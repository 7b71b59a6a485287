/**
 * The payout policy of `ChainSettlement`, as pure functions: which nonce a new
 * payout takes, which fees it offers, how a stuck one is replaced, how long a
 * reverted one waits before it is tried again, and when a block is final. The
 * runner applies them the same way on every chain; the connector only answers
 * questions and signs (see `Chain.ChainPayer`).
 *
 * @since 0.1.0
 */
import type { Block, FeeMarket, Fees } from "./Chain.ts"

/**
 * How svc settles on one network: the catalog's `settlement` settings of the
 * network over the runner's defaults ({@link DEFAULTS}).
 *
 * @category models
 * @since 0.1.0
 */
export interface Policy {
  /**
   * `finalized`: a block is final when it has the confirmations asked for and is
   * at or below the chain's own finalized block (when the chain has one);
   * `depth`: confirmations only.
   */
  readonly finality: "finalized" | "depth"
  /** The highest fee cap of a payout (wei per gas on EVM); null: no ceiling. */
  readonly maxFeePerGas: bigint | null
  /** Blocks a payout may stay pending before it is replaced with higher fees. */
  readonly replaceAfterBlocks: number
  /** Each replacement raises both fees by at least this, basis points (nodes ask for 10 %). */
  readonly feeBumpBps: number
  /** Payouts sent and not yet mined at once. */
  readonly maxInFlight: number
  /** Reverted payout transactions of one fill before it waits for the operator. */
  readonly revertBudget: number
  /** The first wait after a revert, milliseconds; it doubles with every revert. */
  readonly retryBaseMillis: number
  /** The longest wait between tries, milliseconds. */
  readonly retryMaxMillis: number
  /** The smallest priority fee offered (wei per gas). */
  readonly minPriorityFeePerGas: bigint
  /** The gas limit is the estimate times this, basis points (10000: the estimate). */
  readonly gasMarginBps: number
}

/**
 * The defaults: finality by the chain's finalized block, a 500 gwei fee
 * ceiling, replacement after 3 blocks with a 12.5 % bump, 16 payouts in flight
 * (geth's default pool keeps 16 pending transactions per sender), 3 reverts, a
 * 5 s first retry doubling up to 5 minutes, a 20 % gas margin.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULTS: Policy = {
  finality: "finalized",
  maxFeePerGas: 500_000_000_000n,
  replaceAfterBlocks: 3,
  feeBumpBps: 1250,
  maxInFlight: 16,
  revertBudget: 3,
  retryBaseMillis: 5_000,
  retryMaxMillis: 300_000,
  minPriorityFeePerGas: 0n,
  gasMarginBps: 12_000
}

/**
 * The policy of a network: its catalog settings over the given defaults.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  network: {
    readonly finality?: "finalized" | "depth" | undefined
    readonly maxFeePerGas?: bigint | undefined
    readonly replaceAfterBlocks?: number | undefined
    readonly maxInFlight?: number | undefined
  },
  defaults: Partial<Policy> = {}
): Policy => {
  const base = { ...DEFAULTS, ...defaults }
  return {
    ...base,
    ...(network.finality === undefined ? {} : { finality: network.finality }),
    ...(network.maxFeePerGas === undefined ? {} : { maxFeePerGas: network.maxFeePerGas }),
    ...(network.replaceAfterBlocks === undefined ? {} : { replaceAfterBlocks: network.replaceAfterBlocks }),
    ...(network.maxInFlight === undefined ? {} : { maxInFlight: network.maxInFlight })
  }
}

/**
 * The nonce of a new payout: the smallest at or above the chain's `latest`
 * nonce that no open payout transaction holds. Nonces come from the chain and
 * the stored transactions only, never from memory: a nonce freed by a
 * reorganisation or a transaction never sent is used again, so a gap fills
 * itself instead of holding every later payout in the node's queue.
 *
 * @category operations
 * @since 0.1.0
 */
export const nextNonce = (latest: number, held: ReadonlySet<number>): number => {
  let nonce = latest
  while (held.has(nonce)) nonce++
  return nonce
}

/**
 * The lowest free nonce under the highest held one (a gap that queues every
 * transaction above it), or null when the held nonces from `latest` up are
 * consecutive.
 *
 * @category operations
 * @since 0.1.0
 */
export const gapBelow = (latest: number, held: ReadonlySet<number>): number | null => {
  let highest = -1
  for (const n of held) if (n > highest) highest = n
  const free = nextNonce(latest, held)
  return free < highest ? free : null
}

/**
 * The fees of a new payout: a priority fee from the market (at least
 * `minPriorityFeePerGas`) and a fee cap of twice the next base fee plus it,
 * capped at the ceiling. `AboveCeiling` when the base fee alone is over the
 * ceiling (such a transaction could not be mined: wait).
 *
 * @category operations
 * @since 0.1.0
 */
export const feesFor = (
  market: FeeMarket,
  policy: Pick<Policy, "maxFeePerGas" | "minPriorityFeePerGas">
): { readonly _tag: "Fees"; readonly fees: Fees; readonly capped: boolean } | { readonly _tag: "AboveCeiling" } => {
  const tip = market.priorityFeePerGas > policy.minPriorityFeePerGas
    ? market.priorityFeePerGas
    : policy.minPriorityFeePerGas
  const cap = 2n * market.baseFeePerGas + tip
  const ceiling = policy.maxFeePerGas
  if (ceiling === null || cap <= ceiling) {
    return { _tag: "Fees", fees: { maxFeePerGas: cap, maxPriorityFeePerGas: tip }, capped: false }
  }
  if (market.baseFeePerGas >= ceiling) return { _tag: "AboveCeiling" }
  return {
    _tag: "Fees",
    fees: { maxFeePerGas: ceiling, maxPriorityFeePerGas: tip < ceiling ? tip : ceiling },
    capped: true
  }
}

const bump = (value: bigint, bps: number) => value + (value * BigInt(bps) + 9_999n) / 10_000n

/**
 * The fees of a replacement at the same nonce: the larger of the market's fees
 * and the previous ones raised by `feeBumpBps` (both the cap and the tip, at
 * least by one), within the ceiling. `AtCeiling` when the ceiling leaves no
 * room for a replacement the node would accept: the payout waits and an alert
 * says so.
 *
 * @category operations
 * @since 0.1.0
 */
export const replacementFees = (
  previous: Fees,
  market: FeeMarket,
  policy: Pick<Policy, "maxFeePerGas" | "minPriorityFeePerGas" | "feeBumpBps">
): { readonly _tag: "Fees"; readonly fees: Fees } | { readonly _tag: "AtCeiling" } => {
  const fresh = feesFor(market, { maxFeePerGas: null, minPriorityFeePerGas: policy.minPriorityFeePerGas })
  const target = fresh._tag === "Fees" ? fresh.fees : previous
  const max = (a: bigint, b: bigint) => (a > b ? a : b)
  let maxFeePerGas = max(
    target.maxFeePerGas,
    max(bump(previous.maxFeePerGas, policy.feeBumpBps), previous.maxFeePerGas + 1n)
  )
  let maxPriorityFeePerGas = max(
    target.maxPriorityFeePerGas,
    max(bump(previous.maxPriorityFeePerGas, policy.feeBumpBps), previous.maxPriorityFeePerGas + 1n)
  )
  const ceiling = policy.maxFeePerGas
  if (ceiling !== null && maxFeePerGas > ceiling) {
    // the bump a node asks for does not fit: at the ceiling
    if (ceiling < bump(previous.maxFeePerGas, policy.feeBumpBps)) return { _tag: "AtCeiling" }
    maxFeePerGas = ceiling
  }
  if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas
  if (maxPriorityFeePerGas < bump(previous.maxPriorityFeePerGas, policy.feeBumpBps)) return { _tag: "AtCeiling" }
  return { _tag: "Fees", fees: { maxFeePerGas, maxPriorityFeePerGas } }
}

/**
 * The wait before a payout is tried again after its `reverts`-th revert
 * (1 for the first): `retryBaseMillis` doubling, at most `retryMaxMillis`.
 *
 * @category operations
 * @since 0.1.0
 */
export const retryDelay = (reverts: number, policy: Pick<Policy, "retryBaseMillis" | "retryMaxMillis">): number => {
  const exponent = Math.max(0, Math.min(30, reverts - 1))
  return Math.min(policy.retryMaxMillis, policy.retryBaseMillis * 2 ** exponent)
}

/**
 * The gas limit for an estimate: the estimate with the policy's margin.
 *
 * @category operations
 * @since 0.1.0
 */
export const gasLimit = (estimate: bigint, policy: Pick<Policy, "gasMarginBps">): bigint =>
  (estimate * BigInt(Math.max(10_000, policy.gasMarginBps)) + 9_999n) / 10_000n

/**
 * The highest block number that is final now: the one with `confirmations`
 * confirmations (the block itself counts as one), and, under `finalized`
 * finality with a finalized block known, no higher than it. -1 when none is.
 *
 * @category operations
 * @since 0.1.0
 */
export const finalHeight = (
  head: Block,
  finalized: Block | null,
  confirmations: number,
  finality: Policy["finality"]
): bigint => {
  const byDepth = head.number - BigInt(Math.max(1, confirmations)) + 1n
  const final = finality === "finalized" && finalized !== null && finalized.number < byDepth
    ? finalized.number
    : byDepth
  return final < 0n ? -1n : final
}
