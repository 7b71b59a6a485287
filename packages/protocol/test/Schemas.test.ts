import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import {
  DateTime,
  decodeStrict,
  decodeStrictSync,
  PermitCreateRequest,
  PermitRequest,
  Resources,
  Route,
  ScannerHints,
  SignedFeed,
  strictParseOptions,
  toJsonSchema,
  toStandaloneJsonSchema,
  UintStr
} from "../src/index.ts"
import * as samples from "./samples.ts"

type ResourceName = samples.SampleName
const NAMES: ReadonlyArray<ResourceName> = samples.SAMPLE_NAMES

const decode = (schema: Schema.Top, input: unknown) => decodeStrict(schema as Schema.Decoder<unknown>)(input)
const accepts = (schema: Schema.Top, input: unknown) => Result.isSuccess(decode(schema, input))
const issueText = (schema: Schema.Top, input: unknown): string => {
  const result = decode(schema, input)
  assert.isTrue(Result.isFailure(result), "expected a rejection")
  return Result.isFailure(result) ? String(result.failure) : ""
}

const sortKeysDeep = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortKeysDeep)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeysDeep((value as Record<string, unknown>)[k])]))
    : value

/** A deep, mutable copy of a sample. */
const copy = <A>(value: A): any => structuredClone(value)

/** Sets `value` at a path of keys / indices in a copy of `root`. */
const setAt = (root: unknown, path: ReadonlyArray<string | number>, value: unknown): any => {
  const out = copy(root)
  let node = out
  for (const key of path.slice(0, -1)) node = node[key]
  node[path[path.length - 1]!] = value
  return out
}

const getAt = (root: unknown, path: ReadonlyArray<string | number>): any =>
  path.reduce<any>((node, key) => node[key], root)

/** Paths (from each resource) to nested objects that must reject unknown keys. */
const STRICT_NESTED: { readonly [K in ResourceName]: ReadonlyArray<ReadonlyArray<string | number>> } = {
  Route: [],
  SignedFeedPayload: [["routes", 0], ["routes", 1]],
  SignedFeed: [["signedPayload"], ["signedPayload", "routes", 0], ["actionableRoutes", 0], ["routes", 1], [
    "openRoutes",
    0
  ]],
  ActionableRoute: [],
  FeedResponse: [["feed"], ["feed", "signedPayload", "routes", 0]],
  RouteMetrics: [],
  RouteDetailResponse: [["route"], ["metrics"]],
  PermitRequest: [],
  PermitCreateRequest: [],
  PermitRequestMessageResponse: [],
  ExecutionPermit: [],
  DirectExecution: [["inventory"], ["pricing"]],
  ExecutionPermitEnvelope: [["permit"], ["execution"], ["execution", "pricing"], ["execution", "inventory"]],
  ExecutionPermitResponse: [["permit"], ["permit", "permit"], ["permit", "execution", "pricing"]],
  PermitStatusResponse: [["permit"], ["permit", "execution"]],
  ErrorResponse: [],
  SseErrorEvent: [],
  ScannerHints: [
    ["contracts"],
    ["contracts", "facade"],
    ["contracts", "oifModule"],
    ["probe"],
    ["probe", "methods"],
    ["probe", "methods", "isLive"],
    ["probe", "methods", "systemState", "returns", 0],
    ["probe", "steps", 0],
    ["probe", "steps", 2, "call"],
    ["eventDiscovery"],
    ["eventDiscovery", "SourceFillV6"],
    ["eventDiscovery", "SourceFillV6", "indexedFields", 0],
    ["eventDiscovery", "SourceFillV6", "discoveryMapping"],
    ["deterministicDeployment"],
    ["standards"],
    ["standards", "erc7683"],
    ["standards", "oif"]
  ],
  StandardPayloadEncoding: [],
  StandardsManifest: [
    ["router"],
    ["payloadEncoding"],
    ["standards"],
    ["standards", "erc7683"],
    ["standards", "erc7683", "erc165"],
    ["standards", "erc7683", "resolve"],
    ["standards", "erc7683", "resolveExecution"],
    ["standards", "oif", "describeMandate"],
    ["standards", "oif", "payloadEncoding"],
    ["executionInvariant"]
  ],
  SolverDiscovery: [
    ["solverProfile"],
    ["feedTransport"],
    ["permitRequestSigning"],
    ["endpoints"],
    ["standards", 0],
    ["standards", 1],
    ["passiveOnchainDiscovery"]
  ],
  OnchainDiscoveryFingerprint: [
    ["events"],
    ["events", "SourceFillV6"],
    ["events", "SourceFillV6", "discoveryMapping"],
    ["erc7683"],
    ["erc7683", "erc165"],
    ["erc7683", "discoveryMapping"],
    ["oif"],
    ["oif", "erc165"],
    ["deployment"],
    ["chainEvidence", "8453"],
    ["scannerHints"],
    ["scannerHints", "probe", "steps", 8]
  ]
}

describe("Schemas: one valid sample per resource", () => {
  it("covers the 22 resources of the spec's part 2 and section 4, each a key of Resources", () => {
    assert.lengthOf(NAMES, 22)
    assert.deepStrictEqual(Object.keys(samples.samples).sort(), [...NAMES].sort())
    for (const name of NAMES) assert.property(Resources, name)
  })

  for (const name of NAMES) {
    it(`${name}: decodes strictly and round-trips (encode(decode(x)) = x, also through JSON text)`, () => {
      const schema = Resources[name] as Schema.Top
      const sample = samples.samples[name]
      const decoded = decode(schema, sample)
      assert.isTrue(Result.isSuccess(decoded), Result.isFailure(decoded) ? String(decoded.failure) : "")
      if (Result.isSuccess(decoded)) {
        const encoded = Schema.encodeUnknownSync(schema as Schema.Codec<unknown, unknown>)(
          decoded.success,
          strictParseOptions
        )
        assert.deepStrictEqual(encoded, sample)
        // the same JSON text up to key order (encoding writes keys in schema order)
        assert.strictEqual(JSON.stringify(sortKeysDeep(encoded)), JSON.stringify(sortKeysDeep(sample)))
      }
      const viaText = JSON.parse(JSON.stringify(sample))
      assert.deepStrictEqual(decodeStrictSync(schema as Schema.Decoder<unknown>)(viaText), viaText)
    })

    it(`${name}: an unknown key is rejected at the top level and in nested strict objects`, () => {
      const schema = Resources[name] as Schema.Top
      const sample = samples.samples[name]
      const text = issueText(schema, { ...copy(sample), unknownField: 1 })
      assert.include(text, "unknownField")
      for (const path of STRICT_NESTED[name]) {
        const nested = getAt(sample, path)
        assert.isObject(nested, `${name}: ${path.join(".")} is an object in the sample`)
        const input = setAt(sample, path, { ...nested, svcUnknown: true })
        assert.include(issueText(schema, input), "svcUnknown", `${name}: ${path.join(".")}`)
      }
    })

    it(`${name}: decodeStrictSync throws on a non-object`, () => {
      assert.throws(() => decodeStrictSync(Resources[name] as Schema.Decoder<unknown>)("not an object"))
      assert.isFalse(accepts(Resources[name], null))
      assert.isFalse(accepts(Resources[name], []))
    })
  }

  it("unknown keys are never stripped: the lenient default would have accepted them", () => {
    const input = { ...copy(samples.route), extra: 1 }
    assert.isTrue(Result.isSuccess(Schema.decodeUnknownResult(Route)(input)))
    assert.isFalse(accepts(Route, input))
  })

  it("reports every issue, not only the first", () => {
    const text = issueText(Route, { ...copy(samples.route), dataVersion: "01", routeId: "0x1", extra: 1 })
    assert.include(text, "dataVersion")
    assert.include(text, "routeId")
    assert.include(text, "extra")
  })

  it("every field of Route is required", () => {
    for (const key of Object.keys(samples.route)) {
      const { [key]: _, ...missing } = copy(samples.route)
      void _
      assert.include(issueText(Route, missing), key)
    }
  })
})

describe("Schemas: free-form objects accept arbitrary keys", () => {
  // JSON.parse keeps "__proto__" as an ordinary own key
  const anyKeys = JSON.parse(
    "{\"\":1,\"any key\":[null,true,\"x\"],\"😀\":{\"nested\":{\"deep\":\"v\"}},\"__proto__\":2,\"0\":-5}"
  )
  const freeForm: ReadonlyArray<[ResourceName, ReadonlyArray<string | number>]> = [
    ["Route", ["sourceLocator"]],
    ["Route", ["destinationLocator"]],
    ["DirectExecution", ["pricing", "evidence"]],
    ["DirectExecution", ["pricing", "executionCapacity"]],
    ["DirectExecution", ["pricing", "payoutEconomicCeiling"]],
    ["ErrorResponse", ["diagnostics"]],
    ["PermitRequest", ["payerLocator"]],
    ["ScannerHints", ["probe", "steps", 4, "expected"]],
    ["ScannerHints", ["deterministicDeployment", "deploymentBlocks"]],
    ["OnchainDiscoveryFingerprint", ["sourcify", "sourceFillV6Signature"]]
  ]
  for (const [name, path] of freeForm) {
    it(`${name}.${path.join(".")}`, () => {
      const replacement = path[path.length - 1] === "deploymentBlocks" ? { "10": 5, "any chain": 7 } : anyKeys
      const sample = name === "PermitRequest" ? samples.permitRequestAccountForm : samples.samples[name]
      const input = setAt(sample, path, replacement)
      const decoded = decode(Resources[name], input)
      assert.isTrue(Result.isSuccess(decoded), Result.isFailure(decoded) ? String(decoded.failure) : "")
      if (Result.isSuccess(decoded)) assert.deepStrictEqual(getAt(decoded.success, path), replacement)
    })
  }

  it("sourcify of the fingerprint keeps extra upstream keys", () => {
    const input = setAt(samples.onchainDiscoveryFingerprint, ["sourcify", "anotherUpstreamKey"], { x: [1] })
    assert.isTrue(accepts(Resources.OnchainDiscoveryFingerprint, input))
  })

  it("locators must be objects", () => {
    for (const bad of [[], ["a"], "native", 1, true, null]) {
      assert.isFalse(accepts(Route, setAt(samples.route, ["sourceLocator"], bad)), JSON.stringify(bad))
    }
  })
})

describe("Schemas: UintStr", () => {
  const max = (1n << 256n) - 1n

  it("accepts values above 2^53 up to 2^256 - 1 and keeps the identical string", () => {
    for (
      const text of ["0", "1", "9007199254740993", "18446744073709551616", (1n << 128n).toString(), max.toString()]
    ) {
      const result = decode(UintStr, text)
      assert.deepStrictEqual(result, Result.succeed(text))
    }
    const route = setAt(samples.route, ["maxAvailableInRaw"], max.toString())
    const decoded = decodeStrictSync(Route)(route)
    assert.strictEqual(decoded.maxAvailableInRaw, max.toString())
    assert.strictEqual(JSON.stringify(Schema.encodeUnknownSync(Route)(decoded)), JSON.stringify(route))
  })

  it("rejects 2^256, leading zeros, signs, fractions, exponents, hex, whitespace and numbers", () => {
    for (
      const bad of [
        (max + 1n).toString(),
        (1n << 260n).toString(),
        "1".repeat(79),
        "00",
        "01",
        "007",
        "-1",
        "-0",
        "+1",
        "1.0",
        "1.",
        ".5",
        "1e3",
        "0x10",
        "",
        " 1",
        "1 ",
        "١",
        1,
        0,
        1n,
        null
      ]
    ) {
      assert.isFalse(accepts(UintStr, bad), `accepted ${String(bad)}`)
    }
  })
})

describe("Schemas: DateTime", () => {
  it("accepts RFC 3339 date-times with a zone", () => {
    for (
      const good of [
        "2033-05-18T03:33:00Z",
        "2033-05-18T03:33:00.123456Z",
        "2033-05-18t03:33:00z",
        "2033-05-18T03:33:00+05:30",
        "2033-12-31T23:59:59-08:00",
        "2032-02-29T00:00:00Z",
        "2000-02-29T00:00:00Z"
      ]
    ) {
      assert.deepStrictEqual(decode(DateTime, good), Result.succeed(good), good)
    }
  })

  it("rejects days that do not exist, hour 24 and other malformed forms", () => {
    for (
      const bad of [
        "2033-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "2033-02-30T00:00:00Z",
        "2033-04-31T00:00:00Z",
        "2033-02-32T00:00:00Z",
        "2033-13-01T00:00:00Z",
        "2033-00-10T00:00:00Z",
        "2033-01-00T00:00:00Z",
        "2033-01-01T24:00:00Z",
        "2033-01-01T23:60:00Z",
        "2033-01-01T00:00:00",
        "2033-01-01 00:00:00Z",
        "2033-01-01",
        "2033-01-01T00:00:00+0530",
        "yesterday",
        1988150400
      ]
    ) {
      assert.isFalse(accepts(DateTime, bad), String(bad))
    }
  })
})

describe("Schemas: PermitRequest identity rules", () => {
  type State = "absent" | "null" | "value"
  const STATES: ReadonlyArray<State> = ["absent", "null", "value"]
  const values = {
    payer: samples.PAYER,
    payerAccountId: samples.hex32(0xab),
    payerLocator: { native: "So1anaPubKeyExample" },
    recipient: samples.RECIPIENT,
    recipientAccountId: samples.hex32(0xcd),
    recipientLocator: { chain: "tron", address: "T-addr" }
  } as const
  const baseRequest = {
    quoteId: samples.route.quoteId,
    requestedAmountInRaw: "1000",
    idempotencyKey: "identity-rules-01"
  }

  const sideFields = (side: "payer" | "recipient", a: State, id: State, loc: State) => {
    const out: Record<string, unknown> = {}
    const put = (key: keyof typeof values, state: State) => {
      if (state === "null") out[key] = null
      if (state === "value") out[key] = values[key]
    }
    put(side, a)
    put(`${side}AccountId`, id)
    put(`${side}Locator`, loc)
    return out
  }
  /** The rule: an address and nothing else, or account id and locator and no address (null counts as absent). */
  const sideValid = (a: State, id: State, loc: State) =>
    a === "value" ? id !== "value" && loc !== "value" : id === "value" && loc === "value"

  it("all 729 combinations of presence, null and absence follow the rule on both sides", () => {
    let accepted = 0
    for (const pa of STATES) {
      for (const pid of STATES) {
        for (const ploc of STATES) {
          for (const ra of STATES) {
            for (const rid of STATES) {
              for (const rloc of STATES) {
                const request = {
                  ...baseRequest,
                  ...sideFields("payer", pa, pid, ploc),
                  ...sideFields("recipient", ra, rid, rloc)
                }
                const expected = sideValid(pa, pid, ploc) && sideValid(ra, rid, rloc)
                assert.strictEqual(accepts(PermitRequest, request), expected, JSON.stringify(request))
                assert.strictEqual(
                  accepts(PermitCreateRequest, { ...request, requestSignature: "0x00" }),
                  expected,
                  JSON.stringify(request)
                )
                if (expected) accepted++
              }
            }
          }
        }
      }
    }
    // 6 valid states per side: an address with the account fields absent or null (4), the account form
    // with the address absent or null (2)
    assert.strictEqual(accepted, 36)
  })

  it("names the failing side", () => {
    assert.include(issueText(PermitRequest, { ...baseRequest, recipient: samples.RECIPIENT }), "payer")
    assert.include(
      issueText(PermitRequest, {
        ...baseRequest,
        payer: samples.PAYER,
        recipient: samples.RECIPIENT,
        recipientAccountId: samples.hex32(1)
      }),
      "recipient"
    )
    assert.include(
      issueText(PermitRequest, { ...baseRequest, payerLocator: { a: 1 }, recipient: samples.RECIPIENT }),
      "payerAccountId"
    )
  })

  it("checks the field formats of a request", () => {
    const good = copy(samples.permitRequest)
    for (
      const [key, bad] of [
        ["quoteId", "0x12"],
        ["requestedAmountInRaw", "01"],
        ["requestedAmountInRaw", 100],
        ["standard", "-DIRECT"],
        ["standard", "S".repeat(65)],
        ["payer", "0x12"],
        ["recipient", samples.RECIPIENT.slice(0, -1)],
        ["idempotencyKey", "short"],
        ["idempotencyKey", "k".repeat(129)],
        ["idempotencyKey", "has space"],
        ["requestSignature", 5]
      ] as const
    ) {
      assert.isFalse(accepts(PermitRequest, { ...good, [key]: bad }), `${key}=${String(bad)}`)
    }
    assert.isTrue(accepts(PermitRequest, { ...good, standard: "erc-7683" }), "lowercase standard is a valid spelling")
    assert.isTrue(accepts(PermitRequest, { ...good, idempotencyKey: "k".repeat(128) }))
    const { standard: _, ...noStandard } = good
    void _
    assert.isTrue(accepts(PermitRequest, noStandard), "standard is optional")
  })

  it("PermitCreateRequest requires a non-empty requestSignature; PermitRequest does not", () => {
    const { requestSignature, ...unsigned } = copy(samples.permitCreateRequest)
    assert.isTrue(accepts(PermitCreateRequest, samples.permitCreateRequest))
    assert.include(issueText(PermitCreateRequest, unsigned), "requestSignature")
    assert.isFalse(accepts(PermitCreateRequest, { ...unsigned, requestSignature: "" }))
    assert.isFalse(accepts(PermitCreateRequest, { ...unsigned, requestSignature: null }))
    assert.isTrue(accepts(PermitRequest, unsigned))
    assert.isTrue(accepts(PermitRequest, { ...unsigned, requestSignature }))
  })
})

describe("Schemas: limits of the feed and the scanner hints", () => {
  it("ScannerHints needs exactly 9 probe steps", () => {
    const steps = samples.scannerHints.probe.steps
    assert.lengthOf(steps, 9)
    assert.isTrue(accepts(ScannerHints, samples.scannerHints))
    assert.isFalse(accepts(ScannerHints, setAt(samples.scannerHints, ["probe", "steps"], steps.slice(0, 8))))
    assert.isFalse(accepts(ScannerHints, setAt(samples.scannerHints, ["probe", "steps"], [...steps, steps[8]])))
    assert.isFalse(accepts(ScannerHints, setAt(samples.scannerHints, ["probe", "steps"], [])))
    const fingerprint = setAt(samples.onchainDiscoveryFingerprint, ["scannerHints", "probe", "steps"], steps.slice(1))
    assert.isFalse(accepts(Resources.OnchainDiscoveryFingerprint, fingerprint))
  })

  it("probe step fields keep their rules", () => {
    for (
      const [path, bad] of [
        [["probe", "steps", 0, "order"], 0],
        [["probe", "steps", 0, "transport"], "WEBSOCKET"],
        [["probe", "steps", 0, "rpcMethod"], "eth_sendTransaction"],
        [["probe", "steps", 8, "method"], "POST"],
        [["probe", "steps", 7, "topics", 0], "0x12"],
        [["probe", "methods", "isLive", "stateMutability"], "nonpayable"],
        [["probe", "methods", "isLive", "selector"], "0x1234"],
        [["probe", "executedBySvc"], true],
        [["eventDiscovery", "SourceFillV6", "indexedFields", 0, "topicPosition"], 4],
        [["eventDiscovery", "SourceFillV6", "indexedTopicPositions", "fillId"], 0],
        [["eventDiscovery", "SourceFillV6", "discoveryMapping", "discoveryURI"], "not a uri"],
        [["deterministicDeployment", "method"], "CREATE"],
        [["contracts", "router", "sameAddressAcrossChains"], false],
        [["deploymentVersion"], 5]
      ] as const
    ) {
      assert.isFalse(accepts(ScannerHints, setAt(samples.scannerHints, path, bad)), path.join("."))
    }
  })

  it("actionableRoutes holds at most 10 items", () => {
    const ten = Array.from({ length: 10 }, () => samples.actionableRoute)
    assert.isTrue(accepts(SignedFeed, setAt(samples.signedFeed, ["actionableRoutes"], ten)))
    assert.include(
      issueText(SignedFeed, setAt(samples.signedFeed, ["actionableRoutes"], [...ten, samples.actionableRoute])),
      "actionableRoutes"
    )
    assert.isTrue(accepts(SignedFeed, setAt(samples.signedFeed, ["actionableRoutes"], [])))
  })

  it("publicationTransactionHashes must be empty and publicationGasWei the string 0", () => {
    assert.include(
      issueText(SignedFeed, setAt(samples.signedFeed, ["publicationTransactionHashes"], [samples.hex32(1)])),
      "publicationTransactionHashes"
    )
    for (const bad of ["00", "1", 0, "", null]) {
      assert.include(issueText(SignedFeed, setAt(samples.signedFeed, ["publicationGasWei"], bad)), "publicationGasWei")
    }
  })

  it("the constants of the feed, the permit envelope and the discovery documents", () => {
    const cases: ReadonlyArray<[ResourceName, ReadonlyArray<string | number>, unknown]> = [
      ["SignedFeed", ["schema"], "SVC_MAINNET_V6_SIGNED_FEED_V2"],
      ["SignedFeed", ["signedPayload", "schema"], "svc_mainnet_v6_signed_feed_v1"],
      ["SignedFeed", ["feedSignature"], `${samples.signedFeed.feedSignature}00`],
      ["SignedFeed", ["feedSigner"], "0x12"],
      ["SignedFeed", ["routeCount"], -1],
      ["SignedFeed", ["returnedOpenRouteCount"], 1.5],
      ["SignedFeed", ["generatedAt"], -1],
      ["FeedResponse", ["ok"], false],
      ["RouteDetailResponse", ["ok"], "true"],
      ["RouteMetrics", ["source"], "OTHER"],
      ["RouteMetrics", ["paid"], -1],
      ["RouteMetrics", ["permitConversionRate"], -0.5],
      ["RouteMetrics", ["updatedAt"], "yesterday"],
      ["ActionableRoute", ["indicativeNotionalUsd"], "1,000"],
      ["ActionableRoute", ["estimatedSourceGasUsd"], "-1"],
      ["ActionableRoute", ["expectedEdgeAfterSourceGasBps"], "01.5"],
      ["ActionableRoute", ["economicsObservedAt"], "2033-02-30T00:00:00Z"],
      ["ActionableRoute", ["economicsValidUntil"], "2033-05-18 03:38:00"],
      ["ExecutionPermit", ["validUntil"], 2000000120],
      ["ExecutionPermit", ["sourceFinalityBlocks"], 0],
      ["ExecutionPermit", ["publicationLane"], "L5"],
      ["ExecutionPermit", ["payer"], null],
      ["DirectExecution", ["schema"], "SVC_V6_DIRECT_EXECUTION_V2"],
      ["DirectExecution", ["function"], "fill"],
      ["DirectExecution", ["transactionCount"], 2],
      ["DirectExecution", ["inventory", "source"], "LIVE"],
      ["DirectExecution", ["inventory", "ageMs"], -1],
      ["DirectExecution", ["pricing", "pricingMode"], "INDICATIVE"],
      ["DirectExecution", ["pricing", "evidence"], null],
      ["ExecutionPermitEnvelope", ["totalTransactionCount"], 3],
      ["ExecutionPermitEnvelope", ["permitSignature"], "0x12"],
      ["ExecutionPermitEnvelope", ["sourceTxHash"], "0x12"],
      ["ExecutionPermitEnvelope", ["expiresAt"], "2000000120"],
      ["ExecutionPermitResponse", ["idempotent"], "no"],
      ["PermitStatusResponse", ["ok"], false],
      ["PermitRequestMessageResponse", ["message"], 5],
      ["ErrorResponse", ["ok"], true],
      ["ErrorResponse", ["reasonCodes"], [1]],
      ["SseErrorEvent", ["error"], null],
      ["StandardPayloadEncoding", ["mediaType"], "application/json"],
      ["StandardPayloadEncoding", ["tuple"], ["SvcMainnetV6Types.ExecutionPermit permit"]],
      ["StandardPayloadEncoding", ["tuple", 1], "bytes signature"],
      ["StandardsManifest", ["executionInvariant", "totalTransactions"], 3],
      ["StandardsManifest", ["standards", "oif", "compatibilityLevel"], "EXECUTABLE"],
      ["StandardsManifest", ["standards", "erc7683", "resolve", "stepCount"], 2],
      ["SolverDiscovery", ["schema"], "SVC_MAINNET_V6_SOLVER_DISCOVERY_V1"],
      ["SolverDiscovery", ["activationRequired"], true],
      ["SolverDiscovery", ["endpoints", "solverFeed"], "/api/v6/solver-feed"],
      ["SolverDiscovery", ["standards"], [samples.solverDiscovery.standards[0]]],
      ["SolverDiscovery", ["solverProfile", "executionScopes", 0], "ANY"],
      ["OnchainDiscoveryFingerprint", ["oif", "executable"], true],
      ["OnchainDiscoveryFingerprint", ["chainEvidence", "56", "deploymentBlockNumber"], -1],
      ["OnchainDiscoveryFingerprint", ["selectors", "isLive"], "0xb8f7a6"]
    ]
    for (const [name, path, bad] of cases) {
      assert.isFalse(accepts(Resources[name], setAt(samples.samples[name], path, bad)), `${name}.${path.join(".")}`)
    }
  })

  it("Route ranges: boundaries in and just outside", () => {
    const cases: ReadonlyArray<[string, ReadonlyArray<unknown>, ReadonlyArray<unknown>]> = [
      ["sourceTokenDecimals", [0, 78], [-1, 79, 6.5]],
      ["destinationTokenDecimals", [0, 78], [-1, 79]],
      ["serviceFeeBps", [0, 10000, 0.5, 9999.99, null], [-0.01, 10000.01, 10001]],
      ["publicationRank", [0, Number.MAX_SAFE_INTEGER], [-1, 2 ** 53, 0.5]],
      ["sourceFinalityBlocks", [1, 64], [0, -1, 1.5]],
      ["settlementWindowSeconds", [1], [0]],
      ["validAfter", [0, Number.MAX_SAFE_INTEGER], [-1, 2 ** 53]],
      ["validUntil", [0], [-1, 0.5]]
    ]
    for (const [key, good, bad] of cases) {
      for (const value of good) {
        assert.isTrue(accepts(Route, setAt(samples.route, [key], value)), `${key}=${String(value)}`)
      }
      for (const value of bad) {
        assert.isFalse(accepts(Route, setAt(samples.route, [key], value)), `${key}=${String(value)}`)
      }
    }
  })

  it("optional fields of RouteMetrics and ErrorResponse may be left out", () => {
    assert.isTrue(
      accepts(Resources.RouteMetrics, {
        telemetryAvailable: false,
        permitConversionRate: null,
        fillConversionRate: null
      })
    )
    assert.isFalse(accepts(Resources.RouteMetrics, { telemetryAvailable: false, permitConversionRate: null }))
    assert.isTrue(accepts(Resources.ErrorResponse, { ok: false, error: "NOT_FOUND" }))
    assert.isTrue(accepts(Resources.ErrorResponse, { ok: false, error: "NOT_FOUND", diagnostics: null }))
  })
})

describe("Schemas: JSON Schema export", () => {
  const standalone = toStandaloneJsonSchema(Route) as {
    $schema: string
    $ref?: string
    $defs: Record<string, Record<string, unknown>>
  } & Record<string, unknown>
  const resolve = (node: Record<string, unknown>): Record<string, unknown> =>
    typeof node.$ref === "string" ? standalone.$defs[node.$ref.replace("#/$defs/", "")]! : node
  const routeSchema = resolve(standalone)

  it("is a draft 2020-12 document whose Route rejects additional properties", () => {
    assert.strictEqual(standalone.$schema, "https://json-schema.org/draft/2020-12/schema")
    assert.strictEqual(routeSchema.type, "object")
    assert.strictEqual(routeSchema.additionalProperties, false)
  })

  it("lists all 42 Route fields as required", () => {
    const required = routeSchema.required as Array<string>
    assert.lengthOf(required, 42)
    assert.deepStrictEqual([...required].sort(), Object.keys(samples.route).sort())
    assert.deepStrictEqual(Object.keys(routeSchema.properties as object).sort(), Object.keys(samples.route).sort())
  })

  it("keeps the scalar patterns under $defs and refers to them", () => {
    assert.strictEqual(standalone.$defs.Bytes32!.pattern, "^0x[0-9a-fA-F]{64}$")
    assert.strictEqual(standalone.$defs.Address!.pattern, "^0x[0-9a-fA-F]{40}$")
    assert.strictEqual(standalone.$defs.UintStr!.pattern, "^(?:0|[1-9][0-9]*)$")
    const properties = routeSchema.properties as Record<string, Record<string, unknown>>
    assert.strictEqual(properties.routeId!.$ref, "#/$defs/Bytes32")
    assert.deepStrictEqual(properties.discoveryStatus, { type: "string", enum: ["DISCOVERABLE"] })
    // locators are free-form objects
    const locator = resolve(properties.sourceLocator!)
    assert.strictEqual(locator.type, "object")
    assert.notStrictEqual(locator.additionalProperties, false)
  })

  it("every resource exports a JSON Schema", () => {
    for (const name of NAMES) {
      const doc = toJsonSchema(Resources[name])
      assert.isObject(doc.schema, name)
      const json = JSON.stringify(toStandaloneJsonSchema(Resources[name]))
      assert.include(json, "\"additionalProperties\":false", name)
    }
  })
})
