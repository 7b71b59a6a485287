/**
 * Permits (`buildPermitRequestMessage`, `createExecutionPermit`,
 * `getExecutionPermit`): the local request message, one signature, idempotent
 * creation with retries of the identical request, verification of every
 * returned permit, status polling. Internal.
 *
 * @since 0.1.0
 */
import type { ExecutionPermitEnvelope } from "@svc/protocol/schema/Permit"
import * as Effect from "effect/Effect"
import { PermitInvalid } from "../../Errors.ts"
import * as Permits from "../../Permits.ts"
import type { CreatePermitInput, PermitsApi, PollOptions } from "../../SvcClient.ts"
import * as Operations from "../declared.ts"
import { retryTransient } from "../http.ts"
import { checkId, type ClientEnv, nowSeconds, templateUrl } from "./env.ts"
import type { FeedReader } from "./feed.ts"
import type { SolverManifests } from "./manifests.ts"
import { poll } from "./poll.ts"

const isPrepared = (
  request: Permits.PermitIntent | Permits.PreparedPermitRequest
): request is Permits.PreparedPermitRequest =>
  typeof (request as Permits.PreparedPermitRequest).message === "string" &&
  typeof (request as Permits.PreparedPermitRequest).request === "object"

/**
 * Prepares an intent: a fresh idempotency key when it has none, the normalised
 * request and its message.
 *
 * @category encoding
 * @since 0.1.0
 */
export const prepareIntent = (request: Permits.PermitIntent) =>
  Effect.flatMap(
    Effect.sync(() => request.idempotencyKey ?? Permits.newIdempotencyKey()),
    (idempotencyKey) => Effect.fromResult(Permits.prepare({ ...request, idempotencyKey }))
  )

const preparedOf = (request: Permits.PermitIntent | Permits.PreparedPermitRequest) =>
  isPrepared(request) ? Effect.succeed(request) : prepareIntent(request)

/**
 * The permit methods of a client.
 *
 * @category constructors
 * @since 0.1.0
 */
export const permits = (env: ClientEnv, manifests: SolverManifests, feeds: FeedReader): PermitsApi => {
  const serverMessage = Effect.fn("SvcClient.permits.serverMessage")(function*(
    request: Permits.PermitIntent | Permits.PreparedPermitRequest
  ) {
    const prepared = yield* preparedOf(request)
    const d = yield* manifests.solver
    const answer = yield* env.call(Operations.buildPermitRequestMessage, {
      url: d.manifest.endpoints.permitRequestMessage,
      body: Permits.messageBody(prepared)
    })
    return answer.body.message
  })

  const create = Effect.fn("SvcClient.permits.create")(function*(input: CreatePermitInput) {
    const prepared = yield* preparedOf(input.request)
    const d = yield* manifests.solver
    const route = input.route ?? (yield* feeds.routeOfQuote(prepared.request.quoteId))
    const requestSignature = yield* Permits.signWith(input.signer, prepared.message)
    yield* Effect.fromResult(Permits.checkRequestSignature(prepared, requestSignature))
    // serialised once: every retry sends the identical bytes with the same key
    const request = {
      url: d.manifest.endpoints.executionPermits,
      body: Permits.createBody(prepared, requestSignature),
      headers: { "idempotency-key": prepared.idempotencyKey }
    }
    const answer = yield* retryTransient(env.call(Operations.createExecutionPermit, request), env.retry)
    const decoded = answer.body
    const envelope = decoded.permit
    const now = yield* nowSeconds
    yield* Effect.fromResult(Permits.verifyPermit(envelope, {
      authority: d.expectedSigner,
      request: prepared.request,
      route,
      minAmountOutRaw: input.minAmountOutRaw === undefined ? undefined : String(input.minAmountOutRaw),
      now,
      clockSkewSeconds: env.clockSkewSeconds
    }))
    const transaction = yield* Effect.fromResult(Permits.fillDirectTransaction(envelope))
    return {
      fillId: envelope.fillId,
      envelope,
      status: answer.status as 200 | 201,
      idempotent: decoded.idempotent,
      idempotencyKey: prepared.idempotencyKey,
      request: prepared.request,
      message: prepared.message,
      requestSignature,
      route,
      transaction
    }
  })

  const read = (fillId: string) =>
    Effect.gen(function*() {
      const id = yield* checkId("fillId", fillId)
      const d = yield* manifests.solver
      const url = yield* templateUrl(d, "permitStatusTemplate", Operations.getExecutionPermit, { fillId: id })
      const envelope = (yield* env.call(Operations.getExecutionPermit, { url })).body.permit
      if (envelope.fillId.toLowerCase() !== id) {
        return yield* new PermitInvalid({ fillId: envelope.fillId, reasons: ["FILL_ID_MISMATCH"] })
      }
      yield* Effect.fromResult(Permits.verifyPermit(envelope, { authority: d.expectedSigner }))
      return envelope
    })

  const waitFor = Effect.fn("SvcClient.permits.waitFor")(function*(
    fillId: string,
    options?: PollOptions<ExecutionPermitEnvelope>
  ) {
    return yield* poll(
      "permit status",
      read(fillId),
      (envelope) => Permits.isTerminalState(envelope.state),
      (a, b) => a.state === b.state && a.sourceTxHash === b.sourceTxHash && a.payoutTxHash === b.payoutTxHash,
      options
    )
  })

  return {
    message: Effect.fn("SvcClient.permits.message")(function*(request: Permits.PermitIntent) {
      return yield* prepareIntent(request)
    }),
    serverMessage,
    create,
    get: Effect.fn("SvcClient.permits.get")(function*(fillId: string) {
      return yield* read(fillId)
    }),
    waitFor
  }
}
