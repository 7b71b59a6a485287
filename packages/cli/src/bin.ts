#!/usr/bin/env node
/**
 * The `svc` executable.
 *
 * @since 0.1.0
 */
import { NodeRuntime } from "@effect/platform-node"
import { exitCodeOf, main } from "./Cli.ts"

NodeRuntime.runMain(main(process.argv.slice(2)), {
  disableErrorReporting: true,
  teardown: (exit, onExit) => onExit(exitCodeOf(exit))
})
