/**
 * The request metrics of both paths: `http_requests_total` (by operation and
 * status) and `http_request_duration_ms` (by operation). The Effect path records
 * through `Metric.update`; the fast path (feed and event stream), which runs
 * outside the Effect runtime, through a {@link Recorder} bound to the
 * application's context, Each series is one metric
 * object, made once, so a served feed costs two map lookups.
 *
 * @since 0.1.0
 */
import { type Context, Effect, Metric } from "effect"

const REQUESTS = "http_requests_total"
const REQUESTS_DESCRIPTION = "requests answered, by operation (method and path pattern) and status"
const DURATION = "http_request_duration_ms"
const DURATION_DESCRIPTION = "time to answer a request (an event stream: to open it), milliseconds, by operation"
const BOUNDARIES = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000]

// one metric object per series (operations are path patterns, statuses few): a metric caches its key
const requestSeries = new Map<string, Metric.Metric<number, unknown>>()
const durationSeries = new Map<string, Metric.Metric<number, unknown>>()

const requestsOf = (operation: string, status: number): Metric.Metric<number, unknown> => {
  const key = `${status} ${operation}`
  let series = requestSeries.get(key)
  if (series === undefined) {
    series = Metric.counter(REQUESTS, {
      description: REQUESTS_DESCRIPTION,
      incremental: true,
      attributes: { operation, status: String(status) }
    })
    requestSeries.set(key, series)
  }
  return series
}

const durationOf = (operation: string): Metric.Metric<number, unknown> => {
  let series = durationSeries.get(operation)
  if (series === undefined) {
    series = Metric.histogram(DURATION, {
      description: DURATION_DESCRIPTION,
      boundaries: BOUNDARIES,
      attributes: { operation }
    })
    durationSeries.set(operation, series)
  }
  return series
}

const BYTES32_SEGMENT = /\/0x[0-9a-fA-F]{64}(?=\/|$)/g

/**
 * The path pattern of a known path: 32-byte ids become `{id}` (bounded label
 * values).
 *
 * @category operations
 * @since 0.1.0
 */
export const operationOf = (method: string, path: string): string =>
  `${method} ${path.replace(BYTES32_SEGMENT, "/{id}")}`

/**
 * Records one answered request (Effect path).
 *
 * @category operations
 * @since 0.1.0
 */
export const record = (operation: string, status: number, millis: number) =>
  Effect.andThen(Metric.update(requestsOf(operation, status), 1), Metric.update(durationOf(operation), millis))

/**
 * Records one answered request outside the Effect runtime.
 *
 * @category operations
 * @since 0.1.0
 */
export type Recorder = (operation: string, status: number, millis: number) => void

/**
 * A recorder into the metric registry of a context (the application's).
 *
 * @category operations
 * @since 0.1.0
 */
export const makeRecorder = (context: Context.Context<never>): Recorder => (operation, status, millis) => {
  requestsOf(operation, status).updateUnsafe(1, context)
  durationOf(operation).updateUnsafe(millis, context)
}
