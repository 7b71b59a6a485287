/**
 * `CatalogCheck.check`: every problem of a catalog document at once, each with
 * the JSON path of the value at fault: the schema's (ranges, missing and
 * unknown keys), the references' (unknown assets and networks, a route touching
 * a network without a vault, duplicates, limits), then resolution through the
 * connectors when the first two pass.
 */
import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as CatalogCheck from "../src/CatalogCheck.ts"
import * as Connector from "../src/Connector.ts"

const demo = JSON.parse(
  readFileSync(fileURLToPath(new URL("../../server/catalog/demo.json", import.meta.url)), "utf8")
) as {
  networks: Array<Record<string, unknown>>
  assets: Array<Record<string, unknown>>
  routes: Array<Record<string, unknown>>
}

describe("CatalogCheck.check", () => {
  it("the demo catalog has no problem", () => {
    assert.deepStrictEqual(CatalogCheck.check(demo), [])
  })

  it("reports every problem with its JSON path, in one pass", () => {
    const bad = structuredClone(demo)
    delete bad.networks[1]!.vault // bsc: no vault
    bad.assets[0]!.decimals = 80
    bad.routes[0]!.serviceFeeBps = 12_000
    bad.routes[1]!.source = "dai.base" // an unknown asset
    bad.assets[2]!.network = "polygon"
    bad.routes[2]!["maximumFillInRaw"] = "1" // below its minimum
    bad.routes[3]!["surprise"] = true
    bad.networks.push({ ...bad.networks[0]! })
    const lines = CatalogCheck.describe(CatalogCheck.check(bad))
    assert.deepStrictEqual(lines, [
      "$.networks[1].vault: Missing key",
      "$.assets[0].decimals: Expected a value between 0 and 78",
      "$.routes[0].serviceFeeBps: Expected a value between 0 and 10000",
      "$.routes[3].surprise: Expected no excess property",
      "$.networks[4].key: duplicate network key base",
      "$.assets[2].network: no network polygon in networks",
      "$.routes[0].destination: usdt.bsc is on network bsc, which has no vault",
      "$.routes[1].source: no asset dai.base in assets",
      "$.routes[2].maximumFillInRaw: below minimumFillInRaw",
      "$.routes[4].source: usdt.bsc is on network bsc, which has no vault",
      "$.routes[6].destination: usdt.bsc is on network bsc, which has no vault"
    ])
  })

  it("what each family needs, duplicate routes and the same asset on both sides", () => {
    const bad = structuredClone(demo)
    delete bad.networks[0]!.chainId
    bad.networks[3]!.chainId = "1"
    delete bad.assets[1]!.address
    bad.routes.push({ ...bad.routes[0]! })
    bad.routes.push({ ...bad.routes[0]!, destination: bad.routes[0]!.source })
    assert.deepStrictEqual(CatalogCheck.describe(CatalogCheck.check(bad)), [
      "$.networks[0]: an EVM network needs chainId",
      "$.networks[3].chainId: only EVM networks have a chain id",
      "$.assets[1]: an EVM asset needs address (the zero address is the native coin)",
      "$.routes[8]: duplicate route usdc.base -> usdt.bsc",
      "$.routes[9]: source and destination are the same asset"
    ])
  })

  it("not a catalog at all", () => {
    assert.deepStrictEqual(CatalogCheck.describe(CatalogCheck.check([])), ["$: Expected CatalogConfig"])
  })

  it("with a registry, a document that passes is resolved, and a connector's refusal has its path", () => {
    const registry = Connector.makeRegistry([])
    assert.deepStrictEqual(CatalogCheck.check(demo, { registry }), [])
    const bad = structuredClone(demo)
    delete bad.networks[3]!.vaultReference // solana, without a registered SVM connector
    assert.deepStrictEqual(CatalogCheck.check(bad, { registry }), [
      { path: "$.networks[3].vaultReference", message: "required without a registered SVM connector" }
    ])
  })

  it("JSON paths: plain keys with dots, positions in brackets, other keys quoted", () => {
    assert.strictEqual(CatalogCheck.jsonPath([]), "$")
    assert.strictEqual(CatalogCheck.jsonPath(["routes", 2, "price", "numeratorRaw"]), "$.routes[2].price.numeratorRaw")
    assert.strictEqual(CatalogCheck.jsonPath(["a b", "$schema"]), "$[\"a b\"].$schema")
  })
})
