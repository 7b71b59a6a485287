/**
 * The one error of the discovery documents: a configuration (or an input of the
 * server such as the public URL) from which no valid document can be built. It is
 * a value in the failure channel of a `Result`, never thrown; its message is one
 * line and names the offending field.
 *
 * @since 0.1.0
 */
import { decodeStrict, describeSchemaError } from "@svc/protocol"
import { Data, Result, type Schema } from "effect"

/**
 * Why the discovery documents cannot be built. `message` is a single line that
 * names the field (`registry`, `chainEvidence.999`, `facade`, ...).
 *
 * @category errors
 * @since 0.1.0
 */
export class DocumentsInvalid extends Data.TaggedError("DocumentsInvalid")<{ readonly message: string }> {}

/**
 * A failed `Result` carrying a {@link DocumentsInvalid} with the message,
 * prefixed `svc discovery: `.
 *
 * @category constructors
 * @since 0.1.0
 */
export const invalid = (message: string): Result.Result<never, DocumentsInvalid> =>
  Result.fail(new DocumentsInvalid({ message: `svc discovery: ${message}` }))

/**
 * The issues of a schema error on one line: `path: message` pairs joined by
 * `; `, the path written with dots (`chainEvidence.56.explorer`).
 *
 * @category encoding
 * @since 0.1.0
 */
export const describeIssues = (error: Schema.SchemaError): string =>
  describeSchemaError(error)
    .map((issue) => {
      const message = issue.message.replace(/\s*\n\s*/g, " ")
      return issue.path.length === 0 ? message : `${issue.path.join(".")}: ${message}`
    })
    .join("; ")

/**
 * Checks a value strictly against a schema (unknown keys rejected, every issue
 * reported) and returns the value itself, unchanged, so that its key order (and
 * therefore its serialization) is the caller's. Meant for schemas whose decoding
 * only checks and never transforms (every discovery schema). On failure the
 * message starts with `what` and lists the issues.
 *
 * @category validation
 * @since 0.1.0
 */
export const conform = <S extends Schema.Decoder<unknown>>(
  schema: S,
  what: string,
  value: S["Type"]
): Result.Result<S["Type"], DocumentsInvalid> => {
  const result = decodeStrict(schema)(value)
  return Result.isSuccess(result) ? Result.succeed(value) : invalid(`${what}: ${describeIssues(result.failure)}`)
}
