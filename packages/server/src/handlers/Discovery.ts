/**
 * Handlers of the contract's Discovery group and the `/docs` page: prepared
 * bytes, each with the caching class its declaration names and a canonical link.
 *
 * @since 0.1.0
 */
import type { Health } from "@svc/core"
import * as Api from "@svc/protocol/Api"
import { Context, Effect } from "effect"
import { HttpApi, HttpApiBuilder } from "effect/http-api"
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
 * The Discovery group's handlers.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (bytes: DocumentBytes) => {
  const cache = cacheControlByOperation()
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
        .handleRaw("getOpenApi", ({ endpoint }) =>
          document(endpoint.identifier, endpoint.path, bytes.openapi))
    ))
}

/**
 * The `/docs` page's handler.
 *
 * @category layers
 * @since 0.1.0
 */
export const siteLayer = (bytes: DocumentBytes, health: Health.Health["Service"]) =>
  HttpApiBuilder.group(
    Api.Api,
    "Site",
    (handlers) =>
      Effect.succeed(
        handlers
          .handleRaw("docsPage", () =>
            Effect.sync(() => {
              bytes.onDocsPage?.()
              return Http.htmlBytes(bytes.docsPage, Http.CacheControl.document, bytes.docsPageHeaders)
            }))
          // live: the process answers; the parts are reported, not judged
          .handleRaw("healthLive", () =>
            Effect.map(health.check, (h) =>
              Http.json(200, {
                ok: true,
                live: true,
                ready: h.ready,
                components: h.components,
                checkedAt: h.checkedAt
              })))
          // ready: 503 names the part that is not
          .handleRaw("healthReady", () =>
            Effect.map(health.check, (h) =>
              Http.json(h.ready ? 200 : 503, {
                ok: h.ready,
                live: true,
                ready: h.ready,
                components: h.components,
                checkedAt: h.checkedAt
              })))
      )
  )
