// A worker that dies (SIGKILL) with a process of its test running: the run's teardown stops it.
import { it } from "vitest"
import { child, written } from "./spawn.ts"

it("starts a process, then its worker is killed", async () => {
  child("crash-child")
  await written("crash-child")
  process.kill(process.pid, "SIGKILL")
})
