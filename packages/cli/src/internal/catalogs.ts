/**
 * Catalog documents for the commands that read one (`svc catalog check`,
 * `svc deploy`, `svc fund`): read as `svc serve` reads them (JSON or YAML),
 * resolved through the connectors the server would load (`SVC_CONNECTORS`,
 * default the EVM and Solana connectors) without their chain settings.
 *
 * @internal
 */
import { Catalog, CatalogCheck, Connector } from "@svc/core"
import { Server, ServerConfig } from "@svc/server"
import { ConfigProvider, Effect } from "effect"
import { BadInput } from "./contract.ts"

/** Reads a catalog file (JSON, or YAML by extension). */
export const readCatalog = (path: string) =>
  Server.readDocument(path, "catalog").pipe(Effect.mapError((e) => new BadInput({ message: e.message })))

/** The connector registry of the server's connectors, without their RPC and key settings. */
export const connectorRegistry = (document: unknown) =>
  Effect.gen(function*() {
    const connectors = process.env.SVC_CONNECTORS
    const config = yield* ServerConfig.fromProvider(
      ConfigProvider.fromUnknown(connectors === undefined ? {} : { SVC_CONNECTORS: connectors })
    ).pipe(Effect.mapError((e) => new BadInput({ message: e.message })))
    const registrations = yield* Server.connectors(config, document).pipe(
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown({})),
      Effect.mapError((e) => new BadInput({ message: e.message }))
    )
    return Connector.makeRegistry(registrations)
  })

/** The problems of a catalog as one line: `<what>: N problems: <path>: <message>; ...`. */
export const problemsLine = (what: string, problems: ReadonlyArray<CatalogCheck.Problem>) =>
  `${what}: ${problems.length} problem${problems.length === 1 ? "" : "s"}: ${
    CatalogCheck.describe(problems).join("; ")
  }`

/** Checks and resolves a catalog document; every problem on one line when it is not valid. */
export const resolveCatalog = (document: unknown, what: string) =>
  Effect.gen(function*() {
    const registry = yield* connectorRegistry(document)
    const problems = CatalogCheck.check(document, { registry })
    if (problems.length > 0) return yield* new BadInput({ message: problemsLine(what, problems) })
    return yield* Effect.fromResult(Catalog.fromUnknown(document, { registry })).pipe(
      Effect.mapError((e) => new BadInput({ message: `${what}: ${e.message}` }))
    )
  })
