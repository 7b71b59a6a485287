/**
 * The chains of a run (`--rpc <chainId>=<url>`): a JSON-RPC client per chain the
 * operator names, each checked once per run to serve the chain id it was given
 * for; the test wallet on them (`--execute`); the ABI fragments of the V6
 * contracts the chain checks call (the router's permit view and custom errors,
 * the discovery facade's views); and `eth_call` outcomes with the custom error
 * decoded, so that a check judges on the error's name and arguments.
 *
 * A chain that cannot be reached, or whose RPC serves another chain id, makes
 * the checks that need it inconclusive: that is the invocation's fault, not
 * the deployment's. RPC URLs may carry a provider's key: they are never written
 * into a verdict.
 *
 * @since 0.1.0
 */
import { PermitAbi } from "@svc/protocol"
import { Context, Effect, Layer } from "effect"
import {
  type Account,
  BaseError,
  type Chain,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  defineChain,
  type Hex,
  http,
  HttpRequestError,
  parseAbi,
  type PublicClient,
  TimeoutError,
  toFunctionSelector,
  type Transport,
  type WalletClient
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { Inconclusive, Skip } from "./Check.ts"
import { Options, type RpcEndpoint } from "./RunOptions.ts"

// ---------------------------------------------------------------------------
// ABI fragments
// ---------------------------------------------------------------------------

const PERMIT_TUPLE = `(${PermitAbi.PERMIT_TUPLE_FIELDS.map((f) => f.type).join(",")})`

/**
 * The router functions the chain checks call, by name: `permitDigest(permit)`
 * (the EIP-712 digest under the router's own domain, a view) and
 * `fillDirect(permit, signature)` (called with `eth_call` from the payer, and
 * sent by `--execute`).
 *
 * @category onchain
 * @since 0.1.0
 */
export const ROUTER_SIGNATURES = {
  permitDigest: `permitDigest(${PERMIT_TUPLE})`,
  fillDirect: PermitAbi.FILL_DIRECT_SIGNATURE
} as const

/**
 * The custom errors of the V6 router (`SvcMainnetRouterV6`), in the order its
 * checks run. A permit that is good but cannot be paid for reverts with
 * `TokenTransferFailed(sourceAsset)` (no balance or allowance) and nothing else.
 *
 * @category onchain
 * @since 0.1.0
 */
export const ROUTER_ERRORS = parseAbi([
  "error SourceIntakeDisabled()",
  "error ReleaseMismatch(bytes32 permitReleaseId)",
  "error WrongSourceChain(uint256 permitChainId, uint256 currentChainId)",
  "error WrongSourceRouter(address permitRouter)",
  "error PayerMismatch(address payer, address caller)",
  "error PermitNotYetValid(uint64 validAfter, uint256 currentTime)",
  "error PermitExpired(uint64 validUntil, uint256 currentTime)",
  "error FillAlreadyUsed(bytes32 fillId)",
  "error InvalidSignatureLength(uint256 length)",
  "error InvalidSignatureS(bytes32 s)",
  "error InvalidSignatureV(uint8 v)",
  "error InvalidPermitSignature(address recovered)",
  "error ZeroAmount()",
  "error NativeValueMismatch(uint256 expected, uint256 received)",
  "error TokenTransferFailed(address token)",
  "error NativeTransferFailed(address to)"
])

/**
 * The views of the discovery facade (`SvcSolverDiscoveryV6`) that the chain
 * checks compare with the on-chain discovery document.
 *
 * @category onchain
 * @since 0.1.0
 */
export const FACADE_ABI = parseAbi([
  "function systemState() view returns (uint256 currentChainId, bytes32 release, address publicRegistry, address publicRouter, uint256 discoverableRouteCount, bool live)",
  "function discoveryURI() view returns (string)",
  "function routeCount() view returns (uint256)"
])

/**
 * The calldata of the router's `permitDigest(permit)` view.
 *
 * @throws {PermitAbi.PermitAbiError}
 * @category encoding
 * @since 0.1.0
 */
export const encodePermitDigestCall = (permit: PermitAbi.AbiPermit): Hex =>
  `${toFunctionSelector(ROUTER_SIGNATURES.permitDigest)}${PermitAbi.encodeTuple(permit).slice(2)}`

// ---------------------------------------------------------------------------
// Calls and reverts
// ---------------------------------------------------------------------------

/**
 * A call that reverted: the custom error decoded against {@link ROUTER_ERRORS}
 * (and `Error(string)` / `Panic(uint256)`) when it is one of them.
 *
 * @category models
 * @since 0.1.0
 */
export interface Revert {
  /** The error's name, when the data decodes. */
  readonly name?: string | undefined
  readonly args: ReadonlyArray<unknown>
  /** The raw revert data (undefined when the node gave none). */
  readonly data?: Hex | undefined
  /** The node's message. */
  readonly message: string
}

/**
 * The outcome of an `eth_call`.
 *
 * @category models
 * @since 0.1.0
 */
export type CallOutcome =
  | { readonly _tag: "Returned"; readonly data: Hex }
  | { readonly _tag: "Reverted"; readonly revert: Revert }

const showArg = (a: unknown): string => (typeof a === "bigint" ? a.toString() : String(a))

/**
 * A revert in one line: `TokenTransferFailed(0x…)`, or the raw data, or the
 * node's message.
 *
 * @category encoding
 * @since 0.1.0
 */
export const describeRevert = (revert: Revert): string =>
  revert.name !== undefined
    ? `${revert.name}(${revert.args.map(showArg).join(", ")})`
    : revert.data !== undefined && revert.data !== "0x"
    ? `revert data ${revert.data.slice(0, 74)}${revert.data.length > 74 ? "…" : ""}`
    : `reverted without data (${revert.message})`

/**
 * An outcome in one line.
 *
 * @category encoding
 * @since 0.1.0
 */
export const describeOutcome = (outcome: CallOutcome): string =>
  outcome._tag === "Returned"
    ? `returned ${outcome.data.length > 2 ? `${(outcome.data.length - 2) / 2} bytes` : "no data"}`
    : `reverted: ${describeRevert(outcome.revert)}`

/** The revert data of a viem error (as viem's own getRevertErrorData). */
const revertData = (error: BaseError): Hex | undefined => {
  const inner = error.walk() as { data?: unknown } | undefined
  const data = typeof inner?.data === "object" && inner.data !== null
    ? (inner.data as { data?: unknown }).data
    : inner?.data
  return typeof data === "string" && /^0x(?:[0-9a-fA-F]{2})*$/.test(data) ? data as Hex : undefined
}

/**
 * Decodes revert data against {@link ROUTER_ERRORS}.
 *
 * @category encoding
 * @since 0.1.0
 */
export const decodeRevert = (data: Hex | undefined, message: string): Revert => {
  if (data === undefined || data.length < 10) return { args: [], data, message }
  try {
    const decoded = decodeErrorResult({ abi: ROUTER_ERRORS, data })
    return { name: decoded.errorName, args: decoded.args ?? [], data, message }
  } catch {
    return { args: [], data, message }
  }
}

/**
 * Whether a viem error means the RPC did not answer (as opposed to a revert).
 *
 * @category validation
 * @since 0.1.0
 */
export const isTransportProblem = (error: unknown): boolean =>
  error instanceof BaseError &&
  error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null

/**
 * One line about an error, without the URL (it may carry a provider's key).
 *
 * @category encoding
 * @since 0.1.0
 */
export const describeError = (error: unknown, url?: string): string => {
  const text = error instanceof BaseError
    ? `${error.shortMessage}${error.details !== undefined && error.details !== "" ? ` (${error.details})` : ""}`
    : String((error as Error)?.message ?? error)
  const line = text.split("\n")[0]!
  return url === undefined ? line : line.split(url).join("<rpc>")
}

// ---------------------------------------------------------------------------
// The chains service
// ---------------------------------------------------------------------------

/**
 * One chain of the run, its RPC verified to serve `chainId`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChainAccess {
  readonly chainId: number
  readonly client: PublicClient
  /** `eth_call`; a revert is an outcome, an RPC that does not answer is inconclusive. */
  readonly call: (request: {
    readonly from?: Hex | undefined
    readonly to: Hex
    readonly data: Hex
    readonly value?: bigint | undefined
  }) => Effect.Effect<CallOutcome, Inconclusive>
  /** Any other read of the chain; an error is inconclusive (the RPC did not answer). */
  readonly read: <A>(what: string, f: (client: PublicClient) => Promise<A>) => Effect.Effect<A, Inconclusive>
}

/**
 * The test wallet on one chain.
 *
 * @category models
 * @since 0.1.0
 */
export type Wallet = WalletClient<Transport, Chain, Account>

/**
 * The chains of `--rpc`.
 *
 * @category services
 * @since 0.1.0
 */
export class Chains extends Context.Service<Chains, {
  /** The chain ids of `--rpc`, in the order given. */
  readonly ids: ReadonlyArray<number>
  /**
   * A chain: Skip when no `--rpc` names it; Inconclusive when its RPC does not
   * answer or serves another chain id (verified once per run).
   */
  readonly chain: (chainId: number) => Effect.Effect<ChainAccess, Skip | Inconclusive>
  /** The test wallet (`--wallet-key`) on a chain, for `--execute`. */
  readonly wallet: (chainId: number) => Effect.Effect<Wallet, Skip | Inconclusive>
}>()("@svc/conformance/Chains") {}

const chainOf = (endpoint: RpcEndpoint): Chain =>
  defineChain({
    id: endpoint.chainId,
    name: `chain ${endpoint.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [endpoint.url] } }
  })

/**
 * Chain access over the endpoints of the options.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.gen(function*() {
  const options = yield* Options
  const timeout = options.timeoutSeconds * 1000
  const verified = new Map<number, Effect.Effect<ChainAccess, Inconclusive>>()
  for (const endpoint of options.rpc) {
    const client = createPublicClient({
      chain: chainOf(endpoint),
      transport: http(endpoint.url, { timeout, retryCount: 1 }),
      pollingInterval: 500
    }) as PublicClient
    const read = <A>(what: string, f: (client: PublicClient) => Promise<A>) =>
      Effect.tryPromise({
        try: () => f(client),
        catch: (e) =>
          new Inconclusive({
            reason: `chain ${endpoint.chainId}: ${what}: ${describeError(e, endpoint.url)}`
          })
      })
    const call: ChainAccess["call"] = (request) =>
      Effect.tryPromise({
        try: () =>
          client.call({
            ...(request.from === undefined ? {} : { account: request.from }),
            to: request.to,
            data: request.data,
            ...(request.value === undefined ? {} : { value: request.value })
          }),
        catch: (e) => e
      }).pipe(
        Effect.map((r): CallOutcome => ({ _tag: "Returned", data: r.data ?? "0x" })),
        Effect.catch((e) =>
          isTransportProblem(e) || !(e instanceof BaseError)
            ? Effect.fail(
              new Inconclusive({ reason: `chain ${endpoint.chainId}: eth_call: ${describeError(e, endpoint.url)}` })
            )
            : Effect.succeed<CallOutcome>({
              _tag: "Reverted",
              revert: decodeRevert(revertData(e), describeError(e, endpoint.url))
            })
        )
      )
    const access: ChainAccess = { chainId: endpoint.chainId, client, call, read }
    verified.set(
      endpoint.chainId,
      yield* Effect.cached(
        Effect.flatMap(read("eth_chainId", (c) => c.getChainId()), (served) =>
          served === endpoint.chainId
            ? Effect.succeed(access)
            : Effect.fail(
              new Inconclusive({
                reason:
                  `the --rpc URL given for chain ${endpoint.chainId} serves chain ${served}: nothing on it is judged`
              })
            ))
      )
    )
  }
  const chain = (chainId: number): Effect.Effect<ChainAccess, Skip | Inconclusive> =>
    verified.get(chainId) ?? Effect.fail(new Skip({ reason: `no --rpc for chain ${chainId}` }))
  const wallet = (chainId: number): Effect.Effect<Wallet, Skip | Inconclusive> =>
    Effect.map(chain(chainId), () => {
      const endpoint = options.rpc.find((e) => e.chainId === chainId)!
      return createWalletClient({
        account: privateKeyToAccount(options.walletKey),
        chain: chainOf(endpoint),
        transport: http(endpoint.url, { timeout, retryCount: 0 }),
        pollingInterval: 500
      })
    })
  return Chains.of({ ids: options.rpc.map((e) => e.chainId), chain, wallet })
})

/**
 * The chains layer (over the run's options).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Chains, never, Options> = Layer.effect(Chains, make)
