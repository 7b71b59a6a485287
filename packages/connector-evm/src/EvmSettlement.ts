/**
 * Settlement on EVM chains with viem: the reader of a chain (head, blocks, the
 * router's `SourceFillV6` logs, receipts) and the payer that calls the vault's
 * `payout(fillId, token, recipient, amount)` with the payout key.
 *
 * Nonces: the payer chooses each nonce itself, the larger of the account's
 * pending transaction count and one past the last nonce it signed. A nonce is
 * only used once a payout is signed (a failed gas estimate consumes none), and
 * the core's payout loop signs one payout at a time, so nonces have no gaps. After
 * a restart the pending count is the node's truth; a signed but unsent payout is
 * resent by the core from its intent, or, when its nonce was taken meanwhile
 * (`NONCE_USED`), signed again: the vault pays a fillId at most once.
 *
 * @since 0.1.0
 */
import type { Chain } from "@svc/core"
import { Connector } from "@svc/core"
import { Effect, Redacted } from "effect"
import {
  type Account,
  BaseError,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseAbi,
  type PublicClient,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError
} from "viem"
import { privateKeyToAccount } from "viem/accounts"

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

const SOURCE_FILL = SETTLEMENT_ABI[0]
const PAYOUT_EVENT = SETTLEMENT_ABI[1]

/**
 * Settings of EVM settlement.
 *
 * @category models
 * @since 0.1.0
 */
export interface EvmSettlementConfig {
  /** JSON-RPC URLs by chain id; a network without one is not settled by svc. */
  readonly rpcUrls: Readonly<Record<string, string | Redacted.Redacted<string>>>
  /** The vaults' operator key (0x + 64 hex). Without it, fills are watched but nothing is paid out. */
  readonly payoutKey?: Redacted.Redacted<string> | undefined
  /** Longest wait for one RPC call, milliseconds. Default 10000. */
  readonly rpcTimeoutMillis?: number | undefined
  /** Blocks searched below the head for a payout event. Default 100000. */
  readonly payoutLookbackBlocks?: number | undefined
}

const unavailable = (what: string, e: unknown) =>
  new Connector.ConnectorUnavailable({
    code: "RPC_UNAVAILABLE",
    message: `${what}: ${e instanceof BaseError ? e.shortMessage : e instanceof Error ? e.message : String(e)}`
  })

const rpc = <A>(what: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: (e) => unavailable(what, e) })

const lower = (h: string) => h.toLowerCase()

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
  return {
    head: rpc("eth_getBlockByNumber", async () => {
      const b = await client.getBlock({ blockTag: "latest" })
      return { number: b.number, hash: lower(b.hash), timestamp: Number(b.timestamp) }
    }),
    block,
    sourceFills: (from, to) =>
      router === null ? Effect.succeed([]) : rpc("eth_getLogs", async () => {
        const logs = await client.getLogs({ address: router, event: SOURCE_FILL, fromBlock: from, toBlock: to })
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
  readonly url: string
  readonly chainId: number
  readonly vault: Hex
  readonly account: Account
  readonly timeoutMillis: number
  readonly lookbackBlocks: number
}): Chain.ChainPayer => {
  const { account, client, vault } = options
  const chain = defineChain({
    id: options.chainId,
    name: `chain ${options.chainId}`,
    nativeCurrency: { name: "native", symbol: "NATIVE", decimals: 18 },
    rpcUrls: { default: { http: [options.url] } }
  })
  const wallet = createWalletClient({
    account,
    chain,
    transport: http(options.url, { timeout: options.timeoutMillis, retryCount: 0 })
  })
  let nextNonce = 0
  const paidOut = (fillId: string) =>
    rpc(
      "paidOut",
      () => client.readContract({ address: vault, abi: SETTLEMENT_ABI, functionName: "paidOut", args: [fillId as Hex] })
    )
  return {
    sender: lower(account.address),
    sign: (order) =>
      Effect.gen(function*() {
        if (yield* paidOut(order.fillId)) return { _tag: "AlreadyPaid" as const }
        const pending = yield* rpc("eth_getTransactionCount", () =>
          client.getTransactionCount({ address: account.address, blockTag: "pending" }))
        const nonce = Math.max(pending, nextNonce)
        const data = encodeFunctionData({
          abi: SETTLEMENT_ABI,
          functionName: "payout",
          args: [order.fillId as Hex, order.asset as Hex, order.recipient as Hex, order.amountRaw]
        })
        const request = yield* rpc("prepare payout", () =>
          wallet.prepareTransactionRequest({ account, chain, to: vault, data, nonce }))
        const raw = yield* rpc("sign payout", () =>
          wallet.signTransaction(request as never))
        nextNonce = nonce + 1
        return {
          _tag: "Signed" as const,
          payout: { txHash: keccak256(raw), rawTransaction: raw, nonce, sender: lower(account.address) }
        }
      }),
    send: (payout) =>
      Effect.tryPromise({
        try: () => client.sendRawTransaction({ serializedTransaction: payout.rawTransaction as Hex }),
        catch: (e) => e
      }).pipe(
        Effect.asVoid,
        Effect.catch((e): Effect.Effect<void, Connector.ConnectorError | Connector.ConnectorUnavailable> => {
          const text = `${e instanceof BaseError ? e.details ?? "" : ""} ${e instanceof Error ? e.message : String(e)}`
            .toLowerCase()
          if (text.includes("already known") || text.includes("already imported")) return Effect.void
          if (text.includes("nonce too low") || text.includes("nonce has already been used")) {
            return Effect.fail(
              new Connector.ConnectorError({ code: "NONCE_USED", message: "the payout's nonce was used" })
            )
          }
          return Effect.fail(unavailable("eth_sendRawTransaction", e))
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
        if (log === undefined) {
          return yield* Effect.fail(
            new Connector.ConnectorUnavailable({
              code: "PAYOUT_EVENT_NOT_FOUND",
              message: `the vault paid ${fillId} out, but no payout event is within ${lookback} blocks`
            })
          )
        }
        return { txHash: lower(log.transactionHash!) }
      }),
    balance: (asset) =>
      /^0x0{40}$/i.test(asset)
        ? rpc("eth_getBalance", () => client.getBalance({ address: vault }))
        : rpc("balanceOf", () =>
          client.readContract({ address: asset as Hex, abi: SETTLEMENT_ABI, functionName: "balanceOf", args: [vault] }))
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
  const timeout = Math.max(1, config.rpcTimeoutMillis ?? 10_000)
  const key = config.payoutKey === undefined ? undefined : Redacted.value(config.payoutKey)
  if (key !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(key)) {
    throw new Error("the payout key must be 0x followed by 64 hex digits")
  }
  const account = key === undefined ? undefined : privateKeyToAccount(key as Hex)
  return {
    network: (target) =>
      Effect.gen(function*() {
        const configured = config.rpcUrls[target.native]
        if (configured === undefined) return null
        const url = Redacted.isRedacted(configured) ? Redacted.value(configured) : configured
        const client = createPublicClient({ transport: http(url, { timeout, retryCount: 0 }) }) as PublicClient
        const read = reader(client, target.router)
        if (account === undefined || target.vaultAddress === null) return { reader: read, payer: null }
        const operator = yield* rpc("operator", () =>
          client.readContract({ address: target.vaultAddress!, abi: SETTLEMENT_ABI, functionName: "operator" })).pipe(
            Effect.option
          )
        if (operator._tag === "Some" && lower(operator.value) !== lower(account.address)) {
          return yield* new Connector.ConnectorError({
            code: "PAYOUT_KEY_NOT_OPERATOR",
            message:
              `the payout key's address ${account.address} is not the operator of the vault ${target.vaultAddress} on ${target.key}`
          })
        }
        return {
          reader: read,
          payer: payer({
            client,
            url,
            chainId: Number(target.native),
            vault: target.vaultAddress,
            account,
            timeoutMillis: timeout,
            lookbackBlocks: config.payoutLookbackBlocks ?? 100_000
          })
        }
      })
  }
}
