/** Runs `svc conformance <args>` in process, capturing its output. */
import { NodeServices } from "@effect/platform-node"
import { Data, Effect } from "effect"
import { Command } from "effect/cli"
import * as Cli from "../../src/Cli.ts"

class Failed extends Data.TaggedError("Failed")<{ readonly message: string }> {}
class Bad extends Data.TaggedError("Bad")<{ readonly message: string }> {}

/** Runs the command; the exit is a Failure with Failed (exit 1) or Bad (exit 2). */
export const cli = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    let text = ""
    const command = Cli.makeCommand(
      { failed: (message) => new Failed({ message }), badInput: (message) => new Bad({ message }) },
      () => ({ write: (t) => void (text += t), tty: false, color: false })
    )
    const exit = yield* Effect.exit(
      Command.runWith(command, { version: "test" })(args).pipe(Effect.provide(NodeServices.layer))
    )
    return { exit, text }
  })
