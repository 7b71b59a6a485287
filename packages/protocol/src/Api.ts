/**
 * The HTTP contract of an svc deployment, declared once per operation with
 * Effect's `HttpApi`: path, method, parameters, body, success and error schemas
 * with their statuses, the operationId of the spec, the caching class, and the
 * documentation of each operation. Everything else is derived from it:
 *
 * - the server's routing and request decoding (`@svc/server`, `HttpApiBuilder`);
 * - `openapi.json` (`ApiDocument.make`);
 * - the client's URLs and response decoding (`@svc/client`).
 *
 * Operations are grouped by the spec's tags (Discovery, Feed, Routes, Permits,
 * Aggregator). Endpoint names are the spec's operationIds. Annotations carry what
 * HttpApi has no slot for: {@link CacheClass}, {@link ErrorFamily},
 * {@link PathNotFound}, {@link FastPath} and {@link Docs}.
 *
 * @since 0.1.0
 */
import { Context, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
import type { SolverErrorCode } from "./ErrorCodes.ts"
import { CHAIN_ID } from "./Patterns.ts"
import {
  AggregatorBuild,
  AggregatorBuildRequest,
  AggregatorChains,
  AggregatorError,
  AggregatorHealth,
  AggregatorManifest,
  AggregatorQuote,
  AggregatorQuoteRequest,
  AggregatorQuoteToken,
  AggregatorQuoteValidity,
  AggregatorStatus,
  AggregatorStatusList,
  AggregatorTokens,
  HealthReport
} from "./schema/Aggregator.ts"
import { OnchainDiscoveryFingerprint, SolverDiscovery, StandardsManifest } from "./schema/Discovery.ts"
import { FeedResponse, RouteDetailResponse } from "./schema/Feed.ts"
import { Resources } from "./schema/index.ts"
import {
  ErrorResponse,
  ExecutionPermitResponse,
  PermitCreateRequest,
  PermitRequest,
  PermitRequestMessageResponse,
  PermitStatusResponse
} from "./schema/Permit.ts"
import { Address, Bytes32 } from "./schema/Primitives.ts"

// ---------------------------------------------------------------------------
// Annotations
// ---------------------------------------------------------------------------

/**
 * The caching classes of responses (docs/operations.md, HTTP rules of the solver
 * interface, Caching): `revalidate` for the feed, chains and tokens (`no-cache`,
 * revalidate with the ETag), `noStore` for route, permit, status, stream and
 * errors, `manifest` for the solver manifest and solver-discovery, `document` for
 * the fingerprint, standards and openapi.
 *
 * @category http
 * @since 0.1.0
 */
export const CACHE_CONTROL = {
  revalidate: "no-cache",
  noStore: "no-store",
  manifest: "public, max-age=60",
  document: "public, max-age=300, stale-while-revalidate=3600"
} as const

/**
 * A caching class of {@link CACHE_CONTROL}.
 *
 * @category http
 * @since 0.1.0
 */
export type CacheClassName = keyof typeof CACHE_CONTROL

/**
 * Annotation: the caching class of an operation's successful responses (errors
 * are always `no-store`). Default `noStore`.
 *
 * @category services
 * @since 0.1.0
 */
export class CacheClass extends Context.Service<CacheClass, CacheClassName>()("@svc/protocol/Api/CacheClass") {}

/**
 * Annotation (on a group): which error body the operations answer with:
 * `solver` (`ErrorResponse`) or `aggregator` (`AggregatorError`).
 *
 * @category services
 * @since 0.1.0
 */
export class ErrorFamily
  extends Context.Service<ErrorFamily, "solver" | "aggregator">()("@svc/protocol/Api/ErrorFamily")
{}

/**
 * Annotation: the error code of a path parameter that fails its schema. A
 * malformed id is answered like an unknown one (the same 404), so that the
 * answer says nothing about the shape of ids.
 *
 * @category services
 * @since 0.1.0
 */
export class PathNotFound extends Context.Service<PathNotFound, SolverErrorCode>()("@svc/protocol/Api/PathNotFound") {}

/**
 * Annotation: why an operation is served by the server's `node:http` fast path
 * (prepared bytes written without the generic stack) as well as by its handler.
 * Both paths answer identically; the handler is what embedders without the fast
 * path get.
 *
 * @category services
 * @since 0.1.0
 */
export class FastPath extends Context.Service<FastPath, string>()("@svc/protocol/Api/FastPath") {}

/**
 * Annotation (aggregator operations): which per-client budget a request spends:
 * `write` (quote and build: the request budget and the quote-and-build budget),
 * `read` (the request budget), `none` (the manifest and health: free, so that
 * monitoring never eats a client's budget). Default `read`.
 *
 * @category services
 * @since 0.1.0
 */
export class RateLimitClass
  extends Context.Service<RateLimitClass, "write" | "read" | "none">()("@svc/protocol/Api/RateLimitClass")
{}

/**
 * The documentation of an operation that HttpApi has no slot for.
 *
 * @category models
 * @since 0.1.0
 */
export interface OperationDocs {
  /** Where the spec defines it: its parts and section title. */
  readonly spec: { readonly parts: ReadonlyArray<string>; readonly section: string }
  /** Parameter descriptions, by name (headers in their canonical case, e.g. `If-None-Match`). */
  readonly parameters?: Readonly<Record<string, string>> | undefined
  /**
   * The documented JSON Schema of a parameter, where the wire form is narrower
   * than what the server accepts (an invalid Last-Event-ID is ignored, not refused).
   */
  readonly parameterSchemas?: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined
  /** Description of the request body. */
  readonly requestBody?: string | undefined
  /** The error codes listed for a status, when not every code of that status applies. */
  readonly errorCodes?: Readonly<Record<number, ReadonlyArray<string>>> | undefined
  /** Response headers documented per status (names of `components.headers`). */
  readonly responseHeaders?: Readonly<Record<number, ReadonlyArray<string>>> | undefined
  /** Description of each success status. */
  readonly responses?: Readonly<Record<number, string>> | undefined
  /** Extensions (`x-...`) of the 200 response. */
  readonly responseExtensions?: Readonly<Record<string, unknown>> | undefined
}

/**
 * Annotation: the documentation of an operation (see {@link OperationDocs}).
 *
 * @category services
 * @since 0.1.0
 */
export class Docs extends Context.Service<Docs, OperationDocs>()("@svc/protocol/Api/Docs") {}

// ---------------------------------------------------------------------------
// Middleware (declared here, implemented by the server)
// ---------------------------------------------------------------------------

/**
 * Middleware of every operation: renders a request that fails its declared
 * parameters, query or headers as the operation's error body (a malformed path
 * id as the {@link PathNotFound} 404).
 *
 * @category services
 * @since 0.1.0
 */
export class RequestValidation
  extends HttpApiMiddleware.Service<RequestValidation>()("@svc/protocol/Api/RequestValidation")
{}

/**
 * Middleware of the aggregator operations, outside {@link RequestValidation}:
 * the browser Origin allow-list and the per-client rate limits, checked before
 * anything else (and their RateLimit headers on every answer).
 *
 * @category services
 * @since 0.1.0
 */
export class Admission extends HttpApiMiddleware.Service<Admission>()("@svc/protocol/Api/Admission") {}

// ---------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------

/**
 * The query of an operation that takes none: every key is refused.
 *
 * @category schemas
 * @since 0.1.0
 */
export const NoQuery = Schema.Record(Schema.String, Schema.Never)

/** An ErrorResponse at a status. */
const solverError = (status: number) => ErrorResponse.pipe(HttpApiSchema.status(status))

/** An AggregatorError at a status. */
const aggregatorError = (status: number) => AggregatorError.pipe(HttpApiSchema.status(status))

/**
 * Every status an aggregator operation may answer with an AggregatorError.
 *
 * @category constants
 * @since 0.1.0
 */
export const AGGREGATOR_ERROR_STATUSES = [400, 403, 404, 405, 409, 410, 413, 429, 503] as const

const aggregatorErrors = AGGREGATOR_ERROR_STATUSES.map(aggregatorError)

/** The body of /openapi.json (its required keys). */
const OpenApiDocument = Schema.StructWithRest(
  Schema.Struct({
    openapi: Schema.String,
    info: Schema.Record(Schema.String, Schema.Unknown),
    paths: Schema.Record(Schema.String, Schema.Unknown),
    components: Schema.Record(Schema.String, Schema.Unknown)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ description: "An OpenAPI 3.1.0 document" })

/** The event stream body. */
const EventStream = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/event-stream" })).annotate({
  description: "server-sent events: event, id, data lines"
})

/** An HTML page. */
const HtmlPage = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" }))

const NotModified = HttpApiSchema.Empty(304)

const Optional = Schema.optionalKey

const staticDocument = <const Name extends string, const Path extends `/${string}`, S extends Schema.Top>(
  name: Name,
  path: Path,
  success: S,
  cache: CacheClassName,
  summary: string,
  description: string
) =>
  HttpApiEndpoint.get(name, path, { query: NoQuery, success, error: [solverError(400)] })
    .annotate(OpenApi.Identifier, name)
    .annotate(OpenApi.Summary, summary)
    .annotate(OpenApi.Description, description)
    .annotate(CacheClass, cache)
    .annotate(Docs, {
      spec: { parts: ["4", "2"], section: "Discovery documents" },
      errorCodes: { 400: ["INVALID_REQUEST"] },
      responses: { 200: summary },
      responseHeaders: { 200: ["Cache-Control"] }
    })

// ---------------------------------------------------------------------------
// Groups
// ---------------------------------------------------------------------------

/**
 * The static discovery documents.
 *
 * @category http
 * @since 0.1.0
 */
export class DiscoveryGroup extends HttpApiGroup.make("Discovery")
  .add(
    staticDocument(
      "getSolverManifest",
      "/.well-known/svc-solver.json",
      SolverDiscovery,
      "manifest",
      "Solver manifest",
      "The solver discovery manifest (identical body to `GET /api/v6/solver-discovery`): feed signer, release, " +
        "endpoints, permit request signing, standards and passive on-chain discovery. Static; cacheable per its headers."
    ),
    staticDocument(
      "getOnchainDiscovery",
      "/.well-known/svc-onchain-discovery.json",
      OnchainDiscoveryFingerprint,
      "document",
      "On-chain discovery fingerprint",
      "Contract addresses, runtime code hashes, selectors, the SourceFillV6 event, the CREATE2 deployment, " +
        "chain evidence and the scanner hints (9 read-only probe steps). Static; cacheable per its headers."
    ),
    staticDocument(
      "getOpenApi",
      "/openapi.json",
      OpenApiDocument,
      "document",
      "OpenAPI description",
      "This document (OpenAPI 3.1.0, JSON Schema 2020-12). Static; cacheable per its headers."
    ),
    staticDocument(
      "getStandardsManifest",
      "/.well-known/svc-standards.json",
      StandardsManifest,
      "document",
      "Standards manifest",
      "The ERC-7683 (executable resolver) and OIF (description only) modules, the router and the standard " +
        "payload encoding `abi.encode(ExecutionPermit,bytes)`. Static; cacheable per its headers."
    ),
    HttpApiEndpoint.get("getSolverDiscovery", "/api/v6/solver-discovery", {
      query: NoQuery,
      success: SolverDiscovery,
      error: [solverError(400), solverError(500), solverError(503)]
    })
      .annotate(OpenApi.Identifier, "getSolverDiscovery")
      .annotate(OpenApi.Summary, "Solver discovery")
      .annotate(OpenApi.Description, "The solver discovery manifest, the same body as `/.well-known/svc-solver.json`.")
      .annotate(CacheClass, "manifest")
      .annotate(Docs, {
        spec: { parts: ["4", "2"], section: "Discovery documents" },
        errorCodes: { 400: ["INVALID_REQUEST"] },
        responses: { 200: "The solver discovery manifest." },
        responseHeaders: { 200: ["Cache-Control"] }
      })
  )
  .annotate(OpenApi.Description, "Static discovery documents (spec part 4, Discovery documents).")
  .annotate(ErrorFamily, "solver")
  .middleware(RequestValidation)
{}

/**
 * The signed route feed and its event stream.
 *
 * @category http
 * @since 0.1.0
 */
export class FeedGroup extends HttpApiGroup.make("Feed")
  .add(
    HttpApiEndpoint.get("getSolverFeed", "/api/v6/solver-feed", {
      query: {
        sourceChainId: Optional(
          Schema.String.check(Schema.isPattern(new RegExp(CHAIN_ID.source, "u")), Schema.isMaxLength(78))
        ),
        sourceNetworkId: Optional(Bytes32)
      },
      headers: { "if-none-match": Optional(Schema.String) },
      success: [FeedResponse, NotModified],
      error: [solverError(400), solverError(500), solverError(503)]
    })
      .annotate(OpenApi.Identifier, "getSolverFeed")
      .annotate(OpenApi.Summary, "Signed route feed")
      .annotate(
        OpenApi.Description,
        [
          "The signed recovery/inspection feed. `sourceChainId` and `sourceNetworkId` reduce `routes` and",
          "`openRoutes` and set `returnedRouteCount` / `returnedOpenRouteCount`; `signedPayload` stays complete",
          "and unfiltered, and verification uses `signedPayload` only, never a filtered view. When both filters",
          "are given a route must match both.",
          "",
          "Send the ETag of a previous response in `If-None-Match`: while feedHash, dataVersion and the",
          "normalised filter view are unchanged the answer is 304 without a body."
        ].join("\n")
      )
      .annotate(CacheClass, "revalidate")
      .annotate(
        FastPath,
        "the most requested operation: the prepared bytes of the view (and its compressed forms) are written directly, and a 304 is a header comparison"
      )
      .annotate(Docs, {
        spec: { parts: ["4", "5", "2"], section: "GET /api/v6/solver-feed (getSolverFeed)" },
        parameters: {
          sourceChainId: "Only routes whose sourceChainId is this EVM chain id.",
          sourceNetworkId: "Only routes whose sourceNetworkId is this network id.",
          "If-None-Match": "Weak ETag of a previous identical filtered view (lists and `*` accepted)."
        },
        errorCodes: { 400: ["INVALID_REQUEST"] },
        responses: {
          200: "The signed feed with its filtered convenience views.",
          304: "Not modified: feedHash, dataVersion and the normalised filter view are unchanged from the view " +
            "identified by If-None-Match. No body."
        },
        responseHeaders: { 200: ["ETag", "Cache-Control", "Vary"], 304: ["ETag", "Cache-Control", "Vary"] }
      }),
    HttpApiEndpoint.get("streamSolverFeed", "/api/v6/solver-feed/events", {
      query: NoQuery,
      headers: { "last-event-id": Optional(Schema.String) },
      success: EventStream,
      error: [solverError(400), solverError(500), solverError(503)]
    })
      .annotate(OpenApi.Identifier, "streamSolverFeed")
      .annotate(OpenApi.Summary, "Signed feed event stream")
      .annotate(
        OpenApi.Description,
        [
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
        ].join("\n")
      )
      .annotate(CacheClass, "noStore")
      .annotate(
        FastPath,
        "long-lived subscribers: one broadcaster writes each publication's prepared frame to every socket, with no fiber per subscriber"
      )
      .annotate(Docs, {
        spec: { parts: ["4", "6"], section: "GET /api/v6/solver-feed/events (streamSolverFeed)" },
        parameters: {
          "Last-Event-ID":
            "dataVersion of the last `feed` event received; only suppresses an identical initial event. " +
            "An invalid value is ignored."
        },
        parameterSchemas: { "Last-Event-ID": { type: "string", pattern: "^(?:0|[1-9][0-9]*)$" } },
        errorCodes: { 400: ["INVALID_REQUEST"] },
        responses: { 200: "The event stream (`feed`, `publication-closed`, `error`)." },
        responseHeaders: { 200: ["Cache-Control"] },
        responseExtensions: {
          "x-svc-events": {
            feed: { schema: { $ref: "#/components/schemas/SignedFeed" }, id: "dataVersion" },
            "publication-closed": { schema: { $ref: "#/components/schemas/SseErrorEvent" } },
            error: { schema: { $ref: "#/components/schemas/SseErrorEvent" } }
          }
        }
      })
  )
  .annotate(OpenApi.Description, "The signed route feed and its event stream.")
  .annotate(ErrorFamily, "solver")
  .middleware(RequestValidation)
{}

/**
 * Route detail.
 *
 * @category http
 * @since 0.1.0
 */
export class RoutesGroup extends HttpApiGroup.make("Routes")
  .add(
    HttpApiEndpoint.get("getRouteDetail", "/api/v6/routes/:routeId", {
      params: { routeId: Bytes32 },
      query: NoQuery,
      success: RouteDetailResponse,
      error: [solverError(400), solverError(404), solverError(500), solverError(503)]
    })
      .annotate(OpenApi.Identifier, "getRouteDetail")
      .annotate(OpenApi.Summary, "Route detail")
      .annotate(
        OpenApi.Description,
        "The exact canonical route of the active signed feed plus separate observational metrics. " +
          "Optional before a permit request."
      )
      .annotate(PathNotFound, "ROUTE_NOT_FOUND")
      .annotate(Docs, {
        spec: { parts: ["4", "2"], section: "GET /api/v6/routes/{routeId} (getRouteDetail)" },
        parameters: { routeId: "The canonical routeId from the active signed feed (hex in either case)." },
        errorCodes: { 400: ["INVALID_REQUEST"], 404: ["ROUTE_NOT_FOUND", "NOT_FOUND"] },
        responses: { 200: "The route and its metrics." },
        responseHeaders: { 200: ["Cache-Control"] }
      })
  )
  .annotate(OpenApi.Description, "Route detail.")
  .annotate(ErrorFamily, "solver")
  .middleware(RequestValidation)
{}

/**
 * Execution permits: request message, creation, status.
 *
 * @category http
 * @since 0.1.0
 */
export class PermitsGroup extends HttpApiGroup.make("Permits")
  .add(
    HttpApiEndpoint.post("buildPermitRequestMessage", "/api/v6/execution-permits/request-message", {
      query: NoQuery,
      // checked by the handler after the body, as for createExecutionPermit
      headers: { "idempotency-key": Optional(Schema.String) },
      payload: PermitRequest,
      success: PermitRequestMessageResponse,
      error: [400, 409, 410, 413, 500, 503].map(solverError)
    })
      .annotate(OpenApi.Identifier, "buildPermitRequestMessage")
      .annotate(OpenApi.Summary, "Build the permit request message")
      .annotate(
        OpenApi.Description,
        "Returns the exact deterministic UTF-8 message to sign (EIP-191 personal_sign) for a permit " +
          "request; runs every check of permit creation except the signature, the idempotency key claim and the " +
          "reservation. A compatibility aid: clients may build the message locally."
      )
      .annotate(Docs, {
        spec: {
          parts: ["4", "5"],
          section: "POST /api/v6/execution-permits/request-message (buildPermitRequestMessage)"
        },
        parameters: {
          "Idempotency-Key": "When given, must equal the body idempotencyKey (as for createExecutionPermit)."
        },
        parameterSchemas: { "Idempotency-Key": { $ref: "#/components/schemas/IdempotencyKey" } },
        requestBody: "A permit request; requestSignature is not required.",
        errorCodes: {
          400: ["INVALID_REQUEST", "UNSUPPORTED_STANDARD", "AMOUNT_INVALID", "AMOUNT_TOO_LOW", "IDENTITY_INVALID"]
        },
        responses: { 200: "The message to sign." },
        responseHeaders: { 200: ["Cache-Control"] }
      }),
    HttpApiEndpoint.post("createExecutionPermit", "/api/v6/execution-permits", {
      query: NoQuery,
      // read as text and checked by the handler after the body, so that the order of checks stays
      // 413 size, 400 body, 400 header (the documented schema is IdempotencyKey)
      headers: { "idempotency-key": Optional(Schema.String) },
      payload: PermitCreateRequest,
      success: [ExecutionPermitResponse, ExecutionPermitResponse.pipe(HttpApiSchema.status(201))],
      error: [400, 409, 410, 413, 429, 500, 503].map(solverError)
    })
      .annotate(OpenApi.Identifier, "createExecutionPermit")
      .annotate(OpenApi.Summary, "Create an execution permit")
      .annotate(
        OpenApi.Description,
        [
          "Issues a permit for a selected quote after fresh amount-bound repricing and authorization.",
          "Sign the exact bytes of the request message and submit the identical normalised request with",
          "`requestSignature`. Retry only with the same request and the same idempotency key: a repeated",
          "identical request returns 200 with `idempotent: true` and the existing permit; a new permit returns 201.",
          "When the intent changes, use a new key and a new signature."
        ].join("\n")
      )
      .annotate(Docs, {
        spec: { parts: ["4", "5", "8"], section: "POST /api/v6/execution-permits (createExecutionPermit)" },
        parameters: { "Idempotency-Key": "Must equal the body idempotencyKey when both are supplied." },
        parameterSchemas: { "Idempotency-Key": { $ref: "#/components/schemas/IdempotencyKey" } },
        requestBody: "A permit request with requestSignature.",
        errorCodes: {
          400: [
            "INVALID_REQUEST",
            "IDEMPOTENCY_KEY_MISMATCH",
            "UNSUPPORTED_STANDARD",
            "AMOUNT_INVALID",
            "AMOUNT_TOO_LOW",
            "IDENTITY_INVALID",
            "SIGNATURE_INVALID"
          ]
        },
        responses: {
          200: "The existing permit, returned for an identical idempotent request (`idempotent: true`).",
          201: "A new permit was issued (`idempotent: false`)."
        },
        responseHeaders: { 200: ["Cache-Control"], 201: ["Cache-Control"] }
      }),
    HttpApiEndpoint.get("getExecutionPermit", "/api/v6/execution-permits/:fillId", {
      params: { fillId: Bytes32 },
      query: NoQuery,
      success: PermitStatusResponse,
      error: [solverError(400), solverError(404), solverError(500)]
    })
      .annotate(OpenApi.Identifier, "getExecutionPermit")
      .annotate(OpenApi.Summary, "Permit status")
      .annotate(
        OpenApi.Description,
        "The current persisted permit and its fill state (ISSUED, SOURCE_OBSERVED, SOURCE_CONFIRMED, " +
          "PAYOUT_SUBMITTED, PAID; or EXPIRED, FAILED). PAID implies sourceTxHash and payoutTxHash."
      )
      .annotate(PathNotFound, "PERMIT_NOT_FOUND")
      .annotate(Docs, {
        spec: { parts: ["4", "3"], section: "GET /api/v6/execution-permits/{fillId} (getExecutionPermit)" },
        parameters: { fillId: "The fillId of the permit (hex in either case)." },
        errorCodes: { 400: ["INVALID_REQUEST"], 404: ["PERMIT_NOT_FOUND", "NOT_FOUND"] },
        responses: { 200: "The persisted permit." },
        responseHeaders: { 200: ["Cache-Control"] }
      })
  )
  .annotate(OpenApi.Description, "Execution permits: request message, creation, status.")
  .annotate(ErrorFamily, "solver")
  .middleware(RequestValidation)
{}

/**
 * The aggregator interface (`/v1`) and its manifest: no authentication.
 *
 * @category http
 * @since 0.1.0
 */
export class AggregatorGroup extends HttpApiGroup.make("Aggregator")
  .add(
    HttpApiEndpoint.get("aggregator_manifest", "/.well-known/svc-aggregator.json", {
      query: NoQuery,
      success: AggregatorManifest,
      error: aggregatorErrors
    })
      .annotate(OpenApi.Identifier, "aggregator_manifest")
      .annotate(RateLimitClass, "none")
      .annotate(OpenApi.Summary, "Aggregator manifest")
      .annotate(
        OpenApi.Description,
        "Where the aggregator operations live (absolute URLs), the permit authority (`feedSigner`), the solver " +
          "discovery URL, rate limits and body limits. Static; cacheable per its headers."
      )
      .annotate(CacheClass, "manifest")
      .annotate(Docs, {
        spec: { parts: ["4", "2"], section: "Discovery documents" },
        responses: { 200: "Aggregator manifest" },
        responseHeaders: { 200: ["Cache-Control"] }
      }),
    HttpApiEndpoint.post("aggregator_quote", "/v1/quote", {
      query: NoQuery,
      payload: AggregatorQuoteRequest,
      success: AggregatorQuote,
      error: aggregatorErrors
    })
      .annotate(OpenApi.Identifier, "aggregator_quote")
      .annotate(RateLimitClass, "write")
      .annotate(OpenApi.Summary, "Exact quote")
      .annotate(
        OpenApi.Description,
        "An exact quote from one currently open L1 route (ties: highest amountOut, then rank). " +
          "Show the returned terms; obtain a fresh quote once expiresAt has passed. Aggregator fees are external " +
          "and never change the signed amounts."
      )
      .annotate(Docs, {
        spec: { parts: ["4", "1"], section: "Aggregator operations" },
        errorCodes: { 404: ["NO_ROUTE", "NOT_FOUND"] },
        responses: { 200: "The quote." },
        responseHeaders: { 200: ["Cache-Control"] }
      }),
    HttpApiEndpoint.post("aggregator_build", "/v1/build", {
      query: NoQuery,
      payload: AggregatorBuildRequest,
      success: AggregatorBuild,
      error: aggregatorErrors
    })
      .annotate(OpenApi.Identifier, "aggregator_build")
      .annotate(RateLimitClass, "write")
      .annotate(OpenApi.Summary, "Build the wallet transaction")
      .annotate(
        OpenApi.Description,
        [
          "Two stages. Stage 1 (no requestSignature) returns `signatureRequired: true` and the canonical",
          "request message in `signingPayload`; the wallet signs it with personal_sign. Stage 2 repeats the",
          "identical body plus `requestSignature` and returns `signatureRequired: false`, the `fillDirect`",
          "transaction, the approval (or null) and the signed permit. quoteToken binds the exact displayed",
          "amount; no fee or execution-field overrides are accepted."
        ].join("\n")
      )
      .annotate(Docs, {
        spec: { parts: ["4", "5"], section: "Aggregator operations" },
        errorCodes: { 404: ["QUOTE_NOT_FOUND", "NOT_FOUND"] },
        responses: { 200: "Stage 1 (message to sign) or stage 2 (transaction)." },
        responseHeaders: { 200: ["Cache-Control"] }
      }),
    HttpApiEndpoint.get("aggregator_status", "/v1/status", {
      query: {
        fillId: Optional(Bytes32),
        sourceTxHash: Optional(Bytes32),
        quoteId: Optional(Bytes32),
        userAddress: Optional(Address),
        quoteToken: Optional(AggregatorQuoteToken)
      },
      success: Schema.Union([AggregatorStatus, AggregatorStatusList, AggregatorQuoteValidity]),
      error: aggregatorErrors
    })
      .annotate(OpenApi.Identifier, "aggregator_status")
      .annotate(OpenApi.Summary, "Fill status, wallet history or quote usability")
      .annotate(
        OpenApi.Description,
        "Give exactly one lookup parameter: `fillId` or `sourceTxHash` return one fill; `quoteId` or " +
          "`userAddress` return up to 20 recent fills, newest first; `quoteToken` checks an unbuilt quote."
      )
      .annotate(Docs, {
        spec: { parts: ["4", "3"], section: "Aggregator operations" },
        parameters: {
          fillId: "Returns one fill.",
          sourceTxHash: "Returns one fill.",
          quoteId: "Returns up to 20 recent fills.",
          userAddress: "Returns up to 20 recent fills.",
          quoteToken: "Checks an unbuilt quote."
        },
        errorCodes: { 404: ["FILL_NOT_FOUND", "NOT_FOUND"] },
        responses: {
          200: "One fill (fillId, sourceTxHash), recent fills (quoteId, userAddress) or quote usability (quoteToken)."
        },
        responseHeaders: { 200: ["Cache-Control"] }
      }),
    HttpApiEndpoint.get("aggregator_chains", "/v1/chains", {
      query: NoQuery,
      headers: { "if-none-match": Optional(Schema.String) },
      success: [AggregatorChains, NotModified],
      error: aggregatorErrors
    })
      .annotate(OpenApi.Identifier, "aggregator_chains")
      .annotate(OpenApi.Summary, "Chains, pairs and routes")
      .annotate(
        OpenApi.Description,
        "Networks, open directional pairs (spread a `pairs` entry into a quote request) and routes with " +
          "their per-route limits in raw source-token units (never summed). Revalidate with If-None-Match (304)."
      )
      .annotate(CacheClass, "revalidate")
      .annotate(Docs, {
        spec: { parts: ["4"], section: "Aggregator operations" },
        parameters: {
          "If-None-Match":
            "Weak ETag of a previous response (lists and `*` accepted): 304 while the data version is unchanged."
        },
        errorCodes: { 404: ["NOT_FOUND"] },
        responses: {
          200: "Chains, pairs and routes.",
          304:
            "Not modified: the publication (dataVersion, feedHash) is unchanged since the ETag in If-None-Match. No body."
        },
        responseHeaders: { 200: ["ETag", "Cache-Control"], 304: ["ETag", "Cache-Control"] }
      }),
    HttpApiEndpoint.get("aggregator_tokens", "/v1/tokens", {
      query: { chainId: Optional(Schema.String.check(Schema.isPattern(/^[1-9][0-9]{0,15}$/u))) },
      headers: { "if-none-match": Optional(Schema.String) },
      success: [AggregatorTokens, NotModified],
      error: aggregatorErrors
    })
      .annotate(OpenApi.Identifier, "aggregator_tokens")
      .annotate(OpenApi.Summary, "Token metadata")
      .annotate(OpenApi.Description, "Token metadata (address, chainId, symbol, decimals); optional chainId filter.")
      .annotate(CacheClass, "revalidate")
      .annotate(Docs, {
        spec: { parts: ["4"], section: "Aggregator operations" },
        parameters: {
          chainId: "Only tokens of this chain (a chain not in /v1/chains: 400 UNSUPPORTED_CHAIN).",
          "If-None-Match":
            "Weak ETag of a previous response (lists and `*` accepted): 304 while the data version is unchanged."
        },
        parameterSchemas: { chainId: { type: "integer", minimum: 1 } },
        errorCodes: { 404: ["NOT_FOUND"] },
        responses: {
          200: "Tokens.",
          304:
            "Not modified: the publication (dataVersion, feedHash) is unchanged since the ETag in If-None-Match. No body."
        },
        responseHeaders: { 200: ["ETag", "Cache-Control"], 304: ["ETag", "Cache-Control"] }
      }),
    HttpApiEndpoint.get("aggregator_health", "/v1/health", {
      query: NoQuery,
      success: AggregatorHealth,
      error: aggregatorErrors
    })
      .annotate(OpenApi.Identifier, "aggregator_health")
      .annotate(RateLimitClass, "none")
      .annotate(OpenApi.Summary, "Availability")
      .annotate(OpenApi.Description, "Availability, publication state, public data version and timestamp.")
      .annotate(Docs, {
        spec: { parts: ["4"], section: "Aggregator operations" },
        errorCodes: { 404: ["NOT_FOUND"] },
        responses: { 200: "Health." },
        responseHeaders: { 200: ["Cache-Control"] }
      })
  )
  .annotate(OpenApi.Description, "Quote, build, status, chains, tokens and health (no authentication).")
  .annotate(ErrorFamily, "aggregator")
  .middleware(RequestValidation)
  .middleware(Admission)
{}

/**
 * What a deployment serves beside the interface (excluded from openapi.json):
 * the human-readable API reference (`/docs`) and the health probes of
 * orchestrators (`/health/live`, `/health/ready`).
 *
 * @category http
 * @since 0.1.0
 */
export class SiteGroup extends HttpApiGroup.make("Site")
  .add(
    HttpApiEndpoint.get("docsPage", "/docs", { query: NoQuery, success: HtmlPage, error: [solverError(400)] })
      .annotate(CacheClass, "document")
  )
  .add(
    HttpApiEndpoint.get("healthLive", "/health/live", {
      query: NoQuery,
      success: HealthReport,
      error: [solverError(400)]
    }).annotate(CacheClass, "noStore")
  )
  .add(
    HttpApiEndpoint.get("healthReady", "/health/ready", {
      query: NoQuery,
      success: HealthReport,
      error: [solverError(400), HealthReport.pipe(HttpApiSchema.status(503))]
    }).annotate(CacheClass, "noStore")
  )
  .annotate(OpenApi.Exclude, true)
  .annotate(ErrorFamily, "solver")
  .middleware(RequestValidation)
{}

/**
 * The whole HTTP contract.
 *
 * @category http
 * @since 0.1.0
 */
export class Api extends HttpApi.make("svc")
  .add(DiscoveryGroup)
  .add(FeedGroup)
  .add(RoutesGroup)
  .add(PermitsGroup)
  .add(AggregatorGroup)
  .add(SiteGroup)
  .annotate(HttpApi.QueryParseOptions, { onExcessProperty: "error" })
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "error", errors: "all" })
  .annotate(HttpApi.AdditionalSchemas, Object.values(Resources))
  .annotate(OpenApi.Title, "Svc V6 Solver and Aggregator API")
  .annotate(OpenApi.Version, "1.0.0")
{}

/**
 * The name of an operation (its spec operationId).
 *
 * @category http
 * @since 0.1.0
 */
export type OperationId =
  | "getSolverManifest"
  | "getOnchainDiscovery"
  | "getOpenApi"
  | "getStandardsManifest"
  | "getSolverDiscovery"
  | "getSolverFeed"
  | "streamSolverFeed"
  | "getRouteDetail"
  | "buildPermitRequestMessage"
  | "createExecutionPermit"
  | "getExecutionPermit"
  | "aggregator_manifest"
  | "aggregator_quote"
  | "aggregator_build"
  | "aggregator_status"
  | "aggregator_chains"
  | "aggregator_tokens"
  | "aggregator_health"
