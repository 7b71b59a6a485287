import { assert, describe } from "@effect/vitest"
import { fc, test as fcTest } from "@fast-check/vitest"
import { Result, Schema } from "effect"
import {
  Address,
  Bytes32,
  decodeStrict,
  DirectExecution,
  ErrorResponse,
  ExecutionPermitEnvelope,
  PermitRequest,
  Route,
  SignedFeedPayload,
  strictParseOptions,
  UintStr
} from "../src/index.ts"
import { addressLower, anyCase, bytes32, jsonObject, objectKey, routeArb } from "./arbitraries.ts"
import * as samples from "./samples.ts"

const decode = (schema: Schema.Top, input: unknown) => decodeStrict(schema as Schema.Decoder<unknown>)(input)
const accepts = (schema: Schema.Top, input: unknown) => Result.isSuccess(decode(schema, input))
const failureText = (schema: Schema.Top, input: unknown): string | undefined => {
  const result = decode(schema, input)
  return Result.isFailure(result) ? String(result.failure) : undefined
}
const encode = (schema: Schema.Top, value: unknown) =>
  Schema.encodeUnknownSync(schema as Schema.Codec<unknown, unknown>)(value, strictParseOptions)

const RUNS = { numRuns: 200 }

// ---------------------------------------------------------------------------
// Values that break a field's rule
// ---------------------------------------------------------------------------

const HEX = [..."0123456789abcdefABCDEF"]
const hexDigits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...HEX), minLength: min, maxLength: max })

const notJsonScalar = fc.constantFrom<unknown>(true, {}, [], 1.5)

const badUintNonNull: fc.Arbitrary<unknown> = fc.oneof(
  fc.bigInt({ min: 1n << 256n, max: 1n << 300n }).map(String),
  fc.tuple(fc.integer({ min: 1, max: 3 }), fc.nat()).map(([zeros, n]) => `${"0".repeat(zeros)}${n}`),
  fc.nat().map((n) => `-${n}`),
  fc.nat().map((n) => `${n}.0`),
  fc.nat().map((n) => `${n}e1`),
  fc.nat().map((n) => `0x${n.toString(16)}`),
  fc.nat().map((n) => ` ${n}`),
  fc.nat(),
  fc.constantFrom<unknown>("", "+1", "1_000", "１"),
  notJsonScalar
)
const badUint = fc.oneof(badUintNonNull, fc.constant(null))

const badHexNonNull = (digits: number): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.oneof(hexDigits(0, digits - 1), hexDigits(digits + 1, digits + 8)).map((h) => `0x${h}`),
    hexDigits(digits, digits),
    hexDigits(digits, digits).map((h) => `0X${h}`),
    fc.tuple(hexDigits(digits - 1, digits - 1), fc.constantFrom("g", "z", " ", "-", "é")).map(([h, c]) => `0x${h}${c}`),
    fc.nat(),
    notJsonScalar
  )
const badBytes32 = fc.oneof(badHexNonNull(64), fc.constant(null))

const badEnum = (allowed: ReadonlyArray<string>, nullable = false): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.string().filter((s) => !allowed.includes(s)),
    fc.constantFrom(...allowed).map((s) => s.toLowerCase()).filter((s) => !allowed.includes(s)),
    fc.constantFrom(...allowed).map((s) => ` ${s}`),
    fc.nat(),
    nullable ? notJsonScalar : fc.oneof(notJsonScalar, fc.constant(null))
  )

const badBoolean = fc.constantFrom<unknown>("true", "false", 1, 0, null, [], {})

/** Not an integer in [min, max] (max undefined: the safe-integer range). */
const badInt = (min: number, max?: number): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constant(min - 1),
    max === undefined ? fc.constant(-1e21) : fc.constant(max + 1),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: min - 1 }),
    max === undefined
      ? fc.constantFrom(2 ** 53, 1e21, Number.POSITIVE_INFINITY)
      : fc.integer({ min: max + 1, max: max + 1_000_000 }),
    fc.double({ min, max: max ?? 1e9, noNaN: true, noInteger: true }),
    fc.integer({ min, max: max ?? 1_000_000 }).map(String),
    fc.constantFrom<unknown>(null, Number.NaN, true, [], {})
  )

const badString = fc.constantFrom<unknown>(1, 0, null, true, [], {})
const badLocator = fc.constantFrom<unknown>([], ["a"], "native", 1, true, null)

const badServiceFeeBps = fc.oneof(
  fc.double({ max: -Number.MIN_VALUE, noNaN: true }),
  fc.double({ min: 10000.000001, noNaN: true }),
  fc.constantFrom<unknown>(Number.NaN, "5", true, [], {})
)

type RouteKey = keyof Route

const ROUTE_VIOLATIONS = {
  dataVersion: badUint,
  routeId: badBytes32,
  quoteId: badBytes32,
  sourceNetworkId: badBytes32,
  sourceAssetId: badBytes32,
  destinationNetworkId: badBytes32,
  destinationAssetId: badBytes32,
  sourceChainId: badUintNonNull,
  destinationChainId: badUintNonNull,
  sourceAsset: badHexNonNull(40),
  destinationAsset: badHexNonNull(40),
  sourceVault: badHexNonNull(40),
  destinationVault: badHexNonNull(40),
  sourceRouter: badHexNonNull(40),
  sourceLocator: badLocator,
  destinationLocator: badLocator,
  discoveryStatus: badEnum(["DISCOVERABLE"]),
  executionStatus: badEnum(["OPEN", "PAUSED", "TEMP_UNAVAILABLE"]),
  permitAvailable: badBoolean,
  publicationLane: badEnum(["L1", "L2", "L3", "L4"]),
  publicationRank: badInt(0),
  serviceCategory: badString,
  feeMode: badString,
  serviceFeeBps: badServiceFeeBps,
  sourceTokenDecimals: badInt(0, 78),
  destinationTokenDecimals: badInt(0, 78),
  pricingReferenceId: badBytes32,
  executionGeneration: badBytes32,
  sourceFinalityBlocks: badInt(1),
  settlementWindowSeconds: badInt(1),
  validAfter: badInt(0),
  validUntil: badInt(0),
  policyHash: badBytes32,
  assumptionsHash: badHexNonNull(64),
  legacyRouteId: badHexNonNull(64),
  dailyStatus: badEnum(["OPEN", "CLOSED"]),
  open: badBoolean,
  pricingMode: badEnum(["INDICATIVE_ENVELOPE_REPRICE_AT_PERMIT"]),
  indicativePriceNumeratorRaw: badUint,
  indicativePriceDenominatorRaw: badUint,
  minimumFillInRaw: badUint,
  maxAvailableInRaw: badUint
} satisfies { readonly [K in RouteKey]: fc.Arbitrary<unknown> }

const ROUTE_KEYS = Object.keys(ROUTE_VIOLATIONS) as Array<RouteKey>

/** A Route field and a value that breaks its rule, every field equally likely. */
const routeViolation = fc.oneof(...ROUTE_KEYS.map((key) => ROUTE_VIOLATIONS[key].map((value) => ({ key, value }))))

describe("Schemas: generated valid routes", () => {
  fcTest.prop([routeArb], { numRuns: 150 })("decode strictly and round-trip unchanged", (route) => {
    const decoded = decode(Route, route)
    assert.isTrue(Result.isSuccess(decoded), Result.isFailure(decoded) ? String(decoded.failure) : "")
    if (Result.isSuccess(decoded)) {
      assert.deepStrictEqual(decoded.success, route)
      assert.deepStrictEqual(encode(Route, decoded.success), route)
    }
  })

  fcTest.prop([fc.array(routeArb, { maxLength: 3 })], { numRuns: 60 })(
    "a signed payload of generated routes decodes",
    (routes) => {
      const payload = { ...samples.signedFeedPayload, routes }
      assert.deepStrictEqual(decode(SignedFeedPayload, payload), Result.succeed(payload))
    }
  )
})

describe("Schemas: generated violations are rejected", () => {
  fcTest.prop([routeViolation], { numRuns: 400 })(
    "a Route field with a value breaking its rule is rejected at that field",
    ({ key, value }) => {
      const text = failureText(Route, { ...samples.route, [key]: value })
      assert.isDefined(text, `${key} = ${String(value)} was accepted`)
      assert.include(text, `["${key}"]`)
    }
  )

  fcTest.prop([routeViolation, fc.nat({ max: 1 })], RUNS)(
    "the same inside a signed payload's routes",
    ({ key, value }, index) => {
      const routes = samples.signedFeedPayload.routes.map((r, i) => (i === index ? { ...r, [key]: value } : r))
      const text = failureText(SignedFeedPayload, { ...samples.signedFeedPayload, routes })
      assert.isDefined(text)
      assert.include(text, `["routes"][${index}]["${key}"]`)
    }
  )

  fcTest.prop([routeArb, fc.constantFrom(...ROUTE_KEYS)], RUNS)(
    "a generated route missing any one field is rejected",
    (route, key) => {
      const { [key]: _, ...missing } = route
      void _
      const text = failureText(Route, missing)
      assert.isDefined(text)
      assert.include(text, key)
    }
  )

  fcTest.prop([routeArb, objectKey, jsonObject], { numRuns: 100 })(
    "an unknown key on a generated route is rejected",
    (route, key, value) => {
      fc.pre(!(key in route))
      const text = failureText(Route, { ...route, [key]: value })
      assert.isDefined(text)
      assert.include(text, "excess")
    }
  )
})

describe("Schemas: free-form objects", () => {
  fcTest.prop([jsonObject, jsonObject], RUNS)(
    "locators take any keys and keep them",
    (sourceLocator, destinationLocator) => {
      const route = { ...samples.route, sourceLocator, destinationLocator }
      assert.deepStrictEqual(decode(Route, route), Result.succeed(route))
    }
  )

  fcTest.prop([jsonObject, jsonObject, fc.oneof(fc.constant(null), jsonObject)], { numRuns: 100 })(
    "evidence, execution capacity and payout ceiling take any keys",
    (evidence, executionCapacity, payoutEconomicCeiling) => {
      const execution = {
        ...samples.directExecution,
        pricing: { ...samples.directExecution.pricing, evidence, executionCapacity, payoutEconomicCeiling }
      }
      assert.deepStrictEqual(decode(DirectExecution, execution), Result.succeed(execution))
      const envelope = { ...samples.executionPermitEnvelope, execution }
      const result = decode(ExecutionPermitEnvelope, envelope)
      assert.deepStrictEqual(result, Result.succeed(envelope))
    }
  )

  fcTest.prop([fc.oneof(fc.constant(null), jsonObject)], RUNS)("error diagnostics take any keys", (diagnostics) => {
    const body = { ok: false, error: "SOME_CODE", diagnostics }
    assert.deepStrictEqual(decode(ErrorResponse, body), Result.succeed(body))
  })
})

describe("Schemas: scalar patterns", () => {
  fcTest.prop([fc.bigInt({ min: 0n, max: (1n << 256n) - 1n })], RUNS)(
    "UintStr keeps every value up to 2^256 - 1 as the identical string",
    (n) => {
      const text = n.toString()
      const decoded = decode(UintStr, text)
      assert.deepStrictEqual(decoded, Result.succeed(text))
      if (Result.isSuccess(decoded)) assert.strictEqual(decoded.success, text)
    }
  )

  fcTest.prop([badUintNonNull], RUNS)("UintStr rejects what is not a canonical decimal below 2^256", (value) => {
    assert.isFalse(accepts(UintStr, value), String(value))
  })

  fcTest.prop([anyCase(bytes32), anyCase(addressLower)], RUNS)("Bytes32 and Address accept either hex case", (b, a) => {
    assert.deepStrictEqual(decode(Bytes32, b), Result.succeed(b))
    assert.deepStrictEqual(decode(Address, a), Result.succeed(a))
    assert.isFalse(accepts(Bytes32, a))
    assert.isFalse(accepts(Address, b))
  })

  fcTest.prop([badHexNonNull(64), badHexNonNull(40)], RUNS)("Bytes32 and Address reject other strings", (b, a) => {
    assert.isFalse(accepts(Bytes32, b), String(b))
    assert.isFalse(accepts(Address, a), String(a))
  })
})

// ---------------------------------------------------------------------------
// Permit requests
// ---------------------------------------------------------------------------

const unused = fc.constantFrom<"absent" | "null">("absent", "null")

const sideArb = (side: "payer" | "recipient") =>
  fc.oneof(
    fc.record({ address: anyCase(addressLower), id: unused, loc: unused }).map(({ address, id, loc }) => ({
      [side]: address,
      ...(id === "null" ? { [`${side}AccountId`]: null } : {}),
      ...(loc === "null" ? { [`${side}Locator`]: null } : {})
    })),
    fc.record({ a: unused, id: anyCase(bytes32), locator: jsonObject }).map(({ a, id, locator }) => ({
      ...(a === "null" ? { [side]: null } : {}),
      [`${side}AccountId`]: id,
      [`${side}Locator`]: locator
    }))
  )

const permitRequestArb = fc
  .record({
    quoteId: anyCase(bytes32),
    requestedAmountInRaw: fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }).map(String),
    standard: fc.option(fc.constantFrom("DIRECT", "direct", "ERC-7683", "X9._:-"), { nil: undefined }),
    idempotencyKey: fc.string({ unit: fc.constantFrom(..."abcXYZ019._:-"), minLength: 8, maxLength: 128 }),
    requestSignature: fc.option(fc.string(), { nil: undefined }),
    payer: sideArb("payer"),
    recipient: sideArb("recipient")
  })
  .map(({ payer, recipient, standard, requestSignature, ...rest }) => ({
    ...rest,
    ...(standard === undefined ? {} : { standard }),
    ...(requestSignature === undefined ? {} : { requestSignature }),
    ...payer,
    ...recipient
  }))

describe("Schemas: generated permit requests", () => {
  fcTest.prop([permitRequestArb], RUNS)("requests with one identity form per side decode unchanged", (request) => {
    assert.deepStrictEqual(decode(PermitRequest, request), Result.succeed(request))
  })

  fcTest.prop([
    permitRequestArb,
    fc.constantFrom("payer", "recipient"),
    anyCase(addressLower),
    anyCase(bytes32),
    jsonObject
  ], RUNS)(
    "adding the other identity form to a side is rejected",
    (request, side, address, accountId, locator) => {
      const hasAddress = typeof (request as Record<string, unknown>)[side] === "string"
      const other = hasAddress
        ? { [`${side}AccountId`]: accountId, [`${side}Locator`]: locator }
        : { [side]: address }
      const text = failureText(PermitRequest, { ...request, ...other })
      assert.isDefined(text)
      assert.include(text, side)
    }
  )

  fcTest.prop([permitRequestArb, fc.constantFrom("payer", "recipient"), fc.constantFrom("AccountId", "Locator")], RUNS)(
    "half of the account form is rejected",
    (request, side, half) => {
      const r = { ...request } as Record<string, unknown>
      delete r[side]
      r[`${side}AccountId`] = samples.hex32(0x77)
      r[`${side}Locator`] = { native: "x" }
      delete r[`${side}${half}`]
      assert.isFalse(accepts(PermitRequest, r))
      r[`${side}${half}`] = null
      assert.isFalse(accepts(PermitRequest, r))
    }
  )
})
