import { assert, describe, it } from "@effect/vitest"
import { fc, test as fcTest } from "@fast-check/vitest"
import { encodeAbiParameters, keccak256, pad, stringToBytes } from "viem"
import { Ids } from "../src/index.ts"
import { addressLower, anyCase, bytes32, changeHexDigit, uintString } from "./arbitraries.ts"

type Hex = `0x${string}`

const b32 = { type: "bytes32" } as const
const u256 = { type: "uint256" } as const
const u64 = { type: "uint64" } as const

const viemNetworkId = (chainId: bigint): Hex =>
  keccak256(encodeAbiParameters([b32, u256], [keccak256(stringToBytes("EVM")), chainId]))
const viemPairId = (a: Hex, b: Hex): Hex => keccak256(encodeAbiParameters([b32, b32], [a, b]))

const thrownTag = (f: () => unknown): string | undefined => {
  try {
    f()
  } catch (error) {
    return (error as { _tag?: string })._tag ?? "untagged"
  }
  return undefined
}

const RUNS = { numRuns: 200 }

describe("Ids constants", () => {
  it("EVM_VM_TYPE is keccak256(\"EVM\")", () => {
    assert.strictEqual(Ids.EVM_VM_TYPE, "0x9c73caa427dcc7a3ba321dd9ec93943758502b982786658421fd1e094bf2b5f3")
    assert.strictEqual(Ids.EVM_VM_TYPE, keccak256(stringToBytes("EVM")))
    assert.strictEqual(Ids.vmType("EVM"), Ids.EVM_VM_TYPE)
    assert.strictEqual(Ids.SOLANA_VM_TYPE, keccak256(stringToBytes("SVM")))
  })

  it("labels: releaseId and standard ids", () => {
    assert.strictEqual(Ids.DEFAULT_RELEASE_ID, "0xb5115358e9045400030f2f70150cdb65f2fa9bbb8def79319cf4caac9c3490da")
    assert.strictEqual(Ids.label("ERC-7683"), "0x27ecffeeec898dbaf864fc095016ad6212d7a27e32a3069234a4a1da23f50993")
    assert.strictEqual(Ids.label("OIF"), "0x3de00a2eccd5b86df839b3747bda483b2de2a855d640eb3d4938d6d43cb162c0")
    assert.strictEqual(
      Ids.label("SVC_PUBLIC_SOLVER_DISCOVERY_V6"),
      "0x1ef1dfed1bcc3525e588ba9054fcd502b8b69ae550ac3e2aa6c0f206ddf3e0ca"
    )
  })
})

describe("Ids networks", () => {
  it("evmNetworkId(8453) = keccak256(abi.encode(bytes32 vmType, uint256 8453))", () => {
    const expected = viemNetworkId(8453n)
    assert.strictEqual(Ids.evmNetworkId(8453), expected)
    assert.strictEqual(Ids.evmNetworkId("8453"), expected)
    assert.strictEqual(Ids.evmNetworkId(8453n), expected)
    // the same as the generic form with the chain id as a 32-byte reference
    assert.strictEqual(Ids.networkId(Ids.EVM_VM_TYPE, pad("0x2105")), expected)
    // never the upstream's (unpublished) Base id
    assert.notStrictEqual(expected, "0x3d5484ad492110227dc184ab6abbeeccd54b127aa00bfc256fd8d8037a4e48c2")
  })

  fcTest.prop([uintString(256)], RUNS)("evmNetworkId matches viem for any uint256 chain id", (chainId) => {
    assert.strictEqual(Ids.evmNetworkId(chainId), viemNetworkId(BigInt(chainId)))
    assert.strictEqual(Ids.evmNetworkId(BigInt(chainId)), viemNetworkId(BigInt(chainId)))
  })

  fcTest.prop([fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), fc.bigInt({ min: 0n, max: (1n << 256n) - 1n })], RUNS)(
    "different chain ids give different network ids",
    (a, b) => {
      fc.pre(a !== b)
      assert.notStrictEqual(Ids.evmNetworkId(a), Ids.evmNetworkId(b))
    }
  )

  it("solanaNetworkId = keccak256(abi.encode(vmType SVM, keccak256(genesis)))", () => {
    const expected = viemPairId(keccak256(stringToBytes("SVM")), keccak256(stringToBytes(Ids.SOLANA_MAINNET_GENESIS)))
    assert.strictEqual(Ids.solanaNetworkId(), expected)
    assert.strictEqual(Ids.solanaNetworkId(Ids.SOLANA_MAINNET_GENESIS), expected)
    assert.notStrictEqual(Ids.solanaNetworkId("EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG"), expected)
  })

  fcTest.prop([anyCase(bytes32), anyCase(bytes32)], RUNS)(
    "networkId(vmType, reference) matches viem, any hex case",
    (vm, ref) => {
      assert.strictEqual(Ids.networkId(vm, ref), viemPairId(vm.toLowerCase() as Hex, ref.toLowerCase() as Hex))
    }
  )

  it("refuses bad chain ids and genesis hashes with IdInputInvalid", () => {
    for (
      const bad of [-1, 1.5, "01", "-1", "1e3", "0x10", "", " 1", (1n << 256n).toString(), 1n << 256n, -1n, Number.NaN]
    ) {
      assert.strictEqual(thrownTag(() => Ids.evmNetworkId(bad as string)), "IdInputInvalid", String(bad))
    }
    for (
      const bad of ["", "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl", "short", `${Ids.SOLANA_MAINNET_GENESIS}!`, "x".repeat(45)]
    ) {
      assert.strictEqual(thrownTag(() => Ids.solanaNetworkId(bad)), "IdInputInvalid", bad)
    }
    assert.strictEqual(thrownTag(() => Ids.networkId("0x12", Ids.EVM_VM_TYPE)), "IdInputInvalid")
    assert.strictEqual(thrownTag(() => Ids.networkId(Ids.EVM_VM_TYPE, "0x12")), "IdInputInvalid")
  })
})

describe("Ids references, accounts and assets", () => {
  fcTest.prop([anyCase(addressLower)], RUNS)("evmReference left-pads the lowercase address to 32 bytes", (address) => {
    const reference = Ids.evmReference(address)
    assert.strictEqual(reference, `0x${"0".repeat(24)}${address.slice(2).toLowerCase()}`)
    assert.strictEqual(reference, pad(address.toLowerCase() as Hex, { size: 32 }))
  })

  it("evmReference refuses non-addresses", () => {
    for (
      const bad of ["0x", "0x1234", `0x${"1".repeat(41)}`, "1".repeat(40), `0x${"g".repeat(40)}`, `0x${"1".repeat(64)}`]
    ) {
      assert.strictEqual(thrownTag(() => Ids.evmReference(bad)), "IdInputInvalid", bad)
    }
  })

  fcTest.prop([anyCase(bytes32), anyCase(bytes32), anyCase(addressLower)], RUNS)(
    "accountId / assetId = keccak256(abi.encode(networkId, reference)), EVM forms pad the address",
    (network, reference, address) => {
      const expected = viemPairId(network.toLowerCase() as Hex, reference.toLowerCase() as Hex)
      assert.strictEqual(Ids.accountId(network, reference), expected)
      assert.strictEqual(Ids.assetId(network, reference), expected)
      const padded = pad(address.toLowerCase() as Hex, { size: 32 })
      assert.strictEqual(Ids.evmAccountId(network, address), viemPairId(network.toLowerCase() as Hex, padded))
      assert.strictEqual(Ids.evmAssetId(network, address), viemPairId(network.toLowerCase() as Hex, padded))
    }
  )

  fcTest.prop([bytes32, bytes32, fc.nat({ max: 63 }), fc.nat(), fc.boolean()], RUNS)(
    "a different network or reference gives a different id",
    (network, reference, digit, delta, changeNetwork) => {
      const before = Ids.accountId(network, reference)
      const after = changeNetwork
        ? Ids.accountId(changeHexDigit(network, digit, delta), reference)
        : Ids.accountId(network, changeHexDigit(reference, digit, delta))
      assert.notStrictEqual(after, before)
      // and the arguments are not interchangeable
      fc.pre(network !== reference)
      assert.notStrictEqual(Ids.accountId(reference, network), before)
    }
  )

  it("the zero address is the native coin of an EVM network", () => {
    const base = Ids.evmNetworkId(8453)
    assert.strictEqual(
      Ids.evmAssetId(base, "0x0000000000000000000000000000000000000000"),
      viemPairId(base, pad("0x00", { size: 32 }))
    )
  })

  it("refuses malformed network ids and references", () => {
    const good = Ids.evmNetworkId(1)
    for (const bad of ["", "0x", good.slice(0, -1), `${good}0`, good.slice(2), `0x${"z".repeat(64)}`]) {
      assert.strictEqual(thrownTag(() => Ids.accountId(bad, good)), "IdInputInvalid", bad)
      assert.strictEqual(thrownTag(() => Ids.assetId(good, bad)), "IdInputInvalid", bad)
      assert.strictEqual(
        thrownTag(() => Ids.evmAccountId(bad, "0x0000000000000000000000000000000000000001")),
        "IdInputInvalid"
      )
    }
    assert.strictEqual(thrownTag(() => Ids.evmAssetId(good, "0x01")), "IdInputInvalid")
  })
})

// ---------------------------------------------------------------------------
// Routes and quotes
// ---------------------------------------------------------------------------

const routeInput = fc.record({
  sourceNetworkId: anyCase(bytes32),
  sourceAssetId: anyCase(bytes32),
  destinationNetworkId: anyCase(bytes32),
  destinationAssetId: anyCase(bytes32),
  releaseId: anyCase(bytes32)
})

const quoteInput = fc.record({
  routeId: anyCase(bytes32),
  pricingReferenceId: anyCase(bytes32),
  validAfter: fc.oneof(
    uintString(64),
    fc.nat().map((n) => n as number | string | bigint),
    fc.bigInt({ min: 0n, max: (1n << 64n) - 1n })
  ),
  validUntil: uintString(64),
  executionGeneration: anyCase(bytes32),
  policyHash: anyCase(bytes32)
})

const lower = (h: string) => h.toLowerCase() as Hex

const viemRouteId = (r: Ids.RouteIdInput): Hex =>
  keccak256(
    encodeAbiParameters([b32, b32, b32, b32, b32], [
      lower(r.sourceNetworkId),
      lower(r.sourceAssetId),
      lower(r.destinationNetworkId),
      lower(r.destinationAssetId),
      lower(r.releaseId)
    ])
  )

const viemQuoteId = (q: Ids.QuoteIdInput): Hex =>
  keccak256(
    encodeAbiParameters([b32, b32, u64, u64, b32, b32], [
      lower(q.routeId),
      lower(q.pricingReferenceId),
      BigInt(q.validAfter),
      BigInt(q.validUntil),
      lower(q.executionGeneration),
      lower(q.policyHash)
    ])
  )

const ROUTE_KEYS = [
  "sourceNetworkId",
  "sourceAssetId",
  "destinationNetworkId",
  "destinationAssetId",
  "releaseId"
] as const
const QUOTE_HEX_KEYS = ["routeId", "pricingReferenceId", "executionGeneration", "policyHash"] as const

describe("Ids routes and quotes", () => {
  fcTest.prop([routeInput], RUNS)("routeId matches viem for any hex case", (input) => {
    assert.strictEqual(Ids.routeId(input), viemRouteId(input))
  })

  fcTest.prop([quoteInput], RUNS)("quoteId matches viem (validAfter/validUntil as uint64)", (input) => {
    assert.strictEqual(Ids.quoteId(input), viemQuoteId(input))
  })

  fcTest.prop([routeInput, fc.constantFrom(...ROUTE_KEYS), fc.nat({ max: 63 }), fc.nat()], RUNS)(
    "changing any one routeId component changes the routeId",
    (input, key, digit, delta) => {
      const changed = { ...input, [key]: changeHexDigit(input[key].toLowerCase(), digit, delta) }
      assert.notStrictEqual(Ids.routeId(changed), Ids.routeId(input))
    }
  )

  fcTest.prop([routeInput], RUNS)("source and destination are not interchangeable", (input) => {
    fc.pre(
      lower(input.sourceNetworkId) !== lower(input.destinationNetworkId) ||
        lower(input.sourceAssetId) !== lower(input.destinationAssetId)
    )
    const reversed = {
      ...input,
      sourceNetworkId: input.destinationNetworkId,
      sourceAssetId: input.destinationAssetId,
      destinationNetworkId: input.sourceNetworkId,
      destinationAssetId: input.sourceAssetId
    }
    assert.notStrictEqual(Ids.routeId(reversed), Ids.routeId(input))
  })

  fcTest.prop(
    [quoteInput, fc.constantFrom(...QUOTE_HEX_KEYS, "validAfter", "validUntil"), fc.nat({ max: 63 }), fc.nat()],
    RUNS
  )("changing any one quoteId term changes the quoteId", (input, key, digit, delta) => {
    let changed: Ids.QuoteIdInput
    if (key === "validAfter" || key === "validUntil") {
      const v = BigInt(input[key])
      changed = { ...input, [key]: (v === (1n << 64n) - 1n ? v - 1n : v + 1n).toString() }
    } else {
      changed = { ...input, [key]: changeHexDigit(input[key].toLowerCase(), digit, delta) }
    }
    assert.notStrictEqual(Ids.quoteId(changed), Ids.quoteId(input))
  })

  it("refuses bad route and quote inputs with IdInputInvalid", () => {
    const route = {
      sourceNetworkId: Ids.evmNetworkId(1),
      sourceAssetId: Ids.evmNetworkId(2),
      destinationNetworkId: Ids.evmNetworkId(3),
      destinationAssetId: Ids.evmNetworkId(4),
      releaseId: Ids.DEFAULT_RELEASE_ID
    }
    for (const key of ROUTE_KEYS) {
      for (const bad of ["0x12", "", undefined, 5]) {
        assert.strictEqual(
          thrownTag(() => Ids.routeId({ ...route, [key]: bad } as never)),
          "IdInputInvalid",
          `${key}=${String(bad)}`
        )
      }
    }
    const quote = {
      routeId: Ids.routeId(route),
      pricingReferenceId: route.sourceNetworkId,
      validAfter: 1,
      validUntil: "2",
      executionGeneration: route.sourceAssetId,
      policyHash: route.destinationAssetId
    }
    for (const key of QUOTE_HEX_KEYS) {
      assert.strictEqual(thrownTag(() => Ids.quoteId({ ...quote, [key]: "0x1234" })), "IdInputInvalid", key)
    }
    for (const bad of [(1n << 64n).toString(), 1n << 64n, -1, "-1", "1.5", "01", "", 0.5]) {
      assert.strictEqual(
        thrownTag(() => Ids.quoteId({ ...quote, validAfter: bad })),
        "IdInputInvalid",
        `validAfter=${String(bad)}`
      )
      assert.strictEqual(
        thrownTag(() => Ids.quoteId({ ...quote, validUntil: bad })),
        "IdInputInvalid",
        `validUntil=${String(bad)}`
      )
    }
    // the largest uint64 is fine
    assert.isUndefined(thrownTag(() => Ids.quoteId({ ...quote, validUntil: ((1n << 64n) - 1n).toString() })))
  })
})
