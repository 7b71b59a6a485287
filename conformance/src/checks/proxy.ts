/**
 * The checks of live traffic (`svc conformance proxy`): each reports what the
 * judge (Traffic.ts) found in the exchanges that passed through the proxy. A
 * check is skipped when no exchange it judges passed (a proxy in front of a
 * client that never opened a stream decides nothing about streams).
 *
 * @since 0.1.0
 */
import { Context, Effect } from "effect"
import * as Check from "../Check.ts"
import type { TrafficCheck } from "../Traffic.ts"
import type { Results } from "../TrafficSink.ts"
import type { Env } from "./common.ts"
import { distinct } from "./responses.ts"

/**
 * The judge's results of a proxy run (empty outside one).
 *
 * @category services
 * @since 0.1.0
 */
export const TrafficResults = Context.Reference<{ readonly results: Results | undefined }>(
  "@svc/conformance/TrafficResults",
  { defaultValue: () => ({ results: undefined }) }
)

const traffic = (name: TrafficCheck, title: string, reference: string) =>
  Check.make<Env>({
    name,
    group: "proxy",
    title,
    reference,
    run: Effect.gen(function*() {
      const { results } = yield* TrafficResults
      if (results === undefined) {
        return yield* new Check.Skip({ reason: "judges live traffic: runs under svc conformance proxy" })
      }
      const verdicts = results.find(([n]) => n === name)?.[1]
      if (verdicts === undefined || verdicts.judged === 0) {
        return yield* new Check.Skip({ reason: "no exchange this check judges passed through the proxy" })
      }
      yield* Check.detail("judged", String(verdicts.judged))
      const c = distinct()
      for (const f of verdicts.findings) c.finding(f)
      yield* c.done
    })
  })

/**
 * The proxy checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [
  traffic(
    "proxy_schemas",
    "every JSON answer that passed decodes strictly against the schema of its operation and status",
    "spec §2 (all objects reject properties not listed); §7 ErrorResponse; docs/aggregator.md, Errors (AggregatorError)"
  ),
  traffic(
    "proxy_integers",
    "no body or event that passed has a number literal beyond 2^53 - 1 or a duplicate key",
    "spec Conventions (execution integers are base-10 strings); docs/protocol.md, Conventions (Integers)"
  ),
  traffic(
    "proxy_statuses",
    "every status that passed is one the spec documents for its operation",
    "spec §4 (responses per operation), §7; docs/operations.md, HTTP rules of the solver interface"
  ),
  traffic(
    "proxy_server_errors",
    "no request that passed was answered 500",
    "docs/operations.md, HTTP rules of the solver interface (no input produces a 500); spec §7"
  ),
  traffic(
    "proxy_cache_headers",
    "dynamic data that passed is never cached as a static document (feed no-cache; route, permit, status, stream, errors no-store)",
    "spec §8 Caching; docs/operations.md, HTTP rules of the solver interface (caching)"
  ),
  traffic(
    "proxy_rate_limits",
    "only operations whose status list has 429 answered 429 (elsewhere a warning)",
    "spec §4, §7 (429: execution-permits and the aggregator); svc's profile: docs/operations.md, The feed budget"
  ),
  traffic(
    "proxy_retry_after",
    "every 429 and 503 that passed carries Retry-After (a warning without)",
    "spec §7; svc's profile: docs/errors.md (429 and 503 carry Retry-After)"
  ),
  traffic(
    "proxy_feed_verified",
    "every feed that passed verifies (hash of signedPayload, signature by the authority, valid when served), and its views are signed routes of one signedPayload per dataVersion",
    "spec §2 SignedFeed, §4 getSolverFeed rules 1-2, §5.5; docs/protocol.md, Feed hash and signature"
  ),
  traffic(
    "proxy_stream_events",
    "every stream event that passed is a defined event, each feed event verified with id = dataVersion, ids increasing, no replay, an equal Last-Event-ID suppressing the initial event",
    "spec §6 (event names, initial-event rules 1-6), §5.5"
  ),
  traffic(
    "proxy_etag",
    "ETag and 304 across the exchanges that passed: a weak ETag per version of a view, a 304 only for the current version, never a 200 for a current If-None-Match",
    "spec §4 getSolverFeed (If-None-Match: weak ETag; 304 when unchanged); docs/protocol.md, Publication facts a verifier needs (ETag)"
  ),
  traffic(
    "proxy_idempotency",
    "permit creations that passed: one permit per payer and key, an identical retry answered with it, another intent under a used key never given a permit",
    "spec §4 createExecutionPermit rules 2-3; §7 (409 idempotency conflict); docs/protocol.md, Permit checks and lifecycle (per payer)"
  ),
  traffic(
    "proxy_permits",
    "every permit that passed has its EIP-712 digest and the authority's signature, binds the requested quote, amount, payer and recipient, and its status stays the permit issued",
    "spec §1.6, §2 ExecutionPermit, §5.4; docs/protocol.md, permitDigest and permitSignature"
  ),
  traffic(
    "proxy_request_messages",
    "every request message that passed is the message of its request, byte for byte",
    "spec §4 buildPermitRequestMessage, §5.3; docs/protocol.md, Permit request message"
  ),
  traffic(
    "proxy_route_detail",
    "every route detail that passed is the signed route of its version",
    "spec §4 getRouteDetail (the exact canonical active signed-feed route)"
  )
]
