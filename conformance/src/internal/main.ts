/**
 * The `svc-conformance` command line, loaded by the executable (bin.ts) once
 * the Node.js version is known to be enough: exit 0 when no check failed, 1
 * when a check failed, 2 for bad input.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Data, Effect, Exit, Option } from "effect"
import { Command } from "effect/cli"
import { makeCommand } from "../Cli.ts"
import { VERSION } from "../Runner.ts"

class Failed extends Data.TaggedError("Failed")<{ readonly message: string }> {}
class BadInput extends Data.TaggedError("BadInput")<{ readonly message: string }> {}

const command = makeCommand({
  failed: (message) => new Failed({ message }),
  badInput: (message) => new BadInput({ message })
})

const exitCode = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)) return 0
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isSome(error)) {
    if (error.value instanceof Failed) return 1
    if (error.value instanceof BadInput) process.stderr.write(`svc-conformance: ${error.value.message}\n`)
    return 2
  }
  process.stderr.write(`svc-conformance: internal error: ${Cause.pretty(exit.cause).split("\n")[0]}\n`)
  return 70
}

NodeRuntime.runMain(
  Command.runWith(command, { version: VERSION })(process.argv.slice(2)).pipe(Effect.provide(NodeServices.layer)),
  { disableErrorReporting: true, teardown: (exit, onExit) => onExit(exitCode(exit)) }
)
