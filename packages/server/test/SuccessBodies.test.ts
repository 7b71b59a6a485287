/**
 * The handlers that answer with `handleRaw` type their success bodies by their
 * endpoint's declared schema (`Http.success`, `Http.successBytes`): the compiler
 * refuses a body the contract does not declare (the `@ts-expect-error` lines
 * below are checked by `tsc`, part of `npm test`: a body that stopped being
 * refused makes the type check fail), and the answer is `Http.json`'s, byte for
 * byte.
 */
import { assert, describe, it } from "@effect/vitest"
import { Api } from "@svc/protocol/Api"
import type { HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import * as Http from "../src/Http.ts"

type EndpointOf<Id extends string> = HttpApiEndpoint.WithIdentifier<Http.ContractEndpoint, Id>
type Envelope = Http.OperationBody<"createExecutionPermit">["permit"]

/** Type checks only: never called. */
export const typeChecks = (
  created: EndpointOf<"createExecutionPermit">,
  message: EndpointOf<"buildPermitRequestMessage">,
  ready: EndpointOf<"healthReady">,
  quote: EndpointOf<"aggregator_quote">,
  envelope: Envelope,
  status: Http.OperationBody<"aggregator_status">
) => [
  // what the handlers answer
  Http.success(created, 201, { ok: true, idempotent: false, permit: envelope }),
  Http.success(message, 200, { ok: true, message: "svc permit request ..." }),
  // @ts-expect-error a field the contract does not declare
  Http.success(created, 201, { ok: true, idempotent: false, permit: envelope, replayed: true }),
  // @ts-expect-error a declared field missing
  Http.success(created, 200, { ok: true, permit: envelope }),
  // @ts-expect-error a field of another type (the envelope's state is a string)
  Http.success(created, 200, { ok: true, idempotent: true, permit: { ...envelope, state: 3 } }),
  // @ts-expect-error ok is the literal true
  Http.success(message, 200, { ok: false, message: "svc permit request ..." }),
  // @ts-expect-error the body of another operation
  Http.success(quote, 200, status),
  // @ts-expect-error a health report without its components
  Http.success(ready, 503, { ok: false, live: true, ready: false, checkedAt: 0 }),
  // @ts-expect-error a manifest that is not the aggregator's manifest
  Http.successBytes("aggregator_manifest", { ok: true })
]

const bytesOf = (response: HttpServerResponse.HttpServerResponse): string => {
  const body = response.body
  assert.strictEqual(body._tag, "Uint8Array")
  return new TextDecoder().decode(body._tag === "Uint8Array" ? body.body : undefined)
}

describe("typed success bodies", () => {
  it("answer what Http.json answers, byte for byte, with the same status and headers", () => {
    assert.strictEqual(typeof typeChecks, "function")
    const endpoint = Api.groups.Permits.endpoints.buildPermitRequestMessage
    const body = { ok: true, message: "svc permit request\nline two \u2028 é" } as const
    const typed = Http.success(endpoint, 200, body, { etag: "x" })
    const plain = Http.json(200, body, { etag: "x" })
    assert.strictEqual(bytesOf(typed), bytesOf(plain))
    assert.strictEqual(typed.status, plain.status)
    assert.deepStrictEqual(typed.headers, plain.headers)
    assert.strictEqual(
      new TextDecoder().decode(Http.successBytes("buildPermitRequestMessage", body)),
      JSON.stringify(body)
    )
  })
})
