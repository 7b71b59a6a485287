/**
 * Cross-client checks, with the run's generated wallets only: payer A's
 * permit cannot be created, replayed or altered by payer B (B's signature, B's
 * key, another recipient); an idempotency key B reuses never returns A's
 * permit; and `/v1/status` lists behave as the deployment's privacy setting
 * says (`--status-lists`, default `all`: the setting is assumed, and the report
 * says which).
 *
 * @since 0.1.0
 */
import { PermitMessage, type Route } from "@svc/protocol"
import { Effect } from "effect"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import { Options } from "../RunOptions.ts"
import { asObject, failure, permitRequestFor, send, Shared, type Wallet } from "../Shared.ts"
import { type Env, type Json, sameAddress } from "./common.ts"

const CREATE = "/api/v6/execution-permits"

/** The two payers of the cross-client checks: A, the test wallet, and B, another generated wallet. */
const payers = Effect.gen(function*() {
  const shared = yield* Shared
  const b = shared.wallets.find((w) => w.address.toLowerCase() !== shared.wallet.address.toLowerCase())
  if (b === undefined) {
    return yield* new Check.Skip({ reason: "needs two wallets (--wallets 2 or more)" })
  }
  return { a: shared.wallet, b }
})

const request = (route: Route, payer: Wallet, key: string, recipient = payer.address) =>
  permitRequestFor(route, payer, key, { recipient })

const sign = (body: PermitMessage.PermitRequestInput, key: `0x${string}`) => ({
  ...body,
  requestSignature: PermitMessage.sign(PermitMessage.build(body), key)
})

const create = (body: unknown) => send({ method: "POST", path: CREATE, json: body })

const permitOf = (exchange: Exchange.Exchange) => asObject(asObject(asObject(Exchange.json(exchange))?.permit)?.permit)
const fillIdOf = (exchange: Exchange.Exchange) => String(asObject(asObject(Exchange.json(exchange))?.permit)?.fillId)

/** A's permit, created for this check (a fresh key), or a skip when the deployment issued none. */
const permitOfA = (route: Route, a: Wallet, key: string) =>
  Effect.gen(function*() {
    const body = sign(request(route, a, key), a.key)
    const exchange = yield* create(body)
    if (exchange.response.status !== 201) {
      return yield* new Check.Skip({
        reason: `prerequisite failed: payer A's permit was not issued (${
          Exchange.describe(exchange)
        }; see permit_create_201)`
      })
    }
    return { body, exchange, fillId: fillIdOf(exchange) }
  })

/** No 2xx, and none that carries A's permit. */
const refusedWithoutA = (
  exchange: Exchange.Exchange,
  fillIdA: string,
  what: string,
  rule: string
): ReadonlyArray<Check.Failure> => {
  const status = exchange.response.status
  if (status >= 200 && status < 300) {
    const leaks = fillIdOf(exchange).toLowerCase() === fillIdA.toLowerCase()
    return [failure(
      exchange,
      `${what} was ${leaks ? "answered with A's permit" : `accepted (${status})`}`,
      `a refusal (4xx): ${rule}`,
      Exchange.responseSummary(exchange)
    )]
  }
  if (status >= 500) {
    return [
      failure(exchange, `${what} answered ${status}`, `a refusal (4xx): ${rule}`, Exchange.responseSummary(exchange))
    ]
  }
  return []
}

const createForOther = Check.make<Env>({
  name: "clients_create_for_other_payer",
  group: "clients",
  title:
    "payer B cannot create a permit naming payer A: A's request signed by B is refused (4xx), claims nothing, and A's own signature then creates it (201)",
  reference:
    "spec §1.6 (a permit binds a specific payer), §5.3 (requestSignature by the payer); docs/operations.md, HTTP rules of the solver interface (a failed requestSignature -> 400, nothing stored)",
  createsPermit: true,
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const { a, b } = yield* payers
    const body = request(route, a, shared.newKey())
    const forged = yield* create(sign(body, b.key))
    const c = Check.collector()
    for (
      const f of refusedWithoutA(forged, "", "A's request signed by B", "spec §5.3, the signature is not the payer's")
    ) c.add(f)
    const honest = yield* create(sign(body, a.key))
    if (honest.response.status !== 201) {
      c.add(failure(
        honest,
        "A's own request, after B's forged attempt with the same key, is not a new permit",
        "201 (B's refused attempt claimed nothing)",
        Exchange.responseSummary(honest)
      ))
    } else if (!sameAddress(permitOf(honest)?.payer, a.address)) {
      c.add(failure(honest, "A's permit does not name A as payer", a.address, String(permitOf(honest)?.payer)))
    }
    yield* c.done
  })
})

const replayByOther = Check.make<Env>({
  name: "clients_replay_by_other_payer",
  group: "clients",
  title:
    "payer B cannot replay A's permit: A's exact request (A's key) signed by B is refused, never answered with A's permit",
  reference:
    "spec §4 createExecutionPermit rules 2-3 (only the identical request replays), §5.3; docs/protocol.md, Permit checks and lifecycle (a replayed signature must still verify)",
  createsPermit: true,
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const { a, b } = yield* payers
    const first = yield* permitOfA(route, a, shared.newKey())
    const { requestSignature: _, ...unsigned } = first.body
    const replay = yield* create(sign(unsigned, b.key))
    const c = Check.collector()
    for (const f of refusedWithoutA(replay, first.fillId, "A's request replayed with B's signature", "spec §5.3")) {
      c.add(f)
    }
    yield* c.done
  })
})

const alterByOther = Check.make<Env>({
  name: "clients_alter_by_other_payer",
  group: "clients",
  title:
    "payer B cannot alter A's permit: A's request with another recipient under A's key, signed by B, is refused, and A's permit stays as issued",
  reference:
    "spec §1.6 (a permit binds payer, recipient, amount), §4 createExecutionPermit rule 2, §5.3; §7 (409 idempotency conflict)",
  createsPermit: true,
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const { a, b } = yield* payers
    const first = yield* permitOfA(route, a, shared.newKey())
    const { requestSignature: _, ...unsigned } = first.body
    const altered = yield* create(sign({ ...unsigned, recipient: b.address }, b.key))
    const c = Check.collector()
    for (
      const f of refusedWithoutA(altered, first.fillId, "A's request with B as recipient, signed by B", "spec §5.3, §7")
    ) {
      c.add(f)
    }
    // A's permit is unchanged: its status still names A's recipient
    const status = yield* send({ path: `${CREATE}/${first.fillId}` })
    const permit = asObject(asObject(asObject(Exchange.json(status))?.permit)?.permit)
    if (status.response.status !== 200 || !sameAddress(permit?.recipient, a.address)) {
      c.add(failure(
        status,
        "A's permit changed after B's attempt",
        `200 with recipient ${a.address}`,
        Exchange.responseSummary(status)
      ))
    }
    yield* c.done
  })
})

const keyPerPayer = Check.make<Env>({
  name: "clients_key_scoped_per_payer",
  group: "clients",
  title:
    "an idempotency key A used, reused by payer B for B's own request, never returns A's permit: B gets its own (201) or a refusal",
  reference:
    "spec §4 createExecutionPermit rules 2-3 (the key replays the identical request only); docs/protocol.md, Permit checks and lifecycle (idempotency scoped per payer identity)",
  createsPermit: true,
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const { a, b } = yield* payers
    const first = yield* permitOfA(route, a, shared.newKey())
    const mine = yield* create(sign(request(route, b, first.body.idempotencyKey), b.key))
    const status = mine.response.status
    const c = Check.collector()
    if (status >= 200 && status < 300) {
      const permit = permitOf(mine)
      if (fillIdOf(mine).toLowerCase() === first.fillId.toLowerCase() || !sameAddress(permit?.payer, b.address)) {
        c.add(failure(
          mine,
          "B's request under A's key was answered with A's permit",
          `B's own permit (payer ${b.address}) or a refusal`,
          `fillId ${fillIdOf(mine)}, payer ${String(permit?.payer)}`
        ))
      }
    } else if (status >= 500) {
      c.add(
        failure(mine, `B's request under A's key answered ${status}`, "201 or a 4xx", Exchange.responseSummary(mine))
      )
    }
    yield* c.done
  })
})

const statusLists = Check.make<Env>({
  name: "clients_status_lists",
  group: "clients",
  title:
    "/v1/status lists follow the assumed privacy setting (--status-lists: all lists by quoteId and address, address by address only, none neither), and B's list never holds A's fill",
  reference:
    "spec §4 aggregator_status (quoteId, userAddress: up to 20 recent fills); svc's profile: docs/operations.md, Configuration (SVC_STATUS_LISTS; a refused list -> 400 STATUS_LIST_DISABLED)",
  createsPermit: true,
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const options = yield* Options
    if (!(yield* shared.aggregatorPresent)) {
      return yield* new Check.Skip({ reason: "the aggregator is not deployed (/v1/health answers 404)" })
    }
    const route = yield* shared.openRoute
    const { a, b } = yield* payers
    const setting = options.statusLists
    yield* Check.detail("assumed", `--status-lists ${setting}`)
    const first = yield* permitOfA(route, a, shared.newKey())
    const c = Check.collector()
    const fills = (exchange: Exchange.Exchange): ReadonlyArray<Json> => {
      const list = asObject(Exchange.json(exchange))?.transactions
      return Array.isArray(list) ? list.map((x) => asObject(x) ?? {}) : []
    }
    const judgeList = (exchange: Exchange.Exchange, what: string, listed: boolean) => {
      const status = exchange.response.status
      if (listed) {
        if (status !== 200) {
          c.add(failure(
            exchange,
            `${what} is not listed (${status}), though --status-lists ${setting} lists it`,
            `200 with the recent fills (the setting assumed: --status-lists ${setting})`,
            Exchange.responseSummary(exchange)
          ))
          return false
        }
        return true
      }
      if (status >= 200 && status < 300) {
        c.add(failure(
          exchange,
          `${what} is listed, though --status-lists ${setting} refuses it`,
          `a refusal (the setting assumed: --status-lists ${setting})`,
          Exchange.responseSummary(exchange)
        ))
      } else if (status !== 400 && status < 500) {
        c.warn(failure(
          exchange,
          `${what} is refused with ${status}`,
          "400 INVALID_REQUEST (STATUS_LIST_DISABLED)",
          Exchange.responseSummary(exchange)
        ))
      } else if (status >= 500) {
        c.add(failure(exchange, `${what} answered ${status}`, "a refusal (4xx)", Exchange.responseSummary(exchange)))
      }
      return false
    }
    const byA = yield* send({ path: `/v1/status?userAddress=${a.address}` })
    if (judgeList(byA, "A's fills by userAddress", setting !== "none")) {
      if (!fills(byA).some((f) => String(f.fillId).toLowerCase() === first.fillId.toLowerCase())) {
        c.add(
          failure(
            byA,
            "A's list by userAddress does not hold A's new fill",
            `fillId ${first.fillId}`,
            Exchange.responseSummary(byA)
          )
        )
      }
    }
    const byB = yield* send({ path: `/v1/status?userAddress=${b.address}` })
    if (judgeList(byB, "B's fills by userAddress", setting !== "none")) {
      const leaked = fills(byB).filter((f) =>
        String(f.fillId).toLowerCase() === first.fillId.toLowerCase() || sameAddress(f.userAddress, a.address)
      )
      if (leaked.length > 0) {
        c.add(
          failure(byB, "B's list by userAddress holds A's fill", "only fills whose user is B", Check.show(leaked[0]))
        )
      }
    }
    const byQuote = yield* send({ path: `/v1/status?quoteId=${route.quoteId}` })
    judgeList(byQuote, "the fills of a quoteId", setting === "all")
    yield* c.done
  })
})

/**
 * The cross-client checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [createForOther, replayByOther, alterByOther, keyPerPayer, statusLists]
