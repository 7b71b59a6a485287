/**
 * The faults of the simulation, each a named generator driven by the seed: at
 * every step it may strike (with its own rate), choosing where and how much
 * from its own random stream, and it schedules its own end. Internal to
 * `testing/Simulation.ts`.
 */
import type { Rng } from "./random.ts"
import { owedOf, trouble } from "./truth.ts"
import type { Replica, SimChain, World } from "./world.ts"

/** Every fault the simulation knows, by name. */
export const FAULT_NAMES = [
  "reorg",
  "deep-reorg",
  "rpc-refuse",
  "rpc-hang",
  "rpc-lag",
  "rpc-flap",
  "drop-tx",
  "base-fee",
  "nonce-taken",
  "vault-withdraw",
  "gas-out",
  "store-error",
  "crash",
  "freeze",
  "lease-loss",
  "clock-skew"
] as const

export type FaultName = typeof FAULT_NAMES[number]

/** What the faults need of the driver. */
export interface FaultContext {
  readonly world: World
  /** Runs `action` at virtual time `at`. */
  readonly at: (at: number, action: () => void) => void
  /** Records the chain's new blocks (after a change the fault made). */
  readonly rescan: (chain: SimChain) => void
  /** The payout key's address on every chain. */
  readonly operator: string
  /** The fee ceiling of the chains, wei. */
  readonly ceiling: bigint
  /** An asset's balance in a chain's vault is being drained now (the treasury leaves it alone). */
  readonly draining: Set<string>
}

interface Generator {
  readonly name: FaultName
  /** Mean virtual milliseconds between two strikes. */
  readonly meanMillis: number
  readonly strike: (ctx: FaultContext, rng: Rng) => string | undefined
}

const GWEI = 1_000_000_000n

const upReplicas = (world: World) => world.replicas.filter((r) => r.status === "up" && !r.dead)
const leader = (world: World): Replica | undefined =>
  world.replicas.find((r) => r.holder === world.database.lease.holder && r.status === "up" && !r.dead)

const GENERATORS: ReadonlyArray<Generator> = [
  {
    name: "reorg",
    meanMillis: 25_000,
    strike: ({ world, rescan }, rng) => {
      // within what the engine may treat as final: the finalized block never moves; under depth, fewer blocks
      const chain = rng.pick(world.chains)
      const limit = chain.finality === "finalized" && chain.finalizedLag !== null
        ? chain.finalizedLag
        : chain.finalityBlocks - 1
      if (limit < 1) return undefined
      const depth = rng.int(1, limit)
      chain.model.reorg(depth, { keep: () => rng.chance(0.8) })
      rescan(chain)
      trouble(world, chain.networkId, world.now())
      return `${chain.key} depth ${depth}`
    }
  },
  {
    name: "deep-reorg",
    meanMillis: 60_000,
    strike: ({ world, rescan }, rng) => {
      // beyond the confirmations, where finality is a depth (a public chain's worst day)
      const chains = world.chains.filter((c) => c.finality === "depth")
      if (chains.length === 0) return undefined
      const chain = rng.pick(chains)
      const depth = chain.finalityBlocks + rng.int(0, 3)
      chain.model.reorg(depth, { keep: () => rng.chance(0.6) })
      chain.deepReorgAt = world.now()
      chain.deepReorged = true
      rescan(chain)
      trouble(world, chain.networkId, world.now())
      return `${chain.key} depth ${depth}`
    }
  },
  ...(["refuse", "hang"] as const).map((mode): Generator => ({
    name: `rpc-${mode}`,
    meanMillis: mode === "refuse" ? 60_000 : 90_000,
    strike: ({ at, world }, rng) => {
      const chain = rng.pick(world.chains)
      if (chain.model.rpc !== "ok") return undefined
      const millis = rng.int(2, mode === "refuse" ? 20 : 40) * 1000
      chain.model.rpc = mode
      const end = world.now() + millis
      at(end, () => {
        if (chain.model.rpc === mode) chain.model.rpc = "ok"
      })
      trouble(world, chain.networkId, end)
      return `${chain.key} for ${millis} ms`
    }
  })),
  {
    name: "rpc-lag",
    meanMillis: 60_000,
    strike: ({ at, world }, rng) => {
      const chain = rng.pick(world.chains)
      if (chain.model.rpcLag !== 0) return undefined
      const blocks = rng.int(1, 4)
      const millis = rng.int(5, 30) * 1000
      chain.model.rpcLag = blocks
      const end = world.now() + millis
      at(end, () => {
        chain.model.rpcLag = 0
      })
      trouble(world, chain.networkId, end)
      return `${chain.key} ${blocks} blocks behind for ${millis} ms`
    }
  },
  {
    name: "rpc-flap",
    meanMillis: 80_000,
    strike: ({ at, world }, rng) => {
      // a balancer in front of nodes at different heights: every answer from another one
      const chain = rng.pick(world.chains)
      if (chain.model.rpcLag !== 0) return undefined
      const spread = rng.int(1, 3)
      const millis = rng.int(5, 30) * 1000
      const draws = rng.fork(`flap-${world.step}`)
      const lag = () => draws.int(0, spread)
      chain.model.rpcLag = lag
      const end = world.now() + millis
      at(end, () => {
        if (chain.model.rpcLag === lag) chain.model.rpcLag = 0
      })
      trouble(world, chain.networkId, end)
      return `${chain.key} 0..${spread} blocks behind for ${millis} ms`
    }
  },
  {
    name: "drop-tx",
    meanMillis: 30_000,
    strike: ({ world }, rng) => {
      const chain = rng.pick(world.chains)
      const pool = chain.model.pool()
      if (pool.length === 0) return undefined
      const tx = rng.pick(pool)
      chain.model.dropTransaction(tx.hash, { only: rng.chance(0.5) })
      trouble(world, chain.networkId, world.now())
      return `${chain.key} ${tx.hash.slice(0, 10)} nonce ${tx.nonce}`
    }
  },
  {
    name: "base-fee",
    meanMillis: 70_000,
    strike: ({ at, ceiling, world }, rng) => {
      // the market moves and stays: payouts sent before are stuck until replaced; past the ceiling they wait
      const chain = rng.pick(world.chains)
      const factor = rng.pick([0n, 3n, 10n, 50n, 200n, 800n])
      const fee = factor === 0n ? GWEI : GWEI * factor
      chain.model.setBaseFee(fee)
      let end = world.now()
      if (fee >= ceiling) {
        const millis = rng.int(10, 60) * 1000
        end += millis
        at(end, () => chain.model.setBaseFee(GWEI * BigInt(rng.int(1, 20))))
      }
      trouble(world, chain.networkId, end)
      return `${chain.key} ${fee / GWEI} gwei`
    }
  },
  {
    name: "nonce-taken",
    meanMillis: 80_000,
    strike: ({ rescan, world }, rng) => {
      const chain = rng.pick(world.chains)
      chain.model.useNonce()
      rescan(chain)
      trouble(world, chain.networkId, world.now())
      return chain.key
    }
  },
  {
    name: "vault-withdraw",
    meanMillis: 50_000,
    strike: ({ at, draining, world }, rng) => {
      // the owner moves funds out; the top-up comes later, racing the payouts that wait for it
      const chain = rng.pick(world.chains)
      const assets = [...chain.assets.keys()]
      if (assets.length === 0) return undefined
      const asset = rng.pick(assets)
      const key = `${chain.key}:${asset}`
      if (draining.has(key)) return undefined
      const balance = chain.model.vaultBalance(asset)
      // mostly drained to less than what is owed there (payouts revert or wait), else a part of it
      const owed: Array<bigint> = []
      for (const fillId of owedOf(world)) {
        const t = world.permits.get(fillId)!
        if (t.destination === chain && t.permit.destinationAsset.toLowerCase() === asset) owed.push(t.amountOut)
      }
      let leave = 0n
      for (const amount of owed.slice(0, rng.int(0, owed.length))) leave += amount
      const amount = rng.chance(0.7)
        ? balance - (leave < balance ? leave : balance)
        : (balance * BigInt(rng.int(10, 70))) / 100n
      if (amount <= 0n) return undefined
      chain.model.withdraw(asset, amount)
      draining.add(key)
      const millis = rng.int(world.settings.topUpSeconds[0], world.settings.topUpSeconds[1]) * 1000
      const end = world.now() + millis
      at(end, () => {
        chain.model.deposit(asset, (amount * BigInt(rng.int(100, 150))) / 100n)
        draining.delete(key)
      })
      trouble(world, chain.networkId, end)
      return `${chain.key} ${asset.slice(0, 10)} ${amount} for ${millis} ms`
    }
  },
  {
    name: "gas-out",
    meanMillis: 150_000,
    strike: ({ at, operator, world }, rng) => {
      const chain = rng.pick(world.chains)
      const balance = chain.model.nativeBalance(operator)
      chain.model.fund(operator, -(balance - 10n ** 12n))
      const millis = rng.int(5, 60) * 1000
      const end = world.now() + millis
      at(end, () => chain.model.fund(operator, balance))
      trouble(world, chain.networkId, end)
      return `${chain.key} for ${millis} ms`
    }
  },
  {
    name: "store-error",
    meanMillis: 20_000,
    strike: ({ world }, rng) => {
      const up = upReplicas(world)
      if (up.length === 0) return undefined
      const r = rng.pick(up)
      if (r.storeError !== null) return undefined
      r.storeError = { countdown: rng.int(1, 150), after: rng.chance(0.4) }
      trouble(world, "*", world.now() + 30_000)
      return `${r.holder} ${r.storeError.after ? "after" : "before"} write ${r.storeError.countdown}`
    }
  },
  {
    name: "crash",
    meanMillis: 60_000,
    strike: ({ world }, rng) => {
      const up = upReplicas(world)
      if (up.length === 0) return undefined
      const r = rng.pick(up)
      if (r.crash !== null) return undefined
      r.crash = { countdown: rng.int(1, 400), after: rng.chance(0.5) }
      return `${r.holder} at call ${r.crash.countdown} ${r.crash.after ? "after" : "before"} it`
    }
  },
  {
    name: "freeze",
    meanMillis: 90_000,
    strike: ({ world }, rng) => {
      const up = upReplicas(world)
      if (up.length === 0) return undefined
      const r = rng.pick(up)
      if (r.freeze !== null) return undefined
      r.freeze = { countdown: rng.int(1, 400), millis: rng.int(1, 15) * 1000 }
      return `${r.holder} at call ${r.freeze.countdown} for ${r.freeze.millis} ms`
    }
  },
  {
    name: "lease-loss",
    meanMillis: 90_000,
    strike: ({ world }, rng) => {
      const r = leader(world)
      if (r === undefined) return undefined
      const millis = rng.int(2, 15) * 1000
      r.partitionedUntil = world.now() + millis
      trouble(world, "*", r.partitionedUntil)
      return `${r.holder} cut off for ${millis} ms`
    }
  },
  {
    name: "clock-skew",
    meanMillis: 100_000,
    strike: ({ world }, rng) => {
      if (rng.chance(0.5)) {
        const chain = rng.pick(world.chains)
        chain.clockSkewMillis = rng.int(-45, 45) * 1000
        trouble(world, chain.networkId, world.now())
        return `${chain.key} ${chain.clockSkewMillis} ms`
      }
      const r = rng.pick(world.replicas)
      r.clockSkewMillis = rng.int(-20, 20) * 1000
      trouble(world, "*", world.now())
      return `${r.name} ${r.clockSkewMillis} ms`
    }
  }
]

/** One step of every enabled fault generator. */
export const strike = (ctx: FaultContext, rngs: ReadonlyMap<string, Rng>, tickMillis: number) => {
  for (const g of GENERATORS) {
    if (!ctx.world.settings.faults.has(g.name)) continue
    const rng = rngs.get(g.name)!
    if (!rng.chance(tickMillis / g.meanMillis)) continue
    const what = g.strike(ctx, rng)
    if (what === undefined) continue
    ctx.world.stats.faults[g.name] = (ctx.world.stats.faults[g.name] ?? 0) + 1
    ctx.world.trace.line(`fault ${g.name} ${what}`)
  }
}

/** Independent random streams, one per generator. */
export const faultStreams = (rng: Rng): ReadonlyMap<string, Rng> =>
  new Map(GENERATORS.map((g) => [g.name, rng.fork(`fault:${g.name}`)]))
