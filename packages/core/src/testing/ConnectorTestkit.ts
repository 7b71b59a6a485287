/**
 * The conformance suite of network connectors: every connector (ours and
 * third-party ones) runs it against its layer, and so proves the invariants of
 * the connector contract (`@svc/core/Connector`, docs/connectors.md) with
 * property tests (fast-check) and fixed cases.
 *
 * ```ts
 * import { suite } from "@svc/core/testing/ConnectorTestkit"
 * import * as MyConnector from "../src/MyConnector.ts"
 *
 * suite("my-network", MyConnector.layer(), {
 *   networks: ["my-mainnet", "my-testnet"],
 *   account: myAccountArbitrary,
 *   asset: myAssetArbitrary,
 *   signer: mySignerArbitrary,
 *   skip: [{ reason: "assets are not supported yet", tests: ["assets: canonical asset locator is a fixed point"] }]
 * })
 * ```
 *
 * A case the connector does not support is skipped only with a stated reason
 * (`skip`); the reason is printed in the test name. Unknown test names in `skip`
 * and empty reasons fail the suite.
 *
 * Needs vitest, `@effect/vitest` and `fast-check` (optional peer dependencies of
 * `@svc/core`).
 *
 * @since 0.1.0
 */
import { assert, layer } from "@effect/vitest"
import type { Hex } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as Ids from "@svc/protocol/Ids"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import type { Locator } from "@svc/protocol/schema/Primitives"
import { Cause, Effect, Exit, type Layer, Result } from "effect"
import fc from "fast-check"
import { Connector, type ConnectorNetwork, networkIdOf, type OwnershipClaim, sameLocator } from "../Connector.ts"

/**
 * The tests of the suite, by name (use these names in `skip`).
 *
 * @category testing
 * @since 0.1.0
 */
export const TESTS = [
  "identity: family, vmType and capabilities",
  "networks: references are 32 bytes, deterministic and distinct per network",
  "networks: networkReference is total",
  "locators: parse is total (a typed error, never a defect)",
  "locators: the canonical form is a fixed point",
  "locators: parse of the native rendering gives the locator back",
  "locators: malformed input and locators of other families are refused",
  "locators: unknown keys never reach the canonical form",
  "accounts: accountId is deterministic and 32 bytes",
  "accounts: distinct locators have distinct account ids",
  "accounts: one locator has a different account id on every network of every family",
  "accounts: the EVM address binding",
  "assets: parseAsset is total; asset ids are deterministic and network-bound",
  "assets: the canonical asset locator is a fixed point",
  "proofs: a proof by the owner over the exact permit message verifies",
  "proofs: a tampered message is refused",
  "proofs: a proof by another key is refused",
  "proofs: malformed proofs are refused with a typed error",
  "proofs: a proof never verifies for a network or a locator of another family"
] as const

/**
 * A test name of the suite.
 *
 * @category testing
 * @since 0.1.0
 */
export type TestName = (typeof TESTS)[number]

/**
 * A key pair of the connector's family, for the proof tests.
 *
 * @category models
 * @since 0.1.0
 */
export interface TestSigner {
  /** The account as a user gives it (a native string or a locator object). */
  readonly account: unknown
  /** The ownership proof of the account over the exact UTF-8 bytes of `message`. */
  readonly sign: (message: string) => string | Promise<string>
}

/**
 * Options of the suite.
 *
 * @category models
 * @since 0.1.0
 */
export interface SuiteOptions {
  /** At least two distinct native network references of the family (chain ids, genesis hashes, ...). */
  readonly networks: readonly [string, string, ...Array<string>]
  /** Valid account inputs (native strings or locator objects). */
  readonly account: fc.Arbitrary<unknown>
  /** Valid asset inputs (what a catalog gives), valid on every network of `networks`. */
  readonly asset?: fc.Arbitrary<unknown> | undefined
  /** Key pairs that sign; required when the connector supports payers (unless the proof tests are skipped). */
  readonly signer?: fc.Arbitrary<TestSigner> | undefined
  /** Inputs the connector must refuse as locators, besides the suite's own corpus. */
  readonly invalidLocators?: ReadonlyArray<unknown> | undefined
  /** Proofs the connector must refuse, besides the generated ones. */
  readonly malformedProofs?: ReadonlyArray<string> | undefined
  /** Unsupported cases, each with the reason. */
  readonly skip?: ReadonlyArray<{ readonly reason: string; readonly tests: ReadonlyArray<TestName> }> | undefined
  /** Property runs per test (default 50; proof tests use a fifth, at least 10). */
  readonly numRuns?: number | undefined
  /** Timeout of the suite's layer and of each test, ms (default 30000). */
  readonly timeout?: number | undefined
}

// ---------------------------------------------------------------------------
// Corpora
// ---------------------------------------------------------------------------

const BYTES32 = /^0x[0-9a-f]{64}$/

/** Locators of known families, which every other family must refuse. */
const FOREIGN: Record<string, ReadonlyArray<unknown>> = {
  EVM: [
    "0x52908400098527886E0F7030069857D2E4169EE7",
    { native: "0x52908400098527886e0f7030069857d2e4169ee7" },
    { native: "0x0000000000000000000000000000000000000000" }
  ],
  SVM: [
    "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    { native: "11111111111111111111111111111111" },
    { native: "CwwCxuF7ZhZy6taTCouSCD8xQQHgwgq83DseJDBYgQ3f" }
  ]
}

/** Inputs no family accepts as an account locator. */
const MALFORMED: ReadonlyArray<unknown> = [
  null,
  undefined,
  0,
  1,
  -1,
  1.5,
  Number.NaN,
  true,
  false,
  "",
  " ",
  "\u0000",
  "🙂",
  [],
  ["0x52908400098527886e0f7030069857d2e4169ee7"],
  {},
  { native: null },
  { native: 1 },
  { native: "" },
  { native: [] },
  { native: {} },
  { native: "x".repeat(10_000) },
  Object.create(null) as unknown,
  new Date(0),
  () => "0x52908400098527886e0f7030069857d2e4169ee7"
]

/** Network references no family accepts. */
const MALFORMED_NETWORKS: ReadonlyArray<unknown> = ["", " ", "\u0000", "x".repeat(10_000), null, undefined, 1, {}, []]

/** vmTypes of other families, for cross-family checks. */
const OTHER_FAMILIES = ["EVM", "SVM", "SVCTESTKIT"]

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

type Verdict = "verified" | "refused" | "unavailable"

const verdict = async (connector: Connector, claim: OwnershipClaim): Promise<{ verdict: Verdict; detail: string }> => {
  const exit = await Effect.runPromiseExit(connector.verifyOwnership(claim))
  if (Exit.isSuccess(exit)) return { verdict: "verified", detail: "" }
  const error = Cause.findErrorOption(exit.cause)
  if (error._tag === "None") {
    throw new Error(`verifyOwnership died instead of failing with a typed error: ${Cause.pretty(exit.cause)}`)
  }
  const e = error.value
  if (e._tag === "ConnectorUnavailable") return { verdict: "unavailable", detail: `${e.code}: ${e.message}` }
  if (e._tag !== "ConnectorError" || typeof e.code !== "string" || !/^[A-Z][A-Z0-9_]*$/.test(e.code)) {
    throw new Error(
      `verifyOwnership failed with something other than a ConnectorError with a SCREAMING_SNAKE_CASE code: ${String(e)}`
    )
  }
  return { verdict: "refused", detail: `${e.code}: ${e.message}` }
}

/** Calls a pure contract function; a thrown exception is a broken totality invariant. */
const total = <A>(what: string, input: unknown, f: () => A): A => {
  try {
    return f()
  } catch (e) {
    throw new Error(
      `${what} threw for ${safeShow(input)} instead of returning a typed error: ${String((e as Error)?.message ?? e)}`,
      {
        cause: e
      }
    )
  }
}

const safeShow = (u: unknown): string => {
  try {
    const text = typeof u === "function" ? "<function>" : JSON.stringify(u) ?? String(u)
    return text.length > 200 ? `${text.slice(0, 200)}...` : text
  } catch {
    return Object.prototype.toString.call(u)
  }
}

const mustParse = (connector: Connector, input: unknown): Locator => {
  const parsed = total("parseLocator", input, () => connector.parseLocator(input))
  if (Result.isFailure(parsed)) {
    throw new Error(`the account arbitrary gave ${safeShow(input)}, refused: ${parsed.failure.message}`)
  }
  return parsed.success
}

const mustNetwork = (connector: Connector, native: string): ConnectorNetwork => {
  const id = total("networkReference", native, () => networkIdOf(connector, native))
  if (Result.isFailure(id)) throw new Error(`options.networks has ${native}, refused: ${id.failure.message}`)
  return { networkId: id.success, native }
}

const mustReference = (connector: Connector, locator: Locator): Hex => {
  const reference = total("accountReference", locator, () => connector.accountReference(locator))
  if (Result.isFailure(reference)) {
    throw new Error(`accountReference refused the canonical locator ${safeShow(locator)}: ${reference.failure.message}`)
  }
  return reference.success
}

/** A message that differs from `message` in its bytes. */
const tamperings = (message: string): ReadonlyArray<string> => {
  const out = new Set<string>([
    `${message} `,
    `${message}\n`,
    ` ${message}`,
    message.slice(0, -1),
    message.slice(1),
    message.toUpperCase(),
    message.replace(/=/, "= "),
    message.replace(/[0-9]/, (d) => String((Number(d) + 1) % 10))
  ])
  out.delete(message)
  return [...out]
}

/** A proof with one character replaced by another of its own alphabet with another value. */
const mutateProof = (proof: string, position: number, pick: number): string | undefined => {
  const start = proof.startsWith("0x") ? 2 : 0
  if (proof.length <= start) return undefined
  const i = start + (position % (proof.length - start))
  const c = proof[i]!
  const alphabet = [...new Set(proof.slice(start))].filter((x) => x.toLowerCase() !== c.toLowerCase())
  if (alphabet.length === 0) return undefined
  return `${proof.slice(0, i)}${alphabet[pick % alphabet.length]}${proof.slice(i + 1)}`
}

const permitMessage = (
  locator: Locator,
  accountId: Hex,
  quoteId: Hex,
  amount: bigint,
  key: string
): string =>
  PermitMessage.message(PermitMessage.normalize({
    quoteId,
    requestedAmountInRaw: amount,
    standard: "DIRECT",
    payerAccountId: accountId,
    payerLocator: locator,
    recipient: "0x2222222222222222222222222222222222222222",
    idempotencyKey: key
  }))

const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) =>
  `0x${[...b].map((x) => x.toString(16).padStart(2, "0")).join("")}` as Hex
)
const idempotencyKey = fc.string({
  unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-"),
  minLength: 8,
  maxLength: 40
})

// ---------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------

/**
 * One check of the suite: its name and what it runs against a connector (it
 * throws, or rejects, when the connector breaks the invariant).
 *
 * @category testing
 * @since 0.1.0
 */
export interface Check {
  readonly name: TestName
  readonly run: (connector: Connector) => Promise<void>
}

/**
 * The checks of the suite for the given options, without vitest registration
 * (the suite registers them; the testkit's own tests run them against broken
 * connectors to show that each one can fail).
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = (options: SuiteOptions): ReadonlyArray<Check> => {
  if (new Set(options.networks).size < 2) throw new Error("ConnectorTestkit: give two distinct networks")
  const runs = Math.max(1, options.numRuns ?? 50)
  const proofRuns = Math.max(10, Math.floor(runs / 5))
  const out: Array<Check> = []
  const test = (name: TestName, body: (connector: Connector) => Promise<void> | void) => {
    out.push({ name, run: async (connector) => body(connector) })
  }

  const signerOf = (connector: Connector): fc.Arbitrary<TestSigner> => {
    if (options.signer === undefined) {
      throw new Error(
        connector.capabilities.payer
          ? "the connector supports payers: give options.signer, or skip the proof tests with a reason"
          : "the connector does not support payers: skip the proof tests with that reason"
      )
    }
    return options.signer
  }

  test("identity: family, vmType and capabilities", (c) => {
    assert.match(c.family, /^[A-Z0-9]{2,16}$/, "family is the catalog's vm name")
    assert.strictEqual(c.vmType, Ids.vmType(c.family), "vmType = keccak256(utf8(family))")
    for (const k of ["payer", "recipient", "payout"] as const) assert.isBoolean(c.capabilities[k], `capabilities.${k}`)
    if (!c.capabilities.payout) {
      assert.isString(c.capabilities.payoutNote, "a connector that cannot pay out says why (capabilities.payoutNote)")
    }
    assert.isArray(c.proofSchemes)
    if (c.capabilities.payer) assert.isAbove(c.proofSchemes.length, 0, "a payer connector names its proof schemes")
  })

  test("networks: references are 32 bytes, deterministic and distinct per network", (c) => {
    const ids = options.networks.map((native) => {
      const a = mustNetwork(c, native)
      const b = mustNetwork(c, native)
      assert.strictEqual(a.networkId, b.networkId, "deterministic")
      const reference = c.networkReference(native)
      assert.isTrue(Result.isSuccess(reference) && BYTES32.test(reference.success), "a lowercase 0x + 64 hex reference")
      return a.networkId
    })
    assert.strictEqual(new Set(ids).size, ids.length, "distinct networks have distinct networkIds")
  })

  test("networks: networkReference is total", (c) => {
    for (const input of MALFORMED_NETWORKS) {
      const r = total("networkReference", input, () => c.networkReference(input as string))
      assert.isTrue(Result.isFailure(r), `refuses ${safeShow(input)}`)
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        const r = total("networkReference", s, () => c.networkReference(s))
        return Result.isFailure(r) || BYTES32.test(r.success)
      }),
      { numRuns: runs }
    )
  })

  test("locators: parse is total (a typed error, never a defect)", (c) => {
    const inputs = fc.oneof(
      fc.anything(),
      fc.string(),
      fc.record({ native: fc.string() }),
      fc.record({ native: fc.anything() }),
      fc.dictionary(fc.string(), fc.jsonValue())
    )
    fc.assert(
      fc.property(inputs, (input) => {
        const r = total("parseLocator", input, () => c.parseLocator(input))
        if (Result.isFailure(r)) {
          assert.strictEqual(r.failure._tag, "ConnectorError")
          assert.match(r.failure.code, /^[A-Z][A-Z0-9_]*$/)
          return true
        }
        // a success is a plain JSON object that survives canonical JSON
        CanonicalJson.stringify(r.success)
        return typeof r.success === "object" && r.success !== null && !Array.isArray(r.success)
      }),
      // every JSON kind (and undefined) is tried on every run, whatever the random draw
      {
        numRuns: runs * 4,
        examples: [[null], [undefined], [0], [-1.5], [true], [""], [[]], [{}], [{ native: null }], [{ native: 1 }]]
      }
    )
  })

  test("locators: the canonical form is a fixed point", (c) => {
    fc.assert(
      fc.property(options.account, (input) => {
        const locator = mustParse(c, input)
        const again = mustParse(c, locator)
        assert.strictEqual(
          CanonicalJson.stringify(again),
          CanonicalJson.stringify(locator),
          "parse(parse(x)) = parse(x)"
        )
        const copy = JSON.parse(JSON.stringify(locator)) as unknown
        assert.isTrue(sameLocator(mustParse(c, copy), locator), "a JSON copy parses to the same locator")
      }),
      { numRuns: runs }
    )
  })

  test("locators: parse of the native rendering gives the locator back", (c) => {
    fc.assert(
      fc.property(options.account, (input) => {
        const locator = mustParse(c, input)
        const native = total("renderLocator", locator, () => c.renderLocator(locator))
        assert.isString(native)
        assert.isTrue(sameLocator(mustParse(c, native), locator), `parse(render(L)) = L for ${native}`)
      }),
      { numRuns: runs }
    )
  })

  test("locators: malformed input and locators of other families are refused", (c) => {
    const foreign = Object.entries(FOREIGN).flatMap(([family, inputs]) => family === c.family ? [] : inputs)
    for (const input of [...MALFORMED, ...foreign, ...(options.invalidLocators ?? [])]) {
      const r = total("parseLocator", input, () => c.parseLocator(input))
      assert.isTrue(Result.isFailure(r), `refuses ${safeShow(input)}`)
    }
  })

  test("locators: unknown keys never reach the canonical form", (c) => {
    fc.assert(
      fc.property(
        options.account,
        fc.constantFrom("svcUnknownKey", "__proto__x", "nativeX"),
        fc.jsonValue(),
        (input, key, value) => {
          const locator = mustParse(c, input)
          if (key in locator) return true
          const r = total("parseLocator", input, () => c.parseLocator({ ...locator, [key]: value }))
          return Result.isFailure(r) || (!(key in r.success) && sameLocator(r.success, locator))
        }
      ),
      { numRuns: runs }
    )
  })

  test("accounts: accountId is deterministic and 32 bytes", (c) => {
    const network = mustNetwork(c, options.networks[0])
    fc.assert(
      fc.property(options.account, (input) => {
        const locator = mustParse(c, input)
        const reference = mustReference(c, locator)
        assert.match(reference, BYTES32, "accountReference is lowercase 0x + 64 hex")
        assert.strictEqual(mustReference(c, mustParse(c, input)), reference, "deterministic")
        assert.strictEqual(
          Ids.accountId(network.networkId, reference),
          Ids.accountId(network.networkId, mustReference(c, locator))
        )
      }),
      { numRuns: runs }
    )
  })

  test("accounts: distinct locators have distinct account ids", (c) => {
    const network = mustNetwork(c, options.networks[0])
    fc.assert(
      fc.property(fc.array(options.account, { minLength: 16, maxLength: 40 }), (inputs) => {
        const locators = new Set<string>()
        const ids = new Set<string>()
        for (const input of inputs) {
          const locator = mustParse(c, input)
          locators.add(CanonicalJson.stringify(locator))
          ids.add(Ids.accountId(network.networkId, mustReference(c, locator)))
        }
        assert.strictEqual(ids.size, locators.size, "as many account ids as distinct canonical locators")
      }),
      { numRuns: runs }
    )
  })

  test("accounts: one locator has a different account id on every network of every family", (c) => {
    const networks = options.networks.map((n) => mustNetwork(c, n))
    fc.assert(
      fc.property(options.account, (input) => {
        const reference = mustReference(c, mustParse(c, input))
        const ids = new Set<string>()
        for (const n of networks) ids.add(Ids.accountId(n.networkId, reference))
        // the same network reference under another family's vmType is another network
        const own = c.networkReference(options.networks[0])
        if (Result.isSuccess(own)) {
          for (const family of OTHER_FAMILIES) {
            if (family === c.family) continue
            ids.add(Ids.accountId(Ids.networkId(Ids.vmType(family), own.success), reference))
          }
        }
        const expected = networks.length + OTHER_FAMILIES.filter((f) => f !== c.family).length
        assert.strictEqual(ids.size, expected, "one account id per network")
      }),
      { numRuns: runs }
    )
  })

  test("accounts: the EVM address binding", (c) => {
    fc.assert(
      fc.property(options.account, (input) => {
        const locator = mustParse(c, input)
        const address = total("evmAddress", locator, () => c.evmAddress(locator))
        if (c.family !== "EVM") {
          assert.isNull(address, "families other than EVM have no EVM address binding")
        } else {
          assert.match(String(address), /^0x[0-9a-fA-F]{40}$/)
          assert.isTrue(sameLocator(mustParse(c, address), locator), "the address parses back to the locator")
        }
      }),
      { numRuns: runs }
    )
  })

  test("assets: parseAsset is total; asset ids are deterministic and network-bound", (c) => {
    if (options.asset === undefined) throw new Error("give options.asset, or skip the asset tests with a reason")
    const networks = options.networks.map((n) => mustNetwork(c, n))
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const r = total("parseAsset", input, () => c.parseAsset(input, networks[0]!))
        return Result.isFailure(r) || BYTES32.test(r.success.reference)
      }),
      { numRuns: runs }
    )
    fc.assert(
      fc.property(options.asset, (input) => {
        const ids = networks.map((n) => {
          const a = total("parseAsset", input, () => c.parseAsset(input, n))
          if (Result.isFailure(a)) {
            throw new Error(`the asset arbitrary gave ${safeShow(input)}, refused: ${a.failure.message}`)
          }
          const b = c.parseAsset(input, n)
          assert.isTrue(Result.isSuccess(b) && b.success.reference === a.success.reference, "deterministic")
          assert.match(a.success.reference, BYTES32)
          if (c.family !== "EVM") assert.isNull(a.success.address, "no EVM address binding outside EVM")
          return Ids.assetId(n.networkId, a.success.reference)
        })
        assert.strictEqual(new Set(ids).size, ids.length, "one asset id per network")
      }),
      { numRuns: runs }
    )
  })

  test("assets: the canonical asset locator is a fixed point", (c) => {
    if (options.asset === undefined) throw new Error("give options.asset, or skip the asset tests with a reason")
    const network = mustNetwork(c, options.networks[0])
    fc.assert(
      fc.property(options.asset, (input) => {
        const a = c.parseAsset(input, network)
        if (Result.isFailure(a)) {
          throw new Error(`the asset arbitrary gave ${safeShow(input)}, refused: ${a.failure.message}`)
        }
        const again = total("parseAsset", a.success.locator, () => c.parseAsset(a.success.locator, network))
        assert.isTrue(Result.isSuccess(again), "the canonical asset locator parses")
        if (Result.isSuccess(again)) {
          assert.strictEqual(again.success.reference, a.success.reference)
          assert.isTrue(sameLocator(again.success.locator, a.success.locator))
        }
      }),
      { numRuns: runs }
    )
  })

  test("proofs: a proof by the owner over the exact permit message verifies", async (c) => {
    const network = mustNetwork(c, options.networks[0])
    await fc.assert(
      fc.asyncProperty(
        signerOf(c),
        hex32,
        fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }),
        idempotencyKey,
        fc.string({ maxLength: 64, unit: "grapheme" }),
        async (signer, quoteId, amount, key, free) => {
          const locator = mustParse(c, signer.account)
          const accountId = Ids.accountId(network.networkId, mustReference(c, locator))
          const message = permitMessage(locator, accountId, quoteId, amount, key)
          assert.include(
            message,
            `payerLocator=${CanonicalJson.stringify(locator)}`,
            "the message carries the canonical locator"
          )
          for (const m of [message, free]) {
            const result = await verdict(c, { network, locator, message: m, proof: await signer.sign(m) })
            assert.strictEqual(result.verdict, "verified", result.detail)
          }
        }
      ),
      { numRuns: proofRuns }
    )
  })

  test("proofs: a tampered message is refused", async (c) => {
    const network = mustNetwork(c, options.networks[0])
    await fc.assert(
      fc.asyncProperty(signerOf(c), hex32, idempotencyKey, async (signer, quoteId, key) => {
        const locator = mustParse(c, signer.account)
        const accountId = Ids.accountId(network.networkId, mustReference(c, locator))
        const message = permitMessage(locator, accountId, quoteId, 1_000_000n, key)
        const proof = await signer.sign(message)
        for (const tampered of tamperings(message)) {
          const result = await verdict(c, { network, locator, message: tampered, proof })
          assert.strictEqual(
            result.verdict,
            "refused",
            `a proof over the message verified for ${JSON.stringify(tampered)}`
          )
        }
      }),
      { numRuns: proofRuns }
    )
  })

  test("proofs: a proof by another key is refused", async (c) => {
    const network = mustNetwork(c, options.networks[0])
    await fc.assert(
      fc.asyncProperty(signerOf(c), signerOf(c), fc.string({ minLength: 1, maxLength: 64 }), async (a, b, message) => {
        const owner = mustParse(c, a.account)
        const other = mustParse(c, b.account)
        fc.pre(!sameLocator(owner, other))
        const result = await verdict(c, { network, locator: owner, message, proof: await b.sign(message) })
        assert.strictEqual(result.verdict, "refused", "a proof by another key verified")
      }),
      { numRuns: proofRuns }
    )
  })

  test("proofs: malformed proofs are refused with a typed error", async (c) => {
    const network = mustNetwork(c, options.networks[0])
    const fixed = [
      "",
      " ",
      "0x",
      "0x00",
      "0X",
      "null",
      "\u0000",
      "🙂".repeat(40),
      "0x" + "0".repeat(130),
      "1".repeat(88),
      ...(options.malformedProofs ?? [])
    ]
    await fc.assert(
      fc.asyncProperty(
        signerOf(c),
        fc.string({ maxLength: 200 }),
        fc.nat(),
        fc.nat(),
        fc.constantFrom(...fixed),
        async (signer, random, position, pick, known) => {
          const locator = mustParse(c, signer.account)
          const message = "svc connector testkit: malformed proofs"
          const valid = await signer.sign(message)
          const candidates = [
            known,
            random,
            valid.slice(0, -1),
            valid.slice(0, -2),
            `${valid}00`,
            `${valid}1`,
            ` ${valid}`,
            `${valid}\n`,
            mutateProof(valid, position, pick)
          ].filter((p): p is string => p !== undefined && p !== valid)
          for (const proof of candidates) {
            const result = await verdict(c, { network, locator, message, proof })
            assert.strictEqual(
              result.verdict,
              "refused",
              `the proof ${JSON.stringify(proof)} was not refused (${result.detail})`
            )
          }
        }
      ),
      { numRuns: proofRuns }
    )
  })

  test("proofs: a proof never verifies for a network or a locator of another family", async (c) => {
    const network = mustNetwork(c, options.networks[0])
    const reference = c.networkReference(options.networks[0])
    const foreignNetworks: Array<ConnectorNetwork> = OTHER_FAMILIES.filter((f) =>
      f !== c.family && Result.isSuccess(reference)
    ).map((f) => ({
      networkId: Ids.networkId(Ids.vmType(f), (reference as Result.Success<Hex, never>).success),
      native: options.networks[0]
    }))
    const foreignLocators = Object.entries(FOREIGN).flatMap(([family, inputs]) =>
      family === c.family ? [] : inputs.filter((i): i is Locator => typeof i === "object" && i !== null)
    )
    await fc.assert(
      fc.asyncProperty(signerOf(c), hex32, fc.string({ maxLength: 64 }), async (signer, randomNetworkId, message) => {
        const locator = mustParse(c, signer.account)
        const proof = await signer.sign(message)
        // sanity: the proof is good for its own network
        assert.strictEqual((await verdict(c, { network, locator, message, proof })).verdict, "verified")
        for (const other of [...foreignNetworks, { networkId: randomNetworkId, native: options.networks[0] }]) {
          const result = await verdict(c, { network: other, locator, message, proof })
          assert.strictEqual(result.verdict, "refused", `verified for the network ${other.networkId} of another family`)
        }
        for (const other of foreignLocators) {
          const result = await verdict(c, { network, locator: other, message, proof })
          assert.strictEqual(result.verdict, "refused", `verified for the foreign locator ${safeShow(other)}`)
        }
      }),
      { numRuns: proofRuns }
    )
  })
  return out
}

/**
 * Registers the conformance suite of a connector layer: the layer is built once
 * for the suite and every check runs against the {@link Connector} it provides.
 *
 * @category testing
 * @since 0.1.0
 */
export const suite = <E>(name: string, connectorLayer: Layer.Layer<Connector, E>, options: SuiteOptions): void => {
  const known = new Set<string>(TESTS)
  const skipped = new Map<string, string>()
  for (const s of options.skip ?? []) {
    if (typeof s.reason !== "string" || s.reason.trim().length === 0) {
      throw new Error(`ConnectorTestkit.suite(${name}): every skip needs a reason`)
    }
    for (const t of s.tests) {
      if (!known.has(t)) throw new Error(`ConnectorTestkit.suite(${name}): no test named ${JSON.stringify(t)}`)
      skipped.set(t, s.reason.trim())
    }
  }
  const list = checks(options)
  const timeout = options.timeout ?? 30_000
  layer(connectorLayer, { timeout })(`connector ${name} (ConnectorTestkit)`, (it) => {
    for (const check of list) {
      const reason = skipped.get(check.name)
      if (reason !== undefined) {
        it.effect.skip(`${check.name} [skipped: ${reason}]`, () => Effect.void)
        continue
      }
      it.effect(check.name, () =>
        Effect.gen(function*() {
          const connector = yield* Connector
          yield* Effect.promise(() => check.run(connector))
        }), timeout)
    }
  })
}
