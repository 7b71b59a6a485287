/**
 * Moves a USD price on the devnet: `setAnswer` on one of its price feeds, signed
 * by the feeds' owner (anvil's first well-known test account, the devnet's deployer).
 *
 *   node_modules/.bin/node examples/client/set-devnet-price.ts .svc-devnet/devnet.json 56 USDT 1.02
 *
 * svc reads the feed within a second and republishes the routes whose rate moved
 * past half the quote tolerance (docs/pricing.md). Prints the transaction hash.
 */
import { readFileSync } from "node:fs"
import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseAbi, parseUnits } from "viem"
import { privateKeyToAccount } from "viem/accounts"

/** anvil's first test account: the devnet deploys the feeds with it (public test material). */
const DEPLOYER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

interface DevnetFile {
  readonly chains: ReadonlyArray<
    { readonly chainId: number; readonly rpcUrl: string; readonly priceFeeds: Readonly<Record<string, Hex>> }
  >
}

/** Sets the USD price of `symbol` on chain `chainId` (8-decimal feed); returns the transaction hash. */
export const main = async (devnetFile: string, chainId: number, symbol: string, usd: string): Promise<Hex> => {
  const devnet = JSON.parse(readFileSync(devnetFile, "utf8")) as DevnetFile
  const c = devnet.chains.find((x) => x.chainId === chainId)
  if (c === undefined) throw new Error(`no chain ${chainId} in ${devnetFile}`)
  const feed = c.priceFeeds[symbol]
  if (feed === undefined) throw new Error(`no price feed for ${symbol} on ${chainId} (${Object.keys(c.priceFeeds)})`)
  const chain = defineChain({
    id: chainId,
    name: `devnet ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [c.rpcUrl] } }
  })
  const wallet = createWalletClient({ account: privateKeyToAccount(DEPLOYER_KEY), chain, transport: http(c.rpcUrl) })
  const hash = await wallet.writeContract({
    address: feed,
    abi: parseAbi(["function setAnswer(int256 answer)"]),
    functionName: "setAnswer",
    args: [parseUnits(usd, 8)]
  })
  await createPublicClient({ chain, transport: http(c.rpcUrl) }).waitForTransactionReceipt({ hash })
  return hash
}

if (import.meta.main) {
  const [file, chainId, symbol, usd] = process.argv.slice(2)
  if (file === undefined || chainId === undefined || symbol === undefined || usd === undefined) {
    console.error("usage: set-devnet-price.ts <devnet.json> <chainId> <symbol> <usd>")
    process.exit(2)
  }
  console.log(await main(file, Number(chainId), symbol, usd))
}
