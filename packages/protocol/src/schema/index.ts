/**
 * Every resource of the V6 interface as an Effect Schema, plus strict decoding
 * (unknown keys rejected, every issue reported) and JSON Schema (2020-12) export.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import { screamingSnake } from "../Patterns.ts"
import * as Aggregator from "./Aggregator.ts"
import * as Discovery from "./Discovery.ts"
import * as Feed from "./Feed.ts"
import * as Permit from "./Permit.ts"

export * from "./Aggregator.ts"
export * from "./Discovery.ts"
export * from "./Feed.ts"
export * from "./Permit.ts"
export * from "./Primitives.ts"

/**
 * Parse options used at every svc boundary: unknown keys are rejected, never
 * stripped, and all issues are reported.
 *
 * @category encoding
 * @since 0.1.0
 */
export const strictParseOptions: SchemaAST.ParseOptions = { onExcessProperty: "error", errors: "all" }

/**
 * Decodes unknown input strictly, returning a `Result`.
 *
 * @category encoding
 * @since 0.1.0
 */
export const decodeStrict = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownResult(schema)
  return (input: unknown) => decode(input, strictParseOptions)
}

/**
 * Decodes unknown input strictly, throwing a `SchemaError` on failure.
 *
 * @category encoding
 * @since 0.1.0
 */
export const decodeStrictSync = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownSync(schema)
  return (input: unknown): S["Type"] => decode(input, strictParseOptions)
}

/**
 * The named resources of the spec's part 2, the documents of section 4 and the
 * aggregator bodies.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Resources = {
  Route: Feed.Route,
  SignedFeedPayload: Feed.SignedFeedPayload,
  SignedFeed: Feed.SignedFeed,
  ActionableRoute: Feed.ActionableRoute,
  FeedResponse: Feed.FeedResponse,
  RouteMetrics: Feed.RouteMetrics,
  RouteDetailResponse: Feed.RouteDetailResponse,
  PermitRequest: Permit.PermitRequest,
  PermitCreateRequest: Permit.PermitCreateRequest,
  PermitRequestMessageResponse: Permit.PermitRequestMessageResponse,
  ExecutionPermit: Permit.ExecutionPermit,
  DirectExecution: Permit.DirectExecution,
  ExecutionPermitEnvelope: Permit.ExecutionPermitEnvelope,
  ExecutionPermitResponse: Permit.ExecutionPermitResponse,
  PermitStatusResponse: Permit.PermitStatusResponse,
  ErrorResponse: Permit.ErrorResponse,
  SseErrorEvent: Permit.SseErrorEvent,
  ScannerHints: Discovery.ScannerHints,
  StandardPayloadEncoding: Discovery.StandardPayloadEncoding,
  StandardsManifest: Discovery.StandardsManifest,
  SolverDiscovery: Discovery.SolverDiscovery,
  OnchainDiscoveryFingerprint: Discovery.OnchainDiscoveryFingerprint,
  AggregatorQuoteRequest: Aggregator.AggregatorQuoteRequest,
  AggregatorQuote: Aggregator.AggregatorQuote,
  AggregatorBuildRequest: Aggregator.AggregatorBuildRequest,
  AggregatorBuild: Aggregator.AggregatorBuild,
  AggregatorStatus: Aggregator.AggregatorStatus,
  AggregatorStatusList: Aggregator.AggregatorStatusList,
  AggregatorQuoteValidity: Aggregator.AggregatorQuoteValidity,
  AggregatorChains: Aggregator.AggregatorChains,
  AggregatorTokens: Aggregator.AggregatorTokens,
  AggregatorHealth: Aggregator.AggregatorHealth,
  AggregatorError: Aggregator.AggregatorError,
  AggregatorManifest: Aggregator.AggregatorManifest
} as const

/**
 * A JSON Schema (draft 2020-12) with its referenced definitions.
 *
 * @category models
 * @since 0.1.0
 */
export interface JsonSchemaDocument {
  readonly schema: Record<string, unknown>
  readonly definitions: Record<string, Record<string, unknown>>
}

/**
 * The JSON Schema (2020-12) of one schema, with `additionalProperties: false`
 * wherever the schema rejects unknown keys. References point to `#/$defs/<Name>`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const toJsonSchema = (schema: Schema.Top): JsonSchemaDocument => {
  const doc = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  return {
    schema: doc.schema as Record<string, unknown>,
    definitions: doc.definitions as JsonSchemaDocument["definitions"]
  }
}

/**
 * A standalone JSON Schema document (with `$schema` and `$defs`) for one schema.
 *
 * @category schemas
 * @since 0.1.0
 */
export const toStandaloneJsonSchema = (schema: Schema.Top): Record<string, unknown> => {
  const doc = toJsonSchema(schema)
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...doc.schema,
    ...(Object.keys(doc.definitions).length > 0 ? { $defs: doc.definitions } : {})
  }
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const screaming = (key: PropertyKey): string => screamingSnake(String(key))

/**
 * One schema issue: where and what.
 *
 * @category encoding
 * @since 0.1.0
 */
export interface SchemaIssueSummary {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
  /** A stable reason code: `<FIELD>_MISSING`, `<FIELD>_INVALID`, `UNKNOWN_FIELD`, or the code a rule names. */
  readonly code: string
}

/**
 * The issues of a schema error as stable reason codes (for `reasonCodes`) and
 * path/message pairs (for `diagnostics`). The code uses the first path segment:
 * `quoteId` -> `QUOTE_ID_INVALID` or `QUOTE_ID_MISSING`; an unknown key gives
 * `UNKNOWN_FIELD`; a rule whose message starts with a CODE: uses that code.
 *
 * @category encoding
 * @since 0.1.0
 */
export const describeSchemaError = (error: Schema.SchemaError): ReadonlyArray<SchemaIssueSummary> => {
  const out: Array<SchemaIssueSummary> = []
  for (const issue of formatIssues(error.issue).issues) {
    const path = (issue.path ?? []).map((
      p
    ) => (typeof p === "object" && p !== null && "key" in p ? p.key : p)) as Array<
      PropertyKey
    >
    const message = issue.message
    const named = /^([A-Z][A-Z0-9_]+):/.exec(message)
    let code: string
    if (named !== null) code = named[1]!
    else if (/excess property|unexpected key/i.test(message)) code = "UNKNOWN_FIELD"
    else if (path.length === 0) code = "BODY_INVALID"
    else if (/^missing key/i.test(message)) code = `${screaming(path[0]!)}_MISSING`
    else code = `${screaming(path[0]!)}_INVALID`
    out.push({ path: path.map((p) => typeof p === "number" ? p : String(p)), message, code })
  }
  return out
}
