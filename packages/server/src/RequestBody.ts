/**
 * Request bodies: JSON of at most 32 KiB, refused before parsing above it (by
 * Content-Length, or while reading a chunked body), sent as JSON (a body
 * without `Content-Type`, or with another media type such as `text/plain`, is
 * refused before it is read), and a non-JSON body refused as such. Both the
 * solver operations and the aggregator's read their bodies here; each family
 * renders the refusal in its own error body.
 *
 * @since 0.1.0
 */
import { ByteSize, Effect, Result } from "effect"
import { HttpIncomingMessage, type HttpServerRequest } from "effect/http"

/**
 * Largest request body, bytes (32 KiB).
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_BODY_BYTES = 32 * 1024

/**
 * Why a body was refused: `BODY_TOO_LARGE` (413, the connection is closed),
 * `CONTENT_TYPE_MISSING`, `CONTENT_TYPE_NOT_JSON`, `BODY_UNREADABLE` or
 * `BODY_NOT_JSON` (400).
 *
 * @category models
 * @since 0.1.0
 */
export type BodyRefusal =
  | "BODY_TOO_LARGE"
  | "CONTENT_TYPE_MISSING"
  | "CONTENT_TYPE_NOT_JSON"
  | "BODY_UNREADABLE"
  | "BODY_NOT_JSON"

/** `application/json` or a `+json` type (RFC 6839), with any parameters. */
const JSON_MEDIA_TYPE = /^\s*application\/(?:json|[a-z0-9!#$&^_.-]+\+json)\s*(?:;.*)?$/i

/**
 * Whether a `Content-Type` announces JSON: `application/json` or a `+json`
 * type, parameters allowed. Absent: `CONTENT_TYPE_MISSING`; another type:
 * `CONTENT_TYPE_NOT_JSON`.
 *
 * @category validation
 * @since 0.1.0
 */
export const contentTypeRefusal = (
  contentType: string | undefined
): "CONTENT_TYPE_MISSING" | "CONTENT_TYPE_NOT_JSON" | undefined =>
  contentType === undefined || contentType.trim().length === 0
    ? "CONTENT_TYPE_MISSING"
    : JSON_MEDIA_TYPE.test(contentType)
    ? undefined
    : "CONTENT_TYPE_NOT_JSON"

/**
 * Reads and parses a JSON body of at most {@link MAX_BODY_BYTES}.
 *
 * @category http
 * @since 0.1.0
 */
export const readJson = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Result.Result<unknown, BodyRefusal>> => {
  const length = request.headers["content-length"]
  if (length !== undefined && /^[0-9]+$/.test(length) && Number(length) > MAX_BODY_BYTES) {
    return Effect.succeed(Result.fail("BODY_TOO_LARGE"))
  }
  // a body in another media type (text/plain, a form) is not parsed as JSON on a guess
  const typeRefused = contentTypeRefusal(request.headers["content-type"])
  if (typeRefused !== undefined) return Effect.succeed(Result.fail(typeRefused))
  return request.text.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES)),
    Effect.result,
    Effect.map((text): Result.Result<unknown, BodyRefusal> => {
      if (Result.isFailure(text)) {
        const reason = text.failure.reason
        return Result.fail(
          reason._tag === "RequestParseError" && reason.reason === "BodyTooLarge" ? "BODY_TOO_LARGE" : "BODY_UNREADABLE"
        )
      }
      try {
        return Result.succeed(JSON.parse(text.success) as unknown)
      } catch {
        return Result.fail("BODY_NOT_JSON")
      }
    })
  )
}
