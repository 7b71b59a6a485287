// Preloaded into the local registry (node --require): it exits when the process that started it goes away,
// however that process ends (even SIGKILL), instead of running on: it is then no longer its parent.
"use strict"
const parent = process.ppid
setInterval(() => {
  if (process.ppid !== parent) process.exit(0)
}, 500).unref()
