/**
 * Checking a catalog document before it is served: every problem at once, each
 * with the JSON path of the value at fault (`$.routes[2].serviceFeeBps`), where
 * resolving a catalog stops at the first. `svc catalog check FILE` prints them
 * and `svc serve` runs the same check at start.
 *
 * Three passes: the schema ({@link Catalog.CatalogConfig}: types, ranges such
 * as decimals 0..78 and fees 0..10,000 bps, unknown keys), the references
 * between the parts (duplicate keys, an asset on a network the catalog does not
 * have, a route naming an unknown asset or touching a network without a vault,
 * what each family needs), and, when both pass, resolution through the
 * connectors (identifiers, locators).
 *
 * @since 0.1.0
 */
import { describeSchemaError, strictParseOptions } from "@svc/protocol/schema/index"
import { Result, Schema } from "effect"
import * as Catalog from "./Catalog.ts"
import type { ConnectorRegistry } from "./Connector.ts"

/**
 * One problem of a catalog document.
 *
 * @category models
 * @since 0.1.0
 */
export interface Problem {
  /** JSON path of the value at fault, from `$` (the document). */
  readonly path: string
  readonly message: string
}

/**
 * A JSON path from path segments: `$`, `.key` for plain keys, `[n]` for
 * positions, `["…"]` for other keys.
 *
 * @category encoding
 * @since 0.1.0
 */
export const jsonPath = (segments: ReadonlyArray<string | number>): string =>
  segments.reduce<string>(
    (path, segment) =>
      typeof segment === "number"
        ? `${path}[${segment}]`
        : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)
        ? `${path}.${segment}`
        : `${path}[${JSON.stringify(segment)}]`,
    "$"
  )

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const isAddress = (u: unknown) => typeof u === "string" && /^0x[0-9a-fA-F]{40}$/.test(u)
const list = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])
const text = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

const decode = Schema.decodeUnknownResult(Catalog.CatalogConfig)

/** The schema's problems. */
const schemaProblems = (input: unknown): Array<Problem> => {
  const decoded = decode(input, strictParseOptions)
  if (Result.isSuccess(decoded)) return []
  return describeSchemaError(decoded.failure).map((issue) => ({
    path: jsonPath(issue.path),
    message: issue.message.replace(/\s*\n\s*/g, " ")
  }))
}

/** The problems of the references between networks, assets and routes (on whatever parts are usable). */
const referenceProblems = (input: unknown): Array<Problem> => {
  if (!isObject(input)) return []
  const problems: Array<Problem> = []
  const at = (segments: ReadonlyArray<string | number>, message: string) =>
    problems.push({ path: jsonPath(segments), message })
  const networks = new Map<string, Record<string, unknown>>()
  list(input.networks).forEach((n, i) => {
    if (!isObject(n)) return
    const key = text(n.key)
    if (key !== undefined) {
      if (networks.has(key)) at(["networks", i, "key"], `duplicate network key ${key}`)
      else networks.set(key, n)
    }
    if (n.vm === "EVM") {
      if (n.chainId === undefined) at(["networks", i], "an EVM network needs chainId")
      if (n.vault !== undefined && !isAddress(n.vault)) at(["networks", i, "vault"], "an EVM vault is an address")
    } else if (typeof n.vm === "string") {
      if (n.chainId !== undefined) at(["networks", i, "chainId"], "only EVM networks have a chain id")
      if (n.router !== undefined) at(["networks", i, "router"], "only EVM networks have a router")
    }
    if (n.vm === "SVM" && n.genesisHash === undefined) at(["networks", i], "an SVM network needs genesisHash")
    if (n.genesisHash !== undefined && n.vm !== "SVM") {
      at(["networks", i, "genesisHash"], "only SVM networks have a genesis hash")
    }
  })
  const assets = new Map<string, Record<string, unknown>>()
  list(input.assets).forEach((a, i) => {
    if (!isObject(a)) return
    const key = text(a.key)
    if (key !== undefined) {
      if (assets.has(key)) at(["assets", i, "key"], `duplicate asset key ${key}`)
      else assets.set(key, a)
    }
    const networkKey = text(a.network)
    const network = networkKey === undefined ? undefined : networks.get(networkKey)
    if (networkKey !== undefined && network === undefined) {
      at(["assets", i, "network"], `no network ${networkKey} in networks`)
    }
    if (network?.vm === "EVM" && a.address === undefined) {
      at(["assets", i], "an EVM asset needs address (the zero address is the native coin)")
    }
    if (network !== undefined && network.vm !== "EVM" && a.locator === undefined) {
      at(["assets", i], `a ${String(network.vm)} asset needs a locator`)
    }
  })
  const seen = new Set<string>()
  list(input.routes).forEach((r, i) => {
    if (!isObject(r)) return
    const ends = (["source", "destination"] as const).map((side) => {
      const key = text(r[side])
      if (key === undefined) return undefined
      const asset = assets.get(key)
      if (asset === undefined) {
        at(["routes", i, side], `no asset ${key} in assets`)
        return undefined
      }
      const network = networks.get(String(asset.network))
      if (network !== undefined && network.vault === undefined) {
        at(["routes", i, side], `${key} is on network ${String(asset.network)}, which has no vault`)
      }
      return key
    })
    const [source, destination] = ends
    if (source !== undefined && destination !== undefined) {
      if (source === destination) at(["routes", i], "source and destination are the same asset")
      const pair = `${source} -> ${destination}`
      if (seen.has(pair)) at(["routes", i], `duplicate route ${pair}`)
      seen.add(pair)
    }
    const min = text(r.minimumFillInRaw)
    const max = text(r.maximumFillInRaw)
    if (min !== undefined && max !== undefined && /^[0-9]+$/.test(min) && /^[0-9]+$/.test(max)) {
      if (BigInt(max) < BigInt(min)) at(["routes", i, "maximumFillInRaw"], "below minimumFillInRaw")
    }
  })
  return problems
}

/**
 * Every problem of a catalog document (already parsed from JSON or YAML), in
 * document order of the passes; empty when it is a valid catalog. With a
 * `registry`, a document that passes the schema and the references is also
 * resolved through its connectors.
 *
 * @category validation
 * @since 0.1.0
 */
export const check = (
  input: unknown,
  options?: { readonly registry?: ConnectorRegistry["Service"] | undefined }
): ReadonlyArray<Problem> => {
  const problems = [...schemaProblems(input), ...referenceProblems(input)]
  if (problems.length > 0 || options?.registry === undefined) return dedupe(problems)
  const resolved = Catalog.fromUnknown(input, { registry: options.registry })
  if (Result.isSuccess(resolved)) return []
  return [{
    path: pathOfResolution(input, resolved.failure.message),
    message: resolutionMessage(resolved.failure.message)
  }]
}

/** One problem per path and message. */
const dedupe = (problems: ReadonlyArray<Problem>): ReadonlyArray<Problem> => {
  const seen = new Set<string>()
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** Resolution names `networks.<key>`, `assets.<key>` and `routes[i]`: the JSON path of that part. */
const pathOfResolution = (input: unknown, message: string): string => {
  const named = /^(networks|assets)\.([a-z0-9._-]+?)(?:\.([A-Za-z]+))?:/.exec(message)
  if (named !== null && isObject(input)) {
    const index = list(input[named[1]!]).findIndex((part) => isObject(part) && part.key === named[2])
    if (index >= 0) return jsonPath([named[1]!, index, ...(named[3] === undefined ? [] : [named[3]])])
  }
  const route = /^routes\[(\d+)\](?:\.([A-Za-z]+))?:/.exec(message)
  if (route !== null) return jsonPath(["routes", Number(route[1]), ...(route[2] === undefined ? [] : [route[2]])])
  return "$"
}

const resolutionMessage = (message: string) =>
  message.replace(/^(?:networks|assets)\.[a-z0-9._-]+?(?:\.[A-Za-z]+)?: |^routes\[\d+\](?:\.[A-Za-z]+)?: /, "")

/**
 * The problems as lines, `<path>: <message>`.
 *
 * @category encoding
 * @since 0.1.0
 */
export const describe = (problems: ReadonlyArray<Problem>): ReadonlyArray<string> =>
  problems.map((p) => `${p.path}: ${p.message}`)
