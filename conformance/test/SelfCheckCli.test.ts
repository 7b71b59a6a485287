/**
 * A harness whose own copy of a primitive is broken refuses to judge anyone:
 * `svc conformance --url ...` stops before the first request with one line
 * (exit 2, the bad-input exit), here with canonical JSON that drops its last
 * character.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Result } from "effect"
import { createServer } from "node:http"
import { vi } from "vitest"
import { cli } from "./support/cli.ts"

vi.mock("@svc/protocol", async (importOriginal) => {
  const original = await importOriginal<typeof import("@svc/protocol")>()
  const stringify = (value: unknown) => original.CanonicalJson.stringify(value as never).slice(0, -1)
  return {
    ...original,
    CanonicalJson: {
      ...original.CanonicalJson,
      stringify,
      stringifyResult: (value: unknown) =>
        Result.map(original.CanonicalJson.stringifyResult(value as never), (s) => s.slice(0, -1))
    }
  }
})

describe("the self-check guards every run", () => {
  it.effect("a broken canonical JSON in the harness: exit 2 with one line, and no request reaches the deployment", () =>
    Effect.gen(function*() {
      let requests = 0
      const server = createServer((_req, res) => {
        requests++
        res.writeHead(404).end()
      })
      yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve())))
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const { exit, text } = yield* cli(["--url", `http://127.0.0.1:${port}`])
      server.close()
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      assert.isTrue(Option.isSome(error))
      const failure = (error as Option.Some<{ readonly _tag: string; readonly message: string }>).value
      assert.strictEqual(failure._tag, "Bad", "the bad-input exit (2), not a failed run (1)")
      assert.match(failure.message, /^self-check failed, refusing to judge: .*canonical JSON/i)
      assert.notInclude(failure.message, "\n", "one line")
      assert.strictEqual(requests, 0, "no request was sent")
      assert.strictEqual(text, "", "nothing was printed as a run")
    }))
})
