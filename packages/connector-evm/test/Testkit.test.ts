import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option, Result } from "effect"
import fc from "fast-check"
import { getAddress } from "viem"
/**
 * The connector testkit of the core, run against deliberately broken variants of
 * the EVM connector: each defect must fail the checks that name it. And the core's
 * connector registry, with the EVM connector registered.
 */
import { Connector } from "@svc/core"
import { checks, suite, type SuiteOptions, type TestName } from "@svc/core/testing/ConnectorTestkit"
import * as Ids from "@svc/protocol/Ids"
import * as Signature from "@svc/protocol/Signature"
import * as EvmConnector from "../src/EvmConnector.ts"
import * as EvmLocator from "../src/EvmLocator.ts"
import { address, addressLower, privateKey } from "./utils.ts"

const evmLocator = (a: string) => Result.getOrThrow(EvmLocator.parse(a))

const evmOptions: SuiteOptions = {
  networks: ["8453", "56", "999"],
  account: fc.oneof(addressLower, address, addressLower.map(evmLocator)),
  asset: fc.oneof(addressLower, address),
  signer: privateKey.map((key) => ({
    account: Signature.addressOf(key),
    sign: (message: string) => Signature.signPersonalMessage(message, key)
  })),
  invalidLocators: ["0x52908400098527886E0F7030069857D2E4169Ee7", {
    native: "0x52908400098527886e0f7030069857d2e4169ee7",
    chainId: "1"
  }],
  malformedProofs: [
    Signature.highSTwin(
      Signature.signPersonalMessage("x", "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
    )
  ]
}

const evmEoaConnector: Connector.Connector = EvmConnector.make()

describe("ConnectorTestkit catches broken connectors", () => {
  const eoa = evmEoaConnector
  const run = (connector: Connector.Connector, name: TestName) =>
    checks({ ...evmOptions, numRuns: 20 }).find((c) => c.name === name)!.run(connector)
  const broken: ReadonlyArray<readonly [string, Connector.Connector, ReadonlyArray<TestName>]> = [
    ["a parser that throws", {
      ...eoa,
      parseLocator: (input) => {
        if (typeof input !== "string" && (typeof input !== "object" || input === null)) throw new Error("boom")
        return eoa.parseLocator(input)
      }
    }, ["locators: parse is total (a typed error, never a defect)"]],
    ["a parser that keeps the given case", {
      ...eoa,
      parseLocator: (input) =>
        Result.map(
          eoa.parseLocator(input),
          () => ({ native: typeof input === "string" ? input : String((input as { native: unknown }).native) })
        )
    }, [
      "locators: parse of the native rendering gives the locator back"
    ]],
    ["a parser that keeps unknown keys", {
      ...eoa,
      parseLocator: (input) =>
        typeof input === "object" && input !== null && "svcUnknownKey" in input
          ? Result.map(
            eoa.parseLocator({ native: (input as unknown as { native: unknown }).native }),
            (l) => ({ ...l, svcUnknownKey: 1 })
          )
          : eoa.parseLocator(input)
    }, ["locators: unknown keys never reach the canonical form"]],
    ["a parser that accepts Solana keys", {
      ...eoa,
      parseLocator: (input) =>
        typeof input === "string" && !input.startsWith("0x")
          ? Result.succeed({ native: input })
          : eoa.parseLocator(input)
    }, [
      "locators: malformed input and locators of other families are refused"
    ]],
    ["a colliding account reference", {
      ...eoa,
      accountReference: (l) =>
        Result.map(eoa.accountReference(l), (r) => `0x${"0".repeat(63)}${r.slice(-1)}` as `0x${string}`)
    }, [
      "accounts: distinct locators have distinct account ids"
    ]],
    ["one network reference for every chain", {
      ...eoa,
      networkReference: () => Result.succeed(`0x${"11".repeat(32)}` as const)
    }, [
      "networks: references are 32 bytes, deterministic and distinct per network"
    ]],
    ["a verifier that accepts everything", { ...eoa, verifyOwnership: () => Effect.void }, [
      "proofs: a tampered message is refused",
      "proofs: a proof by another key is refused",
      "proofs: malformed proofs are refused with a typed error",
      "proofs: a proof never verifies for a network or a locator of another family"
    ]],
    ["a verifier that dies on malformed proofs", {
      ...eoa,
      verifyOwnership: (claim) =>
        claim.proof.length === 132 ? eoa.verifyOwnership(claim) : Effect.die(new Error("boom"))
    }, [
      "proofs: malformed proofs are refused with a typed error"
    ]],
    ["a verifier that ignores the claimed network", {
      ...eoa,
      verifyOwnership: (claim) =>
        eoa.verifyOwnership({ ...claim, network: { networkId: Ids.evmNetworkId(8453), native: "8453" } })
    }, [
      "proofs: a proof never verifies for a network or a locator of another family"
    ]],
    ["a verifier that refuses valid proofs", {
      ...eoa,
      verifyOwnership: () => Effect.fail(new Connector.ConnectorError({ code: "NOPE", message: "no" }))
    }, [
      "proofs: a proof by the owner over the exact permit message verifies"
    ]],
    ["an EVM connector without address binding", { ...eoa, evmAddress: () => null }, [
      "accounts: the EVM address binding"
    ]],
    [
      "a payout-less connector with no note",
      { ...eoa, capabilities: { payer: true, recipient: true, payout: false } },
      [
        "identity: family, vmType and capabilities"
      ]
    ]
  ]
  for (const [what, connector, names] of broken) {
    for (const name of names) {
      it(`${what}: fails "${name}"`, async () => {
        let failed = false
        try {
          await run(connector, name)
        } catch {
          failed = true
        }
        assert.isTrue(failed, `the check passed for ${what}`)
      })
    }
  }

  it("refuses skips without a reason or with unknown names", () => {
    assert.throws(() =>
      suite("x", Connector.layer(eoa), {
        ...evmOptions,
        skip: [{ reason: " ", tests: ["networks: networkReference is total"] }]
      })
    )
    assert.throws(() =>
      suite("x", Connector.layer(eoa), { ...evmOptions, skip: [{ reason: "r", tests: ["no such test" as TestName] }] })
    )
  })
})

describe("Connector registry", () => {
  const other = Connector.make({
    ...evmEoaConnector,
    capabilities: { payer: false, recipient: true, payout: false, payoutNote: "test" }
  })
  const base = Ids.evmNetworkId(8453)

  it("finds a family's connector and lets a network registration win", () => {
    const registry = Connector.makeRegistry([evmEoaConnector, { connector: other, networkId: base }])
    assert.strictEqual(Option.getOrThrow(registry.get(Ids.EVM_VM_TYPE)), evmEoaConnector)
    assert.strictEqual(
      Option.getOrThrow(
        registry.forNetwork({ vmType: Ids.EVM_VM_TYPE, networkId: base.toUpperCase().replace("0X", "0x") })
      ),
      other
    )
    assert.strictEqual(
      Option.getOrThrow(registry.forNetwork({ vmType: Ids.EVM_VM_TYPE, networkId: Ids.evmNetworkId(56) })),
      evmEoaConnector
    )
    assert.isTrue(Option.isNone(registry.forNetwork({ vmType: Ids.SOLANA_VM_TYPE, networkId: Ids.solanaNetworkId() })))
    assert.strictEqual(registry.all.length, 2)
  })

  it.effect("registryFromLayers registers the Connector each layer provides", () =>
    Effect.gen(function*() {
      const registry = yield* Connector.ConnectorRegistry
      assert.strictEqual(Option.getOrThrow(registry.get(Ids.EVM_VM_TYPE)), evmEoaConnector)
    }).pipe(Effect.provide(Connector.registryFromLayers([Connector.layer(evmEoaConnector)]))))

  it("make refuses a family name that is not a catalog vm name", () => {
    assert.throws(() => Connector.make({ ...evmEoaConnector, family: "evm" }))
  })

  it.effect("make refuses a claim whose networkId is not its native reference's", () =>
    Effect.gen(function*() {
      const key = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
      const claim = {
        network: { networkId: Ids.evmNetworkId(56), native: "8453" },
        locator: evmLocator(Signature.addressOf(key)),
        message: "m",
        proof: Signature.signPersonalMessage("m", key)
      }
      const exit = yield* Effect.exit(evmEoaConnector.verifyOwnership(claim))
      assert.isTrue(Exit.isFailure(exit))
      const ok = yield* Effect.exit(
        evmEoaConnector.verifyOwnership({ ...claim, network: { networkId: base, native: "8453" } })
      )
      assert.isTrue(Exit.isSuccess(ok))
      const upper = yield* Effect.exit(evmEoaConnector.verifyOwnership({
        ...claim,
        network: { networkId: base, native: "8453" },
        locator: { native: getAddress(Signature.addressOf(key)) }
      }))
      assert.isTrue(Exit.isFailure(upper), "a non-canonical locator is refused")
    }))

  it("the EVM asset locator is {chainId, token} and its chainId must be the network's", () => {
    const network = { networkId: base, native: "8453" }
    const usdc = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
    const asset = Connector.assetOf(evmEoaConnector, usdc, network)
    assert.isTrue(Result.isSuccess(asset))
    if (Result.isSuccess(asset)) {
      assert.deepStrictEqual(asset.success.locator, { chainId: "8453", token: usdc.toLowerCase() })
      assert.strictEqual(asset.success.assetId, Ids.evmAssetId(base, usdc))
      assert.strictEqual(asset.success.address, usdc)
    }
    assert.isTrue(Result.isFailure(evmEoaConnector.parseAsset({ chainId: "56", token: usdc }, network)))
  })
})
