/**
 * A preload (`node --import`) that writes the URL of every module the process
 * loads, one a line, to the file named by SVC_TEST_LOADED when the process exits.
 */
import { writeFileSync } from "node:fs"
import { registerHooks } from "node:module"

const loaded: Array<string> = []
registerHooks({
  load: (url, context, next) => {
    loaded.push(url)
    return next(url, context)
  }
})
process.on("exit", () => {
  if (process.env.SVC_TEST_LOADED !== undefined) writeFileSync(process.env.SVC_TEST_LOADED, loaded.join("\n"))
})
