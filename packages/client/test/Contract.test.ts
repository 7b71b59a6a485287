/**
 * The client's compiled snapshot of the HTTP contract (`src/internal/contract.ts`)
 * is the contract: the committed module is what `test/support/contract.ts`
 * renders from `@svc/protocol/Api` today (test/codegen.test.ts, the drift test
 * of `npm run codegen`), its operations are the contract's, and its body decoders
 * (`src/internal/decoder.ts`) decode as Effect's Schema does with the
 * contract's schemas: the same values accepted, the same output (unknown keys
 * dropped, declared ones in order), the same failure message. Compared on the
 * bodies a real server answers, on samples generated from the schemas, and on
 * mutations of both (a field removed, replaced by another JSON value, an
 * unknown key added, an array shortened).
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { SignedFeed } from "@svc/protocol/schema/Feed"
import { Arbitrary, Effect, Result, Schema } from "effect"
import { privateKeyToAccount } from "viem/accounts"
import { scaled } from "../../../test/support/time.ts"
import * as Feed from "../src/Feed.ts"
import { createClient } from "../src/index.ts"
import * as Contract from "../src/internal/contract.ts"
import { decoder, type Node, omit } from "../src/internal/decoder.ts"
import { bodySchema, CLIENT_OPERATIONS, endpoints } from "./support/contract.ts"
import { baseUrl, PAYER_KEY, serverLayer } from "./support/server.ts"

/** Test time-outs, stretched on a loaded machine (test/support/time.ts). */
const T120S = scaled(120_000)

describe("the contract snapshot", () => {
  it("lists every operation the client performs, with the contract's method, path, family and statuses", () => {
    const all = endpoints()
    assert.deepStrictEqual(Object.keys(Contract.operations), [...CLIENT_OPERATIONS])
    for (const spec of Object.values(Contract.operations)) {
      const e = all.get(spec.id)!
      assert.strictEqual(spec.group, e.group, spec.id)
      assert.strictEqual(spec.method, e.method, spec.id)
      assert.strictEqual(spec.path, e.path, spec.id)
      assert.strictEqual(spec.family, e.family, spec.id)
      assert.deepStrictEqual(spec.successes.map(([s]) => s), e.successes.map(([s]) => s), spec.id)
      assert.deepStrictEqual(spec.errors.map(([s]) => s), e.errors.map(([s]) => s), spec.id)
    }
  })
})

// ---------------------------------------------------------------------------
// Decoder parity
// ---------------------------------------------------------------------------

interface Declared {
  readonly where: string
  readonly schema: Schema.Top
  readonly node: Node
}

/** Every body the client decodes: the schema of the contract and the node of the snapshot. */
const declared = (): Array<Declared> => {
  const all = endpoints()
  const out: Array<Declared> = []
  for (const spec of Object.values(Contract.operations) as ReadonlyArray<Contract.OperationSpec>) {
    const e = all.get(spec.id)!
    for (
      const [kind, list, nodes] of [
        ["success", e.successes, spec.successes],
        ["error", e.errors, spec.errors]
      ] as const
    ) {
      for (const [status, schemas] of list) {
        const node = nodes.find(([s]) => s === status)![1]
        if (node === null) continue
        out.push({ where: `${spec.id} ${kind} ${status}`, schema: bodySchema(schemas), node })
      }
    }
  }
  return out
}

type Outcome = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly message: string }

const viaSchema = (schema: Schema.Top, input: unknown): Outcome => {
  const result = Schema.decodeUnknownResult(schema as Schema.Decoder<unknown>)(input, { errors: "first" })
  return Result.isSuccess(result)
    ? { ok: true, value: JSON.stringify(result.success) }
    : { ok: false, message: String(result.failure.message) }
}

const viaDecoder = (node: Node, input: unknown): Outcome => {
  const result = decoder(node)(input)
  return Result.isSuccess(result)
    ? { ok: true, value: JSON.stringify(result.success) }
    : { ok: false, message: result.failure }
}

const REPLACEMENTS: ReadonlyArray<unknown> = [null, 0, 7, 1.5, -1, "", "x", "0x", "0", true, [], {}, ["x"], { a: 1 }]

const clone = (u: unknown): any => JSON.parse(JSON.stringify(u))

/**
 * Variants of a JSON value, each with one change somewhere (at most `limit`, a
 * spread of them when there are more). The changes are listed first and only the
 * chosen ones are made: each is a copy of the whole value, and a 30 KB feed has
 * tens of thousands of possible changes.
 */
const mutations = (value: unknown, limit: number): Array<unknown> => {
  const out: Array<() => unknown> = []
  const visit = (node: unknown, path: ReadonlyArray<string | number>) => {
    const at = (change: (parent: any, key: string | number) => void) => {
      if (path.length === 0) return
      out.push(() => {
        const copy = clone(value)
        let parent = copy
        for (const key of path.slice(0, -1)) parent = parent[key]
        change(parent, path[path.length - 1]!)
        return copy
      })
    }
    for (const replacement of REPLACEMENTS) {
      if (path.length === 0) out.push(() => clone(replacement))
      else at((parent, key) => parent[key] = clone(replacement))
    }
    if (path.length > 0 && !Array.isArray(node)) {
      at((parent, key) => {
        if (Array.isArray(parent)) parent.splice(Number(key), 1)
        else delete parent[key]
      })
    }
    const inside = (change: (target: any) => void) =>
      out.push(() => {
        const copy = clone(value)
        let target = copy
        for (const key of path) target = target[key]
        change(target)
        return copy
      })
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, [...path, i]))
      if (node.length > 0) inside((target) => target.pop())
    } else if (typeof node === "object" && node !== null) {
      inside((target) => (target.zzUnknown = { extra: true }))
      for (const key of Object.keys(node)) visit((node as Record<string, unknown>)[key], [...path, key])
    }
  }
  visit(value, [])
  // a spread of the variants when there are many
  if (out.length <= limit) return out.map((make) => make())
  const step = out.length / limit
  return Array.from({ length: limit }, (_, i) => out[Math.floor(i * step)]!())
}

/** Samples generated from a schema (empty when its filters defeat the generator). */
const generated = (schema: Schema.Top, count: number): Effect.Effect<ReadonlyArray<unknown>> =>
  Arbitrary.sampleEffect(Arbitrary.schema(schema as Schema.Codec<unknown>), { count }).pipe(
    Effect.map((samples) => samples.map((s) => clone(s))),
    Effect.catchCause(() => Effect.succeed([]))
  )

/** Where two texts first differ, with some context. */
const difference = (a: string, b: string): string => {
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  const from = Math.max(0, i - 120)
  return `at ${i}:\n  decoder: ...${a.slice(from, i + 80)}\n  schema:  ...${b.slice(from, i + 80)}`
}

const describeOutcome = (o: Outcome) => o.ok ? `ok ${o.value}` : `fails ${JSON.stringify(o.message)}`

const compare = (d: Declared, inputs: ReadonlyArray<unknown>): number => {
  for (const input of inputs) {
    const expected = describeOutcome(viaSchema(d.schema, input))
    const actual = describeOutcome(viaDecoder(d.node, input))
    if (actual !== expected) {
      assert.fail(`${d.where}: the decoder and the schema differ ${difference(actual, expected)}`)
    }
  }
  return inputs.length
}

/** Raw bodies a real server answers, by the operation and status they answer. */
const serverBodies = Effect.gen(function*() {
  const url = yield* baseUrl
  const bodies: Array<{ readonly method: string; readonly url: string; readonly status: number; body: unknown }> = []
  const recording = async (input: string, init?: RequestInit) => {
    const response = await globalThis.fetch(input, init)
    const text = await response.clone().text()
    if (text.length > 0 && !text.startsWith("<")) {
      bodies.push({ method: init?.method ?? "GET", url: input, status: response.status, body: JSON.parse(text) })
    }
    return response
  }
  const svc = createClient({ baseUrl: url, fetch: recording })
  const account = privateKeyToAccount(PAYER_KEY)
  yield* Effect.promise(async () => {
    const feed = await svc.feed()
    const route = feed.openRoutes[0]!
    await svc.route(route.routeId)
    const issued = await svc.permits.create({
      request: {
        quoteId: route.quoteId,
        requestedAmountInRaw: route.minimumFillInRaw,
        payer: account.address,
        recipient: account.address
      },
      signer: account
    })
    await svc.permits.get(issued.fillId)
    await svc.permits.serverMessage({
      quoteId: route.quoteId,
      requestedAmountInRaw: route.minimumFillInRaw,
      payer: account.address,
      recipient: account.address
    })
    await svc.aggregator.discover()
    await svc.aggregator.chains()
    await svc.aggregator.tokens()
    await svc.aggregator.health()
    await svc.permits.get(`0x${"ab".repeat(32)}`).catch(() => undefined)
  })
  return bodies
})

/** The declaration a recorded body answers (method and path of the contract, status). */
const declarationOf = (all: ReadonlyArray<Declared>, method: string, url: string, status: number) => {
  const path = new URL(url).pathname
  for (const spec of Object.values(Contract.operations) as ReadonlyArray<Contract.OperationSpec>) {
    const pattern = new RegExp(`^${spec.path.replace(/:[A-Za-z0-9_]+/g, "[^/]+")}$`)
    if (spec.method !== method || !pattern.test(path)) continue
    const found = all.find((d) =>
      d.where === `${spec.id} success ${status}` || d.where === `${spec.id} error ${status}`
    )
    if (found !== undefined) return found
  }
  return undefined
}

layer(serverLayer(), { excludeTestServices: true, timeout: T120S })("decoders decode as the schemas", (it) => {
  it.effect("on the bodies of a real server, and on their mutations", () =>
    Effect.gen(function*() {
      const all = declared()
      const bodies = yield* serverBodies
      const covered = new Set<string>()
      let compared = 0
      for (const b of bodies) {
        const d = declarationOf(all, b.method, b.url, b.status)
        if (d === undefined) continue
        covered.add(d.where)
        assert.isTrue(viaDecoder(d.node, b.body).ok, `${d.where} decodes the server's body`)
        compared += compare(d, [b.body, ...mutations(b.body, 600)])
      }
      for (
        const where of [
          "getSolverManifest success 200",
          "getSolverFeed success 200",
          "getRouteDetail success 200",
          "createExecutionPermit success 201",
          "getExecutionPermit success 200",
          "buildPermitRequestMessage success 200",
          "aggregator_manifest success 200",
          "aggregator_chains success 200",
          "aggregator_tokens success 200",
          "aggregator_health success 200",
          "getExecutionPermit error 404"
        ]
      ) assert.isTrue(covered.has(where), `no server body for ${where}`)
      assert.isAbove(compared, 1000)
    }))

  it.effect("on samples generated from every declared body schema, and on their mutations", () =>
    Effect.gen(function*() {
      let compared = 0
      for (const d of declared()) {
        const samples = yield* generated(d.schema, 3)
        for (const sample of samples) compared += compare(d, [sample, ...mutations(sample, 60)])
      }
      assert.isAbove(compared, 1000)
    }))

  it.effect("the feed envelope: the signed feed without its unsigned route views", () =>
    Effect.gen(function*() {
      const bodies = yield* serverBodies
      const feed = bodies.find((b) => new URL(b.url).pathname === "/api/v6/solver-feed" && b.status === 200)!
      const raw = (feed.body as { feed: Record<string, unknown> }).feed
      // as Feed.ts decoded it with Schema: a struct of SignedFeed's fields but the two views
      const { openRoutes: _o, routes: _r, ...fields } = SignedFeed.fields
      const envelope: Declared = {
        where: "feed envelope",
        schema: Schema.Struct(fields),
        node: omit(Contract.SignedFeed, ["openRoutes", "routes"])
      }
      assert.isAbove(compare(envelope, [raw, ...mutations(raw, 400)]), 100)
      const verified = Feed.verifyFeed(raw, {
        now: Math.floor(Date.now() / 1000),
        expectedSigner: String(raw.feedSigner)
      })
      assert.isTrue(Result.isSuccess(verified))
    }))
})
