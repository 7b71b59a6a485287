/**
 * A deterministic simulation of the whole solver: the real engine (publisher,
 * permits with real signatures, pricing, inventory, the settlement runner with
 * its nonce, fee, retry and re-check policy) in several replicas over one
 * shared store, against a chain model for every EVM network of the catalog,
 * with clients and faults, all driven by one seeded random source and virtual
 * time (`TestClock`). The same seed gives the same run, byte for byte: its
 * trace hash says so.
 *
 * ```ts
 * import { EvmConnector } from "@svc/connector-evm"
 * import * as Simulation from "@svc/core/testing/Simulation"
 * import { SqliteStore } from "@svc/store"
 *
 * const result = await Effect.runPromise(Simulation.run({
 *   seed: 7,
 *   fills: 200,
 *   catalog,                                             // a catalog document
 *   store: SqliteStore.layer({ filename: ":memory:" }),  // shared by the replicas
 *   connectors: [EvmConnector.make()]                    // identities and ownership proofs
 * }))
 * // result.violations: every invariant that failed, with the step; result.trace: the run's hash
 * ```
 *
 * What runs, what faults strike, what the invariants are and how to replay a
 * failing seed: docs/simulation.md.
 *
 * @since 0.1.0
 */
import type { Hex } from "@svc/protocol/Bytes"
import * as Signature from "@svc/protocol/Signature"
import { Context, Effect, Exit, Layer, References, Scope } from "effect"
import type { LogLevel } from "effect"
import { TestClock } from "effect/testing"
import { createKeccak } from "hash-wasm"
import * as Catalog from "../Catalog.ts"
import { type Registration, registryLayer } from "../Connector.ts"
import * as clients from "../internal/simulation/clients.ts"
import { FAULT_NAMES, type FaultContext, type FaultName, faultStreams, strike } from "../internal/simulation/faults.ts"
import * as Random from "../internal/simulation/random.ts"
import { bury, observedStore, type ReplicaSetup, start } from "../internal/simulation/replicas.ts"
import {
  checkInventory,
  checkIsolation,
  checkServed,
  endChecks,
  owedOf,
  scan,
  type ScannedEvent
} from "../internal/simulation/truth.ts"
import type { Replica, SimChain, Stats, Violation, World } from "../internal/simulation/world.ts"
import { makeTrace } from "../internal/simulation/world.ts"
import * as PayoutPolicy from "../PayoutPolicy.ts"
import { Publisher } from "../Publisher.ts"
import type * as Solver from "../Solver.ts"
import { Store, type StoreError } from "../Store.ts"
import * as ChainModel from "./ChainModel.ts"
import * as SimulatedCoordination from "./SimulatedCoordination.ts"

/**
 * The faults the simulation can inject, by name (`--faults` takes a comma
 * separated list of them, `all` or `none`).
 *
 * @category constants
 * @since 0.1.0
 */
export const FAULTS: ReadonlyArray<FaultName> = FAULT_NAMES

export type { FaultName }

/**
 * The invariants a run checks (the `invariant` of a {@link Violation}).
 *
 * @category constants
 * @since 0.1.0
 */
export const INVARIANTS: Readonly<Record<string, string>> = {
  payouts:
    "no fillId paid twice; a payout pays its permit's amountOutRaw of its destination asset to its recipient, on its destination chain, for a fill in the source chain",
  coordination: "a payout transaction is sent only by the replica holding the lease (or stored while it held it)",
  lease: "a payout transaction is signed or sent only by the replica that holds the lease when it makes the call",
  liveness: "every fill that stays in the canonical source chain is paid within the bound after the faults stop",
  isolation:
    "a confirmed fill whose networks are calm is paid within the isolation bound, whatever happens on other networks",
  lifecycle: "each state change agrees with the chains when it is made",
  agreement: "once the chains settle, every permit's state agrees with them",
  readable: "every acknowledged permit stays readable, byte-identical, in the store's state",
  permits: "answers are signed by the authority, for the terms asked; invalid requests are refused",
  idempotency: "one permit per idempotency key",
  inventory: "holds, liabilities and commitments add up to the permits' states; payouts to the vault's movements",
  feeds: "dataVersions only increase, one feed each, and every feed verifies",
  fills: "a fill lands on its permit's source chain",
  ledger: "the store's transitions follow its own states",
  defects: "no request dies with a defect"
}

/**
 * Options of {@link run}.
 *
 * @category models
 * @since 0.1.0
 */
export interface SimulationOptions {
  readonly seed: number
  /** Client intents: permits asked for to be filled (each with its fill plan). */
  readonly fills: number
  /** Replicas sharing the store. Default 2. */
  readonly replicas?: number | undefined
  /** The faults that strike (default: all of {@link FAULTS}). */
  readonly faults?: ReadonlyArray<FaultName> | undefined
  /** The catalog document; every EVM network with a router and a vault gets a chain model. */
  readonly catalog: unknown
  /** The store the replicas share, built once per run (SQLite in memory, say). */
  readonly store: Layer.Layer<Store, StoreError>
  /**
   * The connectors of the engine (identities, ownership proofs): their
   * settlement is replaced by the chain models. The clients are EVM wallets.
   */
  readonly connectors: ReadonlyArray<Registration>
  /** Parts of the engine to replace in each replica (your own pricing, ...). */
  readonly parts?: ((replica: number) => Solver.SolverParts<unknown>) | undefined
  /** Options of the engine, over the simulation's. */
  readonly engine?: Partial<Solver.SolverOptions> | undefined
  /** The authority key (default: a fixed test key). */
  readonly authorityKey?: Hex | undefined
  /** Stop at the first violation (default false: run to the end and check everything). */
  readonly stopAtFirstViolation?: boolean | undefined
  /** Every line of the trace as it is written. */
  readonly onTrace?: ((line: string) => void) | undefined
  /** The engine's logs at and above this level (default: none). */
  readonly logLevel?: LogLevel.LogLevel | undefined
  /** Client intents per virtual second. Default 4. */
  readonly intentsPerSecond?: number | undefined
  /** How long after the faults stop every filled permit must be PAID, seconds. Default 900. */
  readonly quietBoundSeconds?: number | undefined
  /** How long a confirmed fill on calm networks may wait, seconds. Default 90. */
  readonly isolationBoundSeconds?: number | undefined
  /** Permits of one state read per settlement pass (`ChainSettlement` batchSize). Default 64. */
  readonly batchSize?: number | undefined
  /**
   * How long a vault the `vault-withdraw` fault drained waits for its top-up,
   * seconds, drawn between the two. Default [3, 60].
   */
  readonly topUpSeconds?: readonly [number, number] | undefined
  /**
   * What the `freeze` fault stops: the whole replica, none of whose timers
   * fires until it resumes (`"process"`, the default: a GC pause, a stopped
   * VM), or only the call it strikes, with the fiber making it (`"call"`).
   *
   * @since 0.2.0 the default is `"process"` (before: `"call"`)
   */
  readonly freeze?: "call" | "process" | undefined
}

/**
 * What a run did.
 *
 * @category models
 * @since 0.1.0
 */
export interface SimulationResult {
  readonly seed: number
  /** Client intents run. */
  readonly fills: number
  readonly violations: ReadonlyArray<Violation>
  /** SHA-256 of the whole trace, hex: the same seed and options give the same. */
  readonly trace: string
  readonly steps: number
  readonly virtualSeconds: number
  readonly stats: Stats
  /** The last lines of the trace (for a failure report). */
  readonly tail: ReadonlyArray<string>
}

export type { Stats, Violation }

/** The authority key of simulations (public test material). */
const AUTHORITY_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const
/** The payout key's address on every chain (the model checks the sender, not a signature). */
const OPERATOR = "0x00000000000000000000000000000000000000a1"
/** The simulation's clock starts here (2026-01-01), Unix ms. */
const START = 1_767_225_600_000
const TICK = 1000
const GWEI = 1_000_000_000n

/**
 * Runs one seed. The run has its own virtual clock; it fails only when the
 * store cannot be built.
 *
 * @category operations
 * @since 0.1.0
 */
export const run = (options: SimulationOptions): Effect.Effect<SimulationResult, unknown> =>
  Effect.scoped(simulate(options)).pipe(
    Effect.provide(TestClock.layer({ warningDelay: "1 hour" })),
    Effect.provideService(References.MinimumLogLevel, options.logLevel ?? "None"),
    Effect.provideService(References.TracerEnabled, false)
  )

const simulate = (options: SimulationOptions) =>
  Effect.gen(function*() {
    // the WebAssembly keccak compiles once per process, for real: before virtual time starts
    yield* Effect.promise(() => createKeccak(256))
    const testClock = yield* TestClock.testClockWith(Effect.succeed)
    yield* TestClock.setTime(START)
    const rng = Random.make(options.seed)
    const setupRng = rng.fork("setup")
    const settings = {
      seed: options.seed,
      fills: options.fills,
      replicas: Math.max(1, options.replicas ?? 2),
      faults: new Set<string>(options.faults ?? FAULTS),
      tickMillis: TICK,
      quietBoundMillis: (options.quietBoundSeconds ?? 900) * 1000,
      isolationBoundMillis: (options.isolationBoundSeconds ?? 90) * 1000,
      leaseMillis: 5000,
      checkMillis: 1000,
      callTimeoutMillis: 10_000,
      pollMillis: 1000,
      batchSize: options.batchSize ?? 64,
      topUpSeconds: options.topUpSeconds ?? [3, 60] as const,
      freeze: options.freeze ?? "process",
      stopAtFirstViolation: options.stopAtFirstViolation === true
    }
    const authorityKey = options.authorityKey ?? AUTHORITY_KEY
    const ceiling = PayoutPolicy.DEFAULTS.maxFeePerGas ?? 500n * GWEI

    // ---------------------------------------------------------------- the catalog and its chains
    const document = structuredClone(options.catalog) as { networks?: Array<Record<string, unknown>> }
    const finality = new Map<string, { mode: "finalized" | "depth"; lag: number | null }>()
    for (const n of document.networks ?? []) {
      if (n["vm"] !== "EVM") continue
      const mode = setupRng.chance(0.6) ? "finalized" : "depth"
      const lag = mode === "finalized" ? setupRng.int(2, 4) : setupRng.chance(0.5) ? null : 2
      finality.set(String(n["key"]), { mode, lag })
      n["settlement"] = {
        ...(n["settlement"] as object | undefined),
        finality: mode,
        replaceAfterBlocks: setupRng.pick([2, 3, 5]),
        maxInFlight: setupRng.pick([16, 16, 8])
      }
    }
    const catalog = yield* Catalog.Catalog.use(Effect.succeed).pipe(
      Effect.provide(Catalog.layer(document)),
      Effect.provide(registryLayer(options.connectors))
    )

    const world: World = {
      settings,
      rng,
      now: () => testClock.currentTimeMillisUnsafe(),
      startedAt: START,
      chains: [],
      chainByNetworkId: new Map(),
      chainByChainId: new Map(),
      database: SimulatedCoordination.makeDatabase(() => testClock.currentTimeMillisUnsafe()),
      replicas: [],
      permits: new Map(),
      intents: new Map(),
      firstIntentAt: new Map(),
      fillTxs: new Map(),
      issuedKeys: new Map(),
      states: new Map(),
      buckets: new Map(),
      payouts: new Map(),
      publications: new Map(),
      newestDataVersion: 0n,
      trouble: { until: new Map() },
      trace: makeTrace(options.onTrace),
      violations: [],
      step: 0,
      phase: "faults",
      quietSince: 0,
      stats: {
        intents: 0,
        requests: 0,
        acknowledged: 0,
        refused: 0,
        unanswered: 0,
        fillsSent: 0,
        fillsMined: 0,
        paid: 0,
        expired: 0,
        failed: 0,
        faults: {},
        crashes: 0,
        publications: 0,
        blocks: 0,
        longestQuietWait: 0
      },
      authority: Signature.addressOf(authorityKey),
      authorityKey
    }
    const chains = world.chains as Array<SimChain>
    const caps = new Map<string, bigint>()
    for (const network of catalog.networks) {
      const f = finality.get(network.key)
      if (f === undefined || network.chainId === null || network.router === null || network.vaultAddress === null) {
        continue
      }
      const blockMillis = setupRng.pick([1000, 2000, 3000])
      const assets = new Map<string, { assetId: string; cap: bigint | null }>()
      for (const a of catalog.assets) {
        if (a.network.key !== network.key || a.address === null) continue
        assets.set(a.address.toLowerCase(), { assetId: a.assetId.toLowerCase(), cap: a.inventoryRaw })
        if (a.inventoryRaw !== null) caps.set(a.assetId.toLowerCase(), a.inventoryRaw)
      }
      const chain: SimChain = {
        key: network.key,
        networkId: network.networkId.toLowerCase(),
        chainId: network.chainId,
        router: network.router.toLowerCase(),
        vault: network.vaultAddress.toLowerCase(),
        finality: f.mode === "finalized" && f.lag !== null ? "finalized" : "depth",
        finalityBlocks: network.finalityBlocks,
        finalizedLag: f.lag,
        blockMillis,
        nextBlockAt: START + setupRng.int(0, blockMillis),
        clockSkewMillis: 0,
        assets,
        seen: [],
        deepReorgAt: -Infinity,
        deepReorged: false,
        model: ChainModel.make({
          chainId: Number(network.chainId),
          router: network.router,
          vault: network.vaultAddress,
          operator: OPERATOR,
          finalizedLag: f.lag,
          genesisTimestamp: Math.floor(START / 1000) - 100,
          clock: () => (world.now() + chain.clockSkewMillis) / 1000,
          evictUnderpriced: setupRng.chance(0.5),
          ...(setupRng.chance(0.3) ? { maxPayoutsPerBlock: setupRng.pick([8, 16, 32]) } : {})
        })
      }
      for (const [address, { cap }] of assets) {
        const base = cap ?? 10n ** 24n
        chain.model.deposit(address, (base * BigInt(setupRng.int(30, 160))) / 100n)
      }
      chain.model.mine(5)
      chains.push(chain)
      ;(world.chainByNetworkId as Map<string, SimChain>).set(chain.networkId, chain)
      ;(world.chainByChainId as Map<string, SimChain>).set(chain.chainId, chain)
    }
    const scanned = new Map<SimChain, Array<Array<ScannedEvent>>>(chains.map((c) => [c, []]))
    const rescan = (chain: SimChain) => scan(world, chain, scanned.get(chain)!)
    for (const chain of chains) {
      rescan(chain)
      world.trace.line(
        `chain ${chain.key} ${chain.finality} finality ${chain.finalityBlocks} lag ${chain.finalizedLag} block ${chain.blockMillis} ms`
      )
    }

    // ---------------------------------------------------------------- the store and the replicas
    const rawStore = Context.get(yield* Layer.build(options.store), Store)
    const store = observedStore(world, rawStore)
    const setup: ReplicaSetup = {
      catalog: document,
      connectors: options.connectors,
      authorityKey,
      store,
      engine: options.engine ?? {},
      parts: options.parts ?? (() => ({})),
      clock: testClock
    }
    const replicas = world.replicas as Array<Replica>
    for (let i = 0; i < settings.replicas; i++) {
      replicas.push({
        index: i,
        name: `r${i}`,
        incarnation: 0,
        status: "down",
        dead: false,
        scope: null,
        context: null,
        crash: null,
        freeze: null,
        storeError: null,
        frozenUntil: 0,
        partitionedUntil: 0,
        clockSkewMillis: 0,
        restartAt: START,
        passStart: new Map(),
        lastInclusion: new Map(),
        servedDataVersion: 0n,
        holder: ""
      })
    }

    // ---------------------------------------------------------------- the driver
    const timers: Array<{ at: number; run: () => void }> = []
    const draining = new Set<string>()
    const faultContext: FaultContext = {
      world,
      at: (at, action) => timers.push({ at, run: action }),
      rescan,
      operator: OPERATOR,
      ceiling,
      draining
    }
    const streams = faultStreams(rng.fork("faults"))
    const clientRng = rng.fork("clients")
    const restartRng = rng.fork("restarts")
    const state = clients.makeClients(options.seed, 24)
    const clientContext: clients.ClientContext = {
      world,
      clients: state,
      rng: clientRng,
      up: () => replicas.filter((r) => r.status === "up" && !r.dead && r.context !== null),
      fork: (r, effect) => Effect.asVoid(Effect.forkIn(effect, r.scope!))
    }
    const rate = options.intentsPerSecond ?? 4
    let launched = 0
    let lastIntentAt = START
    let lastRelease = 0

    /** Deposits what the permits owe (and a margin) into vaults that run low, unless a withdrawal is under way. */
    const treasury = (margin: bigint) => {
      for (const chain of chains) {
        for (const [address, { assetId, cap }] of chain.assets) {
          const key = `${chain.key}:${address}`
          if (draining.has(key)) continue
          // what the permits hold on the asset (holds, liabilities, commitments), kept incrementally
          const b = world.buckets.get(assetId)
          const owed = b === undefined ? 0n : b.hold + b.liability + b.clearing
          const want = owed + ((cap ?? 10n ** 24n) * margin) / 100n
          const balance = chain.model.vaultBalance(address)
          if (balance < want) chain.model.deposit(address, want - balance)
        }
      }
    }

    /** The faults stop: every chain and replica is healed, the operator funds what waits. */
    const heal = () => {
      world.phase = "quiet"
      world.quietSince = world.now()
      world.trace.line("quiet: the faults stop")
      for (const chain of chains) {
        chain.model.rpc = "ok"
        chain.model.rpcLag = 0
        chain.model.fund(OPERATOR, 10n ** 21n)
        // the market may stay where it went, if that is well below the ceiling
        if (chain.model.baseFee() >= ceiling / 2n) chain.model.setBaseFee(GWEI * BigInt(restartRng.int(1, 30)))
      }
      for (const r of replicas) {
        r.crash = null
        r.freeze = null
        r.storeError = null
        r.partitionedUntil = 0
        if (r.status === "down") r.restartAt = world.now()
      }
      treasury(20n)
    }

    /** What an operator does for payouts that wait for them (`svc admin payouts retry`). */
    const release = Effect.gen(function*() {
      for (const fillId of owedOf(world)) {
        const t = world.permits.get(fillId)!
        if (t.state !== "PAYOUT_SUBMITTED" || !t.reasonCodes.includes("PAYOUT_NEEDS_OPERATOR")) continue
        const intents = yield* rawStore.payoutIntents(t.fillId)
        for (const i of intents) if (i.outcome === "REVERTED") yield* rawStore.markPayoutIntent(i.txHash, "RETRIED")
        yield* store.setReasonCodes(t.fillId, t.reasonCodes.filter((c) => c !== "PAYOUT_NEEDS_OPERATOR"))
        world.trace.line(`operator releases ${t.fillId}`)
      }
    })

    const settled = () =>
      state.fills.length === 0 && state.later.length === 0 && owedOf(world).size === 0 &&
      (world.states.get("ISSUED") ?? 0) === 0 && (world.states.get("SOURCE_OBSERVED") ?? 0) === 0 &&
      replicas.every((r) => r.status === "up")

    for (;;) {
      world.step++
      const now = world.now()
      // due actions: the faults' own ends, restarts
      for (let i = 0; i < timers.length;) {
        if (timers[i]!.at <= now) timers.splice(i, 1)[0]!.run()
        else i++
      }
      for (const r of replicas) if (r.status === "down" && now >= r.restartAt) yield* start(world, r, setup)
      if (world.phase === "faults") strike(faultContext, streams, TICK)
      if (world.step % 10 === 0) treasury(world.phase === "quiet" ? 20n : 5n)

      // clients
      if (world.phase === "faults" && launched < settings.fills) {
        const expected = (rate * TICK) / 1000
        let n = Math.floor(expected) + (clientRng.chance(expected - Math.floor(expected)) ? 1 : 0)
        while (n-- > 0 && launched < settings.fills) {
          launched++
          lastIntentAt = now
          yield* clients.intent(clientContext)
        }
      }
      const later = state.later.filter((l) => l.at <= now)
      if (later.length > 0) {
        state.later.splice(0, state.later.length, ...state.later.filter((l) => l.at > now))
        for (const l of later) yield* l.run()
      }
      const fills = state.fills.filter((f) => f.at <= now)
      if (fills.length > 0) {
        state.fills.splice(0, state.fills.length, ...state.fills.filter((f) => f.at > now))
        for (const f of fills) f.run()
      }
      if (clientRng.chance(0.5)) yield* clients.statusRead(clientContext)

      // the chains mine on their own clocks
      for (const chain of chains) {
        let mined = false
        while (chain.nextBlockAt <= now) {
          chain.model.mine()
          chain.nextBlockAt += chain.blockMillis
          mined = true
        }
        if (mined) rescan(chain)
      }

      // everything else runs for a tick of virtual time
      yield* testClock.adjust(TICK)

      for (const r of replicas) {
        if (r.dead && r.scope !== null) {
          yield* bury(world, r, world.phase === "quiet" ? 1000 : restartRng.int(1, 20) * 1000)
        }
      }
      // checks
      for (const r of replicas) {
        if (r.status !== "up" || r.context === null) continue
        const served = Context.get(r.context, Publisher).peek()
        if (served._tag === "Open") checkServed(world, r, served.publication)
      }
      if (world.step % 5 === 0) checkInventory(world, yield* rawStore.inventory(), caps)
      checkIsolation(world)

      if (settings.stopAtFirstViolation && world.violations.length > 0) break
      if (world.phase === "faults" && launched >= settings.fills && world.now() - lastIntentAt >= 60_000) heal()
      else if (world.phase === "quiet") {
        if (world.now() - lastRelease >= 30_000) {
          lastRelease = world.now()
          yield* release
        }
        // at least two of the engine's re-checks of finality by depth (every 30 s) before the end
        const quiet = world.now() - world.quietSince
        if ((settled() && quiet >= 90_000) || quiet >= settings.quietBoundMillis) {
          world.phase = "done"
          break
        }
      }
    }
    if (world.phase === "done") {
      checkInventory(world, yield* rawStore.inventory(), caps)
      endChecks(world)
    }
    world.trace.line(`end ${world.violations.length} violations`)
    for (const r of replicas) {
      if (r.scope !== null) {
        const scope = r.scope
        r.dead = true
        r.scope = null
        yield* Effect.exit(Scope.close(scope, Exit.void))
      }
    }
    return {
      seed: options.seed,
      fills: launched,
      violations: world.violations,
      trace: world.trace.digest(),
      steps: world.step,
      virtualSeconds: Math.round((world.now() - START) / 1000),
      stats: world.stats,
      tail: world.trace.tail()
    } satisfies SimulationResult
  })

/**
 * The one line every run ends with: `simulate: <n> seeds, <n> fills, <n>
 * violations, trace <hex>` (scripts rely on it); with several seeds, the trace
 * is the SHA-256 of their traces in order.
 *
 * @category operations
 * @since 0.1.0
 */
export const summaryLine = (seeds: number, fills: number, violations: number, trace: string): string =>
  `simulate: ${seeds} seeds, ${fills} fills, ${violations} violations, trace ${trace}`
