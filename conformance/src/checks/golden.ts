/**
 * Golden fixtures against the live deployment: every golden permit request
 * form of the permit-message vectors (address and account forms, mixed forms,
 * explicit nulls, locator shapes, hex case, standards, key lengths) is sent to
 * the deployment with a live quoteId, an amount its route allows and the test
 * wallet's identities on the route's networks, and the answer is compared byte
 * for byte with the message the second path builds (`Independent`). Forms that
 * the HTTP schema refuses (a string locator, a null standard) must be refused.
 *
 * Expectations come from the second path, never from the library the server is
 * built on; where the library and the second path disagree on a form, that is
 * reported as a failure of its own.
 *
 * @since 0.1.0
 */
import { Ids, PermitMessage, type Route } from "@svc/protocol"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { getAddress } from "viem"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import * as Independent from "../Independent.ts"
import { asObject, failure, send, Shared } from "../Shared.ts"
import { document, type Env, type Json } from "./common.ts"

const MESSAGE = "/api/v6/execution-permits/request-message"

/** One golden permit request form (a case of the permit-message vectors). */
interface GoldenForm {
  readonly id: string
  readonly request: Json
  /** Whether the HTTP schema takes the request (else it must be refused with 400). */
  readonly httpBodyValid: boolean
}

let loaded: ReadonlyArray<GoldenForm> | undefined

/**
 * The golden permit request forms: the positive cases of the permit-message
 * vectors (a copy of `fixtures/protocol/permit-message/vectors.json` travels
 * with the package).
 *
 * @category testing
 * @since 0.1.0
 */
export const goldenForms = (): ReadonlyArray<GoldenForm> => {
  if (loaded === undefined) {
    const vectors = JSON.parse(
      readFileSync(new URL("../../vectors/permit-message.json", import.meta.url), "utf8")
    ) as { readonly cases: ReadonlyArray<Json> }
    loaded = vectors.cases
      .filter((c) => c.error === undefined && typeof c.request === "object" && c.request !== null)
      .map((c) => ({ id: String(c.id), request: c.request as Json, httpBodyValid: c.httpBodyValid === true }))
  }
  return loaded
}

/** Hex written in the case style of a template: all upper, all lower, or (mixed) EIP-55 for addresses. */
const caseLike = (template: unknown, hex: string, address: boolean): string => {
  const body = typeof template === "string" ? template.slice(2) : ""
  const upper = /[A-F]/.test(body)
  const lower = /[a-f]/.test(body)
  if (upper && !lower) return `0x${hex.slice(2).toUpperCase()}`
  if (lower && !upper) return `0x${hex.slice(2).toLowerCase()}`
  return address ? getAddress(hex) : hex.toLowerCase()
}

/**
 * The live request of a golden form: its quoteId and amount from an open route
 * between EVM networks, its identities the wallet's (an account form: the
 * wallet's account id on the route's network, and its locator in the form's
 * shape), everything else (explicit nulls, the standard, the key, an ignored
 * signature) as the form has it.
 *
 * @category testing
 * @since 0.1.0
 */
export const liveRequest = (form: GoldenForm, route: Route, wallet: string): Json => {
  const request: Json = { ...form.request }
  request.quoteId = caseLike(form.request.quoteId, String(route.quoteId), false)
  // the amount keeps its JSON type (a number is one of the forms HTTP refuses)
  request.requestedAmountInRaw = typeof form.request.requestedAmountInRaw === "number"
    ? Number(route.minimumFillInRaw)
    : String(route.minimumFillInRaw)
  const sides = [
    ["payer", String(route.sourceNetworkId)],
    ["recipient", String(route.destinationNetworkId)]
  ] as const
  for (const [side, networkId] of sides) {
    if (typeof form.request[side] === "string") request[side] = caseLike(form.request[side], wallet, true)
    const accountKey = `${side}AccountId`
    const locatorKey = `${side}Locator`
    if (typeof form.request[accountKey] === "string") {
      request[accountKey] = caseLike(
        form.request[accountKey],
        Independent.accountId(networkId, `0x${wallet.slice(2).toLowerCase().padStart(64, "0")}`),
        false
      )
    }
    const locator = form.request[locatorKey]
    if (typeof locator === "string") request[locatorKey] = wallet.toLowerCase()
    else if (typeof locator === "object" && locator !== null) request[locatorKey] = { native: wallet.toLowerCase() }
  }
  return request
}

const short = (text: string) => JSON.stringify(text)

const requestMessages = Check.make<Env>({
  name: "golden_request_messages",
  group: "golden",
  title:
    "every golden permit request form (address, account and mixed forms, nulls, locators, case, standards) gets the second path's message byte for byte; forms HTTP refuses get 400",
  reference:
    "spec §4 buildPermitRequestMessage, PermitRequest rules; docs/protocol.md, Permit request message; fixtures/protocol/permit-message",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const c = Check.collector()
    let compared = 0
    const notTaken: Array<string> = []
    for (const form of goldenForms()) {
      const request = liveRequest(form, route, shared.wallet.address)
      const exchange = yield* send({ method: "POST", path: MESSAGE, json: request })
      const body = asObject(Exchange.json(exchange))
      if (!form.httpBodyValid) {
        if (exchange.response.status !== 400) {
          c.add(
            failure(
              exchange,
              `golden form ${form.id}: a request the HTTP schema refuses was not answered 400`,
              "400 ErrorResponse (over HTTP a locator is an object, a given standard a string)",
              Exchange.responseSummary(exchange)
            )
          )
        }
        continue
      }
      if (
        exchange.response.status === 400 && body?.error === "UNSUPPORTED_STANDARD" &&
        typeof form.request.standard === "string" && form.request.standard.toUpperCase() !== "DIRECT"
      ) {
        // a standard this deployment does not take: the form does not apply here
        notTaken.push(form.id)
        continue
      }
      let expected: string
      try {
        expected = Independent.permitRequestMessage(request)
      } catch (e) {
        c.add(
          failure(
            exchange,
            `golden form ${form.id}: the second path cannot build the live request's message`,
            "a message",
            String((e as Error).message)
          )
        )
        continue
      }
      // the library the server is built on must agree with the second path: a disagreement is a failure by itself
      const library = (() => {
        try {
          return PermitMessage.build(request as unknown as PermitMessage.PermitRequestInput)
        } catch (e) {
          return `error: ${(e as Error).message}`
        }
      })()
      if (library !== expected) {
        c.add(
          failure(
            exchange,
            `golden form ${form.id}: the shared library and the second path disagree on the message`,
            short(expected),
            short(library)
          )
        )
      }
      if (exchange.response.status !== 200) {
        c.add(
          failure(
            exchange,
            `golden form ${form.id}: request-message refused a valid request`,
            "200 PermitRequestMessageResponse",
            Exchange.responseSummary(exchange)
          )
        )
        continue
      }
      compared++
      const actual = String(body?.message)
      if (actual !== expected) {
        const lines = [expected.split("\n"), actual.split("\n")] as const
        const at = lines[0].findIndex((l, i) => l !== lines[1][i])
        c.add(
          failure(
            exchange,
            `golden form ${form.id}: the message differs from the second path's, first on line ${
              at === -1 ? lines[0].length + 1 : at + 1
            }`,
            expected,
            actual
          )
        )
      }
    }
    yield* Check.detail("compared", `${compared} forms byte for byte`)
    if (notTaken.length > 0) yield* Check.detail("standards not taken", notTaken.join(", "))
    yield* c.done
  })
})

/** One identifier of a route: the second path's value and the library's (undefined when it threw). */
const derivations = (route: Json, releaseId: string) => {
  const rows: Array<{ field: string; independent: () => string; library: () => string }> = [
    {
      field: "routeId",
      independent: () => Independent.routeId({ ...route, releaseId } as never),
      library: () => Ids.routeId({ ...route, releaseId } as never)
    },
    {
      field: "quoteId",
      independent: () => Independent.quoteId(route as never),
      library: () => Ids.quoteId(route as never)
    }
  ]
  for (const side of ["source", "destination"] as const) {
    const chainId = route[`${side}ChainId`]
    if (chainId === null || chainId === undefined) continue
    rows.push({
      field: `${side}NetworkId`,
      independent: () => Independent.evmNetworkId(String(chainId)),
      library: () => Ids.evmNetworkId(String(chainId))
    })
    const asset = route[`${side}Asset`]
    if (typeof asset === "string") {
      rows.push({
        field: `${side}AssetId`,
        independent: () => Independent.evmAssetId(Independent.evmNetworkId(String(chainId)), asset),
        library: () => Ids.evmAssetId(Ids.evmNetworkId(String(chainId)), asset)
      })
    }
  }
  return rows
}

const attempt = (f: () => string): string => {
  try {
    return f().toLowerCase()
  } catch (e) {
    return `error: ${(e as Error).message}`
  }
}

const routeIds = Check.make<Env>({
  name: "golden_route_ids",
  group: "golden",
  title:
    "every route's routeId, quoteId and EVM network and asset ids equal the second path's derivation from the route's own fields",
  reference: "docs/protocol.md, Identifiers (routeId, quoteId, networkId, assetId); fixtures/protocol/ids",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const snapshot = yield* shared.feed
    const c = Check.collector()
    const releaseId = String(snapshot.payload.releaseId)
    let derived = 0
    snapshot.routes.forEach((r, i) => {
      for (const row of derivations(r as unknown as Json, releaseId)) {
        const where = `signedPayload.routes[${i}].${row.field}`
        const independent = attempt(row.independent)
        const library = attempt(row.library)
        const published = String((r as unknown as Json)[row.field]).toLowerCase()
        if (library !== independent) {
          c.add(
            failure(
              snapshot.exchange,
              `${where}: the shared library and the second path disagree`,
              independent,
              library
            )
          )
        }
        if (independent.startsWith("error:")) {
          c.add(
            failure(snapshot.exchange, `${where}: the route's fields do not derive it`, "valid inputs", independent)
          )
        } else if (published !== independent) {
          c.add(failure(snapshot.exchange, `${where} is not derived from the route's fields`, independent, published))
        } else derived++
      }
    })
    yield* Check.detail("derived", `${derived} identifiers of ${snapshot.routes.length} routes`)
    yield* c.done
  })
})

const vectors = () =>
  JSON.parse(readFileSync(new URL("../../vectors/appendix-a.json", import.meta.url), "utf8")) as {
    readonly abi: Readonly<Record<string, string>>
    readonly feed: { readonly signedPayload: { readonly schema: string } }
    readonly permitRequestEvm: { readonly message: string }
  }

const functionName = (signature: unknown): string | undefined =>
  typeof signature === "string" ? /^([A-Za-z_][A-Za-z0-9_]*)\(/.exec(signature)?.[1] : undefined

/** Every object of a document, with its JSONPath. */
const walk = (value: unknown, path: string, visit: (node: Json, path: string) => void): void => {
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`, visit))
  else if (typeof value === "object" && value !== null) {
    visit(value as Json, path)
    for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`, visit)
  }
}

const constants = Check.make<Env>({
  name: "golden_discovery_constants",
  group: "golden",
  title:
    "the published selectors, signatures, topic0, interface ids, standard ids and domain strings equal the vectors' and the second path's values",
  reference:
    "spec §2 ScannerHints, StandardsManifest; docs/protocol.md, Discovery documents (on-chain values); fixtures/upstream/appendix-a.json (abi, feed, permit request)",
  run: Effect.gen(function*() {
    const v = vectors()
    const c = Check.collector()
    const fixed: Readonly<Record<string, string>> = {
      fillDirect: v.abi.fillDirectSelector!,
      previewFillDirect: v.abi.previewFillDirectSelector!,
      resolveExecution: v.abi.resolveExecutionSelector!
    }
    const knownSelectors = Independent.selectors as Readonly<Record<string, string>>
    const knownSignatures = Independent.functionSignatures as Readonly<Record<string, string>>
    let compared = 0
    const selectorOk = (exchange: Exchange.Exchange, where: string, name: string, selector: unknown) => {
      const expected = fixed[name] ?? knownSelectors[name]
      if (expected === undefined) return
      compared++
      if (String(selector).toLowerCase() !== expected) {
        c.add(failure(exchange, `${where}: the ${name} selector is not the interface's`, expected, String(selector)))
      }
    }
    const signatureOk = (exchange: Exchange.Exchange, where: string, name: string, signature: unknown) => {
      const expected = knownSignatures[name]
      if (expected === undefined) return
      compared++
      if (signature !== expected) {
        c.add(failure(exchange, `${where}: the ${name} signature is not the interface's`, expected, String(signature)))
      }
    }
    for (const path of ["/.well-known/svc-onchain-discovery.json", "/.well-known/svc-standards.json"]) {
      const doc = yield* document(path)
      walk(doc.value, "$", (node, where) => {
        const name = functionName(node.signature)
        if (name !== undefined && typeof node.selector === "string") {
          signatureOk(doc.exchange, where, name, node.signature)
          selectorOk(doc.exchange, where, name, node.selector)
        }
        if (typeof node.selectors === "object" && node.selectors !== null) {
          for (const [key, selector] of Object.entries(node.selectors as Json)) {
            selectorOk(doc.exchange, `${where}.selectors.${key}`, key, selector)
          }
        }
        if (typeof node.selectorSignatures === "object" && node.selectorSignatures !== null) {
          for (const [key, signature] of Object.entries(node.selectorSignatures as Json)) {
            signatureOk(doc.exchange, `${where}.selectorSignatures.${key}`, key, signature)
          }
        }
        if (typeof node.topic0 === "string" && functionName(node.signature) === "SourceFillV6") {
          compared++
          if (node.signature !== Independent.eventSignatures.SourceFillV6) {
            c.add(
              failure(
                doc.exchange,
                `${where}: the SourceFillV6 signature is not the interface's`,
                Independent.eventSignatures.SourceFillV6,
                String(node.signature)
              )
            )
          }
          if (node.topic0.toLowerCase() !== Independent.topics.SourceFillV6) {
            c.add(
              failure(
                doc.exchange,
                `${where}: the SourceFillV6 topic0 is not the interface's`,
                Independent.topics.SourceFillV6,
                node.topic0
              )
            )
          }
        }
        for (
          const [key, expected] of [
            ["erc165InterfaceId", Independent.interfaceIds.erc165],
            ["svcStandardModuleV6InterfaceId", Independent.interfaceIds.standardModule]
          ] as const
        ) {
          if (node[key] === undefined) continue
          compared++
          if (String(node[key]).toLowerCase() !== expected) {
            c.add(failure(doc.exchange, `${where}.${key} is not the interface's`, expected, String(node[key])))
          }
        }
        if (typeof node.standardId === "string" && /^0x[0-9a-fA-F]{64}$/.test(node.standardId)) {
          compared++
          const standards = [Independent.labels.erc7683StandardId, Independent.labels.oifStandardId]
          if (!standards.includes(node.standardId.toLowerCase() as never)) {
            c.add(
              failure(
                doc.exchange,
                `${where}.standardId is not keccak256 of a standard's name`,
                standards.join(" or "),
                node.standardId
              )
            )
          }
        }
      })
    }
    // domain strings: the permit request message's first line and the signed feed's schema
    const manifest = yield* document("/.well-known/svc-solver.json")
    const domain = (manifest.value.permitRequestSigning as Json | undefined)?.domain
    const messageDomain = v.permitRequestEvm.message.split("\n")[0]!
    compared++
    if (domain !== messageDomain || domain !== Independent.PERMIT_REQUEST_DOMAIN) {
      c.add(
        failure(
          manifest.exchange,
          "permitRequestSigning.domain is not the permit request message's domain",
          messageDomain,
          String(domain)
        )
      )
    }
    const shared = yield* Shared
    const snapshot = yield* shared.feed
    compared++
    if (
      snapshot.payload.schema !== v.feed.signedPayload.schema || snapshot.payload.schema !== Independent.FEED_DOMAIN
    ) {
      c.add(
        failure(
          snapshot.exchange,
          "signedPayload.schema is not the signed feed's domain",
          v.feed.signedPayload.schema,
          String(snapshot.payload.schema)
        )
      )
    }
    yield* Check.detail("compared", `${compared} published constants`)
    yield* c.done
  })
})

/**
 * The golden checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [requestMessages, routeIds, constants]
