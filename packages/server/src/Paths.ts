/**
 * The paths of the contract, compiled once: which methods a path allows and which
 * error family (solver `ErrorResponse` or aggregator `AggregatorError`) answers for
 * it. What dispatch needs beyond the router: `405` with `Allow` for a known path
 * and another method, the CORS preflight of a known path, and the error body of a
 * path nothing declares.
 *
 * A static path wins over a parameterised one, as in the router: `GET
 * /api/v6/execution-permits/request-message` is a known path whose only method is
 * POST (405), not a permit id.
 *
 * @since 0.1.0
 */
import * as Api from "@svc/protocol/Api"
import { Context } from "effect"
import { HttpApi } from "effect/http-api"

/**
 * An error family.
 *
 * @category models
 * @since 0.1.0
 */
export type Family = "solver" | "aggregator"

/**
 * What a path allows.
 *
 * @category models
 * @since 0.1.0
 */
export interface PathInfo {
  /** Methods declared for the path (GET implies HEAD). */
  readonly methods: ReadonlyArray<string>
  readonly family: Family
}

/**
 * The compiled table.
 *
 * @category models
 * @since 0.1.0
 */
export interface PathTable {
  /** What a path allows, or undefined when no operation declares it. */
  readonly lookup: (path: string) => PathInfo | undefined
  /** The family of any path, declared or not. */
  readonly familyOf: (path: string) => Family
  /** The `Allow` header of a path's methods. */
  readonly allowOf: (info: PathInfo) => string
}

interface Entry {
  readonly path: string
  readonly pattern: RegExp | undefined
  readonly method: string
  readonly family: Family
}

const patternOf = (path: string): RegExp | undefined =>
  path.includes(":")
    ? new RegExp(
      `^${
        path.split("/").map((s) => s.startsWith(":") ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("/")
      }$`
    )
    : undefined

/** A path nothing declares still belongs to the aggregator family under `/v1`. */
const undeclaredFamily = (path: string): Family => path === "/v1" || path.startsWith("/v1/") ? "aggregator" : "solver"

/**
 * Compiles the contract's paths.
 *
 * @category constructors
 * @since 0.1.0
 */
export const compile = (api: typeof Api.Api = Api.Api): PathTable => {
  const entries: Array<Entry> = []
  HttpApi.reflect(api, {
    onGroup() {},
    onEndpoint({ endpoint, mergedAnnotations }) {
      entries.push({
        path: endpoint.path,
        pattern: patternOf(endpoint.path),
        method: endpoint.method,
        family: Context.getOrElse(mergedAnnotations, Api.ErrorFamily, () => "solver" as const)
      })
    }
  })
  const statics = new Map<string, Array<Entry>>()
  for (const e of entries) if (e.pattern === undefined) statics.set(e.path, [...(statics.get(e.path) ?? []), e])
  const params = entries.filter((e) => e.pattern !== undefined)
  const infoOf = (matched: ReadonlyArray<Entry>): PathInfo | undefined =>
    matched.length === 0
      ? undefined
      : { methods: [...new Set(matched.map((e) => e.method))], family: matched[0]!.family }
  const lookup = (path: string) => infoOf(statics.get(path) ?? params.filter((e) => e.pattern!.test(path)))
  return {
    lookup,
    familyOf: (path) => lookup(path)?.family ?? undeclaredFamily(path),
    allowOf: (info) => [...info.methods, ...(info.methods.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ")
  }
}
