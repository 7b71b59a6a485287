/**
 * Trace export for `svc serve`: the spans of Effect's tracer (a server span per
 * request on the Effect path, continuing a W3C `traceparent`; `Permits.create`,
 * `Aggregator.quote`, the store's operations, ...) sent to an OpenTelemetry
 * collector over OTLP/HTTP, configured by the standard OpenTelemetry variables:
 *
 * | variable | meaning |
 * | --- | --- |
 * | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` | the full URL spans are posted to |
 * | `OTEL_EXPORTER_OTLP_ENDPOINT` | the collector's base URL (`/v1/traces` appended), when the above is unset |
 * | `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` | `http/protobuf` (default) or `http/json`; `grpc` is refused at start |
 * | `OTEL_EXPORTER_OTLP_(TRACES_)HEADERS` | `key=value,key2=value2`, values URL-encoded (an API key) |
 * | `OTEL_EXPORTER_OTLP_(TRACES_)COMPRESSION` | `gzip` or `none` (default) |
 * | `OTEL_BSP_SCHEDULE_DELAY` | milliseconds between exports (default 5000) |
 * | `OTEL_TRACES_EXPORTER` | `otlp` (default) or `none` |
 * | `OTEL_SDK_DISABLED` | `true`: no export |
 * | `OTEL_SERVICE_NAME` | the service name (default `svc`); `OTEL_RESOURCE_ATTRIBUTES` adds attributes |
 *
 * Without an endpoint nothing is exported and spans cost nothing. The exporter
 * is effect's own (`effect/observability`), so no OpenTelemetry SDK is loaded;
 * an application embedding the engine can provide any other tracer layer
 * (`@effect/opentelemetry` included) instead.
 *
 * @since 0.1.0
 */
import { Config, Effect, Layer, Option } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"

/**
 * The trace export settings read from the environment.
 *
 * @category models
 * @since 0.1.0
 */
export interface TracingSettings {
  /** Where spans are posted. */
  readonly url: string
  readonly protocol: "http/protobuf" | "http/json"
  readonly headers: Readonly<Record<string, string>>
  readonly compression: "gzip" | "none"
  readonly exportIntervalMillis: number
  readonly serviceName: string
}

const optionalString = (name: string) => Config.option(Config.String(name))

/** `key=value,key2=value2` with URL-encoded values, the OpenTelemetry header list. */
const parseHeaders = (name: string, list: string): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const pair of list.split(",")) {
    if (pair.trim() === "") continue
    const eq = pair.indexOf("=")
    if (eq <= 0) throw new Error(`${name}: expected key=value pairs separated by commas`)
    headers[pair.slice(0, eq).trim().toLowerCase()] = decodeURIComponent(pair.slice(eq + 1).trim())
  }
  return headers
}

/**
 * The settings, or none when trace export is off (no endpoint, `OTEL_SDK_DISABLED`,
 * or an `OTEL_TRACES_EXPORTER` without `otlp`). Fails with a message naming the
 * variable at fault.
 *
 * @category running
 * @since 0.1.0
 */
export const settings: Effect.Effect<Option.Option<TracingSettings>, Error> = Effect.gen(function*() {
  const read = yield* Config.all({
    disabled: Config.Boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
    exporters: Config.String("OTEL_TRACES_EXPORTER").pipe(Config.withDefault("otlp")),
    tracesEndpoint: optionalString("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
    endpoint: optionalString("OTEL_EXPORTER_OTLP_ENDPOINT"),
    tracesProtocol: optionalString("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
    protocol: optionalString("OTEL_EXPORTER_OTLP_PROTOCOL"),
    tracesHeaders: optionalString("OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
    headers: optionalString("OTEL_EXPORTER_OTLP_HEADERS"),
    tracesCompression: optionalString("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"),
    compression: optionalString("OTEL_EXPORTER_OTLP_COMPRESSION"),
    scheduleDelay: Config.Int("OTEL_BSP_SCHEDULE_DELAY").pipe(Config.withDefault(5000)),
    serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("svc"))
  }).pipe(Effect.mapError((e) => new Error(e.message)))
  const exporters = read.exporters.split(",").map((s) => s.trim().toLowerCase())
  if (read.disabled || !exporters.includes("otlp")) return Option.none()
  const url = Option.isSome(read.tracesEndpoint)
    ? read.tracesEndpoint.value
    : Option.map(read.endpoint, (base) => `${base.replace(/\/+$/, "")}/v1/traces`).pipe(Option.getOrUndefined)
  if (url === undefined) return Option.none()
  const urlVariable = Option.isSome(read.tracesEndpoint)
    ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    : "OTEL_EXPORTER_OTLP_ENDPOINT"
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    return yield* Effect.fail(new Error(`${urlVariable}: not an http(s) URL`))
  }
  const protocol = Option.getOrElse(Option.orElse(read.tracesProtocol, () => read.protocol), () => "http/protobuf")
  if (protocol !== "http/protobuf" && protocol !== "http/json") {
    return yield* Effect.fail(
      new Error(
        `OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} is not supported; use http/protobuf or http/json (the collector's HTTP port, usually 4318)`
      )
    )
  }
  const compression = Option.getOrElse(Option.orElse(read.tracesCompression, () => read.compression), () => "none")
  if (compression !== "gzip" && compression !== "none") {
    return yield* Effect.fail(new Error(`OTEL_EXPORTER_OTLP_COMPRESSION: expected gzip or none, got ${compression}`))
  }
  const headerVariable = Option.isSome(read.tracesHeaders)
    ? "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
    : "OTEL_EXPORTER_OTLP_HEADERS"
  const headerList = Option.getOrElse(Option.orElse(read.tracesHeaders, () => read.headers), () => "")
  const headers = yield* Effect.try({
    try: () => parseHeaders(headerVariable, headerList),
    catch: (e) => e instanceof Error && e.message.startsWith(headerVariable) ? e : new Error(`${headerVariable}: ${e}`)
  })
  return Option.some({
    url,
    protocol,
    headers,
    compression,
    exportIntervalMillis: Math.max(1, read.scheduleDelay),
    serviceName: read.serviceName
  })
})

/**
 * The tracer of a set of settings: spans batched and posted over OTLP/HTTP, the
 * last batch flushed when the layer's scope closes.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerOtlp = (settings: TracingSettings): Layer.Layer<never> =>
  OtlpTracer.layer({
    url: settings.url,
    resource: { serviceName: settings.serviceName },
    headers: settings.headers,
    compression: settings.compression,
    exportInterval: settings.exportIntervalMillis
  }).pipe(
    Layer.provide(
      Layer.merge(
        FetchHttpClient.layer,
        settings.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf
      )
    )
  )

/**
 * The tracer the environment configures, or none.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFromConfig: Layer.Layer<never, Error> = Layer.unwrap(
  Effect.map(settings, Option.match({ onNone: () => Layer.empty, onSome: layerOtlp }))
)
