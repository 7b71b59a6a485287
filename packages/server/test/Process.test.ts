/**
 * The server as a process (`svc serve`): a created permit survives a kill after
 * the 201; dataVersion keeps increasing across restarts; SIGTERM ends event
 * streams with publication-closed and exits 0.
 */
import { assert, describe, it } from "@effect/vitest"
import { PermitMessage, Signature } from "@svc/protocol"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import { connect, createServer as createNetServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { scaled } from "../../../test/support/time.ts"
import { AUTHORITY_KEY, PAYER_KEY, sseReader } from "./support/server.ts"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const nodeBin = join(root, "node_modules/.bin/node")
const bin = join(root, "packages/cli/src/bin.ts")

interface Running {
  readonly child: ChildProcess
  readonly url: string
  readonly exit: Promise<number | null>
  /** Everything written to stdout so far. */
  readonly stdout: () => string
}

const start = (dataDir: string, extraEnv: Record<string, string> = {}): Promise<Running> =>
  new Promise((resolve, reject) => {
    const child = spawn(nodeBin, [bin, "serve"], {
      env: {
        ...process.env,
        PORT: "0",
        HOST: "127.0.0.1",
        SVC_DATA_DIR: dataDir,
        SVC_SIGNER_KEY: AUTHORITY_KEY,
        SVC_LOG_LEVEL: "warning",
        ...extraEnv
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const exit = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    let out = ""
    let err = ""
    child.stderr!.on("data", (d) => (err += d))
    child.stdout!.on("data", (d) => {
      out += d
      const m = /svc listening on (\S+)/.exec(out)
      if (m !== null) resolve({ child, url: m[1]!, exit, stdout: () => out })
    })
    exit.then((code) => reject(new Error(`server exited ${code}: ${err}`)))
    setTimeout(() => reject(new Error(`server did not start: ${out} ${err}`)), scaled(30_000)).unref()
  })

const payer = Signature.addressOf(PAYER_KEY)

const createPermit = async (url: string, key: string, headers: Record<string, string> = {}) => {
  const feed = await (await fetch(`${url}/api/v6/solver-feed`)).json() as any
  const route = feed.feed.openRoutes[0]
  const request = {
    quoteId: route.quoteId,
    requestedAmountInRaw: route.minimumFillInRaw,
    payer,
    recipient: "0x2222222222222222222222222222222222222222",
    idempotencyKey: key
  }
  const requestSignature = PermitMessage.sign(PermitMessage.build(request), PAYER_KEY)
  const response = await fetch(`${url}/api/v6/execution-permits`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ ...request, requestSignature })
  })
  return { status: response.status, body: await response.json() as any, dataVersion: BigInt(feed.feed.dataVersion) }
}

describe("svc serve as a process", () => {
  it(
    "a permit answered 201 survives SIGKILL; dataVersion increases across the restart",
    { timeout: scaled(90_000) },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "svc-process-"))
      const first = await start(dataDir)
      const created = await createPermit(first.url, "durable-key-0001")
      assert.strictEqual(created.status, 201)
      first.child.kill("SIGKILL")
      await first.exit
      const second = await start(dataDir)
      try {
        const status = await fetch(`${second.url}/api/v6/execution-permits/${created.body.permit.fillId}`)
        assert.strictEqual(status.status, 200)
        assert.deepStrictEqual((await status.json() as any).permit, created.body.permit)
        const feed = await (await fetch(`${second.url}/api/v6/solver-feed`)).json() as any
        assert.isTrue(BigInt(feed.feed.dataVersion) > created.dataVersion)
        // the replay after the restart is still the same permit
        const replay = await createPermit(second.url, "durable-key-0001")
        assert.strictEqual(replay.status, 200)
        assert.strictEqual(replay.body.permit.fillId, created.body.permit.fillId)
      } finally {
        second.child.kill("SIGKILL")
        await second.exit
      }
    }
  )

  it("SIGTERM sends publication-closed to open streams, then exits 0", { timeout: scaled(60_000) }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-process-"))
    const server = await start(dataDir)
    const stream = sseReader(await fetch(`${server.url}/api/v6/solver-feed/events`))
    const feed = await stream.nextEvent()
    assert.strictEqual(feed?.event, "feed")
    // stdout carries only the start-up lines; logs are JSON lines on stderr
    for (const line of server.stdout().trim().split("\n")) assert.match(line, /^svc /)
    server.child.kill("SIGTERM")
    const closed = await stream.nextEvent(scaled(10_000))
    assert.strictEqual(closed?.event, "publication-closed")
    assert.strictEqual(await stream.next(scaled(5000)), undefined, "the stream ends")
    assert.strictEqual(await server.exit, 0)
  })

  it("SIGTERM answers a request whose body is still arriving 503 with Connection: close", {
    timeout: scaled(60_000)
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-process-"))
    const server = await start(dataDir)
    const { hostname, port } = new URL(server.url)
    const socket = connect(Number(port), hostname)
    let answer = ""
    socket.setEncoding("utf8")
    socket.on("data", (d) => (answer += d))
    socket.on("error", () => {})
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()))
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()))
    socket.write(
      "POST /api/v6/execution-permits HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\n" +
        "Content-Length: 4000\r\nX-Request-Id: slow-upload-1\r\n\r\n{"
    )
    // a slow upload: a byte every 100 ms, far from its 4,000
    const trickle = setInterval(() => socket.writable && socket.write(" "), 100)
    try {
      await new Promise((r) => setTimeout(r, 500))
      server.child.kill("SIGTERM")
      await closed
    } finally {
      clearInterval(trickle)
    }
    const [head = "", body = ""] = answer.split("\r\n\r\n")
    assert.match(head, /^HTTP\/1\.1 503 /)
    assert.match(head, /\r\nconnection: close\r\n/i)
    assert.match(head, /\r\nretry-after: \d+\r\n/i)
    assert.deepStrictEqual(JSON.parse(body), {
      ok: false,
      error: "AUTHORITY_UNAVAILABLE",
      reasonCodes: ["SHUTTING_DOWN"],
      diagnostics: { detail: "the server is stopping; retry (another replica, or this one once restarted, answers)" }
    })
    assert.strictEqual(await server.exit, 0)
  })

  it(
    "SVC_METRICS_PORT: Prometheus text on its own listener, never on the public port",
    { timeout: scaled(60_000) },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "svc-process-"))
      const metricsPort = await new Promise<number>((resolve) => {
        const probe = createNetServer()
        probe.listen(0, "127.0.0.1", () => {
          const address = probe.address()
          probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
        })
      })
      const server = await start(dataDir, { SVC_METRICS_PORT: String(metricsPort) })
      try {
        const created = await createPermit(server.url, "metrics-key-0001")
        assert.strictEqual(created.status, 201)
        assert.strictEqual((await fetch(`${server.url}/metrics`)).status, 404, "not on the public port")
        const scrape = async () => {
          const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
          assert.strictEqual(response.status, 200)
          assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/)
          return response.text()
        }
        // holds are sampled at the publisher's next tick (a second)
        let text = await scrape()
        const sampled = Date.now() + scaled(10_000)
        while (Date.now() < sampled && !/^svc_asset_hold_raw\{[^}]*\} [1-9]/m.test(text)) {
          await new Promise((r) => setTimeout(r, 100))
          text = await scrape()
        }
        for (
          const expected of [
            /^# TYPE svc_http_requests_total counter$/m,
            /^svc_http_requests_total\{.*operation="POST \/api\/v6\/execution-permits".*status="201".*\} 1$/m,
            /^svc_http_request_duration_ms_bucket\{/m,
            // the fast path's feed is counted too
            /^svc_http_requests_total\{.*operation="GET \/api\/v6\/solver-feed".*status="200".*\} [1-9]/m,
            /^svc_permits_issued_total\{route="0x[0-9a-f]{64}"\} 1$/m,
            /^svc_publications_total [1-9]/m,
            /^svc_publication_duration_ms_count [1-9]/m,
            /^svc_route_capacity_in_raw\{route="0x[0-9a-f]{64}"\} /m,
            /^svc_route_open\{route="0x[0-9a-f]{64}"\} 1$/m,
            /^svc_asset_hold_raw\{asset="0x[0-9a-f]{64}"\} [1-9]/m,
            /^# TYPE svc_event_streams gauge$/m
          ]
        ) assert.match(text, expected)
      } finally {
        server.child.kill("SIGKILL")
        await server.exit
      }
    }
  )

  it("OTEL_EXPORTER_OTLP_ENDPOINT: spans reach an OTLP/HTTP collector, continuing the caller's traceparent", {
    timeout: scaled(60_000)
  }, async () => {
    // a collector: OTLP/HTTP with JSON bodies on /v1/traces
    const batches: Array<any> = []
    const collector = createHttpServer((req, res) => {
      let body = ""
      req.setEncoding("utf8")
      req.on("data", (d) => (body += d))
      req.on("end", () => {
        if (req.method === "POST" && req.url === "/v1/traces") batches.push(JSON.parse(body))
        res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", () => resolve()))
    const address = collector.address()
    const collectorPort = typeof address === "object" && address !== null ? address.port : 0
    const dataDir = mkdtempSync(join(tmpdir(), "svc-process-"))
    const server = await start(dataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_SERVICE_NAME: "svc-under-test"
    })
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const callerSpan = "00f067aa0ba902b7"
    try {
      const created = await createPermit(server.url, "traced-key-0001", {
        traceparent: `00-${traceId}-${callerSpan}-01`
      })
      assert.strictEqual(created.status, 201)
      const spansOf = () =>
        batches.flatMap((batch) =>
          batch.resourceSpans.flatMap((rs: any) =>
            rs.scopeSpans.flatMap((ss: any) => ss.spans.map((span: any) => ({ ...span, resource: rs.resource })))
          )
        ).filter((span: any) => span.traceId === traceId)
      const exported = Date.now() + scaled(10_000)
      while (Date.now() < exported && !spansOf().some((span: any) => span.name === "Permits.create")) {
        await new Promise((r) => setTimeout(r, 100))
      }
      const spans = spansOf()
      const serverSpan = spans.find((span: any) => span.parentSpanId === callerSpan)
      assert.isDefined(serverSpan, "the request's server span continues the caller's trace")
      const attributes = Object.fromEntries(
        serverSpan.attributes.map((a: any) => [a.key, Object.values(a.value)[0]])
      )
      assert.strictEqual(attributes["http.request.method"], "POST")
      assert.strictEqual(String(attributes["http.response.status_code"]), "201")
      const create = spans.find((span: any) => span.name === "Permits.create")
      assert.isDefined(create, "the engine's spans are exported under the request")
      const service = create.resource.attributes.find((a: any) => a.key === "service.name")
      assert.strictEqual(service?.value.stringValue, "svc-under-test")
    } finally {
      server.child.kill("SIGKILL")
      await server.exit
      collector.close()
    }
  })

  it("OTEL_EXPORTER_OTLP_PROTOCOL=grpc is refused at start with the variable named", {
    timeout: scaled(60_000)
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-process-"))
    const failure = await start(dataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc"
    }).then(() => "started", (e: Error) => e.message)
    assert.match(failure, /OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported/)
  })

  it("svc admin acts on a running server through its store", { timeout: scaled(90_000) }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-process-"))
    const server = await start(dataDir)
    const admin = async (...args: Array<string>) =>
      JSON.parse(
        (await promisify(execFile)(nodeBin, [bin, "admin", ...args], {
          env: { ...process.env, SVC_DATA_DIR: dataDir },
          encoding: "utf8"
        })).stdout
      )
    const waitFor = async (predicate: () => Promise<boolean>) => {
      const deadline = Date.now() + scaled(10_000)
      while (Date.now() < deadline) {
        if (await predicate().catch(() => false)) return
        await new Promise((r) => setTimeout(r, 100))
      }
      throw new Error(`condition not reached within ${scaled(10_000)} ms`)
    }
    try {
      const feed = await (await fetch(`${server.url}/api/v6/solver-feed`)).json() as any
      const routeId = feed.feed.openRoutes[0].routeId
      assert.strictEqual((await admin("route", routeId, "PAUSED")).routes[routeId].executionStatus, "PAUSED")
      await waitFor(async () => {
        const detail = await (await fetch(`${server.url}/api/v6/routes/${routeId}`)).json() as any
        return detail.route.executionStatus === "PAUSED" && detail.route.open === false
      })
      assert.strictEqual((await admin("pause", "--reason", "maintenance")).paused, true)
      await waitFor(async () => (await fetch(`${server.url}/api/v6/solver-feed`)).status === 503)
      await admin("resume")
      await admin("route", routeId, "RESET")
      await waitFor(async () => (await fetch(`${server.url}/api/v6/solver-feed`)).status === 200)
    } finally {
      server.child.kill("SIGKILL")
      await server.exit
    }
  })
})
