/**
 * Handlers of the contract's Discovery group and the `/docs` page: prepared
 * bytes, each with the caching class its declaration names and a canonical link.
 * `openapi.json` and the `/docs` page, the two large ones, are sent compressed
 * (brotli, else gzip) when the request accepts it, each variant computed once,
 * on first use, off the event loop.
 *
 * @since 0.1.0
 */
import type { Health } from "@svc/core"
import * as Api from "@svc/protocol/Api"
import { Context, Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder } from "effect/http-api"
import * as Compression from "../Compression.ts"
import * as DocsAssets from "../DocsAssets.ts"
import * as Http from "../Http.ts"

/**
 * The bytes of every static document, serialized once.
 *
 * @category models
 * @since 0.1.0
 */
export interface DocumentBytes {
  readonly solverManifest: Uint8Array
  readonly onchainDiscovery: Uint8Array
  readonly standards: Uint8Array
  readonly openapi: Uint8Array
  readonly docsPage: Uint8Array
  /** Headers of the `/docs` page (its Content-Security-Policy). */
  readonly docsPageHeaders?: Readonly<Record<string, string>> | undefined
  /** Called when the `/docs` page is served (the reference's script gets ready). */
  readonly onDocsPage?: (() => void) | undefined
}

/**
 * The `Cache-Control` value of each operation, from its declared caching class.
 *
 * @category http
 * @since 0.1.0
 */
export const cacheControlByOperation = (): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  HttpApi.reflect(Api.Api, {
    onGroup() {},
    onEndpoint({ endpoint }) {
      out.set(
        endpoint.identifier,
        Api.CACHE_CONTROL[Context.getOrElse(endpoint.annotations, Api.CacheClass, () => "noStore" as const)]
      )
    }
  })
  return out
}

/**
 * A prepared body answered in the coding the request's Accept-Encoding prefers
 * (`Vary: Accept-Encoding`); `make` builds the response of the bytes.
 *
 * @category http
 * @since 0.1.0
 */
export const compressed = (body: Uint8Array) => {
  const asset = DocsAssets.makeAsset("/", body)
  return (
    request: { readonly headers: Readonly<Record<string, string | undefined>> },
    make: (body: Uint8Array, headers: Readonly<Record<string, string>>) => HttpServerResponse.HttpServerResponse
  ): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
    const coding = Compression.negotiate(request.headers["accept-encoding"])
    if (coding === "identity") return Effect.succeed(make(asset.identity, { vary: "Accept-Encoding" }))
    return Effect.map(Effect.promise(() => asset.encoded(coding)), (encoded) =>
      make(
        encoded,
        encoded === asset.identity
          ? { vary: "Accept-Encoding" }
          : { vary: "Accept-Encoding", "content-encoding": coding }
      ))
  }
}

/**
 * The Discovery group's handlers.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (bytes: DocumentBytes) => {
  const cache = cacheControlByOperation()
  const openapi = compressed(bytes.openapi)
  const document = (name: string, path: string, body: Uint8Array) =>
    Effect.succeed(
      Http.jsonBytes(200, body, { link: `<${path}>; rel="canonical"` }, cache.get(name) ?? Http.CacheControl.noStore)
    )
  return HttpApiBuilder.group(Api.Api, "Discovery", (handlers) =>
    Effect.succeed(
      handlers
        .handleRaw("getSolverManifest", ({ endpoint }) =>
          document(endpoint.identifier, endpoint.path, bytes.solverManifest))
        .handleRaw("getSolverDiscovery", ({ endpoint }) =>
          document(endpoint.identifier, endpoint.path, bytes.solverManifest))
        .handleRaw("getOnchainDiscovery", ({ endpoint }) =>
          document(endpoint.identifier, endpoint.path, bytes.onchainDiscovery))
        .handleRaw("getStandardsManifest", ({ endpoint }) =>
          document(endpoint.identifier, endpoint.path, bytes.standards))
        .handleRaw("getOpenApi", ({ endpoint, request }) =>
          openapi(request, (body, headers) =>
            Http.jsonBytes(
              200,
              body,
              { link: `<${endpoint.path}>; rel="canonical"`, ...headers },
              cache.get(endpoint.identifier) ?? Http.CacheControl.noStore
            )))
    ))
}

/**
 * The `/docs` page's handler.
 *
 * @category layers
 * @since 0.1.0
 */
export const siteLayer = (bytes: DocumentBytes, health: Health.Health["Service"]) => {
  const docsPage = compressed(bytes.docsPage)
  return HttpApiBuilder.group(
    Api.Api,
    "Site",
    (handlers) =>
      Effect.succeed(
        handlers
          .handleRaw("docsPage", ({ request }) =>
            Effect.suspend(() => {
              bytes.onDocsPage?.()
              return docsPage(
                request,
                (body, headers) =>
                  Http.htmlBytes(body, Http.CacheControl.document, { ...bytes.docsPageHeaders, ...headers })
              )
            }))
          // live: the process answers; the parts are reported, not judged
          .handleRaw("healthLive", ({ endpoint }) =>
            Effect.map(health.check, (h) =>
              Http.success(endpoint, 200, {
                ok: true,
                live: true,
                ready: h.ready,
                components: h.components,
                checkedAt: h.checkedAt
              })))
          // ready: 503 names the part that is not
          .handleRaw("healthReady", ({ endpoint }) =>
            Effect.map(health.check, (h) =>
              Http.success(endpoint, h.ready ? 200 : 503, {
                ok: h.ready,
                live: true,
                ready: h.ready,
                components: h.components,
                checkedAt: h.checkedAt
              })))
      )
  )
}
