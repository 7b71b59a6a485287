/**
 * A throwaway local chain for tests and demos: the anvil binary of the npm package
 * `@foundry-rs/anvil` (its platform package ships the binary; nothing is
 * downloaded at run time), listening on an ephemeral port of 127.0.0.1, plus the
 * deterministic-deployment proxy the CREATE2 helpers need.
 *
 * Node only; needs the dev dependency `@foundry-rs/anvil`.
 *
 * ```ts
 * const node = await startAnvil({ chainId: 8453 })
 * try {
 *   await ensureCreate2Factory(node.url)
 *   // ... viem clients on node.url
 * } finally {
 *   await node.stop()
 * }
 * ```
 *
 * @since 0.1.0
 */
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import type { Hex } from "viem"
import { CREATE2_FACTORY } from "../Deploy.ts"

/**
 * Anvil's first default account key (public test material: funded on every anvil
 * chain, never use it elsewhere).
 *
 * @category constants
 * @since 0.1.0
 */
export const ANVIL_DEPLOYER_KEY: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

/**
 * Runtime code of the deterministic-deployment proxy at
 * 0x4e59b44847b379578588920cA78FbF26c0B4956C (calldata = salt ‖ init code; it
 * CREATE2-deploys and returns the 20-byte address). Anvil preinstalls it; this is
 * for chains that lack it.
 *
 * @category constants
 * @since 0.1.0
 */
export const CREATE2_FACTORY_RUNTIME_CODE: Hex =
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3"

/**
 * A running anvil.
 *
 * @category models
 * @since 0.1.0
 */
export interface AnvilNode {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly chainId: number
  /** Stops the process (SIGTERM, then SIGKILL after 2 s). */
  readonly stop: () => Promise<void>
}

/**
 * The anvil binary of this platform (`@foundry-rs/anvil-<os>-<arch>/bin/anvil`),
 * resolved from the `@foundry-rs/anvil` package.
 *
 * @category testing
 * @since 0.1.0
 */
export const anvilBinary = (): string => {
  const here = createRequire(import.meta.url)
  const fromAnvil = createRequire(here.resolve("@foundry-rs/anvil/package.json"))
  const arch = process.arch === "x64" ? "amd64" : process.arch
  const suffix = process.platform === "win32" ? ".exe" : ""
  return fromAnvil.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/anvil${suffix}`)
}

/**
 * Starts anvil with the given chain id on a free port and resolves once it listens.
 * The process is killed when the Node process exits, if {@link AnvilNode.stop} was
 * not called.
 *
 * @category running
 * @since 0.1.0
 */
export const startAnvil = (options?: {
  readonly chainId?: number | undefined
  /** Milliseconds to wait for "Listening on". Default 20000. */
  readonly timeoutMs?: number | undefined
  /** Mine a block every this many seconds (`--block-time`); default: a block per transaction. */
  readonly blockTime?: number | undefined
  /** The port to listen on; default 0 (a free port). */
  readonly port?: number | undefined
  /**
   * `--slots-in-an-epoch`: the `finalized` block trails the head by twice this
   * (anvil's default 32: block 0 until block 64).
   */
  readonly slotsInAnEpoch?: number | undefined
  /** The anvil executable; default {@link anvilBinary}. */
  readonly binary?: string | undefined
}): Promise<AnvilNode> => {
  const chainId = options?.chainId ?? 31337
  const args = ["--host", "127.0.0.1", "--port", String(options?.port ?? 0), "--chain-id", String(chainId)]
  if (options?.blockTime !== undefined) args.push("--block-time", String(options.blockTime))
  if (options?.slotsInAnEpoch !== undefined) args.push("--slots-in-an-epoch", String(options.slotsInAnEpoch))
  const child = spawn(options?.binary ?? anvilBinary(), args, { stdio: ["ignore", "pipe", "pipe"] })
  const killNow = () => {
    child.kill("SIGKILL")
  }
  process.once("exit", killNow)
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      process.removeListener("exit", killNow)
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once("exit", () => resolve())
      child.kill("SIGTERM")
      setTimeout(killNow, 2000).unref()
    })
  return new Promise((resolve, reject) => {
    let output = ""
    const fail = (message: string) => {
      clearTimeout(timer)
      void stop()
      reject(new Error(`anvil (chain ${chainId}): ${message}: ${output.slice(-500)}`))
    }
    const timer = setTimeout(() => fail("not listening in time"), options?.timeoutMs ?? 20_000)
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
      const listening = /Listening on (127\.0\.0\.1):(\d+)/.exec(output)
      if (listening === null) return
      clearTimeout(timer)
      child.stdout.removeAllListeners("data")
      child.stdout.resume()
      child.stderr.removeAllListeners("data")
      child.stderr.resume()
      child.removeAllListeners("exit")
      resolve({ url: `http://${listening[1]}:${listening[2]}`, chainId, stop })
    })
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
    })
    child.once("error", (error) => fail(`could not start (${error.message})`))
    child.once("exit", (code) => fail(`exited with ${code}`))
  })
}

/**
 * One JSON-RPC call.
 *
 * @throws {Error} on an HTTP or JSON-RPC error.
 * @category onchain
 * @since 0.1.0
 */
export const rpc = async (url: string, method: string, params: ReadonlyArray<unknown> = []): Promise<unknown> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
  })
  if (!response.ok) throw new Error(`${method}: HTTP ${response.status}`)
  const body = (await response.json()) as { result?: unknown; error?: { message: string } }
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

/**
 * Makes sure the deterministic-deployment proxy is at {@link CREATE2_FACTORY}:
 * returns `"present"` when it already was (anvil's default), `"installed"` after
 * writing {@link CREATE2_FACTORY_RUNTIME_CODE} there with `anvil_setCode`.
 *
 * @category running
 * @since 0.1.0
 */
export const ensureCreate2Factory = async (url: string): Promise<"present" | "installed"> => {
  const code = (await rpc(url, "eth_getCode", [CREATE2_FACTORY, "latest"])) as string
  if (code.toLowerCase() === CREATE2_FACTORY_RUNTIME_CODE) return "present"
  await rpc(url, "anvil_setCode", [CREATE2_FACTORY, CREATE2_FACTORY_RUNTIME_CODE])
  return "installed"
}
