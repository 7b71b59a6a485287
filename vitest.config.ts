/**
 * The test tiers (README, Development; docs/benchmarks.md, The test suite), chosen with `--mode`:
 *
 * - `vitest run --mode unit` (`npm test`, after the type check and lint): every test but the end-to-end ones;
 * - `vitest run --mode e2e` (`npm run test:e2e`): the end-to-end tests, the files named `*.e2e.test.ts`
 *   (devnets, packed tarballs and their installs, the release rehearsal, Chromium, the runnable docs);
 * - `vitest run --mode quick` (`npm run test:quick`, after the type check): the unit tier without the files
 *   of {@link NOT_QUICK}, which start processes or servers or take long;
 * - `vitest run` (no mode) and `vitest run <file>`: everything, or the file, whatever its tier.
 */
import { configDefaults, defineConfig } from "vitest/config"
import { measuredScale } from "./test/support/time.ts"

/** The end-to-end tests. */
const E2E = "**/*.e2e.test.ts"

/**
 * What `--mode quick` leaves out of the unit tier: files that start a server (every test of @svc/server does,
 * in the test's process or as a process) or another process (the `svc` executable, anvil, child test runs),
 * build bundles or compile Solidity, need PostgreSQL or Redis, or take more than a few seconds. A new test
 * file elsewhere is quick unless it is listed here.
 */
export const NOT_QUICK: ReadonlyArray<string> = [
  "packages/server/test/**",
  // the svc executable and other processes
  "packages/cli/test/Admin.test.ts",
  "packages/cli/test/CatalogCommand.test.ts",
  "packages/cli/test/Cli.test.ts",
  "packages/cli/test/FastStart.test.ts",
  "packages/cli/test/Keys.test.ts",
  "packages/cli/test/NewConnector.test.ts",
  "packages/cli/test/NewPlugin.test.ts",
  "packages/cli/test/NewSolver.test.ts",
  "packages/cli/test/PermitForms.test.ts",
  "packages/cli/test/Serve.test.ts",
  "packages/cli/test/Sign.test.ts",
  "packages/client/test/Examples.test.ts",
  "packages/store/test/SqliteClient.test.ts",
  "packages/store/test/SqliteStore.test.ts",
  "conformance/test/Formats.test.ts",
  "test/module-graph.test.ts",
  "test/node-version.test.ts",
  "test/processes.test.ts",
  "test/shell-blocks.test.ts",
  // the whole-solver simulation: a band of seeds, a fresh npm run simulate process, planted bugs in copies
  "test/simulation.test.ts",
  // servers in the test's process
  "packages/client/test/Aggregator.test.ts",
  "packages/client/test/Client.test.ts",
  "packages/client/test/Contract.test.ts",
  "packages/client/test/DecoderLimits.test.ts",
  "packages/client/test/Stream.test.ts",
  "conformance/test/BrokenServers.test.ts",
  "conformance/test/Catalog.test.ts",
  "conformance/test/Proxy.test.ts",
  "conformance/test/RealServer.test.ts",
  "conformance/test/Recorded.test.ts",
  "conformance/test/SecondPath.test.ts",
  "packages/core/test/RemoteSignerExample.test.ts",
  // bundles built with vite, Solidity compiled, every package's exports loaded
  "packages/client/test/Browser.test.ts",
  "packages/client/test/BundleSize.test.ts",
  "packages/contracts/test/Artifacts.test.ts",
  "test/api-surface.test.ts",
  // the drift test of generated files formats the client's contract snapshot with dprint (a process)
  "test/codegen.test.ts",
  // anvil
  "packages/connector-evm/test/EvmConnector.conformance.test.ts",
  "packages/connector-evm/test/EvmMarket.test.ts",
  "packages/connector-evm/test/EvmOwnershipProof.anvil.test.ts",
  "packages/connector-evm/test/EvmSettlement.suite.test.ts",
  "packages/contracts/test/Router.test.ts",
  "packages/contracts/test/System.test.ts",
  // PostgreSQL
  "packages/store/test/HoldShares.test.ts",
  "packages/store/test/PgCoordination.test.ts",
  "packages/store/test/PgStore.test.ts",
  // the longest CPU-bound runs: the settlement simulation, publications of 250 routes, the engine's lifecycle over
  // simulated days, the second derivation and the feed signature's properties (5-20 s each)
  "packages/core/test/ChainSettlement.test.ts",
  "packages/core/test/PublicationText.test.ts",
  "packages/core/test/Solver.test.ts",
  "packages/protocol/test/FeedSignature.prop.test.ts",
  "conformance/test/Independent.test.ts"
]

const TIERS = ["unit", "e2e", "quick"] as const

export default defineConfig(({ mode }) => {
  const tier = (TIERS as ReadonlyArray<string>).includes(mode) ? mode : "all"
  // one factor for the whole run, measured before its workers start (test/support/time.ts)
  process.env.SVC_TEST_TIME_SCALE ??= String(measuredScale(2))
  const scale = Number(process.env.SVC_TEST_TIME_SCALE)
  return {
    test: {
      include: tier === "e2e"
        ? [E2E]
        : ["packages/*/test/**/*.test.ts", "conformance/test/**/*.test.ts", "test/**/*.test.ts"],
      exclude: [
        ...configDefaults.exclude,
        ...(tier === "unit" || tier === "quick" ? [E2E] : []),
        ...(tier === "quick" ? NOT_QUICK : [])
      ],
      // bounds on a wait, not measures: generous, and stretched on a loaded machine
      testTimeout: Math.round(60_000 * scale),
      hookTimeout: Math.round(120_000 * scale),
      // two cores: keep one worker per core
      maxWorkers: 2,
      setupFiles: [
        "test/support/isolate-env.ts",
        "test/support/process-cleanup.ts",
        // the quick tier starts no process: a file that does is listed in NOT_QUICK
        ...(tier === "quick" ? ["test/support/quick-guard.ts"] : [])
      ],
      // every temporary folder of the run under one, removed when the run ends; every process it started stopped
      globalSetup: ["test/support/temp-dir.ts", "test/support/process-run.ts"]
    }
  }
})
