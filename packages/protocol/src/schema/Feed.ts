/**
 * Routes and the signed feed (spec part 2: Route, SignedFeedPayload, SignedFeed,
 * ActionableRoute, FeedResponse, RouteMetrics, RouteDetailResponse).
 *
 * Decode with {@link decodeStrict} semantics (`onExcessProperty: "error"`): every
 * object here rejects properties it does not list.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { FEED_DOMAIN } from "../FeedSignature.ts"
import {
  Address,
  Bytes32,
  DailyStatus,
  DateTime,
  ExecutionStatus,
  Locator,
  NonNegativeInt,
  PositiveInt,
  PublicationLane,
  ServiceFeeBps,
  Sig65,
  TokenDecimals,
  UintStr,
  UnixSeconds,
  UsdDecimal
} from "./Primitives.ts"

/**
 * The schema constant of the signed feed, also its hash domain.
 *
 * @category constants
 * @since 0.1.0
 */
export const FEED_SCHEMA = FEED_DOMAIN

/**
 * A route of the signed feed. All fields are required.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Route = Schema.Struct({
  dataVersion: UintStr,
  routeId: Bytes32,
  quoteId: Bytes32,
  sourceNetworkId: Bytes32,
  sourceAssetId: Bytes32,
  destinationNetworkId: Bytes32,
  destinationAssetId: Bytes32,
  sourceChainId: Schema.NullOr(UintStr),
  destinationChainId: Schema.NullOr(UintStr),
  sourceAsset: Schema.NullOr(Address),
  destinationAsset: Schema.NullOr(Address),
  sourceVault: Schema.NullOr(Address),
  destinationVault: Schema.NullOr(Address),
  sourceRouter: Schema.NullOr(Address),
  sourceLocator: Locator,
  destinationLocator: Locator,
  discoveryStatus: Schema.Literal("DISCOVERABLE"),
  executionStatus: ExecutionStatus,
  permitAvailable: Schema.Boolean,
  publicationLane: PublicationLane,
  publicationRank: NonNegativeInt,
  serviceCategory: Schema.String,
  feeMode: Schema.String,
  serviceFeeBps: ServiceFeeBps,
  sourceTokenDecimals: TokenDecimals,
  destinationTokenDecimals: TokenDecimals,
  pricingReferenceId: Bytes32,
  executionGeneration: Bytes32,
  sourceFinalityBlocks: PositiveInt,
  settlementWindowSeconds: PositiveInt,
  validAfter: UnixSeconds,
  validUntil: UnixSeconds,
  policyHash: Bytes32,
  assumptionsHash: Schema.NullOr(Bytes32),
  legacyRouteId: Schema.NullOr(Bytes32),
  dailyStatus: DailyStatus,
  open: Schema.Boolean,
  pricingMode: Schema.Literal("INDICATIVE_ENVELOPE_REPRICE_AT_PERMIT"),
  indicativePriceNumeratorRaw: UintStr,
  indicativePriceDenominatorRaw: UintStr,
  minimumFillInRaw: UintStr,
  maxAvailableInRaw: UintStr
}).annotate({ identifier: "Route", description: "a route of the signed feed" })
/** @since 0.1.0 */
export type Route = typeof Route.Type

/**
 * The signed payload: the sole cryptographic authority. feedHash and
 * feedSignature cover this complete, unfiltered object.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SignedFeedPayload = Schema.Struct({
  schema: Schema.Literal(FEED_SCHEMA),
  releaseId: Bytes32,
  dataVersion: UintStr,
  generatedAt: UnixSeconds,
  validUntil: UnixSeconds,
  routes: Schema.Array(Route)
}).annotate({ identifier: "SignedFeedPayload", description: "sole cryptographic authority of the feed" })
/** @since 0.1.0 */
export type SignedFeedPayload = typeof SignedFeedPayload.Type

/**
 * A non-authoritative, evidence-backed shortlist entry.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ActionableRoute = Schema.Struct({
  routeId: Bytes32,
  quoteId: Bytes32,
  pricingReferenceId: Bytes32,
  indicativeNotionalUsd: UsdDecimal,
  executableNotionalUsd: UsdDecimal,
  estimatedSourceGasUsd: UsdDecimal,
  expectedEdgeAfterSourceGasBps: UsdDecimal,
  economicsObservedAt: DateTime,
  economicsValidUntil: DateTime,
  pricingModelVersion: Schema.NullOr(Schema.String)
}).annotate({
  identifier: "ActionableRoute",
  description: "non-authoritative estimate; resolve against signedPayload.routes"
})
/** @since 0.1.0 */
export type ActionableRoute = typeof ActionableRoute.Type

/**
 * The feed object of the feed response and of the `feed` stream event.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SignedFeed = Schema.Struct({
  schema: Schema.Literal(FEED_SCHEMA),
  releaseId: Bytes32,
  dataVersion: UintStr,
  generatedAt: UnixSeconds,
  validUntil: UnixSeconds,
  signedPayload: SignedFeedPayload,
  routeDetailTemplate: Schema.String.annotate({
    description: "{solver_url}/api/v6/routes/{routeId}; navigation only, not signed"
  }),
  actionableRoutes: Schema.Array(ActionableRoute).check(Schema.isMaxLength(10)),
  routes: Schema.Array(Route),
  openRoutes: Schema.Array(Route),
  feedHash: Bytes32,
  feedSigner: Address,
  feedSignature: Sig65,
  publicationGasWei: Schema.Literal("0"),
  publicationTransactionHashes: Schema.Array(Bytes32).check(Schema.isMaxLength(0)),
  routeCount: NonNegativeInt,
  openRouteCount: NonNegativeInt,
  returnedRouteCount: NonNegativeInt,
  returnedOpenRouteCount: NonNegativeInt
}).annotate({ identifier: "SignedFeed", description: "signed feed with filterable convenience views" })
/** @since 0.1.0 */
export type SignedFeed = typeof SignedFeed.Type

/**
 * Body of `GET /api/v6/solver-feed`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const FeedResponse = Schema.Struct({
  ok: Schema.Literal(true),
  feed: SignedFeed
}).annotate({ identifier: "FeedResponse" })
/** @since 0.1.0 */
export type FeedResponse = typeof FeedResponse.Type

/**
 * Observational route metrics, separate from the signed route.
 *
 * @category schemas
 * @since 0.1.0
 */
export const RouteMetrics = Schema.Struct({
  telemetryAvailable: Schema.Boolean,
  source: Schema.optionalKey(Schema.Literal("V6_PUBLICATION_LEARNING_STATE")),
  feed_exposures: Schema.optionalKey(NonNegativeInt),
  permit_requests: Schema.optionalKey(NonNegativeInt),
  permits_issued: Schema.optionalKey(NonNegativeInt),
  source_observed: Schema.optionalKey(NonNegativeInt),
  paid: Schema.optionalKey(NonNegativeInt),
  updatedAt: Schema.optionalKey(Schema.NullOr(DateTime)),
  permitConversionRate: Schema.NullOr(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))),
  fillConversionRate: Schema.NullOr(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)))
}).annotate({ identifier: "RouteMetrics" })
/** @since 0.1.0 */
export type RouteMetrics = typeof RouteMetrics.Type

/**
 * Body of `GET /api/v6/routes/{routeId}`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const RouteDetailResponse = Schema.Struct({
  ok: Schema.Literal(true),
  route: Route,
  metrics: RouteMetrics
}).annotate({ identifier: "RouteDetailResponse" })
/** @since 0.1.0 */
export type RouteDetailResponse = typeof RouteDetailResponse.Type
