/**
 * The options of a run and the triggers an in-process deployment offers.
 *
 * @since 0.1.0
 */
import { Signature } from "@svc/protocol"
import { Context, type Effect, Option } from "effect"

/**
 * Where reports are written (`--report junit=PATH,json=PATH,ndjson=PATH`).
 *
 * @category models
 * @since 0.1.0
 */
export interface ReportTargets {
  readonly junit?: string | undefined
  readonly json?: string | undefined
  readonly ndjson?: string | undefined
  readonly html?: string | undefined
}

/**
 * A JSON-RPC endpoint of one chain (`--rpc <chainId>=<url>`).
 *
 * @category models
 * @since 0.1.0
 */
export interface RpcEndpoint {
  readonly chainId: number
  /** An http(s) URL; it may carry a provider's key, so it is never written to a report. */
  readonly url: string
}

/**
 * The options of a run.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunOptions {
  /** The deployment's base URL, without a trailing slash. */
  readonly baseUrl: string
  /** Groups or check names to run (empty: all). */
  readonly only: ReadonlyArray<string>
  /** Groups or check names to leave out. */
  readonly skip: ReadonlyArray<string>
  /** Seed of the generated inputs (negative group). */
  readonly seed: number
  /** Generated inputs per operation (negative group). */
  readonly maxExamples: number
  /** Per-request timeout, and how long time-dependent checks wait, seconds. */
  readonly timeoutSeconds: number
  /** The pinned feed signer (the permit authority); defaults to the manifest's feedSigner. */
  readonly signer?: string | undefined
  /** The test wallet key (a key with no funds) that signs permit requests. */
  readonly walletKey: `0x${string}`
  /** True when the wallet key was generated for this run. */
  readonly walletKeyGenerated: boolean
  /** Requests per second (undefined: unlimited). */
  readonly rate?: number | undefined
  /** Skip every check that can create a permit. */
  readonly readOnly: boolean
  /** How long a stream is watched when nothing may arrive (Last-Event-ID suppression, no replay), ms. */
  readonly quietMillis: number
  /** How long "sent immediately" may take (the initial feed event), ms. Default: the timeout, at most 5 s. */
  readonly immediateMillis?: number | undefined
  readonly reports: ReportTargets
  /** The chains the chain checks reach (`--rpc`, repeatable; empty: the chain group is skipped). */
  readonly rpc: ReadonlyArray<RpcEndpoint>
  /** Perform one real fill with the wallet key (`--execute`). */
  readonly execute: boolean
  /** How long `--execute` waits for its transactions and for the permit to be PAID, seconds. */
  readonly executeTimeoutSeconds: number
  /** `--strict`: a warning (a departure from svc's profile where the spec leaves it open) fails the run. */
  readonly strict: boolean
  /** `--coverage`: the coverage phase's cases (off, quick: one per boundary class, full: every boundary). */
  readonly coverage: CoverageMode
  /** `--status-lists`: the deployment's privacy setting of `/v1/status` lists the run assumes. */
  readonly statusLists: StatusLists
  /**
   * The generated wallets the run spreads its permits over (`--wallets`); the
   * first is `walletKey`. The cross-client checks need two.
   */
  readonly walletKeys: ReadonlyArray<`0x${string}`>
  /** `--wait`: how long the time-dependent checks may wait from the start of the run, seconds (default: the timeout). */
  readonly waitSeconds?: number | undefined
  /** `--stateful-runs`: sequences generated per model of the stateful group. */
  readonly statefulRuns: number
  /** The fast-check replay of a stateful check (`svc conformance replay` of a report that carries one). */
  readonly statefulReplay?: Readonly<Record<string, StatefulReplay>> | undefined
}

/**
 * The coverage phase's depth.
 *
 * @category models
 * @since 0.1.0
 */
export type CoverageMode = "off" | "quick" | "full"

/**
 * A deployment's privacy setting of `/v1/status` lists: `all` (anyone lists a
 * quoteId's or an address's fills), `address` (an address's fills only),
 * `none` (single fills only).
 *
 * @category models
 * @since 0.1.0
 */
export type StatusLists = "all" | "address" | "none"

/**
 * What replays a stateful check's failing sequence: fast-check's seed, path
 * and the commands' replay path.
 *
 * @category models
 * @since 0.1.0
 */
export interface StatefulReplay {
  readonly seed: number
  readonly path: string
  readonly replayPath: string
}

/**
 * The options of the current run.
 *
 * @category services
 * @since 0.1.0
 */
export class Options extends Context.Service<Options, RunOptions>()("@svc/conformance/Options") {}

/**
 * What an in-process deployment lets a check make happen, instead of waiting:
 *
 * - `publish`: a new publication now (the publisher's publishNow);
 * - `advanceTime`: move the deployment's clock (and the run's) forward.
 *
 * A live URL offers neither: checks that need them wait within `--timeout` and
 * are inconclusive when nothing happens.
 *
 * @category services
 * @since 0.1.0
 */
export const Triggers = Context.Reference<{
  readonly publish: Option.Option<Effect.Effect<void>>
  readonly advanceTime: Option.Option<(seconds: number) => Effect.Effect<void>>
}>("@svc/conformance/Triggers", {
  defaultValue: () => ({ publish: Option.none(), advanceTime: Option.none() })
})

/**
 * Defaults of the optional options.
 *
 * @category constructors
 * @since 0.1.0
 */
export const DEFAULTS = {
  maxExamples: 20,
  timeoutSeconds: 10,
  quietMillis: 1500,
  executeTimeoutSeconds: 120,
  coverage: "quick",
  statusLists: "all",
  wallets: 3,
  statefulRuns: 10
} as const

/**
 * A fresh random private key (for the test wallet).
 *
 * @category constructors
 * @since 0.1.0
 */
export const randomKey = (): `0x${string}` => {
  for (;;) {
    const bytes = new Uint8Array(32)
    globalThis.crypto.getRandomValues(bytes)
    const hex = `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}` as const
    const n = BigInt(hex)
    if (n > 0n && n < Signature.SECP256K1_N) return hex
  }
}

/**
 * Parses the values of `--rpc` (`<chainId>=<url>`: a decimal chain id and an
 * http(s) URL, each chain at most once), or says what is wrong with one.
 *
 * @category encoding
 * @since 0.1.0
 */
export const parseRpc = (
  values: ReadonlyArray<string>
): { readonly endpoints: ReadonlyArray<RpcEndpoint> } | { readonly error: string } => {
  const endpoints: Array<RpcEndpoint> = []
  for (const value of values) {
    const i = value.indexOf("=")
    const id = i === -1 ? "" : value.slice(0, i).trim()
    const url = i === -1 ? "" : value.slice(i + 1).trim()
    if (!/^[1-9][0-9]*$/.test(id) || !Number.isSafeInteger(Number(id)) || url.length === 0) {
      return {
        error:
          `--rpc ${value}: expected <chainId>=<url> with a decimal chain id, e.g. --rpc 8453=https://mainnet.base.org`
      }
    }
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      return { error: `--rpc ${value}: ${url} is not an http(s) URL` }
    }
    if (endpoints.some((e) => e.chainId === Number(id))) {
      return { error: `--rpc: chain ${id} is given more than once` }
    }
    endpoints.push({ chainId: Number(id), url })
  }
  return { endpoints }
}

/**
 * Fills the defaults of a partial option set.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  input: Partial<RunOptions> & { readonly baseUrl: string; readonly wallets?: number | undefined }
): RunOptions => {
  const { wallets, ...rest } = input
  const walletKey = input.walletKey ?? input.walletKeys?.[0] ?? randomKey()
  const count = Math.max(2, wallets ?? input.walletKeys?.length ?? DEFAULTS.wallets)
  const walletKeys = [walletKey, ...(input.walletKeys ?? []).slice(1)]
  while (walletKeys.length < count) walletKeys.push(randomKey())
  return {
    only: [],
    skip: [],
    seed: globalThis.crypto.getRandomValues(new Uint32Array(1))[0]! & 0x7fffffff,
    maxExamples: DEFAULTS.maxExamples,
    timeoutSeconds: DEFAULTS.timeoutSeconds,
    readOnly: false,
    quietMillis: DEFAULTS.quietMillis,
    reports: {},
    rpc: [],
    execute: false,
    executeTimeoutSeconds: DEFAULTS.executeTimeoutSeconds,
    strict: false,
    coverage: DEFAULTS.coverage,
    statusLists: DEFAULTS.statusLists,
    statefulRuns: DEFAULTS.statefulRuns,
    walletKeyGenerated: input.walletKey === undefined,
    ...rest,
    walletKey,
    walletKeys: walletKeys.slice(0, count),
    baseUrl: input.baseUrl.replace(/\/+$/, "")
  }
}
