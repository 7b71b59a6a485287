/**
 * The `endpoints` of the solver manifest: the absolute URL of each operation a
 * solver client needs, under the public URL. The paths are not listed here: each
 * manifest key names an operation of the HTTP contract (`@svc/protocol/Api`) and
 * takes that operation's path, with `:param` written as the URI template
 * `{param}`. A path changed in the contract changes the manifest with it.
 *
 * @since 0.1.0
 */
import { Api, type OperationId } from "@svc/protocol/Api"
import { Result } from "effect"
import { HttpApi } from "effect/http-api"
import { type DocumentsInvalid, invalid } from "./DocumentsInvalid.ts"

/**
 * The operation behind each key of the manifest's `endpoints`, in the order the
 * manifest lists them.
 *
 * @category constants
 * @since 0.1.0
 */
export const ENDPOINT_OPERATIONS = {
  manifest: "getSolverManifest",
  onchainDiscovery: "getOnchainDiscovery",
  openapi: "getOpenApi",
  standards: "getStandardsManifest",
  solverDiscovery: "getSolverDiscovery",
  solverFeed: "getSolverFeed",
  solverFeedEvents: "streamSolverFeed",
  routeDetailTemplate: "getRouteDetail",
  permitRequestMessage: "buildPermitRequestMessage",
  executionPermits: "createExecutionPermit",
  permitStatusTemplate: "getExecutionPermit"
} as const satisfies Readonly<Record<string, OperationId>>

/**
 * A key of the manifest's `endpoints`.
 *
 * @category models
 * @since 0.1.0
 */
export type EndpointKey = keyof typeof ENDPOINT_OPERATIONS

/**
 * A string per endpoint key: a path (`/api/v6/routes/{routeId}`) or an absolute URL.
 *
 * @category models
 * @since 0.1.0
 */
export type Endpoints = { readonly [K in EndpointKey]: string }

/** The path of every operation of the contract, by operationId. */
const contractPaths: ReadonlyMap<string, string> = (() => {
  const paths = new Map<string, string>()
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      paths.set(endpoint.identifier, endpoint.path)
    }
  })
  return paths
})()

/**
 * An HttpApi path as a URI template: `/api/v6/routes/:routeId` -> `/api/v6/routes/{routeId}`.
 *
 * @category http
 * @since 0.1.0
 */
export const uriTemplate = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}")

/**
 * The path (URI template) of each endpoint, read from the HTTP contract. Fails
 * only when the contract lost one of {@link ENDPOINT_OPERATIONS}.
 *
 * @category http
 * @since 0.1.0
 */
export const ENDPOINT_PATHS: Result.Result<Endpoints, DocumentsInvalid> = (() => {
  const out: Record<string, string> = {}
  for (const [key, operation] of Object.entries(ENDPOINT_OPERATIONS)) {
    const path = contractPaths.get(operation)
    if (path === undefined) return invalid(`endpoints.${key}: the HTTP contract has no operation ${operation}`)
    out[key] = uriTemplate(path)
  }
  return Result.succeed(out as Endpoints)
})()

/**
 * The public URL without trailing slashes, provided it is an absolute http(s) URL.
 *
 * @category http
 * @since 0.1.0
 */
export const normalizePublicUrl = (publicUrl: string): Result.Result<string, DocumentsInvalid> => {
  const trimmed = publicUrl.replace(/\/+$/, "")
  return URL.canParse(trimmed) && /^https?:$/.test(new URL(trimmed).protocol)
    ? Result.succeed(trimmed)
    : invalid(`publicUrl ${JSON.stringify(publicUrl)} is not an absolute http(s) URL`)
}

/**
 * The absolute URL of every endpoint under the public URL (templates keep
 * `{routeId}` and `{fillId}`).
 *
 * @category http
 * @since 0.1.0
 */
export const endpointsOf = (publicUrl: string): Result.Result<Endpoints, DocumentsInvalid> =>
  Result.gen(function*() {
    const base = yield* normalizePublicUrl(publicUrl)
    const paths = yield* ENDPOINT_PATHS
    return Object.fromEntries(Object.entries(paths).map(([key, path]) => [key, `${base}${path}`])) as Endpoints
  })
