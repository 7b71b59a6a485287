/**
 * The `svc` command tree (effect/cli) and its runner with the exit-code contract:
 * 0 ok, 1 invalid, 2 bad input (one line on stderr).
 *
 * @since 0.1.0
 */
import { NodeServices } from "@effect/platform-node"
import { Cli as Conformance } from "@svc/conformance"
import { Server, ServerConfig } from "@svc/server"
import { Cause, Effect, Exit, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { admin } from "./Admin.ts"
import { catalog } from "./CatalogCommand.ts"
import { deploy } from "./DeployCommand.ts"
import * as Devnet from "./Devnet.ts"
import { fund } from "./FundCommand.ts"
import { refusalLine } from "./internal/contract.ts"
import { BadInput, Invalid, readInputBytes, readJson, writeJson, writeText } from "./Io.ts"
import { keys } from "./Keys.ts"
import { newConnector } from "./NewConnector.ts"
import { newPlugin } from "./NewPlugin.ts"
import { newSolver } from "./NewSolver.ts"
import * as Protocol from "./Protocol.ts"

/** The version printed by `svc --version`. */
export const VERSION = "0.1.0"

const inputPath = Argument.String("path").pipe(
  Argument.withDescription("input file; standard input when absent or -"),
  Argument.optional
)

const run = <A>(f: (input: unknown) => A) => (path: Option.Option<string>) =>
  Effect.flatMap(readJson(path), (input) => Effect.try({ try: () => f(input), catch: (e) => e as BadInput }))

const canonical = Command.make(
  "canonical",
  { path: inputPath },
  ({ path }) => run(Protocol.canonical)(path).pipe(Effect.flatMap(writeJson))
).pipe(
  Command.withDescription("print the canonical JSON text of the input, as a JSON string")
)

const feedHash = Command.make(
  "feed-hash",
  { path: inputPath },
  ({ path }) => run(Protocol.feedHash)(path).pipe(Effect.flatMap(writeJson))
).pipe(
  Command.withDescription("print {feedHash} of a signed payload, feed or feed response")
)

const verifyFeed = Command.make("verify-feed", {
  path: inputPath,
  now: Flag.Int("now").pipe(Flag.withDescription("current Unix time in seconds (default: now)"), Flag.optional),
  signer: Flag.String("signer").pipe(
    Flag.withDescription("expected feed signer (default: feed.feedSigner)"),
    Flag.optional
  )
}, ({ now, path, signer }) =>
  Effect.gen(function*() {
    const result = yield* run((input) =>
      Protocol.verifyFeed(input, {
        now: Option.getOrElse(now, () => Math.floor(Date.now() / 1000)),
        signer: Option.getOrUndefined(signer)
      })
    )(path)
    yield* writeJson(result)
    if (!result.valid) return yield* new Invalid({ message: "feed does not verify" })
  })).pipe(Command.withDescription("verify a feed: hash, signer and validity window; exit 1 when invalid"))

const permitMessage = Command.make("permit-message", {
  path: inputPath,
  raw: Flag.Boolean("raw").pipe(Flag.withDescription("print the bare message text"), Flag.withDefault(false))
}, ({ path, raw }) =>
  run(Protocol.permitMessage)(path).pipe(
    Effect.flatMap((message) => raw ? writeText(message) : writeJson({ message }))
  )).pipe(Command.withDescription("print {message}, the permit request message of a request"))

const permitDigest = Command.make(
  "permit-digest",
  { path: inputPath },
  ({ path }) => run(Protocol.permitDigest)(path).pipe(Effect.flatMap(writeJson))
).pipe(
  Command.withDescription(
    "print {permitDigest} (EIP-712) of an ExecutionPermit, envelope or permit response. The permit has all 35 fields, or only the 31 of the ABI tuple (without the JSON-only publicationLane, serviceCategory, feeMode, serviceFeeBps, which the digest does not cover): same digest"
  ),
  Command.withShortDescription("print {permitDigest} (EIP-712) of a permit of 35 or 31 fields, envelope or response")
)

const encodePermit = Command.make(
  "encode-permit",
  { path: inputPath },
  ({ path }) => run(Protocol.encodePermit)(path).pipe(Effect.flatMap(writeJson))
).pipe(
  Command.withDescription(
    "print {payload} = abi.encode(permit, permitSignature) of an envelope or {permit, permitSignature}. The permit has all 35 fields, or only the 31 of the ABI tuple (without the JSON-only publicationLane, serviceCategory, feeMode, serviceFeeBps, which the tuple does not hold): same payload"
  ),
  Command.withShortDescription("print {payload} = abi.encode(permit, permitSignature) of an envelope")
)

const sign = Command.make("sign", {
  path: Argument.String("path").pipe(
    Argument.withDescription(
      "the message: JSON carrying it ({message}, {ok, message}, {signingPayload: {message}} or a whole build answer) or its raw bytes; standard input when absent or -"
    ),
    Argument.optional
  ),
  key: Flag.String("key").pipe(
    Flag.withDescription(
      "private key, 0x + 64 hex (default: SVC_SIGN_KEY). For test keys only: never give a funded key on a command line"
    ),
    Flag.optional
  ),
  raw: Flag.Boolean("raw").pipe(
    Flag.withDescription("sign the input bytes as they are, even when they are JSON"),
    Flag.withDefault(false)
  )
}, ({ key, path, raw }) =>
  Effect.gen(function*() {
    const privateKey = Option.getOrUndefined(key) ?? process.env.SVC_SIGN_KEY
    if (privateKey === undefined || privateKey.length === 0) {
      return yield* new BadInput({ message: "--key: required (or set SVC_SIGN_KEY)" })
    }
    const input = yield* readInputBytes(path)
    const signed = yield* Effect.try({
      try: () => Protocol.sign(input, privateKey, { raw }),
      catch: (e) => e as BadInput
    })
    yield* writeJson(signed)
  })).pipe(
    Command.withDescription(
      "print {signature, address}: the EIP-191 (personal_sign) signature of a message by a local test key, as a wallet signs a permit request message or the aggregator's signingPayload.message"
    ),
    Command.withShortDescription("print {signature, address}: personal_sign a message with a local test key")
  )

const ids = Command.make(
  "ids",
  { path: inputPath },
  ({ path }) => run(Protocol.ids)(path).pipe(Effect.flatMap(writeJson))
).pipe(
  Command.withDescription(
    `derive identifiers; input {kind, ...} or an array of them; kinds: ${Object.keys(Protocol.ID_KINDS).join(", ")}`
  )
)

/**
 * The description of `svc serve`: what it does and every setting it reads, from
 * the table the configuration reads ({@link ServerConfig.SETTINGS}).
 *
 * @category running
 * @since 0.1.0
 */
export const SERVE_DESCRIPTION = [
  "start the svc server (docs/operations.md)",
  "",
  "  SETTINGS: environment variables, else the same keys in the SVC_CONFIG file; NAME (default) meaning",
  "",
  ServerConfig.settingsHelp("  "),
  "",
  "  Connector plug-ins read their own keys (the EVM connector: SVC_RPC_URLS, SVC_RPC_TIMEOUT_MS,",
  "  SVC_PAYOUT_KEY; docs/connectors.md); so do plug-ins loaded from a package or path: `svc plugins` lists",
  "  the ones this configuration chooses and the keys each reads. The standard OTEL_* variables export traces",
  "  (docs/operations.md)."
].join("\n")

const serve = Command.make(
  "serve",
  {},
  () => Server.run.pipe(Effect.mapError((e) => new BadInput({ message: e.message })))
).pipe(
  Command.withDescription(SERVE_DESCRIPTION),
  Command.withShortDescription("start the svc server (settings: svc serve --help)")
)

const plugins = Command.make(
  "plugins",
  {},
  () =>
    Server.describePlugins().pipe(
      Effect.flatMap(writeText),
      Effect.mapError((e) => new BadInput({ message: e.message }))
    )
).pipe(
  Command.withDescription(
    "print the plug-ins svc serve would load with this configuration (SVC_STORE, SVC_COORDINATION, SVC_PRICING, SVC_MARKET, SVC_SIGNER_PLUGIN: the environment, then the SVC_CONFIG file), each loaded but not started, with the keys its own settings read and whether each is set"
  ),
  Command.withShortDescription("the plug-ins svc serve would load, and the keys each reads")
)

const devnet = Command.make(
  "devnet",
  {
    dataDir: Flag.String("data-dir").pipe(
      Flag.withDescription("where state goes (default SVC_DATA_DIR, else ./.svc-devnet)"),
      Flag.optional
    ),
    port: Flag.Int("port").pipe(Flag.withDescription("the server's port (default: a free one)"), Flag.optional),
    chainsOnly: Flag.Boolean("chains-only").pipe(
      Flag.withDescription(
        "start the chains, contracts and keys only, for a server of your own (devnet.json: server null; <data-dir>/server.env holds its settings)"
      ),
      Flag.withDefault(false)
    )
  },
  ({ chainsOnly, dataDir, port }) =>
    Effect.gen(function*() {
      const dir = Option.getOrElse(dataDir, () => process.env.SVC_DATA_DIR ?? "./.svc-devnet")
      const net = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () =>
            Devnet.start({
              dataDir: dir,
              port: Option.getOrUndefined(port),
              server: !chainsOnly,
              log: (line) => process.stdout.write(`${line}\n`),
              // the server's log (JSON lines) as it runs, apart from the progress lines
              serverLog: (chunk) => process.stderr.write(chunk)
            }),
          catch: (e) => new BadInput({ message: e instanceof Error ? e.message : String(e) })
        }),
        (started) => Effect.promise(() => started.stop())
      )
      yield* Effect.sync(() => process.stdout.write(`svc devnet ready ${net.file}\n`))
      return yield* Effect.never
    }).pipe(Effect.scoped)
).pipe(
  Command.withDescription(
    "start two local chains (8453, 56) with the reference contracts, funded vaults, a test user and keystores, and the server settling on them (--chains-only: without it); see docs/devnet.md"
  )
)

const conformance = Conformance.makeCommand({
  failed: (message) => new Invalid({ message }),
  badInput: (message) => new BadInput({ message })
})

/**
 * The root command.
 *
 * @category running
 * @since 0.1.0
 */
export const svc = Command.make("svc").pipe(
  Command.withDescription("svc: V6 solver toolkit"),
  Command.withSubcommands([
    canonical,
    feedHash,
    verifyFeed,
    permitMessage,
    permitDigest,
    encodePermit,
    sign,
    ids,
    serve,
    plugins,
    devnet,
    keys,
    catalog,
    deploy,
    fund,
    admin,
    newConnector,
    newPlugin,
    newSolver,
    conformance
  ])
)

/**
 * Maps the outcome of a command to its exit code, printing one line on stderr for
 * failures.
 *
 * @category running
 * @since 0.1.0
 */
export const exitCodeOf = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit)) return 0
  if (Cause.hasInterruptsOnly(exit.cause)) return 0
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isSome(error)) {
    const e = error.value
    if (e instanceof Invalid) return 1
    if (e instanceof BadInput) {
      process.stderr.write(refusalLine(e.message))
      return 2
    }
    // effect/cli parse errors have already been rendered
    return 2
  }
  process.stderr.write(`svc: internal error: ${Cause.pretty(exit.cause).split("\n")[0]}\n`)
  return 70
}

/**
 * Runs the tool on the given arguments.
 *
 * @category running
 * @since 0.1.0
 */
export const main = (argv: ReadonlyArray<string>) =>
  Command.runWith(svc, { version: VERSION })(argv).pipe(Effect.provide(NodeServices.layer))
