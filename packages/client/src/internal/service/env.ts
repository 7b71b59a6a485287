/**
 * What every part of the client service shares: the resolved options, the
 * fetch, and `call` / `exchange` bound to that fetch (see `../operations.ts`).
 * Built once per client by {@link makeEnv}; holds no state. Internal.
 *
 * @since 0.1.0
 */
import { BYTES32 } from "@svc/protocol/Patterns"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { DiscoveryInvalid, InvalidInput, type RequestError } from "../../Errors.ts"
import * as Manifests from "../../Manifests.ts"
import type { SvcClientOptions } from "../../SvcClient.ts"
import { type FetchFunction, resolveFetch, type RetryPolicy } from "../http.ts"
import * as Operations from "../operations.ts"

/**
 * The shared environment of the client's parts.
 *
 * @category models
 * @since 0.1.0
 */
export interface ClientEnv {
  readonly fetch: FetchFunction
  readonly retry: RetryPolicy
  /** Allowed clock difference for a permit's validAfter, seconds. */
  readonly clockSkewSeconds: number
  readonly pinnedSigner: string | undefined
  /** Where the solver manifest is read (undefined: neither baseUrl nor manifestUrl was given). */
  readonly solverManifestUrl: string | undefined
  /** Where the aggregator manifest is read. */
  readonly aggregatorManifestUrl: string | undefined
  /** Performs an operation of the contract and decodes its body ({@link Operations.call}). */
  readonly call: <A, F extends Operations.Family, E extends boolean>(
    operation: Operations.Operation<A, F, E>,
    request: Operations.Request
  ) => Effect.Effect<Operations.Answer<A, E>, RequestError | Operations.Refusal<F>>
  /** Performs an operation of the contract; the body is parsed JSON ({@link Operations.exchange}). */
  readonly exchange: <A, F extends Operations.Family, E extends boolean>(
    operation: Operations.Operation<A, F, E>,
    request: Operations.Request
  ) => Effect.Effect<Operations.Answer<unknown, E>, RequestError | Operations.Refusal<F>>
}

/**
 * The default retries of idempotent requests.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  initialDelayMs: 250,
  maxDelayMs: 5000,
  maxRetryAfterMs: 30_000
}

const solverManifestUrlOf = (options: SvcClientOptions): string | undefined =>
  options.manifestUrl ??
    (options.baseUrl !== undefined ? Manifests.wellKnown(options.baseUrl, "svc-solver.json") : undefined)

const aggregatorManifestUrlOf = (options: SvcClientOptions): string | undefined =>
  options.aggregatorManifestUrl ??
    (options.baseUrl !== undefined
      ? Manifests.wellKnown(options.baseUrl, "svc-aggregator.json")
      : options.manifestUrl !== undefined
      ? options.manifestUrl.replace(/\/\.well-known\/svc-solver\.json(?:[?#].*)?$/, "/.well-known/svc-aggregator.json")
      : undefined)

/**
 * The environment of a client's options.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeEnv = (options: SvcClientOptions): ClientEnv => {
  const fetch = resolveFetch(options.fetch)
  return {
    fetch,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    clockSkewSeconds: options.clockSkewSeconds ?? 60,
    pinnedSigner: options.pinnedSigner,
    solverManifestUrl: solverManifestUrlOf(options),
    aggregatorManifestUrl: aggregatorManifestUrlOf(options),
    call: (operation, request) => Operations.call(fetch, operation, request),
    exchange: (operation, request) => Operations.exchange(fetch, operation, request)
  }
}

/**
 * The current time on the Effect clock, in seconds.
 *
 * @category crypto
 * @since 0.1.0
 */
export const nowSeconds: Effect.Effect<number> = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

/**
 * A 32-byte id argument (routeId, fillId), lowercased.
 *
 * @category validation
 * @since 0.1.0
 */
export const checkId = (field: string, value: string): Effect.Effect<string, InvalidInput> =>
  typeof value === "string" && BYTES32.test(value)
    ? Effect.succeed(value.toLowerCase())
    : Effect.fail(new InvalidInput({ field, reason: "0x followed by 64 hex digits" }))

/**
 * The URL of an operation with path parameters: the manifest's template with the
 * contract's parameters filled in. A template without the placeholder makes the
 * manifest unusable for that operation (DiscoveryInvalid).
 *
 * @category http
 * @since 0.1.0
 */
export const templateUrl = <K extends string>(
  manifest: { readonly url: string; readonly manifest: { readonly endpoints: Readonly<Record<K, string>> } },
  field: K,
  operation: Operations.Operation<unknown>,
  values: Readonly<Record<string, string>>
): Effect.Effect<string, DiscoveryInvalid> =>
  Effect.mapError(
    Effect.fromResult(Operations.fillPath(operation, manifest.manifest.endpoints[field], values)),
    (reason) => new DiscoveryInvalid({ url: manifest.url, reason: `endpoints.${field} ${reason}` })
  )
