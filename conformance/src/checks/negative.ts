/**
 * Negative data: malformed inputs generated per operation with fast-check
 * (seeded by `--seed`, `--max-examples` per operation). Every one must be
 * refused with a status the spec documents for the operation and the error
 * body, never accepted and never answered 5xx. A failing input is shrunk and
 * reported with the seed that reproduces it.
 *
 * @since 0.1.0
 */
import { ErrorResponse, PermitMessage, Signature } from "@svc/protocol"
import { Effect, FiberSet } from "effect"
import fc from "fast-check"
import * as Check from "../Check.ts"
import type { Exchange } from "../Exchange.ts"
import * as ExchangeModule from "../Exchange.ts"
import { Options } from "../RunOptions.ts"
import { failure, type PermitBody, permitRequestFor, send, Shared, signRequest } from "../Shared.ts"
import { type Request, Transport } from "../Transport.ts"
import type { CheckEffect, Env, Json } from "./common.ts"

// ---------------------------------------------------------------------------
// The property runner
// ---------------------------------------------------------------------------

/**
 * The verdict on one malformed input.
 *
 * @category models
 * @since 0.1.0
 */
export interface Verdict {
  readonly ok: boolean
  readonly problem?: string
  readonly exchange?: Exchange
}

/**
 * What a refused malformed input of the solver interface must look like: a
 * documented 4xx of the operation with a strict ErrorResponse.
 *
 * @category testing
 * @since 0.1.0
 */
export const judge = (exchange: Exchange, statuses: ReadonlyArray<number>): Verdict => {
  const status = exchange.response.status
  if (status >= 500) return { ok: false, problem: `answered ${status}`, exchange }
  if (status < 400) return { ok: false, problem: `accepted (${status})`, exchange }
  if (!statuses.includes(status)) {
    return {
      ok: false,
      problem: `answered ${status}, not a status documented for the operation (${statuses.join(", ")})`,
      exchange
    }
  }
  const issues = Check.schemaIssues(ErrorResponse, ExchangeModule.json(exchange))
  if (issues.length > 0) {
    return {
      ok: false,
      problem: `the error body is not a strict ErrorResponse: ${issues.slice(0, 3).join("; ")}`,
      exchange
    }
  }
  return { ok: true, exchange }
}

/**
 * Runs a property: each generated input is sent and judged. A failure is
 * shrunk and reported with its input, the exchange and the seed.
 *
 * @category running
 * @since 0.1.0
 */
export const property = <A>(
  name: string,
  arbitrary: fc.Arbitrary<A>,
  toRequest: (input: A) => Request,
  statuses: ReadonlyArray<number>,
  describe: (input: A) => string,
  options?: {
    readonly judge?: (exchange: Exchange, statuses: ReadonlyArray<number>) => Verdict
    readonly maxRuns?: number
  }
): CheckEffect =>
  Effect.scoped(Effect.gen(function*() {
    const runOptions = yield* Options
    const runPromise = yield* FiberSet.makeRuntimePromise<Env>()
    let lastFailure: Verdict | undefined
    let sent = 0
    const seed = (runOptions.seed + hash(name)) | 0
    const result = yield* Effect.promise(() =>
      fc.check(
        fc.asyncProperty(arbitrary, async (input) => {
          const exchange = await runPromise(send(toRequest(input)).pipe(Effect.orDie))
          sent++
          const verdict = (options?.judge ?? judge)(exchange, statuses)
          if (!verdict.ok) lastFailure = verdict
          return verdict.ok
        }),
        {
          seed,
          numRuns: Math.min(runOptions.maxExamples, options?.maxRuns ?? Number.MAX_SAFE_INTEGER),
          interruptAfterTimeLimit: Math.max(30_000, runOptions.timeoutSeconds * 3000),
          markInterruptAsFailure: false
        }
      )
    )
    if (result.failed && result.counterexample !== null && lastFailure !== undefined) {
      const input = result.counterexample[0] as A
      return yield* Check.fail({
        title: `a malformed input was ${lastFailure.problem?.startsWith("accepted") ? "accepted" : "mishandled"}: ${
          describe(input)
        }`,
        expected: `a documented 4xx (${statuses.join(", ")}) with an ErrorResponse`,
        actual:
          `${lastFailure.problem} (after ${sent} request(s); reproduce the run with --seed ${runOptions.seed} --max-examples ${runOptions.maxExamples}${
            result.counterexamplePath ? `, fast-check path ${result.counterexamplePath}` : ""
          })`,
        exchange: lastFailure.exchange
      })
    }
    if (result.failed && lastFailure === undefined) {
      return yield* new Check.Inconclusive({ reason: `the generator failed: ${String(result.errorInstance ?? "")}` })
    }
  }))

const hash = (s: string) => [...s].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7)

// ---------------------------------------------------------------------------
// Malformed values
// ---------------------------------------------------------------------------

const hexChars = "0123456789abcdef"
const hexString = (length: number) =>
  fc.string({ unit: fc.constantFrom(...hexChars), minLength: length, maxLength: length })

/** JSON values of the wrong type for a string field. */
/**
 * JSON values that are not strings.
 *
 * @category testing
 * @since 0.1.0
 */
export const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 })
)

/**
 * Strings that are not Bytes32.
 *
 * @category testing
 * @since 0.1.0
 */
export const badBytes32 = fc.oneof(
  hexString(63).map((h) => `0x${h}`),
  hexString(65).map((h) => `0x${h}`),
  hexString(64),
  hexString(63).map((h) => `0x${h}g`),
  fc.constant(""),
  fc.constant("0x")
)

const badAmount = fc.oneof(
  fc.constantFrom("01", "-1", "1.5", "1e3", " 1", "0x10", "", "+5", "٣"),
  fc.bigInt({ min: 1n << 128n, max: 1n << 200n }).map(String)
)

const badKey = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."abcXYZ019._:-"), minLength: 0, maxLength: 7 }),
  fc.string({ unit: fc.constantFrom(..."abc"), minLength: 129, maxLength: 140 }),
  fc.constantFrom("key with space", "ключ-ключ-ключ", "key/slash/12", "key\u0000zero")
)

const badStandard = fc.constantFrom("", "-DIRECT", "DIR ECT", "x".repeat(65), "DIRECT/1")

/**
 * Strings that are not addresses (or carry a wrong EIP-55 checksum).
 *
 * @category testing
 * @since 0.1.0
 */
export const badAddress = fc.oneof(
  hexString(39).map((h) => `0x${h}`),
  hexString(41).map((h) => `0x${h}`),
  hexString(40),
  fc.constant("0xZZ00000000000000000000000000000000000000"),
  // mixed case with a wrong EIP-55 checksum
  fc.constant("0xAbCdEf0000000000000000000000000000000000")
)

const ALLOWED = [
  "quoteId",
  "requestedAmountInRaw",
  "standard",
  "payer",
  "recipient",
  "payerAccountId",
  "recipientAccountId",
  "payerLocator",
  "recipientLocator",
  "idempotencyKey",
  "requestSignature"
]

/** A mutation of a valid request that makes it invalid, with its description. */
type Mutation =
  | { readonly kind: "remove"; readonly field: string }
  | { readonly kind: "set"; readonly field: string; readonly value: unknown }
  | { readonly kind: "extra"; readonly field: string; readonly value: unknown }
  | { readonly kind: "both-forms"; readonly side: "payer" | "recipient"; readonly accountId: string }
  | { readonly kind: "half-account"; readonly side: "payer" | "recipient"; readonly accountId: string }
  | { readonly kind: "not-an-object"; readonly value: unknown }
  | { readonly kind: "header"; readonly value: string }
  | { readonly kind: "signature"; readonly value: string }

const mutations = (forCreate: boolean): fc.Arbitrary<Mutation> => {
  const list: Array<fc.Arbitrary<Mutation>> = [
    fc.constantFrom("quoteId", "requestedAmountInRaw", "idempotencyKey", "payer", "recipient").map((field) =>
      ({ kind: "remove", field }) as const
    ),
    fc.record({
      field: fc.constantFrom("quoteId", "requestedAmountInRaw", "idempotencyKey", "payer", "recipient", "standard"),
      value: notAString
    })
      .map(({ field, value }) => ({ kind: "set", field, value }) as const),
    badBytes32.map((value) => ({ kind: "set", field: "quoteId", value }) as const),
    badAmount.map((value) => ({ kind: "set", field: "requestedAmountInRaw", value }) as const),
    badKey.map((value) => ({ kind: "set", field: "idempotencyKey", value }) as const),
    badStandard.map((value) => ({ kind: "set", field: "standard", value }) as const),
    fc.record({ field: fc.constantFrom("payer", "recipient"), value: badAddress }).map(({ field, value }) =>
      ({ kind: "set", field, value }) as const
    ),
    fc.record({
      field: fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !ALLOWED.includes(k) && k !== "__proto__"),
      value: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null))
    }).map(({ field, value }) => ({ kind: "extra", field, value }) as const),
    fc.record({ side: fc.constantFrom("payer", "recipient"), accountId: hexString(64).map((h) => `0x${h}`) })
      .map(({ accountId, side }) => ({ kind: "both-forms", side, accountId }) as const),
    fc.record({ side: fc.constantFrom("payer", "recipient"), accountId: hexString(64).map((h) => `0x${h}`) })
      .map(({ accountId, side }) => ({ kind: "half-account", side, accountId }) as const),
    fc.oneof(fc.constant([]), fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null), fc.constant(true))
      .map((value) => ({ kind: "not-an-object", value }) as const),
    // oxlint-disable-next-line no-control-regex -- keys a header can carry (no control or non-ASCII characters)
    badKey.filter((k) => !/[\u0000-\u001f\u007f-\uffff]/.test(k)).map((value) => ({ kind: "header", value }) as const)
  ]
  if (forCreate) {
    list.push(
      fc.oneof(
        fc.constantFrom("", "0x", "not a signature"),
        hexString(130).map((h) => `0x${h}`),
        fc.constant("high-s"),
        fc.constant("other-message")
      ).map((value) => ({ kind: "signature", value }) as const),
      fc.constant({ kind: "remove", field: "requestSignature" } as const)
    )
  }
  return fc.oneof(...list)
}

const describeMutation = (m: Mutation): string => {
  switch (m.kind) {
    case "remove":
      return `without ${m.field}`
    case "set":
      return `${m.field} = ${JSON.stringify(m.value)?.slice(0, 80)}`
    case "extra":
      return `unknown field ${JSON.stringify(m.field)}`
    case "both-forms":
      return `${m.side} given as address and as account`
    case "half-account":
      return `${m.side}AccountId without ${m.side}Locator`
    case "not-an-object":
      return `body ${JSON.stringify(m.value)?.slice(0, 40)}`
    case "header":
      return `Idempotency-Key header ${JSON.stringify(m.value).slice(0, 60)}`
    case "signature":
      return `requestSignature ${m.value.slice(0, 40)}`
  }
}

/** Applies a mutation to a valid request (each call with a fresh idempotency key). */
const apply = (
  m: Mutation,
  base: PermitBody,
  forCreate: boolean,
  walletKey: `0x${string}`
): { body: unknown; headers?: Record<string, string> } => {
  const signed = (b: PermitBody) => (forCreate ? signRequest(b, walletKey) : b)
  const record = signed(base) as unknown as Json
  switch (m.kind) {
    case "remove": {
      const { [m.field]: _, ...rest } = record
      return { body: rest }
    }
    case "set":
      return { body: { ...record, [m.field]: m.value } }
    case "extra":
      return { body: { ...record, [m.field]: m.value } }
    case "both-forms":
      return {
        body: { ...record, [`${m.side}AccountId`]: m.accountId, [`${m.side}Locator`]: { native: String(base[m.side]) } }
      }
    case "half-account": {
      const { [m.side]: _, ...rest } = record
      return { body: { ...rest, [`${m.side}AccountId`]: m.accountId } }
    }
    case "not-an-object":
      return { body: m.value }
    case "header":
      return { body: record, headers: { "idempotency-key": m.value } }
    case "signature": {
      const valid = PermitMessage.sign(PermitMessage.build(base), walletKey)
      const value = m.value === "high-s"
        ? Signature.highSTwin(valid)
        : m.value === "other-message"
        ? PermitMessage.sign(`${PermitMessage.build(base)}\n`, walletKey)
        : m.value
      return { body: { ...base, requestSignature: value } }
    }
  }
}

const bodyProperty = (name: string, path: string, forCreate: boolean, statuses: ReadonlyArray<number>): CheckEffect =>
  Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    return yield* property(
      name,
      mutations(forCreate),
      (m) => {
        const { body, headers } = apply(
          m,
          permitRequestFor(route, shared.wallet, shared.newKey()),
          forCreate,
          shared.wallet.key
        )
        return {
          method: "POST",
          path,
          body: body === undefined ? "" : JSON.stringify(body),
          headers: { "content-type": "application/json", ...headers }
        }
      },
      statuses,
      describeMutation
    )
  })

// ---------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------

const requestMessageBodies = Check.make<Env>({
  name: "negative_request_message_body",
  group: "negative",
  title: "generated malformed request-message bodies get a documented 4xx (400, 409, 410, 413) with an ErrorResponse",
  reference:
    "spec §2 PermitRequest (rules), §4 buildPermitRequestMessage, §7; docs/operations.md, HTTP rules of the solver interface (strict bodies; no input produces a 500)",
  run: bodyProperty("negative_request_message_body", "/api/v6/execution-permits/request-message", false, [
    400,
    409,
    410,
    413
  ])
})

const createBodies = Check.make<Env>({
  name: "negative_create_body",
  group: "negative",
  title:
    "generated malformed permit creations (fields, identities, signatures, keys) get a documented 4xx with an ErrorResponse",
  reference:
    "spec §2 PermitRequest, §4 createExecutionPermit, §5.3, §7; docs/operations.md, HTTP rules of the solver interface (a failed signature -> 400)",
  createsPermit: true,
  run: bodyProperty("negative_create_body", "/api/v6/execution-permits", true, [400, 409, 410, 413, 429])
})

const feedQuery = Check.make<Env>({
  name: "negative_feed_query",
  group: "negative",
  title: "generated malformed feed queries (bad filters, unknown or repeated parameters) get 400 with an ErrorResponse",
  reference:
    "spec §4 getSolverFeed (400); docs/operations.md, HTTP rules of the solver interface (unknown or repeated query parameters -> 400)",
  run: property(
    "negative_feed_query",
    fc.oneof(
      fc.oneof(
        fc.constantFrom("0", "00", "-1", "1.0", "abc", " 8453", "8453 ", "0x2105"),
        fc.nat().map((n) => `0${n}`),
        fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 79, maxLength: 90 }).map((s) => `1${s}`)
      ).map((v) => [["sourceChainId", v]]),
      badBytes32.map((v) => [["sourceNetworkId", v]]),
      fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !["sourceChainId", "sourceNetworkId"].includes(k)).map((
        k
      ) => [[k, "1"]]),
      fc.constantFrom("sourceChainId", "sourceNetworkId").map((
        k
      ) => [[k, k === "sourceChainId" ? "8453" : `0x${"1".repeat(64)}`], [
        k,
        k === "sourceChainId" ? "56" : `0x${"2".repeat(64)}`
      ]])
    ),
    (pairs) => ({ path: `/api/v6/solver-feed?${new URLSearchParams(pairs as Array<[string, string]>).toString()}` }),
    [400],
    (pairs) => `?${new URLSearchParams(pairs as Array<[string, string]>).toString()}`
  )
})

const segment = fc.oneof(
  fc.string({ minLength: 1, maxLength: 70 }),
  hexString(64).map((h) => `0x${h}`),
  badBytes32.filter((s) => s.length > 0)
).filter((s) => s !== "." && s !== ".." && s !== "request-message")

const routePath = Check.make<Env>({
  name: "negative_route_path",
  group: "negative",
  title: "generated unknown or malformed routeIds get 404 with an ErrorResponse",
  reference:
    "spec §4 getRouteDetail (404); docs/operations.md, HTTP rules of the solver interface (a malformed id -> the same 404)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const feed = yield* shared.feed
    const known = new Set(feed.routes.map((r) => String(r.routeId).toLowerCase()))
    return yield* property(
      "negative_route_path",
      segment.filter((s) => !known.has(s.toLowerCase())),
      (s) => ({ path: `/api/v6/routes/${encodeURIComponent(s)}` }),
      [404],
      (s) => `routeId ${JSON.stringify(s)}`
    )
  })
})

const fillPath = Check.make<Env>({
  name: "negative_fill_path",
  group: "negative",
  title: "generated unknown or malformed fillIds get 404 with an ErrorResponse",
  reference:
    "spec §4 getExecutionPermit (404); docs/operations.md, HTTP rules of the solver interface (a malformed id -> the same 404)",
  run: property(
    "negative_fill_path",
    segment,
    (s) => ({ path: `/api/v6/execution-permits/${encodeURIComponent(s)}` }),
    [404],
    (s) => `fillId ${JSON.stringify(s)}`
  )
})

const unsafeIntegers = Check.make<Env>({
  name: "negative_unsafe_integers",
  group: "negative",
  title:
    "execution integers sent as JSON numbers (also beyond 2^53) are refused with 400: they must be base-10 strings",
  reference:
    "spec Conventions (execution integers are base-10 strings and must stay strings); docs/operations.md, HTTP rules of the solver interface (strict bodies, never coerced)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const c = Check.collector()
    for (const literal of ["9007199254740993", "18446744073709551617", "1e21", route.minimumFillInRaw]) {
      const request = permitRequestFor(route, shared.wallet, shared.newKey())
      const text = JSON.stringify({ ...request, requestedAmountInRaw: "@@" }).replace("\"@@\"", literal)
      const exchange = yield* send({
        method: "POST",
        path: "/api/v6/execution-permits/request-message",
        body: text,
        headers: { "content-type": "application/json" }
      })
      const verdict = judge(exchange, [400])
      if (!verdict.ok) {
        c.add(
          failure(
            exchange,
            `requestedAmountInRaw as the JSON number ${literal} was ${verdict.problem}`,
            "400 ErrorResponse",
            ExchangeModule.responseSummary(exchange)
          )
        )
      }
    }
    yield* c.done
  })
})

const eventsQuery = Check.make<Env>({
  name: "negative_events_query",
  group: "negative",
  title: "the event stream with an unknown query parameter answers 400 with an ErrorResponse (not a stream)",
  reference:
    "spec §4 streamSolverFeed (no query parameters); docs/operations.md, HTTP rules of the solver interface (unknown query parameters -> 400)",
  run: Effect.scoped(Effect.gen(function*() {
    const transport = yield* Transport
    const handle = yield* transport.stream({ path: "/api/v6/solver-feed/events?since=0" }).pipe(
      Effect.catchTags({
        TransportError: (e) =>
          Check.fail({ title: "the event stream did not answer", expected: "400 ErrorResponse", actual: e.reason }),
        RateLimited: (e) => Effect.fail(new Check.Inconclusive({ reason: e.reason }))
      })
    )
    if (handle.streaming) {
      return yield* Check.fail(
        failure(
          handle.exchange,
          "an unknown query parameter on the stream was accepted",
          "400 ErrorResponse",
          "200 text/event-stream"
        )
      )
    }
    const verdict = judge(handle.exchange, [400])
    if (!verdict.ok) {
      return yield* Check.fail(
        failure(
          handle.exchange,
          `an unknown query parameter on the stream was ${verdict.problem}`,
          "400 ErrorResponse",
          ExchangeModule.responseSummary(handle.exchange)
        )
      )
    }
  }))
})

/**
 * The negative checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [requestMessageBodies, createBodies, feedQuery, routePath, fillPath, unsafeIntegers, eventsQuery]
