/**
 * The simulation's world: the chains, the replicas, the ground truth the
 * invariants are checked against (every permit the store issued, every fill and
 * payout on the chains), the trace and the violations. Internal to
 * `testing/Simulation.ts`.
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { toHex, utf8 } from "@svc/protocol/Bytes"
import type { ExecutionPermit } from "@svc/protocol/schema/Permit"
import type { Context, Scope } from "effect"
import type { SourceFill } from "../../Chain.ts"
import type { PermitState } from "../../Lifecycle.ts"
import type { Engine } from "../../Solver.ts"
import type { ChainModel } from "../../testing/ChainModel.ts"
import type { Database } from "../../testing/SimulatedCoordination.ts"
import type { Rng } from "./random.ts"

/** A violated invariant. */
export interface Violation {
  readonly invariant: string
  readonly step: number
  /** Virtual milliseconds since the start of the run. */
  readonly atMillis: number
  readonly detail: string
}

/** One simulated chain: a catalog network with its model. */
export interface SimChain {
  readonly key: string
  readonly networkId: string
  readonly chainId: string
  readonly model: ChainModel
  readonly router: string
  readonly vault: string
  /** The settlement rule the engine applies to it (the catalog's, or depth for a chain without a finalized tag). */
  readonly finality: "finalized" | "depth"
  readonly finalityBlocks: number
  /** How far the chain's own finalized block trails, or null when it has none. */
  readonly finalizedLag: number | null
  readonly blockMillis: number
  nextBlockAt: number
  /** The chain's clock against the simulation's, ms. */
  clockSkewMillis: number
  /** Destination assets paid out here: address (lowercase) → asset id and catalog cap. */
  readonly assets: Map<string, { readonly assetId: string; readonly cap: bigint | null }>
  /** Block hashes of the canonical chain as the scanner last saw them, by height. */
  readonly seen: Array<string>
  /** When a reorganisation last replaced a block the engine may have treated as final (finality by depth). */
  deepReorgAt: number
  /** Whether any reorganisation ever went beyond its finality (the lifecycle's accepted risk). */
  deepReorged: boolean
}

/** A fill plan a client follows for its permit. */
export type FillPlan =
  | "genuine"
  | "late"
  | "tampered"
  | "twice"
  | "replayed"
  | "abandoned"

/** What the simulation knows of a permit: what the store issued and what the clients and chains did. */
export interface PermitTruth {
  readonly fillId: string
  readonly permit: ExecutionPermit
  readonly assetKey: string
  readonly amountOut: bigint
  readonly source: SimChain | undefined
  readonly destination: SimChain | undefined
  readonly scopeKey: string
  state: PermitState
  reasonCodes: ReadonlyArray<string>
  sourceTxHash: string | null
  payoutTxHash: string | null
  /** Incremented on every change the store reports. */
  version: number
  /** The canonical text of the acknowledged envelope without its state and transaction hashes. */
  acked: string | null
  plan: FillPlan | null
  /** Transactions of fills the clients sent that match the permit, and that do not. */
  readonly genuineTxs: Set<string>
  readonly tamperedTxs: Set<string>
  /** When its matching fill left the canonical chain (the last time), if it did. */
  fillLeftAt: number | null
  /** When it last became SOURCE_CONFIRMED, and since when its networks have been calm for it. */
  confirmedAt: number | null
  issuedAt: number
  paidAt: number | null
}

/** A payout transaction the engine stored. */
export interface IntentTruth {
  readonly fillId: string
  readonly replica: string
  readonly savedAt: number
  /** Whether the replica that stored it held the lease then. */
  readonly leaseHeld: boolean
}

/** A simulated replica (one process of the deployment). */
export interface Replica {
  readonly index: number
  readonly name: string
  incarnation: number
  status: "starting" | "up" | "down"
  /** Crashed: every call it makes fails until its scope is closed. */
  dead: boolean
  scope: Scope.Closeable | null
  context: Context.Context<Engine> | null
  /** Faults armed at a random await point: after `countdown` more calls. */
  crash: { countdown: number; readonly after: boolean } | null
  freeze: { countdown: number; readonly millis: number } | null
  storeError: { countdown: number; readonly after: boolean } | null
  frozenUntil: number
  /** Its coordination session cannot reach the database until then. */
  partitionedUntil: number
  clockSkewMillis: number
  restartAt: number
  /** When its last payout pass started, by destination networkId. */
  readonly passStart: Map<string, number>
  /** When it last asked a chain about a transaction. */
  readonly lastInclusion: Map<string, number>
  /** The newest dataVersion it served. */
  servedDataVersion: bigint
  /** The holder name of its current incarnation in the lease row. */
  holder: string
}

/** Windows in which a network (or everything: `*`) is in trouble: the isolation invariant skips them. */
export interface Trouble {
  /** networkId or `*` → end of the latest trouble (Infinity while one lasts). */
  readonly until: Map<string, number>
}

export const troubleEnd = (trouble: Trouble, key: string): number => trouble.until.get(key) ?? -1

export const addTrouble = (trouble: Trouble, key: string, end: number) => {
  const current = trouble.until.get(key) ?? -1
  if (end > current) trouble.until.set(key, end)
}

/** The running hash of everything that happened, and the last lines for a failure report. */
export interface Trace {
  readonly line: (text: string) => void
  readonly digest: () => string
  readonly tail: () => ReadonlyArray<string>
  lines: number
}

export const makeTrace = (echo?: (line: string) => void): Trace => {
  const hash = sha256.create()
  const recent: Array<string> = []
  const trace: Trace = {
    lines: 0,
    line: (text) => {
      hash.update(utf8(text))
      hash.update(NEWLINE)
      trace.lines++
      recent.push(text)
      if (recent.length > 40) recent.shift()
      echo?.(text)
    },
    digest: () => toHex(hash.clone().digest()).slice(2),
    tail: () => [...recent]
  }
  return trace
}

const NEWLINE = new Uint8Array([10])

/** Settings of the run, resolved. */
export interface Settings {
  readonly seed: number
  readonly fills: number
  readonly replicas: number
  readonly faults: ReadonlySet<string>
  readonly tickMillis: number
  readonly quietBoundMillis: number
  readonly isolationBoundMillis: number
  readonly leaseMillis: number
  readonly checkMillis: number
  readonly callTimeoutMillis: number
  readonly pollMillis: number
  readonly batchSize: number
  /** How long a drained vault waits for its top-up, seconds (the least and the most). */
  readonly topUpSeconds: readonly [number, number]
  /** What a freeze stops: the call it strikes (and the fiber making it), or the whole replica with its timers. */
  readonly freeze: "call" | "process"
  readonly stopAtFirstViolation: boolean
}

/** The whole simulated world. */
export interface World {
  readonly settings: Settings
  readonly rng: Rng
  /** Virtual time now (ms since the Unix epoch, the simulation's own clock). */
  readonly now: () => number
  readonly startedAt: number
  readonly chains: ReadonlyArray<SimChain>
  readonly chainByNetworkId: ReadonlyMap<string, SimChain>
  readonly chainByChainId: ReadonlyMap<string, SimChain>
  readonly database: Database
  readonly replicas: ReadonlyArray<Replica>
  readonly permits: Map<string, PermitTruth>
  /** Payout transactions stored, by hash. */
  readonly intents: Map<string, IntentTruth>
  /** When the first payout transaction of a fillId was stored. */
  readonly firstIntentAt: Map<string, number>
  /** Fills sent by the clients, by transaction hash: the fillId and whether they match their permit. */
  readonly fillTxs: Map<string, { readonly fillId: string; readonly genuine: boolean }>
  /** Idempotency (scope, key) → the fillId issued for it. */
  readonly issuedKeys: Map<string, string>
  /** How many permits are in each state. */
  readonly states: Map<PermitState, number>
  /** Expected inventory buckets by asset key. */
  readonly buckets: Map<string, { hold: bigint; liability: bigint; clearing: bigint }>
  /** The canonical payouts by fillId (chain key and transaction). */
  readonly payouts: Map<string, { readonly chain: string; readonly txHash: string }>
  /** Publications: dataVersion → feedHash, and the newest recorded. */
  readonly publications: Map<string, string>
  newestDataVersion: bigint
  readonly trouble: Trouble
  readonly trace: Trace
  readonly violations: Array<Violation>
  step: number
  phase: "faults" | "quiet" | "done"
  /** When the faults stopped. */
  quietSince: number
  readonly stats: Stats
  readonly authority: string
  /** The authority's key: a deterministic signature is checked by signing again (faster than recovering). */
  readonly authorityKey: string
}

export interface Stats {
  intents: number
  requests: number
  acknowledged: number
  refused: number
  unanswered: number
  fillsSent: number
  fillsMined: number
  paid: number
  expired: number
  failed: number
  faults: Record<string, number>
  crashes: number
  publications: number
  blocks: number
  /** The longest wait from the end of the faults to PAID, ms. */
  longestQuietWait: number
}

export const violate = (world: World, invariant: string, detail: string) => {
  const v: Violation = { invariant, step: world.step, atMillis: world.now() - world.startedAt, detail }
  world.violations.push(v)
  world.trace.line(`VIOLATION ${invariant}: ${detail}`)
}

/** One reason code per field of a fill that differs from its permit (as settlement checks them). */
export const fillMatches = (permit: ExecutionPermit, fill: SourceFill): boolean => {
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()
  return same(permit.sourceRouter, fill.router) && same(permit.payer, fill.payer) &&
    same(permit.recipient, fill.recipient) && same(permit.sourceAsset, fill.sourceAsset) &&
    same(permit.destinationAsset, fill.destinationAsset) &&
    BigInt(permit.destinationChainId) === fill.destinationChainId &&
    BigInt(permit.amountInRaw) === fill.amountInRaw && BigInt(permit.amountOutRaw) === fill.amountOutRaw &&
    same(permit.routeId, fill.routeId) && same(permit.quoteId, fill.quoteId)
}

/**
 * The simulation's own bucket of each state (written here, not taken from
 * `Lifecycle`, so that a wrong mapping there is seen).
 */
export const bucketOfState = (state: PermitState): "hold" | "liability" | "clearing" | null => {
  switch (state) {
    case "ISSUED":
      return "hold"
    case "SOURCE_OBSERVED":
    case "SOURCE_CONFIRMED":
      return "liability"
    case "PAYOUT_SUBMITTED":
      return "clearing"
    default:
      return null
  }
}

/** The height up to which a chain's blocks are final by the rule the engine applies to it. */
export const finalHeight = (chain: SimChain): bigint => {
  const head = chain.model.head().number
  const byDepth = head - BigInt(Math.max(1, chain.finalityBlocks)) + 1n
  if (chain.finality === "finalized" && chain.finalizedLag !== null) {
    const finalized = head - BigInt(chain.finalizedLag)
    return finalized < byDepth ? finalized : byDepth
  }
  return byDepth
}
