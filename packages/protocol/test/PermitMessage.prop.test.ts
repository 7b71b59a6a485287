import { assert, describe } from "@effect/vitest"
import { fc, test as fcTest } from "@fast-check/vitest"
import { Result } from "effect"
import { getAddress } from "viem"
import { CanonicalJson, PermitMessage, Signature } from "../src/index.ts"
import {
  addressLower,
  bytes32,
  changeHexDigit,
  jsonObject,
  privateKey,
  prng,
  randomCase,
  shuffleKeysDeep
} from "./arbitraries.ts"

type Hex = `0x${string}`
type Input = PermitMessage.PermitRequestInput

// ---------------------------------------------------------------------------
// An intent (the canonical meaning of a request) and its spellings
// ---------------------------------------------------------------------------

type Side =
  | { readonly form: "address"; readonly address: Hex }
  | {
    readonly form: "account"
    readonly accountId: Hex
    readonly locator: { readonly native: string } | { readonly [k: string]: unknown }
    readonly native: boolean
  }

interface Intent {
  readonly quoteId: Hex
  readonly amount: bigint
  readonly standard: string
  readonly payer: Side
  readonly recipient: Side
  readonly idempotencyKey: string
}

const sideArb: fc.Arbitrary<Side> = fc.oneof(
  addressLower.map((address) => ({ form: "address" as const, address })),
  fc.tuple(bytes32, fc.string({ maxLength: 40 })).map(([accountId, s]) => ({
    form: "account" as const,
    accountId,
    locator: { native: s },
    native: true
  })),
  fc.tuple(bytes32, jsonObject).map(([accountId, locator]) => ({
    form: "account" as const,
    accountId,
    locator,
    native: false
  }))
)

const KEY_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-"
const STANDARD_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-"

const idempotencyKeyArb = fc.string({ unit: fc.constantFrom(...KEY_ALPHABET), minLength: 8, maxLength: 128 })
const standardArb = fc.oneof(
  fc.constantFrom("DIRECT", "ERC-7683"),
  fc
    .tuple(
      fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
      fc.string({ unit: fc.constantFrom(...STANDARD_ALPHABET), maxLength: 63 })
    )
    .map(([first, rest]) => `${first}${rest}`)
)

const intentArb: fc.Arbitrary<Intent> = fc.record({
  quoteId: bytes32,
  amount: fc.oneof(fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }), fc.bigInt({ min: 1n, max: 1_000_000n })),
  standard: standardArb,
  payer: sideArb,
  recipient: sideArb,
  idempotencyKey: idempotencyKeyArb
})

/** The message of an intent, written out from docs/protocol.md, Permit request message (Lines). */
const expectedMessage = (intent: Intent): string => {
  const side = (name: string, s: Side) =>
    s.form === "address"
      ? [`${name}=${s.address.toLowerCase()}`]
      : [`${name}AccountId=${s.accountId.toLowerCase()}`, `${name}Locator=${CanonicalJson.stringify(s.locator)}`]
  return [
    "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1",
    `quoteId=${intent.quoteId.toLowerCase()}`,
    `requestedAmountInRaw=${intent.amount.toString()}`,
    `standard=${intent.standard.toUpperCase()}`,
    ...side("payer", intent.payer),
    ...side("recipient", intent.recipient),
    `idempotencyKey=${intent.idempotencyKey}`
  ].join("\n")
}

const WHITESPACE = [" ", "\t", "\n", "\r", "\u00a0", "\u2028", "\ufeff", "\u3000"]

/** One of the many spellings of an intent that must give the same message. */
const spell = (intent: Intent, seed: number): Input => {
  const random = prng(seed)
  const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
  const pad = () => Array.from({ length: Math.floor(random() * 3) }, () => pick(WHITESPACE)).join("")
  const out: Record<string, unknown> = {}
  const put = (key: string, value: unknown) => {
    if (value === undefined && random() < 0.5) return // absent rather than undefined
    out[key] = value
  }
  const spellAddress = (a: Hex) => pick([a.toLowerCase(), `0x${a.slice(2).toUpperCase()}`, getAddress(a)])
  const spellSide = (name: "payer" | "recipient", s: Side) => {
    const unused = () => pick([undefined, null])
    if (s.form === "address") {
      put(name, spellAddress(s.address))
      put(`${name}AccountId`, unused())
      put(`${name}Locator`, unused())
    } else {
      put(name, unused())
      put(`${name}AccountId`, randomCase(s.accountId, random))
      const locator = s.native && random() < 0.5
        ? (s.locator as { native: string }).native
        : shuffleKeysDeep(s.locator, random)
      put(`${name}Locator`, locator)
    }
  }
  put("quoteId", randomCase(intent.quoteId, random))
  const amount = intent.amount
  put(
    "requestedAmountInRaw",
    pick<unknown>([
      amount.toString(),
      amount,
      amount <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(amount) : amount.toString()
    ])
  )
  const standardSpellings: Array<unknown> = [
    intent.standard,
    intent.standard.toLowerCase(),
    randomCase(`0x${intent.standard}`, random).slice(2)
  ]
  if (intent.standard === "DIRECT") standardSpellings.push(undefined, null, "Direct")
  put("standard", pick(standardSpellings))
  // identity fields in a random order
  if (random() < 0.5) {
    spellSide("payer", intent.payer)
    spellSide("recipient", intent.recipient)
  } else {
    spellSide("recipient", intent.recipient)
    spellSide("payer", intent.payer)
  }
  put("idempotencyKey", `${pad()}${intent.idempotencyKey}${pad()}`)
  if (random() < 0.3) put("requestSignature", pick([null, "0x1234", `0x${"ab".repeat(65)}`]))
  // and the whole object in a random key order
  return shuffleKeysDeep(out, random) as Input
}

const RUNS = { numRuns: 200 }

describe("PermitMessage: stable under every allowed input variation", () => {
  fcTest.prop([intentArb, fc.integer(), fc.integer()], RUNS)(
    "every spelling gives the message written out from the rules, and the same normalised request",
    (intent, s1, s2) => {
      const a = spell(intent, s1)
      const b = spell(intent, s2)
      const expected = expectedMessage(intent)
      assert.strictEqual(PermitMessage.build(a), expected)
      assert.strictEqual(PermitMessage.build(b), expected)
      assert.deepStrictEqual(PermitMessage.normalize(a), PermitMessage.normalize(b))
      assert.strictEqual(
        PermitMessage.fingerprint(PermitMessage.normalize(a)),
        PermitMessage.fingerprint(PermitMessage.normalize(b))
      )
    }
  )

  fcTest.prop([intentArb, fc.integer()], RUNS)(
    "line count: 7, plus one per account side; no trailing LF",
    (intent, seed) => {
      const message = PermitMessage.build(spell(intent, seed))
      const accountSides = [intent.payer, intent.recipient].filter((s) => s.form === "account").length
      assert.lengthOf(message.split("\n"), 7 + accountSides)
      assert.isFalse(message.endsWith("\n"))
      assert.strictEqual(message.split("\n")[0], PermitMessage.PERMIT_REQUEST_DOMAIN)
    }
  )

  fcTest.prop([intentArb, fc.integer()], RUNS)(
    "the normalised request has EIP-55 addresses and explicit nulls",
    (intent, seed) => {
      const normalized = PermitMessage.normalize(spell(intent, seed))
      for (const name of ["payer", "recipient"] as const) {
        const side = intent[name]
        if (side.form === "address") {
          assert.strictEqual(normalized[name], getAddress(side.address))
          assert.isNull(normalized[`${name}AccountId`])
          assert.isNull(normalized[`${name}Locator`])
        } else {
          assert.isNull(normalized[name])
          assert.strictEqual(normalized[`${name}AccountId`], side.accountId)
          assert.strictEqual(
            CanonicalJson.stringify(normalized[`${name}Locator`]),
            CanonicalJson.stringify(side.locator)
          )
        }
      }
      assert.strictEqual(normalized.idempotencyKey, intent.idempotencyKey)
      assert.strictEqual(normalized.standard, intent.standard.toUpperCase())
    }
  )
})

// ---------------------------------------------------------------------------
// Different intents differ
// ---------------------------------------------------------------------------

type Change = "quoteId" | "amount" | "standard" | "payer" | "recipient" | "idempotencyKey" | "locator" | "accountId"

const changeIntent = (intent: Intent, change: Change, n: number): Intent | undefined => {
  const changeSide = (s: Side): Side =>
    s.form === "address"
      ? { ...s, address: changeHexDigit(s.address, n % 40, n) as Hex }
      : { ...s, accountId: changeHexDigit(s.accountId, n % 64, n) as Hex }
  switch (change) {
    case "quoteId":
      return { ...intent, quoteId: changeHexDigit(intent.quoteId, n % 64, n) as Hex }
    case "amount":
      return { ...intent, amount: intent.amount === 1n ? 2n : intent.amount - 1n }
    case "standard":
      return { ...intent, standard: intent.standard === "DIRECT" ? "ERC-7683" : "DIRECT" }
    case "payer":
      return { ...intent, payer: changeSide(intent.payer) }
    case "recipient":
      return { ...intent, recipient: changeSide(intent.recipient) }
    case "idempotencyKey": {
      const k = intent.idempotencyKey
      return { ...intent, idempotencyKey: `${k.slice(0, -1)}${k.endsWith("a") ? "b" : "a"}` }
    }
    case "locator": {
      const s = intent.payer
      if (s.form !== "account") return undefined
      return { ...intent, payer: { ...s, locator: { ...s.locator, "svc:changed": n }, native: false } }
    }
    case "accountId": {
      const s = intent.recipient
      if (s.form !== "account") return undefined
      return { ...intent, recipient: { ...s, accountId: changeHexDigit(s.accountId, n % 64, n) as Hex } }
    }
  }
}

describe("PermitMessage: different intents", () => {
  fcTest.prop(
    [
      intentArb,
      fc.constantFrom<Change>(
        "quoteId",
        "amount",
        "standard",
        "payer",
        "recipient",
        "idempotencyKey",
        "locator",
        "accountId"
      ),
      fc.nat(),
      fc.integer()
    ],
    RUNS
  )("changing any one field changes the message and the fingerprint", (intent, change, n, seed) => {
    const changed = changeIntent(intent, change, n)
    fc.pre(changed !== undefined)
    const a = PermitMessage.normalize(spell(intent, seed))
    const b = PermitMessage.normalize(spell(changed!, seed))
    assert.notStrictEqual(PermitMessage.message(a), PermitMessage.message(b))
    assert.notStrictEqual(PermitMessage.fingerprint(a), PermitMessage.fingerprint(b))
  })

  fcTest.prop([intentArb, privateKey], { numRuns: 30 })(
    "sign / recoverSigner round trip; the high-s twin is refused",
    (intent, key) => {
      const message = PermitMessage.build(spell(intent, 1))
      const signature = PermitMessage.sign(message, key)
      assert.deepStrictEqual(PermitMessage.recoverSigner(message, signature), Result.succeed(Signature.addressOf(key)))
      const twin = PermitMessage.recoverSigner(message, Signature.highSTwin(signature))
      assert.isTrue(Result.isFailure(twin) && twin.failure.problem === "HIGH_S")
    }
  )
})

// ---------------------------------------------------------------------------
// Generated bad fields
// ---------------------------------------------------------------------------

const codeOf = (input: unknown, options?: PermitMessage.NormalizeOptions) => {
  const result = PermitMessage.normalizeResult(input as Input, options)
  return Result.isFailure(result) ? result.failure.code : "OK"
}

const evmIntent = intentArb.map((intent): Intent => ({
  ...intent,
  payer: intent.payer.form === "address"
    ? intent.payer
    : { form: "address", address: "0x1111111111111111111111111111111111111111" },
  recipient: intent.recipient.form === "address"
    ? intent.recipient
    : { form: "address", address: "0x2222222222222222222222222222222222222222" }
}))

/** A checksummed address with the case of one letter flipped, still mixed case: a wrong checksum. */
const badChecksum = fc.tuple(addressLower, fc.nat()).map(([a, n]) => {
  const checksummed = getAddress(a)
  const letters = [...checksummed].map((c, i) => (i > 1 && /[a-fA-F]/.test(c) ? i : -1)).filter((i) => i >= 0)
  if (letters.length < 2) return undefined
  const i = letters[n % letters.length]!
  const c = checksummed[i]!
  const flipped = `${checksummed.slice(0, i)}${c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()}${
    checksummed.slice(i + 1)
  }`
  const body = flipped.slice(2)
  return body === body.toLowerCase() || body === body.toUpperCase() ? undefined : flipped
})

describe("PermitMessage: generated bad fields", () => {
  fcTest.prop([evmIntent, fc.integer(), badChecksum, fc.constantFrom("payer", "recipient")], RUNS)(
    "a mixed-case address with a wrong checksum is refused, unless strict is false",
    (intent, seed, bad, side) => {
      fc.pre(bad !== undefined)
      const input = { ...spell(intent, seed), [side]: bad }
      assert.strictEqual(codeOf(input), `${side.toUpperCase()}_CHECKSUM_INVALID`)
      const lax = PermitMessage.normalize(input, { strict: false })
      assert.strictEqual(lax[side], getAddress(bad!.toLowerCase()))
      assert.include(PermitMessage.message(lax), `${side}=${bad!.toLowerCase()}`)
    }
  )

  fcTest.prop(
    [
      evmIntent,
      fc.oneof(
        fc.string({ unit: fc.constantFrom(...KEY_ALPHABET), maxLength: 7 }),
        fc.string({ unit: fc.constantFrom(...KEY_ALPHABET), minLength: 129, maxLength: 200 }),
        fc
          .tuple(idempotencyKeyArb, fc.nat(), fc.constantFrom("!", "/", " ", "é", "\u0000", "+", "#", "\n", "😀"))
          .map(([k, i, c]) => `${k.slice(0, 1 + (i % k.length))}${c}${k.slice(1 + (i % k.length))}`)
      )
    ],
    RUNS
  )("idempotency keys outside 8..128 of [a-zA-Z0-9._:-] are refused", (intent, key) => {
    fc.pre(!/^[a-zA-Z0-9._:-]{8,128}$/.test(key.trim()))
    assert.strictEqual(codeOf({ ...spell(intent, 0), idempotencyKey: key }), "IDEMPOTENCY_KEY_INVALID")
  })

  fcTest.prop([evmIntent, fc.bigInt({ min: 1n << 128n, max: (1n << 256n) - 1n })], RUNS)(
    "amounts of 2^128 and above are refused in strict mode only",
    (intent, amount) => {
      const input = { ...spell(intent, 0), requestedAmountInRaw: amount.toString() }
      assert.strictEqual(codeOf(input), "AMOUNT_TOO_LARGE")
      assert.strictEqual(codeOf(input, { strict: false }), "OK")
    }
  )
})
