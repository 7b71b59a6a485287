/**
 * The checks of a permit request that need no I/O: is the quote open in a
 * publication at a given time, and does the amount and the standard fit the
 * route. Pure functions over their inputs; the permit service runs them in the
 * order of `Permits`.
 *
 * @since 0.1.0
 */
import * as PermitMessage from "@svc/protocol/PermitMessage"
import type { Route } from "@svc/protocol/schema/Feed"
import { Result } from "effect"
import type { CatalogRoute } from "./Catalog.ts"
import {
  AmountInvalid,
  AmountTooLow,
  InsufficientCapacity,
  PublicationClosed,
  type QuoteClosedCode,
  QuoteNotOpen,
  Unavailable,
  UnsupportedStandard
} from "./PermitError.ts"
import type { Publication, PublicationUnavailable } from "./Publisher.ts"

/**
 * A quote that is open now: its route in the publication.
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenQuote {
  readonly publication: Publication
  readonly route: Route
  readonly catalogRoute: CatalogRoute
  /** Unix seconds of the check. */
  readonly now: number
}

/**
 * The reason of a publication that cannot be served: the operator's pause, or no
 * valid publication.
 *
 * @category testing
 * @since 0.1.0
 */
export const publicationReason = (e: PublicationUnavailable): PublicationClosed | Unavailable =>
  e.closed
    ? new PublicationClosed({ detail: e.reason })
    : new Unavailable({ dependency: "PUBLICATION", retryAfterSeconds: 5, detail: e.reason })

/**
 * Why a route is not open (never empty).
 *
 * @category testing
 * @since 0.1.0
 */
export const closedCodes = (route: Route, catalogRoute: CatalogRoute, now: number): ReadonlyArray<QuoteClosedCode> => {
  const codes: Array<QuoteClosedCode> = []
  if (route.executionStatus === "PAUSED") codes.push("ROUTE_PAUSED")
  if (route.executionStatus === "TEMP_UNAVAILABLE") codes.push("ROUTE_TEMP_UNAVAILABLE")
  if (route.dailyStatus !== "OPEN") codes.push("ROUTE_DAILY_CLOSED")
  if (!route.permitAvailable) {
    codes.push("PERMIT_UNAVAILABLE")
    const { destination, source } = catalogRoute
    if (source.network.capabilities === null) codes.push("PAYER_NO_CONNECTOR")
    else if (!source.network.capabilities.payer) codes.push("PAYER_NOT_SUPPORTED")
    if (destination.network.capabilities === null) codes.push("RECIPIENT_NO_CONNECTOR")
    else if (!destination.network.capabilities.recipient) codes.push("RECIPIENT_NOT_SUPPORTED")
    else if (!catalogRoute.payoutSupported) codes.push("PAYOUT_UNSUPPORTED")
    if (source.network.router === null) codes.push("NO_DIRECT_EXECUTION")
  }
  if (BigInt(route.maxAvailableInRaw) < BigInt(route.minimumFillInRaw)) codes.push("ROUTE_CAPACITY_EXHAUSTED")
  if (now < route.validAfter) codes.push("QUOTE_NOT_YET_VALID")
  return codes.length > 0 ? codes : ["ROUTE_NOT_OPEN"]
}

/**
 * The route of a quote in a publication, when it is open at `now` (Unix seconds).
 *
 * @category testing
 * @since 0.1.0
 */
export const openQuote = (
  publication: Publication,
  quoteId: string,
  now: number
): Result.Result<OpenQuote, QuoteNotOpen> => {
  const index = publication.routeIndexByQuote.get(quoteId.toLowerCase())
  if (index === undefined) {
    return Result.fail(
      new QuoteNotOpen({ codes: ["QUOTE_UNKNOWN"], detail: "no route of the active signed feed has this quoteId" })
    )
  }
  const route = publication.routes[index]!
  const catalogRoute = publication.catalogRoutes[index]!
  if (now >= route.validUntil) return Result.fail(new QuoteNotOpen({ codes: ["QUOTE_EXPIRED"] }))
  if (!route.open) return Result.fail(new QuoteNotOpen({ codes: closedCodes(route, catalogRoute, now) }))
  return Result.succeed({ publication, route, catalogRoute, now })
}

const SUPPORTED_STANDARDS: ReadonlySet<string> = new Set(PermitMessage.SUPPORTED_STANDARDS)

/**
 * The amount of a request, checked against the protocol range and the route's
 * limits, and its standard against the supported ones.
 *
 * @category testing
 * @since 0.1.0
 */
export const checkAmount = (
  request: PermitMessage.NormalizedPermitRequest,
  route: Route
): Result.Result<bigint, AmountInvalid | AmountTooLow | InsufficientCapacity | UnsupportedStandard> => {
  const amount = BigInt(request.requestedAmountInRaw)
  if (amount === 0n) return Result.fail(new AmountInvalid({ code: "AMOUNT_ZERO" }))
  if (amount >= 1n << 128n) return Result.fail(new AmountInvalid({ code: "AMOUNT_TOO_LARGE" }))
  if (amount < BigInt(route.minimumFillInRaw)) {
    return Result.fail(new AmountTooLow({ code: "BELOW_MINIMUM_FILL", minimumFillInRaw: route.minimumFillInRaw }))
  }
  if (amount > BigInt(route.maxAvailableInRaw)) {
    return Result.fail(
      new InsufficientCapacity({
        code: "ABOVE_MAX_AVAILABLE",
        diagnostics: { maxAvailableInRaw: route.maxAvailableInRaw }
      })
    )
  }
  if (!SUPPORTED_STANDARDS.has(request.standard)) {
    return Result.fail(
      new UnsupportedStandard({ standard: request.standard, supported: [...PermitMessage.SUPPORTED_STANDARDS] })
    )
  }
  return Result.succeed(amount)
}
