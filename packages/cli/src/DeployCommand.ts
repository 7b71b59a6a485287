/**
 * `svc deploy`: the reference system (registry, router, vault, discovery
 * facade, ERC-7683 and OIF modules) on every EVM network named by `--rpc`,
 * through the deterministic-deployment proxy, at the same addresses on every
 * chain; every catalog route registered and activated on each registry; and the
 * files a server needs:
 *
 * - `DIR/catalog.json`: the input catalog (JSON or YAML), whose networks named
 *   by `--rpc` may leave `router` and `vault` out, with them filled in;
 * - `DIR/onchain.json`: the on-chain discovery configuration (`SVC_ONCHAIN`):
 *   addresses, runtime code hashes, the facade's CREATE2 inputs, and per chain
 *   the block and transaction that deployed it.
 *
 * The constructor arguments (owner, authority, operator, discovery URI) are the
 * same on every chain, so the addresses are; run it again with the same inputs
 * and it sends nothing and writes the same files. A chain that is not a local
 * development node (`web3_clientVersion`) needs `--yes` after the plan is
 * printed; `--dry-run` prints the plan and the predicted addresses and sends
 * nothing. A missing deployment proxy, too little gas for the plan, or other
 * code at a planned address is one line and exit 2, before anything is sent.
 *
 * @since 0.1.0
 */
import { COMPILER, STANDARD_JSON_INPUT_HASH, SvcMainnetRegistryV6 } from "@svc/contracts/artifacts"
import * as Deploy from "@svc/contracts/Deploy"
import { type Catalog, Keystore } from "@svc/core"
import { Effect, FileSystem, Option, Path, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { type Account, encodeFunctionData, getAddress, type Hex, keccak256 } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { readCatalog, resolveCatalog } from "./internal/catalogs.ts"
import {
  type ChainConnection,
  confirmed,
  connect,
  ether,
  onChain,
  parseRpcFlags,
  type RpcFlag,
  walletOf
} from "./internal/chains.ts"
import { passwordFile, readKeystore, unlock } from "./internal/keyfiles.ts"
import { BadInput, writeJson, writeNote } from "./Io.ts"

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** Gas of the route transactions (the registry's owner calls), generous: they are not estimated before it exists. */
const ROUTE_GAS = { register: 250_000n, activate: 80_000n, generation: 80_000n } as const

const address = (flag: string, value: string) =>
  ADDRESS.test(value)
    ? Effect.succeed(getAddress(value))
    : Effect.fail(new BadInput({ message: `--${flag}: ${JSON.stringify(value)} is not an address (0x + 40 hex)` }))

type ContractState = "present" | "missing"

/** What one route needs on one registry. */
interface RouteWork {
  readonly routeId: Hex
  readonly route: string
  readonly register: boolean
  readonly activate: boolean
  readonly generation: boolean
  readonly call: ReadonlyArray<{ readonly functionName: string; readonly data: Hex }>
}

/** What a chain needs. */
interface ChainPlan {
  readonly connection: ChainConnection
  readonly contracts: Readonly<Record<Deploy.SystemContract, ContractState>>
  readonly routes: ReadonlyArray<RouteWork>
  readonly gas: bigint
  readonly maxFeePerGas: bigint
  readonly balance: bigint
}

/** The facade's deployment on one chain (for onchain.json). */
interface FacadeDeployment {
  readonly transaction: Hex
  readonly block: number
}

const EXPLORERS: Readonly<Record<string, string>> = {
  "1": "https://etherscan.io",
  "10": "https://optimistic.etherscan.io",
  "56": "https://bscscan.com",
  "137": "https://polygonscan.com",
  "8453": "https://basescan.org",
  "42161": "https://arbiscan.io",
  "84532": "https://sepolia.basescan.org",
  "11155111": "https://sepolia.etherscan.io"
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Reads what a chain holds of the plan: each contract's code, each route's registration. */
const inspect = (
  connection: ChainConnection,
  plan: ReturnType<typeof Deploy.planSystem>,
  routes: ReadonlyArray<Catalog.CatalogRoute>,
  deployer: Hex
) =>
  Effect.gen(function*() {
    const where = `${connection.key} (chain ${connection.chainId})`
    const factoryCode = yield* onChain(
      connection,
      "reading the deployment proxy",
      () => connection.client.getCode({ address: Deploy.CREATE2_FACTORY })
    )
    if (factoryCode === undefined || factoryCode === "0x") {
      return yield* new BadInput({
        message:
          `${where}: no deterministic-deployment proxy at ${Deploy.CREATE2_FACTORY}: the system is deployed through it (same addresses on every chain); deploy the proxy on this chain first (github.com/Arachnid/deterministic-deployment-proxy)`
      })
    }
    const contracts: Partial<Record<Deploy.SystemContract, ContractState>> = {}
    let gas = 0n
    for (const key of Deploy.SYSTEM_CONTRACTS) {
      const planned = plan[key]
      const code = yield* onChain(connection, `reading ${planned.address}`, () =>
        connection.client.getCode({ address: planned.address }))
      if (code !== undefined && code !== "0x") {
        if (keccak256(code) !== planned.runtimeCodeHash) {
          return yield* new BadInput({
            message:
              `${where}: other code is already at ${planned.address}, where the ${key} (${planned.contractName}) goes: its code hash is ${
                keccak256(code)
              }, not ${planned.runtimeCodeHash}`
          })
        }
        contracts[key] = "present"
        continue
      }
      contracts[key] = "missing"
      gas += yield* onChain(connection, `estimating the ${key}'s deployment`, () =>
        connection.client.estimateGas({
          account: deployer,
          to: Deploy.CREATE2_FACTORY,
          data: `${planned.salt}${planned.initCode.slice(2)}`
        }))
    }
    const registryThere = contracts.registry === "present"
    const work: Array<RouteWork> = []
    for (const route of routes) {
      const status = registryThere
        ? yield* onChain(connection, "reading a route's status", () =>
          connection.client.readContract({
            address: plan.registry.address,
            abi: SvcMainnetRegistryV6.abi,
            functionName: "routeStatus",
            args: [route.routeId]
          }))
        : 0
      const generation = registryThere && status !== 0
        ? yield* onChain(connection, "reading a route's execution generation", () =>
          connection.client.readContract({
            address: plan.registry.address,
            abi: SvcMainnetRegistryV6.abi,
            functionName: "executionGeneration",
            args: [route.routeId]
          }))
        : undefined
      const register = status === 0
      const activate = Number(status) !== 2
      const setGeneration = !register && generation?.toLowerCase() !== route.executionGeneration.toLowerCase()
      const call: Array<{ functionName: string; data: Hex }> = []
      if (register) {
        call.push({
          functionName: "registerRoute",
          data: encodeFunctionData({
            abi: SvcMainnetRegistryV6.abi,
            functionName: "registerRoute",
            args: [
              route.routeId,
              route.source.network.networkId,
              route.source.assetId,
              route.destination.network.networkId,
              route.destination.assetId,
              route.executionGeneration
            ]
          })
        })
        gas += ROUTE_GAS.register
      }
      if (setGeneration) {
        call.push({
          functionName: "setExecutionGeneration",
          data: encodeFunctionData({
            abi: SvcMainnetRegistryV6.abi,
            functionName: "setExecutionGeneration",
            args: [route.routeId, route.executionGeneration]
          })
        })
        gas += ROUTE_GAS.generation
      }
      if (activate) {
        call.push({
          functionName: "setRouteStatus",
          data: encodeFunctionData({
            abi: SvcMainnetRegistryV6.abi,
            functionName: "setRouteStatus",
            args: [route.routeId, 2]
          })
        })
        gas += ROUTE_GAS.activate
      }
      if (call.length > 0) {
        work.push({
          routeId: route.routeId,
          route: `${route.source.key} -> ${route.destination.key}`,
          register,
          activate,
          generation: setGeneration,
          call
        })
      }
    }
    const fees = gas === 0n
      ? { maxFeePerGas: 0n }
      : yield* onChain(connection, "reading the fees", () =>
        connection.client.estimateFeesPerGas())
    const maxFeePerGas = fees.maxFeePerGas ?? 0n
    const balance = yield* onChain(connection, "reading the deployer's balance", () =>
      connection.client.getBalance({ address: deployer }))
    return {
      connection,
      contracts: contracts as Record<Deploy.SystemContract, ContractState>,
      routes: work,
      gas,
      maxFeePerGas,
      balance
    } satisfies ChainPlan
  })

/** The block and transaction that deployed the facade, found in the chain's history (binary search on its code). */
const findFacadeDeployment = (
  connection: ChainConnection,
  plan: ReturnType<typeof Deploy.planSystem>,
  onchainPath: string
) =>
  Effect.gen(function*() {
    const where = `${connection.key} (chain ${connection.chainId})`
    const unknown = new BadInput({
      message:
        `${where}: the facade ${plan.facade.address} was deployed earlier, ${onchainPath} does not record by which transaction, and the node cannot search its history; keep the onchain.json of the first run in --out`
    })
    const client = connection.client
    const hasCode = (block: bigint) =>
      Effect.tryPromise({
        try: () => client.getCode({ address: plan.facade.address, blockNumber: block }),
        catch: () => unknown
      }).pipe(Effect.map((code) => code !== undefined && code !== "0x"))
    let low = 0n
    let high = yield* onChain(connection, "reading the head", () => client.getBlockNumber())
    while (low < high) {
      const middle = (low + high) / 2n
      if (yield* hasCode(middle)) high = middle
      else low = middle + 1n
    }
    const block = yield* Effect.tryPromise({
      try: () => client.getBlock({ blockNumber: low, includeTransactions: true }),
      catch: () => unknown
    })
    const input = `${plan.facade.salt}${plan.facade.initCode.slice(2)}`.toLowerCase()
    const transaction = block.transactions.find((t) =>
      t.to?.toLowerCase() === Deploy.CREATE2_FACTORY.toLowerCase() && t.input.toLowerCase() === input
    )
    if (transaction === undefined) return yield* unknown
    return { transaction: transaction.hash, block: Number(low) } satisfies FacadeDeployment
  })

/** The existing onchain.json of `--out`, when it describes this deployment (same facade). */
const previousOnchain = (path: string, facade: Hex) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (!(yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false)))) return undefined
    const text = yield* fs.readFileString(path).pipe(Effect.orElseSucceed(() => ""))
    const parsed = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => undefined }).pipe(
      Effect.orElseSucceed(() => undefined)
    )
    if (!isObject(parsed) || typeof parsed.facade !== "string") return undefined
    return parsed.facade.toLowerCase() === facade.toLowerCase() ? parsed : undefined
  })

/** The on-chain discovery configuration of the deployment (SVC_ONCHAIN). */
const onchainDocument = (
  plan: ReturnType<typeof Deploy.planSystem>,
  chains: ReadonlyArray<{ readonly chainId: number; readonly key: string; readonly facade: FacadeDeployment }>,
  previous: Record<string, unknown> | undefined,
  publicUrl: string
) => {
  const previousEvidence = isObject(previous?.chainEvidence) ? previous.chainEvidence : {}
  const previousChains = Array.isArray(previous?.chains) ? (previous.chains as ReadonlyArray<number>) : []
  const previousDeployment = isObject(previous?.deployment) ? previous.deployment : {}
  const blocks: Record<string, number> = isObject(previousDeployment.blocks)
    ? { ...previousDeployment.blocks as Record<string, number> }
    : {}
  const transactions: Record<string, string> = isObject(previousDeployment.transactions)
    ? { ...previousDeployment.transactions as Record<string, string> }
    : {}
  const evidence: Record<string, unknown> = { ...previousEvidence }
  const ids = [...previousChains]
  for (const chain of chains) {
    const id = String(chain.chainId)
    if (!ids.includes(chain.chainId)) ids.push(chain.chainId)
    blocks[id] = chain.facade.block
    transactions[id] = chain.facade.transaction
    const kept = isObject(previousEvidence[id]) ? previousEvidence[id] : {}
    const explorer = EXPLORERS[id]
    evidence[id] = {
      // the explorer, Sourcify match and network name are the operator's to edit: a later run keeps them
      network: chain.key,
      explorer: explorer === undefined
        ? `https://sourcify.dev/#/lookup/${plan.facade.address}`
        : `${explorer}/address/${plan.facade.address}#code`,
      sourcify: `https://repo.sourcify.dev/${id}/${plan.facade.address}`,
      sourcifyMatchId: "unverified",
      ...kept,
      deploymentTransactionHash: chain.facade.transaction,
      deploymentBlockNumber: chain.facade.block
    }
  }
  const hashes = Deploy.expectedRuntimeCodeHashes()
  const ordered = (record: Record<string, unknown>) =>
    Object.fromEntries(ids.map((id) => [String(id), record[String(id)]]).filter(([, v]) => v !== undefined))
  return {
    chains: ids,
    facade: plan.facade.address,
    registry: plan.registry.address,
    router: plan.router.address,
    erc7683Resolver: plan.erc7683Module.address,
    oifModule: plan.oifModule.address,
    runtimeCodeHashes: {
      facade: hashes.facade,
      registry: hashes.registry,
      router: hashes.router,
      erc7683Resolver: hashes.erc7683Module,
      oifModule: hashes.oifModule
    },
    deployment: {
      factory: Deploy.CREATE2_FACTORY,
      salt: Deploy.SALTS.facade,
      initCodeHash: plan.facade.initCodeHash,
      compiler: COMPILER.version,
      standardJsonInputHash: STANDARD_JSON_INPUT_HASH,
      blocks: ordered(blocks),
      transactions: ordered(transactions)
    },
    chainEvidence: ordered(evidence),
    publicIntegrationRepo: typeof previous?.publicIntegrationRepo === "string"
      ? previous.publicIntegrationRepo
      : publicUrl,
    placeholder: false
  }
}

/** The input catalog with the router and vault of every deployed network filled in. */
const filledCatalog = (document: unknown, keys: ReadonlyArray<string>, router: Hex, vault: Hex) =>
  Effect.gen(function*() {
    if (!isObject(document) || !Array.isArray(document.networks)) {
      return yield* new BadInput({ message: "--catalog: not a catalog (no networks list)" })
    }
    const networks: Array<unknown> = []
    for (const [i, network] of document.networks.entries()) {
      if (!isObject(network) || !keys.includes(String(network.key))) {
        networks.push(network)
        continue
      }
      for (const [field, value] of [["router", router], ["vault", vault]] as const) {
        const given = network[field]
        if (given !== undefined && (typeof given !== "string" || given.toLowerCase() !== value.toLowerCase())) {
          return yield* new BadInput({
            message: `--catalog: networks[${i}].${field} of ${
              String(network.key)
            } is ${given}, but this deployment's ${field} is ${value}: leave it out and svc deploy fills it in`
          })
        }
      }
      networks.push({ ...network, router, vault })
    }
    return { ...document, networks }
  })

const describePlan = (plan: ChainPlan): string => {
  const { connection } = plan
  const missing = Deploy.SYSTEM_CONTRACTS.filter((k) => plan.contracts[k] === "missing")
  const routes = plan.routes
  const parts = [
    missing.length === 0 ? "every contract present" : `deploy ${missing.join(", ")}`,
    routes.length === 0
      ? "every route registered and active"
      : `${routes.filter((r) => r.register).length} route(s) to register, ${
        routes.filter((r) => r.activate).length
      } to activate${
        routes.some((r) => r.generation)
          ? `, ${routes.filter((r) => r.generation).length} execution generation(s) to update`
          : ""
      }`
  ]
  const cost = plan.gas === 0n
    ? "nothing to send"
    : `about ${plan.gas} gas, at most ${ether(plan.gas * plan.maxFeePerGas)} of the native coin (deployer holds ${
      ether(plan.balance)
    })`
  return `${connection.key} (chain ${connection.chainId}, ${connection.clientVersion}${
    connection.development ? ", a development node" : ""
  }): ${parts.join("; ")}; ${cost}`
}

const run = (flags: {
  readonly catalog: string
  readonly rpc: ReadonlyArray<string>
  readonly keystore: string
  readonly passwordFile: Option.Option<string>
  readonly authority: string
  readonly operator: string
  readonly owner: Option.Option<string>
  readonly discoveryUri: Option.Option<string>
  readonly out: string
  readonly yes: boolean
  readonly dryRun: boolean
}) =>
  Effect.gen(function*() {
    const path = yield* Effect.service(Path.Path)
    const fs = yield* FileSystem.FileSystem
    const rpc = yield* parseRpcFlags(flags.rpc)
    const authority = yield* address("authority", flags.authority)
    const operator = yield* address("operator", flags.operator)
    const publicUrl = (process.env.SVC_PUBLIC_URL ?? "").replace(/\/+$/, "")
    const discoveryURI = Option.getOrElse(
      flags.discoveryUri,
      () => publicUrl.length > 0 ? `${publicUrl}/.well-known/svc-solver.json` : ""
    )
    if (discoveryURI.length === 0) {
      return yield* new BadInput({
        message:
          "--discovery-uri: required without SVC_PUBLIC_URL (the facades point scanners at the solver manifest, <public URL>/.well-known/svc-solver.json)"
      })
    }
    if (!URL.canParse(discoveryURI) || !/^https?:$/.test(new URL(discoveryURI).protocol)) {
      return yield* new BadInput({ message: `--discovery-uri: ${discoveryURI} is not an http(s) URL` })
    }
    const keystorePath = path.resolve(process.cwd(), flags.keystore)
    const keystore = yield* readKeystore(keystorePath)
    const declared = Keystore.addressOf(keystore)
    // the deployer's key is unlocked only to send; its address may be in the file
    let account: Account | undefined
    const unlocked = Effect.gen(function*() {
      if (account !== undefined) return account
      const key = yield* unlock(keystorePath, yield* passwordFile(flags.passwordFile))
      account = privateKeyToAccount(Redacted.value(key) as Hex)
      return account
    })
    const deployer = declared._tag === "Success" ? declared.success : (yield* unlocked).address
    const owner = Option.isSome(flags.owner) ? yield* address("owner", flags.owner.value) : deployer
    const config: Deploy.SystemConfig = { owner, authority, operator, discoveryURI }
    const plan = Deploy.planSystem(config)
    const catalogPath = path.resolve(process.cwd(), flags.catalog)
    const input = yield* readCatalog(catalogPath)
    const networkOf = (flag: RpcFlag) =>
      Effect.gen(function*() {
        const networks = isObject(input) && Array.isArray(input.networks) ? input.networks : []
        const network = networks.find((n) => isObject(n) && n.key === flag.key)
        if (!isObject(network)) {
          return yield* new BadInput({ message: `--rpc ${flag.key}: no network ${flag.key} in the catalog` })
        }
        if (network.vm !== "EVM" || typeof network.chainId !== "string" || !/^[1-9][0-9]*$/.test(network.chainId)) {
          return yield* new BadInput({ message: `--rpc ${flag.key}: not an EVM network with a chainId in the catalog` })
        }
        return Number(network.chainId)
      })
    const chainIds = yield* Effect.forEach(rpc, networkOf)
    const filled = yield* filledCatalog(input, rpc.map((r) => r.key), plan.router.address, plan.vault.address)
    const resolved = yield* resolveCatalog(filled, `--catalog ${catalogPath} (with router and vault filled in)`)
    const connections = yield* Effect.forEach(rpc, (flag, i) => connect(flag, chainIds[i]!), {
      concurrency: "unbounded"
    })
    const plans = yield* Effect.forEach(connections, (c) => inspect(c, plan, resolved.routes, deployer), {
      concurrency: "unbounded"
    })
    for (const chainPlan of plans) {
      const need = chainPlan.gas * chainPlan.maxFeePerGas
      if (need > chainPlan.balance) {
        const { connection } = chainPlan
        return yield* new BadInput({
          message: `${connection.key} (chain ${connection.chainId}): too little gas: the deployer ${deployer} holds ${
            ether(chainPlan.balance)
          } of the native coin, the plan needs up to ${
            ether(need)
          } (${chainPlan.gas} gas at ${chainPlan.maxFeePerGas} wei); fund it and run again`
        })
      }
    }
    const addresses = Deploy.predictAddresses(config)
    yield* writeNote(
      [
        `svc deploy${
          flags.dryRun ? " --dry-run" : ""
        }: owner ${owner}, authority ${authority}, operator ${operator}, discovery URI ${discoveryURI}, deployer ${deployer}`,
        `  addresses on every chain: ${Deploy.SYSTEM_CONTRACTS.map((k) => `${k} ${addresses[k]}`).join(", ")}`,
        ...plans.map((p) => `  ${describePlan(p)}`)
      ].join("\n")
    )
    const ownerSends = owner.toLowerCase() === deployer.toLowerCase()
    const summary = (sent: ReadonlyMap<string, ReadonlyArray<Hex>>, files: unknown) => ({
      dryRun: flags.dryRun,
      deployer,
      config,
      addresses,
      networks: plans.map((p) => ({
        network: p.connection.key,
        chainId: p.connection.chainId,
        node: p.connection.clientVersion,
        development: p.connection.development,
        contracts: Object.fromEntries(
          Deploy.SYSTEM_CONTRACTS.map((k) => [
            k,
            p.contracts[k] === "present" ? "present" : flags.dryRun ? "to deploy" : "deployed"
          ])
        ),
        routes: p.routes.map((r) => ({
          routeId: r.routeId,
          route: r.route,
          register: r.register,
          activate: r.activate,
          executionGeneration: r.generation
        })),
        gas: String(p.gas),
        transactions: sent.get(p.connection.key) ?? []
      })),
      // the registry's owner is not the deployer: these calls are the owner's to send
      ownerCalls: ownerSends ? [] : plans.flatMap((p) =>
        p.routes.flatMap((r) =>
          r.call.map((c) => ({
            network: p.connection.key,
            chainId: p.connection.chainId,
            to: plan.registry.address,
            function: c.functionName,
            data: c.data
          }))
        )
      ),
      files
    })
    if (flags.dryRun) return yield* writeJson(summary(new Map(), null))
    yield* confirmed(connections, flags.yes, "svc deploy")

    const sent = new Map<string, Array<Hex>>()
    const deployments = new Map<string, FacadeDeployment>()
    const signer = ownerSends || plans.some((p) => Deploy.SYSTEM_CONTRACTS.some((k) => p.contracts[k] === "missing"))
      ? yield* unlocked
      : undefined
    // the chains in parallel, the transactions of one chain one after another
    yield* Effect.forEach(plans, (chainPlan) =>
      Effect.gen(function*() {
        const { connection } = chainPlan
        const hashes: Array<Hex> = []
        sent.set(connection.key, hashes)
        const needsSending = Deploy.SYSTEM_CONTRACTS.some((k) => chainPlan.contracts[k] === "missing") ||
          (ownerSends && chainPlan.routes.length > 0)
        if (!needsSending || signer === undefined) return
        const wallet = walletOf(connection, signer)
        for (const key of Deploy.SYSTEM_CONTRACTS) {
          if (chainPlan.contracts[key] !== "missing") continue
          const result = yield* onChain(connection, `deploying the ${key}`, () =>
            Deploy.deployCreate2(wallet, connection.client, {
              bytecode: plan[key].initCode,
              salt: plan[key].salt,
              pollingInterval: 500
            }))
          if (result.transactionHash !== undefined) hashes.push(result.transactionHash)
          yield* writeNote(`  ${connection.key}: ${key} deployed at ${result.address} (${result.transactionHash})`)
          if (key === "facade" && result.transactionHash !== undefined) {
            const receipt = yield* onChain(
              connection,
              "reading the facade's receipt",
              () =>
                connection.client.getTransactionReceipt({ hash: result.transactionHash! })
            )
            deployments.set(connection.key, {
              transaction: result.transactionHash,
              block: Number(receipt.blockNumber)
            })
          }
        }
        if (!ownerSends) {
          return
        }
        for (const route of chainPlan.routes) {
          for (const call of route.call) {
            const hash = yield* onChain(
              connection,
              `${call.functionName} of ${route.route}`,
              () =>
                wallet.sendTransaction({ to: plan.registry.address, data: call.data })
            )
            hashes.push(hash)
            const receipt = yield* onChain(
              connection,
              `${call.functionName} of ${route.route}`,
              () => connection.client.waitForTransactionReceipt({ hash, pollingInterval: 500 })
            )
            if (receipt.status !== "success") {
              return yield* new BadInput({
                message:
                  `${connection.key} (chain ${connection.chainId}): ${call.functionName} of ${route.route} reverted (${hash})`
              })
            }
          }
          yield* writeNote(`  ${connection.key}: route ${route.route} registered and active`)
        }
      }), { concurrency: "unbounded", discard: true })

    const outDir = path.resolve(process.cwd(), flags.out)
    yield* fs.makeDirectory(outDir, { recursive: true }).pipe(
      Effect.mapError((e) => new BadInput({ message: `--out ${outDir}: cannot create: ${e.message.split("\n")[0]}` }))
    )
    const onchainPath = path.join(outDir, "onchain.json")
    const catalogOut = path.join(outDir, "catalog.json")
    const previous = yield* previousOnchain(onchainPath, plan.facade.address)
    const previousTransactions = isObject(previous?.deployment) && isObject(previous.deployment.transactions)
      ? previous.deployment.transactions as Record<string, string>
      : {}
    const previousBlocks = isObject(previous?.deployment) && isObject(previous.deployment.blocks)
      ? previous.deployment.blocks as Record<string, number>
      : {}
    const facades: Array<{ chainId: number; key: string; facade: FacadeDeployment }> = []
    for (const connection of connections) {
      const id = String(connection.chainId)
      const known = deployments.get(connection.key) ??
        (previousTransactions[id] !== undefined && previousBlocks[id] !== undefined
          ? { transaction: previousTransactions[id] as Hex, block: previousBlocks[id] }
          : yield* findFacadeDeployment(connection, plan, onchainPath))
      facades.push({ chainId: connection.chainId, key: connection.key, facade: known })
    }
    const write = (file: string, value: unknown) =>
      fs.writeFileString(file, `${JSON.stringify(value, null, 2)}\n`).pipe(
        Effect.mapError((e) => new BadInput({ message: `--out ${file}: cannot write: ${e.message.split("\n")[0]}` }))
      )
    yield* write(catalogOut, filled)
    yield* write(onchainPath, onchainDocument(plan, facades, previous, publicUrl.length > 0 ? publicUrl : discoveryURI))
    if (!ownerSends && plans.some((p) => p.routes.length > 0)) {
      yield* writeNote(
        `  the registry's owner ${owner} is not the deployer: send the calls listed in ownerCalls from the owner's account`
      )
    }
    yield* writeJson(summary(sent, { catalog: catalogOut, onchain: onchainPath }))
  })

/**
 * The `deploy` command.
 *
 * @category running
 * @since 0.1.0
 */
export const deploy = Command.make("deploy", {
  catalog: Flag.String("catalog").pipe(
    Flag.withDescription(
      "the catalog (JSON or YAML); the networks named by --rpc may leave router and vault out (filled in)"
    )
  ),
  rpc: Flag.String("rpc").pipe(
    Flag.withDescription("KEY=URL: a catalog network key and its JSON-RPC URL, repeatable: deploys on each"),
    Flag.atLeast(1)
  ),
  keystore: Flag.String("keystore").pipe(
    Flag.withDescription("the deployer's keystore (svc keys new): it pays the gas and, by default, owns the system")
  ),
  passwordFile: Flag.String("password-file").pipe(
    Flag.withDescription("file holding the keystore's password (default: SVC_KEYSTORE_PASSWORD_FILE)"),
    Flag.optional
  ),
  authority: Flag.String("authority").pipe(
    Flag.withDescription("the address of the authority key that signs feeds and permits (the server's signer)")
  ),
  operator: Flag.String("operator").pipe(
    Flag.withDescription("the address of the payout key, the vaults' operator (the server's payout key)")
  ),
  owner: Flag.String("owner").pipe(
    Flag.withDescription("owner of the registry, router and vault (default: the deployer)"),
    Flag.optional
  ),
  discoveryUri: Flag.String("discovery-uri").pipe(
    Flag.withDescription(
      "what the facades return to scanners (default: <SVC_PUBLIC_URL>/.well-known/svc-solver.json, the manifest)"
    ),
    Flag.optional
  ),
  out: Flag.String("out").pipe(
    Flag.withDescription("folder of catalog.json and onchain.json (SVC_CATALOG, SVC_ONCHAIN)")
  ),
  yes: Flag.Boolean("yes").pipe(
    Flag.withDescription("send to nodes that are not local development nodes (after reviewing the plan)"),
    Flag.withDefault(false)
  ),
  dryRun: Flag.Boolean("dry-run").pipe(
    Flag.withDescription("print the plan and the predicted addresses; send nothing, write nothing"),
    Flag.withDefault(false)
  )
}, run).pipe(
  Command.withDescription(
    "deploy the reference contracts to the networks of --rpc at the same addresses, register the catalog's routes, and write catalog.json and onchain.json"
  )
)
