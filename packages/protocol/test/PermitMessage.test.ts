import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { getAddress } from "viem"
import { PermitMessage, Signature } from "../src/index.ts"
import { hex32, TEST_ADDRESS, TEST_KEY } from "./samples.ts"

type Input = PermitMessage.PermitRequestInput

const QUOTE = hex32(0x20)
const PAYER = TEST_ADDRESS
const RECIPIENT = "0x2222222222222222222222222222222222222222"
/** A checksummed address with letters of both cases (its EIP-55 form). */
const MIXED = getAddress("0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359")
/** The same address with the case of one letter flipped: a wrong checksum. */
const BAD_CHECKSUM = (() => {
  const i = [...MIXED].findIndex((c, j) => j > 1 && /[a-f]/i.test(c))
  const c = MIXED[i]!
  return `${MIXED.slice(0, i)}${c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()}${MIXED.slice(i + 1)}`
})()

const base: Input = {
  quoteId: QUOTE,
  requestedAmountInRaw: "2500000",
  standard: "ERC-7683",
  payer: PAYER,
  recipient: RECIPIENT,
  idempotencyKey: "sdk-vector-0001"
}

const accountPayer = { payer: undefined, payerAccountId: hex32(0xab), payerLocator: "So1anaPubKeyExample" }
const accountRecipient = {
  recipient: undefined,
  recipientAccountId: hex32(0xcd),
  recipientLocator: { z: 1, address: "T-addr", chain: "tron" }
}

const codeOf = (input: unknown, options?: PermitMessage.NormalizeOptions): string | undefined => {
  const result = PermitMessage.normalizeResult(input as Input, options)
  return Result.isFailure(result) ? result.failure.code : undefined
}

const expectCode = (input: unknown, code: string, field?: string) => {
  const result = PermitMessage.normalizeResult(input as Input)
  assert.isTrue(Result.isFailure(result), `expected ${code}, the request was accepted`)
  if (Result.isFailure(result)) {
    assert.strictEqual(result.failure.code, code)
    assert.strictEqual(result.failure._tag, "PermitRequestInvalid")
    if (field !== undefined) assert.strictEqual(result.failure.field, field)
  }
  // normalize and build throw the same error
  assert.throws(() => PermitMessage.build(input as Input), PermitMessage.PermitRequestInvalid)
}

describe("PermitMessage.message layout", () => {
  it("address form: 7 exact lines, no trailing LF", () => {
    const message = PermitMessage.build(base)
    assert.strictEqual(
      message,
      [
        "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1",
        `quoteId=${QUOTE}`,
        "requestedAmountInRaw=2500000",
        "standard=ERC-7683",
        `payer=${PAYER.toLowerCase()}`,
        `recipient=${RECIPIENT}`,
        "idempotencyKey=sdk-vector-0001"
      ].join("\n")
    )
    assert.lengthOf(message.split("\n"), 7)
    assert.isFalse(message.endsWith("\n"))
    assert.notInclude(message, "\r")
  })

  it("one account side: 8 lines, account id then locator in place of the address", () => {
    const payerSide = PermitMessage.build({ ...base, ...accountPayer }).split("\n")
    assert.lengthOf(payerSide, 8)
    assert.strictEqual(payerSide[4], `payerAccountId=${hex32(0xab)}`)
    assert.strictEqual(payerSide[5], "payerLocator={\"native\":\"So1anaPubKeyExample\"}")
    assert.strictEqual(payerSide[6], `recipient=${RECIPIENT}`)
    const recipientSide = PermitMessage.build({ ...base, ...accountRecipient }).split("\n")
    assert.lengthOf(recipientSide, 8)
    assert.strictEqual(recipientSide[4], `payer=${PAYER.toLowerCase()}`)
    assert.strictEqual(recipientSide[5], `recipientAccountId=${hex32(0xcd)}`)
    assert.strictEqual(recipientSide[6], "recipientLocator={\"address\":\"T-addr\",\"chain\":\"tron\",\"z\":1}")
    assert.strictEqual(recipientSide[7], "idempotencyKey=sdk-vector-0001")
  })

  it("two account sides: 9 lines", () => {
    const lines = PermitMessage.build({ ...base, ...accountPayer, ...accountRecipient }).split("\n")
    assert.lengthOf(lines, 9)
    assert.deepStrictEqual(
      lines.map((l) => l.split("=")[0]),
      [
        "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1",
        "quoteId",
        "requestedAmountInRaw",
        "standard",
        "payerAccountId",
        "payerLocator",
        "recipientAccountId",
        "recipientLocator",
        "idempotencyKey"
      ]
    )
  })

  it("the locator line is canonical JSON with raw non-ASCII text", () => {
    const lines = PermitMessage.build({
      ...base,
      payer: null,
      payerAccountId: hex32(0xab),
      payerLocator: { b: ["x", { d: 1, c: null }], a: "شبکه" }
    }).split("\n")
    assert.strictEqual(lines[5], "payerLocator={\"a\":\"شبکه\",\"b\":[\"x\",{\"c\":null,\"d\":1}]}")
  })

  it("message() writes hex in lowercase even for a hand-built request", () => {
    const upper = (h: string) => `0x${h.slice(2).toUpperCase()}`
    const request: PermitMessage.NormalizedPermitRequest = {
      quoteId: upper(hex32(0xab)) as `0x${string}`,
      requestedAmountInRaw: "5",
      standard: "DIRECT",
      payer: upper(PAYER) as `0x${string}`,
      recipient: null,
      payerAccountId: null,
      recipientAccountId: upper(hex32(0xcd)) as `0x${string}`,
      payerLocator: null,
      recipientLocator: { b: 1, a: 2 },
      idempotencyKey: "abcdefgh"
    }
    assert.deepStrictEqual(PermitMessage.message(request).split("\n").slice(1), [
      `quoteId=${hex32(0xab)}`,
      "requestedAmountInRaw=5",
      "standard=DIRECT",
      `payer=${PAYER.toLowerCase()}`,
      `recipientAccountId=${hex32(0xcd)}`,
      "recipientLocator={\"a\":2,\"b\":1}",
      "idempotencyKey=abcdefgh"
    ])
  })

  it("publishes the 7 line templates of the manifest", () => {
    assert.lengthOf(PermitMessage.MESSAGE_LINE_TEMPLATES, 7)
    assert.strictEqual(PermitMessage.MESSAGE_LINE_TEMPLATES[0], PermitMessage.PERMIT_REQUEST_DOMAIN)
    assert.strictEqual(PermitMessage.PERMIT_REQUEST_DOMAIN, "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1")
  })
})

describe("PermitMessage.normalize", () => {
  it("returns the upstream field order with nulls for the unused identity fields", () => {
    const normalized = PermitMessage.normalize({
      ...base,
      quoteId: QUOTE.toUpperCase().replace("0X", "0x"),
      payer: PAYER.toLowerCase()
    })
    assert.deepStrictEqual(Object.keys(normalized), [
      "quoteId",
      "requestedAmountInRaw",
      "standard",
      "payer",
      "recipient",
      "payerAccountId",
      "recipientAccountId",
      "payerLocator",
      "recipientLocator",
      "idempotencyKey"
    ])
    assert.deepStrictEqual(normalized, {
      quoteId: QUOTE,
      requestedAmountInRaw: "2500000",
      standard: "ERC-7683",
      payer: PAYER,
      recipient: getAddress(RECIPIENT),
      payerAccountId: null,
      recipientAccountId: null,
      payerLocator: null,
      recipientLocator: null,
      idempotencyKey: "sdk-vector-0001"
    })
  })

  it("turns a string locator into {native: s} and keeps object locators", () => {
    const normalized = PermitMessage.normalize({ ...base, ...accountPayer, ...accountRecipient })
    assert.deepStrictEqual(normalized.payerLocator, { native: "So1anaPubKeyExample" })
    assert.deepStrictEqual(normalized.recipientLocator, accountRecipient.recipientLocator)
    assert.isNull(normalized.payer)
    assert.strictEqual(normalized.payerAccountId, hex32(0xab))
  })

  it("defaults the standard to DIRECT and uppercases it", () => {
    assert.strictEqual(PermitMessage.normalize({ ...base, standard: undefined }).standard, "DIRECT")
    assert.strictEqual(PermitMessage.normalize({ ...base, standard: null }).standard, "DIRECT")
    const { standard: _, ...withoutStandard } = base
    void _
    assert.strictEqual(PermitMessage.normalize(withoutStandard).standard, "DIRECT")
    assert.strictEqual(PermitMessage.normalize({ ...base, standard: "erc-7683" }).standard, "ERC-7683")
  })

  it("accepts amounts as decimal string, bigint or safe integer, up to 2^128 - 1", () => {
    const max = (1n << 128n) - 1n
    assert.strictEqual(
      PermitMessage.normalize({ ...base, requestedAmountInRaw: max }).requestedAmountInRaw,
      max.toString()
    )
    assert.strictEqual(
      PermitMessage.normalize({ ...base, requestedAmountInRaw: max.toString() }).requestedAmountInRaw,
      max.toString()
    )
    assert.strictEqual(PermitMessage.normalize({ ...base, requestedAmountInRaw: 1 }).requestedAmountInRaw, "1")
    assert.strictEqual(
      PermitMessage.normalize({ ...base, requestedAmountInRaw: Number.MAX_SAFE_INTEGER }).requestedAmountInRaw,
      "9007199254740991"
    )
  })

  it("trims the idempotency key and accepts 8 and 128 characters", () => {
    assert.strictEqual(
      PermitMessage.normalize({ ...base, idempotencyKey: " \t abcdefgh\n " }).idempotencyKey,
      "abcdefgh"
    )
    assert.strictEqual(
      PermitMessage.normalize({ ...base, idempotencyKey: "k".repeat(128) }).idempotencyKey,
      "k".repeat(128)
    )
    assert.strictEqual(PermitMessage.normalize({ ...base, idempotencyKey: "a.b_c:d-E9" }).idempotencyKey, "a.b_c:d-E9")
  })

  it("ignores requestSignature", () => {
    assert.deepStrictEqual(
      PermitMessage.normalize({ ...base, requestSignature: "0xdead" }),
      PermitMessage.normalize(base)
    )
  })
})

describe("PermitMessage normalisation errors", () => {
  it("QUOTE_ID_INVALID", () => {
    for (
      const quoteId of [
        "",
        "0x",
        QUOTE.slice(0, -1),
        `${QUOTE}0`,
        QUOTE.slice(2),
        `0x${"g".repeat(64)}`,
        5,
        null,
        undefined
      ]
    ) {
      expectCode({ ...base, quoteId }, "QUOTE_ID_INVALID", "quoteId")
    }
  })

  it("AMOUNT_INVALID for malformed amounts", () => {
    for (
      const amount of [
        "-1",
        "1.0",
        "01",
        "0x10",
        "",
        " 1",
        "1e6",
        "+1",
        -1,
        1.5,
        2 ** 53,
        Number.NaN,
        -1n,
        null,
        undefined,
        {}
      ]
    ) {
      expectCode({ ...base, requestedAmountInRaw: amount }, "AMOUNT_INVALID", "requestedAmountInRaw")
    }
  })

  it("AMOUNT_ZERO and AMOUNT_TOO_LARGE (2^128)", () => {
    for (const amount of ["0", 0, 0n]) expectCode({ ...base, requestedAmountInRaw: amount }, "AMOUNT_ZERO")
    const limit = 1n << 128n
    for (const amount of [limit, limit.toString(), (limit + 1n).toString(), ((1n << 256n) - 1n).toString()]) {
      expectCode({ ...base, requestedAmountInRaw: amount }, "AMOUNT_TOO_LARGE")
    }
  })

  it("STANDARD_INVALID", () => {
    for (
      const standard of [
        "",
        "-DIRECT",
        ".X",
        "a b",
        "DIRECT!",
        "é",
        "d\u0131rect",
        "\u017f",
        "stra\u00dfe",
        "S".repeat(65),
        "A/B",
        5,
        true
      ]
    ) {
      expectCode({ ...base, standard }, "STANDARD_INVALID", "standard")
    }
    assert.isUndefined(codeOf({ ...base, standard: "S".repeat(64) }))
    assert.isUndefined(codeOf({ ...base, standard: "9" }))
  })

  it("IDEMPOTENCY_KEY_INVALID for 7 or 129 characters and bad characters", () => {
    for (
      const idempotencyKey of [
        "k".repeat(7),
        "k".repeat(129),
        "",
        "        ",
        " abcdefg ",
        "abcd efgh",
        "abcdefgh!",
        "abcdefgh/",
        "abcdéfgh",
        "abcd\nefgh",
        12345678,
        null
      ]
    ) {
      expectCode({ ...base, idempotencyKey }, "IDEMPOTENCY_KEY_INVALID", "idempotencyKey")
    }
  })

  for (const side of ["payer", "recipient"] as const) {
    const S = side.toUpperCase()
    const none = { [side]: undefined, [`${side}AccountId`]: undefined, [`${side}Locator`]: undefined }

    it(`${S}_IDENTITY_MISSING`, () => {
      expectCode({ ...base, ...none }, `${S}_IDENTITY_MISSING`, side)
      expectCode(
        { ...base, [side]: null, [`${side}AccountId`]: null, [`${side}Locator`]: null },
        `${S}_IDENTITY_MISSING`
      )
    })

    it(`${S}_IDENTITY_AMBIGUOUS`, () => {
      expectCode(
        { ...base, [`${side}AccountId`]: hex32(1), [`${side}Locator`]: { a: 1 } },
        `${S}_IDENTITY_AMBIGUOUS`,
        side
      )
      expectCode({ ...base, [`${side}AccountId`]: hex32(1) }, `${S}_IDENTITY_AMBIGUOUS`)
      expectCode({ ...base, [`${side}Locator`]: "x" }, `${S}_IDENTITY_AMBIGUOUS`)
    })

    it(`${S}_ACCOUNT_ID_MISSING and ${S}_LOCATOR_MISSING`, () => {
      expectCode({ ...base, ...none, [`${side}Locator`]: { a: 1 } }, `${S}_ACCOUNT_ID_MISSING`, `${side}AccountId`)
      expectCode({ ...base, ...none, [`${side}AccountId`]: null, [`${side}Locator`]: "x" }, `${S}_ACCOUNT_ID_MISSING`)
      expectCode({ ...base, ...none, [`${side}AccountId`]: hex32(1) }, `${S}_LOCATOR_MISSING`, `${side}Locator`)
      expectCode({ ...base, ...none, [`${side}AccountId`]: hex32(1), [`${side}Locator`]: null }, `${S}_LOCATOR_MISSING`)
    })

    it(`${S}_CHECKSUM_INVALID for a mixed-case address with a wrong checksum`, () => {
      assert.isFalse(PermitMessage.hasValidChecksum(BAD_CHECKSUM))
      assert.isTrue(PermitMessage.hasValidChecksum(MIXED))
      assert.isTrue(PermitMessage.hasValidChecksum(MIXED.toLowerCase()))
      assert.isTrue(PermitMessage.hasValidChecksum(`0x${MIXED.slice(2).toUpperCase()}`))
      expectCode({ ...base, [side]: BAD_CHECKSUM }, `${S}_CHECKSUM_INVALID`, side)
      assert.throws(() => PermitMessage.checkChecksums({ [side]: BAD_CHECKSUM }), PermitMessage.PermitRequestInvalid)
      assert.doesNotThrow(() => PermitMessage.checkChecksums({ payer: MIXED, recipient: MIXED.toLowerCase() }))
    })

    it(`${S}_INVALID, ${S}_ACCOUNT_ID_INVALID and ${S}_LOCATOR_INVALID`, () => {
      for (const bad of ["0x1234", MIXED.slice(2), `${MIXED}00`, 42]) {
        expectCode({ ...base, [side]: bad }, `${S}_INVALID`, side)
      }
      for (const bad of ["0x1234", hex32(1).slice(2), 7]) {
        expectCode(
          { ...base, ...none, [`${side}AccountId`]: bad, [`${side}Locator`]: { a: 1 } },
          `${S}_ACCOUNT_ID_INVALID`
        )
      }
      for (const bad of [[], ["x"], 5, true, { a: 1.5 }, { a: undefined }]) {
        expectCode(
          { ...base, ...none, [`${side}AccountId`]: hex32(1), [`${side}Locator`]: bad },
          `${S}_LOCATOR_INVALID`,
          `${side}Locator`
        )
      }
    })
  }

  it("checks fields in order: quoteId, amount, standard, key, payer, recipient", () => {
    const allBad = {
      quoteId: "x",
      requestedAmountInRaw: "x",
      standard: "!",
      idempotencyKey: "x",
      payer: "x",
      recipient: "x"
    }
    assert.strictEqual(codeOf(allBad), "QUOTE_ID_INVALID")
    assert.strictEqual(codeOf({ ...allBad, quoteId: QUOTE }), "AMOUNT_INVALID")
    assert.strictEqual(codeOf({ ...allBad, quoteId: QUOTE, requestedAmountInRaw: "1" }), "STANDARD_INVALID")
    assert.strictEqual(
      codeOf({ ...allBad, quoteId: QUOTE, requestedAmountInRaw: "1", standard: "DIRECT" }),
      "IDEMPOTENCY_KEY_INVALID"
    )
    assert.strictEqual(
      codeOf({ ...allBad, quoteId: QUOTE, requestedAmountInRaw: "1", standard: "DIRECT", idempotencyKey: "abcdefgh" }),
      "PAYER_INVALID"
    )
    assert.strictEqual(
      codeOf({ quoteId: QUOTE, requestedAmountInRaw: "1", idempotencyKey: "abcdefgh", payer: PAYER, recipient: "x" }),
      "RECIPIENT_INVALID"
    )
  })

  it("a non-object request is REQUEST_INVALID", () => {
    assert.strictEqual(codeOf(null), "REQUEST_INVALID")
    assert.strictEqual(codeOf("request"), "REQUEST_INVALID")
  })
})

describe("PermitMessage strict: false", () => {
  it("skips the checksum and the amount range, not the formats", () => {
    const lax = { strict: false }
    const normalized = PermitMessage.normalize({ ...base, payer: BAD_CHECKSUM, recipient: BAD_CHECKSUM }, lax)
    assert.strictEqual(normalized.payer, MIXED)
    assert.strictEqual(PermitMessage.message(normalized).split("\n")[4], `payer=${MIXED.toLowerCase()}`)
    assert.strictEqual(PermitMessage.normalize({ ...base, requestedAmountInRaw: "0" }, lax).requestedAmountInRaw, "0")
    const big = (1n << 128n).toString()
    assert.strictEqual(PermitMessage.normalize({ ...base, requestedAmountInRaw: big }, lax).requestedAmountInRaw, big)
    // formats are still checked
    assert.strictEqual(codeOf({ ...base, requestedAmountInRaw: "01" }, lax), "AMOUNT_INVALID")
    assert.strictEqual(codeOf({ ...base, payer: "0x12" }, lax), "PAYER_INVALID")
    assert.strictEqual(codeOf({ ...base, quoteId: "0x12" }, lax), "QUOTE_ID_INVALID")
    assert.strictEqual(codeOf({ ...base, payerAccountId: hex32(1) }, lax), "PAYER_IDENTITY_AMBIGUOUS")
  })

  it("checkAmount then reports what strict mode would", () => {
    const lax = PermitMessage.normalize({ ...base, requestedAmountInRaw: "0" }, { strict: false })
    assert.throws(() => PermitMessage.checkAmount(lax))
    const error = (() => {
      try {
        PermitMessage.checkAmount({ requestedAmountInRaw: (1n << 128n).toString() })
      } catch (e) {
        return e as PermitMessage.PermitRequestInvalid
      }
      return undefined
    })()
    assert.strictEqual(error?.code, "AMOUNT_TOO_LARGE")
    assert.doesNotThrow(() => PermitMessage.checkAmount({ requestedAmountInRaw: ((1n << 128n) - 1n).toString() }))
  })
})

describe("PermitMessage signing", () => {
  it("sign / recoverSigner round trip, and the high-s twin is refused", () => {
    const message = PermitMessage.build(base)
    const signature = PermitMessage.sign(message, TEST_KEY)
    assert.deepStrictEqual(PermitMessage.recoverSigner(message, signature), Result.succeed(TEST_ADDRESS))
    const twin = PermitMessage.recoverSigner(message, Signature.highSTwin(signature))
    assert.isTrue(Result.isFailure(twin) && twin.failure.problem === "HIGH_S")
    // another message does not recover the signer
    const other = PermitMessage.recoverSigner(`${message} `, signature)
    assert.isFalse(Result.isSuccess(other) && other.success === TEST_ADDRESS)
  })
})

describe("PermitMessage.fingerprint", () => {
  it("is equal for equivalent inputs and differs when a field differs", () => {
    const fp = (input: Input) => PermitMessage.fingerprint(PermitMessage.normalize(input))
    const reference = fp(base)
    assert.match(reference, /^0x[0-9a-f]{64}$/)
    assert.strictEqual(
      fp({
        ...base,
        quoteId: QUOTE.toUpperCase().replace("0X", "0x"),
        requestedAmountInRaw: 2_500_000n,
        standard: "erc-7683",
        payer: PAYER.toLowerCase(),
        payerAccountId: null,
        payerLocator: null,
        idempotencyKey: "  sdk-vector-0001 ",
        requestSignature: "0x00"
      }),
      reference
    )
    for (
      const change of [
        { quoteId: hex32(0x21) },
        { requestedAmountInRaw: "2500001" },
        { standard: "DIRECT" },
        { payer: RECIPIENT },
        { recipient: PAYER },
        { idempotencyKey: "sdk-vector-0002" },
        accountPayer,
        accountRecipient
      ]
    ) {
      assert.notStrictEqual(fp({ ...base, ...change }), reference, JSON.stringify(change))
    }
    const withLocator = { ...base, ...accountPayer }
    assert.notStrictEqual(fp({ ...withLocator, payerLocator: "other" }), fp(withLocator))
    assert.notStrictEqual(fp({ ...withLocator, payerAccountId: hex32(0xac) }), fp(withLocator))
    assert.strictEqual(fp({ ...withLocator, payerLocator: { native: "So1anaPubKeyExample" } }), fp(withLocator))
  })
})
