/**
 * A wallet with no svc code against the real command: `svc devnet` is started as a
 * process (`node packages/cli/src/bin.ts devnet --data-dir …`), and once it prints
 * `svc devnet ready <path>` the ethers wallet of examples/ethers-wallet (ethers and
 * node built-ins only) runs as another process and takes one fill from the signed
 * feed to PAID. A feed changed in transit is refused. SIGTERM then stops the devnet
 * with the server and both anvil chains it started.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { scaled } from "./support/time.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const BIN = join(ROOT, "packages/cli/src/bin.ts")
const WALLET = join(ROOT, "examples/ethers-wallet/wallet.ts")

interface DevnetFile {
  readonly server: string
  readonly chains: ReadonlyArray<{ readonly chainId: number; readonly rpcUrl: string }>
  readonly user: { readonly address: string }
}

let dataDir: string
let devnet: ChildProcess
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
let output = ""
let file: string
let info: DevnetFile

/** Runs a script with this Node; resolves with its exit code and output (never rejects on a non-zero exit). */
const runNode = (args: ReadonlyArray<string>, timeoutMs: number) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${args.join(" ")} did not end in ${timeoutMs} ms:\n${stdout}\n${stderr}`))
    }, timeoutMs)
    child.once("error", reject)
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** One JSON-RPC call; rejects when nothing answers. */
const rpc = async (url: string, method: string, params: ReadonlyArray<unknown> = []) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(5000)
  })
  return ((await response.json()) as { result: any }).result
}

const answers = (url: string) => rpc(url, "eth_chainId").then(() => true, () => false)

/** The live processes below `root` (Linux /proc), with their command names. */
const descendantsOf = (root: number): Array<{ pid: number; comm: string }> => {
  const parentOf = new Map<number, number>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      // pid (comm) state ppid …: comm may hold spaces and parentheses
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (state !== "Z") parentOf.set(Number(entry), Number(ppid))
    } catch {
      // the process ended meanwhile
    }
  }
  const found: Array<{ pid: number; comm: string }> = []
  for (const pid of parentOf.keys()) {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) {
      if (p === root) {
        try {
          found.push({ pid, comm: readFileSync(`/proc/${pid}/comm`, "utf8").trim() })
        } catch {
          // ended meanwhile
        }
        break
      }
    }
  }
  return found
}

const isRunning = (pid: number, comm: string) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]
    return state !== "Z" && readFileSync(`/proc/${pid}/comm`, "utf8").trim() === comm
  } catch {
    return false
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-ethers-wallet-"))
  devnet = spawn(process.execPath, [BIN, "devnet", "--data-dir", dataDir], {
    cwd: ROOT,
    env: { ...process.env, SVC_LOG_LEVEL: "warning" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  exited = new Promise((resolve) => devnet.once("exit", (code, signal) => resolve({ code, signal })))
  devnet.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-20_000)))
  file = await new Promise<string>((resolve, reject) => {
    let stdout = ""
    const timer = setTimeout(
      () => reject(new Error(`svc devnet not ready in time:\n${stdout}\n${output}`)),
      scaled(170_000)
    )
    devnet.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      const ready = /^svc devnet ready (.+)$/m.exec(stdout)
      if (ready !== null) {
        clearTimeout(timer)
        resolve(ready[1]!)
      }
    })
    devnet.once("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`svc devnet exited (${code ?? signal}) before ready:\n${stdout}\n${output}`))
    })
  })
  info = JSON.parse(readFileSync(file, "utf8")) as DevnetFile
}, scaled(180_000))

afterAll(async () => {
  // normally stopped by the last test; SIGTERM (never SIGKILL first: the chains would outlive it)
  if (devnet !== undefined && devnet.exitCode === null && devnet.signalCode === null) {
    devnet.kill("SIGTERM")
    const timer = setTimeout(() => devnet.kill("SIGKILL"), scaled(20_000))
    await exited
    clearTimeout(timer)
  }
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
}, scaled(30_000))

describe("a wallet written with ethers, with no svc code, against svc devnet", () => {
  it("imports nothing but ethers and node built-ins", () => {
    const source = readFileSync(WALLET, "utf8")
    const imports = [...source.matchAll(/^import[^"]*"([^"]+)"/gm)].map((m) => m[1])
    expect(imports.length).toBeGreaterThan(0)
    for (const specifier of imports) expect(specifier === "ethers" || specifier!.startsWith("node:")).toBe(true)
    const manifest = JSON.parse(readFileSync(join(ROOT, "examples/ethers-wallet/package.json"), "utf8"))
    expect(Object.keys(manifest.dependencies)).toEqual(["ethers"])
    expect(manifest.devDependencies).toBeUndefined()
  })

  it("takes one fill from the signed feed to PAID: exit 0 and the summary", async () => {
    const run = await runNode([WALLET, file, "--timeout", "120"], scaled(150_000))
    expect(run.code, `${run.stdout}\n${run.stderr}\n${output.slice(-3000)}`).toBe(0)
    const fillId = /^PAID fillId=(0x[0-9a-f]{64})$/m.exec(run.stdout)?.[1]
    const sourceTx = /source tx \(8453, fillDirect\): +(0x[0-9a-f]{64})$/m.exec(run.stdout)?.[1]
    const payoutTx = /payout tx \(56\): +(0x[0-9a-f]{64})$/m.exec(run.stdout)?.[1]
    expect(fillId, run.stdout).toBeDefined()
    expect(sourceTx, run.stdout).toBeDefined()
    expect(payoutTx, run.stdout).toBeDefined()
    expect(run.stderr).toMatch(/feed \d+ verified/)
    expect(run.stderr).toMatch(/permit verified/)

    // what the server and the chains say, independently of the wallet
    const status = await fetch(`${info.server}/api/v6/execution-permits/${fillId}`).then((r) => r.json()) as any
    expect(status.permit.state).toBe("PAID")
    expect(status.permit.sourceTxHash).toBe(sourceTx)
    expect(status.permit.payoutTxHash).toBe(payoutTx)
    const [source, destination] = [8453, 56].map((id) => info.chains.find((c) => c.chainId === id)!)
    expect((await rpc(source!.rpcUrl, "eth_getTransactionReceipt", [sourceTx])).status).toBe("0x1")
    expect((await rpc(destination!.rpcUrl, "eth_getTransactionReceipt", [payoutTx])).status).toBe("0x1")
    const amountOut = /amountOutRaw (\d+) USDT/.exec(run.stdout)?.[1]
    expect(amountOut).toBe(status.permit.permit.amountOutRaw)
  }, scaled(180_000))

  it("refuses a feed changed in transit (exit 1, hash mismatch) and asks for no permit", async () => {
    // a proxy in front of the server that points the manifest at itself and raises one signed minimum
    const upstream = info.server
    let permitRequests = 0
    const proxy: Server = createServer((request, response) => {
      void (async () => {
        if ((request.url ?? "").startsWith("/api/v6/execution-permits")) permitRequests++
        const answer = await fetch(`${upstream}${request.url}`, { method: request.method ?? "GET" })
        let text = (await answer.text()).replaceAll(upstream, origin)
        if ((request.url ?? "").startsWith("/api/v6/solver-feed")) {
          text = text.replaceAll(`"minimumFillInRaw":"1000000"`, `"minimumFillInRaw":"1000001"`)
        }
        response.writeHead(answer.status, { "content-type": "application/json" })
        response.end(text)
      })().catch((e: unknown) => {
        response.writeHead(502)
        response.end(String(e))
      })
    })
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
    const origin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
    const tampered = join(dataDir, "devnet-through-proxy.json")
    writeFileSync(tampered, JSON.stringify({ ...info, server: origin }))
    try {
      const run = await runNode([WALLET, tampered], scaled(60_000))
      expect(run.code).toBe(1)
      expect(run.stdout).toBe("")
      expect(run.stderr).toMatch(/^ethers wallet: feed: hash mismatch: computed 0x[0-9a-f]{64}/m)
      expect(permitRequests).toBe(0)
    } finally {
      await new Promise((resolve) => proxy.close(resolve))
    }
  }, scaled(90_000))

  it("stops on SIGTERM: exit 0, the server and both anvil chains it started are gone", async () => {
    const linux = existsSync("/proc/self/stat")
    const children = linux ? descendantsOf(devnet.pid!) : []
    const anvils = children.filter((c) => c.comm === "anvil")
    if (linux) expect(anvils.length, JSON.stringify(children)).toBe(2)
    const urls = [info.server, ...info.chains.map((c) => c.rpcUrl)]
    for (const c of info.chains) expect(await answers(c.rpcUrl)).toBe(true)

    devnet.kill("SIGTERM")
    const timer = setTimeout(() => devnet.kill("SIGKILL"), scaled(30_000))
    const exit = await exited
    clearTimeout(timer)
    expect(exit, output.slice(-3000)).toEqual({ code: 0, signal: null })

    for (const child of children) expect(isRunning(child.pid, child.comm), JSON.stringify(child)).toBe(false)
    for (const url of urls) expect(await answers(url), url).toBe(false)
  }, scaled(60_000))
})
