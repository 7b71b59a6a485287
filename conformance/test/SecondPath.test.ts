/**
 * The second derivation (src/Independent.ts) is really used:
 *
 * - the checks compute each derived value both ways and fail when the two
 *   disagree: with the second path giving other values for the live server's
 *   feed and permits (and only for them, so that the self-check still passes),
 *   the checks that derive them fail, each naming the disagreement;
 * - the self-check compares the refusals of both sides by their codes: a
 *   second path that refuses a permit request for another reason than the
 *   harness stops the run.
 *
 * Each case runs in a fresh module graph with Independent.ts patched.
 */
import { afterEach, assert, describe, it, layer, vi } from "@effect/vitest"
import { Effect } from "effect"
import { scaled } from "../../test/support/time.ts"
import type * as IndependentModule from "../src/Independent.ts"
import type * as RegistryModule from "../src/Registry.ts"
import type * as SelfCheckModule from "../src/SelfCheck.ts"
import { Deployment, failed, layer as deployment, run, WALLET_KEY } from "./support/harness.ts"

type Independent = typeof IndependentModule

/** Imports a module of the harness in a fresh graph where Independent.ts is patched. */
const withPatched = async <A>(patch: (original: Independent) => Partial<Independent>, path: string): Promise<A> => {
  vi.resetModules()
  vi.doMock("../src/Independent.ts", async (importOriginal) => {
    const original = await importOriginal<Independent>()
    return { ...original, ...patch(original) }
  })
  return (await import(path)) as A
}

afterEach(() => {
  vi.doUnmock("../src/Independent.ts")
  vi.resetModules()
})

const flip = (hex: `0x${string}`): `0x${string}` => `0x${hex.slice(2, -1)}${hex.endsWith("0") ? "1" : "0"}`

describe("the self-check", () => {
  it("compares the codes of both sides' refusals", async () => {
    const fresh = await withPatched<typeof SelfCheckModule>((original) => ({
      permitRequestMessage: (request) => {
        try {
          return original.permitRequestMessage(request)
        } catch (e) {
          // refused, but for another reason than the harness's
          if (e instanceof original.IndependentError) {
            throw new original.IndependentError("SOMETHING_ELSE", e.field, e.reason)
          }
          throw e
        }
      }
    }), "../src/SelfCheck.ts")
    const result = fresh.run()
    assert.isFalse(result.ok)
    assert.include(result.problem ?? "", "permit request with")
    assert.include(result.problem ?? "", "SOMETHING_ELSE")
  })
})

layer(deployment, { excludeTestServices: true, timeout: scaled(120_000) })("the checks", (it) => {
  it.effect("fail when the second path disagrees with the shared library on the live server's values", () =>
    Effect.gen(function*() {
      yield* Deployment
      const wallet = (yield* Effect.promise(() => import("@svc/protocol"))).Signature.addressOf(WALLET_KEY)
        .toLowerCase()
      const registry = yield* Effect.promise(() =>
        withPatched<typeof RegistryModule>((original) => ({
          // another hash for the live feed's payload (the self-check's vectors are not the demo's)
          feedHash: (payload) => {
            const hash = original.feedHash(payload)
            const routes = (payload as { routes?: ReadonlyArray<unknown> }).routes
            return Array.isArray(routes) && routes.length >= 7 ? flip(hash) : hash
          },
          // another digest for the permits the run creates (their payer is its wallet)
          permitDigest: (permit) => {
            const digest = original.permitDigest(permit)
            return String((permit as { payer?: string }).payer).toLowerCase() === wallet ? flip(digest) : digest
          },
          // another message for the run's own permit requests
          permitRequestMessage: (request) => {
            const message = original.permitRequestMessage(request)
            return String((request as { payer?: string }).payer).toLowerCase() === wallet ? `${message} ` : message
          }
        }), "../src/Registry.ts")
      )
      const report = yield* run({ only: ["feed", "permits"] }, registry.all)
      const failing = failed(report)
      for (const name of ["feed_hash", "feed_signature", "permit_request_message_bytes", "permit_digest_signature"]) {
        assert.include(failing, name)
        const result = report.results.find((r) => r.name === name)!
        assert.isTrue(
          result.failures.some((f) => f.title.startsWith("the shared library and the second path disagree")),
          `${name}: ${result.failures.map((f) => f.title).join("; ")}`
        )
      }
    }))
})
