/**
 * The `svc` command line, loaded by the executable (bin.ts) once the Node.js
 * version is known to be enough.
 *
 * The protocol commands in their plain forms start fast: internal/fastPath.ts
 * runs them with only the modules they need. Every other command and form (and
 * every command when SVC_CLI_FAST=0) runs the effect/cli command tree of Cli.ts,
 * loaded only then. Node's module compile cache is enabled first (in the
 * directory of NODE_COMPILE_CACHE, else the system's temporary directory; none
 * with NODE_DISABLE_COMPILE_CACHE=1), so that later starts skip compiling.
 */
import { enableCompileCache } from "node:module"

enableCompileCache()

const argv = process.argv.slice(2)
const code = process.env.SVC_CLI_FAST === "0" ? undefined : await (await import("./fastPath.ts")).run(argv)

if (code !== undefined) {
  process.exitCode = code
} else {
  const [{ NodeRuntime }, { exitCodeOf, main }] = await Promise.all([
    import("@effect/platform-node"),
    import("../Cli.ts")
  ])
  NodeRuntime.runMain(main(argv), {
    disableErrorReporting: true,
    teardown: (exit, onExit) => onExit(exitCodeOf(exit))
  })
}
