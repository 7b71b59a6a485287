/**
 * The simulation's clients: wallets asking replicas for permits (valid ones,
 * duplicated, concurrent twins on two replicas, conflicting, badly signed,
 * amounts at the edges), checking every answer (the authority's signature, the
 * terms asked for, one permit per key), then filling their permits on the
 * source chain as their plan says (genuine, late, tampered, twice, replayed,
 * never) and reading their status. Internal to `testing/Simulation.ts`.
 */
import { type Hex, keccakUtf8 } from "@svc/protocol/Bytes"
import * as PermitDigest from "@svc/protocol/PermitDigest"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import type { Route } from "@svc/protocol/schema/Feed"
import type { ExecutionPermitEnvelope, PermitCreateRequest } from "@svc/protocol/schema/Permit"
import * as Signature from "@svc/protocol/Signature"
import { Cause, Context, Effect, Exit } from "effect"
import { PermitError } from "../../PermitError.ts"
import { Permits } from "../../Permits.ts"
import { Publisher } from "../../Publisher.ts"
import type { FillRequest } from "../../testing/ChainModel.ts"
import type { Rng } from "./random.ts"
import { ackedText, signedByAuthority } from "./truth.ts"
import { type FillPlan, type PermitTruth, type Replica, violate, type World } from "./world.ts"

/** A wallet of the simulation (a test key derived from the seed). */
export interface Wallet {
  readonly key: Hex
  readonly address: string
}

/** What the clients keep between steps. */
export interface Clients {
  readonly wallets: ReadonlyArray<Wallet>
  /** Fills to send, by due time. */
  readonly fills: Array<{ readonly at: number; readonly run: () => void }>
  /** Acknowledged permits, for status reads and replays. */
  readonly acked: Array<{ readonly fillId: string; readonly request: PermitCreateRequest; readonly wallet: Wallet }>
  /** Intents still to start, and retries due. */
  readonly later: Array<{ readonly at: number; readonly run: () => Effect.Effect<void> }>
  keys: number
}

export const makeClients = (seed: number, count: number): Clients => ({
  wallets: Array.from({ length: count }, (_, i) => {
    const key = keccakUtf8(`svc-simulation-wallet:${seed}:${i}`)
    return { key, address: Signature.addressOf(key) }
  }),
  fills: [],
  acked: [],
  later: [],
  keys: 0
})

/** What a request is for, which decides what answer is right. */
type Kind =
  | "valid"
  | "duplicate"
  | "twin"
  | "bad-signature"
  | "conflict"
  | "replay-bad-signature"
  | "below-minimum"
  | "zero"

interface Context_ {
  readonly world: World
  readonly clients: Clients
  readonly rng: Rng
  /** Up replicas (the ones a client can reach). */
  readonly up: () => ReadonlyArray<Replica>
  /** Forks a request into a replica's scope (it dies with the replica). */
  readonly fork: (r: Replica, effect: Effect.Effect<void>) => Effect.Effect<void>
}
export type ClientContext = Context_

const services = (r: Replica) => {
  const context = r.context!
  return { permits: Context.get(context, Permits), publisher: Context.get(context, Publisher) }
}

/** Routes a client may use: open for permits, both ends simulated chains. */
const usable = (world: World, routes: ReadonlyArray<Route>) =>
  routes.filter((r) =>
    r.open && r.permitAvailable && r.sourceChainId !== null && r.destinationChainId !== null &&
    world.chainByChainId.has(r.sourceChainId) && world.chainByChainId.has(r.destinationChainId)
  )

const signed = (request: Omit<PermitCreateRequest, "requestSignature">, key: Hex): PermitCreateRequest => {
  const message = PermitMessage.message(PermitMessage.normalize(request, { strict: false }))
  return { ...request, requestSignature: PermitMessage.sign(message, key) } as PermitCreateRequest
}

type Outcome =
  | { readonly _tag: "Ok"; readonly envelope: ExecutionPermitEnvelope; readonly created: boolean }
  | { readonly _tag: "Refused"; readonly reason: string; readonly retryable: boolean }
  | { readonly _tag: "NoAnswer" }

/** One request to one replica, as the client sees it (a replica that died gives no answer). */
const ask = (ctx: Context_, r: Replica, request: PermitCreateRequest, clientKey: string) =>
  Effect.gen(function*() {
    const incarnation = r.incarnation
    ctx.world.stats.requests++
    const exit = yield* Effect.exit(
      services(r).permits.create(request, { clientKey }).pipe(Effect.provide(r.context!))
    )
    if (r.dead || r.incarnation !== incarnation) return { _tag: "NoAnswer" } as Outcome
    if (Exit.isSuccess(exit)) {
      return { _tag: "Ok", envelope: exit.value.envelope, created: exit.value.created } as Outcome
    }
    const error = Cause.findErrorOption(exit.cause)
    if (error._tag === "Some" && error.value instanceof PermitError) {
      const reason = error.value.reason._tag
      return {
        _tag: "Refused",
        reason,
        retryable: reason === "Unavailable" || reason === "IdempotencyInProgress" || reason === "RateLimited"
      } as Outcome
    }
    if (Cause.hasInterruptsOnly(exit.cause)) return { _tag: "NoAnswer" } as Outcome
    violate(ctx.world, "defects", `${r.name}: a permit request died: ${Cause.pretty(exit.cause).split("\n")[0]}`)
    return { _tag: "NoAnswer" } as Outcome
  })

/** Checks an acknowledged permit: signed by the authority, for the terms asked, the same on every answer. */
const acknowledge = (
  ctx: Context_,
  r: Replica,
  kind: Kind,
  request: PermitCreateRequest,
  wallet: Wallet,
  outcome: Extract<Outcome, { _tag: "Ok" }>
): PermitTruth | undefined => {
  const { world } = ctx
  const envelope = outcome.envelope
  const permit = envelope.permit
  const fillId = permit.fillId.toLowerCase()
  if (kind === "bad-signature" || kind === "replay-bad-signature") {
    violate(world, "permits", `${r.name} answered a badly signed request with permit ${fillId}`)
  }
  if (kind === "below-minimum" || kind === "zero") {
    violate(
      world,
      "permits",
      `${r.name} issued ${fillId} for ${request.requestedAmountInRaw}, outside the route's limits`
    )
  }
  const digest = PermitDigest.digest(permit)
  if (
    envelope.permitDigest.toLowerCase() !== digest.toLowerCase() ||
    !signedByAuthority(world, digest, envelope.permitSignature)
  ) {
    violate(world, "permits", `${r.name}: permit ${fillId}'s signature does not recover to the authority`)
  }
  const same = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase()
  if (
    !same(permit.payer, wallet.address) || !same(permit.recipient, request.recipient ?? "") ||
    permit.amountInRaw !== BigInt(request.requestedAmountInRaw).toString() ||
    permit.quoteId.toLowerCase() !== request.quoteId.toLowerCase() ||
    envelope.idempotencyKey !== request.idempotencyKey
  ) {
    violate(
      world,
      "permits",
      `${r.name} answered ${kind} request ${request.idempotencyKey} with a permit for other terms`
    )
  }
  const t = world.permits.get(fillId)
  if (t === undefined) {
    violate(world, "permits", `${r.name} acknowledged ${fillId}, which the store never issued`)
    return undefined
  }
  const text = ackedText(envelope as unknown as Record<string, unknown>)
  if (t.acked === null) {
    t.acked = text
    world.stats.acknowledged++
    world.trace.line(`ack ${fillId} by ${r.name} ${outcome.created ? "created" : "replayed"}`)
    return t
  }
  if (t.acked !== text) violate(world, "permits", `two answers for ${fillId} differ`)
  return undefined
}

const fillOf = (t: PermitTruth, overrides?: Partial<FillRequest>): FillRequest => {
  const p = t.permit
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

/** Sends a fill to the permit's source router (mined with the chain's next block). */
const sendFill = (world: World, t: PermitTruth, genuine: boolean, overrides?: Partial<FillRequest>) => {
  const chain = t.source
  if (chain === undefined) return
  const hash = chain.model.submitFill(fillOf(t, overrides)).toLowerCase()
  world.fillTxs.set(hash, { fillId: t.fillId, genuine })
  if (genuine) t.genuineTxs.add(hash)
  else t.tamperedTxs.add(hash)
  world.stats.fillsSent++
  world.trace.line(`fill ${genuine ? "genuine" : "tampered"} ${t.fillId} ${hash.slice(0, 10)}`)
}

const TAMPERINGS: ReadonlyArray<(t: PermitTruth) => Partial<FillRequest>> = [
  (t) => ({ amountInRaw: BigInt(t.permit.amountInRaw) - 1n }),
  (t) => ({ amountOutRaw: BigInt(t.permit.amountOutRaw) + 1n }),
  () => ({ recipient: "0x000000000000000000000000000000000000dead" }),
  () => ({ payer: "0x000000000000000000000000000000000000beef" }),
  (t) => ({ destinationChainId: BigInt(t.permit.destinationChainId) + 1n }),
  () => ({ routeId: `0x${"ab".repeat(32)}` })
]

/** Decides what the client does with its permit, and schedules it. */
const plan = (ctx: Context_, t: PermitTruth) => {
  const { clients, rng, world } = ctx
  const now = world.now()
  const roll = rng.next()
  const p: FillPlan = roll < 0.72
    ? "genuine"
    : roll < 0.77
    ? "late"
    : roll < 0.83
    ? "tampered"
    : roll < 0.88
    ? "twice"
    : roll < 0.94
    ? "replayed"
    : "abandoned"
  t.plan = p
  const soon = now + rng.int(1, 40) * 1000
  const later = (at: number, run: () => void) => clients.fills.push({ at, run })
  switch (p) {
    case "genuine":
      later(soon, () => sendFill(world, t, true))
      break
    case "late":
      later(Number(t.permit.validUntil) * 1000 + rng.int(1, 30) * 1000, () => sendFill(world, t, true))
      break
    case "tampered": {
      const tampering = rng.pick(TAMPERINGS)
      later(soon, () => sendFill(world, t, false, tampering(t)))
      if (rng.chance(0.5)) later(soon + rng.int(1, 10) * 1000, () => sendFill(world, t, true))
      break
    }
    case "twice":
      later(soon, () => sendFill(world, t, true))
      later(soon + rng.int(0, 3) * 1000, () => sendFill(world, t, true))
      break
    case "replayed":
      later(soon, () => sendFill(world, t, true))
      later(soon + rng.int(10, 90) * 1000, () => sendFill(world, t, true))
      break
    case "abandoned":
      break
  }
}

const recipientOf = (rng: Rng, wallets: ReadonlyArray<Wallet>) =>
  rng.chance(0.5) ? rng.pick(wallets).address : keccakUtf8(`recipient:${rng.int(0, 1_000_000)}`).slice(0, 42)

const pickUp = (ctx: Context_) => {
  const up = ctx.up()
  return up.length === 0 ? undefined : ctx.rng.pick(up)
}

/** Asks until answered (at most a few tries, on any replica), then checks and plans. */
const request = (
  ctx: Context_,
  kind: Kind,
  req: PermitCreateRequest,
  wallet: Wallet,
  tries: number,
  replica?: Replica
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const r = replica ?? pickUp(ctx)
    if (r === undefined || r.context === null) {
      if (tries > 0) retry(ctx, kind, req, wallet, tries - 1)
      return Effect.void
    }
    return ctx.fork(
      r,
      Effect.flatMap(ask(ctx, r, req, wallet.address), (outcome) =>
        Effect.sync(() => answered(ctx, r, kind, req, wallet, tries, outcome)))
    )
  })

const retry = (ctx: Context_, kind: Kind, req: PermitCreateRequest, wallet: Wallet, tries: number) => {
  ctx.clients.later.push({
    at: ctx.world.now() + ctx.rng.int(1, 5) * 1000,
    run: () => request(ctx, kind, req, wallet, tries)
  })
}

const EXPECTED: Partial<Record<Kind, ReadonlyArray<string>>> = {
  "bad-signature": ["SignatureInvalid"],
  "replay-bad-signature": ["SignatureInvalid"],
  "conflict": ["IdempotencyConflict"],
  "below-minimum": ["AmountTooLow"],
  "zero": ["AmountInvalid", "RequestInvalid"]
}

/** Refusals a valid request may get. */
const LEGITIMATE: ReadonlySet<string> = new Set([
  "Unavailable",
  "RateLimited",
  "IdempotencyInProgress",
  "InsufficientCapacity",
  "QuoteNotOpen",
  "QuoteChanged",
  "PublicationClosed"
])

const answered = (
  ctx: Context_,
  r: Replica,
  kind: Kind,
  req: PermitCreateRequest,
  wallet: Wallet,
  tries: number,
  outcome: Outcome
) => {
  const { world } = ctx
  world.trace.line(
    `answer ${kind} ${req.idempotencyKey} ${r.name} ${
      outcome._tag === "Ok"
        ? `ok ${outcome.envelope.fillId.slice(0, 10)}`
        : outcome._tag === "Refused"
        ? outcome.reason
        : "none"
    }`
  )
  switch (outcome._tag) {
    case "NoAnswer":
      world.stats.unanswered++
      if (tries > 0) retry(ctx, kind, req, wallet, tries - 1)
      return
    case "Refused": {
      world.stats.refused++
      const expected = EXPECTED[kind]
      if (expected !== undefined) {
        if (!expected.includes(outcome.reason) && !LEGITIMATE.has(outcome.reason)) {
          violate(world, "permits", `${r.name} refused a ${kind} request with ${outcome.reason}`)
        }
      } else if (!LEGITIMATE.has(outcome.reason)) {
        violate(world, "permits", `${r.name} refused a valid request (${kind}) with ${outcome.reason}`)
      }
      if (outcome.retryable && tries > 0 && (kind === "valid" || kind === "duplicate" || kind === "twin")) {
        retry(ctx, kind, req, wallet, tries - 1)
      }
      return
    }
    case "Ok": {
      const truth = acknowledge(ctx, r, kind, req, wallet, outcome)
      if (truth === undefined) return
      ctx.clients.acked.push({ fillId: truth.fillId, request: req, wallet })
      plan(ctx, truth)
      if (kind === "duplicate") {
        ctx.clients.later.push({
          at: world.now() + ctx.rng.int(0, 60) * 1000,
          run: () => request(ctx, "duplicate", req, wallet, 0)
        })
      }
      return
    }
  }
}

/** A new client intent: one permit to fill (and, now and then, the noise around it). */
export const intent = (ctx: Context_): Effect.Effect<void> =>
  Effect.suspend(() => {
    const { clients, rng, world } = ctx
    const r = pickUp(ctx)
    if (r === undefined) {
      clients.later.push({ at: world.now() + 1000, run: () => intent(ctx) })
      return Effect.void
    }
    world.stats.intents++
    const publisher = services(r).publisher
    const state = publisher.peek()
    const routes = state._tag === "Open" ? usable(world, state.publication.routes) : []
    if (routes.length === 0) {
      clients.later.push({ at: world.now() + 2000, run: () => intent(ctx) })
      world.stats.intents--
      return Effect.void
    }
    const route = rng.pick(routes)
    const wallet = rng.pick(clients.wallets)
    const min = BigInt(route.minimumFillInRaw)
    const max = BigInt(route.maxAvailableInRaw)
    const edge = rng.next()
    const amount = edge < 0.03
      ? min
      : edge < 0.05 && max >= min
      ? max
      : (() => {
        const top = min * 500n < max ? min * 500n : max
        return top <= min ? min : rng.bigint(min, top)
      })()
    const body = {
      quoteId: route.quoteId,
      requestedAmountInRaw: amount.toString(),
      payer: wallet.address,
      recipient: recipientOf(rng, clients.wallets),
      idempotencyKey: `sim-${world.settings.seed}-intent-${clients.keys++}`
    }
    const req = signed(body, wallet.key)
    const roll = rng.next()
    const effects: Array<Effect.Effect<void>> = []
    if (roll < 0.08) {
      const other = ctx.up().filter((x) => x !== r)
      effects.push(request(ctx, "twin", req, wallet, 3, r))
      effects.push(request(ctx, "twin", req, wallet, 3, other.length > 0 ? rng.pick(other) : r))
    } else if (roll < 0.16) {
      effects.push(request(ctx, "duplicate", req, wallet, 3, r))
    } else {
      effects.push(request(ctx, "valid", req, wallet, 3, r))
    }
    // the noise: a request of someone else, badly signed, a conflict or a replay with a wrong signature, limits
    const noise = rng.next()
    if (noise < 0.05) {
      const impostor = rng.pick(clients.wallets.filter((w) => w !== wallet))
      effects.push(
        request(
          ctx,
          "bad-signature",
          { ...signed({ ...body, idempotencyKey: `${body.idempotencyKey}-x` }, impostor.key) },
          wallet,
          0
        )
      )
    } else if (noise < 0.09 && clients.acked.length > 0) {
      const earlier = rng.pick(clients.acked)
      const changed = (BigInt(earlier.request.requestedAmountInRaw) + 1n).toString()
      const conflicting = signed({ ...earlier.request, requestedAmountInRaw: changed }, earlier.wallet.key)
      effects.push(request(ctx, "conflict", conflicting, earlier.wallet, 0))
    } else if (noise < 0.13 && clients.acked.length > 0) {
      const earlier = rng.pick(clients.acked)
      const impostor = rng.pick(clients.wallets.filter((w) => w !== earlier.wallet))
      const { requestSignature: _, ...rest } = earlier.request
      effects.push(request(ctx, "replay-bad-signature", signed(rest, impostor.key), earlier.wallet, 0))
    } else if (noise < 0.15 && min > 0n) {
      const low = signed({
        ...body,
        requestedAmountInRaw: (min - 1n).toString(),
        idempotencyKey: `${body.idempotencyKey}-l`
      }, wallet.key)
      effects.push(request(ctx, min - 1n === 0n ? "zero" : "below-minimum", low, wallet, 0))
    }
    return Effect.all(effects, { discard: true })
  })

/** Reads the status of an acknowledged permit: the answer is the acknowledged envelope, in the store's state. */
export const statusRead = (ctx: Context_): Effect.Effect<void> =>
  Effect.suspend(() => {
    const { clients, rng, world } = ctx
    if (clients.acked.length === 0) return Effect.void
    const r = pickUp(ctx)
    if (r === undefined) return Effect.void
    const { fillId } = rng.pick(clients.acked)
    const t = world.permits.get(fillId)!
    const version = t.version
    return ctx.fork(
      r,
      Effect.gen(function*() {
        const incarnation = r.incarnation
        const exit = yield* Effect.exit(services(r).permits.get(fillId).pipe(Effect.provide(r.context!)))
        if (r.dead || r.incarnation !== incarnation) return
        if (Exit.isFailure(exit)) {
          const error = Cause.findErrorOption(exit.cause)
          const reason = error._tag === "Some" && error.value instanceof PermitError
            ? error.value.reason._tag
            : "defect"
          if (reason !== "Unavailable") violate(world, "readable", `${r.name} could not read ${fillId}: ${reason}`)
          return
        }
        const envelope = exit.value
        const text = ackedText(envelope as unknown as Record<string, unknown>)
        if (text !== t.acked) violate(world, "readable", `${r.name} reads ${fillId} other than acknowledged`)
        if (t.version !== version) return // it changed while being read
        const lower = (s: string | null) => (s === null ? null : s.toLowerCase())
        if (
          envelope.state !== t.state || lower(envelope.sourceTxHash) !== lower(t.sourceTxHash) ||
          lower(envelope.payoutTxHash) !== lower(t.payoutTxHash)
        ) {
          violate(
            world,
            "readable",
            `${r.name} reads ${fillId} as ${envelope.state} (${envelope.sourceTxHash}, ${envelope.payoutTxHash}); ` +
              `the store has ${t.state} (${t.sourceTxHash}, ${t.payoutTxHash})`
          )
        }
      })
    )
  })
