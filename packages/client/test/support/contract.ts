/**
 * Renders `src/internal/contract.ts`: the operations the client performs, as the
 * HTTP contract (`@svc/protocol/Api`) declares them (group, method, path, error
 * family, success statuses with their body schemas, error statuses with theirs),
 * and those body schemas as data for the client's decoder (`src/internal/decoder.ts`).
 *
 * Everything comes from the contract: the endpoints from `HttpApi.reflect`, the
 * schema nodes from the schemas' ASTs, the checks from their `representation`
 * annotations (Effect's built-in filters, and `@svc/protocol/schema/Checks` for
 * the protocol's own). Anything the decoder cannot run (a transformation, a
 * declaration other than `Schema.Json`, an unknown check) throws here, so the
 * generated module never decodes less than the schema.
 *
 * `npm run codegen` rewrites it; test/codegen.test.ts (at the repository's root)
 * fails when the committed module differs from what this renders.
 */
import { Api, ErrorFamily } from "@svc/protocol/Api"
import { CHECKS } from "@svc/protocol/schema/Checks"
import { Context, Result, Schema, type SchemaAST } from "effect"
import { HttpApi, HttpApiSchema } from "effect/http-api"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

/** The operations the client performs, in the order of the generated module. */
export const CLIENT_OPERATIONS = [
  "getSolverManifest",
  "getSolverFeed",
  "streamSolverFeed",
  "getRouteDetail",
  "buildPermitRequestMessage",
  "createExecutionPermit",
  "getExecutionPermit",
  "aggregator_manifest",
  "aggregator_quote",
  "aggregator_build",
  "aggregator_status",
  "aggregator_chains",
  "aggregator_tokens",
  "aggregator_health"
] as const

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url))

/** The module's path, relative to the repository. */
export const CONTRACT_MODULE = "packages/client/src/internal/contract.ts"

/** An operation's declaration in the contract. */
export interface Endpoint {
  readonly group: string
  readonly id: string
  readonly method: string
  readonly path: string
  readonly family: string
  readonly successes: ReadonlyArray<readonly [number, ReadonlyArray<Schema.Top>]>
  readonly errors: ReadonlyArray<readonly [number, ReadonlyArray<Schema.Top>]>
}

/** Every operation of the contract, by operationId. */
export const endpoints = (): Map<string, Endpoint> => {
  const found = new Map<string, Endpoint>()
  HttpApi.reflect(Api, {
    predicate: () => true,
    onGroup() {},
    onEndpoint({ endpoint, errors, group, mergedAnnotations, successes }) {
      found.set(endpoint.identifier, {
        group: group.identifier,
        id: endpoint.identifier,
        method: endpoint.method,
        path: endpoint.path,
        family: Context.getOrUndefined(mergedAnnotations, ErrorFamily) ?? "solver",
        successes: [...successes].map(([status, schemas]) => [status, schemas] as const),
        errors: [...errors].map(([status, schemas]) => [status, schemas] as const)
      })
    }
  })
  return found
}

// ---------------------------------------------------------------------------
// Schema nodes
// ---------------------------------------------------------------------------

const PROBE = Symbol.for("@svc/client/contract/probe")

/** The text of a type mismatch of a node, as Schema formats it (`Expected <this>`). */
const expectedOf = (ast: SchemaAST.AST): string | undefined => {
  const result = Schema.decodeUnknownResult(Schema.make(ast) as Schema.Decoder<unknown>)(PROBE)
  if (Result.isSuccess(result)) return undefined
  const message = String(result.failure.message)
  if (!message.startsWith("Expected ") || message.includes("\n")) {
    throw new Error(`@svc/client contract: unexpected type mismatch message ${JSON.stringify(message)}`)
  }
  return message.slice("Expected ".length)
}

const DEFAULT_EXPECTED: Record<string, string> = {
  String: "string",
  Number: "number",
  Boolean: "boolean",
  Null: "null",
  Json: "JSON value",
  Objects: "object",
  Arrays: "array"
}

const identifierOf = (ast: SchemaAST.AST): string | undefined => {
  const own = ast.annotations?.identifier
  if (typeof own === "string") return own
  const last = ast.checks?.[ast.checks.length - 1]
  const fromCheck = last?.annotations?.identifier
  return typeof fromCheck === "string" ? fromCheck : undefined
}

const text = (value: unknown): string => JSON.stringify(value)

const renderCheck = (check: SchemaAST.Check<unknown>, where: string): string => {
  if (check._tag !== "Filter") throw new Error(`@svc/client contract: ${where}: a filter group`)
  const annotations = check.annotations ?? {}
  if (annotations.message !== undefined) throw new Error(`@svc/client contract: ${where}: a check with a message`)
  const expected = annotations.expected
  if (typeof expected !== "string") throw new Error(`@svc/client contract: ${where}: a check without expected`)
  const representation = annotations.representation as { id: string; payload: any } | undefined
  const id = representation?.id
  const payload = representation?.payload
  const tail = `expected: ${text(expected)}`
  switch (id) {
    case "effect/schema/isPattern":
      return `{ _tag: "isPattern", regExp: /${payload.source}/${payload.flags}, ${tail} }`
    case "effect/schema/isMinLength":
      return `{ _tag: "isMinLength", minLength: ${payload.minLength}, ${tail} }`
    case "effect/schema/isMaxLength":
      return `{ _tag: "isMaxLength", maxLength: ${payload.maxLength}, ${tail} }`
    case "effect/schema/isInt":
      return `{ _tag: "isInt", ${tail} }`
    case "effect/schema/isFinite":
      return `{ _tag: "isFinite", ${tail} }`
    case "effect/schema/isGreaterThanOrEqualTo":
      return `{ _tag: "isGreaterThanOrEqualTo", minimum: ${payload.minimum}, ${tail} }`
    case "effect/schema/isBetween":
      if (payload.exclusiveMinimum === true || payload.exclusiveMaximum === true) {
        throw new Error(`@svc/client contract: ${where}: an exclusive isBetween`)
      }
      return `{ _tag: "isBetween", minimum: ${payload.minimum}, maximum: ${payload.maximum}, ${tail} }`
    default:
      if (id !== undefined && Object.hasOwn(CHECKS, id)) return `{ _tag: "check", id: ${text(id)}, ${tail} }`
      throw new Error(`@svc/client contract: ${where}: no decoder for the check ${id ?? expected}`)
  }
}

class Renderer {
  /** Named nodes, in dependency order: name to its source. */
  readonly named = new Map<string, string>()
  private readonly names = new Map<SchemaAST.AST, string>()

  /** A node's source, or the name of a named node. */
  node(ast: SchemaAST.AST, where: string): string {
    const known = this.names.get(ast)
    if (known !== undefined) return known
    const identifier = identifierOf(ast)
    const source = this.render(ast, where)
    if (identifier === undefined) return source
    let name = identifier.replace(/[^A-Za-z0-9_$]/g, "_")
    for (let i = 2; this.named.has(name) && this.named.get(name) !== source; i++) name = `${identifier}_${i}`
    this.named.set(name, source)
    this.names.set(ast, name)
    return name
  }

  private render(ast: SchemaAST.AST, where: string): string {
    if (ast.encoding !== undefined) throw new Error(`@svc/client contract: ${where}: a transformation`)
    const expected = expectedOf(ast)
    const checks = ast.checks === undefined || ast.checks.length === 0
      ? ""
      : `, checks: [${ast.checks.map((c, i) => renderCheck(c, `${where}#${i}`)).join(", ")}]`
    const tag = ast._tag === "Declaration" ? "Json" : ast._tag
    const own = expected !== undefined && expected !== DEFAULT_EXPECTED[tag] && ast._tag !== "Literal" &&
        ast._tag !== "Union"
      ? `, expected: ${text(expected)}`
      : ""
    const noChecks = () => {
      if (checks !== "") throw new Error(`@svc/client contract: ${where}: checks on a ${ast._tag}`)
    }
    switch (ast._tag) {
      case "String":
      case "Number":
      case "Boolean":
      case "Null":
      case "Unknown":
        return `{ _tag: "${ast._tag}"${checks}${own} }`
      case "Declaration": {
        const representation = ast.annotations?.representation as { id?: string } | undefined
        if (representation?.id !== "effect/schema/Json") {
          throw new Error(`@svc/client contract: ${where}: a declaration other than Schema.Json`)
        }
        noChecks()
        return `{ _tag: "Json"${own} }`
      }
      case "Literal":
        noChecks()
        if (typeof ast.literal === "bigint") throw new Error(`@svc/client contract: ${where}: a bigint literal`)
        if (expected !== text(ast.literal)) {
          return `{ _tag: "Literal", literal: ${text(ast.literal)}, expected: ${text(expected)} }`
        }
        return `{ _tag: "Literal", literal: ${text(ast.literal)} }`
      case "Arrays": {
        if (ast.rest.length > 1) throw new Error(`@svc/client contract: ${where}: an array with a tail`)
        const elements = ast.elements.map((e, i) => {
          if (e.context?.isOptional === true) throw new Error(`@svc/client contract: ${where}: an optional element`)
          return this.node(e, `${where}[${i}]`)
        })
        const rest = ast.rest.length === 1 ? `, rest: ${this.node(ast.rest[0]!, `${where}[]`)}` : ""
        return `{ _tag: "Arrays", elements: [${elements.join(", ")}]${rest}${checks}${own} }`
      }
      case "Objects": {
        noChecks()
        if (ast.indexSignatures.length > 1) throw new Error(`@svc/client contract: ${where}: two index signatures`)
        const properties = ast.propertySignatures.map((ps) => {
          if (typeof ps.name !== "string") throw new Error(`@svc/client contract: ${where}: a non-string key`)
          const optional = ps.type.context?.isOptional === true ? ", true" : ""
          return `[${text(ps.name)}, ${this.node(ps.type, `${where}.${ps.name}`)}${optional}]`
        })
        let rest = ""
        const index = ast.indexSignatures[0]
        if (index !== undefined) {
          if (index.parameter._tag !== "String" || (index.parameter.checks?.length ?? 0) > 0) {
            throw new Error(`@svc/client contract: ${where}: an index signature not keyed by any string`)
          }
          rest = `, rest: ${this.node(index.type, `${where}[*]`)}`
        }
        if (properties.length === 0 && index === undefined) {
          throw new Error(`@svc/client contract: ${where}: an empty struct`)
        }
        return `{ _tag: "Objects", properties: [${properties.join(", ")}]${rest}${own} }`
      }
      case "Union": {
        noChecks()
        if (ast.options !== undefined && Object.keys(ast.options).length > 0) {
          throw new Error(`@svc/client contract: ${where}: union options`)
        }
        const members = ast.types.map((t, i) => this.node(t, `${where}|${i}`))
        return `{ _tag: "Union", members: [${members.join(", ")}], expected: ${text(expected)} }`
      }
      default:
        throw new Error(`@svc/client contract: ${where}: no decoder for a ${ast._tag}`)
    }
  }

  /** The node of the schemas a status declares (one, or their union). */
  body(schemas: ReadonlyArray<Schema.Top>, where: string): string {
    return this.node(bodySchema(schemas).ast, where)
  }
}

/** The schema of the bodies a status declares: the one, or their union. */
export const bodySchema = (schemas: ReadonlyArray<Schema.Top>): Schema.Top =>
  schemas.length === 1 ? schemas[0]! : Schema.Union(schemas)

// ---------------------------------------------------------------------------
// The module
// ---------------------------------------------------------------------------

const HEADER = `/**
 * The operations the client performs, as the HTTP contract
 * (\`@svc/protocol/Api\`) declares them, and the schemas of their bodies as data
 * for the client's decoder (\`./decoder.ts\`). Internal.
 *
 * GENERATED by \`packages/client/test/support/contract.ts\` from the contract: do
 * not edit. \`npm run codegen\` rewrites it; \`test/codegen.test.ts\` fails when
 * this module differs from the contract.
 *
 * @since 0.1.0
 */
import type { Node } from "./decoder.ts"

/**
 * An operation of the contract: its group, operationId, method, path, error
 * family, and the body node of each status (\`null\`: an empty answer).
 *
 * @category models
 * @since 0.1.0
 */
export interface OperationSpec {
  readonly group: string
  readonly id: string
  readonly method: "GET" | "POST"
  readonly path: string
  readonly family: "solver" | "aggregator"
  readonly successes: ReadonlyArray<readonly [status: number, body: Node | null]>
  readonly errors: ReadonlyArray<readonly [status: number, body: Node]>
}
`

const doc = (what: string) => `/**\n * ${what}\n *\n * @category schemas\n * @since 0.1.0\n */\n`

/** The source of `src/internal/contract.ts`, formatted with dprint. */
export const render = (): string => {
  const all = endpoints()
  const renderer = new Renderer()
  const operations: Array<string> = []
  for (const id of CLIENT_OPERATIONS) {
    const e = all.get(id)
    if (e === undefined) throw new Error(`@svc/client contract: the contract declares no operation ${id}`)
    if (e.method !== "GET" && e.method !== "POST") throw new Error(`@svc/client contract: ${id} is a ${e.method}`)
    const successes = e.successes.map(([status, schemas]) => {
      const bodies = schemas.filter((s) => !HttpApiSchema.isNoContent(s.ast))
      return `[${status}, ${bodies.length === 0 ? "null" : renderer.body(bodies, `${id} ${status}`)}]`
    })
    const errors = e.errors.map(([status, schemas]) => `[${status}, ${renderer.body(schemas, `${id} ${status}`)}]`)
    operations.push(
      `${
        doc(`\`${e.method} ${e.path}\` (${e.group}/${id}).`).replace("@category schemas", "@category http")
      }export const ${id} = {
  group: ${text(e.group)},
  id: ${text(id)},
  method: ${text(e.method)},
  path: ${text(e.path)},
  family: ${text(e.family)},
  successes: [${successes.join(", ")}],
  errors: [${errors.join(", ")}]
} as const satisfies OperationSpec`
    )
  }
  const nodes = [...renderer.named].map(([name, source]) =>
    `${doc(`The \`${name}\` schema.`)}export const ${name}: Node = ${source}`
  )
  const table = `${
    doc("Every operation of this module, by operationId.").replace("@category schemas", "@category http")
  }export const operations = {\n${CLIENT_OPERATIONS.map((id) => `  ${id}`).join(",\n")}\n} as const`
  return format(`${[HEADER, ...nodes, ...operations, table].join("\n\n")}\n`)
}

const format = (source: string): string => {
  const result = spawnSync(`${ROOT}node_modules/.bin/dprint`, ["fmt", "--stdin", CONTRACT_MODULE], {
    cwd: ROOT,
    input: source,
    encoding: "utf8"
  })
  if (result.status !== 0) throw new Error(`dprint failed: ${result.stderr}`)
  return result.stdout
}

if (import.meta.main) {
  process.stdout.write(render())
}
