/**
 * The registry of checks: every named, single-purpose check of the harness, in
 * registration order within its group. Names are unique (a duplicate is a
 * programming error, refused when the registry is built).
 *
 * @since 0.1.0
 */
import type { Check } from "./Check.ts"
import * as Aggregator from "./checks/aggregator.ts"
import * as Chain from "./checks/chain.ts"
import * as Clients from "./checks/clients.ts"
import * as Coverage from "./checks/coverage.ts"
import * as Discovery from "./checks/discovery.ts"
import * as Etag from "./checks/etag.ts"
import * as Feed from "./checks/feed.ts"
import * as Golden from "./checks/golden.ts"
import * as Http from "./checks/http.ts"
import * as Negative from "./checks/negative.ts"
import * as OpenApi from "./checks/openapi.ts"
import * as Permits from "./checks/permits.ts"
import * as Proxy from "./checks/proxy.ts"
import * as Responses from "./checks/responses.ts"
import * as Route from "./checks/route.ts"
import * as Sse from "./checks/sse.ts"
import * as Stateful from "./checks/stateful.ts"
import * as Timing from "./checks/timing.ts"

/**
 * Builds a registry, refusing duplicate names.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (checks: ReadonlyArray<Check>): ReadonlyArray<Check> => {
  const seen = new Set<string>()
  for (const check of checks) {
    if (seen.has(check.name)) throw new Error(`duplicate check name ${check.name}`)
    seen.add(check.name)
  }
  return checks
}

/**
 * Every check of the harness.
 *
 * @category running
 * @since 0.1.0
 */
export const all: ReadonlyArray<Check> = make([
  ...Discovery.checks,
  ...OpenApi.checks,
  ...Http.checks,
  ...Feed.checks,
  ...Etag.checks,
  ...Route.checks,
  ...Sse.checks,
  ...Permits.checks,
  ...Golden.checks,
  ...Chain.checks,
  ...Negative.checks,
  ...Coverage.checks,
  ...Stateful.checks,
  ...Clients.checks,
  ...Aggregator.checks,
  ...Timing.checks,
  ...Responses.checks,
  ...Proxy.checks
])

/**
 * A check by name.
 *
 * @category running
 * @since 0.1.0
 */
export const find = (name: string): Check | undefined => all.find((c) => c.name === name)
