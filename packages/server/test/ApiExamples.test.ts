/**
 * `openapi.json` carries a request and a response example for every operation,
 * from the committed vectors of `@svc/protocol`'s `ApiExamples.json`
 * (scripts/api-examples.ts records them from a running server), so that a
 * reader and a reference page's try-it start from a real exchange, and the
 * document stays the same at every publication. Every example is valid for the
 * schema the document gives it (an independent validator, ajv, over the
 * document's own JSON Schemas), and every operation links to its worked flow.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ApiDocument from "@svc/protocol/ApiDocument"
import { Ajv2020 } from "ajv/dist/2020.js"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

type Node = Record<string, any>

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const doc = ApiDocument.make({ publicUrl: "https://solver.example" }) as Node

const operations = (): Array<{ path: string; method: string; op: Node }> =>
  Object.entries(doc.paths as Node).flatMap(([path, item]) =>
    Object.entries(item as Node).map(([method, op]) => ({ path, method, op: op as Node }))
  )

/** A validator of the document's schemas: `#/...` pointers resolve in the document. */
const validator = () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
  ajv.addSchema({ ...doc, $id: "https://svc.test/openapi.json" }, "openapi")
  return (pointer: string, value: unknown) => {
    const validate = ajv.compile({ $ref: `https://svc.test/openapi.json${pointer}` })
    return validate(value) ? undefined : ajv.errorsText(validate.errors, { separator: "\n" })
  }
}

const pointer = (...keys: ReadonlyArray<string>) =>
  `#/${keys.map((k) => k.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`

describe("openapi.json examples", () => {
  it("every operation has response examples, and a request example when it takes a body", () => {
    for (const { method, op, path } of operations()) {
      const where = `${method.toUpperCase()} ${path} (${op.operationId})`
      const responses = Object.entries(op.responses as Node).filter(([status]) => Number(status) < 300)
      const examples = responses.flatMap(([, r]) => Object.values((r.content ?? {}) as Node))
        .flatMap((media) => Object.values(media.examples ?? {}))
      assert.isAbove(examples.length, 0, `${where}: a response example`)
      const body = op.requestBody?.content?.["application/json"]
      if (body !== undefined) assert.isAbove(Object.keys(body.examples ?? {}).length, 0, `${where}: a request example`)
      for (const parameter of (op.parameters ?? []) as Array<Node>) {
        if (parameter.required === true) assert.isDefined(parameter.example, `${where}: ${parameter.name}`)
      }
    }
  })

  it("every example is valid for its schema", () => {
    const check = validator()
    let checked = 0
    for (const { method, op, path } of operations()) {
      const where = `${method.toUpperCase()} ${path}`
      for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Node)) {
        for (const [name, example] of Object.entries((media.examples ?? {}) as Node)) {
          const problem = check(pointer("paths", path, method, "requestBody", "content", type, "schema"), example.value)
          assert.isUndefined(problem, `${where} request ${name}: ${problem}`)
          checked++
        }
      }
      for (const [status, response] of Object.entries(op.responses as Node)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as Node)) {
          if (!type.endsWith("json") || media.schema === undefined) continue
          for (const [name, example] of Object.entries((media.examples ?? {}) as Node)) {
            if (op.operationId === "getOpenApi") continue // an excerpt of itself
            const problem = check(
              pointer("paths", path, method, "responses", status, "content", type, "schema"),
              example.value
            )
            assert.isUndefined(problem, `${where} ${status} ${name}: ${problem}`)
            checked++
          }
        }
      }
      for (const parameter of (op.parameters ?? []) as Array<Node>) {
        if (parameter.example === undefined) continue
        const index = (op.parameters as Array<Node>).indexOf(parameter)
        const problem = check(pointer("paths", path, method, "parameters", String(index), "schema"), parameter.example)
        assert.isUndefined(problem, `${where} parameter ${parameter.name}: ${problem}`)
        checked++
      }
    }
    assert.isAbove(checked, 25)
  })

  it("the permit creation documents the 400 a page's try-it gets, with its example", () => {
    const op = doc.paths["/api/v6/execution-permits"].post
    assert.include(op.description, "400 `SIGNATURE_INVALID`")
    const refused = Object.values(op.responses["400"].content["application/json"].examples as Node)
    assert.strictEqual(refused[0].value.error, "SIGNATURE_INVALID")
  })

  it("every operation names its worked flow, in a file the repository has", () => {
    for (const { op } of operations()) {
      const flows = op["x-svc-docs"] as Array<{ file: string; section: string }> | undefined
      assert.isDefined(flows, String(op.operationId))
      assert.include(op.description, "Worked flow:", String(op.operationId))
      for (const flow of flows!) {
        assert.isTrue(existsSync(join(ROOT, flow.file)), flow.file)
        const headings = readFileSync(join(ROOT, flow.file), "utf8").split("\n").filter((l) => l.startsWith("#"))
        assert.isTrue(
          headings.some((h) => h.replace(/^#+\s*/, "") === flow.section),
          `${op.operationId}: ${flow.file} has no section "${flow.section}"`
        )
      }
    }
  })

  it("is the same document at every make (the examples are committed, not live)", () => {
    assert.strictEqual(JSON.stringify(ApiDocument.make({ publicUrl: "https://solver.example" })), JSON.stringify(doc))
  })
})
