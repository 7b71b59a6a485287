/**
 * Every resource of the V6 interface as an Effect Schema, plus strict decoding
 * (unknown keys rejected, every issue reported) and JSON Schema (2020-12) export.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { SchemaAST } from "effect"
import * as Discovery from "./Discovery.ts"
import * as Feed from "./Feed.ts"
import * as Permit from "./Permit.ts"

export * from "./Discovery.ts"
export * from "./Feed.ts"
export * from "./Permit.ts"
export * from "./Primitives.ts"

/**
 * Parse options used at every svc boundary: unknown keys are rejected, never
 * stripped, and all issues are reported.
 *
 * @category decoding
 * @since 0.1.0
 */
export const strictParseOptions: SchemaAST.ParseOptions = { onExcessProperty: "error", errors: "all" }

/**
 * Decodes unknown input strictly, returning a `Result`.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeStrict = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownResult(schema)
  return (input: unknown) => decode(input, strictParseOptions)
}

/**
 * Decodes unknown input strictly, throwing a `SchemaError` on failure.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeStrictSync = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownSync(schema)
  return (input: unknown): S["Type"] => decode(input, strictParseOptions)
}

/**
 * The named resources of the spec's part 2 (and the documents of section 4).
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
  OnchainDiscoveryFingerprint: Discovery.OnchainDiscoveryFingerprint
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
 * @category json schema
 * @since 0.1.0
 */
export const toJsonSchema = (schema: Schema.Top): JsonSchemaDocument => {
  const doc = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  return { schema: doc.schema as Record<string, unknown>, definitions: doc.definitions as JsonSchemaDocument["definitions"] }
}

/**
 * A standalone JSON Schema document (with `$schema` and `$defs`) for one schema.
 *
 * @category json schema
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
