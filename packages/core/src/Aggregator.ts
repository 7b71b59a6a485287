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
 * @since 0.1.0
 */
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Clock, Context, Data, Effect, FileSystem, Layer, Option, Path, Redacted, Result, Schema } from "effect"
import { getAddress } from "viem"
import { Catalog, type CatalogRoute } from "./Catalog.ts"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import type { PermitError, PermitErrorReason } from "./PermitError.ts"
import { toHex, utf8 } from "@svc/protocol/Bytes"
import { aggregatorStatusOf, isTerminal } from "./Lifecycle.ts"
import * as PermitAbi from "@svc/protocol/PermitAbi"
import * as PermitMessage from "@svc/protocol/PermitMessage"
import { envelopeOf, Permits, scopeOf } from "./Permits.ts"
import { type FreshQuote, Pricing } from "./Pricing.ts"
import { type Publication, type PublicationUnavailable, Publisher } from "./Publisher.ts"
import {
  AGGREGATOR_ERRORS,
  type AggregatorBuild,
  type AggregatorBuildRequest,
  type AggregatorChain,
  type AggregatorChains,
  type AggregatorErrorCode,
  type AggregatorHealth,
  type AggregatorManifest,
  type AggregatorPair,
  AggregatorQuote,
  type AggregatorQuoteRequest,
  type AggregatorQuoteValidity,
  type AggregatorRoute,
  type AggregatorStatus,
  type AggregatorStatusList,
  type AggregatorToken,
  type AggregatorTokens
} from "@svc/protocol/schema/Aggregator"
import type { Route } from "@svc/protocol/schema/Feed"
import { strictParseOptions } from "@svc/protocol/schema/index"
import type { PermitCreateRequest, PermitRequest } from "@svc/protocol/schema/Permit"
import { Signer } from "./Signer.ts"
import { type PermitRecord, Store, type StoredQuote } from "./Store.ts"
import { ADDRESS, BYTES32, QUOTE_TOKEN, screamingSnake as screaming } from "@svc/protocol/Patterns"

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
export class AggregatorFailure extends Data.TaggedError("AggregatorFailure")<{
  readonly code: AggregatorErrorCode
  readonly detail?: string | undefined
  readonly reasonCodes?: ReadonlyArray<string> | undefined
  readonly retryAfterSeconds?: number | undefined
}> {
  override get message(): string {
    return this.detail ?? AGGREGATOR_ERRORS[this.code].meaning
  }
}

/**
 * Shorthand constructor.
 *
 * @category errors
 * @since 0.1.0
 */
export const failure = (
  code: AggregatorErrorCode,
  reasonCodes: ReadonlyArray<string> = [],
  extra?: { readonly detail?: string | undefined; readonly retryAfterSeconds?: number | undefined }
): AggregatorFailure =>
  new AggregatorFailure({
    code,
    reasonCodes,
    ...(extra?.detail === undefined ? {} : { detail: extra.detail }),
    ...(extra?.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: extra.retryAfterSeconds })
  })

const detailOf = (reason: PermitErrorReason): string | undefined =>
  reason._tag === "UnsupportedStandard"
    ? `supported: ${reason.supported.join(", ")}`
    : "detail" in reason && typeof reason.detail === "string"
    ? reason.detail
    : undefined

/**
 * The aggregator failure of a refused permit operation, by its typed reason.
 *
 * @category errors
 * @since 0.1.0
 */
export const fromPermitError = (e: PermitError): AggregatorFailure => {
  const reason = e.reason
  const codes = reason.reasonCodes
  switch (reason._tag) {
    case "RequestInvalid":
    case "IdempotencyKeyMismatch":
    case "UnsupportedStandard":
    case "AmountInvalid":
    case "IdentityInvalid":
      return failure("INVALID_REQUEST", codes, { detail: detailOf(reason) })
    case "AmountTooLow":
      return failure("AMOUNT_TOO_LOW", codes)
    case "SignatureInvalid":
      return failure("SIGNATURE_INVALID", codes)
    case "IdempotencyConflict":
      return failure("IDEMPOTENCY_CONFLICT", codes)
    case "IdempotencyInProgress":
      return failure("IDEMPOTENCY_IN_PROGRESS", codes, { retryAfterSeconds: reason.retryAfterSeconds })
    case "InsufficientCapacity":
      return failure("INSUFFICIENT_CAPACITY", codes, { retryAfterSeconds: 30 })
    case "QuoteChanged":
      return failure("QUOTE_CHANGED", codes)
    case "QuoteNotOpen":
      return reason.codes.includes("QUOTE_EXPIRED") ? failure("QUOTE_EXPIRED", codes) : failure("ROUTE_CLOSED", codes)
    case "RateLimited":
      return failure("RATE_LIMITED", codes, { retryAfterSeconds: reason.retryAfterSeconds })
    case "PermitNotFound":
      return failure("FILL_NOT_FOUND", codes)
    case "PublicationClosed":
      return failure("SERVICE_UNAVAILABLE", codes, { retryAfterSeconds: reason.retryAfterSeconds })
    case "Unavailable":
      return failure("SERVICE_UNAVAILABLE", codes, { retryAfterSeconds: reason.retryAfterSeconds })
  }
}

// ---------------------------------------------------------------------------
// Server secret
// ---------------------------------------------------------------------------

/**
 * The server secret cannot be read or is unusable.
 *
 * @category errors
 * @since 0.1.0
 */
export class ServerSecretUnavailable extends Data.TaggedError("ServerSecretUnavailable")<{ readonly message: string }> {}

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
 * @category secret
 * @since 0.1.0
 */
export const MIN_SECRET_LENGTH = 32

/**
 * The file name of the generated secret in the data directory.
 *
 * @category secret
 * @since 0.1.0
 */
export const SERVER_SECRET_FILE = "server.secret"

const secretOf = (secret: string): Result.Result<ServerSecret["Service"], ServerSecretUnavailable> =>
  secret.length < MIN_SECRET_LENGTH
    ? Result.fail(new ServerSecretUnavailable({ message: `SVC_SERVER_SECRET: at least ${MIN_SECRET_LENGTH} characters` }))
    : Result.succeed(ServerSecret.of({ key: Redacted.make(utf8(secret)) }))

/**
 * A configured secret (`SVC_SERVER_SECRET`), at least 32 characters.
 *
 * @category secret
 * @since 0.1.0
 */
export const layerSecret = (secret: Redacted.Redacted<string>): Layer.Layer<ServerSecret, ServerSecretUnavailable> =>
  Layer.effect(ServerSecret, Effect.fromResult(secretOf(Redacted.value(secret))))

const randomHex = (bytes: number): string => {
  const buffer = new Uint8Array(bytes)
  globalThis.crypto.getRandomValues(buffer)
  return toHex(buffer).slice(2)
}

/**
 * A random secret held in memory for the life of the process (embedding and
 * tests: quote tokens do not survive a restart).
 *
 * @category secret
 * @since 0.1.0
 */
export const layerSecretRandom: Layer.Layer<ServerSecret> = Layer.sync(
  ServerSecret,
  () => ServerSecret.of({ key: Redacted.make(utf8(randomHex(32))) })
)

/**
 * A secret generated once into `<dataDir>/server.secret` (64 hex digits, mode
 * 0600) and read from there on later starts. Never logged.
 *
 * @category secret
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
        new ServerSecretUnavailable({ message: `server secret ${file}: ${what}: ${String((e as Error)?.message ?? e).split("\n")[0]}` })
      const exists = yield* fs.exists(file).pipe(Effect.mapError(unavailable("cannot check")))
      if (!exists) {
        yield* fs.makeDirectory(dataDir, { recursive: true }).pipe(Effect.mapError(unavailable("cannot create the data directory")))
        yield* fs.writeFileString(file, `${randomHex(32)}\n`, { mode: 0o600, flag: "wx" }).pipe(
          Effect.catch((e) =>
            // another process may have created it first: read that one
            e._tag === "PlatformError" && e.reason._tag === "AlreadyExists" ? Effect.void : Effect.fail(unavailable("cannot write")(e))
          )
        )
      }
      const text = (yield* fs.readFileString(file).pipe(Effect.mapError(unavailable("cannot read")))).trim()
      yield* fs.chmod(file, 0o600).pipe(Effect.ignore)
      const secret = secretOf(text)
      if (Result.isFailure(secret)) {
        return yield* new ServerSecretUnavailable({ message: `server secret ${file}: at least ${MIN_SECRET_LENGTH} characters` })
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
 * @category quote tokens
 * @since 0.1.0
 */
export const QUOTE_TOKEN_DOMAIN = "SVC_AGGREGATOR_QUOTE_TOKEN_V1"

/**
 * The quote token of a quote: HMAC-SHA256(key, `SVC_AGGREGATOR_QUOTE_TOKEN_V1` LF
 * canonical JSON of the quote without quoteToken), lowercase hex.
 *
 * @category quote tokens
 * @since 0.1.0
 */
export const quoteTokenOf = (key: Uint8Array, quote: Omit<AggregatorQuote, "quoteToken"> | AggregatorQuote): string => {
  const { quoteToken: _ignored, ...rest } = quote as AggregatorQuote
  return bytesToHex(hmac(sha256, key, utf8(`${QUOTE_TOKEN_DOMAIN}\n${CanonicalJson.stringify(rest)}`)))
}

const sameToken = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

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
export const STATUS_LIST_MAX = 20

/**
 * How long a quote is kept after its expiresAt, seconds (24 h).
 *
 * @category models
 * @since 0.1.0
 */
export const QUOTE_RETENTION_SECONDS = 86_400

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
  /** Stage 1 (no requestSignature): the message to sign; stage 2: the transaction and permit. */
  readonly build: (request: AggregatorBuildRequest) => Effect.Effect<AggregatorBuild, AggregatorFailure>
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

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"
const LOOKUPS = ["fillId", "sourceTxHash", "quoteId", "userAddress", "quoteToken"] as const


/**
 * The lookup of status query parameters: exactly one of fillId, sourceTxHash,
 * quoteId, userAddress, quoteToken, well formed (else 400 INVALID_REQUEST).
 * Unknown or repeated parameters are refused by the caller.
 *
 * @category status
 * @since 0.1.0
 */
export const statusLookupOf = (params: Readonly<Record<string, string>>): Result.Result<StatusLookup, AggregatorFailure> => {
  const given = LOOKUPS.filter((name) => params[name] !== undefined)
  if (given.length === 0) {
    return Result.fail(failure("INVALID_REQUEST", ["LOOKUP_MISSING"], {
      detail: `give exactly one of ${LOOKUPS.join(", ")}`
    }))
  }
  if (given.length > 1) {
    return Result.fail(failure("INVALID_REQUEST", ["LOOKUP_AMBIGUOUS"], {
      detail: `give exactly one of ${LOOKUPS.join(", ")}, not ${given.join(" and ")}`
    }))
  }
  const by = given[0]!
  const value = params[by]!
  const ok = by === "userAddress"
    ? ADDRESS.test(value) && PermitMessage.hasValidChecksum(value)
    : by === "quoteToken"
    ? QUOTE_TOKEN.test(value)
    : BYTES32.test(value)
  if (!ok) {
    return Result.fail(failure("INVALID_REQUEST", [`${screaming(by)}_INVALID`], {
      detail: by === "userAddress"
        ? "userAddress: 0x followed by 40 hex digits (a mixed-case address needs a valid EIP-55 checksum)"
        : by === "quoteToken"
        ? "quoteToken: 64 lowercase hex digits"
        : `${by}: 0x followed by 64 hex digits`
    }))
  }
  return Result.succeed({ by, value } as StatusLookup)
}

/**
 * A priced candidate route of a quote.
 *
 * @category quote
 * @since 0.1.0
 */
export interface Candidate {
  readonly route: Route
  readonly amountOut: bigint
}

/**
 * Orders candidates best first: highest amountOut, then lowest publicationRank,
 * then lowest routeId.
 *
 * @category quote
 * @since 0.1.0
 */
export const rankCandidates = <C extends Candidate>(candidates: ReadonlyArray<C>): Array<C> =>
  [...candidates].sort((a, b) =>
    a.amountOut > b.amountOut ? -1 : a.amountOut < b.amountOut ? 1 :
    a.route.publicationRank - b.route.publicationRank ||
    (a.route.routeId.toLowerCase() < b.route.routeId.toLowerCase() ? -1 : a.route.routeId.toLowerCase() > b.route.routeId.toLowerCase() ? 1 : 0)
  )

const checksumIssues = (fields: Readonly<Record<string, string | undefined>>): Array<string> => {
  const issues: Array<string> = []
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && !PermitMessage.hasValidChecksum(value)) issues.push(`${screaming(name)}_CHECKSUM_INVALID`)
  }
  return issues
}

const eip55 = (address: string): string => getAddress(address.toLowerCase())

const sameAddress = (a: string | null | undefined, b: string | null | undefined): boolean =>
  a !== null && a !== undefined && b !== null && b !== undefined && a.toLowerCase() === b.toLowerCase()

const unavailableFailure = (e: PublicationUnavailable) =>
  e.closed
    ? failure("SERVICE_UNAVAILABLE", ["PUBLICATION_CLOSED"], { detail: "publication is closed", retryAfterSeconds: 30 })
    : failure("SERVICE_UNAVAILABLE", ["PUBLICATION_UNAVAILABLE"], { detail: "no valid publication now", retryAfterSeconds: 5 })

const storeFailure = () =>
  failure("SERVICE_UNAVAILABLE", ["STORE_UNAVAILABLE"], { detail: "storage is unavailable", retryAfterSeconds: 1 })

const pricingFailure = () =>
  failure("SERVICE_UNAVAILABLE", ["PRICING_UNAVAILABLE"], { detail: "pricing is unavailable", retryAfterSeconds: 5 })

const versionOf = (p: Publication) => `${p.dataVersion}-${p.feedHash.slice(2, 18)}`

const decodeQuote = Schema.decodeUnknownResult(AggregatorQuote)

// ---------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------

/**
 * Builds the aggregator over the engine.
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
    const ttl = options.quoteTtlSeconds === undefined ? undefined : Math.max(1, Math.floor(options.quoteTtlSeconds))
    const limits = options.rateLimits ?? DEFAULT_RATE_LIMITS

    // ----- static catalog views -----
    const evmNetworks = catalog.networks.filter((n) => n.vm === "EVM" && n.chainId !== null)
    const networkByChain = new Map(evmNetworks.map((n) => [n.chainId!, n]))
    const chainList: ReadonlyArray<AggregatorChain> = evmNetworks.map((n) => ({
      chainId: Number(n.chainId),
      name: n.name,
      key: n.key,
      networkId: n.networkId,
      router: n.router
    }))
    const tokenList: ReadonlyArray<AggregatorToken> = catalog.assets
      .filter((a) => a.network.vm === "EVM" && a.network.chainId !== null && a.address !== null)
      .map((a) => ({
        chainId: Number(a.network.chainId),
        address: a.address!,
        symbol: a.symbol,
        decimals: a.decimals,
        assetId: a.assetId,
        native: a.address!.toLowerCase() === ZERO_ADDRESS
      }))
    const tokenKeys = new Set(tokenList.map((t) => `${t.chainId}:${t.address.toLowerCase()}`))

    const nowMillis = Clock.currentTimeMillis
    const nowSeconds = Effect.map(nowMillis, (ms) => Math.floor(ms / 1000))

    const current = publisher.current.pipe(Effect.mapError(unavailableFailure))

    /** Quotable: an open L1 route inside its window. */
    const quotable = (route: Route, now: number) =>
      route.publicationLane === "L1" && route.open && route.validAfter <= now && now < route.validUntil &&
      route.sourceChainId !== null && route.destinationChainId !== null && route.sourceAsset !== null &&
      route.destinationAsset !== null && route.sourceRouter !== null

    // ----- quotes -----
    let lastPrune = 0
    const pruneQuotes = (now: number) =>
      now - lastPrune < 60
        ? Effect.void
        : Effect.suspend(() => {
          lastPrune = now
          return store.pruneQuotes(now - QUOTE_RETENTION_SECONDS).pipe(
            Effect.catch((e) => Effect.logWarning("pruning aggregator quotes failed", e.message))
          )
        }).pipe(Effect.asVoid)

    const quote: AggregatorShape["quote"] = (request) =>
      Effect.gen(function*() {
        const issues = checksumIssues({
          fromToken: request.fromToken,
          toToken: request.toToken,
          userAddress: request.userAddress,
          recipient: request.recipient
        })
        if (issues.length > 0) {
          return yield* failure("INVALID_REQUEST", issues, { detail: "a mixed-case address has a wrong EIP-55 checksum" })
        }
        const fromChain = String(request.fromChainId)
        const toChain = String(request.toChainId)
        const unsupportedChains = [
          ...(networkByChain.has(fromChain) ? [] : ["FROM_CHAIN_UNSUPPORTED"]),
          ...(networkByChain.has(toChain) ? [] : ["TO_CHAIN_UNSUPPORTED"])
        ]
        if (unsupportedChains.length > 0) {
          return yield* failure("UNSUPPORTED_CHAIN", unsupportedChains, { detail: "see GET /v1/chains for the supported chains" })
        }
        const fromToken = request.fromToken.toLowerCase()
        const toToken = request.toToken.toLowerCase()
        const unsupportedTokens = [
          ...(tokenKeys.has(`${fromChain}:${fromToken}`) ? [] : ["FROM_TOKEN_UNSUPPORTED"]),
          ...(tokenKeys.has(`${toChain}:${toToken}`) ? [] : ["TO_TOKEN_UNSUPPORTED"])
        ]
        if (unsupportedTokens.length > 0) {
          return yield* failure("UNSUPPORTED_TOKEN", unsupportedTokens, { detail: "see GET /v1/tokens for the tokens of each chain" })
        }
        const publication = yield* current
        const now = yield* nowSeconds
        const pair: Array<number> = []
        publication.routes.forEach((r, i) => {
          if (
            r.publicationLane === "L1" && r.sourceChainId === fromChain && r.destinationChainId === toChain &&
            r.sourceAsset?.toLowerCase() === fromToken && r.destinationAsset?.toLowerCase() === toToken
          ) pair.push(i)
        })
        let candidates = pair
        if (request.routeId !== undefined) {
          const wanted = request.routeId.toLowerCase()
          candidates = pair.filter((i) => publication.routes[i]!.routeId.toLowerCase() === wanted)
          if (candidates.length === 0) {
            return yield* failure("NO_ROUTE", ["ROUTE_ID_NOT_FOR_PAIR"], { detail: "routeId is not an L1 route of this pair" })
          }
        }
        if (candidates.length === 0) return yield* failure("NO_ROUTE", ["NO_L1_ROUTE"], { detail: "no L1 route serves this pair" })
        const open = candidates.filter((i) => quotable(publication.routes[i]!, now))
        if (open.length === 0) {
          return yield* failure("NO_ROUTE", ["ROUTE_NOT_OPEN"], { detail: "the L1 route of this pair is not open now" })
        }
        const amount = BigInt(request.amountIn)
        const fit = open.filter((i) => {
          const r = publication.routes[i]!
          return BigInt(r.minimumFillInRaw) <= amount && amount <= BigInt(r.maxAvailableInRaw)
        })
        if (fit.length === 0) {
          const mins = open.map((i) => BigInt(publication.routes[i]!.minimumFillInRaw))
          const maxes = open.map((i) => BigInt(publication.routes[i]!.maxAvailableInRaw))
          const min = mins.reduce((a, b) => (a < b ? a : b))
          const max = maxes.reduce((a, b) => (a > b ? a : b))
          return amount < min
            ? yield* failure("AMOUNT_TOO_LOW", ["BELOW_MINIMUM_FILL"], { detail: `amountIn is below minimumFillInRaw ${min}` })
            : yield* failure("AMOUNT_TOO_HIGH", ["ABOVE_MAX_AVAILABLE"], { detail: `amountIn is above maxAvailableInRaw ${max}` })
        }
        const priced: Array<Candidate & { readonly fresh: FreshQuote; readonly catalogRoute: CatalogRoute }> = []
        for (const i of fit) {
          const catalogRoute = publication.catalogRoutes[i]!
          const fresh = yield* pricing.quote(catalogRoute, amount).pipe(Effect.mapError(pricingFailure))
          if (fresh.amountOutRaw > 0n) priced.push({ route: publication.routes[i]!, amountOut: fresh.amountOutRaw, fresh, catalogRoute })
        }
        if (priced.length === 0) {
          return yield* failure("AMOUNT_TOO_LOW", ["PRICES_TO_ZERO"], { detail: "amountIn prices to an amountOut of 0" })
        }
        const best = rankCandidates(priced)[0]!
        const route = best.route
        const expiresAt = Math.min(
          route.validUntil,
          publication.validUntil,
          Math.floor(best.fresh.pricingCycleValidUntil / 1000),
          ttl === undefined ? Number.MAX_SAFE_INTEGER : now + ttl
        )
        if (expiresAt <= now) {
          return yield* failure("SERVICE_UNAVAILABLE", ["PRICING_DEADLINE_PASSED"], {
            detail: "the price has no validity left; retry",
            retryAfterSeconds: 1
          })
        }
        const userAddress = request.userAddress === undefined ? null : eip55(request.userAddress)
        const recipient = request.recipient !== undefined ? eip55(request.recipient) : userAddress
        const body: Omit<AggregatorQuote, "quoteToken"> = {
          provider: "svc",
          routeId: route.routeId,
          quoteId: route.quoteId,
          dataVersion: route.dataVersion,
          fromChainId: request.fromChainId,
          toChainId: request.toChainId,
          fromToken: route.sourceAsset!,
          toToken: route.destinationAsset!,
          amountIn: amount.toString(),
          amountOut: best.amountOut.toString(),
          fromTokenDecimals: route.sourceTokenDecimals,
          toTokenDecimals: route.destinationTokenDecimals,
          sourceRouter: route.sourceRouter!,
          expiresAt,
          permitRequired: true,
          executionType: "DIRECT_FILL",
          status: "QUOTED",
          fees: { serviceFeeBps: route.serviceFeeBps, feeMode: route.feeMode, external: [] },
          userAddress,
          recipient
        }
        const quoteToken = quoteTokenOf(key, body)
        const result: AggregatorQuote = { ...body, quoteToken }
        const stored: StoredQuote = {
          quoteToken,
          quoteId: route.quoteId.toLowerCase(),
          routeId: route.routeId.toLowerCase(),
          userAddress: userAddress === null ? null : userAddress.toLowerCase(),
          body: JSON.stringify(result),
          expiresAt,
          createdAt: yield* nowMillis
        }
        yield* store.saveQuote(stored).pipe(Effect.mapError(storeFailure))
        yield* pruneQuotes(now)
        return result
      })

    /** The stored quote of a token, checked against its token (else undefined). */
    const storedQuote = (quoteToken: string) =>
      Effect.gen(function*() {
        const stored = yield* store.getQuote(quoteToken).pipe(Effect.mapError(storeFailure))
        if (stored === undefined) return undefined
        let parsed: unknown
        try {
          parsed = JSON.parse(stored.body)
        } catch {
          return undefined
        }
        const decoded = decodeQuote(parsed, strictParseOptions)
        if (Result.isFailure(decoded)) return undefined
        const q = decoded.success
        if (!sameToken(q.quoteToken, quoteToken) || !sameToken(quoteTokenOf(key, q), quoteToken)) return undefined
        return q
      })

    /** Why a stored quote cannot be built now, or undefined when it can. */
    const quoteProblem = (q: AggregatorQuote, now: number, checkPrice: boolean) =>
      Effect.gen(function*() {
        if (now >= q.expiresAt) {
          return failure("QUOTE_EXPIRED", ["QUOTE_EXPIRED"], { detail: `the quote expired at ${q.expiresAt}; get a new quote` })
        }
        const publication = yield* current
        const index = publication.routeIndexByQuote.get(q.quoteId.toLowerCase())
        if (index === undefined) {
          return failure("ROUTE_CLOSED", ["QUOTE_ID_CHANGED"], { detail: "the route's terms changed; get a new quote" })
        }
        const route = publication.routes[index]!
        if (!quotable(route, now)) {
          return failure("ROUTE_CLOSED", ["ROUTE_NOT_OPEN"], { detail: "the quoted route is not open now; get a new quote" })
        }
        if (!checkPrice) return undefined
        if (BigInt(q.amountIn) > BigInt(route.maxAvailableInRaw)) {
          return failure("INSUFFICIENT_CAPACITY", ["ABOVE_MAX_AVAILABLE"], { retryAfterSeconds: 30 })
        }
        const fresh = yield* pricing.quote(publication.catalogRoutes[index]!, BigInt(q.amountIn)).pipe(Effect.mapError(pricingFailure))
        if (fresh.amountOutRaw < BigInt(q.amountOut)) return failure("QUOTE_CHANGED", ["PRICE_MOVED"])
        return undefined
      })

    // ----- build -----
    const build: AggregatorShape["build"] = (request) =>
      Effect.gen(function*() {
        const issues = checksumIssues({ userAddress: request.userAddress, recipient: request.recipient })
        if (issues.length > 0) {
          return yield* failure("INVALID_REQUEST", issues, { detail: "a mixed-case address has a wrong EIP-55 checksum" })
        }
        const q = yield* storedQuote(request.quoteToken)
        if (
          q === undefined || q.quoteId.toLowerCase() !== request.quoteId.toLowerCase() ||
          q.routeId.toLowerCase() !== request.routeId.toLowerCase()
        ) {
          return yield* failure("QUOTE_NOT_FOUND", ["QUOTE_NOT_FOUND"], {
            detail: "no stored quote has this quoteToken, quoteId and routeId"
          })
        }
        if (q.userAddress !== null && !sameAddress(q.userAddress, request.userAddress)) {
          return yield* failure("INVALID_REQUEST", ["USER_ADDRESS_MISMATCH"], { detail: "userAddress differs from the quote's userAddress" })
        }
        if (request.recipient !== undefined && q.recipient !== null && !sameAddress(q.recipient, request.recipient)) {
          return yield* failure("INVALID_REQUEST", ["RECIPIENT_MISMATCH"], { detail: "recipient differs from the quote's recipient" })
        }
        const recipient = request.recipient ?? q.recipient ?? request.userAddress
        const permitRequest: PermitRequest = {
          quoteId: q.quoteId,
          requestedAmountInRaw: q.amountIn,
          standard: "DIRECT",
          payer: request.userAddress,
          recipient,
          idempotencyKey: request.idempotencyKey
        }
        const now = yield* nowSeconds
        if (request.requestSignature === undefined) {
          const problem = yield* quoteProblem(q, now, false)
          if (problem !== undefined) return yield* problem
          const message = yield* permits.requestMessage(permitRequest).pipe(Effect.mapError(fromPermitError))
          return {
            signatureRequired: true as const,
            signingPayload: { message, standard: "DIRECT" as const, encoding: "EIP191_PERSONAL_SIGN_UTF8" as const },
            quote: q,
            expiresAt: q.expiresAt
          }
        }
        const signed: PermitCreateRequest = { ...permitRequest, requestSignature: request.requestSignature }
        // a key that already has a permit replays it (the permit service checks the fingerprint and signature)
        const normalized = PermitMessage.normalizeResult(signed, { strict: false })
        const existing = Result.isSuccess(normalized)
          ? yield* store.findByIdempotencyKey(scopeOf(normalized.success), normalized.success.idempotencyKey).pipe(
            Effect.mapError(storeFailure)
          )
          : undefined
        if (existing === undefined) {
          const problem = yield* quoteProblem(q, now, false)
          if (problem !== undefined) return yield* problem
        }
        const { envelope } = yield* permits.create(signed, { boundAmountOutRaw: BigInt(q.amountOut) }).pipe(
          Effect.mapError(fromPermitError)
        )
        const permit = envelope.permit
        const native = q.fromToken.toLowerCase() === ZERO_ADDRESS
        const data = yield* Effect.try({
          try: () => PermitAbi.encodeFillDirect(permit, envelope.permitSignature),
          catch: () => failure("SERVICE_UNAVAILABLE", ["ENCODING_FAILED"], { retryAfterSeconds: 5 })
        })
        return {
          signatureRequired: false as const,
          chainId: Number(permit.sourceChainId),
          from: permit.payer,
          target: envelope.execution.target,
          data,
          value: native ? permit.amountInRaw : "0",
          approval: native ? null : { spender: envelope.execution.target, amount: permit.amountInRaw },
          fillId: envelope.fillId,
          quoteId: permit.quoteId,
          routeId: permit.routeId,
          expiresAt: envelope.expiresAt,
          quote: q,
          permit: envelope
        }
      })

    // ----- status -----
    const statusOf = (record: PermitRecord): AggregatorStatus | undefined => {
      const envelope = envelopeOf(record)
      const p = envelope.permit
      const from = Number(p.sourceChainId)
      const to = Number(p.destinationChainId)
      if (!(from >= 1) || !(to >= 1)) return undefined
      return {
        fillId: envelope.fillId,
        quoteId: p.quoteId,
        routeId: p.routeId,
        status: aggregatorStatusOf(record.state),
        terminal: isTerminal(record.state),
        sourceTxHash: record.sourceTxHash,
        payoutTxHash: record.payoutTxHash,
        amountIn: p.amountInRaw,
        amountOut: p.amountOutRaw,
        fromChainId: from,
        toChainId: to,
        userAddress: p.payer,
        recipient: p.recipient,
        expiresAt: record.validUntil,
        updatedAt: Math.floor(record.updatedAt / 1000)
      }
    }

    const one = (record: PermitRecord | undefined) => {
      const status = record === undefined ? undefined : statusOf(record)
      return status === undefined
        ? Effect.fail(failure("FILL_NOT_FOUND", ["FILL_NOT_FOUND"]))
        : Effect.succeed(status)
    }

    const status: AggregatorShape["status"] = (lookup) =>
      Effect.gen(function*() {
        switch (lookup.by) {
          case "fillId":
            return yield* one(yield* store.getPermit(lookup.value.toLowerCase()).pipe(Effect.mapError(storeFailure)))
          case "sourceTxHash":
            return yield* one(yield* store.findBySourceTx(lookup.value.toLowerCase()).pipe(Effect.mapError(storeFailure)))
          case "quoteId":
          case "userAddress": {
            const value = lookup.value.toLowerCase()
            const records = yield* store.listPermits(
              lookup.by === "quoteId"
                ? { quoteId: value, limit: STATUS_LIST_MAX }
                : { payerAddress: value, limit: STATUS_LIST_MAX }
            ).pipe(Effect.mapError(storeFailure))
            const transactions = records.slice(0, STATUS_LIST_MAX).flatMap((r) => {
              const s = statusOf(r)
              return s === undefined ? [] : [s]
            })
            return {
              transactions,
              lookup: { by: lookup.by, value: lookup.by === "quoteId" ? value : eip55(value) },
              limit: STATUS_LIST_MAX
            }
          }
          case "quoteToken": {
            const q = yield* storedQuote(lookup.value)
            if (q === undefined) return { quoteValid: false, quoteError: "QUOTE_NOT_FOUND" as const }
            const problem = yield* quoteProblem(q, yield* nowSeconds, true).pipe(Effect.catch((e) => Effect.succeed(e)))
            return problem === undefined ? { quoteValid: true, quoteError: null } : { quoteValid: false, quoteError: problem.code }
          }
        }
      })

    // ----- chains, tokens, health -----
    let chainsCache: Versioned<AggregatorChains> | undefined
    const chains: AggregatorShape["chains"] = Effect.gen(function*() {
      const publication = yield* current
      const version = versionOf(publication)
      if (chainsCache?.version === version) return chainsCache
      const now = yield* nowSeconds
      const pairs: Array<AggregatorPair> = []
      const routes: Array<AggregatorRoute> = []
      for (const r of publication.routes) {
        if (!quotable(r, now)) continue
        const pair = {
          fromChainId: Number(r.sourceChainId),
          toChainId: Number(r.destinationChainId),
          fromToken: r.sourceAsset!,
          toToken: r.destinationAsset!
        }
        pairs.push({ ...pair, routeId: r.routeId })
        routes.push({
          ...pair,
          routeId: r.routeId,
          quoteId: r.quoteId,
          dataVersion: r.dataVersion,
          validUntil: r.validUntil,
          minimumFillInRaw: r.minimumFillInRaw,
          maxAvailableInRaw: r.maxAvailableInRaw
        })
      }
      const value: AggregatorChains = {
        chains: chainList,
        pairs,
        routes,
        dataVersion: publication.dataVersion.toString(),
        validUntil: publication.validUntil
      }
      chainsCache = { value, version }
      return chainsCache
    })

    const tokens: AggregatorShape["tokens"] = (chainId) =>
      Effect.gen(function*() {
        if (chainId !== undefined && !networkByChain.has(String(chainId))) {
          return yield* failure("UNSUPPORTED_CHAIN", ["CHAIN_UNSUPPORTED"], { detail: "see GET /v1/chains for the supported chains" })
        }
        const publication = yield* current
        return {
          value: {
            tokens: chainId === undefined ? tokenList : tokenList.filter((t) => t.chainId === chainId),
            dataVersion: publication.dataVersion.toString(),
            validUntil: publication.validUntil
          },
          version: versionOf(publication)
        }
      })

    const health: AggregatorShape["health"] = Effect.gen(function*() {
      const state = yield* publisher.state
      const now = yield* nowSeconds
      const last = state._tag === "Open" ? Option.some(state.publication) : state.last
      const publication = Option.getOrUndefined(last)
      const valid = state._tag === "Open" && state.publication.validUntil > now
      const openRouteCount = valid ? state.publication.routes.filter((r) => quotable(r, now)).length : 0
      return {
        status: !valid ? "UNAVAILABLE" as const : openRouteCount > 0 ? "OK" as const : "DEGRADED" as const,
        publicationOpen: valid,
        dataVersion: publication === undefined ? null : publication.dataVersion.toString(),
        feedValidUntil: publication === undefined ? null : publication.validUntil,
        openRouteCount,
        checkedAt: now
      }
    })

    const manifest: AggregatorManifest = {
      schema: "SVC_AGGREGATOR_MANIFEST_V1",
      apiVersion: "v1",
      endpoints: {
        quote: `${publicUrl}/v1/quote`,
        build: `${publicUrl}/v1/build`,
        status: `${publicUrl}/v1/status`,
        chains: `${publicUrl}/v1/chains`,
        tokens: `${publicUrl}/v1/tokens`,
        health: `${publicUrl}/v1/health`,
        openapi: `${publicUrl}/openapi.json`
      },
      feedSigner: signer.address,
      solverDiscovery: `${publicUrl}/.well-known/svc-solver.json`,
      rateLimits: {
        scope: "CLIENT",
        windowSeconds: limits.windowSeconds,
        requestsPerWindow: limits.requestsPerWindow,
        quoteAndBuildPerWindow: limits.quoteAndBuildPerWindow
      },
      limits: { bodyBytes: 32768, statusListMax: 20 }
    }

    return Aggregator.of({ quote, build, status, chains, tokens, health, manifest })
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
