/**
 * The ABI fragments of EVM settlement are the reference contracts' own: every
 * event, function and error signature used is in the compiled artifacts.
 */
import { SvcMainnetRouterV6, SvcTestToken, SvcVaultV6 } from "@svc/contracts/artifacts"
import { type AbiEvent, type AbiFunction, toEventSelector, toFunctionSelector } from "viem"
import { describe, expect, it } from "vitest"
import { SETTLEMENT_ABI } from "../src/EvmSettlement.ts"

const selectorsOf = (abi: ReadonlyArray<{ readonly type: string }>) =>
  new Set(
    abi.flatMap((item) =>
      item.type === "event"
        ? [toEventSelector(item as AbiEvent)]
        : item.type === "function"
        ? [toFunctionSelector(item as AbiFunction)]
        : []
    )
  )

describe("EvmSettlement.SETTLEMENT_ABI", () => {
  it("matches the router's SourceFillV6 (indexed fields too), the vault's payout surface and ERC-20 balanceOf", () => {
    const compiled = selectorsOf([...SvcMainnetRouterV6.abi, ...SvcVaultV6.abi, ...SvcTestToken.abi])
    for (const item of SETTLEMENT_ABI) {
      const selector = item.type === "event" ? toEventSelector(item) : toFunctionSelector(item)
      expect(compiled.has(selector), `${item.type} ${item.name}`).toBe(true)
    }
    const event = (abi: ReadonlyArray<{ readonly type: string; readonly name?: string }>, name: string) =>
      (abi.find((i) => i.type === "event" && i.name === name) as AbiEvent).inputs.map((
        i
      ) => [i.name, i.type, i.indexed === true])
    expect(event(SETTLEMENT_ABI, "SourceFillV6")).toEqual(event(SvcMainnetRouterV6.abi, "SourceFillV6"))
    expect(event(SETTLEMENT_ABI, "PayoutV6")).toEqual(event(SvcVaultV6.abi, "PayoutV6"))
  })
})
