/**
 * Generated malformed requests against every solver operation of a real server:
 * each answer must be a documented status with an ErrorResponse body for errors,
 * never a 5xx.
 */
import { assert, layer } from "@effect/vitest"
import { fc } from "@fast-check/vitest"
import { Publisher } from "@svc/core"
import { ErrorResponse, PermitMessage, Signature, strictParseOptions } from "@svc/protocol"
import { SOLVER_ERRORS } from "@svc/protocol/ErrorCodes"
import { Effect, Result, Schema } from "effect"
import { scaled } from "../../../test/support/time.ts"
import { baseUrl, PAYER_KEY, serverLayer, sseReader } from "./support/server.ts"

const decodeError = Schema.decodeUnknownResult(ErrorResponse)
const CODES = new Set(Object.keys(SOLVER_ERRORS))
const RUNS = Number(process.env.FUZZ_RUNS ?? 60)

const checkAnswer = async (response: Response, allowed: ReadonlyArray<number>, what: string) => {
  const text = await response.text()
  if (response.status >= 500) throw new Error(`${what}: ${response.status} ${text.slice(0, 200)}`)
  if (!allowed.includes(response.status)) {
    throw new Error(`${what}: undocumented status ${response.status} ${text.slice(0, 200)}`)
  }
  if (response.status >= 400) {
    const body = JSON.parse(text)
    const decoded = decodeError(body, strictParseOptions)
    if (Result.isFailure(decoded)) throw new Error(`${what}: not an ErrorResponse: ${text.slice(0, 200)}`)
    if (!CODES.has(decoded.success.error)) throw new Error(`${what}: undocumented code ${decoded.success.error}`)
  }
}

const hexish = fc.stringMatching(/^(0x)?[0-9a-fA-FxX]{0,70}$/)
const junk = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  hexish,
  fc.bigInt({ min: 0n, max: 1n << 300n }).map(String)
)

const payer = Signature.addressOf(PAYER_KEY)
const FIELDS = [
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
] as const

layer(serverLayer(), { excludeTestServices: true, timeout: scaled(120_000) })("fuzzed requests", (it) => {
  it.effect("feed: random query strings", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const params = fc.array(
        fc.tuple(
          fc.constantFrom("sourceChainId", "sourceNetworkId", "x", "", "sourcechainid"),
          fc.oneof(fc.string({ maxLength: 70 }), hexish)
        ),
        { maxLength: 3 }
      )
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(params, async (pairs) => {
            const query = new URLSearchParams(pairs).toString()
            await checkAnswer(await fetch(`${url}/api/v6/solver-feed?${query}`), [200, 304, 400], `feed ?${query}`)
          }),
          { numRuns: RUNS }
        )
      )
    }))

  it.effect("route detail and permit status: random path segments", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.oneof(hexish, fc.string({ minLength: 1, maxLength: 80 })),
            fc.constantFrom("routes", "execution-permits"),
            async (segment, kind) => {
              const path = `/api/v6/${kind}/${encodeURIComponent(segment)}`
              await checkAnswer(await fetch(`${url}${path}`), [200, 404, 405], path)
            }
          ),
          { numRuns: RUNS }
        )
      )
    }))

  it.effect("permit POSTs: random and near-valid bodies, keys and headers", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const publication = yield* (yield* Publisher.Publisher).current
      const route = publication.routes.find((r) => r.open)!
      const valid = () => ({
        quoteId: route.quoteId,
        requestedAmountInRaw: route.minimumFillInRaw,
        payer,
        recipient: "0x2222222222222222222222222222222222222222",
        idempotencyKey: `fuzz-${Math.random().toString(36).slice(2)}`
      })
      const mutation = fc.oneof(
        // replace one field by junk
        fc.tuple(fc.constantFrom(...FIELDS), junk).map(([field, value]) => (b: Record<string, unknown>) => ({
          ...b,
          [field]: value
        })),
        // delete one field
        fc.constantFrom(...FIELDS).map((field) => (b: Record<string, unknown>) => {
          const { [field]: _, ...rest } = b
          return rest
        }),
        // add an unknown field
        fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), junk).map(([k, v]) => (b: Record<string, unknown>) => ({
          ...b,
          [k]: v
        })),
        // a valid signature or none
        fc.constant((b: Record<string, unknown>) => {
          try {
            const message = PermitMessage.build(b as unknown as PermitMessage.PermitRequestInput)
            return { ...b, requestSignature: PermitMessage.sign(message, PAYER_KEY) }
          } catch {
            return b
          }
        })
      )
      const body = fc.oneof(
        {
          weight: 4,
          arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) =>
            JSON.stringify(ms.reduce((b, m) => m(b), valid() as Record<string, unknown>))
          )
        },
        { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) }
      )
      const header = fc.option(fc.oneof(fc.string({ maxLength: 20 }), fc.stringMatching(/^[a-zA-Z0-9._:-]{8,20}$/)), {
        nil: undefined
      })
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(body, header, fc.constantFrom("/request-message", ""), async (payload, key, suffix) => {
            const headers: Record<string, string> = { "content-type": "application/json" }
            if (key !== undefined && /^[\x20-\x7e]*$/.test(key)) headers["idempotency-key"] = key
            const response = await fetch(`${url}/api/v6/execution-permits${suffix}`, {
              method: "POST",
              body: payload,
              headers
            })
            await checkAnswer(
              response,
              suffix === "" ? [200, 201, 400, 409, 410, 413, 429, 503] : [200, 400, 409, 410, 413, 503],
              `POST ${suffix} ${payload.slice(0, 120)}`
            )
          }),
          { numRuns: RUNS * 2 }
        )
      )
    }))

  it.effect("random methods and paths", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const paths = fc.oneof(
        fc.constantFrom(
          "/api/v6/solver-feed",
          "/api/v6/solver-discovery",
          "/.well-known/svc-solver.json",
          "/openapi.json",
          "/api/v6/execution-permits",
          "/api/v6/execution-permits/request-message",
          "/api/v6/solver-feed/events"
        ),
        fc.webPath()
      )
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.constantFrom("PUT", "DELETE", "PATCH", "POST", "GET"), paths, async (method, path) => {
            const safePath = path.startsWith("/") ? path : `/${path}`
            const controller = new AbortController()
            const response = await fetch(`${url}${safePath}`, {
              method,
              signal: controller.signal,
              ...(method === "GET" || method === "DELETE" ? {} : { body: "{}" })
            })
            if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
              controller.abort()
              return
            }
            await checkAnswer(
              response,
              [200, 201, 304, 400, 404, 405, 409, 410, 413, 429, 503],
              `${method} ${safePath}`
            )
          }),
          { numRuns: RUNS }
        )
      )
    }))

  it.effect("event stream: random Last-Event-ID values", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const publisher = yield* Publisher.Publisher
      const version = () => Effect.runPromise(Effect.map(publisher.current, (p) => p.dataVersion.toString()))
      const current = yield* Effect.promise(version)
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.oneof(
              fc.string({ maxLength: 30 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
              fc.bigInt({ min: 0n, max: 1n << 70n }).map(String),
              // the current dataVersion, its neighbours, and look-alikes of it
              fc.constantFrom(current, `0${current}`, ` ${current}`, `${current}.0`),
              fc.bigInt({ min: -2n, max: 2n }).map((d) => (BigInt(current) + d).toString())
            ),
            async (id) => {
              const before = await version()
              const response = await fetch(`${url}/api/v6/solver-feed/events`, { headers: { "last-event-id": id } })
              assert.strictEqual(response.status, 200)
              assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/)
              const stream = sseReader(response)
              try {
                // the stream opens with retry, then (unless the id names the current publication) a feed event
                assert.deepStrictEqual(await stream.next(), { retry: "3000" }, `Last-Event-ID ${JSON.stringify(id)}`)
                // a header value is sent without its surrounding whitespace
                const upToDate = id.trim() === before && before === (await version())
                const event = await stream.nextEvent(upToDate ? 300 : 5000)
                if (upToDate) {
                  assert.isUndefined(event, `Last-Event-ID ${JSON.stringify(id)} names the current publication`)
                  return
                }
                assert.isDefined(event, `Last-Event-ID ${JSON.stringify(id)}: no feed event`)
                assert.strictEqual(event!.event, "feed")
                assert.match(event!.id ?? "", /^(?:0|[1-9][0-9]*)$/)
                assert.isTrue(BigInt(event!.id!) >= BigInt(before), `${event!.id} is not older than ${before}`)
                assert.notStrictEqual(event!.id, id.trim(), "never the publication the client says it has")
                const feed = JSON.parse(event!.data!)
                assert.strictEqual(feed.signedPayload.dataVersion, event!.id)
                assert.match(feed.feedHash, /^0x[0-9a-f]{64}$/)
              } finally {
                await stream.cancel()
              }
            }
          ),
          { numRuns: Math.max(10, Math.floor(RUNS / 3)) }
        )
      )
    }))
})
