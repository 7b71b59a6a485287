/**
 * Simulated replicas: each one is the real engine (`Solver.layer`) in a scope
 * of its own, over the shared store and the chain models, with its own clock
 * (skewed as the faults decide), its own seeded entropy and the simulated
 * coordination. Every call it makes to the store, a chain or the lease passes
 * a gate where the faults are: a crash at that await point (before or after the
 * call), a freeze, a store write that fails, a coordination session cut off.
 * Internal to `testing/Simulation.ts`.
 */
import { Clock, type Context, Duration, Effect, Exit, Layer, Redacted, Scope } from "effect"
import type * as Chain from "../../Chain.ts"
import { type Connector, ConnectorUnavailable, type Registration } from "../../Connector.ts"
import { Coordination } from "../../Coordination.ts"
import * as Entropy from "../../Entropy.ts"
import * as Signer from "../../Signer.ts"
import * as Solver from "../../Solver.ts"
import { Store, StoreError, type StoreShape } from "../../Store.ts"
import * as SimulatedCoordination from "../../testing/SimulatedCoordination.ts"
import {
  onInventoryObserved,
  onIssued,
  onPaidPayout,
  onPublicationRecorded,
  onReasonCodes,
  onTransition,
  trouble
} from "./truth.ts"
import { fillMatches, type Replica, type SimChain, violate, type World } from "./world.ts"

/** Store operations that write (where the store-error fault strikes). */
const WRITES: ReadonlySet<string> = new Set([
  "nextDataVersion",
  "recordPublication",
  "savePublicationDocument",
  "setPaused",
  "setRouteOverride",
  "requestPublication",
  "configureInventory",
  "issuePermit",
  "transition",
  "setReasonCodes",
  "setPaidPayout",
  "observeInventory",
  "saveChainCursor",
  "savePayoutIntent",
  "markPayoutIntent",
  "addCounters",
  "saveQuote",
  "pruneQuotes",
  "prunePermits"
])

/** Wraps every operation of a store (effects and functions returning effects). */
export const wrapStore = (
  store: StoreShape,
  around: (name: string, effect: Effect.Effect<unknown, unknown>) => Effect.Effect<unknown, unknown>
): StoreShape =>
  Object.fromEntries(
    Object.entries(store).map(([name, value]) => [
      name,
      typeof value === "function"
        ? (...args: Array<unknown>) =>
          around(name, (value as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args))
        : Effect.isEffect(value)
        ? around(name, value as Effect.Effect<unknown, unknown>)
        : value
    ])
  ) as unknown as StoreShape

/**
 * The store every replica shares, reporting its changes to the ground truth. A write and its report are one
 * uninterruptible step: the database commits whatever happens to the process that asked (a crash interrupts its
 * fibers), and the ground truth must see every commit.
 */
export const observedStore = (world: World, store: StoreShape): StoreShape => {
  const wrapped = wrapStore(store, (_, effect) => effect)
  return {
    ...wrapped,
    issuePermit: (record, shares) =>
      Effect.uninterruptible(Effect.tap(store.issuePermit(record, shares), (result) =>
        Effect.sync(() => {
          if (result._tag === "Issued") onIssued(world, result.record)
        }))),
    transition: (request) =>
      Effect.uninterruptible(Effect.tap(store.transition(request), (result) =>
        Effect.sync(() => {
          if (result._tag === "Applied") onTransition(world, result.record, result.from)
        }))),
    setReasonCodes: (fillId, codes) =>
      Effect.uninterruptible(Effect.tap(store.setReasonCodes(fillId, codes), (record) =>
        Effect.sync(() => {
          if (record !== undefined) onReasonCodes(world, record)
        }))),
    ...(store.setPaidPayout === undefined ? {} : {
      setPaidPayout: (fillId: string, payoutTxHash: string, at: number) =>
        Effect.uninterruptible(
          Effect.tap(store.setPaidPayout!(fillId, payoutTxHash, at), (record) =>
            Effect.sync(() => {
              if (record !== undefined) onPaidPayout(world, record)
            }))
        )
    }),
    recordPublication: (publication) =>
      Effect.uninterruptible(Effect.tap(
        store.recordPublication(publication),
        (recorded) =>
          Effect.sync(() => {
            if (recorded) onPublicationRecorded(world, publication.dataVersion, publication.feedHash)
          })
      )),
    observeInventory: (assets) =>
      Effect.uninterruptible(Effect.tap(
        store.observeInventory(assets),
        () => Effect.sync(() => onInventoryObserved(world, assets.map((a) => a.assetKey)))
      ))
  }
}

const down = (what: string) => `${what}: the process is down`

/** Marks a replica dead: every call it makes from now on fails; the driver closes its scope. */
export const crash = (world: World, r: Replica, where: string) => {
  if (r.dead) return
  r.dead = true
  world.stats.crashes++
  world.trace.line(`crash ${r.name}.${r.incarnation} ${where}`)
  trouble(world, "*", world.now() + 30_000)
}

/**
 * The gate of one call of a replica: the faults armed on it strike here.
 * `failure` is the error the caller's interface knows (a StoreError, a
 * ConnectorUnavailable, a lost lease exchange).
 */
export const gate = <A, E, F>(
  world: World,
  r: Replica,
  kind: "store" | "chain" | "lease",
  name: string,
  effect: Effect.Effect<A, E>,
  failure: (message: string) => F
): Effect.Effect<A, E | F> =>
  Effect.suspend((): Effect.Effect<A, E | F> => {
    if (r.dead) return Effect.fail(failure(down(name)))
    const now = world.now()
    if (r.freeze !== null && --r.freeze.countdown <= 0) {
      r.frozenUntil = now + r.freeze.millis
      world.trace.line(`freeze ${r.name}.${r.incarnation} at ${name} for ${r.freeze.millis} ms`)
      trouble(world, "*", r.frozenUntil)
      r.freeze = null
    }
    if (now < r.frozenUntil) {
      // stopped: nothing of it runs until it is resumed
      return Effect.andThen(
        Effect.sleep(Duration.millis(r.frozenUntil - now)),
        gate(world, r, kind, name, effect, failure)
      )
    }
    if (r.crash !== null && --r.crash.countdown <= 0) {
      const after = r.crash.after
      r.crash = null
      if (!after) {
        crash(world, r, `before ${kind} ${name}`)
        return Effect.fail(failure(down(name)))
      }
      return Effect.flatMap(Effect.exit(effect), () => {
        crash(world, r, `after ${kind} ${name}`)
        return Effect.fail(failure(down(name)))
      })
    }
    if (kind === "store" && WRITES.has(name) && r.storeError !== null && --r.storeError.countdown <= 0) {
      const after = r.storeError.after
      r.storeError = null
      world.trace.line(`store error ${r.name} ${after ? "after" : "before"} ${name}`)
      const fail = Effect.fail(failure(`${name}: the database connection was lost (simulated)`))
      return after ? Effect.flatMap(Effect.exit(effect), () => fail) : fail
    }
    if (kind === "lease" && now < r.partitionedUntil) {
      return Effect.fail(failure(`${name}: the coordination session cannot reach the database (simulated)`))
    }
    return effect
  })

/** The replica's view of the store: through its gate, with its payout transactions recorded. */
const replicaStore = (world: World, r: Replica, shared: StoreShape): StoreShape => {
  const tracked: StoreShape = {
    ...shared,
    savePayoutIntent: (intent) =>
      Effect.tap(shared.savePayoutIntent(intent), () =>
        Effect.sync(() => {
          const hash = intent.txHash.toLowerCase()
          const fillId = intent.fillId.toLowerCase()
          if (!world.firstIntentAt.has(fillId)) world.firstIntentAt.set(fillId, world.now())
          if (!world.intents.has(hash)) {
            world.intents.set(hash, {
              fillId: intent.fillId.toLowerCase(),
              replica: r.holder,
              savedAt: world.now(),
              leaseHeld: SimulatedCoordination.holds(world.database, r.holder)
            })
          }
        }))
  }
  return wrapStore(
    tracked,
    (name, effect) =>
      gate(world, r, "store", name, effect, (message) => new StoreError({ operation: name, cause: message }))
  )
}

/** The replica's connection to a chain: through its gate, with what it asked and signed checked. */
const replicaChain = (world: World, r: Replica, chain: SimChain): Chain.NetworkChain => {
  const base = chain.model.chain
  const g = <A, E>(name: string, effect: Effect.Effect<A, E>) =>
    gate(world, r, "chain", name, effect, (message) => new ConnectorUnavailable({ code: "RPC_UNAVAILABLE", message }))
  const reader: Chain.ChainReader = {
    head: g("head", base.reader.head),
    finalized: g("finalized", base.reader.finalized),
    block: (n) => g("block", base.reader.block(n)),
    sourceFills: (from, to) => g("sourceFills", base.reader.sourceFills(from, to)),
    inclusion: (hash) =>
      Effect.tap(g("inclusion", base.reader.inclusion(hash)), () =>
        Effect.sync(() => {
          r.lastInclusion.set(hash.toLowerCase(), world.now())
        }))
  }
  const payer = base.payer
  return {
    reader,
    payer: payer === null ? null : {
      sender: payer.sender,
      nonces: g(
        "nonces",
        Effect.suspend(() => {
          r.passStart.set(chain.networkId, world.now())
          return payer.nonces
        })
      ),
      fees: g("fees", payer.fees),
      check: (order) => g("check", payer.check(order)),
      paidOut: (fillId) => g("paidOut", payer.paidOut(fillId)),
      // the lease is checked when the replica makes the call (before a freeze at this very call: a pause
      // inside the call is one no fence can close), the rest when the call is carried out
      sign: (order, tx) =>
        Effect.suspend(() => {
          checkLease(world, r, "signed a payout of", order.fillId)
          return g(
            "sign",
            Effect.suspend(() => {
              checkSigning(world, r, chain, order)
              return payer.sign(order, tx)
            })
          )
        }),
      send: (signed) =>
        Effect.suspend(() => {
          checkLease(world, r, "sent", signed.txHash)
          return g(
            "send",
            Effect.suspend(() => {
              checkSending(world, r, signed.txHash)
              return payer.send(signed)
            })
          )
        }),
      findPayout: (fillId) => g("findPayout", payer.findPayout(fillId)),
      balance: (asset) => g("balance", payer.balance(asset)),
      gasBalance: g("gasBalance", payer.gasBalance)
    }
  }
}

/**
 * A payout is signed only for a fill that is in the source chain, unless the
 * replica looked at the source since the fill left it (its RPC may lag; the
 * fill may leave after the check): signing without looking is paying for a
 * fill that is gone.
 */
const checkSigning = (world: World, r: Replica, chain: SimChain, order: Chain.PayoutOrder) => {
  const t = world.permits.get(order.fillId.toLowerCase())
  if (t === undefined) {
    return violate(world, "payouts", `${r.name} signed a payout of ${order.fillId}, which no permit has`)
  }
  if (t.destination !== chain) violate(world, "payouts", `${r.name} signed a payout of ${t.fillId} on ${chain.key}`)
  if (t.source === undefined) return
  const fill = t.source.model.sourceFillOf(t.fillId)
  if (fill !== undefined && fillMatches(t.permit, fill)) return
  if (t.genuineTxs.size === 0) {
    return violate(world, "payouts", `${r.name} signed a payout of ${t.fillId}, which was never filled`)
  }
  if (t.fillLeftAt === null) return
  // a fill that left after its payout was first signed is the lifecycle's accepted risk (an alert, if mined)
  const first = world.firstIntentAt.get(t.fillId)
  if (first !== undefined && first <= t.fillLeftAt) return
  const passStart = r.passStart.get(chain.networkId) ?? 0
  let looked = -1
  for (const tx of t.genuineTxs) looked = Math.max(looked, r.lastInclusion.get(tx) ?? -1)
  if (t.fillLeftAt < passStart && looked < t.fillLeftAt) {
    violate(
      world,
      "payouts",
      `${r.name} signed a payout of ${t.fillId} ${
        Math.round((world.now() - t.fillLeftAt) / 1000)
      } s after its fill left ${t.source.key}, without looking at the source since`
    )
  }
}

/**
 * A payout transaction is signed or sent only by the replica that holds the
 * lease at that moment (the database's lease row, on its clock). A process that
 * died makes no call.
 */
const checkLease = (world: World, r: Replica, what: string, subject: string) => {
  if (r.dead || SimulatedCoordination.holds(world.database, r.holder)) return
  const lease = world.database.lease
  violate(
    world,
    "lease",
    `${r.holder} ${what} ${subject} without the lease (held by ${lease.holder ?? "nobody"}${
      lease.holder !== null && lease.expiresAt <= world.database.now() ? ", expired" : ""
    })`
  )
}

/** A payout is sent only once stored, and only by the lease holder (or stored while it held the lease). */
const checkSending = (world: World, r: Replica, txHash: string) => {
  const intent = world.intents.get(txHash.toLowerCase())
  if (intent === undefined) return violate(world, "payouts", `${r.name} sent ${txHash} before storing it`)
  if (!intent.leaseHeld && !SimulatedCoordination.holds(world.database, r.holder)) {
    violate(world, "coordination", `${r.name} sent ${txHash} without the lease, stored by ${intent.replica} without it`)
  }
}

/** A clock `skew` milliseconds off the simulation's (read at every call: a fault may move it). */
const skewedClock = (world: World, base: Clock.Clock, r: Replica): Clock.Clock => ({
  currentTimeMillisUnsafe: () => base.currentTimeMillisUnsafe() + r.clockSkewMillis,
  currentTimeMillis: Effect.sync(() => base.currentTimeMillisUnsafe() + r.clockSkewMillis),
  currentTimeNanosUnsafe: () => base.currentTimeNanosUnsafe() + BigInt(r.clockSkewMillis) * 1_000_000n,
  currentTimeNanos: Effect.sync(() => base.currentTimeNanosUnsafe() + BigInt(r.clockSkewMillis) * 1_000_000n),
  monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
  monotonicTimeNanos: base.monotonicTimeNanos,
  // a freeze of the whole process (`freeze: "process"`): none of its timers fires before it resumes (its
  // lease watcher does not notice that its lease ran out while it was stopped); the ones due meanwhile fire then
  sleep: (duration) =>
    world.settings.freeze === "call" ? base.sleep(duration) : Effect.andThen(
      base.sleep(duration),
      Effect.suspend(() => {
        const left = r.frozenUntil - world.now()
        return left > 0 ? base.sleep(Duration.millis(left)) : Effect.void
      })
    )
})

/** What a replica is built from. */
export interface ReplicaSetup {
  readonly catalog: unknown
  readonly connectors: ReadonlyArray<Registration>
  readonly authorityKey: string
  readonly store: StoreShape
  readonly engine: Partial<Solver.SolverOptions>
  readonly parts: (replica: number) => Solver.SolverParts<unknown>
  readonly clock: Clock.Clock
}

const withSettlement = (world: World, r: Replica, connector: Connector): Connector => ({
  ...connector,
  settlement: {
    network: (target) => {
      const chain = world.chainByChainId.get(target.native)
      return Effect.succeed(
        chain === undefined || connector.family !== "EVM" ? null : replicaChain(world, r, chain)
      )
    }
  }
})

const replicaLayer = (world: World, r: Replica, setup: ReplicaSetup) => {
  const connectors = setup.connectors.map((c): Registration =>
    "connector" in c
      ? { connector: withSettlement(world, r, c.connector), networkId: c.networkId }
      : withSettlement(world, r, c)
  )
  const coordination = Layer.effect(
    Coordination,
    SimulatedCoordination.make(world.database, {
      holder: r.holder,
      checkMillis: world.settings.checkMillis,
      leaseMillis: world.settings.leaseMillis,
      via: (what, exchange) => gate(world, r, "lease", what, exchange, (message) => new Error(message)),
      crashed: () => r.dead
    })
  )
  const engine = Solver.layer({
    catalog: setup.catalog,
    publisher: {
      routeDetailTemplate: "https://solver.invalid/api/v6/routes/{routeId}",
      tickMillis: 2000,
      followMillis: 5000
    },
    settlement: { sweepMillis: 5000 },
    chainSettlement: {
      pollMillis: world.settings.pollMillis,
      callTimeoutMillis: world.settings.callTimeoutMillis,
      batchSize: world.settings.batchSize
    },
    routeMetrics: { flushMillis: 60_000 },
    connectors,
    ...setup.engine
  }, { coordination, ...setup.parts(r.index) })
  return engine.pipe(
    Layer.provideMerge(Layer.mergeAll(
      Layer.succeed(Store, replicaStore(world, r, setup.store)),
      Layer.succeed(Signer.Signer, Signer.fromPrivateKey(Redacted.make(setup.authorityKey))),
      Layer.succeed(Entropy.Entropy, Entropy.seeded(`${world.settings.seed}:${r.name}:${r.incarnation}`)),
      Layer.succeed(Clock.Clock, skewedClock(world, setup.clock, r))
    ))
  )
}

/** Starts a new incarnation of a replica: its engine is built in a fiber of its own (starting takes time). */
export const start = (world: World, r: Replica, setup: ReplicaSetup) =>
  Effect.gen(function*() {
    r.incarnation++
    r.dead = false
    r.status = "starting"
    r.context = null
    r.holder = `${r.name}.${r.incarnation}`
    r.servedDataVersion = 0n
    r.passStart.clear()
    r.lastInclusion.clear()
    r.frozenUntil = 0
    const scope = yield* Scope.make()
    r.scope = scope
    const incarnation = r.incarnation
    world.trace.line(`start ${r.holder}`)
    yield* Effect.forkDetach(
      Layer.buildWithScope(replicaLayer(world, r, setup), scope).pipe(
        Effect.flatMap((context) =>
          Effect.sync(() => {
            if (r.incarnation !== incarnation || r.dead) return
            r.context = context as Context.Context<Solver.Engine>
            r.status = "up"
            world.trace.line(`up ${r.holder}`)
          })
        ),
        Effect.catchCause((cause) =>
          Effect.sync(() => {
            if (r.incarnation !== incarnation) return
            world.trace.line(`start failed ${r.holder}: ${String(cause).split("\n")[0]}`)
            if (!r.dead) crash(world, r, "while starting")
          })
        )
      )
    )
  })

/** Closes a crashed replica's scope (its fibers interrupted, its memory lost); it restarts later. */
export const bury = (world: World, r: Replica, restartInMillis: number) =>
  Effect.gen(function*() {
    const scope = r.scope
    r.scope = null
    r.context = null
    r.status = "down"
    r.restartAt = world.now() + restartInMillis
    r.crash = null
    r.freeze = null
    r.storeError = null
    if (scope !== null) yield* Effect.exit(Scope.close(scope, Exit.void))
    world.trace.line(`down ${r.holder} until +${restartInMillis} ms`)
  })
