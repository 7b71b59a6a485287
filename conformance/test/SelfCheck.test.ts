/**
 * The self-check (src/SelfCheck.ts): it passes as the code stands, it is cheap,
 * and it refuses to vouch for the harness when one of the harness's own
 * primitives (from @svc/protocol) is broken: each case below replaces one
 * primitive in a fresh module graph and expects a one-line problem naming it.
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import type * as Protocol from "@svc/protocol"
import { Result } from "effect"
import { readFileSync } from "node:fs"
import { scaled } from "../../test/support/time.ts"
import * as SelfCheck from "../src/SelfCheck.ts"

const root = new URL("../../", import.meta.url)

type ProtocolModule = typeof Protocol

/** Runs the self-check with @svc/protocol patched (a fresh module graph, so the harness sees the patch). */
const runWith = async (patch: (original: ProtocolModule) => Partial<ProtocolModule>) => {
  vi.resetModules()
  vi.doMock("@svc/protocol", async (importOriginal) => {
    const original = await importOriginal<ProtocolModule>()
    return { ...original, ...patch(original) }
  })
  const fresh = await import("../src/SelfCheck.ts")
  return fresh.run()
}

afterEach(() => {
  vi.doUnmock("@svc/protocol")
  vi.doUnmock("node:fs")
  vi.resetModules()
})

/** Canonical JSON with keys sorted by code point instead of UTF-16 code units (differs only for astral keys). */
const byCodePoint = (value: unknown): string => {
  if (typeof value === "bigint") return `"${value}"`
  if (typeof value !== "object" || value === null) return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(byCodePoint).join(",")}]`
  const keys = Object.keys(value).sort((a, b) => {
    const x = [...a].map((c) => c.codePointAt(0)!)
    const y = [...b].map((c) => c.codePointAt(0)!)
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!
    return x.length - y.length
  })
  return `{${keys.map((k) => `${JSON.stringify(k)}:${byCodePoint((value as Record<string, unknown>)[k])}`).join(",")}}`
}

describe("SelfCheck", () => {
  it("passes as the code stands, quickly", () => {
    const result = SelfCheck.run()
    expect(result.problem).toBeUndefined()
    expect(result.ok).toBe(true)
    expect(result.verified).toBeGreaterThanOrEqual(95)
    // the budget is 300 ms; leave room for a loaded CI machine
    expect(result.durationMs).toBeLessThan(scaled(2000))
    expect(SelfCheck.summary(result)).toMatch(/^self-check: \d+ values verified in \d+ ms$/)
  })

  it("vectors/appendix-a.json is a byte-for-byte copy of fixtures/upstream/appendix-a.json", () => {
    const copy = readFileSync(SelfCheck.VECTORS_URL)
    const upstream = readFileSync(new URL("fixtures/upstream/appendix-a.json", root))
    expect(copy.equals(upstream)).toBe(true)
    expect(SelfCheck.VECTORS_URL.href).toBe(new URL("conformance/vectors/appendix-a.json", root).href)
  })

  it("the package ships the vectors", () => {
    const pkg = JSON.parse(readFileSync(new URL("conformance/package.json", root), "utf8")) as { files: Array<string> }
    expect(pkg.files).toContain("vectors")
  })

  it("refuses a vector the harness and the second path cannot reproduce", () => {
    const vectors = SelfCheck.loadVectors() as { feed: { feedHash: string } }
    const result = SelfCheck.runWith({ ...vectors, feed: { ...vectors.feed, feedHash: `0x${"00".repeat(32)}` } })
    expect(result.ok).toBe(false)
    expect(result.problem).toMatch(
      /^feedHash of the Appendix A feed: the harness gives "0xc7f9b2ef[0-9a-f]+", the vector says "0x0{64}" \(and \d+ more disagreements\)$/
    )
  })

  it("refuses vectors that are not the Appendix A vectors, without throwing", () => {
    for (const vectors of [null, {}, [], "x"]) {
      const result = SelfCheck.runWith(vectors)
      expect(result.ok).toBe(false)
      expect(result.problem).toMatch(/: cannot read the vector \(TypeError: /)
    }
  })

  it("refuses when the vectors file cannot be read", async () => {
    vi.resetModules()
    vi.doMock("node:fs", async (importOriginal) => ({
      ...(await importOriginal<typeof import("node:fs")>()),
      readFileSync: () => {
        throw new Error("ENOENT: no such file or directory")
      }
    }))
    const fresh = await import("../src/SelfCheck.ts")
    const result = fresh.run()
    expect(result).toMatchObject({ ok: false, verified: 0 })
    expect(result.problem).toMatch(/^cannot read the Appendix A vectors \(.*appendix-a\.json\): Error: ENOENT/)
  })
})

describe("SelfCheck with a broken primitive in the harness's copy of @svc/protocol", () => {
  const cases: ReadonlyArray<
    readonly [string, (p: ProtocolModule) => Partial<ProtocolModule>, RegExp]
  > = [
    [
      "canonical JSON that drops its last character",
      (p) => ({
        CanonicalJson: {
          ...p.CanonicalJson,
          stringifyResult: (value: unknown) => Result.map(p.CanonicalJson.stringifyResult(value), (s) => s.slice(0, -1))
        }
      }),
      /^canonical JSON of Appendix A canonicalJson: the harness gives "\{\\"a\\":null,.*\]", the vector says "\{\\"a\\":null,.*\]\}"/
    ],
    [
      "canonical JSON that swaps the first two keys of an object",
      (p) => ({
        CanonicalJson: {
          ...p.CanonicalJson,
          stringifyResult: (value: unknown) =>
            Result.map(
              p.CanonicalJson.stringifyResult(value),
              (s) => s.replace(/^\{("a":null),("unicode":"[^"]*")/, "{$2,$1")
            )
        }
      }),
      /^canonical JSON of Appendix A canonicalJson: the harness gives "\{\\"unicode\\"/
    ],
    [
      "canonical JSON that sorts keys by code point (only astral keys differ: caught by the agreement step)",
      (p) => ({
        CanonicalJson: {
          ...p.CanonicalJson,
          stringifyResult: (value: unknown) =>
            Result.flatMap(p.CanonicalJson.stringifyResult(value), () => Result.succeed(byCodePoint(value)))
        }
      }),
      /^canonical JSON of key order by UTF-16 code units: the harness gives .*, the second path gives /
    ],
    [
      "canonical JSON that throws",
      (p) => ({
        CanonicalJson: {
          ...p.CanonicalJson,
          stringifyResult: () => {
            throw new Error("boom")
          }
        }
      }),
      /^canonical JSON of Appendix A canonicalJson: the harness throws Error: boom, the vector says /
    ],
    [
      "a feed hash over another domain line",
      (p) => ({
        FeedSignature: {
          ...p.FeedSignature,
          hashCanonical: (text: string) => p.FeedSignature.hashCanonical(`${text}\n`)
        }
      }),
      /^feedHash of the Appendix A feed: the harness gives "0x[0-9a-f]{64}", the vector says "0xc7f9b2ef/
    ],
    [
      "signer recovery over the EIP-191 digest instead of the raw digest",
      (p) => ({
        Signature: {
          ...p.Signature,
          recoverDigestSigner: (digest: `0x${string}` | Uint8Array, signature: string) =>
            p.Signature.recoverPersonalMessageSigner(typeof digest === "string" ? digest : "", signature)
        }
      }),
      /^feed signer of the Appendix A feed \(raw-digest recovery\): the harness gives "0x[0-9a-fA-F]{40}", the vector says "0xcC2EC811/
    ],
    [
      "a permit request message with a trailing LF",
      (p) => ({
        PermitMessage: { ...p.PermitMessage, build: (request) => `${p.PermitMessage.build(request)}\n` }
      }),
      /^permit request message of Appendix A permitRequestEvm: the harness gives ….*sdk-vector-0001\\n", the vector says ….*sdk-vector-0001" \(/
    ],
    [
      "a permit request message that keeps the payer's checksum case",
      (p) => ({
        PermitMessage: {
          ...p.PermitMessage,
          build: (request) => p.PermitMessage.build(request).replace(/^payer=.*$/m, `payer=${String(request.payer)}`)
        }
      }),
      /^permit request message of Appendix A permitRequestEvm: the harness gives .*payer=0xcC2EC811/
    ],
    [
      "an EIP-712 permit digest over the wrong chain id (the domain's chainId)",
      (p) => ({
        PermitDigest: {
          ...p.PermitDigest,
          digest: (permit) =>
            p.PermitDigest.digest({ ...permit, sourceChainId: String(BigInt(permit.sourceChainId) ^ 1n) })
        }
      }),
      /^EIP-712 permitDigest of permit base-bsc: the harness gives "0x[0-9a-f]{64}", the second path gives "0x61c01ab7/
    ],
    [
      "an ABI payload with a wrong offset word",
      (p) => ({
        PermitAbi: {
          ...p.PermitAbi,
          encodePayload: (permit, signature) => {
            const payload = p.PermitAbi.encodePayload(permit, signature)
            const at = 2 + 64 * 31
            return `${payload.slice(0, at)}${"420".padStart(64, "0")}${payload.slice(at + 64)}` as `0x${string}`
          }
        }
      }),
      /^ABI payload of permit base-bsc: the harness gives .*, the second path gives /
    ],
    [
      "a routeId that leaves out the releaseId",
      (p) => ({
        Ids: {
          ...p.Ids,
          routeId: (input) => p.Ids.routeId({ ...input, releaseId: `0x${"00".repeat(32)}` })
        }
      }),
      /^routeId of route base-bsc: the harness gives "0x[0-9a-f]{64}", the second path gives "0x1fef780f/
    ],
    [
      "an EVM networkId from the chain id as a string",
      (p) => ({
        Ids: { ...p.Ids, evmNetworkId: (chainId) => p.Ids.label(String(chainId)) }
      }),
      /^networkId of EVM chain 8453: the harness gives "0x[0-9a-f]{64}", the second path gives "0x544ad7ed/
    ],
    [
      "a quoteId with the window bounds swapped",
      (p) => ({
        Ids: {
          ...p.Ids,
          quoteId: (input) => p.Ids.quoteId({ ...input, validAfter: input.validUntil, validUntil: input.validAfter })
        }
      }),
      /^quoteId of a route of base-bsc: the harness gives /
    ]
  ]

  it.each(cases)("%s", async (_, patch, problem) => {
    const result = await runWith(patch)
    expect(result.ok).toBe(false)
    expect(result.problem).toMatch(problem)
    expect(result.problem).not.toMatch(/[\r\n]/)
    expect(result.verified).toBeGreaterThan(0)
  })
})
