/**
 * The harness checks itself before every run. Its checks compute what a
 * deployment should answer with `@svc/protocol`, the library the server is built
 * on, so a bug in a shared primitive would show up identically on both sides and
 * pass. Before any check runs, {@link run} verifies:
 *
 * 1. the harness's own primitives (the `@svc/protocol` functions the checks
 *    call: canonical JSON, feed hash and signer recovery, permit request message
 *    and its EIP-191 signature, the fillDirect selectors and calldata layout, the
 *    release id) against the neutral Appendix A vectors in
 *    `vectors/appendix-a.json` (a committed copy of
 *    `fixtures/upstream/appendix-a.json`, which no svc code generated);
 * 2. the second derivation ({@link Independent}, viem only) against the same
 *    vectors;
 * 3. that both derivations agree on a fixed set of inputs the vectors do not
 *    cover: tricky canonical JSON and its refusals, permit requests in every
 *    identity form and their refusals, EIP-712 permit digests and signers, ABI
 *    payloads both ways, and the identifiers (network, asset, account, route,
 *    quote).
 *
 * A disagreement makes the run pointless (the harness could not tell a right
 * answer from a wrong one), so the caller stops with the one-line `problem`.
 * {@link run} never throws: an exception inside a primitive is a problem too.
 *
 * @since 0.1.0
 */
import { CanonicalJson, FeedSignature, Ids, PermitAbi, PermitDigest, PermitMessage, Signature } from "@svc/protocol"
import { Result } from "effect"
import { readFileSync } from "node:fs"
import { toFunctionSelector } from "viem"
import * as Independent from "./Independent.ts"

/**
 * The outcome of the self-check. `verified` counts the comparisons that held;
 * `problem` (present when `ok` is false) is one line naming the first value
 * that disagreed, who computed what, and how many more disagreed.
 *
 * @category models
 * @since 0.1.0
 */
export interface SelfCheckResult {
  readonly ok: boolean
  readonly verified: number
  readonly durationMs: number
  readonly problem?: string
}

/**
 * Where the committed Appendix A vectors are, relative to this module (the same
 * relative path from `src/` and from `dist/`).
 *
 * @category constants
 * @since 0.1.0
 */
export const VECTORS_URL: URL = new URL("../vectors/appendix-a.json", import.meta.url)

const HARNESS = "the harness"
const SECOND = "the second path"

/** One comparison: `undefined` when it holds, else the text of the disagreement. */
interface Step {
  readonly what: string
  readonly check: () => string | undefined
}

// ---------------------------------------------------------------------------
// Rendering values for the problem line
// ---------------------------------------------------------------------------

const MAX_SHOWN = 120

const stable = (value: unknown): string => {
  if (typeof value === "bigint") return `${value}n`
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? String(value)
  if (Array.isArray(value)) return `[${value.map(stable).join(",")}]`
  const record = value as Record<string, unknown>
  return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${stable(record[k])}`).join(",")}}`
}

const shown = (value: unknown): string => {
  const text = stable(value)
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text
}

/**
 * Two renderings cut to a window around their first difference, so that a long
 * value (a message, a payload) still shows where it disagrees.
 */
const contrast = (a: unknown, b: unknown): readonly [string, string] => {
  const x = stable(a)
  const y = stable(b)
  if (x.length <= MAX_SHOWN && y.length <= MAX_SHOWN) return [x, y]
  let i = 0
  while (i < x.length && i < y.length && x[i] === y[i]) i++
  const from = Math.max(0, i - 40)
  const cut = (text: string) => {
    const part = text.slice(from, from + MAX_SHOWN)
    return `${from > 0 ? "…" : ""}${part}${from + MAX_SHOWN < text.length ? "…" : ""}`
  }
  return [cut(x), cut(y)]
}

/** The first line of an error's text; never throws, whatever was thrown. */
const firstLine = (error: unknown): string => {
  try {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    return text.split("\n")[0]!.slice(0, MAX_SHOWN)
  } catch {
    return "an exception that cannot be described"
  }
}

type Outcome = { readonly value: unknown } | { readonly error: unknown }

const attempt = (f: () => unknown): Outcome => {
  try {
    return { value: f() }
  } catch (error) {
    return { error }
  }
}

const describeOutcome = (outcome: Outcome): string =>
  "value" in outcome ? `gives ${shown(outcome.value)}` : `throws ${firstLine(outcome.error)}`

/** A value computed once, on first use (so that a throwing primitive fails its own step only). */
const lazy = <A>(f: () => A): () => A => {
  let done = false
  let value: A
  return () => {
    if (!done) {
      value = f()
      done = true
    }
    return value
  }
}

/** The success of a `Result`, or the failure thrown. */
const unwrap = <A, E>(result: Result.Result<A, E>): A => {
  if (Result.isFailure(result)) throw result.failure
  return result.success
}

// ---------------------------------------------------------------------------
// Step builders
// ---------------------------------------------------------------------------

/** `who` computes a value that must equal the vector's. */
const vector = (what: string, who: string, compute: () => unknown, expected: () => unknown): Step => ({
  what,
  check: () => {
    const want = attempt(expected)
    if (!("value" in want)) return `cannot read the vector (${firstLine(want.error)})`
    const got = attempt(compute)
    if (!("value" in got)) return `${who} ${describeOutcome(got)}, the vector says ${shown(want.value)}`
    if (stable(got.value) === stable(want.value)) return undefined
    const [mine, theirs] = contrast(got.value, want.value)
    return `${who} gives ${mine}, the vector says ${theirs}`
  }
})

/** The harness and the second path must compute the same value. */
const agree = (what: string, harness: () => unknown, second: () => unknown): Step => ({
  what,
  check: () => {
    const a = attempt(harness)
    const b = attempt(second)
    if ("value" in a && "value" in b) {
      if (stable(a.value) === stable(b.value)) return undefined
      const [x, y] = contrast(a.value, b.value)
      return `${HARNESS} gives ${x}, ${SECOND} gives ${y}`
    }
    return `${HARNESS} ${describeOutcome(a)}, ${SECOND} ${describeOutcome(b)}`
  }
})

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    ? (error as { code: string }).code
    : undefined

/** Both derivations must refuse the input (with the same `code` when `sameCode`). */
const refuse = (what: string, harness: () => unknown, second: () => unknown, sameCode = false): Step => ({
  what,
  check: () => {
    const a = attempt(harness)
    const b = attempt(second)
    if ("error" in a && "error" in b && (!sameCode || codeOf(a.error) === codeOf(b.error))) return undefined
    const side = (o: Outcome) =>
      "value" in o ? `accepts it (gives ${shown(o.value)})` : `refuses it (${firstLine(o.error)})`
    return `${HARNESS} ${side(a)}, ${SECOND} ${side(b)}`
  }
})

// ---------------------------------------------------------------------------
// (1) and (2): the Appendix A vectors
// ---------------------------------------------------------------------------

interface Vectors {
  readonly testKey: { readonly derivation: string; readonly privateKey: `0x${string}`; readonly address: string }
  readonly releaseId: { readonly value: string }
  readonly feed: {
    readonly signedPayload: Record<string, unknown>
    readonly canonicalPayload: string
    readonly feedHash: `0x${string}`
    readonly feedSignature: `0x${string}`
    readonly feedSigner: string
    readonly validAt: number
  }
  readonly permitRequestEvm: PermitVector & { readonly messageBytes: number }
  readonly permitRequestLocator: PermitVector
  readonly canonicalJson: { readonly input: unknown; readonly output: string }
  readonly abi: {
    readonly fillDirectSelector: string
    readonly previewFillDirectSelector: string
    readonly resolveExecutionSelector: string
    readonly signatureOffsetWord: string
    readonly signatureLengthWord: string
  }
}

interface PermitVector {
  readonly request: PermitMessage.PermitRequestInput
  readonly message: string
  readonly eip191Digest: string
  readonly requestSignature: string
}

/** The text of the test key's derivation, `keccak256(utf8("..."))` → `...`. */
const derivationText = (derivation: string): string => {
  const m = /^keccak256\(utf8\((".*")\)\)$/.exec(derivation)
  if (m === null) throw new Error(`unexpected derivation ${derivation}`)
  return JSON.parse(m[1]!) as string
}

const utf8Length = (text: string): number => new TextEncoder().encode(text).length

/** An ABI word as the vectors write it: `0x` + the number in hex without leading zeros. */
const wordAt = (calldata: string, index: number): string =>
  `0x${BigInt(`0x${calldata.slice(10 + 64 * index, 10 + 64 * (index + 1))}`).toString(16)}`

const vectorSteps = (v: Vectors): ReadonlyArray<Step> => {
  const harness: ReadonlyArray<Step> = [
    vector(
      "the test key's private key",
      HARNESS,
      () => Ids.label(derivationText(v.testKey.derivation)),
      () => v.testKey.privateKey
    ),
    vector("the test key's address", HARNESS, () => Signature.addressOf(v.testKey.privateKey), () => v.testKey.address),
    vector(
      "the release id keccak256(\"SVC_MAINNET_V6\")",
      HARNESS,
      () => Ids.label("SVC_MAINNET_V6"),
      () => v.releaseId.value
    ),
    vector(
      "canonical JSON of Appendix A canonicalJson",
      HARNESS,
      () => unwrap(CanonicalJson.stringifyResult(v.canonicalJson.input)),
      () => v.canonicalJson.output
    ),
    vector(
      "canonical JSON of the Appendix A feed's signedPayload",
      HARNESS,
      () => unwrap(CanonicalJson.stringifyResult(v.feed.signedPayload)),
      () => v.feed.canonicalPayload
    ),
    vector(
      "feedHash of the Appendix A feed",
      HARNESS,
      () => FeedSignature.hashCanonical(v.feed.canonicalPayload),
      () => v.feed.feedHash
    ),
    vector(
      "feed signer of the Appendix A feed (raw-digest recovery)",
      HARNESS,
      () => unwrap(Signature.recoverDigestSigner(v.feed.feedHash, v.feed.feedSignature)),
      () => v.feed.feedSigner
    ),
    vector(
      "feedSignature of the Appendix A feed signed with the test key",
      HARNESS,
      () => FeedSignature.signHash(v.feed.feedHash, v.testKey.privateKey),
      () => v.feed.feedSignature
    ),
    vector(
      "verification of the Appendix A feed at validAt",
      HARNESS,
      () =>
        unwrap(FeedSignature.verify({ ...v.feed, feedSigner: v.feed.feedSigner }, {
          now: v.feed.validAt,
          expectedSigner: v.testKey.address
        })).valid,
      () => true
    )
  ]
  const permitSteps = (name: "permitRequestEvm" | "permitRequestLocator"): ReadonlyArray<Step> => [
    vector(
      `permit request message of Appendix A ${name}`,
      HARNESS,
      () => PermitMessage.build(v[name].request),
      () => v[name].message
    ),
    vector(
      `EIP-191 digest of Appendix A ${name}`,
      HARNESS,
      () => Signature.personalMessageDigest(v[name].message),
      () => v[name].eip191Digest
    ),
    vector(
      `requestSignature of Appendix A ${name} signed with the test key`,
      HARNESS,
      () => PermitMessage.sign(v[name].message, v.testKey.privateKey),
      () => v[name].requestSignature
    ),
    vector(
      `signer of Appendix A ${name}`,
      HARNESS,
      () => unwrap(PermitMessage.recoverSigner(v[name].message, v[name].requestSignature)),
      () => v.testKey.address
    ),
    vector(
      `permit request message of Appendix A ${name}`,
      SECOND,
      () => Independent.permitRequestMessage(v[name].request),
      () => v[name].message
    ),
    vector(
      `EIP-191 digest of Appendix A ${name}`,
      SECOND,
      () => Independent.eip191Digest(v[name].message),
      () => v[name].eip191Digest
    ),
    vector(
      `signer of Appendix A ${name}`,
      SECOND,
      () => Independent.recoverRequestSigner(v[name].message, v[name].requestSignature),
      () => v.testKey.address
    )
  ]
  // any 65-byte signature gives the layout; the permit is one of the fixed ones below
  const calldata = () => PermitAbi.encodeFillDirect(PERMIT_BASE_BSC, PERMIT_BASE_BSC_SIGNATURE)
  const secondCalldata = () => Independent.fillDirectCalldata(PERMIT_BASE_BSC, PERMIT_BASE_BSC_SIGNATURE)
  const abi: ReadonlyArray<Step> = [
    vector("the fillDirect selector", HARNESS, () => PermitAbi.FILL_DIRECT_SELECTOR, () => v.abi.fillDirectSelector),
    vector(
      "the fillDirect selector in calldata",
      HARNESS,
      () => calldata().slice(0, 10),
      () => v.abi.fillDirectSelector
    ),
    vector(
      "the previewFillDirect selector",
      HARNESS,
      () => PermitAbi.PREVIEW_FILL_DIRECT_SELECTOR,
      () => v.abi.previewFillDirectSelector
    ),
    vector(
      "the resolveExecution selector",
      HARNESS,
      () => toFunctionSelector("resolveExecution(bytes)"),
      () => v.abi.resolveExecutionSelector
    ),
    vector(
      "the signature offset word of fillDirect calldata",
      HARNESS,
      () => wordAt(calldata(), 31),
      () => v.abi.signatureOffsetWord
    ),
    vector(
      "the signature length word of fillDirect calldata",
      HARNESS,
      () => wordAt(calldata(), 32),
      () => v.abi.signatureLengthWord
    ),
    vector("the fillDirect selector", SECOND, () => Independent.selectors.fillDirect, () => v.abi.fillDirectSelector),
    vector(
      "the previewFillDirect selector",
      SECOND,
      () => Independent.selectors.previewFillDirect,
      () => v.abi.previewFillDirectSelector
    ),
    vector(
      "the resolveExecution selector",
      SECOND,
      () => Independent.selectors.resolveExecution,
      () => v.abi.resolveExecutionSelector
    ),
    vector(
      "the signature offset word of fillDirect calldata",
      SECOND,
      () => wordAt(secondCalldata(), 31),
      () => v.abi.signatureOffsetWord
    ),
    vector(
      "the signature length word of fillDirect calldata",
      SECOND,
      () => wordAt(secondCalldata(), 32),
      () => v.abi.signatureLengthWord
    )
  ]
  const second: ReadonlyArray<Step> = [
    vector(
      "the test key's private key",
      SECOND,
      () => Independent.label(derivationText(v.testKey.derivation)),
      () => v.testKey.privateKey
    ),
    vector(
      "the test key's address",
      SECOND,
      () => Independent.addressOfPrivateKey(v.testKey.privateKey),
      () => v.testKey.address
    ),
    vector(
      "the release id keccak256(\"SVC_MAINNET_V6\")",
      SECOND,
      () => Independent.releaseId("SVC_MAINNET_V6"),
      () => v.releaseId.value
    ),
    vector(
      "canonical JSON of Appendix A canonicalJson",
      SECOND,
      () => Independent.canonicalJson(v.canonicalJson.input),
      () => v.canonicalJson.output
    ),
    vector(
      "canonical JSON of the Appendix A feed's signedPayload",
      SECOND,
      () => Independent.canonicalJson(v.feed.signedPayload),
      () => v.feed.canonicalPayload
    ),
    vector(
      "feed preimage of the Appendix A feed",
      SECOND,
      () => Independent.feedPreimage(v.feed.signedPayload),
      () => `SVC_MAINNET_V6_SIGNED_FEED_V1\n${v.feed.canonicalPayload}`
    ),
    vector(
      "feedHash of the Appendix A feed",
      SECOND,
      () => Independent.feedHash(v.feed.signedPayload),
      () => v.feed.feedHash
    ),
    vector(
      "feed signer of the Appendix A feed (raw-digest recovery)",
      SECOND,
      () => Independent.recoverFeedSigner(v.feed.feedHash, v.feed.feedSignature),
      () => v.feed.feedSigner
    )
  ]
  return [
    ...harness,
    ...permitSteps("permitRequestEvm"),
    vector(
      "UTF-8 length of the Appendix A permitRequestEvm message",
      HARNESS,
      () => utf8Length(PermitMessage.build(v.permitRequestEvm.request)),
      () => v.permitRequestEvm.messageBytes
    ),
    vector(
      "UTF-8 length of the Appendix A permitRequestEvm message",
      SECOND,
      () => utf8Length(Independent.permitRequestMessage(v.permitRequestEvm.request)),
      () => v.permitRequestEvm.messageBytes
    ),
    ...permitSteps("permitRequestLocator"),
    ...abi,
    ...second
  ]
}

// ---------------------------------------------------------------------------
// (3): agreement on fixed inputs
// ---------------------------------------------------------------------------

const hex32 = (byte: string): `0x${string}` => `0x${byte.repeat(32)}`
const TEST_KEY = "0xa0fc1e849bc97b1524e8999e1e532ee68c83236b7fe25d6908a52523d5b53659" as const
const RELEASE_ID = "0xb5115358e9045400030f2f70150cdb65f2fa9bbb8def79319cf4caac9c3490da"
const QUOTE_ID = hex32("20")

/** A Base → BSC permit (ids derived with the svc rules) and its signature by the test key. */
const PERMIT_BASE_BSC = {
  releaseId: RELEASE_ID,
  fillId: "0xf818e9db7316652877a14b37c2b46dc3e5ebf17f53c6d999370212e56f1d8b3b",
  permitNonce: "0x826f0a5142509755fc4d61f6ae8f52ab1f6e5b7c6f6fc61eb7cea4b23eb580ea",
  sourceNetworkId: "0x544ad7edb7b0f1641c7a55609623b3ae855a4cdb67f94914a6515539cbc108b1",
  sourceAssetId: "0x36c123720153626ab4281633c04c876bfc6d66443b70cdf6400e80cae1bb47e9",
  destinationNetworkId: "0x6c81f2267f5317557821817be831bcd38a2455b6268453483fd649f5902db126",
  destinationAssetId: "0x1a4ad35796c8b56da2854c2e390ee2d7daf2354279c96c126473c69c2d16df77",
  sourceVaultAccountId: "0xebdbb2366f3d1e889c61210563515975cfeeb4dd94ef68ad89c536ee112a3739",
  destinationVaultAccountId: "0x4d79e9429386984fb2b8524fa8596cde24a0e11d8fb33fa245133f87156342e3",
  payerAccountId: "0x6c4ec18e3a7f9aabd180e502e228f6667eed1978feabf84e37122964fdd39b65",
  recipientAccountId: "0x98787ab6e1504064b4e66c4b6507cf7c55e8aad02f7458e3ae4b686bab39cd9f",
  routeId: "0x1fef780f60a61686bcc659631f25fe7ad48d076cb0a56133e1bad7c87bedf8d1",
  quoteId: "0xb3eeb72226d419897af087e029e048f8643fb0bfeffc8f1832672cd26526ccc1",
  policyHash: "0x78d98684da1ac2a709dc8519f461f25d140f490f3f545a550869cd56fd3f7297",
  executionGeneration: "0xf41fdef20911eb775f4ee7d86e7dddfdb5bfb8fb08b95f56233bac2032caf6e1",
  dataVersion: "7",
  validAfter: "2000000000",
  validUntil: "2000000120",
  sourceFinalityBlocks: 2,
  settlementWindowSeconds: 900,
  sourceChainId: "8453",
  destinationChainId: "56",
  sourceAsset: "0x8453000000000000000000000000000000000001",
  destinationAsset: "0x0056000000000000000000000000000000000001",
  sourceVault: "0x8453000000000000000000000000000000000002",
  destinationVault: "0x0056000000000000000000000000000000000002",
  sourceRouter: "0x8453000000000000000000000000000000000003",
  payer: "0xcC2EC811171Ff13A707963157d0F4166594bFa73",
  recipient: "0x2222222222222222222222222222222222222222",
  amountInRaw: "2500000",
  amountOutRaw: "2497500000000000000",
  publicationLane: "L1",
  serviceCategory: "STABLE_TRANSFER",
  feeMode: "SPREAD_IN_PRICE",
  serviceFeeBps: 5
} as const satisfies PermitAbi.AbiPermit & Record<string, unknown>

const PERMIT_BASE_BSC_SIGNATURE =
  "0x0cf64d38d30bc5875a81a858d6beafb7cfb148fa4e95fc3686a82732531d54ef104708d7fcfb016b28362ff854a910031d79e46dd0cc43dda802e3b858b38a791b"

/** Every integer at the edge of its type, a non-EVM destination (chain id 0, zero addresses), mixed hex case. */
const PERMIT_EXTREMES: PermitAbi.AbiPermit = {
  ...PERMIT_BASE_BSC,
  fillId: PERMIT_BASE_BSC.fillId.toUpperCase().replace("0X", "0x"),
  dataVersion: "18446744073709551615",
  validAfter: "0",
  validUntil: "18446744073709551615",
  sourceFinalityBlocks: 4294967295,
  settlementWindowSeconds: 1,
  sourceChainId: "115792089237316195423570985008687907853269984665640564039457584007913129639935",
  destinationChainId: "0",
  destinationAsset: "0x0000000000000000000000000000000000000000",
  destinationVault: "0x0000000000000000000000000000000000000000",
  recipient: "0x0000000000000000000000000000000000000000",
  sourceRouter: "0xabcdefabcdefabcdefabcdefabcdefabcdefabcd",
  amountInRaw: "340282366920938463463374607431768211455",
  amountOutRaw: "0"
}

const CANONICAL_VALUES: ReadonlyArray<readonly [string, () => unknown]> = [
  ["key order by UTF-16 code units", () => ({
    "1": 5,
    "é": 1,
    z: 2,
    Z: 3,
    _: 4,
    "😀": 6,
    "Ａ": 7,
    "中": 8,
    "10": 9,
    "2": 0,
    "": 10
  })],
  ["string escapes", () => ({
    text: "q\"b\\s/\b\f\n\r\t\u0000\u001b\u001f\u007f\u2028\u2029<>&'",
    "key\n\"": "lone \ud800 high, lone \udc00 low, pair 😀, end \ud83d",
    persian: "شبکه‌ها",
    combining: ["é", "e\u0301"]
  })],
  ["integers and bigints", () => ({
    max: Number.MAX_SAFE_INTEGER,
    min: -Number.MAX_SAFE_INTEGER,
    negativeZero: -0,
    list: [0, -1, 1e15, -0],
    big: 1n << 128n,
    bigs: [0n, 10n]
  })],
  ["nesting, empty containers and special objects", () => ({
    a: [[], {}, [{ b: [null, true, false, ""] }]],
    nullPrototype: Object.assign(Object.create(null) as object, { y: 1, x: { d: 4, c: 3 } }),
    proto: JSON.parse("{\"__proto__\":1,\"constructor\":2}") as unknown
  })],
  ["a top-level string", () => "top\u2028level"]
]

const CANONICAL_REFUSED: ReadonlyArray<readonly [string, () => unknown]> = [
  ["a fraction", () => ({ fee: 2.5 })],
  ["2^53", () => [2 ** 53]],
  ["NaN", () => ({ n: Number.NaN })],
  ["an undefined member", () => ({ a: undefined })],
  // oxlint-disable-next-line no-sparse-arrays
  ["a sparse array", () => [1, , 2]],
  ["a Date", () => ({ at: new Date(0) })],
  ["a function", () => ({ f: () => 1 })]
]

const LOCATOR_TEXT = { memo: "line1\nline2", name: "شبکه", nested: { z: [1, "x"], a: null } }

const REQUESTS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["address form, hex case, lowercase standard, trimmed key, explicit nulls, largest amount", {
    quoteId: QUOTE_ID.toUpperCase().replace("0X", "0x"),
    requestedAmountInRaw: "340282366920938463463374607431768211455",
    standard: "oif:v1.0_x",
    payer: "0xcc2ec811171ff13a707963157d0f4166594bfa73",
    recipient: "0x682A1253CED985C92270483401D29081254BB4C5",
    payerAccountId: null,
    payerLocator: null,
    recipientAccountId: null,
    recipientLocator: null,
    idempotencyKey: "  key.with:all_chars-1\u00a0",
    requestSignature: "0x00"
  }],
  ["account form, object locators with escapes and non-ASCII text", {
    quoteId: QUOTE_ID,
    requestedAmountInRaw: "1",
    payerAccountId: hex32("AB"),
    payerLocator: { owner: "tWYtbSbr6mCME2sc1HoBbe73NKVG4YeQFcFKduH4V8i", cluster: "mainnet-beta" },
    recipientAccountId: hex32("cd"),
    recipientLocator: LOCATOR_TEXT,
    idempotencyKey: "locator-self-check-01"
  }],
  ["address payer, account recipient", {
    quoteId: QUOTE_ID,
    requestedAmountInRaw: "1000000",
    standard: "DIRECT",
    payer: "0xcC2EC811171Ff13A707963157d0F4166594bFa73",
    recipientAccountId: hex32("cd"),
    recipientLocator: { address: "T-addr", chain: "tron" },
    idempotencyKey: "mixed-self-check-01"
  }],
  ["account payer with a string locator, address recipient, null standard", {
    quoteId: QUOTE_ID,
    requestedAmountInRaw: "42",
    standard: null,
    payerAccountId: hex32("ab"),
    payerLocator: "So1anaPubKeyExample",
    recipient: "0x2222222222222222222222222222222222222222",
    idempotencyKey: "mixed-self-check-02"
  }]
]

const VALID_REQUEST = REQUESTS[2]![1]

const REQUESTS_REFUSED: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["a payer with a wrong EIP-55 checksum", { ...VALID_REQUEST, payer: "0xCC2EC811171Ff13A707963157d0F4166594bFa73" }],
  ["a payer given in both forms", { ...VALID_REQUEST, payerAccountId: hex32("ab"), payerLocator: "x" }],
  ["no recipient", { ...VALID_REQUEST, recipientAccountId: null, recipientLocator: null }],
  ["a recipient account without locator", { ...VALID_REQUEST, recipientLocator: undefined }],
  ["an array locator", { ...VALID_REQUEST, recipientLocator: ["x"] }],
  ["amount 0", { ...VALID_REQUEST, requestedAmountInRaw: "0" }],
  ["amount 2^128", { ...VALID_REQUEST, requestedAmountInRaw: "340282366920938463463374607431768211456" }],
  ["a hex amount", { ...VALID_REQUEST, requestedAmountInRaw: "0x10" }],
  ["an amount with a leading zero", { ...VALID_REQUEST, requestedAmountInRaw: "01" }],
  ["an empty standard", { ...VALID_REQUEST, standard: "" }],
  ["a 7-character idempotency key", { ...VALID_REQUEST, idempotencyKey: "1234567" }],
  ["a short quoteId", { ...VALID_REQUEST, quoteId: "0x2020" }]
]

const QUOTE_ROUTE = {
  routeId: PERMIT_BASE_BSC.routeId,
  pricingReferenceId: hex32("71"),
  validAfter: 1999990000,
  validUntil: "2000076400",
  executionGeneration: PERMIT_BASE_BSC.executionGeneration,
  policyHash: PERMIT_BASE_BSC.policyHash
}

/** A payload with a dirty high byte in the sourceAsset word (word 22), which Solidity refuses. */
const dirtyPayload = (): string => {
  const payload = PermitAbi.encodePayload(PERMIT_BASE_BSC, PERMIT_BASE_BSC_SIGNATURE)
  const at = 2 + 64 * 22
  return `${payload.slice(0, at)}01${payload.slice(at + 2)}`
}

const agreementSteps = (): ReadonlyArray<Step> => {
  const steps: Array<Step> = []
  for (const [name, value] of CANONICAL_VALUES) {
    steps.push(agree(
      `canonical JSON of ${name}`,
      () => unwrap(CanonicalJson.stringifyResult(value())),
      () => Independent.canonicalJson(value())
    ))
  }
  for (const [name, value] of CANONICAL_REFUSED) {
    steps.push(refuse(
      `canonical JSON of ${name} (no canonical form)`,
      () => unwrap(CanonicalJson.stringifyResult(value())),
      () => Independent.canonicalJson(value())
    ))
  }
  for (const [name, request] of REQUESTS) {
    steps.push(agree(
      `permit request message (${name})`,
      () => PermitMessage.build(request as unknown as PermitMessage.PermitRequestInput),
      () => Independent.permitRequestMessage(request)
    ))
  }
  for (const [name, request] of REQUESTS_REFUSED) {
    steps.push(refuse(
      `permit request with ${name} (refused)`,
      () => PermitMessage.build(request as unknown as PermitMessage.PermitRequestInput),
      () => Independent.permitRequestMessage(request),
      true
    ))
  }
  const message = () => Independent.permitRequestMessage(REQUESTS[1]![1])
  const messageSignature = lazy(() => PermitMessage.sign(message(), TEST_KEY))
  steps.push(agree(
    "signer of an account-form permit request signed by the harness",
    () => unwrap(PermitMessage.recoverSigner(message(), messageSignature())),
    () => Independent.recoverRequestSigner(message(), messageSignature())
  ))
  const permits = [
    ["base-bsc", PERMIT_BASE_BSC, () => PERMIT_BASE_BSC_SIGNATURE],
    ["extremes", PERMIT_EXTREMES, lazy(() => PermitDigest.sign(PERMIT_EXTREMES, TEST_KEY).permitSignature)]
  ] as const
  for (const [name, permit, signatureOf] of permits) {
    const signature = (): string => signatureOf()
    steps.push(
      agree(
        `EIP-712 permitDigest of permit ${name}`,
        () => PermitDigest.digest(permit),
        () => Independent.permitDigest(permit)
      ),
      agree(
        `permitSignature signer of permit ${name}`,
        () => unwrap(PermitDigest.recoverSigner(permit, signature())),
        () => Independent.recoverPermitSigner(permit, signature())
      ),
      agree(`ABI tuple of permit ${name}`, () => PermitAbi.encodeTuple(permit), () => Independent.permitTuple(permit)),
      agree(
        `ABI payload of permit ${name}`,
        () => PermitAbi.encodePayload(permit, signature()),
        () => Independent.permitPayload(permit, signature())
      ),
      agree(
        `fillDirect calldata of permit ${name}`,
        () => PermitAbi.encodeFillDirect(permit, signature()),
        () => Independent.fillDirectCalldata(permit, signature())
      ),
      agree(
        `decoded ABI payload of permit ${name}`,
        () => PermitAbi.decodePayload(PermitAbi.encodePayload(permit, signature())),
        () => Independent.decodePermitPayload(PermitAbi.encodePayload(permit, signature()))
      )
    )
  }
  steps.push(
    refuse(
      "a payload with a dirty address word (refused)",
      () => PermitAbi.decodePayload(dirtyPayload()),
      () => Independent.decodePermitPayload(dirtyPayload())
    ),
    refuse(
      "a permit with validUntil = 2^64 (no ABI form)",
      () =>
        PermitAbi.encodePayload({ ...PERMIT_BASE_BSC, validUntil: "18446744073709551616" }, PERMIT_BASE_BSC_SIGNATURE),
      () =>
        Independent.permitPayload({ ...PERMIT_BASE_BSC, validUntil: "18446744073709551616" }, PERMIT_BASE_BSC_SIGNATURE)
    ),
    refuse(
      "the permitDigest of a permit with a hex amount (refused)",
      () => PermitDigest.digest({ ...PERMIT_BASE_BSC, amountInRaw: "0x10" }),
      () => Independent.permitDigest({ ...PERMIT_BASE_BSC, amountInRaw: "0x10" })
    )
  )
  for (const chainId of ["8453", "56", "999", "1"]) {
    steps.push(
      agree(
        `networkId of EVM chain ${chainId}`,
        () => Ids.evmNetworkId(chainId),
        () => Independent.evmNetworkId(chainId)
      )
    )
  }
  const base = PERMIT_BASE_BSC.sourceNetworkId
  steps.push(
    agree(
      "assetId of the native coin on Base",
      () => Ids.evmAssetId(base, "0x0000000000000000000000000000000000000000"),
      () => Independent.evmAssetId(base, "0x0000000000000000000000000000000000000000")
    ),
    agree(
      "assetId of a token on Base",
      () => Ids.evmAssetId(base, PERMIT_BASE_BSC.sourceAsset),
      () => Independent.evmAssetId(base, PERMIT_BASE_BSC.sourceAsset)
    ),
    agree(
      "accountId of the test address on Base",
      () => Ids.evmAccountId(base, PERMIT_BASE_BSC.payer),
      () => Independent.evmAccountId(base, PERMIT_BASE_BSC.payer)
    ),
    agree(
      "routeId of route base-bsc",
      () => Ids.routeId(PERMIT_BASE_BSC),
      () => Independent.routeId(PERMIT_BASE_BSC)
    ),
    agree("quoteId of a route of base-bsc", () => Ids.quoteId(QUOTE_ROUTE), () => Independent.quoteId(QUOTE_ROUTE)),
    refuse(
      "the networkId of chain id 0x10 (refused)",
      () => Ids.evmNetworkId("0x10"),
      () => Independent.evmNetworkId("0x10")
    )
  )
  return steps
}

// ---------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------

/**
 * Reads the committed Appendix A vectors ({@link VECTORS_URL}).
 *
 * @throws when the file is missing or not JSON.
 * @category running
 * @since 0.1.0
 */
export const loadVectors = (): unknown => JSON.parse(readFileSync(VECTORS_URL, "utf8"))

const now = (): number => globalThis.performance.now()

/**
 * Runs the self-check against the given vectors (the parsed content of
 * `vectors/appendix-a.json`). Never throws.
 *
 * @category running
 * @since 0.1.0
 */
export const runWith = (vectors: unknown): SelfCheckResult => {
  const start = now()
  let verified = 0
  let first: string | undefined
  let failures = 0
  try {
    const steps = [...vectorSteps(vectors as Vectors), ...agreementSteps()]
    for (const step of steps) {
      let outcome: string | undefined
      try {
        outcome = step.check()
      } catch (error) {
        outcome = `the comparison itself threw ${firstLine(error)}`
      }
      if (outcome === undefined) {
        verified++
      } else {
        failures++
        first ??= `${step.what}: ${outcome}`
      }
    }
  } catch (error) {
    failures++
    first ??= `the self-check could not run: ${firstLine(error)}`
  }
  const durationMs = Math.round((now() - start) * 10) / 10
  if (first === undefined) return { ok: true, verified, durationMs }
  const more = failures > 1 ? ` (and ${failures - 1} more disagreement${failures > 2 ? "s" : ""})` : ""
  return { ok: false, verified, durationMs, problem: `${first}${more}`.replaceAll(/[\r\n]+/g, " ") }
}

/**
 * Runs the self-check against the committed Appendix A vectors. Never throws: a
 * missing or unreadable vectors file is a problem like any disagreement.
 *
 * @category running
 * @since 0.1.0
 */
export const run = (): SelfCheckResult => {
  const start = now()
  let vectors: unknown
  try {
    vectors = loadVectors()
  } catch (error) {
    return {
      ok: false,
      verified: 0,
      durationMs: Math.round((now() - start) * 10) / 10,
      problem: `cannot read the Appendix A vectors (${VECTORS_URL.pathname}): ${firstLine(error)}`
    }
  }
  const result = runWith(vectors)
  return { ...result, durationMs: Math.round((now() - start) * 10) / 10 }
}

/**
 * One line for a report or the console: `self-check: 120 values verified in
 * 95 ms`, or the problem.
 *
 * @category running
 * @since 0.1.0
 */
export const summary = (result: SelfCheckResult): string =>
  result.ok
    ? `self-check: ${result.verified} values verified in ${Math.round(result.durationMs)} ms`
    : `self-check failed: ${result.problem ?? "unknown problem"}`
