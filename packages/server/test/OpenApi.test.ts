import { assert, describe, it } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { AGGREGATOR_ERRORS, Resources } from "@svc/protocol"
import * as ApiDocument from "@svc/protocol/ApiDocument"
import { SOLVER_ERRORS } from "@svc/protocol/ErrorCodes"

type Node = Record<string, any>

const PUBLIC_URL = "https://solver.example.org"
const doc = ApiDocument.make({ publicUrl: `${PUBLIC_URL}/` }) as Node
const text = JSON.stringify(doc)

/** The operations of the spec's part 4, written out here independently of the module. */
const SPEC_OPERATIONS: ReadonlyArray<readonly [string, "get" | "post", string]> = [
  ["getSolverManifest", "get", "/.well-known/svc-solver.json"],
  ["getOnchainDiscovery", "get", "/.well-known/svc-onchain-discovery.json"],
  ["getOpenApi", "get", "/openapi.json"],
  ["getStandardsManifest", "get", "/.well-known/svc-standards.json"],
  ["getSolverDiscovery", "get", "/api/v6/solver-discovery"],
  ["aggregator_manifest", "get", "/.well-known/svc-aggregator.json"],
  ["getSolverFeed", "get", "/api/v6/solver-feed"],
  ["streamSolverFeed", "get", "/api/v6/solver-feed/events"],
  ["getRouteDetail", "get", "/api/v6/routes/{routeId}"],
  ["buildPermitRequestMessage", "post", "/api/v6/execution-permits/request-message"],
  ["createExecutionPermit", "post", "/api/v6/execution-permits"],
  ["getExecutionPermit", "get", "/api/v6/execution-permits/{fillId}"],
  ["aggregator_quote", "post", "/v1/quote"],
  ["aggregator_build", "post", "/v1/build"],
  ["aggregator_status", "get", "/v1/status"],
  ["aggregator_chains", "get", "/v1/chains"],
  ["aggregator_tokens", "get", "/v1/tokens"],
  ["aggregator_health", "get", "/v1/health"]
]

const op = (path: string, method: "get" | "post"): Node => doc.paths[path][method]

const allOperations = (): Array<[string, string, Node]> =>
  Object.entries(doc.paths as Node).flatMap(([path, item]) =>
    Object.entries(item as Node)
      .filter(([method]) => ["get", "post", "put", "patch", "delete", "head", "options"].includes(method))
      .map(([method, operation]): [string, string, Node] => [path, method, operation as Node])
  )

const resolve = (ref: string): unknown => {
  assert.isTrue(ref.startsWith("#/"), `local reference ${ref}`)
  return ref.slice(2).split("/").reduce<any>(
    (node, key) => (node !== undefined && node !== null && Object.hasOwn(node, key) ? node[key] : undefined),
    doc
  )
}

const refs = (node: unknown, out: Array<string> = []): Array<string> => {
  if (Array.isArray(node)) node.forEach((n) => refs(n, out))
  else if (typeof node === "object" && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref") out.push(v as string)
      else refs(v, out)
    }
  }
  return out
}

const hasKey = (node: unknown, key: string): boolean =>
  Array.isArray(node)
    ? node.some((n) => hasKey(n, key))
    : typeof node === "object" && node !== null
    ? Object.entries(node).some(([k, v]) => k === key || hasKey(v, key))
    : false

const schemaName = (schema: Node): string => String(schema.$ref).replace("#/components/schemas/", "")

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document for an independent validator", async () => {
    const validator = new Validator()
    const result = await validator.validate(JSON.parse(text))
    assert.isTrue(result.valid, JSON.stringify(result.errors, null, 2))
    assert.strictEqual(validator.version, "3.1")
  })

  it("declares OpenAPI 3.1.0, the 2020-12 dialect, version 1.0.0 and the public server", () => {
    assert.strictEqual(doc.openapi, "3.1.0")
    assert.strictEqual(doc.jsonSchemaDialect, "https://json-schema.org/draft/2020-12/schema")
    assert.strictEqual(doc.info.version, "1.0.0")
    assert.strictEqual(doc.info.title, "Svc V6 Solver and Aggregator API")
    assert.isString(doc.info.description)
    assert.deepStrictEqual(doc.servers, [{ url: PUBLIC_URL }])
    assert.includeMembers(doc.tags.map((t: Node) => t.name), ["Discovery", "Feed", "Routes", "Permits", "Aggregator"])
  })

  it("lists exactly the spec's operations with their operationId, method and path", () => {
    for (const [operationId, method, path] of SPEC_OPERATIONS) {
      assert.isObject(doc.paths[path], path)
      assert.strictEqual(op(path, method)?.operationId, operationId, `${method} ${path}`)
    }
    const listed = allOperations().map(([path, method, o]) => `${o.operationId} ${method} ${path}`).sort()
    assert.deepStrictEqual(listed, SPEC_OPERATIONS.map(([id, method, path]) => `${id} ${method} ${path}`).sort())
    const ids = allOperations().map(([, , o]) => o.operationId)
    assert.strictEqual(new Set(ids).size, ids.length)
  })

  it("every $ref resolves and no $defs reference remains", () => {
    const all = refs(doc)
    assert.isAbove(all.length, 100)
    for (const ref of all) assert.isDefined(resolve(ref), ref)
    assert.notInclude(text, "#/$defs/")
    assert.isFalse(hasKey(doc, "$defs"))
  })

  it("collects every core resource under components.schemas, strict", () => {
    const schemas = doc.components.schemas as Node
    for (const name of Object.keys(Resources)) assert.property(schemas, name)
    for (
      const name of [
        "Route",
        "SignedFeed",
        "PermitCreateRequest",
        "AggregatorQuote",
        "AggregatorError",
        "AggregatorManifest"
      ]
    ) {
      assert.strictEqual(schemas[name].additionalProperties, false, name)
    }
    assert.strictEqual(schemas.Bytes32.pattern, "^0x[0-9a-fA-F]{64}$")
    assert.deepStrictEqual(
      schemas.AggregatorError.properties.error.$ref ? resolve(schemas.AggregatorError.properties.error.$ref) : null,
      schemas.AggregatorErrorCode
    )
    assert.sameMembers(schemas.AggregatorErrorCode.enum, Object.keys(AGGREGATOR_ERRORS))
  })
})

describe("OpenAPI operations", () => {
  it("feed: filters, If-None-Match, 200 with ETag/Cache-Control/Vary and 304 without content", () => {
    const feed = op("/api/v6/solver-feed", "get")
    const params = Object.fromEntries(feed.parameters.map((p: Node) => [p.name, p]))
    assert.deepStrictEqual(params.sourceChainId.schema, { type: "string", pattern: "^[1-9][0-9]*$", maxLength: 78 })
    assert.strictEqual(params.sourceChainId.in, "query")
    assert.strictEqual(schemaName(params.sourceNetworkId.schema), "Bytes32")
    assert.strictEqual(params["If-None-Match"].in, "header")
    assert.strictEqual(schemaName(feed.responses["200"].content["application/json"].schema), "FeedResponse")
    assert.sameMembers(Object.keys(feed.responses["200"].headers), ["ETag", "Cache-Control", "Vary"])
    const notModified = feed.responses["304"]
    assert.isDefined(notModified)
    assert.isUndefined(notModified.content)
    assert.property(notModified.headers, "ETag")
    assert.sameMembers(Object.keys(feed.responses), ["200", "304", "400", "500", "503"])
  })

  it("stream: text/event-stream with the x-svc-events extension and the event names", () => {
    const stream = op("/api/v6/solver-feed/events", "get")
    const ok = stream.responses["200"]
    assert.property(ok.content, "text/event-stream")
    assert.deepStrictEqual(ok["x-svc-events"], {
      feed: { schema: { $ref: "#/components/schemas/SignedFeed" }, id: "dataVersion" },
      "publication-closed": { schema: { $ref: "#/components/schemas/SseErrorEvent" } },
      error: { schema: { $ref: "#/components/schemas/SseErrorEvent" } }
    })
    for (const name of ["`feed`", "`publication-closed`", "`error`"]) assert.include(stream.description, name)
    const lastEventId = stream.parameters.find((p: Node) => p.name === "Last-Event-ID")
    assert.strictEqual(lastEventId.in, "header")
    assert.strictEqual(lastEventId.schema.pattern, "^(?:0|[1-9][0-9]*)$")
    // 400: unknown query parameters are refused (docs/operations.md, HTTP rules of the solver interface)
    assert.sameMembers(Object.keys(stream.responses), ["200", "400", "500", "503"])
  })

  it("route detail and permit status: Bytes32 path parameters", () => {
    for (
      const [path, name] of [["/api/v6/routes/{routeId}", "routeId"], ["/api/v6/execution-permits/{fillId}", "fillId"]]
    ) {
      const param = op(path!, "get").parameters[0]
      assert.strictEqual(param.name, name)
      assert.strictEqual(param.in, "path")
      assert.isTrue(param.required)
      assert.strictEqual(schemaName(param.schema), "Bytes32")
    }
    assert.sameMembers(Object.keys(op("/api/v6/routes/{routeId}", "get").responses), [
      "200",
      "400",
      "404",
      "500",
      "503"
    ])
    assert.sameMembers(Object.keys(op("/api/v6/execution-permits/{fillId}", "get").responses), [
      "200",
      "400",
      "404",
      "500"
    ])
  })

  it("permits: request bodies, 200/201, 429 headers and the Idempotency-Key header", () => {
    const message = op("/api/v6/execution-permits/request-message", "post")
    assert.strictEqual(schemaName(message.requestBody.content["application/json"].schema), "PermitRequest")
    assert.sameMembers(Object.keys(message.responses), ["200", "400", "409", "410", "413", "500", "503"])

    const create = op("/api/v6/execution-permits", "post")
    assert.isTrue(create.requestBody.required)
    assert.strictEqual(schemaName(create.requestBody.content["application/json"].schema), "PermitCreateRequest")
    assert.sameMembers(Object.keys(create.responses), ["200", "201", "400", "409", "410", "413", "429", "500", "503"])
    for (const status of ["200", "201"]) {
      assert.strictEqual(
        schemaName(create.responses[status].content["application/json"].schema),
        "ExecutionPermitResponse"
      )
    }
    assert.includeMembers(Object.keys(create.responses["429"].headers), [
      "Retry-After",
      "RateLimit",
      "RateLimit-Policy"
    ])
    const key = create.parameters.find((p: Node) => p.name === "Idempotency-Key")
    assert.strictEqual(key.in, "header")
    assert.strictEqual((resolve(key.schema.$ref) as Node).pattern, "^[a-zA-Z0-9._:-]{8,128}$")
    const permitCreate = doc.components.schemas.PermitCreateRequest as Node
    assert.include(permitCreate.required, "requestSignature")
  })

  it("solver errors are ErrorResponse and name the SOLVER_ERRORS codes of their status", () => {
    for (const [path, method, operation] of allOperations()) {
      // the aggregator's operations (and its manifest) answer AggregatorError
      if (path.startsWith("/v1/") || path === "/.well-known/svc-aggregator.json") continue
      for (const [status, response] of Object.entries(operation.responses as Node)) {
        const code = Number(status)
        if (code < 400) continue
        assert.strictEqual(
          schemaName(response.content["application/json"].schema),
          "ErrorResponse",
          `${method} ${path} ${status}`
        )
        const named = [...String(response.description).matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)
        assert.isAbove(named.length, 0, `${method} ${path} ${status}`)
        for (const name of named) {
          const entry = (SOLVER_ERRORS as Record<string, { status: number }>)[name]
          assert.isDefined(entry, name)
          assert.strictEqual(entry!.status, code, `${name} in ${method} ${path} ${status}`)
        }
      }
    }
    const create = op("/api/v6/execution-permits", "post")
    for (const code of ["IDEMPOTENCY_CONFLICT", "INSUFFICIENT_CAPACITY"]) {
      assert.include(create.responses["409"].description, code)
    }
    assert.include(create.responses["410"].description, "QUOTE_NOT_OPEN")
    assert.include(create.responses["400"].description, "SIGNATURE_INVALID")
    assert.include(create.responses["429"].description, "RATE_LIMITED")
    assert.include(create.responses["503"].description, "PUBLICATION_CLOSED")
  })

  it("aggregator: bodies, AggregatorError for every listed status, no security requirement", () => {
    const bodies: Record<string, [string | null, string]> = {
      "/v1/quote": ["AggregatorQuoteRequest", "AggregatorQuote"],
      "/v1/build": ["AggregatorBuildRequest", "AggregatorBuild"],
      "/v1/chains": [null, "AggregatorChains"],
      "/v1/tokens": [null, "AggregatorTokens"],
      "/v1/health": [null, "AggregatorHealth"]
    }
    for (const [path, [request, response]] of Object.entries(bodies)) {
      const operation = op(path, request === null ? "get" : "post")
      if (request !== null) {
        assert.strictEqual(schemaName(operation.requestBody.content["application/json"].schema), request)
      }
      assert.strictEqual(schemaName(operation.responses["200"].content["application/json"].schema), response)
    }
    const status = op("/v1/status", "get")
    assert.deepStrictEqual(
      status.responses["200"].content["application/json"].schema.anyOf.map(schemaName),
      ["AggregatorStatus", "AggregatorStatusList", "AggregatorQuoteValidity"]
    )
    const params = Object.fromEntries(status.parameters.map((p: Node) => [p.name, p]))
    assert.sameMembers(Object.keys(params), ["fillId", "sourceTxHash", "quoteId", "userAddress", "quoteToken"])
    for (const p of Object.values(params) as Array<Node>) assert.isFalse(p.required)
    assert.strictEqual((resolve(params.quoteToken.schema.$ref) as Node).pattern, "^[0-9a-f]{64}$")
    assert.strictEqual(schemaName(params.userAddress.schema), "Address")

    const chainId = op("/v1/tokens", "get").parameters.find((p: Node) => p.name === "chainId")
    assert.deepStrictEqual(chainId.schema, { type: "integer", minimum: 1 })

    for (const [path, method, operation] of allOperations()) {
      if (!path.startsWith("/v1/")) continue
      assert.deepStrictEqual(operation.security, [], path)
      for (const s of [400, 403, 404, 405, 409, 410, 413, 429, 503]) {
        const response = operation.responses[String(s)]
        assert.isDefined(response, `${method} ${path} ${s}`)
        assert.strictEqual(schemaName(response.content["application/json"].schema), "AggregatorError")
        const named = [...String(response.description).matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)
        assert.isAbove(named.length, 0)
        for (const name of named) {
          assert.strictEqual(
            (AGGREGATOR_ERRORS as Record<string, { status: number }>)[name]?.status,
            s,
            `${name} ${path}`
          )
        }
      }
    }
    const quote = op("/v1/quote", "post")
    for (const code of ["QUOTE_EXPIRED", "ROUTE_CLOSED"]) assert.include(quote.responses["410"].description, code)
    assert.include(quote.responses["409"].description, "QUOTE_CHANGED")
  })

  it("every operation links to the spec part it implements", () => {
    for (const [path, method, operation] of allOperations()) {
      const ext = operation["x-svc-spec"] as Node
      assert.isObject(ext, `${method} ${path}`)
      assert.include(ext.parts, "4")
      for (const part of ext.parts) assert.property(doc["x-svc-spec-parts"], part)
    }
  })
})
