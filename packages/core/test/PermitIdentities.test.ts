/**
 * Identities of permit requests through the connector registry: the account
 * form of an EVM payer, canonical locators, account ids, networks without a
 * connector, a connector that cannot decide, and the profile of the catalog.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Ids from "@svc/protocol/Ids"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import type { PermitCreateRequest } from "@svc/protocol/schema/Permit"
import type { Locator } from "@svc/protocol/schema/Primitives"
import * as Signature from "@svc/protocol/Signature"
import { Effect, Exit, Result } from "effect"
import * as Catalog from "../src/Catalog.ts"
import * as Connector from "../src/Connector.ts"
import type { PermitError, PermitErrorReason } from "../src/PermitError.ts"
import { Permits } from "../src/Permits.ts"
import { Publisher } from "../src/Publisher.ts"
import { Store } from "../src/Store.ts"
import { demoCatalog, evm, makeEngine, PAYER_KEY } from "./support/engine.ts"

const payer = Signature.addressOf(PAYER_KEY)
const recipient = "0x2222222222222222222222222222222222222222"
const SOLANA = Ids.solanaNetworkId()

const route = (
  predicate: (
    r: { readonly open: boolean; readonly destinationNetworkId: string; readonly sourceChainId: string | null }
  ) => boolean
) =>
  Effect.gen(function*() {
    const publication = yield* (yield* Publisher).current
    return publication.routes.find(predicate)!
  })

const sign = (request: Record<string, unknown>): PermitCreateRequest =>
  ({
    ...request,
    requestSignature: PermitMessage.sign(PermitMessage.build(request as never), PAYER_KEY)
  }) as PermitCreateRequest

/** The typed reason of a failed permit operation. */
const failure = (exit: Exit.Exit<unknown, PermitError>): PermitErrorReason => {
  assert.isTrue(Exit.isFailure(exit))
  const reason = (exit as Exit.Failure<unknown, PermitError>).cause.reasons.find((r) => r._tag === "Fail")
  return (reason as { error: PermitError }).error.reason
}

describe("permit identities through the connector registry", () => {
  it.effect("an EVM payer in the account form: canonical locator and its account id", () =>
    Effect.gen(function*() {
      const permits = yield* Permits
      const r = yield* route((x) => x.open && x.sourceChainId === "8453")
      const source = r.sourceNetworkId
      const base = { quoteId: r.quoteId, requestedAmountInRaw: r.minimumFillInRaw, recipient }
      const accountId = Ids.evmAccountId(source, payer)
      const ok = yield* permits.create(
        sign({
          ...base,
          payerAccountId: accountId,
          payerLocator: { native: payer.toLowerCase() },
          idempotencyKey: "account-form-1"
        })
      )
      assert.isTrue(ok.created)
      assert.strictEqual(ok.envelope.permit.payerAccountId, accountId)
      assert.strictEqual(ok.envelope.permit.payer, payer)
      const checksummed = failure(
        yield* Effect.exit(permits.create(sign({
          ...base,
          payerAccountId: accountId,
          payerLocator: { native: payer },
          idempotencyKey: "account-form-2"
        })))
      )
      assert.strictEqual(checksummed._tag, "IdentityInvalid")
      assert.deepStrictEqual(checksummed.reasonCodes, ["PAYER_LOCATOR_NOT_CANONICAL"])
      assert.deepStrictEqual(checksummed._tag === "IdentityInvalid" && checksummed.canonicalLocator, {
        native: payer.toLowerCase()
      })
      const otherNetwork = failure(
        yield* Effect.exit(permits.create(sign({
          ...base,
          payerAccountId: Ids.evmAccountId(Ids.evmNetworkId(56), payer),
          payerLocator: { native: payer.toLowerCase() },
          idempotencyKey: "account-form-3"
        })))
      )
      assert.deepStrictEqual(otherNetwork.reasonCodes, ["PAYER_ACCOUNT_ID_MISMATCH"])
      const store = yield* Store
      for (const key of ["account-form-2", "account-form-3"]) {
        assert.isUndefined(yield* store.findByIdempotencyKey(`account:${accountId}`, key))
        assert.isUndefined(
          yield* store.findByIdempotencyKey(`account:${Ids.evmAccountId(Ids.evmNetworkId(56), payer)}`, key)
        )
      }
    }).pipe(Effect.provide(makeEngine().layer)))

  it.effect("without a connector for a network, its routes are not open: 410 with the reason", () =>
    Effect.gen(function*() {
      const permits = yield* Permits
      const solana = yield* route((x) => x.destinationNetworkId === SOLANA)
      assert.isFalse(solana.permitAvailable)
      const error = failure(
        yield* Effect.exit(permits.create(sign({
          quoteId: solana.quoteId,
          requestedAmountInRaw: solana.minimumFillInRaw,
          payer,
          recipientAccountId: `0x${"11".repeat(32)}`,
          recipientLocator: { native: "CwwCxuF7ZhZy6taTCouSCD8xQQHgwgq83DseJDBYgQ3f" },
          idempotencyKey: "no-connector-1"
        })))
      )
      assert.strictEqual(error._tag, "QuoteNotOpen")
      assert.includeMembers([...error.reasonCodes], ["PERMIT_UNAVAILABLE", "RECIPIENT_NO_CONNECTOR"])
      // an embedder handles the reason by its tag (docs/embedding.md, "Handling refusals")
      const handled = yield* permits.create(sign({
        quoteId: solana.quoteId,
        requestedAmountInRaw: solana.minimumFillInRaw,
        payer,
        recipientAccountId: `0x${"11".repeat(32)}`,
        recipientLocator: { native: "CwwCxuF7ZhZy6taTCouSCD8xQQHgwgq83DseJDBYgQ3f" },
        idempotencyKey: "no-connector-1b"
      })).pipe(
        Effect.map((created) => ({ issued: true as const, fillId: created.envelope.permit.fillId })),
        Effect.catchReason(
          "PermitError",
          "QuoteNotOpen",
          (reason) => Effect.succeed({ issued: false as const, refresh: true, codes: reason.reasonCodes })
        ),
        Effect.catchReason(
          "PermitError",
          "RateLimited",
          (reason) =>
            Effect.succeed({
              issued: false as const,
              refresh: false,
              codes: [`retry in ${reason.retryAfterSeconds} s`]
            })
        )
      )
      assert.deepStrictEqual(handled, { issued: false, refresh: true, codes: error.reasonCodes })
    }).pipe(Effect.provide(makeEngine().layer)))

  it.effect("an empty registry closes every route (payer and recipient without connector)", () =>
    Effect.gen(function*() {
      const publication = yield* (yield* Publisher).current
      assert.isTrue(publication.routes.every((r) => !r.permitAvailable && !r.open))
      const permits = yield* Permits
      const r = publication.routes[0]!
      const error = failure(
        yield* Effect.exit(permits.create(sign({
          quoteId: r.quoteId,
          requestedAmountInRaw: r.minimumFillInRaw,
          payer,
          recipient,
          idempotencyKey: "no-connector-2"
        })))
      )
      assert.includeMembers([...error.reasonCodes], ["PAYER_NO_CONNECTOR", "RECIPIENT_NO_CONNECTOR"])
    }).pipe(Effect.provide(makeEngine({ connectors: [] }).layer)))

  it.effect("a connector that cannot decide answers 503 with its code, nothing persisted", () =>
    Effect.gen(function*() {
      const permits = yield* Permits
      const r = yield* route((x) => x.open && x.sourceChainId === "8453")
      const error = failure(
        yield* Effect.exit(permits.create(sign({
          quoteId: r.quoteId,
          requestedAmountInRaw: r.minimumFillInRaw,
          payer,
          recipient,
          idempotencyKey: "unavailable-1"
        })))
      )
      assert.strictEqual(error._tag, "Unavailable")
      assert.deepStrictEqual(error.reasonCodes, ["RPC_UNAVAILABLE"])
      assert.strictEqual(error._tag === "Unavailable" && error.retryAfterSeconds, 5)
      assert.isUndefined(yield* (yield* Store).findByIdempotencyKey(`address:${payer.toLowerCase()}`, "unavailable-1"))
    }).pipe(Effect.provide(
      makeEngine({
        connectors: [{
          ...evm,
          verifyOwnership: () =>
            Effect.fail(new Connector.ConnectorUnavailable({ code: "RPC_UNAVAILABLE", message: "down" }))
        }]
      }).layer
    )))
})

describe("catalog profiles and connectors", () => {
  const solanaRoute = (c: Catalog.Catalog["Service"]) =>
    c.routes.find((r) => r.destination.network.networkId === SOLANA)!
  /** A stand-in SVM connector that accepts the demo catalog's Solana entries and cannot pay out. */
  const payoutless = Connector.make({
    family: "SVM",
    capabilities: { payer: false, recipient: true, payout: false, payoutNote: "no payout here" },
    proofSchemes: [],
    networkReference: (genesis) => Result.succeed(Ids.label(genesis)),
    parseLocator: (input) => Result.succeed(input as Locator),
    renderLocator: (locator) => String(locator.native),
    accountReference: () => Result.succeed("0xb183360b26dc26896cc66918ca2984559fe9df4531d541a7635f635ec36bbe9e"),
    parseAsset: (input) =>
      Result.succeed({
        locator: input as Locator,
        reference: "0xc6fa7af3bedbad3a3d65f36aabc97431b1bbe4c2d2f6e0e47ca60203452f5d61",
        address: null
      }),
    verifyOwnership: () =>
      Effect.fail(new Connector.ConnectorError({ code: "PAYER_NOT_SUPPORTED", message: "recipients only" }))
  })

  it("a destination that cannot pay out: permitAvailable false in production, true with a notice in demo and test", () => {
    const registry = Connector.makeRegistry([evm, payoutless])
    const production = Catalog.fromUnknown(demoCatalog, { registry, profile: "production" })
    assert.strictEqual(production._tag, "Success")
    if (production._tag !== "Success") return
    assert.isFalse(solanaRoute(production.success).permitAvailable)
    assert.isFalse(solanaRoute(production.success).payoutSupported)
    assert.strictEqual(solanaRoute(production.success).payoutNote, "no payout here")
    assert.deepStrictEqual(production.success.notices, [])
    for (const profile of ["demo", "test"] as const) {
      const c = Catalog.fromUnknown(demoCatalog, { registry, profile })
      assert.strictEqual(c._tag, "Success")
      if (c._tag !== "Success") continue
      assert.strictEqual(c.success.profile, profile)
      assert.isTrue(solanaRoute(c.success).permitAvailable)
      assert.strictEqual(c.success.notices.length, 1)
      assert.include(c.success.notices[0]!, "no payout here")
    }
    // the document's own profile applies when none is given
    const fromDocument = Catalog.fromUnknown(demoCatalog, { registry })
    assert.isTrue(fromDocument._tag === "Success" && fromDocument.success.profile === "demo")
  })

  it("explicit references must agree with the registered connector", () => {
    const registry = Connector.makeRegistry([evm, payoutless])
    const doc = JSON.parse(JSON.stringify(demoCatalog))
    doc.assets.find((a: { key: string }) => a.key === "usdc.solana").reference = `0x${"22".repeat(32)}`
    const refused = Catalog.fromUnknown(doc, { registry })
    assert.isTrue(refused._tag === "Failure" && refused.failure.message.includes("usdc.solana.reference"))
    // without a connector the explicit reference is the asset's
    const plain = Catalog.fromUnknown(doc, { registry: Connector.makeRegistry([]) })
    assert.isTrue(plain._tag === "Success")
  })
})
