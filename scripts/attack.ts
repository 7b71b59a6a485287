/**
 * Resource-exhaustion attacks on a running `svc serve` (issue #15, findings 2
 * and 3), measured from outside the server process:
 *
 * 1. one client opens 1,100 connections: a third send nothing, a third trickle
 *    header lines, a third trickle a body (one line or byte a second);
 * 2. eleven clients open 100 idle connections each (the global cap; full runs);
 * 3. one client opens 300 event streams; then 300 subscribers from ten
 *    addresses stop reading while the feed is republished every 5 s;
 * 4. SIGTERM with non-readers, idle keep-alive and trickling connections attached.
 *
 * Throughout, a well-behaved client reads the feed on its keep-alive connection
 * (latency p50/p99, errors) and another opens a fresh connection every 250 ms.
 * Sampled every 250 ms: the server's open descriptors, its established
 * connections and their unacknowledged send-queue bytes (/proc/net/tcp), its
 * RSS, and the kernel's TCP memory (/proc/net/sockstat).
 *
 * The server runs with the configuration defaults, a generated catalog of 40
 * routes (a feed event of about 240 KB: `--routes N`; the bench's generator), a
 * feed TTL of 10 s (a publication every 5 s) and an open-file limit of 1,024
 * (as in the measurements; `--open-files N`). `--root DIR` runs the
 * `svc` of another checkout (to measure a version before the fix). Linux only;
 * only 127.0.0.0/8 is used, every connection is closed and the temporary data
 * directory removed.
 *
 * With `--only holds,trickle,filters` it runs instead the attacks from many
 * addresses of issue #26 (`bench/manyAddresses.ts`), each against a server of
 * its own: the demo catalog for `holds`; an open-file limit of 2,048 for
 * `trickle`; a 2,000-route catalog (with a feed TTL of 300 s) for `filters`.
 * The phases above run their feed reader at 50 requests a second, beyond the
 * default feed budget, so their server runs with `SVC_FEED_RATE_LIMIT=off`.
 *
 *   node scripts/attack.ts [--quick] [--root DIR] [--open-files N] [--routes N]
 *   node scripts/attack.ts --only holds,trickle,filters [--root DIR]
 *
 * Output: tables on stdout, then one JSON line with every figure; progress on
 * stderr. Recorded figures: docs/benchmarks.md, "Resource exhaustion".
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { connect, createServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { generateCatalog } from "./bench/catalog.ts"
import * as ManyAddresses from "./bench/manyAddresses.ts"
import { fmt, max, MiB, progress, quantile, table } from "./bench/util.ts"

const AUTHORITY_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

const here = resolve(fileURLToPath(new URL("..", import.meta.url)))
const args = process.argv.slice(2).filter((a) => a !== "--")
const quick = args.includes("--quick")
const option = (name: string) => {
  const at = args.indexOf(name)
  return at === -1 ? undefined : args[at + 1]
}
const root = resolve(option("--root") ?? here)
const openFiles = Number(option("--open-files") ?? 1024)
const routes = Number(option("--routes") ?? 40)
const only = option("--only")?.split(",").map((p) => p.trim()).filter((p) => p.length > 0)

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms))

const freePort = (): Promise<number> =>
  new Promise((done) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => done(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

// ---------------------------------------------------------------------------
// The server and what it holds
// ---------------------------------------------------------------------------

interface Svc {
  readonly child: ChildProcess
  readonly port: number
  readonly exited: Promise<number | null>
  readonly dataDir: string
}

const startSvc = async (options?: {
  /** The catalog document; absent: the generated catalog of `--routes` routes. Null: the embedded demo catalog. */
  readonly catalog?: unknown
  readonly openFiles?: number | undefined
  readonly env?: Record<string, string> | undefined
}): Promise<Svc> => {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), "svc-attack-"))
  const catalog = join(dataDir, "catalog.json")
  if (options?.catalog !== null) writeFileSync(catalog, JSON.stringify(options?.catalog ?? generateCatalog(routes)))
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    SVC_DATA_DIR: dataDir,
    SVC_SIGNER_KEY: AUTHORITY_KEY,
    // a test key on a production catalog
    SVC_ALLOW_RAW_KEYS: "1",
    ...(options?.catalog === null ? {} : { SVC_CATALOG: catalog }),
    SVC_FEED_TTL_SECONDS: "10",
    SVC_LOG_LEVEL: "error",
    ...options?.env
  }
  const child = spawn(
    "sh",
    [
      "-c",
      `ulimit -n ${options?.openFiles ?? openFiles} && exec "$0" "$@"`,
      join(root, "node_modules/.bin/node"),
      join(root, "packages/cli/src/bin.ts"),
      "serve"
    ],
    { env, stdio: ["ignore", "pipe", "pipe"] }
  )
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
  let out = ""
  child.stderr!.on("data", () => {})
  await new Promise<void>((done, fail) => {
    child.stdout!.on("data", (d) => {
      out += d
      if (out.includes("svc listening on")) done()
    })
    exited.then((code) => fail(new Error(`svc exited ${code}: ${out}`)))
    setTimeout(() => fail(new Error(`svc did not start: ${out}`)), 60_000)
  })
  return { child, port, exited, dataDir }
}

interface Sample {
  readonly at: number
  readonly fds: number
  readonly established: number
  readonly sendQueueBytes: number
  readonly rssBytes: number
  readonly kernelTcpBytes: number
}

const sample = (svc: Svc): Sample => {
  const pid = svc.child.pid!
  let fds = 0
  let rssBytes = 0
  try {
    fds = readdirSync(`/proc/${pid}/fd`).length
    rssBytes = 1024 * Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0)
  } catch {
    // exited
  }
  const port = `:${svc.port.toString(16).toUpperCase().padStart(4, "0")} `
  let established = 0
  let sendQueueBytes = 0
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = ""
    try {
      text = readFileSync(file, "latin1")
    } catch {
      continue
    }
    for (const line of text.split("\n")) {
      const fields = line.trim().split(/\s+/)
      // the server's side: its local address ends with the port; state 01 = ESTABLISHED
      if (fields.length < 5 || !`${fields[1]} `.endsWith(port) || fields[3] !== "01") continue
      established++
      sendQueueBytes += Number.parseInt(fields[4]!.split(":")[0]!, 16)
    }
  }
  const sockstat = readFileSync("/proc/net/sockstat", "utf8")
  const pages = Number(/^TCP:.* mem (\d+)/m.exec(sockstat)?.[1] ?? 0)
  return { at: Date.now(), fds, established, sendQueueBytes, rssBytes, kernelTcpBytes: pages * 4096 }
}

/** Samples every 250 ms until stopped. */
const sampler = (svc: Svc) => {
  const samples: Array<Sample> = []
  const timer = setInterval(() => samples.push(sample(svc)), 250)
  return {
    samples,
    stop: () => {
      clearInterval(timer)
      return samples
    }
  }
}

// ---------------------------------------------------------------------------
// Well-behaved clients
// ---------------------------------------------------------------------------

/** Reads the feed on one keep-alive connection, one request after the other. */
const feedReader = (port: number, localAddress: string) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const latencies: Array<{ readonly at: number; readonly ms: number }> = []
  let errors = 0
  const state = { running: true }
  const once = () =>
    new Promise<void>((done) => {
      const started = performance.now()
      const req = request(
        { host: "127.0.0.1", port, path: "/api/v6/solver-feed", agent, localAddress, timeout: 10_000 },
        (res) => {
          res.on("data", () => {})
          res.on("end", () => {
            if (res.statusCode === 200) latencies.push({ at: Date.now(), ms: performance.now() - started })
            else errors++
            done()
          })
        }
      )
      req.on("timeout", () => req.destroy(new Error("timeout")))
      req.on("error", () => {
        errors++
        done()
      })
      req.end()
    })
  const loop = (async () => {
    while (state.running) {
      await once()
      await sleep(20)
    }
  })()
  return {
    between: (from: number, to: number) => latencies.filter((l) => l.at >= from && l.at <= to).map((l) => l.ms),
    errors: () => errors,
    stop: async () => {
      state.running = false
      await loop
      agent.destroy()
    }
  }
}

/** Opens a fresh connection every 250 ms for one feed request. */
const newcomer = (port: number, localAddress: string) => {
  const results: Array<{ readonly at: number; readonly ok: boolean }> = []
  const timer = setInterval(() => {
    const req = request(
      { host: "127.0.0.1", port, path: "/api/v6/solver-feed", agent: false, localAddress, timeout: 5000 },
      (res) => {
        res.on("data", () => {})
        res.on("end", () => results.push({ at: Date.now(), ok: res.statusCode === 200 }))
      }
    )
    req.on("timeout", () => req.destroy(new Error("timeout")))
    req.on("error", () => results.push({ at: Date.now(), ok: false }))
    req.end()
  }, 250)
  return {
    between: (from: number, to: number) => {
      const window = results.filter((r) => r.at >= from && r.at <= to)
      return { tried: window.length, ok: window.filter((r) => r.ok).length }
    },
    stop: () => clearInterval(timer)
  }
}

// ---------------------------------------------------------------------------
// Attackers
// ---------------------------------------------------------------------------

type Mode = "idle" | "headers" | "body" | "stream"

interface Attacker {
  readonly socket: Socket
  readonly mode: Mode
  readonly opened: number
  closedAt: number | undefined
  received: string
  /** For streams: paused after the first bytes. */
  stalled: boolean
}

const attack = (port: number, localAddress: string, mode: Mode): Promise<Attacker> =>
  new Promise((done) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress })
    const a: Attacker = { socket, mode, opened: Date.now(), closedAt: undefined, received: "", stalled: false }
    socket.on("error", () => {})
    socket.once("close", () => (a.closedAt = Date.now()))
    socket.on("data", (chunk: Buffer) => {
      if (a.received.length < 512) a.received += chunk.toString("latin1").slice(0, 512)
      if (mode === "stream" && !a.stalled) {
        // the response head: from now on, read nothing
        a.stalled = true
        socket.pause()
      }
    })
    let trickle: ReturnType<typeof setInterval> | undefined
    socket.once("close", () => clearInterval(trickle))
    socket.once("connect", () => {
      if (mode === "headers") {
        socket.write("GET /api/v6/solver-feed HTTP/1.1\r\nHost: svc\r\n")
        trickle = setInterval(() => socket.write("X-Pad: a\r\n"), 1000)
      } else if (mode === "body") {
        socket.write(
          "POST /api/v6/execution-permits HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\nContent-Length: 20000\r\n\r\n{"
        )
        trickle = setInterval(() => socket.write(" "), 1000)
      } else if (mode === "stream") {
        socket.write("GET /api/v6/solver-feed/events HTTP/1.1\r\nHost: svc\r\n\r\n")
      }
      done(a)
    })
    // a refused connect (reset, no descriptor) settles too
    socket.once("error", () => done(a))
  })

const statusOf = (a: Attacker) =>
  /^HTTP\/1\.1 (\d{3})/.exec(a.received)?.[1] ?? (a.closedAt === undefined ? "open" : "none")

const outcomes = (attackers: ReadonlyArray<Attacker>) => {
  const counts: Record<string, number> = {}
  for (const a of attackers) counts[statusOf(a)] = (counts[statusOf(a)] ?? 0) + 1
  return counts
}

const lifetimes = (attackers: ReadonlyArray<Attacker>, now: number) =>
  attackers.map((a) => ((a.closedAt ?? now) - a.opened) / 1000)

// ---------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------

interface Phase {
  readonly name: string
  readonly seconds: number
  readonly feedP50Ms: number
  readonly feedP99Ms: number
  readonly feedMaxMs: number
  readonly feedRequests: number
  readonly newConnections: string
  readonly peakFds: number
  readonly peakEstablished: number
  readonly peakSendQueueMiB: number
  readonly peakKernelTcpMiB: number
  readonly peakRssMiB: number
  /** At the end of the phase, before the attackers close. */
  readonly endEstablished: number
  readonly endSendQueueMiB: number
  readonly attackers?: Record<string, number> | undefined
  readonly longestAttackerSeconds?: number | undefined
  readonly note?: string | undefined
}

/** What a phase of `bench/manyAddresses.ts` reads of a server. */
const targetOf = (svc: Svc): ManyAddresses.Target => ({
  port: svc.port,
  dataDir: svc.dataDir,
  root,
  rss: () => sample(svc).rssBytes,
  connections: () => {
    const s = sample(svc)
    return { fds: s.fds, established: s.established }
  }
})

const stopSvc = async (svc: Svc) => {
  svc.child.kill("SIGTERM")
  await svc.exited
  rmSync(svc.dataDir, { recursive: true, force: true })
}

/** The attacks from many addresses (issue #26), each on a server of its own. */
const manyAddresses = async (phases: ReadonlyArray<string>) => {
  const texts: Array<string> = []
  const figures: Record<string, unknown> = {}
  for (const phase of phases) {
    if (phase === "holds") {
      progress("holds: 50 keys from 50 addresses ask for the maximum of every open route (demo catalog)")
      const svc = await startSvc({ catalog: null, env: { SVC_FEED_TTL_SECONDS: "300" } })
      try {
        const result = await ManyAddresses.holds(targetOf(svc), quick ? 8 : 15)
        texts.push(ManyAddresses.holdsText(result))
        figures.holds = result
      } finally {
        await stopSvc(svc)
      }
    } else if (phase === "trickle") {
      progress("trickle: 50 addresses × 60 connections trickling headers, open-file limit 2,048")
      const svc = await startSvc({ openFiles: 2048 })
      try {
        const result = await ManyAddresses.trickle(targetOf(svc), quick ? 15 : 30)
        texts.push(ManyAddresses.trickleText(result))
        figures.trickle = result
      } finally {
        await stopSvc(svc)
      }
    } else if (phase === "filters") {
      progress("filters: 16 feed requests in flight with made-up filters, 2,000 routes")
      const svc = await startSvc({ catalog: generateCatalog(2000), env: { SVC_FEED_TTL_SECONDS: "300" } })
      try {
        await sleep(2000)
        const result = await ManyAddresses.filters(targetOf(svc), quick ? 5 : 10, quick ? 10 : 20)
        texts.push(ManyAddresses.filtersText(result))
        figures.filters = result
      } finally {
        await stopSvc(svc)
      }
    } else {
      throw new Error(`--only: unknown phase ${phase} (holds, trickle, filters)`)
    }
  }
  process.stdout.write(`svc attacked from many addresses (${root === here ? "this checkout" : root})\n\n`)
  process.stdout.write(`${texts.join("\n\n")}\n`)
  process.stdout.write(`${JSON.stringify({ root, quick, ...figures })}\n`)
  return 0
}

const main = async () => {
  if (only !== undefined) return manyAddresses(only)
  progress(`svc from ${root}, ${routes} routes, open-file limit ${openFiles}${quick ? ", quick" : ""}`)
  // the feed reader below asks 50 times a second, beyond the default feed budget
  const svc = await startSvc({ env: { SVC_FEED_RATE_LIMIT: "off" } })
  const port = svc.port
  const reader = feedReader(port, "127.0.0.90")
  const fresh = newcomer(port, "127.0.0.91")
  const phases: Array<Phase> = []
  const runPhase = async (
    name: string,
    seconds: number,
    body: (until: number) => Promise<{ attackers?: ReadonlyArray<Attacker>; note?: string } | void>
  ) => {
    progress(name)
    const probe = sampler(svc)
    const from = Date.now()
    const result = (await body(from + seconds * 1000)) ?? {}
    const remaining = from + seconds * 1000 - Date.now()
    if (remaining > 0) await sleep(remaining)
    const to = Date.now()
    const samples = probe.stop()
    const last = sample(svc)
    const ms = reader.between(from, to)
    const newcomers = fresh.between(from, to)
    phases.push({
      name,
      seconds,
      feedP50Ms: quantile(ms, 0.5),
      feedP99Ms: quantile(ms, 0.99),
      feedMaxMs: max(ms),
      feedRequests: ms.length,
      newConnections: `${newcomers.ok}/${newcomers.tried}`,
      peakFds: max(samples.map((s) => s.fds)),
      peakEstablished: max(samples.map((s) => s.established)),
      peakSendQueueMiB: max(samples.map((s) => s.sendQueueBytes)) / MiB,
      peakKernelTcpMiB: max(samples.map((s) => s.kernelTcpBytes)) / MiB,
      peakRssMiB: max(samples.map((s) => s.rssBytes)) / MiB,
      endEstablished: last.established,
      endSendQueueMiB: last.sendQueueBytes / MiB,
      ...(result.attackers === undefined ? {} : {
        attackers: outcomes(result.attackers),
        longestAttackerSeconds: max(lifetimes(result.attackers, to))
      }),
      ...(result.note === undefined ? {} : { note: result.note })
    })
    for (const a of result.attackers ?? []) a.socket.destroy()
    await sleep(1000)
  }

  await sleep(1500)
  const before = sample(svc)
  await runPhase("baseline: no attack", quick ? 3 : 5, async () => {})

  await runPhase(
    "1. one client, 1,100 connections: idle, trickling headers, trickling a body",
    quick ? 14 : 35,
    async (until) => {
      const attackers: Array<Attacker> = []
      const modes: ReadonlyArray<Mode> = ["idle", "headers", "body"]
      for (let i = 0; i < 1100; i++) attackers.push(await attack(port, "127.0.0.2", modes[i % 3]!))
      while (Date.now() < until && attackers.some((a) => a.closedAt === undefined)) await sleep(250)
      return { attackers }
    }
  )

  if (!quick) {
    await runPhase("2. eleven clients, 100 idle connections each", 14, async (until) => {
      const attackers: Array<Attacker> = []
      for (let c = 0; c < 11; c++) {
        for (let i = 0; i < 100; i++) attackers.push(await attack(port, `127.0.0.${10 + c}`, "idle"))
      }
      while (Date.now() < until && attackers.some((a) => a.closedAt === undefined)) await sleep(250)
      return { attackers }
    })
  }

  await runPhase("3a. one client opens 300 event streams and reads nothing", 3, async () => {
    const attackers: Array<Attacker> = []
    for (let i = 0; i < 300; i++) attackers.push(await attack(port, "127.0.0.30", "stream"))
    await sleep(1500)
    return { attackers }
  })

  let streamNote = ""
  await runPhase(
    "3b. 300 subscribers from ten addresses stop reading; a publication every 5 s",
    quick ? 16 : 31,
    async (until) => {
      const attackers: Array<Attacker> = []
      const started = Date.now()
      for (let c = 0; c < 10; c++) {
        for (let i = 0; i < 30; i++) attackers.push(await attack(port, `127.0.0.${40 + c}`, "stream"))
      }
      // a subscriber that reads, for comparison
      const good = connect({ port, host: "127.0.0.1", localAddress: "127.0.0.92" })
      let events = 0
      good.on("data", (d: Buffer) => (events += (d.toString("latin1").match(/\nevent: feed\n/g) ?? []).length))
      good.on("error", () => {})
      good.write("GET /api/v6/solver-feed/events HTTP/1.1\r\nHost: svc\r\n\r\n")
      // when the server's connections fall back to the well-behaved clients' few
      let droppedAfter = Number.NaN
      while (Date.now() < until) {
        await sleep(250)
        if (Number.isNaN(droppedAfter) && sample(svc).established <= 5) droppedAfter = (Date.now() - started) / 1000
      }
      const held = sample(svc)
      // a paused socket does not see the server's reset until it reads again
      for (const a of attackers) a.socket.resume()
      await sleep(500)
      const open = attackers.filter((a) => a.closedAt === undefined).length
      streamNote = `${300 - open} of 300 non-readers were disconnected by the server (all within ${
        fmt(droppedAfter)
      } s of connecting); at the end it held ${held.established} connections with ${
        fmt(held.sendQueueBytes / MiB)
      } MiB unacknowledged; the reading subscriber received ${events} feed events`
      good.destroy()
      return { attackers, note: streamNote }
    }
  )

  await reader.stop()
  fresh.stop()
  await sleep(1500)
  const after = sample(svc)

  // 4. SIGTERM with stalled and idle connections attached
  progress("4. SIGTERM with 100 non-readers, 20 idle keep-alive and 20 trickling connections")
  const attached: Array<Attacker> = []
  for (let i = 0; i < 100; i++) attached.push(await attack(port, `127.0.0.${60 + (i % 4)}`, "stream"))
  for (let i = 0; i < 20; i++) attached.push(await attack(port, "127.0.0.70", "headers"))
  const idle = new Agent({ keepAlive: true, maxSockets: 20 })
  await Promise.all(Array.from({ length: 20 }, () =>
    new Promise<void>((done) => {
      const req = request({
        host: "127.0.0.1",
        port,
        path: "/api/v6/solver-feed",
        agent: idle,
        localAddress: "127.0.0.71"
      }, (res) => {
        res.on("data", () => {})
        res.on("end", () => done())
      })
      req.on("error", () => done())
      req.end()
    })))
  await sleep(6000)
  const stopping = Date.now()
  svc.child.kill("SIGTERM")
  const exitCode = await svc.exited
  const shutdownSeconds = (Date.now() - stopping) / 1000
  idle.destroy()
  for (const a of attached) a.socket.destroy()
  rmSync(svc.dataDir, { recursive: true, force: true })

  const mib = (n: number) => fmt(n / MiB)
  const text = [
    table(
      `svc under resource-exhaustion attacks (${
        root === here ? "this checkout" : root
      }; ${routes} routes; open-file limit ${openFiles})`,
      [
        "phase",
        "s",
        "feed p50 ms",
        "p99 ms",
        "max ms",
        "requests",
        "new conns ok",
        "peak fds",
        "peak estab.",
        "estab. at end",
        "send queue MiB (peak, end)",
        "kernel TCP MiB",
        "RSS MiB"
      ],
      phases.map((p) => [
        p.name,
        String(p.seconds),
        fmt(p.feedP50Ms),
        fmt(p.feedP99Ms),
        fmt(p.feedMaxMs),
        String(p.feedRequests),
        p.newConnections,
        String(p.peakFds),
        String(p.peakEstablished),
        String(p.endEstablished),
        `${fmt(p.peakSendQueueMiB)}, ${fmt(p.endSendQueueMiB)}`,
        fmt(p.peakKernelTcpMiB),
        fmt(p.peakRssMiB)
      ])
    ),
    table(
      "attackers: what each connection got (status line, `none` = closed without an answer, `open` = still open at the end), longest life",
      ["phase", "outcomes", "longest s"],
      phases.filter((p) => p.attackers !== undefined).map((p) => [
        p.name.slice(0, 3),
        Object.entries(p.attackers!).map(([k, v]) => `${k}: ${v}`).join(", "),
        fmt(p.longestAttackerSeconds!)
      ])
    ),
    "",
    streamNote,
    `memory: RSS ${mib(before.rssBytes)} MiB before the attacks, ${mib(after.rssBytes)} MiB after; kernel TCP memory ${
      mib(before.kernelTcpBytes)
    } MiB before, ${mib(after.kernelTcpBytes)} MiB after; descriptors ${before.fds} before, ${after.fds} after`,
    `shutdown (SIGTERM) with 100 non-readers, 20 idle keep-alive and 20 trickling connections: ${
      fmt(shutdownSeconds)
    } s, exit code ${exitCode}`,
    `well-behaved feed reader: ${reader.errors()} errors in all`
  ].join("\n")
  process.stdout.write(`${text}\n`)
  process.stdout.write(
    `${
      JSON.stringify({
        root,
        openFiles,
        routes,
        quick,
        phases,
        before,
        after,
        shutdownSeconds,
        exitCode,
        feedErrors: reader.errors()
      })
    }\n`
  )
  return 0
}

main().then((code) => process.exit(code), (error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
