/**
 * The svc server: assembles the HTTP API on @effect/platform-node and runs it.
 *
 * @since 0.1.0
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"
import * as ServerConfig from "./ServerConfig.ts"

const json = (status: number, body: unknown) =>
  HttpServerResponse.text(JSON.stringify(body), {
    status,
    contentType: "application/json; charset=utf-8",
    headers: { "cache-control": "no-store" }
  })

const health = HttpRouter.add("GET", "/healthz", Effect.succeed(json(200, { ok: true })))
const notFound = HttpRouter.add("*", "*", Effect.succeed(json(404, { ok: false, error: "NOT_FOUND" })))

/**
 * All routes of the server.
 *
 * @category layers
 * @since 0.1.0
 */
export const routes = Layer.mergeAll(health, notFound)

/**
 * Starts the server with the loaded configuration, prints `svc listening on <url>`
 * to stdout, and serves until interrupted.
 *
 * @category running
 * @since 0.1.0
 */
export const run = Effect.gen(function*() {
  const config = yield* ServerConfig.load
  const server = HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: config.port, host: config.host, gracefulShutdownTimeout: "5 seconds" }))
  )
  return yield* Effect.gen(function*() {
    const httpServer = yield* HttpServer.HttpServer
    const url = HttpServer.formatAddress(httpServer.address)
    const publicUrl = Option.getOrElse(config.publicUrl, () => url)
    yield* Effect.sync(() => process.stdout.write(`svc listening on ${publicUrl}\n`))
    return yield* Effect.never
  }).pipe(Effect.provide(server))
})
