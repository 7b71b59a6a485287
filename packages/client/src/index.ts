/**
 * @svc/client: the svc V6 solver and aggregator client for browsers and Node.
 *
 * - {@link createClient}: the Promise API; {@link createSolverClient}: its
 *   discovery, feed, route and permit methods alone (a smaller browser bundle);
 * - {@link SvcClient}: the same client as an Effect service (`SvcClient.layer(options)`);
 * - pure helpers: manifest validation (`Manifests`), feed verification
 *   (`Feed.verifyFeed`), permit verification and the `fillDirect` transaction
 *   (`Permits`), the SSE parser (`Sse`);
 * - typed errors (`Errors`), one class per failure, each with a stable `code`.
 *
 * The entry imports only `@svc/protocol` (the browser-safe wire formats; the
 * HTTP contract is read from a compiled snapshot, so neither its HttpApi nor
 * effect's Schema runtime is loaded), `effect` and `viem`; it uses fetch,
 * TextDecoder and crypto.getRandomValues. It tree-shakes: an app bundles only
 * what it reaches.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * from "./Errors.ts"

/** @since 0.1.0 */
export * as Feed from "./Feed.ts"

/** @since 0.1.0 */
export * as FeedStream from "./FeedStream.ts"

/** @since 0.1.0 */
export * as Manifests from "./Manifests.ts"

/** @since 0.1.0 */
export * as Permits from "./Permits.ts"

/** @since 0.1.0 */
export * as Sse from "./Sse.ts"

/** @since 0.1.0 */
export {
  type AggregatorApi,
  type AggregatorCallError,
  type BuildError,
  type BuildTransactionInput,
  type BuiltTransaction,
  type CreatePermitInput,
  type DiscoveryError,
  type FeedError,
  type FeedRequest,
  type IssuedPermit,
  make as makeClient,
  type PermitCreateError,
  type PermitReadError,
  type PermitsApi,
  type PollOptions,
  type RouteError,
  type StatusLookup,
  SvcClient,
  type SvcClientOptions,
  type SvcClientShape,
  type VerifiedRoute
} from "./SvcClient.ts"

/** @since 0.1.0 */
export {
  type CallOptions,
  createClient,
  createSolverClient,
  errorOfCause,
  type FeedSubscription,
  type SubscribeOptions,
  type SvcPromiseClient,
  type SvcSolverClient
} from "./Promise.ts"

/** @since 0.1.0 */
export type { FeedFilter, VerifiedFeed } from "./Feed.ts"

/** @since 0.1.0 */
export type { FeedStreamEvent, FeedStreamOptions } from "./FeedStream.ts"

/** @since 0.1.0 */
export type { FillDirectTransaction, MessageSigner, PermitIntent, PreparedPermitRequest } from "./Permits.ts"
