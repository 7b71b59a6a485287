/**
 * The catalog of deliberately broken server variants: each bends exactly one
 * behaviour of our real server (through the proxy) and names the check(s)
 * written for it. The catalog test runs each variant against the groups of
 * those checks plus a smoke check, and asserts that every named check fails on
 * the variant (and passes on the real server).
 */
import { CanonicalJson, FeedSignature, Signature } from "@svc/protocol"
import { keccak256, stringToBytes, toFunctionSelector } from "viem"
import {
  bodyJson,
  errorResponse,
  pathOnly,
  type ProxyRequest,
  type ProxyResponse,
  type Variant,
  type VariantContext,
  withJson
} from "./proxy.ts"
import { secondGeneration } from "./variantsSecond.ts"

type Json = any

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const FEED = "/api/v6/solver-feed"
const EVENTS = "/api/v6/solver-feed/events"
const MESSAGE = "/api/v6/execution-permits/request-message"
const CREATE = "/api/v6/execution-permits"

const isJson = (res: ProxyResponse) =>
  res.headers["content-encoding"] === undefined && /json/.test(res.headers["content-type"] ?? "")

/** Rewrites the JSON body of matching responses (identity-encoded JSON only). */
const json = (
  match: (r: ProxyRequest, res: ProxyResponse) => boolean,
  edit: (body: Json, r: ProxyRequest, ctx: VariantContext) => Json
) =>
(r: ProxyRequest, res: ProxyResponse, ctx: VariantContext): ProxyResponse =>
  match(r, res) && isJson(res) ? withJson(res, edit(bodyJson(res), r, ctx)) : res

const get = (path: string) => (r: ProxyRequest, res: ProxyResponse) =>
  r.method === "GET" && pathOnly(r) === path && res.status === 200
const feedOk = (r: ProxyRequest, res: ProxyResponse) => r.method === "GET" && pathOnly(r) === FEED && res.status === 200
const unfilteredFeed = (r: ProxyRequest, res: ProxyResponse) => feedOk(r, res) && !r.path.includes("?")
const filteredFeed = (r: ProxyRequest, res: ProxyResponse) => feedOk(r, res) && r.path.includes("?")

/** Re-hashes and re-signs a SignedFeed's payload with the authority key (so only the intended change shows). */
const resign = (
  feed: Json,
  key: `0x${string}`,
  preimage: (payload: Json) => string = CanonicalJson.stringify
): Json => {
  const hash = FeedSignature.hashCanonical(preimage(feed.signedPayload))
  return { ...feed, feedHash: hash, feedSignature: Signature.signDigest(hash, key) }
}

/** Edits one SSE `feed` frame's data. */
const editFeedFrame = (block: string, edit: (feed: Json) => Json): string => {
  const m = /^data: (.*)$/m.exec(block)
  if (m === null || !/^event: feed$/m.test(block)) return block
  return block.replace(m[0], `data: ${JSON.stringify(edit(JSON.parse(m[1]!)))}`)
}

const mutateRoute = (route: Json) => ({ ...route, minimumFillInRaw: (BigInt(route.minimumFillInRaw) + 1n).toString() })

/** The current dataVersion as the proxy last saw it. */
const current = (ctx: VariantContext) => ctx.state.currentVersion ?? "0"

const post = (path: string) => (r: ProxyRequest) => r.method === "POST" && pathOnly(r) === path

// ---------------------------------------------------------------------------
// The catalog
// ---------------------------------------------------------------------------

/** The first generation of the catalog (the second is in variantsSecond.ts). */
const firstGeneration: ReadonlyArray<Variant> = [
  // ----- discovery -----
  {
    name: "manifest-extra-field",
    breaks: "the solver manifest carries a field SolverDiscovery does not list",
    caughtBy: ["discovery_solver_manifest"],
    response: json(get("/.well-known/svc-solver.json"), (b) => ({ ...b, extra: true }))
  },
  {
    name: "solver-discovery-differs",
    breaks: "/api/v6/solver-discovery answers a different (still valid) document than the well-known manifest",
    caughtBy: ["discovery_solver_discovery_identical"],
    response: json(
      get("/api/v6/solver-discovery"),
      (b) => ({ ...b, solverProfile: { ...b.solverProfile, executionScopes: ["INTRA_CHAIN", "CROSS_CHAIN"] } })
    )
  },
  {
    name: "fingerprint-missing-field",
    breaks: "the on-chain fingerprint lacks discoveryPaths",
    caughtBy: ["discovery_onchain_fingerprint"],
    response: json(get("/.well-known/svc-onchain-discovery.json"), ({ discoveryPaths: _, ...b }) => b)
  },
  {
    name: "standards-wrong-constant",
    breaks: "the standards manifest's executionInvariant says 3 transactions",
    caughtBy: ["discovery_standards_manifest"],
    response: json(
      get("/.well-known/svc-standards.json"),
      (b) => ({ ...b, executionInvariant: { ...b.executionInvariant, totalTransactions: 3 } })
    )
  },
  {
    name: "release-id-mismatch",
    breaks: "the standards manifest names another releaseId",
    caughtBy: ["discovery_release_id"],
    response: json(get("/.well-known/svc-standards.json"), (b) => ({ ...b, releaseId: `0x${"42".repeat(32)}` }))
  },
  {
    name: "endpoint-wrong-path",
    breaks: "the manifest's solverFeed endpoint has another path (in both manifest documents)",
    caughtBy: ["discovery_endpoint_urls"],
    response: json(
      (r, res) => get("/.well-known/svc-solver.json")(r, res) || get("/api/v6/solver-discovery")(r, res),
      (b) => ({
        ...b,
        endpoints: { ...b.endpoints, solverFeed: b.endpoints.solverFeed.replace("/solver-feed", "/feed") }
      })
    )
  },
  {
    name: "selector-mismatch",
    breaks: "the isLive probe method (and its step) names a selector that is not keccak256(\"isLive()\")[0:4]",
    caughtBy: ["discovery_scanner_selectors"],
    response: json(get("/.well-known/svc-onchain-discovery.json"), (b) => {
      const probe = b.scannerHints.probe
      const bad = (m: Json) => (m.signature === "isLive()" ? { ...m, selector: "0x12345678" } : m)
      return {
        ...b,
        scannerHints: {
          ...b.scannerHints,
          probe: {
            ...probe,
            methods: { ...probe.methods, isLive: bad(probe.methods.isLive) },
            steps: probe.steps.map((s: Json) => (s.call === undefined ? s : { ...s, call: bad(s.call) }))
          }
        }
      }
    })
  },
  {
    name: "routeat-signature-drift",
    breaks:
      "the on-chain document names routeAt(uint64) with that signature's own selector everywhere: consistent, but not the interface",
    caughtBy: ["golden_discovery_constants"],
    response: (r, res) =>
      get("/.well-known/svc-onchain-discovery.json")(r, res) && isJson(res)
        ? {
          ...res,
          body: Buffer.from(
            res.body.toString("utf8").split("routeAt(uint256)").join("routeAt(uint64)").split(
              toFunctionSelector("routeAt(uint256)")
            ).join(toFunctionSelector("routeAt(uint64)"))
          )
        }
        : res
  },
  {
    name: "topic0-mismatch",
    breaks: "the scanner hints' SourceFillV6 topic0 is not keccak256 of its signature",
    caughtBy: ["discovery_scanner_topic0"],
    response: json(get("/.well-known/svc-onchain-discovery.json"), (b) => ({
      ...b,
      scannerHints: {
        ...b.scannerHints,
        eventDiscovery: {
          SourceFillV6: { ...b.scannerHints.eventDiscovery.SourceFillV6, topic0: `0x${"11".repeat(32)}` }
        }
      }
    }))
  },
  {
    name: "create2-mismatch",
    breaks: "the deployment's initCodeHash does not give the stated facade address",
    caughtBy: ["discovery_scanner_create2"],
    response: json(get("/.well-known/svc-onchain-discovery.json"), (b) => ({
      ...b,
      deployment: { ...b.deployment, initCodeHash: `0x${"ab".repeat(32)}` },
      scannerHints: {
        ...b.scannerHints,
        deterministicDeployment: { ...b.scannerHints.deterministicDeployment, initCodeHash: `0x${"ab".repeat(32)}` }
      }
    }))
  },
  {
    name: "eight-probe-steps",
    breaks: "the probe has 8 steps (the optional event step left out)",
    caughtBy: ["discovery_scanner_steps"],
    response: json(get("/.well-known/svc-onchain-discovery.json"), (b) => ({
      ...b,
      scannerHints: {
        ...b.scannerHints,
        probe: {
          ...b.scannerHints.probe,
          steps: b.scannerHints.probe.steps.filter((s: Json) => s.order !== 8).map((s: Json, i: number) => ({
            ...s,
            order: i + 1
          }))
        }
      }
    }))
  },
  {
    name: "interface-id-mismatch",
    breaks: "the ERC-7683 module interface id is not standardId() xor resolveExecution(bytes)",
    caughtBy: ["discovery_interface_ids"],
    response: json(get("/.well-known/svc-onchain-discovery.json"), (b) => ({
      ...b,
      erc7683: { ...b.erc7683, erc165: { ...b.erc7683.erc165, svcStandardModuleV6InterfaceId: "0x12345678" } }
    }))
  },
  // ----- openapi -----
  {
    name: "openapi-invalid",
    breaks: "openapi.json is not a valid OpenAPI document (info.title missing)",
    caughtBy: ["openapi_valid_3_1"],
    response: json(get("/openapi.json"), ({ info: { title: _, ...info }, ...b }) => ({ ...b, info }))
  },
  {
    name: "openapi-missing-operation",
    breaks: "openapi.json does not describe getExecutionPermit",
    caughtBy: ["openapi_operations_present"],
    response: json(get("/openapi.json"), (b) => {
      const { ["/api/v6/execution-permits/{fillId}"]: _, ...paths } = b.paths
      return { ...b, paths }
    })
  },
  // ----- http -----
  {
    name: "unknown-path-plain-body",
    breaks: "an unknown path answers 404 with a body that is not an ErrorResponse",
    caughtBy: ["http_unknown_path_404"],
    response: (r, res) => (res.status === 404 && /no-such/.test(r.path) ? withJson(res, { message: "not found" }) : res)
  },
  {
    name: "wrong-method-404",
    breaks: "a known path with another method answers 404 without Allow",
    caughtBy: ["http_method_not_allowed_405"],
    response: (_r, res) => {
      if (res.status !== 405) return res
      const { allow: _, ...headers } = res.headers
      return { ...errorResponse(404, "NOT_FOUND"), headers: { ...headers } }
    }
  },
  {
    name: "no-cors",
    breaks: "responses do not allow other origins",
    caughtBy: ["http_cors"],
    response: (_r, res) => {
      const { ["access-control-allow-origin"]: _, ...headers } = res.headers
      return { ...res, headers }
    }
  },
  {
    name: "cors-without-sdk-header",
    breaks: "the CORS preflight allows only its four fixed headers: browsers block calls that carry x-svc-sdk",
    caughtBy: ["http_cors_sdk_header"],
    response: (r, res) =>
      r.method === "OPTIONS" && res.headers["access-control-allow-headers"] !== undefined
        ? {
          ...res,
          headers: {
            ...res.headers,
            "access-control-allow-headers": "Content-Type, Idempotency-Key, If-None-Match, Last-Event-ID"
          }
        }
        : res
  },
  {
    name: "document-cache-no-store",
    breaks: "the solver manifest is served with Cache-Control no-store",
    caughtBy: ["http_document_cache_headers"],
    response: (
      r,
      res
    ) => (get("/.well-known/svc-solver.json")(r, res)
      ? { ...res, headers: { ...res.headers, "cache-control": "no-store" } }
      : res)
  },
  {
    name: "non-json-body-500",
    breaks: "a POST body that is not JSON answers 500",
    caughtBy: ["http_body_not_json_400"],
    request: (r) => {
      if (r.method !== "POST") return r
      try {
        JSON.parse(r.body.toString("utf8"))
        return r
      } catch {
        return errorResponse(500, "INTERNAL_ERROR")
      }
    }
  },
  // ----- feed -----
  {
    name: "feed-extra-field",
    breaks: "the feed object carries a field SignedFeed does not list",
    caughtBy: ["feed_schema_strict"],
    response: json(feedOk, (b) => ({ ...b, feed: { ...b.feed, extra: 1 } }))
  },
  {
    name: "feed-wrong-hash",
    breaks: "feedHash is not the hash of the signed payload",
    caughtBy: ["feed_hash"],
    response: json(
      feedOk,
      (b) => ({
        ...b,
        feed: { ...b.feed, feedHash: `${b.feed.feedHash.slice(0, 65)}${b.feed.feedHash.endsWith("0") ? "1" : "0"}` }
      })
    )
  },
  {
    name: "feed-unsorted-canonical",
    breaks: "the feed is hashed and signed over JSON whose keys are not sorted (not canonical)",
    caughtBy: ["feed_hash"],
    response: json(feedOk, (b, _r, ctx) => {
      const reverse = (v: Json): Json =>
        Array.isArray(v)
          ? v.map(reverse)
          : v !== null && typeof v === "object"
          ? Object.fromEntries(Object.keys(v).reverse().map((k) => [k, reverse(v[k])]))
          : v
      const payload = reverse(b.feed.signedPayload)
      return { ...b, feed: resign({ ...b.feed, signedPayload: payload }, ctx.authorityKey, (p) => JSON.stringify(p)) }
    })
  },
  {
    name: "feed-wrong-signer",
    breaks: "the feed is signed by a key other than the published authority",
    caughtBy: ["feed_signature"],
    response: json(feedOk, (b) => {
      const key = `0x${"07".repeat(32)}` as const
      return { ...b, feed: { ...resign(b.feed, key), feedSigner: Signature.addressOf(key) } }
    })
  },
  {
    name: "feed-expired",
    breaks: "the feed is served after its validUntil (signed correctly)",
    caughtBy: ["feed_validity_window"],
    response: json(feedOk, (b, _r, ctx) => {
      const validUntil = b.feed.signedPayload.generatedAt - 1
      return {
        ...b,
        feed: resign(
          { ...b.feed, validUntil, signedPayload: { ...b.feed.signedPayload, validUntil } },
          ctx.authorityKey
        )
      }
    })
  },
  {
    name: "feed-wrong-count",
    breaks: "openRouteCount does not count the open routes",
    caughtBy: ["feed_counts"],
    response: json(feedOk, (b) => ({ ...b, feed: { ...b.feed, openRouteCount: b.feed.openRouteCount + 1 } }))
  },
  {
    name: "feed-view-differs",
    breaks: "a route of the unfiltered routes view differs from its signed route",
    caughtBy: ["feed_views_subset"],
    response: json(
      unfilteredFeed,
      (b) => ({
        ...b,
        feed: { ...b.feed, routes: b.feed.routes.map((r: Json, i: number) => (i === 0 ? mutateRoute(r) : r)) }
      })
    )
  },
  {
    name: "filter-alters-payload",
    breaks: "a filter reduces signedPayload too (re-signed, so the hash and signature still verify)",
    caughtBy: ["feed_filters_signed_payload"],
    response: json(filteredFeed, (b, _r, ctx) => {
      const ids = new Set(b.feed.routes.map((r: Json) => r.routeId))
      const payload = {
        ...b.feed.signedPayload,
        routes: b.feed.signedPayload.routes.filter((r: Json) => ids.has(r.routeId))
      }
      return { ...b, feed: resign({ ...b.feed, signedPayload: payload }, ctx.authorityKey) }
    })
  },
  {
    name: "invalid-filter-accepted",
    breaks: "a malformed sourceChainId filter is ignored instead of refused",
    caughtBy: ["feed_invalid_filter_400"],
    request: (r) => (pathOnly(r) === FEED && /sourceChainId=(0|08453|abc)(&|$)/.test(r.path) ? { ...r, path: FEED } : r)
  },
  {
    name: "actionable-unresolvable",
    breaks: "actionableRoutes lists a route that is not in signedPayload",
    caughtBy: ["feed_actionable_routes"],
    response: json(feedOk, (b) => ({
      ...b,
      feed: {
        ...b.feed,
        actionableRoutes: [{
          routeId: `0x${"99".repeat(32)}`,
          quoteId: `0x${"98".repeat(32)}`,
          pricingReferenceId: `0x${"97".repeat(32)}`,
          indicativeNotionalUsd: "100",
          executableNotionalUsd: "100",
          estimatedSourceGasUsd: "0.01",
          expectedEdgeAfterSourceGasBps: "5",
          economicsObservedAt: "2026-11-22T10:00:00.000Z",
          economicsValidUntil: "2026-11-22T10:05:00.000Z",
          pricingModelVersion: null
        }]
      }
    }))
  },
  {
    name: "publication-gas",
    breaks: "publicationGasWei is not \"0\"",
    caughtBy: ["feed_constants"],
    response: json(feedOk, (b) => ({ ...b, feed: { ...b.feed, publicationGasWei: "1" } }))
  },
  {
    name: "quote-id-not-derived",
    breaks: "a route's quoteId is not derived from its terms (consistently in payload and views, re-signed)",
    caughtBy: ["feed_identifiers", "golden_route_ids"],
    response: json(feedOk, (b, _r, ctx) => {
      const first = b.feed.signedPayload.routes[0]
      const quoteId = keccak256(stringToBytes(`other ${first.quoteId}`))
      const fix = (r: Json) => (r.routeId === first.routeId ? { ...r, quoteId } : r)
      const feed = {
        ...b.feed,
        signedPayload: { ...b.feed.signedPayload, routes: b.feed.signedPayload.routes.map(fix) },
        routes: b.feed.routes.map(fix),
        openRoutes: b.feed.openRoutes.map(fix)
      }
      return { ...b, feed: resign(feed, ctx.authorityKey) }
    })
  },
  {
    name: "routes-unsorted",
    breaks: "signedPayload.routes is not in (lane, rank, routeId) order (views follow it, re-signed)",
    caughtBy: ["feed_route_order_and_open"],
    response: json(feedOk, (b, _r, ctx) => {
      const swap = (list: Array<Json>) => (list.length < 2 ? list : [list[1], list[0], ...list.slice(2)])
      const ids = new Map(swap(b.feed.signedPayload.routes).map((r: Json, i: number) => [r.routeId, i]))
      const order = (list: Array<Json>) => [...list].sort((x, y) => ids.get(x.routeId)! - ids.get(y.routeId)!)
      const feed = {
        ...b.feed,
        signedPayload: { ...b.feed.signedPayload, routes: swap(b.feed.signedPayload.routes) },
        routes: order(b.feed.routes),
        openRoutes: order(b.feed.openRoutes)
      }
      return { ...b, feed: resign(feed, ctx.authorityKey) }
    })
  },
  {
    name: "route-template-wrong",
    breaks: "routeDetailTemplate is not the route detail URL",
    caughtBy: ["feed_route_detail_template"],
    response: json(
      feedOk,
      (b) => ({
        ...b,
        feed: { ...b.feed, routeDetailTemplate: b.feed.routeDetailTemplate.replace("/routes/", "/route/") }
      })
    )
  },
  {
    name: "compressed-without-vary",
    breaks: "the compressed feed does not vary on Accept-Encoding",
    caughtBy: ["feed_compression"],
    response: (r, res) => {
      if (!(feedOk(r, res) && /gzip|br/.test(r.headers["accept-encoding"] ?? ""))) return res
      const { vary: _, ...headers } = res.headers
      return { ...res, headers }
    }
  },
  // ----- etag -----
  {
    name: "etag-strong",
    breaks: "the feed's ETag is a strong validator",
    caughtBy: ["etag_weak_present"],
    response: (
      r,
      res
    ) => (pathOnly(r) === FEED && res.headers.etag !== undefined
      ? { ...res, headers: { ...res.headers, etag: res.headers.etag.replace(/^W\//, "") } }
      : res)
  },
  {
    name: "missing-304",
    breaks: "If-None-Match is ignored: an unchanged feed answers 200 again",
    caughtBy: ["etag_304"],
    request: (r) => {
      const { ["if-none-match"]: _, ...headers } = r.headers
      return pathOnly(r) === FEED ? { ...r, headers } : r
    }
  },
  {
    name: "etag-shared-across-views",
    breaks: "a filtered view carries the ETag of the unfiltered feed",
    caughtBy: ["etag_filter_views"],
    response: (
      r,
      res
    ) => (filteredFeed(r, res)
      ? { ...res, headers: { ...res.headers, etag: res.headers.etag!.replace(/-[^-"]+"$/, "-all\"") } }
      : res)
  },
  // ----- route -----
  {
    name: "route-detail-differs",
    breaks: "route detail answers a route that differs from the signed one",
    caughtBy: ["route_detail_equals_signed"],
    response: json(
      (r, res) => r.path.startsWith("/api/v6/routes/") && res.status === 200,
      (b) => ({ ...b, route: mutateRoute(b.route) })
    )
  },
  {
    name: "route-detail-text-drift",
    breaks:
      "route detail writes one field of the route in another form with the same value (18.0 for 18): not the signed bytes",
    caughtBy: ["route_detail_equals_signed"],
    response: (r, res) =>
      r.path.startsWith("/api/v6/routes/") && res.status === 200 && isJson(res)
        ? {
          ...res,
          body: Buffer.from(
            res.body.toString("utf8").replace(/"destinationTokenDecimals":(\d+)/, "\"destinationTokenDecimals\":$1.0")
          )
        }
        : res
  },
  {
    name: "extra-response-field",
    breaks: "route detail carries a field RouteDetailResponse does not list",
    caughtBy: ["route_detail_schema", "no_unknown_fields"],
    groups: ["route", "responses"],
    response: json(
      (r, res) => r.path.startsWith("/api/v6/routes/") && res.status === 200,
      (b) => ({ ...b, extra: true })
    )
  },
  {
    name: "route-unknown-500",
    breaks: "an unknown (well-formed) routeId answers 500",
    caughtBy: ["route_detail_not_found"],
    response: (
      r,
      res
    ) => (r.path.startsWith("/api/v6/routes/0x") && res.status === 404 ? errorResponse(500, "INTERNAL_ERROR") : res)
  },
  // ----- sse -----
  {
    name: "sse-cacheable",
    breaks: "the event stream is marked cacheable",
    caughtBy: ["sse_content_type"],
    streamHeaders: (_r, h) => ({ ...h, "cache-control": "public, max-age=60" })
  },
  {
    name: "sse-no-initial-event",
    breaks: "no feed event is sent on connect (as if every client were up to date)",
    caughtBy: ["sse_initial_event"],
    frame: (_r, block, index) => (index <= 1 && /^event: feed$/m.test(block) ? [] : [block])
  },
  {
    name: "sse-equal-id-not-suppressed",
    breaks: "Last-Event-ID is ignored: the current event is sent although the client has it",
    caughtBy: ["sse_last_event_id_equal"],
    request: (r) => {
      const { ["last-event-id"]: _, ...headers } = r.headers
      return pathOnly(r) === EVENTS ? { ...r, headers } : r
    }
  },
  {
    name: "sse-older-id-suppresses",
    breaks: "an older Last-Event-ID suppresses the current event",
    caughtBy: ["sse_last_event_id_older"],
    request: (r, ctx) => {
      const id = r.headers["last-event-id"]
      return pathOnly(r) === EVENTS && id !== undefined && /^[0-9]+$/.test(id) && BigInt(id) < BigInt(current(ctx))
        ? { ...r, headers: { ...r.headers, "last-event-id": current(ctx) } }
        : r
    }
  },
  {
    name: "sse-invalid-id-suppresses",
    breaks: "an invalid Last-Event-ID is treated as the current one (the initial event is suppressed)",
    caughtBy: ["sse_last_event_id_invalid"],
    request: (r, ctx) => {
      const id = r.headers["last-event-id"]
      return pathOnly(r) === EVENTS && id !== undefined && !/^(?:0|[1-9][0-9]*)$/.test(id)
        ? { ...r, headers: { ...r.headers, "last-event-id": current(ctx) } }
        : r
    }
  },
  {
    name: "sse-newer-id-suppresses",
    breaks: "a Last-Event-ID newer than the current one suppresses the current event",
    caughtBy: ["sse_last_event_id_newer"],
    request: (r, ctx) => {
      const id = r.headers["last-event-id"]
      return pathOnly(r) === EVENTS && id !== undefined && /^[0-9]+$/.test(id) && BigInt(id) > BigInt(current(ctx))
        ? { ...r, headers: { ...r.headers, "last-event-id": current(ctx) } }
        : r
    }
  },
  {
    name: "sse-replays-history",
    breaks: "the stream replays earlier publications before the current one",
    caughtBy: ["sse_no_replay"],
    arm: async (ctx) => {
      // make sure the proxy has seen a feed frame, then publish so that it is history
      const response = await fetch(`${ctx.publicUrl}${EVENTS}`)
      const reader = response.body!.getReader()
      let text = ""
      while (!/event: feed/.test(text)) text += new TextDecoder().decode((await reader.read()).value)
      await reader.cancel()
      await ctx.publish()
    },
    frame: (_r, block, _index, ctx) => {
      if (!/^event: feed$/m.test(block)) return [block]
      const id = /^id: ([0-9]+)$/m.exec(block)?.[1] ?? "0"
      const older = ctx.state.frames.filter((f) => BigInt(/^id: ([0-9]+)$/m.exec(f)![1]!) < BigInt(id))
      return [...older, block]
    }
  },
  {
    name: "sse-extra-event",
    breaks: "the stream sends an event name the spec does not define",
    caughtBy: ["sse_event_names"],
    frame: (_r, block) => (/^event: feed$/m.test(block) ? [block, "event: ping\ndata: {}\n\n"] : [block])
  },
  {
    name: "sse-bad-signature",
    breaks: "feed events carry a signature that does not recover to the authority",
    caughtBy: ["sse_every_event_verified"],
    frame: (
      _r,
      block
    ) => [
      editFeedFrame(block, (f) => ({ ...f, feedSignature: Signature.signDigest(f.feedHash, `0x${"07".repeat(32)}`) }))
    ]
  },
  // ----- permits -----
  {
    name: "permit-message-trailing-newline",
    breaks: "request-message answers the message with a trailing LF",
    caughtBy: ["permit_request_message_bytes"],
    response: json((r, res) => post(MESSAGE)(r) && res.status === 200, (b) => ({ ...b, message: `${b.message}\n` }))
  },
  {
    name: "permit-message-account-form",
    breaks:
      "request-message writes an account-form payer's account id in uppercase hex (address-form payers are answered correctly)",
    caughtBy: ["golden_request_messages"],
    response: json(
      (r, res) => post(MESSAGE)(r) && res.status === 200 && /"payerAccountId":"0x/.test(r.body.toString("utf8")),
      (b) => ({
        ...b,
        message: String(b.message).replace(
          /^payerAccountId=0x([0-9a-f]{64})$/m,
          (_m, hex: string) => `payerAccountId=0x${hex.toUpperCase()}`
        )
      })
    )
  },
  {
    name: "create-200-instead-of-201",
    breaks: "a new permit is answered 200 instead of 201",
    caughtBy: ["permit_create_201"],
    response: (r, res) => (post(CREATE)(r) && res.status === 201 ? { ...res, status: 200 } : res)
  },
  {
    name: "create-refused-503",
    breaks: "a valid, signed permit request is refused with 503",
    caughtBy: ["permit_create_201"],
    response: (r, res) => (post(CREATE)(r) && res.status === 201 ? errorResponse(503, "AUTHORITY_UNAVAILABLE") : res)
  },
  {
    name: "replay-not-idempotent",
    breaks: "an identical replay is answered as a new permit (201, idempotent false)",
    caughtBy: ["permit_replay_idempotent"],
    response: json((r, res) => post(CREATE)(r) && res.status === 200, (b) => ({ ...b, idempotent: false }))
  },
  {
    name: "key-conflict-400",
    breaks: "a reused idempotency key with another body answers 400 instead of 409",
    caughtBy: ["permit_key_conflict_409"],
    response: (
      r,
      res
    ) => ((post(CREATE)(r) || post(MESSAGE)(r)) && res.status === 409 ? errorResponse(400, "INVALID_REQUEST") : res)
  },
  {
    name: "header-key-ignored",
    breaks: "the Idempotency-Key header is not compared with the body's key",
    caughtBy: ["permit_header_key_mismatch_400"],
    request: (r) => {
      const { ["idempotency-key"]: _, ...headers } = r.headers
      return post(CREATE)(r) ? { ...r, headers } : r
    }
  },
  {
    name: "signature-failure-500",
    breaks: "a request signed by the wrong key answers 500",
    caughtBy: ["permit_wrong_signer_4xx"],
    response: (
      r,
      res
    ) => (post(CREATE)(r) && res.status === 400 && /SIGNATURE_INVALID/.test(res.body.toString())
      ? errorResponse(500, "INTERNAL_ERROR")
      : res)
  },
  {
    name: "body-limit-off-by-one",
    breaks: "a body of exactly 32,768 bytes answers 413",
    caughtBy: ["permit_body_limit_413"],
    request: (r) => (r.method === "POST" && r.body.length >= 32_768 ? errorResponse(413, "BODY_TOO_LARGE") : r)
  },
  {
    name: "unknown-quote-404",
    breaks: "a permit request for an unknown quote answers 404 instead of 410",
    caughtBy: ["permit_unknown_quote_410"],
    response: (
      r,
      res
    ) => ((post(CREATE)(r) || post(MESSAGE)(r)) && res.status === 410 ? errorResponse(404, "NOT_FOUND") : res)
  },
  {
    name: "amount-too-low-409",
    breaks: "an amount below minimumFillInRaw answers 409 instead of 400",
    caughtBy: ["permit_amount_bounds"],
    response: (
      r,
      res
    ) => (post(MESSAGE)(r) && res.status === 400 && /AMOUNT_TOO_LOW/.test(res.body.toString())
      ? errorResponse(409, "INSUFFICIENT_CAPACITY")
      : res)
  },
  {
    name: "permit-changed-amount",
    breaks: "the issued permit's amountInRaw differs from the requested amount (the signature no longer matches)",
    caughtBy: ["permit_binds_request", "permit_digest_signature"],
    response: json((r, res) => post(CREATE)(r) && (res.status === 201 || res.status === 200), (b) => ({
      ...b,
      permit: {
        ...b.permit,
        permit: { ...b.permit.permit, amountInRaw: (BigInt(b.permit.permit.amountInRaw) + 1n).toString() }
      }
    }))
  },
  {
    name: "permit-digest-wrong",
    breaks: "permitDigest is not the EIP-712 digest of the permit",
    caughtBy: ["permit_digest_signature"],
    response: json((r, res) => post(CREATE)(r) && (res.status === 201 || res.status === 200), (b) => ({
      ...b,
      permit: { ...b.permit, permitDigest: `0x${"5a".repeat(32)}` }
    }))
  },
  {
    name: "permit-amount-out-overflow",
    breaks: "the permit's amountOutRaw does not fit its uint128 ABI type",
    caughtBy: ["permit_payload_roundtrip"],
    response: json((r, res) => post(CREATE)(r) && (res.status === 201 || res.status === 200), (b) => ({
      ...b,
      permit: { ...b.permit, permit: { ...b.permit.permit, amountOutRaw: (1n << 130n).toString() } }
    }))
  },
  {
    name: "permit-status-differs",
    breaks: "status by fillId answers another permitNonce than the issued permit",
    caughtBy: ["permit_status_by_fill_id"],
    response: json((r, res) => r.method === "GET" && r.path.startsWith(`${CREATE}/`) && res.status === 200, (b) => ({
      ...b,
      permit: { ...b.permit, permit: { ...b.permit.permit, permitNonce: `0x${"33".repeat(32)}` } }
    }))
  },
  // ----- negative -----
  {
    name: "bad-body-500",
    breaks: "a malformed permit request body answers 500 instead of 400",
    caughtBy: ["negative_request_message_body", "negative_create_body"],
    response: (
      r,
      res
    ) => ((post(CREATE)(r) || post(MESSAGE)(r)) && res.status === 400 ? errorResponse(500, "INTERNAL_ERROR") : res)
  },
  {
    name: "unknown-query-ignored",
    breaks: "unknown and repeated feed query parameters are ignored",
    caughtBy: ["negative_feed_query"],
    request: (r) => {
      if (pathOnly(r) !== FEED || !r.path.includes("?")) return r
      const params = new URLSearchParams(r.path.split("?")[1])
      const kept = new URLSearchParams()
      for (const [k, v] of params) if (["sourceChainId", "sourceNetworkId"].includes(k) && !kept.has(k)) kept.set(k, v)
      const q = kept.toString()
      return { ...r, path: q.length > 0 ? `${FEED}?${q}` : FEED }
    }
  },
  {
    name: "malformed-route-id-500",
    breaks: "a routeId that is not bytes32 answers 500",
    caughtBy: ["negative_route_path"],
    response: (
      r,
      res
    ) => (r.path.startsWith("/api/v6/routes/") && !/^\/api\/v6\/routes\/0x[0-9a-fA-F]{64}$/.test(pathOnly(r)) &&
        res.status === 404
      ? errorResponse(500, "INTERNAL_ERROR")
      : res)
  },
  {
    name: "malformed-fill-id-400",
    breaks: "a fillId that is not bytes32 answers 400 instead of 404",
    caughtBy: ["negative_fill_path"],
    response: (
      r,
      res
    ) => (r.method === "GET" && r.path.startsWith(`${CREATE}/`) &&
        !/^0x[0-9a-fA-F]{64}$/.test(pathOnly(r).slice(CREATE.length + 1)) && res.status === 404
      ? errorResponse(400, "INVALID_REQUEST")
      : res)
  },
  {
    name: "number-amount-coerced",
    breaks: "a JSON number requestedAmountInRaw is coerced to a string instead of refused",
    caughtBy: ["negative_unsafe_integers"],
    request: (r) => {
      if (!post(MESSAGE)(r)) return r
      const text = r.body.toString("utf8").replace(
        /"requestedAmountInRaw":(-?[0-9][0-9.eE+-]*)/,
        (_m, n: string) => `"requestedAmountInRaw":"${/[eE.]/.test(n) ? BigInt(Number(n)).toString() : n}"`
      )
      return { ...r, body: Buffer.from(text) }
    }
  },
  {
    name: "events-query-ignored",
    breaks: "an unknown query parameter on the event stream is ignored",
    caughtBy: ["negative_events_query"],
    request: (r) => (pathOnly(r) === EVENTS ? { ...r, path: EVENTS } : r)
  },
  // ----- responses (run-wide) -----
  {
    name: "unsafe-number-in-response",
    breaks: "route metrics carry an integer beyond 2^53 as a JSON number",
    caughtBy: ["integers_as_strings"],
    groups: ["route", "responses"],
    response: (r, res) => {
      if (!(r.path.startsWith("/api/v6/routes/") && res.status === 200 && isJson(res))) return res
      const text = res.body.toString("utf8").replace(
        /"metrics":\{/,
        "\"metrics\":{\"feed_exposures\":9007199254740993,"
      )
      return { ...res, body: Buffer.from(text) }
    }
  },
  {
    name: "undocumented-status",
    breaks: "permit status of an unknown fillId answers 410 (undocumented for the operation)",
    caughtBy: ["status_code_conformance"],
    groups: ["permits", "responses"],
    response: (
      r,
      res
    ) => (r.method === "GET" && r.path.startsWith(`${CREATE}/`) && res.status === 404
      ? errorResponse(410, "QUOTE_NOT_OPEN")
      : res)
  },
  {
    name: "unknown-path-500",
    breaks: "an unknown path answers 500 (an internal error)",
    caughtBy: ["no_server_errors"],
    groups: ["http", "responses"],
    request: (
      r
    ) => (r.method === "GET" && pathOnly(r) === "/api/v6/no-such-operation" ? errorResponse(500, "INTERNAL_ERROR") : r)
  },
  {
    name: "error-body-cacheable",
    breaks: "error responses are cacheable",
    caughtBy: ["dynamic_cache_headers"],
    groups: ["http", "responses"],
    response: (
      r,
      res
    ) => (r.path.startsWith("/api/v6/") && res.status >= 400
      ? { ...res, headers: { ...res.headers, "cache-control": "public, max-age=60" } }
      : res)
  },
  // ----- timing -----
  {
    name: "etag-stuck",
    breaks: "any If-None-Match revalidates: after a publication the old ETag still gets 304",
    caughtBy: ["timing_etag_after_publication"],
    request: (r) =>
      pathOnly(r) === FEED && r.headers["if-none-match"] !== undefined
        ? {
          status: 304,
          headers: { etag: r.headers["if-none-match"], "cache-control": "no-cache", vary: "Accept-Encoding" },
          body: Buffer.alloc(0)
        }
        : r
  },
  {
    name: "sse-no-push",
    breaks: "a stream sends the state on connect but never pushes a later publication",
    caughtBy: ["timing_sse_new_publication"],
    frame: (_r, block, index) => (/^event: feed$/m.test(block) && index > 1 ? [] : [block])
  },
  {
    name: "expired-quote-400",
    breaks: "a permit request for an expired quote answers 400 instead of 410",
    caughtBy: ["timing_quote_expired_410"],
    response: (r, res) => (post(MESSAGE)(r) && res.status === 410 ? errorResponse(400, "INVALID_REQUEST") : res)
  },
  // ----- aggregator -----
  {
    name: "aggregator-health-extra",
    breaks: "/v1/health carries a field AggregatorHealth does not list",
    caughtBy: ["aggregator_health"],
    response: json(get("/v1/health"), (b) => ({ ...b, uptime: 1 }))
  },
  {
    name: "aggregator-manifest-wrong-signer",
    breaks: "the aggregator manifest names another feedSigner than the authority",
    caughtBy: ["aggregator_manifest"],
    response: json(
      get("/.well-known/svc-aggregator.json"),
      (b) => ({ ...b, feedSigner: "0x000000000000000000000000000000000000dEaD" })
    )
  },
  {
    name: "aggregator-token-asset-id",
    breaks: "a token's assetId is not derived from its chain and address",
    caughtBy: ["aggregator_chains_tokens"],
    response: json(
      get("/v1/tokens"),
      (b) => ({
        ...b,
        tokens: b.tokens.map((t: Json, i: number) => (i === 0 ? { ...t, assetId: `0x${"12".repeat(32)}` } : t))
      })
    )
  },
  {
    name: "aggregator-quote-other-route",
    breaks: "a quote names another quoteId than the route it quotes",
    caughtBy: ["aggregator_quote"],
    response: json(
      (r, res) => post("/v1/quote")(r) && res.status === 200,
      (b) => ({ ...b, quoteId: `0x${"44".repeat(32)}` })
    )
  },
  {
    name: "aggregator-message-differs",
    breaks: "build stage 1 answers a message that is not the permit request message",
    caughtBy: ["aggregator_build_signature_required"],
    response: json(
      (r, res) => post("/v1/build")(r) && res.status === 200,
      (b) =>
        b.signatureRequired === true
          ? {
            ...b,
            signingPayload: {
              ...b.signingPayload,
              message: b.signingPayload.message.replace("standard=DIRECT", "standard=ERC-7683")
            }
          }
          : b
    )
  },
  {
    name: "aggregator-calldata-differs",
    breaks: "build stage 2 answers calldata that is not fillDirect of the permit",
    caughtBy: ["aggregator_build_transaction"],
    response: json(
      (r, res) => post("/v1/build")(r) && res.status === 200,
      (b) =>
        b.signatureRequired === false
          ? { ...b, data: `${b.data.slice(0, -2)}${b.data.endsWith("00") ? "01" : "00"}` }
          : b
    )
  },
  {
    name: "aggregator-status-400",
    breaks: "status of an unknown fillId answers 400 instead of 404",
    caughtBy: ["aggregator_status_lookups"],
    response: (r, res) =>
      r.method === "GET" && pathOnly(r) === "/v1/status" && res.status === 404 && isJson(res)
        ? withJson({ ...res, status: 400 }, { ...bodyJson(res), error: "INVALID_REQUEST", action: "FIX_REQUEST" })
        : res
  },
  {
    name: "aggregator-bad-query-503",
    breaks: "a malformed status query answers 503 (as if the service were down) instead of 400",
    caughtBy: ["aggregator_negative_status_query"],
    response: (r, res) =>
      r.method === "GET" && pathOnly(r) === "/v1/status" && res.status === 400 && isJson(res)
        ? withJson({ ...res, status: 503 }, {
          ...bodyJson(res),
          error: "SERVICE_UNAVAILABLE",
          action: "RETRY_LATER",
          retryable: true
        })
        : res
  },
  {
    name: "aggregator-error-action",
    breaks: "aggregator errors carry another action than the code table's",
    caughtBy: ["aggregator_quote_errors"],
    response: json((r, res) => post("/v1/quote")(r) && res.status >= 400, (b) => ({ ...b, action: "NONE" }))
  }
]

/** Every variant of the catalog. */
export const variants: ReadonlyArray<Variant> = [...firstGeneration, ...secondGeneration]
