/**
 * The settlement runner over chain models (`@svc/core/testing/ChainModel`) for
 * the demo catalog's EVM networks: base (8453, finality 2), bsc (56, finality
 * 3) and hyperevm (999, finality 1), each with its router, vault and payout
 * key, the vaults funded; permits issued by the real permit service and filled
 * on the source model.
 */
import { assert } from "@effect/vitest"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import * as Signature from "@svc/protocol/Signature"
import { Effect, Layer, Stream, SubscriptionRef } from "effect"
import { TestClock } from "effect/testing"
import * as ChainSettlement from "../../src/ChainSettlement.ts"
import { Coordination } from "../../src/Coordination.ts"
import { Connector } from "../../src/index.ts"
import { Permits } from "../../src/Permits.ts"
import { Publisher } from "../../src/Publisher.ts"
import type * as Solver from "../../src/Solver.ts"
import { Store } from "../../src/Store.ts"
import * as ChainModel from "../../src/testing/ChainModel.ts"
import { demoCatalog, evm, makeEngine, PAYER_KEY } from "./engine.ts"
import type { MemoryStoreControl } from "./memoryStore.ts"

export const payer = Signature.addressOf(PAYER_KEY)
export const recipient = "0x2222222222222222222222222222222222222222"
export const ROUTER = "0x2af7d059e5efdbe1d2a234b78df91e948ee22ee2"
export const VAULT = "0x3d025a6376164aace132294b942203f1b22462cf"
export const OPERATOR = "0x00000000000000000000000000000000000000aa"
export const TOKENS = {
  "usdc.base": "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
  "usdt.bsc": "0x55d398326f99059ff775485246999027b3197955",
  "usdc.bsc": "0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d",
  "usdt0.hyperevm": "0xb8ce59fc3717ada4c02eadf9682a9e934f625ebb"
} as const

/** The test clock's start (and the chains' genesis), Unix seconds: a real date, not 1970. */
export const T0 = 1_767_225_600

export interface Setup {
  readonly base: ChainModel.ChainModel
  readonly bsc: ChainModel.ChainModel
  readonly hyperevm: ChainModel.ChainModel
  readonly layer: Layer.Layer<any, any, never>
  readonly store: MemoryStoreControl
}

export const setup = (options?: {
  readonly chainSettlement?: ChainSettlement.ChainSettlementOptions
  readonly model?: Partial<ChainModel.ChainModelOptions>
  /** Catalog settlement settings by network key. */
  readonly networks?: Readonly<Record<string, Record<string, unknown>>>
  readonly parts?: Solver.SolverParts
  readonly engine?: Partial<Solver.SolverOptions>
  /** Networks (by chain id) whose settlement the connector refuses at start, with its message. */
  readonly refuse?: Readonly<Record<string, string>>
}): Setup => {
  const model = (chainId: number) =>
    ChainModel.make({
      chainId,
      router: ROUTER,
      vault: VAULT,
      operator: OPERATOR,
      genesisTimestamp: T0,
      ...options?.model
    })
  const base = model(8453)
  const bsc = model(56)
  const hyperevm = model(999)
  base.deposit(TOKENS["usdc.base"], 10n ** 12n)
  bsc.deposit(TOKENS["usdt.bsc"], 10n ** 24n)
  bsc.deposit(TOKENS["usdc.bsc"], 10n ** 24n)
  hyperevm.deposit(TOKENS["usdt0.hyperevm"], 10n ** 12n)
  for (const m of [base, bsc, hyperevm]) m.mine(10)
  const byNative: Record<string, ChainModel.ChainModel> = { "8453": base, "56": bsc, "999": hyperevm }
  const settling = Connector.make({
    ...evm,
    settlement: {
      network: (target) =>
        options?.refuse?.[target.native] !== undefined
          ? Effect.fail(new Connector.ConnectorError({ code: "REFUSED", message: options.refuse[target.native]! }))
          : Effect.succeed(byNative[target.native]?.chain ?? null)
    }
  })
  const catalog = options?.networks === undefined ? undefined : withNetworkSettings(options.networks)
  const engine = makeEngine({
    connectors: [settling],
    chainSettlement: { pollMillis: 0, initialLookbackBlocks: 10, ...options?.chainSettlement },
    ...(catalog === undefined ? {} : { catalog }),
    ...options?.engine
  }, options?.parts)
  return { base, bsc, hyperevm, layer: engine.layer, store: engine.control }
}

const withNetworkSettings = (settings: Readonly<Record<string, Record<string, unknown>>>) => {
  const catalog = structuredClone(demoCatalog) as { networks: Array<Record<string, unknown>> }
  for (const n of catalog.networks) {
    const extra = settings[n["key"] as string]
    if (extra !== undefined) n["settlement"] = extra
  }
  return catalog
}

/**
 * Runs a test at the chains' time: the test clock is set to the genesis of the
 * models before the engine is built (so permits are issued in the chains' present).
 */
export const atChainTime = <A, E>(layer: Layer.Layer<any, any, never>, test: Effect.Effect<A, E, any>) =>
  Effect.andThen(TestClock.setTime(T0 * 1000 + 15_000), Effect.provide(test, layer)) as Effect.Effect<A, E | unknown>

/** Issues a permit on the first open route from `source` to `destination` chain ids. */
export const issuePermit = (source = "8453", destination = "56", units = 1n) =>
  Effect.gen(function*() {
    const publication = yield* (yield* Publisher).current
    const route = publication.routes.find((r) =>
      r.open && r.sourceChainId === source && r.destinationChainId === destination
    )
    if (route === undefined) return yield* Effect.die(new Error(`no open route ${source} -> ${destination}`))
    const request = {
      quoteId: route.quoteId,
      requestedAmountInRaw: (BigInt(route.minimumFillInRaw) * units).toString(),
      payer,
      recipient,
      idempotencyKey: `key-${keys++}-${source}-${destination}`
    }
    const message = PermitMessage.message(PermitMessage.normalize(request, { strict: false }))
    const issued = yield* (yield* Permits).create({
      ...request,
      requestSignature: PermitMessage.sign(message, PAYER_KEY)
    })
    return issued.envelope
  })

let keys = 0

export type Envelope = Effect.Success<ReturnType<typeof issuePermit>>

/** The router call of a permit, as its payer sends it. */
export const fillOf = (envelope: Envelope, overrides?: Partial<ChainModel.FillRequest>): ChainModel.FillRequest => {
  const p = envelope.permit
  return {
    fillId: p.fillId.toLowerCase(),
    routeId: p.routeId.toLowerCase(),
    quoteId: p.quoteId.toLowerCase(),
    payer: p.payer.toLowerCase(),
    recipient: p.recipient.toLowerCase(),
    sourceAsset: p.sourceAsset.toLowerCase(),
    destinationAsset: p.destinationAsset.toLowerCase(),
    destinationChainId: BigInt(p.destinationChainId),
    amountInRaw: BigInt(p.amountInRaw),
    amountOutRaw: BigInt(p.amountOutRaw),
    validAfter: Number(p.validAfter),
    validUntil: Number(p.validUntil),
    ...overrides
  }
}

export const stateOf = (fillId: string) =>
  Effect.gen(function*() {
    const record = yield* (yield* Store).getPermit(fillId.toLowerCase())
    if (record === undefined) return yield* Effect.die(new Error(`no permit ${fillId}`))
    return record
  })

/** One pass of every network's settlement loops. */
export const step = Effect.flatMap(ChainSettlement.ChainSettlement, (s) => s.step)

/** Steps the runner, mining a block on every model after each step, until `done` or `max` steps. */
export const stepUntil = (
  models: ReadonlyArray<{ mine: (n?: number) => void }>,
  done: Effect.Effect<boolean, unknown, any>,
  max = 30
) =>
  Effect.gen(function*() {
    for (let i = 0; i < max; i++) {
      yield* step
      if (yield* done) return i + 1
      for (const m of models) m.mine()
    }
    return assert.fail(`not done within ${max} steps`)
  })

/** Whether a permit is in `state`. */
export const inState = (fillId: string, state: string) => Effect.map(stateOf(fillId), (r) => r.state === state)

/** Issues a permit base -> bsc and mines its fill on base; returns the envelope. */
export const filled = (s: ReturnType<typeof setup>, units = 1n) =>
  Effect.gen(function*() {
    const envelope = yield* issuePermit("8453", "56", units)
    s.base.submitFill(fillOf(envelope))
    s.base.mine()
    return envelope
  })

/**
 * A coordination whose leadership the test sets (`SubscriptionRef.set(leads, …)`): `leads` answers the fence
 * (`isLeader`), and the settlement loops follow its changes, unless `loops: "leading"` keeps them running
 * whatever it says (the window between a lease running out and the watchdog noticing, or a process paused in
 * the middle of a pass).
 */
export const testCoordination = (options?: { readonly loops?: "follow" | "leading" }) => {
  const leads = Effect.runSync(SubscriptionRef.make(true))
  const layer = Layer.succeed(
    Coordination,
    Coordination.of({
      isLeader: SubscriptionRef.get(leads),
      leadership: options?.loops === "leading" ? Stream.make(true) : SubscriptionRef.changes(leads),
      announce: () => Effect.void,
      announcements: Effect.succeed(Stream.empty),
      description: "test"
    })
  )
  return { leads, layer }
}
