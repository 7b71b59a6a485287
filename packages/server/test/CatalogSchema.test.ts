/**
 * The JSON Schema of the catalog that ships with `@svc/server`
 * (`catalog/catalog.schema.json`, for editors; that it is what
 * scripts/catalog-schema.ts builds is checked by test/codegen.test.ts): a JSON Schema validator other than Effect's (ajv, draft 2020-12)
 * accepts the demo catalog and refuses what the server refuses.
 */
import { assert, describe, it } from "@effect/vitest"
import { Ajv2020 } from "ajv/dist/2020.js"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { CATALOG_SCHEMA_PATH } from "../../../scripts/catalog-schema.ts"
import { DEMO_CATALOG_PATH } from "../src/Server.ts"

const committed = readFileSync(CATALOG_SCHEMA_PATH, "utf8")

describe("catalog.schema.json", () => {
  it("is exported by @svc/server", () => {
    const resolved = createRequire(import.meta.url).resolve("@svc/server/catalog/catalog.schema.json")
    assert.strictEqual(resolved, CATALOG_SCHEMA_PATH)
  })

  it("accepts the demo catalog and refuses a bad range, a missing key and an unknown key", () => {
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(committed))
    const demo = JSON.parse(readFileSync(DEMO_CATALOG_PATH, "utf8"))
    assert.isTrue(validate(demo), JSON.stringify(validate.errors))
    const bad = structuredClone(demo)
    bad.assets[0].decimals = 80
    bad.routes[0].serviceFeeBps = 12_000
    delete bad.networks[1].vault
    bad.routes[3].surprise = true
    assert.isFalse(validate(bad))
    const paths = new Set((validate.errors ?? []).map((e) => e.instancePath))
    for (const path of ["/assets/0/decimals", "/routes/0/serviceFeeBps", "/networks/1", "/routes/3"]) {
      assert.isTrue(paths.has(path), `${path} in ${[...paths].join(", ")}`)
    }
  })
})
