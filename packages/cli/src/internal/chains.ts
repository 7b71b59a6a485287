/**
 * The chains of the commands that send transactions (`svc deploy`, `svc fund`):
 * `--rpc KEY=URL` flags naming catalog networks, a viem client per chain that
 * checks it serves the catalog's chain id, and whether the node is a local
 * development node (asked with `web3_clientVersion`).
 *
 * @internal
 */
import { Effect } from "effect"
import {
  type Account,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  formatEther,
  http,
  type PublicClient,
  type Transport,
  type WalletClient
} from "viem"
import { BadInput } from "./contract.ts"

const firstLine = (e: unknown) =>
  String((e as { shortMessage?: string; message?: string })?.shortMessage ?? (e as Error)?.message ?? e).split(
    "\n"
  )[0]!

/** One `--rpc KEY=URL`. */
export interface RpcFlag {
  readonly key: string
  readonly url: string
}

/** Parses the `--rpc KEY=URL` flags: each a catalog network key once, with an http(s) URL. */
export const parseRpcFlags = (values: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<RpcFlag>, BadInput> =>
  Effect.gen(function*() {
    if (values.length === 0) return yield* new BadInput({ message: "--rpc: give at least one KEY=URL" })
    const flags: Array<RpcFlag> = []
    for (const value of values) {
      const at = value.indexOf("=")
      const key = at < 0 ? "" : value.slice(0, at)
      const url = at < 0 ? "" : value.slice(at + 1)
      if (key.length === 0 || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
        return yield* new BadInput({
          message: `--rpc ${key || "?"}: KEY=URL, a catalog network key and an http(s) URL (value not shown)`
        })
      }
      if (flags.some((f) => f.key === key)) return yield* new BadInput({ message: `--rpc ${key}: given twice` })
      flags.push({ key, url })
    }
    return flags
  })

/** A connected chain. */
export interface ChainConnection {
  readonly key: string
  readonly chainId: number
  readonly chain: Chain
  readonly client: PublicClient
  readonly url: string
  /** What the node answered to web3_clientVersion. */
  readonly clientVersion: string
  /** Whether it is a local development node (anvil, Hardhat, Ganache). */
  readonly development: boolean
}

/** A node whose web3_clientVersion names a local development node. */
export const isDevelopmentNode = (clientVersion: string): boolean =>
  /^(?:anvil|HardhatNetwork|Ganache|EthereumJS TestRPC)\b/i.test(clientVersion)

/** Connects to a chain and checks that it serves `chainId`. */
export const connect = (
  flag: RpcFlag,
  chainId: number
): Effect.Effect<ChainConnection, BadInput> =>
  Effect.gen(function*() {
    const chain = defineChain({
      id: chainId,
      name: flag.key,
      nativeCurrency: { name: "native", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [flag.url] } }
    })
    const client = createPublicClient({ chain, transport: http(flag.url, { retryCount: 2 }), cacheTime: 0 })
    const served = yield* Effect.tryPromise({
      try: () => client.getChainId(),
      catch: (e) => new BadInput({ message: `--rpc ${flag.key}: the node does not answer: ${firstLine(e)}` })
    })
    if (served !== chainId) {
      return yield* new BadInput({
        message: `--rpc ${flag.key}: the node serves chain ${served}, but the catalog's ${flag.key} is chain ${chainId}`
      })
    }
    const clientVersion = yield* Effect.tryPromise({
      try: () => client.request({ method: "web3_clientVersion" }) as Promise<string>,
      catch: () => new BadInput({ message: "unused" })
    }).pipe(Effect.orElseSucceed(() => "unknown"))
    return {
      key: flag.key,
      chainId,
      chain,
      client: client as PublicClient,
      url: flag.url,
      clientVersion,
      development: isDevelopmentNode(clientVersion)
    }
  })

/** A wallet client of an account on a connected chain. */
export const walletOf = (connection: ChainConnection, account: Account): WalletClient<Transport, Chain, Account> =>
  createWalletClient({ account, chain: connection.chain, transport: http(connection.url, { retryCount: 2 }) })

/** Runs a chain call; a failure is one line naming the network. */
export const onChain = <A>(connection: ChainConnection, what: string, f: () => Promise<A>) =>
  Effect.tryPromise({
    try: f,
    catch: (e) => new BadInput({ message: `${connection.key} (chain ${connection.chainId}): ${what}: ${firstLine(e)}` })
  })

/** An amount of the native coin in ether units, for people. */
export const ether = (wei: bigint): string => `${formatEther(wei)}`

/**
 * Refuses to send to a node that is not a local development node without
 * `--yes`, after the plan was printed.
 */
export const confirmed = (connections: ReadonlyArray<ChainConnection>, yes: boolean, command: string) =>
  Effect.gen(function*() {
    const live = connections.filter((c) => !c.development)
    if (live.length === 0 || yes) return
    return yield* new BadInput({
      message: `${live.map((c) => `${c.key} (chain ${c.chainId}, ${c.clientVersion})`).join(", ")} ${
        live.length === 1 ? "is not a local development node" : "are not local development nodes"
      }: ${command} sends real transactions there; review the plan above and run again with --yes`
    })
  })
