/**
 * The aggregator interface over the solver engine: exact quotes from open L1
 * routes, the two-stage build (message to sign, then the `fillDirect`
 * transaction with its permit), fill status, chains, tokens, health and the
 * aggregator manifest. HTTP-agnostic: every operation returns a body of
 * `schema/Aggregator.ts` or fails with an {@link AggregatorFailure} whose code is
 * one of `AGGREGATOR_ERRORS` (the server maps it to its status and an
 * `AggregatorError` body).
 *
 * Decisions (docs/aggregator.md, "Decisions svc made where the spec is silent", plus the ones marked here):
 *
 * - quote: only open L1 routes of the pair whose published limits contain
 *   amountIn are priced (fresh, amount-bound, through `Pricing`); the best is the
 *   highest amountOut, then the lowest publicationRank, then the lowest routeId.
 *   `expiresAt` is the earliest of the route's validUntil, the feed's validUntil,
 *   the pricing cycle's deadline (`pricingCycleValidUntil`, rounded down to a
 *   second) and, when configured, now + `quoteTtlSeconds`. A quote is usable while
 *   now < expiresAt.
 * - quoteToken = lowercase hex HMAC-SHA256, key = UTF-8 bytes of the server
 *   secret, message = UTF-8 of `SVC_AGGREGATOR_QUOTE_TOKEN_V1` LF canonical JSON
 *   of the quote without quoteToken (which holds quoteId and amountOut). The quote
 *   is stored under its token until expiresAt + 24 h.
 * - build: the stored quote must match quoteToken, quoteId and routeId (else 404
 *   QUOTE_NOT_FOUND); userAddress must equal the quote's userAddress and recipient
 *   the quote's recipient when the quote named them (else 400); the signed
 *   message is the solver permit request message (standard DIRECT, payer =
 *   userAddress, recipient, requestedAmountInRaw = amountIn, idempotencyKey). A
 *   stage 2 whose idempotency key already has a permit replays it (same fillId),
 *   even after the quote expired.
 * - status: a fill's `expiresAt` is the permit's validUntil, `updatedAt` the last
 *   state change (Unix seconds).
 *
 * Layout: this module holds the contract, the server secret and the assembly;
 * each operation is a traced function (`Aggregator.quote`, `Aggregator.build`,
 * ...) of a private module under `internal/aggregator/` (quoting, building,
 * status, listing, quote tokens, errors), built from pure helpers over explicit
 * inputs.
 *
 * @since 0.1.0
 */
import { toHex, utf8 } from "@svc/protocol/Bytes"
import type {
  AggregatorBuild,
  AggregatorBuildRequest,
  AggregatorChains,
  AggregatorHealth,
  AggregatorManifest,
  AggregatorQuote,
  AggregatorQuoteRequest,
  AggregatorQuoteValidity,
  AggregatorStatus,
  AggregatorStatusList,
  AggregatorTokens
} from "@svc/protocol/schema/Aggregator"
import { Context, Data, Effect, FileSystem, Layer, Path, Redacted, Result } from "effect"
import { Catalog } from "./Catalog.ts"
import { Entropy } from "./Entropy.ts"
import * as Building from "./internal/aggregator/building.ts"
import {
  type AggregatorFailure,
  currentPublication,
  failure as aggregatorFailure
} from "./internal/aggregator/errors.ts"
import * as Listing from "./internal/aggregator/listing.ts"
import * as Quoting from "./internal/aggregator/quoting.ts"
import * as Status from "./internal/aggregator/status.ts"
import { Permits } from "./Permits.ts"
import { Pricing } from "./Pricing.ts"
import { Publisher } from "./Publisher.ts"
import { Signer } from "./Signer.ts"
import { Store } from "./Store.ts"

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/**
 * A refused aggregator operation: a code of `AGGREGATOR_ERRORS`, a safe message
 * (never internal details), reason codes that refine the code, and a retry delay
 * for rate limits and unavailability. The HTTP status and the `AggregatorError`
 * body are the server's business (`@svc/server`).
 *
 * @category errors
 * @since 0.1.0
 */
export { AggregatorFailure } from "./internal/aggregator/errors.ts"

/**
 * Shorthand constructor.
 *
 * @category errors
 * @since 0.1.0
 */
export { failure } from "./internal/aggregator/errors.ts"

/**
 * The aggregator failure of a refused permit operation, by its typed reason.
 *
 * @category errors
 * @since 0.1.0
 */
export { fromPermitError } from "./internal/aggregator/errors.ts"

// ---------------------------------------------------------------------------
// Server secret
// ---------------------------------------------------------------------------

/**
 * The server secret cannot be read or is unusable.
 *
 * @category errors
 * @since 0.1.0
 */
export class ServerSecretUnavailable
  extends Data.TaggedError("ServerSecretUnavailable")<{ readonly message: string }>
{}

/**
 * The server secret behind quote tokens (HMAC key = its UTF-8 bytes).
 *
 * @category services
 * @since 0.1.0
 */
export class ServerSecret extends Context.Service<ServerSecret, {
  readonly key: Redacted.Redacted<Uint8Array>
}>()("@svc/core/Aggregator/ServerSecret") {}

/**
 * Shortest accepted server secret, characters.
 *
 * @category layers
 * @since 0.1.0
 */
export const MIN_SECRET_LENGTH = 32

/**
 * The file name of the generated secret in the data directory.
 *
 * @category layers
 * @since 0.1.0
 */
export const SERVER_SECRET_FILE = "server.secret"

const secretOf = (secret: string): Result.Result<ServerSecret["Service"], ServerSecretUnavailable> =>
  secret.length < MIN_SECRET_LENGTH
    ? Result.fail(
      new ServerSecretUnavailable({ message: `SVC_SERVER_SECRET: at least ${MIN_SECRET_LENGTH} characters` })
    )
    : Result.succeed(ServerSecret.of({ key: Redacted.make(utf8(secret)) }))

/**
 * A configured secret (`SVC_SERVER_SECRET`), at least 32 characters.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerSecret = (secret: Redacted.Redacted<string>): Layer.Layer<ServerSecret, ServerSecretUnavailable> =>
  Layer.effect(ServerSecret, Effect.fromResult(secretOf(Redacted.value(secret))))

/** Random hex digits from the `Entropy` service (the platform's secure generator unless a layer provides another). */
const randomHex = (bytes: number): Effect.Effect<string> => Entropy.useSync((e) => toHex(e.bytes(bytes)).slice(2))

/**
 * A random secret held in memory for the life of the process (embedding and
 * tests: quote tokens do not survive a restart).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerSecretRandom: Layer.Layer<ServerSecret> = Layer.effect(
  ServerSecret,
  Effect.map(randomHex(32), (hex) => ServerSecret.of({ key: Redacted.make(utf8(hex)) }))
)

/**
 * A secret generated once into `<dataDir>/server.secret` (64 hex digits, mode
 * 0600) and read from there on later starts. Never logged.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerSecretDevelopment = (
  dataDir: string
): Layer.Layer<ServerSecret, ServerSecretUnavailable, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(
    ServerSecret,
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const file = path.join(dataDir, SERVER_SECRET_FILE)
      const unavailable = (what: string) => (e: unknown) =>
        new ServerSecretUnavailable({
          message: `server secret ${file}: ${what}: ${String((e as Error)?.message ?? e).split("\n")[0]}`
        })
      const exists = yield* fs.exists(file).pipe(Effect.mapError(unavailable("cannot check")))
      if (!exists) {
        yield* fs.makeDirectory(dataDir, { recursive: true }).pipe(
          Effect.mapError(unavailable("cannot create the data directory"))
        )
        yield* fs.writeFileString(file, `${yield* randomHex(32)}\n`, { mode: 0o600, flag: "wx" }).pipe(
          Effect.catch((e) =>
            // another process may have created it first: read that one
            e._tag === "PlatformError" && e.reason._tag === "AlreadyExists"
              ? Effect.void
              : Effect.fail(unavailable("cannot write")(e))
          )
        )
      }
      const text = (yield* fs.readFileString(file).pipe(Effect.mapError(unavailable("cannot read")))).trim()
      yield* fs.chmod(file, 0o600).pipe(Effect.ignore)
      const secret = secretOf(text)
      if (Result.isFailure(secret)) {
        return yield* new ServerSecretUnavailable({
          message: `server secret ${file}: at least ${MIN_SECRET_LENGTH} characters`
        })
      }
      return secret.success
    })
  )

// ---------------------------------------------------------------------------
// Quote tokens
// ---------------------------------------------------------------------------

/**
 * The domain line of the quote token preimage.
 *
 * @category crypto
 * @since 0.1.0
 */
export { QUOTE_TOKEN_DOMAIN } from "./internal/aggregator/quoteToken.ts"

/**
 * The quote token of a quote: HMAC-SHA256(key, `SVC_AGGREGATOR_QUOTE_TOKEN_V1` LF
 * canonical JSON of the quote without quoteToken), lowercase hex.
 *
 * @category crypto
 * @since 0.1.0
 */
export { quoteTokenOf } from "./internal/aggregator/quoteToken.ts"

// ---------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------

/**
 * A body with the version of the data it was built from (`<dataVersion>-<first 16
 * hex of feedHash>`): the server derives the ETag of chains and tokens from it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Versioned<A> {
  readonly value: A
  readonly version: string
}

/**
 * The one lookup of a status request.
 *
 * @category models
 * @since 0.1.0
 */
export type StatusLookup =
  | { readonly by: "fillId"; readonly value: string }
  | { readonly by: "sourceTxHash"; readonly value: string }
  | { readonly by: "quoteId"; readonly value: string }
  | { readonly by: "userAddress"; readonly value: string }
  | { readonly by: "quoteToken"; readonly value: string }

/**
 * What `GET /v1/status` answers.
 *
 * @category models
 * @since 0.1.0
 */
export type StatusResult = AggregatorStatus | AggregatorStatusList | AggregatorQuoteValidity

/**
 * The published per-client rate limits (reported in the manifest; the server
 * enforces them).
 *
 * @category models
 * @since 0.1.0
 */
export interface RateLimits {
  readonly windowSeconds: number
  readonly requestsPerWindow: number
  readonly quoteAndBuildPerWindow: number
}

/**
 * Upstream's published aggregator limits: 120 requests per minute per client, of
 * which 20 quote/build POSTs (each build stage counts).
 *
 * @category models
 * @since 0.1.0
 */
export const DEFAULT_RATE_LIMITS: RateLimits = { windowSeconds: 60, requestsPerWindow: 120, quoteAndBuildPerWindow: 20 }

/**
 * Most fills a list lookup returns.
 *
 * @category models
 * @since 0.1.0
 */
export { STATUS_LIST_MAX } from "./internal/aggregator/status.ts"

/**
 * How long a quote is kept after its expiresAt, seconds (24 h).
 *
 * @category models
 * @since 0.1.0
 */
export { QUOTE_RETENTION_SECONDS } from "./internal/aggregator/quoting.ts"

/**
 * Options of the aggregator service.
 *
 * @category models
 * @since 0.1.0
 */
export interface AggregatorOptions {
  /** Public base URL (no trailing slash), for the manifest's absolute URLs. */
  readonly publicUrl: string
  /** Caps a quote's validity at now + this many seconds (default: no cap beyond route, feed and pricing). */
  readonly quoteTtlSeconds?: number | undefined
  /** The published rate limits (default {@link DEFAULT_RATE_LIMITS}). */
  readonly rateLimits?: RateLimits | undefined
  /**
   * Which `/v1/status` list lookups answer (privacy): `all` (default, as the
   * interface describes: recent fills of a quoteId or of a userAddress, with
   * addresses and amounts, to anyone), `address` (only a userAddress's own
   * history, which its chain shows anyway), `none` (single fills and quote
   * tokens only). A refused lookup is 400 INVALID_REQUEST, STATUS_LIST_DISABLED.
   */
  readonly statusLists?: "all" | "address" | "none" | undefined
}

/**
 * The aggregator contract.
 *
 * @category models
 * @since 0.1.0
 */
export interface AggregatorShape {
  /** An exact quote from one open L1 route. */
  readonly quote: (request: AggregatorQuoteRequest) => Effect.Effect<AggregatorQuote, AggregatorFailure>
  /**
   * Stage 1 (no requestSignature): the message to sign; stage 2: the transaction
   * and permit. `clientKey` names the requesting client (its address): the
   * permits it gets count toward its hold share (`holdShares.clientBps`).
   */
  readonly build: (
    request: AggregatorBuildRequest,
    options?: { readonly clientKey?: string | undefined }
  ) => Effect.Effect<AggregatorBuild, AggregatorFailure>
  /** One fill, recent fills, or the usability of a quote. */
  readonly status: (lookup: StatusLookup) => Effect.Effect<StatusResult, AggregatorFailure>
  /** Chains, open L1 pairs and their routes. */
  readonly chains: Effect.Effect<Versioned<AggregatorChains>, AggregatorFailure>
  /** Token metadata, optionally of one chain (an unknown chain: 400 UNSUPPORTED_CHAIN). */
  readonly tokens: (chainId?: number | undefined) => Effect.Effect<Versioned<AggregatorTokens>, AggregatorFailure>
  /** Availability (always answers). */
  readonly health: Effect.Effect<AggregatorHealth>
  /** The `/.well-known/svc-aggregator.json` document. */
  readonly manifest: AggregatorManifest
}

/**
 * The aggregator service.
 *
 * @category services
 * @since 0.1.0
 */
export class Aggregator extends Context.Service<Aggregator, AggregatorShape>()("@svc/core/Aggregator") {}

// ---------------------------------------------------------------------------
// Pure helpers
// ---------------------------------------------------------------------------

/**
 * The lookup of status query parameters: exactly one of fillId, sourceTxHash,
 * quoteId, userAddress, quoteToken, well formed (else 400 INVALID_REQUEST).
 * Unknown or repeated parameters are refused by the caller.
 *
 * @category operations
 * @since 0.1.0
 */
export { statusLookupOf } from "./internal/aggregator/status.ts"

/**
 * A priced candidate route of a quote.
 *
 * @category operations
 * @since 0.1.0
 */
export type { Candidate } from "./internal/aggregator/quoting.ts"

/**
 * Orders candidates best first: highest amountOut, then lowest publicationRank,
 * then lowest routeId.
 *
 * @category operations
 * @since 0.1.0
 */
export { rankCandidates } from "./internal/aggregator/quoting.ts"

// ---------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------

/**
 * Builds the aggregator over the engine: the catalog views are computed once,
 * each operation is a function of its module under `internal/aggregator/`
 * (quoting, building, status, listing) over the services it reads; the chains
 * cache and the quote pruning clock live in this instance.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  options: AggregatorOptions
): Effect.Effect<AggregatorShape, never, Catalog | Publisher | Pricing | Permits | Store | Signer | ServerSecret> =>
  Effect.gen(function*() {
    const catalog = yield* Catalog
    const publisher = yield* Publisher
    const pricing = yield* Pricing
    const permits = yield* Permits
    const store = yield* Store
    const signer = yield* Signer
    const key = Redacted.value((yield* ServerSecret).key)
    const publicUrl = options.publicUrl.replace(/\/+$/, "")
    const views = Listing.catalogViewsOf(catalog)
    const current = currentPublication(publisher)
    const quoteDeps: Quoting.QuoteDeps = {
      views,
      current,
      pricing,
      store,
      key,
      ttlSeconds: Quoting.quoteTtlOf(options.quoteTtlSeconds),
      prune: Quoting.makeQuotePruner(store)
    }
    const buildDeps: Building.BuildDeps = { current, pricing, store, permits, key }
    const statusDeps: Status.StatusDeps = { current, pricing, store, key }
    const statusLists = options.statusLists ?? "all"
    return Aggregator.of({
      quote: (request) => Quoting.quote(quoteDeps, request),
      build: (request, options) => Building.build(buildDeps, request, options),
      status: (lookup) =>
        (lookup.by === "quoteId" && statusLists !== "all") || (lookup.by === "userAddress" && statusLists === "none")
          ? Effect.fail(
            aggregatorFailure("INVALID_REQUEST", ["STATUS_LIST_DISABLED"], {
              detail: `this deployment does not list fills by ${lookup.by}; look a fill up by fillId or sourceTxHash`
            })
          )
          : Status.status(statusDeps, lookup),
      chains: Listing.makeChains({ current, chainList: views.chainList }),
      tokens: (chainId) => Listing.tokens({ current, views }, chainId),
      health: Listing.health(publisher),
      manifest: Listing.manifestOf(publicUrl, signer.address, options.rateLimits ?? DEFAULT_RATE_LIMITS)
    })
  })

/**
 * The aggregator layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  options: AggregatorOptions
): Layer.Layer<Aggregator, never, Catalog | Publisher | Pricing | Permits | Store | Signer | ServerSecret> =>
  Layer.effect(Aggregator, make(options))
