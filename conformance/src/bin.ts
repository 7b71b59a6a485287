#!/usr/bin/env node
/**
 * The `svc-conformance` executable (also reachable as `svc conformance`):
 * exit 0 when no check failed, 1 when a check failed, 2 for bad input. It
 * checks the Node.js version first, with no static import (an older Node fails
 * to link a module whose imports it lacks before any statement runs): below
 * 22.19 it prints one line naming the version it needs and exits 2; otherwise
 * it loads the command line, internal/main.ts.
 *
 * @since 0.1.0
 */
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `svc-conformance: Node.js 22.19 or later is required (this is Node.js ${process.versions.node})\n`
  )
  process.exit(2)
}
await import("./internal/main.ts")
