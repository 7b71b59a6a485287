/**
 * Health: whether the parts every answer depends on work now. The store is
 * asked a cheap question, the signer signs a fixed digest, the publisher's state
 * is read; each check has a time limit. Results are kept for `cacheMillis`, so
 * orchestrators probing often cost nothing.
 *
 * Readiness: the store, the signer and the publication are all OK, or the
 * publication is PAUSED by the operator (a paused deployment still answers, with
 * structured 503s, so it stays in the load balancer). Any other dependency the
 * requests need (for example the server's shared rate-limit store) is given as
 * a {@link DependencyCheck}: it is checked the same way, named in the
 * components, and must be OK too.
 *
 * Settlement: with `ChainSettlement` in the context, each settled network is a
 * component `settlement.<network key>` with its figures (RPC reachable, head
 * age, the oldest confirmed but unpaid fill, payouts in flight and for how long,
 * the payout key's gas, the vault's shortfall against confirmed liabilities).
 * It is reported, never counted against readiness: an empty vault on one
 * network must not take every replica's feed and permits out of the load
 * balancer.
 *
 * @since 0.1.0
 */
import { keccak, utf8 } from "@svc/protocol/Bytes"
import type { HealthComponent, HealthComponents } from "@svc/protocol/schema/Aggregator"
import { Clock, Context, Duration, Effect, Layer, Option, Ref } from "effect"
import { ChainSettlement, healthOf } from "./ChainSettlement.ts"
import { Publisher } from "./Publisher.ts"
import { Signer } from "./Signer.ts"
import { Store } from "./Store.ts"

/**
 * A health check.
 *
 * @category models
 * @since 0.1.0
 */
export interface HealthCheck {
  readonly components: HealthComponents
  /** Ready to take traffic (see the module documentation). */
  readonly ready: boolean
  /** Unix seconds. */
  readonly checkedAt: number
}

/**
 * The health service.
 *
 * @category services
 * @since 0.1.0
 */
export class Health extends Context.Service<Health, {
  readonly check: Effect.Effect<HealthCheck>
}>()("@svc/core/Health") {}

/**
 * Options of the health layer.
 *
 * @category models
 * @since 0.1.0
 */
export interface HealthOptions {
  /** How long a result is reused, milliseconds. Default 2000. */
  readonly cacheMillis?: number | undefined
  /** Time limit of each part's check, milliseconds. Default 2000. */
  readonly timeoutMillis?: number | undefined
  /** Other dependencies of the requests, checked and named in the components (see {@link DependencyCheck}). */
  readonly dependencies?: ReadonlyArray<DependencyCheck> | undefined
}

/**
 * A dependency the requests need besides the store, the signer and the
 * publication: readiness requires its check to succeed within the time limit.
 *
 * @category models
 * @since 0.1.0
 */
export interface DependencyCheck {
  /** Its name in the components, e.g. `rateLimiter` (not `store`, `signer` or `publication`). */
  readonly name: string
  /** What it is, for the detail of a failure: "shared rate-limit store" reads "the shared rate-limit store did not answer ...". */
  readonly description: string
  /** Succeeds when the dependency answers. */
  readonly check: Effect.Effect<unknown, unknown>
}

const OK: HealthComponent = { status: "OK" }
const DIGEST = keccak(utf8("svc health check"))

/**
 * Whether a set of components can take traffic.
 *
 * @category operations
 * @since 0.1.0
 */
export const isReady = (c: HealthComponents): boolean =>
  Object.entries(c).every(([name, component]) =>
    name.startsWith(SETTLEMENT_PREFIX)
      ? true
      : name === "publication"
      ? component.status !== "UNAVAILABLE"
      : component.status === "OK"
  )

/**
 * The prefix of the settlement components (`settlement.<network key>`), which
 * readiness does not count.
 *
 * @category constants
 * @since 0.1.0
 */
export const SETTLEMENT_PREFIX = "settlement."

/**
 * The health layer over the store, the signer and the publisher.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: HealthOptions): Layer.Layer<Health, never, Store | Signer | Publisher> =>
  Layer.effect(
    Health,
    Effect.gen(function*() {
      const store = yield* Store
      const signer = yield* Signer
      const publisher = yield* Publisher
      const settlement = yield* Effect.serviceOption(ChainSettlement)
      const cacheMillis = Math.max(0, options?.cacheMillis ?? 2000)
      const limit = Duration.millis(Math.max(1, options?.timeoutMillis ?? 2000))
      const probe = (what: string, effect: Effect.Effect<unknown, unknown>): Effect.Effect<HealthComponent> =>
        effect.pipe(
          Effect.timeoutOrElse({ duration: limit, orElse: () => Effect.fail("timeout" as const) }),
          Effect.as(OK),
          Effect.catchCause(() =>
            Effect.succeed<HealthComponent>({
              status: "UNAVAILABLE",
              detail: `the ${what} did not answer within ${Duration.toMillis(limit)} ms or failed`
            })
          )
        )
      const publication = Effect.gen(function*() {
        const state = yield* publisher.state
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        if (state._tag === "Closed") return { status: "PAUSED", detail: state.reason } satisfies HealthComponent
        if (state._tag === "Open" && state.publication.validUntil > now) return OK
        return {
          status: "UNAVAILABLE",
          detail: state._tag === "Unavailable" ? "no valid publication" : "the publication expired"
        } satisfies HealthComponent
      })
      const dependencies = (options?.dependencies ?? []).filter((d) =>
        !["store", "signer", "publication"].includes(d.name)
      )
      const run = Effect.gen(function*() {
        const [storeStatus, signerStatus, publicationStatus, ...others] = yield* Effect.all([
          probe("store", store.operatorState),
          probe("signer", signer.signDigest(DIGEST)),
          publication,
          ...dependencies.map((d) => probe(d.description, d.check))
        ], { concurrency: "unbounded" })
        const nowMs = yield* Clock.currentTimeMillis
        const networks = Option.isSome(settlement) ? yield* settlement.value.networks : []
        const components: HealthComponents = {
          store: storeStatus,
          signer: signerStatus,
          publication: publicationStatus,
          ...Object.fromEntries(dependencies.map((d, i) => [d.name, others[i]!])),
          ...Object.fromEntries(networks.map((n) => [`${SETTLEMENT_PREFIX}${n.key}`, healthOf(n, nowMs)]))
        }
        const checkedAt = Math.floor(nowMs / 1000)
        return { components, ready: isReady(components), checkedAt }
      })
      const cache = yield* Ref.make<{ readonly at: number; readonly value: HealthCheck } | undefined>(undefined)
      return Health.of({
        check: Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const cached = yield* Ref.get(cache)
          if (cached !== undefined && now - cached.at < cacheMillis) return cached.value
          const value = yield* run
          yield* Ref.set(cache, { at: now, value })
          return value
        })
      })
    })
  )
