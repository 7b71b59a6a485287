/**
 * A custom solver that embeds the svc core with its own pricing layer.
 *
 * Run it from the repository root (docs/embedding.md walks through it):
 *
 *   node_modules/.bin/node examples/embed-core/solver.ts               # serves until Ctrl-C
 *   node_modules/.bin/node examples/embed-core/solver.ts --round-trip  # one client round trip, then exits
 *
 * It:
 *
 * 1. defines a pricing layer that quotes from a (here simulated) price oracle with a
 *    spread that grows with the amount, rounding in the solver's favour;
 * 2. builds the svc engine over SQLite with that pricing, a catalog written in code and
 *    a signer key;
 * 3. serves the whole svc HTTP API, as a long-running process: `Layer.launch` keeps the
 *    layer up until the process is interrupted (Ctrl-C, SIGTERM), then closes it in
 *    reverse order: the HTTP server drains, the event streams end, the store closes;
 * 4. with `--round-trip`, acts as a client instead: reads the signed feed, verifies it,
 *    requests a permit signed by a wallet key, and prints the permit's price evidence.
 */
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { type Catalog, Pricing, Signer } from "@svc/core"
import { FeedSignature, PermitMessage, Signature } from "@svc/protocol"
import { App } from "@svc/server"
import { SqliteStore } from "@svc/store"
import { Cause, Clock, Context, Effect, Exit, Layer, Redacted, References, Result } from "effect"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"

// ---------------------------------------------------------------------------
// 1. A pricing layer of our own
// ---------------------------------------------------------------------------

/** A price source: destination raw units per source raw unit, as a fraction. */
export interface Oracle {
  readonly price: (
    route: Catalog.CatalogRoute
  ) => Effect.Effect<{ readonly numerator: bigint; readonly denominator: bigint }>
}

/** The oracle of this example: the catalog price, moved by a few basis points every minute. */
const simulatedOracle: Oracle = {
  price: (route) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      const drift = BigInt(Math.floor(now / 60_000) % 7) // 0..6 bps
      return {
        numerator: route.priceNumeratorRaw * (10_000n - drift),
        denominator: route.priceDenominatorRaw * 10_000n
      }
    })
}

const BPS = 10_000n

/** Spread in basis points for an amount: 3 bps, plus 1 bp per 10,000 whole source tokens. */
const spreadBps = (route: Catalog.CatalogRoute, amountInRaw: bigint): bigint =>
  3n + amountInRaw / (10_000n * 10n ** BigInt(route.source.decimals))

/** Identifies the pricing model (not the price): quotes stay valid across price ticks. */
const referenceOf = (route: Catalog.CatalogRoute) =>
  Pricing.pricingReferenceIdOf({
    routeId: route.routeId,
    model: "EXAMPLE_ORACLE",
    modelVersion: "example-oracle-1",
    numeratorRaw: 1n,
    denominatorRaw: 1n,
    serviceFeeBps: route.serviceFeeBps,
    feeMode: route.feeMode
  })

/**
 * Oracle pricing: amountOut = floor(amountIn × price × (1 − spread − fee)).
 * Every rounding goes down, in the solver's favour.
 */
export const OraclePricing = (oracle: Oracle): Layer.Layer<Pricing.Pricing> =>
  Layer.succeed(Pricing.Pricing, {
    indicative: (route) =>
      Effect.map(oracle.price(route), ({ denominator, numerator }) => ({
        numeratorRaw: numerator,
        denominatorRaw: denominator,
        serviceFeeBps: route.serviceFeeBps,
        feeMode: route.feeMode,
        modelVersion: "example-oracle-1",
        pricingReferenceId: referenceOf(route)
      })),
    quote: (route, amountInRaw) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const { denominator, numerator } = yield* oracle.price(route)
        const spread = spreadBps(route, amountInRaw)
        const fee = BigInt(route.serviceFeeBps ?? 0)
        const amountOutRaw = (amountInRaw * numerator * (BPS - spread - fee)) / (denominator * BPS)
        const cycleStart = Math.floor(now / 60_000) * 60_000
        return {
          amountOutRaw,
          modelVersion: "example-oracle-1",
          pricingReferenceId: referenceOf(route),
          snapshotId: `oracle-${cycleStart}`,
          routeSnapshotId: null,
          quoteObservedAt: now,
          pricingCycleId: `oracle-${cycleStart / 1000}`,
          pricingCycleObservedAt: cycleStart,
          pricingCycleValidUntil: cycleStart + 60_000,
          payoutEconomicCeilingRequired: false,
          payoutEconomicCeiling: null,
          evidence: {
            oracleNumerator: numerator.toString(),
            oracleDenominator: denominator.toString(),
            spreadBps: Number(spread),
            serviceFeeBps: route.serviceFeeBps
          },
          executionCapacity: { minimumFillInRaw: route.minimumFillInRaw.toString() }
        }
      }),
    capacity: (route, availableOutRaw) =>
      // conservative: the largest amount whose out fits, at a 50 bp spread
      Effect.map(oracle.price(route), ({ denominator, numerator }) =>
        Pricing.linearCapacity(
          availableOutRaw,
          numerator * (BPS - 50n),
          denominator * BPS,
          route.serviceFeeBps,
          Pricing.MAX_AMOUNT
        ))
  })

// ---------------------------------------------------------------------------
// 2. The engine: a catalog in code, SQLite, a signer, our pricing
// ---------------------------------------------------------------------------

const ROUTER = "0x2Af7d059E5efdBe1D2A234B78DF91E948ee22Ee2"
const VAULT = "0x3D025A6376164AaCE132294B942203f1B22462CF"

/** One route: USDC on Base to USDT on BNB Smart Chain. */
export const catalog = {
  networks: [
    { key: "base", name: "Base", vm: "EVM", chainId: "8453", router: ROUTER, vault: VAULT },
    { key: "bsc", name: "BNB Smart Chain", vm: "EVM", chainId: "56", router: ROUTER, vault: VAULT }
  ],
  assets: [
    {
      key: "usdc.base",
      network: "base",
      symbol: "USDC",
      decimals: 6,
      address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
    },
    {
      key: "usdt.bsc",
      network: "bsc",
      symbol: "USDT",
      decimals: 18,
      address: "0x55d398326f99059fF775485246999027B3197955",
      inventoryRaw: "500000000000000000000000"
    }
  ],
  routes: [
    {
      source: "usdc.base",
      destination: "usdt.bsc",
      serviceFeeBps: 5,
      price: { numeratorRaw: "1000000000000", denominatorRaw: "1" },
      minimumFillInRaw: "1000000"
    }
  ]
}

/** Public test keys: never fund them. */
const AUTHORITY_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
const WALLET_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"

/** The custom solver: svc's HTTP API over the engine with our pricing (port 0: any free port). */
export const SolverLive = (dataDir: string, port = 0) =>
  App.layer({
    catalog,
    parts: { pricing: OraclePricing(simulatedOracle) },
    engine: { permits: { permitTtlSeconds: 90 } }
  }).pipe(
    Layer.provideMerge(Layer.mergeAll(
      SqliteStore.layer({ filename: join(dataDir, "solver.sqlite") }),
      Layer.succeed(Signer.Signer, Signer.fromPrivateKey(Redacted.make(AUTHORITY_KEY))),
      NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })
    )),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Warn"))
  )

// ---------------------------------------------------------------------------
// 3. Serve until stopped
// ---------------------------------------------------------------------------

/**
 * The long-running solver: SolverLive on `PORT` (default 8788) with its data in
 * `SVC_DATA_DIR` (default ./.svc-embed, kept across restarts), announcing where it
 * listens and what its health endpoint says once it is up.
 */
export const ServeLive = Layer.unwrap(Effect.sync(() => {
  const dataDir = process.env.SVC_DATA_DIR ?? ".svc-embed"
  mkdirSync(dataDir, { recursive: true })
  const port = Number(process.env.PORT ?? 8788)
  const announce = Layer.effectDiscard(Effect.gen(function*() {
    const url = (yield* App.AppControl).publicUrl
    // /health/ready answers 200 once the store, the signer and a publication are ready (503 naming the part otherwise)
    const ready = yield* Effect.promise(() => fetch(`${url}/health/ready`).then((r) => r.text()))
    console.log(`solver listening on ${url}; ${url}/health/ready: ${ready}`)
    yield* Effect.addFinalizer(() => Effect.sync(() => console.log("solver stopped")))
  }))
  return announce.pipe(Layer.provideMerge(SolverLive(dataDir, port)))
}))

// ---------------------------------------------------------------------------
// 4. Or: one client round trip
// ---------------------------------------------------------------------------

/** Runs the solver and one client round trip; returns what it observed. */
export const main = Effect.scoped(Effect.gen(function*() {
  // a data folder of its own, removed when the example ends (after the store closes)
  const dataDir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-embed-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )
  const context = yield* Layer.build(SolverLive(dataDir))
  const url = Context.get(context, App.AppControl).publicUrl
  const authority = Signature.addressOf(AUTHORITY_KEY)

  const feed = yield* Effect.promise(() => fetch(`${url}/api/v6/solver-feed`).then((r) => r.json() as Promise<any>))
  const verified = FeedSignature.verify(feed.feed, { now: Math.floor(Date.now() / 1000), expectedSigner: authority })
  if (Result.isFailure(verified) || !verified.success.valid) {
    return yield* Effect.die(new Error("the feed does not verify"))
  }

  const route = feed.feed.openRoutes[0]
  const wallet = Signature.addressOf(WALLET_KEY)
  const request = {
    quoteId: route.quoteId,
    requestedAmountInRaw: "2500000000", // 2,500 USDC
    payer: wallet,
    recipient: wallet,
    idempotencyKey: `embed-example-${Date.now()}`
  }
  const requestSignature = PermitMessage.sign(PermitMessage.build(request), WALLET_KEY)
  const response = yield* Effect.promise(() =>
    fetch(`${url}/api/v6/execution-permits`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...request, requestSignature })
    }).then(async (r) => ({ status: r.status, body: await r.json() as any }))
  )
  return {
    url,
    feedValid: verified.success.valid,
    status: response.status,
    amountInRaw: response.body.permit.permit.amountInRaw as string,
    amountOutRaw: response.body.permit.permit.amountOutRaw as string,
    evidence: response.body.permit.execution.pricing.evidence as Record<string, unknown>
  }
}))

if (import.meta.main) {
  if (process.argv.includes("--round-trip")) {
    Effect.runPromise(main).then(
      (result) => console.log(JSON.stringify(result, null, 2)),
      (error) => {
        console.error(error)
        process.exitCode = 1
      }
    )
  } else {
    // runs until SIGINT or SIGTERM, which interrupt it: the layer then closes and the process exits 0
    NodeRuntime.runMain(Layer.launch(ServeLive), {
      teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause) ? 0 : 1)
    })
  }
}
