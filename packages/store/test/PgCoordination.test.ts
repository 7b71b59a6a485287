/**
 * Replicas on one PostgreSQL database: exactly one leads; when it goes, another
 * takes over within a few checks; a leader frozen with SIGSTOP loses its lease
 * within the documented bound and, resumed, acts no more; announcements reach
 * every replica; a listener whose connection is killed listens again and says
 * `resync`.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import type { Announcement } from "@svc/core/Coordination"
import { Effect, Exit, Fiber, Redacted, Scope, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import fc from "fast-check"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { scaled } from "../../../test/support/time.ts"
import { make, parseAnnouncement } from "../src/PgCoordination.ts"

const url = Redacted.make(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test")
const CHECK = 100

const namespace = () => `svc_test_coord_${process.pid}_${Math.random().toString(36).slice(2, 8)}`

/** A replica in a scope of its own, so that a test can stop it. */
const replica = (schema: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const coordination = yield* make({ url, schema, checkMillis: CHECK }).pipe(Scope.provide(scope))
    return { coordination, close: Scope.close(scope, Exit.void) }
  })

/** Polls `check` every 20 ms; dies after `timeoutMs` (scaled: a bound on a wait). Resolves to the time it took. */
const waitFor = <E, R>(what: string, check: Effect.Effect<boolean, E, R>, timeoutMs = scaled(5000)) =>
  Effect.gen(function*() {
    const start = Date.now()
    while (!(yield* check)) {
      if (Date.now() - start > timeoutMs) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep(20)
    }
    return Date.now() - start
  })

/** The next announcement of a topic on a subscription. */
const next = (stream: Stream.Stream<Announcement>, topic: string) =>
  stream.pipe(
    Stream.filter((a) => a.topic === topic),
    Stream.runHead,
    Effect.map((o) => o._tag === "Some" ? o.value : undefined)
  )

describe("PgCoordination", () => {
  it("parseAnnouncement reads <topic>:<payload> and nothing else", () => {
    fc.assert(fc.property(fc.constantFrom("publication", "operator", "resync"), fc.string(), (topic, payload) => {
      const parsed = parseAnnouncement(`${topic}:${payload}`)
      return parsed?.topic === topic && parsed.payload === payload
    }))
    fc.assert(fc.property(fc.string(), (text) => {
      const topic = text.split(":")[0]!
      return ["publication", "operator", "resync"].includes(topic) || parseAnnouncement(text) === undefined
    }))
  })

  it.live("exactly one of three replicas leads; when it stops, another leads within a few checks", () =>
    Effect.gen(function*() {
      const schema = namespace()
      const replicas = [yield* replica(schema), yield* replica(schema), yield* replica(schema)]
      const leaders = Effect.map(
        Effect.forEach(replicas, (r) => r.coordination.isLeader),
        (l) => l.filter(Boolean).length
      )
      yield* waitFor("a leader", Effect.map(leaders, (n) => n === 1))
      // it stays one for a while (no flapping)
      for (let i = 0; i < 5; i++) {
        yield* Effect.sleep(CHECK)
        assert.strictEqual(yield* leaders, 1)
      }
      const first = (yield* Effect.filter(replicas, (r) => r.coordination.isLeader))[0]!
      yield* first.close
      const rest = replicas.filter((r) => r !== first)
      const took = yield* waitFor(
        "a new leader",
        Effect.map(Effect.forEach(rest, (r) => r.coordination.isLeader), (l) => l.filter(Boolean).length === 1)
      )
      // a few checks (on a loaded machine a check runs late: scaled)
      assert.isBelow(took, scaled(CHECK * 5))
      for (const r of rest) yield* r.close
    }))

  it.live(
    "a leader frozen with SIGSTOP loses its lease: another leads within leaseMillis + checkMillis, and the resumed one never acts again",
    () =>
      Effect.gen(function*() {
        const schema = namespace()
        // the frozen leader's lease: 1 s, scaled so that a busy machine does not starve a live leader past it
        const LEASE = scaled(1000)
        const lines: Array<string> = []
        const child = spawn(
          process.execPath,
          [fileURLToPath(new URL("./support/leaseHolder.ts", import.meta.url)), schema, String(CHECK), String(LEASE)],
          { stdio: ["ignore", "pipe", "inherit"] }
        )
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => lines.push(...chunk.split("\n").filter(Boolean)))
        try {
          yield* waitFor("the child leads", Effect.sync(() => lines.includes("leading true")), scaled(15_000))
          const other = yield* replica(schema)
          yield* Effect.sleep(CHECK * 3)
          assert.isFalse(yield* other.coordination.isLeader)
          process.kill(child.pid!, "SIGSTOP")
          const stoppedAt = Date.now()
          const took = yield* waitFor("a new leader", other.coordination.isLeader, scaled(10_000))
          // the bound: the lease (from the frozen leader's last renewal) plus one check, with slack for a busy machine
          assert.isBelow(took, LEASE + scaled(CHECK * 6), `took ${took} ms`)
          yield* Effect.sleep(LEASE)
          process.kill(child.pid!, "SIGCONT")
          yield* waitFor(
            "the resumed child steps down",
            Effect.sync(() => lines.includes("leading false")),
            scaled(10_000)
          )
          yield* Effect.sleep(CHECK * 5)
          // while frozen it could not act; resumed, it saw its lease had run out before acting
          const acted = lines.filter((l) => l.startsWith("act ")).map((l) => Number(l.slice(4)))
          assert.isTrue(
            acted.every((t) => t < stoppedAt + 50),
            `acted after the freeze: ${acted.filter((t) => t >= stoppedAt + 50)}`
          )
          assert.isTrue(yield* other.coordination.isLeader)
          yield* other.close
        } finally {
          child.kill("SIGKILL")
        }
      }),
    scaled(60_000)
  )

  it.live("announcements reach every replica, the sender too; other namespaces hear nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const schema = namespace()
      const [a, b] = [yield* replica(schema), yield* replica(schema)]
      const other = yield* replica(namespace())
      const streams = [
        yield* a.coordination.announcements,
        yield* b.coordination.announcements,
        yield* other.coordination.announcements
      ]
      const received = yield* Effect.forkChild(
        Effect.all(streams.slice(0, 2).map((s) => next(s, "publication")), { concurrency: "unbounded" })
      )
      const stray = yield* Effect.forkChild(next(streams[2]!, "publication"))
      // the listeners are up once a first resync went by; announce until both got it
      yield* Effect.sleep(300)
      yield* a.coordination.announce("publication", "42")
      const got = yield* Fiber.join(received)
      assert.deepStrictEqual(got, [{ topic: "publication", payload: "42" }, { topic: "publication", payload: "42" }])
      yield* Effect.sleep(200)
      assert.isUndefined(stray.pollUnsafe(), "another namespace heard the announcement")
      yield* Fiber.interrupt(stray)
      for (const r of [a, b, other]) yield* r.close
    })))

  it.live(
    "a listener whose connection is killed listens again and says resync; later announcements arrive",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const schema = namespace()
        const a = yield* replica(schema)
        yield* Effect.sleep(300)
        // subscribed once the first listener is up: the resync it gets is the reconnection's
        const resync = yield* Effect.forkChild(next(yield* a.coordination.announcements, "resync"))
        const admin = yield* PgClient.make({ url, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
        // the coordination's listening session is the one LISTENing on our channel
        const killed = yield* admin<{ readonly n: number }>`SELECT count(pg_terminate_backend(pid))::int AS n
        FROM pg_stat_activity WHERE application_name LIKE ${`svc-listener %:${process.pid}`} AND query ILIKE ${`LISTEN%svc_${schema}%`}`
        assert.isAtLeast(killed[0]!.n, 1)
        assert.deepStrictEqual(yield* Fiber.join(resync), { topic: "resync", payload: "" })
        const after = yield* Effect.forkChild(next(yield* a.coordination.announcements, "operator"))
        yield* Effect.sleep(100)
        yield* a.coordination.announce("operator", "paused")
        assert.deepStrictEqual(yield* Fiber.join(after), { topic: "operator", payload: "paused" })
        yield* a.close
      })),
    20_000
  )
})
