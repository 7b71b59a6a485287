/**
 * `openapi.json`: a valid OpenAPI 3.1 document that describes every operation
 * of the spec with its operationId.
 *
 * @since 0.1.0
 */
import { Validator } from "@seriousme/openapi-schema-validator"
import { Effect } from "effect"
import * as Check from "../Check.ts"
import { OPERATIONS } from "../Operations.ts"
import { failure } from "../Shared.ts"
import { document, type Env, type Json } from "./common.ts"

const PATH = "/openapi.json"

const obj = (u: unknown): Json => (typeof u === "object" && u !== null && !Array.isArray(u) ? u as Json : {})

const valid31 = Check.make<Env>({
  name: "openapi_valid_3_1",
  group: "openapi",
  title: "openapi.json is a valid OpenAPI 3.1.0 document (JSON Schema dialect 2020-12, version 1.0.0)",
  reference: "spec §9.2; docs/operations.md, HTTP rules of the solver interface (openapi.json)",
  run: Effect.gen(function*() {
    const { exchange, value } = yield* document(PATH)
    const c = Check.collector()
    if (value.openapi !== "3.1.0") c.add(failure(exchange, "openapi is not 3.1.0", "3.1.0", String(value.openapi)))
    if (value.jsonSchemaDialect !== "https://json-schema.org/draft/2020-12/schema") {
      c.add(
        failure(
          exchange,
          "jsonSchemaDialect is not JSON Schema 2020-12",
          "https://json-schema.org/draft/2020-12/schema",
          String(value.jsonSchemaDialect)
        )
      )
    }
    if (obj(value.info).version !== "1.0.0") {
      c.add(failure(exchange, "info.version is not 1.0.0", "1.0.0", String(obj(value.info).version)))
    }
    for (const key of ["openapi", "info", "paths", "components"]) {
      if (!(key in value)) {
        c.add(
          failure(
            exchange,
            `openapi.json has no ${key}`,
            `required keys openapi, info, paths, components`,
            Object.keys(value).join(",")
          )
        )
      }
    }
    const result = yield* Effect.promise(() => new Validator().validate(structuredClone(value)))
    if (!result.valid) {
      const errors = typeof result.errors === "string"
        ? result.errors
        : (result.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`).join("; ")
      c.add(
        failure(
          exchange,
          "openapi.json does not validate against the OpenAPI 3.1 schema",
          "a valid OpenAPI 3.1 document",
          errors
        )
      )
    }
    yield* c.done
  })
})

const operationsPresent = Check.make<Env>({
  name: "openapi_operations_present",
  group: "openapi",
  title: "every operation of the spec is in openapi.json with its path, method, operationId and documented statuses",
  reference:
    "spec §4 (operation ids); docs/operations.md, HTTP rules of the solver interface (openapi.json: every solver and aggregator operation with its operationId)",
  run: Effect.gen(function*() {
    const { exchange, value } = yield* document(PATH)
    const paths = obj(value.paths)
    const c = Check.collector()
    for (const op of OPERATIONS) {
      const operation = obj(obj(paths[op.path])[op.method.toLowerCase()])
      if (Object.keys(operation).length === 0) {
        c.add(
          failure(
            exchange,
            `${op.method} ${op.path} is not described`,
            `paths["${op.path}"].${op.method.toLowerCase()}`,
            "absent"
          )
        )
        continue
      }
      if (operation.operationId !== op.operationId) {
        c.add(
          failure(
            exchange,
            `${op.method} ${op.path} has another operationId`,
            op.operationId,
            String(operation.operationId)
          )
        )
      }
      const statuses = Object.keys(obj(operation.responses))
      const missing = op.statuses.filter((s) => !statuses.includes(String(s)))
      if (missing.length > 0) {
        c.add(
          failure(
            exchange,
            `${op.operationId} does not document every status of the spec`,
            op.statuses.join(","),
            `missing ${missing.join(",")}`
          )
        )
      }
    }
    const declared = obj(obj(paths["/api/v6/solver-feed"]).get).parameters
    const params = Array.isArray(declared) ? declared.map((p) => String(obj(p).name ?? obj(p).$ref)) : []
    if (!params.some((p) => /if-none-match/i.test(p))) {
      c.add(
        failure(
          exchange,
          "getSolverFeed does not document If-None-Match",
          "an If-None-Match header parameter",
          params.join(",")
        )
      )
    }
    const stream = obj(obj(obj(obj(paths["/api/v6/solver-feed/events"]).get).responses)["200"])
    const text = JSON.stringify(stream)
    for (const name of ["feed", "publication-closed", "error"]) {
      if (!text.includes(name)) {
        c.add(
          failure(exchange, `streamSolverFeed does not name the event ${name}`, "the stream's event names", "absent")
        )
      }
    }
    yield* c.done
  })
})

/**
 * The openapi checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [valid31, operationsPresent]
