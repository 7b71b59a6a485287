/**
 * The committed artifacts against the sources (drift), and the ABI facts other
 * packages rely on: selectors of @svc/protocol Onchain.ts and docs/protocol.md, the SourceFillV6
 * topic0, the module interface id, the permit tuple and the CREATE2 salts.
 * Compiles once for the file (viaIR takes several seconds).
 */
import { readFileSync } from "node:fs"
import { type AbiFunction, keccak256, stringToBytes, toEventSelector, toFunctionSelector } from "viem"
import { beforeAll, describe, expect, it } from "vitest"
import * as Artifacts from "../src/artifacts.ts"
import { SALTS } from "../src/Deploy.ts"
import { type Compilation, compile, CONTRACTS, PACKAGE_ROOT, renderFiles } from "../src/internal/Build.ts"
import { PERMIT_TYPES, RELEASE_ID } from "../src/Permit.ts"

const selectorsOf = (abi: ReadonlyArray<{ type: string }>): Record<string, string> =>
  Object.fromEntries(
    abi.filter((item): item is AbiFunction => item.type === "function").map((f) => [f.name, toFunctionSelector(f)])
  )

describe("artifacts", () => {
  let compilation: Compilation

  beforeAll(() => {
    compilation = compile()
  }, 120_000)

  it("the committed artifacts/ and src/artifacts.ts are what the sources compile to (rebuild: node packages/contracts/scripts/build.ts)", () => {
    expect(compilation.warnings).toEqual([])
    const files = renderFiles(compilation)
    expect([...files.keys()].sort()).toEqual(
      [...CONTRACTS.map((c) => `artifacts/${c.name}.json`), "artifacts/standard-json-input.json", "src/artifacts.ts"]
        .sort()
    )
    for (const [path, content] of files) {
      expect(readFileSync(new URL(path, PACKAGE_ROOT), "utf8") === content, `${path} is out of date`).toBe(true)
    }
  })

  it("artifact JSON carries the compiler settings (viaIR, 200 runs, cancun, no metadata hash) and the source hash", () => {
    const router = JSON.parse(readFileSync(new URL("artifacts/SvcMainnetRouterV6.json", PACKAGE_ROOT), "utf8"))
    expect(router.contractName).toBe("SvcMainnetRouterV6")
    expect(router.compiler.version).toMatch(/^0\.8\.37\+commit\./)
    expect(router.compiler.settings).toMatchObject({
      viaIR: true,
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
      metadata: { bytecodeHash: "none" }
    })
    expect(router.sourceHash).toBe(Artifacts.SOURCE_HASH)
    expect(router.runtimeCodeHash).toBe(keccak256(router.deployedBytecode))
    expect(router.bytecode).toBe(Artifacts.SvcMainnetRouterV6.bytecode)
  })
})

describe("ABI facts", () => {
  it("fillDirect is 0xeeff9007 and previewFillDirect 0xff5da6a9, over the 31-field tuple of docs/protocol.md", () => {
    const router = selectorsOf(Artifacts.SvcMainnetRouterV6.abi)
    expect(router["fillDirect"]).toBe("0xeeff9007")
    expect(router["previewFillDirect"]).toBe("0xff5da6a9")
    const fields =
      JSON.parse(readFileSync(new URL("../../fixtures/protocol/permit-digest/vectors.json", PACKAGE_ROOT), "utf8"))
        .cases[0].fields
    expect(PERMIT_TYPES.ExecutionPermit).toEqual(fields)
    expect(PERMIT_TYPES.ExecutionPermit).toHaveLength(31)
  })

  it("SourceFillV6 has the topic0 of the discovery document", () => {
    const event = Artifacts.SvcMainnetRouterV6.abi.find((item) =>
      item.type === "event" && item.name === "SourceFillV6"
    )!
    expect(toEventSelector(event as never)).toBe("0x77d880254b141dedc64867f6d2d253eedfc609837b892c4ddfe154a43ea80561")
  })

  it("the facade and module selectors are those of @svc/protocol Onchain.ts", () => {
    expect(selectorsOf(Artifacts.SvcSolverDiscoveryV6.abi)).toMatchObject({
      discoveryURI: "0x5b9b12c1",
      isLive: "0xb8f7a665",
      systemState: "0x991292e3",
      routeCount: "0xbf539cb4",
      routeAt: "0xd7194164",
      route: "0x95bc81be"
    })
    const sig = (s: string) => toFunctionSelector(s)
    expect(selectorsOf(Artifacts.SvcERC7683ModuleV6.abi)).toMatchObject({
      standardId: sig("standardId()"),
      supportsInterface: sig("supportsInterface(bytes4)"),
      resolve: sig("resolve(bytes)"),
      resolveExecution: sig("resolveExecution(bytes)"),
      router: sig("router()")
    })
    expect(selectorsOf(Artifacts.SvcOIFModuleV6.abi)).toMatchObject({
      standardId: sig("standardId()"),
      supportsInterface: sig("supportsInterface(bytes4)"),
      compatibilityLevel: sig("compatibilityLevel()"),
      resolveExecution: sig("resolveExecution(bytes)"),
      describeMandate: sig("describeMandate(bytes)"),
      router: sig("router()")
    })
    const interfaceId = (Number.parseInt(sig("standardId()").slice(2), 16) ^
      Number.parseInt(sig("resolveExecution(bytes)").slice(2), 16)) >>> 0
    expect(interfaceId.toString(16).padStart(8, "0")).toBe("8d60d6f9")
    expect(sig("supportsInterface(bytes4)")).toBe("0x01ffc9a7")
  })

  it("the registry functions the facade calls exist with the expected signatures", () => {
    const registry = selectorsOf(Artifacts.SvcMainnetRegistryV6.abi)
    for (
      const signature of [
        "releaseId()",
        "getRoute(bytes32)",
        "executionGeneration(bytes32)",
        "isRouteExecutable(bytes32)",
        "routeStatus(bytes32)",
        "routeCount()",
        "routeAt(uint256)",
        "localAssetAddress(bytes32,bytes32)",
        "registerRoute(bytes32,bytes32,bytes32,bytes32,bytes32,bytes32)",
        "setRouteStatus(bytes32,uint8)"
      ]
    ) {
      expect(Object.values(registry), signature).toContain(toFunctionSelector(signature))
    }
  })

  it("releaseId and salts are the documented label hashes", () => {
    expect(RELEASE_ID).toBe("0xb5115358e9045400030f2f70150cdb65f2fa9bbb8def79319cf4caac9c3490da")
    expect(SALTS.facade).toBe("0x1ef1dfed1bcc3525e588ba9054fcd502b8b69ae550ac3e2aa6c0f206ddf3e0ca")
    expect(SALTS.router).toBe(keccak256(stringToBytes("SVC_V6_ROUTER")))
    expect(new Set(Object.values(SALTS)).size).toBe(6)
  })
})
