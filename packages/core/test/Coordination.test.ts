/**
 * Two engines on one store, as two replicas: only the leader publishes; the
 * follower serves the leader's stored document byte for byte (and pushes it to
 * its subscribers); a document that does not check out is not served; when
 * leadership moves, the new leader publishes the next version.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, PubSub, Redacted, Stream, SubscriptionRef, Tracer } from "effect"
import { type Announcement, Coordination } from "../src/Coordination.ts"
import { Publisher } from "../src/Publisher.ts"
import * as Signer from "../src/Signer.ts"
import * as Solver from "../src/Solver.ts"
import { Store } from "../src/Store.ts"
import { AUTHORITY_KEY, demoCatalog, evm } from "./support/engine.ts"
import { makeMemoryStore } from "./support/memoryStore.ts"

/** A coordination whose leadership the test sets; announcements shared by every replica of the test. */
const manualCoordination = (hub: PubSub.PubSub<Announcement>, leads: boolean) =>
  Effect.gen(function*() {
    const leading = yield* SubscriptionRef.make(leads)
    const service = Coordination.of({
      isLeader: SubscriptionRef.get(leading),
      leadership: SubscriptionRef.changes(leading),
      announce: (topic, payload) => PubSub.publish(hub, { topic, payload }).pipe(Effect.asVoid),
      announcements: Effect.map(PubSub.subscribe(hub), Stream.fromSubscription),
      description: "test"
    })
    return { service, set: (value: boolean) => SubscriptionRef.set(leading, value) }
  })

const replica = (store: Store["Service"], coordination: Coordination["Service"], key: `0x${string}` = AUTHORITY_KEY) =>
  Layer.build(
    Solver.layer({
      catalog: demoCatalog,
      publisher: { routeDetailTemplate: "http://svc.test/api/v6/routes/{routeId}", tickMillis: 60_000 },
      settlement: { sweepMillis: 0 },
      routeMetrics: { flushMillis: 60_000 },
      connectors: [evm]
    }, { coordination: Layer.succeed(Coordination, coordination) }).pipe(
      Layer.provide(Layer.succeed(Store, store)),
      Layer.provide(Layer.succeed(Signer.Signer, Signer.fromPrivateKey(Redacted.make(key))))
    )
  )

describe("replicas of one store", () => {
  it.live("a publication and a follower's look at it run in spans (Publisher.publish, Publisher.follow)", () =>
    Effect.scoped(Effect.gen(function*() {
      const names: Array<string> = []
      const recording = Tracer.make({
        span(options) {
          names.push(options.name)
          return Tracer.nativeTracer.span(options)
        }
      })
      const { store } = makeMemoryStore()
      const hub = yield* PubSub.unbounded<Announcement>()
      const a = yield* manualCoordination(hub, true)
      const b = yield* manualCoordination(hub, false)
      const leader = yield* replica(store, a.service).pipe(Effect.withTracer(recording))
      const follower = yield* replica(store, b.service).pipe(Effect.withTracer(recording))
      const first = yield* Context.get(leader, Publisher).current
      assert.strictEqual((yield* Context.get(follower, Publisher).current).dataVersion, first.dataVersion)
      assert.include(names, "Publisher.publish")
      assert.include(names, "Publisher.follow")
    })))

  it.live("the follower serves the leader's bytes; a bad document is refused; a new leader publishes next", () =>
    Effect.scoped(Effect.gen(function*() {
      const { store } = makeMemoryStore()
      const hub = yield* PubSub.unbounded<Announcement>()
      const a = yield* manualCoordination(hub, true)
      const b = yield* manualCoordination(hub, false)
      const leader = yield* replica(store, a.service)
      const follower = yield* replica(store, b.service)
      const pubA = Context.get(leader, Publisher)
      const pubB = Context.get(follower, Publisher)

      const first = yield* pubA.current
      const adopted = yield* pubB.current
      assert.strictEqual(adopted.dataVersion, first.dataVersion)
      assert.deepStrictEqual(adopted.fullView.body, first.fullView.body)
      assert.strictEqual(adopted.fullView.etag, first.fullView.etag)
      assert.strictEqual(adopted.catalogRoutes.length, first.catalogRoutes.length)

      // the follower cannot publish
      const refused = yield* Effect.flip(pubB.publishNow)
      assert.strictEqual(refused._tag, "PublishFailed")

      // the leader publishes again: the follower's subscribers get it
      const { events } = yield* pubB.subscribe
      const second = yield* pubA.publishNow
      const event = yield* PubSub.take(events).pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(event._tag === "Published" ? event.publication.dataVersion : undefined, second.dataVersion)

      // a stored document that does not check out is not served
      const latest = (yield* store.latestPublicationDocument)!
      const tampered = JSON.parse(latest.document) as { canonicalPayload: string }
      tampered.canonicalPayload = tampered.canonicalPayload.replace("\"validUntil\":", "\"validUntil\":1")
      yield* store.savePublicationDocument({ dataVersion: latest.dataVersion + 1n, document: JSON.stringify(tampered) })
      yield* pubB.refresh
      assert.strictEqual((yield* pubB.current).dataVersion, second.dataVersion)

      // leadership moves: the new leader publishes a newer version than any stored
      yield* a.set(false)
      yield* b.set(true)
      yield* Effect.sleep("100 millis")
      const third = yield* pubB.publishNow
      assert.isTrue(third.dataVersion > latest.dataVersion + 1n)
      yield* pubA.refresh
      assert.strictEqual((yield* pubA.current).dataVersion, third.dataVersion)
    })))
})

/** Another authority key (a well-known test key, no funds anywhere). */
const OTHER_KEY = "0x05d0cdd68a21b27beded4a2fee8774bde6ea2db9608be6945cac231199dd2384" as const

describe("a follower and a stored feed of another key", () => {
  it.live("is not served: neither one signed by another key, nor one that names this replica's key but is signed by another", () =>
    Effect.scoped(Effect.gen(function*() {
      const { store } = makeMemoryStore()
      const hub = yield* PubSub.unbounded<Announcement>()
      const a = yield* manualCoordination(hub, true)
      const b = yield* manualCoordination(hub, false)
      // the follower, on this deployment's key, publishes first (it leads for a moment)
      yield* b.set(true)
      const follower = yield* replica(store, b.service)
      const pubB = Context.get(follower, Publisher)
      const own = yield* pubB.current
      yield* b.set(false)
      // a replica configured with another key leads and stores its publication
      const stranger = yield* replica(store, a.service, OTHER_KEY)
      const pubA = Context.get(stranger, Publisher)
      const foreign = yield* pubA.publishNow
      assert.isTrue(foreign.dataVersion > own.dataVersion)
      yield* pubB.refresh
      assert.strictEqual((yield* pubB.current).dataVersion, own.dataVersion, "a feed signed by another key")
      // the same document naming this replica's key as its signer: the signature says otherwise
      const stored = (yield* store.latestPublicationDocument)!
      const forged = JSON.parse(stored.document) as { feedSigner: string }
      forged.feedSigner = Signer.fromPrivateKey(Redacted.make(AUTHORITY_KEY)).address
      yield* store.savePublicationDocument({ dataVersion: stored.dataVersion, document: JSON.stringify(forged) })
      assert.strictEqual((yield* store.latestPublicationDocument)?.document, JSON.stringify(forged))
      yield* pubB.refresh
      assert.strictEqual(
        (yield* pubB.current).dataVersion,
        own.dataVersion,
        "a feed claiming this key, signed by another"
      )
    })))
})
