/**
 * A publication is assembled from pieces (internal/publication.ts): canonical
 * texts around one member, JSON string escapes, UTF-8 bytes and the feed hash fed
 * chunk by chunk. Each assembly must equal the one-shot serialization exactly:
 * `CanonicalJson.stringify`, `JSON.stringify`, `TextEncoder` and a one-shot
 * keccak. The engine test checks the same on real publications, warm (texts
 * reused from the previous publication) and after changes, against the
 * follower's path (which serializes from the stored document).
 */
import { assert, describe, it } from "@effect/vitest"
import { fc, test as fcTest } from "@fast-check/vitest"
import { keccak } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as FeedSignature from "@svc/protocol/FeedSignature"
import { FEED_SCHEMA, Route as RouteSchema } from "@svc/protocol/schema/Feed"
import { strictParseOptions } from "@svc/protocol/schema/index"
import { Context, Effect, Layer, PubSub, Redacted, Result, Schema, Stream, SubscriptionRef } from "effect"
import { generateCatalog } from "../../../scripts/bench/catalog.ts"
import { scaled } from "../../../test/support/time.ts"
import { jsonString, type JsonValue, jsonValueWith, objectKey, objectOf } from "../../protocol/test/arbitraries.ts"
import { type Announcement, Coordination } from "../src/Coordination.ts"
import { makeKeccakStreams } from "../src/internal/fastKeccak.ts"
import {
  arraySlot,
  concatBytes,
  fillSlot,
  joinMembers,
  jsonStringBody,
  ListPieces,
  memberChecks,
  membersOf,
  memberText,
  rewriteMembers,
  type SignedDocument,
  signedDocument,
  signedDocumentText,
  slotAt,
  slotOf,
  utf8,
  viewBytes,
  type ViewParts,
  viewText
} from "../src/internal/publication.ts"
import { type Publication, Publisher } from "../src/Publisher.ts"
import * as Signer from "../src/Signer.ts"
import * as Solver from "../src/Solver.ts"
import { Store } from "../src/Store.ts"
import { AUTHORITY_KEY, evm, makeEngine } from "./support/engine.ts"
import { makeMemoryStore } from "./support/memoryStore.ts"

// ---------------------------------------------------------------------------
// Arbitraries: JSON values that stress escaping and key order
// ---------------------------------------------------------------------------

type Json = JsonValue

const text = jsonString
/** Text without lone surrogates (every piece of a publication is well formed). */
const wellFormed = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.string({ unit: fc.constantFrom("\"", "\\", ",", "{", "\n", "\u{1F600}", "é", "a"), maxLength: 8 })
)
/** The shared keys that stress escaping and order, and the names the publisher splits texts at. */
const key = fc.oneof(
  { arbitrary: objectKey, weight: 4 },
  { arbitrary: fc.constantFrom("dataVersion", "routes", "z", "12"), weight: 2 }
)
const json = jsonValueWith(key)
const record = objectOf(key, json, 8)

/** `record` with `key` set to `value` as an own property (also for "__proto__"). */
const withMember = (base: Readonly<Record<string, Json>>, k: string, value: Json): Record<string, Json> =>
  Object.fromEntries([...Object.entries(base).filter(([name]) => name !== k), [k, value]])

/** Splits a list into consecutive non-empty chunks at the given cut points. */
const chunked = <A>(items: ReadonlyArray<A>, cuts: ReadonlyArray<number>): Array<Array<A>> => {
  const at = [...new Set(cuts.map((c) => c % (items.length + 1)))].filter((c) => c > 0 && c < items.length)
    .sort((a, b) => a - b)
  const out: Array<Array<A>> = []
  let start = 0
  for (const cut of [...at, items.length]) {
    if (cut > start) out.push(items.slice(start, cut))
    start = cut
  }
  return out
}

// ---------------------------------------------------------------------------
// Canonical texts around a member
// ---------------------------------------------------------------------------

describe("canonical texts assembled around a member", () => {
  fcTest.prop([record])("membersOf: the member texts joined are the canonical text", (object) => {
    assert.strictEqual(joinMembers(membersOf(object)), CanonicalJson.stringify(object))
  })

  fcTest.prop([record, fc.array(json, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 8 })])(
    "rewriteMembers: an object with some members changed, written from the previous member texts",
    (base, values, picks) => {
      const members = membersOf(base)
      if (members.keys.length === 0) return
      const changed = [...new Set(picks.map((p) => p % members.keys.length))]
      const next: Record<string, Json> = { ...base }
      changed.forEach((at, j) => {
        Object.defineProperty(next, members.keys[at]!, {
          value: values[j % values.length]!,
          enumerable: true,
          writable: true,
          configurable: true
        })
      })
      assert.strictEqual(joinMembers(rewriteMembers(members, next, changed)), CanonicalJson.stringify(next))
    }
  )

  fcTest.prop([record, key, json, json])(
    "slotAt: the text of the object with another value of the member is the slot filled with it",
    (base, k, first, second) => {
      const before = withMember(base, k, first)
      const slot = slotAt(membersOf(before), k)
      assert.isDefined(slot)
      assert.strictEqual(fillSlot(slot!, memberText(k, first)), CanonicalJson.stringify(before))
      assert.strictEqual(fillSlot(slot!, memberText(k, second)), CanonicalJson.stringify(withMember(base, k, second)))
      assert.isUndefined(slotAt(membersOf(base), `${k}\u0000missing`))
    }
  )

  it("member texts refuse what the whole text refuses (nesting limit, non-JSON values)", () => {
    const nested = (depth: number): unknown => {
      let value: unknown = 0
      for (let i = 0; i < depth; i++) value = { a: value }
      return value
    }
    const cases: Array<object> = [509, 510, 511, 512, 513].map((depth) => ({ x: nested(depth), y: 1 }))
    const sparse: Array<number> = [1]
    sparse[2] = 2
    cases.push({ a: undefined }, { a: 1.5 }, { a: 2 ** 53 }, { a: sparse }, { a: new Date(0) })
    for (const object of cases) {
      const whole = Result.try(() => CanonicalJson.stringify(object))
      const members = Result.try(() => joinMembers(membersOf(object)))
      assert.strictEqual(Result.isSuccess(members), Result.isSuccess(whole))
      if (Result.isSuccess(whole) && Result.isSuccess(members)) assert.strictEqual(members.success, whole.success)
    }
  })

  fcTest.prop([record, key, json])("slotOf: the slot of a member built from the other members", (base, k, value) => {
    assert.strictEqual(
      fillSlot(slotOf(base, k), memberText(k, value)),
      CanonicalJson.stringify(withMember(base, k, value))
    )
  })

  fcTest.prop([record, key, fc.array(record, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 5 })])(
    "arraySlot: the payload from its head and the route texts, joined chunk by chunk",
    (head, k, items, cuts) => {
      const { close, open } = arraySlot(head, k)
      const texts = items.map((item) => CanonicalJson.stringify(item))
      const chunks = chunked(texts, cuts).map((chunk) => chunk.join(","))
      assert.strictEqual(`${open}${chunks.join(",")}${close}`, CanonicalJson.stringify(withMember(head, k, items)))
    }
  )

  fcTest.prop([fc.array(record, { minLength: 1, maxLength: 8 }), fc.array(fc.bigInt({ min: 0n }), { minLength: 2 })])(
    "a route text around its dataVersion, filled with the next dataVersions",
    (terms, versions) => {
      // the publisher's path: the first text checked and written in full, the later ones filled in
      const slots = terms.map((t) => {
        return slotAt(membersOf(withMember(t, "dataVersion", versions[0]!.toString())), "dataVersion")!
      })
      for (const version of versions) {
        const dv = version.toString()
        const member = memberText("dataVersion", dv)
        terms.forEach((t, i) => {
          assert.strictEqual(fillSlot(slots[i]!, member), CanonicalJson.stringify(withMember(t, "dataVersion", dv)))
        })
      }
    }
  )
})

// ---------------------------------------------------------------------------
// Schema checks member by member
// ---------------------------------------------------------------------------

describe("member checks", () => {
  it("only for structs whose validity is each member's", () => {
    assert.isDefined(memberChecks(RouteSchema))
    assert.isDefined(memberChecks(Schema.Struct({ a: Schema.String, b: Schema.NullOr(Schema.Number) })))
    assert.isUndefined(
      memberChecks(Schema.Struct({ a: Schema.Number, b: Schema.Number }).check(Schema.makeFilter((s) => s.a < s.b)))
    )
    assert.isUndefined(memberChecks(Schema.Struct({ a: Schema.String, b: Schema.optionalKey(Schema.String) })))
  })

  /** Values for any Route member: valid ones of other members and near misses. */
  const candidate = fc.oneof(
    json,
    fc.constantFrom(
      "0x" + "ab".repeat(32),
      "0x" + "AB".repeat(32),
      "0x" + "ab".repeat(31),
      "0x" + "12".repeat(20),
      "0x" + "1g".repeat(20),
      "8453",
      "0",
      "01",
      "-1",
      "1.5",
      "OPEN",
      "PAUSED",
      "CLOSED",
      "L1",
      "L9",
      "DISCOVERABLE",
      "INDICATIVE_ENVELOPE_REPRICE_AT_PERMIT",
      6,
      18,
      78,
      255,
      0,
      -1,
      1.5,
      2 ** 53,
      1_700_000_000,
      true,
      false,
      null
    ),
    fc.record({ type: fc.constantFrom("evm-erc20", "x"), address: fc.constantFrom("0x" + "12".repeat(20), "1") })
  )

  it.effect("a Route member passes its check iff the route with it passes the Route schema", () =>
    Effect.gen(function*() {
      const routes = (yield* Publisher.pipe(Effect.flatMap((p) => p.current))).routes
      const check = memberChecks(RouteSchema)!
      const decodeRoute = Schema.decodeUnknownResult(RouteSchema)
      const keys = Object.keys(routes[0]!)
      fc.assert(
        fc.property(
          fc.nat({ max: routes.length - 1 }),
          fc.constantFrom(...keys),
          fc.oneof(
            candidate.map((value) => ({ value })),
            // the same member of another route (valid)
            fc.nat({ max: routes.length - 1 }).map((other) => ({ other }))
          ),
          (i, k, pick) => {
            const value = "other" in pick ? (routes[pick.other] as Record<string, unknown>)[k] : pick.value
            const changed = { ...routes[i]!, [k]: value }
            assert.strictEqual(check(k, value), Result.isSuccess(decodeRoute(changed, strictParseOptions)), `${k}`)
          }
        ),
        { numRuns: 400 }
      )
      // the members of every published route pass their checks
      for (const route of routes) {
        for (const [k, v] of Object.entries(route)) assert.isTrue(check(k, v), k)
      }
    }).pipe(Effect.provide(makeEngine().layer)))
})

// ---------------------------------------------------------------------------
// JSON strings, bytes, views and the hash
// ---------------------------------------------------------------------------

describe("escapes, bytes and hashes assembled from pieces", () => {
  const canonicalPieces = fc.array(json.map((v) => CanonicalJson.stringify(v)), { maxLength: 10 })

  fcTest.prop([canonicalPieces, fc.array(fc.nat(), { maxLength: 4 })])(
    "the escape of canonical texts joined by commas is their escapes joined by commas",
    (pieces, cuts) => {
      const chunks = chunked(pieces, cuts).map((chunk) => chunk.map(jsonStringBody).join(","))
      assert.strictEqual(chunks.join(","), jsonStringBody(pieces.join(",")))
      assert.strictEqual(`"${jsonStringBody(pieces.join(","))}"`, JSON.stringify(pieces.join(",")))
    }
  )

  fcTest.prop([record, key, json, json])("a slot's escapes concatenate", (base, k, first, second) => {
    const slot = slotAt(membersOf(withMember(base, k, first)), k)!
    const escaped = { before: jsonStringBody(slot.before), after: jsonStringBody(slot.after) }
    assert.strictEqual(
      fillSlot(escaped, jsonStringBody(memberText(k, second))),
      jsonStringBody(CanonicalJson.stringify(withMember(base, k, second)))
    )
  })

  const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) =>
    `0x${Buffer.from(b).toString("hex")}` as const
  )
  const actionable = fc.array(
    fc.record({ routeId: hex32, quoteId: hex32, pricingReferenceId: hex32, indicativeNotionalUsd: text }),
    { maxLength: 3 }
  )

  fcTest.prop([canonicalPieces, hex32, hex32, hex32, actionable])(
    "the stored document text is JSON.stringify of the document",
    (pieces, feedHash, feedSignature, feedSigner, actionableRoutes) => {
      const canonicalPayload = pieces.join(",")
      const document: SignedDocument = signedDocument(canonicalPayload, {
        feedHash,
        feedSignature,
        feedSigner,
        actionableRoutes: actionableRoutes as unknown as SignedDocument["actionableRoutes"]
      })
      const body = pieces.map(jsonStringBody).flatMap((piece, i) => i === 0 ? [piece] : [",", piece])
      const stored = signedDocumentText(document, body)
      assert.strictEqual(stored, JSON.stringify(document))
      assert.strictEqual(JSON.parse(stored).canonicalPayload, canonicalPayload)
    }
  )

  fcTest.prop([fc.array(wellFormed, { maxLength: 12 })])("UTF-8 of well-formed pieces concatenates", (pieces) => {
    assert.deepStrictEqual(concatBytes(pieces.map(utf8)), utf8(pieces.join("")))
  })

  fcTest.prop([
    wellFormed,
    wellFormed,
    wellFormed,
    wellFormed,
    fc.array(fc.tuple(json.map((v) => CanonicalJson.stringify(v)), fc.boolean()), { maxLength: 12 }),
    fc.array(fc.nat(), { maxLength: 4 })
  ])(
    "a view's bytes from byte pieces are the bytes of its text",
    (head, middle, tail, payloadText, routes, cuts) => {
      const parts: ViewParts = { head, middle, tail: (n, open) => `${tail}${n}:${open}}}` }
      const texts = routes.map(([t]) => t)
      const open = routes.filter(([, o]) => o).map(([t]) => t)
      const expected = utf8(viewText(parts, payloadText, texts, open))
      // the publisher's pieces: one segment per chunk, the open routes of a chunk as one segment
      const routeList = new ListPieces()
      const openList = new ListPieces()
      for (const chunk of chunked(routes, cuts)) {
        routeList.push(utf8(chunk.map(([t]) => t).join(",")))
        const opened = chunk.filter(([, o]) => o).map(([t]) => t)
        if (opened.length > 0) openList.push(utf8(opened.join(",")))
      }
      const payload = [utf8(payloadText)]
      assert.deepStrictEqual(
        viewBytes(parts, payload, routeList.pieces, openList.pieces, texts.length, open.length),
        expected
      )
    }
  )

  fcTest.prop([fc.uint8Array({ maxLength: 70_000 }), fc.array(fc.nat(), { maxLength: 8 })], { numRuns: 40 })(
    "the keccak fed in pieces is the one-shot keccak",
    async (bytes, cuts) => {
      const stream = await Effect.runPromise(makeKeccakStreams())
      const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
      let start = 0
      for (const cut of [...points, bytes.length]) {
        stream.update(bytes.subarray(start, cut))
        start = cut
      }
      assert.strictEqual(stream.digest(), keccak(bytes))
    }
  )

  it.effect("a stream started after another one ends it (its use throws)", () =>
    Effect.gen(function*() {
      const streams = makeKeccakStreams()
      const first = yield* streams
      first.update(utf8("a"))
      const second = yield* streams
      assert.throws(() => first.update(utf8("b")))
      second.update(utf8("abc"))
      assert.strictEqual(second.digest(), keccak(utf8("abc")))
      assert.throws(() => second.digest())
    }))
})

// ---------------------------------------------------------------------------
// Real publications: leader (pieces) and follower (one-shot texts) agree
// ---------------------------------------------------------------------------

/** A coordination whose leadership is fixed; announcements shared by both replicas. */
const fixedCoordination = (hub: PubSub.PubSub<Announcement>, leads: boolean) =>
  Effect.map(SubscriptionRef.make(leads), (leading) =>
    Coordination.of({
      isLeader: SubscriptionRef.get(leading),
      leadership: SubscriptionRef.changes(leading),
      announce: (topic, payload) => PubSub.publish(hub, { topic, payload }).pipe(Effect.asVoid),
      announcements: Effect.map(PubSub.subscribe(hub), Stream.fromSubscription),
      description: "test"
    }))

const TEMPLATE = "http://svc.test/api/v6/routes/{routeId}"

/** 250 routes: three chunks of the publisher. */
const catalog = generateCatalog(250)

const replica = (store: Store["Service"], coordination: Coordination["Service"]) =>
  Layer.build(
    Solver.layer({
      catalog,
      publisher: { routeDetailTemplate: TEMPLATE, tickMillis: 600_000 },
      settlement: { sweepMillis: 0 },
      routeMetrics: { flushMillis: 600_000 },
      connectors: [evm]
    }, { coordination: Layer.succeed(Coordination, coordination) }).pipe(
      Layer.provide(Layer.succeed(Store, store)),
      Layer.provide(Layer.succeed(Signer.Signer, Signer.fromPrivateKey(Redacted.make(AUTHORITY_KEY))))
    )
  )

const decoder = new TextDecoder()

/** Everything a publication serves or stores equals its one-shot serialization. */
const checkPublication = (publication: Publication, stored: string) => {
  assert.strictEqual(publication.canonicalPayload, CanonicalJson.stringify(publication.payload))
  assert.strictEqual(publication.feedHash, FeedSignature.hash(publication.payload))
  publication.routes.forEach((route, i) => {
    assert.strictEqual(publication.routeTexts[i], CanonicalJson.stringify(route))
    assert.strictEqual(route.dataVersion, publication.dataVersion.toString())
  })
  const document = JSON.parse(stored) as SignedDocument
  assert.strictEqual(stored, JSON.stringify(document))
  assert.strictEqual(document.canonicalPayload, publication.canonicalPayload)
  // the unfiltered response, written here field by field from one-shot texts
  const texts = publication.routes.map((route) => CanonicalJson.stringify(route))
  const open = publication.routes.flatMap((route, i) => route.open ? [texts[i]] : [])
  const n = publication.routes.length
  const expected =
    `{"ok":true,"feed":{"schema":"${FEED_SCHEMA}","releaseId":"${publication.releaseId}","dataVersion":"${publication.dataVersion.toString()}","generatedAt":${publication.generatedAt},"validUntil":${publication.validUntil},"signedPayload":${
      CanonicalJson.stringify(publication.payload)
    },"routeDetailTemplate":${JSON.stringify(TEMPLATE)},"actionableRoutes":${
      JSON.stringify(publication.actionableRoutes)
    },"routes":[${texts.join(",")}],"openRoutes":[${
      open.join(",")
    }],"feedHash":"${publication.feedHash}","feedSigner":"${publication.feedSigner}","feedSignature":"${publication.feedSignature}","publicationGasWei":"0","publicationTransactionHashes":[],"routeCount":${n},"openRouteCount":${open.length},"returnedRouteCount":${n},"returnedOpenRouteCount":${open.length}}}`
  assert.strictEqual(decoder.decode(publication.fullView.body), expected)
  assert.deepStrictEqual(publication.fullView.body, new TextEncoder().encode(expected))
  const body = JSON.parse(decoder.decode(publication.fullView.body))
  assert.strictEqual(JSON.stringify(body.feed.signedPayload), publication.canonicalPayload)
  assert.deepStrictEqual(body.feed.routes, publication.payload.routes)
  assert.deepStrictEqual(body.feed.openRoutes, publication.payload.routes.filter((r) => r.open))
  assert.strictEqual(body.feed.returnedOpenRouteCount, publication.openRouteCount)
}

describe("publications built in pieces", () => {
  it.live(
    "equal their one-shot serialization and the follower's bytes, warm and after changes",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { store } = makeMemoryStore()
        const hub = yield* PubSub.unbounded<Announcement>()
        const leader = Context.get(yield* replica(store, yield* fixedCoordination(hub, true)), Publisher)
        const follower = Context.get(yield* replica(store, yield* fixedCoordination(hub, false)), Publisher)
        const initial = yield* leader.current
        const routeIds = initial.routes.map((r) => r.routeId)
        const initiallyOpen = new Set(initial.routes.filter((r) => r.open).map((r) => r.routeId))

        const check = Effect.fnUntraced(function*(publication: Publication) {
          const stored = (yield* store.latestPublicationDocument)!
          assert.strictEqual(stored.dataVersion, publication.dataVersion)
          checkPublication(publication, stored.document)
          yield* follower.refresh
          const adopted = yield* follower.current
          assert.strictEqual(adopted.dataVersion, publication.dataVersion)
          assert.deepStrictEqual(adopted.fullView.body, publication.fullView.body)
          assert.strictEqual(adopted.fullView.etag, publication.fullView.etag)
          assert.deepStrictEqual(adopted.routeTexts, publication.routeTexts)
          const filter = { sourceChainId: publication.routes[0]!.sourceChainId! }
          assert.deepStrictEqual(adopted.view(filter).body, publication.view(filter).body)
        })

        yield* check(yield* leader.current)
        // warm: every route text filled in around the new dataVersion
        yield* check(yield* leader.publishNow)
        yield* check(yield* leader.publishNow)
        // changes in some routes (closed ones in the open list of their chunk), then back
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.subarray(routeIds, { maxLength: 40 }), fc.boolean(), async (paused, daily) => {
              await Effect.runPromise(Effect.gen(function*() {
                for (const routeId of paused) {
                  yield* store.setRouteOverride(
                    routeId,
                    daily ? { dailyStatus: "CLOSED" } : { executionStatus: "PAUSED" }
                  )
                }
                const changed = yield* leader.publishNow
                assert.strictEqual(
                  changed.openRouteCount,
                  initiallyOpen.size - paused.filter((id) => initiallyOpen.has(id)).length
                )
                yield* check(changed)
                for (const routeId of paused) yield* store.setRouteOverride(routeId, {})
                yield* check(yield* leader.publishNow)
              }))
            }),
            { numRuns: 12 }
          )
        )
      })),
    scaled(120_000)
  )
})
