/**
 * A deterministic in-memory chain behind the connector's settlement interfaces
 * (`Chain.ChainReader` and `Chain.ChainPayer`): blocks with hashes and
 * timestamps, a `finalized` block, a mempool with nonces, fees and the
 * replacement rule, a base fee, native balances, and models of the reference
 * router (a fillId fills once, inside its validity window) and vault (pays a
 * fillId at most once, reverts when short of funds, only for its operator).
 *
 * It is the reference of settlement for tests, the simulation and the
 * settlement suite: the same code that runs against anvil runs against it.
 * Nothing in it is random or reads the clock: a test (or a seeded simulation)
 * drives it — `mine`, `submitFill`, `reorg`, `setBaseFee`, `dropTransaction`,
 * `withdraw`, `deposit`, `rpc` faults — and every run is the same.
 *
 * ```ts
 * const model = ChainModel.make({ chainId: 56, vault: VAULT, router: ROUTER, operator: PAYOUT })
 * model.deposit(USDT, 10n ** 24n)
 * model.mine()
 * // model.chain is a Chain.NetworkChain: give it to a connector's settlement
 * ```
 *
 * @since 0.1.0
 */
import { keccakUtf8 } from "@svc/protocol/Bytes"
import { Effect } from "effect"
import type * as Chain from "../Chain.ts"
import { ConnectorError, ConnectorUnavailable } from "../Connector.ts"

/**
 * Options of {@link make}.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChainModelOptions {
  readonly chainId: number
  /** The router whose fills the chain emits, lowercase; null: no router. */
  readonly router?: string | null | undefined
  /** The solver's vault, lowercase. */
  readonly vault: string
  /** The vault's operator (the payout key's address), lowercase; null: no payer. */
  readonly operator?: string | null | undefined
  /** `finalized` trails the head by this many blocks; null: the chain has no finalized tag. Default 2. */
  readonly finalizedLag?: number | null | undefined
  /** Timestamp of block 0 and seconds per block. Defaults 1_700_000_000 and 1. */
  readonly genesisTimestamp?: number | undefined
  readonly blockTime?: number | undefined
  /** Base fee of the first blocks, wei. Default 1 gwei. */
  readonly baseFee?: bigint | undefined
  /** The priority fee `fees` reports. Default 1 gwei. */
  readonly priorityFee?: bigint | undefined
  /** Native balance of the operator at genesis. Default 10^21 (1000 coins). */
  readonly operatorBalance?: bigint | undefined
  /** A replacement must raise both fees by at least this, basis points (geth: 1000). Default 1000. */
  readonly replacementBumpBps?: number | undefined
  /** Whether a pooled transaction whose fee cap fell below the base fee is dropped (anvil) or kept (geth). Default false. */
  readonly evictUnderpriced?: boolean | undefined
  /** Most payout transactions per block. Default unlimited. */
  readonly maxPayoutsPerBlock?: number | undefined
}

/**
 * A fill a payer sends to the router: the event's fields and the permit's window.
 *
 * @category models
 * @since 0.1.0
 */
export interface FillRequest extends Omit<Chain.SourceFill, "txHash" | "blockNumber" | "blockHash" | "router"> {
  readonly validAfter: number
  readonly validUntil: number
  /** The router called (default the model's router). */
  readonly router?: string | undefined
}

/**
 * What the RPC of the model does: answer, refuse (fail at once), or hang (never answer).
 *
 * @category models
 * @since 0.1.0
 */
export type RpcMode = "ok" | "refuse" | "hang"

/** A transaction in the model. */
type Tx =
  | {
    readonly kind: "payout"
    readonly hash: string
    readonly sender: string
    readonly nonce: number
    readonly maxFeePerGas: bigint
    readonly maxPriorityFeePerGas: bigint
    readonly gas: bigint
    readonly order: Chain.PayoutOrder
    readonly raw: string
  }
  | { readonly kind: "fill"; readonly hash: string; readonly fill: FillRequest }
  | { readonly kind: "vault"; readonly hash: string; readonly asset: string; readonly delta: bigint }
  | { readonly kind: "fund"; readonly hash: string; readonly account: string; readonly amount: bigint }

interface Receipt {
  readonly success: boolean
  readonly sourceFill?: Chain.SourceFill | undefined
  readonly payout?: {
    readonly fillId: string
    readonly recipient: string
    readonly asset: string
    readonly amount: bigint
  } | undefined
  readonly reason?: string | undefined
}

interface ModelBlock extends Chain.Block {
  readonly baseFee: bigint
  readonly txs: ReadonlyArray<Tx>
  readonly receipts: ReadonlyArray<Receipt>
}

/**
 * A running chain model.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChainModel {
  readonly chainId: number
  /** The vault's address (lowercase). */
  readonly vault: string
  /** The connector's view of this chain. */
  readonly chain: Chain.NetworkChain
  /** What its RPC does now (a fault of the simulation). */
  rpc: RpcMode
  /** The head block. */
  readonly head: () => Chain.Block
  /** The block at a height of the canonical chain. */
  readonly blockAt: (n: bigint) => Chain.Block | undefined
  /** Mines `n` blocks (default 1), including what the pool allows. */
  readonly mine: (n?: number) => void
  /** Sends a fill to the router (mined with the next block); returns its hash. */
  readonly submitFill: (fill: FillRequest) => string
  /** Moves funds into (positive) or out of (negative) the vault with the next block. */
  readonly deposit: (asset: string, amount: bigint) => string
  readonly withdraw: (asset: string, amount: bigint) => string
  /** Gives an account native coin with the next block. */
  readonly fund: (account: string, amount: bigint) => string
  /**
   * Replaces the newest `depth` blocks with as many new ones (other hashes).
   * Their transactions are dropped (anvil's `anvil_reorg`), or put back in the
   * pool with `{ keep: true }` (geth), or only those `keep` accepts.
   */
  readonly reorg: (depth: number, options?: { readonly keep?: boolean | ((hash: string) => boolean) }) => void
  /** The base fee of the next blocks. */
  readonly setBaseFee: (fee: bigint) => void
  /** Drops a pooled transaction (and the sender's later ones, as anvil does, unless `only`). */
  readonly dropTransaction: (hash: string, options?: { readonly only?: boolean }) => void
  /** Sends a transaction of another party from the operator's key at its next nonce (a nonce taken elsewhere). */
  readonly useNonce: () => void
  /** Inspection. */
  readonly vaultBalance: (asset: string) => bigint
  readonly paidOut: (fillId: string) => boolean
  readonly nonceOf: (account: string) => number
  readonly nativeBalance: (account: string) => bigint
  readonly pool: () => ReadonlyArray<{ readonly hash: string; readonly nonce: number; readonly maxFeePerGas: bigint }>
  /** The PayoutV6 events of a fillId in the canonical chain. */
  readonly payoutsOf: (fillId: string) => ReadonlyArray<{
    readonly txHash: string
    readonly blockNumber: bigint
    readonly recipient: string
    readonly asset: string
    readonly amount: bigint
  }>
  /** Every payout transaction sent to the node (accepted into the pool), by hash. */
  readonly sent: () => ReadonlyArray<string>
}

const lower = (s: string) => s.toLowerCase()
const bump = (value: bigint, bps: number) => value + (value * BigInt(bps)) / 10_000n

/**
 * A chain model.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: ChainModelOptions): ChainModel => {
  const vault = lower(options.vault)
  const router = options.router === undefined || options.router === null ? null : lower(options.router)
  const operator = options.operator === undefined || options.operator === null ? null : lower(options.operator)
  const lag = options.finalizedLag === undefined ? 2 : options.finalizedLag
  const genesis = options.genesisTimestamp ?? 1_700_000_000
  const blockTime = options.blockTime ?? 1
  const priorityFee = options.priorityFee ?? 1_000_000_000n
  const bumpBps = options.replacementBumpBps ?? 1000
  const maxPayouts = options.maxPayoutsPerBlock ?? Number.POSITIVE_INFINITY
  let nextBaseFee = options.baseFee ?? 1_000_000_000n
  let salt = 0
  let counter = 0

  const hashOf = (text: string) => keccakUtf8(`model:${options.chainId}:${text}`)
  const genesisBlock: ModelBlock = {
    number: 0n,
    hash: hashOf("block:0"),
    timestamp: genesis,
    baseFee: nextBaseFee,
    txs: [],
    receipts: []
  }
  const blocks: Array<ModelBlock> = [genesisBlock]
  const pool = new Map<string, Tx>()
  const accepted: Array<string> = []

  // ------------------------------------------------------------ state by replay
  interface State {
    readonly nonces: Map<string, number>
    readonly native: Map<string, bigint>
    readonly vaultBalances: Map<string, bigint>
    readonly paid: Set<string>
    readonly fillsUsed: Set<string>
  }
  const initial = (): State => ({
    nonces: new Map(),
    native: new Map(operator === null ? [] : [[operator, options.operatorBalance ?? 10n ** 21n]]),
    vaultBalances: new Map(),
    paid: new Set(),
    fillsUsed: new Set()
  })
  let state = initial()

  const gasPrice = (tx: Extract<Tx, { kind: "payout" }>, baseFee: bigint) => {
    const tip = tx.maxFeePerGas - baseFee < tx.maxPriorityFeePerGas
      ? tx.maxFeePerGas - baseFee
      : tx.maxPriorityFeePerGas
    return baseFee + (tip > 0n ? tip : 0n)
  }

  /** Applies a transaction to the state; its receipt. */
  const execute = (
    s: State,
    tx: Tx,
    block: { number: bigint; hash: string; timestamp: number; baseFee: bigint }
  ): Receipt => {
    switch (tx.kind) {
      case "fund":
        s.native.set(tx.account, (s.native.get(tx.account) ?? 0n) + tx.amount)
        return { success: true }
      case "vault": {
        const balance = s.vaultBalances.get(tx.asset) ?? 0n
        if (balance + tx.delta < 0n) return { success: false, reason: "InsufficientBalance" }
        s.vaultBalances.set(tx.asset, balance + tx.delta)
        return { success: true }
      }
      case "fill": {
        const f = tx.fill
        const to = lower(f.router ?? router ?? "")
        if (router === null || to !== router) return { success: false, reason: "WrongSourceRouter" }
        if (block.timestamp < f.validAfter) return { success: false, reason: "PermitNotYetValid" }
        if (block.timestamp >= f.validUntil) return { success: false, reason: "PermitExpired" }
        if (s.fillsUsed.has(lower(f.fillId))) return { success: false, reason: "FillAlreadyUsed" }
        s.fillsUsed.add(lower(f.fillId))
        const { validAfter: _a, validUntil: _u, router: _r, ...event } = f
        return {
          success: true,
          sourceFill: { ...event, router, txHash: tx.hash, blockNumber: block.number, blockHash: block.hash }
        }
      }
      case "payout": {
        s.nonces.set(tx.sender, (s.nonces.get(tx.sender) ?? 0) + 1)
        const revert = (reason: string): Receipt => {
          s.native.set(tx.sender, (s.native.get(tx.sender) ?? 0n) - 30_000n * gasPrice(tx, block.baseFee))
          return { success: false, reason }
        }
        if (tx.sender !== operator) return revert("NotOperator")
        const fillId = lower(tx.order.fillId)
        if (s.paid.has(fillId)) return revert(`PayoutAlreadyPaid(${fillId})`)
        const balance = s.vaultBalances.get(lower(tx.order.asset)) ?? 0n
        if (balance < tx.order.amountRaw) return revert(`TokenTransferFailed(${lower(tx.order.asset)})`)
        s.paid.add(fillId)
        s.vaultBalances.set(lower(tx.order.asset), balance - tx.order.amountRaw)
        s.native.set(tx.sender, (s.native.get(tx.sender) ?? 0n) - 60_000n * gasPrice(tx, block.baseFee))
        return {
          success: true,
          payout: {
            fillId,
            recipient: lower(tx.order.recipient),
            asset: lower(tx.order.asset),
            amount: tx.order.amountRaw
          }
        }
      }
    }
  }

  const replay = () => {
    state = initial()
    for (const block of blocks) for (const tx of block.txs) execute(state, tx, block)
  }

  const head = () => blocks[blocks.length - 1]!
  const nonceOf = (account: string) => state.nonces.get(lower(account)) ?? 0

  const mineOne = () => {
    const parent = head()
    const number = parent.number + 1n
    const baseFee = nextBaseFee
    const hash = hashOf(`block:${number}:${salt}`)
    const timestamp = parent.timestamp + blockTime
    const txs: Array<Tx> = []
    const receipts: Array<Receipt> = []
    const header = { number, hash, timestamp, baseFee }
    // external transactions first, in the order they came
    for (const tx of pool.values()) {
      if (tx.kind === "payout") continue
      pool.delete(tx.hash)
      txs.push(tx)
      receipts.push(execute(state, tx, header))
    }
    // payouts: each sender's pooled transactions in nonce order, from its next nonce, while they pay the base fee
    let included = 0
    const payouts = [...pool.values()].filter((t): t is Extract<Tx, { kind: "payout" }> => t.kind === "payout")
    for (const tx of payouts) {
      if (tx.maxFeePerGas < baseFee && options.evictUnderpriced === true) pool.delete(tx.hash)
    }
    const senders = [...new Set(payouts.map((t) => t.sender))].sort()
    for (const sender of senders) {
      for (;;) {
        if (included >= maxPayouts) break
        const next = nonceOf(sender)
        const tx = [...pool.values()].find((t) => t.kind === "payout" && t.sender === sender && t.nonce === next) as
          | Extract<Tx, { kind: "payout" }>
          | undefined
        if (tx === undefined || tx.maxFeePerGas < baseFee) break
        pool.delete(tx.hash)
        txs.push(tx)
        receipts.push(execute(state, tx, header))
        included++
      }
    }
    // stale pool entries (their nonce was used) leave the pool
    for (const tx of pool.values()) {
      if (tx.kind === "payout" && tx.nonce < nonceOf(tx.sender)) pool.delete(tx.hash)
    }
    blocks.push({ ...header, txs, receipts })
  }

  const find = (hash: string): { block: ModelBlock; receipt: Receipt } | undefined => {
    const h = lower(hash)
    for (let i = blocks.length - 1; i >= 0; i--) {
      const block = blocks[i]!
      const at = block.txs.findIndex((t) => t.hash === h)
      if (at >= 0) return { block, receipt: block.receipts[at]! }
    }
    return undefined
  }

  const external = (tx: Tx) => {
    pool.set(tx.hash, tx)
    return tx.hash
  }

  const blockView = (b: ModelBlock): Chain.Block => ({ number: b.number, hash: b.hash, timestamp: b.timestamp })

  // ------------------------------------------------------------ RPC
  const model: ChainModel = {
    chainId: options.chainId,
    vault,
    rpc: "ok",
    chain: undefined as never,
    head: () => blockView(head()),
    blockAt: (n) => {
      const b = blocks[Number(n)]
      return b === undefined ? undefined : blockView(b)
    },
    mine: (n = 1) => {
      for (let i = 0; i < n; i++) mineOne()
    },
    submitFill: (fill) => external({ kind: "fill", hash: hashOf(`fill:${counter++}:${fill.fillId}`), fill }),
    deposit: (asset, amount) =>
      external({ kind: "vault", hash: hashOf(`vault:${counter++}`), asset: lower(asset), delta: amount }),
    withdraw: (asset, amount) =>
      external({ kind: "vault", hash: hashOf(`vault:${counter++}`), asset: lower(asset), delta: -amount }),
    fund: (account, amount) =>
      external({ kind: "fund", hash: hashOf(`fund:${counter++}`), account: lower(account), amount }),
    reorg: (depth, reorgOptions) => {
      const n = Math.min(depth, blocks.length - 1)
      if (n <= 0) return
      const removed = blocks.splice(blocks.length - n, n)
      salt++
      replay()
      const keep = reorgOptions?.keep
      for (const block of removed) {
        for (const tx of block.txs) {
          if (keep === true || (typeof keep === "function" && keep(tx.hash))) pool.set(tx.hash, tx)
        }
      }
      for (let i = 0; i < n; i++) mineOne()
    },
    setBaseFee: (fee) => {
      nextBaseFee = fee
    },
    dropTransaction: (hash, dropOptions) => {
      const tx = pool.get(lower(hash))
      if (tx === undefined) return
      pool.delete(tx.hash)
      if (tx.kind !== "payout" || dropOptions?.only === true) return
      for (const other of pool.values()) {
        if (other.kind === "payout" && other.sender === tx.sender && other.nonce > tx.nonce) pool.delete(other.hash)
      }
    },
    useNonce: () => {
      if (operator === null) return
      const nonce = nonceOf(operator)
      // another transaction of the key, mined at once
      const parent = head()
      const header = {
        number: parent.number + 1n,
        hash: hashOf(`block:${parent.number + 1n}:${salt}`),
        timestamp: parent.timestamp + blockTime,
        baseFee: nextBaseFee
      }
      const tx: Tx = {
        kind: "payout",
        hash: hashOf(`foreign:${counter++}`),
        sender: operator,
        nonce,
        maxFeePerGas: nextBaseFee * 2n,
        maxPriorityFeePerGas: 0n,
        gas: 21_000n,
        order: { fillId: "0x" + "0".repeat(64), asset: "0x" + "0".repeat(40), recipient: operator, amountRaw: 0n },
        raw: "foreign"
      }
      for (const other of pool.values()) {
        if (other.kind === "payout" && other.sender === operator && other.nonce === nonce) pool.delete(other.hash)
      }
      blocks.push({ ...header, txs: [tx], receipts: [execute(state, tx, header)] })
    },
    vaultBalance: (asset) => state.vaultBalances.get(lower(asset)) ?? 0n,
    paidOut: (fillId) => state.paid.has(lower(fillId)),
    nonceOf,
    nativeBalance: (account) => state.native.get(lower(account)) ?? 0n,
    pool: () =>
      [...pool.values()].flatMap((t) =>
        t.kind === "payout" ? [{ hash: t.hash, nonce: t.nonce, maxFeePerGas: t.maxFeePerGas }] : []
      ),
    payoutsOf: (fillId) =>
      blocks.flatMap((b) =>
        b.receipts.flatMap((r, i) =>
          r.payout !== undefined && r.payout.fillId === lower(fillId)
            ? [{
              txHash: b.txs[i]!.hash,
              blockNumber: b.number,
              recipient: r.payout.recipient,
              asset: r.payout.asset,
              amount: r.payout.amount
            }]
            : []
        )
      ),
    sent: () => [...accepted]
  }

  const call = <A>(what: string, f: () => A): Effect.Effect<A, ConnectorUnavailable> =>
    Effect.suspend(() => {
      switch (model.rpc) {
        case "ok":
          return Effect.sync(f)
        case "refuse":
          return Effect.fail(
            new ConnectorUnavailable({ code: "RPC_UNAVAILABLE", message: `${what}: connection refused (model)` })
          )
        case "hang":
          return Effect.never
      }
    })

  const reader: Chain.ChainReader = {
    head: call("head", () => blockView(head())),
    finalized: call("finalized", () => {
      if (lag === null) return null
      const n = Number(head().number) - lag
      return blockView(blocks[n < 0 ? 0 : n]!)
    }),
    block: (n) => call("block", () => (blocks[Number(n)] === undefined ? null : blockView(blocks[Number(n)]!))),
    sourceFills: (from, to) =>
      call("sourceFills", () =>
        blocks
          .filter((b) => b.number >= from && b.number <= to)
          .flatMap((b) => b.receipts.flatMap((r) => (r.success && r.sourceFill !== undefined ? [r.sourceFill] : [])))),
    inclusion: (hash) =>
      call("inclusion", (): Chain.Inclusion => {
        const found = find(hash)
        if (found !== undefined) {
          return {
            _tag: "Included",
            blockNumber: found.block.number,
            blockHash: found.block.hash,
            success: found.receipt.success
          }
        }
        return pool.has(lower(hash)) ? { _tag: "Pending" } : { _tag: "Missing" }
      })
  }

  const order = (o: Chain.PayoutOrder): Chain.PayoutOrder => ({
    fillId: lower(o.fillId),
    asset: lower(o.asset),
    recipient: lower(o.recipient),
    amountRaw: o.amountRaw
  })

  const payer: Chain.ChainPayer | null = operator === null ? null : {
    sender: operator,
    nonces: call("nonces", () => {
      const latest = nonceOf(operator)
      let pending = latest
      while ([...pool.values()].some((t) => t.kind === "payout" && t.sender === operator && t.nonce === pending)) {
        pending++
      }
      return { latest, pending }
    }),
    fees: call("fees", () => ({ baseFeePerGas: nextBaseFee, priorityFeePerGas: priorityFee })),
    check: (o) =>
      call("check", (): Chain.PayoutCheck => {
        const x = order(o)
        if (state.paid.has(x.fillId)) return { _tag: "AlreadyPaid" }
        if ((state.vaultBalances.get(x.asset) ?? 0n) < x.amountRaw) {
          return { _tag: "Reverts", reason: `TokenTransferFailed(${x.asset})` }
        }
        return { _tag: "Ok", gas: 55_000n }
      }),
    paidOut: (fillId) => call("paidOut", () => state.paid.has(lower(fillId))),
    sign: (o, tx) =>
      call("sign", () => {
        const x = order(o)
        const raw =
          `payout:${options.chainId}:${operator}:${tx.nonce}:${tx.gas}:${tx.maxFeePerGas}:${tx.maxPriorityFeePerGas}:${x.fillId}:${x.asset}:${x.recipient}:${x.amountRaw}`
        return { txHash: hashOf(raw), rawTransaction: raw, nonce: tx.nonce, sender: operator }
      }),
    send: (signed) =>
      Effect.flatMap(
        call("send", (): ConnectorError | undefined => {
          const hash = lower(signed.txHash)
          if (pool.has(hash) || find(hash) !== undefined) return undefined
          const parts = signed.rawTransaction.split(":")
          if (parts[0] !== "payout" || parts.length !== 11) {
            return new ConnectorError({ code: "INVALID_TRANSACTION", message: "not a transaction of this chain" })
          }
          const [, , sender, nonce, gas, maxFee, tip, fillId, asset, recipient, amount] = parts as [
            string,
            ...Array<string>
          ]
          const tx: Extract<Tx, { kind: "payout" }> = {
            kind: "payout",
            hash,
            sender: sender!,
            nonce: Number(nonce),
            gas: BigInt(gas!),
            maxFeePerGas: BigInt(maxFee!),
            maxPriorityFeePerGas: BigInt(tip!),
            order: { fillId: fillId!, asset: asset!, recipient: recipient!, amountRaw: BigInt(amount!) },
            raw: signed.rawTransaction
          }
          if (tx.nonce < nonceOf(tx.sender)) return new ConnectorError({ code: "NONCE_USED", message: "nonce too low" })
          if (tx.maxFeePerGas < nextBaseFee) {
            return new ConnectorError({ code: "UNDERPRICED", message: "max fee per gas less than block base fee" })
          }
          if ((state.native.get(tx.sender) ?? 0n) < tx.gas * tx.maxFeePerGas) {
            return new ConnectorError({ code: "NO_GAS", message: "insufficient funds for gas * price + value" })
          }
          const same = [...pool.values()].find((t) =>
            t.kind === "payout" && t.sender === tx.sender && t.nonce === tx.nonce
          ) as
            | Extract<Tx, { kind: "payout" }>
            | undefined
          if (same !== undefined) {
            if (
              tx.maxFeePerGas < bump(same.maxFeePerGas, bumpBps) ||
              tx.maxPriorityFeePerGas < bump(same.maxPriorityFeePerGas, bumpBps) ||
              tx.maxFeePerGas <= same.maxFeePerGas
            ) return new ConnectorError({ code: "UNDERPRICED", message: "replacement transaction underpriced" })
            pool.delete(same.hash)
          }
          pool.set(hash, tx)
          accepted.push(hash)
          return undefined
        }),
        (refused) => (refused === undefined ? Effect.void : Effect.fail(refused))
      ),
    findPayout: (fillId) =>
      call("findPayout", () => {
        const events = model.payoutsOf(fillId)
        return events.length === 0 ? null : { txHash: events[0]!.txHash }
      }),
    balance: (asset) => call("balance", () => state.vaultBalances.get(lower(asset)) ?? 0n),
    gasBalance: call("gasBalance", () => state.native.get(operator) ?? 0n)
  }
  ;(model as { chain: Chain.NetworkChain }).chain = { reader, payer }
  return model
}
