/**
 * The in-memory store of the core's unit tests (`packages/core/test/support/memoryStore.ts`)
 * against the Store contract suite: the engine tests that run on it test what the
 * product's stores do. The suite lives here, not in `packages/core/test`, because
 * `@svc/store` depends on `@svc/core` (never the other way round).
 */
import { Store } from "@svc/core/Store"
import { Layer } from "effect"
import { makeMemoryStore } from "../../core/test/support/memoryStore.ts"
import { suite } from "../src/testing/StoreContract.ts"

suite("memory (core test support)", Layer.sync(Store, () => makeMemoryStore().store))
