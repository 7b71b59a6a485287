/**
 * The client's compiled decoders refuse arrays longer than the schema allows,
 * as the protocol schemas do: a feed with more than 10 actionable routes or
 * any publication transaction hash, a status list of more than 20 fills,
 * fees with any external fee. Each limit is checked at the limit (accepted by
 * both) and one past it (refused by both, with the same message), on a real
 * server's feed and on values generated from the schemas.
 */
import { assert, layer } from "@effect/vitest"
import { AggregatorFees, AggregatorStatus, AggregatorStatusList } from "@svc/protocol/schema/Aggregator"
import { ActionableRoute, FeedResponse } from "@svc/protocol/schema/Feed"
import { Arbitrary, Effect, Result, Schema } from "effect"
import { scaled } from "../../../test/support/time.ts"
import * as Contract from "../src/internal/contract.ts"
import { decoder, type Node } from "../src/internal/decoder.ts"
import { baseUrl, serverLayer } from "./support/server.ts"

const sample = <S extends Schema.Top>(schema: S) =>
  Effect.map(
    Arbitrary.sampleEffect(Arbitrary.schema(schema as unknown as Schema.Codec<unknown>), { count: 1 }),
    (values) => JSON.parse(JSON.stringify(values[0], (_, v) => typeof v === "bigint" ? v.toString() : v)) as any
  )

/** The outcome of the schema and of the client's decoder on one value: both accept, or both refuse alike. */
const both = (schema: Schema.Top, node: Node, value: unknown) => {
  const viaSchema = Schema.decodeUnknownResult(schema as unknown as Schema.Codec<unknown>)(value)
  const viaDecoder = decoder(node)(value)
  assert.strictEqual(Result.isSuccess(viaDecoder), Result.isSuccess(viaSchema), "decoder and schema agree")
  if (Result.isFailure(viaDecoder) && Result.isFailure(viaSchema)) {
    assert.strictEqual(viaDecoder.failure, viaSchema.failure.message)
  }
  return Result.isSuccess(viaDecoder)
}

const withArray = <A>(value: A, path: ReadonlyArray<string>, items: ReadonlyArray<unknown>): A => {
  const copy = structuredClone(value) as any
  let target = copy
  for (const key of path.slice(0, -1)) target = target[key]
  target[path[path.length - 1]!] = items
  return copy
}

layer(serverLayer(), { excludeTestServices: true, timeout: scaled(60_000) })("decoders and array limits", (it) => {
  it.effect("the feed: at most 10 actionable routes, no publication transaction hash", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const feed: any = yield* Effect.promise(async () => (await fetch(`${url}/api/v6/solver-feed`)).json())
      // an entry of the shortlist for the feed's first open route (the demo publishes none by itself)
      const route = feed.feed.openRoutes[0]
      const actionable = {
        routeId: route.routeId,
        quoteId: route.quoteId,
        pricingReferenceId: route.pricingReferenceId,
        indicativeNotionalUsd: "1000.00",
        executableNotionalUsd: "1000.00",
        estimatedSourceGasUsd: "0.02",
        expectedEdgeAfterSourceGasBps: "12.5",
        economicsObservedAt: "2026-11-27T20:00:00.000Z",
        economicsValidUntil: "2026-11-27T20:01:00.000Z",
        pricingModelVersion: "svc-static-1"
      }
      assert.isTrue(Result.isSuccess(Schema.decodeUnknownResult(ActionableRoute)(actionable)))
      const path = ["feed", "actionableRoutes"]
      assert.isTrue(
        both(FeedResponse, Contract.FeedResponse, withArray(feed, path, Array.from({ length: 10 }, () => actionable)))
      )
      assert.isFalse(
        both(FeedResponse, Contract.FeedResponse, withArray(feed, path, Array.from({ length: 11 }, () => actionable)))
      )
      assert.isTrue(
        both(FeedResponse, Contract.FeedResponse, withArray(feed, ["feed", "publicationTransactionHashes"], []))
      )
      assert.isFalse(
        both(
          FeedResponse,
          Contract.FeedResponse,
          withArray(feed, ["feed", "publicationTransactionHashes"], [`0x${"ab".repeat(32)}`])
        )
      )
    }))

  it.effect("a status list: at most 20 fills; fees: no external fee", () =>
    Effect.gen(function*() {
      const fill = yield* sample(AggregatorStatus)
      const list = yield* sample(AggregatorStatusList)
      assert.isTrue(
        both(
          AggregatorStatusList,
          Contract.AggregatorStatusList,
          withArray(list, ["transactions"], Array.from({ length: 20 }, () => fill))
        )
      )
      assert.isFalse(
        both(
          AggregatorStatusList,
          Contract.AggregatorStatusList,
          withArray(list, ["transactions"], Array.from({ length: 21 }, () => fill))
        )
      )
      const fees = yield* sample(AggregatorFees)
      assert.isTrue(both(AggregatorFees, Contract.AggregatorFees, withArray(fees, ["external"], [])))
      assert.isFalse(both(AggregatorFees, Contract.AggregatorFees, withArray(fees, ["external"], [{ name: "x" }])))
    }))
})
