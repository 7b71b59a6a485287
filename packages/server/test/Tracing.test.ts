/**
 * Trace export settings from the standard OpenTelemetry variables: when export
 * is on, where spans go, and the header list's parser (a property over any
 * header values). The export itself is tested against a collector in
 * Process.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Option } from "effect"
import * as fc from "fast-check"
import * as Tracing from "../src/Tracing.ts"

const settingsOf = (env: Record<string, string>) =>
  Effect.runPromiseExit(
    Tracing.settings.pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env)))
  )

const some = async (env: Record<string, string>) => {
  const exit = await settingsOf(env)
  assert.isTrue(Exit.isSuccess(exit), String(exit))
  const value = (exit as Exit.Success<Option.Option<Tracing.TracingSettings>>).value
  assert.isTrue(Option.isSome(value))
  return (value as Option.Some<Tracing.TracingSettings>).value
}

const failure = async (env: Record<string, string>) => {
  const exit = await settingsOf(env)
  assert.isTrue(Exit.isFailure(exit))
  return String(exit)
}

describe("Tracing.settings", () => {
  it("is off without an endpoint, when disabled, or when the exporter is none", async () => {
    for (
      const env of [
        {},
        { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" },
        { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" }
      ]
    ) {
      const exit = await settingsOf(env)
      assert.deepStrictEqual(exit, Exit.succeed(Option.none()))
    }
  })

  it("appends /v1/traces to the base endpoint; a traces endpoint is used as given", async () => {
    const base = await some({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })
    assert.strictEqual(base.url, "http://collector:4318/v1/traces")
    assert.strictEqual(base.protocol, "http/protobuf")
    assert.strictEqual(base.compression, "none")
    assert.strictEqual(base.exportIntervalMillis, 5000)
    assert.strictEqual(base.serviceName, "svc")
    const given = await some({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/ingest",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
      OTEL_BSP_SCHEDULE_DELAY: "250",
      OTEL_SERVICE_NAME: "solver-eu",
      OTEL_TRACES_EXPORTER: "console, otlp"
    })
    assert.deepStrictEqual(given, {
      url: "https://traces.example/ingest",
      protocol: "http/json",
      headers: {},
      compression: "gzip",
      exportIntervalMillis: 250,
      serviceName: "solver-eu"
    })
  })

  it("refuses what it cannot honour, naming the variable", async () => {
    assert.match(
      await failure({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
      /OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported/
    )
    assert.match(await failure({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }), /OTEL_EXPORTER_OTLP_ENDPOINT/)
    assert.match(
      await failure({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: "novalue" }),
      /OTEL_EXPORTER_OTLP_HEADERS/
    )
    assert.match(
      await failure({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_COMPRESSION: "zstd" }),
      /OTEL_EXPORTER_OTLP_COMPRESSION/
    )
  })

  it("property: a header list of URL-encoded values reads back to its pairs", async () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/)
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, fc.string({ maxLength: 40 }), { maxKeys: 5 }), async (pairs) => {
        const list = Object.entries(pairs).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join(",")
        const read = await some({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
          OTEL_EXPORTER_OTLP_TRACES_HEADERS: list
        })
        assert.deepStrictEqual(read.headers, { ...pairs })
      }),
      { numRuns: 100 }
    )
  })
})
