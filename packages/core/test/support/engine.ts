/**
 * Test wiring of the solver engine over the in-memory store and a fixed key.
 */
import { EvmConnector } from "@svc/connector-evm"
import { Layer, Redacted } from "effect"
import { readFileSync } from "node:fs"
import * as Signer from "../../src/Signer.ts"
import * as Solver from "../../src/Solver.ts"
import { memoryStoreLayer } from "./memoryStore.ts"

export const demoCatalog = JSON.parse(
  readFileSync(new URL("../../../server/catalog/demo.json", import.meta.url), "utf8")
) as unknown

/** Authority key of the tests (public test material). */
export const AUTHORITY_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const

/** A payer wallet of the tests (public test material). */
export const PAYER_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" as const

/** The offline EVM connector (EOA proofs), registered by default in the tests. */
export const evm = EvmConnector.make()

export const makeEngine = (options?: Partial<Solver.SolverOptions>, parts?: Solver.SolverParts) => {
  const { control, layer: store } = memoryStoreLayer()
  const signer = Layer.succeed(Signer.Signer, Signer.fromPrivateKey(Redacted.make(AUTHORITY_KEY)))
  const engine = Solver.layer({
    catalog: demoCatalog,
    publisher: { routeDetailTemplate: "http://svc.test/api/v6/routes/{routeId}", tickMillis: 60_000 },
    settlement: { sweepMillis: 0 },
    routeMetrics: { flushMillis: 60_000 },
    connectors: [evm],
    ...options
  }, parts).pipe(Layer.provideMerge(Layer.merge(store, signer)))
  return { control, layer: engine }
}
