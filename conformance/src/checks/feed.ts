/**
 * The signed feed: strict schema, the recomputed feedHash, the recovered
 * signer, the validity window, the counts, the convenience views and filters
 * (which never touch signedPayload), actionableRoutes, constants and the
 * derived identifiers.
 *
 * @since 0.1.0
 */
import { CanonicalJson, FeedResponse, FeedSignature, Ids, type Route, Signature } from "@svc/protocol"
import { Effect, Result } from "effect"
import { keccak256, stringToBytes } from "viem"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import * as Independent from "../Independent.ts"
import { asObject, expectStatus, failure, type FeedSnapshot, send, Shared } from "../Shared.ts"
import {
  CLOCK_SKEW_SECONDS,
  document,
  type Env,
  firstDifference,
  type Json,
  nowSeconds,
  pathsDisagree,
  sameAddress,
  sameJson,
  secondPath
} from "./common.ts"

const FEED = "/api/v6/solver-feed"

const feedOf = Effect.flatMap(Effect.service(Shared), (f) => f.feed)

/** Reads a filtered view, retrying once when a publication happened in between. */
const filtered = (query: string, dataVersion: string) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 3; attempt++) {
      const exchange = yield* send({ path: `${FEED}?${query}` })
      const feed = asObject(asObject(Exchange.json(exchange))?.feed)
      if (exchange.response.status !== 200 || feed === undefined) return { exchange, feed }
      if (String(asObject(feed.signedPayload)?.dataVersion) === dataVersion || attempt === 2) return { exchange, feed }
    }
    return yield* Effect.die("unreachable")
  })

/** The unfiltered feed at the same dataVersion as a filtered one (reads again when the feed moved). */
const unfilteredAt = (snapshot: FeedSnapshot, dataVersion: string) =>
  Effect.gen(function*() {
    if (snapshot.dataVersion === dataVersion) return snapshot
    const shared = yield* Shared
    return yield* shared.freshFeed
  })

const schemaStrict = Check.make<Env>({
  name: "feed_schema_strict",
  group: "feed",
  title: "GET /api/v6/solver-feed answers 200 application/json with a strict FeedResponse (no unknown fields)",
  reference: "spec §2 FeedResponse, SignedFeed, SignedFeedPayload, Route, ActionableRoute",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const exchange = yield* shared.get(FEED)
    yield* expectStatus(exchange, 200, "GET /api/v6/solver-feed")
    const type = exchange.response.headers["content-type"] ?? ""
    if (!/^application\/json/i.test(type)) {
      return yield* Check.fail(
        failure(exchange, "the feed is not served as JSON", "content-type application/json", type)
      )
    }
    yield* Check.expectSchema(FeedResponse, Exchange.json(exchange), "the feed response", exchange)
  })
})

const feedHash = Check.make<Env>({
  name: "feed_hash",
  group: "feed",
  title: "feedHash = keccak256(\"SVC_MAINNET_V6_SIGNED_FEED_V1\\n\" + canonical JSON of signedPayload)",
  reference: "spec §5.5; docs/protocol.md, Canonical JSON; Feed hash and signature (feedHash)",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const canonical = CanonicalJson.stringifyResult(snapshot.payload)
    if (Result.isFailure(canonical)) {
      return yield* Check.fail(
        failure(
          snapshot.exchange,
          "signedPayload has no canonical JSON form",
          "integers within 2^53 - 1, plain objects",
          canonical.failure.message
        )
      )
    }
    const computed = FeedSignature.hashCanonical(canonical.success)
    const declared = String(snapshot.feed.feedHash)
    const independent = secondPath(() => Independent.feedHash(snapshot.payload))
    const disagreement = pathsDisagree(snapshot.exchange, "the feed hash", computed, independent)
    if (disagreement !== undefined) return yield* Check.fail(disagreement)
    if (declared.toLowerCase() === computed) return
    // diagnose: the hash of the payload text in the key order received (not sorted)
    const asReceived = keccak256(stringToBytes(`${FeedSignature.FEED_DOMAIN}\n${JSON.stringify(snapshot.payload)}`))
    const hint = asReceived === declared.toLowerCase()
      ? " (it is the hash of the payload with its keys in the order received: the JSON was not canonical, keys unsorted)"
      : ""
    return yield* Check.fail(
      failure(snapshot.exchange, `feedHash is not the hash of the canonical signed payload${hint}`, computed, declared)
    )
  })
})

const feedSignature = Check.make<Env>({
  name: "feed_signature",
  group: "feed",
  title:
    "feedSignature recovers (raw digest, low-s, v 27/28) to feedSigner, which is the manifest's feedSigner (or --signer)",
  reference: "spec §5.5; docs/protocol.md, Feed hash and signature; permitSignature (one authority)",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const shared = yield* Shared
    const authority = yield* shared.authority
    const canonical = CanonicalJson.stringifyResult(snapshot.payload)
    if (Result.isFailure(canonical)) {
      return yield* new Check.Skip({ reason: "signedPayload has no canonical form (see feed_hash)" })
    }
    const hash = FeedSignature.hashCanonical(canonical.success)
    const signature = String(snapshot.feed.feedSignature)
    const recovered = Signature.recoverDigestSigner(hash, signature)
    if (Result.isFailure(recovered)) {
      return yield* Check.fail(
        failure(
          snapshot.exchange,
          "feedSignature does not recover over the signed payload's hash",
          "a 65-byte low-s signature, v 27/28",
          recovered.failure.message
        )
      )
    }
    const c = Check.collector()
    const independent = secondPath(() =>
      Independent.recoverFeedSigner(Independent.feedHash(snapshot.payload), signature)
    )
    const disagreement = pathsDisagree(snapshot.exchange, "the feed signer", recovered.success, independent)
    if (disagreement !== undefined) c.add(disagreement)
    if (!sameAddress(recovered.success, snapshot.feed.feedSigner)) {
      c.add(
        failure(
          snapshot.exchange,
          "feedSignature was not made by feedSigner",
          String(snapshot.feed.feedSigner),
          `recovered ${recovered.success}`
        )
      )
    }
    if (!sameAddress(snapshot.feed.feedSigner, authority)) {
      c.add(
        failure(
          snapshot.exchange,
          "feedSigner is not the pinned authority",
          authority,
          String(snapshot.feed.feedSigner)
        )
      )
    }
    yield* c.done
  })
})

const validity = Check.make<Env>({
  name: "feed_validity_window",
  group: "feed",
  title:
    "generatedAt <= now < validUntil, and the feed's top-level schema, releaseId, dataVersion, generatedAt, validUntil mirror signedPayload",
  reference: "spec §5.5 (check validUntil against the current time); §2 SignedFeed",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const now = yield* nowSeconds
    const c = Check.collector()
    const p = snapshot.payload
    if (!(Number(p.validUntil) > now)) {
      c.add(failure(snapshot.exchange, "the feed has expired", `validUntil > now (${now})`, String(p.validUntil)))
    }
    if (Number(p.generatedAt) > now + CLOCK_SKEW_SECONDS) {
      c.add(
        failure(
          snapshot.exchange,
          "the feed was generated in the future",
          `generatedAt <= now (${now}) + ${CLOCK_SKEW_SECONDS} s`,
          String(p.generatedAt)
        )
      )
    }
    if (!(Number(p.generatedAt) < Number(p.validUntil))) {
      c.add(
        failure(
          snapshot.exchange,
          "generatedAt is not before validUntil",
          "generatedAt < validUntil",
          `${String(p.generatedAt)} / ${String(p.validUntil)}`
        )
      )
    }
    for (const key of ["schema", "releaseId", "dataVersion", "generatedAt", "validUntil"]) {
      if (!sameJson(snapshot.feed[key], p[key])) {
        c.add(
          failure(
            snapshot.exchange,
            `feed.${key} differs from signedPayload.${key}`,
            JSON.stringify(p[key]),
            JSON.stringify(snapshot.feed[key])
          )
        )
      }
    }
    yield* c.done
  })
})

const isOpenRoute = (r: Route) => r.open === true

const counts = Check.make<Env>({
  name: "feed_counts",
  group: "feed",
  title:
    "routeCount and openRouteCount count signedPayload; returnedRouteCount and returnedOpenRouteCount count the views",
  reference: "spec §2 SignedFeed (unfiltered counts, counts of the filtered view)",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const f = snapshot.feed
    const c = Check.collector()
    const expect = (key: string, value: number) => {
      if (f[key] !== value) c.add(failure(snapshot.exchange, `${key} is wrong`, String(value), String(f[key])))
    }
    expect("routeCount", snapshot.routes.length)
    expect("openRouteCount", snapshot.routes.filter(isOpenRoute).length)
    expect("returnedRouteCount", Array.isArray(f.routes) ? f.routes.length : -1)
    expect("returnedOpenRouteCount", Array.isArray(f.openRoutes) ? f.openRoutes.length : -1)
    yield* c.done
  })
})

/** The problems of a view against the signed routes and a predicate. */
const viewProblems = (feed: Json, signed: ReadonlyArray<Route>, match: (r: Route) => boolean): Array<string> => {
  const problems: Array<string> = []
  const expected = signed.filter(match)
  for (const [key, want] of [["routes", expected], ["openRoutes", expected.filter(isOpenRoute)]] as const) {
    const view = Array.isArray(feed[key]) ? feed[key] as Array<unknown> : undefined
    if (view === undefined) {
      problems.push(`${key} is not an array`)
      continue
    }
    const byId = new Map(signed.map((r) => [String(r.routeId).toLowerCase(), r]))
    view.forEach((r, i) => {
      const id = String(asObject(r)?.routeId).toLowerCase()
      const signedRoute = byId.get(id)
      if (signedRoute === undefined) problems.push(`${key}[${i}] (${id}) is not a route of signedPayload`)
      else if (!sameJson(r, signedRoute)) {
        problems.push(`${key}[${i}] differs from the signed route: ${firstDifference(r, signedRoute)}`)
      }
    })
    const ids = view.map((r) => String(asObject(r)?.routeId).toLowerCase())
    const wantIds = want.map((r) => String(r.routeId).toLowerCase())
    if (!sameJson(ids, wantIds)) {
      problems.push(
        `${key} lists [${ids.map((x) => x.slice(0, 10)).join(", ")}], expected [${
          wantIds.map((x) => x.slice(0, 10)).join(", ")
        }] (signedPayload order)`
      )
    }
  }
  return problems
}

const views = Check.make<Env>({
  name: "feed_views_subset",
  group: "feed",
  title:
    "unfiltered, routes equals signedPayload.routes and openRoutes its open routes, in order, each identical to the signed route",
  reference:
    "spec §2 SignedFeed (routes, openRoutes: convenience views); docs/protocol.md, Publication facts a verifier needs (openRoutes keeps signedPayload order)",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const problems = viewProblems(snapshot.feed, snapshot.routes, () => true)
    if (problems.length > 0) {
      return yield* Check.fail(
        failure(
          snapshot.exchange,
          "the unfiltered views are not the signed routes",
          "routes = signedPayload.routes, openRoutes = its open routes",
          problems.slice(0, 5).join("; ")
        )
      )
    }
  })
})

const filters = Check.make<Env>({
  name: "feed_filters_signed_payload",
  group: "feed",
  title:
    "filters (sourceChainId, sourceNetworkId, both, none matching) reduce only the views and counts; signedPayload, feedHash and feedSignature never change",
  reference:
    "spec §4 getSolverFeed rules 1-2; §5.5 (filters never relax verification); docs/protocol.md, Publication facts a verifier needs (a filter matching nothing -> 200 empty views)",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const chains = [
      ...new Set(snapshot.routes.flatMap((r) => (r.sourceChainId === null ? [] : [String(r.sourceChainId)])))
    ]
    const networks = [...new Set(snapshot.routes.map((r) => String(r.sourceNetworkId)))]
    let unused = 1
    while (chains.includes(String(unused))) unused++
    const cases: Array<{ query: string; match: (r: Route) => boolean }> = [
      ...chains.map((chain) => ({
        query: `sourceChainId=${chain}`,
        match: (r: Route) => String(r.sourceChainId) === chain
      })),
      ...networks.map((n) => ({
        query: `sourceNetworkId=${n.toUpperCase().replace("0X", "0x")}`,
        match: (r: Route) => String(r.sourceNetworkId).toLowerCase() === n.toLowerCase()
      })),
      { query: `sourceChainId=${unused}`, match: () => false },
      {
        query: `sourceNetworkId=0x${"0".repeat(63)}1`,
        match: (r: Route) => String(r.sourceNetworkId).toLowerCase() === `0x${"0".repeat(63)}1`
      }
    ]
    const first = snapshot.routes[0]
    if (first !== undefined && first.sourceChainId !== null) {
      cases.push({
        query: `sourceChainId=${first.sourceChainId}&sourceNetworkId=${first.sourceNetworkId}`,
        match: (r) =>
          r.sourceChainId === first.sourceChainId &&
          String(r.sourceNetworkId).toLowerCase() === String(first.sourceNetworkId).toLowerCase()
      })
    }
    const c = Check.collector()
    for (const { match, query } of cases) {
      const { exchange, feed } = yield* filtered(query, snapshot.dataVersion)
      if (exchange.response.status !== 200 || feed === undefined) {
        c.add(
          failure(
            exchange,
            `the filter ${query} was not answered with a feed`,
            "200 with a FeedResponse",
            Exchange.responseSummary(exchange)
          )
        )
        continue
      }
      const version = String(asObject(feed.signedPayload)?.dataVersion)
      const base = yield* unfilteredAt(snapshot, version)
      if (base.dataVersion !== version) continue // the feed moved twice: nothing to compare
      for (const key of ["signedPayload", "feedHash", "feedSignature", "feedSigner", "routeCount", "openRouteCount"]) {
        if (!sameJson(feed[key], base.feed[key])) {
          c.add(
            failure(
              exchange,
              `the filter ${query} changed ${key}`,
              `${key} of the unfiltered feed`,
              firstDifference(feed[key], base.feed[key]) ?? ""
            )
          )
        }
      }
      const problems = viewProblems(feed, base.routes, match)
      for (const p of problems.slice(0, 3)) {
        c.add(failure(exchange, `the filter ${query} gives a wrong view`, "the matching signed routes", p))
      }
      const expected = base.routes.filter(match)
      if (
        feed.returnedRouteCount !== expected.length ||
        feed.returnedOpenRouteCount !== expected.filter(isOpenRoute).length
      ) {
        c.add(
          failure(
            exchange,
            `the filter ${query} gives wrong returned counts`,
            `${expected.length} / ${expected.filter(isOpenRoute).length}`,
            `${String(feed.returnedRouteCount)} / ${String(feed.returnedOpenRouteCount)}`
          )
        )
      }
    }
    yield* c.done
  })
})

const invalidFilters = Check.make<Env>({
  name: "feed_invalid_filter_400",
  group: "feed",
  title: "a malformed filter, an unknown or repeated query parameter answers 400 with an ErrorResponse",
  reference:
    "spec §4 getSolverFeed (400 invalid request or filter); docs/operations.md, HTTP rules of the solver interface (unknown or repeated query parameters -> 400)",
  run: Effect.gen(function*() {
    const c = Check.collector()
    for (
      const query of [
        "sourceChainId=08453",
        "sourceChainId=abc",
        "sourceChainId=0",
        "sourceNetworkId=0x1234",
        "foo=bar",
        "sourceChainId=8453&sourceChainId=56"
      ]
    ) {
      const exchange = yield* send({ path: `${FEED}?${query}` })
      if (exchange.response.status !== 400) {
        c.add(failure(exchange, `?${query} was not refused`, "400 ErrorResponse", Exchange.responseSummary(exchange)))
      }
    }
    yield* c.done
  })
})

const actionable = Check.make<Env>({
  name: "feed_actionable_routes",
  group: "feed",
  title:
    "actionableRoutes has at most 10 entries, each resolving to a signed route (routeId, quoteId, pricingReferenceId), ordered by edge then routeId",
  reference:
    "spec §2 SignedFeed.actionableRoutes (at most 10; resolve against signedPayload.routes); docs/protocol.md, Publication facts a verifier needs (actionableRoutes order)",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const list = snapshot.feed.actionableRoutes
    if (!Array.isArray(list)) {
      return yield* Check.fail(
        failure(snapshot.exchange, "actionableRoutes is not an array", "an array", JSON.stringify(list))
      )
    }
    const c = Check.collector()
    if (list.length > 10) {
      c.add(failure(snapshot.exchange, "actionableRoutes has more than 10 entries", "at most 10", String(list.length)))
    }
    const byId = new Map(snapshot.routes.map((r) => [String(r.routeId).toLowerCase(), r]))
    list.map((e) => asObject(e) ?? {}).forEach((entry, i) => {
      const route = byId.get(String(entry.routeId).toLowerCase())
      if (route === undefined) {
        c.add(
          failure(
            snapshot.exchange,
            `actionableRoutes[${i}] does not resolve to a signed route`,
            "a routeId of signedPayload.routes",
            String(entry.routeId)
          )
        )
      } else if (
        String(route.quoteId).toLowerCase() !== String(entry.quoteId).toLowerCase() ||
        String(route.pricingReferenceId).toLowerCase() !== String(entry.pricingReferenceId).toLowerCase()
      ) {
        c.add(
          failure(
            snapshot.exchange,
            `actionableRoutes[${i}] does not match its signed route`,
            `quoteId ${route.quoteId}, pricingReferenceId ${route.pricingReferenceId}`,
            `${String(entry.quoteId)}, ${String(entry.pricingReferenceId)}`
          )
        )
      }
      if (i > 0) {
        const prev = asObject(list[i - 1]) ?? {}
        const a = Number(prev.expectedEdgeAfterSourceGasBps)
        const b = Number(entry.expectedEdgeAfterSourceGasBps)
        if (a < b || (a === b && String(prev.routeId) > String(entry.routeId))) {
          c.add(
            failure(
              snapshot.exchange,
              `actionableRoutes[${i}] is out of order`,
              "expectedEdgeAfterSourceGasBps descending, then routeId",
              `${a} before ${b}`
            )
          )
        }
      }
    })
    yield* c.done
  })
})

const constants = Check.make<Env>({
  name: "feed_constants",
  group: "feed",
  title: "publicationGasWei is the string \"0\" and publicationTransactionHashes is empty",
  reference: "spec §1.7; §2 SignedFeed",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const c = Check.collector()
    if (snapshot.feed.publicationGasWei !== "0") {
      c.add(
        failure(
          snapshot.exchange,
          "publicationGasWei is not \"0\"",
          "\"0\"",
          JSON.stringify(snapshot.feed.publicationGasWei)
        )
      )
    }
    if (
      !Array.isArray(snapshot.feed.publicationTransactionHashes) ||
      snapshot.feed.publicationTransactionHashes.length !== 0
    ) {
      c.add(
        failure(
          snapshot.exchange,
          "publicationTransactionHashes is not empty",
          "[]",
          JSON.stringify(snapshot.feed.publicationTransactionHashes)
        )
      )
    }
    yield* c.done
  })
})

const identifiers = Check.make<Env>({
  name: "feed_identifiers",
  group: "feed",
  title: "every routeId, quoteId, EVM networkId and assetId of signedPayload is recomputed from its inputs",
  reference: "docs/protocol.md, Identifiers (routeId, quoteId, EVM networkId, assetId)",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const c = Check.collector()
    const releaseId = String(snapshot.payload.releaseId)
    snapshot.routes.forEach((r, i) => {
      const where = `signedPayload.routes[${i}]`
      try {
        const routeId = Ids.routeId({ ...r, releaseId })
        if (routeId !== String(r.routeId).toLowerCase()) {
          c.add(failure(snapshot.exchange, `${where}.routeId is not derived`, routeId, String(r.routeId)))
        }
        const quoteId = Ids.quoteId(r)
        if (quoteId !== String(r.quoteId).toLowerCase()) {
          c.add(
            failure(
              snapshot.exchange,
              `${where}.quoteId is not derived from its signed terms`,
              quoteId,
              String(r.quoteId)
            )
          )
        }
        for (const side of ["source", "destination"] as const) {
          const chainId = r[`${side}ChainId`]
          if (chainId === null) continue
          const network = Ids.evmNetworkId(chainId)
          if (network !== String(r[`${side}NetworkId`]).toLowerCase()) {
            c.add(
              failure(
                snapshot.exchange,
                `${where}.${side}NetworkId is not the EVM network id of chain ${chainId}`,
                network,
                String(r[`${side}NetworkId`])
              )
            )
          }
          const asset = r[`${side}Asset`]
          if (asset !== null && Ids.evmAssetId(network, asset) !== String(r[`${side}AssetId`]).toLowerCase()) {
            c.add(
              failure(
                snapshot.exchange,
                `${where}.${side}AssetId is not the asset id of ${asset}`,
                Ids.evmAssetId(network, asset),
                String(r[`${side}AssetId`])
              )
            )
          }
        }
      } catch (e) {
        c.add(
          failure(
            snapshot.exchange,
            `${where} has malformed identifier inputs`,
            "bytes32 ids and integer windows",
            String((e as Error).message)
          )
        )
      }
    })
    yield* c.done
  })
})

const order = Check.make<Env>({
  name: "feed_route_order_and_open",
  group: "feed",
  title:
    "signedPayload.routes is ordered by (publicationLane, publicationRank, routeId) and each open flag follows the open rule at generatedAt",
  reference: "docs/protocol.md, Publication facts a verifier needs (route order, the open rule)",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const c = Check.collector()
    const at = Number(snapshot.payload.generatedAt)
    const key = (r: Route) =>
      [String(r.publicationLane), Number(r.publicationRank), String(r.routeId).toLowerCase()] as const
    snapshot.routes.forEach((r, i) => {
      if (i > 0) {
        const [la, ra, ia] = key(snapshot.routes[i - 1]!)
        const [lb, rb, ib] = key(r)
        if (la > lb || (la === lb && (ra > rb || (ra === rb && ia > ib)))) {
          c.add(
            failure(
              snapshot.exchange,
              `signedPayload.routes[${i}] is out of order`,
              "(publicationLane, publicationRank, routeId) ascending",
              `${la}/${ra}/${ia.slice(0, 10)} before ${lb}/${rb}/${ib.slice(0, 10)}`
            )
          )
        }
      }
      let expected: boolean
      try {
        expected = r.executionStatus === "OPEN" && r.dailyStatus === "OPEN" && r.permitAvailable === true &&
          Number(r.validAfter) <= at && at < Number(r.validUntil) &&
          BigInt(r.maxAvailableInRaw) >= BigInt(r.minimumFillInRaw)
      } catch {
        return
      }
      if (r.open !== expected) {
        c.add(
          failure(
            snapshot.exchange,
            `signedPayload.routes[${i}].open does not follow the open rule`,
            `${expected} (executionStatus ${r.executionStatus}, dailyStatus ${r.dailyStatus}, permitAvailable ${r.permitAvailable}, window ${r.validAfter}..${r.validUntil} at ${at}, max ${r.maxAvailableInRaw} >= min ${r.minimumFillInRaw})`,
            String(r.open)
          )
        )
      }
    })
    yield* c.done
  })
})

const template = Check.make<Env>({
  name: "feed_route_detail_template",
  group: "feed",
  title: "routeDetailTemplate is {solver_url}/api/v6/routes/{routeId}, the manifest's routeDetailTemplate",
  reference: "spec §2 SignedFeed.routeDetailTemplate",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const manifest = yield* document("/.well-known/svc-solver.json")
    const t = snapshot.feed.routeDetailTemplate
    const expected = asObject(manifest.value.endpoints)?.routeDetailTemplate
    if (typeof t !== "string" || !t.endsWith("/api/v6/routes/{routeId}") || t !== expected) {
      return yield* Check.fail(
        failure(
          snapshot.exchange,
          "routeDetailTemplate is not the route detail URL template",
          String(expected),
          String(t)
        )
      )
    }
  })
})

const compression = Check.make<Env>({
  name: "feed_compression",
  group: "feed",
  title:
    "a compressed feed (Accept-Encoding gzip or br) decodes to the same bytes as the identity response and varies on Accept-Encoding",
  reference:
    "docs/operations.md, HTTP rules of the solver interface (caching: compressed variants once per view, Vary: Accept-Encoding)",
  run: Effect.gen(function*() {
    const snapshot = yield* feedOf
    const c = Check.collector()
    for (const coding of ["gzip", "br"]) {
      const exchange = yield* send({ path: FEED, headers: { "accept-encoding": coding } })
      if (exchange.response.status !== 200) {
        c.add(
          failure(
            exchange,
            `the feed with Accept-Encoding ${coding} is not 200`,
            "200",
            Exchange.responseSummary(exchange)
          )
        )
        continue
      }
      const version = String(asObject(asObject(Exchange.json(exchange))?.feed)?.dataVersion)
      const base = yield* unfilteredAt(snapshot, version)
      if (base.dataVersion === version && exchange.response.body !== base.exchange.response.body) {
        c.add(
          failure(
            exchange,
            `the ${coding} body differs from the identity body`,
            "the same JSON text",
            firstDifference(Exchange.json(exchange), Exchange.json(base.exchange)) ?? "different bytes"
          )
        )
      }
      if (!/accept-encoding/i.test(exchange.response.headers.vary ?? "")) {
        c.add(
          failure(
            exchange,
            "the feed does not vary on Accept-Encoding",
            "Vary: Accept-Encoding",
            exchange.response.headers.vary ?? "absent"
          )
        )
      }
    }
    yield* c.done
  })
})

/**
 * The feed checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [
  schemaStrict,
  feedHash,
  feedSignature,
  validity,
  counts,
  views,
  filters,
  invalidFilters,
  actionable,
  constants,
  identifiers,
  order,
  template,
  compression
]
