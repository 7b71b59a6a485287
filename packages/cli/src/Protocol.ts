/**
 * The protocol commands of the svc tool as pure functions from parsed JSON input
 * to the JSON value the command prints. They throw `BadInput` (Io.ts) for input
 * the command cannot work with.
 *
 * The commands that need no schema are defined in internal/protocolCommands.ts
 * and exported here; the permit commands, which decode the permit with the
 * ExecutionPermit schema, are defined here. The fast start of the executable
 * loads this module only for the permit commands.
 *
 * @since 0.1.0
 */
import * as PermitAbi from "@svc/protocol/PermitAbi"
import * as PermitDigest from "@svc/protocol/PermitDigest"
import { describeSchemaError, strictParseOptions } from "@svc/protocol/schema/index"
import { ExecutionPermit } from "@svc/protocol/schema/Permit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Struct from "effect/Struct"
import { bad, isRecord, wrap } from "./internal/protocolCommands.ts"

/**
 * The commands that need no schema, defined in internal/protocolCommands.ts:
 * `svc canonical`, `svc feed-hash`, `svc verify-feed`, `svc permit-message`,
 * `svc sign` and `svc ids` (with `ID_KINDS`, the kinds it derives).
 *
 * @category running
 * @since 0.1.0
 */
export { canonical, feedHash, ID_KINDS, ids, permitMessage, sign, verifyFeed } from "./internal/protocolCommands.ts"

/**
 * The four fields of an ExecutionPermit that are JSON only: not part of the ABI
 * tuple, not covered by permitDigest.
 *
 * @category constants
 * @since 0.1.0
 */
export const JSON_ONLY_PERMIT_FIELDS = ["publicationLane", "serviceCategory", "feeMode", "serviceFeeBps"] as const

const decodePermit = Schema.decodeUnknownResult(ExecutionPermit)
/** The 31 fields the ABI encodes and the digest covers, with the same rules as in ExecutionPermit. */
const decodeTuplePermit = Schema.decodeUnknownResult(
  ExecutionPermit.mapFields(Struct.pick(PermitAbi.PERMIT_TUPLE_FIELDS.map((f) => f.name)))
)

/** Finds the permit (and signature, when present) in a permit, envelope or response. */
const permitParts = (input: unknown): { permit: unknown; signature: unknown } => {
  if (!isRecord(input)) return bad("input: expected an object")
  // ExecutionPermitResponse / PermitStatusResponse { ok, permit: envelope }
  const envelope = input.ok === true && isRecord(input.permit) ? input.permit : input
  if (isRecord(envelope.permit)) return { permit: envelope.permit, signature: envelope.permitSignature }
  return { permit: envelope, signature: undefined }
}

const pathText = (path: ReadonlyArray<string | number>) =>
  path.map((p, i) => typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`).join("")

/** One line of a permit's schema issues: the missing keys together, then each other issue at its path. */
const permitIssues = (error: Schema.SchemaError, tupleForm: boolean): string => {
  const issues = describeSchemaError(error)
  const missing = issues.filter((i) => i.code.endsWith("_MISSING") && i.path.length === 1).map((i) => String(i.path[0]))
  const others = issues.filter((i) => !(i.code.endsWith("_MISSING") && i.path.length === 1)).map((i) =>
    i.path.length === 0 ? i.message : `${pathText(i.path)}: ${i.code === "UNKNOWN_FIELD" ? "unknown field" : i.message}`
  )
  const parts = [...(missing.length > 0 ? [`missing ${missing.join(", ")}`] : []), ...others]
  const jsonOnlyMissing = missing.some((m) => (JSON_ONLY_PERMIT_FIELDS as ReadonlyArray<string>).includes(m))
  const hint = missing.length === 0
    ? ""
    : tupleForm
    ? ` (read as the 31-field ABI form: it has none of ${JSON_ONLY_PERMIT_FIELDS.join(", ")})`
    : jsonOnlyMissing
    ? ` (give all 35 fields, or the 31 ABI fields without ${JSON_ONLY_PERMIT_FIELDS.join(", ")})`
    : ""
  return `${parts.join("; ")}${hint}`
}

/**
 * Decodes a permit in either form: all 35 fields of an ExecutionPermit, or the 31
 * fields of the ABI tuple (what the digest covers and the payload encodes) when
 * none of the 4 JSON-only fields is present.
 */
const strictPermit = (permit: unknown): PermitAbi.AbiPermit => {
  if (!isRecord(permit)) return bad("permit: expected an object")
  const tupleForm = JSON_ONLY_PERMIT_FIELDS.every((field) => !(field in permit))
  const decoded = tupleForm ? decodeTuplePermit(permit, strictParseOptions) : decodePermit(permit, strictParseOptions)
  if (Result.isFailure(decoded)) return bad(`permit: ${permitIssues(decoded.failure, tupleForm)}`)
  return decoded.success
}

/**
 * `svc permit-digest`: `{ permitDigest }` of an ExecutionPermit (or of the permit
 * inside an envelope or a permit response). The permit has all 35 fields, or only
 * the 31 of the ABI tuple (without {@link JSON_ONLY_PERMIT_FIELDS}): the digest is
 * the same.
 *
 * @category running
 * @since 0.1.0
 */
export const permitDigest = (input: unknown): { readonly permitDigest: string } =>
  wrap(() => ({ permitDigest: PermitDigest.digest(strictPermit(permitParts(input).permit)) }))

/**
 * `svc encode-permit`: `{ payload }`, the standard payload `abi.encode(permit,
 * permitSignature)` of an ExecutionPermitEnvelope (or `{ permit, permitSignature }`,
 * or a permit response). The permit has all 35 fields, or only the 31 of the ABI
 * tuple: the payload is the same.
 *
 * @category running
 * @since 0.1.0
 */
export const encodePermit = (input: unknown): { readonly payload: string } =>
  wrap(() => {
    const { permit, signature } = permitParts(input)
    if (typeof signature !== "string" || !/^0x[0-9a-fA-F]{130}$/.test(signature)) {
      return bad("permitSignature: must be 0x followed by 130 hex digits")
    }
    return { payload: PermitAbi.encodePayload(strictPermit(permit), signature) }
  })
