/**
 * Permit creation through the server with the registered connectors: an EOA
 * payer, an ERC-1271 smart-contract wallet payer (deployed on a local anvil
 * chain whose chain id is Base's, with SVC_RPC_URLS pointing the catalog's
 * `base` network at it) and a Solana recipient, each 201, and each one's
 * tampered variant: a documented 400, nothing persisted.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Anvil, layer as anvilLayer } from "@svc/connector-evm/testing/Anvil"
import { SolanaLocator, SolanaNetworks } from "@svc/connector-solana"
import { Publisher, Store } from "@svc/core"
import { Ids, PermitMessage, Signature } from "@svc/protocol"
import { Cause, ConfigProvider, Effect, Exit, Layer } from "effect"
import { getAddress, type Hex, keccak256, toBytes } from "viem"
import { scaled } from "../../../test/support/time.ts"
import * as Server from "../src/Server.ts"
import { baseUrl, demoCatalog, PAYER_KEY, serverLayer, testConfig } from "./support/server.ts"

/** Test time-outs, stretched on a loaded machine (test/support/time.ts). */
const T60S = scaled(60_000)

const payer = Signature.addressOf(PAYER_KEY)
const evmRecipient = "0x2222222222222222222222222222222222222222"
const OWNER_KEY = keccak256(toBytes("svc server test wallet owner"))
const OTHER_KEY = keccak256(toBytes("svc server test other key"))
const solanaKey = (label: string) => SolanaLocator.encodeKey(toBytes(keccak256(toBytes(label))))
const SOLANA_NETWORK = SolanaNetworks.networkId()

const post = (path: string, body: unknown) =>
  Effect.flatMap(baseUrl, (url) =>
    Effect.promise(async () => {
      const response = await fetch(`${url}${path}`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" }
      })
      return { status: response.status, body: await response.json() as any }
    }))

let counter = 0
const newKey = () => `svc-connectors-${Date.now()}-${counter++}`

const routeWhere = (predicate: (r: Publisher.Publication["routes"][number]) => boolean) =>
  Effect.map(Effect.flatMap(Publisher.Publisher, (p) => p.current), (p) => p.routes.find(predicate)!)

const signed = (request: Record<string, unknown>, key: Hex) => ({
  ...request,
  requestSignature: PermitMessage.sign(PermitMessage.build(request as unknown as PermitMessage.PermitRequestInput), key)
})

/** Asserts a refused request and that nothing was persisted for its key. */
const refused = (response: { status: number; body: any }, scope: string, key: string, code: string, reason: string) =>
  Effect.gen(function*() {
    assert.strictEqual(response.status, 400, JSON.stringify(response.body))
    assert.strictEqual(response.body.error, code)
    assert.include(response.body.reasonCodes, reason)
    const store = yield* Store.Store
    assert.isUndefined(yield* store.findByIdempotencyKey(scope, key), "nothing is persisted for a refused request")
  })

const CHAIN_ID = 8453

/** Settings of the connector plug-ins, as `svc serve` reads them from the environment or SVC_CONFIG. */
const settings = (values: Record<string, string>) => ConfigProvider.layer(ConfigProvider.fromUnknown(values))

const withAnvil = Layer.unwrap(
  Effect.map(
    Anvil,
    (anvil) =>
      serverLayer(testConfig()).pipe(Layer.provide(settings({ SVC_RPC_URLS: JSON.stringify({ base: anvil.url }) })))
  )
).pipe(Layer.provideMerge(anvilLayer({ chainId: CHAIN_ID })))

layer(withAnvil, { excludeTestServices: true, timeout: T60S })("permits through the connector registry", (it) => {
  it.effect("EOA payer: 201; a signature over a tampered message: 400, nothing persisted", () =>
    Effect.gen(function*() {
      const route = yield* routeWhere((r) => r.open && r.sourceChainId === "8453" && r.destinationChainId === "56")
      const key = newKey()
      const request = {
        quoteId: route.quoteId,
        requestedAmountInRaw: route.minimumFillInRaw,
        payer,
        recipient: evmRecipient,
        idempotencyKey: key
      }
      const tampered = {
        ...request,
        requestSignature: PermitMessage.sign(
          PermitMessage.build({ ...request, requestedAmountInRaw: `${route.minimumFillInRaw}0` }),
          PAYER_KEY
        )
      }
      yield* refused(
        yield* post("/api/v6/execution-permits", tampered),
        `address:${payer.toLowerCase()}`,
        key,
        "SIGNATURE_INVALID",
        "SIGNER_MISMATCH"
      )
      const created = yield* post("/api/v6/execution-permits", signed(request, PAYER_KEY))
      assert.strictEqual(created.status, 201)
      assert.strictEqual(created.body.permit.permit.payer, getAddress(payer))
      assert.strictEqual(created.body.permit.permit.payerAccountId, Ids.evmAccountId(route.sourceNetworkId, payer))
    }))

  it.effect("ERC-1271 wallet payer (deployed on anvil, verified over SVC_RPC_URLS): 201; another key's signature: 400", () =>
    Effect.gen(function*() {
      const anvil = yield* Anvil
      assert.strictEqual(yield* Effect.promise(() => anvil.client.getChainId()), CHAIN_ID)
      const wallet = getAddress(yield* Effect.promise(() => anvil.deployWallet(Signature.addressOf(OWNER_KEY) as Hex)))
      const route = yield* routeWhere((r) => r.open && r.sourceChainId === "8453" && r.destinationChainId === "56")
      const key = newKey()
      const request = {
        quoteId: route.quoteId,
        requestedAmountInRaw: route.minimumFillInRaw,
        payer: wallet,
        recipient: evmRecipient,
        idempotencyKey: key
      }
      yield* refused(
        yield* post("/api/v6/execution-permits", signed(request, OTHER_KEY)),
        `address:${wallet.toLowerCase()}`,
        key,
        "SIGNATURE_INVALID",
        "SIGNER_MISMATCH"
      )
      const created = yield* post("/api/v6/execution-permits", signed(request, OWNER_KEY))
      assert.strictEqual(created.status, 201, JSON.stringify(created.body))
      assert.strictEqual(created.body.permit.permit.payer, wallet)
      assert.strictEqual(created.body.permit.permit.payerAccountId, Ids.evmAccountId(route.sourceNetworkId, wallet))
    }))

  it.effect("a smart-account payer on a network without RPC URL gets a clear 400", () =>
    Effect.gen(function*() {
      const anvil = yield* Anvil
      const wallet = getAddress(yield* Effect.promise(() => anvil.deployWallet(Signature.addressOf(OWNER_KEY) as Hex)))
      const route = yield* routeWhere((r) => r.open && r.sourceChainId === "56")
      const key = newKey()
      const request = {
        quoteId: route.quoteId,
        requestedAmountInRaw: route.minimumFillInRaw,
        payer: wallet,
        recipient: evmRecipient,
        idempotencyKey: key
      }
      const response = yield* post("/api/v6/execution-permits", signed(request, OWNER_KEY))
      yield* refused(response, `address:${wallet.toLowerCase()}`, key, "SIGNATURE_INVALID", "SIGNER_MISMATCH")
      assert.include(response.body.diagnostics.detail, "a smart-contract account needs an RPC URL for chain 56")
    }))

  it.effect("Solana recipient (account + locator): 201 with zero EVM bindings; tampered identities: 400, nothing persisted", () =>
    Effect.gen(function*() {
      const route = yield* routeWhere((r) => r.destinationNetworkId === SOLANA_NETWORK)
      assert.isTrue(route.open, "open in the demo profile")
      assert.isNull(route.destinationChainId)
      assert.isNull(route.destinationAsset)
      assert.isNull(route.destinationVault)
      assert.deepStrictEqual(route.destinationLocator, { mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" })
      const recipient = solanaKey("svc server test solana recipient")
      const recipientAccountId = Ids.accountId(
        SOLANA_NETWORK,
        `0x${Buffer.from(SolanaLocator.decodeKey(recipient)!).toString("hex")}`
      )
      const base = {
        quoteId: route.quoteId,
        requestedAmountInRaw: route.minimumFillInRaw,
        payer,
        recipientAccountId,
        recipientLocator: { native: recipient }
      }
      const scope = `address:${payer.toLowerCase()}`
      const variants: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [
          { ...base, recipientAccountId: Ids.accountId(SOLANA_NETWORK, `0x${"11".repeat(32)}`) },
          "RECIPIENT_ACCOUNT_ID_MISMATCH"
        ],
        [{
          ...base,
          recipientAccountId: Ids.accountId(
            Ids.evmNetworkId(8453),
            `0x${Buffer.from(SolanaLocator.decodeKey(recipient)!).toString("hex")}`
          )
        }, "RECIPIENT_ACCOUNT_ID_MISMATCH"],
        [{ ...base, recipientLocator: { native: recipient, cluster: "mainnet-beta" } }, "RECIPIENT_LOCATOR_INVALID"],
        [{ ...base, recipientLocator: { native: `${recipient}1` } }, "RECIPIENT_LOCATOR_INVALID"],
        [
          { quoteId: base.quoteId, requestedAmountInRaw: base.requestedAmountInRaw, payer, recipient: evmRecipient },
          "RECIPIENT_WRONG_NETWORK"
        ]
      ]
      for (const [variant, reason] of variants) {
        const key = newKey()
        yield* refused(
          yield* post("/api/v6/execution-permits", signed({ ...variant, idempotencyKey: key }, PAYER_KEY)),
          scope,
          key,
          "IDENTITY_INVALID",
          reason
        )
      }
      const key = newKey()
      const created = yield* post("/api/v6/execution-permits", signed({ ...base, idempotencyKey: key }, PAYER_KEY))
      assert.strictEqual(created.status, 201, JSON.stringify(created.body))
      const permit = created.body.permit.permit
      assert.strictEqual(permit.recipientAccountId, recipientAccountId)
      assert.strictEqual(permit.destinationNetworkId, SOLANA_NETWORK)
      assert.strictEqual(permit.destinationChainId, "0")
      for (const field of ["recipient", "destinationAsset", "destinationVault"]) {
        assert.strictEqual(permit[field], "0x0000000000000000000000000000000000000000", field)
      }
      assert.deepStrictEqual(created.body.permit.execution.pricing.executionCapacity.payout, {
        supported: false,
        reasonCode: "PAYOUT_UNSUPPORTED",
        detail: "Solana payout is not implemented yet: permits can be issued, nothing pays them out"
      })
    }))
})

describe("connector configuration", () => {
  layer(serverLayer(testConfig({ profile: "production" })), { excludeTestServices: true, timeout: T60S })(
    "production profile",
    (it) => {
      it.effect("a route to a network that cannot be paid out publishes permitAvailable false: 410 with the reason", () =>
        Effect.gen(function*() {
          const route = yield* routeWhere((r) => r.destinationNetworkId === SOLANA_NETWORK)
          assert.isFalse(route.permitAvailable)
          assert.isFalse(route.open)
          const recipient = solanaKey("svc production recipient")
          const response = yield* post(
            "/api/v6/execution-permits",
            signed({
              quoteId: route.quoteId,
              requestedAmountInRaw: route.minimumFillInRaw,
              payer,
              recipientAccountId: Ids.accountId(
                SOLANA_NETWORK,
                `0x${Buffer.from(SolanaLocator.decodeKey(recipient)!).toString("hex")}`
              ),
              recipientLocator: { native: recipient },
              idempotencyKey: newKey()
            }, PAYER_KEY)
          )
          assert.strictEqual(response.status, 410)
          assert.strictEqual(response.body.error, "QUOTE_NOT_OPEN")
          assert.includeMembers(response.body.reasonCodes, ["PERMIT_UNAVAILABLE", "PAYOUT_UNSUPPORTED"])
        }))
    }
  )

  layer(Layer.empty)("SVC_RPC_URLS", (it) => {
    it.effect("refuses unknown network keys, non-EVM networks and non-http URLs at start", () =>
      Effect.gen(function*() {
        for (
          const [value, fragment] of [
            ["{\"nowhere\": \"http://127.0.0.1:8545\"}", "no network nowhere"],
            ["{\"solana\": \"http://127.0.0.1:8545\"}", "solana is not an EVM network"],
            ["{\"base\": \"ftp://127.0.0.1\"}", "base must be an http(s) URL"],
            ["{\"base\": [\"http://127.0.0.1:8545\", \"ftp://127.0.0.1\"]}", "base[1] must be an http(s) URL"],
            ["{\"base\": []}", "base has an empty list of URLs"],
            ["[1]", "must be a JSON object"]
          ] as const
        ) {
          const exit = yield* Effect.exit(
            Server.connectors(testConfig(), demoCatalog).pipe(Effect.provide(settings({ SVC_RPC_URLS: value })))
          )
          assert.isTrue(Exit.isFailure(exit), value)
          const message = Exit.isFailure(exit) ? String(Cause.squash(exit.cause)) : ""
          assert.include(message, `SVC_RPC_URLS: ${fragment}`)
          assert.notInclude(message, "127.0.0.1", "the URL is not shown")
        }
        const ok = yield* Server.connectors(testConfig(), demoCatalog).pipe(
          Effect.provide(settings({ SVC_RPC_URLS: "{\"base\": \"https://rpc.example\"}" }))
        )
        assert.deepStrictEqual(ok.map((c) => "family" in c ? c.family : c.connector.family), ["EVM", "SVM"])
        // several URLs for a network, failed over in order
        const several = yield* Server.connectors(testConfig(), demoCatalog).pipe(
          Effect.provide(settings({ SVC_RPC_URLS: "{\"base\": [\"https://a.example\", \"https://b.example\"]}" }))
        )
        assert.strictEqual(several.length, 2)
      }))
  })
})
