/**
 * `svc admin`: operator control of a running deployment, through its store (the
 * same SVC_STORE, SVC_DATA_DIR / DATABASE_URL the server uses: a store plug-in
 * too). The server notices changes
 * within a publisher tick (about a second).
 *
 * - `svc admin status`: the operator state (paused, route overrides).
 * - `svc admin pause [--reason text]` / `svc admin resume`: while paused, the feed,
 *   the stream and permit creation answer 503 PUBLICATION_CLOSED; open streams get
 *   publication-closed.
 * - `svc admin republish`: the server publishes a new feed version within about a
 *   second (event-stream subscribers get it at once), even when nothing changed.
 * - `svc admin route <routeId> <OPEN|PAUSED|TEMP_UNAVAILABLE|CLOSED|DAILY_OPEN|RESET>`:
 *   sets a route's executionStatus (OPEN, PAUSED, TEMP_UNAVAILABLE), its
 *   dailyStatus (CLOSED, DAILY_OPEN), or removes the override (RESET). The route
 *   must be in the deployment's catalog (SVC_CATALOG, else the demo catalog); RESET
 *   also clears an override the store holds for a route the catalog no longer has.
 * - `svc admin settle <fillId> <source-observed|source-confirmed|payout-submitted|paid|failed> [txHash|reason]`:
 *   records a lifecycle observation through the SettlementObserver (until chain
 *   watchers exist, this is how states past ISSUED are reached).
 * - `svc admin expire`: expires due permits now.
 * - `svc admin permit <fillId>`: what the store holds of a permit: its state and
 *   reasonCodes (why it FAILED, what its payout waits for: the public status
 *   carries the state only) with `waitingFor` in words, its transaction hashes,
 *   amounts, times and every payout transaction signed for it.
 * - `svc admin payouts retry <fillId>`: releases a payout that waits for the
 *   operator (`PAYOUT_NEEDS_OPERATOR`: its reverts used the budget); the running
 *   server tries it again at its next pass.
 *
 * Output is one JSON value on stdout, naming the store it acted on (`store`:
 * `sqlite:<absolute path of the database file>`, `postgres:<database name>`, or
 * a store plug-in as SVC_STORE names it);
 * errors exit 2.
 *
 * @since 0.1.0
 */
import { Catalog, ChainSettlement, Connector, Settlement, Store } from "@svc/core"
import { Server, ServerConfig } from "@svc/server"
import { isSpecifier } from "@svc/server/PluginChoice"
import * as Plugins from "@svc/server/Plugins"
import { StoreConfig } from "@svc/store"
import { ConfigProvider, Effect, type FileSystem, Layer, Option, Redacted, type Stdio } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { resolve } from "node:path"
import { BadInput, writeJson } from "./Io.ts"

const oneLine = (e: unknown) => String((e as { message?: string })?.message ?? e).replace(/\s*\n\s*/g, " ")

const config = ServerConfig.load.pipe(Effect.mapError((e) => new BadInput({ message: e.message })))

const storeOptions = (c: ServerConfig.ServerConfig) => ({
  databaseUrl: Option.getOrUndefined(c.databaseUrl),
  dataDir: c.dataDir
})

/**
 * The store a configuration selects, by name: `sqlite:<absolute path of the
 * database file>` or `postgres:<database name>` (never the URL, its host or its
 * password).
 *
 * @category running
 * @since 0.1.0
 */
export const storeName = (options: StoreConfig.StoreConfigOptions): string => {
  const url = options.databaseUrl === undefined ? undefined : Redacted.value(options.databaseUrl)
  if (url !== undefined && StoreConfig.isPostgresUrl(url)) {
    const parsed = URL.canParse(url) ? new URL(url) : undefined
    const database = decodeURIComponent(parsed?.pathname.replace(/^\/+/, "") ?? "")
    // PostgreSQL's own default: the database named as the user
    return `postgres:${database || decodeURIComponent(parsed?.username ?? "") || "postgres"}`
  }
  return `sqlite:${resolve(StoreConfig.sqliteFilename(options.dataDir))}`
}

/** Whether SVC_STORE names a store plug-in (a package or a path) rather than a built-in store. */
const pluginStore = (c: ServerConfig.ServerConfig) => c.store !== undefined && isSpecifier(c.store)

/** The store the server would open: the store plug-in SVC_STORE names, else the built-in DATABASE_URL selects. */
const storeLayer = Layer.unwrap(
  Effect.flatMap(config, (c) =>
    Plugins.loadStore(c, { cwd: process.cwd(), context: { networks: [] } }).pipe(
      Effect.map((store) => store.layer),
      Effect.mapError((e) => new BadInput({ message: e.message }))
    ))
)

/** The name of the store the admin commands act on (a store plug-in: as SVC_STORE names it). */
const currentStore = Effect.map(config, (c) => pluginStore(c) ? c.store! : storeName(storeOptions(c)))

/**
 * Tells every replica (PostgreSQL: NOTIFY) that the operator state changed; best effort, they poll too
 * (a store plug-in: they poll).
 */
const announceChange = Effect.flatMap(
  config,
  (c) => pluginStore(c) ? Effect.void : StoreConfig.announceFromUrl(storeOptions(c), "operator", "changed")
)
  .pipe(
    Effect.catchCause((cause) => Effect.logWarning("could not notify the replicas; they notice within a tick", cause))
  )

/** A store that cannot open names the setting that chose it, the store and the driver's reason. */
const openFailure = (e: Store.StoreError) =>
  Effect.flatMap(config, (c) =>
    Effect.fail(
      new BadInput({
        message: `${Option.isSome(c.databaseUrl) ? "DATABASE_URL" : "SVC_DATA_DIR"}: cannot open the store ${
          storeName(storeOptions(c))
        }: ${oneLine(e).replace(/^store open failed: /, "")}`
      })
    ))

/** Errors as one line: a store that cannot open names it. */
const oneLineErrors = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.catch(self, (e: E) =>
    e instanceof Store.StoreError && e.operation === "open"
      ? openFailure(e)
      : Effect.fail(e instanceof BadInput ? e : new BadInput({ message: oneLine(e) })))

const withStore = <A, E>(f: (store: Store.StoreShape) => Effect.Effect<A, E>) =>
  Effect.flatMap(Effect.service(Store.Store), f).pipe(Effect.provide(storeLayer), oneLineErrors)

/** Writes the answer of an admin command with the name of its store first. */
const answer = (value: object): Effect.Effect<void, BadInput, FileSystem.FileSystem | Stdio.Stdio> =>
  Effect.flatMap(currentStore, (store) => writeJson({ store, ...value }))

/**
 * The routeIds of the deployment's catalog (SVC_CATALOG, else the demo catalog),
 * resolved as the server resolves them (with the configured connectors).
 */
const catalogRouteIds = Effect.gen(function*() {
  const source = yield* ServerConfig.provider.pipe(Effect.mapError((e) => new BadInput({ message: e.message })))
  const c = yield* ServerConfig.fromProvider(source).pipe(Effect.mapError((e) => new BadInput({ message: e.message })))
  const path = Option.getOrElse(c.catalogPath, () => Server.DEMO_CATALOG_PATH)
  const document = yield* Server.readDocument(path, "SVC_CATALOG")
  const registrations = yield* Server.connectors(c, document).pipe(
    Effect.provideService(ConfigProvider.ConfigProvider, source)
  )
  const catalog = yield* Effect.fromResult(
    Catalog.fromUnknown(document, { registry: Connector.makeRegistry(registrations), profile: c.profile })
  ).pipe(Effect.mapError((e) => new BadInput({ message: `SVC_CATALOG: ${e.message}` })))
  return {
    where: Option.isSome(c.catalogPath) ? c.catalogPath.value : "the demo catalog",
    routeIds: new Set(catalog.routes.map((r) => r.routeId.toLowerCase())),
    networkKeys: catalog.networks.map((n) => n.key)
  }
}).pipe(Effect.mapError((e) => e instanceof BadInput ? e : new BadInput({ message: oneLine(e) })))

const status = Command.make(
  "status",
  {},
  () => withStore((store) => store.operatorState).pipe(Effect.flatMap(answer))
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
      Effect.flatMap(answer)
    )
).pipe(Command.withDescription("pause publication: feed, stream and permit creation answer 503"))

const resume = Command.make(
  "resume",
  {},
  () =>
    withStore((store) => store.setPaused(false, null)).pipe(Effect.tap(() => announceChange), Effect.flatMap(answer))
).pipe(
  Command.withDescription("resume publication")
)

const republish = Command.make(
  "republish",
  {},
  () =>
    withStore((store) =>
      Effect.gen(function*() {
        const state = yield* store.operatorState
        if (state.paused) {
          return yield* new BadInput({
            message: "publication is paused: nothing is published until svc admin resume (which publishes)"
          })
        }
        return yield* store.requestPublication
      })
    ).pipe(
      Effect.tap(() => announceChange),
      Effect.flatMap((state) => answer({ republishRequested: true, version: state.version }))
    )
).pipe(
  Command.withDescription(
    "publish a new feed version now, even when nothing changed: the server does within about a second and event-stream subscribers get it"
  ),
  Command.withShortDescription("publish a new feed version within about a second")
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
    const catalog = yield* catalogRouteIds
    return yield* withStore((store) =>
      Effect.gen(function*() {
        const state = yield* store.operatorState
        // RESET may clear what the store holds for a route the catalog no longer has
        if (!catalog.routeIds.has(id) && !(status === "RESET" && id in state.routes)) {
          return yield* new BadInput({
            message: `route ${routeId} is not in the catalog (${catalog.where}); its routeIds are in the feed's routes`
          })
        }
        const current = state.routes[id] ?? {}
        const next = status === "RESET"
          ? {}
          : status === "CLOSED"
          ? { ...current, dailyStatus: "CLOSED" as const }
          : status === "DAILY_OPEN"
          ? { ...current, dailyStatus: "OPEN" as const }
          : { ...current, executionStatus: status }
        return yield* store.setRouteOverride(id, next)
      })
    ).pipe(Effect.tap(() => announceChange), Effect.flatMap(answer))
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
      oneLineErrors
    )
    yield* answer({
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
    oneLineErrors,
    Effect.flatMap((expired) => answer({ expired }))
  )).pipe(Command.withDescription("expire every permit past validUntil + grace now"))

const permit = Command.make("permit", {
  fillId: Argument.String("fillId").pipe(Argument.withDescription("the permit's fillId"))
}, ({ fillId }) =>
  Effect.flatMap(currentStore, (where) =>
    withStore((store) =>
      Effect.gen(function*() {
        const id = fillId.toLowerCase()
        const record = yield* store.getPermit(id)
        if (record === undefined) return yield* new BadInput({ message: `no permit with fillId ${fillId} in ${where}` })
        const intents = yield* store.payoutIntents(id)
        const intent = intents.at(-1)
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
          waitingFor: record.reasonCodes.flatMap((code) => {
            const reason = ChainSettlement.REASONS[code]
            return reason === undefined ? [] : [`${code}: ${reason}`]
          }),
          payoutIntent: intent === undefined ? null : {
            txHash: intent.txHash,
            sender: intent.sender,
            nonce: intent.nonce,
            attempt: intent.attempt
          },
          payoutTransactions: intents.map((i) => ({
            txHash: i.txHash,
            nonce: i.nonce,
            attempt: i.attempt,
            maxFeePerGas: i.maxFeePerGas?.toString() ?? null,
            maxPriorityFeePerGas: i.maxPriorityFeePerGas?.toString() ?? null,
            outcome: i.outcome ?? null,
            signedAt: new Date(i.createdAt).toISOString()
          }))
        }
      })
    )).pipe(Effect.flatMap(answer))).pipe(
    Command.withDescription(
      "print what the store holds of a permit: state, reasonCodes, what it waits for, its transactions"
    )
  )

const retry = Command.make("retry", {
  fillId: Argument.String("fillId").pipe(Argument.withDescription("the fillId of a payout waiting for the operator"))
}, ({ fillId }) =>
  Effect.flatMap(currentStore, (where) =>
    withStore((store) =>
      Effect.gen(function*() {
        const id = fillId.toLowerCase()
        const record = yield* store.getPermit(id)
        if (record === undefined) return yield* new BadInput({ message: `no permit with fillId ${fillId} in ${where}` })
        if (record.state !== "PAYOUT_SUBMITTED" || !record.reasonCodes.includes("PAYOUT_NEEDS_OPERATOR")) {
          return yield* new BadInput({
            message: `permit ${fillId} does not wait for the operator (state ${record.state}, reasonCodes ${
              JSON.stringify(record.reasonCodes)
            })`
          })
        }
        const reverted = (yield* store.payoutIntents(id)).filter((i) => i.outcome === "REVERTED")
        for (const intent of reverted) yield* store.markPayoutIntent(intent.txHash, "RETRIED")
        yield* store.setReasonCodes(id, record.reasonCodes.filter((c) => c !== "PAYOUT_NEEDS_OPERATOR"))
        return { fillId: id, released: reverted.length }
      })
    )).pipe(Effect.flatMap(answer))).pipe(
    Command.withDescription(
      "release a payout waiting for the operator (its reverts used the budget): it is tried again"
    )
  )

const networkArgument = Argument.String("network").pipe(
  Argument.withDescription("a catalog network key; none: every network"),
  Argument.optional
)

/** Pauses or resumes payouts on one network (by its catalog key) or on all of them (`*`). */
const setPayouts = (network: Option.Option<string>, paused: boolean, reason: string | null) =>
  Effect.gen(function*() {
    const key = Option.getOrElse(network, () => "*")
    if (key !== "*") {
      const catalog = yield* catalogRouteIds
      if (!catalog.networkKeys.includes(key)) {
        return yield* new BadInput({
          message: `network ${key} is not in the catalog (${catalog.where}); its networks: ${
            catalog.networkKeys.join(", ")
          }`
        })
      }
    }
    const state = yield* withStore((store) => store.setPayoutsPaused(key, paused, reason))
    return yield* answer({ payoutPauses: state.payoutPauses })
  })

const payoutsPause = Command.make("pause", {
  network: networkArgument,
  reason: Flag.String("reason").pipe(Flag.withDescription("why (kept with the pause)"), Flag.optional)
}, ({ network, reason }) => setPayouts(network, true, Option.getOrNull(reason))).pipe(
  Command.withDescription(
    "stop sending payouts on a network (or all): the watchers go on, payouts wait (PAYOUTS_PAUSED), across replicas"
  )
)

const payoutsResume = Command.make(
  "resume",
  { network: networkArgument },
  ({ network }) => setPayouts(network, false, null)
).pipe(Command.withDescription("send payouts again on a network (or all that were paused together)"))

const payouts = Command.make("payouts").pipe(
  Command.withDescription("payouts of the running deployment"),
  Command.withSubcommands([payoutsPause, payoutsResume, retry])
)

/**
 * `svc admin`.
 *
 * @category running
 * @since 0.1.0
 */
export const admin = Command.make("admin").pipe(
  Command.withDescription("operator control of a deployment through its store"),
  Command.withSubcommands([status, pause, resume, republish, route, settle, expire, permit, payouts])
)
