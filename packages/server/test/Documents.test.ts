/**
 * The discovery documents (`src/documents/`): schema validity, every derived value
 * against an independent computation (viem's selector, topic and CREATE2 helpers,
 * or keccak sliced by hand, and the values published upstream), the endpoints as
 * literal URLs, the demo placeholders, each configuration error as a typed
 * `DocumentsInvalid` naming its field, and a property over generated valid
 * configurations.
 */
import { assert, describe, it } from "@effect/vitest"
import { fc, test } from "@fast-check/vitest"
import {
  decodeStrict,
  Onchain,
  OnchainDiscoveryFingerprint,
  PermitMessage,
  SolverDiscovery,
  StandardsManifest
} from "@svc/protocol"
import { Result, type Schema } from "effect"
import { concat, getAddress, getContractAddress, keccak256, toBytes, toEventSelector, toFunctionSelector } from "viem"
import * as Endpoints from "../src/documents/Endpoints.ts"
import * as Documents from "../src/documents/index.ts"

type Hex = `0x${string}`

const ROUTER = "0x2Af7d059E5efdBe1D2A234B78DF91E948ee22Ee2"
const CHAINS = [8453, 56, 999]
const SIGNER = "0xcC2EC811171Ff13A707963157d0F4166594bFa73"
const PUBLIC_URL = "https://solver.example.org/base"

// Independent recomputation: keccak of the UTF-8 text, sliced by hand.
const utf8Keccak = (text: string): Hex => keccak256(toBytes(text))
const selector = (signature: string): Hex => utf8Keccak(signature).slice(0, 10) as Hex
const xor4 = (a: string, b: string): Hex => `0x${(BigInt(a) ^ BigInt(b)).toString(16).padStart(8, "0")}`
const create2 = (factory: string, salt: string, initCodeHash: string): Hex =>
  getAddress(`0x${keccak256(concat(["0xff", factory as Hex, salt as Hex, initCodeHash as Hex])).slice(-40)}`)

/** Values published upstream (brand-free, so they hold for svc unchanged). */
const UPSTREAM = {
  facade: {
    discoveryURI: "0x5b9b12c1",
    isLive: "0xb8f7a665",
    systemState: "0x991292e3",
    routeCount: "0xbf539cb4",
    routeAt: "0xd7194164",
    route: "0x95bc81be"
  },
  topic0: "0x77d880254b141dedc64867f6d2d253eedfc609837b892c4ddfe154a43ea80561",
  standardId: "0x6838c23c",
  supportsInterface: "0x01ffc9a7",
  resolve: "0xe4056186",
  resolveExecution: "0xe55814c5",
  router: "0xf887ea40",
  compatibilityLevel: "0x4658e14b",
  describeMandate: "0xd3528a0f",
  moduleInterfaceId: "0x8d60d6f9",
  erc7683StandardId: "0x27ecffeeec898dbaf864fc095016ad6212d7a27e32a3069234a4a1da23f50993",
  oifStandardId: "0x3de00a2eccd5b86df839b3747bda483b2de2a855d640eb3d4938d6d43cb162c0",
  oifCompatibilityLevelId: "0x733ae58d730378b55d837e45d20e05882481ab7715890fd971ee75f1cd63643c",
  releaseId: "0xb5115358e9045400030f2f70150cdb65f2fa9bbb8def79319cf4caac9c3490da",
  salt: "0x1ef1dfed1bcc3525e588ba9054fcd502b8b69ae550ac3e2aa6c0f206ddf3e0ca"
} as const

const SOURCE_FILL_SIGNATURE =
  "SourceFillV6(bytes32,bytes32,bytes32,address,address,address,address,uint256,uint128,uint128,uint32,uint64,bytes32,bytes32)"

const demo = Documents.demoOnchainConfig(ROUTER, CHAINS)
const input = (onchain: Documents.OnchainConfig = demo, publicUrl: string = PUBLIC_URL): Documents.DocumentsInput => ({
  publicUrl,
  feedSigner: SIGNER,
  releaseId: Documents.DEMO_RELEASE_ID,
  onchain
})
const buildOk = (onchain?: Documents.OnchainConfig, publicUrl?: string): Documents.Documents => {
  const result = Documents.build(input(onchain, publicUrl))
  if (Result.isFailure(result)) assert.fail(result.failure.message)
  return result.success
}
/** The failure message of a build that must fail with DocumentsInvalid. */
const failure = (built: Result.Result<Documents.Documents, Documents.DocumentsInvalid>): string => {
  if (Result.isSuccess(built)) return assert.fail("expected a DocumentsInvalid")
  assert.instanceOf(built.failure, Documents.DocumentsInvalid)
  assert.strictEqual(built.failure._tag, "DocumentsInvalid")
  assert.notInclude(built.failure.message, "\n", "one line")
  return built.failure.message
}
const failureOf = (onchain: unknown, publicUrl?: string) =>
  failure(Documents.build(input(onchain as Documents.OnchainConfig, publicUrl)))

const bytes = Documents.serialize(buildOk())
const text = {
  solverManifest: new TextDecoder("utf-8", { fatal: true }).decode(bytes.solverManifest),
  onchainDiscovery: new TextDecoder("utf-8", { fatal: true }).decode(bytes.onchainDiscovery),
  standards: new TextDecoder("utf-8", { fatal: true }).decode(bytes.standards)
}
const parsed = {
  solverManifest: JSON.parse(text.solverManifest) as SolverDiscovery,
  onchainDiscovery: JSON.parse(text.onchainDiscovery) as OnchainDiscoveryFingerprint,
  standards: JSON.parse(text.standards) as StandardsManifest
}
const fp = parsed.onchainDiscovery
const hints = fp.scannerHints
const manifest = parsed.solverManifest
const std = parsed.standards

/** The demo facade, computed here from the documented CREATE2 inputs (viem). */
const DEMO_FACADE = getContractAddress({
  opcode: "CREATE2",
  from: "0x4e59b44847b379578588920cA78FbF26c0B4956C",
  salt: UPSTREAM.salt,
  bytecodeHash: utf8Keccak("svc demo facade init code")
})

const accepts = (schema: Schema.Top, value: unknown) => {
  const result = decodeStrict(schema as Schema.Decoder<unknown>)(value)
  return Result.isSuccess(result) ? "ok" : String(result.failure)
}

/** Every selector map of a document agrees with its signatures (recomputed here). */
const checkSelectorMap = (selectors: Record<string, string>, signatures: Record<string, string>) => {
  assert.deepStrictEqual(Object.keys(selectors).sort(), Object.keys(signatures).sort())
  for (const [key, signature] of Object.entries(signatures)) {
    assert.strictEqual(selectors[key], selector(signature), `${key}: ${signature}`)
  }
}

describe("Documents: schemas and serialization", () => {
  it("each serialized document decodes strictly with its protocol schema", () => {
    assert.strictEqual(accepts(SolverDiscovery, parsed.solverManifest), "ok")
    assert.strictEqual(accepts(OnchainDiscoveryFingerprint, parsed.onchainDiscovery), "ok")
    assert.strictEqual(accepts(StandardsManifest, parsed.standards), "ok")
  })

  it("the serialized documents carry independently computed values", () => {
    // selectors: viem's toFunctionSelector of the literal signatures
    assert.deepStrictEqual(fp.selectors, {
      discoveryURI: toFunctionSelector("discoveryURI()"),
      isLive: toFunctionSelector("isLive()"),
      systemState: toFunctionSelector("systemState()"),
      routeCount: toFunctionSelector("routeCount()"),
      routeAt: toFunctionSelector("routeAt(uint256)"),
      route: toFunctionSelector("route(bytes32)")
    })
    assert.deepStrictEqual(std.standards.erc7683.selectors, {
      standardId: toFunctionSelector("standardId()"),
      supportsInterface: toFunctionSelector("supportsInterface(bytes4)"),
      resolve: toFunctionSelector("resolve(bytes)"),
      resolveExecution: toFunctionSelector("resolveExecution(bytes)"),
      router: toFunctionSelector("router()")
    })
    assert.deepStrictEqual(std.standards.oif.selectors, {
      standardId: toFunctionSelector("standardId()"),
      supportsInterface: toFunctionSelector("supportsInterface(bytes4)"),
      compatibilityLevel: toFunctionSelector("compatibilityLevel()"),
      resolveExecution: toFunctionSelector("resolveExecution(bytes)"),
      describeMandate: toFunctionSelector("describeMandate(bytes)"),
      router: toFunctionSelector("router()")
    })
    // topic0: viem's toEventSelector of the literal event signature
    const topic0 = toEventSelector(SOURCE_FILL_SIGNATURE)
    assert.strictEqual(fp.events.SourceFillV6.topic0, topic0)
    assert.strictEqual(hints.eventDiscovery.SourceFillV6.topic0, topic0)
    assert.strictEqual(fp.sourcify.sourceFillV6Signature.topic0, topic0)
    assert.deepStrictEqual(hints.probe.steps[7]!.topics, [topic0])
    // CREATE2: viem's getContractAddress of the documented inputs
    assert.strictEqual(fp.facade, DEMO_FACADE)
    assert.strictEqual(fp.deployment.expectedFacadeAddress, DEMO_FACADE)
    assert.strictEqual(manifest.passiveOnchainDiscovery.facadeAddress, DEMO_FACADE)
    // endpoints: literal URLs
    assert.strictEqual(manifest.endpoints.manifest, "https://solver.example.org/base/.well-known/svc-solver.json")
    assert.strictEqual(
      manifest.endpoints.routeDetailTemplate,
      "https://solver.example.org/base/api/v6/routes/{routeId}"
    )
    assert.strictEqual(fp.discoveryURI, "https://solver.example.org/base/.well-known/svc-solver.json")
  })

  it("serializes as UTF-8 JSON with 2-space indentation and a final line feed", () => {
    for (const [name, body] of Object.entries(text)) {
      assert.isTrue(body.startsWith("{\n  \"schema\": \"SVC_MAINNET_V6_"), name)
      assert.isTrue(body.endsWith("\n}\n"), name)
      assert.notInclude(body, "\r", name)
    }
    assert.instanceOf(bytes.solverManifest, Uint8Array)
  })

  it("every manifest endpoint names an operation of the HTTP contract", () => {
    assert.isTrue(Result.isSuccess(Endpoints.ENDPOINT_PATHS))
    assert.strictEqual(Endpoints.uriTemplate("/api/v6/execution-permits/:fillId"), "/api/v6/execution-permits/{fillId}")
    assert.strictEqual(Endpoints.uriTemplate("/a/:x/b/:y_z"), "/a/{x}/b/{y_z}")
  })
})

describe("Onchain constants (@svc/protocol)", () => {
  it("are derived from their signatures and labels", () => {
    assert.strictEqual(Onchain.PROTOCOL, "Svc V6")
    assert.strictEqual(Onchain.SOURCE_FILL_V6_SIGNATURE, SOURCE_FILL_SIGNATURE)
    assert.strictEqual(Onchain.SOURCE_FILL_V6_TOPIC0, toEventSelector(SOURCE_FILL_SIGNATURE))
    assert.strictEqual(Onchain.ERC165_INTERFACE_ID, "0x01ffc9a7")
    assert.strictEqual(Onchain.STANDARD_MODULE_INTERFACE_ID, UPSTREAM.moduleInterfaceId)
    assert.deepStrictEqual(Onchain.STANDARD_IDS, { erc7683: UPSTREAM.erc7683StandardId, oif: UPSTREAM.oifStandardId })
    assert.strictEqual(Onchain.OIF_COMPATIBILITY_LEVEL_ID, UPSTREAM.oifCompatibilityLevelId)
    assert.strictEqual(Onchain.FACADE_SALT, UPSTREAM.salt)
    assert.strictEqual(Onchain.labelHash("SVC_MAINNET_V6"), UPSTREAM.releaseId)
    assert.strictEqual(
      Onchain.create2Address({
        factory: Onchain.CREATE2_FACTORY,
        salt: UPSTREAM.salt,
        initCodeHash: utf8Keccak("svc demo facade init code")
      }),
      DEMO_FACADE
    )
    assert.deepStrictEqual(Onchain.selectorMaps({ b: "isLive()", a: "route(bytes32)" }), {
      selectors: { b: toFunctionSelector("isLive()"), a: toFunctionSelector("route(bytes32)") },
      selectorSignatures: { b: "isLive()", a: "route(bytes32)" }
    })
    assert.strictEqual(Onchain.PAYOUT_V6.signature, "PayoutV6(bytes32,address,address,uint128)")
    assert.strictEqual(Onchain.PAYOUT_V6.topic0, toEventSelector("PayoutV6(bytes32,address,address,uint128)"))
  })
})

describe("Documents: the on-chain configuration", () => {
  it("the demo configuration is itself a valid configuration document", () => {
    const json = JSON.parse(JSON.stringify(demo))
    const decoded = Documents.decodeOnchainConfig(json)
    assert.isTrue(Result.isSuccess(decoded))
    assert.deepStrictEqual(Result.getOrThrow(decoded), json)
  })

  it("decoding is strict, never throws, and names every offending field on one line", () => {
    const messageOf = (value: unknown) => {
      const decoded = Documents.decodeOnchainConfig(value)
      if (Result.isSuccess(decoded)) return assert.fail("expected a failure")
      assert.instanceOf(decoded.failure, Documents.DocumentsInvalid)
      assert.notInclude(decoded.failure.message, "\n")
      return decoded.failure.message
    }
    assert.match(messageOf({ ...demo, extra: 1 }), /invalid on-chain configuration: extra: /)
    assert.match(messageOf({ ...demo, router: "0x12" }), /router: /)
    assert.match(
      messageOf({
        ...demo,
        chainEvidence: { ...demo.chainEvidence, "56": { ...demo.chainEvidence["56"]!, explorer: "nope" } }
      }),
      /chainEvidence\.56\.explorer: /
    )
    const many = messageOf({ facade: "nope" })
    for (const field of ["chains", "facade", "registry", "router", "deployment", "chainEvidence", "placeholder"]) {
      assert.include(many, `${field}: `, field)
    }
    assert.match(messageOf(null), /invalid on-chain configuration/)
  })
})

describe("Documents: computed values", () => {
  it("facade selectors and the probe methods match the signatures and the upstream values", () => {
    checkSelectorMap(fp.selectors, fp.selectorSignatures)
    assert.deepStrictEqual(fp.selectors, UPSTREAM.facade)
    assert.deepStrictEqual(fp.selectorSignatures, {
      discoveryURI: "discoveryURI()",
      isLive: "isLive()",
      systemState: "systemState()",
      routeCount: "routeCount()",
      routeAt: "routeAt(uint256)",
      route: "route(bytes32)"
    })
    for (const [key, method] of Object.entries(hints.probe.methods)) {
      assert.strictEqual(method.selector, selector(method.signature), key)
      assert.strictEqual(method.selector, UPSTREAM.facade[key as keyof typeof UPSTREAM.facade], key)
      assert.strictEqual(method.address, DEMO_FACADE)
      // every probed facade function is a view (the reference facade stores the URI)
      assert.strictEqual(method.stateMutability, "view", key)
    }
    assert.lengthOf(hints.probe.methods.systemState.returns, 6)
  })

  it("SourceFillV6 topic0 is keccak256 of its signature and equals the upstream topic", () => {
    const event = fp.events.SourceFillV6
    assert.strictEqual(event.signature, SOURCE_FILL_SIGNATURE)
    assert.strictEqual(event.topic0, utf8Keccak(SOURCE_FILL_SIGNATURE))
    assert.strictEqual(event.topic0, UPSTREAM.topic0)
    assert.lengthOf(event.fields, 14)
    assert.deepStrictEqual(event.indexed, ["fillId", "routeId", "quoteId"])
    assert.deepStrictEqual(event.indexedTopicPositions, { fillId: 1, routeId: 2, quoteId: 3 })
    assert.deepStrictEqual(event.indexedFields, [
      { name: "fillId", type: "bytes32", topicPosition: 1 },
      { name: "routeId", type: "bytes32", topicPosition: 2 },
      { name: "quoteId", type: "bytes32", topicPosition: 3 }
    ])
    const nonIndexed = [
      "payer",
      "recipient",
      "sourceAsset",
      "destinationAsset",
      "destinationChainId",
      "amountInRaw",
      "amountOutRaw",
      "sourceFinalityBlocks",
      "settlementDeadline",
      "permitNonce",
      "executionGeneration"
    ]
    assert.deepStrictEqual(event.nonIndexed, nonIndexed)
    assert.deepStrictEqual(event.fields, ["fillId", "routeId", "quoteId", ...nonIndexed])
    assert.strictEqual(event.address, ROUTER)
    const mapping = { router: ROUTER, facade: DEMO_FACADE, discoveryURI: `${PUBLIC_URL}/.well-known/svc-solver.json` }
    assert.deepStrictEqual(event.discoveryMapping, mapping)
    const hinted = hints.eventDiscovery.SourceFillV6
    assert.strictEqual(hinted.emittingContract, "SvcMainnetRouterV6")
    assert.strictEqual(hinted.signature, SOURCE_FILL_SIGNATURE)
    assert.deepStrictEqual(hinted.nonIndexedFields, nonIndexed)
    assert.deepStrictEqual(hinted.discoveryMapping, mapping)
  })

  it("ERC-7683 and OIF selectors, standard ids and interface ids are computed and equal upstream", () => {
    const moduleInterfaceId = xor4(selector("standardId()"), selector("resolveExecution(bytes)"))
    assert.strictEqual(moduleInterfaceId, UPSTREAM.moduleInterfaceId)
    assert.strictEqual(selector("supportsInterface(bytes4)"), UPSTREAM.supportsInterface)
    assert.strictEqual(utf8Keccak("ERC-7683"), UPSTREAM.erc7683StandardId)
    assert.strictEqual(utf8Keccak("OIF"), UPSTREAM.oifStandardId)
    assert.strictEqual(utf8Keccak("DISCOVERY_DESCRIPTION_ONLY"), UPSTREAM.oifCompatibilityLevelId)

    // fingerprint
    checkSelectorMap(fp.erc7683.selectors, fp.erc7683.selectorSignatures)
    checkSelectorMap(fp.oif.selectors, fp.oif.selectorSignatures)
    assert.deepStrictEqual(fp.erc7683.selectors, {
      standardId: UPSTREAM.standardId,
      supportsInterface: UPSTREAM.supportsInterface,
      resolve: UPSTREAM.resolve,
      resolveExecution: UPSTREAM.resolveExecution,
      router: UPSTREAM.router
    })
    assert.deepStrictEqual(fp.oif.selectors, {
      standardId: UPSTREAM.standardId,
      supportsInterface: UPSTREAM.supportsInterface,
      compatibilityLevel: UPSTREAM.compatibilityLevel,
      resolveExecution: UPSTREAM.resolveExecution,
      describeMandate: UPSTREAM.describeMandate,
      router: UPSTREAM.router
    })
    for (const erc165 of [fp.erc7683.erc165, fp.oif.erc165]) {
      assert.strictEqual(erc165.erc165InterfaceId, UPSTREAM.supportsInterface)
      assert.strictEqual(erc165.svcStandardModuleV6InterfaceId, moduleInterfaceId)
    }
    assert.strictEqual(fp.erc7683.erc165.resolverDetection, "standardId()+resolve(bytes)")
    assert.strictEqual(fp.erc7683.standardId, UPSTREAM.erc7683StandardId)
    assert.strictEqual(fp.oif.standardId, UPSTREAM.oifStandardId)
    assert.strictEqual(fp.oif.compatibilityLevel, UPSTREAM.oifCompatibilityLevelId)
    assert.strictEqual(fp.oif.compatibilityLevelName, "DISCOVERY_DESCRIPTION_ONLY")

    // scanner hints
    for (const standard of [hints.standards.erc7683, hints.standards.oif]) {
      checkSelectorMap(standard.selectors, standard.selectorSignatures)
      assert.deepStrictEqual(standard.erc165InterfaceIds, [UPSTREAM.supportsInterface, moduleInterfaceId])
    }
    assert.strictEqual(hints.standards.erc7683.standardId, UPSTREAM.erc7683StandardId)
    assert.strictEqual(hints.standards.oif.standardId, UPSTREAM.oifStandardId)
    assert.strictEqual(hints.standards.oif.compatibilityLevel, UPSTREAM.oifCompatibilityLevelId)
    assert.strictEqual(hints.standards.oif.executable, false)

    // standards manifest
    const { erc7683, oif } = std.standards
    checkSelectorMap(erc7683.selectors, erc7683.selectorSignatures)
    checkSelectorMap(oif.selectors, oif.selectorSignatures)
    assert.deepStrictEqual(erc7683.erc165.interfaceIds, [UPSTREAM.supportsInterface, UPSTREAM.moduleInterfaceId])
    assert.deepStrictEqual(oif.erc165.interfaceIds, [UPSTREAM.supportsInterface, UPSTREAM.moduleInterfaceId])
    assert.strictEqual(erc7683.standardId, UPSTREAM.erc7683StandardId)
    assert.strictEqual(oif.standardId, UPSTREAM.oifStandardId)
    assert.strictEqual(oif.compatibilityLevelId, UPSTREAM.oifCompatibilityLevelId)
    assert.strictEqual(erc7683.resolve!.selector, UPSTREAM.resolve)
    assert.strictEqual(erc7683.resolve!.selector, selector(erc7683.resolve!.signature))
    assert.strictEqual(erc7683.resolveExecution.selector, UPSTREAM.resolveExecution)
    assert.strictEqual(oif.resolveExecution.selector, UPSTREAM.resolveExecution)
    assert.strictEqual(oif.resolveExecution.revertsWith, "OIFExecutionUnsupported()")
    assert.strictEqual(oif.describeMandate!.selector, UPSTREAM.describeMandate)
    assert.strictEqual(oif.describeMandate!.selector, selector(oif.describeMandate!.signature))
    assert.isTrue(erc7683.executable)
    assert.isFalse(oif.executable)
    assert.strictEqual(erc7683.compatibilityLevel, "EXECUTABLE_RESOLVER")
    assert.strictEqual(oif.compatibilityLevel, "DISCOVERY_DESCRIPTION_ONLY")
    assert.isUndefined(erc7683.compatibilityLevelId)
    assert.isUndefined(erc7683.describeMandate)
    assert.isUndefined(oif.resolve)
    assert.deepStrictEqual(std.executionInvariant, {
      botSourceTransactions: 1,
      svcDestinationTransactions: 1,
      totalTransactions: 2
    })
    assert.strictEqual(std.router.address, ROUTER)

    // solver manifest
    assert.deepStrictEqual(manifest.standards, [
      {
        standardId: UPSTREAM.erc7683StandardId,
        name: "ERC-7683",
        compatibilityLevel: "EXECUTABLE_RESOLVER",
        moduleAddress: getAddress(`0x${utf8Keccak("svc demo erc7683 module").slice(-40)}`),
        executable: true
      },
      {
        standardId: UPSTREAM.oifStandardId,
        name: "OIF",
        compatibilityLevel: "DISCOVERY_DESCRIPTION_ONLY",
        moduleAddress: getAddress(`0x${utf8Keccak("svc demo oif module").slice(-40)}`),
        executable: false
      }
    ])
  })

  it("the facade is the CREATE2 address of factory, salt and initCodeHash, everywhere", () => {
    const { factory, salt, initCodeHash, expectedFacadeAddress } = fp.deployment
    const computed = create2(factory, salt, initCodeHash)
    assert.strictEqual(computed, DEMO_FACADE)
    assert.strictEqual(expectedFacadeAddress, computed)
    assert.strictEqual(fp.facade, computed)
    assert.strictEqual(hints.contracts.facade.address, computed)
    assert.strictEqual(hints.deterministicDeployment.expectedFacadeAddress, computed)
    assert.strictEqual(manifest.passiveOnchainDiscovery.facadeAddress, computed)
    assert.strictEqual(fp.events.SourceFillV6.discoveryMapping.facade, computed)
    assert.strictEqual(fp.erc7683.discoveryMapping.facade, computed)
    for (const chain of CHAINS) {
      assert.include(fp.chainEvidence[String(chain)]!.explorer, computed)
      assert.strictEqual(fp.chainEvidence[String(chain)]!.sourcify, `https://repo.sourcify.dev/${chain}/${computed}`)
    }
  })

  it("the demo placeholders are the documented ones", () => {
    assert.strictEqual(Documents.DEMO_RELEASE_ID, UPSTREAM.releaseId)
    assert.strictEqual(fp.releaseId, UPSTREAM.releaseId)
    assert.strictEqual(fp.deployment.factory, "0x4e59b44847b379578588920cA78FbF26c0B4956C")
    assert.strictEqual(fp.deployment.salt, UPSTREAM.salt)
    assert.strictEqual(fp.deployment.salt, utf8Keccak("SVC_PUBLIC_SOLVER_DISCOVERY_V6"))
    assert.strictEqual(fp.deployment.initCodeHash, utf8Keccak("svc demo facade init code"))
    assert.strictEqual(fp.router, ROUTER)
    assert.strictEqual(fp.registry, getAddress(`0x${utf8Keccak("svc demo registry").slice(-40)}`))
    assert.strictEqual(fp.erc7683.resolver, getAddress(`0x${utf8Keccak("svc demo erc7683 module").slice(-40)}`))
    assert.strictEqual(fp.oif.module, getAddress(`0x${utf8Keccak("svc demo oif module").slice(-40)}`))
    assert.strictEqual(Documents.placeholderAddress("svc demo registry"), fp.registry)
    // the demo catalog's router follows the same placeholder rule
    assert.strictEqual(getAddress(`0x${utf8Keccak("svc demo router").slice(-40)}`), ROUTER)
    assert.deepStrictEqual(fp.chains, CHAINS)
    assert.deepStrictEqual(Object.keys(fp.chainEvidence).sort(), ["56", "8453", "999"])
    assert.strictEqual(fp.chainEvidence["8453"]!.network, "base")
    assert.strictEqual(
      fp.chainEvidence["8453"]!.deploymentTransactionHash,
      utf8Keccak("svc demo facade deployment 8453")
    )
    assert.strictEqual(fp.facadeRuntimeCodeHash, utf8Keccak("svc demo facade runtime code"))
    assert.isFalse(fp.sourcify.exactMatchOnEveryChain)
    assert.match(String(fp.sourcify.note), /placeholder/i)
  })
})

describe("Documents: scanner hints", () => {
  it("has exactly the 9 probe steps of the upstream generator, in order", () => {
    const steps = hints.probe.steps
    assert.lengthOf(steps, 9)
    assert.deepStrictEqual(steps.map((s) => s.order), [1, 2, 3, 4, 5, 6, 7, 8, 9])
    assert.deepStrictEqual(steps.map((s) => s.id), [
      "facade-code-present",
      "facade-runtime-code-hash",
      "facade-discovery-uri",
      "facade-live-status",
      "facade-system-state",
      "facade-route-count",
      "same-facade-address-on-all-supported-chains",
      "source-fill-router-event",
      "follow-canonical-solver-discovery-uri"
    ])
    assert.deepStrictEqual(steps.map((s) => s.required), [true, true, true, true, true, true, true, false, true])
    assert.deepStrictEqual(steps.map((s) => s.rpcMethod ?? null), [
      "eth_getCode",
      null,
      "eth_call",
      "eth_call",
      "eth_call",
      "eth_call",
      "eth_getCode",
      "eth_getLogs",
      null
    ])
    const discoveryUri = `${PUBLIC_URL}/.well-known/svc-solver.json`
    const facadeCodeHash = utf8Keccak("svc demo facade runtime code")
    const [s1, s2, s3, s4, s5, s6, s7, s8, s9] = steps
    assert.deepStrictEqual(s1!.expected, { nonEmptyRuntimeCode: true })
    assert.strictEqual(s1!.address, DEMO_FACADE)
    assert.strictEqual(s2!.operation, "KECCAK256_RUNTIME_CODE")
    assert.strictEqual(s2!.inputFromStep, "facade-code-present")
    assert.deepStrictEqual(s2!.expected, { equals: facadeCodeHash })
    assert.deepStrictEqual(s3!.call, {
      contract: "facade",
      address: DEMO_FACADE,
      signature: "discoveryURI()",
      selector: toFunctionSelector("discoveryURI()"),
      stateMutability: "view",
      returns: [{ name: "uri", type: "string" }]
    })
    assert.deepStrictEqual(s3!.expected, { equals: discoveryUri })
    assert.strictEqual(s4!.call!.selector, toFunctionSelector("isLive()"))
    assert.deepStrictEqual(s4!.expected, { equals: true })
    assert.strictEqual(s5!.call!.selector, toFunctionSelector("systemState()"))
    assert.deepStrictEqual(s5!.expected, {
      currentChainId: "CHAIN_BEING_PROBED",
      release: UPSTREAM.releaseId,
      publicRegistry: getAddress(`0x${utf8Keccak("svc demo registry").slice(-40)}`),
      publicRouter: ROUTER,
      discoverableRouteCount: { comparison: "GREATER_THAN", value: "0" },
      live: true
    })
    assert.strictEqual(s6!.call!.selector, toFunctionSelector("routeCount()"))
    assert.deepStrictEqual(s6!.expected, { comparison: "GREATER_THAN", value: "0" })
    assert.deepStrictEqual(s7!.expected, { sameAddressAcrossChains: true, runtimeCodeHashOnEveryChain: facadeCodeHash })
    assert.deepStrictEqual(s7!.supportedChainIds, CHAINS)
    assert.isTrue(s8!.optional)
    assert.deepStrictEqual(s8!.topics, [UPSTREAM.topic0])
    assert.strictEqual(s8!.address, ROUTER)
    assert.deepStrictEqual(s8!.expected, { emittingContract: "SvcMainnetRouterV6" })
    assert.strictEqual(s9!.transport, "HTTPS")
    assert.strictEqual(s9!.method, "GET")
    assert.strictEqual(s9!.uriFromStep, "facade-discovery-uri")
    assert.deepStrictEqual(s9!.expected, { uri: discoveryUri })
  })

  it("names the five contracts and their roles", () => {
    assert.deepStrictEqual(
      Object.fromEntries(Object.entries(hints.contracts).map(([k, c]) => [k, [c.name, c.role]])),
      {
        facade: ["SvcSolverDiscoveryV6", "ONCHAIN_DISCOVERY_FACADE"],
        registry: ["SvcMainnetRegistryV6", "ROUTE_REGISTRY"],
        router: ["SvcMainnetRouterV6", "SOURCE_FILL_ROUTER"],
        erc7683Resolver: ["SvcERC7683ModuleV6", "ERC_7683_RESOLVER"],
        oifModule: ["SvcOIFModuleV6", "OIF_DESCRIPTION_MODULE"]
      }
    )
    assert.strictEqual(hints.contracts.router.expectedRuntimeCodeHash, utf8Keccak("svc demo router runtime code"))
    assert.strictEqual(hints.probe.executedBySvc, false)
  })
})

describe("Documents: endpoints and text", () => {
  it("every endpoint is absolute on the public URL; templates keep their placeholders", () => {
    assert.deepStrictEqual(manifest.endpoints, {
      manifest: "https://solver.example.org/base/.well-known/svc-solver.json",
      onchainDiscovery: "https://solver.example.org/base/.well-known/svc-onchain-discovery.json",
      openapi: "https://solver.example.org/base/openapi.json",
      standards: "https://solver.example.org/base/.well-known/svc-standards.json",
      solverDiscovery: "https://solver.example.org/base/api/v6/solver-discovery",
      solverFeed: "https://solver.example.org/base/api/v6/solver-feed",
      solverFeedEvents: "https://solver.example.org/base/api/v6/solver-feed/events",
      routeDetailTemplate: "https://solver.example.org/base/api/v6/routes/{routeId}",
      permitRequestMessage: "https://solver.example.org/base/api/v6/execution-permits/request-message",
      executionPermits: "https://solver.example.org/base/api/v6/execution-permits",
      permitStatusTemplate: "https://solver.example.org/base/api/v6/execution-permits/{fillId}"
    })
    // the manifest lists the endpoints in this order
    assert.deepStrictEqual(Object.keys(manifest.endpoints), Object.keys(Endpoints.ENDPOINT_OPERATIONS))
    assert.strictEqual(fp.discoveryURI, "https://solver.example.org/base/.well-known/svc-solver.json")
    assert.strictEqual(fp.onchainDiscoveryURI, "https://solver.example.org/base/.well-known/svc-onchain-discovery.json")
    assert.strictEqual(fp.feedURI, "https://solver.example.org/base/api/v6/solver-feed")
    assert.strictEqual(
      manifest.passiveOnchainDiscovery.uri,
      "https://solver.example.org/base/.well-known/svc-onchain-discovery.json"
    )
  })

  it("a trailing slash in publicUrl does not double", () => {
    const slashed = Documents.serialize(buildOk(demo, `${PUBLIC_URL}//`))
    assert.deepStrictEqual(slashed, bytes)
    for (const url of Object.values(buildOk(demo, `${PUBLIC_URL}/`).solverManifest.endpoints)) {
      assert.isTrue(url.startsWith(`${PUBLIC_URL}/`), url)
      assert.notInclude(url.slice("https://".length), "//", url)
    }
  })

  it("publishes the permit request message templates and the solver profile", () => {
    assert.deepStrictEqual(manifest.permitRequestSigning.messageLines, [...PermitMessage.MESSAGE_LINE_TEMPLATES])
    assert.strictEqual(manifest.permitRequestSigning.domain, "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1")
    assert.strictEqual(manifest.feedSigner, SIGNER)
    assert.strictEqual(manifest.releaseId, UPSTREAM.releaseId)
    assert.deepStrictEqual(manifest.solverProfile.executionScopes, ["CROSS_CHAIN"])
    assert.deepStrictEqual(manifest.passiveOnchainDiscovery.chains, CHAINS)
    assert.isFalse(manifest.activationRequired)
    assert.deepStrictEqual(fp.discoveryPaths, [
      "facade.discoveryURI -> well-known manifest -> signed Feed -> routes",
      "SourceFillV6.topic0 -> Router -> Facade -> discoveryURI -> signed Feed",
      "ERC-7683 standardId -> Resolver.router -> Facade -> discoveryURI -> signed Feed",
      "Sourcify chain enumeration -> Facade ABI -> discoveryURI -> signed Feed",
      "Facade found on one chain -> same-address probe on chains 8453/56/999"
    ])
  })

  it("the brand appears only as svc, SVC or Svc", () => {
    for (const [name, body] of Object.entries(text)) {
      const forms = new Set([...body.matchAll(/svc/gi)].map((m) => m[0]))
      assert.isAbove(forms.size, 0, name)
      for (const form of forms) assert.include(["svc", "SVC", "Svc"], form, name)
    }
  })
})

describe("Documents: configuration errors are typed values", () => {
  it("a facade that is not the CREATE2 address", () => {
    const message = failureOf({ ...demo, facade: "0x1111111111111111111111111111111111111111" })
    assert.match(
      message,
      /^svc discovery: facade 0x1111111111111111111111111111111111111111 is not the CREATE2 address/
    )
    assert.include(message, DEMO_FACADE)
    // the computed address itself, in any case, is accepted
    assert.deepStrictEqual(buildOk({ ...demo, facade: DEMO_FACADE.toLowerCase() }), buildOk())
  })

  it("a public URL that is not absolute http(s)", () => {
    assert.match(failureOf(demo, "/relative"), /publicUrl "\/relative"/)
    assert.match(failureOf(demo, "ftp://example.org"), /publicUrl "ftp:\/\/example.org"/)
  })

  it("per-chain evidence that does not cover exactly the configured chains", () => {
    const { ["999"]: _evidence, ...evidence } = demo.chainEvidence
    assert.match(
      failureOf({ ...demo, chainEvidence: evidence }),
      /chainEvidence must have one entry per chain \(8453, 56, 999\): no entry for 999/
    )
    const { ["56"]: _block, ...blocks } = demo.deployment.blocks
    assert.match(
      failureOf({ ...demo, deployment: { ...demo.deployment, blocks } }),
      /deployment\.blocks .*no entry for 56/
    )
    const transactions = { ...demo.deployment.transactions, "1": utf8Keccak("another chain") }
    assert.match(
      failureOf({ ...demo, deployment: { ...demo.deployment, transactions } }),
      /deployment\.transactions .*an entry for unconfigured 1/
    )
    assert.match(failureOf({ ...demo, chains: [8453, 56, 999, 56] }), /chains lists chain 56 more than once/)
    assert.match(failureOf({ ...demo, chains: [] }), /chains: /)
  })

  it("a malformed address or hash, naming the field", () => {
    assert.match(failureOf({ ...demo, registry: "0x1234" }), /invalid on-chain configuration: registry: /)
    assert.match(failureOf({ ...demo, facade: "nope" }), /facade: /)
    assert.match(failureOf({ ...demo, deployment: { ...demo.deployment, factory: "0xZZ" } }), /deployment\.factory: /)
    assert.match(
      failureOf({ ...demo, runtimeCodeHashes: { ...demo.runtimeCodeHashes, router: "0x00" } }),
      /runtimeCodeHashes\.router: /
    )
    assert.match(failure(Documents.build({ ...input(), feedSigner: "0xabc" })), /feedSigner "0xabc" is not an address/)
    assert.match(failure(Documents.build({ ...input(), releaseId: "0x12" })), /releaseId "0x12" is not 32 bytes of hex/)
  })

  it("unknown keys and non-objects are refused, never thrown", () => {
    assert.match(failureOf({ ...demo, extra: true }), /extra: /)
    assert.match(failureOf(null), /invalid on-chain configuration/)
    assert.match(failureOf({}), /chains: .*placeholder: /)
  })

  it("without placeholders, the fingerprint claims exact matches and carries no note", () => {
    const real = buildOk({ ...demo, placeholder: false })
    assert.isTrue(real.onchainDiscovery.sourcify.exactMatchOnEveryChain)
    assert.notProperty(real.onchainDiscovery.sourcify, "note")
  })
})

// ---------------------------------------------------------------------------
// Property: any valid configuration yields valid documents
// ---------------------------------------------------------------------------

const hexDigits = (length: number) =>
  fc.array(fc.constantFrom(..."0123456789abcdefABCDEF"), { minLength: length, maxLength: length }).map((d) =>
    d.join("")
  )
const address = hexDigits(40).map((h) => `0x${h}`)
const bytes32 = hexDigits(64).map((h) => `0x${h}`)

/** A valid configuration, its facade either absent or the CREATE2 address in some letter case. */
const config = fc
  .record({
    chains: fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 40 }), { minLength: 1, maxLength: 4 }),
    facadeCase: fc.constantFrom("absent", "lower", "checksum"),
    registry: address,
    router: address,
    erc7683Resolver: address,
    oifModule: address,
    hashes: fc.array(bytes32, { minLength: 5, maxLength: 5 }),
    factory: address,
    salt: bytes32,
    initCodeHash: bytes32,
    compiler: fc.string({ maxLength: 30 }),
    standardJsonInputHash: bytes32,
    block: fc.nat(),
    transaction: bytes32,
    network: fc.string({ maxLength: 12 }),
    publicIntegrationRepo: fc.webUrl(),
    placeholder: fc.boolean()
  })
  .map((c): Documents.OnchainConfig => {
    const keys = c.chains.map(String)
    const perChain = <A>(f: (key: string) => A) => Object.fromEntries(keys.map((k) => [k, f(k)]))
    const facade = getContractAddress({
      opcode: "CREATE2",
      from: c.factory as Hex,
      salt: c.salt as Hex,
      bytecodeHash: c.initCodeHash as Hex
    })
    const [facadeHash, registryHash, routerHash, resolverHash, oifHash] = c.hashes as [
      string,
      string,
      string,
      string,
      string
    ]
    return {
      chains: c.chains,
      ...(c.facadeCase === "absent" ? {} : { facade: c.facadeCase === "lower" ? facade.toLowerCase() : facade }),
      registry: c.registry,
      router: c.router,
      erc7683Resolver: c.erc7683Resolver,
      oifModule: c.oifModule,
      runtimeCodeHashes: {
        facade: facadeHash,
        registry: registryHash,
        router: routerHash,
        erc7683Resolver: resolverHash,
        oifModule: oifHash
      },
      deployment: {
        factory: c.factory,
        salt: c.salt,
        initCodeHash: c.initCodeHash,
        compiler: c.compiler,
        standardJsonInputHash: c.standardJsonInputHash,
        blocks: perChain(() => c.block),
        transactions: perChain(() => c.transaction)
      },
      chainEvidence: perChain((k) => ({
        network: c.network,
        deploymentTransactionHash: c.transaction,
        deploymentBlockNumber: c.block,
        explorer: `https://explorer.example/${k}/address/${facade}#code`,
        sourcify: `https://repo.sourcify.dev/${k}/${facade}`,
        sourcifyMatchId: `match-${k}`
      })),
      publicIntegrationRepo: c.publicIntegrationRepo,
      placeholder: c.placeholder
    }
  })

describe("Documents: property", () => {
  test.prop([
    config,
    address,
    bytes32,
    fc.constantFrom("https://a.example", "http://127.0.0.1:8787/", "https://b.example/x//")
  ], {
    numRuns: 60
  })(
    "any valid configuration yields schema-valid documents whose facade is the CREATE2 address",
    (onchain, signer, release, url) => {
      const built = Documents.build({ publicUrl: url, feedSigner: signer, releaseId: release, onchain })
      if (Result.isFailure(built)) return assert.fail(built.failure.message)
      const bodies = Documents.serialize(built.success)
      const decode = (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b))
      const docs = {
        solverManifest: decode(bodies.solverManifest),
        onchainDiscovery: decode(bodies.onchainDiscovery),
        standards: decode(bodies.standards)
      }
      assert.strictEqual(accepts(SolverDiscovery, docs.solverManifest), "ok")
      assert.strictEqual(accepts(OnchainDiscoveryFingerprint, docs.onchainDiscovery), "ok")
      assert.strictEqual(accepts(StandardsManifest, docs.standards), "ok")
      const facade = getContractAddress({
        opcode: "CREATE2",
        from: onchain.deployment.factory as Hex,
        salt: onchain.deployment.salt as Hex,
        bytecodeHash: onchain.deployment.initCodeHash as Hex
      })
      assert.strictEqual(docs.onchainDiscovery.facade, facade)
      assert.strictEqual(docs.onchainDiscovery.scannerHints.contracts.facade.address, facade)
      assert.strictEqual(docs.solverManifest.passiveOnchainDiscovery.facadeAddress, facade)
      assert.strictEqual(docs.onchainDiscovery.router, getAddress(onchain.router.toLowerCase()))
      assert.strictEqual(docs.solverManifest.feedSigner, getAddress(signer.toLowerCase()))
      assert.strictEqual(docs.solverManifest.releaseId, release.toLowerCase())
    }
  )

  test.prop([fc.anything()], { numRuns: 200 })(
    "any other configuration value is a DocumentsInvalid, never an exception",
    (value) => {
      const built = Documents.build({ ...input(), onchain: value as Documents.OnchainConfig })
      assert.isTrue(Result.isFailure(built))
      if (Result.isFailure(built)) assert.instanceOf(built.failure, Documents.DocumentsInvalid)
    }
  )
})
