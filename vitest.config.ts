import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "conformance/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // two cores: keep one worker per core
    maxWorkers: 2,
    setupFiles: ["test/support/isolate-env.ts"],
    // every temporary folder of the run under one, removed when the run ends
    globalSetup: ["test/support/temp-dir.ts"]
  }
})
