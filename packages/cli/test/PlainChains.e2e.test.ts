/**
 * Going live, from outside, on plain chains: two anvils this test starts itself
 * (chain ids 31001 and 31002, not the devnet's; a block every 2 s; no devnet
 * flag), ERC-20 tokens of this file's own bytecode, and then only the `svc`
 * command line, run from a folder outside the repository:
 *
 * 1. `svc keys import` (the treasury, anvil's first account, which holds the gas
 *    and the tokens) and `svc keys new` (deployer, authority, payout key);
 * 2. `svc fund --gas` to the deployer and the payout key;
 * 3. `svc deploy --dry-run` sends nothing; behind a node that says it is geth,
 *    `svc deploy` prints the plan and refuses without `--yes`; then `svc deploy
 *    --yes` to both chains: the same addresses on both, code at every address,
 *    every route active in each registry; run again, it sends nothing and writes
 *    identical files;
 * 4. `svc fund --vault` for both vaults;
 * 5. `svc serve` with the keystores and the written files, production profile;
 * 6. the wallet written with ethers and no svc code (examples/ethers-wallet)
 *    fills, and the permit reaches PAID with exactly amountOutRaw paid;
 * 7. `svc conformance --url … --rpc … --execute` passes.
 *
 * And the refusals of `svc deploy` on a third chain: no deployment proxy, too
 * little gas, other code at a planned address: one line, exit 2, nothing sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer as createHttpServer, request as httpRequest } from "node:http"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseAbi, type PublicClient } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll } from "vitest"
import { scaled } from "../../../test/support/time.ts"
import { type AnvilNode, rpc, startAnvil } from "../../contracts/src/testing/Anvil.ts"
import { BIN, childEnv, oneLineRefusal, type Ran, ROOT, svc } from "./support/svc.ts"

// ---------------------------------------------------------------------------
// This test's own ERC-20, compiled here with the solc npm package

const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// A plain ERC-20: the whole supply to one holder at construction.
contract PlainToken {
    string public name;
    string public symbol;
    uint8 public decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address holder, uint256 supply) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        totalSupply = supply;
        balanceOf[holder] = supply;
        emit Transfer(address(0), holder, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        move(from, to, value);
        return true;
    }

    function move(address from, address to, uint256 value) private {
        require(balanceOf[from] >= value, "balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
`

const TOKEN_ABI = parseAbi([
  "constructor(string name_, string symbol_, uint8 decimals_, address holder, uint256 supply)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function balanceOf(address owner) view returns (uint256)"
])

const compileToken = (): Hex => {
  const solc = createRequire(join(ROOT, "packages/contracts/package.json"))("solc") as {
    compile: (input: string) => string
  }
  const output = JSON.parse(solc.compile(JSON.stringify({
    language: "Solidity",
    sources: { "PlainToken.sol": { content: TOKEN_SOURCE } },
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { "*": { "*": ["evm.bytecode.object"] } } }
  })))
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === "error")
  if (errors.length > 0) throw new Error(errors.map((e: { message: string }) => e.message).join("; "))
  return `0x${output.contracts["PlainToken.sol"].PlainToken.evm.bytecode.object}`
}

// ---------------------------------------------------------------------------
// The chains and the accounts

/** Anvil's well-known accounts: #0 the treasury (gas and tokens), #1 the ethers wallet's user, #2 conformance's wallet. */
const TREASURY_KEY: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
const USER_KEY: Hex = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
const CONFORMANCE_KEY: Hex = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"
const ALPHA = 31001
const BETA = 31002
const USDC = 10n ** 6n

const chainOf = (node: AnvilNode) =>
  defineChain({
    id: node.chainId,
    name: `plain ${node.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.url] } }
  })
const publicOf = (node: AnvilNode) =>
  createPublicClient({ chain: chainOf(node), transport: http(node.url), cacheTime: 0 }) as PublicClient

/** Deploys this file's token on a chain, the supply to the treasury; returns its address. */
const deployToken = async (node: AnvilNode, bytecode: Hex, symbol: string): Promise<Hex> => {
  const wallet = createWalletClient({
    account: privateKeyToAccount(TREASURY_KEY),
    chain: chainOf(node),
    transport: http(node.url)
  })
  const hash = await wallet.deployContract({
    abi: TOKEN_ABI,
    bytecode,
    args: [`Plain ${symbol}`, symbol, 6, privateKeyToAccount(TREASURY_KEY).address, 1_000_000_000n * USDC]
  })
  const receipt = await publicOf(node).waitForTransactionReceipt({ hash, pollingInterval: 250 })
  return receipt.contractAddress!
}

/** A token transfer from the treasury (for the wallets that pay fills, which are not the solver's). */
const give = async (node: AnvilNode, token: Hex, to: Hex, amount: bigint) => {
  const wallet = createWalletClient({
    account: privateKeyToAccount(TREASURY_KEY),
    chain: chainOf(node),
    transport: http(node.url)
  })
  const hash = await wallet.writeContract({
    address: token,
    abi: TOKEN_ABI,
    functionName: "transfer",
    args: [to, amount]
  })
  await publicOf(node).waitForTransactionReceipt({ hash, pollingInterval: 250 })
}

const nonceOf = (node: AnvilNode, address: Hex) => publicOf(node).getTransactionCount({ address })

/**
 * Waits until the feed lists an open route from one chain to another. A server publishes its routes closed
 * until settlement has read each vault's balance (the catalog of `svc deploy` holds no inventory figure):
 * on a busy machine the first feeds come before that read, so a client that starts at once may see them.
 */
const routeOpen = async (url: string, from: number, to: number): Promise<void> => {
  const deadline = Date.now() + scaled(60_000)
  let last = ""
  while (Date.now() < deadline) {
    const response = await fetch(`${url}/api/v6/solver-feed`).catch((e: unknown) => String(e))
    if (typeof response === "string") last = response
    else {
      last = await response.text()
      if (response.ok) {
        const body = JSON.parse(last) as {
          readonly feed: { readonly openRoutes: ReadonlyArray<{ sourceChainId: string; destinationChainId: string }> }
        }
        if (
          body.feed.openRoutes.some((r) => r.sourceChainId === String(from) && r.destinationChainId === String(to))
        ) return
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(
    `no open route ${from} -> ${to} in the feed within ${Math.round(scaled(60_000) / 1000)} s; last answer: ${
      last.slice(0, 500)
    }`
  )
}

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** A JSON-RPC proxy that forwards everything but web3_clientVersion, which it answers as a geth node would. */
const gethFacade = async (target: string) => {
  const server = createHttpServer((req, res) => {
    let body = ""
    req.on("data", (d) => (body += d))
    req.on("end", () => {
      const call = JSON.parse(body) as { id: unknown; method: string }
      if (!Array.isArray(call) && call.method === "web3_clientVersion") {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ jsonrpc: "2.0", id: call.id, result: "Geth/v1.14.12-stable/linux-amd64/go1.23.4" }))
        return
      }
      const forward = httpRequest(target, { method: "POST", headers: { "content-type": "application/json" } }, (up) => {
        res.writeHead(up.statusCode ?? 502, { "content-type": "application/json" })
        up.pipe(res)
      })
      forward.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() }
}

// ---------------------------------------------------------------------------

let alpha: AnvilNode
let beta: AnvilNode
let tokens: { alpha: Hex; beta: Hex }
let dir: string
let server: ChildProcess | undefined
const children: Array<ChildProcess> = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-plain-chains-"))
  ;[alpha, beta] = await Promise.all([
    startAnvil({ chainId: ALPHA, blockTime: 2 }),
    startAnvil({ chainId: BETA, blockTime: 2 })
  ])
  const bytecode = compileToken()
  const [onAlpha, onBeta] = await Promise.all([
    deployToken(alpha, bytecode, "USDC"),
    deployToken(beta, bytecode, "USDC")
  ])
  tokens = { alpha: onAlpha, beta: onBeta }
}, scaled(120_000))

afterAll(async () => {
  server?.kill("SIGTERM")
  for (const child of children) child.kill("SIGTERM")
  await Promise.all([alpha?.stop(), beta?.stop()])
})

/** `svc <args>` from the work folder (outside the repository), with the keystores' password file. */
const run = (args: ReadonlyArray<string>, options: { stdin?: string; env?: Record<string, string> } = {}) =>
  svc(args, {
    cwd: dir,
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    env: { SVC_KEYSTORE_PASSWORD_FILE: join(dir, "password"), ...options.env }
  })

const ok = (r: Ran, what: string) => {
  assert.strictEqual(r.code, 0, `${what}: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

describe("going live on plain chains, with the svc command line only", () => {
  it(
    "keys, fund, deploy (dry run, --yes, again), fund the vaults, serve, an ethers wallet's fill PAID, conformance --execute",
    {
      timeout: scaled(900_000)
    },
    async () => {
      const started = Date.now()
      const lap = (what: string) =>
        process.stderr.write(`plain chains: ${what} at ${((Date.now() - started) / 1000).toFixed(0)} s\n`)
      writeFileSync(join(dir, "password"), "a long passphrase for the rehearsal\n", { mode: 0o600 })
      const port = await freePort()
      const publicUrl = `http://127.0.0.1:${port}`
      // the operator's catalog: their tokens; router and vault left out (svc deploy fills them in)
      writeFileSync(
        join(dir, "catalog.json"),
        JSON.stringify(
          {
            $schema: join(ROOT, "packages/server/catalog/catalog.schema.json"),
            description: "two plain chains",
            profile: "production",
            networks: [
              {
                key: "alpha",
                name: "Alpha",
                vm: "EVM",
                chainId: String(ALPHA),
                finalityBlocks: 2,
                settlement: { finality: "depth" }
              },
              {
                key: "beta",
                name: "Beta",
                vm: "EVM",
                chainId: String(BETA),
                finalityBlocks: 2,
                settlement: { finality: "depth" }
              }
            ],
            assets: [
              { key: "usdc.alpha", network: "alpha", symbol: "USDC", decimals: 6, address: tokens.alpha },
              { key: "usdc.beta", network: "beta", symbol: "USDC", decimals: 6, address: tokens.beta }
            ],
            routes: [
              {
                source: "usdc.alpha",
                destination: "usdc.beta",
                serviceFeeBps: 5,
                price: { numeratorRaw: "1", denominatorRaw: "1" },
                minimumFillInRaw: String(USDC),
                maximumFillInRaw: String(10_000n * USDC)
              },
              {
                source: "usdc.beta",
                destination: "usdc.alpha",
                serviceFeeBps: 5,
                price: { numeratorRaw: "1", denominatorRaw: "1" },
                minimumFillInRaw: String(USDC),
                maximumFillInRaw: String(10_000n * USDC)
              }
            ]
          },
          null,
          2
        )
      )

      // 1. keys
      const [treasury, deployer, authority, payout] = await Promise.all([
        run(["keys", "import", "--out", "keys/treasury.json"], { stdin: TREASURY_KEY }),
        run(["keys", "new", "--out", "keys/deployer.json"]),
        run(["keys", "new", "--out", "keys/authority.json"]),
        run(["keys", "new", "--out", "keys/payout.json"])
      ]).then((all) => all.map((r, i) => ok(r, `keys ${i}`).address as Hex))
      assert.strictEqual(treasury, privateKeyToAccount(TREASURY_KEY).address)
      lap("keys")

      // 2. gas for the deployer and the payout key, from the treasury
      const rpcFlags = ["--rpc", `alpha=${alpha.url}`, "--rpc", `beta=${beta.url}`]
      const gas = ok(
        await run([
          "fund",
          "--catalog",
          "catalog.json",
          ...rpcFlags,
          "--keystore",
          "keys/treasury.json",
          "--gas",
          `${deployer}=1000000000000000000`,
          "--gas",
          `${payout}=1000000000000000000`
        ]),
        "fund --gas"
      )
      assert.strictEqual(gas.transfers.length, 4)
      for (const node of [alpha, beta]) {
        assert.strictEqual(await publicOf(node).getBalance({ address: deployer }), 10n ** 18n)
      }
      lap("gas")

      // 3. deploy
      const deployArgs = [
        "deploy",
        "--catalog",
        "catalog.json",
        "--keystore",
        "keys/deployer.json",
        "--authority",
        authority,
        "--operator",
        payout,
        "--out",
        "out"
      ]
      const env = { SVC_PUBLIC_URL: publicUrl }
      const dry = ok(await run([...deployArgs, ...rpcFlags, "--dry-run"], { env }), "deploy --dry-run")
      assert.strictEqual(dry.dryRun, true)
      assert.deepStrictEqual(dry.networks.map((n: { contracts: object }) => Object.values(n.contracts)), [
        Array(6).fill("to deploy"),
        Array(6).fill("to deploy")
      ])
      assert.strictEqual(await nonceOf(alpha, deployer), 0, "--dry-run sends nothing")
      assert.strictEqual(await nonceOf(beta, deployer), 0, "--dry-run sends nothing")
      assert.isFalse(readdir(dir).includes("out"), "--dry-run writes nothing")
      // an owner other than the deployer (a multisig): other addresses (the owner is a constructor argument),
      // and the route registrations listed as the owner's calls to the registry, since the deployer cannot send them
      const owned = ok(
        await run([...deployArgs, ...rpcFlags, "--dry-run", "--owner", treasury], { env }),
        "deploy --dry-run --owner"
      )
      assert.strictEqual(owned.config.owner.toLowerCase(), treasury.toLowerCase())
      assert.notStrictEqual(owned.addresses.registry, dry.addresses.registry)
      assert.deepStrictEqual(
        owned.ownerCalls.map((c: { network: string; to: string }) => [c.network, c.to]),
        ["alpha", "beta"].flatMap((network) => Array.from({ length: 4 }, () => [network, owned.addresses.registry])),
        "two routes registered and activated on each chain, by the owner"
      )
      assert.deepStrictEqual(dry.ownerCalls, [], "the deployer owns: it sends them itself")
      assert.strictEqual(await nonceOf(alpha, deployer), 0, "--dry-run sends nothing")
      // a node that is not a development node: the plan, then a refusal without --yes
      const geth = await gethFacade(alpha.url)
      try {
        const refused = await run([...deployArgs, "--rpc", `alpha=${geth.url}`, "--rpc", `beta=${beta.url}`], { env })
        assert.strictEqual(refused.code, 2)
        const lines = refused.stderr.trimEnd().split("\n")
        assert.match(lines[0]!, /^svc deploy: owner 0x/)
        assert.match(
          lines.at(-1)!,
          /^svc: alpha \(chain 31001, Geth\/v1\.14\.12[^)]*\) is not a local development node: .*run again with --yes$/
        )
        assert.strictEqual(await nonceOf(alpha, deployer), 0)
        assert.strictEqual(await nonceOf(beta, deployer), 0)
        const deployed = ok(
          await run([...deployArgs, "--rpc", `alpha=${geth.url}`, "--rpc", `beta=${beta.url}`, "--yes"], { env }),
          "deploy --yes"
        )
        assert.deepStrictEqual(deployed.addresses, dry.addresses, "the dry run predicted the addresses")
        assert.strictEqual(deployed.config.discoveryURI, `${publicUrl}/.well-known/svc-solver.json`)
      } finally {
        geth.close()
      }
      lap("deploy")
      const addresses = dry.addresses as Record<string, Hex>
      for (const node of [alpha, beta]) {
        for (const [name, address] of Object.entries(addresses)) {
          const code = await publicOf(node).getCode({ address })
          assert.isTrue(code !== undefined && code.length > 2, `${name} has code on ${node.chainId}`)
        }
      }
      const onchain = JSON.parse(readFileSync(join(dir, "out/onchain.json"), "utf8"))
      const catalog = JSON.parse(readFileSync(join(dir, "out/catalog.json"), "utf8"))
      assert.deepStrictEqual(onchain.chains, [ALPHA, BETA])
      assert.strictEqual(onchain.facade, addresses.facade)
      assert.deepStrictEqual(
        catalog.networks.map((n: { router: string; vault: string }) => [n.router, n.vault]),
        [[addresses.router, addresses.vault], [addresses.router, addresses.vault]]
      )
      const registryAbi = parseAbi([
        "function routeStatus(bytes32) view returns (uint8)",
        "function routeCount() view returns (uint256)",
        "function routeAt(uint256) view returns (bytes32)"
      ])
      for (const node of [alpha, beta]) {
        const client = publicOf(node)
        const count = await client.readContract({
          address: addresses.registry!,
          abi: registryAbi,
          functionName: "routeCount"
        })
        assert.strictEqual(count, 2n)
        for (const index of [0n, 1n]) {
          const routeId = await client.readContract({
            address: addresses.registry!,
            abi: registryAbi,
            functionName: "routeAt",
            args: [index]
          })
          const status = await client.readContract({
            address: addresses.registry!,
            abi: registryAbi,
            functionName: "routeStatus",
            args: [routeId]
          })
          assert.strictEqual(status, 2, "active")
        }
      }
      // again with the same inputs: no transaction, the same files byte for byte
      const nonces = [await nonceOf(alpha, deployer), await nonceOf(beta, deployer)]
      assert.deepStrictEqual(nonces, [10, 10], "six contracts, two routes registered and activated, on each chain")
      const files = [readFileSync(join(dir, "out/catalog.json")), readFileSync(join(dir, "out/onchain.json"))]
      const again = ok(await run([...deployArgs, ...rpcFlags], { env }), "deploy again")
      assert.deepStrictEqual(again.networks.map((n: { transactions: Array<string> }) => n.transactions), [[], []])
      assert.deepStrictEqual([await nonceOf(alpha, deployer), await nonceOf(beta, deployer)], nonces)
      assert.isTrue(readFileSync(join(dir, "out/catalog.json")).equals(files[0]!), "catalog.json identical")
      assert.isTrue(readFileSync(join(dir, "out/onchain.json")).equals(files[1]!), "onchain.json identical")
      lap("deploy again")

      // 4. the vaults
      const vaults = ok(
        await run([
          "fund",
          "--catalog",
          "out/catalog.json",
          ...rpcFlags,
          "--keystore",
          "keys/treasury.json",
          "--vault",
          `usdc.alpha=${100_000n * USDC}`,
          "--vault",
          `usdc.beta=${100_000n * USDC}`
        ]),
        "fund --vault"
      )
      assert.deepStrictEqual(vaults.transfers.map((t: { to: string }) => t.to), [addresses.vault, addresses.vault])
      const balanceOf = (node: AnvilNode, token: Hex, owner: Hex) =>
        publicOf(node).readContract({ address: token, abi: TOKEN_ABI, functionName: "balanceOf", args: [owner] })
      assert.strictEqual(await balanceOf(beta, tokens.beta, addresses.vault!), 100_000n * USDC)
      lap("vaults")

      // the wallets that pay fills (not the solver's): tokens on alpha, anvil's gas
      const user = privateKeyToAccount(USER_KEY).address
      await give(alpha, tokens.alpha, user, 1000n * USDC)
      await give(alpha, tokens.alpha, privateKeyToAccount(CONFORMANCE_KEY).address, 1000n * USDC)

      // 5. svc serve with the keystores and the written files
      server = spawn(process.execPath, [BIN, "serve"], {
        cwd: dir,
        env: childEnv({
          PORT: String(port),
          HOST: "127.0.0.1",
          SVC_PUBLIC_URL: publicUrl,
          SVC_DATA_DIR: join(dir, "data"),
          SVC_CATALOG: join(dir, "out/catalog.json"),
          SVC_ONCHAIN: join(dir, "out/onchain.json"),
          SVC_SIGNER_KEYSTORE: join(dir, "keys/authority.json"),
          SVC_PAYOUT_KEYSTORE: join(dir, "keys/payout.json"),
          SVC_KEYSTORE_PASSWORD_FILE: join(dir, "password"),
          SVC_RPC_URLS: JSON.stringify({ alpha: alpha.url, beta: beta.url }),
          SVC_LOG_LEVEL: "warning"
        }),
        stdio: ["ignore", "pipe", "pipe"]
      })
      let serverOut = ""
      let serverErr = ""
      server.stderr!.on("data", (d) => (serverErr = (serverErr + d).slice(-8000)))
      await new Promise<void>((resolve, reject) => {
        server!.stdout!.on("data", (d) => {
          serverOut += d
          if (/svc authority 0x[0-9a-fA-F]{40}\n/.test(serverOut)) resolve()
        })
        server!.once("exit", (code) => reject(new Error(`svc serve exited ${code}: ${serverErr}`)))
      })
      assert.include(serverOut, `svc listening on ${publicUrl}\n`)
      assert.include(serverOut, `svc authority ${authority}\n`, "signs with the authority keystore")
      await routeOpen(publicUrl, ALPHA, BETA)
      lap("serve")

      // 6. the ethers wallet (no svc code): a devnet.json-shaped file of these chains
      writeFileSync(
        join(dir, "chains.json"),
        JSON.stringify({
          server: publicUrl,
          chains: [
            { chainId: ALPHA, rpcUrl: alpha.url, router: addresses.router, tokens: { USDC: tokens.alpha } },
            { chainId: BETA, rpcUrl: beta.url, router: addresses.router, tokens: { USDC: tokens.beta } }
          ],
          user: { privateKey: USER_KEY, address: user }
        })
      )
      const wallet = await new Promise<Ran>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            join(ROOT, "examples/ethers-wallet/wallet.ts"),
            join(dir, "chains.json"),
            "--from",
            `${ALPHA}:USDC`,
            "--to",
            `${BETA}:USDC`,
            "--amount",
            String(25n * USDC),
            "--timeout",
            String(Math.round(scaled(180)))
          ],
          { cwd: dir, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] }
        )
        children.push(child)
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (d) => (stdout += d))
        child.stderr.on("data", (d) => (stderr += d))
        child.on("close", (code) => resolve({ code, stdout, stderr }))
      })
      assert.strictEqual(wallet.code, 0, `${wallet.stderr}\n${serverErr}`)
      assert.match(wallet.stdout, /^PAID fillId=0x[0-9a-f]{64}\n/)
      // 25 USDC less 5 bps: exactly amountOutRaw reached the user on beta (the wallet checked the balance too)
      assert.include(wallet.stdout, `amountInRaw ${25n * USDC} USDC -> amountOutRaw ${24_987_500n} USDC to ${user}`)
      lap("fill PAID")

      // 7. conformance, with the chains and one real fill
      const conformance = await run([
        "conformance",
        "--url",
        publicUrl,
        "--rpc",
        `${ALPHA}=${alpha.url}`,
        "--rpc",
        `${BETA}=${beta.url}`,
        "--execute",
        "--wallet-key",
        CONFORMANCE_KEY,
        "--execute-timeout",
        String(Math.round(scaled(180))),
        "--report",
        `json=${join(dir, "conformance.json")}`
      ])
      const report = JSON.parse(readFileSync(join(dir, "conformance.json"), "utf8")) as {
        results: Array<{ name: string; status: string; failures: Array<{ title: string; actual: string }> }>
      }
      const failed = report.results.filter((r) => r.status === "failed")
      assert.deepStrictEqual(
        failed.map((r) => `${r.name}: ${r.failures.map((f) => `${f.title} | ${f.actual}`).join("; ")}`),
        []
      )
      assert.strictEqual(conformance.code, 0, conformance.stdout.slice(-3000))
      assert.strictEqual(report.results.find((r) => r.name === "chain_execute_fill")?.status, "passed")
      lap("conformance")
    }
  )

  it("svc deploy refuses, one line and nothing sent: no deployment proxy, too little gas, other code at an address", {
    timeout: scaled(180_000)
  }, async () => {
    const node = await startAnvil({ chainId: ALPHA })
    try {
      const work = mkdtempSync(join(tmpdir(), "svc-deploy-refusals-"))
      writeFileSync(join(work, "password"), "pw\n")
      const catalog = {
        networks: [{ key: "alpha", name: "Alpha", vm: "EVM", chainId: String(ALPHA) }],
        assets: [{ key: "eth.alpha", network: "alpha", symbol: "ETH", decimals: 18, address: `0x${"0".repeat(40)}` }],
        routes: []
      }
      writeFileSync(join(work, "catalog.json"), JSON.stringify(catalog))
      const poor = generatePrivateKey()
      const treasury = TREASURY_KEY
      const deploy = (keystore: string) => [
        "deploy",
        "--catalog",
        "catalog.json",
        "--rpc",
        `alpha=${node.url}`,
        "--keystore",
        keystore,
        "--password-file",
        "password",
        "--authority",
        privateKeyToAccount(USER_KEY).address,
        "--operator",
        privateKeyToAccount(CONFORMANCE_KEY).address,
        "--discovery-uri",
        "https://solver.example/.well-known/svc-solver.json",
        "--out",
        "out"
      ]
      const keys = await Promise.all([
        svc(["keys", "import", "--out", "poor.json", "--password-file", "password", "--scrypt-n", "1024"], {
          cwd: work,
          stdin: poor
        }),
        svc(["keys", "import", "--out", "rich.json", "--password-file", "password", "--scrypt-n", "1024"], {
          cwd: work,
          stdin: treasury
        })
      ])
      for (const k of keys) assert.strictEqual(k.code, 0, k.stderr)
      const dry = JSON.parse((await svc([...deploy("rich.json"), "--dry-run"], { cwd: work })).stdout)
      const nonce = () => nonceOf(node, privateKeyToAccount(treasury).address)
      const before = await nonce()

      const poorRun = await svc(deploy("poor.json"), { cwd: work })
      assert.match(
        oneLineRefusal(poorRun),
        /^svc: alpha \(chain 31001\): too little gas: the deployer 0x[0-9a-fA-F]{40} holds 0 of the native coin, the plan needs up to [0-9.]+ \(\d+ gas at \d+ wei\); fund it and run again$/
      )

      await rpc(node.url, "anvil_setCode", [dry.addresses.vault, "0x6001600155"])
      assert.match(
        oneLineRefusal(await svc(deploy("rich.json"), { cwd: work })),
        new RegExp(
          `^svc: alpha \\(chain 31001\\): other code is already at ${dry.addresses.vault}, where the vault \\(SvcVaultV6\\) goes`
        )
      )
      await rpc(node.url, "anvil_setCode", [dry.addresses.vault, "0x"])

      await rpc(node.url, "anvil_setCode", ["0x4e59b44847b379578588920cA78FbF26c0B4956C", "0x"])
      assert.match(
        oneLineRefusal(await svc(deploy("rich.json"), { cwd: work })),
        /^svc: alpha \(chain 31001\): no deterministic-deployment proxy at 0x4e59b44847b379578588920cA78FbF26c0B4956C: /
      )
      assert.strictEqual(await nonce(), before, "nothing was sent")
      assert.isFalse(readdir(work).includes("out"), "nothing was written")
    } finally {
      await node.stop()
    }
  })
})

const readdir = (path: string): Array<string> => {
  try {
    return readdirSync(path)
  } catch {
    return []
  }
}
