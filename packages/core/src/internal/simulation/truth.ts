/**
 * The ground truth and the invariants of the simulation, kept incrementally:
 * the store's changes as they happen (every permit issued and every transition,
 * checked against the chains at that moment), the chains' blocks as they are
 * mined or reorganised (every payout checked when it lands), the feeds served,
 * the inventory buckets, and the final agreement once the chains settle.
 * Internal to `testing/Simulation.ts`.
 */
import type { Hex } from "@svc/protocol/Bytes"
import * as CanonicalJson from "@svc/protocol/CanonicalJson"
import * as FeedSignature from "@svc/protocol/FeedSignature"
import type { ExecutionPermit } from "@svc/protocol/schema/Permit"
import * as Signature from "@svc/protocol/Signature"
import { Result } from "effect"
import type { PermitState } from "../../Lifecycle.ts"
import type { Publication } from "../../Publisher.ts"
import type { InventoryBalance, PermitRecord } from "../../Store.ts"
import {
  addTrouble,
  bucketOfState,
  fillMatches,
  finalHeight,
  type PermitTruth,
  type SimChain,
  troubleEnd,
  violate,
  type World
} from "./world.ts"

const ZERO_FILL = `0x${"0".repeat(64)}`

/** How long after a change of the chains the engine may still act on what it read before (a call in flight, a freeze). */
export const staleMillis = (world: World) => world.settings.callTimeoutMillis * 3 + 20_000

const owed = new WeakMap<World, Set<string>>()
export const owedOf = (world: World): Set<string> => {
  let set = owed.get(world)
  if (set === undefined) owed.set(world, set = new Set())
  return set
}

/**
 * Payouts a reorganisation removed after their permit was PAID, by asset, since the last two observations of the
 * vault: the store counts them back into the physical balance (configured - paidOut) over a vault balance read
 * while they were paid, so the physical balance may exceed the catalog's cap by them until the vault is observed
 * again with them gone.
 */
const reopened = new WeakMap<World, Map<string, { previous: bigint; current: bigint }>>()
const reopenedOf = (world: World) => {
  let map = reopened.get(world)
  if (map === undefined) reopened.set(world, map = new Map())
  return map
}

/** The settlement runner observed the vaults' balances (`Store.observeInventory`). */
export const onInventoryObserved = (world: World, assetKeys: ReadonlyArray<string>) => {
  const map = reopenedOf(world)
  for (const key of assetKeys) {
    const entry = map.get(key.toLowerCase())
    if (entry !== undefined) map.set(key.toLowerCase(), { previous: entry.current, current: 0n })
  }
}

const moveBucket = (world: World, t: PermitTruth, from: PermitState | null, to: PermitState) => {
  const row = world.buckets.get(t.assetKey) ?? { hold: 0n, liability: 0n, clearing: 0n }
  const a = from === null ? null : bucketOfState(from)
  const b = bucketOfState(to)
  if (a !== null) row[a] -= t.amountOut
  if (b !== null) row[b] += t.amountOut
  world.buckets.set(t.assetKey, row)
  const set = owedOf(world)
  if (to === "SOURCE_CONFIRMED" || to === "PAYOUT_SUBMITTED") set.add(t.fillId)
  else set.delete(t.fillId)
  if (from !== null) world.states.set(from, (world.states.get(from) ?? 0) - 1)
  world.states.set(to, (world.states.get(to) ?? 0) + 1)
}

/** The envelope text a client compares: everything but the state and the transaction hashes. */
export const ackedText = (envelope: Record<string, unknown>): string => {
  const { payoutTxHash: _p, sourceTxHash: _s, state: _state, ...rest } = envelope
  return CanonicalJson.stringify(rest)
}

/** The store issued a permit. */
export const onIssued = (world: World, record: PermitRecord) => {
  const fillId = record.fillId.toLowerCase()
  const envelope = JSON.parse(record.envelope) as { permit: ExecutionPermit }
  const permit = envelope.permit
  const key = `${record.scope}|${record.idempotencyKey}`
  const earlier = world.issuedKeys.get(key)
  if (earlier !== undefined) {
    violate(world, "idempotency", `a second permit ${fillId} for the key of ${earlier} (${key})`)
  }
  world.issuedKeys.set(key, fillId)
  if (world.permits.has(fillId)) violate(world, "idempotency", `fillId ${fillId} issued twice`)
  const truth: PermitTruth = {
    fillId,
    permit,
    assetKey: record.assetKey,
    amountOut: BigInt(permit.amountOutRaw),
    source: world.chainByNetworkId.get(permit.sourceNetworkId.toLowerCase()),
    destination: world.chainByNetworkId.get(permit.destinationNetworkId.toLowerCase()),
    scopeKey: key,
    state: record.state,
    reasonCodes: record.reasonCodes,
    sourceTxHash: record.sourceTxHash,
    payoutTxHash: record.payoutTxHash,
    version: 0,
    acked: null,
    plan: null,
    genuineTxs: new Set(),
    tamperedTxs: new Set(),
    fillLeftAt: null,
    confirmedAt: null,
    issuedAt: world.now(),
    paidAt: null
  }
  if (BigInt(record.amountOutRaw) !== truth.amountOut || record.assetKey !== permit.destinationAssetId.toLowerCase()) {
    violate(world, "inventory", `permit ${fillId} reserves ${record.amountOutRaw} of ${record.assetKey}, not its terms`)
  }
  world.permits.set(fillId, truth)
  moveBucket(world, truth, null, record.state)
  world.trace.line(
    `issued ${fillId} route ${permit.routeId.slice(0, 10)} in ${permit.amountInRaw} out ${permit.amountOutRaw}`
  )
}

/** Whether a transaction is in the canonical chain, or left it so recently that the engine may not know yet. */
const canonicalOrRecent = (world: World, chain: SimChain, txHash: string, leftAt: number | null) => {
  const inclusion = chain.model.inclusionOf(txHash)
  if (inclusion._tag === "Included") return true
  return leftAt !== null && world.now() - leftAt <= staleMillis(world)
}

const recentDeepReorg = (world: World, chain: SimChain | undefined) =>
  chain !== undefined && world.now() - chain.deepReorgAt <= staleMillis(world)

/** The store applied a transition: the new state is checked against the chains now. */
export const onTransition = (world: World, record: PermitRecord, from: PermitState) => {
  const fillId = record.fillId.toLowerCase()
  const t = world.permits.get(fillId)
  if (t === undefined) return violate(world, "ledger", `a transition of ${fillId}, which the store never issued`)
  if (t.state !== from) {
    violate(world, "ledger", `${fillId} moved from ${from}, but the store had it ${t.state}`)
  }
  moveBucket(world, t, t.state, record.state)
  if (from === "PAID") {
    const map = reopenedOf(world)
    const key = t.assetKey.toLowerCase()
    const entry = map.get(key) ?? { previous: 0n, current: 0n }
    map.set(key, { previous: entry.previous, current: entry.current + t.amountOut })
  }
  t.state = record.state
  t.reasonCodes = record.reasonCodes
  t.sourceTxHash = record.sourceTxHash
  t.payoutTxHash = record.payoutTxHash
  t.version++
  world.trace.line(`state ${fillId} ${from} -> ${record.state} ${record.reasonCodes.join(",")}`)
  const src = t.source
  const dst = t.destination
  const now = world.now()
  switch (record.state) {
    case "SOURCE_OBSERVED": {
      const tx = record.sourceTxHash
      if (tx === null || src === undefined) return violate(world, "lifecycle", `${fillId} observed without a fill`)
      const sent = world.fillTxs.get(tx)
      if (sent === undefined || sent.fillId !== fillId) {
        return violate(world, "lifecycle", `${fillId} observed from ${tx}, which is not a fill of it`)
      }
      if (!sent.genuine) return violate(world, "lifecycle", `${fillId} observed from a fill that does not match it`)
      if (!canonicalOrRecent(world, src, tx, t.fillLeftAt)) {
        violate(world, "lifecycle", `${fillId} observed from ${tx}, which is not in the source chain`)
      }
      return
    }
    case "SOURCE_CONFIRMED": {
      t.confirmedAt = now
      const tx = record.sourceTxHash
      if (tx === null || src === undefined) return violate(world, "lifecycle", `${fillId} confirmed without a fill`)
      const inclusion = src.model.inclusionOf(tx)
      if (inclusion._tag !== "Included") {
        if (!canonicalOrRecent(world, src, tx, t.fillLeftAt) && !recentDeepReorg(world, src)) {
          violate(world, "lifecycle", `${fillId} confirmed from ${tx}, which is not in the source chain`)
        }
        return
      }
      const depth = src.model.head().number - inclusion.blockNumber + 1n
      if (
        (inclusion.blockNumber > finalHeight(src) || depth < BigInt(t.permit.sourceFinalityBlocks)) &&
        !recentDeepReorg(world, src)
      ) {
        violate(
          world,
          "lifecycle",
          `${fillId} confirmed at block ${inclusion.blockNumber} of ${src.key}, not final (head ${src.model.head().number})`
        )
      }
      return
    }
    case "PAYOUT_SUBMITTED": {
      if (from === "PAID") t.confirmedAt = now
      const tx = record.payoutTxHash
      if (tx === null) return violate(world, "lifecycle", `${fillId} submitted without a payout transaction`)
      if (!world.intents.has(tx) && dst?.model.inclusionOf(tx)._tag !== "Included") {
        violate(world, "lifecycle", `${fillId} submitted with ${tx}, neither stored nor on chain`)
      }
      // reopened while the transaction it was PAID by is in the chain (another transaction of it may have paid)
      if (from === "PAID" && dst !== undefined && dst.model.payoutsOf(fillId).some((x) => x.txHash === tx)) {
        violate(world, "lifecycle", `${fillId} reopened while its payout is in the chain`)
      }
      return
    }
    case "PAID": {
      t.paidAt = now
      world.stats.paid++
      if (world.phase === "quiet") {
        world.stats.longestQuietWait = Math.max(world.stats.longestQuietWait, now - world.quietSince)
      }
      const tx = record.payoutTxHash
      if (tx === null || dst === undefined) return violate(world, "lifecycle", `${fillId} PAID without a payout`)
      const event = dst.model.payoutsOf(fillId).find((p) => p.txHash === tx)
      if (event === undefined) {
        if (!recentDeepReorg(world, dst)) violate(world, "lifecycle", `${fillId} PAID by ${tx}, not a payout on chain`)
        return
      }
      if (event.blockNumber > finalHeight(dst) && !recentDeepReorg(world, dst)) {
        violate(
          world,
          "lifecycle",
          `${fillId} PAID at block ${event.blockNumber} of ${dst.key} before it was final (head ${dst.model.head().number})`
        )
      }
      return
    }
    case "ISSUED": {
      t.confirmedAt = null
      if (src === undefined) return
      const fill = src.model.sourceFillOf(fillId)
      if (fill !== undefined && fillMatches(t.permit, fill) && fill.txHash === record.sourceTxHash) {
        violate(world, "lifecycle", `${fillId} ISSUED again while its fill ${fill.txHash} is in the chain`)
      }
      return
    }
    case "EXPIRED": {
      world.stats.expired++
      if (src === undefined) return
      const fill = src.model.sourceFillOf(fillId)
      if (fill !== undefined && fillMatches(t.permit, fill) && !recentDeepReorg(world, src)) {
        violate(world, "lifecycle", `${fillId} EXPIRED while its fill ${fill.txHash} is in the chain`)
      }
      const final = src.model.blockAt(finalHeight(src))
      if (final === undefined || final.timestamp < Number(t.permit.validUntil)) {
        violate(
          world,
          "lifecycle",
          `${fillId} EXPIRED before a final block of ${src.key} was stamped at or after its validUntil ${t.permit.validUntil}`
        )
      }
      return
    }
    case "FAILED": {
      world.stats.failed++
      if (!record.reasonCodes.includes("SOURCE_FILL_MISMATCH") || t.tamperedTxs.size === 0) {
        violate(world, "lifecycle", `${fillId} FAILED (${record.reasonCodes.join(",")}) without a mismatching fill`)
      }
      return
    }
  }
}

/** The store replaced a permit's reason codes. */
export const onReasonCodes = (world: World, record: PermitRecord) => {
  const t = world.permits.get(record.fillId.toLowerCase())
  if (t === undefined) return
  t.reasonCodes = record.reasonCodes
  t.version++
}

/** The store pointed a PAID permit at another transaction of its payout (the one that paid it). */
export const onPaidPayout = (world: World, record: PermitRecord) => {
  const t = world.permits.get(record.fillId.toLowerCase())
  if (t === undefined) return
  t.payoutTxHash = record.payoutTxHash
  t.version++
  world.trace.line(`paid by ${record.fillId} ${record.payoutTxHash}`)
}

/** A publication recorded in the store: dataVersions only increase, one feed each. */
export const onPublicationRecorded = (world: World, dataVersion: bigint, feedHash: string) => {
  const known = world.publications.get(dataVersion.toString())
  if (known !== undefined && known !== feedHash) {
    violate(world, "feeds", `dataVersion ${dataVersion} published twice with different feeds`)
  }
  if (dataVersion <= world.newestDataVersion && known === undefined) {
    violate(world, "feeds", `dataVersion ${dataVersion} published after ${world.newestDataVersion}`)
  }
  if (dataVersion > world.newestDataVersion) world.newestDataVersion = dataVersion
  world.publications.set(dataVersion.toString(), feedHash)
  world.stats.publications++
  world.trace.line(`published ${dataVersion} ${feedHash.slice(0, 18)}`)
}

const verified = new WeakMap<World, Set<string>>()

/**
 * Whether the authority signed a digest: the signer is deterministic (RFC 6979),
 * so signing again gives the same bytes; anything else is recovered.
 */
export const signedByAuthority = (world: World, digest: string, signature: string): boolean => {
  if (Signature.signDigest(digest as Hex, world.authorityKey as Hex) === signature.toLowerCase()) return true
  const recovered = Signature.recoverDigestSigner(digest as Hex, signature)
  return Result.isSuccess(recovered) && recovered.success.toLowerCase() === world.authority.toLowerCase()
}

/** What a replica serves now: never older than what it served, one feed per dataVersion, every feed verifies. */
export const checkServed = (
  world: World,
  replica: { readonly name: string; servedDataVersion: bigint },
  publication: Publication
) => {
  const dv = publication.dataVersion
  if (dv < replica.servedDataVersion) {
    violate(world, "feeds", `${replica.name} served dataVersion ${dv} after ${replica.servedDataVersion}`)
  }
  replica.servedDataVersion = dv > replica.servedDataVersion ? dv : replica.servedDataVersion
  const key = dv.toString()
  const known = world.publications.get(key)
  if (known !== undefined && known !== publication.feedHash) {
    violate(world, "feeds", `${replica.name} serves dataVersion ${dv} with another feed than the one published`)
  }
  let done = verified.get(world)
  if (done === undefined) verified.set(world, done = new Set())
  const id = `${key}:${publication.feedHash}`
  if (done.has(id)) return
  done.add(id)
  // what a client verifies: the hash of the signed payload, the authority's signature over it, the signer named
  const body = JSON.parse(new TextDecoder().decode(publication.fullView.body)) as {
    feed: { signedPayload: { validUntil: number }; feedHash: string; feedSignature: string; feedSigner: string }
  }
  const feed = body.feed
  const hash = FeedSignature.hash(feed.signedPayload)
  const problem = hash !== feed.feedHash.toLowerCase()
    ? "its feedHash is not the hash of its signed payload"
    : feed.feedSigner.toLowerCase() !== world.authority.toLowerCase()
    ? `it names ${feed.feedSigner} as its signer`
    : !signedByAuthority(world, hash, feed.feedSignature)
    ? "its signature does not recover to the authority"
    : feed.signedPayload.validUntil <= publication.generatedAt
    ? "it is expired when generated"
    : undefined
  if (problem !== undefined) violate(world, "feeds", `${replica.name}'s feed ${dv} does not verify: ${problem}`)
}

/** The store's inventory rows against the states of the permits; the physical balance within the catalog's cap. */
export const checkInventory = (
  world: World,
  rows: ReadonlyArray<InventoryBalance>,
  caps: ReadonlyMap<string, bigint>
) => {
  for (const row of rows) {
    const expected = world.buckets.get(row.assetKey) ?? { hold: 0n, liability: 0n, clearing: 0n }
    if (
      row.holdRaw !== expected.hold || row.liabilityRaw !== expected.liability || row.clearingRaw !== expected.clearing
    ) {
      violate(
        world,
        "inventory",
        `${
          row.assetKey.slice(0, 10)
        }: hold ${row.holdRaw}, liability ${row.liabilityRaw}, clearing ${row.clearingRaw}; ` +
          `the permits add up to ${expected.hold}, ${expected.liability}, ${expected.clearing}`
      )
      world.buckets.set(row.assetKey, { hold: row.holdRaw, liability: row.liabilityRaw, clearing: row.clearingRaw })
    }
    const cap = caps.get(row.assetKey)
    const physical = row.configuredRaw - row.paidOutRaw
    const back = reopenedOf(world).get(row.assetKey.toLowerCase())
    if (cap !== undefined && physical > cap + (back === undefined ? 0n : back.previous + back.current)) {
      violate(world, "inventory", `${row.assetKey.slice(0, 10)}: physical ${physical} above the catalog's cap ${cap}`)
    }
  }
}

/** A confirmed fill whose networks stayed calm is paid within the bound, whatever happens elsewhere. */
export const checkIsolation = (world: World) => {
  const now = world.now()
  const bound = world.settings.isolationBoundMillis
  for (const fillId of owedOf(world)) {
    const t = world.permits.get(fillId)!
    if (t.confirmedAt === null || now - t.confirmedAt <= bound) continue
    if (t.reasonCodes.includes("PAYOUT_NEEDS_OPERATOR")) continue
    const since = t.confirmedAt
    const calm = [t.source?.networkId ?? "-", t.destination?.networkId ?? "-", "*"].every((k) =>
      troubleEnd(world.trouble, k) < since
    )
    if (calm) {
      violate(
        world,
        "isolation",
        `${fillId} (${t.source?.key} -> ${t.destination?.key}) confirmed ${Math.round((now - since) / 1000)} s ago ` +
          `on calm networks is still ${t.state} ${t.reasonCodes.join(",")}`
      )
    }
    t.confirmedAt = null
  }
}

/** Records a chain's new blocks (and forgets the ones a reorganisation removed), checking every payout. */
export const scan = (world: World, chain: SimChain, events: Array<Array<ScannedEvent>>) => {
  const model = chain.model
  const head = Number(model.head().number)
  let fork = Math.min(chain.seen.length - 1, head)
  while (fork >= 0 && chain.seen[fork] !== model.blockAt(BigInt(fork))?.hash) fork--
  for (let n = chain.seen.length - 1; n > fork; n--) {
    for (const e of events[n] ?? []) {
      if (e.kind === "fill") {
        const t = world.permits.get(e.fillId)
        if (t !== undefined && e.genuine) t.fillLeftAt = world.now()
        world.trace.line(`${chain.key} fill left ${e.fillId} ${e.txHash}`)
      } else {
        const paid = world.payouts.get(e.fillId)
        if (paid !== undefined && paid.txHash === e.txHash) world.payouts.delete(e.fillId)
        world.trace.line(`${chain.key} payout left ${e.fillId} ${e.txHash}`)
      }
    }
    chain.seen.pop()
    events.pop()
  }
  for (let n = fork + 1; n <= head; n++) {
    const block = model.blockAt(BigInt(n))!
    const records = model.transactionsAt(BigInt(n)) ?? []
    const kept: Array<ScannedEvent> = []
    for (const r of records) {
      if (r.kind === "fill" && r.sourceFill !== undefined) {
        const fillId = r.sourceFill.fillId.toLowerCase()
        const t = world.permits.get(fillId)
        const genuine = t !== undefined && fillMatches(t.permit, r.sourceFill)
        if (t !== undefined && genuine) {
          t.fillLeftAt = null
          if (t.source !== chain) violate(world, "fills", `a fill of ${fillId} landed on ${chain.key}, not its source`)
        }
        world.stats.fillsMined++
        kept.push({ kind: "fill", fillId, txHash: r.txHash, genuine })
      } else if (r.kind === "payout" && r.payout !== undefined) {
        if (r.payout.fillId === ZERO_FILL && r.payout.amount === 0n) continue // another transaction of the key
        checkPayout(world, chain, r.payout, r.txHash)
        kept.push({ kind: "payout", fillId: r.payout.fillId, txHash: r.txHash, genuine: true })
      }
    }
    chain.seen[n] = block.hash
    events[n] = kept
    world.stats.blocks++
    if (records.length > 0) {
      world.trace.line(
        `${chain.key} block ${n} ${block.hash.slice(0, 10)} ${
          records.map((r) => `${r.kind}:${r.fillId?.slice(0, 10) ?? ""}:${r.success ? "ok" : r.reason}`).join(" ")
        }`
      )
    }
  }
}

/** What the scanner keeps of a block, to undo when it leaves the chain. */
export interface ScannedEvent {
  readonly kind: "fill" | "payout"
  readonly fillId: string
  readonly txHash: string
  readonly genuine: boolean
}

const checkPayout = (
  world: World,
  chain: SimChain,
  payout: { readonly fillId: string; readonly recipient: string; readonly asset: string; readonly amount: bigint },
  txHash: string
) => {
  const fillId = payout.fillId
  const t = world.permits.get(fillId)
  if (t === undefined) return violate(world, "payouts", `${chain.key} paid ${fillId}, which no permit has`)
  const permit = t.permit
  if (t.destination !== chain) violate(world, "payouts", `${fillId} paid on ${chain.key}, not its destination`)
  if (payout.amount !== t.amountOut) {
    violate(world, "payouts", `${fillId} paid ${payout.amount}, its permit's amountOutRaw is ${t.amountOut}`)
  }
  if (payout.recipient !== permit.recipient.toLowerCase()) {
    violate(world, "payouts", `${fillId} paid to ${payout.recipient}, not its recipient ${permit.recipient}`)
  }
  if (payout.asset !== permit.destinationAsset.toLowerCase()) {
    violate(world, "payouts", `${fillId} paid in ${payout.asset}, not ${permit.destinationAsset}`)
  }
  const earlier = world.payouts.get(fillId)
  if (earlier !== undefined) {
    violate(world, "payouts", `${fillId} paid twice: ${earlier.chain} ${earlier.txHash} and ${chain.key} ${txHash}`)
  }
  if (t.state !== "PAYOUT_SUBMITTED" && t.state !== "PAID") {
    violate(world, "payouts", `${fillId} paid while ${t.state}`)
  }
  world.payouts.set(fillId, { chain: chain.key, txHash })
}

/** The chains have settled: every permit's state agrees with them. */
export const endChecks = (world: World) => {
  const paidByAsset = new Map<string, bigint>()
  const paidOnChainByAsset = new Map<string, bigint>()
  for (const t of world.permits.values()) {
    const src = t.source
    const dst = t.destination
    if (src === undefined || dst === undefined) continue
    const fill = src.model.sourceFillOf(t.fillId)
    const matching = fill !== undefined && fillMatches(t.permit, fill)
    const payouts = dst.model.payoutsOf(t.fillId)
    for (const p of payouts) paidOnChainByAsset.set(t.assetKey, (paidOnChainByAsset.get(t.assetKey) ?? 0n) + p.amount)
    if (t.state === "PAID") paidByAsset.set(t.assetKey, (paidByAsset.get(t.assetKey) ?? 0n) + t.amountOut)
    const deepSource = src.deepReorged
    // the lifecycle's own exceptions, where the state says why: a fill that did not match landed first (FAILED
    // at first sight, for good), or the final block an expiry rested on was reorganised away (finality by depth)
    const excused = (t.state === "EXPIRED" && deepSource) ||
      (t.state === "FAILED" && t.reasonCodes.includes("SOURCE_FILL_MISMATCH") && t.tamperedTxs.size > 0)
    if (matching) {
      if (t.state !== "PAID" && !excused) {
        violate(
          world,
          "liveness",
          `${t.fillId} (${src.key} -> ${dst.key}) has its fill ${fill.txHash} in the chain but is ${t.state} ` +
            `${t.reasonCodes.join(",")} ${
              Math.round(world.settings.quietBoundMillis / 1000)
            } s after the faults stopped`
        )
      }
    } else if (payouts.length > 0 && !(deepSource && t.reasonCodes.includes("SOURCE_FILL_LOST_AFTER_PAYOUT"))) {
      violate(world, "payouts", `${t.fillId} paid out without a matching fill in the source chain (${t.state})`)
    }
    if (t.state === "PAID") {
      // another transaction of its payout may have paid it after a reorganisation: the permit stays PAID and
      // shows that transaction
      if (payouts.length === 0) violate(world, "agreement", `${t.fillId} is PAID but ${t.payoutTxHash} paid nothing`)
      else if (t.payoutTxHash !== null && !payouts.some((x) => x.txHash.toLowerCase() === t.payoutTxHash)) {
        violate(world, "agreement", `${t.fillId} is PAID by ${t.payoutTxHash}, but ${payouts[0]!.txHash} paid it`)
      }
    } else if (payouts.length > 0) {
      violate(world, "agreement", `${t.fillId} is ${t.state} but the vault paid it (${payouts[0]!.txHash})`)
    }
    if (!matching && t.state !== "EXPIRED" && t.state !== "FAILED" && t.state !== "PAID") {
      violate(world, "agreement", `${t.fillId} has no matching fill in the chain and is ${t.state}`)
    }
  }
  for (const [asset, paid] of paidByAsset) {
    const onChain = paidOnChainByAsset.get(asset) ?? 0n
    if (paid !== onChain) {
      violate(world, "inventory", `${asset.slice(0, 10)}: PAID permits add up to ${paid}, the vault paid ${onChain}`)
    }
  }
}

/** Marks a network (or `*`) in trouble until `end` (plus the time the engine needs to catch up). */
export const trouble = (world: World, key: string, end: number) => addTrouble(world.trouble, key, end + 60_000)
