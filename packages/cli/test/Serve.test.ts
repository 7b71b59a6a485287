/**
 * `svc serve`: a port in use, an unknown plug-in name are one line saying what to do; `svc serve --help`
 * lists every setting the configuration reads, with its default.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ServerConfig } from "@svc/server"
import { ConfigProvider, Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { scaled } from "../../../test/support/time.ts"
import { svc } from "./support/svc.ts"

/** The keys a configuration read asks its provider for (every value unset). */
const keysRead = Effect.gen(function*() {
  const keys = new Set<string>()
  const recording = ConfigProvider.make((path) =>
    Effect.sync(() => {
      keys.add(String(path[0]))
      return undefined
    })
  )
  const source = yield* ServerConfig.provider.pipe(Effect.provideService(ConfigProvider.ConfigProvider, recording))
  yield* ServerConfig.fromProvider(source)
  return keys
}).pipe(Effect.provide(NodeServices.layer))

describe("svc serve", () => {
  it("a port in use: one line naming the port and what to do, exit 2", { timeout: scaled(60_000) }, async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const port = (blocker.address() as { port: number }).port
    const dir = mkdtempSync(join(tmpdir(), "svc-cli-port-"))
    try {
      const r = await svc(["serve"], {
        env: { PORT: String(port), HOST: "127.0.0.1", SVC_DATA_DIR: dir, SVC_PROFILE: "demo" }
      })
      assert.strictEqual(r.code, 2, r.stderr)
      assert.strictEqual(
        r.stderr,
        `svc: port ${port} on 127.0.0.1 is in use: stop the other server or set PORT (PORT=0 picks a free port)\n`
      )
      assert.notInclude(r.stdout, "listening")
    } finally {
      blocker.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it(
    "an unknown plug-in name: one line naming the setting and the built-ins, exit 2",
    { timeout: scaled(60_000) },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "svc-cli-plugin-"))
      try {
        const r = await svc(["serve"], { env: { PORT: "0", SVC_DATA_DIR: dir, SVC_PRICING: "dynamic" } })
        assert.strictEqual(r.code, 2, r.stderr)
        assert.strictEqual(
          r.stderr,
          `svc: SVC_PRICING: unknown pricing "dynamic": give static or oracle, or a pricing plug-in's package name or path (with a / or starting with . or @)\n`
        )
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  )

  it.effect(
    "--help lists every key the configuration reads, one line each: NAME (default) meaning",
    () =>
      Effect.gen(function*() {
        const keys = yield* keysRead
        // the table is the configuration's: nothing read is missing from it, nothing in it is unread
        assert.deepStrictEqual([...keys].sort(), Object.keys(ServerConfig.SETTINGS).sort())
        assert.isAbove(keys.size, 40)
        const help = yield* Effect.promise(() => svc(["serve", "--help"]))
        assert.strictEqual(help.code, 0, help.stderr)
        const lines = help.stdout.split("\n")
        for (const key of keys) {
          const setting = ServerConfig.SETTINGS[key as ServerConfig.SettingKey] as ServerConfig.Setting
          const line = lines.find((l) => l.trimStart().startsWith(`${key} (`))
          assert.isDefined(line, `${key} is listed`)
          assert.strictEqual(line!.trim(), `${key} (${setting.default ?? setting.unset}) ${setting.meaning}`)
        }
        for (const group of ServerConfig.SETTING_GROUPS) assert.include(lines, `  ${group}`)
        assert.include(help.stdout, "PORT (8787) listening port; 0 picks a free port")
        // the subcommand list keeps a one-line description
        const root = yield* Effect.promise(() => svc(["--help"]))
        assert.match(root.stdout, /serve\s+start the svc server \(settings: svc serve --help\)\n/)
      }),
    60_000
  )
})
