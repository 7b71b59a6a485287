/**
 * SvcMainnetRouterV6 and SvcVaultV6 on a real anvil (chain 8453): a permit signed by the
 * authority moves the payer's tokens (or native coin) into the source vault and
 * emits SourceFillV6; every check of fillDirect rejects with its named custom error
 * and previewFillDirect reports the same name; the vault pays out once per fillId.
 */
import { encodeAbiParameters, encodeFunctionData, type Hex, parseEventLogs, zeroAddress } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { SvcMainnetRouterV6, SvcTestToken, SvcVaultV6 } from "../src/artifacts.ts"
import { deploySvcSystem, deployToken, type SystemAddresses } from "../src/Deploy.ts"
import {
  decodePreviewReason,
  type ExecutionPermit,
  type PreviewReason,
  previewReasonCode,
  RELEASE_ID
} from "../src/Permit.ts"
import {
  ACCOUNTS,
  highS,
  KEYS,
  label,
  makePermit,
  type PermitBase,
  revertOf,
  signPermit,
  startChain,
  type TestChain
} from "./helpers.ts"

const CHAIN_ID = 8453
const SOURCE_FILL_V6_TOPIC0 = "0x77d880254b141dedc64867f6d2d253eedfc609837b892c4ddfe154a43ea80561"

let chain: TestChain
let addresses: SystemAddresses
let token: Hex
let snapshot: Hex

beforeAll(async () => {
  chain = await startChain(CHAIN_ID)
  const deployment = await deploySvcSystem(
    { wallet: chain.deployer, publicClient: chain.publicClient },
    {
      authority: ACCOUNTS.authority.address,
      operator: ACCOUNTS.operator.address,
      discoveryURI: "https://svc.example/.well-known/svc-solver.json"
    }
  )
  addresses = deployment.addresses
  token = await deployToken({ wallet: chain.deployer, publicClient: chain.publicClient }, {
    name: "USD Coin",
    symbol: "USDC",
    decimals: 6
  })
  await send(chain.deployer, {
    address: token,
    abi: SvcTestToken.abi,
    functionName: "mint",
    args: [ACCOUNTS.payer.address, 10n ** 12n]
  })
  snapshot = await chain.snapshot()
})

afterAll(async () => {
  await chain?.node.stop()
})

beforeEach(async () => {
  await chain.revert(snapshot)
  snapshot = await chain.snapshot()
})

/** Sends a contract call and waits for a successful receipt. */
const send = async (
  wallet: TestChain["deployer"],
  call: { address: Hex; abi: readonly unknown[]; functionName: string; args?: readonly unknown[]; value?: bigint }
) => {
  const hash = await wallet.writeContract({ ...call, chain: wallet.chain, account: wallet.account } as never)
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe("success")
  return receipt
}

const base = async (overrides?: Partial<PermitBase>): Promise<PermitBase> => ({
  chainId: BigInt(CHAIN_ID),
  router: addresses.router,
  vault: addresses.vault,
  sourceAsset: token,
  payer: ACCOUNTS.payer.address,
  now: await chain.latestTimestamp(),
  ...overrides
})

const balanceOf = (account: Hex) =>
  chain.publicClient.readContract({ address: token, abi: SvcTestToken.abi, functionName: "balanceOf", args: [account] })

const approveRouter = (amount: bigint) =>
  send(chain.walletOf(KEYS.payer), {
    address: token,
    abi: SvcTestToken.abi,
    functionName: "approve",
    args: [addresses.router, amount]
  })

const fill = (permit: ExecutionPermit, signature: Hex, from: Hex = KEYS.payer, value = 0n) => {
  const wallet = chain.walletOf(from)
  return wallet.writeContract({
    address: addresses.router,
    abi: SvcMainnetRouterV6.abi,
    functionName: "fillDirect",
    args: [permit, signature],
    value,
    chain: wallet.chain,
    account: wallet.account
  })
}

const preview = (permit: ExecutionPermit, signature: Hex, from: Hex = ACCOUNTS.payer.address) =>
  chain.publicClient.readContract({
    address: addresses.router,
    abi: SvcMainnetRouterV6.abi,
    functionName: "previewFillDirect",
    args: [permit, signature],
    account: from
  })

describe("SvcMainnetRouterV6.fillDirect", () => {
  it("a signed ERC-20 permit moves amountInRaw from the payer to the source vault and emits SourceFillV6", async () => {
    const permit = makePermit(await base())
    const signature = await signPermit(permit, KEYS.authority)
    expect(await preview(permit, signature)).toEqual([true, `0x${"00".repeat(32)}`])
    await approveRouter(permit.amountInRaw)
    const payerBefore = await balanceOf(ACCOUNTS.payer.address)

    const hash = await fill(permit, signature)
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe("success")

    expect(await balanceOf(ACCOUNTS.payer.address)).toBe(payerBefore - permit.amountInRaw)
    expect(await balanceOf(addresses.vault)).toBe(permit.amountInRaw)
    expect(await balanceOf(addresses.router)).toBe(0n)
    expect(
      await chain.publicClient.readContract({
        address: addresses.router,
        abi: SvcMainnetRouterV6.abi,
        functionName: "isFillUsed",
        args: [permit.fillId]
      })
    ).toBe(true)

    const routerLogs = receipt.logs.filter((log) => log.address.toLowerCase() === addresses.router.toLowerCase())
    expect(routerLogs).toHaveLength(1)
    expect(routerLogs[0]!.topics[0]).toBe(SOURCE_FILL_V6_TOPIC0)
    expect(routerLogs[0]!.topics.slice(1)).toEqual([permit.fillId, permit.routeId, permit.quoteId])
    const [event] = parseEventLogs({ abi: SvcMainnetRouterV6.abi, logs: routerLogs, eventName: "SourceFillV6" })
    expect(event!.args).toEqual({
      fillId: permit.fillId,
      routeId: permit.routeId,
      quoteId: permit.quoteId,
      payer: ACCOUNTS.payer.address,
      recipient: permit.recipient,
      sourceAsset: token,
      destinationAsset: permit.destinationAsset,
      destinationChainId: 56n,
      amountInRaw: permit.amountInRaw,
      amountOutRaw: permit.amountOutRaw,
      sourceFinalityBlocks: 2,
      settlementDeadline: permit.validUntil + 900n,
      permitNonce: permit.permitNonce,
      executionGeneration: permit.executionGeneration
    })
    // one ERC-20 fill (new fillId, vault's first balance) costs about 106k gas on anvil (README)
    expect(receipt.gasUsed).toBeLessThan(120_000n)
  })

  it("a native-coin permit (sourceAsset zero) forwards msg.value to the vault; a wrong value reverts NativeValueMismatch", async () => {
    const permit = makePermit(await base({ sourceAsset: zeroAddress }), { amountInRaw: 10n ** 17n })
    const signature = await signPermit(permit, KEYS.authority)
    const wrong = await revertOf(fill(permit, signature, KEYS.payer, permit.amountInRaw - 1n))
    expect(wrong).toEqual({ name: "NativeValueMismatch", args: [permit.amountInRaw, permit.amountInRaw - 1n] })

    const vaultBefore = await chain.publicClient.getBalance({ address: addresses.vault })
    const receipt = await chain.publicClient.waitForTransactionReceipt({
      hash: await fill(permit, signature, KEYS.payer, permit.amountInRaw)
    })
    expect(receipt.status).toBe("success")
    expect(await chain.publicClient.getBalance({ address: addresses.vault })).toBe(vaultBefore + permit.amountInRaw)
    expect(await chain.publicClient.getBalance({ address: addresses.router })).toBe(0n)
    const [event] = parseEventLogs({ abi: SvcMainnetRouterV6.abi, logs: receipt.logs, eventName: "SourceFillV6" })
    expect(event!.args.sourceAsset).toBe(zeroAddress)
    expect(event!.args.amountInRaw).toBe(permit.amountInRaw)
    const [received] = parseEventLogs({ abi: SvcVaultV6.abi, logs: receipt.logs, eventName: "NativeReceived" })
    expect(received!.args).toEqual({ from: addresses.router, amount: permit.amountInRaw })
  })

  it("an ERC-20 permit with msg.value reverts NativeValueMismatch; without allowance TokenTransferFailed", async () => {
    const permit = makePermit(await base())
    const signature = await signPermit(permit, KEYS.authority)
    expect(await revertOf(fill(permit, signature, KEYS.payer, 1n))).toEqual({
      name: "NativeValueMismatch",
      args: [0n, 1n]
    })
    expect(await revertOf(fill(permit, signature))).toEqual({ name: "TokenTransferFailed", args: [token] })
    await approveRouter(permit.amountInRaw - 1n)
    expect((await revertOf(fill(permit, signature))).name).toBe("TokenTransferFailed")
  })

  it("calldata with dirty high bits in an address or uint64 word is refused by the ABI decoder", async () => {
    const permit = makePermit(await base())
    const signature = await signPermit(permit, KEYS.authority)
    const clean = encodeFunctionData({
      abi: SvcMainnetRouterV6.abi,
      functionName: "previewFillDirect",
      args: [permit, signature]
    })
    const call = (data: Hex) => chain.publicClient.call({ to: addresses.router, data, account: ACCOUNTS.payer.address })
    expect((await call(clean)).data).toBe(
      encodeAbiParameters([{ type: "bool" }, { type: "bytes32" }], [true, `0x${"00".repeat(32)}`])
    )
    for (const word of [22, 14]) {
      // the first byte of word `word` of the arguments (after the 4-byte selector)
      const at = 2 + 2 * (4 + 32 * word)
      const dirty = `${clean.slice(0, at)}01${clean.slice(at + 2)}` as Hex
      await expect(call(dirty), `word ${word}`).rejects.toThrow()
    }
  })

  it("settlementDeadline is capped at 2^64 - 1 when validUntil + settlementWindowSeconds overflows uint64", async () => {
    const permit = makePermit(await base(), { validUntil: 2n ** 64n - 1n, settlementWindowSeconds: 3600 })
    const signature = await signPermit(permit, KEYS.authority)
    await approveRouter(permit.amountInRaw)
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: await fill(permit, signature) })
    const [event] = parseEventLogs({ abi: SvcMainnetRouterV6.abi, logs: receipt.logs, eventName: "SourceFillV6" })
    expect(event!.args.settlementDeadline).toBe(2n ** 64n - 1n)
  })
})

describe("SvcMainnetRouterV6 rejections (fillDirect reverts with the named error; previewFillDirect reports it)", () => {
  interface Case {
    readonly expected: PreviewReason
    readonly build: () => Promise<{ permit: ExecutionPermit; signature: Hex; from?: Hex }>
    readonly args?: (permit: ExecutionPermit, signature: Hex) => ReadonlyArray<unknown>
  }
  const signed = async (overrides: Partial<ExecutionPermit> = {}, key: Hex = KEYS.authority) => {
    const permit = makePermit(await base(), overrides)
    return { permit, signature: await signPermit(permit, key) }
  }
  const cases: Record<string, Case> = {
    "intake disabled": {
      expected: "SourceIntakeDisabled",
      build: async () => {
        await send(chain.deployer, {
          address: addresses.router,
          abi: SvcMainnetRouterV6.abi,
          functionName: "setSourceIntakeEnabled",
          args: [false]
        })
        return signed()
      }
    },
    "another release": {
      expected: "ReleaseMismatch",
      build: () => signed({ releaseId: label("SVC_MAINNET_V7") }),
      args: (p) => [p.releaseId]
    },
    "wrong chain id": {
      expected: "WrongSourceChain",
      build: () => signed({ sourceChainId: 56n }),
      args: () => [56n, BigInt(CHAIN_ID)]
    },
    "wrong router address": {
      expected: "WrongSourceRouter",
      build: () => signed({ sourceRouter: "0x8453000000000000000000000000000000000003" }),
      args: (p) => [p.sourceRouter]
    },
    "msg.sender is not the payer": {
      expected: "PayerMismatch",
      build: async () => ({ ...(await signed()), from: KEYS.other }),
      args: () => [ACCOUNTS.payer.address, ACCOUNTS.other.address]
    },
    "not yet valid": {
      expected: "PermitNotYetValid",
      build: async () => signed({ validAfter: (await chain.latestTimestamp()) + 3600n })
    },
    "expired (time advanced past validUntil)": {
      expected: "PermitExpired",
      build: async () => {
        const result = await signed({ validUntil: (await chain.latestTimestamp()) + 100n })
        await chain.testClient.increaseTime({ seconds: 200 })
        await chain.testClient.mine({ blocks: 1 })
        return result
      }
    },
    "replayed fillId": {
      expected: "FillAlreadyUsed",
      build: async () => {
        const result = await signed()
        await approveRouter(result.permit.amountInRaw * 2n)
        await chain.publicClient.waitForTransactionReceipt({ hash: await fill(result.permit, result.signature) })
        return result
      },
      args: (p) => [p.fillId]
    },
    "signature of 64 bytes": {
      expected: "InvalidSignatureLength",
      build: async () => {
        const result = await signed()
        return { ...result, signature: result.signature.slice(0, 130) as Hex }
      },
      args: () => [64n]
    },
    "high-s signature (the malleable twin of a valid one)": {
      expected: "InvalidSignatureS",
      build: async () => {
        const result = await signed()
        return { ...result, signature: highS(result.signature) }
      },
      args: (_, signature) => [`0x${signature.slice(66, 130)}`]
    },
    "v = 29": {
      expected: "InvalidSignatureV",
      build: async () => {
        const result = await signed()
        return { ...result, signature: `${result.signature.slice(0, 130)}1d` as Hex }
      },
      args: () => [29]
    },
    "v = 0 (yParity form)": {
      expected: "InvalidSignatureV",
      build: async () => {
        const result = await signed()
        return { ...result, signature: `${result.signature.slice(0, 130)}00` as Hex }
      }
    },
    "tampered amountInRaw (signature over another digest)": {
      expected: "InvalidPermitSignature",
      build: async () => {
        const result = await signed()
        return { ...result, permit: { ...result.permit, amountInRaw: result.permit.amountInRaw + 1n } }
      }
    },
    "wrong signer": {
      expected: "InvalidPermitSignature",
      build: () => signed({}, KEYS.other),
      args: () => [ACCOUNTS.other.address]
    },
    "rotated authority": {
      expected: "InvalidPermitSignature",
      build: async () => {
        const result = await signed()
        await send(chain.deployer, {
          address: addresses.router,
          abi: SvcMainnetRouterV6.abi,
          functionName: "setAuthority",
          args: [ACCOUNTS.other.address]
        })
        return result
      },
      args: () => [ACCOUNTS.authority.address]
    },
    "zero amountOutRaw": {
      expected: "ZeroAmount",
      build: () => signed({ amountOutRaw: 0n })
    }
  }

  for (const [title, { expected, build, args }] of Object.entries(cases)) {
    it(`${title} -> ${expected}`, async () => {
      const { permit, signature, from = KEYS.payer } = await build()
      await approveRouter(permit.amountInRaw)
      const [valid, reason] = await preview(permit, signature, privateKeyToAccount(from).address)
      expect(valid).toBe(false)
      expect(reason).toBe(previewReasonCode(expected))
      expect(decodePreviewReason(reason)).toBe(expected)
      const failure = await revertOf(fill(permit, signature, from))
      expect(failure.name).toBe(expected)
      if (args !== undefined) expect(failure.args).toEqual(args(permit, signature))
      expect(
        await chain.publicClient.readContract({
          address: addresses.router,
          abi: SvcMainnetRouterV6.abi,
          functionName: "isFillUsed",
          args: [permit.fillId]
        })
      ).toBe(expected === "FillAlreadyUsed")
    })
  }

  it("owner-only settings revert NotOwner for anyone else", async () => {
    const other = chain.walletOf(KEYS.other)
    for (
      const [functionName, args] of [["setSourceIntakeEnabled", [false]], ["setAuthority", [ACCOUNTS.other.address]], [
        "transferOwnership",
        [ACCOUNTS.other.address]
      ]] as const
    ) {
      const failure = await revertOf(
        other.writeContract({
          address: addresses.router,
          abi: SvcMainnetRouterV6.abi,
          functionName,
          args: args as never,
          chain: other.chain,
          account: other.account
        })
      )
      expect(failure).toEqual({ name: "NotOwner", args: [ACCOUNTS.other.address] })
    }
    const read = (functionName: "authority" | "sourceIntakeEnabled" | "owner" | "registry" | "releaseId") =>
      chain.publicClient.readContract({ address: addresses.router, abi: SvcMainnetRouterV6.abi, functionName })
    expect(await read("authority")).toBe(ACCOUNTS.authority.address)
    expect(await read("sourceIntakeEnabled")).toBe(true)
    expect(await read("owner")).toBe(ACCOUNTS.deployer.address)
    expect(await read("registry")).toBe(addresses.registry)
    expect(await read("releaseId")).toBe(RELEASE_ID)
  })
})

describe("SvcVaultV6.payout", () => {
  const payout = (from: Hex, fillId: Hex, asset: Hex, recipient: Hex, amount: bigint) => {
    const wallet = chain.walletOf(from)
    return wallet.writeContract({
      address: addresses.vault,
      abi: SvcVaultV6.abi,
      functionName: "payout",
      args: [fillId, asset, recipient, amount],
      chain: wallet.chain,
      account: wallet.account
    })
  }
  const recipient: Hex = "0x3333333333333333333333333333333333333333"

  it("the operator pays exactly amount once per fillId; a second payout reverts PayoutAlreadyPaid; others revert NotOperator", async () => {
    await send(chain.deployer, {
      address: token,
      abi: SvcTestToken.abi,
      functionName: "mint",
      args: [addresses.vault, 10n ** 9n]
    })
    const fillId = label("payout fill 1")
    const before = await balanceOf(recipient)
    expect(await revertOf(payout(KEYS.other, fillId, token, recipient, 1000n))).toEqual({
      name: "NotOperator",
      args: [ACCOUNTS.other.address]
    })

    const receipt = await chain.publicClient.waitForTransactionReceipt({
      hash: await payout(KEYS.operator, fillId, token, recipient, 123_456n)
    })
    expect(receipt.status).toBe("success")
    expect(await balanceOf(recipient)).toBe(before + 123_456n)
    const [event] = parseEventLogs({ abi: SvcVaultV6.abi, logs: receipt.logs, eventName: "PayoutV6" })
    expect(event!.args).toEqual({ fillId, recipient, token, amount: 123_456n })
    expect(
      await chain.publicClient.readContract({
        address: addresses.vault,
        abi: SvcVaultV6.abi,
        functionName: "paidOut",
        args: [fillId]
      })
    ).toBe(true)

    expect(await revertOf(payout(KEYS.operator, fillId, token, recipient, 123_456n))).toEqual({
      name: "PayoutAlreadyPaid",
      args: [fillId]
    })
    expect(await revertOf(payout(KEYS.operator, fillId, token, recipient, 1n))).toEqual({
      name: "PayoutAlreadyPaid",
      args: [fillId]
    })
    expect(await balanceOf(recipient)).toBe(before + 123_456n)
    expect(
      await chain.publicClient.readContract({
        address: addresses.vault,
        abi: SvcVaultV6.abi,
        functionName: "paidOut",
        args: [label("payout fill 2")]
      })
    ).toBe(false)
  })

  it("native-coin payouts, failed token transfers and the owner's operator rotation and withdrawal", async () => {
    await chain.testClient.setBalance({ address: addresses.vault, value: 10n ** 18n })
    const nativeBefore = await chain.publicClient.getBalance({ address: recipient })
    await chain.publicClient.waitForTransactionReceipt({
      hash: await payout(KEYS.operator, label("native fill"), zeroAddress, recipient, 5n * 10n ** 15n)
    })
    expect(await chain.publicClient.getBalance({ address: recipient })).toBe(nativeBefore + 5n * 10n ** 15n)

    // the vault holds no tokens: the transfer fails, and the fillId stays unpaid
    expect(await revertOf(payout(KEYS.operator, label("unfunded"), token, recipient, 1n))).toEqual({
      name: "TokenTransferFailed",
      args: [token]
    })
    expect(
      await chain.publicClient.readContract({
        address: addresses.vault,
        abi: SvcVaultV6.abi,
        functionName: "paidOut",
        args: [label("unfunded")]
      })
    ).toBe(false)

    const other = chain.walletOf(KEYS.other)
    expect(
      await revertOf(
        other.writeContract({
          address: addresses.vault,
          abi: SvcVaultV6.abi,
          functionName: "setOperator",
          args: [ACCOUNTS.other.address],
          chain: other.chain,
          account: other.account
        })
      )
    ).toEqual({ name: "NotOwner", args: [ACCOUNTS.other.address] })
    await send(chain.deployer, {
      address: addresses.vault,
      abi: SvcVaultV6.abi,
      functionName: "setOperator",
      args: [ACCOUNTS.other.address]
    })
    expect(await revertOf(payout(KEYS.operator, label("after rotation"), zeroAddress, recipient, 1n))).toEqual({
      name: "NotOperator",
      args: [ACCOUNTS.operator.address]
    })
    await chain.publicClient.waitForTransactionReceipt({
      hash: await payout(KEYS.other, label("after rotation"), zeroAddress, recipient, 1n)
    })

    const sink: Hex = "0x4444444444444444444444444444444444444444"
    const receipt = await send(chain.deployer, {
      address: addresses.vault,
      abi: SvcVaultV6.abi,
      functionName: "withdraw",
      args: [zeroAddress, sink, 7n]
    })
    expect(await chain.publicClient.getBalance({ address: sink })).toBe(7n)
    const [withdrawal] = parseEventLogs({ abi: SvcVaultV6.abi, logs: receipt.logs, eventName: "Withdrawal" })
    expect(withdrawal!.args).toEqual({ token: zeroAddress, to: sink, amount: 7n })
  })
})
