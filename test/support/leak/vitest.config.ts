/**
 * The configuration of the child test run of test/processes.test.ts: the fixture
 * files here, with the setup of the real suite (vitest.config.ts).
 */
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    root: new URL("../../../", import.meta.url).pathname,
    include: ["test/support/leak/*.fixture.ts"],
    testTimeout: 60_000,
    maxWorkers: 2,
    setupFiles: ["test/support/isolate-env.ts", "test/support/process-cleanup.ts"],
    globalSetup: ["test/support/temp-dir.ts", "test/support/process-run.ts"]
  }
})
