// A test that starts processes three ways and times out, then a test that looks at them.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect, it } from "vitest"
import { isRunning } from "../processes.ts"
import { child, grandchild, orphan, written } from "./spawn.ts"

const names = ["timeout-child", "timeout-grandchild", "timeout-orphan", "timeout-bare-env"]

it("starts processes and times out", { timeout: 3000 }, async () => {
  child("timeout-child")
  grandchild("timeout-grandchild")
  orphan("timeout-orphan")
  // an environment without the marker: found through the recorded children
  child("timeout-bare-env", { PATH: process.env.PATH ?? "" })
  for (const name of names) await written(name)
  await new Promise(() => {}) // never ends
})

it("the next test sees none of them running", async () => {
  const pids = await Promise.all(names.map(written))
  const running = pids.filter(isRunning)
  writeFileSync(join(process.env.SVC_LEAK_DIR!, "after-timeout.json"), JSON.stringify({ pids, running }))
  expect(running).toEqual([])
})
