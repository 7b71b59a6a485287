/**
 * The whole system on two real anvils (chain ids 8453 and 56): deterministic
 * CREATE2 addresses, the discovery facade and registry, the on-chain permitDigest
 * against viem and the committed vectors (fixtures/protocol/permit-digest), and the
 * ERC-7683 and OIF modules.
 */
import { readFileSync } from "node:fs"
import {
  decodeAbiParameters,
  encodeAbiParameters,
  encodeDeployData,
  getAddress,
  hashDomain,
  hashStruct,
  type Hex,
  keccak256,
  parseEventLogs,
  stringToBytes,
  zeroAddress
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import {
  SvcERC7683ModuleV6,
  SvcMainnetRegistryV6,
  SvcMainnetRouterV6,
  SvcOIFModuleV6,
  SvcSolverDiscoveryV6,
  SvcTestToken
} from "../src/artifacts.ts"
import {
  CREATE2_FACTORY,
  create2Address,
  deploySvcSystem,
  deployToken,
  expectedRuntimeCodeHashes,
  planSystem,
  predictAddresses,
  readRuntimeCodeHashes,
  SALTS,
  SYSTEM_CONTRACTS,
  type SystemAddresses
} from "../src/Deploy.ts"
import {
  decodePreviewReason,
  encodeFillDirect,
  encodePayload,
  type ExecutionPermit,
  PERMIT_TYPES,
  permitDomain,
  RELEASE_ID
} from "../src/Permit.ts"
import {
  ACCOUNTS,
  digestOf,
  KEYS,
  label,
  makePermit,
  revertOf,
  signPermit,
  startChain,
  type TestChain
} from "./helpers.ts"

const DISCOVERY_URI = "https://solver.svc.example/.well-known/svc-solver.json"
const CONFIG = {
  authority: ACCOUNTS.authority.address,
  operator: ACCOUNTS.operator.address,
  discoveryURI: DISCOVERY_URI
} as const

let base: TestChain
let bsc: TestChain
let addresses: SystemAddresses
let token: Hex
const snapshots = new Map<TestChain, Hex>()

beforeAll(async () => {
  ;[base, bsc] = await Promise.all([startChain(8453), startChain(56)])
  const [onBase, onBsc] = await Promise.all(
    [base, bsc].map((c) => deploySvcSystem({ wallet: c.deployer, publicClient: c.publicClient }, CONFIG))
  )
  expect(onBsc!.addresses).toEqual(onBase!.addresses)
  for (const key of SYSTEM_CONTRACTS) expect(onBase!.results[key].deployed).toBe(true)
  addresses = onBase!.addresses
  token = await deployToken({ wallet: base.deployer, publicClient: base.publicClient }, {
    name: "USD Coin",
    symbol: "USDC",
    decimals: 6
  })
  for (const c of [base, bsc]) snapshots.set(c, await c.snapshot())
})

afterAll(async () => {
  await Promise.all([base?.node.stop(), bsc?.node.stop()])
})

beforeEach(async () => {
  for (const c of [base, bsc]) {
    await c.revert(snapshots.get(c)!)
    snapshots.set(c, await c.snapshot())
  }
})

const send = async (
  chain: TestChain,
  key: Hex,
  call: { address: Hex; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] }
) => {
  const wallet = chain.walletOf(key)
  const hash = await wallet.writeContract({ ...call, chain: wallet.chain, account: wallet.account } as never)
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe("success")
  return receipt
}

const ROUTE = {
  routeId: label("route base-bsc"),
  sourceNetworkId: label("network 8453"),
  sourceAssetId: label("asset usdc"),
  destinationNetworkId: label("network 56"),
  destinationAssetId: label("asset usdt"),
  executionGeneration: label("generation 1")
} as const

const registerRoute = (chain: TestChain, key: Hex = KEYS.deployer) =>
  send(chain, key, {
    address: addresses.registry,
    abi: SvcMainnetRegistryV6.abi,
    functionName: "registerRoute",
    args: [
      ROUTE.routeId,
      ROUTE.sourceNetworkId,
      ROUTE.sourceAssetId,
      ROUTE.destinationNetworkId,
      ROUTE.destinationAssetId,
      ROUTE.executionGeneration
    ]
  })

describe("deterministic deployment", () => {
  it("the six contracts have code at the same predicted CREATE2 addresses on 8453 and 56, with the compiled runtime code", async () => {
    const config = { ...CONFIG, owner: ACCOUNTS.deployer.address }
    expect(addresses).toEqual(predictAddresses(config))
    const plan = planSystem(config)
    expect(plan.facade.salt).toBe("0x1ef1dfed1bcc3525e588ba9054fcd502b8b69ae550ac3e2aa6c0f206ddf3e0ca")
    expect(plan.facade.address).toBe(create2Address(plan.facade.initCode, SALTS.facade, CREATE2_FACTORY))
    expect(new Set(Object.values(addresses)).size).toBe(6)
    for (const chain of [base, bsc]) {
      expect(await readRuntimeCodeHashes(chain.publicClient, addresses)).toEqual(expectedRuntimeCodeHashes())
    }
    // another config (another discovery URI) gives another facade address, the same code hash
    expect(predictAddresses({ ...config, discoveryURI: `${DISCOVERY_URI}?v=2` }).facade).not.toBe(addresses.facade)
  })

  it("deploySvcSystem is idempotent: a second run sends nothing and returns the same addresses", async () => {
    const blockBefore = await base.publicClient.getBlockNumber()
    const again = await deploySvcSystem({ wallet: base.deployer, publicClient: base.publicClient }, CONFIG)
    expect(again.addresses).toEqual(addresses)
    for (const key of SYSTEM_CONTRACTS) {
      expect(again.results[key]).toMatchObject({ deployed: false, transactionHash: undefined })
    }
    expect(await base.publicClient.getBlockNumber()).toBe(blockBefore)
  })
})

describe("SvcSolverDiscoveryV6 and SvcMainnetRegistryV6", () => {
  const facadeRead = <
    F extends
      | "discoveryURI"
      | "isLive"
      | "systemState"
      | "routeCount"
      | "registry"
      | "router"
      | "chainId"
      | "RELEASE_ID"
      | "DEPLOYMENT_VERSION"
  >(
    chain: TestChain,
    functionName: F
  ) => chain.publicClient.readContract({ address: addresses.facade, abi: SvcSolverDiscoveryV6.abi, functionName })

  it("discoveryURI, isLive and systemState report the configuration on both chains", async () => {
    for (const chain of [base, bsc]) {
      await registerRoute(chain)
      expect(await facadeRead(chain, "discoveryURI")).toBe(DISCOVERY_URI)
      expect(await facadeRead(chain, "isLive")).toBe(true)
      expect(await facadeRead(chain, "systemState")).toEqual([
        BigInt(chain.chain.id),
        RELEASE_ID,
        addresses.registry,
        addresses.router,
        1n,
        true
      ])
      expect(await facadeRead(chain, "chainId")).toBe(BigInt(chain.chain.id))
      expect(await facadeRead(chain, "registry")).toBe(addresses.registry)
      expect(await facadeRead(chain, "router")).toBe(addresses.router)
      expect(await facadeRead(chain, "RELEASE_ID")).toBe(
        "0xb5115358e9045400030f2f70150cdb65f2fa9bbb8def79319cf4caac9c3490da"
      )
      expect(await facadeRead(chain, "DEPLOYMENT_VERSION")).toBe(6n)
    }
  })

  it("isLive turns false when intake is off, and for a facade whose router is not a router", async () => {
    await send(base, KEYS.deployer, {
      address: addresses.router,
      abi: SvcMainnetRouterV6.abi,
      functionName: "setSourceIntakeEnabled",
      args: [false]
    })
    expect(await facadeRead(base, "isLive")).toBe(false)
    expect((await facadeRead(base, "systemState"))[5]).toBe(false)
    expect(await facadeRead(bsc, "isLive")).toBe(true)

    // a facade pointing at an address without code, and one whose router names another registry
    const deploy = async (router: Hex, registry: Hex) => {
      const hash = await base.deployer.sendTransaction({
        account: base.deployer.account,
        chain: base.deployer.chain,
        data: encodeDeployData({
          abi: SvcSolverDiscoveryV6.abi,
          bytecode: SvcSolverDiscoveryV6.bytecode,
          args: [registry, router, "x"]
        })
      })
      return getAddress((await base.publicClient.waitForTransactionReceipt({ hash })).contractAddress!)
    }
    for (
      const facade of [
        await deploy("0x000000000000000000000000000000000000dEaD", addresses.registry),
        await deploy(addresses.router, addresses.vault)
      ]
    ) {
      expect(
        await base.publicClient.readContract({ address: facade, abi: SvcSolverDiscoveryV6.abi, functionName: "isLive" })
      ).toBe(false)
    }
  })

  it("registered routes are listed by the registry and the facade; status 2 makes a route executable", async () => {
    const receipt = await registerRoute(base)
    const events = parseEventLogs({ abi: SvcMainnetRegistryV6.abi, logs: receipt.logs })
    expect(events.map((e) => e.eventName)).toEqual(["RouteRegisteredV6", "RouteStatusChangedV6"])
    expect(events[0]!.args).toEqual({
      routeId: ROUTE.routeId,
      sourceNetworkId: ROUTE.sourceNetworkId,
      destinationNetworkId: ROUTE.destinationNetworkId,
      sourceAssetId: ROUTE.sourceAssetId,
      destinationAssetId: ROUTE.destinationAssetId
    })
    expect(events[1]!.args).toEqual({
      routeId: ROUTE.routeId,
      previousStatus: 0,
      status: 1,
      actor: ACCOUNTS.deployer.address,
      generation: 1n
    })

    const route = () =>
      base.publicClient.readContract({
        address: addresses.facade,
        abi: SvcSolverDiscoveryV6.abi,
        functionName: "route",
        args: [ROUTE.routeId]
      })
    const described = [
      ROUTE.sourceNetworkId,
      ROUTE.sourceAssetId,
      ROUTE.destinationNetworkId,
      ROUTE.destinationAssetId,
      ROUTE.executionGeneration
    ]
    expect(await route()).toEqual([...described, 1, false])
    expect(
      await base.publicClient.readContract({
        address: addresses.facade,
        abi: SvcSolverDiscoveryV6.abi,
        functionName: "routeCount"
      })
    ).toBe(1n)
    expect(
      await base.publicClient.readContract({
        address: addresses.facade,
        abi: SvcSolverDiscoveryV6.abi,
        functionName: "routeAt",
        args: [0n]
      })
    ).toBe(ROUTE.routeId)

    const activated = await send(base, KEYS.deployer, {
      address: addresses.registry,
      abi: SvcMainnetRegistryV6.abi,
      functionName: "setRouteStatus",
      args: [ROUTE.routeId, 2]
    })
    const [changed] = parseEventLogs({
      abi: SvcMainnetRegistryV6.abi,
      logs: activated.logs,
      eventName: "RouteStatusChangedV6"
    })
    expect(changed!.args).toEqual({
      routeId: ROUTE.routeId,
      previousStatus: 1,
      status: 2,
      actor: ACCOUNTS.deployer.address,
      generation: 2n
    })
    expect(await route()).toEqual([...described, 2, true])
    const registryRead = (functionName: "isRouteExecutable" | "routeStatus" | "executionGeneration") =>
      base.publicClient.readContract({
        address: addresses.registry,
        abi: SvcMainnetRegistryV6.abi,
        functionName,
        args: [ROUTE.routeId]
      })
    expect(await registryRead("isRouteExecutable")).toBe(true)
    expect(await registryRead("routeStatus")).toBe(2)
    expect(await registryRead("executionGeneration")).toBe(ROUTE.executionGeneration)
    expect(
      await base.publicClient.readContract({
        address: addresses.registry,
        abi: SvcMainnetRegistryV6.abi,
        functionName: "getRoute",
        args: [ROUTE.routeId]
      })
    ).toEqual({
      routeId: ROUTE.routeId,
      sourceNetworkId: ROUTE.sourceNetworkId,
      sourceAssetId: ROUTE.sourceAssetId,
      destinationNetworkId: ROUTE.destinationNetworkId,
      destinationAssetId: ROUTE.destinationAssetId
    })

    // an unknown route: the registry answers routeId 0, the facade refuses
    const unknown = await revertOf(
      base.publicClient.readContract({
        address: addresses.facade,
        abi: SvcSolverDiscoveryV6.abi,
        functionName: "route",
        args: [label("unknown")]
      })
    )
    expect(unknown.name).toBe("InvalidPublicDiscoveryConfiguration")
    // the other chain's registry is separate
    expect(
      await bsc.publicClient.readContract({
        address: addresses.facade,
        abi: SvcSolverDiscoveryV6.abi,
        functionName: "routeCount"
      })
    ).toBe(0n)
  })

  it("registry changes are owner-only and checked", async () => {
    const call = (functionName: string, args: readonly unknown[], key: Hex = KEYS.deployer) => {
      const wallet = base.walletOf(key)
      return revertOf(
        wallet.writeContract(
          {
            address: addresses.registry,
            abi: SvcMainnetRegistryV6.abi,
            functionName,
            args,
            chain: wallet.chain,
            account: wallet.account
          } as never
        )
      )
    }
    expect(
      await call("registerRoute", [
        ROUTE.routeId,
        ROUTE.sourceNetworkId,
        ROUTE.sourceAssetId,
        ROUTE.destinationNetworkId,
        ROUTE.destinationAssetId,
        ROUTE.executionGeneration
      ], KEYS.other)
    )
      .toEqual({ name: "NotOwner", args: [ACCOUNTS.other.address] })
    expect(await call("setRouteStatus", [ROUTE.routeId, 2])).toEqual({
      name: "RouteNotRegistered",
      args: [ROUTE.routeId]
    })
    await registerRoute(base)
    expect(
      (await call("registerRoute", [
        ROUTE.routeId,
        ROUTE.sourceNetworkId,
        ROUTE.sourceAssetId,
        ROUTE.destinationNetworkId,
        ROUTE.destinationAssetId,
        ROUTE.executionGeneration
      ])).name
    )
      .toBe("RouteAlreadyRegistered")
    expect(
      (await call("registerRoute", [
        `0x${"00".repeat(32)}`,
        ROUTE.sourceNetworkId,
        ROUTE.sourceAssetId,
        ROUTE.destinationNetworkId,
        ROUTE.destinationAssetId,
        ROUTE.executionGeneration
      ])).name
    )
      .toBe("ZeroRouteId")
    expect(await call("setRouteStatus", [ROUTE.routeId, 3])).toEqual({ name: "InvalidRouteStatus", args: [3] })
    expect(await call("setRouteStatus", [ROUTE.routeId, 2], KEYS.other)).toEqual({
      name: "NotOwner",
      args: [ACCOUNTS.other.address]
    })
    expect(
      await revertOf(
        base.publicClient.readContract({
          address: addresses.registry,
          abi: SvcMainnetRegistryV6.abi,
          functionName: "routeAt",
          args: [1n]
        })
      )
    ).toEqual({ name: "RouteIndexOutOfRange", args: [1n, 1n] })

    const networkId = label("network 8453")
    const nativeAssetId = label("asset native")
    const read = () =>
      base.publicClient.readContract({
        address: addresses.registry,
        abi: SvcMainnetRegistryV6.abi,
        functionName: "localAssetAddress",
        args: [networkId, nativeAssetId]
      })
    expect(await read()).toEqual([zeroAddress, false])
    const set = await send(base, KEYS.deployer, {
      address: addresses.registry,
      abi: SvcMainnetRegistryV6.abi,
      functionName: "setLocalAssetAddress",
      args: [networkId, nativeAssetId, zeroAddress]
    })
    expect(await read()).toEqual([zeroAddress, true])
    expect(
      parseEventLogs({ abi: SvcMainnetRegistryV6.abi, logs: set.logs, eventName: "LocalAssetAddressSetV6" })[0]!.args
    )
      .toEqual({ networkId, assetId: nativeAssetId, localAddress: zeroAddress, generation: 2n })
    expect(await call("setLocalAssetAddress", [networkId, nativeAssetId, token], KEYS.other)).toEqual({
      name: "NotOwner",
      args: [ACCOUNTS.other.address]
    })
    expect(
      await base.publicClient.readContract({
        address: addresses.registry,
        abi: SvcMainnetRegistryV6.abi,
        functionName: "generation"
      })
    ).toBe(2n)
  })
})

interface Vector {
  readonly id: string
  readonly permit?: Record<string, unknown>
  readonly domainSeparator?: Hex
  readonly structHash?: Hex
  readonly permitDigest?: Hex
  readonly permitSignature?: Hex
  readonly authority?: Hex
  readonly signingKey?: Hex
  readonly valid?: boolean
  readonly typehash?: Hex
  readonly fields?: ReadonlyArray<{ name: string; type: string }>
}
const VECTORS = (JSON.parse(
  readFileSync(new URL("../../../fixtures/protocol/permit-digest/vectors.json", import.meta.url), "utf8")
) as { cases: Array<Vector> }).cases
const vector = (id: string): Vector => VECTORS.find((v) => v.id === id)!

interface AbiVector {
  readonly id: string
  readonly permit?: Record<string, unknown>
  readonly permitSignature?: Hex
  readonly payload?: Hex
  readonly fillDirectCalldata?: Hex
  readonly previewFillDirectCalldata?: Hex
}
const ABI_VECTORS =
  (JSON.parse(readFileSync(new URL("../../../fixtures/protocol/abi/vectors.json", import.meta.url), "utf8")) as {
    cases: Array<AbiVector>
  }).cases

/** The vector's JSON permit as the viem tuple (the JSON-only fields dropped). */
const tupleOf = (json: Record<string, unknown>): ExecutionPermit =>
  Object.fromEntries(
    PERMIT_TYPES.ExecutionPermit.map(({ name, type }) => {
      const value = json[name]
      if (type === "uint32") return [name, Number(value)]
      if (type.startsWith("uint")) return [name, BigInt(value as string)]
      // hex case carries no meaning (vector hex-case-not-covered); viem wants valid checksums or lowercase
      return [name, (value as string).toLowerCase()]
    })
  ) as unknown as ExecutionPermit

/**
 * Puts the router's runtime code at `at` (a vector's verifyingContract) with the
 * storage of a router deployed normally for `authority`.
 */
const routerAt = async (chain: TestChain, at: Hex, authority: Hex) => {
  const hash = await chain.deployer.sendTransaction({
    account: chain.deployer.account,
    chain: chain.deployer.chain,
    data: encodeDeployData({
      abi: SvcMainnetRouterV6.abi,
      bytecode: SvcMainnetRouterV6.bytecode,
      args: [ACCOUNTS.deployer.address, authority, addresses.registry]
    })
  })
  const template = getAddress((await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!)
  await chain.testClient.setCode({ address: at, bytecode: SvcMainnetRouterV6.deployedBytecode })
  for (let slot = 0; slot < 8; slot++) {
    const value = await chain.publicClient.getStorageAt({ address: template, slot: `0x${slot.toString(16)}` })
    if (value !== undefined) await chain.testClient.setStorageAt({ address: at, index: slot, value })
  }
  return at
}

describe("permitDigest on chain", () => {
  it("equals viem's EIP-712 hashTypedData for the 31-field type; hashPermit and domainSeparator equal viem's parts", async () => {
    expect(PERMIT_TYPES.ExecutionPermit).toEqual(vector("type").fields)
    const now = await base.latestTimestamp()
    for (
      const overrides of [{}, {
        sourceAsset: zeroAddress,
        amountInRaw: 2n ** 128n - 1n,
        validUntil: 2n ** 64n - 1n,
        sourceFinalityBlocks: 2 ** 32 - 1
      }]
    ) {
      const permit = makePermit({
        chainId: 8453n,
        router: addresses.router,
        vault: addresses.vault,
        sourceAsset: token,
        payer: ACCOUNTS.payer.address,
        now
      }, overrides)
      const read = (functionName: "permitDigest" | "hashPermit") =>
        base.publicClient.readContract({
          address: addresses.router,
          abi: SvcMainnetRouterV6.abi,
          functionName,
          args: [permit]
        })
      expect(await read("permitDigest")).toBe(digestOf(permit))
      expect(await read("hashPermit")).toBe(
        hashStruct({ data: permit, primaryType: "ExecutionPermit", types: PERMIT_TYPES })
      )
    }
    expect(
      await base.publicClient.readContract({
        address: addresses.router,
        abi: SvcMainnetRouterV6.abi,
        functionName: "domainSeparator"
      })
    )
      .toBe(hashDomain({
        domain: permitDomain(8453n, addresses.router),
        types: {
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "version", type: "string" },
            { name: "chainId", type: "uint256" },
            { name: "verifyingContract", type: "address" }
          ]
        }
      }))
  })

  it("a router at the base-bsc vector's verifyingContract computes the committed digests and accepts exactly the valid signatures", async () => {
    const first = vector("base-bsc")
    const router = await routerAt(base, first.permit!["sourceRouter"] as Hex, first.authority!)
    expect(
      await base.publicClient.readContract({
        address: router,
        abi: SvcMainnetRouterV6.abi,
        functionName: "domainSeparator"
      })
    ).toBe(first.domainSeparator)
    // inside the vectors' window [2000000000, 2000000120)
    await base.testClient.setNextBlockTimestamp({ timestamp: 2_000_000_000n })
    await base.testClient.mine({ blocks: 1 })

    const checked = VECTORS.filter((v) =>
      v.permit !== undefined && v.permitDigest !== undefined && v.permit["sourceChainId"] === "8453"
    )
    expect(checked.map((v) => v.id)).toEqual([
      "base-bsc",
      "base-solana",
      "json-only-fields-not-covered",
      "hex-case-not-covered",
      "tuple-field-covered"
    ])
    for (const v of checked) {
      const permit = tupleOf(v.permit!)
      const read = (functionName: "permitDigest" | "hashPermit") =>
        base.publicClient.readContract({ address: router, abi: SvcMainnetRouterV6.abi, functionName, args: [permit] })
      expect(await read("hashPermit"), v.id).toBe(v.structHash)
      expect(await read("permitDigest"), v.id).toBe(v.permitDigest)
      expect(digestOf(permit), v.id).toBe(v.permitDigest)
      const [valid, reason] = await base.publicClient.readContract({
        address: router,
        abi: SvcMainnetRouterV6.abi,
        functionName: "previewFillDirect",
        args: [permit, v.permitSignature!],
        account: getAddress(permit.payer)
      })
      expect([valid, decodePreviewReason(reason)], v.id).toEqual(
        v.valid === true ? [true, ""] : [false, "InvalidPermitSignature"]
      )
    }

    // the committed previewFillDirect calldata bytes of fixtures/protocol/abi, sent raw
    const abiVector = ABI_VECTORS.find((c) => c.id === "base-bsc")!
    const { data } = await base.publicClient.call({
      to: router,
      data: abiVector.previewFillDirectCalldata!,
      account: getAddress(first.permit!["payer"] as Hex)
    })
    expect(data).toBe(encodeAbiParameters([{ type: "bool" }, { type: "bytes32" }], [true, `0x${"00".repeat(32)}`]))
  })

  it("the standard payloads of fixtures/protocol/abi: encodings, ERC-7683 calldata and OIF mandate on chain", async () => {
    const cases = ABI_VECTORS.filter((c) => c.payload !== undefined)
    expect(cases.map((c) => c.id)).toEqual(["base-bsc", "bsc-hyperevm-native-extremes", "base-solana"])
    for (const c of cases) {
      const permit = tupleOf(c.permit!)
      expect(encodePayload(permit, c.permitSignature!), c.id).toBe(c.payload)
      expect(encodeFillDirect(permit, c.permitSignature!), c.id).toBe(c.fillDirectCalldata)
      const mandate = await base.publicClient.readContract({
        address: addresses.oifModule,
        abi: SvcOIFModuleV6.abi,
        functionName: "describeMandate",
        args: [c.payload!]
      })
      expect(mandate.chainId, c.id).toBe(permit.destinationChainId)
      expect(mandate.amount, c.id).toBe(permit.amountOutRaw)
      expect(mandate.context, c.id).toBe(encodeContext(permit))
    }
    // an ERC-7683 module bound to the vectors' Base router resolves the committed fillDirect calldata
    const baseBsc = cases[0]!
    const hash = await base.deployer.sendTransaction({
      account: base.deployer.account,
      chain: base.deployer.chain,
      data: encodeDeployData({
        abi: SvcERC7683ModuleV6.abi,
        bytecode: SvcERC7683ModuleV6.bytecode,
        args: [baseBsc.permit!["sourceRouter"] as Hex]
      })
    })
    const module = getAddress((await base.publicClient.waitForTransactionReceipt({ hash })).contractAddress!)
    const execution = await base.publicClient.readContract({
      address: module,
      abi: SvcERC7683ModuleV6.abi,
      functionName: "resolveExecution",
      args: [baseBsc.payload!]
    })
    expect(execution.callData).toBe(baseBsc.fillDirectCalldata)
    expect(execution.target).toBe(getAddress(baseBsc.permit!["sourceRouter"] as Hex))
  })

  it("the native-coin vector with range extremes passes fillDirect on chain 56 with its committed signature", async () => {
    const v = vector("bsc-hyperevm-native-extremes")
    const permit = tupleOf(v.permit!)
    const router = await routerAt(bsc, permit.sourceRouter, v.authority!)
    expect(
      await bsc.publicClient.readContract({
        address: router,
        abi: SvcMainnetRouterV6.abi,
        functionName: "permitDigest",
        args: [permit]
      })
    ).toBe(v.permitDigest)

    // the payer is the fixture's second public test key (funded on this local chain only)
    expect(privateKeyToAccount(keccak256(stringToBytes("SVC FIXTURE KEY 2 - NEVER FUND"))).address).toBe(
      getAddress(permit.payer)
    )
    await bsc.testClient.setBalance({ address: permit.payer, value: 2n ** 129n })
    const preview = await bsc.publicClient.readContract({
      address: router,
      abi: SvcMainnetRouterV6.abi,
      functionName: "previewFillDirect",
      args: [permit, v.permitSignature!],
      account: getAddress(permit.payer)
    })
    expect(preview).toEqual([true, `0x${"00".repeat(32)}`])
    // amountInRaw is 2^128 - 1 wei: anvil refuses to mine a transaction with that value
    // (its transaction pool reports insufficient funds), but executes it in eth_call,
    // including the forward of the whole amount to the vault
    const { result } = await bsc.publicClient.simulateContract({
      address: router,
      abi: SvcMainnetRouterV6.abi,
      functionName: "fillDirect",
      args: [permit, v.permitSignature!],
      value: permit.amountInRaw,
      account: getAddress(permit.payer)
    })
    expect(result).toBe(permit.fillId)
    const short = await revertOf(bsc.publicClient.simulateContract({
      address: router,
      abi: SvcMainnetRouterV6.abi,
      functionName: "fillDirect",
      args: [permit, v.permitSignature!],
      value: permit.amountInRaw - 1n,
      account: getAddress(permit.payer)
    }))
    expect(short).toEqual({ name: "NativeValueMismatch", args: [permit.amountInRaw, permit.amountInRaw - 1n] })
  })
})

describe("standard modules", () => {
  const signedPayload = async (overrides: Partial<ExecutionPermit> = {}) => {
    const permit = makePermit(
      {
        chainId: 8453n,
        router: addresses.router,
        vault: addresses.vault,
        sourceAsset: token,
        payer: ACCOUNTS.payer.address,
        now: await base.latestTimestamp()
      },
      overrides
    )
    const signature = await signPermit(permit, KEYS.authority)
    return { permit, signature, payload: encodePayload(permit, signature) }
  }

  it("ERC-7683 resolveExecution returns the router call 0xeeff9007 ‖ payload, which executes the permit", async () => {
    const { permit, payload } = await signedPayload()
    expect(payload.length).toBe(2 + 2 * 1152)
    const execution = await base.publicClient.readContract({
      address: addresses.erc7683Module,
      abi: SvcERC7683ModuleV6.abi,
      functionName: "resolveExecution",
      args: [payload]
    })
    expect(execution).toEqual({
      routeId: permit.routeId,
      quoteId: permit.quoteId,
      target: addresses.router,
      value: 0n,
      callData: `0xeeff9007${payload.slice(2)}`
    })

    // the resolved call, sent as is by the payer, fills the permit
    await send(base, KEYS.deployer, {
      address: token,
      abi: SvcTestToken.abi,
      functionName: "mint",
      args: [ACCOUNTS.payer.address, permit.amountInRaw]
    })
    await send(base, KEYS.payer, {
      address: token,
      abi: SvcTestToken.abi,
      functionName: "approve",
      args: [addresses.router, permit.amountInRaw]
    })
    const payer = base.walletOf(KEYS.payer)
    const hash = await payer.sendTransaction({
      account: payer.account,
      chain: payer.chain,
      to: execution.target,
      data: execution.callData,
      value: execution.value
    })
    const receipt = await base.publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe("success")
    expect(
      parseEventLogs({ abi: SvcMainnetRouterV6.abi, logs: receipt.logs, eventName: "SourceFillV6" })[0]!.args.fillId
    ).toBe(permit.fillId)

    const native = await signedPayload({ sourceAsset: zeroAddress, amountInRaw: 12345n })
    const nativeExecution = await base.publicClient.readContract({
      address: addresses.erc7683Module,
      abi: SvcERC7683ModuleV6.abi,
      functionName: "resolveExecution",
      args: [native.payload]
    })
    expect(nativeExecution.value).toBe(12345n)

    // a permit for another router or chain is refused
    const foreign = await signedPayload({ sourceRouter: "0x8453000000000000000000000000000000000003" })
    expect(
      (await revertOf(
        base.publicClient.readContract({
          address: addresses.erc7683Module,
          abi: SvcERC7683ModuleV6.abi,
          functionName: "resolveExecution",
          args: [foreign.payload]
        })
      )).name
    ).toBe("WrongSourceRouter")
    expect(
      (await revertOf(
        bsc.publicClient.readContract({
          address: addresses.erc7683Module,
          abi: SvcERC7683ModuleV6.abi,
          functionName: "resolveExecution",
          args: [(await signedPayload()).payload]
        })
      )).name
    ).toBe("WrongSourceChain")
  })

  it("ERC-7683 resolve returns one step, one payment and the two assumptions; identity functions and ERC-165", async () => {
    const { permit, payload } = await signedPayload()
    const order = await base.publicClient.readContract({
      address: addresses.erc7683Module,
      abi: SvcERC7683ModuleV6.abi,
      functionName: "resolve",
      args: [payload]
    })
    expect(order.steps).toHaveLength(1)
    expect(decodeAbiParameters([{ type: "address" }, { type: "bytes" }, { type: "uint256" }], order.steps[0]!)).toEqual(
      [addresses.router, `0xeeff9007${payload.slice(2)}`, 0n]
    )
    expect(order.variables).toEqual([])
    expect(order.payments).toHaveLength(1)
    expect(
      decodeAbiParameters(
        [{ type: "uint256" }, { type: "address" }, { type: "address" }, { type: "uint256" }],
        order.payments[0]!
      )
    )
      .toEqual([56n, getAddress(permit.destinationAsset), getAddress(permit.recipient), permit.amountOutRaw])
    expect(order.assumptions.map((a) => a.name)).toEqual([
      "SvcPermitPayerIsStepCaller",
      "SvcPermitRecipientIsPaymentRecipient"
    ])
    expect(decodeAbiParameters([{ type: "address" }], order.assumptions[0]!.data)).toEqual([ACCOUNTS.payer.address])
    expect(decodeAbiParameters([{ type: "address" }], order.assumptions[1]!.data)).toEqual([
      getAddress(permit.recipient)
    ])

    const read = (functionName: "standardId" | "STANDARD_ID" | "router") =>
      base.publicClient.readContract({ address: addresses.erc7683Module, abi: SvcERC7683ModuleV6.abi, functionName })
    expect(await read("standardId")).toBe(keccak256(stringToBytes("ERC-7683")))
    expect(await read("STANDARD_ID")).toBe(keccak256(stringToBytes("ERC-7683")))
    expect(await read("router")).toBe(addresses.router)
    for (
      const [id, supported] of [["0x01ffc9a7", true], ["0x8d60d6f9", true], ["0xffffffff", false], [
        "0x00000000",
        false
      ]] as const
    ) {
      expect(
        await base.publicClient.readContract({
          address: addresses.erc7683Module,
          abi: SvcERC7683ModuleV6.abi,
          functionName: "supportsInterface",
          args: [id]
        }),
        id
      ).toBe(supported)
      expect(
        await base.publicClient.readContract({
          address: addresses.oifModule,
          abi: SvcOIFModuleV6.abi,
          functionName: "supportsInterface",
          args: [id]
        }),
        id
      ).toBe(supported)
    }
  })

  it("OIF describeMandate describes the destination output; resolveExecution reverts OIFExecutionUnsupported", async () => {
    const { permit, payload } = await signedPayload()
    const mandate = await base.publicClient.readContract({
      address: addresses.oifModule,
      abi: SvcOIFModuleV6.abi,
      functionName: "describeMandate",
      args: [payload]
    })
    const pad = (address: Hex) => `0x${"00".repeat(12)}${address.slice(2).toLowerCase()}`
    expect(mandate).toEqual({
      oracle: `0x${"00".repeat(32)}`,
      settler: `0x${"00".repeat(32)}`,
      chainId: 56n,
      token: pad(permit.destinationAsset),
      amount: permit.amountOutRaw,
      recipient: pad(permit.recipient),
      callbackData: "0x",
      context: encodeContext(permit)
    })
    expect(decodeAbiParameters(CONTEXT_TYPES, mandate.context)).toEqual([
      RELEASE_ID,
      permit.routeId,
      permit.quoteId,
      permit.fillId,
      permit.permitNonce,
      permit.executionGeneration,
      permit.validUntil
    ])
    const unsupported = await revertOf(
      base.publicClient.readContract({
        address: addresses.oifModule,
        abi: SvcOIFModuleV6.abi,
        functionName: "resolveExecution",
        args: [payload]
      })
    )
    expect(unsupported).toEqual({ name: "OIFExecutionUnsupported", args: [] })
    const read = (functionName: "standardId" | "compatibilityLevel" | "COMPATIBILITY_LEVEL" | "router") =>
      base.publicClient.readContract({ address: addresses.oifModule, abi: SvcOIFModuleV6.abi, functionName })
    expect(await read("standardId")).toBe(keccak256(stringToBytes("OIF")))
    expect(await read("compatibilityLevel")).toBe(keccak256(stringToBytes("DISCOVERY_DESCRIPTION_ONLY")))
    expect(await read("COMPATIBILITY_LEVEL")).toBe(keccak256(stringToBytes("DISCOVERY_DESCRIPTION_ONLY")))
    expect(await read("router")).toBe(addresses.router)
  })
})

const CONTEXT_TYPES = [
  { type: "bytes32" },
  { type: "bytes32" },
  { type: "bytes32" },
  { type: "bytes32" },
  { type: "bytes32" },
  { type: "bytes32" },
  { type: "uint64" }
] as const
const encodeContext = (permit: ExecutionPermit): Hex =>
  encodeAbiParameters(CONTEXT_TYPES, [
    permit.releaseId,
    permit.routeId,
    permit.quoteId,
    permit.fillId,
    permit.permitNonce,
    permit.executionGeneration,
    permit.validUntil
  ])
