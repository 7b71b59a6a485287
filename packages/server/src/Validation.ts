/**
 * The `RequestValidation` middleware of the contract: a request whose path
 * parameters, query or headers fail their declared schemas is answered in the
 * operation's error family, with stable reason codes:
 *
 * - a path id that fails its schema: the operation's `PathNotFound` 404, the same
 *   answer as an unknown id (or 405 when the "id" is a static path of another
 *   method, as `GET /api/v6/execution-permits/request-message`);
 * - a query parameter the operation does not declare: `UNKNOWN_QUERY_PARAMETER`;
 *   one given twice: `REPEATED_QUERY_PARAMETER`; one whose value fails its schema:
 *   `<PARAMETER>_INVALID` (for example `SOURCE_CHAIN_ID_INVALID`);
 * - a header that fails its schema: `<HEADER>_HEADER_INVALID` (for example
 *   `IDEMPOTENCY_KEY_HEADER_INVALID`).
 *
 * Bodies are read and decoded by the handlers (a 32 KiB limit before parsing, then
 * strict decoding), not here.
 *
 * @since 0.1.0
 */
import * as Api from "@svc/protocol/Api"
import { screamingSnake } from "@svc/protocol/Patterns"
import { describeSchemaError } from "@svc/protocol/schema/index"
import { Context, Effect, Option } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import { type HttpApiEndpoint, type HttpApiError, HttpApiMiddleware } from "effect/http-api"
import * as AggregatorErrors from "./AggregatorErrors.ts"
import * as Dispatch from "./Dispatch.ts"
import * as Http from "./Http.ts"
import type { PathTable } from "./Paths.ts"
import * as SolverErrors from "./SolverErrors.ts"

/**
 * What is wrong with a request, before its family renders it.
 *
 * @category models
 * @since 0.1.0
 */
export type RequestRefusal =
  | { readonly _tag: "NotFound"; readonly code: SolverErrors.SolverFailure["code"] }
  | { readonly _tag: "MethodNotAllowed"; readonly allow: string; readonly methods: ReadonlyArray<string> }
  | {
    readonly _tag: "Invalid"
    readonly reasonCode: string
    readonly parameter?: string | undefined
    readonly detail: string
  }

const firstIssue = (error: HttpApiError.HttpApiSchemaError) => {
  const issue = describeSchemaError(error.cause)[0]
  return {
    key: issue === undefined ? undefined : String(issue.path[0] ?? ""),
    message: issue?.message ?? error.cause.message
  }
}

/**
 * Classifies a request decoding failure of an endpoint.
 *
 * @category validation
 * @since 0.1.0
 */
export const classify = (
  error: HttpApiError.HttpApiSchemaError,
  endpoint: HttpApiEndpoint.Top,
  request: {
    readonly path: string
    readonly method: string
    readonly searchParams: Readonly<Record<string, string | ReadonlyArray<string>>>
  },
  table: PathTable
): RequestRefusal => {
  const { key, message } = firstIssue(error)
  const searchParams = request.searchParams
  switch (error.kind) {
    case "Params": {
      const info = table.lookup(request.path)
      if (info !== undefined && !info.methods.includes(request.method === "HEAD" ? "GET" : request.method)) {
        return { _tag: "MethodNotAllowed", allow: table.allowOf(info), methods: info.methods }
      }
      return {
        _tag: "NotFound",
        code: Context.getOrElse(endpoint.annotations, Api.PathNotFound, () => "NOT_FOUND" as const)
      }
    }
    case "Query": {
      if (key !== undefined && Array.isArray(searchParams[key])) {
        return {
          _tag: "Invalid",
          reasonCode: "REPEATED_QUERY_PARAMETER",
          parameter: key,
          detail: `${key} is given more than once`
        }
      }
      if (key !== undefined && /excess property|Expected never/i.test(message)) {
        return {
          _tag: "Invalid",
          reasonCode: "UNKNOWN_QUERY_PARAMETER",
          parameter: key,
          detail: `${key} is not a query parameter of this operation`
        }
      }
      return { _tag: "Invalid", reasonCode: `${screamingSnake(key ?? "QUERY")}_INVALID`, detail: `${key}: ${message}` }
    }
    case "Headers":
      return {
        _tag: "Invalid",
        reasonCode: `${screamingSnake(key ?? "")}_HEADER_INVALID`,
        detail: `${key}: ${message}`
      }
    default:
      return { _tag: "Invalid", reasonCode: "REQUEST_INVALID", detail: message }
  }
}

/**
 * The answer of a refusal in an error family.
 *
 * @category http
 * @since 0.1.0
 */
export const respond = (
  refusal: RequestRefusal,
  family: "solver" | "aggregator"
): HttpServerResponse.HttpServerResponse => {
  if (refusal._tag === "MethodNotAllowed") return Dispatch.methodNotAllowed(family, refusal.allow, refusal.methods)
  if (refusal._tag === "NotFound") {
    return family === "aggregator"
      ? AggregatorErrors.fail("NOT_FOUND", ["PATH_NOT_FOUND"])
      : Http.errorResponse(SolverErrors.failure(refusal.code, [refusal.code]))
  }
  if (family === "aggregator") {
    return AggregatorErrors.fail("INVALID_REQUEST", [refusal.reasonCode], { detail: refusal.detail })
  }
  return Http.errorResponse(
    SolverErrors.failure("INVALID_REQUEST", [refusal.reasonCode], {
      diagnostics: refusal.parameter === undefined ? undefined : { parameter: refusal.parameter }
    })
  )
}

/**
 * The implementation of the contract's `RequestValidation` middleware.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (table: PathTable) =>
  HttpApiMiddleware.layerSchemaErrorTransform(
    Api.RequestValidation,
    (error, { endpoint, group }) =>
      Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
        Effect.map(Effect.serviceOption(HttpServerRequest.ParsedSearchParams), (params) =>
          respond(
            classify(error, endpoint, {
              path: Dispatch.pathOf(request.url),
              method: request.method,
              searchParams: Option.getOrElse(params, () => ({}))
            }, table),
            Context.getOrElse(group.annotations, Api.ErrorFamily, () =>
              "solver" as const)
          )))
  )
