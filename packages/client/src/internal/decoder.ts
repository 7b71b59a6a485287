/**
 * Compiled body decoders: the protocol schemas of the responses the client
 * reads, as plain data (`contract.ts`, generated from the HTTP contract and its
 * Effect Schemas), run by a small interpreter instead of Effect's Schema, so that
 * a browser bundle of the client does not carry the Schema runtime.
 *
 * The data is derived from the schemas (see `test/support/contract.ts`) and
 * decodes as `Schema.decodeUnknown*` does with its default options (`errors:
 * "first"`, unknown keys ignored): the same values are accepted, the output has
 * the same keys (unknown keys dropped, declared ones in declaration order), and
 * the failure message has the same form (`Expected ...` / `Missing key`, then
 * `  at ["key"][0]`). The checks the schemas define themselves run the very same
 * functions (`@svc/protocol/schema/Checks`). Internal.
 *
 * @since 0.1.0
 */
import { type CheckId, CHECKS } from "@svc/protocol/schema/Checks"
import * as Result from "effect/Result"

/**
 * A check of a node, as Effect's built-in filters describe themselves
 * (`representation`), or a check of `@svc/protocol/schema/Checks` by id.
 *
 * @category models
 * @since 0.1.0
 */
export type Check =
  | { readonly _tag: "isPattern"; readonly regExp: RegExp; readonly expected: string }
  | { readonly _tag: "isMinLength"; readonly minLength: number; readonly expected: string }
  | { readonly _tag: "isMaxLength"; readonly maxLength: number; readonly expected: string }
  | { readonly _tag: "isInt"; readonly expected: string }
  | { readonly _tag: "isFinite"; readonly expected: string }
  | { readonly _tag: "isGreaterThanOrEqualTo"; readonly minimum: number; readonly expected: string }
  | { readonly _tag: "isBetween"; readonly minimum: number; readonly maximum: number; readonly expected: string }
  | { readonly _tag: "check"; readonly id: CheckId; readonly expected: string }

/**
 * A property of an object node: name, type, and whether it may be absent.
 *
 * @category models
 * @since 0.1.0
 */
export type Property = readonly [name: string, type: Node, optional?: true]

/**
 * A schema node. `expected` is the text of a type mismatch when it is not the
 * node kind's own (`string`, `object`, ...): the schema's identifier.
 *
 * @category models
 * @since 0.1.0
 */
export type Node =
  | {
    readonly _tag: "String" | "Number" | "Boolean" | "Null" | "Unknown" | "Json"
    readonly checks?: ReadonlyArray<Check>
    readonly expected?: string
  }
  | { readonly _tag: "Literal"; readonly literal: string | number | boolean | null; readonly expected?: string }
  | {
    readonly _tag: "Objects"
    readonly properties: ReadonlyArray<Property>
    /** The value type of a string-keyed index signature (a record). */
    readonly rest?: Node
    readonly expected?: string
  }
  | {
    readonly _tag: "Arrays"
    readonly elements: ReadonlyArray<Node>
    readonly rest?: Node
    readonly checks?: ReadonlyArray<Check>
    readonly expected?: string
  }
  | { readonly _tag: "Union"; readonly members: ReadonlyArray<Node>; readonly expected: string }

/**
 * A decoder: the decoded value, or the failure message.
 *
 * @category models
 * @since 0.1.0
 */
export type Decoder<A> = (input: unknown) => Result.Result<A, string>

type Path = ReadonlyArray<string | number>

/** A failure: one or more messages, each at its path (a union reports every member that could take the input). */
class Issue {
  readonly lines: ReadonlyArray<readonly [message: string, path: Path]>
  constructor(message: string, path: Path, more: ReadonlyArray<readonly [string, Path]> = []) {
    this.lines = [[message, path], ...more]
  }
}

const EXPECTED: Record<Node["_tag"], string> = {
  String: "string",
  Number: "number",
  Boolean: "boolean",
  Null: "null",
  Unknown: "unknown",
  Json: "JSON value",
  Literal: "",
  Objects: "object",
  Arrays: "array",
  Union: ""
}

const expectedOf = (node: Node): string =>
  node.expected ?? (node._tag === "Literal" ? JSON.stringify(node.literal) : EXPECTED[node._tag])

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isJsonLeaf = (u: unknown): boolean =>
  u === null || typeof u === "string" || typeof u === "boolean" || (typeof u === "number" && Number.isFinite(u))

/** Effect's `Schema.Json`: JSON leaves, arrays and plain objects, no cycles. */
const isJson = (u: unknown, path: Set<object> = new Set()): boolean => {
  if (typeof u !== "object" || u === null) return isJsonLeaf(u)
  if (path.has(u)) return false
  if (!Array.isArray(u)) {
    const prototype = Object.getPrototypeOf(u) as object | null
    if (prototype !== null && prototype !== Object.prototype && Object.getPrototypeOf(prototype) !== null) return false
  }
  path.add(u)
  const values = Array.isArray(u) ? Array.from(u) : Object.values(u)
  const ok = values.every((value) => isJson(value, path))
  path.delete(u)
  return ok
}

/** The first failing check's message, or undefined. */
const runChecks = (checks: ReadonlyArray<Check> | undefined, value: unknown): string | undefined => {
  if (checks === undefined) return undefined
  for (const check of checks) {
    let passed: boolean | string
    switch (check._tag) {
      case "isPattern":
        check.regExp.lastIndex = 0
        passed = check.regExp.test(value as string)
        break
      case "isMinLength":
        passed = (value as { length: number }).length >= check.minLength
        break
      case "isMaxLength":
        passed = (value as { length: number }).length <= check.maxLength
        break
      case "isInt":
        passed = Number.isSafeInteger(value)
        break
      case "isFinite":
        passed = Number.isFinite(value)
        break
      case "isGreaterThanOrEqualTo":
        passed = (value as number) >= check.minimum
        break
      case "isBetween":
        passed = (value as number) >= check.minimum && (value as number) <= check.maximum
        break
      case "check":
        passed = CHECKS[check.id](value as string)
        break
    }
    if (passed !== true) return typeof passed === "string" ? passed : `Expected ${check.expected}`
  }
  return undefined
}

/** Sets an own property, `__proto__` included (as data, never the prototype). */
const assign = (out: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  } else out[key] = value
}

/** Whether the input has the key (own or inherited, as Schema reads it; `__proto__` only as an own key). */
const has = (input: Record<string, unknown>, key: string): boolean =>
  key === "__proto__" ? Object.hasOwn(input, key) : key in input

const ALL_TYPES: ReadonlyArray<string> = ["null", "undefined", "string", "number", "boolean", "object", "array"]

/** The runtime types a node can take (Schema's candidate types). */
const candidateTypes = (node: Node): ReadonlyArray<string> => {
  switch (node._tag) {
    case "String":
    case "Number":
    case "Boolean":
    case "Null":
      return [node._tag.toLowerCase()]
    case "Literal":
      return [typeof node.literal]
    case "Arrays":
      return ["array"]
    case "Objects":
      return ["object"]
    case "Union":
      return [...new Set(node.members.flatMap(candidateTypes))]
    case "Unknown":
    case "Json":
      return ALL_TYPES
  }
}

/** The required literal properties of an object node: what tells union members apart. */
const sentinelsOf = (node: Node): ReadonlyArray<readonly [string, unknown]> =>
  node._tag === "Objects"
    ? node.properties.flatMap(([name, type, optional]) =>
      optional !== true && type._tag === "Literal" ? [[name, type.literal] as const] : []
    )
    : []

const runtimeType = (u: unknown): string => u === null ? "null" : Array.isArray(u) ? "array" : typeof u

/**
 * The members of a union that may take the input, in order, as Schema selects
 * them: by literal value, by the literal properties of object members, else by
 * runtime type.
 */
const candidates = (members: ReadonlyArray<Node>, input: unknown): ReadonlyArray<Node> => {
  const literal = (m: Node) => m._tag === "Literal"
  if (members.length > 0 && members.every(literal)) {
    return members.filter((m) => (m as { readonly literal: unknown }).literal === input)
  }
  const sentinels = members.map(sentinelsOf)
  const otherwise = (i: number) => sentinels[i]!.length === 0
  const type = runtimeType(input)
  const byType = (i: number) => otherwise(i) && candidateTypes(members[i]!).includes(type)
  const keys = new Set(sentinels.flatMap((list) => list.map(([key]) => key)))
  const indexes = members.map((_, i) => i)
  if (keys.size === 0) {
    return indexes.filter((i) =>
      byType(i) && (!literal(members[i]!) || (members[i] as { literal: unknown }).literal === input)
    )
      .map((i) => members[i]!)
  }
  const isObject = typeof input === "object" && input !== null
  const record = input as Record<string, unknown>
  const valueOf = (key: string) => has(record, key) ? record[key] : undefined
  if (keys.size === 1 && indexes.every((i) => !otherwise(i))) {
    if (!isObject) return []
    const [key] = keys
    const value = valueOf(key!)
    if (value === undefined) return []
    return members.filter((_, i) => sentinels[i]!.some(([k, v]) => k === key && v === value))
  }
  if (!isObject) return indexes.filter(byType).map((i) => members[i]!)
  const owners = (key: string) => indexes.filter((i) => sentinels[i]!.some(([k]) => k === key))
  const matching = (key: string, value: unknown) =>
    indexes.filter((i) => sentinels[i]!.some(([k, v]) => k === key && v === value))
  const selected = new Set(indexes.filter(byType))
  const discriminated = indexes.filter((i) => !otherwise(i)).length
  // a key every discriminated member has (the one with the most values) selects directly
  let common: string | undefined
  let commonValues = -1
  for (const key of keys) {
    const own = owners(key)
    const values = new Set(own.flatMap((i) => sentinels[i]!.filter(([k]) => k === key).map(([, v]) => v))).size
    if (own.length === discriminated && values > commonValues) {
      common = key
      commonValues = values
    }
  }
  let direct: string | undefined
  if (common !== undefined && has(record, common)) {
    const match = matching(common, record[common])
    if (match.length === 0) return indexes.filter(byType).map((i) => members[i]!)
    for (const i of match) selected.add(i)
    direct = common
  }
  if (direct === undefined) {
    for (const key of keys) {
      if (has(record, key)) { for (const i of matching(key, record[key])) selected.add(i) }
    }
  }
  for (const key of keys) {
    if (key === direct || !has(record, key)) continue
    const match = new Set(matching(key, valueOf(key)))
    for (const i of owners(key)) if (selected.has(i) && !match.has(i)) selected.delete(i)
  }
  return [...selected].sort((a, b) => a - b).map((i) => members[i]!)
}

const decodeNode = (node: Node, input: unknown, path: Path): unknown => {
  switch (node._tag) {
    case "Unknown":
      return input
    case "Json":
      if (!isJson(input)) throw new Issue(`Expected ${expectedOf(node)}`, path)
      return input
    case "Literal":
      if (input !== node.literal) throw new Issue(`Expected ${expectedOf(node)}`, path)
      return input
    case "String":
    case "Number":
    case "Boolean":
    case "Null": {
      const ok = node._tag === "Null" ? input === null : typeof input === node._tag.toLowerCase()
      if (!ok) throw new Issue(`Expected ${expectedOf(node)}`, path)
      const failed = runChecks(node.checks, input)
      if (failed !== undefined) throw new Issue(failed, path)
      return input
    }
    case "Arrays": {
      if (!Array.isArray(input)) throw new Issue(`Expected ${expectedOf(node)}`, path)
      const out: Array<unknown> = []
      const { elements, rest } = node
      const length = rest === undefined ? elements.length : Math.max(input.length, elements.length)
      for (let i = 0; i < length; i++) {
        if (i >= input.length) throw new Issue("Missing key", [...path, i])
        out.push(decodeNode(i < elements.length ? elements[i]! : rest!, input[i], [...path, i]))
      }
      if (rest === undefined && input.length > elements.length) {
        throw new Issue("Expected no excess property", [...path, elements.length])
      }
      const failed = runChecks(node.checks, out)
      if (failed !== undefined) throw new Issue(failed, path)
      return out
    }
    case "Objects": {
      if (!isRecord(input)) throw new Issue(`Expected ${expectedOf(node)}`, path)
      const out: Record<string, unknown> = {}
      for (const [name, type, optional] of node.properties) {
        if (!has(input, name)) {
          if (optional === true) continue
          throw new Issue("Missing key", [...path, name])
        }
        assign(out, name, decodeNode(type, input[name], [...path, name]))
      }
      if (node.rest !== undefined) {
        for (const key of Object.keys(input)) {
          const value = decodeNode(node.rest, input[key], [...path, key])
          if (!node.properties.some(([name]) => name === key)) assign(out, key, value)
        }
      }
      return out
    }
    case "Union": {
      const issues: Array<Issue> = []
      for (const member of candidates(node.members, input)) {
        try {
          return decodeNode(member, input, path)
        } catch (issue) {
          if (!(issue instanceof Issue)) throw issue
          issues.push(issue)
        }
      }
      if (issues.length === 0) throw new Issue(`Expected ${expectedOf(node)}`, path)
      const [[message, at], ...more] = issues.flatMap((issue) => issue.lines)
      throw new Issue(message!, at!, more)
    }
  }
}

const formatPath = (path: Path): string =>
  path.map((key) => typeof key === "number" ? `[${key}]` : `[${JSON.stringify(key)}]`).join("")

/**
 * The decoder of a node: the decoded value (a copy without unknown keys) or the
 * message of the first problem (`Expected string\n  at ["endpoints"]["feed"]`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const decoder = <A = unknown>(node: Node): Decoder<A> => (input) => {
  try {
    return Result.succeed(decodeNode(node, input, []) as A)
  } catch (issue) {
    if (!(issue instanceof Issue)) throw issue
    return Result.fail(
      issue.lines.map(([message, path]) => path.length === 0 ? message : `${message}\n  at ${formatPath(path)}`)
        .join("\n")
    )
  }
}

/**
 * An object node without some of its properties (the feed envelope without its
 * unsigned route views).
 *
 * @category constructors
 * @since 0.1.0
 */
export const omit = (node: Node, names: ReadonlyArray<string>): Node => {
  if (node._tag !== "Objects") throw new Error(`@svc/client: omit needs an object node, not ${node._tag}`)
  // a new, anonymous schema: a type mismatch reads "Expected object"
  const { expected: _named, ...rest } = node
  return { ...rest, properties: node.properties.filter(([name]) => !names.includes(name)) }
}
