/**
 * Verified feeds: what the client returns after checking a signed feed.
 *
 * A feed (from `GET /api/v6/solver-feed` or a stream `feed` event) is accepted
 * only when its `signedPayload` hashes to `feedHash`, `feedSignature` recovers
 * to `feedSigner`, `feedSigner` is the expected signer (the solver manifest's
 * feedSigner, or a pinned one) and `generatedAt <= now < validUntil`. The routes
 * the client returns are always taken from the verified `signedPayload`, with
 * the requested filter applied locally; the server's unsigned convenience views
 * (`routes`, `openRoutes`) are never used. `actionableRoutes` entries are kept
 * only when their routeId and quoteId resolve to a signed route.
 *
 * @since 0.1.0
 */
import * as FeedSignature from "@svc/protocol/FeedSignature"
import { BYTES32 } from "@svc/protocol/Patterns"
import type { ActionableRoute, Route, SignedFeed, SignedFeedPayload } from "@svc/protocol/schema/Feed"
import * as Result from "effect/Result"
import {
  FeedExpired,
  FeedHashMismatch,
  FeedInvalid,
  FeedSignerMismatch,
  type FeedVerificationError,
  InvalidInput
} from "./Errors.ts"
import * as Contract from "./internal/contract.ts"
import { decoder, omit } from "./internal/decoder.ts"

/**
 * A filter of the feed, as the server's query parameters. The client sends it
 * (so the server's ETag matches the view) and applies it itself to the signed
 * routes.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedFilter {
  /** A decimal chain id: keeps routes whose sourceChainId is exactly this. */
  readonly sourceChainId?: string | number | bigint | undefined
  /** A Bytes32 network id (any case). */
  readonly sourceNetworkId?: string | undefined
}

/**
 * A filter in its normalised form.
 *
 * @category models
 * @since 0.1.0
 */
export interface NormalizedFilter {
  readonly sourceChainId: string | undefined
  readonly sourceNetworkId: string | undefined
}

/**
 * An actionable-route estimate resolved against the signed routes.
 *
 * @category models
 * @since 0.1.0
 */
export interface ResolvedActionableRoute extends ActionableRoute {
  /** The signed route the entry names. */
  readonly route: Route
}

/**
 * The unsigned metadata of the feed response (navigation and counts).
 *
 * @category models
 * @since 0.1.0
 */
export interface FeedMetadata {
  readonly routeDetailTemplate: string
  readonly routeCount: number
  readonly openRouteCount: number
  readonly returnedRouteCount: number
  readonly returnedOpenRouteCount: number
}

/**
 * A verified feed.
 *
 * @category models
 * @since 0.1.0
 */
export interface VerifiedFeed {
  /** The signed dataVersion (strictly increasing across publications). */
  readonly dataVersion: string
  readonly releaseId: string
  readonly generatedAt: number
  readonly validUntil: number
  readonly feedHash: string
  readonly feedSigner: string
  /** The complete signed payload (the only authority). */
  readonly signedPayload: SignedFeedPayload
  /** Signed routes matching the filter, in publication order. */
  readonly routes: ReadonlyArray<Route>
  /** Of those, the ones published with `open: true`. */
  readonly openRoutes: ReadonlyArray<Route>
  /** actionableRoutes entries that resolve to a signed route matching the filter. */
  readonly actionableRoutes: ReadonlyArray<ResolvedActionableRoute>
  /** The filter applied. */
  readonly filter: NormalizedFilter
  /** The verification result (valid is true). */
  readonly verification: FeedSignature.VerificationResult
  readonly metadata: FeedMetadata
  /** The weak ETag of the HTTP view (null for stream events). */
  readonly etag: string | null
  /** True when the server answered 304 and this is the kept view. */
  readonly notModified: boolean
}

const CHAIN_ID = /^[1-9][0-9]{0,77}$/

/**
 * Validates and normalises a filter.
 *
 * @category validation
 * @since 0.1.0
 */
export const normalizeFilter = (filter: FeedFilter | undefined): Result.Result<NormalizedFilter, InvalidInput> => {
  const chain = filter?.sourceChainId
  const network = filter?.sourceNetworkId
  let sourceChainId: string | undefined
  if (chain !== undefined) {
    sourceChainId = String(chain)
    if (!CHAIN_ID.test(sourceChainId)) {
      return Result.fail(
        new InvalidInput({ field: "sourceChainId", reason: "a decimal chain id without leading zeros" })
      )
    }
  }
  if (network !== undefined && (typeof network !== "string" || !BYTES32.test(network))) {
    return Result.fail(new InvalidInput({ field: "sourceNetworkId", reason: "0x followed by 64 hex digits" }))
  }
  return Result.succeed({ sourceChainId, sourceNetworkId: network?.toLowerCase() })
}

/**
 * The query string of a filter (`?sourceChainId=...`), empty without one.
 *
 * @category validation
 * @since 0.1.0
 */
export const filterQuery = (filter: NormalizedFilter): string => {
  const params: Array<string> = []
  if (filter.sourceChainId !== undefined) params.push(`sourceChainId=${filter.sourceChainId}`)
  if (filter.sourceNetworkId !== undefined) params.push(`sourceNetworkId=${filter.sourceNetworkId}`)
  return params.length === 0 ? "" : `?${params.join("&")}`
}

/**
 * Whether a signed route passes a filter (both parts must match when both are given).
 *
 * @category validation
 * @since 0.1.0
 */
export const matchesFilter = (route: Route, filter: NormalizedFilter): boolean =>
  (filter.sourceChainId === undefined || route.sourceChainId === filter.sourceChainId) &&
  (filter.sourceNetworkId === undefined || route.sourceNetworkId.toLowerCase() === filter.sourceNetworkId)

// The feed object without its unsigned route views (never used; not decoded).
const decodeEnvelope = /*#__PURE__*/ decoder<Omit<SignedFeed, "openRoutes" | "routes">>(
  /*#__PURE__*/ omit(Contract.SignedFeed, ["openRoutes", "routes"])
)

/**
 * Options of {@link verifyFeed}.
 *
 * @category models
 * @since 0.1.0
 */
export interface VerifyFeedOptions {
  /** Current Unix time, seconds. */
  readonly now: number
  /** The expected feed signer (manifest feedSigner or pinned). */
  readonly expectedSigner: string
  readonly filter?: NormalizedFilter | undefined
  readonly etag?: string | null | undefined
}

const NO_FILTER: NormalizedFilter = { sourceChainId: undefined, sourceNetworkId: undefined }

/**
 * Verifies a SignedFeed object (the `feed` of a feed response, or the data of a
 * stream event) and returns the verified view: first the signature checks on the
 * raw object (only `signedPayload` is hashed), then the schema, then the routes
 * from the signed payload.
 *
 * @category crypto
 * @since 0.1.0
 */
export const verifyFeed = (
  raw: unknown,
  options: VerifyFeedOptions
): Result.Result<VerifiedFeed, FeedVerificationError> => {
  const checked = FeedSignature.verify(raw, { now: options.now, expectedSigner: options.expectedSigner })
  if (Result.isFailure(checked)) return Result.fail(new FeedInvalid({ reason: checked.failure.reason }))
  const verification = checked.success
  if (!verification.valid) {
    const code = FeedSignature.failureCode(verification)
    if (code === "SVC_SDK_FEED_HASH_MISMATCH") return Result.fail(new FeedHashMismatch({ verification }))
    if (code === "SVC_SDK_FEED_EXPIRED") return Result.fail(new FeedExpired({ verification, now: options.now }))
    return Result.fail(new FeedSignerMismatch({ verification }))
  }
  const decoded = decodeEnvelope(raw)
  if (Result.isFailure(decoded)) {
    return Result.fail(new FeedInvalid({ reason: decoded.failure.split("\n").slice(0, 3).join(" ") }))
  }
  const feed = decoded.success
  const payload = feed.signedPayload
  const filter = options.filter ?? NO_FILTER
  const routes = payload.routes.filter((route) => matchesFilter(route, filter))
  const byQuote = new Map<string, Route>()
  for (const route of payload.routes) {
    byQuote.set(`${route.routeId.toLowerCase()}:${route.quoteId.toLowerCase()}`, route)
  }
  const actionableRoutes: Array<ResolvedActionableRoute> = []
  for (const entry of feed.actionableRoutes) {
    const route = byQuote.get(`${entry.routeId.toLowerCase()}:${entry.quoteId.toLowerCase()}`)
    if (route !== undefined && matchesFilter(route, filter)) actionableRoutes.push({ ...entry, route })
  }
  return Result.succeed({
    dataVersion: payload.dataVersion,
    releaseId: payload.releaseId,
    generatedAt: payload.generatedAt,
    validUntil: payload.validUntil,
    feedHash: feed.feedHash.toLowerCase(),
    feedSigner: verification.declaredSigner ?? feed.feedSigner,
    signedPayload: payload,
    routes,
    openRoutes: routes.filter((route) => route.open),
    actionableRoutes,
    filter,
    verification,
    metadata: {
      routeDetailTemplate: feed.routeDetailTemplate,
      routeCount: feed.routeCount,
      openRouteCount: feed.openRouteCount,
      returnedRouteCount: feed.returnedRouteCount,
      returnedOpenRouteCount: feed.returnedOpenRouteCount
    },
    etag: options.etag ?? null,
    notModified: false
  })
}

/**
 * Whether a feed is still inside its validity window at `now` (seconds).
 *
 * @category crypto
 * @since 0.1.0
 */
export const isCurrent = (feed: Pick<VerifiedFeed, "generatedAt" | "validUntil">, now: number): boolean =>
  feed.generatedAt <= now && now < feed.validUntil

/**
 * Finds a signed route by quoteId (case-insensitive).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const routeByQuoteId = (feed: Pick<VerifiedFeed, "signedPayload">, quoteId: string): Route | undefined => {
  const id = quoteId.toLowerCase()
  return feed.signedPayload.routes.find((route) => route.quoteId.toLowerCase() === id)
}

/**
 * Finds a signed route by routeId (case-insensitive).
 *
 * @category identifiers
 * @since 0.1.0
 */
export const routeByRouteId = (feed: Pick<VerifiedFeed, "signedPayload">, routeId: string): Route | undefined => {
  const id = routeId.toLowerCase()
  return feed.signedPayload.routes.find((route) => route.routeId.toLowerCase() === id)
}

export type { ActionableRoute, Route, SignedFeedPayload }
