/**
 * A wallet written with ethers v6 and node's built-ins only: no svc code. It does one
 * cross-chain fill against `npm run devnet` from the documented wire formats
 * (docs/protocol.md, docs/devnet.md):
 *
 * 1. reads the solver manifest and the signed feed, and verifies the feed: feedHash
 *    (keccak256 of the domain line and the canonical JSON of `signedPayload`) and
 *    the feed signer's signature over it, pinned to the manifest's `feedSigner`;
 * 2. picks the open route from chain 8453's USDC to chain 56's USDT;
 * 3. builds the permit request message, signs it (EIP-191 `personal_sign`) and asks
 *    for an execution permit with an idempotency key;
 * 4. verifies the permit: its EIP-712 permitDigest, the authority's signature and
 *    that it binds what was asked;
 * 5. approves the router for amountInRaw and sends `fillDirect` (calldata
 *    `0xeeff9007 ‖ abi.encode(ExecutionPermit, bytes permitSignature)`);
 * 6. polls the permit until PAID and checks that the recipient's USDT balance on
 *    chain 56 rose by exactly amountOutRaw.
 *
 *   npm run devnet                                    # terminal 1
 *   node examples/ethers-wallet/wallet.ts .svc-devnet/devnet.json
 *
 * Options: --amount <raw units> (default 25 times the route's minimum), --signer <address>
 * (pin another feed signer than the manifest's), --timeout <seconds> (default 120),
 * --from <chainId>:<SYMBOL> and --to <chainId>:<SYMBOL> (the route, by the chains and
 * token symbols of devnet.json; default 8453:USDC and 56:USDT). Progress goes
 * to standard error, the summary to standard output; exit 0 when the fill is PAID,
 * 1 with one `ethers wallet: …` line on any failure.
 */
import {
  AbiCoder,
  Contract,
  getAddress,
  hexlify,
  id,
  isAddress,
  JsonRpcProvider,
  keccak256,
  Network,
  randomBytes,
  recoverAddress,
  toUtf8Bytes,
  TypedDataEncoder,
  Wallet
} from "ethers"
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"

// ---------------------------------------------------------------------------
// Constants of the protocol (docs/protocol.md)
// ---------------------------------------------------------------------------

const MANIFEST_PATH = "/.well-known/svc-solver.json"
const MANIFEST_SCHEMA = "SVC_MAINNET_V6_SOLVER_DISCOVERY_V2"
const FEED_SCHEMA = "SVC_MAINNET_V6_SIGNED_FEED_V1"
const PERMIT_REQUEST_DOMAIN = "SVC_MAINNET_V6_EXECUTION_PERMIT_REQUEST_V1"
/** secp256k1 n / 2: a signature with a larger s is refused (docs/protocol.md, feedSignature). */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** The 31 members of the on-chain ExecutionPermit, in ABI (and EIP-712) order. */
const PERMIT_FIELDS = [
  ["releaseId", "bytes32"],
  ["fillId", "bytes32"],
  ["routeId", "bytes32"],
  ["quoteId", "bytes32"],
  ["policyHash", "bytes32"],
  ["permitNonce", "bytes32"],
  ["sourceNetworkId", "bytes32"],
  ["sourceAssetId", "bytes32"],
  ["destinationNetworkId", "bytes32"],
  ["destinationAssetId", "bytes32"],
  ["sourceVaultAccountId", "bytes32"],
  ["destinationVaultAccountId", "bytes32"],
  ["payerAccountId", "bytes32"],
  ["recipientAccountId", "bytes32"],
  ["dataVersion", "uint64"],
  ["executionGeneration", "bytes32"],
  ["validAfter", "uint64"],
  ["validUntil", "uint64"],
  ["sourceFinalityBlocks", "uint32"],
  ["settlementWindowSeconds", "uint32"],
  ["sourceChainId", "uint256"],
  ["destinationChainId", "uint256"],
  ["sourceAsset", "address"],
  ["destinationAsset", "address"],
  ["sourceVault", "address"],
  ["destinationVault", "address"],
  ["sourceRouter", "address"],
  ["payer", "address"],
  ["recipient", "address"],
  ["amountInRaw", "uint128"],
  ["amountOutRaw", "uint128"]
] as const

const PERMIT_TYPES = { ExecutionPermit: PERMIT_FIELDS.map(([name, type]) => ({ name, type })) }
/** keccak256 of the EIP-712 encodeType (docs/protocol.md, "The digest"). */
const PERMIT_TYPEHASH = "0x3c56605fd6ff9654c2b2f2d45652c34594e5ccd621bef0f8eda9352aff52f499"
const PERMIT_TUPLE = `(${PERMIT_FIELDS.map(([, type]) => type).join(",")})`
const FILL_DIRECT_SELECTOR = "0xeeff9007"
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"

const ERC20_ABI = [
  "function approve(address spender, uint256 amount) returns (bool)",
  "function balanceOf(address owner) view returns (uint256)"
]
const PREVIEW_ABI = [`function previewFillDirect(${PERMIT_TUPLE} permit, bytes signature) view returns (bool, bytes32)`]

// ---------------------------------------------------------------------------
// Types of what the server sends (only the fields this wallet reads)
// ---------------------------------------------------------------------------

type Hex = string

interface DevnetFile {
  /** null when the devnet runs its chains only */
  readonly server: string | null
  readonly chains: ReadonlyArray<{
    readonly chainId: number
    readonly rpcUrl: string
    readonly router: Hex
    readonly tokens: Readonly<Record<string, Hex>>
  }>
  readonly user: { readonly privateKey: Hex; readonly address: Hex }
}

interface Manifest {
  readonly schema: string
  readonly feedSigner: Hex
  readonly endpoints: {
    readonly solverFeed: string
    readonly permitRequestMessage: string
    readonly executionPermits: string
    readonly permitStatusTemplate: string
  }
}

interface Route {
  readonly routeId: Hex
  readonly quoteId: Hex
  readonly sourceChainId: string | null
  readonly destinationChainId: string | null
  readonly sourceAsset: Hex | null
  readonly destinationAsset: Hex | null
  readonly sourceVault: Hex | null
  readonly destinationVault: Hex | null
  readonly sourceRouter: Hex | null
  readonly sourceNetworkId: Hex
  readonly sourceAssetId: Hex
  readonly destinationNetworkId: Hex
  readonly destinationAssetId: Hex
  readonly policyHash: Hex
  readonly executionGeneration: Hex
  readonly sourceFinalityBlocks: number
  readonly settlementWindowSeconds: number
  readonly open: boolean
  readonly validUntil: number
  readonly minimumFillInRaw: string
  readonly maxAvailableInRaw: string
}

interface SignedPayload {
  readonly schema: string
  readonly releaseId: Hex
  readonly dataVersion: string
  readonly generatedAt: number
  readonly validUntil: number
  readonly routes: ReadonlyArray<Route>
}

interface SignedFeed {
  readonly signedPayload: SignedPayload
  readonly feedHash: Hex
  readonly feedSigner: Hex
  readonly feedSignature: Hex
}

type Permit = Readonly<Record<(typeof PERMIT_FIELDS)[number][0], string | number>>

interface Envelope {
  readonly fillId: Hex
  readonly state: string
  readonly idempotencyKey: string
  readonly expiresAt: number
  readonly permit: Permit
  readonly permitDigest: Hex
  readonly permitSignature: Hex
  readonly execution: { readonly target: Hex; readonly function: string }
  readonly sourceTxHash: Hex | null
  readonly payoutTxHash: Hex | null
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

class WalletError extends Error {}

const fail = (message: string): never => {
  throw new WalletError(message)
}

const progress = (line: string) => process.stderr.write(`ethers wallet: ${line}\n`)

const now = () => Math.floor(Date.now() / 1000)

const sameAddress = (a: string | null | undefined, b: string | null | undefined) =>
  typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Canonical JSON (docs/protocol.md, "Canonical JSON"): keys sorted by UTF-16 code
 * units at every depth, no whitespace, JSON.stringify escaping, integers within
 * ±(2^53 − 1) only.
 */
const canonicalJson = (value: unknown, path = "$"): string => {
  if (value === null) return "null"
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false"
    case "string":
      return JSON.stringify(value)
    case "number":
      if (!Number.isSafeInteger(value)) fail(`canonical JSON: ${path} is not a safe integer`)
      return JSON.stringify(value)
    case "object": {
      if (Array.isArray(value)) return `[${value.map((v, i) => canonicalJson(v, `${path}[${i}]`)).join(",")}]`
      const object = value as Record<string, unknown>
      // the default sort compares UTF-16 code units
      const keys = Object.keys(object).sort()
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k], `${path}.${k}`)}`).join(",")}}`
    }
    default:
      return fail(`canonical JSON: ${path} has no JSON form`)
  }
}

/**
 * The signer of a 65-byte `r ‖ s ‖ v` signature over a 32-byte digest, or a reason
 * why it has none: malformed, r or s out of range, high-s (refused, as svc does) or
 * a bad v.
 */
const recoverStrict = (digest: Hex, signature: string): { signer: Hex } | { refused: string } => {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return { refused: "not 65 bytes of hex" }
  const r = BigInt(`0x${signature.slice(2, 66)}`)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130, 132), 16)
  if (r === 0n || r >= N || s === 0n || s >= N) return { refused: "r or s out of range" }
  if (s > HALF_N) return { refused: "high-s signature" }
  if (![0, 1, 27, 28].includes(v)) return { refused: `bad v ${v}` }
  try {
    return { signer: recoverAddress(digest, signature) }
  } catch (e) {
    return { refused: `unrecoverable (${e instanceof Error ? e.message : String(e)})` }
  }
}

interface HttpAnswer {
  readonly status: number
  readonly body: any
  readonly retryAfter: number | undefined
}

/** One HTTP exchange with a JSON answer (a network failure or a non-JSON answer fails). */
const http = async (method: "GET" | "POST", url: string, init?: {
  readonly body?: string
  readonly headers?: Record<string, string>
}): Promise<HttpAnswer> => {
  let response: Response
  try {
    response = await fetch(url, {
      method,
      headers: { accept: "application/json", ...init?.headers },
      ...(init?.body === undefined ? {} : { body: init.body }),
      signal: AbortSignal.timeout(15_000)
    })
  } catch (e) {
    return fail(`${method} ${url}: no answer (${e instanceof Error ? (e.cause ?? e.message) : String(e)})`)
  }
  const text = await response.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return fail(`${method} ${url}: HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`)
  }
  const retryAfter = response.headers.get("retry-after")
  return { status: response.status, body, retryAfter: retryAfter === null ? undefined : Number(retryAfter) }
}

/** The server's ErrorResponse `{ok: false, error, reasonCodes?}` as one line. */
const describeError = (answer: HttpAnswer) => {
  const body = answer.body as { error?: unknown; reasonCodes?: unknown } | null
  const codes = Array.isArray(body?.reasonCodes) && body.reasonCodes.length > 0
    ? ` (${body.reasonCodes.join(", ")})`
    : ""
  return `HTTP ${answer.status} ${typeof body?.error === "string" ? body.error : "?"}${codes}`
}

const provider = (rpcUrl: string, chainId: number) =>
  new JsonRpcProvider(rpcUrl, Network.from(chainId), { staticNetwork: true, pollingInterval: 250 })

// ---------------------------------------------------------------------------
// The steps
// ---------------------------------------------------------------------------

/** 1. The manifest and the verified feed. */
const readVerifiedFeed = async (server: string, pinnedSigner: string | undefined) => {
  const manifestAnswer = await http("GET", `${server.replace(/\/+$/, "")}${MANIFEST_PATH}`)
  if (manifestAnswer.status !== 200) fail(`solver manifest: ${describeError(manifestAnswer)}`)
  const manifest = manifestAnswer.body as Manifest
  if (manifest.schema !== MANIFEST_SCHEMA) fail(`solver manifest: schema ${String(manifest.schema)}`)
  if (!isAddress(manifest.feedSigner)) fail("solver manifest: no feedSigner")
  const expectedSigner = getAddress(pinnedSigner ?? manifest.feedSigner)
  if (!sameAddress(manifest.feedSigner, expectedSigner)) {
    fail(`solver manifest: feedSigner ${manifest.feedSigner} is not the pinned signer ${expectedSigner}`)
  }

  const feedAnswer = await http("GET", manifest.endpoints.solverFeed)
  if (feedAnswer.status !== 200 || feedAnswer.body?.ok !== true) fail(`feed: ${describeError(feedAnswer)}`)
  const feed = feedAnswer.body.feed as SignedFeed
  const payload = feed.signedPayload
  if (payload?.schema !== FEED_SCHEMA || !Array.isArray(payload.routes)) fail("feed: no signed payload")

  // feedHash = keccak256(UTF-8(domain + LF + canonicalJson(signedPayload)))
  const computedHash = keccak256(toUtf8Bytes(`${FEED_SCHEMA}\n${canonicalJson(payload)}`))
  if (computedHash !== String(feed.feedHash).toLowerCase()) {
    fail(`feed: hash mismatch: computed ${computedHash}, the feed says ${feed.feedHash}`)
  }
  // feedSignature: r ‖ s ‖ v over the 32 bytes of feedHash, no EIP-191 prefix
  const recovered = recoverStrict(computedHash, feed.feedSignature)
  if ("refused" in recovered) return fail(`feed: signature refused: ${recovered.refused}`)
  if (!sameAddress(recovered.signer, feed.feedSigner)) {
    fail(`feed: signer mismatch: the signature recovers to ${recovered.signer}, feedSigner is ${feed.feedSigner}`)
  }
  if (!sameAddress(feed.feedSigner, expectedSigner)) {
    fail(`feed: signer mismatch: feedSigner ${feed.feedSigner} is not the expected ${expectedSigner}`)
  }
  const t = now()
  if (!(payload.generatedAt <= t && t < payload.validUntil)) {
    fail(`feed: outside its window ${payload.generatedAt} <= ${t} < ${payload.validUntil}`)
  }
  return { manifest, payload, feedHash: computedHash, authority: expectedSigner }
}

/** 2. The open route between two tokens, from the signed routes. */
const pickRoute = (
  payload: SignedPayload,
  source: { readonly chainId: number; readonly token: Hex },
  destination: { readonly chainId: number; readonly token: Hex }
): Route => {
  const route = payload.routes.find((r) =>
    r.sourceChainId === String(source.chainId) && sameAddress(r.sourceAsset, source.token)
    && r.destinationChainId === String(destination.chainId) && sameAddress(r.destinationAsset, destination.token)
  )
  if (route === undefined) {
    return fail(`no route ${source.chainId}:${source.token} -> ${destination.chainId}:${destination.token} in the feed`)
  }
  if (!route.open) fail(`route ${route.routeId} is not open`)
  if (now() >= route.validUntil) fail(`route ${route.routeId}: its quote window has passed`)
  if (route.sourceRouter === null) fail(`route ${route.routeId} has no source router`)
  return route
}

/** The permit request message (docs/protocol.md, "Permit request message"), EVM payer and recipient. */
const permitRequestMessage = (request: {
  readonly quoteId: Hex
  readonly requestedAmountInRaw: string
  readonly standard: string
  readonly payer: Hex
  readonly recipient: Hex
  readonly idempotencyKey: string
}) =>
  [
    PERMIT_REQUEST_DOMAIN,
    `quoteId=${request.quoteId.toLowerCase()}`,
    `requestedAmountInRaw=${request.requestedAmountInRaw}`,
    `standard=${request.standard.toUpperCase()}`,
    `payer=${request.payer.toLowerCase()}`,
    `recipient=${request.recipient.toLowerCase()}`,
    `idempotencyKey=${request.idempotencyKey.trim()}`
  ].join("\n")

/** 3. A signed permit request, sent with its idempotency key; retried with the identical bytes. */
const requestPermit = async (
  manifest: Manifest,
  route: Route,
  wallet: Wallet,
  recipient: Hex,
  amountInRaw: bigint
): Promise<{ envelope: Envelope; status: number }> => {
  const request = {
    quoteId: route.quoteId,
    requestedAmountInRaw: amountInRaw.toString(),
    standard: "DIRECT",
    payer: wallet.address,
    recipient,
    idempotencyKey: `ethers-wallet-${hexlify(randomBytes(16)).slice(2)}`
  }
  const message = permitRequestMessage(request)
  // the request-message endpoint is a convenience: the message is built locally, and must be the same text
  const served = await http("POST", manifest.endpoints.permitRequestMessage, {
    body: JSON.stringify(request),
    headers: { "content-type": "application/json", "idempotency-key": request.idempotencyKey }
  })
  if (served.status !== 200) fail(`request-message: ${describeError(served)}`)
  if (served.body.message !== message) {
    fail(`request-message: the server's message differs from the local one:\n${served.body.message}\n---\n${message}`)
  }
  // EIP-191 personal_sign over the UTF-8 message
  const requestSignature = await wallet.signMessage(message)
  const body = JSON.stringify({ ...request, requestSignature })
  for (let attempt = 1;; attempt++) {
    const answer = await http("POST", manifest.endpoints.executionPermits, {
      body,
      headers: { "content-type": "application/json", "idempotency-key": request.idempotencyKey }
    })
    if ((answer.status === 200 || answer.status === 201) && answer.body?.ok === true) {
      return { envelope: answer.body.permit as Envelope, status: answer.status }
    }
    const retryable = answer.status === 429 || answer.status >= 502
      || (answer.status === 409 && answer.body?.error === "IDEMPOTENCY_IN_PROGRESS")
    if (!retryable || attempt >= 5) return fail(`permit request: ${describeError(answer)}`)
    await sleep(Math.min((answer.retryAfter ?? 0) * 1000 || 250 * 2 ** attempt, 10_000))
  }
}

/** 4. The permit's authority and what it binds (docs/protocol.md, "How to verify a permit"). */
const verifyPermit = (
  envelope: Envelope,
  expected: {
    readonly route: Route
    readonly releaseId: Hex
    readonly authority: Hex
    readonly payer: Hex
    readonly recipient: Hex
    readonly amountInRaw: bigint
  }
) => {
  const permit = envelope.permit
  const encodeType = TypedDataEncoder.from(PERMIT_TYPES).encodeType("ExecutionPermit")
  if (keccak256(toUtf8Bytes(encodeType)) !== PERMIT_TYPEHASH) fail("the ExecutionPermit type is not the documented one")
  const domain = {
    name: "Svc V6 Router",
    version: "6",
    chainId: BigInt(permit.sourceChainId),
    verifyingContract: String(permit.sourceRouter)
  }
  const digest = TypedDataEncoder.hash(domain, PERMIT_TYPES, permit)
  if (digest !== envelope.permitDigest.toLowerCase()) {
    fail(`permit: digest mismatch: computed ${digest}, the envelope says ${envelope.permitDigest}`)
  }
  const recovered = recoverStrict(digest, envelope.permitSignature)
  if ("refused" in recovered) return fail(`permit: signature refused: ${recovered.refused}`)
  if (!sameAddress(recovered.signer, expected.authority)) {
    fail(`permit: signed by ${recovered.signer}, not by the authority ${expected.authority}`)
  }
  const route = expected.route
  const checks: Array<[string, boolean]> = [
    ["fillId", envelope.fillId.toLowerCase() === String(permit.fillId).toLowerCase()],
    ["releaseId", String(permit.releaseId).toLowerCase() === expected.releaseId.toLowerCase()],
    ["quoteId", String(permit.quoteId).toLowerCase() === route.quoteId.toLowerCase()],
    ["routeId", String(permit.routeId).toLowerCase() === route.routeId.toLowerCase()],
    ["policyHash", String(permit.policyHash).toLowerCase() === route.policyHash.toLowerCase()],
    [
      "executionGeneration",
      String(permit.executionGeneration).toLowerCase() === route.executionGeneration.toLowerCase()
    ],
    ["sourceNetworkId", String(permit.sourceNetworkId).toLowerCase() === route.sourceNetworkId.toLowerCase()],
    ["sourceAssetId", String(permit.sourceAssetId).toLowerCase() === route.sourceAssetId.toLowerCase()],
    [
      "destinationNetworkId",
      String(permit.destinationNetworkId).toLowerCase() === route.destinationNetworkId.toLowerCase()
    ],
    ["destinationAssetId", String(permit.destinationAssetId).toLowerCase() === route.destinationAssetId.toLowerCase()],
    ["sourceChainId", String(permit.sourceChainId) === route.sourceChainId],
    ["destinationChainId", String(permit.destinationChainId) === route.destinationChainId],
    ["sourceAsset", sameAddress(String(permit.sourceAsset), route.sourceAsset)],
    ["destinationAsset", sameAddress(String(permit.destinationAsset), route.destinationAsset)],
    ["sourceVault", sameAddress(String(permit.sourceVault), route.sourceVault)],
    ["destinationVault", sameAddress(String(permit.destinationVault), route.destinationVault)],
    ["sourceRouter", sameAddress(String(permit.sourceRouter), route.sourceRouter)],
    ["execution.target", sameAddress(envelope.execution.target, route.sourceRouter)],
    ["execution.function", envelope.execution.function === "fillDirect"],
    ["sourceFinalityBlocks", Number(permit.sourceFinalityBlocks) === route.sourceFinalityBlocks],
    ["settlementWindowSeconds", Number(permit.settlementWindowSeconds) === route.settlementWindowSeconds],
    ["payer", sameAddress(String(permit.payer), expected.payer)],
    ["recipient", sameAddress(String(permit.recipient), expected.recipient)],
    ["amountInRaw", BigInt(permit.amountInRaw) === expected.amountInRaw],
    ["amountOutRaw", BigInt(permit.amountOutRaw) > 0n],
    ["expiresAt", envelope.expiresAt === Number(permit.validUntil)],
    ["validUntil within the route", Number(permit.validUntil) <= route.validUntil],
    ["validAfter <= now < validUntil", Number(permit.validAfter) <= now() + 60 && now() < Number(permit.validUntil)]
  ]
  const failed = checks.filter(([, ok]) => !ok).map(([name]) => name)
  if (failed.length > 0) fail(`permit: does not bind what was asked: ${failed.join(", ")}`)
  return digest
}

/** The permit as the on-chain tuple, in ABI order. */
const tupleOf = (permit: Permit) => PERMIT_FIELDS.map(([name]) => permit[name])

/** 5. `0xeeff9007 ‖ abi.encode(ExecutionPermit, bytes permitSignature)`. */
const fillDirectCalldata = (envelope: Envelope): Hex => {
  if (id(`fillDirect(${PERMIT_TUPLE},bytes)`).slice(0, 10) !== FILL_DIRECT_SELECTOR) {
    fail("the fillDirect signature does not give the documented selector")
  }
  const payload = AbiCoder.defaultAbiCoder().encode([PERMIT_TUPLE, "bytes"], [
    tupleOf(envelope.permit),
    envelope.permitSignature
  ])
  return `${FILL_DIRECT_SELECTOR}${payload.slice(2)}`
}

/** Why the router would refuse the permit, from `previewFillDirect` (reason = the error's name). */
const previewReason = async (wallet: Wallet, envelope: Envelope): Promise<string> => {
  try {
    const router = new Contract(envelope.execution.target, PREVIEW_ABI, wallet)
    const [valid, reason] = await router.getFunction("previewFillDirect").staticCall(
      tupleOf(envelope.permit),
      envelope.permitSignature,
      { from: wallet.address }
    ) as [boolean, string]
    if (valid) return "previewFillDirect accepts the permit (check the balance and the allowance)"
    return `previewFillDirect: ${Buffer.from(reason.slice(2), "hex").toString("utf8").replace(/\0+$/, "")}`
  } catch (e) {
    return `previewFillDirect failed too: ${e instanceof Error ? e.message : String(e)}`
  }
}

/** 6. The permit's state until PAID (FAILED, EXPIRED or the deadline fail). */
const waitForPaid = async (
  manifest: Manifest,
  fillId: Hex,
  verify: (envelope: Envelope) => void,
  deadline: number
): Promise<Envelope> => {
  const url = manifest.endpoints.permitStatusTemplate.replace("{fillId}", fillId.toLowerCase())
  let last = ""
  let delay = 500
  for (;;) {
    const answer = await http("GET", url).catch((e: unknown) => {
      // polled through: the server may be busy; the deadline still holds
      if (Date.now() > deadline) throw e
      return undefined
    })
    if (answer !== undefined) {
      if (answer.status === 200 && answer.body?.ok === true) {
        const envelope = answer.body.permit as Envelope
        verify(envelope)
        if (envelope.state !== last) {
          progress(`permit ${envelope.state}`)
          last = envelope.state
        }
        if (envelope.state === "PAID") return envelope
        if (envelope.state === "FAILED" || envelope.state === "EXPIRED") {
          return fail(`permit ${fillId} ended ${envelope.state} (sourceTxHash ${envelope.sourceTxHash})`)
        }
      } else if (answer.status < 500 && answer.status !== 429) {
        return fail(`permit status: ${describeError(answer)}`)
      }
    }
    if (Date.now() > deadline) return fail(`timed out waiting for PAID (last state ${last || "unknown"})`)
    await sleep(delay)
    delay = Math.min(delay * 1.5, 3000)
  }
}

// ---------------------------------------------------------------------------
// The wallet
// ---------------------------------------------------------------------------

export interface Options {
  readonly amountInRaw?: bigint | undefined
  readonly signer?: string | undefined
  readonly timeoutSeconds?: number | undefined
  /** The source chain and token symbol (default 8453 USDC). */
  readonly from?: { readonly chainId: number; readonly symbol: string } | undefined
  /** The destination chain and token symbol (default 56 USDT). */
  readonly to?: { readonly chainId: number; readonly symbol: string } | undefined
}

export const run = async (devnet: DevnetFile, options: Options = {}) => {
  const deadline = Date.now() + (options.timeoutSeconds ?? 120) * 1000
  const from = options.from ?? { chainId: 8453, symbol: "USDC" }
  const to = options.to ?? { chainId: 56, symbol: "USDT" }
  const sourceChain = devnet.chains.find((c) => c.chainId === from.chainId) ??
    fail(`devnet.json: no chain ${from.chainId}`)
  const destinationChain = devnet.chains.find((c) => c.chainId === to.chainId) ??
    fail(`devnet.json: no chain ${to.chainId}`)
  const sourceToken = sourceChain.tokens[from.symbol] ?? fail(`devnet.json: no ${from.symbol} on chain ${from.chainId}`)
  const destinationToken = destinationChain.tokens[to.symbol] ??
    fail(`devnet.json: no ${to.symbol} on chain ${to.chainId}`)
  const sourceProvider = provider(sourceChain.rpcUrl, sourceChain.chainId)
  const destinationProvider = provider(destinationChain.rpcUrl, destinationChain.chainId)
  try {
    const wallet = new Wallet(devnet.user.privateKey, sourceProvider)
    const recipient = wallet.address

    // 1. the manifest and the verified feed
    if (devnet.server === null) throw new Error("devnet.json: this devnet runs its chains only; it has no server")
    const { manifest, payload, feedHash, authority } = await readVerifiedFeed(devnet.server, options.signer)
    progress(`feed ${payload.dataVersion} verified (feedHash ${feedHash}, signer ${authority})`)

    // 2. the open route, by default USDC (8453) -> USDT (56)
    const route = pickRoute(payload, { chainId: sourceChain.chainId, token: sourceToken }, {
      chainId: destinationChain.chainId,
      token: destinationToken
    })
    // the signed route must name the router this devnet deployed
    if (!sameAddress(route.sourceRouter, sourceChain.router)) {
      fail(`route ${route.routeId}: router ${route.sourceRouter} is not devnet.json's ${sourceChain.router}`)
    }
    const amountInRaw = options.amountInRaw ?? BigInt(route.minimumFillInRaw) * 25n
    if (amountInRaw < BigInt(route.minimumFillInRaw) || amountInRaw > BigInt(route.maxAvailableInRaw)) {
      fail(`amount ${amountInRaw} is outside ${route.minimumFillInRaw} … ${route.maxAvailableInRaw}`)
    }
    progress(`route ${route.routeId}, quote ${route.quoteId}`)

    // 3. the permit
    const { envelope, status } = await requestPermit(manifest, route, wallet, recipient, amountInRaw)
    progress(`permit ${envelope.fillId} issued (HTTP ${status}, state ${envelope.state})`)

    // 4. its authority and terms
    const expected = {
      route,
      releaseId: payload.releaseId,
      authority,
      payer: wallet.address,
      recipient,
      amountInRaw
    }
    const permitDigest = verifyPermit(envelope, expected)
    progress(`permit verified (permitDigest ${permitDigest}, signed by the authority)`)
    const permit = envelope.permit
    const amountOutRaw = BigInt(permit.amountOutRaw)
    const usdt = new Contract(String(permit.destinationAsset), ERC20_ABI, destinationProvider)
    const before = await usdt.getFunction("balanceOf")(recipient) as bigint

    // 5. approve the router for the ERC-20 input (none for the native coin), then fillDirect
    const router = String(permit.sourceRouter)
    const native = sameAddress(String(permit.sourceAsset), ZERO_ADDRESS)
    if (!native) {
      const usdc = new Contract(String(permit.sourceAsset), ERC20_ABI, wallet)
      const approval = await usdc.getFunction("approve")(router, BigInt(permit.amountInRaw))
      const approvalReceipt = await approval.wait()
      if (approvalReceipt?.status !== 1) fail(`approve reverted: ${approval.hash}`)
      progress(`approved ${router} for ${permit.amountInRaw} (tx ${approval.hash})`)
    }
    const data = fillDirectCalldata(envelope)
    let fill
    try {
      fill = await wallet.sendTransaction({
        to: envelope.execution.target,
        data,
        value: native ? BigInt(permit.amountInRaw) : 0n
      })
    } catch (e) {
      return fail(
        `fillDirect refused: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}; ${await previewReason(
          wallet,
          envelope
        )}`
      )
    }
    const fillReceipt = await fill.wait()
    if (fillReceipt?.status !== 1) fail(`fillDirect reverted: ${fill.hash}; ${await previewReason(wallet, envelope)}`)
    progress(`fillDirect ${fill.hash} in block ${fillReceipt?.blockNumber}`)

    // 6. PAID, and the payout on chain 56
    const paid = await waitForPaid(manifest, envelope.fillId, (next) => {
      if (next.permitDigest !== envelope.permitDigest || next.permitSignature !== envelope.permitSignature) {
        fail("permit status: the permit changed")
      }
    }, deadline)
    if (!sameAddress(paid.sourceTxHash, fill.hash)) {
      fail(`PAID with sourceTxHash ${paid.sourceTxHash}, but the fillDirect was ${fill.hash}`)
    }
    if (paid.payoutTxHash === null) return fail("PAID without a payoutTxHash")
    const payoutReceipt = await destinationProvider.getTransactionReceipt(paid.payoutTxHash)
    if (payoutReceipt?.status !== 1) fail(`the payout ${paid.payoutTxHash} is not a successful transaction on 56`)
    const after = await usdt.getFunction("balanceOf")(recipient) as bigint
    if (after - before !== amountOutRaw) {
      fail(`the recipient's ${to.symbol} rose by ${after - before}, expected exactly amountOutRaw ${amountOutRaw}`)
    }
    return {
      fillId: paid.fillId,
      state: paid.state,
      sourceTxHash: fill.hash,
      payoutTxHash: paid.payoutTxHash,
      from,
      to,
      amountInRaw: String(permit.amountInRaw),
      amountOutRaw: amountOutRaw.toString(),
      recipient,
      recipientBalanceBefore: before.toString(),
      recipientBalanceAfter: after.toString()
    }
  } finally {
    sourceProvider.destroy()
    destinationProvider.destroy()
  }
}

if (import.meta.main) {
  const main = async () => {
    const { positionals, values } = parseArgs({
      allowPositionals: true,
      options: {
        amount: { type: "string" },
        signer: { type: "string" },
        timeout: { type: "string" },
        from: { type: "string" },
        to: { type: "string" }
      }
    })
    const side = (flag: string, value: string | undefined) => {
      if (value === undefined) return undefined
      const match = /^([1-9][0-9]*):([A-Za-z0-9._-]+)$/.exec(value)
      return match === null ? fail(`--${flag}: <chainId>:<SYMBOL>`) : { chainId: Number(match[1]), symbol: match[2]! }
    }
    const path = positionals[0] ?? process.env.SVC_DEVNET ?? ".svc-devnet/devnet.json"
    let devnet: DevnetFile
    try {
      devnet = JSON.parse(readFileSync(path, "utf8")) as DevnetFile
    } catch (e) {
      return fail(`cannot read devnet.json at ${path}: ${e instanceof Error ? e.message : String(e)}`)
    }
    if (values.amount !== undefined && !/^[1-9][0-9]*$/.test(values.amount)) fail("--amount: a base-10 integer")
    if (values.signer !== undefined && !isAddress(values.signer)) fail("--signer: an address")
    if (values.timeout !== undefined && !(Number(values.timeout) > 0)) fail("--timeout: seconds")
    const result = await run(devnet, {
      amountInRaw: values.amount === undefined ? undefined : BigInt(values.amount),
      signer: values.signer,
      timeoutSeconds: values.timeout === undefined ? undefined : Number(values.timeout),
      from: side("from", values.from),
      to: side("to", values.to)
    })
    await new Promise((resolve) =>
      process.stdout.write(
        [
          `PAID fillId=${result.fillId}`,
          `  source tx (${result.from.chainId}, fillDirect): ${result.sourceTxHash}`,
          `  payout tx (${result.to.chainId}):               ${result.payoutTxHash}`,
          `  amountInRaw ${result.amountInRaw} ${result.from.symbol} -> amountOutRaw ${result.amountOutRaw} ${result.to.symbol} to ${result.recipient}`,
          `  recipient ${result.to.symbol} ${result.recipientBalanceBefore} -> ${result.recipientBalanceAfter}`
        ].join("\n") + "\n",
        resolve
      )
    )
  }
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `ethers wallet: ${
          error instanceof WalletError ? error.message : error instanceof Error ? error.stack : error
        }\n`,
        () => process.exit(1)
      )
    }
  )
}
