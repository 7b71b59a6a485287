/**
 * Stateful sequences: model-based runs (fast-check's `fc.commands` and
 * `fc.asyncModelRun`) over the permit life and over the event stream. Each run
 * generates a sequence of operations from a model of what the spec says the
 * deployment holds (which permits exist for which payer and key, which
 * version a stream has delivered), sends it, and checks every answer against
 * the model. A failing sequence is shrunk to the shortest one that still
 * fails; the report carries it with the exchange of its failing step, and the
 * seed, path and replay path that `svc conformance replay` uses to run exactly
 * that sequence again.
 *
 * The fill and payout of a permit (its life after ISSUED) need a funded wallet
 * on real chains: `chain_execute_fill` (`--rpc … --execute`) performs one.
 *
 * @since 0.1.0
 */
import {
  ExecutionPermitResponse,
  PermitMessage,
  PermitRequestMessageResponse,
  PermitStatusResponse,
  type Route
} from "@svc/protocol"
import { Cause, Clock, Effect, Exit, FiberSet, Option, Scope } from "effect"
import fc from "fast-check"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import { Options, type StatefulReplay, Triggers } from "../RunOptions.ts"
import { asObject, failure, permitRequestFor, send, Shared, type Wallet } from "../Shared.ts"
import type { SseEvent } from "../Sse.ts"
import { type StreamHandle, Transport } from "../Transport.ts"
import { type CheckEffect, type Env, firstDifference, type Json, sameJson } from "./common.ts"
import { feedEventProblems } from "./sse.ts"

const MESSAGE = "/api/v6/execution-permits/request-message"
const CREATE = "/api/v6/execution-permits"
const FEED = "/api/v6/solver-feed"
const EVENTS = "/api/v6/solver-feed/events"

// ---------------------------------------------------------------------------
// Running Effects from commands
// ---------------------------------------------------------------------------

/** A step departed from the model: the failure the check reports. */
class StepFailed extends Error {
  readonly failure: Check.Failure
  constructor(failure: Check.Failure) {
    super(failure.title)
    this.failure = failure
  }
}

/** A step could not be decided (the deployment was unavailable or kept rate-limiting): the run is skipped. */
class StepUndecided extends Error {}

type Run = <A>(effect: Effect.Effect<A, Check.CheckFailed | Check.Inconclusive, Env>) => Promise<A>

/** The side of a model run that reaches the deployment. */
interface Reach {
  readonly run: Run
  readonly undecided: { reason: string | undefined }
}

const reach = (runPromise: <A, E>(effect: Effect.Effect<A, E, Env>) => Promise<A>, undecided: Reach["undecided"]) => ({
  undecided,
  run: async <A>(effect: Effect.Effect<A, Check.CheckFailed | Check.Inconclusive, Env>): Promise<A> => {
    const exit = await runPromise(Effect.exit(effect))
    if (Exit.isSuccess(exit)) return exit.value
    const error = Cause.findErrorOption(exit.cause)
    if (Option.isSome(error) && error.value._tag === "CheckFailed") {
      throw new StepFailed(error.value.failures[0]!)
    }
    const reason = Option.isSome(error) && error.value._tag === "Inconclusive"
      ? error.value.reason
      : Cause.pretty(exit.cause).split("\n")[0]!
    undecided.reason ??= reason
    throw new StepUndecided(reason)
  }
})

const unavailable = (reach: Reach, exchange: Exchange.Exchange) => {
  if (exchange.response.status === 503) {
    reach.undecided.reason ??= `${Exchange.describe(exchange)} (unavailable)`
    throw new StepUndecided("503")
  }
}

/** Fails the step unless the exchange has the status. */
const expectStatus = (exchange: Exchange.Exchange, status: number, step: string, why: string) => {
  if (exchange.response.status !== status) {
    throw new StepFailed(
      failure(
        exchange,
        `${step}: answered ${exchange.response.status}`,
        `${status} (${why})`,
        Exchange.responseSummary(exchange)
      )
    )
  }
}

/**
 * Runs a model property with fast-check (seeded from `--seed` and the check's
 * name, or replayed from a report), and turns its outcome into a verdict: a
 * failure with the shrunk sequence and its replay, or inconclusive when the
 * deployment could not be reached for some steps and nothing failed.
 */
const modelCheck = <M extends object, R>(
  name: string,
  commands: ReadonlyArray<fc.Arbitrary<fc.AsyncCommand<M, R>>>,
  setup: (reach: Reach, scope: Scope.Closeable) => Promise<{ readonly model: M; readonly real: R }>,
  options: { readonly maxCommands: number; readonly runs: (statefulRuns: number) => number }
): CheckEffect =>
  Effect.scoped(Effect.gen(function*() {
    const runOptions = yield* Options
    const runPromise = yield* FiberSet.makeRuntimePromise<Env>()
    const undecided: Reach["undecided"] = { reason: undefined }
    const r = reach(runPromise, undecided)
    const replay: StatefulReplay | undefined = runOptions.statefulReplay?.[name]
    const property = (replayPath: string | undefined) =>
      fc.asyncProperty(
        fc.commands(commands as Array<fc.Arbitrary<fc.AsyncCommand<M, R>>>, {
          maxCommands: options.maxCommands,
          ...(replayPath === undefined || replayPath.length === 0 ? {} : { replayPath })
        }),
        async (cmds) => {
          const scope = await Effect.runPromise(Scope.make())
          try {
            await fc.asyncModelRun(() => setup(r, scope), cmds)
          } catch (e) {
            // an undecided step skips the run (it is neither passed nor failed)
            if (e instanceof StepUndecided) fc.pre(false)
            throw e
          } finally {
            await Effect.runPromise(Scope.close(scope, Exit.void))
          }
        }
      )
    const seed = replay?.seed ?? ((runOptions.seed + hash(name)) | 0)
    const numRuns = options.runs(runOptions.statefulRuns)
    const result = yield* Effect.promise(() =>
      Promise.resolve().then(() =>
        fc.check(property(replay?.replayPath), {
          seed,
          numRuns,
          ...(replay === undefined ? {} : { path: replay.path, endOnFailure: true }),
          interruptAfterTimeLimit: Math.max(60_000, runOptions.timeoutSeconds * 6000),
          markInterruptAsFailure: false,
          maxSkipsPerRun: 100
        })
      ).catch((e: unknown) => ({ thrown: e }) as const)
    )
    if ("thrown" in result) {
      return yield* new Check.Inconclusive({
        reason: `the recorded sequence does not replay with this version (${
          String((result.thrown as Error)?.message ?? result.thrown)
        })`
      })
    }
    yield* Check.detail("sequences", `${result.numRuns} run(s), ${result.numSkips} skipped, seed ${seed}`)
    if (result.failed && result.counterexample !== null) {
      const sequence = String(result.counterexample[0])
      const replayPath = /replayPath="([^"]*)"/.exec(sequence)?.[1] ?? ""
      const shown = sequence.replace(/\s*\/\*replayPath=.*\*\/\s*$/, "")
      yield* Check.detail("replay.seed", String(result.seed))
      yield* Check.detail("replay.path", result.counterexamplePath ?? "")
      yield* Check.detail("replay.replayPath", replayPath)
      yield* Check.detail("sequence", shown)
      const error = result.errorInstance
      const step = error instanceof StepFailed
        ? error.failure
        : { title: String((error as Error)?.message ?? error), expected: "the model's answer", actual: String(error) }
      return yield* Check.fail({
        ...step,
        title: `${step.title} (shortest failing sequence, after ${result.numShrinks} shrink(s): ${shown})`,
        actual:
          `${step.actual} (svc conformance replay reruns this sequence: seed ${result.seed}, path ${result.counterexamplePath})`
      })
    }
    if (result.numRuns === 0 && undecided.reason !== undefined) {
      return yield* new Check.Inconclusive({ reason: `no sequence could be run: ${undecided.reason}` })
    }
  }))

const hash = (s: string) => [...s].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 11)

// ---------------------------------------------------------------------------
// The permit life
// ---------------------------------------------------------------------------

/** Fields of an envelope that may change after issue (fill progress). */
const PROGRESS = ["state", "sourceTxHash", "payoutTxHash"]
const withoutProgress = (envelope: Json) =>
  Object.fromEntries(Object.entries(envelope).filter(([k]) => !PROGRESS.includes(k)))

interface Intent {
  readonly payer: Wallet
  readonly request: PermitMessage.PermitRequestInput & { readonly idempotencyKey: string }
}

/** What the spec says the deployment holds: the permit of each intent the sequence created. */
interface PermitModel {
  readonly permits: Map<number, Json>
  readonly twins: Array<Json>
}

interface PermitReal {
  readonly reach: Reach
  readonly intent: (slot: number) => Intent
  readonly twinKey: () => string
}

const signed = (intent: Intent, request: Intent["request"] = intent.request) => ({
  ...request,
  requestSignature: PermitMessage.sign(PermitMessage.build(request), intent.payer.key)
})

const envelopeOf = (exchange: Exchange.Exchange) => asObject(asObject(Exchange.json(exchange))?.permit)

const strict = (exchange: Exchange.Exchange, schema: Parameters<typeof Check.schemaIssues>[0], step: string) => {
  const issues = Check.schemaIssues(schema, Exchange.json(exchange))
  if (issues.length > 0) {
    throw new StepFailed(
      failure(
        exchange,
        `${step}: not a strict ${Check.schemaName(schema)}`,
        Check.schemaName(schema),
        issues.slice(0, 4).join("; ")
      )
    )
  }
}

class RequestMessage implements fc.AsyncCommand<PermitModel, PermitReal> {
  readonly slot: number
  constructor(slot: number) {
    this.slot = slot
  }
  check = () => true
  async run(_m: PermitModel, r: PermitReal) {
    const intent = r.intent(this.slot)
    const exchange = await r.reach.run(send({ method: "POST", path: MESSAGE, json: intent.request }))
    unavailable(r.reach, exchange)
    const step = `${this}`
    expectStatus(exchange, 200, step, "spec §4 buildPermitRequestMessage: the message of a valid request")
    strict(exchange, PermitRequestMessageResponse, step)
    const expected = PermitMessage.build(intent.request)
    const actual = asObject(Exchange.json(exchange))?.message
    if (actual !== expected) {
      throw new StepFailed(
        failure(exchange, `${step}: the message is not the request's`, JSON.stringify(expected), Check.show(actual))
      )
    }
  }
  toString = () => `RequestMessage(#${this.slot})`
}

class Create implements fc.AsyncCommand<PermitModel, PermitReal> {
  readonly slot: number
  constructor(slot: number) {
    this.slot = slot
  }
  check = () => true
  async run(m: PermitModel, r: PermitReal) {
    const intent = r.intent(this.slot)
    const exchange = await r.reach.run(send({ method: "POST", path: CREATE, json: signed(intent) }))
    unavailable(r.reach, exchange)
    const step = `${this}`
    const before = m.permits.get(this.slot)
    if (before === undefined) {
      expectStatus(exchange, 201, step, "spec §4 createExecutionPermit rule 3: a new permit")
      strict(exchange, ExecutionPermitResponse, step)
      if (asObject(Exchange.json(exchange))?.idempotent !== false) {
        throw new StepFailed(
          failure(exchange, `${step}: a new permit is marked idempotent`, "idempotent: false", "idempotent: true")
        )
      }
      m.permits.set(this.slot, envelopeOf(exchange)!)
      return
    }
    expectStatus(
      exchange,
      200,
      step,
      "spec §4 createExecutionPermit rule 3: an identical request replays the existing permit"
    )
    strict(exchange, ExecutionPermitResponse, step)
    const envelope = envelopeOf(exchange) ?? {}
    if (
      asObject(Exchange.json(exchange))?.idempotent !== true ||
      !sameJson(withoutProgress(envelope), withoutProgress(before))
    ) {
      throw new StepFailed(failure(
        exchange,
        `${step}: the replay did not return the existing permit`,
        `idempotent: true and the permit ${String(before.fillId)}`,
        firstDifference(withoutProgress(envelope), withoutProgress(before)) ?? "idempotent is not true"
      ))
    }
  }
  toString = () => `Create(#${this.slot})`
}

class Status implements fc.AsyncCommand<PermitModel, PermitReal> {
  readonly index: number
  constructor(index: number) {
    this.index = index
  }
  check = (m: Readonly<PermitModel>) => m.permits.size + m.twins.length > 0
  async run(m: PermitModel, r: PermitReal) {
    const all = [...m.permits.values(), ...m.twins]
    const envelope = all[this.index % all.length]!
    const exchange = await r.reach.run(send({ path: `${CREATE}/${String(envelope.fillId)}` }))
    unavailable(r.reach, exchange)
    const step = `${this}`
    expectStatus(exchange, 200, step, "spec §4 getExecutionPermit: the permit issued for this fillId")
    strict(exchange, PermitStatusResponse, step)
    const current = envelopeOf(exchange) ?? {}
    if (!sameJson(withoutProgress(current), withoutProgress(envelope))) {
      throw new StepFailed(failure(
        exchange,
        `${step}: the status is not the issued permit`,
        `the permit issued as ${String(envelope.fillId)}`,
        firstDifference(withoutProgress(current), withoutProgress(envelope)) ?? ""
      ))
    }
  }
  toString = () => `Status(${this.index})`
}

class Conflict implements fc.AsyncCommand<PermitModel, PermitReal> {
  readonly slot: number
  constructor(slot: number) {
    this.slot = slot
  }
  check = (m: Readonly<PermitModel>) => m.permits.has(this.slot)
  async run(_m: PermitModel, r: PermitReal) {
    const intent = r.intent(this.slot)
    const changed = {
      ...intent.request,
      requestedAmountInRaw: (BigInt(String(intent.request.requestedAmountInRaw)) + 1n).toString()
    }
    const exchange = await r.reach.run(send({ method: "POST", path: CREATE, json: signed(intent, changed) }))
    unavailable(r.reach, exchange)
    expectStatus(
      exchange,
      409,
      `${this}`,
      "spec §4 createExecutionPermit rule 2, §7: the key is bound to another request"
    )
  }
  toString = () => `Conflict(#${this.slot})`
}

class Twin implements fc.AsyncCommand<PermitModel, PermitReal> {
  readonly slot: number
  constructor(slot: number) {
    this.slot = slot
  }
  check = (m: Readonly<PermitModel>) => m.permits.has(this.slot)
  async run(m: PermitModel, r: PermitReal) {
    const intent = r.intent(this.slot)
    const twin = { ...intent.request, idempotencyKey: r.twinKey() }
    const exchange = await r.reach.run(send({ method: "POST", path: CREATE, json: signed(intent, twin) }))
    unavailable(r.reach, exchange)
    const step = `${this}`
    expectStatus(exchange, 201, step, "spec §4 createExecutionPermit rule 2: a new key is a new intent, a new permit")
    strict(exchange, ExecutionPermitResponse, step)
    const envelope = envelopeOf(exchange)!
    const first = m.permits.get(this.slot)!
    for (const other of [first, ...m.twins]) {
      if (String(envelope.fillId).toLowerCase() === String(other.fillId).toLowerCase()) {
        throw new StepFailed(
          failure(
            exchange,
            `${step}: the twin got an existing permit's fillId`,
            "a new fillId",
            String(envelope.fillId)
          )
        )
      }
    }
    m.twins.push(envelope)
  }
  toString = () => `Twin(#${this.slot})`
}

/** Intents per sequence (each with its own payer, so that sequences mix payers). */
const SLOTS = 2

const permitLife = Check.make<Env>({
  name: "stateful_permit_life",
  group: "stateful",
  title:
    "generated sequences over the permit life (request-message, create, replay, status, a twin under another key, a changed amount under the same key) always get the model's answer; a failure is shrunk to the shortest sequence",
  reference:
    "spec §4 buildPermitRequestMessage, createExecutionPermit (rules 1-3), getExecutionPermit; §7 (409); docs/protocol.md, Permit checks and lifecycle",
  createsPermit: true,
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route: Route = yield* shared.openRoute
    return yield* modelCheck<PermitModel, PermitReal>(
      "stateful_permit_life",
      // weighted: creations and replays, the core of the life, come up most
      [
        fc.nat(SLOTS - 1).map((s) => new RequestMessage(s)),
        fc.nat(SLOTS - 1).map((s) => new Create(s)),
        fc.nat(SLOTS - 1).map((s) => new Create(s)),
        fc.nat(SLOTS - 1).map((s) => new Create(s)),
        fc.nat(7).map((i) => new Status(i)),
        fc.nat(SLOTS - 1).map((s) => new Conflict(s)),
        fc.nat(SLOTS - 1).map((s) => new Twin(s)),
        fc.nat(SLOTS - 1).map((s) => new Twin(s))
      ],
      async (reach) => {
        // every run has its own keys: the deployment remembers the keys of earlier runs
        const run = shared.newKey()
        const intents = new Map<number, Intent>()
        let twins = 0
        return {
          model: { permits: new Map(), twins: [] },
          real: {
            reach,
            intent: (slot) => {
              let intent = intents.get(slot)
              if (intent === undefined) {
                // the slots' payers are different wallets: sequences mix payers
                const payer = shared.wallets[slot % shared.wallets.length]!
                intent = {
                  payer,
                  request: permitRequestFor(route, payer, `${run}-s${slot}`)
                }
                intents.set(slot, intent)
              }
              return intent
            },
            twinKey: () => `${run}-t${++twins}`
          }
        }
      },
      { maxCommands: 8, runs: (n) => n }
    )
  })
})

// ---------------------------------------------------------------------------
// The event stream
// ---------------------------------------------------------------------------

type LastEventId = "none" | "equal" | "older" | "invalid" | "newer"

interface OpenStream {
  readonly handle: StreamHandle
  /** The highest feed id delivered so far (undefined: none yet). */
  last: bigint | undefined
  readonly label: string
}

interface StreamModel {
  /** Publications the sequence made (with the deployment's trigger). */
  published: number
  /** Streams open (at most two). */
  open: number
}

interface StreamReal {
  readonly reach: Reach
  readonly scope: Scope.Closeable
  readonly streams: Array<OpenStream>
  readonly current: () => Promise<bigint>
  readonly authority: string
  readonly immediateMs: number
  readonly quietMs: number
}

const feedVersion = (event: SseEvent): bigint | undefined =>
  event.event === "feed" && /^(?:0|[1-9][0-9]*)$/.test(event.lastEventId) ? BigInt(event.lastEventId) : undefined

/**
 * Reads the stream for up to `ms` (or until a feed event newer than `until`
 * arrived): every feed event must be newer than the last, and verify.
 */
const readFor = async (r: StreamReal, s: OpenStream, ms: number, step: string, until?: bigint) => {
  const deadline = Date.now() + ms
  const got: Array<SseEvent> = []
  while (Date.now() < deadline) {
    if (until !== undefined && s.last !== undefined && s.last >= until) break
    const event = await r.reach.run(s.handle.next(Math.max(1, deadline - Date.now())))
    if (event === undefined) break
    got.push(event)
    if (event.event !== "feed") continue
    const version = feedVersion(event)
    if (version === undefined || (s.last !== undefined && version <= s.last)) {
      throw new StepFailed(failure(
        s.handle.exchange,
        `${step}: ${s.label} delivered version ${event.lastEventId} after ${String(s.last)}`,
        "feed ids strictly increasing: no replay, no repeat (spec §6 rules 5-6)",
        `id ${event.lastEventId}`
      ))
    }
    // the run's clock (a deployment under test may run on a moved clock), not the machine's
    const now = await r.reach.run(Clock.currentTimeMillis)
    const problems = feedEventProblems(event, r.authority, Math.floor(now / 1000))
    if (problems.length > 0) {
      throw new StepFailed(
        failure(s.handle.exchange, `${step}: ${problems[0]!.title}`, problems[0]!.expected, problems[0]!.actual)
      )
    }
    s.last = version
  }
  return got
}

class Connect implements fc.AsyncCommand<StreamModel, StreamReal> {
  readonly kind: LastEventId
  constructor(kind: LastEventId) {
    this.kind = kind
  }
  check = (_m: Readonly<StreamModel>) => true
  async run(_m: StreamModel, r: StreamReal) {
    if (r.streams.length >= 2) {
      // at most two open streams per sequence: the oldest is closed first
      r.streams.shift()
    }
    _m.open = Math.min(2, _m.open + 1)
    const current = await r.current()
    const header = this.kind === "none"
      ? undefined
      : this.kind === "equal"
      ? String(current)
      : this.kind === "older"
      ? String(current > 0n ? current - 1n : 0n)
      : this.kind === "invalid"
      ? `v${current}`
      : String(current + 1_000_000n)
    const handle = await r.reach.run(
      Effect.flatMap(
        Effect.service(Transport),
        (t) => t.stream({ path: EVENTS, ...(header === undefined ? {} : { headers: { "last-event-id": header } }) })
      ).pipe(
        Effect.catchTags({
          TransportError: (e) =>
            Check.fail({
              title: "the event stream did not answer",
              expected: "200 text/event-stream",
              actual: e.reason
            }),
          RateLimited: (e) => Effect.fail(new Check.Inconclusive({ reason: e.reason }))
        }),
        Scope.provide(r.scope)
      )
    )
    unavailable(r.reach, handle.exchange)
    const step = `${this}`
    if (!handle.streaming) {
      throw new StepFailed(
        failure(
          handle.exchange,
          `${step}: the stream was refused`,
          "200 text/event-stream",
          Exchange.responseSummary(handle.exchange)
        )
      )
    }
    const s: OpenStream = {
      handle,
      last: this.kind === "equal" ? current : undefined,
      label: `stream ${r.streams.length + 1}`
    }
    r.streams.push(s)
    const got = (await readFor(
      r,
      s,
      this.kind === "equal" ? r.quietMs : r.immediateMs,
      step,
      this.kind === "equal" ? undefined : current
    ))
      .filter((e) => e.event === "feed")
    if (this.kind !== "equal") {
      const first = got[0]
      if (first === undefined || feedVersion(first)! < current) {
        throw new StepFailed(failure(
          handle.exchange,
          `${step}: no current feed event on connect`,
          `a feed event with id >= ${current} at once (spec §6 rules 1, 2, 4; svc: a newer id gets it too)`,
          first === undefined ? "none" : `id ${first.lastEventId}`
        ))
      }
    }
  }
  toString = () => `Connect(${this.kind})`
}

class Receive implements fc.AsyncCommand<StreamModel, StreamReal> {
  check = (m: Readonly<StreamModel>) => m.open > 0
  async run(_m: StreamModel, r: StreamReal) {
    for (const s of r.streams) await readFor(r, s, 100, `${this}`)
  }
  toString = () => "Receive"
}

class Reconnect implements fc.AsyncCommand<StreamModel, StreamReal> {
  check = (m: Readonly<StreamModel>) => m.open > 0
  async run(_m: StreamModel, r: StreamReal) {
    const old = r.streams.shift()
    if (old === undefined) return
    if (old.last === undefined) {
      // nothing delivered yet: nothing to resume from
      r.streams.push(old)
      return
    }
    const current = await r.current()
    const handle = await r.reach.run(
      Effect.flatMap(
        Effect.service(Transport),
        (t) => t.stream({ path: EVENTS, headers: { "last-event-id": String(old.last) } })
      ).pipe(
        Effect.catchTags({
          TransportError: (e) =>
            Check.fail({
              title: "the event stream did not answer",
              expected: "200 text/event-stream",
              actual: e.reason
            }),
          RateLimited: (e) => Effect.fail(new Check.Inconclusive({ reason: e.reason }))
        }),
        Scope.provide(r.scope)
      )
    )
    unavailable(r.reach, handle.exchange)
    const step = `${this}`
    if (!handle.streaming) {
      throw new StepFailed(
        failure(
          handle.exchange,
          `${step}: the stream was refused`,
          "200 text/event-stream",
          Exchange.responseSummary(handle.exchange)
        )
      )
    }
    const s: OpenStream = { handle, last: old.last, label: `${old.label} (reconnected)` }
    r.streams.push(s)
    const got = (await readFor(
      r,
      s,
      current > old.last ? r.immediateMs : r.quietMs,
      step,
      current > old.last ? current : undefined
    ))
      .filter((e) => e.event === "feed")
    if (current > old.last && got.length === 0) {
      throw new StepFailed(failure(
        handle.exchange,
        `${step}: reconnecting with Last-Event-ID ${old.last} after a publication (now ${current}) got nothing`,
        `the current feed event ${current} at once (spec §6 rule 2)`,
        "no feed event"
      ))
    }
  }
  toString = () => "Reconnect"
}

class Publish implements fc.AsyncCommand<StreamModel, StreamReal> {
  check = () => true
  async run(m: StreamModel, r: StreamReal) {
    const before = await r.current()
    await r.reach.run(
      Effect.flatMap(Effect.service(Triggers), (t) => Option.isSome(t.publish) ? t.publish.value : Effect.void)
    )
    m.published++
    // every stream open across the publication receives it (pushed, not polled)
    for (const s of r.streams) {
      await readFor(r, s, r.immediateMs, `${this}`, before + 1n)
      if (s.last === undefined || s.last <= before) {
        throw new StepFailed(failure(
          s.handle.exchange,
          `${this}: ${s.label}, open across a publication, did not receive it`,
          `a feed event newer than ${before} (spec §6 rule 5)`,
          s.last === undefined ? "no feed event" : `last id ${s.last}`
        ))
      }
    }
  }
  toString = () => "Publish"
}

const eventStream = Check.make<Env>({
  name: "stateful_event_stream",
  group: "stateful",
  title:
    "generated sequences over the event stream (connect with no, an equal, older, invalid or newer Last-Event-ID, receive, reconnect, a publication in between) never replay, repeat or skip what spec part 6 requires",
  reference:
    "spec §6 initial-event rules 1-7 (no replay, every later publication emitted); docs/operations.md, HTTP rules of the solver interface (event stream)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const options = yield* Options
    const triggers = yield* Triggers
    const authority = yield* shared.authority
    const immediateMs = options.immediateMillis ?? Math.min(options.timeoutSeconds * 1000, 5000)
    // a publication in between needs the deployment's trigger; on a live URL the sequences see the ones that happen
    const kinds = fc.constantFrom<LastEventId>("none", "equal", "older", "invalid", "newer")
    // weighted: connections (each kind of Last-Event-ID) come up most
    const commands: Array<fc.Arbitrary<fc.AsyncCommand<StreamModel, StreamReal>>> = [
      kinds.map((k) => new Connect(k)),
      kinds.map((k) => new Connect(k)),
      kinds.map((k) => new Connect(k)),
      fc.constant(new Receive()),
      fc.constant(new Reconnect()),
      fc.constant(new Reconnect())
    ]
    if (Option.isSome(triggers.publish)) commands.push(fc.constant(new Publish()), fc.constant(new Publish()))
    return yield* modelCheck<StreamModel, StreamReal>(
      "stateful_event_stream",
      commands,
      async (reach, scope) => ({
        model: { published: 0, open: 0 },
        real: {
          reach,
          scope,
          streams: [],
          authority,
          immediateMs,
          quietMs: options.quietMillis,
          current: async () => {
            const exchange = await reach.run(send({ path: FEED }))
            unavailable(reach, exchange)
            const version = String(
              asObject(asObject(asObject(Exchange.json(exchange))?.feed)?.signedPayload)?.dataVersion
            )
            if (!/^[0-9]+$/.test(version)) {
              throw new StepFailed(
                failure(exchange, "the feed has no dataVersion", "a FeedResponse", Exchange.responseSummary(exchange))
              )
            }
            return BigInt(version)
          }
        }
      }),
      { maxCommands: 6, runs: (n) => n }
    )
  })
})

/**
 * The stateful checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [permitLife, eventStream]
