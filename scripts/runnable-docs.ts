/**
 * Runs every command block of the README and docs/*.md that is marked as
 * runnable, as a user would paste it, from the repository root:
 *
 * - `<!-- runnable -->` on the line before a fenced `sh` block: the block runs
 *   in bash (the shell a terminal gives; `set -e`) against a fresh server
 *   (`npm start` with an empty data directory, on the documented port 8787) and
 *   must exit 0. The blocks of one document run in order in one shell, like one
 *   terminal: variables carry over.
 * - `<!-- runnable: long-running[; note] -->`: the block serves until stopped
 *   (`npm start`, an event stream, an embedded solver): it must print something
 *   and still be running two seconds later; it is then stopped like Ctrl-C.
 *   A block that starts a server itself runs before the document's fresh server.
 * - `<!-- runnable: needs npm run devnet in another terminal -->`: the block
 *   runs while `npm run devnet` runs (started once for the document).
 * - `<!-- runnable: plain chains -->`: the block runs against two plain local
 *   chains the runner starts itself (anvil, not the devnet: chain ids 31001 on
 *   port 8545 and 31002 on port 8546, a block every 2 s), in a new folder
 *   outside the repository where `npx svc` is this repository's command line,
 *   without the document's fresh server (port 8787 must be free for the
 *   document's own). The blocks run in order; variables carry over.
 *   `<!-- runnable: plain chains; long-running -->`: a block that serves (`npx
 *   svc serve`) is started there, must print its ready line and still be
 *   running two seconds later, and keeps running for the blocks after it; it is
 *   stopped like Ctrl-C when the document ends and must exit cleanly.
 *
 *   node scripts/runnable-docs.ts                 # every document
 *   node scripts/runnable-docs.ts docs/client.md  # some
 *   node scripts/runnable-docs.ts --list          # the marked blocks, without running them
 *
 * Exit 0 when every block passed, 1 otherwise (the failing block, its command
 * and the end of its output are printed).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createConnection } from "node:net"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { type AnvilNode, startAnvil } from "../packages/contracts/src/testing/Anvil.ts"

export type Kind = "run" | "long-running" | "devnet" | "chains" | "chains-long-running"

export interface Block {
  readonly file: string
  /** 1-based line of the opening fence. */
  readonly line: number
  readonly kind: Kind
  readonly note: string
  readonly code: string
}

const MARKER = /^<!--\s*runnable(?::\s*(.*?))?\s*-->\s*$/

/** The marked blocks of a Markdown text. */
export const parse = (file: string, text: string): ReadonlyArray<Block> => {
  const lines = text.split("\n")
  const blocks: Array<Block> = []
  for (let i = 1; i < lines.length; i++) {
    if (!/^```sh\s*$/.test(lines[i]!)) continue
    const marker = MARKER.exec(lines[i - 1]!.trim())
    if (marker === null) continue
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l))
    if (end === -1) throw new Error(`${file}:${i + 1}: a runnable block is not closed`)
    const note = marker[1] ?? ""
    const kind: Kind = note === "plain chains"
      ? "chains"
      : note === "plain chains; long-running"
      ? "chains-long-running"
      : note.startsWith("long-running")
      ? "long-running"
      : note.startsWith("needs npm run devnet")
      ? "devnet"
      : note === ""
      ? "run"
      : (() => {
        throw new Error(`${file}:${i}: unknown runnable marker "${note}"`)
      })()
    blocks.push({ file, line: i + 1, kind, note, code: lines.slice(i + 1, end).join("\n") })
    i = end
  }
  return blocks
}

const root = fileURLToPath(new URL("../", import.meta.url))

/** README.md and docs/*.md. */
export const documents = (): ReadonlyArray<string> => [
  "README.md",
  ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)
]

/** Whether a block starts a server of its own (it runs before the document's fresh server). */
const startsServer = (code: string) => /\bnpm start\b|\bsvc serve\b|\bnpm run devnet\b/.test(code)

interface Running {
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
}

/** The shell a user pastes into: bash where there is one. */
const SHELL = ["/bin/bash", "/usr/bin/bash"].find((p) => existsSync(p)) ?? "sh"

const start = (command: string, env: NodeJS.ProcessEnv, cwd: string = root): Running => {
  const child = spawn(SHELL, ["-c", command], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { child, output: () => output, exited }
}

/** Stops a process group like Ctrl-C (SIGINT), then SIGKILL after a grace. */
const stop = async (running: Running, graceMillis = 15_000): Promise<number | null> => {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return running.child.exitCode
  try {
    process.kill(-running.child.pid!, "SIGINT")
  } catch {}
  const timer = setTimeout(() => {
    try {
      process.kill(-running.child.pid!, "SIGKILL")
    } catch {}
  }, graceMillis)
  const code = await running.exited
  clearTimeout(timer)
  return code
}

const until = async (what: string, predicate: () => boolean, running: Running, millis: number) => {
  const deadline = Date.now() + millis
  while (Date.now() < deadline) {
    if (predicate()) return
    if (running.child.exitCode !== null) throw new Error(`${what}: exited ${running.child.exitCode} first`)
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${what}: not within ${Math.round(millis / 1000)} s`)
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" })
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", () => resolve(true))
  })

/** The plain chains of `<!-- runnable: plain chains -->` blocks (documented in docs/going-live.md). */
const PLAIN_CHAINS = [{ chainId: 31001, port: 8545 }, { chainId: 31002, port: 8546 }] as const

const tail = (text: string, lines = 25) => text.trimEnd().split("\n").slice(-lines).map((l) => `    ${l}`).join("\n")

export interface Outcome {
  readonly block: Block
  readonly ok: boolean
  readonly millis: number
  readonly detail?: string | undefined
}

/** Runs the marked blocks of one document. */
export const runDocument = async (_file: string, blocks: ReadonlyArray<Block>): Promise<ReadonlyArray<Outcome>> => {
  const outcomes: Array<Outcome> = []
  const work = mkdtempSync(join(tmpdir(), "svc-runnable-docs-"))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // a fresh server: its own data directory, shared with the blocks (svc admin acts on the same store)
    SVC_DATA_DIR: join(work, "data"),
    NO_COLOR: "1"
  }
  delete env.PORT
  delete env.CI_RUNNABLE_SHELL

  const runBlock = async (block: Block): Promise<Outcome> => {
    const started = Date.now()
    if (block.kind === "long-running") {
      const running = start(block.code, env)
      try {
        await until("it printed nothing", () => running.output().trim().length > 0, running, 120_000)
        // a server prints its ready line last: give it a moment, then it must still be running
        if (startsServer(block.code)) {
          await until(
            "it did not print its ready line",
            () => /listening on|devnet ready|started/.test(running.output()),
            running,
            180_000
          )
        }
        await new Promise((r) => setTimeout(r, 2000))
        if (running.child.exitCode !== null) throw new Error(`it exited ${running.child.exitCode}`)
        const code = await stop(running)
        if (code !== 0 && code !== 130 && code !== null && startsServer(block.code)) {
          throw new Error(`stopped with Ctrl-C it exited ${code}`)
        }
        return { block, ok: true, millis: Date.now() - started }
      } catch (e) {
        await stop(running, 2000)
        return {
          block,
          ok: false,
          millis: Date.now() - started,
          detail: `${(e as Error).message}\n${tail(running.output())}`
        }
      }
    }
    throw new Error("plain blocks run through runSequence")
  }

  /** The plain blocks of a document, in order, in one shell (like one terminal): variables carry over. */
  const runSequence = async (
    sequence: ReadonlyArray<Block>,
    shellEnv: NodeJS.ProcessEnv = env,
    shell: { readonly cwd?: string; readonly before?: string; readonly after?: string; readonly also?: () => string } =
      {}
  ): Promise<ReadonlyArray<Outcome>> => {
    const started = Date.now()
    const script = [
      shell.before ?? "",
      "set -e",
      ...sequence.map((b) => `printf '\\n@@runnable-block ${b.line}\\n'\n${b.code}`),
      shell.after ?? "",
      "printf '\\n@@runnable-done\\n'"
    ].join("\n")
    const running = start(script, shellEnv, shell.cwd)
    const timer = setTimeout(() => void stop(running, 2000), 600_000)
    const code = await running.exited
    clearTimeout(timer)
    const output = running.output()
    const reached = [...output.matchAll(/@@runnable-block (\d+)/g)].map((m) => Number(m[1]))
    const done = output.includes("@@runnable-done")
    const millis = Date.now() - started
    return sequence.map((block) => {
      if (done && code === 0) return { block, ok: true, millis }
      const last = reached.at(-1)
      if (last === undefined || block.line < last) return { block, ok: last !== undefined, millis }
      if (block.line === last) {
        const from = output.lastIndexOf(`@@runnable-block ${last}`)
        const also = shell.also?.() ?? ""
        return {
          block,
          ok: false,
          millis,
          detail: `exit ${code}\n${tail(output.slice(from))}${also === "" ? "" : `\n  and meanwhile:\n${tail(also)}`}`
        }
      }
      return { block, ok: false, millis: 0, detail: "not run: an earlier block of the document failed" }
    })
  }

  /** The blocks on plain chains: two anvils, a folder outside the repository, `npx svc` this repository's. */
  const runOnPlainChains = async (sequence: ReadonlyArray<Block>): Promise<ReadonlyArray<Outcome>> => {
    const busy: Array<number> = []
    for (const port of [...PLAIN_CHAINS.map((c) => c.port), 8787]) if (!(await portFree(port))) busy.push(port)
    if (busy.length > 0) {
      return sequence.map((block) => ({
        block,
        ok: false,
        millis: 0,
        detail: `port ${busy.join(" and ")} in use: the documented ports must be free`
      }))
    }
    const folder = join(work, "plain-chains")
    mkdirSync(join(folder, "node_modules/.bin"), { recursive: true })
    const node = existsSync(join(root, "node_modules/.bin/node"))
      ? join(root, "node_modules/.bin/node")
      : process.execPath
    writeFileSync(
      join(folder, "node_modules/.bin/svc"),
      `#!/bin/sh\nexec "${node}" "${join(root, "packages/cli/src/bin.ts")}" "$@"\n`,
      { mode: 0o755 }
    )
    const chainsEnv: NodeJS.ProcessEnv = { ...env }
    delete chainsEnv.SVC_DATA_DIR
    // every variable of a block carries over to the next, through a file (a serving block runs apart)
    const state = join(folder, ".runnable-state.sh")
    const before = `set -a\n[ ! -f ${state} ] || . ${state}`
    const after = `export -p | grep -v -E '^declare -x (PWD|OLDPWD|SHLVL|_)=' > ${state}`
    const nodes: Array<AnvilNode> = []
    const serving: Array<Running> = []
    const servingOutput = () => serving.map((r) => r.output()).join("\n")
    const result: Array<Outcome> = []
    try {
      nodes.push(...await Promise.all(PLAIN_CHAINS.map((c) => startAnvil({ ...c, blockTime: 2 }))))
      let index = 0
      while (index < sequence.length) {
        const block = sequence[index]!
        if (block.kind === "chains-long-running") {
          index++
          const started = Date.now()
          const running = start(`${before}\n${block.code}`, chainsEnv, folder)
          serving.push(running)
          try {
            await until(
              "it did not print its ready line",
              () => /svc authority 0x|listening on/.test(running.output()),
              running,
              180_000
            )
            await new Promise((r) => setTimeout(r, 2000))
            if (running.child.exitCode !== null) throw new Error(`it exited ${running.child.exitCode}`)
            result.push({ block, ok: true, millis: Date.now() - started })
          } catch (e) {
            result.push({
              block,
              ok: false,
              millis: Date.now() - started,
              detail: `${(e as Error).message}\n${tail(running.output())}`
            })
            for (const rest of sequence.slice(index)) {
              result.push({ block: rest, ok: false, millis: 0, detail: "not run: an earlier block failed" })
            }
            return result
          }
          continue
        }
        const end = sequence.findIndex((b, j) => j > index && b.kind === "chains-long-running")
        const plain = sequence.slice(index, end === -1 ? sequence.length : end)
        index += plain.length
        const outcomes = await runSequence(plain, chainsEnv, { cwd: folder, before, after, also: servingOutput })
        result.push(...outcomes)
        if (outcomes.some((o) => !o.ok)) {
          for (const rest of sequence.slice(index)) {
            result.push({ block: rest, ok: false, millis: 0, detail: "not run: an earlier block failed" })
          }
          return result
        }
      }
      // the servers stop like Ctrl-C, cleanly
      for (const running of serving.splice(0)) {
        const code = await stop(running)
        if (code !== 0 && code !== 130 && code !== null) {
          const block = sequence.find((b) => b.kind === "chains-long-running")!
          result.push({
            block,
            ok: false,
            millis: 0,
            detail: `stopped with Ctrl-C it exited ${code}\n${tail(running.output())}`
          })
        }
      }
      return result
    } catch (e) {
      return sequence.map((block) => ({ block, ok: false, millis: 0, detail: `plain chains: ${(e as Error).message}` }))
    } finally {
      for (const running of serving) await stop(running, 5000)
      await Promise.all(nodes.map((n) => n.stop()))
    }
  }

  try {
    const chainBlocks = blocks.filter((b) => b.kind === "chains" || b.kind === "chains-long-running")
    if (chainBlocks.length > 0) outcomes.push(...await runOnPlainChains(chainBlocks))
    const servers = blocks.filter((b) => b.kind === "long-running" && startsServer(b.code))
    for (const block of servers) outcomes.push(await runBlock(block))
    const devnetBlocks = blocks.filter((b) => b.kind === "devnet")
    if (devnetBlocks.length > 0) {
      // the devnet keeps its state where the documents say (./.svc-devnet), not in the fresh data directory
      const devnetEnv = { ...env }
      delete devnetEnv.SVC_DATA_DIR
      const devnet = start("npm run devnet", devnetEnv)
      try {
        await until("npm run devnet is ready", () => /svc devnet ready/.test(devnet.output()), devnet, 240_000)
        outcomes.push(...await runSequence(devnetBlocks, devnetEnv))
      } catch (e) {
        for (const block of devnetBlocks) {
          outcomes.push({ block, ok: false, millis: 0, detail: `${(e as Error).message}\n${tail(devnet.output())}` })
        }
      } finally {
        await stop(devnet)
      }
    }
    const rest = blocks.filter((b) => b.kind === "run" || (b.kind === "long-running" && !startsServer(b.code)))
    if (rest.length > 0) {
      if (!(await portFree(8787))) {
        for (const block of rest) {
          outcomes.push({
            block,
            ok: false,
            millis: 0,
            detail: "port 8787 is in use: the documented port must be free"
          })
        }
        return outcomes
      }
      const server = start("npm start", env)
      try {
        await until("npm start is listening", () => /svc listening on/.test(server.output()), server, 180_000)
        for (const block of rest.filter((b) => b.kind === "long-running")) outcomes.push(await runBlock(block))
        outcomes.push(...await runSequence(rest.filter((b) => b.kind === "run")))
      } catch (e) {
        for (const block of rest) {
          if (!outcomes.some((o) => o.block === block)) {
            outcomes.push({ block, ok: false, millis: 0, detail: `${(e as Error).message}\n${tail(server.output())}` })
          }
        }
      } finally {
        await stop(server)
      }
    }
    return outcomes.sort((a, b) => a.block.line - b.block.line)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

const main = async () => {
  const args = process.argv.slice(2)
  const list = args.includes("--list")
  const files = args.filter((a) => !a.startsWith("--"))
  const selected = files.length > 0 ? files.map((f) => relative(root, join(process.cwd(), f))) : documents()
  let failed = 0
  let total = 0
  for (const file of selected) {
    const blocks = parse(file, readFileSync(join(root, file), "utf8"))
    if (blocks.length === 0) continue
    if (list) {
      for (const b of blocks) process.stdout.write(`${b.file}:${b.line} ${b.kind}\n${b.code}\n\n`)
      continue
    }
    for (const outcome of await runDocument(file, blocks)) {
      total++
      const where = `${outcome.block.file}:${outcome.block.line}`
      const first = outcome.block.code.split("\n")[0]
      if (outcome.ok) {
        process.stdout.write(`✓ ${where} (${(outcome.millis / 1000).toFixed(1)} s) ${first}\n`)
      } else {
        failed++
        process.stdout.write(
          `✗ ${where} ${outcome.block.kind}\n${outcome.block.code.replace(/^/gm, "  $ ")}\n${outcome.detail ?? ""}\n`
        )
      }
    }
  }
  if (!list) process.stdout.write(`${total - failed} of ${total} runnable blocks passed\n`)
  process.exitCode = failed === 0 ? 0 : 1
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main()
