/**
 * Rate limits shared by replicas on one real Redis (`REDIS_URL`; here
 * 127.0.0.1:6379, or SVC_TEST_REDIS_URL) and the client behind trusted proxies
 * (`SVC_TRUSTED_PROXIES`), over real HTTP against in-process servers, each on
 * its own SQLite store:
 *
 * - two servers on one Redis key prefix give a client one budget: permits and
 *   `/v1` requests spread over both get exactly the limit admitted, then 429
 *   with Retry-After;
 * - behind a trusted proxy the forwarded client is the key (two forwarded
 *   clients, two budgets); from an untrusted peer the headers are ignored;
 * - Redis down or silent: permit creation and `/v1` answer a structured 503
 *   with Retry-After (never 500, never unlimited), and recover when it is back;
 * - an unreachable REDIS_URL at start is a start-up error naming REDIS_URL (in
 *   process and from `svc serve`), never showing the password; a Redis that
 *   stopped answering does not hold the shutdown;
 * - the configuration keys and their errors.
 *
 * Every test uses its own key prefix; the keys are deleted at the end.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { RateLimit } from "@svc/core"
import { PermitMessage, Signature } from "@svc/protocol"
import { ConfigProvider, Context, Effect, Exit, Layer, Option, Redacted, References, Scope } from "effect"
import { IpNetwork } from "effect/net"
import { RateLimiter } from "effect/persistence"
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { type AddressInfo, connect, createServer, type Server as NetServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createClient } from "redis"
import { afterAll } from "vitest"
import { scaled } from "../../../test/support/time.ts"
import * as RedisRateLimit from "../src/RedisRateLimit.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { AUTHORITY_KEY, build, PAYER_KEY, serverLayer, testConfig } from "./support/server.ts"

const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"
const run = `svc-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
const prefixes: Array<string> = []
const prefixOf = (name: string) => {
  const prefix = `${run}-${name}:`
  prefixes.push(prefix)
  return prefix
}

/** Keys under a prefix, with their remaining time to live (ms). */
const redisKeys = async (prefix: string): Promise<Map<string, number>> => {
  const client = createClient({ url: REDIS_URL })
  await client.connect()
  try {
    const keys = new Map<string, number>()
    let cursor = "0"
    do {
      const [next, batch] = await client.sendCommand(["SCAN", cursor, "MATCH", `${prefix}*`, "COUNT", "1000"]) as [
        string,
        Array<string>
      ]
      cursor = next
      for (const key of batch) keys.set(key, Number(await client.sendCommand(["PTTL", key])))
    } while (cursor !== "0")
    return keys
  } finally {
    await client.close()
  }
}

afterAll(async () => {
  const client = createClient({ url: REDIS_URL })
  await client.connect()
  for (const prefix of prefixes) {
    const keys = [...(await redisKeys(prefix)).keys()]
    if (keys.length > 0) await client.sendCommand(["DEL", ...keys])
  }
  await client.close()
})

const loopback = [IpNetwork.fromStringUnsafe("127.0.0.1/32")]
const elsewhere = [IpNetwork.fromStringUnsafe("10.0.0.0/8")]

// ---------------------------------------------------------------------------
// HTTP helpers
// ---------------------------------------------------------------------------

const fetchFrom = (url: string, init?: RequestInit) => Effect.promise(() => fetch(url, init))
const json = (response: Response) => Effect.promise(() => response.json() as Promise<any>)
const forwardedFor = (client: string | undefined): Record<string, string> =>
  // the rightmost hop is the trusted proxy itself: the resolver walks past it
  client === undefined ? {} : { "x-forwarded-for": `${client}, 127.0.0.1` }

const payer = Signature.addressOf(PAYER_KEY)
let keys = 0

/** A signed permit request for the first open route of the server's feed. */
const permitRequest = (server: string) =>
  Effect.gen(function*() {
    const feed = yield* json(yield* fetchFrom(`${server}/api/v6/solver-feed`))
    const route = feed.feed.openRoutes[0]
    const request = {
      quoteId: route.quoteId,
      requestedAmountInRaw: route.minimumFillInRaw,
      payer,
      recipient: "0x2222222222222222222222222222222222222222",
      idempotencyKey: `${run}-${keys++}`
    }
    return JSON.stringify({ ...request, requestSignature: PermitMessage.sign(PermitMessage.build(request), PAYER_KEY) })
  })

const createPermit = (server: string, client?: string) =>
  Effect.flatMap(permitRequest(server), (body) =>
    fetchFrom(`${server}/api/v6/execution-permits`, {
      method: "POST",
      headers: { "content-type": "application/json", ...forwardedFor(client) },
      body
    }))

const chains = (server: string, client?: string) => fetchFrom(`${server}/v1/chains`, { headers: forwardedFor(client) })

/** A quote request that fails its schema: it still counts against the quote/build limit (admission comes first). */
const badQuote = (server: string, client?: string) =>
  fetchFrom(`${server}/v1/quote`, {
    method: "POST",
    headers: { "content-type": "application/json", ...forwardedFor(client) },
    body: "{}"
  })

const assertRetryAfter = (response: Response, atMost: number) => {
  const header = response.headers.get("retry-after") ?? ""
  assert.match(header, /^[1-9][0-9]*$/, "Retry-After")
  assert.isAtMost(Number(header), atMost)
}

/** Polls until `check` holds (at most 15 s, scaled: a bound on a wait). */
const eventually = <A>(what: string, attempt: Effect.Effect<A>, check: (a: A) => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + scaled(15_000)
    while (true) {
      const value = yield* attempt
      if (check(value)) return value
      if (Date.now() > deadline) return assert.fail(`${what}: not within ${scaled(15_000)} ms`)
      yield* Effect.sleep("200 millis")
    }
  })

// ---------------------------------------------------------------------------
// Two servers on one Redis, and one that trusts no proxy on the path
// ---------------------------------------------------------------------------

class Servers extends Context.Service<Servers, {
  /** Two replicas that trust the loopback proxy. */
  readonly a: string
  readonly b: string
  /** A replica on the same Redis that trusts only 10.0.0.0/8 (so not the test's loopback peer). */
  readonly untrusted: string
  readonly prefix: string
}>()("test/SharedRateLimits/Servers") {}

const sharedPrefix = prefixOf("shared")
const sharedConfig = (trustedProxies: typeof loopback) =>
  testConfig({
    permitRateLimit: 5,
    permitRateWindowSeconds: 60,
    aggregatorRateLimit: 6,
    aggregatorQuoteBuildRateLimit: 3,
    aggregatorRateWindowSeconds: 60,
    redisUrl: Redacted.make(REDIS_URL),
    redisPrefix: sharedPrefix,
    trustedProxies
  })

const ServersLive = Layer.effect(
  Servers,
  Effect.gen(function*() {
    const a = yield* build(serverLayer(sharedConfig(loopback)))
    const b = yield* build(serverLayer(sharedConfig(loopback)))
    const untrusted = yield* build(serverLayer(sharedConfig(elsewhere)))
    return { a, b, untrusted, prefix: sharedPrefix }
  })
)

layer(ServersLive, { excludeTestServices: true, timeout: scaled(60_000) })("two servers on one Redis", (it) => {
  it.effect("the permit limit is one budget over both servers: 5 admitted, then 429 with Retry-After", () =>
    Effect.gen(function*() {
      const { a, b, prefix } = yield* Servers
      const client = "203.0.113.10"
      const statuses: Array<number> = []
      let limited: Response | undefined
      for (let i = 0; i < 8; i++) {
        const response = yield* createPermit(i % 2 === 0 ? a : b, client)
        statuses.push(response.status)
        if (response.status === 429) limited ??= response
        else yield* json(response)
      }
      assert.deepStrictEqual(statuses, [201, 201, 201, 201, 201, 429, 429, 429])
      assertRetryAfter(limited!, 60)
      assert.match(limited!.headers.get("ratelimit-policy") ?? "", /^"permits";q=5;w=60$/)
      const body = yield* json(limited!)
      assert.strictEqual(body.ok, false)
      assert.strictEqual(body.error, "RATE_LIMITED")
      assert.deepStrictEqual(body.reasonCodes, ["PERMIT_RATE_LIMITED"])

      // the count lives in Redis under the configured prefix, with an expiry
      const stored = yield* Effect.promise(() => redisKeys(prefix))
      const ttl = stored.get(`${prefix}ratelimit:permits:${client}`)
      assert.isDefined(ttl, [...stored.keys()].join(", "))
      assert.isTrue(ttl! > 0 && ttl! <= 60_000, `PTTL ${ttl}`)

      // another forwarded client has its own budget, on either server
      assert.strictEqual((yield* createPermit(b, "203.0.113.20")).status, 201)
      assert.strictEqual((yield* createPermit(a, "203.0.113.20")).status, 201)
    }))

  it.effect("the /v1 limits are shared too: requests and quote/build, each with RateLimit headers", () =>
    Effect.gen(function*() {
      const { a, b } = yield* Servers
      const client = "198.51.100.7"
      const remaining: Array<string> = []
      for (let i = 0; i < 6; i++) {
        const response = yield* chains(i % 2 === 0 ? a : b, client)
        assert.strictEqual(response.status, 200)
        remaining.push(
          /^"requests";r=([0-9]+);t=[1-9][0-9]*$/.exec(response.headers.get("ratelimit") ?? "")?.[1] ?? "?"
        )
        yield* json(response)
      }
      assert.deepStrictEqual(remaining, ["5", "4", "3", "2", "1", "0"])
      const limited = yield* chains(b, client)
      assert.strictEqual(limited.status, 429)
      assertRetryAfter(limited, 60)
      assert.match(limited.headers.get("ratelimit") ?? "", /^"requests";r=0;t=[1-9][0-9]*$/)
      const body = yield* json(limited)
      assert.strictEqual(body.error, "RATE_LIMITED")
      assert.deepStrictEqual(body.reasonCodes, ["REQUEST_RATE_LIMITED"])
      assert.isAtLeast(body.retryAfterSeconds, 1)

      // quote and build POSTs: 3 per window over both servers (a 400 still counts)
      const writer = "198.51.100.8"
      const writes: Array<number> = []
      for (let i = 0; i < 4; i++) {
        const response = yield* badQuote(i % 2 === 0 ? b : a, writer)
        writes.push(response.status)
        const refused = yield* json(response)
        if (response.status === 429) assert.deepStrictEqual(refused.reasonCodes, ["QUOTE_BUILD_RATE_LIMITED"])
      }
      assert.deepStrictEqual(writes, [400, 400, 400, 429])
    }))

  it.effect("from an untrusted peer the forwarding headers are ignored: every request counts for the peer", () =>
    Effect.gen(function*() {
      const { untrusted, prefix } = yield* Servers
      const statuses: Array<number> = []
      for (let i = 0; i < 7; i++) {
        const response = yield* chains(untrusted, `192.0.2.${i + 1}`)
        statuses.push(response.status)
        yield* json(response)
      }
      assert.deepStrictEqual(statuses, [200, 200, 200, 200, 200, 200, 429])
      const stored = [...(yield* Effect.promise(() => redisKeys(prefix))).keys()]
      assert.include(stored, `${prefix}ratelimit:v1-requests:127.0.0.1`)
      assert.isFalse(stored.some((key) => key.includes("192.0.2.")), stored.join(", "))
      // a Forwarded header from the same peer is ignored as well
      const forwarded = yield* fetchFrom(`${untrusted}/v1/chains`, { headers: { forwarded: "for=192.0.2.99" } })
      assert.strictEqual(forwarded.status, 429)
      yield* json(forwarded)
    }))
})

// ---------------------------------------------------------------------------
// Redis down, silent, and unreachable at start
// ---------------------------------------------------------------------------

/**
 * A TCP proxy to Redis that the test can take down (connections reset, new ones
 * refused) or stall (bytes held, nothing answered), and bring back.
 */
const redisProxy = Effect.acquireRelease(
  Effect.promise(async () => {
    const target = new URL(REDIS_URL)
    const pairs = new Set<{ client: Socket; upstream: Socket }>()
    let stalled = false
    let server: NetServer | undefined
    const listen = (port: number) =>
      new Promise<number>((resolve, reject) => {
        const s = createServer((client) => {
          const upstream = connect(Number(target.port || 6379), target.hostname)
          const pair = { client, upstream }
          pairs.add(pair)
          const close = () => {
            pairs.delete(pair)
            client.destroy()
            upstream.destroy()
          }
          for (const socket of [client, upstream]) {
            socket.on("error", close)
            socket.on("close", close)
          }
          upstream.pipe(client)
          if (!stalled) client.pipe(upstream)
        })
        s.once("error", reject)
        s.listen(port, "127.0.0.1", () => resolve((s.address() as AddressInfo).port))
        server = s
      })
    const port = await listen(0)
    const closeServer = () =>
      new Promise<void>((resolve) => {
        if (server === undefined) return resolve()
        server.close(() => resolve())
        server = undefined
        for (const { client, upstream } of pairs) {
          client.destroy()
          upstream.destroy()
        }
        pairs.clear()
      })
    return {
      port,
      down: closeServer,
      up: () => listen(port).then(() => undefined),
      /** Holds every byte sent to Redis (the client waits for answers that do not come). */
      stall: () => {
        stalled = true
        for (const { client, upstream } of pairs) client.unpipe(upstream)
      },
      /** Delivers the held bytes in order and forwards again. */
      resume: () => {
        stalled = false
        for (const { client, upstream } of pairs) client.pipe(upstream)
      },
      close: closeServer
    }
  }),
  (proxy) => Effect.promise(proxy.close)
)

class Outage extends Context.Service<Outage, {
  readonly server: string
  readonly proxy: Effect.Success<typeof redisProxy>
}>()("test/SharedRateLimits/Outage") {}

const OutageLive = Layer.effect(
  Outage,
  Effect.gen(function*() {
    const proxy = yield* redisProxy
    const server = yield* build(serverLayer(testConfig({
      permitRateLimit: 1000,
      aggregatorRateLimit: 1000,
      redisUrl: Redacted.make(`redis://127.0.0.1:${proxy.port}`),
      redisPrefix: prefixOf("outage")
    })))
    return { server, proxy }
  })
)

/** A 503 of the solver interface: AUTHORITY_UNAVAILABLE / RATE_LIMITER_UNAVAILABLE with Retry-After. */
const assertSolverUnavailable = (response: Response) =>
  Effect.gen(function*() {
    const body = yield* json(response)
    assert.strictEqual(response.status, 503, JSON.stringify(body))
    assert.strictEqual(response.headers.get("retry-after"), "5")
    assert.strictEqual(response.headers.get("cache-control"), "no-store")
    assert.deepStrictEqual(
      { ok: body.ok, error: body.error, reasonCodes: body.reasonCodes },
      { ok: false, error: "AUTHORITY_UNAVAILABLE", reasonCodes: ["RATE_LIMITER_UNAVAILABLE"] }
    )
  })

/** A 503 of the aggregator interface: SERVICE_UNAVAILABLE / RATE_LIMITER_UNAVAILABLE with Retry-After. */
const assertAggregatorUnavailable = (response: Response) =>
  Effect.gen(function*() {
    const body = yield* json(response)
    assert.strictEqual(response.status, 503, JSON.stringify(body))
    assert.strictEqual(response.headers.get("retry-after"), "5")
    assert.strictEqual(response.headers.get("cache-control"), "no-store")
    assert.deepStrictEqual(
      { error: body.error, reasonCodes: body.reasonCodes, retryAfterSeconds: body.retryAfterSeconds },
      { error: "SERVICE_UNAVAILABLE", reasonCodes: ["RATE_LIMITER_UNAVAILABLE"], retryAfterSeconds: 5 }
    )
    assert.strictEqual(body.action, "RETRY_LATER")
    assert.strictEqual(body.retryable, true)
  })

layer(OutageLive, { excludeTestServices: true, timeout: scaled(60_000) })("Redis outages", (it) => {
  it.effect("Redis down: permit creation and /v1 answer 503 with Retry-After, the rest is served; then recovery", () =>
    Effect.gen(function*() {
      const { server, proxy } = yield* Outage
      assert.strictEqual((yield* createPermit(server)).status, 201)
      assert.strictEqual((yield* chains(server)).status, 200)

      yield* Effect.promise(proxy.down)
      yield* assertSolverUnavailable(yield* createPermit(server))
      yield* assertAggregatorUnavailable(yield* chains(server))
      yield* assertAggregatorUnavailable(yield* badQuote(server))
      // what no limit guards is still served
      assert.strictEqual((yield* fetchFrom(`${server}/api/v6/solver-feed`)).status, 200)
      assert.strictEqual((yield* fetchFrom(`${server}/v1/health`)).status, 200)

      yield* Effect.promise(proxy.up)
      yield* eventually("/v1 after Redis is back", chains(server), (r) => r.status === 200)
      assert.strictEqual((yield* createPermit(server)).status, 201)
    }))

  it.effect("Redis that does not answer: 503 after the limiter's 1 s timeout; then recovery", () =>
    Effect.gen(function*() {
      const { server, proxy } = yield* Outage
      assert.strictEqual((yield* chains(server)).status, 200)
      proxy.stall()
      const started = Date.now()
      yield* assertAggregatorUnavailable(yield* chains(server))
      const elapsed = Date.now() - started
      assert.isTrue(elapsed >= 900 && elapsed < scaled(5000), `answered after ${elapsed} ms`)
      yield* assertSolverUnavailable(yield* createPermit(server))
      proxy.resume()
      yield* eventually("/v1 after Redis answers again", chains(server), (r) => r.status === 200)
      assert.strictEqual((yield* createPermit(server)).status, 201)
    }))
})

describe("shutdown", () => {
  it.live("closing the limiter while Redis does not answer ends within about 2 s", () =>
    Effect.gen(function*() {
      const proxy = yield* redisProxy
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        RedisRateLimit.layer({ url: Redacted.make(`redis://127.0.0.1:${proxy.port}`), prefix: prefixOf("shutdown") }),
        scope
      )
      const limiter = RateLimit.makeShared(Context.get(context, RateLimiter.RateLimiter), { timeoutMillis: 300 })
      assert.strictEqual((yield* limiter.consume("198.51.100.9")).remaining, 599)
      proxy.stall()
      assert.isTrue(RateLimit.isStoreUnavailable(yield* Effect.flip(limiter.consume("198.51.100.9"))))
      const started = Date.now()
      yield* Scope.close(scope, Exit.void)
      assert.isBelow(Date.now() - started, scaled(4000))
    }).pipe(Effect.scoped, Effect.provideService(References.MinimumLogLevel, "None")), { timeout: scaled(20_000) })
})

/** A local port nothing listens on. */
const closedPort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port
      s.close(() => resolve(port))
    })
  })
)

describe("start-up with an unreachable REDIS_URL", () => {
  it.live(
    "the server layer fails with a message naming REDIS_URL and the host, not the password",
    () =>
      Effect.gen(function*() {
        const port = yield* closedPort
        const exit = yield* Effect.exit(Effect.scoped(build(serverLayer(testConfig({
          redisUrl: Redacted.make(`redis://:s3cret-pw@127.0.0.1:${port}/0`)
        })))))
        const error = Exit.findErrorOption(exit)
        assert.isTrue(Option.isSome(error))
        const message = String((error as Option.Some<any>).value?.message)
        assert.include(message, `REDIS_URL: cannot connect to redis://127.0.0.1:${port}/0`)
        assert.notInclude(message, "s3cret-pw")
      }),
    { timeout: scaled(30_000) }
  )

  it("svc serve exits 2 with one line naming REDIS_URL", { timeout: scaled(60_000) }, async () => {
    const root = fileURLToPath(new URL("../../../", import.meta.url))
    const port = await Effect.runPromise(closedPort)
    const child = spawn(join(root, "node_modules/.bin/node"), [join(root, "packages/cli/src/bin.ts"), "serve"], {
      env: {
        ...process.env,
        PORT: "0",
        HOST: "127.0.0.1",
        SVC_DATA_DIR: mkdtempSync(join(tmpdir(), "svc-redis-start-")),
        SVC_SIGNER_KEY: AUTHORITY_KEY,
        SVC_LOG_LEVEL: "none",
        REDIS_URL: `redis://user:s3cret-pw@127.0.0.1:${port}`
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
    assert.strictEqual(code, 2, stderr)
    assert.notInclude(stdout, "svc listening")
    assert.match(
      stderr,
      new RegExp(`^svc: REDIS_URL: cannot connect to redis://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`)
    )
    assert.notInclude(stderr, "s3cret-pw")
  })
})

// ---------------------------------------------------------------------------
// Configuration keys
// ---------------------------------------------------------------------------

const configOf = (env: Record<string, string>) =>
  Effect.exit(ServerConfig.fromProvider(ConfigProvider.fromUnknown(env)))
const errorOf = (exit: Exit.Exit<ServerConfig.ServerConfig, ServerConfig.ConfigInvalid>) =>
  Exit.isFailure(exit) ? String(Option.getOrUndefined(Exit.findErrorOption(exit))?.message) : "(no error)"

describe("configuration", () => {
  it.effect("REDIS_URL, SVC_REDIS_PREFIX and SVC_TRUSTED_PROXIES, with their defaults", () =>
    Effect.gen(function*() {
      const defaults = yield* ServerConfig.fromProvider(ConfigProvider.fromUnknown({}))
      assert.isUndefined(defaults.redisUrl)
      assert.strictEqual(defaults.redisPrefix, "svc:")
      assert.deepStrictEqual(defaults.trustedProxies, [])

      const set = yield* ServerConfig.fromProvider(ConfigProvider.fromUnknown({
        REDIS_URL: "rediss://default:pw@redis.internal:6380/2",
        SVC_REDIS_PREFIX: "svc-eu:",
        SVC_TRUSTED_PROXIES: " 10.0.0.0/8, 192.168.1.5 ,::1,fd00::/8 "
      }))
      assert.strictEqual(Redacted.value(set.redisUrl!), "rediss://default:pw@redis.internal:6380/2")
      assert.strictEqual(set.redisPrefix, "svc-eu:")
      assert.deepStrictEqual(set.trustedProxies!.map(IpNetwork.format), [
        "10.0.0.0/8",
        "192.168.1.5/32",
        "::1/128",
        "fd00::/8"
      ])
    }))

  it.effect("invalid values are start-up errors naming the key (a URL's value is never shown)", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        errorOf(yield* configOf({ SVC_TRUSTED_PROXIES: "10.0.0.0/8, proxy.internal" })),
        "SVC_TRUSTED_PROXIES: proxy.internal is not an IP address or CIDR range"
      )
      assert.strictEqual(
        errorOf(yield* configOf({ SVC_TRUSTED_PROXIES: "10.0.0.0/33" })),
        "SVC_TRUSTED_PROXIES: 10.0.0.0/33 is not an IP address or CIDR range"
      )
      const redis = errorOf(yield* configOf({ REDIS_URL: "http://user:s3cret@redis.internal:6379" }))
      assert.strictEqual(redis, "REDIS_URL: must be a redis:// or rediss:// URL (value not shown)")
      assert.match(errorOf(yield* configOf({ SVC_REDIS_PREFIX: "has space" })), /^SVC_REDIS_PREFIX: /)
    }))
})
