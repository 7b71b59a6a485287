/**
 * Discovery documents: the solver manifest (and its identical solver-discovery
 * twin), the on-chain discovery fingerprint with the scanner hints, and the
 * standards manifest. Every derived value is recomputed: selectors from their
 * signatures, topic0 from the event signature, the CREATE2 facade address, the
 * module interface id.
 *
 * @since 0.1.0
 */
import { OnchainDiscoveryFingerprint, SolverDiscovery, StandardsManifest } from "@svc/protocol"
import { Effect } from "effect"
import { getContractAddress, keccak256, stringToBytes, toEventSelector, toFunctionSelector } from "viem"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import { asObject, failure, send, Shared } from "../Shared.ts"
import {
  document,
  type Env,
  firstDifference,
  type Json,
  pathOf,
  sameAddress,
  sameJson,
  strictDocument
} from "./common.ts"

const MANIFEST = "/.well-known/svc-solver.json"
const SOLVER_DISCOVERY = "/api/v6/solver-discovery"
const ONCHAIN = "/.well-known/svc-onchain-discovery.json"
const STANDARDS = "/.well-known/svc-standards.json"

/**
 * The documented path of each manifest endpoint.
 *
 * @category constants
 * @since 0.1.0
 */
export const ENDPOINT_PATHS: Readonly<Record<string, string>> = {
  manifest: MANIFEST,
  onchainDiscovery: ONCHAIN,
  openapi: "/openapi.json",
  standards: STANDARDS,
  solverDiscovery: SOLVER_DISCOVERY,
  solverFeed: "/api/v6/solver-feed",
  solverFeedEvents: "/api/v6/solver-feed/events",
  routeDetailTemplate: "/api/v6/routes/{routeId}",
  permitRequestMessage: "/api/v6/execution-permits/request-message",
  executionPermits: "/api/v6/execution-permits",
  permitStatusTemplate: "/api/v6/execution-permits/{fillId}"
}

const obj = (u: unknown): Json => asObject(u) ?? {}

const hints = (fingerprint: Json) => obj(fingerprint.scannerHints)

const selectorOf = (signature: string): string | undefined => {
  try {
    return toFunctionSelector(signature)
  } catch {
    return undefined
  }
}

/** Every (where, signature, selector) pair stated in the documents. */
const selectorPairs = (fingerprint: Json, standards: Json) => {
  const pairs: Array<{ where: string; signature: unknown; selector: unknown }> = []
  const maps = (where: string, node: Json) => {
    const selectors = obj(node.selectors)
    const signatures = obj(node.selectorSignatures)
    for (const key of new Set([...Object.keys(selectors), ...Object.keys(signatures)])) {
      pairs.push({ where: `${where}.selectors.${key}`, signature: signatures[key], selector: selectors[key] })
    }
  }
  const call = (where: string, node: Json) => pairs.push({ where, signature: node.signature, selector: node.selector })
  const h = hints(fingerprint)
  const probe = obj(h.probe)
  for (const [k, m] of Object.entries(obj(probe.methods))) call(`scannerHints.probe.methods.${k}`, obj(m))
  ;(Array.isArray(probe.steps) ? probe.steps : []).forEach((s, i) => {
    const step = obj(s)
    if (step.call !== undefined) call(`scannerHints.probe.steps[${i}].call`, obj(step.call))
  })
  for (const [k, s] of Object.entries(obj(h.standards))) maps(`scannerHints.standards.${k}`, obj(s))
  maps("fingerprint", fingerprint)
  maps("fingerprint.erc7683", obj(fingerprint.erc7683))
  maps("fingerprint.oif", obj(fingerprint.oif))
  for (const [k, m] of Object.entries(obj(standards.standards))) {
    const module = obj(m)
    maps(`standards.${k}`, module)
    for (const r of ["resolve", "resolveExecution", "describeMandate"]) {
      if (module[r] !== undefined) call(`standards.${k}.${r}`, obj(module[r]))
    }
  }
  return pairs
}

const solverManifest = Check.make<Env>({
  name: "discovery_solver_manifest",
  group: "discovery",
  title: "GET /.well-known/svc-solver.json answers 200 with a strict SolverDiscovery",
  reference: "spec §4 Discovery documents (getSolverManifest)",
  run: Effect.asVoid(strictDocument(MANIFEST, SolverDiscovery))
})

const solverDiscoveryIdentical = Check.make<Env>({
  name: "discovery_solver_discovery_identical",
  group: "discovery",
  title: "GET /api/v6/solver-discovery answers the same SolverDiscovery as the well-known manifest",
  reference:
    "spec §4 (getSolverDiscovery: 200 SolverDiscovery); docs/protocol.md, Discovery documents (the same bytes at both paths)",
  run: Effect.gen(function*() {
    const twin = yield* strictDocument(SOLVER_DISCOVERY, SolverDiscovery)
    const manifest = yield* document(MANIFEST)
    if (!sameJson(twin.value, manifest.value)) {
      return yield* Check.fail(failure(
        twin.exchange,
        "solver-discovery differs from the well-known manifest",
        "the same document",
        `first difference at ${firstDifference(twin.value, manifest.value)}`
      ))
    }
  })
})

const onchainFingerprint = Check.make<Env>({
  name: "discovery_onchain_fingerprint",
  group: "discovery",
  title: "GET /.well-known/svc-onchain-discovery.json answers a strict OnchainDiscoveryFingerprint with ScannerHints",
  reference: "spec §2 ScannerHints; §4 getOnchainDiscovery",
  run: Effect.asVoid(strictDocument(ONCHAIN, OnchainDiscoveryFingerprint))
})

const standardsManifest = Check.make<Env>({
  name: "discovery_standards_manifest",
  group: "discovery",
  title: "GET /.well-known/svc-standards.json answers a strict StandardsManifest",
  reference: "spec §2 StandardsManifest, StandardPayloadEncoding; §4 getStandardsManifest",
  run: Effect.asVoid(strictDocument(STANDARDS, StandardsManifest))
})

const releaseConsistency = Check.make<Env>({
  name: "discovery_release_id",
  group: "discovery",
  title: "releaseId and feedSigner agree across the manifest, fingerprint, scanner hints, standards manifest and feed",
  reference: "spec §9.3 (releaseId identifies the release); §5.5 (feedSigner)",
  run: Effect.gen(function*() {
    const manifest = yield* document(MANIFEST)
    const fingerprint = yield* document(ONCHAIN)
    const standards = yield* document(STANDARDS)
    const shared = yield* Shared
    const feed = yield* shared.feed
    const release = manifest.value.releaseId
    const c = Check.collector()
    const compare = (where: string, value: unknown, exchange: Exchange.Exchange) => {
      if (typeof value !== "string" || typeof release !== "string" || value.toLowerCase() !== release.toLowerCase()) {
        c.add(failure(exchange, `${where} differs from the manifest's releaseId`, String(release), String(value)))
      }
    }
    compare("fingerprint.releaseId", fingerprint.value.releaseId, fingerprint.exchange)
    compare("fingerprint.scannerHints.releaseId", hints(fingerprint.value).releaseId, fingerprint.exchange)
    compare("standards.releaseId", standards.value.releaseId, standards.exchange)
    compare("feed.releaseId", feed.feed.releaseId, feed.exchange)
    compare("feed.signedPayload.releaseId", feed.payload.releaseId, feed.exchange)
    if (!sameAddress(feed.feed.feedSigner, manifest.value.feedSigner)) {
      c.add(
        failure(
          feed.exchange,
          "the feed's feedSigner differs from the manifest's feedSigner",
          String(manifest.value.feedSigner),
          String(feed.feed.feedSigner)
        )
      )
    }
    yield* c.done
  })
})

const endpointUrls = Check.make<Env>({
  name: "discovery_endpoint_urls",
  group: "discovery",
  title: "the manifest's endpoint URLs have the documented paths, one origin, agree with the fingerprint, and resolve",
  reference: "spec §4 (paths); docs/protocol.md, Discovery documents (the solver manifest: endpoints)",
  run: Effect.gen(function*() {
    const manifest = yield* document(MANIFEST)
    const fingerprint = yield* document(ONCHAIN)
    const endpoints = obj(manifest.value.endpoints)
    const c = Check.collector()
    const origins = new Set<string>()
    for (const [key, path] of Object.entries(ENDPOINT_PATHS)) {
      const url = endpoints[key]
      const actual = typeof url === "string" ? decodeURI(pathOf(url) ?? "") : undefined
      if (actual !== path) {
        c.add(
          failure(
            manifest.exchange,
            `endpoints.${key} does not have the documented path`,
            `<origin>${path}`,
            String(url)
          )
        )
      } else {
        origins.add(new URL(url as string).origin)
      }
    }
    if (origins.size > 1) {
      c.add(
        failure(manifest.exchange, "the endpoints are on more than one origin", "one origin", [...origins].join(", "))
      )
    }
    const pairs: Array<[string, unknown, unknown]> = [
      ["fingerprint.discoveryURI", fingerprint.value.discoveryURI, endpoints.manifest],
      ["fingerprint.onchainDiscoveryURI", fingerprint.value.onchainDiscoveryURI, endpoints.onchainDiscovery],
      ["fingerprint.feedURI", fingerprint.value.feedURI, endpoints.solverFeed],
      [
        "manifest.passiveOnchainDiscovery.uri",
        obj(manifest.value.passiveOnchainDiscovery).uri,
        endpoints.onchainDiscovery
      ],
      [
        "scannerHints.eventDiscovery.SourceFillV6.discoveryMapping.discoveryURI",
        obj(obj(obj(hints(fingerprint.value).eventDiscovery).SourceFillV6).discoveryMapping).discoveryURI,
        endpoints.manifest
      ]
    ]
    for (const [where, value, expected] of pairs) {
      if (value !== expected) {
        c.add(
          failure(
            fingerprint.exchange,
            `${where} differs from the manifest's endpoint`,
            String(expected),
            String(value)
          )
        )
      }
    }
    for (const key of ["manifest", "onchainDiscovery", "openapi", "standards", "solverDiscovery", "solverFeed"]) {
      const url = endpoints[key]
      if (typeof url !== "string" || !URL.canParse(url)) continue
      const exchange = yield* send({ path: url })
      if (exchange.response.status !== 200) {
        c.add(failure(exchange, `endpoints.${key} does not resolve`, "200", Exchange.responseSummary(exchange)))
      }
    }
    yield* c.done
  })
})

const scannerSelectors = Check.make<Env>({
  name: "discovery_scanner_selectors",
  group: "discovery",
  title: "every selector equals the first 4 bytes of keccak256 of its signature (hints, fingerprint, standards)",
  reference: "spec §2 ScannerHints (Selector4); docs/protocol.md, Discovery documents (on-chain values: selectors)",
  run: Effect.gen(function*() {
    const fingerprint = yield* document(ONCHAIN)
    const standards = yield* document(STANDARDS)
    const c = Check.collector()
    const pairs = selectorPairs(fingerprint.value, standards.value)
    for (const { selector, signature, where } of pairs) {
      const computed = typeof signature === "string" ? selectorOf(signature) : undefined
      if (computed === undefined || typeof selector !== "string" || selector.toLowerCase() !== computed) {
        c.add(failure(
          fingerprint.exchange,
          `${where}: selector does not match its signature`,
          `${computed ?? "a valid signature"} = keccak256("${String(signature)}")[0:4]`,
          String(selector)
        ))
      }
    }
    if (pairs.length === 0) {
      c.add(failure(fingerprint.exchange, "no selectors found", "probe methods and standard selectors", "none"))
    }
    yield* c.done
  })
})

const scannerTopic0 = Check.make<Env>({
  name: "discovery_scanner_topic0",
  group: "discovery",
  title: "SourceFillV6 topic0 = keccak256(signature); indexed topic positions consistent; probe topics match",
  reference: "spec §2 ScannerHints.eventDiscovery; §6 (SourceFillV6)",
  run: Effect.gen(function*() {
    const fingerprint = yield* document(ONCHAIN)
    const ex = fingerprint.exchange
    const c = Check.collector()
    const hint = obj(obj(hints(fingerprint.value).eventDiscovery).SourceFillV6)
    const event = obj(obj(fingerprint.value.events).SourceFillV6)
    for (
      const [where, node] of [["scannerHints.eventDiscovery.SourceFillV6", hint], [
        "fingerprint.events.SourceFillV6",
        event
      ]] as const
    ) {
      let topic: string | undefined
      try {
        topic = typeof node.signature === "string" ? toEventSelector(node.signature) : undefined
      } catch {
        topic = undefined
      }
      if (topic === undefined || String(node.topic0).toLowerCase() !== topic) {
        c.add(
          failure(
            ex,
            `${where}.topic0 does not match its signature`,
            `${topic ?? "?"} = keccak256("${String(node.signature)}")`,
            String(node.topic0)
          )
        )
      }
      const fields = Array.isArray(node.indexedFields) ? node.indexedFields.map(obj) : []
      const positions = obj(node.indexedTopicPositions)
      const seen = new Set<number>()
      for (const f of fields) {
        const p = Number(f.topicPosition)
        if (positions[String(f.name)] !== p) {
          c.add(
            failure(
              ex,
              `${where}.indexedTopicPositions.${String(f.name)} differs from indexedFields`,
              String(p),
              String(positions[String(f.name)])
            )
          )
        }
        if (seen.has(p)) {
          c.add(failure(
            ex,
            `${where}: topic position ${p} used twice`,
            "distinct positions 1..3",
            fields.map((x) => x.topicPosition).join(",")
          ))
        }
        seen.add(p)
      }
      if (Object.keys(positions).length !== fields.length) {
        c.add(
          failure(
            ex,
            `${where}.indexedTopicPositions does not list exactly the indexed fields`,
            fields.map((f) => f.name).join(","),
            Object.keys(positions).join(",")
          )
        )
      }
    }
    if (Array.isArray(event.fields) && Array.isArray(event.indexed) && Array.isArray(event.nonIndexed)) {
      const union = [...event.indexed, ...event.nonIndexed].map(String).sort()
      if (!sameJson(union, event.fields.map(String).sort())) {
        c.add(
          failure(
            ex,
            "fingerprint.events.SourceFillV6: indexed + nonIndexed are not the fields",
            JSON.stringify(event.fields),
            JSON.stringify(union)
          )
        )
      }
    }
    if (
      !sameJson(hint.nonIndexedFields, event.nonIndexed) || hint.signature !== event.signature ||
      !sameAddress(hint.address, event.address)
    ) {
      c.add(
        failure(
          ex,
          "the scanner hint's SourceFillV6 differs from the fingerprint's",
          "the same signature, address and non-indexed fields",
          firstDifference(
            {
              signature: hint.signature,
              address: String(hint.address).toLowerCase(),
              nonIndexed: hint.nonIndexedFields
            },
            { signature: event.signature, address: String(event.address).toLowerCase(), nonIndexed: event.nonIndexed }
          ) ?? ""
        )
      )
    }
    const steps = Array.isArray(obj(hints(fingerprint.value).probe).steps)
      ? (obj(hints(fingerprint.value).probe).steps as Array<unknown>).map(obj)
      : []
    for (const step of steps.filter((s) => s.rpcMethod === "eth_getLogs")) {
      const topics = Array.isArray(step.topics) ? step.topics.map((t) => String(t).toLowerCase()) : []
      if (topics[0] !== String(hint.topic0).toLowerCase()) {
        c.add(
          failure(
            ex,
            `probe step ${String(step.id)} does not filter on SourceFillV6 topic0`,
            String(hint.topic0),
            JSON.stringify(step.topics)
          )
        )
      }
      if (!sameAddress(step.address, hint.address)) {
        c.add(
          failure(
            ex,
            `probe step ${String(step.id)} reads logs of another address than the emitting contract`,
            String(hint.address),
            String(step.address)
          )
        )
      }
    }
    yield* c.done
  })
})

const scannerCreate2 = Check.make<Env>({
  name: "discovery_scanner_create2",
  group: "discovery",
  title: "the facade address is the CREATE2 address of factory, salt and initCodeHash, everywhere it appears",
  reference:
    "spec §2 ScannerHints.deterministicDeployment; docs/protocol.md, Discovery documents (on-chain values: facade address)",
  run: Effect.gen(function*() {
    const fingerprint = yield* document(ONCHAIN)
    const manifest = yield* document(MANIFEST)
    const ex = fingerprint.exchange
    const c = Check.collector()
    const h = hints(fingerprint.value)
    let facade: string | undefined
    for (
      const [where, d] of [["scannerHints.deterministicDeployment", obj(h.deterministicDeployment)], [
        "fingerprint.deployment",
        obj(fingerprint.value.deployment)
      ]] as const
    ) {
      let computed: string | undefined
      try {
        computed = getContractAddress({
          opcode: "CREATE2",
          from: String(d.factory) as `0x${string}`,
          salt: String(d.salt) as `0x${string}`,
          bytecodeHash: String(d.initCodeHash) as `0x${string}`
        })
      } catch {
        computed = undefined
      }
      if (computed === undefined || !sameAddress(d.expectedFacadeAddress, computed)) {
        c.add(
          failure(
            ex,
            `${where}.expectedFacadeAddress is not the CREATE2 address`,
            `${computed ?? "?"} = keccak256(0xff ++ factory ++ salt ++ initCodeHash)[12:]`,
            String(d.expectedFacadeAddress)
          )
        )
      }
      facade ??= computed
    }
    if (facade !== undefined) {
      const places: Array<[string, unknown]> = [
        ["scannerHints.contracts.facade.address", obj(obj(h.contracts).facade).address],
        ["fingerprint.facade", fingerprint.value.facade],
        ["manifest.passiveOnchainDiscovery.facadeAddress", obj(manifest.value.passiveOnchainDiscovery).facadeAddress],
        [
          "scannerHints.eventDiscovery.SourceFillV6.discoveryMapping.facade",
          obj(obj(obj(h.eventDiscovery).SourceFillV6).discoveryMapping).facade
        ]
      ]
      for (const [k, m] of Object.entries(obj(obj(h.probe).methods))) {
        if (obj(m).contract === "facade") places.push([`scannerHints.probe.methods.${k}.address`, obj(m).address])
      }
      for (const [where, value] of places) {
        if (!sameAddress(value, facade)) {
          c.add(failure(ex, `${where} is not the CREATE2 facade address`, facade, String(value)))
        }
      }
    }
    yield* c.done
  })
})

const scannerSteps = Check.make<Env>({
  name: "discovery_scanner_steps",
  group: "discovery",
  title:
    "the probe has exactly 9 steps in order 1..9 with unique ids; step references resolve; calls equal the probe methods",
  reference: "spec §2 ScannerHints.probe.steps (exactly 9); §8 Limits",
  run: Effect.gen(function*() {
    const fingerprint = yield* document(ONCHAIN)
    const manifest = yield* document(MANIFEST)
    const ex = fingerprint.exchange
    const c = Check.collector()
    const probe = obj(hints(fingerprint.value).probe)
    const steps = Array.isArray(probe.steps) ? probe.steps.map(obj) : []
    if (steps.length !== 9) c.add(failure(ex, "the probe does not have exactly 9 steps", "9", String(steps.length)))
    const orders = steps.map((s) => s.order)
    if (!sameJson(orders, steps.map((_, i) => i + 1))) {
      c.add(failure(
        ex,
        "probe step orders are not 1..n in sequence",
        JSON.stringify(steps.map((_, i) => i + 1)),
        JSON.stringify(orders)
      ))
    }
    const ids = steps.map((s) => String(s.id))
    if (new Set(ids).size !== ids.length) {
      c.add(failure(ex, "probe step ids are not unique", "unique ids", ids.join(",")))
    }
    const methods = Object.values(obj(probe.methods)).map(obj)
    steps.forEach((s, i) => {
      for (const ref of ["inputFromStep", "uriFromStep"] as const) {
        if (s[ref] !== undefined && !ids.slice(0, i).includes(String(s[ref]))) {
          c.add(
            failure(
              ex,
              `step ${String(s.id)}.${ref} does not name an earlier step`,
              `one of ${ids.slice(0, i).join(",")}`,
              String(s[ref])
            )
          )
        }
      }
      if (s.call !== undefined) {
        const call = obj(s.call)
        const method = methods.find((m) => m.signature === call.signature)
        if (method === undefined || !sameJson(method, call)) {
          c.add(
            failure(
              ex,
              `step ${String(s.id)}.call differs from the probe method ${String(call.signature)}`,
              "the same call description",
              method === undefined ? "no such probe method" : firstDifference(call, method) ?? ""
            )
          )
        }
      }
      if (s.uriFromStep !== undefined) {
        const uri = obj(s.expected).uri
        if (uri !== obj(manifest.value.endpoints).manifest) {
          c.add(
            failure(
              ex,
              `step ${String(s.id)} expects another discovery URI than the manifest's`,
              String(obj(manifest.value.endpoints).manifest),
              String(uri)
            )
          )
        }
      }
    })
    yield* c.done
  })
})

const interfaceIds = Check.make<Env>({
  name: "discovery_interface_ids",
  group: "discovery",
  title:
    "ERC-165 ids, the module interface id (standardId() xor resolveExecution(bytes)), standard ids and compatibility level ids agree and are derived",
  reference:
    "docs/protocol.md, Discovery documents (on-chain values: 0x8d60d6f9 = standardId() ^ resolveExecution(bytes); standard ids and compatibility level = keccak256(name))",
  run: Effect.gen(function*() {
    const fingerprint = yield* document(ONCHAIN)
    const standards = yield* document(STANDARDS)
    const manifest = yield* document(MANIFEST)
    const ex = fingerprint.exchange
    const c = Check.collector()
    const erc165 = toFunctionSelector("supportsInterface(bytes4)")
    const module = `0x${
      ((parseInt(toFunctionSelector("standardId()").slice(2), 16) ^
        parseInt(toFunctionSelector("resolveExecution(bytes)").slice(2), 16)) >>> 0).toString(16).padStart(8, "0")
    }`
    const expectIds = (where: string, ids: unknown) => {
      const list = Array.isArray(ids) ? ids.map((x) => String(x).toLowerCase()) : []
      if (!sameJson(list, [erc165, module])) {
        c.add(
          failure(
            ex,
            `${where} are not [ERC-165, module interface id]`,
            JSON.stringify([erc165, module]),
            Check.show(ids)
          )
        )
      }
    }
    const h = hints(fingerprint.value)
    for (const k of ["erc7683", "oif"]) {
      expectIds(`scannerHints.standards.${k}.erc165InterfaceIds`, obj(obj(h.standards)[k]).erc165InterfaceIds)
      expectIds(
        `standards.standards.${k}.erc165.interfaceIds`,
        obj(obj(obj(standards.value.standards)[k]).erc165).interfaceIds
      )
      const fp = obj(obj(fingerprint.value[k]).erc165)
      if (
        String(fp.erc165InterfaceId).toLowerCase() !== erc165 ||
        String(fp.svcStandardModuleV6InterfaceId).toLowerCase() !== module
      ) {
        c.add(
          failure(
            ex,
            `fingerprint.${k}.erc165 ids are not derived`,
            `${erc165}, ${module}`,
            `${String(fp.erc165InterfaceId)}, ${String(fp.svcStandardModuleV6InterfaceId)}`
          )
        )
      }
    }
    const ids: Record<string, Array<[string, unknown]>> = { erc7683: [], oif: [] }
    for (const k of ["erc7683", "oif"] as const) {
      ids[k]!.push([`fingerprint.${k}.standardId`, obj(fingerprint.value[k]).standardId])
      ids[k]!.push([`scannerHints.standards.${k}.standardId`, obj(obj(h.standards)[k]).standardId])
      ids[k]!.push([`standards.standards.${k}.standardId`, obj(obj(standards.value.standards)[k]).standardId])
    }
    for (const s of Array.isArray(manifest.value.standards) ? manifest.value.standards.map(obj) : []) {
      const k = s.name === "ERC-7683" ? "erc7683" : s.name === "OIF" ? "oif" : undefined
      if (k !== undefined) ids[k]!.push([`manifest.standards[${String(s.name)}].standardId`, s.standardId])
    }
    for (const [k, list] of Object.entries(ids)) {
      const values = new Set(list.map(([, v]) => String(v).toLowerCase()))
      if (values.size !== 1) {
        c.add(failure(
          ex,
          `the ${k} standardId differs between documents`,
          "one value",
          list.map(([w, v]) => `${w}=${String(v)}`).join("; ")
        ))
      }
    }
    const oif = obj(fingerprint.value.oif)
    if (
      typeof oif.compatibilityLevelName === "string" &&
      String(oif.compatibilityLevel).toLowerCase() !== keccak256(stringToBytes(oif.compatibilityLevelName))
    ) {
      c.add(
        failure(
          ex,
          "fingerprint.oif.compatibilityLevel is not keccak256(compatibilityLevelName)",
          keccak256(stringToBytes(oif.compatibilityLevelName)),
          String(oif.compatibilityLevel)
        )
      )
    }
    yield* c.done
  })
})

/**
 * The discovery checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [
  solverManifest,
  solverDiscoveryIdentical,
  onchainFingerprint,
  standardsManifest,
  releaseConsistency,
  endpointUrls,
  scannerSelectors,
  scannerTopic0,
  scannerCreate2,
  scannerSteps,
  interfaceIds
]
