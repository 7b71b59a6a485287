/**
 * A replica of PgCoordination in a process of its own (the lease test stops it
 * with SIGSTOP): prints `leading <bool>` on every change of leadership and
 * `act <ms>` each time it would act (every 25 ms while `isLeader`, the fence
 * settlement checks before a side effect), with the wall-clock time.
 *
 * usage: node leaseHolder.ts <schema> <checkMillis> <leaseMillis>
 */
import { Effect, Redacted, Stream } from "effect"
import { make } from "../../src/PgCoordination.ts"

const [schema, check, lease] = process.argv.slice(2)
const url = Redacted.make(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test")

const program = Effect.scoped(Effect.gen(function*() {
  const coordination = yield* make({ url, schema, checkMillis: Number(check), leaseMillis: Number(lease) })
  yield* Effect.forkChild(
    Stream.runForEach(
      Stream.changes(coordination.leadership),
      (l) => Effect.sync(() => process.stdout.write(`leading ${l}\n`))
    )
  )
  for (;;) {
    if (yield* coordination.isLeader) process.stdout.write(`act ${Date.now()}\n`)
    yield* Effect.sleep(25)
  }
}))

Effect.runFork(program)
