/**
 * Handlers of the contract's Aggregator group (`/v1` and the aggregator
 * manifest), over the core's `Aggregator` service. Admission (Origin allow-list,
 * rate limits) and request validation run before them (`Admission`,
 * `Validation`); bodies are read here (32 KiB before parsing) and decoded
 * strictly. Every refusal is an `AggregatorError` (`AggregatorErrors`).
 *
 * Chains and tokens carry a weak ETag (`W/"<dataVersion>-<first 16 hex of
 * feedHash>-chains"`, `...-tokens-<chainId|all>`), `Cache-Control: no-cache`, and
 * answer 304 on a matching If-None-Match.
 *
 * @since 0.1.0
 */
import { Aggregator, type Health } from "@svc/core"
import * as Api from "@svc/protocol/Api"
import { AggregatorBuildRequest, AggregatorQuoteRequest } from "@svc/protocol/schema/Aggregator"
import { strictParseOptions } from "@svc/protocol/schema/index"
import { Effect, Result, Schema } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, type HttpApiEndpoint } from "effect/http-api"
import * as AggregatorErrors from "../AggregatorErrors.ts"
import * as ClientAddress from "../ClientAddress.ts"
import * as Http from "../Http.ts"
import * as RequestBody from "../RequestBody.ts"

const decodeQuote = Schema.decodeUnknownResult(AggregatorQuoteRequest)
const decodeBuild = Schema.decodeUnknownResult(AggregatorBuildRequest)
const encoder = new TextEncoder()

const body = <A>(
  request: HttpServerRequest.HttpServerRequest,
  decode: (input: unknown) => Result.Result<A, Schema.SchemaError>
): Effect.Effect<Result.Result<A, HttpServerResponse.HttpServerResponse>> =>
  Effect.map(RequestBody.readJson(request), (raw) => {
    if (Result.isFailure(raw)) return Result.fail(AggregatorErrors.bodyRefused(raw.failure))
    const decoded = decode(raw.success)
    return Result.isFailure(decoded)
      ? Result.fail(AggregatorErrors.schemaFailure(decoded.failure))
      : Result.succeed(decoded.success)
  })

/** The aggregator's answer: 200 with its success body (checked against the endpoint's), or its refusal. */
const answer = <Endpoint extends HttpApiEndpoint.Constraint>(
  endpoint: Endpoint,
  effect: Effect.Effect<Http.SuccessBody<Endpoint>, Aggregator.AggregatorFailure>
) =>
  Effect.map(
    Effect.result(effect),
    (r) => Result.isFailure(r) ? AggregatorErrors.response(r.failure) : Http.success(endpoint, 200, r.success)
  )

/** Prepared bodies with their ETag, for the current data version; 304 on a match. */
const makeRevalidation = () => {
  let version = ""
  const cache = new Map<string, { readonly etag: string; readonly body: Uint8Array }>()
  return <Endpoint extends HttpApiEndpoint.Constraint>(
    _endpoint: Endpoint,
    ifNoneMatch: string | undefined,
    dataVersion: string,
    key: string,
    value: () => Http.SuccessBody<Endpoint>
  ) => {
    if (dataVersion !== version) {
      cache.clear()
      version = dataVersion
    }
    let entry = cache.get(key)
    if (entry === undefined) {
      entry = { etag: `W/"${dataVersion}-${key}"`, body: encoder.encode(JSON.stringify(value())) }
      cache.set(key, entry)
    }
    return Http.ifNoneMatch(ifNoneMatch, entry.etag)
      ? Http.empty(304, { etag: entry.etag, "cache-control": Http.CacheControl.revalidate })
      : Http.jsonBytes(200, entry.body, { etag: entry.etag }, Http.CacheControl.revalidate)
  }
}

/**
 * The Aggregator group's handlers.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (aggregator: Aggregator.Aggregator["Service"], health: Health.Health["Service"]) => {
  const manifest = Http.successBytes("aggregator_manifest", aggregator.manifest)
  const revalidated = makeRevalidation()
  return HttpApiBuilder.group(Api.Api, "Aggregator", (handlers) =>
    Effect.succeed(
      handlers
        .handleRaw("aggregator_manifest", ({ endpoint }) =>
          Effect.succeed(
            Http.jsonBytes(200, manifest, { link: `<${endpoint.path}>; rel="canonical"` }, Http.CacheControl.manifest)
          ))
        .handleRaw("aggregator_quote", ({ endpoint, request }) =>
          Effect.flatMap(
            body(request, (u) => decodeQuote(u, strictParseOptions)),
            (decoded) =>
              Result.isFailure(decoded)
                ? Effect.succeed(decoded.failure)
                : answer(endpoint, aggregator.quote(decoded.success))
          ))
        .handleRaw("aggregator_build", ({ endpoint, request }) =>
          Effect.flatMap(
            body(request, (u) => decodeBuild(u, strictParseOptions)),
            (decoded) =>
              Result.isFailure(decoded)
                ? Effect.succeed(decoded.failure)
                : Effect.flatMap(
                  ClientAddress.current,
                  (clientKey) => answer(endpoint, aggregator.build(decoded.success, { clientKey }))
                )
          ))
        .handleRaw("aggregator_status", ({ endpoint, query }) => {
          const given = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as Record<
            string,
            string
          >
          const lookup = Aggregator.statusLookupOf(given)
          return Result.isFailure(lookup)
            ? Effect.succeed(AggregatorErrors.response(lookup.failure))
            : answer(endpoint, aggregator.status(lookup.success))
        })
        .handleRaw("aggregator_chains", ({ endpoint, headers }) =>
          Effect.map(Effect.result(aggregator.chains), (chains) =>
            Result.isFailure(chains)
              ? AggregatorErrors.response(chains.failure)
              : revalidated(endpoint, headers["if-none-match"], chains.success.version, "chains", () =>
                chains.success.value)))
        .handleRaw("aggregator_tokens", ({ endpoint, headers, query }) => {
          const raw = query.chainId
          if (raw !== undefined && !Number.isSafeInteger(Number(raw))) {
            return Effect.succeed(
              AggregatorErrors.fail("INVALID_REQUEST", ["CHAIN_ID_INVALID"], { detail: "chainId: an integer >= 1" })
            )
          }
          const chainId = raw === undefined ? undefined : Number(raw)
          return Effect.map(Effect.result(aggregator.tokens(chainId)), (tokens) =>
            Result.isFailure(tokens)
              ? AggregatorErrors.response(tokens.failure)
              : revalidated(
                endpoint,
                headers["if-none-match"],
                tokens.success.version,
                `tokens-${chainId ?? "all"}`,
                () =>
                  tokens.success.value
              ))
        })
        // 200 always (the spec's status); the body says what works: a store, signer or other
        // dependency of the requests (the shared rate limiter) that does not answer makes a valid
        // publication DEGRADED
        .handleRaw("aggregator_health", ({ endpoint }) =>
          Effect.map(Effect.zip(aggregator.health, health.check), ([h, parts]) =>
            Http.success(endpoint, 200, {
              ...h,
              status: h.status === "OK" &&
                  Object.entries(parts.components).some(([name, c]) =>
                    name !== "publication" && c.status !== "OK"
                  )
                ? "DEGRADED"
                : h.status,
              components: parts.components
            })))
    ))
}
