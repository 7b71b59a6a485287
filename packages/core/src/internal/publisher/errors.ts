/**
 * The failures of the publisher: {@link PublicationUnavailable} (nothing can be
 * served), {@link PublishFailed} (a publication could not be built or signed),
 * and the two ways a payload's text fails (its schema, its canonical form).
 * Internal: the public names are re-exported by `Publisher`.
 *
 * @since 0.1.0
 */
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import { Data, type Schema } from "effect"

/**
 * No publication can be served: `closed` (operator pause) or unavailable.
 *
 * @category errors
 * @since 0.1.0
 */
export class PublicationUnavailable extends Data.TaggedError("PublicationUnavailable")<{
  readonly closed: boolean
  readonly reason: string
}> {
  override get message(): string {
    return this.closed ? `publication closed: ${this.reason}` : `publication unavailable: ${this.reason}`
  }
}

/**
 * A publication could not be built or signed.
 *
 * @category errors
 * @since 0.1.0
 */
export class PublishFailed
  extends Data.TaggedError("PublishFailed")<{ readonly reason: string; readonly cause?: unknown }>
{
  override get message(): string {
    return `publication failed: ${this.reason}`
  }
}

/**
 * The failure of a payload (or a route of it, at `where`) that fails its schema: it is never signed.
 *
 * @category errors
 * @since 0.1.0
 */
export const schemaFailure = (where: string, error: Schema.SchemaError) =>
  new PublishFailed({
    reason: `payload fails its schema at ${where}: ${error.message.replace(/\s*\n\s*/g, " ")}`
  })

/**
 * The failure of a value without a canonical JSON form.
 *
 * @category errors
 * @since 0.1.0
 */
export const canonicalFailure = (error: unknown) =>
  error instanceof CanonicalJson.CanonicalJsonError
    ? new PublishFailed({ reason: error.message, cause: error })
    : new PublishFailed({ reason: `no canonical JSON form: ${String(error)}`, cause: error })
