/**
 * fetch-based HTTP for the client (browser-safe): one request as an Effect with
 * typed failures, JSON bodies, the fields of a server refusal, backoff with
 * jitter, and retries of idempotent requests. Which answer is a success and how
 * a refusal is typed is decided per operation (`operations.ts`). Internal.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Result from "effect/Result"
import { HttpError, NetworkError, ResponseInvalid, type ServerRefusal } from "../Errors.ts"
import { decoder, type Node } from "./decoder.ts"

/**
 * The fetch function the client uses (the global one unless injected).
 *
 * @category models
 * @since 0.1.0
 */
export type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>

/**
 * A response whose body has been read as text.
 *
 * @category models
 * @since 0.1.0
 */
export interface HttpResponse {
  readonly method: string
  readonly url: string
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

const describe = (error: unknown): string => {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause
    const inner = cause instanceof Error ? `: ${cause.message}` : ""
    return `${error.message}${inner}`
  }
  return String(error)
}

/**
 * The fetch to call: the injected one, else the global fetch at call time.
 *
 * @category constructors
 * @since 0.1.0
 */
export const resolveFetch = (injected: FetchFunction | undefined): FetchFunction =>
  injected ?? ((input, init) => globalThis.fetch(input, init))

/**
 * Sends a request and reads the whole body as text. Interruption aborts it.
 *
 * @category http
 * @since 0.1.0
 */
export const send = (
  fetch: FetchFunction,
  method: "GET" | "POST",
  url: string,
  options?: { readonly headers?: Readonly<Record<string, string>> | undefined; readonly body?: string | undefined }
): Effect.Effect<HttpResponse, NetworkError> =>
  Effect.tryPromise({
    try: async (signal) => {
      const init: RequestInit = { method, signal, headers: { accept: "application/json", ...options?.headers } }
      if (options?.body !== undefined) init.body = options.body
      const response = await fetch(url, init)
      const text = await response.text()
      return { method, url, status: response.status, headers: response.headers, text }
    },
    catch: (cause) => new NetworkError({ method, url, reason: describe(cause), cause })
  })

/**
 * The JSON body of a response.
 *
 * @category encoding
 * @since 0.1.0
 */
export const json = (response: HttpResponse): Effect.Effect<unknown, ResponseInvalid> =>
  Effect.try({
    try: () => JSON.parse(response.text) as unknown,
    catch: () =>
      new ResponseInvalid({
        method: response.method,
        url: response.url,
        status: response.status,
        reason: `not JSON (${response.headers.get("content-type") ?? "no content type"})`
      })
  })

/**
 * Decodes a successful body with a resource schema (unknown keys are ignored:
 * a newer server may add fields).
 *
 * @category encoding
 * @since 0.1.0
 */
export const decode = (node: Node) => {
  const run = decoder(node)
  return (response: HttpResponse, body: unknown): Effect.Effect<unknown, ResponseInvalid> => {
    const decoded = run(body)
    return Result.isSuccess(decoded)
      ? Effect.succeed(decoded.success)
      : Effect.fail(
        new ResponseInvalid({
          method: response.method,
          url: response.url,
          status: response.status,
          reason: decoded.failure.split("\n").slice(0, 3).join(" ")
        })
      )
  }
}

/**
 * Reads `Retry-After` (delta-seconds) or a body's `retryAfterSeconds`.
 *
 * @category http
 * @since 0.1.0
 */
export const retryAfterSecondsOf = (headers: Headers, body: unknown): number | null => {
  const header = headers.get("retry-after")
  if (header !== null && /^[0-9]{1,7}$/.test(header.trim())) return Number(header.trim())
  const fromBody = isRecord(body) ? body.retryAfterSeconds : undefined
  return typeof fromBody === "number" && Number.isSafeInteger(fromBody) && fromBody >= 0 ? fromBody : null
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The JSON value of a text, or `undefined` when it is not JSON.
 *
 * @category encoding
 * @since 0.1.0
 */
export const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/**
 * The fields of a refused request, read from its (parsed) body and headers.
 * Lenient: anything missing or of the wrong type is null or empty.
 *
 * @category errors
 * @since 0.1.0
 */
export const refusalFields = (response: HttpResponse, body: unknown): ServerRefusal => {
  const record = isRecord(body) ? body : {}
  const strings = (value: unknown): ReadonlyArray<string> =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []
  return {
    method: response.method,
    url: response.url,
    status: response.status,
    serverCode: typeof record.error === "string" ? record.error : null,
    reasonCodes: strings(record.reasonCodes),
    retryAfterSeconds: retryAfterSecondsOf(response.headers, body),
    action: typeof record.action === "string" ? record.action : null,
    retryable: typeof record.retryable === "boolean" ? record.retryable : null,
    serverMessage: typeof record.message === "string" ? record.message : null,
    diagnostics: isRecord(record.diagnostics) ? record.diagnostics : null
  }
}

/**
 * Reconnection and retry delays.
 *
 * @category models
 * @since 0.1.0
 */
export interface BackoffPolicy {
  /** First delay, ms. */
  readonly initialDelayMs: number
  /** Cap of every delay, ms. */
  readonly maxDelayMs: number
}

/**
 * The delay before attempt `failures + 1`: `initial * 2^(failures - 1)`, capped,
 * with "equal jitter" (uniform in [d/2, d]) so that many clients do not
 * reconnect in step.
 *
 * @category http
 * @since 0.1.0
 */
export const backoffDelay = (policy: BackoffPolicy, failures: number): Effect.Effect<number> =>
  Effect.map(Random.next, (r) => {
    const exponent = Math.min(Math.max(failures - 1, 0), 30)
    const base = Math.min(policy.maxDelayMs, Math.max(0, policy.initialDelayMs) * 2 ** exponent)
    return Math.round(base / 2 + (r * base) / 2)
  })

/**
 * Sleeps for a number of milliseconds (on the Effect clock).
 *
 * @category http
 * @since 0.1.0
 */
export const sleepMillis = (ms: number): Effect.Effect<void> => Effect.sleep(Duration.millis(Math.max(0, ms)))

/**
 * Retries of an idempotent request.
 *
 * @category models
 * @since 0.1.0
 */
export interface RetryPolicy extends BackoffPolicy {
  /** Attempts in total (the first one included). */
  readonly maxAttempts: number
  /** A Retry-After longer than this ends the retries, ms. */
  readonly maxRetryAfterMs: number
}

/**
 * Whether an idempotent request may be repeated after this failure: network
 * errors (the request may or may not have arrived), 409 IDEMPOTENCY_IN_PROGRESS,
 * 429, 502, 503 and 504. Anything else is final.
 *
 * @category http
 * @since 0.1.0
 */
export const isTransient = (error: unknown): boolean => {
  if (error instanceof NetworkError) return true
  if (error instanceof HttpError) {
    if (error.status === 409) return error.serverCode === "IDEMPOTENCY_IN_PROGRESS"
    return error.status === 429 || error.status === 502 || error.status === 503 || error.status === 504
  }
  return false
}

/**
 * Runs `attempt` until it succeeds, fails with a non-transient error, or the
 * attempts run out. The caller guarantees that `attempt` sends the identical
 * request every time. Retry-After is honoured.
 *
 * @category http
 * @since 0.1.0
 */
export const retryTransient = <A, E>(
  attempt: Effect.Effect<A, E>,
  policy: RetryPolicy,
  onRetry?: (error: E, attempt: number, delayMs: number) => void
): Effect.Effect<A, E> => {
  const loop = (n: number): Effect.Effect<A, E> =>
    Effect.catch(attempt, (error) => {
      if (n >= policy.maxAttempts || !isTransient(error)) return Effect.fail(error)
      const retryAfterMs = error instanceof HttpError && error.retryAfterSeconds !== null
        ? error.retryAfterSeconds * 1000
        : 0
      if (retryAfterMs > policy.maxRetryAfterMs) return Effect.fail(error)
      return Effect.flatMap(backoffDelay(policy, n), (delay) => {
        const wait = Math.max(delay, retryAfterMs)
        onRetry?.(error, n, wait)
        return Effect.andThen(sleepMillis(wait), loop(n + 1))
      })
    })
  return loop(1)
}
