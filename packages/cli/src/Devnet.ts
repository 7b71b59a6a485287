/**
 * A local devnet: two anvil chains (8453 and 56, a block every second), the
 * reference contracts deployed at their CREATE2 addresses on both, a test token
 * and a price feed on each, the solver's vaults funded, a funded test user, and
 * the svc server started against them with chain settlement on (it watches fills
 * and pays out). `svc devnet` (and `npm run devnet`) prints
 * `svc devnet ready <path of devnet.json>` once everything is up.
 *
 * Every key here is public test material derived from a label: never fund it
 * anywhere but a local chain.
 *
 * @since 0.1.0
 */
import { COMPILER, STANDARD_JSON_INPUT_HASH, SvcMainnetRegistryV6, SvcTestToken } from "@svc/contracts/artifacts"
import * as Deploy from "@svc/contracts/Deploy"
import {
  ANVIL_DEPLOYER_KEY,
  anvilBinary,
  type AnvilNode,
  ensureCreate2Factory,
  rpc,
  startAnvil
} from "@svc/contracts/testing/Anvil"
import { Catalog, Connector, Keystore } from "@svc/core"
import { Effect, Redacted, Result } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  stringToBytes
} from "viem"
import { privateKeyToAccount } from "viem/accounts"

const label = (text: string): Hex => keccak256(stringToBytes(text))

/**
 * The devnet's keys (public test material: derived from labels, funded only on
 * the devnet's chains).
 *
 * @category constants
 * @since 0.1.0
 */
export const DEVNET_KEYS = {
  /** Deploys everything and owns the contracts (anvil's first account). */
  deployer: ANVIL_DEPLOYER_KEY,
  /** Signs feeds and permits (the routers' authority): the server's SVC_SIGNER_KEY. */
  authority: label("svc devnet key: authority"),
  /** Pays out of the vaults (their operator): the server's SVC_PAYOUT_KEY. */
  payout: label("svc devnet key: payout"),
  /** The test user: holds test tokens and gas on both chains. */
  user: label("svc devnet key: user")
} as const

/**
 * One chain of devnet.json.
 *
 * @category models
 * @since 0.1.0
 */
export interface DevnetChain {
  readonly chainId: number
  readonly rpcUrl: string
  readonly router: Hex
  /** The solver's vault on that chain: it receives fills and pays out. */
  readonly vault: Hex
  /** The discovery facade. */
  readonly discovery: Hex
  readonly tokens: Readonly<Record<string, Hex>>
  /**
   * Chainlink-style USD price feeds by symbol, of the test token and of the
   * native coin (8 decimals; `setAnswer` by the deployer).
   */
  readonly priceFeeds: Readonly<Record<string, Hex>>
}

/**
 * A key of the devnet in an encrypted keystore (its password in
 * {@link DevnetKeys.passwordFile}).
 *
 * @category models
 * @since 0.1.0
 */
export interface DevnetKeystore {
  readonly address: Hex
  /** Absolute path of the keystore file. */
  readonly keystore: string
}

/**
 * The keys a server on the devnet signs with, as keystores: the authority that
 * signs feeds and permits (the routers' authority) and the payout key (the
 * vaults' operator), with the file holding their password.
 *
 * @category models
 * @since 0.1.0
 */
export interface DevnetKeys {
  readonly authority: DevnetKeystore
  readonly payout: DevnetKeystore
  /** Absolute path of the file holding both keystores' password. */
  readonly passwordFile: string
}

/**
 * The devnet.json document.
 *
 * @category models
 * @since 0.1.0
 */
export interface DevnetFile {
  /** The devnet server's base URL; null when the devnet runs its chains only. */
  readonly server: string | null
  readonly chains: ReadonlyArray<DevnetChain>
  readonly user: { readonly privateKey: Hex; readonly address: Hex }
  /** The keystores of the authority and payout keys (`SVC_SIGNER_KEYSTORE`, `SVC_PAYOUT_KEYSTORE`). */
  readonly keys: DevnetKeys
}

/**
 * The password of the devnet's keystores (public test material, like the keys).
 *
 * @category constants
 * @since 0.1.0
 */
export const DEVNET_KEYSTORE_PASSWORD = "svc devnet: public test material"

/**
 * What `svc devnet` says when the anvil binary cannot be found (the optional
 * peer dependency `@foundry-rs/anvil` is not installed), given the resolution
 * error; undefined for any other error.
 *
 * @category running
 * @since 0.1.0
 */
export const anvilMissing = (error: unknown): string | undefined => {
  const code = (error as { readonly code?: unknown } | null)?.code
  return code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND" || code === "ERR_PACKAGE_PATH_NOT_EXPORTED"
    ? "svc devnet runs anvil from the npm package @foundry-rs/anvil, which is not installed: npm install --save-dev @foundry-rs/anvil"
    : undefined
}

/**
 * Options of {@link start}.
 *
 * @category models
 * @since 0.1.0
 */
export interface DevnetOptions {
  /** Where state goes (chains are fresh each start; the server's data is reset with them). */
  readonly dataDir: string
  /** The server's port; 0 (default) picks a free one. */
  readonly port?: number | undefined
  /** Seconds per block (`--block-time`). Default 1. */
  readonly blockTime?: number | undefined
  /** Confirmations the source chains' routes wait for. Default 2. */
  readonly finalityBlocks?: number | undefined
  /** Whether to start the devnet's own server (default true); false: the chains only, for servers of your own. */
  readonly server?: boolean | undefined
  /** More environment for the server (SVC_LOG_LEVEL, ...). */
  readonly serverEnv?: Readonly<Record<string, string>> | undefined
  /** Progress lines (default: none). */
  readonly log?: ((line: string) => void) | undefined
  /**
   * The server's output (its log) as it comes, standard output and standard
   * error alike. It is always appended to `<dataDir>/server.log` too.
   */
  readonly serverLog?: ((chunk: string) => void) | undefined
  /**
   * The RPC URLs the server uses, given the chains' (default: the same): one,
   * or several failed over in order. A benchmark puts a counting proxy there.
   */
  readonly serverRpcUrl?:
    | ((chain: { readonly chainId: number; readonly url: string }) => Promise<string | ReadonlyArray<string>>)
    | undefined
  /** Finds the anvil executable (default: the binary of the `@foundry-rs/anvil` package). */
  readonly anvilBinary?: (() => string) | undefined
}

/**
 * A running devnet.
 *
 * @category models
 * @since 0.1.0
 */
export interface Devnet {
  /** Absolute path of devnet.json. */
  readonly file: string
  readonly info: DevnetFile
  readonly nodes: ReadonlyArray<AnvilNode>
  /** The server's process (for tests that kill it); throws when the devnet runs its chains only. */
  readonly server: () => ChildProcess
  /**
   * The settings of a server on these chains (catalog, on-chain configuration,
   * keystores, RPC URLs, oracle pricing), to which a server adds where it listens
   * and its store (PORT, HOST, SVC_PUBLIC_URL, SVC_DATA_DIR or DATABASE_URL).
   * They are also written to `<dataDir>/server.env` (`node --env-file`).
   */
  readonly serverEnv: Readonly<Record<string, string>>
  /** Starts the server again (after it stopped or was killed), with the same configuration and `env` over it. */
  readonly restartServer: (env?: Readonly<Record<string, string>>) => Promise<void>
  /** Stops the server (SIGTERM) and the chains. */
  readonly stop: () => Promise<void>
}

/** The chains of the devnet, their test token and the USD price of their native coin. */
const CHAINS = [
  {
    chainId: 8453,
    key: "base",
    name: "Base (devnet)",
    token: { symbol: "USDC", name: "USD Coin (devnet)", decimals: 6 },
    native: { symbol: "ETH", usd: 3000n }
  },
  {
    chainId: 56,
    key: "bsc",
    name: "BNB Smart Chain (devnet)",
    token: { symbol: "USDT", name: "Tether USD (devnet)", decimals: 18 },
    native: { symbol: "BNB", usd: 600n }
  }
] as const

const freePort = (): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolvePort(port))
    })
  })

const binPath = (): string => {
  const here = fileURLToPath(import.meta.url)
  return here.endsWith(".ts") ? join(here, "..", "bin.ts") : join(here, "..", "bin.js")
}

interface Deployed {
  readonly chain: DevnetChain
  readonly facadeBlock: number
  readonly facadeTx: Hex
  readonly registry: Hex
  readonly rpcUrl: string
}

const deployChain = async (
  node: AnvilNode,
  spec: (typeof CHAINS)[number],
  discoveryURI: string
): Promise<Deployed> => {
  const chain = defineChain({
    id: spec.chainId,
    name: spec.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.url] } }
  })
  const publicClient = createPublicClient({ chain, transport: http(node.url), pollingInterval: 100 }) as PublicClient
  const wallet = createWalletClient({
    account: privateKeyToAccount(DEVNET_KEYS.deployer),
    chain,
    transport: http(node.url)
  })
  const clients = { wallet, publicClient }
  await ensureCreate2Factory(node.url)
  for (const key of [DEVNET_KEYS.authority, DEVNET_KEYS.payout, DEVNET_KEYS.user]) {
    await rpc(node.url, "anvil_setBalance", [privateKeyToAccount(key).address, "0x56bc75e2d63100000"]) // 100 ETH
  }
  const system = await Deploy.deploySvcSystem(clients, {
    authority: privateKeyToAccount(DEVNET_KEYS.authority).address,
    operator: privateKeyToAccount(DEVNET_KEYS.payout).address,
    discoveryURI,
    pollingInterval: 100
  })
  const token = await Deploy.deployToken(clients, { ...spec.token, pollingInterval: 100 })
  const feed = await Deploy.deployPriceFeed(clients, {
    decimals: 8,
    description: `${spec.token.symbol} / USD`,
    initialAnswer: 100_000_000n,
    pollingInterval: 100
  })
  const nativeFeed = await Deploy.deployPriceFeed(clients, {
    decimals: 8,
    description: `${spec.native.symbol} / USD`,
    initialAnswer: spec.native.usd * 100_000_000n,
    pollingInterval: 100
  })
  const unit = 10n ** BigInt(spec.token.decimals)
  const mint = async (to: Hex, amount: bigint) => {
    const hash = await wallet.writeContract({
      address: token,
      abi: SvcTestToken.abi,
      functionName: "mint",
      args: [to, amount]
    })
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 })
  }
  await mint(system.addresses.vault, 1_000_000n * unit)
  await mint(privateKeyToAccount(DEVNET_KEYS.user).address, 100_000n * unit)
  const facadeTx = system.results.facade.transactionHash
  if (facadeTx === undefined) throw new Error(`chain ${spec.chainId}: the facade was not deployed by this run`)
  const receipt = await publicClient.getTransactionReceipt({ hash: facadeTx })
  return {
    chain: {
      chainId: spec.chainId,
      rpcUrl: node.url,
      router: system.addresses.router,
      vault: system.addresses.vault,
      discovery: system.addresses.facade,
      tokens: { [spec.token.symbol]: token },
      priceFeeds: { [spec.token.symbol]: feed, [spec.native.symbol]: nativeFeed }
    },
    facadeBlock: Number(receipt.blockNumber),
    facadeTx,
    registry: system.addresses.registry,
    rpcUrl: node.url
  }
}

/**
 * Registers every route of the catalog on a chain's registry and activates it,
 * so that the facade's route count and the scanners' route steps resolve. The
 * transactions are sent back to back and awaited once.
 */
const registerRoutes = async (deployed: Deployed, catalog: ReturnType<typeof catalogOf>) => {
  const resolved = Catalog.fromUnknown(catalog, { registry: Connector.makeRegistry([]) })
  if (Result.isFailure(resolved)) throw new Error(`devnet catalog: ${resolved.failure.message}`)
  const chain = defineChain({
    id: deployed.chain.chainId,
    name: `devnet ${deployed.chain.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [deployed.rpcUrl] } }
  })
  const wallet = createWalletClient({
    account: privateKeyToAccount(DEVNET_KEYS.deployer),
    chain,
    transport: http(deployed.rpcUrl)
  })
  let last: Hex | undefined
  for (const route of resolved.success.routes) {
    await wallet.writeContract({
      address: deployed.registry,
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
    last = await wallet.writeContract({
      address: deployed.registry,
      abi: SvcMainnetRegistryV6.abi,
      functionName: "setRouteStatus",
      args: [route.routeId, 2]
    })
  }
  if (last === undefined) return
  const receipt = await createPublicClient({ chain, transport: http(deployed.rpcUrl), pollingInterval: 100 })
    .waitForTransactionReceipt({ hash: last, pollingInterval: 100 })
  if (receipt.status !== "success") throw new Error(`chain ${deployed.chain.chainId}: route registration reverted`)
}

/** The catalog of the devnet: the two test tokens, a route each way. */
const catalogOf = (deployed: ReadonlyArray<Deployed>, finalityBlocks: number) => {
  const [base, bsc] = deployed.map((d) => d.chain) as [DevnetChain, DevnetChain]
  return {
    description: "svc devnet catalog: test tokens on two local anvil chains (8453, 56), written by svc devnet",
    profile: "production",
    networks: [
      {
        key: "base",
        name: "Base (devnet)",
        vm: "EVM",
        chainId: "8453",
        router: base.router,
        vault: base.vault,
        finalityBlocks,
        nativeUsdPriceFeed: base.priceFeeds.ETH
      },
      {
        key: "bsc",
        name: "BNB Smart Chain (devnet)",
        vm: "EVM",
        chainId: "56",
        router: bsc.router,
        vault: bsc.vault,
        finalityBlocks,
        nativeUsdPriceFeed: bsc.priceFeeds.BNB
      }
    ],
    assets: [
      {
        key: "usdc.base",
        network: "base",
        symbol: "USDC",
        decimals: 6,
        address: base.tokens.USDC,
        inventoryRaw: "500000000000",
        usdPriceFeed: base.priceFeeds.USDC
      },
      {
        key: "usdt.bsc",
        network: "bsc",
        symbol: "USDT",
        decimals: 18,
        address: bsc.tokens.USDT,
        inventoryRaw: "500000000000000000000000",
        usdPriceFeed: bsc.priceFeeds.USDT
      }
    ],
    routes: [
      {
        source: "usdc.base",
        destination: "usdt.bsc",
        publicationLane: "L1",
        publicationRank: 0,
        serviceCategory: "STABLE_DIRECT",
        feeMode: "FEE_INCLUDED_IN_OUTPUT",
        serviceFeeBps: 5,
        price: { numeratorRaw: "1000000000000", denominatorRaw: "1" },
        minimumFillInRaw: "1000000",
        maximumFillInRaw: "10000000000",
        settlementWindowSeconds: 900
      },
      {
        source: "usdt.bsc",
        destination: "usdc.base",
        publicationLane: "L1",
        publicationRank: 1,
        serviceCategory: "STABLE_DIRECT",
        feeMode: "FEE_INCLUDED_IN_OUTPUT",
        serviceFeeBps: 5,
        price: { numeratorRaw: "1", denominatorRaw: "1000000000000" },
        minimumFillInRaw: "1000000000000000000",
        maximumFillInRaw: "10000000000000000000000",
        settlementWindowSeconds: 900
      }
    ]
  }
}

/** The on-chain discovery configuration of the deployment (real addresses, code hashes and blocks). */
const onchainOf = (deployed: ReadonlyArray<Deployed>, system: Deploy.SystemConfig) => {
  const plan = Deploy.planSystem(system)
  const hashes = Deploy.expectedRuntimeCodeHashes()
  const first = deployed[0]!.chain
  return {
    chains: deployed.map((d) => d.chain.chainId),
    facade: first.discovery,
    registry: plan.registry.address,
    router: first.router,
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
      blocks: Object.fromEntries(deployed.map((d) => [String(d.chain.chainId), d.facadeBlock])),
      transactions: Object.fromEntries(deployed.map((d) => [String(d.chain.chainId), d.facadeTx]))
    },
    chainEvidence: Object.fromEntries(deployed.map((d) => [String(d.chain.chainId), {
      network: d.chain.chainId === 8453 ? "base" : "bsc",
      deploymentTransactionHash: d.facadeTx,
      deploymentBlockNumber: d.facadeBlock,
      explorer: d.chain.rpcUrl,
      sourcify: `https://repo.sourcify.dev/${d.chain.chainId}/${d.chain.discovery}`,
      sourcifyMatchId: "svc-devnet-unverified"
    }])),
    publicIntegrationRepo: "https://example.com/svc/public-integration",
    placeholder: false
  }
}

/** A value of a `KEY=value` line as `node --env-file` reads it: JSON (with its quotes) in single quotes. */
const envValue = (value: string) => /^[A-Za-z0-9_./:@-]*$/.test(value) ? value : `'${value}'`

/**
 * Writes the authority and payout keys as keystores, with their password file
 * (owner-only). Test material: a low scrypt cost keeps the server's start fast.
 */
const writeKeystores = async (dir: string): Promise<DevnetKeys> => {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const passwordFile = join(dir, "password")
  writeFileSync(passwordFile, `${DEVNET_KEYSTORE_PASSWORD}\n`, { mode: 0o600 })
  const write = async (name: string, key: Hex): Promise<DevnetKeystore> => {
    const document = await Effect.runPromise(
      Keystore.encrypt(Redacted.make(key), Redacted.make(DEVNET_KEYSTORE_PASSWORD), { scryptN: 4096 })
    )
    const keystore = join(dir, `${name}.json`)
    writeFileSync(keystore, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 })
    return { address: privateKeyToAccount(key).address, keystore }
  }
  return {
    authority: await write("authority", DEVNET_KEYS.authority),
    payout: await write("payout", DEVNET_KEYS.payout),
    passwordFile
  }
}

/**
 * Starts the devnet and its server; resolves once the server listens.
 *
 * @category running
 * @since 0.1.0
 */
export const start = async (options: DevnetOptions): Promise<Devnet> => {
  const log = options.log ?? (() => {})
  const dataDir = resolve(options.dataDir)
  const serverDir = join(dataDir, "server")
  // the chains are new at every start: the server's state of the previous ones goes with them
  rmSync(serverDir, { recursive: true, force: true })
  mkdirSync(serverDir, { recursive: true, mode: 0o700 })
  const port = options.port === undefined || options.port === 0 ? await freePort() : options.port
  const serverUrl = `http://127.0.0.1:${port}`
  // what the facades return: the solver manifest (docs/protocol.md, on-chain discovery)
  const discoveryURI = `${serverUrl}/.well-known/svc-solver.json`
  const nodes: Array<AnvilNode> = []
  let child: ChildProcess | undefined
  const stopChains = async () => {
    await Promise.all(nodes.map((n) => n.stop()))
  }
  let binary: string
  try {
    binary = (options.anvilBinary ?? anvilBinary)()
  } catch (e) {
    const missing = anvilMissing(e)
    if (missing !== undefined) throw new Error(missing, { cause: e })
    throw e
  }
  try {
    for (const spec of CHAINS) {
      // finalized trails the head by 2 blocks: PAID a couple of seconds after the payout is mined
      nodes.push(
        await startAnvil({ chainId: spec.chainId, blockTime: options.blockTime ?? 1, slotsInAnEpoch: 1, binary })
      )
      log(`svc devnet: chain ${spec.chainId} at ${nodes.at(-1)!.url}`)
    }
    const deployed: Array<Deployed> = []
    for (const [i, spec] of CHAINS.entries()) {
      deployed.push(await deployChain(nodes[i]!, spec, discoveryURI))
      log(`svc devnet: contracts deployed on ${spec.chainId}`)
    }
    const system: Deploy.SystemConfig = {
      owner: privateKeyToAccount(DEVNET_KEYS.deployer).address,
      authority: privateKeyToAccount(DEVNET_KEYS.authority).address,
      operator: privateKeyToAccount(DEVNET_KEYS.payout).address,
      discoveryURI
    }
    const catalogPath = join(dataDir, "catalog.json")
    const onchainPath = join(dataDir, "onchain.json")
    const catalog = catalogOf(deployed, options.finalityBlocks ?? 2)
    writeFileSync(catalogPath, JSON.stringify(catalog, null, 2) + "\n")
    await Promise.all(deployed.map((d) => registerRoutes(d, catalog)))
    log("svc devnet: routes registered and active on both registries")
    writeFileSync(onchainPath, JSON.stringify(onchainOf(deployed, system), null, 2) + "\n")
    const keys = await writeKeystores(join(dataDir, "keys"))
    const settings: Record<string, string> = {
      SVC_CATALOG: catalogPath,
      SVC_ONCHAIN: onchainPath,
      SVC_SIGNER_KEYSTORE: keys.authority.keystore,
      SVC_PAYOUT_KEYSTORE: keys.payout.keystore,
      SVC_KEYSTORE_PASSWORD_FILE: keys.passwordFile,
      // prices from the devnet's feeds; they change only when set, so they are never stale here
      SVC_PRICING: "oracle",
      SVC_ORACLE_MAX_AGE_SECONDS: "31536000",
      SVC_MARKET_POLL_MS: "1000",
      SVC_RPC_URLS: JSON.stringify({
        base: options.serverRpcUrl === undefined
          ? nodes[0]!.url
          : await options.serverRpcUrl({ chainId: 8453, url: nodes[0]!.url }),
        bsc: options.serverRpcUrl === undefined
          ? nodes[1]!.url
          : await options.serverRpcUrl({ chainId: 56, url: nodes[1]!.url })
      })
    }
    writeFileSync(
      join(dataDir, "server.env"),
      Object.entries(settings).map(([key, value]) => `${key}=${envValue(value)}\n`).join("")
    )
    const env: Record<string, string> = {
      ...process.env as Record<string, string>,
      PORT: String(port),
      HOST: "127.0.0.1",
      SVC_PUBLIC_URL: serverUrl,
      SVC_DATA_DIR: serverDir,
      ...settings,
      ...options.serverEnv
    }
    delete env.DATABASE_URL
    delete env.SVC_CONFIG
    const serverLogPath = join(dataDir, "server.log")
    const startServer = (more?: Readonly<Record<string, string>>) =>
      new Promise<void>((resolveStart, reject) => {
        const process_ = spawn(process.execPath, [binPath(), "serve"], {
          env: { ...env, ...more },
          stdio: ["ignore", "pipe", "pipe"]
        })
        child = process_
        let output = ""
        let listening = false
        const keep = (chunk: Buffer) => {
          const text = chunk.toString("utf8")
          appendFileSync(serverLogPath, text)
          options.serverLog?.(text)
          return text
        }
        process_.stdout.on("data", (chunk: Buffer) => {
          const text = keep(chunk)
          if (listening) return
          output += text
          if (output.includes("svc listening on")) {
            listening = true
            resolveStart()
          }
        })
        let errors = ""
        process_.stderr.on("data", (chunk: Buffer) => {
          errors = (errors + keep(chunk)).slice(-4000)
        })
        process_.once("exit", (code, signal) => {
          if (!output.includes("svc listening on")) {
            reject(new Error(`svc devnet: the server exited (${code ?? signal}) before listening: ${errors}`))
          }
        })
      })
    const withServer = options.server !== false
    if (withServer) {
      await startServer()
      log(`svc devnet: server at ${serverUrl}`)
    }
    const info: DevnetFile = {
      server: withServer ? serverUrl : null,
      chains: deployed.map((d) => d.chain),
      user: { privateKey: DEVNET_KEYS.user, address: privateKeyToAccount(DEVNET_KEYS.user).address },
      keys
    }
    const file = join(dataDir, "devnet.json")
    writeFileSync(file, JSON.stringify(info, null, 2) + "\n", { mode: 0o600 })
    const stopServer = () =>
      new Promise<void>((done) => {
        const c = child
        if (c === undefined || c.exitCode !== null || c.signalCode !== null) return done()
        c.once("exit", () => done())
        c.kill("SIGTERM")
        setTimeout(() => c.kill("SIGKILL"), 10_000).unref()
      })
    return {
      file,
      info,
      nodes,
      server: () => {
        if (child === undefined) throw new Error("svc devnet: this devnet runs its chains only")
        return child
      },
      serverEnv: settings,
      restartServer: async (more) => {
        await stopServer()
        await startServer(more)
      },
      stop: async () => {
        await stopServer()
        await stopChains()
      }
    }
  } catch (e) {
    child?.kill("SIGKILL")
    await stopChains()
    throw e
  }
}
