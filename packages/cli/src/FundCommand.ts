/**
 * `svc fund`: transfers from a keystore's account to a deployment, on the
 * networks named by `--rpc`:
 *
 * - `--vault ASSET=RAW`: RAW units of a catalog asset to the vault of its
 *   network (the catalog `svc deploy` wrote names it); the zero address is the
 *   native coin;
 * - `--gas ADDRESS=WEI`: WEI of the native coin to ADDRESS (the payout key, which
 *   pays the payouts' gas), on every network of `--rpc`.
 *
 * Balances are checked before anything is sent; a chain that is not a local
 * development node needs `--yes` after the plan is printed; `--dry-run` prints
 * the plan only. Each transfer is awaited (mined) before the next.
 *
 * @since 0.1.0
 */
import { Effect, Option, Path, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { encodeFunctionData, getAddress, type Hex, parseAbi } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { readCatalog, resolveCatalog } from "./internal/catalogs.ts"
import { confirmed, connect, ether, onChain, parseRpcFlags, walletOf } from "./internal/chains.ts"
import { passwordFile, unlock } from "./internal/keyfiles.ts"
import { BadInput, writeJson, writeNote } from "./Io.ts"

const ERC20 = parseAbi([
  "function transfer(address to, uint256 amount) returns (bool)",
  "function balanceOf(address owner) view returns (uint256)"
])

const ZERO = "0x0000000000000000000000000000000000000000"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const pair = (flag: string, value: string) => {
  const at = value.indexOf("=")
  const left = at < 0 ? "" : value.slice(0, at)
  const right = at < 0 ? "" : value.slice(at + 1)
  return left.length === 0 || !/^[0-9]+$/.test(right) || BigInt(right) === 0n
    ? Effect.fail(new BadInput({ message: `--${flag} ${value}: give NAME=AMOUNT, the amount a positive integer` }))
    : Effect.succeed([left, BigInt(right)] as const)
}

interface Transfer {
  readonly network: string
  readonly kind: "vault" | "gas"
  readonly asset: string | null
  /** The token, or null for the native coin. */
  readonly token: Hex | null
  readonly to: Hex
  readonly amount: bigint
}

const run = (flags: {
  readonly catalog: string
  readonly rpc: ReadonlyArray<string>
  readonly keystore: string
  readonly passwordFile: Option.Option<string>
  readonly vault: ReadonlyArray<string>
  readonly gas: ReadonlyArray<string>
  readonly yes: boolean
  readonly dryRun: boolean
}) =>
  Effect.gen(function*() {
    const path = yield* Effect.service(Path.Path)
    if (flags.vault.length === 0 && flags.gas.length === 0) {
      return yield* new BadInput({ message: "svc fund: give --vault ASSET=RAW or --gas ADDRESS=WEI (or both)" })
    }
    const rpc = yield* parseRpcFlags(flags.rpc)
    const catalogPath = path.resolve(process.cwd(), flags.catalog)
    const document = yield* readCatalog(catalogPath)
    // gas alone needs only the networks' chain ids (before svc deploy filled the vaults in)
    const networks = isObject(document) && Array.isArray(document.networks) ? document.networks.filter(isObject) : []
    const transfers: Array<Transfer> = []
    const catalog = flags.vault.length === 0 ? undefined : yield* resolveCatalog(document, `--catalog ${catalogPath}`)
    for (const value of flags.vault) {
      const [key, amount] = yield* pair("vault", value)
      const asset = catalog!.assets.find((a) => a.key === key)
      if (asset === undefined) return yield* new BadInput({ message: `--vault ${key}: no asset ${key} in the catalog` })
      if (!rpc.some((r) => r.key === asset.network.key)) {
        return yield* new BadInput({
          message: `--vault ${key}: its network ${asset.network.key} is not named by --rpc`
        })
      }
      if (asset.address === null || asset.network.vaultAddress === null) {
        return yield* new BadInput({ message: `--vault ${key}: not an EVM asset with a vault` })
      }
      transfers.push({
        network: asset.network.key,
        kind: "vault",
        asset: key,
        token: asset.address.toLowerCase() === ZERO ? null : asset.address,
        to: asset.network.vaultAddress,
        amount
      })
    }
    for (const value of flags.gas) {
      const [to, amount] = yield* pair("gas", value)
      if (!/^0x[0-9a-fA-F]{40}$/.test(to)) {
        return yield* new BadInput({ message: `--gas ${to}: not an address (0x + 40 hex)` })
      }
      for (const r of rpc) {
        transfers.push({ network: r.key, kind: "gas", asset: null, token: null, to: getAddress(to), amount })
      }
    }
    const connections = yield* Effect.forEach(rpc, (flag) => {
      const network = networks.find((n) => n.key === flag.key)
      return network === undefined || network.vm !== "EVM" || typeof network.chainId !== "string" ||
          !/^[1-9][0-9]*$/.test(network.chainId)
        ? Effect.fail(new BadInput({ message: `--rpc ${flag.key}: no EVM network ${flag.key} in the catalog` }))
        : connect(flag, Number(network.chainId))
    }, { concurrency: "unbounded" })
    const key = yield* unlock(path.resolve(process.cwd(), flags.keystore), yield* passwordFile(flags.passwordFile))
    const account = privateKeyToAccount(Redacted.value(key) as Hex)
    // what the account holds against what the transfers take, per network and coin
    for (const connection of connections) {
      const mine = transfers.filter((t) => t.network === connection.key)
      const coins = [...new Set(mine.map((t) => t.token))]
      for (const token of coins) {
        const need = mine.filter((t) => t.token === token).reduce((sum, t) => sum + t.amount, 0n)
        const held = token === null
          ? yield* onChain(
            connection,
            "reading the balance",
            () => connection.client.getBalance({ address: account.address })
          )
          : yield* onChain(connection, "reading the token balance", () =>
            connection.client.readContract({
              address: token,
              abi: ERC20,
              functionName: "balanceOf",
              args: [account.address]
            }))
        if (held < need) {
          return yield* new BadInput({
            message: `${connection.key} (chain ${connection.chainId}): too little ${
              token === null ? "of the native coin" : `of the token ${token}`
            }: ${account.address} holds ${held}, the transfers take ${need} (raw units)`
          })
        }
      }
    }
    yield* writeNote([
      `svc fund${flags.dryRun ? " --dry-run" : ""}: from ${account.address}`,
      ...transfers.map((t) =>
        `  ${t.network}: ${
          t.kind === "vault" ? `${t.amount} raw ${t.asset} to the vault` : `${ether(t.amount)} of the native coin`
        } ${t.to}`
      )
    ].join("\n"))
    const report = (hashes: ReadonlyArray<Hex | null>) => ({
      dryRun: flags.dryRun,
      from: account.address,
      transfers: transfers.map((t, i) => ({
        network: t.network,
        kind: t.kind,
        asset: t.asset,
        token: t.token,
        to: t.to,
        amount: String(t.amount),
        transaction: hashes[i] ?? null
      }))
    })
    if (flags.dryRun) return yield* writeJson(report([]))
    yield* confirmed(connections, flags.yes, "svc fund")
    const hashes: Array<Hex> = []
    for (const transfer of transfers) {
      const connection = connections.find((c) => c.key === transfer.network)!
      const wallet = walletOf(connection, account)
      const hash = yield* onChain(connection, `the transfer to ${transfer.to}`, () =>
        transfer.token === null
          ? wallet.sendTransaction({ to: transfer.to, value: transfer.amount })
          : wallet.sendTransaction({
            to: transfer.token,
            data: encodeFunctionData({ abi: ERC20, functionName: "transfer", args: [transfer.to, transfer.amount] })
          }))
      const receipt = yield* onChain(
        connection,
        `the transfer ${hash}`,
        () => connection.client.waitForTransactionReceipt({ hash, pollingInterval: 500 })
      )
      if (receipt.status !== "success") {
        return yield* new BadInput({
          message: `${connection.key} (chain ${connection.chainId}): the transfer ${hash} reverted`
        })
      }
      hashes.push(hash)
    }
    yield* writeJson(report(hashes))
  })

/**
 * The `fund` command.
 *
 * @category running
 * @since 0.1.0
 */
export const fund = Command.make("fund", {
  catalog: Flag.String("catalog").pipe(
    Flag.withDescription("the deployment's catalog (the catalog.json svc deploy wrote: assets and vaults)")
  ),
  rpc: Flag.String("rpc").pipe(
    Flag.withDescription("KEY=URL: a catalog network key and its JSON-RPC URL, repeatable"),
    Flag.atLeast(1)
  ),
  keystore: Flag.String("keystore").pipe(Flag.withDescription("the keystore of the account that pays")),
  passwordFile: Flag.String("password-file").pipe(
    Flag.withDescription("file holding the keystore's password (default: SVC_KEYSTORE_PASSWORD_FILE)"),
    Flag.optional
  ),
  vault: Flag.String("vault").pipe(
    Flag.withDescription("ASSET=RAW: raw units of a catalog asset to its network's vault, repeatable"),
    Flag.atLeast(0)
  ),
  gas: Flag.String("gas").pipe(
    Flag.withDescription("ADDRESS=WEI: the native coin to an address on every --rpc network, repeatable"),
    Flag.atLeast(0)
  ),
  yes: Flag.Boolean("yes").pipe(
    Flag.withDescription("send on nodes that are not local development nodes (after reviewing the plan)"),
    Flag.withDefault(false)
  ),
  dryRun: Flag.Boolean("dry-run").pipe(
    Flag.withDescription("print the transfers; send nothing"),
    Flag.withDefault(false)
  )
}, run).pipe(
  Command.withDescription(
    "fund a deployment from a keystore's account: tokens to the vaults (--vault), gas to an address (--gas)"
  )
)
