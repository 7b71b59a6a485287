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
 * `withdraw`, `deposit`, `fund`, `useNonce`, and the RPC's faults (`rpc`: refuse
 * or hang; `rpcLag`: answer as of an older head, a fixed number of blocks behind
 * or a number the caller draws per request) — and every run is the same. Block
 * timestamps advance by `blockTime`, or follow a `clock` the caller gives (the
 * simulation's virtual time, skewed as it likes).
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
  /**
   * The chain's clock, Unix seconds: a new block is stamped with it (at least one
   * second after its parent) instead of its parent's timestamp plus `blockTime`.
   */
  readonly clock?: (() => number) | undefined
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

/**
 * How far behind the head the RPC answers, in blocks: a number for every
 * request, or a function drawn once per request (a load balancer in front of
 * nodes at different heights: consecutive answers disagree about the head).
 *
 * @category models
 * @since 0.1.0
 */
export type RpcLag = number | (() => number)

/**
 * What a transaction of a block did, as the chain recorded it.
 *
 * @category models
 * @since 0.1.0
 */
export interface TransactionRecord {
  readonly txHash: string
  readonly kind: "payout" | "fill" | "vault" | "fund"
  readonly success: boolean
  /** Why it reverted (the contract's error), when it did. */
  readonly reason?: string | undefined
  /** The router's event of a successful fill. */
  readonly sourceFill?: Chain.SourceFill | undefined
  /** The vault's event of a successful payout. */
  readonly payout?: PayoutEvent | undefined
  /** A payout transaction's sender and nonce, and the fill it pays (success or not). */
  readonly sender?: string | undefined
  readonly nonce?: number | undefined
  readonly fillId?: string | undefined
}

/**
 * The vault's `PayoutV6` event.
 *
 * @category models
 * @since 0.1.0
 */
export interface PayoutEvent {
  readonly fillId: string
  readonly recipient: string
  readonly asset: string
  readonly amount: bigint
}

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
  readonly payout?: PayoutEvent | undefined
  readonly reason?: string | undefined
}

/** A change of the state, undone when its block leaves the chain. */
type Undo =
  | {
    readonly map: "nonces" | "native" | "vaultBalances"
    readonly key: string
    readonly prev: number | bigint | undefined
  }
  | { readonly set: "paid" | "fillsUsed"; readonly key: string; readonly had: boolean }

interface ModelBlock extends Chain.Block {
  readonly baseFee: bigint
  readonly txs: ReadonlyArray<Tx>
  readonly receipts: ReadonlyArray<Receipt>
  readonly undo: ReadonlyArray<Undo>
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
  /** How far behind the head its RPC answers (default 0: at the head). */
  rpcLag: RpcLag
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
  /** Gives an account native coin with the next block (a negative amount takes up to that much). */
  readonly fund: (account: string, amount: bigint) => string
  /**
   * Replaces the newest `depth` blocks with as many new ones (other hashes).
   * Their transactions are dropped (anvil's `anvil_reorg`), or put back in the
   * pool with `{ keep: true }` (geth), or only those `keep` accepts.
   */
  readonly reorg: (depth: number, options?: { readonly keep?: boolean | ((hash: string) => boolean) }) => void
  /** The base fee of the next blocks. */
  readonly setBaseFee: (fee: bigint) => void
  /** The base fee the next block will have. */
  readonly baseFee: () => bigint
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
  /** What the transactions of a canonical block did, in block order; undefined above the head. */
  readonly transactionsAt: (n: bigint) => ReadonlyArray<TransactionRecord> | undefined
  /** The router's event of a fillId in the canonical chain (its successful fill), if any. */
  readonly sourceFillOf: (fillId: string) => Chain.SourceFill | undefined
  /** Where a transaction stands at the head (what an RPC at the head answers). */
  readonly inclusionOf: (txHash: string) => Chain.Inclusion
}

const lower = (s: string) => s.toLowerCase()
const bump = (value: bigint, bps: number) => value + (value * BigInt(bps)) / 10_000n

type PayoutTx = Extract<Tx, { kind: "payout" }>

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
    receipts: [],
    undo: []
  }
  const blocks: Array<ModelBlock> = [genesisBlock]
  const pool = new Map<string, Tx>()
  const accepted: Array<string> = []

  // ------------------------------------------------------------ state, with an undo log per block
  const state = {
    nonces: new Map<string, number>(),
    native: new Map<string, bigint>(operator === null ? [] : [[operator, options.operatorBalance ?? 10n ** 21n]]),
    vaultBalances: new Map<string, bigint>(),
    paid: new Set<string>(),
    fillsUsed: new Set<string>()
  }
  // canonical indexes: a transaction's block, a fillId's successful fill and payouts
  const txAt = new Map<string, { readonly block: ModelBlock; readonly index: number }>()
  const fillOf = new Map<string, Chain.SourceFill>()
  const payoutsByFill = new Map<string, Array<{ readonly block: ModelBlock; readonly index: number }>>()

  const gasPrice = (tx: PayoutTx, baseFee: bigint) => {
    const tip = tx.maxFeePerGas - baseFee < tx.maxPriorityFeePerGas
      ? tx.maxFeePerGas - baseFee
      : tx.maxPriorityFeePerGas
    return baseFee + (tip > 0n ? tip : 0n)
  }

  /** Applies a transaction to the state, recording what it changed in `undo`; its receipt. */
  const execute = (
    tx: Tx,
    block: { number: bigint; hash: string; timestamp: number; baseFee: bigint },
    undo: Array<Undo>
  ): Receipt => {
    const setMap = <V extends number | bigint>(map: "nonces" | "native" | "vaultBalances", key: string, value: V) => {
      const m = state[map] as Map<string, V>
      undo.push({ map, key, prev: m.get(key) })
      m.set(key, value)
    }
    const addTo = (set: "paid" | "fillsUsed", key: string) => {
      undo.push({ set, key, had: state[set].has(key) })
      state[set].add(key)
    }
    switch (tx.kind) {
      case "fund": {
        const next = (state.native.get(tx.account) ?? 0n) + tx.amount
        setMap("native", tx.account, next < 0n ? 0n : next)
        return { success: true }
      }
      case "vault": {
        const balance = state.vaultBalances.get(tx.asset) ?? 0n
        if (balance + tx.delta < 0n) return { success: false, reason: "InsufficientBalance" }
        setMap("vaultBalances", tx.asset, balance + tx.delta)
        return { success: true }
      }
      case "fill": {
        const f = tx.fill
        const to = lower(f.router ?? router ?? "")
        if (router === null || to !== router) return { success: false, reason: "WrongSourceRouter" }
        if (block.timestamp < f.validAfter) return { success: false, reason: "PermitNotYetValid" }
        if (block.timestamp >= f.validUntil) return { success: false, reason: "PermitExpired" }
        if (state.fillsUsed.has(lower(f.fillId))) return { success: false, reason: "FillAlreadyUsed" }
        addTo("fillsUsed", lower(f.fillId))
        const { validAfter: _a, validUntil: _u, router: _r, ...event } = f
        return {
          success: true,
          sourceFill: { ...event, router, txHash: tx.hash, blockNumber: block.number, blockHash: block.hash }
        }
      }
      case "payout": {
        setMap("nonces", tx.sender, (state.nonces.get(tx.sender) ?? 0) + 1)
        const charge = (units: bigint) => {
          const balance = (state.native.get(tx.sender) ?? 0n) - units * gasPrice(tx, block.baseFee)
          setMap("native", tx.sender, balance)
        }
        const revert = (reason: string): Receipt => {
          charge(30_000n)
          return { success: false, reason }
        }
        if (tx.sender !== operator) return revert("NotOperator")
        const fillId = lower(tx.order.fillId)
        if (state.paid.has(fillId)) return revert(`PayoutAlreadyPaid(${fillId})`)
        const balance = state.vaultBalances.get(lower(tx.order.asset)) ?? 0n
        if (balance < tx.order.amountRaw) return revert(`TokenTransferFailed(${lower(tx.order.asset)})`)
        addTo("paid", fillId)
        setMap("vaultBalances", lower(tx.order.asset), balance - tx.order.amountRaw)
        charge(60_000n)
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

  /** Adds a block to the canonical chain and its transactions to the indexes. */
  const pushBlock = (block: ModelBlock) => {
    blocks.push(block)
    block.txs.forEach((tx, index) => {
      txAt.set(tx.hash, { block, index })
      const receipt = block.receipts[index]!
      if (receipt.sourceFill !== undefined) fillOf.set(lower(receipt.sourceFill.fillId), receipt.sourceFill)
      if (receipt.payout !== undefined) {
        const list = payoutsByFill.get(receipt.payout.fillId) ?? []
        list.push({ block, index })
        payoutsByFill.set(receipt.payout.fillId, list)
      }
    })
  }

  /** Removes the head block: its transactions leave the indexes and its changes are undone. */
  const popBlock = (): ModelBlock => {
    const block = blocks.pop()!
    block.txs.forEach((tx, index) => {
      txAt.delete(tx.hash)
      const receipt = block.receipts[index]!
      if (receipt.sourceFill !== undefined) fillOf.delete(lower(receipt.sourceFill.fillId))
      if (receipt.payout !== undefined) {
        const list = (payoutsByFill.get(receipt.payout.fillId) ?? []).filter((p) => p.block !== block)
        if (list.length === 0) payoutsByFill.delete(receipt.payout.fillId)
        else payoutsByFill.set(receipt.payout.fillId, list)
      }
    })
    for (let i = block.undo.length - 1; i >= 0; i--) {
      const u = block.undo[i]!
      if ("map" in u) {
        const m = state[u.map] as Map<string, number | bigint>
        if (u.prev === undefined) m.delete(u.key)
        else m.set(u.key, u.prev)
      } else if (!u.had) state[u.set].delete(u.key)
    }
    return block
  }

  const head = () => blocks[blocks.length - 1]!
  const nonceOf = (account: string) => state.nonces.get(lower(account)) ?? 0

  const nextHeader = () => {
    const parent = head()
    const number = parent.number + 1n
    const timestamp = options.clock === undefined
      ? parent.timestamp + blockTime
      : Math.max(parent.timestamp + 1, Math.floor(options.clock()))
    return { number, hash: hashOf(`block:${number}:${salt}`), timestamp, baseFee: nextBaseFee }
  }

  const mineOne = () => {
    const header = nextHeader()
    const baseFee = header.baseFee
    const txs: Array<Tx> = []
    const receipts: Array<Receipt> = []
    const undo: Array<Undo> = []
    // external transactions first, in the order they came
    for (const tx of pool.values()) {
      if (tx.kind === "payout") continue
      pool.delete(tx.hash)
      txs.push(tx)
      receipts.push(execute(tx, header, undo))
    }
    // payouts: each sender's pooled transactions in nonce order, from its next nonce, while they pay the base fee
    let included = 0
    const bySender = new Map<string, Map<number, PayoutTx>>()
    for (const tx of pool.values()) {
      if (tx.kind !== "payout") continue
      if (tx.maxFeePerGas < baseFee && options.evictUnderpriced === true) {
        pool.delete(tx.hash)
        continue
      }
      const nonces = bySender.get(tx.sender) ?? new Map<number, PayoutTx>()
      if (!nonces.has(tx.nonce)) nonces.set(tx.nonce, tx)
      bySender.set(tx.sender, nonces)
    }
    for (const sender of [...bySender.keys()].sort()) {
      const nonces = bySender.get(sender)!
      for (;;) {
        if (included >= maxPayouts) break
        const tx = nonces.get(nonceOf(sender))
        if (tx === undefined || tx.maxFeePerGas < baseFee) break
        pool.delete(tx.hash)
        txs.push(tx)
        receipts.push(execute(tx, header, undo))
        included++
      }
    }
    // stale pool entries (their nonce was used) leave the pool
    for (const tx of pool.values()) {
      if (tx.kind === "payout" && tx.nonce < nonceOf(tx.sender)) pool.delete(tx.hash)
    }
    pushBlock({ ...header, txs, receipts, undo })
  }

  const external = (tx: Tx) => {
    pool.set(tx.hash, tx)
    return tx.hash
  }

  const blockView = (b: ModelBlock): Chain.Block => ({ number: b.number, hash: b.hash, timestamp: b.timestamp })

  const recordOf = (tx: Tx, receipt: Receipt): TransactionRecord => ({
    txHash: tx.hash,
    kind: tx.kind,
    success: receipt.success,
    ...(receipt.reason === undefined ? {} : { reason: receipt.reason }),
    ...(receipt.sourceFill === undefined ? {} : { sourceFill: receipt.sourceFill }),
    ...(receipt.payout === undefined ? {} : { payout: receipt.payout }),
    ...(tx.kind === "payout" ? { sender: tx.sender, nonce: tx.nonce, fillId: lower(tx.order.fillId) } : {}),
    ...(tx.kind === "fill" ? { fillId: lower(tx.fill.fillId) } : {})
  })

  const inclusionAt = (hash: string, height: number): Chain.Inclusion => {
    const h = lower(hash)
    const found = txAt.get(h)
    if (found !== undefined) {
      if (Number(found.block.number) > height) return { _tag: "Pending" }
      return {
        _tag: "Included",
        blockNumber: found.block.number,
        blockHash: found.block.hash,
        success: found.block.receipts[found.index]!.success
      }
    }
    return pool.has(h) ? { _tag: "Pending" } : { _tag: "Missing" }
  }

  // ------------------------------------------------------------ views (an RPC behind the head)
  interface View {
    readonly height: number
    readonly nonce: (account: string) => number
    readonly native: (account: string) => bigint
    readonly vaultBalance: (asset: string) => bigint
    readonly paid: (fillId: string) => boolean
  }
  const live: Omit<View, "height"> = {
    nonce: (a) => state.nonces.get(a) ?? 0,
    native: (a) => state.native.get(a) ?? 0n,
    vaultBalance: (a) => state.vaultBalances.get(a) ?? 0n,
    paid: (f) => state.paid.has(f)
  }
  /** The state as of an older block: the changes of the blocks above it undone, in an overlay. */
  const viewAt = (height: number): View => {
    const top = blocks.length - 1
    if (height >= top) return { height: top, ...live }
    const maps = {
      nonces: new Map<string, unknown>(),
      native: new Map<string, unknown>(),
      vaultBalances: new Map<string, unknown>()
    }
    const sets = { paid: new Map<string, boolean>(), fillsUsed: new Map<string, boolean>() }
    for (let i = top; i > height; i--) {
      const undo = blocks[i]!.undo
      for (let j = undo.length - 1; j >= 0; j--) {
        const u = undo[j]!
        if ("map" in u) maps[u.map].set(u.key, u.prev)
        else sets[u.set].set(u.key, u.had)
      }
    }
    const read = <V>(overlay: Map<string, unknown>, key: string, now: () => V, absent: V): V =>
      overlay.has(key) ? ((overlay.get(key) as V | undefined) ?? absent) : now()
    return {
      height,
      nonce: (a) => read(maps.nonces, a, () => live.nonce(a), 0),
      native: (a) => read(maps.native, a, () => live.native(a), 0n),
      vaultBalance: (a) => read(maps.vaultBalances, a, () => live.vaultBalance(a), 0n),
      paid: (f) => (sets.paid.has(f) ? sets.paid.get(f)! : live.paid(f))
    }
  }

  // ------------------------------------------------------------ RPC
  const model: ChainModel = {
    chainId: options.chainId,
    vault,
    rpc: "ok",
    rpcLag: 0,
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
      const removed: Array<ModelBlock> = []
      for (let i = 0; i < n; i++) removed.unshift(popBlock())
      salt++
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
    baseFee: () => nextBaseFee,
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
      const header = nextHeader()
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
      const undo: Array<Undo> = []
      const receipt = execute(tx, header, undo)
      pushBlock({ ...header, txs: [tx], receipts: [receipt], undo })
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
      (payoutsByFill.get(lower(fillId)) ?? []).map(({ block, index }) => {
        const payout = block.receipts[index]!.payout!
        return {
          txHash: block.txs[index]!.hash,
          blockNumber: block.number,
          recipient: payout.recipient,
          asset: payout.asset,
          amount: payout.amount
        }
      }),
    sent: () => [...accepted],
    transactionsAt: (n) => {
      const block = blocks[Number(n)]
      return block === undefined ? undefined : block.txs.map((tx, i) => recordOf(tx, block.receipts[i]!))
    },
    sourceFillOf: (fillId) => fillOf.get(lower(fillId)),
    inclusionOf: (hash) => inclusionAt(hash, blocks.length - 1)
  }

  /** The height the RPC answers at for one request. */
  const answerHeight = () => {
    const behind = typeof model.rpcLag === "function" ? model.rpcLag() : model.rpcLag
    return Math.max(0, blocks.length - 1 - Math.max(0, Math.floor(behind)))
  }

  const call = <A>(what: string, f: (height: number) => A): Effect.Effect<A, ConnectorUnavailable> =>
    Effect.suspend(() => {
      switch (model.rpc) {
        case "ok":
          return Effect.sync(() => f(answerHeight()))
        case "refuse":
          return Effect.fail(
            new ConnectorUnavailable({ code: "RPC_UNAVAILABLE", message: `${what}: connection refused (model)` })
          )
        case "hang":
          return Effect.never
      }
    })

  const reader: Chain.ChainReader = {
    head: call("head", (h) => blockView(blocks[h]!)),
    finalized: call("finalized", (h) => {
      if (lag === null) return null
      const n = h - lag
      return blockView(blocks[n < 0 ? 0 : n]!)
    }),
    block: (n) => call("block", (h) => (n < 0n || Number(n) > h ? null : blockView(blocks[Number(n)]!))),
    // a node refuses a range beyond its head, as the execution APIs' tests require of `eth_getLogs` (an answer
    // for fewer blocks than asked would make a watcher skip fills it never saw)
    sourceFills: (from, to) =>
      Effect.flatMap(
        call("sourceFills", (h) => {
          if (Number(to) > h) return undefined
          const out: Array<Chain.SourceFill> = []
          for (let n = from < 0n ? 0 : Number(from); n <= Number(to); n++) {
            for (const r of blocks[n]!.receipts) if (r.success && r.sourceFill !== undefined) out.push(r.sourceFill)
          }
          return out
        }),
        (fills) =>
          fills === undefined
            ? Effect.fail(
              new ConnectorUnavailable({
                code: "RPC_UNAVAILABLE",
                message: "sourceFills: block range extends beyond current head block (model)"
              })
            )
            : Effect.succeed(fills)
      ),
    inclusion: (hash) => call("inclusion", (h): Chain.Inclusion => inclusionAt(hash, h))
  }

  const order = (o: Chain.PayoutOrder): Chain.PayoutOrder => ({
    fillId: lower(o.fillId),
    asset: lower(o.asset),
    recipient: lower(o.recipient),
    amountRaw: o.amountRaw
  })

  /** The sender's nonces a node at `height` knows: its pool, and what was mined above it. */
  const pendingFrom = (sender: string, latest: number, height: number) => {
    const known = new Set<number>()
    for (const t of pool.values()) if (t.kind === "payout" && t.sender === sender) known.add(t.nonce)
    for (let i = height + 1; i < blocks.length; i++) {
      for (const t of blocks[i]!.txs) if (t.kind === "payout" && t.sender === sender) known.add(t.nonce)
    }
    let pending = latest
    while (known.has(pending)) pending++
    return pending
  }

  const payer: Chain.ChainPayer | null = operator === null ? null : {
    sender: operator,
    nonces: call("nonces", (h) => {
      const latest = viewAt(h).nonce(operator)
      return { latest, pending: pendingFrom(operator, latest, h) }
    }),
    fees: call("fees", () => ({ baseFeePerGas: nextBaseFee, priorityFeePerGas: priorityFee })),
    check: (o) =>
      call("check", (h): Chain.PayoutCheck => {
        const x = order(o)
        const view = viewAt(h)
        if (view.paid(x.fillId)) return { _tag: "AlreadyPaid" }
        if (view.vaultBalance(x.asset) < x.amountRaw) {
          return { _tag: "Reverts", reason: `TokenTransferFailed(${x.asset})` }
        }
        return { _tag: "Ok", gas: 55_000n }
      }),
    paidOut: (fillId) => call("paidOut", (h) => viewAt(h).paid(lower(fillId))),
    sign: (o, tx) =>
      call("sign", () => {
        const x = order(o)
        const raw =
          `payout:${options.chainId}:${operator}:${tx.nonce}:${tx.gas}:${tx.maxFeePerGas}:${tx.maxPriorityFeePerGas}:${x.fillId}:${x.asset}:${x.recipient}:${x.amountRaw}`
        return { txHash: hashOf(raw), rawTransaction: raw, nonce: tx.nonce, sender: operator }
      }),
    send: (signed) =>
      Effect.flatMap(
        call("send", (h): ConnectorError | undefined => {
          const hash = lower(signed.txHash)
          if (pool.has(hash) || txAt.has(hash)) return undefined
          const parts = signed.rawTransaction.split(":")
          if (parts[0] !== "payout" || parts.length !== 11) {
            return new ConnectorError({ code: "INVALID_TRANSACTION", message: "not a transaction of this chain" })
          }
          const [, , sender, nonce, gas, maxFee, tip, fillId, asset, recipient, amount] = parts as [
            string,
            ...Array<string>
          ]
          const tx: PayoutTx = {
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
          const view = viewAt(h)
          if (tx.nonce < view.nonce(tx.sender)) {
            return new ConnectorError({ code: "NONCE_USED", message: "nonce too low" })
          }
          if (tx.maxFeePerGas < nextBaseFee) {
            return new ConnectorError({ code: "UNDERPRICED", message: "max fee per gas less than block base fee" })
          }
          if (view.native(tx.sender) < tx.gas * tx.maxFeePerGas) {
            return new ConnectorError({ code: "NO_GAS", message: "insufficient funds for gas * price + value" })
          }
          let same: PayoutTx | undefined
          for (const t of pool.values()) {
            if (t.kind === "payout" && t.sender === tx.sender && t.nonce === tx.nonce) {
              same = t
              break
            }
          }
          if (same !== undefined) {
            if (
              tx.maxFeePerGas < bump(same.maxFeePerGas, bumpBps) ||
              tx.maxPriorityFeePerGas < bump(same.maxPriorityFeePerGas, bumpBps) ||
              tx.maxFeePerGas <= same.maxFeePerGas
            ) {
              return new ConnectorError({ code: "UNDERPRICED", message: "replacement transaction underpriced" })
            }
            pool.delete(same.hash)
          }
          pool.set(hash, tx)
          accepted.push(hash)
          return undefined
        }),
        (refused) => (refused === undefined ? Effect.void : Effect.fail(refused))
      ),
    findPayout: (fillId) =>
      call("findPayout", (h) => {
        const found = (payoutsByFill.get(lower(fillId)) ?? []).find(({ block }) => Number(block.number) <= h)
        return found === undefined ? null : { txHash: found.block.txs[found.index]!.hash }
      }),
    balance: (asset) => call("balance", (h) => viewAt(h).vaultBalance(lower(asset))),
    gasBalance: call("gasBalance", (h) => viewAt(h).native(operator))
  }
  ;(model as { chain: Chain.NetworkChain }).chain = { reader, payer }
  return model
}
