/**
 * `node scripts/api-examples.ts`: records the request and response examples of
 * every operation of the HTTP API into `packages/protocol/src/ApiExamples.json`,
 * which `openapi.json` carries (`ApiDocument.make`). The examples are committed
 * vectors, not live data, so that `openapi.json` (a cacheable document) is the
 * same at every publication.
 *
 * It starts `svc serve` (this workspace's) with the demo catalog, a fixed
 * authority key, a fixed aggregator secret and `SVC_PUBLIC_URL=https://solver.example`,
 * then walks the flows a client walks: the discovery documents, the feed and its
 * event stream, a route's detail, a permit request message, the permit signed by
 * a public test wallet, its status; the aggregator's chains, tokens, a quote,
 * both build stages and the status of the fill. Each request and its answer
 * (status and body) are written as they were sent and received. The permit
 * creation's first example is the answer a page's try-it gets (the first example
 * is the one it offers): the request with a signature made over another message.
 *
 * Run it again when a response schema changes (a test checks every example
 * against the document's schemas).
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PermitMessage, Signature } from "../packages/protocol/src/index.ts"
import { ROOT } from "./packages.ts"

/** Where the examples go. */
export const EXAMPLES_FILE = join(ROOT, "packages/protocol/src/ApiExamples.json")

/** The public URL the recorded documents name. */
const PUBLIC_URL = "https://solver.example"

/** Public test keys (never fund them): the authority of the recorded deployment, and the paying wallet. */
const AUTHORITY_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
const WALLET_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"

/** One recorded exchange. */
export interface Exchange {
  readonly summary: string
  readonly request: {
    readonly path?: Record<string, string>
    readonly query?: Record<string, string>
    readonly headers?: Record<string, string>
    readonly body?: unknown
  }
  readonly response: { readonly status: number; readonly contentType: string; readonly body: unknown }
}

/** A free TCP port of 127.0.0.1. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-api-examples-"))
  const port = await freePort()
  const child = spawn(process.execPath, [join(ROOT, "packages/cli/src/bin.ts"), "serve"], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      SVC_DATA_DIR: dir,
      SVC_PROFILE: "demo",
      SVC_SIGNER_KEY: AUTHORITY_KEY,
      SVC_SERVER_SECRET: `0x${"5e".repeat(32)}`,
      SVC_PUBLIC_URL: PUBLIC_URL,
      SVC_LOG_LEVEL: "none"
    },
    stdio: ["ignore", "pipe", "inherit"]
  })
  try {
    await new Promise<void>((resolve, reject) => {
      let out = ""
      child.stdout.on("data", (d: Buffer) => {
        out += d
        if (/svc listening on /.test(out)) resolve()
      })
      child.once("exit", (code) => reject(new Error(`svc serve exited ${code}: ${out}`)))
    })
    // it listens here; the documents it serves name its public URL
    const origin = `http://127.0.0.1:${port}`
    const examples: Record<string, Array<Exchange>> = {}
    const record = async (
      operationId: string,
      summary: string,
      method: "GET" | "POST",
      path: string,
      request: Exchange["request"] = {}
    ) => {
      const url = new URL(path.replace(/\{(\w+)\}/g, (_, k: string) => request.path?.[k] ?? ""), origin)
      for (const [k, v] of Object.entries(request.query ?? {})) url.searchParams.set(k, v)
      const response = await fetch(
        url,
        method === "GET"
          ? { method, headers: { ...request.headers } }
          : {
            method,
            headers: { "content-type": "application/json", ...request.headers },
            body: JSON.stringify(request.body)
          }
      )
      const contentType = (response.headers.get("content-type") ?? "").split(";")[0]!
      const body = contentType === "application/json" ? await response.json() : await response.text()
      ;(examples[operationId] ??= []).push({
        summary,
        request,
        response: { status: response.status, contentType, body }
      })
      return body as any
    }

    await record("getSolverManifest", "The solver manifest", "GET", "/.well-known/svc-solver.json")
    await record("getSolverDiscovery", "The solver manifest", "GET", "/api/v6/solver-discovery")
    await record(
      "getOnchainDiscovery",
      "The on-chain discovery document",
      "GET",
      "/.well-known/svc-onchain-discovery.json"
    )
    await record("getStandardsManifest", "The standards manifest", "GET", "/.well-known/svc-standards.json")
    const feed = (await record("getSolverFeed", "The signed feed", "GET", "/api/v6/solver-feed")).feed
    await record("getSolverFeed", "The feed of the routes from one source chain", "GET", "/api/v6/solver-feed", {
      query: { sourceChainId: "8453" }
    })
    // the stream's first event, read and cut there
    {
      const response = await fetch(new URL("/api/v6/solver-feed/events", origin))
      const reader = response.body!.getReader()
      let text = ""
      while (!/\nevent: feed\n[\s\S]*?\n\n/.test(text)) {
        const { done, value } = await reader.read()
        if (done) break
        text += new TextDecoder().decode(value)
      }
      await reader.cancel()
      ;(examples.streamSolverFeed ??= []).push({
        summary: "The stream's start: the retry interval and the current feed",
        request: {},
        response: { status: response.status, contentType: "text/event-stream", body: text }
      })
    }
    const route = feed.openRoutes.find((r: { sourceChainId: string }) => r.sourceChainId === "8453") ??
      feed.openRoutes[0]
    await record("getRouteDetail", "A route's detail", "GET", "/api/v6/routes/{routeId}", {
      path: { routeId: route.routeId }
    })
    const wallet = Signature.addressOf(WALLET_KEY)
    const intent = {
      quoteId: route.quoteId,
      requestedAmountInRaw: (BigInt(route.minimumFillInRaw) * 25n).toString(),
      payer: wallet,
      recipient: wallet,
      idempotencyKey: "wallet-7f3c1a9e-0001"
    }
    const prepared = await record(
      "buildPermitRequestMessage",
      "The message the payer signs",
      "POST",
      "/api/v6/execution-permits/request-message",
      { body: intent }
    )
    const requestSignature = PermitMessage.sign(prepared.message ?? PermitMessage.build(intent), WALLET_KEY)
    // first, what a page's try-it sends (the first example is the one it offers): a signature the payer's
    // wallet made over another request's message (this one's idempotency key differs)
    await record(
      "createExecutionPermit",
      "Refused: the signature was not made over this request's message (a page cannot sign for the payer)",
      "POST",
      "/api/v6/execution-permits",
      { body: { ...intent, idempotencyKey: "wallet-7f3c1a9e-0002", requestSignature } }
    )
    const created = await record("createExecutionPermit", "A permit, issued", "POST", "/api/v6/execution-permits", {
      body: { ...intent, requestSignature }
    })
    await record(
      "createExecutionPermit",
      "The same request again: the existing permit",
      "POST",
      "/api/v6/execution-permits",
      {
        body: { ...intent, requestSignature }
      }
    )
    const fillId = created.permit?.permit?.fillId ?? created.envelope?.permit?.fillId
    await record("getExecutionPermit", "A permit's status", "GET", "/api/v6/execution-permits/{fillId}", {
      path: { fillId }
    })

    await record("aggregator_manifest", "The aggregator manifest", "GET", "/.well-known/svc-aggregator.json")
    const chains = await record("aggregator_chains", "Chains, pairs and routes", "GET", "/v1/chains")
    await record("aggregator_tokens", "The tokens of one chain", "GET", "/v1/tokens", { query: { chainId: "8453" } })
    await record("aggregator_health", "Health", "GET", "/v1/health")
    const pair = chains.pairs.find((p: { fromChainId: number; toChainId: number }) =>
      p.fromChainId === 8453 && p.toChainId === 56
    ) ?? chains.pairs[0]
    const { routeId: _routeId, ...pairFields } = pair
    const quote = await record("aggregator_quote", "A quote", "POST", "/v1/quote", {
      body: { ...pairFields, amountIn: "25000000", userAddress: wallet }
    })
    const build = {
      quoteToken: quote.quoteToken,
      quoteId: quote.quoteId,
      routeId: quote.routeId,
      userAddress: wallet,
      idempotencyKey: "wallet-7f3c1a9e-0003"
    }
    const stage1 = await record("aggregator_build", "Stage 1: the message to sign", "POST", "/v1/build", {
      body: build
    })
    const signature = PermitMessage.sign(stage1.signingPayload.message, WALLET_KEY)
    const tx = await record("aggregator_build", "Stage 2: the transaction", "POST", "/v1/build", {
      body: { ...build, requestSignature: signature }
    })
    await record("aggregator_status", "A fill's status", "GET", "/v1/status", { query: { fillId: tx.fillId } })

    writeFileSync(
      EXAMPLES_FILE,
      `${
        JSON.stringify(
          {
            $comment:
              "Recorded by scripts/api-examples.ts from svc serve (demo catalog, a public test authority key, SVC_PUBLIC_URL https://solver.example) and a public test wallet (0x3C44…93BC, key 0x5de4…365a): the examples of openapi.json. Regenerate with node scripts/api-examples.ts.",
            recordedAt: new Date().toISOString().slice(0, 10),
            operations: examples
          },
          null,
          2
        )
      }\n`
    )
    process.stdout.write(
      `${EXAMPLES_FILE}: ${Object.keys(examples).length} operations, ${
        Object.values(examples).flat().length
      } exchanges\n`
    )
  } finally {
    child.kill("SIGTERM")
    await new Promise((resolve) => child.once("exit", resolve))
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await main()
