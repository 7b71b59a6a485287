/**
 * The check model: a named, single-purpose verification of one behaviour of a
 * deployment, in a group, with a structured verdict.
 *
 * A check is an Effect that succeeds (passed) or fails with one of:
 *
 * - {@link CheckFailed}: the deployment departs from the spec; each
 *   {@link Failure} says what was expected, what came back, and carries the
 *   exchange that shows it (for the curl reproduction);
 * - {@link Inconclusive}: the check could not decide (the behaviour needs time
 *   that did not pass within `--timeout`, or the deployment rate-limited it);
 * - {@link Skip}: the check does not apply (the aggregator is not deployed, a
 *   read-only run, a prerequisite failed);
 * - {@link Warned}: the deployment follows the spec but departs from svc's
 *   documented profile where the spec leaves the behaviour open (duplicate
 *   JSON keys, content types, rate limits, Retry-After): a warning, which
 *   fails a run only under `--strict`.
 *
 * @since 0.1.0
 */
import { describeSchemaError, strictParseOptions } from "@svc/protocol"
import { Context, Data, Effect, Result, Schema } from "effect"
import type { Chains } from "./Chain.ts"
import type { Exchange } from "./Exchange.ts"
import type { Observer } from "./Observer.ts"
import type { Options } from "./RunOptions.ts"
import type { Shared } from "./Shared.ts"
import type { Transport } from "./Transport.ts"

/**
 * What a check may use: the transport, the run's options, the shared values, the
 * publication observer and the chains of `--rpc`.
 *
 * @category models
 * @since 0.1.0
 */
export type Requirements = Transport | Options | Shared | Observer | Chains

/**
 * The groups, in run order.
 *
 * @category models
 * @since 0.1.0
 */
export const GROUPS = [
  "discovery",
  "openapi",
  "http",
  "feed",
  "etag",
  "route",
  "sse",
  "permits",
  "golden",
  "chain",
  "negative",
  "coverage",
  "stateful",
  "clients",
  "aggregator",
  "timing",
  "responses",
  "proxy"
] as const

/**
 * A group name.
 *
 * @category models
 * @since 0.1.0
 */
export type Group = (typeof GROUPS)[number]

/**
 * What each group verifies (for `--help`, the list command and the docs).
 *
 * @category models
 * @since 0.1.0
 */
export const GROUP_TITLES: Readonly<Record<Group, string>> = {
  discovery: "discovery documents: schemas, constants, endpoint URLs, scanner-hint consistency",
  openapi: "openapi.json: valid OpenAPI 3.1, every spec operation present",
  http: "paths, methods, CORS and cache headers",
  feed: "the signed feed: strict schema, hash, signer, validity, counts, views, filters",
  etag: "feed ETag and 304",
  route: "route detail equals the signed route",
  sse: "the event stream, read incrementally: names, ids, Last-Event-ID rules, verification, no replay",
  permits: "permit requests: message bytes, create, idempotency, conflicts, limits, digest, payload, status",
  golden:
    "golden fixtures against the live deployment: every golden permit request form's message byte for byte against the second path, route ids by the documented derivations, published constants against the vectors",
  chain:
    "on chain, with --rpc: contract code, the facade against the on-chain discovery document, the router verifying a permit; --execute: one real fill",
  negative: "generated malformed inputs per operation: documented 4xx with the error body, never 5xx",
  coverage:
    "deterministic boundary and negative cases from the declared schemas, each with the class the spec gives it (accepted, 400, 404, 409, 410, 413); svc's profile where the spec leaves it open, as warnings",
  stateful:
    "model-based sequences (fast-check) over the permit life and the event stream, shrunk to the shortest failing sequence",
  clients:
    "cross-client: one payer cannot create, replay or alter another's permit, nor take it with a reused idempotency key; status lists as the privacy setting says",
  aggregator: "aggregator operations (/v1), when deployed",
  timing: "behaviour that needs time: a new publication, quote expiry",
  responses: "run-wide: every response recorded during the run (schemas, integers, statuses)",
  proxy:
    "live traffic through svc conformance proxy: feeds and stream events verified, ETag and 304, idempotency, permits, as they pass"
}

/**
 * A verdict.
 *
 * @category models
 * @since 0.1.0
 */
export type Status = "passed" | "failed" | "warning" | "inconclusive" | "skipped"

/**
 * Every verdict, in the order reports list them.
 *
 * @category models
 * @since 0.1.0
 */
export const STATUSES: ReadonlyArray<Status> = ["passed", "failed", "warning", "inconclusive", "skipped"]

/**
 * One departure from the spec.
 *
 * @category models
 * @since 0.1.0
 */
export interface Failure {
  /** What is wrong, in one line. */
  readonly title: string
  readonly expected: string
  readonly actual: string
  /** The exchange that shows it (request for the curl reproduction, response as received). */
  readonly exchange?: Exchange | undefined
}

/**
 * The check found departures.
 *
 * @category errors
 * @since 0.1.0
 */
export class CheckFailed extends Data.TaggedError("CheckFailed")<{
  readonly failures: ReadonlyArray<Failure>
  /** Departures from svc's profile found beside the failures (reported with them). */
  readonly warnings?: ReadonlyArray<Failure> | undefined
}> {
  override get message(): string {
    return this.failures.map((f) => f.title).join("; ")
  }
}

/**
 * The deployment follows the spec, but departs from svc's documented profile
 * where the spec leaves the behaviour open: each warning says what the profile
 * expects and what came back. A warning never fails a run, except under
 * `--strict`.
 *
 * @category errors
 * @since 0.1.0
 */
export class Warned extends Data.TaggedError("Warned")<{ readonly warnings: ReadonlyArray<Failure> }> {
  override get message(): string {
    return this.warnings.map((f) => f.title).join("; ")
  }
}

/**
 * The check could not decide.
 *
 * @category errors
 * @since 0.1.0
 */
export class Inconclusive extends Data.TaggedError("Inconclusive")<{ readonly reason: string }> {}

/**
 * The check does not apply.
 *
 * @category errors
 * @since 0.1.0
 */
export class Skip extends Data.TaggedError("Skip")<{ readonly reason: string }> {}

/**
 * What a check needs from the invocation beyond `--url`: `rpc`, at least one
 * `--rpc <chainId>=<url>`; `execute`, `--execute` (a real fill). A check whose
 * need is not met is planned as skipped, with the flag it needs as the reason.
 *
 * @category models
 * @since 0.1.0
 */
export type Need = "rpc" | "execute"

/**
 * The requirement of a check.
 *
 * @category models
 * @since 0.1.0
 */
export interface CheckDefinition<R> {
  /** snake_case, unique in the registry. */
  readonly name: string
  readonly group: Group
  /** What the check verifies, in one line. */
  readonly title: string
  /** Where the rule comes from: `spec §4 ...` (the V6 interface specification) or a section of svc's docs (`docs/protocol.md, Identifiers`). */
  readonly reference: string
  /** True when the check sends a request that can create a permit (skipped by --read-only). */
  readonly createsPermit?: boolean | undefined
  /** What the check needs from the invocation (default: nothing but --url). */
  readonly needs?: ReadonlyArray<Need> | undefined
  readonly run: Effect.Effect<void, CheckFailed | Warned | Inconclusive | Skip, R>
}

/**
 * A registered check.
 *
 * @category models
 * @since 0.1.0
 */
export interface Check<R = Requirements> extends CheckDefinition<R> {
  readonly createsPermit: boolean
  readonly needs: ReadonlyArray<Need>
}

/**
 * Defines a check.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <R>(definition: CheckDefinition<R>): Check<R> => {
  if (!/^[a-z][a-z0-9_]*$/.test(definition.name)) throw new Error(`check name ${definition.name} is not snake_case`)
  return { ...definition, createsPermit: definition.createsPermit ?? false, needs: definition.needs ?? [] }
}

// ---------------------------------------------------------------------------
// Details
// ---------------------------------------------------------------------------

/**
 * Where a check records what it did besides its verdict (the transactions it
 * sent, the route it used): key/value pairs that the reports carry in the
 * result's `details`, whatever the verdict. The runner provides a fresh
 * recorder per check; outside a run recording does nothing.
 *
 * @category services
 * @since 0.1.0
 */
export const Details = Context.Reference<{ readonly record: (key: string, value: string) => void }>(
  "@svc/conformance/Details",
  { defaultValue: () => ({ record: () => undefined }) }
)

/**
 * Records one detail of the current check (a later value of the same key replaces it).
 *
 * @category constructors
 * @since 0.1.0
 */
export const detail = (key: string, value: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    const details = yield* Details
    details.record(key, value)
  })

// ---------------------------------------------------------------------------
// Failing
// ---------------------------------------------------------------------------

/**
 * Fails the check with one failure.
 *
 * @category errors
 * @since 0.1.0
 */
export const fail = (failure: Failure): Effect.Effect<never, CheckFailed> =>
  Effect.fail(new CheckFailed({ failures: [failure] }))

/**
 * Ends the check with one warning (a departure from svc's profile where the
 * spec leaves the behaviour open).
 *
 * @category errors
 * @since 0.1.0
 */
export const warn = (warning: Failure): Effect.Effect<never, Warned> => Effect.fail(new Warned({ warnings: [warning] }))

/**
 * Collects failures (and warnings) and fails at the end when there are any
 * (for checks that verify many items and should report every departure, not
 * only the first). Failures win: a check with failures and warnings fails,
 * carrying both; one with warnings only is a warning.
 *
 * @category errors
 * @since 0.1.0
 */
export const collector = () => {
  const failures: Array<Failure> = []
  const warnings: Array<Failure> = []
  return {
    add: (failure: Failure) => void failures.push(failure),
    /** A departure from svc's profile where the spec leaves the behaviour open. */
    warn: (warning: Failure) => void warnings.push(warning),
    get size() {
      return failures.length
    },
    get warnings() {
      return warnings.length
    },
    /** Succeeds when nothing was added, else fails with everything added (at most 20 of each reported). */
    done: Effect.suspend((): Effect.Effect<void, CheckFailed | Warned> =>
      failures.length > 0
        ? Effect.fail(
          new CheckFailed({
            failures: failures.slice(0, 20),
            ...(warnings.length === 0 ? {} : { warnings: warnings.slice(0, 20) })
          })
        )
        : warnings.length > 0
        ? Effect.fail(new Warned({ warnings: warnings.slice(0, 20) }))
        : Effect.void
    )
  }
}

/**
 * Any value as a text for a report (`expected`, `actual`, a title): a string as
 * it is, anything else as its JSON, and what has no JSON (undefined, a
 * function, a bigint) as its `String` form. Reports never carry a non-string
 * where a text belongs, whatever the server sent.
 *
 * @category errors
 * @since 0.1.0
 */
export const text = (value: unknown): string => {
  if (typeof value === "string") return value
  try {
    const json = JSON.stringify(value)
    if (typeof json === "string") return json
  } catch {
    // a cycle or a bigint: the String form below
  }
  try {
    return String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

/**
 * Renders a value for `expected`/`actual` (truncated).
 *
 * @category errors
 * @since 0.1.0
 */
export const show = (value: unknown, max = 300): string => {
  const shown = text(value)
  return shown.length > max ? `${shown.slice(0, max)}… (${shown.length} chars)` : shown
}

/**
 * The schema issues of a value against a schema decoded strictly (unknown keys
 * rejected), as lines `path: message`; empty when it decodes.
 *
 * @category errors
 * @since 0.1.0
 */
export const schemaIssues = (schema: Schema.Decoder<unknown>, value: unknown): ReadonlyArray<string> => {
  const result = Schema.decodeUnknownResult(schema)(value, strictParseOptions)
  if (Result.isSuccess(result)) return []
  return describeSchemaError(result.failure).map((i) =>
    `${i.path.length === 0 ? "$" : `$.${i.path.join(".")}`}: ${i.message}`
  )
}

/**
 * Fails unless the value decodes strictly.
 *
 * @category errors
 * @since 0.1.0
 */
export const expectSchema = <S extends Schema.Decoder<unknown>>(
  schema: S,
  value: unknown,
  what: string,
  exchange?: Exchange
): Effect.Effect<S["Type"], CheckFailed> => {
  const issues = schemaIssues(schema, value)
  if (issues.length === 0) return Effect.succeed(value as S["Type"])
  return fail({
    title: `${what} does not match its schema`,
    expected: `a strict ${schemaName(schema)} (unknown fields rejected)`,
    actual: issues.slice(0, 8).join("; ") + (issues.length > 8 ? ` (+${issues.length - 8} more)` : ""),
    exchange
  })
}

/**
 * The identifier of a schema, for messages.
 *
 * @category errors
 * @since 0.1.0
 */
export const schemaName = (schema: Schema.Decoder<unknown>): string => {
  const ast = (schema as unknown as Schema.Top).ast
  const id = ast?.annotations?.identifier
  return typeof id === "string" ? id : "schema"
}
