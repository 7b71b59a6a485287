/**
 * Builds `packages/server/catalog/catalog.schema.json`, the JSON Schema (draft
 * 2020-12) of a catalog document, from the schema the server decodes catalogs
 * with (`@svc/core` Catalog.CatalogConfig). It ships with `@svc/server` for
 * editors (`"$schema": "./node_modules/@svc/server/catalog/catalog.schema.json"`).
 * `node scripts/catalog-schema.ts` (or `npm run codegen`) rewrites the file;
 * test/codegen.test.ts fails when the committed file differs from what this builds.
 */
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as Catalog from "../packages/core/src/Catalog.ts"
import { toStandaloneJsonSchema } from "../packages/protocol/src/schema/index.ts"

/** Where the schema is written. */
export const CATALOG_SCHEMA_PATH = fileURLToPath(
  new URL("../packages/server/catalog/catalog.schema.json", import.meta.url)
)

/** The text of catalog.schema.json. */
export const buildCatalogSchema = (): string => {
  const { $schema, ...rest } = toStandaloneJsonSchema(Catalog.CatalogConfig)
  return `${
    JSON.stringify(
      {
        $schema,
        title: "svc catalog",
        description:
          "A catalog of svc: its networks, assets and routes (SVC_CATALOG; docs/embedding.md). svc catalog check FILE checks a file against this schema and the references between its parts.",
        ...rest
      },
      null,
      2
    )
  }\n`
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(CATALOG_SCHEMA_PATH, buildCatalogSchema())
  process.stdout.write(`wrote ${CATALOG_SCHEMA_PATH}\n`)
}
