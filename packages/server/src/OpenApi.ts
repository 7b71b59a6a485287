/**
 * The OpenAPI 3.1 description of the svc server (`/openapi.json`), generated from
 * the same core schemas the server validates with: every resource's JSON Schema
 * (draft 2020-12, `additionalProperties: false` where the schema is strict) goes
 * under `components.schemas`, with `#/$defs/X` references rewritten to
 * `#/components/schemas/X`. Every operation of the spec's part 4 is listed with
 * its operationId, parameters, request body and documented responses; error
 * responses name the codes of `SOLVER_ERRORS` / `AGGREGATOR_ERRORS` per status.
 *
 * Also {@link docsHtml}: a small self-contained API reference page (no external
 * scripts, styles or fonts) that renders the document.
 *
 * @since 0.1.0
 */
import { AGGREGATOR_ERRORS, type AggregatorErrorCode, ErrorCodes, Resources, toJsonSchema } from "@svc/protocol"

type JsonRecord = Record<string, unknown>

/**
 * Options of {@link buildOpenApi}.
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenApiOptions {
  /** The public base URL (`SVC_PUBLIC_URL`); trailing slashes are ignored. */
  readonly publicUrl: string
}

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
 * Every operation of the spec's part 4: operationId, method and path.
 *
 * @category constants
 * @since 0.1.0
 */
export const OPERATIONS = [
  { operationId: "getSolverManifest", method: "get", path: "/.well-known/svc-solver.json" },
  { operationId: "getOnchainDiscovery", method: "get", path: "/.well-known/svc-onchain-discovery.json" },
  { operationId: "getOpenApi", method: "get", path: "/openapi.json" },
  { operationId: "getStandardsManifest", method: "get", path: "/.well-known/svc-standards.json" },
  { operationId: "getSolverDiscovery", method: "get", path: "/api/v6/solver-discovery" },
  { operationId: "aggregator_manifest", method: "get", path: "/.well-known/svc-aggregator.json" },
  { operationId: "getSolverFeed", method: "get", path: "/api/v6/solver-feed" },
  { operationId: "streamSolverFeed", method: "get", path: "/api/v6/solver-feed/events" },
  { operationId: "getRouteDetail", method: "get", path: "/api/v6/routes/{routeId}" },
  { operationId: "buildPermitRequestMessage", method: "post", path: "/api/v6/execution-permits/request-message" },
  { operationId: "createExecutionPermit", method: "post", path: "/api/v6/execution-permits" },
  { operationId: "getExecutionPermit", method: "get", path: "/api/v6/execution-permits/{fillId}" },
  { operationId: "aggregator_quote", method: "post", path: "/v1/quote" },
  { operationId: "aggregator_build", method: "post", path: "/v1/build" },
  { operationId: "aggregator_status", method: "get", path: "/v1/status" },
  { operationId: "aggregator_chains", method: "get", path: "/v1/chains" },
  { operationId: "aggregator_tokens", method: "get", path: "/v1/tokens" },
  { operationId: "aggregator_health", method: "get", path: "/v1/health" }
] as const

// ---------------------------------------------------------------------------
// Components
// ---------------------------------------------------------------------------

const rewriteRefs = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(rewriteRefs)
  if (typeof node === "object" && node !== null) {
    const out: JsonRecord = {}
    for (const [key, value] of Object.entries(node)) {
      out[key] = key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")
        ? `#/components/schemas/${value.slice("#/$defs/".length)}`
        : rewriteRefs(value)
    }
    return out
  }
  return node
}

/**
 * The JSON Schemas of every core resource, keyed by identifier, with references
 * rewritten to `#/components/schemas/...`. Throws if two resources define the
 * same name differently.
 *
 * @category components
 * @since 0.1.0
 */
export const componentSchemas = (): Record<string, JsonRecord> => {
  const schemas: Record<string, JsonRecord> = {}
  const add = (name: string, schema: JsonRecord) => {
    const existing = schemas[name]
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new Error(`svc openapi: two different schemas are named ${name}`)
    }
    schemas[name] = schema
  }
  for (const [name, schema] of Object.entries(Resources)) {
    const doc = toJsonSchema(schema)
    for (const [defName, definition] of Object.entries(doc.definitions)) {
      add(defName, rewriteRefs(definition) as JsonRecord)
    }
    if (doc.schema.$ref !== `#/$defs/${name}`) add(name, rewriteRefs(doc.schema) as JsonRecord)
  }
  return Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k]!]))
}

const HEADERS = {
  ETag: {
    description: "Weak entity tag of the representation. For the feed: " +
      "W/\"<dataVersion>-<first 16 hex digits of feedHash>-<hash of the normalised filter>\"; for /v1/chains " +
      "W/\"<dataVersion>-<first 16 hex digits of feedHash>-chains\" and for /v1/tokens " +
      "W/\"<dataVersion>-<first 16 hex digits of feedHash>-tokens-<chainId or all>\".",
    schema: { type: "string" }
  },
  "Cache-Control": { description: "Caching directives of the response.", schema: { type: "string" } },
  Vary: { description: "Request headers the representation varies on (Accept-Encoding).", schema: { type: "string" } },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 0 } },
  RateLimit: { description: "Current rate-limit state (IETF draft RateLimit header).", schema: { type: "string" } },
  "RateLimit-Policy": { description: "Rate-limit policy (IETF draft RateLimit-Policy header).", schema: { type: "string" } }
} as const

const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` })

// ---------------------------------------------------------------------------
// Operation helpers
// ---------------------------------------------------------------------------

const SOLVER_STATUS_MEANING: Record<number, string> = {
  400: "Invalid request or filter.",
  404: "Resource not found.",
  409: "Idempotency, capacity or inventory conflict.",
  410: "The quote is no longer open or has expired.",
  413: "The request body exceeds 32 KiB.",
  429: "Permit request rate limited.",
  500: "Internal runtime error.",
  503: "Publication surface closed or required authority unavailable."
}

const AGGREGATOR_STATUS_MEANING: Record<number, string> = {
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

type SolverCode = keyof typeof ErrorCodes.SOLVER_ERRORS

const codesWithStatus = <C extends string>(table: Record<C, { readonly status: number }>, status: number): Array<C> =>
  (Object.keys(table) as Array<C>).filter((code) => table[code].status === status)

const codeList = (codes: ReadonlyArray<string>, meaning: (code: string) => string): string =>
  codes.map((code) => `- \`${code}\`: ${meaning(code)}`).join("\n")

const rateLimitHeaders = {
  "Retry-After": headerRef("Retry-After"),
  RateLimit: headerRef("RateLimit"),
  "RateLimit-Policy": headerRef("RateLimit-Policy"),
  "Cache-Control": headerRef("Cache-Control")
}

const solverError = (status: number, codes: ReadonlyArray<SolverCode> = codesWithStatus(ErrorCodes.SOLVER_ERRORS, status)) => ({
  description: `${SOLVER_STATUS_MEANING[status]} Error codes (\`error\`):\n\n${
    codeList(codes, (code) => ErrorCodes.SOLVER_ERRORS[code as SolverCode].meaning)
  }`,
  headers: status === 429 ? rateLimitHeaders : { "Cache-Control": headerRef("Cache-Control") },
  content: { "application/json": { schema: schemaRef("ErrorResponse") } }
})

const solverErrors = (statuses: ReadonlyArray<number>, overrides: Partial<Record<number, ReadonlyArray<SolverCode>>> = {}) =>
  Object.fromEntries(statuses.map((status) => [String(status), solverError(status, overrides[status])]))

const AGGREGATOR_STATUSES = [400, 403, 404, 405, 409, 410, 413, 429, 503] as const

const aggregatorIfNoneMatch = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description: "Weak ETag of a previous response (lists and `*` accepted): 304 while the data version is unchanged.",
  schema: { type: "string" }
}

const aggregatorNotModified = {
  description: "Not modified: the publication (dataVersion, feedHash) is unchanged since the ETag in If-None-Match. No body.",
  headers: { ETag: headerRef("ETag"), "Cache-Control": headerRef("Cache-Control") }
}

const aggregatorErrors = (overrides: Partial<Record<number, ReadonlyArray<AggregatorErrorCode>>> = {}) =>
  Object.fromEntries(AGGREGATOR_STATUSES.map((status) => {
    const codes = overrides[status] ?? codesWithStatus(AGGREGATOR_ERRORS, status)
    return [String(status), {
      description: `${AGGREGATOR_STATUS_MEANING[status]} Error codes (\`error\`, with \`action\` and \`retryable\`):\n\n${
        codeList(codes, (code) => {
          const entry = AGGREGATOR_ERRORS[code as AggregatorErrorCode]
          return `${entry.meaning} (action ${entry.action}, retryable ${entry.retryable})`
        })
      }`,
      headers: status === 429 ? rateLimitHeaders : { "Cache-Control": headerRef("Cache-Control") },
      content: { "application/json": { schema: schemaRef("AggregatorError") } }
    }]
  }))

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/**
 * Every `$ref` of a document (JSON pointers into the document itself).
 *
 * @category validation
 * @since 0.1.0
 */
export const collectRefs = (node: unknown, out: Array<string> = []): Array<string> => {
  if (Array.isArray(node)) for (const item of node) collectRefs(item, out)
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

const json = (schema: unknown, description: string, headers?: JsonRecord) => ({
  description,
  ...(headers === undefined ? {} : { headers }),
  content: { "application/json": { schema } }
})

const cacheHeaders = { "Cache-Control": headerRef("Cache-Control") }

const spec = (parts: ReadonlyArray<keyof typeof SPEC_PARTS>, section: string) => ({ parts: [...parts], section })

const bytes32Param = (name: string, where: "path" | "query", description: string, required: boolean) => ({
  name,
  in: where,
  required,
  description,
  schema: schemaRef("Bytes32")
})

const staticDocument = (
  operationId: string,
  summary: string,
  description: string,
  schema: unknown,
  tag: string,
  section: string
) => ({
  get: {
    operationId,
    tags: [tag],
    summary,
    description,
    responses: { "200": json(schema, summary, cacheHeaders), ...solverErrors([400], { 400: ["INVALID_REQUEST"] }) },
    "x-svc-spec": spec(["4", "2"], section)
  }
})

// ---------------------------------------------------------------------------
// Document
// ---------------------------------------------------------------------------

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
  "This document is generated from the schemas the server validates with."
].join("\n")

/**
 * The OpenAPI 3.1.0 document of the svc server.
 *
 * @throws {Error} if the core schemas disagree (two different schemas with one
 *   name) or an operation refers to an unknown schema.
 * @category builders
 * @since 0.1.0
 */
export const buildOpenApi = (options: OpenApiOptions): JsonRecord => {
  const publicUrl = options.publicUrl.replace(/\/+$/, "")
  const schemas = componentSchemas()

  const feedHeaders = {
    ETag: headerRef("ETag"),
    "Cache-Control": headerRef("Cache-Control"),
    Vary: headerRef("Vary")
  }

  const paths: JsonRecord = {
    "/.well-known/svc-solver.json": staticDocument(
      "getSolverManifest",
      "Solver manifest",
      "The solver discovery manifest (identical body to `GET /api/v6/solver-discovery`): feed signer, release, " +
        "endpoints, permit request signing, standards and passive on-chain discovery. Static; cacheable per its headers.",
      schemaRef("SolverDiscovery"),
      "Discovery",
      "Discovery documents"
    ),
    "/.well-known/svc-onchain-discovery.json": staticDocument(
      "getOnchainDiscovery",
      "On-chain discovery fingerprint",
      "Contract addresses, runtime code hashes, selectors, the SourceFillV6 event, the CREATE2 deployment, " +
        "chain evidence and the scanner hints (9 read-only probe steps). Static; cacheable per its headers.",
      schemaRef("OnchainDiscoveryFingerprint"),
      "Discovery",
      "Discovery documents"
    ),
    "/openapi.json": staticDocument(
      "getOpenApi",
      "OpenAPI description",
      "This document (OpenAPI 3.1.0, JSON Schema 2020-12). Static; cacheable per its headers.",
      {
        type: "object",
        required: ["openapi", "info", "paths", "components"],
        properties: {
          openapi: { type: "string" },
          info: { type: "object" },
          paths: { type: "object" },
          components: { type: "object" }
        }
      },
      "Discovery",
      "Discovery documents"
    ),
    "/.well-known/svc-standards.json": staticDocument(
      "getStandardsManifest",
      "Standards manifest",
      "The ERC-7683 (executable resolver) and OIF (description only) modules, the router and the standard " +
        "payload encoding `abi.encode(ExecutionPermit,bytes)`. Static; cacheable per its headers.",
      schemaRef("StandardsManifest"),
      "Discovery",
      "Discovery documents"
    ),
    "/api/v6/solver-discovery": {
      get: {
        operationId: "getSolverDiscovery",
        tags: ["Discovery"],
        summary: "Solver discovery",
        description: "The solver discovery manifest, the same body as `/.well-known/svc-solver.json`.",
        responses: {
          "200": json(schemaRef("SolverDiscovery"), "The solver discovery manifest.", cacheHeaders),
          ...solverErrors([500, 503])
        },
        "x-svc-spec": spec(["4", "2"], "Discovery documents")
      }
    },
    "/.well-known/svc-aggregator.json": staticDocument(
      "aggregator_manifest",
      "Aggregator manifest",
      "Where the aggregator operations live (absolute URLs), the permit authority (`feedSigner`), the solver " +
        "discovery URL, rate limits and body limits. Static; cacheable per its headers.",
      schemaRef("AggregatorManifest"),
      "Aggregator",
      "Discovery documents"
    ),
    "/api/v6/solver-feed": {
      get: {
        operationId: "getSolverFeed",
        tags: ["Feed"],
        summary: "Signed route feed",
        description: [
          "The signed recovery/inspection feed. `sourceChainId` and `sourceNetworkId` reduce `routes` and",
          "`openRoutes` and set `returnedRouteCount` / `returnedOpenRouteCount`; `signedPayload` stays complete",
          "and unfiltered, and verification uses `signedPayload` only, never a filtered view. When both filters",
          "are given a route must match both.",
          "",
          "Send the ETag of a previous response in `If-None-Match`: while feedHash, dataVersion and the",
          "normalised filter view are unchanged the answer is 304 without a body."
        ].join("\n"),
        parameters: [
          {
            name: "sourceChainId",
            in: "query",
            required: false,
            description: "Only routes whose sourceChainId is this EVM chain id.",
            schema: { type: "string", pattern: "^[1-9][0-9]*$" }
          },
          bytes32Param("sourceNetworkId", "query", "Only routes whose sourceNetworkId is this network id.", false),
          {
            name: "If-None-Match",
            in: "header",
            required: false,
            description: "Weak ETag of a previous identical filtered view (lists and `*` accepted).",
            schema: { type: "string" }
          }
        ],
        responses: {
          "200": json(schemaRef("FeedResponse"), "The signed feed with its filtered convenience views.", feedHeaders),
          "304": {
            description: "Not modified: feedHash, dataVersion and the normalised filter view are unchanged from the view " +
              "identified by If-None-Match. No body.",
            headers: feedHeaders
          },
          ...solverErrors([400, 500, 503], { 400: ["INVALID_REQUEST"] })
        },
        "x-svc-spec": spec(["4", "5", "2"], "GET /api/v6/solver-feed (getSolverFeed)")
      }
    },
    "/api/v6/solver-feed/events": {
      get: {
        operationId: "streamSolverFeed",
        tags: ["Feed"],
        summary: "Signed feed event stream",
        description: [
          "A current-state stream of the confirmed active set (server-sent events), push-driven, with no replay",
          "and no polling. Event names:",
          "",
          "- `feed`: `id` is the feed dataVersion, `data` a `SignedFeed`;",
          "- `publication-closed`: `data` an `SseErrorEvent`; publication stopped, the stream ends;",
          "- `error`: `data` an `SseErrorEvent`; an internal failure, the stream ends.",
          "",
          "On connect the current `feed` event is sent immediately, unless Last-Event-ID equals the current",
          "dataVersion (then the initial event is suppressed). Every later confirmed publication is emitted.",
          "The stream sends `retry: 3000` and a comment heartbeat at least every 15 s. A subscription is",
          "transport, not authority: verify signed state before execution, and fall back to a fresh verified",
          "`GET /api/v6/solver-feed` when recovery is not possible."
        ].join("\n"),
        parameters: [
          {
            name: "Last-Event-ID",
            in: "header",
            required: false,
            description: "dataVersion of the last `feed` event received; only suppresses an identical initial event. " +
              "An invalid value is ignored.",
            schema: { type: "string", pattern: "^(?:0|[1-9][0-9]*)$" }
          }
        ],
        responses: {
          "200": {
            description: "The event stream (`feed`, `publication-closed`, `error`).",
            headers: cacheHeaders,
            content: {
              "text/event-stream": {
                schema: { type: "string", description: "server-sent events: event, id, data lines" }
              }
            },
            "x-svc-events": {
              feed: { schema: schemaRef("SignedFeed"), id: "dataVersion" },
              "publication-closed": { schema: schemaRef("SseErrorEvent") },
              error: { schema: schemaRef("SseErrorEvent") }
            }
          },
          ...solverErrors([400, 500, 503], { 400: ["INVALID_REQUEST"] })
        },
        "x-svc-spec": spec(["4", "6"], "GET /api/v6/solver-feed/events (streamSolverFeed)")
      }
    },
    "/api/v6/routes/{routeId}": {
      get: {
        operationId: "getRouteDetail",
        tags: ["Routes"],
        summary: "Route detail",
        description: "The exact canonical route of the active signed feed plus separate observational metrics. " +
          "Optional before a permit request.",
        parameters: [
          bytes32Param("routeId", "path", "The canonical routeId from the active signed feed (hex in either case).", true)
        ],
        responses: {
          "200": json(schemaRef("RouteDetailResponse"), "The route and its metrics.", cacheHeaders),
          ...solverErrors([400, 404, 500, 503], { 400: ["INVALID_REQUEST"], 404: ["ROUTE_NOT_FOUND", "NOT_FOUND"] })
        },
        "x-svc-spec": spec(["4", "2"], "GET /api/v6/routes/{routeId} (getRouteDetail)")
      }
    },
    "/api/v6/execution-permits/request-message": {
      post: {
        operationId: "buildPermitRequestMessage",
        tags: ["Permits"],
        summary: "Build the permit request message",
        description: "Returns the exact deterministic UTF-8 message to sign (EIP-191 personal_sign) for a permit " +
          "request; runs every check of permit creation except the signature, the idempotency key claim and the " +
          "reservation. A compatibility aid: clients may build the message locally.",
        requestBody: {
          required: true,
          description: "A permit request; requestSignature is not required.",
          content: { "application/json": { schema: schemaRef("PermitRequest") } }
        },
        responses: {
          "200": json(schemaRef("PermitRequestMessageResponse"), "The message to sign.", cacheHeaders),
          ...solverErrors([400, 409, 410, 413, 500, 503], {
            400: ["INVALID_REQUEST", "UNSUPPORTED_STANDARD", "AMOUNT_INVALID", "AMOUNT_TOO_LOW", "IDENTITY_INVALID"]
          })
        },
        "x-svc-spec": spec(["4", "5"], "POST /api/v6/execution-permits/request-message (buildPermitRequestMessage)")
      }
    },
    "/api/v6/execution-permits": {
      post: {
        operationId: "createExecutionPermit",
        tags: ["Permits"],
        summary: "Create an execution permit",
        description: [
          "Issues a permit for a selected quote after fresh amount-bound repricing and authorization.",
          "Sign the exact bytes of the request message and submit the identical normalised request with",
          "`requestSignature`. Retry only with the same request and the same idempotency key: a repeated",
          "identical request returns 200 with `idempotent: true` and the existing permit; a new permit returns 201.",
          "When the intent changes, use a new key and a new signature."
        ].join("\n"),
        parameters: [
          {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            description: "Must equal the body idempotencyKey when both are supplied.",
            schema: schemaRef("IdempotencyKey")
          }
        ],
        requestBody: {
          required: true,
          description: "A permit request with requestSignature.",
          content: { "application/json": { schema: schemaRef("PermitCreateRequest") } }
        },
        responses: {
          "200": json(
            schemaRef("ExecutionPermitResponse"),
            "The existing permit, returned for an identical idempotent request (`idempotent: true`).",
            cacheHeaders
          ),
          "201": json(schemaRef("ExecutionPermitResponse"), "A new permit was issued (`idempotent: false`).", cacheHeaders),
          ...solverErrors([400, 409, 410, 413, 429, 500, 503], {
            400: [
              "INVALID_REQUEST",
              "IDEMPOTENCY_KEY_MISMATCH",
              "UNSUPPORTED_STANDARD",
              "AMOUNT_INVALID",
              "AMOUNT_TOO_LOW",
              "IDENTITY_INVALID",
              "SIGNATURE_INVALID"
            ]
          })
        },
        "x-svc-spec": spec(["4", "5", "8"], "POST /api/v6/execution-permits (createExecutionPermit)")
      }
    },
    "/api/v6/execution-permits/{fillId}": {
      get: {
        operationId: "getExecutionPermit",
        tags: ["Permits"],
        summary: "Permit status",
        description: "The current persisted permit and its fill state (ISSUED, SOURCE_OBSERVED, SOURCE_CONFIRMED, " +
          "PAYOUT_SUBMITTED, PAID; or EXPIRED, FAILED). PAID implies sourceTxHash and payoutTxHash.",
        parameters: [bytes32Param("fillId", "path", "The fillId of the permit (hex in either case).", true)],
        responses: {
          "200": json(schemaRef("PermitStatusResponse"), "The persisted permit.", cacheHeaders),
          ...solverErrors([400, 404, 500], { 400: ["INVALID_REQUEST"], 404: ["PERMIT_NOT_FOUND", "NOT_FOUND"] })
        },
        "x-svc-spec": spec(["4", "3"], "GET /api/v6/execution-permits/{fillId} (getExecutionPermit)")
      }
    },
    "/v1/quote": {
      post: {
        operationId: "aggregator_quote",
        tags: ["Aggregator"],
        summary: "Exact quote",
        description: "An exact quote from one currently open L1 route (ties: highest amountOut, then rank). " +
          "Show the returned terms; obtain a fresh quote once expiresAt has passed. Aggregator fees are external " +
          "and never change the signed amounts.",
        security: [],
        requestBody: {
          required: true,
          content: { "application/json": { schema: schemaRef("AggregatorQuoteRequest") } }
        },
        responses: {
          "200": json(schemaRef("AggregatorQuote"), "The quote.", cacheHeaders),
          ...aggregatorErrors({ 404: ["NO_ROUTE", "NOT_FOUND"] })
        },
        "x-svc-spec": spec(["4", "1"], "Aggregator operations")
      }
    },
    "/v1/build": {
      post: {
        operationId: "aggregator_build",
        tags: ["Aggregator"],
        summary: "Build the wallet transaction",
        description: [
          "Two stages. Stage 1 (no requestSignature) returns `signatureRequired: true` and the canonical",
          "request message in `signingPayload`; the wallet signs it with personal_sign. Stage 2 repeats the",
          "identical body plus `requestSignature` and returns `signatureRequired: false`, the `fillDirect`",
          "transaction, the approval (or null) and the signed permit. quoteToken binds the exact displayed",
          "amount; no fee or execution-field overrides are accepted."
        ].join("\n"),
        security: [],
        requestBody: {
          required: true,
          content: { "application/json": { schema: schemaRef("AggregatorBuildRequest") } }
        },
        responses: {
          "200": json(schemaRef("AggregatorBuild"), "Stage 1 (message to sign) or stage 2 (transaction).", cacheHeaders),
          ...aggregatorErrors({ 404: ["QUOTE_NOT_FOUND", "NOT_FOUND"] })
        },
        "x-svc-spec": spec(["4", "5"], "Aggregator operations")
      }
    },
    "/v1/status": {
      get: {
        operationId: "aggregator_status",
        tags: ["Aggregator"],
        summary: "Fill status, wallet history or quote usability",
        description: "Give exactly one lookup parameter: `fillId` or `sourceTxHash` return one fill; `quoteId` or " +
          "`userAddress` return up to 20 recent fills, newest first; `quoteToken` checks an unbuilt quote.",
        security: [],
        parameters: [
          bytes32Param("fillId", "query", "Returns one fill.", false),
          bytes32Param("sourceTxHash", "query", "Returns one fill.", false),
          bytes32Param("quoteId", "query", "Returns up to 20 recent fills.", false),
          {
            name: "userAddress",
            in: "query",
            required: false,
            description: "Returns up to 20 recent fills.",
            schema: schemaRef("Address")
          },
          {
            name: "quoteToken",
            in: "query",
            required: false,
            description: "Checks an unbuilt quote.",
            schema: schemaRef("AggregatorQuoteToken")
          }
        ],
        responses: {
          "200": json(
            { oneOf: [schemaRef("AggregatorStatus"), schemaRef("AggregatorStatusList"), schemaRef("AggregatorQuoteValidity")] },
            "One fill (fillId, sourceTxHash), recent fills (quoteId, userAddress) or quote usability (quoteToken).",
            cacheHeaders
          ),
          ...aggregatorErrors({ 404: ["FILL_NOT_FOUND", "NOT_FOUND"] })
        },
        "x-svc-spec": spec(["4", "3"], "Aggregator operations")
      }
    },
    "/v1/chains": {
      get: {
        operationId: "aggregator_chains",
        tags: ["Aggregator"],
        summary: "Chains, pairs and routes",
        description: "Networks, open directional pairs (spread a `pairs` entry into a quote request) and routes with " +
          "their per-route limits in raw source-token units (never summed). Revalidate with If-None-Match (304).",
        security: [],
        parameters: [aggregatorIfNoneMatch],
        responses: {
          "200": json(schemaRef("AggregatorChains"), "Chains, pairs and routes.", {
            ETag: headerRef("ETag"),
            "Cache-Control": headerRef("Cache-Control")
          }),
          "304": aggregatorNotModified,
          ...aggregatorErrors({ 404: ["NOT_FOUND"] })
        },
        "x-svc-spec": spec(["4"], "Aggregator operations")
      }
    },
    "/v1/tokens": {
      get: {
        operationId: "aggregator_tokens",
        tags: ["Aggregator"],
        summary: "Token metadata",
        description: "Token metadata (address, chainId, symbol, decimals); optional chainId filter.",
        security: [],
        parameters: [
          {
            name: "chainId",
            in: "query",
            required: false,
            description: "Only tokens of this chain (a chain not in /v1/chains: 400 UNSUPPORTED_CHAIN).",
            schema: { type: "integer", minimum: 1 }
          },
          aggregatorIfNoneMatch
        ],
        responses: {
          "200": json(schemaRef("AggregatorTokens"), "Tokens.", {
            ETag: headerRef("ETag"),
            "Cache-Control": headerRef("Cache-Control")
          }),
          "304": aggregatorNotModified,
          ...aggregatorErrors({ 404: ["NOT_FOUND"] })
        },
        "x-svc-spec": spec(["4"], "Aggregator operations")
      }
    },
    "/v1/health": {
      get: {
        operationId: "aggregator_health",
        tags: ["Aggregator"],
        summary: "Availability",
        description: "Availability, publication state, public data version and timestamp.",
        security: [],
        responses: {
          "200": json(schemaRef("AggregatorHealth"), "Health.", cacheHeaders),
          ...aggregatorErrors({ 404: ["NOT_FOUND"] })
        },
        "x-svc-spec": spec(["4"], "Aggregator operations")
      }
    }
  }

  const document: JsonRecord = {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Svc V6 Solver and Aggregator API",
      version: "1.0.0",
      description: INFO_DESCRIPTION
    },
    servers: [{ url: publicUrl }],
    tags: [
      { name: "Discovery", description: "Static discovery documents (spec part 4, Discovery documents)." },
      { name: "Feed", description: "The signed route feed and its event stream." },
      { name: "Routes", description: "Route detail." },
      { name: "Permits", description: "Execution permits: request message, creation, status." },
      { name: "Aggregator", description: "Quote, build, status, chains, tokens and health (no authentication)." }
    ],
    paths,
    components: { schemas, headers: HEADERS },
    "x-svc-spec-parts": SPEC_PARTS
  }
  for (const ref of collectRefs(document)) {
    if (resolvePointer(document, ref) === undefined) throw new Error(`svc openapi: unresolved reference ${ref}`)
  }
  return document
}

// ---------------------------------------------------------------------------
// Docs page
// ---------------------------------------------------------------------------

/**
 * Options of {@link docsHtml}.
 *
 * @category models
 * @since 0.1.0
 */
export interface DocsHtmlOptions {
  /**
   * URL of the interface specification (markdown rendered with GitHub-style
   * heading anchors). When absent, spec references link to the spec-part index
   * on the page itself.
   */
  readonly specUrl?: string | undefined
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

const scriptString = (value: string): string => JSON.stringify(value).replace(/</g, "\\u003c")

const DOCS_STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--code:#f6f8fa;--get:#0969da;--post:#1a7f37}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8d96a0;--line:#30363d;--code:#161b22;--get:#4493f8;--post:#3fb950}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1100px;margin:0 auto;padding:24px}h1{margin:0 0 4px}h2{margin-top:32px;border-bottom:1px solid var(--line)}
.muted{color:var(--muted)}code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border-radius:4px}
code{padding:1px 4px}pre{padding:8px;overflow:auto;white-space:pre-wrap}
details{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:0 12px}details[open]{padding-bottom:12px}
summary{cursor:pointer;padding:8px 0}.op>summary{display:flex;gap:12px;align-items:baseline;flex-wrap:wrap}
.method{font:700 12px ui-monospace,monospace;text-transform:uppercase;padding:2px 8px;border-radius:4px;color:#fff;min-width:52px;text-align:center}
.get{background:var(--get)}.post{background:var(--post)}.path{font-family:ui-monospace,monospace;font-weight:600}
table{border-collapse:collapse;width:100%;margin:8px 0}th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.schema{margin-left:12px}.kw{color:var(--muted)}nav a{margin-right:12px}.desc{white-space:pre-wrap}
`

const DOCS_SCRIPT = `
"use strict";
const $ = (tag, attrs, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") el.className = v; else if (k === "text") el.textContent = v; else el.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) el.append(c);
  return el;
};
const slug = (text) => text.toLowerCase().replace(/[^a-z0-9 -]/g, "").trim().replace(/ /g, "-");
let doc = null;
const resolveRef = (ref) => {
  if (typeof ref !== "string" || !ref.startsWith("#/")) return undefined;
  return ref.slice(2).split("/").reduce((node, key) => node === undefined ? undefined : node[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
};
const refName = (ref) => ref.split("/").pop();
const scalar = (s) => {
  const parts = [];
  if (s.type) parts.push(Array.isArray(s.type) ? s.type.join(" | ") : s.type);
  if (s.enum) parts.push("one of " + s.enum.map((v) => JSON.stringify(v)).join(", "));
  if (s.const !== undefined) parts.push("= " + JSON.stringify(s.const));
  if (s.pattern) parts.push("pattern " + s.pattern);
  for (const k of ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "format"]) if (s[k] !== undefined) parts.push(k + " " + s[k]);
  if (s.additionalProperties === false) parts.push("no additional properties");
  return parts.join("; ");
};
// Renders a JSON Schema node; $ref and nested objects expand lazily on toggle.
const renderSchema = (schema, label) => {
  if (schema === undefined || schema === null) return $("span", { class: "muted", text: "(none)" });
  if (typeof schema.$ref === "string") {
    const box = $("details", { class: "schema" }, $("summary", {}, label ? label + ": " : "", $("code", { text: refName(schema.$ref) })));
    box.addEventListener("toggle", () => {
      if (box.open && box.childElementCount === 1) box.append(renderSchema(resolveRef(schema.$ref)));
    }, { once: false });
    return box;
  }
  const wrap = $("div", { class: "schema" });
  if (schema.description) wrap.append($("div", { class: "muted desc", text: schema.description }));
  const info = scalar(schema);
  if (info) wrap.append($("div", {}, $("span", { class: "kw", text: info })));
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    if (Array.isArray(schema[key])) {
      wrap.append($("div", { class: "kw", text: key + ":" }));
      schema[key].forEach((s, i) => wrap.append(renderSchema(s, "option " + (i + 1))));
    }
  }
  if (schema.properties) {
    const required = new Set(schema.required || []);
    const table = $("table", {}, $("tr", {}, $("th", { text: "property" }), $("th", { text: "required" }), $("th", { text: "schema" })));
    for (const [name, sub] of Object.entries(schema.properties)) {
      table.append($("tr", {}, $("td", {}, $("code", { text: name })), $("td", { text: required.has(name) ? "yes" : "no" }), $("td", {}, renderSchema(sub))));
    }
    wrap.append(table);
  }
  if (schema.items) wrap.append($("div", { class: "kw", text: "items:" }), renderSchema(schema.items));
  if (Array.isArray(schema.prefixItems)) {
    wrap.append($("div", { class: "kw", text: "prefixItems:" }));
    schema.prefixItems.forEach((s, i) => wrap.append(renderSchema(s, "item " + i)));
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    wrap.append($("div", { class: "kw", text: "values:" }), renderSchema(schema.additionalProperties));
  }
  return wrap;
};
const specLinks = (ext) => {
  if (!ext) return null;
  const titles = doc["x-svc-spec-parts"] || {};
  const line = $("p", {}, "Implements: ");
  ext.parts.forEach((part, i) => {
    const title = part + ". " + (titles[part] || "");
    const href = SPEC_URL ? SPEC_URL + "#" + slug(title) : "#spec-part-" + part;
    if (i > 0) line.append(", ");
    line.append($("a", { href, text: "spec part " + title }));
  });
  line.append(" (", $("em", { text: ext.section }), ")");
  return line;
};
const renderOperation = (path, method, op) => {
  const box = $("details", { class: "op", id: op.operationId },
    $("summary", {}, $("span", { class: "method " + method, text: method }), $("span", { class: "path", text: path }),
      $("span", { text: op.summary || "" }), $("code", { text: op.operationId })));
  box.addEventListener("toggle", () => {
    if (!box.open || box.dataset.rendered) return;
    box.dataset.rendered = "1";
    if (op.description) box.append($("div", { class: "desc", text: op.description }));
    box.append(specLinks(op["x-svc-spec"]));
    if (op.parameters && op.parameters.length) {
      const table = $("table", {}, $("tr", {}, ...["name", "in", "required", "description", "schema"].map((t) => $("th", { text: t }))));
      for (const p of op.parameters) {
        table.append($("tr", {}, $("td", {}, $("code", { text: p.name })), $("td", { text: p.in }), $("td", { text: p.required ? "yes" : "no" }),
          $("td", { text: p.description || "" }), $("td", {}, renderSchema(p.schema))));
      }
      box.append($("h4", { text: "Parameters" }), table);
    }
    if (op.requestBody) {
      box.append($("h4", { text: "Request body" + (op.requestBody.required ? " (required)" : "") }));
      if (op.requestBody.description) box.append($("div", { class: "desc", text: op.requestBody.description }));
      for (const [type, media] of Object.entries(op.requestBody.content || {})) box.append(renderSchema(media.schema, type));
    }
    box.append($("h4", { text: "Responses" }));
    for (const [status, response] of Object.entries(op.responses || {})) {
      const r = $("details", {}, $("summary", {}, $("strong", { text: status }), " ", (response.description || "").split("\\n")[0]));
      r.append($("div", { class: "desc", text: response.description || "" }));
      if (response.headers) {
        r.append($("div", { class: "kw", text: "headers: " + Object.keys(response.headers).join(", ") }));
      }
      for (const [type, media] of Object.entries(response.content || {})) r.append(renderSchema(media.schema, type));
      if (response["x-svc-events"]) {
        r.append($("div", { class: "kw", text: "events:" }));
        for (const [name, ev] of Object.entries(response["x-svc-events"])) {
          r.append(renderSchema(ev.schema, "event " + name + (ev.id ? " (id = " + ev.id + ")" : "")));
        }
      }
      box.append(r);
    }
  });
  return box;
};
const render = (root) => {
  const info = doc.info || {};
  root.append($("h1", { text: info.title || "API" }), $("div", { class: "muted", text: "version " + info.version + " · OpenAPI " + doc.openapi + " · " }, $("a", { href: OPENAPI_URL, text: "openapi.json" })));
  if (info.description) root.append($("p", { class: "desc", text: info.description }));
  const byTag = new Map();
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const op = item[method];
      if (!op) continue;
      const tag = (op.tags && op.tags[0]) || "Other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push([path, method, op]);
    }
  }
  const nav = $("nav", {});
  for (const tag of byTag.keys()) nav.append($("a", { href: "#tag-" + slug(tag), text: tag }));
  nav.append($("a", { href: "#schemas", text: "Schemas" }), $("a", { href: "#spec-parts", text: "Spec parts" }));
  root.append(nav);
  const tags = new Map((doc.tags || []).map((t) => [t.name, t.description]));
  for (const [tag, ops] of byTag) {
    root.append($("h2", { id: "tag-" + slug(tag), text: tag }));
    if (tags.get(tag)) root.append($("p", { class: "muted", text: tags.get(tag) }));
    for (const [path, method, op] of ops) root.append(renderOperation(path, method, op));
  }
  root.append($("h2", { id: "schemas", text: "Schemas" }));
  for (const name of Object.keys((doc.components && doc.components.schemas) || {})) {
    root.append(renderSchema({ $ref: "#/components/schemas/" + name }));
  }
  root.append($("h2", { id: "spec-parts", text: "Spec parts" }));
  const list = $("ol", {});
  for (const [part, title] of Object.entries(doc["x-svc-spec-parts"] || {})) {
    const item = $("li", { id: "spec-part-" + part, value: part });
    item.append(SPEC_URL ? $("a", { href: SPEC_URL + "#" + slug(part + ". " + title), text: title }) : title);
    list.append(item);
  }
  root.append(list);
  if (location.hash) { const target = document.getElementById(location.hash.slice(1)); if (target) { if (target.tagName === "DETAILS") target.open = true; target.scrollIntoView(); } }
};
fetch(OPENAPI_URL, { headers: { accept: "application/json" } })
  .then((r) => { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
  .then((d) => { doc = d; const root = document.getElementById("app"); root.textContent = ""; render(root); })
  .catch((e) => { document.getElementById("app").textContent = "Could not load " + OPENAPI_URL + ": " + e.message; });
`

/**
 * A small, self-contained HTML API reference (no external scripts, styles or
 * fonts): it fetches the OpenAPI document at `openapiUrl` and lists every
 * operation with method, path, summary, parameters, request and response
 * schemas (expandable) and links to the spec part it implements.
 *
 * @category docs
 * @since 0.1.0
 */
export const docsHtml = (openapiUrl: string, options: DocsHtmlOptions = {}): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Svc V6 Solver and Aggregator API</title>
<style>${DOCS_STYLE}</style>
</head>
<body>
<main id="app"><noscript>This page renders ${escapeHtml(openapiUrl)} with JavaScript.</noscript><p class="muted">Loading the API description…</p></main>
<script>
const OPENAPI_URL = ${scriptString(openapiUrl)};
const SPEC_URL = ${options.specUrl === undefined ? "null" : scriptString(options.specUrl)};
${DOCS_SCRIPT}
</script>
</body>
</html>
`
