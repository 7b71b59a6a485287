/**
 * The fast start of the protocol commands (`svc canonical`, `feed-hash`,
 * `verify-feed`, `permit-message`, `permit-digest`, `encode-permit`, `ids`): the
 * executable runs them here, without loading effect/cli, the platform layer or
 * the server, when their arguments have one of the plain forms below; it prints
 * what the effect/cli command of Cli.ts prints (same bytes on stdout, the same one
 * line on stderr, the same exit code), calling the same functions (Protocol.ts,
 * internal/contract.ts).
 *
 * Plain forms: the command, then in any order at most one path (a file, or `-` for
 * standard input) and the command's own flags, each at most once, a value flag
 * followed by its value (`--now 1700000000`, `--signer 0x...`) and a boolean
 * flag alone (`--raw`). Anything else (`--help`, `--flag=value`, an unknown flag,
 * a second path, `--`, a value that effect/cli could read differently) is left to
 * the full command line, and so is an input file that cannot be read, so that
 * every message stays the one effect/cli gives.
 *
 * @internal
 */
import { readFileSync } from "node:fs"
import { BadInput, decodeInput, jsonLine, parseJsonInput, refusalLine } from "./contract.ts"

type FlagKind = "int" | "string" | "boolean"

interface Outcome {
  readonly stdout: string
  readonly code: number
}

interface Spec {
  readonly flags: Readonly<Record<string, FlagKind>>
  /** Starts loading what the command needs (before the input is read). */
  readonly load: () => Promise<(input: unknown, flags: ReadonlyMap<string, string>) => Outcome>
}

/** The commands that need no schema: one small module. */
const plain = () => import("./protocolCommands.ts")
/** The permit commands decode with the ExecutionPermit schema: Protocol.ts. */
const permits = () => import("../Protocol.ts")

const printed = (value: unknown): Outcome => ({ stdout: jsonLine(value), code: 0 })

/** The commands, their flags (as Cli.ts declares them) and what they print. */
const COMMANDS: Readonly<Record<string, Spec>> = {
  "canonical": {
    flags: {},
    load: () => plain().then((P) => (input) => printed(P.canonical(input)))
  },
  "feed-hash": {
    flags: {},
    load: () => plain().then((P) => (input) => printed(P.feedHash(input)))
  },
  "verify-feed": {
    flags: { now: "int", signer: "string" },
    load: () =>
      plain().then((P) => (input, flags) => {
        const now = flags.get("now")
        const result = P.verifyFeed(input, {
          now: now === undefined ? Math.floor(Date.now() / 1000) : Number(now),
          signer: flags.get("signer")
        })
        // exit 1 when the feed does not verify, its result printed (Invalid in Cli.ts)
        return { stdout: jsonLine(result), code: result.valid ? 0 : 1 }
      })
  },
  "permit-message": {
    flags: { raw: "boolean" },
    load: () =>
      plain().then((P) => (input, flags) => {
        const message = P.permitMessage(input)
        return flags.has("raw") ? { stdout: message, code: 0 } : printed({ message })
      })
  },
  "permit-digest": {
    flags: {},
    load: () => permits().then((P) => (input) => printed(P.permitDigest(input)))
  },
  "encode-permit": {
    flags: {},
    load: () => permits().then((P) => (input) => printed(P.encodePermit(input)))
  },
  "ids": {
    flags: {},
    load: () => plain().then((P) => (input) => printed(P.ids(input)))
  }
}

/** The values effect/cli reads as the value of a boolean flag that they follow. */
const BOOLEAN_LITERALS = new Set(["true", "yes", "on", "1", "y", "false", "no", "off", "0", "n"])

/** An integer that effect/cli's `Flag.Int` reads as the same number. */
const PLAIN_INT = /^(?:0|[1-9][0-9]{0,14})$/

/**
 * The path and flags of a plain form of the command's arguments, or undefined
 * for any other form.
 */
const parseArgs = (
  args: ReadonlyArray<string>,
  kinds: Readonly<Record<string, FlagKind>>
): { readonly path: string | undefined; readonly flags: ReadonlyMap<string, string> } | undefined => {
  let path: string | undefined
  const flags = new Map<string, string>()
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "-" || !arg.startsWith("-")) {
      if (path !== undefined) return undefined
      path = arg
      continue
    }
    const name = arg.slice(2)
    const kind = arg.startsWith("--") && Object.hasOwn(kinds, name) ? kinds[name] : undefined
    if (kind === undefined || flags.has(name)) return undefined
    if (kind === "boolean") {
      const next = args[i + 1]
      if (next !== undefined && BOOLEAN_LITERALS.has(next)) return undefined
      flags.set(name, "true")
      continue
    }
    const value = args[++i]
    if (value === undefined || value.startsWith("-")) return undefined
    if (kind === "int" && !PLAIN_INT.test(value)) return undefined
    flags.set(name, value)
  }
  return { path, flags }
}

const readStdin = async (): Promise<Uint8Array> => {
  const chunks: Array<Uint8Array> = []
  try {
    for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array)
  } catch (e) {
    throw new BadInput({ message: `cannot read standard input: ${(e as Error).message.split("\n")[0]}` })
  }
  return Buffer.concat(chunks)
}

/** The input text, or undefined when the file cannot be read (the full command line reports it). */
const readInput = async (path: string | undefined): Promise<string | undefined> => {
  if (path !== undefined && path !== "-") {
    let bytes: Uint8Array
    try {
      bytes = readFileSync(path)
    } catch {
      return undefined
    }
    return decodeInput(bytes)
  }
  return decodeInput(await readStdin())
}

/**
 * Writes the output; false when standard output fails (a closed pipe), after the
 * line and before the exit code 70 of Cli.exitCodeOf for the failure of its stdout
 * sink.
 */
const write = (text: string): Promise<boolean> =>
  new Promise((resolve) => {
    process.stdout.on("error", () => undefined) // reported through the callback
    process.stdout.write(text, (error) => {
      if (error) process.stderr.write("svc: internal error: PlatformError: Unknown: Stdio.stdout\n")
      resolve(!error)
    })
  })

/** As Cli.exitCodeOf: a refusal is one line on stderr and exit 2 (a failure of another kind: exit 2, no line). */
const refuse = (error: unknown): number => {
  if (error instanceof BadInput) process.stderr.write(refusalLine(error.message))
  return 2
}

/**
 * Runs `svc <argv>` when it is a protocol command in a plain form: resolves to
 * its exit code once its output is written, or to undefined, having written
 * nothing, when the full command line (Cli.ts) must run it.
 */
export const run = async (argv: ReadonlyArray<string>): Promise<number | undefined> => {
  const spec = argv[0] !== undefined && Object.hasOwn(COMMANDS, argv[0]) ? COMMANDS[argv[0]] : undefined
  if (spec === undefined) return undefined
  const parsed = parseArgs(argv.slice(1), spec.flags)
  if (parsed === undefined) return undefined
  const command = spec.load()
  command.catch(() => undefined) // awaited below; not an unhandled rejection while the input is read
  let text: string | undefined
  try {
    text = await readInput(parsed.path)
  } catch (error) {
    return refuse(error)
  }
  if (text === undefined) return undefined
  const execute = await command
  let outcome: Outcome
  try {
    outcome = execute(parseJsonInput(text), parsed.flags)
  } catch (error) {
    return refuse(error)
  }
  return (await write(outcome.stdout)) ? outcome.code : 70
}
