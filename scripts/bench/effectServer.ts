/**
 * The framework reference (a child process of the server bench): the smallest
 * Effect 4 HTTP server — `HttpRouter.serve(..., { disableLogger: true })` on
 * `@effect/platform-node`'s NodeHttpServer, exactly as svc is served — answering
 * from memory with the same bytes and headers as the baseline. svc ÷ this is the
 * cost of svc's own request path; this ÷ node:http is the framework's.
 *
 * @effect/platform-node is a dependency of packages/server, not of the
 * workspace root: it is resolved from packages/server (no new dependency).
 */
import { Context, Effect, Layer, Scope } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { serveParent } from "./util.ts"

interface Variant {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: Uint8Array
}

interface Resource {
  readonly path: string
  readonly etag: string
  readonly identity: Variant
  readonly br?: Variant | undefined
  readonly gzip?: Variant | undefined
  readonly notModified: Variant
}

interface PlatformNode {
  readonly NodeHttpServer: {
    readonly layer: (
      create: typeof createServer,
      options: { readonly port: number; readonly host: string }
    ) => Layer.Layer<HttpServer.HttpServer, unknown>
  }
}

const requireFromServer = createRequire(new URL("../../packages/server/package.json", import.meta.url))
const platform = (await import(pathToFileURL(requireFromServer.resolve("@effect/platform-node")).href)) as PlatformNode

let resources = new Map<string, Resource>()
let counter = 0
const tag = Math.random().toString(16).slice(2, 10)

/** Headers without the ones Effect sets itself from the body. */
const bare = (headers: Record<string, string>): Record<string, string> => {
  const { "content-type": _type, "content-length": _length, ...rest } = headers
  return rest
}

const handler = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const q = request.url.indexOf("?")
  const resource = resources.get(q === -1 ? request.url : request.url.slice(0, q))
  if (resource === undefined) return HttpServerResponse.empty({ status: 404 })
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER
  const requestId = `${tag}-${counter.toString(36)}`
  const inm = request.headers["if-none-match"]
  if (inm !== undefined && inm.replace(/^W\//, "") === resource.etag.replace(/^W\//, "")) {
    return HttpServerResponse.empty({
      status: 304,
      headers: { ...bare(resource.notModified.headers), "x-request-id": requestId }
    })
  }
  const ae = request.headers["accept-encoding"] ?? ""
  const variant = ae.includes("br") && resource.br !== undefined
    ? resource.br
    : ae.includes("gzip") && resource.gzip !== undefined
    ? resource.gzip
    : resource.identity
  return HttpServerResponse.uint8Array(variant.body, {
    status: variant.status,
    contentType: variant.headers["content-type"] ?? "application/json",
    headers: { ...bare(variant.headers), "x-request-id": requestId }
  })
})

const app = HttpRouter.serve(HttpRouter.add("*", "*", handler), { disableLogger: true, disableListenLog: true }).pipe(
  Layer.provideMerge(platform.NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

const scope = await Effect.runPromise(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(app, scope))
const address = Context.get(context as Context.Context<HttpServer.HttpServer>, HttpServer.HttpServer).address

serveParent(async (message) => {
  switch (message.type) {
    case "listen":
      return { port: Number(new URL(HttpServer.formatAddress(address)).port) }
    case "resources":
      resources = new Map((message.resources as ReadonlyArray<Resource>).map((r) => [r.path, r]))
      return { count: resources.size }
    case "cpu": {
      const u = process.cpuUsage()
      return { micros: u.user + u.system }
    }
    default:
      throw new Error(`unknown message ${message.type}`)
  }
})
