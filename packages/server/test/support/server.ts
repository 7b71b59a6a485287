/**
 * A real svc server on an ephemeral port for HTTP-level tests: SQLite in a
 * temporary directory, a fixed authority key, the demo catalog.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { scaled } from "../../../../test/support/time.ts"
import * as App from "../../src/App.ts"
import * as Server from "../../src/Server.ts"
import type { ServerConfig } from "../../src/ServerConfig.ts"

export const AUTHORITY_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const
export const PAYER_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" as const

export const demoCatalog = JSON.parse(readFileSync(Server.DEMO_CATALOG_PATH, "utf8")) as unknown

export const testConfig = (overrides?: Partial<ServerConfig>): ServerConfig => ({
  port: 0,
  host: "127.0.0.1",
  publicUrl: Option.none(),
  dataDir: mkdtempSync(join(tmpdir(), "svc-server-test-")),
  signerKey: Option.some(Redacted.make(AUTHORITY_KEY)),
  catalogPath: Option.none(),
  databaseUrl: Option.none(),
  serverSecret: Option.none(),
  onchainPath: Option.none(),
  feedTtlSeconds: 300,
  permitTtlSeconds: 120,
  permitRateLimit: 600,
  permitRateWindowSeconds: 60,
  sseMaxSubscribers: 100,
  sseHeartbeatMs: 15_000,
  logLevel: "none",
  ...overrides
})

/** A server layer exposing the app control and the engine services. */
export const serverLayer = (config: ServerConfig = testConfig(), catalog: unknown = demoCatalog) =>
  Server.layer(config, catalog)

/** The base URL of the server in context. */
export const baseUrl = Effect.map(Effect.service(App.AppControl), (c) => c.publicUrl)

export const build = (layer: Layer.Layer<any, any, never>) =>
  Effect.map(Layer.build(layer), (ctx) => Context.get(ctx, App.AppControl).publicUrl)

/** Reads server-sent events incrementally from a fetch response. */
export const sseReader = (response: Response) => {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  const events: Array<{ event?: string; id?: string; data?: string; retry?: string; comment?: string }> = []
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined
  /** Next parsed block (an event, a retry or a comment), or undefined after `ms` (5 s, scaled: a bound on a wait). */
  const next = async (ms = scaled(5000)): Promise<(typeof events)[number] | undefined> => {
    const deadline = Date.now() + ms
    while (true) {
      const end = buffer.indexOf("\n\n")
      if (end !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const parsed: (typeof events)[number] = {}
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) parsed.comment = line.slice(1).trim()
          else {
            const i = line.indexOf(":")
            const field = line.slice(0, i)
            const value = line.slice(i + 1).replace(/^ /, "")
            ;(parsed as Record<string, string>)[field] = field === "data" && parsed.data !== undefined
              ? `${parsed.data}\n${value}`
              : value
          }
        }
        events.push(parsed)
        return parsed
      }
      const left = deadline - Date.now()
      if (left <= 0) return undefined
      // a read that loses the race stays pending for the next call: its chunk is never dropped
      pending ??= reader.read()
      let timer: ReturnType<typeof setTimeout> | undefined
      const chunk = await Promise.race([
        pending,
        new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), left)))
      ])
      clearTimeout(timer)
      if (chunk === "timeout") return undefined
      pending = undefined
      if (chunk.done) return undefined
      buffer += decoder.decode(chunk.value, { stream: true })
    }
  }
  /** Next block that is an event (skips retry and comments). */
  const nextEvent = async (ms = scaled(5000)) => {
    const deadline = Date.now() + ms
    while (true) {
      const block = await next(Math.max(1, deadline - Date.now()))
      if (block === undefined) return undefined
      if (block.event !== undefined) return block
    }
  }
  return { next, nextEvent, cancel: () => reader.cancel().catch(() => {}) }
}
