/**
 * 500 and 503 answers, produced by making the store or the signer fail under a
 * real server.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Publisher, Signer, Store } from "@svc/core"
import { PermitMessage, Signature } from "@svc/protocol"
import { SqliteStore } from "@svc/store"
import { Effect, Layer, Redacted, References } from "effect"
import { createServer } from "node:http"
import { scaled } from "../../../test/support/time.ts"
import * as App from "../src/App.ts"
import { AUTHORITY_KEY, baseUrl, demoCatalog, PAYER_KEY } from "./support/server.ts"

const switches = { store: false, signer: false }

/** Runs `effect` with a fault switch on; the switch is off again however the effect ends. */
const withFault = <A, E, R>(name: keyof typeof switches, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      switches[name] = true
    }),
    () => effect,
    () =>
      Effect.sync(() => {
        switches[name] = false
      })
  )

/** Wraps every store operation: fails with a StoreError while the switch is on. */
const failingStore = Layer.effect(
  Store.Store,
  Effect.map(Effect.service(Store.Store), (inner) => {
    const wrapped: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(inner)) {
      const guard = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Store.StoreError, R> =>
        Effect.suspend((): Effect.Effect<A, E | Store.StoreError, R> =>
          switches.store
            ? Effect.fail(new Store.StoreError({ operation: name, cause: new Error("database down (test)") }))
            : effect
        )
      wrapped[name] = Effect.isEffect(value) ? guard(value) : typeof value === "function"
        ? (...args: Array<unknown>) => guard((value as (...a: Array<unknown>) => Effect.Effect<unknown>)(...args))
        : value
    }
    return wrapped as unknown as Store.StoreShape
  })
).pipe(Layer.provide(SqliteStore.layer({ filename: ":memory:" })))

const base = Signer.fromPrivateKey(Redacted.make(AUTHORITY_KEY))
const failingSigner = Layer.succeed(Signer.Signer, {
  ...base,
  signDigest: (digest) =>
    Effect.suspend(() =>
      switches.signer
        ? Effect.fail(new Signer.SignerUnavailable({ message: "HSM unreachable (test)" }))
        : base.signDigest(digest)
    )
})

const TestLayer = App.layer({
  catalog: demoCatalog,
  engine: { publisher: { tickMillis: 60_000 }, health: { cacheMillis: 0, timeoutMillis: 500 } }
}).pipe(
  Layer.provideMerge(
    Layer.mergeAll(failingStore, failingSigner, NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  ),
  Layer.provide(Layer.succeed(References.MinimumLogLevel, "None"))
)

const payer = Signature.addressOf(PAYER_KEY)

const getJson = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, body: await response.json() as any }
  })

layer(TestLayer, { excludeTestServices: true, timeout: scaled(60_000) })("failures", (it) => {
  it.effect("health: live and ready while everything works; ready 503 names the store or the signer that fails; /v1/health stays 200 and says DEGRADED", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const allOk = { store: { status: "OK" }, signer: { status: "OK" }, publication: { status: "OK" } }
      const live = yield* getJson(`${url}/health/live`)
      assert.strictEqual(live.status, 200)
      assert.deepInclude(live.body, { ok: true, live: true, ready: true, components: allOk })
      const ready = yield* getJson(`${url}/health/ready`)
      assert.strictEqual(ready.status, 200)
      assert.deepInclude(ready.body, { ok: true, ready: true })
      const v1 = yield* getJson(`${url}/v1/health`)
      assert.strictEqual(v1.body.status, "OK")
      assert.deepStrictEqual(v1.body.components, allOk)

      for (const part of ["store", "signer"] as const) {
        yield* withFault(
          part,
          Effect.gen(function*() {
            const down = yield* getJson(`${url}/health/ready`)
            assert.strictEqual(down.status, 503, part)
            assert.strictEqual(down.body.ready, false)
            assert.strictEqual(down.body.components[part].status, "UNAVAILABLE", part)
            assert.notInclude(JSON.stringify(down.body), "(test)", "no internals in the body")
            const stillLive = yield* getJson(`${url}/health/live`)
            assert.strictEqual(stillLive.status, 200)
            const degraded = yield* getJson(`${url}/v1/health`)
            assert.strictEqual(degraded.status, 200)
            assert.strictEqual(degraded.body.status, "DEGRADED", part)
            assert.strictEqual(degraded.body.components[part].status, "UNAVAILABLE")
          })
        )
      }
      assert.strictEqual((yield* getJson(`${url}/health/ready`)).status, 200)
    }))

  it.effect("a failing store: permit creation 503 with Retry-After, status 500, and recovery", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const route = (yield* (yield* Publisher.Publisher).current).routes.find((r) => r.open)!
      const request = {
        quoteId: route.quoteId,
        requestedAmountInRaw: route.minimumFillInRaw,
        payer,
        recipient: payer,
        idempotencyKey: "failure-key-01"
      }
      const body = JSON.stringify({
        ...request,
        requestSignature: PermitMessage.sign(PermitMessage.build(request), PAYER_KEY)
      })
      const post = () =>
        Effect.promise(() =>
          fetch(`${url}/api/v6/execution-permits`, {
            method: "POST",
            body,
            headers: { "content-type": "application/json" }
          })
        )
      yield* withFault(
        "store",
        Effect.gen(function*() {
          const down = yield* post()
          assert.strictEqual(down.status, 503)
          assert.match(down.headers.get("retry-after") ?? "", /^[1-9]/)
          const downBody = (yield* Effect.promise(() => down.json())) as any
          assert.strictEqual(downBody.error, "AUTHORITY_UNAVAILABLE")
          assert.include(downBody.reasonCodes, "STORE_UNAVAILABLE")
          // what failed inside stays in the log (under x-request-id), not in the answer
          assert.notInclude(JSON.stringify(downBody), "database down")
          assert.match(down.headers.get("x-request-id") ?? "", /.+/)
          const status = yield* Effect.promise(() => fetch(`${url}/api/v6/execution-permits/0x${"ab".repeat(32)}`))
          assert.strictEqual(status.status, 500)
          const statusBody = (yield* Effect.promise(() => status.json())) as any
          assert.strictEqual(statusBody.error, "INTERNAL_ERROR")
          assert.notInclude(JSON.stringify(statusBody), "database down")
        })
      )
      assert.isFalse(switches.store)
      const up = yield* post()
      assert.strictEqual(up.status, 201)
    }))

  it.effect("a failing signer: permit creation 503; the last publication keeps being served", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const publisher = yield* Publisher.Publisher
      const route = (yield* publisher.current).routes.find((r) => r.open)!
      const request = {
        quoteId: route.quoteId,
        requestedAmountInRaw: route.minimumFillInRaw,
        payer,
        recipient: payer,
        idempotencyKey: "failure-key-02"
      }
      const body = JSON.stringify({
        ...request,
        requestSignature: PermitMessage.sign(PermitMessage.build(request), PAYER_KEY)
      })
      yield* withFault(
        "signer",
        Effect.gen(function*() {
          const down = yield* Effect.promise(() =>
            fetch(`${url}/api/v6/execution-permits`, {
              method: "POST",
              body,
              headers: { "content-type": "application/json" }
            })
          )
          assert.strictEqual(down.status, 503)
          assert.include(((yield* Effect.promise(() => down.json())) as any).reasonCodes, "SIGNER_UNAVAILABLE")
          const failed = yield* publisher.publishNow.pipe(Effect.flip)
          assert.strictEqual(failed._tag, "PublishFailed")
          const feed = yield* Effect.promise(() => fetch(`${url}/api/v6/solver-feed`))
          assert.strictEqual(feed.status, 200)
          yield* Effect.promise(() => feed.text())
        })
      )
      assert.isFalse(switches.signer)
    }))

  it.effect("a fault switch is off again after a failing test body", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(withFault("store", Effect.sync(() => assert.fail("a failing assertion"))))
      assert.isTrue(exit._tag === "Failure")
      assert.isFalse(switches.store)
      // the server works again: nothing left switched on
      const url = yield* baseUrl
      const feed = yield* Effect.promise(() => fetch(`${url}/api/v6/solver-feed`))
      assert.strictEqual(feed.status, 200)
      yield* Effect.promise(() => feed.text())
    }))
})
