/**
 * Permit requests, with a test wallet (a key with no funds): the request
 * message byte for byte, creation with an EIP-191 signature, idempotent replay,
 * key conflicts, the header/body key rule, a wrong signer, the 32 KiB limit,
 * unknown quotes, the amount bounds, and the issued permit itself (digest and
 * signature recovered, payload round trip, the request it binds, status by
 * fillId). Every request is for minimumFillInRaw of an open route.
 *
 * @since 0.1.0
 */
import {
  ExecutionPermitResponse,
  Ids,
  PermitAbi,
  PermitDigest,
  PermitMessage,
  PermitRequestMessageResponse,
  PermitStatusResponse,
  type Route
} from "@svc/protocol"
import { Effect, Result } from "effect"
import * as Check from "../Check.ts"
import * as Exchange from "../Exchange.ts"
import * as Independent from "../Independent.ts"
import { Options, randomKey } from "../RunOptions.ts"
import {
  asObject,
  expectStatus,
  failure,
  type IssuedPermit,
  permitRequestFor,
  randomHex,
  send,
  Shared,
  signRequest
} from "../Shared.ts"
import { type Env, firstDifference, type Json, pathsDisagree, sameAddress, sameJson, secondPath } from "./common.ts"

const MESSAGE = "/api/v6/execution-permits/request-message"
const CREATE = "/api/v6/execution-permits"
const LIMIT = 32 * 1024

const postMessage = (body: unknown, headers?: Record<string, string>) =>
  send({ method: "POST", path: MESSAGE, json: body, ...(headers === undefined ? {} : { headers }) })
const postCreate = (body: unknown, headers?: Record<string, string>) =>
  send({ method: "POST", path: CREATE, json: body, ...(headers === undefined ? {} : { headers }) })

const issued = Effect.flatMap(Effect.service(Shared), (f) => f.issuedPermit)

/** The envelope of an issued permit response, or a skip when no permit was issued (the chain checks use it too). */
export const envelopeOf = (p: IssuedPermit) => {
  const envelope = asObject(p.body.permit)
  const permit = asObject(envelope?.permit)
  return (p.exchange.response.status !== 201 && p.exchange.response.status !== 200) || envelope === undefined ||
      permit === undefined
    ? Effect.fail(
      new Check.Skip({
        reason:
          `prerequisite failed: no permit was issued (POST /api/v6/execution-permits answered ${p.exchange.response.status}, see permit_create_201)`
      })
    )
    : Effect.succeed({ envelope, permit })
}

/** Fields of an envelope that may change after issue (fill progress). */
const PROGRESS = ["state", "sourceTxHash", "payoutTxHash"]
const withoutProgress = (envelope: Json) =>
  Object.fromEntries(Object.entries(envelope).filter(([k]) => !PROGRESS.includes(k)))

const requestMessage = Check.make<Env>({
  name: "permit_request_message_bytes",
  group: "permits",
  title:
    "request-message answers 200 with a message equal, byte for byte, to the locally built message (also for non-normalized input)",
  reference: "spec §4 buildPermitRequestMessage; §5.3; docs/protocol.md, Permit request message",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const c = Check.collector()
    const plain = permitRequestFor(route, shared.wallet, shared.newKey())
    const messy = permitRequestFor(route, shared.wallet, shared.newKey(), {
      quoteId: `0x${route.quoteId.slice(2).toUpperCase()}`,
      payer: shared.wallet.address.toLowerCase(),
      standard: "direct"
    })
    for (const request of [plain, messy]) {
      const exchange = yield* postMessage(request)
      if (exchange.response.status !== 200) {
        c.add(
          failure(
            exchange,
            "request-message refused a valid request",
            "200 PermitRequestMessageResponse",
            Exchange.responseSummary(exchange)
          )
        )
        continue
      }
      const body = Exchange.json(exchange)
      const issues = Check.schemaIssues(PermitRequestMessageResponse, body)
      if (issues.length > 0) {
        c.add(
          failure(
            exchange,
            "the response is not a strict PermitRequestMessageResponse",
            "{ ok: true, message }",
            issues.join("; ")
          )
        )
      }
      const expected = PermitMessage.build(request)
      const disagreement = pathsDisagree(
        exchange,
        "the permit request message",
        JSON.stringify(expected),
        JSON.stringify(secondPath(() => Independent.permitRequestMessage(request)))
      )
      if (disagreement !== undefined) c.add(disagreement)
      const actual = String(asObject(body)?.message)
      if (actual !== expected) {
        const lines = [expected.split("\n"), actual.split("\n")] as const
        const at = lines[0].findIndex((l, i) => l !== lines[1][i])
        c.add(failure(
          exchange,
          "the message differs from the locally built message",
          JSON.stringify(expected),
          `${JSON.stringify(actual)} (first difference on line ${at === -1 ? lines[0].length + 1 : at + 1})`
        ))
      }
    }
    yield* c.done
  })
})

const create201 = Check.make<Env>({
  name: "permit_create_201",
  group: "permits",
  title:
    "a signed permit request (EIP-191 over the message) creates a permit: 201, a strict ExecutionPermitResponse, idempotent false",
  reference: "spec §4 createExecutionPermit (201 new permit); §5.3",
  createsPermit: true,
  run: Effect.gen(function*() {
    const p = yield* issued
    yield* expectStatus(p.exchange, 201, "POST /api/v6/execution-permits (new request)")
    yield* Check.expectSchema(ExecutionPermitResponse, p.body, "the permit response", p.exchange)
    if (p.body.idempotent !== false) {
      return yield* Check.fail(
        failure(p.exchange, "a new permit is marked idempotent", "idempotent: false", String(p.body.idempotent))
      )
    }
  })
})

const replay = Check.make<Env>({
  name: "permit_replay_idempotent",
  group: "permits",
  title: "the identical request again answers 200, idempotent true, with the identical permit",
  reference: "spec §4 createExecutionPermit rules 2-3",
  createsPermit: true,
  run: Effect.gen(function*() {
    const p = yield* issued
    const first = yield* envelopeOf(p)
    const exchange = yield* postCreate(p.request)
    yield* expectStatus(exchange, 200, "POST /api/v6/execution-permits (identical replay)")
    const body = asObject(Exchange.json(exchange)) ?? {}
    const c = Check.collector()
    if (body.idempotent !== true) {
      c.add(failure(exchange, "the replay is not marked idempotent", "idempotent: true", String(body.idempotent)))
    }
    const again = asObject(body.permit) ?? {}
    if (!sameJson(withoutProgress(again), withoutProgress(first.envelope))) {
      c.add(
        failure(
          exchange,
          "the replay returned another permit",
          "the permit of the first request",
          firstDifference(withoutProgress(again), withoutProgress(first.envelope)) ?? ""
        )
      )
    }
    yield* c.done
  })
})

const conflict = Check.make<Env>({
  name: "permit_key_conflict_409",
  group: "permits",
  title: "the same idempotency key with another request body answers 409 (create and request-message)",
  reference:
    "spec §7 (409 idempotency conflict); §4 rule 2; docs/protocol.md, Permit checks and lifecycle (step 5); docs/errors.md (IDEMPOTENCY_CONFLICT)",
  createsPermit: true,
  run: Effect.gen(function*() {
    const p = yield* issued
    yield* envelopeOf(p)
    const shared = yield* Shared
    const other = {
      ...p.request,
      requestedAmountInRaw: (BigInt(p.request.requestedAmountInRaw as string) + 1n).toString()
    }
    const { requestSignature: _, ...unsigned } = other
    const c = Check.collector()
    const created = yield* postCreate(signRequest(unsigned, shared.wallet.key))
    if (created.response.status !== 409) {
      c.add(
        failure(
          created,
          "create with a reused key and another body is not refused",
          "409",
          Exchange.responseSummary(created)
        )
      )
    }
    const message = yield* postMessage(unsigned)
    if (message.response.status !== 409) {
      c.add(
        failure(
          message,
          "request-message with a reused key and another body is not refused",
          "409",
          Exchange.responseSummary(message)
        )
      )
    }
    yield* c.done
  })
})

const headerKey = Check.make<Env>({
  name: "permit_header_key_mismatch_400",
  group: "permits",
  title: "an Idempotency-Key header different from the body's idempotencyKey answers 400; an equal header is accepted",
  reference: "spec §4 createExecutionPermit (Idempotency-Key must equal the body idempotencyKey)",
  createsPermit: true,
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const request = signRequest(permitRequestFor(route, shared.wallet, shared.newKey()), shared.wallet.key)
    const mismatch = yield* postCreate(request, { "idempotency-key": shared.newKey() })
    yield* expectStatus(mismatch, 400, "POST /api/v6/execution-permits with a mismatching Idempotency-Key")
    const same = yield* postCreate(request, { "idempotency-key": request.idempotencyKey })
    yield* expectStatus(same, 201, "POST /api/v6/execution-permits with an equal Idempotency-Key")
  })
})

const wrongSigner = Check.make<Env>({
  name: "permit_wrong_signer_4xx",
  group: "permits",
  title:
    "a request signed by another key than the payer's answers 4xx, and persists nothing (the key then still works)",
  reference:
    "spec §5.3; docs/operations.md, HTTP rules of the solver interface (a failed requestSignature -> 400, nothing stored)",
  createsPermit: true,
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const request = permitRequestFor(route, shared.wallet, shared.newKey())
    const forged = signRequest(request, randomKey())
    const refused = yield* postCreate(forged)
    if (refused.response.status < 400 || refused.response.status > 499) {
      return yield* Check.fail(
        failure(
          refused,
          "a request signed by someone else was not refused",
          "4xx (400 SIGNATURE_INVALID)",
          Exchange.responseSummary(refused)
        )
      )
    }
    const honest = yield* postCreate(signRequest(request, shared.wallet.key))
    yield* expectStatus(honest, 201, "the same request correctly signed, after a refused one")
  })
})

const pad = (json: unknown, size: number) => {
  const text = JSON.stringify(json)
  return text + " ".repeat(Math.max(0, size - new TextEncoder().encode(text).length))
}

const bodyLimit = Check.make<Env>({
  name: "permit_body_limit_413",
  group: "permits",
  title: "a body of 32,769 bytes answers 413; one of 32,768 bytes does not (request-message and create)",
  reference:
    "spec §7 (413 above 32 KiB); §8 Limits; docs/operations.md, HTTP rules of the solver interface (every POST: 413 before parsing)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const request = permitRequestFor(route, shared.wallet, shared.newKey())
    const c = Check.collector()
    const json = { "content-type": "application/json" }
    const atLimit = yield* send({ method: "POST", path: MESSAGE, body: pad(request, LIMIT), headers: json })
    if (atLimit.response.status !== 200) {
      c.add(
        failure(
          atLimit,
          "request-message refused a valid body of exactly 32,768 bytes",
          "200",
          Exchange.responseSummary(atLimit)
        )
      )
    }
    const over = yield* send({ method: "POST", path: MESSAGE, body: pad(request, LIMIT + 1), headers: json })
    if (over.response.status !== 413) {
      c.add(failure(over, "request-message accepted a body of 32,769 bytes", "413", Exchange.responseSummary(over)))
    }
    const junk = { pad: "" }
    const createAt = yield* send({ method: "POST", path: CREATE, body: pad(junk, LIMIT), headers: json })
    if (createAt.response.status === 413 || createAt.response.status >= 500) {
      c.add(
        failure(
          createAt,
          "create answered a 32,768-byte body with 413 or 5xx",
          "400 (the body is parsed and refused)",
          Exchange.responseSummary(createAt)
        )
      )
    }
    const createOver = yield* send({ method: "POST", path: CREATE, body: pad(junk, LIMIT + 1), headers: json })
    if (createOver.response.status !== 413) {
      c.add(failure(createOver, "create accepted a body of 32,769 bytes", "413", Exchange.responseSummary(createOver)))
    }
    yield* c.done
  })
})

const unknownQuote = Check.make<Env>({
  name: "permit_unknown_quote_410",
  group: "permits",
  title: "a quoteId that no open route has answers 410 (request-message; create too unless --read-only)",
  reference: "spec §3 (a quote no longer open or expired -> 410); §7 (410)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const options = yield* Options
    const route = yield* shared.openRoute
    const request = permitRequestFor(route, shared.wallet, shared.newKey(), { quoteId: randomHex(32) })
    const c = Check.collector()
    const message = yield* postMessage(request)
    if (message.response.status !== 410) {
      c.add(
        failure(message, "request-message for an unknown quote is not 410", "410", Exchange.responseSummary(message))
      )
    }
    if (!options.readOnly) {
      const created = yield* postCreate(signRequest(request, shared.wallet.key))
      if (created.response.status !== 410) {
        c.add(failure(created, "create for an unknown quote is not 410", "410", Exchange.responseSummary(created)))
      }
    }
    yield* c.done
  })
})

const amountBounds = Check.make<Env>({
  name: "permit_amount_bounds",
  group: "permits",
  title: "amount 0 and below minimumFillInRaw answer 400; above maxAvailableInRaw answers 409 (request-message)",
  reference:
    "docs/protocol.md, Permit checks and lifecycle (0 -> 400, below minimum -> 400 AMOUNT_TOO_LOW, above max -> 409 INSUFFICIENT_CAPACITY)",
  run: Effect.gen(function*() {
    const shared = yield* Shared
    const route = yield* shared.openRoute
    const min = BigInt(route.minimumFillInRaw)
    const max = BigInt(route.maxAvailableInRaw)
    const cases: Array<[string, number]> = [["0", 400], [(max + 1n).toString(), 409]]
    if (min > 1n) cases.push([(min - 1n).toString(), 400])
    const c = Check.collector()
    for (const [amount, status] of cases) {
      const exchange = yield* postMessage(
        permitRequestFor(route, shared.wallet, shared.newKey(), { requestedAmountInRaw: amount })
      )
      if (exchange.response.status !== status) {
        c.add(
          failure(
            exchange,
            `requestedAmountInRaw ${amount} (minimum ${min}, maximum ${max}) is not refused with ${status}`,
            String(status),
            Exchange.responseSummary(exchange)
          )
        )
      }
    }
    yield* c.done
  })
})

const digestSignature = Check.make<Env>({
  name: "permit_digest_signature",
  group: "permits",
  title:
    "permitDigest is the recomputed EIP-712 digest and permitSignature recovers (low-s) to the authority (feedSigner)",
  reference: "docs/protocol.md, permitDigest and permitSignature; spec §5.4",
  createsPermit: true,
  run: Effect.gen(function*() {
    const p = yield* issued
    const { envelope, permit } = yield* envelopeOf(p)
    const shared = yield* Shared
    const authority = yield* shared.authority
    let digest: string
    try {
      digest = PermitDigest.digest(permit as unknown as PermitAbi.AbiPermit)
    } catch (e) {
      return yield* Check.fail(
        failure(
          p.exchange,
          "the permit has no EIP-712 digest",
          "31 well-formed ABI fields",
          String((e as Error).message)
        )
      )
    }
    const c = Check.collector()
    const disagreement = pathsDisagree(
      p.exchange,
      "the EIP-712 permit digest",
      digest,
      secondPath(() => Independent.permitDigest(permit))
    )
    if (disagreement !== undefined) c.add(disagreement)
    if (String(envelope.permitDigest).toLowerCase() !== digest) {
      c.add(
        failure(
          p.exchange,
          "permitDigest is not the EIP-712 digest of the permit",
          digest,
          String(envelope.permitDigest)
        )
      )
    }
    const recovered = PermitDigest.recoverSigner(
      permit as unknown as PermitAbi.AbiPermit,
      String(envelope.permitSignature)
    )
    if (Result.isFailure(recovered)) {
      c.add(
        failure(
          p.exchange,
          "permitSignature does not recover over the permit's digest",
          `a signature by ${authority}`,
          recovered.failure.message
        )
      )
    } else {
      const signer = pathsDisagree(
        p.exchange,
        "the permit signer",
        recovered.success,
        secondPath(() => Independent.recoverPermitSigner(permit, String(envelope.permitSignature)))
      )
      if (signer !== undefined) c.add(signer)
      if (!sameAddress(recovered.success, authority)) {
        c.add(
          failure(p.exchange, "permitSignature is not by the authority", authority, `recovered ${recovered.success}`)
        )
      }
    }
    yield* c.done
  })
})

const payload = Check.make<Env>({
  name: "permit_payload_roundtrip",
  group: "permits",
  title:
    "abi.encode(permit, permitSignature) decodes back to the same 31 fields and signature; fillDirect calldata likewise",
  reference:
    "spec §2 StandardPayloadEncoding; §5.4; docs/protocol.md, ExecutionPermit encoding (the on-chain tuple, fillDirect)",
  createsPermit: true,
  run: Effect.gen(function*() {
    const p = yield* issued
    const { envelope, permit } = yield* envelopeOf(p)
    const abi = permit as unknown as PermitAbi.AbiPermit
    const signature = String(envelope.permitSignature)
    const c = Check.collector()
    try {
      const encoded = PermitAbi.encodePayload(abi, signature)
      const decoded = PermitAbi.decodePayload(encoded)
      for (const { name } of PermitAbi.PERMIT_TUPLE_FIELDS) {
        if (String(decoded.permit[name]).toLowerCase() !== String(abi[name]).toLowerCase()) {
          c.add(
            failure(
              p.exchange,
              `permit.${name} does not survive the ABI round trip`,
              String(abi[name]),
              String(decoded.permit[name])
            )
          )
        }
      }
      if (decoded.signature.toLowerCase() !== signature.toLowerCase()) {
        c.add(failure(p.exchange, "the signature does not survive the round trip", signature, decoded.signature))
      }
      // the second path encodes on its own and decodes the library's bytes into the permit's JSON fields
      const bytes = pathsDisagree(
        p.exchange,
        "the standard payload bytes",
        encoded,
        secondPath(() => Independent.permitPayload(permit, signature))
      )
      if (bytes !== undefined) c.add(bytes)
      try {
        const independent = Independent.decodePermitPayload(encoded)
        for (const { name } of PermitAbi.PERMIT_TUPLE_FIELDS) {
          const mine = String(independent.permit[name as keyof typeof independent.permit]).toLowerCase()
          if (mine !== String(abi[name]).toLowerCase()) {
            c.add(
              failure(
                p.exchange,
                `permit.${name}: the second path decodes the payload to another value`,
                String(abi[name]),
                mine
              )
            )
          }
        }
      } catch (e) {
        c.add(
          failure(p.exchange, "the second path cannot decode the payload", "abi.encode(permit, signature)", String(e))
        )
      }
      const calldata = PermitAbi.encodeFillDirect(abi, signature)
      if (calldata.slice(0, 10) !== PermitAbi.FILL_DIRECT_SELECTOR || `0x${calldata.slice(10)}` !== encoded) {
        c.add(
          failure(
            p.exchange,
            "fillDirect calldata is not selector + payload",
            `${PermitAbi.FILL_DIRECT_SELECTOR} + payload`,
            calldata.slice(0, 20)
          )
        )
      }
    } catch (e) {
      c.add(
        failure(
          p.exchange,
          "the permit has no ABI encoding",
          "31 fields within their Solidity types and a 65-byte signature",
          String((e as Error).message)
        )
      )
    }
    yield* c.done
  })
})

/** The fields a permit copies from its route. */
const ROUTE_FIELDS = [
  "routeId",
  "quoteId",
  "sourceNetworkId",
  "sourceAssetId",
  "destinationNetworkId",
  "destinationAssetId",
  "policyHash",
  "executionGeneration",
  "sourceChainId",
  "destinationChainId",
  "sourceAsset",
  "destinationAsset",
  "sourceVault",
  "destinationVault",
  "sourceRouter",
  "sourceFinalityBlocks",
  "settlementWindowSeconds",
  "publicationLane",
  "serviceCategory",
  "feeMode",
  "serviceFeeBps"
] as const

const binds = Check.make<Env>({
  name: "permit_binds_request",
  group: "permits",
  title:
    "the permit binds the request and the route: quote, amount in, payer, recipient (account ids), route terms, window, one fillDirect on the router",
  reference:
    "spec §1.5-1.6; §2 ExecutionPermit, ExecutionPermitEnvelope, DirectExecution; docs/protocol.md, Identifiers; Permit checks and lifecycle",
  createsPermit: true,
  run: Effect.gen(function*() {
    const p = yield* issued
    const { envelope, permit } = yield* envelopeOf(p)
    const shared = yield* Shared
    const feed = yield* shared.feed
    const route: Route = p.route
    const c = Check.collector()
    const add = (title: string, expected: unknown, actual: unknown) =>
      c.add(failure(p.exchange, title, String(expected), String(actual)))
    const eq = (a: unknown, b: unknown) =>
      typeof a === "string" && typeof b === "string" ? a.toLowerCase() === b.toLowerCase() : sameJson(a, b)
    if (permit.amountInRaw !== p.request.requestedAmountInRaw) {
      add("permit.amountInRaw is not the requested amount", p.request.requestedAmountInRaw, permit.amountInRaw)
    }
    try {
      if (BigInt(String(permit.amountOutRaw)) <= 0n) {
        add("permit.amountOutRaw is not positive", "> 0", permit.amountOutRaw)
      }
    } catch {
      add("permit.amountOutRaw is not an integer", "UintStr", permit.amountOutRaw)
    }
    for (const field of ROUTE_FIELDS) {
      const expected = field === "sourceChainId" || field === "destinationChainId" ? route[field] ?? "0" : route[field]
      if (!eq(permit[field], expected)) {
        add(`permit.${field} differs from the route`, JSON.stringify(expected), JSON.stringify(permit[field]))
      }
    }
    if (!eq(permit.releaseId, feed.payload.releaseId)) {
      add("permit.releaseId is not the feed's releaseId", feed.payload.releaseId, permit.releaseId)
    }
    if (!sameAddress(permit.payer, shared.wallet.address)) {
      add("permit.payer is not the requesting wallet", shared.wallet.address, permit.payer)
    }
    if (!sameAddress(permit.recipient, shared.wallet.address)) {
      add("permit.recipient is not the requested recipient", shared.wallet.address, permit.recipient)
    }
    try {
      const payerAccount = Ids.evmAccountId(route.sourceNetworkId, shared.wallet.address)
      if (!eq(permit.payerAccountId, payerAccount)) {
        add(
          "permit.payerAccountId is not the payer's account id on the source network",
          payerAccount,
          permit.payerAccountId
        )
      }
      const recipientAccount = Ids.evmAccountId(route.destinationNetworkId, shared.wallet.address)
      if (!eq(permit.recipientAccountId, recipientAccount)) {
        add(
          "permit.recipientAccountId is not the recipient's account id on the destination network",
          recipientAccount,
          permit.recipientAccountId
        )
      }
    } catch (e) {
      add("the route's network ids are malformed", "bytes32", String((e as Error).message))
    }
    const validAfter = Number(permit.validAfter)
    const validUntil = Number(permit.validUntil)
    if (!(validAfter <= validUntil) || validUntil > route.validUntil) {
      add(
        "the permit window is not inside the route's",
        `validAfter <= validUntil <= ${route.validUntil}`,
        `${String(permit.validAfter)}..${String(permit.validUntil)}`
      )
    }
    if (envelope.expiresAt !== validUntil) add("expiresAt is not permit.validUntil", validUntil, envelope.expiresAt)
    if (!eq(envelope.fillId, permit.fillId)) {
      add("the envelope's fillId is not the permit's", permit.fillId, envelope.fillId)
    }
    if (envelope.idempotencyKey !== p.request.idempotencyKey) {
      add("the envelope's idempotencyKey is not the request's", p.request.idempotencyKey, envelope.idempotencyKey)
    }
    if (envelope.totalTransactionCount !== 2) add("totalTransactionCount is not 2", 2, envelope.totalTransactionCount)
    const execution = asObject(envelope.execution) ?? {}
    if (!sameAddress(execution.target, route.sourceRouter)) {
      add("execution.target is not the route's sourceRouter", route.sourceRouter, execution.target)
    }
    if (execution.function !== "fillDirect" || execution.transactionCount !== 1) {
      add(
        "execution is not one fillDirect call",
        "fillDirect, transactionCount 1",
        `${String(execution.function)}, ${String(execution.transactionCount)}`
      )
    }
    for (const field of ["publicationLane", "serviceCategory", "feeMode", "serviceFeeBps"] as const) {
      if (!sameJson(envelope[field], permit[field])) {
        add(
          `the envelope's ${field} differs from the permit's`,
          JSON.stringify(permit[field]),
          JSON.stringify(envelope[field])
        )
      }
    }
    yield* c.done
  })
})

const status = Check.make<Env>({
  name: "permit_status_by_fill_id",
  group: "permits",
  title:
    "GET /api/v6/execution-permits/{fillId} answers the issued permit (strict, no-store); unknown and malformed fillIds answer 404",
  reference:
    "spec §4 getExecutionPermit; docs/operations.md, HTTP rules of the solver interface (a malformed id -> the same 404)",
  createsPermit: true,
  run: Effect.gen(function*() {
    const p = yield* issued
    const { envelope } = yield* envelopeOf(p)
    const c = Check.collector()
    const exchange = yield* send({ path: `${CREATE}/${String(envelope.fillId)}` })
    yield* expectStatus(exchange, 200, "GET /api/v6/execution-permits/{fillId} of the issued permit")
    const body = Exchange.json(exchange)
    const issues = Check.schemaIssues(PermitStatusResponse, body)
    if (issues.length > 0) {
      c.add(
        failure(exchange, "the status is not a strict PermitStatusResponse", "PermitStatusResponse", issues.join("; "))
      )
    }
    const current = asObject(asObject(body)?.permit) ?? {}
    if (!sameJson(withoutProgress(current), withoutProgress(envelope))) {
      c.add(
        failure(
          exchange,
          "the status differs from the issued permit",
          "the issued envelope (state may progress)",
          firstDifference(withoutProgress(current), withoutProgress(envelope)) ?? ""
        )
      )
    }
    if (exchange.response.headers["cache-control"] !== "no-store") {
      c.add(
        failure(
          exchange,
          "permit status may be cached",
          "Cache-Control: no-store",
          exchange.response.headers["cache-control"] ?? "absent"
        )
      )
    }
    for (const id of [randomHex(32), "0x1234", "request"]) {
      const missing = yield* send({ path: `${CREATE}/${id}` })
      if (missing.response.status !== 404) {
        c.add(
          failure(
            missing,
            `the fillId ${id} did not answer 404`,
            "404 ErrorResponse",
            Exchange.responseSummary(missing)
          )
        )
      }
    }
    yield* c.done
  })
})

/**
 * The permit checks.
 *
 * @category testing
 * @since 0.1.0
 */
export const checks = [
  requestMessage,
  create201,
  replay,
  conflict,
  headerKey,
  wrongSigner,
  bodyLimit,
  unknownQuote,
  amountBounds,
  digestSignature,
  payload,
  binds,
  status
]
