/**
 * Discovery: reads, validates and caches the solver and aggregator manifests
 * (`getSolverManifest`, `aggregator_manifest`). Internal.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import {
  type DiscoveryInvalid,
  HttpError,
  InvalidInput,
  type RefreshQuote,
  type RequestError,
  type ServerRefusal
} from "../../Errors.ts"
import * as Manifests from "../../Manifests.ts"
import type { DiscoveryError } from "../../SvcClient.ts"
import * as Operations from "../declared.ts"
import type { Family, Operation } from "../operations.ts"
import type { ClientEnv } from "./env.ts"

/**
 * The solver manifest of a client, read once and then cached.
 *
 * @category models
 * @since 0.1.0
 */
export interface SolverManifests {
  /** The validated solver manifest (read on first use). */
  readonly solver: Effect.Effect<Manifests.Solver, DiscoveryError>
  /** Reads the solver manifest again (and caches it). */
  readonly refreshSolver: Effect.Effect<Manifests.Solver, DiscoveryError>
}

/**
 * The manifests of a client, each read once and then cached.
 *
 * @category models
 * @since 0.1.0
 */
export interface ManifestReader extends SolverManifests {
  /** The validated aggregator manifest (read on first use). */
  readonly aggregator: Effect.Effect<Manifests.Aggregator, DiscoveryError>
}

const serverRefusal = (e: ServerRefusal): ServerRefusal => ({
  method: e.method,
  url: e.url,
  status: e.status,
  serverCode: e.serverCode,
  reasonCodes: e.reasonCodes,
  retryAfterSeconds: e.retryAfterSeconds,
  action: e.action,
  retryable: e.retryable,
  serverMessage: e.serverMessage,
  diagnostics: e.diagnostics
})

/**
 * Reads one manifest: a declared 200 body, validated; a refusal is an
 * HttpError (a manifest read never asks for a new quote, whatever the body's
 * `action`).
 */
const readManifest = <M, F extends Family>(
  env: ClientEnv,
  operation: Operation<unknown, F, false>,
  url: string,
  validate: (url: string, body: unknown, pinnedSigner?: string) => Result.Result<M, DiscoveryInvalid>
): Effect.Effect<M, DiscoveryError> =>
  env.exchange(operation, { url }).pipe(
    Effect.mapError((e: RequestError | RefreshQuote): RequestError =>
      e._tag === "RefreshQuote" ? new HttpError(serverRefusal(e)) : e
    ),
    Effect.flatMap((answer) => Effect.fromResult(validate(url, answer.body, env.pinnedSigner)))
  )

/**
 * The solver manifest of a client, read once and then cached.
 *
 * @category constructors
 * @since 0.1.0
 */
export const solverManifests = (env: ClientEnv): SolverManifests => {
  let solver: Manifests.Solver | undefined

  const readSolver: Effect.Effect<Manifests.Solver, DiscoveryError> = Effect.suspend(() => {
    const url = env.solverManifestUrl
    if (url === undefined) {
      return Effect.fail(new InvalidInput({ field: "baseUrl", reason: "give baseUrl or manifestUrl" }))
    }
    return Effect.tap(
      readManifest(env, Operations.getSolverManifest, url, Manifests.validateSolver),
      (read) =>
        Effect.sync(() => {
          solver = read
        })
    )
  })

  return {
    solver: Effect.suspend(() => solver !== undefined ? Effect.succeed(solver) : readSolver),
    refreshSolver: readSolver
  }
}

/**
 * The aggregator manifest of a client, read once and then cached.
 *
 * @category constructors
 * @since 0.1.0
 */
export const aggregatorManifest = (env: ClientEnv): Effect.Effect<Manifests.Aggregator, DiscoveryError> => {
  let aggregator: Manifests.Aggregator | undefined

  const readAggregator: Effect.Effect<Manifests.Aggregator, DiscoveryError> = Effect.suspend(() => {
    const url = env.aggregatorManifestUrl
    if (url === undefined) {
      return Effect.fail(
        new InvalidInput({ field: "aggregatorManifestUrl", reason: "give baseUrl or aggregatorManifestUrl" })
      )
    }
    return Effect.tap(
      readManifest(env, Operations.aggregator_manifest, url, Manifests.validateAggregator),
      (read) =>
        Effect.sync(() => {
          aggregator = read
        })
    )
  })

  return Effect.suspend(() => aggregator !== undefined ? Effect.succeed(aggregator) : readAggregator)
}

/**
 * The manifest reader of a client: {@link solverManifests} and
 * {@link aggregatorManifest}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const manifestReader = (env: ClientEnv): ManifestReader => ({
  ...solverManifests(env),
  aggregator: aggregatorManifest(env)
})
