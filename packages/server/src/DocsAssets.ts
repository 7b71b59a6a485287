/**
 * The script of the interactive API reference at `/docs`: Scalar's standalone
 * bundle (`@scalar/api-reference`, `dist/browser/standalone.js`: one
 * self-contained script that loads nothing else), served by this deployment
 * under a content-addressed path (`/docs/scalar.<hash>.js`), so the page needs
 * no network but its own origin.
 *
 * The bundle (about 4.2 MB) is read once per process, on the first request or
 * page that needs it; its brotli (quality 9, about 1.05 MB) and gzip (level 9,
 * about 1.26 MB) variants are computed once, asynchronously (on libuv's thread
 * pool). Answers are `Cache-Control: public, max-age=31536000, immutable` with
 * a strong ETag (a new bundle is a new path), 304 on a matching If-None-Match.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { brotliCompress, constants, gzip } from "node:zlib"
import * as Compression from "./Compression.ts"
import * as Http from "./Http.ts"

/**
 * The `Cache-Control` of a content-addressed asset.
 *
 * @category constants
 * @since 0.1.0
 */
export const IMMUTABLE = "public, max-age=31536000, immutable"

/**
 * Where Scalar's standalone bundle is: in a published package, the copy the build
 * vendors into `dist/assets/` (with Scalar's MIT license next to it), so that
 * installing `@svc/server` does not pull Scalar's ~270 dependencies; in the
 * repository, the development dependency's own file (next to its main entry:
 * neither the bundle nor its `package.json` is in its `exports`).
 *
 * @category operations
 * @since 0.1.0
 */
export const scalarBundlePath = (): string => {
  const vendored = fileURLToPath(new URL(`./assets/${VENDORED_SCALAR}`, import.meta.url))
  if (existsSync(vendored)) return vendored
  return join(dirname(fileURLToPath(import.meta.resolve("@scalar/api-reference"))), "browser", "standalone.js")
}

/**
 * The file name of the vendored bundle under `dist/assets/` (scripts/packages.ts
 * writes it when it builds the package).
 *
 * @category constants
 * @since 0.1.0
 */
export const VENDORED_SCALAR = "scalar-api-reference.standalone.js"

/**
 * A served script: its path, strong ETag and bytes in each coding.
 *
 * @category models
 * @since 0.1.0
 */
export interface Asset {
  /** The URL path it is served at (content addressed). */
  readonly path: string
  readonly etag: string
  readonly identity: Uint8Array
  /** The compressed variants, computed once, on first use. */
  readonly encoded: (coding: "br" | "gzip") => Promise<Uint8Array>
}

const compress = (coding: "br" | "gzip", body: Uint8Array): Promise<Uint8Array> =>
  new Promise((resolve, reject) => {
    const done = (error: Error | null, result: Buffer) => (error ? reject(error) : resolve(result))
    if (coding === "gzip") gzip(body, { level: 9 }, done)
    else {
      brotliCompress(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 9,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT
        }
      }, done)
    }
  })

/**
 * An asset of a script's bytes, served under `<prefix><hash>.js`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeAsset = (prefix: string, body: Uint8Array): Asset => {
  const hash = createHash("sha256").update(body).digest("base64url")
  const variants = new Map<"br" | "gzip", Promise<Uint8Array>>()
  return {
    path: `${prefix}${hash.slice(0, 16)}.js`,
    etag: `"${hash.slice(0, 32)}"`,
    identity: body,
    encoded: (coding) => {
      let pending = variants.get(coding)
      if (pending === undefined) {
        // a compression that fails serves the identity bytes (and is not retried)
        pending = compress(coding, body).catch(() => body)
        variants.set(coding, pending)
      }
      return pending
    }
  }
}

let scalarAsset: Asset | undefined

/**
 * Scalar's bundle as an asset, read once per process (at `/docs/scalar.<hash>.js`).
 *
 * @throws {Error} when `@scalar/api-reference` is not installed.
 * @category constructors
 * @since 0.1.0
 */
export const scalar = (): Asset => (scalarAsset ??= makeAsset("/docs/scalar.", readFileSync(scalarBundlePath())))

/**
 * Scalar's bundle as an asset, or undefined when it cannot be read (the package
 * is not installed): `/docs` is then the server-rendered reference alone.
 *
 * @category constructors
 * @since 0.1.0
 */
export const scalarOption = (): Asset | undefined => {
  try {
    return scalar()
  } catch {
    return undefined
  }
}

const JS_TYPE = "text/javascript; charset=utf-8"

/**
 * The answer to a request for an asset: 304 on a matching If-None-Match, else its
 * bytes in the coding Accept-Encoding prefers.
 *
 * @category http
 * @since 0.1.0
 */
export const respond = (
  asset: Asset,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const headers = { etag: asset.etag, vary: "Accept-Encoding" }
  if (Http.ifNoneMatch(request.headers["if-none-match"], asset.etag)) {
    return Effect.succeed(Http.empty(304, { ...headers, "cache-control": IMMUTABLE }))
  }
  const reply = (body: Uint8Array, coding: Compression.Coding) =>
    HttpServerResponse.uint8Array(body, {
      status: 200,
      contentType: JS_TYPE,
      headers: {
        ...Http.CORS_HEADERS,
        "x-content-type-options": "nosniff",
        "cache-control": IMMUTABLE,
        ...headers,
        ...(coding === "identity" || body === asset.identity ? {} : { "content-encoding": coding })
      }
    })
  const coding = Compression.negotiate(request.headers["accept-encoding"])
  return coding === "identity"
    ? Effect.succeed(reply(asset.identity, coding))
    : Effect.map(Effect.promise(() => asset.encoded(coding)), (body) => reply(body, coding))
}

/**
 * The router's `GET` (and `HEAD`) route of an asset.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (asset: Asset) =>
  HttpRouter.add(
    "GET",
    asset.path as HttpRouter.PathInput,
    Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) => respond(asset, request))
  )

/**
 * Starts computing an asset's compressed variants (off the event loop), so the
 * first browser that asks for them finds them ready.
 *
 * @category http
 * @since 0.1.0
 */
export const warm = (asset: Asset): void => {
  void asset.encoded("br")
  void asset.encoded("gzip")
}

/**
 * The favicon of every page of the deployment (`/favicon.ico`, `/favicon.svg`):
 * two opposite arrows, one chain to another. An SVG, which browsers take at either
 * path; the `/docs` page names it with `<link rel="icon">`.
 *
 * @category constants
 * @since 0.1.0
 */
export const FAVICON_SVG =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f3a5f"/>` +
  `<path d="M7 12h16l-4-4M25 20H9l4 4" fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round" ` +
  `stroke-linejoin="round"/></svg>\n`

const faviconBytes = /* @__PURE__ */ new TextEncoder().encode(FAVICON_SVG)

/**
 * The router's `GET` routes of the favicon: `/favicon.ico` and `/favicon.svg`, cached for a day.
 *
 * @category layers
 * @since 0.1.0
 */
export const faviconLayer = HttpRouter.addAll(
  ["/favicon.ico", "/favicon.svg"].map((path) =>
    HttpRouter.route(
      "GET",
      path as HttpRouter.PathInput,
      Effect.succeed(
        HttpServerResponse.uint8Array(faviconBytes, {
          status: 200,
          contentType: "image/svg+xml",
          headers: {
            ...Http.CORS_HEADERS,
            "x-content-type-options": "nosniff",
            "cache-control": "public, max-age=86400"
          }
        })
      )
    )
  )
)
