/**
 * The operations of the spec (part 4), written out independently of any server:
 * method, path, operationId, the statuses the spec documents, and the schema of
 * each response body. Run-wide checks match every recorded exchange against
 * this table.
 *
 * @since 0.1.0
 */
import {
  AggregatorBuild,
  AggregatorChains,
  AggregatorError,
  AggregatorHealth,
  AggregatorManifest,
  AggregatorQuote,
  AggregatorQuoteValidity,
  AggregatorStatus,
  AggregatorStatusList,
  AggregatorTokens,
  ErrorResponse,
  ExecutionPermitResponse,
  FeedResponse,
  OnchainDiscoveryFingerprint,
  PermitRequestMessageResponse,
  PermitStatusResponse,
  RouteDetailResponse,
  SolverDiscovery,
  StandardsManifest
} from "@svc/protocol"
import { Schema } from "effect"

/**
 * What a response body must be.
 *
 * - a schema: JSON decoding strictly;
 * - `"empty"`: no body (304, 204);
 * - `"openapi"`: the OpenAPI document (checked by the openapi group);
 * - `"sse"`: an event stream (events checked by the sse group).
 *
 * @category models
 * @since 0.1.0
 */
export type BodyRule = Schema.Decoder<unknown> | "empty" | "openapi" | "sse"

/**
 * One operation.
 *
 * @category models
 * @since 0.1.0
 */
export interface Operation {
  readonly operationId: string
  readonly method: "GET" | "POST"
  /** The path as the spec writes it (`/api/v6/routes/{routeId}`). */
  readonly path: string
  readonly pattern: RegExp
  readonly aggregator: boolean
  /** Statuses the spec lists for the operation. */
  readonly statuses: ReadonlyArray<number>
  /** Further statuses svc gives the operation (304 of an ETag'd aggregator read). */
  readonly extraStatuses: ReadonlyArray<number>
  /** Body rule per success status; every other status carries the error body of the interface. */
  readonly bodies: Readonly<Record<number, BodyRule>>
}

const SOLVER_ERROR_BODY: Schema.Decoder<unknown> = ErrorResponse
const AGGREGATOR_ERROR_BODY: Schema.Decoder<unknown> = AggregatorError
const AGGREGATOR_STATUSES = [400, 403, 404, 405, 409, 410, 413, 429, 503] as const

const AggregatorStatusBody = Schema.Union([AggregatorStatus, AggregatorStatusList, AggregatorQuoteValidity]).annotate({
  identifier: "AggregatorStatus | AggregatorStatusList | AggregatorQuoteValidity"
})

const op = (
  operationId: string,
  method: "GET" | "POST",
  path: string,
  statuses: ReadonlyArray<number>,
  bodies: Readonly<Record<number, BodyRule>>,
  extraStatuses: ReadonlyArray<number> = []
): Operation => ({
  operationId,
  method,
  path,
  pattern: new RegExp(
    `^${
      path
        .replace(/[.]/g, "\\.")
        .replace("{routeId}", "([^/]+)")
        .replace("{fillId}", "(?!request-message$)([^/]+)")
    }$`
  ),
  aggregator: path.startsWith("/v1/") || path === "/.well-known/svc-aggregator.json",
  statuses,
  extraStatuses,
  bodies
})

/**
 * Every operation of the spec.
 *
 * @category operations
 * @since 0.1.0
 */
export const OPERATIONS: ReadonlyArray<Operation> = [
  op("getSolverManifest", "GET", "/.well-known/svc-solver.json", [200], { 200: SolverDiscovery }),
  op("getOnchainDiscovery", "GET", "/.well-known/svc-onchain-discovery.json", [200], {
    200: OnchainDiscoveryFingerprint
  }),
  op("getOpenApi", "GET", "/openapi.json", [200], { 200: "openapi" }),
  op("getStandardsManifest", "GET", "/.well-known/svc-standards.json", [200], { 200: StandardsManifest }),
  op("getSolverDiscovery", "GET", "/api/v6/solver-discovery", [200, 500, 503], { 200: SolverDiscovery }),
  op("aggregator_manifest", "GET", "/.well-known/svc-aggregator.json", [200], { 200: AggregatorManifest }),
  op("getSolverFeed", "GET", "/api/v6/solver-feed", [200, 304, 400, 500, 503], { 200: FeedResponse, 304: "empty" }),
  op("streamSolverFeed", "GET", "/api/v6/solver-feed/events", [200, 500, 503], { 200: "sse" }),
  op("getRouteDetail", "GET", "/api/v6/routes/{routeId}", [200, 404, 500, 503], { 200: RouteDetailResponse }),
  op(
    "buildPermitRequestMessage",
    "POST",
    "/api/v6/execution-permits/request-message",
    [200, 400, 409, 410, 413, 500, 503],
    { 200: PermitRequestMessageResponse }
  ),
  op(
    "createExecutionPermit",
    "POST",
    "/api/v6/execution-permits",
    [200, 201, 400, 409, 410, 413, 429, 500, 503],
    { 200: ExecutionPermitResponse, 201: ExecutionPermitResponse }
  ),
  op("getExecutionPermit", "GET", "/api/v6/execution-permits/{fillId}", [200, 404, 500], { 200: PermitStatusResponse }),
  op("aggregator_quote", "POST", "/v1/quote", [200, ...AGGREGATOR_STATUSES], { 200: AggregatorQuote }),
  op("aggregator_build", "POST", "/v1/build", [200, ...AGGREGATOR_STATUSES], { 200: AggregatorBuild }),
  op("aggregator_status", "GET", "/v1/status", [200, ...AGGREGATOR_STATUSES], { 200: AggregatorStatusBody }),
  op("aggregator_chains", "GET", "/v1/chains", [200, ...AGGREGATOR_STATUSES], { 200: AggregatorChains, 304: "empty" }, [
    304
  ]),
  op("aggregator_tokens", "GET", "/v1/tokens", [200, ...AGGREGATOR_STATUSES], { 200: AggregatorTokens, 304: "empty" }, [
    304
  ]),
  op("aggregator_health", "GET", "/v1/health", [200, ...AGGREGATOR_STATUSES], { 200: AggregatorHealth })
]

/**
 * The operation of a method and path (the path without query), if any.
 *
 * @category operations
 * @since 0.1.0
 */
export const find = (method: string, path: string): Operation | undefined => {
  const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase()
  return OPERATIONS.find((o) => o.method === m && o.pattern.test(path))
}

/**
 * Whether a path is served by an operation with some method (to tell 405 from 404).
 *
 * @category operations
 * @since 0.1.0
 */
export const knownPath = (path: string): boolean => OPERATIONS.some((o) => o.pattern.test(path))

/**
 * The error body schema of a path: AggregatorError under `/v1/`, else ErrorResponse.
 *
 * @category operations
 * @since 0.1.0
 */
export const errorBodyOf = (path: string): Schema.Decoder<unknown> =>
  path.startsWith("/v1/") ? AGGREGATOR_ERROR_BODY : SOLVER_ERROR_BODY

/**
 * The body rule of a response: the success rule of the operation, or the
 * interface's error body for any other status (including 404/405 of unknown
 * paths and methods).
 *
 * @category operations
 * @since 0.1.0
 */
export const bodyRuleOf = (method: string, path: string, status: number): BodyRule => {
  const operation = find(method, path)
  if (status === 204 || status === 304 || method.toUpperCase() === "HEAD") return "empty"
  const rule = operation?.bodies[status]
  if (rule !== undefined) return rule
  return errorBodyOf(path)
}
