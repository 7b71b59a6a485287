// A plain ES module, run by Node with no loader and no flags in a project that installed the svc
// tarballs: it starts the server from the installed @svc/server, resolves the served catalog with
// @svc/core, and verifies the served feed with @svc/client. Prints one JSON line.
import { NodeServices } from "@effect/platform-node"
import { Catalog, Connector } from "@svc/core"
import { createClient } from "@svc/client"
import { App, Server, ServerConfig } from "@svc/server"
import { Effect, ManagedRuntime } from "effect"
import { readFileSync } from "node:fs"

const config = await Effect.runPromise(ServerConfig.load.pipe(Effect.provide(NodeServices.layer)))
const document = JSON.parse(readFileSync(Server.DEMO_CATALOG_PATH, "utf8"))
const runtime = ManagedRuntime.make(Server.layer(config, document))
try {
  const control = await runtime.runPromise(Effect.service(App.AppControl))
  const catalog = await Effect.runPromise(Effect.fromResult(
    Catalog.fromUnknown(document, { registry: Connector.makeRegistry([]) })
  ))
  const feed = await createClient({ baseUrl: control.publicUrl }).feed()
  process.stdout.write(`${JSON.stringify({
    url: control.publicUrl,
    catalogRoutes: catalog.routes.length,
    feedRoutes: feed.routes.length,
    dataVersion: String(feed.dataVersion),
    feedSigner: feed.feedSigner
  })}\n`)
} finally {
  await runtime.dispose()
}
