/**
 * Records the golden HTTP fixtures (conformance/fixtures/http): a run of the
 * request-deterministic groups against our real server (good.json), and for
 * a set of broken variants only the responses they change (bad/<variant>.json).
 *
 *   node_modules/.bin/node conformance/test/record-fixtures.ts
 *
 * Re-run it when the server's documents change on purpose; the fixture test
 * then checks the checks against the new recording.
 */
import { Clock, Effect, Layer, Option } from "effect"
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import * as Registry from "../src/Registry.ts"
import * as Runner from "../src/Runner.ts"
import * as RunOptions from "../src/RunOptions.ts"
import * as Transport from "../src/Transport.ts"
import { Deployment, layer as deployment, WALLET_KEY } from "./support/harness.ts"
import { type BadRecording, entriesOf, OFFLINE_GROUPS, type Recording } from "./support/recorded.ts"
import { variants } from "./support/variants.ts"

/** The variants recorded as bad fixtures: at least one per offline group. */
const RECORDED = [
  "manifest-extra-field",
  "selector-mismatch",
  "create2-mismatch",
  "wrong-method-404",
  "feed-unsorted-canonical",
  "filter-alters-payload",
  "etag-strong",
  "missing-304",
  "route-detail-differs",
  "extra-response-field",
  "unsafe-number-in-response"
]

const dir = new URL("../fixtures/http/", import.meta.url)

/** Drift between two runs that is not the variant: observational counters, health's clock, the proxy decoding. */
const normalize = (body: string) =>
  body
    .replace(/"(feed_exposures|permit_requests|permits_issued|source_observed|paid)":[0-9]+/g, "\"$1\":0")
    .replace(/"(permitConversionRate|fillConversionRate)":(null|[0-9.e-]+)/g, "\"$1\":0")
    .replace(/"updatedAt":("[^"]*"|null)/g, "\"updatedAt\":null")
    .replace(/"checkedAt":[0-9]+/g, "\"checkedAt\":0")
const stable = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => k !== "content-encoding"))

const record = Effect.gen(function*() {
  const d = yield* Deployment
  const run = Effect.gen(function*() {
    const options = RunOptions.make({
      baseUrl: d.proxy.url,
      only: [...OFFLINE_GROUPS],
      seed: 1,
      walletKey: WALLET_KEY,
      timeoutSeconds: 3,
      quietMillis: 300
    })
    const recordedAt = yield* Clock.currentTimeMillis
    return yield* Effect.gen(function*() {
      const t = yield* Transport.Transport
      const report = yield* Runner.runScoped(Registry.all, [])
      return { report, recordedAt, ...entriesOf(yield* t.exchanges) }
    }).pipe(
      Effect.provide(Transport.layer({ baseUrl: options.baseUrl, timeoutMs: 3000 })),
      Effect.provideService(RunOptions.Options, options),
      Effect.provideService(RunOptions.Triggers, { publish: Option.some(d.publish), advanceTime: Option.none() })
    )
  }).pipe(Effect.provideService(Clock.Clock, d.clock))

  const good = yield* run
  if (good.report.summary.failed > 0) {
    return yield* Effect.die(new Error("the real server fails the offline groups: not recording"))
  }
  const recording: Recording = {
    description:
      "a run of the request-deterministic groups (discovery, openapi, http, feed, etag, route, responses) against the real svc server with the demo catalog",
    origin: d.proxy.url,
    recordedAt: good.recordedAt,
    entries: good.entries,
    bodies: good.bodies
  }
  mkdirSync(new URL("bad/", dir), { recursive: true })
  for (const f of readdirSync(new URL("bad/", dir))) rmSync(new URL(`bad/${f}`, dir))
  writeFileSync(new URL("good.json", dir), `${JSON.stringify(recording)}\n`)
  const byKey = new Map(good.entries.map((e) => [e.key, e]))
  for (const name of RECORDED) {
    const variant = variants.find((v) => v.name === name)!
    d.proxy.setVariant(variant)
    const bad = yield* run
    d.proxy.setVariant(undefined)
    const changed = bad.entries.filter((e) => {
      const g = byKey.get(e.key)
      return g === undefined || g.status !== e.status ||
        normalize(good.bodies[g.body]!) !== normalize(bad.bodies[e.body]!) ||
        JSON.stringify(stable(g.headers)) !== JSON.stringify(stable(e.headers))
    })
    const bodies = Object.fromEntries(
      changed.filter((e) => good.bodies[e.body] === undefined).map((e) => [e.body, bad.bodies[e.body]!])
    )
    const file: BadRecording = {
      variant: name,
      breaks: variant.breaks,
      mustFail: variant.caughtBy,
      entries: changed,
      bodies
    }
    writeFileSync(new URL(`bad/${name}.json`, dir), `${JSON.stringify(file)}\n`)
    process.stdout.write(`bad/${name}.json: ${changed.length} changed responses\n`)
  }
})

Effect.runPromise(Effect.scoped(record.pipe(Effect.provide(Layer.fresh(deployment))))).then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${String(e)}\n`)
    process.exit(1)
  }
)
