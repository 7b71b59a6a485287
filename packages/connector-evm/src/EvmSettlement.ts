/**
 * Settlement on EVM chains with viem: the reader of a chain (head, the
 * `finalized` block, blocks, the router's `SourceFillV6` logs, receipts) and the
 * payer primitives around the vault's `payout(fillId, token, recipient, amount)`:
 * nonces at the latest block and with pending transactions, the fee market from
 * `eth_feeHistory`, a simulation against the latest block (never the pending
 * state), signing with the nonce, gas and EIP-1559 fees the core chooses,
 * sending with its failures classified (`NONCE_USED`, `UNDERPRICED`, `NO_GAS`),
 * `paidOut`, the payout event, balances.
 *
 * The policy (which nonce, which fees, when to replace, retry or wait) is the
 * core's `ChainSettlement`: this module keeps no state.
 *
 * @since 0.1.0
 */
import type { Chain } from "@svc/core"
import { Connector } from "@svc/core"
import { Effect, Redacted } from "effect"
import {
  type Account,
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  type Hex,
  keccak256,
  parseAbi,
  type PublicClient,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import type { RpcUrls } from "./EvmConfig.ts"
import { clientOf, endpointsOf } from "./internal/client.ts"
import type { Endpoints } from "./internal/endpoints.ts"

/**
 * The ABI fragments settlement uses: the router's source fill event and the
 * vault's payout function, event and views (the reference contracts of
 * `@svc/contracts`; a test checks them against the compiled artifacts).
 *
 * @category constants
 * @since 0.1.0
 */
export const SETTLEMENT_ABI = parseAbi([
  "event SourceFillV6(bytes32 indexed fillId, bytes32 indexed routeId, bytes32 indexed quoteId, address payer, address recipient, address sourceAsset, address destinationAsset, uint256 destinationChainId, uint128 amountInRaw, uint128 amountOutRaw, uint32 sourceFinalityBlocks, uint64 settlementDeadline, bytes32 permitNonce, bytes32 executionGeneration)",
  "event PayoutV6(bytes32 indexed fillId, address indexed recipient, address indexed token, uint128 amount)",
  "function payout(bytes32 fillId, address token, address recipient, uint128 amount)",
  "function paidOut(bytes32 fillId) view returns (bool)",
  "function operator() view returns (address)",
  "function balanceOf(address account) view returns (uint256)"
])

/**
 * The custom errors of the reference vault and router, so that a revert is
 * logged by name and arguments (`TokenTransferFailed(0x…)`), never as a raw
 * selector (a test checks them against the compiled artifacts).
 *
 * @category constants
 * @since 0.1.0
 */
export const CONTRACT_ERRORS_ABI = parseAbi([
  "error NotOperator(address caller)",
  "error PayoutAlreadyPaid(bytes32 fillId)",
  "error ZeroAmount()",
  "error ZeroAddress()",
  "error TokenTransferFailed(address token)",
  "error NativeTransferFailed(address to)",
  "error NotOwner(address caller)",
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
  "error NativeValueMismatch(uint256 expected, uint256 received)"
])

const SOURCE_FILL = SETTLEMENT_ABI[0]
const PAYOUT_EVENT = SETTLEMENT_ABI[1]
const PAYOUT_WITH_ERRORS = [...SETTLEMENT_ABI, ...CONTRACT_ERRORS_ABI] as const

/**
 * A revert as a line: the contract's custom error by name with its arguments
 * when it is one of {@link CONTRACT_ERRORS_ABI}, else viem's short message.
 *
 * @category errors
 * @since 0.1.0
 */
export const revertReason = (error: unknown): string => {
  if (error instanceof BaseError) {
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError)
    if (reverted instanceof ContractFunctionRevertedError) {
      if (reverted.data !== undefined) {
        const args = (reverted.data.args ?? []).map((a) => typeof a === "bigint" ? a.toString() : String(a))
        return `${reverted.data.errorName}(${args.join(", ")})`
      }
      if (reverted.reason !== undefined) return reverted.reason
      if (reverted.signature !== undefined) return `unknown custom error ${reverted.signature}`
    }
    return error.shortMessage
  }
  return error instanceof Error ? error.message : String(error)
}

/**
 * Settings of EVM settlement.
 *
 * @category models
 * @since 0.1.0
 */
export interface EvmSettlementConfig {
  /** JSON-RPC URLs by chain id, one or several each (failed over); a network without one is not settled by svc. */
  readonly rpcUrls: RpcUrls
  /** The vaults' operator key (0x + 64 hex). Without it, fills are watched but nothing is paid out. */
  readonly payoutKey?: Redacted.Redacted<string> | undefined
  /** Longest wait for one RPC call, milliseconds. Default 10000. */
  readonly rpcTimeoutMillis?: number | undefined
  /**
   * Blocks searched below the head for a payout event. Default 100000. A fillId
   * the vault paid out before that is reported paid by an unknown transaction
   * (the settlement runner then records it PAID without one).
   */
  readonly payoutLookbackBlocks?: number | undefined
  /** The endpoints of each chain, shared with the connector's other parts (built from `rpcUrls` when absent). */
  readonly endpoints?: ReadonlyMap<string, Endpoints> | undefined
}

const unavailable = (what: string, e: unknown) =>
  new Connector.ConnectorUnavailable({
    code: "RPC_UNAVAILABLE",
    message: `${what}: ${e instanceof BaseError ? e.shortMessage : e instanceof Error ? e.message : String(e)}`
  })

const rpc = <A>(what: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: (e) => unavailable(what, e) })

const lower = (h: string) => h.toLowerCase()

const blockOf = (b: { readonly number: bigint | null; readonly hash: Hex | null; readonly timestamp: bigint }) => ({
  number: b.number ?? 0n,
  hash: lower(b.hash ?? "0x"),
  timestamp: Number(b.timestamp)
})

/** What a node said, for matching (never shown). */
const errorText = (e: unknown) =>
  e instanceof BaseError ? `${e.shortMessage} ${e.details ?? ""}` : e instanceof Error ? e.message : String(e)

/** A node's answer meaning "no such block tag here" (not a timeout or a refused connection). */
const TAG_UNSUPPORTED = /unknown block|invalid block|block tag|not supported|unsupported|invalid argument/i

/** A provider refusing an `eth_getLogs` range as too large (or its answer as too long). */
const RANGE_REFUSED =
  /block range|range is too (large|wide)|too many (blocks|results|logs)|more than \d+ (results|logs)|exceed(s|ed)? (the )?(max|maximum|limit)|response size|limited to/i

/** A node's answer meaning "no such method here". */
const METHOD_UNSUPPORTED = /method .*(not found|not supported|does not exist|not available)|unsupported method/i

/**
 * The reader of one chain.
 *
 * @category constructors
 * @since 0.1.0
 */
export const reader = (client: PublicClient, router: Hex | null): Chain.ChainReader => {
  const block = (n: bigint) =>
    rpc("eth_getBlockByNumber", async () => {
      try {
        const b = await client.getBlock({ blockNumber: n })
        return { number: b.number, hash: lower(b.hash), timestamp: Number(b.timestamp) }
      } catch (e) {
        if (e instanceof BaseError && e.name === "BlockNotFoundError") return null
        throw e
      }
    })
  let tagSupported = true
  // the largest range a provider answered; halved each time one refuses a range as too large
  let span: bigint | undefined
  const logsIn = async (from: bigint, to: bigint): Promise<Awaited<ReturnType<typeof getFills>>> => {
    if (span !== undefined && to - from + 1n > span) {
      const middle = from + span - 1n
      return [...await logsIn(from, middle), ...await logsIn(middle + 1n, to)]
    }
    try {
      return await getFills(from, to)
    } catch (e) {
      if (from === to || !RANGE_REFUSED.test(errorText(e))) throw e
      span = (to - from + 1n) / 2n
      return logsIn(from, to)
    }
  }
  const getFills = (from: bigint, to: bigint) =>
    client.getLogs({ address: router!, event: SOURCE_FILL, fromBlock: from, toBlock: to })
  return {
    head: rpc("eth_getBlockByNumber", async () => blockOf(await client.getBlock({ blockTag: "latest" }))),
    finalized: Effect.suspend(() =>
      tagSupported
        ? rpc("eth_getBlockByNumber(finalized)", async () => {
          try {
            return blockOf(await client.getBlock({ blockTag: "finalized" }))
          } catch (e) {
            // a node without the tag answers it as an invalid parameter: count confirmations instead
            if (TAG_UNSUPPORTED.test(errorText(e))) {
              tagSupported = false
              return null
            }
            throw e
          }
        })
        : Effect.succeed(null)
    ),
    block,
    sourceFills: (from, to) =>
      router === null ? Effect.succeed([]) : rpc("eth_getLogs", async () => {
        const logs = await logsIn(from, to)
        return logs
          .filter((l) => !l.removed && l.blockHash !== null && l.transactionHash !== null)
          .map((l): Chain.SourceFill => ({
            fillId: lower(l.args.fillId!),
            routeId: lower(l.args.routeId!),
            quoteId: lower(l.args.quoteId!),
            router: lower(l.address),
            payer: lower(l.args.payer!),
            recipient: lower(l.args.recipient!),
            sourceAsset: lower(l.args.sourceAsset!),
            destinationAsset: lower(l.args.destinationAsset!),
            destinationChainId: l.args.destinationChainId!,
            amountInRaw: l.args.amountInRaw!,
            amountOutRaw: l.args.amountOutRaw!,
            txHash: lower(l.transactionHash!),
            blockNumber: l.blockNumber!,
            blockHash: lower(l.blockHash!)
          }))
      }),
    inclusion: (txHash) =>
      rpc("eth_getTransactionReceipt", async (): Promise<Chain.Inclusion> => {
        try {
          const r = await client.getTransactionReceipt({ hash: txHash as Hex })
          return {
            _tag: "Included",
            blockNumber: r.blockNumber,
            blockHash: lower(r.blockHash),
            success: r.status === "success"
          }
        } catch (e) {
          if (!(e instanceof TransactionReceiptNotFoundError)) throw e
        }
        try {
          // known to the node, no receipt yet
          await client.getTransaction({ hash: txHash as Hex })
          return { _tag: "Pending" }
        } catch (e) {
          if (e instanceof TransactionNotFoundError) return { _tag: "Missing" }
          throw e
        }
      })
  }
}

/**
 * The payer of one chain: the vault's operator key signing `payout` calls.
 *
 * @category constructors
 * @since 0.1.0
 */
export const payer = (options: {
  readonly client: PublicClient
  readonly chainId: number
  readonly vault: Hex
  readonly account: Account
  readonly lookbackBlocks: number
}): Chain.ChainPayer => {
  const { account, client, vault } = options
  const sender = lower(account.address)
  const dataOf = (order: Chain.PayoutOrder) =>
    encodeFunctionData({
      abi: SETTLEMENT_ABI,
      functionName: "payout",
      args: [order.fillId as Hex, order.asset as Hex, order.recipient as Hex, order.amountRaw]
    })
  const paidOut = (fillId: string) =>
    rpc(
      "paidOut",
      () =>
        client.readContract({
          address: vault,
          abi: SETTLEMENT_ABI,
          functionName: "paidOut",
          args: [fillId as Hex],
          blockTag: "latest"
        })
    )
  return {
    sender,
    nonces: Effect.map(
      Effect.all([
        rpc(
          "eth_getTransactionCount(latest)",
          () => client.getTransactionCount({ address: account.address, blockTag: "latest" })
        ),
        rpc(
          "eth_getTransactionCount(pending)",
          () => client.getTransactionCount({ address: account.address, blockTag: "pending" })
        )
      ], { concurrency: 2 }),
      ([latest, pending]) => ({ latest, pending: Math.max(latest, pending) })
    ),
    fees: rpc("eth_feeHistory", async (): Promise<Chain.FeeMarket> => {
      try {
        const history = await client.getFeeHistory({ blockCount: 5, blockTag: "latest", rewardPercentiles: [50] })
        const baseFeePerGas = history.baseFeePerGas.at(-1) ?? 0n
        const tips = (history.reward ?? []).map((r) => r[0] ?? 0n).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        return { baseFeePerGas, priorityFeePerGas: tips.length === 0 ? 0n : tips[Math.floor(tips.length / 2)]! }
      } catch (e) {
        // a chain without EIP-1559 fee history: its gas price is the whole fee
        if (!METHOD_UNSUPPORTED.test(errorText(e))) throw e
        return { baseFeePerGas: await client.getGasPrice(), priorityFeePerGas: 0n }
      }
    }),
    check: (order) =>
      Effect.tryPromise({
        try: async (): Promise<Chain.PayoutCheck> => {
          await client.simulateContract({
            address: vault,
            abi: PAYOUT_WITH_ERRORS,
            functionName: "payout",
            args: [order.fillId as Hex, order.asset as Hex, order.recipient as Hex, order.amountRaw],
            account: account.address,
            blockTag: "latest"
          })
          const gas = await client.estimateGas({
            account: account.address,
            to: vault,
            data: dataOf(order),
            blockTag: "latest"
          })
          return { _tag: "Ok", gas }
        },
        catch: (e) => e
      }).pipe(
        Effect.catch((e): Effect.Effect<Chain.PayoutCheck, Connector.ConnectorUnavailable> => {
          const reverted = e instanceof BaseError && e.walk((x) => x instanceof ContractFunctionRevertedError)
          if (!(reverted instanceof ContractFunctionRevertedError)) {
            return Effect.fail(unavailable("simulate payout", e))
          }
          return Effect.succeed(
            reverted.data?.errorName === "PayoutAlreadyPaid"
              ? { _tag: "AlreadyPaid" }
              : { _tag: "Reverts", reason: revertReason(e) }
          )
        })
      ),
    paidOut,
    sign: (order, tx) =>
      Effect.tryPromise({
        try: async () => {
          const raw = await account.signTransaction!({
            type: "eip1559",
            chainId: options.chainId,
            nonce: tx.nonce,
            to: vault,
            data: dataOf(order),
            value: 0n,
            gas: tx.gas,
            maxFeePerGas: tx.maxFeePerGas,
            maxPriorityFeePerGas: tx.maxPriorityFeePerGas
          })
          return { txHash: lower(keccak256(raw)), rawTransaction: raw, nonce: tx.nonce, sender }
        },
        catch: (e) =>
          new Connector.ConnectorError({
            code: "SIGN_FAILED",
            message: `signing the payout failed: ${e instanceof Error ? e.message : String(e)}`
          })
      }),
    send: (signed) =>
      Effect.tryPromise({
        try: () => client.sendRawTransaction({ serializedTransaction: signed.rawTransaction as Hex }),
        catch: (e) => e
      }).pipe(
        Effect.asVoid,
        Effect.catch((e): Effect.Effect<void, Connector.ConnectorError | Connector.ConnectorUnavailable> => {
          const failure = classifySendError(e)
          return failure === "KNOWN"
            ? Effect.void
            : failure === undefined
            ? Effect.fail(unavailable("eth_sendRawTransaction", e))
            : Effect.fail(new Connector.ConnectorError({ code: failure, message: sendMessage(failure, e) }))
        })
      ),
    findPayout: (fillId) =>
      Effect.gen(function*() {
        if (!(yield* paidOut(fillId))) return null
        const head = yield* rpc("eth_blockNumber", () => client.getBlockNumber({ cacheTime: 0 }))
        const lookback = BigInt(options.lookbackBlocks)
        const logs = yield* rpc("eth_getLogs", () =>
          client.getLogs({
            address: vault,
            event: PAYOUT_EVENT,
            args: { fillId: fillId as Hex },
            fromBlock: head > lookback ? head - lookback : 0n,
            toBlock: head
          }))
        const log = logs.find((l) => !l.removed && l.transactionHash !== null)
        // paid before the look-back: long final, by a transaction not worth searching for
        return { txHash: log === undefined ? null : lower(log.transactionHash!) }
      }),
    balance: (asset) =>
      /^0x0{40}$/i.test(asset)
        ? rpc("eth_getBalance", () => client.getBalance({ address: vault, blockTag: "latest" }))
        : rpc("balanceOf", () =>
          client.readContract({
            address: asset as Hex,
            abi: SETTLEMENT_ABI,
            functionName: "balanceOf",
            args: [vault],
            blockTag: "latest"
          })),
    gasBalance: rpc("eth_getBalance", () => client.getBalance({ address: account.address, blockTag: "latest" }))
  }
}

/**
 * What a node's refusal of a raw transaction means: `KNOWN` (it has it: a
 * success), `NONCE_USED`, `UNDERPRICED` (a replacement that does not pay
 * enough more, or a fee cap below the base fee), `NO_GAS` (the sender cannot
 * pay for the gas), or undefined (the node could not be asked, or said
 * something else).
 *
 * @category errors
 * @since 0.1.0
 */
export const classifySendError = (e: unknown): "KNOWN" | "NONCE_USED" | "UNDERPRICED" | "NO_GAS" | undefined => {
  const text = `${e instanceof BaseError ? e.details ?? "" : ""} ${e instanceof Error ? e.message : String(e)}`
    .toLowerCase()
  if (text.includes("already known") || text.includes("already imported")) return "KNOWN"
  if (text.includes("nonce too low") || text.includes("nonce has already been used")) return "NONCE_USED"
  if (
    text.includes("underpriced") || text.includes("less than block base fee") ||
    text.includes("fee cap less than") || text.includes("max fee per gas less than")
  ) return "UNDERPRICED"
  if (text.includes("insufficient funds")) return "NO_GAS"
  return undefined
}

const sendMessage = (code: "NONCE_USED" | "UNDERPRICED" | "NO_GAS", e: unknown) => {
  const detail = e instanceof BaseError ? e.details ?? e.shortMessage : e instanceof Error ? e.message : String(e)
  switch (code) {
    case "NONCE_USED":
      return `the payout's nonce was used (${detail})`
    case "UNDERPRICED":
      return `the payout's fees are too low to be accepted (${detail})`
    case "NO_GAS":
      return `the payout key cannot pay for gas (${detail})`
  }
}

/**
 * EVM settlement for a configuration: each network with an RPC URL is read; with
 * a payout key that is the vault's operator there, it is paid out on.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (config: EvmSettlementConfig): Chain.SettlementSupport => {
  const sets = config.endpoints ?? endpointsOf(config.rpcUrls, config.rpcTimeoutMillis)
  const key = config.payoutKey === undefined ? undefined : Redacted.value(config.payoutKey)
  if (key !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(key)) {
    throw new Error("the payout key must be 0x followed by 64 hex digits")
  }
  const account = key === undefined ? undefined : privateKeyToAccount(key as Hex)
  return {
    network: (target) =>
      Effect.gen(function*() {
        const set = sets.get(target.native)
        if (set === undefined) return null
        const client = clientOf(set)
        const read = reader(client, target.router)
        const endpointStatus = () =>
          set.status().map((e) => ({
            label: String(e.index),
            host: e.host,
            up: e.up,
            primary: e.primary,
            requests: e.requests,
            failures: e.failures
          }))
        if (account === undefined || target.vaultAddress === null) {
          return { reader: read, payer: null, endpoints: endpointStatus }
        }
        const operator = yield* rpc("operator", () =>
          client.readContract({ address: target.vaultAddress!, abi: SETTLEMENT_ABI, functionName: "operator" })).pipe(
            Effect.option
          )
        // a key that is not (yet) the operator is not refused: fills are still watched, and each payout
        // reverts in its simulation (NotOperator) and waits, named, until the vault's owner sets the operator
        if (operator._tag === "Some" && lower(operator.value) !== lower(account.address)) {
          yield* Effect.logError(
            `the payout key's address ${account.address} is not the operator of the vault ${target.vaultAddress} on ${target.key} (${operator.value} is): payouts there wait with PAYOUT_WOULD_REVERT until it is`
          )
        }
        return {
          reader: read,
          endpoints: endpointStatus,
          payer: payer({
            client,
            chainId: Number(target.native),
            vault: target.vaultAddress,
            account,
            lookbackBlocks: config.payoutLookbackBlocks ?? 100_000
          })
        }
      })
  }
}
