/**
 * `openapi.json`: the OpenAPI 3.1.0 document of the contract (`Api`), as Effect's
 * `OpenApi.fromApi` derives it from the declarations, completed with what each
 * declaration's {@link Api.Docs} annotation says (parameter descriptions, the
 * error codes of each status, response headers, the spec section), with the
 * document-level facts (JSON Schema dialect, server URL, shared headers), with
 * request and response examples of every operation (committed vectors,
 * `ApiExamples.json`, recorded by `scripts/api-examples.ts` from a running
 * server: the document is the same at every publication, so it caches) and with
 * the worked flow of each operation in the docs (`x-svc-docs`).
 *
 * Nothing here is written per operation: adding an operation to `Api` adds it here.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import { HttpApi, type HttpApiEndpoint, OpenApi } from "effect/http-api"
import * as Api from "./Api.ts"
import EXAMPLES from "./ApiExamples.json" with { type: "json" }
import { AGGREGATOR_ERRORS, SOLVER_ERRORS } from "./ErrorCodes.ts"

type JsonRecord = Record<string, unknown>

/**
 * The titles of the spec's parts, referenced by each operation's `x-svc-spec`.
 *
 * @category constants
 * @since 0.1.0
 */
export const SPEC_PARTS = {
  "1": "What the service does",
  "2": "Resources and their fields",
  "3": "States and transitions",
  "4": "Endpoints",
  "5": "Authentication",
  "6": "Events",
  "7": "Errors",
  "8": "Limits",
  "9": "Versioning"
} as const

/**
 * The response headers the document names (`components.headers`).
 *
 * @category constants
 * @since 0.1.0
 */
export const HEADERS = {
  ETag: {
    description: "Weak entity tag of the representation. For the feed: " +
      "`W/\"<dataVersion>-<first 16 hex digits of feedHash>-<hash of the normalised filter>\"`; for `/v1/chains` " +
      "`W/\"<dataVersion>-<first 16 hex digits of feedHash>-chains\"` and for `/v1/tokens` " +
      "`W/\"<dataVersion>-<first 16 hex digits of feedHash>-tokens-<chainId or all>\"`.",
    schema: { type: "string" }
  },
  "Cache-Control": { description: "Caching directives of the response.", schema: { type: "string" } },
  Vary: { description: "Request headers the representation varies on (Accept-Encoding).", schema: { type: "string" } },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 0 } },
  RateLimit: { description: "Current rate-limit state (IETF draft RateLimit header).", schema: { type: "string" } },
  "RateLimit-Policy": {
    description: "Rate-limit policy (IETF draft RateLimit-Policy header).",
    schema: { type: "string" }
  }
} as const

const STATUS_MEANING = {
  solver: {
    400: "Invalid request or filter.",
    404: "Resource not found.",
    409: "Idempotency, capacity or inventory conflict.",
    410: "The quote is no longer open or has expired.",
    413: "The request body exceeds 32 KiB.",
    429: "Permit request rate limited.",
    500: "Internal runtime error.",
    503: "Publication surface closed or required authority unavailable."
  },
  aggregator: {
    400: "Invalid request, unsupported chain or token, amount outside the published limits, or invalid signature.",
    403: "The browser Origin is not allowed (only with a configured Origin allow-list).",
    404: "No route, quote, fill or path.",
    405: "Method not allowed for this path (see the Allow header).",
    409: "The quote changed, capacity is short, or the idempotency key conflicts.",
    410: "The quote expired or the route closed: obtain a new quote.",
    413: "The request body exceeds 32 KiB.",
    429: "Rate limited: retry after Retry-After seconds.",
    503: "Publication closed or pricing, signer or store unavailable."
  }
} as const satisfies Record<"solver" | "aggregator", Record<number, string>>

const INFO_DESCRIPTION = [
  "The svc V6 solver interface (discovery documents, signed route feed, server-sent event stream, route detail,",
  "execution permits) and the aggregator interface (quote, build, status, chains, tokens, health).",
  "",
  "- The signed payload of the feed (`signedPayload`) is the only cryptographic authority: verify `feedHash`,",
  "  `feedSigner` and `validUntil` before routes reach selection logic. A discovery or feed object never",
  "  authorizes a fill; only an execution permit does.",
  "- Execution-relevant integers are base-10 strings (UintStr) and must stay strings.",
  "- Every object rejects properties it does not list (`additionalProperties: false`).",
  "- Solver errors are `ErrorResponse` (`ok: false`, `error` code, optional `reasonCodes`, `diagnostics`);",
  "  aggregator errors are `AggregatorError` (`ok: false`, `error`, `message`, `retryable`, `action`).",
  "  Clients handle codes, never message text.",
  "- Direct execution is exactly 1 + 1 transactions: one source `fillDirect` call and one payout.",
  "",
  "This document is generated from the declarations the server routes and validates with."
]

/** The description's error-code tables (Markdown), from the code tables of both families. */
const errorsSection = (): ReadonlyArray<string> => [
  "## Errors",
  "",
  "Solver operations (`/api/v6`, the discovery documents) answer an error as `ErrorResponse`",
  "(`{ ok: false, error, reasonCodes?, diagnostics? }`, `Cache-Control: no-store`); aggregator operations",
  "(`/v1`) as `AggregatorError` (`{ ok: false, error, message, retryable, action, ... }`). Each operation's",
  "responses name the codes of each status. A 429 or 503 carries `Retry-After`.",
  "",
  "### Solver error codes",
  "",
  "| `error` | Status | Meaning |",
  "| --- | --- | --- |",
  ...Object.entries(SOLVER_ERRORS).map(([code, e]) => `| \`${code}\` | ${e.status} | ${e.meaning} |`),
  "",
  "### Aggregator error codes",
  "",
  "| `error` | Status | `action` | `retryable` | Meaning |",
  "| --- | --- | --- | --- | --- |",
  ...Object.entries(AGGREGATOR_ERRORS).map(([code, e]) =>
    `| \`${code}\` | ${e.status} | \`${e.action}\` | ${e.retryable} | ${e.meaning} |`
  )
]

const EVENTS_SECTION = [
  "## Event stream",
  "",
  "`GET /api/v6/solver-feed/events` (`streamSolverFeed`) is a server-sent event stream",
  "(`text/event-stream`) of the confirmed active set: `feed` (`id` the dataVersion, `data` a `SignedFeed`),",
  "`publication-closed` and `error` (`data` an `SseErrorEvent`; the stream ends). It starts with",
  "`retry: 3000` and the current `feed` event (unless `Last-Event-ID` equals its dataVersion) and sends a",
  "comment heartbeat at least every 15 s. The event names and their schemas are in the operation's",
  "`x-svc-events` extension."
]

const INFO_DESCRIPTION_TEXT = (): string =>
  [...INFO_DESCRIPTION, "", ...EVENTS_SECTION, "", ...errorsSection()].join("\n")

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` })

/** The error codes of a family at a status, with their meaning. */
const errorCodesAt = (
  family: "solver" | "aggregator",
  status: number,
  only?: ReadonlyArray<string>
): ReadonlyArray<string> => {
  if (family === "solver") {
    const codes = only ??
      Object.keys(SOLVER_ERRORS).filter((c) => SOLVER_ERRORS[c as keyof typeof SOLVER_ERRORS].status === status)
    return codes.map((c) => `- \`${c}\`: ${SOLVER_ERRORS[c as keyof typeof SOLVER_ERRORS].meaning}`)
  }
  const codes = only ??
    Object.keys(AGGREGATOR_ERRORS).filter((c) =>
      AGGREGATOR_ERRORS[c as keyof typeof AGGREGATOR_ERRORS].status === status
    )
  return codes.map((c) => {
    const entry = AGGREGATOR_ERRORS[c as keyof typeof AGGREGATOR_ERRORS]
    return `- \`${c}\`: ${entry.meaning} (action ${entry.action}, retryable ${entry.retryable})`
  })
}

/** The OpenAPI path of an endpoint path (`:routeId` -> `{routeId}`). */
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")

const decorateOperation = (
  op: JsonRecord,
  endpoint: HttpApiEndpoint.Top,
  family: "solver" | "aggregator"
) => {
  const docs = Context.getOrUndefined(endpoint.annotations, Api.Docs)
  if (docs === undefined) return
  const descriptions = docs.parameters ?? {}
  const byLowerName = new Map(Object.keys(descriptions).map((name) => [name.toLowerCase(), name]))
  for (const parameter of (op.parameters as Array<JsonRecord> | undefined) ?? []) {
    const canonical = byLowerName.get(String(parameter.name).toLowerCase())
    if (canonical === undefined) continue
    parameter.name = canonical
    parameter.description = descriptions[canonical]
    const schema = docs.parameterSchemas?.[canonical]
    if (schema !== undefined) parameter.schema = schema
  }
  if (docs.requestBody !== undefined && typeof op.requestBody === "object" && op.requestBody !== null) {
    op.requestBody = { description: docs.requestBody, ...(op.requestBody as JsonRecord) }
  }
  const responses = op.responses as Record<string, JsonRecord>
  for (const [code, response] of Object.entries(responses)) {
    const status = Number(code)
    if (status < 400) {
      const description = docs.responses?.[status]
      if (description !== undefined) response.description = description
      const headers = docs.responseHeaders?.[status]
      if (headers !== undefined) response.headers = Object.fromEntries(headers.map((h) => [h, headerRef(h)]))
      if (status === 200 && docs.responseExtensions !== undefined) Object.assign(response, docs.responseExtensions)
      continue
    }
    const meaning = (STATUS_MEANING[family] as Record<number, string>)[status] ?? "Error."
    const what = family === "solver" ? "Error codes (`error`)" : "Error codes (`error`, with `action` and `retryable`)"
    response.description = `${meaning} ${what}:\n\n${
      errorCodesAt(family, status, docs.errorCodes?.[status]).join("\n")
    }`
    response.headers = status === 429
      ? Object.fromEntries(
        ["Retry-After", "RateLimit", "RateLimit-Policy", "Cache-Control"].map((h) => [h, headerRef(h)])
      )
      : { "Cache-Control": headerRef("Cache-Control") }
  }
  op["x-svc-spec"] = { parts: [...docs.spec.parts], section: docs.spec.section }
}

/** A recorded exchange of `ApiExamples.json`. */
interface Exchange {
  readonly summary: string
  readonly request: {
    readonly path?: Record<string, string>
    readonly query?: Record<string, string>
    readonly headers?: Record<string, string>
    readonly body?: unknown
  }
  readonly response: { readonly status: number; readonly contentType: string; readonly body: unknown }
}

/**
 * The recorded exchanges of each operation (by operationId).
 *
 * @category constants
 * @since 0.1.0
 */
export const EXAMPLES_BY_OPERATION: Readonly<Record<string, ReadonlyArray<Exchange>>> =
  (EXAMPLES as unknown as { operations: Record<string, ReadonlyArray<Exchange>> }).operations

/**
 * Where each operation's worked flow is: a file of the svc repository's `docs/`
 * and its section (`x-svc-docs`, and a line of the operation's description).
 *
 * @category constants
 * @since 0.1.0
 */
export const WORKED_FLOWS: Readonly<
  Record<string, ReadonlyArray<{ readonly file: string; readonly section: string }>>
> = {
  getSolverManifest: [{ file: "docs/client.md", section: "Discovery" }],
  getSolverDiscovery: [{ file: "docs/client.md", section: "Discovery" }],
  getOnchainDiscovery: [{ file: "docs/protocol.md", section: "Discovery documents" }],
  getStandardsManifest: [{ file: "docs/protocol.md", section: "Discovery documents" }],
  getOpenApi: [{ file: "docs/operations.md", section: "The API reference page (`/docs`)" }],
  getSolverFeed: [{ file: "docs/client.md", section: "Feeds" }],
  streamSolverFeed: [{ file: "docs/client.md", section: "The event stream" }],
  getRouteDetail: [{ file: "docs/client.md", section: "Feeds" }],
  buildPermitRequestMessage: [{ file: "docs/client.md", section: "The request message" }],
  createExecutionPermit: [{ file: "docs/client.md", section: "Create" }],
  getExecutionPermit: [{ file: "docs/client.md", section: "Status" }],
  aggregator_manifest: [{ file: "docs/aggregator.md", section: "Chains, tokens, health and the manifest" }],
  aggregator_chains: [
    { file: "docs/aggregator.md", section: "1. Discover chains, pairs and tokens" },
    { file: "docs/client.md", section: "The aggregator" }
  ],
  aggregator_tokens: [{ file: "docs/aggregator.md", section: "1. Discover chains, pairs and tokens" }],
  aggregator_health: [{ file: "docs/aggregator.md", section: "Chains, tokens, health and the manifest" }],
  aggregator_quote: [
    { file: "docs/aggregator.md", section: "2. Quote" },
    { file: "docs/client.md", section: "The aggregator" }
  ],
  aggregator_build: [
    { file: "docs/aggregator.md", section: "3. Build, stage 1: the message to sign" },
    { file: "docs/aggregator.md", section: "5. Build, stage 2: the transaction" }
  ],
  aggregator_status: [{ file: "docs/aggregator.md", section: "7. Track" }]
}

/**
 * What the try-it of a reference page gets for an operation it cannot complete
 * with the offered example: a line of the operation's description.
 */
const TRY_IT: Readonly<Record<string, string>> = {
  createExecutionPermit: "From a reference page's try-it, the example answers **400 `SIGNATURE_INVALID`** " +
    "(reason `SIGNER_MISMATCH`): `requestSignature` must be the payer wallet's EIP-191 signature of the exact " +
    "message `buildPermitRequestMessage` returns for this body, and a page cannot sign with the payer's key. " +
    "The example carries a test wallet's signature over another request's message (its idempotency key differs).",
  aggregator_build: "From a reference page's try-it, the example answers **404 `QUOTE_NOT_FOUND`**: its " +
    "`quoteToken` was issued by the deployment that recorded it. A quote token is good only on the deployment " +
    "that issued it, while its quote lasts: get a quote (`aggregator_quote`) and build with its `quoteToken`, " +
    "`quoteId` and `routeId`. Stage 2 also needs the wallet's signature of the stage-1 message."
}

const exampleKey = (summary: string, index: number) =>
  `${index + 1}-${summary.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 48)}`

/** Adds an operation's recorded examples, worked flows and try-it note. */
const addExamples = (op: JsonRecord, operationId: string) => {
  const exchanges = EXAMPLES_BY_OPERATION[operationId] ?? []
  const first = exchanges[0]
  if (first !== undefined) {
    for (const parameter of (op.parameters as Array<JsonRecord> | undefined) ?? []) {
      const name = String(parameter.name)
      const from = parameter.in === "path"
        ? first.request.path
        : parameter.in === "query"
        ? exchanges.find((e) => e.request.query?.[name] !== undefined)?.request.query
        : parameter.in === "header"
        ? first.request.headers
        : undefined
      const value = from?.[name]
      // a query value is text on the wire; the parameter's schema may read it as an integer
      if (value !== undefined) {
        parameter.example = (parameter.schema as JsonRecord | undefined)?.type === "integer" && /^\d+$/.test(value)
          ? Number(value)
          : value
      }
    }
  }
  const requestContent = (op.requestBody as JsonRecord | undefined)?.content as Record<string, JsonRecord> | undefined
  const json = requestContent?.["application/json"]
  if (json !== undefined) {
    const withBodies = exchanges.filter((e) => e.request.body !== undefined)
    if (withBodies.length > 0) {
      json.examples = Object.fromEntries(
        withBodies.map((e, i) => [exampleKey(e.summary, i), { summary: e.summary, value: e.request.body }])
      )
    }
  }
  const responses = op.responses as Record<string, JsonRecord>
  exchanges.forEach((e, i) => {
    const response = responses[String(e.response.status)]
    const content = response?.content as Record<string, JsonRecord> | undefined
    const media = content?.[e.response.contentType] ?? (content === undefined ? undefined : Object.values(content)[0])
    if (media === undefined) return
    const examples = (media.examples ??= {}) as JsonRecord
    examples[exampleKey(e.summary, i)] = { summary: e.summary, value: e.response.body }
  })
  const flows = WORKED_FLOWS[operationId]
  const lines: Array<string> = []
  if (flows !== undefined) {
    op["x-svc-docs"] = flows
    lines.push(
      `Worked flow: ${flows.map((f) => `\`${f.file}\`, *${f.section}*`).join("; ")} (in the svc repository).`
    )
  }
  const tryIt = TRY_IT[operationId]
  if (tryIt !== undefined) lines.push(tryIt)
  if (lines.length > 0) {
    op.description = [typeof op.description === "string" ? op.description : undefined, ...lines]
      .filter((l) => l !== undefined && l.length > 0).join("\n\n")
  }
}

/** An excerpt of the document itself, the example of `getOpenApi`. */
const openApiExample = (document: JsonRecord): JsonRecord => ({
  openapi: document.openapi,
  jsonSchemaDialect: document.jsonSchemaDialect,
  info: { title: (document.info as JsonRecord).title, version: (document.info as JsonRecord).version },
  servers: document.servers,
  paths: { "/api/v6/solver-feed": { get: { operationId: "getSolverFeed", summary: "…" } } }
})

/**
 * Every `$ref` of a document (JSON pointers into the document itself).
 *
 * @category validation
 * @since 0.1.0
 */
export const collectRefs = (node: unknown, out: Array<string> = []): Array<string> => {
  if (Array.isArray(node)) { for (const item of node) collectRefs(item, out) }
  else if (typeof node === "object" && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") out.push(value)
      else collectRefs(value, out)
    }
  }
  return out
}

/**
 * Resolves a local JSON pointer (`#/components/schemas/X`) in a document.
 *
 * @category validation
 * @since 0.1.0
 */
export const resolvePointer = (document: unknown, ref: string): unknown => {
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = document
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined
    node = (node as JsonRecord)[key]
  }
  return node
}

/**
 * Options of {@link make}.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The public base URL of the deployment; trailing slashes are ignored. */
  readonly publicUrl: string
}

/**
 * The OpenAPI 3.1.0 document of the contract.
 *
 * @throws {Error} if a `$ref` of the document does not resolve.
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options): JsonRecord => {
  const document = OpenApi.fromApi(Api.Api) as unknown as JsonRecord
  const paths = document.paths as Record<string, Record<string, JsonRecord>>
  HttpApi.reflect(Api.Api, {
    onGroup() {},
    onEndpoint({ endpoint, mergedAnnotations }) {
      if (Context.get(mergedAnnotations, OpenApi.Exclude)) return
      const op = paths[openApiPath(endpoint.path)]?.[endpoint.method.toLowerCase()]
      if (op === undefined) return
      decorateOperation(op, endpoint, Context.getOrElse(mergedAnnotations, Api.ErrorFamily, () => "solver" as const))
      addExamples(op, String(op.operationId ?? endpoint.identifier))
    }
  })
  const ordered: JsonRecord = {
    openapi: document.openapi,
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: { ...(document.info as JsonRecord), description: INFO_DESCRIPTION_TEXT() },
    servers: [{ url: options.publicUrl.replace(/\/+$/, "") }],
    tags: document.tags,
    paths: document.paths,
    components: { ...(document.components as JsonRecord), headers: HEADERS },
    "x-svc-spec-parts": SPEC_PARTS
  }
  const openapiResponse = (paths["/openapi.json"]?.get?.responses as Record<string, JsonRecord> | undefined)?.["200"]
  const openapiMedia = (openapiResponse?.content as Record<string, JsonRecord> | undefined)?.["application/json"]
  if (openapiMedia !== undefined) {
    openapiMedia.examples = { "1-an-excerpt": { summary: "An excerpt", value: openApiExample(ordered) } }
  }
  for (const ref of collectRefs(ordered)) {
    if (resolvePointer(ordered, ref) === undefined) throw new Error(`svc openapi: unresolved reference ${ref}`)
  }
  return ordered
}
