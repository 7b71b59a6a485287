/**
 * The operations the client performs, each as the HTTP contract
 * (`@svc/protocol/Api`) declares it, by group and operationId:
 *
 * - the HTTP method;
 * - the path parameters (they name the `{placeholders}` of the manifest's URL
 *   templates, e.g. `{routeId}` of `routeDetailTemplate`);
 * - the success statuses, each with the schema its body is decoded with, or
 *   empty (the 304 of a revalidated read);
 * - the error family (`ErrorFamily`: `solver` bodies are `ErrorResponse`,
 *   `aggregator` bodies `AggregatorError`) and the error body schema of each
 *   status.
 *
 * The declarations are read from `contract.ts`, the client's compiled snapshot
 * of the contract (generated from `@svc/protocol/Api` and checked against it by
 * `test/Contract.test.ts`), so that the client does not load the contract's
 * HttpApi and Schema runtime; the body schemas are run by `decoder.ts`.
 *
 * URLs never come from the contract: they are the ones the discovery manifests
 * publish (the spec requires it). A lookup the contract cannot answer throws, so
 * a renamed or removed operation can never reach a request. Internal.
 *
 * @since 0.1.0
 */
import type { Api, OperationId } from "@svc/protocol/Api"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import { HttpError, RefreshQuote, type RequestError, type ResponseInvalid } from "../Errors.ts"
import * as Contract from "./contract.ts"
import { type Decoder, decoder, type Node } from "./decoder.ts"
import { decode, type FetchFunction, type HttpResponse, json, parseJson, refusalFields, send } from "./http.ts"

// ---------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------

/**
 * Which error body an operation answers with (the contract's `ErrorFamily`).
 *
 * @category models
 * @since 0.1.0
 */
export type Family = "solver" | "aggregator"

/**
 * The body decoder of a success status.
 *
 * @category models
 * @since 0.1.0
 */
export type BodyDecoder = (response: HttpResponse, body: unknown) => Effect.Effect<unknown, ResponseInvalid>

/**
 * An operation of the contract as the client performs it. `A` is the type of
 * its success bodies, `F` its error family, `Empty` whether an empty success
 * (304 Not Modified) is declared.
 *
 * @category models
 * @since 0.1.0
 */
export interface Operation<out A, out F extends Family = Family, out Empty extends boolean = boolean> {
  /** The contract group (the spec's tag). */
  readonly group: string
  /** The spec's operationId. */
  readonly id: OperationId
  readonly method: "GET" | "POST"
  /** The contract's path (`/api/v6/routes/:routeId`): for messages and path parameters, never requested. */
  readonly path: string
  /** The path parameters, in order (`["routeId"]`). */
  readonly pathParams: ReadonlyArray<string>
  readonly family: F
  /** The success statuses: the decoder of the body, or `undefined` for an empty answer (304). */
  readonly successes: ReadonlyMap<number, BodyDecoder | undefined>
  /** Whether an empty success (304) is declared: the read is revalidated with its ETag. */
  readonly revalidates: Empty
  /** The declared error body decoders, by status. */
  readonly errors: ReadonlyMap<number, Decoder<unknown>>
  /** The success bodies' schema nodes, by status (the empty ones left out). */
  readonly bodies: ReadonlyMap<number, Node>
  /** Phantom: the type of the success bodies. */
  readonly "~Body"?: A
}

/**
 * A success answer with a body (decoded by {@link call}, parsed JSON from
 * {@link exchange}).
 *
 * @category models
 * @since 0.1.0
 */
export interface Body<A> {
  readonly _tag: "Body"
  readonly status: number
  readonly response: HttpResponse
  readonly body: A
}

/**
 * An empty success answer (304 Not Modified).
 *
 * @category models
 * @since 0.1.0
 */
export interface Empty {
  readonly _tag: "Empty"
  readonly status: number
  readonly response: HttpResponse
}

/**
 * The success answers of an operation.
 *
 * @category models
 * @since 0.1.0
 */
export type Answer<A, E extends boolean> = Body<A> | (E extends true ? Empty : never)

/**
 * The typed refusal of a family: an aggregator answer with `action:
 * REFRESH_QUOTE` is a RefreshQuote, anything else an HttpError.
 *
 * @category models
 * @since 0.1.0
 */
export type Refusal<F extends Family> = F extends "aggregator" ? HttpError | RefreshQuote : HttpError

/**
 * A request: the discovered URL (query included), headers, a JSON body.
 *
 * @category models
 * @since 0.1.0
 */
export interface Request {
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** The serialised JSON body (sent as `application/json`). */
  readonly body?: string | undefined
}

// ---------------------------------------------------------------------------
// Lookup in the contract
// ---------------------------------------------------------------------------

type Groups = (typeof Api)["groups"]
type GroupName = keyof Groups & string
type EndpointOf<G extends GroupName, N extends keyof Groups[G]["endpoints"]> = Groups[G]["endpoints"][N]
type SuccessOf<E> = E extends { readonly "~Success": infer S extends Schema.Top } ? S["Type"] : never

/**
 * The client's operation of a declaration of the contract, checked against the
 * family the client expects.
 *
 * @throws {Error} when the contract's family of the operation is not `family`.
 * @category http
 * @since 0.1.0
 */
export const operation = <
  const G extends GroupName,
  const N extends keyof Groups[G]["endpoints"] & OperationId,
  const F extends Family
>(
  spec: Contract.OperationSpec & { readonly group: G; readonly id: N },
  family: F
): Operation<
  Exclude<SuccessOf<EndpointOf<G, N>>, void>,
  F,
  void extends SuccessOf<EndpointOf<G, N>> ? true : false
> => {
  if (spec.family !== family) {
    throw new Error(
      `@svc/client: ${spec.group}/${spec.id} answers ${spec.family} errors in the contract, not ${family}`
    )
  }
  const bodies = new Map<number, Node>()
  const decoders = new Map<number, BodyDecoder | undefined>()
  for (const [status, body] of spec.successes) {
    if (body !== null) bodies.set(status, body)
    decoders.set(status, body === null ? undefined : decode(body))
  }
  return {
    group: spec.group,
    id: spec.id,
    method: spec.method,
    path: spec.path,
    pathParams: [...spec.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!),
    family,
    successes: decoders,
    revalidates: spec.successes.some(([, body]) => body === null),
    errors: new Map(spec.errors.map(([status, body]) => [status, decoder(body)])),
    bodies
  } as never
}

/**
 * The operation the contract declares as `group`/`id`, checked against the
 * family the client expects.
 *
 * @throws {Error} when the contract has no such operation, or its family is not
 * `family`.
 * @category http
 * @since 0.1.0
 */
export const lookup = <
  const G extends GroupName,
  const N extends keyof Groups[G]["endpoints"] & OperationId,
  const F extends Family
>(
  group: G,
  id: N,
  family: F
): Operation<
  Exclude<SuccessOf<EndpointOf<G, N>>, void>,
  F,
  void extends SuccessOf<EndpointOf<G, N>> ? true : false
> => {
  const spec = (Contract.operations as Readonly<Record<string, Contract.OperationSpec>>)[id]
  if (spec === undefined || spec.group !== group) {
    throw new Error(`@svc/client: the contract (@svc/protocol/Api) declares no operation ${group}/${id}`)
  }
  return operation(spec as Contract.OperationSpec & { readonly group: G; readonly id: N }, family)
}

/**
 * The body schema node an operation declares for a success status.
 *
 * @throws {Error} when the operation declares no body at `status`.
 * @category http
 * @since 0.1.0
 */
export const bodyNode = (operation: Operation<unknown>, status: number): Node => {
  const node = operation.bodies.get(status)
  if (node === undefined) {
    throw new Error(`@svc/client: ${operation.group}/${operation.id} declares no body at ${status}`)
  }
  return node
}

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

/**
 * The typed refusal of an answer that is not a declared success: the body is
 * read with the error schema the operation declares for that status
 * (`ErrorResponse` or `AggregatorError`); a body that is not one (an
 * undeclared status, a proxy's page) is read leniently. The server's code,
 * reason codes, Retry-After, action and retryable are kept.
 *
 * @category errors
 * @since 0.1.0
 */
export const refusal = <F extends Family>(operation: Operation<unknown, F>, response: HttpResponse): Refusal<F> => {
  const parsed = parseJson(response.text)
  const decodeError = operation.errors.get(response.status)
  const declared = decodeError === undefined ? undefined : decodeError(parsed)
  const fields = refusalFields(
    response,
    declared !== undefined && Result.isSuccess(declared) ? declared.success : parsed
  )
  return (operation.family === "aggregator" && fields.action === "REFRESH_QUOTE"
    ? new RefreshQuote(fields)
    : new HttpError(fields)) as Refusal<F>
}

/**
 * Sends a request for an operation with the operation's method, and sorts the
 * answer by the statuses the contract declares: a declared body (parsed as
 * JSON, not decoded), a declared empty answer, or a refusal (any other status,
 * as HttpError documents).
 *
 * @category http
 * @since 0.1.0
 */
export const exchange = <A, F extends Family, E extends boolean>(
  fetch: FetchFunction,
  operation: Operation<A, F, E>,
  request: Request
): Effect.Effect<Answer<unknown, E>, RequestError | Refusal<F>> => {
  const headers = request.body === undefined
    ? request.headers
    : { "content-type": "application/json", ...request.headers }
  return Effect.flatMap(
    send(fetch, operation.method, request.url, { headers, body: request.body }),
    (response): Effect.Effect<Answer<unknown, E>, RequestError | Refusal<F>> => {
      const { status } = response
      if (!operation.successes.has(status)) return Effect.fail(refusal(operation, response))
      if (operation.successes.get(status) === undefined) {
        return Effect.succeed({ _tag: "Empty", status, response } satisfies Empty as Answer<unknown, E>)
      }
      return Effect.map(json(response), (body) => ({ _tag: "Body", status, response, body }) satisfies Body<unknown>)
    }
  )
}

/**
 * {@link exchange}, with the body decoded by the schema the contract declares
 * for the answered status.
 *
 * @category http
 * @since 0.1.0
 */
export const call = <A, F extends Family, E extends boolean>(
  fetch: FetchFunction,
  operation: Operation<A, F, E>,
  request: Request
): Effect.Effect<Answer<A, E>, RequestError | Refusal<F>> =>
  Effect.flatMap(
    exchange(fetch, operation, request),
    (answer): Effect.Effect<Answer<A, E>, RequestError | Refusal<F>> => {
      if (answer._tag === "Empty") return Effect.succeed(answer)
      const decoder = operation.successes.get(answer.status)!
      return Effect.map(decoder(answer.response, answer.body), (body) => ({ ...answer, body: body as A }))
    }
  )

/**
 * Fills the operation's path parameters into a URL template of a manifest
 * (`{routeId}`, `{fillId}`), each value URI-encoded. Fails with the reason when
 * the template lacks a placeholder.
 *
 * @category http
 * @since 0.1.0
 */
export const fillPath = (
  operation: Operation<unknown>,
  template: string,
  values: Readonly<Record<string, string>>
): Result.Result<string, string> => {
  let url = template
  for (const name of operation.pathParams) {
    const value = values[name]
    if (value === undefined) return Result.fail(`no value for {${name}}`)
    if (!url.includes(`{${name}}`)) {
      return Result.fail(`has no {${name}} (a path parameter of ${operation.id} ${operation.path})`)
    }
    url = url.replace(`{${name}}`, encodeURIComponent(value))
  }
  return Result.succeed(url)
}
