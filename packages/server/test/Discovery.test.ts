import { assert, describe, it } from "@effect/vitest"
import {
  decodeStrict,
  OnchainDiscoveryFingerprint,
  PermitMessage,
  SolverDiscovery,
  StandardsManifest
} from "@svc/protocol"
import { Result, type Schema } from "effect"
import { concat, getAddress, keccak256, toBytes } from "viem"
import * as Discovery from "../src/Discovery.ts"

type Hex = `0x${string}`

const ROUTER = "0x2Af7d059E5efdBe1D2A234B78DF91E948ee22Ee2"
const CHAINS = [8453, 56, 999]
const SIGNER = "0xcC2EC811171Ff13A707963157d0F4166594bFa73"
const PUBLIC_URL = "https://solver.example.org/base"

// Independent recomputation: keccak of the UTF-8 text, sliced by hand (not viem's selector helpers).
const utf8Keccak = (text: string): Hex => keccak256(toBytes(text))
const selector = (signature: string): Hex => utf8Keccak(signature).slice(0, 10) as Hex
const xor4 = (a: string, b: string): Hex =>
  `0x${(BigInt(a) ^ BigInt(b)).toString(16).padStart(8, "0")}`
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

const demo = Discovery.demoOnchainConfig(ROUTER, CHAINS)
const build = (publicUrl: string = PUBLIC_URL, onchain: Discovery.OnchainConfig = demo) =>
  Discovery.buildDocuments({ publicUrl, feedSigner: SIGNER, releaseId: Discovery.DEMO_RELEASE_ID, onchain })
const docs = build()
const bytes = Discovery.serializeDocuments(docs)
const text = {
  solverManifest: new TextDecoder().decode(bytes.solverManifest),
  onchainDiscovery: new TextDecoder().decode(bytes.onchainDiscovery),
  standards: new TextDecoder().decode(bytes.standards)
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

const accepts = (schema: Schema.Top, input: unknown) => {
  const result = decodeStrict(schema as Schema.Decoder<unknown>)(input)
  return Result.isSuccess(result) ? "ok" : String(result.failure)
}

/** Every selector map of a document agrees with its signatures (recomputed here). */
const checkSelectorMap = (selectors: Record<string, string>, signatures: Record<string, string>) => {
  assert.deepStrictEqual(Object.keys(selectors).sort(), Object.keys(signatures).sort())
  for (const [key, signature] of Object.entries(signatures)) {
    assert.strictEqual(selectors[key], selector(signature), `${key}: ${signature}`)
  }
}

describe("Discovery documents: schemas", () => {
  it("each serialized document decodes strictly with its core schema", () => {
    assert.strictEqual(accepts(SolverDiscovery, parsed.solverManifest), "ok")
    assert.strictEqual(accepts(OnchainDiscoveryFingerprint, parsed.onchainDiscovery), "ok")
    assert.strictEqual(accepts(StandardsManifest, parsed.standards), "ok")
  })

  it("serializes each document once, as UTF-8 JSON equal to the built object", () => {
    assert.deepStrictEqual(parsed.solverManifest, docs.solverManifest)
    assert.deepStrictEqual(parsed.onchainDiscovery, docs.onchainDiscovery)
    assert.deepStrictEqual(parsed.standards, docs.standards)
    assert.instanceOf(bytes.solverManifest, Uint8Array)
    assert.isTrue(text.standards.endsWith("}\n"))
  })

  it("the demo on-chain configuration is itself a valid configuration document", () => {
    const roundTrip = Discovery.parseOnchainConfig(JSON.parse(JSON.stringify(demo)))
    assert.deepStrictEqual(roundTrip, JSON.parse(JSON.stringify(demo)))
    assert.throws(() => Discovery.parseOnchainConfig({ ...demo, extra: 1 }), /extra/)
    assert.throws(() => Discovery.parseOnchainConfig({ ...demo, router: "0x12" }), /router/)
  })
})

describe("Discovery documents: computed values", () => {
  it("facade selectors and selectorSignatures match the signatures and the upstream values", () => {
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
      assert.strictEqual(method.address, fp.facade)
    }
    assert.strictEqual(hints.probe.methods.discoveryURI.stateMutability, "pure")
    assert.lengthOf(hints.probe.methods.systemState.returns, 6)
  })

  it("SourceFillV6 topic0 is keccak256 of its signature and equals the upstream topic", () => {
    const event = fp.events.SourceFillV6
    assert.strictEqual(
      event.signature,
      "SourceFillV6(bytes32,bytes32,bytes32,address,address,address,address,uint256,uint128,uint128,uint32,uint64,bytes32,bytes32)"
    )
    assert.strictEqual(event.topic0, utf8Keccak(event.signature))
    assert.strictEqual(event.topic0, UPSTREAM.topic0)
    assert.lengthOf(event.fields, 14)
    assert.deepStrictEqual(event.indexed, ["fillId", "routeId", "quoteId"])
    assert.deepStrictEqual(event.indexedTopicPositions, { fillId: 1, routeId: 2, quoteId: 3 })
    assert.deepStrictEqual(event.indexedFields, [
      { name: "fillId", type: "bytes32", topicPosition: 1 },
      { name: "routeId", type: "bytes32", topicPosition: 2 },
      { name: "quoteId", type: "bytes32", topicPosition: 3 }
    ])
    assert.deepStrictEqual(event.nonIndexed, [
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
    ])
    assert.deepStrictEqual(event.fields, [...event.indexed, ...event.nonIndexed])
    assert.strictEqual(event.address, getAddress(ROUTER))
    const hinted = hints.eventDiscovery.SourceFillV6
    assert.strictEqual(hinted.topic0, UPSTREAM.topic0)
    assert.strictEqual(hinted.signature, event.signature)
    assert.deepStrictEqual(hinted.nonIndexedFields, event.nonIndexed)
    assert.deepStrictEqual(hinted.discoveryMapping, event.discoveryMapping)
    assert.strictEqual(fp.sourcify.sourceFillV6Signature.topic0, UPSTREAM.topic0)
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
    assert.deepStrictEqual(std.executionInvariant, { botSourceTransactions: 1, svcDestinationTransactions: 1, totalTransactions: 2 })
    assert.strictEqual(std.router.address, getAddress(ROUTER))

    // solver manifest
    assert.deepStrictEqual(manifest.standards, [
      {
        standardId: UPSTREAM.erc7683StandardId,
        name: "ERC-7683",
        compatibilityLevel: "EXECUTABLE_RESOLVER",
        moduleAddress: fp.erc7683.resolver,
        executable: true
      },
      {
        standardId: UPSTREAM.oifStandardId,
        name: "OIF",
        compatibilityLevel: "DISCOVERY_DESCRIPTION_ONLY",
        moduleAddress: fp.oif.module,
        executable: false
      }
    ])
  })

  it("the facade is the CREATE2 address of factory, salt and initCodeHash, everywhere", () => {
    const { factory, salt, initCodeHash, expectedFacadeAddress } = fp.deployment
    const computed = create2(factory, salt, initCodeHash)
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
    assert.strictEqual(Discovery.DEMO_RELEASE_ID, UPSTREAM.releaseId)
    assert.strictEqual(fp.releaseId, UPSTREAM.releaseId)
    assert.strictEqual(fp.deployment.factory, "0x4e59b44847b379578588920cA78FbF26c0B4956C")
    assert.strictEqual(fp.deployment.salt, UPSTREAM.salt)
    assert.strictEqual(fp.deployment.salt, utf8Keccak("SVC_PUBLIC_SOLVER_DISCOVERY_V6"))
    assert.strictEqual(fp.deployment.initCodeHash, utf8Keccak("svc demo facade init code"))
    assert.strictEqual(fp.router, getAddress(ROUTER))
    assert.strictEqual(fp.registry, getAddress(`0x${utf8Keccak("svc demo registry").slice(-40)}`))
    assert.strictEqual(fp.erc7683.resolver, getAddress(`0x${utf8Keccak("svc demo erc7683 module").slice(-40)}`))
    assert.strictEqual(fp.oif.module, getAddress(`0x${utf8Keccak("svc demo oif module").slice(-40)}`))
    // the demo catalog's router follows the same placeholder rule
    assert.strictEqual(getAddress(`0x${utf8Keccak("svc demo router").slice(-40)}`), ROUTER)
    assert.deepStrictEqual(fp.chains, CHAINS)
    assert.deepStrictEqual(Object.keys(fp.chainEvidence).sort(), ["56", "8453", "999"])
    assert.strictEqual(fp.chainEvidence["8453"]!.network, "base")
    assert.isFalse(fp.sourcify.exactMatchOnEveryChain)
    assert.match(String(fp.sourcify.note), /placeholder/i)
  })
})

describe("Discovery documents: scanner hints", () => {
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
    const [s1, s2, s3, s4, s5, s6, s7, s8, s9] = steps
    assert.deepStrictEqual(s1!.expected, { nonEmptyRuntimeCode: true })
    assert.strictEqual(s2!.operation, "KECCAK256_RUNTIME_CODE")
    assert.strictEqual(s2!.inputFromStep, "facade-code-present")
    assert.deepStrictEqual(s2!.expected, { equals: fp.facadeRuntimeCodeHash })
    assert.deepStrictEqual(s3!.call, hints.probe.methods.discoveryURI)
    assert.deepStrictEqual(s3!.expected, { equals: manifest.endpoints.manifest })
    assert.deepStrictEqual(s4!.expected, { equals: true })
    assert.deepStrictEqual(s5!.expected, {
      currentChainId: "CHAIN_BEING_PROBED",
      release: fp.releaseId,
      publicRegistry: fp.registry,
      publicRouter: fp.router,
      discoverableRouteCount: { comparison: "GREATER_THAN", value: "0" },
      live: true
    })
    assert.deepStrictEqual(s6!.expected, { comparison: "GREATER_THAN", value: "0" })
    assert.deepStrictEqual(s7!.expected, { sameAddressAcrossChains: true, runtimeCodeHashOnEveryChain: fp.facadeRuntimeCodeHash })
    assert.isTrue(s8!.optional)
    assert.deepStrictEqual(s8!.topics, [UPSTREAM.topic0])
    assert.strictEqual(s8!.address, fp.router)
    assert.deepStrictEqual(s8!.expected, { emittingContract: "SvcMainnetRouterV6" })
    assert.strictEqual(s9!.transport, "HTTPS")
    assert.strictEqual(s9!.method, "GET")
    assert.strictEqual(s9!.uriFromStep, "facade-discovery-uri")
    assert.deepStrictEqual(s9!.expected, { uri: manifest.endpoints.manifest })
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
    assert.strictEqual(hints.contracts.router.expectedRuntimeCodeHash, fp.routerRuntimeCodeHash)
    assert.strictEqual(hints.probe.executedBySvc, false)
  })
})

describe("Discovery documents: endpoints and text", () => {
  it("every endpoint is absolute on the public URL; templates keep their placeholders", () => {
    const base = PUBLIC_URL
    assert.deepStrictEqual(manifest.endpoints, {
      manifest: `${base}/.well-known/svc-solver.json`,
      onchainDiscovery: `${base}/.well-known/svc-onchain-discovery.json`,
      openapi: `${base}/openapi.json`,
      standards: `${base}/.well-known/svc-standards.json`,
      solverDiscovery: `${base}/api/v6/solver-discovery`,
      solverFeed: `${base}/api/v6/solver-feed`,
      solverFeedEvents: `${base}/api/v6/solver-feed/events`,
      routeDetailTemplate: `${base}/api/v6/routes/{routeId}`,
      permitRequestMessage: `${base}/api/v6/execution-permits/request-message`,
      executionPermits: `${base}/api/v6/execution-permits`,
      permitStatusTemplate: `${base}/api/v6/execution-permits/{fillId}`
    })
    assert.strictEqual(fp.discoveryURI, `${base}/.well-known/svc-solver.json`)
    assert.strictEqual(fp.onchainDiscoveryURI, `${base}/.well-known/svc-onchain-discovery.json`)
    assert.strictEqual(fp.feedURI, `${base}/api/v6/solver-feed`)
    assert.strictEqual(manifest.passiveOnchainDiscovery.uri, fp.onchainDiscoveryURI)
    assert.strictEqual(fp.events.SourceFillV6.discoveryMapping.discoveryURI, fp.discoveryURI)
  })

  it("a trailing slash in publicUrl does not double", () => {
    const slashed = build(`${PUBLIC_URL}//`)
    assert.deepStrictEqual(slashed, docs)
    for (const url of Object.values(slashed.solverManifest.endpoints)) {
      assert.isTrue(url.startsWith(`${PUBLIC_URL}/`), url)
      assert.notInclude(url.slice("https://".length), "//", url)
    }
  })

  it("publishes the permit request message templates and the solver profile", () => {
    assert.deepStrictEqual(manifest.permitRequestSigning.messageLines, [...PermitMessage.MESSAGE_LINE_TEMPLATES])
    assert.strictEqual(manifest.permitRequestSigning.domain, "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1")
    assert.strictEqual(manifest.feedSigner, SIGNER)
    assert.strictEqual(manifest.releaseId, UPSTREAM.releaseId)
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

describe("Discovery documents: configuration errors", () => {
  it("refuses a facade that is not the CREATE2 address", () => {
    const other = { ...demo, facade: "0x1111111111111111111111111111111111111111" }
    assert.throws(() => build(PUBLIC_URL, other), /CREATE2/)
    // the computed address itself, in any case, is accepted
    const same = { ...demo, facade: docs.onchainDiscovery.facade.toLowerCase() }
    assert.deepStrictEqual(build(PUBLIC_URL, same), docs)
  })

  it("refuses a public URL that is not absolute http(s)", () => {
    assert.throws(() => build("/relative"), /publicUrl/)
    assert.throws(() => build("ftp://example.org"), /publicUrl/)
  })

  it("refuses evidence that does not cover exactly the configured chains", () => {
    const { ["999"]: _dropped, ...rest } = demo.chainEvidence
    assert.throws(() => build(PUBLIC_URL, { ...demo, chainEvidence: rest }), /chainEvidence/)
    assert.throws(() => build(PUBLIC_URL, { ...demo, chains: [] }), /chains/)
  })

  it("refuses a malformed address or hash", () => {
    assert.throws(() => build(PUBLIC_URL, { ...demo, registry: "0x1234" }), /registry/)
    assert.throws(
      () => build(PUBLIC_URL, { ...demo, runtimeCodeHashes: { ...demo.runtimeCodeHashes, router: "0x00" } }),
      /runtimeCodeHashes\.router/
    )
  })

  it("without placeholders, the fingerprint claims exact matches and carries no note", () => {
    const real = build(PUBLIC_URL, { ...demo, placeholder: false })
    assert.isTrue(real.onchainDiscovery.sourcify.exactMatchOnEveryChain)
    assert.notProperty(real.onchainDiscovery.sourcify, "note")
  })
})
