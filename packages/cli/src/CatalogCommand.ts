/**
 * `svc catalog check FILE`: every problem of a catalog document (JSON or YAML),
 * each with the JSON path of the value at fault, as `svc serve` checks it at
 * start: the schema (published with `@svc/server` as
 * `catalog/catalog.schema.json`, for editors), the references between networks,
 * assets and routes, then resolution through the connectors (`SVC_CONNECTORS`,
 * default the EVM and Solana connectors; their RPC and key settings are not
 * read).
 *
 * Standard output is one JSON value: `{file, valid, problems}` (and, when valid,
 * the counts of networks, assets and routes). A catalog with problems exits 2
 * with one line on standard error listing them.
 *
 * @since 0.1.0
 */
import { CatalogCheck } from "@svc/core"
import { Effect, Path } from "effect"
import { Argument, Command } from "effect/cli"
import { connectorRegistry, problemsLine, readCatalog } from "./internal/catalogs.ts"
import { BadInput, writeJson } from "./Io.ts"

const check = Command.make("check", {
  file: Argument.String("file").pipe(Argument.withDescription("the catalog file (.json, .yaml or .yml)"))
}, ({ file }) =>
  Effect.gen(function*() {
    const path = yield* Effect.service(Path.Path)
    const target = path.resolve(process.cwd(), file)
    const document = yield* readCatalog(target)
    let problems = CatalogCheck.check(document)
    let counts: Record<string, number> = {}
    if (problems.length === 0) {
      // then resolution through the connectors the server would load
      problems = CatalogCheck.check(document, { registry: yield* connectorRegistry(document) })
      const parts = document as Record<string, ReadonlyArray<unknown>>
      counts = { networks: parts.networks!.length, assets: parts.assets!.length, routes: parts.routes!.length }
    }
    yield* writeJson({ file: target, valid: problems.length === 0, problems, ...counts })
    if (problems.length > 0) return yield* new BadInput({ message: problemsLine(target, problems) })
  })).pipe(
    Command.withDescription(
      "check a catalog file: every problem with its JSON path (exit 2), as svc serve checks it at start"
    )
  )

/**
 * The `catalog` command.
 *
 * @category running
 * @since 0.1.0
 */
export const catalog = Command.make("catalog").pipe(
  Command.withDescription("catalog files: check (the JSON Schema is @svc/server/catalog/catalog.schema.json)"),
  Command.withSubcommands([check])
)
