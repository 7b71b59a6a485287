import { assert, describe, it } from "@effect/vitest"
import { fc, test as fcTest } from "@fast-check/vitest"
import { encodeFunctionData, getAddress, toFunctionSelector } from "viem"
import { PermitAbi } from "../src/index.ts"
import { abiPermitArb, bytesToHex } from "./arbitraries.ts"
import { executionPermit, executionPermitEnvelope } from "./samples.ts"

type AbiPermit = PermitAbi.AbiPermit

const { PERMIT_TUPLE_FIELDS, PermitAbiError } = PermitAbi

const BYTES32_FIELDS = PERMIT_TUPLE_FIELDS.filter((f) => f.type === "bytes32").map((f) => f.name)
const ADDRESS_FIELDS = PERMIT_TUPLE_FIELDS.filter((f) => f.type === "address").map((f) => f.name)

const signatureBytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max }).map(bytesToHex)

/** What decoding gives back: bytes32 lowercase, addresses EIP-55, uints decimal, uint32 numbers. */
const normalized = (permit: AbiPermit): AbiPermit => {
  const out: Record<string, unknown> = {}
  for (const { name, type } of PERMIT_TUPLE_FIELDS) {
    const value = permit[name]
    out[name] = type === "bytes32"
      ? String(value).toLowerCase()
      : type === "address"
      ? getAddress(String(value).toLowerCase())
      : type === "uint32"
      ? Number(value)
      : BigInt(value).toString()
  }
  return out as AbiPermit
}

const word = (hex: string, i: number): string => hex.slice(2 + 64 * i, 2 + 64 * (i + 1))
const uintWord = (n: bigint | number | string): string => BigInt(n).toString(16).padStart(64, "0")

/** The head word of a field, written out from the ABI rules. */
const expectedWord = (type: string, value: unknown): string =>
  type === "bytes32"
    ? String(value).slice(2).toLowerCase()
    : type === "address"
    ? `${"0".repeat(24)}${String(value).slice(2).toLowerCase()}`
    : uintWord(value as string)

const thrown = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  return undefined
}

const assertAbiError = (f: () => unknown, what: string) => {
  const error = thrown(f)
  assert.instanceOf(error, PermitAbiError, `${what}: expected a PermitAbiError, got ${String(error)}`)
}

const FILL_DIRECT_ABI = [
  {
    type: "function",
    name: "fillDirect",
    stateMutability: "payable",
    inputs: [
      { name: "permit", type: "tuple", components: PERMIT_TUPLE_FIELDS },
      { name: "signature", type: "bytes" }
    ],
    outputs: [{ name: "fillId", type: "bytes32" }]
  }
] as const

const RUNS = { numRuns: 150 }

describe("PermitAbi constants", () => {
  it("has the 31 tuple fields in ABI order and the published selectors", () => {
    assert.lengthOf(PERMIT_TUPLE_FIELDS, 31)
    assert.strictEqual(PERMIT_TUPLE_FIELDS[14].name, "dataVersion")
    assert.strictEqual(PERMIT_TUPLE_FIELDS[15].name, "executionGeneration")
    assert.strictEqual(PERMIT_TUPLE_FIELDS[30].name, "amountOutRaw")
    assert.strictEqual(PermitAbi.FILL_DIRECT_SELECTOR, "0xeeff9007")
    assert.strictEqual(PermitAbi.PREVIEW_FILL_DIRECT_SELECTOR, "0xff5da6a9")
    assert.strictEqual(toFunctionSelector(PermitAbi.FILL_DIRECT_SIGNATURE), "0xeeff9007")
    assert.lengthOf(BYTES32_FIELDS, 15)
    assert.lengthOf(ADDRESS_FIELDS, 7)
  })
})

describe("PermitAbi layout", () => {
  it("fillDirect calldata of the sample: selector, 31 words, offset 0x400, length 0x41, padded signature", () => {
    const signature = executionPermitEnvelope.permitSignature
    const calldata = PermitAbi.encodeFillDirect(executionPermit, signature)
    assert.isTrue(calldata.startsWith("0xeeff9007"))
    assert.strictEqual((calldata.length - 2) / 2, 4 + 1152)
    const payload = `0x${calldata.slice(10)}`
    assert.strictEqual(word(payload, 31), uintWord(0x400))
    assert.strictEqual(word(payload, 32), uintWord(0x41))
    assert.strictEqual(payload.slice(2 + 64 * 33), `${signature.slice(2)}${"0".repeat(62)}`)
    PERMIT_TUPLE_FIELDS.forEach(({ name, type }, i) => {
      assert.strictEqual(word(payload, i), expectedWord(type, executionPermit[name]), name)
    })
  })

  fcTest.prop([abiPermitArb, signatureBytes(65, 65)], RUNS)(
    "for a 65-byte signature: 4 + 1152 bytes, word 31 = 0x400, word 32 = 0x41, each field word as the ABI says",
    (permit, signature) => {
      const calldata = PermitAbi.encodeFillDirect(permit, signature)
      assert.strictEqual(calldata.slice(0, 10), "0xeeff9007")
      assert.strictEqual(calldata.length, 2 + 2 * (4 + 1152))
      const payload = PermitAbi.encodePayload(permit, signature)
      assert.strictEqual(calldata, `0xeeff9007${payload.slice(2)}`)
      assert.strictEqual(word(payload, 31), uintWord(0x400))
      assert.strictEqual(word(payload, 32), uintWord(0x41))
      PERMIT_TUPLE_FIELDS.forEach(({ name, type }, i) => {
        assert.strictEqual(word(payload, i), expectedWord(type, permit[name]), name)
      })
      assert.strictEqual(PermitAbi.encodeTuple(permit), `0x${payload.slice(2, 2 + 31 * 64)}`)
    }
  )

  fcTest.prop([abiPermitArb, signatureBytes(0, 100)], RUNS)(
    "agrees with viem's encodeFunctionData for fillDirect",
    (permit, signature) => {
      const values = normalized(permit) as unknown as Record<string, unknown>
      const args = Object.fromEntries(
        PERMIT_TUPLE_FIELDS.map((
          { name, type }
        ) => [name, type.startsWith("uint") ? BigInt(values[name] as string) : values[name]])
      )
      const reference = encodeFunctionData({
        abi: FILL_DIRECT_ABI,
        functionName: "fillDirect",
        args: [args as never, signature]
      })
      assert.strictEqual(PermitAbi.encodeFillDirect(permit, signature), reference)
    }
  )
})

describe("PermitAbi round trip", () => {
  fcTest.prop([abiPermitArb, signatureBytes(0, 130)], RUNS)(
    "decodeFillDirect(encodeFillDirect(p, s)) gives p back (normalised) and s",
    (permit, signature) => {
      const decoded = PermitAbi.decodeFillDirect(PermitAbi.encodeFillDirect(permit, signature))
      assert.deepStrictEqual(decoded.permit, normalized(permit))
      assert.strictEqual(decoded.signature, signature.toLowerCase())
      for (const name of ADDRESS_FIELDS) assert.strictEqual(decoded.permit[name], getAddress(decoded.permit[name]))
      assert.isNumber(decoded.permit.sourceFinalityBlocks)
      assert.isNumber(decoded.permit.settlementWindowSeconds)
      assert.isString(decoded.permit.dataVersion)
      assert.isString(decoded.permit.amountInRaw)
      assert.isString(decoded.permit.sourceChainId)
      // the standard payload decodes the same way, and re-encoding gives the same bytes
      const payload = PermitAbi.encodePayload(permit, signature)
      assert.deepStrictEqual(PermitAbi.decodePayload(payload), decoded)
      assert.strictEqual(PermitAbi.encodePayload(decoded.permit, decoded.signature), payload)
    }
  )

  it("the sample permit round-trips exactly (it is already in decoded form)", () => {
    const signature = executionPermitEnvelope.permitSignature
    const { permit } = PermitAbi.decodeFillDirect(PermitAbi.encodeFillDirect(executionPermit, signature))
    for (const { name } of PERMIT_TUPLE_FIELDS) assert.strictEqual(permit[name], executionPermit[name], name)
  })

  it("accepts an uppercase selector in calldata", () => {
    const calldata = PermitAbi.encodeFillDirect(executionPermit, "0x")
    assert.deepStrictEqual(
      PermitAbi.decodeFillDirect(`0xEEFF9007${calldata.slice(10)}`),
      PermitAbi.decodeFillDirect(calldata)
    )
  })
})

// ---------------------------------------------------------------------------
// Refusals
// ---------------------------------------------------------------------------

const UINT_LIMITS: Record<string, bigint> = {
  uint32: 1n << 32n,
  uint64: 1n << 64n,
  uint128: 1n << 128n,
  uint256: 1n << 256n
}

describe("PermitAbi refuses values without an ABI encoding", () => {
  const sig = executionPermitEnvelope.permitSignature

  it("each uint at its limit (2^32, 2^64, 2^128, 2^256) throws; one below encodes", () => {
    for (const { name, type } of PERMIT_TUPLE_FIELDS) {
      if (!type.startsWith("uint")) continue
      const limit = UINT_LIMITS[type]!
      assertAbiError(
        () => PermitAbi.encodeFillDirect({ ...executionPermit, [name]: limit.toString() }, sig),
        `${name}=${limit}`
      )
      const max = type === "uint32" ? Number(limit - 1n) : (limit - 1n).toString()
      const encoded = PermitAbi.encodeFillDirect({ ...executionPermit, [name]: max }, sig)
      assert.strictEqual(String(PermitAbi.decodeFillDirect(encoded).permit[name]), String(max), name)
    }
  })

  it("malformed fields throw PermitAbiError", () => {
    const cases: Array<[string, unknown]> = [
      ["releaseId", executionPermit.releaseId.slice(0, -2)],
      ["releaseId", `${executionPermit.releaseId}00`],
      ["fillId", executionPermit.fillId.slice(2)],
      ["quoteId", `0x${"zz".repeat(32)}`],
      ["quoteId", 42],
      ["sourceAsset", "0x1234"],
      ["payer", executionPermit.payer.slice(2)],
      ["recipient", `${executionPermit.recipient}ab`],
      ["recipient", 7],
      ["dataVersion", "-1"],
      ["dataVersion", "01"],
      ["dataVersion", "1.5"],
      ["dataVersion", "0x10"],
      ["dataVersion", ""],
      ["amountInRaw", "1e6"],
      ["amountOutRaw", " 1"],
      ["sourceFinalityBlocks", -1],
      ["sourceFinalityBlocks", 1.5],
      ["settlementWindowSeconds", Number.NaN],
      ["sourceChainId", "abc"]
    ]
    for (const [name, value] of cases) {
      assertAbiError(
        () => PermitAbi.encodeFillDirect({ ...executionPermit, [name]: value }, sig),
        `${name}=${String(value)}`
      )
      assertAbiError(() => PermitAbi.encodeTuple({ ...executionPermit, [name]: value }), `tuple ${name}`)
    }
    for (const { name } of PERMIT_TUPLE_FIELDS) {
      const { [name]: _, ...missing } = executionPermit
      void _
      assertAbiError(() => PermitAbi.encodePayload(missing as unknown as AbiPermit, sig), `missing ${name}`)
      assertAbiError(() => PermitAbi.encodePayload({ ...executionPermit, [name]: null }, sig), `null ${name}`)
    }
  })

  it("a signature that is not hex bytes throws PermitAbiError", () => {
    for (const bad of ["", "0x1", "0x123", "1234", "0xzz", `${sig} `, 5, null]) {
      assertAbiError(() => PermitAbi.encodeFillDirect(executionPermit, bad as string), `signature ${String(bad)}`)
    }
  })

  fcTest.prop(
    [
      abiPermitArb,
      fc.constantFrom(...PERMIT_TUPLE_FIELDS.filter((f) => f.type.startsWith("uint"))),
      fc.bigInt({ min: 0n, max: 1n << 300n })
    ],
    RUNS
  )("a uint field encodes exactly when it fits its type", (permit, field, extra) => {
    const limit = UINT_LIMITS[field.type]!
    const value = limit + extra
    assertAbiError(() => PermitAbi.encodePayload({ ...permit, [field.name]: value.toString() }, "0x"), field.name)
  })
})

describe("PermitAbi decoding refuses garbage with PermitAbiError only", () => {
  const sig = executionPermitEnvelope.permitSignature
  const calldata = PermitAbi.encodeFillDirect(executionPermit, sig)
  const payload = PermitAbi.encodePayload(executionPermit, sig)

  it("refuses wrong selectors, non-strings, truncations and non-hex", () => {
    for (
      const bad of [
        "",
        "0x",
        "0xeeff9007",
        `0xff5da6a9${calldata.slice(10)}`,
        `0x00000000${calldata.slice(10)}`,
        calldata.slice(0, 10 + 64 * 31),
        calldata.slice(0, -64 * 2),
        calldata.slice(0, -1),
        `${calldata.slice(0, 20)}zz${calldata.slice(22)}`,
        5,
        null,
        undefined,
        {}
      ]
    ) {
      assertAbiError(() => PermitAbi.decodeFillDirect(bad as string), `calldata ${String(bad).slice(0, 20)}`)
    }
    for (const bad of ["", "0x", "0x00", payload.slice(0, 2 + 64 * 32), "zz", 1, null]) {
      assertAbiError(() => PermitAbi.decodePayload(bad as string), `payload ${String(bad).slice(0, 20)}`)
    }
  })

  it("refuses words with bits above their type, like the Router's decoder", () => {
    const setWord = (hex: string, i: number, w: string) =>
      `${hex.slice(0, 2 + 64 * i)}${w}${hex.slice(2 + 64 * (i + 1))}`
    PERMIT_TUPLE_FIELDS.forEach(({ name, type }, i) => {
      if (type === "bytes32" || type === "uint256") return
      const dirty = setWord(payload, i, `01${word(payload, i).slice(2)}`)
      assertAbiError(() => PermitAbi.decodePayload(dirty), `dirty ${name}`)
    })
    // the highest in-range values decode
    const maxed = setWord(
      setWord(payload, 14, `${"0".repeat(48)}${"f".repeat(16)}`),
      18,
      `${"0".repeat(56)}${"f".repeat(8)}`
    )
    const decoded = PermitAbi.decodePayload(maxed).permit
    assert.strictEqual(decoded.dataVersion, ((1n << 64n) - 1n).toString())
    assert.strictEqual(decoded.sourceFinalityBlocks, 0xffffffff)
  })

  fcTest.prop([fc.uint8Array({ maxLength: 1400 })], RUNS)("random bytes never throw another error type", (bytes) => {
    const hex = bytesToHex(bytes)
    for (const input of [hex, `0xeeff9007${hex.slice(2)}`]) {
      const error = thrown(() => PermitAbi.decodeFillDirect(input))
      assert.isTrue(error === undefined || error instanceof PermitAbiError, String(error))
      const payloadError = thrown(() => PermitAbi.decodePayload(input))
      assert.isTrue(payloadError === undefined || payloadError instanceof PermitAbiError, String(payloadError))
    }
  })

  fcTest.prop([fc.nat(), fc.nat({ max: 255 }), fc.nat()], RUNS)(
    "mutated or truncated calldata either decodes to an encodable permit or throws PermitAbiError",
    (position, byte, cut) => {
      const bytesLength = (calldata.length - 2) / 2
      const at = 2 + 2 * (position % bytesLength)
      const mutated = `${calldata.slice(0, at)}${byte.toString(16).padStart(2, "0")}${calldata.slice(at + 2)}`
      const truncated = calldata.slice(0, 2 + 2 * (cut % bytesLength))
      for (const input of [mutated, truncated]) {
        let decoded: ReturnType<typeof PermitAbi.decodeFillDirect> | undefined
        const error = thrown(() => {
          decoded = PermitAbi.decodeFillDirect(input)
        })
        if (error !== undefined) {
          assert.instanceOf(error, PermitAbiError)
        } else {
          // whatever decodes is a permit that encodes again
          assert.doesNotThrow(() => PermitAbi.encodeFillDirect(decoded!.permit, decoded!.signature))
        }
      }
    }
  )
})
