/**
 * `svc admin`: operator control of a running deployment, through its store (the
 * same SVC_DATA_DIR / DATABASE_URL the server uses). The server notices changes
 * within a publisher tick (about a second).
 *
 * - `svc admin status`: the operator state (paused, route overrides).
 * - `svc admin pause [--reason text]` / `svc admin resume`: while paused, the feed,
 *   the stream and permit creation answer 503 PUBLICATION_CLOSED; open streams get
 *   publication-closed.
 * - `svc admin route <routeId> <OPEN|PAUSED|TEMP_UNAVAILABLE|CLOSED|DAILY_OPEN|RESET>`:
 *   sets a route's executionStatus (OPEN, PAUSED, TEMP_UNAVAILABLE), its
 *   dailyStatus (CLOSED, DAILY_OPEN), or removes the override (RESET).
 * - `svc admin settle <fillId> <source-observed|source-confirmed|payout-submitted|paid|failed> [txHash|reason]`:
 *   records a lifecycle observation through the SettlementObserver (until chain
 *   watchers exist, this is how states past ISSUED are reached).
 * - `svc admin expire`: expires due permits now.
 * - `svc admin permit <fillId>`: what the store holds of a permit: its state and
 *   reasonCodes (why it FAILED: the public status carries the state only), its
 *   transaction hashes, amounts, times and its payout intent.
 *
 * Output is one JSON value on stdout; errors exit 2.
 *
 * @since 0.1.0
 */
import { Settlement, Store } from "@svc/core"
import { ServerConfig } from "@svc/server"
import { StoreConfig } from "@svc/store"
import { Effect, Layer, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { BadInput, writeJson } from "./Io.ts"

const storeLayer = Layer.unwrap(
  Effect.map(
    ServerConfig.load,
    (config) =>
      StoreConfig.layerFromUrl({ databaseUrl: Option.getOrUndefined(config.databaseUrl), dataDir: config.dataDir })
  )
)

/** Tells every replica (PostgreSQL: NOTIFY) that the operator state changed; best effort, they poll too. */
const announceChange = Effect.flatMap(ServerConfig.load, (config) =>
  StoreConfig.announceFromUrl(
    { databaseUrl: Option.getOrUndefined(config.databaseUrl), dataDir: config.dataDir },
    "operator",
    "changed"
  )).pipe(
    Effect.catchCause((cause) => Effect.logWarning("could not notify the replicas; they notice within a tick", cause))
  )

const withStore = <A, E>(f: (store: Store.StoreShape) => Effect.Effect<A, E>) =>
  Effect.flatMap(Effect.service(Store.Store), f).pipe(
    Effect.provide(storeLayer),
    Effect.mapError((e) => new BadInput({ message: String((e as { message?: string }).message ?? e) }))
  )

const status = Command.make(
  "status",
  {},
  () => withStore((store) => store.operatorState).pipe(Effect.flatMap(writeJson))
).pipe(
  Command.withDescription("print the operator state (paused, route overrides)")
)

const pause = Command.make(
  "pause",
  {
    reason: Flag.String("reason").pipe(Flag.withDescription("why (sent to stream subscribers)"), Flag.optional)
  },
  ({ reason }) =>
    withStore((store) => store.setPaused(true, Option.getOrElse(reason, () => "paused by the operator"))).pipe(
      Effect.tap(() => announceChange),
      Effect.flatMap(writeJson)
    )
).pipe(Command.withDescription("pause publication: feed, stream and permit creation answer 503"))

const resume = Command.make(
  "resume",
  {},
  () =>
    withStore((store) => store.setPaused(false, null)).pipe(Effect.tap(() => announceChange), Effect.flatMap(writeJson))
).pipe(
  Command.withDescription("resume publication")
)

const ROUTE_STATUSES = ["OPEN", "PAUSED", "TEMP_UNAVAILABLE", "CLOSED", "DAILY_OPEN", "RESET"] as const

const route = Command.make("route", {
  routeId: Argument.String("routeId").pipe(Argument.withDescription("the routeId (0x + 64 hex)")),
  status: Argument.Literals("status", ROUTE_STATUSES).pipe(
    Argument.withDescription("OPEN|PAUSED|TEMP_UNAVAILABLE (executionStatus), CLOSED|DAILY_OPEN (dailyStatus), RESET")
  )
}, ({ routeId, status }) =>
  Effect.gen(function*() {
    if (!/^0x[0-9a-fA-F]{64}$/.test(routeId)) {
      return yield* new BadInput({ message: "routeId: must be 0x followed by 64 hex digits" })
    }
    const id = routeId.toLowerCase()
    return yield* withStore((store) =>
      Effect.gen(function*() {
        const current = (yield* store.operatorState).routes[id] ?? {}
        const next = status === "RESET"
          ? {}
          : status === "CLOSED"
          ? { ...current, dailyStatus: "CLOSED" as const }
          : status === "DAILY_OPEN"
          ? { ...current, dailyStatus: "OPEN" as const }
          : { ...current, executionStatus: status }
        return yield* store.setRouteOverride(id, next)
      })
    ).pipe(Effect.tap(() => announceChange), Effect.flatMap(writeJson))
  })).pipe(Command.withDescription("set a route's status at run time"))

const EVENTS = ["source-observed", "source-confirmed", "payout-submitted", "paid", "failed"] as const

const settle = Command.make("settle", {
  fillId: Argument.String("fillId").pipe(Argument.withDescription("the permit's fillId")),
  event: Argument.Literals("event", EVENTS),
  detail: Argument.String("detail").pipe(
    Argument.withDescription(
      "the transaction hash (source-observed, payout-submitted, paid) or a reason code (failed)"
    ),
    Argument.optional
  )
}, ({ detail, event, fillId }) =>
  Effect.gen(function*() {
    const hash = Option.getOrUndefined(detail)
    const needsHash = event === "source-observed" || event === "payout-submitted"
    if (needsHash && (hash === undefined || !/^0x[0-9a-fA-F]{64}$/.test(hash))) {
      return yield* new BadInput({ message: `${event}: give the transaction hash (0x + 64 hex)` })
    }
    const record = yield* Effect.gen(function*() {
      const observer = yield* Settlement.SettlementObserver
      switch (event) {
        case "source-observed":
          return yield* observer.sourceObserved(fillId, hash!)
        case "source-confirmed":
          return yield* observer.sourceConfirmed(fillId)
        case "payout-submitted":
          return yield* observer.payoutSubmitted(fillId, hash!)
        case "paid":
          return yield* observer.paid(fillId, hash)
        case "failed":
          return yield* observer.failed(fillId, [hash ?? "FAILED_BY_OPERATOR"])
      }
    }).pipe(
      Effect.provide(Settlement.layer({ sweepMillis: 0 }).pipe(Layer.provide(storeLayer))),
      Effect.mapError((e) => new BadInput({ message: String((e as { message?: string }).message ?? e) }))
    )
    yield* writeJson({
      fillId: record.fillId,
      state: record.state,
      sourceTxHash: record.sourceTxHash,
      payoutTxHash: record.payoutTxHash
    })
  })).pipe(Command.withDescription("record a lifecycle observation of a permit"))

const expire = Command.make("expire", {}, () =>
  Effect.gen(function*() {
    const observer = yield* Settlement.SettlementObserver
    return yield* observer.expireDue
  }).pipe(
    Effect.provide(Settlement.layer({ sweepMillis: 0 }).pipe(Layer.provide(storeLayer))),
    Effect.mapError((e) => new BadInput({ message: String((e as { message?: string }).message ?? e) })),
    Effect.flatMap((expired) => writeJson({ expired }))
  )).pipe(Command.withDescription("expire every permit past validUntil + grace now"))

const permit = Command.make("permit", {
  fillId: Argument.String("fillId").pipe(Argument.withDescription("the permit's fillId"))
}, ({ fillId }) =>
  withStore((store) =>
    Effect.gen(function*() {
      const id = fillId.toLowerCase()
      const record = yield* store.getPermit(id)
      if (record === undefined) return yield* new BadInput({ message: `no permit with fillId ${fillId}` })
      const intent = yield* store.payoutIntent(id)
      return {
        fillId: record.fillId,
        state: record.state,
        reasonCodes: record.reasonCodes,
        routeId: record.routeId,
        quoteId: record.quoteId,
        payer: record.payerAddress ?? record.scope,
        amountInRaw: record.amountInRaw,
        amountOutRaw: record.amountOutRaw,
        sourceTxHash: record.sourceTxHash,
        payoutTxHash: record.payoutTxHash,
        validUntil: new Date(record.validUntil * 1000).toISOString(),
        createdAt: new Date(record.createdAt).toISOString(),
        updatedAt: new Date(record.updatedAt).toISOString(),
        payoutIntent: intent === undefined ? null : {
          txHash: intent.txHash,
          sender: intent.sender,
          nonce: intent.nonce,
          attempt: intent.attempt
        }
      }
    })
  ).pipe(Effect.flatMap(writeJson))).pipe(
    Command.withDescription("print what the store holds of a permit: state, reasonCodes, transactions, payout intent")
  )

/**
 * `svc admin`.
 *
 * @category running
 * @since 0.1.0
 */
export const admin = Command.make("admin").pipe(
  Command.withDescription("operator control of a deployment through its store"),
  Command.withSubcommands([status, pause, resume, route, settle, expire, permit])
)
