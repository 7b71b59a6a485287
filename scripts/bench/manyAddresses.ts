/**
 * Attacks from many addresses on a running `svc serve` (issue #26, findings 2,
 * 3 and 6), measured from outside the server process; `scripts/attack.ts`
 * runs them (`--only holds,trickle,filters`). Every client uses a loopback
 * address of its own (127.0.0.2 upward for attackers), so that each is a
 * distinct client of the server.
 *
 * - holds: 50 throwaway keys, each from its own address, ask for the maximum
 *   of every open route of the demo catalog, again and again; sampled: the
 *   share of each destination asset held, and the open routes. Then a payer
 *   with a completed fill (made PAID beforehand through `svc admin settle`) and
 *   a first-time payer each ask for a permit.
 * - trickle: 50 addresses keep 60 connections each that trickle header lines
 *   (one a second; a connection the server closes is opened again), against
 *   the global connection cap of an open-file limit of 2,048; meanwhile a new
 *   well-behaved client opens a fresh connection for one feed request every
 *   250 ms.
 * - filters: one address keeps 16 feed requests in flight, each with a new
 *   made-up `sourceChainId` and `Accept-Encoding: br`, against a 2,000-route
 *   feed; meanwhile another client reads the feed (brotli) every 200 ms.
 */
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { connect, type Socket } from "node:net"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { Bytes, PermitMessage, Signature } from "../../packages/protocol/src/index.ts"
import { fmt, max, MiB, progress, quantile } from "./util.ts"

/** What a phase needs from the server it attacks (started by scripts/attack.ts). */
export interface Target {
  readonly port: number
  readonly dataDir: string
  /** The checkout whose `svc` runs (for `svc admin`). */
  readonly root: string
  /** The server's RSS now, bytes. */
  readonly rss: () => number
  /** The server's open descriptors and established connections now. */
  readonly connections: () => { readonly fds: number; readonly established: number }
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms))

interface Answer {
  readonly status: number
  readonly body: string
  readonly headers: Record<string, string | Array<string> | undefined>
}

const http = (
  port: number,
  method: "GET" | "POST",
  path: string,
  localAddress: string,
  options?: { readonly body?: string; readonly headers?: Record<string, string>; readonly agent?: Agent }
): Promise<Answer> =>
  new Promise((done) => {
    const req = request({
      host: "127.0.0.1",
      port,
      method,
      path,
      localAddress,
      agent: options?.agent ?? false,
      timeout: 15_000,
      headers: {
        ...(options?.body === undefined ? {} : { "content-type": "application/json" }),
        ...options?.headers
      }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () =>
        done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers }))
      res.on("error", () =>
        done({ status: 0, body: "", headers: {} }))
    })
    req.on("timeout", () => req.destroy(new Error("timeout")))
    req.on("error", () => done({ status: 0, body: "", headers: {} }))
    req.end(options?.body)
  })

const tally = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1)

// ---------------------------------------------------------------------------
// holds (finding 2)
// ---------------------------------------------------------------------------

const keyOf = (label: string) => Bytes.keccak(Bytes.utf8(`svc attack key ${label}`))

const RECIPIENT = "0x2222222222222222222222222222222222222222"

const permitBody = (quoteId: string, amount: string, key: `0x${string}`, idempotencyKey: string) => {
  const request = {
    quoteId,
    requestedAmountInRaw: amount,
    payer: Signature.addressOf(key),
    recipient: RECIPIENT,
    idempotencyKey
  }
  return JSON.stringify({ ...request, requestSignature: PermitMessage.sign(PermitMessage.build(request), key) })
}

interface Route {
  readonly routeId: string
  readonly quoteId: string
  readonly destinationAssetId: string
  readonly destinationAsset: string | null
  readonly destinationChainId: string | null
  readonly minimumFillInRaw: string
  readonly maxAvailableInRaw: string
}

/** Asset names (`usdc.base`) by the assetId of the feed's routes, from the demo catalog of the checkout. */
const assetNames = (root: string, routes: ReadonlyArray<Route>): Map<string, string> => {
  const catalog = JSON.parse(readFileSync(join(root, "packages/server/catalog/demo.json"), "utf8")) as {
    networks: Array<{ key: string; chainId?: number | string | null }>
    assets: Array<{ key: string; network: string; address?: string; reference?: string }>
  }
  const names = new Map<string, string>()
  for (const route of routes) {
    const asset = catalog.assets.find((a) => {
      const network = catalog.networks.find((n) => n.key === a.network)
      const chain = network?.chainId === undefined || network.chainId === null ? null : String(network.chainId)
      // EVM tokens by address; others (no chain id) by their reference
      return chain === route.destinationChainId &&
        (a.address === undefined
          ? a.reference !== undefined && route.destinationAsset === null
          : a.address.toLowerCase() === route.destinationAsset?.toLowerCase())
    })
    names.set(route.destinationAssetId.toLowerCase(), asset?.key ?? route.destinationAssetId.slice(0, 10))
  }
  return names
}

const openRoutes = async (port: number, localAddress: string): Promise<ReadonlyArray<Route>> => {
  const answer = await http(port, "GET", "/api/v6/solver-feed", localAddress)
  if (answer.status !== 200) return []
  return (JSON.parse(answer.body) as { feed: { openRoutes: Array<Route> } }).feed.openRoutes
}

/** The share of each asset's physical inventory held by unfilled permits, read from the SQLite store. */
const heldShares = (dataDir: string): Record<string, number> => {
  const db = new DatabaseSync(join(dataDir, "svc.sqlite"), { readOnly: true })
  try {
    db.exec("PRAGMA busy_timeout = 2000")
    const rows = db.prepare("SELECT asset_key, configured_raw, paid_out_raw, hold_raw FROM inventory").all() as Array<
      { asset_key: string; configured_raw: string; paid_out_raw: string; hold_raw: string }
    >
    const shares: Record<string, number> = {}
    for (const row of rows) {
      const physical = BigInt(row.configured_raw) - BigInt(row.paid_out_raw)
      if (physical > 0n) shares[row.asset_key] = Number((BigInt(row.hold_raw) * 10_000n) / physical) / 100
    }
    return shares
  } finally {
    db.close()
  }
}

const admin = (target: Target, args: ReadonlyArray<string>) => {
  const result = spawnSync(
    join(target.root, "node_modules/.bin/node"),
    [join(target.root, "packages/cli/src/bin.ts"), "admin", ...args],
    { env: { ...process.env, SVC_DATA_DIR: target.dataDir, SVC_LOG_LEVEL: "none" }, encoding: "utf8" }
  )
  if (result.status !== 0) throw new Error(`svc admin ${args.join(" ")}: ${result.stderr || result.stdout}`)
}

export interface HoldsResult {
  readonly seconds: number
  readonly attackers: number
  readonly permits: Record<string, number>
  /** Seconds until each asset was at least 99 % held (absent: never). */
  readonly heldAfter: Record<string, number>
  readonly peakShares: Record<string, number>
  readonly endShares: Record<string, number>
  readonly openRoutesBefore: number
  readonly openRoutesMin: number
  readonly openRoutesEnd: number
  readonly provenPayer: { readonly status: number; readonly error?: string; readonly reasonCodes?: Array<string> }
  readonly firstTimePayer: { readonly status: number; readonly error?: string; readonly reasonCodes?: Array<string> }
}

export const holds = async (target: Target, seconds: number, attackers = 50): Promise<HoldsResult> => {
  const port = target.port
  // a payer with a completed fill: one permit, moved to PAID through the operator tool
  const proven = keyOf("proven payer")
  const routes = await openRoutes(port, "127.0.0.200")
  const first = routes[0]!
  const issued = await http(port, "POST", "/api/v6/execution-permits", "127.0.0.200", {
    body: permitBody(first.quoteId, first.minimumFillInRaw, proven, "proven-first-fill")
  })
  if (issued.status !== 201) throw new Error(`the proven payer's first permit: ${issued.status} ${issued.body}`)
  const fillId = (JSON.parse(issued.body) as { permit: { fillId: string } }).permit.fillId
  const tx = (n: number) => `0x${n.toString(16).padStart(64, "0")}`
  progress("  the proven payer's fill: source-observed, source-confirmed, payout-submitted, paid (svc admin settle)")
  admin(target, ["settle", fillId, "source-observed", tx(1)])
  admin(target, ["settle", fillId, "source-confirmed"])
  admin(target, ["settle", fillId, "payout-submitted", tx(2)])
  admin(target, ["settle", fillId, "paid", tx(2)])

  const before = await openRoutes(port, "127.0.0.90")
  const openBefore = before.length
  const names = assetNames(target.root, before)
  const named = (shares: Record<string, number>) =>
    Object.fromEntries(Object.entries(shares).map(([id, share]) => [names.get(id) ?? id.slice(0, 10), share]))
  const permits: Record<string, number> = {}
  const started = Date.now()
  const deadline = started + seconds * 1000
  const heldAfter: Record<string, number> = {}
  const peak: Record<string, number> = {}
  let openMin = openBefore
  const sampler = (async () => {
    while (Date.now() < deadline) {
      const shares = named(heldShares(target.dataDir))
      for (const [asset, share] of Object.entries(shares)) {
        peak[asset] = Math.max(peak[asset] ?? 0, share)
        if (share >= 99 && heldAfter[asset] === undefined) heldAfter[asset] = (Date.now() - started) / 1000
      }
      openMin = Math.min(openMin, (await openRoutes(port, "127.0.0.90")).length)
      await sleep(500)
    }
  })()
  await Promise.all(Array.from({ length: attackers }, async (_, i) => {
    const address = `127.0.0.${2 + i}`
    const key = keyOf(`attacker ${i}`)
    let n = 0
    while (Date.now() < deadline) {
      const open = await openRoutes(port, address)
      if (open.length === 0) await sleep(200)
      for (const route of open) {
        if (Date.now() >= deadline) break
        // an EVM recipient: the routes to EVM networks
        if (route.destinationChainId === null) continue
        if (BigInt(route.maxAvailableInRaw) < BigInt(route.minimumFillInRaw)) continue
        const answer = await http(port, "POST", "/api/v6/execution-permits", address, {
          body: permitBody(route.quoteId, route.maxAvailableInRaw, key, `attack-${i}-${n++}`)
        })
        if (answer.status === 201) tally(permits, "201")
        else {
          const body = (() => {
            try {
              return JSON.parse(answer.body) as { error?: string; reasonCodes?: Array<string> }
            } catch {
              return {}
            }
          })()
          tally(permits, `${answer.status} ${body.reasonCodes?.join(",") ?? body.error ?? ""}`)
        }
      }
    }
  }))
  await sampler
  const endShares = named(heldShares(target.dataDir))
  const openEnd = await openRoutes(port, "127.0.0.90")
  const outcome = async (key: `0x${string}`, address: string, label: string) => {
    // the route whose destination asset is the most held, for the smallest amount it takes
    const shares = heldShares(target.dataDir)
    const all = (JSON.parse((await http(port, "GET", "/api/v6/solver-feed", address)).body) as {
      feed: { routes: Array<Route & { executionStatus: string }> }
    }).feed.routes.filter((r) => r.destinationChainId !== null && r.executionStatus === "OPEN")
    const route = [...all].sort((a, b) =>
      (shares[b.destinationAssetId.toLowerCase()] ?? 0) - (shares[a.destinationAssetId.toLowerCase()] ?? 0)
    )[0]!
    // a thousand minimum fills (1,000 USDC on the demo's stable routes), or what the route has left
    const thousand = BigInt(route.minimumFillInRaw) * 1000n
    const amount = BigInt(route.maxAvailableInRaw) < thousand ? BigInt(route.maxAvailableInRaw) : thousand
    const answer = await http(port, "POST", "/api/v6/execution-permits", address, {
      body: permitBody(route.quoteId, amount.toString(), key, `${label}-after-attack`)
    })
    const body = JSON.parse(answer.body) as { error?: string; reasonCodes?: Array<string> }
    return {
      status: answer.status,
      ...(answer.status === 201 ? {} : { error: body.error, reasonCodes: body.reasonCodes })
    }
  }
  return {
    seconds,
    attackers,
    permits,
    heldAfter,
    peakShares: peak,
    endShares,
    openRoutesBefore: openBefore,
    openRoutesMin: openMin,
    openRoutesEnd: openEnd.length,
    provenPayer: await outcome(proven, "127.0.0.200", "proven"),
    firstTimePayer: await outcome(keyOf("first-time payer"), "127.0.0.201", "first-time")
  }
}

export const holdsText = (r: HoldsResult): string => {
  const assets = Object.keys(r.peakShares).sort()
  return [
    `holds: ${r.attackers} throwaway keys from ${r.attackers} addresses, each asking for the maximum of every open route, ${r.seconds} s`,
    `  permits answered: ${Object.entries(r.permits).map(([k, v]) => `${k}: ${v}`).join("; ")}`,
    `  share of each asset held (peak, end): ${
      assets.map((a) => `${a} ${fmt(r.peakShares[a]!)} %, ${fmt(r.endShares[a] ?? 0)} %`).join("; ")
    }`,
    `  at least 99 % held after: ${
      assets.map((a) => `${a} ${r.heldAfter[a] === undefined ? "never" : `${fmt(r.heldAfter[a]!)} s`}`).join("; ")
    }`,
    `  open routes: ${r.openRoutesBefore} before, ${r.openRoutesMin} at least during the attack, ${r.openRoutesEnd} at the end`,
    `  a payer with a completed fill asks for 1,000 minimum fills on the most held asset: ${r.provenPayer.status} ${
      r.provenPayer.reasonCodes?.join(",") ?? ""
    }`,
    `  a first-time payer asks the same: ${r.firstTimePayer.status} ${r.firstTimePayer.reasonCodes?.join(",") ?? ""}`
  ].join("\n")
}

// ---------------------------------------------------------------------------
// trickle (finding 3)
// ---------------------------------------------------------------------------

export interface TrickleResult {
  readonly seconds: number
  readonly addresses: number
  readonly perAddress: number
  readonly newcomers: { readonly tried: number; readonly ok: number }
  readonly newcomerP50Ms: number
  readonly newcomerP99Ms: number
  readonly attackerConnects: number
  readonly attackerAnswers: Record<string, number>
  readonly peakEstablished: number
  readonly peakFds: number
}

export const trickle = async (
  target: Target,
  seconds: number,
  addresses = 50,
  perAddress = 60
): Promise<TrickleResult> => {
  const port = target.port
  const deadline = Date.now() + seconds * 1000
  let connects = 0
  const answers: Record<string, number> = {}
  const sockets = new Set<Socket>()
  const keep = (address: string) => {
    if (Date.now() >= deadline) return
    connects++
    const socket = connect({ port, host: "127.0.0.1", localAddress: address })
    sockets.add(socket)
    let received = ""
    let timer: ReturnType<typeof setInterval> | undefined
    socket.on("error", () => {})
    socket.on("data", (d: Buffer) => (received += d.toString("latin1").slice(0, 64)))
    socket.once("connect", () => {
      socket.write("GET /api/v6/solver-feed HTTP/1.1\r\nHost: svc\r\n")
      timer = setInterval(() => socket.write("X-Pad: a\r\n"), 1000)
    })
    socket.once("close", () => {
      clearInterval(timer)
      sockets.delete(socket)
      tally(answers, /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? "closed without an answer")
      // the attacker keeps its connections: a closed one is opened again
      setTimeout(() => keep(address), 100)
    })
  }
  for (let a = 0; a < addresses; a++) {
    for (let i = 0; i < perAddress; i++) keep(`127.0.0.${2 + a}`)
    await sleep(20)
  }
  // new well-behaved clients: a fresh connection for one feed request every 250 ms
  await sleep(2000)
  const results: Array<{ ok: boolean; ms: number }> = []
  let peakEstablished = 0
  let peakFds = 0
  const newcomers = (async () => {
    const pending: Array<Promise<void>> = []
    let n = 0
    while (Date.now() < deadline - 2000) {
      const address = `127.0.1.${1 + (n++ % 200)}`
      const started = performance.now()
      pending.push(
        http(port, "GET", "/api/v6/solver-feed", address).then((a) => {
          results.push({ ok: a.status === 200, ms: performance.now() - started })
        })
      )
      const c = target.connections()
      peakEstablished = Math.max(peakEstablished, c.established)
      peakFds = Math.max(peakFds, c.fds)
      await sleep(250)
    }
    await Promise.all(pending)
  })()
  await newcomers
  while (Date.now() < deadline) await sleep(100)
  for (const socket of sockets) socket.destroy()
  const served = results.filter((r) => r.ok).map((r) => r.ms)
  return {
    seconds,
    addresses,
    perAddress,
    newcomers: { tried: results.length, ok: served.length },
    newcomerP50Ms: quantile(served, 0.5),
    newcomerP99Ms: quantile(served, 0.99),
    attackerConnects: connects,
    attackerAnswers: answers,
    peakEstablished,
    peakFds
  }
}

export const trickleText = (r: TrickleResult): string =>
  [
    `trickle: ${r.addresses} addresses × ${r.perAddress} connections trickling header lines (reopened when closed), ${r.seconds} s`,
    `  new well-behaved clients (a fresh connection and one feed request every 250 ms, each from a new address): ${r.newcomers.ok} of ${r.newcomers.tried} served (p50 ${
      fmt(r.newcomerP50Ms)
    } ms, p99 ${fmt(r.newcomerP99Ms)} ms)`,
    `  attacker connections opened: ${r.attackerConnects}; how they ended: ${
      Object.entries(r.attackerAnswers).map(([k, v]) => `${k}: ${v}`).join(", ")
    }`,
    `  server: peak ${r.peakEstablished} established connections, ${r.peakFds} descriptors`
  ].join("\n")

// ---------------------------------------------------------------------------
// filters (finding 6)
// ---------------------------------------------------------------------------

export interface FiltersResult {
  readonly baselineSeconds: number
  readonly attackSeconds: number
  readonly baseline: { readonly p50: number; readonly p99: number; readonly max: number; readonly n: number }
  readonly underAttack: { readonly p50: number; readonly p99: number; readonly max: number; readonly n: number }
  readonly readerErrors: number
  readonly attackerAnswers: Record<string, number>
  readonly attackerRequests: number
  readonly rssBeforeMiB: number
  readonly rssPeakMiB: number
}

export const filters = async (
  target: Target,
  baselineSeconds: number,
  attackSeconds: number
): Promise<FiltersResult> => {
  const port = target.port
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const samples: Array<{ at: number; ms: number }> = []
  let readerErrors = 0
  const state = { running: true }
  const reader = (async () => {
    while (state.running) {
      const started = performance.now()
      const answer = await http(port, "GET", "/api/v6/solver-feed", "127.0.0.90", {
        agent,
        headers: { "accept-encoding": "br" }
      })
      if (answer.status === 200) samples.push({ at: Date.now(), ms: performance.now() - started })
      else readerErrors++
      await sleep(200)
    }
  })()
  const rssBefore = target.rss()
  let rssPeak = rssBefore
  const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, target.rss())), 250)
  const t0 = Date.now()
  await sleep(baselineSeconds * 1000)
  const t1 = Date.now()
  progress(`  attack: 16 requests in flight from 127.0.0.80, a made-up sourceChainId each`)
  const answers: Record<string, number> = {}
  let requests = 0
  const deadline = t1 + attackSeconds * 1000
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (Date.now() < deadline) {
      requests++
      const chainId = String(1_000_000_000 + Math.floor(Math.random() * 8_000_000_000))
      const answer = await http(port, "GET", `/api/v6/solver-feed?sourceChainId=${chainId}`, "127.0.0.80", {
        headers: { "accept-encoding": "br" }
      })
      tally(answers, String(answer.status))
    }
  }))
  const t2 = Date.now()
  state.running = false
  await reader
  clearInterval(rssTimer)
  agent.destroy()
  const window = (from: number, to: number) => {
    const ms = samples.filter((s) => s.at > from && s.at <= to).map((s) => s.ms)
    return { p50: quantile(ms, 0.5), p99: quantile(ms, 0.99), max: max(ms), n: ms.length }
  }
  return {
    baselineSeconds,
    attackSeconds,
    baseline: window(t0, t1),
    underAttack: window(t1, t2),
    readerErrors,
    attackerAnswers: answers,
    attackerRequests: requests,
    rssBeforeMiB: rssBefore / MiB,
    rssPeakMiB: rssPeak / MiB
  }
}

export const filtersText = (r: FiltersResult): string =>
  [
    `filters: one address keeps 16 feed requests in flight, each with a new made-up sourceChainId (brotli), ${r.attackSeconds} s`,
    `  another client's feed (brotli, every 200 ms): p50 / p99 / max ${fmt(r.baseline.p50)} / ${
      fmt(r.baseline.p99)
    } / ${fmt(r.baseline.max)} ms before (${r.baseline.n} requests), ${fmt(r.underAttack.p50)} / ${
      fmt(r.underAttack.p99)
    } / ${fmt(r.underAttack.max)} ms during (${r.underAttack.n}); its errors: ${r.readerErrors}`,
    `  the attacker's ${r.attackerRequests} requests: ${
      Object.entries(r.attackerAnswers).map(([k, v]) => `${k}: ${v}`).join(", ")
    }`,
    `  server RSS: ${fmt(r.rssBeforeMiB)} MiB before, ${fmt(r.rssPeakMiB)} MiB at the peak`
  ].join("\n")
