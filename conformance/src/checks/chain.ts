/**
 * On chain, with `--rpc <chainId>=<url>`: the contracts that the on-chain
 * discovery document names have code, with the documented runtime code hash, on
 * every given chain where the document promises them; the discovery facade's
 * views equal the document; the router of an issued permit is the contract that
 * verifies it (the good permit passes the router's checks and may only lack
 * funds, a tampered or re-routed copy is refused with the router's custom
 * error). With `--execute` and a funded `--wallet-key`: one real fill, end to
 * end, paid on the destination chain.
 *
 * Every chain check is skipped (by the plan, with the flag it needs) without
 * `--rpc`; a chain whose RPC does not answer, or serves another chain id, makes
 * the checks that need it inconclusive.
 *
 * @since 0.1.0
 */
import { ExecutionPermitResponse, PermitAbi, type Route } from "@svc/protocol"
import { Clock, Effect, Result } from "effect"
import {
  decodeAbiParameters,
  decodeFunctionResult,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  keccak256,
  zeroAddress
} from "viem"
import {
  type CallOutcome,
  type ChainAccess,
  Chains,
  describeError,
  describeOutcome,
  describeRevert,
  encodePermitDigestCall,
  FACADE_ABI
} from "../Chain.ts"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import { Options } from "../RunOptions.ts"
import {
  asObject,
  expectStatus,
  failure,
  type IssuedPermit,
  permitRequestFor,
  prerequisite,
  send,
  Shared,
  signRequest
} from "../Shared.ts"
import { document, type Env, type Json, sameAddress } from "./common.ts"
import { envelopeOf } from "./permits.ts"

const ONCHAIN = "/.well-known/svc-onchain-discovery.json"
const PERMITS = "/api/v6/execution-permits"
const ADDRESS = /^0x[0-9a-fA-F]{40}$/

const obj = (u: unknown): Json => asObject(u) ?? {}
const chainList = (u: unknown): ReadonlyArray<number> =>
  Array.isArray(u) ? u.filter((x): x is number => typeof x === "number" && Number.isSafeInteger(x) && x > 0) : []
const isAddress = (u: unknown): u is Hex => typeof u === "string" && ADDRESS.test(u)

/** The on-chain discovery document (its failure is reported by the discovery group). */
const onchainDocument = prerequisite(`GET ${ONCHAIN}`, document(ONCHAIN))

/** A contract the document names, with the chains where it promises it. */
interface Documented {
  readonly where: string
  readonly address: unknown
  readonly codeHash: unknown
  readonly chains: Array<number>
}

/**
 * The contracts of the document: the facade, registry and router at the top,
 * the ERC-7683 resolver and OIF module, and the scanner hints' contracts where
 * they name another address or code hash. Each with the chains it is promised on
 * (its own list, else the document's).
 */
const contractsOf = (doc: Json): ReadonlyArray<Documented> => {
  const all = chainList(doc.chains)
  const own = (u: unknown) => (chainList(u).length > 0 ? [...chainList(u)] : [...all])
  const erc7683 = obj(doc.erc7683)
  const oif = obj(doc.oif)
  const list: Array<Documented> = [
    { where: "facade", address: doc.facade, codeHash: doc.facadeRuntimeCodeHash, chains: [...all] },
    { where: "registry", address: doc.registry, codeHash: doc.registryRuntimeCodeHash, chains: [...all] },
    {
      where: "router",
      address: doc.router,
      codeHash: doc.routerRuntimeCodeHash,
      chains: own(obj(obj(doc.events).SourceFillV6).chains)
    },
    {
      where: "erc7683.resolver",
      address: erc7683.resolver,
      codeHash: erc7683.runtimeCodeHash,
      chains: own(erc7683.chains)
    },
    { where: "oif.module", address: oif.module, codeHash: oif.runtimeCodeHash, chains: own(oif.chains) }
  ]
  for (const [key, value] of Object.entries(obj(obj(doc.scannerHints).contracts))) {
    const hint = obj(value)
    const chains = own(hint.supportedChainIds)
    const same = list.find((d) =>
      sameAddress(d.address, hint.address) &&
      String(d.codeHash).toLowerCase() === String(hint.expectedRuntimeCodeHash).toLowerCase()
    )
    if (same !== undefined) {
      for (const id of chains) if (!same.chains.includes(id)) same.chains.push(id)
    } else {
      list.push({
        where: `scannerHints.contracts.${key}`,
        address: hint.address,
        codeHash: hint.expectedRuntimeCodeHash,
        chains
      })
    }
  }
  return list
}

/** The --rpc chains among `promised`; a skip saying so when there is none. */
const rpcChainsAmong = (promised: ReadonlyArray<number>, what: string) =>
  Effect.gen(function*() {
    const chains = yield* Chains
    const ids = chains.ids.filter((id) => promised.includes(id))
    if (ids.length === 0) {
      return yield* new Check.Skip({
        reason: `the document promises ${what} on chains ${promised.join(", ") || "none"}; --rpc names ${
          chains.ids.join(", ")
        }`
      })
    }
    return ids
  })

/**
 * Runs `body` on each chain. Departures go to the collector; a chain that cannot
 * be judged (its RPC does not answer, or serves another chain) makes the verdict
 * inconclusive unless a departure was found elsewhere.
 */
const onChains = <R>(
  ids: ReadonlyArray<number>,
  c: ReturnType<typeof Check.collector>,
  body: (chain: ChainAccess) => Effect.Effect<void, Check.Inconclusive, R>
) =>
  Effect.gen(function*() {
    const chains = yield* Chains
    const undecided: Array<string> = []
    for (const id of ids) {
      const outcome = yield* Effect.result(Effect.flatMap(chains.chain(id), body))
      if (Result.isFailure(outcome)) undecided.push(outcome.failure.reason)
    }
    yield* c.done
    if (undecided.length > 0) return yield* new Check.Inconclusive({ reason: undecided.join("; ") })
  })

const codeAt = (chain: ChainAccess, address: Hex) =>
  Effect.map(
    chain.read(`eth_getCode ${address}`, (client) => client.getCode({ address })),
    (code) => (code ?? "0x") as Hex
  )

/**
 * Runs `body` for each contract the on-chain document promises on each --rpc
 * chain where it promises it; departures go to the collector.
 */
const eachPromisedContract = <R>(
  body: (
    chain: ChainAccess,
    contract: ReturnType<typeof contractsOf>[number],
    c: ReturnType<typeof Check.collector>
  ) => Effect.Effect<void, Check.Inconclusive, R>
) =>
  Effect.gen(function*() {
    const { value: doc } = yield* onchainDocument
    const contracts = contractsOf(doc)
    const ids = yield* rpcChainsAmong([...new Set(contracts.flatMap((k) => k.chains))], "its contracts")
    const c = Check.collector()
    yield* onChains(ids, c, (chain) =>
      Effect.forEach(
        contracts.filter((x) => x.chains.includes(chain.chainId)),
        (k) => body(chain, k, c),
        {
          discard: true
        }
      ))
  })

const hasCode = Check.make<Env>({
  name: "chain_contracts_have_code",
  group: "chain",
  title:
    "every contract the on-chain discovery document names (facade, registry, router, ERC-7683 resolver, OIF module) has code on each --rpc chain where the document promises it",
  reference:
    "spec §2 ScannerHints.contracts, probe steps 1 and 7 (eth_getCode not empty on every supported chain); §4 getOnchainDiscovery",
  needs: ["rpc"],
  run: eachPromisedContract((chain, k, c) =>
    Effect.gen(function*() {
      if (!isAddress(k.address)) {
        c.add({ title: `${k.where} is not an address`, expected: "0x + 40 hex digits", actual: String(k.address) })
        return
      }
      const code = yield* codeAt(chain, k.address)
      if (code === "0x") {
        c.add({
          title: `${k.where} ${k.address} has no code on chain ${chain.chainId}`,
          expected: "runtime code (eth_getCode not empty), as the document promises",
          actual: `eth_getCode(${k.address}, latest) on chain ${chain.chainId} = 0x`
        })
      }
    })
  )
})

const codeHashes = Check.make<Env>({
  name: "chain_runtime_code_hashes",
  group: "chain",
  title:
    "keccak256 of each named contract's runtime code on each --rpc chain equals the runtime code hash the document publishes for it",
  reference:
    "spec §2 ScannerHints.contracts (expectedRuntimeCodeHash), probe steps 2 and 7 (KECCAK256_RUNTIME_CODE on every supported chain); docs/protocol.md, Discovery documents",
  needs: ["rpc"],
  run: eachPromisedContract((chain, k, c) =>
    Effect.gen(function*() {
      // an address that is not one is reported by chain_contracts_have_code
      if (!isAddress(k.address)) return
      const code = yield* codeAt(chain, k.address as Hex)
      const hash = code === "0x" ? undefined : keccak256(code)
      if (hash === undefined || hash !== String(k.codeHash).toLowerCase()) {
        c.add({
          title: `the runtime code of ${k.where} ${String(k.address)} on chain ${chain.chainId} ${
            hash === undefined ? "is absent" : "has another hash"
          }`,
          expected: String(k.codeHash),
          actual: hash === undefined ? "no code" : `keccak256(eth_getCode) = ${hash}`
        })
      }
    })
  )
})

/** systemState() of the facade on a chain, decoded; a departure added to the collector when it does not answer. */
const systemStateOf = (chain: ChainAccess, facade: Hex, c: ReturnType<typeof Check.collector>) =>
  Effect.gen(function*() {
    const outcome = yield* chain.call({
      to: facade,
      data: encodeFunctionData({ abi: FACADE_ABI, functionName: "systemState" })
    })
    if (outcome._tag === "Reverted" || outcome.data.length < 2 + 64 * 6) {
      c.add({
        title: `systemState() of the facade ${facade} on chain ${chain.chainId} does not answer`,
        expected: "(currentChainId, release, publicRegistry, publicRouter, discoverableRouteCount, live)",
        actual: describeOutcome(outcome)
      })
      return undefined
    }
    const [currentChainId, release, registry, router, routeCount, live] = decodeFunctionResult({
      abi: FACADE_ABI,
      functionName: "systemState",
      data: outcome.data
    })
    return { currentChainId, release, registry, router, routeCount, live }
  })

/** The facade of the document and the --rpc chains it is promised on. */
const documentedFacade = Effect.gen(function*() {
  const { value: doc } = yield* onchainDocument
  const facade = doc.facade
  if (!isAddress(facade)) return yield* new Check.Skip({ reason: "the document names no facade address" })
  const ids = yield* rpcChainsAmong(chainList(doc.chains), "the facade")
  return { doc, facade, ids }
})

const facadeFingerprint = Check.make<Env>({
  name: "chain_facade_fingerprint",
  group: "chain",
  title:
    "the discovery facade's systemState() on each --rpc chain equals the document: the chain itself, its releaseId, registry and router, and live",
  reference:
    "spec §2 ScannerHints.probe steps 4-5 (facade-live-status, facade-system-state); docs/protocol.md, Scanner hints; contracts: SvcSolverDiscoveryV6.systemState",
  needs: ["rpc"],
  run: Effect.gen(function*() {
    const { doc, facade, ids } = yield* documentedFacade
    const c = Check.collector()
    yield* onChains(ids, c, (chain) =>
      Effect.gen(function*() {
        const state = yield* systemStateOf(chain, facade, c)
        if (state === undefined) return
        const on = `on chain ${chain.chainId}`
        if (state.currentChainId !== BigInt(chain.chainId)) {
          c.add({
            title: `systemState().currentChainId ${on} is not the chain`,
            expected: String(chain.chainId),
            actual: String(state.currentChainId)
          })
        }
        if (state.release.toLowerCase() !== String(doc.releaseId).toLowerCase()) {
          c.add({
            title: `systemState().release ${on} is not the document's releaseId`,
            expected: String(doc.releaseId),
            actual: state.release
          })
        }
        if (!sameAddress(state.registry, doc.registry)) {
          c.add({
            title: `systemState().publicRegistry ${on} is not the document's registry`,
            expected: String(doc.registry),
            actual: state.registry
          })
        }
        if (!sameAddress(state.router, doc.router)) {
          c.add({
            title: `systemState().publicRouter ${on} is not the document's router`,
            expected: String(doc.router),
            actual: state.router
          })
        }
        if (!state.live) {
          c.add({
            title: `the facade ${on} is not live (systemState().live false)`,
            expected: "live: the registry and router report the release, the router points at the registry, intake on",
            actual: "live: false"
          })
        }
      }))
  })
})

const facadeRoutes = Check.make<Env>({
  name: "chain_facade_routes",
  group: "chain",
  title:
    "the discovery facade lists at least one route on each --rpc chain (systemState().discoverableRouteCount and routeCount() above 0, and equal)",
  reference:
    "spec §2 ScannerHints.probe steps 5-6 (facade-system-state: a route count above 0; facade-route-count); docs/protocol.md, Scanner hints",
  needs: ["rpc"],
  run: Effect.gen(function*() {
    const { facade, ids } = yield* documentedFacade
    const c = Check.collector()
    yield* onChains(ids, c, (chain) =>
      Effect.gen(function*() {
        const state = yield* systemStateOf(chain, facade, c)
        if (state === undefined) return
        const outcome = yield* chain.call({
          to: facade,
          data: encodeFunctionData({ abi: FACADE_ABI, functionName: "routeCount" })
        })
        const count = outcome._tag === "Returned" && outcome.data.length === 66 ? BigInt(outcome.data) : undefined
        if (count === undefined) {
          c.add({
            title: `routeCount() of the facade on chain ${chain.chainId} does not answer`,
            expected: "a uint256 above 0",
            actual: describeOutcome(outcome)
          })
        } else if (count !== state.routeCount) {
          c.add({
            title: `routeCount() and systemState().discoverableRouteCount differ on chain ${chain.chainId}`,
            expected: String(state.routeCount),
            actual: String(count)
          })
        }
        if (state.routeCount === 0n) {
          c.add({
            title: `the facade on chain ${chain.chainId} lists no route: its registry has none`,
            expected: "discoverableRouteCount > 0 (the document's probe steps 5 and 6)",
            actual: "0"
          })
        }
      }))
  })
})

const facadeUri = Check.make<Env>({
  name: "chain_facade_discovery_uri",
  group: "chain",
  title:
    "the discovery facade's discoveryURI() on each --rpc chain is the document's discoveryURI (the solver manifest's URL)",
  reference:
    "spec §2 ScannerHints.probe step 3 (facade-discovery-uri) and step 9 (follow it to the manifest); docs/protocol.md, Discovery documents",
  needs: ["rpc"],
  run: Effect.gen(function*() {
    const { doc, facade, ids } = yield* documentedFacade
    const c = Check.collector()
    const data = encodeFunctionData({ abi: FACADE_ABI, functionName: "discoveryURI" })
    yield* onChains(ids, c, (chain) =>
      Effect.gen(function*() {
        const outcome = yield* chain.call({ to: facade, data })
        let uri: string | undefined
        if (outcome._tag === "Returned") {
          try {
            uri = decodeFunctionResult({ abi: FACADE_ABI, functionName: "discoveryURI", data: outcome.data })
          } catch {
            uri = undefined
          }
        }
        if (uri === undefined) {
          c.add({
            title: `discoveryURI() of the facade ${facade} on chain ${chain.chainId} does not answer a string`,
            expected: String(doc.discoveryURI),
            actual: describeOutcome(outcome)
          })
        } else if (uri !== doc.discoveryURI) {
          c.add({
            title:
              `the facade on chain ${chain.chainId} points scanners at another URL than the document's discoveryURI`,
            expected: String(doc.discoveryURI),
            actual: uri
          })
        }
      }))
  })
})

// ---------------------------------------------------------------------------
// The router verifies permits
// ---------------------------------------------------------------------------

/** The envelope of a permit answer with its permit in ABI form, or a skip when none was issued. */
const issuedEnvelope = (p: IssuedPermit) =>
  Effect.map(envelopeOf(p), ({ envelope, permit }) => ({
    envelope,
    permit: permit as unknown as PermitAbi.AbiPermit
  }))

const fillDirectCall = (permit: PermitAbi.AbiPermit, signature: string) => {
  try {
    return Result.succeed(PermitAbi.encodeFillDirect(permit, signature))
  } catch (e) {
    return Result.fail(String((e as Error).message))
  }
}

/** Native value a fillDirect of the permit carries. */
const valueOf = (permit: PermitAbi.AbiPermit) =>
  sameAddress(permit.sourceAsset, zeroAddress) ? BigInt(permit.amountInRaw) : 0n

/**
 * Whether a fillDirect outcome is the one of a good permit: it returned the
 * fillId, or it reverted only because the payer lacks the source funds
 * (`TokenTransferFailed(sourceAsset)`, or the node's insufficient funds for a
 * native source).
 */
const acceptedOutcome = (outcome: CallOutcome, permit: PermitAbi.AbiPermit): boolean => {
  if (outcome._tag === "Returned") {
    return outcome.data.length === 66 && outcome.data.toLowerCase() === String(permit.fillId).toLowerCase()
  }
  const r = outcome.revert
  return (r.name === "TokenTransferFailed" && sameAddress(r.args[0], permit.sourceAsset)) ||
    (sameAddress(permit.sourceAsset, zeroAddress) && r.name === undefined && /insufficient funds/i.test(r.message))
}

const refusedWith = (outcome: CallOutcome, names: ReadonlyArray<string>) =>
  outcome._tag === "Reverted" && outcome.revert.name !== undefined && names.includes(outcome.revert.name)

/** Waits until the chain's latest block is at `validAfter` or later (a fresh permit may be ahead of the chain). */
const untilChainTime = (chain: ChainAccess, validAfter: bigint, budgetMs: number) =>
  Effect.gen(function*() {
    const deadline = (yield* Clock.currentTimeMillis) + budgetMs
    for (;;) {
      const block = yield* chain.read("the latest block", (client) => client.getBlock({ blockTag: "latest" }))
      if (block.timestamp >= validAfter) return
      if ((yield* Clock.currentTimeMillis) > deadline) {
        return yield* new Check.Inconclusive({
          reason: `chain ${chain.chainId} did not reach the permit's validAfter ${validAfter} within ${
            Math.round(budgetMs / 1000)
          } s (latest block at ${block.timestamp})`
        })
      }
      yield* Effect.sleep(500)
    }
  })

/** An address that is not the router (for the re-routed copy of a permit). */
const otherThan = (router: string): Hex => getAddress(`0x${keccak256(router.toLowerCase() as Hex).slice(-40)}`)

const routerVerifies = Check.make<Env>({
  name: "chain_router_verifies_permit",
  group: "chain",
  title:
    "the router of an issued permit (its sourceRouter, the route's, the execution target) verifies it on chain: permitDigest equals, fillDirect from the payer passes or lacks only funds, a tampered or re-routed copy is refused",
  reference:
    "spec §1.5-1.6 (one fillDirect on the source router); §5.4 (EIP-712 under the router's domain); docs/protocol.md, permitDigest and permitSignature; contracts: SvcMainnetRouterV6 (checks, custom errors)",
  createsPermit: true,
  needs: ["rpc"],
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const chains = yield* Chains
    const options = yield* Options
    const p = yield* shared.issuedPermit
    const { envelope, permit } = yield* issuedEnvelope(p)
    const chainId = Number(permit.sourceChainId)
    if (!chains.ids.includes(chainId)) {
      return yield* new Check.Skip({ reason: `no --rpc for the permit's source chain ${String(permit.sourceChainId)}` })
    }
    const chain = yield* chains.chain(chainId)
    const router = permit.sourceRouter
    const signature = String(envelope.permitSignature)
    // a permit without an ABI encoding is reported by permit_payload_roundtrip; from here on its fields are well formed
    const encodable = fillDirectCall(permit, signature)
    if (Result.isFailure(encodable)) {
      return yield* Check.fail(
        failure(p.exchange, "the permit has no fillDirect encoding", "an ABI-encodable permit", encodable.failure)
      )
    }
    yield* Check.detail("chainId", String(chainId))
    yield* Check.detail("router", String(router))
    yield* Check.detail("fillId", String(permit.fillId))
    const c = Check.collector()
    const named: Array<[string, unknown]> = [
      ["the route's sourceRouter", p.route.sourceRouter],
      ["the envelope's execution.target", obj(envelope.execution).target]
    ]
    const onchain = yield* Effect.option(onchainDocument)
    if (onchain._tag === "Some" && chainList(onchain.value.value.chains).includes(chainId)) {
      named.push(["the on-chain discovery document's router", onchain.value.value.router])
    }
    for (const [where, address] of named) {
      if (!sameAddress(address, router)) {
        c.add(failure(p.exchange, `${where} is not the permit's sourceRouter`, String(router), String(address)))
      }
    }
    if (!isAddress(router) || (yield* codeAt(chain, router)) === "0x") {
      c.add(
        failure(
          p.exchange,
          `the permit's router ${String(router)} has no code on chain ${chainId}`,
          "the deployed router",
          "no code"
        )
      )
      return yield* c.done
    }
    yield* untilChainTime(chain, BigInt(permit.validAfter), options.timeoutSeconds * 1000)

    // the digest the router computes under its own EIP-712 domain (a view of the reference router)
    const digest = yield* chain.call({ to: router, data: encodePermitDigestCall(permit) })
    if (digest._tag === "Returned" && digest.data.length === 66) {
      const [onChain] = decodeAbiParameters([{ type: "bytes32" }], digest.data)
      yield* Check.detail("permitDigest", onChain)
      if (onChain.toLowerCase() !== String(envelope.permitDigest).toLowerCase()) {
        c.add(failure(
          p.exchange,
          "the router's permitDigest(permit) is not the envelope's permitDigest: the permit is signed for another router or chain",
          String(envelope.permitDigest),
          onChain
        ))
      }
    } else {
      yield* Check.detail("permitDigest", `no permitDigest view (${describeOutcome(digest)}); judged by fillDirect`)
    }

    const attempt = (variant: PermitAbi.AbiPermit) =>
      Effect.gen(function*() {
        const data = fillDirectCall(variant, signature)
        if (Result.isFailure(data)) {
          return yield* Check.fail(
            failure(p.exchange, "the permit has no fillDirect encoding", "an ABI-encodable permit", data.failure)
          )
        }
        return yield* chain.call({
          from: variant.payer as Hex,
          to: router,
          data: data.success,
          value: valueOf(variant)
        })
      })

    const good = yield* attempt(permit)
    yield* Check.detail("issued", describeOutcome(good))
    if (!acceptedOutcome(good, permit)) {
      c.add(failure(
        p.exchange,
        `the router refuses the issued permit (eth_call fillDirect from the payer on chain ${chainId})`,
        `it returns the fillId, or reverts TokenTransferFailed(${
          String(permit.sourceAsset)
        }) for lack of balance or allowance`,
        describeOutcome(good)
      ))
    }
    const tampered = { ...permit, amountOutRaw: (BigInt(permit.amountOutRaw) + 1n).toString() }
    const tamperedOutcome = yield* attempt(tampered)
    yield* Check.detail("tampered", describeOutcome(tamperedOutcome))
    if (!refusedWith(tamperedOutcome, ["InvalidPermitSignature"])) {
      c.add(failure(
        p.exchange,
        "the router does not refuse the permit with amountOutRaw + 1 under the same signature",
        "revert InvalidPermitSignature(recovered)",
        describeOutcome(tamperedOutcome)
      ))
    }
    const rerouted = { ...permit, sourceRouter: otherThan(router) }
    const reroutedOutcome = yield* attempt(rerouted)
    yield* Check.detail("rerouted", describeOutcome(reroutedOutcome))
    if (!refusedWith(reroutedOutcome, ["WrongSourceRouter", "InvalidPermitSignature"])) {
      c.add(failure(
        p.exchange,
        "the router does not refuse a copy of the permit naming another sourceRouter",
        "revert WrongSourceRouter(permitRouter) or InvalidPermitSignature(recovered)",
        describeOutcome(reroutedOutcome)
      ))
    }
    yield* c.done
  })
})

// ---------------------------------------------------------------------------
// --execute: one real fill
// ---------------------------------------------------------------------------

const TERMINAL_FAILURES = ["FAILED", "EXPIRED"]

/** A balance of `asset` (the zero address: the native coin) at a block (default: latest). */
const balanceOf = (chain: ChainAccess, asset: Hex, owner: Hex, blockNumber?: bigint) =>
  chain.read(`the balance of ${owner}`, (client) =>
    sameAddress(asset, zeroAddress)
      ? client.getBalance({ address: owner, ...(blockNumber === undefined ? {} : { blockNumber }) })
      : client.readContract({
        address: asset,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [owner],
        ...(blockNumber === undefined ? {} : { blockNumber })
      }))

/** The native balance of an account (its gas). */
const gasOf = (chain: ChainAccess, owner: Hex) =>
  chain.read(`the native balance of ${owner}`, (client) => client.getBalance({ address: owner }))

/** Whether the recipient's destination balance moves only by the payout (not also by paying the fill). */
const isolated = (route: Route) =>
  route.sourceChainId !== route.destinationChainId ||
  (!sameAddress(route.sourceAsset, route.destinationAsset) && !sameAddress(route.destinationAsset, zeroAddress))

const executeFill = Check.make<Env>({
  name: "chain_execute_fill",
  group: "chain",
  title:
    "--execute: one real fill of an open route the wallet can pay (permit, approval, fillDirect) reaches PAID, and the recipient's destination balance rises by exactly amountOutRaw",
  reference:
    "spec §1.5-1.6 (a permit executes with one fillDirect; the solver pays amountOutRaw on the destination chain); docs/settlement.md, The lifecycle",
  createsPermit: true,
  needs: ["rpc", "execute"],
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const chains = yield* Chains
    const options = yield* Options
    const wallet = shared.wallet.address as Hex
    const budgetMs = options.executeTimeoutSeconds * 1000
    if (options.walletKeyGenerated) {
      return yield* new Check.Inconclusive({ reason: "--execute needs the --wallet-key of a funded wallet" })
    }

    // 1. an open route between --rpc chains whose source token the wallet holds
    const feed = yield* shared.freshFeed
    const candidates = feed.routes.filter((r) =>
      r.open === true && r.sourceRouter !== null && r.sourceAsset !== null && r.destinationAsset !== null &&
      r.sourceChainId !== null && r.destinationChainId !== null && chains.ids.includes(Number(r.sourceChainId)) &&
      chains.ids.includes(Number(r.destinationChainId)) && isolated(r)
    )
    const looked: Array<string> = []
    let chosen: { route: Route; source: ChainAccess; destination: ChainAccess } | undefined
    for (const route of candidates) {
      const source = yield* chains.chain(Number(route.sourceChainId))
      const destination = yield* chains.chain(Number(route.destinationChainId))
      const held = yield* balanceOf(source, route.sourceAsset as Hex, wallet)
      const gas = yield* gasOf(source, wallet)
      const label = `${route.sourceChainId} ${route.sourceAsset} -> ${route.destinationChainId}`
      if (held < BigInt(route.minimumFillInRaw)) {
        looked.push(`${label}: holds ${held} < minimumFillInRaw ${route.minimumFillInRaw}`)
      } else if (gas === 0n) {
        looked.push(`${label}: no native coin for gas on ${route.sourceChainId}`)
      } else {
        chosen = { route, source, destination }
        break
      }
    }
    if (chosen === undefined) {
      return yield* new Check.Inconclusive({
        reason: candidates.length === 0
          ? `the feed has no open route between the --rpc chains ${chains.ids.join(", ")}`
          : `the wallet ${wallet} cannot pay any open route between the --rpc chains: ${looked.join("; ")}`
      })
    }
    const { route, source, destination } = chosen
    yield* Check.detail("routeId", route.routeId)

    // 2. the permit, through the harness's permit request
    const request = signRequest(permitRequestFor(route, shared.wallet, shared.newKey()), shared.wallet.key)
    const created = yield* send({ method: "POST", path: PERMITS, json: request })
    yield* expectStatus(created, 201, `POST ${PERMITS} (the permit of the fill)`)
    const body = yield* Check.expectSchema(
      ExecutionPermitResponse,
      Exchange.json(created),
      "the permit response",
      created
    )
    const envelope = body.permit
    const permit = envelope.permit
    const router = permit.sourceRouter as Hex
    const amountIn = BigInt(permit.amountInRaw)
    const amountOut = BigInt(permit.amountOutRaw)
    yield* Check.detail("fillId", envelope.fillId)
    yield* Check.detail("amountInRaw", permit.amountInRaw)
    yield* Check.detail("amountOutRaw", permit.amountOutRaw)
    if (!sameAddress(router, route.sourceRouter) || !sameAddress(permit.payer, wallet)) {
      return yield* Check.fail(failure(
        created,
        "the permit of the fill does not bind the route's router and the wallet",
        `sourceRouter ${route.sourceRouter}, payer ${wallet}`,
        `sourceRouter ${permit.sourceRouter}, payer ${permit.payer}`
      ))
    }
    const recipient = permit.recipient as Hex
    const destinationAsset = permit.destinationAsset as Hex
    const before = yield* balanceOf(destination, destinationAsset, recipient)
    yield* Check.detail("recipientBalanceBefore", before.toString())

    // 3. the approval, when the router may not yet take amountInRaw
    const signer = yield* chains.wallet(source.chainId)
    const sent = (what: string, hash: Hex) =>
      Effect.gen(function*() {
        const receipt = yield* source.read(
          `the receipt of ${what} ${hash}`,
          (client) => client.waitForTransactionReceipt({ hash, timeout: budgetMs, pollingInterval: 500 })
        )
        if (receipt.status !== "success") {
          return yield* Check.fail({
            title: `the ${what} transaction reverted on chain ${source.chainId}`,
            expected: "status success",
            actual: `${hash}: ${receipt.status}`
          })
        }
        return receipt
      })
    const transact = (what: string, submit: () => Promise<Hex>) =>
      Effect.tryPromise({
        try: submit,
        catch: (e) =>
          new Check.Inconclusive({ reason: `chain ${source.chainId}: sending the ${what}: ${describeError(e)}` })
      })
    if (!sameAddress(permit.sourceAsset, zeroAddress)) {
      const allowance = yield* source.read("the allowance", (client) =>
        client.readContract({
          address: permit.sourceAsset as Hex,
          abi: erc20Abi,
          functionName: "allowance",
          args: [wallet, router]
        }))
      if (allowance < amountIn) {
        const hash = yield* transact("approval", () =>
          signer.writeContract({
            address: permit.sourceAsset as Hex,
            abi: erc20Abi,
            functionName: "approve",
            args: [router, amountIn]
          }))
        yield* Check.detail("approvalTx", hash)
        yield* sent("approval", hash)
      }
    }

    // 4. fillDirect: first as eth_call (a refusal is decoded, nothing is sent), then for real
    const data = PermitAbi.encodeFillDirect(permit, envelope.permitSignature)
    const value = valueOf(permit)
    yield* untilChainTime(source, BigInt(permit.validAfter), options.timeoutSeconds * 1000)
    const preflight = yield* source.call({ from: wallet, to: router, data, value })
    if (preflight._tag === "Reverted") {
      return yield* Check.fail(failure(
        created,
        `fillDirect of the issued permit reverts on chain ${source.chainId} (nothing was sent)`,
        "fillDirect succeeds for a funded, approved payer",
        describeRevert(preflight.revert)
      ))
    }
    const fillHash = yield* transact("fillDirect", () => signer.sendTransaction({ to: router, data, value }))
    yield* Check.detail("fillDirectTx", fillHash)
    yield* sent("fillDirect", fillHash)

    // 5. the permit's status until PAID
    const deadline = (yield* Clock.currentTimeMillis) + budgetMs
    let state = envelope.state
    let status: Exchange.Exchange | undefined
    let current: Json = {}
    while (state !== "PAID") {
      if (TERMINAL_FAILURES.includes(state)) {
        return yield* Check.fail(failure(
          status,
          `the permit of the fill ended ${state}`,
          "PAID",
          `state ${state}, sourceTxHash ${String(current.sourceTxHash)}, payoutTxHash ${String(current.payoutTxHash)}`
        ))
      }
      if ((yield* Clock.currentTimeMillis) > deadline) {
        return yield* Check.fail(failure(
          status,
          `the permit of the fill did not reach PAID within ${options.executeTimeoutSeconds} s (--execute-timeout)`,
          "PAID",
          // a payout that waits (for the vault, the fees, the operator) keeps the permit SOURCE_CONFIRMED or
          // PAYOUT_SUBMITTED; the public status carries no reason
          `state ${state} (fillId ${envelope.fillId}; on an svc deployment, \`svc admin permit ${envelope.fillId}\` says what it waits for)`
        ))
      }
      yield* Effect.sleep(1000)
      status = yield* send({ path: `${PERMITS}/${envelope.fillId}` })
      current = obj(asObject(Exchange.json(status))?.permit)
      if (status.response.status === 200 && typeof current.state === "string") state = current.state
    }
    yield* Check.detail("state", state)
    const c = Check.collector()
    if (String(current.sourceTxHash).toLowerCase() !== fillHash.toLowerCase()) {
      c.add(failure(status, "the paid permit names another source transaction", fillHash, String(current.sourceTxHash)))
    }

    // 6. the recipient received exactly amountOutRaw on the destination chain
    let atBlock: bigint | undefined
    if (typeof current.payoutTxHash === "string") {
      const payoutTx = current.payoutTxHash as Hex
      yield* Check.detail("payoutTx", payoutTx)
      const receipt = yield* destination.read(
        `the payout receipt ${payoutTx}`,
        (client) => client.waitForTransactionReceipt({ hash: payoutTx, timeout: budgetMs, pollingInterval: 500 })
      )
      atBlock = receipt.blockNumber
    }
    const after = yield* balanceOf(destination, destinationAsset, recipient, atBlock)
    yield* Check.detail("recipientBalanceAfter", after.toString())
    if (after - before !== amountOut) {
      c.add(failure(
        status,
        `the recipient's balance on chain ${destination.chainId} did not rise by amountOutRaw`,
        `+${amountOut} (${before} -> ${before + amountOut})`,
        `${after - before >= 0n ? "+" : ""}${after - before} (${before} -> ${after})`
      ))
    }
    yield* c.done
  })
})

/**
 * The chain checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [hasCode, codeHashes, facadeFingerprint, facadeRoutes, facadeUri, routerVerifies, executeFill]
