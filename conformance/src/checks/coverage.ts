/**
 * The coverage phase: deterministic boundary and negative cases for every
 * operation that takes an input, generated from the declared schemas
 * (Coverage.ts), each sent once and judged by the class the spec gives it. A
 * case answered outside the statuses the spec allows fails with its curl; a
 * case answered with another allowed status than svc's documented profile
 * gives is a warning. `--coverage quick` (the default) sends one case per input
 * and class, `--coverage full` every boundary, `--coverage off` none.
 *
 * @since 0.1.0
 */
import {
  AggregatorError,
  ErrorResponse,
  PermitCreateRequest,
  PermitMessage,
  PermitRequest,
  Signature
} from "@svc/protocol"
import { Effect, type Schema } from "effect"
import * as Check from "../Check.ts"
import {
  ABSENT,
  accepted,
  badAddresses,
  badBytes32,
  badUints,
  type Case,
  type Depth,
  duplicateKey,
  type Expectation,
  type Field,
  fieldsOf,
  keys,
  open,
  padTo,
  refused,
  select,
  type Value,
  WRONG_TYPES,
  wrongChecksum
} from "../Coverage.ts"
import * as Exchange from "../Exchange.ts"
import * as Independent from "../Independent.ts"
import * as Operations from "../Operations.ts"
import { Options } from "../RunOptions.ts"
import { failure, permitRequestFor, randomHex, send, Shared, type Wallet } from "../Shared.ts"
import { type Request, Transport } from "../Transport.ts"
import type { Env, Json } from "./common.ts"

const MESSAGE = "/api/v6/execution-permits/request-message"
const CREATE = "/api/v6/execution-permits"
const FEED = "/api/v6/solver-feed"
const EVENTS = "/api/v6/solver-feed/events"
const LIMIT = 32 * 1024

/** The statuses the spec documents for an aggregator operation. */
const AGGREGATOR = [400, 403, 404, 405, 409, 410, 413, 429, 503]

// ---------------------------------------------------------------------------
// Sending and judging
// ---------------------------------------------------------------------------

/** A case sent over HTTP: its request, and requests to send first (their answers must be 2xx). */
interface HttpInput {
  readonly request: Request
  readonly before?: ReadonlyArray<Request> | undefined
}

const describeClass = (e: Expectation) =>
  e.class === "accepted" ? `accepted (${e.spec.join(" or ")})` : `${e.spec.join(" or ")}`

/**
 * Judges one answered case: outside the spec's statuses it fails; a refusal
 * without the interface's error body fails; a success without its schema
 * fails; another allowed status than svc's profile is a warning.
 */
const judge = (
  c: Case<HttpInput>,
  exchange: Exchange.Exchange,
  collector: ReturnType<typeof Check.collector>
) => {
  const status = exchange.response.status
  const e = c.expect
  const path = new URL(exchange.request.url).pathname
  if (!e.spec.includes(status)) {
    collector.add(failure(
      exchange,
      `${c.label}: the spec gives ${
        e.class === "accepted" ? "an accepted request" : `a ${e.class}`
      }, the answer was ${status}`,
      `${describeClass(e)} (${e.rule})`,
      Exchange.responseSummary(exchange)
    ))
    return
  }
  const rule = Operations.bodyRuleOf(exchange.request.method, path, status)
  if (typeof rule !== "string") {
    const issues = Check.schemaIssues(
      status >= 400 ? (path.startsWith("/v1/") ? AggregatorError : ErrorResponse) : rule,
      Exchange.json(exchange)
    )
    if (issues.length > 0) {
      collector.add(failure(
        exchange,
        `${c.label}: the ${status} answer is not a strict ${Check.schemaName(rule)}`,
        `a strict ${Check.schemaName(rule)}`,
        issues.slice(0, 4).join("; ")
      ))
      return
    }
  }
  if (e.profile !== undefined && status !== e.profile) {
    collector.warn(failure(
      exchange,
      `${c.label}: svc's profile answers ${e.profile}, the answer was ${status} (the spec allows ${e.spec.join(", ")})`,
      `${e.profile} (${e.profileRule ?? "svc's profile"})`,
      Exchange.responseSummary(exchange)
    ))
  }
}

/**
 * Sends every case and judges it. A case answered 503 (unavailable) is not
 * judged; when no case could be, the check is inconclusive.
 */
const runCases = (cases: ReadonlyArray<Case<HttpInput>>) =>
  Effect.gen(function*() {
    const c = Check.collector()
    let judged = 0
    let unavailable: Exchange.Exchange | undefined
    for (const item of cases) {
      let ready = true
      for (const first of item.input.before ?? []) {
        const setup = yield* send(first)
        if (setup.response.status >= 300) {
          ready = false
          unavailable ??= setup
          break
        }
      }
      if (!ready) continue
      const exchange = yield* send(item.input.request)
      if (exchange.response.status === 503) {
        unavailable ??= exchange
        continue
      }
      judged++
      judge(item, exchange, c)
    }
    yield* Check.detail("cases", `${judged} judged of ${cases.length}`)
    if (judged === 0 && unavailable !== undefined) {
      return yield* new Check.Inconclusive({
        reason: `no case could be judged: ${Exchange.describe(unavailable)} ${
          Exchange.responseSummary(unavailable, 200)
        }`
      })
    }
    yield* c.done
  })

const depthOf = Effect.map(Effect.service(Options), (o) => (o.coverage === "full" ? "full" : "quick") as Depth)

const json = (path: string, body: unknown, headers?: Readonly<Record<string, string>>): Request => ({
  method: "POST",
  path,
  body: JSON.stringify(body),
  headers: { "content-type": "application/json", ...headers }
})

const raw = (path: string, body: string, headers: Readonly<Record<string, string>>): Request => ({
  method: "POST",
  path,
  body,
  headers
})

const kase = <A>(label: string, depth: Depth, input: A, expect: Expectation): Case<A> => ({
  label,
  depth,
  input,
  expect
})

// ---------------------------------------------------------------------------
// Permit request bodies, from the declared schemas
// ---------------------------------------------------------------------------

const R = {
  schema: (field: string) => `spec §2 PermitRequest (${field})`,
  required: "spec §2 PermitRequest (required: quoteId, requestedAmountInRaw, idempotencyKey)",
  identity: "spec §2 PermitRequest rules 1-2 (payer identity, recipient identity)",
  unknown: "spec §2 (all objects reject properties not listed)",
  quote: "spec §3 (a quote that is not open -> 410); §7 (410)",
  limit: "spec §7 (413 above 32 KiB); §8 Limits",
  keyLength: "spec §8 Limits (idempotencyKey 8..128 of a-z A-Z 0-9 . _ : -)",
  signature: "spec §5.3 (creation requires requestSignature, by the payer, over the canonical message)",
  conflict: "spec §4 createExecutionPermit rule 2; §7 (409 idempotency conflict)",
  profile: {
    amounts:
      "docs/protocol.md, Permit checks and lifecycle (0 or >= 2^128 -> 400, below minimumFillInRaw -> 400, above maxAvailableInRaw -> 409)",
    checksum: "docs/protocol.md, Normalisation rules (a mixed-case address with a bad checksum -> 400)",
    standard: "docs/protocol.md, Permit checks and lifecycle (a standard other than DIRECT or ERC-7683 -> 400)",
    nulls: "docs/protocol.md, Normalisation rules (null counts as absent for every identity field)",
    highS: "docs/protocol.md, Where svc decided what the spec leaves open (high-s refused on every input path)"
  }
} as const

interface BodyContext {
  readonly route: { readonly quoteId: string; readonly minimumFillInRaw: string; readonly maxAvailableInRaw: string }
  readonly sourceNetworkId: string
  readonly destinationNetworkId: string
  readonly payer: Wallet
  readonly other: Wallet
  readonly newKey: () => string
  readonly forCreate: boolean
}

/** A body case before signing: the body's properties (ABSENT removes one) or a raw JSON text. */
interface BodyCase {
  readonly label: string
  readonly depth: Depth
  readonly edit: (base: Json) => Json | { readonly text: string }
  readonly expect: Expectation
  /** Create only: what to do with the signature (default: sign the edited request when it can be built). */
  readonly signature?: (base: Json, signed: string) => Value
}

const without = (body: Json, ...names: ReadonlyArray<string>): Json =>
  Object.fromEntries(Object.entries(body).filter(([k]) => !names.includes(k)))

const set = (body: Json, name: string, value: Value): Json =>
  value === ABSENT ? without(body, name) : { ...body, [name]: value }

const wrongTypeCases = (field: Field): ReadonlyArray<BodyCase> =>
  (field.primitive === "Locator"
    ? [["a string", "x", "full"] as const, ["a number", 1, "full"] as const]
    : WRONG_TYPES).map(([what, value, depth]) => ({
      label: `${field.name}: ${what}`,
      depth,
      edit: (b) => set(b, field.name, value),
      expect: refused(400, R.schema(`${field.name}: ${field.primitive}`))
    }))

/** The cases of one property, by its primitive and its role in the request. */
const fieldCases = (field: Field, ctx: BodyContext): ReadonlyArray<BodyCase> => {
  const ok = accepted(ctx.forCreate ? [201] : [200], R.schema(`${field.name}: ${field.primitive}`))
  const bad = refused(400, R.schema(`${field.name}: ${field.primitive}`))
  const out: Array<BodyCase> = []
  const value = (label: string, depth: Depth, v: Value, expect: Expectation) =>
    out.push({ label: `${field.name}: ${label}`, depth, edit: (b) => set(b, field.name, v), expect })
  if (field.required && ["quoteId", "requestedAmountInRaw", "idempotencyKey"].includes(field.name)) {
    value("missing", "quick", ABSENT, refused(400, R.required))
  }
  if (field.name === "requestSignature") return out
  out.push(...wrongTypeCases(field))
  switch (field.primitive) {
    case "Bytes32": {
      if (field.name === "quoteId") {
        value("uppercase hex of the open route's quote", "full", `0x${ctx.route.quoteId.slice(2).toUpperCase()}`, ok)
        value("a well-formed quote no route has", "quick", randomHex(32), refused(410, R.quote))
        for (const [what, v, depth] of badBytes32) value(what, depth, v, bad)
      } else {
        // an account id beside the address form: two identities for one side
        const side = field.name.startsWith("payer") ? "payer" : "recipient"
        out.push({
          label: `${field.name}: beside the address form (with its locator)`,
          depth: side === "payer" ? "quick" : "full",
          edit: (b) => ({ ...b, ...accountForm(ctx, side) }),
          expect: refused(400, R.identity)
        })
        if (field.nullable) {
          value(
            "null beside the address form",
            "full",
            null,
            open("accepted", [ctx.forCreate ? 201 : 200, 400], ctx.forCreate ? 201 : 200, R.identity, R.profile.nulls)
          )
        }
        const address = ctx.payer.address
        for (const [what, v, depth] of badBytes32.slice(0, 2)) {
          out.push({
            label: `${field.name}: ${what} (account form)`,
            depth: depth === "quick" ? "full" : depth,
            edit: (b) => ({ ...without(b, side), [`${side}AccountId`]: v, [`${side}Locator`]: { native: address } }),
            expect: bad
          })
        }
      }
      return out
    }
    case "Address": {
      // the base request names the payer's wallet on both sides
      const own = ctx.payer.address
      value("lowercase (no checksum)", "quick", own.toLowerCase(), ok)
      value("uppercase hex (no checksum)", "full", `0x${own.slice(2).toUpperCase()}`, ok)
      if (field.name === "recipient") value("another address", "full", ctx.other.address, ok)
      const wrong = wrongChecksum(own)
      if (wrong !== undefined) {
        value(
          "mixed case with a wrong EIP-55 checksum",
          field.name === "payer" ? "quick" : "full",
          wrong,
          open("400", [ctx.forCreate ? 201 : 200, 400], 400, R.schema(`${field.name}: Address`), R.profile.checksum)
        )
      }
      for (const [what, v, depth] of badAddresses) value(what, field.name === "payer" ? depth : "full", v, bad)
      if (field.nullable) {
        value(
          "null (no identity)",
          "full",
          null,
          refused(400, R.identity)
        )
      }
      value("missing (no identity)", field.name === "payer" ? "quick" : "full", ABSENT, refused(400, R.identity))
      return out
    }
    case "UintStr": {
      const min = BigInt(ctx.route.minimumFillInRaw)
      const max = BigInt(ctx.route.maxAvailableInRaw)
      const amountRule = R.schema("requestedAmountInRaw: UintStr")
      value("minimumFillInRaw", "quick", String(min), ok)
      if (!ctx.forCreate) value("maxAvailableInRaw", "full", String(max), ok)
      const refusal = ctx.forCreate ? [400, 409] : [400, 409]
      value("0", "quick", "0", open("400", [ctx.forCreate ? 201 : 200, ...refusal], 400, amountRule, R.profile.amounts))
      if (min > 1n) {
        value(
          "minimumFillInRaw - 1",
          "full",
          String(min - 1n),
          open("400", refusal, 400, amountRule, R.profile.amounts)
        )
      }
      value("maxAvailableInRaw + 1", "full", String(max + 1n), open("409", refusal, 409, amountRule, R.profile.amounts))
      value("2^128", "full", String(1n << 128n), open("400", refusal, 400, amountRule, R.profile.amounts))
      value(
        "79 digits (beyond uint256)",
        "full",
        `1${"0".repeat(78)}`,
        open("400", refusal, 400, amountRule, R.profile.amounts)
      )
      for (const [what, v, depth] of badUints) value(what, depth, v, bad)
      return out
    }
    case "IdempotencyKey": {
      for (const [what, v, validity, depth] of keys(ctx.newKey)) {
        value(what, depth, v, validity === "valid" ? ok : refused(400, R.keyLength))
      }
      return out
    }
    case "StandardName": {
      value("lowercase direct (the canonical form is uppercase)", "quick", "direct", ok)
      value("absent (DIRECT by default)", "full", ABSENT, ok)
      value(
        "64 characters (well formed, supported by no one)",
        "full",
        "A".repeat(64),
        open("400", [ctx.forCreate ? 201 : 200, 400], 400, R.schema("standard: StandardName"), R.profile.standard)
      )
      value("65 characters", "quick", "A".repeat(65), bad)
      value("a leading -", "full", "-DIRECT", bad)
      value("a space", "full", "DIR ECT", bad)
      value("empty", "full", "", bad)
      return out
    }
    case "Locator": {
      const side = field.name.startsWith("payer") ? "payer" : "recipient"
      out.push({
        label: `${field.name}: without its account id, beside the address form`,
        depth: "full",
        edit: (b) => ({ ...b, [field.name]: { native: ctx.payer.address.toLowerCase() } }),
        expect: refused(400, R.identity)
      }, {
        label: `${field.name}: without its account id, instead of the address form`,
        depth: side === "payer" ? "full" : "full",
        edit: (b) => ({ ...without(b, side), [field.name]: { native: ctx.payer.address.toLowerCase() } }),
        expect: refused(400, R.identity)
      })
      return out
    }
    case "String":
      return out
  }
}

/** The account form of a side: the wallet's account id on the side's network and its locator. */
const accountForm = (ctx: BodyContext, side: "payer" | "recipient") => {
  const network = side === "payer" ? ctx.sourceNetworkId : ctx.destinationNetworkId
  const address = ctx.payer.address
  return {
    [`${side}AccountId`]: Independent.accountId(network, `0x${address.slice(2).toLowerCase().padStart(64, "0")}`),
    [`${side}Locator`]: { native: address.toLowerCase() }
  }
}

/** Every case of a permit request body (request-message, or creation with its signature). */
const bodyCases = (schema: Schema.Top, ctx: BodyContext): ReadonlyArray<BodyCase> => {
  const ok = accepted(ctx.forCreate ? [201] : [200], R.identity)
  const cases: Array<BodyCase> = []
  for (const field of fieldsOf(schema)) cases.push(...fieldCases(field, ctx))
  cases.push(
    {
      label: "payer in the account form (account id and locator)",
      depth: "full",
      edit: (b) => ({ ...without(b, "payer"), ...accountForm(ctx, "payer") }),
      expect: ok
    },
    {
      label: "recipient in the account form (account id and locator)",
      depth: "full",
      edit: (b) => ({ ...without(b, "recipient"), ...accountForm(ctx, "recipient") }),
      expect: ok
    },
    {
      label: "an unknown property",
      depth: "quick",
      edit: (b) => ({ ...b, extra: 1 }),
      expect: refused(400, R.unknown)
    },
    {
      label: "a property in another case (QuoteId)",
      depth: "full",
      edit: (b) => ({ ...b, QuoteId: b.quoteId }),
      expect: refused(400, R.unknown)
    },
    {
      label: "an own __proto__ property",
      depth: "full",
      edit: (b) => ({ text: `{"__proto__":{"x":1},${JSON.stringify(b).slice(1)}` }),
      expect: refused(400, R.unknown)
    }
  )
  for (
    const [what, text, depth] of [
      ["an array", "[]", "quick"],
      ["a string", "\"x\"", "full"],
      ["a number", "1", "full"],
      ["null", "null", "full"],
      ["true", "true", "full"]
    ] as const
  ) {
    cases.push({
      label: `the body is ${what}`,
      depth,
      edit: () => ({ text }),
      expect: refused(400, "spec §2 PermitRequest (an object); §7 (400 invalid request)")
    })
  }
  if (ctx.forCreate) {
    const sig = refused(400, R.signature)
    const other = Signature.addressOf(ctx.other.key) === ctx.payer.address ? undefined : ctx.other
    cases.push(
      { label: "requestSignature: missing", depth: "quick", edit: (b) => b, signature: () => ABSENT, expect: sig },
      { label: "requestSignature: empty", depth: "full", edit: (b) => b, signature: () => "", expect: sig },
      { label: "requestSignature: only 0x", depth: "full", edit: (b) => b, signature: () => "0x", expect: sig },
      {
        label: "requestSignature: 65 bytes that recover no one's signature of the message",
        depth: "full",
        edit: (b) => b,
        signature: () => `0x${"ab".repeat(65)}`,
        expect: sig
      },
      {
        label: "requestSignature: by another key than the payer's",
        depth: "quick",
        edit: (b) => b,
        signature: (b) =>
          PermitMessage.sign(
            PermitMessage.build(b as unknown as PermitMessage.PermitRequestInput),
            (other ?? ctx.payer).key
          ),
        expect: other === undefined ? refused(400, R.signature) : sig
      },
      {
        label: "requestSignature: the payer's, over another message (a trailing LF)",
        depth: "full",
        edit: (b) => b,
        signature: (b) =>
          PermitMessage.sign(
            `${PermitMessage.build(b as unknown as PermitMessage.PermitRequestInput)}\n`,
            ctx.payer.key
          ),
        expect: sig
      },
      {
        label: "requestSignature: the high-s twin of the payer's signature",
        depth: "full",
        edit: (b) => b,
        signature: (_b, signed) => Signature.highSTwin(signed as `0x${string}`),
        expect: open("400", [201, 400], 400, R.signature, R.profile.highS)
      },
      ...WRONG_TYPES.map(([what, v, depth]): BodyCase => ({
        label: `requestSignature: ${what}`,
        depth: depth === "quick" ? "full" : depth,
        edit: (b) => b,
        signature: () => v,
        expect: sig
      }))
    )
  }
  return cases
}

/** The signed (create) or plain (request-message) body of a case. */
const bodyOf = (c: BodyCase, base: Json, ctx: BodyContext): string => {
  const edited = c.edit(base)
  if ("text" in edited && typeof edited.text === "string") return edited.text
  const body = edited as Json
  if (!ctx.forCreate) return JSON.stringify(body)
  // sign what the case sends when it is a request at all, else the base request
  let signed: string
  try {
    signed = PermitMessage.sign(PermitMessage.build(body as unknown as PermitMessage.PermitRequestInput), ctx.payer.key)
  } catch {
    signed = PermitMessage.sign(PermitMessage.build(base as unknown as PermitMessage.PermitRequestInput), ctx.payer.key)
  }
  const signature = c.signature === undefined ? signed : c.signature(body, signed)
  return JSON.stringify(set(body, "requestSignature", signature))
}

const bodyCheck = (forCreate: boolean) =>
  Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const depth = yield* depthOf
    const payer = forCreate ? shared.nextWallet() : shared.wallet
    const other = shared.wallets.find((w) => w.address !== payer.address) ?? payer
    const ctx: BodyContext = {
      route,
      sourceNetworkId: String(route.sourceNetworkId),
      destinationNetworkId: String(route.destinationNetworkId),
      payer,
      other,
      newKey: shared.newKey,
      forCreate
    }
    const path = forCreate ? CREATE : MESSAGE
    const base = (): Json => ({ ...permitRequestFor(route, payer, shared.newKey()) })
    const all = bodyCases(forCreate ? PermitCreateRequest : PermitRequest, ctx)
    const cases: Array<Case<HttpInput>> = (depth === "full" ? all : all.filter((c) => c.depth === "quick"))
      .map((c) =>
        kase(
          c.label,
          c.depth,
          { request: raw(path, bodyOf(c, base(), ctx), { "content-type": "application/json" }) },
          c.expect
        )
      )
    if (forCreate) {
      // 409: the key of a created permit, reused by its payer with another amount
      const first = base()
      const signedFirst = {
        ...first,
        requestSignature: PermitMessage.sign(PermitMessage.build(first as never), payer.key)
      }
      const changed = { ...first, requestedAmountInRaw: (BigInt(route.minimumFillInRaw) + 1n).toString() }
      const signedChanged = {
        ...changed,
        requestSignature: PermitMessage.sign(PermitMessage.build(changed as never), payer.key)
      }
      cases.push(kase(
        "idempotencyKey: reused by its payer with another amount",
        "quick",
        { before: [json(CREATE, signedFirst)], request: json(CREATE, signedChanged) },
        refused(409, R.conflict)
      ))
    }
    return yield* runCases(cases)
  })

// ---------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------

const requestMessageBody = Check.make<Env>({
  name: "coverage_request_message_body",
  group: "coverage",
  title:
    "request-message bodies generated from the PermitRequest schema (every property's boundaries, wrong types, identities, unknown properties) get the class the spec gives them",
  reference:
    "spec §2 PermitRequest (fields, rules 1-2), §3, §4 buildPermitRequestMessage, §7, §8; svc's profile: docs/protocol.md, Normalisation rules; Permit checks and lifecycle",
  run: bodyCheck(false)
})

const createBody = Check.make<Env>({
  name: "coverage_create_body",
  group: "coverage",
  title:
    "permit creations generated from the PermitCreateRequest schema (boundaries, identities, signatures, a reused key) get the class the spec gives them",
  reference:
    "spec §2 PermitRequest, §4 createExecutionPermit (rules 1-3), §5.3, §7, §8; svc's profile: docs/protocol.md, Permit checks and lifecycle",
  createsPermit: true,
  run: bodyCheck(true)
})

const createHeader = Check.make<Env>({
  name: "coverage_create_header",
  group: "coverage",
  title:
    "Idempotency-Key headers at and past their boundaries (8, 128, 7, 129 characters, another alphabet, another key than the body's) get the class the spec gives them",
  reference:
    "spec §4 createExecutionPermit (Idempotency-Key ^[a-zA-Z0-9._:-]{8,128}$, equal to the body's idempotencyKey); §8 Limits",
  createsPermit: true,
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const depth = yield* depthOf
    const rule = "spec §4 createExecutionPermit (Idempotency-Key); §8 Limits"
    const signed = (key: string) => {
      const payer = shared.nextWallet()
      const body = permitRequestFor(route, payer, key)
      return { ...body, requestSignature: PermitMessage.sign(PermitMessage.build(body), payer.key) }
    }
    const cases: Array<Case<HttpInput>> = []
    for (const [what, key, validity, d] of keys(shared.newKey)) {
      if (validity === "valid") {
        // a valid header equal to a valid body key: accepted
        cases.push(kase(`Idempotency-Key: ${what}, equal to the body's`, d, {
          request: json(CREATE, signed(key), { "idempotency-key": key })
        }, accepted([201], rule)))
      } else if (key.length > 0 && !/[^\x21-\x7e]/.test(key)) {
        // an invalid header beside a valid body key
        cases.push(kase(`Idempotency-Key: ${what}`, d, {
          request: json(CREATE, signed(shared.newKey()), { "idempotency-key": key })
        }, refused(400, rule)))
      }
    }
    cases.push(kase("Idempotency-Key: another valid key than the body's", "quick", {
      request: json(CREATE, signed(shared.newKey()), { "idempotency-key": shared.newKey() })
    }, refused(400, rule)))
    return yield* runCases(select(cases, depth))
  })
})

const bodyLimit = Check.make<Env>({
  name: "coverage_body_limit",
  group: "coverage",
  title:
    "bodies of 32 KiB ± 1 byte: 32,768 bytes are read, 32,769 answer 413 (request-message and create), whatever the body holds",
  reference: "spec §7 (413 above 32 KiB), §8 Limits (request body at most 32 KiB)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const depth = yield* depthOf
    const request = (key: string) => permitRequestFor(route, shared.wallet, key)
    const type = { "content-type": "application/json" }
    const cases = [
      kase("request-message: a valid request of exactly 32,768 bytes", "quick", {
        request: raw(MESSAGE, padTo(request(shared.newKey()), LIMIT), type)
      }, accepted([200], R.limit)),
      kase("request-message: a valid request of 32,769 bytes", "quick", {
        request: raw(MESSAGE, padTo(request(shared.newKey()), LIMIT + 1), type)
      }, refused(413, R.limit)),
      kase("create: a body of 32,769 bytes", "quick", {
        request: raw(CREATE, padTo({ pad: "" }, LIMIT + 1), type)
      }, refused(413, R.limit)),
      kase("request-message: 32,769 bytes that are not JSON", "full", {
        request: raw(MESSAGE, "x".repeat(LIMIT + 1), type)
      }, refused(413, R.limit)),
      kase("request-message: 32,768 bytes of an unknown property (read, then refused)", "full", {
        request: raw(MESSAGE, padTo({ ...request(shared.newKey()), extra: "x".repeat(LIMIT - 400) }, LIMIT), type)
      }, refused(400, R.unknown))
    ]
    return yield* runCases(select(cases, depth))
  })
})

const feedQuery = Check.make<Env>({
  name: "coverage_feed_query",
  group: "coverage",
  title:
    "feed queries at the boundaries of sourceChainId (^[1-9][0-9]*$) and sourceNetworkId (Bytes32): well-formed filters answer 200, malformed ones 400",
  reference:
    "spec §4 getSolverFeed (parameters; 400 invalid filter); svc's profile: docs/protocol.md, Publication facts a verifier needs (filters); docs/operations.md, HTTP rules of the solver interface (query parameters)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const feed = yield* shared.feed
    const depth = yield* depthOf
    const chain = feed.routes.find((r) => r.sourceChainId !== null)?.sourceChainId ?? "8453"
    const network = String(feed.routes[0]?.sourceNetworkId ?? `0x${"1".repeat(64)}`)
    const filter = "spec §4 getSolverFeed (sourceChainId ^[1-9][0-9]*$, sourceNetworkId Bytes32)"
    const filters = "docs/protocol.md, Publication facts a verifier needs (filters: at most 78 digits; both must match)"
    const params =
      "docs/operations.md, HTTP rules of the solver interface (unknown or repeated query parameters -> 400)"
    const get = (query: string): HttpInput => ({ request: { path: `${FEED}?${query}` } })
    const ok = accepted([200], filter)
    const bad = refused(400, filter)
    const cases: Array<Case<HttpInput>> = [
      kase(`sourceChainId=${chain} (a chain routes leave from)`, "quick", get(`sourceChainId=${chain}`), ok),
      kase("sourceChainId=1 (well formed, no route)", "quick", get("sourceChainId=1"), ok),
      kase("sourceChainId of 78 digits", "full", get(`sourceChainId=1${"0".repeat(77)}`), ok),
      kase(
        "sourceChainId of 79 digits (beyond uint256)",
        "full",
        get(`sourceChainId=1${"0".repeat(78)}`),
        open("400", [200, 400], 400, filter, filters)
      ),
      kase("sourceChainId=0", "quick", get("sourceChainId=0"), bad),
      kase("sourceChainId with a leading zero", "full", get(`sourceChainId=0${chain}`), bad),
      kase("sourceChainId=-1", "full", get("sourceChainId=-1"), bad),
      kase("sourceChainId=1.0", "full", get("sourceChainId=1.0"), bad),
      kase("sourceChainId empty", "full", get("sourceChainId="), bad),
      kase("sourceChainId in hex", "full", get("sourceChainId=0x2105"), bad),
      kase("sourceNetworkId of a route", "quick", get(`sourceNetworkId=${network}`), ok),
      kase("sourceNetworkId in uppercase hex", "full", get(`sourceNetworkId=0x${network.slice(2).toUpperCase()}`), ok),
      kase("sourceNetworkId well formed, no route", "full", get(`sourceNetworkId=${randomHex(32)}`), ok),
      ...badBytes32.filter(([, v]) => v.length > 0).map(([what, v, d]) =>
        kase(`sourceNetworkId: ${what}`, d, get(`sourceNetworkId=${encodeURIComponent(v)}`), bad)
      ),
      kase(
        "both filters",
        "full",
        get(`sourceChainId=${chain}&sourceNetworkId=${network}`),
        open("accepted", [200, 400], 200, "spec §4 getSolverFeed rule 3 (how the filters combine: not shown)", filters)
      ),
      kase(
        "an unknown parameter",
        "quick",
        get("since=1"),
        open("400", [200, 400], 400, "spec §4 getSolverFeed (400 invalid request)", params)
      ),
      kase(
        "sourceChainId twice",
        "full",
        get(`sourceChainId=${chain}&sourceChainId=${chain}`),
        open("400", [200, 400], 400, "spec §4 getSolverFeed (400 invalid request)", params)
      )
    ]
    return yield* runCases(select(cases, depth))
  })
})

const pathCases = (
  base: string,
  known: string | undefined,
  rule: string
): ReadonlyArray<Case<HttpInput>> => {
  const get = (id: string): HttpInput => ({ request: { path: `${base}/${encodeURIComponent(id)}` } })
  const caseRule =
    "docs/operations.md, HTTP rules of the solver interface (the hex case of an id in a path does not matter)"
  return [
    ...(known === undefined ? [] : [
      kase("a published id", "quick", get(known), accepted([200], rule)),
      kase(
        "a published id in uppercase hex",
        "full",
        get(`0x${known.slice(2).toUpperCase()}`),
        open("accepted", [200, 404], 200, rule, caseRule)
      )
    ]),
    kase("a well-formed id no resource has", "quick", get(randomHex(32)), refused(404, rule)),
    ...badBytes32.filter(([, v]) => v.length > 0).map(([what, v, d]) => kase(`${what}`, d, get(v), refused(404, rule)))
  ]
}

const routePath = Check.make<Env>({
  name: "coverage_route_path",
  group: "coverage",
  title:
    "route detail for a published routeId, one in uppercase hex, an unknown and malformed ones: 200 for a route, else 404 (the only refusal the spec lists)",
  reference:
    "spec §4 getRouteDetail (routeId: Bytes32; 200, 404, 500, 503); svc's profile: docs/operations.md, HTTP rules of the solver interface",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const feed = yield* shared.feed
    const depth = yield* depthOf
    const known = feed.routes[0]?.routeId
    return yield* runCases(
      select(
        pathCases("/api/v6/routes", known === undefined ? undefined : String(known), "spec §4 getRouteDetail"),
        depth
      )
    )
  })
})

const fillPath = Check.make<Env>({
  name: "coverage_fill_path",
  group: "coverage",
  title: "permit status for an unknown fillId and malformed ones answers 404 (the only refusal the spec lists)",
  reference: "spec §4 getExecutionPermit (fillId: Bytes32; 200, 404, 500)",
  run: Effect.gen(function*() {
    const depth = yield* depthOf
    return yield* runCases(select(pathCases(CREATE, undefined, "spec §4 getExecutionPermit"), depth))
  })
})

/** A stream case: a Last-Event-ID value and whether the initial feed event must come. */
interface StreamCase {
  readonly lastEventId: string
  readonly want: "sent" | "suppressed"
  readonly rule: string
  /** Set where only svc's profile says what happens: a departure is a warning. */
  readonly profileRule?: string | undefined
}

const eventStreamHeader = Check.make<Env>({
  name: "coverage_event_stream_header",
  group: "coverage",
  title:
    "Last-Event-ID at its boundaries (0, the current version, a leading zero, a sign, letters, a newer version): the initial event is sent or suppressed as spec part 6 says",
  reference:
    "spec §6 initial-event rules 2-4 (older: sent; equal: suppressed; not a UintStr: ignored, sent); svc's profile: docs/operations.md, HTTP rules of the solver interface (event stream: newer -> sent)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const transport = yield* Transport
    const options = yield* Options
    const depth = yield* depthOf
    const current = (yield* shared.freshFeed).dataVersion
    const sent = (lastEventId: string, rule: string): StreamCase => ({ lastEventId, want: "sent", rule })
    const cases: ReadonlyArray<Case<StreamCase>> = select([
      kase("Last-Event-ID: 0 (older)", "quick", sent("0", "spec §6 rule 2"), accepted([200], "spec §6 rule 2")),
      kase("Last-Event-ID: the current version", "quick", {
        lastEventId: current,
        want: "suppressed",
        rule: "spec §6 rule 3"
      }, accepted([200], "spec §6 rule 3")),
      kase(
        "Last-Event-ID: a leading zero",
        "quick",
        sent(`0${current}`, "spec §6 rule 4"),
        accepted([200], "spec §6 rule 4")
      ),
      kase("Last-Event-ID: -1", "full", sent("-1", "spec §6 rule 4"), accepted([200], "spec §6 rule 4")),
      kase("Last-Event-ID: letters", "full", sent("abc", "spec §6 rule 4"), accepted([200], "spec §6 rule 4")),
      kase("Last-Event-ID: a newer version than the current", "full", {
        lastEventId: `${current}${"0".repeat(30)}`,
        want: "sent",
        rule: "spec §6 (a newer id: not shown)",
        profileRule: "docs/operations.md, HTTP rules of the solver interface (event stream: newer -> the current event)"
      }, accepted([200], "spec §6 rules 1-6"))
    ], depth)
    const immediate = options.immediateMillis ?? Math.min(options.timeoutSeconds * 1000, 5000)
    const c = Check.collector()
    yield* Check.detail("cases", `${cases.length}`)
    for (const item of cases) {
      const { lastEventId, want, rule, profileRule } = item.input
      const seen = yield* Effect.scoped(Effect.gen(function*() {
        const h = yield* transport.stream({ path: EVENTS, headers: { "last-event-id": lastEventId } })
        if (!h.streaming) return { exchange: h.exchange, streaming: false, first: undefined }
        const wait = want === "suppressed" ? options.quietMillis : immediate
        let first = yield* h.next(wait)
        while (first !== undefined && first.event !== "feed") first = yield* h.next(wait)
        return { exchange: h.exchange, streaming: true, first }
      })).pipe(
        Effect.catchTags({
          TransportError: (e) =>
            Check.fail({
              title: "the event stream did not answer",
              expected: "200 text/event-stream",
              actual: e.reason
            }),
          RateLimited: (e) => Effect.fail(new Check.Inconclusive({ reason: e.reason }))
        })
      )
      const exchange = seen.exchange
      if (!seen.streaming) {
        if (exchange.response.status === 503) continue
        c.add(failure(
          exchange,
          `${item.label}: the stream was refused (${exchange.response.status})`,
          `200 text/event-stream (${rule}: the header is never a reason to refuse)`,
          Exchange.responseSummary(exchange)
        ))
        continue
      }
      const got = seen.first
      const isNewer = got !== undefined && /^[0-9]+$/.test(got.lastEventId) && BigInt(got.lastEventId) > BigInt(current)
      if (want === "sent" && got === undefined) {
        const departure = failure(
          exchange,
          `${item.label}: no initial feed event`,
          `the current feed event at once (${profileRule ?? rule})`,
          `nothing within ${immediate} ms`
        )
        if (profileRule !== undefined) c.warn(departure)
        else c.add(departure)
      } else if (want === "suppressed" && got !== undefined && !isNewer) {
        c.add(failure(
          exchange,
          `${item.label}: the initial event was not suppressed`,
          `no feed event until a newer publication (${rule})`,
          `event ${got.event}, id ${got.lastEventId}`
        ))
      }
    }
    yield* c.done
  })
})

const aggregatorStatusQuery = Check.make<Env>({
  name: "coverage_aggregator_status_query",
  group: "coverage",
  title:
    "/v1/status lookups at their boundaries (fillId, sourceTxHash, quoteId as Bytes32, userAddress, quoteToken ^[0-9a-f]{64}$, none, two, unknown parameters) get the class the spec gives them",
  reference:
    "spec §4 aggregator_status (query parameters); svc's profile: docs/aggregator.md, Status (exactly one lookup parameter)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    if (!(yield* shared.aggregatorPresent)) {
      return yield* new Check.Skip({ reason: "the aggregator is not deployed (/v1/health answers 404)" })
    }
    const depth = yield* depthOf
    const rule = "spec §4 aggregator_status (parameters and their types)"
    const profileRule = "docs/aggregator.md, Status (exactly one lookup; an unknown fill -> 404)"
    const get = (query: string): HttpInput => ({ request: { path: `/v1/status?${query}` } })
    const bad = refused(400, rule)
    const cases: ReadonlyArray<Case<HttpInput>> = [
      kase(
        "fillId: well formed, no fill",
        "quick",
        get(`fillId=${randomHex(32)}`),
        open("404", [400, 404], 404, rule, profileRule)
      ),
      kase("fillId: 63 hex digits", "quick", get(`fillId=0x${"a".repeat(63)}`), bad),
      kase(
        "sourceTxHash: well formed, no fill",
        "full",
        get(`sourceTxHash=${randomHex(32)}`),
        open("404", [400, 404], 404, rule, profileRule)
      ),
      kase("sourceTxHash: 65 hex digits", "full", get(`sourceTxHash=0x${"a".repeat(65)}`), bad),
      kase("quoteId: without 0x", "full", get(`quoteId=${"a".repeat(64)}`), bad),
      kase("userAddress: 39 hex digits", "full", get(`userAddress=0x${"1".repeat(39)}`), bad),
      kase("quoteToken: uppercase hex", "quick", get(`quoteToken=${"A".repeat(64)}`), bad),
      kase("quoteToken: 63 hex digits", "full", get(`quoteToken=${"a".repeat(63)}`), bad),
      kase("no lookup", "quick", get(""), open("400", [200, 400], 400, rule, profileRule)),
      kase(
        "two lookups",
        "full",
        get(`fillId=${randomHex(32)}&sourceTxHash=${randomHex(32)}`),
        open("400", [200, 400, 404], 400, rule, profileRule)
      ),
      kase(
        "an unknown parameter",
        "full",
        get(`fillId=${randomHex(32)}&x=1`),
        open("400", [200, 400, 404], 400, rule, profileRule)
      )
    ]
    const aggregated = select(cases, depth).map((c) => ({
      ...c,
      expect: { ...c.expect, spec: c.expect.spec.filter((s) => s === 200 || AGGREGATOR.includes(s)) }
    }))
    return yield* runCases(aggregated)
  })
})

const aggregatorTokensQuery = Check.make<Env>({
  name: "coverage_aggregator_tokens_query",
  group: "coverage",
  title:
    "/v1/tokens with chainId at its boundaries (a listed chain, 0, negative, letters, a fraction, an unlisted chain) gets the class the spec gives it",
  reference:
    "spec §4 aggregator_tokens (query chainId: integer >= 1); svc's profile: docs/aggregator.md, Errors (UNSUPPORTED_CHAIN)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    if (!(yield* shared.aggregatorPresent)) {
      return yield* new Check.Skip({ reason: "the aggregator is not deployed (/v1/health answers 404)" })
    }
    const feed = yield* shared.feed
    const depth = yield* depthOf
    const chain = feed.routes.find((r) => r.sourceChainId !== null)?.sourceChainId ?? "8453"
    const rule = "spec §4 aggregator_tokens (chainId: integer >= 1)"
    const get = (query: string): HttpInput => ({ request: { path: `/v1/tokens?${query}` } })
    const cases: ReadonlyArray<Case<HttpInput>> = [
      kase(`chainId=${chain} (a listed chain)`, "quick", get(`chainId=${chain}`), accepted([200, 304], rule)),
      kase("chainId=0", "quick", get("chainId=0"), refused(400, rule)),
      kase("chainId=-1", "full", get("chainId=-1"), refused(400, rule)),
      kase("chainId=abc", "full", get("chainId=abc"), refused(400, rule)),
      kase("chainId=1.5", "full", get("chainId=1.5"), refused(400, rule)),
      kase(
        "chainId of a chain no route serves",
        "full",
        get("chainId=1"),
        open("400", [200, 400, 404], 400, rule, "docs/aggregator.md, Errors (UNSUPPORTED_CHAIN -> 400)")
      )
    ]
    return yield* runCases(select(cases, depth))
  })
})

// ---------------------------------------------------------------------------
// What the spec leaves open: svc's profile (warnings)
// ---------------------------------------------------------------------------

const contentType = Check.make<Env>({
  name: "coverage_content_type",
  group: "coverage",
  title:
    "a valid request-message body sent as JSON with parameters or another case is read; sent without a content type or as text/plain or a form it is refused 400 (svc's profile; the spec leaves it open)",
  reference:
    "spec Conventions (operations send and accept JSON); svc's profile: docs/operations.md, HTTP rules of the solver interface (bodies: CONTENT_TYPE_MISSING, CONTENT_TYPE_NOT_JSON)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const depth = yield* depthOf
    const body = () => JSON.stringify(permitRequestFor(route, shared.wallet, shared.newKey()))
    const rule = "spec Conventions (all HTTP operations send and accept JSON)"
    const profileRule = "docs/operations.md, HTTP rules of the solver interface (bodies)"
    const cases: ReadonlyArray<Case<HttpInput>> = [
      kase("Content-Type: application/json; charset=utf-8", "quick", {
        request: raw(MESSAGE, body(), { "content-type": "application/json; charset=utf-8" })
      }, accepted([200], rule)),
      kase("Content-Type: APPLICATION/JSON", "full", {
        request: raw(MESSAGE, body(), { "content-type": "APPLICATION/JSON" })
      }, accepted([200], rule)),
      kase("Content-Type: application/vnd.svc+json", "full", {
        request: raw(MESSAGE, body(), { "content-type": "application/vnd.svc+json" })
      }, open("accepted", [200, 400], 200, rule, profileRule)),
      kase(
        "no Content-Type",
        "quick",
        { request: raw(MESSAGE, body(), {}) },
        open("400", [200, 400], 400, rule, profileRule)
      ),
      kase("Content-Type: text/plain", "quick", {
        request: raw(MESSAGE, body(), { "content-type": "text/plain" })
      }, open("400", [200, 400], 400, rule, profileRule)),
      kase("Content-Type: application/x-www-form-urlencoded", "full", {
        request: raw(MESSAGE, body(), { "content-type": "application/x-www-form-urlencoded" })
      }, open("400", [200, 400], 400, rule, profileRule))
    ]
    return yield* runCases(select(cases, depth))
  })
})

const duplicateKeys = Check.make<Env>({
  name: "coverage_duplicate_keys",
  group: "coverage",
  title:
    "a request-message body with a property written twice is read with the last value, as svc documents (the spec leaves duplicate keys open)",
  reference:
    "spec §2 (duplicate JSON keys: not shown); svc's profile: docs/operations.md, HTTP rules of the solver interface (bodies: the last of duplicate keys wins)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const depth = yield* depthOf
    const base = (): Readonly<Record<string, unknown>> => ({
      ...permitRequestFor(route, shared.wallet, shared.newKey())
    })
    const rule = "spec §2 (duplicate keys: not shown)"
    const profileRule =
      "docs/operations.md, HTTP rules of the solver interface (bodies: the last of duplicate keys wins)"
    const type = { "content-type": "application/json" }
    const cases: ReadonlyArray<Case<HttpInput>> = [
      kase("idempotencyKey twice, both valid", "quick", {
        request: raw(MESSAGE, duplicateKey(base(), "idempotencyKey", shared.newKey()), type)
      }, open("accepted", [200, 400], 200, rule, profileRule)),
      kase("requestedAmountInRaw twice, the first malformed, the last valid", "quick", {
        request: raw(MESSAGE, duplicateKey(base(), "requestedAmountInRaw", "01"), type)
      }, open("accepted", [200, 400], 200, rule, profileRule)),
      kase("quoteId twice, the first valid, the last malformed", "full", {
        request: raw(MESSAGE, duplicateKey({ ...base(), quoteId: "0x12" }, "quoteId", route.quoteId), type)
      }, open("400", [200, 400], 400, rule, profileRule))
    ]
    return yield* runCases(select(cases, depth))
  })
})

/**
 * The coverage checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [
  feedQuery,
  eventStreamHeader,
  routePath,
  fillPath,
  requestMessageBody,
  createBody,
  createHeader,
  bodyLimit,
  contentType,
  duplicateKeys,
  aggregatorStatusQuery,
  aggregatorTokensQuery
]
